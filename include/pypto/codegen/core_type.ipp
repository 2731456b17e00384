// pypto/codegen/core_type.ipp — the definitions of codegen/core_type.hpp.
#pragma once

#include "pypto/codegen/core_type.hpp"

#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/visit.hpp"

namespace pypto::codegen {

PYPTO_DECL CoreType core_type_of(const ir::Function& fn) {
  if (fn.func_type == ir::FunctionType::AIC) return CoreType::AIC;
  if (fn.func_type == ir::FunctionType::AIV || !fn.body) return CoreType::AIV;
  bool cube = false;
  ir::for_each_node(fn.body, [&cube](const ir::Node& n) {
    if (cube) return;
    if (const auto* t = ir::as<ir::TileType>(&n))
      cube = t->memory_space && is_cube_memory(*t->memory_space);
    else if (const auto* c = ir::as<ir::Call>(&n))
      cube = c->op && c->op->id == ir::OpId::tile_matmul;
  });
  return cube ? CoreType::AIC : CoreType::AIV;
}

}  // namespace pypto::codegen

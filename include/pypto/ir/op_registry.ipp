// pypto/ir/op_registry.ipp — the definitions of ir/op_registry.hpp: the standard registry,
// built from the family tables in ir/ops/.
#pragma once

#include "pypto/ir/op_registry.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/ir/ops/array.ipp"
#include "pypto/ir/ops/distributed.ipp"
#include "pypto/ir/ops/system.ipp"
#include "pypto/ir/ops/tensor.ipp"
#include "pypto/ir/ops/tile.ipp"

namespace pypto::ir {

PYPTO_DECL OpRegistry standard_op_registry() {
  OpRegistry r;
  ops::add_tile_ops(r);
  ops::add_tensor_ops(r);
  ops::add_system_ops(r);
  ops::add_distributed_ops(r);
  ops::add_array_ops(r);
  return r;
}

}  // namespace pypto::ir

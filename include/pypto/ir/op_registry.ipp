// pypto/ir/op_registry.ipp — the definitions of ir/op_registry.hpp: the standard registry,
// built from the family tables in ir/ops/, and an op's catalog line.
#pragma once

#include "pypto/ir/op_registry.hpp"

#include <cstddef>
#include <cstdint>
#include <iterator>
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

PYPTO_DECL std::string catalog_line(const OpDef& def) {
  std::string line = def.name + "(";
  for (std::size_t i = 0; i < def.args.size(); ++i) {
    const ArgSpec& a = def.args[i];
    std::string arg = a.name;
    if (a.effect_rule)
      arg += ":by-keywords";
    else if (a.effect == ArgEffect::Write)
      arg += ":W";
    else if (a.effect == ArgEffect::ReadWrite)
      arg += ":RW";
    line += (i ? ", " : "") + (a.optional ? "[" + arg + "]" : arg);
  }
  line += ")";
  static constexpr const char* kKinds[] = {"Bool", "Int",  "Double", "String", "DataType",
                                           "Enum", "Expr", "List",   "Any"};
  static_assert(std::size(kKinds) == static_cast<std::size_t>(KwargKind::Any) + 1,
                "one name per KwargKind");
  for (const KwargSpec& k : def.kwargs) {
    line += " " + k.name + "=" +
            (k.kind == KwargKind::Enum ? std::string(enum_type_name(EnumValue{k.enum_id, 0}))
                                       : std::string(kKinds[static_cast<std::size_t>(k.kind)]));
    for (std::size_t i = 0; i < k.names.size(); ++i) line += (i ? "|" : "{") + k.names[i];
    if (!k.names.empty()) line += "}";
  }
  if (def.statement_only) line += "  statement only";
  for (const std::string& alias : def.spellings) line += "  also pl." + alias;
  for (const auto& [key, op] : def.by_keyword) line += "  " + key + "= is " + op;
  if (!def.params.empty()) {
    line += "  positional (";
    for (std::size_t i = 0; i < def.params.size(); ++i) line += (i ? ", " : "") + def.params[i];
    line += ")";
  }
  return line;
}

}  // namespace pypto::ir

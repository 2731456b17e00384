// pypto/ir/ops/array.ipp — the array op family: small on-core arrays of integers, BOOLs or task
// ids (`pl.Array[N, dtype]`), created, read and updated element by element. An update gives a
// new array value, as tensor.assemble gives a new tensor: the parser's `arr[i] = v` rebinds
// `arr` to it (docs/text-format.md).
#pragma once

#include <cstddef>
#include <string_view>

#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/ops/type_rules.hpp"

namespace pypto::ir::ops {

/// Argument `i` is an integer scalar index.
inline void index_arg(std::string_view op, const Args& args, std::size_t i) {
  if (!is_integer_scalar(args[i])) fail(op, i, "must be an integer index");
}

/// array.create(extent, dtype=...) -> pl.Array[extent, dtype]; the extent is a constant.
inline TypeRef array_create(std::string_view op, const Args& args, const Attrs& kw) {
  const auto* extent = as<ConstInt>(args[0].get());
  if (!extent || extent->value <= 0) fail(op, 0, "must be a positive constant extent");
  const auto dtype = required_kwarg<core::DataType>(op, kw, "dtype");
  if (!core::is_int(dtype) && dtype != core::DataType::BOOL && dtype != core::DataType::TASK_ID)
    throw core::TypeError(std::string(op) +
                          ": keyword 'dtype' must be an integer, BOOL or TASK_ID");
  return ArrayType::make(dtype, extent->value);
}

/// array.get_element(array, index) -> the element's scalar type.
inline TypeRef array_get(std::string_view op, const Args& args, const Attrs&) {
  const auto& a = arg_as<ArrayType>(op, args, 0);
  index_arg(op, args, 1);
  return ScalarType::make(a.dtype);
}

/// array.update_element(array, index, value) -> the array with one element replaced. The value
/// has the element dtype (INDEX and an integer dtype stand for each other).
inline TypeRef array_update(std::string_view op, const Args& args, const Attrs&) {
  const auto& a = arg_as<ArrayType>(op, args, 0);
  index_arg(op, args, 1);
  const auto v = arg_as<ScalarType>(op, args, 2).dtype;
  using core::DataType;
  if (v != a.dtype && !(v == DataType::INDEX && core::is_int(a.dtype)) &&
      !(a.dtype == DataType::INDEX && core::is_int(v)))
    fail(op, 2, "must have the array's dtype " + std::string(core::dtype_name(a.dtype)));
  return args[0]->type;
}

// Cold: it runs once per registry, and the optimizer then spends little on its initialisers.
[[gnu::cold]] inline void add_array_ops(OpRegistry& r) {
  r.add({.name = "array.create",
         .args = {{"extent"}},
         .kwargs = {{"dtype", KwargKind::DataType}},
         .type_rule = array_create,
         .params = {"extent", "dtype"}});
  r.add({.name = "array.get_element", .args = {{"array"}, {"index"}}, .type_rule = array_get});
  r.add({.name = "array.update_element",
         .args = {{"array", ArgEffect::ReadWrite}, {"index"}, {"value"}},
         .type_rule = array_update});
}

}  // namespace pypto::ir::ops

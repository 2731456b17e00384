// pypto/ir/ops/tensor.ipp — the tensor op family: upstream PyPTO's tensor ops with their DSL
// parameters, effects and type rules (docs/text-format.md lists them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/ops/type_rules.hpp"

namespace pypto::ir::ops {

/// tensor.read(tensor, indices) -> Scalar of the tensor's dtype.
inline TypeRef tensor_read(std::string_view op, const Args& args, const Attrs&) {
  const auto& t = arg_as<TensorType>(op, args, 0);
  if (shape_arg(op, args, 1).size() != t.rank()) fail(op, 1, "must index every dimension");
  return ScalarType::make(t.dtype);
}

/// tensor.write(tensor, indices, value) -> the tensor's type.
inline TypeRef tensor_write(std::string_view op, const Args& args, const Attrs&) {
  const auto& t = arg_as<TensorType>(op, args, 0);
  if (shape_arg(op, args, 1).size() != t.rank()) fail(op, 1, "must index every dimension");
  arg_as<ScalarType>(op, args, 2);
  return args[0]->type;
}

/// tensor.slice(tensor, shape, offset[, valid_shape]) -> a tensor of the slice shape.
inline TypeRef tensor_slice(std::string_view op, const Args& args, const Attrs&) {
  const auto& t = arg_as<TensorType>(op, args, 0);
  auto shape = shape_arg(op, args, 1);
  if (shape_arg(op, args, 2).size() != shape.size()) fail(op, 2, "must match the shape's rank");
  return TensorType::make(t.dtype, std::move(shape), std::nullopt, nullptr, t.distributed);
}

/// tensor.view(tensor, shape[, valid_shape]) -> the tensor seen with another shape; a view of a
/// distributed tensor stays one.
inline TypeRef tensor_view(std::string_view op, const Args& args, const Attrs&) {
  const auto& t = arg_as<TensorType>(op, args, 0);
  return TensorType::make(t.dtype, shape_arg(op, args, 1), std::nullopt, nullptr, t.distributed);
}

/// tensor.assemble(target, source, offset) -> the target's type.
inline TypeRef tensor_assemble(std::string_view op, const Args& args, const Attrs&) {
  const auto& target = arg_as<TensorType>(op, args, 0);
  const auto& source = arg_as<TensorType>(op, args, 1);
  if (source.dtype != target.dtype) fail(op, 1, "must have the target's dtype");
  if (shape_arg(op, args, 2).size() != target.rank()) fail(op, 2, "must match the target's rank");
  return args[0]->type;
}

/// tensor.dim(tensor, axis) -> Scalar[INDEX]; the axis is a constant within the rank.
inline TypeRef tensor_dim(std::string_view op, const Args& args, const Attrs&) {
  const auto& t = arg_as<TensorType>(op, args, 0);
  const auto* axis = as<ConstInt>(args[1].get());
  const auto rank = static_cast<std::int64_t>(t.rank());
  if (!axis || axis->value < -rank || axis->value >= rank)
    fail(op, 1, "must be a constant axis in [-rank, rank)");
  return ScalarType::make(core::DataType::INDEX);
}

/// tensor.create(shape, dtype=...) -> a fresh tensor (a non-ND layout becomes its view).
inline TypeRef tensor_create(std::string_view op, const Args& args, const Attrs& kw) {
  const auto dtype = required_kwarg<core::DataType>(op, kw, "dtype");
  std::optional<TensorView> view;
  if (auto layout = kw.get<TensorLayout>("layout"); layout && *layout != TensorLayout::ND)
    view = TensorView{{}, *layout, {}, PadValue::null};
  return TensorType::make(dtype, shape_arg(op, args, 0), std::move(view));
}

/// tensor.expand_clone(input, target) -> the target's type.
inline TypeRef tensor_expand_clone(std::string_view op, const Args& args, const Attrs&) {
  const auto& in = arg_as<TensorType>(op, args, 0);
  const auto& target = arg_as<TensorType>(op, args, 1);
  if (in.dtype != target.dtype) fail(op, 1, "must have the input's dtype");
  return args[1]->type;
}

// Cold: it runs once per registry, and the optimizer then spends little on its initialisers.
[[gnu::cold]] inline void add_tensor_ops(OpRegistry& r) {
  using K = KwargKind;
  using R = ArgEffect;
  const KwargSpec pad_value = enum_kwarg<PadValue>("pad_value");
  const ArgSpec rhs_operand = scalar_operand("rhs");

  // creation and access
  r.add({.name = "tensor.create",
         .args = {{"shape"}},
         .kwargs = {{"dtype", K::DataType},
                    enum_kwarg<TensorLayout>("layout"),
                    {"manual_dep", K::Bool},
                    {"init_value", K::Double}},
         .type_rule = tensor_create,
         .spellings = {"create_tensor"},
         .params = {"shape", "dtype", "layout", "manual_dep", "init_value"}});
  r.add({.name = "tensor.create_l1",
         .args = {{"shape"}},
         .kwargs = {{"dtype", K::DataType}, {"transpose", K::Bool}},
         .type_rule = fresh<false, 0, true>,
         .spellings = {"create_l1"},
         .params = {"shape", "dtype", "transpose"}});
  r.add({.name = "tensor.full",
         .args = {{"shape"}},
         .kwargs = {{"dtype", K::DataType}, {"value", K::Any}},
         .type_rule = fresh<false, 0, true>,
         .params = {"shape", "dtype", "value"}});
  r.add({.name = "tensor.ci",
         .args = {{"start"}, {"shape"}},
         .kwargs = {{"dtype", K::DataType}, {"descending", K::Bool}},
         .type_rule = fresh<false, 1, false, core::DataType::INT32>,
         .spellings = {"arange"},
         .params = {"start", "shape", "dtype", "descending"}});
  r.add(
      {.name = "tensor.random",
       .args =
           {{"key0"}, {"key1"}, {"counter0"}, {"counter1"}, {"counter2"}, {"counter3"}, {"shape"}},
       .kwargs = {{"dtype", K::DataType}, {"rounds", K::Int}},
       .type_rule = fresh<false, 6, false, core::DataType::UINT32>,
       .params = {"key0", "key1", "counter0", "counter1", "counter2", "counter3", "shape", "dtype",
                  "rounds"}});
  r.add({.name = "tensor.read", .args = {{"tensor"}, {"indices"}}, .type_rule = tensor_read});
  r.add({.name = "tensor.write",
         .args = {{"tensor", R::Write}, {"indices"}, {"value"}},
         .type_rule = tensor_write});
  r.add({.name = "tensor.dim", .args = {{"tensor"}, {"axis"}}, .type_rule = tensor_dim});
  r.add(
      {.name = "tensor.slice",
       .args = {{"tensor"},
                {"shape"},
                {"offset"},
                {"valid_shape", R::Read, true},
                {"drop_dims", R::Read, true}},
       .kwargs = {pad_value, {"clamp", K::Bool}},
       .type_rule = tensor_slice,
       .params = {"tensor", "shape", "offset", "valid_shape", "drop_dims", "pad_value", "clamp"}});
  r.add({.name = "tensor.assemble",
         .args = {atomic_destination("target"), {"source"}, {"offset"}},
         .kwargs = {enum_kwarg<AtomicType>("atomic")},
         .type_rule = tensor_assemble});
  r.add({.name = "tensor.expand_clone",
         .args = {{"input"}, {"target", R::Write}},
         .type_rule = tensor_expand_clone});
  r.add({.name = "tensor.fillpad",
         .args = {{"tensor"}},
         .kwargs = {pad_value},
         .type_rule = like_first,
         .params = {"tensor", "pad_value"}});
  r.add({.name = "tensor.fillpad_expand",
         .args = {{"tensor"}, {"shape"}},
         .kwargs = {pad_value},
         .type_rule = reshaped<1>,
         .params = {"tensor", "shape", "pad_value"}});
  r.add({.name = "tensor.set_validshape",
         .args = {{"tensor"}, {"valid_rows"}, {"valid_cols"}},
         .type_rule = like_first});
  r.add({.name = "tensor.reshape",
         .args = {{"tensor"}, {"shape"}, {"valid_shape", R::Read, true}},
         .type_rule = reshaped<1>});
  r.add({.name = "tensor.view",
         .args = {{"tensor"}, {"shape"}, {"valid_shape", R::Read, true}},
         .kwargs = {enum_kwarg<TensorLayout>("layout")},
         .type_rule = tensor_view});
  r.add({.name = "tensor.reinterpret_view",
         .args = {{"data"}, {"shape", R::Read, true}},
         .kwargs = {{"dtype", K::DataType}},
         .type_rule = reinterpret,
         .params = {"data", "dtype"}});
  r.add({.name = "tensor.transpose",
         .args = {{"tensor"}, {"axis1"}, {"axis2"}, {"valid_shape", R::Read, true}},
         .type_rule = transpose});
  r.add({.name = "tensor.concat", .args = {{"src0"}, {"src1"}}, .type_rule = concat});
  r.add({.name = "tensor.cast",
         .args = {{"input"}},
         .kwargs = {{"target_type", K::DataType}, {"mode", K::Any}},
         .type_rule = cast,
         .params = {"input", "target_type", "mode"}});

  // elementwise
  for (const char* name :
       {"tensor.add", "tensor.sub", "tensor.mul", "tensor.maximum", "tensor.minimum", "tensor.and",
        "tensor.or", "tensor.xor", "tensor.shl", "tensor.shr", "tensor.fmod"})
    r.add({.name = name, .args = {{"lhs"}, rhs_operand}, .type_rule = elementwise});
  for (const char* name :
       {"tensor.part_add", "tensor.part_mul", "tensor.part_max", "tensor.part_min"})
    r.add({.name = name, .args = {{"lhs"}, {"rhs"}}, .type_rule = elementwise});
  r.add({.name = "tensor.div",
         .args = {{"lhs"}, rhs_operand},
         .kwargs = {{"high_precision", K::Bool}},
         .type_rule = elementwise,
         .params = {"lhs", "rhs", "high_precision"}});
  for (const char* name :
       {"tensor.adds", "tensor.subs", "tensor.muls", "tensor.divs", "tensor.ands", "tensor.ors",
        "tensor.xors", "tensor.shls", "tensor.shrs", "tensor.fmods"})
    r.add({.name = name, .args = {{"lhs"}, rhs_operand}, .type_rule = elementwise});
  r.add({.name = "tensor.expands", .args = {{"target"}, {"scalar"}}, .type_rule = with_scalar});
  r.add({.name = "tensor.cmp",
         .args = {{"lhs"}, rhs_operand},
         .kwargs = {{"cmp_type", K::Int}},
         .type_rule = elementwise,
         .params = {"lhs", "rhs", "cmp_type"}});
  for (const char* name : {"tensor.neg", "tensor.exp", "tensor.sin", "tensor.cos", "tensor.sqrt",
                           "tensor.abs", "tensor.not"})
    r.add({.name = name, .args = {{"input"}}, .type_rule = like_first});
  for (const char* name : {"tensor.recip", "tensor.log", "tensor.rsqrt"})
    r.add({.name = name,
           .args = {{"input"}},
           .kwargs = {{"high_precision", K::Bool}},
           .type_rule = like_first,
           .params = {"input", "high_precision"}});

  // reductions and expands
  const std::vector<KwargSpec> reduce_kw = {{"axis", K::Int}, {"keep_dim", K::Bool}};
  for (const char* name : {"tensor.row_sum", "tensor.row_max", "tensor.row_min", "tensor.row_prod"})
    r.add(
        {.name = name, .args = {{"input"}}, .kwargs = reduce_kw, .type_rule = reduce<true, false>});
  for (const char* name : {"tensor.row_argmax", "tensor.row_argmin"})
    r.add(
        {.name = name, .args = {{"input"}}, .kwargs = reduce_kw, .type_rule = reduce<true, true>});
  for (const char* name : {"tensor.col_sum", "tensor.col_max", "tensor.col_min", "tensor.col_prod"})
    r.add({.name = name,
           .args = {{"input"}},
           .kwargs = reduce_kw,
           .type_rule = reduce<false, false>});
  for (const char* name : {"tensor.col_argmax", "tensor.col_argmin"})
    r.add(
        {.name = name, .args = {{"input"}}, .kwargs = reduce_kw, .type_rule = reduce<false, true>});
  for (const char* name :
       {"tensor.row_expand", "tensor.row_expand_mul", "tensor.row_expand_div",
        "tensor.row_expand_add", "tensor.row_expand_sub", "tensor.row_expand_max",
        "tensor.row_expand_min", "tensor.row_expand_expdif"})
    r.add({.name = name, .args = {{"tensor"}, {"row_vec"}}, .type_rule = expand});
  for (const char* name :
       {"tensor.col_expand", "tensor.col_expand_mul", "tensor.col_expand_div",
        "tensor.col_expand_add", "tensor.col_expand_sub", "tensor.col_expand_max",
        "tensor.col_expand_min", "tensor.col_expand_expdif"})
    r.add({.name = name, .args = {{"tensor"}, {"col_vec"}}, .type_rule = expand});

  // matmul
  r.add({.name = "tensor.matmul",
         .args = {{"lhs"}, {"rhs"}},
         .kwargs = {{"out_dtype", K::DataType},
                    {"a_trans", K::Bool},
                    {"b_trans", K::Bool},
                    {"c_matrix_nz", K::Bool}},
         .type_rule = matmul<0>,
         .params = {"lhs", "rhs", "out_dtype", "a_trans", "b_trans", "c_matrix_nz"}});
  r.add({.name = "tensor.matmul_acc",
         .args = {{"acc", R::ReadWrite}, {"lhs"}, {"rhs"}, {"init_cond", R::Read, true}},
         .kwargs = {{"a_trans", K::Bool}, {"b_trans", K::Bool}},
         .type_rule = matmul<1>});

  // block indices
  r.add({.name = "tensor.get_block_idx", .type_rule = scalar<core::DataType::INDEX>});
  r.add({.name = "tensor.get_subblock_idx", .type_rule = scalar<core::DataType::INDEX>});
  r.add({.name = "tensor.get_block_num", .type_rule = scalar<core::DataType::INDEX>});
}

}  // namespace pypto::ir::ops

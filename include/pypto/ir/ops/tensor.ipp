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

/// tensor.alloc(memory_space, size) -> the base pointer of a global-memory (DDR) allocation.
inline TypeRef tensor_alloc(std::string_view op, const Args& args, const Attrs& kw) {
  if (required_kwarg<MemorySpace>(op, kw, "memory_space") != MemorySpace::DDR)
    fail_kwarg(op, "memory_space", "must be pl.Mem.DDR");
  if (!is_integer_scalar(args[0])) fail(op, 0, "must be an integer size in bytes");
  return PtrType::make();
}

/// tensor.write(tensor, indices, value) -> the tensor's type.
inline TypeRef tensor_write(std::string_view op, const Args& args, const Attrs&) {
  const auto& t = arg_as<TensorType>(op, args, 0);
  if (shape_arg(op, args, 1).size() != t.rank()) fail(op, 1, "must index every dimension");
  arg_as<ScalarType>(op, args, 2);
  return args[0]->type;
}

/// tensor.view(tensor[, shape[, valid_shape]], layout=) -> the tensor seen with another shape,
/// or (no shape) with another layout, the last two axes swapped when it changes; a non-ND
/// layout= is the result's view. A view of a distributed tensor stays one.
inline TypeRef tensor_view(std::string_view op, const Args& args, const Attrs& kw) {
  const auto& t = arg_as<TensorType>(op, args, 0);
  const std::optional<TensorLayout> layout = kw.get<TensorLayout>("layout");
  const TensorLayout from = t.tensor_view ? t.tensor_view->layout : TensorLayout::ND;
  if (layout == TensorLayout::NZ) fail(op, 0, "cannot be viewed with the NZ layout (tile-only)");
  std::vector<ExprRef> shape;
  if (args.size() > 1) {
    shape = shape_arg(op, args, 1);
  } else {
    // The layout-only form: the same memory read with the other layout swaps the last two axes.
    if (!layout) fail(op, 0, "needs a shape or a layout= to view it with");
    shape = t.shape;
    if (*layout != from) {
      if (shape.size() < 2) fail(op, 0, "must have rank at least 2 to change its layout");
      std::swap(shape[shape.size() - 2], shape[shape.size() - 1]);
    }
  }
  if (layout == TensorLayout::DN && shape.size() < 2)
    fail(op, 1, "must have rank at least 2 for the DN layout");
  std::optional<TensorView> view;
  if (layout && *layout != TensorLayout::ND) view = TensorView{{}, *layout, {}, PadValue::null};
  return TensorType::make(t.dtype, std::move(shape), std::move(view), nullptr, t.distributed);
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

/// tensor.expand_clone(input, target) -> the target's type: rank-3 tensors of one dtype, the
/// input's extents the target's but in at most one dimension, where the input's is 1 (upstream's
/// rule).
inline TypeRef tensor_expand_clone(std::string_view op, const Args& args, const Attrs&) {
  const auto& in = arg_as<TensorType>(op, args, 0);
  const auto& target = arg_as<TensorType>(op, args, 1);
  if (in.rank() != 3) fail(op, 0, "must be rank 3, got rank " + std::to_string(in.rank()));
  if (target.rank() != 3) fail(op, 1, "must have the input's rank 3");
  if (in.dtype != target.dtype) fail(op, 1, "must have the input's dtype");
  std::size_t broadcast = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    if (same_extent(in.shape[i], target.shape[i])) continue;
    if (!is_one(in.shape[i]))
      fail(op, 0,
           "may differ from the target only where its extent is 1, not in dimension " +
               std::to_string(i));
    if (++broadcast > 1) fail(op, 0, "may differ from the target in one dimension only");
  }
  return args[1]->type;
}

/// tensor.mrgsort_format2(src0, src1[, src2[, src3]], exhausted=): two to four sorted lists of
/// one dtype and rank, alike but in the last dimension, merged: that dimension summed.
inline TypeRef tensor_merge_lists(std::string_view op, const Args& args, const Attrs&) {
  const auto& first = arg_as<TensorType>(op, args, 0);
  require_dtype(op, 0, first.dtype, kSortDtypes);
  if (first.shape.empty()) fail(op, 0, "must not be rank 0");
  std::vector<ExprRef> shape = first.shape;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const auto& t = arg_as<TensorType>(op, args, i);
    if (t.dtype != first.dtype || t.rank() != first.rank())
      fail(op, i, "must have argument 0's dtype and rank");
    for (std::size_t k = 0; k + 1 < t.rank(); ++k)
      if (!same_extent(t.shape[k], first.shape[k]) && constant_of(t.shape[k]) &&
          constant_of(first.shape[k]))
        fail(op, i, "must have argument 0's shape but in the last dimension");
    const auto a = constant_of(shape.back()), b = constant_of(t.shape.back());
    shape.back() =
        a && b ? ConstInt::make(*a + *b) : ExprRef(Add::make(shape.back(), t.shape.back()));
  }
  return TensorType::make(first.dtype, std::move(shape));
}

/// tensor.paged_gather(src, indices, block_table, block_size=, size=, max_indices=, col_off=,
/// is_trans=, space=): rows of a paged 2-D source gathered through an INT32 block table:
/// [max_indices, size] of its dtype, [size, max_indices] transposed (Mat only).
inline TypeRef tensor_paged_gather(std::string_view op, const Args& args, const Attrs& kw) {
  using D = core::DataType;
  static constexpr D allowed[] = {D::FP16, D::BF16, D::FP32, D::INT8};
  const auto& src = arg_as<TensorType>(op, args, 0);
  require_dtype(op, 0, src.dtype, allowed);
  if (src.rank() != 2) fail(op, 0, "must have rank 2");
  for (std::size_t i : {1, 2}) {
    const auto& t = arg_as<TensorType>(op, args, i);
    if (t.dtype != D::INT32 || (t.rank() != 1 && (t.rank() != 2 || !is_one(t.shape[0]))))
      fail(op, i, "must be INT32 [n] or [1, n]");
  }
  int_kwarg(op, kw, "block_size", 1, INT64_MAX);
  const std::int64_t size = int_kwarg(op, kw, "size", 1, INT64_MAX);
  const std::int64_t rows = int_kwarg(op, kw, "max_indices", 1, INT64_MAX);
  const std::int64_t col_off = int_kwarg(op, kw, "col_off", 0, INT64_MAX, 0);
  const bool trans = kw.get<bool>("is_trans").value_or(false);
  if (trans && kw.get<MemorySpace>("space").value_or(MemorySpace::Mat) != MemorySpace::Mat)
    fail_kwarg(op, "is_trans", "needs space=pl.Mem.Mat");
  if (auto cols = constant_of(src.shape[1]); cols && col_off + size > *cols)
    fail_kwarg(op, "size", "must fit in argument 0's columns after col_off");
  if (trans) return TensorType::make(src.dtype, {ConstInt::make(size), ConstInt::make(rows)});
  return TensorType::make(src.dtype, {ConstInt::make(rows), ConstInt::make(size)});
}

// Cold: it runs once per registry, and the optimizer then spends little on its initialisers.
[[gnu::cold]] inline void add_tensor_ops(OpRegistry& r) {
  using K = KwargKind;
  using R = ArgEffect;
  const KwargSpec pad_value = enum_kwarg<PadValue>("pad_value");
  const ArgSpec rhs_operand = scalar_operand("rhs");

  // creation and access
  r.add(
      {.name = "tensor.create",
       .args = {{"shape"}},
       .kwargs = {{"dtype", K::DataType},
                  with_default(enum_kwarg<TensorLayout>("layout"), EnumValue::of(TensorLayout::ND)),
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
  r.add({.name = "tensor.alloc",
         .args = {{"size"}},
         .kwargs = {enum_kwarg<MemorySpace>("memory_space")},
         .type_rule = tensor_alloc,
         .params = {"memory_space", "size"}});
  r.add({.name = "tensor.full",
         .args = {{"shape"}},
         .kwargs = {{"dtype", K::DataType}, {"value", K::Any}},
         .type_rule = fresh<false, 0, true>,
         .params = {"shape", "dtype", "value"}});
  r.add({.name = "tensor.ci",
         .args = {{.name = "start", .takes_dtype_keyword = true}, {"shape"}},
         .kwargs = {with_default({"dtype", K::DataType}, core::DataType::INT32),
                    with_default({"descending", K::Bool}, false)},
         .type_rule = fresh<false, 1, false, core::DataType::INT32>,
         .spellings = {"arange", "tensor.arange"},
         .params = {"start", "shape", "dtype", "descending"}});
  r.add(
      {.name = "tensor.random",
       .args =
           {{"key0"}, {"key1"}, {"counter0"}, {"counter1"}, {"counter2"}, {"counter3"}, {"shape"}},
       .kwargs = {{"dtype", K::DataType}, {"rounds", K::Int}},
       .type_rule = fresh<false, 6, false, core::DataType::UINT32>,
       .params = {"key0", "key1", "counter0", "counter1", "counter2", "counter3", "shape", "dtype",
                  "rounds"}});
  r.add({.name = "tensor.read",
         .args = {{"tensor"}, {.name = "indices", .index_list = true}},
         .type_rule = tensor_read});
  r.add({.name = "tensor.write",
         .args = {{"tensor", R::Write}, {.name = "indices", .index_list = true}, {"value"}},
         .type_rule = tensor_write});
  r.add({.name = "tensor.dim", .args = {{"tensor"}, {"axis"}}, .type_rule = tensor_dim});
  r.add(
      {.name = "tensor.slice",
       .args = {{"tensor"},
                {"shape"},
                {"offset"},
                filled("valid_shape", ArgFill::EmptyList),
                {"drop_dims", R::Read, true}},
       .kwargs = {pad_value, {"clamp", K::Bool}},
       .type_rule = sliced,
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
         .type_rule = fillpad<like_first>,
         .params = {"tensor", "pad_value"}});
  r.add({.name = "tensor.fillpad_expand",
         .args = {{"tensor"}, {"shape"}},
         .kwargs = {pad_value},
         .type_rule = fillpad<reshaped<1>>,
         .params = {"tensor", "shape", "pad_value"}});
  r.add({.name = "tensor.set_validshape",
         .args = {{"tensor"}, {"valid_rows"}, {"valid_cols"}},
         .type_rule = like_first});
  r.add({.name = "tensor.reshape",
         .args = {{"tensor"}, {"shape"}, {"valid_shape", R::Read, true}},
         .type_rule = reshape});
  r.add({.name = "tensor.view",
         .args = {{"tensor"}, {"shape", R::Read, true}, {"valid_shape", R::Read, true}},
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
         .kwargs = {{"target_type", K::DataType}, cast_mode_kwarg()},
         .type_rule = cast,
         .params = {"input", "target_type", "mode"}});

  // elementwise
  for (const char* name :
       {"tensor.add", "tensor.sub", "tensor.mul", "tensor.maximum", "tensor.minimum", "tensor.and",
        "tensor.or", "tensor.xor", "tensor.fmod"})
    r.add({.name = name, .args = {{"lhs"}, rhs_operand}, .type_rule = elementwise});
  for (const char* name : {"tensor.shl", "tensor.shr"})
    r.add({.name = name, .args = {{"lhs"}, rhs_operand}, .type_rule = elementwise_lhs_dtype});
  for (const char* name :
       {"tensor.part_add", "tensor.part_mul", "tensor.part_max", "tensor.part_min"})
    r.add({.name = name, .args = {{"lhs"}, {"rhs"}}, .type_rule = elementwise});
  r.add({.name = "tensor.div",
         .args = {{"lhs"}, rhs_operand},
         .kwargs = {{"high_precision", K::Bool}},
         .type_rule = elementwise,
         .params = {"lhs", "rhs", "high_precision"}});
  for (const char* name : {"tensor.adds", "tensor.muls", "tensor.divs", "tensor.fmods"})
    r.add({.name = name, .args = {{"lhs"}, rhs_operand}, .type_rule = elementwise});
  for (const char* name :
       {"tensor.subs", "tensor.ands", "tensor.ors", "tensor.xors", "tensor.shls", "tensor.shrs"})
    r.add({.name = name, .args = {{"lhs"}, rhs_operand}, .type_rule = elementwise_lhs_dtype});
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
                    with_default({"a_trans", K::Bool}, false),
                    with_default({"b_trans", K::Bool}, false),
                    {"c_matrix_nz", K::Bool}},
         .type_rule = matmul<0>,
         .params = {"lhs", "rhs", "out_dtype", "a_trans", "b_trans", "c_matrix_nz"}});
  r.add({.name = "tensor.matmul_acc",
         .args = {{"acc", R::ReadWrite}, {"lhs"}, {"rhs"}, {"init_cond", R::Read, true}},
         .kwargs = {{"a_trans", K::Bool}, {"b_trans", K::Bool}},
         .type_rule = matmul<1>});

  // gather, scatter and sort; one DSL function builds each family's forms by its keywords
  const KwargSpec mask_pattern{"mask_pattern", K::Int};
  const KwargSpec cmp_mode{"cmp_mode", K::Int, kNoEnum, {"eq", "ne", "lt", "le", "gt", "ge"}};
  r.add({.name = "tensor.gather",
         .args = {{"input"}, {"index"}},
         .kwargs = {{"dim", K::Int}},
         .type_rule = gather,
         .params = {"input", "dim", "index"},
         .by_keyword = {{"mask_pattern", "tensor.gather_mask"},
                        {"output_dtype", "tensor.gather_mask"},
                        {"kvalue", "tensor.gather_compare"},
                        {"cmp_mode", "tensor.gather_compare"},
                        {"out_cols", "tensor.gather_compare"}}});
  r.add({.name = "tensor.gather_mask",
         .args = {{"input"}},
         .kwargs = {mask_pattern, {"output_dtype", K::DataType}},
         .type_rule = gather_mask,
         .params = {"input", "mask_pattern", "output_dtype"}});
  r.add(
      {.name = "tensor.gather_compare",
       .args = {{"input"}, {"kvalue"}},
       .kwargs = {cmp_mode, {"offset", K::Int}, {"out_cols", K::Int}, {"count_dtype", K::DataType}},
       .type_rule = gather_compare});
  r.add({.name = "tensor.gather_row",
         .args = {{"acc"},
                  {"src"},
                  {"dst_offset"},
                  {"src_offset"},
                  {"shapes"},
                  {"valid_shape", R::Read, true}},
         .kwargs = {{"transpose", K::Bool}},
         .type_rule = gather_row,
         .params = {"acc", "src", "dst_offset", "src_offset", "shapes", "transpose"}});
  r.add({.name = "tensor.paged_gather",
         .args = {{"src"}, {"indices"}, {"block_table"}},
         .kwargs = {{"block_size", K::Int},
                    {"size", K::Int},
                    {"max_indices", K::Int},
                    {"col_off", K::Int},
                    {"is_trans", K::Bool},
                    {"is_b_matrix", K::Bool},
                    enum_kwarg<MemorySpace>("space")},
         .type_rule = tensor_paged_gather,
         .params = {"src", "indices", "block_table", "block_size", "size", "max_indices"}});
  r.add({.name = "tensor.scatter",
         .args = {{"input"}, {"index"}, {"src"}},
         .kwargs = {{"dim", K::Int}},
         .type_rule = scatter<1, 2>,
         .params = {"input", "dim", "index", "src"},
         .by_keyword = {{"mask_pattern", "tensor.scatter_mask"}, {"dst", "tensor.scatter_mask"}}});
  r.add({.name = "tensor.scatter_mask",
         .args = {{"input"}, {"dst"}},
         .kwargs = {mask_pattern},
         .type_rule = scatter_mask<1, 0, false>,
         .params = {"input", "dst", "mask_pattern"}});
  r.add({.name = "tensor.scatter_update",
         .args = {{"input"}, {"index"}, {"src"}},
         .kwargs = {{"dim", K::Int}},
         .type_rule = scatter_update,
         .params = {"input", "dim", "index", "src"}});
  r.add({.name = "tensor.sort32", .args = {{"src"}, {"idx"}}, .type_rule = sort32});
  r.add({.name = "tensor.mrgsort_format1",
         .args = {{"src"}, {"block_len"}},
         .type_rule = mrgsort_runs});
  r.add({.name = "tensor.mrgsort_format2",
         .args = {{"src0"}, {"src1"}, {"src2", R::Read, true}, {"src3", R::Read, true}},
         .kwargs = {{"exhausted", K::Bool}},
         .type_rule = tensor_merge_lists,
         .spellings = {"tensor.mrgsort"},
         .by_keyword = {{"block_len", "tensor.mrgsort_format1"}}});

  // crossing the AIC/AIV split (split defaults to the enclosing pl.split_aiv region's mode)
  const KwargSpec region_split{"split", K::Int, kNoEnum, {}, true};
  r.add({.name = "tensor.aiv_shard",
         .args = {{"tensor"}},
         .kwargs = {region_split},
         .type_rule = split_crossing<false>});
  r.add({.name = "tensor.aic_gather",
         .args = {{"tensor"}},
         .kwargs = {region_split},
         .type_rule = split_crossing<true>});

  // block indices
  for (const char* name : {"get_block_idx", "get_subblock_idx", "get_block_num"})
    r.add({.name = std::string("tensor.") + name,
           .type_rule = scalar<core::DataType::INDEX>,
           .spellings = {name}});
}

}  // namespace pypto::ir::ops

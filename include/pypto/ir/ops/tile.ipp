// pypto/ir/ops/tile.ipp — the tile op family: upstream PyPTO's tile ops with their DSL
// parameters, effects and type rules (docs/text-format.md lists them).
#pragma once

#include <string>
#include <vector>

#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/ops/type_rules.hpp"

namespace pypto::ir::ops {

/// tile.load(tensor, offsets, shapes[, valid_shape]) -> Tile of the tensor's dtype.
inline TypeRef tile_load(std::string_view op, const Args& args, const Attrs& kw) {
  const auto& tensor = arg_as<TensorType>(op, args, 0);
  shape_arg(op, args, 1);
  return TileType::make(tensor.dtype, shape_arg(op, args, 2), kw.get<MemorySpace>("target_memory"));
}

/// tile.store(tile, offsets, output_tensor[, shapes]) -> the output tensor's type.
inline TypeRef tile_store(std::string_view op, const Args& args, const Attrs&) {
  const auto& tile = arg_as<TileType>(op, args, 0);
  shape_arg(op, args, 1);
  const auto& out = arg_as<TensorType>(op, args, 2);
  if (tile.dtype != out.dtype) fail(op, 2, "must have the tile's dtype");
  return args[2]->type;
}

/// tile.move(tile, target_memory) -> the tile in another memory space.
inline TypeRef tile_move(std::string_view op, const Args& args, const Attrs& kw) {
  const auto& t = arg_as<TileType>(op, args, 0);
  return TileType::make(t.dtype, t.shape, required_kwarg<MemorySpace>(op, kw, "target_memory"));
}

/// Two tile operands, a tile and a scalar, or three tiles: argument 0's type, each other
/// argument a tile or a scalar.
inline TypeRef tile_operands(std::string_view op, const Args& args, const Attrs&) {
  arg_as<TileType>(op, args, 0);
  for (std::size_t i = 1; i < args.size(); ++i)
    if (!as<TileType>(args[i]->type.get()) && !as<ScalarType>(args[i]->type.get()))
      fail(op, i, "must be a tile or a scalar");
  return args[0]->type;
}

/// tile.sel(mask, lhs, rhs[, tmp]) / tile.sels(mask, src, tmp, scalar): the selected
/// operand's type.
inline TypeRef tile_select(std::string_view op, const Args& args, const Attrs&) {
  arg_as<TileType>(op, args, 0);
  arg_as<TileType>(op, args, 1);
  return args[1]->type;
}

/// tile.alloc(memory_space, size) -> the base pointer of an allocation.
inline TypeRef tile_alloc(std::string_view op, const Args& args, const Attrs& kw) {
  required_kwarg<MemorySpace>(op, kw, "memory_space");
  if (!is_integer_scalar(args[0])) fail(op, 0, "must be an integer size in bytes");
  return PtrType::make();
}

/// The cross-core pipe pop: a tile of the `shape` and `dtype` keywords.
inline TypeRef tile_pop(std::string_view op, const Args&, const Attrs& kw) {
  const auto dims = kw.get<AttrValueList>("shape");
  const auto dt = kw.get<core::DataType>("dtype");
  if (!dims || !dt) return UnknownType::make();
  std::vector<ExprRef> shape;
  for (const AttrValue& d : *dims) {
    if (const auto* i = d.get_if<std::int64_t>())
      shape.push_back(ConstInt::make(*i));
    else if (const auto* e = d.get_if<ExprRef>())
      shape.push_back(*e);
    else
      throw core::TypeError(std::string(op) + ": keyword 'shape' must list integer dimensions");
  }
  return TileType::make(*dt, std::move(shape));
}

/// tile.div: two tiles (broadcast as the other elementwise ops), or a tile and a scalar.
inline TypeRef tile_div(std::string_view op, const Args& args, const Attrs& kw) {
  if (as<ScalarType>(args[1]->type.get())) return with_scalar(op, args, kw);
  return elementwise(op, args, kw);
}

// Cold: it runs once per registry, and the optimizer then spends little on its initialisers.
[[gnu::cold]] inline void add_tile_ops(OpRegistry& r) {
  using K = KwargKind;
  using R = ArgEffect;
  const KwargSpec atomic = enum_kwarg<AtomicType>("atomic");
  const KwargSpec target_memory = enum_kwarg<MemorySpace>("target_memory");
  const KwargSpec pad_value = enum_kwarg<PadValue>("pad_value");
  const ArgSpec rhs_operand = scalar_operand("rhs");

  // memory: load, store, move, create, views
  r.add({.name = "tile.load",
         .args = {{"tensor"}, {"offsets"}, {"shapes"}, {"valid_shape", R::Read, true}},
         .kwargs = {target_memory, {"clamp", K::Bool}, enum_kwarg<CachePolicy>("cache")},
         .type_rule = tile_load,
         .params = {"tensor", "offsets", "shapes", "valid_shape", "target_memory", "clamp"}});
  r.add({.name = "tile.store",
         .args = {{"tile"},
                  {"offsets"},
                  atomic_destination("output_tensor"),
                  {"shapes", R::Read, true}},
         .kwargs = {atomic},
         .type_rule = tile_store});
  r.add({.name = "tile.move",
         .args = {{"tile"}},
         .kwargs = {target_memory, enum_kwarg<TileLayout>("blayout"),
                    enum_kwarg<TileLayout>("slayout")},
         .type_rule = tile_move,
         .params = {"tile", "target_memory", "blayout", "slayout"}});
  r.add({.name = "tile.create",
         .args = {{"shape"}},
         .kwargs = {{"dtype", K::DataType},
                    target_memory,
                    {"transpose", K::Bool},
                    {"flat_layout", K::Bool}},
         .type_rule = fresh<true, 0, true>,
         .spellings = {"create_tile"},
         .params = {"shape", "dtype", "target_memory", "transpose"}});
  r.add({.name = "tile.full",
         .args = {{"shape"}},
         .kwargs = {{"dtype", K::DataType}, {"value", K::Any}},
         .type_rule = fresh<true, 0, true>,
         .params = {"shape", "dtype", "value"}});
  r.add({.name = "tile.alloc",
         .args = {{"size"}},
         .kwargs = {enum_kwarg<MemorySpace>("memory_space"), {"pinned", K::Bool}},
         .type_rule = tile_alloc,
         .params = {"memory_space", "size"}});
  r.add({.name = "tile.ci",
         .args = {{"start"}, {"shape"}},
         .kwargs = {{"dtype", K::DataType}, {"descending", K::Bool}},
         .type_rule = fresh<true, 1, false, core::DataType::INT32>,
         .params = {"start", "shape", "dtype", "descending"}});
  r.add({.name = "tile.tri",
         .args = {{"diagonal"}, {"shape"}, {"valid_shape", R::Read, true}},
         .kwargs = {{"dtype", K::DataType}, {"upper", K::Bool}},
         .type_rule = fresh<true, 1, false, core::DataType::INT32>,
         .params = {"diagonal", "shape", "valid_shape", "dtype", "upper"}});
  r.add({.name = "tile.random",
         .args = {{"key0"},
                  {"key1"},
                  {"counter0"},
                  {"counter1"},
                  {"counter2"},
                  {"counter3"},
                  {"shape"},
                  {"valid_shape", R::Read, true}},
         .kwargs = {{"dtype", K::DataType}, {"rounds", K::Int}},
         .type_rule = fresh<true, 6, false, core::DataType::UINT32>,
         .params = {"key0", "key1", "counter0", "counter1", "counter2", "counter3", "shape",
                    "valid_shape", "dtype", "rounds"}});
  r.add({.name = "tile.read", .args = {{"tile"}, {"indices"}}, .type_rule = element});
  r.add({.name = "tile.write",
         .args = {{"tile", R::ReadWrite}, {"indices"}, {"value"}},
         .type_rule = like_first});
  r.add({.name = "tile.assemble",
         .args = {{"target", R::ReadWrite}, {"source"}, {"offset"}},
         .type_rule = like_first});
  r.add({.name = "tile.extract",
         .args = {{"src"}, {"index_row"}, {"index_col"}, {"shape"}},
         .kwargs = {target_memory},
         .type_rule = reshaped<3>});
  r.add({.name = "tile.slice",
         .args = {{"tile"},
                  {"shape"},
                  {"offset"},
                  {"valid_shape", R::Read, true},
                  {"drop_dims", R::Read, true}},
         .kwargs = {pad_value},
         .type_rule = reshaped<1>,
         .params = {"tile", "shape", "offset", "valid_shape", "drop_dims", "pad_value"}});
  r.add({.name = "tile.reshape", .args = {{"tile"}, {"shape"}}, .type_rule = reshaped<1>});
  r.add({.name = "tile.reinterpret_view",
         .args = {{"data"}, {"shape", R::Read, true}},
         .kwargs = {{"dtype", K::DataType}},
         .type_rule = reinterpret,
         .params = {"data", "dtype"}});
  r.add({.name = "tile.transpose",
         .args = {{"tile"}, {"axis1"}, {"axis2"}, {"tmp_tile", R::Read, true}},
         .type_rule = transpose});
  r.add({.name = "tile.transpose_view", .args = {{"tile"}}, .type_rule = like_first});
  r.add({.name = "tile.set_validshape",
         .args = {{"tile"}, {"valid_rows"}, {"valid_cols"}},
         .type_rule = like_first});
  r.add({.name = "tile.concat", .args = {{"src0"}, {"src1"}}, .type_rule = concat});
  r.add({.name = "tile.fillpad",
         .args = {{"tile"}},
         .kwargs = {pad_value},
         .type_rule = like_first,
         .params = {"tile", "pad_value"}});
  r.add({.name = "tile.fillpad_inplace",
         .args = {{"tile", R::ReadWrite}},
         .kwargs = {pad_value},
         .type_rule = like_first,
         .params = {"tile", "pad_value"}});
  r.add({.name = "tile.fillpad_expand",
         .args = {{"tile"}, {"shape"}},
         .kwargs = {pad_value},
         .type_rule = reshaped<1>,
         .params = {"tile", "shape", "pad_value"}});
  r.add({.name = "tile.cast",
         .args = {{"tile"}, {"tmp", R::Read, true}},
         .kwargs = {{"target_type", K::DataType}, {"mode", K::Any}, {"saturation_mode", K::Int}},
         .type_rule = cast,
         .params = {"tile", "target_type", "mode"}});

  // elementwise: tile-tile, tile-scalar, three-operand
  for (const char* name : {"tile.add", "tile.sub", "tile.mul", "tile.maximum", "tile.minimum",
                           "tile.and", "tile.or", "tile.shl", "tile.shr", "tile.fmod"})
    r.add({.name = name, .args = {{"lhs"}, rhs_operand}, .type_rule = elementwise});
  for (const char* name : {"tile.part_add", "tile.part_mul", "tile.part_max", "tile.part_min"})
    r.add({.name = name, .args = {{"src0"}, {"src1"}}, .type_rule = elementwise});
  r.add({.name = "tile.div",
         .args = {{"lhs"}, rhs_operand},
         .kwargs = {{"high_precision", K::Bool}},
         .type_rule = tile_div,
         .params = {"lhs", "rhs", "high_precision"}});
  for (const char* name :
       {"tile.adds", "tile.subs", "tile.muls", "tile.divs", "tile.maximums", "tile.minimums",
        "tile.ands", "tile.ors", "tile.shls", "tile.shrs", "tile.fmods", "tile.expands"})
    r.add({.name = name, .args = {{"lhs"}, rhs_operand}, .type_rule = with_scalar});
  r.add({.name = "tile.lrelu", .args = {{"tile"}, {"slope"}}, .type_rule = with_scalar});
  for (const char* name : {"tile.xor", "tile.rem"})
    r.add({.name = name,
           .args = {{"lhs"}, {"rhs"}, {"tmp", R::Read, true}},
           .type_rule = tile_operands});
  for (const char* name : {"tile.xors", "tile.rems"})
    r.add({.name = name,
           .args = {{"lhs"}, rhs_operand, {"tmp", R::Read, true}},
           .type_rule = tile_operands});
  for (const char* name : {"tile.addc", "tile.subc", "tile.addsc", "tile.subsc"})
    r.add({.name = name, .args = {{"lhs"}, {"rhs"}, {"rhs2"}}, .type_rule = tile_operands});
  r.add({.name = "tile.prelu",
         .args = {{"tile"}, {"slope"}, {"tmp", R::Read, true}},
         .type_rule = tile_operands});
  r.add({.name = "tile.cmp",
         .args = {{"lhs"}, {"rhs"}},
         .kwargs = {{"cmp_type", K::Int}},
         .type_rule = compare,
         .params = {"lhs", "rhs", "cmp_type"}});
  r.add({.name = "tile.cmps",
         .args = {{"lhs"}, rhs_operand},
         .kwargs = {{"cmp_type", K::Int}},
         .type_rule = compare,
         .params = {"lhs", "rhs", "cmp_type"}});
  r.add({.name = "tile.sel",
         .args = {{"mask"}, {"lhs"}, {"rhs"}, {"tmp", R::Read, true}},
         .type_rule = tile_select});
  r.add({.name = "tile.sels",
         .args = {{"mask"}, {"src"}, {"tmp"}, {"scalar"}},
         .type_rule = tile_select});

  // unary
  for (const char* name : {"tile.neg", "tile.exp", "tile.sin", "tile.cos", "tile.sqrt", "tile.abs",
                           "tile.relu", "tile.not"})
    r.add({.name = name, .args = {{"tile"}}, .type_rule = like_first});
  r.add(
      {.name = "tile.rsqrt", .args = {{"tile"}, {"tmp", R::Read, true}}, .type_rule = like_first});
  for (const char* name : {"tile.recip", "tile.log"})
    r.add({.name = name,
           .args = {{"tile"}},
           .kwargs = {{"high_precision", K::Bool}},
           .type_rule = like_first,
           .params = {"tile", "high_precision"}});

  // reductions and expands
  for (const char* name : {"tile.row_sum", "tile.row_max", "tile.row_min", "tile.row_prod"})
    r.add({.name = name, .args = {{"tile"}, {"tmp_tile"}}, .type_rule = reduce<true, false>});
  for (const char* name : {"tile.row_argmax", "tile.row_argmin"})
    r.add({.name = name, .args = {{"tile"}, {"tmp_tile"}}, .type_rule = reduce<true, true>});
  r.add({.name = "tile.col_sum",
         .args = {{"tile"}, {"tmp_tile", R::Read, true}},
         .type_rule = reduce<false, false>});
  for (const char* name : {"tile.col_max", "tile.col_min", "tile.col_prod"})
    r.add({.name = name, .args = {{"tile"}}, .type_rule = reduce<false, false>});
  for (const char* name : {"tile.col_argmax", "tile.col_argmin"})
    r.add({.name = name, .args = {{"tile"}, {"tmp_tile"}}, .type_rule = reduce<false, true>});
  for (const char* name : {"tile.row_expand_sub", "tile.row_expand_div", "tile.row_expand_mul",
                           "tile.row_expand_max", "tile.row_expand_min", "tile.row_expand_expdif"})
    r.add({.name = name, .args = {{"tile"}, {"row_vec"}}, .type_rule = expand});
  r.add({.name = "tile.row_expand_add",
         .args = {{"tile"}, {"row_vec"}, {"tmp", R::Read, true}},
         .type_rule = expand});
  r.add({.name = "tile.row_expand", .args = {{"target"}, {"row_vec"}}, .type_rule = expand});
  for (const char* name :
       {"tile.col_expand_mul", "tile.col_expand_div", "tile.col_expand_sub", "tile.col_expand_add",
        "tile.col_expand_max", "tile.col_expand_min", "tile.col_expand_expdif"})
    r.add({.name = name, .args = {{"tile"}, {"col_vec"}}, .type_rule = expand});
  r.add({.name = "tile.col_expand", .args = {{"target"}, {"col_vec"}}, .type_rule = expand});

  // matmul family
  r.add({.name = "tile.matmul", .args = {{"lhs"}, {"rhs"}}, .type_rule = matmul<0>});
  r.add({.name = "tile.batch_matmul", .args = {{"lhs"}, {"rhs"}}, .type_rule = matmul<0>});
  r.add({.name = "tile.matmul_bias", .args = {{"lhs"}, {"rhs"}, {"bias"}}, .type_rule = matmul<0>});
  r.add({.name = "tile.matmul_acc",
         .args = {{"acc", R::ReadWrite}, {"lhs"}, {"rhs"}, {"init_cond", R::Read, true}},
         .type_rule = matmul<1>});
  r.add({.name = "tile.batch_matmul_acc",
         .args = {{"acc", R::ReadWrite}, {"lhs"}, {"rhs"}},
         .type_rule = matmul<1>});
  r.add({.name = "tile.gemv",
         .args = {{"lhs"}, {"rhs"}},
         .kwargs = {{"acc_phase", K::String}},
         .type_rule = matmul<0>});
  r.add({.name = "tile.gemv_bias",
         .args = {{"lhs"}, {"rhs"}, {"bias"}},
         .kwargs = {{"acc_phase", K::String}},
         .type_rule = matmul<0>});
  r.add({.name = "tile.gemv_acc",
         .args = {{"acc", R::ReadWrite}, {"lhs"}, {"rhs"}},
         .kwargs = {{"acc_phase", K::String}},
         .type_rule = matmul<1>});

  // block indices
  r.add({.name = "tile.get_block_idx", .type_rule = scalar<core::DataType::INDEX>});
  r.add({.name = "tile.get_subblock_idx", .type_rule = scalar<core::DataType::INDEX>});
  r.add({.name = "tile.get_block_num", .type_rule = scalar<core::DataType::INDEX>});

  // cross-core pipes between the AIC and AIV members of a mixed task
  const KwargSpec split{"split", K::Int}, lane_stride{"lane_stride", K::Int}, id{"id", K::Int};
  r.add({.name = "tile.tpush_to_aiv",
         .args = {{"tile"}},
         .kwargs = {split, lane_stride, id},
         .type_rule = nothing,
         .spellings = {"tpush_to_aiv", "system.tpush_to_aiv"}});
  r.add({.name = "tile.tpush_to_aic",
         .args = {{"tile"}},
         .kwargs = {split, id},
         .type_rule = nothing,
         .spellings = {"tpush_to_aic", "system.tpush_to_aic"}});
  r.add({.name = "tile.tpop_from_aic",
         .kwargs = {{"shape", K::List}, {"dtype", K::DataType}, split, lane_stride, id},
         .type_rule = tile_pop,
         .spellings = {"tpop_from_aic", "system.tpop_from_aic"}});
  r.add({.name = "tile.tpop_from_aiv",
         .kwargs = {{"shape", K::List}, {"dtype", K::DataType}, split, id},
         .type_rule = tile_pop,
         .spellings = {"tpop_from_aiv", "system.tpop_from_aiv"}});
}

}  // namespace pypto::ir::ops

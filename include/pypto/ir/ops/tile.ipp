// pypto/ir/ops/tile.ipp — the tile op family: upstream PyPTO's tile ops with their DSL
// parameters, effects and type rules (docs/text-format.md lists them).
#pragma once

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
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

/// tile.store(tile, offsets, output_tensor[, shapes]) -> the output tensor's type. The tensor
/// may have another dtype than the tile (upstream's rule does not compare them).
inline TypeRef tile_store(std::string_view op, const Args& args, const Attrs&) {
  arg_as<TileType>(op, args, 0);
  shape_arg(op, args, 1);
  arg_as<TensorType>(op, args, 2);
  return args[2]->type;
}

/// tile.gemv / tile.gemv_bias: a row vector [1, K] times [K, N]. The result occupies a
/// whole fractal of 16 rows, [16, N] in Acc, of which the valid part is [1, N] (upstream's
/// physical GEMV tile: col_major blocks of row_major 1024-byte fractals).
inline TypeRef tile_gemv(std::string_view op, const Args& args, const Attrs& kw) {
  const TypeRef result = matmul<0>(op, args, kw);
  const auto& product = static_cast<const TileType&>(*result);
  const auto& lhs = arg_as<TileType>(op, args, 0);
  if (!is_one(lhs.shape[0])) fail(op, 0, "must be a row vector (one row)");
  TileView view;
  view.valid_shape = {lhs.shape[0], product.shape.back()};
  view.blayout = TileLayout::col_major;
  view.slayout = TileLayout::row_major;
  view.fractal = 1024;
  return TileType::make(product.dtype, {ConstInt::make(16), product.shape.back()}, MemorySpace::Acc,
                        std::move(view));
}

/// tile.transpose_view(tile): the same bytes read transposed: the last two dimensions (and
/// valid extents) swapped, each layout of a view its transpose dual (row_major <-> col_major;
/// none_box stays).
inline TypeRef tile_transpose_view(std::string_view op, const Args& args, const Attrs&) {
  const auto& t = arg_as<TileType>(op, args, 0);
  if (t.rank() < 2) fail(op, 0, "must have at least 2 dimensions");
  std::vector<ExprRef> shape = t.shape;
  std::swap(shape[shape.size() - 2], shape.back());
  std::optional<TileView> view = t.tile_view;
  if (view) {
    auto dual = [](TileLayout l) {
      return l == TileLayout::row_major   ? TileLayout::col_major
             : l == TileLayout::col_major ? TileLayout::row_major
                                          : l;
    };
    view->blayout = dual(view->blayout);
    view->slayout = dual(view->slayout);
    if (view->valid_shape.size() >= 2)
      std::swap(view->valid_shape[view->valid_shape.size() - 2], view->valid_shape.back());
    view->stride.clear();
  }
  return TileType::make(t.dtype, std::move(shape), t.memory_space, std::move(view));
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

/// tile.gatherb(src, offset, output_dtype=): the 32-byte source blocks the UINT32 offsets
/// [rows, cols] select: [rows, cols * (32 / element bytes)] of output_dtype (default src's).
inline TypeRef tile_gatherb(std::string_view op, const Args& args, const Attrs& kw) {
  using D = core::DataType;
  static constexpr D allowed[] = {D::INT8,   D::UINT8, D::INT16, D::UINT16, D::INT32,
                                  D::UINT32, D::FP16,  D::BF16,  D::FP32};
  const auto& src = arg_as<TileType>(op, args, 0);
  require_dtype(op, 0, src.dtype, allowed);
  if (src.shape.size() != 2) fail(op, 0, "must have rank 2");
  const auto& offset = arg_as<TileType>(op, args, 1);
  const auto cols = offset.shape.size() == 2 ? constant_of(offset.shape[1]) : std::nullopt;
  if (offset.dtype != D::UINT32 || !cols || *cols <= 0 || *cols % 8 != 0)
    fail(op, 1, "must be UINT32 [rows, cols], cols a constant positive multiple of 8");
  const D out = kw.get<D>("output_dtype").value_or(src.dtype);
  if (std::find(std::begin(allowed), std::end(allowed), out) == std::end(allowed))
    fail_kwarg(op, "output_dtype", "must be a 1, 2 or 4-byte integer or float dtype");
  return TileType::make(out,
                        {offset.shape[0], ConstInt::make(*cols * 32 / (core::bit_width(out) / 8))},
                        src.memory_space);
}

/// tile.mgather(mem, idx[, scratch][, valid_shape], coalesce=, gather_oob=, target_memory=):
/// the tensor's elements at the INT32 indices, in the indices' shape (coalesce=1, elementwise),
/// or whole rows [R, mem cols] for R row indices (coalesce=0). Vec takes an index tile; Mat an
/// index tensor, a scratch tensor of mem's dtype in the elementwise form, and a valid_shape.
inline TypeRef tile_mgather(std::string_view op, const Args& args, const Attrs& kw) {
  using D = core::DataType;
  static constexpr D allowed[] = {D::INT8, D::UINT8, D::INT16, D::UINT16,    D::INT32,   D::UINT32,
                                  D::FP16, D::BF16,  D::FP32,  D::FP8E4M3FN, D::FP8E5M2, D::HF8};
  const auto& mem = arg_as<TensorType>(op, args, 0);
  require_dtype(op, 0, mem.dtype, allowed);
  if (mem.shape.empty()) fail(op, 0, "must not be rank 0");
  const bool elem = int_kwarg(op, kw, "coalesce", 0, 1, 0) == 1;
  int_kwarg(op, kw, "gather_oob", 0, 3, 0);
  const MemorySpace space = kw.get<MemorySpace>("target_memory").value_or(MemorySpace::Vec);
  if (space != MemorySpace::Vec && space != MemorySpace::Mat)
    fail_kwarg(op, "target_memory", "must be pl.Mem.Vec or pl.Mem.Mat");
  const bool mat = space == MemorySpace::Mat;
  const Shaped idx = ranked_arg(op, args, 1, 2);
  if (idx.tile == mat || idx.dtype != D::INT32)
    fail(op, 1, mat ? "must be an INT32 tensor for a Mat gather" : "must be an INT32 tile");
  const bool scratch = args.size() > 2 && !isa<MakeTuple>(args[2]);
  if (args.size() > 2 && !mat) fail(op, 2, "is taken only with target_memory=pl.Mem.Mat");
  if (scratch != elem && mat)
    fail(op, 2, "must be a scratch tensor exactly in the Mat elementwise form");
  if (scratch && arg_as<TensorType>(op, args, 2).dtype != mem.dtype)
    fail(op, 2, "must have argument 0's dtype");
  if (args.size() > 2 && isa<MakeTuple>(args.back()) &&
      shape_arg(op, args, args.size() - 1).size() != 2)
    fail(op, args.size() - 1, "must have rank 2");
  std::vector<ExprRef> shape = idx.shape;
  if (!elem) {
    if (mem.shape.size() < 2) fail(op, 0, "must have at least 2 dimensions to gather rows");
    const auto r = constant_of(idx.shape[0]), c = constant_of(idx.shape[1]);
    if (!r || !c || (*r != 1 && *c != 1)) fail(op, 1, "must be a constant [1, R] or [R, 1]");
    shape = {*r == 1 ? idx.shape[1] : idx.shape[0], mem.shape.back()};
  }
  return TileType::make(mem.dtype, std::move(shape), kw.get<MemorySpace>("target_memory"));
}

/// tile.mscatter(src, idx, output_tensor): the output tensor's type, src's elements written at
/// the INT32 indices (a tile of src's shape).
inline TypeRef tile_mscatter(std::string_view op, const Args& args, const Attrs&) {
  const auto& src = arg_as<TileType>(op, args, 0);
  require_dtype(op, 0, src.dtype, kGatherDtypes);
  const auto& idx = arg_as<TileType>(op, args, 1);
  if (idx.dtype != core::DataType::INT32 || idx.shape.size() != src.shape.size())
    fail(op, 1, "must be INT32 of argument 0's rank");
  for (std::size_t k = 0; k < idx.shape.size(); ++k) {
    const auto i = constant_of(idx.shape[k]), s = constant_of(src.shape[k]);
    if (i && s && *i != *s) fail(op, 1, "must have argument 0's shape");
  }
  const auto& out = arg_as<TensorType>(op, args, 2);
  if (out.shape.empty() || out.dtype != src.dtype)
    fail(op, 2, "must have argument 0's dtype and rank 1 or more");
  return args[2]->type;
}

/// The MX block-scale matmul: FP8E4M3FN lhs [M, K] and rhs [K, N] scaled per 32 K elements by
/// FP8E8M0 tiles [M, K/32] and [K/32, N] (M a multiple of 16, N of 32, K of 64): FP32 [M, N] in
/// Acc. `First` is 1 when an FP32 [M, N] accumulator leads; `Bias` takes an FP32 [1, N] bias last.
template <std::size_t First, bool Bias>
TypeRef tile_matmul_mx(std::string_view op, const Args& args, const Attrs&) {
  using D = core::DataType;
  auto operand = [&](std::size_t i, D dtype, const char* what) {
    const auto& t = arg_as<TileType>(op, args, i);
    if (t.shape.size() != 2 || t.dtype != dtype)
      fail(op, i,
           std::string("must be a 2-D ") + std::string(core::dtype_name(dtype)) + " tile" + what);
    return std::pair{constant_of(t.shape[0]), constant_of(t.shape[1])};
  };
  const char* fp8 = " (cast FP4 operands with pl.cast first)";
  const auto [m, k] = operand(First, D::FP8E4M3FN, fp8);
  const auto [sm, sk] = operand(First + 1, D::FP8E8M0, "");
  const auto [k2, n] = operand(First + 2, D::FP8E4M3FN, fp8);
  const auto [sk2, sn] = operand(First + 3, D::FP8E8M0, "");
  if (m && *m % 16 != 0) fail(op, First, "must have a multiple of 16 rows");
  if (k && *k % 64 != 0) fail(op, First, "must have a multiple of 64 columns (K)");
  if (n && *n % 32 != 0) fail(op, First + 2, "must have a multiple of 32 columns");
  if (k && k2 && *k != *k2) fail(op, First + 2, "must have as many rows as the lhs has columns");
  const auto groups = k ? std::optional<std::int64_t>((*k + 31) / 32) : std::nullopt;
  auto differ = [](auto a, auto b) { return a && b && *a != *b; };
  if (differ(sm, m) || differ(sk, groups)) fail(op, First + 1, "must be [M, K/32]");
  if (differ(sk2, groups) || differ(sn, n)) fail(op, First + 3, "must be [K/32, N]");
  const auto& lhs = *as<TileType>(args[First]->type.get());
  const auto& rhs = *as<TileType>(args[First + 2]->type.get());
  if constexpr (First > 0) {
    const auto [am, an] = operand(0, D::FP32, " accumulator");
    if (differ(am, m) || differ(an, n)) fail(op, 0, "must be the [M, N] result's shape");
  }
  if constexpr (Bias) {
    const auto [br, bn] = operand(4, D::FP32, " bias");
    if ((br && *br != 1) || differ(bn, n)) fail(op, 4, "must be [1, N]");
  }
  return TileType::make(D::FP32, {lhs.shape[0], rhs.shape[1]}, MemorySpace::Acc);
}

/// tile.mrgsort_format2(src0, src1[, src2[, src3]], tmp, exhausted=): two to four sorted lists
/// of one dtype merged into a tile of tmp's shape (tmp is the last argument).
inline TypeRef tile_merge_lists(std::string_view op, const Args& args, const Attrs&) {
  const auto& first = arg_as<TileType>(op, args, 0);
  require_dtype(op, 0, first.dtype, kSortDtypes);
  for (std::size_t i = 1; i + 1 < args.size(); ++i)
    if (arg_as<TileType>(op, args, i).dtype != first.dtype)
      fail(op, i, "must have argument 0's dtype");
  const auto& tmp = arg_as<TileType>(op, args, args.size() - 1);
  return TileType::make(first.dtype, tmp.shape, first.memory_space);
}

/// Where each tile op's result lives when its type rule leaves it open, as upstream declares it:
/// Vec for the vector ops, Acc for the cube's results, the target_memory keyword for the ops that
/// take one, the first operand's for views; left open for the ops without a tile result and the
/// cross-core pipe ops.
[[gnu::cold]] inline void place_tile_results(OpRegistry& r) {
  std::vector<std::string> tile_ops;
  for (const OpDef& def : r.ops())
    if (def.name.rfind("tile.", 0) == 0) tile_ops.push_back(def.name);
  for (const std::string& op : tile_ops) r.set_output_memory(op, OutputMemory::Vec);
  for (std::string_view op :
       {"tile.batch_matmul", "tile.batch_matmul_acc", "tile.gemv", "tile.gemv_acc",
        "tile.gemv_bias", "tile.matmul", "tile.matmul_acc", "tile.matmul_bias", "tile.matmul_mx",
        "tile.matmul_mx_acc", "tile.matmul_mx_bias"})
    r.set_output_memory(op, OutputMemory::Acc);
  r.set_output_memory("tile.aic_gather", OutputMemory::Mat);
  for (std::string_view op :
       {"tile.create", "tile.extract", "tile.load", "tile.mgather", "tile.move"})
    r.set_output_memory(op, OutputMemory::Keyword);
  for (std::string_view op :
       {"tile.assemble", "tile.reinterpret_view", "tile.reshape", "tile.set_validshape",
        "tile.slice", "tile.tget_scale_addr", "tile.transpose", "tile.transpose_view"})
    r.set_output_memory(op, OutputMemory::Inherit);
  for (std::string_view op :
       {"tile.alloc", "tile.get_block_idx", "tile.get_block_num", "tile.get_subblock_idx",
        "tile.tpop_from_aic", "tile.tpop_from_aiv", "tile.tpush_to_aic", "tile.tpush_to_aiv",
        "tile.gather_row", "tile.mscatter", "tile.read", "tile.store"})
    r.set_output_memory(op, OutputMemory::Unspecified);
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
         .args = {{"tensor"},
                  {"offsets"},
                  {"shapes"},
                  {.name = "valid_shape", .optional = true, .copy_of = 2}},
         .kwargs = {with_default(target_memory, EnumValue::of(MemorySpace::Vec)),
                    {"clamp", K::Bool},
                    enum_kwarg<CachePolicy>("cache")},
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
                    with_default(target_memory, EnumValue::of(MemorySpace::Vec)),
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
         .args = {{.name = "start", .takes_dtype_keyword = true}, {"shape"}},
         .kwargs = {with_default({"dtype", K::DataType}, core::DataType::INT32),
                    with_default({"descending", K::Bool}, false)},
         .type_rule = fresh<true, 1, false, core::DataType::INT32>,
         .spellings = {"tile.arange"},
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
  r.add({.name = "tile.read",
         .args = {{"tile"}, {.name = "indices", .index_list = true}},
         .type_rule = element});
  r.add({.name = "tile.write",
         .args = {{"tile", R::ReadWrite}, {.name = "indices", .index_list = true}, {"value"}},
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
                  filled("valid_shape", ArgFill::EmptyList),
                  {"drop_dims", R::Read, true}},
         .kwargs = {pad_value},
         .type_rule = sliced,
         .params = {"tile", "shape", "offset", "valid_shape", "drop_dims", "pad_value"}});
  r.add({.name = "tile.reshape", .args = {{"tile"}, {"shape"}}, .type_rule = reshape});
  r.add({.name = "tile.reinterpret_view",
         .args = {{"data"}, {"shape", R::Read, true}},
         .kwargs = {{"dtype", K::DataType}},
         .type_rule = reinterpret,
         .params = {"data", "dtype"}});
  r.add({.name = "tile.transpose",
         .args = {{"tile"}, {"axis1"}, {"axis2"}, {"tmp_tile", R::Read, true}},
         .type_rule = transpose});
  r.add({.name = "tile.transpose_view", .args = {{"tile"}}, .type_rule = tile_transpose_view});
  r.add({.name = "tile.set_validshape",
         .args = {{"tile"}, {"valid_rows"}, {"valid_cols"}},
         .type_rule = like_first});
  r.add({.name = "tile.concat", .args = {{"src0"}, {"src1"}}, .type_rule = concat});
  r.add({.name = "tile.fillpad",
         .args = {{"tile"}},
         .kwargs = {pad_value},
         .type_rule = fillpad<like_first>,
         .params = {"tile", "pad_value"}});
  r.add({.name = "tile.fillpad_inplace",
         .args = {{"tile", R::ReadWrite}},
         .kwargs = {pad_value},
         .type_rule = fillpad<like_first>,
         .params = {"tile", "pad_value"}});
  r.add({.name = "tile.fillpad_expand",
         .args = {{"tile"}, {"shape"}},
         .kwargs = {pad_value},
         .type_rule = fillpad<reshaped<1>>,
         .params = {"tile", "shape", "pad_value"}});
  r.add({.name = "tile.cast",
         .args = {{"tile"}, {"tmp", R::Read, true}},
         .kwargs = {{"target_type", K::DataType}, cast_mode_kwarg()},
         .type_rule = cast,
         .params = {"tile", "target_type", "mode"}});

  // elementwise: tile-tile, tile-scalar, three-operand
  for (const char* name :
       {"tile.add", "tile.sub", "tile.mul", "tile.maximum", "tile.minimum", "tile.fmod"})
    r.add({.name = name, .args = {{"lhs"}, rhs_operand}, .type_rule = elementwise});
  for (const char* name : {"tile.and", "tile.or", "tile.shl", "tile.shr"})
    r.add({.name = name, .args = {{"lhs"}, rhs_operand}, .type_rule = elementwise_lhs_dtype});
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
  r.add({.name = "tile.matmul",
         .args = {{"lhs"}, {"rhs"}},
         .kwargs = {{"out_dtype", K::DataType}},
         .type_rule = matmul<0>});
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
         .type_rule = tile_gemv});
  r.add({.name = "tile.gemv_bias",
         .args = {{"lhs"}, {"rhs"}, {"bias"}},
         .kwargs = {{"acc_phase", K::String}},
         .type_rule = tile_gemv});
  r.add({.name = "tile.gemv_acc",
         .args = {{"acc", R::ReadWrite}, {"lhs"}, {"rhs"}},
         .kwargs = {{"acc_phase", K::String}},
         .type_rule = matmul<1>});

  // gather, scatter and sort (pto.tgather, tscatter, tsort32, tmrgsort)
  const KwargSpec mask_pattern{"mask_pattern", K::Int};
  const KwargSpec cmp_mode{"cmp_mode", K::Int, kNoEnum, {"eq", "ne", "lt", "le", "gt", "ge"}};
  r.add({.name = "tile.gather", .args = {{"src"}, {"indices"}, {"tmp"}}, .type_rule = gather});
  r.add({.name = "tile.gather_mask",
         .args = {{"src"}},
         .kwargs = {mask_pattern, {"output_dtype", K::DataType}},
         .type_rule = gather_mask,
         .params = {"src", "mask_pattern"}});
  r.add(
      {.name = "tile.gather_compare",
       .args = {{"src"}, {"kvalue"}, {"tmp"}},
       .kwargs = {cmp_mode, {"offset", K::Int}, {"out_cols", K::Int}, {"count_dtype", K::DataType}},
       .type_rule = gather_compare});
  r.add({.name = "tile.gatherb",
         .args = {{"src"}, {"offset"}},
         .kwargs = {{"output_dtype", K::DataType}},
         .type_rule = tile_gatherb});
  r.add({.name = "tile.mgather",
         .args = {{"mem"},
                  {"idx"},
                  {"scratch", R::Read, true,
                   [](const Attrs& kw) {
                     return kw.get<MemorySpace>("target_memory") == MemorySpace::Mat &&
                                    kw.get<std::int64_t>("coalesce") == 1
                                ? R::Write
                                : R::Read;
                   },
                   false, true},
                  {"valid_shape", R::Read, true}},
         .kwargs = {{"coalesce", K::Int, kNoEnum, {"row", "elem"}},
                    {"gather_oob", K::Int, kNoEnum, {"undefined", "clamp", "wrap", "zero"}},
                    target_memory},
         .type_rule = tile_mgather,
         .params = {"mem", "idx", "coalesce"}});
  r.add({.name = "tile.gather_row",
         .args = {{"dst", R::ReadWrite},
                  {"src"},
                  {"dst_offset"},
                  {"src_offset"},
                  {"shapes"},
                  {"valid_shape", R::Read, true}},
         .kwargs = {{"transpose", K::Bool}},
         .type_rule = gather_row,
         .params = {"dst", "src", "dst_offset", "src_offset", "shapes", "transpose"}});
  r.add({.name = "tile.scatter",
         .args = {{"dst", R::ReadWrite}, {"src"}, {"indexes"}},
         .type_rule = scatter<2, 1>});
  r.add({.name = "tile.scatter_mask",
         .args = {{"dst", R::ReadWrite}, {"src"}},
         .kwargs = {mask_pattern},
         .type_rule = scatter_mask<0, 1, true>,
         .params = {"dst", "src", "mask_pattern"}});
  r.add({.name = "tile.scatter_update",
         .args = {{"input", R::ReadWrite}, {"index"}, {"src"}},
         .kwargs = {{"dim", K::Int}},
         .type_rule = scatter_update,
         .params = {"input", "dim", "index", "src"}});
  r.add({.name = "tile.mscatter",
         .args = {{"src"}, {"idx"}, {"output_tensor", R::Write}},
         .type_rule = tile_mscatter});
  r.add({.name = "tile.sort32", .args = {{"src"}, {"idx"}}, .type_rule = sort32});
  r.add({.name = "tile.mrgsort_format1",
         .args = {{"src"}, {"block_len"}},
         .type_rule = mrgsort_runs});
  r.add({.name = "tile.mrgsort_format2",
         .args = {{"src0"}, {"src1"}, {"src2"}, {"src3", R::Read, true}, {"tmp", R::Read, true}},
         .kwargs = {{"exhausted", K::Bool}},
         .type_rule = tile_merge_lists,
         .spellings = {"tile.mrgsort"},
         .by_keyword = {{"block_len", "tile.mrgsort_format1"}}});

  // MX block-scale matmul
  r.add({.name = "tile.matmul_mx",
         .args = {{"lhs"}, {"lhs_scale"}, {"rhs"}, {"rhs_scale"}},
         .type_rule = tile_matmul_mx<0, false>});
  r.add({.name = "tile.matmul_mx_acc",
         .args = {{"acc", R::ReadWrite}, {"lhs"}, {"lhs_scale"}, {"rhs"}, {"rhs_scale"}},
         .type_rule = tile_matmul_mx<1, false>});
  r.add({.name = "tile.matmul_mx_bias",
         .args = {{"lhs"}, {"lhs_scale"}, {"rhs"}, {"rhs_scale"}, {"bias"}},
         .type_rule = tile_matmul_mx<0, true>});
  // the scale address an MX matmul reads (inserted by upstream's InsertMxScaleAddr pass)
  r.add({.name = "tile.tget_scale_addr",
         .args = {{"dst_scale", R::Write}, {"src"}},
         .type_rule = like_first});

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
  // crossing the AIC/AIV split: `split` defaults to the enclosing pl.split_aiv region's mode
  const KwargSpec region_split{"split", K::Int, kNoEnum, {}, true};
  r.add({.name = "tile.aiv_shard",
         .args = {{"tile"}},
         .kwargs = {region_split, lane_stride},
         .type_rule = split_crossing<false>});
  r.add({.name = "tile.aic_gather",
         .args = {{"tile"}},
         .kwargs = {region_split},
         .type_rule = split_crossing<true>});
  place_tile_results(r);
}

}  // namespace pypto::ir::ops

// pypto/ir/op_registry.ipp — the definitions of ir/op_registry.hpp: the standard ops' type
// rules, effect rules and table.
#pragma once

#include "pypto/ir/op_registry.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pypto::ir {

namespace type_rules {

[[noreturn]] inline void fail(std::string_view op, std::size_t i, std::string_view what) {
  throw core::TypeError(std::string(op) + ": argument " + std::to_string(i) + " " +
                        std::string(what));
}

template <class T>
const T& arg_as(std::string_view op, const std::vector<ExprRef>& args, std::size_t i) {
  const T* t = as<T>(args[i]->type.get());
  if (!t)
    fail(op, i,
         "must have a " + std::string(T::class_name) + ", got a " +
             std::string(kind_name(args[i]->type->kind())));
  return *t;
}

/// The keyword `key` as a T; a TypeError when it is absent (or of another kind).
template <class T>
T required_kwarg(std::string_view op, const Attrs& kw, std::string_view key) {
  if (std::optional<T> v = kw.get<T>(key)) return *v;
  throw core::TypeError(std::string(op) + ": keyword '" + std::string(key) + "' is required");
}

/// The dimensions of a shape argument (a MakeTuple of integer scalars).
inline std::vector<ExprRef> shape_arg(std::string_view op, const std::vector<ExprRef>& args,
                                      std::size_t i) {
  const auto* tuple = as<MakeTuple>(args[i].get());
  if (!tuple) fail(op, i, "must be a shape list such as [16, 16]");
  for (const auto& d : tuple->elements)
    if (!is_integer_scalar(d)) fail(op, i, "must contain integer scalar dimensions");
  return tuple->elements;
}

inline TypeRef unknown(std::string_view, const std::vector<ExprRef>&, const Attrs&) {
  return UnknownType::make();
}

/// tile.load(tensor, offsets, shapes[, valid_shape]) -> Tile of the tensor's dtype.
inline TypeRef tile_load(std::string_view op, const std::vector<ExprRef>& args, const Attrs& kw) {
  const auto& tensor = arg_as<TensorType>(op, args, 0);
  shape_arg(op, args, 1);
  return TileType::make(tensor.dtype, shape_arg(op, args, 2), kw.get<MemorySpace>("target_memory"));
}

/// tile.store(tile, offsets, output) -> the output tensor's type.
inline TypeRef tile_store(std::string_view op, const std::vector<ExprRef>& args, const Attrs&) {
  const auto& tile = arg_as<TileType>(op, args, 0);
  shape_arg(op, args, 1);
  const auto& out = arg_as<TensorType>(op, args, 2);
  if (tile.dtype != out.dtype) fail(op, 2, "must have the tile's dtype");
  return args[2]->type;
}

/// Elementwise tile op: the first tile's type; the second operand is a tile of the same dtype
/// and rank, or a scalar of that dtype.
inline TypeRef tile_elementwise(std::string_view op, const std::vector<ExprRef>& args,
                                const Attrs&) {
  const auto& lhs = arg_as<TileType>(op, args, 0);
  if (args.size() > 1) {
    if (const auto* rt = as<TileType>(args[1]->type.get())) {
      if (rt->dtype != lhs.dtype || rt->rank() != lhs.rank())
        fail(op, 1, "must be a tile of the same dtype and rank");
    } else if (const auto* st = as<ScalarType>(args[1]->type.get())) {
      if (st->dtype != lhs.dtype) fail(op, 1, "must be a scalar of the tile's dtype");
    } else {
      fail(op, 1, "must be a tile or a scalar");
    }
  }
  return args[0]->type;
}

/// tile.cast(tile, target_type=dtype) -> the tile with the target dtype.
inline TypeRef tile_cast(std::string_view op, const std::vector<ExprRef>& args, const Attrs& kw) {
  const auto& t = arg_as<TileType>(op, args, 0);
  return TileType::make(required_kwarg<core::DataType>(op, kw, "target_type"), t.shape,
                        t.memory_space);
}

/// Row reduction tile.row_sum/row_max(tile, tmp) -> [rows, 1] of the same dtype.
inline TypeRef tile_row_reduce(std::string_view op, const std::vector<ExprRef>& args,
                               const Attrs&) {
  const auto& t = arg_as<TileType>(op, args, 0);
  if (t.rank() != 2) fail(op, 0, "must be a 2-D tile");
  arg_as<TileType>(op, args, 1);
  return TileType::make(t.dtype, {t.shape[0], ConstInt::make(1)}, t.memory_space);
}

/// tile.matmul(lhs [M, K], rhs [K, N]) -> [M, N] accumulator (FP32 for float inputs, INT32
/// for integer inputs) in Acc memory.
inline TypeRef tile_matmul(std::string_view op, const std::vector<ExprRef>& args, const Attrs&) {
  const auto& l = arg_as<TileType>(op, args, 0);
  const auto& r = arg_as<TileType>(op, args, 1);
  if (l.rank() != 2) fail(op, 0, "must be a 2-D tile");
  if (r.rank() != 2) fail(op, 1, "must be a 2-D tile");
  if (l.dtype != r.dtype) fail(op, 1, "must have the dtype of argument 0");
  const auto* k_lhs = as<ConstInt>(l.shape[1].get());
  const auto* k_rhs = as<ConstInt>(r.shape[0].get());
  if (k_lhs && k_rhs && k_lhs->value != k_rhs->value)
    fail(op, 1,
         "must have as many rows as argument 0 has columns (K = " + std::to_string(k_lhs->value) +
             ", got " + std::to_string(k_rhs->value) + ")");
  const core::DataType acc = core::is_float(l.dtype) ? core::DataType::FP32 : core::DataType::INT32;
  return TileType::make(acc, {l.shape[0], r.shape[1]}, MemorySpace::Acc);
}

/// Elementwise tensor op: the first tensor's type; the second operand is a tensor of the same
/// dtype and rank, or a scalar of that dtype.
inline TypeRef tensor_elementwise(std::string_view op, const std::vector<ExprRef>& args,
                                  const Attrs&) {
  const auto& lhs = arg_as<TensorType>(op, args, 0);
  if (args.size() > 1) {
    if (const auto* rt = as<TensorType>(args[1]->type.get())) {
      if (rt->dtype != lhs.dtype || rt->rank() != lhs.rank())
        fail(op, 1, "must be a tensor of the same dtype and rank");
    } else if (const auto* st = as<ScalarType>(args[1]->type.get())) {
      if (st->dtype != lhs.dtype) fail(op, 1, "must be a scalar of the tensor's dtype");
    } else {
      fail(op, 1, "must be a tensor or a scalar");
    }
  }
  return args[0]->type;
}

/// tensor.read(tensor, indices) -> Scalar of the tensor's dtype.
inline TypeRef tensor_read(std::string_view op, const std::vector<ExprRef>& args, const Attrs&) {
  const auto& t = arg_as<TensorType>(op, args, 0);
  if (shape_arg(op, args, 1).size() != t.rank()) fail(op, 1, "must index every dimension");
  return ScalarType::make(t.dtype);
}

/// tensor.write(tensor, indices, value) -> the tensor's type.
inline TypeRef tensor_write(std::string_view op, const std::vector<ExprRef>& args, const Attrs&) {
  const auto& t = arg_as<TensorType>(op, args, 0);
  if (shape_arg(op, args, 1).size() != t.rank()) fail(op, 1, "must index every dimension");
  if (arg_as<ScalarType>(op, args, 2).dtype != t.dtype) fail(op, 2, "must have the tensor's dtype");
  return args[0]->type;
}

/// tensor.slice(input, shape, offset[, valid_shape]) -> a tensor of the slice shape.
inline TypeRef tensor_slice(std::string_view op, const std::vector<ExprRef>& args, const Attrs&) {
  const auto& t = arg_as<TensorType>(op, args, 0);
  auto shape = shape_arg(op, args, 1);
  if (shape_arg(op, args, 2).size() != shape.size()) fail(op, 2, "must match the shape's rank");
  return TensorType::make(t.dtype, std::move(shape));
}

/// tensor.assemble(target, source, offset) -> the target's type.
inline TypeRef tensor_assemble(std::string_view op, const std::vector<ExprRef>& args,
                               const Attrs&) {
  const auto& target = arg_as<TensorType>(op, args, 0);
  const auto& source = arg_as<TensorType>(op, args, 1);
  if (source.dtype != target.dtype) fail(op, 1, "must have the target's dtype");
  if (shape_arg(op, args, 2).size() != target.rank()) fail(op, 2, "must match the target's rank");
  return args[0]->type;
}

/// tensor.dim(tensor, axis) -> Scalar[INDEX]; the axis is a constant within the rank.
inline TypeRef tensor_dim(std::string_view op, const std::vector<ExprRef>& args, const Attrs&) {
  const auto& t = arg_as<TensorType>(op, args, 0);
  const auto* axis = as<ConstInt>(args[1].get());
  const auto rank = static_cast<std::int64_t>(t.rank());
  if (!axis || axis->value < -rank || axis->value >= rank)
    fail(op, 1, "must be a constant axis in [-rank, rank)");
  return ScalarType::make(core::DataType::INDEX);
}

/// tensor.create(shape, dtype=...) -> a fresh tensor.
inline TypeRef tensor_create(std::string_view op, const std::vector<ExprRef>& args,
                             const Attrs& kw) {
  const auto dtype = required_kwarg<core::DataType>(op, kw, "dtype");
  std::optional<TensorView> view;
  if (auto layout = kw.get<TensorLayout>("layout"); layout && *layout != TensorLayout::ND)
    view = TensorView{{}, *layout, {}, PadValue::null};
  return TensorType::make(dtype, shape_arg(op, args, 0), std::move(view));
}

/// tile.full / tensor.full(shape, dtype=..., value=...) -> a filled tile / tensor.
inline TypeRef tile_full(std::string_view op, const std::vector<ExprRef>& args, const Attrs& kw) {
  return TileType::make(required_kwarg<core::DataType>(op, kw, "dtype"), shape_arg(op, args, 0));
}
inline TypeRef tensor_full(std::string_view op, const std::vector<ExprRef>& args, const Attrs& kw) {
  return TensorType::make(required_kwarg<core::DataType>(op, kw, "dtype"), shape_arg(op, args, 0));
}

/// tensor.expand_clone(input, target) -> the target's type.
inline TypeRef tensor_expand_clone(std::string_view op, const std::vector<ExprRef>& args,
                                   const Attrs&) {
  const auto& in = arg_as<TensorType>(op, args, 0);
  const auto& target = arg_as<TensorType>(op, args, 1);
  if (in.dtype != target.dtype) fail(op, 1, "must have the input's dtype");
  return args[1]->type;
}

inline TypeRef index_scalar(std::string_view, const std::vector<ExprRef>&, const Attrs&) {
  return ScalarType::make(core::DataType::INDEX);
}
inline TypeRef int32_scalar(std::string_view, const std::vector<ExprRef>&, const Attrs&) {
  return ScalarType::make(core::DataType::INT32);
}
inline TypeRef task_id_scalar(std::string_view, const std::vector<ExprRef>&, const Attrs&) {
  return ScalarType::make(core::DataType::TASK_ID);
}
inline TypeRef bool_scalar(std::string_view, const std::vector<ExprRef>&, const Attrs&) {
  return ScalarType::make(core::DataType::BOOL);
}
template <class T>
TypeRef resource(std::string_view, const std::vector<ExprRef>&, const Attrs&) {
  return T::make();
}

}  // namespace type_rules

// ---- effect rules -------------------------------------------------------------------------

namespace effect_rules {
/// Write, or ReadWrite when the `atomic` keyword asks for an atomic update (out += x reads).
inline ArgEffect atomic_store(const Attrs& kw) {
  auto atomic = kw.get<AtomicType>("atomic");
  return atomic && *atomic != AtomicType::None ? ArgEffect::ReadWrite : ArgEffect::Write;
}
/// pld.system.notify: the AtomicAdd form (op=0, the default) reads the signal; Set (op=1)
/// only writes.
inline ArgEffect notify(const Attrs& kw) {
  auto op = kw.get<std::int64_t>("op");
  return op && *op == 1 ? ArgEffect::Write : ArgEffect::ReadWrite;
}
}  // namespace effect_rules

PYPTO_DECL OpRegistry standard_op_registry() {
  using K = KwargKind;
  using R = ArgEffect;
  namespace tr = type_rules;
  OpRegistry r;
  const ArgSpec atomic_dst{"", R::Write, false, effect_rules::atomic_store};
  const KwargSpec atomic = enum_kwarg<AtomicType>("atomic");
  auto named = [](ArgSpec a, std::string name) {
    a.name = std::move(name);
    return a;
  };

  // tile family
  r.add({"tile.load",
         {{"tensor"}, {"offsets"}, {"shapes"}, {"valid_shape", R::Read, true}},
         {enum_kwarg<MemorySpace>("target_memory"),
          {"clamp", K::Bool},
          enum_kwarg<CachePolicy>("cache")},
         tr::tile_load});
  r.add({"tile.store",
         {{"tile"}, {"offsets"}, named(atomic_dst, "output_tensor"), {"shapes", R::Read, true}},
         {atomic},
         tr::tile_store});
  for (const char* name : {"tile.add", "tile.sub", "tile.mul", "tile.div", "tile.max", "tile.min"})
    r.add({name, {{"lhs"}, {"rhs"}}, {}, tr::tile_elementwise});
  for (const char* name : {"tile.neg", "tile.abs", "tile.exp", "tile.sqrt", "tile.rsqrt"})
    r.add({name, {{"tile"}}, {}, tr::tile_elementwise});
  r.add({"tile.cast",
         {{"tile"}, {"tmp", R::Read, true}},
         {{"target_type", K::DataType}, {"mode", K::Int}, {"saturation_mode", K::Int}},
         tr::tile_cast});
  r.add({"tile.row_sum", {{"tile"}, {"tmp_tile"}}, {}, tr::tile_row_reduce});
  r.add({"tile.row_max", {{"tile"}, {"tmp_tile"}}, {}, tr::tile_row_reduce});
  r.add({"tile.matmul", {{"lhs"}, {"rhs"}}, {}, tr::tile_matmul});
  r.add({"tile.full", {{"shape"}}, {{"dtype", K::DataType}, {"value", K::Any}}, tr::tile_full});
  r.add({"tile.get_block_idx", {}, {}, tr::index_scalar});
  r.add({"tile.get_subblock_idx", {}, {}, tr::index_scalar});

  // tensor family
  for (const char* name :
       {"tensor.add", "tensor.sub", "tensor.mul", "tensor.div", "tensor.maximum", "tensor.minimum"})
    r.add({name, {{"lhs"}, {"rhs"}}, {}, tr::tensor_elementwise});
  for (const char* name : {"tensor.neg", "tensor.exp", "tensor.sqrt"})
    r.add({name, {{"input"}}, {}, tr::tensor_elementwise});
  r.add({"tensor.read", {{"tensor"}, {"indices"}}, {}, tr::tensor_read});
  r.add({"tensor.write", {{"tensor", R::Write}, {"indices"}, {"value"}}, {}, tr::tensor_write});
  r.add({"tensor.slice",
         {{"input"}, {"shape"}, {"offset"}, {"valid_shape", R::Read, true}},
         {enum_kwarg<PadValue>("pad_value"), {"clamp", K::Bool}},
         tr::tensor_slice});
  r.add({"tensor.assemble",
         {named(atomic_dst, "target"), {"source"}, {"offset"}},
         {atomic},
         tr::tensor_assemble});
  r.add({"tensor.dim", {{"tensor"}, {"axis"}}, {}, tr::tensor_dim});
  r.add({"tensor.create",
         {{"shape"}},
         {{"dtype", K::DataType},
          enum_kwarg<TensorLayout>("layout"),
          {"manual_dep", K::Bool},
          {"init_value", K::Double}},
         tr::tensor_create,
         false,
         {"create_tensor"}});
  r.add({"tensor.full", {{"shape"}}, {{"dtype", K::DataType}, {"value", K::Any}}, tr::tensor_full});
  r.add({"tensor.expand_clone", {{"input"}, {"target", R::Write}}, {}, tr::tensor_expand_clone});

  // A declaration that the parser hoists onto the enclosing scope: it does not access the data
  // and is not one of the statement-only calls below.
  r.add({"set_cache_policy", {{"tensor"}, {"policy"}}, {}, tr::unknown});

  // distributed and system statement-only calls (the allowlist)
  r.add({"pld.tensor.put",
         {named(atomic_dst, "dst"),
          {"peer"},
          {"src"},
          {"dst_offsets", R::Read, true},
          {"src_offsets", R::Read, true},
          {"shape", R::Read, true}},
         {atomic, {"chunk_rows", K::Int}, {"chunk_cols", K::Int}, {"pipeline", K::Bool}},
         tr::unknown,
         true});
  r.add({"pld.tile.remote_store",
         {{"src_tile"}, named(atomic_dst, "target"), {"peer"}, {"offsets"}},
         {atomic},
         tr::unknown,
         true});
  r.add({"pld.tensor.remote_store",
         {{"src"}, named(atomic_dst, "target"), {"peer"}, {"offsets"}},
         {atomic},
         tr::unknown,
         true});
  r.add({"pld.system.notify",
         {{"target", R::ReadWrite, false, effect_rules::notify}, {"peer"}, {"offsets"}, {"value"}},
         {{"op", K::Int}},
         tr::unknown,
         true});
  r.add({"pld.system.wait",
         {{"signal"}, {"offsets"}, {"expected"}},
         {{"cmp", K::Int}},
         tr::unknown,
         true});
  r.add({"pld.system.defer_wait",
         {{"signal"}, {"offsets"}, {"expected"}},
         {{"cmp", K::Int}},
         tr::unknown,
         true});
  r.add({"system.set_ffts", {{"workspace"}}, {}, tr::unknown, true});
  r.add({"system.sync_set",
         {{"event_id_dyn", R::Read, true}},
         {{"pipe", K::Int}, {"event_id", K::Int}, {"ffts_mode", K::Int}, {"core_type", K::String}},
         tr::unknown,
         true});
  r.add({"system.sync_wait",
         {{"event_id_dyn", R::Read, true}},
         {{"pipe", K::Int}, {"event_id", K::Int}, {"core_type", K::String}},
         tr::unknown,
         true});
  r.add({"system.task_invalid", {}, {}, tr::task_id_scalar});  // the "no producer" task id
  r.add({"system.import_peer_buffer",
         {},
         {{"name", K::String}, {"peer_func", K::String}},
         tr::int32_scalar});

  // prefetch: a context, its events and sessions, produced and consumed locally
  r.add({"prefetch.make_context", {{"workspace"}}, {}, tr::resource<PrefetchAsyncContextType>});
  r.add({"prefetch.async_prefetch", {{"src"}, {"ctx"}}, {}, tr::resource<AsyncEventType>});
  r.add({"prefetch.session", {{"ctx"}}, {}, tr::resource<AsyncSessionType>});
  r.add({"prefetch.wait", {{"event"}, {"session"}}, {}, tr::bool_scalar});
  return r;
}

}  // namespace pypto::ir

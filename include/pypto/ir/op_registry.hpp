// pypto/ir/op_registry.hpp — builtin operations as data: arguments, effects, keywords, typing.
//
// An OpRegistry is a plain value (no static registration): each OpDef names an op, its
// positional arguments with their memory effect (Read, Write, ReadWrite — possibly decided by a
// keyword, as for atomic stores), the keywords it accepts with their value kinds, and a type rule
// that computes the result type from the arguments or throws a TypeError saying which argument is
// wrong. Passes read effects from here, never from op-name special cases (seed 002: "which ops
// write is declared on the registry"). `standard_op_registry()` builds the ops the pipeline
// needs. Lookup is O(log n) in the number of ops.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/type.hpp"

namespace pypto::ir {

/// What an op does to the memory behind one argument. A Write slot overwrites (part of) the
/// destination without reading it; ReadWrite also reads it (atomics, accumulators).
enum class ArgEffect : std::uint8_t { Read, Write, ReadWrite };

constexpr std::string_view arg_effect_name(ArgEffect e) {
  switch (e) {
    case ArgEffect::Read: return "Read";
    case ArgEffect::Write: return "Write";
    case ArgEffect::ReadWrite: return "ReadWrite";
  }
  return "?";
}

/// The value kind a keyword argument accepts.
enum class KwargKind : std::uint8_t { Bool, Int, Double, String, DataType, Enum, Expr, List, Any };

/// `enum_id` of a KwargSpec that is not an Enum keyword.
inline constexpr std::uint8_t kNoEnum = 0xff;

/// One keyword an op accepts. An Enum keyword names the one IR enum it takes (`enum_id`, as in
/// EnumValue), so `target_memory=pl.Level.HOST` is rejected rather than silently ignored; build
/// it with `enum_kwarg<MemorySpace>("target_memory")`.
struct KwargSpec {
  std::string name;
  KwargKind kind = KwargKind::Any;
  std::uint8_t enum_id = kNoEnum;
};

/// The spec of a keyword taking a value of the IR enum E.
template <IrEnum E>
KwargSpec enum_kwarg(std::string name) {
  return {std::move(name), KwargKind::Enum, EnumValue::id_of<E>()};
}

struct ArgSpec {
  std::string name;
  ArgEffect effect = ArgEffect::Read;
  bool optional = false;  ///< may be omitted (only trailing arguments)
  /// When set, decides the effect from the call's keywords instead of `effect`.
  ArgEffect (*effect_rule)(const Attrs& kwargs) = nullptr;
};

/// Computes a call's result type; throws TypeError naming the offending argument.
using TypeRule = TypeRef (*)(std::string_view op, const std::vector<ExprRef>& args,
                             const Attrs& kwargs);

struct OpDef {
  std::string name;
  std::vector<ArgSpec> args;
  std::vector<KwargSpec> kwargs;
  TypeRule type_rule = nullptr;
  /// The result is UnknownType and the call may only stand alone as an EvalStmt (seed 001's
  /// legacy statement-only allowlist, exactly nine ops). `set_cache_policy` is not one: it is a
  /// declaration that the parser hoists onto the enclosing scope, never a statement of the IR.
  bool statement_only = false;

  std::size_t min_args() const {
    std::size_t n = 0;
    while (n < args.size() && !args[n].optional) ++n;
    return n;
  }
  /// The effect of the call on argument `i` given its keywords (extra arguments read).
  ArgEffect effect(std::size_t i, const Attrs& call_kwargs) const {
    if (i >= args.size()) return ArgEffect::Read;
    return args[i].effect_rule ? args[i].effect_rule(call_kwargs) : args[i].effect;
  }
  const KwargSpec* find_kwarg(std::string_view k) const {
    for (const auto& s : kwargs)
      if (s.name == k) return &s;
    return nullptr;
  }
};

class OpRegistry {
 public:
  /// Adds an op; throws ValueError on a duplicate name or a malformed definition.
  void add(OpDef def) {
    detail::require(!def.name.empty(), "OpDef", "name", "must not be empty");
    if (!def.type_rule) detail::fail("OpDef " + def.name, "type_rule", "is required");
    for (std::size_t i = 1; i < def.args.size(); ++i)
      if (!def.args[i].optional && def.args[i - 1].optional)
        detail::fail("OpDef " + def.name, detail::indexed("args", i),
                     "a required argument cannot follow an optional one");
    for (std::size_t i = 0; i < def.kwargs.size(); ++i) {
      const KwargSpec& k = def.kwargs[i];
      if ((k.kind == KwargKind::Enum) != (k.enum_id != kNoEnum) ||
          (k.enum_id != kNoEnum && enum_type_name(EnumValue{k.enum_id, 0}) == "?"))
        detail::fail("OpDef " + def.name, detail::indexed("kwargs", i),
                     "an Enum keyword names its IR enum (use enum_kwarg<E>), no other kind does");
    }
    auto it = lower(def.name);
    if (it != ops_.end() && it->name == def.name)
      detail::fail("OpRegistry", "add", "op '" + def.name + "' is already registered");
    op_nodes_.insert(op_nodes_.begin() + (it - ops_.begin()), Op::make(def.name));
    ops_.insert(it, std::move(def));
  }

  const OpDef* find(std::string_view name) const {
    auto it = lower(name);
    return it != ops_.end() && it->name == name ? &*it : nullptr;
  }

  /// The op named `name`; throws ValueError naming it when unknown.
  const OpDef& at(std::string_view name) const {
    if (const OpDef* d = find(name)) return *d;
    throw core::ValueError("unknown op '" + std::string(name) + "'");
  }

  /// All ops, sorted by name. Not callable on a temporary registry, whose list would dangle.
  const std::vector<OpDef>& ops() const& { return ops_; }
  const std::vector<OpDef>& ops() const&& = delete;

  /// Builds a checked, typed Call of a registered op: argument count, keyword names and kinds
  /// are validated and the result type comes from the op's type rule.
  Ref<const Call> make_call(std::string_view name, std::vector<ExprRef> args, Attrs kwargs = {},
                            Attrs attrs = {}, Span span = {}) const {
    const OpDef& def = at(name);
    check_call(def, args, kwargs);
    TypeRef type = def.type_rule(def.name, args, kwargs);
    return Call::make(op_nodes_[static_cast<std::size_t>(&def - ops_.data())], std::move(args),
                      std::move(type), std::move(kwargs), std::move(attrs), std::move(span));
  }

  /// The effect of `call` on its argument `i`; Read for a callee that is not a registered op.
  ArgEffect effect(const Call& call, std::size_t i) const {
    if (isa<GlobalVar>(*call.op)) return ArgEffect::Read;
    const OpDef* def = find(call.op->name);
    return def ? def->effect(i, call.kwargs) : ArgEffect::Read;
  }

 private:
  static void check_call(const OpDef& def, const std::vector<ExprRef>& args, const Attrs& kw) {
    if (args.size() < def.min_args() || args.size() > def.args.size())
      throw core::TypeError(def.name + ": expected " + count_text(def) + " arguments, got " +
                            std::to_string(args.size()));
    for (std::size_t i = 0; i < args.size(); ++i)
      if (!args[i])
        throw core::ValueError(def.name + ": argument " + std::to_string(i) + " (" +
                               def.args[i].name + ") is null");
    for (const auto& [key, value] : kw) {
      const KwargSpec* spec = def.find_kwarg(key);
      if (!spec) throw core::TypeError(def.name + ": unknown keyword argument '" + key + "'");
      if (!kind_matches(*spec, value))
        throw core::TypeError(def.name + ": keyword '" + key + "' has a value of the wrong kind" +
                              expected_enum_text(*spec, value));
    }
    if (auto dup = kw.duplicate_key())
      throw core::ValueError(def.name + ": keyword '" + *dup + "' given twice");
  }
  static bool kind_matches(const KwargSpec& spec, const AttrValue& v) {
    switch (spec.kind) {
      case KwargKind::Bool: return v.is<bool>();
      case KwargKind::Int: return v.is<std::int64_t>();
      case KwargKind::Double: return v.is<double>() || v.is<std::int64_t>();
      case KwargKind::String: return v.is<std::string>();
      case KwargKind::DataType: return v.is<core::DataType>();
      case KwargKind::Enum:
        return v.is<EnumValue>() && v.get_if<EnumValue>()->enum_id == spec.enum_id;
      case KwargKind::Expr: return v.is<ExprRef>();
      case KwargKind::List: return v.is<AttrValueList>();
      case KwargKind::Any: return true;
    }
    return false;
  }
  /// ": expected a pl.Mem value, got pl.Level.HOST" for a value of another enum, else empty.
  static std::string expected_enum_text(const KwargSpec& spec, const AttrValue& v) {
    const auto* e = v.get_if<EnumValue>();
    if (spec.kind != KwargKind::Enum || !e) return {};
    return ": expected a pl." + std::string(enum_type_name(EnumValue{spec.enum_id, 0})) +
           " value, got pl." + std::string(enum_type_name(*e)) + "." +
           std::string(enum_value_name(*e));
  }
  static std::string count_text(const OpDef& def) {
    const std::size_t lo = def.min_args(), hi = def.args.size();
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
  }
  std::vector<OpDef>::const_iterator lower(std::string_view name) const {
    return std::lower_bound(ops_.begin(), ops_.end(), name,
                            [](const OpDef& d, std::string_view n) { return d.name < n; });
  }

  std::vector<OpDef> ops_;  // sorted by name
  /// The one Op node of each op (parallel to ops_), shared by every call make_call builds: one
  /// node per op name keeps programs small and each op's record hot in the walks' caches.
  std::vector<OpRef> op_nodes_;
};

// ---- type rules of the standard ops -------------------------------------------------------

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

/// The ops the pipeline needs (tile, tensor, distributed, system and prefetch families).
inline OpRegistry standard_op_registry() {
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
         tr::tensor_create});
  r.add({"tensor.full", {{"shape"}}, {{"dtype", K::DataType}, {"value", K::Any}}, tr::tensor_full});
  r.add({"tensor.expand_clone", {{"input"}, {"target", R::Write}}, {}, tr::tensor_expand_clone});

  // A declaration that the parser hoists onto the enclosing scope: it does not access the data
  // and is not one of the statement-only calls below.
  r.add({"set_cache_policy", {{"tensor"}, {"policy"}}, {}, tr::unknown});

  // distributed and system statement-only calls (seed 001's allowlist)
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
  r.add({"system.import_peer_buffer",
         {},
         {{"name", K::String}, {"peer_func", K::String}},
         tr::int32_scalar});

  // prefetch: a context, its events and sessions, produced and consumed locally (seed 001)
  r.add({"prefetch.make_context", {{"workspace"}}, {}, tr::resource<PrefetchAsyncContextType>});
  r.add({"prefetch.async_prefetch", {{"src"}, {"ctx"}}, {}, tr::resource<AsyncEventType>});
  r.add({"prefetch.session", {{"ctx"}}, {}, tr::resource<AsyncSessionType>});
  r.add({"prefetch.wait", {{"event"}, {"session"}}, {}, tr::bool_scalar});
  return r;
}

}  // namespace pypto::ir

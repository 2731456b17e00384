// pypto/ir/op_registry.hpp — builtin operations as data: arguments, effects, keywords, typing.
//
// An OpRegistry is a plain value (no static registration): each OpDef names an op, its
// positional arguments with their memory effect (Read, Write, ReadWrite — possibly decided by a
// keyword, as for atomic stores), the keywords it accepts with their value kinds, and a type rule
// that computes the result type from the arguments or throws a TypeError saying which argument is
// wrong. Passes read effects from here, never from op-name special cases ("which ops
// write is declared on the registry"). `standard_op_registry()` builds the ops the pipeline
// needs. Lookup is O(log n) in the number of ops.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/identical.hpp"
#include "pypto/ir/round_mode.hpp"
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
  /// An Int keyword the DSL also takes by name: the parser stores the string `names[i]` as i
  /// (`cmp_mode="ge"` is 5), as upstream's builders do; the IR and the printer hold the int.
  std::vector<std::string> names = {};
  /// Left out inside a `pl.split_aiv` region, it takes the region's split mode as an int
  /// (`pl.aiv_shard(t)` there splits as the region does).
  bool from_split_region = false;
  /// The value a call that leaves the keyword out means, as upstream's builders record it
  /// (`pl.create_tensor(s, dtype=d)` is layout=ND): make_call leaves it out where a call
  /// writes it, so the two spellings are one program, whoever builds it.
  std::optional<AttrValue> default_value = std::nullopt;
};

/// `k` with the value a call that leaves it out means.
inline KwargSpec with_default(KwargSpec k, AttrValue value) {
  k.default_value = std::move(value);
  return k;
}

/// The spec of a keyword taking a value of the IR enum E.
template <IrEnum E>
KwargSpec enum_kwarg(std::string name) {
  return {std::move(name), KwargKind::Enum, EnumValue::id_of<E>()};
}

/// What an optional argument left out while a later one is given stands for (ArgSpec::fill).
enum class ArgFill : std::uint8_t {
  None,       ///< nothing: leaving it out before a later one is an error
  EmptyList,  ///< `[]` (tensor.slice's valid_shape before its drop_dims)
  ZeroInt32,  ///< an INT32 0 (a pipe's consumer buffer base)
};

struct ArgSpec {
  std::string name;
  ArgEffect effect = ArgEffect::Read;
  bool optional = false;  ///< may be omitted (only trailing arguments)
  /// When set, decides the effect from the call's keywords instead of `effect`.
  ArgEffect (*effect_rule)(const Attrs& kwargs) = nullptr;
  /// A bare literal written here takes argument 0's element dtype (an int literal always, a
  /// float literal when that dtype is a float): `pl.mul(t, 2.0)` on an FP16 tile is FP16.
  bool adopts_dtype = false;
  /// An optional argument that may be left out while a later one, a shape list, is given: the
  /// later ones move up, as upstream's builders append only what is given (tile.mgather's
  /// scratch before its valid_shape). A shape list in this slot is the later argument.
  bool skippable = false;
  /// An optional argument that, left out, means a copy of argument `copy_of` (tile.load's
  /// valid_shape is its shapes), as upstream's builder fills it: make_call leaves out a last
  /// argument identical to it.
  int copy_of = -1;
  /// An index list where one index may be written alone, as upstream wraps it: `pl.read(t, i)`
  /// is `pl.read(t, [i])` (the printer writes the list).
  bool index_list = false;
  /// Left out while a later argument is given, it takes this value, as upstream's builders fill
  /// it (see filled_arg).
  ArgFill fill = ArgFill::None;
  /// A constant integer here takes the call's `dtype=` keyword (its default when left out), as
  /// upstream's builders retype it: `tensor.ci(0, [1, 32], dtype=INT16)` starts at an INT16 0.
  bool takes_dtype_keyword = false;
};

/// An optional argument that takes `fill` when left out before a later one.
inline ArgSpec filled(std::string name, ArgFill fill) {
  ArgSpec a{std::move(name), ArgEffect::Read, true};
  a.fill = fill;
  return a;
}

/// The value of an argument `fill` stands for (null for ArgFill::None).
inline ExprRef filled_arg(ArgFill fill, const Span& span) {
  switch (fill) {
    case ArgFill::None: return nullptr;
    case ArgFill::EmptyList: return MakeTuple::make({}, span);
    case ArgFill::ZeroInt32: return ConstInt::make(0, core::DataType::INT32, span);
  }
  return nullptr;
}

/// A store's destination: Write, or ReadWrite when the `atomic` keyword asks for an atomic
/// update (out += x reads it).
inline ArgSpec atomic_destination(std::string name) {
  return {std::move(name), ArgEffect::Write, false, [](const Attrs& kw) {
            auto a = kw.get<AtomicType>("atomic");
            return a && *a != AtomicType::None ? ArgEffect::ReadWrite : ArgEffect::Write;
          }};
}

/// The second operand of an elementwise op: a bare literal there takes argument 0's dtype.
inline ArgSpec scalar_operand(std::string name) {
  return {std::move(name), ArgEffect::Read, false, nullptr, true};
}

/// A cast's rounding `mode=`: an int, or upstream's name of one ("round" is 2). Left out, it is
/// "round", as upstream's builders record it; the mode rounds only a float converted to an
/// integer dtype (runtime/interpreter.hpp's float_to_int).
inline KwargSpec cast_mode_kwarg() {
  return with_default({"mode", KwargKind::Int, kNoEnum,
                       std::vector<std::string>(kRoundModeNames.begin(), kRoundModeNames.end())},
                      kDefaultRoundMode);
}

/// Computes a call's result type; throws TypeError naming the offending argument.
using TypeRule = TypeRef (*)(std::string_view op, const std::vector<ExprRef>& args,
                             const Attrs& kwargs);

/// Where a tile result lives when its type rule leaves the memory space open, as upstream's
/// registry fills it in after the rule: a fixed space; the space `target_memory=` names (Vec when
/// left out, its canonical absence); the first tile operand's (also the fallback of the others
/// when they give none). Unspecified: left open.
enum class OutputMemory : std::uint8_t { Unspecified, Vec, Acc, Mat, Keyword, Inherit };

struct OpDef {
  std::string name;
  std::vector<ArgSpec> args = {};
  std::vector<KwargSpec> kwargs = {};
  TypeRule type_rule = nullptr;
  /// The result is UnknownType and the call may only stand alone as an EvalStmt (the
  /// legacy statement-only allowlist, exactly nine ops). `set_cache_policy` is not one: it is a
  /// declaration that the parser hoists onto the enclosing scope, never a statement of the IR.
  bool statement_only = false;
  /// The DSL's other names for the op, without `pl.` (`create_tensor` for tensor.create): the
  /// parser resolves them, the printer writes the op's own name.
  std::vector<std::string> spellings = {};
  /// The DSL's positional parameter order when it is not the arguments in order: names of
  /// arguments and keywords (`pl.tile.create(shape, dtype, target_memory)`). Every required
  /// argument is listed; what is not is keyword-only. See docs/text-format.md.
  std::vector<std::string> params = {};
  /// {keyword, op}: a call naming the keyword is that op instead, as one DSL function of
  /// upstream's builds several ops (`pl.gather(x, mask_pattern=...)` is tensor.gather_mask).
  std::vector<std::pair<std::string, std::string>> by_keyword = {};
  /// Where a tile result lives (see OutputMemory).
  OutputMemory output_memory = OutputMemory::Unspecified;

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
  /// The op a call naming these keywords is: by_keyword's first match, else this one.
  template <class Keywords>
  std::string_view variant(const Keywords& keywords) const {
    for (const auto& [k, op] : by_keyword)
      for (const auto& written : keywords)
        if (written.name == k) return op;
    return name;
  }
  /// The parameter name argument `i` of `args` is written under: its slot's, after the
  /// skippable slots a shape list passed over (see ArgSpec::skippable).
  const std::string& arg_name(const std::vector<ExprRef>& call_args, std::size_t i) const {
    std::size_t slot = 0;
    for (std::size_t k = 0;; ++k, ++slot) {
      while (slot + 1 < args.size() && args[slot].skippable && isa<MakeTuple>(call_args[k]) &&
             call_args.size() - k < args.size() - slot)
        ++slot;
      if (k == i || slot + 1 >= args.size()) return args[slot].name;
    }
  }
  const KwargSpec* find_kwarg(std::string_view k) const {
    for (const auto& s : kwargs)
      if (s.name == k) return &s;
    return nullptr;
  }
  /// The index of the argument named `a`, or args.size().
  std::size_t arg_index(std::string_view a) const {
    std::size_t i = 0;
    while (i < args.size() && args[i].name != a) ++i;
    return i;
  }
  /// A call in its canonical form: constants retyped to the dtype keyword where the op says so,
  /// then what the call writes that equals its default left out: a trailing optional argument
  /// identical to the one it defaults to (tile.load's valid_shape equal to its shapes), keywords
  /// equal to their default values (tensor.create's layout=ND). So the two spellings are one
  /// program whoever builds them (make_call's first step).
  void canonicalize(std::vector<ExprRef>& call_args, Attrs& call_kwargs) const {
    retype_constants(call_args, call_kwargs);
    if (const std::size_t n = call_args.size(); n > 0 && n <= args.size()) {
      const int from = args[n - 1].copy_of;
      if (from >= 0 && static_cast<std::size_t>(from) < n - 1 &&
          identical(call_args[n - 1], call_args[static_cast<std::size_t>(from)]))
        call_args.pop_back();
    }
    for (const KwargSpec& k : kwargs)
      if (const AttrValue* v = k.default_value ? call_kwargs.find(k.name) : nullptr;
          v && same_scalar(*v, *k.default_value))
        call_kwargs = call_kwargs.without(k.name);
  }
  /// Constant integers in `takes_dtype_keyword` slots retyped to the call's dtype keyword.
  void retype_constants(std::vector<ExprRef>& call_args, const Attrs& call_kwargs) const {
    for (std::size_t i = 0; i < call_args.size() && i < args.size(); ++i) {
      const auto* c = args[i].takes_dtype_keyword ? as<ConstInt>(call_args[i].get()) : nullptr;
      if (!c) continue;
      std::optional<core::DataType> dt = call_kwargs.get<core::DataType>("dtype");
      if (const KwargSpec* k = dt ? nullptr : find_kwarg("dtype"); k && k->default_value)
        if (const auto* d = k->default_value->get_if<core::DataType>()) dt = *d;
      if (dt && core::is_int(*dt) && *dt != c->dtype())
        call_args[i] = ConstInt::make(c->value, *dt, c->span);
    }
  }
  /// `type` with the memory space output_memory gives each tile in it that has none.
  TypeRef placed(TypeRef type, const std::vector<ExprRef>& call_args,
                 const Attrs& call_kwargs) const {
    if (output_memory == OutputMemory::Unspecified) return type;
    std::optional<MemorySpace> space;
    switch (output_memory) {
      case OutputMemory::Vec: space = MemorySpace::Vec; break;
      case OutputMemory::Acc: space = MemorySpace::Acc; break;
      case OutputMemory::Mat: space = MemorySpace::Mat; break;
      case OutputMemory::Keyword:
        space = call_kwargs.get<MemorySpace>("target_memory").value_or(MemorySpace::Vec);
        break;
      case OutputMemory::Unspecified:
      case OutputMemory::Inherit: break;
    }
    for (std::size_t i = 0; !space && i < call_args.size(); ++i)
      if (const auto* t = as<TileType>(call_args[i]->type.get()); t && t->memory_space)
        space = t->memory_space;
    if (!space) return type;
    auto place = [&](const TypeRef& t) -> TypeRef {
      const auto* tile = as<TileType>(t.get());
      if (!tile || tile->memory_space) return t;
      return TileType::make(tile->dtype, tile->shape, space, tile->tile_view, tile->memref);
    };
    if (const auto* tuple = as<TupleType>(type.get())) {
      std::vector<TypeRef> elements;
      for (const TypeRef& e : tuple->types) elements.push_back(place(e));
      return TupleType::make(std::move(elements));
    }
    return place(type);
  }
  /// True for two equal bool / int / float / string / dtype / enum values.
  static bool same_scalar(const AttrValue& a, const AttrValue& b) {
    auto eq = [&]<class T>(const T*) {
      const T* x = a.get_if<T>();
      const T* y = b.get_if<T>();
      return x && y && *x == *y;
    };
    return eq(static_cast<const bool*>(nullptr)) || eq(static_cast<const std::int64_t*>(nullptr)) ||
           eq(static_cast<const double*>(nullptr)) ||
           eq(static_cast<const std::string*>(nullptr)) ||
           eq(static_cast<const core::DataType*>(nullptr)) ||
           eq(static_cast<const EnumValue*>(nullptr));
  }
  /// The name of positional parameter `i` of the DSL call, or null past the last.
  const std::string* positional_param(std::size_t i) const {
    if (!params.empty()) return i < params.size() ? &params[i] : nullptr;
    return i < args.size() ? &args[i].name : nullptr;
  }
};

class OpRegistry {
 public:
  /// Sets where the results of `op` live (see OutputMemory); throws ValueError when unknown.
  void set_output_memory(std::string_view op, OutputMemory memory) {
    const OpDef* def = find(op);
    if (!def) detail::fail("OpRegistry", "set_output_memory", "no op " + std::string(op));
    ops_[static_cast<std::size_t>(def - ops_.data())].output_memory = memory;
  }

  /// Adds an op; throws ValueError on a duplicate name or a malformed definition.
  void add(OpDef def) {
    detail::require(!def.name.empty(), "OpDef", "name", "must not be empty");
    if (!def.type_rule) detail::fail("OpDef " + def.name, "type_rule", "is required");
    for (std::size_t i = 1; i < def.args.size(); ++i)
      if (!def.args[i].optional && def.args[i - 1].optional)
        detail::fail("OpDef " + def.name, detail::indexed("args", i),
                     "a required argument cannot follow an optional one");
    check_params(def);
    for (std::size_t i = 0; i < def.kwargs.size(); ++i) {
      const KwargSpec& k = def.kwargs[i];
      if (!k.names.empty() && k.kind != KwargKind::Int)
        detail::fail("OpDef " + def.name, detail::indexed("kwargs", i),
                     "only an Int keyword takes names");
      if ((k.kind == KwargKind::Enum) != (k.enum_id != kNoEnum) ||
          (k.enum_id != kNoEnum && enum_type_name(EnumValue{k.enum_id, 0}) == "?"))
        detail::fail("OpDef " + def.name, detail::indexed("kwargs", i),
                     "an Enum keyword names its IR enum (use enum_kwarg<E>), no other kind does");
    }
    auto it = lower(def.name);
    if ((it != ops_.end() && it->name == def.name) || spelled_.count(def.name))
      detail::fail("OpRegistry", "add", "op '" + def.name + "' is already registered");
    for (const std::string& alias : def.spellings)
      if (find(alias) || spelled_.count(alias) || alias == def.name)
        detail::fail("OpRegistry", "add",
                     "spelling '" + alias + "' of op '" + def.name + "' is already a name");
    for (const std::string& alias : def.spellings) spelled_.emplace(alias, def.name);
    op_nodes_.insert(op_nodes_.begin() + (it - ops_.begin()), Op::make(def.name));
    ops_.insert(it, std::move(def));
    for (std::size_t i = 0; i < op_nodes_.size(); ++i)  // positions after the new one moved
      *node_index_.insert(op_nodes_[i].get(), i).first = i;
  }

  const OpDef* find(std::string_view name) const {
    auto it = lower(name);
    return it != ops_.end() && it->name == name ? &*it : nullptr;
  }

  /// The op `name` names in the DSL: its own name or one of its spellings; null when none.
  const OpDef* find_spelled(std::string_view name) const {
    if (const OpDef* d = find(name)) return d;
    auto it = spelled_.find(name);
    return it == spelled_.end() ? nullptr : find(it->second);
  }

  /// The op named `name`; throws ValueError naming it when unknown.
  const OpDef& at(std::string_view name) const {
    if (const OpDef* d = find(name)) return *d;
    throw core::ValueError("unknown op '" + std::string(name) + "'");
  }

  /// All ops, sorted by name. Not callable on a temporary registry, whose list would dangle.
  const std::vector<OpDef>& ops() const& { return ops_; }
  const std::vector<OpDef>& ops() const&& = delete;

  /// Builds a checked, typed Call of a registered op: what it writes that equals a default is
  /// left out, argument count, keyword names and kinds are validated and the result type comes
  /// from the op's type rule.
  Ref<const Call> make_call(std::string_view name, std::vector<ExprRef> args, Attrs kwargs = {},
                            Attrs attrs = {}, Span span = {}) const {
    const OpDef& def = at(name);
    def.canonicalize(args, kwargs);
    check_call(def, args, kwargs);
    TypeRef type = def.placed(def.type_rule(def.name, args, kwargs), args, kwargs);
    return Call::make(op_nodes_[static_cast<std::size_t>(&def - ops_.data())], std::move(args),
                      std::move(type), std::move(kwargs), std::move(attrs), std::move(span));
  }

  /// The effect of `call` on its argument `i`; Read for a callee that is not a registered op.
  ArgEffect effect(const Call& call, std::size_t i) const {
    if (isa<GlobalVar>(*call.op)) return ArgEffect::Read;
    const OpDef* def = find(*call.op);
    return def ? def->effect(i, call.kwargs) : ArgEffect::Read;
  }

  /// The definition of `op`: by identity when make_call built it (the walks' hot path), else
  /// by name; null when unknown.
  const OpDef* find(const Op& op) const {
    if (const std::size_t* i = node_index_.find(&op)) return &ops_[*i];
    return find(op.name);
  }

 private:
  /// Parameter names are unique across arguments and keywords; `params` lists the arguments in
  /// order (every required one; an optional one left out is keyword-only), names each once.
  static void check_params(const OpDef& def) {
    const std::string where = "OpDef " + def.name;
    for (std::size_t i = 0; i < def.args.size(); ++i)
      if (def.find_kwarg(def.args[i].name) || def.arg_index(def.args[i].name) != i)
        detail::fail(where, detail::indexed("args", i), "names a parameter twice");
    if (def.params.empty()) return;
    std::size_t next_arg = 0;
    for (std::size_t i = 0; i < def.params.size(); ++i) {
      const std::string& p = def.params[i];
      const bool repeated =
          std::find(def.params.begin(), def.params.begin() + static_cast<std::ptrdiff_t>(i), p) !=
          def.params.begin() + static_cast<std::ptrdiff_t>(i);
      if (repeated || (def.arg_index(p) == def.args.size() && !def.find_kwarg(p)))
        detail::fail(where, detail::indexed("params", i), "is not a parameter named once");
      if (def.arg_index(p) < def.args.size() && def.arg_index(p) != next_arg++)
        detail::fail(where, detail::indexed("params", i), "lists the arguments out of order");
    }
    if (next_arg < def.min_args())
      detail::fail(where, "params", "must list every required argument");
  }

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
  ::pypto::detail::PointerMap<std::size_t> node_index_;      // op_nodes_[i] -> i; never iterated
  std::map<std::string, std::string, std::less<>> spelled_;  // spelling -> op name
};

/// The ops the pipeline needs (tile, tensor, distributed, system and prefetch families).
PYPTO_DECL OpRegistry standard_op_registry();

/// One op of the catalog on a line, as `pypto-opt --list-ops` prints it and docs/ops.md quotes
/// it: `name(arg, out:W, acc:RW, dst:by-keywords, [optional]) key=Kind ...`, then
/// `  statement only`, `  also pl.<spelling>`, `  key= is <op>` (the op a keyword selects) and
/// `  positional (...)` (the DSL's order, when it is not the arguments'). An Int keyword's names
/// follow it (`cmp_mode=Int{eq|ne|...}`), an Enum keyword shows its enum (`pipe=PipeType`).
PYPTO_DECL std::string catalog_line(const OpDef& def);

}  // namespace pypto::ir

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/ir/op_registry.ipp"
#endif

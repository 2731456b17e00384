// pypto/structural/projection.hpp — the one projection behind equal, hash and diagnostics.
//
// Projecting a node turns every node below it into an immutable record: its kind, the exact
// scalars of its Usual fields (dtype codes, float bit patterns, strings, attrs sorted by unique
// key) and the record numbers of its children. Ignore fields are skipped; Def fields bind Vars.
// Records are interned by their full word sequence in an Arena, so two nodes project to the same
// number iff they are structurally equal, and equality of two roots projected into one arena is a
// comparison of numbers. A record's hash combines its scalars with its children's
// hashes (not their numbers), so separate calls agree.
//
// Three walks share the encoder, the binding rules and the walk order: the Projector interns
// records (the canonical path, and the one that reports unsupported IR with its path); the
// Hasher computes the same records' hashes without storing them; Lockstep walks two sides at
// once and compares, at every node, what would go into their records, so that two sides that
// agree throughout would project to the same records. Nodes with only handles and plain scalars
// ("flat" kinds, most of them) are folded over field by field; the others take the generic walk.
//
// Bindings: a Function reserves its parameters, then the shape symbols of its signature, before
// walking anything, so a parameter's shape may name a later scalar parameter. Every Def field
// binds the next number of the current function context; a use of a bound Var is REF(number).
// A free Var keeps its identity (creation number) unless auto-mapping numbers free Vars by first
// occurrence (a bijection). An allocation base reached only through storage descriptors (MemRef /
// WindowBuffer base) and an unbound WindowBuffer are implicit resource bindings. Each Function of a
// Program is its own context; memo tables belong to one context, so shared expression and type
// DAGs are projected once per context and never unfolded into trees.
//
// The walk is iterative (explicit stacks; no native recursion over IR depth). Nesting deeper than
// kMaxNesting, cycles, opaque attribute payloads and duplicate attribute keys raise
// StructuralComparisonUnsupported with the field path. Time O(N) expected with hashing of records
// (O(N log N) worst case), space O(N), N = nodes visited + field and string data.
#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "pypto/core/dtype.hpp"
#include "pypto/core/error.hpp"
#include "pypto/core/hash.hpp"
#include "pypto/detail/pod_stack.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/reflect/walk.hpp"
#include "pypto/structural/census.hpp"
#include "pypto/structural/errors.hpp"
#include "pypto/structural/signature.hpp"

namespace pypto::structural {

/// How a node is reached from its parent; decides what a Var there means.
enum class Position : std::uint8_t { Usual, Def, ResourceBase };

namespace detail {

using ir::Node;
using ir::NodeKind;

/// Record header tags: how a record's words are to be read.
enum class Tag : std::uint32_t {
  Node = 1,          ///< an ordinary node: its fields follow
  Def = 2,           ///< a Var at a Def position: binding number, then its fields
  Ref = 3,           ///< a use of a bound Var: binding number
  FreeNumbered = 4,  ///< a free Var under auto-mapping: first-use number, then its type
  FreeIdentity = 5,  ///< a free Var without auto-mapping: its creation number (identity)
  Implicit = 6,      ///< an implicit resource binding: number, then its type and fields
};

constexpr std::uint32_t header(NodeKind k, Tag t) {
  return static_cast<std::uint32_t>(k) | (static_cast<std::uint32_t>(t) << 8);
}
inline constexpr std::uint32_t kNullWord = 0xffffffffu;
/// Marks a child's place among the scalars; the children's numbers follow the scalars.
inline constexpr std::uint32_t kChildWord = 0xfffffffeu;

/// One step of the word hash; the record hash is finished with core::hash_mix.
constexpr std::uint64_t mix(std::uint64_t h, std::uint64_t w) {
  return (std::rotl(h, 23) ^ w) * 0x9e3779b97f4a7c15ULL;
}

// ---- the arena of interned records ------------------------------------------------------------

/// Interned records: words, hash and number. Two records get the same number iff their words
/// are equal; words hold child record numbers, so equal numbers mean equal structures.
class Arena {
 public:
  // The arena is the projection's largest table (its peak per node is bounded): its
  // arrays grow by a quarter (amortised copying stays O(1) per record), and the hash table is
  // kept up to 3/4 full.
  Arena() {
    words_.set_growth_percent(25);
    offsets_.set_growth_percent(25);
    hashes_.set_growth_percent(25);
    offsets_.push_back(0);
  }

  std::uint32_t intern(const std::uint32_t* w, std::size_t n, std::uint64_t hash) {
    if (4 * (count() + 1) > 3 * capacity_) grow();
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const std::uint32_t slot = table_[i];
      if (slot == 0) {
        const auto id = static_cast<std::uint32_t>(count());
        const std::size_t at = words_.size();
        words_.resize(at + n);
        std::memcpy(words_.data() + at, w, n * sizeof(std::uint32_t));
        offsets_.push_back(static_cast<std::uint32_t>(at + n));
        hashes_.push_back(hash);
        table_[i] = id + 1;
        return id;
      }
      const std::uint32_t id = slot - 1;
      if (hashes_[id] == hash && size(id) == n &&
          std::memcmp(data(id), w, n * sizeof(std::uint32_t)) == 0)
        return id;
    }
  }

  std::uint64_t hash(std::uint32_t id) const { return hashes_[id]; }
  std::size_t count() const { return hashes_.size(); }
  const std::uint32_t* data(std::uint32_t id) const { return words_.data() + offsets_[id]; }
  std::size_t size(std::uint32_t id) const { return offsets_[id + 1] - offsets_[id]; }
  /// Bytes held, for the memory benchmark.
  std::size_t bytes() const {
    return words_.capacity() * 4 + offsets_.capacity() * 4 + hashes_.capacity() * 8 +
           table_.capacity() * 4;
  }

 private:
  void grow() {
    capacity_ = capacity_ ? capacity_ * 2 : 1024;
    table_.resize(capacity_);
    std::memset(table_.data(), 0, capacity_ * sizeof(std::uint32_t));
    mask_ = capacity_ - 1;
    for (std::uint32_t id = 0; id < count(); ++id)
      for (std::size_t i = hashes_[id] & mask_;; i = (i + 1) & mask_)
        if (table_[i] == 0) {
          table_[i] = id + 1;
          break;
        }
  }

  ::pypto::detail::PodStack<std::uint32_t> words_;
  ::pypto::detail::PodStack<std::uint32_t> offsets_;
  ::pypto::detail::PodStack<std::uint64_t> hashes_;
  ::pypto::detail::PodStack<std::uint32_t> table_;  // record number + 1; 0 = empty
  std::size_t capacity_ = 0;
  std::size_t mask_ = 0;
};

// ---- field encoding ---------------------------------------------------------------------------

template <class T>
inline constexpr bool holds_vars =
    std::is_same_v<T, ir::VarRef> || std::is_same_v<T, ir::IterArgRef>;
template <class T>
inline constexpr bool holds_vars<std::vector<T>> = holds_vars<T>;

template <class F>
constexpr Position position_of() {
  if constexpr (F::kind == reflect::FieldKind::Def)
    return Position::Def;
  else if constexpr (std::is_same_v<F, ir::UsualField<&ir::MemRef::base, "base">> ||
                     std::is_same_v<F, ir::UsualField<&ir::WindowBuffer::base, "base">>)
    return Position::ResourceBase;
  else
    return Position::Usual;
}

/// Turns a node's non-Ignore fields into sink calls, in descriptor order: typed scalars, child
/// nodes with their position, list lengths, optional presence, attribute entries sorted by key.
/// Every use of the projection (children enumeration, records, hashes, diagnostics) goes
/// through this one encoder, so they cannot disagree about a field.
template <class Sink>
class FieldEncoder {
 public:
  static constexpr bool skips_ignored_fields = true;

  explicit FieldEncoder(Sink& sink) : sink_(sink) {}

  template <class F>
  void begin_field(F) {
    static_assert(F::kind != reflect::FieldKind::Def || holds_vars<typename F::value_type>,
                  "pypto::structural: a Def field must hold a Var, an IterArg or a list of them");
    // Fields nest only through reflected structs (TensorView inside TensorType, NamedFunction
    // inside Program): a few levels, so a fixed array instead of a heap stack.
    positions_[++level_] = position_of<F>();
    sink_.template begin_field<F>();
  }
  template <class F>
  void end_field(F) {
    --level_;
    sink_.end_field();
  }
  void begin_list(std::size_t n) { sink_.list(n); }
  void begin_element(std::size_t i) { sink_.begin_element(i); }
  void end_element() { sink_.end_element(); }
  void present() { sink_.presence(true); }
  void absent() { sink_.presence(false); }

  template <class T>
  requires std::derived_from<T, Node>
  void visit(const ir::Ref<const T>& child) {
    if (child)
      sink_.child(child.get(), positions_[level_]);
    else
      sink_.null();
  }

  void visit(const ir::Attrs& attrs) {
    if (attrs.empty()) {
      sink_.list(0);
      return;
    }
    // Unique keys, sorted: the order of insertion is not structure.
    std::vector<const ir::AttrEntry*> sorted;
    sorted.reserve(attrs.size());
    for (const auto& e : attrs) sorted.push_back(&e);
    std::sort(sorted.begin(), sorted.end(),
              [](const ir::AttrEntry* a, const ir::AttrEntry* b) { return a->key < b->key; });
    for (std::size_t i = 1; i < sorted.size(); ++i)
      if (sorted[i - 1]->key == sorted[i]->key)
        sink_.unsupported("duplicate attribute key '" + sorted[i]->key + "'");
    sink_.list(sorted.size());
    for (const ir::AttrEntry* e : sorted) {
      sink_.begin_key(e->key);
      sink_.value(e->key);
      visit_attr(e->value, 1);
      sink_.end_key();
    }
  }

  void visit(const std::string& s) { sink_.value(s); }
  void visit(const core::Span&) {}  // Ignore fields never reach here; spans inside structs neither
  template <class T>
  requires(std::is_arithmetic_v<T> || std::is_enum_v<T>) void visit(const T& v) { sink_.value(v); }

 private:
  void visit_attr(const ir::AttrValue& v, std::size_t depth) {
    if (depth > kMaxNesting)  // nested attribute lists recurse: bounded like node nesting
      sink_.unsupported("attribute lists nested deeper than " + std::to_string(kMaxNesting) +
                        " levels");
    sink_.attr_kind(v.value.index());  // the value's type is structure
    std::visit(
        [&](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, ir::EnumValue>) {
            sink_.enum_value(x);
          } else if constexpr (std::is_same_v<X, ir::ExprRef>) {
            if (x)
              sink_.child(x.get(), Position::Usual);
            else
              sink_.null();
          } else if constexpr (std::is_same_v<X, ir::AttrValueList>) {
            sink_.list(x.size());
            for (std::size_t i = 0; i < x.size(); ++i) {
              sink_.begin_element(i);
              visit_attr(x[i], depth + 1);
              sink_.end_element();
            }
          } else if constexpr (std::is_same_v<X, ir::OpaquePayload>) {
            sink_.unsupported("opaque attribute payload of type '" + x.type_name +
                              "' cannot be compared");
          } else {
            sink_.value(x);
          }
        },
        v.value);
  }

  Sink& sink_;
  Position positions_[8] = {Position::Usual};
  std::size_t level_ = 0;
};

/// Encodes the fields of a node of concrete kind N into `sink`. A Function first lists the
/// shape symbols its signature binds (as Def children), so both sides reserve them alike.
template <class Sink, class N>
void encode_concrete(const N& concrete, Sink& sink) {
  FieldEncoder<Sink> encoder(sink);
  if constexpr (std::is_same_v<N, ir::Function>) {
    const auto symbols = signature_symbols(concrete);
    sink.list(symbols.size());
    for (std::size_t i = 0; i < symbols.size(); ++i) {
      sink.begin_symbol(i);
      sink.child(symbols[i].get(), Position::Def);
      sink.end_element();
    }
  }
  reflect::walk_fields(encoder, concrete);
}

/// Encodes the fields of `node` (any concrete kind) into `sink`.
template <class Sink>
void encode_fields(const Node& node, Sink& sink) {
  ir::visit(node, [&](const auto& concrete) { encode_concrete(concrete, sink); });
}

// ---- flat kinds -------------------------------------------------------------------------------
//
// Most nodes (arithmetic, constants, variables, assignments, scalar types, statement lists) have
// only node handles, lists of them and plain scalars as fields. Their fields are folded over
// directly, which gives the same sink calls as the generic walk without its bookkeeping, and lets
// equality compare two such nodes field by field. Optionals, strings, attrs, views and the
// Function (its signature symbols come first) take the generic walk.

template <class T>
inline constexpr bool is_node_handle = false;
template <class T>
inline constexpr bool is_node_handle<ir::Ref<const T>> = std::derived_from<T, Node>;
template <class T>
inline constexpr bool is_handle_list = false;
template <class T>
inline constexpr bool is_handle_list<std::vector<T>> = is_node_handle<T>;
template <class T>
inline constexpr bool is_flat_value =
    std::is_arithmetic_v<T> || std::is_enum_v<T> || is_node_handle<T> || is_handle_list<T>;

template <class... F>
constexpr bool all_flat(reflect::FieldList<F...>) {
  return ((F::kind == reflect::FieldKind::Ignore || is_flat_value<typename F::value_type>)&&...);
}
template <class N>
inline constexpr bool is_flat_kind =
    !std::is_same_v<N, ir::Function> && all_flat(reflect::FieldsOf<N>{});

/// A scalar's record bits: 64-bit integers and doubles (by bits: -0.0 != 0.0, NaN payloads
/// kept) fill two words, everything else one.
template <class T>
inline constexpr bool is_wide_scalar =
    !std::is_enum_v<T> && (std::is_same_v<T, double> || sizeof(T) == 8);
template <class T>
std::uint64_t scalar_bits(const T& v) {
  if constexpr (std::is_same_v<T, double>)
    return std::bit_cast<std::uint64_t>(v);
  else if constexpr (std::is_enum_v<T> || !is_wide_scalar<T>)
    return static_cast<std::uint32_t>(v);
  else
    return static_cast<std::uint64_t>(v);
}

/// The sink calls of one field F of a flat node (none for an Ignore field).
template <class F, class Sink, class N>
[[gnu::always_inline]] inline void encode_flat_field(const N& n, Sink& sink) {
  if constexpr (F::kind != reflect::FieldKind::Ignore) {
    const auto& v = F::get(n);
    if constexpr (is_node_handle<typename F::value_type>) {
      if (v)
        sink.put_child(v.get(), position_of<F>());
      else
        sink.put_word(kNullWord);
    } else if constexpr (is_handle_list<typename F::value_type>) {
      sink.put_word(static_cast<std::uint32_t>(v.size()));
      for (const auto& e : v) {
        if (e)
          sink.put_child(e.get(), position_of<F>());
        else
          sink.put_word(kNullWord);
      }
    } else {
      sink.put_value(v);
    }
  }
}

/// The sink calls of a flat node's fields, in descriptor order.
template <class Sink, class N>
void encode_flat(const N& n, Sink& sink) {
  [&]<class... F>(reflect::FieldList<F...>) {
    (encode_flat_field<F>(n, sink), ...);
  }(reflect::FieldsOf<N>{});
}

/// Two children at the same place of two nodes being compared.
struct ChildPair {
  const Node* lhs;
  const Node* rhs;
  Position pos;
};

/// Compares one field F of two flat nodes: scalars by their record bits, child handles by
/// presence (the pair is appended to `pairs`).
template <class F, class N>
[[gnu::always_inline]] inline bool compare_flat_field(const N& a, const N& b,
                                                      ::pypto::detail::PodStack<ChildPair>& pairs) {
  if constexpr (F::kind == reflect::FieldKind::Ignore) {
    return true;
  } else {
    const auto& x = F::get(a);
    const auto& y = F::get(b);
    if constexpr (is_node_handle<typename F::value_type>) {
      if (!x || !y) return !x && !y;
      using T = typename F::value_type::element_type;
      if constexpr (std::is_base_of_v<T, ir::ScalarType>) {
        // A scalar type (every scalar expression has one) resolves at once: by its dtype.
        const bool sx = x->kind() == NodeKind::ScalarType, sy = y->kind() == NodeKind::ScalarType;
        if (sx || sy)
          return sx && sy &&
                 static_cast<const ir::ScalarType&>(*x).dtype ==
                     static_cast<const ir::ScalarType&>(*y).dtype;
      }
      pairs.push_back({x.get(), y.get(), position_of<F>()});
      return true;
    } else if constexpr (is_handle_list<typename F::value_type>) {
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!x[i] || !y[i]) {
          if (x[i] || y[i]) return false;
          continue;
        }
        pairs.push_back({x[i].get(), y[i].get(), position_of<F>()});
      }
      return true;
    } else {
      return scalar_bits(x) == scalar_bits(y);
    }
  }
}

/// Compares two flat nodes of kind N field by field; the child pairs are appended to `pairs`.
template <class N>
bool compare_flat(const N& a, const N& b, ::pypto::detail::PodStack<ChildPair>& pairs) {
  return [&]<class... F>(reflect::FieldList<F...>) {
    return (compare_flat_field<F>(a, b, pairs) && ...);
  }(reflect::FieldsOf<N>{});
}

/// A non-null child met while encoding: the node and how it is reached.
struct Child {
  const Node* node;
  Position pos;
};

/// Thrown inside the walk; the projector attaches the path of the node being encoded.
struct UnsupportedHere {
  std::string reason;
};

/// The sink of the projection. In one pass over the fields it hashes (and, when interning,
/// writes) the record's scalar words — a kChildWord where a child goes — and lists the
/// children; their numbers (or hashes) are appended once they are projected.
struct ScalarSink {
  ::pypto::detail::PodStack<std::uint32_t>& words;
  ::pypto::detail::PodStack<Child>& children;
  bool keep_words = true;
  std::uint64_t h = 0;

  // The flat kinds' folds and the walks call these, always inlined; the generic field walk calls
  // the sink interface below, inlined at the compiler's discretion (forcing it there too cost
  // ~0.8 s of compile time in a TU using equal and hash).
  [[gnu::always_inline]] void put_word(std::uint32_t w) {
    // One sink type for every walk keeps the 71-kind field walk instantiated once (one copy
    // per mode dominated compile time); the hash walk just skips the words.
    if (keep_words) words.push_back(w);
    h = mix(h, w);
  }
  template <class T>
  [[gnu::always_inline]] void put_value(const T& v) {
    if constexpr (std::is_same_v<T, std::string>) {
      put_word(static_cast<std::uint32_t>(v.size()));
      for (std::size_t i = 0; i < v.size(); i += 4) {
        std::uint32_t w = 0;
        std::memcpy(&w, v.data() + i, std::min<std::size_t>(4, v.size() - i));
        put_word(w);
      }
    } else if constexpr (is_wide_scalar<T>) {
      put_word(static_cast<std::uint32_t>(scalar_bits(v)));
      put_word(static_cast<std::uint32_t>(scalar_bits(v) >> 32));
    } else {
      put_word(static_cast<std::uint32_t>(scalar_bits(v)));
    }
  }
  [[gnu::always_inline]] void put_child(const Node* n, Position p) {
    children.push_back({n, p});
    put_word(kChildWord);
  }

  void word(std::uint32_t w) { put_word(w); }
  void word64(std::uint64_t v) {
    put_word(static_cast<std::uint32_t>(v));
    put_word(static_cast<std::uint32_t>(v >> 32));
  }
  template <class F>
  void begin_field() {}
  void end_field() {}
  void list(std::size_t n) { put_word(static_cast<std::uint32_t>(n)); }
  void begin_element(std::size_t) {}
  void begin_symbol(std::size_t) {}
  void end_element() {}
  void begin_key(std::string_view) {}
  void end_key() {}
  void presence(bool p) { put_word(p ? 1 : 0); }
  template <class T>
  void value(const T& v) {
    put_value(v);
  }
  void attr_kind(std::size_t index) { put_value(static_cast<std::uint32_t>(index)); }
  void enum_value(const ir::EnumValue& e) {
    put_value(static_cast<std::uint32_t>(e.enum_id));
    put_value(e.value);
  }
  void child(const Node* n, Position p) { put_child(n, p); }
  void null() { put_word(kNullWord); }
  void unsupported(const std::string& reason) { throw UnsupportedHere{reason}; }
};

/// The generic field walk (lists, optionals, strings, attrs, views), out of line so that the
/// flat kinds' dispatch stays lean.
[[gnu::noinline]] inline void encode_walked(const Node& node, ScalarSink& sink) {
  ir::visit(node, [&](const auto& concrete) { encode_concrete(concrete, sink); });
}

/// The field walk of one concrete kind N.
template <class N>
void encode_kind(const Node& node, ScalarSink& sink) {
  if constexpr (is_flat_kind<N>)
    encode_flat(static_cast<const N&>(node), sink);
  else
    encode_walked(node, sink);
}

/// encode_kind of every kind, indexed by kind: one small function per kind called through the
/// table cost ~15% fewer instructions per node than one function switching over all kinds
/// (whose prologue and register pressure every node paid).
inline constexpr void (*kEncodeByKind[])(const Node&, ScalarSink&) = {
#define PYPTO_X(T) &encode_kind<ir::T>,
    PYPTO_IR_NODES(PYPTO_X)
#undef PYPTO_X
};
static_assert(std::size(kEncodeByKind) == ir::kNodeKindCount);

/// The field walk of the projection (each kind's walk compiled once for all walks).
inline void encode_scalars(const Node& node, ScalarSink& sink) {
  kEncodeByKind[static_cast<std::size_t>(node.kind())](node, sink);
}

/// Scratch tables for comparing two nodes by their encoded words.
struct CompareScratch {
  ::pypto::detail::PodStack<std::uint32_t> lhs_words, rhs_words;
  ::pypto::detail::PodStack<Child> lhs_children, rhs_children;
  std::size_t bytes() const {
    return (lhs_words.capacity() + rhs_words.capacity()) * 4 +
           (lhs_children.capacity() + rhs_children.capacity()) * sizeof(Child);
  }
};

/// Compares two nodes of one kind by their encoded words; the child pairs are appended.
[[gnu::noinline]] inline bool compare_walked(const Node& a, const Node& b,
                                             ::pypto::detail::PodStack<ChildPair>& pairs,
                                             CompareScratch& scratch) {
  auto &wa = scratch.lhs_words, &wb = scratch.rhs_words;
  auto &ca = scratch.lhs_children, &cb = scratch.rhs_children;
  wa.clear();
  wb.clear();
  ca.clear();
  cb.clear();
  ScalarSink sa{wa, ca, true}, sb{wb, cb, true};
  encode_walked(a, sa);
  encode_walked(b, sb);
  if (wa.size() != wb.size() || ca.size() != cb.size() ||
      std::memcmp(wa.data(), wb.data(), wa.size() * 4) != 0)
    return false;
  for (std::size_t i = 0; i < ca.size(); ++i) {
    if (ca[i].pos != cb[i].pos) return false;
    pairs.push_back({ca[i].node, cb[i].node, ca[i].pos});
  }
  return true;
}

/// The field comparison of one concrete kind N: flat kinds field by field, others by their
/// encoded words; the child pairs are appended to `pairs`.
template <class N>
bool compare_kind(const Node& a, const Node& b, ::pypto::detail::PodStack<ChildPair>& pairs,
                  CompareScratch& scratch) {
  if constexpr (is_flat_kind<N>)
    return compare_flat(static_cast<const N&>(a), static_cast<const N&>(b), pairs);
  else
    return compare_walked(a, b, pairs, scratch);
}

using CompareFn = bool (*)(const Node&, const Node&, ::pypto::detail::PodStack<ChildPair>&,
                           CompareScratch&);

/// compare_kind of every kind, indexed by kind (a table, as for encode_scalars).
inline constexpr CompareFn kCompareByKind[] = {
#define PYPTO_X(T) &compare_kind<ir::T>,
    PYPTO_IR_NODES(PYPTO_X)
#undef PYPTO_X
};
static_assert(std::size(kCompareByKind) == ir::kNodeKindCount);

/// Compares the fields of two nodes of one kind (`a`'s).
inline bool compare_fields(const Node& a, const Node& b,
                           ::pypto::detail::PodStack<ChildPair>& pairs, CompareScratch& scratch) {
  return kCompareByKind[static_cast<std::size_t>(a.kind())](a, b, pairs, scratch);
}

// ---- function contexts ------------------------------------------------------------------------

inline constexpr std::uint64_t kUnset = ~std::uint64_t{0};

/// What a Var is bound to in a function context.
struct Binding {
  std::uint32_t number = 0;
  Tag use = Tag::Ref;  ///< Ref (defined), FreeNumbered (auto-mapped) or Implicit (resource)
};

/// The function contexts of one walk, innermost last: binding numbers, and the memo of shared
/// nodes (use_count > 1) holding a `Memo` each. Each Function of a Program is its own context.
/// Home slots of Vars in a binding table: runs of 32 consecutive creation numbers share a block
/// of 32 slots (8 cache lines), blocks placed by Fibonacci hashing. Vars are created, defined
/// and used mostly in program order, so the Vars in use at a time share a few blocks: on a
/// million-node function, address hashing missed the cache at nearly every definition (hash
/// 31 -> 20 ns/node, equal 38 -> 21). Keys are still compared by address, so Vars sharing a
/// creation number (a copied Var) only share a home slot.
struct VarSlot {
  static constexpr unsigned kRun = 5;  // log2 of the run of creation numbers sharing a block
  static std::size_t slot(const void* key, unsigned shift) {
    const std::uint64_t uid = static_cast<const ir::Var*>(static_cast<const Node*>(key))->uid;
    const std::uint64_t block =
        shift + kRun < 64 ? ((uid >> kRun) * 0x9e3779b97f4a7c15ULL) >> (shift + kRun) : 0;
    return static_cast<std::size_t>((block << kRun) | (uid & ((1u << kRun) - 1)));
  }
};

template <class Memo>
class Contexts {
 public:
  struct Context {
    ::pypto::detail::PointerMap<Binding, VarSlot> bindings;  // keys are Vars
    ::pypto::detail::PointerMap<Memo> memo;                  // shared nodes (use_count > 1) only
    std::uint32_t next_binding = 0;
    std::uint32_t next_free = 0;
    std::vector<std::uint64_t> free_values, implicit_values;  // by number, see use_value
  };

  Context& current() { return contexts_[depth_ - 1]; }
  void reset() { depth_ = 0; }
  void open() {
    if (contexts_.size() < depth_ + 1) contexts_.emplace_back();
    Context& c = contexts_[depth_++];
    c.bindings.clear();
    c.memo.clear();
    c.next_binding = c.next_free = 0;
    c.free_values.clear();
    c.implicit_values.clear();
  }
  void close() { --depth_; }

  /// The value of every use of a free-numbered or implicit binding: its first use is walked
  /// (its record holds the Var's type and storage fields), later uses repeat the value. kUnset
  /// until the first use is done. (Uses of defined Vars need no cache: their record is a leaf.)
  std::uint64_t& use_value(const Binding& b) {
    auto& values = b.use == Tag::FreeNumbered ? current().free_values : current().implicit_values;
    if (values.size() <= b.number) values.resize(b.number + 1, kUnset);
    return values[b.number];
  }

  /// The binding of a Var used outside a Def position: if it has none yet, an implicit
  /// resource binding (`resource`) or, under auto-mapping, a free Var, numbered at first use.
  Binding& use_binding(const Node* var, bool resource) {
    Context& c = current();
    if (Binding* b = c.bindings.find(var)) return *b;
    return *c.bindings
                .insert(var, resource ? Binding{c.next_binding++, Tag::Implicit}
                                      : Binding{c.next_free++, Tag::FreeNumbered})
                .first;
  }

  /// Binds the Var of a Def position to the context's next number, unless it is bound already.
  Binding& define(const Node* var) {
    Context& c = current();
    auto [binding, fresh] = c.bindings.insert(var, Binding{c.next_binding, Tag::Ref});
    if (fresh) ++c.next_binding;
    return *binding;
  }

  /// A Function opens its own context and numbers its parameters, then its signature symbols,
  /// before anything of it is walked. Returns how many signature symbols it has.
  std::size_t reserve_signature(const ir::Function& fn) {
    open();
    for (const auto& p : fn.params) define(p.get());
    const std::vector<ir::VarRef> symbols = signature_symbols(fn);
    for (const auto& s : symbols) define(s.get());
    return symbols.size();
  }

  std::size_t bytes() const {
    std::size_t n = 0;
    for (const auto& c : contexts_) n += c.bindings.bytes() + c.memo.bytes();
    return n;
  }

 private:
  std::vector<Context> contexts_;
  std::size_t depth_ = 0;
};

// ---- the projector ----------------------------------------------------------------------------

/// The canonical projection: every record interned in an Arena, so equal records get equal
/// numbers. It decides equality when the lockstep walk cannot, and reports unsupported IR with
/// its path. With Trace, it also keeps, for every visit, the node, its record and its children's
/// visits, for first-mismatch diagnostics.
template <bool Trace = false>
class Projector {
 public:
  /// One visit of a node: its record (number or hash) and its children's visits.
  struct Event {
    const Node* node = nullptr;
    Position pos = Position::Usual;
    Tag tag = Tag::Node;
    std::uint64_t value = 0;
    std::uint32_t binding = 0;       ///< binding / free number for Var records
    std::uint32_t alias = kNoEvent;  ///< a memo hit: the visit that projected the node
    std::uint32_t first_link = 0, link_count = 0;
  };
  static constexpr std::uint32_t kNoEvent = 0xffffffffu;

  Projector(Arena* arena, bool auto_mapping) : arena_(arena), auto_mapping_(auto_mapping) {
    // Stacks that hold up to one entry per node grow by half (peak memory is bounded per node).
    values_.set_growth_percent(50);
    children_.set_growth_percent(50);
    words_.set_growth_percent(50);
  }

  /// The record number of `root`, projected in a fresh root context.
  std::uint64_t project(const Node& root) {
    start(root);
    while (step()) {
    }
    return result();
  }

  /// The projection in steps: start, step until false (each step enters or leaves one node),
  /// then result.
  void start(const Node& root) {
    contexts_.reset();
    open_context();
    frames_.clear();
    values_.resize(1);
    values_[0] = 0;
    if constexpr (Trace) {
      value_events_.resize(1);
      value_events_[0] = kNoEvent;
    }
    push(&root, Position::Usual, kNoFrame, 0, 0, 1);
  }
  bool step() {
    if (frames_.empty()) return false;
    const auto top = static_cast<std::uint32_t>(frames_.size() - 1);
    if (!frames_[top].entered)
      enter(top);
    else
      advance(top);
    return true;
  }
  std::uint64_t result() {
    close_context();
    if constexpr (Trace) root_event_ = value_events_[0];
    return values_[0];
  }

  /// Bytes held by the projector's tables (for the memory benchmark; the arena counts apart).
  std::size_t bytes() const {
    std::size_t n = frames_.capacity() * sizeof(Frame) + values_.capacity() * 8 +
                    value_events_.capacity() * 4 + children_.capacity() * sizeof(Child) +
                    words_.capacity() * 4 + scalar_types_.capacity() * 8 +
                    events_.capacity() * sizeof(Event) + links_.capacity() * 4;
    return n + contexts_.bytes();
  }

  const std::vector<Event>& events() const { return events_; }
  const std::vector<std::uint32_t>& links() const { return links_; }
  std::uint32_t root_event() const { return root_event_; }

 private:
  static constexpr std::uint32_t kNoFrame = 0xffffffffu;

  struct Frame {
    Frame(const Node* n, std::uint32_t parent_frame, std::uint32_t child_ordinal,
          std::uint32_t nesting, std::uint32_t result_slot, Position position, Tag record_tag)
        : node(n),
          parent(parent_frame),
          ordinal(child_ordinal),
          depth(nesting),
          slot(result_slot),
          pos(position),
          tag(record_tag) {}

    const Node* node;
    std::uint64_t h = 0;    ///< hash of the record's scalar words
    std::uint32_t parent;   ///< frame index of the parent, for paths
    std::uint32_t ordinal;  ///< which child of the parent
    std::uint32_t depth;
    std::uint32_t slot;                  ///< where the result goes in values_
    std::uint32_t first = 0, count = 0;  ///< the children's slots in values_
    std::uint32_t child_begin = 0;       ///< the children themselves in children_
    std::uint32_t next = 0;              ///< the next child to resolve
    std::uint32_t word_begin = 0;        ///< the record's words in words_
    std::uint32_t binding = 0;
    Position pos;
    Tag tag;
    bool entered = false;
  };

  /// A memoised shared node.
  struct Memo {
    std::uint64_t value = 0;
    std::uint32_t event = kNoEvent;
  };
  using Context = typename Contexts<Memo>::Context;

  Context& context() { return contexts_.current(); }
  void open_context() { contexts_.open(); }
  void close_context() { contexts_.close(); }

  /// Finishes a record whose scalar words hash to `h` and start at words_[begin]: the children's
  /// hashes (never their numbers) join the hash, their numbers join the words.
  std::uint64_t finish(std::uint64_t h, std::uint32_t begin, const std::uint64_t* children,
                       std::uint32_t count) {
    for (std::uint32_t i = 0; i < count; ++i) {
      h = mix(h, arena_->hash(static_cast<std::uint32_t>(children[i])));
      words_.push_back(static_cast<std::uint32_t>(children[i]));
    }
    const std::size_t n = words_.size() - begin;
    const std::uint64_t v = arena_->intern(words_.data() + begin, n, core::hash_mix(h ^ n));
    words_.resize(begin);
    return v;
  }

  /// A record without children: the header and one or two payload words.
  std::uint64_t leaf(NodeKind k, Tag t, std::uint64_t payload, bool wide) {
    const auto begin = static_cast<std::uint32_t>(words_.size());
    ScalarSink sink{words_, children_, true};
    sink.word(header(k, t));
    if (wide)
      sink.word64(payload);
    else
      sink.word(static_cast<std::uint32_t>(payload));
    return finish(sink.h, begin, nullptr, 0);
  }

  void set_value(std::uint32_t slot, std::uint64_t v, std::uint32_t event) {
    values_[slot] = v;
    if constexpr (Trace) value_events_[slot] = event;
  }

  std::uint32_t add_event(const Node* n, Position p, Tag t, std::uint64_t v, std::uint32_t binding,
                          std::uint32_t alias = kNoEvent) {
    if constexpr (Trace) {
      events_.push_back({n, p, t, v, binding, alias, 0, 0});
      return static_cast<std::uint32_t>(events_.size() - 1);
    } else {
      return kNoEvent;
    }
  }

  /// Resolves a child: a value at once (a Var use, a memo hit, a scalar type), or a frame to be
  /// entered. Returns true when it pushed a frame.
  bool push(const Node* n, Position pos, std::uint32_t parent, std::uint32_t ordinal,
            std::uint32_t slot, std::uint32_t depth) {
    const NodeKind kind = n->kind();
    if (kind == NodeKind::ScalarType) {
      // Every expression has one; shared per dtype. Projected once per call, without a frame.
      const auto dtype = core::code(static_cast<const ir::ScalarType&>(*n).dtype);
      if (scalar_types_[dtype] == kUnset)
        scalar_types_[dtype] = leaf(kind, Tag::Node, dtype, false);
      set_value(slot, scalar_types_[dtype], add_event(n, pos, Tag::Node, scalar_types_[dtype], 0));
      return false;
    }
    if (ir::kinds::var.contains(kind)) {
      if (pos == Position::Def) {
        frames_.push_back(Frame(n, parent, ordinal, depth, slot, pos, Tag::Def));
        return true;
      }
      Context& ctx = context();
      Binding* b = ctx.bindings.find(n);
      if (b && b->use == Tag::Ref) {
        const std::uint64_t v = leaf(NodeKind::Var, Tag::Ref, b->number, false);
        set_value(slot, v, add_event(n, pos, Tag::Ref, v, b->number));
        return false;
      }
      if (!b) {
        const bool resource = pos == Position::ResourceBase || kind == NodeKind::WindowBuffer;
        if (!resource && !auto_mapping_) {
          const std::uint64_t v =
              leaf(NodeKind::Var, Tag::FreeIdentity, static_cast<const ir::Var&>(*n).uid, true);
          set_value(slot, v, add_event(n, pos, Tag::FreeIdentity, v, 0));
          return false;
        }
        b = &contexts_.use_binding(n, resource);
      }
      // Every use of such a Var has the same record — its number and its type (and storage
      // fields) — so sharing a subexpression or a descriptor never changes the records.
      if (const std::uint64_t v = contexts_.use_value(*b); v != kUnset) {
        set_value(slot, v, add_event(n, pos, b->use, v, b->number));
        return false;
      }
      Frame f(n, parent, ordinal, depth, slot, pos, b->use);
      f.binding = b->number;
      frames_.push_back(f);
      return true;
    }
    if (n->use_count() > 1) {
      if (const Memo* m = context().memo.find(n)) {
        set_value(slot, m->value, add_event(n, pos, Tag::Node, m->value, 0, m->event));
        return false;
      }
    }
    frames_.push_back(Frame(n, parent, ordinal, depth, slot, pos, Tag::Node));
    return true;
  }

  /// Hashes (and, interning, writes) the node's scalars, then pushes its children: values
  /// resolve at once; frames are pushed last to first so that they are entered first to first.
  /// Any order that depends only on the structure numbers free and implicit bindings alike on
  /// both sides; Def numbers are taken when a frame is entered, in walk order.
  void enter(std::uint32_t index) {
    Frame& f = frames_[index];
    f.entered = true;
    if (f.depth > kMaxNesting) fail_nesting(index);
    if (f.tag == Tag::Def) f.binding = contexts_.define(f.node).number;
    if (f.node->kind() == NodeKind::Function)
      contexts_.reserve_signature(static_cast<const ir::Function&>(*f.node));
    f.word_begin = static_cast<std::uint32_t>(words_.size());
    f.child_begin = static_cast<std::uint32_t>(children_.size());
    ScalarSink sink{words_, children_, true};
    sink.word(header(f.node->kind(), f.tag));
    if (f.tag != Tag::Node) sink.word(f.binding);
    if (f.tag == Tag::FreeNumbered) {
      sink.child(static_cast<const ir::Var&>(*f.node).type.get(), Position::Usual);
    } else {
      try {
        encode_scalars(*f.node, sink);
      } catch (const UnsupportedHere& u) {
        fail_unsupported(index, u.reason);
      }
    }
    f.h = sink.h;
    f.first = static_cast<std::uint32_t>(values_.size());
    f.count = static_cast<std::uint32_t>(children_.size()) - f.child_begin;
    values_.resize(f.first + f.count);
    if constexpr (Trace) value_events_.resize(f.first + f.count);
    advance(index);
  }

  /// Resolves the frame's children in order until one needs a frame of its own (which is then
  /// on top; this frame continues when it is done), or finishes the frame. Children are pushed
  /// one at a time, so the frame stack is as deep as the IR, never as wide as a statement list.
  void advance(std::uint32_t index) {
    while (true) {
      Frame& f = frames_[index];
      if (f.next == f.count) return exit(index);
      const std::uint32_t i = f.next++;
      const Child c = children_[f.child_begin + i];
      if (push(c.node, c.pos, index, i, f.first + i, f.depth + 1)) return;  // f may dangle now
    }
  }

  /// All children are done: finish the record and hand it to the parent.
  void exit(std::uint32_t index) {
    const Frame& f = frames_[index];
    const std::uint64_t v = finish(f.h, f.word_begin, values_.data() + f.first, f.count);
    std::uint32_t event = kNoEvent;
    if constexpr (Trace) {
      event = add_event(f.node, f.pos, f.tag, v, f.binding);
      events_[event].first_link = static_cast<std::uint32_t>(links_.size());
      events_[event].link_count = f.count;
      for (std::uint32_t i = 0; i < f.count; ++i) links_.push_back(value_events_[f.first + i]);
    }
    if (f.tag == Tag::Node && f.node->use_count() > 1)
      context().memo.insert(f.node, Memo{v, event});
    if (f.tag == Tag::FreeNumbered || f.tag == Tag::Implicit)
      contexts_.use_value(*context().bindings.find(f.node)) = v;
    if (f.node->kind() == NodeKind::Function) close_context();
    children_.resize(f.child_begin);
    values_.resize(f.first);
    if constexpr (Trace) value_events_.resize(f.first);
    set_value(f.slot, v, event);
    frames_.pop_back();
  }

  /// Reports `reason` at the field of frame `index`'s node where the encoder met it.
  [[noreturn]] void fail_unsupported(std::uint32_t index, const std::string& reason) const;

  [[noreturn]] void fail_nesting(std::uint32_t index) {
    for (std::uint32_t p = frames_[index].parent; p != kNoFrame; p = frames_[p].parent)
      if (frames_[p].node == frames_[index].node)
        throw StructuralComparisonUnsupported("the IR contains a cycle", path_to(index));
    throw StructuralComparisonUnsupported(
        "node or type nesting deeper than " + std::to_string(kMaxNesting) + " levels",
        path_to(index));
  }

  std::string path_to(std::uint32_t index) const;

  Arena* arena_ = nullptr;
  bool auto_mapping_;
  ::pypto::detail::PodStack<Frame> frames_;
  ::pypto::detail::PodStack<std::uint64_t> values_;
  ::pypto::detail::PodStack<std::uint32_t> value_events_;
  ::pypto::detail::PodStack<Child> children_;
  ::pypto::detail::PodStack<std::uint32_t> words_;
  std::vector<std::uint64_t> scalar_types_ = std::vector<std::uint64_t>(256, kUnset);
  Contexts<Memo> contexts_;
  std::vector<Event> events_;
  std::vector<std::uint32_t> links_;
  std::uint32_t root_event_ = kNoEvent;
};

// ---- reused tables ----------------------------------------------------------------------------

/// The tables of a walk (W: Hasher or Lockstep), kept per thread between calls and borrowed for
/// one call: on large functions, faulting in fresh pages for them on every call cost about a
/// third of the call. What stays allocated is bounded by the largest walk the thread has done;
/// a pointer map left mostly empty by a call is released at the next one. A nested borrow gets
/// fresh tables.
template <class W>
class Borrowed {
 public:
  Borrowed() {
    if (busy())
      owned_ = std::make_unique<W>();
    else
      busy() = true;
  }
  ~Borrowed() {
    if (!owned_) busy() = false;
  }
  Borrowed(const Borrowed&) = delete;
  Borrowed& operator=(const Borrowed&) = delete;
  W* operator->() { return owned_ ? owned_.get() : &cached(); }

 private:
  static W& cached() {
    thread_local W w;
    return w;
  }
  static bool& busy() {
    thread_local bool b = false;
    return b;
  }
  std::unique_ptr<W> owned_;
};

// ---- the hash ---------------------------------------------------------------------------------

/// Raised by the fast walks where the projector must take over: it reports the error with its
/// path (nesting too deep, a cycle, an unsupported attribute).
struct HandOver {};

/// The hash-only projection: the projector's records, hashed and never stored. A node's
/// children that resolve at once (scalar types, bound Vars, memo hits) are hashed when it is
/// entered, up to the first that needs a walk of its own; when none does, the node is finished
/// on the spot (no frame), otherwise a frame over its encoded children waits on an explicit
/// stack (as deep as the IR). The values are those the projector's hash mode computed: a
/// record's hash combines its header, scalar words and its children's hashes in order.
class Hasher {
 public:
  Hasher() { std::fill(std::begin(scalar_types_), std::end(scalar_types_), kUnset); }

  /// The hash of `root` in a fresh root context; throws HandOver on IR the projector must
  /// report.
  std::uint64_t run(const Node& root, bool auto_mapping) {
    auto_mapping_ = auto_mapping;
    census_ = Census{};
    stream_exact_ = true;
    ordinals_.clear();
    frames_.clear();
    children_.clear();
    values_.clear();
    contexts_.reset();
    contexts_.open();
    visit(&root, Position::Usual, 1, false);
    while (!frames_.empty()) {
      Frame& f = frames_.back();
      if (f.next == f.end) {
        const Frame done = f;
        frames_.pop_back();
        children_.resize(done.begin);
        finish(done.node, done.h, done.end - done.begin, done.tag);
        continue;
      }
      const bool checked = f.next == f.checked;
      const Child c = children_[f.next++];
      visit(c.node, c.pos, f.depth + 1, checked);  // f may dangle now
    }
    contexts_.close();
    return values_[0];
  }

  /// What the last run walked (census.hpp; fingerprint() hands it out): the records it finished
  /// (each node walked once, shared nodes once per context), how many of each kind, and the free
  /// Vars it met without auto-mapping.
  using Census = FingerprintCensus;
  const Census& census() const { return census_; }

  /// Told of every node a run walks (each once per context, as the census counts them), so a
  /// caller that needs a fact of every node (the dedup index: references, through fingerprint())
  /// gets it from the hash walk instead of walking again.
  using Observer = FingerprintObserver;
  /// Observes the runs until reset with nullptr.
  void observe(Observer* o) { observer_ = o; }

  /// Appends to `stream`, until reset with nullptr, a serialization of each run of a Function
  /// root: the walk's decisions in walk order, each a token whose first word tells its kind and
  /// length — a walked record (its word and child counts, then its words: header, binding,
  /// scalars, a kChildWord where a child goes), followed by its children's tokens; or a child
  /// resolved at once (a dtype, a bound Var's number, a memo hit as the ordinal of the record it
  /// repeats, a free Var's identity). Every token delimits itself, so equal streams parse into
  /// the same walk: the records the projection would intern are the same, and the roots are
  /// structurally equal, exactly (no hash involved). Equal roots with the same sharing give equal
  /// streams. `stream_exact()` is false when the run met what the stream does not encode exactly
  /// (a nested Function, a repeated use of a free-numbered or implicit binding): its stream must
  /// not be compared.
  void record(::pypto::detail::PodStack<std::uint32_t>* stream) { stream_ = stream; }
  bool stream_exact() const { return stream_exact_; }

  /// A token's first word: a kind in the top four bits and, in the short form, its value in the
  /// other 28 (a record's word count in bits 14-27 and child count in bits 0-13); the long form
  /// (kind kLong, the token kind in the low bits) carries its values in the words after it.
  enum TokenKind : std::uint32_t { kRecord = 1, kBound = 2, kMemo = 3, kDtype = 4, kFree = 5 };
  static constexpr std::uint32_t kLong = 0xf;

  /// Bytes held by the walk's tables.
  std::size_t bytes() const {
    return frames_.capacity() * sizeof(Frame) + values_.capacity() * 8 +
           children_.capacity() * sizeof(Child) + contexts_.bytes();
  }

 private:
  /// A node whose children are being walked: they are children_[begin, end), the values of
  /// those before `next` are on values_; child `checked` is known to need a walk of its own.
  struct Frame {
    const Node* node;
    std::uint64_t h;  ///< the hash of the record's scalar words
    std::uint32_t begin, next, end, checked;
    std::uint32_t depth;
    Tag tag;
  };

  static std::uint64_t leaf(NodeKind k, Tag t, std::uint64_t payload, bool wide) {
    std::uint64_t h = mix(0, header(k, t));
    h = mix(h, static_cast<std::uint32_t>(payload));
    if (wide) h = mix(h, static_cast<std::uint32_t>(payload >> 32));
    return core::hash_mix(h);
  }

  /// The value of a node that needs no walk of its own (and takes no number), pushed; false
  /// when it needs one.
  bool immediate(const Node* n, Position pos) {
    const NodeKind kind = n->kind();
    if (kind == NodeKind::ScalarType) {
      const auto dtype = core::code(static_cast<const ir::ScalarType&>(*n).dtype);
      if (scalar_types_[dtype] == kUnset)
        scalar_types_[dtype] = leaf(kind, Tag::Node, dtype, false);
      values_.push_back(scalar_types_[dtype]);
      token(kDtype, dtype);
      return true;
    }
    if (ir::kinds::var.contains(kind)) {
      if (pos == Position::Def) return false;
      if (const Binding* b = contexts_.current().bindings.find(n)) {
        if (b->use == Tag::Ref) {
          values_.push_back(leaf(NodeKind::Var, Tag::Ref, b->number, false));
          token(kBound, b->number);
          return true;
        }
        const std::uint64_t v = contexts_.use_value(*b);
        if (v == kUnset) return false;
        values_.push_back(v);
        stream_exact_ = false;  // the stream would need the first use's ordinal
        return true;
      }
      if (pos == Position::ResourceBase || kind == NodeKind::WindowBuffer || auto_mapping_)
        return false;
      ++census_.free_vars;
      const std::uint64_t uid = static_cast<const ir::Var&>(*n).uid;
      values_.push_back(leaf(NodeKind::Var, Tag::FreeIdentity, uid, true));
      if (stream_) {
        stream_->push_back(kLong << 28 | kFree);
        stream_->push_back(static_cast<std::uint32_t>(uid));
        stream_->push_back(static_cast<std::uint32_t>(uid >> 32));
      }
      return true;
    }
    if (n->use_count() > 1) {
      if (const std::uint64_t* m = contexts_.current().memo.find(n)) {
        values_.push_back(*m);
        if (stream_) token(kMemo, *ordinals_.find(n));
        return true;
      }
    }
    return false;
  }

  void token(TokenKind kind, std::uint32_t value) {
    if (!stream_) return;
    if (value < (1u << 28)) {
      stream_->push_back(kind << 28 | value);
    } else {
      stream_->push_back(kLong << 28 | kind);
      stream_->push_back(value);
    }
  }

  /// The projector's `push` and `enter` for one node: its children that resolve at once are
  /// resolved in order up to the first that needs a walk; when none does, it is finished here.
  void visit(const Node* n, Position pos, std::uint32_t depth, bool checked) {
    if (!checked && immediate(n, pos)) return;
    if (observer_) observer_->walked(*n);
    const NodeKind kind = n->kind();
    Tag tag = Tag::Node;
    std::uint32_t binding = 0;
    if (ir::kinds::var.contains(kind)) {
      if (pos == Position::Def) {
        tag = Tag::Def;
      } else {
        const Binding& b = contexts_.use_binding(
            n, pos == Position::ResourceBase || kind == NodeKind::WindowBuffer);
        tag = b.use;
        binding = b.number;
      }
    }
    if (depth > kMaxNesting) throw HandOver{};
    if (tag == Tag::Def) binding = contexts_.define(n).number;
    if (kind == NodeKind::Function) {
      const std::size_t symbols = contexts_.reserve_signature(static_cast<const ir::Function&>(*n));
      if (depth == 1)
        census_.root_signature_symbols = symbols;
      else
        stream_exact_ = false;  // memo ordinals are per run, memo tables per Function
    }
    const auto begin = static_cast<std::uint32_t>(children_.size());
    std::size_t record_at = 0;
    if (stream_) {
      record_at = stream_->size();
      stream_->push_back(0);  // the record token, set below
    }
    ScalarSink sink{stream_ ? *stream_ : words_, children_, stream_ != nullptr};
    sink.put_word(header(kind, tag));
    if (tag != Tag::Node) sink.put_word(binding);
    if (tag == Tag::FreeNumbered) {
      sink.put_child(static_cast<const ir::Var&>(*n).type.get(), Position::Usual);
    } else {
      try {
        encode_scalars(*n, sink);
      } catch (const UnsupportedHere&) {
        throw HandOver{};
      }
    }
    const auto end = static_cast<std::uint32_t>(children_.size());
    if (stream_) record_token(record_at, end - begin);
    std::uint32_t next = begin;
    while (next < end && immediate(children_[next].node, children_[next].pos)) ++next;
    if (next < end) {
      frames_.push_back(Frame{n, sink.h, begin, next, end, next, depth, tag});
      return;
    }
    children_.resize(begin);
    finish(n, sink.h, end - begin, tag);
  }

  /// Sets the token of the record whose words follow stream position `at`: the short form when
  /// its counts fit, else the long form (its words move two places on).
  void record_token(std::size_t at, std::uint32_t children) {
    auto& st = *stream_;
    const std::size_t words = st.size() - at - 1;
    if (words < (1u << 14) && children < (1u << 14)) {
      st[at] = kRecord << 28 | static_cast<std::uint32_t>(words) << 14 | children;
      return;
    }
    st.resize(st.size() + 2);
    std::memmove(st.data() + at + 3, st.data() + at + 1, words * sizeof(std::uint32_t));
    st[at] = kLong << 28 | kRecord;
    st[at + 1] = static_cast<std::uint32_t>(words);
    st[at + 2] = children;
  }

  /// The projector's `exit`: the record's hash from its scalars and its children's values.
  void finish(const Node* n, std::uint64_t h, std::uint32_t count, Tag tag) {
    const std::size_t first = values_.size() - count;
    for (std::size_t i = first; i < values_.size(); ++i) h = mix(h, values_[i]);
    const std::uint64_t v = core::hash_mix(h ^ count);
    values_.resize(first);
    values_.push_back(v);
    ++census_.records;
    ++census_.kinds[static_cast<std::size_t>(n->kind())];
    if (tag == Tag::Node && n->use_count() > 1) {
      contexts_.current().memo.insert(n, v);
      if (stream_) *ordinals_.insert(n, 0).first = static_cast<std::uint32_t>(census_.records);
    }
    if (tag == Tag::FreeNumbered || tag == Tag::Implicit)
      contexts_.use_value(*contexts_.current().bindings.find(n)) = v;
    if (n->kind() == NodeKind::Function) contexts_.close();
  }

  bool auto_mapping_ = false;
  Contexts<std::uint64_t> contexts_;
  ::pypto::detail::PodStack<Frame> frames_;
  ::pypto::detail::PodStack<std::uint64_t> values_;
  ::pypto::detail::PodStack<Child> children_;
  ::pypto::detail::PodStack<std::uint32_t> words_;  // unused: the hash keeps no words
  std::uint64_t scalar_types_[256];                 // per dtype code; kUnset until first use
  Census census_;
  Observer* observer_ = nullptr;
  ::pypto::detail::PodStack<std::uint32_t>* stream_ = nullptr;
  bool stream_exact_ = true;
  ::pypto::detail::PointerMap<std::uint32_t> ordinals_;  // memoized node -> its record's ordinal
};

// ---- lockstep equality -----------------------------------------------------------------------

/// Structural equality walked on both sides at once: at each pair of nodes it takes the
/// projector's decisions on both sides (leaf, binding use, memo hit, frame) and requires them,
/// the binding numbers and the fields (flat kinds field by field, others by their encoded words)
/// to agree, then pairs the children in order; pairs that resolve at once are settled when
/// their parents are entered, and a pair with nothing left to walk takes no frame.
/// Everything that goes into a record is compared, in the projector's walk order, so when the
/// whole walk agrees the two sides would project to the same records: they are equal. Memo
/// entries hold the number of the pair's exit, the same on both sides while the walks agree.
/// `run` returns false when the walks diverge — a difference, a difference in sharing, or IR
/// the canonical projection must report (too deep, unsupported) — and the caller then decides
/// with the canonical projection. No hashing, no records kept: O(N) time, memory for the
/// binding and memo tables and the walk's stack.
class Lockstep {
 public:
  bool run(const Node& a, const Node& b, bool auto_mapping) {
    auto_mapping_ = auto_mapping;
    frames_.clear();
    pairs_.clear();
    lhs_.reset();
    rhs_.reset();
    lhs_.open();
    rhs_.open();
    if (!visit(&a, &b, Position::Usual, 1, false)) return false;
    while (!frames_.empty()) {
      Frame& f = frames_.back();
      if (f.next == f.end) {
        const Frame done = f;
        frames_.pop_back();
        pairs_.resize(done.begin);
        finish(done.lhs, done.rhs, done.tag);
        continue;
      }
      const bool checked = f.next == f.checked;
      const ChildPair c = pairs_[f.next++];
      if (!visit(c.lhs, c.rhs, c.pos, f.depth + 1, checked)) return false;  // f may dangle now
    }
    return true;
  }

  /// Bytes held by the walk's tables (for the memory benchmark).
  std::size_t bytes() const {
    return frames_.capacity() * sizeof(Frame) + pairs_.capacity() * sizeof(ChildPair) +
           lhs_.bytes() + rhs_.bytes() + scratch_.bytes();
  }

 private:
  /// A pair whose children are being walked: pairs_[begin, end); pair `checked` is known to
  /// need a walk of its own.
  struct Frame {
    const Node* lhs;
    const Node* rhs;
    std::uint32_t begin, next, end, checked;
    std::uint32_t depth;
    Tag tag;
  };

  enum Resolved { Differ, Same, Walk };

  /// A pair the projector would resolve without a walk (and without numbering) on both sides:
  /// Same or Differ; Walk when it needs one.
  [[gnu::always_inline]] Resolved immediate(const Node* a, const Node* b, Position pos) {
    const NodeKind kind = a->kind();
    if (kind != b->kind()) return Differ;
    if (kind == NodeKind::ScalarType)
      return static_cast<const ir::ScalarType&>(*a).dtype ==
                     static_cast<const ir::ScalarType&>(*b).dtype
                 ? Same
                 : Differ;
    if (ir::kinds::var.contains(kind)) {
      if (pos == Position::Def) return Walk;
      const Binding* ba = lhs_.current().bindings.find(a);
      const Binding* bb = rhs_.current().bindings.find(b);
      if (!ba != !bb) return Differ;
      if (!ba) {
        if (pos == Position::ResourceBase || kind == NodeKind::WindowBuffer || auto_mapping_)
          return Walk;
        return static_cast<const ir::Var&>(*a).uid == static_cast<const ir::Var&>(*b).uid ? Same
                                                                                          : Differ;
      }
      if (ba->use != bb->use || ba->number != bb->number) return Differ;
      if (ba->use == Tag::Ref) return Same;
      const std::uint64_t va = lhs_.use_value(*ba), vb = rhs_.use_value(*bb);
      if (va == kUnset && vb == kUnset) return Walk;
      return va == vb ? Same : Differ;
    }
    const bool shared_a = a->use_count() > 1, shared_b = b->use_count() > 1;
    if (shared_a || shared_b) {
      const std::uint64_t* ma = shared_a ? lhs_.current().memo.find(a) : nullptr;
      const std::uint64_t* mb = shared_b ? rhs_.current().memo.find(b) : nullptr;
      if (ma || mb) return ma && mb && *ma == *mb ? Same : Differ;
    }
    return Walk;
  }

  /// Both sides' `push` and `enter`: numbering, then the fields, compared; the child pairs that
  /// resolve at once are resolved up to the first that needs a walk; when none does, the pair is
  /// finished here. False when the sides disagree (or the canonical projection must report).
  bool visit(const Node* a, const Node* b, Position pos, std::uint32_t depth, bool checked) {
    if (!checked) {
      const Resolved r = immediate(a, b, pos);
      if (r != Walk) return r == Same;
    }
    if (depth > kMaxNesting) return false;  // the canonical projection reports it
    const NodeKind kind = a->kind();
    Tag tag = Tag::Node;
    if (ir::kinds::var.contains(kind)) {
      if (pos == Position::Def) {
        tag = Tag::Def;
        const Binding& ba = lhs_.define(a);
        const Binding& bb = rhs_.define(b);
        if (ba.number != bb.number || ba.use != bb.use) return false;
      } else {
        // First use of an implicit resource binding or (auto-mapping) a free Var: numbered now.
        const bool resource = pos == Position::ResourceBase || kind == NodeKind::WindowBuffer;
        const Binding& ba = lhs_.use_binding(a, resource);
        const Binding& bb = rhs_.use_binding(b, resource);
        if (ba.use != bb.use || ba.number != bb.number) return false;
        tag = ba.use;
      }
    }
    if (kind == NodeKind::Function) {
      lhs_.reserve_signature(static_cast<const ir::Function&>(*a));
      rhs_.reserve_signature(static_cast<const ir::Function&>(*b));
    }
    const auto begin = static_cast<std::uint32_t>(pairs_.size());
    if (tag == Tag::FreeNumbered) {
      pairs_.push_back({static_cast<const ir::Var&>(*a).type.get(),
                        static_cast<const ir::Var&>(*b).type.get(), Position::Usual});
    } else {
      try {
        if (!compare_fields(*a, *b, pairs_, scratch_)) return false;
      } catch (const UnsupportedHere&) {
        return false;  // the canonical projection reports it, with its path
      }
    }
    const auto end = static_cast<std::uint32_t>(pairs_.size());
    for (std::uint32_t next = begin; next < end; ++next) {
      const Resolved r = immediate(pairs_[next].lhs, pairs_[next].rhs, pairs_[next].pos);
      if (r == Differ) return false;
      if (r == Walk) {
        frames_.push_back(Frame{a, b, begin, next, end, next, depth, tag});
        return true;
      }
    }
    pairs_.resize(begin);
    finish(a, b, tag);
    return true;
  }

  /// Both sides' `exit`: the pair's number goes to the memo tables and binding caches.
  void finish(const Node* a, const Node* b, Tag tag) {
    const std::uint64_t v = ++exits_;
    if (tag == Tag::Node) {
      if (a->use_count() > 1) lhs_.current().memo.insert(a, v);
      if (b->use_count() > 1) rhs_.current().memo.insert(b, v);
    } else if (tag == Tag::FreeNumbered || tag == Tag::Implicit) {
      lhs_.use_value(*lhs_.current().bindings.find(a)) = v;
      rhs_.use_value(*rhs_.current().bindings.find(b)) = v;
    }
    if (a->kind() == NodeKind::Function) {
      lhs_.close();
      rhs_.close();
    }
  }

  bool auto_mapping_ = false;
  Contexts<std::uint64_t> lhs_, rhs_;
  ::pypto::detail::PodStack<Frame> frames_;
  ::pypto::detail::PodStack<ChildPair> pairs_;
  CompareScratch scratch_;
  std::uint64_t exits_ = 0;
};

// ---- paths ------------------------------------------------------------------------------------

/// Concatenates by appending (g++ 12 at -O3 reports a false -Wrestrict on `"x" + string`).
template <class... Parts>
std::string concat(const Parts&... parts) {
  std::string out;
  (out.append(parts), ...);
  return out;
}

/// A sink that renders, for each child ordinal, its path suffix relative to the node: field
/// names joined by '.', list elements as [i], SeqStmts transparent, program entries by name.
/// With `describe`, it also lists every scalar and child as a token, for diagnostics.
struct PathSink {
  struct Token {
    std::string path;
    bool is_child;
    std::string text;            ///< the scalar, printed (scalars only)
    std::uint32_t ordinal;       ///< which child (children only)
    const Node* node = nullptr;  ///< the child (children only)
  };
  std::vector<std::string> segments;
  std::vector<Token> tokens;
  std::uint32_t children = 0;
  bool describe = false;
  bool in_program_functions = false;

  std::string current() const {
    std::string s;
    for (const auto& seg : segments) s += seg;
    return s;
  }
  void token(std::string text) {
    if (describe) tokens.push_back({current(), false, std::move(text), 0, nullptr});
  }

  template <class F>
  void begin_field() {
    using Owner = typename F::owner;
    if constexpr (std::is_same_v<Owner, ir::SeqStmts> ||
                  (std::is_same_v<Owner, ir::Program> && F::name == "functions") ||
                  std::is_same_v<Owner, ir::NamedFunction>)
      segments.emplace_back();  // transparent: `body[2]`, `['main']`
    else
      segments.push_back(concat(".", F::name));
  }
  void end_field() { segments.pop_back(); }
  void list(std::size_t n) { token(concat("length ", std::to_string(n))); }
  void begin_element(std::size_t i) { segments.push_back(concat("[", std::to_string(i), "]")); }
  void begin_symbol(std::size_t i) {
    segments.push_back(concat("<signature symbol ", std::to_string(i), ">"));
  }
  void end_element() { segments.pop_back(); }
  void begin_key(std::string_view key) { segments.push_back(concat("[\"", key, "\"]")); }
  void end_key() { segments.pop_back(); }
  void presence(bool p) { token(p ? "present" : "absent"); }
  /// An attribute value's kind, by the name the text gives it.
  void attr_kind(std::size_t index) {
    static constexpr std::string_view kNames[] = {"a bool",  "an int",  "a float",
                                                  "a str",   "a dtype", "an enum",
                                                  "an expr", "a list",  "an opaque payload"};
    static_assert(std::size(kNames) == std::variant_size_v<ir::AttrValue::Storage>);
    token(std::string(index < std::size(kNames) ? kNames[index] : "?") + " attribute");
  }
  void enum_value(const ir::EnumValue& e) {
    token(concat(ir::enum_module(e), ".", ir::enum_type_name(e), ".", ir::enum_value_name(e)));
  }
  template <class T>
  void value(const T& v) {
    if constexpr (std::is_same_v<T, std::string>) {
      // A program entry's key names the entry in paths: ['main'].
      if (segments.size() >= 2 && segments.back().empty() &&
          !segments[segments.size() - 2].empty() && segments[segments.size() - 2].front() == '[')
        segments[segments.size() - 2] = concat("['", v, "']");
      token(concat("\"", v, "\""));
    } else if constexpr (std::is_same_v<T, core::DataType>) {
      token(std::string(core::dtype_name(v)));
    } else if constexpr (ir::IrEnum<T>) {
      token(concat(ir::EnumTraits<T>::type_name, ".", ir::enum_name(v)));
    } else if constexpr (std::is_same_v<T, bool>) {
      token(v ? "True" : "False");
    } else if constexpr (std::is_same_v<T, double>) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g (bits %016llx)", v,
                    static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(v)));
      token(buf);
    } else if constexpr (std::is_enum_v<T>) {
      token(std::to_string(static_cast<long long>(v)));
    } else {
      token(std::to_string(v));
    }
  }
  void child(const Node* n, Position) {
    if (describe) tokens.push_back({current(), true, {}, children, n});
    child_paths.push_back(current());
    ++children;
  }
  void null() { token("null"); }
  void unsupported(const std::string& reason) {
    throw StructuralComparisonUnsupported(reason, current());
  }

  std::vector<std::string> child_paths;
};

/// The path of `node`'s child `ordinal` relative to `node`.
inline std::string child_path(const Node& node, Tag tag, std::uint32_t ordinal) {
  if (tag == Tag::FreeNumbered) return ".type";
  PathSink sink;
  encode_fields(node, sink);
  return ordinal < sink.child_paths.size() ? sink.child_paths[ordinal] : std::string();
}

template <bool Trace>
void Projector<Trace>::fail_unsupported(std::uint32_t index, const std::string& reason) const {
  std::string field;
  try {
    PathSink locate;
    encode_fields(*frames_[index].node, locate);
  } catch (const StructuralComparisonUnsupported& e) {
    field = e.field_path();
  }
  std::string path = path_to(index) + field;
  if (!path.empty() && path.front() == '.') path.erase(0, 1);
  throw StructuralComparisonUnsupported(reason, path);
}

template <bool Trace>
std::string Projector<Trace>::path_to(std::uint32_t index) const {
  std::vector<std::string> parts;
  for (std::uint32_t i = index; frames_[i].parent != kNoFrame; i = frames_[i].parent) {
    const Frame& p = frames_[frames_[i].parent];
    parts.push_back(child_path(*p.node, p.tag, frames_[i].ordinal));
  }
  std::string path;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) path += *it;
  if (!path.empty() && path.front() == '.') path.erase(0, 1);
  return path;
}

}  // namespace detail
}  // namespace pypto::structural

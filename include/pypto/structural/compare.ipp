// pypto/structural/compare.ipp — the definitions of structural/compare.hpp.
//
// Equality: both sides walked in lockstep (projection.hpp), every decision and scalar compared
// on the spot; when the walks diverge, both sides are interned in one arena. The mismatch finder
// re-projects both sides with tracing and descends from the roots along the first differing
// child.
#pragma once

#include "pypto/structural/compare.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/core/hash.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/structural/projection.hpp"

namespace pypto::structural {

PYPTO_DECL bool structural_equal(const ir::Node& a, const ir::Node& b, bool enable_auto_mapping) {
  using detail::Projector;
  // Optimistic pass: both sides walked in lockstep, every decision and scalar compared on the
  // spot. When the walks diverge (a difference, or sharing that differs between the sides), the
  // canonical projection decides: both sides interned in one arena, equal iff same number.
  if (detail::Borrowed<detail::Lockstep>()->run(a, b, enable_auto_mapping)) return true;
  detail::Arena arena;
  const std::uint64_t ra = Projector<>(&arena, enable_auto_mapping).project(a);
  const std::uint64_t rb = Projector<>(&arena, enable_auto_mapping).project(b);
  return ra == rb;
}
PYPTO_DECL bool structural_equal(const ir::NodeRef& a, const ir::NodeRef& b,
                                 bool enable_auto_mapping) {
  if (!a || !b) return !a && !b;
  return structural_equal(*a, *b, enable_auto_mapping);
}

PYPTO_DECL bool structural_equal_hashed(const ir::Node& a, const ir::Node& b, std::uint64_t hash_a,
                                        std::uint64_t hash_b, bool enable_auto_mapping) {
  using detail::Projector;
  if (detail::Borrowed<detail::Lockstep>()->run(a, b, enable_auto_mapping)) return true;
  if (hash_a != hash_b) return false;
  detail::Arena arena;
  const std::uint64_t ra = Projector<>(&arena, enable_auto_mapping).project(a);
  const std::uint64_t rb = Projector<>(&arena, enable_auto_mapping).project(b);
  return ra == rb;
}

PYPTO_DECL std::uint64_t structural_hash(const ir::Node& x, bool enable_auto_mapping) {
  try {
    return detail::Borrowed<detail::Hasher>()->run(x, enable_auto_mapping);
  } catch (const detail::HandOver&) {
    // The projector reports the problem with its field path.
    detail::Arena arena;
    detail::Projector<>(&arena, enable_auto_mapping).project(x);
    throw core::InternalError("structural_hash: the projector accepted what the hash refused");
  }
}
PYPTO_DECL std::uint64_t structural_hash(const ir::NodeRef& x, bool enable_auto_mapping) {
  return x ? structural_hash(*x, enable_auto_mapping) : core::hash_string("<null>");
}

namespace detail {

/// A one-line description of a node from its reflected fields, e.g.
/// `ConstInt(type=ScalarType(dtype=INDEX), value=32)`; Vars by name; nesting and length capped.
inline std::string describe_node(const Node& n, int depth = 3) {
  if (const auto* v = ir::as<ir::Var>(&n)) return concat("Var '", v->name_hint, "'");
  std::string out(ir::kind_name(n.kind()));
  if (depth == 0) return out + "(...)";
  PathSink sink;
  sink.describe = true;
  encode_fields(n, sink);
  out += '(';
  bool first = true;
  for (const auto& t : sink.tokens) {
    if (t.text.rfind("length ", 0) == 0 || t.text == "present") continue;  // structure markers
    if (!first) out += ", ";
    first = false;
    std::string name = t.path;
    if (!name.empty() && name.front() == '.') name.erase(0, 1);
    if (!name.empty()) out += name + "=";
    out += t.is_child ? describe_node(*t.node, depth - 1) : t.text;
    if (out.size() > 240) return out + ", ...)";
  }
  return out + ')';
}

class MismatchFinder {
 public:
  using Tracer = Projector<true>;

  MismatchFinder(const ir::Node& a, const ir::Node& b, bool auto_mapping)
      : lhs_(&arena_, auto_mapping), rhs_(&arena_, auto_mapping) {
    lhs_.project(a);
    rhs_.project(b);
  }

  std::optional<StructuralMismatch> find() const {
    std::uint32_t ea = lhs_.root_event(), eb = rhs_.root_event();
    std::string path;
    while (true) {
      const auto& a = resolve(lhs_, ea);
      const auto& b = resolve(rhs_, eb);
      if (a.value == b.value) return std::nullopt;
      if (a.node->kind() != b.node->kind())
        return mismatch(path, "node kinds differ", describe_node(*a.node), describe_node(*b.node),
                        a, b);
      if (a.tag != b.tag || a.binding != b.binding)
        return mismatch(path, "variables differ", describe_var(a), describe_var(b), a, b);
      if (a.tag == Tag::Ref || a.tag == Tag::FreeIdentity)
        return mismatch(path, "variables differ", describe_var(a), describe_var(b), a, b);
      const auto ta = tokens(a), tb = tokens(b);
      bool descended = false;
      for (std::size_t i = 0; i < ta.size() && i < tb.size(); ++i) {
        const auto& x = ta[i];
        const auto& y = tb[i];
        if (x.is_child && y.is_child && x.path == y.path) {
          const std::uint32_t ca = child(lhs_, a, x.ordinal), cb = child(rhs_, b, y.ordinal);
          if (lhs_.events()[ca].value == rhs_.events()[cb].value) continue;
          path += x.path;
          ea = ca;
          eb = cb;
          descended = true;
          break;
        }
        if (x.is_child != y.is_child || x.path != y.path || x.text != y.text)
          return mismatch(path + (x.path.size() <= y.path.size() ? x.path : y.path),
                          "values differ", text_of(x), text_of(y), a, b);
      }
      if (!descended)
        return mismatch(path, "fields differ", describe_node(*a.node), describe_node(*b.node), a,
                        b);
    }
  }

 private:
  using Event = Tracer::Event;

  static const Event& resolve(const Tracer& t, std::uint32_t e) {
    const Event* ev = &t.events()[e];
    while (ev->alias != Tracer::kNoEvent) ev = &t.events()[ev->alias];
    return *ev;
  }
  static std::uint32_t child(const Tracer& t, const Event& parent, std::uint32_t ordinal) {
    return t.links()[parent.first_link + ordinal];
  }
  static std::vector<PathSink::Token> tokens(const Event& e) {
    PathSink sink;
    sink.describe = true;
    if (e.tag == Tag::FreeNumbered) {
      sink.segments.emplace_back(".type");
      sink.child(nullptr, Position::Usual);
    } else {
      encode_fields(*e.node, sink);
    }
    return std::move(sink.tokens);
  }
  static std::string text_of(const PathSink::Token& t) {
    return t.is_child ? describe_node(*t.node) : t.text;
  }
  static std::string describe_var(const Event& e) {
    const auto& v = static_cast<const ir::Var&>(*e.node);
    switch (e.tag) {
      case Tag::Def: return "definition #" + std::to_string(e.binding) + " ('" + v.name_hint + "')";
      case Tag::Ref:
        return "use of binding #" + std::to_string(e.binding) + " ('" + v.name_hint + "')";
      case Tag::FreeNumbered:
        return "free variable #" + std::to_string(e.binding) + " ('" + v.name_hint + "')";
      case Tag::FreeIdentity: return "free variable '" + v.name_hint + "'";
      case Tag::Implicit:
        return "implicit binding #" + std::to_string(e.binding) + " ('" + v.name_hint + "')";
      default: return std::string(ir::kind_name(e.node->kind()));
    }
  }
  static StructuralMismatch mismatch(std::string path, std::string reason, std::string lhs,
                                     std::string rhs, const Event& a, const Event& b) {
    if (!path.empty() && path.front() == '.') path.erase(0, 1);
    return {std::move(path), std::move(reason),   std::move(lhs),
            std::move(rhs),  ir::NodeRef(a.node), ir::NodeRef(b.node)};
  }

  Arena arena_;
  Tracer lhs_, rhs_;
};

}  // namespace detail

PYPTO_DECL std::optional<StructuralMismatch> find_first_mismatch(const ir::NodeRef& a,
                                                                 const ir::NodeRef& b,
                                                                 bool enable_auto_mapping) {
  if (!a || !b) {
    if (!a && !b) return std::nullopt;
    return StructuralMismatch{"",
                              "one side is null",
                              a ? detail::describe_node(*a) : "null",
                              b ? detail::describe_node(*b) : "null",
                              a,
                              b};
  }
  return detail::MismatchFinder(*a, *b, enable_auto_mapping).find();
}

PYPTO_DECL void assert_structural_equal(const ir::NodeRef& a, const ir::NodeRef& b,
                                        bool enable_auto_mapping) {
  if (auto m = find_first_mismatch(a, b, enable_auto_mapping))
    throw core::ValueError("structural mismatch at " +
                           (m->field_path.empty() ? std::string("<root>") : m->field_path) + ": " +
                           m->reason + "\n  lhs: " + m->lhs + "\n  rhs: " + m->rhs);
}

}  // namespace pypto::structural

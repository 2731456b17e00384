// pypto/transforms/reference_renamer.hpp — re-point a program's references to functions.
//
// A function is referenced by name in two places: the GlobalVar callee of a Call / Submit and
// the `peer_func` keyword of `system.import_peer_buffer` (an AIC / AIV member naming its peer).
// ReferenceRenamer rewrites both through an old -> new name table, rebuilding only the nodes on a
// path to a change (each shared node once; a Var only when its type or initial value holds a
// renamed reference, and then every use of it follows), so an unaffected function comes back as
// the same object. DeduplicateOutlinedKernels uses it to re-point aliases at their survivor and
// to normalize a Group bundle's member names. O(size of the function); recursion is
// bounded by core::kMaxNesting, as in Substitution, whose field walk it shares.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "pypto/core/error.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/transforms/substitute.hpp"

namespace pypto::transforms {

namespace detail {

inline constexpr std::string_view kPeerBufferOp = "system.import_peer_buffer";

/// The `peer_func` name of an import_peer_buffer call, or null.
inline const std::string* peer_func_of(const ir::Call& c) {
  if (ir::isa<ir::GlobalVar>(*c.op) || c.op->name != kPeerBufferOp) return nullptr;
  const ir::AttrValue* v = c.kwargs.find("peer_func");
  return v ? v->get_if<std::string>() : nullptr;
}

}  // namespace detail

/// `ReferenceRenamer(renames).function(f)`: f with every callee and peer_func name found in
/// `renames` replaced. A Var is rebuilt only when something in it changes (a loop-carried
/// variable's initial value may be a call); its uses follow it through the memo. When given
/// `on_reference`, it is told every reference name of the result (renamed or kept), so a caller
/// can check them without walking the result again.
class ReferenceRenamer : private detail::FieldRewriter<ReferenceRenamer> {
  friend class detail::FieldRewriter<ReferenceRenamer>;

 public:
  using Renames = std::unordered_map<std::string, std::string>;  // looked up, never iterated
  using OnReference = std::function<void(const std::string& name, std::string_view what)>;
  explicit ReferenceRenamer(const Renames& renames, OnReference on_reference = nullptr)
      : renames_(renames), on_reference_(std::move(on_reference)) {}

  ir::FunctionRef function(const ir::FunctionRef& f) {
    ir::NodeRef out = node(f.get());
    return out ? ir::FunctionRef(static_cast<const ir::Function*>(out.get())) : f;
  }

 private:
  const std::string* renamed(const std::string& name) const {
    auto it = renames_.find(name);
    return it == renames_.end() ? nullptr : &it->second;
  }
  void report(const std::string& name, std::string_view what) const {
    if (on_reference_) on_reference_(name, what);
  }

  /// Sets `out` when `in` changed (FieldRewriter's const hook: no handle copies).
  template <class T>
  bool rewrite_handle(const ir::Ref<const T>& in, ir::Ref<const T>& out) {
    if (!in) return false;
    ir::NodeRef done = node(in.get());
    if (!done) return false;
    out = ir::Ref<const T>(static_cast<const T*>(done.get()));
    return true;
  }

  /// `n` rewritten, or null when nothing in it changes (no handle is copied for the many
  /// unchanged nodes).
  ir::NodeRef node(const ir::Node* n) {
    if (const auto* g = ir::as<ir::GlobalVar>(n)) {
      const std::string* to = renamed(g->name);
      report(to ? *to : g->name, "callee");
      return to ? ir::NodeRef(ir::GlobalVar::make(*to)) : nullptr;
    }
    // Only a node with several referents can be met again (the handle being walked is its
    // parent's own field, not a copy); a Var with uses is one of them, so its uses and its
    // definition get the same rebuilt Var.
    const bool shared = n->use_count() > 1;
    if (shared)
      if (const ir::NodeRef* done = memo_.find(n)) return *done;
    if (++depth_ > core::kMaxNesting)
      throw core::ValueError("renaming references: IR nested deeper than " +
                             std::to_string(core::kMaxNesting) + " levels is not supported");
    ir::NodeRef out = ir::visit(*n, [&](const auto& concrete) -> ir::NodeRef {
      auto copy = rebuilt(concrete);
      using N = std::remove_cvref_t<decltype(concrete)>;
      if constexpr (std::is_same_v<N, ir::Call>) {
        if (const std::string* peer = detail::peer_func_of(concrete)) {
          const std::string* to = renamed(*peer);
          report(to ? *to : *peer, "peer_func");
          if (to) {
            if (!copy) copy = ir::copy_node(concrete);
            for (auto& e : copy.get()->kwargs.entries)
              if (e.key == "peer_func") e.value = ir::AttrValue(*to);
          }
        }
      }
      return copy ? ir::NodeRef(copy) : nullptr;
    });
    --depth_;
    if (shared) memo_.insert(n, out);
    return out;
  }

  const Renames& renames_;
  OnReference on_reference_;
  ::pypto::detail::PointerMap<ir::NodeRef> memo_;  // null: unchanged; looked up, never iterated
  std::size_t depth_ = 0;
};

}  // namespace pypto::transforms

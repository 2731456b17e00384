// pypto/transforms/reference_renamer.ipp — the definitions of transforms/reference_renamer.hpp.
#pragma once

#include "pypto/transforms/reference_renamer.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

#include "pypto/core/error.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/transforms/substitute.hpp"

namespace pypto::transforms {

namespace detail {

/// The `peer_func` name of an import_peer_buffer call, or null.
inline const std::string* peer_func_of(const ir::Call& c) {
  if (c.op->id != ir::OpId::system_import_peer_buffer) return nullptr;
  const ir::AttrValue* v = c.kwargs.find("peer_func");
  return v ? v->get_if<std::string>() : nullptr;
}

/// The walk of one ReferenceRenamer::function call, on the renamer's table, memo and depth.
class ReferenceRenaming : private FieldRewriter<ReferenceRenaming> {
  friend class FieldRewriter<ReferenceRenaming>;

 public:
  explicit ReferenceRenaming(ReferenceRenamer& r) : r_(r) {}

 private:
  const std::string* renamed(const std::string& name) const {
    auto it = r_.renames_.find(name);
    return it == r_.renames_.end() ? nullptr : &it->second;
  }
  void report(const std::string& name, std::string_view what) const {
    if (r_.on_reference_) r_.on_reference_(name, what);
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

 public:
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
      if (const ir::NodeRef* done = r_.memo_.find(n)) return *done;
    if (++r_.depth_ > core::kMaxNesting)
      throw core::ValueError("renaming references: IR nested deeper than " +
                             std::to_string(core::kMaxNesting) + " levels is not supported");
    ir::NodeRef out = ir::visit(*n, [&](const auto& concrete) -> ir::NodeRef {
      auto copy = rebuilt(concrete);
      using N = std::remove_cvref_t<decltype(concrete)>;
      if constexpr (std::is_same_v<N, ir::Call>) {
        if (const std::string* peer = peer_func_of(concrete)) {
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
    --r_.depth_;
    if (shared) r_.memo_.insert(n, out);
    return out;
  }

 private:
  ReferenceRenamer& r_;
};

}  // namespace detail

PYPTO_DECL ir::FunctionRef ReferenceRenamer::function(const ir::FunctionRef& f) {
  ir::NodeRef out = detail::ReferenceRenaming(*this).node(f.get());
  return out ? ir::FunctionRef(static_cast<const ir::Function*>(out.get())) : f;
}

}  // namespace pypto::transforms

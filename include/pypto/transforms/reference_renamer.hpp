// pypto/transforms/reference_renamer.hpp — re-point a program's references to functions.
//
// A function is referenced by name in two places: the GlobalVar callee of a Call / Submit and
// the `peer_func` keyword of `system.import_peer_buffer` (an AIC / AIV member naming its peer).
// ReferenceRenamer rewrites both through an old -> new name table, rebuilding only the nodes on a
// path to a change (each shared node once; a Var only when its type or initial value holds a
// renamed reference, and then every use of it follows), so an unaffected function comes back as
// the same object. DeduplicateOutlinedKernels uses it to re-point aliases at their survivor and
// to normalize a Group bundle's member names. O(size of the function); recursion is bounded by
// core::kMaxNesting (deeper is a ValueError), as in Substitution, whose field walk it shares.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "pypto/core/config.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/node.hpp"

namespace pypto::transforms {

namespace detail {
class ReferenceRenaming;
}  // namespace detail

/// `ReferenceRenamer(renames).function(f)`: f with every callee and peer_func name found in
/// `renames` replaced. A Var is rebuilt only when something in it changes (a loop-carried
/// variable's initial value may be a call); its uses follow it through the memo. When given
/// `on_reference`, it is told every reference name of the result (renamed or kept), so a caller
/// can check them without walking the result again. The memo spans every `function` call of one
/// renamer; `renames` must outlive it.
class ReferenceRenamer {
 public:
  using Renames = std::unordered_map<std::string, std::string>;  // looked up, never iterated
  using OnReference = std::function<void(const std::string& name, std::string_view what)>;
  explicit ReferenceRenamer(const Renames& renames, OnReference on_reference = nullptr)
      : renames_(renames), on_reference_(std::move(on_reference)) {}

  /// `f` renamed, or `f` itself when no reference in it is renamed.
  PYPTO_DECL ir::FunctionRef function(const ir::FunctionRef& f);

 private:
  friend class detail::ReferenceRenaming;

  const Renames& renames_;
  OnReference on_reference_;
  ::pypto::detail::PointerMap<ir::NodeRef> memo_;  // null: unchanged; looked up, never iterated
  std::size_t depth_ = 0;
};

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/reference_renamer.ipp"
#endif

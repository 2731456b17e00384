// pypto/transforms/call_shape_proof.hpp — does a call site bind a kernel's signature?
//
// DeduplicateOutlinedKernels merges two structurally equal kernels whose signature shape symbols
// are different variables only when every Call / Submit of the alias binds the surviving
// ("canonical") signature consistently and reproduces the call's recorded, caller-coordinate
// result type. Bindings come only from supplied arguments, matched by same structure (no
// algebraic inversion, no runtime guard); a repeated symbol must meet the same caller expression.
// Only simple signatures take the proof: scalars and storage-free Tensors (at most a layout-only
// view) with dims of variables, integer constants and unary / binary operators, at most 256
// parameters, returns and distinct shape nodes. Cost: a step per node pair matched, at most
// kMaxStepsPerSite per site, all sites drawing on a budget the caller sets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"

namespace pypto::transforms {

/// Outcome of proving one call site.
struct ShapeProofOutcome {
  enum class Status : std::uint8_t { Proven, Failed, OutOfBudget };
  Status status = Status::Proven;
  std::string why;  ///< Failed / OutOfBudget: what did not match, and where
  bool proven() const { return status == Status::Proven; }
};

/// The call-site binding proof against one canonical kernel signature. Construct once per
/// canonical function, then `prove` each site; `steps_budget` is shared by all sites. The
/// canonical function must outlive the proof.
class CallShapeProof {
 public:
  static constexpr std::size_t kMaxSignatureItems = 256;
  static constexpr std::uint64_t kMaxStepsPerSite = 65536;

  PYPTO_DECL explicit CallShapeProof(const ir::Function& canonical);

  bool eligible() const { return ineligible_.empty(); }
  /// Why the signature cannot take the proof (empty when it can).
  const std::string& ineligibility() const { return ineligible_; }

  /// Proves one Call or Submit of the alias: `args` as supplied, `result` the recorded type
  /// (a Submit's: its tuple), `is_submit` whether the last tuple element is the task id.
  PYPTO_DECL ShapeProofOutcome prove(const std::vector<ir::ExprRef>& args, const ir::Type& result,
                                     bool is_submit, std::uint64_t& steps_budget);

 private:
  PYPTO_DECL void add_slot(const ir::Var* v);
  PYPTO_DECL void check_type(const ir::Type& t, const std::string& where);
  PYPTO_DECL bool check_dim(const ir::Expr& e, const std::string& where);
  PYPTO_DECL static ir::DataType dtype_of(const ir::Expr& e);
  PYPTO_DECL bool step();
  PYPTO_DECL bool bind_scalar(const ir::Var& param, const ir::Expr& arg);
  PYPTO_DECL bool match_tensor(const ir::TensorType& pattern, const ir::Type& actual, bool bind);
  PYPTO_DECL bool match(const ir::Expr& p, const ir::Expr& a, bool bind);
  PYPTO_DECL bool same(const ir::Expr& x, const ir::Expr& y, std::size_t depth = 0);

  const ir::Function& fn_;
  std::string ineligible_;
  ::pypto::detail::PointerMap<std::size_t> slot_of_;  // params and signature symbols
  std::size_t slots_ = 0;
  ::pypto::detail::PointerMap<char> seen_;  // eligibility: shared dim nodes
  std::size_t unique_nodes_ = 0;
  // per site
  std::vector<const ir::Expr*> bound_;
  ::pypto::detail::PointerMap<const ir::Node*> memo_;       // canonical node -> caller node matched
  ::pypto::detail::PointerMap<const ir::Node*> same_memo_;  // caller node -> an equal one
  std::uint64_t steps_ = 0;
  std::uint64_t* budget_ = nullptr;
  bool out_of_budget_ = false;
  std::string why_;
};

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/call_shape_proof.ipp"
#endif

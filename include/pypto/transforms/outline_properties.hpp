// pypto/transforms/outline_properties.hpp — the verifiers of the outline passes' properties.
//
// Each `find_<property>_violation(program)` returns the first violation of one fact that
// OutlineIncoreScopes / OutlineClusterScopes establish, as `function: what, where` (field path
// and line:column of the statement, name of the variable), or nullopt when it holds:
// SplitIncoreOrch (no InCoreScopeStmt left, nested ones first), ClusterOutlined (no cluster
// scope left, no spmd scope in an Opaque or Orchestration function), NoScalarKernelReturn (no
// device function declares a Scalar return, at any tuple depth), ReturnParamsExplicit (a
// device function returns a parameter's buffer as that parameter, per return_lineage.hpp),
// AivSplitValid (split_aiv regions placed, counted and attributed correctly). Each is
// O(statements), iterative (any depth); ReturnParamsExplicit is per function reached.
#pragma once

#include <optional>
#include <string>

#include "pypto/core/config.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/text/call_types.hpp"

namespace pypto::ir {
struct Program;
}  // namespace pypto::ir

namespace pypto::transforms {

/// SplitIncoreOrch: the first InCoreScopeStmt left in `program` (one nested in another InCore
/// scope or in an InCore/AIC/AIV function first: upstream's NoNestedInCore), or nullopt.
PYPTO_DECL std::optional<std::string> find_split_incore_orch_violation(const ir::Program& program);

/// ClusterOutlined: the first cluster scope left in `program` (one inside a kernel first), or
/// the first spmd scope left in an Opaque or Orchestration function (a standalone spmd scope
/// becomes a Function(Spmd) wrapper), or nullopt.
PYPTO_DECL std::optional<std::string> find_cluster_outlined_violation(const ir::Program& program);

/// NoScalarKernelReturn: the first Scalar return type (at any tuple depth, Scalar[TASK_ID]
/// included) of an InCore, AIC, AIV, Group or Spmd function, or nullopt.
PYPTO_DECL std::optional<std::string> find_no_scalar_kernel_return_violation(
    const ir::Program& program);

/// ReturnParamsExplicit: the first returned tensor Var of an InCore, AIC, AIV, Group or Spmd
/// function that is a parameter's buffer (return_lineage.hpp: through written arguments of
/// registered ops, callees' Out/InOut slots, loop carries, ifs) without being the parameter, or
/// nullopt. `ops` declares which arguments an op writes.
PYPTO_DECL std::optional<std::string> find_return_params_explicit_violation(
    const ir::Program& program, const ir::OpRegistry& ops = text::default_op_registry());

/// AivSplitValid: the first misplaced or nested split_aiv region, region whose count is not 2,
/// region in a scope with an AUTO split, or InCore function whose `split_aiv` / `split` attrs
/// disagree with the regions it owns (those not inside an InCore scope of its own); nullopt when
/// none. SplitAivScopeStmt regions sit only in InCore/AIC/AIV functions or InCoreScopeStmt
/// bodies.
PYPTO_DECL std::optional<std::string> find_aiv_split_valid_violation(const ir::Program& program);

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/outline_properties.ipp"
#endif

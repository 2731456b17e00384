// pypto/transforms/outline_cluster_scopes.hpp — OutlineClusterScopes.
//
// Runs after OutlineIncoreScopes. Each ClusterScopeStmt of an Opaque, Orchestration or Graph
// function becomes a Function(Group) named `{func}_cluster_{n}`, whose body calls the InCore /
// AIC / AIV kernels already outlined from it; then each standalone SpmdScopeStmt (one not inside
// a cluster) becomes a Function(Spmd) wrapper `{func}_spmd_{n}`. The core count and sync_start
// of an Spmd scope ride the dispatch (Call attrs `core_num` / `sync_start`, or the Submit's
// fields), never the callee, which could not name the caller's values. Parameters, directions
// (a callee's Out slot is a write, not a read), returns and carries follow the same rules as
// OutlineIncoreScopes (scope_outliner.hpp). The parent keeps its function type. Requires
// SSAForm; produces ClusterOutlined and keeps the outline properties. O(N log N).
#pragma once

#include "pypto/core/config.hpp"
#include "pypto/text/call_types.hpp"
#include "pypto/transforms/pass.hpp"
#include "pypto/transforms/scope_outliner.hpp"

namespace pypto::transforms {

/// OutlineClusterScopes (`outline-cluster-scopes`, see the top of this header); `ops` declares
/// which arguments an op reads and writes. A scope that cannot be outlined is an OutlineError.
PYPTO_DECL Pass OutlineClusterScopes(const ir::OpRegistry& ops = text::default_op_registry());

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/outline_cluster_scopes.ipp"
#endif

// pypto/transforms/outline_cluster_scopes.hpp — OutlineClusterScopes (seed 002's sibling pass).
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

#include "pypto/ir.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/text/call_types.hpp"
#include "pypto/transforms/pass.hpp"
#include "pypto/transforms/property.hpp"
#include "pypto/transforms/scope_outliner.hpp"

namespace pypto::transforms {

inline Pass OutlineClusterScopes(const ir::OpRegistry& ops = text::default_op_registry()) {
  OutlineTarget cluster;
  cluster.pass_name = "outline-cluster-scopes";
  cluster.is_target = [](const ir::Stmt& s) { return ir::isa<ir::ClusterScopeStmt>(s); };
  cluster.function_type = ir::FunctionType::Group;
  cluster.kind = "cluster";
  OutlineTarget spmd = cluster;
  spmd.is_target = [](const ir::Stmt& s) { return ir::isa<ir::SpmdScopeStmt>(s); };
  spmd.function_type = ir::FunctionType::Spmd;
  spmd.kind = "spmd";
  return Pass("outline-cluster-scopes", {Property::SSAForm},
              {Property::SSAForm, Property::ClusterOutlined, Property::NoScalarKernelReturn,
               Property::ReturnParamsExplicit},
              {}, [cluster, spmd, &ops](const ir::Program& p) {
                auto parents = [](const ir::Function& f) {
                  return f.func_type == ir::FunctionType::Opaque ||
                         f.func_type == ir::FunctionType::Orchestration ||
                         f.func_type == ir::FunctionType::Graph;
                };
                ir::ProgramRef grouped = outline_scopes(p, cluster, ops, parents);
                return outline_scopes(*grouped, spmd, ops, parents);
              });
}

}  // namespace pypto::transforms

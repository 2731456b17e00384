// pypto/transforms/outline_cluster_scopes.ipp — the definitions of
// transforms/outline_cluster_scopes.hpp.
#pragma once

#include "pypto/transforms/outline_cluster_scopes.hpp"

#include <memory>

#include "pypto/ir/enums.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/transforms/pass.hpp"
#include "pypto/transforms/property.hpp"
#include "pypto/transforms/scope_outliner.hpp"

namespace pypto::transforms {

PYPTO_DECL Pass OutlineClusterScopes(const ir::OpRegistry& ops) {
  OutlineTarget cluster;
  cluster.pass_name = "outline-cluster-scopes";
  cluster.is_target = [](const ir::Stmt& s) { return ir::isa<ir::ClusterScopeStmt>(s); };
  cluster.function_type = ir::FunctionType::Group;
  cluster.kind = "cluster";
  // A parent keeps its type when a cluster becomes a Group call (as upstream PyPTO's pass does);
  // an Opaque parent that dispatches a standalone spmd scope is an Orchestration function, with
  // its parameter extent reads folded on promotion, as the InCore outliner does for the kernel an
  // index-reading spmd body is.
  OutlineTarget spmd = cluster;
  spmd.is_target = [](const ir::Stmt& s) { return ir::isa<ir::SpmdScopeStmt>(s); };
  spmd.function_type = ir::FunctionType::Spmd;
  spmd.kind = "spmd";
  spmd.promote_opaque = true;
  spmd.fold_param_dims = true;
  return Pass("outline-cluster-scopes", {Property::SSAForm},
              {Property::SSAForm, Property::ClusterOutlined, Property::NoScalarKernelReturn}, {},
              [cluster, spmd,
               registry = std::make_shared<const ir::OpRegistry>(ops)](const ir::Program& p) {
                auto parents = [](const ir::Function& f) {
                  return f.func_type == ir::FunctionType::Opaque ||
                         f.func_type == ir::FunctionType::Orchestration ||
                         f.func_type == ir::FunctionType::Graph;
                };
                ir::ProgramRef grouped = outline_scopes(p, cluster, *registry, parents);
                return outline_scopes(*grouped, spmd, *registry, parents);
              });
}

}  // namespace pypto::transforms

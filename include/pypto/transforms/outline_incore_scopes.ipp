// pypto/transforms/outline_incore_scopes.ipp — the definitions of
// transforms/outline_incore_scopes.hpp.
//
// Each InCoreScopeStmt of an Opaque, Orchestration or Graph function becomes a Function(InCore)
// and a call (a Submit when the scope binds `as tid` or waits on `deps=`); InCore functions are
// left alone. Inputs are the scope's live-in set in first-read order, outputs its definitions
// used afterwards (a dead phi's read does not count) plus the captured tensors it writes
// (returned as their parameters, as is any output provably such a buffer), directions
// come from the op registry's declared effects, scalar live-outs the caller can compute are
// hoisted, and renames of written tensors are threaded out of loops and ifs as real carries
// (scope_outliner.ipp has the algorithm). An Opaque parent with at least one outlined scope is
// promoted to Orchestration after its `tensor.dim(param, k)` reads of declared dynamic symbols
// are folded onto the symbols; Graph stays Graph. Requires SSAForm; produces SSAForm,
// SplitIncoreOrch, AivSplitValid and NoScalarKernelReturn; the kernels it makes return the
// parameters they write (normalize-return-order makes every kernel do so: ReturnParamsExplicit).
// O(N log N) in the program size.
#pragma once

#include "pypto/transforms/outline_incore_scopes.hpp"

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

PYPTO_DECL Pass OutlineIncoreScopes(const ir::OpRegistry& ops) {
  OutlineTarget target;
  target.pass_name = "outline-incore-scopes";
  target.is_target = [](const ir::Stmt& s) { return ir::isa<ir::InCoreScopeStmt>(s); };
  target.function_type = ir::FunctionType::InCore;
  target.kind = "incore";
  target.promote_opaque = true;
  target.fold_param_dims = true;
  target.wrap_bare_splits = true;
  return Pass(
      "outline-incore-scopes", {Property::SSAForm},
      {Property::SSAForm, Property::SplitIncoreOrch, Property::AivSplitValid,
       Property::NoScalarKernelReturn},
      {}, [target, registry = std::make_shared<const ir::OpRegistry>(ops)](const ir::Program& p) {
        // The pass's own copy of the registry: `ops` may be a temporary.
        return outline_scopes(p, target, *registry, [](const ir::Function& f) {
          return f.func_type == ir::FunctionType::Opaque ||
                 f.func_type == ir::FunctionType::Orchestration ||
                 f.func_type == ir::FunctionType::Graph;
        });
      });
}

}  // namespace pypto::transforms

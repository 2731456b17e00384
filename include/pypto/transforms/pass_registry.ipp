// pypto/transforms/pass_registry.ipp — the definitions of transforms/pass_registry.hpp: the
// registry of every pass, which is why only it includes every pass.
#pragma once

#include "pypto/transforms/pass_registry.hpp"

#include "pypto/transforms/convert_tensor_to_tile_ops.hpp"
#include "pypto/transforms/convert_to_ssa.hpp"
#include "pypto/transforms/ctrl_flow_transform.hpp"
#include "pypto/transforms/deduplicate_outlined_kernels.hpp"
#include "pypto/transforms/expand_mixed_kernels.hpp"
#include "pypto/transforms/fuse_create_assemble_to_slice.hpp"
#include "pypto/transforms/normalize_return_order.hpp"
#include "pypto/transforms/normalize_stmt_structure.hpp"
#include "pypto/transforms/outline_cluster_scopes.hpp"
#include "pypto/transforms/outline_incore_scopes.hpp"
#include "pypto/transforms/unroll_loops.hpp"

namespace pypto::transforms {

PYPTO_DECL PassRegistry standard_passes() {
  PassRegistry registry;
  registry.add("pl.unroll loops expanded: the body once per value of the loop variable",
               UnrollLoops);
  registry.add("break and continue in kernels as ifs and a while loop with a break flag",
               CtrlFlowTransform);
  registry.add("natural form to SSA: versioned Vars, loop carries, if-results", ConvertToSSA);
  registry.add("every body slot one SeqStmts, nested SeqStmts flattened", NormalizeStmtStructure);
  registry.add("InCore scopes become InCore functions and calls",
               [] { return OutlineIncoreScopes(); });
  registry.add("cluster scopes become Group functions, standalone spmd scopes Spmd wrappers",
               [] { return OutlineClusterScopes(); });
  registry.add("equivalent outlined kernels and Group bundles share one definition",
               [] { return DeduplicateOutlinedKernels(); });
  registry.add(
      "kernels' tensor ops become tile loads, tile ops and tile stores; cache_policy "
      "becomes tile.load cache kwargs",
      {{"arch",
        "the Ascend generation: a2a3 gathers row by row, a5 in one tile.gather of flat indices",
        {"a2a3", "a5"}}},
      [](const PassOptions& o) {
        return ConvertTensorToTileOps(text::default_op_registry(),
                                      {o.at("arch") == "a5" ? TileArch::A5 : TileArch::A2A3});
      });
  registry.add("every Group member takes the Group's parameters: one argument list per mixed task",
               ExpandMixedKernels);
  registry.add(
      "kernels return the parameters they write, InCore kernels in their Out/InOut order; callers' "
      "reads of the results follow",
      [] { return NormalizeReturnOrder(); });
  registry.add(
      "an orchestration create assembled once into a target becomes a slice view of it, the "
      "assemble goes",
      [] { return FuseCreateAssembleToSlice(); });
  return registry;
}

}  // namespace pypto::transforms

# Seed 002's loop example after convert-to-ssa and outline-incore-scopes.
import pypto.language as pl

@pl.program
class After:
    @pl.function(type=pl.FunctionType.Orchestration)
    def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i__idx_v0, (out__iter_v1,) in pl.range(4, init_values=(out,)):
            out__ssa_v1 = self.k_incore_0(a, i__idx_v0, out__iter_v1)
            out__rv_v1 = pl.yield_(out__ssa_v1)
        return out__rv_v1

    @pl.function(type=pl.FunctionType.InCore)
    def k_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], i: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        t = pl.load(a, [i * 64, 0], [64, 128])
        out__store = pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
        return out

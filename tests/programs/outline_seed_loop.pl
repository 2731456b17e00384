# Seed 002, "store targets written inside control flow": the scope writes `out` on every
# iteration and the return reads it, so the rename is threaded out as a loop carry.
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [i * 64, 0], [64, 128])
                pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
        return out

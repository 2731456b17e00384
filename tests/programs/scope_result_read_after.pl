# Scopes compute values with tensor ops that are read after them. convert-tensor-to-tile-ops
# gives the first scope's kernel a trailing pl.Out parameter for each (y, z) and the
# orchestration allocates them with tensor.create right before the call; the second scope is a
# task (`as t0`) whose Submit passes its new output u, allocated the same way; the third reads
# u, and main returns z.
import pypto.language as pl

@pl.program
class ScopeResultReadAfter:
    @pl.function
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.tensor.add(x, b)
            z = pl.tensor.mul(y, x)
        with pl.at(level=pl.Level.CORE_GROUP) as t0:
            u = pl.tensor.sub(z, y)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[t0]):
            w = pl.tensor.add(u, x)
            o1 = pl.tensor.assemble(o, w, [0, 0])
        return z

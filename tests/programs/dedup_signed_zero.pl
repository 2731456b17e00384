# Kernels that dedup must NOT merge: o1 = x + 0.0 and o2 = x + -0.0 differ only in the sign of a
# zero constant. Constants compare by bits, and the results do differ: -0.0 + 0.0 is +0.0 while
# -0.0 + -0.0 is -0.0. A third kernel equal to the first is merged with it.
import pypto.language as pl

@pl.program
class SignedZero:
    @pl.function
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o1: pl.Out[pl.Tensor[[16, 16], pl.FP32]], o2: pl.Out[pl.Tensor[[16, 16], pl.FP32]], o3: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="plus_zero"):
            t = pl.load(x, [0, 0], [16, 16])
            pl.store(pl.add(t, 0.0), [0, 0], o1)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="minus_zero"):
            t = pl.load(x, [0, 0], [16, 16])
            pl.store(pl.add(t, -0.0), [0, 0], o2)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="plus_zero_again"):
            t = pl.load(x, [0, 0], [16, 16])
            pl.store(pl.add(t, 0.0), [0, 0], o3)
        return o2

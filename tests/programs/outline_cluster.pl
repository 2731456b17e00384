# A cluster of two kernels and a block-parallel loop: outline-incore-scopes makes the kernels,
# outline-cluster-scopes the Group function and the Spmd wrapper (its core count on the call).
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.cluster():
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="produce"):
                t = pl.load(a, [0, 0], [64, 64])
                pl.store(t, [0, 0], o)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="consume"):
                u = pl.load(o, [0, 0], [64, 64])
                pl.store(pl.add(u, u), [0, 0], o)
        for i in pl.spmd(4, name_hint="rows"):
            r = pl.load(a, [i * 16, 0], [16, 64])
            pl.store(r, [i * 16, 0], o)
        return o

# Ifs: an if on a scalar parameter in the orchestration picks one of two kernels (each branch
# yields the written tensor), and an if with yields inside a kernel picks a tile. The tile `t`
# of both branches gets a phi in SSA form that nothing reads: it is no live-out, so the two
# kernels return only `o`.
import pypto.language as pl

@pl.program
class IfBranches:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]], p: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        if n < 2:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, 0], [16, 64])
                o = pl.store(pl.add(t, t), [0, 0], o)
        else:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, 0], [16, 64])
                o = pl.store(pl.sub(t, 1.5), [0, 0], o)
        with pl.at(level=pl.Level.CORE_GROUP):
            u = pl.load(o, [0, 0], [16, 64])
            if n == 0:
                v = pl.yield_(pl.abs(u))
            else:
                v = pl.yield_(pl.mul(u, u))
            pl.store(v, [0, 0], p)
        return p

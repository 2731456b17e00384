# Two InCore scopes over tensors of different dynamic shapes, rows M and N, computing the same
# thing. Outlining gives two kernels equal up to their shape symbols; dedup merges them because
# the call of the second binds the first's signature (M := N) and reproduces its [N, 64] result.
import pypto.language as pl

M = pl.dynamic("M")
N = pl.dynamic("N")

@pl.program
class ShapeDistinct:
    @pl.function
    def main(self, a: pl.Tensor[[M, 64], pl.FP32], b: pl.Tensor[[N, 64], pl.FP32], oa: pl.Out[pl.Tensor[[M, 64], pl.FP32]], ob: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [16, 64])
            u = pl.add(t, t)
            oa1 = pl.store(u, [0, 0], oa)
        with pl.at(level=pl.Level.CORE_GROUP):
            t2 = pl.load(b, [0, 0], [16, 64])
            u2 = pl.add(t2, t2)
            ob1 = pl.store(u2, [0, 0], ob)
        return ob1

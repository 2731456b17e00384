# Shape-distinct merge of kernels that read their shape symbol: each scope loops over the row
# blocks of its own dynamic-shape tensor (M // 16 and N // 16 blocks). Outlining gives two
# kernels equal up to M vs N; dedup merges them, and the merged kernel, called on the N-row
# tensors, binds M := N from its arguments and so processes N rows.
import pypto.language as pl

M = pl.dynamic("M")
N = pl.dynamic("N")

@pl.program
class ShapeLoop:
    @pl.function
    def main(self, a: pl.Tensor[[M, 64], pl.FP32], b: pl.Tensor[[N, 64], pl.FP32], oa: pl.Out[pl.Tensor[[M, 64], pl.FP32]], ob: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(M // 16):
                t = pl.load(a, [i * 16, 0], [16, 64])
                pl.store(pl.mul(t, t), [i * 16, 0], oa)
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(N // 16):
                t = pl.load(b, [i * 16, 0], [16, 64])
                pl.store(pl.mul(t, t), [i * 16, 0], ob)
        return ob

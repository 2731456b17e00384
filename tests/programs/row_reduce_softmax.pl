# Reductions: a row-wise softmax (row_max, a row-broadcast subtract, exp, row_sum, a
# row-broadcast divide) over two 16-row blocks in a loop, and the row sums of squares.
import pypto.language as pl

@pl.program
class RowSoftmax:
    @pl.function
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], y: pl.Out[pl.Tensor[[32, 32], pl.FP32]], ss: pl.Out[pl.Tensor[[32, 1], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        for b in pl.range(2):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [b * 16, 0], [16, 32])
                m = pl.tile.row_max(t, t)
                e = pl.exp(pl.sub(t, m))
                s = pl.tile.row_sum(e, e)
                pl.store(pl.div(e, s), [b * 16, 0], y)
                q = pl.tile.row_sum(pl.mul(t, t), t)
                pl.store(q, [b * 16, 0], ss)
        return y

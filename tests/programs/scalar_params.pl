# Scalar parameters: an FP32 scale and an INDEX row offset reach the kernel as scalar
# parameters (tile op with a scalar operand, a load at a computed offset), and an INDEX count
# bounds an orchestration loop.
import pypto.language as pl

@pl.program
class ScalarParams:
    @pl.function
    def main(self, x: pl.Tensor[[32, 16], pl.FP32], scale: pl.Scalar[pl.FP32], row: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [row, 0], [16, 16])
            u = pl.add(pl.mul(t, scale), scale)
            pl.store(u, [0, 0], o)
        for i in pl.range(row):
            with pl.at(level=pl.Level.CORE_GROUP):
                v = pl.load(o, [0, 0], [16, 16])
                pl.store(pl.sub(v, scale), [0, 0], o)
        return o

# A tiled matmul C = A x B over K in two 16-wide slices, accumulated in a carried tile, then
# scaled; the K loop lives inside the kernel.
import pypto.language as pl

@pl.program
class TiledMatmul:
    @pl.function
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 16], pl.FP32], c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            z = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)
            for k, (acc,) in pl.range(2, init_values=(z,)):
                ta = pl.load(a, [0, k * 16], [16, 16])
                tb = pl.load(b, [k * 16, 0], [16, 16])
                acc = pl.add(acc, pl.tile.matmul(ta, tb))
            pl.store(pl.mul(acc, 0.125), [0, 0], c)
        return c

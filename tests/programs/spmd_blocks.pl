# Spmd: a block-parallel loop over 4 blocks of 8 rows (each block reads its rows by
# get_block_idx after outlining), and a `with pl.spmd(n)` scope whose core count is a scalar
# parameter, every block accumulating into one row with an atomic add.
import pypto.language as pl

@pl.program
class SpmdBlocks:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[32, 64], pl.FP32]], s: pl.InOut[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        for i in pl.spmd(4, name_hint="rows"):
            r = pl.load(a, [i * 8, 0], [8, 64])
            pl.store(pl.sub(pl.mul(r, r), r), [i * 8, 0], o)
        with pl.spmd(n + 1):
            with pl.at(level=pl.Level.CORE_GROUP):
                b = pl.tile.get_block_idx()
                t = pl.load(a, [b, 0], [1, 64])
                pl.store(t, [0, 0], s, atomic=pl.AtomicType.Add)
        return o

# convert-tensor-to-tile-ops on a read of a computed value and a cache policy: tensor.read of a
# value computed into a tile is tile.read; the scope's set_cache_policy becomes a cache= keyword
# on the tile.load of that parameter. The kernel also writes a scalar into an Out tensor (a
# [1, 1] result the caller can read).
import pypto.language as pl

@pl.program
class Materialize:
    @pl.function
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]], r: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.set_cache_policy(x, pl.CachePolicy.BYPASS)
            t = pl.tensor.slice(x, [16, 16], [0, 0])
            u = pl.tensor.add(t, t)
            v = pl.tensor.read(u, [3, 4])
            r1 = pl.tensor.write(r, [0, 0], v)
            o1 = pl.tensor.assemble(o, u, [0, 0])
        return o1

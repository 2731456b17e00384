# Seed 002, "basic extraction": one InCore scope of an Opaque function.
import pypto.language as pl

@pl.program
class Before:
    @pl.function  # Opaque function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.add(x, 1.0)

        with pl.at(level=pl.Level.CORE_GROUP):  # InCore scope
            tile = pl.load(y, [0], [64])
            tile_sq = pl.mul(tile, tile)
            result_tile = pl.add(tile_sq, 1.0)
            result = pl.store(result_tile, [0], x)

        z = pl.add(result, 2.0)
        return z

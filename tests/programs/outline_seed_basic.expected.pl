# Seed 002, "basic extraction", after outline-incore-scopes.
import pypto.language as pl

@pl.program
class After:
    @pl.function(type=pl.FunctionType.Orchestration)  # promoted from Opaque
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.add(x, 1.0)
        result = self.main_incore_0(y, x)  # the scope, replaced by a call
        z = pl.add(result, 2.0)
        return z

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, y: pl.Tensor[[64], pl.FP32], x: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        tile = pl.load(y, [0], [64])
        tile_sq = pl.mul(tile, tile)
        result_tile = pl.add(tile_sq, 1.0)
        result = pl.store(result_tile, [0], x)
        return x  # store target: returns the param, not `result`

# pypto.program: ShapeDistinct
import pypto.language as pl

M = pl.dynamic("M")
N = pl.dynamic("N")

@pl.program
class ShapeDistinct:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, a: pl.Tensor[[M, 64], pl.FP32], oa: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [0, 0], [16, 64])
        u: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(t, t)
        oa1: pl.Tensor[[M, 64], pl.FP32] = pl.tile.store(u, [0, 0], oa)
        return oa

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, 64], pl.FP32], b: pl.Tensor[[N, 64], pl.FP32], oa: pl.Out[pl.Tensor[[M, 64], pl.FP32]], ob: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        oa_1: pl.Tensor[[M, 64], pl.FP32] = self.main_incore_0(a, oa)
        ob_1: pl.Tensor[[N, 64], pl.FP32] = pl._dump.call(self.main_incore_0, b, ob, type=pl.Tensor[[N, 64], pl.FP32])
        return ob_1

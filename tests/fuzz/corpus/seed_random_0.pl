# pypto.program: prog
import pypto.language as pl

V0 = pl.dynamic("V0")

@pl.program
class prog:
    @pl.function(type=pl.FunctionType.InCore)
    def f0(self, a1: pl.Tensor[[32, 128], pl.BF16, pl.TensorView(valid_shape=[V0, 128], stride=[4, 2], layout=pl.TensorLayout.NZ)], a2: pl.Tensor[[pl.const(32, pl.INT64), 16], pl.FP16], p3: pl.Scalar[pl.INT32], p4: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INT32]:
        GF__FREE_VAR: pl.Scalar[pl.FP32]
        for i5 in pl.range(46):
            tl7: pl.Tile[[32, 32], pl.FP16, pl.MemRef("base6", 1024, 4096), pl.Mem.Vec] = pl._dump.call(pl.tile.load, a2, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[32, 32], pl.FP16, pl.MemRef("base6", 1024, 4096), pl.Mem.Vec])
        pl._dump.call(pl.system.notify, pl.cast(9.0, pl.INDEX), channel=2, type=pl._dump.Unknown)
        for i8, (acc9,) in pl.range(47, init_values=(a1,)):
            tl10: pl.Tile[[32, 32], pl.FP16, pl.Mem.Vec, pl.TileView()] = pl._dump.call(pl.tile.load, a2, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[32, 32], pl.FP16, pl.Mem.Vec, pl.TileView()])
            t11: pl.Tensor[[32, 128], pl.BF16, pl.TensorView(valid_shape=[V0, 128], stride=[4, 2], layout=pl.TensorLayout.NZ)] = pl._dump.call(pl.tensor.adds, a1, -5.0 / GF__FREE_VAR, mode=0, round='floor', scale=2.0, type=pl.Tensor[[32, 128], pl.BF16, pl.TensorView(valid_shape=[V0, 128], stride=[4, 2], layout=pl.TensorLayout.NZ)])
            pl._dump.call(pl.system.notify, p4 * 285, channel=2, type=pl._dump.Unknown)
            rv12: pl.Tensor[[32, 128], pl.BF16, pl.TensorView(valid_shape=[V0, 128], stride=[4, 2], layout=pl.TensorLayout.NZ)] = pl.yield_(a1)
        for aiv13 in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT, name_hint="split16"):
            tl14: pl.Tile[[16, 16], pl.BF16, pl.MemRef("base6", 2048, 1024), pl.Mem.Vec] = pl._dump.call(pl.tile.load, a1, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[16, 16], pl.BF16, pl.MemRef("base6", 2048, 1024), pl.Mem.Vec])
            t15: pl.Tensor[[pl.const(32, pl.INT64), 16], pl.FP16] = pl.tensor.sub(a2, a2)
        return p3

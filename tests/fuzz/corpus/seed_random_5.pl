# pypto.program: prog
import pypto.language as pl

M11 = pl.dynamic("M11")

@pl.program
class prog:
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.HOST)
    def f0(self, a1: pl.Tensor[[128], pl.FP32, pl.TensorView(pad=pl.PadValue.zero)], a2: pl.Tensor[[128], pl.FP32, pl.TensorView(pad=pl.PadValue.zero)], a3: pl.Tensor[[128], pl.FP32, pl.TensorView(pad=pl.PadValue.zero)], n0: pl.Scalar[pl.INDEX]) -> tuple[pl.Tensor[[128], pl.FP32, pl.TensorView(pad=pl.PadValue.zero)], pl.Tensor[[128], pl.FP32, pl.TensorView(pad=pl.PadValue.zero)]]:
        s4: pl.Scalar[pl.BOOL] = not pl.const(216, pl.INT32) == pl.const(215, pl.INT32)
        pl._dump.call(pl.system.notify, pl.max(n0, G0__FREE_VAR), channel=3, type=pl._dump.Unknown)
        tl5: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl._dump.call(pl.tile.load, a1, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec])
        s6: pl.Scalar[pl.INT32] = pl.max(pl.const(73, pl.INT32) & pl.const(270, pl.INT32), pl.const(35, pl.INT32) - pl.const(174, pl.INT32)) + pl.max(pl.const(220, pl.INT32), pl.const(1, pl.INT32) & pl.const(176, pl.INT32))
        return a2, a2

    @pl.function
    def f1(self, a7: pl.Tensor[[128, 128, 16], pl.INT8], a8: pl.Tensor[[pl.const(16, pl.INT64), 16, 64], pl.BF16]) -> tuple[pl.Tensor[[pl.const(16, pl.INT64), 16, 64], pl.BF16], pl.Tensor[[pl.const(16, pl.INT64), 16, 64], pl.BF16]]:
        pl.func_attr({"priority": 4})
        pl._dump.call(pl.system.notify, 1, channel=0, type=pl._dump.Unknown)
        tl10: pl.Tile[[32, 32], pl.BF16, pl.MemRef("base9", 2048, 4096, pinned=True), pl.Mem.Vec] = pl._dump.call(pl.tile.load, a8, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[32, 32], pl.BF16, pl.MemRef("base9", 2048, 4096, pinned=True), pl.Mem.Vec])
        return a8, a8

    @pl.function(type=pl.FunctionType.Orchestration)
    def f2(self, a12: pl.Tensor[[128, 32, M11], pl.FP16], a13: pl.Out[pl.Tensor[[128, 32, M11], pl.FP16]], a14: pl.Tensor[[128, 32, M11], pl.FP16]) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX]]:
        pl._dump.call(pl.system.notify, M11 * 44, channel=3, type=pl._dump.Unknown)
        if True:
            t15: pl.Tensor[[128, 32, M11], pl.FP16] = pl.tensor.mul(a14, a13)
            phi21: pl.Tensor[[128, 32, M11], pl.FP16] = pl.yield_(a14)
        else:
            if M11 < M11 and (True and True):
                tl16: pl.Tile[[32, 32], pl.FP16, pl.Mem.Vec, pl.TileView(start_offset=0, blayout=pl.TileLayout.col_major)] = pl._dump.call(pl.tile.load, a12, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[32, 32], pl.FP16, pl.Mem.Vec, pl.TileView(start_offset=0, blayout=pl.TileLayout.col_major)])
                t17: pl.Tensor[[128, 32, M11], pl.FP16] = pl.tensor.mul(a14, a14)
            for aiv18 in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT, name_hint="split20"):
                t19: pl.Tensor[[128, 32, M11], pl.FP16] = pl._dump.call(pl.tensor.adds, a14, -5.75, mode=3, round='rint', scale=1.5, type=pl.Tensor[[128, 32, M11], pl.FP16])
            phi21: pl.Tensor[[128, 32, M11], pl.FP16] = pl.yield_(a12)
        t22: pl.Tensor[[128, 32, M11], pl.FP16] = pl.tensor.mul(phi21, phi21)
        return M11, M11

# pypto.program: prog
import pypto.language as pl

M36 = pl.dynamic("M36")
M9 = pl.dynamic("M9")
V10 = pl.dynamic("V10")

@pl.program
class prog:
    @pl.function(type=pl.FunctionType.AIV)
    def f0(self, a1: pl.Tensor[[n0, pl.const(128, pl.INT64), 64], pl.FP16], a2: pl.Tensor[[16, 16], pl.FP16], n0: pl.Scalar[pl.INDEX]) -> tuple[pl.Tensor[[n0, pl.const(128, pl.INT64), 64], pl.FP16], pl.Tensor[[16, 16], pl.FP16]]:
        pl._dump.call(pl.system.notify, 105, channel=2, type=pl._dump.Unknown)
        for i3, (acc4, acc5) in pl.range(0, 9, 2, init_values=(a1, n0)):
            s6: pl.Scalar[pl.BOOL] = False
            rv7, rv8 = pl._dump.yield_(acc4, acc5, types=[pl.Tensor[[n0, pl.const(128, pl.INT64), 64], pl.FP16], pl.Scalar[pl.INDEX]])
        return rv7, a2

    @pl.function
    def f1(self, a11: pl.Tensor[[M9, 64], pl.FP32], a12: pl.Tensor[[16, 16], pl.BF16, pl.TensorView(valid_shape=[V10, 16], stride=[4, 2], pad=pl.PadValue.zero)], p13: pl.Scalar[pl.FP32]) -> pl.Tensor[[16, 16], pl.BF16, pl.TensorView(valid_shape=[V10, 16], stride=[4, 2], pad=pl.PadValue.zero)]:
        for i14, (acc15, acc16) in pl.parallel(0, M9, 2, init_values=(a11, M9)):
            tl18: pl.Tile[[32, 32], pl.FP32, pl.MemRef("base17", 2048, 4096), pl.Mem.Vec] = pl._dump.call(pl.tile.load, a11, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[32, 32], pl.FP32, pl.MemRef("base17", 2048, 4096), pl.Mem.Vec])
            rv19, rv20 = pl._dump.yield_(a11, acc16, types=[pl.Tensor[[M9, 64], pl.FP32], pl.Scalar[pl.INDEX]])
        s21: pl.Scalar[pl.INDEX] = 256
        for i22, (acc23, acc24) in pl.range(M9, init_values=(p13, p13)):
            tl25: pl.Tile[[32, 32], pl.BF16, pl.Mem.Vec, pl.TileView(start_offset=0, blayout=pl.TileLayout.col_major)] = pl._dump.call(pl.tile.load, a12, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[32, 32], pl.BF16, pl.Mem.Vec, pl.TileView(start_offset=0, blayout=pl.TileLayout.col_major)])
            task26: pl.Tuple[pl.Tensor[[16, 16], pl.BF16, pl.TensorView(valid_shape=[V10, 16], stride=[4, 2], pad=pl.PadValue.zero)], pl.Scalar[pl.TASK_ID]] = pl._dump.submit(self.f0, a12, sync_start=True, type=pl.Tuple[pl.Tensor[[16, 16], pl.BF16, pl.TensorView(valid_shape=[V10, 16], stride=[4, 2], pad=pl.PadValue.zero)], pl.Scalar[pl.TASK_ID]])
            out27: pl.Tensor[[16, 16], pl.BF16, pl.TensorView(valid_shape=[V10, 16], stride=[4, 2], pad=pl.PadValue.zero)] = task26[0]
            tid28: pl.Scalar[pl.TASK_ID] = task26[1]
            rv29, rv30 = pl._dump.yield_(p13, p13, types=[pl.Scalar[pl.FP32], pl.Scalar[pl.FP32]])
        tl31: pl.Tile[[16, 16], pl.FP32, pl.MemRef("base17", 3072, 1024), pl.Mem.Vec, pl.TileView()] = pl._dump.call(pl.tile.load, rv19, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[16, 16], pl.FP32, pl.MemRef("base17", 3072, 1024), pl.Mem.Vec, pl.TileView()])
        if False and False and pl.const(172, pl.INT32) == pl.const(164, pl.INT32):
            tl32: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl._dump.call(pl.tile.load, rv19, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec])
            s33: pl.Scalar[pl.INT64] = abs(pl.const(14, pl.INT64)) * pl.cast(-0.0, pl.INT64) // pl.const(177, pl.INT64)
            phi35: pl.Tile[[16, 16], pl.FP32, pl.MemRef("base17", 3072, 1024), pl.Mem.Vec, pl.TileView()] = pl.yield_(tl31)
        else:
            tl34: pl.Tile[[32, 32], pl.FP32, pl.MemRef("base17", 3072, 4096), pl.Mem.Vec] = pl._dump.call(pl.tile.load, a11, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[32, 32], pl.FP32, pl.MemRef("base17", 3072, 4096), pl.Mem.Vec])
            phi35: pl.Tile[[16, 16], pl.FP32, pl.MemRef("base17", 3072, 1024), pl.Mem.Vec, pl.TileView()] = pl.yield_(tl31)
        return a12

    @pl.function(type=pl.FunctionType.Orchestration)
    def f2(self, a37: pl.Tensor[[M36], pl.FP32], a38: pl.Tensor[[32, 64, M36], pl.INT8]) -> pl.Tensor[[32, 64, M36], pl.INT8]:
        pl.func_attr({"priority": 0})
        tl40: pl.Tile[[32, 32], pl.INT8, pl.MemRef("base39", 1024, 4096), pl.Mem.Vec] = pl._dump.call(pl.tile.load, a38, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[32, 32], pl.INT8, pl.MemRef("base39", 1024, 4096), pl.Mem.Vec])
        for i41 in pl.unroll(M36):
            s42: pl.Scalar[pl.INT32] = pl.const(84, pl.INT32)
            t43: pl.Tensor[[M36], pl.FP32] = pl.tensor.add(a37, a37)
            for i44, (acc45,) in pl.range(0, i41, 2, init_values=(a37,)):
                t46: pl.Tensor[[32, 64, M36], pl.INT8] = pl._dump.call(pl.tensor.adds, a38, 9.25 * pl._dump.float64("7ff0000000000000"), mode=3, round='rint', scale=0.5, type=pl.Tensor[[32, 64, M36], pl.INT8])
                t47: pl.Tensor[[32, 64, M36], pl.INT8] = pl.tensor.add(t46, a38)
                rv48: pl.Tensor[[M36], pl.FP32] = pl.yield_(t43)
        return a38

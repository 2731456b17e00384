# pypto.program: prog
import pypto.language as pl

M8 = pl.dynamic("M8")
V26 = pl.dynamic("V26")

@pl.program
class prog:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f0(self, a0: pl.Tensor[[pl.const(64, pl.INT64), 64, pl.const(128, pl.INT64)], pl.FP16], a1: pl.InOut[pl.Tensor[[pl.const(64, pl.INT64), 64, pl.const(128, pl.INT64)], pl.FP16]], p2: pl.Scalar[pl.INDEX]):
        pl.func_attr({"priority": 3})
        with pl.scope():
            for i3, (acc4,) in pl.range(40, init_values=(a1,)):
                t5: pl.Tensor[[pl.const(64, pl.INT64), 64, pl.const(128, pl.INT64)], pl.FP16] = pl.tensor.sub(acc4, a1)
                rv6: pl.Tensor[[pl.const(64, pl.INT64), 64, pl.const(128, pl.INT64)], pl.FP16] = pl.yield_(t5)
        s7: pl.Scalar[pl.INDEX] = 124
        return

    @pl.function(type=pl.FunctionType.AIV)
    def f1(self, a9: pl.Tensor[[16, 16], pl.INT8], a10: pl.Tensor[[M8, 128, M8 + 1], pl.INT8], a11: pl.Tensor[[M8, 128, M8 + 1], pl.INT8], p12: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.INDEX]:
        pl.func_attr({"note": "hot"})
        tl13: pl.Tile[[32, 32], pl.INT8, pl.Mem.Vec] = pl._dump.call(pl.tile.load, a11, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[32, 32], pl.INT8, pl.Mem.Vec])
        for i14, (acc15,) in pl.range(0, 46, 2, init_values=(a9,)):
            tl16: pl.Tile[[16, 16], pl.INT8, pl.Mem.Vec] = pl._dump.call(pl.tile.load, a9, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[16, 16], pl.INT8, pl.Mem.Vec])
            rv17: pl.Tensor[[16, 16], pl.INT8] = pl.yield_(acc15)
        t18: pl.Tensor[[M8, 128, M8 + 1], pl.INT8] = pl.tensor.mul(a10, a10)
        if False:
            t19: pl.Tensor[[M8, 128, M8 + 1], pl.INT8] = pl._dump.call(pl.tensor.adds, t18, pl.cast(127, pl.FP32), mode=3, round='rint', type=pl.Tensor[[M8, 128, M8 + 1], pl.INT8])
            for aiv20 in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT, name_hint="split23"):
                s21: pl.Scalar[pl.FP16] = pl.const(0.0, pl.FP16)
                s22: pl.Scalar[pl.INT64] = pl.const(175, pl.INT64)
        t24: pl.Tensor[[M8, 128, M8 + 1], pl.INT8] = pl._dump.call(pl.tensor.adds, a10, -4.5, mode=0, round='floor', scale=4.0, attrs={"tags": [7, "t", pl.Mem.Vec], "dtype": pl.FP16}, type=pl.Tensor[[M8, 128, M8 + 1], pl.INT8])
        return M8

    @pl.function(type=pl.FunctionType.Orchestration)
    def f2(self, a27: pl.Tensor[[32, 64, n25], pl.FP32], a28: pl.Tensor[[pl.const(32, pl.INT64), pl.const(32, pl.INT64)], pl.FP16, pl.TensorView(valid_shape=[V26, pl.const(32, pl.INT64)], stride=[4, 2])], p29: pl.Scalar[pl.INT32], n25: pl.Scalar[pl.INDEX]):
        pl.func_attr({"note": "hot"})
        t30: pl.Tensor[[32, 64, n25], pl.FP32] = pl.tensor.maximum(a27, a27)
        for i31, (acc32,) in pl.parallel(0, 55, 2, init_values=(a27,)):
            for aiv33 in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT, name_hint="split35"):
                t34: pl.Tensor[[32, 64, n25], pl.FP32] = pl.tensor.mul(acc32, t30)
                pl._dump.call(pl.system.notify, pl.max(154, aiv33), channel=0, type=pl._dump.Unknown)
            rv36: pl.Tensor[[32, 64, n25], pl.FP32] = pl.yield_(t30)
        tl38: pl.Tile[[16, 16], pl.FP32, pl.MemRef("base37", 3072, 1024), pl.Mem.Vec] = pl._dump.call(pl.tile.load, a27, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[16, 16], pl.FP32, pl.MemRef("base37", 3072, 1024), pl.Mem.Vec])
        return

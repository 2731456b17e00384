# pypto.program: prog
import pypto.language as pl

M0 = pl.dynamic("M0")
M1 = pl.dynamic("M1")
V15 = pl.dynamic("V15")

@pl.program
class prog:
    @pl.function(type=pl.FunctionType.InCore)
    def f0(self, a2: pl.Tensor[[M0], pl.INT8], a3: pl.Tensor[[M0 + 1, M1, 128], pl.INT8], p4: pl.Scalar[pl.INT32], a5: pl.Tensor[[M0 + 1, M1, 128], pl.INT8]) -> tuple[pl.Tensor[[M0 + 1, M1, 128], pl.INT8], pl.Tensor[[M0 + 1, M1, 128], pl.INT8]]:
        for i6 in pl.parallel(M0):
            pl._dump.call(pl.system.notify, 176 + i6, channel=1, type=pl._dump.Unknown)
            tl8: pl.Tile[[16, 16], pl.INT8, pl.MemRef("base7", 1024, 1024, pinned=True), pl.Mem.Vec, pl.TileView(start_offset=0, blayout=pl.TileLayout.col_major)] = pl._dump.call(pl.tile.load, a2, [0, 0], target_memory=pl.Mem.Vec, type=pl.Tile[[16, 16], pl.INT8, pl.MemRef("base7", 1024, 1024, pinned=True), pl.Mem.Vec, pl.TileView(start_offset=0, blayout=pl.TileLayout.col_major)])
            t9: pl.Tensor[[M0 + 1, M1, 128], pl.INT8] = pl._dump.call(pl.tensor.adds, a5, pl.cast(133, pl.FP32), mode=0, round='rint', scale=2.0, exact=False, attrs={"tags": [5, "t", pl.Mem.Vec]}, type=pl.Tensor[[M0 + 1, M1, 128], pl.INT8])
        for aiv10 in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT, name_hint="split13"):
            t11: pl.Tensor[[M0 + 1, M1, 128], pl.INT8] = pl._dump.call(pl.tensor.adds, a3, -0.5 + -0.0, mode=1, round='rint', scale=1.5, exact=True, type=pl.Tensor[[M0 + 1, M1, 128], pl.INT8])
            s12: pl.Scalar[pl.INT64] = pl.const(108, pl.INT64) // pl.const(9, pl.INT64)
        s14: pl.Scalar[pl.INDEX] = M1 & M0
        pl._dump.call(pl.system.notify, abs(75), channel=0, type=pl._dump.Unknown)
        pl._dump.call(pl.system.notify, abs(M0), channel=3, type=pl._dump.Unknown)
        return a3, a5

    @pl.function(type=pl.FunctionType.AIV)
    def f1(self, a16: pl.Tensor[[32, 16], pl.INT8, pl.TensorView(valid_shape=[V15, 16], stride=[4, 2], pad=pl.PadValue.zero)], a17: pl.Tensor[[128], pl.FP16, pl.TensorView(pad=pl.PadValue.zero)], a18: pl.Tensor[[32, 16], pl.INT8, pl.TensorView(valid_shape=[V15, 16], stride=[4, 2], pad=pl.PadValue.zero)]) -> pl.Tensor[[128], pl.FP16, pl.TensorView(pad=pl.PadValue.zero)]:
        pl.func_attr({"priority": 5, "note": "hot"})
        s19: pl.Scalar[pl.INT32] = pl.min(pl.const(242, pl.INT32) // pl.const(282, pl.INT32) & pl.const(232, pl.INT32) - pl.const(11, pl.INT32), pl.max(pl.const(292, pl.INT32), pl.const(122, pl.INT32)) - pl.const(251, pl.INT32))
        for i20, (acc21,) in pl.range(0, 29, 2, init_values=(a18,)):
            with pl.scope():
                t22: pl.Tensor[[128], pl.FP16, pl.TensorView(pad=pl.PadValue.zero)] = pl._dump.call(pl.tensor.adds, a17, 5.0 / -0.5, mode=2, round='floor', attrs={"tags": [4, "t", pl.Mem.Vec]}, type=pl.Tensor[[128], pl.FP16, pl.TensorView(pad=pl.PadValue.zero)])
                s23: pl.Scalar[pl.FP16] = pl.const(pl._dump.float64("7ff0000000000000"), pl.FP16)
            for i24, (acc25,) in pl.range(0, 58, 2, init_values=(a18,)):
                task26: pl.Tuple[pl.Tensor[[32, 16], pl.INT8, pl.TensorView(valid_shape=[V15, 16], stride=[4, 2], pad=pl.PadValue.zero)], pl.Scalar[pl.TASK_ID]] = pl._dump.submit(self.f0, acc21, a17, type=pl.Tuple[pl.Tensor[[32, 16], pl.INT8, pl.TensorView(valid_shape=[V15, 16], stride=[4, 2], pad=pl.PadValue.zero)], pl.Scalar[pl.TASK_ID]])
                out27: pl.Tensor[[32, 16], pl.INT8, pl.TensorView(valid_shape=[V15, 16], stride=[4, 2], pad=pl.PadValue.zero)] = task26[0]
                tid28: pl.Scalar[pl.TASK_ID] = task26[1]
                rv29: pl.Tensor[[32, 16], pl.INT8, pl.TensorView(valid_shape=[V15, 16], stride=[4, 2], pad=pl.PadValue.zero)] = pl.yield_(acc21)
            t30: pl.Tensor[[32, 16], pl.INT8, pl.TensorView(valid_shape=[V15, 16], stride=[4, 2], pad=pl.PadValue.zero)] = pl.tensor.mul(a18, a18)
            rv31: pl.Tensor[[32, 16], pl.INT8, pl.TensorView(valid_shape=[V15, 16], stride=[4, 2], pad=pl.PadValue.zero)] = pl.yield_(a16)
        for i32, (acc33,) in pl.parallel(55, init_values=(s19,)):
            t34: pl.Tensor[[32, 16], pl.INT8, pl.TensorView(valid_shape=[V15, 16], stride=[4, 2], pad=pl.PadValue.zero)] = pl._dump.call(pl.tensor.adds, rv31, pl._dump.float64("7ff8000000000003") / -10.0, mode=3, round='floor', attrs={"dtype": pl.FP16}, type=pl.Tensor[[32, 16], pl.INT8, pl.TensorView(valid_shape=[V15, 16], stride=[4, 2], pad=pl.PadValue.zero)])
            if False:
                s35: pl.Scalar[pl.INT32] = pl.const(157, pl.INT32)
                phi37: pl.Scalar[pl.INT32] = pl.yield_(s35)
            else:
                pl._dump.call(pl.system.notify, pl.max(128, i32), channel=2, type=pl._dump.Unknown)
                t36: pl.Tensor[[32, 16], pl.INT8, pl.TensorView(valid_shape=[V15, 16], stride=[4, 2], pad=pl.PadValue.zero)] = pl.tensor.mul(t34, a18)
                phi37: pl.Scalar[pl.INT32] = pl.yield_(acc33)
            with pl.scope(mode=pl.ScopeMode.MANUAL):
                s38: pl.Scalar[pl.FP16] = pl.const(-0.0, pl.FP16) * pl.const(pl._dump.float64("7ff0000000000000"), pl.FP16)
            rv39: pl.Scalar[pl.INT32] = pl.yield_(acc33)
        t40: pl.Tensor[[32, 16], pl.INT8, pl.TensorView(valid_shape=[V15, 16], stride=[4, 2], pad=pl.PadValue.zero)] = pl.tensor.sub(a16, a16)
        pl._dump.call(pl.system.notify, 297 - 240, channel=3, type=pl._dump.Unknown)
        return a17

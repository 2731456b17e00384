# pypto.program: prog
import pypto.language as pl

M0 = pl.dynamic("M0")

@pl.program
class prog:
    @pl.function(type=pl.FunctionType.AIV)
    def f0(self, a1: pl.Tensor[[16, pl.const(16, pl.INT64), M0], pl.INT8], a2: pl.Tensor[[16, pl.const(16, pl.INT64), M0], pl.INT8], p3: pl.Scalar[pl.FP32]) -> pl.Tensor[[16, pl.const(16, pl.INT64), M0], pl.INT8]:
        for i4, (acc5, acc6) in pl.range(0, M0, 2, init_values=(a2, a1)):
            s7: pl.Scalar[pl.BOOL] = not pl.cast(p3, pl.INT32) == pl.cast(p3, pl.INT32)
            rv8, rv9 = pl._dump.yield_(acc5, acc5, types=[pl.Tensor[[16, pl.const(16, pl.INT64), M0], pl.INT8], pl.Tensor[[16, pl.const(16, pl.INT64), M0], pl.INT8]])
        t10: pl.Tensor[[16, pl.const(16, pl.INT64), M0], pl.INT8] = pl.tensor.mul(a1, rv9)
        return t10

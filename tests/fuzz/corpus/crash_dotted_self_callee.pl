# pypto.program: Demo
import pypto.language as pl

@pl.program
class Demo:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, a__ssa_v0: pl.Tensor[[32, 32], pl.FP32],_v0: pl.Tensor[[32, 32], pl.FP32],
             o__ssa_v0: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        o__ssa_v1: pl.Tensor[[90, 32], pl.FP32] = self.main_incore_pl.split_aiv(o__ssa_v0)
        for i, (acc,) in pl.range(4, init_values=(o__ssa_v1,)):
            x = i * 2 + 1
            acc2 = self.main_incore_0(a__ssa_v0, acc)
            r = pl.yield_(acc2)
        if x < 3:
            y: pl.Scalar[pl.INDEX] = pl.yield_(x)
        else:
            y = pl.yield_(5)
        with pl.at(level=pl.Level.CORE_GRRUP, name_hint="fused"):
            z: pl.Tensor[[32, 32], pl.FP32] = pl.tensor.add(r, r)
        return r

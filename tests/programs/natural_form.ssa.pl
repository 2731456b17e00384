# natural_form.pl after convert-to-ssa (checked with --assert-equal: names do not matter).
# pypto.program: NaturalForm
import pypto.language as pl

@pl.program
class NaturalForm:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x, x)
        y__ssa_v1: pl.Tensor[[64], pl.FP32] = pl.tensor.add(y, x)
        for i, (y__iter_v1,) in pl.range(n, init_values=(y__ssa_v1,)):
            y__ssa_v2: pl.Tensor[[64], pl.FP32] = pl.tensor.mul(y__iter_v1, x)
            y__rv_v1: pl.Tensor[[64], pl.FP32] = pl.yield_(y__ssa_v2)
        for j, (acc,) in pl.range(n, init_values=(y__rv_v1,)):
            acc__ssa_v1: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc, x)
            acc__rv_v1: pl.Tensor[[64], pl.FP32] = pl.yield_(acc__ssa_v1)
        for k, (out__iter_v1,) in pl.range(4, init_values=(out,)):
            t: pl.Tile[[64], pl.FP32] = pl.tile.load(acc__rv_v1, [0], [64])
            out__ssa_v1: pl.Tensor[[64], pl.FP32] = pl.tile.store(t, [0], out__iter_v1)
            out__rv_v1: pl.Tensor[[64], pl.FP32] = pl.yield_(out__ssa_v1)
        if n < 2:
            y__ssa_v3: pl.Tensor[[64], pl.FP32] = pl.tensor.add(y__rv_v1, acc__rv_v1)
            y__phi_v1: pl.Tensor[[64], pl.FP32] = pl.yield_(y__ssa_v3)
        else:
            y__phi_v1: pl.Tensor[[64], pl.FP32] = pl.yield_(y__rv_v1)
        m: pl.Scalar[pl.INDEX] = 0
        for (m__iter_v1,) in pl.while_(init_values=(m,)):
            pl.cond(m__iter_v1 < n)
            m__ssa_v1: pl.Scalar[pl.INDEX] = m__iter_v1 + 1
            m__rv_v1: pl.Scalar[pl.INDEX] = pl.yield_(m__ssa_v1)
        with pl.at(level=pl.Level.CORE_GROUP):
            y__ssa_v4: pl.Tensor[[64], pl.FP32] = pl.tensor.add(y__phi_v1, out__rv_v1)
        z: pl.Tensor[[64], pl.FP32] = pl.tensor.add(y__ssa_v4, y__ssa_v4)
        return z

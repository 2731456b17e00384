# The natural form ConvertToSSA reads (expected: natural_form.ssa.pl): rebinding, a loop carry, a
# pre-SSA loop without yield, a store into a pl.Out parameter in a loop, an if rebinding in one
# branch, a while loop and a scope whose definitions are read after it.
import pypto.language as pl

@pl.program
class NaturalForm:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.add(x, x)
        y = pl.add(y, x)
        for i in pl.range(n):
            y = pl.mul(y, x)
        for j, (acc,) in pl.range(n, init_values=(y,)):
            acc = pl.add(acc, x)
        for k in pl.range(4):
            t = pl.load(acc, [0], [64])
            out = pl.store(t, [0], out)
        if n < 2:
            y = pl.add(y, acc)
        m = 0
        while m < n:
            m = m + 1
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.add(y, out)
        z = pl.add(y, y)
        return z

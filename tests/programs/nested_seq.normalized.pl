# nested_seq.pl after normalize-stmt-structure: one flat sequence per body slot.
import pypto.language as pl

@pl.program
class NestedSeq:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        # the first sum
        y: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x, x)
        z: pl.Tensor[[64], pl.FP32] = pl.tensor.add(y, x)
        for i, (acc,) in pl.range(n, init_values=(z,)):
            t: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc, x)
            acc_rv: pl.Tensor[[64], pl.FP32] = pl.yield_(t)
        if n < 2:
            w: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc_rv, x)
        with pl.at(level=pl.Level.CORE_GROUP):
            u: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc_rv, acc_rv)
        return acc_rv

# A program whose bodies nest sequences (pl._dump.seq) and hold lone statements
# (pl._dump.stmt): the input of normalize-stmt-structure (expected: nested_seq.normalized.pl).
import pypto.language as pl

@pl.program
class NestedSeq:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        with pl._dump.seq():
            # the first sum
            y: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x, x)
            with pl._dump.seq():
                z: pl.Tensor[[64], pl.FP32] = pl.tensor.add(y, x)
        for i, (acc,) in pl.range(n, init_values=(z,)):
            with pl._dump.seq():
                t: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc, x)
            acc_rv: pl.Tensor[[64], pl.FP32] = pl.yield_(t)
        if n < 2:
            with pl._dump.stmt():
                w: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc_rv, x)
        with pl.at(level=pl.Level.CORE_GROUP):
            with pl._dump.seq():
                with pl._dump.seq():
                    u: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc_rv, acc_rv)
        return acc_rv

# Two orchestrations no function calls, as a program of independent entries has them: --run
# runs and checks each in turn.
import pypto.language as pl

@pl.program
class TwoEntries:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: pl.Tensor[[16, 16], pl.FP32], f: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        return pl.store(pl.add(t, t), [0, 0], f)

    @pl.function(type=pl.FunctionType.InCore)
    def neg(self, a: pl.Tensor[[16, 16], pl.FP32], f: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        return pl.store(pl.neg(t), [0, 0], f)

    @pl.function(type=pl.FunctionType.Orchestration)
    def doubled(self, a: pl.Tensor[[16, 16], pl.FP32], f: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        return self.add(a, f)

    @pl.function(type=pl.FunctionType.Orchestration)
    def negated(self, a: pl.Tensor[[16, 16], pl.FP32], f: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        return self.neg(a, f)

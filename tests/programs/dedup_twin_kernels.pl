# Seed 001's example after outlining: step and step_copy are the same kernel; unused_twin is
# equal too but referenced by nothing, so it stays as a potential entry.
import pypto.language as pl

@pl.program
class Twins:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x1 = self.step(x0, o1)
        x2 = self.step_copy(x1, o2)
        return x2

    @pl.function(type=pl.FunctionType.InCore)
    def step(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        u = pl.add(t, 1.0)
        pl.store(u, [0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def step_copy(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        u = pl.add(t, 1.0)
        pl.store(u, [0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def unused_twin(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        u = pl.add(t, 1.0)
        pl.store(u, [0], o)
        return o

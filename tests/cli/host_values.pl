# A program as upstream's test factories write it: rows, dtype and scale are the factory's
# variables, given on the command line (--define=rows=16 --define=dtype=pl.FP32 ...).
import pypto.language as pl

@pl.program
class Scaled:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[rows, 64], dtype], out: pl.Out[pl.Tensor[[rows, 64], dtype]]) -> pl.Tensor[[rows, 64], dtype]:
        t = pl.load(x, [0, 0], [rows, 64])
        u = pl.muls(t, scale)
        return pl.store(u, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[rows, 64], dtype], out: pl.Out[pl.Tensor[[rows, 64], dtype]]) -> pl.Tensor[[rows, 64], dtype]:
        return self.kernel(x, out)

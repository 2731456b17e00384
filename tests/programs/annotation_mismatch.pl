# The annotation on line 8 says INT32, the inferred type of pl.tensor.add(x, x) is FP32.
import pypto.language as pl

@pl.program
class Mismatch:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.INT32] = pl.tensor.add(x, x)
        return y

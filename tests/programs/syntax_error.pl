# A program with a syntax error: the assignment on line 8 has no value.
import pypto.language as pl

@pl.program
class Broken:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] =
        return y

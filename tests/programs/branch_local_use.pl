# A variable defined in one branch only and read after the if: convert-to-ssa rejects it by name.
import pypto.language as pl

@pl.program
class BranchLocal:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        if n < 2:
            z = pl.add(x, x)
        return z

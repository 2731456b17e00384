import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class Source:
    @pl.function
    def kernel(self, x: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]):
        """Adds x to itself four times."""
        acc = pl.add(x, x)  # a short op name on tensors is tensor.add
        for i in pl.range(4):
            acc = pl.add(acc, x)
        t = pl.load(x, [0, 0], [16, 64])
        t = pl.mul(t, t)
        pl.store(t, [0, 0], out)
        n = 0
        n += 1

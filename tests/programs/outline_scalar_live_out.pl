# A scalar read from device memory inside a kernel and used by the caller: kernels cannot
# return scalars and the caller cannot recompute a device read, so outlining names `n`.
import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.INDEX], out: pl.Out[pl.Tensor[[64], pl.INDEX]]) -> pl.Tensor[[64], pl.INDEX]:
        with pl.at(level=pl.Level.CORE_GROUP):
            n = pl.tensor.read(x, [0])
            t = pl.load(x, [0], [64])
            pl.store(t, [0], out)
        tail = pl.load(out, [n], [64])
        return out

# FP16 and BF16: the same computation (y = (x + x) * x, stored, and its row sums) in FP16 and
# in BF16. The two kernels differ only in dtype, so dedup keeps both; a second FP16 scope equal
# to the first is merged with it. Values round to the dtype after every op.
import pypto.language as pl

@pl.program
class HalfPrecision:
    @pl.function
    def main(self, h: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[16, 32], pl.BF16], oh: pl.Out[pl.Tensor[[16, 32], pl.FP16]], ob: pl.Out[pl.Tensor[[16, 32], pl.BF16]], oh2: pl.Out[pl.Tensor[[16, 32], pl.FP16]], sums: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP16]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="fp16_kernel"):
            t = pl.load(h, [0, 0], [16, 32])
            pl.store(pl.mul(pl.add(t, t), t), [0, 0], oh)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="bf16_kernel"):
            t = pl.load(b, [0, 0], [16, 32])
            pl.store(pl.mul(pl.add(t, t), t), [0, 0], ob)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="fp16_kernel_again"):
            t = pl.load(oh, [0, 0], [16, 32])
            pl.store(pl.mul(pl.add(t, t), t), [0, 0], oh2)
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(oh2, [0, 0], [16, 32])
            s = pl.tile.row_sum(t, t)
            pl.store(pl.tile.cast(s, target_type=pl.FP32), [0, 0], sums)
        return oh2

# NaNs whose sign the host compiler may choose: sqrt of a negative input is a NaN, and
# q = r / -r is one too. Compiled at -O2, GCC evaluates r / -r as -r / r, which gives the NaN of
# the other sign; IEEE 754 leaves that sign open, so the CPU target and the interpreter agree
# when both give a NaN. Zeros keep their sign: z / -1.0 of a +0.0 is -0.0, in every run.
import pypto.language as pl

@pl.program
class NanSigns:
    @pl.function
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]], z: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="nan_quotient"):
            t = pl.load(x, [0, 0], [16, 32])
            r = pl.tile.sqrt(t)
            q = pl.div(r, pl.neg(r))
            o = pl.store(q, [0, 0], o)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="signed_zero_quotient"):
            t = pl.load(x, [0, 0], [16, 32])
            zero = pl.sub(t, t)
            w = pl.div(zero, -1.0)
            z = pl.store(w, [0, 0], z)
        return o

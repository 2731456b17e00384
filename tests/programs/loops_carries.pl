# Loops with carries around and inside kernels: a for with iter_args whose body is a kernel
# scope (the accumulator is threaded through the outlined call), nested loops with a kernel in
# the inner one writing row blocks of an Out tensor, a loop inside a kernel carrying a tile,
# and a while loop on a scalar carry that decides how often a kernel runs.
import pypto.language as pl

@pl.program
class LoopsCarries:
    @pl.function
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX], acc: pl.Out[pl.Tensor[[32, 64], pl.FP32]], grid: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t0 = pl.load(x, [0, 0], [32, 64])
            pl.store(t0, [0, 0], acc)
        for i, (s,) in pl.range(n, init_values=(acc,)):
            with pl.at(level=pl.Level.CORE_GROUP):
                u = pl.load(s, [0, 0], [32, 64])
                v = pl.load(x, [0, 0], [32, 64])
                w = pl.add(pl.mul(u, 0.5), v)
                s = pl.store(w, [0, 0], s)
        for r in pl.range(2):
            for c in pl.range(0, 64, 32):
                with pl.at(level=pl.Level.CORE_GROUP):
                    b = pl.load(x, [r * 16, c], [16, 32])
                    p = b
                    for k, (q,) in pl.range(3, init_values=(p,)):
                        q = pl.sub(pl.mul(q, b), 0.25)
                    pl.store(q, [r * 16, c], grid)
        m = 0
        while m < n:
            with pl.at(level=pl.Level.CORE_GROUP):
                g = pl.load(grid, [0, 0], [32, 64])
                pl.store(pl.maximum(g, pl.neg(g)), [0, 0], grid)
            m = m + 2
        return s

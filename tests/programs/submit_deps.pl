# Tasks: scopes named with `as tid` become Submits, deps= their dependencies. A three-stage
# chain (load-scale, exp of the negation, sum of both) where the last task waits on both.
import pypto.language as pl

@pl.program
class SubmitDeps:
    @pl.function
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], kv: pl.Out[pl.Tensor[[32, 32], pl.FP32]], e: pl.Out[pl.Tensor[[32, 32], pl.FP32]], o: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP) as t0:
            tx = pl.load(x, [0, 0], [32, 32])
            kv1 = pl.store(pl.mul(tx, 0.75), [0, 0], kv)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[t0]) as t1:
            tk = pl.load(kv1, [0, 0], [32, 32])
            e1 = pl.store(pl.exp(pl.neg(tk)), [0, 0], e)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[t0, t1]) as t2:
            a = pl.load(kv1, [0, 0], [32, 32])
            b = pl.load(e1, [0, 0], [32, 32])
            o1 = pl.store(pl.add(a, b), [0, 0], o)
        return o1

# A Group bundle: a cluster scope calling a cube kernel (AIC: matmul) and a vector kernel (AIV:
# bias add and relu-like max on the cube's result) becomes one Group function with an AIC and an
# AIV member. The cluster runs twice on two weight matrices, each with its own copy of the two
# kernels: the two Group bundles are equal and exclusive, so dedup shares one bundle (Group and
# members). A bundle whose members another bundle also calls would keep its identity.
import pypto.language as pl

@pl.program
class GroupBundle:
    @pl.function(type=pl.FunctionType.AIC)
    def cube_a(self, a: pl.Tensor[[16, 32], pl.FP32], w: pl.Tensor[[32, 16], pl.FP32], c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        ta = pl.load(a, [0, 0], [16, 32])
        tw = pl.load(w, [0, 0], [32, 16])
        tc = pl.tile.matmul(ta, tw)
        pl.store(tc, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.AIV)
    def vec_a(self, c: pl.Tensor[[16, 16], pl.FP32], bias: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        tc = pl.load(c, [0, 0], [16, 16])
        tb = pl.load(bias, [0, 0], [16, 16])
        y = pl.maximum(pl.add(tc, tb), 0.0)
        pl.store(y, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.AIC)
    def cube_b(self, a: pl.Tensor[[16, 32], pl.FP32], w: pl.Tensor[[32, 16], pl.FP32], c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        ta = pl.load(a, [0, 0], [16, 32])
        tw = pl.load(w, [0, 0], [32, 16])
        tc = pl.tile.matmul(ta, tw)
        pl.store(tc, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.AIV)
    def vec_b(self, c: pl.Tensor[[16, 16], pl.FP32], bias: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        tc = pl.load(c, [0, 0], [16, 16])
        tb = pl.load(bias, [0, 0], [16, 16])
        y = pl.maximum(pl.add(tc, tb), 0.0)
        pl.store(y, [0, 0], o)
        return o

    @pl.function
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], w1: pl.Tensor[[32, 16], pl.FP32], w2: pl.Tensor[[32, 16], pl.FP32], bias: pl.Tensor[[16, 16], pl.FP32], c: pl.Out[pl.Tensor[[16, 16], pl.FP32]], o1: pl.Out[pl.Tensor[[16, 16], pl.FP32]], o2: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.cluster():
            c1 = self.cube_a(a, w1, c)
            r1 = self.vec_a(c1, bias, o1)
        with pl.cluster():
            c2 = self.cube_b(a, w2, c)
            r2 = self.vec_b(c2, bias, o2)
        return r2

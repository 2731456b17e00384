# Several equal kernels: four scopes computing o_k = relu(x_k * 2 - 1) on different tensors
# outline to four structurally equal kernels; dedup keeps one and points every call at it. A
# fifth scope differs (the constant 3.0) and must stay its own kernel.
import pypto.language as pl

@pl.program
class ManyEqual:
    @pl.function
    def main(self, x0: pl.Tensor[[16, 32], pl.FP32], x1: pl.Tensor[[16, 32], pl.FP32], o0: pl.Out[pl.Tensor[[16, 32], pl.FP32]], o1: pl.Out[pl.Tensor[[16, 32], pl.FP32]], o2: pl.Out[pl.Tensor[[16, 32], pl.FP32]], o3: pl.Out[pl.Tensor[[16, 32], pl.FP32]], o4: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x0, [0, 0], [16, 32])
            pl.store(pl.maximum(pl.sub(pl.mul(t, 2.0), 1.0), 0.0), [0, 0], o0)
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x1, [0, 0], [16, 32])
            pl.store(pl.maximum(pl.sub(pl.mul(t, 2.0), 1.0), 0.0), [0, 0], o1)
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(o0, [0, 0], [16, 32])
            pl.store(pl.maximum(pl.sub(pl.mul(t, 2.0), 1.0), 0.0), [0, 0], o2)
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(o1, [0, 0], [16, 32])
            pl.store(pl.maximum(pl.sub(pl.mul(t, 2.0), 1.0), 0.0), [0, 0], o3)
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(o2, [0, 0], [16, 32])
            pl.store(pl.maximum(pl.sub(pl.mul(t, 3.0), 1.0), 0.0), [0, 0], o4)
        return o4

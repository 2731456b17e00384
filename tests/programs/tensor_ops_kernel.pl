# Tensor-level ops inside kernels, the input of convert-tensor-to-tile-ops: slices, elementwise
# tensor ops, a filled tensor and assembles into the Out tensor (one of them an atomic add).
# One op per statement: the pass converts only a kernel's top-level statements whose tensor
# operands are variables (a nested tensor op is a TensorToTileError).
import pypto.language as pl

@pl.program
class TensorOps:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32], o: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            s = pl.tensor.slice(a, [16, 64], [0, 0])
            t = pl.tensor.slice(b, [16, 64], [16, 0])
            d = pl.tensor.sub(s, t)
            ns = pl.tensor.neg(s)
            u = pl.tensor.maximum(d, ns)
            o1 = pl.tensor.assemble(o, u, [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP):
            z = pl.tensor.full([16, 64], dtype=pl.FP32, value=0.5)
            s2 = pl.tensor.slice(a, [16, 64], [16, 0])
            w = pl.tensor.add(s2, z)
            v = pl.tensor.mul(w, s2)
            o2 = pl.tensor.assemble(o1, v, [16, 0])
            o3 = pl.tensor.assemble(o2, z, [16, 0], atomic=pl.AtomicType.Add)
        return o3

import pypto.language as pl

# A gather along the middle axis: dst[b, r, c] = src[b, index[b, r, c], c]. Its index tensor
# must hold indices of that axis (0..7): pypto-opt --run --int-range=0,8.
@pl.program
class GatherRows:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, src: pl.Tensor[[3, 8, 4], pl.FP32], index: pl.Tensor[[3, 2, 4], pl.INT32], dst: pl.Out[pl.Tensor[[3, 2, 4], pl.FP32]]) -> pl.Tensor[[3, 2, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            picked = pl.tensor.gather(src, dim=1, index=index)
            dst = pl.assemble(dst, picked, [0, 0, 0])
        return dst

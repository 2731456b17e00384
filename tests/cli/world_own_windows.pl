# Two devices, each staging its input in its own copy of one window buffer and reading it back
# doubled: run with --world=2, each rank's window is its own.
import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class OwnWindows:
    @pl.function(type=pl.FunctionType.InCore)
    def step(self, x: pl.Tensor[[1, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]], data: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        staged = pl.store(pl.load(x, [0, 0], [1, 8]), [0, 0], data)
        t = pl.load(staged, [0, 0], [1, 8])
        return pl.store(pl.add(t, t), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]], data: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        return self.step(x, out, data)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, xs: pl.Tensor[[2, 1, 8], pl.FP32], outs: pl.Out[pl.Tensor[[2, 1, 8], pl.FP32]]) -> pl.Tensor[[2, 1, 8], pl.FP32]:
        buf = pld.alloc_window_buffer(32)
        for r in pl.range(pld.world_size()):
            self.chip(xs[r], outs[r], pld.window(buf, [1, 8], dtype=pl.FP32), device=r)
        return outs

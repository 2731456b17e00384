# A handshake through windows in a world of one rank: rank 0 stores into its peer's window (itself),
# notifies and waits, and reads it back doubled. The host's tensors are shaped by the world (NR).
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class Handshake:
    @pl.function(type=pl.FunctionType.InCore)
    def step(self, x: pl.Tensor[[1, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]], data: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]], sig: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        ctx = pld.get_comm_ctx(data)
        me = pld.rank(ctx)
        peer = (me + 1) % pld.nranks(ctx)
        t = pl.load(x, [0, 0], [1, 8])
        pld.tile.remote_store(t, data, peer, [0, 0])
        pld.system.notify(sig, peer=peer, offsets=[0, 0], value=3, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(sig, offsets=[0, 0], expected=3, cmp=pld.WaitCmp.Ge)
        r = pld.tile.remote_load(data, me, [0, 0], [1, 8])
        return pl.store(pl.add(r, r), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]], data: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]], sig: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        return self.step(x, out, data, sig)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, xs: pl.Tensor[[NR, 1, 8], pl.FP32], outs: pl.Out[pl.Tensor[[NR, 1, 8], pl.FP32]]) -> pl.Tensor[[NR, 1, 8], pl.FP32]:
        buf = pld.alloc_window_buffer(32)
        sbuf = pld.alloc_window_buffer(4)
        for r in pl.range(pld.world_size()):
            data = pld.window(buf, [1, 8], dtype=pl.FP32)
            sig = pld.window(sbuf, [1, 1], dtype=pl.INT32)
            self.chip(xs[r], outs[r], data, sig, device=r)
        return outs

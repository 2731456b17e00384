# Buffers that switch: the loop carry `cur` starts as the buffer `ping`, and each iteration's if
# writes the other of `ping` and `pong` and yields it. Generated orchestration code holds such a
# carry (and such an if result) in a variable of its own and copies the runtime's tensor
# descriptor at each yield; the data never moves. `n` iterations leave the result in `pong` when
# n is odd, in `ping` otherwise (`ping` itself when n is 0).
import pypto.language as pl

@pl.program
class PingPong:
    @pl.function(type=pl.FunctionType.InCore)
    def twice(self, src: pl.Tensor[[16, 32], pl.FP32], dst: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.load(src, [0, 0], [16, 32])
        out: pl.Tensor[[16, 32], pl.FP32] = pl.store(pl.mul(t, 2.0), [0, 0], dst)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, src: pl.Tensor[[16, 32], pl.FP32], dst: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.load(src, [0, 0], [16, 32])
        out: pl.Tensor[[16, 32], pl.FP32] = pl.store(pl.add(t, 1.0), [0, 0], dst)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        ping: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        pong: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        cur: pl.Tensor[[16, 32], pl.FP32] = self.twice(x, ping)
        for i in pl.range(n):
            if i % 2 == 0:
                nxt: pl.Tensor[[16, 32], pl.FP32] = self.inc(cur, pong)
            else:
                nxt: pl.Tensor[[16, 32], pl.FP32] = self.twice(cur, ping)
            cur = nxt
        o = self.inc(cur, o)
        return o

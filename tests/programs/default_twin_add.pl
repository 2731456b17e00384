# The text twin of pypto-opt's embedded default program (examples/pypto-opt/default_program.hpp):
# two InCore scopes computing out = a + b into two outputs, which dedup shares after outlining.
# runtime_pipeline_equivalence_test.cpp checks that it parses to a program structurally equal
# to default_program().
import pypto.language as pl

@pl.program
class TwinAdd:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], out1: pl.Out[pl.Tensor[[64, 64], pl.FP32]], out2: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            ta = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
            tb = pl.tile.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
            ts = pl.tile.add(ta, tb)
            pl.tile.store(ts, [0, 0], out1)
        with pl.at(level=pl.Level.CORE_GROUP):
            ta_1 = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
            tb_1 = pl.tile.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
            ts_1 = pl.tile.add(ta_1, tb_1)
            pl.tile.store(ts_1, [0, 0], out2)
        return out1, out2

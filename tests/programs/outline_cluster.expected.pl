# outline_cluster.pl after convert-to-ssa, outline-incore-scopes and outline-cluster-scopes.
import pypto.language as pl

@pl.program
class After:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        o1 = self.main_cluster_0(a, o)
        o2 = self.rows_spmd(a, o1, attrs={"core_num": 4})
        return o2

    @pl.function(type=pl.FunctionType.Group)
    def main_cluster_0(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        o1 = self.produce(a, o)
        o2 = self.consume(o1)
        return o

    @pl.function(type=pl.FunctionType.Spmd)
    def rows_spmd(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        o1 = self.rows(a, o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def produce(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64])
        o__store = pl.store(t, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def consume(self, o: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        u = pl.load(o, [0, 0], [64, 64])
        o__store = pl.store(pl.add(u, u), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def rows(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        i = pl.tile.get_block_idx()
        r = pl.load(a, [i * 16, 0], [16, 64])
        o__store = pl.store(r, [i * 16, 0], o)
        return o

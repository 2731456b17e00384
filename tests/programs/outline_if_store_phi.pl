# A scope in a loop whose if stores into the loop-carried Out tensor in both branches.
# convert-to-ssa joins the two stores in a phi; the phi is provably the buffer of parameter
# `acc` (return_lineage), so the outlined kernel returns `acc` itself (ReturnParamsExplicit,
# seed 002) and the loop yields the call's result. Checked bit-identical across the pipeline
# in runtime_pipeline_equivalence_test.cpp.
import pypto.language as pl

@pl.program
class IfStorePhi:
    @pl.function
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        for i, (acc,) in pl.range(n, init_values=(o,)):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, 0], [16, 16])
                if i == 0:
                    acc = pl.store(t, [0, 0], acc)
                else:
                    a = pl.load(acc, [0, 0], [16, 16])
                    acc = pl.store(pl.add(a, t), [0, 0], acc)
        return acc

# A function attribute holding a host compiler's opaque payload: carried and printed, but no
# structural comparison exists for it (--assert-equal reports that, typed).
import pypto.language as pl

@pl.program
class OpaqueAttr:
    @pl.function
    def main(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        pl.func_attr({"host_plan": pl._dump.opaque("HostPlan")})
        y = pl.add(x, x)
        return y

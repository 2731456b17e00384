// Tests of pypto/transforms/normalize_return_order.hpp. Each case is a program in the text
// format, the pass (run by the pass manager with verify-each: bindings, SSA, the properties it
// claims — ReturnParamsExplicit among them — and the print -> parse round trip) and the expected
// program, compared structurally (names do not matter).
#include <doctest/doctest.h>

#include <string_view>
#include <utility>

#include "pypto/ir/function.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/transforms/pass_instruments.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"

namespace tf = pypto::transforms;
namespace ir = pypto::ir;
using ir::ProgramRef;

namespace {

ProgramRef parse(std::string_view text) { return pypto::text::parse_program(text); }

/// Runs `pipeline` with verify-each on an outlined program in SSA form.
ProgramRef run(const ProgramRef& before, std::string_view pipeline = "normalize-return-order") {
  tf::PassManagerOptions options;
  options.instruments.push_back(tf::verify_each_instrument());
  options.initial_properties = {tf::Property::SSAForm, tf::Property::SplitIncoreOrch};
  return tf::PassManager(tf::standard_passes().pipeline(pipeline), std::move(options)).run(*before);
}

void check_normalize(std::string_view before, std::string_view expected) {
  ProgramRef after = run(parse(before));
  INFO(pypto::text::print(*after));
  pypto::structural::assert_structural_equal(after, parse(expected),
                                             /*enable_auto_mapping=*/true);
}

}  // namespace

TEST_CASE("normalize-return-order: swapped returns follow the Out order, and so do the reads") {
  check_normalize(R"(
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32], pl.FP32], lo: pl.Out[pl.Tensor[[32], pl.FP32]], hi: pl.Out[pl.Tensor[[32], pl.FP32]]) -> tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]]:
        t = pl.load(x, [0], [32])
        m = pl.tile.mul(t, t)
        s = pl.tile.add(t, t)
        hi1 = pl.store(m, [0], hi)
        lo1 = pl.store(s, [0], lo)
        return (hi1, lo1)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32], pl.FP32], lo: pl.Out[pl.Tensor[[32], pl.FP32]], hi: pl.Out[pl.Tensor[[32], pl.FP32]]) -> tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]]:
        r = self.k(x, lo, hi)
        a = r[0]
        b = r[1]
        return (a, b)
)",
                  R"(
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32], pl.FP32], lo: pl.Out[pl.Tensor[[32], pl.FP32]], hi: pl.Out[pl.Tensor[[32], pl.FP32]]) -> tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]]:
        t = pl.load(x, [0], [32])
        m = pl.tile.mul(t, t)
        s = pl.tile.add(t, t)
        hi1 = pl.store(m, [0], hi)
        lo1 = pl.store(s, [0], lo)
        return (lo, hi)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32], pl.FP32], lo: pl.Out[pl.Tensor[[32], pl.FP32]], hi: pl.Out[pl.Tensor[[32], pl.FP32]]) -> tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]]:
        r = self.k(x, lo, hi)
        a = r[1]
        b = r[0]
        return (a, b)
)");
}

TEST_CASE("normalize-return-order: three results scrambled, with an InOut among the outputs") {
  check_normalize(R"(
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 8], pl.FP32], acc: pl.InOut[pl.Tensor[[8, 8], pl.FP32]], p: pl.Out[pl.Tensor[[8, 8], pl.FP32]], q: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> tuple[pl.Tensor[[8, 8], pl.FP32], pl.Tensor[[8, 8], pl.FP32], pl.Tensor[[8, 8], pl.FP32]]:
        t = pl.load(x, [0, 0], [8, 8])
        u = pl.load(acc, [0, 0], [8, 8])
        v = pl.tile.add(t, u)
        q1 = pl.store(t, [0, 0], q)
        acc1 = pl.store(v, [0, 0], acc)
        p1 = pl.store(u, [0, 0], p)
        return (q1, acc1, p1)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 8], pl.FP32], acc: pl.InOut[pl.Tensor[[8, 8], pl.FP32]], p: pl.Out[pl.Tensor[[8, 8], pl.FP32]], q: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
        r = self.k(x, acc, p, q)
        q2 = r[0]
        return q2
)",
                  R"(
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 8], pl.FP32], acc: pl.InOut[pl.Tensor[[8, 8], pl.FP32]], p: pl.Out[pl.Tensor[[8, 8], pl.FP32]], q: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> tuple[pl.Tensor[[8, 8], pl.FP32], pl.Tensor[[8, 8], pl.FP32], pl.Tensor[[8, 8], pl.FP32]]:
        t = pl.load(x, [0, 0], [8, 8])
        u = pl.load(acc, [0, 0], [8, 8])
        v = pl.tile.add(t, u)
        q1 = pl.store(t, [0, 0], q)
        acc1 = pl.store(v, [0, 0], acc)
        p1 = pl.store(u, [0, 0], p)
        return (acc, p, q)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 8], pl.FP32], acc: pl.InOut[pl.Tensor[[8, 8], pl.FP32]], p: pl.Out[pl.Tensor[[8, 8], pl.FP32]], q: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
        r = self.k(x, acc, p, q)
        q2 = r[2]
        return q2
)");
}

TEST_CASE("normalize-return-order: in order already, only the returns become the parameters") {
  // Also an AIV kernel and an unreturned InOut: each return is the parameter it writes, by
  // lineage, never by position (the InOut written in place does not shift `r` onto itself).
  check_normalize(R"(
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32], pl.FP32], a: pl.Out[pl.Tensor[[32], pl.FP32]], b: pl.Out[pl.Tensor[[32], pl.FP32]]) -> tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]]:
        t = pl.load(x, [0], [32])
        a1 = pl.store(t, [0], a)
        b1 = pl.store(t, [0], b)
        return (a1, b1)

    @pl.function(type=pl.FunctionType.AIV)
    def v(self, io: pl.InOut[pl.Tensor[[32], pl.FP32]], o: pl.Out[pl.Tensor[[32], pl.FP32]]) -> pl.Tensor[[32], pl.FP32]:
        t = pl.load(io, [0], [32])
        w = pl.store(t, [0], io)
        r = pl.store(t, [0], o)
        return r
)",
                  R"(
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32], pl.FP32], a: pl.Out[pl.Tensor[[32], pl.FP32]], b: pl.Out[pl.Tensor[[32], pl.FP32]]) -> tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]]:
        t = pl.load(x, [0], [32])
        a1 = pl.store(t, [0], a)
        b1 = pl.store(t, [0], b)
        return (a, b)

    @pl.function(type=pl.FunctionType.AIV)
    def v(self, io: pl.InOut[pl.Tensor[[32], pl.FP32]], o: pl.Out[pl.Tensor[[32], pl.FP32]]) -> pl.Tensor[[32], pl.FP32]:
        t = pl.load(io, [0], [32])
        w = pl.store(t, [0], io)
        r = pl.store(t, [0], o)
        return o
)");
}

TEST_CASE("normalize-return-order: a submit's results follow, its task id stays last") {
  check_normalize(R"(
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32], pl.FP32], lo: pl.Out[pl.Tensor[[32], pl.FP32]], hi: pl.Out[pl.Tensor[[32], pl.FP32]]) -> tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]]:
        t = pl.load(x, [0], [32])
        hi1 = pl.store(t, [0], hi)
        lo1 = pl.store(t, [0], lo)
        return (hi1, lo1)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32], pl.FP32], lo: pl.Out[pl.Tensor[[32], pl.FP32]], hi: pl.Out[pl.Tensor[[32], pl.FP32]]) -> pl.Tensor[[32], pl.FP32]:
        s = pl.submit(self.k, x, lo, hi)
        h = s[0]
        tid = s[2]
        (h2, l2), tid2 = pl.submit(self.k, h, lo, hi, deps=[tid])
        return l2
)",
                  R"(
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32], pl.FP32], lo: pl.Out[pl.Tensor[[32], pl.FP32]], hi: pl.Out[pl.Tensor[[32], pl.FP32]]) -> tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]]:
        t = pl.load(x, [0], [32])
        hi1 = pl.store(t, [0], hi)
        lo1 = pl.store(t, [0], lo)
        return (lo, hi)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32], pl.FP32], lo: pl.Out[pl.Tensor[[32], pl.FP32]], hi: pl.Out[pl.Tensor[[32], pl.FP32]]) -> pl.Tensor[[32], pl.FP32]:
        s = pl.submit(self.k, x, lo, hi)
        h = s[1]
        tid = s[2]
        s2 = pl.submit(self.k, h, lo, hi, deps=[tid])
        h2 = s2[1]
        l2 = s2[0]
        tid2 = s2[2]
        return l2
)");
}

TEST_CASE("normalize-return-order: a kernel whose whole result is passed on keeps its order") {
  // `return r` hands the caller's caller the tuple itself: reordering the kernel would swap what
  // it sees, so the kernel keeps its order (its returns still become its parameters), and the
  // other kernel, read only by items, is reordered.
  check_normalize(R"(
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32], pl.FP32], lo: pl.Out[pl.Tensor[[32], pl.FP32]], hi: pl.Out[pl.Tensor[[32], pl.FP32]]) -> tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]]:
        t = pl.load(x, [0], [32])
        hi1 = pl.store(t, [0], hi)
        lo1 = pl.store(t, [0], lo)
        return (hi1, lo1)

    @pl.function(type=pl.FunctionType.InCore)
    def j(self, x: pl.Tensor[[32], pl.FP32], lo: pl.Out[pl.Tensor[[32], pl.FP32]], hi: pl.Out[pl.Tensor[[32], pl.FP32]]) -> tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]]:
        t = pl.load(x, [0], [32])
        hi1 = pl.store(t, [0], hi)
        lo1 = pl.store(t, [0], lo)
        return (hi1, lo1)

    @pl.function(type=pl.FunctionType.Group)
    def g(self, x: pl.Tensor[[32], pl.FP32], lo: pl.Out[pl.Tensor[[32], pl.FP32]], hi: pl.Out[pl.Tensor[[32], pl.FP32]]) -> pl.Tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]]:
        u = self.j(x, lo, hi)
        w = u[0]
        r = self.k(w, lo, hi)
        return r
)",
                  R"(
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32], pl.FP32], lo: pl.Out[pl.Tensor[[32], pl.FP32]], hi: pl.Out[pl.Tensor[[32], pl.FP32]]) -> tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]]:
        t = pl.load(x, [0], [32])
        hi1 = pl.store(t, [0], hi)
        lo1 = pl.store(t, [0], lo)
        return (hi, lo)

    @pl.function(type=pl.FunctionType.InCore)
    def j(self, x: pl.Tensor[[32], pl.FP32], lo: pl.Out[pl.Tensor[[32], pl.FP32]], hi: pl.Out[pl.Tensor[[32], pl.FP32]]) -> tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]]:
        t = pl.load(x, [0], [32])
        hi1 = pl.store(t, [0], hi)
        lo1 = pl.store(t, [0], lo)
        return (lo, hi)

    @pl.function(type=pl.FunctionType.Group)
    def g(self, x: pl.Tensor[[32], pl.FP32], lo: pl.Out[pl.Tensor[[32], pl.FP32]], hi: pl.Out[pl.Tensor[[32], pl.FP32]]) -> pl.Tuple[pl.Tensor[[32], pl.FP32], pl.Tensor[[32], pl.FP32]]:
        u = self.j(x, lo, hi)
        w = u[1]
        r = self.k(w, lo, hi)
        return r
)");
}

TEST_CASE("normalize-return-order: nothing to do gives the same program object") {
  const ProgramRef before = parse(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32], pl.FP32], o: pl.Out[pl.Tensor[[32], pl.FP32]]) -> pl.Tensor[[32], pl.FP32]:
        t = pl.load(x, [0], [32])
        o1 = pl.store(t, [0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32], pl.FP32], o: pl.Out[pl.Tensor[[32], pl.FP32]]) -> pl.Tensor[[32], pl.FP32]:
        r = self.k(x, o)
        return r
)");
  CHECK(run(before).get() == before.get());
}

TEST_CASE("normalize-return-order: the outliners leave a written kernel's return for it") {
  // A standalone spmd scope around a call of a kernel the user wrote: the outliner makes the
  // Spmd wrapper (which returns its parameter) and leaves the kernel's `return o2` as written,
  // as upstream PyPTO's outliners do; this pass then returns `o` itself.
  const ProgramRef before = parse(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        o2 = pl.store(t, [0], o)
        return o2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.spmd(4):
            o3 = self.k(x, o)
        return o3
)");
  const ProgramRef outlined = run(before, "outline-cluster-scopes");
  const auto* kept = ir::as<ir::ReturnStmt>(
      ir::as<ir::SeqStmts>(outlined->find("k")->body.get())->stmts.back().get());
  REQUIRE(kept);
  CHECK(ir::as<ir::Var>(kept->values[0].get())->name_hint == "o2");
  const ProgramRef normalized = run(outlined);
  const ir::Function& k = *normalized->find("k");
  const auto* ret = ir::as<ir::ReturnStmt>(ir::as<ir::SeqStmts>(k.body.get())->stmts.back().get());
  REQUIRE(ret);
  CHECK(ret->values[0].get() == k.params[1].get());
}

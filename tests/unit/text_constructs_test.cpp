// Tests of DSL constructs upstream's programs use: pl.Array values and their element sugar, task
// id arrays as dependencies, HOST sub-workers carrying host code, methods without `self`, and
// integer annotations on INDEX values — each read, typed, and printed back losslessly.
#include <doctest/doctest.h>

#include <string>

#include "pypto/ir.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/text/parse_error.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"

namespace {

using namespace pypto;
using namespace pypto::ir;
using core::DataType;

/// The first call of `op` in `f`'s body (in walk order).
const Call* find_call(const Function& f, std::string_view op) {
  const Call* found = nullptr;
  for_each_node(f.body, [&](const Node& n) {
    if (const auto* c = as<Call>(&n); c && !found && c->op->name == op) found = c;
  });
  return found;
}

/// The ParseError message of `text` with `a` replaced by `b` ("no error" when it parses).
std::string error_of(std::string text, const std::string& a, const std::string& b) {
  text.replace(text.find(a), a.size(), b);
  try {
    text::parse_program(text);
  } catch (const text::ParseError& e) {
    return e.what();
  }
  return "no error";
}

constexpr const char* kArrays = R"(import pypto.language as pl

@pl.program
class Fences:
    @pl.function(type=pl.FunctionType.InCore)
    def work(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        return pl.store(t, [0], o)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        tids = pl.array.create(2, pl.TASK_ID)
        counts = pl.array.create(4, dtype=pl.INT32)
        counts[1] = 7
        n = counts[1]
        for b in pl.range(2):
            o, tid = pl.submit(self.work, x, o)
            tids[b] = tid
        o, last = pl.submit(self.work, x, o, deps=[tids])
        return o
)";

TEST_CASE("constructs: pl.Array values, element reads and writes, a task id array as deps") {
  const ProgramRef p = text::parse_program(kArrays);
  const Function& main = *p->find("main");
  const Call* create = find_call(main, "array.create");
  REQUIRE(create);
  const auto* tids = as<ArrayType>(create->type.get());
  REQUIRE(tids);
  CHECK(tids->dtype == DataType::TASK_ID);
  CHECK(tids->extent == 2);
  // `counts[1] = 7` is an update whose literal takes the element dtype; `counts[1]` a read.
  const Call* update = find_call(main, "array.update_element");
  REQUIRE(update);
  CHECK(as<ConstInt>(update->args[2].get())->dtype() == DataType::INT32);
  CHECK(standard_op_registry().effect(*update, 0) == ArgEffect::ReadWrite);
  const Call* read = find_call(main, "array.get_element");
  REQUIRE(read);
  CHECK(as<ScalarType>(read->type.get())->dtype == DataType::INT32);
  text::check_round_trip(*p);
  const std::string printed = text::print(*p);
  CAPTURE(printed);
  CHECK(printed.find("pl.array.update_element(counts, 1, pl.const(7, pl.INT32))") !=
        std::string::npos);
}

TEST_CASE("constructs: array errors say what and where") {
  CHECK(error_of(kArrays, "pl.array.create(4, dtype=pl.INT32)", "pl.array.create(4, dtype=pl.FP32)")
            .find("array.create: keyword 'dtype' must be an integer, BOOL or TASK_ID") !=
        std::string::npos);
  CHECK(error_of(kArrays, "pl.array.create(2, pl.TASK_ID)", "pl.array.create(0, pl.TASK_ID)")
            .find("array.create: argument 0 must be a positive constant extent") !=
        std::string::npos);
  CHECK(error_of(kArrays, "counts[1] = 7", "counts[1, 2] = 7")
            .find("one index: an array has one dimension") != std::string::npos);
  CHECK(error_of(kArrays, "counts[1] = 7", "counts[1] = 1.5")
            .find("array.update_element: argument 2 must have the array's dtype INT32") !=
        std::string::npos);
  CHECK(error_of(kArrays, "deps=[tids]", "deps=[counts]")
            .find("at 'counts': a Scalar[TASK_ID] task id or a pl.Array of them") !=
        std::string::npos);
}

constexpr const char* kHostWorker = R"(import pypto.language as pl

@pl.program
class Callbacks:
    @pl.function(type=pl.FunctionType.InCore)
    def double(x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        return pl.store(pl.add(t, t), [0], o)

    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def report(f: pl.Tensor[[64], pl.FP32]):
        total = 0.0
        for v in f:
            total = total + v

        print("sum", total)

    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def bound_later(f: pl.Tensor[[64], pl.FP32]):
        ...

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        y = self.double(x, o)
        self.report(y)
        self.bound_later(y)
        return y
)";

TEST_CASE("constructs: a HOST sub-worker carries its host code verbatim, without self") {
  const ProgramRef p = text::parse_program(kHostWorker);
  const Function& report = *p->find("report");
  const auto* code = as<InlineStmt>(report.body.get());
  REQUIRE(code);
  CHECK(code->body == "total = 0.0\nfor v in f:\n    total = total + v\n\nprint(\"sum\", total)");
  CHECK(p->find("bound_later")->requires_runtime_binding);
  // A method without `self` is read as upstream reads it.
  CHECK(p->find("double")->params.size() == 2);
  text::check_round_trip(*p);
  const std::string printed = text::print(*p);
  CAPTURE(printed);
  CHECK(printed.find(
            "    def report(f: pl.Tensor[[64], pl.FP32]):\n        total = 0.0\n        "
            "for v in f:\n            total = total + v\n\n        print(\"sum\", total)\n") !=
        std::string::npos);
  CHECK(printed.find("def bound_later(f: pl.Tensor[[64], pl.FP32]):") != std::string::npos);
}

TEST_CASE(
    "constructs: host code is a HOST sub-worker's only, and a HOST sub-worker takes no self") {
  std::string with_self = kHostWorker;
  with_self.replace(with_self.find("def report(f"), 12, "def report(self, f");
  CHECK_THROWS_WITH_AS(text::parse_program(with_self),
                       doctest::Contains("no `self`: a HOST sub-worker is host code"),
                       text::ParseError);
  CHECK_THROWS_WITH_AS(
      Function::make("f", {}, {}, InlineStmt::make("pass"), FunctionType::InCore),
      "Function f.body: host code (an InlineStmt) is the body of a HOST sub-worker only",
      core::ValueError);
}

TEST_CASE("constructs: an integer annotation names an INDEX value, and it keeps its dtype") {
  const std::string text = R"(import pypto.language as pl

@pl.program
class Dims:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 128], pl.FP32]) -> pl.Scalar[pl.INT64]:
        d0: pl.Scalar[pl.INT64] = pl.tensor.dim(a, 1)
        return d0
)";
  const ProgramRef p = text::parse_program(text);
  const auto* assign = as<AssignStmt>(as<SeqStmts>(p->find("main")->body.get())->stmts[0].get());
  REQUIRE(assign);
  CHECK(as<ScalarType>(assign->var->type.get())->dtype == DataType::INT64);
  CHECK(as<ScalarType>(assign->value->type.get())->dtype == DataType::INDEX);
  text::check_round_trip(*p);
  // A float annotation does not name an integer.
  std::string wrong = text;
  wrong.replace(wrong.find("d0: pl.Scalar[pl.INT64]"), 23, "d0: pl.Scalar[pl.FP32]");
  CHECK_THROWS_WITH_AS(text::parse_program(wrong),
                       doctest::Contains("annotated FP32, the value is INDEX"), text::ParseError);
}

constexpr const char* kWindows = R"(import pypto.language as pl

@pl.program
class Windows:
    @pl.function(type=pl.FunctionType.InCore)
    def halves(self, x: pl.Tensor[[4, 16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        row = x[1]
        t = pl.load(row, [0, 0], [16, 64])
        hi = t[:, 32:64]
        lo = t[0:16, :32]
        s = pl.add(lo, hi)
        t[:, 0:32] = s
        e = t[2, 3]
        o[0:16, :] = pl.store(t, [0, 0], o)
        return o
)";

TEST_CASE("constructs: subscripts are windows (slice, drop an indexed axis) and element reads") {
  const ProgramRef p = text::parse_program(kWindows);
  const Function& f = *p->find("halves");
  // `x[1]` on a rank-3 tensor: the window [1, 16, 64] at [1, 0, 0] without axis 0.
  const Call* row = find_call(f, "tensor.slice");
  REQUIRE(row);
  const auto* rt = as<TensorType>(row->type.get());
  REQUIRE(rt);
  CHECK(rt->rank() == 2);
  CHECK(as<ConstInt>(rt->shape[0].get())->value == 16);
  // `t[:, 32:64]`: a [16, 32] tile window at [0, 32].
  const Call* hi = find_call(f, "tile.slice");
  REQUIRE(hi);
  const auto* ht = as<TileType>(hi->type.get());
  REQUIRE(ht);
  CHECK(as<ConstInt>(ht->shape[1].get())->value == 32);
  CHECK(as<ConstInt>(as<MakeTuple>(hi->args[2].get())->elements[1].get())->value == 32);
  // `t[:, 0:32] = s` assembles into t; `t[2, 3]` reads one element.
  const Call* put = find_call(f, "tile.assemble");
  REQUIRE(put);
  CHECK(as<ConstInt>(as<MakeTuple>(put->args[2].get())->elements[1].get())->value == 0);
  const Call* read = find_call(f, "tile.read");
  REQUIRE(read);
  CHECK(as<ScalarType>(read->type.get())->dtype == DataType::FP32);
  CHECK(find_call(f, "tensor.assemble") != nullptr);
  text::check_round_trip(*p);
}

TEST_CASE("constructs: a subscript's errors say what and where") {
  CHECK(
      error_of(kWindows, "hi = t[:, 32:64]", "hi = t[:, 32:64:2]").find("a slice without a step") !=
      std::string::npos);
  CHECK(error_of(kWindows, "hi = t[:, 32:64]", "hi = t[:, 32:64, 0]")
            .find("at most 2 indices (the value's rank)") != std::string::npos);
  CHECK(error_of(kWindows, "t[:, 0:32] = s", "t[1, 2] = s").find("a window (an element write") !=
        std::string::npos);
  CHECK(error_of(kWindows, "t[:, 0:32] = s", "t[:, 0:32] = x")
            .find("a tile of rank 2 to write into the window") != std::string::npos);
}

}  // namespace

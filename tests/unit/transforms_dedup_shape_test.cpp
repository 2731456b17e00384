// Tests of the shape-distinct merge of DeduplicateOutlinedKernels (seed 001) and of
// pypto/transforms/call_shape_proof.hpp: two kernels equal up to their signature shape symbols
// (`k1(x: Tensor[[M, 64]])`, `k2(x: Tensor[[N, 64]])`) merge only when every Call / Submit of the
// alias binds the survivor's signature from supplied arguments and reproduces the call's recorded
// result type. Each case: a program in the text format, the pass (with verify-each), the expected
// program or the refusal with its reason.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dedup_test_support.hpp"

namespace tf = pypto::transforms;
namespace ir = pypto::ir;
using dedup_test::all_lines;
using dedup_test::dedup;
using dedup_test::dedup_unverified;
using dedup_test::has_line;
using dedup_test::Kind;
using dedup_test::parse;
using ir::ProgramRef;
using tf::DedupSkip;

namespace {

/// `text` with every `{key}` replaced.
std::string fill(std::string text, const std::vector<std::pair<std::string, std::string>>& subs) {
  for (const auto& [key, value] : subs) {
    std::string k(1, '{');
    k.append(key).push_back('}');
    for (std::size_t at = text.find(k); at != std::string::npos;
         at = text.find(k, at + value.size()))
      text.replace(at, k.size(), value);
  }
  return text;
}

constexpr std::string_view kHeader = R"(
import pypto.language as pl
M = pl.dynamic("M")
N = pl.dynamic("N")
K = pl.dynamic("K")
L = pl.dynamic("L")
@pl.program
class P:
)";

/// A kernel copying rows of x into o, both of shape `[{d0}, {d1}]`; `{params}` go first.
std::string kernel(std::string_view name, std::string_view d0, std::string_view d1 = "64",
                   std::string_view params = "") {
  return fill(R"(
    @pl.function(type=pl.FunctionType.InCore)
    def {name}(self, {params}x: pl.Tensor[[{d0}, {d1}], pl.FP32], o: pl.Out[pl.Tensor[[{d0}, {d1}], pl.FP32]]) -> pl.Tensor[[{d0}, {d1}], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 16])
        o1 = pl.store(t, [0, 0], o)
        return o1
)",
              {{"name", std::string(name)},
               {"d0", std::string(d0)},
               {"d1", std::string(d1)},
               {"params", std::string(params)}});
}

/// `main(a: [{a}], b: [{b}])` calls k1(a, o1) then `{second}` (a statement binding x2).
std::string program(std::string_view a_dims, std::string_view b_dims, std::string_view second,
                    std::string_view kernels, std::string_view main_params = "") {
  return std::string(kHeader) +
         fill(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, {mp}a: pl.Tensor[[{a}], pl.FP32], b: pl.Tensor[[{b}], pl.FP32], o1: pl.Out[pl.Tensor[[{a}], pl.FP32]], o2: pl.Out[pl.Tensor[[{b}], pl.FP32]]) -> pl.Tensor[[{b}], pl.FP32]:
        x1 = self.k1(a, o1)
        {second}
        return x2
)",
              {{"a", std::string(a_dims)},
               {"b", std::string(b_dims)},
               {"second", std::string(second)},
               {"mp", std::string(main_params)}}) +
         std::string(kernels);
}

/// Runs the pass; checks that k2 merged into k1 and that the result equals `expected`.
void check_merged(const std::string& before, const std::string& expected) {
  tf::DedupLog log;
  ProgramRef after = dedup(before, log);
  INFO(all_lines(log));
  INFO(pypto::text::print(*after));
  CHECK(has_line(log, "merged k1 <- k2"));
  CHECK(after->find("k2") == nullptr);
  CHECK_NOTHROW(pypto::structural::assert_structural_equal(after, parse(expected), false));
}

/// Runs the pass; checks that nothing merged and k2 was refused for `reason` with `fragment`.
void check_refused(const std::string& text, DedupSkip reason, std::string_view fragment) {
  tf::DedupLog log;
  const ProgramRef before = parse(text);
  ProgramRef after = dedup(*before, log);
  const std::string lines = all_lines(log);
  INFO(lines);
  CHECK(log.count(Kind::Merged) == 0);
  CHECK(after->find("k2") != nullptr);
  CHECK(log.count(Kind::Skipped, reason) == 1);
  std::string head = "skipped k2: ";
  head.append(tf::dedup_skip_name(reason));
  CHECK(lines.find(head) != std::string::npos);
  CHECK(lines.find(fragment) != std::string::npos);
  CHECK(after.get() == before.get());  // nothing merged: the same Program
}

}  // namespace

// ---- merges --------------------------------------------------------------------------------

TEST_CASE("dedup shape: kernels over symbols M and N merge, the call keeps its [N, 64] type") {
  check_merged(
      program("M, 64", "N, 64", "x2 = self.k2(b, o2)", kernel("k1", "M") + kernel("k2", "N")),
      program("M, 64", "N, 64",
              "x2 = pl._dump.call(self.k1, b, o2, type=pl.Tensor[[N, 64], pl.FP32])",
              kernel("k1", "M")));
}

TEST_CASE("dedup shape: same-structure expressions N * 128 bind through the product") {
  check_merged(program("M * 128, 64", "K * 128, 64",
                       "x2 = pl._dump.call(self.k2, b, o2, type=pl.Tensor[[K * 128, 64], pl.FP32])",
                       kernel("k1", "M * 128") + kernel("k2", "N * 128")),
               program("M * 128, 64", "K * 128, 64",
                       "x2 = pl._dump.call(self.k1, b, o2, type=pl.Tensor[[K * 128, 64], pl.FP32])",
                       kernel("k1", "M * 128")));
}

TEST_CASE("dedup shape: a repeated symbol bound to the same caller symbol twice merges") {
  check_merged(
      program("M, M", "K, K", "x2 = pl._dump.call(self.k2, b, o2, type=pl.Tensor[[K, K], pl.FP32])",
              kernel("k1", "M", "M") + kernel("k2", "N", "N")),
      program("M, M", "K, K", "x2 = pl._dump.call(self.k1, b, o2, type=pl.Tensor[[K, K], pl.FP32])",
              kernel("k1", "M", "M")));
}

TEST_CASE("dedup shape: a scalar parameter that is also a dimension binds from its argument") {
  const std::string k1 = kernel("k1", "n", "M", "n: pl.INDEX, ");
  const std::string k2 = kernel("k2", "m", "N", "m: pl.INDEX, ");
  const std::string before = std::string(kHeader) + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, r: pl.INDEX, a: pl.Tensor[[r, M], pl.FP32], b: pl.Tensor[[r, N], pl.FP32], o1: pl.Out[pl.Tensor[[r, M], pl.FP32]], o2: pl.Out[pl.Tensor[[r, N], pl.FP32]]) -> pl.Tensor[[r, N], pl.FP32]:
        x1 = pl._dump.call(self.k1, r, a, o1, type=pl.Tensor[[r, M], pl.FP32])
        x2 = pl._dump.call(self.k2, r, b, o2, type=pl.Tensor[[r, N], pl.FP32])
        return x2
)";
  std::string expected = before;
  expected.replace(expected.find("self.k2"), 7, "self.k1");
  check_merged(before + k1 + k2, expected + k1);
}

TEST_CASE("dedup shape: a call inside an Spmd wrapper binds in the wrapper's coordinates") {
  const std::string wrapper = R"(
    @pl.function(type=pl.FunctionType.Spmd)
    def rows(self, x: pl.Tensor[[K, 64], pl.FP32], o: pl.Out[pl.Tensor[[K, 64], pl.FP32]]) -> pl.Tensor[[K, 64], pl.FP32]:
        o3 = pl._dump.call(self.{callee}, x, o, type=pl.Tensor[[K, 64], pl.FP32])
        return o3
)";
  const std::string second =
      R"(x2 = pl._dump.call(self.rows, b, o2, attrs={"core_num": pl.const(4, pl.INDEX)}, type=pl.Tensor[[N, 64], pl.FP32]))";
  check_merged(
      program("M, 64", "N, 64", second,
              fill(wrapper, {{"callee", "k2"}}) + kernel("k1", "M") + kernel("k2", "L")),
      program("M, 64", "N, 64", second, fill(wrapper, {{"callee", "k1"}}) + kernel("k1", "M")));
}

TEST_CASE("dedup shape: a Submit supplying every parameter merges, deps and task id stay") {
  const std::string before = program("M, 64", "N, 64", R"(r = pl.submit(self.k2, b, o2)
        x2 = r[0])",
                                     kernel("k1", "M") + kernel("k2", "N"));
  check_merged(
      before,
      program(
          "M, 64", "N, 64",
          R"(r = pl._dump.submit(self.k1, b, o2, type=tuple[pl.Tensor[[N, 64], pl.FP32], pl.Scalar[pl.TASK_ID]])
        x2 = r[0])",
          kernel("k1", "M")));
}

TEST_CASE("dedup shape: identical symbols need no proof: an omitted Submit output still merges") {
  tf::DedupLog log;
  const std::string before = program("M, 64", "M, 64", R"(r = pl.submit(self.k2, b)
        x2 = r[0])",
                                     kernel("k1", "M") + kernel("k2", "M"));
  ProgramRef after = dedup(before, log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Merged) == 1);
  CHECK(after->find("k2") == nullptr);
}

// ---- refusals --------------------------------------------------------------------------------

TEST_CASE("dedup shape: a shape-distinct Submit omitting its output is refused (no binding)") {
  check_refused(program("M, 64", "N, 64", R"(r = pl.submit(self.k2, b)
        x2 = r[0])",
                        kernel("k1", "M") + kernel("k2", "N")),
                DedupSkip::ShapeDistinct,
                "the Submit in main at 13:13: it supplies 1 of 2 parameters; a shape-distinct "
                "alias binds only from supplied arguments");
}

TEST_CASE("dedup shape: no algebraic inversion: N * 128 against 256 is refused") {
  check_refused(program("M * 128, 64", "256, 64",
                        "x2 = pl._dump.call(self.k2, b, o2, type=pl.Tensor[[256, 64], pl.FP32])",
                        kernel("k1", "M * 128") + kernel("k2", "N * 128")),
                DedupSkip::ShapeDistinct,
                "argument 0 ('x'): dim 0: a Mul meets a ConstInt (no algebraic inversion)");
}

TEST_CASE("dedup shape: a repeated symbol bound to two different caller symbols is refused") {
  check_refused(
      program("M, M", "K, L", "x2 = pl._dump.call(self.k2, b, o2, type=pl.Tensor[[K, L], pl.FP32])",
              kernel("k1", "M", "M") + kernel("k2", "N", "N")),
      DedupSkip::ShapeDistinct, "dim 1: 'M' is bound to two different expressions");
}

TEST_CASE("dedup shape: a scalar argument disagreeing with the dimension it names is refused") {
  const std::string before = std::string(kHeader) + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, r: pl.INDEX, a: pl.Tensor[[r, M], pl.FP32], b: pl.Tensor[[r, N], pl.FP32], o1: pl.Out[pl.Tensor[[r, M], pl.FP32]], o2: pl.Out[pl.Tensor[[r, N], pl.FP32]]) -> pl.Tensor[[r, N], pl.FP32]:
        x1 = pl._dump.call(self.k1, r, a, o1, type=pl.Tensor[[r, M], pl.FP32])
        x2 = pl._dump.call(self.k2, 16, b, o2, type=pl.Tensor[[r, N], pl.FP32])
        return x2
)" + kernel("k1", "n", "M", "n: pl.INDEX, ") +
                             kernel("k2", "m", "N", "m: pl.INDEX, ");
  check_refused(before, DedupSkip::ShapeDistinct,
                "argument 1 ('x'): dim 0: 'n' is bound to two different expressions");
}

TEST_CASE("dedup shape: a recorded result type the canonical signature does not reproduce") {
  // the call's recorded type names the alias's own symbol N, not the caller's K (a plain call
  // would record the caller's: the type is written out)
  check_refused(program("M, 64", "K, 64",
                        "x2 = pl._dump.call(self.k2, b, o2, type=pl.Tensor[[N, 64], pl.FP32])",
                        kernel("k1", "M") + kernel("k2", "N")),
                DedupSkip::ShapeDistinct,
                "result 0: dim 0: 'M' is bound to two different expressions");
}

TEST_CASE("dedup shape: one unprovable call keeps the whole candidate") {
  // the first call of k2 is provable; the second binds M := 128 but records a [64, 64] result
  const std::string text = std::string(kHeader) + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, 64], pl.FP32], b: pl.Tensor[[N, 64], pl.FP32], c: pl.Tensor[[128, 64], pl.FP32], o1: pl.Out[pl.Tensor[[M, 64], pl.FP32]], o2: pl.Out[pl.Tensor[[N, 64], pl.FP32]], o3: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        x1 = self.k1(a, o1)
        x2 = self.k2(b, o2)
        x3 = pl._dump.call(self.k2, c, o3, type=pl.Tensor[[64, 64], pl.FP32])
        return x2
)" + kernel("k1", "M") + kernel("k2", "N");
  check_refused(text, DedupSkip::ShapeDistinct,
                "the Call in main at 14:14: result 0: dim 0: 'M' is bound to two different "
                "expressions");
}

namespace {

/// k1 / k2 and main whose `x` / `a` / `b` carry the TensorView `{view}`.
constexpr std::string_view kViewedKernel = R"(
    @pl.function(type=pl.FunctionType.InCore)
    def {name}(self, x: pl.Tensor[[{s}, 64], pl.FP32, {view}], o: pl.Out[pl.Tensor[[{s}, 64], pl.FP32]]) -> pl.Tensor[[{s}, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 16])
        o1 = pl.store(t, [0, 0], o)
        return o1
)";
constexpr std::string_view kViewedMain = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, 64], pl.FP32, {view}], b: pl.Tensor[[N, 64], pl.FP32, {view}], o1: pl.Out[pl.Tensor[[M, 64], pl.FP32]], o2: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        x1 = self.k1(a, o1)
        x2 = {second}
        return x2
)";

std::string viewed_program(const std::string& view, const std::string& second, bool with_k2) {
  std::string s = std::string(kHeader) +
                  fill(std::string(kViewedMain), {{"view", view}, {"second", second}}) +
                  fill(std::string(kViewedKernel), {{"name", "k1"}, {"s", "M"}, {"view", view}});
  if (with_k2) s += fill(std::string(kViewedKernel), {{"name", "k2"}, {"s", "N"}, {"view", view}});
  return s;
}

}  // namespace

TEST_CASE("dedup shape: a signature with a valid_shape needs exact symbol identity") {
  check_refused(viewed_program("pl.TensorView(valid_shape=[16, 64])", "self.k2(b, o2)", true),
                DedupSkip::ShapeDistinct,
                "the signature needs exact symbol identity: parameter 'x' has strides, "
                "valid_shape or padding");
}

TEST_CASE("dedup shape: a layout-only view (NZ weights) takes the proof and merges") {
  const std::string nz = "pl.TensorView(layout=pl.TensorLayout.NZ)";
  check_merged(
      viewed_program(nz, "self.k2(b, o2)", true),
      viewed_program(nz, "pl._dump.call(self.k1, b, o2, type=pl.Tensor[[N, 64], pl.FP32])", false));
}

TEST_CASE("dedup shape: more than 256 parameters take the exact path (identity needed)") {
  std::string params, args, main_params;
  for (int i = 0; i < 256; ++i) {
    params.append("s").append(std::to_string(i)).append(": pl.INDEX, ");
    main_params.append("q").append(std::to_string(i)).append(": pl.INDEX, ");
    args.append("q").append(std::to_string(i)).append(", ");
  }
  const std::string text = std::string(kHeader) +
                           fill(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, {mp}a: pl.Tensor[[M, 64], pl.FP32], b: pl.Tensor[[N, 64], pl.FP32], o1: pl.Out[pl.Tensor[[M, 64], pl.FP32]], o2: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        x1 = self.k1({args}a, o1)
        x2 = self.k2({args}b, o2)
        return x2
)",
                                {{"mp", main_params}, {"args", args}}) +
                           kernel("k1", "M", "64", params) + kernel("k2", "N", "64", params);
  check_refused(text, DedupSkip::ShapeDistinct, "more than 256 parameters or returns");
}

TEST_CASE("dedup shape: Group bundles need exact signature-symbol identity") {
  const std::string g = R"(
    @pl.function(type=pl.FunctionType.Group)
    def {g}(self, a: pl.Tensor[[{s}, 64], pl.FP32], o: pl.Out[pl.Tensor[[{s}, 64], pl.FP32]]) -> pl.Tensor[[{s}, 64], pl.FP32]:
        o1 = self.{k}(a, o)
        return o1
)";
  const std::string text = std::string(kHeader) + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, 64], pl.FP32], b: pl.Tensor[[N, 64], pl.FP32], o1: pl.Out[pl.Tensor[[M, 64], pl.FP32]], o2: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        x1 = self.g1(a, o1)
        x2 = self.g2(b, o2)
        return x2
)" + fill(g, {{"g", "g1"}, {"s", "M"}, {"k", "k1"}}) +
                           fill(g, {{"g", "g2"}, {"s", "N"}, {"k", "k2"}}) + kernel("k1", "M") +
                           kernel("k2", "N");
  tf::DedupLog log;
  ProgramRef after = dedup(text, log);
  const std::string lines = all_lines(log);
  INFO(lines);
  CHECK(log.count(Kind::Merged) == 0);
  CHECK(lines.find("skipped g2: shape distinct: equal to g1, but Group bundles need exact "
                   "signature-symbol identity") != std::string::npos);
  CHECK(after->functions.size() == 5);
}

// ---- budgets and memoization ------------------------------------------------------------------

namespace {

/// The program `main(a: [M, M], b: [d0, d1]) { k1(a, o1); k2(b, o2) }` with k1 over [M, M] and
/// k2 over [N, N], built with the IR builders so that the caller's dims can be large DAGs.
ProgramRef repeated_symbol_program(const ir::ExprRef& d0, const ir::ExprRef& d1) {
  using namespace pypto::ir;
  const auto index = ScalarType::make(DataType::INDEX);
  const VarRef m = Var::make("M", index), n = Var::make("N", index);
  auto kernel_fn = [&](const char* name, const VarRef& s) {
    const TypeRef t = TensorType::make(DataType::FP32, {s, s});
    const VarRef x = Var::make("x", t), o = Var::make("o", t);
    return Function::make(name, {{x}, {o, ParamDirection::Out}}, {t},
                          SeqStmts::make({ReturnStmt::make({o})}), FunctionType::InCore);
  };
  const TypeRef ta = TensorType::make(DataType::FP32, {m, m});
  const TypeRef tb = TensorType::make(DataType::FP32, {d0, d1});
  const VarRef a = Var::make("a", ta), b = Var::make("b", tb), o1 = Var::make("o1", ta),
               o2 = Var::make("o2", tb);
  const VarRef x1 = Var::make("x1", ta), x2 = Var::make("x2", tb);
  auto main = Function::make(
      "main", {{a}, {b}, {o1, ParamDirection::Out}, {o2, ParamDirection::Out}}, {tb},
      SeqStmts::make({AssignStmt::make(x1, Call::make(GlobalVar::make("k1"), {a, o1}, ta)),
                      AssignStmt::make(x2, Call::make(GlobalVar::make("k2"), {b, o2}, tb)),
                      ReturnStmt::make({x2})}),
      FunctionType::Orchestration);
  return Program::make("P", {main, kernel_fn("k1", m), kernel_fn("k2", n)});
}

/// A chain of `depth` additions `((K + K) + (K + K)) ...` where every level shares its operand:
/// 2^depth paths, depth + 1 nodes.
ir::ExprRef shared_tower(const ir::VarRef& k, int depth) {
  ir::ExprRef e = k;
  for (int i = 0; i < depth; ++i) e = ir::Add::make(e, e);
  return e;
}

/// The same value as a tree: 2^(depth+1) - 1 nodes, nothing shared.
ir::ExprRef unshared_tower(const ir::VarRef& k, int depth) {
  if (depth == 0) return k;
  return ir::Add::make(unshared_tower(k, depth - 1), unshared_tower(k, depth - 1));
}

}  // namespace

TEST_CASE("dedup shape: shared expression pairs are memoized (2^40 paths, 41 nodes each side)") {
  const auto k = ir::Var::make("K", ir::ScalarType::make(ir::DataType::INDEX));
  // two separately built but equal DAGs: the repeated symbol compares them pair by pair once
  tf::DedupLog log;
  ProgramRef after =
      dedup_unverified(*repeated_symbol_program(shared_tower(k, 40), shared_tower(k, 40)), log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Merged) == 1);
  CHECK(after->find("k2") == nullptr);
}

TEST_CASE("dedup shape: a site needing more than 65,536 matching steps keeps the candidate") {
  const auto k = ir::Var::make("K", ir::ScalarType::make(ir::DataType::INDEX));
  // two equal trees of 2^17 - 1 nodes each, nothing shared: comparing them takes > 65,536 steps
  tf::DedupLog log;
  ProgramRef after =
      dedup_unverified(*repeated_symbol_program(unshared_tower(k, 16), unshared_tower(k, 16)), log);
  const std::string lines = all_lines(log);
  INFO(lines);
  CHECK(log.count(Kind::Merged) == 0);
  CHECK(log.count(Kind::Skipped, DedupSkip::BudgetExhausted) == 1);
  CHECK(lines.find("the call-shape proof ran out of steps") != std::string::npos);
  CHECK(after->find("k2") != nullptr);
}

TEST_CASE(
    "dedup shape: caller expressions nested deeper than the limit are refused, not recursed") {
  const auto k = ir::Var::make("K", ir::ScalarType::make(ir::DataType::INDEX));
  auto chain = [&](int depth) {  // K + 1 + 1 + ... built anew each time: nothing shared
    ir::ExprRef e = k;
    for (int i = 0; i < depth; ++i) e = ir::Add::make(e, ir::ConstInt::make(1));
    return e;
  };
  tf::DedupLog log;
  ProgramRef after = dedup_unverified(*repeated_symbol_program(chain(5000), chain(5000)), log);
  const std::string lines = all_lines(log);
  INFO(lines);
  CHECK(log.count(Kind::Merged) == 0);
  CHECK(lines.find("caller expressions nested deeper than 512") != std::string::npos);
  CHECK(after->find("k2") != nullptr);
}

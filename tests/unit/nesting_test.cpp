// One nesting measure (ir/nesting.hpp): the deepest program that parses also prints, compares
// and runs through every pass; one level more is a ParseError.
#include "pypto/ir/nesting.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/ir.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/text/parse_error.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"
#include "pypto/transforms/convert_to_ssa.hpp"
#include "pypto/transforms/deduplicate_outlined_kernels.hpp"
#include "pypto/transforms/normalize_stmt_structure.hpp"
#include "pypto/transforms/outline_incore_scopes.hpp"

namespace {

using namespace pypto;
using namespace pypto::ir;
namespace tf = pypto::transforms;

/// `depth` nested `if c:` around one assignment, inside an InCore scope.
std::string nested_ifs(std::size_t depth) {
  std::string text =
      "@pl.program\nclass P:\n    @pl.function\n"
      "    def main(self, x: pl.Tensor[[4], pl.FP32], c: pl.Scalar[pl.BOOL]) -> "
      "pl.Tensor[[4], pl.FP32]:\n        with pl.at(level=pl.Level.CORE_GROUP):\n";
  std::string indent(12, ' ');
  for (std::size_t i = 0; i < depth; ++i, indent += "    ") text += indent + "if c:\n";
  return text + indent + "y: pl.Scalar[pl.INDEX] = 1\n        return x\n";
}

/// Two equal kernels and a main whose one assignment nests `depth` calls of them.
std::string nested_calls(std::size_t depth) {
  std::string value = "x";
  for (std::size_t i = 0; i < depth; ++i)
    value = std::string(i % 2 ? "self.k2(" : "self.k1(") + value + ")";
  std::string kernel_of[2];
  for (int k = 0; k < 2; ++k)
    kernel_of[k] = "    @pl.function(type=pl.FunctionType.InCore)\n    def k" +
                   std::to_string(k + 1) +
                   "(self, a: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:\n"
                   "        return a\n";
  return "@pl.program\nclass P:\n" + kernel_of[0] + kernel_of[1] +
         "    @pl.function(type=pl.FunctionType.Orchestration)\n"
         "    def main(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:\n"
         "        y: pl.Tensor[[4], pl.FP32] = " +
         value + "\n        return y\n";
}

/// `f` with another body (its name, signature and kind kept).
FunctionRef with_body(const Function& f, StmtRef body) {
  std::vector<Param> params;
  for (std::size_t i = 0; i < f.params.size(); ++i)
    params.push_back({f.params[i], f.param_directions[i]});
  return Function::make(f.name, std::move(params), f.return_types, std::move(body), f.func_type);
}

bool parses(const std::string& text) {
  try {
    (void)text::parse_program(text);
    return true;
  } catch (const text::ParseError&) {
    return false;
  }
}

/// The largest depth at which `make(depth)` parses (parsing is monotone in the depth).
template <class Make>
std::size_t deepest_that_parses(Make make) {
  std::size_t lo = 1, hi = 2 * core::kMaxNesting;  // parses at lo, not at hi
  REQUIRE(parses(make(lo)));
  REQUIRE_FALSE(parses(make(hi)));
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    (parses(make(mid)) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

TEST_CASE("nesting: the deepest program that parses prints, compares and passes every pass") {
  const std::size_t depth = deepest_that_parses(nested_ifs);
  CAPTURE(depth);
  // An if is two levels (the IfStmt, its body's SeqStmts): the limit is about half as many ifs.
  CHECK(depth * 2 < core::kMaxNesting);
  CHECK(depth * 2 > core::kMaxNesting - 20);

  const ProgramRef p = text::parse_program(nested_ifs(depth));
  CHECK_FALSE(find_too_deep(*p));
  CHECK_NOTHROW(text::check_round_trip(*p));  // prints, parses back, compares equal
  CHECK(structural::structural_equal(*p, *text::parse_program(nested_ifs(depth))));
  const ProgramRef ssa = tf::ConvertToSSA()(*p);
  const ProgramRef outlined = tf::OutlineIncoreScopes()(*ssa);
  CHECK_NOTHROW(tf::NormalizeStmtStructure()(*outlined));
  CHECK_NOTHROW(text::check_round_trip(*outlined));
}

TEST_CASE("nesting: one level more is a ParseError at the innermost statement") {
  const std::size_t depth = deepest_that_parses(nested_ifs);
  try {
    (void)text::parse_program(nested_ifs(depth + 1));
    FAIL("parsed");
  } catch (const text::ParseError& e) {
    CHECK(std::string(e.what()).find("IR nests deeper than 512 levels") != std::string::npos);
    CHECK(e.line() > 6);  // at the innermost statement, not at the top
  }

  // The same program built one level deeper in C++: the measure sees it.
  const ProgramRef p = text::parse_program(nested_ifs(depth));
  const FunctionRef main = p->find("main");
  const auto& scope =
      static_cast<const InCoreScopeStmt&>(*static_cast<const SeqStmts&>(*main->body).stmts.at(0));
  const VarRef c = main->params.at(1);
  const StmtRef deeper = SeqStmts::make(
      {IfStmt::make(c, scope.body), static_cast<const SeqStmts&>(*main->body).stmts.at(1)});
  const ProgramRef too_deep =
      Program::make(p->name, {with_body(*main, SeqStmts::make({InCoreScopeStmt::make(deeper)}))});
  REQUIRE(find_too_deep(*too_deep));
  CHECK(find_too_deep(*too_deep)->depth == core::kMaxNesting + 1);
  CHECK_THROWS_WITH_AS(require_nesting_within_limit(*too_deep, "here"),
                       doctest::Contains("here: IR nests deeper than 512 levels"),
                       core::ValueError);
}

TEST_CASE("nesting: dedup merges kernels under a call chain as deep as the parser reads") {
  const std::size_t depth = deepest_that_parses(nested_calls);
  CAPTURE(depth);
  CHECK(depth > core::kMaxNesting - 20);  // a call is one level
  tf::DedupLog log;
  tf::DedupOptions options;
  options.on_event = log.sink();
  const ProgramRef p = text::parse_program(nested_calls(depth));
  const ProgramRef merged = tf::DeduplicateOutlinedKernels(options)(*p);
  CHECK(log.count(tf::DedupEvent::Kind::Merged) == 1);
  CHECK(merged->find("k2") == nullptr);
  CHECK_NOTHROW(text::check_round_trip(*merged));
}

TEST_CASE("nesting: find_too_deep measures a shared node once, at its deepest use") {
  const auto index = ScalarType::make(core::DataType::INDEX);
  ExprRef e = Var::make("n", index);
  // Each level uses the one below twice: 2^600 paths, 600 distinct nodes.
  for (int i = 0; i < 600; ++i) e = Add::make(e, e);
  const auto deep = find_too_deep(*e);
  REQUIRE(deep);
  CHECK(deep->depth == core::kMaxNesting + 1);
  ExprRef shallow = Var::make("m", index);
  for (int i = 0; i < 400; ++i) shallow = Add::make(shallow, shallow);
  CHECK_FALSE(find_too_deep(*shallow));
}

// Tests of host values (text/host_values.hpp): a program written inside a Python factory reads
// the factory's variables; given as ParseOptions::host_values, each unbound name reads as its
// value's expression — the same program as the one with the values written in — while a
// parameter, an assignment, a module-level shape symbol or a comprehension's variable of the
// name shadows it, as in Python. A value that is not one expression, or no identifier, is a
// ValueError naming it; an unbound name without a value stays a ParseError at its line:column.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "pypto/core/error.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/text/host_values.hpp"
#include "pypto/text/parse_error.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/syntax.hpp"
#include "text_test_support.hpp"

namespace {

using namespace pypto;
using pypto::text_test::expect_error;

ir::ProgramRef parse_with(const std::string& text, std::map<std::string, std::string> values) {
  text::ParseOptions options;
  options.host_values = std::move(values);
  return text::parse_program(text, options);
}

void check_equal(const ir::ProgramRef& got, const ir::ProgramRef& want) {
  INFO(text::print(*got));
  CHECK(structural::structural_equal(ir::NodeRef(got), ir::NodeRef(want), true));
}

// upstream's test factories: `def make(rows, dtype, scale): @pl.program class Scaled: ...`
constexpr const char* kFactory = R"(import pypto.language as pl

@pl.program
class Scaled:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[rows, 64], dtype], out: pl.Out[pl.Tensor[[rows, 64], dtype]]) -> pl.Tensor[[rows, 64], dtype]:
        t: pl.Tile[[rows, 64], dtype] = pl.load(x, [0, 0], [rows, 64])
        u: pl.Tile[[rows, 64], dtype] = pl.muls(t, scale)
        return pl.store(u, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[rows, 64], dtype], out: pl.Out[pl.Tensor[[rows, 64], dtype]]) -> pl.Tensor[[rows, 64], dtype]:
        return self.kernel(x, out)
)";

constexpr const char* kWrittenIn = R"(import pypto.language as pl

@pl.program
class Scaled:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP16], out: pl.Out[pl.Tensor[[16, 64], pl.FP16]]) -> pl.Tensor[[16, 64], pl.FP16]:
        t: pl.Tile[[16, 64], pl.FP16] = pl.load(x, [0, 0], [16, 64])
        u: pl.Tile[[16, 64], pl.FP16] = pl.muls(t, (-2.5))
        return pl.store(u, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP16], out: pl.Out[pl.Tensor[[16, 64], pl.FP16]]) -> pl.Tensor[[16, 64], pl.FP16]:
        return self.kernel(x, out)
)";

TEST_CASE("host values: a factory's variables read as the values written in") {
  check_equal(parse_with(kFactory, {{"rows", "16"}, {"dtype", "pl.FP16"}, {"scale", "-2.5"}}),
              text::parse_program(kWrittenIn));
  // Another value is another program.
  CHECK_FALSE(structural::structural_equal(
      ir::NodeRef(parse_with(kFactory, {{"rows", "32"}, {"dtype", "pl.FP16"}, {"scale", "-2.5"}})),
      ir::NodeRef(text::parse_program(kWrittenIn)), true));
}

TEST_CASE("host values: without a value the name is the usual error at its line:column") {
  expect_error(kFactory, 6, 36, "a defined name");
  try {
    parse_with(kFactory, {{"rows", "16"}, {"dtype", "pl.FP16"}});
    FAIL("no ParseError");
  } catch (const text::ParseError& e) {
    CHECK(e.line() == 8);
    CHECK(e.column() == 52);
    CHECK(e.token() == "scale");
  }
}

TEST_CASE("host values: a value wrong where it is read is an error at the name it replaced") {
  try {
    parse_with(kFactory, {{"rows", "16"}, {"dtype", "64"}, {"scale", "1.0"}});
    FAIL("no ParseError");
  } catch (const text::ParseError& e) {
    CHECK(e.line() == 6);
    CHECK(e.column() == 47);
    CHECK(std::string(e.what()).find("a dtype") != std::string::npos);
  }
}

// Python's scopes: a parameter, an assignment and a module-level symbol of the name shadow the
// host value; elsewhere the value is read.
constexpr const char* kShadows = R"(import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class Shadows:
    @pl.function(type=pl.FunctionType.Opaque)
    def by_param(self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[M, 8], pl.FP32]) -> pl.Scalar[pl.INDEX]:
        return n + 1

    @pl.function(type=pl.FunctionType.Opaque)
    def by_assign(self, k: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        n = k * 2
        return n + 1

    @pl.function(type=pl.FunctionType.Opaque)
    def free(self, k: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        return k + n
)";

TEST_CASE("host values: parameters, assignments, module symbols and comprehensions shadow them") {
  const ir::ProgramRef got = parse_with(kShadows, {{"n", "7"}, {"M", "99"}});
  check_equal(got, text::parse_program(pypto::text_test::replaced(kShadows, "k + n", "k + 7")));
}

TEST_CASE("host values: a comprehension's variable shadows them in its element and conditions") {
  text::syntax::Module m =
      text::syntax::parse_module("x = [k + 1 for k in range(k) if k > 0]\ny = k\n");
  text::bind_host_values(m, {{"k", "5"}});
  const text::syntax::Expr& comp = *m[0]->value;
  CHECK(comp.item(0).item(0).kind == text::syntax::ExprKind::Name);  // k + 1
  CHECK(comp.item(1).kind == text::syntax::ExprKind::Name);          // for k
  CHECK(comp.item(2).item(1).kind == text::syntax::ExprKind::Int);   // in range(5)
  CHECK(comp.item(3).item(0).kind == text::syntax::ExprKind::Name);  // if k > 0
  CHECK(m[1]->value->kind == text::syntax::ExprKind::Int);           // y = 5
  CHECK(m[1]->value->int_value == 5);
}

TEST_CASE("host values: a value that is not one expression, or no identifier, is named") {
  const auto error_of = [](std::map<std::string, std::string> values) -> std::string {
    try {
      parse_with(kFactory, std::move(values));
    } catch (const core::ValueError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(error_of({{"rows", "16 16"}}) ==
        "the host value rows = `16 16` is not one expression: 1:4: at '16': the end of the "
        "statement (a new line)");
  CHECK(error_of({{"rows", ""}}).starts_with("the host value rows = `` is not one expression: "));
  CHECK(error_of({{"dtype", "pl.FP16\nx = 1"}}) ==
        "the host value dtype = `pl.FP16\nx = 1` is not one expression");
  CHECK(error_of({{"9rows", "16"}}) == "the host value 9rows = `16` names no identifier");
}

TEST_CASE("host values: a chain as long as the text allows is read without recursion") {
  // 100 000 terms nest deeper than the IR's limit: a ParseError, never a stack overflow.
  std::string chain = "k";
  for (int i = 0; i < 100000; ++i) chain += " + n";
  const std::string text = std::string(R"(import pypto.language as pl

@pl.program
class Long:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, k: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        return )") + chain +
                           "\n";
  CHECK_THROWS_AS(parse_with(text, {{"n", "(1 + 2) * 3"}}), text::ParseError);
}

}  // namespace

// Tests of upstream DSL forms of functions and op calls the text reads: @pl.inline functions
// (expanded where they are called), @pl.program(strict_ssa=...), and op keyword forms (a later
// optional argument by keyword, one-argument view and load forms, out_dtype= on tile.matmul,
// pad values, dtype= on alloc_window_buffer) — each read, checked in the IR, printed back
// losslessly; each with an error case at its line:column.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "pypto/ir.hpp"
#include "pypto/text/parse_error.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"

namespace {

using namespace pypto;
using namespace pypto::ir;
using core::DataType;

std::string error_of(const std::string& text) {
  try {
    text::parse_program(text);
  } catch (const text::ParseError& e) {
    return e.what();
  }
  return "no error";
}

std::string replaced(std::string from, const std::string& a, const std::string& b) {
  from.replace(from.find(a), a.size(), b);
  return from;
}

/// The statements of `f`'s body, flattened one level.
std::vector<StmtRef> body_of(const Function& f) {
  if (const auto* seq = as<SeqStmts>(f.body.get())) return seq->stmts;
  return {f.body};
}

constexpr const char* kInline = R"(import pypto.language as pl

@pl.inline
def scale_add(x, s: pl.Tensor[[64], pl.FP32]):
    """Twice x plus s."""
    d: pl.Tensor[[64], pl.FP32] = pl.mul(x, 2.0)
    e: pl.Tensor[[64], pl.FP32] = pl.add(d, s)
    return e

@pl.inline
def pair(x: pl.Tensor[[64], pl.FP32]):
    for i, (acc,) in pl.range(3, init_values=(x,)):
        nxt: pl.Tensor[[64], pl.FP32] = scale_add(acc, x)
        r = pl.yield_(nxt)
    return r, x

@pl.program
class Model:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = scale_add(a, b)
        p, q = pair(y)
        z: pl.Tensor[[64], pl.FP32] = pl.add(p, q)
        return z
)";

TEST_CASE("inline: an @pl.inline function is expanded where it is called") {
  const ProgramRef p = text::parse_program(kInline);
  CHECK(p->functions.size() == 1);  // no function of the program for an inline one
  const Function& main = *p->find("main");
  const std::vector<StmtRef> body = body_of(main);
  // d, e, y = e; the loop of pair (with scale_add's d, e inside), the tuple of p, q; z; return
  REQUIRE(body.size() >= 6);
  const auto* d = as<AssignStmt>(body[0].get());
  REQUIRE(d);
  CHECK(d->var->name_hint == "d");
  const auto* mul = as<Call>(d->value.get());
  REQUIRE(mul);
  CHECK(mul->op->name == "tensor.muls");
  CHECK(mul->args[0].get() == main.params[0].get());  // x is the argument a
  const auto* y = as<AssignStmt>(body[2].get());
  REQUIRE(y);
  CHECK(y->var->name_hint == "y");
  CHECK(y->value.get() == as<AssignStmt>(body[1].get())->var.get());  // the returned e
  CHECK(isa<ForStmt>(*body[3]));
  text::check_round_trip(*p);
}

TEST_CASE("inline: an inline parameter's own binding does not rebind the argument") {
  const ProgramRef p = text::parse_program(R"(import pypto.language as pl

@pl.inline
def bump(x):
    x = pl.add(x, 1.0)
    return x

@pl.program
class Model:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = bump(a)
        z = pl.add(a, y)
        return z
)");
  const Function& main = *p->find("main");
  const std::vector<StmtRef> body = body_of(main);
  REQUIRE(body.size() == 4);
  const auto* x = as<AssignStmt>(body[0].get());
  REQUIRE(x);
  CHECK(x->var->name_hint == "x");
  CHECK(x->var.get() != main.params[0].get());
  const auto* z = as<Call>(as<AssignStmt>(body[2].get())->value.get());
  REQUIRE(z);
  CHECK(z->args[0].get() == main.params[0].get());  // a still names the parameter
  text::check_round_trip(*p);
}

TEST_CASE("inline: a value argument that is not a variable is substituted") {
  const ProgramRef p = text::parse_program(R"(import pypto.language as pl

@pl.inline
def twice(n):
    m: pl.Scalar[pl.INDEX] = n * 2
    return m

@pl.program
class Model:
    @pl.function
    def main(self, a: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        k: pl.Scalar[pl.INDEX] = twice(a + 1)
        return k
)");
  const std::vector<StmtRef> body = body_of(*p->find("main"));
  REQUIRE(body.size() == 3);
  const auto* m = as<AssignStmt>(body[0].get());
  REQUIRE(m);
  const auto* mul = as<Mul>(m->value.get());
  REQUIRE(mul);
  CHECK(isa<Add>(*mul->left));
  text::check_round_trip(*p);
}

TEST_CASE("inline: errors say what and where") {
  CHECK(error_of(replaced(kInline, "scale_add(a, b)", "scale_add(a)"))
            .find("21:39: at 'scale_add(': inline function 'scale_add' takes 2 arguments, got "
                  "1") != std::string::npos);
  CHECK(error_of(replaced(kInline, "scale_add(a, b)", "scale_add(a, s=b)"))
            .find("21:52: at 's': inline function 'scale_add' takes no keywords") !=
        std::string::npos);
  CHECK(error_of(replaced(kInline, "    return e\n", "    pl.add(d, s)\n"))
            .find("21:39: at 'scale_add(': a value: inline function 'scale_add' returns none") !=
        std::string::npos);
  CHECK(error_of(replaced(kInline, "d: pl.Tensor[[64], pl.FP32] = pl.mul(x, 2.0)",
                          "d: pl.Tensor[[64], pl.FP32] = scale_add(x, s)"))
            .find("6:35: at 'scale_add': a call of an inline function other than 'scale_add'") !=
        std::string::npos);
  CHECK(error_of(replaced(kInline, "@pl.program\nclass Model:\n",
                          "@pl.program\nclass Model:\n    @pl.inline\n    def h(self, x):\n"
                          "        return x\n\n"))
            .find("20:5: at 'h': @pl.inline only on a module-level function") != std::string::npos);
  CHECK(error_of(replaced(kInline, "def pair(", "def scale_add("))
            .find("at 'scale_add': an inline function name not used before") != std::string::npos);
}

}  // namespace

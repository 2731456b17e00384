// Tests of scalar operators as upstream's builders type them: operands of two integer (or two
// float) dtypes promoted to the wider one (the left at equal width) with a Cast on the other,
// INDEX beside INT64 taken mixed with no Cast, `pl.cast` on a scalar (a Cast expression),
// `pl.add` / `pl.sub` / `pl.mul` / `pl.div` on two scalars (the operators), `not` on a
// non-BOOL scalar, a lone index of `pl.read`, `pl.FP32.get_byte()`; each read, checked in the
// IR, printed and read back; errors at line:column.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "pypto/ir.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/text/parse_error.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"
#include "text_test_support.hpp"

namespace {

using pypto::text_test::expect_error;

using namespace pypto;
using namespace pypto::ir;
using core::DataType;

/// The value of every AssignStmt of `f` named `name`, in order.
std::vector<ExprRef> values_of(const Function& f, const std::string& name) {
  std::vector<ExprRef> out;
  for_each_node(f.body, [&](const Node& n) {
    if (const auto* a = as<AssignStmt>(&n); a && a->var->name_hint == name) out.push_back(a->value);
  });
  return out;
}

/// The one value assigned to `name` in `f`.
ExprRef value_of(const Function& f, const std::string& name) {
  const std::vector<ExprRef> v = values_of(f, name);
  REQUIRE(v.size() == 1);
  return v[0];
}

DataType dtype_of(const ExprRef& e) {
  const auto* s = as<ScalarType>(e->type.get());
  REQUIRE(s);
  return s->dtype;
}

/// `e` is Cast(`operand`-named variable) to `to`.
void check_cast_of(const ExprRef& e, const std::string& operand, DataType to) {
  const auto* c = as<Cast>(e.get());
  REQUIRE(c);
  CHECK(c->target() == to);
  const auto* v = as<Var>(c->operand.get());
  REQUIRE(v);
  CHECK(v->name_hint == operand);
}

constexpr const char* kMixed = R"(import pypto.language as pl

@pl.program
class Mixed:
    @pl.function
    def main(self, t: pl.Tensor[[8], pl.INT32], n: pl.Scalar[pl.INT64], w: pl.Scalar[pl.INT32], u: pl.Scalar[pl.UINT32], h: pl.Scalar[pl.FP16], f: pl.Scalar[pl.FP32]) -> pl.Tensor[[8], pl.INT32]:
        for i in pl.range(8):
            lt = i < n
            s = w + i
            d = n - w
            e = w * u
            g = h + f
            k = pl.const(3, pl.INDEX) + n
            m = min(w, n)
        return t
)";

TEST_CASE("scalar ops: mixed integer and float dtypes promote as upstream's builders do") {
  const ProgramRef p = text::parse_program(kMixed);
  const Function& f = *p->find("main");

  // INDEX beside INT64: one 64-bit word, taken mixed (no Cast); the left types the result.
  const auto* lt = as<Lt>(value_of(f, "lt").get());
  REQUIRE(lt);
  CHECK(dtype_of(lt->left) == DataType::INDEX);
  CHECK(dtype_of(lt->right) == DataType::INT64);
  CHECK(dtype_of(value_of(f, "lt")) == DataType::BOOL);

  // The narrower integer is cast to the wider.
  const auto* s = as<Add>(value_of(f, "s").get());
  REQUIRE(s);
  check_cast_of(s->left, "w", DataType::INDEX);
  CHECK(dtype_of(value_of(f, "s")) == DataType::INDEX);
  const auto* d = as<Sub>(value_of(f, "d").get());
  REQUIRE(d);
  check_cast_of(d->right, "w", DataType::INT64);
  CHECK(dtype_of(value_of(f, "d")) == DataType::INT64);
  // At equal width the left operand's dtype wins.
  const auto* e = as<Mul>(value_of(f, "e").get());
  REQUIRE(e);
  check_cast_of(e->right, "u", DataType::INT32);
  CHECK(dtype_of(value_of(f, "e")) == DataType::INT32);
  // Floats promote the same way.
  const auto* g = as<Add>(value_of(f, "g").get());
  REQUIRE(g);
  check_cast_of(g->left, "h", DataType::FP32);
  // An INDEX constant beside INT64 stays INDEX, and min / max promote too.
  const auto* k = as<Add>(value_of(f, "k").get());
  REQUIRE(k);
  CHECK(dtype_of(k->left) == DataType::INDEX);
  const auto* m = as<Min>(value_of(f, "m").get());
  REQUIRE(m);
  check_cast_of(m->left, "w", DataType::INT64);

  text::check_round_trip(*p);
  const std::string printed = text::print(*p);
  CAPTURE(printed);
  CHECK(printed.find("i < n") != std::string::npos);
  CHECK(printed.find("pl.cast(w, pl.INDEX) + i") != std::string::npos);
  // The printer keeps the INDEX constant's dtype: a bare 3 would take n's.
  CHECK(printed.find("pl.const(3, pl.INDEX) + n") != std::string::npos);
}

TEST_CASE("scalar ops: an integer beside a float is an error at the operator") {
  expect_error(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, w: pl.Scalar[pl.INT32], f: pl.Scalar[pl.FP32]):
        x = w + f
)",
               7, 13, "operand dtypes differ (INT32 vs FP32)");
}

constexpr const char* kCalls = R"(import pypto.language as pl

@pl.program
class Calls:
    @pl.function
    def main(self, a: pl.Scalar[pl.INT64], b: pl.Scalar[pl.INT64], x: pl.Scalar[pl.FP32], y: pl.Scalar[pl.FP32], w: pl.Scalar[pl.INT32], t: pl.Tensor[[8], pl.INT32]):
        c0 = pl.cast(w, pl.INDEX)
        c1 = pl.cast(w, target_type=pl.INT64)
        c2 = pl.cast(w, pl.FP32, mode="round")
        s0 = pl.add(a, b)
        s1 = pl.sub(a, 1)
        s2 = pl.mul(a, b)
        s3 = pl.div(x, y)
        nb = not a
        r = pl.read(t, a)
        nbytes = 256 * pl.FP32.get_byte()
)";

TEST_CASE("scalar ops: pl.cast, pl.add / sub / mul / div and not on scalars") {
  const ProgramRef p = text::parse_program(kCalls);
  const Function& f = *p->find("main");
  check_cast_of(value_of(f, "c0"), "w", DataType::INDEX);
  check_cast_of(value_of(f, "c1"), "w", DataType::INT64);
  check_cast_of(value_of(f, "c2"), "w", DataType::FP32);
  CHECK(isa<Add>(value_of(f, "s0")));
  const auto* s1 = as<Sub>(value_of(f, "s1").get());
  REQUIRE(s1);
  CHECK(dtype_of(s1->right) == DataType::INT64);  // the literal takes a's dtype, as in `a - 1`
  CHECK(isa<Mul>(value_of(f, "s2")));
  CHECK(isa<FloatDiv>(value_of(f, "s3")));
  const auto* nb = as<Not>(value_of(f, "nb").get());
  REQUIRE(nb);
  CHECK(dtype_of(value_of(f, "nb")) == DataType::BOOL);
  CHECK(dtype_of(nb->operand) == DataType::INT64);
  // One index alone is the list of it; a dtype's byte width is an int.
  const auto* r = as<Call>(value_of(f, "r").get());
  REQUIRE(r);
  CHECK(r->op->name == "tensor.read");
  REQUIRE(as<MakeTuple>(r->args[1].get()));
  CHECK(as<MakeTuple>(r->args[1].get())->elements.size() == 1);
  const auto* nbytes = as<Mul>(value_of(f, "nbytes").get());
  REQUIRE(nbytes);
  REQUIRE(as<ConstInt>(nbytes->right.get()));
  CHECK(as<ConstInt>(nbytes->right.get())->value == 4);

  // pl.add(a, b) is a + b.
  std::string ops = kCalls;
  ops.replace(ops.find("pl.add(a, b)"), 12, "a + b");
  ops.replace(ops.find("pl.sub(a, 1)"), 12, "a - 1");
  CHECK(structural::structural_equal(NodeRef(p), NodeRef(text::parse_program(ops)), true));

  text::check_round_trip(*p);
  const std::string printed = text::print(*p);
  CAPTURE(printed);
  CHECK(printed.find("pl.cast(w, pl.INT64)") != std::string::npos);
  CHECK(printed.find("not a") != std::string::npos);
}

TEST_CASE("scalar ops: a scalar pl.cast takes only the default rounding") {
  const std::string head =
      "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"
      "    def main(self, w: pl.Scalar[pl.INT32]):\n";
  expect_error(head + "        c = pl.cast(w, pl.FP32, mode=\"floor\")\n", 7, 38,
               "the default mode \"round\"");
  expect_error(head + "        c = pl.cast(w)\n", 7, 13, "argument 'target_type' is required");
  expect_error(head + "        c = pl.cast(w, pl.FP32, target_type=pl.FP16)\n", 7, 45,
               "'target_type' given once");
  expect_error(head + "        c = pl.cast(w, pl.FP32, bogus=1)\n", 7, 33,
               "pl.cast takes the keywords target_type, mode");
}

}  // namespace

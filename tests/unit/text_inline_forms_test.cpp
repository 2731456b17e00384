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
#include "text_test_support.hpp"

namespace {

using pypto::text_test::error_of;
using pypto::text_test::replaced;

using namespace pypto;
using namespace pypto::ir;
using core::DataType;

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

/// The first call of `op` in `f`'s body (in walk order).
const Call& find_call(const Function& f, std::string_view op) {
  const Call* found = nullptr;
  for_each_node(f.body, [&](const Node& n) {
    if (const auto* c = as<Call>(&n); c && !found && c->op->name == op) found = c;
  });
  REQUIRE_MESSAGE(found, "no call of " << op);
  return *found;
}

constexpr const char* kOpForms = R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program(strict_ssa=True)
class Forms:
    @pl.function(type=pl.FunctionType.AIV)
    def vec(self, x: pl.Tensor[[8, 4], pl.FP32], a: pl.Tile[[16, 16], pl.BF16], b: pl.Tile[[16, 16], pl.BF16], buf: pl.Scalar[pl.INT32], ctx: pld.CommCtxType) -> pl.Tensor[[4, 8], pl.FP32]:
        pl.aiv_initialize_pipe(dir_mask=2, slot_size=512, v2c_consumer_buf=buf)
        w: pl.Tensor[[4], pl.FP32] = pl.tensor.slice(x, [1, 4], [2, 0], drop_dims=[0])
        v: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(stride=[1, 4], layout=pl.TensorLayout.DN)] = pl.tensor.view(x, layout=pl.TensorLayout.DN)
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        f = pl.fillpad(x, 0)
        g = pl.fillpad(x, pad_value=-math.inf)
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.NONE)]):
            h = pl.fillpad(x, math.inf)
        return v

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[8, 4], pl.FP32]) -> pl.Tensor[[8, 4], pl.FP32]:
        buf = pld.alloc_window_buffer([64, 128], dtype=pl.FP32)
        dyn = pld.alloc_window_buffer([64, pld.world_size()], dtype=pl.INT32)
        return x
)";

TEST_CASE("op forms: a later optional argument by keyword and upstream's keyword sugar") {
  const ProgramRef p = text::parse_program(kOpForms);
  const Function& vec = *p->find("vec");
  // c2v_consumer_buf left out before v2c_consumer_buf: upstream's default INT32 0.
  const Call& pipe = find_call(vec, "system.aiv_initialize_pipe");
  REQUIRE(pipe.args.size() == 2);
  const auto* zero = as<ConstInt>(pipe.args[0].get());
  REQUIRE(zero);
  CHECK(zero->value == 0);
  CHECK(zero->dtype() == DataType::INT32);
  CHECK(pipe.args[1].get() == vec.params[3].get());
  // valid_shape left out before drop_dims: an empty list.
  const Call& slice = find_call(vec, "tensor.slice");
  REQUIRE(slice.args.size() == 5);
  const auto* none = as<MakeTuple>(slice.args[3].get());
  REQUIRE(none);
  CHECK(none->elements.empty());
  // The layout-only view swaps the last two axes and takes the DN layout.
  const auto* view = as<TensorType>(find_call(vec, "tensor.view").type.get());
  REQUIRE(view);
  CHECK(as<ConstInt>(view->shape[0].get())->value == 4);
  REQUIRE(view->tensor_view);
  CHECK(view->tensor_view->layout == TensorLayout::DN);
  CHECK(find_call(vec, "tile.matmul").kwargs.get<DataType>("out_dtype") == DataType::FP32);
  std::vector<PadValue> pads;
  for_each_node(vec.body, [&](const Node& n) {
    if (const auto* c = as<Call>(&n); c && c->op->name == "tensor.fillpad")
      pads.push_back(*c->kwargs.get<PadValue>("pad_value"));
  });
  CHECK(pads == std::vector<PadValue>{PadValue::zero, PadValue::min, PadValue::max});
  CHECK(isa<CommCtxType>(vec.params[4]->type));
  // The shape form of alloc_window_buffer is its byte size.
  const Function& host = *p->find("host");
  const auto* bytes = as<ConstInt>(find_call(host, "pld.tensor.alloc_window_buffer").args[0].get());
  REQUIRE(bytes);
  CHECK(bytes->value == 64 * 128 * 4);
  CHECK(bytes->dtype() == DataType::INT64);
  text::check_round_trip(*p);
}

TEST_CASE("op forms: errors say what and where") {
  CHECK(error_of(replaced(kOpForms, "pl.matmul(a, b, out_dtype=pl.FP32)",
                          "pl.matmul(a, b, out_dtype=pl.BF16)"))
            .find("11:13: at 'pl.matmul(': tile.matmul: argument 0 gives FP32 on the Cube") !=
        std::string::npos);
  CHECK(error_of(replaced(kOpForms, "pl.fillpad(x, 0)", "pl.fillpad(x, 7)"))
            .find("12:27: at '7': a pad value") != std::string::npos);
  CHECK(error_of(replaced(kOpForms, "pl.fillpad(x, 0)", "pl.fillpad(x, pl.PadValue.null)"))
            .find("12:13: at 'pl.fillpad(': tensor.fillpad: keyword 'pad_value' must be zero, "
                  "max or min") != std::string::npos);
  CHECK(error_of(
            replaced(kOpForms, "pl.tensor.view(x, layout=pl.TensorLayout.DN)", "pl.tensor.view(x)"))
            .find("10:98: at 'pl.tensor.view(': tensor.view: argument 0 needs a shape or a "
                  "layout=") != std::string::npos);
  CHECK(error_of(replaced(kOpForms, "[64, 128], dtype=pl.FP32", "[64, 0], dtype=pl.FP32"))
            .find("20:44: at '0': a positive dimension") != std::string::npos);
  CHECK(error_of(replaced(kOpForms, "[64, 128], dtype=pl.FP32", "[64, 128]"))
            .find("20:39: at '[': a dtype= keyword beside the shape list") != std::string::npos);
  CHECK(error_of(replaced(kOpForms, "            h = pl.fillpad(x, math.inf)",
                          "            for q in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n"
                          "                h = pl.fillpad(x, math.inf)"))
            .find("15:22: at 'pl.split_aiv(': no pl.split_aiv region in a scope that declares "
                  "pl.split(pl.SplitMode.NONE)") != std::string::npos);
  CHECK(error_of(replaced(kOpForms, "@pl.program(strict_ssa=True)", "@pl.program(ssa=True)"))
            .find("4:13: at 'ssa': @pl.program takes the keywords strict_ssa") !=
        std::string::npos);
}

}  // namespace

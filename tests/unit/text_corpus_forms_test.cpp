// Tests of forms found in upstream PyPTO's programs that the text reads as upstream does: a
// tensor.slice window of lower rank than its input with offsets in the input's rank, the quoted
// "window_buffer=<name>" note of a distributed tensor annotation, the full names
// pl.optimizations.split / pl.optimizations.cross_core_slot, pl.at's windowize=True, a
// pl.dynamic symbol named like a parameter, and pl.store's shapes after the output tensor — each
// read, checked in the IR and printed back losslessly, with the error each wrong form gives; a
// unified op's operands given by name, non-ASCII variable names (columns count characters), and a
// HOST sub-worker's host-code body with assert / is / in.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "pypto/ir.hpp"
#include "pypto/ir/scope_attrs.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/text/parse_error.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"
#include "text_test_support.hpp"

namespace {

using pypto::text_test::const_value;
using pypto::text_test::expect_error;
using pypto::text_test::replaced;

using namespace pypto;
using namespace pypto::ir;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The value of the first AssignStmt of `f` binding `name`.
const Call* call_bound_to(const Function& f, const std::string& name) {
  const Call* out = nullptr;
  for_each_node(f.body, [&](const Node& n) {
    if (const auto* a = as<AssignStmt>(&n); a && !out && a->var->name_hint == name)
      out = as<Call>(a->value.get());
  });
  return out;
}

constexpr const char* kSlice = R"(import pypto.language as pl

@pl.program
class Slices:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, data: pl.Tensor[[4, 128, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        chunk: pl.Tensor[[16, 64], pl.FP32] = pl.slice(data, [16, 64], [1, 32, 0])
        return chunk
)";

TEST_CASE("corpus forms: a tensor window of lower rank than its input, offsets in the input's") {
  const ProgramRef p = text::parse_program(kSlice);
  const Call* c = call_bound_to(*p->find("main"), "chunk");
  REQUIRE(c);
  CHECK(c->op->name == "tensor.slice");
  const auto* t = as<TensorType>(c->type.get());
  REQUIRE(t);
  REQUIRE(t->shape.size() == 2);
  CHECK(const_value(t->shape[0]) == 16);
  CHECK(const_value(t->shape[1]) == 64);
  const auto* offset = as<MakeTuple>(c->args[2].get());
  REQUIRE(offset);
  CHECK(offset->elements.size() == 3);
  text::check_round_trip(*p);
  CHECK(contains(text::print(*p), "pl.tensor.slice(data, [16, 64], [1, 32, 0])"));
  // The window's own rank stays accepted.
  text::check_round_trip(*text::parse_program(replaced(kSlice, "[1, 32, 0]", "[32, 0]")));
}

TEST_CASE("corpus forms: a slice offset of neither rank, and a tile's of the tile's rank, fail") {
  expect_error(replaced(kSlice, "[1, 32, 0]", "[1, 32, 0, 0]"), 7, 47,
               "tensor.slice: argument 2 must match the shape's or the input's rank");
  // tile.slice keeps upstream's rule: the offset has the window's rank.
  const std::string tile = R"(import pypto.language as pl

@pl.program
class TileSlices:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64])
        w = pl.slice(t, [16, 64], [0, 0, 0])
        return pl.store(w, [0, 0], o)
)";
  expect_error(tile, 8, 13, "tile.slice: argument 2 must match the shape's rank");
}

TEST_CASE("corpus forms: a reshape of constants keeps the element count, as upstream checks") {
  const std::string reshape = R"(import pypto.language as pl

@pl.program
class Reshapes:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(a, [0, 0], [4, 16])
        r = pl.tile.reshape(t, [1, 64])
        u = pl.tensor.reshape(a, [64])
        return pl.store(r, [0, 0], o)
)";
  text::check_round_trip(*text::parse_program(reshape));
  expect_error(replaced(reshape, "[1, 64])", "[2, 64])"), 8, 13,
               "tile.reshape: argument 1 must hold as many elements as argument 0 (128 for 64)");
  expect_error(replaced(reshape, "(a, [64])", "(a, [8, 4])"), 9, 13,
               "tensor.reshape: argument 1 must hold as many elements as argument 0 (32 for 64)");
}

constexpr const char* kWindowNote = R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class Windows:
    @pl.function
    def f(self, x: pld.DistributedTensor[[256], pl.FP32, "window_buffer=wbuf"], y: pld.DistributedTensor[[64, 64], pl.FP32, pl.NZ, "window_buffer=w2"]) -> pld.DistributedTensor[[256], pl.FP32]:
        return x
)";

TEST_CASE("corpus forms: a window_buffer note ends a distributed tensor annotation, unrecorded") {
  const ProgramRef p = text::parse_program(kWindowNote);
  const Function& f = *p->find("f");
  REQUIRE(f.params.size() == 2);
  const auto* x = as<TensorType>(f.params[0]->type.get());
  REQUIRE(x);
  CHECK(x->distributed);
  CHECK_FALSE(x->tensor_view);
  const auto* y = as<TensorType>(f.params[1]->type.get());
  REQUIRE(y);
  CHECK(y->distributed);
  REQUIRE(y->tensor_view);
  CHECK(y->tensor_view->layout == TensorLayout::NZ);
  text::check_round_trip(*p);
  const std::string printed = text::print(*p);
  CAPTURE(printed);
  CHECK_FALSE(contains(printed, "window_buffer"));
  // The same program without the notes is the same IR.
  const std::string plain = replaced(replaced(kWindowNote, R"(, "window_buffer=wbuf")", ""),
                                     R"(, "window_buffer=w2")", "");
  CHECK(structural::structural_equal(NodeRef(p), NodeRef(text::parse_program(plain)), true));
}

TEST_CASE("corpus forms: a string elsewhere in a tensor annotation is an error") {
  // On a plain tensor.
  expect_error(replaced(kWindowNote, R"(pld.DistributedTensor[[256], pl.FP32, "window)",
                        R"(pl.Tensor[[256], pl.FP32, "window)"),
               7, 46, R"(no string here: a quoted "window_buffer=<name>" note only ends a)");
  // Not a window_buffer note.
  expect_error(replaced(kWindowNote, R"("window_buffer=wbuf")", R"("wbuf")"), 7, 58,
               "no string here");
  // Not last.
  expect_error(
      replaced(kWindowNote, R"(pl.NZ, "window_buffer=w2")", R"("window_buffer=w2", pl.NZ)"), 7, 125,
      "no string here");
}

constexpr const char* kFullNames = R"(import pypto.language as pl

@pl.program
class Split:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[512, 128], pl.FP32], out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        for i in pl.spmd(4, optimizations=[pl.optimizations.split(pl.SplitMode.LEFT_RIGHT), pl.optimizations.cross_core_slot(slot_num=2)]):
            t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [i * 128, 0], [128, 128])
            out = pl.store(t, [i * 128, 0], out)
        return out
)";

TEST_CASE(
    "corpus forms: pl.optimizations.split and .cross_core_slot are pl.split and "
    "pl.cross_core_slot") {
  const ProgramRef p = text::parse_program(kFullNames);
  const InCoreScopeStmt* kernel = nullptr;
  for_each_node(p->find("main")->body, [&](const Node& n) {
    if (const auto* s = as<InCoreScopeStmt>(&n)) kernel = s;
  });
  REQUIRE(kernel);
  CHECK(kernel->split == SplitMode::LeftRight);
  text::check_round_trip(*p);
  const std::string printed = text::print(*p);
  CAPTURE(printed);
  CHECK(contains(printed,
                 "optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT), "
                 "pl.cross_core_slot(slot_num=2)]"));
  const std::string short_names =
      replaced(replaced(kFullNames, "pl.optimizations.split(", "pl.split("),
               "pl.optimizations.cross_core_slot(", "pl.cross_core_slot(");
  CHECK(structural::structural_equal(NodeRef(p), NodeRef(text::parse_program(short_names)), true));
}

TEST_CASE("corpus forms: an unknown pl.optimizations name is an error") {
  expect_error(
      replaced(kFullNames, "pl.optimizations.cross_core_slot(", "pl.optimizations.prefetch("), 7,
      93, "an optimization: pl.split(pl.SplitMode.<mode>) or pl.cross_core_slot(...)");
  expect_error(replaced(kFullNames, "pl.optimizations.split(pl.SplitMode.LEFT_RIGHT)",
                        "pl.optimizations.split(pl.SplitMode.LEFT_RIGHT, foo=1)"),
               7, 92, "pl.split takes the keywords slot_num");
}

constexpr const char* kWindowize = R"(import pypto.language as pl

@pl.program
class Windowed:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, windowize=True):
            tile = pl.load(x, [0, 0], [128, 128])
            out = pl.store(tile, [0, 0], out)
        return out
)";

TEST_CASE("corpus forms: windowize=True on a CORE_GROUP pl.at is the kernel's windowize attr") {
  const ProgramRef p = text::parse_program(kWindowize);
  const InCoreScopeStmt* kernel = nullptr;
  for_each_node(p->find("main")->body, [&](const Node& n) {
    if (const auto* s = as<InCoreScopeStmt>(&n)) kernel = s;
  });
  REQUIRE(kernel);
  const AttrValue* w = kernel->attrs.find(scope_attr::kWindowize);
  REQUIRE(w);
  CHECK(*w->get_if<bool>());
  text::check_round_trip(*p);
  CHECK(contains(text::print(*p), "with pl.at(level=pl.Level.CORE_GROUP, windowize=True):"));
  // windowize=False records nothing: the scope without the keyword.
  const ProgramRef off =
      text::parse_program(replaced(kWindowize, "windowize=True", "windowize=False"));
  const ProgramRef none = text::parse_program(replaced(kWindowize, ", windowize=True", ""));
  CHECK(structural::structural_equal(NodeRef(off), NodeRef(none), true));
}

TEST_CASE("corpus forms: windowize errors say what and where") {
  expect_error(replaced(kWindowize, "windowize=True", "windowize=1"), 7, 57, "True or False");
  expect_error(replaced(kWindowize, "pl.Level.CORE_GROUP, windowize", "pl.Level.HOST, windowize"),
               7, 41, "pl.at takes the keywords level, role");
}

constexpr const char* kSymbol = R"(import pypto.language as pl

N = pl.dynamic("N")

@pl.program
class Symbols:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, N: pl.Scalar[pl.FP32], a: pl.Tensor[[16, N], pl.FP32], o: pl.Out[pl.Tensor[[16, N], pl.FP32]]) -> pl.Tensor[[16, N], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        return pl.store(t, [0, 0], o)
)";

/// The second dimension of parameter `i` of `kernel`.
const Expr* second_dim(const Program& p, std::size_t i) {
  const Function& f = *p.find("kernel");
  const auto* t = as<TensorType>(f.params.at(i)->type.get());
  REQUIRE(t);
  return t->shape.at(1).get();
}

TEST_CASE(
    "corpus forms: an annotation reads a pl.dynamic symbol, not a non-INDEX parameter of its "
    "name") {
  for (const char* dtype : {"pl.FP32", "pl.INT64", "pl.BOOL"}) {
    CAPTURE(dtype);
    const ProgramRef p = text::parse_program(
        replaced(kSymbol, "pl.Scalar[pl.FP32]", std::string("pl.Scalar[") + dtype + "]"));
    const Function& f = *p->find("kernel");
    const Expr* d = second_dim(*p, 1);
    CHECK(d != f.params[0].get());
    const auto* v = as<Var>(d);
    REQUIRE(v);
    CHECK(v->name_hint == "N");
    CHECK(second_dim(*p, 2) == d);
    text::check_round_trip(*p);
  }
}

TEST_CASE("corpus forms: a pl.Scalar[pl.INDEX] parameter named like a pl.dynamic symbol is it") {
  const ProgramRef p =
      text::parse_program(replaced(kSymbol, "pl.Scalar[pl.FP32]", "pl.Scalar[pl.INDEX]"));
  const Function& f = *p->find("kernel");
  CHECK(second_dim(*p, 1) == f.params[0].get());
  CHECK(second_dim(*p, 2) == f.params[0].get());
  text::check_round_trip(*p);
}

TEST_CASE("corpus forms: without the pl.dynamic symbol a float parameter is no dimension") {
  expect_error(replaced(kSymbol, "N = pl.dynamic(\"N\")\n", ""), 7, 48,
               "TensorType.shape[1]: a dimension must be an integer scalar expression");
}

constexpr const char* kStore = R"(import pypto.language as pl

@pl.program
class Stores:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
        return pl.store(t, [16, 0], o, [16, 64])
)";

TEST_CASE("corpus forms: pl.store takes the shapes after the output tensor, as upstream's") {
  const ProgramRef p = text::parse_program(kStore);
  text::check_round_trip(*p);
  CHECK(contains(text::print(*p), "pl.tile.store(t, [16, 0], o, [16, 64])"));
  // Upstream's pl.store(tile, offsets, output_tensor, shapes) refuses the shapes second.
  expect_error(
      replaced(kStore, "pl.store(t, [16, 0], o, [16, 64])", "pl.store(t, [16, 0], [16, 64], o)"), 8,
      16, "tile.store: argument 2 must have a TensorType, got a TupleType");
}

}  // namespace

constexpr const char* kKeywordOperands = R"(import pypto.language as pl

@pl.program
class Keywords:
    @pl.function
    def main(self, x: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.FP16]:
        t: pl.Tile[[16, 16], pl.FP16] = pl.tile.load(tensor=x, offsets=[0, 0], shapes=[16, 16])
        u: pl.Tile[[16, 16], pl.FP16] = pl.add(lhs=t, rhs=t)
        v: pl.Tile[[16, 16], pl.FP16] = pl.add(rhs=2.0, lhs=u)
        w: pl.Tensor[[16, 16], pl.FP16] = pl.mul(lhs=x, rhs=x)
        return w
)";

TEST_CASE("corpus forms: a unified op's operands by name resolve it as positional ones do") {
  const ProgramRef p = text::parse_program(kKeywordOperands);
  const Function& f = *p->find("main");
  for (const auto& binding : std::vector<std::pair<std::string, std::string>>{
           {"t", "tile.load"}, {"u", "tile.add"}, {"v", "tile.adds"}, {"w", "tensor.mul"}}) {
    const std::string& name = binding.first;
    CAPTURE(name);
    const Call* c = call_bound_to(f, name);
    REQUIRE(c);
    CHECK(c->op->name == binding.second);
  }
  // rhs=2.0 given first still binds the scalar to the second operand, in the tile's dtype.
  const Call* v = call_bound_to(f, "v");
  REQUIRE(v->args.size() == 2);
  CHECK(as<Var>(v->args[0].get()));
  const auto* two = as<ConstFloat>(v->args[1].get());
  REQUIRE(two);
  CHECK(two->dtype() == core::DataType::FP16);
  text::check_round_trip(*p);
  CHECK(contains(text::print(*p), "pl.tile.adds(u, pl.const(2.0, pl.FP16))"));
}

TEST_CASE("corpus forms: a unified op without its first operand, or with an unknown name, fails") {
  expect_error(replaced(kKeywordOperands, "pl.add(lhs=t, rhs=t)", "pl.add(rhs=t)"), 8, 41,
               "a registered op ('add' is not one)");
  expect_error(replaced(kKeywordOperands, "pl.add(lhs=t, rhs=t)", "pl.add(lhs=t, other=t)"), 8, 61,
               "tile.add: a parameter (lhs, rhs), not 'other'");
}

constexpr const char* kNonAscii = R"(import pypto.language as pl

@pl.program
class Accents:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        café_résultat: pl.Tensor[[64], pl.FP32] = pl.add(x, x)
        return café_résultat
)";

TEST_CASE("corpus forms: a non-ASCII variable name reads, prints as an ASCII name, round-trips") {
  const ProgramRef p = text::parse_program(kNonAscii);
  const Call* c = call_bound_to(*p->find("main"), "café_résultat");
  REQUIRE(c);
  CHECK(c->op->name == "tensor.add");
  CHECK(c->span.column == 51);  // characters, not bytes: the two é are one column each
  text::check_round_trip(*p);
  const std::string printed = text::print(*p);
  CHECK(std::all_of(printed.begin(), printed.end(),
                    [](char ch) { return static_cast<unsigned char>(ch) < 0x80; }));
}

TEST_CASE("corpus forms: columns after non-ASCII text count characters, malformed UTF-8 fails") {
  expect_error(replaced(kNonAscii, "pl.add(x, x)", "pl.add(x, y)"), 7, 61, "'y'");
  // Only a variable may have such a name: a program's or a function's must be an identifier.
  expect_error(replaced(kNonAscii, "class Accents", "class Accènts"), 4, 1,
               "Program.name: 'Accènts' is not a Python identifier");
  expect_error(replaced(kNonAscii, "def main", "def mañana"), 6, 5,
               "Function.name: 'mañana' is not a Python identifier");
  // a lone continuation byte, an overlong encoding and a UTF-16 surrogate are no characters
  for (const char* bad : {"caf\x80", "caf\xc0\xa9", "caf\xed\xa0\x80"}) {
    CAPTURE(bad);
    expect_error(replaced(kNonAscii, "café_résultat:", std::string(bad) + ":"), 7, 12,
                 "a name, a number, a string, an operator or a bracket");
  }
}

constexpr const char* kSubWorker = R"(import pypto.language as pl

@pl.program
class Host:
    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def verify(f: pl.Tensor[[64], pl.FP32]):
        assert f is not None, "no tensor"
        assert 3 not in [1, 2] and f is f
)";

TEST_CASE("corpus forms: a HOST sub-worker's body is host code: assert, is and in are kept") {
  const ProgramRef p = text::parse_program(kSubWorker);
  const auto* body = as<InlineStmt>(p->find("verify")->body.get());
  REQUIRE(body);
  CHECK(body->body == "assert f is not None, \"no tensor\"\nassert 3 not in [1, 2] and f is f");
  text::check_round_trip(*p);
}

TEST_CASE("corpus forms: assert, is and in in a DSL body are errors naming them") {
  const std::string dsl = R"(import pypto.language as pl

@pl.program
class Dsl:
    @pl.function
    def main(self, n: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
        m = n + 1
        return m
)";
  expect_error(replaced(dsl, "m = n + 1", "assert n is not None"), 7, 9,
               "`assert` is host code: a HOST sub-worker's");
  expect_error(replaced(dsl, "m = n + 1", "m = n is n"), 7, 13,
               "the operator 'is' has no scalar meaning");
  expect_error(replaced(dsl, "m = n + 1", "m = n not in [1]"), 7, 13,
               "the operator 'not in' has no scalar meaning");
  expect_error(replaced(dsl, "m = n + 1", "assert"), 7, 16, "an expression");
  expect_error(replaced(dsl, "m = n + 1", "raise ValueError(n) from None"), 7, 9,
               "`raise` is host code: a HOST sub-worker's");
  // An f-string is a template the DSL never evaluates: no string of the DSL may be one.
  expect_error(replaced(dsl, "m = n + 1",
                        "with pl.at(level=pl.Level.CORE_GROUP, name_hint=f\"k\"):\n"
                        "            m = n + 1"),
               7, 57, "a string name hint");
}

TEST_CASE("corpus forms: a sub-worker raises with f-strings and raw strings, kept as written") {
  const std::string text =
      replaced(kSubWorker, "        assert f is not None, \"no tensor\"\n",
               "        if f is None:\n"
               "            raise ValueError(f'no {f!r}: {\"x\"}' rb\"\\d\\\"\")\n"
               "        raise\n");
  const ProgramRef p = text::parse_program(text);
  const auto* body = as<InlineStmt>(p->find("verify")->body.get());
  REQUIRE(body);
  CHECK(body->body ==
        "if f is None:\n    raise ValueError(f'no {f!r}: {\"x\"}' rb\"\\d\\\"\")\nraise\n"
        "assert 3 not in [1, 2] and f is f");
  text::check_round_trip(*p);
}

// Tests of seed 003's equality contract, one TEST_CASE per row of the contract table and per
// example of the seed: structural_equal / structural_hash / assert_structural_equal /
// find_first_mismatch, first-difference paths, and the "unsupported" outcomes (opaque payloads,
// duplicate attr keys, cycles, nesting deeper than 512), which must never read as "not equal".
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pypto/ir.hpp"
#include "pypto/structural.hpp"
#include "pypto/text/printer.hpp"

namespace {

using namespace pypto::ir;  // NOLINT: the tests read like the IR they build
namespace core = pypto::core;
using core::DataType;
using pypto::structural::StructuralComparisonUnsupported;

// ---- builders ---------------------------------------------------------------------------------

TypeRef scalar(DataType t) { return ScalarType::make(t); }
ExprRef ci(std::int64_t v, DataType t = DataType::INDEX) { return ConstInt::make(v, t); }
ExprRef cf(double v, DataType t = DataType::FP32) { return ConstFloat::make(v, t); }
ExprRef cf_bits(std::uint64_t bits) { return ConstFloat::make(std::bit_cast<double>(bits)); }
VarRef var(std::string name, TypeRef t) { return Var::make(std::move(name), std::move(t)); }
VarRef ivar(std::string name) { return var(std::move(name), scalar(DataType::INDEX)); }
TypeRef tensor(std::vector<ExprRef> shape, DataType dt = DataType::FP32,
               std::optional<TensorView> view = std::nullopt, MemRefRef memref = nullptr) {
  return TensorType::make(dt, std::move(shape), std::move(view), std::move(memref));
}
TypeRef t64x128() { return tensor({ci(64), ci(128)}); }
StmtRef seq(std::vector<StmtRef> s) { return SeqStmts::make(std::move(s)); }
StmtRef assign(VarRef v, ExprRef e) { return AssignStmt::make(std::move(v), std::move(e)); }
StmtRef ret(std::vector<ExprRef> vs) { return ReturnStmt::make(std::move(vs)); }
ExprRef call(std::string op, std::vector<ExprRef> args, TypeRef type, Attrs kwargs = {},
             Attrs attrs = {}) {
  return Call::make(Op::make(std::move(op)), std::move(args), std::move(type), std::move(kwargs),
                    std::move(attrs));
}
FunctionRef fn(std::string name, std::vector<Param> params, std::vector<TypeRef> rets, StmtRef body,
               FunctionType ft = FunctionType::Opaque, Attrs attrs = {},
               FunctionOptions options = {}) {
  return Function::make(std::move(name), std::move(params), std::move(rets), std::move(body), ft,
                        std::move(attrs), std::move(options));
}
/// `name(p: Scalar[INDEX]) -> INDEX: return p + p`-style one-liners.
FunctionRef scalar_fn(std::string name, std::vector<VarRef> params, ExprRef result) {
  std::vector<Param> ps;
  for (auto& p : params) ps.push_back({p});
  return fn(std::move(name), std::move(ps), {result->type}, seq({ret({result})}));
}
TypeRef task_tuple() { return TupleType::make({t64x128(), scalar(DataType::TASK_ID)}); }

// ---- checks -----------------------------------------------------------------------------------

/// Equal both ways, same hash, no mismatch, assert passes.
void check_equal(const NodeRef& a, const NodeRef& b, bool automap = false) {
  CHECK(structural_equal(a, b, automap));
  CHECK(structural_equal(b, a, automap));
  CHECK(structural_hash(a, automap) == structural_hash(b, automap));
  const auto mm = find_first_mismatch(a, b, automap);
  CHECK_MESSAGE(!mm.has_value(), (mm ? mm->field_path + ": " + mm->reason : std::string()));
  CHECK_NOTHROW(assert_structural_equal(a, b, automap));
}

/// Unequal both ways, a mismatch with a reason, assert throws ValueError. Returns the path.
std::string check_unequal(const NodeRef& a, const NodeRef& b, bool automap = false) {
  CHECK_FALSE(structural_equal(a, b, automap));
  CHECK_FALSE(structural_equal(b, a, automap));
  CHECK_THROWS_AS(assert_structural_equal(a, b, automap), core::ValueError);
  const auto mm = find_first_mismatch(a, b, automap);
  REQUIRE(mm.has_value());
  CHECK_FALSE(mm->reason.empty());
  return mm->field_path;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}
bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

/// Every entry point reports `bad` as unsupported (never as equal or unequal), also against a
/// well-formed `other`. Returns the error of structural_hash for further checks.
StructuralComparisonUnsupported check_unsupported(const NodeRef& bad, const NodeRef& other) {
  CHECK_THROWS_AS(structural_hash(bad), StructuralComparisonUnsupported);
  CHECK_THROWS_AS(structural_hash(bad, true), StructuralComparisonUnsupported);
  CHECK_THROWS_AS(structural_equal(bad, bad), StructuralComparisonUnsupported);
  CHECK_THROWS_AS(structural_equal(bad, other), StructuralComparisonUnsupported);
  CHECK_THROWS_AS(structural_equal(other, bad), StructuralComparisonUnsupported);
  CHECK_THROWS_AS(structural_equal(bad, bad, true), StructuralComparisonUnsupported);
  CHECK_THROWS_AS(find_first_mismatch(bad, other), StructuralComparisonUnsupported);
  CHECK_THROWS_AS(assert_structural_equal(bad, other), StructuralComparisonUnsupported);
  CHECK_THROWS_AS(assert_structural_equal(bad, bad), StructuralComparisonUnsupported);
  try {
    structural_hash(bad);
  } catch (const StructuralComparisonUnsupported& e) {
    return e;
  }
  FAIL("structural_hash did not throw");
  return StructuralComparisonUnsupported("", "");
}

}  // namespace

// ==== the seed's opening example ================================================================

TEST_CASE("structural contract: seed example, free x and y differ unless auto-mapped") {
  auto x = ivar("x"), y = ivar("y");
  CHECK_FALSE(structural_equal(x, y));
  CHECK(structural_equal(x, y, /*enable_auto_mapping=*/true));
  CHECK(structural_hash(x, true) == structural_hash(y, true));
  CHECK_NOTHROW(assert_structural_equal(x, y, true));
  CHECK_THROWS_AS(assert_structural_equal(x, y), core::ValueError);
  // A free variable is equal to itself.
  check_equal(x, x);
}

// ==== row 1: spans, comments, function names, bound variable names are ignored ==================

namespace {
FunctionRef decorated_function(bool decorate) {
  auto file = core::make_ref<core::SourceFile>("prog.py");
  auto sp = [&](std::uint32_t line) {
    return decorate ? Span{file, line, 3, line, 40} : Span::unknown();
  };
  auto x = Var::make(decorate ? "alpha" : "x", scalar(DataType::INDEX), sp(1));
  auto t = Var::make(decorate ? "tmp_value" : "t", scalar(DataType::INDEX), sp(2));
  auto a =
      AssignStmt::make(t, Add::make(x, ConstInt::make(1, DataType::INDEX, sp(2)), sp(2)), sp(2));
  if (decorate) {
    auto m = copy_node(static_cast<const AssignStmt&>(*a));
    m->leading_comments = {"a comment", "and another"};
    a = m;
  }
  return Function::make(decorate ? "renamed_function" : "f", {{x}}, {scalar(DataType::INDEX)},
                        SeqStmts::make({a, ReturnStmt::make({t}, sp(3))}, sp(1)),
                        FunctionType::Opaque, {}, FunctionOptions().with_span(sp(1)));
}
}  // namespace

TEST_CASE("structural contract: spans, comments, function names and bound var names ignored") {
  check_equal(decorated_function(false), decorated_function(true));
  // Each ignored field alone.
  auto f = decorated_function(false);
  check_equal(f, f->renamed("completely_different"));
  auto x = ivar("x");
  auto e1 = Add::make(x, ci(1));
  auto e2 = Add::make(x, ConstInt::make(1, DataType::INDEX, Span{nullptr, 7, 1, 7, 2}),
                      Span{nullptr, 9, 9, 9, 9});
  check_equal(e1, e2);
  auto s = AssignStmt::make(ivar("v"), ci(1));
  auto s2 = copy_node(static_cast<const AssignStmt&>(*s));
  s2->leading_comments = {"note"};
  check_equal(s, s2, /*automap: v is free here*/ false);
}

TEST_CASE("structural contract: a scope's name_hint is compared (it names the outlined kernel)") {
  auto body = [] { return seq({EvalStmt::make(ci(1))}); };
  check_equal(InCoreScopeStmt::make(body(), "k"), InCoreScopeStmt::make(body(), "k"));
  check_unequal(InCoreScopeStmt::make(body(), "k1"), InCoreScopeStmt::make(body(), "k2"));
  check_unequal(InCoreScopeStmt::make(body(), "k", SplitMode::None),
                InCoreScopeStmt::make(body(), "k", SplitMode::UpDown));
}

// ==== row 2: definitions and references renamed consistently, aliasing kept =====================

TEST_CASE("structural contract: f(x) = x + x equals g(y) = y + y") {
  auto x = ivar("x"), y = ivar("y");
  auto f = scalar_fn("f", {x}, Add::make(x, x));
  auto g = scalar_fn("g", {y}, Add::make(y, y));
  check_equal(f, g);
  check_equal(f, g, true);
}

TEST_CASE("structural contract: changing the second y to another parameter makes them unequal") {
  auto x = ivar("x"), w = ivar("w"), y = ivar("y"), z = ivar("z");
  auto f = scalar_fn("f", {x, w}, Add::make(x, x));
  auto g = scalar_fn("g", {y, z}, Add::make(y, z));
  check_unequal(f, g);
  check_unequal(f, g, true);  // bound variables never auto-map
  // Which parameter is used matters too: x+x vs w+w.
  check_unequal(scalar_fn("f", {x, w}, Add::make(x, x)), scalar_fn("f", {x, w}, Add::make(w, w)));
}

TEST_CASE("structural contract: local definitions rename consistently, aliasing kept") {
  auto build = [](bool alias) {
    auto p = ivar("p"), a = ivar("a"), b = ivar("b");
    return fn("f", {{p}}, {scalar(DataType::INDEX)},
              seq({assign(a, Add::make(p, ci(1))), assign(b, Add::make(p, ci(1))),
                   ret({Mul::make(a, alias ? a : b)})}));
  };
  check_equal(build(true), build(true));
  check_equal(build(false), build(false));
  check_unequal(build(true), build(false));
}

TEST_CASE("structural contract: loop and branch binders rename consistently") {
  auto build = [](bool yield_loop_var) {
    auto n = ivar("n"), i = ivar("i"), r = ivar("r");
    auto acc = IterArg::make("acc", scalar(DataType::INDEX), ci(0));
    auto body = seq({YieldStmt::make({Add::make(acc, yield_loop_var ? ExprRef(i) : ExprRef(n))})});
    return fn("f", {{n}}, {scalar(DataType::INDEX)},
              seq({ForStmt::make(i, ci(0), n, ci(1), {acc}, body, {r}), ret({r})}));
  };
  check_equal(build(true), build(true));
  check_unequal(build(true), build(false));
}

TEST_CASE("structural contract: a SplitAiv scope's aiv_id is bound for its body") {
  auto build = [](bool use_aiv) {
    auto n = ivar("n"), aiv = ivar("aiv"), s = ivar("s");
    auto body = seq({assign(s, Add::make(use_aiv ? ExprRef(aiv) : ExprRef(n), ci(1)))});
    return fn("f", {{n}}, {scalar(DataType::INDEX)},
              seq({SplitAivScopeStmt::make(aiv, body, SplitMode::UpDown, "k"), ret({s})}));
  };
  check_equal(build(true), build(true));
  check_equal(build(false), build(false));
  check_unequal(build(true), build(false));
}

TEST_CASE("structural contract: while iter_args and return vars rename consistently") {
  auto build = [](bool yield_first) {
    auto a = IterArg::make("a", scalar(DataType::INDEX), ci(0));
    auto b = IterArg::make("b", scalar(DataType::INDEX), ci(1));
    auto ra = ivar("ra"), rb = ivar("rb");
    auto body = seq({YieldStmt::make({yield_first ? ExprRef(a) : ExprRef(b), Add::make(a, b)})});
    return fn("f", {}, {scalar(DataType::INDEX)},
              seq({WhileStmt::make({a, b}, Lt::make(a, ci(10)), body, {ra, rb}), ret({rb})}));
  };
  check_equal(build(true), build(true));
  check_unequal(build(true), build(false));
}

// ==== row 3: free variables keep identity unless enable_auto_mapping ============================

TEST_CASE("structural contract: free variables keep identity unless auto-mapped") {
  auto x = ivar("x"), y = ivar("y"), a = ivar("a"), b = ivar("b");
  check_equal(Add::make(x, y), Add::make(x, y));
  check_unequal(Add::make(x, y), Add::make(a, b));
  check_equal(Add::make(x, y), Add::make(a, b), true);
  CHECK(structural_hash(Add::make(x, y), true) == structural_hash(Add::make(a, b), true));
  // In a function body, a free variable is not renamed with the parameters.
  auto p = ivar("p"), q = ivar("q"), G = ivar("G"), H = ivar("H");
  check_equal(scalar_fn("f", {p}, Add::make(p, G)), scalar_fn("g", {q}, Add::make(q, G)));
  check_unequal(scalar_fn("f", {p}, Add::make(p, G)), scalar_fn("g", {q}, Add::make(q, H)));
  check_equal(scalar_fn("f", {p}, Add::make(p, G)), scalar_fn("g", {q}, Add::make(q, H)), true);
  // A free variable never maps onto a bound one.
  check_unequal(scalar_fn("f", {p}, Add::make(p, G)), scalar_fn("g", {q}, Add::make(q, q)), true);
}

TEST_CASE("structural contract: auto-mapping is a bijection (x + y vs a + a unequal)") {
  auto x = ivar("x"), y = ivar("y"), a = ivar("a");
  check_unequal(Add::make(x, y), Add::make(a, a), true);
  check_unequal(Add::make(a, a), Add::make(x, y), true);
  check_equal(Add::make(x, x), Add::make(a, a), true);
}

TEST_CASE("structural contract: auto-mapping maps only free variables of the same type") {
  auto x = ivar("x");
  auto y = var("y", scalar(DataType::INT64));
  check_unequal(x, y, true);
}

// ==== row 4: scalar dtypes by exact raw code ====================================================

TEST_CASE("structural contract: dtypes compare by raw code (INDEX != INT64)") {
  check_unequal(ConstInt::make(1, DataType::INDEX), ConstInt::make(1, DataType::INT64));
  check_equal(ConstInt::make(1, DataType::INT64), ConstInt::make(1, DataType::INT64));
  check_unequal(ScalarType::make(DataType::INDEX), ScalarType::make(DataType::INT64));
  check_equal(ScalarType::make(DataType::INDEX), ScalarType::make(DataType::INDEX));
  check_unequal(tensor({ci(64, DataType::INDEX)}), tensor({ci(64, DataType::INT64)}));
  check_unequal(tensor({ci(64)}, DataType::FP32), tensor({ci(64)}, DataType::FP16));
  check_unequal(ConstFloat::make(1.0, DataType::FP32), ConstFloat::make(1.0, DataType::FP16));
  check_unequal(Cast::make(ci(1), DataType::INT32), Cast::make(ci(1), DataType::INT64));
  // A fresh (unshared) ScalarType node equals the shared one of its dtype.
  auto fresh = make_node<ScalarType>();
  fresh->dtype = DataType::INDEX;
  check_equal(TypeRef(fresh), scalar(DataType::INDEX));
  // Through a variable's type under auto-mapping.
  check_unequal(ivar("i"), var("j", scalar(DataType::INT64)), true);
}

// ==== row 5: floats by stored bits ==============================================================

TEST_CASE("structural contract: +0.0 and -0.0 differ (seed example)") {
  check_unequal(cf(0.0), cf(-0.0));
  check_equal(cf(-0.0), cf(-0.0));
  check_equal(cf(1.5), cf(1.5));
  check_unequal(cf(1.5), cf(1.25));
}

TEST_CASE("structural contract: NaN payload and sign matter, same-bit NaNs are equal") {
  const std::uint64_t nan1 = 0x7ff8000000000001ULL, nan2 = 0x7ff8000000000002ULL;
  const std::uint64_t neg_nan1 = nan1 | (1ULL << 63);
  check_unequal(cf_bits(nan1), cf_bits(nan2));
  check_unequal(cf_bits(nan1), cf_bits(neg_nan1));
  check_equal(cf_bits(nan1), cf_bits(nan1));
  check_equal(cf_bits(neg_nan1), cf_bits(neg_nan1));
  // A NaN is equal to itself structurally (not IEEE), also inside an attribute.
  check_equal(
      call("tile.muls", {}, scalar(DataType::FP32), {{"scale", std::bit_cast<double>(nan1)}}),
      call("tile.muls", {}, scalar(DataType::FP32), {{"scale", std::bit_cast<double>(nan1)}}));
  check_unequal(call("tile.muls", {}, scalar(DataType::FP32), {{"scale", 0.0}}),
                call("tile.muls", {}, scalar(DataType::FP32), {{"scale", -0.0}}));
}

// ==== row 6: ops by kind and name, not by pointer ===============================================

TEST_CASE("structural contract: ops compare by kind and name") {
  auto x = var("x", t64x128());
  check_equal(Op::make("tensor.add"), Op::make("tensor.add"));
  check_unequal(Op::make("tensor.add"), Op::make("tensor.sub"));
  check_unequal(Op::make("kernel"), GlobalVar::make("kernel"));
  check_equal(GlobalVar::make("kernel"), GlobalVar::make("kernel"));
  check_equal(call("tensor.add", {x, x}, t64x128()), call("tensor.add", {x, x}, t64x128()));
  check_unequal(call("tensor.add", {x, x}, t64x128()), call("tensor.sub", {x, x}, t64x128()));
  check_unequal(Call::make(Op::make("k"), {x}, t64x128()),
                Call::make(GlobalVar::make("k"), {x}, t64x128()));
  check_unequal(Call::make(GlobalVar::make("k1"), {x}, t64x128()),
                Call::make(GlobalVar::make("k2"), {x}, t64x128()));
  // Different node kinds with the same operands.
  check_unequal(Add::make(ci(1), ci(2)), Sub::make(ci(1), ci(2)));
  check_unequal(Add::make(ci(1), ci(2)), Add::make(ci(2), ci(1)));
}

// ==== row 7: attrs — unique keys sorted, value types and vector order kept ======================

namespace {
ExprRef with_kwargs(Attrs kw) { return call("tensor.op", {}, t64x128(), std::move(kw)); }
ExprRef with_attrs(Attrs at) { return call("tensor.op", {}, t64x128(), {}, std::move(at)); }
}  // namespace

TEST_CASE("structural contract: attr key order is irrelevant") {
  check_equal(with_kwargs({{"a", 1}, {"b", "s"}, {"c", 2.5}}),
              with_kwargs({{"c", 2.5}, {"a", 1}, {"b", "s"}}));
  check_equal(with_attrs({{"x", true}, {"y", DataType::FP16}}),
              with_attrs({{"y", DataType::FP16}, {"x", true}}));
  auto body = [] { return seq({ret({})}); };
  check_equal(fn("f", {}, {}, body(), FunctionType::Opaque, {{"p", 1}, {"q", 2}}),
              fn("f", {}, {}, body(), FunctionType::Opaque, {{"q", 2}, {"p", 1}}));
  // kwargs and attrs are different maps.
  check_unequal(with_kwargs({{"a", 1}}), with_attrs({{"a", 1}}));
  // Key names and presence count.
  check_unequal(with_kwargs({{"a", 1}}), with_kwargs({{"b", 1}}));
  check_unequal(with_kwargs({{"a", 1}}), with_kwargs({{"a", 1}, {"b", 1}}));
  check_unequal(with_kwargs({}), with_kwargs({{"a", 1}}));
}

TEST_CASE("structural contract: attr value types are kept") {
  check_unequal(with_kwargs({{"k", 1}}), with_kwargs({{"k", 1.0}}));
  check_unequal(with_kwargs({{"k", true}}), with_kwargs({{"k", 1}}));
  check_unequal(with_kwargs({{"k", false}}), with_kwargs({{"k", 0}}));
  check_unequal(with_kwargs({{"k", "1"}}), with_kwargs({{"k", 1}}));
  check_unequal(with_kwargs({{"k", 1}}), with_kwargs({{"k", 2}}));
  check_unequal(with_kwargs({{"k", "a"}}), with_kwargs({{"k", "b"}}));
  check_unequal(with_kwargs({{"k", DataType::FP32}}), with_kwargs({{"k", DataType::FP16}}));
  check_unequal(with_kwargs({{"k", DataType::INDEX}}), with_kwargs({{"k", DataType::INT64}}));
  // Same underlying value 1, different enums.
  check_unequal(with_kwargs({{"k", ParamDirection::Out}}), with_kwargs({{"k", Role::SubWorker}}));
  check_unequal(with_kwargs({{"k", MemorySpace::Vec}}), with_kwargs({{"k", MemorySpace::Mat}}));
  check_equal(with_kwargs({{"k", MemorySpace::Vec}}), with_kwargs({{"k", MemorySpace::Vec}}));
  // An enum is not its integer.
  check_unequal(with_kwargs({{"k", MemorySpace::Vec}}), with_kwargs({{"k", 1}}));
  // A one-element list is not its element.
  check_unequal(with_kwargs({{"k", AttrValueList{1}}}), with_kwargs({{"k", 1}}));
}

TEST_CASE("structural contract: a mismatch names an attr's kind and an enum by name") {
  const auto mismatch = [](Attrs a, Attrs b) {
    const auto mm = find_first_mismatch(with_kwargs(std::move(a)), with_kwargs(std::move(b)));
    REQUIRE(mm.has_value());
    return mm->lhs + " / " + mm->rhs;
  };
  CHECK(mismatch({{"k", MemorySpace::Vec}}, {{"k", 1}}) == "an enum attribute / an int attribute");
  CHECK(mismatch({{"k", true}}, {{"k", AttrValueList{1}}}) ==
        "a bool attribute / a list attribute");
  CHECK(mismatch({{"k", MemorySpace::Vec}}, {{"k", MemorySpace::Mat}}) ==
        "pl.Mem.Vec / pl.Mem.Mat");
  CHECK(mismatch({{"k", ParamDirection::Out}}, {{"k", Role::SubWorker}}) ==
        "pl.ParamDirection.Out / pl.Role.SubWorker");
  CHECK(mismatch({{"k", DataType::FP32}}, {{"k", DataType::FP16}}) == "FP32 / FP16");
  const auto mm = find_first_mismatch(with_kwargs({{"k", 1}}), with_kwargs({{"k", 2}}));
  REQUIRE(mm.has_value());
  CHECK(mm->field_path == "kwargs[\"k\"]");
  CHECK(mm->lhs + " / " + mm->rhs == "1 / 2");
}

TEST_CASE("structural contract: attr vector order is kept") {
  check_unequal(with_kwargs({{"k", AttrValueList{1, 2}}}),
                with_kwargs({{"k", AttrValueList{2, 1}}}));
  check_equal(with_kwargs({{"k", AttrValueList{1, AttrValueList{2, "x"}}}}),
              with_kwargs({{"k", AttrValueList{1, AttrValueList{2, "x"}}}}));
  check_unequal(with_kwargs({{"k", AttrValueList{1, AttrValueList{2, "x"}}}}),
                with_kwargs({{"k", AttrValueList{1, AttrValueList{"x", 2}}}}));
  check_unequal(with_kwargs({{"k", AttrValueList{1, 2}}}),
                with_kwargs({{"k", AttrValueList{1, 2, 3}}}));
}

TEST_CASE("structural contract: expressions inside attrs follow the binding rules") {
  auto x = ivar("x"), w = ivar("w"), y = ivar("y"), z = ivar("z");
  auto f = [](VarRef p0, VarRef p1, VarRef used) {
    return fn("f", {{p0}, {p1}}, {},
              seq({EvalStmt::make(call("system.mark", {}, UnknownType::make(), {{"v", used}}))}));
  };
  check_equal(f(x, w, x), f(y, z, y));
  check_unequal(f(x, w, x), f(y, z, z));
  auto G = ivar("G"), H = ivar("H");
  check_equal(with_kwargs({{"v", G}}), with_kwargs({{"v", G}}));
  check_unequal(with_kwargs({{"v", G}}), with_kwargs({{"v", H}}));
  check_equal(with_kwargs({{"v", G}}), with_kwargs({{"v", H}}), true);
}

TEST_CASE("structural contract: duplicate attr keys are unsupported, naming the key and path") {
  auto x = ivar("x");
  auto bad_call = call("tensor.op", {}, t64x128(), {}, {{"dup_key", 1}, {"dup_key", 2}});
  auto f = fn("f", {{x}}, {}, seq({EvalStmt::make(bad_call)}));
  auto good = fn("f", {{x}}, {}, seq({EvalStmt::make(with_attrs({{"dup_key", 1}}))}));
  const auto e = check_unsupported(f, good);
  CHECK(contains(e.reason(), "dup_key"));
  CHECK(contains(e.field_path(), "body[0].expr.attrs"));
  CHECK(contains(e.what(), "dup_key"));
  // In kwargs and in a Function's attrs too; even when the values are equal.
  const auto e2 = check_unsupported(with_kwargs({{"m", 1}, {"m", 1}}), with_kwargs({{"m", 1}}));
  CHECK(contains(e2.reason(), "m"));
  CHECK(contains(e2.field_path(), "kwargs"));
  auto body = [] { return seq({ret({})}); };
  const auto e3 = check_unsupported(
      fn("f", {}, {}, body(), FunctionType::Opaque, {{"a", 1}, {"b", 2}, {"a", 3}}),
      fn("f", {}, {}, body(), FunctionType::Opaque, {{"a", 1}, {"b", 2}}));
  CHECK(contains(e3.field_path(), "attrs"));
  CHECK(contains(e3.reason(), "a"));
}

TEST_CASE("structural contract: an opaque attr payload is unsupported") {
  auto bad = with_kwargs({{"host", OpaquePayload{"host.Schedule", nullptr}}});
  const auto e = check_unsupported(bad, with_kwargs({{"host", 1}}));
  CHECK(contains(e.field_path(), "kwargs"));
  CHECK_FALSE(e.reason().empty());
  // Also nested in a list.
  check_unsupported(with_attrs({{"l", AttrValueList{1, OpaquePayload{"host.X", nullptr}}}}),
                    with_attrs({{"l", AttrValueList{1, 2}}}));
}

// ==== row 8: types and views — every reflected field, attached storage, nullable offsets ========

TEST_CASE("structural contract: TensorView fields each count") {
  auto shape = [] { return std::vector<ExprRef>{ci(64), ci(128)}; };
  auto view = [](TensorLayout layout, std::vector<ExprRef> stride, std::vector<ExprRef> valid,
                 PadValue pad) {
    return TensorView{std::move(stride), layout, std::move(valid), pad};
  };
  auto base = [&] {
    return tensor(shape(), DataType::FP32,
                  view(TensorLayout::ND, {ci(128), ci(1)}, {ci(64), ci(128)}, PadValue::null));
  };
  check_equal(base(), base());
  check_unequal(
      base(), tensor(shape(), DataType::FP32,
                     view(TensorLayout::NZ, {ci(128), ci(1)}, {ci(64), ci(128)}, PadValue::null)));
  check_unequal(
      base(), tensor(shape(), DataType::FP32,
                     view(TensorLayout::ND, {ci(256), ci(1)}, {ci(64), ci(128)}, PadValue::null)));
  check_unequal(base(), tensor(shape(), DataType::FP32,
                               view(TensorLayout::ND, {}, {ci(64), ci(128)}, PadValue::null)));
  check_unequal(
      base(), tensor(shape(), DataType::FP32,
                     view(TensorLayout::ND, {ci(128), ci(1)}, {ci(32), ci(128)}, PadValue::null)));
  check_unequal(
      base(), tensor(shape(), DataType::FP32,
                     view(TensorLayout::ND, {ci(128), ci(1)}, {ci(64), ci(128)}, PadValue::zero)));
  // Absent view vs a present default view.
  check_unequal(tensor(shape()), tensor(shape(), DataType::FP32, TensorView{}));
  check_equal(tensor(shape(), DataType::FP32, TensorView{}),
              tensor(shape(), DataType::FP32, TensorView{}));
  // Shape: rank, values.
  check_unequal(tensor({ci(64)}), tensor({ci(64), ci(1)}));
  check_unequal(tensor({ci(64), ci(128)}), tensor({ci(128), ci(64)}));
}

TEST_CASE("structural contract: TileView fields each count, start_offset null differs from 0") {
  auto shape = [] { return std::vector<ExprRef>{ci(16), ci(16)}; };
  auto tile = [&](TileView v) {
    return TileType::make(DataType::FP16, shape(), MemorySpace::Vec, v);
  };
  check_equal(tile(TileView{}), tile(TileView{}));
  TileView v;
  v.start_offset = ci(0);
  check_unequal(tile(TileView{}), tile(v));
  check_equal(tile(v), tile(v));
  v = {};
  v.fractal = 1024;
  check_unequal(tile(TileView{}), tile(v));
  v = {};
  v.blayout = TileLayout::col_major;
  check_unequal(tile(TileView{}), tile(v));
  v = {};
  v.slayout = TileLayout::row_major;
  check_unequal(tile(TileView{}), tile(v));
  v = {};
  v.pad = PadValue::max;
  check_unequal(tile(TileView{}), tile(v));
  v = {};
  v.compact = CompactMode::normal;
  check_unequal(tile(TileView{}), tile(v));
  v = {};
  v.valid_shape = {ci(8), ci(16)};
  check_unequal(tile(TileView{}), tile(v));
  v = {};
  v.stride = {ci(16), ci(1)};
  check_unequal(tile(TileView{}), tile(v));
  // Absent view vs default view; memory space absent vs set vs another.
  check_unequal(TileType::make(DataType::FP16, shape(), MemorySpace::Vec),
                TileType::make(DataType::FP16, shape(), MemorySpace::Vec, TileView{}));
  check_unequal(TileType::make(DataType::FP16, shape()),
                TileType::make(DataType::FP16, shape(), MemorySpace::Vec));
  check_unequal(TileType::make(DataType::FP16, shape(), MemorySpace::Mat),
                TileType::make(DataType::FP16, shape(), MemorySpace::Vec));
  check_equal(TileType::make(DataType::FP16, shape()), TileType::make(DataType::FP16, shape()));
  // Tile vs tensor of the same shape and dtype.
  check_unequal(TileType::make(DataType::FP16, shape()), tensor(shape(), DataType::FP16));
}

TEST_CASE("structural contract: attached memref — present vs absent and each field") {
  auto B = var("B", PtrType::make());
  auto shape = [] { return std::vector<ExprRef>{ci(16), ci(16)}; };
  auto tile = [&](MemRefRef m) {
    return TileType::make(DataType::FP32, shape(), MemorySpace::Vec, std::nullopt, std::move(m));
  };
  auto mr = [&](ExprRef off, std::uint64_t size, bool pinned = false, std::int64_t slots = 1,
                ExprRef slot = nullptr) { return MemRef::make(B, off, size, pinned, slots, slot); };
  check_equal(tile(mr(ci(0), 1024)), tile(mr(ci(0), 1024)));
  check_unequal(tile(nullptr), tile(mr(ci(0), 1024)));
  check_unequal(tile(mr(ci(0), 1024)), tile(mr(ci(0), 2048)));
  check_unequal(tile(mr(ci(0), 1024)), tile(mr(ci(512), 1024)));
  check_unequal(tile(mr(ci(0), 1024)), tile(mr(ci(0, DataType::INT64), 1024)));
  check_unequal(tile(mr(ci(0), 1024)), tile(mr(ci(0), 1024, true)));
  check_unequal(tile(mr(ci(0), 1024, false, 2, ci(0))), tile(mr(ci(0), 1024, false, 2, ci(1))));
  check_unequal(tile(mr(ci(0), 1024, false, 2, nullptr)), tile(mr(ci(0), 1024, false, 2, ci(0))));
  check_unequal(tile(mr(ci(0), 1024, false, 2)), tile(mr(ci(0), 1024, false, 3)));
  check_unequal(tensor({ci(16)}, DataType::FP32, std::nullopt, mr(ci(0), 64)), tensor({ci(16)}));
}

TEST_CASE("structural contract: tuple types, unknown types and resource types") {
  check_equal(UnknownType::make(), UnknownType::make());
  check_unequal(UnknownType::make(), scalar(DataType::INDEX));
  check_equal(var("u", UnknownType::make()), var("v", UnknownType::make()), true);
  check_equal(TupleType::make({scalar(DataType::FP32), t64x128()}),
              TupleType::make({scalar(DataType::FP32), t64x128()}));
  check_unequal(TupleType::make({scalar(DataType::FP32), t64x128()}),
                TupleType::make({t64x128(), scalar(DataType::FP32)}));
  check_unequal(TupleType::make({scalar(DataType::FP32)}),
                TupleType::make({scalar(DataType::FP32), scalar(DataType::FP32)}));
  check_unequal(TupleType::make({}), UnknownType::make());
  check_equal(PtrType::make(), PtrType::make());
  check_unequal(PtrType::make(), MemRefType::make());
  check_unequal(AsyncEventType::make(), AsyncSessionType::make());
  check_unequal(WindowBufferType::make(), CommCtxType::make());
}

// ==== row 9: function metadata ==================================================================

TEST_CASE("structural contract: each piece of function metadata alone makes functions unequal") {
  auto make = [](ParamDirection dir, DataType ret_dt, Attrs attrs, FunctionType ft,
                 std::optional<Level> level, std::optional<Role> role) {
    auto a = var("a", t64x128());
    FunctionOptions o;
    if (level) o.with_level(*level);
    if (role) o.with_role(*role);
    return fn("f", {{a, dir}}, {tensor({ci(64), ci(128)}, ret_dt)}, seq({ret({a})}), ft, attrs, o);
  };
  auto base = [&] {
    return make(ParamDirection::In, DataType::FP32, {{"k", 1}}, FunctionType::InCore, Level::AIV,
                Role::SubWorker);
  };
  check_equal(base(), base());
  check_unequal(base(), make(ParamDirection::Out, DataType::FP32, {{"k", 1}}, FunctionType::InCore,
                             Level::AIV, Role::SubWorker));
  check_unequal(base(), make(ParamDirection::InOut, DataType::FP32, {{"k", 1}},
                             FunctionType::InCore, Level::AIV, Role::SubWorker));
  check_unequal(base(), make(ParamDirection::In, DataType::FP16, {{"k", 1}}, FunctionType::InCore,
                             Level::AIV, Role::SubWorker));
  check_unequal(base(), make(ParamDirection::In, DataType::FP32, {{"k", 2}}, FunctionType::InCore,
                             Level::AIV, Role::SubWorker));
  check_unequal(base(), make(ParamDirection::In, DataType::FP32, {}, FunctionType::InCore,
                             Level::AIV, Role::SubWorker));
  check_unequal(base(), make(ParamDirection::In, DataType::FP32, {{"k", 1}}, FunctionType::AIV,
                             Level::AIV, Role::SubWorker));
  check_unequal(base(), make(ParamDirection::In, DataType::FP32, {{"k", 1}}, FunctionType::InCore,
                             Level::AIC, Role::SubWorker));
  check_unequal(base(), make(ParamDirection::In, DataType::FP32, {{"k", 1}}, FunctionType::InCore,
                             Level::AIV, Role::Orchestrator));
  // Level/role absent vs present (Opaque has no default level or role).
  check_unequal(make(ParamDirection::In, DataType::FP32, {}, FunctionType::Opaque, std::nullopt,
                     std::nullopt),
                make(ParamDirection::In, DataType::FP32, {}, FunctionType::Opaque, Level::HOST,
                     std::nullopt));
  check_unequal(make(ParamDirection::In, DataType::FP32, {}, FunctionType::Opaque, std::nullopt,
                     std::nullopt),
                make(ParamDirection::In, DataType::FP32, {}, FunctionType::Opaque, std::nullopt,
                     Role::Orchestrator));
  // The runtime-binding flag alone.
  auto f = base();
  auto g = copy_node(*f);
  g->requires_runtime_binding = true;
  check_unequal(f, FunctionRef(g));
  // Return type count, param count.
  auto a = var("a", t64x128());
  check_unequal(fn("f", {{a}}, {}, seq({ret({})})), fn("f", {{a}}, {t64x128()}, seq({ret({})})));
  auto b = var("b", t64x128()), c = var("c", t64x128());
  check_unequal(fn("f", {{b}}, {}, seq({ret({})})), fn("f", {{b}, {c}}, {}, seq({ret({})})));
}

// ==== row 10: Call and Submit ===================================================================

TEST_CASE("structural contract: Call and Submit are different kinds") {
  auto a = var("a", t64x128());
  check_unequal(Call::make(GlobalVar::make("k"), {a}, task_tuple()),
                Submit::make(GlobalVar::make("k"), {a}, task_tuple()));
}

TEST_CASE("structural contract: every Submit scheduling field counts") {
  auto a = var("a", t64x128());
  auto tid = var("tid", scalar(DataType::TASK_ID)), tid2 = var("tid2", scalar(DataType::TASK_ID));
  auto pred = var("pred", scalar(DataType::BOOL));
  auto submit = [&](SubmitLaunch l, Attrs kw = {}, Attrs at = {}) {
    return Submit::make(GlobalVar::make("k"), {a}, task_tuple(), std::move(l), std::move(kw),
                        std::move(at));
  };
  auto base = [&] { return submit({{tid}, ci(4), false, false, nullptr}); };
  check_equal(base(), base());
  check_unequal(base(), submit({{}, ci(4), false, false, nullptr}));
  check_unequal(base(), submit({{tid2}, ci(4), false, false, nullptr}));
  check_unequal(base(), submit({{tid, tid}, ci(4), false, false, nullptr}));
  check_unequal(base(), submit({{tid}, ci(8), false, false, nullptr}));
  check_unequal(base(), submit({{tid}, nullptr, false, false, nullptr}));
  check_unequal(base(), submit({{tid}, ci(4), true, false, nullptr}));
  check_unequal(base(), submit({{tid}, ci(4), false, true, nullptr}));
  check_unequal(base(), submit({{tid}, ci(4), false, false, pred}));
  check_unequal(submit({{tid}, ci(4), false, false, pred}),
                submit({{tid}, ci(4), false, false, ConstBool::make(true)}));
  check_unequal(base(), submit({{tid}, ci(4), false, false, nullptr}, {{"k", 1}}));
  check_unequal(base(), submit({{tid}, ci(4), false, false, nullptr}, {}, {{"k", 1}}));
}

// ==== sharing a pure subexpression does not change equality =====================================

TEST_CASE("structural contract: sharing a pure subexpression does not change equality") {
  auto x = ivar("x");
  ExprRef t = Add::make(x, ci(1));
  auto shared = Mul::make(t, t);
  auto separate = Mul::make(Add::make(x, ci(1)), Add::make(x, ci(1)));
  check_equal(shared, separate);
  check_equal(shared, separate, true);
  // Inside a function, with a bound x, and a shared type object.
  auto p = ivar("p"), q = ivar("q");
  ExprRef tp = Add::make(p, ci(1));
  check_equal(scalar_fn("f", {p}, Mul::make(tp, tp)),
              scalar_fn("g", {q}, Mul::make(Add::make(q, ci(1)), Add::make(q, ci(1)))));
  auto ty = t64x128();
  auto a = var("a", ty), b = var("b", ty);
  auto c = var("c", t64x128()), d = var("d", t64x128());
  check_equal(fn("f", {{a}, {b}}, {ty}, seq({ret({a})})),
              fn("f", {{c}, {d}}, {t64x128()}, seq({ret({c})})));
  // Sharing does not hide a difference in one of the uses.
  check_unequal(Mul::make(t, t), Mul::make(Add::make(x, ci(1)), Add::make(x, ci(2))));
}

TEST_CASE("structural contract: a shared DAG is not unfolded (depth 40 stays fast and equal)") {
  // d(k+1) = d(k) * d(k): 2^40 tree paths; only a DAG-aware engine finishes.
  auto x = ivar("x");
  auto build = [&] {
    ExprRef d = x;
    for (int k = 0; k < 40; ++k) d = Mul::make(d, d);
    return d;
  };
  auto d1 = build(), d2 = build();
  check_equal(d1, d2);
  ExprRef d3 = x;
  for (int k = 0; k < 40; ++k) d3 = Mul::make(d3, k == 2 ? ExprRef(Add::make(d3, ci(0))) : d3);
  check_unequal(d1, d3);
}

// ==== signature bindings: later params and shape symbols ========================================

TEST_CASE("structural contract: an earlier param's shape may refer to a later scalar param") {
  auto build = [](bool use_param) {
    auto n = ivar("n");
    auto other = ivar("k");
    auto a = var("a", tensor({use_param ? ExprRef(n) : ExprRef(other)}));
    return fn("f", {{a}, {n}}, {}, seq({ret({})}));
  };
  check_equal(build(true), build(true));
  // The shape naming a fresh symbol is not the shape naming the parameter.
  check_unequal(build(true), build(false));
}

TEST_CASE("structural contract: shape symbols in param shapes are bindings") {
  auto M = ivar("M"), N = ivar("N");
  auto one = [](VarRef sym) {
    auto a = var("a", tensor({sym, ci(128)}));
    return fn("f", {{a}}, {}, seq({ret({})}));
  };
  check_equal(one(M), one(N));  // without auto-mapping
  auto two = [](VarRef s1, VarRef s2) {
    auto a = var("a", tensor({s1, ci(128)})), b = var("b", tensor({s2, ci(128)}));
    return fn("f", {{a}, {b}}, {}, seq({ret({})}));
  };
  check_equal(two(M, M), two(N, N));
  check_equal(two(M, N), two(N, M));
  check_unequal(two(M, M), two(M, N));
  check_unequal(two(M, M), two(M, N), true);
  // The body's uses of a symbol are renamed with it.
  auto K = ivar("K");
  auto uses = [](VarRef sym, VarRef used) {
    auto a = var("a", tensor({sym, ci(128)}));
    return fn("f", {{a}}, {scalar(DataType::INDEX)}, seq({ret({used})}));
  };
  check_equal(uses(M, M), uses(N, N));
  check_unequal(uses(M, M), uses(N, K));
  // Inside a dim expression and through tuple construction/projection.
  auto expr_dim = [](VarRef sym) {
    auto a = var(
        "a", tensor({Add::make(sym, ci(1)), TupleGetItem::make(MakeTuple::make({sym, ci(2)}), 0)}));
    return fn("f", {{a}}, {}, seq({ret({})}));
  };
  check_equal(expr_dim(M), expr_dim(N));
  // Through a tuple-typed parameter.
  auto tuple_param = [](VarRef sym) {
    auto a = var("a", TupleType::make({tensor({sym}), scalar(DataType::FP32)}));
    return fn("f", {{a}}, {}, seq({ret({})}));
  };
  check_equal(tuple_param(M), tuple_param(N));
  // Tile-typed parameters too.
  auto tile_param = [](VarRef sym) {
    auto a = var("a", TileType::make(DataType::FP16, {sym, ci(16)}, MemorySpace::Vec));
    return fn("f", {{a}}, {}, seq({ret({})}));
  };
  check_equal(tile_param(M), tile_param(N));
}

TEST_CASE("structural contract: a bare valid_shape slot symbol is a binding, strides stay free") {
  auto V = ivar("V"), W = ivar("W"), S = ivar("S"), T = ivar("T");
  auto with_valid = [](ExprRef slot) {
    auto a = var("a", tensor({ci(64), ci(128)}, DataType::FP32,
                             TensorView{{}, TensorLayout::ND, {slot, ci(128)}, PadValue::null}));
    return fn("f", {{a}}, {}, seq({ret({})}));
  };
  check_equal(with_valid(V), with_valid(W));
  // A non-bare slot expression is an open reference: free.
  check_unequal(with_valid(Add::make(V, ci(0))), with_valid(Add::make(W, ci(0))));
  check_equal(with_valid(Add::make(V, ci(0))), with_valid(Add::make(W, ci(0))), true);
  auto with_tile_valid = [](VarRef slot) {
    TileView v;
    v.valid_shape = {slot, ci(16)};
    auto a = var("a", TileType::make(DataType::FP16, {ci(16), ci(16)}, MemorySpace::Vec, v));
    return fn("f", {{a}}, {}, seq({ret({})}));
  };
  check_equal(with_tile_valid(V), with_tile_valid(W));
  auto with_stride = [](VarRef s) {
    auto a = var("a", tensor({ci(64), ci(128)}, DataType::FP32,
                             TensorView{{s, ci(1)}, TensorLayout::ND, {}, PadValue::null}));
    return fn("f", {{a}}, {}, seq({ret({})}));
  };
  check_equal(with_stride(S), with_stride(S));
  check_unequal(with_stride(S), with_stride(T));
  check_equal(with_stride(S), with_stride(T), true);
}

TEST_CASE("structural contract: symbols in a local (non-parameter) type stay free") {
  auto M = ivar("M"), N = ivar("N");
  auto f = [](VarRef sym) {
    auto t = var("t", tensor({sym}));
    return fn("f", {}, {}, seq({assign(t, call("tensor.create", {}, tensor({sym}))), ret({})}));
  };
  check_equal(f(M), f(M));
  check_unequal(f(M), f(N));
  check_equal(f(M), f(N), true);
}

// ==== programs: one context per function, keys and callee names compared =======================

TEST_CASE("structural contract: each Function of a Program is its own binding context") {
  // One Var object as the parameter of two functions: each function binds it on its own.
  auto x = ivar("x");
  auto p1 = Program::make("p", {scalar_fn("f", {x}, x), scalar_fn("g", {x}, Add::make(x, x))});
  auto u = ivar("u"), v = ivar("v");
  auto p2 = Program::make("q", {scalar_fn("f", {u}, u), scalar_fn("g", {v}, Add::make(v, v))});
  check_equal(p1, p2);
  // A function's body cannot see another function's parameter.
  auto a = ivar("a"), b = ivar("b");
  auto leaky = Program::make("p", {scalar_fn("f", {a}, a), scalar_fn("g", {b}, Add::make(b, a))});
  auto c = ivar("c"), d = ivar("d");
  auto tidy = Program::make("p", {scalar_fn("f", {c}, c), scalar_fn("g", {d}, Add::make(d, c))});
  check_unequal(leaky, tidy);  // a free `a` vs a free `c`: identity
}

TEST_CASE("structural contract: program keys and callee names are compared") {
  auto x = ivar("x"), y = ivar("y");
  check_unequal(Program::make("p", {scalar_fn("main", {x}, x)}),
                Program::make("p", {scalar_fn("other", {y}, y)}));
  check_equal(Program::make("p", {scalar_fn("main", {x}, x)}),
              Program::make("renamed_program", {scalar_fn("main", {y}, y)}));
  auto caller = [](std::string callee) {
    auto a = var("a", t64x128());
    return fn("main", {{a}}, {t64x128()},
              seq({ret({Call::make(GlobalVar::make(std::move(callee)), {a}, t64x128())})}));
  };
  auto kernel = [](std::string name) {
    auto a = var("a", t64x128());
    return fn(std::move(name), {{a}}, {t64x128()}, seq({ret({a})}));
  };
  check_unequal(caller("k1"), caller("k2"));
  check_equal(Program::make("p", {caller("k1"), kernel("k1")}),
              Program::make("p", {caller("k1"), kernel("k1")}));
  check_unequal(Program::make("p", {caller("k1"), kernel("k1")}),
                Program::make("p", {caller("k2"), kernel("k2")}));
  check_unequal(Program::make("p", {caller("k1")}),
                Program::make("p", {caller("k1"), kernel("k1")}));
}

// ==== storage: MemRef and WindowBuffer ==========================================================

namespace {
/// Two tile loads of `a`; the tiles' memrefs use bases b1 and b2 (the same Var or two).
FunctionRef two_tiles(VarRef b1, VarRef b2, std::uint64_t size2 = 4096) {
  auto a = var("a", tensor({ci(32), ci(32)}));
  auto tile = [](VarRef base, std::uint64_t size) {
    return TileType::make(DataType::FP32, {ci(32), ci(32)}, MemorySpace::Vec, std::nullopt,
                          MemRef::make(std::move(base), ci(0), size));
  };
  auto t1 = var("t1", tile(b1, 4096)), t2 = var("t2", tile(b2, size2));
  return fn("f", {{a}}, {},
            seq({assign(t1, call("tile.load", {a}, t1->type)),
                 assign(t2, call("tile.load", {a}, t2->type)),
                 EvalStmt::make(call("tile.add", {t1, t2}, t1->type)), ret({})}));
}
}  // namespace

TEST_CASE("structural contract: each function's own allocation base is an implicit binding") {
  auto B = var("B", PtrType::make()), C = var("C", PtrType::make()), D = var("D", PtrType::make());
  check_equal(two_tiles(B, B), two_tiles(C, C));
  check_equal(two_tiles(B, C), two_tiles(C, D));
  check_equal(two_tiles(B, C), two_tiles(D, B));
}

TEST_CASE("structural contract: allocation aliasing never merges just because sizes match") {
  auto B = var("B", PtrType::make()), C = var("C", PtrType::make()), D = var("D", PtrType::make());
  check_unequal(two_tiles(B, B), two_tiles(C, D));
  check_unequal(two_tiles(C, D), two_tiles(B, B));
  check_unequal(two_tiles(B, B), two_tiles(C, D), true);
  check_unequal(two_tiles(B, B), two_tiles(B, B, 8192));
}

TEST_CASE("structural contract: a MemRef's identity is its base and fields, not its address") {
  auto B = var("B", PtrType::make());
  auto m = MemRef::make(B, ci(0), 1024);
  auto tile = [](MemRefRef mr) {
    return TileType::make(DataType::FP32, {ci(16), ci(16)}, MemorySpace::Vec, std::nullopt, mr);
  };
  auto f = [&](MemRefRef m1, MemRefRef m2) {
    auto t1 = var("t1", tile(m1)), t2 = var("t2", tile(m2));
    return fn("f", {}, {},
              seq({assign(t1, call("tile.alloc", {}, t1->type)),
                   assign(t2, call("tile.alloc", {}, t2->type)), ret({})}));
  };
  check_equal(f(m, m), f(MemRef::make(B, ci(0), 1024), MemRef::make(B, ci(0), 1024)));
  check_unequal(f(m, m), f(MemRef::make(B, ci(0), 1024), MemRef::make(B, ci(1024), 1024)));
}

TEST_CASE("structural contract: WindowBuffer fields are compared, the binding is renamed") {
  auto B = var("B", PtrType::make());
  auto f = [](WindowBufferRef w) {
    return fn("f", {}, {},
              seq({assign(w, call("comm.alloc_window", {}, WindowBufferType::make())),
                   EvalStmt::make(call("comm.use", {w}, UnknownType::make())), ret({})}));
  };
  check_equal(f(WindowBuffer::make("w", ci(1024))), f(WindowBuffer::make("v", ci(1024))));
  check_unequal(f(WindowBuffer::make("w", ci(1024))), f(WindowBuffer::make("w", ci(2048))));
  check_unequal(f(WindowBuffer::make("w", ci(1024))), f(WindowBuffer::make("w", ci(1024), B)));
  check_unequal(f(WindowBuffer::make("w", ci(1024), nullptr, false, false)),
                f(WindowBuffer::make("w", ci(1024), nullptr, true, false)));
  check_unequal(f(WindowBuffer::make("w", ci(1024), nullptr, false, false)),
                f(WindowBuffer::make("w", ci(1024), nullptr, false, true)));
  // A WindowBuffer is not a plain Var of the same type.
  check_unequal(f(WindowBuffer::make("w", ci(1024))), [] {
    auto v = var("w", WindowBufferType::make());
    return fn("f", {}, {},
              seq({assign(v, call("comm.alloc_window", {}, WindowBufferType::make())),
                   EvalStmt::make(call("comm.use", {v}, UnknownType::make())), ret({})}));
  }());
}

TEST_CASE("structural contract: unbound WindowBuffers keep aliasing and fields") {
  auto uses = [](WindowBufferRef w1, WindowBufferRef w2) {
    return fn("f", {}, {},
              seq({EvalStmt::make(call("comm.use", {w1, w2}, UnknownType::make())), ret({})}));
  };
  auto w = WindowBuffer::make("w", ci(1024)), v = WindowBuffer::make("v", ci(1024)),
       u = WindowBuffer::make("u", ci(1024)), big = WindowBuffer::make("big", ci(2048));
  check_equal(uses(w, w), uses(v, v));
  check_unequal(uses(w, w), uses(v, u));
  check_unequal(uses(w, w), uses(big, big));
}

// ==== illegal IR may be compared with itself ====================================================

TEST_CASE("structural contract: illegal IR compares equal to itself") {
  auto x = ivar("x"), y = ivar("y");
  // Use before definition.
  auto f = fn("f", {}, {scalar(DataType::INDEX)},
              seq({assign(y, Add::make(x, ci(1))), assign(x, ci(2)), ret({y})}));
  check_equal(f, f);
  // Duplicate definition.
  auto z = ivar("z");
  auto g =
      fn("g", {}, {scalar(DataType::INDEX)}, seq({assign(z, ci(1)), assign(z, ci(2)), ret({z})}));
  check_equal(g, g);
  check_unequal(f, g);
}

// ==== diagnostics: the first differing path =====================================================

namespace {
/// Three statements; only statement 2's first argument's type's dim 1 depends on `dim1`.
FunctionRef three_statements(ExprRef dim1) {
  auto ty = t64x128();
  auto a = var("a", ty), b = var("b", ty);
  auto t0 = var("t0", ty), t1 = var("t1", ty), t2 = var("t2", ty);
  return fn(
      "f", {{a}, {b}}, {},
      seq({assign(t0, call("tensor.add", {a, b}, ty)), assign(t1, call("tensor.mul", {t0, a}, ty)),
           assign(t2, call("tensor.add", {call("tensor.slice", {t1}, tensor({ci(64), dim1})), b},
                           ty))}));
}
}  // namespace

TEST_CASE("structural contract: assert_structural_equal names the first differing path") {
  const ExprRef lhs_dim = ci(32);
  const ExprRef rhs_dim = Mul::make(ci(4), ci(8));
  auto f = three_statements(lhs_dim), g = three_statements(rhs_dim);
  const std::string path = "body[2].value.args[0].type.shape[1]";
  auto mm = find_first_mismatch(f, g);
  REQUIRE(mm.has_value());
  CHECK(mm->field_path == path);
  // Both sides are described from their reflected fields (structural/ sits below the printer),
  // and the differing nodes are handed back for printing.
  CHECK(mm->lhs == "ConstInt(type=ScalarType(dtype=INDEX), value=32)");
  CHECK(starts_with(mm->rhs, "Mul(type=ScalarType(dtype=INDEX), left=ConstInt("));
  CHECK(mm->lhs_node == lhs_dim);
  CHECK(mm->rhs_node == rhs_dim);
  CHECK(pypto::text::print(*mm->rhs_node) == pypto::text::print(rhs_dim));
  try {
    assert_structural_equal(f, g);
    FAIL("assert_structural_equal did not throw");
  } catch (const core::ValueError& e) {
    const std::string msg = e.what();
    CHECK(starts_with(msg, "structural mismatch at " + path + ": "));
    CHECK(contains(msg, "\n  lhs: " + mm->lhs));
    CHECK(contains(msg, "\n  rhs: " + mm->rhs));
  }
  // A value difference at the same place: the path starts there.
  auto h = three_statements(ci(16));
  mm = find_first_mismatch(f, h);
  REQUIRE(mm.has_value());
  CHECK(starts_with(mm->field_path, path));
  CHECK(contains(mm->lhs, "32"));
  CHECK(contains(mm->rhs, "16"));
  CHECK_THROWS_WITH_AS(assert_structural_equal(f, h), doctest::Contains(path.c_str()),
                       core::ValueError);
  // Equal inputs: no mismatch.
  CHECK_FALSE(find_first_mismatch(f, three_statements(ci(32))).has_value());
  CHECK_NOTHROW(assert_structural_equal(f, three_statements(ci(32))));
}

TEST_CASE("structural contract: mismatch paths use field names, [i], optionals and program keys") {
  auto x = ivar("x");
  CHECK(check_unequal(Add::make(x, ci(1)), Sub::make(x, ci(1))).empty());
  CHECK(starts_with(check_unequal(Add::make(x, ci(1)), Add::make(x, ci(2))), "right"));
  // Optional fields by name.
  CHECK(check_unequal(
            tensor({ci(4)}, DataType::FP32, TensorView{{}, TensorLayout::ND, {}, PadValue::null}),
            tensor({ci(4)}, DataType::FP32,
                   TensorView{{}, TensorLayout::NZ, {}, PadValue::null})) == "tensor_view.layout");
  TileView v;
  v.start_offset = ci(0);
  CHECK(starts_with(
      check_unequal(TileType::make(DataType::FP16, {ci(16)}, MemorySpace::Vec, TileView{}),
                    TileType::make(DataType::FP16, {ci(16)}, MemorySpace::Vec, v)),
      "tile_view.start_offset"));
  CHECK(check_unequal(tensor({ci(4), ci(8)}), tensor({ci(4), ci(8, DataType::INT64)}))
            .rfind("shape[1]", 0) == 0);
  // Program entries by key.
  auto prog = [](std::int64_t c) {
    auto p = ivar("p"), t = ivar("t");
    return Program::make("p", {fn("main", {{p}}, {scalar(DataType::INDEX)},
                                  seq({assign(t, Add::make(p, ci(c))), ret({t})}))});
  };
  CHECK(starts_with(check_unequal(prog(1), prog(2)), "['main'].body[0]"));
  // Function metadata paths.
  auto a = var("a", t64x128()), b = var("b", t64x128());
  CHECK(starts_with(check_unequal(fn("f", {{a}}, {}, seq({ret({})})),
                                  fn("f", {{b, ParamDirection::Out}}, {}, seq({ret({})}))),
                    "param_directions"));
}

// ==== unsupported: nesting deeper than 512 and cycles ===========================================

namespace {
ExprRef neg_chain(ExprRef leaf, int depth) {
  ExprRef e = std::move(leaf);
  for (int i = 0; i < depth; ++i) e = Neg::make(e);
  return e;
}
}  // namespace

TEST_CASE("structural contract: nesting deeper than 512 is unsupported, 500 is fine") {
  static_assert(pypto::structural::kMaxNesting == 512);
  auto x = ivar("x");
  auto ok1 = neg_chain(x, 500), ok2 = neg_chain(x, 500);
  check_equal(ok1, ok2);
  check_unequal(ok1, neg_chain(x, 499));
  auto deep = neg_chain(x, 600);
  const auto e = check_unsupported(deep, ok1);
  CHECK((contains(e.reason(), "nest") || contains(e.reason(), "512")));
  CHECK_FALSE(e.field_path().empty());
  CHECK(starts_with(e.field_path(), "operand"));
  // Never reported as unequal: a deep node against something of another kind.
  CHECK_THROWS_AS(structural_equal(deep, ci(1)), StructuralComparisonUnsupported);
  CHECK_THROWS_AS(find_first_mismatch(ci(1), deep), StructuralComparisonUnsupported);
}

TEST_CASE("structural contract: deep type nesting and deep statement nesting are unsupported") {
  TypeRef t = scalar(DataType::FP32);
  for (int i = 0; i < 600; ++i) t = TupleType::make({t});
  const auto e = check_unsupported(t, scalar(DataType::FP32));
  CHECK_FALSE(e.field_path().empty());
  StmtRef s = seq({ret({})});
  for (int i = 0; i < 600; ++i) s = IfStmt::make(ConstBool::make(true), s);
  auto f = fn("f", {}, {}, s);
  const auto e2 = check_unsupported(f, fn("f", {}, {}, seq({ret({})})));
  CHECK(starts_with(e2.field_path(), "body"));
}

TEST_CASE("structural contract: a 100000-deep chain is a clean error, never a crash") {
  auto x = ivar("x");
  auto deep = neg_chain(x, 100000);
  auto deep2 = neg_chain(x, 100000);
  CHECK_THROWS_AS(structural_hash(deep), StructuralComparisonUnsupported);
  CHECK_THROWS_AS(structural_hash(deep, true), StructuralComparisonUnsupported);
  CHECK_THROWS_AS(structural_equal(deep, deep2), StructuralComparisonUnsupported);
  CHECK_THROWS_AS(assert_structural_equal(deep, deep2), StructuralComparisonUnsupported);
  CHECK_THROWS_AS(find_first_mismatch(deep, x), StructuralComparisonUnsupported);
}

namespace {
/// Breaks the reference cycle of a test on scope exit (even on failure) so nothing leaks.
template <class Fn>
struct OnExit {
  Fn fn;
  ~OnExit() { fn(); }
};
template <class Fn>
OnExit(Fn) -> OnExit<Fn>;
}  // namespace

TEST_CASE("structural contract: a cycle is unsupported, for equal and for hash") {
  SUBCASE("a SeqStmts containing itself") {
    auto s = make_node<SeqStmts>();
    s->stmts.push_back(StmtRef(s));
    OnExit guard{[&] { s->stmts.clear(); }};
    const auto e = check_unsupported(StmtRef(s), seq({}));
    CHECK(contains(e.reason(), "cycle"));
    // Inside a function.
    auto f = fn("f", {}, {}, StmtRef(s));
    const auto e2 = check_unsupported(f, fn("f", {}, {}, seq({})));
    CHECK(contains(e2.reason(), "cycle"));
  }
  SUBCASE("an Add whose left operand is itself") {
    auto a = make_node<Add>();
    a->type = scalar(DataType::INDEX);
    a->left = ExprRef(a);
    a->right = ci(1);
    OnExit guard{[&] { a->left = nullptr; }};
    const auto e = check_unsupported(ExprRef(a), Add::make(ci(1), ci(1)));
    CHECK(contains(e.reason(), "cycle"));
  }
  SUBCASE("a two-statement cycle") {
    auto s1 = make_node<SeqStmts>(), s2 = make_node<SeqStmts>();
    s1->stmts.push_back(StmtRef(s2));
    s2->stmts.push_back(StmtRef(s1));
    OnExit guard{[&] { s1->stmts.clear(); }};
    const auto e = check_unsupported(StmtRef(s1), seq({seq({})}));
    CHECK(contains(e.reason(), "cycle"));
  }
  SUBCASE("a tuple type containing itself") {
    auto t = make_node<TupleType>();
    t->types.push_back(TypeRef(t));
    OnExit guard{[&] { t->types.clear(); }};
    const auto e = check_unsupported(TypeRef(t), TupleType::make({}));
    CHECK(contains(e.reason(), "cycle"));
  }
}

TEST_CASE("structural contract: attribute lists nested deeper than 512 are unsupported") {
  AttrValue deep = std::int64_t{1};
  for (int i = 0; i < 600; ++i) deep = AttrValueList{deep};
  auto x = Var::make("x", ScalarType::make(DataType::INDEX));
  auto call = Call::make(Op::make("tensor.add"), {x}, x->type, {}, {{"deep", deep}});
  try {
    (void)structural_hash(call);
    FAIL("no StructuralComparisonUnsupported");
  } catch (const StructuralComparisonUnsupported& e) {
    CHECK(contains(e.reason(), "nested deeper than 512"));
    CHECK(starts_with(e.field_path(), "attrs[\"deep\"]"));
  }
  AttrValue shallow = std::int64_t{1};
  for (int i = 0; i < 100; ++i) shallow = AttrValueList{shallow};
  auto ok = Call::make(Op::make("tensor.add"), {x}, x->type, {}, {{"deep", shallow}});
  CHECK(structural_equal(ok, ok));
}

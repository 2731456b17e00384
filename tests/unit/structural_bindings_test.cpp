// Tests of pypto/structural/bindings.hpp (seed 003, verify_structural_bindings): each case is a
// program built with the IR builders, the check, and the expected verdict — accepted, or the
// kind and exact field path of the first violation.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "ir_samples.hpp"
#include "pypto/structural/bindings.hpp"

using namespace pypto::test;  // NOLINT
namespace st = pypto::structural;
using st::BindingErrorKind;

namespace {

FunctionRef func(const std::vector<VarRef>& params, std::vector<StmtRef> body,
                 std::vector<TypeRef> return_types = {}) {
  std::vector<Param> ps;
  for (const auto& p : params) ps.push_back({p, ParamDirection::In});
  return Function::make("f", std::move(ps), std::move(return_types),
                        SeqStmts::make(std::move(body)));
}
StmtRef assign(VarRef v, ExprRef e) { return AssignStmt::make(std::move(v), std::move(e)); }
StmtRef seq(std::vector<StmtRef> s) { return SeqStmts::make(std::move(s)); }
StmtRef yield(std::vector<ExprRef> values) { return YieldStmt::make(std::move(values)); }
ExprRef plus(ExprRef a, ExprRef b) { return Add::make(std::move(a), std::move(b)); }
ExprRef times(ExprRef a, ExprRef b) { return Mul::make(std::move(a), std::move(b)); }
StmtRef for_(VarRef i, ExprRef stop, std::vector<IterArgRef> iter_args, std::vector<StmtRef> body,
             std::vector<VarRef> return_vars = {}, Attrs attrs = {}) {
  return ForStmt::make(std::move(i), idx(0), std::move(stop), idx(1), std::move(iter_args),
                       seq(std::move(body)), std::move(return_vars), ForKind::Sequential,
                       std::move(attrs));
}
TypeRef tensor_of(std::vector<ExprRef> shape) {
  return TensorType::make(DataType::FP32, std::move(shape));
}
ExprRef call(std::string op, std::vector<ExprRef> args, TypeRef type, Attrs kwargs = {},
             Attrs attrs = {}) {
  return Call::make(Op::make(std::move(op)), std::move(args), std::move(type), std::move(kwargs),
                    std::move(attrs));
}

struct Violation {
  BindingErrorKind kind;
  std::string path;
  std::string detail;
};

/// The violation verify_structural_bindings reports for `f`, or nullopt when it accepts `f`.
std::optional<Violation> violation(const FunctionRef& f) {
  try {
    st::verify_structural_bindings(*f);
    return std::nullopt;
  } catch (const st::BindingError& e) {
    return Violation{e.kind(), e.field_path(), e.detail()};
  }
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

// ---- accepted programs ------------------------------------------------------------------------

TEST_CASE("bindings: a loop carrying a value, its result used after the loop") {
  // def f(a: Tensor[[n], FP32], n: INDEX):
  //   s0 = 0
  //   for i, (acc,) in range(0, n, 1, init=(s0,)): t = acc + i; yield t
  //   -> r;  out = r * 2;  return out
  const auto n = var("n"), s0 = var("s0"), i = var("i"), t = var("t"), r = var("r"),
             out = var("out");
  const auto a = Var::make("a", tensor_of({n}));
  const auto acc = IterArg::make("acc", scalar(DataType::INDEX), s0);
  const auto f = func(
      {a, n}, {assign(s0, idx(0)), for_(i, n, {acc}, {assign(t, plus(acc, i)), yield({t})}, {r}),
               assign(out, times(r, idx(2))), ReturnStmt::make({out})});
  CHECK_FALSE(violation(f));
}

TEST_CASE("bindings: an if whose arms yield, its results used after it") {
  const auto n = var("n"), c = var("c", DataType::BOOL), u = var("u"), w = var("w"), z = var("z"),
             out = var("out");
  const auto f = func({n}, {assign(c, Lt::make(n, idx(4))),
                            IfStmt::make(c, seq({assign(u, plus(n, idx(1))), yield({u})}),
                                         seq({assign(w, plus(n, idx(2))), yield({w})}), {z}),
                            assign(out, times(z, idx(2)))});
  CHECK_FALSE(violation(f));
}

TEST_CASE("bindings: a while loop's iter_args are visible in its condition and body") {
  const auto n = var("n"), k = var("k"), r = var("r"), out = var("out");
  const auto it = IterArg::make("it", scalar(DataType::INDEX), idx(0));
  const auto f = func({n}, {WhileStmt::make({it}, Lt::make(it, n),
                                            seq({assign(k, plus(it, idx(1))), yield({k})}), {r}),
                            assign(out, plus(r, n))});
  CHECK_FALSE(violation(f));
}

TEST_CASE("bindings: definitions inside straight-line scopes flow out to later statements") {
  const auto n = var("n"), x = var("x"), y = var("y"), z = var("z"), h = var("h"),
             aiv = var("aiv_id"), q = var("q");
  const auto f = func(
      {n},
      {InCoreScopeStmt::make(seq({assign(x, plus(n, idx(1)))}), "k"),
       SpmdScopeStmt::make(seq({assign(y, plus(x, idx(1)))}), n),
       HierarchyScopeStmt::make(ClusterScopeStmt::make(seq({assign(h, plus(y, x))})), Level::HOST),
       SplitAivScopeStmt::make(aiv, seq({assign(q, plus(aiv, h))}), SplitMode::UpDown),
       RuntimeScopeStmt::make(seq({assign(z, plus(q, h))}))});
  CHECK_FALSE(violation(f));
}

TEST_CASE("bindings: a parameter's type may name a later scalar parameter") {
  // def f(a: Tensor[[n, 64], FP32], n: INDEX) — n is reserved before a's type is walked.
  const auto n = var("n");
  const auto a = Var::make("a", tensor_of({n, idx(64)}));
  const auto out = Var::make("out", tensor_of({n, idx(64)}));
  const auto f = func({a, n}, {assign(out, call("tensor.add", {a, a}, a->type))}, {a->type});
  CHECK_FALSE(violation(f));
}

TEST_CASE("bindings: signature shape symbols are bound for the whole function") {
  // def f(a: Tensor[[m * 2], FP32]): b = m + 1 — m is a shape symbol, not a parameter.
  const auto m = var("m"), b = var("b");
  const auto a = Var::make("a", tensor_of({times(m, idx(2))}));
  CHECK_FALSE(violation(func({a}, {assign(b, plus(m, idx(1)))})));
}

TEST_CASE("bindings: open captures (variables defined nowhere) may be used anywhere") {
  const auto g = var("g"), x = var("x"), i = var("i");
  const auto captured = Var::make("captured", tensor_of({g}));
  const auto y = Var::make("y", tensor_of({g}));
  const auto f = func({}, {assign(x, plus(g, idx(1))),
                           for_(i, g, {},
                                {EvalStmt::make(call("tensor.add", {captured, captured},
                                                     tensor_of({plus(g, i)}), {{"k", g}}))}),
                           assign(y, call("tensor.add", {captured, captured}, tensor_of({g})))});
  CHECK_FALSE(violation(f));
}

TEST_CASE("bindings: MemRef bases defined nowhere are implicit resource bindings") {
  const auto base = Var::make("mem_vec_0", PtrType::make());
  const auto n = var("n"),
             t = Var::make("t", TileType::make(DataType::FP16, {idx(16), idx(16)}, MemorySpace::Vec,
                                               std::nullopt, MemRef::make(base, idx(0), 512)));
  const auto u = Var::make("u", t->type);
  const auto f = func({n}, {assign(t, call("tile.create", {}, t->type)),
                            assign(u, call("tile.add", {t, t}, u->type))});
  CHECK_FALSE(violation(f));
}

TEST_CASE("bindings: a shared expression used twice inside its variables' scope is fine") {
  const auto n = var("n"), i = var("i"), x = var("x"), a = var("a"), b = var("b");
  const auto e = plus(x, idx(1));
  const auto f = func(
      {n},
      {for_(i, n, {},
            {assign(x, times(i, idx(2))), assign(a, times(e, idx(2))), assign(b, plus(e, e))})});
  CHECK_FALSE(violation(f));
}

TEST_CASE("bindings: a 100,000-deep expression chain verifies without native recursion") {
  const auto n = var("n"), y = var("y");
  ExprRef e = n;
  for (int k = 0; k < 100000; ++k) e = plus(e, idx(1));
  CHECK_FALSE(violation(func({n}, {assign(y, e)})));
}

// ---- duplicate definitions --------------------------------------------------------------------

TEST_CASE("bindings: a parameter listed twice is a duplicate definition") {
  // Function::make rejects this; foreign IR built around the builder must still be caught.
  const auto n = var("n");
  auto f = copy_node(*func({n}, {}));
  f->params.push_back(n);
  f->param_directions.push_back(ParamDirection::In);
  const auto v = violation(FunctionRef(f));
  REQUIRE(v);
  CHECK(v->kind == BindingErrorKind::DuplicateDefinition);
  CHECK(v->path == "params[1]");
  CHECK(contains(v->detail, "'n' is already defined at params[0]"));
}

TEST_CASE("bindings: a variable assigned twice is a duplicate definition") {
  const auto x = var("x");
  const auto v = violation(func({}, {assign(x, idx(1)), assign(x, idx(2))}));
  REQUIRE(v);
  CHECK(v->kind == BindingErrorKind::DuplicateDefinition);
  CHECK(v->path == "body[1].var");
  CHECK(contains(v->detail, "already defined at body[0].var"));
}

TEST_CASE("bindings: the body redefining a parameter is a duplicate definition") {
  const auto n = var("n"), i = var("i");
  const auto v = violation(func({n}, {for_(i, idx(4), {}, {assign(n, i)})}));
  REQUIRE(v);
  CHECK(v->kind == BindingErrorKind::DuplicateDefinition);
  CHECK(v->path == "body[0].body[0].var");
}

TEST_CASE("bindings: the body defining a signature shape symbol is a duplicate definition") {
  const auto m = var("m");
  const auto a = Var::make("a", tensor_of({m}));
  const auto v = violation(func({a}, {assign(m, idx(4))}));
  REQUIRE(v);
  CHECK(v->kind == BindingErrorKind::DuplicateDefinition);
  CHECK(v->path == "body[0].var");
  CHECK(contains(v->detail, "shape symbol of the signature"));
}

TEST_CASE("bindings: a loop variable reused as a result is a duplicate definition") {
  const auto i = var("i");
  const auto acc = IterArg::make("acc", scalar(DataType::INDEX), idx(0));
  const auto v = violation(func({}, {for_(i, idx(4), {acc}, {yield({acc})}, {i})}));
  REQUIRE(v);
  CHECK(v->kind == BindingErrorKind::DuplicateDefinition);
  CHECK(v->path == "body[0].return_vars[0]");
}

// ---- uses that are not visible ----------------------------------------------------------------

TEST_CASE("bindings: a use before the definition is BindingNotVisible at the use") {
  const auto x = var("x"), y = var("y");
  const auto f = func({}, {assign(y, plus(x, idx(1))), assign(x, idx(2))});
  CHECK_THROWS_AS(st::verify_structural_bindings(*f), st::BindingNotVisible);
  const auto v = violation(f);
  REQUIRE(v);
  CHECK(v->kind == BindingErrorKind::NotVisible);
  CHECK(v->path == "body[0].value.left");
  CHECK(contains(v->detail, "'x' is used before its definition at body[1].var"));
}

TEST_CASE("bindings: an assignment binds after its right side") {
  const auto x = var("x");
  const auto v = violation(func({}, {assign(x, plus(x, idx(1)))}));
  REQUIRE(v);
  CHECK(v->kind == BindingErrorKind::NotVisible);
  CHECK(v->path == "body[0].value.left");
}

TEST_CASE("bindings: iter_arg initial values are evaluated outside the loop") {
  const auto i = var("i");
  SUBCASE("an initial value naming another iter_arg of the same loop") {
    const auto acc = IterArg::make("acc", scalar(DataType::INDEX), idx(0));
    const auto acc2 = IterArg::make("acc2", scalar(DataType::INDEX), acc);
    const auto v = violation(
        func({}, {for_(i, idx(4), {acc, acc2}, {yield({acc, acc2})}, {var("r"), var("r2")})}));
    REQUIRE(v);
    CHECK(v->kind == BindingErrorKind::NotVisible);
    CHECK(v->path == "body[0].iter_args[1].init_value");
  }
  SUBCASE("an initial value naming the loop variable") {
    const auto acc = IterArg::make("acc", scalar(DataType::INDEX), plus(i, idx(0)));
    const auto v = violation(func({}, {for_(i, idx(4), {acc}, {yield({acc})}, {var("r")})}));
    REQUIRE(v);
    CHECK(v->kind == BindingErrorKind::NotVisible);
    CHECK(v->path == "body[0].iter_args[0].init_value.left");
  }
  SUBCASE("a loop bound naming the loop variable") {
    const auto v = violation(func({}, {for_(i, plus(i, idx(1)), {}, {})}));
    REQUIRE(v);
    CHECK(v->path == "body[0].stop.left");
  }
}

TEST_CASE("bindings: a loop-body local used after the loop does not escape") {
  const auto n = var("n"), i = var("i"), t = var("t"), y = var("y");
  const auto v = violation(
      func({n}, {for_(i, n, {}, {assign(t, times(i, idx(2)))}), assign(y, plus(t, idx(1)))}));
  REQUIRE(v);
  CHECK(v->kind == BindingErrorKind::NotVisible);
  CHECK(v->path == "body[1].value.left");
  CHECK(contains(v->detail,
                 "'t' is used outside the scope of its definition at body[0].body[0].var"));
}

TEST_CASE("bindings: the loop variable is not visible after the loop") {
  const auto i = var("i"), y = var("y");
  const auto v = violation(func({}, {for_(i, idx(4), {}, {}), assign(y, i)}));
  REQUIRE(v);
  CHECK(v->path == "body[1].value");
}

TEST_CASE("bindings: a while-body local does not escape, an iter_arg is not visible after") {
  const auto k = var("k"), r = var("r"), y = var("y");
  const auto it = IterArg::make("it", scalar(DataType::INDEX), idx(0));
  const auto loop = WhileStmt::make({it}, Lt::make(it, idx(8)),
                                    seq({assign(k, plus(it, idx(1))), yield({k})}), {r});
  SUBCASE("body local") {
    const auto v = violation(func({}, {loop, assign(y, plus(r, k))}));
    REQUIRE(v);
    CHECK(v->path == "body[1].value.right");
  }
  SUBCASE("iter_arg") {
    const auto v = violation(func({}, {loop, assign(y, it)}));
    REQUIRE(v);
    CHECK(v->path == "body[1].value");
  }
}

TEST_CASE("bindings: branch locals do not escape the if, nor reach the other arm") {
  const auto n = var("n"), c = var("c", DataType::BOOL), u = var("u"), w = var("w"), y = var("y");
  SUBCASE("then-branch local used after the if") {
    const auto f =
        func({n}, {assign(c, Lt::make(n, idx(4))),
                   IfStmt::make(c, seq({assign(u, plus(n, idx(1)))})), assign(y, plus(u, idx(1)))});
    const auto v = violation(f);
    REQUIRE(v);
    CHECK(v->kind == BindingErrorKind::NotVisible);
    CHECK(v->path == "body[2].value.left");
  }
  SUBCASE("then-branch local used in the else branch") {
    const auto f = func(
        {n}, {assign(c, Lt::make(n, idx(4))), IfStmt::make(c, seq({assign(u, plus(n, idx(1)))}),
                                                           seq({assign(w, plus(u, idx(2)))}))});
    const auto v = violation(f);
    REQUIRE(v);
    CHECK(v->path == "body[1].else_body[0].value.left");
  }
}

TEST_CASE("bindings: SplitAiv's aiv_id is local to its body, the body's definitions are not") {
  const auto aiv = var("aiv_id"), q = var("q"), y = var("y"), z = var("z");
  const auto split = SplitAivScopeStmt::make(aiv, seq({assign(q, plus(aiv, idx(1)))}));
  CHECK_FALSE(violation(func({}, {split, assign(z, plus(q, idx(1)))})));
  const auto v = violation(func({}, {split, assign(y, plus(aiv, idx(1)))}));
  REQUIRE(v);
  CHECK(v->kind == BindingErrorKind::NotVisible);
  CHECK(v->path == "body[1].value.left");
}

TEST_CASE("bindings: a scope's attributes and core count are evaluated before its body") {
  const auto x = var("x");
  const auto v =
      violation(func({}, {SpmdScopeStmt::make(seq({assign(x, idx(4))}), plus(x, idx(0)))}));
  REQUIRE(v);
  CHECK(v->path == "body[0].core_num.left");
}

// ---- references inside types, views, storage and attributes ------------------------------------

TEST_CASE("bindings: call kwargs and attrs are uses, also inside attribute lists") {
  const auto n = var("n"), x = var("x"), y = var("y");
  SUBCASE("kwargs") {
    const auto v = violation(
        func({n}, {assign(y, call("tensor.view", {n}, scalar(DataType::INDEX), {{"offset", x}})),
                   assign(x, idx(1))}));
    REQUIRE(v);
    CHECK(v->path == "body[0].value.kwargs[\"offset\"]");
  }
  SUBCASE("an attribute list element") {
    const auto v = violation(
        func({n}, {assign(y, call("tensor.view", {n}, scalar(DataType::INDEX), {},
                                  {{"dump_vars", AttrValueList{AttrValue(n), AttrValue(x)}}})),
                   assign(x, idx(1))}));
    REQUIRE(v);
    CHECK(v->path == "body[0].value.attrs[\"dump_vars\"][1]");
  }
}

TEST_CASE("bindings: views and storage descriptors inside types are uses") {
  const auto i = var("i"), t = var("t");
  SUBCASE("a TensorView stride naming a loop local, in the type of a later variable") {
    TensorView view;
    view.stride = {i};
    const auto y = Var::make("y", TensorType::make(DataType::FP32, {idx(8)}, view));
    const auto v = violation(
        func({}, {for_(i, idx(4), {}, {}), assign(y, call("tensor.create", {}, y->type))}));
    REQUIRE(v);
    CHECK(v->path == "body[1].var.type.tensor_view.stride[0]");
  }
  SUBCASE("a MemRef base that the body defines later is not a resource capture") {
    const auto base = Var::make("base", PtrType::make());
    const auto tile =
        Var::make("tile", TileType::make(DataType::FP16, {idx(16)}, MemorySpace::Vec, std::nullopt,
                                         MemRef::make(base, idx(0), 512)));
    const auto v = violation(func({}, {assign(tile, call("tile.create", {}, tile->type)),
                                       assign(base, call("alloc", {}, PtrType::make()))}));
    REQUIRE(v);
    CHECK(v->path == "body[0].var.type.memref.base");
  }
  SUBCASE("a TileView start offset defined later") {
    TileView view;
    view.start_offset = t;
    const auto tile =
        Var::make("tile", TileType::make(DataType::FP16, {idx(16)}, MemorySpace::Vec, view));
    const auto v =
        violation(func({}, {assign(tile, call("tile.create", {}, tile->type)), assign(t, idx(0))}));
    REQUIRE(v);
    CHECK(v->path == "body[0].var.type.tile_view.start_offset");
  }
  SUBCASE("a function's return type naming a body variable") {
    const auto m = var("m");
    const auto v = violation(func({}, {assign(m, idx(4))}, {tensor_of({m})}));
    REQUIRE(v);
    CHECK(v->path == "return_types[0].shape[0]");
  }
}

// ---- shared statements and shared DAGs ---------------------------------------------------------

TEST_CASE("bindings: one statement object at two places is rejected at the second") {
  const auto x = var("x"), i = var("i");
  const auto s = EvalStmt::make(idx(1));
  SUBCASE("siblings") {
    const auto v = violation(func({}, {s, s}));
    REQUIRE(v);
    CHECK(v->kind == BindingErrorKind::SharedStatement);
    CHECK(v->path == "body[1]");
    CHECK(contains(v->detail, "EvalStmt object also appears at body[0]"));
  }
  SUBCASE("inside a loop and after it") {
    const auto a = assign(x, idx(1));
    const auto v = violation(func({}, {for_(i, idx(4), {}, {a}), a}));
    REQUIRE(v);
    CHECK(v->kind == BindingErrorKind::SharedStatement);
    CHECK(v->path == "body[1]");
  }
}

TEST_CASE("bindings: a shared expression used again out of scope points at the use inside it") {
  // for i in range(n): x = i * 2; a = e * 2   (e = x + 1: legal here)
  // b = e * 3                                  (x is a loop local: illegal here)
  const auto n = var("n"), i = var("i"), x = var("x"), a = var("a"), b = var("b");
  const auto e = plus(x, idx(1));
  const auto f =
      func({n}, {for_(i, n, {}, {assign(x, times(i, idx(2))), assign(a, times(e, idx(2)))}),
                 assign(b, times(e, idx(3)))});
  const auto v = violation(f);
  REQUIRE(v);
  CHECK(v->kind == BindingErrorKind::NotVisible);
  CHECK(v->path == "body[1].value.left.left");
  CHECK(contains(v->detail,
                 "'x' is used outside the scope of its definition at body[0].body[0].var"));
}

TEST_CASE("bindings: a shared type whose shape symbol is a loop local, reused after the loop") {
  const auto i = var("i");
  const auto shared_type = tensor_of({i});
  const auto y = Var::make("y", shared_type);
  const auto f =
      func({}, {for_(i, idx(4), {},
                     {assign(Var::make("t", shared_type), call("tensor.create", {}, shared_type))}),
                assign(y, call("tensor.create", {}, tensor_64x128()))});
  const auto v = violation(f);
  REQUIRE(v);
  CHECK(v->kind == BindingErrorKind::NotVisible);
  CHECK(v->path == "body[1].var.type.shape[0]");
}

TEST_CASE("bindings: a shared DAG of depth 60 is summarised once per node") {
  // d(k+1) = d(k) + d(k): 2^60 paths; walking it as a tree would never finish.
  const auto n = var("n"), i = var("i"), x = var("x"), y = var("y"), z = var("z");
  ExprRef d = x;
  for (int k = 0; k < 60; ++k) d = plus(d, d);
  CHECK_FALSE(violation(func({n}, {for_(i, n, {}, {assign(x, i), assign(y, d)})})));
  const auto v = violation(func({n}, {for_(i, n, {}, {assign(x, i), assign(y, d)}), assign(z, d)}));
  REQUIRE(v);
  CHECK(v->path == "body[1].value" + [] {
    std::string s;
    for (int k = 0; k < 60; ++k) s += ".left";
    return s;
  }());
}

TEST_CASE("bindings: a failing use at the bottom of a 100,000-deep chain gets its full path") {
  const auto x = var("x"), y = var("y");
  ExprRef e = x;
  for (int k = 0; k < 100000; ++k) e = plus(e, idx(1));
  const auto v = violation(func({}, {assign(y, e), assign(x, idx(0))}));
  REQUIRE(v);
  CHECK(v->kind == BindingErrorKind::NotVisible);
  CHECK(v->path.size() ==
        std::string("body[0].value").size() + 100000 * std::string(".left").size());
  CHECK(v->path.rfind("body[0].value.left.left", 0) == 0);
}

// ---- signature symbols ------------------------------------------------------------------------

TEST_CASE("bindings: a signature shape symbol must be an integer scalar") {
  const auto s = Var::make("s", scalar(DataType::FP32));
  SUBCASE("a bare FP32 symbol as a dimension") {
    // TensorType::make rejects a float dimension; foreign IR can still carry one.
    auto type = copy_node(*TensorType::make(DataType::FP32, {idx(64), idx(128)}));
    type->shape[1] = s;
    const auto a = Var::make("a", TypeRef(type));
    const auto v = violation(func({a}, {}));
    REQUIRE(v);
    CHECK(v->kind == BindingErrorKind::IneligibleSignatureSymbol);
    CHECK(v->path == "params[0].type.shape[1]");
    CHECK(contains(v->detail, "'s'"));
    CHECK(contains(v->detail, "Scalar[FP32]"));
  }
  SUBCASE("an FP32 symbol under a cast") {
    const auto n = var("n");
    const auto a = Var::make("a", tensor_of({n}));
    const auto b = Var::make("b", tensor_of({idx(4), Cast::make(s, DataType::INDEX)}));
    const auto v = violation(func({a, b}, {}));
    REQUIRE(v);
    CHECK(v->kind == BindingErrorKind::IneligibleSignatureSymbol);
    CHECK(v->path == "params[1].type.shape[1].operand");
  }
}

// ---- ordering ---------------------------------------------------------------------------------

TEST_CASE("bindings: the first violation in walk order is the one reported") {
  const auto x = var("x"), y = var("y"), z = var("z");
  // body[0] uses z before its definition; body[1] and body[2] define y twice.
  const auto v = violation(func(
      {}, {assign(x, plus(z, idx(1))), assign(y, idx(1)), assign(y, idx(2)), assign(z, idx(3))}));
  REQUIRE(v);
  CHECK(v->kind == BindingErrorKind::NotVisible);
  CHECK(v->path == "body[0].value.left");
  // With the order swapped the duplicate comes first.
  const auto w = violation(func(
      {}, {assign(y, idx(1)), assign(y, idx(2)), assign(x, plus(z, idx(1))), assign(z, idx(3))}));
  REQUIRE(w);
  CHECK(w->kind == BindingErrorKind::DuplicateDefinition);
  CHECK(w->path == "body[1].var");
}

TEST_CASE("bindings: the message names the kind, the path and the variable") {
  const auto x = var("x");
  const auto f = func({}, {assign(x, plus(x, idx(1)))});
  try {
    st::verify_structural_bindings(*f);
    FAIL("expected a BindingNotVisible");
  } catch (const st::BindingNotVisible& e) {
    CHECK(std::string(e.what()) ==
          "BindingNotVisible at body[0].value.left: variable 'x' is used before its definition "
          "at body[0].var");
  }
}

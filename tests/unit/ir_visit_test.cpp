// Tests of pypto/ir/visit.hpp: kind dispatch, direct children in field order, and the iterative
// whole-graph walk.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "ir_samples.hpp"
#include "pypto/ir/visit.hpp"

using namespace pypto::test;  // NOLINT
namespace core = pypto::core;

namespace {
/// The direct children of `n`, as reported by for_each_child.
std::vector<NodeRef> children_of(const NodeRef& n) {
  std::vector<NodeRef> out;
  for_each_child(*n, [&](NodeRef c) { out.push_back(std::move(c)); });
  return out;
}
/// True when `got` holds exactly the nodes `expected`, in that order (identity comparison).
bool same_nodes(const std::vector<NodeRef>& got, const std::vector<NodeRef>& expected) {
  if (got.size() != expected.size()) return false;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != expected[i]) return false;
  return true;
}
std::string kinds_of(const std::vector<NodeRef>& nodes) {
  std::string s;
  for (const auto& n : nodes) s.append(kind_name(n->kind())).append(" ");
  return s;
}
}  // namespace

// ---- visit ------------------------------------------------------------------------------------

TEST_CASE("visit: dispatch reaches the concrete class of every kind") {
  for (const auto& n : one_node_of_each_kind()) {
    const auto [kind, name] = visit(*n, [](const auto& concrete) {
      using T = std::remove_cvref_t<decltype(concrete)>;
      return std::pair<NodeKind, std::string_view>(T::static_kind, T::class_name);
    });
    CAPTURE(kind_name(n->kind()));
    CHECK(kind == n->kind());
    CHECK(name == kind_name(n->kind()));
  }
}

TEST_CASE("visit: the callback gets the node itself, not a copy") {
  const auto x = var("x");
  const Node* seen = nullptr;
  visit(*x, [&](const auto& concrete) { seen = &concrete; });
  CHECK(seen == x.get());
}

TEST_CASE("visit: an IterArg is dispatched as IterArg, not as its base Var") {
  const NodeRef it = IterArg::make("acc", scalar(DataType::INDEX), idx(0));
  const bool as_iter_arg = visit(*it, [](const auto& concrete) {
    return std::is_same_v<std::remove_cvref_t<decltype(concrete)>, IterArg>;
  });
  CHECK(as_iter_arg);
}

// ---- for_each_child ---------------------------------------------------------------------------

TEST_CASE("for_each_child: an expression lists its type first, then its operands") {
  const auto l = var("l");
  const auto r = var("r");
  const auto add = Add::make(l, r);
  CHECK(same_nodes(children_of(add), {add->type, l, r}));
  const auto x = var("x");
  CHECK(same_nodes(children_of(x), {x->type}));
  const auto c = idx(3);
  CHECK(same_nodes(children_of(c), {c->type}));
}

TEST_CASE("for_each_child: ForStmt lists loop_var, bounds, iter_args, body, return_vars, attrs") {
  const auto i = var("i");
  const auto start = idx(0);
  const auto stop = var("n");
  const auto step = idx(1);
  const auto a = IterArg::make("a", scalar(DataType::INDEX), idx(0));
  const auto b = IterArg::make("b", scalar(DataType::INDEX), idx(1));
  const auto body = YieldStmt::make({a, b});
  const auto ra = var("ra");
  const auto rb = var("rb");
  const auto bound = var("bound");
  const auto s = ForStmt::make(i, start, stop, step, {a, b}, body, {ra, rb}, ForKind::Sequential,
                               Attrs{{"unroll", 4}, {"bound", bound}});
  const auto got = children_of(s);
  CAPTURE(kinds_of(got));
  CHECK(same_nodes(got, {i, start, stop, step, a, b, body, ra, rb, bound}));
}

TEST_CASE("for_each_child: expressions inside attribute lists are children, in order") {
  const auto p = var("p");
  const auto q = var("q");
  const auto body = empty_body();
  const auto s = InCoreScopeStmt::make(body, "k", SplitMode::None,
                                       Attrs{{"n", 1},
                                             {"vars", AttrValueList{p, 7, AttrValueList{q}}},
                                             {"opaque", OpaquePayload{"host.X", nullptr}}});
  CHECK(same_nodes(children_of(s), {body, p, q}));
}

TEST_CASE("for_each_child: a null optional field is skipped") {
  const auto c = var("c", DataType::BOOL);
  const auto then_ = empty_body();
  CHECK(same_nodes(children_of(IfStmt::make(c, then_)), {c, then_}));
  const auto else_ = empty_body();
  CHECK(same_nodes(children_of(IfStmt::make(c, then_, else_)), {c, then_, else_}));

  const auto base = Var::make("base", PtrType::make());
  const auto off = idx(0);
  const auto m = MemRef::make(base, off, 64);
  CHECK(same_nodes(children_of(m), {m->type, base, off}));
  const auto slot = var("slot");
  const auto m2 = MemRef::make(base, off, 64, false, 2, slot);
  CHECK(same_nodes(children_of(m2), {m2->type, base, off, slot}));
}

TEST_CASE("for_each_child: Call lists type, callee, args, then kwargs and attrs expressions") {
  const auto op = Op::make("tile.load");
  const auto t = var("t");
  const auto off = var("off");
  const auto k = var("k");
  const auto c = Call::make(op, {t, off}, tensor_64x128(), Attrs{{"k", k}}, Attrs{{"flag", true}});
  CHECK(same_nodes(children_of(c), {c->type, op, t, off, k}));
}

TEST_CASE("for_each_child: Submit lists deps, core_num and predicate after args") {
  const auto g = GlobalVar::make("kernel");
  const auto a = var("a");
  const auto dep = var("dep", DataType::TASK_ID);
  const auto cores = var("cores");
  const auto pred = var("p", DataType::BOOL);
  SubmitLaunch launch;
  launch.deps = {dep};
  launch.core_num = cores;
  launch.predicate = pred;
  const auto s = Submit::make(g, {a}, task_tuple(), launch);
  CHECK(same_nodes(children_of(s), {s->type, g, a, dep, cores, pred}));
  const auto bare = Submit::make(g, {a}, task_tuple());
  CHECK(same_nodes(children_of(bare), {bare->type, g, a}));
}

TEST_CASE("for_each_child: a shaped type lists shape, memref and the view's expressions") {
  const auto n = var("n");
  const auto s0 = var("s0");
  const auto v0 = var("v0");
  TensorView view;
  view.stride = {s0, idx(1)};
  view.valid_shape = {v0, idx(128)};
  const auto mem = MemRef::make(Var::make("base", PtrType::make()), idx(0), 1024);
  const auto t = TensorType::make(DataType::FP32, {n, idx(128)}, view, mem);
  const auto got = children_of(t);
  REQUIRE(got.size() == 7);  // 2 dims, memref, 2 strides, 2 valid dims
  CHECK(got[0] == n);
  CHECK(got[2] == mem);
  CHECK(got[3] == s0);
  CHECK(got[5] == v0);

  TileView tv;
  const auto off = var("off");
  tv.start_offset = off;
  const auto tile = TileType::make(DataType::FP16, {idx(16)}, MemorySpace::Vec, tv);
  const auto tile_children = children_of(tile);
  REQUIRE(tile_children.size() == 2);
  CHECK(tile_children[1] == off);
  CHECK(
      children_of(TileType::make(DataType::FP16, {idx(16)}, MemorySpace::Vec, TileView{})).size() ==
      1);
}

TEST_CASE("for_each_child: Function lists params, return types, attr exprs, then body") {
  const auto a = var("a");
  const auto b = var("b");
  const auto rt = scalar(DataType::INDEX);
  const auto marker = var("marker");
  const auto body = ReturnStmt::make({a});
  const auto f = Function::make("f", {{a}, {b, ParamDirection::Out}}, {rt}, body,
                                FunctionType::Opaque, Attrs{{"m", marker}});
  CHECK(same_nodes(children_of(f), {a, b, rt, marker, body}));
}

TEST_CASE("for_each_child: Program lists its functions in name order") {
  const auto m = Function::make("main", {}, {}, empty_body());
  const auto k = Function::make("kernel", {}, {}, empty_body());
  const auto p = Program::make("p", {m, k});
  CHECK(same_nodes(children_of(p), {k, m}));
}

TEST_CASE("for_each_child: leaves and fieldless nodes have no children") {
  CHECK(children_of(ScalarType::make(DataType::FP32)).empty());
  CHECK(children_of(UnknownType::make()).empty());
  CHECK(children_of(Op::make("tile.add")).empty());
  CHECK(children_of(GlobalVar::make("f")).empty());
  CHECK(children_of(BreakStmt::make()).empty());
  CHECK(children_of(ReturnStmt::make({})).empty());
}

TEST_CASE("for_each_child: a child shared by two fields is reported once per field") {
  const auto x = var("x");
  const auto add = Add::make(x, x);
  CHECK(same_nodes(children_of(add), {add->type, x, x}));
}

// ---- for_each_node ----------------------------------------------------------------------------

TEST_CASE("for_each_node: parents before children, children in field order") {
  const auto x = var("x");
  const auto c = idx(2);
  const auto add = Add::make(x, c);
  const auto s = AssignStmt::make(var("y"), add);
  std::vector<const Node*> order;
  for_each_node(s, [&](const Node& n) { order.push_back(&n); });
  // All four scalars share the one INDEX ScalarType, which is visited once, at its first use.
  const std::vector<const Node*> expected = {s.get(),   s->var.get(), s->var->type.get(),
                                             add.get(), x.get(),      c.get()};
  CHECK(order == expected);
}

TEST_CASE("for_each_node: a node shared by several parents is visited once") {
  const auto x = var("x");
  const auto sum = Add::make(x, x);
  const auto prod = Mul::make(sum, x);
  const auto s = SeqStmts::make({EvalStmt::make(prod), EvalStmt::make(sum)});
  int x_visits = 0, sum_visits = 0, total = 0;
  for_each_node(s, [&](const Node& n) {
    ++total;
    x_visits += &n == x.get();
    sum_visits += &n == sum.get();
  });
  CHECK(x_visits == 1);
  CHECK(sum_visits == 1);
  // s, 2 EvalStmts, prod, the shared INDEX type, sum, x
  CHECK(total == 7);
}

TEST_CASE("for_each_node: a null root visits nothing") {
  int calls = 0;
  for_each_node(NodeRef(), [&](const Node&) { ++calls; });
  CHECK(calls == 0);
}

TEST_CASE("for_each_node: walks a 100,000-deep chain iteratively") {
  constexpr int kDepth = 100'000;
  ExprRef chain = idx(1);
  for (int i = 0; i < kDepth; ++i) chain = Neg::make(chain);
  std::size_t negs = 0, total = 0;
  for_each_node(chain, [&](const Node& n) {
    ++total;
    negs += n.kind() == NodeKind::Neg;
  });
  CHECK(negs == kDepth);
  CHECK(total == kDepth + 2);  // each Neg, the leaf, and the one INDEX type they all share
}

TEST_CASE("for_each_node: reaches every function body of a program") {
  const auto k = Function::make("kernel", {}, {}, SeqStmts::make({BreakStmt::make()}));
  const auto m = Function::make("main", {}, {}, SeqStmts::make({ContinueStmt::make()}));
  int breaks = 0, continues = 0, functions = 0;
  for_each_node(Program::make("p", {m, k}), [&](const Node& n) {
    breaks += isa<BreakStmt>(n);
    continues += isa<ContinueStmt>(n);
    functions += isa<Function>(n);
  });
  CHECK(breaks == 1);
  CHECK(continues == 1);
  CHECK(functions == 2);
}

// Tests of the IR node catalog: every node kind's builder, its fields and kind relations, and
// the invariants each builder enforces (ValueError "<Node>.<field>: <problem>").
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>

#include "ir_samples.hpp"
#include "pypto/ir.hpp"

using namespace pypto::test;  // NOLINT
namespace core = pypto::core;
using doctest::Contains;

// ---- the catalog ------------------------------------------------------------------------------

TEST_CASE("ScalarType: one shared node per dtype") {
  CHECK(ScalarType::make(DataType::FP32) == ScalarType::make(DataType::FP32));
  CHECK(ScalarType::make(DataType::INDEX) != ScalarType::make(DataType::INT64));
  CHECK(ConstInt::make(1)->type == ConstInt::make(2)->type);
}

TEST_CASE("catalog: the sample set builds one node of every kind, in NodeKind order") {
  const auto nodes = one_node_of_each_kind();
  REQUIRE(nodes.size() == kNodeKindCount);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    CAPTURE(i);
    CHECK(static_cast<std::size_t>(nodes[i]->kind()) == i);
  }
}

TEST_CASE("catalog: kind_name is the class name of each concrete node and names are unique") {
  std::set<std::string_view> names;
#define PYPTO_X(T)                      \
  CHECK(kind_name(NodeKind::T) == #T);  \
  CHECK(T::class_name == #T);           \
  CHECK(T::static_kind == NodeKind::T); \
  names.insert(kind_name(NodeKind::T));
  PYPTO_IR_NODES(PYPTO_X)
#undef PYPTO_X
  CHECK(names.size() == kNodeKindCount);
  CHECK(kNodeKindCount == 73);
}

TEST_CASE("catalog: each concrete class accepts exactly its own kind") {
  const auto nodes = one_node_of_each_kind();
  for (const auto& n : nodes) {
    int matches = 0;
#define PYPTO_X(T) matches += T::classof(n->kind()) ? 1 : 0;
    PYPTO_IR_NODES(PYPTO_X)
#undef PYPTO_X
    CAPTURE(kind_name(n->kind()));
    // GlobalVar is also an Op, IterArg and WindowBuffer are also Vars: Op and Var are concrete
    // classes with subclasses.
    const bool has_concrete_base = n->kind() == NodeKind::GlobalVar ||
                                   n->kind() == NodeKind::IterArg ||
                                   n->kind() == NodeKind::WindowBuffer;
    CHECK(matches == (has_concrete_base ? 2 : 1));
  }
}

TEST_CASE("catalog: every node belongs to exactly one top-level family") {
  for (const auto& n : one_node_of_each_kind()) {
    CAPTURE(kind_name(n->kind()));
    const int families = isa<Type>(n) + isa<Expr>(n) + isa<Stmt>(n) + isa<Op>(n) +
                         isa<Function>(n) + isa<Program>(n);
    CHECK(families == 1);
  }
}

// ---- isa / as / cast --------------------------------------------------------------------------

TEST_CASE("isa: an IterArg and a WindowBuffer are Vars, a Var is neither") {
  const auto it = IterArg::make("acc", scalar(DataType::FP32), ConstFloat::make(0.0));
  CHECK(isa<Var>(it));
  CHECK(isa<Expr>(it));
  CHECK(isa<IterArg>(it));
  const auto w = WindowBuffer::make("w", idx(64));
  CHECK(isa<Var>(w));
  CHECK_FALSE(isa<IterArg>(w));
  const auto x = var("x");
  CHECK_FALSE(isa<IterArg>(x));
  CHECK_FALSE(isa<WindowBuffer>(x));
}

TEST_CASE("isa: binary kinds are BinaryExprs and unary kinds UnaryExprs, never both") {
  const ExprRef add = Add::make(idx(1), idx(2));
  CHECK(isa<BinaryExpr>(add));
  CHECK(isa<Add>(add));
  CHECK_FALSE(isa<Sub>(add));
  CHECK_FALSE(isa<UnaryExpr>(add));
  const ExprRef cast = Cast::make(idx(1), DataType::FP16);
  CHECK(isa<UnaryExpr>(cast));
  CHECK_FALSE(isa<BinaryExpr>(cast));
  CHECK_FALSE(isa<BinaryExpr>(idx(1)));
}

TEST_CASE("isa: the scope statements are ScopeStmts, other statements are not") {
  for (const auto& n : one_node_of_each_kind()) {
    CAPTURE(kind_name(n->kind()));
    const bool is_scope =
        n->kind() >= NodeKind::InCoreScopeStmt && n->kind() <= NodeKind::RuntimeScopeStmt;
    CHECK(isa<ScopeStmt>(n) == is_scope);
    if (is_scope) CHECK(isa<Stmt>(n));
  }
}

TEST_CASE("isa: TensorType and TileType are ShapedTypes, TupleType is not") {
  CHECK(isa<ShapedType>(tensor_64x128()));
  CHECK(isa<ShapedType>(TileType::make(DataType::FP16, {idx(16)})));
  CHECK_FALSE(isa<ShapedType>(task_tuple()));
  CHECK_FALSE(isa<ShapedType>(scalar(DataType::FP32)));
  CHECK(isa<Type>(tensor_64x128()));
}

TEST_CASE("isa: a GlobalVar is an Op, an Op is not a GlobalVar, neither is an Expr") {
  const NodeRef g = GlobalVar::make("f");
  const NodeRef o = Op::make("tile.add");
  CHECK(isa<Op>(g));
  CHECK(isa<GlobalVar>(g));
  CHECK(isa<Op>(o));
  CHECK_FALSE(isa<GlobalVar>(o));
  CHECK_FALSE(isa<Expr>(g));
  CHECK_FALSE(isa<Var>(g));
}

TEST_CASE("isa: a null handle is nothing") {
  ExprRef null;
  CHECK_FALSE(isa<Expr>(null));
  CHECK_FALSE(isa<Var>(null));
  CHECK(as<Var>(null) == nullptr);
}

TEST_CASE("as: returns the same object as the target class, or null") {
  const auto it = IterArg::make("acc", scalar(DataType::INDEX), idx(0));
  const ExprRef e = it;
  const auto v = as<Var>(e);
  REQUIRE(v);
  CHECK(v == it);
  CHECK(as<IterArg>(e) == it);
  CHECK(as<BinaryExpr>(e) == nullptr);
  CHECK(as<Var>(e.get()) == it.get());
  CHECK(as<ConstInt>(e.get()) == nullptr);
  CHECK(as<Var>(static_cast<const Node*>(nullptr)) == nullptr);
}

TEST_CASE("cast: succeeds to the node's class or a base and keeps identity") {
  const ExprRef e = Add::make(idx(1), idx(2));
  const auto b = cast<BinaryExpr>(e);
  CHECK(b == e);
  CHECK(b->left != nullptr);
  CHECK(cast<Add>(e) == e);
}

TEST_CASE("cast: a wrong kind throws TypeError naming the target and the actual class") {
  const ExprRef x = var("x");
  CHECK_THROWS_WITH_AS(cast<IterArg>(x), "cast to IterArg: node is a Var", core::TypeError);
  const ExprRef neg = Neg::make(idx(1));
  CHECK_THROWS_WITH_AS(cast<BinaryExpr>(neg), "cast to BinaryExpr: node is a Neg", core::TypeError);
  const NodeRef op = Op::make("tile.add");
  CHECK_THROWS_WITH_AS(cast<GlobalVar>(op), "cast to GlobalVar: node is a Op", core::TypeError);
}

TEST_CASE("cast: a null handle throws TypeError") {
  ExprRef null;
  CHECK_THROWS_WITH_AS(cast<Var>(null), "cast to Var: null node", core::TypeError);
}

// ---- types ------------------------------------------------------------------------------------

TEST_CASE("types: the fieldless types each have their own kind and no shape") {
  const TypeRef types[] = {UnknownType::make(),    MemRefType::make(),
                           PtrType::make(),        WindowBufferType::make(),
                           CommCtxType::make(),    PrefetchAsyncContextType::make(),
                           AsyncEventType::make(), AsyncSessionType::make()};
  const NodeKind kinds_[] = {NodeKind::UnknownType,    NodeKind::MemRefType,
                             NodeKind::PtrType,        NodeKind::WindowBufferType,
                             NodeKind::CommCtxType,    NodeKind::PrefetchAsyncContextType,
                             NodeKind::AsyncEventType, NodeKind::AsyncSessionType};
  for (std::size_t i = 0; i < std::size(types); ++i) {
    CHECK(types[i]->kind() == kinds_[i]);
    CHECK(isa<Type>(types[i]));
    CHECK_FALSE(isa<ShapedType>(types[i]));
  }
}

TEST_CASE("types: ScalarType holds its exact dtype") {
  const auto t = ScalarType::make(DataType::INDEX);
  CHECK(t->kind() == NodeKind::ScalarType);
  CHECK(t->dtype == DataType::INDEX);
  CHECK(ScalarType::make(DataType::INT64)->dtype != t->dtype);
}

TEST_CASE("types: TensorType holds dtype, shape, view and memref") {
  const auto n = var("n");
  TensorView view;
  view.stride = {idx(128), idx(1)};
  view.layout = TensorLayout::NZ;
  view.pad = PadValue::zero;
  const auto mem = MemRef::make(Var::make("base", PtrType::make()), idx(0), 32768);
  const auto t = TensorType::make(DataType::BF16, {n, idx(128)}, view, mem);
  CHECK(t->kind() == NodeKind::TensorType);
  CHECK(t->dtype == DataType::BF16);
  CHECK(t->rank() == 2);
  CHECK(t->shape[0] == n);
  REQUIRE(t->tensor_view.has_value());
  CHECK(t->tensor_view->layout == TensorLayout::NZ);
  CHECK(t->tensor_view->stride.size() == 2);
  CHECK(t->memref == mem);
  CHECK_FALSE(TensorType::make(DataType::FP32, {})->tensor_view.has_value());
}

TEST_CASE("types: a TensorType dimension must be a non-null integer scalar") {
  CHECK_THROWS_WITH_AS(TensorType::make(DataType::FP32, {idx(4), ConstFloat::make(2.0)}),
                       Contains("TensorType.shape[1]: a dimension must be an integer scalar"),
                       core::ValueError);
  CHECK_THROWS_WITH_AS(TensorType::make(DataType::FP32, {ExprRef()}),
                       Contains("TensorType.shape[0]: a dimension must not be null"),
                       core::ValueError);
  CHECK_THROWS_WITH_AS(TensorType::make(DataType::FP32, {true_()}), Contains("TensorType.shape[0]"),
                       core::ValueError);
}

TEST_CASE("types: a TensorView's stride and valid_shape must match the rank") {
  TensorView short_stride;
  short_stride.stride = {idx(1)};
  CHECK_THROWS_WITH_AS(TensorType::make(DataType::FP32, {idx(4), idx(4)}, short_stride),
                       Contains("TensorType.tensor_view.stride: has 1 entries for a rank-2 shape"),
                       core::ValueError);
  TensorView bad_valid;
  bad_valid.valid_shape = {idx(1), ConstFloat::make(1.0)};
  CHECK_THROWS_WITH_AS(TensorType::make(DataType::FP32, {idx(4), idx(4)}, bad_valid),
                       Contains("TensorType.tensor_view.valid_shape[1]"), core::ValueError);
}

TEST_CASE("types: TileType holds memory space and tile view") {
  TileView view;
  view.valid_shape = {idx(8), idx(16)};
  view.start_offset = idx(0);
  view.blayout = TileLayout::col_major;
  view.fractal = 1024;
  const auto t = TileType::make(DataType::FP16, {idx(16), idx(16)}, MemorySpace::Left, view);
  CHECK(t->kind() == NodeKind::TileType);
  CHECK(t->dtype == DataType::FP16);
  CHECK(t->memory_space == MemorySpace::Left);
  REQUIRE(t->tile_view.has_value());
  CHECK(t->tile_view->fractal == 1024);
  CHECK(t->tile_view->blayout == TileLayout::col_major);
  CHECK(t->memref == nullptr);
  CHECK_FALSE(TileType::make(DataType::FP16, {idx(1)})->memory_space.has_value());
}

TEST_CASE("types: a TileView is checked against the tile's rank and value rules") {
  const std::vector<ExprRef> shape = {idx(16), idx(16)};
  TileView bad_valid;
  bad_valid.valid_shape = {idx(8)};
  CHECK_THROWS_WITH_AS(TileType::make(DataType::FP16, shape, MemorySpace::Vec, bad_valid),
                       Contains("TileType.tile_view.valid_shape"), core::ValueError);
  TileView bad_stride;
  bad_stride.stride = {idx(16), idx(1), idx(1)};
  CHECK_THROWS_WITH_AS(TileType::make(DataType::FP16, shape, MemorySpace::Vec, bad_stride),
                       Contains("TileType.tile_view.stride"), core::ValueError);
  TileView bad_offset;
  bad_offset.start_offset = ConstFloat::make(0.0);
  CHECK_THROWS_WITH_AS(TileType::make(DataType::FP16, shape, MemorySpace::Vec, bad_offset),
                       Contains("TileType.tile_view.start_offset"), core::ValueError);
  TileView zero_fractal;
  zero_fractal.fractal = 0;
  CHECK_THROWS_WITH_AS(TileType::make(DataType::FP16, shape, MemorySpace::Vec, zero_fractal),
                       Contains("TileType.tile_view.fractal: must be positive"), core::ValueError);
  CHECK_THROWS_WITH_AS(TileType::make(DataType::FP16, {idx(16), var("f", DataType::FP32)}),
                       Contains("TileType.shape[1]"), core::ValueError);
}

TEST_CASE("types: TupleType holds its element types in order and rejects a null one") {
  const auto t = TupleType::make({scalar(DataType::FP32), scalar(DataType::TASK_ID)});
  CHECK(t->kind() == NodeKind::TupleType);
  REQUIRE(t->types.size() == 2);
  CHECK(cast<ScalarType>(t->types[1])->dtype == DataType::TASK_ID);
  CHECK(TupleType::make({})->types.empty());
  CHECK_THROWS_WITH_AS(TupleType::make({scalar(DataType::FP32), TypeRef()}),
                       Contains("TupleType.types[1]: must not be null"), core::ValueError);
}

// ---- variables and storage --------------------------------------------------------------------

TEST_CASE("Var: holds name hint, type and span, each Var is a distinct identity") {
  core::Span span;
  span.line = 4;
  span.column = 2;
  const auto a = Var::make("x", scalar(DataType::INT32), span);
  const auto b = Var::make("x", scalar(DataType::INT32));
  CHECK(a->kind() == NodeKind::Var);
  CHECK(a->name_hint == "x");
  CHECK(cast<ScalarType>(a->type)->dtype == DataType::INT32);
  CHECK(a->span.line == 4);
  CHECK(a != b);
  CHECK(a->uid != b->uid);
  CHECK(a->uid < b->uid);  // creation order
}

TEST_CASE("Var: a variable needs a type") {
  CHECK_THROWS_WITH_AS(Var::make("x", nullptr), Contains("Var.type: a variable needs a type"),
                       core::ValueError);
}

TEST_CASE("IterArg: holds its init value and needs one") {
  const auto init = ConstFloat::make(0.0);
  const auto it = IterArg::make("acc", scalar(DataType::FP32), init);
  CHECK(it->kind() == NodeKind::IterArg);
  CHECK(it->name_hint == "acc");
  CHECK(it->init_value == init);
  CHECK_THROWS_WITH_AS(IterArg::make("acc", scalar(DataType::FP32), nullptr),
                       Contains("IterArg.init_value"), core::ValueError);
  CHECK_THROWS_WITH_AS(IterArg::make("acc", nullptr, init), Contains("IterArg.type"),
                       core::ValueError);
}

TEST_CASE("WindowBuffer: a Var of WindowBufferType with storage fields") {
  const auto base = var("buf");
  const auto w = WindowBuffer::make("win", idx(4096), base, true, false);
  CHECK(w->kind() == NodeKind::WindowBuffer);
  CHECK(isa<WindowBufferType>(w->type));
  CHECK(w->name_hint == "win");
  CHECK(w->base == base);
  CHECK(w->load_from_host);
  CHECK_FALSE(w->store_to_host);
  CHECK_THROWS_WITH_AS(WindowBuffer::make("win", ConstFloat::make(1.0)),
                       Contains("WindowBuffer.size"), core::ValueError);
  CHECK_THROWS_WITH_AS(WindowBuffer::make("win", nullptr), Contains("WindowBuffer.size"),
                       core::ValueError);
}

TEST_CASE("MemRef: an allocation view of MemRefType with its storage fields") {
  const auto base = Var::make("base", PtrType::make());
  const auto slot = var("slot");
  const auto m = MemRef::make(base, idx(256), 8192, true, 2, slot);
  CHECK(m->kind() == NodeKind::MemRef);
  CHECK(isa<Expr>(m));
  CHECK_FALSE(isa<Var>(m));
  CHECK(isa<MemRefType>(m->type));
  CHECK(m->base == base);
  CHECK(cast<ConstInt>(m->byte_offset)->value == 256);
  CHECK(m->size == 8192);
  CHECK(m->is_pinned);
  CHECK(m->slot_count == 2);
  CHECK(m->slot_index == slot);
}

TEST_CASE("MemRef: base, byte offset, slot count and slot index are checked") {
  const auto base = Var::make("base", PtrType::make());
  CHECK_THROWS_WITH_AS(MemRef::make(nullptr, idx(0), 16), Contains("MemRef.base"),
                       core::ValueError);
  CHECK_THROWS_WITH_AS(MemRef::make(base, ConstFloat::make(0.0), 16),
                       Contains("MemRef.byte_offset"), core::ValueError);
  CHECK_THROWS_WITH_AS(MemRef::make(base, idx(0), 16, false, 0),
                       Contains("MemRef.slot_count: must be at least 1"), core::ValueError);
  CHECK_THROWS_WITH_AS(MemRef::make(base, idx(0), 16, false, 2, true_()),
                       Contains("MemRef.slot_index"), core::ValueError);
}

// ---- constants --------------------------------------------------------------------------------

TEST_CASE("ConstInt: defaults to INDEX and keeps an explicit dtype exactly") {
  const auto c = ConstInt::make(42);
  CHECK(c->kind() == NodeKind::ConstInt);
  CHECK(c->value == 42);
  CHECK(c->dtype() == DataType::INDEX);
  CHECK(ConstInt::make(42, DataType::INT64)->dtype() == DataType::INT64);
  CHECK(ConstInt::make(3, DataType::UINT8)->dtype() == DataType::UINT8);
}

TEST_CASE("ConstInt: a non-integer dtype is rejected") {
  for (DataType t : {DataType::BOOL, DataType::FP32, DataType::BF16, DataType::TASK_ID}) {
    CAPTURE(core::dtype_name(t));
    CHECK_THROWS_WITH_AS(ConstInt::make(0, t), Contains("ConstInt.type"), core::ValueError);
  }
  CHECK_THROWS_WITH_AS(ConstInt::make(0, DataType::FP16),
                       "ConstInt.type: dtype FP16 is not an integer type", core::ValueError);
}

TEST_CASE("ConstInt: the value must fit the dtype (limits accepted, one past rejected)") {
  struct Range {
    DataType dtype;
    std::int64_t min, max;
  };
  const Range ranges[] = {
      {DataType::INT4, -8, 7},
      {DataType::INT8, -128, 127},
      {DataType::INT16, -32768, 32767},
      {DataType::INT32, std::numeric_limits<std::int32_t>::min(),
       std::numeric_limits<std::int32_t>::max()},
      {DataType::UINT4, 0, 15},
      {DataType::UINT8, 0, 255},
      {DataType::UINT16, 0, 65535},
      {DataType::UINT32, 0, std::int64_t{0xffffffff}},
  };
  for (const auto& r : ranges) {
    CAPTURE(core::dtype_name(r.dtype));
    CHECK(ConstInt::make(r.min, r.dtype)->value == r.min);
    CHECK(ConstInt::make(r.max, r.dtype)->value == r.max);
    CHECK_THROWS_WITH_AS(ConstInt::make(r.min - 1, r.dtype), Contains("ConstInt.value"),
                         core::ValueError);
    CHECK_THROWS_WITH_AS(ConstInt::make(r.max + 1, r.dtype), Contains("ConstInt.value"),
                         core::ValueError);
  }
  CHECK_THROWS_WITH_AS(ConstInt::make(300, DataType::UINT8),
                       "ConstInt.value: 300 does not fit UINT8", core::ValueError);
}

TEST_CASE("ConstInt: 64-bit dtypes take the whole int64 range, UINT64 rejects negatives") {
  constexpr auto lo = std::numeric_limits<std::int64_t>::min();
  constexpr auto hi = std::numeric_limits<std::int64_t>::max();
  for (DataType t : {DataType::INT64, DataType::INDEX}) {
    CHECK(ConstInt::make(lo, t)->value == lo);
    CHECK(ConstInt::make(hi, t)->value == hi);
  }
  CHECK(ConstInt::make(hi, DataType::UINT64)->value == hi);
  CHECK(ConstInt::make(0, DataType::UINT64)->value == 0);
  CHECK_THROWS_WITH_AS(ConstInt::make(-1, DataType::UINT64), Contains("ConstInt.value"),
                       core::ValueError);
}

TEST_CASE("ConstFloat: defaults to FP32, accepts every float dtype, keeps the exact bits") {
  const auto c = ConstFloat::make(2.5);
  CHECK(c->kind() == NodeKind::ConstFloat);
  CHECK(c->dtype() == DataType::FP32);
  CHECK(c->value == 2.5);
  for (DataType t :
       {DataType::FP4, DataType::FP8E4M3FN, DataType::FP8E5M2, DataType::FP16, DataType::FP32,
        DataType::FP8E8M0, DataType::BF16, DataType::HF4, DataType::HF8}) {
    CAPTURE(core::dtype_name(t));
    CHECK(ConstFloat::make(1.0, t)->dtype() == t);
  }
  const auto neg_zero = ConstFloat::make(-0.0);
  CHECK(std::signbit(neg_zero->value));
  CHECK(std::isnan(ConstFloat::make(std::nan(""))->value));
}

TEST_CASE("ConstFloat: a non-float dtype is rejected") {
  for (DataType t : {DataType::BOOL, DataType::INT32, DataType::INDEX, DataType::TASK_ID}) {
    CAPTURE(core::dtype_name(t));
    CHECK_THROWS_WITH_AS(ConstFloat::make(1.0, t), Contains("ConstFloat.type"), core::ValueError);
  }
}

TEST_CASE("ConstBool: a BOOL scalar") {
  const auto c = ConstBool::make(true);
  CHECK(c->kind() == NodeKind::ConstBool);
  CHECK(c->value);
  CHECK(cast<ScalarType>(c->type)->dtype == DataType::BOOL);
  CHECK_FALSE(ConstBool::make(false)->value);
}

// ---- scalar arithmetic ------------------------------------------------------------------------

TEST_CASE("binary: every kind builds with its operator class's operands and result dtype"){
#define PYPTO_X(T)                                                                              \
  {                                                                                             \
    CAPTURE(#T);                                                                                \
    const auto l = operand_for(NodeKind::T, 1);                                                 \
    const auto r = operand_for(NodeKind::T, 2);                                                 \
    const auto n = T::make(l, r);                                                               \
    CHECK(n->kind() == NodeKind::T);                                                            \
    CHECK(isa<BinaryExpr>(n));                                                                  \
    CHECK(n->left == l);                                                                        \
    CHECK(n->right == r);                                                                       \
    const auto cls = operator_class(NodeKind::T);                                               \
    const DataType expected = cls == OperatorClass::Comparison || cls == OperatorClass::Logical \
                                  ? DataType::BOOL                                              \
                                  : DataType::INDEX;                                            \
    CHECK(cast<ScalarType>(n->type)->dtype == expected);                                        \
  }
    PYPTO_IR_BINARY_NODES(PYPTO_X)
#undef PYPTO_X
}

TEST_CASE("binary: operator classes of the kinds") {
  CHECK(operator_class(NodeKind::Add) == OperatorClass::Arithmetic);
  CHECK(operator_class(NodeKind::FloorDiv) == OperatorClass::Arithmetic);
  CHECK(operator_class(NodeKind::Pow) == OperatorClass::Arithmetic);
  CHECK(operator_class(NodeKind::Ge) == OperatorClass::Comparison);
  CHECK(operator_class(NodeKind::Ne) == OperatorClass::Comparison);
  CHECK(operator_class(NodeKind::Xor) == OperatorClass::Logical);
  CHECK(operator_class(NodeKind::Not) == OperatorClass::Logical);
  CHECK(operator_class(NodeKind::BitShiftRight) == OperatorClass::Bitwise);
  CHECK(operator_class(NodeKind::BitNot) == OperatorClass::Bitwise);
  CHECK(operator_class(NodeKind::Neg) == OperatorClass::Arithmetic);
}

TEST_CASE("binary: arithmetic keeps the operand dtype, comparison of floats yields BOOL") {
  const auto f = var("f", DataType::FP16);
  CHECK(cast<ScalarType>(Mul::make(f, f)->type)->dtype == DataType::FP16);
  CHECK(cast<ScalarType>(Lt::make(f, f)->type)->dtype == DataType::BOOL);
  const auto u = var("u", DataType::UINT32);
  CHECK(cast<ScalarType>(BitXor::make(u, u)->type)->dtype == DataType::UINT32);
}

TEST_CASE("binary: operands of different dtypes are rejected, but for INDEX beside INT64") {
  CHECK_THROWS_WITH_AS(Add::make(var("w", DataType::INT32), ConstInt::make(1, DataType::INT64)),
                       "Add.right: operand dtypes differ (INT32 vs INT64); insert a Cast",
                       core::ValueError);
  CHECK_THROWS_WITH_AS(Eq::make(var("a", DataType::FP32), var("b", DataType::FP16)),
                       Contains("Eq.right: operand dtypes differ"), core::ValueError);
  // One 64-bit word under two names: taken mixed, the left operand typing the result.
  CHECK(cast<ScalarType>(Add::make(idx(1), ConstInt::make(1, DataType::INT64))->type)->dtype ==
        DataType::INDEX);
  CHECK(cast<ScalarType>(Sub::make(var("n", DataType::INT64), idx(1))->type)->dtype ==
        DataType::INT64);
  CHECK(cast<ScalarType>(Lt::make(idx(1), var("n", DataType::INT64))->type)->dtype ==
        DataType::BOOL);
}

TEST_CASE("binary: promote_operands casts the narrower operand as upstream's builders do") {
  const auto w = var("w", DataType::INT32);
  const auto n = var("n", DataType::INT64);
  const ExprRef wide = make_promoted<NodeKind::Add>(w, n);
  const auto& add = static_cast<const Add&>(*wide);
  REQUIRE(isa<Cast>(add.left));
  CHECK(cast<Cast>(add.left)->target() == DataType::INT64);
  CHECK(add.right == n);
  // No Cast between INDEX and INT64; the left wins at one width.
  const ExprRef mixed = make_promoted<NodeKind::Lt>(idx(1), n);
  CHECK_FALSE(isa<Cast>(static_cast<const Lt&>(*mixed).left));
  CHECK_FALSE(isa<Cast>(static_cast<const Lt&>(*mixed).right));
  const ExprRef same_width = make_promoted<NodeKind::Mul>(w, var("u", DataType::UINT32));
  CHECK(cast<ScalarType>(same_width->type)->dtype == DataType::INT32);
  // An integer beside a float is left to the node to reject.
  CHECK_THROWS_AS(make_promoted<NodeKind::Add>(w, var("f", DataType::FP32)), core::ValueError);
}

TEST_CASE("binary: a null or non-scalar operand is rejected, naming the side") {
  CHECK_THROWS_WITH_AS(Sub::make(nullptr, idx(1)), "Sub.left: must not be null", core::ValueError);
  CHECK_THROWS_WITH_AS(Sub::make(idx(1), nullptr), "Sub.right: must not be null", core::ValueError);
  const auto t = Var::make("t", tensor_64x128());
  CHECK_THROWS_WITH_AS(Mul::make(t, t), "Mul.left: must be a scalar expression", core::ValueError);
}

TEST_CASE("binary: logical operators need BOOL operands") {
  CHECK(And::make(true_(), true_())->kind() == NodeKind::And);
  CHECK_THROWS_WITH_AS(And::make(idx(1), idx(0)),
                       "And.operand: logical operators need BOOL operands", core::ValueError);
  CHECK_THROWS_WITH_AS(Or::make(idx(1), idx(0)), Contains("Or.operand"), core::ValueError);
  CHECK_THROWS_WITH_AS(Xor::make(var("f", DataType::FP32), var("g", DataType::FP32)),
                       Contains("Xor.operand"), core::ValueError);
}

TEST_CASE("binary: bitwise operators need integer operands") {
  CHECK_THROWS_WITH_AS(BitAnd::make(var("f", DataType::FP32), var("g", DataType::FP32)),
                       "BitAnd.operand: bitwise operators need integer operands", core::ValueError);
  CHECK_THROWS_WITH_AS(BitShiftLeft::make(true_(), true_()), Contains("BitShiftLeft.operand"),
                       core::ValueError);
}

TEST_CASE("binary: arithmetic rejects BOOL and TASK_ID operands") {
  CHECK_THROWS_WITH_AS(Add::make(true_(), true_()),
                       "Add.operand: arithmetic needs numeric operands, got BOOL",
                       core::ValueError);
  const auto t = var("t", DataType::TASK_ID);
  CHECK_THROWS_WITH_AS(Max::make(t, t), Contains("Max.operand"), core::ValueError);
  CHECK(Eq::make(t, t)->kind() == NodeKind::Eq);  // task ids compare
}

TEST_CASE("unary: Abs, Neg, Not, BitNot type their operand like the binary classes") {
  const auto f = var("f", DataType::FP32);
  const auto a = Abs::make(f);
  CHECK(a->kind() == NodeKind::Abs);
  CHECK(isa<UnaryExpr>(a));
  CHECK(a->operand == f);
  CHECK(cast<ScalarType>(a->type)->dtype == DataType::FP32);
  CHECK(Neg::make(idx(1))->kind() == NodeKind::Neg);
  CHECK(cast<ScalarType>(Not::make(true_())->type)->dtype == DataType::BOOL);
  CHECK(cast<ScalarType>(Not::make(idx(1))->type)->dtype == DataType::BOOL);  // its truth value
  CHECK(cast<ScalarType>(BitNot::make(var("u", DataType::UINT8))->type)->dtype == DataType::UINT8);
}

TEST_CASE("unary: operand rules (BitNot needs integers, Neg numbers)") {
  CHECK_THROWS_WITH_AS(BitNot::make(var("h", DataType::FP16)), Contains("BitNot.operand"),
                       core::ValueError);
  CHECK_THROWS_WITH_AS(Neg::make(true_()), Contains("Neg.operand"), core::ValueError);
  CHECK_THROWS_WITH_AS(Abs::make(nullptr), "Abs.operand: must not be null", core::ValueError);
}

TEST_CASE("Cast: the target dtype is the result type, the operand must be a scalar") {
  const auto c = Cast::make(idx(3), DataType::INT64);
  CHECK(c->kind() == NodeKind::Cast);
  CHECK(isa<UnaryExpr>(c));
  CHECK(c->target() == DataType::INT64);
  CHECK(cast<ScalarType>(c->type)->dtype == DataType::INT64);
  CHECK_THROWS_WITH_AS(Cast::make(nullptr, DataType::FP32), Contains("Cast.operand"),
                       core::ValueError);
  CHECK_THROWS_WITH_AS(Cast::make(Var::make("t", tensor_64x128()), DataType::FP32),
                       "Cast.operand: must be a scalar expression", core::ValueError);
}

// ---- calls and submits ------------------------------------------------------------------------

TEST_CASE("Call: holds callee, args, result type, kwargs and attrs") {
  const auto op = Op::make("tile.load");
  const auto t = var("t");
  const auto c = Call::make(op, {t, idx(0)}, tensor_64x128(), Attrs{{"target_memory", 1}},
                            Attrs{{"arg_directions", AttrValueList{ArgDirection::Input}}});
  CHECK(c->kind() == NodeKind::Call);
  CHECK(c->op == op);
  CHECK(c->op->name == "tile.load");
  REQUIRE(c->args.size() == 2);
  CHECK(c->args[0] == t);
  CHECK(isa<TensorType>(c->type));
  CHECK(c->kwargs.get<std::int64_t>("target_memory") == 1);
  CHECK(c->attrs.contains("arg_directions"));
  const auto g = Call::make(GlobalVar::make("kernel"), {}, UnknownType::make());
  CHECK(isa<GlobalVar>(g->op));
}

TEST_CASE("Call: callee, result type and args must be present") {
  CHECK_THROWS_WITH_AS(Call::make(nullptr, {}, tensor_64x128()), Contains("Call.op"),
                       core::ValueError);
  CHECK_THROWS_WITH_AS(Call::make(Op::make("tile.add"), {}, nullptr), Contains("Call.type"),
                       core::ValueError);
  CHECK_THROWS_WITH_AS(Call::make(Op::make("tile.add"), {idx(1), nullptr}, tensor_64x128()),
                       "Call.args[1]: must not be null", core::ValueError);
}

TEST_CASE("Submit: holds callee, args, deps and launch options") {
  const auto dep = var("tid", DataType::TASK_ID);
  const auto pred = var("p", DataType::BOOL);
  SubmitLaunch launch;
  launch.deps = {dep};
  launch.core_num = idx(24);
  launch.sync_start = true;
  launch.predicate = pred;
  const auto s = Submit::make(GlobalVar::make("kernel"), {var("a")}, task_tuple(), launch);
  CHECK(s->kind() == NodeKind::Submit);
  CHECK(s->op->name == "kernel");
  CHECK(s->args.size() == 1);
  REQUIRE(s->deps.size() == 1);
  CHECK(s->deps[0] == dep);
  CHECK(cast<ConstInt>(s->core_num)->value == 24);
  CHECK(s->sync_start);
  CHECK_FALSE(s->allow_early_resolve);
  CHECK(s->predicate == pred);
}

TEST_CASE("Submit: the result type must be a tuple ending with Scalar[TASK_ID]") {
  const auto g = GlobalVar::make("kernel");
  CHECK(
      Submit::make(g, {}, TupleType::make({tensor_64x128(), scalar(DataType::TASK_ID)}))->kind() ==
      NodeKind::Submit);
  CHECK_THROWS_WITH_AS(Submit::make(g, {}, TupleType::make({scalar(DataType::INDEX)})),
                       "Submit.type: the result must be a tuple ending with Scalar[TASK_ID]",
                       core::ValueError);
  CHECK_THROWS_WITH_AS(
      Submit::make(g, {}, TupleType::make({scalar(DataType::TASK_ID), tensor_64x128()})),
      Contains("Submit.type"), core::ValueError);
  CHECK_THROWS_WITH_AS(Submit::make(g, {}, TupleType::make({})), Contains("Submit.type"),
                       core::ValueError);
  CHECK_THROWS_WITH_AS(Submit::make(g, {}, scalar(DataType::TASK_ID)), Contains("Submit.type"),
                       core::ValueError);
  CHECK_THROWS_WITH_AS(Submit::make(g, {}, nullptr), Contains("Submit.type"), core::ValueError);
  CHECK_THROWS_WITH_AS(Submit::make(nullptr, {}, task_tuple()), Contains("Submit.op"),
                       core::ValueError);
}

TEST_CASE("Submit: every dependency must be a TASK_ID or an array of them") {
  SubmitLaunch launch;
  launch.deps = {var("t0", DataType::TASK_ID), idx(3)};
  CHECK_THROWS_WITH_AS(Submit::make(GlobalVar::make("k"), {}, task_tuple(), launch),
                       "Submit.deps[1]: a dependency must be a TASK_ID or an array of them",
                       core::ValueError);
  launch.deps = {Var::make("fence", ArrayType::make(DataType::TASK_ID, 4))};
  CHECK_NOTHROW(Submit::make(GlobalVar::make("k"), {}, task_tuple(), launch));
  launch.deps = {Var::make("counts", ArrayType::make(DataType::INT32, 4))};
  CHECK_THROWS_WITH_AS(Submit::make(GlobalVar::make("k"), {}, task_tuple(), launch),
                       "Submit.deps[0]: a dependency must be a TASK_ID or an array of them",
                       core::ValueError);
  launch.deps = {var("t0", DataType::TASK_ID), idx(3)};
  SubmitLaunch null_dep;
  null_dep.deps = {nullptr};
  CHECK_THROWS_WITH_AS(Submit::make(GlobalVar::make("k"), {}, task_tuple(), null_dep),
                       Contains("Submit.deps[0]"), core::ValueError);
}

TEST_CASE("Submit: core_num must be an integer and the predicate a BOOL") {
  SubmitLaunch bad_cores;
  bad_cores.core_num = ConstFloat::make(4.0);
  CHECK_THROWS_WITH_AS(Submit::make(GlobalVar::make("k"), {}, task_tuple(), bad_cores),
                       Contains("Submit.core_num"), core::ValueError);
  SubmitLaunch bad_pred;
  bad_pred.predicate = idx(1);
  CHECK_THROWS_WITH_AS(Submit::make(GlobalVar::make("k"), {}, task_tuple(), bad_pred),
                       Contains("Submit.predicate"), core::ValueError);
  CHECK_THROWS_WITH_AS(Submit::make(GlobalVar::make("k"), {nullptr}, task_tuple()),
                       Contains("Submit.args[0]"), core::ValueError);
}

// ---- tuples -----------------------------------------------------------------------------------

TEST_CASE("MakeTuple: its type is the tuple of its elements' types") {
  const auto a = var("a", DataType::FP32);
  const auto b = var("b", DataType::INT8);
  const auto t = MakeTuple::make({a, b});
  CHECK(t->kind() == NodeKind::MakeTuple);
  CHECK(t->elements.size() == 2);
  const auto tt = cast<TupleType>(t->type);
  REQUIRE(tt->types.size() == 2);
  CHECK(tt->types[0] == a->type);
  CHECK(tt->types[1] == b->type);
  CHECK_THROWS_WITH_AS(MakeTuple::make({a, nullptr}), "MakeTuple.elements[1]: must not be null",
                       core::ValueError);
}

TEST_CASE("TupleGetItem: its type is the selected element's type") {
  const auto tup = MakeTuple::make({idx(1), true_()});
  const auto g = TupleGetItem::make(tup, 1);
  CHECK(g->kind() == NodeKind::TupleGetItem);
  CHECK(g->tuple == tup);
  CHECK(g->index == 1);
  CHECK(cast<ScalarType>(g->type)->dtype == DataType::BOOL);
}

TEST_CASE("TupleGetItem: the index must be in range and the operand a tuple") {
  const auto tup = MakeTuple::make({idx(1), true_()});
  CHECK_THROWS_WITH_AS(TupleGetItem::make(tup, 2),
                       "TupleGetItem.index: 2 is out of range for a 2-element tuple",
                       core::ValueError);
  CHECK_THROWS_WITH_AS(TupleGetItem::make(tup, -1), Contains("TupleGetItem.index"),
                       core::ValueError);
  CHECK_THROWS_WITH_AS(TupleGetItem::make(MakeTuple::make({}), 0), Contains("TupleGetItem.index"),
                       core::ValueError);
  CHECK_THROWS_WITH_AS(TupleGetItem::make(idx(1), 0), "TupleGetItem.tuple: must have a tuple type",
                       core::ValueError);
  CHECK_THROWS_WITH_AS(TupleGetItem::make(nullptr, 0), Contains("TupleGetItem.tuple"),
                       core::ValueError);
}

// ---- callees ----------------------------------------------------------------------------------

TEST_CASE("Op and GlobalVar: named callees, an empty name is rejected") {
  const auto op = Op::make("tile.store");
  CHECK(op->kind() == NodeKind::Op);
  CHECK(op->name == "tile.store");
  const auto g = GlobalVar::make("kernel_0");
  CHECK(g->kind() == NodeKind::GlobalVar);
  CHECK(g->name == "kernel_0");
  CHECK_THROWS_WITH_AS(Op::make(""), "Op.name: must not be empty", core::ValueError);
  CHECK_THROWS_WITH_AS(GlobalVar::make(""), "GlobalVar.name: must not be empty", core::ValueError);
}

// ---- statements -------------------------------------------------------------------------------

TEST_CASE("AssignStmt: defines var with value, both are required") {
  const auto x = var("x");
  const auto v = idx(1);
  const auto s = AssignStmt::make(x, v);
  CHECK(s->kind() == NodeKind::AssignStmt);
  CHECK(isa<Stmt>(s));
  CHECK(s->var == x);
  CHECK(s->value == v);
  CHECK(s->leading_comments.empty());
  CHECK_THROWS_WITH_AS(AssignStmt::make(nullptr, v), "AssignStmt.var: must not be null",
                       core::ValueError);
  CHECK_THROWS_WITH_AS(AssignStmt::make(x, nullptr), "AssignStmt.value: must not be null",
                       core::ValueError);
}

TEST_CASE("EvalStmt: holds an expression, a null one is rejected") {
  const auto e = idx(1);
  CHECK(EvalStmt::make(e)->expr == e);
  CHECK(EvalStmt::make(e)->kind() == NodeKind::EvalStmt);
  CHECK_THROWS_WITH_AS(EvalStmt::make(nullptr), "EvalStmt.expr: must not be null",
                       core::ValueError);
}

TEST_CASE("SeqStmts: holds statements in order, a null one is rejected") {
  const auto a = BreakStmt::make();
  const auto b = ContinueStmt::make();
  const auto s = SeqStmts::make({a, b});
  CHECK(s->kind() == NodeKind::SeqStmts);
  REQUIRE(s->stmts.size() == 2);
  CHECK(s->stmts[0] == a);
  CHECK(s->stmts[1] == b);
  CHECK_THROWS_WITH_AS(SeqStmts::make({a, nullptr}), "SeqStmts.stmts[1]: must not be null",
                       core::ValueError);
}

TEST_CASE("ForStmt: holds loop var, bounds, iter_args, body, return vars, kind and attrs") {
  const auto i = var("i");
  const auto acc = IterArg::make("acc", scalar(DataType::FP32), ConstFloat::make(0.0));
  const auto out = var("out", DataType::FP32);
  const auto body = YieldStmt::make({acc});
  const auto s = ForStmt::make(i, idx(0), idx(16), idx(2), {acc}, body, {out}, ForKind::Pipeline,
                               Attrs{{"pipeline_stages", 2}});
  CHECK(s->kind() == NodeKind::ForStmt);
  CHECK(s->loop_var == i);
  CHECK(cast<ConstInt>(s->stop)->value == 16);
  CHECK(cast<ConstInt>(s->step)->value == 2);
  REQUIRE(s->iter_args.size() == 1);
  CHECK(s->iter_args[0] == acc);
  CHECK(s->body == body);
  REQUIRE(s->return_vars.size() == 1);
  CHECK(s->return_vars[0] == out);
  CHECK(s->for_kind == ForKind::Pipeline);
  CHECK(s->attrs.get<std::int64_t>("pipeline_stages") == 2);
}

TEST_CASE("ForStmt: loop var and bounds must be integer scalars") {
  const auto body = empty_body();
  CHECK_THROWS_WITH_AS(ForStmt::make(nullptr, idx(0), idx(4), idx(1), {}, body, {}),
                       "ForStmt.loop_var: must not be null", core::ValueError);
  CHECK_THROWS_WITH_AS(
      ForStmt::make(var("f", DataType::FP32), idx(0), idx(4), idx(1), {}, body, {}),
      "ForStmt.loop_var: must be an integer scalar variable", core::ValueError);
  CHECK_THROWS_WITH_AS(ForStmt::make(var("i"), ConstFloat::make(0.0), idx(4), idx(1), {}, body, {}),
                       Contains("ForStmt.start"), core::ValueError);
  CHECK_THROWS_WITH_AS(ForStmt::make(var("i"), idx(0), nullptr, idx(1), {}, body, {}),
                       Contains("ForStmt.stop"), core::ValueError);
  CHECK_THROWS_WITH_AS(ForStmt::make(var("i"), idx(0), idx(4), true_(), {}, body, {}),
                       Contains("ForStmt.step"), core::ValueError);
  CHECK_THROWS_WITH_AS(ForStmt::make(var("i"), idx(0), idx(4), idx(1), {}, nullptr, {}),
                       "ForStmt.body: must not be null", core::ValueError);
}

TEST_CASE("ForStmt: one return var per iter_arg") {
  const auto acc = IterArg::make("acc", scalar(DataType::INDEX), idx(0));
  CHECK_THROWS_WITH_AS(
      ForStmt::make(var("i"), idx(0), idx(4), idx(1), {acc}, empty_body(), {}),
      "ForStmt.return_vars: needs one return var per iter_arg (1 iter_args, 0 return vars)",
      core::ValueError);
  CHECK_THROWS_WITH_AS(
      ForStmt::make(var("i"), idx(0), idx(4), idx(1), {}, empty_body(), {var("r")}),
      Contains("ForStmt.return_vars"), core::ValueError);
  CHECK_THROWS_WITH_AS(
      ForStmt::make(var("i"), idx(0), idx(4), idx(1), {nullptr}, empty_body(), {var("r")}),
      Contains("ForStmt.iter_args[0]: must not be null"), core::ValueError);
  CHECK_THROWS_WITH_AS(
      ForStmt::make(var("i"), idx(0), idx(4), idx(1), {acc}, empty_body(), {nullptr}),
      Contains("ForStmt.return_vars[0]: must not be null"), core::ValueError);
}

TEST_CASE("ForStmt: an unrolled loop cannot carry values") {
  const auto acc = IterArg::make("acc", scalar(DataType::INDEX), idx(0));
  CHECK_THROWS_WITH_AS(ForStmt::make(var("i"), idx(0), idx(4), idx(1), {acc}, empty_body(),
                                     {var("r")}, ForKind::Unroll),
                       "ForStmt.iter_args: an unrolled loop cannot carry values", core::ValueError);
  CHECK(ForStmt::make(var("i"), idx(0), idx(4), idx(1), {}, empty_body(), {}, ForKind::Unroll)
            ->for_kind == ForKind::Unroll);
}

TEST_CASE("WhileStmt: holds iter_args, condition, body and return vars") {
  const auto n = IterArg::make("n", scalar(DataType::INDEX), idx(10));
  const auto cond = Gt::make(n, idx(0));
  const auto r = var("r");
  const auto s = WhileStmt::make({n}, cond, YieldStmt::make({n}), {r});
  CHECK(s->kind() == NodeKind::WhileStmt);
  CHECK(s->iter_args[0] == n);
  CHECK(s->condition == cond);
  CHECK(s->return_vars[0] == r);
}

TEST_CASE("WhileStmt: the condition must be BOOL and return vars match iter_args") {
  CHECK_THROWS_WITH_AS(WhileStmt::make({}, idx(1), empty_body(), {}),
                       "WhileStmt.condition: must be a BOOL scalar expression", core::ValueError);
  CHECK_THROWS_WITH_AS(WhileStmt::make({}, nullptr, empty_body(), {}),
                       Contains("WhileStmt.condition"), core::ValueError);
  CHECK_THROWS_WITH_AS(WhileStmt::make({}, true_(), nullptr, {}), Contains("WhileStmt.body"),
                       core::ValueError);
  CHECK_THROWS_WITH_AS(WhileStmt::make({}, true_(), empty_body(), {var("r")}),
                       Contains("WhileStmt.return_vars"), core::ValueError);
}

TEST_CASE("IfStmt: holds condition, branches and return vars, else is optional") {
  const auto c = var("c", DataType::BOOL);
  const auto then_ = YieldStmt::make({idx(1)});
  const auto else_ = YieldStmt::make({idx(2)});
  const auto r = var("r");
  const auto s = IfStmt::make(c, then_, else_, {r});
  CHECK(s->kind() == NodeKind::IfStmt);
  CHECK(s->condition == c);
  CHECK(s->then_body == then_);
  CHECK(s->else_body == else_);
  CHECK(s->return_vars[0] == r);
  CHECK(IfStmt::make(c, then_)->else_body == nullptr);
}

TEST_CASE("IfStmt: condition BOOL, then required, return vars need an else") {
  CHECK_THROWS_WITH_AS(IfStmt::make(idx(1), empty_body()),
                       "IfStmt.condition: must be a BOOL scalar expression", core::ValueError);
  CHECK_THROWS_WITH_AS(IfStmt::make(true_(), nullptr), "IfStmt.then_body: must not be null",
                       core::ValueError);
  CHECK_THROWS_WITH_AS(IfStmt::make(true_(), empty_body(), nullptr, {var("r")}),
                       Contains("IfStmt.else_body"), core::ValueError);
  CHECK_THROWS_WITH_AS(IfStmt::make(true_(), empty_body(), empty_body(), {nullptr}),
                       Contains("IfStmt.return_vars[0]"), core::ValueError);
}

TEST_CASE("YieldStmt and ReturnStmt: hold values, a null one is rejected") {
  const auto y = YieldStmt::make({idx(1), true_()});
  CHECK(y->kind() == NodeKind::YieldStmt);
  CHECK(y->values.size() == 2);
  const auto r = ReturnStmt::make({idx(1)});
  CHECK(r->kind() == NodeKind::ReturnStmt);
  CHECK(r->values.size() == 1);
  CHECK_THROWS_WITH_AS(YieldStmt::make({nullptr}), "YieldStmt.values[0]: must not be null",
                       core::ValueError);
  CHECK_THROWS_WITH_AS(ReturnStmt::make({idx(1), nullptr}),
                       "ReturnStmt.values[1]: must not be null", core::ValueError);
}

TEST_CASE("BreakStmt and ContinueStmt: fieldless statements keeping their span") {
  core::Span span;
  span.line = 9;
  CHECK(BreakStmt::make(span)->kind() == NodeKind::BreakStmt);
  CHECK(BreakStmt::make(span)->span.line == 9);
  CHECK(ContinueStmt::make()->kind() == NodeKind::ContinueStmt);
  CHECK_FALSE(ContinueStmt::make()->span.is_known());
}

// ---- scopes -----------------------------------------------------------------------------------

TEST_CASE("scopes: InCoreScopeStmt holds body, name hint, split mode and attrs") {
  const auto body = empty_body();
  const auto s = InCoreScopeStmt::make(body, "kernel", SplitMode::LeftRight,
                                       Attrs{{"cache_policy", CachePolicy::BYPASS}});
  CHECK(s->kind() == NodeKind::InCoreScopeStmt);
  CHECK(isa<ScopeStmt>(s));
  CHECK(s->body == body);
  CHECK(s->name_hint == "kernel");
  CHECK(s->split == SplitMode::LeftRight);
  CHECK(s->attrs.get<CachePolicy>("cache_policy") == CachePolicy::BYPASS);
}

TEST_CASE("scopes: Cluster, Hierarchy, Spmd, SplitAiv and Runtime scopes hold their fields") {
  const auto body = empty_body();
  const auto c = ClusterScopeStmt::make(body, "grp");
  CHECK(c->kind() == NodeKind::ClusterScopeStmt);
  CHECK(c->name_hint == "grp");

  const auto h = HierarchyScopeStmt::make(body, Level::CHIP, Role::Orchestrator);
  CHECK(h->kind() == NodeKind::HierarchyScopeStmt);
  CHECK(h->level == Level::CHIP);
  CHECK(h->role == Role::Orchestrator);
  CHECK_FALSE(HierarchyScopeStmt::make(body, Level::HOST)->role.has_value());

  const auto cores = var("cores");
  const auto sp = SpmdScopeStmt::make(body, cores, true);
  CHECK(sp->kind() == NodeKind::SpmdScopeStmt);
  CHECK(sp->core_num == cores);
  CHECK(sp->sync_start);

  const auto aiv = var("aiv_id");
  const auto sa = SplitAivScopeStmt::make(aiv, body, SplitMode::UpDown);
  CHECK(sa->kind() == NodeKind::SplitAivScopeStmt);
  CHECK(sa->aiv_id == aiv);
  CHECK(sa->split == SplitMode::UpDown);
  CHECK(sa->count == 2);

  const auto rt = RuntimeScopeStmt::make(body, true);
  CHECK(rt->kind() == NodeKind::RuntimeScopeStmt);
  CHECK(rt->manual);
}

TEST_CASE("scopes: every scope rejects a null body, naming its own class") {
  CHECK_THROWS_WITH_AS(InCoreScopeStmt::make(nullptr), "InCoreScopeStmt.body: must not be null",
                       core::ValueError);
  CHECK_THROWS_WITH_AS(ClusterScopeStmt::make(nullptr), Contains("ClusterScopeStmt.body"),
                       core::ValueError);
  CHECK_THROWS_WITH_AS(HierarchyScopeStmt::make(nullptr, Level::HOST),
                       Contains("HierarchyScopeStmt.body"), core::ValueError);
  CHECK_THROWS_WITH_AS(SpmdScopeStmt::make(nullptr, idx(2)), Contains("SpmdScopeStmt.body"),
                       core::ValueError);
  CHECK_THROWS_WITH_AS(SplitAivScopeStmt::make(var("a"), nullptr),
                       Contains("SplitAivScopeStmt.body"), core::ValueError);
  CHECK_THROWS_WITH_AS(RuntimeScopeStmt::make(nullptr), Contains("RuntimeScopeStmt.body"),
                       core::ValueError);
}

TEST_CASE("scopes: a HierarchyScopeStmt cannot be at CORE_GROUP (that is an InCore scope)") {
  CHECK_THROWS_WITH_AS(HierarchyScopeStmt::make(empty_body(), Level::CORE_GROUP),
                       Contains("HierarchyScopeStmt.level"), core::ValueError);
  CHECK(HierarchyScopeStmt::make(empty_body(), Level::CHIP_DIE)->level == Level::CHIP_DIE);
}

TEST_CASE("scopes: Spmd core_num and SplitAiv aiv_id must be integer scalars") {
  CHECK_THROWS_WITH_AS(SpmdScopeStmt::make(empty_body(), ConstFloat::make(2.0)),
                       "SpmdScopeStmt.core_num: must be an integer scalar expression",
                       core::ValueError);
  CHECK_THROWS_WITH_AS(SpmdScopeStmt::make(empty_body(), nullptr),
                       Contains("SpmdScopeStmt.core_num"), core::ValueError);
  CHECK_THROWS_WITH_AS(SplitAivScopeStmt::make(var("a", DataType::BOOL), empty_body()),
                       "SplitAivScopeStmt.aiv_id: must be an integer scalar variable",
                       core::ValueError);
  CHECK_THROWS_WITH_AS(SplitAivScopeStmt::make(nullptr, empty_body()),
                       Contains("SplitAivScopeStmt.aiv_id"), core::ValueError);
  CHECK_THROWS_WITH_AS(
      SplitAivScopeStmt::make(var("a"), empty_body(), SplitMode::None, "", {}, {}, 4),
      "SplitAivScopeStmt.count: must be 2 (a split is over the two vector cores)",
      core::ValueError);
  const auto split = SplitAivScopeStmt::make(var("a"), empty_body());
  CHECK_THROWS_WITH_AS(
      ScopeStmt::with_task_id(*split, var("t", DataType::TASK_ID)),
      "SplitAivScopeStmt.task_id: a split_aiv scope runs inside its kernel: it is no task",
      core::ValueError);
}

// ---- functions --------------------------------------------------------------------------------

TEST_CASE("Function: holds name, params with directions, return types, body and metadata") {
  const auto a = Var::make("a", tensor_64x128());
  const auto out = Var::make("out", tensor_64x128());
  const auto body = ReturnStmt::make({out});
  core::Span span;
  span.line = 2;
  const auto f = Function::make("kernel", {{a, ParamDirection::In}, {out, ParamDirection::Out}},
                                {tensor_64x128()}, body, FunctionType::InCore,
                                Attrs{{"kernel_id", 3}}, FunctionOptions().with_span(span));
  CHECK(f->kind() == NodeKind::Function);
  CHECK(f->name == "kernel");
  REQUIRE(f->params.size() == 2);
  CHECK(f->params[0] == a);
  CHECK(f->params[1] == out);
  REQUIRE(f->param_directions.size() == 2);
  CHECK(f->param_directions[0] == ParamDirection::In);
  CHECK(f->param_directions[1] == ParamDirection::Out);
  CHECK(f->return_types.size() == 1);
  CHECK(f->body == body);
  CHECK(f->func_type == FunctionType::InCore);
  CHECK(f->attrs.get<std::int64_t>("kernel_id") == 3);
  CHECK(f->span.line == 2);
  CHECK_FALSE(f->requires_runtime_binding);
}

TEST_CASE("Function: level and role are derived from the function type when not given") {
  struct Row {
    FunctionType type;
    std::optional<Level> level;
    std::optional<Role> role;
  };
  const Row rows[] = {
      {FunctionType::Opaque, std::nullopt, std::nullopt},
      {FunctionType::Orchestration, Level::CHIP, Role::Orchestrator},
      {FunctionType::InCore, Level::CHIP_DIE, Role::SubWorker},
      {FunctionType::AIC, Level::AIC, Role::SubWorker},
      {FunctionType::AIV, Level::AIV, Role::SubWorker},
      {FunctionType::Group, Level::CORE_GROUP, Role::SubWorker},
      {FunctionType::Spmd, std::nullopt, std::nullopt},
      {FunctionType::Inline, std::nullopt, std::nullopt},
      {FunctionType::Graph, Level::CHIP, Role::Orchestrator},
  };
  for (const auto& row : rows) {
    CAPTURE(enum_name(row.type));
    const auto f = Function::make("f", {}, {}, empty_body(), row.type);
    CHECK(f->level == row.level);
    CHECK(f->role == row.role);
  }
}

TEST_CASE("Function: an explicit level or role overrides the derived one") {
  const auto f = Function::make("f", {}, {}, empty_body(), FunctionType::InCore, {},
                                FunctionOptions().with_level(Level::HOST));
  CHECK(f->level == Level::HOST);
  CHECK(f->role == Role::SubWorker);  // still derived
  const auto g = Function::make("g", {}, {}, empty_body(), FunctionType::Opaque, {},
                                FunctionOptions().with_role(Role::Orchestrator));
  CHECK_FALSE(g->level.has_value());
  CHECK(g->role == Role::Orchestrator);
}

TEST_CASE("Function: the same variable cannot be two parameters") {
  const auto x = var("x");
  const auto y = var("y");
  CHECK_THROWS_WITH_AS(Function::make("f", {{x}, {y}, {x}}, {}, empty_body()),
                       "Function f.params[2]: the same variable is already parameter 0",
                       core::ValueError);
  CHECK_THROWS_WITH_AS(Function::make("f", {{x}, {x}}, {}, empty_body()), Contains("params[1]"),
                       core::ValueError);
  // two distinct variables with the same name hint are fine
  CHECK(Function::make("f", {{var("x")}, {var("x")}}, {}, empty_body())->params.size() == 2);
}

TEST_CASE("Function: null params and null return types are rejected") {
  CHECK_THROWS_WITH_AS(Function::make("f", {{var("x")}, {nullptr}}, {}, empty_body()),
                       "Function f.params[1]: must not be null", core::ValueError);
  CHECK_THROWS_WITH_AS(Function::make("f", {}, {tensor_64x128(), nullptr}, empty_body()),
                       "Function f.return_types[1]: must not be null", core::ValueError);
  CHECK_THROWS_WITH_AS(Function::make("", {}, {}, empty_body()), "Function.name: must not be empty",
                       core::ValueError);
}

TEST_CASE("Function: only a runtime-bound declaration may have no body") {
  CHECK_THROWS_WITH_AS(Function::make("decl", {}, {}, nullptr), Contains("Function decl.body"),
                       core::ValueError);
  const auto d = Function::make("decl", {{var("n")}}, {}, nullptr, FunctionType::Opaque, {},
                                FunctionOptions().with_runtime_binding());
  CHECK(d->body == nullptr);
  CHECK(d->requires_runtime_binding);
}

TEST_CASE("Function: a split attr of NONE is refused (no split key is the one no-split form)") {
  CHECK_THROWS_WITH_AS(Function::make("k", {}, {}, empty_body(), FunctionType::InCore,
                                      {{"priority", 1}, {"split", SplitMode::None}}),
                       Contains("Function k.attrs[1]: split = NONE is not stamped"),
                       core::ValueError);
  const auto k = Function::make("k", {}, {}, empty_body(), FunctionType::InCore,
                                {{"split", SplitMode::UpDown}});
  CHECK(k->attrs.get<SplitMode>("split") == SplitMode::UpDown);
}

TEST_CASE("Function: a runtime-bound declaration cannot have a body") {
  CHECK_THROWS_WITH_AS(Function::make("decl", {}, {}, empty_body(), FunctionType::Opaque, {},
                                      FunctionOptions().with_runtime_binding()),
                       Contains("Function decl.body: a runtime-bound declaration has no body"),
                       core::ValueError);
}

TEST_CASE("Function: renamed is a copy under a new name, the original is unchanged") {
  const auto x = var("x");
  const auto f =
      Function::make("f", {{x, ParamDirection::InOut}}, {}, empty_body(), FunctionType::AIV);
  const auto g = f->renamed("g");
  CHECK(g != f);
  CHECK(g->kind() == NodeKind::Function);
  CHECK(g->name == "g");
  CHECK(f->name == "f");
  CHECK(g->params[0] == x);
  CHECK(g->param_directions[0] == ParamDirection::InOut);
  CHECK(g->body == f->body);
  CHECK(g->level == Level::AIV);
  CHECK(g.use_count() == 1);
  CHECK_THROWS_WITH_AS(f->renamed(""), "Function.name: must not be empty", core::ValueError);
}

// ---- programs ---------------------------------------------------------------------------------

namespace {
FunctionRef fn(std::string name) { return Function::make(std::move(name), {}, {}, empty_body()); }
std::vector<std::string> names_of(const Program& p) {
  std::vector<std::string> out;
  for (const auto& e : p.functions) out.push_back(e.name);
  return out;
}
}  // namespace

TEST_CASE("Program: functions are ordered by name whatever the insertion order") {
  const auto p = Program::make("prog", {fn("main"), fn("kernel_b"), fn("kernel_a")});
  CHECK(p->kind() == NodeKind::Program);
  CHECK(p->name == "prog");
  CHECK(names_of(*p) == std::vector<std::string>{"kernel_a", "kernel_b", "main"});
  for (const auto& e : p->functions) CHECK(e.function->name == e.name);
  const auto q = Program::make("prog", {fn("kernel_a"), fn("main"), fn("kernel_b")});
  CHECK(names_of(*q) == names_of(*p));
}

TEST_CASE("Program: duplicate function names are rejected") {
  CHECK_THROWS_WITH_AS(Program::make("p", {fn("a"), fn("b"), fn("a")}),
                       "Program.functions: duplicate function name 'a'", core::ValueError);
  CHECK_THROWS_WITH_AS(Program::make("p", {fn("a"), nullptr}),
                       "Program.functions[1]: must not be null", core::ValueError);
}

TEST_CASE("Program: find returns the function of that name, or null") {
  const auto a = fn("a");
  const auto c = fn("c");
  const auto p = Program::make("p", {c, a});
  CHECK(p->find("a") == a);
  CHECK(p->find("c") == c);
  CHECK(p->find("b") == nullptr);
  CHECK(p->find("") == nullptr);
  CHECK(p->find("d") == nullptr);
  CHECK(Program::make("empty", {})->find("a") == nullptr);
}

TEST_CASE("Program: with_function adds or replaces by name and leaves the original alone") {
  const auto a = fn("a");
  const auto p = Program::make("p", {a, fn("c")});
  const auto added = p->with_function(fn("b"));
  CHECK(names_of(*added) == std::vector<std::string>{"a", "b", "c"});
  CHECK(names_of(*p) == std::vector<std::string>{"a", "c"});
  CHECK(added->name == "p");
  const auto a2 = Function::make("a", {}, {}, empty_body(), FunctionType::AIC);
  const auto replaced = p->with_function(a2);
  CHECK(names_of(*replaced) == std::vector<std::string>{"a", "c"});
  CHECK(replaced->find("a") == a2);
  CHECK(p->find("a") == a);
}

TEST_CASE("Program: with_function rejects a null function instead of crashing") {
  const auto p = Program::make("p", {fn("a")});
  CHECK_THROWS_WITH_AS(p->with_function(nullptr), Contains("Program.functions"), core::ValueError);
}

// ---- attributes -------------------------------------------------------------------------------

TEST_CASE("Attrs: typed values under keys, in insertion order") {
  const auto x = var("x");
  const Attrs attrs{{"flag", true},
                    {"count", 3},
                    {"ratio", 0.5},
                    {"label", "hi"},
                    {"dtype", DataType::BF16},
                    {"mode", SplitMode::UpDown},
                    {"var", x},
                    {"list", AttrValueList{1, 2}}};
  REQUIRE(attrs.size() == 8);
  CHECK(attrs.entries[0].key == "flag");
  CHECK(attrs.entries[7].key == "list");
  CHECK(attrs.get<bool>("flag") == true);
  CHECK(attrs.get<std::int64_t>("count") == 3);
  CHECK(attrs.get<double>("ratio") == 0.5);
  CHECK(attrs.get<std::string>("label") == "hi");
  CHECK(attrs.get<DataType>("dtype") == DataType::BF16);
  CHECK(attrs.get<SplitMode>("mode") == SplitMode::UpDown);
  CHECK(attrs.get<ExprRef>("var") == ExprRef(x));
  const auto list = attrs.get<AttrValueList>("list");
  REQUIRE(list.has_value());
  CHECK(list->size() == 2);
  CHECK(attrs.find("count")->is<std::int64_t>());
}

TEST_CASE("Attrs: get is nullopt for a missing key or a value of another type") {
  const Attrs attrs{{"count", 3}, {"mode", SplitMode::UpDown}};
  CHECK_FALSE(attrs.get<std::int64_t>("missing").has_value());
  CHECK_FALSE(attrs.get<double>("count").has_value());
  CHECK_FALSE(attrs.get<bool>("count").has_value());
  CHECK_FALSE(attrs.get<Level>("mode").has_value());  // an enum value of another enum
  CHECK_FALSE(attrs.get<std::int64_t>("mode").has_value());
  CHECK(attrs.find("missing") == nullptr);
  CHECK_FALSE(attrs.contains("missing"));
  CHECK(attrs.contains("mode"));
}

TEST_CASE("Attrs: with replaces in place or appends, without removes, originals unchanged") {
  const Attrs attrs{{"a", 1}, {"b", 2}};
  const Attrs replaced = attrs.with("a", 10);
  REQUIRE(replaced.size() == 2);
  CHECK(replaced.entries[0].key == "a");
  CHECK(replaced.get<std::int64_t>("a") == 10);
  const Attrs appended = attrs.with("c", "x");
  REQUIRE(appended.size() == 3);
  CHECK(appended.entries[2].key == "c");
  const Attrs removed = attrs.without("a");
  REQUIRE(removed.size() == 1);
  CHECK(removed.entries[0].key == "b");
  CHECK(attrs.without("zzz").size() == 2);
  CHECK(attrs.get<std::int64_t>("a") == 1);
  CHECK(attrs.size() == 2);
}

TEST_CASE("Attrs: duplicate_key reports the first repeated key") {
  CHECK_FALSE(Attrs{{"a", 1}, {"b", 2}}.duplicate_key().has_value());
  CHECK(Attrs{{"a", 1}, {"b", 2}, {"b", 3}, {"a", 4}}.duplicate_key() == "a");
  CHECK(Attrs{{"x", 1}, {"b", 2}, {"b", 3}}.duplicate_key() == "b");
  CHECK_FALSE(Attrs{}.duplicate_key().has_value());
}

TEST_CASE("AttrValue: integers of any width are stored as int64, default is false") {
  CHECK(AttrValue(std::uint8_t{7}).is<std::int64_t>());
  CHECK(*AttrValue(-5).get_if<std::int64_t>() == -5);
  CHECK(AttrValue(1.5f).is<double>());
  CHECK(AttrValue(true).is<bool>());
  CHECK(AttrValue(std::string("s")).is<std::string>());
  CHECK(AttrValue().is<bool>());
  CHECK(AttrValue(Level::HOST).is<EnumValue>());
  CHECK(AttrValue(OpaquePayload{"host.Thing", nullptr}).is<OpaquePayload>());
}

// ---- enum attribute values --------------------------------------------------------------------

TEST_CASE("EnumValue: of/holds/get round-trip and reject another enum") {
  const auto e = EnumValue::of(SplitMode::LeftRight);
  CHECK(e.holds<SplitMode>());
  CHECK_FALSE(e.holds<Level>());
  CHECK(e.get<SplitMode>() == SplitMode::LeftRight);
  CHECK_FALSE(e.get<Level>().has_value());
  CHECK(e == EnumValue::of(SplitMode::LeftRight));
  CHECK_FALSE(e == EnumValue::of(SplitMode::UpDown));
  // same underlying value, different enum: not equal
  CHECK_FALSE(EnumValue::of(ForKind::Parallel) == EnumValue::of(ParamDirection::Out));
}

TEST_CASE("EnumValue: type name and value name for several enums") {
  CHECK(enum_type_name(EnumValue::of(SplitMode::UpDown)) == "SplitMode");
  CHECK(enum_value_name(EnumValue::of(SplitMode::UpDown)) == "UP_DOWN");
  CHECK(enum_type_name(EnumValue::of(FunctionType::Orchestration)) == "FunctionType");
  CHECK(enum_value_name(EnumValue::of(FunctionType::Orchestration)) == "Orchestration");
  CHECK(enum_type_name(EnumValue::of(ArgDirection::OutputExisting)) == "adir");
  CHECK(enum_value_name(EnumValue::of(ArgDirection::OutputExisting)) == "output_existing");
  CHECK(enum_type_name(EnumValue::of(MemorySpace::Acc)) == "Mem");
  CHECK(enum_value_name(EnumValue::of(MemorySpace::Acc)) == "Acc");
  CHECK(enum_value_name(EnumValue::of(AtomicType::None)) == "None_");
  CHECK(enum_value_name(EnumValue::of(Level::CHIP_DIE)) == "CHIP_DIE");
  CHECK(enum_value_name(EnumValue::of(CachePolicy::BYPASS)) == "BYPASS");
}

TEST_CASE("EnumValue: unknown ids and out-of-range values name as ?") {
  const EnumValue bad_id{200, 0};
  CHECK(enum_type_name(bad_id) == "?");
  CHECK(enum_value_name(bad_id) == "?");
  const EnumValue bad_value{EnumValue::of(SplitMode::None).enum_id, 99};
  CHECK(enum_type_name(bad_value) == "SplitMode");
  CHECK(enum_value_name(bad_value) == "?");
}

TEST_CASE("parse_enum_value: parses pl.<Type>.<Value>, aliases included") {
  CHECK(parse_enum_value("SplitMode", "UP_DOWN") == EnumValue::of(SplitMode::UpDown));
  CHECK(parse_enum_value("adir", "no_dep") == EnumValue::of(ArgDirection::NoDep));
  CHECK(parse_enum_value("Mem", "Vec") == EnumValue::of(MemorySpace::Vec));
  const auto l2 = parse_enum_value("Level", "L2CACHE");
  REQUIRE(l2.has_value());
  CHECK(l2->get<Level>() == Level::CHIP_DIE);
  CHECK(enum_value_name(*l2) == "CHIP_DIE");  // an alias prints as its canonical name
  CHECK(parse_enum_value("Level", "POD")->get<Level>() == Level::CLUSTER_0);
  CHECK(parse_enum_value("Role", "SUBWORKER")->get<Role>() == Role::SubWorker);
}

TEST_CASE("parse_enum_value: an unknown type or value is nullopt") {
  CHECK_FALSE(parse_enum_value("Level", "L3CACHE").has_value());
  CHECK_FALSE(parse_enum_value("Levels", "HOST").has_value());
  CHECK_FALSE(parse_enum_value("", "").has_value());
  CHECK_FALSE(
      parse_enum_value("SplitMode", "UpDown").has_value());  // the C++ name is not the DSL's
  // pl.Mem prints; upstream's longer pl.MemorySpace names the same enum
  CHECK(parse_enum_value("MemorySpace", "Vec") == parse_enum_value("Mem", "Vec"));
}

TEST_CASE("parse_enum / enum_name: tables with aliases and unknown names") {
  CHECK(parse_enum<Level>("CHIP_DIE") == Level::CHIP_DIE);
  CHECK(parse_enum<Level>("L2CACHE") == Level::CHIP_DIE);
  CHECK(parse_enum<Level>("UMA") == Level::CHIP);
  CHECK(parse_enum<Level>("PROCESSOR") == Level::CHIP);
  CHECK(enum_name(Level::CHIP) == "CHIP");
  CHECK_FALSE(parse_enum<Level>("chip").has_value());
  CHECK_FALSE(parse_enum<ForKind>("").has_value());
  CHECK(parse_enum<AtomicType>("None_") == AtomicType::None);
  CHECK_FALSE(parse_enum<AtomicType>("None").has_value());
  CHECK(enum_name(static_cast<SplitMode>(7)) == "?");
  CHECK(is_valid_enum<PadValue>(3));
  CHECK_FALSE(is_valid_enum<PadValue>(4));
  CHECK_FALSE(is_valid_enum<CompactMode>(-1));
}

TEST_CASE("enums: every printed name parses back to its value") {
  for_each_attr_enum([]<class E>(std::type_identity<E>) {
    for (const EnumSpelling& entry : spellings<E>()) {
      CAPTURE(entry.name);
      const auto value = static_cast<E>(entry.value);
      CHECK(parse_enum<E>(enum_name(value)) == value);
      const auto ev = parse_enum_value(EnumTraits<E>::type_name, entry.name);
      REQUIRE(ev.has_value());
      CHECK(ev->template get<E>() == value);
    }
  });
}

// ---- rejected attribute values ----------------------------------------------------------------

TEST_CASE("AttrValue: a null expression handle is rejected, not stored") {
  const ExprRef null_expr;
  CHECK_THROWS_WITH_AS(AttrValue{null_expr},
                       "AttrValue.expr: an expression attribute must not be null",
                       core::ValueError);
  const VarRef null_var;  // a derived handle goes through the same check
  CHECK_THROWS_AS(AttrValue{null_var}, core::ValueError);
  CHECK_THROWS_AS((Attrs{{"e", null_var}}), core::ValueError);
  CHECK(AttrValue{idx(3)}.is<ExprRef>());
}

TEST_CASE("AttrValue: a null C string is rejected, not read") {
  const char* none = nullptr;
  CHECK_THROWS_WITH_AS(AttrValue{none}, "AttrValue.string: a null C string is not a string",
                       core::ValueError);
  CHECK(*AttrValue{"text"}.get_if<std::string>() == "text");
}

TEST_CASE("AttrValue: an unsigned integer above INT64_MAX is rejected, not wrapped") {
  constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  CHECK(*AttrValue{max}.get_if<std::int64_t>() == std::numeric_limits<std::int64_t>::max());
  CHECK_THROWS_WITH_AS(AttrValue{max + 1},
                       "AttrValue.int: 9223372036854775808 is above INT64_MAX, the largest "
                       "integer attribute",
                       core::ValueError);
  CHECK_THROWS_AS(AttrValue{std::numeric_limits<std::uint64_t>::max()}, core::ValueError);
  CHECK_THROWS_AS(AttrValue{std::numeric_limits<unsigned long long>::max()}, core::ValueError);
  CHECK(*AttrValue{std::numeric_limits<std::uint32_t>::max()}.get_if<std::int64_t>() == 4294967295);
  CHECK(*AttrValue{std::numeric_limits<std::int64_t>::min()}.get_if<std::int64_t>() ==
        std::numeric_limits<std::int64_t>::min());
}

// ---- printable names --------------------------------------------------------------------------

TEST_CASE("Op: a name is dotted Python identifiers, a keyword only as the last segment") {
  CHECK(Op::make("tile.load")->name == "tile.load");
  CHECK(Op::make("pld.tensor.put")->name == "pld.tensor.put");
  CHECK(Op::make("set_cache_policy")->name == "set_cache_policy");
  CHECK(Op::make("tile.and")->name == "tile.and");  // printed `pl.tile.and_`
  CHECK_THROWS_WITH_AS(Op::make("tile load"),
                       "Op.name: 'tile load' must be dotted Python identifiers such as tile.load "
                       "(segment 'tile load')",
                       core::ValueError);
  for (const char* bad : {"tile.", ".load", "tile..load", "tile.2d", "tile-load", "tile.lo(ad",
                          "if.load", "tile.for.x", "tile.lo\nad"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(Op::make(bad), Contains("Op.name: '"), core::ValueError);
  }
}

TEST_CASE("GlobalVar and Function: a name is a Python identifier that is not a keyword") {
  CHECK(GlobalVar::make("_kernel_0")->name == "_kernel_0");
  CHECK_THROWS_WITH_AS(GlobalVar::make("main.incore"),
                       "GlobalVar.name: 'main.incore' is not a Python identifier",
                       core::ValueError);
  CHECK_THROWS_WITH_AS(GlobalVar::make("for"), "GlobalVar.name: 'for' is a Python keyword",
                       core::ValueError);
  CHECK_THROWS_AS(GlobalVar::make("0k"), core::ValueError);
  CHECK_THROWS_WITH_AS(Function::make("my-kernel", {}, {}, empty_body()),
                       "Function.name: 'my-kernel' is not a Python identifier", core::ValueError);
  CHECK_THROWS_WITH_AS(Function::make("lambda", {}, {}, empty_body()),
                       "Function.name: 'lambda' is a Python keyword", core::ValueError);
  const auto f = Function::make("f", {}, {}, empty_body());
  CHECK_THROWS_WITH_AS(f->renamed("f 2"), "Function.name: 'f 2' is not a Python identifier",
                       core::ValueError);
  CHECK_THROWS_AS(f->renamed("class"), core::ValueError);
}

TEST_CASE("Program: a name is empty or a Python identifier that is not a keyword") {
  CHECK(Program::make("", {})->name.empty());
  CHECK(Program::make("Demo_2", {})->name == "Demo_2");
  CHECK_THROWS_WITH_AS(Program::make("my program", {}),
                       "Program.name: 'my program' is not a Python identifier", core::ValueError);
  CHECK_THROWS_WITH_AS(Program::make("class", {}), "Program.name: 'class' is a Python keyword",
                       core::ValueError);
  CHECK_THROWS_WITH_AS(Program::make("P", {nullptr}), "Program.functions[0]: must not be null",
                       core::ValueError);
}

TEST_CASE("Call: kwarg keys are identifiers, not keywords, not the printer's `attrs`") {
  const auto op = Op::make("tile.load");
  auto call_with = [&](std::string key) {
    Attrs kw;
    kw.entries.push_back({std::move(key), 1});
    return Call::make(op, {}, tensor_64x128(), kw);
  };
  CHECK(call_with("target_memory")->kwargs.contains("target_memory"));
  CHECK(call_with("deps")->kwargs.contains("deps"));  // only Submit prints its own `deps=`
  CHECK_THROWS_WITH_AS(call_with("target memory"),
                       "Call.kwargs[0]: 'target memory' is not a Python identifier",
                       core::ValueError);
  CHECK_THROWS_WITH_AS(call_with(""), "Call.kwargs[0]: must not be empty", core::ValueError);
  CHECK_THROWS_WITH_AS(call_with("in"), "Call.kwargs[0]: 'in' is a Python keyword",
                       core::ValueError);
  CHECK_THROWS_WITH_AS(call_with("attrs"),
                       "Call.kwargs[0]: 'attrs' is reserved: the printer writes the Call's own "
                       "'attrs=' keyword",
                       core::ValueError);
}

TEST_CASE("Submit: kwarg keys must not be keywords nor the launch options the printer writes") {
  auto submit_with = [&](std::string key) {
    Attrs kw;
    kw.entries.push_back({std::move(key), 1});
    return Submit::make(GlobalVar::make("k"), {}, task_tuple(), {}, kw);
  };
  CHECK(submit_with("mode")->kwargs.contains("mode"));
  for (const char* reserved :
       {"attrs", "deps", "core_num", "sync_start", "allow_early_resolve", "predicate"}) {
    const std::string expected = "Submit.kwargs[0]: '" + std::string(reserved) +
                                 "' is reserved: the printer writes the Submit's own '" + reserved +
                                 "=' keyword";
    CHECK_THROWS_WITH_AS(submit_with(reserved), expected.c_str(), core::ValueError);
  }
  CHECK_THROWS_WITH_AS(submit_with("yield"), "Submit.kwargs[0]: 'yield' is a Python keyword",
                       core::ValueError);
  CHECK_THROWS_AS(submit_with("a.b"), core::ValueError);
}

TEST_CASE("builders: one null check reports the first null element of any list field") {
  CHECK_THROWS_WITH_AS(TupleType::make({scalar(DataType::INDEX), nullptr}),
                       "TupleType.types[1]: must not be null", core::ValueError);
  CHECK_THROWS_WITH_AS(MakeTuple::make({idx(1), nullptr, nullptr}),
                       "MakeTuple.elements[1]: must not be null", core::ValueError);
  CHECK_THROWS_WITH_AS(SeqStmts::make({nullptr}), "SeqStmts.stmts[0]: must not be null",
                       core::ValueError);
  SubmitLaunch null_dep;
  null_dep.deps = {nullptr};
  CHECK_THROWS_WITH_AS(Submit::make(GlobalVar::make("k"), {}, task_tuple(), null_dep),
                       "Submit.deps[0]: must not be null", core::ValueError);
}

TEST_CASE("copy_node: the copy keeps the kind and fields and starts with its own count") {
  const auto s = AssignStmt::make(var("x"), idx(1));
  const auto c = copy_node(*s);
  CHECK(c->kind() == NodeKind::AssignStmt);
  CHECK(c->var == s->var);
  CHECK(c.use_count() == 1);
  CHECK(s.use_count() == 1);
  const auto g = copy_node(*GlobalVar::make("k"));
  CHECK(g->kind() == NodeKind::GlobalVar);
}

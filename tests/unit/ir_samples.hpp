// Small well-formed IR values shared by the IR unit tests (not a test file itself: only
// tests/unit/*.cpp are compiled).
#pragma once

#include <vector>

#include "pypto/ir.hpp"

namespace pypto::test {

using namespace pypto::ir;  // NOLINT: test helpers read like the IR they build
using core::DataType;

inline TypeRef scalar(DataType t) { return ScalarType::make(t); }
inline ExprRef idx(std::int64_t v) { return ConstInt::make(v); }
inline VarRef var(std::string name, DataType t = DataType::INDEX) {
  return Var::make(std::move(name), scalar(t));
}
inline ExprRef true_() { return ConstBool::make(true); }
inline StmtRef empty_body() { return SeqStmts::make({}); }
inline TypeRef tensor_64x128() { return TensorType::make(DataType::FP32, {idx(64), idx(128)}); }
inline TypeRef task_tuple() { return TupleType::make({scalar(DataType::TASK_ID)}); }

/// Operands a binary kind accepts: BOOL for logical operators, INDEX otherwise.
inline ExprRef operand_for(NodeKind k, std::int64_t v) {
  if (operator_class(k) == OperatorClass::Logical) return ConstBool::make(v != 0);
  return idx(v);
}

/// One well-formed node of every kind in the catalog, in catalog (NodeKind) order.
inline std::vector<NodeRef> one_node_of_each_kind() {
  std::vector<NodeRef> out;
  auto add = [&](NodeRef n) { out.push_back(std::move(n)); };
  // types
  add(UnknownType::make());
  add(ScalarType::make(DataType::FP32));
  add(tensor_64x128());
  add(TileType::make(DataType::FP16, {idx(16), idx(16)}, MemorySpace::Vec));
  add(TupleType::make({scalar(DataType::FP32), scalar(DataType::INDEX)}));
  add(MemRefType::make());
  add(PtrType::make());
  add(WindowBufferType::make());
  add(CommCtxType::make());
  add(PrefetchAsyncContextType::make());
  add(AsyncEventType::make());
  add(AsyncSessionType::make());
  add(ArrayType::make(DataType::TASK_ID, 4));
  // variables
  add(var("x"));
  add(IterArg::make("acc", scalar(DataType::FP32), ConstFloat::make(0.0)));
  add(WindowBuffer::make("win", idx(1024)));
  // constants
  add(ConstInt::make(7));
  add(ConstFloat::make(1.5));
  add(ConstBool::make(true));
  // arithmetic
#define PYPTO_X(T) add(T::make(operand_for(NodeKind::T, 1), operand_for(NodeKind::T, 2)));
  PYPTO_IR_BINARY_NODES(PYPTO_X)
#undef PYPTO_X
  add(Abs::make(idx(-1)));
  add(Neg::make(idx(1)));
  add(Not::make(true_()));
  add(BitNot::make(idx(1)));
  add(Cast::make(idx(1), DataType::FP32));
  add(MemRef::make(Var::make("base", PtrType::make()), idx(0), 4096));
  add(Call::make(Op::make("tile.load"), {var("t")}, tensor_64x128()));
  add(Submit::make(GlobalVar::make("kernel"), {var("a")}, task_tuple()));
  add(MakeTuple::make({idx(1), true_()}));
  add(TupleGetItem::make(MakeTuple::make({idx(1), true_()}), 1));
  // statements
  add(AssignStmt::make(var("y"), idx(1)));
  add(EvalStmt::make(idx(1)));
  add(SeqStmts::make({BreakStmt::make()}));
  add(ForStmt::make(var("i"), idx(0), idx(8), idx(1), {}, empty_body(), {}));
  add(WhileStmt::make({}, true_(), empty_body(), {}));
  add(IfStmt::make(true_(), empty_body()));
  add(YieldStmt::make({idx(1)}));
  add(ReturnStmt::make({}));
  add(BreakStmt::make());
  add(ContinueStmt::make());
  add(InlineStmt::make("print(x)"));
  add(InCoreScopeStmt::make(empty_body(), "k"));
  add(ClusterScopeStmt::make(empty_body()));
  add(HierarchyScopeStmt::make(empty_body(), Level::HOST));
  add(SpmdScopeStmt::make(empty_body(), idx(4)));
  add(SplitAivScopeStmt::make(var("aiv_id"), empty_body(), SplitMode::UpDown));
  add(RuntimeScopeStmt::make(empty_body(), true));
  // callees, functions, programs
  add(Op::make("tile.add"));
  add(GlobalVar::make("main"));
  add(Function::make("main", {}, {}, empty_body()));
  add(Program::make("prog", {Function::make("main", {}, {}, empty_body())}));
  return out;
}

}  // namespace pypto::test

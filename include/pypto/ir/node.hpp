// pypto/ir/node.hpp — the node base, the node catalog and kind-based casts.
//
// Every IR object (types, expressions, statements, ops, functions, programs) is an immutable
// Node behind a `Ref<const T>` handle. Each concrete node has a NodeKind tag, so walkers
// dispatch with one switch per node and no RTTI; `isa<T>` / `as<T>` / `cast<T>` test a kind
// against the class's kind range (an IterArg is a Var; Add is a BinaryExpr).
//
// The catalog below (PYPTO_IR_NODES) is the single list of concrete nodes: it generates
// NodeKind, the kind names, and the dispatch in ir/visit.hpp. Adding a node is one line here
// plus one struct with a `fields` descriptor list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/core/identifier.hpp"
#include "pypto/core/ref.hpp"
#include "pypto/core/span.hpp"
#include "pypto/reflect/field.hpp"

namespace pypto::ir {

using core::Ref;

// clang-format off
/// X(Class) for every concrete node, grouped so that each abstract base is a contiguous range.
#define PYPTO_IR_TYPE_NODES(X)                                                                  \
  X(UnknownType) X(ScalarType) X(TensorType) X(TileType) X(TupleType) X(MemRefType) X(PtrType) \
  X(WindowBufferType) X(CommCtxType) X(PrefetchAsyncContextType) X(AsyncEventType)             \
  X(AsyncSessionType) X(ArrayType)
#define PYPTO_IR_VAR_NODES(X) X(Var) X(IterArg) X(WindowBuffer)
#define PYPTO_IR_BINARY_NODES(X)                                                               \
  X(Add) X(Sub) X(Mul) X(FloorDiv) X(FloorMod) X(FloatDiv) X(Min) X(Max) X(Pow) X(Eq) X(Ne)     \
  X(Lt) X(Le) X(Gt) X(Ge) X(And) X(Or) X(Xor) X(BitAnd) X(BitOr) X(BitXor) X(BitShiftLeft)      \
  X(BitShiftRight)
#define PYPTO_IR_UNARY_NODES(X) X(Abs) X(Neg) X(Not) X(BitNot) X(Cast)
#define PYPTO_IR_EXPR_NODES(X)                                                                 \
  PYPTO_IR_VAR_NODES(X) X(ConstInt) X(ConstFloat) X(ConstBool) PYPTO_IR_BINARY_NODES(X)         \
  PYPTO_IR_UNARY_NODES(X) X(MemRef) X(Call) X(Submit) X(MakeTuple) X(TupleGetItem)
#define PYPTO_IR_SCOPE_NODES(X)                                                                \
  X(InCoreScopeStmt) X(ClusterScopeStmt) X(HierarchyScopeStmt) X(SpmdScopeStmt)                 \
  X(SplitAivScopeStmt) X(RuntimeScopeStmt)
#define PYPTO_IR_STMT_NODES(X)                                                                 \
  X(AssignStmt) X(EvalStmt) X(SeqStmts) X(ForStmt) X(WhileStmt) X(IfStmt) X(YieldStmt)          \
  X(ReturnStmt) X(BreakStmt) X(ContinueStmt) X(InlineStmt) PYPTO_IR_SCOPE_NODES(X)
#define PYPTO_IR_NODES(X)                                                                      \
  PYPTO_IR_TYPE_NODES(X) PYPTO_IR_EXPR_NODES(X) PYPTO_IR_STMT_NODES(X) X(Op) X(GlobalVar)       \
  X(Function) X(Program)
// clang-format on

enum class NodeKind : std::uint8_t {
#define PYPTO_X(T) T,
  PYPTO_IR_NODES(PYPTO_X)
#undef PYPTO_X
};

inline constexpr std::size_t kNodeKindCount = 0
#define PYPTO_X(T) +1
    PYPTO_IR_NODES(PYPTO_X)
#undef PYPTO_X
    ;

constexpr std::string_view kind_name(NodeKind k) {
  switch (k) {
#define PYPTO_X(T) \
  case NodeKind::T: return #T;
    PYPTO_IR_NODES(PYPTO_X)
#undef PYPTO_X
  }
  return "?";
}

/// A closed range of kinds: the concrete kinds of one abstract base class.
struct KindRange {
  NodeKind first, last;
  constexpr bool contains(NodeKind k) const { return first <= k && k <= last; }
};

namespace kinds {
inline constexpr KindRange type{NodeKind::UnknownType, NodeKind::ArrayType};
inline constexpr KindRange expr{NodeKind::Var, NodeKind::TupleGetItem};
inline constexpr KindRange var{NodeKind::Var, NodeKind::WindowBuffer};
inline constexpr KindRange binary{NodeKind::Add, NodeKind::BitShiftRight};
inline constexpr KindRange unary{NodeKind::Abs, NodeKind::Cast};
inline constexpr KindRange stmt{NodeKind::AssignStmt, NodeKind::RuntimeScopeStmt};
inline constexpr KindRange scope{NodeKind::InCoreScopeStmt, NodeKind::RuntimeScopeStmt};
inline constexpr KindRange op{NodeKind::Op, NodeKind::GlobalVar};
}  // namespace kinds

template <class T>
Ref<T> make_node();

/// Base of every IR object: a kind tag and a reference count. Nodes are created only through
/// their `make` builders (which validate) and never change afterwards.
class Node : public core::RefCounted {
 public:
  static constexpr std::string_view class_name = "Node";
  NodeKind kind() const { return kind_; }

 protected:
  Node() = default;
  Node(const Node&) = default;
  Node& operator=(const Node&) = default;

 private:
  template <class T>
  friend Ref<T> make_node();
  NodeKind kind_{};  // copied by the copy constructor, so copy_node keeps it
};

using NodeRef = Ref<const Node>;

/// A new default-initialised T with its kind set. Only builders hold the mutable handle: they
/// fill the fields, validate, and hand out `Ref<const T>`; a node is never changed once shared.
template <class T>
Ref<T> make_node() {
  T* p = new T();
  p->kind_ = T::static_kind;
  return Ref<T>(p);
}

/// A fresh copy of `n` (same kind, count 0) for "n with one field replaced" rebuilds.
template <class T>
Ref<T> copy_node(const T& n) {
  return Ref<T>(new T(n));
}

/// Kind test against T's range (a concrete class has a one-kind range).
template <class T>
bool isa(const Node& n) {
  return T::classof(n.kind());
}
template <class T, class U>
bool isa(const Ref<U>& n) {
  return n && T::classof(n->kind());
}

/// The node as a T, or null when it is not one.
template <class T, class U>
Ref<const T> as(const Ref<U>& n) {
  if (n && T::classof(n->kind())) return Ref<const T>(static_cast<const T*>(n.get()));
  return nullptr;
}
template <class T>
const T* as(const Node* n) {
  return n && T::classof(n->kind()) ? static_cast<const T*>(n) : nullptr;
}

/// The node as a T; throws TypeError when it is not one (a checked downcast).
template <class T, class U>
Ref<const T> cast(const Ref<U>& n) {
  if (!n) throw core::TypeError("cast to " + std::string(T::class_name) + ": null node");
  if (!T::classof(n->kind()))
    throw core::TypeError("cast to " + std::string(T::class_name) + ": node is a " +
                          std::string(kind_name(n->kind())));
  return Ref<const T>(static_cast<const T*>(n.get()));
}

using core::Span;
using reflect::ConcatFields;
using reflect::DefField;
using reflect::FieldList;
using reflect::IgnoreField;
using reflect::Unreflected;
using reflect::UnreflectedList;
using reflect::UsualField;

/// Declares the kind of a concrete node class (used inside the class body).
#define PYPTO_CONCRETE_NODE(T)                         \
  static constexpr NodeKind static_kind = NodeKind::T; \
  static constexpr std::string_view class_name = #T;   \
  static constexpr bool classof(NodeKind k) { return k == static_kind; }

/// Declares the kind of a concrete node class that is also the base of other kinds (Var of
/// IterArg, Op of GlobalVar): `classof` accepts the whole range.
#define PYPTO_CONCRETE_BASE_NODE(T, RANGE)             \
  static constexpr NodeKind static_kind = NodeKind::T; \
  static constexpr std::string_view class_name = #T;   \
  static constexpr bool classof(NodeKind k) { return RANGE.contains(k); }

/// Declares the kind range of an abstract node class.
#define PYPTO_ABSTRACT_NODE(T, RANGE)                \
  static constexpr std::string_view class_name = #T; \
  static constexpr bool classof(NodeKind k) { return RANGE.contains(k); }

/// Base of the types (ScalarType, TensorType, ...). Types carry no span: they are values.
struct Type : Node {
  PYPTO_ABSTRACT_NODE(Type, kinds::type)
  using fields = FieldList<>;
};
using TypeRef = Ref<const Type>;

/// Base of the expressions: every expression has a type (never null) and a span.
struct Expr : Node {
  PYPTO_ABSTRACT_NODE(Expr, kinds::expr)
  Span span;
  TypeRef type;
  using fields = FieldList<IgnoreField<&Expr::span, "span">, UsualField<&Expr::type, "type">>;
};
using ExprRef = Ref<const Expr>;

/// Base of the statements: a span and the comments printed above the statement.
struct Stmt : Node {
  PYPTO_ABSTRACT_NODE(Stmt, kinds::stmt)
  Span span;
  std::vector<std::string> leading_comments;
  using fields = FieldList<IgnoreField<&Stmt::span, "span">,
                           IgnoreField<&Stmt::leading_comments, "leading_comments">>;
};
using StmtRef = Ref<const Stmt>;

namespace detail {
/// Throws ValueError("<node>.<field>: <problem>"). Builders call it only on the failure path,
/// so a valid node never pays for building a message.
[[noreturn]] inline void fail(std::string_view node, std::string_view field,
                              std::string_view problem) {
  throw core::ValueError(std::string(node) + "." + std::string(field) + ": " +
                         std::string(problem));
}
/// The builders' check idiom for a fixed message: fail unless `ok`.
inline void require(bool ok, std::string_view node, std::string_view field,
                    std::string_view problem) {
  if (!ok) fail(node, field, problem);
}
/// "field[i]", for messages about one element of a list field.
inline std::string indexed(std::string_view field, std::size_t i) {
  return std::string(field) + "[" + std::to_string(i) + "]";
}
/// Fails with "<node>.<field>[i]: must not be null" at the first null handle of `xs`.
template <class List>
void require_non_null(const List& xs, std::string_view node, std::string_view field) {
  std::size_t i = 0;
  for (const auto& x : xs) {
    if (!x) fail(node, indexed(field, i), "must not be null");
    ++i;
  }
}
/// Fails unless `name` can stand bare in the printed (Python) text: an identifier that is not
/// a keyword.
inline void require_name(std::string_view name, std::string_view node, std::string_view field) {
  if (core::is_usable_name(name)) return;
  if (name.empty()) fail(node, field, "must not be empty");
  std::string problem = "'";
  problem.append(name).append(core::is_identifier(name) ? "' is a Python keyword"
                                                        : "' is not a Python identifier");
  fail(node, field, problem);
}
}  // namespace detail

}  // namespace pypto::ir

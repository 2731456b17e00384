// Compile-time proof of the descriptor lists and kind ranges of the IR catalog: building this
// TU is the test. Every check is applied to every concrete node through the PYPTO_IR_NODES
// X-macro, so a node added to the catalog is checked without editing this file.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "pypto/ir.hpp"
#include "pypto/reflect/field.hpp"
#include "pypto/reflect/layout.hpp"

namespace {

using namespace pypto::ir;  // NOLINT
namespace reflect = pypto::reflect;
using reflect::FieldKind;
using reflect::FieldList;
using reflect::FieldsOf;

// ---- helpers ----------------------------------------------------------------------------------

/// The I-th descriptor of a FieldList.
template <std::size_t I, class List>
struct At;
template <std::size_t I, class F, class... Rest>
struct At<I, FieldList<F, Rest...>> : At<I - 1, FieldList<Rest...>> {};
template <class F, class... Rest>
struct At<0, FieldList<F, Rest...>> {
  using type = F;
};
template <class T, std::size_t I>
using FieldAt = typename At<I, FieldsOf<T>>::type;

/// The kind of T's field `name`, or nullopt when T has no such field.
template <class T>
constexpr std::optional<FieldKind> kind_of(std::string_view name) {
  std::optional<FieldKind> out;
  reflect::for_each_field_descriptor<T>([&](auto f) {
    if (decltype(f)::name == name) out = decltype(f)::kind;
  });
  return out;
}

/// Every descriptor of T is an empty type (the member pointer lives in the type, not in data).
template <class T>
constexpr bool descriptors_are_empty() {
  return []<class... F>(FieldList<F...>) { return (std::is_empty_v<F> && ...); }(FieldsOf<T>{});
}

/// Every descriptor of T names a member of T or of one of its bases.
template <class T>
constexpr bool descriptors_belong_to() {
  return []<class... F>(FieldList<F...>) {
    return (std::is_base_of_v<typename F::owner, T> && ...);
  }(FieldsOf<T>{});
}

/// The number of Def (binding) fields each node must have; every other node has none.
constexpr std::size_t expected_def_fields(NodeKind k) {
  switch (k) {
    case NodeKind::AssignStmt: return 1;         // var
    case NodeKind::ForStmt: return 3;            // loop_var, iter_args, return_vars
    case NodeKind::WhileStmt: return 2;          // iter_args, return_vars
    case NodeKind::IfStmt: return 1;             // return_vars
    case NodeKind::SplitAivScopeStmt: return 2;  // aiv_id, task_id (always null)
    case NodeKind::InCoreScopeStmt:
    case NodeKind::ClusterScopeStmt:
    case NodeKind::HierarchyScopeStmt:
    case NodeKind::SpmdScopeStmt:
    case NodeKind::RuntimeScopeStmt: return 1;  // task_id (`with ... as tid`)
    case NodeKind::Function: return 1;          // params
    default: return 0;
  }
}

/// True for the nodes that carry a source span.
template <class T>
constexpr bool has_span_member =
    std::is_base_of_v<Expr, T> || std::is_base_of_v<Stmt, T> || std::is_same_v<T, Function>;

/// Number of kinds of the catalog that `range` contains.
constexpr std::size_t kinds_in(KindRange range) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < kNodeKindCount; ++i) n += range.contains(static_cast<NodeKind>(i));
  return n;
}

/// True when `range` contains exactly the kinds in `list`.
template <std::size_t N>
constexpr bool range_is(KindRange range, const NodeKind (&list)[N]) {
  for (std::size_t i = 0; i < kNodeKindCount; ++i) {
    const auto k = static_cast<NodeKind>(i);
    bool listed = false;
    for (NodeKind l : list) listed = listed || l == k;
    if (listed != range.contains(k)) return false;
  }
  return true;
}

// ---- checks on every concrete node -----------------------------------------------------------

#define PYPTO_CHECK_NODE(T)                                                                   \
  static_assert(reflect::Reflected<T>, #T " declares a `fields` list");                       \
  static_assert(reflect::fields_are_distinct<T>(), #T ": descriptor names are distinct");     \
  static_assert(descriptors_are_empty<T>(), #T ": descriptors are empty types");              \
  static_assert(descriptors_belong_to<T>(), #T ": descriptors name members of " #T);          \
  static_assert(reflect::count_fields<T>(FieldKind::Def) == expected_def_fields(NodeKind::T), \
                #T ": number of Def fields");                                                 \
  static_assert(reflect::has_field<T>("span") == has_span_member<T>,                          \
                #T ": a span field exactly when the node has a span");                        \
  static_assert(!has_span_member<T> || kind_of<T>("span") == FieldKind::Ignore,               \
                #T ": span is Ignore");                                                       \
  static_assert(                                                                              \
      !std::is_base_of_v<Stmt, T> || kind_of<T>("leading_comments") == FieldKind::Ignore,     \
      #T ": comments are Ignore");                                                            \
  static_assert(!std::is_base_of_v<Expr, T> || kind_of<T>("type") == FieldKind::Usual,        \
                #T ": an expression's type is compared");                                     \
  static_assert(T::static_kind == NodeKind::T && T::classof(NodeKind::T), #T ": kind tag");   \
  static_assert(reflect::members_accounted_for<T, Node>(),                                    \
                #T ": every member is a field or declared unreflected");
PYPTO_IR_NODES(PYPTO_CHECK_NODE)
#undef PYPTO_CHECK_NODE

// The nested reflected structs are checked like nodes.
static_assert(reflect::fields_are_distinct<TensorView>() && descriptors_are_empty<TensorView>());
static_assert(reflect::fields_are_distinct<TileView>() && descriptors_are_empty<TileView>());
static_assert(reflect::fields_are_distinct<NamedFunction>() &&
              descriptors_are_empty<NamedFunction>());
static_assert(reflect::members_accounted_for<TensorView>() &&
              reflect::members_accounted_for<TileView>() &&
              reflect::members_accounted_for<NamedFunction>());
static_assert(reflect::count_fields<TensorView>(FieldKind::Def) == 0);
static_assert(reflect::count_fields<TileView>(FieldKind::Def) == 0);
static_assert(reflect::count_fields<NamedFunction>(FieldKind::Def) == 0);

// ---- the layout proof sees a member left out ------------------------------------------------

/// Re-lists its base's fields and drops one (task_id), as a hand-written list once did.
struct DropsBaseMember final : ScopeStmt {
  std::int64_t count = 2;
  using fields =
      ConcatFields<Stmt::fields, FieldList<UsualField<&ScopeStmt::name_hint, "name_hint">,
                                           UsualField<&ScopeStmt::body, "body">,
                                           UsualField<&ScopeStmt::attrs, "attrs">,
                                           UsualField<&DropsBaseMember::count, "count">>>;
};
static_assert(!reflect::members_accounted_for<DropsBaseMember, Node>());

/// Declares a member and lists none.
struct DropsOwnMember final : Stmt {
  ExprRef value;
  using fields = Stmt::fields;
};
static_assert(!reflect::members_accounted_for<DropsOwnMember, Node>());

/// The same member, declared unreflected: accounted for.
struct UnreflectedMember final : Stmt {
  ExprRef value;
  using fields = Stmt::fields;
  using unreflected = UnreflectedList<Unreflected<&UnreflectedMember::value>>;
};
static_assert(reflect::members_accounted_for<UnreflectedMember, Node>());

/// A plain struct (no base): its members after an empty root.
struct PlainPair {
  std::int32_t a = 0;
  std::int64_t b = 0;
  using fields = FieldList<UsualField<&PlainPair::a, "a">>;
};
static_assert(!reflect::members_accounted_for<PlainPair>());

// ---- names of binders: Ignore on variables, compared on scopes and program keys ---------------

static_assert(kind_of<Var>("name_hint") == FieldKind::Ignore);
static_assert(kind_of<IterArg>("name_hint") == FieldKind::Ignore);
static_assert(kind_of<WindowBuffer>("name_hint") == FieldKind::Ignore);
#define PYPTO_CHECK_SCOPE(T) \
  static_assert(kind_of<T>("name_hint") == FieldKind::Usual, #T ": a scope name is compared");
PYPTO_IR_SCOPE_NODES(PYPTO_CHECK_SCOPE)
#undef PYPTO_CHECK_SCOPE
static_assert(kind_of<Function>("name") == FieldKind::Ignore);
static_assert(kind_of<Program>("name") == FieldKind::Ignore);
static_assert(kind_of<NamedFunction>("name") == FieldKind::Usual);  // the program's map key
static_assert(kind_of<Op>("name") == FieldKind::Usual);             // callees compare by name
static_assert(kind_of<GlobalVar>("name") == FieldKind::Usual);

// ---- the Def fields are the documented binders -------------------------------------------------

static_assert(kind_of<AssignStmt>("var") == FieldKind::Def);
static_assert(kind_of<ForStmt>("loop_var") == FieldKind::Def);
static_assert(kind_of<ForStmt>("iter_args") == FieldKind::Def);
static_assert(kind_of<ForStmt>("return_vars") == FieldKind::Def);
static_assert(kind_of<WhileStmt>("iter_args") == FieldKind::Def);
static_assert(kind_of<WhileStmt>("return_vars") == FieldKind::Def);
static_assert(kind_of<IfStmt>("return_vars") == FieldKind::Def);
static_assert(kind_of<SplitAivScopeStmt>("aiv_id") == FieldKind::Def);
static_assert(kind_of<Function>("params") == FieldKind::Def);
static_assert(kind_of<Var>("missing") == std::nullopt);

// ---- Field::member, owner and value_type --------------------------------------------------------

static_assert(FieldAt<AssignStmt, 2>::member == &AssignStmt::var);
static_assert(FieldAt<AssignStmt, 3>::member == &AssignStmt::value);
static_assert(std::is_same_v<FieldAt<AssignStmt, 2>::value_type, VarRef>);
static_assert(std::is_same_v<FieldAt<AssignStmt, 2>::owner, AssignStmt>);
static_assert(FieldAt<AssignStmt, 0>::member == &Stmt::span);  // inherited from Stmt's list
static_assert(std::is_same_v<FieldAt<AssignStmt, 0>::owner, Stmt>);
static_assert(FieldAt<Var, 0>::member == &Expr::span);
static_assert(FieldAt<Var, 1>::member == &Expr::type);
static_assert(FieldAt<Var, 2>::member == &Var::name_hint);
static_assert(FieldAt<IterArg, 3>::member == &IterArg::init_value);
static_assert(FieldAt<ForStmt, 6>::member == &ForStmt::iter_args);
static_assert(std::is_same_v<FieldAt<ForStmt, 6>::value_type, std::vector<IterArgRef>>);
static_assert(FieldAt<Add, 2>::member == &BinaryExpr::left);
static_assert(FieldAt<Add, 3>::member == &BinaryExpr::right);
static_assert(FieldAt<Function, 2>::member == &Function::params);
static_assert(FieldAt<Function, 2>::name == "params");
static_assert(FieldAt<Function, 2>::kind == FieldKind::Def);
static_assert(FieldAt<TensorType, 3>::member == &TensorType::tensor_view);
static_assert(FieldAt<TileView, 2>::member == &TileView::start_offset);

// ---- list sizes of a few nodes
// -------------------------------------------------------------------

static_assert(FieldsOf<UnknownType>::size == 0);
static_assert(FieldsOf<ScalarType>::size == 1);
static_assert(FieldsOf<Var>::size == 3);
static_assert(FieldsOf<AssignStmt>::size == 4);
static_assert(FieldsOf<ForStmt>::size == 11);
static_assert(FieldsOf<Submit>::size == 11);
static_assert(FieldsOf<Function>::size == 11);
static_assert(FieldsOf<BreakStmt>::size == 2);

// ---- kind ranges ------------------------------------------------------------------------------

#define PYPTO_KIND(T) NodeKind::T,
constexpr NodeKind kTypeKinds[] = {PYPTO_IR_TYPE_NODES(PYPTO_KIND)};
constexpr NodeKind kExprKinds[] = {PYPTO_IR_EXPR_NODES(PYPTO_KIND)};
constexpr NodeKind kVarKinds[] = {PYPTO_IR_VAR_NODES(PYPTO_KIND)};
constexpr NodeKind kBinaryKinds[] = {PYPTO_IR_BINARY_NODES(PYPTO_KIND)};
constexpr NodeKind kUnaryKinds[] = {PYPTO_IR_UNARY_NODES(PYPTO_KIND)};
constexpr NodeKind kStmtKinds[] = {PYPTO_IR_STMT_NODES(PYPTO_KIND)};
constexpr NodeKind kScopeKinds[] = {PYPTO_IR_SCOPE_NODES(PYPTO_KIND)};
#undef PYPTO_KIND
constexpr NodeKind kOpKinds[] = {NodeKind::Op, NodeKind::GlobalVar};
constexpr NodeKind kShapedKinds[] = {NodeKind::TensorType, NodeKind::TileType};

static_assert(kinds_in(kinds::binary) == 23);
static_assert(kinds_in(kinds::unary) == 5);
static_assert(kinds_in(kinds::scope) == 6);
static_assert(kinds_in(kinds::var) == 3);
static_assert(kinds_in(kinds::type) == 13);
static_assert(kinds_in(kinds::op) == 2);
static_assert(range_is(kinds::type, kTypeKinds));
static_assert(range_is(kinds::expr, kExprKinds));
static_assert(range_is(kinds::var, kVarKinds));
static_assert(range_is(kinds::binary, kBinaryKinds));
static_assert(range_is(kinds::unary, kUnaryKinds));
static_assert(range_is(kinds::stmt, kStmtKinds));
static_assert(range_is(kinds::scope, kScopeKinds));
static_assert(range_is(kinds::op, kOpKinds));
static_assert(range_is(KindRange{NodeKind::TensorType, NodeKind::TileType}, kShapedKinds));

// The abstract classes accept exactly their ranges.
static_assert(ShapedType::classof(NodeKind::TensorType) && ShapedType::classof(NodeKind::TileType));
static_assert(!ShapedType::classof(NodeKind::TupleType));
static_assert(BinaryExpr::classof(NodeKind::BitShiftRight) && !BinaryExpr::classof(NodeKind::Abs));
static_assert(UnaryExpr::classof(NodeKind::Cast) && !UnaryExpr::classof(NodeKind::MemRef));
static_assert(ScopeStmt::classof(NodeKind::RuntimeScopeStmt) &&
              !ScopeStmt::classof(NodeKind::ContinueStmt));
static_assert(Var::classof(NodeKind::WindowBuffer) && !Var::classof(NodeKind::ConstInt));
static_assert(Op::classof(NodeKind::GlobalVar) && !Op::classof(NodeKind::Function));
static_assert(Expr::classof(NodeKind::TupleGetItem) && !Expr::classof(NodeKind::AssignStmt));

// The families partition the catalog: every kind is in exactly one of them.
constexpr bool families_partition() {
  for (std::size_t i = 0; i < kNodeKindCount; ++i) {
    const auto k = static_cast<NodeKind>(i);
    const int n = kinds::type.contains(k) + kinds::expr.contains(k) + kinds::stmt.contains(k) +
                  kinds::op.contains(k) + (k == NodeKind::Function) + (k == NodeKind::Program);
    if (n != 1) return false;
  }
  return true;
}
static_assert(families_partition());

}  // namespace

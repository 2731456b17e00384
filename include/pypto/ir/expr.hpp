// pypto/ir/expr.hpp — expressions: constants, scalar arithmetic, calls, task submits, tuples.
//
// Scalar arithmetic (23 binary kinds, 5 unary kinds) is typed by its builder: operands must be
// scalars of one dtype; comparisons and logic yield BOOL. Constants keep their exact dtype
// (ConstInt defaults to INDEX, ConstFloat to FP32) and the exact bits of their value. A Call
// names its callee by an Op (a builtin such as `tile.load`) or a GlobalVar (another function of
// the program); callees compare by kind and name, never by address. A Submit is an asynchronous
// task launch whose result tuple ends with the task id (Scalar[TASK_ID]).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/core/dtype.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/op_id.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"

namespace pypto::ir {

// ---- callees ----------------------------------------------------------------------------------

namespace detail {
/// Fails unless `name` is dotted identifiers (`tile.load`, `pld.tensor.put`). Every segment but
/// the last must be usable as a name; the last may be a keyword, which the printer writes with a
/// trailing `_` (`tile.and` prints `pl.tile.and_`).
inline void require_op_name(std::string_view name, std::string_view node) {
  require(!name.empty(), node, "name", "must not be empty");
  for (std::size_t start = 0;;) {
    const std::size_t dot = name.find('.', start);
    const std::string_view segment = name.substr(start, dot - start);
    const bool last = dot == std::string_view::npos;
    if (!core::is_identifier(segment) || (!last && core::is_python_keyword(segment))) {
      std::string problem = "'";
      problem.append(name).append("' must be dotted Python identifiers such as tile.load (");
      if (segment.empty())
        problem += "empty segment)";
      else
        problem.append("segment '").append(segment).append("')");
      fail(node, "name", problem);
    }
    if (last) return;
    start = dot + 1;
  }
}
}  // namespace detail

/// A builtin operation, named like `tile.load` (its effects and typing live in the OpRegistry).
struct Op : Node {
  PYPTO_CONCRETE_BASE_NODE(Op, kinds::op)
  std::string name;
  /// The standard catalog's id of `name` (op_id.hpp), for consumers to switch on; derived from
  /// the name, so nothing compares, hashes or prints it. A GlobalVar's is OpId::custom.
  OpId id = OpId::custom;
  using fields = FieldList<UsualField<&Op::name, "name">>;
  using unreflected = UnreflectedList<Unreflected<&Op::id>>;

  static Ref<const Op> make(std::string name) {
    detail::require_op_name(name, "Op");
    auto o = make_node<Op>();
    o->name = std::move(name);
    o->id = op_id(o->name);
    return o;
  }
};
using OpRef = Ref<const Op>;

/// A reference to a function of the enclosing Program, by name.
struct GlobalVar final : Op {
  PYPTO_CONCRETE_NODE(GlobalVar)
  using fields = Op::fields;

  static Ref<const GlobalVar> make(std::string name) {
    detail::require_name(name, "GlobalVar", "name");
    auto g = make_node<GlobalVar>();
    g->name = std::move(name);
    return g;
  }
};
using GlobalVarRef = Ref<const GlobalVar>;

// ---- constants --------------------------------------------------------------------------------

namespace detail {
inline bool int_fits(std::int64_t v, core::DataType t) {
  const unsigned bits = core::bit_width(t);
  if (core::is_unsigned_int(t)) return v >= 0 && (bits >= 63 || v < (std::int64_t{1} << bits));
  if (bits >= 64) return true;
  const std::int64_t lim = std::int64_t{1} << (bits - 1);
  return v >= -lim && v < lim;
}
}  // namespace detail

struct ConstInt final : Expr {
  PYPTO_CONCRETE_NODE(ConstInt)
  std::int64_t value = 0;
  using fields = ConcatFields<Expr::fields, FieldList<UsualField<&ConstInt::value, "value">>>;

  core::DataType dtype() const { return static_cast<const ScalarType&>(*type).dtype; }

  static Ref<const ConstInt> make(std::int64_t value, DataType dtype = DataType::INDEX,
                                  Span span = {}) {
    if (!core::is_int(dtype))
      detail::fail("ConstInt", "type",
                   "dtype " + std::string(core::dtype_name(dtype)) + " is not an integer type");
    if (!detail::int_fits(value, dtype))
      detail::fail("ConstInt", "value",
                   std::to_string(value) + " does not fit " + std::string(core::dtype_name(dtype)));
    auto c = make_node<ConstInt>();
    c->type = ScalarType::make(dtype);
    c->span = std::move(span);
    c->value = value;
    return c;
  }
};

struct ConstFloat final : Expr {
  PYPTO_CONCRETE_NODE(ConstFloat)
  double value = 0;  ///< compared by bit pattern: -0.0 != 0.0, NaN payloads kept
  using fields = ConcatFields<Expr::fields, FieldList<UsualField<&ConstFloat::value, "value">>>;

  core::DataType dtype() const { return static_cast<const ScalarType&>(*type).dtype; }

  static Ref<const ConstFloat> make(double value, DataType dtype = DataType::FP32, Span span = {}) {
    if (!core::is_float(dtype))
      detail::fail("ConstFloat", "type",
                   "dtype " + std::string(core::dtype_name(dtype)) + " is not a float type");
    auto c = make_node<ConstFloat>();
    c->type = ScalarType::make(dtype);
    c->span = std::move(span);
    c->value = value;
    return c;
  }
};

struct ConstBool final : Expr {
  PYPTO_CONCRETE_NODE(ConstBool)
  bool value = false;
  using fields = ConcatFields<Expr::fields, FieldList<UsualField<&ConstBool::value, "value">>>;

  static Ref<const ConstBool> make(bool value, Span span = {}) {
    auto c = make_node<ConstBool>();
    c->type = ScalarType::make(DataType::BOOL);
    c->span = std::move(span);
    c->value = value;
    return c;
  }
};

// ---- scalar arithmetic ------------------------------------------------------------------------

/// How a binary or unary kind types its operands and result.
enum class OperatorClass : std::uint8_t {
  Arithmetic,  ///< numeric operands of one dtype (or INDEX beside INT64); result the left dtype
  Comparison,  ///< operands of one dtype (or INDEX beside INT64); result BOOL
  Logical,     ///< BOOL operands (`not` takes any scalar); result BOOL
  Bitwise,     ///< integer operands of one dtype (or INDEX beside INT64); result the left dtype
};

constexpr OperatorClass operator_class(NodeKind k) {
  switch (k) {
    case NodeKind::Eq:
    case NodeKind::Ne:
    case NodeKind::Lt:
    case NodeKind::Le:
    case NodeKind::Gt:
    case NodeKind::Ge: return OperatorClass::Comparison;
    case NodeKind::And:
    case NodeKind::Or:
    case NodeKind::Xor:
    case NodeKind::Not: return OperatorClass::Logical;
    case NodeKind::BitAnd:
    case NodeKind::BitOr:
    case NodeKind::BitXor:
    case NodeKind::BitShiftLeft:
    case NodeKind::BitShiftRight:
    case NodeKind::BitNot: return OperatorClass::Bitwise;
    default: return OperatorClass::Arithmetic;
  }
}

namespace detail {
/// The operand's scalar dtype, or a ValueError naming the operand.
inline DataType scalar_operand(const ExprRef& e, std::string_view node, std::string_view field) {
  require(static_cast<bool>(e), node, field, "must not be null");
  const auto* st = as<ScalarType>(e->type.get());
  require(st != nullptr, node, field, "must be a scalar expression");
  return st->dtype;
}
/// INDEX and INT64 are one 64-bit signed word: as upstream's IR, an operator takes them mixed
/// and no Cast stands between them.
constexpr bool one_word(DataType a, DataType b) {
  return (a == DataType::INDEX && b == DataType::INT64) ||
         (a == DataType::INT64 && b == DataType::INDEX);
}
/// Checks an operand dtype against the operator class; returns the result dtype.
inline DataType typed_result(OperatorClass c, DataType operand, std::string_view node) {
  switch (c) {
    case OperatorClass::Logical:
      require(operand == DataType::BOOL, node, "operand", "logical operators need BOOL operands");
      return DataType::BOOL;
    case OperatorClass::Bitwise:
      require(core::is_int(operand), node, "operand", "bitwise operators need integer operands");
      return operand;
    case OperatorClass::Comparison: return DataType::BOOL;
    case OperatorClass::Arithmetic:
      if (operand == DataType::BOOL || operand == DataType::TASK_ID)
        fail(node, "operand",
             "arithmetic needs numeric operands, got " + std::string(core::dtype_name(operand)));
      return operand;
  }
  return operand;
}
}  // namespace detail

/// Base of the 23 binary kinds (Add ... BitShiftRight).
struct BinaryExpr : Expr {
  PYPTO_ABSTRACT_NODE(BinaryExpr, kinds::binary)
  ExprRef left, right;
  using fields = ConcatFields<Expr::fields, FieldList<UsualField<&BinaryExpr::left, "left">,
                                                      UsualField<&BinaryExpr::right, "right">>>;
};

template <NodeKind K>
struct BinaryNode final : BinaryExpr {
  static constexpr NodeKind static_kind = K;
  static constexpr std::string_view class_name = kind_name(K);
  static constexpr bool classof(NodeKind k) { return k == K; }
  using fields = BinaryExpr::fields;

  /// Operands of one dtype, or INDEX beside INT64 (see detail::one_word); the result is
  /// typed by the left operand.
  static Ref<const BinaryNode> make(ExprRef left, ExprRef right, Span span = {}) {
    const DataType l = detail::scalar_operand(left, class_name, "left");
    const DataType r = detail::scalar_operand(right, class_name, "right");
    if (l != r && !detail::one_word(l, r))
      detail::fail(class_name, "right",
                   "operand dtypes differ (" + std::string(core::dtype_name(l)) + " vs " +
                       std::string(core::dtype_name(r)) + "); insert a Cast");
    auto b = make_node<BinaryNode>();
    b->type = ScalarType::make(detail::typed_result(operator_class(K), l, class_name));
    b->span = std::move(span);
    b->left = std::move(left);
    b->right = std::move(right);
    return b;
  }
};

#define PYPTO_X(T) using T = BinaryNode<NodeKind::T>;
PYPTO_IR_BINARY_NODES(PYPTO_X)
#undef PYPTO_X

/// Base of the unary kinds (Abs, Neg, Not, BitNot, Cast).
struct UnaryExpr : Expr {
  PYPTO_ABSTRACT_NODE(UnaryExpr, kinds::unary)
  ExprRef operand;
  using fields = ConcatFields<Expr::fields, FieldList<UsualField<&UnaryExpr::operand, "operand">>>;
};

template <NodeKind K>
struct UnaryNode final : UnaryExpr {
  static constexpr NodeKind static_kind = K;
  static constexpr std::string_view class_name = kind_name(K);
  static constexpr bool classof(NodeKind k) { return k == K; }
  using fields = UnaryExpr::fields;

  /// `not x` takes any scalar (its truth value) and gives BOOL, as upstream's.
  static Ref<const UnaryNode> make(ExprRef operand, Span span = {}) {
    const DataType t = detail::scalar_operand(operand, class_name, "operand");
    auto u = make_node<UnaryNode>();
    u->type = ScalarType::make(K == NodeKind::Not
                                   ? DataType::BOOL
                                   : detail::typed_result(operator_class(K), t, class_name));
    u->span = std::move(span);
    u->operand = std::move(operand);
    return u;
  }
};
using Abs = UnaryNode<NodeKind::Abs>;
using Neg = UnaryNode<NodeKind::Neg>;
using Not = UnaryNode<NodeKind::Not>;
using BitNot = UnaryNode<NodeKind::BitNot>;

/// A scalar conversion; the target dtype is the result type.
struct Cast final : UnaryExpr {
  PYPTO_CONCRETE_NODE(Cast)
  using fields = UnaryExpr::fields;

  DataType target() const { return static_cast<const ScalarType&>(*type).dtype; }

  static Ref<const Cast> make(ExprRef operand, DataType target, Span span = {}) {
    detail::scalar_operand(operand, "Cast", "operand");
    auto c = make_node<Cast>();
    c->type = ScalarType::make(target);
    c->span = std::move(span);
    c->operand = std::move(operand);
    return c;
  }
};

/// The operands of the binary kind `K` brought to one dtype, as upstream's scalar operator
/// builders do: two integers or two floats take the wider dtype (the left one at equal width),
/// the other operand is wrapped in a Cast (none between INDEX and INT64, see
/// detail::one_word); an integer beside a float, or a non-numeric operand, is left to
/// BinaryNode<K>::make to reject. Logical kinds (BOOL operands) are left as they are.
template <NodeKind K>
void promote_operands(ExprRef& left, ExprRef& right, const Span& span = {}) {
  if (operator_class(K) == OperatorClass::Logical) return;
  const DataType l = detail::scalar_operand(left, kind_name(K), "left");
  const DataType r = detail::scalar_operand(right, kind_name(K), "right");
  const bool ints = core::is_int(l) && core::is_int(r);
  if (l == r || !(ints || (core::is_float(l) && core::is_float(r)))) return;
  const DataType to = core::bit_width(r) > core::bit_width(l) ? r : l;
  for (ExprRef* e : {&left, &right})
    if (const DataType d = e == &left ? l : r; d != to && !detail::one_word(d, to))
      *e = Cast::make(*e, to, span);
}

/// `left K right` with its operands promoted (promote_operands).
template <NodeKind K>
ExprRef make_promoted(ExprRef left, ExprRef right, Span span = {}) {
  promote_operands<K>(left, right, span);
  return BinaryNode<K>::make(std::move(left), std::move(right), std::move(span));
}

// ---- calls ------------------------------------------------------------------------------------

namespace detail {
/// Fails unless every key of `kwargs` can be written as `key=value` in the printed call: a
/// usable name, and not one of the keywords the printer itself writes on this node (`reserved`).
inline void require_kwarg_keys(const Attrs& kwargs, std::string_view node,
                               std::initializer_list<std::string_view> reserved) {
  for (std::size_t i = 0; i < kwargs.size(); ++i) {
    const std::string& key = kwargs.entries[i].key;
    require_name(key, node, indexed("kwargs", i));
    for (std::string_view r : reserved)
      if (key == r)
        fail(node, indexed("kwargs", i),
             "'" + key + "' is reserved: the printer writes the " + std::string(node) + "'s own '" +
                 key + "=' keyword");
  }
}
}  // namespace detail

/// A call of a builtin op or of a program function. `kwargs` are the op's keyword arguments;
/// `attrs` are pass bookkeeping (arg_directions, dump_vars, ...). `type` is the result type.
struct Call final : Expr {
  PYPTO_CONCRETE_NODE(Call)
  OpRef op;
  std::vector<ExprRef> args;
  Attrs kwargs;
  Attrs attrs;

  using fields = ConcatFields<
      Expr::fields,
      FieldList<UsualField<&Call::op, "op">, UsualField<&Call::args, "args">,
                UsualField<&Call::kwargs, "kwargs">, UsualField<&Call::attrs, "attrs">>>;

  static Ref<const Call> make(OpRef op, std::vector<ExprRef> args, TypeRef type, Attrs kwargs = {},
                              Attrs attrs = {}, Span span = {}) {
    detail::require(static_cast<bool>(op), "Call", "op", "a call needs a callee");
    detail::require(static_cast<bool>(type), "Call", "type", "a call needs a result type");
    detail::require_non_null(args, "Call", "args");
    detail::require_kwarg_keys(kwargs, "Call", {"attrs"});
    auto c = make_node<Call>();
    c->type = std::move(type);
    c->span = std::move(span);
    c->op = std::move(op);
    c->args = std::move(args);
    c->kwargs = std::move(kwargs);
    c->attrs = std::move(attrs);
    return c;
  }
};

/// Launch options of a Submit, named for readable builder calls.
struct SubmitLaunch {
  std::vector<ExprRef> deps;  ///< task ids this task waits for
  ExprRef core_num;           ///< optional SPMD core count
  bool sync_start = false;    ///< all cores start together
  bool allow_early_resolve = false;
  ExprRef predicate;  ///< optional: run only when true
};

/// An asynchronous task launch of a function; the result is a tuple whose last element is the
/// task id (Scalar[TASK_ID]). `args` may be a prefix of the callee's parameters (omitted trailing
/// outputs are allocated by the runtime).
struct Submit final : Expr {
  PYPTO_CONCRETE_NODE(Submit)
  OpRef op;
  std::vector<ExprRef> args;
  std::vector<ExprRef> deps;
  ExprRef core_num;
  bool sync_start = false;
  bool allow_early_resolve = false;
  ExprRef predicate;
  Attrs kwargs;
  Attrs attrs;

  using fields = ConcatFields<
      Expr::fields,
      FieldList<UsualField<&Submit::op, "op">, UsualField<&Submit::args, "args">,
                UsualField<&Submit::deps, "deps">, UsualField<&Submit::core_num, "core_num">,
                UsualField<&Submit::sync_start, "sync_start">,
                UsualField<&Submit::allow_early_resolve, "allow_early_resolve">,
                UsualField<&Submit::predicate, "predicate">, UsualField<&Submit::kwargs, "kwargs">,
                UsualField<&Submit::attrs, "attrs">>>;

  static Ref<const Submit> make(OpRef op, std::vector<ExprRef> args, TypeRef type,
                                SubmitLaunch launch = {}, Attrs kwargs = {}, Attrs attrs = {},
                                Span span = {}) {
    detail::require(static_cast<bool>(op), "Submit", "op", "a submit needs a callee");
    const auto* tuple = as<TupleType>(type.get());
    const auto* tid =
        tuple && !tuple->types.empty() ? as<ScalarType>(tuple->types.back().get()) : nullptr;
    detail::require(tid && tid->dtype == DataType::TASK_ID, "Submit", "type",
                    "the result must be a tuple ending with Scalar[TASK_ID]");
    detail::require_non_null(args, "Submit", "args");
    detail::require_non_null(launch.deps, "Submit", "deps");
    for (std::size_t i = 0; i < launch.deps.size(); ++i)
      if (!is_task_dependency(launch.deps[i]))
        detail::fail("Submit", detail::indexed("deps", i),
                     "a dependency must be a TASK_ID or an array of them");
    detail::require(!launch.core_num || is_integer_scalar(launch.core_num), "Submit", "core_num",
                    "must be an integer scalar expression");
    detail::require(!launch.predicate || has_scalar_dtype(launch.predicate, DataType::BOOL),
                    "Submit", "predicate", "must be a BOOL scalar expression");
    detail::require_kwarg_keys(
        kwargs, "Submit",
        {"attrs", "deps", "core_num", "sync_start", "allow_early_resolve", "predicate"});
    auto s = make_node<Submit>();
    s->type = std::move(type);
    s->span = std::move(span);
    s->op = std::move(op);
    s->args = std::move(args);
    s->deps = std::move(launch.deps);
    s->core_num = std::move(launch.core_num);
    s->sync_start = launch.sync_start;
    s->allow_early_resolve = launch.allow_early_resolve;
    s->predicate = std::move(launch.predicate);
    s->kwargs = std::move(kwargs);
    s->attrs = std::move(attrs);
    return s;
  }
};

// ---- tuples -----------------------------------------------------------------------------------

struct MakeTuple final : Expr {
  PYPTO_CONCRETE_NODE(MakeTuple)
  std::vector<ExprRef> elements;
  using fields =
      ConcatFields<Expr::fields, FieldList<UsualField<&MakeTuple::elements, "elements">>>;

  /// The tuple's type is the tuple of its elements' types.
  static Ref<const MakeTuple> make(std::vector<ExprRef> elements, Span span = {}) {
    detail::require_non_null(elements, "MakeTuple", "elements");
    std::vector<TypeRef> types;
    types.reserve(elements.size());
    for (const auto& e : elements) types.push_back(e->type);
    auto t = make_node<MakeTuple>();
    t->type = TupleType::make(std::move(types));
    t->span = std::move(span);
    t->elements = std::move(elements);
    return t;
  }
};

struct TupleGetItem final : Expr {
  PYPTO_CONCRETE_NODE(TupleGetItem)
  ExprRef tuple;
  std::int64_t index = 0;
  using fields = ConcatFields<Expr::fields, FieldList<UsualField<&TupleGetItem::tuple, "tuple">,
                                                      UsualField<&TupleGetItem::index, "index">>>;

  static Ref<const TupleGetItem> make(ExprRef tuple, std::int64_t index, Span span = {}) {
    detail::require(static_cast<bool>(tuple), "TupleGetItem", "tuple", "must not be null");
    const auto* tt = as<TupleType>(tuple->type.get());
    detail::require(tt != nullptr, "TupleGetItem", "tuple", "must have a tuple type");
    if (index < 0 || static_cast<std::size_t>(index) >= tt->types.size())
      detail::fail("TupleGetItem", "index",
                   std::to_string(index) + " is out of range for a " +
                       std::to_string(tt->types.size()) + "-element tuple");
    auto g = make_node<TupleGetItem>();
    g->type = tt->types[static_cast<std::size_t>(index)];
    g->span = std::move(span);
    g->tuple = std::move(tuple);
    g->index = index;
    return g;
  }
};

}  // namespace pypto::ir

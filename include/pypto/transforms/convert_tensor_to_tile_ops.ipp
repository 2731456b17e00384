// pypto/transforms/convert_tensor_to_tile_ops.ipp — the definitions of
// transforms/convert_tensor_to_tile_ops.hpp.
#pragma once

#include "pypto/transforms/convert_tensor_to_tile_ops.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/reflect/field.hpp"
#include "pypto/text/call_types.hpp"
#include "pypto/transforms/body_slots.hpp"
#include "pypto/transforms/outline_properties.hpp"
#include "pypto/transforms/pass.hpp"
#include "pypto/transforms/property.hpp"
#include "pypto/transforms/return_lineage.hpp"
#include "pypto/transforms/substitute.hpp"
#include "pypto/transforms/use_def.hpp"

// The conversion in full:
//
// In every InCore / AIC / AIV function the tensor-level compute ops of the body's top-level
// statement list become tile ops on tiles loaded from and stored to global-memory tensors:
//   tensor.add/sub/mul/div/maximum/minimum  -> tile.add/sub/mul/div/max/min
//   tensor.neg/exp/sqrt                     -> tile.neg/exp/sqrt
//   tensor.full(shape, dtype, value)        -> tile.full
//   tensor.slice(t, shape, offset[, valid]) -> tile.load(t, offset, shape[, valid]) (clamp kept)
//   tensor.assemble(dst, src, offset)       -> tile.store(src_tile, offset, dst) (atomic kept;
//                                              the result keeps its Var: it is the written dst)
// A tensor operand held in global memory (a parameter, an assemble/store result, ...) is loaded
// once, whole, at its first converted use: `x_tile = tile.load(x, [0, ..], shape)`. A value a
// converted op computed lives only in a tile; when a statement that is not converted reads it
// (a return, a call, tensor.read/dim, ...) it is materialized just before that statement:
//   - a value the kernel returns (a Var of any ReturnStmt) is stored into a new trailing
//     `pl.Out` parameter `<name>_out` of the stored value's tensor type —
//     `y_gm = tile.store(y_tile, [0, ..], y_out)` — and the kernel returns `y_out` itself
//     (kernels return the parameters they write; ReturnParamsExplicit). The new parameters
//     follow the existing ones in the order of the values' first return position.
//     Every caller then passes them (see CallerRewriter below): before `r = self.k(...)` an
//     Orchestration or Opaque function allocates `y_out = tensor.create(shape, dtype=...)` with
//     the shape of the call's recorded result type (the caller's coordinates; a dimension using
//     a variable the caller does not bind before the call is a KernelOutputCallError), and a
//     Submit is left as it is — it omits trailing outputs and the runtime allocates them. A call
//     from a Group / Spmd wrapper or another kernel, or one nested in an expression, is a
//     KernelOutputCallError naming the caller, the kernel and line:column.
//   - any other value (scratch the kernel reads as a tensor) is stored into a kernel-local
//     buffer — `y_buf = tensor.create(shape, dtype)`, `y_gm = tile.store(y_tile, [0, ..], y_buf)`.
// Either way the statement, and every later one, reads `y_gm`. A tensor.create the kernel
// itself writes is kept as it is.
// tensor.dim / tensor.create / tensor.read / tensor.write stay: they are global-memory accesses
// a kernel may keep. Any other `tensor.*` op, and a convertible one nested in an expression or
// inside a loop, if or scope, is a TensorToTileError naming the function, the op and line:column.
//
// The function's `cache_policy` attr — sorted (parameter index, CachePolicy) pairs written by the
// outliner (scope_outliner.hpp) — becomes a `cache=` kwarg on every tile.load of that parameter
// anywhere in the body (a load that already has one keeps it), and the attr is erased: after
// this pass the loads are the only carriers of the policy.
//
// Orchestration, Group, Spmd, Graph and Opaque functions are not touched except where they call
// a kernel that gained Out parameters. A kernel with nothing to convert and no cache_policy attr
// is returned as the same object, and so is the program when no function changed: the pass is
// idempotent (a kernel returning its parameter has nothing left to move). Requires SSAForm and
// SplitIncoreOrch; keeps SSA (every new Var is bound once) and every other property. Parameter
// order and names follow statement order and name hints only, never pointer values. O(N) per
// function plus O(1) expected per lookup.

namespace pypto::transforms {

namespace detail::tensor_to_tile {

/// The tile op of an elementwise tensor op, or empty.
inline std::string_view elementwise_tile_op(std::string_view op) {
  static constexpr std::pair<std::string_view, std::string_view> kTable[] = {
      {"tensor.add", "tile.add"},         {"tensor.sub", "tile.sub"},
      {"tensor.mul", "tile.mul"},         {"tensor.div", "tile.div"},
      {"tensor.maximum", "tile.maximum"}, {"tensor.minimum", "tile.minimum"},
      {"tensor.neg", "tile.neg"},         {"tensor.exp", "tile.exp"},
      {"tensor.sqrt", "tile.sqrt"},       {"tensor.adds", "tile.adds"},
      {"tensor.subs", "tile.subs"},       {"tensor.muls", "tile.muls"},
      {"tensor.divs", "tile.divs"},       {"tensor.abs", "tile.abs"},
  };
  for (const auto& [from, to] : kTable)
    if (from == op) return to;
  return {};
}

inline bool is_converted(std::string_view op) {
  return !elementwise_tile_op(op).empty() || op == "tensor.slice" || op == "tensor.assemble" ||
         op == "tensor.full";
}

/// Global-memory accesses a kernel keeps as they are.
inline bool is_kept(std::string_view op) {
  return op == "tensor.dim" || op == "tensor.create" || op == "tensor.read" || op == "tensor.write";
}

inline bool is_tensor_op(const ir::Call& c) {
  return !ir::isa<ir::GlobalVar>(*c.op) && c.op->name.rfind("tensor.", 0) == 0;
}

/// The `cache_policy` attr as parameter index -> policy; a malformed attr is an InternalError
/// (only the outliner writes it).
inline std::map<std::size_t, ir::CachePolicy> cache_policies(const ir::Function& f) {
  std::map<std::size_t, ir::CachePolicy> out;
  const ir::AttrValue* v = f.attrs.find("cache_policy");
  if (!v) return out;
  auto bad = [&]() -> core::InternalError {
    return core::InternalError("convert-tensor-to-tile-ops: function '" + f.name +
                               "': attr cache_policy is not a list of [param index, policy]");
  };
  const auto* list = v->get_if<ir::AttrValueList>();
  if (!list) throw bad();
  for (const auto& item : *list) {
    const auto* pair = item.get_if<ir::AttrValueList>();
    if (!pair || pair->size() != 2) throw bad();
    const auto* idx = (*pair)[0].get_if<std::int64_t>();
    const auto* pol = (*pair)[1].get_if<std::int64_t>();
    if (!idx || !pol || *idx < 0 || static_cast<std::size_t>(*idx) >= f.params.size() ||
        (*pol != 0 && *pol != 1))
      throw bad();
    out[static_cast<std::size_t>(*idx)] = static_cast<ir::CachePolicy>(*pol);
  }
  return out;
}

/// Rebuilds a statement tree bottom-up, passing every rebuilt (or kept) expression and statement
/// node through `hook`, which returns it or its replacement; unchanged subtrees are kept, and a
/// node shared by several parents is rewritten once. Types, ops and variables are left as they
/// are. The walk is generic over the field descriptors (substitute.hpp's FieldRewriter).
class BottomUpRewriter : private ::pypto::transforms::detail::FieldRewriter<BottomUpRewriter> {
  friend class ::pypto::transforms::detail::FieldRewriter<BottomUpRewriter>;

 public:
  using Hook = std::function<ir::NodeRef(const ir::NodeRef&)>;
  explicit BottomUpRewriter(Hook hook) : hook_(std::move(hook)) {}
  ir::StmtRef stmt(const ir::StmtRef& s) { return rewrite(s); }

 private:
  template <class T>
  ir::Ref<const T> rewrite(const ir::Ref<const T>& ref) {
    if (!ref) return ref;
    if constexpr (std::is_base_of_v<ir::Type, T> || std::is_base_of_v<ir::Op, T> ||
                  std::is_base_of_v<ir::Var, T>) {
      return ref;
    } else {
      ir::NodeRef done = node(ir::NodeRef(ref));
      return ir::Ref<const T>(static_cast<const T*>(done.get()));
    }
  }
  template <class T>
  bool rewrite_handle(ir::Ref<const T>& ref) {
    if (!ref) return false;
    auto out = rewrite(ref);
    if (out == ref) return false;
    ref = std::move(out);
    return true;
  }
  ir::NodeRef node(const ir::NodeRef& n) {
    if (ir::isa<ir::Type>(*n) || ir::isa<ir::Op>(*n) || ir::isa<ir::Var>(*n)) return n;
    if (const ir::NodeRef* done = memo_.find(n.get())) return *done;
    ir::NodeRef out = ir::visit(*n, [&](const auto& concrete) -> ir::NodeRef {
      auto copy = rebuilt(concrete);
      return copy ? ir::NodeRef(copy) : n;
    });
    out = hook_(out);
    memo_.insert(n.get(), out);
    return out;
  }

  Hook hook_;
  ::pypto::detail::PointerMap<ir::NodeRef> memo_;  // looked up, never iterated
};

/// Adds `cache=policy` to every tile.load whose tensor argument is a parameter with a policy
/// and that has no `cache` kwarg yet, anywhere in a statement tree.
inline ir::StmtRef with_cache_kwargs(const ir::StmtRef& body, const ir::Function& f,
                                     const std::map<std::size_t, ir::CachePolicy>& policies) {
  ::pypto::detail::PointerMap<ir::CachePolicy> policy;  // looked up, never iterated
  for (const auto& [index, p] : policies) policy.insert(f.params[index].get(), p);
  return BottomUpRewriter([&](const ir::NodeRef& n) -> ir::NodeRef {
           const auto* call = ir::as<ir::Call>(n.get());
           if (!call || ir::isa<ir::GlobalVar>(*call->op) || call->op->name != "tile.load" ||
               call->args.empty() || call->kwargs.find("cache"))
             return n;
           const auto* param = ir::as<ir::Var>(call->args[0].get());
           const ir::CachePolicy* p = param ? policy.find(param) : nullptr;
           if (!p) return n;
           auto copy = ir::copy_node(*call);
           copy->kwargs = call->kwargs.with("cache", *p);
           return copy;
         })
      .stmt(body);
}

/// `body` with each value of a ReturnStmt that `to` maps (by Var identity) replaced.
inline ir::StmtRef with_returned(const ir::StmtRef& body,
                                 const ::pypto::detail::PointerMap<ir::VarRef>& to) {
  return BottomUpRewriter([&](const ir::NodeRef& n) -> ir::NodeRef {
           const auto* ret = ir::as<ir::ReturnStmt>(n.get());
           if (!ret) return n;
           std::vector<ir::ExprRef> values = ret->values;
           bool changed = false;
           for (ir::ExprRef& v : values)
             if (const ir::VarRef* p = to.find(v.get())) {
               v = *p;
               changed = true;
             }
           if (!changed) return n;
           auto copy = ir::copy_node(*ret);
           copy->values = std::move(values);
           return copy;
         })
      .stmt(body);
}

/// A trailing Out parameter a kernel gained: the returned value it holds, and the first return
/// position that hands it back (its type at a call site is the call's result type there).
struct AddedOutput {
  ir::VarRef param;
  std::size_t return_position = 0;
};

/// The conversion of one kernel's body.
class KernelConverter {
 public:
  KernelConverter(const ir::Function& f, const ir::OpRegistry& ops) : f_(f), ops_(ops) {}

  /// The converted function, or `fn` itself when nothing changes.
  ir::FunctionRef run(const ir::FunctionRef& fn) {
    const auto policies = cache_policies(f_);
    if (!f_.body) return fn;
    find_returned_values();
    const auto* seq = ir::as<ir::SeqStmts>(f_.body.get());
    std::vector<ir::StmtRef> input = seq ? seq->stmts : std::vector<ir::StmtRef>{f_.body};
    for (const ir::StmtRef& s : input) statement(s);
    if (!changed_ && policies.empty()) return fn;

    ir::StmtRef body = f_.body;
    if (changed_) {
      if (seq) {
        auto copy = ir::copy_node(*seq);
        copy->stmts = std::move(out_);
        body = copy;
      } else {
        body = ir::SeqStmts::make(std::move(out_), f_.body->span);
      }
    }
    if (!policies.empty()) body = with_cache_kwargs(body, f_, policies);

    auto copy = ir::copy_node(f_);
    if (!outputs_.empty()) {
      // The kernel returns the parameters it stores into (ReturnParamsExplicit), which follow
      // the existing ones in the order of the values' first return position.
      std::stable_sort(outputs_.begin(), outputs_.end(), [](const Output& a, const Output& b) {
        return a.added.return_position < b.added.return_position;
      });
      ::pypto::detail::PointerMap<ir::VarRef> param_of_store;  // looked up, never iterated
      for (const Output& o : outputs_) {
        param_of_store.insert(o.stored.get(), o.added.param);
        copy->params.push_back(o.added.param);
        copy->param_directions.push_back(ir::ParamDirection::Out);
        added_.push_back(o.added);
      }
      body = with_returned(body, param_of_store);
    }
    copy->body = std::move(body);
    copy->attrs = f_.attrs.without("cache_policy");
    return copy;
  }

  /// The Out parameters `run` appended, in parameter order.
  const std::vector<AddedOutput>& added_outputs() const { return added_; }

 private:
  [[noreturn]] void fail(const ir::Call& c, const ir::Span& fallback, const std::string& why) {
    throw TensorToTileError(f_.name, c.op->name, c.span.is_known() ? c.span : fallback, why);
  }

  void statement(const ir::StmtRef& s) {
    if (const auto* assign = ir::as<ir::AssignStmt>(s.get()))
      if (const auto* call = ir::as<ir::Call>(assign->value.get()))
        if (is_tensor_op(*call) && is_converted(call->op->name)) {
          convert(*assign, *call);
          changed_ = true;
          return;
        }
    keep(s);
  }

  /// A statement kept as it is, after materializing the computed values it reads.
  void keep(const ir::StmtRef& s) {
    std::vector<ir::VarRef> reads;
    ir::for_each_node(ir::NodeRef(s), [&](const ir::Node& n) {
      if (const auto* c = ir::as<ir::Call>(&n)) {
        if (!is_tensor_op(*c) || is_kept(c->op->name)) return;
        if (!is_converted(c->op->name))
          fail(*c, s->span,
               "has no tile form (converted: tensor.add/sub/mul/div/maximum/minimum/neg/exp/"
               "sqrt/full/slice/assemble; kept: tensor.dim/create/read/write)");
        fail(*c, s->span,
             ir::isa<ir::AssignStmt>(*s) || ir::isa<ir::EvalStmt>(*s)
                 ? "is nested in an expression; only `v = " + c->op->name +
                       "(...)` statements are converted"
                 : "is inside a " + std::string(ir::kind_name(s->kind())) +
                       "; only the kernel's top-level statements are converted yet");
      }
      if (const auto* v = ir::as<ir::Var>(&n))
        if (computed(*v)) reads.push_back(ir::VarRef(v));
    });
    if (reads.empty()) {
      out_.push_back(changed_ ? subst_.stmt(s) : s);
      return;
    }
    for (const ir::VarRef& v : reads) materialize(v, s->span);
    out_.push_back(subst_.stmt(s));
  }

  /// `v`'s data, computed into a tile, stored into a fresh buffer that replaces `v` from here.
  void materialize(const ir::VarRef& v, const ir::Span& span) {
    if (materialized_.find(*v)) return;  // read twice in one statement
    const auto* t = ir::as<ir::TensorType>(v->type.get());
    if (!t)
      throw core::InternalError("convert-tensor-to-tile-ops: '" + v->name_hint +
                                "' is computed into a tile but is not a tensor");
    const std::size_t* position = return_position_.find(*v);
    ir::VarRef buf;
    if (position) {  // returned: the caller allocates it and passes it as a new Out parameter
      buf = ir::Var::make(v->name_hint + "_out", ir::TensorType::make(t->dtype, t->shape), span);
    } else {  // scratch the kernel reads as a tensor: its own buffer
      ir::Attrs kw;
      kw = kw.with("dtype", t->dtype);
      buf = ir::Var::make(v->name_hint + "_buf", ir::TensorType::make(t->dtype, t->shape), span);
      emit(buf, ops_.make_call("tensor.create", {shape(*t)}, kw, {}, span), span);
    }
    ir::VarRef stored =
        fresh(v->name_hint + "_gm", "tile.store", {*tile_.find(v.get()), zeros(*t), buf}, {}, span);
    if (position) outputs_.push_back({{buf, *position}, stored});
    subst_.set(*v, stored);
    materialized_.set(*v, stored);
    changed_ = true;
  }

  /// Each Var a ReturnStmt of the body hands back, with the first position it is returned at
  /// (return statements in pre-order, values in order).
  void find_returned_values() {
    ir::for_each_node(ir::NodeRef(f_.body), [&](const ir::Node& n) {
      const auto* ret = ir::as<ir::ReturnStmt>(&n);
      if (!ret) return;
      for (std::size_t k = 0; k < ret->values.size(); ++k)
        if (const auto* v = ir::as<ir::Var>(ret->values[k].get()); v && !return_position_.find(*v))
          return_position_.set(*v, k);
    });
  }

  void convert(const ir::AssignStmt& s, const ir::Call& c) {
    const std::string& op = c.op->name;
    const ir::Span span = c.span.is_known() ? c.span : s.span;
    if (std::string_view tile_op = elementwise_tile_op(op); !tile_op.empty()) {
      std::vector<ir::ExprRef> args;
      for (const ir::ExprRef& a : c.args) args.push_back(operand(c, a, span));
      bind_tile(s.var, fresh(s.var->name_hint + "_tile", tile_op, std::move(args), {}, span));
    } else if (op == "tensor.full") {
      bind_tile(s.var, fresh(s.var->name_hint + "_tile", "tile.full", {scalar_free(c, c.args[0])},
                             c.kwargs, span));
    } else if (op == "tensor.slice") {
      if (c.kwargs.find("pad_value")) fail(c, s.span, "with pad_value has no tile.load form yet");
      const ir::VarRef src = global(c, c.args[0]);
      std::vector<ir::ExprRef> args{subst_.expr(src), scalar_free(c, c.args[2]),
                                    scalar_free(c, c.args[1])};
      if (c.args.size() > 3) args.push_back(scalar_free(c, c.args[3]));
      bind_tile(s.var,
                fresh(s.var->name_hint + "_tile", "tile.load", std::move(args), c.kwargs, span));
    } else {  // tensor.assemble: the store result keeps the assemble's Var
      const ir::VarRef dst = global(c, c.args[0]);
      ir::ExprRef src = operand(c, c.args[1], span);
      emit(s.var,
           ops_.make_call("tile.store", {src, scalar_free(c, c.args[2]), subst_.expr(dst)},
                          c.kwargs, {}, span),
           s.span);
    }
  }

  /// A tensor operand as a tile (loading a global tensor at its first use), or a scalar as is.
  ir::ExprRef operand(const ir::Call& c, const ir::ExprRef& a, const ir::Span& span) {
    if (!ir::isa<ir::TensorType>(*a->type)) return scalar_free(c, a);
    const auto* v = ir::as<ir::Var>(a.get());
    if (!v) fail(c, span, "has a tensor operand that is not a variable");
    if (const ir::VarRef* t = tile_.find(v)) return *t;
    const auto& t = static_cast<const ir::TensorType&>(*a->type);
    ir::VarRef loaded =
        fresh(v->name_hint + "_tile", "tile.load", {subst_.expr(a), zeros(t), shape(t)}, {}, span);
    tile_.set(*v, loaded);
    loaded_.set(*v, loaded);
    return loaded;
  }

  /// A tensor operand that must be in global memory (a slice source, an assemble target).
  ir::VarRef global(const ir::Call& c, const ir::ExprRef& a) {
    const auto* v = ir::as<ir::Var>(a.get());
    if (!v) fail(c, c.span, "has a tensor operand that is not a variable");
    if (computed(*v)) materialize(ir::VarRef(v), c.span);
    return ir::VarRef(v);
  }

  /// A non-tensor argument (shape, offset, scalar) with materialized Vars substituted.
  ir::ExprRef scalar_free(const ir::Call&, const ir::ExprRef& a) { return subst_.expr(a); }

  /// True for a value that lives only in a tile (computed by a converted op, not yet stored).
  bool computed(const ir::Var& v) {
    return tile_.find(v) && !loaded_.find(v) && !materialized_.find(v);
  }

  void bind_tile(const ir::VarRef& tensor_var, ir::VarRef tile) { tile_.set(*tensor_var, tile); }

  ir::VarRef fresh(std::string name, std::string_view op, std::vector<ir::ExprRef> args,
                   ir::Attrs kwargs, const ir::Span& span) {
    auto call = ops_.make_call(op, std::move(args), std::move(kwargs), {}, span);
    ir::VarRef v = ir::Var::make(std::move(name), call->type, span);
    emit(v, call, span);
    return v;
  }

  void emit(const ir::VarRef& v, ir::ExprRef value, const ir::Span& span) {
    out_.push_back(ir::AssignStmt::make(v, std::move(value), span));
  }

  static ir::ExprRef zeros(const ir::TensorType& t) {
    std::vector<ir::ExprRef> z;
    for (std::size_t i = 0; i < t.shape.size(); ++i) z.push_back(ir::ConstInt::make(0));
    return ir::MakeTuple::make(std::move(z));
  }
  static ir::ExprRef shape(const ir::TensorType& t) { return ir::MakeTuple::make(t.shape); }

  // Small maps keyed by Var identity: looked up, never iterated.
  template <class V>
  struct VarMap {
    ::pypto::detail::PointerMap<V> map;
    const V* find(const ir::Var* v) { return map.find(v); }
    const V* find(const ir::Var& v) { return map.find(&v); }
    void set(const ir::Var& v, V value) { *map.insert(&v, value).first = std::move(value); }
  };

  const ir::Function& f_;
  const ir::OpRegistry& ops_;
  std::vector<ir::StmtRef> out_;
  VarMap<ir::VarRef> tile_;              // tensor Var -> the tile holding its data
  VarMap<ir::VarRef> loaded_;            // global tensors loaded whole (their tile is a copy)
  VarMap<ir::VarRef> materialized_;      // computed values stored back into a fresh buffer
  Substitution subst_;                   // computed value -> its materialized buffer
  VarMap<std::size_t> return_position_;  // returned Var -> its first return position
  struct Output {
    AddedOutput added;
    ir::VarRef stored;  // the tile.store into the parameter, which returns read as the parameter
  };
  std::vector<Output> outputs_;  // in materialization order until `run` sorts them
  std::vector<AddedOutput> added_;
  bool changed_ = false;
};

/// A kernel that gained trailing Out parameters: the converted function and what it gained.
struct ChangedKernel {
  ir::FunctionRef function;
  std::vector<AddedOutput> outputs;
};
using ChangedKernels = std::map<std::string, ChangedKernel, std::less<>>;

/// Gives every call of a changed kernel in one function the kernel's new Out parameters: right
/// before a `v = self.k(...)` or `self.k(...)` statement, each output is allocated with
/// `tensor.create(shape, dtype=...)` of the call's recorded result type (the caller's
/// coordinates) and passed. A Submit is left as it is: it may omit trailing outputs, which the
/// runtime allocates. Only Orchestration and Opaque functions allocate; a call elsewhere (a
/// Group or Spmd wrapper, another kernel), nested in an expression, or whose output shape uses
/// a variable not bound in the caller before the call is a KernelOutputCallError.
class CallerRewriter {
 public:
  CallerRewriter(const ir::Function& f, const ChangedKernels& changed, const ir::OpRegistry& ops)
      : f_(f), changed_(changed), ops_(ops) {}

  ir::FunctionRef run(const ir::FunctionRef& fn) {
    if (!f_.body) return fn;
    const ir::Call* first = nullptr;
    ir::for_each_node(ir::NodeRef(f_.body), [&](const ir::Node& n) {
      if (const ir::Call* c = changed_call(&n); c && !first) first = c;
    });
    if (!first) return fn;
    if (f_.func_type != ir::FunctionType::Orchestration && f_.func_type != ir::FunctionType::Opaque)
      fail(*first, f_.body->span,
           "is inside " + std::string(ir::enum_name(f_.func_type)) + " function '" + f_.name +
               "', which cannot allocate the Out parameters the kernel gained for the values it "
               "returns; only Orchestration and Opaque functions allocate them");
    order_bindings();
    ir::StmtRef body = slot(f_.body);
    ir::for_each_node(ir::NodeRef(body), [&](const ir::Node& n) {
      const ir::Call* c = changed_call(&n);
      if (c && c->args.size() != changed_.find(c->op->name)->second.function->params.size())
        fail(*c, body->span,
             "is nested in an expression; only `v = self." + c->op->name + "(...)` and `self." +
                 c->op->name + "(...)` statements can pass the kernel's new Out parameters");
    });
    auto copy = ir::copy_node(f_);
    copy->body = std::move(body);
    return copy;
  }

 private:
  [[noreturn]] void fail(const ir::Call& c, const ir::Span& fallback, const std::string& why) {
    throw KernelOutputCallError(f_.name, c.op->name, c.span.is_known() ? c.span : fallback, why);
  }

  /// `n` as a Call of a changed kernel, or null.
  const ir::Call* changed_call(const ir::Node* n) const {
    const auto* c = ir::as<ir::Call>(n);
    return c && ir::isa<ir::GlobalVar>(*c->op) && changed_.find(c->op->name) != changed_.end()
               ? c
               : nullptr;
  }

  /// Numbers the statements and bindings of the body in program order (parameters and the
  /// symbols their shapes bind come first), so a call can tell what is bound before it.
  struct Order {
    ::pypto::detail::PointerMap<std::size_t> at;  // Stmt or Var -> its number; never iterated
    std::size_t next = 1;
    void enter(const ir::Stmt& s) { at.insert(&s, next++); }
    void leave(const ir::Stmt&) {}
    void use(const ir::Var&, Access) {}
    void def(const ir::Var& v, const ir::Stmt&) { at.insert(&v, next++); }
  };
  void order_bindings() {
    for (const ir::VarRef& p : f_.params) {
      order_.at.insert(p.get(), 0);
      if (const auto* st = ir::as<ir::ShapedType>(p->type.get()))
        for (const ir::ExprRef& d : st->shape)
          if (const auto* sym = ir::as<ir::Var>(d.get())) order_.at.insert(sym, 0);
    }
    const CalleeDirections none = [](std::string_view) -> const CalleeInfo* { return nullptr; };
    walk_uses_defs(*f_.body, order_, ops_, none);
  }

  ir::StmtRef slot(const ir::StmtRef& body) {
    std::vector<ir::StmtRef> out;
    if (const auto* seq = ir::as<ir::SeqStmts>(body.get())) {
      bool changed = false;
      for (const ir::StmtRef& s : seq->stmts) changed = statement(s, out) || changed;
      if (!changed) return body;
      auto copy = ir::copy_node(*seq);
      copy->stmts = std::move(out);
      return copy;
    }
    if (!statement(body, out)) return body;
    return out.size() == 1 ? out.front() : ir::SeqStmts::make(std::move(out), body->span);
  }

  /// Appends `s`, rewritten, to `out` (after the allocations it needs); true when it changed.
  bool statement(const ir::StmtRef& s, std::vector<ir::StmtRef>& out) {
    if (ir::isa<ir::SeqStmts>(*s)) {
      out.push_back(slot(s));
      return out.back() != s;
    }
    if (const auto* a = ir::as<ir::AssignStmt>(s.get()))
      if (const ir::Call* c = changed_call(a->value.get())) {
        auto copy = ir::copy_node(*a);
        copy->value = with_outputs(*c, *s, out);
        out.push_back(copy);
        return true;
      }
    if (const auto* e = ir::as<ir::EvalStmt>(s.get()))
      if (const ir::Call* c = changed_call(e->expr.get())) {
        auto copy = ir::copy_node(*e);
        copy->expr = with_outputs(*c, *s, out);
        out.push_back(copy);
        return true;
      }
    if (++depth_ > core::kMaxNesting)
      throw core::ValueError("convert-tensor-to-tile-ops: statements nested deeper than " +
                             std::to_string(core::kMaxNesting) + " levels are not supported");
    ir::StmtRef rewritten = ::pypto::transforms::detail::with_body_slots(
        s, [&](const ir::StmtRef& body) { return slot(body); });
    --depth_;
    out.push_back(rewritten);
    return rewritten != s;
  }

  /// `call` with an allocated buffer for each new Out parameter of its kernel; the allocations
  /// go to `out`.
  ir::ExprRef with_outputs(const ir::Call& call, const ir::Stmt& s, std::vector<ir::StmtRef>& out) {
    const ChangedKernel& k = changed_.find(call.op->name)->second;
    if (call.args.size() + k.outputs.size() != k.function->params.size())
      fail(call, s.span,
           "passes " + std::to_string(call.args.size()) + " arguments; the kernel had " +
               std::to_string(k.function->params.size() - k.outputs.size()) + " parameters");
    const std::size_t* when = order_.at.find(&s);
    std::vector<ir::ExprRef> args = call.args;
    for (const AddedOutput& o : k.outputs) {
      const ir::TypeRef type = result_type(call, *k.function, o.return_position);
      const auto* t = ir::as<ir::TensorType>(type.get());
      if (!t)
        fail(call, s.span,
             "has no tensor result at position " + std::to_string(o.return_position) +
                 " for the kernel's new Out parameter '" + o.param->name_hint + "'");
      for (const ir::ExprRef& d : t->shape)
        ir::for_each_node(ir::NodeRef(d), [&](const ir::Node& n) {
          const auto* v = ir::as<ir::Var>(&n);
          if (!v) return;
          const std::size_t* bound = order_.at.find(v);
          if (!bound || !when || *bound >= *when)
            fail(call, s.span,
                 "needs a buffer for the value the kernel returns at position " +
                     std::to_string(o.return_position) + ", whose shape uses '" + v->name_hint +
                     "', which is not bound in '" + f_.name +
                     "' before the call (a symbol bound only inside the kernel?); write the "
                     "value into a pl.Out parameter of the scope instead");
        });
      ir::Attrs kw;
      kw = kw.with("dtype", t->dtype);
      auto create =
          ops_.make_call("tensor.create", {ir::MakeTuple::make(t->shape)}, kw, {}, call.span);
      ir::VarRef buf = ir::Var::make(o.param->name_hint, create->type, call.span);
      out.push_back(ir::AssignStmt::make(buf, create, s.span));
      args.push_back(buf);
    }
    auto copy = ir::copy_node(call);
    copy->args = std::move(args);
    if (const ir::AttrValue* v = call.attrs.find("arg_directions"))
      if (const auto* list = v->get_if<ir::AttrValueList>()) {
        ir::AttrValueList dirs = *list;
        for (std::size_t i = 0; i < k.outputs.size(); ++i)
          dirs.push_back(ir::EnumValue::of(ir::ArgDirection::Output));
        copy->attrs = call.attrs.with("arg_directions", std::move(dirs));
      }
    return copy;
  }

  /// The recorded type of result `k` of a call of `callee` (the caller's coordinates).
  static ir::TypeRef result_type(const ir::Call& call, const ir::Function& callee, std::size_t k) {
    if (callee.return_types.size() == 1) return call.type;
    const auto* tuple = ir::as<ir::TupleType>(call.type.get());
    return tuple && k < tuple->types.size() ? tuple->types[k] : ir::TypeRef();
  }

  const ir::Function& f_;
  const ChangedKernels& changed_;
  const ir::OpRegistry& ops_;
  Order order_;
  std::size_t depth_ = 0;
};

/// Which of a kernel's parameters its body reads and writes, through the parameter or any value
/// provably its buffer (return_lineage.hpp); a return hands a buffer back and is no access. A
/// read of a tensor whose buffer is unknown — not a registered op's result, so a loop or if
/// result, an iter_arg or a callee's result that lineage cannot place — may read any parameter.
class ParameterAccesses {
 public:
  ParameterAccesses(const ir::Function& fn, ReturnLineage& lineage)
      : fn_(fn), lineage_(lineage), read(fn.params.size()), written(fn.params.size()) {}

  void enter(const ir::Stmt& s) { returns_ += ir::isa<ir::ReturnStmt>(s) ? 1 : 0; }
  void leave(const ir::Stmt& s) { returns_ -= ir::isa<ir::ReturnStmt>(s) ? 1 : 0; }
  void def(const ir::Var& v, const ir::Stmt& s) {
    const auto* a = ir::as<ir::AssignStmt>(&s);
    const auto* c = a ? ir::as<ir::Call>(a->value.get()) : nullptr;
    if (c && !ir::isa<ir::GlobalVar>(*c->op)) op_results_.insert(&v, true);
  }
  void use(const ir::Var& v, Access access) {
    // Only a tensor can be a parameter's buffer (a tile lives in the core's own memory).
    if (returns_ > 0 || access == Access::Bookkeeping || !ir::isa<ir::TensorType>(*v.type)) return;
    const bool reads = access == Access::Read || access == Access::ReadWrite;
    const bool writes = access == Access::Write || access == Access::ReadWrite;
    const std::optional<std::size_t> p = lineage_.param_of(fn_, v);
    if (!p) {
      unknown_read = unknown_read || (reads && !op_results_.find(&v));
      return;
    }
    read[*p] = read[*p] || reads;
    written[*p] = written[*p] || writes;
  }

 private:
  const ir::Function& fn_;
  ReturnLineage& lineage_;
  int returns_ = 0;
  ::pypto::detail::PointerMap<bool> op_results_;  // looked up, never iterated

 public:
  std::vector<bool> read, written;
  bool unknown_read = false;
};

/// `fn` with each In tensor parameter its body writes made Out, or InOut when the body may also
/// read it (as upstream PyPTO's conversion upgrades them); `fn` itself when none is.
inline ir::FunctionRef with_written_params_upgraded(const ir::FunctionRef& fn,
                                                    const ir::OpRegistry& ops,
                                                    ReturnLineage& lineage,
                                                    const CalleeDirections& callees) {
  if (!fn->body) return fn;
  ParameterAccesses acc(*fn, lineage);
  walk_uses_defs(*fn->body, acc, ops, callees);
  std::vector<ir::ParamDirection> dirs = fn->param_directions;
  for (std::size_t i = 0; i < dirs.size(); ++i)
    if (dirs[i] == ir::ParamDirection::In && acc.written[i])
      dirs[i] =
          acc.read[i] || acc.unknown_read ? ir::ParamDirection::InOut : ir::ParamDirection::Out;
  if (dirs == fn->param_directions) return fn;
  auto copy = ir::copy_node(*fn);
  copy->param_directions = std::move(dirs);
  return copy;
}

/// The program's functions by name, and their directions as callees (kept in step).
class Functions {
 public:
  void set(const ir::FunctionRef& fn) {
    by_name_[fn->name] = fn;
    infos_.set(fn->name, CalleeInfo{fn->param_directions, {}});
  }
  const ir::Function* find(std::string_view name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : it->second.get();
  }
  CalleeDirections callees() const { return infos_.lookup(); }

 private:
  std::map<std::string, ir::FunctionRef, std::less<>> by_name_;
  CalleeTable infos_;
};

/// `fn` with each In parameter it passes directly to a callee's Out slot made Out (InOut when
/// `fn` may also read it) and each it passes to an InOut slot made InOut, as upstream PyPTO
/// propagates a kernel's upgraded directions along the call chain; `fn` itself when none changes.
inline ir::FunctionRef with_caller_directions(const ir::FunctionRef& fn, const Functions& table,
                                              const ir::OpRegistry& ops, ReturnLineage& lineage) {
  if (!fn->body || is_kernel_function(fn->func_type)) return fn;
  std::vector<std::optional<ir::ParamDirection>> via_call(fn->params.size());
  ::pypto::detail::PointerMap<std::size_t> param_index;
  for (std::size_t i = 0; i < fn->params.size(); ++i) param_index.insert(fn->params[i].get(), i);
  auto note = [&](const ir::Op& op, const std::vector<ir::ExprRef>& args) {
    const ir::Function* callee = ir::isa<ir::GlobalVar>(op) ? table.find(op.name) : nullptr;
    if (!callee) return;
    for (std::size_t a = 0; a < args.size() && a < callee->param_directions.size(); ++a) {
      const std::size_t* i = param_index.find(args[a].get());
      if (i && callee->param_directions[a] != ir::ParamDirection::In &&
          via_call[*i] != ir::ParamDirection::InOut)
        via_call[*i] = callee->param_directions[a];
    }
  };
  ir::for_each_node(ir::NodeRef(fn->body), [&](const ir::Node& n) {
    if (const auto* c = ir::as<ir::Call>(&n)) note(*c->op, c->args);
    if (const auto* c = ir::as<ir::Submit>(&n)) note(*c->op, c->args);
  });
  std::optional<ParameterAccesses> acc;  // what `fn` reads, once a parameter needs it
  std::vector<ir::ParamDirection> dirs = fn->param_directions;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    if (!via_call[i] || dirs[i] == ir::ParamDirection::InOut) continue;
    if (*via_call[i] == ir::ParamDirection::InOut) {
      dirs[i] = ir::ParamDirection::InOut;
      continue;
    }
    if (dirs[i] != ir::ParamDirection::In) continue;
    if (!acc) {
      acc.emplace(*fn, lineage);
      walk_uses_defs(*fn->body, *acc, ops, table.callees());
    }
    dirs[i] =
        acc->read[i] || acc->unknown_read ? ir::ParamDirection::InOut : ir::ParamDirection::Out;
  }
  if (dirs == fn->param_directions) return fn;
  auto copy = ir::copy_node(*fn);
  copy->param_directions = std::move(dirs);
  return copy;
}

/// The directions of every kernel written through an In parameter upgraded, then propagated to
/// their callers' parameters until nothing changes (each round only raises a direction, so it
/// ends).
inline void upgrade_written_param_directions(const std::string& name,
                                             std::vector<ir::FunctionRef>& functions,
                                             const ir::OpRegistry& ops) {
  const ir::ProgramRef converted = ir::Program::make(name, functions);
  ReturnLineage lineage(converted.get(), ops);
  Functions table;
  for (const ir::FunctionRef& fn : functions) table.set(fn);
  for (ir::FunctionRef& fn : functions)
    if (is_kernel_function(fn->func_type)) {
      fn = with_written_params_upgraded(fn, ops, lineage, table.callees());
      table.set(fn);
    }
  for (bool changed = true; changed;) {
    changed = false;
    for (ir::FunctionRef& fn : functions) {
      ir::FunctionRef up = with_caller_directions(fn, table, ops, lineage);
      if (up == fn) continue;
      fn = std::move(up);
      table.set(fn);
      changed = true;
    }
  }
}

}  // namespace detail::tensor_to_tile

PYPTO_DECL Pass ConvertTensorToTileOps(const ir::OpRegistry& ops) {
  return Pass("convert-tensor-to-tile-ops", {Property::SSAForm, Property::SplitIncoreOrch},
              /*produced=*/{}, /*invalidated=*/{},
              [registry = std::make_shared<const ir::OpRegistry>(ops)](const ir::Program& program) {
                namespace t2t = detail::tensor_to_tile;
                std::vector<ir::FunctionRef> functions;
                t2t::ChangedKernels changed_kernels;
                bool changed = false;
                for (const auto& entry : program.functions) {
                  const ir::FunctionRef& fn = entry.function;
                  ir::FunctionRef out = fn;
                  if (is_kernel_function(fn->func_type)) {
                    t2t::KernelConverter converter(*fn, *registry);
                    out = converter.run(fn);
                    if (!converter.added_outputs().empty())
                      changed_kernels[fn->name] = {out, converter.added_outputs()};
                  }
                  changed = changed || out != fn;
                  functions.push_back(std::move(out));
                }
                if (!changed_kernels.empty())
                  for (ir::FunctionRef& fn : functions)
                    fn = t2t::CallerRewriter(*fn, changed_kernels, *registry).run(fn);
                t2t::upgrade_written_param_directions(program.name, functions, *registry);
                for (std::size_t i = 0; i < functions.size(); ++i)
                  changed = changed || functions[i] != program.functions[i].function;
                if (!changed) return ir::ProgramRef(&program);
                return ir::Program::make(program.name, std::move(functions));
              });
}

}  // namespace pypto::transforms

// pypto/transforms/convert_tensor_to_tile_ops.hpp — ConvertTensorToTileOps (issue 8, seed 002).
//
// Runs after DeduplicateOutlinedKernels. In every InCore / AIC / AIV function the tensor-level
// compute ops of the body's top-level statement list become tile ops on tiles loaded from and
// stored to global-memory tensors:
//   tensor.add/sub/mul/div/maximum/minimum  -> tile.add/sub/mul/div/max/min
//   tensor.neg/exp/sqrt                     -> tile.neg/exp/sqrt
//   tensor.full(shape, dtype, value)        -> tile.full
//   tensor.slice(t, shape, offset[, valid]) -> tile.load(t, offset, shape[, valid]) (clamp kept)
//   tensor.assemble(dst, src, offset)       -> tile.store(src_tile, offset, dst) (atomic kept;
//                                              the result keeps its Var: it is the written dst)
// A tensor operand held in global memory (a parameter, an assemble/store result, ...) is loaded
// once, whole, at its first converted use: `x_tile = tile.load(x, [0, ..], shape)`. A value a
// converted op computed lives only in a tile; when a statement that is not converted reads it
// (a return, a call, tensor.read/dim, ...) it is materialized just before that statement into a
// fresh buffer — `y_buf = tensor.create(shape, dtype)`, `y_gm = tile.store(y_tile, [0, ..],
// y_buf)` — and the statement reads `y_gm`. (Upstream instead adds an Out parameter and allocates
// the buffer at the call site; this pass leaves signatures and every caller untouched.)
// tensor.dim / tensor.create / tensor.read / tensor.write stay: they are global-memory accesses
// a kernel may keep. Any other `tensor.*` op, and a convertible one nested in an expression or
// inside a loop, if or scope, is a TensorToTileError naming the function, the op and line:column.
//
// The function's `cache_policy` attr — sorted (parameter index, CachePolicy) pairs written by the
// outliner (scope_outliner.hpp) — becomes a `cache=` kwarg on every tile.load of that parameter
// anywhere in the body (a load that already has one keeps it), and the attr is erased: after
// this pass the loads are the only carriers (seed 002, "缓存策略声明变为参数索引").
//
// Orchestration, Group, Spmd, Graph and Opaque functions are not touched. A kernel with nothing
// to convert and no cache_policy attr is returned as the same object, and so is the program when
// no function changed: the pass is idempotent. Requires SSAForm and SplitIncoreOrch; keeps SSA
// (every new Var is bound once). O(N) per kernel plus O(1) expected per lookup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/text/call_types.hpp"
#include "pypto/transforms/outline_properties.hpp"
#include "pypto/transforms/pass.hpp"
#include "pypto/transforms/property.hpp"
#include "pypto/transforms/substitute.hpp"

namespace pypto::transforms {

/// A tensor op in a kernel that this pass cannot turn into tile ops: names the function, the op
/// and where it is.
class TensorToTileError : public core::ValueError {
 public:
  TensorToTileError(std::string function, std::string op, const ir::Span& span,
                    const std::string& why)
      : core::ValueError("convert-tensor-to-tile-ops: kernel '" + function + "': " + op + " at " +
                         span.to_string() + " " + why),
        function_(std::move(function)),
        op_(std::move(op)),
        span_(span) {}
  const std::string& function() const { return function_; }
  const std::string& op() const { return op_; }
  const ir::Span& span() const { return span_; }

 private:
  std::string function_, op_;
  ir::Span span_;
};

namespace detail::tensor_to_tile {

/// The tile op of an elementwise tensor op, or empty.
inline std::string_view elementwise_tile_op(std::string_view op) {
  static constexpr std::pair<std::string_view, std::string_view> kTable[] = {
      {"tensor.add", "tile.add"}, {"tensor.sub", "tile.sub"},     {"tensor.mul", "tile.mul"},
      {"tensor.div", "tile.div"}, {"tensor.maximum", "tile.max"}, {"tensor.minimum", "tile.min"},
      {"tensor.neg", "tile.neg"}, {"tensor.exp", "tile.exp"},     {"tensor.sqrt", "tile.sqrt"},
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

/// Adds `cache=policy` to every tile.load whose tensor argument is a parameter with a policy
/// and that has no `cache` kwarg yet, anywhere in a statement tree; unchanged subtrees are kept.
class CacheKwargRewriter : private ::pypto::transforms::detail::FieldRewriter<CacheKwargRewriter> {
  friend class ::pypto::transforms::detail::FieldRewriter<CacheKwargRewriter>;

 public:
  CacheKwargRewriter() = default;
  void set(const ir::Var& param, ir::CachePolicy policy) { policy_.insert(&param, policy); }
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
    if (const auto* call = ir::as<ir::Call>(out.get())) out = with_cache(*call, out);
    memo_.insert(n.get(), out);
    return out;
  }
  ir::NodeRef with_cache(const ir::Call& call, const ir::NodeRef& n) {
    if (ir::isa<ir::GlobalVar>(*call.op) || call.op->name != "tile.load" || call.args.empty() ||
        call.kwargs.find("cache"))
      return n;
    const auto* param = ir::as<ir::Var>(call.args[0].get());
    const ir::CachePolicy* policy = param ? policy_.find(param) : nullptr;
    if (!policy) return n;
    auto copy = ir::copy_node(call);
    copy->kwargs = call.kwargs.with("cache", *policy);
    return copy;
  }

  ::pypto::detail::PointerMap<ir::CachePolicy> policy_;  // looked up, never iterated
  ::pypto::detail::PointerMap<ir::NodeRef> memo_;        // looked up, never iterated
};

/// The conversion of one kernel's body.
class KernelConverter {
 public:
  KernelConverter(const ir::Function& f, const ir::OpRegistry& ops) : f_(f), ops_(ops) {}

  /// The converted function, or `fn` itself when nothing changes.
  ir::FunctionRef run(const ir::FunctionRef& fn) {
    const auto policies = cache_policies(f_);
    if (!f_.body) return fn;
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
    CacheKwargRewriter cache;
    for (const auto& [index, policy] : policies) cache.set(*f_.params[index], policy);
    body = cache.stmt(body);

    auto copy = ir::copy_node(f_);
    copy->body = std::move(body);
    copy->attrs = f_.attrs.without("cache_policy");
    return copy;
  }

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
    ir::Attrs kw;
    kw = kw.with("dtype", t->dtype);
    ir::VarRef buf =
        ir::Var::make(v->name_hint + "_buf", ir::TensorType::make(t->dtype, t->shape), span);
    emit(buf, ops_.make_call("tensor.create", {shape(*t)}, kw, {}, span), span);
    ir::VarRef stored =
        fresh(v->name_hint + "_gm", "tile.store", {*tile_.find(v.get()), zeros(*t), buf}, {}, span);
    subst_.set(*v, stored);
    materialized_.set(*v, stored);
    changed_ = true;
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
  VarMap<ir::VarRef> tile_;          // tensor Var -> the tile holding its data
  VarMap<ir::VarRef> loaded_;        // global tensors loaded whole (their tile is a copy)
  VarMap<ir::VarRef> materialized_;  // computed values stored back into a fresh buffer
  Substitution subst_;               // computed value -> its materialized buffer
  bool changed_ = false;
};

}  // namespace detail::tensor_to_tile

/// ConvertTensorToTileOps: kernels' tensor ops become tile loads, tile ops and tile stores, and
/// the `cache_policy` attr becomes `cache=` kwargs on tile.load (see the top of this header).
inline Pass ConvertTensorToTileOps(const ir::OpRegistry& ops = text::default_op_registry()) {
  return Pass("convert-tensor-to-tile-ops", {Property::SSAForm, Property::SplitIncoreOrch},
              /*produced=*/{}, /*invalidated=*/{}, [&ops](const ir::Program& program) {
                std::vector<ir::FunctionRef> functions;
                bool changed = false;
                for (const auto& entry : program.functions) {
                  const ir::FunctionRef& fn = entry.function;
                  ir::FunctionRef out =
                      is_kernel_function(fn->func_type)
                          ? detail::tensor_to_tile::KernelConverter(*fn, ops).run(fn)
                          : fn;
                  changed = changed || out != fn;
                  functions.push_back(std::move(out));
                }
                if (!changed) return ir::ProgramRef(&program);
                return ir::Program::make(program.name, std::move(functions));
              });
}

}  // namespace pypto::transforms

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
#include "pypto/ir/identical.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/reductions.hpp"
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
#include "pypto/transforms/tensor_to_tile_expansions.ipp"
#include "pypto/transforms/use_def.hpp"

// The conversion in full, step by step as upstream PyPTO's ConvertTensorToTileOps:
//
// In every InCore / AIC / AIV function that calls a tensor op:
//  1. Entry loads. Each tensor parameter that a converted op reads directly — also through the
//     initial value of a loop's iter_arg that one reads — is loaded whole at the entry, in
//     parameter order: `x_tile = tile.load(x, [0, ..], shape, shape, target_memory=Vec)`, and
//     the tile stands for it from there. Self-loading ops (slice, assemble, read, write) place
//     their own loads and do not ask for one.
//  2. The body, statement by statement, through for / while / if / scope bodies: `v =
//  tensor.op(..)`
//     becomes `v_tile = <tile form>` and the tile stands for v:
//       tensor.X -> tile.X for the same-named ops (elementwise, scalar forms, expands, casts,
//                   full, ci, random, index ops, col reductions, sort32, transpose, ...)
//       maximum / minimum -> tile.maximum(s) / tile.minimum(s) by the operand's kind
//       create(shape, dtype=d) -> tile.create(shape, dtype=d, target_memory=Vec)
//       slice(t, shape, offset[, valid]) -> tile.load(t, offset, shape, valid or shape,
//                   target_memory=Vec) from a tensor, tile.slice from a tile
//       assemble(dst, src, offset) -> tile.store(src, offset, dst) into a tensor, tile.assemble
//                   into a tile (a tensor source loaded first); tensor into tensor stays
//       read / write -> tile.read / tile.write on a tile; on a tensor they stay
//       gather, expand_clone, mrgsort_format2 -> several statements each, as upstream shapes
//                   them (tensor_to_tile_expansions.ipp); a gather by the TileArch option
//     A loop's iter_arg whose initial value became a tile is a tile, and so is its return var;
//     an if's return var takes the type its branch yields. A tensor operand no entry load
//     covered is loaded whole just before its op. tensor.dim / tensor.view stay and read the
//     parameter itself.
//  3. Exit stores. Each value of the top-level return that is a tile is stored into a new
//     trailing `pl.Out` parameter of the declared return type — `ret0_store = tile.store(v,
//     [0, ..], ret0_out)` — and the store's result is returned. A kernel without results ends
//     in an empty return.
// Any other tensor op, or a tensor op nested in an expression, is a TensorToTileError naming the
// function, the op and line:column.
//
// Callers then pass the new parameters (CallerRewriter): before `r = self.k(...)` an
// Orchestration or Opaque function allocates each with `tensor.create(shape, dtype=..,
// layout=ND)` of the call's recorded result type (the caller's coordinates; a dimension using a
// variable the caller does not bind before the call is a KernelOutputCallError), and so does a
// Submit passing every parameter the kernel had (one omitting trailing outputs leaves them, the
// new ones too, to the runtime). A call from a Group / Spmd wrapper or
// another kernel, or one nested in an expression, is a KernelOutputCallError naming the caller,
// the kernel and line:column. Last, a parameter a kernel writes is made Out (InOut when it may
// also be read), and callers passing their parameters there follow, until nothing changes.
//
// The function's `cache_policy` attr — sorted (parameter index, CachePolicy) pairs written by the
// outliner (scope_outliner.hpp) — becomes a `cache=` kwarg on every tile.load of that parameter
// anywhere in the body (a load that already has one keeps it), and the attr is erased: after
// this pass the loads are the only carriers of the policy.
//
// A kernel with no tensor op to convert and no cache_policy attr is returned as the same object,
// and so is the program when no function changed: the pass is idempotent. Requires SSAForm and
// SplitIncoreOrch; keeps SSA (every new Var is bound once) and every other property. Parameter
// order and names follow statement order and name hints only, never pointer values. O(N) per
// function plus O(1) expected per lookup.

namespace pypto::transforms {

namespace detail::tensor_to_tile {

/// Tensor ops whose tile form is the tile op of the same name with the same arguments and
/// keywords (upstream PyPTO's one-to-one conversions that both our families define); custom
/// for the others.
inline ir::OpId simple_tile_form(ir::OpId op) {
  static constexpr std::string_view kSimple[] = {"add",
                                                 "sub",
                                                 "mul",
                                                 "div",
                                                 "adds",
                                                 "subs",
                                                 "muls",
                                                 "divs",
                                                 "fmod",
                                                 "fmods",
                                                 "neg",
                                                 "abs",
                                                 "recip",
                                                 "exp",
                                                 "log",
                                                 "sin",
                                                 "cos",
                                                 "sqrt",
                                                 "rsqrt",
                                                 "cast",
                                                 "and",
                                                 "ands",
                                                 "or",
                                                 "ors",
                                                 "not",
                                                 "shl",
                                                 "shls",
                                                 "shr",
                                                 "shrs",
                                                 "xor",
                                                 "xors",
                                                 "row_expand_mul",
                                                 "row_expand_div",
                                                 "col_expand_mul",
                                                 "col_expand_add",
                                                 "row_expand",
                                                 "row_expand_add",
                                                 "row_expand_sub",
                                                 "col_expand",
                                                 "col_expand_sub",
                                                 "col_expand_div",
                                                 "row_expand_max",
                                                 "row_expand_min",
                                                 "row_expand_expdif",
                                                 "col_expand_max",
                                                 "col_expand_min",
                                                 "col_expand_expdif",
                                                 "expands",
                                                 "reshape",
                                                 "reinterpret_view",
                                                 "concat",
                                                 "set_validshape",
                                                 "fillpad",
                                                 "fillpad_expand",
                                                 "full",
                                                 "ci",
                                                 "random",
                                                 "part_add",
                                                 "part_mul",
                                                 "part_max",
                                                 "part_min",
                                                 "get_block_idx",
                                                 "get_subblock_idx",
                                                 "get_block_num",
                                                 "col_sum",
                                                 "col_max",
                                                 "col_min",
                                                 "col_prod",
                                                 "sort32",
                                                 "mrgsort_format1",
                                                 "gather_mask",
                                                 "transpose"};
  const std::string_view name = ir::op_name(op);
  if (!name.starts_with("tensor.")) return ir::OpId::custom;
  const std::string_view suffix = name.substr(7);
  for (std::string_view s : kSimple)
    if (s == suffix) return ir::op_id("tile." + std::string(suffix));
  return ir::OpId::custom;
}

/// What the refusals list as converted.
inline constexpr std::string_view kTileForms =
    "converted: the elementwise, expand, reduction-free and index ops with a same-named tile op, "
    "the row and column reductions and arg-reductions, cmp, create, create_l1, slice, assemble, "
    "gather_row, maximum, minimum, gather, gather_compare, paged_gather, scatter, scatter_mask, "
    "scatter_update, expand_clone, mrgsort_format2, matmul, matmul_acc, read and write of a loaded "
    "tensor";

/// Ops that read and place their own data: a converted op's operand is loaded at the entry,
/// theirs are not.
inline bool is_self_loading(ir::OpId op) {
  using ir::OpId;
  switch (op) {
    case OpId::tensor_slice:
    case OpId::tensor_assemble:
    case OpId::tensor_read:
    case OpId::tensor_write:
    case OpId::tensor_gather:
    case OpId::tensor_gather_row:
    case OpId::tensor_paged_gather:
    case OpId::tensor_expand_clone:
    case OpId::tensor_matmul:
    case OpId::tensor_matmul_acc:
    case OpId::pld_tensor_put:
    case OpId::pld_tensor_get: return true;
    default: return false;
  }
}

/// True for a tensor op this pass converts (into a tile op, or keeps when its operands stay in
/// global memory).
inline bool has_tile_form(const ir::Call& c) {
  using ir::OpId;
  const OpId op = c.op->id;
  return simple_tile_form(op) != OpId::custom || is_self_loading(op) || op == OpId::tensor_create ||
         op == OpId::tensor_create_l1 || op == OpId::tensor_maximum || op == OpId::tensor_minimum ||
         op == OpId::tensor_cmp || ir::reduction_of(op).has_value() ||
         op == OpId::tensor_mrgsort_format2 || op == OpId::tensor_scatter ||
         op == OpId::tensor_scatter_mask || op == OpId::tensor_gather_compare ||
         op == OpId::tensor_scatter_update || op == OpId::pld_tensor_remote_store;
}

/// Global-memory accesses a kernel may keep as they are (read / write / assemble only while
/// their operands stay tensors).
inline bool is_kept(ir::OpId op) {
  using ir::OpId;
  return op == OpId::tensor_dim || op == OpId::tensor_view || op == OpId::tensor_read ||
         op == OpId::tensor_write || op == OpId::tensor_assemble;
}

/// The distributed transfers with a tile form: put and get through a staging tile,
/// remote_store of a tile.
inline bool is_distributed_transfer(ir::OpId op) {
  using ir::OpId;
  return op == OpId::pld_tensor_put || op == OpId::pld_tensor_get ||
         op == OpId::pld_tensor_remote_store;
}

/// A call of a `tensor.*` op, or of a distributed transfer (the ops this pass looks at).
inline bool is_tensor_op(const ir::Call& c) {
  return !ir::isa<ir::GlobalVar>(*c.op) &&
         (c.op->name.starts_with("tensor.") || is_distributed_transfer(c.op->id));
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
           if (!call || call->op->id != ir::OpId::tile_load || call->args.empty() ||
               call->kwargs.find("cache"))
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

/// A trailing Out parameter a kernel gained: the returned value it holds, and the first return
/// position that hands it back (its type at a call site is the call's result type there).
struct AddedOutput {
  ir::VarRef param;
  std::size_t return_position = 0;
};

/// The conversion of one kernel: entry loads, the body converted statement by statement through
/// control flow, exit stores into new Out parameters (see the top of this file).
class KernelConverter {
 public:
  KernelConverter(const ir::Function& f, const ir::OpRegistry& ops, TileArch arch)
      : f_(f), ops_(ops), arch_(arch) {}

  /// The converted function, or `fn` itself when nothing changes.
  ir::FunctionRef run(const ir::FunctionRef& fn) {
    const auto policies = cache_policies(f_);
    if (!f_.body) return fn;
    ir::StmtRef body = f_.body;
    auto copy = ir::copy_node(f_);
    if (has_tensor_op()) {
      std::vector<ir::StmtRef> out;
      entry_loads(out);
      const auto* seq = ir::as<ir::SeqStmts>(f_.body.get());
      const std::vector<ir::StmtRef> input = seq ? seq->stmts : std::vector<ir::StmtRef>{f_.body};
      const ir::ReturnStmt* ret = nullptr;
      for (const ir::StmtRef& s : input) {
        if (const auto* r = ir::as<ir::ReturnStmt>(s.get())) {
          ret = r;
          continue;
        }
        statement(s, out);
      }
      exit_stores(ret, *copy, out);
      body = ir::SeqStmts::make(std::move(out), f_.body->span);
    } else if (policies.empty()) {
      return fn;
    }
    if (!policies.empty()) body = with_cache_kwargs(body, f_, policies);
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

  /// True when the body calls a tensor op (something to convert, or to refuse).
  bool has_tensor_op() const {
    bool found = false;
    ir::for_each_node(ir::NodeRef(f_.body), [&](const ir::Node& n) {
      if (const auto* c = ir::as<ir::Call>(&n); c && is_tensor_op(*c) && !is_kept(c->op->id))
        found = true;
    });
    return found;
  }

  /// Step 1: each tensor parameter a converted op reads directly (not a self-loading one:
  /// slice, assemble, read, write place their own loads), also through the initial values of
  /// the loops' iter_args, is loaded whole at the function's entry, in parameter order.
  void entry_loads(std::vector<ir::StmtRef>& out) {
    ::pypto::detail::PointerMap<bool> used;          // looked up, never iterated
    ::pypto::detail::PointerMap<ir::ExprRef> inits;  // iter_arg -> its initial value
    std::vector<const ir::IterArg*> iter_args;
    ir::for_each_node(ir::NodeRef(f_.body), [&](const ir::Node& n) {
      if (const auto* ia = ir::as<ir::IterArg>(&n)) {
        if (inits.insert(ia, ia->init_value).second) iter_args.push_back(ia);
        return;
      }
      const auto* c = ir::as<ir::Call>(&n);
      if (!c || !is_tensor_op(*c) || is_self_loading(c->op->id) || !has_tile_form(*c)) return;
      // A remote store reads its source; its target is a window that stays in global memory.
      const std::size_t read = c->op->id == ir::OpId::pld_tensor_remote_store ? 1 : c->args.size();
      for (std::size_t k = 0; k < read; ++k) {
        const ir::ExprRef& a = c->args[k];
        if (ir::isa<ir::Var>(*a) && ir::isa<ir::TensorType>(*a->type)) used.insert(a.get(), true);
      }
    });
    for (bool grew = true; grew;) {  // an iter_arg a converted op reads loads its initial value
      grew = false;
      for (const ir::IterArg* ia : iter_args) {
        const ir::ExprRef* init = inits.find(ia);
        if (used.find(ia) && ir::isa<ir::Var>(**init) && ir::isa<ir::TensorType>(*(*init)->type))
          grew = used.insert(init->get(), true).second || grew;
      }
    }
    for (const ir::VarRef& p : f_.params) {
      const auto* t = ir::as<ir::TensorType>(p->type.get());
      if (!t || !used.find(p.get())) continue;
      subst_.set(*p, load_whole(p, *t, p->name_hint + "_tile", p->span, out));
      loaded_.insert(p.get(), true);
    }
  }

  /// `v = tile.load(v, [0, ..], shape, shape, target_memory=Vec)`, appended to `out`.
  ir::VarRef load_whole(const ir::ExprRef& tensor, const ir::TensorType& t, std::string name,
                        const ir::Span& span, std::vector<ir::StmtRef>& out) {
    return Emitter(ops_, f_.name, "tile.load", span, out)
        .load(std::move(name), tensor, Emitter::zeros(t.shape.size()), t.shape);
  }

  /// Step 2: `s` converted, appended to `out`.
  void statement(const ir::StmtRef& s, std::vector<ir::StmtRef>& out) {
    if (++depth_ > core::kMaxNesting)
      throw core::ValueError("convert-tensor-to-tile-ops: statements nested deeper than " +
                             std::to_string(core::kMaxNesting) + " levels are not supported");
    const OnLeave leave{depth_};
    if (const auto* seq = ir::as<ir::SeqStmts>(s.get())) {
      for (const ir::StmtRef& c : seq->stmts) statement(c, out);
      return;
    }
    if (const auto* a = ir::as<ir::AssignStmt>(s.get())) return assign(*a, out);
    if (const auto* e = ir::as<ir::EvalStmt>(s.get())) return eval(*e, out);
    if (const auto* f = ir::as<ir::ForStmt>(s.get())) return loop(*f, out);
    if (const auto* w = ir::as<ir::WhileStmt>(s.get())) return loop(*w, out);
    if (const auto* i = ir::as<ir::IfStmt>(s.get())) return branch(*i, out);
    refuse_nested(s);
    ir::StmtRef body_done = ::pypto::transforms::detail::with_body_slots(
        s, [&](const ir::StmtRef& b) { return block(b); });
    out.push_back(subst_.stmt(body_done));
  }

  /// A body slot converted: its statements as one SeqStmts (the slot's own when it was one).
  ir::StmtRef block(const ir::StmtRef& b) {
    std::vector<ir::StmtRef> out;
    statement(b, out);
    return ir::SeqStmts::make(std::move(out), b->span);
  }

  void assign(const ir::AssignStmt& a, std::vector<ir::StmtRef>& out) {
    const auto* c = ir::as<ir::Call>(a.value.get());
    if (c && is_tensor_op(*c)) {
      if (std::optional<ir::ExprRef> v = convert(*c, a.span, out)) {
        const ir::VarRef var = converted_var(a.var, (*v)->type);
        out.push_back(ir::AssignStmt::make(var, std::move(*v), a.span));
        subst_.set(*a.var, var);
        return;
      }
    }
    refuse_nested(ir::StmtRef(&a));
    ir::ExprRef value = c && is_tensor_op(*c) ? kept(*c) : subst_.expr(a.value);
    if (value == a.value) {
      out.push_back(ir::StmtRef(&a));
      return;
    }
    if (const auto* g = ir::as<ir::TupleGetItem>(value.get()))  // of a tuple that became tiles
      value = ir::TupleGetItem::make(g->tuple, g->index, g->span);
    ir::VarRef var = a.var;
    if (value->type != a.value->type) {  // e.g. an iter_arg that became a tile
      var = ir::Var::make(a.var->name_hint, value->type, a.var->span);
      subst_.set(*a.var, var);
    }
    out.push_back(ir::AssignStmt::make(var, std::move(value), a.span));
  }

  /// The variable a converted value of `v` binds: one per variable and type, so a variable the
  /// input binds in both arms of an if binds one tile variable in both.
  ir::VarRef converted_var(const ir::VarRef& v, const ir::TypeRef& type) {
    if (const ir::VarRef* done = converted_.find(v.get()); done && (*done)->type == type)
      return *done;
    ir::VarRef fresh_var = ir::Var::make(
        ir::isa<ir::TileType>(*type) ? v->name_hint + "_tile" : v->name_hint, type, v->span);
    *converted_.insert(v.get(), fresh_var).first = fresh_var;
    return fresh_var;
  }

  void eval(const ir::EvalStmt& e, std::vector<ir::StmtRef>& out) {
    const auto* c = ir::as<ir::Call>(e.expr.get());
    if (c && is_tensor_op(*c))
      if (std::optional<ir::ExprRef> v = convert(*c, e.span, out)) {
        out.push_back(ir::EvalStmt::make(std::move(*v), e.span));
        return;
      }
    refuse_nested(ir::StmtRef(&e));
    if (c && is_tensor_op(*c)) {
      ir::ExprRef v = kept(*c);
      out.push_back(v == e.expr ? ir::StmtRef(&e) : ir::EvalStmt::make(std::move(v), e.span));
      return;
    }
    out.push_back(subst_.stmt(ir::StmtRef(&e)));
  }

  /// A for or while loop: an iter_arg whose initial value became a tile is a tile, and so is
  /// its return var.
  template <class Loop>
  void loop(const Loop& l, std::vector<ir::StmtRef>& out) {
    auto copy = ir::copy_node(l);
    if constexpr (std::is_same_v<Loop, ir::ForStmt>) {
      copy->start = subst_.expr(l.start);
      copy->stop = subst_.expr(l.stop);
      copy->step = subst_.expr(l.step);
      copy->attrs = subst_.attrs(l.attrs);
    }
    for (ir::IterArgRef& ia : copy->iter_args) {
      ir::ExprRef init = subst_.expr(ia->init_value);
      if (init == ia->init_value) continue;
      auto fresh_arg = ir::IterArg::make(ia->name_hint, init->type, init, ia->span);
      subst_.set(*ia, fresh_arg);
      ia = fresh_arg;
    }
    if constexpr (std::is_same_v<Loop, ir::WhileStmt>) copy->condition = subst_.expr(l.condition);
    copy->body = block(l.body);
    for (std::size_t i = 0; i < copy->return_vars.size(); ++i)
      retype(copy->return_vars[i], copy->iter_args[i]->type);
    out.push_back(copy);
  }

  /// An if: each branch from the same mappings; a return var takes its yielded value's type.
  void branch(const ir::IfStmt& i, std::vector<ir::StmtRef>& out) {
    auto copy = ir::copy_node(i);
    copy->condition = subst_.expr(i.condition);
    const std::size_t mark = subst_.mark();
    copy->then_body = block(i.then_body);
    subst_.rollback(mark);
    if (i.else_body) {
      copy->else_body = block(i.else_body);
      subst_.rollback(mark);
    }
    const ir::YieldStmt* y = final_yield(copy->then_body);
    if (!y && copy->else_body) y = final_yield(copy->else_body);
    for (std::size_t k = 0; k < copy->return_vars.size(); ++k)
      if (y && k < y->values.size()) retype(copy->return_vars[k], y->values[k]->type);
    out.push_back(copy);
  }

  /// `v` re-made with `type` when it differs; its uses follow it.
  void retype(ir::VarRef& v, const ir::TypeRef& type) {
    if (v->type == type) return;
    ir::VarRef fresh_var = ir::Var::make(v->name_hint, type, v->span);
    subst_.set(*v, fresh_var);
    v = std::move(fresh_var);
  }

  static const ir::YieldStmt* final_yield(const ir::StmtRef& body) {
    const auto* seq = ir::as<ir::SeqStmts>(body.get());
    const ir::Stmt* last =
        seq ? (seq->stmts.empty() ? nullptr : seq->stmts.back().get()) : body.get();
    return last ? ir::as<ir::YieldStmt>(last) : nullptr;
  }

  /// A tensor op left inside an expression, or one with no tile form, is refused here; kept
  /// global-memory accesses (tensor.dim, tensor.view) are not.
  void refuse_nested(const ir::StmtRef& s) {
    const ir::Node* top = nullptr;
    if (const auto* a = ir::as<ir::AssignStmt>(s.get())) top = a->value.get();
    if (const auto* e = ir::as<ir::EvalStmt>(s.get())) top = e->expr.get();
    ir::for_each_node(ir::NodeRef(s), [&](const ir::Node& n) {
      const auto* c = ir::as<ir::Call>(&n);
      if (!c || !is_tensor_op(*c) || is_kept(c->op->id)) return;
      if (&n == top || ir::isa<ir::ForStmt>(*s) || ir::isa<ir::WhileStmt>(*s) ||
          ir::isa<ir::IfStmt>(*s))
        fail(*c, s->span, "has no tile form yet (" + std::string(kTileForms) + ")");
      fail(*c, s->span,
           "is nested in an expression; only `v = " + c->op->name +
               "(...)` statements are converted");
    });
  }

  /// An argument of a call being converted: a tensor op nested there converted first, its
  /// value bound to a fresh variable after its own statements (as upstream hoists a nested
  /// conversion's prologue); anything else substituted.
  ir::ExprRef operand(const ir::ExprRef& a, const ir::Span& stmt_span,
                      std::vector<ir::StmtRef>& out) {
    const auto* c = ir::as<ir::Call>(a.get());
    if (!c || !is_tensor_op(*c) || is_kept(c->op->id)) return subst_.expr(a);
    std::optional<ir::ExprRef> v = convert(*c, stmt_span, out);
    if (!v) return subst_.expr(a);
    const std::string_view name = c->op->name;
    ir::VarRef var = ir::Var::make(std::string(name.substr(name.rfind('.') + 1)) + "_tile",
                                   (*v)->type, c->span.is_known() ? c->span : stmt_span);
    out.push_back(ir::AssignStmt::make(var, std::move(*v), var->span));
    return var;
  }

  /// The tile form of `c` (its arguments substituted), after the statements it needs, which go
  /// to `out`; nullopt for a kept global-memory access.
  std::optional<ir::ExprRef> convert(const ir::Call& c, const ir::Span& stmt_span,
                                     std::vector<ir::StmtRef>& out) {
    using ir::OpId;
    const OpId op = c.op->id;
    const ir::Span span = c.span.is_known() ? c.span : stmt_span;
    std::vector<ir::ExprRef> args;
    for (const ir::ExprRef& a : c.args) args.push_back(operand(a, stmt_span, out));
    auto is_tile = [&](std::size_t i) {
      return i < args.size() && ir::isa<ir::TileType>(*args[i]->type);
    };
    auto call = [&](std::string_view name, std::vector<ir::ExprRef> a,
                    ir::Attrs kw) -> ir::ExprRef {
      return ops_.make_call(name, std::move(a), std::move(kw), {}, span);
    };
    if (op == OpId::tensor_create || op == OpId::tensor_create_l1) {  // create_l1: in Mat
      ir::Attrs kw;
      if (const ir::AttrValue* d = c.kwargs.find("dtype")) kw = kw.with("dtype", *d);
      kw = kw.with("target_memory",
                   ir::EnumValue::of(op == OpId::tensor_create ? ir::MemorySpace::Vec
                                                               : ir::MemorySpace::Mat));
      return call("tile.create", std::move(args), std::move(kw));
    }
    if (op == OpId::tensor_read || op == OpId::tensor_write) {
      if (!is_tile(0)) return std::nullopt;  // a global-memory access stays
      return call(op == OpId::tensor_read ? "tile.read" : "tile.write", std::move(args), c.kwargs);
    }
    if (op == OpId::tensor_slice) {
      if (is_tile(0)) return call("tile.slice", std::move(args), c.kwargs);
      if (c.kwargs.find("pad_value")) fail(c, span, "with pad_value has no tile.load form yet");
      std::vector<ir::ExprRef> load{args[0], args[2], args[1], args.size() > 3 ? args[3] : args[1]};
      ir::Attrs kw = c.kwargs;
      kw = kw.with("target_memory", ir::EnumValue::of(ir::MemorySpace::Vec));
      if (args.size() > 4) fail(c, span, "with drop_dims has no tile.load form yet");
      return call("tile.load", std::move(load), std::move(kw));
    }
    if (op == OpId::tensor_assemble) {
      if (!is_tile(1) && !is_tile(0)) return std::nullopt;  // tensor into tensor stays
      if (!is_tile(0)) return call("tile.store", {args[1], args[2], args[0]}, c.kwargs);
      if (c.kwargs.find("atomic"))
        fail(c, span, "with atomic= needs a global-memory destination, not an on-chip tile");
      if (!is_tile(1)) {
        const auto& t = static_cast<const ir::TensorType&>(*args[1]->type);
        args[1] = load_whole(args[1], t, "assemble_src", span, out);
      }
      return call("tile.assemble", std::move(args), {});
    }
    if (op == OpId::tensor_maximum || op == OpId::tensor_minimum) {
      const bool scalar = args.size() == 2 && ir::isa<ir::ScalarType>(*args[1]->type);
      bridge(args, out, span);
      return call(std::string(op == OpId::tensor_maximum ? "tile.maximum" : "tile.minimum") +
                      (scalar ? "s" : ""),
                  std::move(args), c.kwargs);
    }
    const Emitter emit(ops_, f_.name, c.op->name, span, out);
    if (op == OpId::tensor_gather_row) {  // a global tensor's window into an on-chip tile
      if (is_tile(0)) return call("tile.gather_row", std::move(args), c.kwargs);
      if (c.kwargs.get<bool>("transpose").value_or(false))
        fail(c, span, "with transpose=True into a global-memory tensor has no tile form");
      // Into a global-memory accumulator: the window's valid box loaded, then stored there.
      const ir::VarRef window = emit.bind(
          "gather_row_window", "tile.load",
          {args[1], args[3], args[4], args.size() > 5 ? args[5] : args[4]}, Emitter::vec());
      return call("tile.store", {window, args[2], args[0]}, {});
    }
    if (const auto r = ir::reduction_of(op); r && !r->by_row && !r->index) {
      bridge(args, out, span);  // a column reduction: the one-operand tile form
      return call(ir::op_name(ir::op_id("tile." + std::string(c.op->name.substr(7)))),
                  std::move(args), {});
    }
    if (ir::reduction_of(op)) return reduction(c, std::move(args), emit, span, out);
    if (op == OpId::tensor_cmp) return compare(c, std::move(args), emit, span, out);
    if (op == OpId::tensor_gather) return GatherExpansion(emit, args, c.kwargs, arch_).run();
    if (op == OpId::tensor_scatter || op == OpId::tensor_scatter_mask ||
        op == OpId::tensor_scatter_update) {
      bridge(args, out, span);
      if (op == OpId::tensor_scatter) return expand_scatter(emit, args, c.kwargs);
      if (op == OpId::tensor_scatter_mask) return expand_scatter_mask(emit, args, c.kwargs);
      return expand_scatter_update(emit, args);
    }
    if (op == OpId::tensor_matmul || op == OpId::tensor_matmul_acc)
      return matmul(c, std::move(args), emit, span, out);
    if (op == OpId::tensor_expand_clone) return expand_clone(emit, args);
    if (op == OpId::tensor_paged_gather) return expand_paged_gather(emit, args, c.kwargs);
    if (op == OpId::tensor_gather_compare) {  // the tile form's UINT8 workspace, as upstream's
      std::vector<ir::ExprRef> src{args[0]};
      bridge(src, out, span);
      const auto* t = ir::as<ir::TileType>(src[0]->type.get());
      if (!t) fail(c, span, "needs a tensor or tile as its first operand");
      return call(
          "tile.gather_compare",
          {src[0], args[1], emit.create("gather_compare_tmp", t->shape, core::DataType::UINT8)},
          c.kwargs);
    }
    if (op == OpId::tensor_mrgsort_format2) {
      bridge(args, out, span);
      return expand_mrgsort_format2(emit, std::move(args), c.kwargs);
    }
    if (op == OpId::pld_tensor_put || op == OpId::pld_tensor_get)
      return staged_transfer(c, args, span, out);
    if (op == OpId::pld_tensor_remote_store) {
      std::vector<ir::ExprRef> first{args[0]};
      bridge(first, out, span);
      args[0] = first[0];
      return call("pld.tile.remote_store", std::move(args), c.kwargs);
    }
    // pto.txor / txors and the high-precision trsqrt need a scratch tile like their first
    // operand, which the tile form takes and the tensor form hides (upstream allocates it so).
    const bool precise_rsqrt =
        op == OpId::tensor_rsqrt && c.kwargs.get<bool>("high_precision").value_or(false);
    if (precise_rsqrt || op == OpId::tensor_xor || op == OpId::tensor_xors) {
      bridge(args, out, span);
      const auto* t = ir::as<ir::TileType>(args[0]->type.get());
      if (!t) fail(c, span, "needs a tensor or tile as its first operand");
      args.push_back(emit.create(precise_rsqrt ? "rsqrt_tmp" : "xor_tmp", t->shape, t->dtype));
      return call(ir::op_name(simple_tile_form(op)), std::move(args), {});
    }
    if (const OpId tile_op = simple_tile_form(op); tile_op != OpId::custom) {
      bridge(args, out, span);
      return call(ir::op_name(tile_op), std::move(args), c.kwargs);
    }
    if (is_kept(op)) return std::nullopt;
    fail(c, span, "has no tile form yet (" + std::string(kTileForms) + ")");
  }

  /// A row reduction (a scratch tile as wide as the row, at least 128 columns) or an
  /// arg-reduction (a scratch tile of the operand's shape), as upstream converts them: the tile
  /// op with the scratch tile it reads.
  ir::ExprRef reduction(const ir::Call& c, std::vector<ir::ExprRef> args, const Emitter& emit,
                        const ir::Span& span, std::vector<ir::StmtRef>& out) {
    bridge(args, out, span);
    const auto* t = ir::as<ir::TileType>(args.at(0)->type.get());
    if (!t || t->shape.size() < 2) emit.fail("needs an operand of rank 2 or more");
    std::vector<ir::ExprRef> tmp_shape = t->shape;
    if (!ir::reduction_of(c.op->id)->index) {
      const auto* last = ir::as<ir::ConstInt>(tmp_shape.back().get());
      if (!last || last->value < 128) tmp_shape.back() = Emitter::index(128);
    }
    const ir::ExprRef tmp = emit.create("tmp_tile", tmp_shape, t->dtype);
    return emit.call("tile." + std::string(c.op->name.substr(7)), {args[0], tmp});
  }

  /// tensor.cmp(lhs, rhs): the packed mask of tile.cmp (tile.cmps for a scalar rhs) selecting
  /// between tiles of ones and zeros of the operand's dtype, as upstream converts it.
  ir::ExprRef compare(const ir::Call& c, std::vector<ir::ExprRef> args, const Emitter& emit,
                      const ir::Span& span, std::vector<ir::StmtRef>& out) {
    bridge(args, out, span);
    const auto* t = ir::as<ir::TileType>(args.at(0)->type.get());
    if (!t) emit.fail("needs a tensor or tile as its first operand");
    const bool scalar = ir::isa<ir::ScalarType>(*args.at(1)->type);
    const ir::ExprRef mask =
        emit.bind("cmp_mask", scalar ? "tile.cmps" : "tile.cmp", std::move(args), c.kwargs);
    const bool is_float = core::is_float(t->dtype);
    const ir::Attrs dtype = ir::Attrs{}.with("dtype", t->dtype);
    const ir::ExprRef one =
        emit.bind("cmp_one", "tile.full", {Emitter::tuple(t->shape)},
                  is_float ? dtype.with("value", 1.0) : dtype.with("value", std::int64_t{1}));
    const ir::ExprRef zero =
        emit.bind("cmp_zero", "tile.full", {Emitter::tuple(t->shape)},
                  is_float ? dtype.with("value", 0.0) : dtype.with("value", std::int64_t{0}));
    const ir::ExprRef tmp =
        emit.create("cmp_tmp", {Emitter::index(1), Emitter::index(32)}, core::DataType::UINT8);
    return emit.call("tile.sel", {mask, one, zero, tmp});
  }

  /// tensor.matmul / matmul_acc, as upstream bridges them to the cube: each tensor operand
  /// loaded whole into Mat (`a_mat`), a tile operand used as it is; an operand its `a_trans` /
  /// `b_trans` transposes is read through a zero-copy tile.transpose_view (`a_mat_t`) of a Mat
  /// tile, a tile elsewhere moved to Mat first. An operand of rank > 2 makes it the batch form.
  /// The tile ops take no keywords (the result dtype follows the operands); matmul_acc's
  /// accumulator is loaded like any converted operand, and a tensor accumulator (the op writes
  /// it) receives the result: the tile form's product is stored back into it.
  ir::ExprRef matmul(const ir::Call& c, std::vector<ir::ExprRef> args, const Emitter& emit,
                     const ir::Span& span, std::vector<ir::StmtRef>& out) {
    const bool acc = c.op->id == ir::OpId::tensor_matmul_acc;
    const std::size_t lhs = acc ? 1 : 0;
    if (args.size() < lhs + 2) emit.fail("needs a left and a right operand");
    bool batched = false;
    for (std::size_t k = 0; k < lhs + 2; ++k)
      if (const auto* t = ir::as<ir::ShapedType>(args[k]->type.get()))
        batched = batched || t->shape.size() > 2;
    const ir::ExprRef written =
        acc && ir::isa<ir::TensorType>(*args[0]->type) ? args[0] : ir::ExprRef{};
    if (acc) {
      std::vector<ir::ExprRef> first{args[0]};
      bridge(first, out, span);
      args[0] = first[0];
    }
    for (std::size_t k = lhs; k < lhs + 2; ++k) {
      ir::ExprRef& a = args[k];
      const bool trans = c.kwargs.get<bool>(k == lhs ? "a_trans" : "b_trans").value_or(false);
      const auto* v = ir::as<ir::Var>(a.get());
      const std::string base = v ? v->name_hint : "bridged_" + std::to_string(k);
      if (const auto* t = ir::as<ir::TensorType>(a->type.get())) {
        a = emit.load(base + "_mat", a, Emitter::zeros(t->shape.size()), t->shape,
                      ir::MemorySpace::Mat);
      } else if (!trans) {
        continue;
      } else if (const auto* tile = ir::as<ir::TileType>(a->type.get());
                 tile && tile->memory_space != ir::MemorySpace::Mat) {
        a = emit.bind(base + "_mat", "tile.move", {a}, Emitter::in(ir::MemorySpace::Mat));
      }
      if (trans)
        a = emit.bind(static_cast<const ir::Var&>(*a).name_hint + "_t", "tile.transpose_view", {a});
    }
    const std::string_view tile_op = acc ? (batched ? "tile.batch_matmul_acc" : "tile.matmul_acc")
                                         : (batched ? "tile.batch_matmul" : "tile.matmul");
    if (!written) {
      // The cube's product is FP32; a matmul typed otherwise (BF16 operands, no out_dtype) is
      // narrowed to its type, which upstream's conversion leaves out (its device keeps FP32).
      ir::ExprRef product = emit.call(tile_op, std::move(args));
      const auto* declared = ir::as<ir::ShapedType>(c.type.get());
      const auto* made = ir::as<ir::ShapedType>(product->type.get());
      if (acc || !declared || !made || declared->dtype == made->dtype) return product;
      return emit.call("tile.cast", {emit.bind("matmul_product", std::move(product))},
                       ir::Attrs().with("target_type", declared->dtype));
    }
    const ir::ExprRef product = emit.bind("matmul_acc_tile", tile_op, std::move(args));
    const auto& t = static_cast<const ir::TensorType&>(*written->type);
    return emit.call("tile.store",
                     {product, Emitter::tuple(Emitter::zeros(t.shape.size())), written});
  }

  /// pld.tensor.put / get: a Vec staging tile (two with pipeline=True) of the transfer's rows
  /// (the leading dimensions' product) and columns, each capped by chunk_rows / chunk_cols, and
  /// the tile op moving through it.
  ir::ExprRef staged_transfer(const ir::Call& c, std::vector<ir::ExprRef> args,
                              const ir::Span& span, std::vector<ir::StmtRef>& out) {
    const bool put = c.op->id == ir::OpId::pld_tensor_put;
    if (put && ir::isa<ir::TileType>(*args[2]->type))
      fail(c, span,
           "needs a global-memory source, not a computed value (a tile has no global address); "
           "pld.tensor.remote_store sends a computed value");
    const auto& dst = static_cast<const ir::TensorType&>(*args[0]->type);
    std::vector<ir::ExprRef> extent = dst.shape;
    if (args.size() > 5)
      if (const auto* t = ir::as<ir::MakeTuple>(args[5].get())) extent = t->elements;
    if (extent.empty()) fail(c, span, "needs a transfer of rank 1 or more");
    auto chunk = [&](std::string_view k) { return c.kwargs.get<std::int64_t>(k).value_or(0); };
    auto capped = [&](std::optional<std::int64_t> n, std::int64_t cap, std::string_view what) {
      if (!n && cap <= 0)
        fail(c, span,
             "has a dynamic " + std::string(what) + " and needs a static chunk_" +
                 std::string(what));
      return !n ? cap : cap > 0 ? std::min(*n, cap) : *n;
    };
    std::optional<std::int64_t> rows = 1;
    for (std::size_t i = 0; i + 1 < extent.size(); ++i) {
      const auto* d = ir::as<ir::ConstInt>(extent[i].get());
      rows = d && rows ? std::optional<std::int64_t>(*rows * d->value) : std::nullopt;
    }
    const auto* last = ir::as<ir::ConstInt>(extent.back().get());
    const std::int64_t r = capped(rows, chunk("chunk_rows"), "rows");
    const std::int64_t k = capped(last ? std::optional<std::int64_t>(last->value) : std::nullopt,
                                  chunk("chunk_cols"), "cols");
    ir::Attrs create;
    create = create.with("dtype", dst.dtype);
    create = create.with("target_memory", ir::EnumValue::of(ir::MemorySpace::Vec));
    const bool pipeline = c.kwargs.get<bool>("pipeline").value_or(false);
    const std::string stage = put ? "tput_stage" : "tget_stage";
    auto make_stage = [&](const std::string& name) -> ir::ExprRef {
      return fresh(name, "tile.create",
                   {ir::MakeTuple::make({ir::ConstInt::make(r), ir::ConstInt::make(k)})}, create,
                   span, out);
    };
    std::vector<ir::ExprRef> moved{args[0], args[1], args[2],
                                   make_stage(pipeline ? stage + "_ping" : stage)};
    if (pipeline) moved.push_back(make_stage(stage + "_pong"));
    moved.insert(moved.end(), args.begin() + 3, args.end());
    ir::Attrs kw = c.kwargs.without("chunk_rows").without("chunk_cols").without("pipeline");
    return ops_.make_call(put ? "pld.tile.put" : "pld.tile.get", std::move(moved), std::move(kw),
                          {}, span);
  }

  /// A kept global-memory access: its operands substituted, except a parameter loaded at the
  /// entry, which is still the tensor the access means (`tensor.dim(x)`).
  ir::ExprRef kept(const ir::Call& c) {
    std::vector<ir::ExprRef> args;
    bool changed = false;
    for (const ir::ExprRef& a : c.args) {
      args.push_back(loaded_.find(a.get()) ? a : subst_.expr(a));
      changed = changed || args.back() != a;
    }
    if (!changed) return ir::ExprRef(&c);
    return ops_.make_call(c.op->name, std::move(args), c.kwargs, c.attrs, c.span);
  }

  /// Tensor operands of a converted op that no entry load covered (a value computed by a kept
  /// op, say) are loaded whole just before it.
  void bridge(std::vector<ir::ExprRef>& args, std::vector<ir::StmtRef>& out, const ir::Span& span) {
    for (ir::ExprRef& a : args)
      if (const auto* t = ir::as<ir::TensorType>(a->type.get()))
        a = load_whole(a, *t,
                       (ir::isa<ir::Var>(*a) ? static_cast<const ir::Var&>(*a).name_hint
                                             : std::string("operand")) +
                           "_tile",
                       span, out);
  }

  /// Step 3: each returned value that became a tile is stored into a new trailing Out parameter
  /// of the declared return type, and the store's result is returned.
  void exit_stores(const ir::ReturnStmt* ret, ir::Function& fn, std::vector<ir::StmtRef>& out) {
    if (!ret) {  // a kernel without results ends in an empty return, as upstream's does
      if (f_.return_types.empty()) out.push_back(ir::ReturnStmt::make({}, f_.body->span));
      return;
    }
    std::vector<ir::ExprRef> values;
    for (std::size_t i = 0; i < ret->values.size(); ++i) {
      ir::ExprRef returned = ret->values[i];
      if (ir::isa<ir::Call>(*returned)) {  // `return pl.assemble(...)`: converted as a statement
        ir::VarRef named =
            ir::Var::make("ret" + std::to_string(i) + "_value", returned->type, ret->span);
        statement(ir::AssignStmt::make(named, returned, ret->span), out);
        returned = named;
      }
      ir::ExprRef v = operand(returned, ret->span, out);
      const auto* tile = ir::as<ir::TileType>(v->type.get());
      if (!tile) {
        values.push_back(std::move(v));
        continue;
      }
      const ir::TypeRef declared = i < f_.return_types.size() ? f_.return_types[i] : ir::TypeRef();
      const auto* t = declared ? ir::as<ir::TensorType>(declared.get()) : nullptr;
      if (!t)
        throw core::InternalError("convert-tensor-to-tile-ops: function '" + f_.name +
                                  "' returns a tile at position " + std::to_string(i) +
                                  " where it declares no tensor");
      ir::VarRef param = ir::Var::make("ret" + std::to_string(added_.size()) + "_out",
                                       ir::TensorType::make(t->dtype, t->shape), ret->span);
      fn.params.push_back(param);
      fn.param_directions.push_back(ir::ParamDirection::Out);
      added_.push_back({param, i});
      if (std::optional<ir::VarRef> stored = stored_loop(out, v, param)) {
        values.push_back(std::move(*stored));
        continue;
      }
      values.push_back(fresh("ret" + std::to_string(added_.size() - 1) + "_store", "tile.store",
                             {v, Emitter::tuple(Emitter::zeros(tile->shape.size())), param}, {},
                             ret->span, out));
    }
    out.push_back(ir::ReturnStmt::make(std::move(values), ret->span));
  }

  /// A returned loop that assembles parts into its one carried tile carries the Out parameter
  /// instead, each part stored into it (as upstream rewrites it), and the tile it started from
  /// goes when nothing else uses it: the loop's new result, or nullopt when `v` is no such loop's.
  std::optional<ir::VarRef> stored_loop(std::vector<ir::StmtRef>& out, const ir::ExprRef& v,
                                        const ir::VarRef& param) const {
    auto uses = [](const ir::NodeRef& n, const ir::Node* var) {
      bool found = false;
      ir::for_each_node(n, [&](const ir::Node& x) { found = found || &x == var; });
      return found;
    };
    auto at = std::find_if(out.begin(), out.end(), [&](const ir::StmtRef& s) {
      const auto* f = ir::as<ir::ForStmt>(s.get());
      return f && f->iter_args.size() == 1 && f->return_vars.size() == 1 && f->return_vars[0] == v;
    });
    if (at == out.end()) return std::nullopt;
    const auto& loop = static_cast<const ir::ForStmt&>(**at);
    const ir::IterArg* carried = loop.iter_args[0].get();
    const auto* seq = ir::as<ir::SeqStmts>(loop.body.get());
    std::vector<ir::StmtRef> body = seq ? seq->stmts : std::vector<ir::StmtRef>{loop.body};
    const ir::AssignStmt* part = nullptr;
    const ir::YieldStmt* yield = nullptr;
    for (const ir::StmtRef& s : body) {
      const auto* a = ir::as<ir::AssignStmt>(s.get());
      const auto* c = a ? ir::as<ir::Call>(a->value.get()) : nullptr;
      if (c && c->op->id == ir::OpId::tile_assemble && c->args.size() == 3 &&
          c->args[0].get() == carried) {
        if (part || uses(c->args[1], carried) || uses(c->args[2], carried)) return std::nullopt;
        part = a;
      } else if (const auto* y = ir::as<ir::YieldStmt>(s.get())) {
        if (yield || y->values.size() != 1) return std::nullopt;
        yield = y;
      } else if (uses(s, carried)) {
        return std::nullopt;
      }
    }
    if (!part || !yield || yield->values[0] != part->var) return std::nullopt;
    const auto& assemble = static_cast<const ir::Call&>(*part->value);
    ir::IterArgRef into = ir::IterArg::make(carried->name_hint, param->type, param, carried->span);
    ir::ExprRef store = ops_.make_call("tile.store", {assemble.args[1], assemble.args[2], into}, {},
                                       {}, assemble.span);
    ir::VarRef stored = ir::Var::make(part->var->name_hint, store->type, part->var->span);
    for (ir::StmtRef& s : body) {
      if (s.get() == part) s = ir::AssignStmt::make(stored, store, part->span);
      if (s.get() == yield) s = ir::YieldStmt::make({stored}, yield->span);
    }
    auto rebuilt = ir::copy_node(loop);
    rebuilt->iter_args = {into};
    rebuilt->body = ir::SeqStmts::make(std::move(body), loop.body->span);
    ir::VarRef result =
        ir::Var::make(loop.return_vars[0]->name_hint, param->type, loop.return_vars[0]->span);
    rebuilt->return_vars = {result};
    const ir::ExprRef init = carried->init_value;
    *at = rebuilt;
    const bool init_used = std::any_of(out.begin(), out.end(), [&](const ir::StmtRef& s) {
      const auto* a = ir::as<ir::AssignStmt>(s.get());
      return !(a && a->var == init) && uses(s, init.get());
    });
    if (ir::isa<ir::Var>(*init) && !init_used)
      out.erase(std::remove_if(out.begin(), out.end(),
                               [&](const ir::StmtRef& s) {
                                 const auto* a = ir::as<ir::AssignStmt>(s.get());
                                 return a && a->var == init;
                               }),
                out.end());
    return result;
  }

  ir::VarRef fresh(std::string name, std::string_view op, std::vector<ir::ExprRef> args,
                   ir::Attrs kwargs, const ir::Span& span, std::vector<ir::StmtRef>& out) {
    return Emitter(ops_, f_.name, std::string(op), span, out)
        .bind(std::move(name), op, std::move(args), std::move(kwargs));
  }

  struct OnLeave {
    std::size_t& depth;
    ~OnLeave() { --depth; }
  };

  const ir::Function& f_;
  const ir::OpRegistry& ops_;
  TileArch arch_;
  Substitution subst_;  // tensor value -> the tile (or re-made variable) holding it from here
  ::pypto::detail::PointerMap<bool> loaded_;  // parameters loaded at the entry; never iterated
  ::pypto::detail::PointerMap<ir::VarRef> converted_;  // variable -> its tile; never iterated
  std::vector<AddedOutput> added_;
  std::size_t depth_ = 0;
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
/// coordinates) and passed, and so for a Submit passing all the kernel's old parameters (one
/// omitting trailing outputs leaves them to the runtime). Only Orchestration and Opaque functions
/// allocate; a call elsewhere (a Group or Spmd wrapper, another kernel), nested in an expression,
/// or whose output shape uses a variable not bound in the caller before the call is a
/// KernelOutputCallError.
class CallerRewriter {
 public:
  CallerRewriter(const ir::Function& f, const ChangedKernels& changed, const ir::OpRegistry& ops)
      : f_(f), changed_(changed), ops_(ops) {}

  ir::FunctionRef run(const ir::FunctionRef& fn) {
    if (!f_.body) return fn;
    const ir::Call* first = nullptr;
    bool submits = false;
    ir::for_each_node(ir::NodeRef(f_.body), [&](const ir::Node& n) {
      if (const ir::Call* c = changed_call(&n); c && !first) first = c;
      submits = submits || changed_submit(&n);
    });
    if (!first && !submits) return fn;
    if (first && f_.func_type != ir::FunctionType::Orchestration &&
        f_.func_type != ir::FunctionType::Opaque)
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
  template <class CallNode>
  [[noreturn]] void fail(const CallNode& c, const ir::Span& fallback, const std::string& why) {
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
    if (const auto* a = ir::as<ir::AssignStmt>(s.get())) {
      if (const ir::Call* c = changed_call(a->value.get())) {
        auto copy = ir::copy_node(*a);
        copy->value = with_outputs(*c, *s, out);
        out.push_back(copy);
        return true;
      }
      if (const ir::Submit* c = changed_submit(a->value.get())) {
        auto copy = ir::copy_node(*a);
        copy->value = with_outputs(*c, *s, out);
        out.push_back(copy);
        return true;
      }
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

  /// `n` as a Submit of a changed kernel passing every parameter it had, or null (one that
  /// omits trailing outputs leaves them to the runtime, the new ones too).
  const ir::Submit* changed_submit(const ir::Node* n) const {
    const auto* c = ir::as<ir::Submit>(n);
    if (!c || !ir::isa<ir::GlobalVar>(*c->op)) return nullptr;
    auto it = changed_.find(c->op->name);
    return it != changed_.end() &&
                   c->args.size() + it->second.outputs.size() == it->second.function->params.size()
               ? c
               : nullptr;
  }

  /// `call` (a Call or a Submit) with an allocated buffer for each new Out parameter of its
  /// kernel; the allocations go to `out`.
  template <class CallNode>
  ir::ExprRef with_outputs(const CallNode& call, const ir::Stmt& s, std::vector<ir::StmtRef>& out) {
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
      kw = kw.with("layout", ir::EnumValue::of(ir::TensorLayout::ND));
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

  /// The recorded type of result `k` of a call of `callee` (the caller's coordinates); a
  /// Submit's results come first in its flat tuple, the task id last.
  template <class CallNode>
  static ir::TypeRef result_type(const CallNode& call, const ir::Function& callee, std::size_t k) {
    if (std::is_same_v<CallNode, ir::Call> && callee.return_types.size() == 1) return call.type;
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
      : fn_(fn), lineage_(lineage), read(fn.params.size()), written(fn.params.size()) {
    for (std::size_t i = 0; i < fn.params.size(); ++i) param_index_.insert(fn.params[i].get(), i);
  }

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
    // A parameter is its own buffer even where the body rebinds its name (`t = op(t)` with
    // the parameter's Var on both sides).
    const std::size_t* own = param_index_.find(&v);
    const std::optional<std::size_t> p =
        own ? std::optional<std::size_t>(*own) : lineage_.param_of(fn_, v);
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
  ::pypto::detail::PointerMap<bool> op_results_;          // looked up, never iterated
  ::pypto::detail::PointerMap<std::size_t> param_index_;  // looked up, never iterated

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

PYPTO_DECL Pass ConvertTensorToTileOps(const ir::OpRegistry& ops,
                                       ConvertTensorToTileOptions options) {
  return Pass("convert-tensor-to-tile-ops", {Property::SSAForm, Property::SplitIncoreOrch},
              /*produced=*/{}, /*invalidated=*/{},
              [registry = std::make_shared<const ir::OpRegistry>(ops),
               options](const ir::Program& program) {
                namespace t2t = detail::tensor_to_tile;
                std::vector<ir::FunctionRef> functions;
                t2t::ChangedKernels changed_kernels;
                bool changed = false;
                for (const auto& entry : program.functions) {
                  const ir::FunctionRef& fn = entry.function;
                  ir::FunctionRef out = fn;
                  if (is_kernel_function(fn->func_type)) {
                    t2t::KernelConverter converter(*fn, *registry, options.arch);
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

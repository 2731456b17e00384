// pypto/transforms/call_shape_proof.ipp — the definitions of transforms/call_shape_proof.hpp.
#pragma once

#include "pypto/transforms/call_shape_proof.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pypto/core/limits.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/identical.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/structural/signature.hpp"

// The proof, one call site at a time:
//
//   * bindings come only from supplied arguments: a scalar parameter is bound to its argument
//     expression, a tensor parameter's dims are matched against the argument type's dims; a
//     call that omits any parameter (a Submit's runtime-allocated output) fails;
//   * matching is by same structure (`N * 128` against `K * 128` binds N := K), constants by
//     value and dtype, a repeated symbol must meet exactly the same caller expression each time;
//     no algebraic inversion (`N * 128` against `256` fails) and no runtime guard;
//   * the canonical return types, read through the bindings, must be exactly the call's
//     recorded result type (for a Submit, the tuple elements before its task id).
//
// Only simple signatures take the proof (`ineligibility()`): scalar parameters and plain
// Tensor types without storage, optionally with a layout-only TensorView; dims built from
// variables, integer constants, and unary / binary operators; at most 256 parameters, 256
// returns and 256 distinct shape-expression nodes. Anything else (strides, valid_shape, storage,
// tiles, tuples, other expressions) needs exact symbol identity, which the pass checks itself.
//
// Cost: every match or comparison of two expression nodes is a step; a site may take at most
// `kMaxStepsPerSite` (65,536) and the steps of all sites come out of a shared budget the caller
// sets (the inspected program's weight). A pair of shared nodes is matched once per site.

namespace pypto::transforms {

PYPTO_DECL CallShapeProof::CallShapeProof(const ir::Function& canonical) : fn_(canonical) {
  if (fn_.params.size() > kMaxSignatureItems || fn_.return_types.size() > kMaxSignatureItems) {
    ineligible_ = "the signature has more than " + std::to_string(kMaxSignatureItems) +
                  " parameters or returns";
    return;
  }
  for (const auto& p : fn_.params) add_slot(p.get());
  for (const auto& s : structural::signature_symbols(fn_)) add_slot(s.get());
  for (std::size_t i = 0; i < fn_.params.size() && ineligible_.empty(); ++i)
    check_type(*fn_.params[i]->type, "parameter '" + fn_.params[i]->name_hint + "'");
  for (std::size_t i = 0; i < fn_.return_types.size() && ineligible_.empty(); ++i)
    check_type(*fn_.return_types[i], "return " + std::to_string(i));
}

PYPTO_DECL ShapeProofOutcome CallShapeProof::prove(const std::vector<ir::ExprRef>& args,
                                                   const ir::Type& result, bool is_submit,
                                                   std::uint64_t& steps_budget) {
  bound_.assign(slots_, nullptr);
  memo_.clear();
  same_memo_.clear();
  steps_ = 0;
  budget_ = &steps_budget;
  out_of_budget_ = false;
  why_.clear();
  ShapeProofOutcome out;
  auto fail = [&](std::string why) {
    out.status =
        out_of_budget_ ? ShapeProofOutcome::Status::OutOfBudget : ShapeProofOutcome::Status::Failed;
    out.why =
        out_of_budget_ ? "the call-shape proof ran out of steps (" + why + ")" : std::move(why);
    return out;
  };
  if (args.size() != fn_.params.size())
    return fail("it supplies " + std::to_string(args.size()) + " of " +
                std::to_string(fn_.params.size()) +
                " parameters; a shape-distinct alias binds only from supplied arguments");
  for (std::size_t i = 0; i < args.size(); ++i) {
    const ir::Var& p = *fn_.params[i];
    const std::string where = "argument " + std::to_string(i) + " ('" + p.name_hint + "')";
    if (ir::isa<ir::ScalarType>(*p.type)) {
      if (!bind_scalar(p, *args[i])) return fail(where + ": " + why_);
    } else if (!match_tensor(static_cast<const ir::TensorType&>(*p.type), *args[i]->type, true)) {
      return fail(where + ": " + why_);
    }
  }
  // the recorded result, in caller coordinates
  std::vector<const ir::Type*> recorded;
  const std::size_t n = fn_.return_types.size();
  if (is_submit || n != 1) {
    const auto* tuple = ir::as<ir::TupleType>(&result);
    if (!tuple || tuple->types.size() != n + (is_submit ? 1 : 0))
      return fail("its recorded result type does not have the callee's " + std::to_string(n) +
                  " returns");
    for (std::size_t i = 0; i < n; ++i) recorded.push_back(tuple->types[i].get());
  } else {
    recorded.push_back(&result);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const ir::Type& expected = *fn_.return_types[i];
    const std::string where = "result " + std::to_string(i);
    if (const auto* s = ir::as<ir::ScalarType>(&expected)) {
      const auto* r = ir::as<ir::ScalarType>(recorded[i]);
      if (!r || r->dtype != s->dtype) return fail(where + ": the recorded type is not the scalar");
    } else if (!match_tensor(static_cast<const ir::TensorType&>(expected), *recorded[i], false)) {
      return fail(where + ": " + why_);
    }
  }
  return out;
}

PYPTO_DECL void CallShapeProof::add_slot(const ir::Var* v) {
  if (slot_of_.insert(v, slots_).second) ++slots_;
}

/// Eligibility of one signature type: a scalar, or a storage-free Tensor with at most a
/// layout-only view and supported dims.
PYPTO_DECL void CallShapeProof::check_type(const ir::Type& t, const std::string& where) {
  if (ir::isa<ir::ScalarType>(t)) return;
  const auto* tensor = ir::as<ir::TensorType>(&t);
  if (!tensor) {
    ineligible_ = where + " is a " + std::string(ir::kind_name(t.kind())) +
                  ", not a scalar or a plain Tensor";
    return;
  }
  if (tensor->memref) {
    ineligible_ = where + " has storage";
    return;
  }
  if (const auto& view = tensor->tensor_view)
    if (!view->stride.empty() || !view->valid_shape.empty() || view->pad != ir::PadValue::null) {
      ineligible_ = where + " has strides, valid_shape or padding (not a layout-only view)";
      return;
    }
  for (const auto& d : tensor->shape)
    if (!check_dim(*d, where)) return;
}

PYPTO_DECL bool CallShapeProof::check_dim(const ir::Expr& e, const std::string& where) {
  if (e.use_count() > 1 && !seen_.insert(&e, 0).second) return true;
  if (++unique_nodes_ > kMaxSignatureItems) {
    ineligible_ = "the signature has more than " + std::to_string(kMaxSignatureItems) +
                  " distinct shape-expression nodes";
    return false;
  }
  if (ir::isa<ir::Var>(e)) {
    if (slot_of_.find(&e)) return true;
    ineligible_ = where + " uses '" + static_cast<const ir::Var&>(e).name_hint +
                  "', which no parameter binds";
    return false;
  }
  if (ir::isa<ir::ConstInt>(e)) return true;
  if (const auto* b = ir::as<ir::BinaryExpr>(&e))
    return check_dim(*b->left, where) && check_dim(*b->right, where);
  if (const auto* u = ir::as<ir::UnaryExpr>(&e)) return check_dim(*u->operand, where);
  ineligible_ = where + " has a " + std::string(ir::kind_name(e.kind())) +
                " in a dim (unsupported expression)";
  return false;
}

PYPTO_DECL ir::DataType CallShapeProof::dtype_of(const ir::Expr& e) {
  const auto* s = ir::as<ir::ScalarType>(e.type.get());
  return s ? s->dtype : ir::DataType{};
}

PYPTO_DECL bool CallShapeProof::step() {
  if (*budget_ == 0 || steps_ >= kMaxStepsPerSite) {
    out_of_budget_ = true;
    return false;
  }
  --*budget_;
  ++steps_;
  return true;
}

PYPTO_DECL bool CallShapeProof::bind_scalar(const ir::Var& param, const ir::Expr& arg) {
  const auto* st = ir::as<ir::ScalarType>(arg.type.get());
  if (!st || st->dtype != static_cast<const ir::ScalarType&>(*param.type).dtype) {
    why_ = "the argument is not a scalar of the parameter's dtype";
    return false;
  }
  return match(param, arg, true);
}

/// `pattern`'s dims against `actual`'s; binding new symbols only when `bind`.
PYPTO_DECL bool CallShapeProof::match_tensor(const ir::TensorType& pattern, const ir::Type& actual,
                                             bool bind) {
  const auto* t = ir::as<ir::TensorType>(&actual);
  if (!t || t->dtype != pattern.dtype || t->rank() != pattern.rank()) {
    why_ = "not a Tensor of the same dtype and rank";
    return false;
  }
  if (!bind) {  // a result: everything but the dims is exactly the canonical signature's
    if (t->memref || t->tensor_view.has_value() != pattern.tensor_view.has_value()) {
      why_ = "its storage or view differs from the callee's";
      return false;
    }
    if (t->tensor_view) {
      const auto &a = *t->tensor_view, &p = *pattern.tensor_view;
      if (a.layout != p.layout || !a.stride.empty() || !a.valid_shape.empty() || a.pad != p.pad) {
        why_ = "its view differs from the callee's";
        return false;
      }
    }
  }
  for (std::size_t d = 0; d < t->rank(); ++d)
    if (!match(*pattern.shape[d], *t->shape[d], bind)) {
      why_ = "dim " + std::to_string(d) + ": " + why_;
      return false;
    }
  return true;
}

/// Canonical expression `p` against caller expression `a`.
PYPTO_DECL bool CallShapeProof::match(const ir::Expr& p, const ir::Expr& a, bool bind) {
  if (!step()) {
    why_ = "step limit";
    return false;
  }
  if (const ir::Node* const* done = memo_.find(&p); done && *done == &a) return true;
  bool ok = false;
  if (ir::isa<ir::Var>(p)) {
    const std::size_t* slot = slot_of_.find(&p);
    const std::string name = static_cast<const ir::Var&>(p).name_hint;
    if (!slot) {
      why_ = "'" + name + "' is bound by no parameter";
    } else if (const ir::Expr* prior = bound_[*slot]) {
      ok = same(*prior, a);
      if (!ok && why_.empty()) why_ = "'" + name + "' is bound to two different expressions";
    } else if (!bind) {
      why_ = "'" + name + "' is bound by no supplied argument";
    } else if (dtype_of(p) != dtype_of(a)) {
      why_ = "'" + name + "' would be bound to an expression of another dtype";
    } else {
      bound_[*slot] = &a;
      ok = true;
    }
  } else if (const auto* pc = ir::as<ir::ConstInt>(&p)) {
    const auto* ac = ir::as<ir::ConstInt>(&a);
    ok = ac && ac->value == pc->value && ac->dtype() == pc->dtype();
    if (!ok) why_ = "the constant " + std::to_string(pc->value) + " meets a different value";
  } else if (p.kind() != a.kind() || dtype_of(p) != dtype_of(a)) {
    why_ = "a " + std::string(ir::kind_name(p.kind())) + " meets a " +
           std::string(ir::kind_name(a.kind())) + " (no algebraic inversion)";
  } else if (const auto* pb = ir::as<ir::BinaryExpr>(&p)) {
    const auto& ab = static_cast<const ir::BinaryExpr&>(a);
    ok = match(*pb->left, *ab.left, bind) && match(*pb->right, *ab.right, bind);
  } else if (const auto* pu = ir::as<ir::UnaryExpr>(&p)) {
    ok = match(*pu->operand, *static_cast<const ir::UnaryExpr&>(a).operand, bind);
  }
  if (ok && (p.use_count() > 1 || a.use_count() > 1)) memo_.insert(&p, &a);
  return ok;
}

/// Two caller expressions are the same value (variables by identity). Recursion follows the
/// caller's expressions, so it is bounded by core::kMaxNesting (deeper counts as different).
PYPTO_DECL bool CallShapeProof::same(const ir::Expr& x, const ir::Expr& y, std::size_t depth) {
  if (&x == &y) return true;
  if (!step()) {
    why_ = "step limit";
    return false;
  }
  if (depth >= core::kMaxNesting) {
    why_ = "caller expressions nested deeper than " + std::to_string(core::kMaxNesting);
    return false;
  }
  if (x.kind() != y.kind() || ir::isa<ir::Var>(x) || dtype_of(x) != dtype_of(y)) return false;
  if (const ir::Node* const* done = same_memo_.find(&x); done && *done == &y) return true;
  bool ok = false;
  if (const auto* cx = ir::as<ir::ConstInt>(&x)) {
    ok = cx->value == static_cast<const ir::ConstInt&>(y).value;
  } else if (const auto* bx = ir::as<ir::BinaryExpr>(&x)) {
    const auto& by = static_cast<const ir::BinaryExpr&>(y);
    ok = same(*bx->left, *by.left, depth + 1) && same(*bx->right, *by.right, depth + 1);
  } else if (const auto* ux = ir::as<ir::UnaryExpr>(&x)) {
    ok = same(*ux->operand, *static_cast<const ir::UnaryExpr&>(y).operand, depth + 1);
  } else {
    ok = ir::identical(ir::ExprRef(&x), ir::ExprRef(&y));
  }
  if (ok && (x.use_count() > 1 || y.use_count() > 1)) same_memo_.insert(&x, &y);
  return ok;
}

}  // namespace pypto::transforms

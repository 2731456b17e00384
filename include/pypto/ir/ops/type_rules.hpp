// pypto/ir/ops/type_rules.hpp — the result-type rules the op catalog shares.
//
// A rule takes the op name, the arguments and the keywords and returns the call's type or
// throws a TypeError naming the argument at fault. The rules follow upstream PyPTO's: dtypes
// promote (a float over an integer, the wider over the narrower, signed over unsigned at one
// width), shapes broadcast right-aligned (a dimension of 1 stretches), a tile op keeps its first
// operand's memory space. Family tables (tile.ipp, tensor.ipp, system.ipp) name these rules;
// see docs/text-format.md for the catalog.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/core/dtype.hpp"
#include "pypto/core/error.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/identical.hpp"
#include "pypto/ir/type.hpp"

namespace pypto::ir::ops {

using Args = std::vector<ExprRef>;

[[noreturn]] inline void fail(std::string_view op, std::size_t i, std::string_view what) {
  throw core::TypeError(std::string(op) + ": argument " + std::to_string(i) + " " +
                        std::string(what));
}

template <class T>
const T& arg_as(std::string_view op, const Args& args, std::size_t i) {
  const T* t = as<T>(args[i]->type.get());
  if (!t)
    fail(op, i,
         "must have a " + std::string(T::class_name) + ", got a " +
             std::string(kind_name(args[i]->type->kind())));
  return *t;
}

/// The keyword `key` as a T; a TypeError when it is absent (or of another kind).
template <class T>
T required_kwarg(std::string_view op, const Attrs& kw, std::string_view key) {
  if (std::optional<T> v = kw.get<T>(key)) return *v;
  throw core::TypeError(std::string(op) + ": keyword '" + std::string(key) + "' is required");
}

/// The dimensions of a shape argument (a MakeTuple of integer scalars).
inline std::vector<ExprRef> shape_arg(std::string_view op, const Args& args, std::size_t i) {
  const auto* tuple = as<MakeTuple>(args[i].get());
  if (!tuple) fail(op, i, "must be a shape list such as [16, 16]");
  for (const auto& d : tuple->elements)
    if (!is_integer_scalar(d)) fail(op, i, "must contain integer scalar dimensions");
  return tuple->elements;
}

/// The element dtype and shape of a Tile or Tensor argument.
struct Shaped {
  core::DataType dtype;
  std::vector<ExprRef> shape;
  bool tile = false;
};
inline Shaped shaped_arg(std::string_view op, const Args& args, std::size_t i) {
  if (const auto* t = as<TileType>(args[i]->type.get())) return {t->dtype, t->shape, true};
  if (const auto* t = as<TensorType>(args[i]->type.get())) return {t->dtype, t->shape, false};
  fail(
      op, i,
      std::string(op.starts_with("tile.") ? "must have a TileType" : "must be a tile or a tensor") +
          ", got a " + std::string(kind_name(args[i]->type->kind())));
}

/// Upstream's dtype promotion: equal stays; a float beats an integer; the wider wins; at one
/// width a signed integer beats an unsigned one; else the first.
inline core::DataType promote(core::DataType a, core::DataType b) {
  if (a == b) return a;
  const bool fa = core::is_float(a), fb = core::is_float(b);
  if (fa != fb) return fa ? a : b;
  const auto wa = core::bit_width(a), wb = core::bit_width(b);
  if (wa != wb) return wa > wb ? a : b;
  if (!fa && core::is_signed_int(a)) return a;
  if (!fb && core::is_signed_int(b)) return b;
  return a;
}

/// True when two extents are known equal: the same constant or the same expression.
inline bool same_extent(const ExprRef& a, const ExprRef& b) {
  const auto* ca = as<ConstInt>(a.get());
  const auto* cb = as<ConstInt>(b.get());
  if (ca && cb) return ca->value == cb->value;
  return identical(a, b);
}
inline bool is_one(const ExprRef& e) {
  const auto* c = as<ConstInt>(e.get());
  return c && c->value == 1;
}

/// Right-aligned broadcast of two shapes; a TypeError on argument `i` when they conflict.
inline std::vector<ExprRef> broadcast(std::string_view op, std::size_t i,
                                      const std::vector<ExprRef>& a,
                                      const std::vector<ExprRef>& b) {
  const std::size_t n = a.size() > b.size() ? a.size() : b.size();
  std::vector<ExprRef> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    const ExprRef* x = k < a.size() ? &a[a.size() - 1 - k] : nullptr;
    const ExprRef* y = k < b.size() ? &b[b.size() - 1 - k] : nullptr;
    ExprRef& r = out[n - 1 - k];
    if (!x || !y) {
      r = x ? *x : *y;
    } else if (same_extent(*x, *y) || is_one(*y)) {
      r = *x;
    } else if (is_one(*x)) {
      r = *y;
    } else {
      fail(op, i, "must have a shape that broadcasts against argument 0's");
    }
  }
  return out;
}

inline bool same_shape(const std::vector<ExprRef>& a, const std::vector<ExprRef>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (!same_extent(a[k], b[k])) return false;
  return true;
}

/// A tile or tensor like argument 0 (tile or tensor, its memory space) of this dtype and shape;
/// argument 0's own type when both are unchanged. The result is fresh data: a distributed
/// operand gives a plain tensor.
inline TypeRef like_arg0(const Args& args, core::DataType dtype, std::vector<ExprRef> shape) {
  if (const auto* t = as<TileType>(args[0]->type.get())) {
    if (t->dtype == dtype && same_shape(t->shape, shape)) return args[0]->type;
    return TileType::make(dtype, std::move(shape), t->memory_space);
  }
  const auto& t = *as<TensorType>(args[0]->type.get());
  if (t.dtype == dtype && same_shape(t.shape, shape) && !t.distributed) return args[0]->type;
  return TensorType::make(dtype, std::move(shape));
}

}  // namespace pypto::ir::ops

// ---- rules shared by the tile and tensor families ----------------------------------------

namespace pypto::ir::ops {

/// Two shaped operands (or a shaped and a scalar): the promoted dtype over the broadcast shape.
inline TypeRef elementwise(std::string_view op, const Args& args, const Attrs&) {
  const Shaped lhs = shaped_arg(op, args, 0);
  if (const auto* s = as<ScalarType>(args[1]->type.get()))
    return like_arg0(args, promote(lhs.dtype, s->dtype), lhs.shape);
  const Shaped rhs = shaped_arg(op, args, 1);
  if (rhs.tile != lhs.tile) fail(op, 1, lhs.tile ? "must be a tile" : "must be a tensor");
  return like_arg0(args, promote(lhs.dtype, rhs.dtype), broadcast(op, 1, lhs.shape, rhs.shape));
}

/// Same dtype and shape on both sides (tdiv's contract): argument 0's type.
inline TypeRef same_operands(std::string_view op, const Args& args, const Attrs&) {
  const Shaped lhs = shaped_arg(op, args, 0);
  const Shaped rhs = shaped_arg(op, args, 1);
  if (rhs.dtype != lhs.dtype) fail(op, 1, "must have argument 0's dtype");
  if (!same_shape(lhs.shape, rhs.shape)) fail(op, 1, "must have argument 0's shape");
  return args[0]->type;
}

/// A shaped operand and a scalar: the shaped operand's type (the scalar narrows to it).
inline TypeRef with_scalar(std::string_view op, const Args& args, const Attrs&) {
  shaped_arg(op, args, 0);
  if (!as<ScalarType>(args[1]->type.get())) fail(op, 1, "must be a scalar");
  return args[0]->type;
}

/// Argument 0's type, argument 0 being a tile or a tensor (unary ops, in-place forms).
inline TypeRef like_first(std::string_view op, const Args& args, const Attrs&) {
  shaped_arg(op, args, 0);
  return args[0]->type;
}

/// Argument 0's type with another dtype (integer-result bit ops keep it; casts change it).
inline TypeRef cast(std::string_view op, const Args& args, const Attrs& kw) {
  const Shaped in = shaped_arg(op, args, 0);
  return like_arg0(args, required_kwarg<core::DataType>(op, kw, "target_type"), in.shape);
}

/// Row reduction: [rows, 1] (the leading dimensions kept); argmax / argmin give INT32 indices.
template <bool Rows, bool Index>
TypeRef reduce(std::string_view op, const Args& args, const Attrs&) {
  const Shaped in = shaped_arg(op, args, 0);
  if (in.shape.size() < 2) fail(op, 0, "must have at least 2 dimensions");
  std::vector<ExprRef> shape = in.shape;
  shape[shape.size() - (Rows ? 1 : 2)] = ConstInt::make(1);
  return like_arg0(args, Index ? core::DataType::INT32 : in.dtype, std::move(shape));
}

/// Row / col expand: argument 0's shape; argument 1 is [rows, 1] / [1, cols] of it.
inline TypeRef expand(std::string_view op, const Args& args, const Attrs&) {
  const Shaped target = shaped_arg(op, args, 0);
  const Shaped vec = shaped_arg(op, args, 1);
  if (vec.shape.size() < 2 || target.shape.size() < 2)
    fail(op, 1, "must be a row or column vector of argument 0");
  return like_arg0(args, promote(target.dtype, vec.dtype), target.shape);
}

/// A fresh value of the shape in argument `S` and the `dtype` keyword (Tile or Tensor); the
/// keyword is required, or defaults to `Default`.
template <bool Tile, std::size_t S, bool Required, core::DataType Default = core::DataType::FP32>
TypeRef fresh(std::string_view op, const Args& args, const Attrs& kw) {
  const core::DataType dt = Required ? required_kwarg<core::DataType>(op, kw, "dtype")
                                     : kw.get<core::DataType>("dtype").value_or(Default);
  if constexpr (Tile)
    return TileType::make(dt, shape_arg(op, args, S), kw.get<MemorySpace>("target_memory"));
  else
    return TensorType::make(dt, shape_arg(op, args, S));
}

/// Argument 0 viewed with the shape of argument `S` (slice, reshape, extract, fillpad_expand).
template <std::size_t S>
TypeRef reshaped(std::string_view op, const Args& args, const Attrs& kw) {
  const Shaped in = shaped_arg(op, args, 0);
  std::vector<ExprRef> shape = shape_arg(op, args, S);
  if (in.tile) {
    std::optional<MemorySpace> space = kw.get<MemorySpace>("target_memory");
    if (!space) space = as<TileType>(args[0]->type.get())->memory_space;
    return TileType::make(in.dtype, std::move(shape), space);
  }
  return TensorType::make(in.dtype, std::move(shape));
}

/// Argument 0 with the dimensions named by constant arguments 1 and 2 swapped.
inline TypeRef transpose(std::string_view op, const Args& args, const Attrs&) {
  const Shaped in = shaped_arg(op, args, 0);
  const auto rank = static_cast<std::int64_t>(in.shape.size());
  auto axis = [&](std::size_t i) {
    const auto* c = as<ConstInt>(args[i].get());
    if (!c || c->value < -rank || c->value >= rank) fail(op, i, "must be a constant axis");
    return static_cast<std::size_t>(c->value < 0 ? c->value + rank : c->value);
  };
  std::vector<ExprRef> shape = in.shape;
  std::swap(shape[axis(1)], shape[axis(2)]);
  return like_arg0(args, in.dtype, std::move(shape));
}

/// Two operands joined along the last dimension.
inline TypeRef concat(std::string_view op, const Args& args, const Attrs&) {
  const Shaped a = shaped_arg(op, args, 0);
  const Shaped b = shaped_arg(op, args, 1);
  if (a.dtype != b.dtype || a.shape.size() != b.shape.size() || a.shape.empty())
    fail(op, 1, "must have argument 0's dtype and rank");
  std::vector<ExprRef> shape = a.shape;
  const auto* x = as<ConstInt>(a.shape.back().get());
  const auto* y = as<ConstInt>(b.shape.back().get());
  shape.back() = x && y ? ConstInt::make(x->value + y->value)
                        : ExprRef(Add::make(a.shape.back(), b.shape.back()));
  return like_arg0(args, a.dtype, std::move(shape));
}

/// Argument 0 viewed with the `dtype` keyword (and the shape of argument 1 when given).
inline TypeRef reinterpret(std::string_view op, const Args& args, const Attrs& kw) {
  const Shaped in = shaped_arg(op, args, 0);
  const core::DataType dt = required_kwarg<core::DataType>(op, kw, "dtype");
  std::vector<ExprRef> shape = in.shape;
  if (args.size() > 1) {
    shape = shape_arg(op, args, 1);
  } else if (!shape.empty()) {
    const auto* last = as<ConstInt>(shape.back().get());
    const auto from = core::bit_width(in.dtype), to = core::bit_width(dt);
    if (!last || to == 0 || (last->value * from) % to != 0)
      fail(op, 0, "must have a last dimension that holds whole elements of the new dtype");
    shape.back() = ConstInt::make(last->value * from / to);
  }
  return like_arg0(args, dt, std::move(shape));
}

/// A scalar element of argument 0 at the indices of argument 1.
inline TypeRef element(std::string_view op, const Args& args, const Attrs&) {
  return ScalarType::make(shaped_arg(op, args, 0).dtype);
}

/// The matmul family: [.., M, K] x [.., K, N] -> [.., M, N], FP32 (INT32 for integers) unless
/// `out_dtype` says; a tile result lives in Acc. `Acc` shifts the operands by one (acc first).
template <std::size_t First>
TypeRef matmul(std::string_view op, const Args& args, const Attrs& kw) {
  const Shaped l = shaped_arg(op, args, First);
  const Shaped r = shaped_arg(op, args, First + 1);
  if (l.shape.size() < 2) fail(op, First, "must have at least 2 dimensions");
  if (r.shape.size() < 2) fail(op, First + 1, "must have at least 2 dimensions");
  const bool at = kw.get<bool>("a_trans").value_or(false);
  const bool bt = kw.get<bool>("b_trans").value_or(false);
  const ExprRef& m = l.shape[l.shape.size() - (at ? 1 : 2)];
  const ExprRef& k1 = l.shape[l.shape.size() - (at ? 2 : 1)];
  const ExprRef& k2 = r.shape[r.shape.size() - (bt ? 1 : 2)];
  const ExprRef& n = r.shape[r.shape.size() - (bt ? 2 : 1)];
  if (!same_extent(k1, k2) && as<ConstInt>(k1.get()) && as<ConstInt>(k2.get()))
    fail(op, First + 1,
         "must have as many rows as argument " + std::to_string(First) +
             " has columns (K = " + std::to_string(as<ConstInt>(k1.get())->value) + ", got " +
             std::to_string(as<ConstInt>(k2.get())->value) + ")");
  if constexpr (First > 0) return args[0]->type;
  std::vector<ExprRef> shape(l.shape.begin(), l.shape.end() - 2);
  shape.push_back(m);
  shape.push_back(n);
  const core::DataType acc =
      kw.get<core::DataType>("out_dtype")
          .value_or(core::is_float(l.dtype) ? core::DataType::FP32 : core::DataType::INT32);
  if (l.tile) return TileType::make(acc, std::move(shape), MemorySpace::Acc);
  return TensorType::make(acc, std::move(shape));
}

/// The packed predicate mask of a compare: UINT8, one bit per element of the last dimension,
/// rows padded to 32 bytes (upstream's a2a3 layout). A tensor compare keeps the shape.
inline TypeRef compare(std::string_view op, const Args& args, const Attrs&) {
  const Shaped lhs = shaped_arg(op, args, 0);
  if (!lhs.tile) return elementwise(op, args, {});
  std::vector<ExprRef> shape = lhs.shape;
  if (shape.empty()) fail(op, 0, "must not be a rank-0 tile");
  if (const auto* c = as<ConstInt>(shape.back().get()))
    shape.back() = ConstInt::make((c->value + 7) / 8 + 31 - ((c->value + 7) / 8 + 31) % 32);
  else
    shape.back() = Mul::make(
        FloorDiv::make(
            Add::make(FloorDiv::make(Add::make(shape.back(), ConstInt::make(7)), ConstInt::make(8)),
                      ConstInt::make(31)),
            ConstInt::make(32)),
        ConstInt::make(32));
  return TileType::make(core::DataType::UINT8, std::move(shape));
}

/// The empty tuple: a call made for its effect (a barrier, a pipe push). Only seed 001's legacy
/// allowlist is UnknownType (`statement_only`); every newer effect-only op gives this.
inline TypeRef nothing(std::string_view, const Args&, const Attrs&) { return TupleType::make({}); }
inline TypeRef unknown(std::string_view, const Args&, const Attrs&) { return UnknownType::make(); }
template <core::DataType D>
TypeRef scalar(std::string_view, const Args&, const Attrs&) {
  return ScalarType::make(D);
}
template <class T>
TypeRef resource(std::string_view, const Args&, const Attrs&) {
  return T::make();
}

}  // namespace pypto::ir::ops

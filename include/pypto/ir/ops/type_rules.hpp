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
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/core/dtype.hpp"
#include "pypto/core/error.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/identical.hpp"
#include "pypto/ir/round_mode.hpp"
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

/// elementwise, keeping argument 0's dtype (the shifts, subtraction of a scalar, the bitwise
/// ops with a scalar and the tile and / or, as upstream's rules have it).
inline TypeRef elementwise_lhs_dtype(std::string_view op, const Args& args, const Attrs& kw) {
  const TypeRef t = elementwise(op, args, kw);
  return like_arg0(args, shaped_arg(op, args, 0).dtype, static_cast<const ShapedType&>(*t).shape);
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

/// The element count of a shape of constants; nullopt when a dim is not a positive constant or
/// the count passes INT64's range.
inline std::optional<std::int64_t> static_elements(const std::vector<ExprRef>& shape) {
  std::int64_t n = 1;
  for (const ExprRef& d : shape) {
    const auto* c = as<ConstInt>(d.get());
    if (!c || c->value <= 0 || n > std::numeric_limits<std::int64_t>::max() / c->value)
      return std::nullopt;
    n *= c->value;
  }
  return n;
}

/// reshape(x, shape) -> x with the shape of argument 1; where both shapes are constants they
/// hold as many elements.
inline TypeRef reshape(std::string_view op, const Args& args, const Attrs& kw) {
  const std::optional<std::int64_t> from = static_elements(shaped_arg(op, args, 0).shape),
                                    to = static_elements(shape_arg(op, args, 1));
  if (from && to && *from != *to)
    fail(op, 1,
         "must hold as many elements as argument 0 (" + std::to_string(*to) + " for " +
             std::to_string(*from) + ")");
  return reshaped<1>(op, args, kw);
}

/// slice(x, shape, offset[, valid_shape[, drop_dims]]) -> x's window of `shape` at `offset`,
/// without the axes `drop_dims` names (constants); a tile that dropping takes below 2-D is
/// brought back to 2-D (unit axes prepended; a 1-D window of a 1-D tile stays 1-D, as
/// upstream's), a window of a distributed tensor stays distributed. The offset has the
/// window's rank; a tensor's may instead have the input's: a window of another rank than its
/// input (a 2-D window at [b, r, 0] of a 3-D tensor) is a view that reinterprets the input's
/// layout, as upstream's tensor.slice reads it.
inline TypeRef sliced(std::string_view op, const Args& args, const Attrs&) {
  const Shaped in = shaped_arg(op, args, 0);
  std::vector<ExprRef> shape = shape_arg(op, args, 1);
  const std::size_t offset_rank = shape_arg(op, args, 2).size();
  if (offset_rank != shape.size() && (in.tile || offset_rank != in.shape.size()))
    fail(op, 2,
         in.tile ? "must match the shape's rank" : "must match the shape's or the input's rank");
  const std::size_t rank = shape.size();
  if (args.size() > 4) {
    std::vector<bool> drop(shape.size(), false);
    for (const ExprRef& d : shape_arg(op, args, 4)) {
      const auto* c = as<ConstInt>(d.get());
      if (!c || c->value < 0 || static_cast<std::size_t>(c->value) >= shape.size())
        fail(op, 4, "must name axes of the input by constant");
      drop[static_cast<std::size_t>(c->value)] = true;
    }
    std::vector<ExprRef> kept;
    for (std::size_t i = 0; i < shape.size(); ++i)
      if (!drop[i]) kept.push_back(shape[i]);
    shape = std::move(kept);
  }
  if (const auto* t = as<TileType>(args[0]->type.get())) {
    while (shape.size() < 2 && shape.size() < rank) shape.insert(shape.begin(), ConstInt::make(1));
    return TileType::make(in.dtype, std::move(shape), t->memory_space);
  }
  return TensorType::make(in.dtype, std::move(shape), std::nullopt, nullptr,
                          as<TensorType>(args[0]->type.get())->distributed);
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

/// The matmul family: [.., M, K] x [.., K, N] -> [.., M, N] (the batch dimensions of both
/// broadcast right-aligned); a tile result is FP32 (INT32 for integers) in Acc (a tile's
/// `out_dtype` may only repeat it), a tensor result the operands' promoted dtype unless
/// `out_dtype` says. `Acc` shifts the operands by one (acc first).
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
  std::vector<ExprRef> shape =
      broadcast(op, First + 1, std::vector<ExprRef>(l.shape.begin(), l.shape.end() - 2),
                std::vector<ExprRef>(r.shape.begin(), r.shape.end() - 2));
  shape.push_back(m);
  shape.push_back(n);
  const core::DataType natural =
      core::is_float(l.dtype) ? core::DataType::FP32 : core::DataType::INT32;
  const core::DataType dt =
      kw.get<core::DataType>("out_dtype").value_or(l.tile ? natural : promote(l.dtype, r.dtype));
  // A tile result is the Cube accumulator's: out_dtype may only say so.
  if (l.tile && dt != natural)
    fail(op, First,
         "gives " + std::string(core::dtype_name(natural)) +
             " on the Cube (out_dtype may only name it, got " + std::string(core::dtype_name(dt)) +
             ")");
  if (l.tile) return TileType::make(dt, std::move(shape), MemorySpace::Acc);
  return TensorType::make(dt, std::move(shape));
}

/// The bytes of a packed predicate mask's row for `cols` elements: one bit each, padded to a
/// multiple of 32 bytes (upstream's a2a3 layout).
constexpr std::int64_t packed_mask_bytes(std::int64_t cols) {
  return (cols + 7) / 8 + 31 - ((cols + 7) / 8 + 31) % 32;
}

/// The packed predicate mask of a compare: UINT8, packed_mask_bytes of the last dimension. A
/// tensor compare keeps the shape.
inline TypeRef compare(std::string_view op, const Args& args, const Attrs&) {
  const Shaped lhs = shaped_arg(op, args, 0);
  if (!lhs.tile) return elementwise(op, args, {});
  std::vector<ExprRef> shape = lhs.shape;
  if (shape.empty()) fail(op, 0, "must not be a rank-0 tile");
  if (const auto* c = as<ConstInt>(shape.back().get()))
    shape.back() = ConstInt::make(packed_mask_bytes(c->value));
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

// ---- gather, scatter, sort and AIV-split rules (the tile and tensor forms alike) -------------

namespace pypto::ir::ops {

[[noreturn]] inline void fail_kwarg(std::string_view op, std::string_view key,
                                    std::string_view what) {
  throw core::TypeError(std::string(op) + ": keyword '" + std::string(key) + "' " +
                        std::string(what));
}

/// A fillpad op's type (`Rule`): its pad_value is the value written, so PadValue.null (no
/// padding) is refused, as upstream's builders refuse it.
template <TypeRef (*Rule)(std::string_view, const Args&, const Attrs&)>
TypeRef fillpad(std::string_view op, const Args& args, const Attrs& kw) {
  if (kw.get<PadValue>("pad_value") == PadValue::null)
    fail_kwarg(op, "pad_value", "must be zero, max or min (null writes no padding)");
  return Rule(op, args, kw);
}

/// The Int keyword `key` (or `fallback` when absent), a TypeError unless in [lo, hi].
inline std::int64_t int_kwarg(std::string_view op, const Attrs& kw, std::string_view key,
                              std::int64_t lo, std::int64_t hi,
                              std::optional<std::int64_t> fallback = std::nullopt) {
  const std::int64_t v = fallback ? kw.get<std::int64_t>(key).value_or(*fallback)
                                  : required_kwarg<std::int64_t>(op, kw, key);
  if (v < lo || v > hi)
    fail_kwarg(op, key,
               "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                   std::to_string(v));
  return v;
}

/// Argument 0's type with another dtype (integer-result bit ops keep it; casts change it).
inline TypeRef cast(std::string_view op, const Args& args, const Attrs& kw) {
  const Shaped in = shaped_arg(op, args, 0);
  int_kwarg(op, kw, "mode", 0, std::ssize(kRoundModeNames) - 1, kDefaultRoundMode);
  return like_arg0(args, required_kwarg<core::DataType>(op, kw, "target_type"), in.shape);
}

/// The value of a constant extent; nothing for a symbolic one.
inline std::optional<std::int64_t> constant_of(const ExprRef& e) {
  if (const auto* c = as<ConstInt>(e.get())) return c->value;
  return std::nullopt;
}

/// A TypeError on argument `i` unless `dt` is one of `allowed`.
inline void require_dtype(std::string_view op, std::size_t i, core::DataType dt,
                          std::span<const core::DataType> allowed) {
  std::string names;
  for (core::DataType a : allowed) {
    if (a == dt) return;
    names += (names.empty() ? "" : ", ") + std::string(core::dtype_name(a));
  }
  fail(op, i, "must have dtype " + names + ", got " + std::string(core::dtype_name(dt)));
}

/// A tile or tensor argument of the given rank.
inline Shaped ranked_arg(std::string_view op, const Args& args, std::size_t i, std::size_t rank) {
  Shaped s = shaped_arg(op, args, i);
  if (s.shape.size() != rank) fail(op, i, "must have rank " + std::to_string(rank));
  return s;
}

/// `e` * k, folded when constant.
inline ExprRef scaled(const ExprRef& e, std::int64_t k) {
  if (auto c = constant_of(e)) return ConstInt::make(*c * k);
  return Mul::make(e, ConstInt::make(k));
}

inline constexpr core::DataType kGatherDtypes[] = {core::DataType::FP16, core::DataType::FP32,
                                                   core::DataType::INT16, core::DataType::INT32};
inline constexpr core::DataType kScatterDtypes[] = {core::DataType::INT8,  core::DataType::INT16,
                                                    core::DataType::INT32, core::DataType::FP16,
                                                    core::DataType::FP32,  core::DataType::BF16};
inline constexpr core::DataType kSortDtypes[] = {core::DataType::FP16, core::DataType::FP32};

/// The column stride a `mask_pattern` keyword (1..7, pl.tile.MaskPattern) selects: every
/// column for P1111, every 2nd for P0101/P1010, every 4th for P0001..P1000.
inline std::int64_t mask_stride(std::string_view op, const Attrs& kw) {
  const std::int64_t p = int_kwarg(op, kw, "mask_pattern", 1, 7);
  return p == 7 ? 1 : p <= 2 ? 2 : 4;
}

/// gather(src, index[, tmp]) (dim= on a tensor): the source's elements at the indices, in the
/// index's shape. INT16 indices only for a 16-bit source.
inline TypeRef gather(std::string_view op, const Args& args, const Attrs& kw) {
  const Shaped src = shaped_arg(op, args, 0);
  require_dtype(op, 0, src.dtype, kGatherDtypes);
  const Shaped idx = shaped_arg(op, args, 1);
  if (idx.tile != src.tile) fail(op, 1, src.tile ? "must be a tile" : "must be a tensor");
  if (idx.dtype != core::DataType::INT32 &&
      (idx.dtype != core::DataType::INT16 || core::bit_width(src.dtype) != 16))
    fail(op, 1, "must have dtype INT32 (INT16 only with a 16-bit source)");
  if (src.tile) {
    arg_as<TileType>(op, args, 2);
  } else {
    const auto rank = static_cast<std::int64_t>(src.shape.size());
    if (rank < 2) fail(op, 0, "must have at least 2 dimensions");
    if (idx.shape.size() != src.shape.size()) fail(op, 1, "must have argument 0's rank");
    std::int64_t dim = int_kwarg(op, kw, "dim", -rank, rank - 1);
    if (dim < 0) dim += rank;
    for (std::size_t k = 0; k < src.shape.size(); ++k) {
      const auto i = constant_of(idx.shape[k]), s = constant_of(src.shape[k]);
      if (static_cast<std::int64_t>(k) != dim && i && s && *i > *s)
        fail(op, 1, "must not be larger than argument 0 off the gather axis");
    }
  }
  return like_arg0(args, src.dtype, idx.shape);
}

/// gather_mask(src, mask_pattern=, output_dtype=): the columns the pattern selects,
/// [rows, cols / stride], in output_dtype (of the source's width) or the source's dtype.
inline TypeRef gather_mask(std::string_view op, const Args& args, const Attrs& kw) {
  const Shaped src = ranked_arg(op, args, 0, 2);
  require_dtype(op, 0, src.dtype, kGatherDtypes);
  const std::int64_t stride = mask_stride(op, kw);
  const core::DataType out = kw.get<core::DataType>("output_dtype").value_or(src.dtype);
  if (core::bit_width(out) != core::bit_width(src.dtype))
    fail_kwarg(op, "output_dtype", "must have the source's bit width");
  ExprRef cols = src.shape[1];
  if (auto c = constant_of(cols)) {
    if (*c % stride != 0)
      fail(op, 0, "must have a column count divisible by " + std::to_string(stride));
    cols = ConstInt::make(*c / stride);
  } else if (stride > 1) {
    cols = FloorDiv::make(cols, ConstInt::make(stride));
  }
  return like_arg0(args, out, {src.shape[0], cols});
}

/// gather_compare(src, kvalue[, tmp], cmp_mode=, out_cols=, count_dtype=): the INT32 column
/// indices [rows, out_cols] of the elements comparing true with kvalue, and their counts
/// [1, rows] in count_dtype (INT32 or UINT32).
inline TypeRef gather_compare(std::string_view op, const Args& args, const Attrs& kw) {
  const Shaped src = ranked_arg(op, args, 0, 2);
  require_dtype(op, 0, src.dtype, kGatherDtypes);
  if (arg_as<ScalarType>(op, args, 1).dtype != src.dtype)
    fail(op, 1, "must have argument 0's dtype");
  if (src.tile) arg_as<TileType>(op, args, 2);
  int_kwarg(op, kw, "cmp_mode", 0, 5, 0);  // the DSL defaults it to "eq"
  const std::int64_t cols = int_kwarg(op, kw, "out_cols", 1, INT64_MAX);
  const auto count = kw.get<core::DataType>("count_dtype").value_or(core::DataType::INT32);
  if (count != core::DataType::INT32 && count != core::DataType::UINT32)
    fail_kwarg(op, "count_dtype", "must be INT32 or UINT32");
  return TupleType::make(
      {like_arg0(args, core::DataType::INT32, {src.shape[0], ConstInt::make(cols)}),
       like_arg0(args, count, {ConstInt::make(1), src.shape[0]})});
}

/// scatter by index onto argument 0 (2-D, as are the index and the source): argument 0's type.
/// The index is INT32 for a 32-bit destination, INT16 for a narrower one, and has the source's
/// shape; a tensor's `dim` is the last axis.
template <std::size_t Index, std::size_t Src>
TypeRef scatter(std::string_view op, const Args& args, const Attrs& kw) {
  const Shaped dst = ranked_arg(op, args, 0, 2);
  require_dtype(op, 0, dst.dtype, kScatterDtypes);
  const Shaped src = ranked_arg(op, args, Src, 2);
  if (src.dtype != dst.dtype) fail(op, Src, "must have argument 0's dtype");
  const Shaped idx = ranked_arg(op, args, Index, 2);
  const bool wide = core::bit_width(dst.dtype) == 32;
  if (idx.dtype != (wide ? core::DataType::INT32 : core::DataType::INT16))
    fail(op, Index,
         std::string("must have dtype ") + (wide ? "INT32 for a 32-bit" : "INT16 for a narrower") +
             " destination");
  for (std::size_t k = 0; k < 2; ++k) {
    const auto i = constant_of(idx.shape[k]), s = constant_of(src.shape[k]);
    if (i && s && *i != *s) fail(op, Index, "must have the source's shape");
    const auto d = constant_of(dst.shape[k]);
    if (!dst.tile && d && s && *s > *d) fail(op, Src, "must fit in argument 0");
  }
  if (!dst.tile && int_kwarg(op, kw, "dim", -1, 1) == 0) fail_kwarg(op, "dim", "must be -1 or 1");
  return args[0]->type;
}

/// scatter_mask: the source's columns spread into the destination's at the pattern's stride
/// (dst cols = src cols * stride; rows equal where `Rows`): the destination's type.
template <std::size_t Dst, std::size_t Src, bool Rows>
TypeRef scatter_mask(std::string_view op, const Args& args, const Attrs& kw) {
  const Shaped dst = ranked_arg(op, args, Dst, 2);
  require_dtype(op, Dst, dst.dtype, kScatterDtypes);
  const Shaped src = ranked_arg(op, args, Src, 2);
  if (src.dtype != dst.dtype)
    fail(op, Src, "must have argument " + std::to_string(Dst) + "'s dtype");
  const std::int64_t stride = mask_stride(op, kw);
  const auto dr = constant_of(dst.shape[0]), sr = constant_of(src.shape[0]);
  if (Rows && dr && sr && *dr != *sr) fail(op, Src, "must have the destination's rows");
  const auto dc = constant_of(dst.shape[1]), sc = constant_of(src.shape[1]);
  if (dc && sc && *dc != *sc * stride)
    fail(op, Dst,
         "must have " + std::to_string(stride) + " times the source's columns for this pattern");
  return args[Dst]->type;
}

/// scatter_update(input, index, src, dim=-2): the input's type; rows of src written at the
/// [b, s] indices of an input [rows, d] or [blocks, block_size, 1, d].
inline TypeRef scatter_update(std::string_view op, const Args& args, const Attrs& kw) {
  const Shaped in = shaped_arg(op, args, 0);
  if (in.shape.size() != 2 && in.shape.size() != 4) fail(op, 0, "must have rank 2 or 4");
  const Shaped idx = ranked_arg(op, args, 1, 2);
  if (idx.tile != in.tile || !core::is_int(idx.dtype))
    fail(op, 1, std::string("must be an integer ") + (in.tile ? "tile" : "tensor"));
  const Shaped src = shaped_arg(op, args, 2);
  if (src.tile != in.tile || src.shape.size() != in.shape.size() || src.dtype != in.dtype)
    fail(op, 2, "must have argument 0's kind, rank and dtype");
  if (kw.get<std::int64_t>("dim")) int_kwarg(op, kw, "dim", -2, -2);
  return args[0]->type;
}

/// sort32(src, idx): each 32-element block sorted, every value beside its index: the last
/// dimension doubled. A tensor's idx is UINT32 of the source's shape (a multiple of 32 long).
inline TypeRef sort32(std::string_view op, const Args& args, const Attrs&) {
  const Shaped src = shaped_arg(op, args, 0);
  require_dtype(op, 0, src.dtype, kSortDtypes);
  if (src.shape.empty()) fail(op, 0, "must not be rank 0");
  const Shaped idx = shaped_arg(op, args, 1);
  if (idx.tile != src.tile) fail(op, 1, src.tile ? "must be a tile" : "must be a tensor");
  if (!src.tile) {
    if (idx.dtype != core::DataType::UINT32 || !same_shape(idx.shape, src.shape))
      fail(op, 1, "must be UINT32 of argument 0's shape");
    if (auto n = constant_of(src.shape.back()); n && (*n <= 0 || *n % 32 != 0))
      fail(op, 0, "must have a last dimension that is a positive multiple of 32");
  }
  std::vector<ExprRef> shape = src.shape;
  shape.back() = scaled(shape.back(), 2);
  return like_arg0(args, src.dtype, std::move(shape));
}

/// mrgsort_format1(src, block_len): the source's type, its sorted runs of block_len (an
/// integer, a positive multiple of 64 when constant) merged.
inline TypeRef mrgsort_runs(std::string_view op, const Args& args, const Attrs&) {
  require_dtype(op, 0, shaped_arg(op, args, 0).dtype, kSortDtypes);
  if (!is_integer_scalar(args[1])) fail(op, 1, "must be an integer block length");
  if (auto n = constant_of(args[1]); n && (*n <= 0 || *n % 64 != 0))
    fail(op, 1, "must be a positive multiple of 64");
  return args[0]->type;
}

/// gather_row(dst, src, dst_offset, src_offset, shapes[, valid_shape], transpose=): the
/// destination's type (a DPS accumulator), rows of the GM tensor src copied into it. The shapes
/// are constants (they size the copy); a valid_shape within them narrows what is read.
inline TypeRef gather_row(std::string_view op, const Args& args, const Attrs& kw) {
  const Shaped dst = shaped_arg(op, args, 0);
  if (arg_as<TensorType>(op, args, 1).dtype != dst.dtype)
    fail(op, 1, "must have argument 0's dtype");
  shape_arg(op, args, 2);
  shape_arg(op, args, 3);
  const std::vector<ExprRef> shapes = shape_arg(op, args, 4);
  for (const ExprRef& d : shapes)
    if (!constant_of(d)) fail(op, 4, "must list constant extents (they size the copy)");
  if (args.size() > 5) {
    const std::vector<ExprRef> valid = shape_arg(op, args, 5);
    if (valid.size() != shapes.size()) fail(op, 5, "must have the shapes' rank");
    const bool transpose = kw.get<bool>("transpose").value_or(false);
    for (std::size_t k = 0; k < valid.size(); ++k) {
      const auto v = constant_of(valid[k]);
      if (transpose && !v) fail(op, 5, "must be constant with transpose=True");
      if (v && (*v < 0 || *v > *constant_of(shapes[k]))) fail(op, 5, "must lie within the shapes");
    }
  }
  return args[0]->type;
}

/// aiv_shard / aic_gather(x, split=): across the AIC/AIV split, split 0 (NONE) keeps the shape;
/// 1 (UP_DOWN) / 2 (LEFT_RIGHT) halves, rounding up, (shard) or doubles (gather) axis 0 / 1
/// of a 2-D operand. A tile result is fresh (no memory space yet).
template <bool Gather>
TypeRef split_crossing(std::string_view op, const Args& args, const Attrs& kw) {
  const Shaped in = shaped_arg(op, args, 0);
  if (!in.tile && as<TensorType>(args[0]->type.get())->distributed)
    fail(op, 0, "must not be a distributed tensor");
  const std::int64_t split = int_kwarg(op, kw, "split", 0, 2);
  if (kw.get<std::int64_t>("lane_stride")) int_kwarg(op, kw, "lane_stride", 1, INT64_MAX);
  std::vector<ExprRef> shape = in.shape;
  if (split != 0) {
    if (shape.size() != 2) fail(op, 0, "must have rank 2 to be split");
    ExprRef& e = shape[static_cast<std::size_t>(split - 1)];
    if (Gather)
      e = scaled(e, 2);
    else if (auto n = constant_of(e))
      e = ConstInt::make((*n + 1) / 2);
    else
      e = FloorDiv::make(e, ConstInt::make(2));
  } else if (!in.tile) {
    return args[0]->type;
  }
  if (in.tile) return TileType::make(in.dtype, std::move(shape));
  return TensorType::make(in.dtype, std::move(shape));
}

}  // namespace pypto::ir::ops

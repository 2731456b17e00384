// pypto/runtime/seeded_inputs.ipp — the definitions of runtime/seeded_inputs.hpp.
#pragma once

#include "pypto/runtime/seeded_inputs.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pypto/core/dtype.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/runtime/interpreter.hpp"

namespace pypto::runtime {

PYPTO_DECL std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {

/// The extent `d` denotes: a constant, a scalar parameter, a shape symbol (its extent in
/// `symbols` by name, else seeded: 16, 32, 48 or 64, the same wherever it occurs) or + - * // of
/// those; nullopt for anything else.
std::optional<std::int64_t> dim_extent(const ir::Expr& d,
                                       std::map<const ir::Var*, std::int64_t>& scalars,
                                       const SymbolExtents& symbols, std::uint64_t& state) {
  if (const auto* c = ir::as<ir::ConstInt>(&d)) return c->value;
  if (const auto* v = ir::as<ir::Var>(&d)) {
    if (auto it = scalars.find(v); it != scalars.end()) return it->second;
    auto named = symbols.find(v->name_hint);
    const std::int64_t extent = named != symbols.end()
                                    ? named->second
                                    : static_cast<std::int64_t>(16 * (1 + next_random(state) % 4));
    return scalars.emplace(v, extent).first->second;
  }
  const auto* b = ir::as<ir::BinaryExpr>(&d);
  if (!b) return std::nullopt;
  const auto l = dim_extent(*b->left, scalars, symbols, state);
  const auto r = l ? dim_extent(*b->right, scalars, symbols, state) : std::nullopt;
  if (!r) return std::nullopt;
  switch (d.kind()) {
    case ir::NodeKind::Add: return *l + *r;
    case ir::NodeKind::Sub: return *l - *r;
    case ir::NodeKind::Mul: return *l * *r;
    case ir::NodeKind::FloorDiv:
      if (*r == 0) return std::nullopt;
      return *l / *r - ((*l % *r != 0) && ((*l < 0) != (*r < 0)) ? 1 : 0);
    default: return std::nullopt;
  }
}

/// Checks that `v`, given for parameter `p` of `fn`, is a value of its type: kind, dtype, rank
/// and constant extents (what the runs would otherwise meet later, or not at all).
void check_given(const ir::Function& fn, const ir::Var& p, const Value& v) {
  const std::string what = "the value given for parameter '" + p.name_hint + "' of " + fn.name;
  if (const auto* s = ir::as<ir::ScalarType>(p.type.get())) {
    if (v.kind != ValueKind::Scalar || v.dtype != s->dtype)
      throw RuntimeError(what + " is not a Scalar[" + std::string(core::dtype_name(s->dtype)) +
                         "]");
    return;
  }
  const auto* t = ir::as<ir::ShapedType>(p.type.get());
  if (!t) throw RuntimeError(what + ": only tensor, tile and scalar parameters take one");
  if (!v.is_shaped() || v.dtype != t->dtype || v.buffer->shape.size() != t->rank())
    throw RuntimeError(what + " is not a " + std::string(core::dtype_name(t->dtype)) +
                       " array of " + std::to_string(t->rank()) + " dimensions");
  for (std::size_t k = 0; k < t->rank(); ++k)
    if (const auto* c = ir::as<ir::ConstInt>(t->shape[k].get());
        c && c->value != v.buffer->shape[k])
      throw RuntimeError(what + " has shape " + shape_text(v.buffer->shape) + ", its type says " +
                         std::to_string(c->value) + " at dimension " + std::to_string(k));
}

}  // namespace

PYPTO_DECL std::vector<Value> seeded_inputs(const ir::Function& fn, std::uint64_t seed,
                                            IntRange ints, const SymbolExtents& symbols,
                                            const GivenInputs& given) {
  const std::string range_text =
      "the integer range [" + std::to_string(ints.low) + ", " + std::to_string(ints.high) + ")";
  if (ints.high <= ints.low) throw RuntimeError("seeded inputs: " + range_text + " is empty");
  // Unsigned arithmetic: any nonempty range of int64, however wide, without overflow.
  const std::uint64_t int_width =
      static_cast<std::uint64_t>(ints.high) - static_cast<std::uint64_t>(ints.low);
  std::uint64_t state = seed;
  std::map<const ir::Var*, std::int64_t> scalars;
  std::vector<Value> args(fn.params.size());
  for (std::size_t k = 0; k < fn.params.size(); ++k) {  // scalars first: dims may name them
    const ir::Var& p = *fn.params[k];
    const auto* s = ir::as<ir::ScalarType>(p.type.get());
    if (auto g = given.find(p.name_hint); g != given.end()) {
      check_given(fn, p, g->second);
      args[k] = g->second;
      if (s && core::is_int(s->dtype)) scalars[&p] = g->second.i;
      continue;
    }
    if (!s) continue;
    if (is_float_dtype(s->dtype)) {
      const float x = static_cast<float>(next_random(state) % 4096) / 1024.0f - 2.0f;
      args[k] = Value::scalar_float(round_to_dtype(s->dtype, x), s->dtype);
    } else if (core::is_int(s->dtype) || core::is_unsigned_int(s->dtype) ||
               s->dtype == core::DataType::INDEX) {
      const auto v = static_cast<std::int64_t>(1 + next_random(state) % 4);
      args[k] = Value::scalar_int(v, s->dtype);
      scalars[&p] = v;
    } else if (s->dtype == core::DataType::TASK_ID) {  // a task that has run
      args[k] = Value::scalar_int(0, s->dtype);
    } else if (s->dtype == core::DataType::BOOL) {
      args[k] = Value::scalar_bool(next_random(state) % 2 == 1);
    } else {
      throw RuntimeError("seeded inputs: parameter '" + p.name_hint + "' of " + fn.name +
                         " has dtype " + std::string(core::dtype_name(s->dtype)) +
                         ", which --run cannot make");
    }
  }
  for (const auto& p : fn.params) {  // a given tensor's extents bind the symbols it names
    const auto* t = ir::as<ir::ShapedType>(p->type.get());
    auto g = given.find(p->name_hint);
    if (!t || g == given.end()) continue;
    for (std::size_t k = 0; k < t->rank(); ++k)
      if (const auto* v = ir::as<ir::Var>(t->shape[k].get()))
        scalars.emplace(v, g->second.buffer->shape[k]);
  }
  for (std::size_t k = 0; k < fn.params.size(); ++k) {
    const ir::Var& p = *fn.params[k];
    const auto* t = ir::as<ir::ShapedType>(p.type.get());
    if (given.count(p.name_hint)) continue;
    if (const auto* a = ir::as<ir::ArrayType>(p.type.get())) {  // elements as scalars'
      Value v;
      v.kind = ValueKind::Array;
      v.dtype = a->dtype;
      for (std::int64_t e = 0; e < a->extent; ++e)
        v.elements.push_back(
            Value::scalar_int(a->dtype == core::DataType::TASK_ID ? 0
                              : a->dtype == core::DataType::BOOL
                                  ? static_cast<std::int64_t>(next_random(state) % 2)
                                  : static_cast<std::int64_t>(1 + next_random(state) % 4),
                              a->dtype));
      args[k] = std::move(v);
      continue;
    }
    if (!t) {
      if (!ir::isa<ir::ScalarType>(*p.type))
        throw RuntimeError("seeded inputs: parameter '" + p.name_hint + "' of " + fn.name +
                           " is neither a tensor, a tile, a scalar nor an array");
      continue;
    }
    std::vector<std::int64_t> shape;
    for (const auto& dim : t->shape) {
      const std::optional<std::int64_t> extent = dim_extent(*dim, scalars, symbols, state);
      if (!extent || *extent < 0)
        throw RuntimeError("seeded inputs: a dim of parameter '" + p.name_hint + "' of " + fn.name +
                           " is neither a constant, a scalar parameter, a shape symbol nor "
                           "arithmetic of those with a nonnegative value");
      shape.push_back(*extent);
    }
    Value v = Value::zeros(t->dtype, shape, ir::isa<ir::TileType>(*p.type));
    if (t->dtype == core::DataType::FP8E8M0) {  // a scale: a power of two, 2^-3 to 2^3
      for (float& x : v.buffer->f32)
        x = std::ldexp(1.0f, static_cast<int>(next_random(state) % 7) - 3);
    } else if (is_float_dtype(t->dtype)) {
      for (float& x : v.buffer->f32)
        x = round_to_dtype(t->dtype,
                           static_cast<float>(next_random(state) % (1u << 22)) / (1u << 20) - 2.0f);
    } else if (core::is_signed_int(t->dtype)) {
      const unsigned bits = core::bit_width(t->dtype);
      if (bits < 64 && (ints.low < -(std::int64_t{1} << (bits - 1)) ||
                        ints.high - 1 >= (std::int64_t{1} << (bits - 1))))
        throw RuntimeError("seeded inputs: " + range_text + " does not fit parameter '" +
                           p.name_hint + "' of " + fn.name + " (" +
                           std::string(core::dtype_name(t->dtype)) + ")");
      for (std::int64_t& x : v.buffer->ints)
        x = static_cast<std::int64_t>(static_cast<std::uint64_t>(ints.low) +
                                      next_random(state) % int_width);
    } else if (core::is_unsigned_int(t->dtype) || t->dtype == core::DataType::BOOL) {
      const std::uint64_t range = t->dtype == core::DataType::BOOL ? 2 : 16;
      for (std::int64_t& x : v.buffer->ints)
        x = static_cast<std::int64_t>(next_random(state) % range);
    } else {
      throw RuntimeError("seeded inputs: parameter '" + p.name_hint + "' of " + fn.name +
                         " has dtype " + std::string(core::dtype_name(t->dtype)) +
                         ", which --run cannot fill");
    }
    args[k] = std::move(v);
  }
  return args;
}

}  // namespace pypto::runtime

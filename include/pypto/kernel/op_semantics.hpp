// pypto/kernel/op_semantics.hpp — the binary32 semantics of one elementwise kernel op, shared by
// the kernel interpreter, constant folding and the IR interpreter (runtime/interpreter.hpp).
//
// IEEE binary32, round to nearest, denormals kept. Max(a,b) = a < b ? b : a and Min(a,b) =
// b < a ? b : a (std::max/std::min: order-sensitive for NaN and +-0). Compares yield 1.0f or
// 0.0f. Select(a,b,c) = a != 0 ? b : c (a NaN condition selects b). Rsqrt = 1/sqrt. Every
// arithmetic result passes through a volatile store, so no compiler may contract a*b+c into an
// FMA or keep excess precision across instructions. Implementation only: everything here is
// `detail`, included by the definitions (.ipp) of the components that compute.
#pragma once

#include <cmath>

#include "pypto/core/error.hpp"
#include "pypto/kernel/spec.hpp"

namespace pypto::kernel::detail {

/// Forces a rounded binary32 value into memory: no FMA contraction, no excess precision.
inline float strict(float x) {
  volatile float v = x;
  return v;
}

inline float apply_max(float a, float b) { return a < b ? b : a; }
inline float apply_min(float a, float b) { return b < a ? b : a; }

/// One elementwise op on already-read operand values.
inline float apply_op(Op op, float a, float b, float c) {
  switch (op) {
    case Op::Mov: return a;
    case Op::Neg: return -a;
    case Op::Abs: return std::fabs(a);
    case Op::Exp: return strict(std::exp(a));
    case Op::Log: return strict(std::log(a));
    case Op::Sqrt: return strict(std::sqrt(a));
    case Op::Rsqrt: return strict(1.0f / strict(std::sqrt(a)));
    case Op::Tanh: return strict(std::tanh(a));
    case Op::Add: return strict(a + b);
    case Op::Sub: return strict(a - b);
    case Op::Mul: return strict(a * b);
    case Op::Div: return strict(a / b);
    case Op::Max: return apply_max(a, b);
    case Op::Min: return apply_min(a, b);
    case Op::Lt: return a < b ? 1.0f : 0.0f;
    case Op::Le: return a <= b ? 1.0f : 0.0f;
    case Op::Gt: return a > b ? 1.0f : 0.0f;
    case Op::Ge: return a >= b ? 1.0f : 0.0f;
    case Op::Eq: return a == b ? 1.0f : 0.0f;
    case Op::Ne: return a != b ? 1.0f : 0.0f;
    case Op::Select: return a != 0.0f ? b : c;
    default: throw core::InternalError("apply_op called on a reduction");
  }
}

}  // namespace pypto::kernel::detail

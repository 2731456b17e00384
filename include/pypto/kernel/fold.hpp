// pypto/kernel/fold.hpp — constant folding and algebraic simplification, IEEE-exact unless the
// caller opts into named unsafe rules (FoldFlags).
//
// One forward walk over SsaForm: each node's used operands are first substituted by earlier
// results (a node that simplified to an operand is an alias of it), commutative operands are
// put in their fixed order (ssa.hpp), then the first matching rule applies (the table is at
// fold()). Transcendentals, Div, reductions and RuntimeScalar operands are never folded. A new
// constant needs a free pool slot (kMaxConsts); without one the rule is skipped. The output
// node is never turned into an alias: if it simplifies to an operand it becomes Mov(operand)
// (dce.hpp drops a Mov of a register). O(instrs).
#pragma once

#include <cstdint>

#include "pypto/core/config.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.hpp"

namespace pypto::kernel {

/// Unsafe (not IEEE-exact) rewrites a target may allow; they enter the key (key.hpp).
enum class FoldFlags : std::uint8_t {
  None = 0,
  NoNaNs = 1,         // assume no operand or result is NaN
  NoInfs = 2,         // assume no operand or result is infinite
  NoSignedZeros = 4,  // the sign of a zero does not matter
  Reassociate = 8,    // (x op c1) op c2 may become x op (c1 op c2)
};
inline constexpr std::uint8_t kFoldFlagsMask = 15;

constexpr FoldFlags operator|(FoldFlags a, FoldFlags b) {
  return static_cast<FoldFlags>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
/// True when every flag of `wanted` is set in `flags`.
constexpr bool has(FoldFlags flags, FoldFlags wanted) {
  return (static_cast<std::uint8_t>(flags) & static_cast<std::uint8_t>(wanted)) ==
         static_cast<std::uint8_t>(wanted);
}

/// One folding walk over the value form; true when anything changed. The rules, first match:
///
///   rule (default: exact)                            | result
///   all used operands Const, op host_foldable, no    | the folded constant (same code as the
///     NaN operand or result, Max/Min not of two zeros|   interpreter; pooled by bits)
///   Mov(x)                                           | x
///   Neg(Neg(x))                                      | x
///   Abs(Neg(x)), Abs(Abs(x))                         | Abs(x)
///   x*1, 1*x, x/1, x-(+0), x+(-0), (-0)+x            | x
///   (-0)-x                                           | Neg(x)
///   Max(x,x), Min(x,x), Select(c,x,x)                | x
///   Select(const c, x, y)                            | c != 0 ? x : y (NaN selects x)
///   ------------------------------------------------ | ---------------------------------------
///   NoSignedZeros: x+(+0), (+0)+x, x-(-0)            | x
///   NoSignedZeros: (+0)-x                            | Neg(x)
///   NoNaNs+NoInfs+NoSignedZeros: x*(±0), (±0)*x      | +0
///   NoNaNs+NoInfs: x-x                               | +0
///   Reassociate: (x+c1)+c2, (x*c1)*c2                | x+(c1+c2), x*(c1*c2) (no NaN/overflow
///                                                    |   check: that is what the flag allows)
///
/// Commutative operands (Add, Mul, Eq, Ne) are ordered by operand kind, then node index, or by
/// bit pattern for constants. Never folded: Exp, Log, Sqrt, Rsqrt, Tanh and Div of constants
/// (device ULP differs from the host's libm), reductions, RuntimeScalar operands (their values
/// are not structure).
PYPTO_DECL bool fold(SsaForm& f, FoldFlags flags = FoldFlags::None);

/// The folding pass on a Spec (dead instructions stay; see dce.hpp).
PYPTO_DECL Spec fold_constants(const Spec& spec, FoldFlags flags = FoldFlags::None);

}  // namespace pypto::kernel

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/kernel/fold.ipp"
#endif

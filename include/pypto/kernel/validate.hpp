// pypto/kernel/validate.hpp — the well-formedness rules of a kernel Spec.
//
// validate(spec) returns normally or throws SpecError naming the first offending field, e.g.
// "instrs[3].b: register 7 is read before it is written". Valid specs take one quick pass over
// register bit masks; the field-ordered checks run only to name an error. Non-SSA specs (a
// register written again after register allocation) are valid. O(instrs).
#pragma once

#include <string>

#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"
#include "pypto/kernel/spec.hpp"

namespace pypto::kernel {

/// A Spec that breaks a rule of validate(); the message starts with the field path.
class SpecError : public core::ValueError {
 public:
  explicit SpecError(const std::string& message) : core::ValueError(message) {}
};

/// Throws SpecError naming the first broken rule. The rules, checked in field order:
///   * limits: 1..64 instructions, <= 32 registers, <= 16 inputs/views, <= 16 constants and
///     <= 16 runtime scalars;
///   * views: a known kind; RowMod and RotateHalf take a param >= 1, the others param 0;
///   * matmul (when present): a_input and b_input name inputs read through Linear views (the
///     matmul reads the whole buffer; they may be one slot), k >= 1 and batch >= 1;
///   * each instruction: a known op; the slots the op uses are not None and the others are
///     None; operand kinds are known and their indices in range; Reg reads name an elementwise
///     register written by an earlier instruction; ReduceResult reads name a register written by
///     an earlier reduction; reductions read no Reg (they run before the elementwise code); a
///     GridIndex is Row, Col or Batch; a MatmulResult has index 0 and needs the matmul segment;
///     no Input operand reads a matmul operand slot (that buffer holds a matrix, not the grid);
///   * registers: dst < num_regs; a reduction register is written exactly once and never by an
///     elementwise instruction (the two classes stay disjoint);
///   * the last instruction (the output) is elementwise.
PYPTO_DECL void validate(const Spec& spec);

/// validate() as a predicate, for tests and assertions.
PYPTO_DECL bool is_valid(const Spec& spec);

namespace detail {

/// True when `spec` passes every rule of validate(); one forward pass, no messages.
PYPTO_DECL bool quick_valid(const Spec& spec);

/// The rules in field order: throws SpecError naming the first broken one.
PYPTO_DECL void check_fields(const Spec& spec);

}  // namespace detail

}  // namespace pypto::kernel

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/kernel/validate.ipp"
#endif

// pypto/kernel/validate.ipp — the definitions of kernel/validate.hpp.
#pragma once

#include "pypto/kernel/validate.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pypto/core/error.hpp"
#include "pypto/kernel/spec.hpp"

namespace pypto::kernel {

namespace detail {

consteval std::array<std::uint8_t, kOpCount> make_op_arity() {
  std::array<std::uint8_t, kOpCount> t{};
  for (std::size_t i = 0; i < kOpCount; ++i) t[i] = kOpTable[i].arity;
  return t;
}
/// The arity column of kOpTable as bytes (a kOpTable row is 40 bytes).
inline constexpr std::array<std::uint8_t, kOpCount> kOpArity = make_op_arity();

inline std::string instr_path(std::size_t i) { return "instrs[" + std::to_string(i) + "]"; }

/// Builds the message for an operand the fast check in validate() rejected, and throws (it also
/// re-checks, so it returns normally for a valid operand). Out of line: never on the hot path.
[[gnu::cold, gnu::noinline]] inline void check_operand(
    const Spec& spec, std::size_t i, std::size_t s, bool in_reduction,
    const std::array<bool, kMaxRegs>& elem_written,
    const std::array<int, kMaxRegs>& reduction_writer) {
  const Operand& o = spec.instrs[i].slot(s);
  // The message is built only on failure: validate() runs on every pass's input.
  auto fail = [&](const std::string& what) {
    std::string where = instr_path(i);
    where += '.';
    where += kSlotNames[s];
    where += ": ";
    throw SpecError(where + what);
  };
  auto in_range = [&](std::size_t count, std::string_view noun) {
    if (o.index >= count) {
      fail(std::string(noun) + " " + std::to_string(o.index) + " is out of range (" +
           std::to_string(count) + " available)");
    }
  };
  switch (o.kind) {
    case OperandKind::None:
      fail(std::string(op_name(spec.instrs[i].op)) + " reads this slot, but it is None");
      break;
    case OperandKind::Reg:
      in_range(spec.num_regs, "register");
      if (in_reduction) {
        fail("register " + std::to_string(o.index) +
             " is elementwise; a reduction cannot read it (reductions run first)");
      }
      if (reduction_writer[o.index] >= 0) {
        fail("register " + std::to_string(o.index) + " holds the reduction of instrs[" +
             std::to_string(reduction_writer[o.index]) + "]; read it as ReduceResult");
      }
      if (!elem_written[o.index]) {
        fail("register " + std::to_string(o.index) + " is read before it is written");
      }
      break;
    case OperandKind::Input:
      in_range(spec.views.size(), "input");
      if (is_matmul_operand(spec.matmul, o.index)) {
        fail("input " + std::to_string(o.index) + " is matmul operand " +
             std::string(matmul_operand_name(spec.matmul, o.index)) +
             "; the code cannot read it (its buffer holds a matrix, not the grid); read "
             "MatmulResult");
      }
      break;
    case OperandKind::Const: in_range(spec.consts.size(), "constant"); break;
    case OperandKind::RuntimeScalar: in_range(spec.runtime_scalars.size(), "runtime scalar"); break;
    case OperandKind::ReduceResult:
      in_range(spec.num_regs, "register");
      if (reduction_writer[o.index] < 0 ||
          static_cast<std::size_t>(reduction_writer[o.index]) >= i) {
        fail("ReduceResult " + std::to_string(o.index) +
             " names a register that no earlier reduction writes");
      }
      break;
    case OperandKind::GridIndex:
      if (o.index > 2) {
        fail("grid index " + std::to_string(o.index) + " is not Row (0), Col (1) or Batch (2)");
      }
      break;
    case OperandKind::MatmulResult:
      if (!spec.matmul) fail("MatmulResult, but the spec has no matmul segment");
      if (o.index != 0) {
        fail("MatmulResult index " + std::to_string(o.index) +
             " is not 0 (a spec has at most one matmul)");
      }
      break;
    default: fail("invalid operand kind " + std::to_string(static_cast<unsigned>(o.kind)));
  }
}

/// True when `spec` passes every rule below; one forward pass over register bit masks, no
/// messages. A Reg read needs an earlier elementwise write and no reduction write so far; a
/// later reduction write of that register is then caught as a class clash at the reduction,
/// so the single pass accepts exactly the specs the field-ordered checks accept.
PYPTO_DECL bool quick_valid(const Spec& spec) {
  const std::size_t n = spec.instrs.size();
  const std::size_t num_regs = spec.num_regs;
  const std::size_t num_inputs = spec.views.size();
  const std::size_t num_consts = spec.consts.size();
  const std::size_t num_scalars = spec.runtime_scalars.size();
  if (n == 0 || n > kMaxInstrs || num_regs > kMaxRegs || num_inputs > kMaxInputs ||
      num_consts > kMaxConsts || num_scalars > kMaxRuntimeScalars) {
    return false;
  }
  for (const View& v : spec.views) {
    if (static_cast<std::uint8_t>(v.kind) >= kViewKindCount ||
        view_has_param(v.kind) != (v.param != 0)) {
      return false;
    }
  }
  std::uint64_t matmul_slots = 0;  // inputs the code may not read
  if (const std::optional<Matmul>& m = spec.matmul) {
    if (m->a_input >= num_inputs || m->b_input >= num_inputs ||
        spec.views[m->a_input].kind != ViewKind::Linear ||
        spec.views[m->b_input].kind != ViewKind::Linear || m->k == 0 || m->batch == 0) {
      return false;
    }
    matmul_slots = (std::uint64_t{1} << m->a_input) | (std::uint64_t{1} << m->b_input);
  }
  // Per operand kind (the kinds past MatmulResult share the last row): the bound on the index
  // and the readable indices as a bit mask, so each operand is two table lookups and no
  // branch on its kind. A used slot that is None, or of an unknown kind, has bound 0.
  constexpr std::size_t kInvalidKind = kOperandKindCount;
  const std::array<std::size_t, kOperandKindCount + 1> bound = {
      0, kMaxRegs, num_inputs, num_consts, num_scalars, kMaxRegs, 3, spec.matmul ? 1u : 0u, 0};
  std::array<std::uint64_t, kOperandKindCount + 1> readable;
  readable.fill(~std::uint64_t{0});
  readable[static_cast<std::size_t>(OperandKind::Input)] = ~matmul_slots;
  constexpr auto kReg = static_cast<std::size_t>(OperandKind::Reg);
  constexpr auto kReduceResult = static_cast<std::size_t>(OperandKind::ReduceResult);
  std::uint64_t elem = 0, red = 0;  // registers written so far, by class
  for (const Instr& in : spec.instrs) {
    const auto op = static_cast<std::uint8_t>(in.op);
    if (op >= kOpCount || in.dst >= num_regs) return false;
    const std::size_t used = kOpArity[op];
    const bool reduction = is_reduction(in.op);
    readable[kReg] = reduction ? 0 : elem & ~red;
    readable[kReduceResult] = red;
    auto operand_ok = [&](const Operand& o, std::size_t slot) {
      const std::size_t kind =
          std::min<std::size_t>(static_cast<std::uint8_t>(o.kind), kInvalidKind);
      if (slot >= used) return kind == static_cast<std::size_t>(OperandKind::None);
      return o.index < bound[kind] && ((readable[kind] >> (o.index & 63)) & 1) != 0;
    };
    if (!operand_ok(in.a, 0) || !operand_ok(in.b, 1) || !operand_ok(in.c, 2)) return false;
    const std::uint64_t dst = std::uint64_t{1} << in.dst;
    if (((reduction ? elem | red : red) & dst) != 0) return false;
    (reduction ? red : elem) |= dst;
  }
  return !is_reduction(spec.instrs.back().op);
}

/// The rules of the matmul segment (after the views'): throws SpecError naming the field.
inline void check_matmul(const Spec& spec) {
  const Matmul& m = *spec.matmul;
  auto slot = [&](std::string_view field, std::uint8_t input, std::string_view operand) {
    const std::string where = "matmul." + std::string(field) + ": input " + std::to_string(input);
    if (input >= spec.views.size()) {
      throw SpecError(where + " is out of range (" + std::to_string(spec.views.size()) +
                      " available)");
    }
    const ViewKind kind = spec.views[input].kind;
    if (kind != ViewKind::Linear) {
      throw SpecError(where + " is read through a " + std::string(view_kind_name(kind)) +
                      " view; matmul operand " + std::string(operand) +
                      " needs a Linear view (the matmul reads the whole buffer)");
    }
  };
  slot("a_input", m.a_input, "A");
  slot("b_input", m.b_input, "B");
  if (m.k == 0) throw SpecError("matmul.k: the summation length must be >= 1");
  if (m.batch == 0) throw SpecError("matmul.batch: the number of stacked matrices must be >= 1");
}

/// The rules in field order: throws SpecError naming the first broken one.
PYPTO_DECL void check_fields(const Spec& spec) {
  auto limit = [](std::string_view field, std::size_t n, std::size_t max) {
    if (n > max) {
      throw SpecError(std::string(field) + ": " + std::to_string(n) + " exceed the limit of " +
                      std::to_string(max));
    }
  };
  if (spec.instrs.empty()) {
    throw SpecError("instrs: a spec needs at least one instruction (the last is the output)");
  }
  limit("instrs", spec.instrs.size(), kMaxInstrs);
  limit("num_regs", spec.num_regs, kMaxRegs);
  limit("views", spec.views.size(), kMaxInputs);
  limit("consts", spec.consts.size(), kMaxConsts);
  limit("runtime_scalars", spec.runtime_scalars.size(), kMaxRuntimeScalars);

  for (std::size_t v = 0; v < spec.views.size(); ++v) {
    const View& view = spec.views[v];
    auto where = [v] { return "views[" + std::to_string(v) + "]: "; };
    if (static_cast<std::uint8_t>(view.kind) >= kViewKindCount) {
      throw SpecError(where() + "invalid view kind " +
                      std::to_string(static_cast<unsigned>(view.kind)));
    }
    if (view_has_param(view.kind) && view.param == 0) {
      throw SpecError(where() + std::string(view_kind_name(view.kind)) + " needs a param >= 1");
    }
    if (!view_has_param(view.kind) && view.param != 0) {
      throw SpecError(where() + std::string(view_kind_name(view.kind)) + " takes no param (got " +
                      std::to_string(view.param) + ")");
    }
  }
  if (spec.matmul) check_matmul(spec);

  // Pass 1: ops, dst ranges and the reduction registers (written once each).
  std::array<int, kMaxRegs> reduction_writer;
  reduction_writer.fill(-1);
  for (std::size_t i = 0; i < spec.instrs.size(); ++i) {
    const Instr& in = spec.instrs[i];
    if (!is_valid_op(static_cast<std::uint8_t>(in.op))) {
      throw SpecError(detail::instr_path(i) + ".op: invalid op code " +
                      std::to_string(static_cast<unsigned>(in.op)));
    }
    if (in.dst >= spec.num_regs) {
      throw SpecError(detail::instr_path(i) + ".dst: register " + std::to_string(in.dst) +
                      " is out of range (num_regs = " + std::to_string(spec.num_regs) + ")");
    }
    if (is_reduction(in.op)) {
      if (reduction_writer[in.dst] >= 0) {
        throw SpecError(detail::instr_path(i) + ".dst: register " + std::to_string(in.dst) +
                        " already holds the reduction of instrs[" +
                        std::to_string(reduction_writer[in.dst]) +
                        "]; reduction registers are written once");
      }
      reduction_writer[in.dst] = static_cast<int>(i);
    }
  }

  // Pass 2: operands in order, with the elementwise registers written so far.
  // The checks are inline and branch only on failure, where check_operand (out of line)
  // repeats them to name the first broken rule.
  std::array<bool, kMaxRegs> elem_written{};
  const std::size_t num_regs = spec.num_regs;
  const std::size_t num_inputs = spec.views.size();
  const std::size_t num_consts = spec.consts.size();
  const std::size_t num_scalars = spec.runtime_scalars.size();
  for (std::size_t i = 0; i < spec.instrs.size(); ++i) {
    const Instr& in = spec.instrs[i];
    const std::size_t used = detail::kOpArity[static_cast<std::size_t>(in.op)];
    const bool reduction = is_reduction(in.op);
    for (std::size_t s = 0; s < 3; ++s) {
      const Operand o = in.slot(s);
      if (s < used) {
        bool ok = false;
        switch (o.kind) {
          case OperandKind::Reg:
            ok = o.index < num_regs && !reduction && reduction_writer[o.index] < 0 &&
                 elem_written[o.index];
            break;
          case OperandKind::Input:
            ok = o.index < num_inputs && !is_matmul_operand(spec.matmul, o.index);
            break;
          case OperandKind::Const: ok = o.index < num_consts; break;
          case OperandKind::RuntimeScalar: ok = o.index < num_scalars; break;
          case OperandKind::ReduceResult:
            ok = o.index < num_regs && reduction_writer[o.index] >= 0 &&
                 static_cast<std::size_t>(reduction_writer[o.index]) < i;
            break;
          case OperandKind::GridIndex: ok = o.index <= 2; break;
          case OperandKind::MatmulResult: ok = spec.matmul && o.index == 0; break;
          default: break;
        }
        if (!ok) detail::check_operand(spec, i, s, reduction, elem_written, reduction_writer);
      } else if (o.kind != OperandKind::None) {
        throw SpecError(detail::instr_path(i) + "." + std::string(kSlotNames[s]) + ": " +
                        std::string(op_name(in.op)) + " uses " + std::to_string(used) +
                        " operand(s); this slot must be None, not " + to_string(in.slot(s)));
      }
    }
    if (!is_reduction(in.op)) {
      if (reduction_writer[in.dst] >= 0) {
        throw SpecError(detail::instr_path(i) + ".dst: register " + std::to_string(in.dst) +
                        " holds the reduction of instrs[" +
                        std::to_string(reduction_writer[in.dst]) +
                        "]; an elementwise instruction cannot write it");
      }
      elem_written[in.dst] = true;
    }
  }
  if (is_reduction(spec.instrs.back().op)) {
    throw SpecError(detail::instr_path(spec.instrs.size() - 1) +
                    ": the last instruction is the output and must be elementwise, not " +
                    std::string(op_name(spec.instrs.back().op)));
  }
}

}  // namespace detail

/// Throws SpecError naming the first broken rule, in field order (see validate.hpp). Valid
/// specs take the single quick pass; the field-ordered checks run to name the error.
PYPTO_DECL void validate(const Spec& spec) {
  if (!detail::quick_valid(spec)) detail::check_fields(spec);
}

/// validate() as a predicate, for tests and assertions.
PYPTO_DECL bool is_valid(const Spec& spec) {
  try {
    validate(spec);
    return true;
  } catch (const SpecError&) {
    return false;
  }
}

}  // namespace pypto::kernel

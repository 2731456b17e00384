// pypto/kernel/spec.hpp — the kernel expression IR: a flat instruction list over input views,
// a constant pool and a runtime-scalar pool.
//
// A Spec is straight-line code for one fused elementwise/reduction kernel over a rows x cols
// grid. Instruction i is `dst = op(a, b, c)`; the output is the last instruction's dst, which
// must be elementwise. Operands carry an explicit kind, and an unused slot is OperandKind::None
// (never "register 0"). Registers hold either one element (elementwise instructions) or one
// reduction vector (reduction instructions); a register number is used by one class only, and a
// reduction register is written once. Reductions read no elementwise register: they run first,
// over the whole grid, then the elementwise code runs per element. Inputs are read through
// views, which are index maps (nothing is materialised). Constants are FP32 bit patterns and are
// compared by bits (+0 and -0 differ, NaN payloads are kept). An optional matmul segment
// computes C = op(A) x op(B) from two input slots before any instruction runs; the code reads
// C(r, c) as the MatmulResult operand. Its operand slots hold whole matrices, so the code never
// reads them as inputs. Everything observable is plain data with defaulted equality; validate()
// lives in validate.hpp, the semantics in interpreter.hpp.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pypto::kernel {

// ---- limits ----------------------------------------------------------------------------------

inline constexpr std::size_t kMaxInputs = 16;
inline constexpr std::size_t kMaxRegs = 32;
inline constexpr std::size_t kMaxInstrs = 64;
inline constexpr std::size_t kMaxConsts = 16;
inline constexpr std::size_t kMaxRuntimeScalars = 16;

// ---- ops: one table holds every trait ---------------------------------------------------------

enum class Op : std::uint8_t {
  Mov,
  Neg,
  Abs,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Tanh,  // unary
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,  // binary arithmetic
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,      // compares: 1.0f or 0.0f
  Select,  // a != 0 ? b : c
  RowSum,
  RowMax,
  ColSum,
  ColMax,  // reductions
};

/// Elementwise, or a reduction over a row (a vector of `rows` values, broadcast along the
/// row when read) or over a column (a vector of `cols` values).
enum class OpClass : std::uint8_t { Elementwise, RowReduction, ColReduction };

struct OpInfo {
  Op op;
  std::string_view name;
  std::uint8_t arity;  // used operand slots: a, then b, then c
  bool commutative;    // operands may be swapped (exact up to the NaN payload)
  OpClass cls;
  bool host_foldable;  // IEEE-exact on the host and on an IEEE device (never transcendental)
};

inline constexpr std::array<OpInfo, 25> kOpTable = {{
    {Op::Mov, "Mov", 1, false, OpClass::Elementwise, true},
    {Op::Neg, "Neg", 1, false, OpClass::Elementwise, true},
    {Op::Abs, "Abs", 1, false, OpClass::Elementwise, true},
    {Op::Exp, "Exp", 1, false, OpClass::Elementwise, false},
    {Op::Log, "Log", 1, false, OpClass::Elementwise, false},
    {Op::Sqrt, "Sqrt", 1, false, OpClass::Elementwise, false},
    {Op::Rsqrt, "Rsqrt", 1, false, OpClass::Elementwise, false},
    {Op::Tanh, "Tanh", 1, false, OpClass::Elementwise, false},
    {Op::Add, "Add", 2, true, OpClass::Elementwise, true},
    {Op::Sub, "Sub", 2, false, OpClass::Elementwise, true},
    {Op::Mul, "Mul", 2, true, OpClass::Elementwise, true},
    // Division is correctly rounded on the host but not on every device (Vulkan: 2.5 ULP).
    {Op::Div, "Div", 2, false, OpClass::Elementwise, false},
    // max/min are order-sensitive for NaN and for +0/-0, hence not commutative.
    {Op::Max, "Max", 2, false, OpClass::Elementwise, true},
    {Op::Min, "Min", 2, false, OpClass::Elementwise, true},
    {Op::Lt, "Lt", 2, false, OpClass::Elementwise, true},
    {Op::Le, "Le", 2, false, OpClass::Elementwise, true},
    {Op::Gt, "Gt", 2, false, OpClass::Elementwise, true},
    {Op::Ge, "Ge", 2, false, OpClass::Elementwise, true},
    {Op::Eq, "Eq", 2, true, OpClass::Elementwise, true},
    {Op::Ne, "Ne", 2, true, OpClass::Elementwise, true},
    {Op::Select, "Select", 3, false, OpClass::Elementwise, true},
    {Op::RowSum, "RowSum", 1, false, OpClass::RowReduction, false},
    {Op::RowMax, "RowMax", 1, false, OpClass::RowReduction, false},
    {Op::ColSum, "ColSum", 1, false, OpClass::ColReduction, false},
    {Op::ColMax, "ColMax", 1, false, OpClass::ColReduction, false},
}};

inline constexpr std::size_t kOpCount = kOpTable.size();

consteval bool op_table_is_indexed_by_op() {
  for (std::size_t i = 0; i < kOpTable.size(); ++i) {
    if (static_cast<std::size_t>(kOpTable[i].op) != i) return false;
  }
  return true;
}
static_assert(op_table_is_indexed_by_op(), "kOpTable rows must follow the order of enum Op");

/// The traits of a valid op (callers check `is_valid_op` first on untrusted bytes).
constexpr const OpInfo& op_info(Op op) { return kOpTable[static_cast<std::size_t>(op)]; }
constexpr bool is_valid_op(std::uint8_t code) { return code < kOpCount; }
constexpr std::uint8_t arity(Op op) { return op_info(op).arity; }
constexpr bool is_reduction(Op op) { return op_info(op).cls != OpClass::Elementwise; }
constexpr std::string_view op_name(Op op) { return op_info(op).name; }

// ---- operands -------------------------------------------------------------------------------

enum class OperandKind : std::uint8_t {
  None,           // unused slot
  Reg,            // an elementwise register
  Input,          // input `index`, read through views[index]
  Const,          // consts[index]
  RuntimeScalar,  // runtime_scalars[index]: a value supplied at dispatch, never folded
  ReduceResult,   // the reduction vector in register `index`, broadcast to the element
  GridIndex,      // the element's coordinate as a float: index is a GridAxis
  MatmulResult,   // C(r, c) of the matmul segment; index 0 (a spec has at most one matmul)
};
inline constexpr std::uint8_t kOperandKindCount = 8;

enum class GridAxis : std::uint8_t { Row = 0, Col = 1, Batch = 2 };

constexpr std::string_view operand_kind_name(OperandKind k) {
  constexpr std::array<std::string_view, kOperandKindCount> names = {
      "None",          "Reg",          "Input",     "Const",
      "RuntimeScalar", "ReduceResult", "GridIndex", "MatmulResult"};
  return names[static_cast<std::size_t>(k)];
}

struct Operand {
  OperandKind kind = OperandKind::None;
  std::uint8_t index = 0;
  friend constexpr bool operator==(const Operand&, const Operand&) = default;
};

constexpr Operand none() { return {}; }
constexpr Operand reg(std::uint8_t r) { return {OperandKind::Reg, r}; }
constexpr Operand input(std::uint8_t i) { return {OperandKind::Input, i}; }
constexpr Operand constant(std::uint8_t i) { return {OperandKind::Const, i}; }
constexpr Operand runtime_scalar(std::uint8_t i) { return {OperandKind::RuntimeScalar, i}; }
constexpr Operand reduce_result(std::uint8_t r) { return {OperandKind::ReduceResult, r}; }
constexpr Operand grid(GridAxis axis) {
  return {OperandKind::GridIndex, static_cast<std::uint8_t>(axis)};
}
constexpr Operand matmul_result() { return {OperandKind::MatmulResult, 0}; }

inline std::string to_string(const Operand& o) {
  if (o.kind == OperandKind::None) return "None";
  if (static_cast<std::uint8_t>(o.kind) >= kOperandKindCount) {
    return "invalid kind " + std::to_string(static_cast<unsigned>(o.kind));
  }
  return std::string(operand_kind_name(o.kind)) + " " + std::to_string(o.index);
}

// ---- instructions ---------------------------------------------------------------------------

struct Instr {
  Op op = Op::Mov;
  std::uint8_t dst = 0;
  Operand a, b, c;

  constexpr const Operand& slot(std::size_t i) const { return i == 0 ? a : (i == 1 ? b : c); }
  constexpr Operand& slot(std::size_t i) { return i == 0 ? a : (i == 1 ? b : c); }
  friend constexpr bool operator==(const Instr&, const Instr&) = default;
};

inline constexpr std::array<std::string_view, 3> kSlotNames = {"a", "b", "c"};

constexpr Instr unary(Op op, std::uint8_t dst, Operand a) { return {op, dst, a, {}, {}}; }
constexpr Instr binary(Op op, std::uint8_t dst, Operand a, Operand b) {
  return {op, dst, a, b, {}};
}
constexpr Instr select(std::uint8_t dst, Operand cond, Operand if_true, Operand if_false) {
  return {Op::Select, dst, cond, if_true, if_false};
}

// ---- views: index maps from the grid element (r, c) to an input element ----------------------

enum class ViewKind : std::uint8_t {
  Linear,        // in[r*cols + c]                                  (rows*cols values)
  RowBroadcast,  // in[c]: one row broadcast to every row             (cols values)
  ColBroadcast,  // in[r]: one column broadcast to every column       (rows values)
  RowMod,        // in[(r % p)*cols + c]                              (p*cols values)
  RotateHalf,    // RoPE's rotate_half per column block of width 2p: the first half reads
                 // -in[r, c+p], the second half in[r, c-p]           (rows*cols values)
  RowReduceSum,  // sum over c' of in[r, c'] (left to right)          (rows*cols values)
  RowReduceMax,  // max over c' of in[r, c']
  ColReduceSum,  // sum over r' of in[r', c] (top to bottom)
  ColReduceMax,  // max over r' of in[r', c]
};
inline constexpr std::uint8_t kViewKindCount = 9;

constexpr std::string_view view_kind_name(ViewKind k) {
  constexpr std::array<std::string_view, kViewKindCount> names = {
      "Linear",       "RowBroadcast", "ColBroadcast", "RowMod",      "RotateHalf",
      "RowReduceSum", "RowReduceMax", "ColReduceSum", "ColReduceMax"};
  return names[static_cast<std::size_t>(k)];
}

/// Views with a shape parameter (a runtime value: it is not part of the key).
constexpr bool view_has_param(ViewKind k) {
  return k == ViewKind::RowMod || k == ViewKind::RotateHalf;
}

struct View {
  ViewKind kind = ViewKind::Linear;
  std::uint32_t param = 0;  // >= 1 for RowMod and RotateHalf, 0 otherwise
  friend constexpr bool operator==(const View&, const View&) = default;
};

// ---- the matmul segment ----------------------------------------------------------------------

/// C = op(A) x op(B) over a grid of rows = batch*m by cols = n, computed before the code runs
/// and read per element as OperandKind::MatmulResult. A and B are the buffers of input slots
/// a_input and b_input (which may be one slot), each `batch` matrices stacked by rows:
///   A: batch x (m x k) row-major, or batch x (k x m) with trans_a (used as its transpose);
///   B: batch x (k x n) row-major, or batch x (n x k) with trans_b.
/// Element (r, c), with block t = r / m and row i = r % m, is the sum over p = 0..k-1, in
/// increasing p, of opA(t, i, p) * opB(t, p, c), where opA(t, i, p) is A[(t*m + i)*k + p]
/// (trans_a: A[(t*k + p)*m + i]) and opB(t, p, c) is B[(t*k + p)*n + c] (trans_b:
/// B[(t*n + c)*k + p]); the sum starts from the first product (no identity value), and every
/// product and partial sum is rounded to binary32 (interpreter.hpp). The matmul also defines
/// the grid indices: GridIndex Row reads i (the row within the block) and Batch reads the
/// grid's batch plus t. k and batch are runtime values (not in the key); the slots and the
/// transposes are structure.
struct Matmul {
  std::uint8_t a_input = 0;
  std::uint8_t b_input = 0;
  bool trans_a = false;
  bool trans_b = false;
  std::uint32_t k = 1;      // the summation length, >= 1
  std::uint32_t batch = 1;  // the number of stacked matrices, >= 1 (divides the grid's rows)
  friend constexpr bool operator==(const Matmul&, const Matmul&) = default;
};

/// Which operand of matmul `m` input `i` is: "A", "B", "A and B", or "" (none, or no matmul).
constexpr std::string_view matmul_operand_name(const std::optional<Matmul>& m, std::size_t i) {
  if (!m) return "";
  const bool a = i == m->a_input, b = i == m->b_input;
  return a && b ? "A and B" : a ? "A" : b ? "B" : "";
}

/// True when input `i` is an operand of matmul `m` (its buffer holds matrices, not the grid).
constexpr bool is_matmul_operand(const std::optional<Matmul>& m, std::size_t i) {
  return !matmul_operand_name(m, i).empty();
}

// ---- the spec -------------------------------------------------------------------------------

struct Spec {
  std::vector<Instr> instrs;                   // output = instrs.back().dst
  std::vector<View> views;                     // one per input, in input order
  std::vector<std::uint32_t> consts;           // FP32 bit patterns
  std::vector<std::uint32_t> runtime_scalars;  // FP32 bit patterns (values bound at dispatch)
  std::uint8_t num_regs = 0;
  std::optional<Matmul> matmul;  // the optional matmul segment; the passes never change it
  friend bool operator==(const Spec&, const Spec&) = default;
};

/// A one-line-per-instruction dump for diagnostics and test failures (not a stable format).
inline std::string to_string(const Spec& s) {
  constexpr char digits[] = "0123456789abcdef";
  auto hex = [&](std::string& out, std::uint32_t v) {
    out += " 0x";
    for (int i = 7; i >= 0; --i) out += digits[(v >> (4 * i)) & 15];
  };
  std::string out = "Spec num_regs=";
  out += std::to_string(s.num_regs);
  out += " views=[";
  for (const View& v : s.views) {
    out += ' ';
    out += view_kind_name(v.kind);
    out += '(';
    out += std::to_string(v.param);
    out += ')';
  }
  out += " ] consts=[";
  for (std::uint32_t c : s.consts) hex(out, c);
  out += " ] runtime_scalars=[";
  for (std::uint32_t c : s.runtime_scalars) hex(out, c);
  out += " ]";
  if (const std::optional<Matmul>& m = s.matmul) {
    out += " matmul=(a=" + std::to_string(m->a_input) + (m->trans_a ? "^T" : "") +
           " b=" + std::to_string(m->b_input) + (m->trans_b ? "^T" : "") +
           " k=" + std::to_string(m->k) + " batch=" + std::to_string(m->batch) + ")";
  }
  out += "\n";
  for (const Instr& in : s.instrs) {
    out += "  r";
    out += std::to_string(in.dst);
    out += " = ";
    out += op_name(in.op);
    for (std::size_t i = 0; i < 3; ++i) {
      out += i == 0 ? "(" : ", ";
      out += to_string(in.slot(i));
    }
    out += ")\n";
  }
  return out;
}

constexpr std::uint32_t float_bits(float f) { return std::bit_cast<std::uint32_t>(f); }
constexpr float bits_float(std::uint32_t u) { return std::bit_cast<float>(u); }

}  // namespace pypto::kernel

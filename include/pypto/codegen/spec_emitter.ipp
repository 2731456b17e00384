// pypto/codegen/spec_emitter.ipp — the definitions of codegen/spec_emitter.hpp.
#pragma once

#include "pypto/codegen/spec_emitter.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/codegen/cpu_target.hpp"
#include "pypto/codegen/npu_target.hpp"
#include "pypto/codegen/target_traits.hpp"
#include "pypto/kernel/spec.hpp"

// emit_spec<T>(spec, binding, indent) returns one C++ block that computes the Spec over a
// rows x cols grid into the output tile. Registers are declared first, then assigned, in
// instruction order, as the canonical form orders them; names are the register numbers
// (r<k> elementwise, q<k> reduction vectors), so equal canonical Specs with equal bindings
// print equal bytes. Two styles, chosen by the traits:
//   PerElement (CPU): phase 1 folds each row reduction left to right from the first element;
//     phase 2 runs the elementwise instructions per element in row-major order, one statement
//     each (kernel/interpreter.hpp's order, so results are bit-identical);
//   WholeTile (NPU): each instruction is one tile instruction on register tiles; scalar
//     operands use the tile-scalar form when the table has one and are expanded into a scratch
//     tile otherwise, reduction vectors read on the full grid are expanded along the row.
// With `row_vector` the output holds one value per row: the code is evaluated at column 0 only
// (the row reductions' consumers). Inputs are read through Linear views, ColBroadcast views
// for [rows, 1] tiles (one value per row, read along the whole row) or RowBroadcast views for
// [1, cols] tiles (one row, read down every row; T::col_expand in whole-tile style); the operand
// kinds this emitter does not print (GridIndex, MatmulResult, column reductions) raise
// SpecEmitError, which the caller reports with the kernel, op and position. Tiles are FP32: a
// Spec computes in binary32 and is canonicalized in binary32, with no rounding to a narrower
// dtype between instructions, so FP16 / BF16 tiles are refused (SpecEmitError) rather than
// rounded per op; kernel_codegen.hpp lowers those op by op, each result rounded, which is what
// keeps them bit-identical to the interpreter. O(instrs + output).

namespace pypto::codegen {

namespace detail::spec_emit {

inline std::string reg_name(std::uint8_t r) { return "r" + std::to_string(r); }
inline std::string red_name(std::uint8_t r) { return "q" + std::to_string(r); }

inline void check_views(const kernel::Spec& spec) {
  if (spec.matmul) throw SpecEmitError("a Spec with a matmul segment is not emitted");
  for (const kernel::View& v : spec.views)
    if (v.kind != kernel::ViewKind::Linear && v.kind != kernel::ViewKind::ColBroadcast &&
        v.kind != kernel::ViewKind::RowBroadcast)
      throw SpecEmitError("view " + std::string(kernel::view_kind_name(v.kind)) +
                          " is not emitted");
  for (const kernel::Instr& in : spec.instrs)
    if (kernel::op_info(in.op).cls == kernel::OpClass::ColReduction)
      throw SpecEmitError("column reduction " + std::string(kernel::op_name(in.op)) +
                          " is not emitted");
}

template <TargetTraits T>
std::string scalar_text(const kernel::Spec& spec, const SpecBinding& b, const kernel::Operand& o) {
  if (o.kind == kernel::OperandKind::Const) return T::float_literal(spec.consts.at(o.index));
  return b.runtime_scalars.at(o.index);
}

/// PerElement: the operand at element (i, j) of the grid.
template <TargetTraits T>
std::string element_operand(const kernel::Spec& spec, const SpecBinding& b,
                            const kernel::Operand& o) {
  using K = kernel::OperandKind;
  switch (o.kind) {
    case K::Reg: return reg_name(o.index);
    case K::Input:
      if (spec.views.at(o.index).kind == kernel::ViewKind::ColBroadcast)
        return b.inputs.at(o.index).name + "[i]";
      if (spec.views.at(o.index).kind == kernel::ViewKind::RowBroadcast)
        return b.inputs.at(o.index).name + "[j]";
      return b.inputs.at(o.index).name + "[i * pk_cols + j]";
    case K::Const:
    case K::RuntimeScalar: return scalar_text<T>(spec, b, o);
    case K::ReduceResult: return red_name(o.index) + "[i]";
    default: throw SpecEmitError("operand " + kernel::to_string(o) + " is not emitted");
  }
}

template <TargetTraits T>
std::string emit_per_element(const kernel::Spec& spec, const SpecBinding& b, std::string_view in) {
  const std::string i1 = std::string(in) + "  ", i2 = i1 + "  ", i3 = i2 + "  ";
  std::string s = std::string(in) + "{\n";
  s += i1 + "const std::int64_t pk_rows = " + b.rows.text + ", pk_cols = " + b.cols.text + ";\n";
  // Phase 1: reductions, each from its first element (no identity value).
  for (const kernel::Instr& r : spec.instrs) {
    if (!kernel::is_reduction(r.op)) continue;
    const std::string q = red_name(r.dst);
    s += i1 + "std::vector<float> " + q + "(static_cast<std::size_t>(pk_rows));\n";
    s += i1 + "for (std::int64_t i = 0; i < pk_rows; ++i) {\n";
    std::string first = element_operand<T>(spec, b, r.a);
    // the first element: column 0
    if (r.a.kind == kernel::OperandKind::Input &&
        spec.views.at(r.a.index).kind == kernel::ViewKind::Linear)
      first = b.inputs.at(r.a.index).name + "[i * pk_cols]";
    s += i2 + "float acc = " + first + ";\n";
    s += i2 + "for (std::int64_t j = 1; j < pk_cols; ++j) {\n";
    s += i3 + "const float x = " + element_operand<T>(spec, b, r.a) + ";\n";
    s += i3 + format_template(T::instr_table[static_cast<std::size_t>(r.op)], "acc", "x") + "\n";
    s += i2 + "}\n";
    s += i2 + q + "[static_cast<std::size_t>(i)] = acc;\n";
    s += i1 + "}\n";
  }
  // Phase 2: the elementwise code per element, registers declared first.
  std::vector<std::uint8_t> regs;
  for (const kernel::Instr& in_ : spec.instrs)
    if (!kernel::is_reduction(in_.op) && std::find(regs.begin(), regs.end(), in_.dst) == regs.end())
      regs.push_back(in_.dst);
  std::sort(regs.begin(), regs.end());
  const std::string out_cols = b.row_vector ? "1" : "pk_cols";
  s += i1 + "for (std::int64_t i = 0; i < pk_rows; ++i) {\n";
  s += i2 + "for (std::int64_t j = 0; j < " + out_cols + "; ++j) {\n";
  if (!regs.empty()) {
    s += i3 + "float";
    for (std::size_t k = 0; k < regs.size(); ++k)
      s += std::string(k ? "," : "") + " " + reg_name(regs[k]) + " = 0.0f";
    s += ";\n";
  }
  for (const kernel::Instr& in_ : spec.instrs) {
    if (kernel::is_reduction(in_.op)) continue;
    const std::uint8_t n = kernel::arity(in_.op);
    s += i3 +
         format_template(T::instr_table[static_cast<std::size_t>(in_.op)], reg_name(in_.dst),
                         element_operand<T>(spec, b, in_.a),
                         n > 1 ? element_operand<T>(spec, b, in_.b) : "",
                         n > 2 ? element_operand<T>(spec, b, in_.c) : "") +
         "\n";
  }
  s += i3 + b.output.name + "[static_cast<std::size_t>(i * " + out_cols +
       " + j)] = " + reg_name(spec.instrs.back().dst) + ";\n";
  s += i2 + "}\n" + i1 + "}\n" + std::string(in) + "}\n";
  return s;
}

/// WholeTile: scratch tiles are numbered per instruction and declared once, up front.
template <TargetTraits T>
class WholeTileEmitter {
 public:
  WholeTileEmitter(const kernel::Spec& spec, const SpecBinding& b) : spec_(spec), b_(b) {}

  std::string run(std::string_view in) {
    const std::string i1 = std::string(in) + "  ";
    std::string code;
    for (const kernel::Instr& x : spec_.instrs) {
      elem_used_ = grid_used_ = 0;
      const std::size_t op = static_cast<std::size_t>(x.op);
      if (kernel::is_reduction(x.op)) {
        const std::string a = grid_tile(x.a, code, i1);
        const std::string t = "w" + std::to_string(grid_used_++);
        code += i1 + format_template(T::instr_table[op], red_name(x.dst), a, "", "", t) + "\n";
      } else {
        const std::uint8_t n = kernel::arity(x.op);
        // A commutative op with its scalar first (the canonical order may put constants there)
        // is printed with its operands swapped, so that the tile-scalar form applies.
        kernel::Operand first = x.a, second = x.b;
        if (n == 2 && kernel::op_info(x.op).commutative && is_scalar(first) && !is_scalar(second))
          std::swap(first, second);
        const bool scalar_b =
            n == 2 && is_scalar(second) && !is_scalar(first) && !T::scalar_instr_table[op].empty();
        const std::string a = elem_tile(first, code, i1);
        const std::string bb =
            n > 1 ? (scalar_b ? scalar_text<T>(spec_, b_, second) : elem_tile(second, code, i1))
                  : "";
        const std::string c = n > 2 ? elem_tile(x.c, code, i1) : "";
        code += i1 +
                format_template(scalar_b ? T::scalar_instr_table[op] : T::instr_table[op],
                                reg_name(x.dst), a, bb, c) +
                "\n";
      }
      max_elem_ = std::max(max_elem_, elem_used_);
      max_grid_ = std::max(max_grid_, grid_used_);
    }
    TileRef out_reg = elem_shape(reg_name(spec_.instrs.back().dst));
    code += i1 + T::tile_copy(b_.output, out_reg);
    // Declarations first: registers, reduction vectors, scratch.
    std::string decl;
    std::vector<std::uint8_t> regs, reds;
    for (const kernel::Instr& x : spec_.instrs) {
      auto& list = kernel::is_reduction(x.op) ? reds : regs;
      if (std::find(list.begin(), list.end(), x.dst) == list.end()) list.push_back(x.dst);
    }
    std::sort(regs.begin(), regs.end());
    for (std::uint8_t r : regs) decl += i1 + T::tile_decl(elem_shape(reg_name(r)));
    for (std::uint8_t r : reds) decl += i1 + T::tile_decl(tile(red_name(r), b_.rows, {"1", 1}));
    for (std::size_t k = 0; k < max_elem_; ++k)
      decl += i1 + T::tile_decl(elem_shape("x" + std::to_string(k)));
    for (std::size_t k = 0; k < max_grid_; ++k)
      decl += i1 + T::tile_decl(tile("w" + std::to_string(k), b_.rows, b_.cols));
    return std::string(in) + "{\n" + decl + code + std::string(in) + "}\n";
  }

 private:
  static bool is_scalar(const kernel::Operand& o) {
    return o.kind == kernel::OperandKind::Const || o.kind == kernel::OperandKind::RuntimeScalar;
  }
  static TileRef tile(std::string name, const Dim& rows, const Dim& cols) {
    return TileRef{std::move(name), core::DataType::FP32, ir::MemorySpace::Vec, {rows, cols}};
  }
  TileRef elem_shape(std::string name) const {
    return tile(std::move(name), b_.rows, b_.row_vector ? Dim{"1", 1} : b_.cols);
  }

  /// A grid-shaped tile holding operand `o` (a reduction's input).
  std::string grid_tile(const kernel::Operand& o, std::string& code, const std::string& in) {
    if (o.kind == kernel::OperandKind::Input &&
        spec_.views.at(o.index).kind == kernel::ViewKind::Linear)
      return b_.inputs.at(o.index).name;
    if (is_scalar(o)) {
      const std::string w = "w" + std::to_string(grid_used_++);
      code += in + format_template(T::expand_scalar, w, scalar_text<T>(spec_, b_, o)) + "\n";
      return w;
    }
    throw SpecEmitError("a reduction of " + kernel::to_string(o) + " is not emitted");
  }

  /// An elementwise-shaped tile holding operand `o`.
  std::string elem_tile(const kernel::Operand& o, std::string& code, const std::string& in) {
    using K = kernel::OperandKind;
    switch (o.kind) {
      case K::Reg: return reg_name(o.index);
      case K::Input: {
        if (spec_.views.at(o.index).kind == kernel::ViewKind::RowBroadcast) {
          if (b_.row_vector)
            throw SpecEmitError("a row broadcast in a row-vector Spec is not emitted");
          const std::string x = "x" + std::to_string(elem_used_++);
          code += in + format_template(T::col_expand, x, b_.inputs.at(o.index).name) + "\n";
          return x;
        }
        const bool column = spec_.views.at(o.index).kind == kernel::ViewKind::ColBroadcast;
        if (column == b_.row_vector) return b_.inputs.at(o.index).name;
        if (!column)
          throw SpecEmitError("a grid input read per element in a row-vector Spec is not emitted");
        const std::string x = "x" + std::to_string(elem_used_++);
        code += in + format_template(T::row_expand, x, b_.inputs.at(o.index).name) + "\n";
        return x;
      }
      case K::ReduceResult: {
        if (b_.row_vector) return red_name(o.index);
        const std::string x = "x" + std::to_string(elem_used_++);
        code += in + format_template(T::row_expand, x, red_name(o.index)) + "\n";
        return x;
      }
      case K::Const:
      case K::RuntimeScalar: {
        const std::string x = "x" + std::to_string(elem_used_++);
        code += in + format_template(T::expand_scalar, x, scalar_text<T>(spec_, b_, o)) + "\n";
        return x;
      }
      default: throw SpecEmitError("operand " + kernel::to_string(o) + " is not emitted");
    }
  }

  const kernel::Spec& spec_;
  const SpecBinding& b_;
  std::size_t elem_used_ = 0, grid_used_ = 0, max_elem_ = 0, max_grid_ = 0;
};

}  // namespace detail::spec_emit

template <TargetTraits T>
std::string emit_spec(const kernel::Spec& spec, const SpecBinding& binding,
                      std::string_view indent) {
  detail::spec_emit::check_views(spec);
  auto fp32 = [](const TileRef& t) {
    if (t.dtype != core::DataType::FP32)
      throw SpecEmitError("tile " + t.name + " is " + std::string(core::dtype_name(t.dtype)) +
                          "; a Spec computes FP32 tiles only");
  };
  fp32(binding.output);
  for (const TileRef& t : binding.inputs) fp32(t);
  if (spec.instrs.empty()) throw SpecEmitError("an empty Spec has no output");
  if (T::spec_style == SpecStyle::PerElement)
    return detail::spec_emit::emit_per_element<T>(spec, binding, indent);
  return detail::spec_emit::WholeTileEmitter<T>(spec, binding).run(indent);
}

#ifdef PYPTO_SEPARATE_COMPILATION
template std::string emit_spec<CpuTarget>(const kernel::Spec& spec, const SpecBinding& binding,
                                          std::string_view indent);
template std::string emit_spec<NpuTarget>(const kernel::Spec& spec, const SpecBinding& binding,
                                          std::string_view indent);
#endif

}  // namespace pypto::codegen

// pypto/codegen/cpu_target.hpp — the CPU reference target: portable C++ that the system compiler
// builds and the CPU runtime runs; its results are the oracle for every transform.
//
// Semantics are strict IEEE binary32 and equal runtime/interpreter.hpp's bit for bit: every Spec
// instruction is one statement into a named float, reductions and matmul accumulate in the
// interpreter's order from the first element, and the file turns FP contraction off itself.
// Tiles are std::vectors (any rank, dims read at run time); the entry is kernel_abi.hpp's fixed
// `pypto_kernel_entry`, so nothing in the file depends on the kernel's name. FP16 / BF16 are
// 16-bit patterns (kernel_abi.hpp's encoding), computed as the interpreter does: operands
// widened to binary32, the FP32 instruction, the result rounded to the dtype, one loop per op.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/codegen/core_type.hpp"
#include "pypto/codegen/kernel_abi.hpp"
#include "pypto/codegen/runtime_abi.hpp"
#include "pypto/codegen/target_traits.hpp"
#include "pypto/core/config.hpp"
#include "pypto/core/dtype.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/kernel/spec.hpp"

namespace pypto::codegen {

struct CpuTarget {
  static constexpr std::string_view name = "cpu";
  /// Changes whenever the emitted code for some input changes (part of compilation keys).
  static constexpr std::string_view fingerprint = "pypto-cpu-kernel-v2";
  static constexpr std::string_view file_extension = ".cpp";
  static constexpr std::string_view comment_prefix = "// ";

  static constexpr const RuntimeAbi& runtime_abi = kCpuRuntimeAbi;

  static constexpr std::string_view scalar_type(core::DataType t) {
    using D = core::DataType;
    switch (t) {
      case D::BOOL: return "bool";
      case D::INT8: return "std::int8_t";
      case D::INT16: return "std::int16_t";
      case D::INT32: return "std::int32_t";
      case D::INT64:
      case D::INDEX: return "std::int64_t";
      case D::UINT8: return "std::uint8_t";
      case D::UINT16: return "std::uint16_t";
      case D::UINT32: return "std::uint32_t";
      case D::UINT64: return "std::uint64_t";
      case D::FP32: return "float";
      default: return "";  // FP16, BF16, sub-byte and FP8 types: no host type
    }
  }
  /// Tensor and tile elements: the scalar types, the 16-bit storage of FP16 / BF16 and the
  /// codes of the MX formats, a byte each (no scalar type: a scalar value of those dtypes is held
  /// as the float of its value, read and cast so; scalar arithmetic and parameters in them are
  /// not lowered). A std::vector<bool> has no
  /// data(), so BOOL tiles are not supported.
  static constexpr std::string_view element_type(core::DataType t) {
    if (t == core::DataType::FP16) return "pk::fp16";
    if (t == core::DataType::BF16) return "pk::bf16";
    if (t == core::DataType::FP8E4M3FN) return "pk::fp8e4m3";
    if (t == core::DataType::FP8E5M2) return "pk::fp8e5m2";
    if (t == core::DataType::FP8E8M0) return "pk::fp8e8m0";
    if (t == core::DataType::FP4) return "pk::fp4e2m1";  // a code a byte
    return t == core::DataType::BOOL ? "" : scalar_type(t);
  }
  /// The binary32 value `x` rounded to float dtype `t` as an element of `t`: FP16 / BF16 to
  /// nearest with ties to even, a NaN to the dtype's quiet NaN of its sign (interpreter.hpp's
  /// round_to_dtype); "" for the dtypes this target does not compute.
  static std::string round_to_dtype(core::DataType t, std::string_view x);
  static constexpr core::DataType accumulator_dtype = core::DataType::FP32;
  static constexpr std::size_t max_tile_rank = kKernelAbiMaxRank;
  static constexpr std::size_t max_spec_registers = kernel::kMaxRegs;
  static constexpr FloatSemantics float_semantics{true, false, true, 0};
  /// Every op is the interpreter's own (host libm for transcendentals): 0 ULP from the oracle.
  static constexpr std::array<std::uint8_t, kernel::kOpCount> op_ulp = {};

  /// Every space is host memory: no capacity limit.
  static constexpr std::array<MemorySpaceInfo, 9> memory_spaces = {{
      {ir::MemorySpace::Vec, "Vec", 0, false},
      {ir::MemorySpace::Mat, "Mat", 0, true},
      {ir::MemorySpace::Left, "Left", 0, true},
      {ir::MemorySpace::Right, "Right", 0, true},
      {ir::MemorySpace::Acc, "Acc", 0, true},
      {ir::MemorySpace::Bias, "Bias", 0, true},
      {ir::MemorySpace::ScalarLocal, "ScalarLocal", 0, false},
      {ir::MemorySpace::LeftScale, "LeftScale", 0, true},
      {ir::MemorySpace::RightScale, "RightScale", 0, true},
  }};
  /// Where a tile whose type names no memory space lives.
  static constexpr ir::MemorySpace default_memory(CoreType) { return ir::MemorySpace::Vec; }
  static constexpr const MemorySpaceInfo* memory_space(ir::MemorySpace m) {
    for (const MemorySpaceInfo& info : memory_spaces)
      if (info.space == m) return &info;
    return nullptr;
  }

  // ---- the kernel expression IR: one statement per element and instruction ------------------

  static constexpr SpecStyle spec_style = SpecStyle::PerElement;
  /// Elementwise rows assign {d} from {a}, {b}, {c}; reduction rows fold element {a} into the
  /// accumulator {d}. Exactly kernel/interpreter.hpp's apply_op.
  static constexpr std::array<std::string_view, kernel::kOpCount> instr_table = {
      "{d} = {a};",                       // Mov
      "{d} = -{a};",                      // Neg
      "{d} = std::fabs({a});",            // Abs
      "{d} = std::exp({a});",             // Exp
      "{d} = std::log({a});",             // Log
      "{d} = std::sqrt({a});",            // Sqrt
      "{d} = 1.0f / std::sqrt({a});",     // Rsqrt
      "{d} = std::tanh({a});",            // Tanh
      "{d} = {a} + {b};",                 // Add
      "{d} = {a} - {b};",                 // Sub
      "{d} = {a} * {b};",                 // Mul
      "{d} = {a} / {b};",                 // Div
      "{d} = pk::max({a}, {b});",         // Max
      "{d} = pk::min({a}, {b});",         // Min
      "{d} = {a} < {b} ? 1.0f : 0.0f;",   // Lt
      "{d} = {a} <= {b} ? 1.0f : 0.0f;",  // Le
      "{d} = {a} > {b} ? 1.0f : 0.0f;",   // Gt
      "{d} = {a} >= {b} ? 1.0f : 0.0f;",  // Ge
      "{d} = {a} == {b} ? 1.0f : 0.0f;",  // Eq
      "{d} = {a} != {b} ? 1.0f : 0.0f;",  // Ne
      "{d} = {a} != 0.0f ? {b} : {c};",   // Select
      "{d} = {d} + {a};",                 // RowSum
      "{d} = pk::max({d}, {a});",         // RowMax
      "{d} = {d} + {a};",                 // ColSum
      "{d} = pk::max({d}, {a});",         // ColMax
  };
  /// Whole-tile forms only (the NPU's): unused by a per-element target.
  static constexpr std::array<std::string_view, kernel::kOpCount> scalar_instr_table = {};
  static constexpr std::string_view expand_scalar = "";
  static constexpr std::string_view row_expand = "";
  static constexpr std::string_view col_expand = "";

  static std::string float_literal(std::uint32_t bits);

  // ---- file and entry --------------------------------------------------------------------

  static std::string prologue(CoreType);
  static std::string entry_open();
  static std::string entry_close();

  static std::string tensor_param(const TensorRef& t, std::size_t index);
  static std::string scalar_param(std::string_view name, core::DataType t, std::size_t index);

  /// A kernel-local tensor (tensor.create): heap storage of `dims` elements filled with
  /// `value`, and a TensorArg over it, living until the end of the enclosing block.
  static std::string tensor_create(const TensorRef& t, const std::vector<std::string>& dims,
                                   std::string_view value);

  // ---- tiles ---------------------------------------------------------------------------

  static std::string tile_decl(const TileRef& t);
  static std::string extents(const TileRef& t);
  static std::string tile_load(const TileRef& t, const TensorRef& src,
                               const std::vector<std::string>& offsets, std::int64_t site);
  static std::string tile_load_valid(const TileRef& t, const TensorRef& src,
                                     const std::vector<std::string>& offsets,
                                     const std::vector<std::string>& valid, std::int64_t site);
  static std::string tile_store(const TileRef& t, const TensorRef& dst,
                                const std::vector<std::string>& offsets, bool atomic_add,
                                std::int64_t site);
  static std::string tile_fill(const TileRef& t, std::string_view value);
  static std::string tile_cast(const TileRef& dst, const TileRef& src, std::size_t mode);
  static std::string tile_copy(const TileRef& dst, const TileRef& src);
  static std::string tile_matmul(const TileRef& c, const TileRef& a, const TileRef& b);
  static std::string tile_matmul_acc(const TileRef& c, const TileRef& acc, const TileRef& a,
                                     const TileRef& b, std::string_view init);
  static std::string tile_transpose(const TileRef& dst, const TileRef& src);
  static std::string tile_slice(const TileRef& dst, const TileRef& src,
                                const std::vector<std::string>& offsets,
                                const std::vector<std::string>& valid, std::int64_t site);
  static std::string tile_reshape(const TileRef& dst, const TileRef& src);
  static std::string tile_reduce(const TileRef& dst, const TileRef& src, Reduction kind,
                                 bool by_row, bool index, bool tree);
  static std::string tile_triangle(const TileRef& dst, std::string_view diagonal, bool upper);
  /// `src` (its box `valid` only, when given) copied into `dst` at `offsets`.
  static std::string tile_assemble(const TileRef& dst, const TileRef& src,
                                   const std::vector<std::string>& offsets, std::int64_t site,
                                   const std::vector<std::string>& valid = {});
  static std::string tile_expdif(const TileRef& dst, const TileRef& a, const TileRef& v);
  static std::string tile_store_valid(const TileRef& t, const TensorRef& dst,
                                      const std::vector<std::string>& offsets,
                                      const std::vector<std::string>& valid, bool atomic_add,
                                      std::int64_t site);
  static std::string tensor_fold_2d(const TensorRef& t, std::string_view name);
  static std::string irregular_view(const TileRef& t);
  static std::string irregular_view(const TensorRef& t);
  static std::string irregular_call(std::string_view function,
                                    const std::vector<std::string>& operands, std::int64_t site);
  static std::string tile_index_sequence(const TileRef& t, std::string_view start, bool descending);
  static std::string tile_element(ElementOp op, int mode, const TileRef& dst, const TileRef& a,
                                  std::string_view b, bool b_scalar, std::string_view int_expr);
  static std::string tile_fillpad(const TileRef& dst, const TileRef& src,
                                  const std::vector<std::string>& valid, int mode);
  static std::string tile_compare_mask(const TileRef& dst, const TileRef& a, std::string_view b,
                                       bool b_scalar, int mode);
  static std::string tile_select(const TileRef& dst, const TileRef& mask, bool packed,
                                 const TileRef& a, std::string_view other, bool other_scalar);
  static std::string tile_broadcast(const TileRef& dst, const TileRef& vec);
  static std::string tile_at(const TileRef& t, std::string_view flat);
  static std::string tile_add_bias(const TileRef& dst, const TileRef& bias, std::string_view rows);
  static std::string block_idx();
  static std::string block_num();
  /// One in-order thread: every instruction sees the effects of the ones before it.
  static constexpr bool one_in_order_unit = true;
  static std::string pipe_sync(Pipe, Pipe);
  static std::string pipe_barrier();
  /// One elementwise op over every element: integers wrap (pk::, like the interpreter); FP16 /
  /// BF16 go through binary32 (half_op).
  static std::string tile_elementwise(kernel::Op op, const TileRef& dst, const TileRef& a,
                                      std::string_view b, bool b_scalar);
  static constexpr std::string_view int_fn(kernel::Op op) {
    switch (op) {
      case kernel::Op::Add: return "add";
      case kernel::Op::Sub: return "sub";
      case kernel::Op::Mul: return "mul";
      case kernel::Op::Max: return "max";
      case kernel::Op::Min: return "min";
      case kernel::Op::Neg: return "neg";
      default: return "abs";
    }
  }

 private:
  /// An FP16 / BF16 op, as runtime/interpreter.hpp computes it: operands widened to binary32,
  /// the FP32 instruction, the result rounded to the dtype. A row reduction folds each row left
  /// to right from its first element; a sum's partial results are rounded, a max selects an
  /// element (no rounding), and the row's result is stored exactly.
  static std::string half_op(kernel::Op op, const TileRef& dst, const TileRef& a,
                             std::string_view b, bool b_scalar = false);
};

static_assert(TargetTraits<CpuTarget>);

}  // namespace pypto::codegen

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/codegen/cpu_target.ipp"
#endif

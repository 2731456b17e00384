// pypto/codegen/npu_target.hpp — the NPU target: PTO-ISA-style C++ kernels for an Ascend-like
// AI core with a cube core (AIC) and vector cores (AIV).
//
// A kernel is one file with a fixed `kernel_entry(__gm__ int64_t* args)` that unpacks the
// task-parameter order, so two kernels with the same code print the same bytes. Tiles are PTO
// tiles in an on-chip memory space (Vec = UB on the vector core; Mat = L1, Left/Right = L0A/L0B,
// Acc = L0C and Bias on the cube core) with the a2a3 generation's capacities; a constant-shaped
// tile larger than its space is refused. Spec instructions become whole-tile instructions (TADD,
// TEXP, TROWSUM, ...) on register tiles in UB. The float contract is the vector unit's: IEEE
// add/mul/div/sqrt without contraction, transcendentals within a few ULP.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/codegen/core_type.hpp"
#include "pypto/codegen/runtime_abi.hpp"
#include "pypto/codegen/target_traits.hpp"
#include "pypto/core/config.hpp"
#include "pypto/core/dtype.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/kernel/spec.hpp"

namespace pypto::codegen {

struct NpuTarget {
  static constexpr std::string_view name = "npu";
  static constexpr std::string_view fingerprint = "pypto-npu-pto-a2a3-v2";
  static constexpr std::string_view file_extension = ".cpp";
  static constexpr std::string_view comment_prefix = "// ";
  static constexpr std::string_view arch = "a2a3";

  static constexpr const RuntimeAbi& runtime_abi = kNpuRuntimeAbi;

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
      default: return "";
    }
  }
  /// Tile and global-memory element types: the scalar types plus the vector unit's halves.
  static constexpr std::string_view element_type(core::DataType t) {
    if (t == core::DataType::FP16) return "half";
    if (t == core::DataType::BF16) return "bfloat16_t";
    if (t == core::DataType::BOOL) return "";
    return scalar_type(t);
  }
  /// FP32 only: the vector unit computes FP16 / BF16 natively, with its own rounding per
  /// instruction rather than a binary32 result rounded to the dtype; until this target states
  /// that contract, arithmetic on half tiles is a CodegenError (loads, stores and casts are not).
  static std::string round_to_dtype(core::DataType t, std::string_view x);
  static constexpr core::DataType accumulator_dtype = core::DataType::FP32;
  static constexpr std::size_t max_tile_rank = 2;
  /// Spec registers are UB tiles: a Spec may hold at most this many at once.
  static constexpr std::size_t max_spec_registers = 16;
  static constexpr FloatSemantics float_semantics{false, false, false, 4};
  /// The vector unit: add/sub/mul/div/sqrt/max/min/compare exact, transcendentals approximate.
  static constexpr std::array<std::uint8_t, kernel::kOpCount> op_ulp = {
      0, 0, 0, 4, 4, 0, 2, 4,  // Mov Neg Abs Exp Log Sqrt Rsqrt Tanh
      0, 0, 0, 0, 0, 0,        // Add Sub Mul Div Max Min
      0, 0, 0, 0, 0, 0, 0,     // compares, Select
      0, 0, 0, 0};             // reductions (order: the unit's tree, not left to right)

  /// a2a3 capacities (bytes): UB 192 KiB, L1 512 KiB, L0A/L0B 64 KiB, L0C 128 KiB, bias 1 KiB.
  static constexpr std::array<MemorySpaceInfo, 8> memory_spaces = {{
      {ir::MemorySpace::Vec, "Vec", 192 * 1024, false},
      {ir::MemorySpace::Mat, "Mat", 512 * 1024, true},
      {ir::MemorySpace::Left, "Left", 64 * 1024, true},
      {ir::MemorySpace::Right, "Right", 64 * 1024, true},
      {ir::MemorySpace::Acc, "Acc", 128 * 1024, true},
      {ir::MemorySpace::Bias, "Bias", 1024, true},
      {ir::MemorySpace::LeftScale, "ScaleLeft", 4 * 1024, true},
      {ir::MemorySpace::RightScale, "ScaleRight", 4 * 1024, true},
  }};
  /// Where a tile whose type names no memory space lives: UB on a vector core, L1 on the cube
  /// core (which has no UB).
  static constexpr ir::MemorySpace default_memory(CoreType core) {
    return core == CoreType::AIC ? ir::MemorySpace::Mat : ir::MemorySpace::Vec;
  }
  static constexpr const MemorySpaceInfo* memory_space(ir::MemorySpace m) {
    for (const MemorySpaceInfo& info : memory_spaces)
      if (info.space == m) return &info;
    return nullptr;
  }

  // ---- the kernel expression IR: one whole-tile instruction per Spec instruction -------------

  static constexpr SpecStyle spec_style = SpecStyle::WholeTile;
  /// Tile-tile forms; {t} is a scratch tile of the grid's shape (reductions need one).
  static constexpr std::array<std::string_view, kernel::kOpCount> instr_table = {
      "TMOV({d}, {a});",                    // Mov
      "TNEG({d}, {a});",                    // Neg
      "TABS({d}, {a});",                    // Abs
      "TEXP({d}, {a});",                    // Exp
      "TLOG({d}, {a});",                    // Log
      "TSQRT({d}, {a});",                   // Sqrt
      "TRSQRT({d}, {a});",                  // Rsqrt
      "TTANH({d}, {a});",                   // Tanh
      "TADD({d}, {a}, {b});",               // Add
      "TSUB({d}, {a}, {b});",               // Sub
      "TMUL({d}, {a}, {b});",               // Mul
      "TDIV({d}, {a}, {b});",               // Div
      "TMAX({d}, {a}, {b});",               // Max
      "TMIN({d}, {a}, {b});",               // Min
      "TCMP({d}, {a}, {b}, CmpMode::LT);",  // Lt
      "TCMP({d}, {a}, {b}, CmpMode::LE);",  // Le
      "TCMP({d}, {a}, {b}, CmpMode::GT);",  // Gt
      "TCMP({d}, {a}, {b}, CmpMode::GE);",  // Ge
      "TCMP({d}, {a}, {b}, CmpMode::EQ);",  // Eq
      "TCMP({d}, {a}, {b}, CmpMode::NE);",  // Ne
      "TSEL({d}, {a}, {b}, {c});",          // Select
      "TROWSUM({d}, {a}, {t});",            // RowSum
      "TROWMAX({d}, {a}, {t});",            // RowMax
      "TCOLSUM({d}, {a}, {t});",            // ColSum
      "TCOLMAX({d}, {a}, {t});",            // ColMax
  };
  /// Tile-scalar forms ({b} a scalar), used when the second operand is a constant or a runtime
  /// scalar; other scalar operands are first expanded into a tile.
  static constexpr std::array<std::string_view, kernel::kOpCount> scalar_instr_table = {
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      "",                       // unary
      "TADDS({d}, {a}, {b});",  // Add
      "TSUBS({d}, {a}, {b});",  // Sub
      "TMULS({d}, {a}, {b});",  // Mul
      "TDIVS({d}, {a}, {b});",  // Div
      "TMAXS({d}, {a}, {b});",  // Max
      "TMINS({d}, {a}, {b});",  // Min
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      "",
  };
  static constexpr std::string_view expand_scalar = "TEXPANDS({d}, {a});";
  static constexpr std::string_view row_expand = "TROWEXPAND({d}, {a});";
  /// A [1, cols] row copied down every row of {d}.
  static constexpr std::string_view col_expand = "TCOLEXPAND({d}, {a});";

  static std::string float_literal(std::uint32_t bits);

  // ---- file and entry --------------------------------------------------------------------

  static std::string prologue(CoreType core);
  static std::string entry_open();
  static std::string entry_close();

  static std::string tensor_param(const TensorRef& t, std::size_t index);
  static std::string scalar_param(std::string_view name, core::DataType t, std::size_t index);

  /// A kernel-local global-memory tensor (tensor.create) needs a workspace the NPU runtime
  /// does not hand kernels yet: empty, which the lowering reports as a CodegenError.
  static std::string tensor_create(const TensorRef&, const std::vector<std::string>&,
                                   std::string_view);

  // ---- tiles ---------------------------------------------------------------------------

  static std::string tile_type_name(ir::MemorySpace m);
  /// Tile<space, element, rows, cols> when the shape is constant, else TileDyn with run-time
  /// rows and cols.
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
  /// The cube reads its operands from L0A / L0B: operands held elsewhere (L1) are moved there
  /// first, into tiles named after the (unique) result tile.
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

  // ---- synchronization -------------------------------------------------------------------

  static constexpr std::string_view pipe_name(Pipe p) {
    switch (p) {
      case Pipe::Scalar: return "PIPE_S";
      case Pipe::Mte2: return "PIPE_MTE2";
      case Pipe::Vector: return "PIPE_V";
      case Pipe::Mte3: return "PIPE_MTE3";
      case Pipe::Mte1: return "PIPE_MTE1";
      case Pipe::Cube: return "PIPE_M";
      case Pipe::Fix: return "PIPE_FIX";
    }
    return "PIPE_ALL";
  }
  /// One flag per hand-over, waited on at once: the lowering never keeps two pipes in flight,
  /// so EVENT_ID0 is always free.
  static std::string pipe_sync(Pipe from, Pipe to);
  static constexpr bool one_in_order_unit = false;  ///< concurrent pipes
  static std::string pipe_barrier();
  /// One integer elementwise op: the tile-tile or tile-scalar instruction of the table.
  static std::string tile_elementwise(kernel::Op op, const TileRef& dst, const TileRef& a,
                                      std::string_view b, bool b_scalar);
};

static_assert(TargetTraits<NpuTarget>);

}  // namespace pypto::codegen

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/codegen/npu_target.ipp"
#endif

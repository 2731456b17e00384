// pypto/codegen/target_traits.hpp — the concept every code generation target models, and the
// plain values its print functions take (issue 8, "Targets"; exprspec.md section 3.2).
//
// A target is a class of static constexpr data and static functions — no objects, no
// registries: the target is picked at compile time, `codegen_kernel<NpuTarget>(fn)`. The traits
// hold identity (name, fingerprint), types (storage type per dtype, the rounding of a binary32
// result to each float dtype the target computes, the accumulator), register
// and memory limits, the instruction table of the kernel expression IR (one print template per
// kernel::Op), per-op float semantics, the runtime ABI vocabulary and the printing of each tile
// construct and the synchronization between execution pipes. Everything the two targets do
// differently lives in their traits; the lowering (kernel_codegen.hpp) and the Spec emitter
// (spec_emitter.hpp) are one template each.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "pypto/codegen/core_type.hpp"
#include "pypto/codegen/runtime_abi.hpp"
#include "pypto/core/dtype.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/kernel/spec.hpp"

namespace pypto::codegen {

/// How a target runs a kernel Spec: one scalar statement per instruction inside loops over the
/// grid (CPU), or one whole-tile instruction per Spec instruction (NPU vector core).
enum class SpecStyle : std::uint8_t { PerElement, WholeTile };

/// The execution unit a kernel instruction runs on. An NPU core runs its pipes concurrently, so
/// an instruction that reads what another pipe wrote waits on a flag (pto-isa's set_flag /
/// wait_flag); a target with one in-order unit (the CPU) needs nothing. Scalar is global-memory
/// access by the scalar unit (tensor.read / tensor.write), Mte2 global → on-chip loads, Vector
/// the vector unit, Mte3 vector → global stores, Mte1 on-chip moves into the cube's operand
/// buffers, Cube the matrix unit, Fix stores out of the cube's accumulator.
enum class Pipe : std::uint8_t { Scalar, Mte2, Vector, Mte3, Mte1, Cube, Fix };

/// The float contract a target promises for the elementwise ops (exprspec.md 3.2, "semantics
/// contract"): `strict` = IEEE binary32 round-to-nearest per op with no contraction into FMA,
/// max/min/compare/select exactly as kernel/interpreter.hpp's apply_op.
///
/// Per op, `op_ulp[op]` bounds the error of kernel::Op `op` against the correctly rounded result
/// in ULP (0: exact, or the host libm's result for transcendentals on the CPU target).
struct FloatSemantics {
  bool strict = true;
  bool fp_contraction = false;
  bool denormals_kept = true;
  std::uint32_t transcendental_ulp = 0;  ///< 0: the host libm's float functions, bit for bit
};

/// One on-chip memory space of a target: its capacity bounds every tile placed in it.
struct MemorySpaceInfo {
  ir::MemorySpace space = ir::MemorySpace::Vec;
  std::string_view name;
  std::uint64_t capacity_bytes = 0;  ///< 0: unbounded (host memory)
  bool cube = false;                 ///< a cube-core space (core_type.hpp)
};

/// One dimension of a tile: its C++ expression, and its value when it is a constant.
struct Dim {
  std::string text;
  std::optional<std::int64_t> value;
};

/// A tile the generated code holds: a local name, element dtype, memory space and dims
/// (row-major; a rank-1 tile is one row).
struct TileRef {
  std::string name;
  core::DataType dtype = core::DataType::FP32;
  ir::MemorySpace space = ir::MemorySpace::Vec;
  std::vector<Dim> dims;
};

/// A tensor parameter: the name of its descriptor (shape at `name->shape[k]`) and of its typed
/// data pointer.
struct TensorRef {
  std::string name;
  std::string data;
  core::DataType dtype = core::DataType::FP32;
  std::size_t rank = 0;
};

template <class T>
concept TargetTraits = requires(const TileRef& tile, const TensorRef& tensor,
                                const std::vector<std::string>& exprs, core::DataType dtype,
                                std::uint32_t bits, std::size_t index, std::string_view text,
                                CoreType core, bool flag) {
  // identity
  { T::name } -> std::convertible_to<std::string_view>;
  { T::fingerprint } -> std::convertible_to<std::string_view>;
  { T::file_extension } -> std::convertible_to<std::string_view>;
  { T::comment_prefix } -> std::convertible_to<std::string_view>;
  // types, limits, semantics
  { T::scalar_type(dtype) } -> std::convertible_to<std::string_view>;
  { T::element_type(dtype) } -> std::convertible_to<std::string_view>;
  // a binary32 result `text` rounded to float dtype `dtype` (to nearest, ties to even) as an
  // element of it; "" for a dtype the target does not compute that way (no arithmetic on it)
  { T::round_to_dtype(dtype, text) } -> std::convertible_to<std::string>;
  { T::accumulator_dtype } -> std::convertible_to<core::DataType>;
  { T::max_tile_rank } -> std::convertible_to<std::size_t>;
  { T::max_spec_registers } -> std::convertible_to<std::size_t>;
  { T::memory_space(ir::MemorySpace::Vec) } -> std::convertible_to<const MemorySpaceInfo*>;
  { T::default_memory(core) } -> std::convertible_to<ir::MemorySpace>;
  { T::float_semantics } -> std::convertible_to<FloatSemantics>;
  { T::op_ulp[0] } -> std::convertible_to<std::uint8_t>;
  // the kernel expression IR
  { T::spec_style } -> std::convertible_to<SpecStyle>;
  { T::instr_table[0] } -> std::convertible_to<std::string_view>;
  requires std::tuple_size_v<std::remove_cvref_t<decltype(T::instr_table)>>
  == kernel::kOpCount;
  { T::scalar_instr_table[0] } -> std::convertible_to<std::string_view>;
  { T::expand_scalar } -> std::convertible_to<std::string_view>;
  { T::row_expand } -> std::convertible_to<std::string_view>;
  { T::col_expand } -> std::convertible_to<std::string_view>;
  { T::float_literal(bits) } -> std::convertible_to<std::string>;
  // the runtime ABI
  { T::runtime_abi } -> std::convertible_to<const RuntimeAbi&>;
  // printing: file, entry, parameters, tiles
  { T::prologue(core) } -> std::convertible_to<std::string>;
  { T::entry_open() } -> std::convertible_to<std::string>;
  { T::entry_close() } -> std::convertible_to<std::string>;
  { T::tensor_param(tensor, index) } -> std::convertible_to<std::string>;
  { T::scalar_param(text, dtype, index) } -> std::convertible_to<std::string>;
  { T::tensor_create(tensor, exprs, text) } -> std::convertible_to<std::string>;
  { T::tile_decl(tile) } -> std::convertible_to<std::string>;
  { T::tile_load(tile, tensor, exprs) } -> std::convertible_to<std::string>;
  { T::tile_store(tile, tensor, exprs, flag) } -> std::convertible_to<std::string>;
  { T::tile_fill(tile, text) } -> std::convertible_to<std::string>;
  { T::tile_cast(tile, tile) } -> std::convertible_to<std::string>;
  { T::tile_copy(tile, tile) } -> std::convertible_to<std::string>;
  { T::tile_matmul(tile, tile, tile) } -> std::convertible_to<std::string>;
  {
    T::tile_elementwise(kernel::Op::Add, tile, tile, text, flag)
    } -> std::convertible_to<std::string>;
  { T::block_idx() } -> std::convertible_to<std::string>;
  // synchronization: before an instruction on pipe `to` that follows one on pipe `from`, and at
  // control-flow boundaries (all pipes drained); "" when the target runs in order
  { T::pipe_sync(Pipe::Mte2, Pipe::Vector) } -> std::convertible_to<std::string>;
  { T::pipe_barrier() } -> std::convertible_to<std::string>;
};

// ---- helpers the traits share --------------------------------------------------------------

/// `tpl` with {d}, {a}, {b}, {c}, {t} replaced (an instruction-table template).
inline std::string format_template(std::string_view tpl, std::string_view d, std::string_view a,
                                   std::string_view b = {}, std::string_view c = {},
                                   std::string_view t = {}) {
  std::string out;
  for (std::size_t i = 0; i < tpl.size(); ++i) {
    if (tpl[i] == '{' && i + 2 < tpl.size() && tpl[i + 2] == '}') {
      switch (tpl[i + 1]) {
        case 'd':
          out += d;
          i += 2;
          continue;
        case 'a':
          out += a;
          i += 2;
          continue;
        case 'b':
          out += b;
          i += 2;
          continue;
        case 'c':
          out += c;
          i += 2;
          continue;
        case 't':
          out += t;
          i += 2;
          continue;
        default: break;
      }
    }
    out += tpl[i];
  }
  return out;
}

/// "{a, b, c}" of C++ expressions.
inline std::string brace_list(const std::vector<std::string>& items) {
  std::string out = "{";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "}";
}

/// The rows of a tile viewed as a matrix: the product of every dim but the last ("1" for a
/// rank-1 tile); its value when every dim is constant.
inline Dim tile_rows(const TileRef& t) {
  if (t.dims.size() <= 1) return {"1", 1};
  if (t.dims.size() == 2) return t.dims[0];
  Dim d{"", std::int64_t{1}};
  for (std::size_t k = 0; k + 1 < t.dims.size(); ++k) {
    d.text += (k ? " * " : "") + std::string("(") + t.dims[k].text + ")";
    if (d.value && t.dims[k].value)
      *d.value *= *t.dims[k].value;
    else
      d.value.reset();
  }
  if (d.value) d.text = std::to_string(*d.value);
  return d;
}
inline Dim tile_cols(const TileRef& t) { return t.dims.empty() ? Dim{"1", 1} : t.dims.back(); }

/// The number of elements of a tile as a C++ expression.
inline std::string tile_size_text(const TileRef& t) {
  const Dim r = tile_rows(t), c = tile_cols(t);
  if (r.value && c.value) return std::to_string(*r.value * *c.value);
  return "(" + r.text + ") * (" + c.text + ")";
}

/// A float constant as an exact C++ literal: a hex float for finite values; `special` (a
/// target's bit-cast spelling) for infinities and NaNs, whose payload must survive.
inline std::string hex_float_literal(std::uint32_t bits, std::string_view special_prefix) {
  const float f = kernel::bits_float(bits);
  if (f != f || f - f != 0.0f) {  // NaN or infinity
    constexpr char digits[] = "0123456789abcdef";
    std::string hex = "0x";
    for (int i = 7; i >= 0; --i) hex += digits[(bits >> (4 * i)) & 15];
    return std::string(special_prefix) + "(" + hex + "u)";
  }
  // Exact: decompose into sign, integer mantissa and power of two (no locale, no printf).
  const bool negative = (bits >> 31) != 0;
  const std::uint32_t exp_bits = (bits >> 23) & 0xff;
  std::uint32_t mant = bits & 0x7fffff;
  if (exp_bits == 0 && mant == 0) return negative ? "-0.0f" : "0.0f";
  int e = 0;
  if (exp_bits == 0) {
    e = -149;  // denormal: mant * 2^-149
  } else {
    mant |= 0x800000;
    e = static_cast<int>(exp_bits) - 150;
  }
  while ((mant & 1) == 0) {
    mant >>= 1;
    ++e;
  }
  // mant * 2^e, written as a hex float: 0x<mant>p<e>f
  constexpr char digits[] = "0123456789abcdef";
  std::string hex;
  for (std::uint32_t m = mant; m != 0; m >>= 4) hex.insert(hex.begin(), digits[m & 15]);
  return std::string(negative ? "-" : "") + "0x" + hex + "p" + std::to_string(e) + "f";
}

}  // namespace pypto::codegen

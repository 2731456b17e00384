// pypto/codegen/kernel_abi.hpp — the entry convention of generated CPU kernels, shared by the
// CPU code generator (which emits `#include <pypto/codegen/kernel_abi.hpp>` into every kernel)
// and the CPU runtime (which packs the arguments). Self-contained on purpose: generated code
// includes it, and its content is part of every compilation cache key.
//
// A kernel is one shared object exporting
//     extern "C" void pypto_kernel_entry(const std::uint64_t* args);
// args holds the kernel's parameters in the task-parameter order: every tensor parameter first
// (in parameter order), as the address of a TensorArg; then every scalar parameter, as its bits
// (an integer sign- or zero-extended to 64 bits, a float's IEEE bits zero-extended). Tensor data
// is contiguous row-major with the element type of the parameter's dtype; shapes are carried so
// that a kernel with symbolic dims reads them at run time. FP16 and BF16 elements are their
// 16-bit IEEE binary16 / bfloat16 patterns; half_to_float and float_to_half below are the one
// definition of that encoding, for kernels and runtime alike (portable: no _Float16, no FP
// environment, integer arithmetic only). O(1) each. float_to_integer is likewise the one
// definition of a cast's float-to-integer rounding.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace pypto::codegen {

inline constexpr int kKernelAbiMaxRank = 8;

struct TensorArg {
  void* data;
  std::int64_t rank;
  std::int64_t shape[kKernelAbiMaxRank];
};

/// The 16-bit float formats of tensor elements: IEEE binary16 and bfloat16 (binary32's top half).
enum class HalfFormat : std::uint8_t { FP16, BF16 };

/// The binary32 value of a 16-bit pattern: exact (every FP16 and BF16 value is a float); a NaN
/// keeps its sign and payload (shifted into binary32's top payload bits).
constexpr float half_to_float(std::uint16_t bits, HalfFormat format) {
  if (format == HalfFormat::BF16) return std::bit_cast<float>(std::uint32_t{bits} << 16);
  const std::uint32_t sign = std::uint32_t{bits & 0x8000u} << 16;
  std::uint32_t exp = (bits >> 10) & 0x1fu, mant = bits & 0x3ffu;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0) return std::bit_cast<float>(sign);
    exp = 1;  // a subnormal: normalize mant * 2^-24
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --exp;
    }
    mant &= 0x3ffu;
  }
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

/// The 16-bit pattern nearest `x`, ties to even: overflow goes to infinity, tiny values to
/// subnormals or a zero of their sign. A NaN becomes the format's quiet NaN of its sign (what
/// runtime/interpreter.hpp's round_to_dtype makes), or with `keep_nan_payload` keeps its sign
/// and the top bits of its payload (a payload that would vanish becomes the quiet NaN's), so
/// that a NaN read from a 16-bit tensor is written back unchanged.
constexpr std::uint16_t float_to_half(float x, HalfFormat format, bool keep_nan_payload = false) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t a = u & 0x7fffffffu, sign = (u >> 16) & 0x8000u;
  const bool bf16 = format == HalfFormat::BF16;
  if (a > 0x7f800000u) {  // NaN
    const std::uint32_t payload = keep_nan_payload ? (a & 0x7fffffu) >> (bf16 ? 16 : 13) : 0;
    const std::uint32_t quiet = bf16 ? 0x7fc0u : 0x7e00u, inf = bf16 ? 0x7f80u : 0x7c00u;
    return static_cast<std::uint16_t>(sign | (payload != 0 ? inf | payload : quiet));
  }
  std::uint32_t h = 0, rest = 0, half_ulp = 0;
  if (bf16) {  // binary32's layout: drop 16 bits (a carry into the exponent is the next binade)
    h = a >> 16;
    rest = a & 0xffffu;
    half_ulp = 0x8000u;
  } else if (a >= 0x477ff000u) {  // at or past 65520, halfway from 65504 to 2^16: infinity
    return static_cast<std::uint16_t>(sign | 0x7c00u);
  } else if (a >= 0x38800000u) {  // normal: rebias the exponent, drop 13 bits
    h = (a >> 13) - (112u << 10);
    rest = a & 0x1fffu;
    half_ulp = 0x1000u;
  } else {  // subnormal (or zero): units of 2^-24, from the float's integer mantissa
    const std::uint32_t e = a >> 23;  // at most 112: a shift of 14 or more
    const std::uint32_t m = e == 0 ? a : (a & 0x7fffffu) | 0x800000u;
    const std::uint32_t s = 126u - (e == 0 ? 1u : e);
    if (s >= 32) return static_cast<std::uint16_t>(sign);  // under a quarter unit: zero
    h = m >> s;
    rest = m & ((1u << s) - 1u);
    half_ulp = 1u << (s - 1);
  }
  if (rest > half_ulp || (rest == half_ulp && (h & 1u) != 0)) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

/// The 8- and 4-bit float formats of tensor elements (OCP MX), each element one byte in a
/// tensor (an FP4 code in the low nibble): E4M3FN (FP8E4M3FN: bias 7, max 448, no infinity,
/// S.1111.111 the NaN), E5M2 (FP8E5M2: IEEE-like, bias 15, max 57344), E2M1 (FP4: bias 1,
/// max 6, no infinity or NaN) and E8M0 (FP8E8M0, a scale: code c is 2^(c - 127), 255 the NaN).
enum class MiniFormat : std::uint8_t { E4M3FN, E5M2, E2M1, E8M0 };

struct MiniLayout {
  int exponent_bits, mantissa_bits, bias;
  float max;  ///< the greatest finite value
};
constexpr MiniLayout mini_layout(MiniFormat f) {
  switch (f) {
    case MiniFormat::E4M3FN: return {4, 3, 7, 448.0f};
    case MiniFormat::E5M2: return {5, 2, 15, 57344.0f};
    case MiniFormat::E2M1: return {2, 1, 1, 6.0f};
    default: return {8, 0, 127, 0x1p127f};
  }
}

/// The binary32 value of a code (exact: every value of these formats is a float).
inline float mini_to_float(std::uint8_t code, MiniFormat f) {
  if (f == MiniFormat::E8M0)
    return code == 0xff ? std::numeric_limits<float>::quiet_NaN() : std::ldexp(1.0f, code - 127);
  const MiniLayout l = mini_layout(f);
  const int width = 1 + l.exponent_bits + l.mantissa_bits;
  const bool negative = ((code >> (width - 1)) & 1u) != 0;
  const unsigned exp = (code >> l.mantissa_bits) & ((1u << l.exponent_bits) - 1u);
  const unsigned mant = code & ((1u << l.mantissa_bits) - 1u);
  const unsigned top = (1u << l.exponent_bits) - 1u;
  float v = 0.0f;
  if (f == MiniFormat::E4M3FN && exp == top && mant == (1u << l.mantissa_bits) - 1u)
    v = std::numeric_limits<float>::quiet_NaN();
  else if (f == MiniFormat::E5M2 && exp == top)
    v = mant == 0 ? std::numeric_limits<float>::infinity()
                  : std::numeric_limits<float>::quiet_NaN();
  else if (exp == 0)  // subnormal: mant * 2^(1 - bias - mantissa_bits)
    v = std::ldexp(static_cast<float>(mant), 1 - l.bias - l.mantissa_bits);
  else
    v = std::ldexp(static_cast<float>((1u << l.mantissa_bits) | mant),
                   static_cast<int>(exp) - l.bias - l.mantissa_bits);
  return negative ? -v : v;
}

/// The code nearest `x`, ties to even. Past the greatest value: E4M3FN's NaN, E5M2's infinity
/// (as torch converts), E2M1 saturates; a NaN is the format's NaN (E2M1: 0). E8M0 takes the
/// power of two nearest a positive `x` (a tie to the greater), else its NaN.
inline std::uint8_t float_to_mini(float x, MiniFormat f) {
  const MiniLayout l = mini_layout(f);
  if (f == MiniFormat::E8M0) {
    if (!(x > 0.0f) || std::isinf(x)) return 0xff;
    int e = 0;
    const float m = std::frexp(x, &e);  // x = m 2^e, m in [0.5, 1)
    const int p = m >= 0.75f ? e : e - 1;
    return p < -127 ? 0 : p > 127 ? 0xff : static_cast<std::uint8_t>(p + 127);
  }
  const int width = 1 + l.exponent_bits + l.mantissa_bits;
  const auto sign = static_cast<std::uint8_t>(std::signbit(x) ? 1u << (width - 1) : 0u);
  const std::uint8_t nan = f == MiniFormat::E4M3FN ? 0x7f : f == MiniFormat::E5M2 ? 0x7e : 0;
  if (std::isnan(x)) return static_cast<std::uint8_t>(nan == 0 ? 0 : sign | nan);
  const double a = std::fabs(static_cast<double>(x));
  const int min_exp = 1 - l.bias;  // of the least normal
  int e = min_exp;
  if (a >= std::ldexp(1.0, min_exp)) {  // a in [2^e, 2^(e+1))
    std::frexp(a, &e);
    --e;
  }
  const double quantum = std::ldexp(1.0, e - l.mantissa_bits);
  const double r = std::nearbyint(a / quantum) * quantum;  // exact scaling; ties to even
  if (r > l.max) {
    if (f == MiniFormat::E4M3FN) return static_cast<std::uint8_t>(sign | 0x7f);
    if (f == MiniFormat::E5M2) return static_cast<std::uint8_t>(sign | 0x7c);
    return static_cast<std::uint8_t>(sign | 0x7);  // E2M1: 6
  }
  if (r < std::ldexp(1.0, min_exp))  // subnormal (or zero)
    return static_cast<std::uint8_t>(
        sign | static_cast<unsigned>(r / std::ldexp(1.0, min_exp - l.mantissa_bits)));
  int re = 0;
  const double rm = std::frexp(r, &re);  // r = rm 2^re, rm in [0.5, 1)
  const auto mant = static_cast<unsigned>((rm * 2.0 - 1.0) * (1u << l.mantissa_bits));
  return static_cast<std::uint8_t>(sign | ((re - 1 + l.bias) << l.mantissa_bits) | mant);
}

/// tile.cast's float element becoming an integer of `bits` bits (unsigned or not), for kernels
/// and runtime alike: rounded to an integral value as upstream's RoundMode `mode` says (0 none and
/// 5 trunc toward zero, 1 rint ties to even, 2 round ties away from zero, 3 floor, 4 ceil, 6 odd:
/// a tie to the odd neighbour, as PTO-ISA's CPU simulator), then saturated to the type's range;
/// NaN is 0. The result is the integer's two's-complement bits as an int64 (an unsigned 64-bit
/// maximum is -1). Uses the default FP environment (round to nearest) for rint.
inline std::int64_t float_to_integer(float x, int mode, unsigned bits, bool is_unsigned) {
  if (x != x) return 0;
  double v = x;
  const double floor = std::floor(v);
  switch (mode) {
    case 1: v = std::nearbyint(v); break;
    case 2: v = std::round(v); break;
    case 3: v = floor; break;
    case 4: v = std::ceil(v); break;
    case 6:
      v = v - floor != 0.5 ? std::round(v) : std::fmod(floor, 2.0) != 0.0 ? floor : floor + 1;
      break;
    default: v = std::trunc(v);
  }
  const int b = static_cast<int>(bits);
  if (is_unsigned) {
    if (v <= 0) return 0;
    return static_cast<std::int64_t>(v >= std::ldexp(1.0, b) ? ~std::uint64_t{0} >> (64 - b)
                                                             : static_cast<std::uint64_t>(v));
  }
  const std::uint64_t least = std::uint64_t{1} << (b - 1);  // -minimum, 2^(bits-1)
  if (v >= std::ldexp(1.0, b - 1)) return static_cast<std::int64_t>(least - 1);
  if (v < -std::ldexp(1.0, b - 1)) return static_cast<std::int64_t>(std::uint64_t{0} - least);
  return static_cast<std::int64_t>(v);
}

using KernelEntry = void (*)(const std::uint64_t* args);

/// The exported symbol of every generated CPU kernel. Fixed (not derived from the kernel's name)
/// so that two kernels with the same code produce byte-identical source.
inline constexpr const char* kKernelEntrySymbol = "pypto_kernel_entry";

/// Why a generated kernel stopped computing its result. A kernel never touches memory outside a
/// tensor and never divides by zero: it records the first fault of an entry call, goes on with a
/// harmless value (a box copy that would leave its tensor is skipped, an element index becomes 0,
/// a division or shift gives 0) and the runtime raises the fault after the call, so the outputs of
/// a faulted call are never used. NPU kernels have no such channel and trap.
enum class KernelFaultKind : std::int64_t {
  None = 0,
  OutOfBounds = 1,       ///< a box or element outside its tensor: dim, offset, extent, size
  DivisionByZero = 2,    ///< integer `//` or `%` by zero
  ShiftOutOfRange = 3,   ///< a shift by a negative amount or by the width or more: offset
  NegativeExponent = 4,  ///< an integer `**` with a negative exponent: offset
  InvalidOperand = 5,    ///< an operand outside the op's domain (a sort's block length): offset
  ShapeMismatch = 6,     ///< operands whose shapes do not fit together (a gather's)
  PipeFailed = 7,        ///< a pipe op or syncall the runtime refused (it says why)
  OutsideWorld = 8,      ///< a peer or root rank other than 0 in a world of one rank: offset
  WaitNeverMet = 9,      ///< a signal wait no rank can satisfy: offset (held), extent (expected)
};

struct KernelFault {
  KernelFaultKind kind = KernelFaultKind::None;
  /// The faulting expression: the kernel's code generator numbers them (kernel_source.hpp's
  /// KernelSource::fault_sites).
  std::int64_t site = -1;
  std::int64_t dim = 0, offset = 0, extent = 0, size = 0;
};

/// Optional export `extern "C" KernelFault* pypto_kernel_fault()`: the fault record of the loaded
/// kernel. A runtime clears it before an entry call and reads it after; one call at a time.
using KernelFaultRecord = KernelFault* (*)();
inline constexpr const char* kKernelFaultSymbol = "pypto_kernel_fault";

/// Optional export `extern "C" void pypto_kernel_set_block(std::int64_t, std::int64_t)`: the
/// block the next entry call runs and the launch's block count (tile.get_block_idx,
/// tile.get_block_num). A runtime calls it before every entry call; a kernel without it reads
/// neither.
using KernelSetBlock = void (*)(std::int64_t block_idx, std::int64_t block_num);
inline constexpr const char* kKernelSetBlockSymbol = "pypto_kernel_set_block";

/// A 2-D tile crossing a cross-core pipe between the members of a mixed task: its elements in
/// the encoding of a tensor of its dtype (`dtype`: the value of core::DataType), its extents and
/// its valid extents. A pop passes the extents it expects and gets the valid ones.
struct PipeTile {
  void* data;
  std::int64_t dtype;
  std::int64_t rows, cols;
  std::int64_t valid_rows, valid_cols;
};

/// The pipe operations of a kernel: `op` is a PipeOp, `id` the pipe's id. False when the
/// runtime refused (the task is stopping, or a popped tile is not the one expected): the
/// kernel records a PipeFailed fault and the runtime raises its own error.
/// SyncAll (no id, no tile) is the barrier of the blocks of a launch (system.syncall).
enum class PipeOp : std::int64_t {
  PushToAiv = 0,
  PushToAic = 1,
  PopFromAic = 2,
  PopFromAiv = 3,
  SyncAll = 4
};
using KernelPipe = bool (*)(void* context, std::int64_t op, std::int64_t id, PipeTile* tile);

/// Optional export `extern "C" void pypto_kernel_set_pipe(KernelPipe, void*)`: where the next
/// entry call sends its tpush / tpop (a runtime sets it before every call; a kernel without it
/// has no pipe op).
using KernelSetPipe = void (*)(KernelPipe pipe, void* context);
inline constexpr const char* kKernelSetPipeSymbol = "pypto_kernel_set_pipe";

/// What a kernel running on a rank of a world of several asks of the runtime: the part of a
/// distributed op (pld.*) its own memory cannot do. `site` is the op (the runtime finds the call
/// by it: KernelSource::fault_sites); `tensor` the kernel's descriptor of the window or signal it
/// names; `peer` a rank of that window's domain. A box is `offsets` and `extents` (`rank` each);
/// its elements travel as `tile` (row-major over the extents, leading ones folded into rows).
enum class WorldOp : std::int64_t {
  IsLocal = 0,     ///< value: 1 when `peer` is this rank (the kernel does the op itself), else 0
  Query = 1,       ///< value: get_comm_ctx of `tensor`, or rank / nranks of the context `value`
  Load = 2,        ///< the peer's box into the tile's valid box
  Store = 3,       ///< the tile's box into the peer's (added to it: the op's atomic=Add)
  Notify = 4,      ///< the peer's signal element at `offsets` set or increased by `value`
  Wait = 5,        ///< returns once this rank's signal at `offsets` meets `value` (the op's cmp)
  Collective = 6,  ///< the op (barrier, allreduce) over `tensor` with every rank of its domain
};
inline constexpr int kWorldMaxOperands = 6;
struct WorldCall {
  std::int64_t site;
  const TensorArg* tensor;
  std::int64_t peer;
  std::int64_t rank;
  std::int64_t offsets[kKernelAbiMaxRank], extents[kKernelAbiMaxRank];
  PipeTile tile;
  std::int64_t value;
  /// A Collective's arguments in the op's order: a tensor's descriptor, or null and a scalar.
  std::int64_t count;
  const TensorArg* operands[kWorldMaxOperands];
  std::int64_t values[kWorldMaxOperands];
};
/// False when the runtime refused (it keeps its error): the kernel records a PipeFailed fault.
/// While a Wait or a Collective lets the other ranks run, the runtime brings the kernel's tensors
/// up to date (what peers wrote into its windows).
using KernelWorld = bool (*)(void* context, std::int64_t op, WorldCall* call);

/// Optional export `extern "C" void pypto_kernel_set_world(KernelWorld, void*)`: the world the
/// next entry call runs in (a runtime sets it before every call: null in a world of one rank,
/// where a kernel's peers and roots must be rank 0, itself).
using KernelSetWorld = void (*)(KernelWorld world, void* context);
inline constexpr const char* kKernelSetWorldSymbol = "pypto_kernel_set_world";

}  // namespace pypto::codegen

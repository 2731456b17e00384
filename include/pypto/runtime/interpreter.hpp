// pypto/runtime/interpreter.hpp — the reference interpreter of the IR: the oracle that checks
// that outlining and dedup keep a program's meaning.
//
// run(program, function, args) executes one function of a Program on host values and returns
// its results. A Value is a scalar (its DataType and exact bits), a tensor or tile (a host
// Buffer: dtype, shape, contiguous row-major storage) or a tuple; tensors are passed by
// reference. Execution is sequential and deterministic, and exact: FP32 is computed in float
// with every result rounded (the op semantics of kernel/interpreter.hpp), so results are
// bit-identical to strict compiled float code; FP16 and BF16 compute in binary32 and round to
// the dtype. What it cannot execute is a RuntimeError naming the op and line:column — never a
// crash. Time is that of the program's execution; calls are limited to kMaxCallDepth.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/codegen/kernel_abi.hpp"
#include "pypto/core/config.hpp"
#include "pypto/core/dtype.hpp"
#include "pypto/core/error.hpp"

namespace pypto::ir {
struct Call;
struct Function;
struct Program;
}  // namespace pypto::ir

namespace pypto::runtime {

/// An error while executing a program: an op or construct the interpreter cannot execute, or a
/// value that violates the program's typing (out-of-bounds load, division by zero, ...).
class RuntimeError : public core::Error {
 public:
  explicit RuntimeError(const std::string& message) : core::Error(message) {}
};

inline constexpr std::size_t kMaxCallDepth = 256;

/// True for the float dtypes the interpreter executes: FP32, FP16, BF16 and the MX formats
/// FP8E4M3FN, FP8E5M2, FP8E8M0 and FP4 (kernel_abi.hpp's MiniFormat).
constexpr bool is_float_dtype(core::DataType t) {
  using D = core::DataType;
  return t == D::FP32 || t == D::FP16 || t == D::BF16 || t == D::FP8E4M3FN || t == D::FP8E5M2 ||
         t == D::FP8E8M0 || t == D::FP4;
}

/// The 8- or 4-bit float format of `t`, or nothing (kernel_abi.hpp's MiniFormat).
constexpr std::optional<codegen::MiniFormat> mini_format(core::DataType t) {
  using D = core::DataType;
  switch (t) {
    case D::FP8E4M3FN: return codegen::MiniFormat::E4M3FN;
    case D::FP8E5M2: return codegen::MiniFormat::E5M2;
    case D::FP8E8M0: return codegen::MiniFormat::E8M0;
    case D::FP4: return codegen::MiniFormat::E2M1;
    default: return std::nullopt;
  }
}

/// `x` rounded to the float dtype `t`, to nearest with ties to even (overflow to infinity,
/// gradual underflow, NaN kept as a quiet NaN of its sign; the MX formats as float_to_mini
/// says), as a float, which holds every value of those dtypes exactly. A long double holds every
/// float and 64-bit integer exactly, so converting those is one rounding; rounding a binary32
/// result of + - * / or sqrt gives the correctly rounded FP16 / BF16 result too (binary32 has more
/// than twice their precision plus two bits).
PYPTO_DECL float round_to_dtype(core::DataType t, long double x);

/// A binary32 result `v` as a value of the float dtype `t`: FP32 keeps its bits exactly (NaN
/// payloads included); FP16 / BF16 round.
inline float rounded(core::DataType t, float v) {
  return t == core::DataType::FP32 ? v : round_to_dtype(t, v);
}

/// `[2, 3]`: a shape as errors print it.
inline std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t k = 0; k < shape.size(); ++k) out += (k ? ", " : "") + std::to_string(shape[k]);
  return out + "]";
}

struct Buffer;

/// Where a view's elements live: an orchestration-level tensor.slice or reshape views the box
/// `offset` + `extent` of `parent` (the view's elements are the box's, in row-major order); a
/// pld.tensor.window views the leading bytes of a window buffer (`bytes`: `parent` is UINT8, the
/// view's elements in its tensor encoding, little-endian). A view holds a copy: a call refreshes
/// it from its parent before the callee runs and writes it back after when the callee may write
/// it (an Out / InOut parameter), the points where a device would see through it. An
/// orchestration-level tensor.transpose views its whole operand with two axes swapped (`swapped`,
/// else -1).
struct ViewOrigin {
  std::shared_ptr<Buffer> parent;
  std::vector<std::int64_t> offset, extent;
  bool bytes = false;
  std::int64_t swapped[2] = {-1, -1};
};

/// A host buffer: float elements (FP32, and FP16 / BF16 held as the floats they denote) in
/// `f32`, integer and BOOL elements in `ints` (wrapped to the dtype's width; unsigned 64-bit
/// values keep their bits). Row-major, contiguous.
struct Buffer {
  core::DataType dtype = core::DataType::FP32;
  std::vector<std::int64_t> shape;
  std::vector<float> f32;
  std::vector<std::int64_t> ints;
  /// The valid extents a load, slice or set_validshape gave it (what a fillpad keeps), which an
  /// element op's result keeps from its first operand; empty when every element is valid. Not part
  /// of the value bit_identical compares.
  std::vector<std::int64_t> valid;
  /// Set when this buffer is a view of another's storage (ViewOrigin); not part of the value.
  std::shared_ptr<const ViewOrigin> origin;

  std::size_t size() const {
    std::size_t n = 1;
    for (std::int64_t d : shape) n *= static_cast<std::size_t>(d);
    return n;
  }
};

enum class ValueKind : std::uint8_t { None, Scalar, Tensor, Tile, Tuple, Array };

struct Value {
  ValueKind kind = ValueKind::None;
  core::DataType dtype = core::DataType::BOOL;  ///< of a scalar, tensor, tile or array element
  std::int64_t i = 0;                           ///< integer, BOOL and TASK_ID scalars
  float f = 0.0f;                               ///< FP32, FP16 and BF16 scalars
  std::shared_ptr<Buffer> buffer;               ///< tensors and tiles (shared: by reference)
  std::vector<Value> elements;                  ///< tuples; arrays (scalars, by value)

  static Value scalar_int(std::int64_t v, core::DataType t = core::DataType::INDEX) {
    Value x;
    x.kind = ValueKind::Scalar;
    x.dtype = t;
    x.i = v;
    return x;
  }
  /// A float scalar of dtype `t` (FP32, FP16 or BF16), `v` rounded to it.
  static Value scalar_float(float v, core::DataType t = core::DataType::FP32) {
    Value x;
    x.kind = ValueKind::Scalar;
    x.dtype = t;
    x.f = rounded(t, v);
    return x;
  }
  static Value scalar_bool(bool v) { return scalar_int(v ? 1 : 0, core::DataType::BOOL); }
  /// The most elements one host buffer holds (an int element takes 8 bytes): a larger shape is a
  /// ValueError instead of an allocation that fails or a size that wraps.
  static constexpr std::int64_t kMaxElements = std::int64_t{1} << 30;
  /// A zero-filled tensor (or tile) of `shape`; a negative extent or more than kMaxElements
  /// elements is a ValueError.
  static Value zeros(core::DataType t, std::vector<std::int64_t> shape, bool tile = false) {
    std::int64_t n = 1;
    for (std::int64_t d : shape) {
      if (d < 0 || (d > 0 && n > kMaxElements / d))
        throw core::ValueError("cannot make a buffer of shape " + shape_text(shape) +
                               (d < 0 ? " (a negative extent)"
                                      : " (over 2^30 elements, the most a host buffer holds)"));
      n *= d;
    }
    auto b = std::make_shared<Buffer>();
    b->dtype = t;
    b->shape = std::move(shape);
    if (is_float_dtype(t))
      b->f32.assign(b->size(), 0.0f);
    else
      b->ints.assign(b->size(), 0);
    return of_buffer(std::move(b), tile);
  }
  static Value tensor_f32(std::vector<std::int64_t> shape, std::vector<float> data) {
    Value v = zeros(core::DataType::FP32, std::move(shape));
    if (data.size() != v.buffer->size())
      throw core::ValueError("tensor_f32: " + std::to_string(data.size()) +
                             " values for a shape of " + std::to_string(v.buffer->size()));
    v.buffer->f32 = std::move(data);
    return v;
  }
  static Value tensor_int(core::DataType t, std::vector<std::int64_t> shape,
                          std::vector<std::int64_t> data) {
    Value v = zeros(t, std::move(shape));
    if (data.size() != v.buffer->size())
      throw core::ValueError("tensor_int: " + std::to_string(data.size()) +
                             " values for a shape of " + std::to_string(v.buffer->size()));
    v.buffer->ints = std::move(data);
    return v;
  }
  static Value of_buffer(std::shared_ptr<Buffer> b, bool tile = false) {
    Value x;
    x.kind = tile ? ValueKind::Tile : ValueKind::Tensor;
    x.dtype = b->dtype;
    x.buffer = std::move(b);
    return x;
  }
  static Value tuple(std::vector<Value> elems) {
    Value x;
    x.kind = ValueKind::Tuple;
    x.elements = std::move(elems);
    return x;
  }

  bool is_shaped() const { return kind == ValueKind::Tensor || kind == ValueKind::Tile; }

  /// A copy that shares no storage with this value.
  Value deep_copy() const {
    Value x = *this;
    if (buffer) {
      x.buffer = std::make_shared<Buffer>(*buffer);
      x.buffer->origin = nullptr;  // a view's copy views nothing
    }
    for (auto& e : x.elements) e = e.deep_copy();
    return x;
  }
};

/// Bit equality of two values: same kind, dtype, shape and element bits (floats compared by
/// their bit patterns, so -0 != +0), where every NaN equals every NaN: IEEE 754 leaves the sign
/// and payload of an arithmetic NaN unspecified, and host compilers use that freedom (GCC
/// rewrites x / -y as -x / y), so no target can promise them (docs/runtime.md).
PYPTO_DECL bool bit_identical(const Value& a, const Value& b);

/// The bits bit_identical compares of a float: its own, or one pattern for every NaN.
inline std::uint32_t comparable_bits(float f) {
  return f != f ? 0x7fc00000u : std::bit_cast<std::uint32_t>(f);
}

/// A rank of a world, as the compiled kernels it runs reach it (program_runner.ipp): the
/// interpreter's own definitions of the distributed ops' remote halves, so a compiled rank meets
/// its peers exactly as an interpreted one does. `c` is the kernel's op (for its keywords and
/// errors); windows and signals are the kernel's arguments. wait() and collective() let the
/// other ranks run: the caller brings its memory into the arguments first and back after.
class RankPort {
 public:
  /// The rank whose kernel the calling thread runs (during a call_hook), or null.
  PYPTO_DECL static RankPort* current();

  virtual bool is_remote(const Value& window, std::int64_t peer) const = 0;
  /// Query ops (get_comm_ctx, rank, nranks) and collectives (barrier, allreduce): the op run.
  virtual Value run_op(const ir::Call& c, std::vector<Value>& args) = 0;
  virtual Value peer_read(const ir::Call& c, const Value& window, std::int64_t peer,
                          const std::vector<std::int64_t>& offsets,
                          const std::vector<std::int64_t>& extents) = 0;
  /// The peer's box at `offsets` (`box`'s shape) becomes `box`, or gains it (`c`'s atomic=Add).
  virtual void peer_store(const ir::Call& c, const Value& window, std::int64_t peer,
                          const Buffer& box, const std::vector<std::int64_t>& offsets) = 0;
  virtual void notify(const ir::Call& c, const Value& signal, std::int64_t peer,
                      const std::vector<std::int64_t>& index, std::int64_t value) = 0;
  virtual void wait(const ir::Call& c, const Value& signal, const std::vector<std::int64_t>& index,
                    std::int64_t expected) = 0;

 protected:
  ~RankPort() = default;
};

/// Options of run(). `call_hook`, when set, is consulted before the interpreter runs an InCore,
/// AIC or AIV function (a kernel): results it returns replace interpreting the body (the CPU
/// runtime dispatches kernels to compiled code this way, program_runner.hpp); nullopt interprets
/// it. `args` holds one value per parameter (omitted trailing outputs already allocated);
/// `block_idx` is the block the launch runs, of `block_num` (0 of 1 unless the call has a
/// core_num).
struct RunOptions {
  std::function<std::optional<std::vector<Value>>(const ir::Function& callee,
                                                  std::vector<Value>& args, std::int64_t block_idx,
                                                  std::int64_t block_num)>
      call_hook;
  /// A run that executes more statements than this is a RuntimeError (0: no limit), so a host
  /// running programs it did not write bounds the time a run can take.
  std::uint64_t max_statements = 0;
  /// The ranks of the world a distributed program runs in (`pld.world_size()`): with more than
  /// one, a host's `device=r` calls run on rank r, the ranks side by side, each with its own
  /// copy of every window buffer (docs/runtime.md, "Distributed programs").
  std::int64_t world_size = 1;
};

/// Runs `function` of `program` on `args` (one per parameter, in order) and returns its results
/// (one per return type). Tensor arguments are shared with the caller: writes into Out / InOut
/// parameters are visible in `args`' buffers afterwards (deep_copy() inputs to keep them).
/// Throws RuntimeError for what the interpreter cannot execute, naming the op and line:column.
/// `options.call_hook` may run kernels instead of the interpreter (see RunOptions).
///
/// A callee's tile.store / tensor.write / tensor.assemble into a parameter writes the caller's
/// storage, exactly as an Out / InOut parameter does on the device; the shape symbols of a
/// callee's parameters (M in pl.Tensor[[M, 64], ...]) are bound to the arguments' extents, so a
/// body may read them. Tiles and the results of elementwise ops are fresh buffers. Scope
/// statements run inline (an Spmd scope runs its body once per block with the block index set;
/// a split-AIV scope once per sub-block), a Group's consecutive calls of its AIC / AIV members
/// run as one mixed task (mixed_task.hpp), Calls of program functions run the callee (a Call
/// with a `core_num` attr or a Submit with `core_num` runs it once per block), and a Submit runs
/// synchronously in program order and yields its callee's results plus a fresh task id (a
/// Submit whose predicate is false runs nothing and yields the parameters its callee returns,
/// untouched). Synchronisation (system.sync_*, set_ffts) and prefetch ops are no-ops:
/// sequential execution already satisfies them. An atomic-add store adds into its destination
/// in program order.
///
/// The elementwise ops, max/min order, row reductions and matmul accumulation order are those
/// of kernel/interpreter.hpp. FP16, BF16 and MX values are held as the floats they denote; each op
/// computes in binary32 and rounds its result to the dtype (to nearest, ties to even), which is
/// the correctly rounded result for + - * / and sqrt; matmul accumulates them in FP32.
/// Elementwise ops take a scalar of the tile's dtype as second operand, or a second tile/tensor
/// broadcast into the first's shape (same rank, each dimension equal or 1: a [rows, 1] row
/// reduction against its [rows, cols] source); two of different dtypes are both converted to
/// the promoted one first (upstream's rule: a float over an integer, the wider, signed). A load or
/// slice with a valid_shape reads that leading box and zero-fills the rest of its shape. Integer
/// scalars and elements wrap to their dtype's width; `//` and `%` floor (Python semantics, as
/// upstream prints them); division by zero, shifts out of range, unsupported dtypes (HF4, HF8)
/// and ops the interpreter does not know raise RuntimeError naming the op and the statement's
/// line:column. Recursion follows the IR's nesting and call depth.
PYPTO_DECL std::vector<Value> run(const ir::Program& program, std::string_view function,
                                  std::vector<Value> args, const RunOptions& options);

/// run() with default options.
PYPTO_DECL std::vector<Value> run(const ir::Program& program, std::string_view function,
                                  std::vector<Value> args);

}  // namespace pypto::runtime

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/runtime/interpreter.ipp"
#endif

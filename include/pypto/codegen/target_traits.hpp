// pypto/codegen/target_traits.hpp — the concept every code generation target models, and the
// plain values its print functions take.
//
// A target is a class of static constexpr data and static functions — no objects, no
// registries: the target is picked at compile time, `codegen_kernel<NpuTarget>(fn)`. The traits
// hold identity (name, fingerprint), types (storage type per dtype, the rounding of a binary32
// result to each float dtype the target computes, the accumulator), register and memory limits,
// the instruction table of the kernel expression IR (one print template per kernel::Op), per-op
// float semantics, the runtime ABI vocabulary and the printing of each tile construct and of the
// synchronization between execution pipes. Everything the two targets do differently lives in
// their traits; the lowering (kernel_codegen.hpp) and the Spec emitter (spec_emitter.hpp) are
// one template each. The helpers at the end are O(length of their output).
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
#include "pypto/codegen/element_ops.hpp"
#include "pypto/codegen/kernel_op_of.hpp"
#include "pypto/codegen/runtime_abi.hpp"
#include "pypto/core/config.hpp"
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

/// The float contract a target promises for the elementwise ops: `strict` = IEEE binary32
/// round-to-nearest per op with no contraction into FMA, max/min/compare/select exactly as
/// kernel/interpreter.hpp's apply_op.
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
                                CoreType core, bool flag, std::int64_t site) {
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
  // a load or store of a box: `site` names the call in a fault (kernel_source.hpp)
  { T::tile_load(tile, tensor, exprs, site) } -> std::convertible_to<std::string>;
  // a load of the leading `valid` box (exprs) of the tile, the rest zero; "" where the target
  // cannot
  { T::tile_load_valid(tile, tensor, exprs, exprs, site) } -> std::convertible_to<std::string>;
  { T::tile_store(tile, tensor, exprs, flag, site) } -> std::convertible_to<std::string>;
  // a store of the tile's leading valid box (the second `exprs`) alone
  {
    T::tile_store_valid(tile, tensor, exprs, exprs, flag, site)
    } -> std::convertible_to<std::string>;
  // a descriptor `text` of the tensor's 2-D row-major view (leading dimensions folded); ""
  // where the target cannot
  { T::tensor_fold_2d(tensor, text) } -> std::convertible_to<std::string>;
  { T::tile_fill(tile, text) } -> std::convertible_to<std::string>;
  // `index` is the rounding mode (upstream's RoundMode number, interpreter.hpp's float_to_int)
  { T::tile_cast(tile, tile, index) } -> std::convertible_to<std::string>;
  { T::tile_copy(tile, tile) } -> std::convertible_to<std::string>;
  // the element of a tile at a flat position `text`, as an lvalue; "" where the target cannot
  { T::tile_at(tile, text) } -> std::convertible_to<std::string>;
  { T::tile_matmul(tile, tile, tile) } -> std::convertible_to<std::string>;
  // matmul_acc: `text` is the init_cond (a C++ bool); "" where the target cannot
  { T::tile_matmul_acc(tile, tile, tile, tile, text) } -> std::convertible_to<std::string>;
  // the rows of a 2-D tile as columns; "" where the target cannot
  { T::tile_transpose(tile, tile) } -> std::convertible_to<std::string>;
  // a window of a tile at `exprs` (with a valid box: the rest zero); a reshape; "" where the
  // target cannot
  { T::tile_slice(tile, tile, exprs, exprs, site) } -> std::convertible_to<std::string>;
  { T::tile_reshape(tile, tile) } -> std::convertible_to<std::string>;
  // a 2-D float tile reduced along its rows ([rows, 1]) or its columns ([1, cols]), from the first
  // element in order; "" where the target cannot
  // (with `index`: the INT32 index of the first extreme, argmax / argmin; with `tree`: a column
  // sum in the device's binary tree order, element_functions.hpp's col_sum_tree)
  {
    T::tile_reduce(tile, tile, Reduction::Sum, flag, flag, flag)
    } -> std::convertible_to<std::string>;
  // tile.tri; a source written into a tile at `exprs`; exp(a - v) of a broadcast vector; ""
  // where the target cannot
  { T::tile_triangle(tile, text, flag) } -> std::convertible_to<std::string>;
  { T::tile_assemble(tile, tile, exprs, site) } -> std::convertible_to<std::string>;
  { T::tile_expdif(tile, tile, tile) } -> std::convertible_to<std::string>;
  // a call of a function of codegen/irregular_functions.hpp (`text`: its name; `exprs`: its
  // operands: views of tiles and tensors, then scalars); "" where the target cannot
  { T::irregular_view(tile) } -> std::convertible_to<std::string>;
  { T::irregular_view(tensor) } -> std::convertible_to<std::string>;
  { T::irregular_call(text, exprs, site) } -> std::convertible_to<std::string>;
  // tile.ci: the first row `text` + k (or - k), the other rows left zero; "" where the target
  // cannot
  { T::tile_index_sequence(tile, text, flag) } -> std::convertible_to<std::string>;
  // an element op outside the kernel IR over every element (element_ops.hpp): a second
  // operand a tile (`text`[i]) or a scalar (flag), a compare's mode, the integer form's
  // expression of `x` and `y`; "" where the target cannot
  {
    T::tile_element(ElementOp::Relu, 0, tile, tile, text, flag, text)
    } -> std::convertible_to<std::string>;
  // a 2-D tile's valid box (extents `exprs`) copied, the rest the pad (`index` 0 zero, 1 least,
  // 2 greatest, 3 one); a compare's packed UINT8 mask; a select through a mask (packed: flag); a
  // [rows, 1] / [1, cols] vector repeated; a [1, N] bias added to the first `text` rows; ""
  // where the target cannot
  { T::tile_fillpad(tile, tile, exprs, index) } -> std::convertible_to<std::string>;
  { T::tile_compare_mask(tile, tile, text, flag, index) } -> std::convertible_to<std::string>;
  { T::tile_select(tile, tile, flag, tile, text, flag) } -> std::convertible_to<std::string>;
  { T::tile_broadcast(tile, tile) } -> std::convertible_to<std::string>;
  { T::tile_add_bias(tile, tile, text) } -> std::convertible_to<std::string>;
  {
    T::tile_elementwise(kernel::Op::Add, tile, tile, text, flag)
    } -> std::convertible_to<std::string>;
  { T::block_idx() } -> std::convertible_to<std::string>;
  { T::block_num() } -> std::convertible_to<std::string>;
  // synchronization: before an instruction on pipe `to` that follows one on pipe `from`, and at
  // control-flow boundaries (all pipes drained); "" when the target runs in order
  { T::pipe_sync(Pipe::Mte2, Pipe::Vector) } -> std::convertible_to<std::string>;
  { T::pipe_barrier() } -> std::convertible_to<std::string>;
  // true when the kernel runs as one in-order thread: a barrier, fence, flag or prefetch hint
  // then has nothing to order, and lowers to nothing
  { T::one_in_order_unit } -> std::convertible_to<bool>;
};

// ---- helpers the traits share --------------------------------------------------------------

/// `tpl` with {d}, {a}, {b}, {c}, {t} replaced (an instruction-table template).
PYPTO_DECL std::string format_template(std::string_view tpl, std::string_view d, std::string_view a,
                                       std::string_view b = {}, std::string_view c = {},
                                       std::string_view t = {});

/// "{a, b, c}" of C++ expressions.
PYPTO_DECL std::string brace_list(const std::vector<std::string>& items);

/// The rows of a tile viewed as a matrix: the product of every dim but the last ("1" for a
/// rank-1 tile); its value when every dim is constant.
PYPTO_DECL Dim tile_rows(const TileRef& t);
/// The columns of a tile viewed as a matrix: its last dim ("1" for a rank-0 tile).
PYPTO_DECL Dim tile_cols(const TileRef& t);

/// The number of elements of a tile as a C++ expression.
PYPTO_DECL std::string tile_size_text(const TileRef& t);

/// A float constant as an exact C++ literal: a hex float for finite values; `special` (a
/// target's bit-cast spelling) for infinities and NaNs, whose payload must survive.
PYPTO_DECL std::string hex_float_literal(std::uint32_t bits, std::string_view special_prefix);

}  // namespace pypto::codegen

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/codegen/target_traits.ipp"
#endif

// pypto/codegen/kernel_lowering_base.hpp — the state and the scalar half of kernel lowering:
// values, names, diagnostics, tile declarations and scalar expressions.
// kernel_region_lowering.hpp adds the tile-op regions on top, kernel_codegen.ipp the
// statements; the three layers are one lowering, split only to keep each file readable.
// Implementation only (all `detail`): included by kernel_codegen.ipp, never by a contract.
//
// A Value is what the generated code holds for an IR variable: a scalar's C++ expression, a
// tensor parameter's descriptor and data pointer, or a tile. Names are numbered in order of
// appearance (s<k> scalars, v<k> tiles), never taken from the IR, so alpha-equivalent kernels
// print alike. Scalar expressions become one named local per op, computed by the pk:: helpers
// (kernel_helpers.hpp) exactly as runtime/interpreter.hpp computes them. Every refusal is a
// CodegenError naming the kernel, the op and line:column. Lookups are O(1) expected; maps keyed
// by IR pointers are never iterated, so nothing observable depends on addresses.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pypto/codegen/codegen_error.hpp"
#include "pypto/codegen/core_type.hpp"
#include "pypto/codegen/kernel_abi.hpp"
#include "pypto/codegen/kernel_op_of.hpp"
#include "pypto/codegen/kernel_source.hpp"
#include "pypto/codegen/target_traits.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/kernel/spec.hpp"

namespace pypto::codegen::detail::kernel_codegen {

/// The kernel::Op of a fusible FP32 tile op, or nullopt.
inline std::optional<kernel::Op> spec_op(const ir::Call& c) {
  return op_name(c.op->id).starts_with("tile.") ? kernel_op_of(c) : std::nullopt;
}

/// A value of the kernel as the generated code holds it.
struct Value {
  enum class Kind : std::uint8_t { Scalar, Tensor, Tile, Array } kind = Kind::Scalar;
  std::string expr;         ///< a scalar's C++ expression; an array's variable
  std::int64_t extent = 0;  ///< an array's element count
  core::DataType dtype = core::DataType::INDEX;
  TensorRef tensor;
  TileRef tile;
  std::vector<std::string> valid;  ///< a tile's valid extents (C++), set by a partial load, a
                                   ///< valid slice or set_validshape; empty: every element
  std::string created_at;  ///< a kernel-local tensor's tensor.create position ("" otherwise)
  /// A window of an accumulator tile (a tile.slice of an Acc tile): what a matmul_acc writes
  /// into it, the accumulator holds too. `window_of` is empty for any other tile.
  std::optional<TileRef> window_of;
  std::vector<std::string> window_offsets;
};

template <TargetTraits T>
class LoweringBase {
 protected:
  explicit LoweringBase(const ir::Function& fn) : fn_(fn) {}

  /// The site of `e` in a fault record: numbered at first use (kernel_source.hpp).
  std::int64_t site(const ir::Expr& e) {
    auto [it, fresh] = sites_.emplace(&e, static_cast<std::int64_t>(fault_sites_.size()));
    if (fresh) {
      const auto* call = ir::as<ir::Call>(&e);
      fault_sites_.push_back(
          {call && call->op ? call->op->name : std::string(ir::kind_name(e.kind())), e.span, &e});
    }
    return it->second;
  }

  static constexpr const char* kIndent = "  ";

  // ---- diagnostics -------------------------------------------------------------------------

  [[noreturn]] void fail(const ir::Span* span, std::string_view op, const std::string& why) const {
    std::string msg;
    if (!op.empty()) msg += "op '" + std::string(op) + "' ";
    if (span && span->is_known()) msg += "at " + span->to_string() + " ";
    msg += why + " (target " + std::string(T::name) + ")";
    throw CodegenError(fn_.name, msg);
  }
  [[noreturn]] void fail_at(const ir::Call& c, const std::string& why) const {
    fail(c.span.is_known() ? &c.span : (stmt_ ? &stmt_->span : nullptr), c.op->name, why);
  }
  [[noreturn]] void fail_stmt(const std::string& what, const std::string& why) const {
    fail(stmt_ ? &stmt_->span : nullptr, "", what + " " + why);
  }

  // ---- names and text ------------------------------------------------------------------------

  std::string new_scalar_name() { return "s" + std::to_string(next_scalar_++); }
  std::string new_tile_name() { return "v" + std::to_string(next_tile_++); }
  static Value scalar_value(std::string expr, core::DataType t) {
    Value v;
    v.kind = Value::Kind::Scalar;
    v.expr = std::move(expr);
    v.dtype = t;
    return v;
  }
  /// The C++ type of a pl.Array: pk::Array, a struct around a C array, so it is copied by value
  /// as the IR's arrays are (an update gives a new array); no standard container on the device.
  std::string array_type(const ir::ArrayType& a, const ir::Span* span) const {
    return "pk::Array<" + std::string(scalar_type(a.dtype, span)) + ", " +
           std::to_string(a.extent) + ">";
  }
  std::string pad() const {
    std::string s;
    for (int k = 0; k < depth_; ++k) s += kIndent;
    return s;
  }
  /// Indents every line after the first of a multi-line snippet (the first gets the caller's).
  std::string indent_lines(const std::string& text) const {
    std::string out;
    const std::string p = pad();
    for (std::size_t i = 0; i < text.size(); ++i) {
      out += text[i];
      if (text[i] == '\n' && i + 1 < text.size()) out += p;
    }
    return out;
  }
  void line(const std::string& text) { body_ += pad() + indent_lines(text); }

  // ---- synchronization between pipes ---------------------------------------------------------

  /// Before an instruction on pipe `p`: when the previous one ran on another pipe, the target's
  /// hand-over (its output may be this one's input). Conservative and simple: every switch of
  /// pipe waits, so no dependence analysis can miss one.
  void on_pipe(Pipe p) {
    if (last_pipe_ && *last_pipe_ != p) emit(T::pipe_sync(*last_pipe_, p));
    last_pipe_ = p;
  }
  /// At a loop or if boundary: the pipes are drained, so neither the next iteration nor the code
  /// after the construct overlaps what came before (tiles are reused across iterations).
  void pipe_boundary() {
    if (last_pipe_) emit(T::pipe_barrier());
    last_pipe_.reset();
  }
  void emit(const std::string& text) {
    if (!text.empty()) line(text);
  }
  /// The pipe of a move from `src` into `dst`: into the cube's operand buffers, out of its
  /// accumulator, or on the vector unit.
  static Pipe copy_pipe(const TileRef& dst, const TileRef& src) {
    if (dst.space == ir::MemorySpace::Left || dst.space == ir::MemorySpace::Right)
      return Pipe::Mte1;
    if (src.space == ir::MemorySpace::Acc) return Pipe::Fix;
    return Pipe::Vector;
  }

  std::string_view scalar_type(core::DataType t, const ir::Span* span) const {
    const std::string_view s = T::scalar_type(t);
    if (s.empty())
      fail(span, "", "a scalar of dtype " + std::string(core::dtype_name(t)) + " has no type");
    return s;
  }
  /// True when a scalar value of half dtype `t` is held widened: as the binary32 float of its
  /// value (exact), as the target computes that dtype (round_to_dtype rounds back to it).
  static bool widened_half(core::DataType t) {
    static const bool fp16 = !T::round_to_dtype(core::DataType::FP16, "x").empty();
    static const bool bf16 = !T::round_to_dtype(core::DataType::BF16, "x").empty();
    return t == core::DataType::FP16 ? fp16 : t == core::DataType::BF16 && bf16;
  }
  /// The C++ type of a scalar value of dtype `t`: the target's scalar type, or `float` for a
  /// widened half.
  std::string_view value_type(core::DataType t, const ir::Span* span) const {
    return widened_half(t) ? std::string_view("float") : scalar_type(t, span);
  }
  /// Element `element` of dtype `t` read as a scalar value (a half widened).
  static std::string element_value(core::DataType t, std::string element) {
    return widened_half(t) ? "pk::widen(" + element + ")" : element;
  }

  // ---- uses: which region values are read after their region ------------------------------

  void count_uses() {
    ir::for_each_node(fn_.body, [this](const ir::Node& n) {
      ir::for_each_child(n, [this](const ir::NodeRef& c) {
        if (const auto* v = ir::as<ir::Var>(c.get())) ++uses_[v];
      });
    });
  }

  // ---- values --------------------------------------------------------------------------------

  const Value& lookup(const ir::Var& v) const {
    auto it = env_.find(&v);
    if (it == env_.end()) fail_stmt("variable '" + v.name_hint + "'", "is read before it is set");
    return it->second;
  }
  const Value& tensor_of(const ir::Call& c, const ir::ExprRef& e) const {
    const ir::Var* v = as_var(e);
    if (v) {
      const Value& x = lookup(*v);
      if (x.kind == Value::Kind::Tensor) return x;
    }
    fail_at(c, "needs a tensor parameter (or a store into one) here");
  }
  const Value& tile_of(const ir::Call& c, const ir::ExprRef& e) const {
    const ir::Var* v = as_var(e);
    if (v) {
      const Value& x = lookup(*v);
      if (x.kind == Value::Kind::Tile) return x;
    }
    fail_at(c, "needs a tile operand here");
  }
  std::vector<std::string> int_list(const ir::Call& c, const ir::ExprRef& e) {
    const auto* t = ir::as<ir::MakeTuple>(e.get());
    if (!t) fail_at(c, "needs a list of integers");
    std::vector<std::string> out;
    for (const auto& x : t->elements) out.push_back(scalar(*x));
    return out;
  }
  std::vector<Dim> dims_of(const ir::Call& c, const ir::ExprRef& e) {
    const auto* t = ir::as<ir::MakeTuple>(e.get());
    if (!t) fail_at(c, "needs a shape list");
    std::vector<Dim> out;
    for (const auto& x : t->elements) {
      Dim d{scalar(*x), std::nullopt};
      if (const auto* ci = ir::as<ir::ConstInt>(x.get())) {
        d.value = ci->value;
        d.text = std::to_string(ci->value);
      }
      out.push_back(std::move(d));
    }
    return out;
  }
  /// Declares a tile, checking the target's rank, dtype and memory space.
  TileRef declare_tile(const ir::Call& c, core::DataType dtype, std::optional<ir::MemorySpace> ms,
                       std::vector<Dim> dims) {
    return declare_tile_or(dtype, ms, std::move(dims),
                           [&](const std::string& why) { fail_at(c, why); });
  }
  /// A tile of a value's TileType (an if result: no op makes it, the arms' yields fill it).
  TileRef declare_tile_of(const ir::TileType& type, std::string_view what) {
    return declare_tile_or(type.dtype, type.memory_space, dims_of_type(type),
                           [&](const std::string& why) { fail_stmt(std::string(what), why); });
  }
  /// The dims of a tile type's shape.
  std::vector<Dim> dims_of_type(const ir::TileType& type) {
    std::vector<Dim> dims;
    for (const auto& x : type.shape) {
      const auto* ci = ir::as<ir::ConstInt>(x.get());
      dims.push_back(ci ? Dim{std::to_string(ci->value), ci->value}
                        : Dim{scalar(*x), std::nullopt});
    }
    return dims;
  }
  /// Declares the tile, or calls `refuse(why)` (which throws) when the target cannot hold it.
  template <class Refuse>
  TileRef declare_tile_or(core::DataType dtype, std::optional<ir::MemorySpace> ms,
                          std::vector<Dim> dims, Refuse&& refuse) {
    const ir::MemorySpace space = ms.value_or(T::default_memory(core_));
    const MemorySpaceInfo* info = T::memory_space(space);
    if (!info)
      refuse("places a tile in memory space " + std::string(ir::enum_name(space)) +
             ", which the target does not have");
    // A target whose cube core has its own default memory has no vector memory there (the AIC
    // has no UB): a Vec tile in an AIC kernel is a program for another core.
    if (core_ == CoreType::AIC && !info->cube &&
        T::default_memory(CoreType::AIC) != T::default_memory(CoreType::AIV))
      refuse("places a tile in memory space " + std::string(ir::enum_name(space)) +
             " in a cube-core (AIC) kernel, which has none; load matmul operands with "
             "target_memory=pl.Mem.Mat");
    if (dims.size() > T::max_tile_rank)
      refuse("makes a rank-" + std::to_string(dims.size()) + " tile; the target holds rank " +
             std::to_string(T::max_tile_rank) + " at most");
    if (T::element_type(dtype).empty())
      refuse("makes a tile of dtype " + std::string(core::dtype_name(dtype)) +
             ", which the target does not store");
    TileRef t{new_tile_name(), dtype, space, std::move(dims)};
    const Dim r = tile_rows(t), cl = tile_cols(t);
    if (info->capacity_bytes && r.value && cl.value) {
      const std::uint64_t bytes = static_cast<std::uint64_t>(*r.value) *
                                  static_cast<std::uint64_t>(*cl.value) *
                                  std::max<unsigned>(1, core::bit_width(dtype) / 8);
      if (bytes > info->capacity_bytes)
        refuse("makes a tile of " + std::to_string(bytes) + " bytes, over the " +
               std::to_string(info->capacity_bytes) + " bytes of " + std::string(info->name));
    }
    line(T::tile_decl(t));
    return t;
  }

  // ---- scalar expressions -------------------------------------------------------------------

  /// The C++ expression of scalar `e`; compound expressions become one named local per op.
  std::string scalar(const ir::Expr& e) {
    using K = ir::NodeKind;
    const ir::Span* span = e.span.is_known() ? &e.span : (stmt_ ? &stmt_->span : nullptr);
    switch (e.kind()) {
      case K::Var:
      case K::IterArg: {
        const Value& v = lookup(static_cast<const ir::Var&>(e));
        if (v.kind != Value::Kind::Scalar)
          fail(span, "", "a tensor or tile is used where a scalar is needed");
        return v.expr;
      }
      case K::ConstInt: {
        const auto& c = static_cast<const ir::ConstInt&>(e);
        const std::string type(scalar_type(c.dtype(), span));
        if (c.value == INT64_MIN) return "static_cast<std::int64_t>(-9223372036854775807 - 1)";
        return type + "{" + std::to_string(c.value) + "}";
      }
      case K::ConstFloat: {
        // An FP32 constant is its literal rounded once to binary32, as the interpreter rounds
        // it. An FP16 / BF16 constant that is a value of its dtype is that binary32 value (what
        // the interpreter holds for it), for the ops that widen their half operands.
        const auto& c = static_cast<const ir::ConstFloat&>(e);
        const auto f = static_cast<float>(c.value);
        const bool half = c.dtype() == core::DataType::FP16 || c.dtype() == core::DataType::BF16;
        const HalfFormat format =
            c.dtype() == core::DataType::BF16 ? HalfFormat::BF16 : HalfFormat::FP16;
        const bool exact = !half || (static_cast<double>(f) == c.value &&
                                     half_to_float(float_to_half(f, format), format) == f);
        if ((c.dtype() != core::DataType::FP32 && !half) || !exact)
          fail(span, "",
               "a " + std::string(core::dtype_name(c.dtype())) +
                   " constant is not supported (FP32, or a value of FP16 / BF16)");
        return T::float_literal(kernel::float_bits(f));
      }
      case K::ConstBool: return static_cast<const ir::ConstBool&>(e).value ? "true" : "false";
      case K::Call: return scalar_call(static_cast<const ir::Call&>(e));
      case K::Cast: {
        // A widened half is cast as the element it is, and a cast to a half is rounded to it,
        // then widened (pk::cast reads and rounds halves as the interpreter does).
        const auto& c = static_cast<const ir::Cast&>(e);
        std::string a = scalar(*c.operand);
        if (const auto* from = ir::as<ir::ScalarType>(c.operand->type.get());
            from && widened_half(from->dtype))
          a = "pk::narrow<" + std::string(T::element_type(from->dtype)) + ">(" + a + ")";
        if (widened_half(c.target()))
          return define(
              c.target(),
              "pk::widen(pk::cast<" + std::string(T::element_type(c.target())) + ">(" + a + "))",
              span);
        const std::string to(scalar_type(c.target(), span));
        return define(c.target(), "pk::cast<" + to + ">(" + a + ")", span);
      }
      default: break;
    }
    const auto* st = ir::as<ir::ScalarType>(e.type.get());
    if (!st) fail(span, "", "a " + std::string(ir::kind_name(e.kind())) + " is not a scalar");
    if (ir::kinds::binary.contains(e.kind())) {
      const auto& b = static_cast<const ir::BinaryExpr&>(e);
      const std::string l = scalar(*b.left), r = scalar(*b.right);
      const auto* lt = ir::as<ir::ScalarType>(b.left->type.get());
      if (!lt) fail(span, "", "a binary operand is not a scalar");
      if (lt->dtype != core::DataType::FP32 && !core::is_int(lt->dtype) &&
          lt->dtype != core::DataType::BOOL)
        fail(span, "",
             "scalar arithmetic on " + std::string(core::dtype_name(lt->dtype)) +
                 " is not supported");
      return define(
          st->dtype,
          binary_text(e.kind(), l, r, st->dtype, lt->dtype == core::DataType::FP32, e, span), span);
    }
    if (ir::kinds::unary.contains(e.kind())) {
      const std::string a = scalar(*static_cast<const ir::UnaryExpr&>(e).operand);
      if (std::string x = unary_text(e.kind(), a); !x.empty()) return define(st->dtype, x, span);
    }
    fail(span, "", "a " + std::string(ir::kind_name(e.kind())) + " is not supported in a kernel");
  }

  /// The C++ expression of the scalar binary node `k` over the operand texts `l` and `r` of
  /// dtype `t` (`fp`: FP32); a helper that may fault names the site of `at`.
  std::string binary_text(ir::NodeKind k, const std::string& l, const std::string& r,
                          core::DataType t, bool fp, const ir::Expr& at, const ir::Span* span) {
    using K = ir::NodeKind;
    auto call = [&](std::string_view f) {
      return "pk::" + std::string(f) + "(" + l + ", " + r + ")";
    };
    auto checked = [&](std::string_view f) {  // a helper that may fault: it names its site
      return "pk::" + std::string(f) + "(" + l + ", " + r + ", " + std::to_string(site(at)) + ")";
    };
    auto bitwise = [&](std::string_view op) {
      return "static_cast<" + std::string(scalar_type(t, span)) + ">(" + l + " " + std::string(op) +
             " " + r + ")";
    };
    switch (k) {
      case K::Add: return call("add");
      case K::Sub: return call("sub");
      case K::Mul: return call("mul");
      case K::FloatDiv:
        if (!fp) fail(span, "", "'/' on integers is not supported");
        return call("fdiv");
      case K::FloorDiv: return checked("floordiv");
      case K::FloorMod: return checked("floormod");
      case K::Min: return call("min");
      case K::Max: return call("max");
      case K::Pow: return checked("pow");
      case K::Eq: return l + " == " + r;
      case K::Ne: return l + " != " + r;
      case K::Lt: return l + " < " + r;
      case K::Le: return l + " <= " + r;
      case K::Gt: return l + " > " + r;
      case K::Ge: return l + " >= " + r;
      case K::And: return l + " && " + r;
      case K::Or: return l + " || " + r;
      case K::Xor: return l + " != " + r;
      case K::BitAnd: return bitwise("&");
      case K::BitOr: return bitwise("|");
      case K::BitXor: return bitwise("^");
      case K::BitShiftLeft: return checked("shl");
      case K::BitShiftRight: return checked("shr");
      default: break;
    }
    fail(span, "", "scalar " + std::string(ir::kind_name(k)) + " is not supported");
  }

  /// The C++ expression of the scalar unary node `k` over the operand text `a`; empty when
  /// kernels do not compute it.
  static std::string unary_text(ir::NodeKind k, const std::string& a) {
    using K = ir::NodeKind;
    switch (k) {
      case K::Neg: return "pk::neg(" + a + ")";
      case K::Abs: return "pk::abs(" + a + ")";
      case K::Not: return "!" + a;
      case K::BitNot: return "pk::bitnot(" + a + ")";
      default: return {};
    }
  }

  /// `const T s<k> = text;` and its name.
  std::string define(core::DataType t, const std::string& text, const ir::Span* span) {
    const std::string name = new_scalar_name();
    line("const " + std::string(value_type(t, span)) + " " + name + " = " + text + ";\n");
    return name;
  }

  std::string scalar_call(const ir::Call& c) {
    const ir::OpId op = c.op->id;
    if (op == ir::OpId::tensor_dim) {
      const Value& t = tensor_of(c, c.args.at(0));
      const auto* axis = ir::as<ir::ConstInt>(c.args.at(1).get());
      if (!axis) fail_at(c, "needs a constant axis");
      std::int64_t a = axis->value;
      const auto rank = static_cast<std::int64_t>(t.tensor.rank);
      if (a < 0) a += rank;
      if (a < 0 || a >= rank)
        fail_at(c, "axis " + std::to_string(axis->value) + " is out of range");
      return define(core::DataType::INDEX, t.tensor.name + "->shape[" + std::to_string(a) + "]",
                    &c.span);
    }
    if (T::one_in_order_unit &&
        (op == ir::OpId::pld_system_get_comm_ctx || op == ir::OpId::pld_system_rank ||
         op == ir::OpId::pld_system_nranks)) {  // the world's answer; alone, rank 0 of 1
      const bool ctx = op == ir::OpId::pld_system_get_comm_ctx;
      const std::string t = ctx ? tensor_of(c, c.args.at(0)).tensor.name : "nullptr";
      const std::string v = ctx || c.args.empty() ? "0" : scalar(*c.args[0]);
      on_pipe(Pipe::Scalar);
      return define(ctx ? core::DataType::INT64 : core::DataType::INT32,
                    "static_cast<" + std::string(ctx ? "std::int64_t" : "std::int32_t") +
                        ">(pk::world_query(" + t + ", " + v + ", " +
                        (op == ir::OpId::pld_system_nranks ? "1" : "0") + ", " +
                        std::to_string(site(c)) + "))",
                    &c.span);
    }
    if (op == ir::OpId::tile_get_block_idx)
      return define(core::DataType::INDEX, T::block_idx(), &c.span);
    if (op == ir::OpId::tile_get_block_num)
      return define(core::DataType::INDEX, T::block_num(), &c.span);
    // One in-order unit runs a mixed task's AIV member as one lane, a split-AIV region's lanes
    // one after the other; a pipe buffer's address means nothing there (interpreter.ipp).
    if (T::one_in_order_unit &&
        (op == ir::OpId::tile_get_subblock_idx || op == ir::OpId::tensor_get_subblock_idx))
      return define(core::DataType::INDEX, subblock_, &c.span);
    if (T::one_in_order_unit && op == ir::OpId::system_reserve_buffer)
      return define(core::DataType::INT32,
                    std::to_string(c.kwargs.get<std::int64_t>("base").value_or(0)), &c.span);
    if (T::one_in_order_unit && op == ir::OpId::system_import_peer_buffer)
      return define(core::DataType::INT32, "0", &c.span);
    if (op == ir::OpId::tensor_read) {
      const Value& t = tensor_of(c, c.args.at(0));
      const std::string at = flat_index(c, t, c.args.at(1));
      on_pipe(Pipe::Scalar);
      return define(t.tensor.dtype, element_value(t.tensor.dtype, t.tensor.data + "[" + at + "]"),
                    &c.span);
    }
    if (op == ir::OpId::array_get_element) {
      const Value& a = array_of(c, c.args.at(0));
      return define(a.dtype, a.expr + ".at[" + array_index(c, a) + "]", &c.span);
    }
    if (op == ir::OpId::tile_read) {
      const TileRef t = tile_of(c, c.args.at(0)).tile;
      const std::string element = T::tile_at(t, tile_flat_index(c, t, c.args.at(1)));
      if (element.empty()) fail_at(c, "is not supported by the kernel code generator");
      on_pipe(Pipe::Scalar);
      return define(t.dtype, element_value(t.dtype, element), &c.span);
    }
    fail_at(c, "is not supported by the kernel code generator");
  }

  /// The array operand `e` of `c`.
  const Value& array_of(const ir::Call& c, const ir::ExprRef& e) {
    const ir::Var* v = as_var(e);
    if (!v || lookup(*v).kind != Value::Kind::Array) fail_at(c, "needs a pl.Array variable");
    return lookup(*v);
  }
  /// The element position `c.args[1]` of array `a` (bounds-checked at run time).
  std::string array_index(const ir::Call& c, const Value& a) {
    const std::string i = scalar(*c.args.at(1));
    return define(core::DataType::INDEX,
                  "pk::flat(std::initializer_list<std::int64_t>{" + std::to_string(a.extent) +
                      "}.begin(), {static_cast<std::int64_t>(" + i + ")}, " +
                      std::to_string(site(c)) + ")",
                  &c.span);
  }

  /// The variable `e` is, or that stands for a hoisted call; null otherwise.
  const ir::Var* as_var(const ir::ExprRef& e) const {
    if (const auto* v = ir::as<ir::Var>(e.get())) return v;
    if (const auto* c = ir::as<ir::Call>(e.get()))
      if (auto it = synthetic_.find(c); it != synthetic_.end()) return it->second;
    return nullptr;
  }

  /// The flat element position of `indices` in tile `t` (bounds-checked at run time).
  std::string tile_flat_index(const ir::Call& c, const TileRef& t, const ir::ExprRef& indices) {
    const std::vector<std::string> idx = int_list(c, indices);
    if (idx.size() != t.dims.size()) fail_at(c, "needs one index per dimension");
    std::vector<std::string> extents;
    for (const Dim& d : t.dims) extents.push_back(d.text);
    return define(core::DataType::INDEX,
                  "pk::flat(std::initializer_list<std::int64_t>" + brace_list(extents) +
                      ".begin(), " + brace_list(idx) + ", " + std::to_string(site(c)) + ")",
                  &c.span);
  }

  /// The flat element position of `indices` in tensor `t` (bounds-checked at run time).
  std::string flat_index(const ir::Call& c, const Value& t, const ir::ExprRef& indices) {
    const std::vector<std::string> idx = int_list(c, indices);
    if (idx.size() != t.tensor.rank) fail_at(c, "needs one index per dimension");
    return define(core::DataType::INDEX,
                  "pk::flat(" + t.tensor.name + "->shape, " + brace_list(idx) + ", " +
                      std::to_string(site(c)) + ")",
                  &c.span);
  }

  const ir::Function& fn_;
  std::unordered_map<const ir::Expr*, std::int64_t> sites_;        // lookup only: never iterated
  std::vector<KernelFaultSite> fault_sites_;                       // in site order
  std::unordered_map<const ir::Call*, const ir::Var*> synthetic_;  // hoisted calls (lookup only)
  std::vector<ir::VarRef> synthetic_vars_;
  std::vector<ir::ExprRef> synthetic_calls_;       // standard ops standing for others
  std::unordered_map<const ir::Var*, Value> env_;  // lookup only: never iterated
  // the elements of a tuple-valued op's result (gather_compare's two tiles), by its variable
  std::unordered_map<const ir::Var*, std::vector<Value>> tuples_;  // lookup only
  std::unordered_map<const ir::Var*, std::size_t> uses_;           // lookup only
  const ir::Stmt* stmt_ = nullptr;
  std::string body_;
  std::optional<Pipe> last_pipe_;             ///< the pipe of the last instruction emitted, if any
  std::string subblock_ = "std::int64_t{0}";  ///< the AIV lane being lowered (C++)
  int depth_ = 1;
  std::size_t next_scalar_ = 0, next_tile_ = 0, next_local_tensor_ = 0;
  CoreType core_ = CoreType::AIV;
};

}  // namespace pypto::codegen::detail::kernel_codegen

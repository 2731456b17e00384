// pypto/codegen/kernel_region_lowering.hpp — the tile-op regions of kernel lowering: runs of
// FP32 elementwise and row-reduction tile ops lowered through the kernel expression IR. The
// middle layer of the lowering (kernel_lowering_base.hpp below, kernel_codegen.ipp above).
// Implementation only (all `detail`): included by kernel_codegen.ipp, never by a contract.
//
// Region ops are collected as the statements go by and lowered when a statement of another
// kind (or the end of a body) flushes them, so side effects keep their program order. Each
// materialized value becomes one kernel::Spec — its inlined expression DAG over input tiles,
// constants (FP32 bits) and runtime scalars — built in SSA form, canonicalized
// (kernel/canonicalize.hpp), register-allocated, validated and printed by spec_emitter.hpp.
// Equal canonical Specs with equal bindings print equal code. O(values x inlined DAG size).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pypto/codegen/kernel_lowering_base.hpp"
#include "pypto/codegen/spec_emitter.hpp"
#include "pypto/codegen/target_traits.hpp"
#include "pypto/kernel/canonicalize.hpp"
#include "pypto/kernel/regalloc.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.hpp"
#include "pypto/kernel/validate.hpp"

namespace pypto::codegen::detail::kernel_codegen {

template <TargetTraits T>
class RegionLowering : protected LoweringBase<T> {
 protected:
  using Base = LoweringBase<T>;
  // The dependent base's members, named once here (two-phase lookup would otherwise need
  // `this->` at every use).
  using Base::as_var;
  using Base::body_;
  using Base::copy_pipe;
  using Base::core_;
  using Base::count_uses;
  using Base::declare_tile;
  using Base::define;
  using Base::depth_;
  using Base::dims_of;
  using Base::env_;
  using Base::fail;
  using Base::fail_at;
  using Base::fail_stmt;
  using Base::flat_index;
  using Base::fn_;
  using Base::indent_lines;
  using Base::int_list;
  using Base::kIndent;
  using Base::last_pipe_;
  using Base::line;
  using Base::lookup;
  using Base::new_scalar_name;
  using Base::new_tile_name;
  using Base::next_local_tensor_;
  using Base::next_scalar_;
  using Base::next_tile_;
  using Base::on_pipe;
  using Base::pad;
  using Base::pipe_boundary;
  using Base::scalar;
  using Base::scalar_call;
  using Base::scalar_type;
  using Base::scalar_value;
  using Base::stmt_;
  using Base::synthetic_;
  using Base::synthetic_vars_;
  using Base::tensor_of;
  using Base::tile_of;
  using Base::uses_;
  using Base::value_type;
  using Base::widened_half;

  explicit RegionLowering(const ir::Function& fn) : Base(fn) {}

  // ---- regions of elementwise / reduction tile ops through the kernel expression IR --------
  //
  // A region is lowered value by value. Materialized are the values read after the region and
  // the inputs of reductions (a Spec reduction reads an input, never a register). Every other
  // value is inlined into the Spec of each materialized value that reaches it. A value that
  // reaches row reductions runs on the reductions' grid: a [rows, 1] value in row-vector mode
  // (the elementwise code reads ReduceResult operands and [rows, 1] tiles once per row), a
  // grid-shaped one per element, reading each reduction result along its row (the
  // norm/softmax fusion). A second operand broadcasts into the first's shape as
  // runtime/interpreter.hpp's broadcast_index does: a [.., 1] column through a ColBroadcast
  // view, a [1, cols] row through a RowBroadcast view. When the reductions reached from one
  // value have different grids, or the value has neither the grid's shape nor its column's,
  // every reduction of the region is materialized instead, each in its own Spec.

  struct Pending {
    const ir::Var* var;
    const ir::Call* call;
    const ir::Stmt* stmt;
  };

  /// The region's bookkeeping during flush.
  struct Region {
    std::vector<Pending> values;
    std::unordered_map<const ir::Var*, std::size_t> index;  // lookup only
    std::vector<bool> materialize;
    bool is_reduction(std::size_t k) const {
      return kernel::is_reduction(*spec_op(*values[k].call));
    }
  };

  void flush() {
    if (region_.empty()) return;
    Region r;
    r.values.swap(region_);
    const ir::Stmt* saved = stmt_;
    // Uses inside the region, to find the values read after it.
    std::unordered_map<const ir::Var*, std::size_t> inside;  // lookup only
    for (std::size_t k = 0; k < r.values.size(); ++k) {
      r.index[r.values[k].var] = k;
      ++inside[r.values[k].var];  // the definition
      for (const auto& a : r.values[k].call->args)
        if (const ir::Var* v = as_var(a)) ++inside[v];
    }
    r.materialize.assign(r.values.size(), false);
    for (std::size_t k = 0; k < r.values.size(); ++k) {
      const Pending& p = r.values[k];
      if (uses_[p.var] > inside[p.var]) r.materialize[k] = true;
      if (r.is_reduction(k))
        if (const ir::Var* v = as_var(p.call->args.at(0)))
          if (auto it = r.index.find(v); it != r.index.end()) r.materialize[it->second] = true;
    }
    // One grid per Spec: if some value reaches reductions over different shapes, materialize
    // every reduction (their dims are known once their inputs are: compare by text, in order).
    bool conflict = false;
    for (std::size_t k = 0; k < r.values.size() && !conflict; ++k) {
      if (!r.materialize[k]) continue;
      std::vector<std::size_t> reds;
      reductions_reached(r, k, reds);
      for (std::size_t j = 1; j < reds.size(); ++j)
        if (reduction_input(r, reds[j]) != reduction_input(r, reds[0])) conflict = true;
    }
    // A Spec that inlines reductions runs on their grid: its value is grid-shaped, or a
    // [rows, 1] column (row-vector mode); any other shape needs the reductions materialized.
    for (std::size_t k = 0; k < r.values.size() && !conflict; ++k) {
      if (!r.materialize[k] || r.is_reduction(k)) continue;
      std::vector<std::size_t> reds;
      reductions_reached(r, k, reds);
      if (reds.empty()) continue;
      const std::vector<Dim> out = value_dims(r, k);
      const std::vector<Dim>* grid = reduction_input_dims(r, reds[0]);
      if (!grid ||
          (dims_key(out) != dims_key(*grid) && dims_key(out) != dims_key(column_of(*grid))))
        conflict = true;
    }
    if (conflict)
      for (std::size_t k = 0; k < r.values.size(); ++k)
        if (r.is_reduction(k)) r.materialize[k] = true;
    for (std::size_t k = 0; k < r.values.size(); ++k) {
      if (!r.materialize[k]) continue;
      stmt_ = r.values[k].stmt;
      emit_region_value(r, k);
    }
    stmt_ = saved;
  }

  /// The region value `v` stands for, when it is one that is inlined (not materialized).
  std::optional<std::size_t> inlined(const Region& r, const ir::Var* v) const {
    auto it = r.index.find(v);
    if (it == r.index.end() || r.materialize[it->second]) return std::nullopt;
    return it->second;
  }

  /// The reductions the Spec of value k inlines (k itself included), in region order.
  void reductions_reached(const Region& r, std::size_t k, std::vector<std::size_t>& out) const {
    std::vector<std::size_t> stack{k};
    std::vector<bool> seen(r.values.size(), false);
    seen[k] = true;
    while (!stack.empty()) {
      const std::size_t j = stack.back();
      stack.pop_back();
      if (r.is_reduction(j)) {
        out.push_back(j);
        continue;  // its input is materialized
      }
      for (const auto& a : r.values[j].call->args)
        if (const auto i = inlined(r, as_var(a)); i && !seen[*i]) {
          seen[*i] = true;
          stack.push_back(*i);
        }
    }
    std::sort(out.begin(), out.end());
  }

  /// A key of the grid reduction k folds over: the region index or variable of its input.
  /// Inputs are materialized or external, so equal keys mean one tile; different tiles of equal
  /// shape also share a grid, which dims_key below decides once the tiles exist.
  std::string reduction_input(const Region& r, std::size_t k) const {
    const ir::Var* v = as_var(r.values[k].call->args.at(0));
    if (!v) return "?";
    if (auto it = r.index.find(v); it != r.index.end()) return dims_key(value_dims(r, it->second));
    auto e = env_.find(v);
    return e == env_.end() ? "?" : dims_key(e->second.tile.dims);
  }
  /// The dims of the input reduction k folds over, when it is known (external or a region
  /// value's, computed).
  const std::vector<Dim>* reduction_input_dims(const Region& r, std::size_t k) {
    const ir::Var* v = as_var(r.values[k].call->args.at(0));
    if (!v) return nullptr;
    if (auto it = r.index.find(v); it != r.index.end()) {
      dims_scratch_ = value_dims(r, it->second);
      return &dims_scratch_;
    }
    auto e = env_.find(v);
    return e == env_.end() ? nullptr : &e->second.tile.dims;
  }
  /// `dims` with its last dimension 1: the shape of a row reduction's result.
  static std::vector<Dim> column_of(std::vector<Dim> dims) {
    if (!dims.empty()) dims.back() = Dim{"1", 1};
    return dims;
  }
  static std::string dims_key(const std::vector<Dim>& dims) {
    std::string key;
    for (const Dim& d : dims) key += d.text + ";";
    return key;
  }

  /// The dims of region value k: a reduction's are [rows of its input, 1]; an elementwise
  /// value's are those of its first operand (elementwise ops keep shapes).
  std::vector<Dim> value_dims(const Region& r, std::size_t k) const {
    for (std::size_t guard = 0; guard <= r.values.size(); ++guard) {
      const ir::Call& c = *r.values[k].call;
      const ir::Var* v = as_var(c.args.at(0));
      if (!v) fail_at(c, "needs a tile as its first operand");
      std::vector<Dim> dims;
      if (auto it = r.index.find(v); it != r.index.end()) {
        if (!r.is_reduction(k)) {
          k = it->second;
          continue;
        }
        dims = value_dims(r, it->second);
      } else {
        auto e = env_.find(v);
        if (e == env_.end() || e->second.kind != Value::Kind::Tile)
          fail_at(c, "needs a tile as its first operand");
        dims = e->second.tile.dims;
      }
      if (!r.is_reduction(k)) return dims;
      if (dims.size() != 2) fail_at(c, "needs a 2-D tile");
      return {dims[0], Dim{"1", 1}};
    }
    fail_at(*r.values[k].call, "has no tile shape");
  }

  /// The valid extents region value k keeps (the interpreter's kept_valid): its first
  /// operand's, unless another tile operand has other dims or other valid extents; none for a
  /// reduction. `shaped` says whether the operand is a tile at all.
  std::vector<std::string> region_valid(const Region& r, std::size_t k, std::size_t depth = 0,
                                        bool* shaped = nullptr) const {
    if (shaped) *shaped = true;
    if (r.is_reduction(k) || depth > r.values.size()) return {};
    const ir::Call& c = *r.values[k].call;
    auto operand = [&](const ir::ExprRef& e, bool& tile) -> std::vector<std::string> {
      tile = false;
      const ir::Var* v = as_var(e);
      if (!v) return {};
      if (auto it = r.index.find(v); it != r.index.end())
        return region_valid(r, it->second, depth + 1, &tile);
      auto x = env_.find(v);
      if (x == env_.end() || x->second.kind != Value::Kind::Tile) return {};
      tile = true;
      return x->second.valid;
    };
    bool tile = false;
    const std::vector<std::string> first = operand(c.args.at(0), tile);
    const std::string dims = dims_key(value_dims(r, k));
    for (std::size_t i = 1; i < c.args.size(); ++i) {
      bool other = false;
      const std::vector<std::string> valid = operand(c.args[i], other);
      if (!other) continue;
      const ir::Var* v = as_var(c.args[i]);
      auto it = r.index.find(v);
      const std::string other_dims = it != r.index.end() ? dims_key(value_dims(r, it->second))
                                                         : dims_key(env_.at(v).tile.dims);
      if (other_dims != dims || valid != first) return {};
    }
    return first;
  }

  struct Build {
    kernel::SsaForm f;
    std::vector<const ir::Var*> input_vars;
    SpecBinding binding;
    std::unordered_map<const ir::Var*, std::uint8_t> node_of;  // lookup only
    std::vector<kernel::ViewKind> input_views;                 // per input, with input_vars
    std::vector<Dim> grid, value_dims;  // the grid, and the shape of the Spec's value
  };

  /// How an input tile of `dims` is read by the Spec of `b`: a reduction's input is the grid;
  /// an elementwise operand is broadcast into the value's shape as runtime/interpreter.hpp's
  /// broadcast_index does it (same rank, each dimension equal or 1): the value's shape itself
  /// (Linear), a [.., 1] column (ColBroadcast) or a [1, .., cols] row (RowBroadcast). In
  /// row-vector mode the value is the grid's [rows, 1] column, evaluated once per row.
  kernel::ViewKind view_of(const Build& b, const ir::Call& c, const std::vector<Dim>& dims,
                           bool reduction) const {
    const std::vector<Dim>& to = reduction ? b.grid : b.value_dims;
    auto text = [](const std::vector<Dim>& d) {
      std::string s = "[";
      for (std::size_t k = 0; k < d.size(); ++k) s += (k ? ", " : "") + d[k].text;
      return s + "]";
    };
    auto why = [&]() {
      return "reads tiles of different shapes (" + text(dims) + " and " + text(to) +
             "); there is no implicit broadcast of these shapes (a second operand " +
             "broadcasts as a [rows, 1] column or a [1, cols] row)";
    };
    if (dims.size() != to.size() || to.empty()) {
      if (dims_key(dims) != dims_key(to)) fail_at(c, why());
      return b.binding.row_vector && !reduction ? kernel::ViewKind::ColBroadcast
                                                : kernel::ViewKind::Linear;
    }
    const std::size_t last = to.size() - 1;
    bool equal = true, column = to[last].text != "1" && dims[last].text == "1",
         row = !column && dims[last].text == to[last].text;
    for (std::size_t k = 0; k < to.size(); ++k) {
      if (dims[k].text != to[k].text) equal = false;
      if (k < last && dims[k].text != to[k].text) column = false;
      if (k < last && dims[k].text != "1") row = false;
    }
    bool all_ones_before = true;
    for (std::size_t k = 0; k < last; ++k)
      if (to[k].text != "1") all_ones_before = false;
    if (all_ones_before) row = false;  // nothing broadcast down the rows: equal or refused
    if (equal)
      return b.binding.row_vector && !reduction ? kernel::ViewKind::ColBroadcast
                                                : kernel::ViewKind::Linear;
    if (reduction || b.binding.row_vector) fail_at(c, why());
    if (column) return kernel::ViewKind::ColBroadcast;
    if (row) return kernel::ViewKind::RowBroadcast;
    fail_at(c, why());
  }

  void emit_region_value(const Region& r, std::size_t k) {
    const ir::Call& c = *r.values[k].call;
    std::vector<std::size_t> reds;
    reductions_reached(r, k, reds);
    Build b;
    std::vector<Dim> grid, out_dims = value_dims(r, k);
    if (!reds.empty()) {
      const ir::Var* in = as_var(r.values[reds.front()].call->args.at(0));
      grid = env_.at(in).tile.dims;  // materialized before k, or external
      // A grid-shaped value reads the reductions per row; a [rows, 1] one is a row vector.
      b.binding.row_vector = dims_key(out_dims) != dims_key(grid);
    } else {
      grid = out_dims;
    }
    TileRef grid_tile{"", core::DataType::FP32, ir::MemorySpace::Vec, grid};
    b.binding.rows = tile_rows(grid_tile);
    b.binding.cols = tile_cols(grid_tile);
    b.grid = grid;
    b.value_dims = out_dims;
    const std::uint8_t root = node(b, r, k);
    if (r.is_reduction(k)) add_node(b, c, {kernel::Op::Mov, kernel::reduce_result(root), {}, {}});
    kernel::Spec spec;
    try {
      kernel::canonicalize(b.f);
      spec = kernel::allocate(std::move(b.f));
      kernel::validate(spec);
    } catch (const kernel::SpecError& e) {
      fail_at(c, std::string("cannot be expressed as a kernel Spec: ") + e.what());
    }
    if (spec.num_regs > T::max_spec_registers)
      fail_at(c, "needs " + std::to_string(spec.num_regs) + " Spec registers, over the target's " +
                     std::to_string(T::max_spec_registers));
    Value out;
    out.kind = Value::Kind::Tile;
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    out.tile = declare_tile(c, core::DataType::FP32, tt.memory_space, std::move(out_dims));
    b.binding.output = out.tile;
    try {
      on_pipe(Pipe::Vector);
      body_ += emit_spec<T>(spec, b.binding, pad());
    } catch (const SpecEmitError& e) {
      fail_at(c, std::string("cannot be emitted: ") + e.what());
    }
    out.valid = region_valid(r, k);
    env_[r.values[k].var] = std::move(out);
  }

  std::uint8_t add_node(Build& b, const ir::Call& c, kernel::Node n) {
    if (b.f.nodes.size() >= kernel::kMaxInstrs)
      fail_at(c, "ends a run of tile ops longer than " + std::to_string(kernel::kMaxInstrs) +
                     " Spec instructions");
    b.f.nodes.push_back(n);
    return static_cast<std::uint8_t>(b.f.nodes.size() - 1);
  }

  /// The SSA node of region value k (inlined; memoized per Spec).
  std::uint8_t node(Build& b, const Region& r, std::size_t k) {
    const Pending& p = r.values[k];
    if (auto it = b.node_of.find(p.var); it != b.node_of.end()) return it->second;
    const ir::Call& c = *p.call;
    const kernel::Op op = *spec_op(c);
    kernel::Node n{op, {}, {}, {}};
    const std::size_t arity = kernel::arity(op);
    const bool by_row = kernel::op_info(op).cls == kernel::OpClass::RowReduction;
    // a row reduction's scratch tile; rsqrt's optional one (its high-precision form) and
    // row_expand_add's (the device's workspace: the sum needs none here)
    const bool scratch_ok =
        (op == kernel::Op::Rsqrt || c.op->id == ir::OpId::tile_row_expand_add) &&
        c.args.size() == arity + 1;
    if (c.args.size() != arity + (by_row ? 1 : 0) && !scratch_ok)
      fail_at(c, "has " + std::to_string(c.args.size()) + " operands");
    if (!kernel::is_reduction(op) && arity == 2) check_broadcast(r, c);
    for (std::size_t s = 0; s < arity; ++s) n.slot(s) = operand(b, r, c, c.args[s]);
    if (kernel::is_reduction(op) && n.a.kind != kernel::OperandKind::Input)
      fail_at(c, "needs a tile operand");
    const std::uint8_t id = add_node(b, c, n);
    b.node_of[p.var] = id;
    return id;
  }

  /// The shape of tile operand `e` of a region op (a region value's or a tile's), if a tile.
  std::optional<std::vector<Dim>> operand_dims(const Region& r, const ir::ExprRef& e) const {
    const ir::Var* v = as_var(e);
    if (!v) return std::nullopt;
    if (auto it = r.index.find(v); it != r.index.end()) return value_dims(r, it->second);
    auto x = env_.find(v);
    if (x == env_.end() || x->second.kind != Value::Kind::Tile) return std::nullopt;
    return x->second.tile.dims;
  }
  /// runtime/interpreter.hpp's rule for a binary elementwise op: the result has the first
  /// operand's shape; a second tile operand has the same rank, each dimension equal or 1.
  void check_broadcast(const Region& r, const ir::Call& c) const {
    const auto a = operand_dims(r, c.args.at(0)), y = operand_dims(r, c.args.at(1));
    if (!a || !y) return;
    bool ok = a->size() == y->size();
    for (std::size_t k = 0; ok && k < a->size(); ++k)
      ok = (*y)[k].text == (*a)[k].text || (*y)[k].text == "1";
    if (ok) return;
    auto text = [](const std::vector<Dim>& d) {
      std::string s = "[";
      for (std::size_t k = 0; k < d.size(); ++k) s += (k ? ", " : "") + d[k].text;
      return s + "]";
    };
    fail_at(c, "reads tiles of different shapes (" + text(*a) + " and " + text(*y) +
                   "); there is no implicit broadcast of a second operand that is not equal or "
                   "1 in each dimension of the first");
  }

  kernel::Operand operand(Build& b, const Region& r, const ir::Call& c, const ir::ExprRef& e) {
    if (const ir::Var* v = as_var(e)) {
      if (const auto k = inlined(r, v)) {
        const std::uint8_t id = node(b, r, *k);
        return r.is_reduction(*k) ? kernel::reduce_result(id) : kernel::reg(id);
      }
      if (ir::isa<ir::TileType>(*v->type)) {
        const Value& x = lookup(*v);
        if (x.kind != Value::Kind::Tile) fail_at(c, "needs a tile operand");
        const kernel::ViewKind view =
            view_of(b, c, x.tile.dims, kernel::is_reduction(*spec_op(c)));
        for (std::size_t k = 0; k < b.input_vars.size(); ++k)
          if (b.input_vars[k] == v && b.input_views[k] == view)
            return kernel::input(static_cast<std::uint8_t>(k));
        if (b.input_vars.size() >= kernel::kMaxInputs)
          fail_at(c,
                  "reads more than " + std::to_string(kernel::kMaxInputs) + " tiles in one Spec");
        b.input_vars.push_back(v);
        b.input_views.push_back(view);
        b.binding.inputs.push_back(x.tile);
        b.f.views.push_back(kernel::View{view, 0});
        return kernel::input(static_cast<std::uint8_t>(b.input_vars.size() - 1));
      }
    }
    const auto* cf = ir::as<ir::ConstFloat>(e.get());
    const auto* ci = ir::as<ir::ConstInt>(e.get());
    if (cf || ci) {  // converted to FP32 as the interpreter converts it: one rounding
      if (cf && cf->dtype() != core::DataType::FP32) fail_at(c, "needs an FP32 scalar operand");
      const std::uint32_t bits = kernel::float_bits(cf ? static_cast<float>(cf->value)
                                                       : static_cast<float>(ci->value));
      for (std::size_t k = 0; k < b.f.consts.size(); ++k)
        if (b.f.consts[k] == bits) return kernel::constant(static_cast<std::uint8_t>(k));
      if (b.f.consts.size() >= kernel::kMaxConsts)
        fail_at(c,
                "uses more than " + std::to_string(kernel::kMaxConsts) + " constants in one Spec");
      b.f.consts.push_back(bits);
      return kernel::constant(static_cast<std::uint8_t>(b.f.consts.size() - 1));
    }
    const auto* st = ir::as<ir::ScalarType>(e->type.get());
    if (!st || (st->dtype != core::DataType::FP32 && !core::is_int(st->dtype)))
      fail_at(c, "needs FP32 tile or scalar operands");
    const std::string x = st->dtype == core::DataType::FP32 ? scalar(*e)
                                                            : "pk::cast<float>(" + scalar(*e) + ")";
    for (std::size_t k = 0; k < b.binding.runtime_scalars.size(); ++k)
      if (b.binding.runtime_scalars[k] == x)
        return kernel::runtime_scalar(static_cast<std::uint8_t>(k));
    if (b.binding.runtime_scalars.size() >= kernel::kMaxRuntimeScalars)
      fail_at(c, "uses more than " + std::to_string(kernel::kMaxRuntimeScalars) +
                     " scalars in one Spec");
    b.binding.runtime_scalars.push_back(x);
    b.f.runtime_scalars.push_back(0);  // bound at run time: never folded, not part of the key
    return kernel::runtime_scalar(static_cast<std::uint8_t>(b.binding.runtime_scalars.size() - 1));
  }

  std::vector<Pending> region_;
  std::vector<Dim> dims_scratch_;
};

}  // namespace pypto::codegen::detail::kernel_codegen

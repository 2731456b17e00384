// pypto/codegen/kernel_codegen.ipp — the definitions of codegen/kernel_codegen.hpp.
#pragma once

#include "pypto/codegen/kernel_codegen.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/codegen/codegen_error.hpp"
#include "pypto/codegen/core_type.hpp"
#include "pypto/codegen/cpu_target.hpp"
#include "pypto/codegen/kernel_lowering_base.hpp"
#include "pypto/codegen/kernel_region_lowering.hpp"
#include "pypto/codegen/kernel_source.hpp"
#include "pypto/codegen/npu_target.hpp"
#include "pypto/codegen/target_traits.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/identical.hpp"
#include "pypto/ir/ops/type_rules.hpp"
#include "pypto/ir/round_mode.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"

// codegen_kernel<T>(fn) is one template for every target; T's traits print each construct.
// Parameters are unpacked in the task-parameter order (tensors first, then scalars); symbolic
// dims of tensor parameters are read from the runtime shapes. Scalar code (integer wrap, Python
// floor division, strict FP32) becomes one named C++ local per op; loops, whiles and ifs become
// C++ control flow over carry variables that each yield assigns (a tensor carry is the tensor
// itself: stores write it in place); tile.load / tile.store / tile.full / tile.cast /
// tile.matmul, integer and FP16 / BF16 elementwise and row-reduction tile ops (one op at a
// time, each result rounded to its dtype) and tensor.read / tensor.write / tensor.dim print
// through the traits. Each maximal run of FP32 elementwise and row-reduction tile ops is a
// region lowered through the kernel expression IR (see "regions" below): one kernel::Spec per
// materialized value, canonicalized and printed by spec_emitter.hpp. Nested tile calls
// (`pl.store(pl.mul(t, 2.0), ...)`) are lowered first, as if bound to a variable.
//
// Every name is numbered in order of appearance (t<k> tensors, s<k> scalars, v<k> tiles) and the
// source holds nothing else of the function, so alpha-equivalent kernels, and kernels whose
// regions canonicalize alike, print byte-identical source. What the target cannot express —
// an op, dtype, memory space or rank it lacks, a tile over its space's capacity, pre-SSA loop
// carries, a broadcast the interpreter refuses (a second operand must be equal or 1 in each
// dimension of the first), or one no Spec view reads — is a CodegenError naming the kernel,
// the op and line:column, never partial output. O(body + region values x inlined DAG size).

namespace pypto::codegen {

namespace detail::kernel_codegen {

/// The statement layer of the lowering: parameters, statements, control flow and the tile ops
/// that are not region ops.
template <TargetTraits T>
class Lowering : protected RegionLowering<T> {
 public:
  explicit Lowering(const ir::Function& fn) : RegionLowering<T>(fn) {}

  KernelSource run() {
    KernelSource out;
    out.function_name = fn_.name;
    out.core_type = core_type_of(fn_);
    core_ = out.core_type;
    if (fn_.func_type != ir::FunctionType::InCore && fn_.func_type != ir::FunctionType::AIC &&
        fn_.func_type != ir::FunctionType::AIV)
      fail(&fn_.span, "", "is not a kernel (InCore, AIC or AIV function)");
    if (!fn_.body) fail(&fn_.span, "", "has no body (runtime-bound)");
    count_uses();
    // Task-parameter order: tensors, then scalars.
    std::string params;
    for (std::size_t k = 0; k < fn_.params.size(); ++k) {
      const ir::Var& p = *fn_.params[k];
      if (const auto* tt = ir::as<ir::TensorType>(p.type.get())) {
        const std::size_t slot = out.tensors.size();
        out.tensors.push_back({k, fn_.param_directions[k], tt->dtype});
        Value v;
        v.kind = Value::Kind::Tensor;
        v.tensor = TensorRef{"t" + std::to_string(slot), "t" + std::to_string(slot) + "d",
                             tt->dtype, tt->rank()};
        if (T::element_type(tt->dtype).empty())
          fail(&fn_.span, "",
               "parameter " + std::to_string(k) + " has dtype " +
                   std::string(core::dtype_name(tt->dtype)) + ", which the target does not store");
        params += std::string(kIndent) + indent_lines(T::tensor_param(v.tensor, slot));
        env_[&p] = std::move(v);
      }
    }
    for (std::size_t k = 0; k < fn_.params.size(); ++k) {
      const ir::Var& p = *fn_.params[k];
      if (const auto* st = ir::as<ir::ScalarType>(p.type.get())) {
        const std::size_t slot = out.tensors.size() + out.scalars.size();
        out.scalars.push_back({k, fn_.param_directions[k], st->dtype});
        if (T::scalar_type(st->dtype).empty())
          fail(&fn_.span, "",
               "scalar parameter " + std::to_string(k) + " has dtype " +
                   std::string(core::dtype_name(st->dtype)));
        const std::string name = new_scalar_name();
        params += std::string(kIndent) + T::scalar_param(name, st->dtype, slot);
        env_[&p] = scalar_value(name, st->dtype);
      } else if (!ir::isa<ir::TensorType>(*p.type)) {
        fail(&fn_.span, "", "parameter " + std::to_string(k) + " is neither a tensor nor a scalar");
      }
    }
    // Symbolic dims of tensor parameters: read from the runtime shapes.
    for (std::size_t k = 0; k < fn_.params.size(); ++k) {
      const auto* tt = ir::as<ir::TensorType>(fn_.params[k]->type.get());
      if (!tt) continue;
      const Value& tv = env_.at(fn_.params[k].get());
      for (std::size_t d = 0; d < tt->shape.size(); ++d) {
        const auto* sym = ir::as<ir::Var>(tt->shape[d].get());
        if (!sym || env_.count(sym)) continue;
        const std::string name = new_scalar_name();
        params += std::string(kIndent) + "[[maybe_unused]] const std::int64_t " + name + " = " +
                  tv.tensor.name + "->shape[" + std::to_string(d) + "];\n";
        env_[sym] = scalar_value(name, core::DataType::INDEX);
      }
    }
    body_ = params;
    depth_ = 1;
    stmt(*fn_.body);
    flush();
    out.source = T::prologue(out.core_type) + T::entry_open() + body_ + T::entry_close();
    // A call the lowering made (standing for another op) dies with it: its site keeps no
    // expression, so a site's expression is always the function's own.
    for (KernelFaultSite& site : this->fault_sites_)
      for (const ir::ExprRef& made : this->synthetic_calls_)
        if (site.expr == made.get()) site.expr = nullptr;
    out.fault_sites = std::move(this->fault_sites_);
    return out;
  }

 private:
  using Layer = RegionLowering<T>;
  // The dependent base's members, named once here (two-phase lookup would otherwise need
  // `this->` at every use).
  using Layer::as_var;
  using Layer::binary_text;
  using Layer::body_;
  using Layer::copy_pipe;
  using Layer::core_;
  using Layer::count_uses;
  using Layer::declare_tile;
  using Layer::define;
  using Layer::depth_;
  using Layer::dims_of;
  using Layer::dims_of_type;
  using Layer::env_;
  using Layer::fail;
  using Layer::fail_at;
  using Layer::fail_stmt;
  using Layer::flat_index;
  using Layer::flush;
  using Layer::fn_;
  using Layer::indent_lines;
  using Layer::int_list;
  using Layer::kIndent;
  using Layer::last_pipe_;
  using Layer::line;
  using Layer::lookup;
  using Layer::new_scalar_name;
  using Layer::new_tile_name;
  using Layer::next_local_tensor_;
  using Layer::next_scalar_;
  using Layer::next_tile_;
  using Layer::on_pipe;
  using Layer::pad;
  using Layer::pipe_boundary;
  using Layer::region_;
  using Layer::scalar;
  using Layer::scalar_call;
  using Layer::scalar_type;
  using Layer::scalar_value;
  using Layer::site;
  using Layer::stmt_;
  using Layer::subblock_;
  using Layer::synthetic_;
  using Layer::synthetic_calls_;
  using Layer::synthetic_vars_;
  using Layer::tensor_of;
  using Layer::tile_flat_index;
  using Layer::tile_of;
  using Layer::tuples_;
  using Layer::unary_text;
  using Layer::uses_;
  using Layer::value_type;
  using Layer::widened_half;
  using typename Layer::Pending;

  // ---- statements ----------------------------------------------------------------------------

  void stmt(const ir::Stmt& s) {
    using K = ir::NodeKind;
    stmt_ = &s;
    switch (s.kind()) {
      case K::SeqStmts:
        for (const auto& c : static_cast<const ir::SeqStmts&>(s).stmts) stmt(*c);
        return;
      case K::AssignStmt: return assign(static_cast<const ir::AssignStmt&>(s));
      case K::EvalStmt: {
        const auto& e = static_cast<const ir::EvalStmt&>(s);
        flush();
        const auto* c = ir::as<ir::Call>(e.expr.get());
        if (c && (c->op->id == ir::OpId::tile_store || c->op->id == ir::OpId::tensor_write)) {
          hoist_args(*c, s);
          flush();
          stmt_ = &s;
          if (c->op->id == ir::OpId::tile_store)
            store(*c);
          else
            write(*c);
          return;
        }
        // Another op as a statement (an mscatter into its tensor): its value bound to a name
        // nothing reads.
        if (c && ir::isa<ir::ShapedType>(*c->type) && !ir::isa<ir::GlobalVar>(*c->op)) {
          hoist_args(*c, s);
          ir::VarRef v = ir::Var::make("discarded", c->type);
          uses_[v.get()] = 1;
          assign_call(*v, *c, s);
          synthetic_vars_.push_back(std::move(v));
          return;
        }
        if (c && ordering_hint(*c)) return;
        if (c && T::one_in_order_unit && distributed_statement(*c, s)) return;
        if (c && T::one_in_order_unit &&
            (c->op->id == ir::OpId::tile_tpush_to_aiv ||
             c->op->id == ir::OpId::tile_tpush_to_aic)) {
          hoist_args(*c, s);
          flush();
          stmt_ = &s;
          return tpush(*c);
        }
        if (c && T::one_in_order_unit && c->op->id == ir::OpId::system_syncall) {
          flush();
          stmt_ = &s;
          return line("pk::syncall(" + std::to_string(this->site(*c)) + ");\n");
        }
        if (c) fail_at(*c, "is not supported by the kernel code generator");
        fail_stmt("an expression statement", "is not supported");
      }
      case K::ForStmt: return for_stmt(static_cast<const ir::ForStmt&>(s));
      case K::WhileStmt: return while_stmt(static_cast<const ir::WhileStmt&>(s));
      case K::IfStmt: return if_stmt(static_cast<const ir::IfStmt&>(s));
      case K::YieldStmt: return yield(static_cast<const ir::YieldStmt&>(s));
      case K::ReturnStmt: {
        flush();
        for (const auto& v : static_cast<const ir::ReturnStmt&>(s).values) {
          // `return pl.store(t, offsets, out)`: the store runs, and returns the tensor it wrote.
          const auto* c = ir::as<ir::Call>(v.get());
          if (c && c->op->id == ir::OpId::tile_store) {
            hoist_args(*c, s);
            flush();
            stmt_ = &s;
            store(*c);
          }
          const auto* var = c && c->op->id == ir::OpId::tile_store ? as_var(c->args.at(2))
                                                                   : ir::as<ir::Var>(v.get());
          if (!var || lookup(*var).kind != Value::Kind::Tensor)
            fail_stmt("a return",
                      "of a scalar or tile value is not supported (a kernel returns "
                      "the tensors it wrote)");
          if (const std::string& at = lookup(*var).created_at; !at.empty())
            fail_stmt("a return",
                      "of the kernel-local tensor made by tensor.create at " + at +
                          " is not supported (a kernel returns through its tensor parameters)");
        }
        if (depth_ > 1) {
          drain_before_jump();
          line("return;\n");
        }
        return;
      }
      case K::SplitAivScopeStmt:
        if (T::one_in_order_unit) return split_aiv(static_cast<const ir::SplitAivScopeStmt&>(s));
        break;
      case K::BreakStmt:
      case K::ContinueStmt:
        flush();
        if (!loop_carries_.empty() && loop_carries_.back())
          fail_stmt(s.kind() == K::BreakStmt ? "a break" : "a continue",
                    "in a loop with carries is not supported");
        drain_before_jump();
        line(s.kind() == K::BreakStmt ? "break;\n" : "continue;\n");
        return;
      default: break;
    }
    fail_stmt("a " + std::string(ir::kind_name(s.kind())), "is not supported in a kernel");
  }

  /// A split-AIV region on one in-order unit: its body once per lane, in lane order, with the
  /// lane a constant (as the interpreter runs it); names bound in the last lane stay visible.
  void split_aiv(const ir::SplitAivScopeStmt& sc) {
    flush();
    const std::string saved = subblock_;
    const auto* id_type = ir::as<ir::ScalarType>(sc.aiv_id->type.get());
    for (std::int64_t lane = 0; lane < sc.count; ++lane) {
      lane_ = lane;
      subblock_ = "std::int64_t{" + std::to_string(lane) + "}";
      const core::DataType t = id_type ? id_type->dtype : core::DataType::INDEX;
      env_[sc.aiv_id.get()] = scalar_value("static_cast<" + std::string(scalar_type(t, &sc.span)) +
                                               ">(" + std::to_string(lane) + ")",
                                           t);
      stmt(*sc.body);
      flush();
    }
    subblock_ = saved;
    lane_ = 0;
    gathered_.clear();
  }

  /// The split axis of a cross-core split code (1 / 3 up-down: rows, 2 / 4 left-right:
  /// columns) for a 2-D tile; 0 (no split) is nullopt.
  std::optional<std::size_t> split_axis(const ir::Call& c, const TileRef& t) {
    const std::int64_t split = c.kwargs.get<std::int64_t>("split").value_or(0);
    if (split == 0) return std::nullopt;
    if (split < 0 || split > 4 || t.dims.size() != 2)
      fail_at(c, "needs a split code of 0 to 4 and a 2-D tile");
    return split == 1 || split == 3 ? 0 : 1;
  }

  /// The lane being lowered, as a number (split_aiv sets a constant).
  std::int64_t lane_number(const ir::Call& c) const {
    if (lane_ > 1) fail_at(c, "runs in a lane other than 0 and 1");
    return lane_;
  }

  /// aiv_shard(x): the lane's part of x (interpreter.ipp's aiv_shard): a box of ceil(n / 2)
  /// from lane * stride along the split axis, zero past x's end.
  void aiv_shard(const ir::Var& var, const ir::Call& c) {
    const Value in = tile_of(c, c.args.at(0));
    const std::optional<std::size_t> axis = split_axis(c, in.tile);
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, axis ? dims_of_type(tt) : in.tile.dims);
    on_pipe(Pipe::Vector);
    if (!axis) {
      line(T::tile_copy(out.tile, in.tile));
      out.valid = in.valid;
      env_[&var] = std::move(out);
      return;
    }
    const std::optional<std::int64_t> size = in.tile.dims[*axis].value;
    if (!size) fail_at(c, "needs a static extent along the split axis");
    const std::int64_t box = (*size + 1) / 2;
    const std::int64_t given = c.kwargs.get<std::int64_t>("lane_stride").value_or(0);
    const std::int64_t stride = given > 0 ? given : box;
    if (stride > box) fail_at(c, "has a lane_stride beyond the lane's box");
    if (out.tile.dims.size() != 2 || out.tile.dims[*axis].value != box)
      fail_at(c, "has a result type that is not the lane's box");
    const std::int64_t lane = lane_number(c), from = lane * stride;
    std::vector<std::string> offsets{"0", "0"},
        copied{out.tile.dims[0].text, out.tile.dims[1].text};
    offsets[*axis] = std::to_string(from);
    copied[*axis] = std::to_string(std::max<std::int64_t>(0, std::min(box, *size - from)));
    line(T::tile_slice(out.tile, in.tile, offsets, copied, this->site(c)));
    std::vector<std::string> valid = valid_of(in, *c.args.at(0));
    if (valid.empty() && *size - from >= box) {
      env_[&var] = std::move(out);
      return;
    }
    if (valid.empty()) valid = {in.tile.dims[0].text, in.tile.dims[1].text};
    const std::string v = "static_cast<std::int64_t>(" + valid[*axis] + ")",
                      s = std::to_string(stride);
    valid[*axis] = define(core::DataType::INDEX,
                          lane == 0 ? "std::min<std::int64_t>(" + v + ", " + s + ")"
                                    : "std::min<std::int64_t>(std::max<std::int64_t>(" + v + " - " +
                                          s + ", 0), " + s + ")",
                          &c.span);
    out.valid = std::move(valid);
    env_[&var] = std::move(out);
  }

  /// aic_gather(x) in lane L of a split-AIV region: x placed as part L of one tile of twice its
  /// extent along the split axis, which lane 0 declares (zeros) and later lanes fill further.
  void aic_gather(const ir::Var& var, const ir::Call& c) {
    const Value in = tile_of(c, c.args.at(0));
    const std::optional<std::size_t> axis = split_axis(c, in.tile);
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    if (!axis) {
      Value out;
      out.kind = Value::Kind::Tile;
      out.tile = declare_tile(c, tt.dtype, tt.memory_space, in.tile.dims);
      on_pipe(Pipe::Vector);
      line(T::tile_copy(out.tile, in.tile));
      out.valid = in.valid;
      env_[&var] = std::move(out);
      return;
    }
    const std::int64_t lane = lane_number(c);
    const std::optional<std::int64_t> part = in.tile.dims[*axis].value;
    if (!part) fail_at(c, "needs a static extent along the split axis");
    auto found = gathered_.find(&c);
    if (lane == 0 || found == gathered_.end()) {
      Value merged;
      merged.kind = Value::Kind::Tile;
      merged.tile = declare_tile(c, tt.dtype, tt.memory_space, dims_of_type(tt));
      if (merged.tile.dims.size() != 2 || merged.tile.dims[*axis].value != 2 * *part)
        fail_at(c, "has a result type that is not twice its operand along the split axis");
      line(T::tile_fill(merged.tile, "0"));
      found = gathered_.insert_or_assign(&c, Gathered{std::move(merged), {}, false}).first;
    }
    Gathered& g = found->second;
    std::vector<std::string> offsets{"0", "0"};
    offsets[*axis] = std::to_string(lane * *part);
    on_pipe(Pipe::Vector);
    line(T::tile_assemble(g.tile.tile, in.tile, offsets, this->site(c)));
    std::vector<std::string> valid = valid_of(in, *c.args.at(0));
    const bool partial = !valid.empty();
    if (valid.empty()) valid = {in.tile.dims[0].text, in.tile.dims[1].text};
    if (lane == 0) {
      g.valid = std::move(valid);
    } else {
      g.valid[*axis] = define(core::DataType::INDEX,
                              "static_cast<std::int64_t>(" + g.valid[*axis] +
                                  ") + static_cast<std::int64_t>(" + valid[*axis] + ")",
                              &c.span);
    }
    g.partial_parts = (lane != 0 && g.partial_parts) || partial;
    Value out = g.tile;
    // Lane 0's part alone is a partial tile; all parts, each whole, the whole tile.
    if (lane == 0 || g.partial_parts) out.valid = g.valid;
    env_[&var] = std::move(out);
  }

  /// tpush_to_aiv / tpush_to_aic(tile): the tile and its valid box handed to the runtime's pipe.
  void tpush(const ir::Call& c) {
    const Value in = tile_of(c, c.args.at(0));
    if (in.tile.dims.size() != 2) fail_at(c, "needs a 2-D tile");
    std::vector<std::string> valid = valid_of(in, *c.args.at(0));
    if (valid.empty()) valid = {in.tile.dims[0].text, in.tile.dims[1].text};
    on_pipe(Pipe::Mte3);
    line("pk::tpush(pypto::codegen::PipeOp::" +
         std::string(c.op->id == ir::OpId::tile_tpush_to_aiv ? "PushToAiv" : "PushToAic") + ", " +
         std::to_string(c.kwargs.get<std::int64_t>("id").value_or(0)) + ", " + in.tile.name + ", " +
         std::to_string(static_cast<std::int64_t>(in.tile.dtype)) + ", " + T::extents(in.tile) +
         ", " + brace_list(valid) + ", " + std::to_string(this->site(c)) + ");\n");
  }

  /// tpop_from_aic / tpop_from_aiv: a tile of the pop's type filled from the runtime's pipe;
  /// its valid box is the one the pop's type declares, else the one it was pushed with.
  void tpop(const ir::Var& var, const ir::Call& c) {
    // Without shape keywords the pop's type is its variable's annotation.
    const auto* type = ir::as<ir::TileType>(c.type.get());
    if (!type) type = ir::as<ir::TileType>(var.type.get());
    if (!type) fail_at(c, "needs a tile type (shape and dtype keywords or an annotation)");
    const ir::TileType& tt = *type;
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, dims_of_type(tt));
    if (out.tile.dims.size() != 2) fail_at(c, "needs a 2-D tile");
    const std::string got = out.tile.name + "v";
    line("std::int64_t " + got + "[2] = {0, 0};\n");
    on_pipe(Pipe::Mte2);
    line("pk::tpop(pypto::codegen::PipeOp::" +
         std::string(c.op->id == ir::OpId::tile_tpop_from_aic ? "PopFromAic" : "PopFromAiv") +
         ", " + std::to_string(c.kwargs.get<std::int64_t>("id").value_or(0)) + ", " +
         out.tile.name + ", " + std::to_string(static_cast<std::int64_t>(tt.dtype)) + ", " +
         T::extents(out.tile) + ", " + got + ", " + std::to_string(this->site(c)) + ");\n");
    out.valid = {got + "[0]", got + "[1]"};
    if (tt.tile_view && tt.tile_view->valid_shape.size() == 2)
      out.valid = {scalar(*tt.tile_view->valid_shape[0]), scalar(*tt.tile_view->valid_shape[1])};
    env_[&var] = std::move(out);
  }

  // -- the distributed ops (docs/runtime.md "Distributed programs"): what a rank's own memory
  // holds the kernel does itself; a peer's box, signal or rendezvous it asks the runtime's world
  // for (kernel_abi.hpp's WorldOp). In a world of one rank a peer or root must be 0.

  /// A standard op standing for a distributed one on this rank's own memory; kept alive with
  /// the lowering, as the hoisted calls are.
  const ir::Call& local_call(const ir::Call& c, std::string name, std::vector<ir::ExprRef> args,
                             ir::TypeRef type = nullptr) {
    synthetic_calls_.push_back(ir::Call::make(ir::Op::make(std::move(name)), std::move(args),
                                              type ? std::move(type) : c.type, c.kwargs, {},
                                              c.span));
    return static_cast<const ir::Call&>(*synthetic_calls_.back());
  }

  /// The tile a box of this rank's tensor `src` is loaded into (the source of a put, the
  /// staging of a get). Null offsets are the origin, a null shape the whole tensor.
  const Value& staged_box(const ir::Call& c, const ir::ExprRef& src, ir::ExprRef& off,
                          ir::ExprRef& shape) {
    const auto* st = ir::as<ir::TensorType>(src->type.get());
    if (!st) fail_at(c, "needs tensors on both sides");
    if (!shape) shape = ir::MakeTuple::make(st->shape, c.span);
    const auto* box = ir::as<ir::MakeTuple>(shape.get());
    if (!box) fail_at(c, "needs a shape list");
    if (!off) off = origin(c, st->rank());
    ir::TypeRef tile = ir::TileType::make(st->dtype, box->elements, ir::MemorySpace::Vec);
    ir::VarRef staged = ir::Var::make("staged", tile);
    uses_[staged.get()] = 2;
    load(*staged, local_call(c, "tile.load", {src, off, shape}, tile));
    synthetic_vars_.push_back(std::move(staged));
    return env_.at(synthetic_vars_.back().get());
  }

  ir::ExprRef origin(const ir::Call& c, std::size_t rank) {
    return ir::MakeTuple::make(std::vector<ir::ExprRef>(rank, ir::ConstInt::make(0)), c.span);
  }

  /// Stores `staged` at `off` of this rank's tensor `dst` (adding with the call's atomic=Add).
  void store_staged(const ir::Call& c, const ir::ExprRef& dst, ir::ExprRef off) {
    const auto* dt = ir::as<ir::TensorType>(dst->type.get());
    if (!dt) fail_at(c, "needs tensors on both sides");
    if (!off) off = origin(c, dt->rank());
    store(local_call(c, "tile.store", {synthetic_vars_.back(), off, dst}, dst->type));
  }

  /// `if (peer is this rank) {`: the branch the kernel does on its own memory.
  void if_local(const ir::Call& c, const Value& window, const ir::ExprRef& peer,
                bool negate = false) {
    const std::string p = scalar(*peer);
    on_pipe(Pipe::Scalar);
    line(std::string("if (") + (negate ? "!" : "") + "pk::world_local(" + window.tensor.name +
         ", " + p + ", " + std::to_string(this->site(c)) + ")) {\n");
    ++this->depth_;
  }
  void or_else() {
    --this->depth_;
    line("} else {\n");
    ++this->depth_;
  }
  void end_if() {
    --this->depth_;
    line("}\n");
  }

  /// A box of the peer's window into `tile` (Load) or `tile` into it (Store): offsets and
  /// extents of the window's rank, the tile's rows `cols` wide.
  void world_box(const ir::Call& c, const char* op, const Value& window, const ir::ExprRef& peer,
                 const std::vector<std::string>& off, const std::vector<std::string>& ext,
                 const TileRef& tile) {
    if (off.size() != window.tensor.rank || ext.size() != window.tensor.rank)
      fail_at(c, "needs offsets and a shape of the window's rank");
    on_pipe(Pipe::Scalar);
    line("pk::world_box(pypto::codegen::WorldOp::" + std::string(op) + ", " + window.tensor.name +
         ", " + scalar(*peer) + ", " + brace_list(off) + ", " + brace_list(ext) + ", " + tile.name +
         ", " + std::to_string(static_cast<std::int64_t>(tile.dtype)) + ", " +
         tile.dims.back().text + ", " + std::to_string(this->site(c)) + ");\n");
  }

  /// The extents of a tile's valid box as a box of rank `rank` (leading ones).
  std::vector<std::string> valid_box(const Value& t, const ir::Expr& e, std::size_t rank) {
    std::vector<std::string> ext = valid_of(t, e);
    if (ext.empty())
      for (const Dim& d : t.tile.dims) ext.push_back(d.text);
    while (ext.size() < rank) ext.insert(ext.begin(), "1");
    return ext;
  }

  /// pld.tile.remote_load(window, peer, offsets, shape[, valid_shape]): this rank's box loaded,
  /// then replaced by the peer's (its valid box) when the peer is another rank.
  void remote_load(const ir::Var& var, const ir::Call& c) {
    std::vector<ir::ExprRef> args = {c.args.at(0), c.args.at(2), c.args.at(3)};
    if (c.args.size() > 4) args.push_back(c.args[4]);
    load(var, local_call(c, "tile.load", std::move(args)));
    const Value& window = tensor_of(c, c.args[0]);
    if_local(c, window, c.args[1], true);
    const Value& tile = env_.at(&var);
    const std::vector<std::string> off = int_list(c, c.args[2]);
    std::vector<std::string> ext = int_list(c, c.args[c.args.size() > 4 ? 4 : 3]);
    world_box(c, "Load", window, c.args[1], off, ext, tile.tile);
    end_if();
  }

  /// put / get (dst, peer, src[, staging tiles][, dst_offsets, src_offsets, shape]): the box
  /// staged through a tile; a put's store, a get's load goes to the peer's window.
  void put_get(const ir::Call& c) {
    const bool get = c.op->id == ir::OpId::pld_tensor_get || c.op->id == ir::OpId::pld_tile_get;
    std::size_t k = 3;
    while (k < c.args.size() && ir::isa<ir::TileType>(c.args[k]->type)) ++k;  // staging tiles
    const bool boxed = k + 3 <= c.args.size();
    ir::ExprRef dst_off = boxed ? c.args[k] : nullptr, src_off = boxed ? c.args[k + 1] : nullptr;
    ir::ExprRef shape = boxed ? c.args[k + 2] : nullptr;
    const Value staged = staged_box(c, c.args.at(2), src_off, shape);
    const std::vector<std::string> ext = int_list(c, shape);
    if (get) {  // the peer's source box replaces this rank's, then lands in dst
      const Value& window = tensor_of(c, c.args[2]);
      if_local(c, window, c.args[1], true);
      world_box(c, "Load", window, c.args[1], int_list(c, src_off), ext, staged.tile);
      end_if();
      return store_staged(c, c.args[0], dst_off);
    }
    const Value& window = tensor_of(c, c.args[0]);
    if_local(c, window, c.args[1]);
    store_staged(c, c.args[0], dst_off);
    or_else();
    if (!dst_off) dst_off = origin(c, window.tensor.rank);
    world_box(c, "Store", window, c.args[1], int_list(c, dst_off), ext, staged.tile);
    end_if();
  }

  /// The collectives: with several ranks the runtime's rendezvous (barrier, allreduce; the
  /// others are refused there), else this rank's own data is the whole collective.
  void collective(const ir::Call& c) {
    const ir::OpId id = c.op->id;
    if (c.args.size() > codegen::kWorldMaxOperands) fail_at(c, "has too many arguments");
    std::vector<std::string> operands, values;
    for (const ir::ExprRef& a : c.args) {
      const bool tensor = ir::isa<ir::TensorType>(a->type);
      operands.push_back(tensor ? tensor_of(c, a).tensor.name : "nullptr");
      values.push_back(tensor ? "0" : "static_cast<std::int64_t>(" + scalar(*a) + ")");
    }
    on_pipe(Pipe::Scalar);
    line("if (!pk::world_collective(" + brace_list(operands) + ", " + brace_list(values) + ", " +
         std::to_string(this->site(c)) + ")) {\n");
    ++this->depth_;
    if (id == ir::OpId::pld_tensor_broadcast) {  // the root (operand or keyword) must be rank 0
      const auto keyword = c.kwargs.get<std::int64_t>("root");
      const std::string r = c.args.size() > 2
                                ? scalar(*c.args[2])
                                : "std::int64_t{" + std::to_string(keyword.value_or(0)) + "}";
      line("if ((" + r + ") != 0) pk::fault(8, " + std::to_string(this->site(c)) + ", 0, (" + r +
           "), 0, 0);\n");
    } else if (id == ir::OpId::pld_tensor_all_to_all_v) {
      // input, target, signal, send_counts, recv_counts: the target's rows of the input (rank
      // 0's capacity block), and the count sent, clamped to the block, received
      const auto* t = ir::as<ir::TensorType>(c.args.at(1)->type.get());
      if (!t || t->rank() == 0) fail_at(c, "needs a target tensor");
      ir::ExprRef box = ir::MakeTuple::make(t->shape, c.span), off;
      staged_box(c, c.args.at(0), off, box);
      store_staged(c, c.args[1], nullptr);
      const Value& out = tensor_of(c, c.args[1]);
      const Value& send = tensor_of(c, c.args.at(3));
      const Value& recv = tensor_of(c, c.args.at(4));
      on_pipe(Pipe::Scalar);
      line(recv.tensor.data + "[0] = static_cast<std::int32_t>(std::min<std::int64_t>(" +
           send.tensor.data + "[0], " + out.tensor.name + "->shape[0]));\n");
    } else if (id == ir::OpId::pld_tensor_allgather || id == ir::OpId::pld_tensor_all_to_all) {
      // input, target, signal: rank 0's chunk (the whole input; all_to_all's first row) at the
      // target's origin, the interpreter's flat placement when the chunk spans whole rows
      const auto* in = ir::as<ir::TensorType>(c.args.at(0)->type.get());
      const auto* t = ir::as<ir::TensorType>(c.args.at(1)->type.get());
      if (!in || !t || in->rank() != t->rank() || in->rank() == 0)
        fail_at(c, "needs an input of the target's rank");
      for (std::size_t k = 1; k < in->rank(); ++k) {
        const auto* a = ir::as<ir::ConstInt>(in->shape[k].get());
        const auto* b = ir::as<ir::ConstInt>(t->shape[k].get());
        if (!a || !b || a->value != b->value)
          fail_at(c, "needs an input whose rows are the target's (the same trailing dims)");
      }
      std::vector<ir::ExprRef> dims = in->shape;
      if (id == ir::OpId::pld_tensor_all_to_all) dims[0] = ir::ConstInt::make(1);
      ir::ExprRef box = ir::MakeTuple::make(std::move(dims), c.span), off;
      staged_box(c, c.args[0], off, box);
      store_staged(c, c.args[1], nullptr);
    }
    end_if();
  }

  /// The signal ops, a remote store and the collectives used as statements; false for others.
  bool distributed_statement(const ir::Call& c, const ir::Stmt& s) {
    const ir::OpId id = c.op->id;
    switch (id) {
      case ir::OpId::pld_tensor_barrier:
      case ir::OpId::pld_tensor_allreduce:
      case ir::OpId::pld_tensor_reduce_scatter:
      case ir::OpId::pld_tensor_broadcast:
      case ir::OpId::pld_tile_remote_store:
      case ir::OpId::pld_tensor_remote_store:
      case ir::OpId::pld_tensor_put:
      case ir::OpId::pld_tensor_get:
      case ir::OpId::pld_tile_put:
      case ir::OpId::pld_tile_get:
      case ir::OpId::pld_tensor_allgather:
      case ir::OpId::pld_tensor_all_to_all:
      case ir::OpId::pld_tensor_all_to_all_v:
      case ir::OpId::pld_system_notify:
      case ir::OpId::pld_system_wait:
      case ir::OpId::pld_system_defer_wait: break;
      default: return false;
    }
    hoist_args(c, s);
    flush();
    stmt_ = &s;
    switch (id) {
      case ir::OpId::pld_tile_remote_store: {  // src, target, peer, offsets
        const Value& window = tensor_of(c, c.args.at(1));
        if_local(c, window, c.args.at(2));
        store(local_call(c, "tile.store", {c.args.at(0), c.args.at(3), c.args.at(1)}));
        or_else();
        const Value& src = tile_of(c, c.args[0]);
        world_box(c, "Store", window, c.args[2], int_list(c, c.args[3]),
                  valid_box(src, *c.args[0], window.tensor.rank), src.tile);
        end_if();
        return true;
      }
      case ir::OpId::pld_tensor_remote_store: {  // the source tensor, whole
        ir::ExprRef shape, off;
        const Value staged = staged_box(c, c.args.at(0), off, shape);
        const Value& window = tensor_of(c, c.args.at(1));
        if_local(c, window, c.args.at(2));
        store_staged(c, c.args[1], c.args.at(3));
        or_else();
        world_box(c, "Store", window, c.args[2], int_list(c, c.args[3]), int_list(c, shape),
                  staged.tile);
        end_if();
        return true;
      }
      case ir::OpId::pld_tensor_put:
      case ir::OpId::pld_tensor_get:
      case ir::OpId::pld_tile_put:
      case ir::OpId::pld_tile_get: put_get(c); return true;
      case ir::OpId::pld_system_notify:
      case ir::OpId::pld_system_wait:
      case ir::OpId::pld_system_defer_wait: signal(c); return true;
      default: collective(c); return true;
    }
  }

  /// notify(signal, peer, offsets, value): set or atomically add (INT32, wrapping), here or at
  /// the peer; wait(signal, offsets, expected): until the runtime's world has it met.
  void signal(const ir::Call& c) {
    const bool notify = c.op->id == ir::OpId::pld_system_notify;
    const Value& sig = tensor_of(c, c.args.at(0));
    if (core::is_float(sig.tensor.dtype)) fail_at(c, "needs an integer signal (INT32)");
    const ir::ExprRef& offsets = c.args.at(notify ? 2 : 1);
    const std::string at = flat_index(c, sig, offsets);
    const std::string cell = sig.tensor.data + "[" + at + "]";
    const std::string v = "static_cast<std::int64_t>(" + scalar(*c.args.at(notify ? 3 : 2)) + ")";
    const std::string site = std::to_string(this->site(c));
    if (notify) {
      const auto op = c.kwargs.get<ir::NotifyOp>("op");
      const std::string next =
          op && *op == ir::NotifyOp::Set ? v : "static_cast<std::int64_t>(" + cell + ") + " + v;
      if_local(c, sig, c.args.at(1));
      line(cell + " = static_cast<std::int32_t>(static_cast<std::uint32_t>(" + next + "));\n");
      or_else();
      line("pk::world_notify(" + sig.tensor.name + ", " + scalar(*c.args[1]) + ", " +
           brace_list(int_list(c, offsets)) + ", " + v + ", " + site + ");\n");
      end_if();
      return;
    }
    const auto cmp = c.kwargs.get<ir::WaitCmp>("cmp");
    const std::string met = cmp && *cmp == ir::WaitCmp::Eq ? cell + " == " + v : cell + " >= " + v;
    on_pipe(Pipe::Scalar);
    line("if (!(" + met + ")) pk::world_wait(" + sig.tensor.name + ", " +
         brace_list(int_list(c, offsets)) + ", " + cell + ", " + v + ", " + site + ");\n");
  }

  /// A jump out of the region skips the barrier at its end: drain the pipes here.
  void drain_before_jump() {
    if (last_pipe_) this->emit(T::pipe_barrier());
  }

  void assign(const ir::AssignStmt& a) {
    const ir::Var& var = *a.var;
    if (const auto* c = ir::as<ir::Call>(a.value.get())) {
      hoist_args(*c, a);
      assign_call(var, *c, a);
      return;
    }
    flush();
    stmt_ = &a;
    if (const ir::Var* v = as_var(a.value)) {
      env_[&var] = lookup(*v);  // an alias
      return;
    }
    if (const auto* g = ir::as<ir::TupleGetItem>(a.value.get())) {  // an element of a result
      const ir::Var* t = as_var(g->tuple);
      const auto it = t ? tuples_.find(t) : tuples_.end();
      if (it == tuples_.end() || g->index < 0 ||
          static_cast<std::size_t>(g->index) >= it->second.size())
        fail_stmt("an assignment", "of an element of a tuple no op of the kernel made");
      env_[&var] = it->second[static_cast<std::size_t>(g->index)];
      return;
    }
    if (!ir::isa<ir::ScalarType>(*var.type))
      fail_stmt("an assignment", "of a non-scalar value is not supported");
    const std::string x = scalar(*a.value);
    env_[&var] = scalar_value(x, scalar_dtype(var));
  }

  /// Nested tile calls (`pl.store(pl.mul(t, 2.0), ...)`) are lowered first, each bound to a
  /// fresh variable that stands for the call wherever it is an operand (as_var).
  void hoist_args(const ir::Call& c, const ir::Stmt& s) { hoist_values(c.args, s); }
  /// The tile calls among `values` (a call's arguments, a yield's values), hoisted.
  void hoist_values(const std::vector<ir::ExprRef>& values, const ir::Stmt& s) {
    for (const auto& arg : values) {
      const auto* inner = ir::as<ir::Call>(arg.get());
      if (!inner || !ir::isa<ir::ShapedType>(*inner->type) || ir::isa<ir::GlobalVar>(*inner->op))
        continue;
      hoist_args(*inner, s);
      ir::VarRef v = ir::Var::make("hoisted", inner->type);
      uses_[v.get()] = 2;  // its definition and its one use
      synthetic_[inner] = v.get();
      assign_call(*v, *inner, s);
      synthetic_vars_.push_back(std::move(v));
    }
  }

  void assign_call(const ir::Var& var, const ir::Call& c, const ir::Stmt& s) {
    if (fusible(c)) {
      region_.push_back({&var, &c, &s});
      return;
    }
    flush();
    stmt_ = &s;
    switch (c.op->id) {
      case ir::OpId::tile_load: return load(var, c);
      case ir::OpId::tile_store: env_[&var] = store(c); return;
      case ir::OpId::tile_full:
      case ir::OpId::tile_create: return full(var, c);
      case ir::OpId::tile_move: return move(var, c);
      case ir::OpId::tile_ci: return index_sequence(var, c);
      case ir::OpId::tile_slice: return slice(var, c);
      case ir::OpId::tile_reshape: return reshape(var, c);
      case ir::OpId::tile_reinterpret_view:
        if (T::one_in_order_unit) return reinterpret(var, c);
        break;
      case ir::OpId::tile_row_sum:  // not fused (see fusible): a half tile, or a valid box
      case ir::OpId::tile_row_max:
      case ir::OpId::tile_row_min:
      case ir::OpId::tile_row_prod:
      case ir::OpId::tile_col_sum:
      case ir::OpId::tile_col_max:
      case ir::OpId::tile_col_min:
      case ir::OpId::tile_col_prod:
      case ir::OpId::tile_row_argmax:
      case ir::OpId::tile_row_argmin:
      case ir::OpId::tile_col_argmax:
      case ir::OpId::tile_col_argmin: return reduce(var, c);
      case ir::OpId::tile_tri: return triangle(var, c);
      case ir::OpId::tile_gatherb:
      case ir::OpId::tile_gather:
      case ir::OpId::tile_gather_mask:
      case ir::OpId::tile_sort32:
      case ir::OpId::tile_mrgsort_format1:
      case ir::OpId::tile_mrgsort_format2:
      case ir::OpId::tile_scatter:
      case ir::OpId::tile_scatter_mask:
      case ir::OpId::tile_scatter_update:
      case ir::OpId::tile_mscatter:
      case ir::OpId::tile_mgather:
      case ir::OpId::tile_random: return irregular(var, c);
      case ir::OpId::tile_gather_compare: return gather_compare(var, c);
      case ir::OpId::tile_gather_row: return gather_row(var, c);
      case ir::OpId::tile_extract: return extract(var, c);
      case ir::OpId::tile_assemble: return assemble(var, c);
      case ir::OpId::tile_concat: return concat(var, c);
      case ir::OpId::tile_addc:
      case ir::OpId::tile_subc:
      case ir::OpId::tile_addsc:
      case ir::OpId::tile_subsc: return in_two_steps(var, c, s);
      case ir::OpId::tile_row_expand_expdif:
      case ir::OpId::tile_col_expand_expdif: return expdif(var, c);
      case ir::OpId::tile_transpose:
      case ir::OpId::tile_transpose_view: return transpose(var, c);
      case ir::OpId::tensor_create: return create(var, c);
      case ir::OpId::tensor_write: env_[&var] = write(c); return;
      case ir::OpId::tile_cast: return cast(var, c);
      case ir::OpId::tile_matmul:
      case ir::OpId::tile_matmul_acc:
      case ir::OpId::tile_matmul_bias:
      case ir::OpId::tile_gemv:
      case ir::OpId::tile_gemv_acc:
      case ir::OpId::tile_gemv_bias:
      case ir::OpId::tile_batch_matmul:
      case ir::OpId::tile_batch_matmul_acc: return matmul(var, c);
      case ir::OpId::tile_matmul_mx:
      case ir::OpId::tile_matmul_mx_acc:
      case ir::OpId::tile_matmul_mx_bias:
        if (T::one_in_order_unit) return matmul_mx(var, c);
        break;
      case ir::OpId::tile_set_validshape: return set_validshape(var, c);
      case ir::OpId::tile_aiv_shard:
        if (T::one_in_order_unit) return aiv_shard(var, c);
        break;
      case ir::OpId::tile_aic_gather:
        if (T::one_in_order_unit) return aic_gather(var, c);
        break;
      case ir::OpId::tile_tpop_from_aic:
      case ir::OpId::tile_tpop_from_aiv:
        if (T::one_in_order_unit) return tpop(var, c);
        break;
      case ir::OpId::array_create:
      case ir::OpId::array_update_element: return array(var, c);
      case ir::OpId::pld_system_get_comm_ctx:  // a handle, not a scalar type: see scalar_call
        if (T::one_in_order_unit) {
          env_[&var] = scalar_value(scalar_call(c), core::DataType::INT64);
          return;
        }
        break;
      case ir::OpId::pld_tile_remote_load:
        if (T::one_in_order_unit) return remote_load(var, c);
        break;
      case ir::OpId::pld_tensor_put:
      case ir::OpId::pld_tensor_get:
      case ir::OpId::pld_tile_put:
      case ir::OpId::pld_tile_get:
      case ir::OpId::pld_tensor_allgather:
      case ir::OpId::pld_tensor_all_to_all:
      case ir::OpId::pld_tensor_all_to_all_v:  // the tensor written is the result
      case ir::OpId::pld_tensor_barrier:
      case ir::OpId::pld_tensor_allreduce:
      case ir::OpId::pld_tensor_reduce_scatter:
      case ir::OpId::pld_tensor_broadcast:
        if (T::one_in_order_unit) {
          distributed_statement(c, s);
          const bool into_second = c.op->id == ir::OpId::pld_tensor_allgather ||
                                   c.op->id == ir::OpId::pld_tensor_all_to_all ||
                                   c.op->id == ir::OpId::pld_tensor_all_to_all_v;
          env_[&var] = tensor_of(c, c.args.at(into_second ? 1 : 0));
          return;
        }
        break;
      case ir::OpId::tile_write: {  // the element replaced in place; the tile is the result
        const Value& t = tile_of(c, c.args.at(0));
        if (core::is_float(t.tile.dtype) && t.tile.dtype != core::DataType::FP32)
          fail_at(c, "on " + dtype_text(c) + " tiles is not supported (FP32 or integer)");
        const std::string element = T::tile_at(t.tile, tile_flat_index(c, t.tile, c.args.at(1)));
        if (element.empty()) fail_at(c, "is not supported by the kernel code generator");
        const std::string v = scalar(*c.args.at(2));
        on_pipe(Pipe::Scalar);
        line(element + " = " + v + ";\n");
        env_[&var] = t;
        return;
      }
      case ir::OpId::tile_fillpad:
      case ir::OpId::tile_fillpad_inplace:
      case ir::OpId::tile_fillpad_expand: return fillpad(var, c);
      case ir::OpId::tile_cmp:
      case ir::OpId::tile_cmps: return compare_mask(var, c);
      case ir::OpId::tile_sel:
      case ir::OpId::tile_sels: return select(var, c);
      case ir::OpId::tile_expands:
      case ir::OpId::tile_row_expand:
      case ir::OpId::tile_col_expand: return expand(var, c);
      default: break;
    }
    if (ordering_hint(c)) {  // a prefetch's context, event or session: nothing to hold
      env_[&var] = scalar_value(
          c.op->id == ir::OpId::prefetch_wait ? "true" : "0",
          c.op->id == ir::OpId::prefetch_wait ? core::DataType::BOOL : core::DataType::INDEX);
      return;
    }
    if (ir::isa<ir::GlobalVar>(*c.op))
      fail_at(c, "calls another function, which a kernel cannot do");
    if (ir::isa<ir::ScalarType>(*var.type)) {
      env_[&var] = scalar_value(scalar_call(c), scalar_dtype(var));
      return;
    }
    const ir::Call& call = promoted_operands(c);
    if (const auto op = element_op_of(call.op->id)) return element_map(var, call, *op);
    if (const auto op = spec_op(call)) return elementwise(var, call, *op);
    fail_at(c, "is not supported by the kernel code generator");
  }

  /// A binary element op's two tile operands of different dtypes each cast to the promoted one
  /// first (the interpreter's promote_operands, upstream's rule), their valid boxes kept: the op
  /// on the casts; else `c` itself. A shift's amount keeps its dtype.
  const ir::Call& promoted_operands(const ir::Call& c) {
    if (c.args.size() < 2) return c;
    const auto* ta = ir::as<ir::TileType>(c.args[0]->type.get());
    const auto* tb = ir::as<ir::TileType>(c.args[1]->type.get());
    if (!ta || !tb || ta->dtype == tb->dtype) return c;
    if (const auto e = element_op_of(c.op->id)) {
      if (*e == ElementOp::Shl || *e == ElementOp::Shr || element_op_info(*e).arity != 2) return c;
    } else if (const auto op = spec_op(c); !op || kernel::arity(*op) != 2) {
      return c;
    }
    const core::DataType to = ir::ops::promote(ta->dtype, tb->dtype);
    std::vector<ir::ExprRef> args = c.args;
    for (std::size_t k = 0; k < 2; ++k) {
      const auto& t = static_cast<const ir::TileType&>(*args[k]->type);
      if (t.dtype == to) continue;
      ir::TypeRef type = ir::TileType::make(to, t.shape, t.memory_space);
      ir::VarRef v = ir::Var::make("promoted", type);
      uses_[v.get()] = 2;
      const std::vector<std::string> valid = tile_of(c, args[k]).valid;
      cast(*v, local_call(c, "tile.cast", {args[k]}, type));
      env_.at(v.get()).valid = valid;
      args[k] = v;
      synthetic_vars_.push_back(std::move(v));
    }
    return local_call(c, c.op->name, std::move(args));
  }

  /// True for a barrier, fence, flag, pipe set-up / slot release or prefetch op on a target that
  /// runs the kernel as one in-order thread, where it has nothing to order (as in the
  /// interpreter); a prefetch's wait is then already satisfied. A cross-block syncall is not one:
  /// it is the runtime's barrier of the blocks of a launch.
  static bool ordering_hint(const ir::Call& c) {
    if (!T::one_in_order_unit) return false;
    switch (c.op->id) {
      case ir::OpId::system_bar_all:
      case ir::OpId::system_bar_m:
      case ir::OpId::system_bar_v:
      case ir::OpId::system_fence:
      case ir::OpId::system_sync_src:
      case ir::OpId::system_sync_dst:
      case ir::OpId::system_sync_set:
      case ir::OpId::system_sync_wait:
      case ir::OpId::system_set_ffts:
      case ir::OpId::system_cacheinvalid:
      case ir::OpId::system_aic_initialize_pipe:  // a pipe needs no set-up or slot release there
      case ir::OpId::system_aiv_initialize_pipe:
      case ir::OpId::system_tfree_to_aic:
      case ir::OpId::system_tfree_to_aiv:
      case ir::OpId::prefetch_make_context:
      case ir::OpId::prefetch_async_prefetch:
      case ir::OpId::prefetch_session:
      case ir::OpId::prefetch_wait: return true;
      default: return false;
    }
  }

  /// array.create (every element 0) and array.update_element (a copy with one element set).
  void array(const ir::Var& var, const ir::Call& c) {
    const auto* type = ir::as<ir::ArrayType>(var.type.get());
    if (!type) fail_at(c, "needs a pl.Array result");
    if (c.op->id == ir::OpId::array_create) {
      env_[&var] = declare_array(*type, "", &c.span);
      return;
    }
    const Value& in = this->array_of(c, c.args.at(0));
    const std::string at = this->array_index(c, in);
    const std::string v = scalar(*c.args.at(2));
    Value out = declare_array(*type, in.expr, &c.span);
    line(out.expr + ".at[" + at + "] = pk::cast<" + std::string(scalar_type(type->dtype, &c.span)) +
         ">(" + v + ");\n");
    env_[&var] = std::move(out);
  }

  /// A new array variable of `type`: a copy of the array `init` names, or all zeros.
  Value declare_array(const ir::ArrayType& type, const std::string& init, const ir::Span* span) {
    Value out;
    out.kind = Value::Kind::Array;
    out.dtype = type.dtype;
    out.extent = type.extent;
    out.expr = new_scalar_name();
    line(this->array_type(type, span) + " " + out.expr + (init.empty() ? "{}" : " = " + init) +
         ";\n");
    return out;
  }

  /// A call's second operand beside its first tile `a`: a tile of a's dtype and shape (its
  /// name) or a scalar (its expression).
  struct SecondOperand {
    std::string text;
    bool scalar = false;
  };
  SecondOperand second_operand(const ir::Call& c, const TileRef& a) {
    const ir::ExprRef& rhs = c.args.at(1);
    if (!ir::isa<ir::TileType>(*rhs->type)) return {scalar(*rhs), true};
    const TileRef& b = tile_of(c, rhs).tile;
    if (b.dtype != a.dtype || !same_dims(b.dims, a.dims))
      fail_at(c, "needs a second tile of the first's dtype and shape");
    return {b.name, false};
  }

  /// An element op outside the kernel IR (element_ops.hpp), one loop over the elements: a float
  /// tile calls its function of element_functions.hpp and rounds to the dtype, an integer tile
  /// computes its scalar node (binary_text / unary_text), as the interpreter does. A second
  /// operand is a tile of the first's dtype and shape or a scalar.
  void element_map(const ir::Var& var, const ir::Call& c, ElementOp op) {
    const auto* tt = ir::as<ir::TileType>(c.type.get());
    if (!tt) fail_at(c, "needs tile operands");
    const ElementOpInfo info = element_op_info(op);
    const TileRef a = tile_of(c, c.args.at(0)).tile;
    if (a.dtype != tt->dtype) fail_at(c, "needs operands of one dtype");
    const bool is_float = core::is_float(a.dtype);
    if (is_float ? info.name.empty() : !info.on_int)
      fail_at(c, "on " + dtype_text(c) + " tiles is not supported");
    const SecondOperand b = info.arity == 2 ? second_operand(c, a) : SecondOperand{};
    std::string int_expr;
    if (!is_float)
      int_expr = info.arity == 1 ? unary_text(*info.on_int, "x")
                                 : binary_text(*info.on_int, "x", "y", a.dtype, false, c, &c.span);
    const int mode = static_cast<int>(c.kwargs.get<std::int64_t>("cmp_type").value_or(0));
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt->dtype, tt->memory_space, a.dims);
    on_pipe(Pipe::Vector);
    const std::string code = T::tile_element(op, mode, out.tile, a, b.text, b.scalar, int_expr);
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    out.valid = kept_valid(c);
    env_[&var] = std::move(out);
  }

  /// The valid extents an element op's result keeps (the interpreter's kept_valid): its first
  /// operand's, unless another tile operand has other dims or other valid extents.
  std::vector<std::string> kept_valid(const ir::Call& c) {
    const Value& a = tile_of(c, c.args.at(0));
    for (std::size_t i = 1; i < c.args.size(); ++i) {
      if (!ir::isa<ir::TileType>(*c.args[i]->type)) continue;
      const Value& b = tile_of(c, c.args[i]);
      if (!same_dims(b.tile.dims, a.tile.dims) || b.valid != a.valid) return {};
    }
    return a.valid;
  }

  /// A tile op outside the kernel expression IR, one target instruction over every element:
  /// on integer tiles add, sub, mul, max, min with a tile or scalar second operand, neg, abs
  /// (the IR is FP32 only); on float tiles of a dtype the target computes by rounding binary32
  /// results (T::round_to_dtype: FP16 / BF16 on the CPU), every region op, a second operand
  /// being a tile of the same dtype (see fusible). A second tile has the first's shape.
  void elementwise(const ir::Var& var, const ir::Call& c, kernel::Op op) {
    const auto* tt = ir::as<ir::TileType>(c.type.get());
    const bool integer = tt && core::is_int(tt->dtype);
    const bool rounded =
        tt && core::is_float(tt->dtype) && !T::round_to_dtype(tt->dtype, "x").empty();
    const bool integer_op = op == kernel::Op::Add || op == kernel::Op::Sub ||
                            op == kernel::Op::Mul || op == kernel::Op::Max ||
                            op == kernel::Op::Min || op == kernel::Op::Neg || op == kernel::Op::Abs;
    if (!(integer ? integer_op : rounded))
      fail_at(c, "on " + dtype_text(c) + " tiles is not supported");
    const TileRef a = tile_of(c, c.args.at(0)).tile;
    if (a.dtype != tt->dtype) fail_at(c, "needs operands of one dtype");
    std::vector<Dim> dims = a.dims;
    std::string b;
    bool b_scalar = false;
    if (kernel::is_reduction(op)) {
      if (a.dims.size() != 2) fail_at(c, "needs a 2-D tile");
      dims = {a.dims[0], Dim{"1", 1}};
    } else if (kernel::arity(op) == 2) {
      const ir::ExprRef& rhs = c.args.at(1);
      if (ir::isa<ir::TileType>(*rhs->type)) {
        const TileRef& bt = tile_of(c, rhs).tile;
        if (bt.dtype != a.dtype) fail_at(c, "needs operands of one dtype");
        b = bt.name;
        if (!same_dims(bt.dims, a.dims)) {  // a [rows, 1] / [1, cols] vector (row / col_expand_*)
          const bool vector = a.dims.size() == 2 && bt.dims.size() == 2 &&
                              (bt.dims[0].text == "1" || bt.dims[1].text == "1");
          const TileRef wide = declare_tile(c, a.dtype, tt->memory_space, a.dims);
          const std::string code = vector ? T::tile_broadcast(wide, bt) : std::string{};
          if (code.empty())
            fail_at(c, "reads " + std::string(core::dtype_name(a.dtype)) +
                           " tiles of different shapes, which it does not broadcast");
          on_pipe(Pipe::Vector);
          line(code);
          b = wide.name;
        }
      } else {
        // As the interpreter: the scalar converted to the tile's dtype first; a half tile's as
        // binary32, rounded to the half dtype.
        const auto* st = ir::as<ir::ScalarType>(rhs->type.get());
        if (!st) fail_at(c, "needs a tile or scalar second operand");
        b = scalar(*rhs);
        if (!integer) {
          if (!core::is_float(st->dtype))
            fail_at(c, "on " + dtype_text(c) + " tiles needs a float scalar operand");
          b = T::round_to_dtype(a.dtype, b);
        } else if (st->dtype != a.dtype) {
          b = "pk::cast<" + std::string(scalar_type(a.dtype, &c.span)) + ">(" + b + ")";
        }
        b_scalar = true;
      }
    }
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt->dtype, tt->memory_space, std::move(dims));
    on_pipe(Pipe::Vector);
    line(T::tile_elementwise(op, out.tile, a, b, b_scalar));
    if (!kernel::is_reduction(op)) out.valid = kept_valid(c);
    env_[&var] = std::move(out);
  }
  /// The operand of a reduction of `kind`, its elements outside the valid box read as the
  /// reduction's identity (the interpreter's reduce): a copy padded with 0, -inf, +inf or 1
  /// (fillpad) when the operand has a valid box and the target pads; else the operand, for a
  /// target whose instruction reads the valid box itself.
  TileRef reduction_operand(const ir::Call& c, ir::Reduction kind) {
    const Value in = tile_of(c, c.args.at(0));
    const std::vector<std::string> valid = valid_of(in, *c.args.at(0));
    if (valid.size() != 2) return in.tile;
    const int mode = kind == ir::Reduction::Sum   ? 0
                     : kind == ir::Reduction::Max ? 1
                     : kind == ir::Reduction::Min ? 2
                                                  : 3;
    const auto* st = ir::as<ir::TileType>(c.args.at(0)->type.get());
    const TileRef padded =
        declare_tile(c, in.tile.dtype, st ? st->memory_space : std::nullopt, in.tile.dims);
    const std::string code = T::tile_fillpad(padded, in.tile, valid, mode);
    if (code.empty()) return in.tile;
    on_pipe(Pipe::Vector);
    line(code);
    return padded;
  }
  /// True when the tile `e` has a valid box: its value's (a load or slice with a valid_shape
  /// gave it), else its type's (the value is still in the pending region).
  bool partial_valid(const ir::Expr& e) const {
    if (const auto* v = ir::as<ir::Var>(&e))
      if (auto it = this->env_.find(v); it != this->env_.end() && !it->second.valid.empty())
        return true;
    return partial_valid_type(*e.type);
  }
  /// True when `t` is a tile type whose valid box is not its whole shape.
  static bool partial_valid_type(const ir::Type& t) {
    const auto* tt = ir::as<ir::TileType>(&t);
    if (!tt || !tt->tile_view || tt->tile_view->valid_shape.size() != tt->shape.size())
      return false;
    for (std::size_t k = 0; k < tt->shape.size(); ++k) {
      const auto* v = ir::as<ir::ConstInt>(tt->tile_view->valid_shape[k].get());
      const auto* d = ir::as<ir::ConstInt>(tt->shape[k].get());
      if (!v || !d || v->value != d->value) return true;
    }
    return false;
  }
  static bool same_dims(const std::vector<Dim>& x, const std::vector<Dim>& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t k = 0; k < x.size(); ++k)
      if (x[k].text != y[k].text) return false;
    return true;
  }

  static core::DataType scalar_dtype(const ir::Var& v) {
    return static_cast<const ir::ScalarType&>(*v.type).dtype;
  }
  static std::string dtype_text(const ir::Call& c) {
    const auto* t = ir::as<ir::ShapedType>(c.type.get());
    return t ? std::string(core::dtype_name(t->dtype)) : "non-tile";
  }

  /// FP32 tile ops only. FP16 / BF16 runs are refused here and lowered op by op (elementwise),
  /// which keeps bit identity with the interpreter: a Spec computes in binary32 and its
  /// canonicalization folds in binary32 (-(-x) is x, constant subexpressions fold), which would
  /// skip the rounding to the dtype after every op (and its NaN canonicalization) that the
  /// interpreter does; emit_spec refuses non-FP32 tiles for the same reason.
  bool fusible(const ir::Call& c) const {
    const auto op = spec_op(c);
    if (!op || kernel::op_info(*op).cls == kernel::OpClass::ColReduction) return false;
    // A reduction of a tile with a valid box reads the rest as its identity
    // (reduction_operand), which a region's expression does not.
    if (kernel::is_reduction(*op) && partial_valid(*c.args.at(0))) return false;
    const auto* t = ir::as<ir::TileType>(c.type.get());
    if (!t || t->dtype != core::DataType::FP32) return false;
    for (const auto& arg : c.args) {
      const auto* at = ir::as<ir::ShapedType>(arg->type.get());
      if (at && at->dtype != core::DataType::FP32) return false;
    }
    return true;
  }

  /// tile.load(tensor, offsets, shapes[, valid_shape]): the box; with a valid_shape other than
  /// the shapes (what the DSL records when none is written), only that leading box is read and
  /// the rest of the tile is zero (runtime/interpreter.hpp's region_copy_out_valid).
  void load(const ir::Var& var, const ir::Call& c) {
    const bool partial = c.args.size() == 4 && !ir::identical(c.args[2], c.args[3]);
    const Value& src = tensor_of(c, c.args[0]);
    const std::vector<std::string> offsets = int_list(c, c.args[1]);
    std::vector<Dim> dims = dims_of(c, c.args[2]);
    if (offsets.size() != src.tensor.rank || dims.size() != src.tensor.rank)
      fail_at(c, "offsets and shapes must have the tensor's rank");
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    Value v;
    v.kind = Value::Kind::Tile;
    v.tile = declare_tile(c, tt.dtype, tt.memory_space, std::move(dims));
    on_pipe(Pipe::Mte2);
    if (!partial) {
      line(T::tile_load(v.tile, src.tensor, offsets, this->site(c)));
    } else {
      const std::vector<std::string> valid = int_list(c, c.args[3]);
      if (valid.size() != src.tensor.rank) fail_at(c, "valid_shape must have the tensor's rank");
      const std::string code =
          T::tile_load_valid(v.tile, src.tensor, offsets, valid, this->site(c));
      if (code.empty()) fail_at(c, "with a valid_shape is not supported");
      line(code);
      v.valid = valid;
    }
    env_[&var] = std::move(v);
  }

  Value store(const ir::Call& c) {
    if (c.args.size() != 3) fail_at(c, "with explicit shapes is not supported");
    const Value& src = tile_of(c, c.args[0]);
    const std::vector<std::string> offsets = int_list(c, c.args[1]);
    const Value& dst = tensor_of(c, c.args[2]);
    if (offsets.size() != dst.tensor.rank ||
        (src.tile.dims.size() != dst.tensor.rank && src.tile.dims.size() != 2))
      fail_at(c, "offsets and the tile must have the tensor's rank");
    TensorRef into = dst.tensor;
    std::vector<std::string> at = offsets;
    if (src.tile.dims.size() < dst.tensor.rank) {
      // A 2-D tile into a tensor of higher rank: the tensor read as its 2-D row-major view
      // ([leading dims folded, last]), the leading offsets folded alike.
      into.name = dst.tensor.name + "_2d" + std::to_string(site(c));
      into.rank = 2;
      const std::string fold = T::tensor_fold_2d(dst.tensor, into.name);
      if (fold.empty())
        fail_at(c, "of a 2-D tile into a tensor of rank " + std::to_string(dst.tensor.rank) +
                       " is not supported");
      line(fold);
      std::string row = "0";
      for (std::size_t k = 0; k + 1 < offsets.size(); ++k)
        row = "(" + row + ") * " + dst.tensor.name + "->shape[" + std::to_string(k) + "] + (" +
              offsets[k] + ")";
      at = {row, offsets.back()};
    }
    if (src.tile.dtype != dst.tensor.dtype &&
        !(core::is_float(src.tile.dtype) && core::is_float(dst.tensor.dtype)))
      fail_at(c, "stores a " + std::string(core::dtype_name(src.tile.dtype)) + " tile into a " +
                     std::string(core::dtype_name(dst.tensor.dtype)) +
                     " tensor (only float dtypes convert on a store)");
    const auto atomic = c.kwargs.get<ir::AtomicType>("atomic");
    const bool add = atomic && *atomic == ir::AtomicType::Add;
    if (atomic && *atomic != ir::AtomicType::None && !add)
      fail_at(c, "with this atomic kind is not supported");
    on_pipe(src.tile.space == ir::MemorySpace::Acc ? Pipe::Fix : Pipe::Mte3);
    // Only the tile's valid box moves (what its value records, else its type's view), as the
    // device's DMA moves it (runtime/interpreter.hpp's store).
    const std::vector<std::string> valid =
        into.rank == src.tile.dims.size() ? valid_of(src, *c.args[0]) : std::vector<std::string>{};
    if (!valid.empty())
      line(T::tile_store_valid(src.tile, into, at, valid, add, this->site(c)));
    else
      line(T::tile_store(src.tile, into, at, add, this->site(c)));
    return dst;
  }

  /// tensor.write(t, indices, value): one element of global memory.
  Value write(const ir::Call& c) {
    const Value& t = tensor_of(c, c.args.at(0));
    const std::string at = flat_index(c, t, c.args.at(1));
    const std::string v = scalar(*c.args.at(2));
    on_pipe(Pipe::Scalar);
    line(t.tensor.data + "[" + at + "] = " + v + ";\n");
    return t;
  }

  /// tile.full(shape, value=...) and tile.create(shape): every element the value, or zero (what
  /// upstream's reference makes a created tile).
  void full(const ir::Var& var, const ir::Call& c) {
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    std::vector<Dim> dims = dims_of(c, c.args.at(0));
    std::string value;
    const ir::AttrValue* v = c.kwargs.find("value");
    // A half tile's elements are the target's 16-bit patterns (no scalar type of their own).
    const bool half = tt.dtype == core::DataType::FP16 || tt.dtype == core::DataType::BF16;
    const std::string type(half ? T::element_type(tt.dtype) : scalar_type(tt.dtype, &c.span));
    if (type.empty()) fail_at(c, "on " + dtype_text(c) + " tiles is not supported");
    if (!v) {
      value = type + "{}";
    } else if (const auto* d = v->get_if<double>()) {
      // A half tile's value is rounded once from the binary32 one: exact only when the double
      // is a float (else two roundings could differ from the interpreter's one).
      const auto f = static_cast<float>(*d);
      const std::string literal = T::float_literal(kernel::float_bits(f));
      if (tt.dtype == core::DataType::FP32)
        value = literal;
      else if (half && static_cast<double>(f) == *d)
        value = T::round_to_dtype(tt.dtype, literal);
      else
        fail_at(c, "with this float value on a " + dtype_text(c) + " tile is not supported");
    } else if (const auto* i = v->get_if<std::int64_t>()) {
      value = "pk::cast<" + type + ">(std::int64_t{" + std::to_string(*i) + "})";
    } else if (const auto* e = v->get_if<ir::ExprRef>()) {
      value = "pk::cast<" + type + ">(" + scalar(**e) + ")";
    } else {
      fail_at(c, "with a fill value of this kind is not supported");
    }
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, std::move(dims));
    on_pipe(Pipe::Vector);
    line(T::tile_fill(out.tile, value));
    env_[&var] = std::move(out);
  }

  /// The reductions outside the kernel expression IR's regions (row min / prod, every column
  /// reduction), one loop over a 2-D float tile (runtime/interpreter.hpp's reduce); a col_sum
  /// with a scratch tile sums in the device's binary tree order (its scratch is not read).
  void reduce(const ir::Var& var, const ir::Call& c) {
    using ir::OpId;
    const OpId id = c.op->id;
    const bool tree = id == OpId::tile_col_sum && c.args.size() > 1;
    const ReductionOf r = *reduction_of(id);
    const TileRef& operand = tile_of(c, c.args.at(0)).tile;
    if (!core::is_float(operand.dtype) || operand.dims.size() != 2)
      fail_at(c, "needs a 2-D float tile");
    const TileRef src = reduction_operand(c, r.kind);
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space,
                            r.by_row ? std::vector<Dim>{src.dims[0], Dim{"1", 1}}
                                     : std::vector<Dim>{Dim{"1", 1}, src.dims[1]});
    on_pipe(Pipe::Vector);
    const std::string code = T::tile_reduce(out.tile, src, r.kind, r.by_row, r.index, tree);
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    env_[&var] = std::move(out);
  }

  /// tile.tri(diagonal, shape): 1 where column - row <= diagonal (>= with `upper`), else 0.
  void triangle(const ir::Var& var, const ir::Call& c) {
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    std::vector<Dim> dims = dims_of(c, c.args.at(1));
    if (dims.size() != 2) fail_at(c, "needs a 2-D shape");
    const std::string diagonal = scalar(*c.args.at(0));
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, std::move(dims));
    on_pipe(Pipe::Vector);
    const std::string code =
        T::tile_triangle(out.tile, diagonal, c.kwargs.get<bool>("upper").value_or(false));
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    env_[&var] = std::move(out);
  }

  /// The gathers, scatters, sorts, merges and tile.random: one call of
  /// codegen/irregular_functions.hpp each (runtime/interpreter.hpp runs the same functions), into
  /// a new tile of the result's type, or in place into the tile (the scatters) or the tensor
  /// (mscatter) the op writes, which is then the result.
  void irregular(const ir::Var& var, const ir::Call& c) {
    using ir::OpId;
    const OpId id = c.op->id;
    auto tile = [&](std::size_t k) -> const TileRef& { return tile_of(c, c.args.at(k)).tile; };
    auto view = [&](const auto& ref) {
      std::string v = T::irregular_view(ref);
      if (v.empty()) fail_at(c, "is not supported by the kernel code generator");
      return v;
    };
    auto kwarg = [&](std::string_view key, std::int64_t fallback) {
      return std::to_string(c.kwargs.get<std::int64_t>(key).value_or(fallback));
    };
    auto u32 = [&](std::size_t k) {
      return "static_cast<std::uint32_t>(" + scalar(*c.args.at(k)) + ")";
    };
    const bool in_place = id == OpId::tile_scatter || id == OpId::tile_scatter_mask ||
                          id == OpId::tile_scatter_update || id == OpId::tile_mscatter;
    Value out;
    if (id == OpId::tile_mscatter) {
      out = tensor_of(c, c.args.at(2));
    } else if (in_place) {
      out = tile_of(c, c.args.at(0));
    } else {
      const auto& tt = static_cast<const ir::TileType&>(*c.type);
      out.kind = Value::Kind::Tile;
      out.tile = declare_tile(c, tt.dtype, tt.memory_space, dims_of_type(tt));
    }
    std::vector<std::string> operands{out.kind == Value::Kind::Tile ? view(out.tile)
                                                                    : view(out.tensor)};
    std::string_view function;
    const bool sorts = id == OpId::tile_sort32 || id == OpId::tile_mrgsort_format1 ||
                       id == OpId::tile_mrgsort_format2;
    if (sorts && tile(0).dtype != core::DataType::FP32)
      fail_at(c, "is implemented for FP32 values only");
    switch (id) {
      case OpId::tile_gather:
      case OpId::tile_sort32:
        function = id == OpId::tile_gather ? "gather" : "sort32";
        operands.insert(operands.end(), {view(tile(0)), view(tile(1))});
        break;
      case OpId::tile_gather_mask:
      case OpId::tile_scatter_mask:
        function = id == OpId::tile_gather_mask ? "gather_mask" : "scatter_mask";
        operands.insert(operands.end(), {view(tile(id == OpId::tile_gather_mask ? 0 : 1)),
                                         kwarg("mask_pattern", 0)});
        if (id == OpId::tile_scatter_mask) operands.push_back("false");
        break;
      case OpId::tile_mrgsort_format1:
        function = "mrgsort1";
        operands.insert(operands.end(), {view(tile(0)), "static_cast<std::int64_t>(" +
                                                            scalar(*c.args.at(1)) + ")"});
        break;
      case OpId::tile_mrgsort_format2:  // the lists, then the workspace
        function = "mrgsort2";
        if (c.kwargs.get<bool>("exhausted").value_or(false))
          fail_at(c, "with exhausted=True is not supported");
        for (std::size_t k = 0; k + 1 < c.args.size(); ++k) {
          if (tile(k).dtype != core::DataType::FP32) fail_at(c, "needs FP32 lists");
          operands.push_back(view(tile(k)));
        }
        break;
      case OpId::tile_scatter:  // (dst, src, indexes)
        function = "scatter";
        operands.insert(operands.end(), {view(tile(1)), view(tile(2))});
        break;
      case OpId::tile_scatter_update:  // (input, index, src)
        function = "scatter_rows";
        operands.insert(operands.end(), {view(tile(2)), view(tile(1))});
        break;
      case OpId::tile_mscatter:  // (src, idx, output_tensor)
        function = "scatter";
        operands.insert(operands.end(), {view(tile(0)), view(tile(1))});
        break;
      case OpId::tile_gatherb: {  // (src, offset): the offsets' valid box of blocks
        function = "gatherb";
        std::vector<std::string> valid = valid_of(tile_of(c, c.args.at(1)), *c.args[1]);
        if (valid.empty()) valid = {tile(1).dims.front().text, tile(1).dims.back().text};
        if (valid.size() != 2) fail_at(c, "needs a 2-D offset tile");
        operands.insert(operands.end(), {view(tile(0)), view(tile(1)),
                                         "static_cast<std::int64_t>(" + valid[0] + ")",
                                         "static_cast<std::int64_t>(" + valid[1] + ")"});
        break;
      }
      case OpId::tile_mgather: {  // (mem, idx[, scratch][, valid_shape]); a Mat's idx: a tensor
        function = "mgather";
        const bool scratch = c.args.size() > 2 && ir::isa<ir::TensorType>(*c.args[2]->type);
        const std::string idx = ir::isa<ir::TensorType>(*c.args.at(1)->type)
                                    ? view(tensor_of(c, c.args[1]).tensor)
                                    : view(tile(1));
        std::vector<std::string> valid = {out.tile.dims.front().text, out.tile.dims.back().text};
        if (out.tile.dims.size() != 2) valid.front() = "1";
        if (c.args.size() > (scratch ? 3u : 2u)) {
          valid = int_list(c, c.args.back());
          if (valid.size() != 2) fail_at(c, "needs a 2-D valid shape");
          out.valid = valid;
        }
        operands.insert(operands.end(),
                        {view(tensor_of(c, c.args.at(0)).tensor), idx, kwarg("coalesce", 0),
                         kwarg("gather_oob", 0), "static_cast<std::int64_t>(" + valid[0] + ")",
                         "static_cast<std::int64_t>(" + valid[1] + ")"});
        if (scratch) operands.push_back(view(tensor_of(c, c.args[2]).tensor));
        break;
      }
      default: {  // tile.random(key0, key1, counter0..3, shape, [valid_shape])
        function = "random";
        std::vector<std::string> valid;
        if (c.args.size() > 7) valid = int_list(c, c.args[7]);
        if (valid.empty())
          for (const Dim& d : out.tile.dims) valid.push_back(d.text);
        if (valid.size() != 2) fail_at(c, "needs a 2-D shape");
        operands.insert(operands.end(), {"static_cast<std::int64_t>(" + valid[0] + ")",
                                         "static_cast<std::int64_t>(" + valid[1] + ")"});
        for (std::size_t k = 0; k < 6; ++k) operands.push_back(u32(k));
        operands.push_back(kwarg("rounds", 10));
        operands.push_back(out.tile.dtype == core::DataType::INT32 ? "true" : "false");
      }
    }
    on_pipe(Pipe::Vector);
    const std::string code = T::irregular_call(function, operands, this->site(c));
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    env_[&var] = std::move(out);
  }

  /// tile.gather_compare(src, kvalue, tmp): the tiles (dst, cdst) of irregular_functions.hpp's
  /// gather_compare, the elements of `var` (the workspace is not needed here).
  void gather_compare(const ir::Var& var, const ir::Call& c) {
    const auto* tuple = ir::as<ir::TupleType>(c.type.get());
    if (!tuple || tuple->types.size() != 2) fail_at(c, "needs a (dst, cdst) result");
    std::vector<Value> outs;
    std::vector<std::string> operands;
    for (const ir::TypeRef& t : tuple->types) {
      const auto* tt = ir::as<ir::TileType>(t.get());
      if (!tt) fail_at(c, "needs a (dst, cdst) result of tiles");
      Value out;
      out.kind = Value::Kind::Tile;
      out.tile = declare_tile(c, tt->dtype, tt->memory_space, dims_of_type(*tt));
      operands.push_back(T::irregular_view(out.tile));
      outs.push_back(std::move(out));
    }
    operands.push_back(T::irregular_view(tile_of(c, c.args.at(0)).tile));
    operands.push_back("static_cast<double>(pk::widen(" + scalar(*c.args.at(1)) + "))");
    operands.push_back(std::to_string(c.kwargs.get<std::int64_t>("cmp_mode").value_or(0)));
    operands.push_back(std::to_string(c.kwargs.get<std::int64_t>("offset").value_or(0)));
    operands.push_back("[](auto x) { return pk::widen(x); }");
    on_pipe(Pipe::Vector);
    const std::string code = T::irregular_call("gather_compare", operands, this->site(c));
    if (code.empty() || operands[0].empty())
      fail_at(c, "is not supported by the kernel code generator");
    line(code);
    tuples_[&var] = std::move(outs);
  }

  /// tile.extract(src, row, col, shape): the window at (row, col), a slice of the 2-D tile.
  void extract(const ir::Var& var, const ir::Call& c) {
    const TileRef src = tile_of(c, c.args.at(0)).tile;
    if (src.dims.size() != 2) fail_at(c, "needs a 2-D tile");
    std::vector<Dim> dims = dims_of(c, c.args.at(3));
    if (dims.size() != 2) fail_at(c, "needs a 2-D shape");
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, std::move(dims));
    on_pipe(Pipe::Vector);
    const std::string code = T::tile_slice(
        out.tile, src, {scalar(*c.args.at(1)), scalar(*c.args.at(2))}, {}, this->site(c));
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    env_[&var] = std::move(out);
  }

  /// tile.assemble(target, source, offset): the source written into the target in place (the
  /// target is read-write), which is the result.
  void assemble(const ir::Var& var, const ir::Call& c) {
    const Value& target = tile_of(c, c.args.at(0));
    const TileRef src = tile_of(c, c.args.at(1)).tile;
    const std::vector<std::string> offsets = int_list(c, c.args.at(2));
    if (offsets.size() != target.tile.dims.size() || src.dims.size() != offsets.size())
      fail_at(c, "offsets and the source must have the target's rank");
    if (src.dtype != target.tile.dtype) fail_at(c, "needs a source of the target's dtype");
    on_pipe(Pipe::Vector);
    const std::string code = T::tile_assemble(target.tile, src, offsets, this->site(c));
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    env_[&var] = target;
  }

  /// tile.concat(a, b): b's columns after a's (the whole tiles), a tile of the result's type.
  void concat(const ir::Var& var, const ir::Call& c) {
    const TileRef a = tile_of(c, c.args.at(0)).tile, b = tile_of(c, c.args.at(1)).tile;
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    if (a.dims.empty() || a.dims.size() != b.dims.size() || a.dtype != b.dtype)
      fail_at(c, "needs tiles of one rank and dtype");
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, dims_of_type(tt));
    std::vector<std::string> at(a.dims.size(), "0");
    on_pipe(Pipe::Vector);
    line(T::tile_assemble(out.tile, a, at, this->site(c)));
    at.back() = a.dims.back().text;
    line(T::tile_assemble(out.tile, b, at, this->site(c)));
    env_[&var] = std::move(out);
  }

  /// addc / subc (a, b, c) and addsc / subsc (a, scalar, c): (a op b) op c as two element ops,
  /// each rounded, as the interpreter computes them.
  void in_two_steps(const ir::Var& var, const ir::Call& c, const ir::Stmt& s) {
    if (c.args.size() != 3) fail_at(c, "needs three operands");
    const bool add = c.op->id == ir::OpId::tile_addc || c.op->id == ir::OpId::tile_addsc;
    const bool with_scalar = c.op->id == ir::OpId::tile_addsc || c.op->id == ir::OpId::tile_subsc;
    ir::VarRef step = ir::Var::make("step", c.type);
    uses_[step.get()] = 2;
    const std::string first =
        add ? (with_scalar ? "tile.adds" : "tile.add") : (with_scalar ? "tile.subs" : "tile.sub");
    assign_call(*step, local_call(c, first, {c.args[0], c.args[1]}), s);
    const ir::Call& second = local_call(c, add ? "tile.add" : "tile.sub", {step, c.args[2]});
    synthetic_vars_.push_back(std::move(step));
    assign_call(var, second, s);
  }

  /// tile.gather_row(dst, src, dst_offset, src_offset, shapes[, valid_shape]): the tensor's
  /// window loaded into a tile of `shapes`, whose valid box is then written into dst in place.
  void gather_row(const ir::Var& var, const ir::Call& c) {
    if (c.kwargs.get<bool>("transpose").value_or(false))
      fail_at(c, "with transpose=True is not supported");
    const Value& target = tile_of(c, c.args.at(0));
    const Value& src = tensor_of(c, c.args.at(1));
    const std::vector<std::string> at = int_list(c, c.args.at(2)), from = int_list(c, c.args.at(3));
    std::vector<Dim> dims = dims_of(c, c.args.at(4));
    std::vector<std::string> valid;
    if (c.args.size() > 5) valid = int_list(c, c.args[5]);
    if (valid.empty())
      for (const Dim& d : dims) valid.push_back(d.text);
    const std::size_t rank = target.tile.dims.size();
    if (at.size() != rank || from.size() != src.tensor.rank || dims.size() != rank ||
        valid.size() != rank || src.tensor.rank != rank)
      fail_at(c, "needs offsets, shapes and a valid shape of the tile's and the tensor's rank");
    Value window;
    window.kind = Value::Kind::Tile;
    window.tile = declare_tile(c, target.tile.dtype, target.tile.space, std::move(dims));
    on_pipe(Pipe::Mte2);
    const std::string load = T::tile_load_valid(window.tile, src.tensor, from, valid, site(c));
    const std::string write = T::tile_assemble(target.tile, window.tile, at, site(c), valid);
    if (load.empty() || write.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(load);
    line(write);
    env_[&var] = target;
  }

  /// <row|col>_expand_expdif(t, v): exp(t - v) with v a [rows, 1] / [1, cols] vector, the
  /// difference rounded to the dtype first (runtime/interpreter.hpp).
  void expdif(const ir::Var& var, const ir::Call& c) {
    const TileRef a = tile_of(c, c.args.at(0)).tile, v = tile_of(c, c.args.at(1)).tile;
    if (a.dims.size() != 2 || v.dims.size() != 2 || !core::is_float(a.dtype) || v.dtype != a.dtype)
      fail_at(c, "needs 2-D float tiles of one dtype");
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, a.dims);
    on_pipe(Pipe::Vector);
    const std::string code = T::tile_expdif(out.tile, a, v);
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    env_[&var] = std::move(out);
  }

  /// tile.ci(start, shape): the first row start, start + 1, ... (descending: start - k), the
  /// other rows zero (runtime/interpreter.hpp's index_sequence).
  void index_sequence(const ir::Var& var, const ir::Call& c) {
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    if (!core::is_int(tt.dtype)) fail_at(c, "needs an integer dtype");
    std::vector<Dim> dims = dims_of(c, c.args.at(1));
    if (dims.empty()) fail_at(c, "needs a shape of rank 1 or more");
    const std::string start = scalar(*c.args.at(0));
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, std::move(dims));
    on_pipe(Pipe::Vector);
    const std::string code =
        T::tile_index_sequence(out.tile, start, c.kwargs.get<bool>("descending").value_or(false));
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    env_[&var] = std::move(out);
  }

  /// tile.slice(tile, shape, offset[, valid_shape]): the window copied into a tile of its own
  /// (with a valid_shape, only that leading box, the rest zero), as the interpreter copies it.
  /// A window of an Acc tile remembers where it is: a matmul_acc into it writes back (matmul).
  void slice(const ir::Var& var, const ir::Call& c) {
    if (c.args.size() > 4) fail_at(c, "with drop_dims is not supported");
    const TileRef src = tile_of(c, c.args.at(0)).tile;
    const std::vector<std::string> offsets = int_list(c, c.args.at(2));
    std::vector<Dim> dims = dims_of(c, c.args.at(1));
    if (offsets.size() != src.dims.size() || dims.size() != src.dims.size())
      fail_at(c, "offsets and shape must have the tile's rank");
    std::vector<std::string> valid;
    if (c.args.size() > 3) valid = int_list(c, c.args[3]);
    if (!valid.empty() && valid.size() != src.dims.size())
      fail_at(c, "valid_shape must have the tile's rank");
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, std::move(dims));
    on_pipe(Pipe::Vector);
    const std::string code = T::tile_slice(out.tile, src, offsets, valid, this->site(c));
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    if (src.space == ir::MemorySpace::Acc && valid.empty()) {  // the interpreter's window
      out.window_of = src;
      out.window_offsets = offsets;
    }
    out.valid = std::move(valid);
    env_[&var] = std::move(out);
  }

  /// tile.reinterpret_view(tile, dtype[, shape]) on one in-order unit: the tile's bytes (its
  /// elements' tensor encoding) copied into a tile of the result's dtype and shape.
  void reinterpret(const ir::Var& var, const ir::Call& c) {
    const TileRef src = tile_of(c, c.args.at(0)).tile;
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, dims_of_type(tt));
    const std::string from = "static_cast<std::size_t>(" + tile_size_text(src) + ") * sizeof(" +
                             src.name + "[0])",
                      to = "static_cast<std::size_t>(" + tile_size_text(out.tile) + ") * sizeof(" +
                           out.tile.name + "[0])";
    on_pipe(Pipe::Vector);
    line("if (" + from + " != " + to + ") pk::fault(6, " + std::to_string(this->site(c)) +
         ", 0, 0, 0, 0); else std::copy_n(reinterpret_cast<const unsigned char*>(" + src.name +
         ".data()), " + to + ", reinterpret_cast<unsigned char*>(" + out.tile.name +
         ".data()));\n");
    env_[&var] = std::move(out);
  }

  /// tile.reshape(tile, shape): the same elements, row-major, in a tile of the new shape.
  void reshape(const ir::Var& var, const ir::Call& c) {
    const TileRef src = tile_of(c, c.args.at(0)).tile;
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, dims_of(c, c.args.at(1)));
    on_pipe(Pipe::Vector);
    const std::string code = T::tile_reshape(out.tile, src);
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    env_[&var] = std::move(out);
  }

  /// tile.move: the tile's elements in a tile of the memory it names.
  void move(const ir::Var& var, const ir::Call& c) {
    const TileRef src = tile_of(c, c.args.at(0)).tile;
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, src.dims);
    on_pipe(Pipe::Mte1);
    line(T::tile_copy(out.tile, src));
    out.valid = tile_of(c, c.args.at(0)).valid;
    env_[&var] = std::move(out);
  }

  /// tile.set_validshape(t, rows, cols): t, whose valid extents a fillpad then keeps.
  void set_validshape(const ir::Var& var, const ir::Call& c) {
    Value out = tile_of(c, c.args.at(0));
    if (out.tile.dims.size() != 2) fail_at(c, "needs a 2-D tile");
    out.valid = {scalar(*c.args.at(1)), scalar(*c.args.at(2))};
    env_[&var] = std::move(out);
  }

  /// A tile's valid extents: what its value records, else its type's view; empty when the
  /// whole tile is valid (interpreter.hpp's valid_extents).
  std::vector<std::string> valid_of(const Value& v, const ir::Expr& e) {
    if (!v.valid.empty()) return v.valid;
    std::vector<std::string> out;
    const auto* t = ir::as<ir::TileType>(e.type.get());
    if (!t || !t->tile_view || t->tile_view->valid_shape.size() != v.tile.dims.size()) return out;
    bool whole = true;
    for (std::size_t k = 0; k < v.tile.dims.size(); ++k) {
      const ir::ExprRef& d = t->tile_view->valid_shape[k];
      const auto* n = ir::as<ir::ConstInt>(d.get());
      whole = whole && n && v.tile.dims[k].value && n->value == *v.tile.dims[k].value;
      out.push_back(scalar(*d));
    }
    if (whole) out.clear();
    return out;
  }

  /// tile.fillpad / fillpad_inplace / fillpad_expand(t[, shape]): t (in a tile of `shape`) with
  /// what lies outside its valid extents (what its value records, else its type's view) set
  /// to zero or the dtype's least / greatest value (runtime/interpreter.hpp's fillpad).
  void fillpad(const ir::Var& var, const ir::Call& c) {
    const Value& src = tile_of(c, c.args.at(0));
    if (src.tile.dims.size() != 2) fail_at(c, "needs a 2-D tile");
    std::vector<std::string> valid = valid_of(src, *c.args[0]);
    if (valid.empty()) valid = {src.tile.dims[0].text, src.tile.dims[1].text};
    const bool expand = c.op->id == ir::OpId::tile_fillpad_expand;
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    const auto pad = c.kwargs.get<ir::PadValue>("pad_value").value_or(ir::PadValue::zero);
    const int mode = pad == ir::PadValue::min ? 1 : pad == ir::PadValue::max ? 2 : 0;
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space,
                            expand ? dims_of(c, c.args.at(1)) : src.tile.dims);
    on_pipe(Pipe::Vector);
    const std::string code = T::tile_fillpad(out.tile, src.tile, valid, mode);
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    if (c.op->id == ir::OpId::tile_fillpad_inplace) line(T::tile_copy(src.tile, out.tile));
    env_[&var] = std::move(out);
  }

  /// tile.cmp / cmps: the packed UINT8 mask (runtime/interpreter.hpp's compare_mask).
  void compare_mask(const ir::Var& var, const ir::Call& c) {
    const TileRef a = tile_of(c, c.args.at(0)).tile;
    if (a.dims.size() != 2) fail_at(c, "needs a 2-D tile");
    const SecondOperand b = second_operand(c, a);
    const int mode = static_cast<int>(c.kwargs.get<std::int64_t>("cmp_type").value_or(0));
    if (mode < 0 || mode > 5) fail_at(c, "needs a cmp_type in 0..5");
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, dims_of_type(tt));
    on_pipe(Pipe::Vector);
    const std::string code = T::tile_compare_mask(out.tile, a, b.text, b.scalar, mode);
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    env_[&var] = std::move(out);
  }

  /// tile.sel(mask, a, b) / sels(mask, a, tmp, scalar): a where the mask is set, else b or the
  /// scalar (runtime/interpreter.hpp's select).
  void select(const ir::Var& var, const ir::Call& c) {
    const bool with_scalar = c.op->id == ir::OpId::tile_sels;
    const TileRef m = tile_of(c, c.args.at(0)).tile, a = tile_of(c, c.args.at(1)).tile;
    if (a.dims.size() != 2 || m.dims.size() != 2) fail_at(c, "needs 2-D tiles");
    // a compare's packed mask, whose row may be as wide as the operands' (interpreter.hpp)
    const bool packed =
        !same_dims(m.dims, a.dims) ||
        (m.dtype == core::DataType::UINT8 && !a.dims.empty() && a.dims.back().value &&
         m.dims.back().value == ir::ops::packed_mask_bytes(*a.dims.back().value));
    if (packed && (!core::is_int(m.dtype) || !m.dims.back().value || !a.dims.back().value ||
                   *m.dims.back().value * core::bit_width(m.dtype) < *a.dims.back().value))
      fail_at(c,
              "needs a mask of the operands' shape or a packed integer mask of a bit per column");
    std::string other;
    if (with_scalar) {
      other = scalar(*c.args.at(3));
    } else {
      const TileRef& b = tile_of(c, c.args.at(2)).tile;
      if (b.dtype != a.dtype || !same_dims(b.dims, a.dims))
        fail_at(c, "needs operands of one dtype and shape");
      other = b.name;
    }
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, a.dims);
    on_pipe(Pipe::Vector);
    const std::string code = T::tile_select(out.tile, m, packed, a, other, with_scalar);
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    env_[&var] = std::move(out);
  }

  /// tile.expands(t, s) and row_expand / col_expand(t, vec): t's shape filled with the scalar,
  /// or the [rows, 1] / [1, cols] vector repeated. A tile of higher rank folds its leading
  /// dimensions into rows, so a vector's must be the tile's or all 1.
  void expand(const ir::Var& var, const ir::Call& c) {
    const TileRef t = tile_of(c, c.args.at(0)).tile;
    if (t.dims.size() < 2) fail_at(c, "needs a tile of rank 2 or more");
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, t.dims);
    on_pipe(Pipe::Vector);
    std::string code;
    if (c.op->id == ir::OpId::tile_expands) {
      const std::string type(scalar_type(tt.dtype, &c.span));
      code = T::tile_fill(out.tile, "pk::cast<" + type + ">(" + scalar(*c.args.at(1)) + ")");
    } else {
      const TileRef v = tile_of(c, c.args.at(1)).tile;
      if (v.dtype != tt.dtype || v.dims.size() != t.dims.size())
        fail_at(c, "needs a vector of the tile's rank and dtype");
      bool same = true, ones = true;
      for (std::size_t k = 0; k + 1 < t.dims.size() && t.dims.size() > 2; ++k) {
        same = same && v.dims[k].text == t.dims[k].text;
        ones = ones && v.dims[k].value == 1;
      }
      if (!same && !ones)
        fail_at(c, "needs a vector whose leading dimensions are the tile's or all 1");
      code = T::tile_broadcast(out.tile, v);
    }
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    env_[&var] = std::move(out);
  }

  /// tile.transpose_view and tile.transpose(t, axis1, axis2) of a tile of rank 2 or more: the
  /// last two dimensions swapped, batch by batch (the axes must be constants naming those two;
  /// the same axis twice is a copy).
  void transpose(const ir::Var& var, const ir::Call& c) {
    const TileRef src = tile_of(c, c.args.at(0)).tile;
    const auto rank = static_cast<std::int64_t>(src.dims.size());
    if (rank < 2) fail_at(c, "needs a tile of rank 2 or more");
    bool swaps = true;
    if (c.op->id == ir::OpId::tile_transpose) {
      auto axis = [&](std::size_t i) {
        const auto* k = ir::as<ir::ConstInt>(c.args.at(i).get());
        const std::int64_t a = k ? (k->value < 0 ? k->value + rank : k->value) : -1;
        if (a < rank - 2 || a >= rank) fail_at(c, "needs constant axes naming the last two");
        return a;
      };
      swaps = axis(1) != axis(2);
    }
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    std::vector<Dim> dims = src.dims;
    if (swaps) std::swap(dims[dims.size() - 2], dims[dims.size() - 1]);
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, std::move(dims));
    on_pipe(Pipe::Vector);
    const std::string code = swaps ? T::tile_transpose(out.tile, src) : T::tile_copy(out.tile, src);
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    env_[&var] = std::move(out);
  }

  /// tensor.create(shape, dtype): a fresh kernel-local tensor, zero-filled (or filled with
  /// init_value) as runtime/interpreter.hpp's fill makes it, living for the enclosing block.
  void create(const ir::Var& var, const ir::Call& c) {
    const auto* tt = ir::as<ir::TensorType>(c.type.get());
    if (!tt) fail_at(c, "needs a tensor result type");
    if (T::element_type(tt->dtype).empty())
      fail_at(c, "makes a tensor of dtype " + std::string(core::dtype_name(tt->dtype)) +
                     ", which the target does not store");
    const std::vector<std::string> dims = int_list(c, c.args.at(0));
    if (dims.size() > T::max_tile_rank || dims.size() != tt->rank())
      fail_at(c, "makes a tensor of an unsupported rank");
    const std::string type(scalar_type(tt->dtype, &c.span));
    std::string value = type + "{}";
    if (const ir::AttrValue* v = c.kwargs.find("init_value")) {
      if (const auto* d = v->get_if<double>()) {
        if (tt->dtype != core::DataType::FP32)
          fail_at(c, "with a float init_value on a non-FP32 tensor is not supported");
        value = T::float_literal(kernel::float_bits(static_cast<float>(*d)));
      } else if (const auto* i = v->get_if<std::int64_t>()) {
        value = "pk::cast<" + type + ">(std::int64_t{" + std::to_string(*i) + "})";
      } else {
        fail_at(c, "with an init_value of this kind is not supported");
      }
    }
    Value out;
    out.kind = Value::Kind::Tensor;
    const std::string name = "c" + std::to_string(next_local_tensor_++);
    out.tensor = TensorRef{name, name + "d", tt->dtype, dims.size()};
    out.created_at = c.span.is_known() ? c.span.to_string() : "an unknown position";
    const std::string code = T::tensor_create(out.tensor, dims, value);
    if (code.empty())
      fail_at(c, "makes a kernel-local global-memory tensor, which the target cannot allocate");
    line(code);
    env_[&var] = std::move(out);
  }

  /// tile.matmul_mx (`_acc`, `_bias`) on one in-order unit: the kernel prelude's matmul_mx
  /// (the interpreter's: each operand scaled by its E8M0 groups, then matmul's FP32 product).
  void matmul_mx(const ir::Var& var, const ir::Call& c) {
    const bool acc = c.op->id == ir::OpId::tile_matmul_mx_acc;
    const std::size_t first = acc ? 1 : 0;
    const TileRef a = tile_of(c, c.args.at(first)).tile, sa = tile_of(c, c.args.at(first + 1)).tile;
    const TileRef b = tile_of(c, c.args.at(first + 2)).tile,
                  sb = tile_of(c, c.args.at(first + 3)).tile;
    if (a.dims.size() != 2 || b.dims.size() != 2 || sa.dtype != sb.dtype)
      fail_at(c, "needs 2-D operands and scales of one dtype");
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, {a.dims[0], b.dims[1]});
    const std::string accumulator = acc ? tile_of(c, c.args[0]).tile.name + ".data()" : "nullptr";
    const std::string bias = c.op->id == ir::OpId::tile_matmul_mx_bias
                                 ? tile_of(c, c.args.at(4)).tile.name + ".data()"
                                 : "nullptr";
    on_pipe(Pipe::Cube);
    line("pk::matmul_mx(" + out.tile.name + ".data(), " + accumulator + ", " + a.name +
         ".data(), " + sa.name + ".data(), " + b.name + ".data(), " + sb.name + ".data(), " +
         a.dims[0].text + ", " + a.dims[1].text + ", " + b.dims[1].text + ", " + bias + ");\n");
    last_pipe_ = Pipe::Cube;
    env_[&var] = std::move(out);
  }

  void cast(const ir::Var& var, const ir::Call& c) {
    const std::int64_t mode = c.kwargs.get<std::int64_t>("mode").value_or(ir::kDefaultRoundMode);
    const Value& src = tile_of(c, c.args.at(0));
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    const TileRef s = src.tile;
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, s.dims);
    on_pipe(Pipe::Vector);
    line(T::tile_cast(out.tile, s, static_cast<std::size_t>(mode)));
    env_[&var] = std::move(out);
  }

  /// tile.matmul(a, b) and tile.matmul_acc(acc, a, b[, init_cond]) on 2-D float tiles of one
  /// dtype, into an FP32 accumulator (runtime/interpreter.hpp's matmul); tile.batch_matmul and
  /// batch_matmul_acc on tiles of rank 2 or 3, a batch of one (or a 2-D operand) broadcast.
  void matmul(const ir::Var& var, const ir::Call& c) {
    using ir::OpId;
    const OpId id = c.op->id;
    const bool batched = id == OpId::tile_batch_matmul || id == OpId::tile_batch_matmul_acc;
    const bool accumulate = id == OpId::tile_matmul_acc || id == OpId::tile_gemv_acc ||
                            id == OpId::tile_batch_matmul_acc;
    const bool gemv =
        id == OpId::tile_gemv || id == OpId::tile_gemv_acc || id == OpId::tile_gemv_bias;
    const bool with_bias = id == OpId::tile_matmul_bias || id == OpId::tile_gemv_bias;
    const std::size_t first = accumulate ? 1 : 0;
    const TileRef a = tile_of(c, c.args.at(first)).tile, b = tile_of(c, c.args.at(first + 1)).tile;
    if (!core::is_float(a.dtype) || a.dtype != b.dtype)
      fail_at(c, "on " + std::string(core::dtype_name(a.dtype)) + " and " +
                     std::string(core::dtype_name(b.dtype)) +
                     " tiles is not supported (float tiles of one dtype)");
    std::vector<Dim> batch;  // the result's leading dimension, if any
    if (batched) {
      if (a.dims.size() < 2 || a.dims.size() > 3 || b.dims.size() < 2 || b.dims.size() > 3)
        fail_at(c, "needs tiles of rank 2 or 3");
      const auto lead = [](const TileRef& t) {
        return t.dims.size() == 3 ? t.dims[0].value : std::optional<std::int64_t>(1);
      };
      const auto la = lead(a), lb = lead(b);
      if (!la || !lb || (*la != *lb && *la != 1 && *lb != 1))
        fail_at(c, "needs batch dimensions that are constants and broadcast");
      if (a.dims.size() == 3 || b.dims.size() == 3)
        batch.push_back(*la == 1 && b.dims.size() == 3 ? b.dims[0] : a.dims[0]);
    } else if (a.dims.size() != 2 || b.dims.size() != 2) {
      fail_at(c, "needs 2-D tiles");
    }
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    if (tt.dtype != core::DataType::FP32) fail_at(c, "needs an FP32 result");
    std::optional<TileRef> acc;
    std::optional<TileRef> window_of;  // the accumulator window the product is written back to
    std::vector<std::string> window_offsets;
    std::string init = "false";
    if (accumulate) {
      const Value& acc_value = tile_of(c, c.args.at(0));
      acc = acc_value.tile;
      window_of = acc_value.window_of;
      window_offsets = acc_value.window_offsets;
      if (acc->dtype != core::DataType::FP32) fail_at(c, "needs an FP32 accumulator");
      if (c.args.size() > 3) init = scalar(*c.args[3]);
    }
    Value out;
    out.kind = Value::Kind::Tile;
    // A gemv's result is its type's fractal ([16, N], or the accumulator's) of which the product
    // fills row 0: the rest is zero, or the accumulator's, copied first.
    std::vector<Dim> dims = batch;
    dims.push_back(a.dims[a.dims.size() - 2]);
    dims.push_back(b.dims.back());
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, gemv ? dims_of_type(tt) : dims);
    if (gemv && (a.dims[0].value != 1 || out.tile.dims.size() != 2))
      fail_at(c, "needs a [1, K] row vector");
    // Operands outside the cube's buffers are moved there first (Mte1), then the cube runs.
    const bool moves = a.space != ir::MemorySpace::Left || b.space != ir::MemorySpace::Right;
    on_pipe(moves ? Pipe::Mte1 : Pipe::Cube);
    std::string code;
    if (gemv && acc) {
      code = T::tile_copy(out.tile, *acc);
      code += code.empty() ? "" : T::tile_matmul_acc(out.tile, out.tile, a, b, init);
    } else {
      code = acc ? T::tile_matmul_acc(out.tile, *acc, a, b, init) : T::tile_matmul(out.tile, a, b);
    }
    if (with_bias && !code.empty()) {
      const TileRef bias = tile_of(c, c.args.at(2)).tile;
      if (bias.dtype != core::DataType::FP32 || bias.dims.size() != 2 || bias.dims[0].value != 1)
        fail_at(c, "needs an FP32 [1, N] bias");
      const std::string add = T::tile_add_bias(out.tile, bias, a.dims[0].text);
      code = add.empty() ? "" : code + add;
    }
    if (code.empty()) fail_at(c, "is not supported by the kernel code generator");
    line(code);
    last_pipe_ = Pipe::Cube;
    if (window_of) {
      const std::string back =
          T::tile_assemble(*window_of, out.tile, window_offsets, this->site(c));
      if (back.empty()) fail_at(c, "into an accumulator window is not supported by this target");
      line(back);
      out.window_of = std::move(window_of);
      out.window_offsets = std::move(window_offsets);
    }
    env_[&var] = std::move(out);
  }

  // ---- control flow ------------------------------------------------------------------------

  /// Declares a carry (or if result) variable of `type` initialised from `init` (or default).
  Value declare_carry(const ir::Type& type, const ir::Expr* init) {
    const ir::Span* span = stmt_ ? &stmt_->span : nullptr;
    if (const auto* st = ir::as<ir::ScalarType>(&type)) {
      const std::string name = new_scalar_name();
      const std::string t(value_type(st->dtype, span));
      line(t + " " + name + " = " + (init ? scalar(*init) : t + "{}") + ";\n");
      return scalar_value(name, st->dtype);
    }
    if (const auto* at = ir::as<ir::ArrayType>(&type))  // a copy: arrays are values
      return declare_array(*at, init ? array_text(*init) : "", span);
    if (!init) {  // an if result: each arm's yield fills a tile, or names the tensor written
      Value out;
      if (ir::isa<ir::TensorType>(type)) {
        out.kind = Value::Kind::Tensor;  // no name yet: the first yield binds it
        return out;
      }
      const auto* tt = ir::as<ir::TileType>(&type);
      if (!tt) fail_stmt("an if", "yielding this kind of value is not supported");
      out.kind = Value::Kind::Tile;
      out.tile = this->declare_tile_of(*tt, "an if result");
      return out;
    }
    const auto* v = ir::as<ir::Var>(init);
    if (!v) fail_stmt("a loop carry", "must be initialised from a variable");
    const Value& src = lookup(*v);
    if (src.kind == Value::Kind::Tensor) return src;  // written in place: no copy
    Value out = src;
    out.tile.name = new_tile_name();
    line(T::tile_decl(out.tile));
    on_pipe(copy_pipe(out.tile, src.tile));
    line(T::tile_copy(out.tile, src.tile));
    return out;
  }

  void yield(const ir::YieldStmt& y) {
    hoist_values(y.values, y);
    flush();
    stmt_ = &y;
    if (yield_targets_.empty() || !yield_targets_.back())
      fail_stmt("a yield", "outside a loop or if with results is not supported");
    std::vector<Value>& targets = *yield_targets_.back();
    if (targets.size() != y.values.size()) fail_stmt("a yield", "does not match its results");
    // Scalars through temporaries when there are several: a yield may swap carries.
    std::vector<std::string> temps;
    for (std::size_t k = 0; k < targets.size(); ++k) {
      if (targets[k].kind == Value::Kind::Array) {
        const std::string v = array_text(*y.values[k]);
        if (targets.size() == 1 || v == targets[k].expr) {
          temps.push_back(v);
          continue;
        }
        temps.push_back(new_scalar_name());
        line("const auto " + temps.back() + " = " + v + ";\n");
        continue;
      }
      if (targets[k].kind != Value::Kind::Scalar) {
        temps.emplace_back();
        continue;
      }
      const std::string v = scalar(*y.values[k]);
      temps.push_back(targets.size() == 1 ? v : define(targets[k].dtype, v, &y.span));
    }
    for (std::size_t k = 0; k < targets.size(); ++k) {
      if (targets[k].kind == Value::Kind::Scalar || targets[k].kind == Value::Kind::Array) {
        if (temps[k] != targets[k].expr) line(targets[k].expr + " = " + temps[k] + ";\n");
        continue;
      }
      const ir::Var* v = as_var(y.values[k]);
      if (!v) fail_stmt("a yield", "of a non-variable tile or tensor is not supported");
      const Value& src = lookup(*v);
      if (targets[k].kind == Value::Kind::Tensor) {
        if (src.kind != Value::Kind::Tensor)
          fail_stmt("a yield", "of a tile where a tensor is expected is not supported");
        if (targets[k].tensor.name.empty()) targets[k] = src;  // an if's first arm picks it
        if (src.tensor.name != targets[k].tensor.name)
          fail_stmt("a yield",
                    "of another tensor than the carried one (or the other arm's) is not "
                    "supported");
        continue;
      }
      for (std::size_t j = 0; j < k; ++j)
        if (targets[j].kind == Value::Kind::Tile && targets[j].tile.name == src.tile.name)
          fail_stmt("a yield", "that permutes tile carries is not supported");
      if (src.tile.name == targets[k].tile.name) continue;
      on_pipe(copy_pipe(targets[k].tile, src.tile));
      line(T::tile_copy(targets[k].tile, src.tile));
    }
  }

  /// The variable of the array `e` names.
  std::string array_text(const ir::Expr& e) {
    const auto* v = ir::as<ir::Var>(&e);
    if (!v || lookup(*v).kind != Value::Kind::Array)
      fail_stmt("an array value", "must be a pl.Array variable");
    return lookup(*v).expr;
  }

  /// True when `s` yields for the construct that owns it (not for a nested loop or if).
  static bool has_own_yield(const ir::Stmt& s) {
    if (ir::isa<ir::YieldStmt>(s)) return true;
    if (const auto* q = ir::as<ir::SeqStmts>(&s)) {
      for (const auto& c : q->stmts)
        if (has_own_yield(*c)) return true;
    }
    return false;
  }
  /// Carries and if results are assigned by yields: a construct with results whose body does
  /// not yield is in the pre-SSA natural form, which codegen does not lower.
  void require_yield(const ir::Stmt* body, std::size_t results, std::string_view what) const {
    if (results == 0) return;
    if (!body || !has_own_yield(*body))
      fail_stmt(std::string(what),
                "with results but no yield is not supported (run convert-to-ssa first)");
  }

  template <class Loop>
  std::vector<Value> bind_carries(const Loop& loop) {
    require_yield(loop.body.get(), loop.iter_args.size(), "a loop");
    std::vector<Value> carries;
    for (const auto& ia : loop.iter_args) {
      carries.push_back(declare_carry(*ia->type, ia->init_value.get()));
      env_[ia.get()] = carries.back();
    }
    return carries;
  }
  template <class Loop>
  void bind_results(const Loop& loop, const std::vector<Value>& carries) {
    for (std::size_t k = 0; k < loop.return_vars.size(); ++k)
      env_[loop.return_vars[k].get()] = carries[k];
  }

  void body(const ir::Stmt& s, std::vector<Value>* targets, bool loop, bool carries) {
    yield_targets_.push_back(targets);
    if (loop) loop_carries_.push_back(carries);
    ++depth_;
    stmt(s);
    flush();
    pipe_boundary();
    --depth_;
    if (loop) loop_carries_.pop_back();
    yield_targets_.pop_back();
  }

  void for_stmt(const ir::ForStmt& f) {
    flush();
    stmt_ = &f;
    std::vector<Value> carries = bind_carries(f);
    const std::string start = scalar(*f.start), stop = scalar(*f.stop), step = scalar(*f.step);
    const auto* cstep = ir::as<ir::ConstInt>(f.step.get());
    if (cstep && cstep->value == 0) fail_stmt("a loop", "with step 0 is not supported");
    const std::string i = new_scalar_name();
    const std::string type(scalar_type(scalar_dtype(*f.loop_var), &f.span));
    const std::string cond =
        !cstep ? "(" + step + " > 0 ? " + i + " < " + stop + " : " + i + " > " + stop + ")"
        : cstep->value > 0 ? i + " < " + stop
                           : i + " > " + stop;
    pipe_boundary();
    // A step of another dtype converted to the loop variable's (a range over an INT32 bound).
    const auto* step_type = ir::as<ir::ScalarType>(f.step->type.get());
    const std::string by = step_type && step_type->dtype == scalar_dtype(*f.loop_var)
                               ? step
                               : "static_cast<" + type + ">(" + step + ")";
    line("for (" + type + " " + i + " = " + start + "; " + cond + "; " + i + " = pk::add(" + i +
         ", " + by + ")) {\n");
    env_[f.loop_var.get()] = scalar_value(i, scalar_dtype(*f.loop_var));
    body(*f.body, carries.empty() ? nullptr : &carries, true, !carries.empty());
    line("}\n");
    bind_results(f, carries);
  }

  void while_stmt(const ir::WhileStmt& w) {
    flush();
    stmt_ = &w;
    std::vector<Value> carries = bind_carries(w);
    pipe_boundary();
    line("for (;;) {\n");
    ++depth_;
    const std::string cond = scalar(*w.condition);
    line("if (!" + cond + ") break;\n");
    --depth_;
    body(*w.body, carries.empty() ? nullptr : &carries, true, !carries.empty());
    line("}\n");
    bind_results(w, carries);
  }

  void if_stmt(const ir::IfStmt& s) {
    flush();
    stmt_ = &s;
    require_yield(s.then_body.get(), s.return_vars.size(), "an if");
    require_yield(s.else_body.get(), s.return_vars.size(), "an if");
    std::vector<Value> results;
    for (const auto& rv : s.return_vars) results.push_back(declare_carry(*rv->type, nullptr));
    const std::string cond = scalar(*s.condition);
    pipe_boundary();
    line("if (" + cond + ") {\n");
    body(*s.then_body, results.empty() ? nullptr : &results, false, false);
    if (s.else_body) {
      line("} else {\n");
      body(*s.else_body, results.empty() ? nullptr : &results, false, false);
    }
    line("}\n");
    for (std::size_t k = 0; k < results.size(); ++k) {
      if (results[k].kind == Value::Kind::Tensor && results[k].tensor.name.empty())
        fail_stmt("an if", "with a tensor result no arm yields is not supported");
      env_[s.return_vars[k].get()] = results[k];
    }
  }

  std::vector<std::vector<Value>*> yield_targets_;  // an if's tensor results are set by a yield
  std::vector<bool> loop_carries_;
  /// aic_gather's tile in the split-AIV region being lowered, by call: its valid extents so
  /// far and whether a part had partial ones.
  struct Gathered {
    Value tile;
    std::vector<std::string> valid;
    bool partial_parts = false;
  };
  std::unordered_map<const ir::Call*, Gathered> gathered_;  // lookup only: never iterated
  std::int64_t lane_ = 0;  ///< the split-AIV lane being lowered (subblock_ as a number)
};

}  // namespace detail::kernel_codegen

template <TargetTraits T>
KernelSource codegen_kernel(const ir::Function& fn) {
  return detail::kernel_codegen::Lowering<T>(fn).run();
}

#ifdef PYPTO_SEPARATE_COMPILATION
template KernelSource codegen_kernel<CpuTarget>(const ir::Function& fn);
template KernelSource codegen_kernel<NpuTarget>(const ir::Function& fn);
#endif

}  // namespace pypto::codegen

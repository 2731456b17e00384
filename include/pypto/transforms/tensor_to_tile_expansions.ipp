// pypto/transforms/tensor_to_tile_expansions.ipp — the tensor ops whose tile form takes several
// statements (gather, the scatters, expand_clone, mrgsort_format2): part of the definitions of
// transforms/convert_tensor_to_tile_ops.hpp, shaped as upstream PyPTO's conversions shape them
// (names, statement order, loops), so that both passes give one program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/core/dtype.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/identical.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/transforms/convert_tensor_to_tile_ops.hpp"

namespace pypto::transforms::detail::tensor_to_tile {

/// Appends the statements of one call's conversion to a list: each binds a fresh variable to
/// one call, typed by the registry's rules, at the converted call's span; `fail` is the
/// conversion's typed refusal, naming the kernel and the op.
class Emitter {
 public:
  Emitter(const ir::OpRegistry& ops, std::string function, std::string op, const ir::Span& span,
          std::vector<ir::StmtRef>& out)
      : ops_(&ops), function_(std::move(function)), op_(std::move(op)), span_(span), out_(&out) {}

  [[noreturn]] void fail(const std::string& why) const {
    throw TensorToTileError(function_, op_, span_, why);
  }

  /// This emitter appending to `body` instead (a loop's).
  Emitter into(std::vector<ir::StmtRef>& body) const {
    Emitter e = *this;
    e.out_ = &body;
    return e;
  }

  /// `op(args, kwargs)`, not bound.
  ir::ExprRef call(std::string_view op, std::vector<ir::ExprRef> args, ir::Attrs kw = {}) const {
    return ops_->make_call(op, std::move(args), std::move(kw), {}, span_);
  }

  /// `name = op(args, kwargs)` appended; the variable.
  ir::VarRef bind(std::string name, std::string_view op, std::vector<ir::ExprRef> args,
                  ir::Attrs kw = {}) const {
    return bind(std::move(name), call(op, std::move(args), std::move(kw)));
  }

  /// `name = value` appended; the variable.
  ir::VarRef bind(std::string name, ir::ExprRef value) const {
    ir::VarRef v = ir::Var::make(std::move(name), value->type, span_);
    out_->push_back(ir::AssignStmt::make(v, std::move(value), span_));
    return v;
  }

  /// A tile of `shape` in `space` (Vec unless said) loaded from `tensor` at `offsets`, all of it
  /// valid.
  ir::VarRef load(std::string name, const ir::ExprRef& tensor, std::vector<ir::ExprRef> offsets,
                  const std::vector<ir::ExprRef>& shape,
                  ir::MemorySpace space = ir::MemorySpace::Vec) const {
    return bind(std::move(name), "tile.load",
                {tensor, tuple(std::move(offsets)), tuple(shape), tuple(shape)}, in(space));
  }

  /// A part of `source`: loaded from a tensor, sliced from a tile.
  ir::VarRef load_or_slice(std::string name, const ir::ExprRef& source,
                           std::vector<ir::ExprRef> offsets,
                           const std::vector<ir::ExprRef>& shape) const {
    if (ir::isa<ir::TileType>(*source->type))
      return bind(std::move(name), "tile.slice",
                  {source, tuple(shape), tuple(std::move(offsets)), tuple(shape)});
    return load(std::move(name), source, std::move(offsets), shape);
  }

  /// A fresh Vec tile.
  ir::VarRef create(std::string name, const std::vector<ir::ExprRef>& shape,
                    core::DataType dtype) const {
    return bind(std::move(name), "tile.create", {tuple(shape)}, vec().with("dtype", dtype));
  }

  ir::VarRef reshape(std::string name, const ir::ExprRef& tile,
                     const std::vector<ir::ExprRef>& shape) const {
    return bind(std::move(name), "tile.reshape", {tile, tuple(shape)});
  }

  /// The names of a loop's index, carried value and result.
  struct LoopNames {
    std::string index, carried, result;
  };
  /// What one iteration emits into the loop's body: given the index and the carried value, the
  /// value it yields.
  using LoopBody =
      std::function<ir::ExprRef(const ir::VarRef& i, const ir::VarRef& carried, const Emitter&)>;

  /// `for i in range(stop)` carrying `init`, appended; the loop's result.
  ir::VarRef loop(const LoopNames& names, ir::ExprRef stop, const ir::ExprRef& init,
                  const LoopBody& body) const {
    ir::VarRef i = ir::Var::make(names.index, ir::ScalarType::make(core::DataType::INDEX), span_);
    ir::IterArgRef carried = ir::IterArg::make(names.carried, init->type, init, span_);
    std::vector<ir::StmtRef> stmts;
    ir::ExprRef yielded = body(i, carried, into(stmts));
    stmts.push_back(ir::YieldStmt::make({std::move(yielded)}, span_));
    ir::VarRef result = ir::Var::make(names.result, init->type, span_);
    out_->push_back(ir::ForStmt::make(i, index(0), std::move(stop), index(1), {carried},
                                      ir::SeqStmts::make(std::move(stmts), span_), {result},
                                      ir::ForKind::Sequential, {}, span_));
    return result;
  }

  static ir::ExprRef index(std::int64_t v) { return ir::ConstInt::make(v); }
  static ir::ExprRef int32(std::int64_t v) { return ir::ConstInt::make(v, core::DataType::INT32); }
  static ir::ExprRef tuple(std::vector<ir::ExprRef> elements) {
    return ir::MakeTuple::make(std::move(elements));
  }
  /// `rank` zero offsets.
  static std::vector<ir::ExprRef> zeros(std::size_t rank) {
    std::vector<ir::ExprRef> out;
    for (std::size_t i = 0; i < rank; ++i) out.push_back(index(0));
    return out;
  }
  static ir::Attrs in(ir::MemorySpace space) {
    return ir::Attrs().with("target_memory", ir::EnumValue::of(space));
  }
  static ir::Attrs vec() { return in(ir::MemorySpace::Vec); }

 private:
  const ir::OpRegistry* ops_;
  std::string function_, op_;
  ir::Span span_;
  std::vector<ir::StmtRef>* out_;
};

/// The shape and dtype of a tensor or tile operand.
inline const ir::ShapedType& shaped(const Emitter& e, const ir::ExprRef& v, std::string_view role) {
  const auto* t = ir::as<ir::ShapedType>(v->type.get());
  if (!t) e.fail("needs a tensor or tile " + std::string(role));
  return *t;
}

/// `d` as a number; the tile forms below size their tiles by constant dimensions.
inline std::int64_t constant_dim(const Emitter& e, const ir::ExprRef& d, std::string_view what) {
  const auto* c = ir::as<ir::ConstInt>(d.get());
  if (!c) e.fail("needs a constant " + std::string(what) + " for its tile form");
  return c->value;
}

/// tensor.expand_clone(input, target) on rank-3 tensors: `target` gets `input` broadcast along
/// the one dimension where input has 1 (none: a copy). Dimension 0: one store per target row;
/// dimension 1: per row, a column expand of the loaded row; dimension 2: a row expand.
inline ir::ExprRef expand_clone(const Emitter& e, const std::vector<ir::ExprRef>& args) {
  const auto* in = ir::as<ir::TensorType>(args.at(0)->type.get());
  const auto* target = ir::as<ir::TensorType>(args.at(1)->type.get());
  if (!in || !target)
    e.fail(
        "reads its input from and writes its target to global memory; a computed value (a "
        "tile) has no form here");
  if (in->shape.size() != 3 || target->shape.size() != 3)
    e.fail("has a tile form for rank-3 tensors only, got rank " + std::to_string(in->shape.size()));
  int dim = -1;
  for (std::size_t i = 0; i < 3; ++i) {
    if (ir::identical(in->shape[i], target->shape[i])) continue;
    const auto* one = ir::as<ir::ConstInt>(in->shape[i].get());
    if (!one || one->value != 1)
      e.fail("broadcasts input dimension " + std::to_string(i) + ", which is not 1");
    if (dim >= 0) e.fail("broadcasts more than one dimension");
    dim = static_cast<int>(i);
  }
  const std::vector<ir::ExprRef> valid = in->tensor_view && !in->tensor_view->valid_shape.empty()
                                             ? in->tensor_view->valid_shape
                                             : in->shape;
  auto load_input = [&] {
    return e.bind("expand_clone_input", "tile.load",
                  {args[0], Emitter::tuple(Emitter::zeros(3)), Emitter::tuple(in->shape),
                   Emitter::tuple(valid)},
                  Emitter::vec());
  };
  const ir::ExprRef origin = Emitter::tuple(Emitter::zeros(3));
  if (dim < 0) return e.call("tile.store", {load_input(), origin, args[1]});
  if (dim == 0) {
    const ir::VarRef input = load_input();
    return e.loop({"i", "expand_clone_acc", "expand_clone_d0_result"}, target->shape[0], args[1],
                  [&](const ir::VarRef& i, const ir::VarRef& acc, const Emitter& b) {
                    return b.bind(
                        "expand_clone_d0_store", "tile.store",
                        {input, Emitter::tuple({i, Emitter::index(0), Emitter::index(0)}), acc});
                  });
  }
  if (dim == 1)
    return e.loop(
        {"i", "expand_clone_acc", "expand_clone_d1_result"}, target->shape[0], args[1],
        [&](const ir::VarRef& i, const ir::VarRef& acc, const Emitter& b) {
          const std::vector<ir::ExprRef> row{Emitter::index(1), Emitter::index(1), valid[2]};
          const ir::ExprRef at = Emitter::tuple({i, Emitter::index(0), Emitter::index(0)});
          const ir::VarRef input = b.load("expand_clone_d1_input", args[0],
                                          {i, Emitter::index(0), Emitter::index(0)}, row);
          const ir::VarRef wide =
              b.create("expand_clone_d1_target",
                       {Emitter::index(1), target->shape[1], target->shape[2]}, in->dtype);
          const ir::VarRef expanded =
              b.bind("expand_clone_d1_col", "tile.col_expand", {wide, input});
          return b.bind("expand_clone_d1_store", "tile.store", {expanded, at, acc});
        });
  const ir::VarRef input = load_input();
  const ir::VarRef wide = e.create("expand_clone_d2_target", target->shape, in->dtype);
  const ir::VarRef expanded = e.bind("expand_clone_d2_row", "tile.row_expand", {wide, input});
  return e.call("tile.store", {expanded, origin, args[1]});
}

/// tensor.mrgsort_format2(src0, .., srcN): the tile op with its scratch tile, shaped like the
/// merged output (the sources' last dimensions summed), appended. The sources are tiles by now.
inline ir::ExprRef expand_mrgsort_format2(const Emitter& e, std::vector<ir::ExprRef> args,
                                          const ir::Attrs& kwargs) {
  std::vector<const ir::TileType*> sources;
  for (const ir::ExprRef& a : args) {
    const auto* t = ir::as<ir::TileType>(a->type.get());
    if (!t || t->shape.empty()) e.fail("needs tile sources of rank 1 or more");
    sources.push_back(t);
  }
  std::vector<ir::ExprRef> shape(sources[0]->shape.begin(), sources[0]->shape.end() - 1);
  std::int64_t sum = 0;
  bool constant = true;
  for (const ir::TileType* t : sources)
    if (const auto* c = ir::as<ir::ConstInt>(t->shape.back().get()))
      sum += c->value;
    else
      constant = false;
  ir::ExprRef last = sources[0]->shape.back();
  for (std::size_t i = 1; !constant && i < sources.size(); ++i)
    last = ir::Add::make(last, sources[i]->shape.back());
  shape.push_back(constant ? Emitter::index(sum) : last);
  args.push_back(e.create("mrgsort2_tmp", shape, sources[0]->dtype));
  return e.call("tile.mrgsort_format2", std::move(args), kwargs);
}

/// The scatters' tiles and constants, as upstream's conversions build them: a scatter writes
/// into zeros (pto.tscatter keeps no unwritten element), and a second scatter of ones marks what
/// was written; `sel(mark != 0, values, base)` keeps the base elsewhere.
class ScatterBlend {
 public:
  ScatterBlend(const Emitter& e, core::DataType dtype) : e_(e), dtype_(dtype) {
    const unsigned bits = core::bit_width(dtype);
    mark_ = bits == 32   ? core::DataType::FP32
            : bits == 16 ? core::DataType::FP16
                         : core::DataType::INT8;
  }

  /// A tile of `shape` filled with `value` in `dtype`.
  ir::VarRef full(std::string name, const std::vector<ir::ExprRef>& shape, core::DataType dtype,
                  std::int64_t value) const {
    const ir::Attrs kw = ir::Attrs{}.with("dtype", dtype);
    return e_.bind(std::move(name), "tile.full", {Emitter::tuple(shape)},
                   core::is_float(dtype) ? kw.with("value", static_cast<double>(value))
                                         : kw.with("value", value));
  }

  /// sel(scatter(zeros, ones) != 0, scatter(zeros, src), base): `scatter` binds one scatter
  /// of `src` into `zeros`; `ones` is the shape of the scattered source.
  template <class Scatter>
  ir::ExprRef blend(const std::vector<ir::ExprRef>& shape, const ir::ExprRef& base,
                    const std::vector<ir::ExprRef>& src_shape, const Scatter& scatter) const {
    const ir::VarRef values =
        scatter("scatter_values", full("scatter_zero", shape, dtype_, 0), ir::ExprRef{});
    const ir::VarRef ones = full("scatter_ones", src_shape, mark_, 1);
    const ir::VarRef written =
        scatter("scatter_written", full("scatter_mark_zero", shape, mark_, 0), ones);
    const ir::ExprRef zero = core::is_float(mark_) ? ir::ExprRef(ir::ConstFloat::make(0.0, mark_))
                                                   : ir::ExprRef(ir::ConstInt::make(0, mark_));
    const ir::VarRef pred = e_.bind("scatter_pred", "tile.cmps", {written, zero},
                                    ir::Attrs{}.with("cmp_type", std::int64_t{1}));
    const ir::VarRef tmp = e_.create("scatter_sel_tmp", {Emitter::index(1), Emitter::index(32)},
                                     core::DataType::UINT8);
    return e_.call("tile.sel", {pred, values, base, tmp});
  }

 private:
  const Emitter& e_;
  core::DataType dtype_, mark_;
};

/// tensor.scatter(input, index, src, dim=-1) on rank-2 tiles: flat indices row * columns +
/// index (the index itself for one row), then the blend of two tile.scatter.
inline ir::ExprRef expand_scatter(const Emitter& e, const std::vector<ir::ExprRef>& args,
                                  const ir::Attrs& kwargs) {
  const ir::ShapedType& in = shaped(e, args.at(0), "input");
  const ir::ShapedType& ix = shaped(e, args.at(1), "index");
  const ir::ShapedType& src = shaped(e, args.at(2), "source");
  if (in.shape.size() != 2 || ix.shape.size() != 2 || src.shape.size() != 2)
    e.fail("has a tile form for rank-2 operands only");
  const std::int64_t dim = kwargs.get<std::int64_t>("dim").value_or(-1);
  if (dim != -1 && dim != 1) e.fail("has a tile form along the last dimension only");
  ir::ExprRef flat = args[1];
  const std::int64_t rows = constant_dim(e, ix.shape[0], "index shape");
  if (rows != 1) {
    const ir::VarRef ci = e.bind("scatter_row_ci", "tile.ci",
                                 {ir::ConstInt::make(0, ix.dtype),
                                  Emitter::tuple({Emitter::index(1), Emitter::index(rows)})},
                                 ir::Attrs{}.with("dtype", ix.dtype).with("descending", false));
    const ir::VarRef column =
        e.reshape("scatter_row_arange", ci, {Emitter::index(rows), Emitter::index(1)});
    const ir::VarRef base =
        e.bind("scatter_row_base", "tile.muls",
               {column, ir::ConstInt::make(constant_dim(e, in.shape[1], "input shape"), ix.dtype)});
    flat = e.bind("scatter_flat_idx", "tile.row_expand_add", {args[1], base});
  }
  return ScatterBlend(e, in.dtype)
      .blend(in.shape, args[0], src.shape,
             [&](std::string name, const ir::VarRef& zeros, const ir::ExprRef& ones) {
               return e.bind(std::move(name), "tile.scatter", {zeros, ones ? ones : args[2], flat});
             });
}

/// tensor.scatter_mask(input, dst, mask_pattern=): the blend of two tile.scatter_mask, dst
/// kept on the columns the pattern leaves.
inline ir::ExprRef expand_scatter_mask(const Emitter& e, const std::vector<ir::ExprRef>& args,
                                       const ir::Attrs& kwargs) {
  const ir::ShapedType& in = shaped(e, args.at(0), "input");
  const ir::ShapedType& dst = shaped(e, args.at(1), "destination");
  if (in.shape.size() != 2 || dst.shape.size() != 2)
    e.fail("has a tile form for rank-2 operands only");
  const ir::Attrs pattern =
      ir::Attrs{}.with("mask_pattern", kwargs.get<std::int64_t>("mask_pattern").value_or(0));
  return ScatterBlend(e, dst.dtype)
      .blend({in.shape[0], dst.shape[1]}, args[1], in.shape,
             [&](std::string name, const ir::VarRef& zeros, const ir::ExprRef& ones) {
               return e.bind(std::move(name), "tile.scatter_mask", {zeros, ones ? ones : args[0]},
                             pattern);
             });
}

/// tensor.scatter_update(input, index, src, dim=-2) on rank-2 operands: the flat index of
/// element c of source row k is index.flat[k] * columns + c (INT16 for a 2-byte dtype), then the
/// blend of two tile.scatter.
inline ir::ExprRef expand_scatter_update(const Emitter& e, const std::vector<ir::ExprRef>& args) {
  const ir::ShapedType& in = shaped(e, args.at(0), "input");
  const ir::ShapedType& ix = shaped(e, args.at(1), "index");
  const ir::ShapedType& src = shaped(e, args.at(2), "source");
  if (in.shape.size() != 2 || src.shape.size() != 2)
    e.fail("has a tile form for 2-D input and source only");
  const std::int64_t m = constant_dim(e, in.shape[0], "input shape");
  const std::int64_t d = constant_dim(e, in.shape[1], "input shape");
  const std::int64_t n = constant_dim(e, src.shape[0], "source shape");
  const core::DataType i32 = core::DataType::INT32;
  const bool narrow = core::bit_width(in.dtype) != 32;
  if (narrow && m * d > 32767)
    e.fail("has flat indices beyond INT16 (" + std::to_string(m) + " * " + std::to_string(d) +
           " > 32767) for a 16-bit dtype");
  auto n_ = [](std::int64_t v) { return Emitter::index(v); };
  const ir::VarRef col = e.bind("scatter_update_col", "tile.ci",
                                {ir::ConstInt::make(0, i32), Emitter::tuple({n_(1), n_(d)})},
                                ir::Attrs{}.with("dtype", i32).with("descending", false));
  const ir::VarRef tmpl = ScatterBlend(e, i32).full("scatter_update_tmpl", {n_(n), n_(d)}, i32, 0);
  const ir::VarRef col_nd = e.bind("scatter_update_col_nd", "tile.col_expand", {tmpl, col});
  ir::ExprRef idx32 = args[1];
  if (ix.dtype != i32)
    idx32 = e.bind("scatter_update_idx32", "tile.cast", {args[1]},
                   ir::Attrs{}.with("target_type", i32).with("mode", std::int64_t{0}));
  const ir::VarRef idx_flat = e.reshape("scatter_update_idx_flat", idx32, {n_(n), n_(1)});
  const ir::VarRef base =
      e.bind("scatter_update_row_base", "tile.muls", {idx_flat, ir::ConstInt::make(d, i32)});
  ir::ExprRef flat = e.bind("scatter_update_flat_idx", "tile.row_expand_add", {col_nd, base});
  if (narrow)
    flat = e.bind(
        "scatter_update_flat_i16", "tile.cast", {flat},
        ir::Attrs{}.with("target_type", core::DataType::INT16).with("mode", std::int64_t{0}));
  return ScatterBlend(e, in.dtype)
      .blend(in.shape, args[0], src.shape,
             [&](std::string name, const ir::VarRef& zeros, const ir::ExprRef& ones) {
               return e.bind(std::move(name), "tile.scatter", {zeros, ones ? ones : args[2], flat});
             });
}

/// tensor.paged_gather(src, indices, block_table) as upstream lowers it, row by row: an on-chip
/// [max_indices, size] tile in `space` (Mat unless said) and a loop over the indices that reads
/// logical row l and its block's entry and gathers source row
/// block_table[l / block_size] * block_size + l % block_size (columns from col_off) into row i.
inline ir::ExprRef expand_paged_gather(const Emitter& e, const std::vector<ir::ExprRef>& args,
                                       const ir::Attrs& kw) {
  if (kw.get<bool>("is_trans").value_or(false)) e.fail("with is_trans=True has no tile form yet");
  const ir::ShapedType& src = shaped(e, args.at(0), "source");
  const ir::ShapedType& idx = shaped(e, args.at(1), "indices");
  const ir::ShapedType& table = shaped(e, args.at(2), "block table");
  const std::int64_t block = kw.get<std::int64_t>("block_size").value_or(1),
                     size = kw.get<std::int64_t>("size").value_or(1),
                     rows = kw.get<std::int64_t>("max_indices").value_or(1),
                     col = kw.get<std::int64_t>("col_off").value_or(0);
  if (block < 1 || size < 1 || rows < 1 || col < 0)
    e.fail("needs block_size, size and max_indices >= 1 and col_off >= 0");
  const ir::VarRef acc = e.bind(
      "paged_acc", "tile.create", {Emitter::tuple({Emitter::index(rows), Emitter::index(size)})},
      Emitter::in(kw.get<ir::MemorySpace>("space").value_or(ir::MemorySpace::Mat))
          .with("dtype", src.dtype));
  // An element of an INT32 [n] or [1, n] operand, as an index.
  auto read = [](const Emitter& b, std::string name, const ir::ExprRef& t,
                 const ir::ShapedType& type, ir::ExprRef at) -> ir::ExprRef {
    std::vector<ir::ExprRef> where{std::move(at)};
    if (type.shape.size() == 2) where.insert(where.begin(), Emitter::index(0));
    return ir::Cast::make(b.bind(std::move(name), "tensor.read", {t, Emitter::tuple(where)}),
                          core::DataType::INDEX);
  };
  return e.loop(
      {"paged_i", "paged_rows", "paged_gathered"}, idx.shape.back(), acc,
      [&](const ir::VarRef& i, const ir::VarRef& carried, const Emitter& b) {
        const ir::ExprRef logical = read(b, "paged_logical", args[1], idx, i);
        const ir::ExprRef entry = read(b, "paged_block", args[2], table,
                                       ir::FloorDiv::make(logical, Emitter::index(block)));
        const ir::ExprRef row = ir::Add::make(ir::Mul::make(entry, Emitter::index(block)),
                                              ir::FloorMod::make(logical, Emitter::index(block)));
        return ir::ExprRef(b.bind("paged_row", "tile.gather_row",
                                  {carried, args[0], Emitter::tuple({i, Emitter::index(0)}),
                                   Emitter::tuple({row, Emitter::index(col)}),
                                   Emitter::tuple({Emitter::index(1), Emitter::index(size)})}));
      });
}

/// tensor.gather(input, index, dim=d): out[.., k] = input[.., index[.., k], ..] along `d`, for
/// rank 2 along the last dimension and rank 3 along any (upstream's four lowerings). Along the
/// last dimension, A5 gathers all rows in one tile.gather of flat indices (row * columns +
/// index), A2/A3 one row at a time into an accumulated tile; along a leading dimension of a
/// rank-3 input, each output row gathers from the flattened input plane by flat index. A rank-3
/// result is the 2-D tile [I0 * I1, K].
class GatherExpansion {
 public:
  GatherExpansion(const Emitter& e, const std::vector<ir::ExprRef>& args, const ir::Attrs& kwargs,
                  TileArch arch)
      : e_(e),
        input_(args.at(0)),
        index_(args.at(1)),
        in_(shaped(e, input_, "input")),
        ix_(shaped(e, index_, "index")),
        arch_(arch) {
    const auto rank = static_cast<std::int64_t>(in_.shape.size());
    if (rank < 2) e.fail("needs an input of rank 2 or 3, got rank " + std::to_string(rank));
    const std::int64_t d = kwargs.get<std::int64_t>("dim").value_or(-1);
    dim_ = d < 0 ? d + rank : d;
    if (dim_ < 0 || dim_ >= rank) e.fail("has dim=" + std::to_string(d) + " out of range");
    rank_ = rank;
  }

  ir::ExprRef run() const {
    if (rank_ == 2 && dim_ == 1) return last_dim_2d();
    if (rank_ == 3 && dim_ == 2) return last_dim_3d();
    if (rank_ == 3) return leading_dim_3d();
    e_.fail(
        "has a tile form along the last dimension of a rank-2 input or any dimension of a "
        "rank-3 one, not rank " +
        std::to_string(rank_) + " dim " + std::to_string(dim_));
  }

 private:
  std::int64_t in_dim(std::size_t i) const { return constant_dim(e_, in_.shape[i], "input shape"); }
  std::int64_t ix_dim(std::size_t i) const { return constant_dim(e_, ix_.shape[i], "index shape"); }
  bool tile_input() const { return ir::isa<ir::TileType>(*input_->type); }
  static ir::ExprRef n(std::int64_t v) { return Emitter::index(v); }

  /// INT16 flat indices reach 32767: rows * columns must stay below.
  void check_int16_range(std::int64_t rows, std::int64_t cols) const {
    if (ix_.dtype != core::DataType::INT16) return;
    const std::int64_t max_rows = cols == 0 ? 32768 : 32768 / cols;
    if (rows > max_rows)
      e_.fail("with INT16 indices on A5 has rows (" + std::to_string(rows) + ") * columns (" +
              std::to_string(cols) +
              ") beyond the INT16 flat index range (rows <= " + std::to_string(max_rows) + ")");
  }

  /// One row's gather with its INT32 scratch tile.
  static ir::VarRef row_gather(const Emitter& b, const ir::VarRef& src, const ir::VarRef& idx,
                               std::int64_t cols, const std::string& name) {
    const ir::VarRef tmp = b.create(name + "_tmp", {n(1), n(cols)}, core::DataType::INT32);
    return b.bind(name, "tile.gather", {src, idx, tmp});
  }

  /// A [rows, cols] tile accumulated over `stop` iterations, each assembling the [1, cols] row
  /// `row(i, body)` gives at row i.
  ir::VarRef accumulate(
      const Emitter& e, const std::string& name, const ir::ExprRef& stop, std::int64_t rows,
      std::int64_t cols,
      const std::function<ir::VarRef(const ir::VarRef&, const Emitter&)>& row) const {
    const ir::VarRef init = e.create(name + "_acc_init", {n(rows), n(cols)}, in_.dtype);
    return e.loop(
        {name + "_lv", name + "_ia", name + "_rv"}, stop, init,
        [&](const ir::VarRef& i, const ir::VarRef& acc, const Emitter& b) {
          const ir::VarRef r = row(i, b);
          return b.bind(name + "_asmbl", "tile.assemble", {acc, r, Emitter::tuple({i, n(0)})});
        });
  }

  /// A tile slice keeps its parent's row stride, which flat indices do not know: copied into a
  /// fresh contiguous tile first.
  ir::VarRef contiguous(const ir::VarRef& src, std::int64_t rows, std::int64_t cols) const {
    if (!tile_input()) return src;
    const ir::VarRef alloc = e_.create("gather_src_alloc", {n(rows), n(cols)}, in_.dtype);
    return e_.bind("gather_src_copy", "tile.assemble", {alloc, src, Emitter::tuple({n(0), n(0)})});
  }

  /// A5: flat[i, j] = i * src_cols + idx[i, j], computed in INT32.
  ir::ExprRef flat_indices(const ir::VarRef& idx, std::int64_t rows, std::int64_t src_cols,
                           std::int64_t idx_cols) const {
    const core::DataType i32 = core::DataType::INT32;
    auto cast = [&](const ir::ExprRef& v, core::DataType to, std::string name) -> ir::ExprRef {
      return e_.bind(std::move(name), "tile.cast", {v},
                     ir::Attrs().with("target_type", to).with("mode", std::int64_t{0}));
    };
    ir::ExprRef idx32 = ix_.dtype == i32 ? ir::ExprRef(idx) : cast(idx, i32, "gather_idx_i32");
    if (rows == 1) return ix_.dtype == i32 ? idx32 : cast(idx32, ix_.dtype, "gather_flat_cast");
    const ir::Attrs ci = ir::Attrs().with("dtype", i32).with("descending", false);
    ir::ExprRef flat;
    if (idx_cols % 8 == 0) {  // an INT32 row of a multiple of 8 is 32-byte aligned
      const ir::VarRef lin =
          e_.bind("gather_lin", "tile.ci",
                  {Emitter::int32(0), Emitter::tuple({n(1), n(rows * idx_cols)})}, ci);
      const ir::VarRef lin2d = e_.reshape("gather_lin2d", lin, {n(rows), n(idx_cols)});
      const ir::VarRef row_ids =
          e_.bind("gather_row_ids", "tile.divs", {lin2d, Emitter::int32(idx_cols)});
      const ir::VarRef base =
          e_.bind("gather_row_base", "tile.muls", {row_ids, Emitter::int32(src_cols)});
      flat = e_.bind("gather_flat_idx", "tile.add", {idx32, base});
    } else {
      const ir::VarRef ids = e_.bind("gather_ci_rows", "tile.ci",
                                     {Emitter::int32(0), Emitter::tuple({n(1), n(rows)})}, ci);
      const ir::VarRef column = e_.reshape("gather_row_arange", ids, {n(rows), n(1)});
      const ir::VarRef base =
          e_.bind("gather_row_base", "tile.muls", {column, Emitter::int32(src_cols)});
      flat = e_.bind("gather_flat_idx", "tile.row_expand_add", {idx32, base});
    }
    return ix_.dtype == i32 ? flat : cast(flat, ix_.dtype, "gather_flat_cast");
  }

  /// The A5 full-tile gather of [rows, src_cols] by [rows, idx_cols] flat indices.
  ir::VarRef flat_gather(const ir::VarRef& src, const ir::VarRef& idx, std::int64_t rows,
                         std::int64_t src_cols, std::int64_t idx_cols) const {
    const ir::ExprRef flat = flat_indices(idx, rows, src_cols, idx_cols);
    const ir::VarRef tmp = e_.create("gather_tmp", {n(rows), n(idx_cols)}, core::DataType::INT32);
    return e_.bind("gather", "tile.gather", {src, flat, tmp});
  }

  ir::ExprRef last_dim_2d() const {
    const std::int64_t rows = ix_dim(0), src_cols = in_dim(1), k = ix_dim(1);
    if (arch_ == TileArch::A5) {
      check_int16_range(rows, src_cols);
      const ir::VarRef inp =
          e_.load_or_slice("gather_inp", input_, {n(0), n(0)}, {n(rows), n(src_cols)});
      const ir::VarRef src = contiguous(inp, rows, src_cols);
      const ir::VarRef idx = e_.load_or_slice("gather_idx", index_, {n(0), n(0)}, {n(rows), n(k)});
      return flat_gather(src, idx, rows, src_cols, k);
    }
    return accumulate(
        e_, "gather", ix_.shape[0], rows, k, [&](const ir::VarRef& i, const Emitter& b) {
          const ir::VarRef inp =
              b.load_or_slice("gather_inp_row", input_, {i, n(0)}, {n(1), n(src_cols)});
          const ir::VarRef idx = b.load_or_slice("gather_idx_row", index_, {i, n(0)}, {n(1), n(k)});
          return row_gather(b, inp, idx, k, "gather_row");
        });
  }

  ir::ExprRef last_dim_3d() const {
    const std::int64_t i0 = ix_dim(0), i1 = ix_dim(1), src_cols = in_dim(2), k = ix_dim(2);
    if (arch_ == TileArch::A5) {
      check_int16_range(i0 * i1, src_cols);
      const ir::VarRef raw = e_.load_or_slice("gather_inp_raw", input_, {n(0), n(0), n(0)},
                                              {n(i0), n(i1), n(src_cols)});
      const ir::VarRef inp = e_.reshape("gather_inp", raw, {n(i0 * i1), n(src_cols)});
      const ir::VarRef src = contiguous(inp, i0 * i1, src_cols);
      const ir::VarRef idx_raw =
          e_.load_or_slice("gather_idx_raw", index_, {n(0), n(0), n(0)}, {n(i0), n(i1), n(k)});
      const ir::VarRef idx = e_.reshape("gather_idx", idx_raw, {n(i0 * i1), n(k)});
      const ir::VarRef out = flat_gather(src, idx, i0 * i1, src_cols, k);
      return e_.reshape("gather_out", out, {n(i0 * i1), n(k)});
    }
    const ir::VarRef outer = accumulate(
        e_, "gather_outer", ix_.shape[0], i0, i1 * k, [&](const ir::VarRef& a, const Emitter& ob) {
          const ir::VarRef inner = accumulate(
              ob, "gather_inner", ix_.shape[1], i1, k, [&](const ir::VarRef& b, const Emitter& bs) {
                const std::vector<ir::ExprRef> at{a, b, n(0)};
                const ir::VarRef inp_raw =
                    bs.load_or_slice("gather_inp_raw", input_, at, {n(1), n(1), n(src_cols)});
                const ir::VarRef inp = bs.reshape("gather_inp_row", inp_raw, {n(1), n(src_cols)});
                const ir::VarRef idx_raw =
                    bs.load_or_slice("gather_idx_raw", index_, at, {n(1), n(1), n(k)});
                const ir::VarRef idx = bs.reshape("gather_idx_row", idx_raw, {n(1), n(k)});
                return row_gather(bs, inp, idx, k, "gather_row");
              });
          return ob.reshape("gather_inner_flat", inner, {n(1), n(i1 * k)});
        });
    return e_.reshape("gather_out", outer, {n(i0 * i1), n(k)});
  }

  /// Along dimension 0 or 1 of a rank-3 input: output row r = (i0, i1) gathers from the input's
  /// plane (all of dimension `dim`, the last) flattened to one row, at index * columns + k. The
  /// INT32 flat index matches only the 32-bit tile.gather form: FP32 or INT32 input.
  ir::ExprRef leading_dim_3d() const {
    if (in_.dtype != core::DataType::FP32 && in_.dtype != core::DataType::INT32)
      e_.fail("along dimension " + std::to_string(dim_) +
              " of a rank-3 input needs an FP32 or INT32 input (a 32-bit flat index), got " +
              std::string(core::dtype_name(in_.dtype)));
    const std::int64_t i0 = ix_dim(0), i1 = ix_dim(1), i2 = ix_dim(2);
    const std::int64_t plane = in_dim(static_cast<std::size_t>(dim_)) * in_dim(2);
    const std::int64_t src_cols = in_dim(2);
    const ir::VarRef range =
        e_.bind("gather_range", "tile.ci", {Emitter::int32(0), Emitter::tuple({n(1), n(i2)})},
                ir::Attrs().with("dtype", core::DataType::INT32));
    const ir::VarRef rows = accumulate(
        e_, "gather_main", n(i0 * i1), i0 * i1, i2, [&](const ir::VarRef& r, const Emitter& b) {
          const ir::ExprRef a = ir::FloorDiv::make(r, n(i1));
          const ir::ExprRef c = ir::FloorMod::make(r, n(i1));
          const bool first = dim_ == 0;
          const ir::VarRef inp_raw =
              b.load_or_slice("gather_inp_raw", input_,
                              first ? std::vector<ir::ExprRef>{n(0), c, n(0)}
                                    : std::vector<ir::ExprRef>{a, n(0), n(0)},
                              first ? std::vector<ir::ExprRef>{in_.shape[0], n(1), in_.shape[2]}
                                    : std::vector<ir::ExprRef>{n(1), in_.shape[1], in_.shape[2]});
          const ir::VarRef inp_2d =
              b.reshape("gather_inp_2d", inp_raw, {in_.shape[first ? 0 : 1], in_.shape[2]});
          const ir::VarRef inp = b.reshape("gather_inp_flat", inp_2d, {n(1), n(plane)});
          const ir::VarRef idx_raw =
              b.load_or_slice("gather_idx_raw", index_, {a, c, n(0)}, {n(1), n(1), ix_.shape[2]});
          const ir::VarRef idx_row = b.reshape("gather_idx_row", idx_raw, {n(1), ix_.shape[2]});
          const ir::VarRef scaled =
              b.bind("gather_idx_s", "tile.muls", {idx_row, Emitter::int32(src_cols)});
          const ir::VarRef flat = b.bind("gather_fidx", "tile.add", {scaled, range});
          return row_gather(b, inp, flat, i2, "gather_row");
        });
    return e_.reshape("gather_out", rows, {n(i0 * i1), n(i2)});
  }

  const Emitter& e_;
  ir::ExprRef input_, index_;
  const ir::ShapedType& in_;
  const ir::ShapedType& ix_;
  TileArch arch_;
  std::int64_t rank_ = 0, dim_ = 0;
};

}  // namespace pypto::transforms::detail::tensor_to_tile

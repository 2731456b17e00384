// A seeded, deterministic generator of well-formed random IR and a deep copier for the
// structural property tests (not a test file itself: only tests/unit/*.cpp are compiled).
//
// Generator: `generate_program(seed, free, options)` builds a Program of 1-3 functions whose
// parameters are tensors (with constant dims, shape symbols, symbols naming a later scalar
// parameter, bare valid_shape symbols, strides) and scalars, and whose bodies are sequences of
// scalar assignments with nested arithmetic, op calls with kwargs/attrs, tile loads with attached
// memrefs that alias allocation bases, for loops with iter_args and yields, ifs with return vars,
// scopes, calls and submits of earlier functions, and constants of several dtypes (including
// -0.0, NaNs with payloads and infinities). The same seed and free-variable pool give the same
// program on every platform: the PRNG is our own splitmix64 and no std distribution is used
// (their output differs between standard libraries).
//
// Copier: `Copier(options).copy(node)` rebuilds a node graph with fresh objects for every node
// (shared DAG nodes are copied per use), fresh Vars for every bound variable (definitions,
// signature shape symbols and allocation bases inside a function: alpha-renaming) while free
// variables stay shared, other name hints, spans and comments. With a mutation kind and a site
// index it changes exactly one semantic field at the index-th site of that kind; `sites` counts
// the sites seen, so a first unmutated copy enumerates them.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pypto/ir.hpp"
#include "test_rng.hpp"

namespace pypto::test::rir {

using namespace pypto::ir;  // NOLINT: the generator reads like the IR it builds
using core::DataType;

// ---- PRNG -------------------------------------------------------------------------------------

using pypto::test::SplitMix64;

// ---- free variables shared by generated programs ----------------------------------------------

/// Free variables (never bound by generated code): the same pool must be passed to get the same
/// program twice.
struct FreeVars {
  VarRef g0, g1, gf;
  static FreeVars make() {
    return {Var::make("G0", ScalarType::make(DataType::INDEX)),
            Var::make("G1", ScalarType::make(DataType::INDEX)),
            Var::make("GF", ScalarType::make(DataType::FP32))};
  }
  std::vector<VarRef> of_dtype(DataType t) const {
    std::vector<VarRef> out;
    for (const auto& v : {g0, g1, gf})
      if (static_cast<const ScalarType&>(*v->type).dtype == t) out.push_back(v);
    return out;
  }
};

struct GenOptions {
  int max_functions = 3;
  int max_stmts = 6;
  int max_depth = 2;  ///< nesting of for / if / scope
  bool tiny = false;  ///< one function, one param, one statement: structural collisions likely
};

// ---- generator --------------------------------------------------------------------------------

class Generator {
 public:
  Generator(std::uint64_t seed, const FreeVars& free, GenOptions options)
      : rng_(seed * 0x2545f4914f6cdd1dULL + 0x1234567ULL), free_(free), opt_(options) {}

  ProgramRef program() {
    const int n = opt_.tiny ? 1 : static_cast<int>(rng_.range(1, opt_.max_functions));
    std::vector<FunctionRef> fns;
    for (int i = 0; i < n; ++i) {
      fns.push_back(function(std::string("f") + std::to_string(i)));
      callees_.push_back(fns.back()->name);
    }
    return Program::make("prog", std::move(fns));
  }

 private:
  static constexpr DataType kScalarDtypes[] = {DataType::INDEX, DataType::INT32, DataType::INT64,
                                               DataType::FP32,  DataType::FP16,  DataType::BOOL};
  static constexpr DataType kTensorDtypes[] = {DataType::FP32, DataType::FP16, DataType::BF16,
                                               DataType::INT8};

  std::string fresh(std::string_view base) { return std::string(base) + std::to_string(names_++); }
  DataType scalar_dtype() { return kScalarDtypes[rng_.below(std::size(kScalarDtypes))]; }
  static bool is_scalar(const TypeRef& t) { return isa<ScalarType>(t); }

  // -- constants and scalar expressions --

  ExprRef constant(DataType t) {
    if (t == DataType::BOOL) return ConstBool::make(rng_.chance(50));
    if (core::is_float(t)) {
      switch (rng_.below(10)) {
        case 0: return ConstFloat::make(-0.0, t);
        case 1: return ConstFloat::make(0.0, t);
        case 2:  // a quiet NaN with a payload, sometimes negative
          return ConstFloat::make(
              std::bit_cast<double>(0x7ff8000000000000ULL | (rng_.below(4) + 1) |
                                    (rng_.chance(30) ? (1ULL << 63) : 0)),
              t);
        case 3: return ConstFloat::make(std::numeric_limits<double>::infinity(), t);
        default: return ConstFloat::make(static_cast<double>(rng_.range(-40, 40)) * 0.25, t);
      }
    }
    return ConstInt::make(rng_.range(-4, 300), t);
  }

  std::vector<VarRef> visible_of_dtype(DataType t) const {
    std::vector<VarRef> out;
    for (const auto& v : visible_)
      if (const auto* st = as<ScalarType>(v->type.get()); st && st->dtype == t) out.push_back(v);
    return out;
  }

  ExprRef leaf(DataType t) {
    auto vars = visible_of_dtype(t);
    if (!opt_.tiny && rng_.chance(15))
      for (const auto& g : free_.of_dtype(t)) vars.push_back(g);
    if (!vars.empty() && rng_.chance(65)) return rng_.pick(vars);
    return constant(t);
  }

  ExprRef scalar_expr(DataType t, int depth) {
    if (depth <= 0 || rng_.chance(35)) return leaf(t);
    if (t == DataType::BOOL) {
      switch (rng_.below(4)) {
        case 0: return And::make(scalar_expr(t, depth - 1), scalar_expr(t, depth - 1));
        case 1: return Not::make(scalar_expr(t, depth - 1));
        case 2:
          return Lt::make(scalar_expr(DataType::INDEX, depth - 1),
                          scalar_expr(DataType::INDEX, depth - 1));
        default:
          return Eq::make(scalar_expr(DataType::INT32, depth - 1),
                          scalar_expr(DataType::INT32, depth - 1));
      }
    }
    auto l = scalar_expr(t, depth - 1), r = scalar_expr(t, depth - 1);
    if (core::is_float(t)) {
      switch (rng_.below(6)) {
        case 0: return Add::make(l, r);
        case 1: return Sub::make(l, r);
        case 2: return Mul::make(l, r);
        case 3: return FloatDiv::make(l, r);
        case 4: return Neg::make(l);
        default: return Cast::make(scalar_expr(DataType::INDEX, depth - 1), t);
      }
    }
    switch (rng_.below(9)) {
      case 0: return Add::make(l, r);
      case 1: return Sub::make(l, r);
      case 2: return Mul::make(l, r);
      case 3: return FloorDiv::make(l, r);
      case 4: return Min::make(l, r);
      case 5: return Max::make(l, r);
      case 6: return BitAnd::make(l, r);
      case 7: return Abs::make(l);
      default: return Cast::make(scalar_expr(DataType::FP32, depth - 1), t);
    }
  }

  // -- types --

  ExprRef dim(std::vector<VarRef>& symbols) {
    switch (rng_.below(8)) {
      case 0:
        if (!symbols.empty()) return rng_.pick(symbols);
        [[fallthrough]];
      case 1: {
        auto s = Var::make(fresh("M"), ScalarType::make(DataType::INDEX));
        symbols.push_back(s);
        return s;
      }
      case 2:
        if (!symbols.empty()) return Add::make(rng_.pick(symbols), ConstInt::make(1));
        [[fallthrough]];
      case 3: return ConstInt::make(16 << rng_.below(4), DataType::INT64);
      default: return ConstInt::make(16 << rng_.below(4));
    }
  }

  TypeRef tensor_type(std::vector<VarRef>& symbols, bool allow_view) {
    const DataType dt = kTensorDtypes[rng_.below(std::size(kTensorDtypes))];
    const std::size_t rank = 1 + rng_.below(3);
    std::vector<ExprRef> shape;
    for (std::size_t i = 0; i < rank; ++i) shape.push_back(dim(symbols));
    std::optional<TensorView> view;
    if (allow_view && rng_.chance(25)) {
      TensorView v;
      v.layout = rng_.chance(50) ? TensorLayout::ND : TensorLayout::NZ;
      if (rng_.chance(50))
        for (std::size_t i = 0; i < rank; ++i) v.stride.push_back(ConstInt::make(1 << (rank - i)));
      if (rng_.chance(60)) {
        for (std::size_t i = 0; i < rank; ++i)
          v.valid_shape.push_back(
              i == 0 ? ExprRef(Var::make(fresh("V"), ScalarType::make(DataType::INDEX)))
                     : shape[i]);
      }
      if (rng_.chance(30)) v.pad = PadValue::zero;
      view = std::move(v);
    }
    return TensorType::make(dt, std::move(shape), std::move(view));
  }

  // -- statements --

  VarRef def(std::string_view base, TypeRef t) {
    auto v = Var::make(fresh(base), std::move(t));
    return v;
  }

  std::vector<VarRef> visible_with_type(const TypeRef& t) const {
    std::vector<VarRef> out;
    for (const auto& v : visible_)
      if (v->type == t || (is_scalar(t) && is_scalar(v->type) &&
                           static_cast<const ScalarType&>(*t).dtype ==
                               static_cast<const ScalarType&>(*v->type).dtype))
        out.push_back(v);
    return out;
  }

  std::vector<VarRef> visible_tensors() const {
    std::vector<VarRef> out;
    for (const auto& v : visible_)
      if (isa<TensorType>(v->type)) out.push_back(v);
    return out;
  }

  StmtRef scalar_assign() {
    const DataType t = opt_.tiny ? DataType::INDEX : scalar_dtype();
    auto value = opt_.tiny ? ConstInt::make(rng_.range(0, 2)) : scalar_expr(t, 3);
    auto v = def("s", ScalarType::make(t));
    auto s = AssignStmt::make(v, value);
    visible_.push_back(v);
    return s;
  }

  StmtRef tensor_call() {
    auto tensors = visible_tensors();
    if (tensors.empty()) return scalar_assign();
    const auto& a = rng_.pick(tensors);
    auto same = visible_with_type(a->type);
    ExprRef value;
    if (opt_.tiny || rng_.chance(60)) {
      static const std::vector<std::string> ops = {"tensor.add", "tensor.sub", "tensor.mul",
                                                   "tensor.maximum"};
      value = Call::make(Op::make(ops[rng_.below(opt_.tiny ? 2 : ops.size())]),
                         {a, rng_.pick(same)}, a->type);
    } else {
      Attrs kwargs{{"mode", rng_.range(0, 3)}, {"round", rng_.chance(50) ? "rint" : "floor"}};
      if (rng_.chance(40))
        kwargs.entries.push_back({"scale", static_cast<double>(rng_.range(1, 8)) * 0.5});
      if (rng_.chance(30)) kwargs.entries.push_back({"exact", rng_.chance(50)});
      Attrs attrs;
      if (rng_.chance(40))
        attrs.entries.push_back({"tags", AttrValueList{rng_.range(0, 9), "t", MemorySpace::Vec}});
      if (rng_.chance(20)) attrs.entries.push_back({"dtype", DataType::FP16});
      value = Call::make(Op::make("tensor.adds"), {a, scalar_expr(DataType::FP32, 1)}, a->type,
                         std::move(kwargs), std::move(attrs));
    }
    auto v = def("t", a->type);
    visible_.push_back(v);
    return AssignStmt::make(v, value);
  }

  StmtRef tile_load() {
    auto tensors = visible_tensors();
    if (tensors.empty()) return scalar_assign();
    const auto& a = rng_.pick(tensors);
    const auto& tt = static_cast<const TensorType&>(*a->type);
    const std::int64_t side = 16 << rng_.below(2);
    MemRefRef memref;
    if (rng_.chance(60)) {
      if (bases_.empty() || rng_.chance(30))
        bases_.push_back(Var::make(fresh("base"), PtrType::make()));
      memref = MemRef::make(rng_.pick(bases_), ConstInt::make(rng_.range(0, 3) * 1024),
                            static_cast<std::uint64_t>(side * side * 4), rng_.chance(20));
    }
    std::optional<TileView> view;
    if (rng_.chance(30)) {
      TileView v;
      if (rng_.chance(50)) v.start_offset = ConstInt::make(0);
      if (rng_.chance(50)) v.blayout = TileLayout::col_major;
      view = v;
    }
    auto type = TileType::make(tt.dtype, {ConstInt::make(side), ConstInt::make(side)},
                               MemorySpace::Vec, view, memref);
    auto offsets = MakeTuple::make({ConstInt::make(0), ConstInt::make(0)});
    auto v = def("tl", type);
    auto s = AssignStmt::make(v, Call::make(Op::make("tile.load"), {a, offsets}, type,
                                            {{"target_memory", MemorySpace::Vec}}));
    visible_.push_back(v);
    return s;
  }

  StmtRef eval_stmt() {
    return EvalStmt::make(Call::make(Op::make("system.notify"), {scalar_expr(DataType::INDEX, 1)},
                                     UnknownType::make(), {{"channel", rng_.range(0, 3)}}));
  }

  StmtRef call_function() {
    auto tensors = visible_tensors();
    if (callees_.empty() || tensors.empty()) return eval_stmt();
    const auto& callee = rng_.pick(callees_);
    const auto& a = rng_.pick(tensors);
    std::vector<ExprRef> args{a};
    if (rng_.chance(50)) args.push_back(rng_.pick(tensors));
    if (rng_.chance(50)) {
      auto v = def("r", a->type);
      auto s = AssignStmt::make(v, Call::make(GlobalVar::make(callee), args, a->type));
      visible_.push_back(v);
      return s;
    }
    // Submit, then project the result and the task id.
    SubmitLaunch launch;
    auto tids = visible_of_dtype(DataType::TASK_ID);
    if (!tids.empty() && rng_.chance(70)) launch.deps.push_back(rng_.pick(tids));
    if (rng_.chance(40)) launch.core_num = ConstInt::make(rng_.range(1, 8));
    launch.sync_start = rng_.chance(30);
    launch.allow_early_resolve = rng_.chance(30);
    if (rng_.chance(20)) launch.predicate = scalar_expr(DataType::BOOL, 1);
    auto tuple_t = TupleType::make({a->type, ScalarType::make(DataType::TASK_ID)});
    auto task = def("task", tuple_t);
    auto out = def("out", a->type);
    auto tid = def("tid", ScalarType::make(DataType::TASK_ID));
    std::vector<StmtRef> ss{
        AssignStmt::make(task, Submit::make(GlobalVar::make(callee), args, tuple_t, launch)),
        AssignStmt::make(out, TupleGetItem::make(task, 0)),
        AssignStmt::make(tid, TupleGetItem::make(task, 1))};
    visible_.push_back(task);
    visible_.push_back(out);
    visible_.push_back(tid);
    pending_.insert(pending_.end(), ss.begin() + 1, ss.end());
    return ss[0];
  }

  /// A value of `t` visible now (a constant for a scalar type when no var is visible).
  ExprRef value_of(const TypeRef& t) {
    auto vs = visible_with_type(t);
    if (!vs.empty()) return rng_.pick(vs);
    return constant(static_cast<const ScalarType&>(*t).dtype);
  }

  StmtRef for_stmt(int depth) {
    auto i = def("i", ScalarType::make(DataType::INDEX));
    auto idx_vars = visible_of_dtype(DataType::INDEX);
    ExprRef stop = !idx_vars.empty() && rng_.chance(50) ? ExprRef(rng_.pick(idx_vars))
                                                        : ConstInt::make(rng_.range(1, 64));
    std::vector<IterArgRef> iter_args;
    const std::size_t n_iter = rng_.below(3);
    for (std::size_t k = 0; k < n_iter && !visible_.empty(); ++k) {
      const auto& init = rng_.pick(visible_);
      iter_args.push_back(IterArg::make(fresh("acc"), init->type, init));
    }
    const std::size_t mark = visible_.size();
    visible_.push_back(i);
    for (const auto& ia : iter_args) visible_.push_back(ia);
    auto stmts = block(depth + 1, 1 + static_cast<int>(rng_.below(3)));
    if (!iter_args.empty()) {
      std::vector<ExprRef> ys;
      for (const auto& ia : iter_args) ys.push_back(value_of(ia->type));
      stmts.push_back(YieldStmt::make(std::move(ys)));
    }
    visible_.resize(mark);
    std::vector<VarRef> rvs;
    for (const auto& ia : iter_args) rvs.push_back(def("rv", ia->type));
    const ForKind kind = iter_args.empty() && rng_.chance(30) ? ForKind::Unroll
                         : rng_.chance(30)                    ? ForKind::Parallel
                                                              : ForKind::Sequential;
    Attrs attrs;
    if (rng_.chance(20)) attrs.entries.push_back({"unroll_factor", rng_.range(2, 4)});
    auto s = ForStmt::make(i, ConstInt::make(0), stop, ConstInt::make(rng_.range(1, 2)), iter_args,
                           SeqStmts::make(std::move(stmts)), rvs, kind, std::move(attrs));
    for (const auto& rv : rvs) visible_.push_back(rv);
    return s;
  }

  StmtRef if_stmt(int depth) {
    auto cond = scalar_expr(DataType::BOOL, 2);
    std::vector<TypeRef> rtypes;
    if (!visible_.empty() && rng_.chance(60)) rtypes.push_back(rng_.pick(visible_)->type);
    auto arm = [&] {
      const std::size_t mark = visible_.size();
      auto stmts = block(depth + 1, 1 + static_cast<int>(rng_.below(2)));
      if (!rtypes.empty()) stmts.push_back(YieldStmt::make({value_of(rtypes[0])}));
      visible_.resize(mark);
      return SeqStmts::make(std::move(stmts));
    };
    auto then_body = arm();
    StmtRef else_body = !rtypes.empty() || rng_.chance(50) ? StmtRef(arm()) : StmtRef();
    std::vector<VarRef> rvs;
    for (const auto& t : rtypes) rvs.push_back(def("phi", t));
    auto s = IfStmt::make(cond, then_body, else_body, rvs);
    for (const auto& rv : rvs) visible_.push_back(rv);
    return s;
  }

  StmtRef scope_stmt(int depth) {
    switch (rng_.below(3)) {
      case 0: {
        auto body = SeqStmts::make(block(depth + 1, 1 + static_cast<int>(rng_.below(3))));
        return InCoreScopeStmt::make(body, fresh("k"),
                                     rng_.chance(50) ? SplitMode::None : SplitMode::UpDown);
      }
      case 1: {
        auto body = SeqStmts::make(block(depth + 1, 1 + static_cast<int>(rng_.below(2))));
        return RuntimeScopeStmt::make(body, rng_.chance(50));
      }
      default: {
        auto aiv = def("aiv", ScalarType::make(DataType::INDEX));
        visible_.push_back(aiv);
        auto body = SeqStmts::make(block(depth + 1, 1 + static_cast<int>(rng_.below(2))));
        std::erase(visible_, aiv);  // the sub-block index is bound for the body only
        return SplitAivScopeStmt::make(aiv, body, SplitMode::LeftRight, fresh("split"));
      }
    }
  }

  StmtRef statement(int depth) {
    if (opt_.tiny) return rng_.chance(50) ? scalar_assign() : tensor_call();
    const bool nest = depth < opt_.max_depth;
    switch (rng_.below(nest ? 10 : 6)) {
      case 0:
      case 1: return scalar_assign();
      case 2:
      case 3: return tensor_call();
      case 4: return tile_load();
      case 5: return rng_.chance(50) ? call_function() : eval_stmt();
      case 6:
      case 7: return for_stmt(depth);
      case 8: return if_stmt(depth);
      default: return scope_stmt(depth);
    }
  }

  std::vector<StmtRef> block(int depth, int n) {
    std::vector<StmtRef> out;
    for (int k = 0; k < n; ++k) {
      out.push_back(statement(depth));
      for (auto& p : pending_) out.push_back(std::move(p));
      pending_.clear();
    }
    return out;
  }

  FunctionRef function(std::string name) {
    visible_.clear();
    bases_.clear();
    std::vector<VarRef> symbols;
    std::vector<Param> params;
    // A scalar parameter that an earlier tensor parameter's shape names.
    VarRef late_n;
    if (!opt_.tiny && rng_.chance(30)) {
      late_n = Var::make(fresh("n"), ScalarType::make(DataType::INDEX));
      symbols.push_back(late_n);
    }
    const std::size_t n_types = opt_.tiny ? 1 : 1 + rng_.below(2);
    std::vector<TypeRef> pool;
    for (std::size_t k = 0; k < n_types; ++k)
      pool.push_back(opt_.tiny
                         ? TensorType::make(DataType::FP32, {ConstInt::make(16 << rng_.below(2))})
                         : tensor_type(symbols, true));
    const std::size_t n_params = opt_.tiny ? 1 : n_types + rng_.below(3);
    for (std::size_t k = 0; k < n_params; ++k) {
      // Every pool type types a parameter (its symbols are then bound by the signature, so a
      // regenerated program is equal to this one); later parameters are random.
      if (k < n_types) {
        params.push_back({Var::make(fresh("a"), pool[k])});
      } else if (rng_.chance(70)) {
        const ParamDirection dir = rng_.chance(70)   ? ParamDirection::In
                                   : rng_.chance(50) ? ParamDirection::Out
                                                     : ParamDirection::InOut;
        params.push_back({Var::make(fresh("a"), rng_.pick(pool)), dir});
      } else {
        static constexpr DataType kParamScalars[] = {DataType::INDEX, DataType::FP32,
                                                     DataType::INT32};
        params.push_back({Var::make(fresh("p"), ScalarType::make(kParamScalars[rng_.below(3)]))});
      }
    }
    if (late_n) params.push_back({late_n});
    for (const auto& p : params) visible_.push_back(p.var);
    // Shape symbols (bound by the signature when a parameter's shape names them, else free)
    // may be used in the body.
    for (const auto& sym : symbols)
      if (sym != late_n) visible_.push_back(sym);
    auto stmts = block(
        0, opt_.tiny
               ? 1
               : 1 + static_cast<int>(rng_.below(static_cast<std::uint64_t>(opt_.max_stmts))));
    std::vector<ExprRef> rets;
    std::vector<TypeRef> rtypes;
    const std::size_t n_ret = opt_.tiny ? 1 : rng_.below(3);
    for (std::size_t k = 0; k < n_ret && !visible_.empty(); ++k) {
      rets.push_back(rng_.pick(visible_));
      rtypes.push_back(rets.back()->type);
    }
    stmts.push_back(ReturnStmt::make(std::move(rets)));
    static constexpr FunctionType kTypes[] = {FunctionType::Opaque, FunctionType::InCore,
                                              FunctionType::Orchestration, FunctionType::AIV};
    const FunctionType ft = opt_.tiny ? FunctionType::Opaque : kTypes[rng_.below(4)];
    Attrs attrs;
    if (!opt_.tiny && rng_.chance(30)) attrs.entries.push_back({"priority", rng_.range(0, 5)});
    if (!opt_.tiny && rng_.chance(20)) attrs.entries.push_back({"note", "hot"});
    FunctionOptions options;
    if (!opt_.tiny && rng_.chance(15)) options.with_level(Level::HOST);
    return Function::make(std::move(name), std::move(params), std::move(rtypes),
                          SeqStmts::make(std::move(stmts)), ft, std::move(attrs), options);
  }

  SplitMix64 rng_;
  const FreeVars& free_;
  GenOptions opt_;
  std::uint64_t names_ = 0;
  std::vector<VarRef> visible_;   // bound variables in scope, in definition order
  std::vector<VarRef> bases_;     // allocation bases of the current function
  std::vector<StmtRef> pending_;  // statements to append after the current one
  std::vector<std::string> callees_;
};

inline ProgramRef generate_program(std::uint64_t seed, const FreeVars& free,
                                   GenOptions options = {}) {
  return Generator(seed, free, options).program();
}

// ---- deep copy with optional single mutation --------------------------------------------------

enum class Mutation : std::uint8_t {
  None,
  ConstValue,      ///< one constant's value (int +-1, float sign bit flipped, bool negated)
  Dtype,           ///< one tensor/tile element dtype, or one shape-dim constant INDEX <-> INT64
  OpName,          ///< one callee name
  SwapArgs,        ///< two adjacent call args / binary operands that differ
  ParamDirection,  ///< one parameter direction
  KwargValue,      ///< one scalar kwarg value
  ReplaceVarUse,   ///< one use of a variable by another visible variable of the same type
  DropStmt,        ///< one statement of a SeqStmts
  ProgramKey,      ///< one program entry's name
};
inline constexpr std::size_t kMutationCount = 10;
constexpr std::string_view mutation_name(Mutation m) {
  constexpr std::string_view names[] = {"None",     "ConstValue",     "Dtype",      "OpName",
                                        "SwapArgs", "ParamDirection", "KwargValue", "ReplaceVarUse",
                                        "DropStmt", "ProgramKey"};
  return names[static_cast<std::size_t>(m)];
}

struct CopyOptions {
  Mutation mutation = Mutation::None;
  int site = -1;
  bool rename_functions = true;  ///< a standalone Function copy gets another (ignored) name
};

/// True unless `a` and `b` are certainly structurally different (conservative; used to skip
/// mutations that could be no-ops).
inline bool maybe_same_expr(const ExprRef& a, const ExprRef& b) {
  if (a == b) return true;
  if (!a || !b || a->kind() != b->kind()) return false;
  if (isa<Var>(a)) return false;  // two distinct variables
  if (auto x = as<ConstInt>(a)) {
    auto y = as<ConstInt>(b);
    return x->value == y->value && x->dtype() == y->dtype();
  }
  if (auto x = as<ConstFloat>(a)) {
    auto y = as<ConstFloat>(b);
    return std::bit_cast<std::uint64_t>(x->value) == std::bit_cast<std::uint64_t>(y->value) &&
           x->dtype() == y->dtype();
  }
  if (auto x = as<ConstBool>(a)) return x->value == as<ConstBool>(b)->value;
  if (auto x = as<BinaryExpr>(a)) {
    auto y = as<BinaryExpr>(b);
    return maybe_same_expr(x->left, y->left) && maybe_same_expr(x->right, y->right);
  }
  if (auto x = as<UnaryExpr>(a)) {
    auto y = as<UnaryExpr>(b);
    return x->type == y->type && maybe_same_expr(x->operand, y->operand);
  }
  return true;
}

/// Certainly the same type (pointer-equal, or scalar types of one dtype).
inline bool surely_same_type(const TypeRef& a, const TypeRef& b) {
  if (a == b) return true;
  const auto* x = as<ScalarType>(a.get());
  const auto* y = as<ScalarType>(b.get());
  return x && y && x->dtype == y->dtype;
}

class Copier {
 public:
  explicit Copier(CopyOptions options = {}) : opt_(options) {}

  std::array<int, kMutationCount> sites{};  ///< sites seen per mutation kind
  bool mutated = false;

  NodeRef copy(const NodeRef& n) {
    if (auto p = as<Program>(n)) return program(*p);
    if (auto f = as<Function>(n)) return function(*f, opt_.rename_functions);
    if (auto s = as<Stmt>(n)) return stmt(s);
    if (auto e = as<Expr>(n)) return expr(e);
    if (auto t = as<Type>(n)) return type(t);
    if (auto o = as<Op>(n)) return op(o);
    throw core::InternalError("Copier: unhandled node");
  }

  ProgramRef program(const Program& p) {
    std::vector<FunctionRef> fns;
    for (const auto& e : p.functions) {
      auto f = function(*e.function, false);
      if (site(Mutation::ProgramKey)) f = f->renamed(f->name + "_moved");
      fns.push_back(f);
    }
    return Program::make(p.name + "_copy", std::move(fns));
  }

  FunctionRef function(const Function& f, bool rename) {
    map_.clear();
    visible_.clear();
    in_function_ = true;
    // Signature symbols: Vars in parameter shape dims (through tuples and dim expressions) and
    // bare valid_shape slots, parameters excluded. They bind before the parameters' types.
    std::vector<VarRef> symbols;
    auto known = [&](const Var* v) {
      for (const auto& p : f.params)
        if (p.get() == v) return true;
      for (const auto& s : symbols)
        if (s.get() == v) return true;
      return false;
    };
    auto collect_dim = [&](auto&& self, const ExprRef& e) -> void {
      if (auto v = as<Var>(e)) {
        if (!known(v.get())) symbols.push_back(v);
      } else if (auto b = as<BinaryExpr>(e)) {
        self(self, b->left);
        self(self, b->right);
      } else if (auto u = as<UnaryExpr>(e)) {
        self(self, u->operand);
      } else if (auto mt = as<MakeTuple>(e)) {
        for (const auto& x : mt->elements) self(self, x);
      } else if (auto gi = as<TupleGetItem>(e)) {
        self(self, gi->tuple);
      }
    };
    auto bare = [&](const std::vector<ExprRef>& slots) {
      for (const auto& s : slots)
        if (auto v = as<Var>(s); v && !known(v.get())) symbols.push_back(v);
    };
    auto collect_type = [&](auto&& self, const TypeRef& t) -> void {
      if (auto tu = as<TupleType>(t)) {
        for (const auto& x : tu->types) self(self, x);
      } else if (auto sh = as<ShapedType>(t)) {
        for (const auto& d : sh->shape) collect_dim(collect_dim, d);
        if (auto te = as<TensorType>(t); te && te->tensor_view) bare(te->tensor_view->valid_shape);
        if (auto ti = as<TileType>(t); ti && ti->tile_view) bare(ti->tile_view->valid_shape);
      }
    };
    for (const auto& p : f.params) collect_type(collect_type, p->type);
    for (const auto& s : symbols) define(s);
    // Parameters: scalar-typed ones first (a shape may name a later scalar parameter).
    std::vector<VarRef> new_params(f.params.size());
    auto shaped = [](const TypeRef& t) { return isa<ShapedType>(t) || isa<TupleType>(t); };
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t i = 0; i < f.params.size(); ++i)
        if (shaped(f.params[i]->type) == (pass == 1)) new_params[i] = define(f.params[i]);
    std::vector<Param> params;
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      ParamDirection dir = f.param_directions[i];
      if (site(Mutation::ParamDirection))
        dir = dir == ParamDirection::In ? ParamDirection::Out : ParamDirection::In;
      params.push_back({new_params[i], dir});
    }
    std::vector<TypeRef> rtypes;
    for (const auto& t : f.return_types) rtypes.push_back(type(t));
    StmtRef body = f.body ? stmt(f.body) : StmtRef();
    Attrs attrs = copy_attrs(f.attrs);
    FunctionOptions o;
    if (f.level) o.with_level(*f.level);
    if (f.role) o.with_role(*f.role);
    o.with_runtime_binding(f.requires_runtime_binding);
    o.with_span(next_span());
    in_function_ = false;
    return Function::make(rename ? f.name + "_copy" : f.name, std::move(params), std::move(rtypes),
                          std::move(body), f.func_type, std::move(attrs), o);
  }

  // -- statements --

  StmtRef stmt(const StmtRef& s) {
    StmtRef out = stmt_inner(s);
    if (s->leading_comments.empty() && !isa<SeqStmts>(out)) {
      // Decorate: comments and spans are ignored by the comparison.
      auto m = with_comment(out);
      if (m) return m;
    }
    return out;
  }

  // -- expressions --

  ExprRef expr(const ExprRef& e) {
    if (isa<BinaryExpr>(e)) return binary(e);
    if (isa<UnaryExpr>(e) && !isa<Cast>(e)) return unary(e);
    switch (e->kind()) {
      case NodeKind::Var:
      case NodeKind::IterArg:
      case NodeKind::WindowBuffer: return use(as<Var>(e));
      case NodeKind::ConstInt: {
        auto c = as<ConstInt>(e);
        std::int64_t v = c->value;
        DataType dt = c->dtype();
        if (site(Mutation::ConstValue))
          v = v == std::numeric_limits<std::int64_t>::max() ? v - 1 : v + 1;
        if (in_dim_ && site(Mutation::Dtype))
          dt = dt == DataType::INDEX ? DataType::INT64 : DataType::INDEX;
        return ConstInt::make(v, dt, next_span());
      }
      case NodeKind::ConstFloat: {
        auto c = as<ConstFloat>(e);
        auto bits = std::bit_cast<std::uint64_t>(c->value);
        if (site(Mutation::ConstValue)) bits ^= 1ULL << 63;
        return ConstFloat::make(std::bit_cast<double>(bits), c->dtype(), next_span());
      }
      case NodeKind::ConstBool: {
        auto c = as<ConstBool>(e);
        return ConstBool::make(site(Mutation::ConstValue) ? !c->value : c->value, next_span());
      }
      case NodeKind::Cast: {
        auto c = as<Cast>(e);
        return Cast::make(expr(c->operand), c->target(), next_span());
      }
      case NodeKind::MemRef: {
        auto m = as<MemRef>(e);
        const bool saved = in_dim_;
        in_dim_ = false;
        auto off = expr(m->byte_offset);
        auto slot = m->slot_index ? expr(m->slot_index) : ExprRef();
        in_dim_ = saved;
        return MemRef::make(base(m->base), off, m->size, m->is_pinned, m->slot_count, slot,
                            next_span());
      }
      case NodeKind::Call: {
        auto c = as<Call>(e);
        auto o = op(c->op);
        auto args = exprs(c->args, true);
        return Call::make(o, std::move(args), type(c->type), copy_attrs(c->kwargs, true),
                          copy_attrs(c->attrs), next_span());
      }
      case NodeKind::Submit: {
        auto s = as<Submit>(e);
        auto o = op(s->op);
        auto args = exprs(s->args, true);
        SubmitLaunch l;
        l.deps = exprs(s->deps, false);
        l.core_num = s->core_num ? expr(s->core_num) : ExprRef();
        l.sync_start = s->sync_start;
        l.allow_early_resolve = s->allow_early_resolve;
        l.predicate = s->predicate ? expr(s->predicate) : ExprRef();
        return Submit::make(o, std::move(args), type(s->type), std::move(l),
                            copy_attrs(s->kwargs, true), copy_attrs(s->attrs), next_span());
      }
      case NodeKind::MakeTuple:
        return MakeTuple::make(exprs(as<MakeTuple>(e)->elements, false), next_span());
      case NodeKind::TupleGetItem: {
        auto g = as<TupleGetItem>(e);
        return TupleGetItem::make(expr(g->tuple), g->index, next_span());
      }
      default: break;
    }
    throw core::InternalError(
        std::string("Copier: unhandled expression ").append(kind_name(e->kind())));
  }

  // -- types --

  TypeRef type(const TypeRef& t) {
    ++in_type_;
    TypeRef out = type_inner(t);
    --in_type_;
    return out;
  }

  OpRef op(const OpRef& o) {
    std::string name = o->name;
    if (site(Mutation::OpName)) name += "_x";
    if (isa<GlobalVar>(o)) return GlobalVar::make(name);
    return Op::make(name);
  }

 private:
  bool site(Mutation m) {
    const int index = sites[static_cast<std::size_t>(m)]++;
    if (m == opt_.mutation && index == opt_.site) {
      mutated = true;
      return true;
    }
    return false;
  }

  Span next_span() { return Span{nullptr, ++line_, 1, line_, 9}; }

  ExprRef unary(const ExprRef& e) {
    auto operand = expr(as<UnaryExpr>(e)->operand);
    switch (e->kind()) {
      case NodeKind::Abs: return Abs::make(operand, next_span());
      case NodeKind::Neg: return Neg::make(operand, next_span());
      case NodeKind::Not: return Not::make(operand, next_span());
      case NodeKind::BitNot: return BitNot::make(operand, next_span());
      default: break;
    }
    throw core::InternalError(std::string("Copier: unhandled unary ").append(kind_name(e->kind())));
  }

  ExprRef binary(const ExprRef& e) {
    auto b = as<BinaryExpr>(e);
    ExprRef l = b->left, r = b->right;
    if (!maybe_same_expr(l, r) && site(Mutation::SwapArgs)) std::swap(l, r);
    auto nl = expr(l);
    auto nr = expr(r);
    switch (e->kind()) {
#define PYPTO_X(T) \
  case NodeKind::T: return T::make(nl, nr, next_span());
      PYPTO_IR_BINARY_NODES(PYPTO_X)
#undef PYPTO_X
      default: break;
    }
    throw core::InternalError(
        std::string("Copier: unhandled binary ").append(kind_name(e->kind())));
  }

  std::vector<ExprRef> exprs(const std::vector<ExprRef>& xs, bool swappable) {
    std::vector<ExprRef> in = xs;
    if (swappable)
      for (std::size_t i = 0; i + 1 < in.size(); ++i)
        if (!maybe_same_expr(in[i], in[i + 1]) && site(Mutation::SwapArgs))
          std::swap(in[i], in[i + 1]);
    std::vector<ExprRef> out;
    for (const auto& x : in) out.push_back(expr(x));
    return out;
  }

  std::vector<ExprRef> dims(const std::vector<ExprRef>& xs) {
    std::vector<ExprRef> out;
    for (const auto& x : xs) {
      in_dim_ = isa<ConstInt>(x);
      out.push_back(expr(x));
      in_dim_ = false;
    }
    return out;
  }

  AttrValue copy_value(const AttrValue& v, bool mutable_site) {
    if (const auto* e = v.get_if<ExprRef>()) return AttrValue(expr(*e));
    if (const auto* l = v.get_if<AttrValueList>()) {
      AttrValueList out;
      for (const auto& x : *l) out.push_back(copy_value(x, false));
      return out;
    }
    if (mutable_site) {
      if (const auto* i = v.get_if<std::int64_t>(); i && site(Mutation::KwargValue)) return *i + 1;
      if (const auto* s = v.get_if<std::string>(); s && site(Mutation::KwargValue)) return *s + "_";
      if (const auto* b = v.get_if<bool>(); b && site(Mutation::KwargValue)) return !*b;
      if (const auto* d = v.get_if<double>(); d && site(Mutation::KwargValue)) return *d + 1.0;
    }
    return v;
  }

  Attrs copy_attrs(const Attrs& a, bool kwargs = false) {
    Attrs out;
    for (const auto& e : a) out.entries.push_back({e.key, copy_value(e.value, kwargs)});
    return out;
  }

  TypeRef type_inner(const TypeRef& t) {
    switch (t->kind()) {
      case NodeKind::UnknownType: return UnknownType::make();
      case NodeKind::MemRefType: return MemRefType::make();
      case NodeKind::PtrType: return PtrType::make();
      case NodeKind::WindowBufferType: return WindowBufferType::make();
      case NodeKind::CommCtxType: return CommCtxType::make();
      case NodeKind::PrefetchAsyncContextType: return PrefetchAsyncContextType::make();
      case NodeKind::AsyncEventType: return AsyncEventType::make();
      case NodeKind::AsyncSessionType: return AsyncSessionType::make();
      case NodeKind::ScalarType: {
        auto s = make_node<ScalarType>();  // unshared, unlike ScalarType::make
        s->dtype = as<ScalarType>(t)->dtype;
        return s;
      }
      case NodeKind::TupleType: {
        std::vector<TypeRef> ts;
        for (const auto& x : as<TupleType>(t)->types) ts.push_back(type(x));
        return TupleType::make(std::move(ts));
      }
      case NodeKind::TensorType: {
        auto tt = as<TensorType>(t);
        DataType dt = tt->dtype;
        if (site(Mutation::Dtype)) dt = dt == DataType::FP32 ? DataType::FP16 : DataType::FP32;
        auto shape = dims(tt->shape);
        std::optional<TensorView> view;
        if (tt->tensor_view) {
          view = *tt->tensor_view;
          view->stride = dims(tt->tensor_view->stride);
          view->valid_shape = dims(tt->tensor_view->valid_shape);
        }
        auto memref = tt->memref ? MemRefRef(as<MemRef>(expr(tt->memref))) : MemRefRef();
        return TensorType::make(dt, std::move(shape), std::move(view), std::move(memref));
      }
      case NodeKind::TileType: {
        auto tt = as<TileType>(t);
        DataType dt = tt->dtype;
        if (site(Mutation::Dtype)) dt = dt == DataType::FP32 ? DataType::FP16 : DataType::FP32;
        auto shape = dims(tt->shape);
        std::optional<TileView> view;
        if (tt->tile_view) {
          view = *tt->tile_view;
          view->valid_shape = dims(tt->tile_view->valid_shape);
          view->stride = dims(tt->tile_view->stride);
          view->start_offset =
              tt->tile_view->start_offset ? expr(tt->tile_view->start_offset) : ExprRef();
        }
        auto memref = tt->memref ? MemRefRef(as<MemRef>(expr(tt->memref))) : MemRefRef();
        return TileType::make(dt, std::move(shape), tt->memory_space, std::move(view),
                              std::move(memref));
      }
      default: break;
    }
    throw core::InternalError(std::string("Copier: unhandled type ").append(kind_name(t->kind())));
  }

  // -- variables --

  /// A fresh copy of the binder `v` (its type copied now), mapped and made visible.
  VarRef define(const VarRef& v) {
    VarRef fresh;
    if (auto w = as<WindowBuffer>(v)) {
      auto size = expr(w->size);
      fresh = WindowBuffer::make(w->name_hint + "_c", size, w->base ? base(w->base) : VarRef(),
                                 w->load_from_host, w->store_to_host, next_span());
    } else {
      fresh = Var::make(v->name_hint + "_c", type(v->type), next_span());
    }
    bind(v, fresh);
    return fresh;
  }
  IterArgRef define_iter_arg(const IterArgRef& ia, ExprRef init) {
    auto fresh = IterArg::make(ia->name_hint + "_c", type(ia->type), std::move(init), next_span());
    bind(ia, fresh);
    return fresh;
  }
  void bind(const VarRef& original, const VarRef& fresh) {
    map_[original.get()] = fresh;
    visible_.push_back(original);
  }

  ExprRef use(const VarRef& v) {
    VarRef target = v;
    if (in_type_ == 0) {
      // A site only where a replacement exists.
      std::vector<VarRef> candidates;
      for (const auto& c : visible_)
        if (c != v && surely_same_type(c->type, v->type) &&
            std::find(candidates.begin(), candidates.end(), c) == candidates.end())
          candidates.push_back(c);
      if (!candidates.empty() && site(Mutation::ReplaceVarUse))
        target = candidates[static_cast<std::size_t>(opt_.site) % candidates.size()];
    }
    auto it = map_.find(target.get());
    return it != map_.end() ? ExprRef(it->second) : ExprRef(target);  // free: shared
  }

  /// An allocation base: inside a function an implicit resource binding (renamed once per
  /// function), outside a free variable.
  VarRef base(const VarRef& b) {
    auto it = map_.find(b.get());
    if (it != map_.end()) return it->second;
    if (!in_function_) return b;
    auto fresh = Var::make(b->name_hint + "_c", type(b->type), next_span());
    map_[b.get()] = fresh;  // not visible: never a replacement candidate
    return fresh;
  }

  StmtRef with_comment(const StmtRef& s) {
    auto add = [&](auto copy) {
      copy->leading_comments.push_back("copied");
      return StmtRef(copy);
    };
    switch (s->kind()) {
      case NodeKind::AssignStmt: return add(copy_node(*as<AssignStmt>(s)));
      case NodeKind::EvalStmt: return add(copy_node(*as<EvalStmt>(s)));
      case NodeKind::ForStmt: return add(copy_node(*as<ForStmt>(s)));
      case NodeKind::IfStmt: return add(copy_node(*as<IfStmt>(s)));
      case NodeKind::ReturnStmt: return add(copy_node(*as<ReturnStmt>(s)));
      default: return nullptr;
    }
  }

  StmtRef body_scope(const StmtRef& s) {
    const std::size_t mark = visible_.size();
    auto out = stmt(s);
    visible_.resize(mark);
    return out;
  }

  StmtRef stmt_inner(const StmtRef& s) {
    switch (s->kind()) {
      case NodeKind::AssignStmt: {
        auto a = as<AssignStmt>(s);
        auto value = expr(a->value);
        return AssignStmt::make(define(a->var), value, next_span());
      }
      case NodeKind::EvalStmt: return EvalStmt::make(expr(as<EvalStmt>(s)->expr), next_span());
      case NodeKind::SeqStmts: {
        std::vector<StmtRef> out;
        for (const auto& x : as<SeqStmts>(s)->stmts)
          if (!site(Mutation::DropStmt)) out.push_back(stmt(x));
        return SeqStmts::make(std::move(out), next_span());
      }
      case NodeKind::ForStmt: {
        auto f = as<ForStmt>(s);
        auto start = expr(f->start), stop = expr(f->stop), step = expr(f->step);
        std::vector<ExprRef> inits;
        for (const auto& ia : f->iter_args) inits.push_back(expr(ia->init_value));
        const std::size_t mark = visible_.size();
        auto lv = define(f->loop_var);
        std::vector<IterArgRef> ias;
        for (std::size_t i = 0; i < f->iter_args.size(); ++i)
          ias.push_back(define_iter_arg(f->iter_args[i], inits[i]));
        auto body = stmt(f->body);
        visible_.resize(mark);
        std::vector<VarRef> rvs;
        for (const auto& rv : f->return_vars) rvs.push_back(define(rv));
        return ForStmt::make(lv, start, stop, step, std::move(ias), body, std::move(rvs),
                             f->for_kind, copy_attrs(f->attrs), next_span());
      }
      case NodeKind::WhileStmt: {
        auto w = as<WhileStmt>(s);
        std::vector<ExprRef> inits;
        for (const auto& ia : w->iter_args) inits.push_back(expr(ia->init_value));
        const std::size_t mark = visible_.size();
        std::vector<IterArgRef> ias;
        for (std::size_t i = 0; i < w->iter_args.size(); ++i)
          ias.push_back(define_iter_arg(w->iter_args[i], inits[i]));
        auto cond = expr(w->condition);
        auto body = stmt(w->body);
        visible_.resize(mark);
        std::vector<VarRef> rvs;
        for (const auto& rv : w->return_vars) rvs.push_back(define(rv));
        return WhileStmt::make(std::move(ias), cond, body, std::move(rvs), next_span());
      }
      case NodeKind::IfStmt: {
        auto i = as<IfStmt>(s);
        auto cond = expr(i->condition);
        auto then_body = body_scope(i->then_body);
        auto else_body = i->else_body ? body_scope(i->else_body) : StmtRef();
        std::vector<VarRef> rvs;
        for (const auto& rv : i->return_vars) rvs.push_back(define(rv));
        return IfStmt::make(cond, then_body, else_body, std::move(rvs), next_span());
      }
      case NodeKind::YieldStmt:
        return YieldStmt::make(exprs(as<YieldStmt>(s)->values, false), next_span());
      case NodeKind::ReturnStmt:
        return ReturnStmt::make(exprs(as<ReturnStmt>(s)->values, false), next_span());
      case NodeKind::BreakStmt: return BreakStmt::make(next_span());
      case NodeKind::ContinueStmt: return ContinueStmt::make(next_span());
      case NodeKind::InCoreScopeStmt: {
        auto c = as<InCoreScopeStmt>(s);
        return InCoreScopeStmt::make(stmt(c->body), c->name_hint, c->split, copy_attrs(c->attrs),
                                     next_span());
      }
      case NodeKind::ClusterScopeStmt: {
        auto c = as<ClusterScopeStmt>(s);
        return ClusterScopeStmt::make(stmt(c->body), c->name_hint, copy_attrs(c->attrs),
                                      next_span());
      }
      case NodeKind::HierarchyScopeStmt: {
        auto c = as<HierarchyScopeStmt>(s);
        return HierarchyScopeStmt::make(stmt(c->body), c->level, c->role, c->name_hint,
                                        copy_attrs(c->attrs), next_span());
      }
      case NodeKind::SpmdScopeStmt: {
        auto c = as<SpmdScopeStmt>(s);
        auto core_num = expr(c->core_num);
        return SpmdScopeStmt::make(stmt(c->body), core_num, c->sync_start, c->name_hint,
                                   copy_attrs(c->attrs), next_span());
      }
      case NodeKind::SplitAivScopeStmt: {
        auto c = as<SplitAivScopeStmt>(s);
        auto aiv = define(c->aiv_id);
        auto body = stmt(c->body);
        std::erase(visible_, c->aiv_id);  // bound for the body only; other definitions flow out
        return SplitAivScopeStmt::make(aiv, body, c->split, c->name_hint, copy_attrs(c->attrs),
                                       next_span());
      }
      case NodeKind::RuntimeScopeStmt: {
        auto c = as<RuntimeScopeStmt>(s);
        return RuntimeScopeStmt::make(stmt(c->body), c->manual, c->name_hint, copy_attrs(c->attrs),
                                      next_span());
      }
      default: break;
    }
    throw core::InternalError(
        std::string("Copier: unhandled statement ").append(kind_name(s->kind())));
  }

  CopyOptions opt_;
  std::map<const Var*, VarRef> map_;  // original binder -> fresh copy (looked up, never iterated)
  std::vector<VarRef> visible_;       // original binders in scope
  int in_type_ = 0;
  bool in_dim_ = false;
  bool in_function_ = false;
  std::uint32_t line_ = 0;
};

/// The site counts of `n` (an unmutated copy).
inline std::array<int, kMutationCount> mutation_sites(const NodeRef& n) {
  Copier c;
  c.copy(n);
  return c.sites;
}

inline NodeRef deep_copy(const NodeRef& n) { return Copier().copy(n); }

inline NodeRef mutate(const NodeRef& n, Mutation m, int site, bool* applied = nullptr) {
  Copier c({m, site, true});
  auto out = c.copy(n);
  if (applied) *applied = c.mutated;
  return out;
}

}  // namespace pypto::test::rir

// pypto/runtime/interpreter.ipp — the definitions of runtime/interpreter.hpp.
#pragma once

#include "pypto/runtime/interpreter.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pypto/codegen/element_functions.hpp"
#include "pypto/codegen/element_ops.hpp"
#include "pypto/codegen/irregular_functions.hpp"
#include "pypto/codegen/kernel_abi.hpp"
#include "pypto/codegen/kernel_op_of.hpp"
#include "pypto/core/dtype.hpp"
#include "pypto/core/error.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/ops/type_rules.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/reductions.hpp"
#include "pypto/ir/round_mode.hpp"
#include "pypto/ir/scope_attrs.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/kernel/op_semantics.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/runtime/mixed_task.hpp"
#include "pypto/transforms/return_lineage.hpp"

namespace pypto::runtime {

PYPTO_DECL float round_to_dtype(core::DataType t, long double x) {
  if (const auto mini = mini_format(t))  // a long double's float is exact enough: 4 bits or less
    return codegen::mini_to_float(codegen::float_to_mini(static_cast<float>(x), *mini), *mini);
  if (t != core::DataType::FP16 && t != core::DataType::BF16) return static_cast<float>(x);
  if (std::isnan(x))
    return std::copysign(std::numeric_limits<float>::quiet_NaN(), static_cast<float>(x));
  const long double a = std::fabs(x);
  if (a == 0.0L || std::isinf(a)) return static_cast<float>(x);
  const bool half = t == core::DataType::FP16;
  const int precision = half ? 11 : 8, min_exp = half ? -14 : -126, max_exp = half ? 15 : 127;
  int e = 0;
  std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  const long double quantum = std::ldexp(1.0L, std::max(e - 1, min_exp) - (precision - 1));
  const long double r = std::nearbyint(a / quantum) * quantum;  // exact scaling; ties to even
  if (r >= std::ldexp(1.0L, max_exp + 1))
    return std::copysign(std::numeric_limits<float>::infinity(), static_cast<float>(x));
  return static_cast<float>(std::copysign(r, x));
}

PYPTO_DECL bool bit_identical(const Value& a, const Value& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case ValueKind::None: return true;
    case ValueKind::Scalar:
      return a.dtype == b.dtype && a.i == b.i && comparable_bits(a.f) == comparable_bits(b.f);
    case ValueKind::Tensor:
    case ValueKind::Tile: {
      const Buffer &x = *a.buffer, &y = *b.buffer;
      if (x.dtype != y.dtype || x.shape != y.shape || x.ints != y.ints) return false;
      if (x.f32.size() != y.f32.size()) return false;
      for (std::size_t k = 0; k < x.f32.size(); ++k)
        if (comparable_bits(x.f32[k]) != comparable_bits(y.f32[k])) return false;
      return true;
    }
    case ValueKind::Tuple:
    case ValueKind::Array:
      if (a.dtype != b.dtype || a.elements.size() != b.elements.size()) return false;
      for (std::size_t k = 0; k < a.elements.size(); ++k)
        if (!bit_identical(a.elements[k], b.elements[k])) return false;
      return true;
  }
  return false;
}

namespace detail {

using core::DataType;

/// v wrapped to the width of integer dtype t (two's complement; unsigned keeps the low bits).
inline std::int64_t wrap(std::uint64_t v, DataType t) {
  if (t == DataType::BOOL) return v != 0 ? 1 : 0;
  const unsigned bits = core::bit_width(t);
  if (bits >= 64) return static_cast<std::int64_t>(v);
  const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  v &= mask;
  if (core::is_unsigned_int(t)) return static_cast<std::int64_t>(v);
  const std::uint64_t sign = std::uint64_t{1} << (bits - 1);
  return static_cast<std::int64_t>((v ^ sign) - sign);
}

inline bool is_u64(DataType t) { return core::is_unsigned_int(t) && core::bit_width(t) >= 64; }

/// tile.cast's float element to an integer dtype (kernel_abi.hpp's float_to_integer, the
/// definition the CPU target's kernels call too).
inline std::int64_t float_to_int(float x, std::int64_t mode, DataType to) {
  if (to == DataType::BOOL) return x != 0.0f ? 1 : 0;
  return codegen::float_to_integer(x, static_cast<int>(mode), core::bit_width(to),
                                   core::is_unsigned_int(to));
}

inline float strict(float x) { return kernel::detail::strict(x); }

/// The executing statement, for error messages.
struct Where {
  const ir::Stmt* stmt = nullptr;
  std::string text() const {
    if (!stmt || !stmt->span.is_known()) return "at <unknown location>";
    return "at " + stmt->span.to_string();
  }
};

/// The rank a thread's call_hook runs in (RankPort::current()).
inline RankPort*& current_rank_port() {
  static thread_local RankPort* port = nullptr;
  return port;
}

class Interpreter final : public RankPort {
 public:
  explicit Interpreter(const ir::Program& p, const RunOptions* options = nullptr)
      : program_(p), options_(options) {}

  /// Runs `fn` on `args`; the views among them (ViewOrigin) are refreshed from their storage
  /// first and written back after (those `fn` may write: Out / InOut parameters, and windows,
  /// which peers write whatever the parameter's direction).
  std::vector<Value> call(const ir::Function& fn, std::vector<Value> args) {
    std::vector<std::shared_ptr<Buffer>> written;
    for (std::size_t k = 0; k < args.size(); ++k) {
      const std::shared_ptr<Buffer>& b = args[k].buffer;
      if (!b || !b->origin) continue;
      if (b->origin->bytes && k < fn.params.size())
        if (const auto* t = ir::as<ir::ShapedType>(fn.params[k]->type.get());
            t && t->dtype == b->dtype)
          window_as_param(*t, args[k]);
      refresh_view(*b);
      if (b->origin->bytes ||
          (k < fn.param_directions.size() && fn.param_directions[k] != ir::ParamDirection::In))
        written.push_back(b);
    }
    std::vector<Value> results = call_with_storage(fn, std::move(args));
    for (const auto& b : written) write_back_view(*b);
    return results;
  }

 private:
  std::vector<Value> call_with_storage(const ir::Function& fn, std::vector<Value> args) {
    if (depth_ >= kMaxCallDepth)
      fail("the call depth exceeds " + std::to_string(kMaxCallDepth) + " (calling " + fn.name +
           ")");
    if (!fn.body)
      fail("function '" + fn.name + "' is runtime-bound (no body): the interpreter cannot run it");
    if (args.size() > fn.params.size())
      fail("function '" + fn.name + "' takes " + std::to_string(fn.params.size()) +
           " arguments, got " + std::to_string(args.size()));
    if (options_ && options_->call_hook &&
        (fn.func_type == ir::FunctionType::InCore || fn.func_type == ir::FunctionType::AIC ||
         fn.func_type == ir::FunctionType::AIV)) {
      for (std::size_t k = 0; k < fn.params.size(); ++k) {
        const ir::Var& p = *fn.params[k];
        if (k < args.size())
          check_arg(fn, p, args[k]);
        else
          args.push_back(
              allocate(*p.type, "omitted parameter '" + p.name_hint + "' of " + fn.name));
      }
      if (auto results = hooked_call(fn, args)) return std::move(*results);
    }
    Frame frame;
    for (std::size_t k = 0; k < fn.params.size(); ++k) {
      const ir::Var& p = *fn.params[k];
      if (k < args.size()) {
        check_arg(fn, p, args[k]);
        frame.env[&p] = std::move(args[k]);
      } else {
        // An omitted trailing output is allocated by the runtime (Submit's prefix rule).
        frame.env[&p] = allocate(*p.type, "omitted parameter '" + p.name_hint + "' of " + fn.name);
      }
    }
    Frame* saved = frame_;
    const Where saved_where = where_;
    frame_ = &frame;
    ++depth_;
    struct Restore {
      Interpreter& self;
      Frame* f;
      Where w;
      const Frame* ending;
      ~Restore() {
        self.frame_ = f;
        self.where_ = w;
        --self.depth_;
        // After an error, what was postponed here never runs (its frame is gone).
        std::erase_if(self.postponed_, [&](const Postponed& p) { return p.home == ending; });
      }
    } restore{*this, saved, saved_where, &frame};
    bind_shape_symbols(fn);
    const Flow flow =
        fn.func_type == ir::FunctionType::Group ? exec_group(*fn.body) : exec(*fn.body);
    drain(true);  // a function returns when its tasks have completed
    if (devices_frame_ == &frame) run_devices();  // a host returns when its devices are done
    if (flow != Flow::Return) {
      if (!fn.return_types.empty())
        fail("function '" + fn.name + "' ended without a return statement");
      return {};
    }
    return std::move(frame.returned);
  }

  enum class Flow : std::uint8_t { Normal, Break, Continue, Return };

  struct Frame {
    std::unordered_map<const ir::Var*, Value> env;             // lookup only: never iterated
    std::unordered_map<const ir::Var*, const ir::Var*> alias;  // pre-SSA loop rebinders
    std::optional<std::vector<Value>> yielded;
    std::vector<Value> returned;
  };

  [[noreturn]] void fail(const std::string& what) const {
    throw RuntimeError("interpreter: " + what + " " + where_.text());
  }

  // ---- values and types ---------------------------------------------------------------------

  static std::string dtype_text(DataType t) { return std::string(core::dtype_name(t)); }

  void check_dtype(DataType t, std::string_view what) const {
    if (is_float_dtype(t) || t == DataType::BOOL || t == DataType::TASK_ID || core::is_int(t))
      return;
    fail(std::string(what) + " has dtype " + dtype_text(t) +
         ", which the interpreter does not execute (floats, integers and BOOL only)");
  }

  std::vector<std::int64_t> static_shape(const ir::ShapedType& t, std::string_view what) const {
    std::vector<std::int64_t> shape;
    for (const auto& d : t.shape) {
      const auto* c = ir::as<ir::ConstInt>(d.get());
      if (!c) fail(std::string(what) + " has a dynamic shape: cannot allocate it");
      shape.push_back(c->value);
    }
    return shape;
  }

  Value allocate(const ir::Type& t, std::string_view what) const {
    const auto* st = ir::as<ir::ShapedType>(&t);
    if (!st) fail(std::string(what) + " is not a tensor: cannot allocate it");
    check_dtype(st->dtype, what);
    return Value::zeros(st->dtype, static_shape(*st, what), ir::isa<ir::TileType>(t));
  }

  /// Checks an argument against its parameter's type. INT64 and INDEX are one machine integer:
  /// a scalar of either binds to a parameter of the other and takes its dtype (upstream's
  /// orchestration reads INT64 values from a tensor and passes them as INDEX).
  /// A window view passed for a parameter of another static shape with as many elements is
  /// its bytes read in the parameter's shape (a [64] window for a [1, 64] one, as upstream
  /// passes it): a view of the same bytes, which is the rank's own when it runs in one.
  void window_as_param(const ir::ShapedType& t, Value& v) const {
    std::vector<std::int64_t> shape;
    std::size_t n = 1;
    for (const auto& d : t.shape) {
      const auto* c = ir::as<ir::ConstInt>(d.get());
      if (!c || c->value < 0) return;
      shape.push_back(c->value);
      n *= static_cast<std::size_t>(c->value);
    }
    if (shape == v.buffer->shape || n != v.buffer->size()) return;
    auto view = std::make_shared<Buffer>(*v.buffer);
    view->shape = std::move(shape);
    view->valid.clear();
    if (world_ && rank_ >= 0) world_->views[static_cast<std::size_t>(rank_)].push_back(view);
    v.buffer = std::move(view);
  }

  void check_arg(const ir::Function& fn, const ir::Var& p, Value& v) const {
    const std::string what = "argument '" + p.name_hint + "' of " + fn.name;
    if (const auto* st = ir::as<ir::ScalarType>(p.type.get())) {
      const auto machine_int = [](core::DataType d) {
        return d == core::DataType::INT64 || d == core::DataType::INDEX;
      };
      if (v.kind == ValueKind::Scalar && machine_int(v.dtype) && machine_int(st->dtype))
        v.dtype = st->dtype;
      // An integer of another width converts when the parameter's dtype holds its value (a
      // host's INT64 rank arithmetic passed to a kernel's INT32 scalar).
      const auto integer = [&](core::DataType d) { return core::is_int(d) || machine_int(d); };
      if (v.kind == ValueKind::Scalar && v.dtype != st->dtype && integer(v.dtype) &&
          integer(st->dtype)) {
        if (wrap(static_cast<std::uint64_t>(v.i), st->dtype) != v.i)
          fail(what + " is " + std::to_string(v.i) + ", which a Scalar[" + dtype_text(st->dtype) +
               "] cannot hold");
        v.dtype = st->dtype;
      }
      if (v.kind != ValueKind::Scalar || v.dtype != st->dtype)
        fail(what + " must be a Scalar[" + dtype_text(st->dtype) + "]");
      return;
    }
    if (const auto* sh = ir::as<ir::ShapedType>(p.type.get())) {
      if (!v.is_shaped() || v.dtype != sh->dtype || v.buffer->shape.size() != sh->rank())
        fail(what + " must be a " + std::string(kind_name(sh->kind())) + " of dtype " +
             dtype_text(sh->dtype) + " and rank " + std::to_string(sh->rank()));
      for (std::size_t k = 0; k < sh->rank(); ++k)
        if (const auto* c = ir::as<ir::ConstInt>(sh->shape[k].get()))
          if (c->value != v.buffer->shape[k])
            fail(what + " has dimension " + std::to_string(k) + " = " +
                 std::to_string(v.buffer->shape[k]) + ", the parameter's type says " +
                 std::to_string(c->value));
    }
  }

  /// Binds each symbolic dimension of a tensor parameter (a Var such as `M` in
  /// pl.Tensor[[M, 64], ...]) to the argument's extent, so the body can read it. The first
  /// parameter that has the symbol as a dimension gives its value; another argument may have
  /// another extent there (upstream PyPTO binds a dynamic dimension per tensor, and the CPU
  /// target's kernels read the symbol from that first tensor): each tensor's accesses are checked
  /// against its own extents.
  void bind_shape_symbols(const ir::Function& fn) {
    for (const auto& p : fn.params) {
      const auto* st = ir::as<ir::ShapedType>(p->type.get());
      if (!st) continue;
      const Value& arg = frame_->env.at(p.get());
      for (std::size_t k = 0; k < st->rank(); ++k) {
        const auto* sym = ir::as<ir::Var>(st->shape[k].get());
        const auto* sym_type = sym ? ir::as<ir::ScalarType>(sym->type.get()) : nullptr;
        if (sym_type && core::is_int(sym_type->dtype) && !frame_->env.count(sym))
          frame_->env[sym] = Value::scalar_int(arg.buffer->shape[k], sym_type->dtype);
      }
    }
  }

  /// The variable `v` stands for: an iter_arg when `v` rebinds it in a pre-SSA loop.
  const ir::Var* resolve(const ir::Var& v) const {
    auto a = frame_->alias.find(&v);
    return a == frame_->alias.end() ? &v : a->second;
  }
  const Value& lookup(const ir::Var& v) const {
    auto it = frame_->env.find(resolve(v));
    if (it == frame_->env.end()) fail("variable '" + v.name_hint + "' is read before it is set");
    return it->second;
  }
  void bind(const ir::Var& v, Value x) { frame_->env[resolve(v)] = std::move(x); }

  std::int64_t as_int(const Value& v, std::string_view what) const {
    if (v.kind != ValueKind::Scalar || !(core::is_int(v.dtype) || v.dtype == DataType::BOOL))
      fail(std::string(what) + " must be an integer scalar");
    return v.i;
  }
  bool as_bool(const Value& v, std::string_view what) const {
    if (v.kind != ValueKind::Scalar || v.dtype != DataType::BOOL)
      fail(std::string(what) + " must be a BOOL scalar");
    return v.i != 0;
  }
  std::vector<std::int64_t> as_ints(const Value& v, std::string_view what) const {
    if (v.kind != ValueKind::Tuple) fail(std::string(what) + " must be a list of integers");
    std::vector<std::int64_t> out;
    for (const auto& e : v.elements) out.push_back(as_int(e, what));
    return out;
  }
  const Buffer& shaped(const Value& v, std::string_view what) const {
    if (!v.is_shaped()) fail(std::string(what) + " must be a tensor or a tile");
    return *v.buffer;
  }

  // ---- statements ---------------------------------------------------------------------------

  Flow exec(const ir::Stmt& s) {
    where_.stmt = &s;
    if (options_ && options_->max_statements && ++executed_ > options_->max_statements)
      fail("the run executed more than " + std::to_string(options_->max_statements) +
           " statements (RunOptions::max_statements)");
    using K = ir::NodeKind;
    switch (s.kind()) {
      case K::SeqStmts:
        for (const auto& c : static_cast<const ir::SeqStmts&>(s).stmts) {
          const Flow f = exec(*c);
          if (f != Flow::Normal) return f;
        }
        return Flow::Normal;
      case K::AssignStmt: {
        const auto& a = static_cast<const ir::AssignStmt&>(s);
        assigned_ = &a;
        bind(*a.var, eval(*a.value));
        return Flow::Normal;
      }
      case K::EvalStmt: eval(*static_cast<const ir::EvalStmt&>(s).expr); return Flow::Normal;
      case K::ReturnStmt: {
        std::vector<Value> out;
        for (const auto& v : static_cast<const ir::ReturnStmt&>(s).values) out.push_back(eval(*v));
        frame_->returned = std::move(out);
        return Flow::Return;
      }
      case K::YieldStmt: {
        std::vector<Value> out;
        for (const auto& v : static_cast<const ir::YieldStmt&>(s).values) out.push_back(eval(*v));
        frame_->yielded = std::move(out);
        return Flow::Normal;
      }
      case K::BreakStmt: return Flow::Break;
      case K::ContinueStmt: return Flow::Continue;
      case K::ForStmt: return exec_for(static_cast<const ir::ForStmt&>(s));
      case K::WhileStmt: return exec_while(static_cast<const ir::WhileStmt&>(s));
      case K::IfStmt: return exec_if(static_cast<const ir::IfStmt&>(s));
      case K::SpmdScopeStmt: {
        const auto& sc = static_cast<const ir::SpmdScopeStmt&>(s);
        return as_task(sc, [this, &sc] { return exec_spmd(sc); });
      }
      case K::SplitAivScopeStmt: {
        const auto& sc = static_cast<const ir::SplitAivScopeStmt&>(s);
        return per_block(sc.count, &subblock_idx_, [&] {
          bind(*sc.aiv_id, Value::scalar_int(subblock_idx_,
                                             ir::as<ir::ScalarType>(sc.aiv_id->type.get())->dtype));
          return exec(*sc.body);
        });
      }
      case K::InCoreScopeStmt:
      case K::ClusterScopeStmt: {
        const auto& sc = static_cast<const ir::ScopeStmt&>(s);
        return as_task(sc, [this, &sc] { return exec(*sc.body); });
      }
      case K::HierarchyScopeStmt:
      case K::RuntimeScopeStmt: {
        const auto& sc = static_cast<const ir::ScopeStmt&>(s);
        bind_task_id(sc);
        return exec(*sc.body);
      }
      case K::InlineStmt:
        fail(
            "cannot run host-language (Python) source such as a sub-worker's body: it is text, "
            "not IR");
      default: fail("cannot execute the statement kind " + std::string(ir::kind_name(s.kind())));
    }
  }

  /// An Spmd scope's blocks (its task id bound by as_task).
  Flow exec_spmd(const ir::SpmdScopeStmt& sc) {
    const std::int64_t n = as_int(eval(*sc.core_num), "the Spmd core_num");
    // A false predicate skips the dispatch: what the body would write keeps its value.
    if (const ir::ExprRef p = ir::scope_attr::expr(sc.attrs, ir::scope_attr::kPredicate))
      if (!as_bool(eval(*p), "the Spmd predicate")) return Flow::Normal;
    if (n <= 1 || !syncs(*sc.body))
      return per_block(n, &block_idx_, [&] { return exec(*sc.body); });
    // Each block in its own copy of the frame (tensors shared, scalars its own); the names
    // the last block binds stay bound after the scope, as in a run of one block at a time.
    std::vector<Frame> frames(static_cast<std::size_t>(n), *frame_);
    std::vector<Flow> flows(frames.size(), Flow::Normal);
    blocks_side_by_side(n, [&](Interpreter& block, std::size_t b) {
      block.frame_ = &frames[b];
      flows[b] = block.exec(*sc.body);
      return std::vector<Value>{};
    });
    *frame_ = std::move(frames.back());
    for (const Flow f : flows)
      if (f != Flow::Normal) return f;
    return Flow::Normal;
  }

  // ---- tasks and deferred completion ---------------------------------------------------------
  // Tasks (task scopes, Submits, kernel calls outside a task) run in program order, except
  // that `pld.system.defer_wait` in a task registers its condition and returns, leaving the
  // task incomplete until the condition holds; a task whose deps name an incomplete task is
  // postponed, and the tasks after it run first (upstream's scheduler dispatches a task when
  // its deps complete). A postponed task runs, in program order, as soon as its deps complete
  // (looked at after every task) and at the latest when the program needs what it produces:
  // before a name it binds is read, an op outside a task reads a tensor, or a function other
  // than a kernel is called, and before the function returns, which also waits for every
  // registered condition (docs/runtime.md, "Deferred completion").

  /// A registered condition: `signal[at]` >= `expected` (== with `eq`).
  struct Condition {
    Value signal;
    std::size_t at;
    std::int64_t expected;
    bool eq;
    const ir::Call* site;
  };
  /// A task waiting for its deps: its id, their ids, and what runs it.
  struct Postponed {
    std::int64_t id;
    std::vector<std::int64_t> deps;
    std::function<void()> run;
    const Frame* home;  // the frame it binds names in (dropped when that frame ends)
  };

  bool holds(Condition& c) {
    Buffer& b = *c.signal.buffer;
    if (b.origin) refresh_view(b);
    return c.eq ? b.ints[c.at] == c.expected : b.ints[c.at] >= c.expected;
  }
  void await(Condition& c) {
    wait_for_peers(
        *c.site, *c.signal.buffer, [&] { return holds(c); },
        "a deferred completion waits for the signal to be " + std::string(c.eq ? "== " : ">= ") +
            std::to_string(c.expected) + ", and it holds " +
            std::to_string(c.signal.buffer->ints[c.at]));
  }

  /// True when task `id` has completed: not postponed, every condition it registered holds.
  bool complete(std::int64_t id) {
    for (const Postponed& p : postponed_)
      if (p.id == id) return false;
    auto it = deferred_.find(id);
    if (it == deferred_.end()) return true;
    std::erase_if(it->second, [&](Condition& c) { return holds(c); });
    if (!it->second.empty()) return false;
    deferred_.erase(it);
    return true;
  }
  bool ready(const std::vector<std::int64_t>& deps) {
    return std::all_of(deps.begin(), deps.end(), [&](std::int64_t d) { return complete(d); });
  }

  /// Runs `body` as task `id`: a defer_wait in it registers under `id`.
  template <class Body>
  decltype(auto) run_task(std::int64_t id, Body&& body) {
    struct Restore {
      std::optional<std::int64_t>& slot;
      std::optional<std::int64_t> saved;
      ~Restore() { slot = saved; }
    } restore{running_task_, running_task_};
    running_task_ = id;
    return body();
  }

  /// Runs the postponed tasks whose deps have completed, in program order, until none can.
  void advance() {
    for (auto it = postponed_.begin(); it != postponed_.end();) {
      if (!ready(it->deps)) {
        ++it;
        continue;
      }
      Postponed p = std::move(*it);
      postponed_.erase(it);
      run_task(p.id, p.run);
      it = postponed_.begin();  // the task may have completed what an earlier one waits for
    }
  }

  /// Waits until every postponed task has run (`all`: and every registered condition holds).
  void drain(bool all) {
    if (running_task_) return;  // a task's own body never waits for later tasks
    advance();
    while (!postponed_.empty()) {
      for (const std::int64_t d : postponed_.front().deps)
        if (auto it = deferred_.find(d); it != deferred_.end()) {
          for (Condition& c : it->second) await(c);
          deferred_.erase(it);
        }
      advance();
    }
    if (!all) return;
    for (auto& [id, conditions] : deferred_)
      for (Condition& c : conditions) await(c);
    deferred_.clear();
  }

  /// The ids `deps` evaluate to: task ids and arrays of them (an array's invalid ids, -1, name
  /// no task).
  std::vector<std::int64_t> task_ids(const std::vector<ir::ExprRef>& deps) {
    std::vector<std::int64_t> ids;
    const auto add = [&](const Value& v) {
      if (v.kind != ValueKind::Scalar || v.dtype != DataType::TASK_ID)
        fail("a task's deps must be task ids (Scalar[TASK_ID] or an Array of them)");
      if (v.i != -1) ids.push_back(v.i);
    };
    for (const auto& d : deps) {
      const Value v = eval(*d);
      if (v.kind != ValueKind::Array) add(v);
      for (const Value& e : v.elements) add(e);
    }
    return ids;
  }

  /// A task scope: runs `body` as a task, or postpones it (in a copy of this frame; the names
  /// it binds are bound here when it has run) while a task its deps name is incomplete.
  template <class Body>
  Flow as_task(const ir::ScopeStmt& sc, Body body) {
    const std::int64_t id = sc.task_id ? next_task_id_ : --anonymous_task_;
    bind_task_id(sc);
    if (running_task_) return body();  // a scope inside a task is part of it
    std::vector<std::int64_t> deps =
        task_ids(ir::scope_attr::exprs(sc.attrs, ir::scope_attr::kDeps));
    if (ready(deps)) {
      const Flow flow = run_task(id, body);
      advance();
      return flow;
    }
    auto copy = std::make_shared<Frame>(*frame_);
    Frame* home = frame_;
    postponed_.push_back({id, std::move(deps),
                          [this, copy, home, body] {
                            // Names bound since (by the tasks it waited for) are seen too.
                            for (const auto& [var, value] : home->env)
                              copy->env.try_emplace(var, value);
                            std::unordered_map<const ir::Var*, Value> before = copy->env;
                            Frame* saved = frame_;
                            frame_ = copy.get();
                            struct Restore {
                              Frame*& slot;
                              Frame* saved;
                              ~Restore() { slot = saved; }
                            } restore{frame_, saved};
                            body();
                            // Each name is one key: the order of this walk decides nothing.
                            for (const auto& [var, value] : copy->env)
                              if (!before.count(var)) home->env[var] = value;
                          },
                          home});
    return Flow::Normal;
  }

  /// A Group's body: each run of consecutive calls of its AIC / AIV members is one mixed task
  /// (the members run side by side, handing tiles through their pipes: mixed_task.hpp); other
  /// statements run in order between them, and a member call reading another's result starts a
  /// new task after it.
  Flow exec_group(const ir::Stmt& body) {
    struct Pending {
      const ir::Var* var;
      const ir::Function* fn;
      std::vector<Value> args;
    };
    std::vector<Pending> pending;
    auto run_members = [&] {
      if (pending.empty()) return;
      std::vector<std::string> names;
      for (const Pending& p : pending) names.push_back(p.fn->name);
      std::vector<std::vector<Value>> results =
          side_by_side(MixedTask::Kind::Group, names, [&](Interpreter& member, std::size_t k) {
            return member.call(*pending[k].fn, std::move(pending[k].args));
          });
      for (std::size_t k = 0; k < pending.size(); ++k)
        if (pending[k].var) bind(*pending[k].var, pack(std::move(results[k])));
      pending.clear();
    };
    std::vector<const ir::Stmt*> stmts{&body};
    if (const auto* seq = ir::as<ir::SeqStmts>(&body)) {
      stmts.clear();
      for (const auto& c : seq->stmts) stmts.push_back(c.get());
    }
    for (const ir::Stmt* s : stmts) {
      const ir::Var* var = nullptr;
      const ir::Expr* e = nullptr;
      if (const auto* a = ir::as<ir::AssignStmt>(s)) {
        var = a->var.get();
        e = a->value.get();
      } else if (const auto* ev = ir::as<ir::EvalStmt>(s)) {
        e = ev->expr.get();
      }
      const auto* c = ir::as<ir::Call>(e);
      const ir::Function* member = nullptr;
      if (c && ir::isa<ir::GlobalVar>(*c->op) && !c->attrs.find("core_num")) {
        const ir::Function& fn = callee(*c->op);
        if (fn.func_type == ir::FunctionType::AIC || fn.func_type == ir::FunctionType::AIV)
          member = &fn;
      }
      if (!member) {
        run_members();
        const Flow f = exec(*s);
        if (f != Flow::Normal) return f;
        continue;
      }
      // A member reading another's result (through memory, not a pipe) runs after it.
      bool reads_pending = false;
      for (const auto& a : c->args)
        ir::for_each_node(a, [&](const ir::Node& n) {
          for (const Pending& p : pending) reads_pending = reads_pending || &n == p.var;
        });
      if (reads_pending) run_members();
      where_.stmt = s;
      std::vector<Value> args;
      for (const auto& a : c->args) args.push_back(eval(*a));
      if (args.size() != member->params.size())
        fail("call of '" + member->name + "' with " + std::to_string(args.size()) +
             " arguments for " + std::to_string(member->params.size()) + " parameters");
      pending.push_back({var, member, std::move(args)});
    }
    run_members();
    return Flow::Normal;
  }

  void bind_task_id(const ir::ScopeStmt& sc) {
    if (sc.task_id) bind(*sc.task_id, Value::scalar_int(next_task_id_++, DataType::TASK_ID));
  }

  /// Runs `body(member, k)` for each of `names` side by side, as the members of one mixed task
  /// (mixed_task.hpp), each in an interpreter of its own that starts where this one is; the
  /// statements they run count here. Each one's results, in order.
  template <class F>
  std::vector<std::vector<Value>> side_by_side(MixedTask::Kind kind,
                                               const std::vector<std::string>& names, F&& body) {
    std::vector<MixedTask::Member> members;
    std::vector<std::uint64_t> executed(names.size(), 0);
    for (std::size_t k = 0; k < names.size(); ++k)
      members.push_back({names[k], [this, &body, &executed, k] {
                           Interpreter member(program_, options_);
                           member.block_idx_ = block_idx_;
                           member.block_num_ = block_num_;
                           member.subblock_idx_ = subblock_idx_;
                           member.depth_ = depth_;
                           member.where_ = where_;
                           member.executed_ = executed_;
                           member.next_task_id_ = next_task_id_;
                           member.world_ = world_;
                           member.rank_ = rank_;
                           member.world_task_ = world_task_;
                           std::vector<Value> out = body(member, k);
                           executed[k] = member.executed_ - executed_;
                           return out;
                         }});
    std::vector<std::vector<Value>> results = MixedTask::run(std::move(members), kind);
    for (const std::uint64_t e : executed) executed_ += e;
    return results;
  }

  /// Runs `body(block, b)` for the n blocks of a launch whose code syncs: side by side, so that
  /// a syncall is a barrier every block reaches before any goes on (docs/runtime.md).
  template <class F>
  std::vector<std::vector<Value>> blocks_side_by_side(std::int64_t n, F&& body) {
    std::vector<std::string> names;
    for (std::int64_t b = 0; b < n; ++b) names.push_back("block " + std::to_string(b));
    return side_by_side(MixedTask::Kind::Blocks, names, [&](Interpreter& block, std::size_t b) {
      block.block_idx_ = static_cast<std::int64_t>(b);
      block.block_num_ = n;
      return body(block, b);
    });
  }

  /// True when running `root` may reach a system.syncall, in it or in a function it calls.
  bool syncs(const ir::Node& root) { return reaches(root, ir::OpId::system_syncall, syncs_); }

  /// True when `root` reaches a call of op `id`, in it or in a function it calls or submits;
  /// `memo` holds the answer by function name.
  bool reaches(const ir::Node& root, ir::OpId id, std::map<std::string, bool, std::less<>>& memo) {
    bool found = false;
    ir::for_each_node(ir::NodeRef(&root), [&](const ir::Node& n) {
      const auto* c = ir::as<ir::Call>(&n);
      if (found || !c) return;
      if (!ir::isa<ir::GlobalVar>(*c->op)) {
        found = c->op->id == id;
        return;
      }
      const auto [it, fresh] = memo.try_emplace(c->op->name, false);  // false while it runs
      if (fresh) {
        const ir::FunctionRef fn = program_.find(c->op->name);
        const bool s = fn && fn->body && reaches(*fn->body, id, memo);
        memo[c->op->name] = s;
        found = s;
      } else {
        found = it->second;
      }
    });
    return found;
  }

  /// The first `pld.` op a call of `fn` reaches, in it or in a function it calls or submits
  /// (empty when none): what makes a call on another device depend on the world around it.
  std::string distributed_op(const ir::Function& fn) {
    const auto [it, fresh] = distributed_ops_.try_emplace(fn.name);  // empty while it runs
    if (!fresh || !fn.body) return it->second;
    std::string found;
    ir::for_each_node(fn.body, [&](const ir::Node& n) {
      const ir::Op* op = nullptr;
      if (const auto* c = ir::as<ir::Call>(&n)) op = c->op.get();
      if (const auto* s = ir::as<ir::Submit>(&n)) op = s->op.get();
      if (!found.empty() || !op) return;
      if (!ir::isa<ir::GlobalVar>(*op)) {
        if (op->name.starts_with("pld.")) found = "'" + op->name + "'";
      } else if (const ir::FunctionRef callee = program_.find(op->name)) {
        found = distributed_op(*callee);
      }
    });
    it->second = found;  // std::map: the recursion's insertions keep `it` valid
    return found;
  }

  /// Runs `body` once per index in [0, n) with *index set (block or sub-block index).
  template <class F>
  Flow per_block(std::int64_t n, std::int64_t* index, F&& body) {
    if (n < 1) fail("a block count must be at least 1, got " + std::to_string(n));
    const std::int64_t saved = *index, saved_num = block_num_;
    if (index == &block_idx_) block_num_ = n;
    Flow flow = Flow::Normal;
    for (std::int64_t b = 0; b < n && flow == Flow::Normal; ++b) {
      *index = b;
      flow = body();
    }
    *index = saved;
    block_num_ = saved_num;
    return flow;
  }

  /// True when `s` yields for the construct that owns it (not for a nested loop or if).
  static bool has_own_yield(const ir::Stmt& s) {
    if (ir::isa<ir::YieldStmt>(s)) return true;
    if (const auto* q = ir::as<ir::SeqStmts>(&s)) {
      for (const auto& c : q->stmts)
        if (has_own_yield(*c)) return true;
      return false;
    }
    if (const auto* sc = ir::as<ir::ScopeStmt>(&s)) return has_own_yield(*sc->body);
    return false;
  }

  /// Adds to `out` every Var assigned in `s` (at any depth) named like an iter_arg of `loop`.
  template <class Loop>
  static void collect_rebinders(const ir::Stmt& s, const Loop& loop,
                                std::vector<std::pair<const ir::Var*, const ir::Var*>>& out) {
    if (const auto* a = ir::as<ir::AssignStmt>(&s)) {
      for (const auto& ia : loop.iter_args)
        if (a->var->name_hint == ia->name_hint && a->var.get() != ia.get())
          out.emplace_back(a->var.get(), ia.get());
      return;
    }
    if (const auto* q = ir::as<ir::SeqStmts>(&s))
      for (const auto& c : q->stmts) collect_rebinders(*c, loop, out);
    if (const auto* sc = ir::as<ir::ScopeStmt>(&s)) collect_rebinders(*sc->body, loop, out);
    if (const auto* f = ir::as<ir::ForStmt>(&s)) collect_rebinders(*f->body, loop, out);
    if (const auto* w = ir::as<ir::WhileStmt>(&s)) collect_rebinders(*w->body, loop, out);
    if (const auto* i = ir::as<ir::IfStmt>(&s)) {
      collect_rebinders(*i->then_body, loop, out);
      if (i->else_body) collect_rebinders(*i->else_body, loop, out);
    }
  }

  /// A pre-SSA loop (iter_args, no yield: the natural form) carries by rebinding: a Var of the
  /// body named like an iter_arg is that iter_arg (convert_to_ssa.hpp). While it runs, those
  /// Vars alias their iter_arg; afterwards they hold the final value, as do the return vars.
  template <class Loop>
  std::vector<std::pair<const ir::Var*, const ir::Var*>> pre_ssa_aliases(const Loop& loop) {
    std::vector<std::pair<const ir::Var*, const ir::Var*>> out;
    if (loop.iter_args.empty() || has_own_yield(*loop.body)) return out;
    collect_rebinders(*loop.body, loop, out);
    for (const auto& [v, ia] : out) frame_->alias[v] = ia;
    return out;
  }
  void end_aliases(const std::vector<std::pair<const ir::Var*, const ir::Var*>>& aliases) {
    for (const auto& [v, ia] : aliases) frame_->alias.erase(v);
    for (const auto& [v, ia] : aliases) {
      auto it = frame_->env.find(ia);
      if (it != frame_->env.end()) frame_->env[v] = it->second;
    }
  }

  template <class Loop>
  std::vector<Value> init_carries(const Loop& loop) {
    std::vector<Value> carries;
    for (const auto& ia : loop.iter_args) carries.push_back(eval(*ia->init_value));
    return carries;
  }

  /// Binds the carries to the iter_args, runs the body, takes its yield as the next carries.
  template <class Loop>
  Flow run_body(const Loop& loop, std::vector<Value>& carries) {
    for (std::size_t k = 0; k < carries.size(); ++k) bind(*loop.iter_args[k], carries[k]);
    frame_->yielded.reset();
    const Flow f = exec(*loop.body);
    if (frame_->yielded && !loop.iter_args.empty()) {
      if (frame_->yielded->size() != carries.size())
        fail("a loop body yields " + std::to_string(frame_->yielded->size()) + " values for " +
             std::to_string(carries.size()) + " iter_args");
      carries = std::move(*frame_->yielded);
    } else {
      for (std::size_t k = 0; k < carries.size(); ++k) carries[k] = lookup(*loop.iter_args[k]);
    }
    frame_->yielded.reset();
    return f;
  }

  template <class Loop>
  void bind_results(const Loop& loop, std::vector<Value>& carries) {
    for (std::size_t k = 0; k < loop.return_vars.size(); ++k)
      bind(*loop.return_vars[k], std::move(carries[k]));
  }

  Flow exec_for(const ir::ForStmt& s) {
    const std::int64_t start = as_int(eval(*s.start), "the loop start");
    const std::int64_t stop = as_int(eval(*s.stop), "the loop stop");
    const std::int64_t step = as_int(eval(*s.step), "the loop step");
    if (step == 0) fail("a loop step must not be 0");
    std::vector<Value> carries = init_carries(s);
    const auto aliases = pre_ssa_aliases(s);
    const DataType lt = ir::as<ir::ScalarType>(s.loop_var->type.get())->dtype;
    for (std::int64_t i = start; step > 0 ? i < stop : i > stop;) {
      bind(*s.loop_var, Value::scalar_int(i, lt));
      const Flow f = run_body(s, carries);
      where_.stmt = &s;
      if (f == Flow::Return) return f;
      if (f == Flow::Break) break;
      if ((step > 0 && i > std::numeric_limits<std::int64_t>::max() - step) ||
          (step < 0 && i < std::numeric_limits<std::int64_t>::min() - step))
        break;
      i += step;
    }
    end_aliases(aliases);
    bind_results(s, carries);
    return Flow::Normal;
  }

  Flow exec_while(const ir::WhileStmt& s) {
    std::vector<Value> carries = init_carries(s);
    const auto aliases = pre_ssa_aliases(s);
    for (;;) {
      for (std::size_t k = 0; k < carries.size(); ++k) bind(*s.iter_args[k], carries[k]);
      where_.stmt = &s;
      if (!as_bool(eval(*s.condition), "the while condition")) break;
      const Flow f = run_body(s, carries);
      if (f == Flow::Return) return f;
      if (f == Flow::Break) break;
    }
    end_aliases(aliases);
    bind_results(s, carries);
    return Flow::Normal;
  }

  Flow exec_if(const ir::IfStmt& s) {
    const bool c = as_bool(eval(*s.condition), "the if condition");
    const ir::Stmt* branch = c ? s.then_body.get() : s.else_body.get();
    if (!branch) return Flow::Normal;
    frame_->yielded.reset();
    const Flow f = exec(*branch);
    where_.stmt = &s;
    if (f != Flow::Normal) return f;
    if (!s.return_vars.empty()) {
      if (!frame_->yielded || frame_->yielded->size() != s.return_vars.size())
        fail("the taken branch of an if does not yield its " +
             std::to_string(s.return_vars.size()) + " values");
      for (std::size_t k = 0; k < s.return_vars.size(); ++k)
        bind(*s.return_vars[k], std::move((*frame_->yielded)[k]));
    }
    frame_->yielded.reset();
    return Flow::Normal;
  }

  // ---- expressions --------------------------------------------------------------------------

  Value eval(const ir::Expr& e) {
    using K = ir::NodeKind;
    switch (e.kind()) {
      case K::Var:
      case K::IterArg: {
        const auto& v = static_cast<const ir::Var&>(e);
        if (!postponed_.empty() && !frame_->env.count(resolve(v))) drain(false);  // bound later
        return lookup(v);
      }
      case K::ConstInt: {
        const auto& c = static_cast<const ir::ConstInt&>(e);
        return Value::scalar_int(c.value, c.dtype());
      }
      case K::ConstFloat: {
        const auto& c = static_cast<const ir::ConstFloat&>(e);
        check_dtype(c.dtype(), "a constant");
        if (!is_float_dtype(c.dtype())) fail("a float constant of dtype " + dtype_text(c.dtype()));
        Value v = Value::scalar_float(0.0f, c.dtype());
        v.f = round_to_dtype(c.dtype(), c.value);  // one rounding of the literal
        return v;
      }
      case K::ConstBool: return Value::scalar_bool(static_cast<const ir::ConstBool&>(e).value);
      case K::MakeTuple: {
        std::vector<Value> out;
        for (const auto& x : static_cast<const ir::MakeTuple&>(e).elements) out.push_back(eval(*x));
        return Value::tuple(std::move(out));
      }
      case K::TupleGetItem: {
        const auto& g = static_cast<const ir::TupleGetItem&>(e);
        Value t = eval(*g.tuple);
        if (t.kind != ValueKind::Tuple || g.index < 0 ||
            static_cast<std::size_t>(g.index) >= t.elements.size())
          fail("TupleGetItem " + std::to_string(g.index) + " of a value that has no such element");
        return std::move(t.elements[static_cast<std::size_t>(g.index)]);
      }
      case K::Call: return eval_call(static_cast<const ir::Call&>(e));
      case K::Submit: return eval_submit(static_cast<const ir::Submit&>(e));
      case K::Cast: return eval_cast(static_cast<const ir::Cast&>(e));
      default: break;
    }
    if (ir::kinds::binary.contains(e.kind())) {
      const auto& b = static_cast<const ir::BinaryExpr&>(e);
      return binary(e.kind(), eval(*b.left), eval(*b.right));
    }
    if (ir::kinds::unary.contains(e.kind()))
      return unary(e.kind(), eval(*static_cast<const ir::UnaryExpr&>(e).operand));
    fail("cannot evaluate a " + std::string(ir::kind_name(e.kind())));
  }

  // -- scalar arithmetic

  Value binary(ir::NodeKind k, const Value& a, const Value& b) const {
    using K = ir::NodeKind;
    if (a.kind != ValueKind::Scalar || b.kind != ValueKind::Scalar ||
        (a.dtype != b.dtype && !ir::detail::one_word(a.dtype, b.dtype)))
      fail(std::string(ir::kind_name(k)) + " needs two scalars of one dtype");
    const DataType t = a.dtype;  // INDEX beside INT64: one word, typed by the left (as the node)
    if (is_float_dtype(t)) {     // in binary32, each result rounded to t
      const float x = a.f, y = b.f;
      switch (k) {
        case K::Add: return Value::scalar_float(strict(x + y), t);
        case K::Sub: return Value::scalar_float(strict(x - y), t);
        case K::Mul: return Value::scalar_float(strict(x * y), t);
        case K::FloatDiv: return Value::scalar_float(strict(x / y), t);
        case K::FloorDiv: return Value::scalar_float(strict(std::floor(strict(x / y))), t);
        case K::FloorMod: {
          float r = strict(std::fmod(x, y));
          if (r != 0.0f && ((r < 0.0f) != (y < 0.0f))) r = strict(r + y);
          return Value::scalar_float(r, t);
        }
        case K::Min: return Value::scalar_float(kernel::detail::apply_min(x, y), t);
        case K::Max: return Value::scalar_float(kernel::detail::apply_max(x, y), t);
        case K::Pow: return Value::scalar_float(strict(std::pow(x, y)), t);
        case K::Eq: return Value::scalar_bool(x == y);
        case K::Ne: return Value::scalar_bool(x != y);
        case K::Lt: return Value::scalar_bool(x < y);
        case K::Le: return Value::scalar_bool(x <= y);
        case K::Gt: return Value::scalar_bool(x > y);
        case K::Ge: return Value::scalar_bool(x >= y);
        default: break;
      }
      fail(std::string(ir::kind_name(k)) + " on " + dtype_text(t) + " scalars is not executable");
    }
    check_dtype(t, std::string(ir::kind_name(k)) + "'s operand");
    if (t == DataType::TASK_ID && k != K::Eq && k != K::Ne)
      fail(std::string(ir::kind_name(k)) + " on TASK_ID scalars is not executable");
    const std::int64_t x = a.i, y = b.i;
    const auto ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
    const bool u64 = is_u64(t);
    auto less = [&](std::int64_t p, std::int64_t q) {
      return u64 ? static_cast<std::uint64_t>(p) < static_cast<std::uint64_t>(q) : p < q;
    };
    auto out = [&](std::uint64_t v) { return Value::scalar_int(wrap(v, t), t); };
    switch (k) {
      case K::Add: return out(ux + uy);
      case K::Sub: return out(ux - uy);
      case K::Mul: return out(ux * uy);
      case K::FloorDiv:
      case K::FloorMod: {
        if (y == 0) fail(std::string(ir::kind_name(k)) + " by zero");
        if (u64) return out(k == K::FloorDiv ? ux / uy : ux % uy);
        if (y == -1)
          return out(k == K::FloorDiv ? std::uint64_t{0} - ux : 0);  // no INT64_MIN/-1 UB
        std::int64_t q = x / y, r = x % y;
        if (r != 0 && ((r < 0) != (y < 0))) {
          --q;
          r += y;
        }
        return out(static_cast<std::uint64_t>(k == K::FloorDiv ? q : r));
      }
      case K::Min: return Value::scalar_int(less(y, x) ? y : x, t);
      case K::Max: return Value::scalar_int(less(x, y) ? y : x, t);
      case K::Pow: {
        if (!u64 && y < 0) fail("Pow with a negative integer exponent");
        std::uint64_t r = 1, base = ux;
        for (std::uint64_t e = uy; e != 0; e >>= 1) {
          if (e & 1) r *= base;
          base *= base;
        }
        return out(r);
      }
      case K::Eq: return Value::scalar_bool(x == y);
      case K::Ne: return Value::scalar_bool(x != y);
      case K::Lt: return Value::scalar_bool(less(x, y));
      case K::Le: return Value::scalar_bool(!less(y, x));
      case K::Gt: return Value::scalar_bool(less(y, x));
      case K::Ge: return Value::scalar_bool(!less(x, y));
      case K::And: return Value::scalar_bool(x != 0 && y != 0);
      case K::Or: return Value::scalar_bool(x != 0 || y != 0);
      case K::Xor: return Value::scalar_bool((x != 0) != (y != 0));
      case K::BitAnd: return out(ux & uy);
      case K::BitOr: return out(ux | uy);
      case K::BitXor: return out(ux ^ uy);
      case K::BitShiftLeft:
      case K::BitShiftRight: {
        const unsigned bits = core::bit_width(t);
        if (y < 0 || (!u64 && y >= static_cast<std::int64_t>(bits)) || (u64 && uy >= 64))
          fail("a shift by " + std::to_string(y) + " is out of range for " + dtype_text(t));
        if (k == K::BitShiftLeft) return out(ux << y);
        return out(core::is_unsigned_int(t) ? ux >> y : static_cast<std::uint64_t>(x >> y));
      }
      default: break;
    }
    fail(std::string(ir::kind_name(k)) + " on " + dtype_text(t) + " scalars is not executable");
  }

  Value unary(ir::NodeKind k, const Value& a) const {
    using K = ir::NodeKind;
    if (a.kind != ValueKind::Scalar) fail(std::string(ir::kind_name(k)) + " needs a scalar");
    if (is_float_dtype(a.dtype)) {
      if (k == K::Neg) return Value::scalar_float(-a.f, a.dtype);
      if (k == K::Abs) return Value::scalar_float(std::fabs(a.f), a.dtype);
      fail(std::string(ir::kind_name(k)) + " on a " + dtype_text(a.dtype) +
           " scalar is not executable");
    }
    check_dtype(a.dtype, std::string(ir::kind_name(k)) + "'s operand");
    const auto u = static_cast<std::uint64_t>(a.i);
    switch (k) {
      case K::Neg: return Value::scalar_int(wrap(std::uint64_t{0} - u, a.dtype), a.dtype);
      case K::Abs:
        return Value::scalar_int(
            a.i < 0 && !is_u64(a.dtype) ? wrap(std::uint64_t{0} - u, a.dtype) : a.i, a.dtype);
      case K::Not: return Value::scalar_bool(a.i == 0);
      case K::BitNot: return Value::scalar_int(wrap(~u, a.dtype), a.dtype);
      default: break;
    }
    fail(std::string(ir::kind_name(k)) + " on " + dtype_text(a.dtype) + " is not executable");
  }

  /// Converts a scalar to `to` (C++ conversions; float to integer truncates and must fit).
  Value convert(const Value& a, DataType to) const {
    check_dtype(to, "a cast target");
    if (is_float_dtype(to)) {
      Value v = Value::scalar_float(0.0f, to);
      if (is_float_dtype(a.dtype))
        v.f = rounded(to, a.f);
      else
        v.f = round_to_dtype(to, is_u64(a.dtype)
                                     ? static_cast<long double>(static_cast<std::uint64_t>(a.i))
                                     : static_cast<long double>(a.i));
      return v;
    }
    if (is_float_dtype(a.dtype)) {
      if (to == DataType::BOOL) return Value::scalar_bool(a.f != 0.0f);
      const float t = std::trunc(a.f);
      if (!(t >= -9.2233720368547758e18f && t < 9.2233720368547758e18f))
        fail("the float " + std::to_string(a.f) + " does not fit " + dtype_text(to));
      const auto v = static_cast<std::int64_t>(t);
      const std::int64_t w = wrap(static_cast<std::uint64_t>(v), to);
      if (w != v) fail("the float " + std::to_string(a.f) + " does not fit " + dtype_text(to));
      return Value::scalar_int(w, to);
    }
    if (to == DataType::BOOL) return Value::scalar_bool(a.i != 0);
    return Value::scalar_int(wrap(static_cast<std::uint64_t>(a.i), to), to);
  }

  Value eval_cast(const ir::Cast& c) {
    const Value a = eval(*c.operand);
    if (a.kind != ValueKind::Scalar) fail("Cast needs a scalar");
    check_dtype(a.dtype, "Cast's operand");
    return convert(a, c.target());
  }

  // -- calls of program functions

  /// The callee's results as one value: a lone result, or a tuple of several.
  static Value pack(std::vector<Value> results) {
    if (results.size() == 1) return std::move(results[0]);
    if (results.empty()) return Value{};
    return Value::tuple(std::move(results));
  }

  const ir::Function& callee(const ir::Op& op) const {
    ir::FunctionRef fn = program_.find(op.name);
    if (!fn) fail("call of '" + op.name + "', which is not a function of the program");
    return *fn;
  }

  /// Runs `fn` once, or once per block when `core_num` is set; the results of the last block.
  std::vector<Value> dispatch(const ir::Function& fn, std::vector<Value> args,
                              std::optional<std::int64_t> core_num) {
    if (!core_num) return call(fn, std::move(args));
    if (*core_num > 1 && fn.body && syncs(*fn.body))
      return blocks_side_by_side(
                 *core_num, [&](Interpreter& block, std::size_t) { return block.call(fn, args); })
          .back();
    std::vector<Value> results;
    per_block(*core_num, &block_idx_, [&] {
      results = call(fn, args);
      return Flow::Normal;
    });
    return results;
  }

  /// The integer value of `v`, a constant or an expression the interpreter evaluates.
  std::int64_t int_attr(const ir::AttrValue& v, std::string_view key) {
    if (const auto* n = v.get_if<std::int64_t>()) return *n;
    const std::string what = "the " + std::string(key) + " attr";
    if (const auto* e = v.get_if<ir::ExprRef>()) return as_int(eval(**e), what);
    fail(what + " must be an integer");
  }

  std::optional<std::int64_t> core_num_attr(const ir::Attrs& attrs) {
    const ir::AttrValue* v = attrs.find("core_num");
    return v ? std::optional<std::int64_t>(int_attr(*v, "core_num")) : std::nullopt;
  }

  /// The results of a task before it runs: each is the parameter the callee returns (its
  /// argument, or a zero buffer the runtime allocates for an omitted output, appended to
  /// `args`). A callee that returns anything but its parameters has no such result: an error
  /// starting with `what`.
  std::vector<Value> results_before_running(const ir::Function& fn, std::vector<Value>& args,
                                            std::string_view what) {
    for (std::size_t k = args.size(); k < fn.params.size(); ++k)
      args.push_back(allocate(*fn.params[k]->type,
                              "omitted parameter '" + fn.params[k]->name_hint + "' of " + fn.name));
    std::vector<Value> results;
    if (fn.return_types.empty()) return results;
    if (!lineage_) lineage_ = std::make_unique<transforms::ReturnLineage>(&program_);
    for (const transforms::ReturnLineage::ParamIndex& returned : lineage_->returned_params(fn)) {
      if (!returned)
        fail(std::string(what) + fn.name +
             " returns a value that is not one of its parameters, so the task has no result "
             "before it runs");
      check_arg(fn, *fn.params[*returned], args.at(*returned));
      results.push_back(args[*returned]);
    }
    return results;
  }

  /// The results of a task whose predicate is false: it does not run, so each result is the
  /// parameter the callee returns, untouched.
  std::vector<Value> skipped_task_results(const ir::Function& fn, std::vector<Value> args,
                                          std::string_view what =
                                              "a Submit whose predicate is "
                                              "false: ") {
    return results_before_running(fn, args, what);
  }

  Value eval_submit(const ir::Submit& s) {
    const ir::Function& fn = callee(*s.op);
    std::vector<std::int64_t> deps = task_ids(s.deps);
    const bool run = !s.predicate || as_bool(eval(*s.predicate), "the Submit predicate");
    std::optional<std::int64_t> n;
    if (s.core_num) n = as_int(eval(*s.core_num), "the Submit core_num");
    std::vector<Value> args;
    for (const auto& a : s.args) args.push_back(eval(*a));
    const std::int64_t id = next_task_id_++;
    std::vector<Value> results;
    if (!run) {
      results = skipped_task_results(fn, std::move(args));
    } else if (running_task_ || ready(deps)) {
      results = run_task(id, [&] { return dispatch(fn, std::move(args), n); });
      advance();
    } else {  // its results are the parameters it returns (held now, written when it runs)
      results = results_before_running(fn, args, "a Submit postponed until its deps complete: ");
      postponed_.push_back(
          {id, std::move(deps), [this, &fn, args, n] { dispatch(fn, args, n); }, frame_});
    }
    results.push_back(Value::scalar_int(id, DataType::TASK_ID));
    return Value::tuple(std::move(results));
  }

  Value eval_call(const ir::Call& c) {
    if (ir::isa<ir::GlobalVar>(*c.op)) {
      const ir::Function& fn = callee(*c.op);
      std::vector<Value> args;
      for (const auto& a : c.args) args.push_back(eval(*a));
      if (args.size() != fn.params.size())
        fail("call of '" + fn.name + "' with " + std::to_string(args.size()) + " arguments for " +
             std::to_string(fn.params.size()) + " parameters");
      const ir::AttrValue* d = c.kwargs.find("device");
      if (!d) d = c.attrs.find("device");
      if (d && world_size() > 1 && rank_ < 0)
        return pack(on_device(fn, int_attr(*d, "device"), std::move(args), c.attrs));
      if (!d && !devices_.empty()) run_devices();  // the host's own work sees the devices'
      if (d) {  // the device that runs the call: another one's work must not need the others
        const std::int64_t r = int_attr(*d, "device");
        if (r != 0)
          if (const std::string op = distributed_op(fn); !op.empty())
            fail("call of '" + fn.name + "' on device " + std::to_string(r) + ", which reaches " +
                 op +
                 ": that needs the other ranks running beside it, and a single process runs "
                 "a world of one rank (device 0)");
      }
      const std::optional<std::int64_t> n = core_num_attr(c.attrs);
      if (running_task_ || !ir::is_device_function(fn.func_type)) {
        drain(false);
        return pack(dispatch(fn, std::move(args), n));
      }
      Value results =
          pack(run_task(--anonymous_task_, [&] { return dispatch(fn, std::move(args), n); }));
      advance();
      return results;
    }
    std::vector<Value> args;
    for (const auto& a : c.args) args.push_back(eval(*a));
    if (!postponed_.empty() &&
        std::any_of(args.begin(), args.end(), [](const Value& v) { return v.is_shaped(); }))
      drain(false);
    Value result;
    try {
      result = builtin(c, args);
    } catch (const core::ValueError& e) {  // a value the op cannot hold (a shape too large)
      unsupported(c, e.what());
    }
    // A write into a view writes the storage it views.
    if (std::optional<std::size_t> k = written_operand(c.op->id);
        k && *k < args.size() && args[*k].buffer && args[*k].buffer->origin)
      write_back_view(*args[*k].buffer);
    return result;
  }

  /// A tile.slice of an accumulator (Acc) tile: a window of its memory, not a copy.
  static bool accumulator_window(const ir::Call& c) {
    const auto* t = ir::as<ir::TileType>(c.args.at(0)->type.get());
    return t && t->memory_space == ir::MemorySpace::Acc;
  }

  /// The operand a builtin op writes in place (a store's or element write's destination). The
  /// one-sided pld ops write their own local destination back (their peer's is another rank's).
  static std::optional<std::size_t> written_operand(ir::OpId id) {
    using ir::OpId;
    switch (id) {
      case OpId::tensor_write:
      case OpId::tile_write:
      case OpId::tensor_assemble:
      case OpId::tile_gather_row:
      case OpId::tensor_gather_row: return 0;
      case OpId::tile_store: return 2;
      case OpId::tensor_expand_clone: return 1;
      case OpId::pld_tensor_allgather:
      case OpId::pld_tensor_all_to_all:
      case OpId::pld_tensor_all_to_all_v: return 1;
      default: return std::nullopt;
    }
  }

  // -- a world of several ranks

  /// Shared by a host and the ranks it runs: each rank's copy of every window buffer the host
  /// allocates, and the window views each rank holds (written back into its copy when it stops
  /// for a peer, refreshed when it goes on). Keyed by buffer identity: lookup only, never
  /// iterated.
  struct World {
    std::int64_t size = 1;
    std::unordered_map<const Buffer*, std::vector<std::shared_ptr<Buffer>>> copies;
    std::unordered_map<const Buffer*, std::pair<const Buffer*, std::int64_t>> copy_of;
    std::vector<std::vector<std::shared_ptr<Buffer>>> views;  // by rank
    /// Each window buffer's communication domain: the devices the host passed views of it to,
    /// ascending (a peer or rank of a window is its index there), and its number (by first use).
    std::unordered_map<const Buffer*, std::size_t> domain_of;
    std::vector<std::vector<std::int64_t>> domains;
    /// What each rank gave the collective it is in (its arguments' copies), by device.
    std::vector<std::vector<Value>> deposits;
    /// A domain's rendezvous: how many of its ranks have come, and how many times all had.
    struct Meeting {
      std::size_t arrived = 0;
      std::uint64_t generation = 0;
    };
    std::map<std::vector<std::int64_t>, Meeting> meetings;
  };
  /// A host's call on a device, run when the host waits for its devices.
  struct DeviceCall {
    const ir::Function* fn;
    std::vector<Value> args;
    std::optional<std::int64_t> core_num;
  };

  std::int64_t world_size() const {
    return options_ ? std::max<std::int64_t>(1, options_->world_size) : 1;
  }

  /// A host's call on device `r`: queued for rank r, whose calls run in order when the host
  /// waits for its devices; its results are the parameters the callee returns (what it writes).
  std::vector<Value> on_device(const ir::Function& fn, std::int64_t r, std::vector<Value> args,
                               const ir::Attrs& attrs) {
    if (r < 0 || r >= world_size())
      fail("call of '" + fn.name + "' on device " + std::to_string(r) + ", outside the world of " +
           std::to_string(world_size()) + " ranks");
    world();                     // made at the first device call, windows or not
    for (const Value& a : args)  // the windows it is given: r joins their domains
      if (const Buffer* host = host_window(a.buffer)) join_domain(host, r);
    std::vector<Value> results =
        skipped_task_results(fn, args, "call on device " + std::to_string(r) + ": ");
    devices_.resize(static_cast<std::size_t>(world_->size));
    devices_[static_cast<std::size_t>(r)].push_back({&fn, std::move(args), core_num_attr(attrs)});
    devices_frame_ = frame_;
    return results;
  }

  /// The call_hook's run of kernel `fn`. In a world's rank, the rank serves the kernel's
  /// distributed ops (RankPort::current()) and the kernel's views of windows are the rank's own
  /// for the call: written back before the other ranks run, refreshed after.
  std::optional<std::vector<Value>> hooked_call(const ir::Function& fn, std::vector<Value>& args) {
    if (!world_task_) {
      // A task's deferred wait registers here in a world of one rank too: the kernel asks this
      // interpreter (its RankPort) as a rank's kernel does.
      if (!running_task_ || !fn.body ||
          !reaches(*fn.body, ir::OpId::pld_system_defer_wait, defers_))
        return options_->call_hook(fn, args, block_idx_, block_num_);
      // (Named apart from the Restore below: two local classes of one name in one function
      // share a mangled name under clang, which then runs the wrong destructor.)
      struct RestorePort {
        RankPort* port;
        ~RestorePort() { current_rank_port() = port; }
      } restore_port{current_rank_port()};
      current_rank_port() = this;
      return options_->call_hook(fn, args, block_idx_, block_num_);
    }
    struct Restore {  // the blocks of a launch share the list: each takes out its own
      std::vector<std::shared_ptr<Buffer>>& views;
      std::vector<const Buffer*> added;
      RankPort* port;
      ~Restore() {
        for (const Buffer* b : added) {
          const auto at = std::find_if(views.rbegin(), views.rend(),
                                       [&](const auto& v) { return v.get() == b; });
          if (at != views.rend()) views.erase(std::next(at).base());
        }
        current_rank_port() = port;
      }
    } restore{world_->views[static_cast<std::size_t>(rank_)], {}, current_rank_port()};
    for (const Value& a : args)
      if (a.buffer && a.buffer->origin) {
        restore.views.push_back(a.buffer);
        restore.added.push_back(a.buffer.get());
      }
    current_rank_port() = this;
    return options_->call_hook(fn, args, block_idx_, block_num_);
  }

  /// Device `r` joins the communication domain of window buffer `host`.
  void join_domain(const Buffer* host, std::int64_t r) {
    World& w = world();
    const auto [it, fresh] = w.domain_of.try_emplace(host, w.domains.size());
    if (fresh) w.domains.emplace_back();
    std::vector<std::int64_t>& d = w.domains[it->second];
    if (const auto at = std::lower_bound(d.begin(), d.end(), r); at == d.end() || *at != r)
      d.insert(at, r);
  }

  /// The world this host runs (made at its first use).
  World& world() {
    if (!world_) {
      world_ = std::make_shared<World>();
      world_->size = world_size();
      world_->views.resize(static_cast<std::size_t>(world_->size));
    }
    return *world_;
  }

  /// Runs the host's queued device calls: the ranks side by side (mixed_task.hpp), each its
  /// calls in order, seeing window buffers through its own copies.
  void run_devices() {
    std::vector<std::vector<DeviceCall>> calls = std::move(devices_);
    devices_.clear();
    devices_frame_ = nullptr;
    std::vector<std::string> names;
    for (std::int64_t r = 0; r < world_->size; ++r) names.push_back("rank " + std::to_string(r));
    side_by_side(MixedTask::Kind::Ranks, names, [&](Interpreter& rank, std::size_t r) {
      rank.rank_ = static_cast<std::int64_t>(r);
      rank.world_task_ = MixedTask::world();
      for (DeviceCall& q : calls[r]) {
        for (Value& a : q.args)
          if (a.buffer) a.buffer = rank.on_rank(a.buffer, rank.rank_, true);
        rank.dispatch(*q.fn, std::move(q.args), q.core_num);
      }
      rank.world_->views[r].clear();  // each call wrote its windows back
      return std::vector<Value>{};
    });
  }

  /// `b` as rank `r` sees it: a window buffer (or a view of one, or of a rank's copy of one) is
  /// rank r's copy (a view of it); anything else is itself. `keep`: the view is rank r's own,
  /// written back and refreshed around its waits.
  std::shared_ptr<Buffer> on_rank(const std::shared_ptr<Buffer>& b, std::int64_t r, bool keep) {
    if (!world_) return b;
    if (!b->origin) {
      const Buffer* host = b.get();
      if (const auto it = world_->copy_of.find(b.get()); it != world_->copy_of.end())
        host = it->second.first;
      const auto it = world_->copies.find(host);
      if (it == world_->copies.end()) return b;
      std::shared_ptr<Buffer>& copy = it->second.at(static_cast<std::size_t>(r));
      if (!copy) {  // each rank's copy starts as the host allocated it: zeros
        copy = Value::zeros(b->dtype, b->shape).buffer;
        world_->copy_of[copy.get()] = {host, r};
      }
      return copy;
    }
    std::shared_ptr<Buffer> parent = on_rank(b->origin->parent, r, false);
    if (parent == b->origin->parent) return b;
    auto view = std::make_shared<Buffer>(*b);
    ViewOrigin o = *b->origin;
    o.parent = std::move(parent);
    view->origin = std::make_shared<const ViewOrigin>(std::move(o));
    refresh_view(*view);
    if (keep) world_->views[static_cast<std::size_t>(r)].push_back(view);
    return view;
  }

  /// The host's window buffer `b` views (through views, or a rank's copy), or null.
  const Buffer* host_window(const std::shared_ptr<Buffer>& b) const {
    if (!world_ || !b) return nullptr;
    const Buffer* root = b.get();
    while (root->origin) root = root->origin->parent.get();
    if (const auto it = world_->copy_of.find(root); it != world_->copy_of.end())
      return it->second.first;
    return world_->copies.count(root) ? root : nullptr;
  }

  /// The devices of the communication domain of window tensor `v` (empty: not a window).
  const std::vector<std::int64_t>* domain(const std::shared_ptr<Buffer>& v) const {
    const Buffer* host = host_window(v);
    const auto it = host ? world_->domain_of.find(host) : world_->domain_of.end();
    return host && it != world_->domain_of.end() ? &world_->domains[it->second] : nullptr;
  }

  /// The device that is rank `peer` of the domain of window tensor `v`, or nothing (`v` is no
  /// window, or its domain has no such rank).
  std::optional<std::int64_t> peer_device(const Value& v, std::int64_t peer) const {
    const std::vector<std::int64_t>* d = domain(v.buffer);
    if (!d || peer < 0 || peer >= static_cast<std::int64_t>(d->size())) return std::nullopt;
    return (*d)[static_cast<std::size_t>(peer)];
  }

  /// Peer `peer`'s (a rank of `v`'s domain) instance of this rank's window tensor `v` (a fresh
  /// view of its copy), or `v`'s own buffer when the peer is this rank.
  std::shared_ptr<Buffer> peer_buffer(const ir::Call& c, const Value& v, std::int64_t peer) {
    if (!v.buffer) unsupported(c, "needs a window tensor");
    if (!world_ || rank_ < 0) return v.buffer;
    const std::optional<std::int64_t> device = peer_device(v, peer);
    if (!device) {
      const std::vector<std::int64_t>* d = domain(v.buffer);
      if (!d)
        unsupported(c,
                    "reaches rank " + std::to_string(peer) +
                        " through a tensor that is not a window (pld.window of a window buffer)");
      unsupported(c, "names rank " + std::to_string(peer) + " of a window shared by " +
                         std::to_string(d->size()) + " devices");
    }
    return *device == rank_ ? v.buffer : on_rank(v.buffer, *device, false);
  }

  /// True when `peer` of window tensor `v` is another rank than this one (in a world's rank).
  bool is_remote(const Value& v, std::int64_t peer) const override {
    if (!world_ || rank_ < 0) return false;
    const std::optional<std::int64_t> device = peer_device(v, peer);
    return !device || *device != rank_;
  }

  /// The box `off` + `ext` of the peer's instance of window tensor `v` (peer_buffer), as a
  /// tensor of `v`'s dtype; only the box is decoded from a window's bytes.
  Value peer_read(const ir::Call& c, const Value& v, std::int64_t peer,
                  const std::vector<std::int64_t>& off,
                  const std::vector<std::int64_t>& ext) override {
    const std::shared_ptr<Buffer> from = peer_box(c, v, peer, off, ext);
    const Buffer& w = *v.buffer;
    Value out = Value::zeros(w.dtype, ext);
    if (from) {
      const std::size_t width = element_bytes(w.dtype);
      for_box(w.shape, off, ext, [&](std::size_t at, std::size_t j) {
        std::uint64_t e = 0;
        for (std::size_t b = 0; b < width; ++b)
          e |= (static_cast<std::uint64_t>(from->ints[at * width + b]) & 0xffu) << (8 * b);
        decode(e, *out.buffer, j);
      });
      return out;
    }
    const std::shared_ptr<Buffer> whole = peer_buffer(c, v, peer);
    return region_copy_out(c, *whole, off, ext, false);
  }

  /// Writes `box` (of `v`'s dtype) at `off` into the peer's instance of window tensor `v`.
  void peer_write(const ir::Call& c, const Value& v, std::int64_t peer, const Buffer& box,
                  const std::vector<std::int64_t>& off) {
    const std::shared_ptr<Buffer> to = peer_box(c, v, peer, off, box.shape);
    if (to) {
      const std::size_t width = element_bytes(box.dtype);
      for_box(v.buffer->shape, off, box.shape, [&](std::size_t at, std::size_t j) {
        const std::uint64_t e = encoded(box, j);
        for (std::size_t b = 0; b < width; ++b)
          to->ints[at * width + b] = static_cast<std::int64_t>((e >> (8 * b)) & 0xffu);
      });
      return;
    }
    const std::shared_ptr<Buffer> whole = peer_buffer(c, v, peer);
    region_copy_in(c, box, *whole, off, false);
    if (whole->origin) write_back_view(*whole);
  }

  /// The peer's copy of the window bytes `v` views directly (checking the box lies in `v`), or
  /// null when `v` is this rank's own or another kind of view (then peer_buffer's whole view).
  std::shared_ptr<Buffer> peer_box(const ir::Call& c, const Value& v, std::int64_t peer,
                                   const std::vector<std::int64_t>& off,
                                   const std::vector<std::int64_t>& ext) {
    const Buffer& w = shaped(v, "the window");
    if (off.size() != w.shape.size() || ext.size() != w.shape.size())
      unsupported(c, "needs offsets and a shape of the window's rank");
    for (std::size_t k = 0; k < off.size(); ++k)
      if (off[k] < 0 || ext[k] < 0 || off[k] + ext[k] > w.shape[k])
        unsupported(c, "box at " + shape_text(off) + " of " + shape_text(ext) +
                           " is outside the window of " + shape_text(w.shape));
    if (!world_ || rank_ < 0 || !w.origin || !w.origin->bytes) return nullptr;
    const std::optional<std::int64_t> device = peer_device(v, peer);
    if (!device || *device == rank_) return nullptr;  // peer_buffer says why, or it is ours
    std::shared_ptr<Buffer> bytes = on_rank(w.origin->parent, *device, false);
    if (bytes->size() < w.size() * element_bytes(w.dtype)) return nullptr;
    return bytes;
  }

  Value run_op(const ir::Call& c, std::vector<Value>& args) override {
    return distributed(c, args);
  }

  void peer_store(const ir::Call& c, const Value& window, std::int64_t peer, const Buffer& box,
                  const std::vector<std::int64_t>& off) override {
    store_to_peer(c, window, peer, box, off, nullptr);
  }

  /// The valid elements of `src` (those of `valued`'s value, region_copy_in) into the peer's
  /// box at `off`, added to it with the call's atomic=Add: the box read, written, put back.
  void store_to_peer(const ir::Call& c, const Value& window, std::int64_t peer, const Buffer& src,
                     const std::vector<std::int64_t>& off, const ir::Expr* valued) {
    const auto atomic = c.kwargs.get<ir::AtomicType>("atomic");
    std::vector<std::int64_t> ext = src.valid.empty() ? src.shape : src.valid;
    ext.insert(ext.begin(), off.size() > ext.size() ? off.size() - ext.size() : 0, 1);
    Value there = peer_read(c, window, peer, off, ext);
    region_copy_in(c, src, *there.buffer, std::vector<std::int64_t>(ext.size(), 0),
                   atomic && *atomic == ir::AtomicType::Add, valued);
    peer_write(c, window, peer, *there.buffer, off);
  }

  /// pld.system.notify: the signal element `idx` of `peer` set to `v` or increased by it (INT32,
  /// wrapping).
  void notify(const ir::Call& c, const Value& signal, std::int64_t peer,
              const std::vector<std::int64_t>& idx, std::int64_t v) override {
    const bool remote = is_remote(signal, peer);
    Value cell =
        remote ? peer_read(c, signal, peer, idx, std::vector<std::int64_t>(idx.size(), 1)) : signal;
    shaped(cell, "the signal");
    Buffer& sig = *cell.buffer;
    if (is_float_dtype(sig.dtype)) unsupported(c, "needs an integer signal (INT32)");
    const std::size_t at = remote ? 0 : flat_index(c, sig, idx);
    const auto op = c.kwargs.get<ir::NotifyOp>("op");
    const std::int64_t next = op && *op == ir::NotifyOp::Set ? v : sig.ints[at] + v;
    sig.ints[at] = static_cast<std::int32_t>(static_cast<std::uint32_t>(next));
    if (remote)
      peer_write(c, signal, peer, sig, idx);
    else if (sig.origin)
      write_back_view(sig);
  }

  /// pld.system.wait: until the signal element `idx` meets `expected` (the call's cmp: >=, or
  /// ==), the other ranks running meanwhile.
  void wait(const ir::Call& c, const Value& signal, const std::vector<std::int64_t>& idx,
            std::int64_t expected) override {
    shaped(signal, "the signal");
    Buffer& sig = *signal.buffer;
    if (is_float_dtype(sig.dtype)) unsupported(c, "needs an integer signal (INT32)");
    const std::size_t at = flat_index(c, sig, idx);
    const auto cmp = c.kwargs.get<ir::WaitCmp>("cmp");
    const bool eq = cmp && *cmp == ir::WaitCmp::Eq;
    if (c.op->id == ir::OpId::pld_system_defer_wait && running_task_) {
      deferred_[*running_task_].push_back({signal, at, expected, eq, &c});
      return;
    }
    wait_for_peers(
        c, sig, [&] { return eq ? sig.ints[at] == expected : sig.ints[at] >= expected; },
        "waits for the signal " + shape_text(idx) + " to be " + (eq ? "== " : ">= ") +
            std::to_string(expected) + ", and it holds " + std::to_string(sig.ints[at]));
  }

  /// Writes this rank's window views into its copies (before peers run) or reads them back.
  void publish_windows() {
    if (world_ && rank_ >= 0 && static_cast<std::size_t>(rank_) < world_->views.size())
      for (const auto& v : world_->views[static_cast<std::size_t>(rank_)]) write_back_view(*v);
  }
  void refresh_windows() {
    if (world_ && rank_ >= 0 && static_cast<std::size_t>(rank_) < world_->views.size())
      for (const auto& v : world_->views[static_cast<std::size_t>(rank_)]) refresh_view(*v);
  }

  /// Waits, in a rank, until `ready()` holds of `watched` (re-read from its rank's copy while
  /// the other ranks run); else (a host, or a world of one rank) it must hold already.
  void wait_for_peers(const ir::Call& c, Buffer& watched, const std::function<bool()>& ready,
                      const std::string& what) {
    if (ready()) return;
    if (!world_task_)
      unsupported(c, what +
                         ": no other rank runs in a world of one rank, so it never would "
                         "(a deadlock)");
    publish_windows();
    world_task_->wait_until(
        [&] {
          if (watched.origin) refresh_view(watched);
          return ready();
        },
        c.op->name + " (" + what + ")");
    refresh_windows();
  }

  /// The devices `ranks` (a domain, ascending) meet here: each goes on once all have come, the
  /// other ranks running meanwhile; a rank outside the domain never waits for it. A rank that
  /// ends without coming leaves the others waiting: the world's deadlock error names them.
  void ranks_meet(const ir::Call& c, const std::vector<std::int64_t>& ranks) {
    publish_windows();
    World::Meeting& m = world_->meetings[ranks];
    const std::uint64_t generation = m.generation;
    if (++m.arrived == ranks.size()) {
      m.arrived = 0;
      ++m.generation;
    } else {
      world_task_->wait_until([&] { return m.generation != generation; },
                              c.op->name + " (meets the other ranks of its domain)");
    }
    refresh_windows();
  }

  /// Every device of the world, ascending (the domain of a collective on no window).
  std::vector<std::int64_t> all_ranks() const {
    std::vector<std::int64_t> ranks(static_cast<std::size_t>(world_->size));
    for (std::size_t r = 0; r < ranks.size(); ++r) ranks[r] = static_cast<std::int64_t>(r);
    return ranks;
  }

  // -- collectives (docs/runtime.md "A world of several ranks")

  /// The operand a collective writes: its target (allgather / all_to_all / all_to_all_v's
  /// second operand, the others' first).
  static std::size_t target_operand(const ir::Call& c) {
    const ir::OpId id = c.op->id;
    return id == ir::OpId::pld_tensor_allgather || id == ir::OpId::pld_tensor_all_to_all ||
                   id == ir::OpId::pld_tensor_all_to_all_v
               ? 1
               : 0;
  }

  /// `a` combined with `b` by a reduction: a float's result rounded to the dtype, an integer's
  /// wrapped to it.
  static void combine(ir::ReduceOp op, Buffer& a, std::size_t i, const Buffer& b, std::size_t j) {
    if (is_float_dtype(a.dtype)) {
      const float x = a.f32[i], y = b.f32[j];
      const float v = op == ir::ReduceOp::Sum    ? x + y
                      : op == ir::ReduceOp::Prod ? x * y
                      : op == ir::ReduceOp::Max  ? std::max(x, y)
                                                 : std::min(x, y);
      a.f32[i] = rounded(a.dtype, v);
      return;
    }
    const std::int64_t x = a.ints[i], y = b.ints[j];
    const auto ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
    a.ints[i] = op == ir::ReduceOp::Sum    ? wrap(ux + uy, a.dtype)
                : op == ir::ReduceOp::Prod ? wrap(ux * uy, a.dtype)
                : op == ir::ReduceOp::Max  ? std::max(x, y)
                                           : std::min(x, y);
  }

  /// Elements [from, from + n) of `src` into `dst` at `at` (one dtype).
  static void copy_span(const Buffer& src, std::size_t from, Buffer& dst, std::size_t at,
                        std::size_t n) {
    if (is_float_dtype(src.dtype))
      std::copy_n(src.f32.begin() + static_cast<std::ptrdiff_t>(from), n,
                  dst.f32.begin() + static_cast<std::ptrdiff_t>(at));
    else
      std::copy_n(src.ints.begin() + static_cast<std::ptrdiff_t>(from), n,
                  dst.ints.begin() + static_cast<std::ptrdiff_t>(at));
  }

  /// The collective's result at position `q` of the `given.size()` ranks of its domain, written
  /// into `target` (and all_to_all_v's counts into `recv`), from `given[p]`: the arguments rank
  /// p gave (copies), in the call's order. Sums and the other reductions run in domain order.
  void collective_result(const ir::Call& c, const std::vector<std::vector<Value>>& given,
                         std::size_t q, Buffer& target, Buffer* recv) const {
    const std::size_t n = given.size(), t = target_operand(c);
    auto arg = [&](std::size_t p, std::size_t k, const char* what) -> const Buffer& {
      if (k >= given[p].size() || !given[p][k].is_shaped())
        unsupported(c, std::string("needs ") + what);
      return *given[p][k].buffer;
    };
    const ir::ReduceOp op = c.kwargs.get<ir::ReduceOp>("op").value_or(ir::ReduceOp::Sum);
    const std::size_t size = target.size();
    switch (c.op->id) {
      case ir::OpId::pld_tensor_allreduce: {  // every position's target reduced, in order
        Buffer total = arg(0, t, "a target");
        for (std::size_t p = 1; p < n; ++p)
          for (std::size_t j = 0; j < size; ++j) combine(op, total, j, arg(p, t, "a target"), j);
        copy_span(total, 0, target, 0, size);
        return;
      }
      case ir::OpId::pld_tensor_broadcast: {  // the root's target
        std::int64_t root = c.kwargs.get<std::int64_t>("root").value_or(0);
        if (given[q].size() > 2 && given[q][2].kind == ValueKind::Scalar) root = given[q][2].i;
        if (root < 0 || static_cast<std::size_t>(root) >= n)
          unsupported(c,
                      "names root " + std::to_string(root) + " of " + std::to_string(n) + " ranks");
        copy_span(arg(static_cast<std::size_t>(root), t, "a target"), 0, target, 0, size);
        return;
      }
      case ir::OpId::pld_tensor_reduce_scatter: {  // chunk q: every position's chunk q reduced
        if (size % n != 0)
          unsupported(c, "needs a target that splits into one chunk per rank (" +
                             std::to_string(size) + " elements, " + std::to_string(n) + " ranks)");
        const std::size_t chunk = size / n;
        Buffer total = arg(0, t, "a target");
        for (std::size_t p = 1; p < n; ++p)
          for (std::size_t j = q * chunk; j < (q + 1) * chunk; ++j)
            combine(op, total, j, arg(p, t, "a target"), j);
        copy_span(total, q * chunk, target, q * chunk, chunk);
        return;
      }
      default: break;
    }
    // The exchanges: position p's chunk lands at chunk p of the target.
    const Buffer& in0 = arg(q, 0, "an input");
    if (in0.dtype != target.dtype) unsupported(c, "input and target dtypes differ");
    if (c.op->id == ir::OpId::pld_tensor_all_to_all_v) {
      // input, target, signal, send_counts, recv_counts: MAX_RECV rows per rank
      if (target.shape.empty() || target.shape[0] % static_cast<std::int64_t>(n) != 0)
        unsupported(c, "needs target rows that split into one block per rank");
      const std::int64_t block = target.shape[0] / static_cast<std::int64_t>(n);
      const std::size_t per =
          static_cast<std::size_t>(block) * (size / static_cast<std::size_t>(target.shape[0]));
      for (std::size_t p = 0; p < n; ++p) {
        const Buffer& in = arg(p, 0, "an input");
        const Buffer& send = arg(p, 3, "send_counts");
        if (in.size() < (q + 1) * per || send.size() <= q || !recv || recv->size() < n)
          unsupported(c, "needs an input of a block per rank and a count per rank");
        copy_span(in, q * per, target, p * per, per);
        recv->ints[p] = std::min(send.ints[q], block);
      }
      return;
    }
    const bool all_to_all = c.op->id == ir::OpId::pld_tensor_all_to_all;
    // allgather: the whole input; all_to_all: its row for this position
    const std::size_t chunk = all_to_all
                                  ? (in0.shape.empty() || in0.shape[0] <= 0
                                         ? in0.size()
                                         : in0.size() / static_cast<std::size_t>(in0.shape[0]))
                                  : in0.size();
    if (n * chunk > size)
      unsupported(c, "target of " + std::to_string(size) + " elements cannot hold " +
                         std::to_string(n) + " chunks of " + std::to_string(chunk));
    for (std::size_t p = 0; p < n; ++p) {
      const Buffer& in = arg(p, 0, "an input");
      const std::size_t from = all_to_all ? q * chunk : 0;
      if (in.size() < from + chunk || in.dtype != target.dtype)
        unsupported(c, "needs inputs of one shape and dtype on every rank");
      copy_span(in, from, target, p * chunk, chunk);
    }
  }

  /// A collective: in a world's rank a rendezvous of the ranks (each deposits what it gives,
  /// all meet, each takes its result from every deposit of its domain, all meet again so that
  /// no deposit is replaced while read); on the host, over the ranks' copies once the devices
  /// ran; in a world of one rank, its own data.
  Value collective(const ir::Call& c, std::vector<Value>& args) {
    const std::size_t t = target_operand(c);
    if (args.size() <= t || !args[t].is_shaped()) unsupported(c, "needs a target tensor");
    const bool counts = c.op->id == ir::OpId::pld_tensor_all_to_all_v;
    if (counts && (args.size() < 5 || !args[4].is_shaped())) unsupported(c, "needs recv_counts");
    auto gift = [&](const std::vector<Value>& from) {
      std::vector<Value> g;
      for (const Value& v : from) g.push_back(v.is_shaped() ? v.deep_copy() : v);
      return g;
    };
    auto write = [](Buffer& b) {
      if (b.origin) write_back_view(b);
    };
    if (world_size() == 1 || (rank_ >= 0 && !world_task_)) {
      if (world_size() > 1) unsupported(c, "runs in a rank outside a world's run");
      const std::vector<std::vector<Value>> given{gift(args)};
      collective_result(c, given, 0, *args[t].buffer, counts ? args[4].buffer.get() : nullptr);
      write(*args[t].buffer);
      if (counts) write(*args[4].buffer);
      return args[t];
    }
    if (rank_ < 0 && !devices_.empty()) run_devices();
    const Buffer* host = host_window(args[t].buffer);
    if (rank_ < 0 && host && !domain(args[t].buffer))  // a window no device has seen: the world's
      for (std::int64_t r = 0; r < world_->size; ++r) join_domain(host, r);
    const std::vector<std::int64_t>* d = domain(args[t].buffer);
    if (!d) unsupported(c, "across several ranks needs a window buffer's window");
    if (rank_ < 0) {  // the host: every device's copies, read before any is written
      std::vector<std::vector<Value>> given;
      for (const std::int64_t device : *d) {
        std::vector<Value> on = args;
        for (Value& v : on)
          if (v.is_shaped()) v.buffer = on_rank(v.buffer, device, false);
        given.push_back(gift(on));
      }
      for (std::size_t q = 0; q < d->size(); ++q) {
        const std::shared_ptr<Buffer> target = on_rank(args[t].buffer, (*d)[q], false);
        const std::shared_ptr<Buffer> recv =
            counts ? on_rank(args[4].buffer, (*d)[q], false) : nullptr;
        collective_result(c, given, q, *target, recv.get());
        write(*target);
        if (recv) write(*recv);
        if (q == 0 && c.op->id == ir::OpId::pld_tensor_allreduce)  // the host sees the sum too
          copy_span(*target, 0, *args[t].buffer, 0, target->size());
      }
      return args[t];
    }
    const auto me = std::find(d->begin(), d->end(), rank_);
    if (me == d->end()) unsupported(c, "runs on a rank outside its window's domain");
    world_->deposits.resize(static_cast<std::size_t>(world_->size));
    world_->deposits[static_cast<std::size_t>(rank_)] = gift(args);
    ranks_meet(c, *d);
    std::vector<std::vector<Value>> given;
    for (const std::int64_t device : *d)
      given.push_back(world_->deposits[static_cast<std::size_t>(device)]);
    collective_result(c, given, static_cast<std::size_t>(me - d->begin()), *args[t].buffer,
                      counts ? args[4].buffer.get() : nullptr);
    write(*args[t].buffer);
    if (counts) write(*args[4].buffer);
    ranks_meet(c, *d);
    world_->deposits[static_cast<std::size_t>(rank_)].clear();  // every rank has read it
    return args[t];
  }

  // -- builtin ops

  [[noreturn]] void unsupported(const ir::Call& c, std::string_view why) const {
    fail("op '" + c.op->name + "' " + std::string(why));
  }

  Value builtin(const ir::Call& c, std::vector<Value>& args) {
    using ir::OpId;
    auto need = [&](std::size_t lo, std::size_t hi) {
      if (args.size() < lo || args.size() > hi)
        unsupported(c, "got " + std::to_string(args.size()) + " arguments");
    };
    const OpId id = c.op->id;
    switch (id) {
      case OpId::tile_load: {
        need(3, 4);
        const Buffer& src = shaped(args[0], "tile.load's tensor");
        const auto off = as_ints(args[1], "offsets"), ext = as_ints(args[2], "shapes");
        if (args.size() == 4)
          return region_copy_out_valid(c, src, off, ext, as_ints(args[3], "valid_shape"), true);
        return region_copy_out(c, src, off, ext, true);
      }
      case OpId::tensor_slice:
      case OpId::tile_slice: {
        // A copy: slices are read, never written through, by the programs we run. A valid_shape
        // left empty (the DSL's fill before drop_dims) is the whole window; the dropped axes are
        // extents of 1, so the copy keeps its elements and takes the result's shape.
        need(3, 5);
        const bool tile = id == OpId::tile_slice;
        const Buffer& src = shaped(args[0], "the slice's input");
        const auto off = as_ints(args[2], "offset");
        std::vector<std::int64_t> ext = as_ints(args[1], "shape");
        std::vector<std::int64_t> valid =
            args.size() > 3 ? as_ints(args[3], "valid_shape") : std::vector<std::int64_t>{};
        // A window of lower rank than its input (offsets in the input's rank) is the box of its
        // shape padded with leading 1s, which the result drops.
        const std::vector<std::int64_t> window = ext;
        if (off.size() > ext.size()) {
          ext.insert(ext.begin(), off.size() - ext.size(), 1);
          if (!valid.empty() && valid.size() < off.size())
            valid.insert(valid.begin(), off.size() - valid.size(), 1);
        }
        Value out = valid.empty() ? region_copy_out(c, src, off, ext, tile)
                                  : region_copy_out_valid(c, src, off, ext, valid, tile);
        if (args.size() > 4) {  // the dropped axes (extents of 1) removed from the shape
          const auto drop = as_ints(args[4], "drop_dims");
          std::vector<std::int64_t> kept;
          for (std::size_t k = 0; k < ext.size(); ++k)
            if (std::find(drop.begin(), drop.end(), static_cast<std::int64_t>(k)) == drop.end())
              kept.push_back(ext[k]);
          out.buffer->shape = std::move(kept);
        } else if (window.size() < ext.size()) {
          out.buffer->shape = window;
        }
        if (out.buffer->valid.size() != out.buffer->shape.size()) out.buffer->valid.clear();
        // A tensor's slice views its box (a call's writes reach the tensor); one with a narrower
        // valid_shape is a zero-padded copy. So does a window of an accumulator (Acc) tile: a
        // matmul_acc into it accumulates in the accumulator's memory (the device has no other).
        if ((!tile || accumulator_window(c)) && (valid.empty() || valid == ext))
          out.buffer->origin = std::make_shared<const ViewOrigin>(
              ViewOrigin{args[0].buffer, off, ext, false, {-1, -1}});
        return out;
      }
      case OpId::tile_reshape:
      case OpId::tensor_reshape: {
        const std::size_t size = shaped(args.at(0), "the input").size();
        Value out = copy(args[0]);
        out.buffer->shape = as_ints(args.at(1), "the shape");
        out.buffer->valid.clear();
        std::size_t n = 1;
        for (std::int64_t d : out.buffer->shape) {
          if (d < 0) unsupported(c, "negative dimension");
          // The product stops past `size` so it cannot wrap around to it.
          n = d != 0 && n > size / static_cast<std::size_t>(d) ? size + 1
                                                               : n * static_cast<std::size_t>(d);
        }
        if (n != size) unsupported(c, "needs a shape of as many elements as its input's");
        if (id == OpId::tensor_reshape)  // the same elements, viewed with another shape
          out.buffer->origin = std::make_shared<const ViewOrigin>(
              ViewOrigin{args[0].buffer,
                         std::vector<std::int64_t>(args[0].buffer->shape.size(), 0),
                         args[0].buffer->shape,
                         false,
                         {-1, -1}});
        return out;
      }
      case OpId::tile_store:
      case OpId::tensor_assemble: {
        const auto atomic = c.kwargs.get<ir::AtomicType>("atomic");
        const bool add = atomic && *atomic == ir::AtomicType::Add;
        const bool store = id == OpId::tile_store;
        need(3, store ? 4 : 3);
        if (args.size() == 4) unsupported(c, "with explicit shapes is not executable yet");
        const Value& src = store ? args[0] : args[1];
        const Value& dst = store ? args[2] : args[0];
        region_copy_in(c, shaped(src, "the source"), *dst.buffer,
                       as_ints(args[store ? 1 : 2], "offsets"), add, c.args[store ? 0 : 1].get());
        return dst;
      }
      case OpId::tensor_read:
      case OpId::tile_read:  // one element of a tensor or a tile
        return element(c, args, false);
      case OpId::array_create:
      case OpId::array_get_element:
      case OpId::array_update_element: return array_op(c, args);
      case OpId::tensor_write:
      case OpId::tile_write: return element(c, args, true);
      case OpId::tensor_dim: {
        const Buffer& b = shaped(args[0], "the tensor");
        const auto rank = static_cast<std::int64_t>(b.shape.size());
        std::int64_t axis = as_int(args[1], "the axis");
        if (axis < 0) axis += rank;
        if (axis < 0 || axis >= rank) unsupported(c, "axis out of range");
        return Value::scalar_int(b.shape[static_cast<std::size_t>(axis)], DataType::INDEX);
      }
      // Synchronisation and prefetch hints: sequential execution already satisfies them.
      case OpId::system_sync_set:
      case OpId::system_sync_wait:
      case OpId::system_set_ffts:
      case OpId::prefetch_make_context:
      case OpId::prefetch_async_prefetch:
      case OpId::prefetch_session: return Value{};
      case OpId::prefetch_wait: return Value::scalar_bool(true);
      case OpId::tile_get_block_idx:
      case OpId::tensor_get_block_idx: return Value::scalar_int(block_idx_, DataType::INDEX);
      case OpId::tile_get_block_num:
      case OpId::tensor_get_block_num: return Value::scalar_int(block_num_, DataType::INDEX);
      case OpId::tensor_get_subblock_idx:
      case OpId::tile_get_subblock_idx: return Value::scalar_int(subblock_idx_, DataType::INDEX);
      case OpId::tensor_create:
      case OpId::tensor_full: return fill(c, args, false);
      case OpId::tile_full: return fill(c, args, true);
      case OpId::tile_cast:
      case OpId::tensor_cast: return cast_elements(c, args);
      case OpId::tile_create: return fill(c, args, true);
      case OpId::tile_ci:
      case OpId::tensor_ci: return index_sequence(c, args);
      // Barriers, fences and cache hints: sequential execution already satisfies them.
      case OpId::system_bar_all:
      case OpId::system_bar_m:
      case OpId::system_bar_v:
      case OpId::system_fence:
      case OpId::system_sync_src:
      case OpId::system_sync_dst:
      case OpId::system_cacheinvalid:
      // A pipe's set-up and slot release: the queue between members needs neither.
      case OpId::system_aic_initialize_pipe:
      case OpId::system_aiv_initialize_pipe:
      case OpId::system_tfree_to_aic:
      case OpId::system_tfree_to_aiv: return Value{};
      case OpId::system_syncall: return sync_all(c);
      // Task ids: the ones scopes bind count from 0; the invalid id is -1; a dummy task (it does
      // no work) gets a fresh id.
      case OpId::system_task_invalid: return Value::scalar_int(-1, DataType::TASK_ID);
      case OpId::system_task_dummy: return Value::scalar_int(next_task_id_++, DataType::TASK_ID);
      case OpId::system_task_is_valid:
        if (args.at(0).kind != ValueKind::Scalar || args[0].dtype != DataType::TASK_ID)
          unsupported(c, "needs a TASK_ID");
        return Value::scalar_bool(args[0].i != -1);
      // A pipe buffer's address only means something on the device, where a pipe's set-up
      // reads it: a reserved buffer is its `base`, a peer's buffer 0 (the set-up ignores both).
      case OpId::system_reserve_buffer:
        return Value::scalar_int(c.kwargs.get<std::int64_t>("base").value_or(0), DataType::INT32);
      case OpId::system_import_peer_buffer: return Value::scalar_int(0, DataType::INT32);
      case OpId::tile_tpush_to_aiv:
      case OpId::tile_tpush_to_aic: {
        need(1, 1);
        shaped(args[0], "the pushed tile");
        pipe_task(c).push(
            id == OpId::tile_tpush_to_aiv ? PipeDirection::ToAiv : PipeDirection::ToAic,
            c.kwargs.get<std::int64_t>("id").value_or(0), copy(args[0]));
        return Value{};
      }
      case OpId::tile_tpop_from_aic:
      case OpId::tile_tpop_from_aiv: return pop(c);
      case OpId::pld_system_world_size:
      case OpId::pld_system_get_comm_ctx:
      case OpId::pld_system_rank:
      case OpId::pld_system_nranks:
      case OpId::pld_tensor_alloc_window_buffer:
      case OpId::pld_tensor_window:
      case OpId::pld_tensor_put:
      case OpId::pld_tensor_get:
      case OpId::pld_tile_put:
      case OpId::pld_tile_get:
      case OpId::pld_tile_remote_load:
      case OpId::pld_tile_remote_store:
      case OpId::pld_tensor_remote_store:
      case OpId::pld_system_notify:
      case OpId::pld_system_wait:
      case OpId::pld_system_defer_wait:
      case OpId::pld_tensor_barrier:
      case OpId::pld_tensor_allreduce:
      case OpId::pld_tensor_reduce_scatter:
      case OpId::pld_tensor_broadcast:
      case OpId::pld_tensor_allgather:
      case OpId::pld_tensor_all_to_all:
      case OpId::pld_tensor_all_to_all_v: return distributed(c, args);
      case OpId::tile_aiv_shard:
      case OpId::tensor_aiv_shard: return aiv_shard(c, args);
      case OpId::tile_aic_gather:
      case OpId::tensor_aic_gather: return aic_gather(c, args);
      case OpId::tensor_create_l1: return fill(c, args, false);
      case OpId::tile_gather_row:
      case OpId::tensor_gather_row: return gather_row(c, args);
      case OpId::tensor_paged_gather: return paged_gather(c, args);
      case OpId::tensor_expand_clone: return expand_clone(c, args);
      case OpId::tile_expands:
      case OpId::tensor_expands: return expand_scalar(c, args);
      case OpId::tile_row_expand:
      case OpId::tile_col_expand:
      case OpId::tensor_row_expand:
      case OpId::tensor_col_expand: return expand_vector(c, args);
      case OpId::tile_row_expand_expdif:
      case OpId::tile_col_expand_expdif:
      case OpId::tensor_row_expand_expdif:
      case OpId::tensor_col_expand_expdif: {  // exp(x - v), the difference rounded first
        need(2, 2);
        const Value d = elementwise(c, kernel::Op::Sub, args[0], &args[1]);
        return elementwise(c, kernel::Op::Exp, d, nullptr);
      }
      case OpId::tile_addc:
      case OpId::tile_subc:
      case OpId::tile_addsc:
      case OpId::tile_subsc: {  // (lhs op rhs) op rhs2, each step rounded
        need(3, 3);
        const bool add = id == OpId::tile_addc || id == OpId::tile_addsc;
        const kernel::Op op = add ? kernel::Op::Add : kernel::Op::Sub;
        const Value first = elementwise(c, op, args[0], &args[1]);
        return elementwise(c, op, first, &args[2]);
      }
      case OpId::tile_cmp:
      case OpId::tile_cmps: return compare_mask(c, args);
      case OpId::tile_sel:
      case OpId::tile_sels: return select(c, args);
      case OpId::tile_extract: {
        need(4, 4);
        const Buffer& src = shaped(args[0], "the source tile");
        if (src.shape.size() != 2) unsupported(c, "needs a 2-D tile");
        return region_copy_out(c, src, {as_int(args[1], "index_row"), as_int(args[2], "index_col")},
                               as_ints(args[3], "the shape"), true);
      }
      case OpId::tile_concat:
      case OpId::tensor_concat: return concat(c, args);
      case OpId::tile_assemble: {  // the target with the source written at the offset
        need(3, 3);
        region_copy_in(c, shaped(args[1], "the source"), *args[0].buffer,
                       as_ints(args[2], "the offset"), false);
        return args[0];
      }
      case OpId::tile_tri: return triangle(c, args);
      case OpId::tile_gather_compare:
      case OpId::tensor_gather_compare: return gather_compare(c, args);
      case OpId::tile_gatherb:
      case OpId::tile_gather:
      case OpId::tile_gather_mask:
      case OpId::tensor_gather_mask:
      case OpId::tile_sort32:
      case OpId::tensor_sort32:
      case OpId::tile_mrgsort_format1:
      case OpId::tensor_mrgsort_format1:
      case OpId::tile_mrgsort_format2:
      case OpId::tensor_mrgsort_format2:
      case OpId::tile_scatter:
      case OpId::tile_scatter_mask:
      case OpId::tensor_scatter_mask:
      case OpId::tile_scatter_update:
      case OpId::tensor_scatter_update:
      case OpId::tile_mscatter:
      case OpId::tile_mgather:
      case OpId::tile_random:
      case OpId::tensor_random: return irregular(c, args);
      case OpId::tensor_gather: return gather_along(c, args);
      case OpId::tensor_scatter: return scatter_along(c, args);
      case OpId::tile_fillpad:
      case OpId::tile_fillpad_inplace:
      case OpId::tile_fillpad_expand:
      case OpId::tensor_fillpad:
      case OpId::tensor_fillpad_expand: return fillpad(c, args);
      case OpId::tile_reinterpret_view:
      case OpId::tensor_reinterpret_view: return reinterpret(c, args);  // a copy, as slices are
      case OpId::tile_set_validshape:
      case OpId::tensor_set_validshape: {
        need(3, 3);
        Value out = copy(args[0]);
        const std::vector<std::int64_t>& shape = out.buffer->shape;
        const std::int64_t rows = as_int(args[1], "valid_rows"),
                           cols = as_int(args[2], "valid_cols");
        if (shape.size() != 2 || rows < 0 || cols < 0 || rows > shape[0] || cols > shape[1])
          unsupported(c, "needs a 2-D operand and valid extents within its shape");
        out.buffer->valid = {rows, cols};
        // A tensor's elements outside its valid box are never stored (a store moves the box
        // alone): they read as zero, as in the fresh tensor a kernel returns it in.
        if (id == OpId::tensor_set_validshape)
          for (std::size_t k = 0; k < out.buffer->size(); ++k)
            if (static_cast<std::int64_t>(k) / shape[1] >= rows ||
                static_cast<std::int64_t>(k) % shape[1] >= cols) {
              if (is_float_dtype(out.buffer->dtype))
                out.buffer->f32[k] = 0.0f;
              else
                out.buffer->ints[k] = 0;
            }
        return out;
      }
      default: break;
    }
    if (ir::reduction_of(id)) return reduce(c, args);
    if (const std::optional<codegen::ElementOp> op = codegen::element_op_of(id)) {
      const unsigned arity = codegen::element_op_info(*op).arity;
      if (args.size() < arity) unsupported(c, "got " + std::to_string(args.size()) + " arguments");
      return element_map(c, *op, args[0], arity == 2 ? &args[1] : nullptr);
    }
    switch (id) {
      case OpId::tile_move: return copy(args.at(0));
      case OpId::tile_transpose_view:
      case OpId::tile_transpose:
      case OpId::tensor_transpose: return transpose(c, args);
      case OpId::tile_matmul:
      case OpId::tile_batch_matmul:
      case OpId::tile_gemv:
      case OpId::tensor_matmul: return matmul(c, args, false);
      case OpId::tile_matmul_acc:
      case OpId::tile_batch_matmul_acc:
      case OpId::tile_gemv_acc: {
        Value r = matmul(c, args, true);
        if (!args[0].buffer || !args[0].buffer->origin || args[0].kind != ValueKind::Tile) return r;
        // Into a window of an accumulator tile: the product is the window's new content, which
        // the accumulator holds; the result is that window still.
        if (r.buffer->shape != args[0].buffer->shape)
          unsupported(c, "into an accumulator window of another shape than its product");
        args[0].buffer->f32 = r.buffer->f32;
        write_back_view(*args[0].buffer);
        r.buffer->origin = args[0].buffer->origin;
        return r;
      }
      case OpId::tensor_matmul_acc: {  // writes its tensor accumulator (its declared effect)
        Value r = matmul(c, args, true);
        if (args[0].kind != ValueKind::Tensor || r.buffer->dtype != args[0].buffer->dtype) return r;
        args[0].buffer->f32 = r.buffer->f32;
        return args[0];
      }
      case OpId::tile_matmul_bias:
      case OpId::tile_gemv_bias: return matmul(c, args, false, &args.at(2));
      case OpId::tile_matmul_mx:
      case OpId::tile_matmul_mx_acc:
      case OpId::tile_matmul_mx_bias: return matmul_mx(c, args);
      default: break;
    }
    const std::optional<kernel::Op> op = codegen::kernel_op_of(c);
    if (!op) unsupported(c, "is not executable by the reference interpreter");
    const bool binary = kernel::op_info(*op).arity == 2;
    // rsqrt's optional scratch tile (its high-precision form) computes the same 1 / sqrt(x);
    // row_expand_add's (the device's workspace) the same sum
    const bool scratch = *op == kernel::Op::Rsqrt || c.op->id == ir::OpId::tile_row_expand_add;
    need(binary ? 2u : 1u, (binary ? 2u : 1u) + (scratch ? 1u : 0u));
    return elementwise(c, *op, args[0], binary ? &args[1] : nullptr);
  }

  /// tensor.read / tile.read (one element as a scalar) and tensor.write / tile.write (the
  /// element replaced in place; the container is the result).
  Value element(const ir::Call& c, std::vector<Value>& args, bool write) const {
    const Buffer& b = shaped(args[0], "the tensor");
    const std::size_t at = flat_index(c, b, as_ints(args[1], "indices"));
    if (!write) {
      if (is_float_dtype(b.dtype)) return Value::scalar_float(b.f32[at], b.dtype);
      return Value::scalar_int(b.ints[at], b.dtype);
    }
    const Value& v = args[2];
    if (v.kind != ValueKind::Scalar || v.dtype != b.dtype)
      unsupported(c, "value has another dtype");
    if (is_float_dtype(b.dtype))
      args[0].buffer->f32[at] = v.f;
    else
      args[0].buffer->ints[at] = v.i;
    return args[0];
  }

  // -- the distributed ops, in a world of one rank (docs/runtime.md "Distributed programs")

  /// A peer or root rank: 0, the one rank there is.
  std::int64_t peer_rank(const ir::Call& c, const Value& v, std::string_view what) const {
    const std::int64_t r = as_int(v, what);
    const std::int64_t n = world_size();
    if (r < 0 || r >= n)
      unsupported(c, "names rank " + std::to_string(r) + " as its " + std::string(what) +
                         ", outside the world of " +
                         (n == 1 ? std::string("one rank a single process runs (rank 0)")
                                 : std::to_string(n) + " ranks"));
    return r;
  }

  /// A copy of the box `off` + `ext` of `src` into `dst` at `at` (an atomic add with `add`).
  void copy_box(const ir::Call& c, const Buffer& src, const std::vector<std::int64_t>& off,
                const std::vector<std::int64_t>& ext, Buffer& dst,
                const std::vector<std::int64_t>& at, bool add) {
    const Value part = region_copy_out(c, src, off, ext, false);
    region_copy_in(c, *part.buffer, dst, at, add);
  }

  Value distributed(const ir::Call& c, std::vector<Value>& args) {
    using ir::OpId;
    const auto atomic = c.kwargs.get<ir::AtomicType>("atomic");
    const bool add = atomic && *atomic == ir::AtomicType::Add;
    auto zeros_like = [](const Buffer& b) { return std::vector<std::int64_t>(b.shape.size(), 0); };
    switch (c.op->id) {
      case OpId::pld_system_world_size: return Value::scalar_int(world_size(), DataType::INT64);
      case OpId::pld_system_get_comm_ctx: {  // 0: the world; k + 1: the k-th window domain
        const auto* d = rank_ >= 0 ? domain(args.at(0).buffer) : nullptr;
        return Value::scalar_int(d ? static_cast<std::int64_t>(d - world_->domains.data()) + 1 : 0,
                                 DataType::INT64);
      }
      case OpId::pld_system_rank:
      case OpId::pld_system_nranks: {  // of the context's domain
        const std::int64_t ctx = args.empty() ? 0 : as_int(args[0], "the context");
        const std::vector<std::int64_t>* d =
            world_ && ctx > 0 && static_cast<std::size_t>(ctx) <= world_->domains.size()
                ? &world_->domains[static_cast<std::size_t>(ctx - 1)]
                : nullptr;
        if (c.op->id == OpId::pld_system_nranks)
          return Value::scalar_int(d ? static_cast<std::int64_t>(d->size()) : world_size(),
                                   DataType::INT32);
        const std::int64_t me = std::max<std::int64_t>(rank_, 0);
        if (!d) return Value::scalar_int(me, DataType::INT32);
        return Value::scalar_int(std::find(d->begin(), d->end(), me) - d->begin(), DataType::INT32);
      }
      case OpId::pld_tensor_alloc_window_buffer: {  // zero-initialised bytes
        const std::int64_t size = as_int(args.at(0), "the window size");
        if (size < 0) unsupported(c, "size " + std::to_string(size) + " is negative");
        Value buffer = Value::zeros(DataType::UINT8, {size});
        if (world_size() > 1 && rank_ < 0)  // a copy on each rank, made at its first use
          world().copies[buffer.buffer.get()].resize(static_cast<std::size_t>(world_->size));
        return buffer;
      }
      case OpId::pld_tensor_window: {
        const Buffer& bytes = shaped(args.at(0), "the window buffer");
        const auto dtype = c.kwargs.get<DataType>("dtype");
        if (!dtype || element_bytes(*dtype) == 0) unsupported(c, "needs a whole-byte dtype");
        Value view = Value::zeros(*dtype, as_ints(args.at(1), "the shape"));
        const std::size_t need = view.buffer->size() * element_bytes(*dtype);
        if (need > bytes.size())
          unsupported(c, "views " + std::to_string(need) + " bytes of a window buffer of " +
                             std::to_string(bytes.size()));
        view.buffer->origin =
            std::make_shared<const ViewOrigin>(ViewOrigin{args[0].buffer, {}, {}, true, {-1, -1}});
        refresh_view(*view.buffer);
        return view;
      }
      case OpId::pld_tensor_put:
      case OpId::pld_tensor_get:
      case OpId::pld_tile_put:
      case OpId::pld_tile_get: {  // dst, peer, src[, stage[, stage2]][, dst_off, src_off, shape]
        // A put writes the peer's dst, a get reads the peer's src.
        const std::int64_t peer = peer_rank(c, args.at(1), "peer");
        const bool get = c.op->id == OpId::pld_tensor_get || c.op->id == OpId::pld_tile_get;
        const Buffer& src = shaped(args.at(2), "the source");
        std::size_t k = 3;
        while (k < args.size() && args[k].kind == ValueKind::Tile) ++k;  // staging tiles
        const bool whole = k == args.size();
        const auto src_off = whole ? zeros_like(src) : as_ints(args.at(k + 1), "src_offsets");
        const auto shape = whole ? src.shape : as_ints(args.at(k + 2), "shape");
        const auto dst_off = whole ? zeros_like(src) : as_ints(args[k], "dst_offsets");
        if (!is_remote(args[get ? 2 : 0], peer)) {
          copy_box(c, src, src_off, shape, *args[0].buffer, dst_off, add);
          if (args[0].buffer->origin) write_back_view(*args[0].buffer);
        } else if (get) {
          const Value part = peer_read(c, args[2], peer, src_off, shape);
          region_copy_in(c, *part.buffer, *args[0].buffer, dst_off, add);
          if (args[0].buffer->origin) write_back_view(*args[0].buffer);
        } else {
          store_to_peer(c, args[0], peer, *region_copy_out(c, src, src_off, shape, false).buffer,
                        dst_off, nullptr);
        }
        // A get's result is the tensor it wrote, as the compiled kernel's is.
        return get ? args[0] : Value{};
      }
      case OpId::pld_tile_remote_load: {  // target, peer, offsets, shape[, valid_shape]
        const std::int64_t peer = peer_rank(c, args.at(1), "peer");
        const Buffer& window = shaped(args[0], "the window");
        auto off = as_ints(args.at(2), "offsets");
        const auto ext = as_ints(args.at(3), "shape");
        const Value box =
            is_remote(args[0], peer) ? peer_read(c, args[0], peer, off, ext) : Value{};
        const Buffer& src = box.buffer ? *box.buffer : window;
        if (box.buffer) off.assign(off.size(), 0);
        if (args.size() > 4)
          return region_copy_out_valid(c, src, off, ext, as_ints(args[4], "valid_shape"), true);
        return region_copy_out(c, src, off, ext, true);
      }
      case OpId::pld_tile_remote_store:
      case OpId::pld_tensor_remote_store: {  // src, target, peer, offsets
        const std::int64_t peer = peer_rank(c, args.at(2), "peer");
        const Buffer& src = shaped(args[0], "the source");
        const auto off = as_ints(args.at(3), "offsets");
        if (is_remote(args[1], peer)) {
          store_to_peer(c, args[1], peer, src, off, c.args[0].get());
          return Value{};
        }
        region_copy_in(c, src, *args[1].buffer, off, add, c.args[0].get());
        if (args[1].buffer->origin) write_back_view(*args[1].buffer);
        return Value{};
      }
      case OpId::pld_system_notify:  // signal, peer, offsets, value
        notify(c, args.at(0), peer_rank(c, args.at(1), "peer"), as_ints(args.at(2), "offsets"),
               as_int(args.at(3), "the value"));
        return Value{};
      case OpId::pld_system_wait:
      case OpId::pld_system_defer_wait:  // signal, offsets, expected
        wait(c, args.at(0), as_ints(args.at(1), "offsets"),
             as_int(args.at(2), "the expected value"));
        return Value{};
      case OpId::pld_tensor_barrier:
        if (world_size() > 1 && rank_ < 0 && !devices_.empty()) run_devices();
        if (world_size() > 1 && world_task_) {
          const std::vector<std::int64_t>* d = domain(args.at(0).buffer);
          ranks_meet(c, d ? *d : all_ranks());
        }
        return args.at(0);
      case OpId::pld_tensor_allreduce:
      case OpId::pld_tensor_reduce_scatter:
      case OpId::pld_tensor_broadcast:
      case OpId::pld_tensor_allgather:
      case OpId::pld_tensor_all_to_all:
      case OpId::pld_tensor_all_to_all_v: return collective(c, args);
      default: unsupported(c, "is not executable by the reference interpreter");
    }
  }

  /// array.create (every element 0; a task id array holds the invalid id), array.get_element
  /// and array.update_element. Arrays are values: an update gives a new array and leaves its
  /// input as it was, so every version the program names keeps its elements.
  Value array_op(const ir::Call& c, std::vector<Value>& args) const {
    const auto* type = ir::as<ir::ArrayType>(
        c.op->id == ir::OpId::array_create ? c.type.get() : c.args.at(0)->type.get());
    if (!type) unsupported(c, "needs a pl.Array");
    if (c.op->id == ir::OpId::array_create) {
      Value a;
      a.kind = ValueKind::Array;
      a.dtype = type->dtype;
      a.elements.assign(static_cast<std::size_t>(type->extent),
                        Value::scalar_int(type->dtype == DataType::TASK_ID ? -1 : 0, type->dtype));
      return a;
    }
    if (args.at(0).kind != ValueKind::Array) unsupported(c, "needs a pl.Array");
    const std::int64_t i = as_int(args.at(1), "the index");
    if (i < 0 || i >= static_cast<std::int64_t>(args[0].elements.size()))
      unsupported(c, "index " + std::to_string(i) + " is outside the array of " +
                         std::to_string(args[0].elements.size()) + " elements");
    const auto at = static_cast<std::size_t>(i);
    if (c.op->id == ir::OpId::array_get_element) return args[0].elements[at];
    const Value& v = args.at(2);
    if (v.kind != ValueKind::Scalar || core::is_float(v.dtype))
      unsupported(c, "needs an integer, BOOL or task id value");
    Value out = args[0];
    out.elements[at] = Value::scalar_int(
        type->dtype == DataType::TASK_ID ? v.i : wrap(static_cast<std::uint64_t>(v.i), type->dtype),
        type->dtype);
    return out;
  }

  std::size_t flat_index(const ir::Call& c, const Buffer& b,
                         const std::vector<std::int64_t>& idx) const {
    if (idx.size() != b.shape.size()) unsupported(c, "indices do not match the rank");
    std::size_t at = 0;
    for (std::size_t k = 0; k < idx.size(); ++k) {
      if (idx[k] < 0 || idx[k] >= b.shape[k])
        unsupported(c, "index " + std::to_string(idx[k]) + " is out of bounds on dimension " +
                           std::to_string(k));
      at = at * static_cast<std::size_t>(b.shape[k]) + static_cast<std::size_t>(idx[k]);
    }
    return at;
  }

  /// Checks that the box [off, off + ext) lies inside `shape`.
  void check_box(const ir::Call& c, const std::vector<std::int64_t>& shape,
                 const std::vector<std::int64_t>& off, const std::vector<std::int64_t>& ext) const {
    if (off.size() != shape.size() || ext.size() != shape.size())
      unsupported(c, "offsets/shapes of rank " + std::to_string(off.size()) + " for a rank " +
                         std::to_string(shape.size()) + " tensor");
    for (std::size_t k = 0; k < shape.size(); ++k)
      if (off[k] < 0 || ext[k] < 0 || off[k] > shape[k] || ext[k] > shape[k] - off[k])
        unsupported(c, "region [" + std::to_string(off[k]) + ", " +
                           std::to_string(off[k] + ext[k]) + ") is out of bounds of dimension " +
                           std::to_string(k) + " (" + std::to_string(shape[k]) + ")");
  }

  /// Visits the flat indices of a box, row-major: f(flat index in the big buffer, index in box).
  template <class F>
  static void for_box(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& off,
                      const std::vector<std::int64_t>& ext, F&& f) {
    std::size_t n = 1;
    for (std::int64_t e : ext) n *= static_cast<std::size_t>(e);
    std::vector<std::int64_t> pos(ext.size(), 0);
    for (std::size_t j = 0; j < n; ++j) {
      std::size_t at = 0;
      for (std::size_t k = 0; k < shape.size(); ++k)
        at = at * static_cast<std::size_t>(shape[k]) + static_cast<std::size_t>(off[k] + pos[k]);
      f(at, j);
      for (std::size_t k = ext.size(); k-- > 0;) {
        if (++pos[k] < ext[k]) break;
        pos[k] = 0;
      }
    }
  }

  Value region_copy_out(const ir::Call& c, const Buffer& src, const std::vector<std::int64_t>& off,
                        const std::vector<std::int64_t>& ext, bool tile) const {
    check_box(c, src.shape, off, ext);
    Value out = Value::zeros(src.dtype, ext, tile);
    Buffer& dst = *out.buffer;
    for_box(src.shape, off, ext, [&](std::size_t at, std::size_t j) {
      if (is_float_dtype(src.dtype))
        dst.f32[j] = src.f32[at];
      else
        dst.ints[j] = src.ints[at];
    });
    return out;
  }

  /// A load with a valid_shape: a buffer of shape `ext` whose leading `valid` box is read from
  /// `src` at `off` and whose other elements are zero (the padding of a partial edge tile). Only
  /// the valid box must lie inside `src`; valid[k] <= ext[k].
  Value region_copy_out_valid(const ir::Call& c, const Buffer& src,
                              const std::vector<std::int64_t>& off,
                              const std::vector<std::int64_t>& ext,
                              const std::vector<std::int64_t>& valid, bool tile) const {
    if (valid.size() != ext.size())
      unsupported(c, "valid_shape of rank " + std::to_string(valid.size()) + " for a rank " +
                         std::to_string(ext.size()) + " region");
    for (std::size_t k = 0; k < ext.size(); ++k)
      if (valid[k] < 0 || valid[k] > ext[k])
        unsupported(c, "valid_shape[" + std::to_string(k) + "] = " + std::to_string(valid[k]) +
                           " is outside [0, " + std::to_string(ext[k]) + "]");
    check_box(c, src.shape, off, valid);
    for (std::int64_t d : ext)
      if (d < 0) unsupported(c, "negative dimension");
    Value out = Value::zeros(src.dtype, ext, tile);
    Buffer& dst = *out.buffer;
    const std::vector<std::int64_t> origin(ext.size(), 0);
    std::vector<std::size_t> into;  // flat index in dst of each element of the valid box
    for_box(ext, origin, valid, [&](std::size_t at, std::size_t) { into.push_back(at); });
    for_box(src.shape, off, valid, [&](std::size_t at, std::size_t j) {
      if (is_float_dtype(src.dtype))
        dst.f32[into[j]] = src.f32[at];
      else
        dst.ints[into[j]] = src.ints[at];
    });
    if (valid != ext) dst.valid = valid;
    return out;
  }

  /// Writes `src` into `dst` at `off`; with `add` (an atomic add store) dst += src instead.
  /// The source written into dst at `off`: only its valid box when `valued` (the source's
  /// expression) gives one (valid_extents), as the device's DMA moves only that box.
  void region_copy_in(const ir::Call& c, const Buffer& src, Buffer& dst,
                      const std::vector<std::int64_t>& off, bool add,
                      const ir::Expr* valued = nullptr) {
    // A float tile stores into a tensor of another float dtype rounded to it (an FP32
    // accumulator into a BF16 tensor), once, after an atomic add.
    if (src.dtype != dst.dtype && !(is_float_dtype(src.dtype) && is_float_dtype(dst.dtype)))
      unsupported(c, "source and destination dtypes differ");
    // A 2-D tile into a tensor of higher rank: the tensor's 2-D row-major view ([leading dims
    // folded, last]), the leading offsets folded alike.
    std::vector<std::int64_t> shape = dst.shape, at = off;
    if (src.shape.size() == 2 && shape.size() > 2 && off.size() == shape.size()) {
      std::int64_t rows = 1, row = 0;
      for (std::size_t k = 0; k + 1 < shape.size(); ++k) {
        rows *= shape[k];
        row = row * shape[k] + off[k];
      }
      shape = {rows, dst.shape.back()};
      at = {row, off.back()};
    }
    std::vector<std::int64_t> box = src.shape;
    if (valued && shape.size() == src.shape.size()) box = valid_extents(*valued, src);
    check_box(c, shape, at, box);
    const bool narrow = box != src.shape;
    std::vector<std::size_t> pos(box.size());
    for_box(shape, at, box, [&](std::size_t at, std::size_t k) {
      std::size_t j = k;  // the element's index in src, whose rows may be wider than the box
      if (narrow) {
        j = 0;
        std::size_t rest = k;
        for (std::size_t d = box.size(); d-- > 0;) {
          pos[d] = rest % static_cast<std::size_t>(box[d]);
          rest /= static_cast<std::size_t>(box[d]);
        }
        for (std::size_t d = 0; d < box.size(); ++d)
          j = j * static_cast<std::size_t>(src.shape[d]) + pos[d];
      }
      if (is_float_dtype(src.dtype))
        dst.f32[at] = add ? rounded(dst.dtype, strict(dst.f32[at] + src.f32[j]))
                      : src.dtype != dst.dtype ? rounded(dst.dtype, src.f32[j])
                                               : src.f32[j];
      else
        dst.ints[at] = add ? wrap(static_cast<std::uint64_t>(dst.ints[at]) +
                                      static_cast<std::uint64_t>(src.ints[j]),
                                  dst.dtype)
                           : src.ints[j];
    });
  }

  /// Broadcasting of a second operand into the first's shape (the result has the first
  /// operand's type, as the registry's elementwise rule says): same rank, each dimension equal
  /// or 1 (a [rows, 1] column broadcast along the row, a [1, cols] row down the columns). For
  /// each element of `x` (row-major), the flat index of the element of `y` it pairs with.
  std::vector<std::size_t> broadcast_index(const ir::Call& c, const std::vector<std::int64_t>& x,
                                           const std::vector<std::int64_t>& y) const {
    bool ok = x.size() == y.size();
    for (std::size_t k = 0; ok && k < x.size(); ++k) ok = y[k] == x[k] || y[k] == 1;
    if (!ok) {
      unsupported(c, "cannot broadcast a second operand of shape " + shape_text(y) +
                         " to the first operand's shape " + shape_text(x) +
                         " (each dimension must be equal or 1)");
    }
    std::size_t n = 1;
    for (std::int64_t d : x) n *= static_cast<std::size_t>(d);
    std::vector<std::size_t> at(n);
    std::vector<std::int64_t> pos(x.size(), 0);
    for (std::size_t j = 0; j < n; ++j) {
      std::size_t flat = 0;
      for (std::size_t k = 0; k < x.size(); ++k)
        flat = flat * static_cast<std::size_t>(y[k]) +
               static_cast<std::size_t>(y[k] == 1 ? 0 : pos[k]);
      at[j] = flat;
      for (std::size_t k = x.size(); k-- > 0;) {
        if (++pos[k] < x[k]) break;
        pos[k] = 0;
      }
    }
    return at;
  }

  /// The valid extents an element op's result keeps (upstream's type rules): its first
  /// operand's, unless a shaped second operand has another shape or other valid extents.
  static std::vector<std::int64_t> kept_valid(const Buffer& x, const Value* b) {
    if (b && b->is_shaped() && (b->buffer->shape != x.shape || b->buffer->valid != x.valid))
      return {};
    return x.valid;
  }

  Value elementwise(const ir::Call& c, kernel::Op op, const Value& first, const Value* b) const {
    const Value* pa = &first;
    Value held[2];
    promote_operands(pa, b, held);
    const Value& a = *pa;
    const Buffer& x = shaped(a, "the first operand");
    check_dtype(x.dtype, c.op->name + "'s operand");
    // A scalar operand is converted to the elements' dtype first (upstream narrows it so).
    Value narrowed;
    if (b && b->kind == ValueKind::Scalar && b->dtype != x.dtype) {
      narrowed = convert(*b, x.dtype);
      b = &narrowed;
    }
    const Buffer* y = nullptr;
    std::vector<std::size_t> at;  // the element of y paired with each element of x
    if (b && b->is_shaped()) {
      y = b->buffer.get();
      if (y->dtype != x.dtype) unsupported(c, "operands of different dtypes are not executable");
      if (y->shape != x.shape) at = broadcast_index(c, x.shape, y->shape);
    } else if (b && (b->kind != ValueKind::Scalar || b->dtype != x.dtype)) {
      unsupported(c, "second operand must be a tensor/tile or a scalar of the same dtype");
    }
    auto rhs_at = [&](std::size_t k) { return at.empty() ? k : at[k]; };
    Value out = Value::zeros(x.dtype, x.shape, a.kind == ValueKind::Tile);
    Buffer& z = *out.buffer;
    z.valid = kept_valid(x, b);
    const std::size_t n = x.size();
    if (is_float_dtype(x.dtype)) {  // in binary32, each result rounded to the dtype
      for (std::size_t k = 0; k < n; ++k) {
        const float rhs = y ? y->f32[rhs_at(k)] : (b ? b->f : 0.0f);
        z.f32[k] = rounded(x.dtype, kernel::detail::apply_op(op, x.f32[k], rhs, 0.0f));
      }
      return out;
    }
    ir::NodeKind kind{};
    switch (op) {
      case kernel::Op::Add: kind = ir::NodeKind::Add; break;
      case kernel::Op::Sub: kind = ir::NodeKind::Sub; break;
      case kernel::Op::Mul: kind = ir::NodeKind::Mul; break;
      case kernel::Op::Max: kind = ir::NodeKind::Max; break;
      case kernel::Op::Min: kind = ir::NodeKind::Min; break;
      case kernel::Op::Neg: kind = ir::NodeKind::Neg; break;
      case kernel::Op::Abs: kind = ir::NodeKind::Abs; break;
      default: unsupported(c, "on " + dtype_text(x.dtype) + " elements is not executable");
    }
    for (std::size_t k = 0; k < n; ++k) {
      const Value l = Value::scalar_int(x.ints[k], x.dtype);
      const Value r = y ? Value::scalar_int(y->ints[rhs_at(k)], x.dtype) : (b ? *b : Value{});
      z.ints[k] = (b ? binary(kind, l, r) : unary(kind, l)).i;
    }
    return out;
  }

  /// system.syncall: the barrier of the blocks of a launch (they run side by side when their
  /// code syncs); in a launch of one block it has no one to wait for.
  Value sync_all(const ir::Call& c) {
    MixedTask* task = MixedTask::current();
    if (task && task->kind() == MixedTask::Kind::Group)
      unsupported(c,
                  "in a member of a Group's mixed task: a barrier across the blocks of a launch "
                  "whose AIC and AIV members run side by side is not run here");
    if (task) {
      task->arrive(c.op->name);
    } else if (block_num_ > 1) {
      unsupported(c, "runs in blocks that run one after another: nothing runs them side by side");
    }
    return Value{};
  }

  Value fill(const ir::Call& c, const std::vector<Value>& args, bool tile) {
    const auto dtype = c.kwargs.get<DataType>("dtype");
    if (!dtype) unsupported(c, "needs a dtype keyword");
    check_dtype(*dtype, c.op->name);
    std::vector<std::int64_t> shape = as_ints(args.at(0), "the shape");
    for (std::int64_t d : shape)
      if (d < 0) unsupported(c, "negative dimension");
    Value out = Value::zeros(*dtype, std::move(shape), tile);
    const ir::AttrValue* v =
        c.kwargs.find(c.op->id == ir::OpId::tensor_create ? "init_value" : "value");
    if (!v) return out;
    Value scalar;
    if (const auto* d = v->get_if<double>()) {
      scalar = Value::scalar_float(0.0f, is_float_dtype(*dtype) ? *dtype : DataType::FP32);
      scalar.f = round_to_dtype(scalar.dtype, *d);  // one rounding of the literal
    } else if (const auto* i = v->get_if<std::int64_t>())
      scalar = Value::scalar_int(*i, DataType::INT64);
    else if (const auto* bl = v->get_if<bool>())
      scalar = Value::scalar_bool(*bl);
    else if (const auto* e = v->get_if<ir::ExprRef>())
      scalar = eval(**e);
    else
      unsupported(c, "fill value of an unsupported kind");
    scalar = convert(scalar, *dtype);
    Buffer& b = *out.buffer;
    if (is_float_dtype(*dtype))
      b.f32.assign(b.size(), scalar.f);
    else
      b.ints.assign(b.size(), scalar.i);
    return out;
  }

  Value cast_elements(const ir::Call& c, const std::vector<Value>& args) const {
    const auto to = c.kwargs.get<DataType>("target_type");
    if (!to) unsupported(c, "needs a target_type keyword");
    const std::int64_t mode = c.kwargs.get<std::int64_t>("mode").value_or(ir::kDefaultRoundMode);
    const Buffer& x = shaped(args.at(0), "the tile");
    check_dtype(x.dtype, "a cast's operand");
    Value out = Value::zeros(*to, x.shape, args[0].kind == ValueKind::Tile);
    if (is_float_dtype(x.dtype) && !is_float_dtype(*to)) {
      for (std::size_t k = 0; k < x.size(); ++k)
        out.buffer->ints[k] = float_to_int(x.f32[k], mode, *to);
      return out;
    }
    convert_elements(x, *out.buffer);  // the mode does not round these
    return out;
  }

  /// Each element of `x` as `out`'s dtype (convert's rules), into `out` of `x`'s shape.
  void convert_elements(const Buffer& x, Buffer& out) const {
    for (std::size_t k = 0; k < x.size(); ++k) {
      const Value e = is_float_dtype(x.dtype) ? Value::scalar_float(x.f32[k], x.dtype)
                                              : Value::scalar_int(x.ints[k], x.dtype);
      const Value r = convert(e, out.dtype);
      if (is_float_dtype(out.dtype))
        out.f32[k] = r.f;
      else
        out.ints[k] = r.i;
    }
  }

  /// Two shaped operands of different dtypes, each as their promoted dtype (upstream's
  /// PromoteDataTypes, the type rule's): `a` and `b` are repointed at the converted copies
  /// kept in `held`. Operands of one dtype, or a scalar second operand, are left as they are.
  void promote_operands(const Value*& a, const Value*& b, Value (&held)[2]) const {
    if (!b || !b->is_shaped() || !a->is_shaped() || a->buffer->dtype == b->buffer->dtype) return;
    const DataType to = ir::ops::promote(a->buffer->dtype, b->buffer->dtype);
    for (const Value** v : {&a, &b}) {
      if ((*v)->buffer->dtype == to) continue;
      Value& copy = held[v == &a ? 0 : 1];
      copy = Value::zeros(to, (*v)->buffer->shape, (*v)->kind == ValueKind::Tile);
      convert_elements(*(*v)->buffer, *copy.buffer);
      copy.buffer->valid = (*v)->buffer->valid;
      *v = &copy;
    }
  }

  /// tile.row_{sum,max,min,prod} ([rows, cols] -> [rows, 1]) and tile.col_{sum,max,min,prod}
  /// (-> [1, cols]): each row left to right, each column top to bottom, from its first element;
  /// max is `acc < x ? x : acc`, min `x < acc ? x : acc` (kernel/op_semantics.hpp); FP16 / BF16
  /// partial sums and products are each rounded to the dtype. A scratch tile is not read; a
  /// col_sum given one sums each column in the device's binary tree order
  /// (codegen/element_functions.hpp's col_sum_tree). Outside the operand's valid box an element
  /// reads as the reduction's identity (0 for a sum, 1 for a product, -inf for a max, +inf for a
  /// min), so a reduction combines the valid elements alone.
  Value reduce(const ir::Call& c, const std::vector<Value>& args) const {
    const ir::ReductionOf r = *ir::reduction_of(c.op->id);
    const bool tree = c.op->id == ir::OpId::tile_col_sum && args.size() > 1;
    const Buffer& x = shaped(args.at(0), "the operand");
    const std::size_t rank = x.shape.size();
    if (!is_float_dtype(x.dtype) || rank < 2 || x.size() == 0)
      unsupported(c, "needs a non-empty float operand of rank 2 or more");
    const auto rows = static_cast<std::size_t>(x.shape[rank - 2]),
               cols = static_cast<std::size_t>(x.shape[rank - 1]);
    const std::size_t batches = x.size() / (rows * cols);
    const std::size_t lines = r.by_row ? rows : cols, length = r.by_row ? cols : rows;
    std::vector<std::int64_t> shape = x.shape;
    shape[r.by_row ? rank - 1 : rank - 2] = 1;
    Value out = Value::zeros(r.index ? DataType::INT32 : x.dtype, std::move(shape),
                             args[0].kind == ValueKind::Tile);
    Buffer& y = *out.buffer;
    const bool partial = x.valid.size() == rank;
    const auto valid_extent = [&](std::size_t d, std::size_t full) {
      return partial ? static_cast<std::size_t>(
                           std::clamp<std::int64_t>(x.valid[d], 0, static_cast<std::int64_t>(full)))
                     : full;
    };
    const std::size_t valid_rows = valid_extent(rank - 2, rows),
                      valid_cols = valid_extent(rank - 1, cols);
    const float inf = std::numeric_limits<float>::infinity();
    const float identity = r.kind == ir::Reduction::Sum    ? 0.0f
                           : r.kind == ir::Reduction::Prod ? 1.0f
                           : r.kind == ir::Reduction::Max  ? -inf
                                                           : inf;
    std::vector<float> tree_sums;
    for (std::size_t b = 0; b < batches; ++b)
      for (std::size_t l = 0; l < lines; ++l) {
        const std::size_t base = b * rows * cols;
        auto value = [&](std::size_t k) {
          const std::size_t row = r.by_row ? l : k, col = r.by_row ? k : l;
          return row < valid_rows && col < valid_cols ? x.f32[base + row * cols + col] : identity;
        };
        if (tree) {
          y.f32[b * lines + l] = codegen::element::col_sum_tree(
              static_cast<std::int64_t>(rows),
              [&](std::int64_t k) { return value(static_cast<std::size_t>(k)); },
              [&](float p, float q) { return rounded(x.dtype, strict(p + q)); }, tree_sums);
          continue;
        }
        float acc = value(0);
        std::size_t best = 0;
        for (std::size_t k = 1; k < length; ++k) {
          const float v = value(k);
          if (r.index) {  // the first extreme; a NaN is the extreme (as torch's argmax)
            const bool better = r.kind == ir::Reduction::Max ? v > acc : v < acc;
            if (acc == acc && (v != v || better)) acc = v, best = k;
            continue;
          }
          switch (r.kind) {
            case ir::Reduction::Max: acc = kernel::detail::apply_max(acc, v); break;
            case ir::Reduction::Min: acc = kernel::detail::apply_min(acc, v); break;
            case ir::Reduction::Prod: acc = rounded(x.dtype, strict(acc * v)); break;
            case ir::Reduction::Sum: acc = rounded(x.dtype, strict(acc + v)); break;
          }
        }
        if (r.index)
          y.ints[b * lines + l] = static_cast<std::int64_t>(best);
        else
          y.f32[b * lines + l] = acc;
      }
    return out;
  }

  /// An element op outside the kernel IR (codegen/element_ops.hpp): on floats its function of
  /// binary32 values, rounded to the dtype; on integers the scalar node of its name, element by
  /// element. The second operand is a shaped value (broadcast as elementwise's) or a scalar.
  Value element_map(const ir::Call& c, codegen::ElementOp op, const Value& first,
                    const Value* b) const {
    const codegen::ElementOpInfo info = codegen::element_op_info(op);
    const Value* pa = &first;
    Value held[2];
    if (op != codegen::ElementOp::Shl && op != codegen::ElementOp::Shr)  // not a shift's amount
      promote_operands(pa, b, held);
    const Value& a = *pa;
    const Buffer& x = shaped(a, "the first operand");
    check_dtype(x.dtype, c.op->name + "'s operand");
    const bool is_float = is_float_dtype(x.dtype);
    const bool compare = op == codegen::ElementOp::Compare;
    if (is_float ? info.name.empty() : !info.on_int && !compare)
      unsupported(c, "on " + dtype_text(x.dtype) + " elements is not executable");
    const Buffer* y = nullptr;
    std::vector<std::size_t> at;
    if (b && b->is_shaped()) {
      y = b->buffer.get();
      if (y->dtype != x.dtype && !(op == codegen::ElementOp::Shl || op == codegen::ElementOp::Shr))
        unsupported(c, "operands of different dtypes are not executable");
      if (is_float != is_float_dtype(y->dtype)) unsupported(c, "mixes float and integer operands");
      if (y->shape != x.shape) at = broadcast_index(c, x.shape, y->shape);
    } else if (b && (b->kind != ValueKind::Scalar || is_float != is_float_dtype(b->dtype))) {
      unsupported(c, "second operand must be a tensor/tile or a scalar of the same kind");
    }
    const int mode = static_cast<int>(c.kwargs.get<std::int64_t>("cmp_type").value_or(0));
    if (mode < 0 || mode > 5) unsupported(c, "cmp_type must be 0..5");
    Value out = Value::zeros(x.dtype, x.shape, a.kind == ValueKind::Tile);
    Buffer& z = *out.buffer;
    z.valid = kept_valid(x, b);
    for (std::size_t k = 0; k < x.size(); ++k) {
      const std::size_t j = at.empty() ? k : at[k];
      if (is_float) {
        const float rhs = y ? y->f32[j] : (b ? b->f : 0.0f);
        z.f32[k] = rounded(x.dtype, strict(codegen::apply_element(op, x.f32[k], rhs, mode)));
        continue;
      }
      const Value l = Value::scalar_int(x.ints[k], x.dtype);
      if (!b) {
        z.ints[k] = unary(*info.on_int, l).i;
        continue;
      }
      // A shift amount or scalar operand takes the first operand's dtype (its value kept).
      const Value r = Value::scalar_int(y ? y->ints[j] : b->i, x.dtype);
      if (compare) {
        using K = ir::NodeKind;
        constexpr K kinds[] = {K::Eq, K::Ne, K::Lt, K::Le, K::Gt, K::Ge};
        z.ints[k] = binary(kinds[mode], l, r).i;
        continue;
      }
      z.ints[k] = binary(*info.on_int, l, r).i;
    }
    return out;
  }

  /// tile / tensor.expands(target, scalar): the target's shape filled with the scalar.
  Value expand_scalar(const ir::Call& c, const std::vector<Value>& args) const {
    const Buffer& t = shaped(args.at(0), "the target");
    const Value& v = args.at(1);
    if (v.kind != ValueKind::Scalar) unsupported(c, "needs a scalar");
    Value out = Value::zeros(t.dtype, t.shape, args[0].kind == ValueKind::Tile);
    if (is_float_dtype(t.dtype)) {
      const float f = is_float_dtype(v.dtype) ? v.f : static_cast<float>(v.i);
      std::fill(out.buffer->f32.begin(), out.buffer->f32.end(), rounded(t.dtype, f));
    } else {
      if (is_float_dtype(v.dtype)) unsupported(c, "fills an integer target with a float");
      std::fill(out.buffer->ints.begin(), out.buffer->ints.end(),
                wrap(static_cast<std::uint64_t>(v.i), t.dtype));
    }
    return out;
  }

  /// row_expand / col_expand(target, vec): the [rows, 1] / [1, cols] vector repeated to the
  /// target's shape (the vector's dtype).
  Value expand_vector(const ir::Call& c, const std::vector<Value>& args) const {
    const Buffer& t = shaped(args.at(0), "the target");
    const Buffer& v = shaped(args.at(1), "the vector");
    const std::vector<std::size_t> at = broadcast_index(c, t.shape, v.shape);
    Value out = Value::zeros(v.dtype, t.shape, args[0].kind == ValueKind::Tile);
    for (std::size_t k = 0; k < at.size(); ++k) {
      if (is_float_dtype(v.dtype))
        out.buffer->f32[k] = v.f32[at[k]];
      else
        out.buffer->ints[k] = v.ints[at[k]];
    }
    return out;
  }

  /// tile.cmp / cmps: the packed predicate mask of the compare `cmp_type` (0..5: == != < <= >
  /// >=): UINT8, bit j % 8 (least significant first) of byte j / 8 of a row says whether column
  /// j compares true; each row padded with zero bytes to the result's width.
  Value compare_mask(const ir::Call& c, const std::vector<Value>& args) const {
    const Value cmp = element_map(c, codegen::ElementOp::Compare, args.at(0), &args.at(1));
    const Buffer& x = *cmp.buffer;
    const auto* t = ir::as<ir::ShapedType>(c.type.get());
    if (!t || x.shape.empty()) unsupported(c, "needs a tile of rank 1 or more");
    Value out = Value::zeros(DataType::UINT8, static_shape(c, *t), true);
    const std::size_t cols = static_cast<std::size_t>(x.shape.back());
    const std::size_t width = static_cast<std::size_t>(out.buffer->shape.back());
    const bool is_float = is_float_dtype(x.dtype);
    for (std::size_t k = 0; k < x.size(); ++k) {
      const bool set = is_float ? x.f32[k] != 0.0f : x.ints[k] != 0;
      if (set) out.buffer->ints[(k / cols) * width + (k % cols) / 8] |= 1 << (k % cols % 8);
    }
    return out;
  }

  /// tile.sel(mask, lhs, rhs) / sels(mask, src, tmp, scalar): per position the first value
  /// where the mask is set, else the second. A mask of the operands' shape is set where nonzero;
  /// a packed mask (UINT8, narrower) by bit j % 8 of byte j / 8 of its row (compare_mask).
  Value select(const ir::Call& c, const std::vector<Value>& args) const {
    const bool scalar = c.op->id == ir::OpId::tile_sels;
    if (args.size() < (scalar ? 4u : 3u)) unsupported(c, "got too few arguments");
    const Buffer& m = shaped(args[0], "the mask");
    const Buffer& x = shaped(args[1], "the first operand");
    const Value& other = scalar ? args[3] : args[2];
    if (x.shape.size() != m.shape.size() || x.shape.empty())
      unsupported(c, "needs a mask of the operands' rank");
    // A compare's packed mask (its row is packed_mask_bytes wide, which may be the operands'
    // width too), else a mask of the operands' shape.
    const bool packed =
        m.shape != x.shape || (m.dtype == DataType::UINT8 &&
                               m.shape.back() == ir::ops::packed_mask_bytes(x.shape.back()));
    // A packed mask's carrier may be any integer dtype: bit j of a row is bit j % B of its
    // element j / B (B the carrier's bits), as the row's little-endian bytes hold it.
    const std::int64_t bits = core::is_int(m.dtype) ? core::bit_width(m.dtype) : 0;
    if (packed && (bits == 0 || m.shape.back() * bits < x.shape.back()))
      unsupported(c,
                  "needs a mask of the operands' shape or a packed integer mask of a bit per "
                  "column");
    const std::size_t cols = static_cast<std::size_t>(x.shape.back());
    const std::size_t width = static_cast<std::size_t>(m.shape.back());
    const auto b = static_cast<std::size_t>(bits);
    const bool is_float = is_float_dtype(x.dtype);
    const Buffer* y = scalar ? nullptr : &shaped(other, "the second operand");
    if (y && (y->dtype != x.dtype || y->shape != x.shape))
      unsupported(c, "needs operands of one dtype and shape");
    if (!y && other.kind != ValueKind::Scalar) unsupported(c, "needs a scalar");
    // A scalar of another dtype is converted to the operands' first (upstream narrows it so).
    const Value fill = y ? Value{} : other.dtype == x.dtype ? other : convert(other, x.dtype);
    Value out = Value::zeros(x.dtype, x.shape, true);
    for (std::size_t k = 0; k < x.size(); ++k) {
      const std::size_t r = k / cols, j = k % cols;
      const bool set = packed
                           ? (static_cast<std::uint64_t>(m.ints[r * width + j / b]) >> (j % b)) & 1
                           : (is_float_dtype(m.dtype) ? m.f32[k] != 0.0f : m.ints[k] != 0);
      if (is_float)
        out.buffer->f32[k] = set ? x.f32[k] : y ? y->f32[k] : fill.f;
      else
        out.buffer->ints[k] = set ? x.ints[k] : y ? y->ints[k] : fill.i;
    }
    return out;
  }

  /// concat(a, b): the columns of b after those of a (same leading dimensions, one dtype).
  Value concat(const ir::Call& c, const std::vector<Value>& args) const {
    const Buffer& a = shaped(args.at(0), "the first operand");
    const Buffer& b = shaped(args.at(1), "the second operand");
    if (a.dtype != b.dtype || a.shape.empty() || a.shape.size() != b.shape.size() ||
        !std::equal(a.shape.begin(), a.shape.end() - 1, b.shape.begin()))
      unsupported(c, "needs operands of one dtype that differ only in their last dimension");
    const std::size_t ca = static_cast<std::size_t>(a.shape.back()),
                      cb = static_cast<std::size_t>(b.shape.back());
    std::vector<std::int64_t> shape = a.shape;
    shape.back() += b.shape.back();
    Value out = Value::zeros(a.dtype, std::move(shape), args[0].kind == ValueKind::Tile);
    Buffer& z = *out.buffer;
    const std::size_t lines = ca + cb == 0 ? 0 : z.size() / (ca + cb);
    for (std::size_t r = 0; r < lines; ++r)
      for (std::size_t j = 0; j < ca + cb; ++j) {
        const bool first = j < ca;
        const Buffer& s = first ? a : b;
        const std::size_t from = first ? r * ca + j : r * cb + (j - ca);
        if (is_float_dtype(a.dtype))
          z.f32[r * (ca + cb) + j] = s.f32[from];
        else
          z.ints[r * (ca + cb) + j] = s.ints[from];
      }
    return out;
  }

  /// The valid extents of the shaped value `e` holds: what its buffer records (a load's,
  /// slice's or set_validshape's), else its type's view (evaluated here), else its shape.
  std::vector<std::int64_t> valid_extents(const ir::Expr& e, const Buffer& b) {
    const std::vector<ir::ExprRef>* dims = nullptr;
    if (const auto* t = ir::as<ir::TileType>(e.type.get()); t && t->tile_view)
      dims = &t->tile_view->valid_shape;
    if (const auto* t = ir::as<ir::TensorType>(e.type.get()); t && t->tensor_view)
      dims = &t->tensor_view->valid_shape;
    if (!b.valid.empty()) return b.valid;
    if (!dims || dims->size() != b.shape.size()) return b.shape;
    std::vector<std::int64_t> out;
    for (std::size_t k = 0; k < dims->size(); ++k)
      out.push_back(
          std::clamp<std::int64_t>(as_int(eval(*(*dims)[k]), "a valid extent"), 0, b.shape[k]));
    return out;
  }

  /// fillpad(x) / fillpad_inplace(x) / fillpad_expand(x, shape): x (in a buffer of `shape`,
  /// for the expanding form) with every element outside x's valid extents set to the pad
  /// value: 0, or the dtype's least / greatest value (-inf / +inf for floats, as the device's
  /// PadValue::Min / Max).
  Value fillpad(const ir::Call& c, std::vector<Value>& args) {
    const Buffer& x = shaped(args.at(0), "the operand");
    const std::vector<std::int64_t> valid = valid_extents(*c.args.at(0), x);
    const ir::OpId id = c.op->id;
    const bool expand =
        id == ir::OpId::tile_fillpad_expand || id == ir::OpId::tensor_fillpad_expand;
    std::vector<std::int64_t> shape = expand ? as_ints(args.at(1), "the shape") : x.shape;
    if (shape.size() != x.shape.size()) unsupported(c, "needs a shape of the operand's rank");
    for (std::size_t k = 0; k < shape.size(); ++k)
      if (shape[k] < x.shape[k]) unsupported(c, "cannot shrink the operand");
    const auto pad = c.kwargs.get<ir::PadValue>("pad_value").value_or(ir::PadValue::zero);
    Value out = Value::zeros(x.dtype, shape, args[0].kind == ValueKind::Tile);
    Buffer& z = *out.buffer;
    const bool is_float = is_float_dtype(x.dtype);
    if (pad == ir::PadValue::min || pad == ir::PadValue::max) {
      const bool hi = pad == ir::PadValue::max;
      if (is_float)
        std::fill(z.f32.begin(), z.f32.end(), hi ? INFINITY : -INFINITY);
      else {
        const unsigned bits = core::bit_width(x.dtype);
        const bool is_signed = core::is_signed_int(x.dtype);
        const std::uint64_t top = std::uint64_t{1} << (bits - 1);  // the sign bit's value
        const std::uint64_t v = hi ? (is_signed ? top - 1 : ~std::uint64_t{0})
                                   : (is_signed ? std::uint64_t{0} - top : 0);
        std::fill(z.ints.begin(), z.ints.end(), wrap(v, x.dtype));
      }
    }
    const std::vector<std::int64_t> origin(shape.size(), 0);
    std::vector<std::size_t> from;
    for_box(x.shape, origin, valid, [&](std::size_t at, std::size_t) { from.push_back(at); });
    for_box(shape, origin, valid, [&](std::size_t at, std::size_t j) {
      if (is_float)
        z.f32[at] = x.f32[from[j]];
      else
        z.ints[at] = x.ints[from[j]];
    });
    if (id == ir::OpId::tile_fillpad_inplace) {
      *args[0].buffer = z;
      return args[0];
    }
    return out;
  }

  /// tile.tri(diagonal, shape): 1 where column - row <= diagonal (lower, the default) or >=
  /// diagonal (upper=True), else 0, in the dtype (INT32 by default).
  Value triangle(const ir::Call& c, const std::vector<Value>& args) const {
    const DataType dtype = c.kwargs.get<DataType>("dtype").value_or(DataType::INT32);
    check_dtype(dtype, "tile.tri's dtype");
    const bool upper = c.kwargs.get<bool>("upper").value_or(false);
    const std::int64_t diagonal = as_int(args.at(0), "the diagonal");
    const std::vector<std::int64_t> shape = as_ints(args.at(1), "the shape");
    if (shape.size() != 2 || shape[0] < 0 || shape[1] < 0) unsupported(c, "needs a 2-D shape");
    Value out = Value::zeros(dtype, shape, true);
    for (std::int64_t r = 0; r < shape[0]; ++r)
      for (std::int64_t j = 0; j < shape[1]; ++j) {
        const bool one = upper ? j - r >= diagonal : j - r <= diagonal;
        const auto k = static_cast<std::size_t>(r * shape[1] + j);
        if (is_float_dtype(dtype))
          out.buffer->f32[k] = one ? 1.0f : 0.0f;
        else
          out.buffer->ints[k] = one ? 1 : 0;
      }
    return out;
  }

  /// A buffer as irregular_functions.hpp's row-major view (leading dimensions folded into rows),
  /// of its floats or of its integers.
  template <class V>
  static auto view_of(const Buffer& b, V& elements) {
    const std::int64_t cols = b.shape.empty() ? 1 : b.shape.back();
    const auto size = static_cast<std::int64_t>(b.size());
    return codegen::irregular::view(elements.data(), cols == 0 ? 0 : size / cols, cols);
  }

  /// The gathers, scatters, sorts, merges and random tiles of PTO-ISA's irregular instructions:
  /// the functions of codegen/irregular_functions.hpp, which the CPU target's kernels call too.
  /// A tile scatter writes its destination in place (the result); mscatter its tensor.
  Value irregular(const ir::Call& c, std::vector<Value>& args) {
    namespace irr = codegen::irregular;
    using ir::OpId;
    const OpId id = c.op->id;
    const auto* rt = ir::as<ir::ShapedType>(c.type.get());
    if (!rt) unsupported(c, "needs a tile or tensor result");
    const bool tile = ir::isa<ir::TileType>(*c.type);
    auto buffer = [&](std::size_t k) -> const Buffer& { return shaped(args.at(k), "an operand"); };
    auto index_view = [&](std::size_t k) {
      const Buffer& b = buffer(k);
      if (is_float_dtype(b.dtype)) unsupported(c, "needs integer indices");
      return view_of(b, b.ints);
    };
    auto fp32_only = [&] {
      if (buffer(0).dtype != DataType::FP32) unsupported(c, "is implemented for FP32 values only");
    };
    auto same_dtype = [&](const Buffer& a, const Buffer& b) {
      if (a.dtype != b.dtype) unsupported(c, "needs operands of one dtype");
    };
    auto kwarg = [&](std::string_view key, std::int64_t fallback) {
      return static_cast<int>(c.kwargs.get<std::int64_t>(key).value_or(fallback));
    };
    // The value written: a fresh one of the result's type, or the operand a scatter writes.
    Value out;
    switch (id) {
      case OpId::tile_scatter:
      case OpId::tile_scatter_mask:
      case OpId::tile_scatter_update: out = args.at(0); break;
      case OpId::tile_mscatter: out = args.at(2); break;
      case OpId::tensor_scatter_mask: out = copy(args.at(1)); break;
      case OpId::tensor_scatter_update: out = copy(args.at(0)); break;
      default:
        out = Value::zeros(id == OpId::tile_gather_mask || id == OpId::tensor_gather_mask
                               ? buffer(0).dtype
                               : rt->dtype,
                           static_shape(c, *rt), tile);
    }
    if (!out.buffer) unsupported(c, "needs a tile or tensor to write");
    Buffer& dst = *out.buffer;
    // f(view of dst, view of operand k) over floats or integers, as dst holds them.
    auto with = [&](std::size_t k, auto&& f) {
      const Buffer& src = buffer(k);
      if (is_float_dtype(dst.dtype) != is_float_dtype(src.dtype))
        unsupported(c, "needs operands of one kind (float or integer)");
      return is_float_dtype(dst.dtype) ? f(view_of(dst, dst.f32), view_of(src, src.f32))
                                       : f(view_of(dst, dst.ints), view_of(src, src.ints));
    };
    irr::Fault fault;
    switch (id) {
      case OpId::tile_gather:
        if (args.size() != 3) unsupported(c, "needs (src, indices, tmp)");
        fault = with(0, [&](auto d, auto s) { return irr::gather(d, s, index_view(1)); });
        break;
      case OpId::tile_gather_mask:
      case OpId::tensor_gather_mask:
        fault = with(
            0, [&](auto d, auto s) { return irr::gather_mask(d, s, kwarg("mask_pattern", 0)); });
        if (rt->dtype != dst.dtype) reinterpret(c, dst, rt->dtype);
        break;
      case OpId::tile_sort32:
      case OpId::tensor_sort32:
        fp32_only();
        fault =
            irr::sort32(view_of(dst, dst.f32), view_of(buffer(0), buffer(0).f32), index_view(1));
        break;
      case OpId::tile_mrgsort_format1:
      case OpId::tensor_mrgsort_format1:
        fp32_only();
        fault = irr::mrgsort1(view_of(dst, dst.f32), view_of(buffer(0), buffer(0).f32),
                              as_int(args.at(1), "the block length"));
        break;
      case OpId::tile_mrgsort_format2:
      case OpId::tensor_mrgsort_format2: {  // two to four lists (a tile's last operand: workspace)
        fp32_only();
        if (c.kwargs.get<bool>("exhausted").value_or(false))
          unsupported(c,
                      "with exhausted=True (it stops at the first exhausted list) is not "
                      "implemented");
        std::vector<irr::View<const float>> views;
        for (std::size_t k = 0; k < args.size() - (tile ? 1 : 0); ++k) {
          if (buffer(k).dtype != DataType::FP32) unsupported(c, "needs FP32 lists");
          views.push_back(view_of(buffer(k), buffer(k).f32));
        }
        fault =
            irr::merge_lists(view_of(dst, dst.f32), views.data(), static_cast<int>(views.size()));
        break;
      }
      case OpId::tile_scatter:  // (dst, src, indexes)
        same_dtype(dst, buffer(1));
        fault = with(1, [&](auto d, auto s) { return irr::scatter(d, s, index_view(2)); });
        break;
      case OpId::tile_mscatter:  // (src, idx, output_tensor)
        same_dtype(dst, buffer(0));
        fault = with(0, [&](auto d, auto s) { return irr::scatter(d, s, index_view(1)); });
        break;
      case OpId::tile_scatter_mask:
        same_dtype(dst, buffer(1));
        fault = with(1, [&](auto d, auto s) {
          return irr::scatter_mask(d, s, kwarg("mask_pattern", 0), false);
        });
        break;
      case OpId::tensor_scatter_mask:  // (input, dst): the unselected columns keep dst's
        same_dtype(dst, buffer(0));
        fault = with(0, [&](auto d, auto s) {
          return irr::scatter_mask(d, s, kwarg("mask_pattern", 0), true);
        });
        break;
      case OpId::tile_scatter_update:
      case OpId::tensor_scatter_update:  // (input, index, src)
        same_dtype(dst, buffer(2));
        fault = with(2, [&](auto d, auto s) { return irr::scatter_rows(d, s, index_view(1)); });
        break;
      case OpId::tile_gatherb: {  // (src, offset): blocks of the elements' tensor encoding
        if (element_bytes(buffer(0).dtype) == 0 || element_bytes(dst.dtype) == 0 ||
            dst.shape.size() != 2)
          unsupported(c, "needs whole-byte dtypes and a 2-D result");
        std::vector<unsigned char> from = encode_bytes(buffer(0)), to = encode_bytes(dst);
        const Buffer& offset = buffer(1);
        const std::vector<std::int64_t>& valid = offset.valid.empty() ? offset.shape : offset.valid;
        if (valid.size() != 2) unsupported(c, "needs a 2-D offset tile");
        fault = irr::gatherb(
            irr::view(to.data(), dst.shape[0],
                      dst.shape[1] * static_cast<std::int64_t>(element_bytes(dst.dtype))),
            irr::view(from.data(), 1, static_cast<std::int64_t>(from.size())), index_view(1),
            valid[0], valid[1]);
        decode_bytes(to.data(), dst);
        break;
      }
      case OpId::tile_mgather: {  // (mem, idx[, scratch][, valid_shape])
        Buffer* scratch =
            args.size() > 2 && args[2].kind == ValueKind::Tensor ? args[2].buffer.get() : nullptr;
        if (scratch) same_dtype(*scratch, buffer(0));
        std::vector<std::int64_t> valid = {dst.shape.size() == 2 ? dst.shape[0] : 1,
                                           dst.shape.empty() ? 1 : dst.shape.back()};
        if (args.size() > (scratch ? 3u : 2u)) {
          valid = as_ints(args.back(), "the valid shape");
          if (valid.size() != 2) unsupported(c, "needs a 2-D valid shape");
          if (valid != dst.shape) dst.valid = valid;
        }
        fault = with(0, [&](auto d, auto s) {
          using E = std::remove_cvref_t<decltype(*s.data)>;
          irr::View<E> staging{};
          if (scratch) {
            if constexpr (std::is_same_v<E, float>)
              staging = view_of(*scratch, scratch->f32);
            else
              staging = view_of(*scratch, scratch->ints);
          }
          return irr::mgather(d, s, index_view(1), kwarg("coalesce", 0), kwarg("gather_oob", 0),
                              valid[0], valid[1], staging);
        });
        break;
      }
      default: {  // tile / tensor.random(key0, key1, counter0..3, shape, [valid_shape])
        std::uint32_t words[6];
        for (std::size_t k = 0; k < 6; ++k)
          words[k] = static_cast<std::uint32_t>(as_int(args.at(k), "a key or counter word"));
        std::vector<std::int64_t> valid = dst.shape;
        if (args.size() > 7) valid = as_ints(args[7], "the valid shape");
        if (dst.shape.size() != 2 || valid.size() != 2) unsupported(c, "needs a 2-D shape");
        if (is_float_dtype(dst.dtype)) unsupported(c, "needs an INT32 or UINT32 dtype");
        fault = irr::random(view_of(dst, dst.ints), valid[0], valid[1], words[0], words[1],
                            words[2], words[3], words[4], words[5], kwarg("rounds", 10),
                            dst.dtype == DataType::INT32);
        if (args.size() > 7) dst.valid = valid;
      }
    }
    raise_fault(c, fault,
                id == OpId::tile_scatter_update || id == OpId::tensor_scatter_update ||
                        (id == OpId::tile_mgather && kwarg("coalesce", 0) == 0)
                    ? "rows"
                    : "elements");
    return out;
  }

  /// The error of an irregular function's fault; an index is one of the source's `unit`s.
  void raise_fault(const ir::Call& c, codegen::irregular::Fault fault,
                   std::string_view unit) const {
    using K = codegen::irregular::Fault::Kind;
    if (fault.kind == K::Operand)
      unsupported(c, "gets the invalid operand " + std::to_string(fault.value));
    if (fault.kind == K::Shape) unsupported(c, "gets operands whose shapes do not fit together");
    if (fault.kind == K::Index)
      unsupported(c, "index " + std::to_string(fault.value) + " is out of bounds of its " +
                         std::string(unit) + " (" + std::to_string(fault.size) + ")");
  }

  /// tile / tensor.gather_row(dst, src, dst_offset, src_offset, shapes[, valid_shape]): the
  /// window of src at src_offset, of valid_shape (else shapes), written into dst at dst_offset.
  Value gather_row(const ir::Call& c, const std::vector<Value>& args) {
    if (args.size() < 5) unsupported(c, "needs (dst, src, dst_offset, src_offset, shapes)");
    if (c.kwargs.get<bool>("transpose").value_or(false))
      unsupported(c, "with transpose=True is not run");
    std::vector<std::int64_t> ext = as_ints(args[4], "shapes");
    if (args.size() > 5) {
      const std::vector<std::int64_t> valid = as_ints(args[5], "valid_shape");
      for (std::size_t k = 0; k < valid.size() && k < ext.size(); ++k)
        if (valid[k] < 0 || valid[k] > ext[k])
          unsupported(c, "needs a valid_shape within its shapes, got " + shape_text(valid) +
                             " for " + shape_text(ext));
      ext = valid;
    }
    const Value part = region_copy_out(c, shaped(args[1], "the source"),
                                       as_ints(args[3], "src_offset"), ext, false);
    (void)shaped(args[0], "the destination");
    region_copy_in(c, *part.buffer, *args[0].buffer, as_ints(args[2], "dst_offset"), false);
    return args[0];
  }

  /// tensor.expand_clone(input, target): target, in place, gets input broadcast along every
  /// dimension where input has extent 1 and target does not.
  Value expand_clone(const ir::Call& c, const std::vector<Value>& args) {
    if (args.size() != 2) unsupported(c, "needs (input, target)");
    const Buffer& in = shaped(args[0], "the input");
    Buffer& out = *args[1].buffer;
    (void)shaped(args[1], "the target");
    if (in.shape.size() != out.shape.size())
      unsupported(c, "needs an input of the target's rank, got " + shape_text(in.shape) + " for " +
                         shape_text(out.shape));
    for (std::size_t d = 0; d < in.shape.size(); ++d)
      if (in.shape[d] != out.shape[d] && in.shape[d] != 1)
        unsupported(c, "broadcasts input dimension " + std::to_string(d) +
                           ", which is neither 1 nor the target's: " + shape_text(in.shape) +
                           " to " + shape_text(out.shape));
    const bool floats = is_float_dtype(out.dtype);
    std::vector<std::int64_t> at(out.shape.size(), 0);
    for (std::size_t k = 0, n = out.size(); k < n; ++k) {
      std::size_t from = 0;  // the input element: index 0 along a broadcast dimension
      for (std::size_t d = 0; d < at.size(); ++d)
        from = from * static_cast<std::size_t>(in.shape[d]) +
               static_cast<std::size_t>(in.shape[d] == 1 ? 0 : at[d]);
      if (floats)
        out.f32[k] = in.f32[from];
      else
        out.ints[k] = in.ints[from];
      for (std::size_t d = at.size(); d-- > 0;) {  // the next target index, row-major
        if (++at[d] < out.shape[d]) break;
        at[d] = 0;
      }
    }
    return args[1];
  }

  /// tensor.paged_gather(src, indices, block_table): row i is source row
  /// block_table[l / block_size] * block_size + l % block_size for l = indices[i], its columns
  /// [col_off, col_off + size); rows past the indices' count stay zero.
  Value paged_gather(const ir::Call& c, const std::vector<Value>& args) {
    if (c.kwargs.get<bool>("is_trans").value_or(false))
      unsupported(c, "with is_trans=True is not run");
    const auto* rt = ir::as<ir::ShapedType>(c.type.get());
    if (!rt || args.size() != 3) unsupported(c, "needs (src, indices, block_table)");
    Value out = Value::zeros(rt->dtype, static_shape(c, *rt), false);
    Buffer& dst = *out.buffer;
    const Buffer& src = shaped(args[0], "the source");
    const Buffer& idx = shaped(args[1], "the indices");
    const Buffer& table = shaped(args[2], "the block table");
    const std::int64_t block = c.kwargs.get<std::int64_t>("block_size").value_or(1),
                       size = c.kwargs.get<std::int64_t>("size").value_or(1),
                       col = c.kwargs.get<std::int64_t>("col_off").value_or(0);
    const auto n = static_cast<std::int64_t>(idx.ints.size());
    if (block < 1) unsupported(c, "needs block_size >= 1");
    if (src.shape.size() != 2 || dst.shape.size() != 2 || n > dst.shape[0] || col < 0 ||
        col + size > src.shape[1] || size != dst.shape[1])
      unsupported(c, "gets operands whose shapes do not fit together");
    const bool floats = is_float_dtype(src.dtype);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t l = idx.ints[static_cast<std::size_t>(i)];
      const std::int64_t b = l < 0 ? -1 : l / block;
      if (b < 0 || b >= static_cast<std::int64_t>(table.ints.size()))
        unsupported(c, "index " + std::to_string(l) + " names block " + std::to_string(b) +
                           ", outside its block table (" + std::to_string(table.ints.size()) +
                           " blocks)");
      const std::int64_t row = table.ints[static_cast<std::size_t>(b)] * block + l % block;
      if (row < 0 || row >= src.shape[0])
        unsupported(c, "index " + std::to_string(l) + " names source row " + std::to_string(row) +
                           ", outside its source (" + std::to_string(src.shape[0]) + " rows)");
      for (std::int64_t j = 0; j < size; ++j) {
        const auto from = static_cast<std::size_t>(row * src.shape[1] + col + j),
                   to = static_cast<std::size_t>(i * size + j);
        if (floats)
          dst.f32[to] = src.f32[from];
        else
          dst.ints[to] = src.ints[from];
      }
    }
    return out;
  }

  /// tile / tensor.gather_compare(src, kvalue[, tmp]): (dst, cdst), irregular_functions.hpp's
  /// gather_compare.
  Value gather_compare(const ir::Call& c, const std::vector<Value>& args) {
    const auto* tuple = ir::as<ir::TupleType>(c.type.get());
    if (!tuple || tuple->types.size() != 2) unsupported(c, "needs a (dst, cdst) result");
    std::vector<Value> outs;
    for (const ir::TypeRef& t : tuple->types) {
      const auto* st = ir::as<ir::ShapedType>(t.get());
      if (!st) unsupported(c, "needs a (dst, cdst) result");
      outs.push_back(Value::zeros(st->dtype, static_shape(c, *st), ir::isa<ir::TileType>(*t)));
    }
    if (args.size() < 2) unsupported(c, "needs (src, kvalue)");
    const Buffer& src = shaped(args[0], "the source");
    const Value& k = args[1];
    const double kvalue = is_float_dtype(k.dtype) ? static_cast<double>(k.f)
                                                  : static_cast<double>(as_int(k, "kvalue"));
    const int mode = static_cast<int>(c.kwargs.get<std::int64_t>("cmp_mode").value_or(0));
    const std::int64_t offset = c.kwargs.get<std::int64_t>("offset").value_or(0);
    Buffer& dst = *outs[0].buffer;
    Buffer& cdst = *outs[1].buffer;
    const auto same = [](auto x) { return x; };
    raise_fault(c,
                is_float_dtype(src.dtype) ? codegen::irregular::gather_compare(
                                                view_of(dst, dst.ints), view_of(cdst, cdst.ints),
                                                view_of(src, src.f32), kvalue, mode, offset, same)
                                          : codegen::irregular::gather_compare(
                                                view_of(dst, dst.ints), view_of(cdst, cdst.ints),
                                                view_of(src, src.ints), kvalue, mode, offset, same),
                "elements");
    return Value::tuple(std::move(outs));
  }

  /// tensor.scatter(input, index, src, dim=): torch's scatter, the inverse of gather_along: the
  /// input with src's element at each index position written at the index's value on axis `dim`
  /// (the last write wins).
  Value scatter_along(const ir::Call& c, std::vector<Value>& args) {
    if (args.size() != 3) unsupported(c, "needs (input, index, src) and dim=");
    Value out = copy(args[0]);
    Buffer& in = *out.buffer;
    const Buffer& src = shaped(args[2], "the source");
    if (src.dtype != in.dtype || src.shape != shaped(args[1], "the index").shape)
      unsupported(c, "needs a source of the input's dtype and the index's shape");
    const std::vector<std::size_t> to = positions_along(c, in, shaped(args[1], "the index"));
    for (std::size_t j = 0; j < to.size(); ++j) {
      if (is_float_dtype(in.dtype))
        in.f32[to[j]] = src.f32[j];
      else
        in.ints[to[j]] = src.ints[j];
    }
    return out;
  }

  /// The flat position in `in` that each element of `idx` names along axis dim= (torch's gather
  /// and scatter): the index's value on that axis, the element's own position on the others.
  std::vector<std::size_t> positions_along(const ir::Call& c, const Buffer& in, const Buffer& idx) {
    if (is_float_dtype(idx.dtype)) unsupported(c, "needs integer indices");
    const auto rank = static_cast<std::int64_t>(in.shape.size());
    std::int64_t dim = c.kwargs.get<std::int64_t>("dim").value_or(-1);
    if (dim < 0) dim += rank;
    if (dim < 0 || dim >= rank || idx.shape.size() != in.shape.size())
      unsupported(c, "needs an index of the input's rank and a dim within it");
    for (std::size_t k = 0; k < idx.shape.size(); ++k)
      if (static_cast<std::int64_t>(k) != dim && idx.shape[k] > in.shape[k])
        unsupported(c, "index is larger than the input on dimension " + std::to_string(k));
    const std::int64_t extent = in.shape[static_cast<std::size_t>(dim)];
    std::vector<std::size_t> out(idx.size());
    std::vector<std::int64_t> pos(idx.shape.size(), 0);
    for (std::size_t j = 0; j < idx.size(); ++j) {
      const std::int64_t at = idx.ints[j];
      if (at < 0 || at >= extent)
        unsupported(c, "index " + std::to_string(at) + " is out of bounds of dimension " +
                           std::to_string(dim) + " (" + std::to_string(extent) + ")");
      for (std::size_t k = 0; k < pos.size(); ++k)
        out[j] = out[j] * static_cast<std::size_t>(in.shape[k]) +
                 static_cast<std::size_t>(static_cast<std::int64_t>(k) == dim ? at : pos[k]);
      for (std::size_t k = pos.size(); k-- > 0;) {
        if (++pos[k] < idx.shape[k]) break;
        pos[k] = 0;
      }
    }
    return out;
  }

  /// A buffer's elements read as another dtype of the same width, bit for bit (gather_mask's
  /// output_dtype). A half dtype's NaN pattern reads as that dtype's quiet NaN of its sign, as
  /// every read of a half element does.
  void reinterpret(const ir::Call& c, Buffer& b, DataType to) const {
    const unsigned width = core::bit_width(b.dtype);
    if (width != core::bit_width(to) || (width != 16 && width != 32))
      unsupported(c, "reinterprets only between dtypes of 16 or 32 bits, alike");
    const std::size_t n = b.size();
    std::vector<std::uint32_t> bits(n);
    for (std::size_t k = 0; k < n; ++k) {
      if (b.dtype == DataType::FP32)
        bits[k] = std::bit_cast<std::uint32_t>(b.f32[k]);
      else if (is_float_dtype(b.dtype))
        bits[k] = codegen::float_to_half(b.f32[k], half_format(b.dtype));
      else
        bits[k] = static_cast<std::uint32_t>(b.ints[k]) & (width == 32 ? 0xffffffffu : 0xffffu);
    }
    b.dtype = to;
    b.f32.assign(is_float_dtype(to) ? n : 0, 0.0f);
    b.ints.assign(is_float_dtype(to) ? 0 : n, 0);
    for (std::size_t k = 0; k < n; ++k) {
      if (to == DataType::FP32)
        b.f32[k] = std::bit_cast<float>(bits[k]);
      else if (is_float_dtype(to))
        b.f32[k] = codegen::half_to_float(static_cast<std::uint16_t>(bits[k]), half_format(to));
      else
        b.ints[k] = wrap(bits[k], to);
    }
  }

  /// tensor.gather(input, index, dim=), torch.gather's meaning: the result has the index's shape
  /// and takes input's element at the index's value on axis `dim` and its own position on every
  /// other axis.
  Value gather_along(const ir::Call& c, std::vector<Value>& args) {
    if (args.size() != 2) unsupported(c, "needs (input, index) and dim=");
    const Buffer& in = shaped(args[0], "the input");
    const Buffer& idx = shaped(args[1], "the index");
    const std::vector<std::size_t> from = positions_along(c, in, idx);
    Value out = Value::zeros(in.dtype, idx.shape, false);
    for (std::size_t j = 0; j < from.size(); ++j) {
      if (is_float_dtype(in.dtype))
        out.buffer->f32[j] = in.f32[from[j]];
      else
        out.buffer->ints[j] = in.ints[from[j]];
    }
    return out;
  }

  /// tile.ci / tensor.ci(start, shape): the first row counts from `start` up (or down, with
  /// `descending`) along the last dimension, wrapped to the integer dtype; as upstream's pto.tci
  /// it fills no other row (they stay zero).
  Value index_sequence(const ir::Call& c, const std::vector<Value>& args) const {
    const DataType dtype = c.kwargs.get<DataType>("dtype").value_or(DataType::INT32);
    if (is_float_dtype(dtype)) unsupported(c, "needs an integer dtype");
    const bool descending = c.kwargs.get<bool>("descending").value_or(false);
    const std::int64_t start = as_int(args.at(0), "the start");
    std::vector<std::int64_t> shape = as_ints(args.at(1), "the shape");
    if (shape.empty()) unsupported(c, "needs a shape of rank 1 or more");
    for (std::int64_t d : shape)
      if (d < 0) unsupported(c, "negative dimension");
    const std::int64_t cols = shape.back();
    Value out = Value::zeros(dtype, std::move(shape), c.op->id == ir::OpId::tile_ci);
    if (out.buffer->size() == 0) return out;
    for (std::int64_t k = 0; k < cols; ++k) {
      const std::uint64_t step = static_cast<std::uint64_t>(k);
      const std::uint64_t v = descending ? static_cast<std::uint64_t>(start) - step
                                         : static_cast<std::uint64_t>(start) + step;
      out.buffer->ints[static_cast<std::size_t>(k)] = wrap(v, dtype);
    }
    return out;
  }

  /// The constant extents of a result type holding `size` elements.
  std::vector<std::int64_t> static_shape(const ir::Call& c, const ir::ShapedType& t,
                                         std::size_t size) const {
    std::vector<std::int64_t> shape = static_shape(c, t);
    std::size_t n = 1;
    for (std::int64_t d : shape) n *= static_cast<std::size_t>(d);
    if (n != size) unsupported(c, "gives a result of another size than its window");
    return shape;
  }
  /// The constant extents of a result type.
  std::vector<std::int64_t> static_shape(const ir::Call& c, const ir::ShapedType& t) const {
    std::vector<std::int64_t> shape;
    for (const auto& d : t.shape) {
      const auto* k = ir::as<ir::ConstInt>(d.get());
      if (!k || k->value < 0) unsupported(c, "needs a result of constant shape");
      shape.push_back(k->value);
    }
    return shape;
  }

  /// A tile in another memory (tile.move): the same elements, in a buffer of its own.
  /// A value with storage of its own: a copy of a view views nothing.
  static Value copy(const Value& x) {
    Value out = x;
    if (x.buffer) {
      out.buffer = std::make_shared<Buffer>(*x.buffer);
      out.buffer->origin = nullptr;
    }
    return out;
  }

  /// reinterpret_view(x, dtype[, shape]): x's bytes (row-major, each element in its tensor
  /// encoding: IEEE bits, FP16 / BF16 16-bit patterns, two's-complement integers, little-endian)
  /// read as elements of `dtype` in a tile of the result's shape; the byte counts must agree.
  /// The bytes of one element of `t` in its tensor encoding, or 0 when an element is not a
  /// whole number of bytes (INT4, FP4).
  static std::size_t element_bytes(DataType t) {
    const unsigned bits = core::bit_width(t);
    if (t == DataType::BOOL) return 1;
    return bits < 8 || bits % 8 != 0 ? 0 : bits / 8;
  }

  /// `x`'s elements in their tensor encoding, little-endian (element_bytes(x.dtype) > 0).
  static std::vector<unsigned char> encode_bytes(const Buffer& x) {
    const std::size_t from = element_bytes(x.dtype);
    std::vector<unsigned char> bytes(x.size() * from);
    for (std::size_t k = 0; k < x.size(); ++k) {
      const std::uint64_t v = encoded(x, k);
      for (std::size_t b = 0; b < from; ++b) bytes[k * from + b] = (v >> (8 * b)) & 0xffu;
    }
    return bytes;
  }

  /// Element k of `x` in its tensor encoding (the low element_bytes bytes).
  static std::uint64_t encoded(const Buffer& x, std::size_t k) {
    if (x.dtype == DataType::FP32) return std::bit_cast<std::uint32_t>(x.f32[k]);
    if (const auto mini = mini_format(x.dtype)) return codegen::float_to_mini(x.f32[k], *mini);
    if (is_float_dtype(x.dtype))
      return codegen::float_to_half(x.f32[k], half_format(x.dtype), true);
    return static_cast<std::uint64_t>(x.ints[k]);
  }

  /// Sets element k of `z` to the value of its tensor encoding `v`.
  static void decode(std::uint64_t v, Buffer& z, std::size_t k) {
    const std::size_t to = element_bytes(z.dtype);
    if (z.dtype == DataType::FP32)
      z.f32[k] = std::bit_cast<float>(static_cast<std::uint32_t>(v));
    else if (const auto mini = mini_format(z.dtype))
      z.f32[k] = codegen::mini_to_float(static_cast<std::uint8_t>(v), *mini);
    else if (is_float_dtype(z.dtype))
      z.f32[k] = codegen::half_to_float(static_cast<std::uint16_t>(v), half_format(z.dtype));
    else if (z.dtype == DataType::BOOL)
      z.ints[k] = v != 0 ? 1 : 0;
    else if (core::is_signed_int(z.dtype) && to < 8 && (v >> (8 * to - 1)) != 0)
      z.ints[k] = static_cast<std::int64_t>(v | (~std::uint64_t{0} << (8 * to)));
    else
      z.ints[k] = static_cast<std::int64_t>(v);
  }

  /// Reads `z`'s elements from `bytes` (encode_bytes' layout), as many as `z` holds.
  static void decode_bytes(const unsigned char* bytes, Buffer& z) {
    const std::size_t to = element_bytes(z.dtype);
    for (std::size_t k = 0; k < z.size(); ++k) {
      std::uint64_t v = 0;
      for (std::size_t b = 0; b < to; ++b) v |= std::uint64_t{bytes[k * to + b]} << (8 * b);
      decode(v, z, k);
    }
  }

  Value reinterpret(const ir::Call& c, std::vector<Value>& args) {
    const Buffer& x = shaped(args.at(0), "the reinterpreted tile");
    Value out = allocate(*c.type, "the reinterpreted tile");
    Buffer& z = *out.buffer;
    for (DataType t : {x.dtype, z.dtype})
      if (element_bytes(t) == 0) unsupported(c, "on " + dtype_text(t) + " elements");
    if (x.size() * element_bytes(x.dtype) != z.size() * element_bytes(z.dtype))
      unsupported(c, "needs as many bytes in its result (" +
                         std::to_string(z.size() * element_bytes(z.dtype)) +
                         ") as in its operand (" +
                         std::to_string(x.size() * element_bytes(x.dtype)) + ")");
    decode_bytes(encode_bytes(x).data(), z);
    return out;
  }

  // -- views (ViewOrigin)

  /// A view's elements, fresh from the storage it views (refreshed first when a view itself).
  static void refresh_view(Buffer& b) {
    const ViewOrigin& o = *b.origin;
    Buffer& p = *o.parent;
    if (p.origin) refresh_view(p);
    if (o.bytes) {
      std::vector<unsigned char> bytes(p.ints.begin(), p.ints.end());
      decode_bytes(bytes.data(), b);
      return;
    }
    std::vector<std::int64_t> scratch;
    for_box(p.shape, o.offset, o.extent, [&](std::size_t at, std::size_t j) {
      j = view_index(o, j, scratch);
      if (is_float_dtype(b.dtype))
        b.f32[j] = p.f32[at];
      else
        b.ints[j] = p.ints[at];
    });
  }

  /// The view's index of element j of its box in the parent (row-major over the extent): j, or
  /// with two axes swapped, j's coordinates swapped and laid out over the swapped extent.
  static std::size_t view_index(const ViewOrigin& o, std::size_t j,
                                std::vector<std::int64_t>& coord) {
    if (o.swapped[0] < 0) return j;
    const std::size_t rank = o.extent.size();
    coord.assign(rank, 0);
    for (std::size_t d = rank; d-- > 0;) {
      const auto e = static_cast<std::size_t>(o.extent[d]);
      coord[d] = static_cast<std::int64_t>(j % e);
      j /= e;
    }
    const auto a = static_cast<std::size_t>(o.swapped[0]),
               b = static_cast<std::size_t>(o.swapped[1]);
    auto from = [&](std::size_t d) { return d == a ? b : d == b ? a : d; };  // the view's axis d
    std::size_t v = 0;
    for (std::size_t d = 0; d < rank; ++d)
      v = v * static_cast<std::size_t>(o.extent[from(d)]) +
          static_cast<std::size_t>(coord[from(d)]);
    return v;
  }

  /// Writes a view's elements into the storage it views, and on up when that is a view too.
  static void write_back_view(const Buffer& b) {
    const ViewOrigin& o = *b.origin;
    Buffer& p = *o.parent;
    if (o.bytes) {
      const std::vector<unsigned char> bytes = encode_bytes(b);
      std::copy(bytes.begin(), bytes.end(), p.ints.begin());
    } else {
      std::vector<std::int64_t> scratch;
      for_box(p.shape, o.offset, o.extent, [&](std::size_t at, std::size_t j) {
        j = view_index(o, j, scratch);
        if (is_float_dtype(b.dtype))
          p.f32[at] = b.f32[j];
        else
          p.ints[at] = b.ints[j];
      });
    }
    if (p.origin) write_back_view(p);
  }

  static codegen::HalfFormat half_format(DataType t) {
    return t == DataType::BF16 ? codegen::HalfFormat::BF16 : codegen::HalfFormat::FP16;
  }

  // -- cross-core pipes and the split AIV lanes

  MixedTask& pipe_task(const ir::Call& c) const {
    MixedTask* task = MixedTask::current();
    if (!task)
      unsupported(c,
                  "runs outside a mixed task (consecutive calls of a Group's AIC and AIV "
                  "members): no member is at the other end of its pipe");
    return *task;
  }

  /// tpop_from_aic / tpop_from_aiv: the oldest tile of the pipe, with the valid extents the
  /// pop's type declares, else those it was pushed with. The reference runs one full-width AIV
  /// lane (upstream halves a split kernel into two lanes computing the same elements), so a pop
  /// typed as a lane's half of the pushed tile is refused.
  Value pop(const ir::Call& c) {
    const bool to_aiv = c.op->id == ir::OpId::tile_tpop_from_aic;
    Value out = pipe_task(c).pop(to_aiv ? PipeDirection::ToAiv : PipeDirection::ToAic,
                                 c.kwargs.get<std::int64_t>("id").value_or(0), c.op->name);
    // Without shape keywords the pop's type is its variable's annotation.
    const ir::Type* type = c.type.get();
    if (ir::isa<ir::UnknownType>(*type) && assigned_ && assigned_->value.get() == &c)
      type = assigned_->var->type.get();
    const Value typed = allocate(*type, "the popped tile");
    if (typed.buffer->shape != out.buffer->shape || typed.dtype != out.dtype)
      unsupported(c, "pops a " + typed_shape_text(typed) + " tile where a " +
                         typed_shape_text(out) +
                         " one was pushed (one full-width AIV lane runs here: a per-lane half "
                         "is not popped)");
    out.kind = ValueKind::Tile;
    const auto* t = ir::as<ir::TileType>(type);
    if (t && t->tile_view && t->tile_view->valid_shape.size() == out.buffer->shape.size()) {
      std::vector<std::int64_t> valid;
      for (std::size_t k = 0; k < out.buffer->shape.size(); ++k)
        valid.push_back(
            std::clamp<std::int64_t>(as_int(eval(*t->tile_view->valid_shape[k]), "a valid extent"),
                                     0, out.buffer->shape[k]));
      out.buffer->valid = std::move(valid);
    }
    return out;
  }

  static std::string typed_shape_text(const Value& v) {
    return std::string(core::dtype_name(v.dtype)) + " " + runtime::shape_text(v.buffer->shape);
  }

  /// The split axis of a cross-core split code (1 / 3 up-down: rows; 2 / 4 left-right:
  /// columns), for a 2-D operand; 0 (no split) is nullopt.
  std::optional<std::size_t> split_axis(const ir::Call& c, const Buffer& b) const {
    const std::int64_t split = c.kwargs.get<std::int64_t>("split").value_or(0);
    if (split == 0) return std::nullopt;
    if (split < 0 || split > 4 || b.shape.size() != 2)
      unsupported(c, "needs a split code of 0 to 4 and a 2-D operand");
    return split == 1 || split == 3 ? 0 : 1;
  }

  /// aiv_shard(x): the running lane's part of x: a box of ceil(extent / 2) along the split axis
  /// from lane * stride (`lane_stride`, else the box), zero past x's end; its valid extent along
  /// the axis is lane 0: min(v, stride), lane 1: min(max(v - stride, 0), stride).
  Value aiv_shard(const ir::Call& c, std::vector<Value>& args) {
    const Buffer& x = shaped(args.at(0), "the sharded tile");
    const std::optional<std::size_t> axis = split_axis(c, x);
    if (!axis) return copy(args[0]);
    const std::int64_t size = x.shape[*axis], box = (size + 1) / 2;
    const std::int64_t given = c.kwargs.get<std::int64_t>("lane_stride").value_or(0);
    const std::int64_t stride = given > 0 ? given : box;
    if (stride > box) unsupported(c, "has a lane_stride beyond the lane's box");
    if (subblock_idx_ > 1) unsupported(c, "runs in a lane other than 0 and 1");
    Value out = allocate(*c.type, "the lane's part");
    Buffer& z = *out.buffer;
    if (z.shape.size() != 2 || z.shape[*axis] != box || z.shape[1 - *axis] != x.shape[1 - *axis])
      unsupported(c, "has a result type that is not the lane's box");
    const std::int64_t from = subblock_idx_ * stride;
    for (std::int64_t r = 0; r < z.shape[0]; ++r)
      for (std::int64_t j = 0; j < z.shape[1]; ++j) {
        const std::int64_t sr = *axis == 0 ? from + r : r, sj = *axis == 1 ? from + j : j;
        if (sr >= x.shape[0] || sj >= x.shape[1]) continue;
        const std::size_t to = static_cast<std::size_t>(r * z.shape[1] + j),
                          at = static_cast<std::size_t>(sr * x.shape[1] + sj);
        if (is_float_dtype(x.dtype))
          z.f32[to] = x.f32[at];
        else
          z.ints[to] = x.ints[at];
      }
    std::vector<std::int64_t> valid = valid_extents(*c.args[0], x);
    const std::int64_t v = valid[*axis];
    valid[*axis] = subblock_idx_ == 0 ? std::min(v, stride)
                                      : std::min(std::max<std::int64_t>(v - stride, 0), stride);
    if (valid != z.shape) z.valid = std::move(valid);
    return out;
  }

  /// aic_gather(x) in lane L of a split-AIV region: x becomes part L of one tile of twice its
  /// extent along the split axis, which lane 0 starts and each later lane fills further; its
  /// valid extent along the axis is the lanes' sum.
  Value aic_gather(const ir::Call& c, std::vector<Value>& args) {
    const Buffer& x = shaped(args.at(0), "the gathered tile");
    const std::optional<std::size_t> axis = split_axis(c, x);
    if (!axis) return copy(args[0]);
    Value& out = gathered_[&c];
    if (subblock_idx_ == 0 || !out.buffer) out = allocate(*c.type, "the gathered tile");
    Buffer& z = *out.buffer;
    if (z.shape.size() != 2 || z.shape[*axis] != 2 * x.shape[*axis] ||
        z.shape[1 - *axis] != x.shape[1 - *axis])
      unsupported(c, "has a result type that is not twice its operand along the split axis");
    if (subblock_idx_ > 1) unsupported(c, "runs in a lane other than 0 and 1");
    const std::int64_t from = subblock_idx_ * x.shape[*axis];
    for (std::int64_t r = 0; r < x.shape[0]; ++r)
      for (std::int64_t j = 0; j < x.shape[1]; ++j) {
        const std::int64_t zr = *axis == 0 ? from + r : r, zj = *axis == 1 ? from + j : j;
        const std::size_t to = static_cast<std::size_t>(zr * z.shape[1] + zj),
                          at = static_cast<std::size_t>(r * x.shape[1] + j);
        if (is_float_dtype(x.dtype))
          z.f32[to] = x.f32[at];
        else
          z.ints[to] = x.ints[at];
      }
    const std::vector<std::int64_t> part = valid_extents(*c.args[0], x);
    if (subblock_idx_ == 0 || z.valid.empty()) {
      z.valid = part;  // lane 0's part alone
    } else {
      z.valid[*axis] += part[*axis];
      if (z.valid == z.shape) z.valid.clear();
    }
    return out;
  }

  /// tile.transpose_view (the last two dimensions swapped) and tile / tensor.transpose(x,
  /// axis1, axis2) (those two swapped; a negative axis counts from the end): a copy with the
  /// elements moved.
  Value transpose(const ir::Call& c, const std::vector<Value>& args) const {
    const Buffer& x = shaped(args.at(0), "the operand");
    const auto rank = static_cast<std::int64_t>(x.shape.size());
    auto axis = [&](std::size_t i) {
      std::int64_t a = as_int(args.at(i), "the axis");
      if (a < 0) a += rank;
      if (a < 0 || a >= rank) unsupported(c, "axis out of range for rank " + std::to_string(rank));
      return static_cast<std::size_t>(a);
    };
    if (rank < 2) unsupported(c, "needs an operand of rank 2 or more");
    const bool view = c.op->id == ir::OpId::tile_transpose_view;
    const std::size_t a1 = view ? x.shape.size() - 2 : axis(1);
    const std::size_t a2 = view ? x.shape.size() - 1 : axis(2);
    std::vector<std::int64_t> shape = x.shape;
    std::swap(shape[a1], shape[a2]);
    Value out = Value::zeros(x.dtype, shape, args[0].kind == ValueKind::Tile);
    std::vector<std::int64_t> pos(shape.size(), 0);  // an index of the result
    for (std::size_t j = 0; j < out.buffer->size(); ++j) {
      std::size_t from = 0;
      std::vector<std::int64_t> src = pos;
      std::swap(src[a1], src[a2]);
      for (std::size_t k = 0; k < src.size(); ++k)
        from = from * static_cast<std::size_t>(x.shape[k]) + static_cast<std::size_t>(src[k]);
      if (is_float_dtype(x.dtype))
        out.buffer->f32[j] = x.f32[from];
      else
        out.buffer->ints[j] = x.ints[from];
      for (std::size_t k = shape.size(); k-- > 0;) {
        if (++pos[k] < shape[k]) break;
        pos[k] = 0;
      }
    }
    if (c.op->id == ir::OpId::tensor_transpose)  // the same elements, two axes swapped
      out.buffer->origin = std::make_shared<const ViewOrigin>(
          ViewOrigin{args[0].buffer,
                     std::vector<std::int64_t>(x.shape.size(), 0),
                     x.shape,
                     false,
                     {static_cast<std::int64_t>(a1), static_cast<std::int64_t>(a2)}});
    return out;
  }

  /// matmul and batch_matmul, tile and tensor, and their _acc forms: [..., M, K] x [..., K, N]
  /// -> [..., M, N], the leading (batch) dimensions broadcast; `a_trans` / `b_trans` read an
  /// operand's last two dimensions swapped. Each element is the products in increasing k,
  /// summed from the first product, each step rounded to binary32 (kernel/spec.hpp, Matmul;
  /// FP16 / BF16 products are exact there); an _acc form then adds the sum to the
  /// accumulator's element (acc + sum, upstream's definition), or takes the sum alone where
  /// `init_cond` holds. The result is rounded once to the call's dtype.
  Value matmul(const ir::Call& c, const std::vector<Value>& args, bool accumulate,
               const Value* bias = nullptr) const {
    const std::size_t first = accumulate ? 1 : 0;
    const Buffer& a = shaped(args.at(first), "lhs");
    const Buffer& b = shaped(args.at(first + 1), "rhs");
    const auto* result_type = ir::as<ir::ShapedType>(c.type.get());
    if (!is_float_dtype(a.dtype) || !is_float_dtype(b.dtype) || !result_type ||
        !is_float_dtype(result_type->dtype))
      unsupported(c, "needs float operands and a float result");
    if (a.shape.size() < 2 || b.shape.size() < 2)
      unsupported(c, "needs operands of rank 2 or more");
    const bool at = c.kwargs.get<bool>("a_trans").value_or(false);
    const bool bt = c.kwargs.get<bool>("b_trans").value_or(false);
    const std::size_t ra = a.shape.size(), rb = b.shape.size();
    const std::int64_t m = a.shape[ra - (at ? 1 : 2)], k = a.shape[ra - (at ? 2 : 1)];
    const std::int64_t n = b.shape[rb - (bt ? 2 : 1)];
    if (b.shape[rb - (bt ? 1 : 2)] != k || k < 1)
      unsupported(c, "needs [M, K] x [K, N] with K >= 1");
    const std::size_t batch_rank = std::max(ra, rb) - 2;
    std::vector<std::int64_t> batch(batch_rank, 1), shape;
    auto batch_dim = [&](const Buffer& x, std::size_t i) {  // i-th batch dim, right-aligned
      const std::size_t lead = x.shape.size() - 2;
      return i + lead >= batch_rank ? x.shape[i + lead - batch_rank] : std::int64_t{1};
    };
    for (std::size_t i = 0; i < batch_rank; ++i) {
      const std::int64_t da = batch_dim(a, i), db = batch_dim(b, i);
      if (da != db && da != 1 && db != 1) unsupported(c, "batch dimensions do not broadcast");
      batch[i] = da == 1 ? db : da;
    }
    shape = batch;
    shape.push_back(m);
    shape.push_back(n);
    const DataType dtype = result_type->dtype;
    // A gemv's result is a whole fractal of 16 rows of which row 0 is the product (its type
    // says so); the other rows are zero (gemv) or the accumulator's (gemv_acc).
    const bool gemv = c.op->id == ir::OpId::tile_gemv || c.op->id == ir::OpId::tile_gemv_bias ||
                      c.op->id == ir::OpId::tile_gemv_acc;
    if (gemv && (m != 1 || batch_rank)) unsupported(c, "needs a [1, K] row vector");
    const Buffer* acc = accumulate ? &shaped(args.at(0), "the accumulator") : nullptr;
    if (gemv) shape[0] = acc && !acc->shape.empty() && acc->shape[0] == 1 ? 1 : 16;
    if (accumulate) {
      if (acc->shape != shape || !is_float_dtype(acc->dtype))
        unsupported(c, "needs a float accumulator of the result's shape");
    }
    const bool init = accumulate && args.size() > 3 && as_bool(args[3], "init_cond");
    const Buffer* bias_buffer = bias ? &shaped(*bias, "the bias") : nullptr;
    if (bias_buffer && (!is_float_dtype(bias_buffer->dtype) || bias_buffer->shape.size() != 2 ||
                        bias_buffer->shape[0] != 1 || bias_buffer->shape[1] != n || batch_rank))
      unsupported(c, "needs a float [1, N] bias of a 2-D product");
    Value out = Value::zeros(dtype, shape, args[first].kind == ValueKind::Tile);
    if (gemv && acc)
      for (std::size_t o = 0; o < acc->f32.size(); ++o)
        out.buffer->f32[o] = rounded(dtype, acc->f32[o]);
    std::size_t batches = 1;
    for (std::int64_t d : batch) batches *= static_cast<std::size_t>(d);
    std::vector<std::int64_t> pos(batch_rank, 0);
    const auto mk = static_cast<std::size_t>(m * k), kn = static_cast<std::size_t>(k * n);
    for (std::size_t q = 0; q < batches; ++q) {
      std::size_t ao = 0, bo = 0;  // the operands' matrix indices for this batch index
      for (std::size_t i = 0; i < batch_rank; ++i) {
        const std::int64_t da = batch_dim(a, i), db = batch_dim(b, i);
        if (i + a.shape.size() - 2 >= batch_rank)
          ao = ao * static_cast<std::size_t>(da) + static_cast<std::size_t>(da == 1 ? 0 : pos[i]);
        if (i + b.shape.size() - 2 >= batch_rank)
          bo = bo * static_cast<std::size_t>(db) + static_cast<std::size_t>(db == 1 ? 0 : pos[i]);
      }
      // Row by row, k outermost: each element still sums its products in increasing k from
      // the first, and the operands are read along their rows.
      std::vector<float> sums(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t p = 0; p < k; ++p) {
          const float x = a.f32[ao * mk + static_cast<std::size_t>(at ? p * m + i : i * k + p)];
          for (std::int64_t j = 0; j < n; ++j) {
            const float y = b.f32[bo * kn + static_cast<std::size_t>(bt ? j * k + p : p * n + j)];
            const float product = strict(x * y);
            float& sum = sums[static_cast<std::size_t>(j)];
            sum = p == 0 ? product : strict(sum + product);
          }
        }
        for (std::int64_t j = 0; j < n; ++j) {
          float sum = sums[static_cast<std::size_t>(j)];
          const std::size_t o =
              q * static_cast<std::size_t>(m * n) + static_cast<std::size_t>(i * n + j);
          if (acc && !init) sum = strict(acc->f32[o] + sum);
          if (bias_buffer) sum = strict(sum + bias_buffer->f32[static_cast<std::size_t>(j)]);
          out.buffer->f32[o] = rounded(dtype, sum);
        }
      }
      for (std::size_t i = batch_rank; i-- > 0;) {
        if (++pos[i] < batch[i]) break;
        pos[i] = 0;
      }
    }
    return out;
  }

  /// tile.matmul_mx (`_acc`, `_bias`): each operand element scaled by the E8M0 scale of its
  /// group of 32 along K, then matmul's FP32 product of the scaled operands (the scaled values
  /// and their products are exact). The scale tiles hold the order the device's scale buffers
  /// do, upstream's MX_A_ZZ and MX_B_NN: the lhs scales [M, K/32] in blocks of 16 rows x 2
  /// groups, the rhs scales [K/32, N] in blocks of 16 columns x 2 groups (each column's two
  /// groups side by side), the blocks row-major.
  Value matmul_mx(const ir::Call& c, const std::vector<Value>& args) const {
    const bool acc = c.op->id == ir::OpId::tile_matmul_mx_acc;
    const std::size_t first = acc ? 1 : 0;
    const Buffer& a = shaped(args.at(first), "lhs");
    const Buffer& sa = shaped(args.at(first + 1), "lhs_scale");
    const Buffer& b = shaped(args.at(first + 2), "rhs");
    const Buffer& sb = shaped(args.at(first + 3), "rhs_scale");
    if (a.shape.size() != 2 || b.shape.size() != 2 || a.shape[1] != b.shape[0] ||
        a.shape[0] % 16 != 0 || b.shape[1] % 16 != 0 || a.shape[1] % 64 != 0)
      unsupported(c, "needs [M, K] x [K, N] tiles with M and N multiples of 16, K of 64");
    const std::int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1], groups = k / 32;
    if (sa.shape != std::vector<std::int64_t>{m, groups} ||
        sb.shape != std::vector<std::int64_t>{groups, n})
      unsupported(c, "needs scales of [M, K/32] and [K/32, N]");
    auto packed = [&](std::int64_t row_or_col, std::int64_t g) {  // ZZ / NN: one formula
      return static_cast<std::size_t>(((row_or_col / 16) * (groups / 2) + g / 2) * 32 +
                                      (row_or_col % 16) * 2 + g % 2);
    };
    Value sa_scaled = Value::zeros(DataType::FP32, a.shape, true);
    Value sb_scaled = Value::zeros(DataType::FP32, b.shape, true);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t p = 0; p < k; ++p)
        sa_scaled.buffer->f32[static_cast<std::size_t>(i * k + p)] =
            strict(a.f32[static_cast<std::size_t>(i * k + p)] * sa.f32[packed(i, p / 32)]);
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t j = 0; j < n; ++j)
        sb_scaled.buffer->f32[static_cast<std::size_t>(p * n + j)] =
            strict(b.f32[static_cast<std::size_t>(p * n + j)] * sb.f32[packed(j, p / 32)]);
    std::vector<Value> operands;
    if (acc) operands.push_back(args[0]);
    operands.push_back(std::move(sa_scaled));
    operands.push_back(std::move(sb_scaled));
    return matmul(c, operands, acc,
                  c.op->id == ir::OpId::tile_matmul_mx_bias ? &args.at(4) : nullptr);
  }

  const ir::Program& program_;
  const RunOptions* options_ = nullptr;
  std::uint64_t executed_ = 0;  // statements executed, against options_->max_statements
  Frame* frame_ = nullptr;
  Where where_;
  std::size_t depth_ = 0;
  std::int64_t block_idx_ = 0;
  std::int64_t block_num_ = 1;
  std::int64_t subblock_idx_ = 0;
  // aic_gather's tile in the split-AIV region running now, by call: each lane adds its part
  std::unordered_map<const ir::Call*, Value> gathered_;  // lookup only: never iterated
  const ir::AssignStmt* assigned_ = nullptr;  // the assignment executing (a pop's annotation)
  std::int64_t next_task_id_ = 0;
  std::int64_t anonymous_task_ = -1;          // ids of tasks without `as tid`: -2, -3, ...
  std::optional<std::int64_t> running_task_;  // the task running now (none: orchestration)
  std::map<std::int64_t, std::vector<Condition>> deferred_;  // conditions not yet seen to hold
  std::vector<Postponed> postponed_;                         // in program order
  std::map<std::string, bool, std::less<>> syncs_;   // by function name: it may reach a syncall
  std::map<std::string, bool, std::less<>> defers_;  // by function name: it may reach a defer_wait
  std::map<std::string, std::string, std::less<>> distributed_ops_;  // distributed_op, by name
  std::unique_ptr<transforms::ReturnLineage> lineage_;  // a skipped task's results, made once

  // -- a world of several ranks (RunOptions::world_size > 1)

  std::shared_ptr<World> world_;                  // null in a world of one rank
  std::int64_t rank_ = -1;                        // the rank this runs, -1 on the host
  MixedTask* world_task_ = nullptr;               // the ranks' task, while they run
  std::vector<std::vector<DeviceCall>> devices_;  // the host's calls not yet run, by device
  const Frame* devices_frame_ = nullptr;          // the frame that made them
};

}  // namespace detail

PYPTO_DECL RankPort* RankPort::current() { return detail::current_rank_port(); }

PYPTO_DECL std::vector<Value> run(const ir::Program& program, std::string_view function,
                                  std::vector<Value> args, const RunOptions& options) {
  ir::FunctionRef fn = program.find(function);
  if (!fn) throw RuntimeError("interpreter: no function '" + std::string(function) + "'");
  if (args.size() != fn->params.size())
    throw RuntimeError("interpreter: " + fn->name + " takes " + std::to_string(fn->params.size()) +
                       " arguments, got " + std::to_string(args.size()));
  return detail::Interpreter(program, &options).call(*fn, std::move(args));
}

PYPTO_DECL std::vector<Value> run(const ir::Program& program, std::string_view function,
                                  std::vector<Value> args) {
  return run(program, function, std::move(args), RunOptions{});
}

}  // namespace pypto::runtime

// pypto/codegen/kernel_codegen.hpp — lowers one kernel (an InCore / AIC / AIV function in tile
// form, after convert-tensor-to-tile-ops) to target source (issue 8, "Kernel code").
//
// codegen_kernel<T>(fn) is one template for every target; T's traits print each construct.
// Parameters are unpacked in the task-parameter order (tensors first, then scalars); symbolic
// dims of tensor parameters are read from the runtime shapes. Scalar code (integer wrap, Python
// floor division, strict FP32) becomes one named C++ local per op; loops, whiles and ifs become
// C++ control flow over carry variables that each yield assigns (a tensor carry is the tensor
// itself: stores write it in place); tile.load / tile.store / tile.full / tile.cast /
// tile.matmul, integer elementwise tile ops and tensor.read / tensor.write / tensor.dim print
// through the traits. Each maximal run of FP32 elementwise and row-reduction tile ops is a
// region lowered through the kernel expression IR (see "regions" below): one kernel::Spec per
// materialized value, canonicalized and printed by spec_emitter.hpp. Nested tile calls
// (`pl.store(pl.mul(t, 2.0), ...)`) are lowered first, as if bound to a variable.
//
// Every name is numbered in order of appearance (t<k> tensors, s<k> scalars, v<k> tiles) and the
// source holds nothing else of the function, so alpha-equivalent kernels, and kernels whose
// regions canonicalize alike, print byte-identical source. What the target cannot express —
// an op, dtype, memory space or rank it lacks, a tile over its space's capacity, pre-SSA loop
// carries, a broadcast between tiles of different shapes — is a CodegenError naming the kernel,
// the op and line:column, never partial output. O(body + region values x inlined DAG size).
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
#include "pypto/codegen/kernel_source.hpp"
#include "pypto/codegen/spec_emitter.hpp"
#include "pypto/codegen/target_traits.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/kernel/canonicalize.hpp"
#include "pypto/kernel/regalloc.hpp"
#include "pypto/kernel/ssa.hpp"
#include "pypto/kernel/validate.hpp"

namespace pypto::codegen {

namespace detail::kernel_codegen {

/// The kernel::Op of a fusible FP32 tile op, or nullopt.
inline std::optional<kernel::Op> spec_op(std::string_view name) {
  static constexpr std::pair<std::string_view, kernel::Op> kTable[] = {
      {"tile.add", kernel::Op::Add},       {"tile.sub", kernel::Op::Sub},
      {"tile.mul", kernel::Op::Mul},       {"tile.div", kernel::Op::Div},
      {"tile.max", kernel::Op::Max},       {"tile.min", kernel::Op::Min},
      {"tile.neg", kernel::Op::Neg},       {"tile.abs", kernel::Op::Abs},
      {"tile.exp", kernel::Op::Exp},       {"tile.sqrt", kernel::Op::Sqrt},
      {"tile.rsqrt", kernel::Op::Rsqrt},   {"tile.row_sum", kernel::Op::RowSum},
      {"tile.row_max", kernel::Op::RowMax}};
  for (const auto& [n, op] : kTable)
    if (n == name) return op;
  return std::nullopt;
}

/// A value of the kernel as the generated code holds it.
struct Value {
  enum class Kind : std::uint8_t { Scalar, Tensor, Tile } kind = Kind::Scalar;
  std::string expr;  ///< a scalar's C++ expression
  core::DataType dtype = core::DataType::INDEX;
  TensorRef tensor;
  TileRef tile;
};

template <TargetTraits T>
class Lowering {
 public:
  explicit Lowering(const ir::Function& fn) : fn_(fn) {}

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
    return out;
  }

 private:
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

  std::string_view scalar_type(core::DataType t, const ir::Span* span) const {
    const std::string_view s = T::scalar_type(t);
    if (s.empty())
      fail(span, "", "a scalar of dtype " + std::string(core::dtype_name(t)) + " has no type");
    return s;
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
    const ir::MemorySpace space = ms.value_or(T::default_memory(core_));
    const MemorySpaceInfo* info = T::memory_space(space);
    if (!info)
      fail_at(c, "places a tile in memory space " + std::string(ir::enum_name(space)) +
                     ", which the target does not have");
    if (dims.size() > T::max_tile_rank)
      fail_at(c, "makes a rank-" + std::to_string(dims.size()) + " tile; the target holds rank " +
                     std::to_string(T::max_tile_rank) + " at most");
    if (T::element_type(dtype).empty())
      fail_at(c, "makes a tile of dtype " + std::string(core::dtype_name(dtype)) +
                     ", which the target does not store");
    TileRef t{new_tile_name(), dtype, space, std::move(dims)};
    const Dim r = tile_rows(t), cl = tile_cols(t);
    if (info->capacity_bytes && r.value && cl.value) {
      const std::uint64_t bytes = static_cast<std::uint64_t>(*r.value) *
                                  static_cast<std::uint64_t>(*cl.value) *
                                  std::max<unsigned>(1, core::bit_width(dtype) / 8);
      if (bytes > info->capacity_bytes)
        fail_at(c, "makes a tile of " + std::to_string(bytes) + " bytes, over the " +
                       std::to_string(info->capacity_bytes) + " bytes of " +
                       std::string(info->name));
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
        const auto& c = static_cast<const ir::ConstFloat&>(e);
        if (c.dtype() != core::DataType::FP32)
          fail(span, "",
               "a " + std::string(core::dtype_name(c.dtype())) +
                   " constant is not supported (FP32 only)");
        return T::float_literal(kernel::float_bits(static_cast<float>(c.value)));
      }
      case K::ConstBool: return static_cast<const ir::ConstBool&>(e).value ? "true" : "false";
      case K::Call: return scalar_call(static_cast<const ir::Call&>(e));
      case K::Cast: {
        const auto& c = static_cast<const ir::Cast&>(e);
        const std::string a = scalar(*c.operand);
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
      const bool fp = lt->dtype == core::DataType::FP32;
      auto call = [&](std::string_view f) {
        return "pk::" + std::string(f) + "(" + l + ", " + r + ")";
      };
      std::string x;
      switch (e.kind()) {
        case K::Add: x = call("add"); break;
        case K::Sub: x = call("sub"); break;
        case K::Mul: x = call("mul"); break;
        case K::FloatDiv:
          if (!fp) fail(span, "", "'/' on integers is not supported");
          x = call("fdiv");
          break;
        case K::FloorDiv: x = call("floordiv"); break;
        case K::FloorMod: x = call("floormod"); break;
        case K::Min: x = call("min"); break;
        case K::Max: x = call("max"); break;
        case K::Pow: x = call("pow"); break;
        case K::Eq: x = l + " == " + r; break;
        case K::Ne: x = l + " != " + r; break;
        case K::Lt: x = l + " < " + r; break;
        case K::Le: x = l + " <= " + r; break;
        case K::Gt: x = l + " > " + r; break;
        case K::Ge: x = l + " >= " + r; break;
        case K::And: x = l + " && " + r; break;
        case K::Or: x = l + " || " + r; break;
        case K::Xor: x = l + " != " + r; break;
        case K::BitAnd:
          x = "static_cast<" + std::string(scalar_type(st->dtype, span)) + ">(" + l + " & " + r +
              ")";
          break;
        case K::BitOr:
          x = "static_cast<" + std::string(scalar_type(st->dtype, span)) + ">(" + l + " | " + r +
              ")";
          break;
        case K::BitXor:
          x = "static_cast<" + std::string(scalar_type(st->dtype, span)) + ">(" + l + " ^ " + r +
              ")";
          break;
        case K::BitShiftLeft: x = call("shl"); break;
        case K::BitShiftRight: x = call("shr"); break;
        default:
          fail(span, "", "scalar " + std::string(ir::kind_name(e.kind())) + " is not supported");
      }
      return define(st->dtype, x, span);
    }
    if (ir::kinds::unary.contains(e.kind())) {
      const std::string a = scalar(*static_cast<const ir::UnaryExpr&>(e).operand);
      switch (e.kind()) {
        case K::Neg: return define(st->dtype, "pk::neg(" + a + ")", span);
        case K::Abs: return define(st->dtype, "pk::abs(" + a + ")", span);
        case K::Not: return define(st->dtype, "!" + a, span);
        case K::BitNot: return define(st->dtype, "pk::bitnot(" + a + ")", span);
        default: break;
      }
    }
    fail(span, "", "a " + std::string(ir::kind_name(e.kind())) + " is not supported in a kernel");
  }

  /// `const T s<k> = text;` and its name.
  std::string define(core::DataType t, const std::string& text, const ir::Span* span) {
    const std::string name = new_scalar_name();
    line("const " + std::string(scalar_type(t, span)) + " " + name + " = " + text + ";\n");
    return name;
  }

  std::string scalar_call(const ir::Call& c) {
    const std::string& op = c.op->name;
    if (op == "tensor.dim") {
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
    if (op == "tile.get_block_idx") return define(core::DataType::INDEX, T::block_idx(), &c.span);
    if (op == "tensor.read") {
      const Value& t = tensor_of(c, c.args.at(0));
      const std::string at = flat_index(c, t, c.args.at(1));
      return define(t.tensor.dtype, t.tensor.data + "[" + at + "]", &c.span);
    }
    fail_at(c, "is not supported by the kernel code generator");
  }

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
        if (c && (c->op->name == "tile.store" || c->op->name == "tensor.write")) {
          hoist_args(*c, s);
          flush();
          stmt_ = &s;
          if (c->op->name == "tile.store")
            store(*c);
          else
            write(*c);
          return;
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
          const auto* var = ir::as<ir::Var>(v.get());
          if (!var || lookup(*var).kind != Value::Kind::Tensor)
            fail_stmt("a return",
                      "of a scalar or tile value is not supported (a kernel returns "
                      "the tensors it wrote)");
        }
        if (depth_ > 1) line("return;\n");
        return;
      }
      case K::BreakStmt:
      case K::ContinueStmt:
        flush();
        if (!loop_carries_.empty() && loop_carries_.back())
          fail_stmt(s.kind() == K::BreakStmt ? "a break" : "a continue",
                    "in a loop with carries is not supported");
        line(s.kind() == K::BreakStmt ? "break;\n" : "continue;\n");
        return;
      default:
        fail_stmt("a " + std::string(ir::kind_name(s.kind())), "is not supported in a kernel");
    }
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
    if (!ir::isa<ir::ScalarType>(*var.type))
      fail_stmt("an assignment", "of a non-scalar value is not supported");
    const std::string x = scalar(*a.value);
    env_[&var] = scalar_value(x, scalar_dtype(var));
  }

  /// Nested tile calls (`pl.store(pl.mul(t, 2.0), ...)`) are lowered first, each bound to a
  /// fresh variable that stands for the call wherever it is an operand (as_var).
  void hoist_args(const ir::Call& c, const ir::Stmt& s) {
    for (const auto& arg : c.args) {
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

  /// The variable `e` is, or that stands for a hoisted call; null otherwise.
  const ir::Var* as_var(const ir::ExprRef& e) const {
    if (const auto* v = ir::as<ir::Var>(e.get())) return v;
    if (const auto* c = ir::as<ir::Call>(e.get()))
      if (auto it = synthetic_.find(c); it != synthetic_.end()) return it->second;
    return nullptr;
  }

  void assign_call(const ir::Var& var, const ir::Call& c, const ir::Stmt& s) {
    if (fusible(c)) {
      region_.push_back({&var, &c, &s});
      return;
    }
    flush();
    stmt_ = &s;
    const std::string& op = c.op->name;
    if (op == "tile.load") return load(var, c);
    if (op == "tile.store") {
      env_[&var] = store(c);
      return;
    }
    if (op == "tile.full") return full(var, c);
    if (op == "tensor.write") {
      env_[&var] = write(c);
      return;
    }
    if (op == "tile.cast") return cast(var, c);
    if (op == "tile.matmul") return matmul(var, c);
    if (ir::isa<ir::GlobalVar>(*c.op))
      fail_at(c, "calls another function, which a kernel cannot do");
    if (ir::isa<ir::ScalarType>(*var.type)) {
      env_[&var] = scalar_value(scalar_call(c), scalar_dtype(var));
      return;
    }
    if (spec_op(op)) return integer_elementwise(var, c, *spec_op(op));
    fail_at(c, "is not supported by the kernel code generator");
  }

  /// An elementwise op on integer tiles, one target instruction (the kernel expression IR is
  /// FP32 only): add, sub, mul, max, min with a tile or scalar second operand; neg, abs.
  void integer_elementwise(const ir::Var& var, const ir::Call& c, kernel::Op op) {
    const auto* tt = ir::as<ir::TileType>(c.type.get());
    const bool supported = op == kernel::Op::Add || op == kernel::Op::Sub ||
                           op == kernel::Op::Mul || op == kernel::Op::Max ||
                           op == kernel::Op::Min || op == kernel::Op::Neg || op == kernel::Op::Abs;
    if (!tt || !core::is_int(tt->dtype) || !supported)
      fail_at(c, "on " + dtype_text(c) + " tiles is not supported");
    const TileRef a = tile_of(c, c.args.at(0)).tile;
    std::string b;
    bool b_scalar = false;
    if (kernel::arity(op) == 2) {
      const ir::ExprRef& rhs = c.args.at(1);
      if (ir::isa<ir::TileType>(*rhs->type)) {
        const TileRef& bt = tile_of(c, rhs).tile;
        if (bt.dtype != a.dtype) fail_at(c, "needs operands of one dtype");
        b = bt.name;
      } else {
        b = scalar(*rhs);
        b_scalar = true;
      }
    }
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt->dtype, tt->memory_space, a.dims);
    line(T::tile_elementwise(op, out.tile, a, b, b_scalar));
    env_[&var] = std::move(out);
  }

  static core::DataType scalar_dtype(const ir::Var& v) {
    return static_cast<const ir::ScalarType&>(*v.type).dtype;
  }
  static std::string dtype_text(const ir::Call& c) {
    const auto* t = ir::as<ir::ShapedType>(c.type.get());
    return t ? std::string(core::dtype_name(t->dtype)) : "non-tile";
  }

  bool fusible(const ir::Call& c) const {
    const auto op = spec_op(c.op->name);
    if (!op) return false;
    const auto* t = ir::as<ir::TileType>(c.type.get());
    if (!t || t->dtype != core::DataType::FP32) return false;
    for (const auto& arg : c.args) {
      const auto* at = ir::as<ir::ShapedType>(arg->type.get());
      if (at && at->dtype != core::DataType::FP32) return false;
    }
    return true;
  }

  void load(const ir::Var& var, const ir::Call& c) {
    if (c.args.size() != 3) fail_at(c, "with a valid_shape is not supported");
    const Value& src = tensor_of(c, c.args[0]);
    const std::vector<std::string> offsets = int_list(c, c.args[1]);
    std::vector<Dim> dims = dims_of(c, c.args[2]);
    if (offsets.size() != src.tensor.rank || dims.size() != src.tensor.rank)
      fail_at(c, "offsets and shapes must have the tensor's rank");
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    Value v;
    v.kind = Value::Kind::Tile;
    v.tile = declare_tile(c, tt.dtype, tt.memory_space, std::move(dims));
    line(T::tile_load(v.tile, src.tensor, offsets));
    env_[&var] = std::move(v);
  }

  Value store(const ir::Call& c) {
    if (c.args.size() != 3) fail_at(c, "with explicit shapes is not supported");
    const Value& src = tile_of(c, c.args[0]);
    const std::vector<std::string> offsets = int_list(c, c.args[1]);
    const Value& dst = tensor_of(c, c.args[2]);
    if (offsets.size() != dst.tensor.rank || src.tile.dims.size() != dst.tensor.rank)
      fail_at(c, "offsets and the tile must have the tensor's rank");
    const auto atomic = c.kwargs.get<ir::AtomicType>("atomic");
    const bool add = atomic && *atomic == ir::AtomicType::Add;
    if (atomic && !add) fail_at(c, "with this atomic kind is not supported");
    line(T::tile_store(src.tile, dst.tensor, offsets, add));
    return dst;
  }

  /// The flat element position of `indices` in tensor `t` (bounds-checked at run time).
  std::string flat_index(const ir::Call& c, const Value& t, const ir::ExprRef& indices) {
    const std::vector<std::string> idx = int_list(c, indices);
    if (idx.size() != t.tensor.rank) fail_at(c, "needs one index per dimension");
    return define(core::DataType::INDEX,
                  "pk::flat(" + t.tensor.name + "->shape, " + brace_list(idx) + ")", &c.span);
  }

  /// tensor.write(t, indices, value): one element of global memory.
  Value write(const ir::Call& c) {
    const Value& t = tensor_of(c, c.args.at(0));
    const std::string at = flat_index(c, t, c.args.at(1));
    const std::string v = scalar(*c.args.at(2));
    line(t.tensor.data + "[" + at + "] = " + v + ";\n");
    return t;
  }

  void full(const ir::Var& var, const ir::Call& c) {
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    std::vector<Dim> dims = dims_of(c, c.args.at(0));
    std::string value;
    const ir::AttrValue* v = c.kwargs.find("value");
    const std::string type(scalar_type(tt.dtype, &c.span));
    if (!v) {
      value = type + "{}";
    } else if (const auto* d = v->get_if<double>()) {
      if (tt.dtype != core::DataType::FP32)
        fail_at(c, "with a float value on a non-FP32 tile is not supported");
      value = T::float_literal(kernel::float_bits(static_cast<float>(*d)));
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
    line(T::tile_fill(out.tile, value));
    env_[&var] = std::move(out);
  }

  void cast(const ir::Var& var, const ir::Call& c) {
    if (c.kwargs.contains("mode") || c.kwargs.contains("saturation_mode"))
      fail_at(c, "with a rounding or saturation mode is not supported");
    const Value& src = tile_of(c, c.args.at(0));
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    if (core::is_float(src.tile.dtype) && !core::is_float(tt.dtype))
      fail_at(c, "from a float to an integer type is not supported (rounding mode)");
    const TileRef s = src.tile;
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, s.dims);
    line(T::tile_cast(out.tile, s));
    env_[&var] = std::move(out);
  }

  void matmul(const ir::Var& var, const ir::Call& c) {
    const TileRef a = tile_of(c, c.args.at(0)).tile, b = tile_of(c, c.args.at(1)).tile;
    if (a.dtype != core::DataType::FP32 || b.dtype != core::DataType::FP32)
      fail_at(c, "on " + std::string(core::dtype_name(a.dtype)) +
                     " tiles is not supported (FP32 only)");
    if (a.dims.size() != 2 || b.dims.size() != 2) fail_at(c, "needs 2-D tiles");
    const auto& tt = static_cast<const ir::TileType&>(*c.type);
    Value out;
    out.kind = Value::Kind::Tile;
    out.tile = declare_tile(c, tt.dtype, tt.memory_space, {a.dims[0], b.dims[1]});
    line(T::tile_matmul(out.tile, a, b));
    env_[&var] = std::move(out);
  }

  // ---- control flow ------------------------------------------------------------------------

  /// Declares a carry (or if result) variable of `type` initialised from `init` (or default).
  Value declare_carry(const ir::Type& type, const ir::Expr* init) {
    if (const auto* st = ir::as<ir::ScalarType>(&type)) {
      const std::string name = new_scalar_name();
      const std::string t(scalar_type(st->dtype, stmt_ ? &stmt_->span : nullptr));
      line(t + " " + name + " = " + (init ? scalar(*init) : t + "{}") + ";\n");
      return scalar_value(name, st->dtype);
    }
    if (!init) fail_stmt("an if", "yielding a tile or tensor is not supported");
    const auto* v = ir::as<ir::Var>(init);
    if (!v) fail_stmt("a loop carry", "must be initialised from a variable");
    const Value& src = lookup(*v);
    if (src.kind == Value::Kind::Tensor) return src;  // written in place: no copy
    Value out = src;
    out.tile.name = new_tile_name();
    line(T::tile_decl(out.tile));
    line(T::tile_copy(out.tile, src.tile));
    return out;
  }

  void yield(const ir::YieldStmt& y) {
    flush();
    stmt_ = &y;
    if (yield_targets_.empty() || !yield_targets_.back())
      fail_stmt("a yield", "outside a loop or if with results is not supported");
    const std::vector<Value>& targets = *yield_targets_.back();
    if (targets.size() != y.values.size()) fail_stmt("a yield", "does not match its results");
    // Scalars through temporaries when there are several: a yield may swap carries.
    std::vector<std::string> temps;
    for (std::size_t k = 0; k < targets.size(); ++k) {
      if (targets[k].kind != Value::Kind::Scalar) {
        temps.emplace_back();
        continue;
      }
      const std::string v = scalar(*y.values[k]);
      temps.push_back(targets.size() == 1 ? v : define(targets[k].dtype, v, &y.span));
    }
    for (std::size_t k = 0; k < targets.size(); ++k) {
      if (targets[k].kind == Value::Kind::Scalar) {
        line(targets[k].expr + " = " + temps[k] + ";\n");
        continue;
      }
      const auto* v = ir::as<ir::Var>(y.values[k].get());
      if (!v) fail_stmt("a yield", "of a non-variable tile or tensor is not supported");
      const Value& src = lookup(*v);
      if (targets[k].kind == Value::Kind::Tensor) {
        if (src.kind != Value::Kind::Tensor || src.tensor.name != targets[k].tensor.name)
          fail_stmt("a yield", "of another tensor than the carried one is not supported");
        continue;
      }
      for (std::size_t j = 0; j < k; ++j)
        if (targets[j].kind == Value::Kind::Tile && targets[j].tile.name == src.tile.name)
          fail_stmt("a yield", "that permutes tile carries is not supported");
      if (src.tile.name != targets[k].tile.name) line(T::tile_copy(targets[k].tile, src.tile));
    }
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

  void body(const ir::Stmt& s, const std::vector<Value>* targets, bool loop, bool carries) {
    yield_targets_.push_back(targets);
    if (loop) loop_carries_.push_back(carries);
    ++depth_;
    stmt(s);
    flush();
    --depth_;
    if (loop) loop_carries_.pop_back();
    yield_targets_.pop_back();
  }

  void for_stmt(const ir::ForStmt& f) {
    flush();
    stmt_ = &f;
    const std::vector<Value> carries = bind_carries(f);
    const std::string start = scalar(*f.start), stop = scalar(*f.stop), step = scalar(*f.step);
    const auto* cstep = ir::as<ir::ConstInt>(f.step.get());
    if (cstep && cstep->value == 0) fail_stmt("a loop", "with step 0 is not supported");
    const std::string i = new_scalar_name();
    const std::string type(scalar_type(scalar_dtype(*f.loop_var), &f.span));
    const std::string cond =
        !cstep ? "(" + step + " > 0 ? " + i + " < " + stop + " : " + i + " > " + stop + ")"
        : cstep->value > 0 ? i + " < " + stop
                           : i + " > " + stop;
    line("for (" + type + " " + i + " = " + start + "; " + cond + "; " + i + " = pk::add(" + i +
         ", " + step + ")) {\n");
    env_[f.loop_var.get()] = scalar_value(i, scalar_dtype(*f.loop_var));
    body(*f.body, carries.empty() ? nullptr : &carries, true, !carries.empty());
    line("}\n");
    bind_results(f, carries);
  }

  void while_stmt(const ir::WhileStmt& w) {
    flush();
    stmt_ = &w;
    const std::vector<Value> carries = bind_carries(w);
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
    line("if (" + cond + ") {\n");
    body(*s.then_body, results.empty() ? nullptr : &results, false, false);
    if (s.else_body) {
      line("} else {\n");
      body(*s.else_body, results.empty() ? nullptr : &results, false, false);
    }
    line("}\n");
    for (std::size_t k = 0; k < results.size(); ++k) env_[s.return_vars[k].get()] = results[k];
  }

  // ---- regions of elementwise / reduction tile ops through the kernel expression IR --------
  //
  // A region is lowered value by value. Materialized are the values read after the region and
  // the inputs of reductions (a Spec reduction reads an input, never a register). Every other
  // value is inlined into the Spec of each materialized value that reaches it. A value that
  // reaches row reductions has [rows, 1] shape and runs on the reductions' grid in row-vector
  // mode: the reductions fold their inputs, the elementwise code reads ReduceResult operands
  // and [rows, 1] tiles through ColBroadcast views (seed 004's norm/softmax fusion). When the
  // reductions reached from one value have different grids, every reduction of the region is
  // materialized instead, each in its own Spec.

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
      return kernel::is_reduction(*spec_op(values[k].call->op->name));
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

  struct Build {
    kernel::SsaForm f;
    std::vector<const ir::Var*> input_vars;
    SpecBinding binding;
    std::unordered_map<const ir::Var*, std::uint8_t> node_of;  // lookup only
  };

  void emit_region_value(const Region& r, std::size_t k) {
    const ir::Call& c = *r.values[k].call;
    std::vector<std::size_t> reds;
    reductions_reached(r, k, reds);
    Build b;
    std::vector<Dim> grid, out_dims = value_dims(r, k);
    if (!reds.empty()) {
      const ir::Var* in = as_var(r.values[reds.front()].call->args.at(0));
      grid = env_.at(in).tile.dims;  // materialized before k, or external
      b.binding.row_vector = true;
    } else {
      grid = out_dims;
    }
    TileRef grid_tile{"", core::DataType::FP32, ir::MemorySpace::Vec, grid};
    b.binding.rows = tile_rows(grid_tile);
    b.binding.cols = tile_cols(grid_tile);
    const std::uint8_t root = node(b, r, k);
    if (r.is_reduction(k)) add_node(b, c, {kernel::Op::Mov, kernel::reduce_result(root), {}, {}});
    // Inputs have the grid's shape (Linear) or are [rows, 1] columns (ColBroadcast): the IR has
    // no other broadcast.
    for (std::size_t i = 0; i < b.binding.inputs.size(); ++i) {
      const TileRef& in = b.binding.inputs[i];
      const bool column = b.f.views[i].kind == kernel::ViewKind::ColBroadcast;
      if (tile_rows(in).text != b.binding.rows.text ||
          tile_cols(in).text != (column ? "1" : b.binding.cols.text))
        fail_at(c, "reads tiles of different shapes (" + tile_rows(in).text + " x " +
                       tile_cols(in).text + " and " + b.binding.rows.text + " x " +
                       (b.binding.row_vector ? std::string("1") : b.binding.cols.text) +
                       "); there is no implicit broadcast");
    }
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
      body_ += emit_spec<T>(spec, b.binding, pad());
    } catch (const SpecEmitError& e) {
      fail_at(c, std::string("cannot be emitted: ") + e.what());
    }
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
    const kernel::Op op = *spec_op(c.op->name);
    kernel::Node n{op, {}, {}, {}};
    const std::size_t arity = kernel::arity(op);
    if (c.args.size() != arity + (kernel::is_reduction(op) ? 1 : 0))
      fail_at(c, "has " + std::to_string(c.args.size()) + " operands");
    for (std::size_t s = 0; s < arity; ++s) n.slot(s) = operand(b, r, c, c.args[s]);
    if (kernel::is_reduction(op) && n.a.kind != kernel::OperandKind::Input)
      fail_at(c, "needs a tile operand");
    const std::uint8_t id = add_node(b, c, n);
    b.node_of[p.var] = id;
    return id;
  }

  kernel::Operand operand(Build& b, const Region& r, const ir::Call& c, const ir::ExprRef& e) {
    if (const ir::Var* v = as_var(e)) {
      if (const auto k = inlined(r, v)) {
        const std::uint8_t id = node(b, r, *k);
        return r.is_reduction(*k) ? kernel::reduce_result(id) : kernel::reg(id);
      }
      if (ir::isa<ir::TileType>(*v->type)) {
        for (std::size_t k = 0; k < b.input_vars.size(); ++k)
          if (b.input_vars[k] == v) return kernel::input(static_cast<std::uint8_t>(k));
        const Value& x = lookup(*v);
        if (x.kind != Value::Kind::Tile) fail_at(c, "needs a tile operand");
        if (b.input_vars.size() >= kernel::kMaxInputs)
          fail_at(c,
                  "reads more than " + std::to_string(kernel::kMaxInputs) + " tiles in one Spec");
        // In row-vector mode a [rows, 1] tile is read per row; reduction inputs are the grid.
        const bool column = b.binding.row_vector && !kernel::is_reduction(*spec_op(c.op->name)) &&
                            b.binding.cols.text != "1";
        b.input_vars.push_back(v);
        b.binding.inputs.push_back(x.tile);
        b.f.views.push_back(
            kernel::View{column ? kernel::ViewKind::ColBroadcast : kernel::ViewKind::Linear, 0});
        return kernel::input(static_cast<std::uint8_t>(b.input_vars.size() - 1));
      }
    }
    if (const auto* cf = ir::as<ir::ConstFloat>(e.get())) {
      if (cf->dtype() != core::DataType::FP32) fail_at(c, "needs an FP32 scalar operand");
      const std::uint32_t bits = kernel::float_bits(static_cast<float>(cf->value));
      for (std::size_t k = 0; k < b.f.consts.size(); ++k)
        if (b.f.consts[k] == bits) return kernel::constant(static_cast<std::uint8_t>(k));
      if (b.f.consts.size() >= kernel::kMaxConsts)
        fail_at(c,
                "uses more than " + std::to_string(kernel::kMaxConsts) + " constants in one Spec");
      b.f.consts.push_back(bits);
      return kernel::constant(static_cast<std::uint8_t>(b.f.consts.size() - 1));
    }
    const auto* st = ir::as<ir::ScalarType>(e->type.get());
    if (!st || st->dtype != core::DataType::FP32) fail_at(c, "needs FP32 tile or scalar operands");
    const std::string x = scalar(*e);
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

  const ir::Function& fn_;
  std::unordered_map<const ir::Call*, const ir::Var*> synthetic_;  // hoisted calls (lookup only)
  std::vector<ir::VarRef> synthetic_vars_;
  std::unordered_map<const ir::Var*, Value> env_;         // lookup only: never iterated
  std::unordered_map<const ir::Var*, std::size_t> uses_;  // lookup only
  std::vector<Pending> region_;
  std::vector<const std::vector<Value>*> yield_targets_;
  std::vector<bool> loop_carries_;
  const ir::Stmt* stmt_ = nullptr;
  std::string body_;
  int depth_ = 1;
  std::size_t next_scalar_ = 0, next_tile_ = 0;
  CoreType core_ = CoreType::AIV;
};

}  // namespace detail::kernel_codegen

/// The source of kernel `fn` (an InCore, AIC or AIV function in tile form) for target T, its
/// core type and its entry parameters in task-parameter order. Throws CodegenError naming the
/// kernel, the op and line:column for anything the target cannot express.
template <TargetTraits T>
KernelSource codegen_kernel(const ir::Function& fn) {
  return detail::kernel_codegen::Lowering<T>(fn).run();
}

}  // namespace pypto::codegen

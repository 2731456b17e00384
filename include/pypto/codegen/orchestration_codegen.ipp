// pypto/codegen/orchestration_codegen.ipp — the definitions of codegen/orchestration_codegen.hpp.
#pragma once

#include "pypto/codegen/orchestration_codegen.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/codegen/codegen_error.hpp"
#include "pypto/codegen/kernel_config.hpp"
#include "pypto/codegen/kernel_registration.hpp"
#include "pypto/codegen/orchestration_cpp.hpp"
#include "pypto/codegen/orchestration_result.hpp"
#include "pypto/codegen/orchestration_tasks.hpp"
#include "pypto/codegen/registration_code_map.hpp"
#include "pypto/codegen/runtime_abi.hpp"
#include "pypto/core/dtype.hpp"
#include "pypto/core/span.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/identical.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/transforms/return_lineage.hpp"

// The source has a config function returning the expected argument count and an entry function
// that binds the external tensors (`orch_args.tensor(i)`) and scalars (`orch_args.scalar(j)`),
// then runs the body inside the runtime's scope macro. Each task launch becomes an argument
// object filled in task-parameter order (add_input / add_output / add_inout / add_no_dep, then
// add_scalar), optional dependencies, core count, sync start and predicate, and the submit call
// of its core type — or, for a Group, a MixedKernels {AIC, AIV, AIV} triple. Loops (with
// carries), ifs, scalar arithmetic, runtime scopes, intermediate tensors (tensor.create) and one
// element of a tensor (tensor.read / tensor.write, through the runtime's get_tensor_data /
// set_tensor_data, which order it after the element's producer) are lowered; a kernel result names
// the argument buffer the kernel returns (return lineage), so no tensor is copied; a loop carry
// or an if result whose buffer differs between paths is a variable of its own, assigned a copy of
// the runtime's tensor descriptor (never of the data) at each yield. Names are derived from
// variable name hints and made unique in emission order.

namespace pypto::codegen {

namespace detail {

/// Emits one Orchestration function. Single use: construct, then call `source()` once.
class OrchestrationEmitter {
 public:
  /// Which tensor carries of a loop or an if switch buffers (by the statement, then by carry):
  /// learned by emitting, kept across the attempts generate_orchestration_source makes.
  using Switching = std::map<const ir::Stmt*, std::vector<bool>>;

  OrchestrationEmitter(const ir::Program& program, const ir::Function& fn,
                       const KernelCodeMap& codes, const std::vector<KernelRegistration>& regs,
                       const RuntimeAbi& abi, Switching& switching)
      : program_(program),
        fn_(fn),
        codes_(codes),
        regs_(regs),
        abi_(abi),
        switching_(switching),
        tasks_(program, fn.name),
        lineage_(&program) {
    for (std::string_view w : kCppReservedNames) used_.emplace(w);
    for (std::string_view w : {abi.args_class, abi.tensor_class, abi.orch_args_class,
                               abi.task_id_class, abi.task_outputs_class, abi.tensor_create_info,
                               abi.mixed_kernels_class, abi.config_class, abi.alloc_tensors})
      used_.emplace(w);
  }

  /// True when this attempt found a tensor carry that switches buffers (see learn_switch).
  bool learned() const { return learned_; }

  std::string source() {
    if (!is_orchestration(program_, fn_))
      throw CodegenError(fn_.name, "has function type " +
                                       std::string(ir::enum_name(fn_.func_type)) +
                                       ", not Orchestration (nor Opaque launching tasks)");
    if (!fn_.body) throw CodegenError(fn_.name, "has no body");
    // References per variable (its definition included): task outputs nobody reads are not
    // bound, so the C++ has no unused variables.
    struct Read {
      std::uint64_t element, tuple;
      std::size_t index;
    };
    std::vector<Read> reads;  // `element = tuple[index]`
    ir::for_each_node(fn_.body, [&](const ir::Node& n) {
      if (ir::isa<ir::ReturnStmt>(n)) return;  // a return emits nothing: not a C++ use
      ir::for_each_child(n, [&](const ir::NodeRef& c) {
        if (const auto* v = ir::as<ir::Var>(c.get())) ++refs_[v->uid];
      });
      const auto* a = ir::as<ir::AssignStmt>(&n);
      const auto* g = a ? ir::as<ir::TupleGetItem>(a->value.get()) : nullptr;
      if (const auto* tv = g ? ir::as<ir::Var>(g->tuple.get()) : nullptr)
        reads.push_back({a->var->uid, tv->uid, static_cast<std::size_t>(g->index)});
    });
    for (const Read& r : reads)
      if (refs_[r.element] >= 2) elements_read_[r.tuple].insert(r.index);
    indent_ = 1;
    std::size_t tensors = 0, scalars = 0;
    for (const auto& p : fn_.params) {
      if (ir::isa<ir::TensorType>(p->type)) {
        const std::string n = fresh("ext_" + p->name_hint);
        names_[p->uid] = n;
        line("const " + std::string(abi_.tensor_class) + "& " + n + " = orch_args.tensor(" +
             std::to_string(tensors++) + ").ref();");
      } else if (const auto* st = ir::as<ir::ScalarType>(p->type.get())) {
        const std::string t = ctype(st->dtype, p->span);
        const std::string n = fresh(p->name_hint);
        names_[p->uid] = n;
        line(t + " " + n + " = from_u64<" + t + ">(orch_args.scalar(" + std::to_string(scalars++) +
             "));");
      } else {
        fail(p->span, "parameter '" + p->name_hint +
                          "' is neither a tensor nor a scalar; orchestration takes only those");
      }
    }
    if (fn_.params.empty()) line("(void)orch_args;");
    if (!fn_.params.empty()) out_ += "\n";
    line(std::string(abi_.scope_macro) + "() {");
    ++indent_;
    stmt(*fn_.body);
    --indent_;
    line("}");
    const std::string body = std::move(out_);

    std::string s = "// " + fn_.name + ": orchestration for the " + std::string(abi_.name) +
                    " runtime, generated by pypto.\n";
    s += "#include <stddef.h>\n#include <stdint.h>\n\n#include \"" + std::string(abi_.api_header) +
         "\"\n\n";
    if (uses_floor_) s += kCppFloorHelpers;
    if (uses_elements_) s += cpp_element_helpers(abi_.get_tensor_data, abi_.set_tensor_data);
    if (uses_arrays_) s += kCppArrayHelpers;
    s += "extern \"C\" {\n\n";
    s += "__attribute__((visibility(\"default\")))\n";
    s += std::string(abi_.config_class) + " " + std::string(abi_.config_function) + "(const " +
         std::string(abi_.orch_args_class) + "& orch_args) {\n";
    s += "    (void)orch_args;\n";
    s += "    return " + std::string(abi_.config_class) + "{\n";
    s += "        .expected_arg_count = " + std::to_string(fn_.params.size()) + ",\n";
    s += "    };\n}\n\n";
    s += "__attribute__((visibility(\"default\")))\n";
    s += "void " + std::string(abi_.entry_function) + "(const " +
         std::string(abi_.orch_args_class) + "& orch_args) {\n";
    s += body;
    s += "}\n\n}  // extern \"C\"\n";
    return s;
  }

 private:
  // ---- names ----------------------------------------------------------------------------------

  /// A C++ name for `hint`, unique in this source: `hint`, else `hint_1`, `hint_2`, ...
  std::string fresh(std::string hint) {
    if (hint.empty() || hint[0] == '_') hint = "v" + hint;  // _X and __x are reserved in C++
    std::string name = hint;
    for (int k = 1; used_.contains(name); ++k) name = hint + "_" + std::to_string(k);
    used_.insert(name);
    if (!scope_names_.empty()) scope_names_.back().insert(name);
    return name;
  }

  /// Leaves a runtime scope's C++ block: what was declared inside is out of reach after it
  /// (the IR lets a scope's definitions flow out; the C++ block does not), so a later use is a
  /// CodegenError rather than C++ that does not compile.
  void close_scope_names() {
    const std::set<std::string> inner = std::move(scope_names_.back());
    scope_names_.pop_back();
    auto declared_inside = [&](const std::string& expr) {
      std::size_t n = 0;
      while (n < expr.size() &&
             (std::isalnum(static_cast<unsigned char>(expr[n])) || expr[n] == '_'))
        ++n;
      return inner.contains(expr.substr(0, n));
    };
    const std::string why =
        "which is defined inside a runtime scope and used after it (its C++ block ends there)";
    for (auto it = names_.begin(); it != names_.end();) {
      if (!declared_inside(it->second)) {
        ++it;
        continue;
      }
      unnamed_[it->first] = why;
      it = names_.erase(it);
    }
    for (auto& [uid, info] : tuples_) {
      for (auto& e : info.elements)
        if (e && declared_inside(*e)) e.reset();
      if (!info.outs.empty() && declared_inside(info.outs)) info.outs_reason = why;
    }
  }

  /// The C++ name of a variable; errors point at `use` (a variable's own span is its
  /// definition's).
  const std::string& name_of(const ir::ExprRef& e, const core::Span* use = nullptr) {
    const core::Span& span = use ? *use : e->span;
    const auto* v = ir::as<ir::Var>(e.get());
    if (!v) fail(span, "a tensor or task id here must be a variable");
    if (auto it = names_.find(v->uid); it != names_.end()) return it->second;
    if (auto it = unnamed_.find(v->uid); it != unnamed_.end())
      fail(span, "uses '" + v->name_hint + "', " + it->second);
    fail(span, "uses '" + v->name_hint + "', which is not defined before this point");
  }

  // ---- output ---------------------------------------------------------------------------------

  void line(const std::string& text) {
    if (!text.empty()) out_.append(static_cast<std::size_t>(indent_) * 4, ' ').append(text);
    out_ += '\n';
  }

  [[noreturn]] void fail(const core::Span& span, const std::string& problem) const {
    tasks_.fail(span, problem);
  }

  std::string ctype(core::DataType d, const core::Span& span) const {
    if (auto t = cpp_scalar_type(d, abi_.task_id_class)) return *t;
    fail(span, "scalars of dtype " + std::string(core::dtype_name(d)) +
                   " have no C++ type in orchestration code");
  }

  /// The C++ type of a value held in a C++ variable (a scalar or a pl.Array); empty for a
  /// tensor or tuple, which live in buffers.
  std::string value_type(const ir::Type& type, const core::Span& span) {
    if (const auto* st = ir::as<ir::ScalarType>(&type)) return ctype(st->dtype, span);
    if (const auto* a = ir::as<ir::ArrayType>(&type)) {
      uses_arrays_ = true;
      return "pypto_array<" + ctype(a->dtype, span) + ", " + std::to_string(a->extent) + ">";
    }
    return {};
  }

  // ---- expressions ----------------------------------------------------------------------------

  std::string float_literal(const ir::ConstFloat& c) const {
    if (c.dtype() != core::DataType::FP32)
      fail(c.span, "constants of dtype " + std::string(core::dtype_name(c.dtype())) +
                       " have no C++ type in orchestration code");
    if (auto lit = cpp_float_literal(static_cast<float>(c.value))) return *lit;
    fail(c.span, "a non-finite constant cannot be written in C++");
  }

  std::string binary(std::string_view op, const ir::BinaryExpr& b) {
    return "(" + expr(b.left) + " " + std::string(op) + " " + expr(b.right) + ")";
  }

  std::string floor_op(std::string_view helper, const ir::BinaryExpr& b) {
    if (!core::is_int(static_cast<const ir::ScalarType&>(*b.type).dtype))
      fail(b.span, "floor division of floats is not supported in orchestration code");
    uses_floor_ = true;
    return std::string(helper) + "(" + expr(b.left) + ", " + expr(b.right) + ")";
  }

  /// The C++ value of a scalar expression.
  std::string expr(const ir::ExprRef& e) {
    using K = ir::NodeKind;
    const auto* b = ir::as<ir::BinaryExpr>(e.get());
    const auto* u = ir::as<ir::UnaryExpr>(e.get());
    switch (e->kind()) {
      case K::Var:
      case K::IterArg: return name_of(e);
      case K::ConstInt: {
        const std::int64_t v = static_cast<const ir::ConstInt&>(*e).value;
        return cpp_int_literal(v);
      }
      case K::ConstFloat: return float_literal(static_cast<const ir::ConstFloat&>(*e));
      case K::ConstBool: return static_cast<const ir::ConstBool&>(*e).value ? "true" : "false";
      case K::Add: return binary("+", *b);
      case K::Sub: return binary("-", *b);
      case K::Mul: return binary("*", *b);
      case K::FloatDiv: return binary("/", *b);
      case K::FloorDiv: return floor_op("pypto_floordiv", *b);
      case K::FloorMod: return floor_op("pypto_floormod", *b);
      case K::Min:
      case K::Max: {
        const std::string l = expr(b->left), r = expr(b->right);
        return "(" + l + (e->kind() == K::Min ? " < " : " > ") + r + " ? " + l + " : " + r + ")";
      }
      case K::Eq: return binary("==", *b);
      case K::Ne: return binary("!=", *b);
      case K::Lt: return binary("<", *b);
      case K::Le: return binary("<=", *b);
      case K::Gt: return binary(">", *b);
      case K::Ge: return binary(">=", *b);
      case K::And: return binary("&&", *b);
      case K::Or: return binary("||", *b);
      case K::Xor: return binary("!=", *b);
      case K::BitAnd: return binary("&", *b);
      case K::BitOr: return binary("|", *b);
      case K::BitXor: return binary("^", *b);
      case K::BitShiftLeft: return binary("<<", *b);
      case K::BitShiftRight: return binary(">>", *b);
      case K::Neg: return "(-" + expr(u->operand) + ")";
      case K::Not: return "(!" + expr(u->operand) + ")";
      case K::BitNot: return "(~" + expr(u->operand) + ")";
      case K::Abs: {
        const std::string x = expr(u->operand);
        return "(" + x + " < 0 ? -" + x + " : " + x + ")";
      }
      case K::Cast:
        return "static_cast<" + ctype(static_cast<const ir::Cast&>(*e).target(), e->span) + ">(" +
               expr(u->operand) + ")";
      case K::Call: {
        const auto& c = static_cast<const ir::Call&>(*e);
        const auto* axis = c.args.size() == 2 ? ir::as<ir::ConstInt>(c.args[1].get()) : nullptr;
        if (c.op->id == ir::OpId::tensor_dim && axis)
          return "(int64_t)" + name_of(c.args[0]) + ".shapes[" + std::to_string(axis->value) + "]";
        if (c.op->id == ir::OpId::tensor_read)
          return element_access("pypto_read<" + ctype(scalar_dtype(e), e->span) + ">", c, {});
        if (c.op->id == ir::OpId::system_task_invalid)
          return std::string(abi_.task_id_class) + "::invalid()";
        if (std::string a = array_op(c); !a.empty()) return a;
        fail(e->span, "the op '" + c.op->name +
                          "' cannot run in orchestration code; it belongs inside a kernel");
      }
      default:
        fail(e->span, "cannot compute an expression of kind " +
                          std::string(ir::kind_name(e->kind())) + " in orchestration code");
    }
  }

  /// A pl.Array op as an expression over the value-semantic `pypto_array` (each update gives a
  /// new array, as the IR's update does); empty for any other op.
  std::string array_op(const ir::Call& c) {
    switch (c.op->id) {
      case ir::OpId::array_create: {
        const auto& a = static_cast<const ir::ArrayType&>(*c.type);
        const std::string t = value_type(a, c.span);
        return "pypto_array_filled<" + t + ">(" +
               (a.dtype == core::DataType::TASK_ID ? std::string(abi_.task_id_class) + "::invalid()"
                                                   : ctype(a.dtype, c.span) + "{}") +
               ")";
      }
      case ir::OpId::array_get_element:
        return name_of(c.args.at(0), &c.span) + ".at[" + strip_outer_parens(expr(c.args.at(1))) +
               "]";
      case ir::OpId::array_update_element:
        return "pypto_array_updated(" + name_of(c.args.at(0), &c.span) + ", " +
               strip_outer_parens(expr(c.args.at(1))) + ", " +
               strip_outer_parens(expr(c.args.at(2))) + ")";
      default: return {};
    }
  }

  /// `helper(tensor, [value,] indices...)` for tensor.read / tensor.write.
  std::string element_access(const std::string& helper, const ir::Call& c,
                             const std::string& value) {
    const auto* indices = c.args.size() >= 2 ? ir::as<ir::MakeTuple>(c.args[1].get()) : nullptr;
    if (!indices || !ir::isa<ir::TensorType>(c.args[0]->type))
      fail(c.span, "'" + c.op->name + "' needs a tensor and a list of indices");
    uses_elements_ = true;
    std::string s = helper + "(" + name_of(c.args[0], &c.span);
    if (!value.empty()) s += ", " + value;
    for (const auto& i : indices->elements) s += ", " + strip_outer_parens(expr(i));
    return s + ")";
  }

  static core::DataType scalar_dtype(const ir::ExprRef& e) {
    return static_cast<const ir::ScalarType&>(*e->type).dtype;
  }

  /// `pl.tensor.write(t, [i, ...], v)`: one element stored through the runtime.
  void write_element(const ir::Call& c) {
    if (c.args.size() != 3 || !ir::isa<ir::ScalarType>(c.args[2]->type))
      fail(c.span, "'tensor.write' needs a tensor, a list of indices and a scalar");
    const std::string t = ctype(scalar_dtype(c.args[2]), c.span);
    line(element_access("pypto_write<" + t + ">", c,
                        "static_cast<" + t + ">(" + strip_outer_parens(expr(c.args[2])) + ")") +
         ";");
  }

  // ---- statements -----------------------------------------------------------------------------

  /// A loop carry or an if result: a scalar is a variable; a tensor is the name of the one buffer
  /// it is on every path, or (rebound) a variable of its own when its buffer switches.
  struct Carry {
    bool tensor = false;
    bool rebound = false;  ///< a tensor carry held in its own variable: its buffer may switch
    std::string name;      ///< for an if's tensor result: set by the then-arm's yield
  };
  struct Region {
    const ir::Stmt* stmt = nullptr;
    bool loop = false;
    bool else_arm = false;
    std::vector<Carry> carries;
  };

  /// True when carry `k` of `s` was found to switch buffers (by an earlier attempt).
  bool switches(const ir::Stmt& s, std::size_t k) const {
    auto it = switching_.find(&s);
    return it != switching_.end() && k < it->second.size() && it->second[k];
  }

  /// Carry `k` of region `r` is one buffer on this path and another on an earlier one: recorded,
  /// and this attempt's source is discarded (see generate_orchestration_source).
  void learn_switch(const Region& r, std::size_t k) {
    std::vector<bool>& bits = switching_[r.stmt];
    if (bits.size() < r.carries.size()) bits.resize(r.carries.size(), false);
    bits[k] = true;
    learned_ = true;
  }

  /// A rebound tensor carry's variable, initialised from the buffer `init` (empty: none yet).
  std::string rebound_carry(const std::string& hint, const std::string& init) {
    const std::string name = fresh(hint);
    line(std::string(abi_.tensor_class) + " " + name + (init.empty() ? "{}" : " = " + init) + ";");
    return name;
  }

  void stmt(const ir::Stmt& s) {
    if (const auto* seq = ir::as<ir::SeqStmts>(&s)) {
      for (const auto& x : seq->stmts) stmt(*x);
    } else if (const auto* a = ir::as<ir::AssignStmt>(&s)) {
      assign(*a);
    } else if (const auto* ev = ir::as<ir::EvalStmt>(&s)) {
      if (const auto* c = ir::as<ir::Call>(ev->expr.get());
          c && c->op->id == ir::OpId::tensor_write)
        return write_element(*c);
      if (!TaskResolver::is_launch(*ev->expr))
        fail(s.span, "an expression statement here must launch a task");
      task(*ev->expr, nullptr);
    } else if (const auto* f = ir::as<ir::ForStmt>(&s)) {
      loop(*f);
    } else if (const auto* w = ir::as<ir::WhileStmt>(&s)) {
      while_loop(*w);
    } else if (const auto* i = ir::as<ir::IfStmt>(&s)) {
      branch(*i);
    } else if (const auto* y = ir::as<ir::YieldStmt>(&s)) {
      yield(*y);
    } else if (const auto* r = ir::as<ir::ReturnStmt>(&s)) {
      // The results are the output arguments the tasks wrote: nothing to emit, except a task
      // launched in the return itself (`return self.kernel(a, out)`), which runs here.
      for (const auto& v : r->values)
        if (TaskResolver::is_launch(*v)) task(*v, nullptr);
    } else if (ir::isa<ir::BreakStmt>(s)) {
      line("break;");
    } else if (ir::isa<ir::ContinueStmt>(s)) {
      line("continue;");
    } else if (const auto* rs = ir::as<ir::RuntimeScopeStmt>(&s)) {
      line(std::string(abi_.scope_macro) + "(" +
           (rs->manual ? std::string(abi_.manual_scope_mode) : std::string()) + ") {");
      ++indent_;
      scope_names_.emplace_back();
      stmt(*rs->body);
      close_scope_names();
      --indent_;
      line("}");
    } else if (const auto* h = ir::as<ir::HierarchyScopeStmt>(&s)) {
      // A chip's orchestration inside a host's: one process runs it in place, its names
      // visible after it as the scope's are in the text.
      stmt(*h->body);
    } else {
      fail(s.span, "cannot lower a statement of kind " + std::string(ir::kind_name(s.kind())) +
                       " to orchestration code (outline scopes first)");
    }
  }

  void assign(const ir::AssignStmt& a) {
    const ir::ExprRef& v = a.value;
    const ir::Var& var = *a.var;
    if (TaskResolver::is_launch(*v)) return task(*v, &var);
    if (ir::isa<ir::Var>(v) && !ir::isa<ir::ScalarType>(v->type)) {
      // A tensor or tuple copy: the same buffer under another name.
      const auto* src = static_cast<const ir::Var*>(v.get());
      if (auto it = tuples_.find(src->uid); it != tuples_.end()) {
        tuples_[var.uid] = it->second;
      } else {
        names_[var.uid] = name_of(v);
      }
      return;
    }
    if (const auto* g = ir::as<ir::TupleGetItem>(v.get())) return element(var, *g);
    if (const auto* c = ir::as<ir::Call>(v.get()); c && c->op->id == ir::OpId::tensor_create)
      return create(var, *c);
    if (const auto* c = ir::as<ir::Call>(v.get()); c && c->op->id == ir::OpId::system_task_dummy)
      return dummy_task(var, *c);
    if (const auto* c = ir::as<ir::Call>(v.get()); c && is_view(c->op->id)) return view(var, *c);
    if (const auto* c = ir::as<ir::Call>(v.get()); c && c->op->id == ir::OpId::tensor_write) {
      write_element(*c);
      names_[var.uid] = name_of(c->args[0]);  // the same buffer, one element rewritten
      return;
    }
    const std::string t = value_type(*var.type, a.span);
    if (t.empty())
      fail(a.span,
           "'" + var.name_hint + "' is computed by " +
               (ir::isa<ir::Call>(v) ? "the op '" + static_cast<const ir::Call&>(*v).op->name +
                                           "', which belongs inside a kernel"
                                     : "an expression orchestration code cannot hold"));
    const std::string value = strip_outer_parens(expr(v));
    const std::string n = fresh(var.name_hint);
    names_[var.uid] = n;
    line(t + " " + n + " = " + value + ";");
  }

  /// `x = tuple[k]`: a kernel result's buffer, or a Submit's task id.
  void element(const ir::Var& var, const ir::TupleGetItem& g) {
    const auto* tv = ir::as<ir::Var>(g.tuple.get());
    auto it = tv ? tuples_.find(tv->uid) : tuples_.end();
    if (it == tuples_.end())
      fail(g.span, "takes an element of a tuple that is not the result of a task launch");
    const TupleInfo& info = it->second;
    const auto k = static_cast<std::size_t>(g.index);
    if (!info.outs_reason.empty() && k == info.elements.size()) {
      unnamed_[var.uid] = "the task id of '" + info.callee + "', " + info.outs_reason;
      return;
    }
    if (!info.outs.empty() && k == info.elements.size()) {
      if (refs_[var.uid] < 2) return;  // only defined here: an unused task id
      const std::string n = fresh(var.name_hint);
      names_[var.uid] = n;
      line(std::string(abi_.task_id_class) + " " + n + " = " + info.outs + ".task_id();");
      return;
    }
    if (k < info.elements.size() && info.elements[k]) {
      names_[var.uid] = *info.elements[k];
    } else {
      unnamed_[var.uid] = "result " + std::to_string(k) + " of '" + info.callee +
                          "', which is not one of its parameters (a task hands back only the "
                          "buffers it was given)";
    }
  }

  std::string shape_list(const std::vector<ir::ExprRef>& shape) {
    std::string s;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      const std::string d = expr(shape[i]);
      s += (i ? ", " : "") +
           (ir::isa<ir::ConstInt>(shape[i]) ? d : "static_cast<uint32_t>(" + d + ")");
    }
    return s;
  }

  /// Declares `<ci>_shapes` and `TensorCreateInfo <ci>` for a tensor of type `t`.
  void create_info(const std::string& ci, const ir::TypeRef& type, const core::Span& span) {
    const auto* t = ir::as<ir::TensorType>(type.get());
    if (!t) fail(span, "only a tensor can be allocated by the runtime");
    const std::string rank = std::to_string(t->shape.size());
    line("uint32_t " + ci + "_shapes[" + rank + "] = {" + shape_list(t->shape) + "};");
    line(std::string(abi_.tensor_create_info) + " " + ci + "(" + ci + "_shapes, " + rank +
         ", DataType::" + std::string(core::dtype_name(t->dtype)) + ");");
  }

  static bool is_view(ir::OpId id) {
    return id == ir::OpId::tensor_slice || id == ir::OpId::tensor_reshape ||
           id == ir::OpId::tensor_transpose;
  }

  /// The elements of a shape / offset tuple argument.
  const std::vector<ir::ExprRef>& tuple_elements(const ir::Call& c, std::size_t i) {
    const auto* t = c.args.size() > i ? ir::as<ir::MakeTuple>(c.args[i].get()) : nullptr;
    if (!t) fail(c.span, "'" + c.op->name + "' needs a list as argument " + std::to_string(i));
    return t->elements;
  }

  /// `uint32_t <name>[n] = {...};` for a shape or offset list; returns the name.
  std::string uint32_array(const std::string& hint, const std::vector<ir::ExprRef>& values) {
    const std::string n = fresh(hint);
    line("uint32_t " + n + "[" + std::to_string(values.size()) + "] = {" + shape_list(values) +
         "};");
    return n;
  }

  /// An orchestration-level slice, reshape or transpose of a tensor: a view of its storage (no
  /// copy), as the runtime's tensor makes it. A slice of lower rank than its input views the box
  /// (its shape padded with leading 1s to the input's rank), then reshapes it.
  void view(const ir::Var& var, const ir::Call& c) {
    const auto* in = ir::as<ir::TensorType>(c.args.at(0)->type.get());
    const auto* out = ir::as<ir::TensorType>(var.type.get());
    if (!in || !out) fail(c.span, "'" + c.op->name + "' views a tensor only");
    const std::string src = name_of(c.args[0]);
    const std::string n = fresh(var.name_hint);
    std::string value;
    if (c.op->id == ir::OpId::tensor_slice) {
      std::vector<ir::ExprRef> shape = tuple_elements(c, 1);
      const std::vector<ir::ExprRef>& offset = tuple_elements(c, 2);
      if (c.args.size() > 3 && !ir::identical(c.args[3], c.args[1]) &&
          !tuple_elements(c, 3).empty())
        fail(c.span, "a slice with a valid_shape has no view form in orchestration code");
      if (offset.size() != in->shape.size() || shape.size() > offset.size())
        fail(c.span, "a slice needs offsets in its input's rank");
      shape.insert(shape.begin(), offset.size() - shape.size(), ir::ConstInt::make(1));
      const std::string shapes = uint32_array(n + "_shapes", shape);  // declared in this order
      const std::string offsets = uint32_array(n + "_offsets", offset);
      value = src + "." + std::string(abi_.tensor_view) + "(" + shapes + ", " + offsets + ")";
      if (out->shape.size() != in->shape.size()) {
        const std::string dims = uint32_array(n + "_dims", out->shape);
        value += "." + std::string(abi_.tensor_reshape) + "(" + dims + ", " +
                 std::to_string(out->shape.size()) + ")";
      }
    } else if (c.op->id == ir::OpId::tensor_reshape) {
      value = src + "." + std::string(abi_.tensor_reshape) + "(" +
              uint32_array(n + "_shapes", out->shape) + ", " + std::to_string(out->shape.size()) +
              ")";
    } else {
      const auto rank = static_cast<std::int64_t>(in->shape.size());
      auto axis = [&](std::size_t i) {
        const auto* k = ir::as<ir::ConstInt>(c.args.at(i).get());
        if (!k || k->value < -rank || k->value >= rank)
          fail(c.span, "a transpose needs constant axes within its input's rank");
        return std::to_string(k->value < 0 ? k->value + rank : k->value);
      };
      value = src + "." + std::string(abi_.tensor_transpose) + "(" + axis(1) + ", " + axis(2) + ")";
    }
    line("const " + std::string(abi_.tensor_class) + " " + n + " = " + value + ";");
    names_[var.uid] = n;
  }

  /// An intermediate tensor: allocated by the runtime, then used like any tensor.
  void create(const ir::Var& var, const ir::Call& c) {
    const std::string n = fresh(var.name_hint);
    const std::string ci = fresh(n + "_ci");
    used_.insert(ci + "_shapes");
    const std::string alloc = fresh("alloc_" + std::to_string(alloc_counter_++));
    create_info(ci, var.type, c.span);
    line(std::string(abi_.task_outputs_class) + " " + alloc + " = " +
         std::string(abi_.alloc_tensors) + "(" + ci + ");");
    line("const " + std::string(abi_.tensor_class) + "& " + n + " = " + alloc + ".get_ref(0);");
    names_[var.uid] = n;
  }

  std::string_view add_method(ir::ArgDirection d) const {
    switch (d) {
      case ir::ArgDirection::Input: return abi_.add_input;
      case ir::ArgDirection::Output:
      case ir::ArgDirection::OutputExisting: return abi_.add_output;
      case ir::ArgDirection::InOut: return abi_.add_inout;
      case ir::ArgDirection::NoDep: return abi_.add_no_dep;
      case ir::ArgDirection::Scalar: return abi_.add_scalar;
    }
    return abi_.add_input;
  }

  /// `params.set_dependencies(...)` over the valid ids among `deps` (task ids and arrays of
  /// them); returns the C++ name of the count of ids set.
  std::string dependencies(const std::string& params, const std::vector<ir::ExprRef>& deps,
                           const core::Span& span) {
    const std::string ids = fresh(params + "_deps");
    const std::string count = fresh(params + "_deps_count");
    std::int64_t most = 0;  // a task id, or each id of an array of them
    for (const auto& d : deps)
      most +=
          ir::isa<ir::ArrayType>(d->type) ? static_cast<const ir::ArrayType&>(*d->type).extent : 1;
    line(std::string(abi_.task_id_class) + " " + ids + "[" +
         std::to_string(std::max<std::int64_t>(most, 1)) + "];");
    line("uint32_t " + count + " = 0;");
    for (const auto& d : deps) {
      const std::string id = name_of(d, &span);
      if (const auto* a = ir::as<ir::ArrayType>(d->type.get())) {
        const std::string k = fresh("k");
        line("for (int " + k + " = 0; " + k + " < " + std::to_string(a->extent) + "; ++" + k +
             ") {");
        line("    if (" + id + ".at[" + k + "].is_valid()) " + ids + "[" + count + "++] = " + id +
             ".at[" + k + "];");
        line("}");
        continue;
      }
      line("if (" + id + ".is_valid()) " + ids + "[" + count + "++] = " + id + ";");
    }
    line(params + ".set_dependencies(" + ids + ", " + count + ");");
    return count;
  }

  /// `tid = pl.system.task_dummy(deps=[...])`: a task that does no work and completes after its
  /// dependencies, so one id fences them all; with dependencies that are all invalid ids it is
  /// not submitted and its id is the invalid id.
  void dummy_task(const ir::Var& var, const ir::Call& c) {
    std::vector<ir::ExprRef> deps;
    if (const ir::AttrValue* d = c.kwargs.find("deps")) {
      if (const auto* list = d->get_if<ir::AttrValueList>()) {
        for (const auto& x : *list)
          if (const auto* e = x.get_if<ir::ExprRef>()) deps.push_back(*e);
      } else if (const auto* e = d->get_if<ir::ExprRef>()) {
        deps.push_back(*e);
      }
    }
    const std::string params = fresh("params_barrier");
    const std::string tid = fresh(var.name_hint);
    names_[var.uid] = tid;
    if (!out_.ends_with("{\n")) line("");
    line("// A barrier: a task that does no work, after its dependencies");
    line(std::string(abi_.args_class) + " " + params + ";");
    const std::string submit = std::string(abi_.submit_dummy) + "(" + params + ").task_id()";
    if (deps.empty()) {
      line(std::string(abi_.task_id_class) + " " + tid + " = " + submit + ";");
      return;
    }
    const std::string count = dependencies(params, deps, c.span);
    line(std::string(abi_.task_id_class) + " " + tid + " = " + count + " > 0 ? " + submit + " : " +
         std::string(abi_.task_id_class) + "::invalid();");
  }

  /// One task launch; `result` (if any) is bound to the buffers the task hands back.
  void task(const ir::Expr& e, const ir::Var* result) {
    const TaskLaunch t = tasks_.resolve(e);
    const std::vector<TaskKernel> kernels = task_kernels(tasks_, t, codes_);
    const std::vector<RuntimeDirection> signature = task_signature(t);
    const int n = task_counter_++;
    const std::string params = fresh("params_t" + std::to_string(n));

    std::string title = "// Task " + std::to_string(n) + ": " + t.launched;
    if (t.kernels.size() != 1 || t.kernels[0] != t.launched) {
      title += " (";
      for (std::size_t i = 0; i < t.kernels.size(); ++i) title += (i ? ", " : "") + t.kernels[i];
      title += ")";
    }
    if (!out_.ends_with("{\n")) line("");  // a blank line between tasks, not after a brace
    line(title);
    line(std::string(abi_.args_class) + " " + params + ";");

    // Outputs a Submit omitted: the runtime allocates them from their shape and dtype.
    std::vector<std::string> synthesized;
    for (const TaskArg& a : t.args)
      if (!a.value) {
        const std::string ci = fresh(params + "_out" + std::to_string(synthesized.size()));
        used_.insert(ci + "_shapes");
        create_info(ci, a.type, e.span);
        synthesized.push_back(ci);
      }
    std::size_t next_synth = 0;
    for (const TaskArg& a : t.args) {
      std::string value;
      if (!a.value)
        value = synthesized[next_synth++];
      else if (a.direction == ir::ArgDirection::Scalar)
        value = "to_u64(" + strip_outer_parens(expr(a.value)) + ")";
      else
        value = name_of(a.value, &e.span);
      line(params + "." + std::string(add_method(a.direction)) + "(" + value + ");");
    }
    if (!t.deps.empty()) dependencies(params, t.deps, e.span);
    if (t.core_num)
      line(params + ".launch_spec." + std::string(abi_.core_count_method) + "(" +
           strip_outer_parens(expr(t.core_num)) + ");");
    if (t.sync_start) line(params + ".launch_spec.set_require_sync_start(true);");
    if (t.allow_early_resolve) line(params + ".set_allow_early_resolve(true);");
    if (t.predicate)
      line(params + ".set_predicate(" + strip_outer_parens(expr(t.predicate)) + ");");

    std::vector<std::int32_t> ids;
    for (const TaskKernel& k : kernels)
      ids.push_back(registered_func_id(regs_, k.code, signature, fn_.name));
    std::string submit;
    if (t.group.empty() || (kernels.size() == 1 && !t.dual_aiv)) {
      const bool aic = kernels[0].code.core_type == CoreType::AIC;
      submit = std::string(aic ? abi_.submit_aic : abi_.submit_aiv) + "(" + std::to_string(ids[0]) +
               ", " + params + ")";
    } else {
      // Slots {AIC, AIV lane 0, AIV lane 1}; a split AIV kernel fills both lanes.
      const std::string invalid(abi_.invalid_kernel_id);
      std::string slot[3] = {invalid, invalid, invalid};
      std::size_t lane = 1;
      for (std::size_t i = 0; i < kernels.size(); ++i) {
        if (kernels[i].code.core_type == CoreType::AIC)
          slot[0] = std::to_string(ids[i]);
        else
          slot[lane++] = std::to_string(ids[i]);
      }
      if (t.dual_aiv && lane == 2) slot[2] = slot[1];
      const std::string mixed = fresh("mixed_" + std::to_string(n));
      line(std::string(abi_.mixed_kernels_class) + " " + mixed + " = {" + slot[0] + ", " + slot[1] +
           ", " + slot[2] + "};");
      submit = std::string(abi_.submit_mixed) + "(" + mixed + ", " + params + ")";
    }
    std::string outs;
    if (needs_outputs(e, t, result)) {
      outs = fresh("task_" + std::to_string(n) + "_outs");
      line(std::string(abi_.task_outputs_class) + " " + outs + " = " + submit + ";");
    } else {
      line(submit + ";");
    }
    if (result) bind_result(e, t, *result, outs, synthesized.size());
  }

  /// True when a Submit's task outputs are read later: its task id, or an output the runtime
  /// allocated (a Call hands back only its arguments).
  bool needs_outputs(const ir::Expr& e, const TaskLaunch& t, const ir::Var* result) {
    if (!t.is_submit || !result) return false;
    auto it = elements_read_.find(result->uid);
    if (it == elements_read_.end()) return false;
    const auto returned = lineage_.returned_params(*program_.find(t.launched));
    const std::size_t given = static_cast<const ir::Submit&>(e).args.size();
    for (std::size_t k : it->second)
      if (k == returned.size() || (k < returned.size() && returned[k] && *returned[k] >= given))
        return true;
    return false;
  }

  /// Binds a launch's result: each returned value is the argument buffer the callee returns.
  void bind_result(const ir::Expr& e, const TaskLaunch& t, const ir::Var& result,
                   const std::string& outs, std::size_t synthesized) {
    const ir::Function& callee = *program_.find(t.launched);
    const std::vector<ir::ExprRef>& args =
        t.is_submit ? static_cast<const ir::Submit&>(e).args : static_cast<const ir::Call&>(e).args;
    // Runtime-allocated outputs, in order, read from the task's outputs where they are used.
    std::vector<std::string> allocated;
    for (std::size_t j = 0; j < synthesized; ++j)
      allocated.push_back(outs + ".get_ref(" + std::to_string(j) + ")");
    TupleInfo info;
    info.callee = t.launched;
    info.outs = t.is_submit ? outs : std::string();
    for (const auto& p : lineage_.returned_params(callee)) {
      std::optional<std::string> name;
      if (p && *p < args.size()) {
        if (const auto* v = ir::as<ir::Var>(args[*p].get())) {
          if (auto it = names_.find(v->uid); it != names_.end()) name = it->second;
        }
      } else if (p) {
        name = allocated[*p - args.size()];
      }
      info.elements.push_back(std::move(name));
    }
    if (ir::isa<ir::TupleType>(result.type)) {
      tuples_[result.uid] = std::move(info);
    } else if (!info.elements.empty() && info.elements[0]) {
      names_[result.uid] = *info.elements[0];
    } else {
      unnamed_[result.uid] = "the result of '" + t.launched +
                             "', which is not one of its parameters (a task hands back only the "
                             "buffers it was given)";
    }
  }

  /// The carries of a loop: a tensor keeps its init's buffer name, a scalar becomes a variable
  /// declared (and initialized) before the loop.
  Region carries(const ir::Stmt& loop, const std::vector<ir::IterArgRef>& iter_args,
                 const core::Span& span) {
    Region r;
    r.stmt = &loop;
    r.loop = true;
    for (const auto& ia : iter_args) {
      Carry c;
      if (ir::isa<ir::TensorType>(ia->type)) {
        c.tensor = true;
        c.name = name_of(ia->init_value, &span);
        if (switches(loop, r.carries.size())) {
          c.rebound = true;
          c.name = rebound_carry(ia->name_hint, c.name);
        }
      } else if (const std::string t = value_type(*ia->type, span); !t.empty()) {
        const std::string init = strip_outer_parens(expr(ia->init_value));
        c.name = fresh(ia->name_hint);
        line(t + " " + c.name + " = " + init + ";");
      } else {
        fail(span, "loop carry '" + ia->name_hint + "' is neither a tensor, a scalar nor an array");
      }
      names_[ia->uid] = c.name;
      r.carries.push_back(c);
    }
    return r;
  }

  /// The loop body inside braces opened by `head`; binds the loop's results to its carries.
  void loop_body(const std::string& head, Region r, const std::string& first_line,
                 const ir::Stmt& body, const std::vector<ir::VarRef>& return_vars) {
    line(head);
    regions_.push_back(std::move(r));
    ++indent_;
    if (!first_line.empty()) line(first_line);
    stmt(body);
    --indent_;
    Region done = std::move(regions_.back());
    regions_.pop_back();
    line("}");
    for (std::size_t k = 0; k < return_vars.size(); ++k)
      names_[return_vars[k]->uid] = done.carries[k].name;
  }

  /// `while`: the condition reads the carries, so it is tested at the top of each iteration.
  void while_loop(const ir::WhileStmt& w) {
    Region r = carries(w, w.iter_args, w.span);
    loop_body("while (true) {", std::move(r),
              "if (!(" + strip_outer_parens(expr(w.condition)) + ")) break;", *w.body,
              w.return_vars);
  }

  void loop(const ir::ForStmt& f) {
    Region r = carries(f, f.iter_args, f.span);
    const std::string t =
        ctype(static_cast<const ir::ScalarType&>(*f.loop_var->type).dtype, f.span);
    const std::string start = expr(f.start), stop = expr(f.stop), step = expr(f.step);
    const std::string i = fresh(f.loop_var->name_hint);
    names_[f.loop_var->uid] = i;
    std::string cond = i + " < " + stop;
    if (const auto* c = ir::as<ir::ConstInt>(f.step.get())) {
      if (c->value == 0) fail(f.span, "a loop step of 0 never ends");
      if (c->value < 0) cond = i + " > " + stop;
    } else {
      cond = "(" + step + " > 0 ? " + i + " < " + stop + " : " + i + " > " + stop + ")";
    }
    loop_body(
        "for (" + t + " " + i + " = " + start + "; " + cond + "; " + i + " += " + step + ") {",
        std::move(r), "", *f.body, f.return_vars);
  }

  void branch(const ir::IfStmt& s) {
    Region r;
    r.stmt = &s;
    for (const auto& rv : s.return_vars) {
      Carry c;
      if (ir::isa<ir::TensorType>(rv->type)) {
        c.tensor = true;
        if (switches(s, r.carries.size())) {
          c.rebound = true;
          c.name = rebound_carry(rv->name_hint, "");
        }
      } else if (const std::string t = value_type(*rv->type, s.span); !t.empty()) {
        c.name = fresh(rv->name_hint);
        line(t + " " + c.name + "{};");
      } else {
        fail(s.span,
             "if result '" + rv->name_hint + "' is neither a tensor, a scalar nor an array");
      }
      r.carries.push_back(c);
    }
    line("if (" + strip_outer_parens(expr(s.condition)) + ") {");
    regions_.push_back(std::move(r));
    ++indent_;
    stmt(*s.then_body);
    --indent_;
    if (s.else_body) {
      line("} else {");
      regions_.back().else_arm = true;
      ++indent_;
      stmt(*s.else_body);
      --indent_;
    }
    line("}");
    Region done = std::move(regions_.back());
    regions_.pop_back();
    for (std::size_t k = 0; k < s.return_vars.size(); ++k)
      names_[s.return_vars[k]->uid] = done.carries[k].name;
  }

  void yield(const ir::YieldStmt& y) {
    if (regions_.empty()) fail(y.span, "a yield outside a loop or if");
    Region& r = regions_.back();
    if (y.values.size() != r.carries.size())
      fail(y.span, "yields " + std::to_string(y.values.size()) + " values for " +
                       std::to_string(r.carries.size()) + " results");
    std::vector<std::pair<std::string, std::string>> assigns;  // (carry, value)
    for (std::size_t k = 0; k < y.values.size(); ++k) {
      Carry& c = r.carries[k];
      if (!c.tensor) {
        assigns.emplace_back(c.name, strip_outer_parens(expr(y.values[k])));
        continue;
      }
      const std::string& n = name_of(y.values[k], &y.span);
      if (c.rebound) {
        if (n != c.name) assigns.emplace_back(c.name, n);  // the descriptor is copied
      } else if (!r.loop && !r.else_arm) {
        c.name = n;  // the then-arm picks the buffer; the else-arm must agree
      } else if (n != c.name) {
        learn_switch(r, k);  // so it is held in a variable of its own
      }
    }
    if (assigns.size() == 1) {
      line(assigns[0].first + " = " + assigns[0].second + ";");
    } else if (assigns.size() > 1) {
      // Every next value is computed before any carry changes (a parallel assignment).
      std::vector<std::string> temps;
      for (const auto& [carry, value] : assigns) {
        temps.push_back(fresh(carry + "_next"));
        line("const auto " + temps.back() + " = " + value + ";");
      }
      for (std::size_t k = 0; k < assigns.size(); ++k)
        line(assigns[k].first + " = " + temps[k] + ";");
    }
  }

  struct TupleInfo {
    std::string callee;
    std::string outs;         ///< a Submit's task outputs (its last element is the task id)
    std::string outs_reason;  ///< why `outs` is out of reach here, if it is
    std::vector<std::optional<std::string>> elements;
  };

  const ir::Program& program_;
  const ir::Function& fn_;
  const KernelCodeMap& codes_;
  const std::vector<KernelRegistration>& regs_;
  const RuntimeAbi& abi_;
  Switching& switching_;
  bool learned_ = false;  ///< a switch was recorded: this attempt's source is discarded
  TaskResolver tasks_;
  transforms::ReturnLineage lineage_;
  std::string out_;
  int indent_ = 1;
  int task_counter_ = 0;
  int alloc_counter_ = 0;
  bool uses_floor_ = false;
  bool uses_elements_ = false;
  bool uses_arrays_ = false;
  std::set<std::string, std::less<>> used_;
  std::map<std::uint64_t, std::string> names_;    // Var uid -> C++ name (lookups only)
  std::map<std::uint64_t, std::string> unnamed_;  // Var uid -> why it has no C++ name
  std::map<std::uint64_t, TupleInfo> tuples_;     // tuple-typed launch results
  std::map<std::uint64_t, int> refs_;             // Var uid -> references in the body
  std::map<std::uint64_t, std::set<std::size_t>> elements_read_;  // tuple uid -> used elements
  std::vector<Region> regions_;
  std::vector<std::set<std::string>> scope_names_;  // C++ names declared per open runtime scope
};

}  // namespace detail

PYPTO_DECL std::string generate_orchestration_source(
    const ir::Program& program, const ir::Function& fn, const KernelCodeMap& codes,
    const std::vector<KernelRegistration>& registrations, const RuntimeAbi& abi) {
  // A tensor carry aliases its buffer (no copy) unless a yield gives it another one: then the
  // attempt records it and the next declares that carry a variable of its own, assigned a copy
  // of the runtime's tensor descriptor at each yield. Each attempt but the last learns a carry.
  detail::OrchestrationEmitter::Switching switching;
  for (;;) {
    detail::OrchestrationEmitter attempt(program, fn, codes, registrations, abi, switching);
    std::string source;
    try {
      source = attempt.source();
    } catch (const CodegenError&) {
      if (!attempt.learned()) throw;  // not a consequence of a carry learned in this attempt
      continue;
    }
    if (!attempt.learned()) return source;
  }
}

PYPTO_DECL OrchestrationResult
generate_orchestration(const ir::Program& program, const KernelCodeMap& codes,
                       const std::map<std::string, std::string, std::less<>>& code_sources,
                       const RuntimeAbi& abi, std::string_view entry) {
  const std::string program_name = program.name.empty() ? "Program" : program.name;
  OrchestrationResult r;
  r.kernel_registrations = assign_kernel_registrations(program, codes);
  std::vector<std::string> orchestrations;
  for (const auto& [name, fn] : program.functions) {
    if (!is_orchestration(program, *fn)) continue;
    orchestrations.push_back(name);
    r.orchestration_sources.push_back(
        {orchestration_source_path(name),
         generate_orchestration_source(program, *fn, codes, r.kernel_registrations, abi)});
  }
  std::string chosen(entry);
  if (chosen.empty()) {
    if (orchestrations.size() != 1)
      throw CodegenError(program_name, "has " + std::to_string(orchestrations.size()) +
                                           " Orchestration functions; name the entry one");
    chosen = orchestrations[0];
  } else if (std::find(orchestrations.begin(), orchestrations.end(), chosen) ==
             orchestrations.end()) {
    throw CodegenError(program_name, "has no Orchestration function '" + chosen + "'");
  }
  std::map<std::string, std::string> kernels;  // path -> text, sorted by path
  for (const KernelRegistration& reg : r.kernel_registrations) {
    auto it = code_sources.find(reg.code_name);
    if (it == code_sources.end())
      throw CodegenError(reg.code_name, "is a registered code unit without a source");
    kernels.emplace(kernel_source_path(reg.code_name, reg.core_type), it->second);
  }
  for (auto& [path, text] : kernels) r.kernel_sources.push_back({path, std::move(text)});
  std::vector<RuntimeDirection> entry_signature;  // the entry's tensors, by their directions
  const ir::Function& entry_fn = *program.find(chosen);
  for (std::size_t i = 0; i < entry_fn.params.size(); ++i)
    if (ir::isa<ir::TensorType>(entry_fn.params[i]->type))
      entry_signature.push_back(
          entry_fn.param_directions[i] == ir::ParamDirection::In    ? RuntimeDirection::In
          : entry_fn.param_directions[i] == ir::ParamDirection::Out ? RuntimeDirection::Out
                                                                    : RuntimeDirection::InOut);
  r.kernel_config = {"kernel_config.py",
                     kernel_config_text(abi, chosen, r.kernel_registrations, entry_signature)};
  return r;
}

PYPTO_DECL OrchestrationResult generate_orchestration(const ir::Program& program,
                                                      const KernelCodeUnits& units,
                                                      const RuntimeAbi& abi,
                                                      std::string_view entry) {
  return generate_orchestration(program, units.codes, units.sources, abi, entry);
}

}  // namespace pypto::codegen

// pypto/text/parser.ipp — the definitions of text/parser.hpp.
#pragma once

#include "pypto/text/parser.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "pypto/core/dtype.hpp"
#include "pypto/core/error.hpp"
#include "pypto/core/identifier.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/core/span.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/dim_read.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/identical.hpp"
#include "pypto/ir/implicit_kernel.hpp"
#include "pypto/ir/nesting.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/scope_attrs.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/text/call_types.hpp"
#include "pypto/text/host_values.hpp"
#include "pypto/text/parse_error.hpp"
#include "pypto/text/syntax.hpp"

namespace pypto::text {

namespace detail {

using syntax::ExprKind;
using syntax::StmtKind;
using SExpr = syntax::Expr;
using SStmt = syntax::Stmt;

/// The DSL's plain int constants, read as their values (upstream keeps them ints, so the printer
/// writes the int back): pl.AUTO lets the compiler choose (a base address); tile.MaskPattern
/// selects columns for the gather/scatter mask forms.
inline constexpr std::pair<std::string_view, std::int64_t> kIntConstants[] = {
    {"pl.AUTO", -1},
    {"pl.tile.MaskPattern.P0101", 1},
    {"pl.tile.MaskPattern.P1010", 2},
    {"pl.tile.MaskPattern.P0001", 3},
    {"pl.tile.MaskPattern.P0010", 4},
    {"pl.tile.MaskPattern.P0100", 5},
    {"pl.tile.MaskPattern.P1000", 6},
    {"pl.tile.MaskPattern.P1111", 7}};

/// `pl.tile.load` for a Name/Attribute chain; empty for anything else.
inline std::string dotted(const SExpr& e) {
  if (e.kind == ExprKind::Name) return e.text;
  if (e.kind != ExprKind::Attribute) return {};
  std::string base = dotted(e.item(0));
  return base.empty() ? std::string() : base + "." + e.text;
}

/// The text shown as the offending token of an expression.
inline std::string token_of(const SExpr& expr) {
  // Descends to the leftmost token without recursion: a chain is as deep as it is long.
  std::string suffix;
  for (const SExpr* e = &expr;; e = &e->item(0)) {
    switch (e->kind) {
      case ExprKind::Name:
      case ExprKind::Attribute: return (dotted(*e).empty() ? e->text : dotted(*e)) + suffix;
      case ExprKind::Call: suffix.insert(0, "("); continue;
      case ExprKind::Subscript: suffix.insert(0, "["); continue;
      case ExprKind::Binary:
      case ExprKind::Compare:
      case ExprKind::BoolOp:
        if (e->parenthesized) return "(" + suffix;
        continue;
      case ExprKind::Tuple: return "(" + suffix;
      case ExprKind::List:
      case ExprKind::ListComp: return "[" + suffix;
      case ExprKind::Dict: return "{" + suffix;
      case ExprKind::String: return "\"" + e->text + "\"" + suffix;
      case ExprKind::True: return "True" + suffix;
      case ExprKind::False: return "False" + suffix;
      case ExprKind::None: return "None" + suffix;
      case ExprKind::Ellipsis: return "..." + suffix;
      case ExprKind::Unary:
        return (e->parenthesized ? "(" : e->text == "not" ? "not" : e->text) + suffix;
      default: return e->text + suffix;
    }
  }
}

[[noreturn]] inline void fail_at(const SExpr& e, std::string expected) {
  throw ParseError(e.pos, token_of(e), std::move(expected));
}

/// A keyword of a call, looked up by name.
inline const SExpr* keyword(const SExpr& call, std::string_view name) {
  for (const auto& k : call.keywords)
    if (k.name == name) return k.value.get();
  return nullptr;
}

/// Fails on a keyword of `call` outside `allowed`.
inline void only_keywords(const SExpr& call, std::initializer_list<std::string_view> allowed,
                          std::string_view what) {
  for (const auto& k : call.keywords) {
    bool ok = false;
    for (auto a : allowed) ok = ok || k.name == a;
    if (!ok) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      throw ParseError(k.pos, k.name,
                       std::string(what) + " takes " +
                           (list.empty() ? std::string("no keywords") : "the keywords " + list));
    }
  }
}

inline void positional_count(const SExpr& call, std::size_t lo, std::size_t hi,
                             std::string_view what) {
  const std::size_t n = call.items.size() - 1;
  if (n < lo || n > hi)
    fail_at(call,
            std::string(what) + " takes " +
                (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                " positional argument" + (hi == 1 ? "" : "s") + ", got " + std::to_string(n));
}

/// True for `5`, `2.5`, `-5` written bare (a literal whose dtype the context may choose).
inline bool is_bare_literal(const SExpr& e) {
  if (e.kind == ExprKind::Int || e.kind == ExprKind::Float) return true;
  return e.kind == ExprKind::Unary && e.text == "-" && !e.item(0).parenthesized &&
         (e.item(0).kind == ExprKind::Int || e.item(0).kind == ExprKind::Float);
}

/// Runs `f` when it goes out of scope (undoes a push or a depth count on every exit path).
template <class F>
struct OnExit {
  F f;
  ~OnExit() { f(); }
};
template <class F>
OnExit(F) -> OnExit<F>;

/// One more InCore scope around the statements built while it lives (when `counted`): a split
/// region inside one is not a kernel of its own.
class InCoreDepth {
 public:
  explicit InCoreDepth(std::size_t& depth, bool counted = true) : depth_(depth), counted_(counted) {
    depth_ += counted_ ? 1 : 0;
  }
  ~InCoreDepth() { depth_ -= counted_ ? 1 : 0; }
  InCoreDepth(const InCoreDepth&) = delete;
  InCoreDepth& operator=(const InCoreDepth&) = delete;

 private:
  std::size_t& depth_;
  bool counted_;
};

/// Where the yields of a region bind their results: the names (and annotations) written on the
/// left of `= pl.yield_(...)`, recorded by the first arm that writes them.
struct RegionResults {
  bool seen = false;
  std::vector<std::string> names;
  std::vector<const SExpr*> name_nodes;
  std::vector<ir::TypeRef> annotations;   // null where not annotated
  std::vector<ir::ExprRef> first_values;  // the first yield's values (their types are the default)
  bool closed = false;  // this arm's `r = pl.yield_(...)` was seen: nothing may follow it
};

/// The names of one function (Python: one namespace per function).
struct FunctionScope {
  std::map<std::string, ir::VarRef, std::less<>> names;
  std::map<std::string, ir::TypeRef, std::less<>> declared;  // `x: T` without a value
  std::map<std::string, ir::VarRef, std::less<>> bases;      // implicit allocation bases
  std::map<std::string, ir::ExprRef, std::less<>> values;    // inline parameters bound to values
  std::map<std::string, const syntax::Expr*, std::less<>>
      windows;  // `x: pl._dump.WindowBuffer(...)`
};

class Builder {
 public:
  Builder(const ir::OpRegistry& ops, std::string file_name, std::string_view source)
      : ops_(ops),
        file_(core::Ref<const core::SourceFile>(new core::SourceFile(std::move(file_name)))),
        source_(source) {}

  ir::ProgramRef program(const syntax::Module& module) {
    std::string name;
    TextPos class_pos = module.empty() ? TextPos{} : module.front()->pos;
    std::vector<const SStmt*> defs;
    std::set<const SStmt*> module_level;  // defs outside the class: no `self`
    for (const auto& s : module) {
      switch (s->kind) {
        case StmtKind::Import: check_import(*s); break;
        case StmtKind::Assign: dynamic_symbol(*s); break;
        case StmtKind::ClassDef: {
          if (!name.empty()) throw ParseError(s->pos, "class", "one @pl.program class per text");
          check_program_decorator(*s);
          name = s->name;
          class_pos = s->pos;
          for (const auto& m : s->body) {
            if (m->kind == StmtKind::FunctionDef && is_inline_def(*m))
              throw ParseError(m->pos, m->name,
                               "@pl.inline only on a module-level function (a method is not "
                               "inlined)");
            if (m->kind == StmtKind::FunctionDef)
              defs.push_back(m.get());
            else if (!(m->kind == StmtKind::Pass || is_docstring(*m)))
              throw ParseError(m->pos, first_token(*m),
                               "a @pl.function method in the program class");
          }
          break;
        }
        case StmtKind::FunctionDef:
          if (is_inline_def(*s)) {
            if (!inlines_.emplace(s->name, s.get()).second)
              throw ParseError(s->pos, s->name, "an inline function name not used before");
            break;
          }
          defs.push_back(s.get());
          module_level.insert(s.get());
          externals_.insert(s->name);  // until a class makes the text a program of methods
          break;
        case StmtKind::Pass: break;
        default:
          if (is_docstring(*s)) break;
          throw ParseError(s->pos, first_token(*s),
                           "an import, a `N = pl.dynamic(\"N\")` symbol, a @pl.program class or a "
                           "@pl.function");
      }
    }
    in_class_ = !name.empty();
    if (!in_class_) externals_.clear();
    std::vector<Signature> sigs;
    std::set<std::string> seen;
    for (const SStmt* d : defs) {
      if (!seen.insert(d->name).second || (module_level.count(d) && inlines_.count(d->name)))
        throw ParseError(d->pos, d->name, "a function name not used before in this program");
      sigs.push_back(signature(*d, /*method=*/in_class_ && !module_level.count(d)));
      FunctionSignature& known = functions_[d->name];
      for (const ir::Param& p : sigs.back().params) known.params.push_back(p.var);
      known.returns = sigs.back().returns;
    }
    std::vector<ir::FunctionRef> fns;
    for (auto& sig : sigs) fns.push_back(function(sig));
    if (!externals_.empty()) fns = without_uncalled_externals(std::move(fns));
    return guard(class_pos, name.empty() ? "program" : name, [&] {
      return ir::Program::make(name.empty() ? "Program" : name, std::move(fns));
    });
  }

 private:
  struct Signature {
    const SStmt* def = nullptr;
    std::vector<ir::Param> params;
    std::vector<ir::TypeRef> returns;
    ir::FunctionType type = ir::FunctionType::Opaque;
    ir::FunctionOptions options;
    const SExpr* attrs = nullptr;    // the decorator's `attrs={...}`, read in the function's scope
    std::optional<bool> auto_scope;  // the decorator's `auto_scope=`, kept as a function attr
    FunctionScope scope;
  };

  // ---- errors ----

  /// Runs `f`, turning a library error (an IR builder's check) into a ParseError at `pos`.
  template <class F>
  auto guard(TextPos pos, std::string_view token, F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (const ParseError&) {
      throw;
    } catch (const core::Error& e) {
      throw ParseError(pos, std::string(token), e.what());
    }
  }
  template <class F>
  auto guard(const SExpr& at, F&& f) -> decltype(f()) {
    return guard(at.pos, token_of(at), std::forward<F>(f));
  }

  static std::string first_token(const SStmt& s) {
    if (s.target) return token_of(*s.target);
    if (s.value) return token_of(*s.value);
    return s.name;
  }

  core::Span span(TextPos p) const {
    core::Span s;
    s.file = file_;
    s.line = s.end_line = p.line;
    s.column = s.end_column = p.column;
    return s;
  }

  static bool is_docstring(const SStmt& s) {
    return s.kind == StmtKind::Expr && s.value->kind == ExprKind::String;
  }

  // ---- module level ----

  void check_import(const SStmt& s) {
    if ((s.text == "pypto.language" && s.name == "pl") ||
        (s.text == "pypto.language.distributed" && s.name == "pld"))
      return;
    throw ParseError(s.pos, "import",
                     "`import pypto.language as pl` or `import pypto.language.distributed as pld`");
  }

  /// A function decorated `@pl.inline`: not a function of the program; a call of it builds its
  /// body in place (upstream expands it as it parses).
  static bool is_inline_def(const SStmt& s) {
    return s.decorators.size() == 1 && dotted(*s.decorators[0]) == "pl.inline";
  }

  /// `@pl.program`, or `@pl.program(strict_ssa=...)`: strict_ssa only tells upstream's parser to
  /// refuse rebinding, and this parser reads both forms.
  void check_program_decorator(const SStmt& s) {
    if (s.decorators.size() != 1)
      throw ParseError(s.pos, s.name, "a class decorated with @pl.program");
    const SExpr& d = *s.decorators[0];
    if (dotted(d) == "pl.program") return;
    if (d.kind != ExprKind::Call || dotted(d.item(0)) != "pl.program")
      throw ParseError(s.pos, s.name, "a class decorated with @pl.program");
    positional_count(d, 0, 0, "@pl.program");
    only_keywords(d, {"strict_ssa"}, "@pl.program");
    if (const SExpr* k = keyword(d, "strict_ssa")) bool_literal(*k);
  }

  /// `N = pl.dynamic("N"[, pl.INT64])`: a program-level shape symbol.
  void dynamic_symbol(const SStmt& s) {
    const SExpr* v = s.value.get();
    if (s.target->kind != ExprKind::Name || s.annotation || v->kind != ExprKind::Call ||
        dotted(v->item(0)) != "pl.dynamic")
      throw ParseError(s.pos, first_token(s), "a shape symbol `N = pl.dynamic(\"N\")`");
    positional_count(*v, 1, 2, "pl.dynamic");
    only_keywords(*v, {}, "pl.dynamic");
    if (v->item(1).kind != ExprKind::String) fail_at(v->item(1), "the symbol's name as a string");
    core::DataType dt = core::DataType::INDEX;
    if (v->items.size() > 2) dt = dtype(v->item(2));
    const std::string& name = s.target->text;
    if (dynamic_.count(name)) fail_at(*s.target, "a shape symbol name not declared before");
    dynamic_[name] = ir::Var::make(v->item(1).text, ir::ScalarType::make(dt), span(s.pos));
  }

  // ---- functions ----

  /// `fns` without the module-level functions no method reaches by calls: upstream PyPTO adds
  /// an external @pl.function to the program when the program calls it.
  std::vector<ir::FunctionRef> without_uncalled_externals(std::vector<ir::FunctionRef> fns) {
    std::set<std::string> reached;
    std::vector<const ir::Function*> todo;
    for (const auto& f : fns)
      if (!externals_.count(f->name)) todo.push_back(f.get());
    while (!todo.empty()) {
      const ir::Function* f = todo.back();
      todo.pop_back();
      if (!f->body) continue;
      ir::for_each_node(ir::NodeRef(f->body), [&](const ir::Node& n) {
        const auto* c = ir::as<ir::Call>(&n);
        const ir::Op* op = c ? c->op.get() : nullptr;
        if (const auto* sub = ir::as<ir::Submit>(&n)) op = sub->op.get();
        if (!op || !ir::isa<ir::GlobalVar>(*op) || !externals_.count(op->name) ||
            !reached.insert(op->name).second)
          return;
        for (const auto& g : fns)
          if (g->name == op->name) todo.push_back(g.get());
      });
    }
    std::erase_if(fns, [&](const ir::FunctionRef& f) {
      return externals_.count(f->name) && !reached.count(f->name);
    });
    return fns;
  }

  /// Whether a bare name `d` calls a program function: any in a text of functions only, an
  /// external (module-level) one beside a program class.
  bool bare_callee(const std::string& d) const {
    return functions_.count(d) && (!in_class_ || externals_.count(d));
  }

  Signature signature(const SStmt& def, bool method) {
    Signature sig;
    sig.def = &def;
    decorator(def, sig);
    scope_ = FunctionScope();
    std::size_t first = 0;
    if (is_host_sub_worker(sig)) {
      if (!def.params.empty() && def.params[0].name == "self")
        throw ParseError(def.params[0].pos, "self",
                         "no `self`: a HOST sub-worker is host code, not a method");
    } else if (method && !def.params.empty() && def.params[0].name == "self") {
      // A method takes `self` first; upstream also reads a method without it.
      if (def.params[0].annotation)
        throw ParseError(def.params[0].pos, "self", "`self` without an annotation");
      first = 1;
    }
    // Parameters are built on demand so an annotation may name a later parameter.
    pending_params_.clear();
    param_state_.assign(def.params.size(), 0);
    param_vars_.assign(def.params.size(), nullptr);
    param_dirs_.assign(def.params.size(), ir::ParamDirection::In);
    for (std::size_t i = first; i < def.params.size(); ++i) {
      const auto& p = def.params[i];
      if (p.name == "self") throw ParseError(p.pos, p.name, "`self` only as the first parameter");
      if (pending_params_.count(p.name))
        throw ParseError(p.pos, p.name, "a parameter name not used before");
      if (!p.annotation) throw ParseError(p.pos, p.name, "a type annotation on the parameter");
      pending_params_[p.name] = i;
    }
    in_signature_ = true;
    for (std::size_t i = first; i < def.params.size(); ++i) build_param(i);
    for (std::size_t i = first; i < def.params.size(); ++i)
      sig.params.push_back({param_vars_[i], param_dirs_[i]});
    if (def.returns) sig.returns = return_types(*def.returns);
    in_signature_ = false;
    pending_params_.clear();
    sig.scope = std::move(scope_);
    return sig;
  }

  void build_param(std::size_t i) {
    if (param_state_[i] == 2) return;
    const auto& p = sig_def_params()[i];
    if (param_state_[i] == 1)
      throw ParseError(p.pos, p.name,
                       "parameter annotations that do not refer to each other in a cycle");
    param_state_[i] = 1;
    const SExpr* ann = p.annotation.get();
    const std::string head = ann->kind == ExprKind::Subscript ? dotted(ann->item(0)) : "";
    if (head == "pl.Out" || head == "pl.InOut") {
      param_dirs_[i] = head == "pl.Out" ? ir::ParamDirection::Out : ir::ParamDirection::InOut;
      ann = &ann->item(1);
    }
    if (is_window(*ann)) {
      param_vars_[i] = window(p.name, *ann, p.pos);
    } else {
      ir::TypeRef t = type(*ann);
      if (param_dirs_[i] == ir::ParamDirection::InOut && ir::isa<ir::ScalarType>(t))
        throw ParseError(p.pos, p.name, "a tensor or tile for an InOut parameter (a scalar is In)");
      param_vars_[i] = ir::Var::make(p.name, std::move(t), span(p.pos));
    }
    scope_.names[p.name] = param_vars_[i];
    param_state_[i] = 2;
  }

  const std::vector<syntax::Param>& sig_def_params() const { return current_def_->params; }

  void decorator(const SStmt& def, Signature& sig) {
    current_def_ = &def;
    if (def.decorators.empty()) return;  // a plain `def` is an Opaque function
    if (def.decorators.size() != 1)
      throw ParseError(def.pos, def.name, "one @pl.function decorator");
    const SExpr& d = *def.decorators[0];
    if (dotted(d) == "pl.function") return;
    if (d.kind != ExprKind::Call || dotted(d.item(0)) != "pl.function")
      fail_at(d, "@pl.function or @pl.function(type=..., level=..., role=..., attrs={...})");
    positional_count(d, 0, 0, "@pl.function");
    only_keywords(d, {"type", "level", "role", "strict_ssa", "auto_scope", "attrs"},
                  "@pl.function");
    // strict_ssa only tells upstream's parser to reject rebinding; this parser reads both forms.
    if (const SExpr* a = keyword(d, "auto_scope")) sig.auto_scope = bool_literal(*a);
    sig.attrs = keyword(d, "attrs");
    if (const SExpr* t = keyword(d, "type")) sig.type = enum_value<ir::FunctionType>(*t);
    if (const SExpr* l = keyword(d, "level")) sig.options.with_level(enum_value<ir::Level>(*l));
    if (const SExpr* r = keyword(d, "role")) sig.options.with_role(enum_value<ir::Role>(*r));
  }

  std::vector<ir::TypeRef> return_types(const SExpr& e) {
    if (e.kind == ExprKind::None) return {};
    if (e.kind == ExprKind::Subscript && dotted(e.item(0)) == "tuple") {
      std::vector<ir::TypeRef> out;
      const SExpr& idx = e.item(1);
      if (idx.kind == ExprKind::Tuple && !idx.parenthesized)
        for (const auto& t : idx.items) out.push_back(type(*t));
      else
        out.push_back(type(idx));
      return out;
    }
    return {type(e)};
  }

  ir::FunctionRef function(Signature& sig) {
    const SStmt& def = *sig.def;
    current_def_ = &def;
    scope_ = std::move(sig.scope);
    fold_extent_reads_ = sig.type == ir::FunctionType::Orchestration;
    function_type_ = sig.type;
    dump_tags_.clear();
    param_vars_.clear();  // the signature pass left the last function's parameters here
    for (const ir::Param& p : sig.params) param_vars_.push_back(p.var);
    kernel_function_ = ir::is_kernel_function(sig.type);
    // The attrs: the decorator's `attrs={...}`, then each `pl.func_attr({...})` of the body's
    // prologue (after a docstring), then `auto_scope=`; a key given twice is an error.
    ir::Attrs attrs;
    if (sig.attrs) merge_function_attrs(attrs, *sig.attrs, false);
    std::size_t first = 0;
    const auto& body = def.body;
    while (first < body.size() && is_docstring(*body[first])) ++first;
    for (; first < body.size() && body[first]->kind == StmtKind::Expr &&
           body[first]->value->kind == ExprKind::Call &&
           dotted(body[first]->value->item(0)) == "pl.func_attr";
         ++first) {
      const SExpr& call = *body[first]->value;
      positional_count(call, 1, 1, "pl.func_attr");
      only_keywords(call, {}, "pl.func_attr");
      merge_function_attrs(attrs, call.item(1), true);
    }
    if (sig.auto_scope) {
      if (attrs.contains(ir::kAutoScopeAttr))
        fail_at(*sig.attrs, "no \"auto_scope\" key beside the auto_scope= keyword");
      attrs = attrs.with(std::string(ir::kAutoScopeAttr), *sig.auto_scope);
    }
    ir::StmtRef body_stmt;
    const bool declaration = body.size() == first + 1 && body[first]->kind == StmtKind::Expr &&
                             body[first]->value->kind == ExprKind::Ellipsis;
    if (declaration) {
      sig.options.with_runtime_binding();
    } else if (is_host_sub_worker(sig)) {
      body_stmt = ir::InlineStmt::make(host_code(def, first), span(body[first]->pos));
    } else {
      body_stmt = body_slot(body, def.pos, first);
    }
    sig.options.with_span(span(def.pos));
    return guard(def.pos, def.name, [&] {
      return ir::Function::make(def.name, sig.params, sig.returns, body_stmt, sig.type, attrs,
                                sig.options);
    });
  }

  /// A HOST sub-worker is host code when the decorator says so (level and role written out, as
  /// upstream decides): an InCore kernel at HOST level is a sub-worker by default but DSL code.
  static bool is_host_sub_worker(const Signature& sig) {
    return ir::is_host_sub_worker(sig.options.level, sig.options.role);
  }

  /// The source of `def`'s body from statement `first` on, as written, without the indentation
  /// of its first statement and without the blank and comment lines that end it.
  std::string host_code(const SStmt& def, std::size_t first) const {
    const TextPos from = def.body[first]->pos;
    std::vector<std::string_view> lines;
    std::size_t at = 0;
    for (std::uint32_t n = 1; at <= source_.size() && n < def.end.line; ++n) {
      std::size_t eol = source_.find('\n', at);
      if (eol == std::string_view::npos) eol = source_.size();
      if (n >= from.line) {
        std::string_view l = source_.substr(at, eol - at);
        if (l.ends_with('\r')) l.remove_suffix(1);
        lines.push_back(l);
      }
      at = eol + 1;
    }
    auto blank = [](std::string_view l) {
      const std::size_t k = l.find_first_not_of(" \t");
      return k == std::string_view::npos || l[k] == '#';
    };
    while (!lines.empty() && blank(lines.back())) lines.pop_back();
    const std::size_t indent = from.column - 1;
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::string_view l = lines[i];
      const std::size_t lead = std::min(indent, std::min(l.size(), l.find_first_not_of(" \t")));
      l.remove_prefix(i == 0 ? indent : lead);
      if (i) out += '\n';
      out += l;
    }
    return out;
  }

  /// Adds the dict `{"key": value, ...}` of `@pl.function(attrs=...)` or of a `pl.func_attr`
  /// prologue statement (`prologue`) to `into`, read where the parameters are in scope. A
  /// `"split": pl.SplitMode.NONE` entry is dropped (no `split` key is the one no-split).
  void merge_function_attrs(ir::Attrs& into, const SExpr& dict, bool prologue) {
    const ir::Attrs attrs = attr_dict(dict);
    for (std::size_t i = 0; i < attrs.size(); ++i) {
      const auto& e = attrs.entries[i];
      const SExpr& key = dict.item(2 * i);
      if (prologue && ir::decorator_only_attr(e.key))
        fail_at(key, "a key other than '" + e.key +
                         "', which cannot be set with pl.func_attr (a decorator keyword)");
      if (into.contains(e.key)) fail_at(key, "no duplicate attribute key '" + e.key + "'");
      const auto* mode = e.value.get_if<ir::EnumValue>();
      if (e.key == "split" && mode && mode->get<ir::SplitMode>() == ir::SplitMode::None) continue;
      into.entries.push_back(e);
    }
  }

  // ---- types ----

  core::DataType dtype(const SExpr& e) {
    const std::string d = dotted(e);
    if (d.starts_with("pl."))
      if (auto t = core::parse_dtype(std::string_view(d).substr(3))) return *t;
    fail_at(e, "a dtype such as pl.FP32 or pl.INDEX");
  }

  template <ir::IrEnum E>
  E enum_value(const SExpr& e) {
    const std::string d = dotted(e);
    const std::string prefix =
        std::string(ir::enum_module<E>()) + "." + std::string(ir::EnumTraits<E>::type_name) + ".";
    const std::string_view rest = ir::strip_dsl_module(d);
    if (const std::size_t dot = rest.rfind('.');
        dot != std::string_view::npos && ir::is_enum_type_name<E>(rest.substr(0, dot)))
      if (auto v = ir::parse_enum<E>(rest.substr(dot + 1))) return *v;
    std::string names;
    for (const ir::EnumSpelling& s : ir::spellings<E>())
      names += (names.empty() ? "" : ", ") + std::string(s.name);
    fail_at(e, "a " + prefix + "<value> (" + names + ")");
  }

  ir::TypeRef type(const SExpr& e) {
    if (++type_depth_ > core::kMaxNesting)
      fail_at(e, "types nested at most " + std::to_string(core::kMaxNesting) + " deep");
    const OnExit leave{[this] { --type_depth_; }};
    if (e.kind == ExprKind::Subscript) return subscript_type(e);
    const std::string d = dotted(e);
    if (d.starts_with("pl."))
      if (auto t = core::parse_dtype(std::string_view(d).substr(3)))
        return ir::ScalarType::make(*t);
    if (d == "pl._dump.Unknown") return ir::UnknownType::make();
    if (d == "pl.MemRefType") return ir::MemRefType::make();
    if (d == "pl.Ptr") return ir::PtrType::make();
    if (d == "pl._dump.WindowBuffer") return ir::WindowBufferType::make();
    if (d == "pld.CommCtx" || d == "pld.CommCtxType") return ir::CommCtxType::make();
    if (d == "pl.PrefetchAsyncContext") return ir::PrefetchAsyncContextType::make();
    if (d == "pl.AsyncEvent") return ir::AsyncEventType::make();
    if (d == "pl.AsyncSession") return ir::AsyncSessionType::make();
    fail_at(e, "a type: pl.Tensor[...], pl.Tile[...], pl.Scalar[...], pl.Tuple[...] or a dtype");
  }

  ir::TypeRef subscript_type(const SExpr& e) {
    const std::string head = dotted(e.item(0));
    const SExpr& idx = e.item(1);
    std::vector<const SExpr*> parts;
    if (idx.kind == ExprKind::Tuple && !idx.parenthesized)
      for (const auto& p : idx.items) parts.push_back(p.get());
    else
      parts.push_back(&idx);
    if (head == "pl.Scalar") {
      if (parts.size() != 1) fail_at(idx, "one dtype: pl.Scalar[pl.INT64]");
      return ir::ScalarType::make(dtype(*parts[0]));
    }
    if (head == "pl.Array") {
      if (parts.size() != 2) fail_at(idx, "an extent and a dtype: pl.Array[4, pl.INT32]");
      const std::int64_t extent = non_negative_int(*parts[0], "a constant extent");
      const core::DataType dt = dtype(*parts[1]);
      return guard(e, [&]() -> ir::TypeRef { return ir::ArrayType::make(dt, extent); });
    }
    if (head == "pl.Tuple" || head == "tuple") {
      std::vector<ir::TypeRef> types;
      if (!(parts.size() == 1 && parts[0]->kind == ExprKind::Tuple && parts[0]->items.empty()))
        for (const SExpr* p : parts) types.push_back(type(*p));
      return ir::TupleType::make(std::move(types));
    }
    if (head == "pl.Tensor" || head == "pl.Tile" || head == "pld.DistributedTensor") {
      const bool tile = head == "pl.Tile";
      // Upstream's explicit dumps end a distributed tensor's annotation with a quoted
      // "window_buffer=<name>" note; the window buffer it names is not part of the type.
      if (head == "pld.DistributedTensor" && parts.size() > 2 &&
          parts.back()->kind == ExprKind::String &&
          parts.back()->text.starts_with("window_buffer="))
        parts.pop_back();
      if (parts.size() < 2)
        fail_at(idx, "a shape list and a dtype: " + head + "[[16, 16], pl.FP32]");
      std::vector<ir::ExprRef> shape = dims(*parts[0]);
      const core::DataType dt = dtype(*parts[1]);
      std::optional<ir::TensorView> tview;
      std::optional<ir::TileView> lview;
      std::optional<ir::MemorySpace> space;
      ir::MemRefRef memref;
      for (std::size_t i = 2; i < parts.size(); ++i) {
        const SExpr& p = *parts[i];
        const std::string callee = p.kind == ExprKind::Call ? dotted(p.item(0)) : "";
        const std::string d = dotted(p);
        const bool memref_slot = p.kind == ExprKind::Subscript &&
                                 p.item(0).kind == ExprKind::Call &&
                                 dotted(p.item(0).item(0)) == "pl.MemRef";
        if ((callee == "pl.MemRef" || memref_slot) && !memref) {
          memref = memref_expr(p);
        } else if (!tile && callee == "pl.TensorView" && !tview) {
          tview = tensor_view(p);
        } else if (!tile && d.starts_with("pl.TensorLayout.") && !tview) {
          tview = ir::TensorView{};
          tview->layout = enum_value<ir::TensorLayout>(p);
        } else if (!tile && d.starts_with("pl.") && !tview &&
                   ir::parse_enum<ir::TensorLayout>(std::string_view(d).substr(3))) {
          tview = ir::TensorView{};  // `pl.NZ`: upstream's layout shorthand
          tview->layout = *ir::parse_enum<ir::TensorLayout>(std::string_view(d).substr(3));
        } else if (tile && callee == "pl.TileView" && !lview) {
          lview = tile_view(p);
        } else if (tile && (d.starts_with("pl.Mem.") || d.starts_with("pl.MemorySpace.")) &&
                   !space) {
          space = enum_value<ir::MemorySpace>(p);
        } else if (p.kind == ExprKind::String) {
          fail_at(p,
                  "no string here: a quoted \"window_buffer=<name>\" note only ends a "
                  "pld.DistributedTensor[...]");
        } else {
          fail_at(p, tile ? "at most one each of pl.MemRef(...), a pl.Mem.<space> and "
                            "pl.TileView(...) after the dtype"
                          : "at most one each of pl.TensorView(...) (or a pl.TensorLayout) and "
                            "pl.MemRef(...) after the dtype");
        }
      }
      return guard(e, [&]() -> ir::TypeRef {
        if (tile) return ir::TileType::make(dt, std::move(shape), space, lview, memref);
        return ir::TensorType::make(dt, std::move(shape), tview, memref,
                                    head == "pld.DistributedTensor");
      });
    }
    if (head == "pl.Out" || head == "pl.InOut")
      fail_at(e, head + "[...] only on a function parameter");
    fail_at(e,
            "a type: pl.Tensor[...], pl.Tile[...], pl.Scalar[...], pl.Tuple[...] or "
            "pld.DistributedTensor[...]");
  }

  std::vector<ir::ExprRef> dims(const SExpr& list) {
    if (list.kind != ExprKind::List && list.kind != ExprKind::Tuple)
      fail_at(list, "a list of dimensions such as [16, N]");
    std::vector<ir::ExprRef> out;
    for (const auto& d : list.items) out.push_back(expr(*d));
    return out;
  }

  ir::TensorView tensor_view(const SExpr& call) {
    positional_count(call, 0, 0, "pl.TensorView");
    only_keywords(call, {"valid_shape", "stride", "layout", "pad"}, "pl.TensorView");
    ir::TensorView v;
    if (const SExpr* k = keyword(call, "valid_shape")) v.valid_shape = dims(*k);
    if (const SExpr* k = keyword(call, "stride")) v.stride = dims(*k);
    if (const SExpr* k = keyword(call, "layout")) v.layout = enum_value<ir::TensorLayout>(*k);
    if (const SExpr* k = keyword(call, "pad")) v.pad = enum_value<ir::PadValue>(*k);
    return v;
  }

  ir::TileView tile_view(const SExpr& call) {
    positional_count(call, 0, 0, "pl.TileView");
    only_keywords(call,
                  {"valid_shape", "stride", "start_offset", "blayout", "slayout", "fractal", "pad",
                   "compact"},
                  "pl.TileView");
    ir::TileView v;
    if (const SExpr* k = keyword(call, "valid_shape")) v.valid_shape = dims(*k);
    if (const SExpr* k = keyword(call, "stride")) v.stride = dims(*k);
    if (const SExpr* k = keyword(call, "start_offset")) v.start_offset = expr(*k);
    if (const SExpr* k = keyword(call, "blayout")) v.blayout = enum_value<ir::TileLayout>(*k);
    if (const SExpr* k = keyword(call, "slayout")) v.slayout = enum_value<ir::TileLayout>(*k);
    if (const SExpr* k = keyword(call, "fractal"))
      v.fractal = static_cast<std::uint64_t>(non_negative_int(*k, "a fractal size in bytes"));
    if (const SExpr* k = keyword(call, "pad")) v.pad = enum_value<ir::PadValue>(*k);
    if (const SExpr* k = keyword(call, "compact")) v.compact = enum_value<ir::CompactMode>(*k);
    return v;
  }

  std::int64_t int_literal(const SExpr& e, std::string_view what) {
    if (e.kind == ExprKind::Int && e.int_value <= static_cast<std::uint64_t>(INT64_MAX))
      return static_cast<std::int64_t>(e.int_value);
    if (e.kind == ExprKind::Unary && e.text == "-" && e.item(0).kind == ExprKind::Int)
      return static_cast<std::int64_t>(0 - e.item(0).int_value);
    fail_at(e, std::string(what));
  }

  std::int64_t non_negative_int(const SExpr& e, std::string_view what) {
    const std::int64_t v = int_literal(e, what);
    if (v < 0) fail_at(e, std::string(what) + " (not negative)");
    return v;
  }

  /// A MemRef, in each form upstream reads:
  ///   `pl.MemRef(base, offset, size[, pinned=True][, slots=N][, slot_index=e])` (a resolved
  ///     view; `base` a variable or a quoted name),
  ///   `pl.MemRef("name"[, slots=N])` (an author-declared allocation: pinned, offset 0, size 0,
  ///     left to InitMemRef; the name is its own namespace, never a parameter),
  ///   `pl.MemRef([slots=N])` (the same, unnamed: a fresh allocation at each occurrence, where
  ///     upstream names it after the Python variable holding it),
  ///   `pl.MemRef(addr, size, id)` and `pl.MemRef(pl.Mem.<space>, addr, size, id)` (legacy:
  ///     base `mem_<id>` / `mem_<space>_<id>`, offset `addr`),
  /// and any of them subscripted, `pl.MemRef(...)[k]`: slot `k` of a multi-slot allocation.
  ir::MemRefRef memref_expr(const SExpr& e) {
    if (e.kind == ExprKind::Subscript) {
      const SExpr& call = e.item(0);
      if (call.kind != ExprKind::Call || dotted(call.item(0)) != "pl.MemRef")
        fail_at(e, "a slot of a MemRef: pl.MemRef(...)[k]");
      if (keyword(call, "slot_index")) fail_at(e, "one slot index: [k] or slot_index=, not both");
      const ir::MemRefRef m = memref_expr(call);
      if (m->slot_count <= 1)
        fail_at(e, "a multi-slot MemRef (slots=N, N > 1) to take a slot [k] of");
      ir::ExprRef k = expr(e.item(1));
      if (const auto* c = ir::as<ir::ConstInt>(k.get());
          c && (c->value < 0 || c->value >= m->slot_count))
        fail_at(e.item(1), "a slot index in [0, " + std::to_string(m->slot_count) + ")");
      return guard(e, [&] {
        return ir::MemRef::make(m->base, m->byte_offset, m->size, m->is_pinned, m->slot_count, k,
                                m->span);
      });
    }
    const SExpr& call = e;
    positional_count(call, 0, 4, "pl.MemRef");
    const std::size_t n = call.items.size() - 1;
    const auto slot_count = [&] {
      const SExpr* k = keyword(call, "slots");
      if (!k) return std::int64_t{1};
      const std::int64_t v = int_literal(*k, "a slot count");
      if (v < 1) fail_at(*k, "a slot count of at least 1");
      return v;
    };
    if (n <= 1) {  // a declared allocation
      only_keywords(call, {"slots"}, "a declared pl.MemRef(\"name\")");
      ir::VarRef base;
      if (n == 0) {
        base = ir::Var::make("mem", ir::PtrType::make(), span(call.pos));
      } else {
        const SExpr& name = call.item(1);
        if (name.kind != ExprKind::String || name.text.empty())
          fail_at(name, "a declared allocation's name: a non-empty string such as \"scratch\"");
        base = implicit_base(name.text, name.pos, /*declared=*/true);
      }
      const std::int64_t slots = slot_count();
      return guard(call, [&] {
        return ir::MemRef::make(base, ir::ConstInt::make(0, core::DataType::INDEX), 0, true, slots,
                                nullptr, span(call.pos));
      });
    }
    if (n == 2) fail_at(call, "pl.MemRef takes 0, 1, 3 or 4 positional arguments, got 2");
    const SExpr& b = call.item(1);
    if (n == 4 || b.kind == ExprKind::Int ||
        (b.kind == ExprKind::Unary && b.item(0).kind == ExprKind::Int)) {
      // Legacy: (addr, size, id) or (space, addr, size, id).
      only_keywords(call, {}, "a legacy pl.MemRef(addr, size, id)");
      const std::size_t a = n == 4 ? 2 : 1;
      std::string name = "mem_";
      if (n == 4) {
        std::string sp(ir::enum_name(enum_value<ir::MemorySpace>(b)));
        for (char& c : sp) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        name += sp + "_";
      }
      ir::ExprRef addr = n == 4 ? expr(call.item(a))
                                : ir::ConstInt::make(int_literal(call.item(a), "an address"),
                                                     core::DataType::INDEX, span(call.item(a).pos));
      const auto size =
          static_cast<std::uint64_t>(non_negative_int(call.item(a + 1), "a size in bytes"));
      name += std::to_string(non_negative_int(call.item(a + 2), "an allocation id"));
      ir::VarRef base = implicit_base(name, b.pos, /*declared=*/false);
      return guard(call, [&] {
        return ir::MemRef::make(base, addr, size, false, 1, nullptr, span(call.pos));
      });
    }
    only_keywords(call, {"pinned", "slots", "slot_index"}, "pl.MemRef");
    ir::VarRef base;
    if (b.kind == ExprKind::String || (b.kind == ExprKind::Name && !scope_.names.count(b.text))) {
      // A quoted name, or a bare one the text does not bind (upstream interns both alike).
      base = implicit_base(b.text, b.pos, /*declared=*/false);
    } else if (b.kind == ExprKind::Name) {
      ir::ExprRef r = expr(b);
      base = ir::as<ir::Var>(r);
      if (!base) fail_at(b, "a variable as the allocation base");
    } else {
      fail_at(b, "an allocation base: a variable or a quoted name");
    }
    ir::ExprRef offset = expr(call.item(2));
    const auto size = static_cast<std::uint64_t>(non_negative_int(call.item(3), "a size in bytes"));
    bool pinned = false;
    const std::int64_t slots = slot_count();
    ir::ExprRef slot_index;
    if (const SExpr* k = keyword(call, "pinned")) pinned = bool_literal(*k);
    if (const SExpr* k = keyword(call, "slot_index")) slot_index = expr(*k);
    return guard(call,
                 [&] { return ir::MemRef::make(base, offset, size, pinned, slots, slot_index); });
  }

  /// A quoted base: the parameter of that name, else the function's implicit binding.
  /// A `declared` allocation's name is its own namespace: it never names a parameter.
  ir::VarRef implicit_base(const std::string& name, TextPos pos, bool declared) {
    if (!declared && in_signature_) {
      if (auto it = pending_params_.find(name); it != pending_params_.end()) {
        build_param(it->second);
        return param_vars_[it->second];
      }
    } else if (auto it = scope_.names.find(name); !declared && it != scope_.names.end()) {
      for (const auto& p : current_params())
        if (p == it->second) return it->second;
    }
    auto [it, fresh] = scope_.bases.try_emplace(name);
    if (fresh) it->second = ir::Var::make(name, ir::PtrType::make(), span(pos));
    return it->second;
  }

  std::vector<ir::VarRef> current_params() const {
    std::vector<ir::VarRef> out;
    for (const auto& p : current_def_->params)
      if (auto it = scope_.names.find(p.name); it != scope_.names.end()) out.push_back(it->second);
    return out;
  }

  bool bool_literal(const SExpr& e) {
    if (e.kind == ExprKind::True) return true;
    if (e.kind == ExprKind::False) return false;
    fail_at(e, "True or False");
  }

  // ---- window buffers ----

  static bool is_window(const SExpr& ann) {
    return ann.kind == ExprKind::Call && dotted(ann.item(0)) == "pl._dump.WindowBuffer";
  }

  /// `name: pl._dump.WindowBuffer(size[, base=b][, load_from_host=True][, store_to_host=True])`:
  /// a WindowBuffer binding (a variable with storage fields of its own).
  ir::VarRef window(const std::string& name, const SExpr& call, TextPos pos) {
    positional_count(call, 1, 1, "pl._dump.WindowBuffer");
    only_keywords(call, {"base", "load_from_host", "store_to_host"}, "pl._dump.WindowBuffer");
    ir::ExprRef size = expr(call.item(1));
    ir::VarRef base;
    if (const SExpr* k = keyword(call, "base")) {
      base = ir::as<ir::Var>(expr(*k));
      if (!base) fail_at(*k, "a variable as the window's backing buffer");
    }
    bool load = false, store = false;
    if (const SExpr* k = keyword(call, "load_from_host")) load = bool_literal(*k);
    if (const SExpr* k = keyword(call, "store_to_host")) store = bool_literal(*k);
    return guard(call, [&]() -> ir::VarRef {
      return ir::WindowBuffer::make(name, size, base, load, store, span(pos));
    });
  }

  // ---- annotations against inferred types ----

  static bool same_expr(const ir::ExprRef& a, const ir::ExprRef& b) { return ir::identical(a, b); }

  /// INDEX is the integer of loops and addressing: an integer annotation names it (as
  /// upstream's parser allows), and the variable takes the annotated dtype.
  static bool compatible_dtypes(core::DataType annotated, core::DataType inferred) {
    return annotated == inferred ||
           (annotated == core::DataType::INDEX && core::is_int(inferred)) ||
           (inferred == core::DataType::INDEX && core::is_int(annotated));
  }

  /// The annotation `ann` completed from the value type `inferred`, checked as upstream's
  /// parser checks it: kind, dtype (compatible_dtypes), rank and every dimension both give as
  /// a constant must agree; views and memory spaces the annotation omits come from `inferred`.
  /// Where a dimension is symbolic on either side and they differ, a tensor keeps the value's
  /// dimensions and a tile takes the annotated ones (as upstream types each).
  ir::TypeRef reconcile(const ir::TypeRef& ann, const ir::TypeRef& inferred, const SExpr& at) {
    if (!inferred || ir::isa<ir::UnknownType>(inferred) || ann == inferred) return ann;
    auto mismatch = [&](const std::string& what) {
      fail_at(at, "an annotation that agrees with the value's type (" + what + ")");
    };
    auto dtypes = [&](core::DataType a, core::DataType b) {
      if (!compatible_dtypes(a, b))
        mismatch("annotated " + std::string(core::dtype_name(a)) + ", the value is " +
                 std::string(core::dtype_name(b)));
    };
    if (ann->kind() != inferred->kind())
      mismatch(std::string("annotated ") + std::string(ir::kind_name(ann->kind())) +
               ", the value is a " + std::string(ir::kind_name(inferred->kind())));
    if (const auto* a = ir::as<ir::ScalarType>(ann.get())) {
      dtypes(a->dtype, static_cast<const ir::ScalarType&>(*inferred).dtype);
      return ann;
    }
    if (const auto* a = ir::as<ir::TupleType>(ann.get())) {
      const auto& b = static_cast<const ir::TupleType&>(*inferred);
      if (a->types.size() != b.types.size())
        mismatch("annotated " + std::to_string(a->types.size()) + " elements, the value has " +
                 std::to_string(b.types.size()));
      std::vector<ir::TypeRef> out;
      bool changed = false;
      for (std::size_t i = 0; i < a->types.size(); ++i) {
        out.push_back(reconcile(a->types[i], b.types[i], at));
        changed = changed || out.back() != a->types[i];
      }
      return changed ? ir::TupleType::make(std::move(out)) : ann;
    }
    if (const auto* a = ir::as<ir::ShapedType>(ann.get())) {
      const auto& b = static_cast<const ir::ShapedType&>(*inferred);
      dtypes(a->dtype, b.dtype);
      if (a->rank() != b.rank())
        mismatch("annotated rank " + std::to_string(a->rank()) + ", the value has rank " +
                 std::to_string(b.rank()));
      bool symbolic_differs = false;
      for (std::size_t i = 0; i < a->rank(); ++i) {
        const auto* x = ir::as<ir::ConstInt>(a->shape[i].get());
        const auto* y = ir::as<ir::ConstInt>(b.shape[i].get());
        if (x && y && x->value != y->value)
          mismatch("dimension " + std::to_string(i) + ": annotated " + std::to_string(x->value) +
                   ", the value has " + std::to_string(y->value));
        symbolic_differs = symbolic_differs || (!(x && y) && !same_expr(a->shape[i], b.shape[i]));
      }
      if (const auto* ta = ir::as<ir::TensorType>(ann.get())) {
        const auto& tb = static_cast<const ir::TensorType&>(*inferred);
        if (ta->distributed != tb.distributed)
          mismatch(ta->distributed ? "annotated pld.DistributedTensor, the value is a pl.Tensor"
                                   : "annotated pl.Tensor, the value is a pld.DistributedTensor");
        if (!symbolic_differs && (ta->tensor_view || !tb.tensor_view)) return ann;
        return ir::TensorType::make(ta->dtype, symbolic_differs ? tb.shape : ta->shape,
                                    ta->tensor_view ? ta->tensor_view : tb.tensor_view, ta->memref,
                                    ta->distributed);
      }
      const auto& la = static_cast<const ir::TileType&>(*ann);
      const auto& lb = static_cast<const ir::TileType&>(*inferred);
      if ((la.tile_view || !lb.tile_view) && (la.memory_space || !lb.memory_space)) return ann;
      return ir::TileType::make(la.dtype, la.shape,
                                la.memory_space ? la.memory_space : lb.memory_space,
                                la.tile_view ? la.tile_view : lb.tile_view, la.memref);
    }
    return ann;
  }

  // ---- names ----

  /// A new binding of `name`: a type declared earlier (`x: T`) is taken as written (the printer
  /// declares exactly the types the text would not imply), else `fallback`.
  ir::TypeRef take_declared(const std::string& name, ir::TypeRef fallback, const SExpr&) {
    auto it = scope_.declared.find(name);
    if (it == scope_.declared.end()) return fallback;
    ir::TypeRef t = it->second;
    scope_.declared.erase(it);
    return t;
  }

  ir::ExprRef name_ref(const SExpr& e) {
    const std::string& n = e.text;
    if (in_signature_) {
      if (auto it = pending_params_.find(n); it != pending_params_.end()) {
        // An annotation reads a `pl.dynamic` symbol of a parameter's name as the symbol, as
        // upstream's do, unless the parameter is a pl.Scalar[pl.INDEX]: that one is the symbol.
        const auto symbol = dynamic_.find(n);
        if (symbol != dynamic_.end() && param_state_[it->second] == 1) return symbol->second;
        build_param(it->second);
        const ir::VarRef& param = param_vars_[it->second];
        const auto* st = ir::as<ir::ScalarType>(param->type.get());
        if (symbol == dynamic_.end() || (st && st->dtype == core::DataType::INDEX)) return param;
        return symbol->second;
      }
    }
    if (auto it = unrolled_.find(n); it != unrolled_.end())  // a comprehension's variable
      return ir::ConstInt::make(it->second, core::DataType::INDEX, span(e.pos));
    if (auto it = scope_.names.find(n); it != scope_.names.end()) return it->second;
    if (auto it = scope_.values.find(n); it != scope_.values.end()) return it->second;
    if (auto it = dynamic_.find(n); it != dynamic_.end()) return it->second;
    constexpr std::string_view kFree = "__FREE_VAR";
    if (n.size() > kFree.size() && n.ends_with(kFree)) {
      auto [it, fresh] = free_.try_emplace(n);
      if (fresh) {
        const std::string hint = n.substr(0, n.size() - kFree.size());
        if (auto w = scope_.windows.find(n); w != scope_.windows.end()) {
          it->second = window(hint, *w->second, e.pos);
        } else {
          ir::TypeRef t = ir::ScalarType::make(core::DataType::INDEX);
          if (auto d = scope_.declared.find(n); d != scope_.declared.end()) t = d->second;
          it->second = ir::Var::make(hint, t, span(e.pos));
        }
      }
      return it->second;
    }
    fail_at(e,
            "a defined name (a parameter, an earlier assignment or loop variable, or a shape "
            "symbol declared with `" +
                n + " = pl.dynamic(\"" + n + "\")`)");
  }

  // ---- expressions ----

  ir::ExprRef expr(const SExpr& e) {
    // A flat chain is parsed without recursion, but the IR it builds nests one level per
    // operator: the library-wide nesting limit applies to it as to brackets.
    if (++expr_depth_ > core::kMaxNesting)
      fail_at(e, "an expression nested at most " + std::to_string(core::kMaxNesting) +
                     " levels deep (each operator of a chain such as `a + b + c` is one level)");
    const OnExit leave{[this] { --expr_depth_; }};
    switch (e.kind) {
      case ExprKind::Name: return name_ref(e);
      case ExprKind::Int:
        if (e.int_value > static_cast<std::uint64_t>(INT64_MAX))
          fail_at(e, "an integer literal up to 9223372036854775807 (or its negation)");
        return ir::ConstInt::make(static_cast<std::int64_t>(e.int_value), core::DataType::INDEX,
                                  span(e.pos));
      case ExprKind::Float:
        return ir::ConstFloat::make(e.float_value, core::DataType::FP32, span(e.pos));
      case ExprKind::True: return ir::ConstBool::make(true, span(e.pos));
      case ExprKind::False: return ir::ConstBool::make(false, span(e.pos));
      case ExprKind::None:  // upstream's "no producer yet" task id: `prev = None`, `deps=[prev]`
        return guard(
            e, [&] { return ops_.make_call("system.task_invalid", {}, {}, {}, span(e.pos)); });
      case ExprKind::ListComp:
        fail_at(
            e, "a value (a list comprehension only as a deps= list, unrolled as the text is read)");
      case ExprKind::List:
      case ExprKind::Tuple: {
        std::vector<ir::ExprRef> items;
        for (const auto& i : e.items) items.push_back(expr(*i));
        return ir::MakeTuple::make(std::move(items), span(e.pos));
      }
      case ExprKind::Unary: return unary(e);
      case ExprKind::Binary:
      case ExprKind::Compare:
      case ExprKind::BoolOp: return binary(e);
      case ExprKind::Subscript: {
        if (e.item(0).kind == ExprKind::Call && dotted(e.item(0).item(0)) == "pl.MemRef")
          return memref_expr(e);  // `pl.MemRef(...)[k]`: a slot
        ir::ExprRef t = expr(e.item(0));
        if (ir::isa<ir::ArrayType>(t->type))  // `arr[i]`: array.get_element
          return guard(e, [&]() -> ir::ExprRef {
            return ops_.make_call("array.get_element", {t, array_index(e.item(1))}, {}, {},
                                  span(e.pos));
          });
        if (const auto* st = ir::as<ir::ShapedType>(t->type.get())) return shaped_read(e, t, *st);
        const std::int64_t index = non_negative_int(e.item(1), "a constant tuple index");
        return guard(e, [&] { return ir::TupleGetItem::make(t, index, span(e.pos)); });
      }
      case ExprKind::Call: return call(e);
      case ExprKind::Attribute:
        fail_at(e, "a value (" + dotted(e) + " is not a value; calls need parentheses)");
      default: fail_at(e, "an expression");
    }
  }

  ir::ExprRef unary(const SExpr& e) {
    const SExpr& x = e.item(0);
    if (e.text == "-" && !x.parenthesized && x.kind == ExprKind::Int)
      return ir::ConstInt::make(static_cast<std::int64_t>(0 - x.int_value), core::DataType::INDEX,
                                span(e.pos));
    if (e.text == "-" && !x.parenthesized && x.kind == ExprKind::Float)
      return ir::ConstFloat::make(-x.float_value, core::DataType::FP32, span(e.pos));
    ir::ExprRef v = expr(x);
    if (e.text == "+") return v;
    return guard(e, [&]() -> ir::ExprRef {
      if (e.text == "-") return ir::Neg::make(v, span(e.pos));
      if (e.text == "~") return ir::BitNot::make(v, span(e.pos));
      return ir::Not::make(v, span(e.pos));
    });
  }

  /// A bare literal `lit` re-typed to `dt` (an integer literal to any numeric dtype, a float
  /// literal to a float dtype); null when it cannot take that dtype.
  static ir::ExprRef retype_literal(const ir::ExprRef& lit, core::DataType dt) {
    if (const auto* c = ir::as<ir::ConstInt>(lit.get())) {
      if (core::is_int(dt)) return ir::ConstInt::make(c->value, dt, c->span);
      if (core::is_float(dt))
        return ir::ConstFloat::make(static_cast<double>(c->value), dt, c->span);
    }
    if (const auto* c = ir::as<ir::ConstFloat>(lit.get()); c && core::is_float(dt))
      return ir::ConstFloat::make(c->value, dt, c->span);
    return nullptr;
  }

  static std::optional<core::DataType> scalar_dtype(const ir::ExprRef& e) {
    if (const auto* s = ir::as<ir::ScalarType>(e->type.get())) return s->dtype;
    return std::nullopt;
  }

  /// Two scalar operands of different dtypes where one is written as a bare literal: the
  /// literal takes the other's dtype (`n + 1` with n INT64 adds an INT64 one).
  static void unify_literal(ir::ExprRef& l, ir::ExprRef& r, const SExpr& ln, const SExpr& rn) {
    const auto ld = scalar_dtype(l), rd = scalar_dtype(r);
    if (!ld || !rd || *ld == *rd) return;
    if (is_bare_literal(rn) && !is_bare_literal(ln)) {
      if (auto x = retype_literal(r, *ld)) r = x;
    } else if (is_bare_literal(ln) && !is_bare_literal(rn)) {
      if (auto x = retype_literal(l, *rd)) l = x;
    }
  }

  /// `l op r` for a Python operator spelling, its operands promoted to one dtype as upstream's
  /// builders do (ir::promote_operands); `^` on booleans is the logical Xor (as upstream).
  static ir::ExprRef scalar_binary(const std::string& op, const ir::ExprRef& l,
                                   const ir::ExprRef& r, const core::Span& sp) {
    using K = ir::NodeKind;
    if (op == "+") return ir::make_promoted<K::Add>(l, r, sp);
    if (op == "-") return ir::make_promoted<K::Sub>(l, r, sp);
    if (op == "*") return ir::make_promoted<K::Mul>(l, r, sp);
    if (op == "//") return ir::make_promoted<K::FloorDiv>(l, r, sp);
    if (op == "%") return ir::make_promoted<K::FloorMod>(l, r, sp);
    if (op == "/") return ir::make_promoted<K::FloatDiv>(l, r, sp);
    if (op == "**") return ir::make_promoted<K::Pow>(l, r, sp);
    if (op == "==") return ir::make_promoted<K::Eq>(l, r, sp);
    if (op == "!=") return ir::make_promoted<K::Ne>(l, r, sp);
    if (op == "<") return ir::make_promoted<K::Lt>(l, r, sp);
    if (op == "<=") return ir::make_promoted<K::Le>(l, r, sp);
    if (op == ">") return ir::make_promoted<K::Gt>(l, r, sp);
    if (op == ">=") return ir::make_promoted<K::Ge>(l, r, sp);
    if (op == "and") return ir::And::make(l, r, sp);
    if (op == "or") return ir::Or::make(l, r, sp);
    if (op == "&") return ir::make_promoted<K::BitAnd>(l, r, sp);
    if (op == "|") return ir::make_promoted<K::BitOr>(l, r, sp);
    if (op == "^" && scalar_dtype(l) == core::DataType::BOOL) return ir::Xor::make(l, r, sp);
    if (op == "^") return ir::make_promoted<K::BitXor>(l, r, sp);
    if (op == "<<") return ir::make_promoted<K::BitShiftLeft>(l, r, sp);
    if (op == ">>") return ir::make_promoted<K::BitShiftRight>(l, r, sp);
    if (op == "min") return ir::make_promoted<K::Min>(l, r, sp);
    if (op == "max") return ir::make_promoted<K::Max>(l, r, sp);
    throw core::ValueError("the operator '" + op + "' has no scalar meaning in the pl DSL");
  }

  ir::ExprRef binary(const SExpr& e) {
    if (e.kind == ExprKind::Compare && e.chained)
      fail_at(e.item(0), "a single comparison (parenthesise each one: (a < b) and (b < c))");
    ir::ExprRef l = expr(e.item(0));
    ir::ExprRef r = expr(e.item(1));
    unify_literal(l, r, e.item(0), e.item(1));
    return guard(e, [&] { return scalar_binary(e.text, l, r, span(e.pos)); });
  }

  // -- calls --

  std::vector<ir::ExprRef> positional(const SExpr& call, std::size_t from = 1) {
    std::vector<ir::ExprRef> out;
    for (std::size_t i = from; i < call.items.size(); ++i) out.push_back(expr(call.item(i)));
    return out;
  }

  /// The keywords of `call` except `skip` as op kwargs; `attrs=` goes to `attrs`.
  ir::Attrs kwargs_of(const SExpr& call, ir::Attrs& attrs,
                      std::initializer_list<std::string_view> skip = {}) {
    ir::Attrs kw;
    for (const auto& k : call.keywords) {
      bool skipped = false;
      for (auto s : skip) skipped = skipped || k.name == s;
      if (skipped) continue;
      if (k.name == "attrs")
        attrs = attr_dict(*k.value);
      else
        kw.entries.push_back({k.name, attr_value(*k.value)});
    }
    return kw;
  }

  /// The callee written as an expression: `self.f` (a program function) or `pl.tile.load`.
  ir::OpRef callee_ref(const SExpr& c) {
    const std::string d = dotted(c);
    return guard(c, [&]() -> ir::OpRef {
      if (d.starts_with("self.") && in_class_) return ir::GlobalVar::make(d.substr(5));
      if (c.kind == ExprKind::Name && bare_callee(d)) return ir::GlobalVar::make(d);
      if (d.starts_with("pl.") || d.starts_with("pld.")) return ir::Op::make(op_name(d));
      fail_at(c, "a callee: self.<function> or pl.<op>");
    });
  }

  /// `pl.tile.and_` → `tile.and`; `pld.x.y` keeps its prefix.
  static std::string op_name(const std::string& d) {
    std::string n = d.starts_with("pl.") ? d.substr(3) : d;
    const std::size_t dot = n.rfind('.');
    const std::string leaf = n.substr(dot == std::string::npos ? 0 : dot + 1);
    if (leaf.ends_with('_') &&
        core::is_python_keyword(std::string_view(leaf).substr(0, leaf.size() - 1)))
      n.pop_back();
    return n;
  }

  ir::ExprRef call(const SExpr& e) {
    const SExpr& callee = e.item(0);
    const std::string d = dotted(callee);
    const core::Span sp = span(e.pos);
    if (d == "abs") {
      positional_count(e, 1, 1, "abs");
      ir::ExprRef x = expr(e.item(1));
      return guard(e, [&] { return ir::Abs::make(x, sp); });
    }
    if (d == "pl.const") return constant(e);
    if (d.starts_with("pl.") && d.ends_with(".get_byte"))  // `pl.FP32.get_byte()`: 4, an int
      if (const auto dt = core::parse_dtype(std::string_view(d).substr(3, d.size() - 12))) {
        positional_count(e, 0, 0, d);
        only_keywords(e, {}, d);
        return ir::ConstInt::make((core::bit_width(*dt) + 7) / 8, core::DataType::INDEX, sp);
      }
    if (d == "pl._dump.float64") {
      positional_count(e, 1, 1, "pl._dump.float64");
      return ir::ConstFloat::make(float_bits(e.item(1)), core::DataType::FP32, sp);
    }
    if (d == "pl.MemRef") return memref_expr(e);
    if (d == "pl.submit" || d == "pl.spmd_submit" || d == "pl._dump.submit") return submit(e, d);
    if (d == "pl._dump.call") return dump_call(e);
    if (d == "min" || d == "max") {
      positional_count(e, 2, 2, d);
      only_keywords(e, {}, d);
      std::vector<ir::ExprRef> args = positional(e);
      unify_literal(args[0], args[1], e.item(1), e.item(2));
      return guard(e, [&] { return scalar_binary(d, args[0], args[1], sp); });
    }
    if (d == "pl.min" || d == "pl.max" || d == "pl._dump.logical_xor") {
      std::vector<ir::ExprRef> args = positional(e);
      if (args.size() == 2 && scalar_dtype(args[0]) && scalar_dtype(args[1])) {
        only_keywords(e, {}, d);
        unify_literal(args[0], args[1], e.item(1), e.item(2));
        return guard(e, [&]() -> ir::ExprRef {
          if (d == "pl._dump.logical_xor") return ir::Xor::make(args[0], args[1], sp);
          return scalar_binary(d.substr(3), args[0], args[1], sp);
        });
      }
      if (d == "pl._dump.logical_xor") fail_at(e, "two scalar operands");
    }
    ParsedOperands operands;
    if (d == "pl.cast" && e.items.size() >= 2 && scalar_dtype(operand(e, 1, operands)))
      return scalar_cast(e, operands[1]);
    if (const std::string_view op = unified_scalar_operator(d);
        !op.empty() && e.items.size() == 3 && e.keywords.empty() &&
        scalar_dtype(operand(e, 1, operands)) && scalar_dtype(operand(e, 2, operands))) {
      ir::ExprRef l = operands[1], r = operands[2];
      unify_literal(l, r, e.item(1), e.item(2));
      return guard(e, [&] { return scalar_binary(std::string(op), l, r, sp); });
    }
    for (std::string_view stmt_only :
         {"pl.yield_", "pl._dump.yield_", "pl.cond", "pl.func_attr", "pl.range", "pl.parallel",
          "pl.unroll", "pl.pipeline", "pl.while_", "pl.split_aiv", "pl._dump.split_aiv", "pl.at",
          "pl.cluster", "pl.spmd", "pl._dump.spmd", "pl.scope", "pl.dynamic", "pl.dump_tag",
          "pl.no_dep"})
      if (d == stmt_only) fail_at(e, d + " only where the DSL places it, not inside an expression");
    if (callee.kind == ExprKind::Name && inlines_.count(d)) return inline_call(e);
    if (d.starts_with("self.") || (e.item(0).kind == ExprKind::Name && bare_callee(d))) {
      ir::OpRef op = callee_ref(callee);
      KernelArgs ka = kernel_args(e, 1);
      const std::vector<ir::ExprRef>& args = ka.args;
      ir::Attrs attrs;
      ir::Attrs kw = kwargs_of(e, attrs);
      attrs = dispatch_attrs(e, std::move(attrs), ka, {});
      if (!functions_.count(op->name)) fail_at(callee, "a function of this program");
      ir::TypeRef t = guard(e, [&] { return derived_call_type(ops_, functions_, *op, args, kw); });
      return guard(e, [&] { return ir::Call::make(op, args, t, kw, attrs, sp); });
    }
    if (!(d.starts_with("pl.") || d.starts_with("pld.")))
      fail_at(callee, "a callee: self.<function>, pl.<op> or a builtin such as abs");
    const ir::OpDef& def = resolve_op(e, op_name(d), operands);
    if (ir::op_id(def.name) == ir::OpId::pld_tensor_alloc_window_buffer &&
        (keyword(e, "dtype") || (e.items.size() > 1 && e.item(1).kind == ExprKind::List)))
      return guard(e,
                   [&] { return ops_.make_call(def.name, {window_buffer_bytes(e)}, {}, {}, sp); });
    std::vector<ir::ExprRef> args;
    ir::Attrs kw, attrs;
    bind_op_call(e, def, operands, args, kw, attrs);
    return guard(e, [&] { return ops_.make_call(def.name, args, kw, attrs, sp); });
  }

  /// `f(a, b)` of an @pl.inline function, as upstream expands it: the arguments are read here,
  /// then f's parameters name them (annotations are not read) and f's body is built in place,
  /// before the statement holding the call; the names it binds stay bound after it. The value is
  /// what its `return` gives (a tuple for `return a, b`).
  ir::ExprRef inline_call(const SExpr& e) {
    const SStmt& def = *inlines_.at(e.item(0).text);
    if (!sink_) fail_at(e, "a call of an inline function only inside a function body");
    for (const InlineFrame* f : inline_frames_)
      if (f->def == &def)
        fail_at(e.item(0), "a call of an inline function other than '" + def.name +
                               "', which is being expanded (an inline function cannot recurse)");
    only_keywords(e, {}, "inline function '" + def.name + "'");
    const std::size_t n = e.items.size() - 1;
    if (n != def.params.size())
      fail_at(e, "inline function '" + def.name + "' takes " + std::to_string(def.params.size()) +
                     " argument" + (def.params.size() == 1 ? "" : "s") + ", got " +
                     std::to_string(n));
    std::vector<ir::ExprRef> args = positional(e);
    for (std::size_t i = 0; i < n; ++i) {
      const std::string& name = def.params[i].name;
      for (std::size_t j = 0; j < i; ++j)
        if (def.params[j].name == name)
          throw ParseError(def.params[i].pos, name, "a parameter name not used before");
      if (auto v = ir::as<ir::Var>(args[i])) {
        scope_.names[name] = v;
        scope_.values.erase(name);
      } else {
        scope_.values[name] = args[i];
        scope_.names.erase(name);
      }
    }
    InlineFrame frame{&def, nullptr};
    inline_frames_.push_back(&frame);
    const OnExit pop{[this] { inline_frames_.pop_back(); }};
    std::vector<ir::StmtRef>& out = *sink_;
    std::size_t first = 0;
    if (!def.body.empty() && is_docstring(*def.body.front())) first = 1;
    for (std::size_t i = first; i < def.body.size(); ++i) statement(*def.body[i], out);
    if (!frame.result)
      fail_at(e, "a value: inline function '" + def.name +
                     "' returns none (a call of an inline function is an expression)");
    return frame.result;
  }

  /// The byte size of `pld.alloc_window_buffer([d0, d1, ...], dtype=pl.FP32)`, upstream's shape
  /// form of the byte-size call: the product of the dimensions times the dtype's bytes, an INT64
  /// constant when every dimension is a literal, else a product of INT64 Mul nodes.
  ir::ExprRef window_buffer_bytes(const SExpr& call) {
    positional_count(call, 1, 1, "pld.alloc_window_buffer with dtype=");
    only_keywords(call, {"dtype"}, "pld.alloc_window_buffer with a shape");
    const SExpr& list = call.item(1);
    const SExpr* dk = keyword(call, "dtype");
    if (list.kind != ExprKind::List)
      fail_at(*dk, "no dtype= beside a byte size (dtype= goes with a shape list)");
    if (!dk) fail_at(list, "a dtype= keyword beside the shape list");
    const core::DataType dt = dtype(*dk);
    if (list.items.empty()) fail_at(list, "a non-empty shape list");
    const core::Span sp = span(call.pos);
    constexpr auto kI64 = core::DataType::INT64;
    const auto bytes = static_cast<std::int64_t>((core::bit_width(dt) + 7) / 8);
    std::vector<ir::ExprRef> dims;
    bool all_static = true;
    std::int64_t total = bytes;
    for (const auto& d : list.items) {
      if (!is_bare_literal(*d)) {
        all_static = false;
        dims.push_back(expr(*d));
        continue;
      }
      const std::int64_t n = int_literal(*d, "a dimension");
      if (n <= 0) fail_at(*d, "a positive dimension");
      if (total > INT64_MAX / n) fail_at(*d, "a buffer size that fits in 64 bits");
      total *= n;
      dims.push_back(ir::ConstInt::make(n, kI64, sp));
    }
    if (all_static) return ir::ConstInt::make(total, kI64, sp);
    ir::ExprRef product = dims[0];
    for (std::size_t i = 1; i < dims.size(); ++i)
      product = guard(*list.items[i], [&] { return ir::Mul::make(product, dims[i], sp); });
    return guard(call,
                 [&] { return ir::Mul::make(product, ir::ConstInt::make(bytes, kI64, sp), sp); });
  }

  /// Operands parsed while resolving an op, by item index, so that binding does not parse
  /// them again.
  using ParsedOperands = std::map<std::size_t, ir::ExprRef>;

  /// The operator upstream's unified `pl.add` / `pl.sub` / `pl.mul` / `pl.div` apply to two
  /// scalars (`pl.add(a, b)` is `a + b`); empty for any other name.
  static std::string_view unified_scalar_operator(std::string_view d) {
    if (d == "pl.add") return "+";
    if (d == "pl.sub") return "-";
    if (d == "pl.mul") return "*";
    if (d == "pl.div") return "/";
    return {};
  }

  /// `pl.cast(x, target_type[, mode])` on a scalar `x`: the Cast expression, as upstream's
  /// unified cast builds it; a scalar cast has only the default rounding (`mode="round"`, 2).
  ir::ExprRef scalar_cast(const SExpr& e, const ir::ExprRef& x) {
    positional_count(e, 1, 3, "pl.cast");
    only_keywords(e, {"target_type", "mode"}, "pl.cast");
    auto param = [&](std::size_t item, std::string_view name) -> const SExpr* {
      const SExpr* k = keyword(e, name);
      if (k && item < e.items.size())
        fail_at(*k, "pl.cast: '" + std::string(name) + "' given once");
      return k ? k : item < e.items.size() ? &e.item(item) : nullptr;
    };
    const SExpr* target = param(2, "target_type");
    if (!target) fail_at(e, "pl.cast: argument 'target_type' is required");
    const core::DataType to = dtype(*target);
    if (const SExpr* mode = param(3, "mode");
        mode && !(mode->kind == ExprKind::String && mode->text == "round") &&
        !(mode->kind == ExprKind::Int && mode->int_value == 2))
      fail_at(*mode, "the default mode \"round\" (a scalar cast has no other rounding)");
    return guard(e, [&] { return ir::Cast::make(x, to, span(e.pos)); });
  }

  /// The value of a call's item `item`, parsed once; items past the positional ones are the
  /// keywords' values, in order.
  ir::ExprRef operand(const SExpr& call, std::size_t item, ParsedOperands& parsed) {
    auto [it, fresh] = parsed.try_emplace(item);
    if (fresh)
      it->second =
          expr(item < call.items.size() ? call.item(item)
                                        : *call.keywords.at(item - call.items.size()).value);
    return it->second;
  }

  /// The item (as operand() counts them) that gives `def`'s positional parameter `n`: written
  /// positionally or by its name (`pl.add(lhs=t, rhs=u)`).
  static std::optional<std::size_t> item_of(const SExpr& call, const ir::OpDef& def,
                                            std::size_t n) {
    if (n + 1 < call.items.size()) return n + 1;
    const std::string* param = def.positional_param(n);
    for (std::size_t k = 0; param && k < call.keywords.size(); ++k)
      if (call.keywords[k].name == *param) return call.items.size() + k;
    return std::nullopt;
  }

  /// The op `pl.<name>(...)` calls: the name or one of its spellings, else the short form
  /// resolved as upstream's unified ops are: by the first operand, `tensor.` for a Tensor and
  /// `tile.` for a Tile (a name only one family has is that one); given a scalar second
  /// operand, the `<name>s` form where there is one (`pl.add(t, 2.0)` is tile.adds). A full
  /// name is that op: the printer writes what the IR holds.
  const ir::OpDef& resolve_op(const SExpr& call, const std::string& name, ParsedOperands& parsed) {
    const ir::OpDef* def = ops_.find_spelled(name);
    // `pld.remote_store(t, ...)` dispatches as `pl.<name>` does, within the pld families.
    const std::string module = name.starts_with("pld.") ? "pld." : "";
    const std::string leaf = name.substr(module.size());
    if (!def && leaf.find('.') == std::string::npos) {
      std::optional<std::size_t> first;
      for (const char* f : {"tensor.", "tile."})
        if (const ir::OpDef* d = first ? nullptr : ops_.find_spelled(module + f + leaf))
          first = item_of(call, *d, 0);
      const ir::TypeRef type = first ? operand(call, *first, parsed)->type : nullptr;
      const char* family = ir::isa<ir::TileType>(type)     ? "tile."
                           : ir::isa<ir::TensorType>(type) ? "tensor."
                                                           : nullptr;
      for (const char* f : {family, "tensor.", "tile."})
        if (f && first && !def) def = ops_.find_spelled(module + f + leaf);
    }
    if (!def) fail_at(call.item(0), "a registered op ('" + name + "' is not one)");
    if (const std::string_view v = def->variant(call.keywords); v != def->name) return ops_.at(v);
    const bool unified = name.find('.') == std::string::npos && def->name != name;
    const ir::OpDef* scalar_form = unified ? ops_.find(def->name + "s") : nullptr;
    const std::optional<std::size_t> second = scalar_form ? item_of(call, *def, 1) : std::nullopt;
    if (second && scalar_form->args.size() >= 2 &&
        (*second < call.items.size() ? call.item(*second)
                                     : *call.keywords[*second - call.items.size()].value)
                .kind != ExprKind::List &&
        ir::isa<ir::ScalarType>(operand(call, *second, parsed)->type))
      return *scalar_form;
    return *def;
  }

  /// Binds a call's items to the op's parameters as the DSL declares them: positional items
  /// fill OpDef::positional_param in order, a keyword names an argument or a keyword of the
  /// op; an argument takes a value, a keyword an attribute value; `None` leaves a parameter
  /// unset. A bare literal in an argument that adopts argument 0's dtype takes it.
  void bind_op_call(const SExpr& call, const ir::OpDef& def, ParsedOperands& parsed,
                    std::vector<ir::ExprRef>& args, ir::Attrs& kw, ir::Attrs& attrs) {
    std::vector<const SExpr*> slot(def.args.size(), nullptr);
    std::vector<std::size_t> slot_item(def.args.size(), 0);
    std::vector<std::string> bound;
    auto bind = [&](const SExpr& at, const std::string& param, const SExpr& value,
                    std::size_t item) {
      if (std::find(bound.begin(), bound.end(), param) != bound.end())
        fail_at(at, def.name + ": '" + param + "' given once");
      bound.push_back(param);
      if (value.kind == ExprKind::None) return;
      if (const std::size_t i = def.arg_index(param); i < def.args.size()) {
        slot[i] = &value;
        slot_item[i] = item;
      } else {
        kw.entries.push_back({param, kwarg_value(def, param, value)});
      }
    };
    for (std::size_t i = 1; i < call.items.size(); ++i) {
      const std::string* param = def.positional_param(i - 1);
      if (!param)
        fail_at(call.item(i), def.name + " takes at most " + std::to_string(i - 1) +
                                  " positional arguments (" + param_list(def) + ")");
      bind(call.item(i), *param, call.item(i), i);
    }
    for (std::size_t item = call.items.size(); const auto& k : call.keywords) {
      ++item;
      if (k.name == "attrs") {
        attrs = attr_dict(*k.value);
        continue;
      }
      if (def.arg_index(k.name) == def.args.size() && !def.find_kwarg(k.name))
        fail_at(*k.value,
                def.name + ": a parameter (" + param_list(def) + "), not '" + k.name + "'");
      bind(*k.value, k.name, *k.value, item - 1);
    }
    for (const ir::KwargSpec& k : def.kwargs)
      if (k.from_split_region && !split_modes_.empty() &&
          std::find(bound.begin(), bound.end(), k.name) == bound.end())
        kw.entries.push_back({k.name, static_cast<std::int64_t>(split_modes_.back())});
    std::size_t n = slot.size();
    while (n > 0 && !slot[n - 1]) --n;
    for (std::size_t i = 0; i < n; ++i) {
      if (!slot[i] && def.args[i].skippable) continue;
      if (!slot[i] && def.args[i].fill != ir::ArgFill::None) {
        args.push_back(ir::filled_arg(def.args[i].fill, span(call.pos)));
        continue;
      }
      if (!slot[i])
        fail_at(call, def.name + ": argument '" + def.args[i].name + "' is required" +
                          (def.args[i].optional ? " when a later one is given" : ""));
      ir::ExprRef v = slot_item[i] ? operand(call, slot_item[i], parsed) : expr(*slot[i]);
      if (i > 0 && def.args[i].adopts_dtype && is_bare_literal(*slot[i]) && !args.empty())
        if (auto dt = element_dtype(args[0]))
          if (ir::as<ir::ConstInt>(v.get()) || core::is_float(*dt))
            if (auto x = retype_literal(v, *dt)) v = x;
      if (def.args[i].index_list && ir::isa<ir::ScalarType>(v->type))
        v = ir::MakeTuple::make({v}, v->span);
      args.push_back(std::move(v));
    }
  }

  /// A keyword's value: an attribute value, a name an Int keyword takes stored as its index.
  ir::AttrValue kwarg_value(const ir::OpDef& def, const std::string& param, const SExpr& value) {
    const ir::KwargSpec* spec = def.find_kwarg(param);
    if (spec && spec->enum_id == ir::EnumValue::id_of<ir::PadValue>())
      if (auto p = pad_value_number(value)) return ir::EnumValue::of(*p);
    if (!spec || spec->names.empty() || value.kind != ExprKind::String) return attr_value(value);
    const auto it = std::find(spec->names.begin(), spec->names.end(), value.text);
    if (it == spec->names.end()) {
      std::string names;
      for (const auto& n : spec->names) names += (names.empty() ? "'" : ", '") + n + "'";
      fail_at(value, def.name + ": " + param + " as an int or one of " + names);
    }
    return static_cast<std::int64_t>(it - spec->names.begin());
  }

  /// A pad value written as the number it fills with, as upstream's builders take it: `0` or
  /// `0.0` is PadValue.zero, `math.inf` max and `-math.inf` min; another number is an error;
  /// anything else is not a number (nullopt).
  std::optional<ir::PadValue> pad_value_number(const SExpr& e) {
    const bool neg = e.kind == ExprKind::Unary && e.text == "-" && !e.item(0).parenthesized;
    const SExpr& m = neg ? e.item(0) : e;
    if (dotted(m) == "math.inf") return neg ? ir::PadValue::min : ir::PadValue::max;
    if (m.kind != ExprKind::Int && m.kind != ExprKind::Float) return std::nullopt;
    if ((m.kind == ExprKind::Int && m.int_value == 0) ||
        (m.kind == ExprKind::Float && m.float_value == 0))
      return ir::PadValue::zero;
    fail_at(e, "a pad value: pl.PadValue.<zero|max|min>, 0, math.inf or -math.inf");
  }

  /// "tile, offsets, shapes[, valid_shape]": an op's parameters for an error message.
  static std::string param_list(const ir::OpDef& def) {
    std::string out;
    for (std::size_t i = 0; const std::string* p = def.positional_param(i); ++i)
      out += (out.empty() ? "" : ", ") + *p;
    for (const auto& k : def.kwargs)
      if (std::find(def.params.begin(), def.params.end(), k.name) == def.params.end())
        out += (out.empty() ? "" : ", ") + k.name + "=";
    return out;
  }

  static std::optional<core::DataType> element_dtype(const ir::ExprRef& e) {
    if (const auto* t = ir::as<ir::TileType>(e->type.get())) return t->dtype;
    if (const auto* t = ir::as<ir::TensorType>(e->type.get())) return t->dtype;
    return std::nullopt;
  }

  double float_bits(const SExpr& s) {
    if (s.kind != ExprKind::String || s.text.size() != 16)
      fail_at(s, "the 16 hex digits of a float64 bit pattern");
    std::uint64_t bits = 0;
    const char* end = s.text.data() + s.text.size();
    if (auto [p, ec] = std::from_chars(s.text.data(), end, bits, 16); ec != std::errc() || p != end)
      fail_at(s, "the 16 hex digits of a float64 bit pattern");
    return std::bit_cast<double>(bits);
  }

  /// `pl.const(value, dtype)`: a literal of an explicit dtype.
  ir::ExprRef constant(const SExpr& e) {
    positional_count(e, 2, 2, "pl.const");
    only_keywords(e, {}, "pl.const");
    const SExpr& v = e.item(1);
    const core::DataType dt = dtype(e.item(2));
    const core::Span sp = span(e.pos);
    return guard(e, [&]() -> ir::ExprRef {
      if (v.kind == ExprKind::True || v.kind == ExprKind::False) {
        if (dt != core::DataType::BOOL) fail_at(v, "True/False only with pl.BOOL");
        return ir::ConstBool::make(v.kind == ExprKind::True, sp);
      }
      const bool is_float = v.kind == ExprKind::Float ||
                            (v.kind == ExprKind::Unary && v.item(0).kind == ExprKind::Float) ||
                            (v.kind == ExprKind::Call && dotted(v.item(0)) == "pl._dump.float64");
      if (is_float || core::is_float(dt)) {
        double x = 0;
        if (v.kind == ExprKind::Call) {
          positional_count(v, 1, 1, "pl._dump.float64");
          x = float_bits(v.item(1));
        } else if (v.kind == ExprKind::Float) {
          x = v.float_value;
        } else if (v.kind == ExprKind::Unary && v.text == "-" &&
                   v.item(0).kind == ExprKind::Float) {
          x = -v.item(0).float_value;
        } else {
          x = static_cast<double>(int_literal(v, "a number"));
        }
        return ir::ConstFloat::make(x, dt, sp);
      }
      return ir::ConstInt::make(int_literal(v, "an integer literal"), dt, sp);
    });
  }

  /// `pl._dump.call(callee, args..., kwargs..., attrs={...}, type=T)`: a call whose recorded
  /// result type is written out.
  ir::ExprRef dump_call(const SExpr& e) {
    if (e.items.size() < 2) fail_at(e, "a callee as the first argument of pl._dump.call");
    const SExpr* t = keyword(e, "type");
    if (!t) fail_at(e, "a type= keyword on pl._dump.call");
    ir::OpRef op = callee_ref(e.item(1));
    std::vector<ir::ExprRef> args = positional(e, 2);
    ir::Attrs attrs;
    ir::Attrs kw = kwargs_of(e, attrs, {"type"});
    ir::TypeRef ty = type(*t);
    return guard(e, [&] { return ir::Call::make(op, args, ty, kw, attrs, span(e.pos)); });
  }

  /// `pl.submit(self.k, args..., deps=[...], dumps=[...], allow_early_resolve=, predicate=)`, its
  /// SPMD sibling `pl.spmd_submit(..., core_num=N[, sync_start=])` (core_num required) and
  /// `pl._dump.submit(..., type=T)`, whose result type is written out.
  ir::ExprRef submit(const SExpr& e, std::string_view d) {
    const bool dump = d == "pl._dump.submit";
    if (e.items.size() < 2) fail_at(e, "the launched function as the first argument");
    ir::OpRef op = callee_ref(e.item(1));
    KernelArgs ka = kernel_args(e, 2);
    ir::SubmitLaunch launch;
    if (const SExpr* k = keyword(e, "deps")) launch.deps = task_deps(*k);
    if (const SExpr* k = keyword(e, "core_num")) {
      launch.core_num = expr(*k);
      if (const auto* ci = ir::as<ir::ConstInt>(launch.core_num.get()); ci && ci->value <= 0)
        fail_at(*k, "a positive core_num");
    } else if (d == "pl.spmd_submit") {
      fail_at(e, "core_num=N on pl.spmd_submit (the number of blocks to launch)");
    }
    if (const SExpr* k = keyword(e, "sync_start")) launch.sync_start = bool_literal(*k);
    if (const SExpr* k = keyword(e, "allow_early_resolve"))
      launch.allow_early_resolve = bool_literal(*k);
    if (const SExpr* k = keyword(e, "predicate")) launch.predicate = expr(*k);
    std::vector<ir::ExprRef> dumps;
    if (const SExpr* k = keyword(e, "dumps")) {
      if (k->kind != ExprKind::List && k->kind != ExprKind::Tuple)
        fail_at(*k, "a list of tensor arguments of this submit");
      for (const auto& item : k->items) {
        ir::ExprRef v = expr(*item);
        if (!ir::isa<ir::Var>(*v) || !ir::isa<ir::TensorType>(v->type) ||
            std::none_of(ka.args.begin(), ka.args.end(),
                         [&](const ir::ExprRef& a) { return a.get() == v.get(); }))
          fail_at(*item, "a tensor variable passed to this submit");
        dumps.push_back(std::move(v));
      }
    }
    ir::Attrs attrs;
    ir::Attrs kw = kwargs_of(
        e, attrs,
        {"deps", "dumps", "core_num", "sync_start", "allow_early_resolve", "predicate", "type"});
    attrs = dispatch_attrs(e, std::move(attrs), ka, dumps);
    ir::TypeRef ty;
    if (dump) {
      const SExpr* t = keyword(e, "type");
      if (!t) fail_at(e, "a type= keyword on pl._dump.submit");
      ty = type(*t);
    } else {
      if (!ir::isa<ir::GlobalVar>(op) || !functions_.count(op->name))
        fail_at(e.item(1), "a function of this program to launch");
      ty = derived_submit_type(functions_, *op, ka.args);
    }
    return guard(e,
                 [&] { return ir::Submit::make(op, ka.args, ty, launch, kw, attrs, span(e.pos)); });
  }

  /// The arguments of a call of a program function, from item `from` on. `pl.no_dep(x)` passes
  /// x exempt from dependency tracking: its index is kept for the `arg_direction_overrides` attr.
  struct KernelArgs {
    std::vector<ir::ExprRef> args;
    ir::AttrValueList no_dep;
  };
  KernelArgs kernel_args(const SExpr& call, std::size_t from) {
    KernelArgs out;
    for (std::size_t i = from; i < call.items.size(); ++i) {
      const SExpr* a = &call.item(i);
      bool no_dep = false;
      while (a->kind == ExprKind::Call && dotted(a->item(0)) == "pl.no_dep") {
        positional_count(*a, 1, 1, "pl.no_dep");
        only_keywords(*a, {}, "pl.no_dep");
        no_dep = true;
        a = &a->item(1);
      }
      if (no_dep) out.no_dep.emplace_back(static_cast<std::int64_t>(i - from));
      out.args.push_back(expr(*a));
    }
    return out;
  }

  /// A dispatch's attrs: `attrs={...}` as written, the `pl.no_dep` argument indices
  /// (`arg_direction_overrides`) and the dumped arguments (`dump_vars`: each variable argument
  /// that `dumps` names or an earlier `pl.dump_tag` tagged, in argument order).
  ir::Attrs dispatch_attrs(const SExpr& call, ir::Attrs attrs, const KernelArgs& ka,
                           const std::vector<ir::ExprRef>& dumps) {
    static constexpr std::string_view kOverrides = "arg_direction_overrides";
    if (!ka.no_dep.empty()) {
      if (attrs.contains(kOverrides))
        fail_at(call, "pl.no_dep arguments or an \"arg_direction_overrides\" attr, not both");
      attrs = attrs.with(std::string(kOverrides), ka.no_dep);
    }
    auto in = [](const auto& list, const ir::Expr* v) {
      return std::any_of(list.begin(), list.end(), [&](const auto& x) { return &*x == v; });
    };
    ir::AttrValueList dumped;
    for (const ir::ExprRef& a : ka.args)
      if (ir::isa<ir::Var>(*a) && (in(dumps, a.get()) || in(dump_tags_, a.get())))
        dumped.emplace_back(a);
    return with_dump_vars(std::move(attrs), dumped);
  }

  /// `attrs` with `vars` added to its `dump_vars` list (each once).
  static ir::Attrs with_dump_vars(ir::Attrs attrs, const ir::AttrValueList& vars) {
    if (vars.empty()) return attrs;
    const std::string key(ir::scope_attr::kDumpVars);
    ir::AttrValueList list;
    if (const ir::AttrValue* old = attrs.find(key))
      if (const auto* l = old->get_if<ir::AttrValueList>()) list = *l;
    const std::size_t before = list.size();
    for (const ir::AttrValue& v : vars) {
      const ir::Expr* e = v.get_if<ir::ExprRef>()->get();
      if (std::none_of(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(before),
                       [&](const ir::AttrValue& x) {
                         const auto* y = x.get_if<ir::ExprRef>();
                         return y && y->get() == e;
                       }))
        list.push_back(v);
    }
    return attrs.with(key, std::move(list));
  }

  /// A task scope's attrs with every tensor `pl.dump_tag` has tagged so far in its `dump_vars`
  /// (read at the scope's header; the outliner keeps those the scope captures).
  ir::Attrs with_dump_tags(ir::Attrs attrs) const {
    return with_dump_vars(std::move(attrs),
                          ir::AttrValueList(dump_tags_.begin(), dump_tags_.end()));
  }

  /// `pl.dump_tag(t)`: from here on in this function every dispatch taking the tensor variable
  /// t (a call of a program function, a submit, a task scope) lists it in its `dump_vars`
  /// attr. The marker itself is no statement, as upstream's parser reads it.
  void dump_tag(const SExpr& call) {
    if (function_type_ != ir::FunctionType::Orchestration &&
        function_type_ != ir::FunctionType::Inline)
      fail_at(call, "pl.dump_tag only in an Orchestration or Inline function");
    positional_count(call, 1, 1, "pl.dump_tag");
    only_keywords(call, {}, "pl.dump_tag");
    const SExpr& a = call.item(1);
    if (a.kind != ExprKind::Name) fail_at(a, "a tensor variable's name");
    ir::ExprRef v = expr(a);
    if (!ir::isa<ir::Var>(*v) || !ir::isa<ir::TensorType>(v->type))
      fail_at(a, "a tensor variable (only tensors are dumped)");
    for (const ir::VarRef& t : dump_tags_)
      if (t.get() == v.get()) return;
    dump_tags_.push_back(ir::cast<ir::Var>(v));
  }

  /// `deps=[...]`: the task ids a task waits for, each a Scalar[TASK_ID] or a pl.Array of them.
  /// A `None` item adds no edge (upstream's "no producer yet"); a list comprehension over
  /// constants, the whole list or an item of it, is unrolled (`[tids[k] for k in range(4)]`).
  std::vector<ir::ExprRef> task_deps(const SExpr& list) {
    std::vector<ir::ExprRef> out;
    auto entry = [&](const SExpr& e) {
      if (e.kind == ExprKind::None) return;
      ir::ExprRef d = expr(e);
      if (!ir::is_task_dependency(d)) fail_at(e, "a Scalar[TASK_ID] task id or a pl.Array of them");
      out.push_back(std::move(d));
    };
    auto item = [&](const SExpr& e) {
      if (e.kind == ExprKind::ListComp)
        unroll(e, entry);
      else
        entry(e);
    };
    if (list.kind == ExprKind::ListComp)
      item(list);
    else if (list.kind == ExprKind::List || list.kind == ExprKind::Tuple)
      for (const auto& i : list.items) item(*i);
    else
      fail_at(list, "a list of task ids (or a list comprehension over constants)");
    return out;
  }

  /// Calls `f(element)` once per value of the comprehension `c` its filters keep, with the
  /// comprehension's variable bound to that value (an INDEX constant): the iterable is
  /// `range(...)` of constants or a list of integer constants, the filters constant conditions
  /// over the variable, as upstream unrolls them while reading the text.
  template <class F>
  void unroll(const SExpr& c, F&& f) {
    const std::string& name = c.item(1).text;
    const SExpr& iter = c.item(2);
    std::vector<std::int64_t> values;
    const std::string d = iter.kind == ExprKind::Call ? dotted(iter.item(0)) : "";
    constexpr std::size_t kMaxUnrolled = 1 << 16;
    if (d == "range") {
      positional_count(iter, 1, 3, "range");
      only_keywords(iter, {}, "range");
      std::vector<std::int64_t> b;
      for (std::size_t i = 1; i < iter.items.size(); ++i) b.push_back(constant_int(iter.item(i)));
      const std::int64_t lo = b.size() == 1 ? 0 : b[0], hi = b.size() == 1 ? b[0] : b[1];
      const std::int64_t step = b.size() == 3 ? b[2] : 1;
      if (step == 0) fail_at(iter.item(3), "a non-zero step");
      for (std::int64_t v = lo; step > 0 ? v < hi : v > hi; v += step) {
        if (values.size() == kMaxUnrolled)
          fail_at(iter, "at most " + std::to_string(kMaxUnrolled) + " unrolled values");
        values.push_back(v);
        if ((step > 0 && v > INT64_MAX - step) || (step < 0 && v < INT64_MIN - step)) break;
      }
    } else if (iter.kind == ExprKind::List || iter.kind == ExprKind::Tuple) {
      for (const auto& i : iter.items) values.push_back(constant_int(*i));
    } else {
      fail_at(iter,
              "range(...) of constants or a list of integer constants (the comprehension is "
              "unrolled as the text is read; a runtime loop is a pl.range statement)");
    }
    const auto saved = unrolled_.find(name) == unrolled_.end()
                           ? std::optional<std::int64_t>()
                           : std::optional<std::int64_t>(unrolled_[name]);
    const OnExit restore{[&] {
      if (saved)
        unrolled_[name] = *saved;
      else
        unrolled_.erase(name);
    }};
    for (const std::int64_t v : values) {
      unrolled_[name] = v;
      bool keep = true;
      for (std::size_t i = 3; i < c.items.size() && keep; ++i) keep = constant_int(c.item(i)) != 0;
      if (keep) f(c.item(0));
    }
  }

  /// The value of an integer expression of constants and comprehension variables (True is 1),
  /// computed as Python does while the text is read.
  std::int64_t constant_int(const SExpr& e) {
    if (++expr_depth_ > core::kMaxNesting)
      fail_at(e, "an expression nested at most " + std::to_string(core::kMaxNesting) + " deep");
    const OnExit leave{[this] { --expr_depth_; }};
    auto wrap = [](std::uint64_t x) { return static_cast<std::int64_t>(x); };
    switch (e.kind) {
      case ExprKind::Int:
        if (e.int_value > static_cast<std::uint64_t>(INT64_MAX))
          fail_at(e, "an integer up to 9223372036854775807");
        return static_cast<std::int64_t>(e.int_value);
      case ExprKind::True: return 1;
      case ExprKind::False: return 0;
      case ExprKind::Name:
        if (auto it = unrolled_.find(e.text); it != unrolled_.end()) return it->second;
        fail_at(e,
                "a constant or the comprehension's variable (the comprehension is unrolled as "
                "the text is read: it cannot depend on a runtime value)");
      case ExprKind::Unary: {
        const std::int64_t x = constant_int(e.item(0));
        if (e.text == "-") return wrap(0 - static_cast<std::uint64_t>(x));
        if (e.text == "not") return x == 0;
        if (e.text == "~") return ~x;
        return x;
      }
      case ExprKind::BoolOp: {
        const std::int64_t l = constant_int(e.item(0));
        if (e.text == "and") return l == 0 ? l : constant_int(e.item(1));
        return l != 0 ? l : constant_int(e.item(1));
      }
      case ExprKind::Compare:
      case ExprKind::Binary: {
        if (e.kind == ExprKind::Compare && e.chained)
          fail_at(e.item(0), "a single comparison (parenthesise each one)");
        const std::int64_t l = constant_int(e.item(0)), r = constant_int(e.item(1));
        const auto ul = static_cast<std::uint64_t>(l), ur = static_cast<std::uint64_t>(r);
        const std::string& op = e.text;
        if (op == "==") return l == r;
        if (op == "!=") return l != r;
        if (op == "<") return l < r;
        if (op == "<=") return l <= r;
        if (op == ">") return l > r;
        if (op == ">=") return l >= r;
        if (op == "+") return wrap(ul + ur);
        if (op == "-") return wrap(ul - ur);
        if (op == "*") return wrap(ul * ur);
        if (op == "&") return l & r;
        if (op == "|") return l | r;
        if (op == "^") return l ^ r;
        if (op == "//" || op == "%") {
          if (r == 0) fail_at(e.item(1), "a non-zero divisor");
          if (l == INT64_MIN && r == -1) return op == "//" ? l : 0;
          std::int64_t q = l / r, m = l % r;
          if (m != 0 && ((m < 0) != (r < 0))) {
            --q;
            m += r;
          }
          return op == "//" ? q : m;
        }
        fail_at(e, "an integer operator (+ - * // % & | ^ or a comparison)");
      }
      default: fail_at(e, "an integer constant");
    }
  }

  // ---- attribute values ----

  ir::AttrValue attr_value(const SExpr& e) {
    if (++type_depth_ > core::kMaxNesting)
      fail_at(e, "attribute values nested at most " + std::to_string(core::kMaxNesting) + " deep");
    const OnExit leave{[this] { --type_depth_; }};
    switch (e.kind) {
      case ExprKind::True: return true;
      case ExprKind::False: return false;
      case ExprKind::Int: return int_literal(e, "an integer up to 9223372036854775807");
      case ExprKind::Float: return e.float_value;
      case ExprKind::String: return e.text;
      case ExprKind::List: {
        ir::AttrValueList items;
        for (const auto& i : e.items) items.push_back(attr_value(*i));
        return items;
      }
      case ExprKind::Unary:
        if (e.text == "-" && !e.item(0).parenthesized) {
          if (e.item(0).kind == ExprKind::Int) return int_literal(e, "an integer literal");
          if (e.item(0).kind == ExprKind::Float) return -e.item(0).float_value;
        }
        break;
      case ExprKind::Attribute: {
        const std::string d = dotted(e);
        for (const auto& [name, value] : kIntConstants)
          if (d == name) return value;
        if (d.starts_with("pl."))
          if (auto t = core::parse_dtype(std::string_view(d).substr(3))) return *t;
        const std::string_view rest = ir::strip_dsl_module(d);
        if (const std::size_t dot = rest.rfind('.'); dot != std::string_view::npos)
          if (auto v = ir::parse_enum_value(rest.substr(0, dot), rest.substr(dot + 1))) return *v;
        break;
      }
      case ExprKind::Call: {
        const std::string d = dotted(e.item(0));
        if (d == "pl._dump.float64") {
          positional_count(e, 1, 1, d);
          return float_bits(e.item(1));
        }
        if (d == "pl._dump.opaque") {
          positional_count(e, 1, 1, d);
          if (e.item(1).kind != ExprKind::String) fail_at(e.item(1), "the payload's type name");
          return ir::OpaquePayload{e.item(1).text, nullptr};
        }
        break;
      }
      default: break;
    }
    ir::ExprRef x = expr(e);
    return guard(e, [&] { return ir::AttrValue(x); });
  }

  ir::Attrs attr_dict(const SExpr& e) {
    if (e.kind != ExprKind::Dict) fail_at(e, "a dict of attributes {\"key\": value, ...}");
    ir::Attrs attrs;
    for (std::size_t i = 0; i + 1 < e.items.size(); i += 2) {
      const SExpr& k = e.item(i);
      if (k.kind != ExprKind::String) fail_at(k, "a string key");
      for (const auto& prev : attrs.entries)
        if (prev.key == k.text) fail_at(k, "a key not given before in this dict");
      attrs.entries.push_back({k.text, attr_value(e.item(i + 1))});
    }
    return attrs;
  }

  // ---- statements ----

  /// The statements of `body` from `first` on, as one SeqStmts.
  ir::StmtRef block(const std::vector<syntax::StmtPtr>& body, std::size_t first, TextPos pos) {
    std::vector<ir::StmtRef> out;
    for (std::size_t i = first; i < body.size(); ++i) statement(*body[i], out);
    return ir::SeqStmts::make(std::move(out), span(pos));
  }

  /// A body slot: a block, or the one statement of a `with pl._dump.stmt():` block.
  ir::StmtRef body_slot(const std::vector<syntax::StmtPtr>& body, TextPos pos,
                        std::size_t first = 0) {
    if (body.size() == first + 1 && body[first]->kind == StmtKind::With &&
        body[first]->value->kind == ExprKind::Call &&
        dotted(body[first]->value->item(0)) == "pl._dump.stmt") {
      const SStmt& w = *body[first];
      std::vector<ir::StmtRef> out;
      for (const auto& s : w.body) statement(*s, out);
      if (out.size() != 1)
        throw ParseError(w.pos, "with", "exactly one statement in a pl._dump.stmt() block");
      return out[0];
    }
    return block(body, first, pos);
  }

  /// `s` with the comment lines written before it (printing writes them back).
  static ir::StmtRef with_comments(const ir::StmtRef& s, const std::vector<std::string>& comments) {
    return ir::visit_stmt(*s, [&](const auto& n) -> ir::StmtRef {
      auto c = ir::copy_node(n);
      c->leading_comments = comments;
      return c;
    });
  }

  void statement(const SStmt& s, std::vector<ir::StmtRef>& out) {
    current_stmt_ = s.pos;
    if (!regions_.empty() && regions_.back()->closed)
      throw ParseError(
          s.pos, first_token(s),
          "the end of the region: `r = pl.yield_(...)` is the region's last statement");
    const std::size_t before = out.size();
    std::vector<ir::StmtRef>* const outer = sink_;
    sink_ = &out;  // where a call of an inline function builds its body
    const OnExit restore{[this, outer] { sink_ = outer; }};
    statement_inner(s, out);
    if (out.size() > before && !s.comments.empty())
      out[before] = with_comments(out[before], s.comments);
  }

  void statement_inner(const SStmt& s, std::vector<ir::StmtRef>& out) {
    const core::Span sp = span(s.pos);
    switch (s.kind) {
      case StmtKind::Pass: return;
      case StmtKind::Break: out.push_back(ir::BreakStmt::make(sp)); return;
      case StmtKind::Continue: out.push_back(ir::ContinueStmt::make(sp)); return;
      case StmtKind::Return: {
        std::vector<ir::ExprRef> values;
        if (s.value) {
          if (s.value->kind == ExprKind::Tuple)  // `return a, b` and `return (a, b)` alike
            for (const auto& v : s.value->items) values.push_back(expr(*v));
          else
            values.push_back(expr(*s.value));
        }
        if (!inline_frames_.empty()) {  // an inline function's return gives the call's value
          if (s.value && s.value->kind == ExprKind::Tuple)
            inline_frames_.back()->result = ir::MakeTuple::make(std::move(values), sp);
          else if (s.value)
            inline_frames_.back()->result = values[0];
          return;
        }
        out.push_back(ir::ReturnStmt::make(std::move(values), sp));
        return;
      }
      case StmtKind::Expr: return expression_statement(s, out);
      case StmtKind::Assign: return assignment(s, out);
      case StmtKind::Declare: {
        if (s.target->kind != ExprKind::Name) fail_at(*s.target, "a name to declare");
        if (is_window(*s.annotation))
          scope_.windows[s.target->text] = s.annotation.get();
        else
          scope_.declared[s.target->text] = type(*s.annotation);
        return;
      }
      case StmtKind::AugAssign: {
        if (s.target->kind != ExprKind::Name)
          fail_at(*s.target, "a name on the left of " + s.text + "=");
        ir::ExprRef l = expr(*s.target);
        ir::ExprRef r = expr(*s.value);
        unify_literal(l, r, *s.target, *s.value);
        ir::ExprRef v = guard(*s.value, [&] { return scalar_binary(s.text, l, r, sp); });
        bind_assignment(*s.target, nullptr, v, out, sp);
        return;
      }
      case StmtKind::If: return if_statement(s, out);
      case StmtKind::For: return for_statement(s, out);
      case StmtKind::While: {
        ir::ExprRef cond = expr(*s.value);
        ir::StmtRef body = body_slot(s.body, s.pos);
        out.push_back(guard(*s.value, [&] { return ir::WhileStmt::make({}, cond, body, {}, sp); }));
        return;
      }
      case StmtKind::With: return with_statement(s, out);
      case StmtKind::FunctionDef:
      case StmtKind::ClassDef:
        throw ParseError(s.pos, s.name,
                         "a statement (nested functions and classes are not supported)");
      case StmtKind::Import:
        throw ParseError(s.pos, "import", "imports only at the top of the text");
      case StmtKind::Assert:
        throw ParseError(s.pos, "assert",
                         "a statement of the DSL (`assert` is host code: a HOST sub-worker's)");
      case StmtKind::Raise:
        throw ParseError(s.pos, "raise",
                         "a statement of the DSL (`raise` is host code: a HOST sub-worker's)");
    }
  }

  void expression_statement(const SStmt& s, std::vector<ir::StmtRef>& out) {
    const SExpr& v = *s.value;
    if (v.kind == ExprKind::String) return;  // a docstring
    const std::string d = v.kind == ExprKind::Call ? dotted(v.item(0)) : "";
    if (d == "pl.yield_" || d == "pl._dump.yield_") return yield(s, nullptr, out);
    if (d == "pl.func_attr")
      fail_at(v, "pl.func_attr only before every other statement of a function body");
    if (d == "pl.cond") fail_at(v, "pl.cond only as the first statement of a pl.while_ loop");
    if (d == "pl.set_cache_policy") return cache_policy_marker(v);
    if (d == "pl.dump_tag") return dump_tag(v);
    ir::ExprRef e = expr(v);
    out.push_back(ir::EvalStmt::make(e, span(s.pos)));
  }

  void assignment(const SStmt& s, std::vector<ir::StmtRef>& out) {
    const SExpr& v = *s.value;
    const std::string d = v.kind == ExprKind::Call ? dotted(v.item(0)) : "";
    if (d == "pl.yield_" || d == "pl._dump.yield_") return yield(s, s.target.get(), out);
    if (s.target->kind == ExprKind::Subscript) return element_write(s, out);
    ir::ExprRef value = expr(v);
    // `x: pl.INT64 = 0`: a bare literal takes the annotated scalar dtype.
    if (s.annotation && is_bare_literal(v))
      if (const auto* st = ir::as<ir::ScalarType>(type(*s.annotation).get()))
        if (auto x = retype_literal(value, st->dtype)) value = x;
    bind_assignment(*s.target, s.annotation.get(), value, out, span(s.pos));
  }

  /// The window `x[i, lo:hi, :]` selects of a value of `shape`, numpy's way: a slice keeps its
  /// axis (`lo` defaults to 0, `hi` to the extent), a scalar index takes one element of its axis
  /// and drops it (`drop`), axes past the indices are whole.
  struct Window {
    std::vector<ir::ExprRef> offsets, extents;
    std::vector<ir::ExprRef> drop;
    bool any_slice = false;
  };

  Window window(const SExpr& index, const std::vector<ir::ExprRef>& shape) {
    std::vector<const SExpr*> items;
    if (index.kind == ExprKind::Tuple && !index.parenthesized)
      for (const auto& i : index.items) items.push_back(i.get());
    else
      items.push_back(&index);
    if (items.size() > shape.size())
      fail_at(index, "at most " + std::to_string(shape.size()) + " indices (the value's rank)");
    Window w;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      const SExpr* item = d < items.size() ? items[d] : nullptr;
      if (item && item->kind != ExprKind::Slice) {
        w.offsets.push_back(expr(*item));
        w.extents.push_back(ir::ConstInt::make(1));
        w.drop.push_back(ir::ConstInt::make(static_cast<std::int64_t>(d)));
        continue;
      }
      w.any_slice = w.any_slice || item;
      const bool has_lo = item && item->item(0).kind != ExprKind::None;
      const bool has_hi = item && item->item(1).kind != ExprKind::None;
      ir::ExprRef lo = has_lo ? expr(item->item(0)) : ir::ConstInt::make(0);
      ir::ExprRef hi = has_hi ? expr(item->item(1)) : shape[d];
      w.offsets.push_back(lo);
      w.extents.push_back(guard(*(item ? item : &index), [&] { return extent(hi, lo, has_lo); }));
    }
    return w;
  }

  /// hi - lo, folded when both are constants (or lo is an absent 0).
  static ir::ExprRef extent(const ir::ExprRef& hi, const ir::ExprRef& lo, bool has_lo) {
    if (!has_lo) return hi;
    const auto* h = ir::as<ir::ConstInt>(hi.get());
    const auto* l = ir::as<ir::ConstInt>(lo.get());
    if (h && l) return ir::ConstInt::make(h->value - l->value, h->dtype());
    return ir::Sub::make(hi, lo);
  }

  /// `x[...]` on a tensor or tile: every axis indexed by a scalar is an element read
  /// (tensor.read / tile.read), anything else a window (tensor.slice / tile.slice, dropping
  /// the scalar-indexed axes).
  ir::ExprRef shaped_read(const SExpr& e, const ir::ExprRef& x, const ir::ShapedType& st) {
    const bool tile = ir::isa<ir::TileType>(st);
    Window w = window(e.item(1), st.shape);
    const core::Span sp = span(e.pos);
    return guard(e, [&]() -> ir::ExprRef {
      const std::size_t indexed = w.drop.size();
      if (!w.any_slice && indexed == st.rank())
        return ops_.make_call(tile ? "tile.read" : "tensor.read",
                              {x, ir::MakeTuple::make(w.offsets, sp)}, {}, {}, sp);
      std::vector<ir::ExprRef> args{x, ir::MakeTuple::make(w.extents, sp),
                                    ir::MakeTuple::make(w.offsets, sp)};
      if (!w.drop.empty()) {
        args.push_back(ir::MakeTuple::make({}, sp));
        args.push_back(ir::MakeTuple::make(w.drop, sp));
      }
      return ops_.make_call(tile ? "tile.slice" : "tensor.slice", args, {}, {}, sp);
    });
  }

  /// `x[...] = src` on a tensor or tile: `x = assemble(x, src, offsets)` over the window the
  /// indices select (a source of the window's rank).
  void window_write(const SStmt& s, const ir::ExprRef& x, const ir::ShapedType& st,
                    std::vector<ir::StmtRef>& out) {
    const SExpr& target = *s.target;
    const bool tile = ir::isa<ir::TileType>(st);
    Window w = window(target.item(1), st.shape);
    if (!w.any_slice && w.drop.size() == st.rank())
      fail_at(target, "a window (an element write `x[i, j] = v` is not a subscript write)");
    ir::ExprRef src = expr(*s.value);
    const auto* source = ir::as<ir::ShapedType>(src->type.get());
    if (!source || source->rank() != st.rank())
      fail_at(*s.value, "a " + std::string(tile ? "tile" : "tensor") + " of rank " +
                            std::to_string(st.rank()) + " to write into the window");
    const core::Span sp = span(s.pos);
    ir::ExprRef assembled = guard(target, [&]() -> ir::ExprRef {
      return ops_.make_call(tile ? "tile.assemble" : "tensor.assemble",
                            {x, src, ir::MakeTuple::make(w.offsets, sp)}, {}, {}, sp);
    });
    bind_assignment(target.item(0), nullptr, assembled, out, sp);
  }

  /// The index of `arr[i]`: one integer (a bare literal is INDEX).
  ir::ExprRef array_index(const SExpr& i) {
    if (i.kind == ExprKind::Tuple && !i.parenthesized)
      fail_at(i, "one index: an array has one dimension");
    return expr(i);
  }

  /// `arr[i] = v`: `arr = array.update_element(arr, i, v)`, the name rebound to the new value
  /// (a bare literal takes the element dtype); `x[...] = src` on a tensor or tile assembles.
  void element_write(const SStmt& s, std::vector<ir::StmtRef>& out) {
    const SExpr& target = *s.target;
    if (s.annotation) fail_at(*s.annotation, "no annotation on an element write");
    if (target.item(0).kind != ExprKind::Name) fail_at(target.item(0), "a name");
    ir::ExprRef arr = expr(target.item(0));
    if (const auto* st = ir::as<ir::ShapedType>(arr->type.get()))
      return window_write(s, arr, *st, out);
    const auto* at = ir::as<ir::ArrayType>(arr->type.get());
    if (!at) fail_at(target, "an array, tensor or tile to write into");
    ir::ExprRef index = array_index(target.item(1));
    ir::ExprRef value = expr(*s.value);
    if (is_bare_literal(*s.value))
      if (auto x = retype_literal(value, at->dtype)) value = x;
    const core::Span sp = span(s.pos);
    ir::ExprRef updated = guard(target, [&]() -> ir::ExprRef {
      return ops_.make_call("array.update_element", {arr, index, value}, {}, {}, sp);
    });
    bind_assignment(target.item(0), nullptr, updated, out, sp);
  }

  /// True when `v` is a shape symbol of a parameter's type: a name that stands for it (a folded
  /// extent read, so only where reads fold) is rebound to a new variable, never to the symbol.
  bool is_signature_symbol(const ir::Var& v) const {
    for (const ir::VarRef& p : param_vars_)
      if (const auto* tt = p ? ir::as<ir::ShapedType>(p->type.get()) : nullptr)
        for (const ir::ExprRef& d : tt->shape)
          if (d.get() == &v) return true;
    return false;
  }

  /// `x[: T] = value` (rebinding an existing `x` to a value of the same type keeps its
  /// variable: the natural form, where one variable is assigned several times) or `a, b = value` (a
  /// tuple unpacked element by element).
  void bind_assignment(const SExpr& target, const SExpr* annotation, ir::ExprRef value,
                       std::vector<ir::StmtRef>& out, const core::Span& sp) {
    if (target.kind == ExprKind::Tuple) {
      if (annotation) fail_at(*annotation, "no annotation on a tuple assignment");
      // `(a, b), tid = pl.submit(...)`: the results, then the task id, of one flat tuple.
      std::vector<const SExpr*> names;
      const bool submit_form = ir::isa<ir::Submit>(*value) && target.items.size() == 2 &&
                               target.item(0).kind == ExprKind::Tuple;
      if (submit_form)
        for (const auto& n : target.item(0).items) names.push_back(n.get());
      for (std::size_t i = submit_form ? 1 : 0; i < target.items.size(); ++i)
        names.push_back(&target.item(i));
      const auto* tt = ir::as<ir::TupleType>(value->type.get());
      if (!tt || tt->types.size() != names.size())
        fail_at(target, "as many names as the value has tuple elements");
      ir::VarRef whole = ir::Var::make("tuple_tmp", value->type, sp);
      out.push_back(ir::AssignStmt::make(whole, value, sp));
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i]->kind != ExprKind::Name) fail_at(*names[i], "a name");
        bind_assignment(*names[i], nullptr,
                        ir::TupleGetItem::make(whole, static_cast<std::int64_t>(i), sp), out, sp);
      }
      return;
    }
    if (target.kind != ExprKind::Name) fail_at(target, "a name on the left of '='");
    const std::string& name = target.text;
    if (name == "self" || name == "pl" || name == "pld")
      fail_at(target, "a name other than " + name);
    if (annotation && is_window(*annotation)) {
      ir::VarRef w = window(name, *annotation, target.pos);
      reconcile(w->type, value->type, *annotation);
      scope_.names[name] = w;
      out.push_back(guard(target, [&] { return ir::AssignStmt::make(w, value, sp); }));
      return;
    }
    ir::TypeRef t = value->type;
    if (annotation) {
      // An annotation flattening a loaded or created ND tile to 2-D types the call.
      const ir::TypeRef ann = type(*annotation);
      if (const auto* c = ir::as<ir::Call>(value.get()))
        if (ir::TypeRef flat = flattened_call_type(*c->op, c->type, ann))
          value = ir::Call::make(c->op, c->args, flat, c->kwargs, c->attrs, c->span);
      t = reconcile(ann, value->type, *annotation);
    }
    t = take_declared(name, t, target);
    // In an Orchestration function a read of a parameter's symbolic extent is the symbol: the
    // name stands for it and nothing is bound (ir/dim_read.hpp).
    if (fold_extent_reads_)
      if (ir::ExprRef sym = ir::param_dim_symbol(param_vars_, t, *value)) {
        scope_.names[name] = ir::cast<ir::Var>(sym);
        return;
      }
    ir::VarRef var;
    if (auto it = scope_.names.find(name);
        it != scope_.names.end() && it->second->kind() == ir::NodeKind::Var &&
        it->second->name_hint == name && ir::identical(it->second->type, t) &&
        !(fold_extent_reads_ && is_signature_symbol(*it->second)))
      var = it->second;
    else
      var = ir::Var::make(name, t, span(target.pos));
    scope_.names[name] = var;
    out.push_back(guard(target, [&] { return ir::AssignStmt::make(var, value, sp); }));
  }

  // -- yields and region results --

  /// `[targets =] pl.yield_(v, ...)` or `pl._dump.yield_(v, ..., types=[...])`.
  void yield(const SStmt& s, const SExpr* target, std::vector<ir::StmtRef>& out) {
    const SExpr& call = *s.value;
    const bool dump = dotted(call.item(0)) == "pl._dump.yield_";
    only_keywords(call,
                  dump ? std::initializer_list<std::string_view>{"types"}
                       : std::initializer_list<std::string_view>{},
                  dump ? "pl._dump.yield_" : "pl.yield_");
    std::vector<ir::ExprRef> values = positional(call);
    std::vector<ir::TypeRef> types(values.size());
    if (dump) {
      const SExpr* k = keyword(call, "types");
      if (!k || k->kind != ExprKind::List || k->items.size() != values.size())
        fail_at(call, "types=[...] with one type per yielded value");
      for (std::size_t i = 0; i < values.size(); ++i) types[i] = type(*k->items[i]);
    }
    if (s.annotation) {
      if (values.size() != 1) fail_at(*s.annotation, "an annotation only on a single result");
      types[0] = type(*s.annotation);
    }
    out.push_back(ir::YieldStmt::make(values, span(s.pos)));
    if (!target) return;
    if (regions_.empty())
      fail_at(*target, "a yield with results only inside a for loop or an if with else");
    RegionResults& r = *regions_.back();
    std::vector<const SExpr*> names;
    if (target->kind == ExprKind::Tuple)
      for (const auto& n : target->items) names.push_back(n.get());
    else
      names.push_back(target);
    if (names.size() != values.size()) fail_at(*target, "one name per yielded value");
    r.closed = true;
    for (const SExpr* n : names)
      if (n->kind != ExprKind::Name) fail_at(*n, "a name for the region result");
    if (!r.seen) {
      r.seen = true;
      for (std::size_t i = 0; i < names.size(); ++i) {
        r.names.push_back(names[i]->text);
        r.name_nodes.push_back(names[i]);
      }
      r.annotations = types;
      r.first_values = values;
      return;
    }
    if (r.names.size() != names.size())
      fail_at(*target, std::to_string(r.names.size()) + " results, as the other branch yields");
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i]->text != r.names[i])
        fail_at(*names[i], "the result name '" + r.names[i] + "' as in the other branch");
      if (!r.annotations[i]) r.annotations[i] = types[i];
    }
  }

  /// The region's result variables, typed by annotation reconciled with `inferred[i]`.
  std::vector<ir::VarRef> result_vars(const RegionResults& r,
                                      const std::vector<ir::TypeRef>& inferred) {
    std::vector<ir::VarRef> vars;
    for (std::size_t i = 0; i < r.names.size(); ++i) {
      ir::TypeRef t = i < inferred.size() ? inferred[i] : nullptr;
      if (r.annotations[i]) t = reconcile(r.annotations[i], t, *r.name_nodes[i]);
      if (!t) fail_at(*r.name_nodes[i], "a type for the result (annotate it)");
      t = take_declared(r.names[i], t, *r.name_nodes[i]);
      vars.push_back(ir::Var::make(r.names[i], t, span(r.name_nodes[i]->pos)));
    }
    for (std::size_t i = 0; i < vars.size(); ++i) scope_.names[r.names[i]] = vars[i];
    return vars;
  }

  /// Builds `body` as a region whose yields bind results into `r`.
  ir::StmtRef region(const std::vector<syntax::StmtPtr>& body, TextPos pos, RegionResults& r,
                     std::size_t first = 0) {
    r.closed = false;  // each arm ends with its own yield
    regions_.push_back(&r);
    const OnExit pop{[this] { regions_.pop_back(); }};
    return body_slot(body, pos, first);
  }

  void if_statement(const SStmt& s, std::vector<ir::StmtRef>& out) {
    ir::ExprRef cond = expr(*s.value);
    RegionResults r;
    ir::StmtRef then_body = region(s.body, s.pos, r);
    ir::StmtRef else_body;
    if (!s.orelse.empty()) else_body = region(s.orelse, s.orelse.front()->pos, r);
    std::vector<ir::TypeRef> inferred;
    for (const auto& v : r.first_values) inferred.push_back(v->type);
    std::vector<ir::VarRef> rvs = result_vars(r, inferred);
    out.push_back(guard(
        *s.value, [&] { return ir::IfStmt::make(cond, then_body, else_body, rvs, span(s.pos)); }));
  }

  void with_statement(const SStmt& s, std::vector<ir::StmtRef>& out) {
    const SExpr& c = *s.value;
    const std::string d = c.kind == ExprKind::Call ? dotted(c.item(0)) : "";
    const core::Span sp = span(s.pos);
    if (d == "pl._dump.seq") {
      positional_count(c, 0, 0, d);
      only_keywords(c, {}, d);
      out.push_back(block(s.body, 0, s.pos));
      return;
    }
    if (d == "pl._dump.stmt") fail_at(c, "pl._dump.stmt() only as the whole body of a block");
    // Every scope: its header is read first (its expressions are in the outer scope), then the
    // body, then the node is built.
    struct Header {
      std::string name_hint;
      ir::Attrs attrs;
    };
    auto header = [&](std::size_t positional, std::initializer_list<std::string_view> keywords) {
      positional_count(c, positional, positional, d);
      only_keywords(c, keywords, d);
      return Header{name_hint_of(c), attrs_of(c)};
    };
    auto finish = [&](auto make) {
      ir::StmtRef body = body_slot(s.body, s.pos);
      out.push_back(guard(c, [&]() -> ir::StmtRef { return make(std::move(body)); }));
    };
    const bool task = d == "pl.at" || d == "pl.incore" || d == "pl.cluster" || d == "pl.spmd" ||
                      d == "pl._dump.spmd";
    if (s.target && !task)
      fail_at(*s.target, "':' (only a pl.at, a pl.cluster or a pl.spmd scope binds a task id)");
    // A task scope: `as tid` binds its task id after the body (the body cannot see it); the
    // kernel-side scopes (`markers`) hoist the body's pl.set_cache_policy markers.
    auto finish_task = [&](auto make, bool markers = true) {
      std::vector<ir::AttrValueList> policies(1);
      if (markers) cache_policy_sinks_.push_back(&policies.back());
      const OnExit pop{[this, markers] {
        if (markers) cache_policy_sinks_.pop_back();
      }};
      ir::StmtRef body = body_slot(s.body, s.pos);
      ir::StmtRef scope = guard(c, [&]() -> ir::StmtRef {
        auto made = make(std::move(body), std::move(policies.back()));  // the concrete scope
        if (!s.target) return made;
        if (s.target->kind != ExprKind::Name) fail_at(*s.target, "a name for the task id");
        ir::VarRef tid = ir::Var::make(
            s.target->text,
            take_declared(s.target->text, ir::ScalarType::make(core::DataType::TASK_ID), *s.target),
            span(s.target->pos));
        scope_.names[s.target->text] = tid;
        return ir::ScopeStmt::with_task_id(*made, tid);
      });
      out.push_back(std::move(scope));
    };
    if (d == "pl.at" || d == "pl.incore") {  // pl.incore(): upstream's earlier CORE_GROUP form
      const bool core_group = d == "pl.incore" || is_core_group(c);
      const std::size_t positional = d == "pl.at" && !keyword(c, "level") ? 1 : 0;  // the level
      const Header h =
          !core_group ? header(positional, {"level", "role", "name_hint", "attrs", "deps",
                                            "no_dep_args", "dumps"})
          : d == "pl.at"
              ? header(positional, {"level", "name_hint", "optimizations", "attrs", "deps",
                                    "no_dep_args", "dumps", "allow_early_resolve", "windowize"})
              : header(0, {"name_hint", "optimizations", "attrs", "deps", "no_dep_args", "dumps",
                           "allow_early_resolve"});
      if (core_group) {
        const InCoreDepth in_kernel(incore_depth_);
        ir::SplitMode split = ir::SplitMode::None;
        ir::Attrs attrs = with_dump_tags(task_attrs(c, h.attrs));
        const SExpr* const outer_split = declared_split_;
        const OnExit restore{[this, outer_split] { declared_split_ = outer_split; }};
        declared_split_ = nullptr;
        if (const SExpr* ok = keyword(c, "optimizations"))
          split = optimizations(*ok, attrs, &declared_split_);
        if (bool_keyword(c, "windowize"))
          attrs = attrs.with(std::string(ir::scope_attr::kWindowize), true);
        return finish_task([&](ir::StmtRef body, ir::AttrValueList policies) {
          if (!policies.empty())
            attrs = attrs.with(std::string(ir::scope_attr::kCachePolicyVars), std::move(policies));
          return ir::InCoreScopeStmt::make(body, h.name_hint, split, attrs, sp);
        });
      }
      const ir::Level level = enum_value<ir::Level>(at_level(c));
      std::optional<ir::Role> role;
      if (const SExpr* rk = keyword(c, "role")) role = enum_value<ir::Role>(*rk);
      const ir::Attrs attrs = with_dump_tags(task_attrs(c, h.attrs));
      return finish_task(
          [&](ir::StmtRef body, const ir::AttrValueList&) {
            return ir::HierarchyScopeStmt::make(body, level, role, h.name_hint, attrs, sp);
          },
          /*markers=*/false);
    }
    if (d == "pl.cluster") {
      const Header h = header(0, {"name_hint", "attrs", "deps", "no_dep_args", "dumps"});
      ir::Attrs attrs = with_dump_tags(task_attrs(c, h.attrs));
      return finish_task([&](ir::StmtRef body, ir::AttrValueList policies) {
        if (!policies.empty())
          attrs = attrs.with(std::string(ir::scope_attr::kCachePolicyVars), std::move(policies));
        return ir::ClusterScopeStmt::make(body, h.name_hint, attrs, sp);
      });
    }
    if (d == "pl.spmd" || d == "pl._dump.spmd") {
      // A body doing per-block work itself is a kernel: it reads back inside an InCore scope, as
      // upstream PyPTO's parser reads it (ir/implicit_kernel.hpp); `pl._dump.spmd` is the body
      // without that wrapper, which only IR built in C++ holds. `optimizations=` belongs to that
      // kernel: it makes one of any body that holds none.
      const SpmdHeader h = spmd_header(c, d, /*with_form=*/true);
      return finish_task([&](ir::StmtRef body, ir::AttrValueList policies) {
        ir::Attrs attrs = h.attrs;
        if (!policies.empty())
          attrs = attrs.with(std::string(ir::scope_attr::kCachePolicyVars), std::move(policies));
        const bool implicit =
            d == "pl.spmd" && (h.optimizations ? !ir::spmd_body_has_kernel(*body)
                                               : ir::spmd_body_is_implicit_kernel(*body));
        // The tagged tensors go to the dispatched task: the implied kernel, else the scope.
        if (!implicit) attrs = with_dump_vars(std::move(attrs), h.dump_tags);
        if (h.optimizations && !implicit)
          fail_at(*h.optimizations,
                  "optimizations= on the inner pl.at(level=pl.Level.CORE_GROUP, ...) the body "
                  "already holds, not on pl.spmd");
        if (!implicit)
          return ir::SpmdScopeStmt::make(body, h.core_num, h.sync, h.name_hint, attrs, sp);
        const SpmdNames names = spmd_hints(h.name_hint);
        return ir::SpmdScopeStmt::make(
            ir::SeqStmts::make({ir::implicit_kernel(body, names.kernel, h.split,
                                                    with_dump_vars(h.kernel_attrs, h.dump_tags))},
                               sp),
            h.core_num, h.sync, names.dispatch, attrs, sp);
      });
    }
    if (d == "pl.scope" || d == "pl.manual_scope") {  // manual_scope(): upstream's MANUAL form
      const Header h = d == "pl.scope" ? header(0, {"mode", "name_hint", "attrs"})
                                       : header(0, {"name_hint", "attrs"});
      const SExpr* mk = keyword(c, "mode");
      const bool manual =
          d == "pl.manual_scope" || (mk && enum_value<ir::ScopeMode>(*mk) == ir::ScopeMode::MANUAL);
      return finish([&](ir::StmtRef body) {
        return ir::RuntimeScopeStmt::make(body, manual, h.name_hint, h.attrs, sp);
      });
    }
    fail_at(c, "a scope: pl.at(...), pl.cluster(), pl.spmd(n), pl.scope()");
  }

  // -- keywords shared by the scope forms --

  std::string name_hint_of(const SExpr& call) {
    const SExpr* k = keyword(call, "name_hint");
    if (!k) return {};
    if (k->kind != ExprKind::String) fail_at(*k, "a string name hint");
    return k->text;
  }

  ir::Attrs attrs_of(const SExpr& call) {
    const SExpr* k = keyword(call, "attrs");
    return k ? attr_dict(*k) : ir::Attrs{};
  }

  bool bool_keyword(const SExpr& call, std::string_view name) {
    const SExpr* k = keyword(call, name);
    return k && bool_literal(*k);
  }

  /// The level of `pl.at(level=L, ...)`, also written first: `pl.at(L, ...)`.
  static const SExpr& at_level(const SExpr& call) {
    const SExpr* lk = keyword(call, "level");
    if (lk && call.items.size() > 1) fail_at(*lk, "the level once: first or as level=");
    if (!lk && call.items.size() < 2) fail_at(call, "a level on pl.at: pl.at(level=pl.Level.<L>)");
    return lk ? *lk : call.item(1);
  }

  /// True for `pl.at(level=pl.Level.CORE_GROUP, ...)` (the InCore scope form).
  bool is_core_group(const SExpr& call) {
    return enum_value<ir::Level>(at_level(call)) == ir::Level::CORE_GROUP;
  }

  /// `optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=2)]` (either
  /// may be spelled in full, `pl.optimizations.<name>`; the printer writes the short name): returns
  /// the AUTO split (`pl.SplitMode.NONE` is none, as upstream stores it); a slot count (also
  /// upstream's `pl.split(mode, slot_num=N)`) goes to attrs. `written` receives a
  /// `pl.split(pl.SplitMode.NONE)` entry, which the IR cannot tell from no entry: the parser
  /// refuses it beside a pl.split_aiv region (OutlineIncoreScopes refuses the other modes).
  ir::SplitMode optimizations(const SExpr& list, ir::Attrs& attrs,
                              const SExpr** written = nullptr) {
    if (list.kind != ExprKind::List) fail_at(list, "a list of optimizations");
    ir::SplitMode split = ir::SplitMode::None;
    bool seen_split = false;
    auto slot_num = [&](const SExpr& call) {
      const SExpr* k = keyword(call, "slot_num");
      if (!k) return;
      if (attrs.contains(ir::scope_attr::kSlotNum)) fail_at(*k, "one slot_num per scope");
      const std::int64_t n = int_literal(*k, "a positive slot count");
      if (n <= 0) fail_at(*k, "a positive slot count");
      attrs = attrs.with(std::string(ir::scope_attr::kSlotNum), n);
    };
    for (const auto& o : list.items) {
      std::string d = o->kind == ExprKind::Call ? dotted(o->item(0)) : "";
      // `pl.optimizations.split(...)` is upstream's full name of `pl.split(...)` (and so for
      // cross_core_slot).
      if (d == "pl.optimizations.split" || d == "pl.optimizations.cross_core_slot")
        d = "pl." + d.substr(std::string_view("pl.optimizations.").size());
      if (d == "pl.cross_core_slot") {
        positional_count(*o, 0, 0, d);
        only_keywords(*o, {"slot_num"}, d);
        if (!keyword(*o, "slot_num")) fail_at(*o, "pl.cross_core_slot(slot_num=N)");
        slot_num(*o);
        continue;
      }
      if (d != "pl.split")
        fail_at(*o, "an optimization: pl.split(pl.SplitMode.<mode>) or pl.cross_core_slot(...)");
      positional_count(*o, 1, 1, "pl.split");
      only_keywords(*o, {"slot_num"}, d);
      if (seen_split) fail_at(*o, "one pl.split per scope");
      seen_split = true;
      split = enum_value<ir::SplitMode>(o->item(1));
      if (written && split == ir::SplitMode::None) *written = o.get();
      slot_num(*o);
    }
    return split;
  }

  /// The task keywords of a scope header, added to its attrs under upstream's keys:
  /// `deps=[tid, ...]` (when it names a task: see task_deps), `no_dep_args=[v, ...]`,
  /// `dumps=[v, ...]`.
  ir::Attrs task_attrs(const SExpr& call, ir::Attrs attrs) {
    if (const SExpr* k = keyword(call, "deps"))
      if (std::vector<ir::ExprRef> deps = task_deps(*k); !deps.empty())
        attrs = attrs.with(std::string(ir::scope_attr::kDeps),
                           ir::AttrValueList(deps.begin(), deps.end()));
    auto list = [&](std::string_view kw, std::string_view key) {
      const SExpr* k = keyword(call, kw);
      if (!k) return;
      if (k->kind != ExprKind::List) fail_at(*k, "a list");
      ir::AttrValueList items;
      for (const auto& item : k->items) {
        ir::ExprRef e = expr(*item);
        if (!ir::isa<ir::Var>(*e)) fail_at(*item, "a variable name");
        items.emplace_back(std::move(e));
      }
      attrs = attrs.with(std::string(key), std::move(items));
    };
    list("no_dep_args", ir::scope_attr::kNoDepVars);
    list("dumps", ir::scope_attr::kDumpVars);
    if (bool_keyword(call, "allow_early_resolve"))
      attrs = attrs.with(std::string(ir::scope_attr::kAllowEarlyResolve), true);
    if (const SExpr* k = keyword(call, "predicate")) {
      ir::ExprRef p = expr(*k);
      if (!ir::has_scalar_dtype(p, core::DataType::BOOL))
        fail_at(*k, "a BOOL scalar dispatch predicate such as t[0, 0] > 0");
      attrs = attrs.with(std::string(ir::scope_attr::kPredicate), std::move(p));
    }
    return attrs;
  }

  /// The header of `pl.spmd(core_num, sync_start=, name_hint=, optimizations=, deps=,
  /// allow_early_resolve=, predicate=, attrs=)` (core_num positional or a keyword); the for-form
  /// takes no deps=. Read in the outer scope, before the body.
  struct SpmdHeader {
    ir::ExprRef core_num;
    bool sync = false;
    std::string name_hint;
    ir::Attrs attrs;                       // the dispatch's: deps, allow_early_resolve, predicate
    const SExpr* optimizations = nullptr;  // the kernel's, when given
    ir::SplitMode split = ir::SplitMode::None;
    ir::Attrs kernel_attrs;
    ir::AttrValueList dump_tags;  // the tensors pl.dump_tag has tagged before the header
  };
  SpmdHeader spmd_header(const SExpr& c, std::string_view d, bool with_form) {
    positional_count(c, 0, 1, d);
    if (with_form)
      only_keywords(c,
                    {"core_num", "sync_start", "name_hint", "optimizations", "deps",
                     "allow_early_resolve", "predicate", "attrs"},
                    d);
    else
      only_keywords(c,
                    {"core_num", "sync_start", "name_hint", "optimizations", "allow_early_resolve",
                     "predicate", "attrs"},
                    d);
    SpmdHeader h;
    const SExpr* kn = keyword(c, "core_num");
    if (kn && c.items.size() > 1) fail_at(*kn, "core_num once: positional or as a keyword");
    if (!kn && c.items.size() < 2) fail_at(c, std::string(d) + " needs core_num: pl.spmd(4)");
    const SExpr& n = kn ? *kn : c.item(1);
    h.core_num = expr(n);
    if (const auto* ci = ir::as<ir::ConstInt>(h.core_num.get()); ci && ci->value <= 0)
      fail_at(n, "a positive core_num");
    h.sync = bool_keyword(c, "sync_start");
    h.name_hint = name_hint_of(c);
    h.attrs = task_attrs(c, attrs_of(c));
    h.optimizations = keyword(c, "optimizations");
    if (h.optimizations) h.split = optimizations(*h.optimizations, h.kernel_attrs);
    h.dump_tags.assign(dump_tags_.begin(), dump_tags_.end());
    return h;
  }

  /// `pl.set_cache_policy(t, pl.CachePolicy.BYPASS)` in a task scope's body: a marker the
  /// scope hoists into its `cache_policy_vars` attr (wherever it stands in the body).
  void cache_policy_marker(const SExpr& call) {
    if (cache_policy_sinks_.empty())
      fail_at(call, "pl.set_cache_policy only inside a pl.at(level=pl.Level.CORE_GROUP) scope");
    positional_count(call, 2, 2, "pl.set_cache_policy");
    only_keywords(call, {}, "pl.set_cache_policy");
    ir::ExprRef v = expr(call.item(1));
    if (!ir::isa<ir::Var>(*v)) fail_at(call.item(1), "a tensor variable");
    const ir::CachePolicy policy = enum_value<ir::CachePolicy>(call.item(2));
    cache_policy_sinks_.back()->emplace_back(ir::AttrValueList{v, policy});
  }

  void for_statement(const SStmt& s, std::vector<ir::StmtRef>& out) {
    const SExpr& it = *s.value;
    const std::string d = it.kind == ExprKind::Call ? dotted(it.item(0)) : "";
    const core::Span sp = span(s.pos);
    if (d == "pl.split_aiv" || d == "pl._dump.split_aiv")
      return split_aiv(s, out, d != "pl.split_aiv");
    if (d == "pl.spmd") return spmd_loop(s, out);
    if (d == "pl.while_") return while_loop(s, out);
    ir::ForKind kind = ir::ForKind::Sequential;
    if (d == "pl.range" || d == "range")
      kind = ir::ForKind::Sequential;
    else if (d == "pl.parallel")
      kind = ir::ForKind::Parallel;
    else if (d == "pl.unroll")
      kind = ir::ForKind::Unroll;
    else if (d == "pl.pipeline")
      kind = ir::ForKind::Pipeline;
    else
      fail_at(it,
              "a loop: pl.range, pl.parallel, pl.unroll, pl.pipeline, pl.while_ or pl.split_aiv");
    positional_count(it, 1, 3, d);
    only_keywords(it,
                  kind == ir::ForKind::Pipeline
                      ? std::initializer_list<std::string_view>{"init_values", "attrs", "stage"}
                      : std::initializer_list<std::string_view>{"init_values", "attrs"},
                  d);
    std::vector<ir::ExprRef> bounds = positional(it);
    ir::ExprRef start = bounds.size() == 1 ? ir::ConstInt::make(0) : bounds[0];
    ir::ExprRef stop = bounds.size() == 1 ? bounds[0] : bounds[1];
    ir::ExprRef step = bounds.size() == 3 ? bounds[2] : ir::ConstInt::make(1);
    ir::Attrs attrs;
    if (const SExpr* k = keyword(it, "stage"))
      attrs.entries.push_back({"pipeline_stages", attr_value(*k)});
    if (const SExpr* k = keyword(it, "attrs"))
      for (auto& e : attr_dict(*k).entries) attrs.entries.push_back(std::move(e));

    // Target: `i` or `i, (a, b)` with init_values=(x, y).
    const SExpr* loop_name = s.target.get();
    const SExpr* carried = nullptr;
    if (s.target->kind == ExprKind::Tuple && !s.target->parenthesized) {
      if (s.target->items.size() != 2 || s.target->item(1).kind != ExprKind::Tuple)
        fail_at(*s.target, "a loop target `i` or `i, (a, b)`");
      loop_name = &s.target->item(0);
      carried = &s.target->item(1);
    }
    if (loop_name->kind != ExprKind::Name) fail_at(*loop_name, "a loop variable name");
    std::vector<ir::IterArgRef> iter_args = iter_args_of(it, carried);
    ir::VarRef loop_var = ir::Var::make(
        loop_name->text, take_declared(loop_name->text, implied_loop_var_type(stop), *loop_name),
        span(loop_name->pos));
    scope_.names[loop_name->text] = loop_var;
    bind_iter_args(iter_args);
    RegionResults r;
    ir::StmtRef body = region(s.body, s.pos, r);
    std::vector<ir::VarRef> rvs = loop_results(r, iter_args, *s.target);
    out.push_back(guard(it, [&] {
      return ir::ForStmt::make(loop_var, start, stop, step, iter_args, body, rvs, kind, attrs, sp);
    }));
  }

  /// The iter_args named by `carried` (a tuple of names) with `init_values=(...)` of `call`.
  std::vector<ir::IterArgRef> iter_args_of(const SExpr& call, const SExpr* carried) {
    const SExpr* init = keyword(call, "init_values");
    if (!carried && !init) return {};
    if (!carried) fail_at(*init, "a target `i, (a, b)` naming the carried values");
    if (!init) fail_at(*carried, "init_values=(...) for the carried values");
    if (init->kind != ExprKind::Tuple && init->kind != ExprKind::List)
      fail_at(*init, "a tuple of initial values");
    if (init->items.size() != carried->items.size())
      fail_at(*init,
              std::to_string(carried->items.size()) + " initial values, one per carried name");
    std::vector<ir::ExprRef> values;
    for (const auto& v : init->items) values.push_back(expr(*v));  // in the outer scope
    std::vector<ir::IterArgRef> out;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const SExpr& n = carried->item(i);
      if (n.kind != ExprKind::Name) fail_at(n, "a name for the carried value");
      ir::TypeRef t = take_declared(n.text, values[i]->type, n);
      out.push_back(guard(n, [&] { return ir::IterArg::make(n.text, t, values[i], span(n.pos)); }));
    }
    return out;
  }

  /// A loop's result variables, typed like its iter_args. A pre-SSA loop (carried values, no
  /// `r = pl.yield_(...)`) binds them under the carried names; ConvertToSSA writes the yield.
  std::vector<ir::VarRef> loop_results(RegionResults& r,
                                       const std::vector<ir::IterArgRef>& iter_args,
                                       const SExpr& at) {
    if (!r.seen && !iter_args.empty()) {
      r.seen = true;
      for (const auto& ia : iter_args) {
        r.names.push_back(ia->name_hint);
        r.name_nodes.push_back(&at);
        r.annotations.push_back(nullptr);
      }
    }
    std::vector<ir::TypeRef> inferred;
    for (const auto& ia : iter_args) inferred.push_back(ia->type);
    return result_vars(r, inferred);
  }

  void bind_iter_args(const std::vector<ir::IterArgRef>& iter_args) {
    for (const auto& ia : iter_args) scope_.names[ia->name_hint] = ia;
  }

  /// `for (x, y) in pl.while_(init_values=(a, b)):` whose body starts with `pl.cond(c)`.
  void while_loop(const SStmt& s, std::vector<ir::StmtRef>& out) {
    const SExpr& it = *s.value;
    positional_count(it, 0, 0, "pl.while_");
    only_keywords(it, {"init_values"}, "pl.while_");
    if (s.target->kind != ExprKind::Tuple) fail_at(*s.target, "a tuple of carried names `(x,)`");
    std::vector<ir::IterArgRef> iter_args = iter_args_of(it, s.target.get());
    bind_iter_args(iter_args);
    if (s.body.empty() || s.body[0]->kind != StmtKind::Expr ||
        s.body[0]->value->kind != ExprKind::Call || dotted(s.body[0]->value->item(0)) != "pl.cond")
      throw ParseError(s.body.empty() ? s.pos : s.body[0]->pos,
                       s.body.empty() ? "" : first_token(*s.body[0]),
                       "pl.cond(condition) as the first statement of a pl.while_ loop");
    const SExpr& cond_call = *s.body[0]->value;
    positional_count(cond_call, 1, 1, "pl.cond");
    ir::ExprRef cond = expr(cond_call.item(1));
    RegionResults r;
    ir::StmtRef body = region(s.body, s.pos, r, /*first=*/1);  // after pl.cond
    std::vector<ir::VarRef> rvs = loop_results(r, iter_args, *s.target);
    out.push_back(
        guard(it, [&] { return ir::WhileStmt::make(iter_args, cond, body, rvs, span(s.pos)); }));
  }

  /// The dispatch's and the kernel's names of a spmd scope holding an implied kernel: one hint
  /// names both, `q` or `q_spmd` is the dispatch `q_spmd` of the kernel `q`.
  struct SpmdNames {
    std::string dispatch, kernel;
  };
  static SpmdNames spmd_hints(std::string hint) {
    static constexpr std::string_view dispatch_suffix = "_spmd";
    if (hint.empty()) return {};
    if (!hint.ends_with(dispatch_suffix)) return {hint + std::string(dispatch_suffix), hint};
    std::string kernel = hint.substr(0, hint.size() - dispatch_suffix.size());
    return {std::move(hint), std::move(kernel)};
  }

  /// `for i in pl.spmd(n, ...)`: upstream's block-parallel form. The body becomes an InCore
  /// region inside an Spmd scope whose first statement binds `i = pl.tile.get_block_idx()`.
  void spmd_loop(const SStmt& s, std::vector<ir::StmtRef>& out) {
    const SExpr& c = *s.value;
    if (s.target->kind != ExprKind::Name) fail_at(*s.target, "a name for the block index");
    const SpmdHeader h = spmd_header(c, "pl.spmd", /*with_form=*/false);
    const SpmdNames names = spmd_hints(h.name_hint);
    const core::Span sp = span(s.pos);
    ir::ExprRef idx =
        guard(c, [&] { return ops_.make_call("tile.get_block_idx", {}, {}, {}, sp); });
    ir::VarRef i = ir::Var::make(
        s.target->text, take_declared(s.target->text, idx->type, *s.target), span(s.target->pos));
    scope_.names[s.target->text] = i;
    std::vector<ir::StmtRef> inner{
        guard(*s.target, [&] { return ir::AssignStmt::make(i, idx, sp); })};
    {
      const InCoreDepth in_kernel(incore_depth_);
      for (const auto& st : s.body) statement(*st, inner);
    }
    out.push_back(guard(c, [&]() -> ir::StmtRef {
      auto incore = ir::implicit_kernel(ir::SeqStmts::make(std::move(inner), sp), names.kernel,
                                        h.split, with_dump_vars(h.kernel_attrs, h.dump_tags));
      return ir::SpmdScopeStmt::make(ir::SeqStmts::make({incore}, sp), h.core_num, h.sync,
                                     names.dispatch, h.attrs, sp);
    }));
  }

  /// `for aiv in pl.split_aiv(count, mode=..., name_hint=..., attrs=...)`. Outside an InCore
  /// scope and a kernel function the region is a kernel of its own: it is wrapped in an InCore
  /// scope, as upstream PyPTO's parser does. `pl._dump.split_aiv` is the region without that
  /// wrapper, which only IR built in C++ holds.
  void split_aiv(const SStmt& s, std::vector<ir::StmtRef>& out, bool bare) {
    const SExpr& c = *s.value;
    const std::string_view d = bare ? "pl._dump.split_aiv" : "pl.split_aiv";
    positional_count(c, 0, 1, d);
    only_keywords(c, {"mode", "name_hint", "attrs"}, d);
    if (s.target->kind != ExprKind::Name) fail_at(*s.target, "a name for the sub-block index");
    if (declared_split_)
      fail_at(c,
              "no pl.split_aiv region in a scope that declares pl.split(pl.SplitMode.NONE) (the "
              "scope's split and split_aiv regions are two AIV split forms: use one)");
    std::int64_t count = 2;
    if (c.items.size() > 1) count = int_literal(c.item(1), "the number of sub-blocks (2)");
    if (count != 2) fail_at(c.item(1), "2 (a split is over the two vector cores)");
    ir::SplitMode mode = ir::SplitMode::None;
    if (const SExpr* k = keyword(c, "mode")) mode = enum_value<ir::SplitMode>(*k);
    const std::string name_hint = name_hint_of(c);
    const ir::Attrs attrs = attrs_of(c);
    ir::VarRef aiv = ir::Var::make(
        s.target->text,
        take_declared(s.target->text, ir::ScalarType::make(core::DataType::INDEX), *s.target),
        span(s.target->pos));
    scope_.names[s.target->text] = aiv;
    const bool wrap = !bare && incore_depth_ == 0 && !kernel_function_;
    const ir::Attrs kernel_attrs = wrap ? with_dump_tags({}) : ir::Attrs{};
    const InCoreDepth in_kernel(incore_depth_, wrap);
    split_modes_.push_back(mode);
    const OnExit leave{[this] { split_modes_.pop_back(); }};
    ir::StmtRef body = body_slot(s.body, s.pos);
    out.push_back(guard(c, [&]() -> ir::StmtRef {
      const core::Span sp = span(s.pos);
      ir::StmtRef region =
          ir::SplitAivScopeStmt::make(aiv, body, mode, name_hint, attrs, sp, count);
      if (!wrap) return region;
      return ir::implicit_kernel(std::move(region), {}, ir::SplitMode::None, kernel_attrs);
    }));
  }

  // ---- state ----

  const ir::OpRegistry& ops_;
  core::Ref<const core::SourceFile> file_;
  bool in_class_ = false;
  std::set<std::string> externals_;  // module-level functions beside the program class
  std::map<std::string, const SStmt*, std::less<>> inlines_;  // module-level @pl.inline functions
  /// An inline function being expanded: its `return` sets the call's value.
  struct InlineFrame {
    const SStmt* def = nullptr;
    ir::ExprRef result;
  };
  std::vector<InlineFrame*> inline_frames_;
  std::vector<ir::StmtRef>* sink_ = nullptr;  // the statements of the statement being built
  const SExpr* declared_split_ = nullptr;     // the enclosing scope's pl.split(pl.SplitMode.NONE)
  std::map<std::string, ir::VarRef, std::less<>> dynamic_;
  std::vector<ir::AttrValueList*> cache_policy_sinks_;         // the enclosing task scopes' markers
  std::map<std::string, std::int64_t, std::less<>> unrolled_;  // comprehension variables' values
  std::vector<ir::VarRef> dump_tags_;  // the tensors `pl.dump_tag` tagged so far in this function
  ir::FunctionType function_type_ = ir::FunctionType::Opaque;  // of the function being built
  std::map<std::string, ir::VarRef, std::less<>> free_;
  FunctionSignatures functions_;
  FunctionScope scope_;
  const SStmt* current_def_ = nullptr;
  bool in_signature_ = false;
  std::map<std::string, std::size_t, std::less<>> pending_params_;
  std::vector<int> param_state_;  // 0 not built, 1 building, 2 built
  std::vector<ir::VarRef> param_vars_;
  bool fold_extent_reads_ = false;          // the function being built is Orchestration
  bool kernel_function_ = false;            // the function being built is InCore, AIC or AIV
  std::size_t incore_depth_ = 0;            // the InCore scopes enclosing the statement being built
  std::vector<ir::SplitMode> split_modes_;  // the pl.split_aiv regions enclosing it
  std::vector<ir::ParamDirection> param_dirs_;
  std::vector<RegionResults*> regions_;
  std::size_t type_depth_ = 0;
  std::size_t expr_depth_ = 0;  // Builder::expr recursion: IR expression nesting

 public:
  TextPos current_stmt_;  ///< the statement being built (for errors no narrower guard caught)

 private:
  std::string_view source_;  // the text being read: a HOST sub-worker's body is kept verbatim
};

}  // namespace detail

PYPTO_DECL ir::ProgramRef parse_program(std::string_view text, const ParseOptions& options) {
  const ir::OpRegistry& ops = options.ops ? *options.ops : default_op_registry();
  syntax::Module module = syntax::parse_module(text);
  bind_host_values(module, options.host_values);
  detail::Builder builder(ops, options.file_name, text);
  try {
    ir::ProgramRef program = builder.program(module);
    // The text's blocks and brackets are bounded as it is read; the IR they build is held to the
    // library's one measure, so that what parses, prints and runs through every pass.
    if (const std::optional<ir::TooDeep> deep = ir::find_too_deep(*program))
      throw ParseError(
          deep->span.is_known() ? TextPos{deep->span.line, deep->span.column} : TextPos{}, "",
          ir::describe(*deep));
    return program;
  } catch (const ParseError&) {
    throw;
  } catch (const core::Error& e) {
    // An IR builder's check that no narrower guard turned into a ParseError: report it at the
    // statement being built rather than let a different error type escape.
    throw ParseError(builder.current_stmt_, "", e.what());
  }
}

}  // namespace pypto::text

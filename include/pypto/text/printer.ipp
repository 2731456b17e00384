// pypto/text/printer.ipp — the definitions of text/printer.hpp.
#pragma once

#include "pypto/text/printer.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "pypto/core/identifier.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/identical.hpp"
#include "pypto/ir/implicit_kernel.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/scope_attrs.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/text/call_types.hpp"

namespace pypto::text {

namespace detail {

using ir::NodeKind;

// ---- lexical helpers --------------------------------------------------------------------------

/// Names a variable may not take: keywords, and the globals the printed text itself refers to.
inline bool is_reserved_name(std::string_view s) {
  return core::is_python_keyword(s) || s == "pl" || s == "pld" || s == "self" || s == "abs" ||
         s == "tuple";
}

/// `name_hint` as a Python identifier (core::is_identifier holds for the result): invalid
/// characters become `_`, a leading digit gets a `_` prefix, an empty hint becomes `v`.
inline std::string identifier(std::string_view hint) {
  if (hint.empty()) return "v";
  std::string out;
  if (!core::is_identifier_start(hint.front()) && core::is_identifier_char(hint.front()))
    out += '_';
  for (char c : hint) out += core::is_identifier_char(c) ? c : '_';
  return out;
}

/// A Python string literal in quote `q` (`"` for attrs and names, `'` for op kwargs).
inline std::string quote(std::string_view s, char q = '"') {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(1, q);
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '\\' || ch == q) {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += ch;  // printable ASCII and UTF-8 bytes pass through
    }
  }
  out += q;
  return out;
}

/// A finite double as Python reads it back exactly: `%.17g`, plus `.0` when it would otherwise
/// look like an int. Non-finite values (any NaN payload, either infinity) keep their bits:
/// `pl._dump.float64("<16 hex digits>")`.
inline std::string float_literal(double v) {
  if (!std::isfinite(v)) {
    static constexpr char kHex[] = "0123456789abcdef";
    const auto bits = std::bit_cast<std::uint64_t>(v);
    std::string hex(16, '0');
    for (int i = 0; i < 16; ++i)
      hex[static_cast<std::size_t>(15 - i)] = kHex[(bits >> (4 * i)) & 0xf];
    return "pl._dump.float64(\"" + hex + "\")";
  }
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 17);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

inline std::string dtype(core::DataType t) { return "pl." + std::string(core::dtype_name(t)); }

template <ir::IrEnum E>
std::string enum_text(E v) {
  return std::string(ir::enum_module<E>()) + "." + std::string(ir::EnumTraits<E>::type_name) + "." +
         std::string(ir::enum_name(v));
}

inline std::string join(const std::vector<std::string>& parts, std::string_view sep = ", ") {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

/// `(a,)` / `(a, b)`: a Python tuple display (one element needs the trailing comma).
inline std::string tuple_display(const std::vector<std::string>& parts) {
  return "(" + join(parts) + (parts.size() == 1 ? ",)" : ")");
}

// ---- operator precedence ----------------------------------------------------------------------

/// Python's binding strength, low to high. A child binding weaker than its parent is
/// parenthesised; see Printer::operand for ties.
enum Prec : int {
  kOr = 1,
  kAnd,
  kNot,
  kComparison,
  kBitOr,
  kBitXor,
  kBitAnd,
  kBitShift,
  kAddSub,
  kMulDivMod,
  kUnary,
  kPow,
  kCall,
  kAtom,
};

constexpr int precedence(NodeKind k) {
  switch (k) {
    case NodeKind::Or: return kOr;
    case NodeKind::And: return kAnd;
    case NodeKind::Not: return kNot;
    case NodeKind::Eq:
    case NodeKind::Ne:
    case NodeKind::Lt:
    case NodeKind::Le:
    case NodeKind::Gt:
    case NodeKind::Ge: return kComparison;
    case NodeKind::BitOr: return kBitOr;
    case NodeKind::BitXor: return kBitXor;
    case NodeKind::BitAnd: return kBitAnd;
    case NodeKind::BitShiftLeft:
    case NodeKind::BitShiftRight: return kBitShift;
    case NodeKind::Add:
    case NodeKind::Sub: return kAddSub;
    case NodeKind::Mul:
    case NodeKind::FloorDiv:
    case NodeKind::FloorMod:
    case NodeKind::FloatDiv: return kMulDivMod;
    case NodeKind::Neg:
    case NodeKind::BitNot: return kUnary;
    case NodeKind::Pow: return kPow;
    // Function-call forms: pl.min/pl.max/pl._dump.logical_xor, abs, pl.cast, calls, memrefs.
    case NodeKind::Min:
    case NodeKind::Max:
    case NodeKind::Xor:
    case NodeKind::Abs:
    case NodeKind::Cast:
    case NodeKind::Call:
    case NodeKind::Submit:
    case NodeKind::MemRef: return kCall;
    default: return kAtom;
  }
}

/// The infix spelling of a binary kind; empty for the function forms (Min, Max, Xor).
constexpr std::string_view infix(NodeKind k) {
  switch (k) {
    case NodeKind::Add: return "+";
    case NodeKind::Sub: return "-";
    case NodeKind::Mul: return "*";
    case NodeKind::FloorDiv: return "//";
    case NodeKind::FloorMod: return "%";
    case NodeKind::FloatDiv: return "/";
    case NodeKind::Pow: return "**";
    case NodeKind::Eq: return "==";
    case NodeKind::Ne: return "!=";
    case NodeKind::Lt: return "<";
    case NodeKind::Le: return "<=";
    case NodeKind::Gt: return ">";
    case NodeKind::Ge: return ">=";
    case NodeKind::And: return "and";
    case NodeKind::Or: return "or";
    case NodeKind::BitAnd: return "&";
    case NodeKind::BitOr: return "|";
    case NodeKind::BitXor: return "^";
    case NodeKind::BitShiftLeft: return "<<";
    case NodeKind::BitShiftRight: return ">>";
    default: return {};
  }
}

constexpr std::string_view function_form(NodeKind k) {
  switch (k) {
    case NodeKind::Min: return "pl.min";
    case NodeKind::Max: return "pl.max";
    case NodeKind::Xor: return "pl._dump.logical_xor";  // Python has no logical xor operator
    default: return {};
  }
}

// ---- analysis: names, bindings, call graph ----------------------------------------------------

/// Unique printable names for the Vars of one context, handed out in request order.
class NameTable {
 public:
  void reserve(const std::string& name) { taken_.insert(name); }

  /// `v`'s name, allocating it on first request: the identifier of its hint if still free,
  /// else the first free `<hint>_<k>`, k = 1, 2, ...
  const std::string& assign(const ir::Var& v) {
    if (auto it = names_.find(&v); it != names_.end()) return it->second;
    const std::string base = identifier(v.name_hint);
    std::string name = base;
    // Suffixes below next_suffix_[base] are all taken (names are never released), so the scan
    // resumes there: n variables with one hint cost O(n log n), not O(n^2).
    std::size_t& k = next_suffix_[base];
    while (taken_.count(name) || is_reserved_name(name)) {
      name = base;
      name.append("_").append(std::to_string(++k));
    }
    taken_.insert(name);
    return names_.emplace(&v, std::move(name)).first->second;
  }

  /// `v` printed under `of`'s name (assigned first if need be), whether or not another Var has
  /// it: the natural form's reassignment of a carried name.
  void alias(const ir::Var& v, const ir::Var& of) {
    if (names_.count(&v)) return;
    const std::string name = assign(of);
    names_.emplace(&v, name);
  }

  const std::string* find(const ir::Var& v) const {
    auto it = names_.find(&v);
    return it == names_.end() ? nullptr : &it->second;
  }

 private:
  std::map<const ir::Var*, std::string> names_;  // looked up only: addresses never reach output
  std::set<std::string> taken_;
  std::map<std::string, std::size_t> next_suffix_;  // per hint: the last suffix tried
};

/// Calls `fn(const Var&)` for each Var held in a Def field value (a handle or a list of them).
template <class T, class Fn>
void for_each_defined_var(const T& value, Fn& fn) {
  if constexpr (requires { value.begin(); }) {
    for (const auto& item : value) for_each_defined_var(item, fn);
  } else {
    static_assert(std::is_base_of_v<ir::Var, std::remove_const_t<typename T::element_type>>,
                  "pypto::text: a Def field must hold Vars");
    if (value) fn(static_cast<const ir::Var&>(*value));
  }
}

/// Calls `fn(const Var&, bool is_param)` for every Var a node binds, read from its Def field
/// descriptors (so a new binding node needs no change here).
template <class Fn>
void for_each_binding(const ir::Node& n, Fn&& fn) {
  const bool is_function = ir::isa<ir::Function>(n);
  auto bind = [&](const ir::Var& v) { fn(v, is_function); };
  ir::visit(n, [&](const auto& node) {
    reflect::for_each_field(node, [&](auto field, const auto& value) {
      if constexpr (decltype(field)::kind == reflect::FieldKind::Def)
        for_each_defined_var(value, bind);
    });
  });
}

/// The dimension expressions of a type, in field order: its expression children (shape, view
/// strides, valid shapes, offsets), read from its field descriptors. Attached storage (a MemRef)
/// is not a dimension, and element types of a tuple are types of their own.
inline std::vector<const ir::Expr*> dimension_exprs(const ir::Node& n) {
  std::vector<const ir::Expr*> out;
  if (!ir::isa<ir::Type>(n)) return out;
  ir::for_each_child(n, [&](const ir::NodeRef& child) {
    if (const auto* e = ir::as<ir::Expr>(child.get()); e && !ir::isa<ir::MemRef>(*e))
      out.push_back(e);
  });
  return out;
}

/// What the printer needs to know about one printing context (a function or a lone node).
struct ScopeFacts {
  std::set<const ir::Var*> params;                 // membership only
  std::set<const ir::Var*> body_defs;              // membership only
  std::vector<const ir::Var*> vars;                // every Var reached, in walk order
  std::vector<const ir::Var*> free_shape_symbols;  // unbound Vars in type dims, walk order
  std::set<const ir::Var*> memref_bases;           // membership only
  /// Vars printed under a carried name: in a loop written in the natural form (iter_args, no
  /// trailing yield), its results and the body's reassignments of a carried name are that name.
  std::map<const ir::Var*, const ir::Var*> same_name;  // looked up only

  bool bound(const ir::Var* v) const { return params.count(v) || body_defs.count(v); }
};

/// True when `body` ends with a yield (a loop in the SSA form).
inline bool ends_with_yield(const ir::Stmt& body) {
  const ir::Stmt* last = &body;
  for (;;) {
    if (const auto* seq = ir::as<ir::SeqStmts>(last)) {
      if (seq->stmts.empty()) return false;
      last = seq->stmts.back().get();
    } else if (ir::kinds::scope.contains(last->kind())) {  // a scope ending the body
      last = static_cast<const ir::ScopeStmt&>(*last).body.get();
      if (!last) return false;
    } else {
      break;
    }
  }
  return ir::isa<ir::YieldStmt>(*last);
}

/// Records the names a natural-form loop's results and carried reassignments print under.
template <class Loop>
void natural_carries(const Loop& s, ScopeFacts& f) {
  if (s.iter_args.empty() || !s.body || ends_with_yield(*s.body)) return;
  for (std::size_t i = 0; i < s.iter_args.size() && i < s.return_vars.size(); ++i)
    f.same_name.emplace(s.return_vars[i].get(), s.iter_args[i].get());
  ir::for_each_node(ir::NodeRef(s.body), [&](const ir::Node& n) {
    for_each_binding(n, [&](const ir::Var& v, bool) {
      for (const auto& ia : s.iter_args)
        if (v.name_hint == ia->name_hint && &v != ia.get()) f.same_name.emplace(&v, ia.get());
    });
  });
}

inline ScopeFacts analyze(const ir::Node& root) {
  ScopeFacts f;
  std::vector<const ir::Var*> symbol_candidates;
  std::set<const ir::Var*> seen_candidates;
  ir::for_each_node(ir::NodeRef(&root), [&](const ir::Node& n) {
    for_each_binding(n, [&](const ir::Var& v, bool is_param) {
      (is_param ? f.params : f.body_defs).insert(&v);
    });
    if (const auto* v = ir::as<ir::Var>(&n)) f.vars.push_back(v);
    if (const auto* loop = ir::as<ir::ForStmt>(&n)) natural_carries(*loop, f);
    if (const auto* loop = ir::as<ir::WhileStmt>(&n)) natural_carries(*loop, f);
    if (const auto* m = ir::as<ir::MemRef>(&n)) f.memref_bases.insert(m->base.get());
    for (const ir::Expr* dim : dimension_exprs(n))
      ir::for_each_node(ir::NodeRef(dim), [&](const ir::Node& d) {
        const auto* v = ir::as<ir::Var>(&d);
        if (v && seen_candidates.insert(v).second) symbol_candidates.push_back(v);
      });
  });
  for (const ir::Var* v : symbol_candidates)
    if (!f.bound(v)) f.free_shape_symbols.push_back(v);
  return f;
}

/// Names of the program functions a function calls or submits, sorted.
inline std::set<std::string> callees(const ir::Function& fn) {
  std::set<std::string> out;
  auto note = [&](const ir::OpRef& op) {
    if (ir::isa<ir::GlobalVar>(op)) out.insert(op->name);
  };
  ir::for_each_node(ir::NodeRef(&fn), [&](const ir::Node& n) {
    if (const auto* c = ir::as<ir::Call>(&n)) note(c->op);
    if (const auto* s = ir::as<ir::Submit>(&n)) note(s->op);
  });
  return out;
}

/// Callees before callers: a DFS from each function in name order, visiting callees in name
/// order (with an explicit stack: call chains may be arbitrarily long). On a cycle there is no
/// such order and the program's name order is used.
inline std::vector<const ir::Function*> function_order(const ir::Program& p) {
  struct Entry {
    std::set<std::string> callees;
    int state = 0;  // 0 new, 1 on the DFS path, 2 done
  };
  using Graph = std::map<std::string, Entry>;
  Graph graph;
  for (const auto& e : p.functions) graph[e.name].callees = callees(*e.function);
  struct Frame {
    Graph::iterator node;
    std::set<std::string>::const_iterator next;  // the next callee to follow
  };
  std::vector<Frame> path;
  std::vector<const ir::Function*> order;
  bool cycle = false;
  auto enter = [&](Graph::iterator it) {
    it->second.state = 1;
    path.push_back({it, it->second.callees.begin()});
  };
  for (auto root = graph.begin(); root != graph.end(); ++root) {
    if (root->second.state != 0) continue;
    enter(root);
    while (!path.empty()) {
      Frame& top = path.back();
      if (top.next == top.node->second.callees.end()) {
        top.node->second.state = 2;
        order.push_back(p.find(top.node->first).get());
        path.pop_back();
        continue;
      }
      const auto callee = graph.find(*top.next++);
      if (callee == graph.end()) continue;  // not a function of this program
      if (callee->second.state == 1) cycle = true;
      if (callee->second.state == 0) enter(callee);  // invalidates `top`
    }
  }
  if (cycle) {
    order.clear();
    for (const auto& e : p.functions) order.push_back(e.function.get());
  }
  return order;
}

// ---- the printer ------------------------------------------------------------------------------

/// Where a statement sits, for the statements whose spelling depends on it (yields).
struct StmtContext {
  const std::vector<ir::VarRef>* return_vars = nullptr;  ///< last stmt of a body binding these
};

class Printer {
 public:
  explicit Printer(PrintOptions options) : opts_(options) {}

  std::string program(const ir::Program& p) {
    in_program_ = true;
    for (const auto& e : p.functions)
      functions_[e.name] = {e.function->params, e.function->return_types};
    const auto order = function_order(p);
    std::vector<ScopeFacts> facts;
    for (const ir::Function* f : order) facts.push_back(analyze(*f));
    for (const auto& f : facts) add_dynamic_symbols(f);

    indent_ = 1;
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (i) out_ += '\n';
      print_function(*order[i], std::move(facts[i]));
    }
    if (order.empty()) line("pass");

    const std::string name = p.name.empty() ? "Program" : p.name;
    std::string head = "# pypto.program: " + name + "\nimport pypto.language as pl\n";
    if (uses_pld_) head += "import pypto.language.distributed as pld\n";
    head += '\n';
    std::vector<std::pair<std::string, const ir::Var*>> dyn_names;
    for (const ir::Var* v : dyn_order_) dyn_names.emplace_back(*dyn_.find(*v), v);
    std::sort(dyn_names.begin(), dyn_names.end());
    for (const auto& [n, v] : dyn_names) {
      const auto* st = ir::as<ir::ScalarType>(v->type.get());
      const bool index = st && st->dtype == core::DataType::INDEX;
      head +=
          n + " = pl.dynamic(" + quote(n) + (index || !st ? "" : ", " + dtype(st->dtype)) + ")\n";
    }
    if (!dyn_names.empty()) head += '\n';
    head += "@pl.program\nclass " + name + ":\n";
    return head + out_;
  }

  /// A function outside a program: no `self`, callees by bare name, shape symbols by name.
  std::string function(const ir::Function& f) {
    const ScopeFacts facts = analyze(f);
    add_dynamic_symbols(facts);
    print_function(f, facts);
    return out_;
  }

  std::string statement(const ir::Stmt& s) {
    enter_scope(analyze(s), /*in_function=*/false);
    if (const auto* seq = ir::as<ir::SeqStmts>(&s))
      items(seq->stmts, {});
    else
      one(s, {});
    return out_;
  }

  std::string expression(const ir::Expr& e) {
    enter_scope(analyze(e), /*in_function=*/false);
    return expr(e);
  }

  std::string type_text(const ir::Type& t) {
    enter_scope(analyze(t), /*in_function=*/false);
    return type(t);
  }

  std::string callee_text(const ir::Op& op) { return callee(op); }

 private:
  // ---- output ----

  void line(std::string_view text) {
    out_.append(static_cast<std::size_t>(indent_) * 4, ' ');
    out_ += text;
    out_ += '\n';
  }

  /// One `#` line per line of each comment; lines end at `\r\n`, `\r` or `\n`, as Python's.
  void comments(const ir::Stmt& s) {
    for (const auto& c : s.leading_comments) {
      std::string_view rest = c;
      for (;;) {
        const std::size_t end = rest.find_first_of("\r\n");
        const std::string_view part = rest.substr(0, end);
        line(part.empty() ? "#" : "# " + std::string(part));
        if (end == std::string_view::npos) break;
        rest.remove_prefix(end + (rest.substr(end, 2) == "\r\n" ? 2 : 1));
      }
    }
  }

  // ---- nesting ----

  /// One level of printer recursion, for as long as it lives; more than core::kMaxNesting
  /// levels are a ValueError (the native stack stays bounded whatever the IR's depth).
  class Nesting {
   public:
    explicit Nesting(std::size_t& depth) : depth_(depth) {
      if (depth_ >= core::kMaxNesting)
        throw core::ValueError("print: the IR nests deeper than " +
                               std::to_string(core::kMaxNesting) +
                               " levels (expressions, types, attribute lists and compound "
                               "statements count); bind inner expressions to variables");
      ++depth_;
    }
    ~Nesting() { --depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    std::size_t& depth_;
  };

  // ---- scopes and names ----

  /// Starts a naming context: free dynamic symbols keep their program names (reserved here so
  /// no local takes them), then params, then every other Var in walk order.
  void enter_scope(ScopeFacts facts, bool in_function) {
    facts_ = std::move(facts);
    in_function_ = in_function;
    locals_ = NameTable();
    for (const ir::Var* v : facts_.vars)
      if (is_dynamic_symbol(*v)) locals_.reserve(*dyn_.find(*v));
    for (const ir::Var* v : facts_.vars)
      if (facts_.params.count(v)) locals_.assign(*v);
    for (const ir::Var* v : facts_.vars) {
      if (is_dynamic_symbol(*v)) continue;
      const auto alias = facts_.same_name.find(v);
      if (alias != facts_.same_name.end())
        locals_.alias(*v, *alias->second);
      else
        locals_.assign(*v);
    }
  }

  /// Free shape symbols become program-level `pl.dynamic` names, first appearance first.
  void add_dynamic_symbols(const ScopeFacts& f) {
    for (const ir::Var* v : f.free_shape_symbols)
      if (dyn_vars_.insert(v).second) {
        dyn_.assign(*v);
        dyn_order_.push_back(v);
      }
  }

  bool is_dynamic_symbol(const ir::Var& v) const {
    return dyn_vars_.count(&v) && !facts_.bound(&v);
  }

  /// The printed name of `v`; a use that nothing in the function binds gets `__FREE_VAR`.
  std::string var_name(const ir::Var& v, bool mark_free = true) {
    if (is_dynamic_symbol(v)) return *dyn_.find(v);
    std::string name = locals_.assign(v);
    if (mark_free && in_function_ && !facts_.bound(&v)) name += "__FREE_VAR";
    return name;
  }

  std::string callee(const ir::Op& op) {
    if (ir::isa<ir::GlobalVar>(op)) return in_program_ ? "self." + op.name : op.name;
    std::string name = op.name;
    // A keyword leaf is not a Python attribute name: `tile.and` prints `pl.tile.and_`.
    if (core::is_python_keyword(std::string_view(name).substr(name.rfind('.') + 1))) name += '_';
    if (name.starts_with("pld.")) {
      uses_pld_ = true;
      return name;
    }
    return "pl." + name;
  }

  // ---- functions ----

  void print_function(const ir::Function& f, ScopeFacts facts) {
    enter_scope(std::move(facts), /*in_function=*/true);
    kernel_function_ = ir::is_kernel_function(f.func_type);
    line(decorator(f));
    line(signature(f));
    ++indent_;
    if (std::string attrs = func_attrs(f); !attrs.empty()) line(attrs);
    declare_free_vars();
    if (f.requires_runtime_binding || !f.body)
      line("...");
    else if (const auto* host = ir::as<ir::InlineStmt>(f.body.get()))
      stmt(*host, {});
    else
      body(*f.body, {});
    --indent_;
  }

  /// A HOST sub-worker whose body is host code (or bound at run time): no `self`, and its
  /// decorator names level and role, which is how the parser tells it from DSL code.
  static bool host_code(const ir::Function& f) {
    return ir::is_host_sub_worker(f.level, f.role) &&
           (f.requires_runtime_binding || (f.body && ir::isa<ir::InlineStmt>(*f.body)));
  }

  std::string decorator(const ir::Function& f) {
    std::vector<std::string> kw;
    if (f.func_type != ir::FunctionType::Opaque) kw.push_back("type=" + enum_text(f.func_type));
    // The builder derives level/role from the type; print them only when they differ, so that
    // parsing the text back through the builder yields the same Function.
    if (f.level && f.level != ir::default_level(f.func_type))
      kw.push_back("level=" + enum_text(*f.level));
    if (f.role && (f.role != ir::default_role(f.func_type) || host_code(f)))
      kw.push_back("role=" + enum_text(*f.role));
    // Keys the prologue may not set: a boolean auto_scope is the keyword, the rest `attrs=`.
    ir::Attrs decorator_only;
    for (const auto& e : f.attrs)
      if (e.key == ir::kAutoScopeAttr && e.value.is<bool>())
        kw.push_back("auto_scope=" + std::string(*e.value.get_if<bool>() ? "True" : "False"));
      else if (ir::decorator_only_attr(e.key))
        decorator_only.entries.push_back(e);
    if (!decorator_only.empty()) kw.push_back("attrs=" + attr_dict(decorator_only));
    return kw.empty() ? "@pl.function" : "@pl.function(" + join(kw) + ")";
  }

  std::string signature(const ir::Function& f) {
    in_signature_ = true;
    std::vector<std::string> params;
    if (in_program_ && !host_code(f)) params.push_back("self");
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      std::string t = annotation(*f.params[i]);
      const auto dir =
          i < f.param_directions.size() ? f.param_directions[i] : ir::ParamDirection::In;
      if (dir == ir::ParamDirection::Out) t = "pl.Out[" + t + "]";
      if (dir == ir::ParamDirection::InOut) t = "pl.InOut[" + t + "]";
      params.push_back(var_name(*f.params[i]) + ": " + t);
    }
    std::string ret;
    if (f.return_types.size() == 1) ret = " -> " + type(*f.return_types[0]);
    if (f.return_types.size() > 1) {
      std::vector<std::string> ts;
      for (const auto& t : f.return_types) ts.push_back(type(*t));
      ret = " -> tuple[" + join(ts) + "]";
    }
    in_signature_ = false;
    return "def " + f.name + "(" + join(params) + ")" + ret + ":";
  }

  /// The attrs as the body's `pl.func_attr({...})` prologue (upstream's printed form; a
  /// boolean auto_scope is the decorator's keyword), or "".
  std::string func_attrs(const ir::Function& f) {
    ir::Attrs attrs;
    for (const auto& e : f.attrs)
      if (!ir::decorator_only_attr(e.key)) attrs.entries.push_back(e);
    return attrs.empty() ? std::string() : "pl.func_attr(" + attr_dict(attrs) + ")";
  }

  // ---- statements ----

  /// Prints a body slot at the current indent. A slot normally holds a SeqStmts (the parser
  /// makes every block one); a lone statement is marked `with pl._dump.stmt():` so that the
  /// text reads back as the same structure.
  void body(const ir::Stmt& b, StmtContext ctx) {
    if (const auto* seq = ir::as<ir::SeqStmts>(&b)) {
      comments(*seq);
      return items(seq->stmts, ctx);
    }
    line("with pl._dump.stmt():");
    const Nesting level(depth_);
    ++indent_;
    one(b, ctx);
    --indent_;
  }

  /// The statements of a sequence; `pass` for none. The last one gets `ctx.return_vars`; a
  /// SeqStmts nested in the sequence is `with pl._dump.seq():`.
  void items(const std::vector<ir::StmtRef>& stmts, StmtContext ctx, bool pass_if_empty = true) {
    for (std::size_t i = 0; i < stmts.size(); ++i) {
      StmtContext here = ctx;
      if (i + 1 != stmts.size()) here.return_vars = nullptr;
      one(*stmts[i], here);
    }
    if (stmts.empty() && pass_if_empty) line("pass");
  }

  void one(const ir::Stmt& s, StmtContext ctx) {
    comments(s);
    ir::visit_stmt(s, [&](const auto& n) {
      static_assert(
          requires { this->stmt(n, ctx); },
          "pypto::text: the printer has no stmt() overload for this statement kind");
      stmt(n, ctx);
    });
  }

  void nested(const ir::Stmt& b, StmtContext ctx) {
    const Nesting level(depth_);
    ++indent_;
    body(b, ctx);
    --indent_;
  }

  /// `x: T` lines for the function's free variables that are not Scalar[INDEX] (the parser's
  /// default for an undeclared `x__FREE_VAR`).
  void declare_free_vars() {
    std::set<std::string> done;
    for (const ir::Var* v : facts_.vars) {
      if (facts_.bound(v) || is_dynamic_symbol(*v) ||
          (is_index_scalar(*v->type) && !ir::isa<ir::WindowBuffer>(*v)) ||
          facts_.memref_bases.count(v))
        continue;
      std::string name = var_name(*v);
      if (done.insert(name).second) line(name + ": " + annotation(*v));
    }
  }

  /// The annotation of a binding: its type, or for a WindowBuffer (a binding with storage
  /// fields of its own) `pl._dump.WindowBuffer(size, base=..., load_from_host=True, ...)`.
  std::string annotation(const ir::Var& v) {
    const auto* w = ir::as<ir::WindowBuffer>(&v);
    if (!w) return type(*v.type);
    std::vector<std::string> args{expr(*w->size)};
    if (w->base) args.push_back("base=" + expr(*w->base));
    if (w->load_from_host) args.push_back("load_from_host=True");
    if (w->store_to_host) args.push_back("store_to_host=True");
    return "pl._dump.WindowBuffer(" + join(args) + ")";
  }

  static bool is_index_scalar(const ir::Type& t) {
    const auto* st = ir::as<ir::ScalarType>(&t);
    return st && st->dtype == core::DataType::INDEX;
  }

  /// `x: T` before a binding whose text does not carry its type (a loop variable or sub-block
  /// index that is not Scalar[INDEX], an iter_arg typed unlike its initial value).
  void declare(const ir::Var& v, const ir::Type* implied) {
    const bool same =
        implied ? ir::identical(ir::TypeRef(implied), v.type) : is_index_scalar(*v.type);
    if (!same) line(var_name(v) + ": " + type(*v.type));
  }

  void stmt(const ir::AssignStmt& s, const StmtContext&) {
    std::string lhs = var_name(*s.var);
    const bool annotated = !opts_.concise || ir::isa<ir::WindowBuffer>(*s.var);
    if (annotated) lhs += ": " + annotation(*s.var);
    // The annotation written types a flattening load or create (flattened_call_type).
    annotated_value_ = annotated && !ir::isa<ir::WindowBuffer>(*s.var) ? s.value.get() : nullptr;
    annotated_type_ = s.var->type;
    line(lhs + " = " + expr(*s.value));
    annotated_value_ = nullptr;
  }
  void stmt(const ir::EvalStmt& s, const StmtContext&) { line(expr(*s.expr)); }
  /// Host code, line by line at the current indent (blank lines stay blank).
  void stmt(const ir::InlineStmt& s, const StmtContext&) {
    std::size_t from = 0;
    while (from <= s.body.size()) {
      std::size_t to = s.body.find('\n', from);
      if (to == std::string::npos) to = s.body.size();
      const std::string_view text = std::string_view(s.body).substr(from, to - from);
      if (text.empty())
        out_ += '\n';
      else
        line(std::string(text));
      from = to + 1;
    }
  }
  void stmt(const ir::BreakStmt&, const StmtContext&) { line("break"); }
  void stmt(const ir::ContinueStmt&, const StmtContext&) { line("continue"); }
  void stmt(const ir::ReturnStmt& s, const StmtContext&) { line(return_line(s.values)); }

  std::string return_line(const std::vector<ir::ExprRef>& values) {
    return values.empty() ? "return" : "return " + exprs(values);
  }

  void stmt(const ir::YieldStmt& s, const StmtContext& ctx) {
    const auto* rvs = ctx.return_vars;
    const std::string call = "pl.yield_(" + exprs(s.values) + ")";
    if (!rvs || rvs->empty() || rvs->size() != s.values.size()) return line(call);
    if (rvs->size() == 1) {
      const ir::Var& rv = *(*rvs)[0];
      std::string lhs = var_name(rv);
      if (!opts_.concise || ir::isa<ir::WindowBuffer>(rv)) lhs += ": " + annotation(rv);
      return line(lhs + " = " + call);
    }
    std::vector<std::string> names, types;
    for (const auto& rv : *rvs) {
      names.push_back(var_name(*rv));
      types.push_back(type(*rv->type));
    }
    // Several results: the types go in the private marker (a tuple target has no annotation).
    if (opts_.concise) return line(join(names) + " = " + call);
    line(join(names) + " = pl._dump.yield_(" + exprs(s.values) + ", types=[" + join(types) + "])");
  }

  void stmt(const ir::IfStmt& s, const StmtContext&) {
    const StmtContext arm{s.return_vars.empty() ? nullptr : &s.return_vars};
    line("if " + expr(*s.condition) + ":");
    nested(*s.then_body, arm);
    if (s.else_body) {
      line("else:");
      nested(*s.else_body, arm);
    }
  }

  void stmt(const ir::ForStmt& s, const StmtContext&) {
    declare(*s.loop_var, implied_loop_var_type(s.stop).get());
    for (const auto& ia : s.iter_args) declare(*ia, ia->init_value->type.get());
    std::string target = var_name(*s.loop_var);
    if (!s.iter_args.empty()) target += ", " + iter_arg_names(s.iter_args);

    std::vector<std::string> args;
    const bool unit_step = is_index_const(s.step, 1);
    if (!(is_index_const(s.start, 0) && unit_step)) args.push_back(expr(*s.start));
    args.push_back(expr(*s.stop));
    if (!unit_step) args.push_back(expr(*s.step));

    ir::Attrs rest = s.attrs;
    std::string_view fn = "pl.range";
    switch (s.for_kind) {
      case ir::ForKind::Sequential: break;
      case ir::ForKind::Parallel: fn = "pl.parallel"; break;
      case ir::ForKind::Unroll: fn = "pl.unroll"; break;
      case ir::ForKind::Pipeline:
        fn = "pl.pipeline";
        if (const auto* stages = s.attrs.find("pipeline_stages")) {
          args.push_back("stage=" + attr_value(*stages));
          rest = s.attrs.without("pipeline_stages");
        }
        break;
    }
    if (!s.iter_args.empty()) args.push_back("init_values=" + init_values(s.iter_args));
    if (!rest.empty()) args.push_back("attrs=" + attr_dict(rest));
    line("for " + target + " in " + std::string(fn) + "(" + join(args) + "):");
    nested(*s.body, {s.return_vars.empty() ? nullptr : &s.return_vars});
  }

  void stmt(const ir::WhileStmt& s, const StmtContext&) {
    if (s.iter_args.empty()) {
      line("while " + expr(*s.condition) + ":");
      nested(*s.body, {});
      return;
    }
    // The SSA form: the carried values are the loop target, the condition the first line.
    for (const auto& ia : s.iter_args) declare(*ia, ia->init_value->type.get());
    line("for " + iter_arg_names(s.iter_args) +
         " in pl.while_(init_values=" + init_values(s.iter_args) + "):");
    ++indent_;
    line("pl.cond(" + expr(*s.condition) + ")");
    const StmtContext ctx{s.return_vars.empty() ? nullptr : &s.return_vars};
    if (const auto* seq = ir::as<ir::SeqStmts>(s.body.get()))
      items(seq->stmts, ctx, /*pass_if_empty=*/false);
    else
      body(*s.body, ctx);
    --indent_;
  }

  // A sequence inside a sequence (a body slot's own SeqStmts prints as its lines).
  void stmt(const ir::SeqStmts& s, const StmtContext& ctx) {
    line("with pl._dump.seq():");
    const Nesting level(depth_);
    ++indent_;
    items(s.stmts, ctx);
    --indent_;
  }

  // Scopes are straight-line regions: a scope that ends a loop or branch body passes the
  // body's return vars on to its own last statement, so `r: T = pl.yield_(v)` keeps its binding.
  void stmt(const ir::InCoreScopeStmt& s, const StmtContext& ctx) {
    std::vector<std::string> kw{"level=" + enum_text(ir::Level::CORE_GROUP)};
    if (!s.name_hint.empty()) kw.push_back("name_hint=" + quote(s.name_hint));
    TaskOptions task = task_options(s, TaskScope::Kernel);
    std::vector<std::string> opts;
    if (s.split != ir::SplitMode::None) opts.push_back("pl.split(" + enum_text(s.split) + ")");
    if (task.slot_num) opts.push_back("pl.cross_core_slot(slot_num=" + *task.slot_num + ")");
    if (!opts.empty()) kw.push_back("optimizations=[" + join(opts) + "]");
    kw.insert(kw.end(), task.keywords.begin(), task.keywords.end());
    ++incore_depth_;
    scope("with pl.at(", kw, s, ctx, task);
    --incore_depth_;
  }
  void stmt(const ir::HierarchyScopeStmt& s, const StmtContext& ctx) {
    std::vector<std::string> kw{"level=" + enum_text(s.level)};
    if (s.role) kw.push_back("role=" + enum_text(*s.role));
    if (!s.name_hint.empty()) kw.push_back("name_hint=" + quote(s.name_hint));
    TaskOptions task = task_options(s, TaskScope::Hierarchy);
    kw.insert(kw.end(), task.keywords.begin(), task.keywords.end());
    scope("with pl.at(", kw, s, ctx, task);
  }
  void stmt(const ir::ClusterScopeStmt& s, const StmtContext& ctx) {
    std::vector<std::string> kw;
    if (!s.name_hint.empty()) kw.push_back("name_hint=" + quote(s.name_hint));
    TaskOptions task = task_options(s, TaskScope::Cluster);
    kw.insert(kw.end(), task.keywords.begin(), task.keywords.end());
    scope("with pl.cluster(", kw, s, ctx, task);
  }
  void stmt(const ir::SpmdScopeStmt& s, const StmtContext& ctx) {
    std::vector<std::string> kw{expr(*s.core_num)};
    if (s.sync_start) kw.push_back("sync_start=True");
    if (!s.name_hint.empty()) kw.push_back("name_hint=" + quote(s.name_hint));
    TaskOptions task = task_options(s, TaskScope::Spmd);
    kw.insert(kw.end(), task.keywords.begin(), task.keywords.end());
    // A body the parser would read as a kernel of its own is written in the form it reads bare.
    scope(ir::spmd_body_is_implicit_kernel(*s.body) ? "with pl._dump.spmd(" : "with pl.spmd(", kw,
          s, ctx, task);
  }
  void stmt(const ir::SplitAivScopeStmt& s, const StmtContext& ctx) {
    std::vector<std::string> kw{std::to_string(s.count)};
    if (s.split != ir::SplitMode::None) kw.push_back("mode=" + enum_text(s.split));
    if (!s.name_hint.empty()) kw.push_back("name_hint=" + quote(s.name_hint));
    declare(*s.aiv_id, nullptr);
    // Outside an InCore scope and a kernel, `pl.split_aiv` reads back wrapped in an InCore scope.
    const bool bare = incore_depth_ == 0 && !kernel_function_;
    scope("for " + var_name(*s.aiv_id) + (bare ? " in pl._dump.split_aiv(" : " in pl.split_aiv("),
          kw, s, ctx);
  }
  void stmt(const ir::RuntimeScopeStmt& s, const StmtContext& ctx) {
    std::vector<std::string> kw;
    if (s.manual) kw.push_back("mode=" + enum_text(ir::ScopeMode::MANUAL));
    if (!s.name_hint.empty()) kw.push_back("name_hint=" + quote(s.name_hint));
    scope("with pl.scope(", kw, s, ctx);
  }

  /// The surface form of a task scope's attrs (ir/scope_attrs.hpp): header keywords, the
  /// cross-core slot count and the `pl.set_cache_policy` marker lines; `rest` keeps every entry
  /// the surface form cannot spell, for `attrs={...}`.
  struct TaskOptions {
    std::vector<std::string> keywords;
    std::optional<std::string> slot_num;
    std::vector<std::string> markers;
    ir::Attrs rest;
  };

  /// Which header spells a task scope's attrs: a CORE_GROUP `pl.at`, a `pl.cluster`, a
  /// `pl.spmd` or another level's `pl.at` (each reads a different set of keywords back).
  enum class TaskScope : std::uint8_t { Kernel, Cluster, Spmd, Hierarchy };

  TaskOptions task_options(const ir::ScopeStmt& s, TaskScope where) {
    namespace key = ir::scope_attr;
    const bool kernel = where == TaskScope::Kernel, spmd = where == TaskScope::Spmd;
    TaskOptions t;
    const bool one_statement_body = !ir::isa<ir::SeqStmts>(*s.body);
    for (const auto& e : s.attrs) {
      const auto* list = e.value.get_if<ir::AttrValueList>();
      auto all = [&](auto pred) { return list && std::all_of(list->begin(), list->end(), pred); };
      auto var = [](const ir::AttrValue& v) {
        const auto* x = v.get_if<ir::ExprRef>();
        return x && ir::isa<ir::Var>(**x);
      };
      auto names = [&] {
        std::vector<std::string> out;
        for (const auto& v : *list) out.push_back(expr(**v.get_if<ir::ExprRef>()));
        return "[" + join(out) + "]";
      };
      if (e.key == key::kDeps && all([](const ir::AttrValue& v) { return v.is<ir::ExprRef>(); }))
        t.keywords.push_back("deps=" + names());
      else if (e.key == key::kNoDepVars && !spmd && all(var))
        t.keywords.push_back("no_dep_args=" + names());
      else if (e.key == key::kDumpVars && !spmd && all(var))
        t.keywords.push_back("dumps=" + names());
      else if (e.key == key::kAllowEarlyResolve && (kernel || spmd) && e.value.is<bool>() &&
               *e.value.get_if<bool>())
        t.keywords.push_back("allow_early_resolve=True");
      else if (e.key == key::kWindowize && kernel && e.value.is<bool>() && *e.value.get_if<bool>())
        t.keywords.push_back("windowize=True");
      else if (e.key == key::kPredicate && spmd && e.value.is<ir::ExprRef>() &&
               ir::has_scalar_dtype(*e.value.get_if<ir::ExprRef>(), core::DataType::BOOL))
        t.keywords.push_back("predicate=" + expr(**e.value.get_if<ir::ExprRef>()));
      else if (e.key == key::kSlotNum && kernel && e.value.is<std::int64_t>() &&
               *e.value.get_if<std::int64_t>() > 0)
        t.slot_num = std::to_string(*e.value.get_if<std::int64_t>());
      else if (e.key == key::kCachePolicyVars && !one_statement_body &&
               where != TaskScope::Hierarchy && all([&](const ir::AttrValue& v) {
                 const auto* pair = v.get_if<ir::AttrValueList>();
                 return pair && pair->size() == 2 && var((*pair)[0]) &&
                        (*pair)[1].is<ir::EnumValue>() &&
                        (*pair)[1].get_if<ir::EnumValue>()->holds<ir::CachePolicy>();
               }))
        for (const auto& v : *list) {
          const auto& pair = *v.get_if<ir::AttrValueList>();
          t.markers.push_back("pl.set_cache_policy(" + expr(**pair[0].get_if<ir::ExprRef>()) +
                              ", " + attr_value(pair[1]) + ")");
        }
      else
        t.rest.entries.push_back(e);
    }
    return t;
  }

  void scope(const std::string& open, std::vector<std::string> kw, const ir::ScopeStmt& s,
             const StmtContext& ctx) {
    TaskOptions plain;
    plain.rest = s.attrs;
    scope(open, std::move(kw), s, ctx, plain);
  }
  void scope(const std::string& open, std::vector<std::string> kw, const ir::ScopeStmt& s,
             const StmtContext& ctx, const TaskOptions& task) {
    if (!task.rest.empty()) kw.push_back("attrs=" + attr_dict(task.rest));
    std::string as;
    if (s.task_id) {
      declare(*s.task_id, ir::ScalarType::make(core::DataType::TASK_ID).get());
      as = " as " + var_name(*s.task_id);
    }
    line(open + join(kw) + ")" + as + ":");
    const Nesting level(depth_);
    ++indent_;
    for (const auto& m : task.markers) line(m);
    body(*s.body, {ctx.return_vars});
    --indent_;
  }

  std::string iter_arg_names(const std::vector<ir::IterArgRef>& iter_args) {
    std::vector<std::string> names;
    for (const auto& ia : iter_args) names.push_back(var_name(*ia));
    return tuple_display(names);
  }

  std::string init_values(const std::vector<ir::IterArgRef>& iter_args) {
    std::vector<std::string> values;
    for (const auto& ia : iter_args) values.push_back(expr(*ia->init_value));
    return tuple_display(values);
  }

  static bool is_index_const(const ir::ExprRef& e, std::int64_t value) {
    const auto c = ir::as<ir::ConstInt>(e);
    return c && c->value == value && c->dtype() == core::DataType::INDEX;
  }

  // ---- types ----

  std::string type(const ir::Type& t) {
    const Nesting level(depth_);
    return ir::visit_type(t, [&](const auto& n) {
      static_assert(
          requires { this->type_of(n); },
          "pypto::text: the printer has no type_of() overload for this type kind");
      return type_of(n);
    });
  }

  std::string type_of(const ir::ScalarType& t) { return "pl.Scalar[" + dtype(t.dtype) + "]"; }

  std::string type_of(const ir::TensorType& t) {
    uses_pld_ = uses_pld_ || t.distributed;
    std::string s = (t.distributed ? "pld.DistributedTensor[" : "pl.Tensor[") + dims(t.shape) +
                    ", " + dtype(t.dtype);
    if (t.tensor_view) s += ", " + tensor_view(*t.tensor_view);
    if (t.memref) s += ", " + memref(*t.memref);
    return s + "]";
  }

  std::string type_of(const ir::TileType& t) {
    std::string s = "pl.Tile[" + dims(t.shape) + ", " + dtype(t.dtype);
    if (t.memref) s += ", " + memref(*t.memref);
    if (t.memory_space) s += ", " + enum_text(*t.memory_space);
    if (t.tile_view) s += ", " + tile_view(*t.tile_view);
    return s + "]";
  }

  std::string type_of(const ir::ArrayType& t) {
    return "pl.Array[" + std::to_string(t.extent) + ", " + dtype(t.dtype) + "]";
  }

  std::string type_of(const ir::TupleType& t) {
    if (t.types.empty()) return "pl.Tuple[()]";
    std::vector<std::string> parts;
    for (const auto& e : t.types) parts.push_back(type(*e));
    return "pl.Tuple[" + join(parts) + "]";
  }

  std::string type_of(const ir::UnknownType&) { return "pl._dump.Unknown"; }
  std::string type_of(const ir::MemRefType&) { return "pl.MemRefType"; }
  std::string type_of(const ir::PtrType&) { return "pl.Ptr"; }
  std::string type_of(const ir::WindowBufferType&) { return "pl._dump.WindowBuffer"; }
  std::string type_of(const ir::CommCtxType&) {
    uses_pld_ = true;
    return "pld.CommCtx";
  }
  std::string type_of(const ir::PrefetchAsyncContextType&) { return "pl.PrefetchAsyncContext"; }
  std::string type_of(const ir::AsyncEventType&) { return "pl.AsyncEvent"; }
  std::string type_of(const ir::AsyncSessionType&) { return "pl.AsyncSession"; }

  /// `[d0, d1]`; a dim is an ordinary expression, so a non-INDEX constant keeps its dtype.
  std::string dims(const std::vector<ir::ExprRef>& ds) { return "[" + exprs(ds) + "]"; }

  // Views print every field that differs from a default-constructed view, so the text says
  // exactly what the IR holds; an all-default (but present) view is `pl.TensorView()`.
  std::string tensor_view(const ir::TensorView& v) {
    const ir::TensorView d;
    std::vector<std::string> kw;
    if (!v.valid_shape.empty()) kw.push_back("valid_shape=" + dims(v.valid_shape));
    if (!v.stride.empty()) kw.push_back("stride=" + dims(v.stride));
    if (v.layout != d.layout) kw.push_back("layout=" + enum_text(v.layout));
    if (v.pad != d.pad) kw.push_back("pad=" + enum_text(v.pad));
    return "pl.TensorView(" + join(kw) + ")";
  }

  std::string tile_view(const ir::TileView& v) {
    const ir::TileView d;
    std::vector<std::string> kw;
    if (!v.valid_shape.empty()) kw.push_back("valid_shape=" + dims(v.valid_shape));
    if (!v.stride.empty()) kw.push_back("stride=" + dims(v.stride));
    if (v.start_offset) kw.push_back("start_offset=" + expr(*v.start_offset));
    if (v.blayout != d.blayout) kw.push_back("blayout=" + enum_text(v.blayout));
    if (v.slayout != d.slayout) kw.push_back("slayout=" + enum_text(v.slayout));
    if (v.fractal != d.fractal) kw.push_back("fractal=" + std::to_string(v.fractal));
    if (v.pad != d.pad) kw.push_back("pad=" + enum_text(v.pad));
    if (v.compact != d.compact) kw.push_back("compact=" + enum_text(v.compact));
    return "pl.TileView(" + join(kw) + ")";
  }

  /// `pl.MemRef(base, offset, size[, pinned=True][, slots=N][, slot_index=e])`. The base is a
  /// bare name only where the text has bound it (a body definition, outside the signature). A
  /// declared allocation (pinned, offset INDEX 0, size 0) prints as upstream writes it,
  /// `pl.MemRef("name"[, slots=N])`, and a slot of a multi-slot one as a subscript `[k]`.
  std::string memref(const ir::MemRef& m) {
    const bool bare = !in_signature_ && facts_.body_defs.count(m.base.get());
    const auto* zero = ir::as<ir::ConstInt>(m.byte_offset.get());
    const bool declared = m.is_pinned && m.size == 0 && zero && zero->value == 0 &&
                          zero->dtype() == core::DataType::INDEX && !facts_.bound(m.base.get());
    const bool subscript = m.slot_index && m.slot_count > 1;
    std::vector<std::string> args{bare ? var_name(*m.base) : quote(var_name(*m.base, false))};
    if (!declared) {
      args.push_back(expr(*m.byte_offset));
      args.push_back(std::to_string(m.size));
      if (m.is_pinned) args.push_back("pinned=True");
    }
    if (m.slot_count > 1) args.push_back("slots=" + std::to_string(m.slot_count));
    if (m.slot_index && !subscript) args.push_back("slot_index=" + expr(*m.slot_index));
    std::string s = "pl.MemRef(" + join(args) + ")";
    if (subscript) s += "[" + expr(*m.slot_index) + "]";
    return s;
  }

  // ---- expressions ----

  std::string expr(const ir::Expr& e) {
    const Nesting level(depth_);
    return ir::visit_expr(e, [&](const auto& n) {
      static_assert(
          requires { this->expr_of(n); },
          "pypto::text: the printer has no expr_of() overload for this expression kind");
      return expr_of(n);
    });
  }

  std::string exprs(const std::vector<ir::ExprRef>& es) {
    std::vector<std::string> parts;
    for (const auto& e : es) parts.push_back(expr(*e));
    return join(parts);
  }

  /// The binding strength of `e` as printed (a negative literal binds like unary minus; a
  /// `pl.const(...)` literal like a call).
  static int precedence_of(const ir::Expr& e) {
    if (const auto* c = ir::as<ir::ConstInt>(&e))
      return c->dtype() != core::DataType::INDEX ? kCall : c->value < 0 ? kUnary : kAtom;
    if (const auto* c = ir::as<ir::ConstFloat>(&e))
      return c->dtype() != core::DataType::FP32 || !std::isfinite(c->value) ? kCall
             : std::signbit(c->value)                                       ? kUnary
                                                                            : kAtom;
    return precedence(e.kind());
  }

  /// A bare numeric literal: unary minus must not touch it unparenthesised, since the parser
  /// folds `-5` into the literal -5 (so Neg(5) prints `-(5)`).
  static bool is_bare_number(const ir::Expr& e) {
    if (const auto* c = ir::as<ir::ConstInt>(&e)) return c->dtype() == core::DataType::INDEX;
    if (const auto* c = ir::as<ir::ConstFloat>(&e))
      return c->dtype() == core::DataType::FP32 && std::isfinite(c->value);
    return false;
  }

  /// `child` as an operand of an operator of strength `parent`, parenthesised when it binds
  /// weaker, or equally on a side where Python would regroup it.
  std::string operand(const ir::Expr& child, int parent, bool paren_if_equal) {
    const int p = precedence_of(child);
    std::string s = expr(child);
    return p < parent || (p == parent && paren_if_equal) ? "(" + s + ")" : s;
  }

  std::string expr_of(const ir::Var& v) { return var_name(v); }

  std::string expr_of(const ir::ConstInt& c) {
    const std::string v = std::to_string(c.value);
    return c.dtype() == core::DataType::INDEX ? v : "pl.const(" + v + ", " + dtype(c.dtype()) + ")";
  }

  std::string expr_of(const ir::ConstFloat& c) {
    const std::string v = float_literal(c.value);
    return c.dtype() == core::DataType::FP32 ? v : "pl.const(" + v + ", " + dtype(c.dtype()) + ")";
  }

  std::string expr_of(const ir::ConstBool& c) { return c.value ? "True" : "False"; }

  /// An operand of a binary node: a bare INDEX literal beside an INT64 operand (the pair an
  /// operator takes mixed) is written `pl.const(v, pl.INDEX)`, since a bare one would take
  /// its sibling's dtype when read.
  std::string binary_operand(const ir::Expr& child, const ir::Expr& sibling, int parent,
                             bool paren_if_equal) {
    const auto* c = ir::as<ir::ConstInt>(&child);
    const auto* st = ir::as<ir::ScalarType>(sibling.type.get());
    if (c && c->dtype() == core::DataType::INDEX && st && st->dtype != core::DataType::INDEX)
      return "pl.const(" + std::to_string(c->value) + ", " + dtype(c->dtype()) + ")";
    return parent < 0 ? expr(child) : operand(child, parent, paren_if_equal);
  }

  template <NodeKind K>
  std::string expr_of(const ir::BinaryNode<K>& b) {
    if (const std::string_view fn = function_form(K); !fn.empty())
      return std::string(fn) + "(" + binary_operand(*b.left, *b.right, -1, false) + ", " +
             binary_operand(*b.right, *b.left, -1, false) + ")";
    constexpr int p = precedence(K);
    // Ties: `**` groups to the right, the others to the left; comparisons chain in Python
    // (`a < b < c` is not `(a < b) < c`), so a comparison operand of a comparison always
    // gets parentheses.
    constexpr bool right_assoc = K == NodeKind::Pow;
    constexpr bool chains = p == kComparison;
    return binary_operand(*b.left, *b.right, p, right_assoc || chains) + " " +
           std::string(infix(K)) + " " +
           binary_operand(*b.right, *b.left, p, !right_assoc || chains);
  }

  template <NodeKind K>
  std::string expr_of(const ir::UnaryNode<K>& u) {
    if constexpr (K == NodeKind::Abs) {
      return "abs(" + expr(*u.operand) + ")";
    } else {
      constexpr std::string_view op = K == NodeKind::Neg ? "-" : K == NodeKind::Not ? "not " : "~";
      if (K == NodeKind::Neg && is_bare_number(*u.operand)) return "-(" + expr(*u.operand) + ")";
      return std::string(op) + operand(*u.operand, precedence(K), false);
    }
  }

  std::string expr_of(const ir::Cast& c) {
    return "pl.cast(" + expr(*c.operand) + ", " + dtype(c.target()) + ")";
  }

  std::string expr_of(const ir::MemRef& m) { return memref(m); }

  /// True when the parser derives exactly `recorded` for this call (call_types.hpp); a
  /// rejected or different derivation means the type must be written out.
  template <class Derive>
  bool derives(const ir::TypeRef& recorded, Derive&& derive) const {
    try {
      const ir::TypeRef t = derive();
      return ir::identical(t, recorded);
    } catch (const core::Error&) {
      return false;
    }
  }

  const ir::OpRegistry& ops() const { return opts_.ops ? *opts_.ops : default_op_registry(); }

  std::string expr_of(const ir::Call& c) {
    // Outside a program a function callee is a bare name the parser cannot type; print plainly.
    const bool annotated = &c == annotated_value_;
    annotated_value_ = nullptr;  // not the arguments' calls
    const bool plain = (ir::isa<ir::GlobalVar>(*c.op) && !in_program_) || derives(c.type, [&] {
                         ir::TypeRef t =
                             derived_call_type(ops(), functions_, *c.op, c.args, c.kwargs);
                         if (annotated)
                           if (ir::TypeRef flat = flattened_call_type(*c.op, t, annotated_type_))
                             return flat;
                         return t;
                       });
    std::vector<std::string> args;
    if (!plain) args.push_back(callee(*c.op));
    // An argument the DSL does not take at this position (tile.full's value follows the dtype
    // keyword there) is written by name, and so is every one after it.
    const ir::OpDef* def = plain && ir::isa<ir::Op>(*c.op) ? ops().find(*c.op) : nullptr;
    bool by_name = false;
    for (std::size_t i = 0; i < c.args.size(); ++i) {
      const std::string* name = def && i < def->args.size() ? &def->arg_name(c.args, i) : nullptr;
      if (name) {
        const std::string* p = def->positional_param(i);
        by_name = by_name || !p || *p != *name;
      }
      args.push_back((by_name ? *name + "=" : std::string()) + expr(*c.args[i]));
    }
    for (const auto& e : c.kwargs) args.push_back(e.key + "=" + attr_value(e.value, '\''));
    if (!c.attrs.empty()) args.push_back("attrs=" + attr_dict(c.attrs));
    if (plain) return callee(*c.op) + "(" + join(args) + ")";
    args.push_back("type=" + type(*c.type));
    return "pl._dump.call(" + join(args) + ")";
  }

  std::string expr_of(const ir::Submit& s) {
    const bool plain = (ir::isa<ir::GlobalVar>(*s.op) && !in_program_) || derives(s.type, [&] {
                         return derived_submit_type(functions_, *s.op, s.args);
                       });
    std::vector<std::string> args{callee(*s.op)};
    for (const auto& a : s.args) args.push_back(expr(*a));
    if (!s.deps.empty()) args.push_back("deps=[" + exprs(s.deps) + "]");
    ir::Attrs attrs = s.attrs;
    if (std::optional<std::string> dumps = submit_dumps(s)) {
      args.push_back("dumps=[" + *dumps + "]");
      attrs = attrs.without(ir::scope_attr::kDumpVars);
    }
    if (s.core_num) args.push_back("core_num=" + expr(*s.core_num));
    if (s.sync_start) args.push_back("sync_start=True");
    if (s.allow_early_resolve) args.push_back("allow_early_resolve=True");
    if (s.predicate) args.push_back("predicate=" + expr(*s.predicate));
    for (const auto& e : s.kwargs) args.push_back(e.key + "=" + attr_value(e.value, '\''));
    if (!attrs.empty()) args.push_back("attrs=" + attr_dict(attrs));
    // A launch spec (core_num) is upstream's SPMD sibling of pl.submit.
    if (plain) return (s.core_num ? "pl.spmd_submit(" : "pl.submit(") + join(args) + ")";
    args.push_back("type=" + type(*s.type));
    return "pl._dump.submit(" + join(args) + ")";
  }

  /// A Submit's `dump_vars` as its `dumps=[...]` keyword, when that reads back to the same list:
  /// the dumped variables are arguments, listed once per argument slot in argument order.
  std::optional<std::string> submit_dumps(const ir::Submit& s) {
    const ir::AttrValue* v = s.attrs.find(ir::scope_attr::kDumpVars);
    const auto* list = v ? v->get_if<ir::AttrValueList>() : nullptr;
    if (!list || list->empty()) return std::nullopt;
    std::vector<const ir::Expr*> dumped;
    for (const ir::AttrValue& x : *list) {
      const auto* e = x.get_if<ir::ExprRef>();
      if (!e || !ir::isa<ir::Var>(**e) || !ir::isa<ir::TensorType>((*e)->type)) return std::nullopt;
      dumped.push_back(e->get());
    }
    auto named = [&](const ir::Expr* a) {
      return std::find(dumped.begin(), dumped.end(), a) != dumped.end();
    };
    std::vector<const ir::Expr*> in_order, once;
    for (const auto& a : s.args)
      if (ir::isa<ir::Var>(*a) && named(a.get())) {
        in_order.push_back(a.get());
        if (std::find(once.begin(), once.end(), a.get()) == once.end()) once.push_back(a.get());
      }
    if (in_order != dumped) return std::nullopt;
    std::vector<std::string> names;
    for (const ir::Expr* e : once) names.push_back(expr(*e));
    return join(names);
  }

  std::string expr_of(const ir::MakeTuple& t) { return "[" + exprs(t.elements) + "]"; }

  std::string expr_of(const ir::TupleGetItem& g) {
    return operand(*g.tuple, kCall, false) + "[" + std::to_string(g.index) + "]";
  }

  // ---- attribute values ----

  std::string enum_value_text(const ir::EnumValue& x) {
    uses_pld_ = uses_pld_ || ir::enum_module(x) == "pld";
    return std::string(ir::enum_module(x)) + "." + std::string(ir::enum_type_name(x)) + "." +
           std::string(ir::enum_value_name(x));
  }

  /// One attribute value; strings use quote `q` (`"` in attrs dicts, `'` for op kwargs).
  std::string attr_value(const ir::AttrValue& v, char q = '"') {
    const Nesting level(depth_);
    return std::visit(
        [&](const auto& x) -> std::string {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, bool>)
            return x ? "True" : "False";
          else if constexpr (std::is_same_v<T, std::int64_t>)
            return std::to_string(x);
          else if constexpr (std::is_same_v<T, double>)
            return float_literal(x);
          else if constexpr (std::is_same_v<T, std::string>)
            return quote(x, q);
          else if constexpr (std::is_same_v<T, core::DataType>)
            return dtype(x);
          else if constexpr (std::is_same_v<T, ir::EnumValue>)
            return enum_value_text(x);
          else if constexpr (std::is_same_v<T, ir::ExprRef>)
            return attr_expr(*x);
          else if constexpr (std::is_same_v<T, ir::AttrValueList>) {
            std::vector<std::string> items;
            for (const auto& item : x) items.push_back(attr_value(item, q));
            return "[" + join(items) + "]";
          } else {
            static_assert(std::is_same_v<T, ir::OpaquePayload>, "unhandled attribute value");
            return "pl._dump.opaque(" + quote(x.type_name) + ")";
          }
        },
        v.value);
  }

  /// An expression attribute. A literal is written `pl.const(v, dtype)`: bare `5` would read
  /// back as an integer attribute, not an expression.
  std::string attr_expr(const ir::Expr& e) {
    if (const auto* c = ir::as<ir::ConstInt>(&e))
      return "pl.const(" + std::to_string(c->value) + ", " + dtype(c->dtype()) + ")";
    if (const auto* c = ir::as<ir::ConstFloat>(&e))
      return "pl.const(" + float_literal(c->value) + ", " + dtype(c->dtype()) + ")";
    if (const auto* c = ir::as<ir::ConstBool>(&e))
      return std::string("pl.const(") + (c->value ? "True" : "False") + ", pl.BOOL)";
    return expr(e);
  }

  std::string attr_dict(const ir::Attrs& attrs) {
    std::vector<std::string> items;
    for (const auto& e : attrs) items.push_back(quote(e.key) + ": " + attr_value(e.value));
    return "{" + join(items) + "}";
  }

  // ---- state ----

  PrintOptions opts_;
  bool in_program_ = false;                    // GlobalVar callees print as `self.f`
  bool kernel_function_ = false;               // the function printed is InCore, AIC or AIV
  std::size_t incore_depth_ = 0;               // the InCore scopes enclosing the statement printed
  bool in_function_ = false;                   // unbound uses get `__FREE_VAR`
  bool in_signature_ = false;                  // memref bases print quoted
  bool uses_pld_ = false;                      // the text refers to `pld.`: import it
  const ir::Expr* annotated_value_ = nullptr;  // the value of the `x: T = ...` printed
  ir::TypeRef annotated_type_;                 // and its T
  FunctionSignatures functions_;               // the program's functions, for derived call types
  NameTable dyn_;                      // program-level shape symbols (`N = pl.dynamic("N")`)
  std::set<const ir::Var*> dyn_vars_;  // membership only
  std::vector<const ir::Var*> dyn_order_;
  ScopeFacts facts_;
  NameTable locals_;
  std::string out_;
  int indent_ = 0;
  std::size_t depth_ = 0;  // printer recursion levels in use (see Nesting)
};

}  // namespace detail

PYPTO_DECL std::string print(const ir::Program& program, PrintOptions options) {
  return detail::Printer(options).program(program);
}

PYPTO_DECL std::string print(const ir::Node& node, PrintOptions options) {
  detail::Printer p(options);
  if (const auto* prog = ir::as<ir::Program>(&node)) return p.program(*prog);
  if (const auto* fn = ir::as<ir::Function>(&node)) return p.function(*fn);
  if (const auto* s = ir::as<ir::Stmt>(&node)) return p.statement(*s);
  if (const auto* e = ir::as<ir::Expr>(&node)) return p.expression(*e);
  if (const auto* t = ir::as<ir::Type>(&node)) return p.type_text(*t);
  return p.callee_text(*ir::as<ir::Op>(&node));
}

}  // namespace pypto::text

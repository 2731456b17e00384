// pypto/text/syntax.hpp — the Python subset of the pl DSL: a syntax tree.
//
// `parse_module(text)` turns text into a tree of the statements and expressions the DSL uses
// (decorated classes and functions, annotated assignments, for/while/if/with, calls with
// keywords, subscripts, tuples, lists, dicts, Python operators with Python's precedence). It
// knows nothing of the IR: text/parser.hpp gives the tree its meaning, so syntax errors and
// meaning errors are reported by different, small pieces of code, each at its `line:column`.
// Lexing follows Python (INDENT/DEDENT from leading spaces, brackets and `\` join lines,
// own-line comments are kept on the next statement, `'`/`"` strings, also tripled, with the
// usual escapes); integer literals are unsigned magnitudes, so `-9223372036854775808` reads
// exactly. O(n) in the text length; nesting deeper than core::kMaxNesting is a ParseError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/text/parse_error.hpp"

namespace pypto::text::syntax {

// ---- syntax tree ------------------------------------------------------------------------------

enum class ExprKind : std::uint8_t {
  Name,       ///< text = identifier
  Attribute,  ///< items[0].text
  Call,       ///< items[0](items[1..], keywords)
  Subscript,  ///< items[0][items[1]]
  Tuple,      ///< items (parenthesised or bare `a, b`)
  List,       ///< [items]
  ListComp,   ///< [items[0] for items[1] in items[2] if items[3] if ...]: one `for`, a name target
  Dict,       ///< {items[0]: items[1], items[2]: items[3], ...}
  Int,        ///< int_value (a magnitude: a sign is a Unary `-`)
  Float,      ///< float_value
  String,     ///< text = the decoded value
  FString,    ///< text = an f-string's template as written (host code only; not evaluated)
  True,
  False,
  None,
  Ellipsis,
  Binary,   ///< items[0] text items[1]: + - * / // % ** << >> & | ^
  Unary,    ///< text items[0]: - + ~ not
  Compare,  ///< items[0] text items[1]: == != < <= > >= (a chain is nested left to right)
  BoolOp,   ///< items[0] text items[1]: and / or
  Slice,    ///< items[0]:items[1] in a subscript; an absent bound is a None
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Keyword {
  std::string name;
  TextPos pos;
  ExprPtr value;
};

struct Expr {
  ExprKind kind = ExprKind::None;
  TextPos pos;
  bool parenthesized = false;  ///< written inside `( )` (so `-(5)` is not the literal -5)
  bool chained = false;        ///< a Compare whose left operand is an unparenthesised Compare
  std::string text;
  std::uint64_t int_value = 0;
  double float_value = 0;
  std::vector<ExprPtr> items;
  std::vector<Keyword> keywords;  ///< Call only

  Expr() = default;
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;
  /// Iterative: a flat chain `a + b + c ...` nests one node per operator, and its teardown must
  /// not recurse once per term.
  ~Expr() {
    const auto leaf = [](const ExprPtr& e) {
      return !e || (e->items.empty() && e->keywords.empty());
    };
    bool shallow = true;  // children without children of their own: destroyed in place below
    for (const auto& i : items) shallow = shallow && leaf(i);
    for (const auto& k : keywords) shallow = shallow && leaf(k.value);
    if (shallow) return;
    std::vector<ExprPtr> pending;
    const auto adopt = [&](Expr& e) {
      for (auto& i : e.items)
        if (i) pending.push_back(std::move(i));
      for (auto& k : e.keywords)
        if (k.value) pending.push_back(std::move(k.value));
    };
    adopt(*this);
    while (!pending.empty()) {
      ExprPtr last = std::move(pending.back());
      pending.pop_back();
      adopt(*last);
    }  // `last` is destroyed with no children left
  }

  const Expr& item(std::size_t i) const { return *items[i]; }
};

enum class StmtKind : std::uint8_t {
  Expr,       ///< value
  Assign,     ///< target [: annotation] = value
  Declare,    ///< target: annotation (no value)
  AugAssign,  ///< target text= value (text is the operator, e.g. "+")
  Return,     ///< return [value]
  Pass,
  Break,
  Continue,
  If,           ///< if value: body else: orelse
  For,          ///< for target in value: body
  While,        ///< while value: body
  With,         ///< with value: body
  FunctionDef,  ///< decorators def name(params) -> returns: body
  ClassDef,     ///< decorators class name: body
  Import,       ///< text = module, name = alias
  Assert,       ///< assert value [, target] (target: the message)
  Raise,        ///< raise [value [from target]]
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Param {
  std::string name;
  TextPos pos;
  ExprPtr annotation;  ///< may be null (`self`)
};

struct Stmt {
  StmtKind kind = StmtKind::Pass;
  TextPos pos;
  std::vector<std::string> comments;  ///< own-line comments before the statement
  ExprPtr target;
  ExprPtr annotation;
  ExprPtr value;
  std::string name;
  std::string text;
  std::vector<ExprPtr> decorators;
  std::vector<Param> params;
  ExprPtr returns;
  std::vector<StmtPtr> body;
  std::vector<StmtPtr> orelse;
  TextPos end;  ///< FunctionDef: where the text after its body begins (its body's source ends)
};

using Module = std::vector<StmtPtr>;

/// The syntax tree of `text`; a ParseError at the first token that does not fit.
PYPTO_DECL Module parse_module(std::string_view text);

}  // namespace pypto::text::syntax

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/text/syntax.ipp"
#endif

// pypto/text/syntax.ipp — the definitions of text/syntax.hpp.
#pragma once

#include "pypto/text/syntax.hpp"

#include <cctype>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "pypto/core/identifier.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/text/parse_error.hpp"

namespace pypto::text::syntax {

// ---- tokens -----------------------------------------------------------------------------------

enum class TokenKind : std::uint8_t {
  Name,
  Int,
  Float,
  String,
  FString,  ///< an f-string: its text as written between the quotes, not evaluated
  Punct,
  Newline,
  Indent,
  Dedent,
  End
};

struct Token {
  TokenKind kind = TokenKind::End;
  TextPos pos;
  std::string text;  ///< as written (a String token holds its decoded value)
  std::uint64_t int_value = 0;
  double float_value = 0;
  std::vector<std::string> comments;  ///< own-line comments just before this token's line
};

/// The tokens of `text`, ending with Newline (if any tokens) and End.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}

  std::vector<Token> run() {
    indents_.push_back(0);
    while (i_ < s_.size()) {
      if (at_line_start_) {
        if (!line_start()) continue;
      }
      const char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\f') {
        advance(1);
      } else if (c == '#') {
        skip_comment(/*own_line=*/false);
      } else if (c == '\\' && (peek(1) == '\n' || (peek(1) == '\r' && peek(2) == '\n'))) {
        advance(peek(1) == '\r' ? 3 : 2);
        newline_seen();
      } else if (c == '\n' || c == '\r') {
        advance(c == '\r' && peek(1) == '\n' ? 2 : 1);
        if (depth_ == 0) {
          emit_simple(TokenKind::Newline, "");
          at_line_start_ = true;
        }
        newline_seen();
      } else if (core::is_identifier_start(c) || name_char(i_) > 1) {
        name();
      } else if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
        number();
      } else if (c == '"' || c == '\'') {
        string(pos());
      } else {
        punct();
      }
    }
    if (!open_.empty())
      fail(open_.back().second, std::string(1, open_.back().first),
           std::string("'") + closing(open_.back().first) + "' to close this bracket");
    if (!out_.empty() && out_.back().kind != TokenKind::Newline)
      emit_simple(TokenKind::Newline, "");
    while (indents_.size() > 1) {
      indents_.pop_back();
      emit_simple(TokenKind::Dedent, "");
    }
    emit_simple(TokenKind::End, "");
    return std::move(out_);
  }

 private:
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  char peek(std::size_t k) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  /// Columns count characters, not bytes: a UTF-8 continuation byte adds none. The count
  /// resumes where the last call on the line left it, so a long line is scanned once.
  TextPos pos() const {
    if (counted_line_ != line_begin_ || counted_to_ > i_) {
      counted_line_ = counted_to_ = line_begin_;
      continuation_bytes_ = 0;
    }
    for (; counted_to_ < i_; ++counted_to_)
      continuation_bytes_ += (static_cast<unsigned char>(s_[counted_to_]) & 0xC0) == 0x80;
    return {line_, static_cast<std::uint32_t>(i_ - line_begin_ - continuation_bytes_ + 1)};
  }

  /// The bytes of the name character at `at`: 1 for an ASCII letter, digit or `_`, the length
  /// of a multi-byte UTF-8 character, else 0.
  std::size_t name_char(std::size_t at) const {
    if (at >= s_.size()) return 0;
    if (core::is_identifier_char(s_[at])) return 1;
    const std::size_t n = utf8_length(at);
    return n > 1 ? n : 0;
  }

  /// The length of the well-formed UTF-8 sequence at `at` (1 for ASCII, 0 when malformed).
  std::size_t utf8_length(std::size_t at) const {
    const auto byte = [&](std::size_t k) {
      return at + k < s_.size() ? static_cast<unsigned char>(s_[at + k]) : 0u;
    };
    const unsigned b = byte(0);
    if (b < 0x80) return 1;
    const auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
      return byte(k) >= lo && byte(k) <= hi;
    };
    if (b >= 0xC2 && b <= 0xDF) return cont(1) ? 2 : 0;
    if (b >= 0xE0 && b <= 0xEF) {
      const bool second = b == 0xE0 ? cont(1, 0xA0) : b == 0xED ? cont(1, 0x80, 0x9F) : cont(1);
      return second && cont(2) ? 3 : 0;
    }
    if (b >= 0xF0 && b <= 0xF4) {
      const bool second = b == 0xF0 ? cont(1, 0x90) : b == 0xF4 ? cont(1, 0x80, 0x8F) : cont(1);
      return second && cont(2) && cont(3) ? 4 : 0;
    }
    return 0;
  }

  void advance(std::size_t n) { i_ += n; }
  void newline_seen() {
    ++line_;
    line_begin_ = i_;
  }

  [[noreturn]] void fail(TextPos at, std::string found, std::string expected) const {
    throw ParseError(at, std::move(found), std::move(expected));
  }

  Token& emit_simple(TokenKind k, std::string text) {
    Token t;
    t.kind = k;
    t.pos = pos();
    t.text = std::move(text);
    out_.push_back(std::move(t));
    return out_.back();
  }

  /// Handles the indentation of a new logical line; returns false when the line was blank or a
  /// comment (consumed here).
  bool line_start() {
    std::size_t width = 0;
    std::size_t j = i_;
    while (j < s_.size() && (s_[j] == ' ' || s_[j] == '\t' || s_[j] == '\f')) {
      width = s_[j] == '\t' ? (width / 8 + 1) * 8 : s_[j] == ' ' ? width + 1 : 0;
      ++j;
    }
    i_ = j;
    if (i_ >= s_.size()) return false;
    const char c = s_[i_];
    if (c == '#') {
      skip_comment(/*own_line=*/true);
      return false;
    }
    if (c == '\n' || c == '\r') {
      advance(c == '\r' && peek(1) == '\n' ? 2 : 1);
      newline_seen();
      return false;
    }
    at_line_start_ = false;
    if (width > indents_.back()) {
      indents_.push_back(width);
      emit_simple(TokenKind::Indent, "");
    } else {
      while (width < indents_.back()) {
        indents_.pop_back();
        emit_simple(TokenKind::Dedent, "");
      }
      if (width != indents_.back())
        fail(pos(), std::string(1, c), "an indentation that matches an enclosing block");
    }
    attach_comments();
    return true;
  }

  void skip_comment(bool own_line) {
    std::size_t j = i_ + 1;
    while (j < s_.size() && s_[j] != '\n' && s_[j] != '\r') ++j;
    if (own_line) {
      std::string_view body = s_.substr(i_ + 1, j - i_ - 1);
      if (!body.empty() && body.front() == ' ') body.remove_prefix(1);
      pending_comments_.emplace_back(body);
    }
    i_ = j;
  }

  /// Comment lines seen since the last statement go to the first token of the next one.
  void attach_comments() {
    if (pending_comments_.empty()) return;
    comments_for_next_ = std::move(pending_comments_);
    pending_comments_.clear();
  }

  Token& emit(TokenKind k, TextPos at, std::string text) {
    Token t;
    t.kind = k;
    t.pos = at;
    t.text = std::move(text);
    t.comments = std::move(comments_for_next_);
    comments_for_next_.clear();
    out_.push_back(std::move(t));
    return out_.back();
  }

  void name() {
    const TextPos at = pos();
    const std::size_t b = i_;
    // Besides ASCII, any well-formed multi-byte UTF-8 character (Python's narrower Unicode
    // identifier classes are not checked): such a name can only name a variable, whose printed
    // name the printer makes ASCII.
    while (const std::size_t n = name_char(i_)) i_ += n;
    const std::string_view word = s_.substr(b, i_ - b);
    if (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'') && is_string_prefix(word)) {
      const bool raw = word.find_first_of("rR") != std::string_view::npos;
      const bool formatted = word.find_first_of("fF") != std::string_view::npos;
      string(at, raw || formatted, formatted ? TokenKind::FString : TokenKind::String);
      return;
    }
    emit(TokenKind::Name, at, std::string(word));
  }

  /// Python's string prefixes: r, u, b, f and the two-letter rb / br / fr / rf, any case.
  static bool is_string_prefix(std::string_view w) {
    std::string lower;
    for (const char c : w) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return lower == "r" || lower == "u" || lower == "b" || lower == "f" || lower == "rb" ||
           lower == "br" || lower == "fr" || lower == "rf";
  }

  void number() {
    const TextPos at = pos();
    const std::size_t b = i_;
    bool is_float = false;
    if (s_[i_] == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
      i_ += 2;
      while (i_ < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    } else {
      while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
      if (i_ < s_.size() && s_[i_] == '.') {
        is_float = true;
        ++i_;
        while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
      }
      if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
        std::size_t j = i_ + 1;
        if (j < s_.size() && (s_[j] == '+' || s_[j] == '-')) ++j;
        if (j < s_.size() && is_digit(s_[j])) {
          is_float = true;
          i_ = j;
          while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
        }
      }
    }
    const std::string text(s_.substr(b, i_ - b));
    if (i_ < s_.size() && core::is_identifier_char(s_[i_]))
      fail(at, text + s_[i_], "a number (digits, '.', an exponent or a 0x prefix)");
    Token& t = emit(is_float ? TokenKind::Float : TokenKind::Int, at, text);
    const char* first = text.data();
    const char* last = text.data() + text.size();
    if (is_float) {
      auto [p, ec] = std::from_chars(first, last, t.float_value);
      if (ec == std::errc::result_out_of_range)
        fail(at, text, "a float literal within the range of a double");
      if (ec != std::errc() || p != last) fail(at, text, "a float literal");
    } else {
      const bool hex = text.size() >= 2 && (text[1] == 'x' || text[1] == 'X');
      if (hex && text.size() == 2) fail(at, text, "hex digits after 0x");
      auto [p, ec] = std::from_chars(first + (hex ? 2 : 0), last, t.int_value, hex ? 16 : 10);
      if (ec == std::errc::result_out_of_range || t.int_value > (1ULL << 63))
        fail(at, text, "an integer literal that fits in 64 bits");
      if (ec != std::errc() || p != last) fail(at, text, "an integer literal");
    }
  }

  static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  /// A string literal from its opening quote; `raw`: backslashes stay as written (a raw or
  /// formatted string, whose text is kept unevaluated).
  void string(TextPos at, bool raw = false, TokenKind kind = TokenKind::String) {
    const char q = s_[i_];
    const bool triple = peek(1) == q && peek(2) == q;
    i_ += triple ? 3 : 1;
    std::string value;
    for (;;) {
      if (i_ >= s_.size()) fail(at, std::string(1, q), "a closing quote for this string");
      const char c = s_[i_];
      if (c == q && (!triple || (peek(1) == q && peek(2) == q))) {
        i_ += triple ? 3 : 1;
        break;
      }
      if ((c == '\n' || c == '\r') && !triple)
        fail(at, std::string(1, q), "a closing quote on the same line");
      if (c == '\n') {
        value += c;
        ++i_;
        newline_seen();
        continue;
      }
      if (c != '\\' || raw) {
        value += c;
        ++i_;
        if (c == '\\' && i_ < s_.size() && s_[i_] != '\n') value += s_[i_++];  // \" stays in
        continue;
      }
      const TextPos esc = pos();
      const char e = peek(1);
      i_ += 2;
      switch (e) {
        case '\\': value += '\\'; break;
        case '\'': value += '\''; break;
        case '"': value += '"'; break;
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        case 'r': value += '\r'; break;
        case '0': value += '\0'; break;
        case 'x': {
          const int hi = hex_digit(peek(0)), lo = hex_digit(peek(1));
          if (hi < 0 || lo < 0) fail(esc, "\\x", "two hex digits after \\x");
          value += static_cast<char>(hi * 16 + lo);
          i_ += 2;
          break;
        }
        case '\n': newline_seen(); break;
        default:
          fail(esc, std::string("\\") + e, "an escape: \\\\ \\' \\\" \\n \\t \\r \\0 or \\xHH");
      }
    }
    emit(kind, at, std::move(value));
  }

  void punct() {
    static constexpr std::string_view kThree[] = {"**=", "//=", ">>=", "<<=", "..."};
    static constexpr std::string_view kTwo[] = {
        "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->",
        "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ":="};
    static constexpr std::string_view kOne = "+-*/%&|^~<>=()[]{},:.;@";
    const TextPos at = pos();
    const std::string_view rest = s_.substr(i_);
    for (std::string_view p : kThree)
      if (rest.starts_with(p)) return punct_token(at, p);
    for (std::string_view p : kTwo)
      if (rest.starts_with(p)) return punct_token(at, p);
    if (kOne.find(s_[i_]) != std::string_view::npos) return punct_token(at, rest.substr(0, 1));
    const auto c = static_cast<unsigned char>(s_[i_]);
    std::string shown = c >= 0x20 && c < 0x7f ? std::string(1, s_[i_]) : "\\x" + hex_byte(c);
    fail(at, shown, "a name, a number, a string, an operator or a bracket");
  }

  static std::string hex_byte(unsigned char c) {
    static constexpr char kHex[] = "0123456789abcdef";
    return {kHex[c >> 4], kHex[c & 0xf]};
  }

  void punct_token(TextPos at, std::string_view p) {
    if (p == "(" || p == "[" || p == "{") {
      if (depth_ >= core::kMaxNesting)
        fail(at, std::string(p),
             "at most " + std::to_string(core::kMaxNesting) + " nested brackets");
      open_.emplace_back(p[0], at);
      ++depth_;
    } else if (p == ")" || p == "]" || p == "}") {
      const char want = p == ")" ? '(' : p == "]" ? '[' : '{';
      if (open_.empty() || open_.back().first != want)
        fail(at, std::string(p),
             open_.empty()
                 ? "no closing bracket here (nothing is open)"
                 : std::string("'") + closing(open_.back().first) + "' to close the bracket");
      open_.pop_back();
      --depth_;
    }
    emit(TokenKind::Punct, at, std::string(p));
    i_ += p.size();
  }

  static char closing(char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

  std::string_view s_;
  std::size_t i_ = 0;
  std::size_t line_begin_ = 0;
  mutable std::size_t counted_line_ = 0, counted_to_ = 0, continuation_bytes_ = 0;
  std::uint32_t line_ = 1;
  bool at_line_start_ = true;
  std::size_t depth_ = 0;
  std::vector<std::pair<char, TextPos>> open_;  // open brackets and where they opened
  std::vector<std::size_t> indents_;
  std::vector<std::string> pending_comments_;
  std::vector<std::string> comments_for_next_;
  std::vector<Token> out_;
};

// ---- parser -----------------------------------------------------------------------------------

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  Module module() {
    Module out;
    while (!at(TokenKind::End)) {
      if (at(TokenKind::Newline)) {
        ++k_;
        continue;
      }
      if (at(TokenKind::Indent)) fail("a statement at the left margin (unexpected indent)");
      out.push_back(statement());
    }
    return out;
  }

 private:
  // -- token access --

  const Token& cur() const { return t_[k_]; }
  bool at(TokenKind k) const { return cur().kind == k; }
  bool at_punct(std::string_view p) const { return at(TokenKind::Punct) && cur().text == p; }
  bool at_name(std::string_view n) const { return at(TokenKind::Name) && cur().text == n; }

  static std::string shown(const Token& t) {
    switch (t.kind) {
      case TokenKind::Newline: return "end of line";
      case TokenKind::Indent: return "indent";
      case TokenKind::Dedent: return "dedent";
      case TokenKind::End: return "end of input";
      case TokenKind::String: return "\"" + t.text + "\"";
      case TokenKind::FString: return "f\"" + t.text + "\"";
      default: return t.text;
    }
  }

  [[noreturn]] void fail(std::string expected) const {
    throw ParseError(cur().pos, shown(cur()), std::move(expected));
  }

  const Token& take() { return t_[k_++]; }

  void expect_punct(std::string_view p, std::string_view context = {}) {
    if (!at_punct(p))
      fail("'" + std::string(p) + "'" + (context.empty() ? "" : " " + std::string(context)));
    ++k_;
  }

  bool accept_punct(std::string_view p) {
    if (!at_punct(p)) return false;
    ++k_;
    return true;
  }

  std::string expect_name(std::string_view what) {
    if (!at(TokenKind::Name) || core::is_python_keyword(cur().text)) fail(std::string(what));
    return take().text;
  }

  void expect_newline() {
    if (!at(TokenKind::Newline)) fail("the end of the statement (a new line)");
    ++k_;
  }

  /// Guards one level of recursion; deeper than core::kMaxNesting is a ParseError.
  class Depth {
   public:
    Depth(Parser& p) : p_(p) {  // NOLINT: used as `Depth d(*this)`
      if (p_.depth_ >= core::kMaxNesting)
        p_.fail("at most " + std::to_string(core::kMaxNesting) +
                " levels of nested expressions and blocks");
      ++p_.depth_;
    }
    ~Depth() { --p_.depth_; }
    Depth(const Depth&) = delete;
    Depth& operator=(const Depth&) = delete;

   private:
    Parser& p_;
  };

  static ExprPtr node(ExprKind k, TextPos pos) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->pos = pos;
    return e;
  }

  // -- statements --

  StmtPtr make_stmt(StmtKind k, const Token& first) {
    auto s = std::make_unique<Stmt>();
    s->kind = k;
    s->pos = first.pos;
    s->comments = first.comments;
    return s;
  }

  StmtPtr statement() {
    const Depth d(*this);
    const Token& first = cur();
    if (at_punct("@")) return decorated();
    if (at(TokenKind::Name)) {
      const std::string& w = first.text;
      if (w == "def") return function_def(make_stmt(StmtKind::FunctionDef, first));
      if (w == "class") return class_def(make_stmt(StmtKind::ClassDef, first));
      if (w == "if") return if_stmt();
      if (w == "for") return for_stmt();
      if (w == "while") return while_stmt();
      if (w == "with") return with_stmt();
      if (w == "import" || w == "from") return import_stmt();
    }
    auto s = simple_statement();
    expect_newline();
    return s;
  }

  StmtPtr simple_statement() {
    const Token& first = cur();
    if (at_name("pass")) return ++k_, make_stmt(StmtKind::Pass, first);
    if (at_name("assert")) {
      auto s = make_stmt(StmtKind::Assert, first);
      ++k_;
      s->value = expression();
      if (accept_punct(",")) s->target = expression();
      return s;
    }
    if (at_name("raise")) {
      auto s = make_stmt(StmtKind::Raise, first);
      ++k_;
      if (!at(TokenKind::Newline)) s->value = expression();
      if (s->value && at_name("from")) {
        ++k_;
        s->target = expression();
      }
      return s;
    }
    if (at_name("break")) return ++k_, make_stmt(StmtKind::Break, first);
    if (at_name("continue")) return ++k_, make_stmt(StmtKind::Continue, first);
    if (at_name("return")) {
      auto s = make_stmt(StmtKind::Return, first);
      ++k_;
      if (!at(TokenKind::Newline)) s->value = expression_list();
      return s;
    }
    auto s = make_stmt(StmtKind::Expr, first);
    ExprPtr lhs = expression_list();
    if (accept_punct(":")) {
      s->target = std::move(lhs);
      s->annotation = expression();
      s->kind = StmtKind::Declare;
      if (accept_punct("=")) {
        s->kind = StmtKind::Assign;
        s->value = expression_list();
      }
      return s;
    }
    if (accept_punct("=")) {
      s->kind = StmtKind::Assign;
      s->target = std::move(lhs);
      s->value = expression_list();
      if (at_punct("=")) fail("one assignment per statement (chained '=' is not supported)");
      return s;
    }
    for (std::string_view op :
         {"+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>="}) {
      if (accept_punct(op)) {
        s->kind = StmtKind::AugAssign;
        s->text = std::string(op.substr(0, op.size() - 1));
        s->target = std::move(lhs);
        s->value = expression_list();
        return s;
      }
    }
    s->value = std::move(lhs);
    return s;
  }

  void block(std::vector<StmtPtr>& out) {
    expect_punct(":", "to open the block");
    if (!at(TokenKind::Newline)) {  // `if c: stmt` on one line
      out.push_back(simple_statement());
      expect_newline();
      return;
    }
    ++k_;
    if (!at(TokenKind::Indent)) fail("an indented block");
    ++k_;
    while (!at(TokenKind::Dedent) && !at(TokenKind::End)) {
      if (at(TokenKind::Newline)) {
        ++k_;
        continue;
      }
      out.push_back(statement());
    }
    if (at(TokenKind::Dedent)) ++k_;
  }

  StmtPtr decorated() {
    std::vector<ExprPtr> decorators;
    while (accept_punct("@")) {
      decorators.push_back(expression());
      expect_newline();
    }
    const Token& first = cur();
    StmtPtr s;
    if (at_name("def"))
      s = function_def(make_stmt(StmtKind::FunctionDef, first));
    else if (at_name("class"))
      s = class_def(make_stmt(StmtKind::ClassDef, first));
    else
      fail("'def' or 'class' after a decorator");
    s->decorators = std::move(decorators);
    return s;
  }

  StmtPtr function_def(StmtPtr s) {
    ++k_;  // def
    s->name = expect_name("a function name");
    expect_punct("(", "to open the parameter list");
    while (!at_punct(")")) {
      Param p;
      p.pos = cur().pos;
      p.name = expect_name("a parameter name");
      if (accept_punct(":")) p.annotation = expression();
      if (at_punct("=")) fail("a parameter without a default value");
      s->params.push_back(std::move(p));
      if (!accept_punct(",")) break;
    }
    expect_punct(")", "to close the parameter list");
    if (accept_punct("->")) s->returns = expression();
    block(s->body);
    s->end = at(TokenKind::End) ? TextPos{UINT32_MAX, 1} : cur().pos;
    return s;
  }

  StmtPtr class_def(StmtPtr s) {
    ++k_;  // class
    s->name = expect_name("a class name");
    if (accept_punct("(")) expect_punct(")", "(a program class has no base classes)");
    block(s->body);
    return s;
  }

  StmtPtr if_stmt() {
    auto s = make_stmt(StmtKind::If, cur());
    ++k_;  // if / elif
    s->value = expression();
    block(s->body);
    if (at_name("elif")) {
      s->orelse.push_back(if_stmt());
    } else if (at_name("else")) {
      ++k_;
      block(s->orelse);
    }
    return s;
  }

  StmtPtr for_stmt() {
    auto s = make_stmt(StmtKind::For, cur());
    ++k_;
    s->target = target_list();
    if (!at_name("in")) fail("'in' after the loop target");
    ++k_;
    s->value = expression();
    block(s->body);
    if (at_name("else")) fail("a statement (for ... else is not supported)");
    return s;
  }

  /// A for target: names, possibly parenthesised tuples of names (`i, (a, b)`).
  ExprPtr target_list() {
    const TextPos p = cur().pos;
    ExprPtr first = target_atom();
    if (!at_punct(",")) return first;
    auto t = node(ExprKind::Tuple, p);
    t->items.push_back(std::move(first));
    while (accept_punct(",")) {
      if (at_name("in")) break;
      t->items.push_back(target_atom());
    }
    return t;
  }

  ExprPtr target_atom() {
    const Depth d(*this);
    const TextPos p = cur().pos;
    if (accept_punct("(")) {
      auto t = node(ExprKind::Tuple, p);
      t->parenthesized = true;
      while (!at_punct(")")) {
        t->items.push_back(target_atom());
        if (!accept_punct(",")) break;
      }
      expect_punct(")", "to close the target tuple");
      return t;
    }
    auto n = node(ExprKind::Name, p);
    n->text = expect_name("a loop variable name");
    return n;
  }

  StmtPtr while_stmt() {
    auto s = make_stmt(StmtKind::While, cur());
    ++k_;
    s->value = expression();
    block(s->body);
    if (at_name("else")) fail("a statement (while ... else is not supported)");
    return s;
  }

  StmtPtr with_stmt() {
    auto s = make_stmt(StmtKind::With, cur());
    ++k_;
    s->value = expression();
    if (at_name("as")) {  // `with pl.at(...) as tid:` binds the task id of the scope
      ++k_;
      s->target = expression();
    }
    if (at_punct(",")) fail("':' (one context per with statement)");
    block(s->body);
    return s;
  }

  StmtPtr import_stmt() {
    auto s = make_stmt(StmtKind::Import, cur());
    const bool from = at_name("from");
    ++k_;
    std::string module = expect_name("a module name");
    while (accept_punct(".")) module += "." + expect_name("a module name");
    if (from) {
      if (!at_name("import")) fail("'import'");
      ++k_;
      module += ":" + expect_name("a name to import");
    }
    s->text = std::move(module);
    if (at_name("as")) {
      ++k_;
      s->name = expect_name("an alias");
    }
    expect_newline();
    return s;
  }

  // -- expressions (Python precedence, lowest first) --

  /// `a, b` (a bare tuple) or one expression.
  ExprPtr expression_list() {
    const TextPos p = cur().pos;
    ExprPtr first = expression();
    if (!at_punct(",")) return first;
    auto t = node(ExprKind::Tuple, p);
    t->items.push_back(std::move(first));
    while (accept_punct(",")) {
      if (at(TokenKind::Newline) || at_punct("=") || at_punct(")")) break;
      t->items.push_back(expression());
    }
    return t;
  }

  ExprPtr expression() {
    const Depth d(*this);
    if (at_name("lambda")) fail("an expression (lambda is not supported)");
    ExprPtr e = operators(Prec::Or);
    if (at_name("if"))
      fail("the end of the expression (conditional expressions are not supported)");
    return e;
  }

  ExprPtr binary(ExprKind k, std::string op, ExprPtr l, ExprPtr r) {
    auto e = node(k, l->pos);
    e->text = std::move(op);
    e->items.push_back(std::move(l));
    e->items.push_back(std::move(r));
    return e;
  }

  /// Python's operator precedence, lowest first.
  enum class Prec {
    Or,
    And,
    Not,
    Compare,
    BitOr,
    BitXor,
    BitAnd,
    Shift,
    Arith,
    Term,
    Unary,
    Power
  };

  struct BinaryOp {
    std::string_view text;
    Prec prec;
    std::size_t tokens = 1;  ///< `is not` and `not in` are two
  };

  /// True when the token after the cursor is the name `n`.
  bool next_is_name(std::string_view n) const {
    return k_ + 1 < t_.size() && t_[k_ + 1].kind == TokenKind::Name && t_[k_ + 1].text == n;
  }

  /// The binary operator at the cursor, if any.
  std::optional<BinaryOp> binary_op() const {
    if (at_name("or")) return BinaryOp{"or", Prec::Or};
    if (at_name("and")) return BinaryOp{"and", Prec::And};
    // Python's membership and identity tests parse as comparisons; the DSL gives them no
    // meaning, but a HOST sub-worker's body (host code, kept as text) may use them.
    if (at_name("in")) return BinaryOp{"in", Prec::Compare};
    if (at_name("is"))
      return next_is_name("not") ? BinaryOp{"is not", Prec::Compare, 2}
                                 : BinaryOp{"is", Prec::Compare};
    if (at_name("not") && next_is_name("in")) return BinaryOp{"not in", Prec::Compare, 2};
    if (!at(TokenKind::Punct)) return std::nullopt;
    static constexpr std::pair<std::string_view, Prec> table[] = {
        {"==", Prec::Compare}, {"!=", Prec::Compare}, {"<=", Prec::Compare}, {">=", Prec::Compare},
        {"<", Prec::Compare},  {">", Prec::Compare},  {"|", Prec::BitOr},    {"^", Prec::BitXor},
        {"&", Prec::BitAnd},   {"<<", Prec::Shift},   {">>", Prec::Shift},   {"+", Prec::Arith},
        {"-", Prec::Arith},    {"*", Prec::Term},     {"/", Prec::Term},     {"//", Prec::Term},
        {"%", Prec::Term},     {"@", Prec::Term},     {"**", Prec::Power}};
    for (const auto& [text, prec] : table)
      if (cur().text == text) return BinaryOp{text, prec};
    return std::nullopt;
  }

  /// The operators binding at least as tightly as `min`, by precedence climbing: a flat chain
  /// loops, and each bracket level costs a fixed few frames whatever the number of precedence
  /// levels (the ASan build's stack holds the nesting limit only so).
  ExprPtr operators(Prec min) {
    ExprPtr l = prefixed(min);
    for (;;) {
      const auto op = binary_op();
      if (!op || op->prec < min) return l;
      k_ += op->tokens;
      if (op->prec == Prec::Power) {  // right-associative; its right operand may be unary
        const Depth d(*this);
        l = binary(ExprKind::Binary, "**", std::move(l), operators(Prec::Unary));
        continue;
      }
      ExprPtr r = operators(static_cast<Prec>(static_cast<int>(op->prec) + 1));
      if (op->prec == Prec::Compare) {
        const bool chain = l->kind == ExprKind::Compare && !l->parenthesized;
        l = binary(ExprKind::Compare, std::string(op->text), std::move(l), std::move(r));
        l->chained = chain;
      } else {
        l = binary(op->prec <= Prec::And ? ExprKind::BoolOp : ExprKind::Binary,
                   std::string(op->text), std::move(l), std::move(r));
      }
    }
  }

  /// `not x` and `-x` / `+x` / `~x` where the context allows them, else a postfix expression.
  ExprPtr prefixed(Prec min) {
    const bool is_not = min <= Prec::Not && at_name("not");
    if (!is_not && !(min <= Prec::Unary && (at_punct("-") || at_punct("+") || at_punct("~"))))
      return postfix();
    const Depth d(*this);
    auto e = node(ExprKind::Unary, cur().pos);
    e->text = take().text;
    e->items.push_back(operators(is_not ? Prec::Not : Prec::Unary));
    return e;
  }

  ExprPtr postfix() {
    ExprPtr e = atom();
    std::size_t chain = 0;
    for (;; ++chain) {
      if (chain >= core::kMaxNesting)
        fail("at most " + std::to_string(core::kMaxNesting) + " chained calls and subscripts");
      if (at_punct(".")) {
        ++k_;
        auto a = node(ExprKind::Attribute, e->pos);
        a->text = expect_name("an attribute name after '.'");
        a->items.push_back(std::move(e));
        e = std::move(a);
      } else if (at_punct("(")) {
        e = call(std::move(e));
      } else if (at_punct("[")) {
        const TextPos p = cur().pos;
        ++k_;
        auto s = node(ExprKind::Subscript, e->pos);
        s->items.push_back(std::move(e));
        ExprPtr index = subscript_index(p);
        s->items.push_back(std::move(index));
        expect_punct("]", "to close the subscript");
        e = std::move(s);
      } else {
        return e;
      }
    }
  }

  /// `x[a]`, `x[a, b]` (a tuple index); each index may be a slice `lo:hi`, `:hi`, `lo:`, `:`.
  ExprPtr subscript_index(TextPos p) {
    ExprPtr first = index_item();
    if (!at_punct(",")) return first;
    auto t = node(ExprKind::Tuple, p);
    t->items.push_back(std::move(first));
    while (accept_punct(",")) {
      if (at_punct("]")) break;
      t->items.push_back(index_item());
    }
    return t;
  }

  ExprPtr index_item() {
    const TextPos p = cur().pos;
    auto bound = [&]() { return at_punct(":") || at_punct(",") || at_punct("]"); };
    const bool open = bound();
    ExprPtr lo = open ? node(ExprKind::None, p) : expression();
    if (!accept_punct(":")) {
      if (open) fail("an index");
      return lo;
    }
    auto slice = node(ExprKind::Slice, p);
    slice->items.push_back(std::move(lo));
    slice->items.push_back(bound() ? node(ExprKind::None, cur().pos) : expression());
    if (at_punct(":")) fail("']' (a slice without a step)");
    return slice;
  }

  ExprPtr call(ExprPtr callee) {
    auto c = node(ExprKind::Call, callee->pos);
    ++k_;  // (
    c->items.push_back(std::move(callee));
    while (!at_punct(")")) {
      if (at_punct("*") || at_punct("**"))
        fail("an argument (* and ** unpacking is not supported)");
      if (at(TokenKind::Name) && t_[k_ + 1].kind == TokenKind::Punct && t_[k_ + 1].text == "=") {
        Keyword kw;
        kw.pos = cur().pos;
        kw.name = take().text;
        ++k_;  // =
        for (const auto& other : c->keywords)
          if (other.name == kw.name) {
            --k_;
            --k_;
            fail("a keyword argument not given before ('" + kw.name + "' is repeated)");
          }
        kw.value = expression();
        c->keywords.push_back(std::move(kw));
      } else {
        if (!c->keywords.empty()) fail("a keyword argument (positional arguments come first)");
        c->items.push_back(expression());
      }
      if (!accept_punct(",")) break;
    }
    expect_punct(")", "to close the argument list");
    return c;
  }

  ExprPtr atom() {
    const Token& tok = cur();
    switch (tok.kind) {
      case TokenKind::Name: {
        if (tok.text == "True" || tok.text == "False" || tok.text == "None") {
          ++k_;
          return node(tok.text == "True"    ? ExprKind::True
                      : tok.text == "False" ? ExprKind::False
                                            : ExprKind::None,
                      tok.pos);
        }
        if (core::is_python_keyword(tok.text)) fail("an expression");
        auto n = node(ExprKind::Name, tok.pos);
        n->text = take().text;
        return n;
      }
      case TokenKind::Int: {
        auto n = node(ExprKind::Int, tok.pos);
        n->int_value = tok.int_value;
        n->text = take().text;
        return n;
      }
      case TokenKind::Float: {
        auto n = node(ExprKind::Float, tok.pos);
        n->float_value = tok.float_value;
        n->text = take().text;
        return n;
      }
      case TokenKind::String:
      case TokenKind::FString: {  // adjacent literals concatenate; one f-string makes all one
        auto n = node(ExprKind::String, tok.pos);
        while (at(TokenKind::String) || at(TokenKind::FString)) {
          if (cur().kind == TokenKind::FString) n->kind = ExprKind::FString;
          n->text += take().text;
        }
        return n;
      }
      case TokenKind::Punct: break;
      default: fail("an expression");
    }
    if (at_punct("...")) return ++k_, node(ExprKind::Ellipsis, tok.pos);
    if (at_punct("(")) {
      ++k_;
      if (accept_punct(")")) {
        auto t = node(ExprKind::Tuple, tok.pos);
        t->parenthesized = true;
        return t;
      }
      ExprPtr first = expression();
      if (accept_punct(")")) {
        first->parenthesized = true;
        return first;
      }
      auto t = node(ExprKind::Tuple, tok.pos);
      t->parenthesized = true;
      t->items.push_back(std::move(first));
      while (accept_punct(",")) {
        if (at_punct(")")) break;
        t->items.push_back(expression());
      }
      expect_punct(")", "to close the tuple");
      return t;
    }
    if (at_punct("[")) {
      ++k_;
      auto l = node(ExprKind::List, tok.pos);
      while (!at_punct("]")) {
        l->items.push_back(expression());
        if (l->items.size() == 1 && at_name("for")) return comprehension(std::move(l));
        if (!accept_punct(",")) break;
      }
      expect_punct("]", "to close the list");
      return l;
    }
    if (at_punct("{")) {
      ++k_;
      auto d = node(ExprKind::Dict, tok.pos);
      while (!at_punct("}")) {
        d->items.push_back(expression());
        expect_punct(":", "between a dict key and its value");
        d->items.push_back(expression());
        if (!accept_punct(",")) break;
      }
      expect_punct("}", "to close the dict");
      return d;
    }
    fail("an expression");
  }

  /// `[elt for name in iterable if cond ...]`, after its element (`l` holds it): one `for`
  /// clause over one name, as the DSL unrolls it.
  ExprPtr comprehension(ExprPtr l) {
    l->kind = ExprKind::ListComp;
    ++k_;  // for
    if (!at(TokenKind::Name) || core::is_python_keyword(cur().text))
      fail("a name as the comprehension's target");
    auto target = node(ExprKind::Name, cur().pos);
    target->text = take().text;
    l->items.push_back(std::move(target));
    if (!at_name("in")) fail("'in' after the comprehension's target (a single name)");
    ++k_;
    l->items.push_back(operators(Prec::Or));
    while (at_name("if")) {
      ++k_;
      l->items.push_back(operators(Prec::Or));
    }
    if (at_name("for")) fail("']' (a comprehension has one for clause)");
    expect_punct("]", "to close the list comprehension");
    return l;
  }

  std::vector<Token> t_;
  std::size_t k_ = 0;
  std::size_t depth_ = 0;
};

PYPTO_DECL Module parse_module(std::string_view text) { return Parser(Lexer(text).run()).module(); }

}  // namespace pypto::text::syntax

// Delta debugging over a program's text: the smallest program that still fails the same way.
//
// Reductions, tried until none applies or the budget of candidate runs is spent: delete a
// statement with its nested block (largest first), unwrap a compound statement (its body, one
// level out, in place of it), delete a whole function, replace a call by one of its arguments.
// A candidate is kept when `still_fails` says it shows the same failure (a candidate that no
// longer parses fails differently, so it is dropped). The result is 1-minimal for deletion.
#pragma once

#include <cctype>
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace pypto::fuzz {

namespace shrink_detail {

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    const std::size_t end = nl == std::string::npos ? text.size() : nl;
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

inline std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

inline std::size_t indent_of(const std::string& l) {
  std::size_t i = 0;
  while (i < l.size() && l[i] == ' ') ++i;
  return i;
}

inline bool blank(const std::string& l) { return indent_of(l) == l.size(); }

/// One past the last line of the block that starts at `i` (the line and every deeper line).
inline std::size_t block_end(const std::vector<std::string>& lines, std::size_t i) {
  const std::size_t ind = indent_of(lines[i]);
  std::size_t j = i + 1;
  while (j < lines.size() && (blank(lines[j]) || indent_of(lines[j]) > ind)) ++j;
  // trailing blank lines belong to what follows
  while (j > i + 1 && blank(lines[j - 1])) --j;
  return j;
}

/// Statement lines: inside a function body (indent 8 or more).
inline bool statement(const std::string& l) { return !blank(l) && indent_of(l) >= 8; }

/// The calls of `l` as (start, end) of `name(...)`, innermost last.
inline std::vector<std::pair<std::size_t, std::size_t>> calls(const std::string& l) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t p = l.find("pl."); p != std::string::npos; p = l.find("pl.", p + 1)) {
    std::size_t q = p;
    while (q < l.size() &&
           (std::isalnum(static_cast<unsigned char>(l[q])) || l[q] == '_' || l[q] == '.'))
      ++q;
    if (q >= l.size() || l[q] != '(') continue;
    int depth = 0;
    std::size_t r = q;
    for (; r < l.size(); ++r) {
      if (l[r] == '(' || l[r] == '[') ++depth;
      if (l[r] == ')' || l[r] == ']') {
        if (--depth == 0) break;
      }
    }
    if (r < l.size()) out.emplace_back(p, r + 1);
  }
  return out;
}

/// The top-level arguments of the call at [b, e) (without keyword arguments).
inline std::vector<std::string> call_args(const std::string& l, std::size_t b, std::size_t e) {
  const std::size_t open = l.find('(', b);
  std::vector<std::string> out;
  int depth = 0;
  std::size_t start = open + 1;
  for (std::size_t i = open + 1; i + 1 < e; ++i) {
    const char c = l[i];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(l.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(l.substr(start, e - 1 - start));
  std::vector<std::string> positional;
  for (auto& a : out) {
    while (!a.empty() && a.front() == ' ') a.erase(a.begin());
    if (!a.empty() && a.find('=') == std::string::npos) positional.push_back(a);
  }
  return positional;
}

}  // namespace shrink_detail

/// The smallest text found that `still_fails`; at most `budget` calls of it.
inline std::string shrink(std::string text,
                          const std::function<bool(const std::string&)>& still_fails,
                          int budget = 400) {
  using namespace shrink_detail;
  bool progress = true;
  auto attempt = [&](const std::vector<std::string>& candidate) {
    if (budget <= 0) return false;
    --budget;
    const std::string t = join(candidate);
    if (t == text || !still_fails(t)) return false;
    text = t;
    return true;
  };
  while (progress && budget > 0) {
    progress = false;
    // 1. delete whole functions (decorator through the end of the def's block)
    {
      std::vector<std::string> lines = split_lines(text);
      for (std::size_t i = 0; i < lines.size() && !progress; ++i) {
        if (lines[i].rfind("    @pl.function", 0) != 0 || i + 1 >= lines.size()) continue;
        const std::size_t end = block_end(lines, i + 1);
        std::vector<std::string> c(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(i));
        c.insert(c.end(), lines.begin() + static_cast<std::ptrdiff_t>(end), lines.end());
        progress = attempt(c);
      }
    }
    // 2. delete statements with their blocks, from the last; 3. unwrap compound statements
    for (int pass = 0; pass < 2 && !progress; ++pass) {
      std::vector<std::string> lines = split_lines(text);
      for (std::size_t k = lines.size(); k-- > 0 && !progress;) {
        if (!statement(lines[k])) continue;
        const std::size_t end = block_end(lines, k);
        std::vector<std::string> c(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(k));
        if (pass == 1) {
          if (end == k + 1 || lines[k].back() != ':') continue;
          for (std::size_t j = k + 1; j < end; ++j)
            c.push_back(blank(lines[j]) ? lines[j] : lines[j].substr(4));
        }
        c.insert(c.end(), lines.begin() + static_cast<std::ptrdiff_t>(end), lines.end());
        progress = attempt(c);
      }
    }
    // 4. replace a call by one of its positional arguments
    if (!progress) {
      std::vector<std::string> lines = split_lines(text);
      for (std::size_t k = 0; k < lines.size() && !progress; ++k) {
        if (!statement(lines[k])) continue;
        for (const auto& [b, e] : calls(lines[k])) {
          for (const auto& arg : call_args(lines[k], b, e)) {
            std::vector<std::string> c = lines;
            c[k] = lines[k].substr(0, b) + arg + lines[k].substr(e);
            if ((progress = attempt(c))) break;
          }
          if (progress) break;
        }
      }
    }
  }
  return text;
}

}  // namespace pypto::fuzz

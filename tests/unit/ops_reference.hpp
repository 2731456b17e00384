// tests/unit/ops_reference.hpp — docs/ops.md read as data: its `### op` entries, each with its
// signature, meaning and example, and the example placed in a program two ways: as the function
// its first line declares (the op reference test), and as a runnable `main` whose one InCore scope
// computes the example from tensors (the table of which ops run where).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace pypto_test {

/// One `### op` entry of docs/ops.md.
struct Entry {
  std::string op;
  std::size_t line = 0;   ///< of the heading, 1-based
  std::string signature;  ///< the first line in backticks
  std::string meaning;    ///< the first plain line
  std::string context;    ///< the example's first line without `# `: `InCore(a: ...)`
  std::string example;    ///< the example's statements
  bool example_closed = false;
};

/// The entries of the reference: a `### name` heading opens one, a `## ` heading closes it; in
/// it, the first line in backticks is the signature, the first other text line the meaning,
/// and the first ```python block the example (its first line a `# Type(params)` comment).
inline std::vector<Entry> read_entries(const std::string& text) {
  std::vector<Entry> out;
  std::istringstream in(text);
  std::string line;
  std::size_t n = 0;
  bool open = false;     // inside an entry
  bool block = false;    // inside a code block
  bool example = false;  // the code block is the entry's example
  while (std::getline(in, line)) {
    ++n;
    if (block) {
      if (line.rfind("```", 0) == 0) {
        block = false;
        if (example) out.back().example_closed = true;
        example = false;
      } else if (example) {
        Entry& e = out.back();
        if (e.context.empty() && e.example.empty() && line.rfind("# ", 0) == 0)
          e.context = line.substr(2);
        else
          e.example += line + "\n";
      }
      continue;
    }
    if (line.rfind("```", 0) == 0) {
      block = true;
      example =
          open && line == "```python" && !out.back().example_closed && out.back().example.empty();
      continue;
    }
    if (line.rfind("### ", 0) == 0) {
      Entry e;
      e.op = line.substr(4);
      e.line = n;
      out.push_back(std::move(e));
      open = true;
    } else if (line.rfind("## ", 0) == 0 || line.rfind("# ", 0) == 0) {
      open = false;
    } else if (open && !line.empty()) {
      Entry& e = out.back();
      if (e.signature.empty() && line.size() > 2 && line.front() == '`' && line.back() == '`')
        e.signature = line.substr(1, line.size() - 2);
      else if (e.meaning.empty())
        e.meaning = line;
    }
  }
  return out;
}

/// The example of `e` as a program: one `example` method of the type and parameters its
/// context line declares, whose body is the example.
inline std::string program_of(const Entry& e) {
  const std::size_t paren = e.context.find('(');
  std::string text =
      "import pypto.language as pl\nimport pypto.language.distributed as pld\n\n"
      "@pl.program\nclass Example:\n    @pl.function(type=pl.FunctionType." +
      e.context.substr(0, paren) + ")\n    def example(self";
  const std::string params = e.context.substr(paren + 1, e.context.size() - paren - 2);
  if (!params.empty()) text += ", " + params;
  text += "):\n";
  std::istringstream body(e.example);
  for (std::string line; std::getline(body, line);) text += "        " + line + "\n";
  return text;
}

/// The parameters of a `# Type(params)` line, split at the top-level commas.
inline std::vector<std::string> params_of(const Entry& e) {
  const std::size_t open = e.context.find('(');
  const std::string list = e.context.substr(open + 1, e.context.size() - open - 2);
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char ch : list) {
    depth += (ch == '[' || ch == '(') - (ch == ']' || ch == ')');
    if (ch == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else if (!(cur.empty() && ch == ' ')) {
      cur += ch;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

/// The name a line `name = ...` (or `name: type = ...`) assigns: of `a, b = ...`, the last one;
/// empty for another line.
inline std::string assigned_name(const std::string& line) {
  const std::size_t eq = line.find(" = ");
  if (eq == std::string::npos) return {};
  const std::string lhs = line.substr(0, std::min(eq, line.find(':')));
  const std::size_t comma = lhs.rfind(", ");
  return comma == std::string::npos ? lhs : lhs.substr(comma + 2);
}

/// Where the value the example's last statement assigns goes: returned as it is (a tensor), or,
/// `out_type` being a tensor type, stored whole into an Out parameter of it (a tile), written
/// as its one element (a scalar, `scalar`) or element by element (an array of `array_extent`
/// elements), and the parameter returned.
struct ResultSink {
  std::string out_type;
  bool scalar = false;
  std::int64_t array_extent = 0;
};

/// The example of `e` as a program whose `main` runs it in one InCore scope and returns the
/// value its last statement assigns (through `sink`): each tile parameter `a: pl.Tile[[shape],
/// dtype(, memory)]` becomes a tensor parameter `a_gm` loaded whole at the top of the scope (into
/// that memory), each array parameter an array created there (arrays stay inside a kernel);
/// the other parameters stay. Empty when the example's function is not InCore or
/// Opaque.
inline std::string runnable_program_of(const Entry& e, const ResultSink& sink = {}) {
  const std::string type = e.context.substr(0, e.context.find('('));
  if (type != "InCore" && type != "Opaque" && type != "AIC" && type != "AIV") return {};
  std::string params, loads;
  for (const std::string& p : params_of(e)) {
    const std::size_t colon = p.find(':');
    const std::string name = p.substr(0, colon);
    const std::string t = p.substr(colon + 2);
    if (t.rfind("pl.Array[", 0) == 0) {  // pl.Array[N, pl.DT]
      loads += "            " + name + " = pl.array.create(" + t.substr(9, t.size() - 10) + ")\n";
      continue;
    }
    if (t.rfind("pl.Tile[", 0) != 0) {
      params += ", " + p;
      continue;
    }
    // pl.Tile[[d0, d1], pl.DT(, pl.Mem.X)...]
    const std::size_t shape_end = t.find(']', 8);
    const std::string shape = t.substr(8, shape_end - 7);
    std::string rest = t.substr(shape_end + 3, t.size() - shape_end - 4);
    std::string dtype = rest.substr(0, rest.find(','));
    std::string memory;
    if (const std::size_t m = rest.find("pl.Mem."); m != std::string::npos)
      memory = rest.substr(m, rest.find_first_of(",]", m) - m);
    std::string zeros = "[0";
    for (char ch : shape) zeros += ch == ',' ? ", 0" : "";
    zeros += "]";
    params += ", " + name + "_gm: pl.Tensor[" + shape + ", " + dtype + "]";
    loads += "            " + name + " = pl.load(" + name + "_gm, " + zeros + ", " + shape +
             (memory.empty() ? "" : ", target_memory=" + memory) + ")\n";
  }
  std::string body, last;
  std::istringstream in(e.example);
  for (std::string line; std::getline(in, line);) {
    body += "            " + line + "\n";
    last = assigned_name(line);
  }
  if (!sink.out_type.empty() && !last.empty()) {
    params += ", out: pl.Out[" + sink.out_type + "]";
    const std::size_t rank = static_cast<std::size_t>(
        std::count(sink.out_type.begin(), sink.out_type.begin() + sink.out_type.find(']'), ',') +
        1);
    std::string zeros = "[0";
    for (std::size_t k = 1; k < rank; ++k) zeros += ", 0";
    zeros += "]";
    if (sink.array_extent > 0) {
      for (std::int64_t k = 0; k < sink.array_extent; ++k)
        body += "            out = pl.tensor.write(out, [" + std::to_string(k) +
                "], pl.array.get_element(" + last + ", " + std::to_string(k) + "))\n";
    } else {
      body += sink.scalar ? "            out = pl.tensor.write(out, [0], " + last + ")\n"
                          : "            out = pl.store(" + last + ", " + zeros + ", out)\n";
    }
    last = "out";
  }
  std::string text =
      "import pypto.language as pl\nimport pypto.language.distributed as pld\n\n"
      "@pl.program\nclass Example:\n    @pl.function\n    def main(self" +
      params + "):\n        with pl.at(level=pl.Level.CORE_GROUP):\n" + loads + body;
  if (!last.empty()) text += "        return " + last + "\n";
  return text;
}

}  // namespace pypto_test

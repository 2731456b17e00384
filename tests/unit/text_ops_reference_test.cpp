// Tests of docs/ops.md, the op reference: it has one entry per registered op and nothing else,
// each entry quotes the catalog's signature (ir::catalog_line), and each entry's example, placed
// in the function its first line declares, parses (the type rules accept it), calls exactly the
// op the entry names, prints that op and reads back structurally equal. A broken entry is
// reported with its op and the reason.
#include <doctest/doctest.h>

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ops_reference.hpp"
#include "pypto/core/error.hpp"
#include "pypto/ir.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/scope_attrs.hpp"
#include "pypto/text/parse_error.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"
#include "test_files.hpp"

namespace {

using namespace pypto;
using pypto_test::Entry;
using pypto_test::program_of;
using pypto_test::read_entries;

/// The names of the ops `f` calls (callees that are registered ops, not functions).
std::multiset<std::string> called_ops(const ir::Function& f) {
  std::multiset<std::string> out;
  ir::for_each_node(f.body, [&](const ir::Node& n) {
    if (const auto* c = ir::as<ir::Call>(&n))
      if (!ir::isa<ir::GlobalVar>(*c->op)) out.insert(c->op->name);
  });
  return out;
}

/// True when a scope of `f` records a `pl.set_cache_policy` marker (the one registered op the
/// parser never makes a Call: it hoists it onto the enclosing scope).
bool has_cache_policy_marker(const ir::Function& f) {
  bool found = false;
  ir::for_each_node(f.body, [&](const ir::Node& n) {
    if (const auto* s = ir::as<ir::ScopeStmt>(&n))
      found = found || s->attrs.find(ir::scope_attr::kCachePolicyVars) != nullptr;
  });
  return found;
}

/// Why the example of `e` does not document its op, or empty when it does.
std::string example_problem(const Entry& e, const ir::OpRegistry& ops) {
  const std::size_t paren = e.context.find('(');
  if (paren == std::string::npos || e.context.back() != ')')
    return "the example's first line is not `# Type(params)`: '" + e.context + "'";
  const auto type = ir::parse_enum<ir::FunctionType>(e.context.substr(0, paren));
  if (!type) return "'" + e.context.substr(0, paren) + "' is not a pl.FunctionType";
  if (e.example.empty()) return "the example has no statement";
  const std::string text = program_of(e);
  text::ParseOptions options;
  options.ops = &ops;
  ir::ProgramRef p;
  try {
    p = text::parse_program(text, options);
  } catch (const text::ParseError& err) {
    return std::string("does not parse: ") + err.what();
  }
  const ir::FunctionRef f = p->find("example");
  if (!f || f->func_type != *type) return "the function is not the declared " + e.context;
  const std::multiset<std::string> called = called_ops(*f);
  if (e.op == "set_cache_policy") {
    if (!called.empty() || !has_cache_policy_marker(*f))
      return "no scope records the set_cache_policy marker";
  } else if (called.size() != 1 || *called.begin() != e.op) {
    std::string names;
    for (const std::string& c : called) names += " " + c;
    return "calls" + (names.empty() ? std::string(" no op") : names) + ", not exactly " + e.op;
  }
  text::PrintOptions print_options;
  print_options.ops = &ops;
  const std::string printed = text::print(*p, print_options);
  // The printer writes the op's own name after `pl.` (`pld.` names its own family), with a
  // `_` after a Python keyword (`pl.tile.and_`).
  const std::string call = e.op.rfind("pld.", 0) == 0 ? e.op : "pl." + e.op;
  if (printed.find(call + "(") == std::string::npos &&
      printed.find(call + "_(") == std::string::npos)
    return "the printed program does not name " + e.op + ":\n" + printed;
  try {
    text::check_round_trip(*p, print_options);
  } catch (const core::Error& err) {
    return std::string("does not round-trip: ") + err.what();
  }
  return {};
}

const std::vector<Entry>& reference() {
  static const std::vector<Entry> entries = read_entries(pypto_test::read_doc("ops.md"));
  return entries;
}

TEST_CASE("ops reference: one entry per registered op and none for anything else") {
  const ir::OpRegistry ops = ir::standard_op_registry();
  std::map<std::string, std::size_t> count;
  for (const Entry& e : reference()) {
    CAPTURE(e.op);
    CAPTURE(e.line);
    CHECK_MESSAGE(ops.find(e.op) != nullptr, "docs/ops.md documents an op the registry lacks");
    ++count[e.op];
  }
  REQUIRE_FALSE(ops.ops().empty());
  for (const ir::OpDef& def : ops.ops()) {
    CAPTURE(def.name);
    CHECK_MESSAGE(count[def.name] == 1, "docs/ops.md has " << count[def.name] << " entries");
  }
}

TEST_CASE("ops reference: each entry quotes the catalog's signature and says what it computes") {
  const ir::OpRegistry ops = ir::standard_op_registry();
  REQUIRE_FALSE(reference().empty());
  for (const Entry& e : reference()) {
    const ir::OpDef* def = ops.find(e.op);
    if (!def) continue;  // reported by the coverage case
    CAPTURE(e.op);
    CAPTURE(e.line);
    CHECK(e.signature == ir::catalog_line(*def));
    CHECK_FALSE(e.meaning.empty());
    CHECK(e.example_closed);
  }
}

TEST_CASE("ops reference: each example parses, calls its op and round-trips") {
  const ir::OpRegistry ops = ir::standard_op_registry();
  std::size_t checked = 0;
  for (const Entry& e : reference()) {
    if (!ops.find(e.op)) continue;  // reported by the coverage case
    CAPTURE(e.op);
    CAPTURE(e.line);
    const std::string problem = example_problem(e, ops);
    CHECK_MESSAGE(problem.empty(), e.op << ": " << problem);
    ++checked;
  }
  CHECK(checked == ops.ops().size());
}

TEST_CASE("ops reference: a broken example is reported with its op and why") {
  const ir::OpRegistry ops = ir::standard_op_registry();
  const std::vector<Entry> parsed = read_entries(
      "## Tile ops\n\n### tile.exp\n\n`tile.exp(tile)`\n\ne to each element.\n\n"
      "```python\n# InCore(a: pl.Tile[[16, 16], pl.FP32])\ny = pl.tile.exp(a)\n```\n");
  REQUIRE(parsed.size() == 1);
  const Entry good = parsed[0];
  CHECK(good.op == "tile.exp");
  CHECK(good.line == 3);
  CHECK(good.signature == "tile.exp(tile)");
  CHECK(good.meaning == "e to each element.");
  CHECK(good.context == "InCore(a: pl.Tile[[16, 16], pl.FP32])");
  CHECK(good.example == "y = pl.tile.exp(a)\n");
  CHECK(example_problem(good, ops).empty());

  auto problem_with = [&](auto change) {
    Entry e = good;
    change(e);
    return example_problem(e, ops);
  };
  // Another op than the entry's.
  CHECK(problem_with([](Entry& e) { e.example = "y = pl.tile.log(a)\n"; }) ==
        "calls tile.log, not exactly tile.exp");
  // Two ops.
  CHECK(problem_with([](Entry& e) {
          e.example = "y = pl.tile.exp(pl.tile.neg(a))\n";
        }).find("not exactly tile.exp") != std::string::npos);
  // A type rule refusing the operand.
  CHECK(problem_with([](Entry& e) {
          e.context = "InCore(a: pl.Scalar[pl.FP32])";
        }).find("does not parse") != std::string::npos);
  // No function type.
  CHECK(problem_with([](Entry& e) { e.context = "Kernel(a: pl.Tile[[16, 16], pl.FP32])"; }) ==
        "'Kernel' is not a pl.FunctionType");
  CHECK(problem_with([](Entry& e) {
          e.context = "a: pl.Tile[[16, 16], pl.FP32]";
        }).find("is not `# Type(params)`") != std::string::npos);
  CHECK(problem_with([](Entry& e) { e.example.clear(); }) == "the example has no statement");
}

}  // namespace

// Tests of README.md's table of which ops run where: every op of the standard catalog is in it
// exactly once, and it says the truth. Each op's example of docs/ops.md runs in the reference
// interpreter on seeded inputs where the table says the interpreter runs it, and is refused with
// a RuntimeError naming the op where it says not; placed in a runnable `main`
// (ops_reference.hpp's runnable_program_of), it goes through the codegen pipeline, is compiled
// for the CPU target and gives results bit-identical to the interpreter's where the table says
// the CPU target runs it, and is refused (a typed error) where it says not.
#include <doctest/doctest.h>

#include <cstddef>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ops_reference.hpp"
#include "pypto/codegen/codegen.hpp"
#include "pypto/codegen/cpu_target.hpp"
#include "pypto/core/error.hpp"
#include "pypto/ir.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/runtime/compile_cache.hpp"
#include "pypto/runtime/cpu_program.hpp"
#include "pypto/runtime/interpreter.hpp"
#include "pypto/runtime/seeded_inputs.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"
#include "test_files.hpp"

namespace {

using namespace pypto;
using pypto_test::Entry;

enum class Runs { Both, InterpreterOnly, Neither };

/// The README's table: op name -> where it runs (several rows naming one op are kept apart).
std::multimap<std::string, Runs> read_table(const std::string& readme) {
  std::multimap<std::string, Runs> out;
  std::istringstream in(readme);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("| ops | interpreter and CPU target |", 0) == 0) {
      inside = true;
      continue;
    }
    if (!inside || line.rfind("| ---", 0) == 0) continue;
    if (line.rfind("| ", 0) != 0) break;
    std::vector<std::string> cells;
    for (std::size_t at = 2; at < line.size();) {
      const std::size_t end = line.find(" |", at);
      cells.push_back(line.substr(at, end - at));
      at = end + 3;
    }
    REQUIRE_MESSAGE(cells.size() == 4, "a row of four cells: " << line);
    // `tensor.*` names the family `tensor.`; `other` the ops of no family
    const std::string family = cells[0] == "`other`" ? "" : cells[0].substr(1, cells[0].size() - 3);
    const Runs kinds[] = {Runs::Both, Runs::InterpreterOnly, Runs::Neither};
    for (std::size_t k = 0; k < 3; ++k) {
      std::istringstream names(cells[k + 1]);
      for (std::string name; names >> name;)
        if (name != "—") out.emplace(family + name.substr(1, name.size() - 2), kinds[k]);
    }
  }
  return out;
}

const std::multimap<std::string, Runs>& table() {
  static const auto t = read_table(pypto_test::read_file(PYPTO_TEST_README));
  return t;
}

const std::vector<Entry>& examples() {
  static const std::vector<Entry> e = pypto_test::read_entries(pypto_test::read_doc("ops.md"));
  return e;
}

/// The ends of a cross-core pipe: each example holds one end alone, which both the interpreter
/// and the CPU target refuse ("runs outside a mixed task"); the mixed-task cases of
/// runtime_cpu_pipeline_test.cpp run them with both ends, compiled as interpreted.
bool pipe_end(const std::string& op) {
  return op == "tile.tpush_to_aiv" || op == "tile.tpush_to_aic" || op == "tile.tpop_from_aic" ||
         op == "tile.tpop_from_aiv";
}

Runs runs(const std::string& op) {
  const auto it = table().find(op);
  REQUIRE_MESSAGE(it != table().end(), op << " is not in README's table");
  return it->second;
}

/// Where the last value the example assigns goes when it runs in a kernel (ResultSink).
/// An op whose example takes or gives a communication context: a handle a kernel neither takes
/// as a parameter nor returns, so the example alone is no kernel.
bool comm_handle(std::string_view op) {
  return op == "pld.system.get_comm_ctx" || op == "pld.system.rank" || op == "pld.system.nranks";
}

pypto_test::ResultSink sink_for(const Entry& e, const ir::Program& p) {
  std::string last;
  std::istringstream in(e.example);
  for (std::string line; std::getline(in, line);) last = pypto_test::assigned_name(line);
  pypto_test::ResultSink sink;
  ir::for_each_node(p.find("example")->body, [&](const ir::Node& n) {
    const auto* a = ir::as<ir::AssignStmt>(&n);
    if (last.empty() || !a || a->var->name_hint != last) return;
    const ir::Type* t = a->var->type.get();
    if (const auto* s = ir::as<ir::ScalarType>(t)) {
      sink = {"pl.Tensor[[1], pl." + std::string(core::dtype_name(s->dtype)) + "]", true};
    } else if (const auto* a = ir::as<ir::ArrayType>(t)) {
      sink = {"pl.Tensor[[" + std::to_string(a->extent) + "], pl." +
                  std::string(core::dtype_name(a->dtype)) + "]",
              true, a->extent};
    } else if (const auto* tile = ir::as<ir::TileType>(t)) {
      std::string dims;
      for (const auto& d : tile->shape) {
        const auto* c = ir::as<ir::ConstInt>(d.get());
        if (!c) return;
        dims += (dims.empty() ? "" : ", ") + std::to_string(c->value);
      }
      sink = {"pl.Tensor[[" + dims + "], pl." + std::string(core::dtype_name(tile->dtype)) + "]",
              false};
    }
  });
  return sink;
}

ir::ProgramRef parse(const std::string& text) {
  static const ir::OpRegistry ops = ir::standard_op_registry();
  text::ParseOptions options;
  options.ops = &ops;
  return text::parse_program(text, options);
}

/// Seeded inputs for `fn` (signed integers from `low`, 16 of them), or nothing when the seeding
/// cannot make one (an FP8 tensor, a communication context): such an example cannot be run here,
/// whatever runs the op.
std::optional<std::vector<runtime::Value>> inputs_for(const ir::Function& fn,
                                                      runtime::IntRange ints = {}) {
  try {
    return runtime::seeded_inputs(fn, 1, ints);
  } catch (const runtime::RuntimeError& e) {
    if (std::string(e.what()).rfind("seeded inputs:", 0) == 0) return std::nullopt;
    throw;
  }
}

std::vector<runtime::Value> copies(const std::vector<runtime::Value>& v) {
  std::vector<runtime::Value> out;
  for (const auto& x : v) out.push_back(x.deep_copy());
  return out;
}

}  // namespace

TEST_CASE("ops table: README lists every op of the catalog exactly once, and nothing else") {
  const ir::OpRegistry ops = ir::standard_op_registry();
  std::map<std::string, std::size_t> count;
  for (const auto& row : table()) {
    const std::string& op = row.first;
    CAPTURE(op);
    CHECK_MESSAGE(ops.find(op) != nullptr, "README's table names an op the catalog lacks");
    ++count[op];
  }
  for (const ir::OpDef& def : ops.ops()) {
    CAPTURE(def.name);
    CHECK(count[def.name] == 1);
  }
}

TEST_CASE("ops table: the interpreter runs each example the table says it runs, refuses the rest") {
  std::size_t ran = 0, refused = 0;
  for (const Entry& e : examples()) {
    CAPTURE(e.op);
    const ir::ProgramRef p = parse(pypto_test::program_of(e));
    if (!inputs_for(*p->find("example"))) continue;
    std::string error;
    for (const runtime::IntRange ints :
         {runtime::IntRange{}, runtime::IntRange{0, 16}}) {  // as the CPU case below
      error.clear();
      try {
        (void)runtime::run(*p, "example", *inputs_for(*p->find("example"), ints));
      } catch (const runtime::RuntimeError& err) {
        error = err.what();
      }
      if (error.empty()) break;
    }
    // A refusal names the op; a fault of the inputs (a shift by a negative amount) is a run.
    const bool refusal = error.find("op '" + e.op + "'") != std::string::npos;
    if (pipe_end(e.op)) {
      CHECK(runs(e.op) == Runs::Both);
      CHECK_MESSAGE(error.find("outside a mixed task") != std::string::npos, error);
      continue;
    }
    if (runs(e.op) == Runs::Neither) {
      CHECK_MESSAGE(refusal, "the interpreter ran it: " << error);
      ++refused;
    } else {
      CHECK_MESSAGE(!refusal, error);
      ++ran;
    }
  }
  CHECK(ran > 200);
  CHECK(refused > 3);  // the refusals whose examples have inputs (fewer as ops come to run)
}

TEST_CASE("ops table: the CPU target runs what the table says, bit for bit, and refuses the rest") {
  runtime::CompileCache cache(PYPTO_TEST_KERNEL_CACHE);  // shared with the other cases
  std::size_t compiled = 0;
  for (const Entry& e : examples()) {
    CAPTURE(e.op);
    const ir::ProgramRef example = parse(pypto_test::program_of(e));
    const std::string text = pypto_test::runnable_program_of(e, sink_for(e, *example));
    if (comm_handle(e.op)) {  // checked in a program instead (cpu pipeline's world of one)
      CHECK(runs(e.op) == Runs::Both);
      continue;
    }
    if (text.empty()) {  // not an InCore or Opaque example: nothing a CPU kernel could hold
      CHECK(runs(e.op) != Runs::Both);
      continue;
    }
    CAPTURE(text);
    const ir::ProgramRef input = parse(text);
    std::optional<runtime::CpuProgram> program;
    ir::ProgramRef lowered;  // the compiled program refers to it
    std::string refusal;
    try {
      lowered = transforms::PassManager(
                    transforms::standard_passes().pipeline(transforms::kCodegenPipeline),
                    transforms::PassManagerOptions{})
                    .run(*input);
      codegen::KernelCodeMap codes;
      const codegen::OrchestrationResult code =
          codegen::codegen<codegen::CpuTarget>(*lowered, {}, &codes);
      program = runtime::CpuProgram::compile(cache, *lowered, code, codes);
    } catch (const core::Error& err) {
      refusal = err.what();
    }
    if (runs(e.op) != Runs::Both) {
      CHECK_MESSAGE(!program, "the CPU target compiled it");
      continue;
    }
    REQUIRE_MESSAGE(program, refusal);
    if (pipe_end(e.op)) {  // compiled, it refuses to run alone, as the interpreter does
      const auto inputs = inputs_for(*input->find("main"), {0, 16});
      REQUIRE(inputs);
      std::vector<runtime::Value> args = copies(*inputs);
      std::string fault;
      try {
        (void)program->run("main", args);
      } catch (const runtime::RuntimeError& err) {
        fault = err.what();
      }
      CHECK_MESSAGE(fault.find("outside a mixed task") != std::string::npos, fault);
      continue;
    }
    std::vector<runtime::Value> got_args, want_args;
    std::string got_fault, want_fault;
    std::vector<runtime::Value> got, want;
    // Inputs that make both fault (a shift by a negative amount, a gather's negative index) are
    // followed by non-negative integers, which every index operand of 16 or more accepts.
    for (const runtime::IntRange ints : {runtime::IntRange{}, runtime::IntRange{0, 16}}) {
      const auto inputs = inputs_for(*input->find("main"), ints);
      REQUIRE(inputs);
      got_args = copies(*inputs);
      want_args = copies(*inputs);
      got_fault.clear();
      want_fault.clear();
      try {
        got = program->run("main", got_args);
      } catch (const runtime::RuntimeError& err) {
        got_fault = err.what();
      }
      try {
        want = runtime::run(*input, "main", want_args);
      } catch (const runtime::RuntimeError& err) {
        want_fault = err.what();
      }
      if (got_fault.empty() || want_fault.empty()) break;
    }
    // Both fault or both give the same bits.
    CHECK_MESSAGE(got_fault.empty() == want_fault.empty(), got_fault << " / " << want_fault);
    REQUIRE(got.size() == want.size());
    for (std::size_t k = 0; k < got.size(); ++k) CHECK(runtime::bit_identical(got[k], want[k]));
    for (std::size_t k = 0; k < got_args.size(); ++k)
      CHECK(runtime::bit_identical(got_args[k], want_args[k]));
    ++compiled;
  }
  CHECK(compiled > 150);
}

// tests/unit/dedup_test_support.hpp — helpers shared by the DeduplicateOutlinedKernels tests
// (transforms_dedup_test.cpp, transforms_dedup_admission_test.cpp, transforms_dedup_shape_test.cpp;
// not a test file itself: only tests/unit/*.cpp are compiled).
//
// A case writes a program in the text format, runs the pass alone through the pass manager with
// verify-each from the pass's required properties (or directly, for IR the text cannot express),
// compares the result with the expected program (enable_auto_mapping=false) and checks the
// diagnostics log. The text fragments are those of the 1-D programs `main` → `step`/`step_copy`
// and of the Group bundles `g_a`/`g_b`.
#pragma once

#include <doctest/doctest.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "pypto/dedup.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/transforms/pass_instruments.hpp"

namespace dedup_test {

namespace tf = pypto::transforms;
namespace ir = pypto::ir;
using ir::ProgramRef;
using Kind = tf::DedupEvent::Kind;
using tf::DedupSkip;

// ---- running the pass ------------------------------------------------------------------------

inline ProgramRef parse(std::string_view text) { return pypto::text::parse_program(text); }

/// verify-each, starting from the pass's required properties.
inline tf::PassManagerOptions verify_each_options() {
  tf::PassManagerOptions pm;
  pm.instruments.push_back(tf::verify_each_instrument());
  pm.initial_properties = {tf::Property::SSAForm, tf::Property::SplitIncoreOrch,
                           tf::Property::ClusterOutlined, tf::Property::NormalizedStmtStructure};
  return pm;
}

/// The pass with `options`, its events going to `log`.
inline tf::Pass dedup_pass(tf::DedupLog& log, tf::DedupOptions options = {}) {
  options.on_event = log.sink();
  return tf::DeduplicateOutlinedKernels(std::move(options));
}

/// Runs the pass alone with verify-each; events go to `log`.
inline ProgramRef dedup(const ir::Program& before, tf::DedupLog& log,
                        tf::DedupOptions options = {}) {
  return tf::PassManager({dedup_pass(log, std::move(options))}, verify_each_options()).run(before);
}
inline ProgramRef dedup(std::string_view before, tf::DedupLog& log, tf::DedupOptions options = {}) {
  return dedup(*parse(before), log, std::move(options));
}

/// Runs the pass directly, without verify-each: for IR built with the IR builders that the text
/// cannot express, or whose print→parse round trip would print a DAG's every path.
inline ProgramRef dedup_unverified(const ir::Program& before, tf::DedupLog& log) {
  return dedup_pass(log)(before);
}

// ---- checking the result and the log ---------------------------------------------------------

inline void check_equal(const ProgramRef& after, std::string_view expected) {
  INFO(pypto::text::print(*after));
  pypto::structural::assert_structural_equal(after, parse(expected), false);
}

inline std::string all_lines(const tf::DedupLog& log) {
  std::string s;
  for (const auto& l : log.lines()) s.append(l).push_back('\n');
  return s;
}

inline bool has_line(const tf::DedupLog& log, std::string_view fragment) {
  return all_lines(log).find(fragment) != std::string::npos;
}

/// The skip event of `unit`, or null.
inline const tf::DedupEvent* skip_of(const tf::DedupLog& log, std::string_view unit) {
  for (const auto& e : log.events())
    if (e.kind == Kind::Skipped && e.unit == unit) return &e;
  return nullptr;
}

/// `unit` was skipped for `reason` with a detail containing `fragment`.
inline void check_skip(const tf::DedupLog& log, std::string_view unit, DedupSkip reason,
                       std::string_view fragment) {
  INFO(all_lines(log));
  INFO("unit ", unit);
  const tf::DedupEvent* e = skip_of(log, unit);
  REQUIRE(e != nullptr);
  CHECK(e->reason == reason);
  CHECK(e->detail.find(fragment) != std::string::npos);
}

// ---- 1-D programs: main calling step and step_copy -------------------------------------------

inline constexpr std::string_view kHeader = R"(
import pypto.language as pl
import pypto.language.distributed as pld
@pl.program
class P:
)";

/// The program `P` defining `functions`.
inline std::string program(std::string_view functions) {
  std::string s(kHeader);
  s.append(functions);
  return s;
}

inline constexpr std::string_view kMainTwo = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x1 = self.step(x0, o1)
        x2 = self.step_copy(x1, o2)
        return x2
)";

/// main with step / step_copy re-pointed at step (the merged form of kMainTwo).
inline constexpr std::string_view kMainMerged = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x1 = self.step(x0, o1)
        x2 = self.step(x1, o2)
        return x2
)";

/// The default body of `kernel`.
inline constexpr std::string_view kAddOne = "u = pl.add(t, 1.0)";

/// What a `kernel` may change besides its body.
struct KernelParts {
  std::string_view load = "t = pl.load(x, [0], [64])";
  std::string_view x_type = "pl.Tensor[[64], pl.FP32]";
  std::string_view o_type = "pl.Out[pl.Tensor[[64], pl.FP32]]";
};

/// An InCore kernel `name(x, o) -> Tensor`: load, `body` (defining u), store, return.
inline std::string kernel(std::string_view name, std::string_view body = kAddOne,
                          const KernelParts& parts = {}) {
  std::string s = "\n    @pl.function(type=pl.FunctionType.InCore)\n    def ";
  s.append(name).append("(self, x: ").append(parts.x_type).append(", o: ").append(parts.o_type);
  s.append(") -> pl.Tensor[[64], pl.FP32]:\n        ").append(parts.load);
  s.append("\n        ").append(body).append("\n");
  s.append("        pl.store(u, [0], o)\n        return o\n");
  return s;
}

/// The twins step / step_copy, called from kMainTwo: nothing merged, the three functions kept,
/// the program structurally as it came (compared with the very input: a free variable keeps its
/// identity). With `skipped`, the number of skip events is checked; without, that the very input
/// Program came back. Returns the log.
inline tf::DedupLog check_twins_kept(std::string_view step, std::string_view step_copy,
                                     std::optional<std::size_t> skipped = std::nullopt) {
  std::string functions(kMainTwo);
  functions.append(step).append(step_copy);
  const ProgramRef before = parse(program(functions));
  tf::DedupLog log;
  ProgramRef after = dedup(*before, log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Merged) == 0);
  if (skipped) {
    CHECK(log.count(Kind::Skipped) == *skipped);  // compared, found different
  } else {
    CHECK(after.get() == before.get());
  }
  CHECK(after->functions.size() == 3);
  pypto::structural::assert_structural_equal(after, before, false);
  return log;
}

// ---- Group bundles: main calling g_a and g_b -------------------------------------------------

inline constexpr std::string_view kMainGroups = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        o1 = self.g_a(a, o)
        o2 = self.g_b(a, o1)
        return o2
)";

/// main with g_b re-pointed at g_a (the merged form of kMainGroups).
inline constexpr std::string_view kMainGroupsMerged = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        o1 = self.g_a(a, o)
        o2 = self.g_a(a, o1)
        return o2
)";

/// Group `g` calling its member `first(a, o)` then `second(o1)`.
inline std::string group(std::string_view g, std::string_view first, std::string_view second) {
  std::string s = "\n    @pl.function(type=pl.FunctionType.Group)\n    def ";
  s.append(g).append(
      "(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> "
      "pl.Tensor[[64, 64], pl.FP32]:\n        o1 = self.");
  s.append(first).append("(a, o)\n        o2 = self.").append(second);
  s.append("(o1)\n        return o\n");
  return s;
}

/// What a Group member may change besides its name.
struct Member {
  std::string_view type = "InCore";  ///< the FunctionType
  std::string_view scale = "1.0";    ///< the producer's factor
  std::string_view peer = "";        ///< imports the buffer of `peer` first (if not empty)
  std::string_view extra = "";       ///< a statement before the return (if not empty)
};

namespace detail {
inline std::string member(std::string_view name, const Member& m, std::string_view params,
                          std::string_view body) {
  std::string s = "\n    @pl.function(type=pl.FunctionType.";
  s.append(m.type).append(")\n    def ").append(name).append(params);
  s.append(" -> pl.Tensor[[64, 64], pl.FP32]:\n");
  if (!m.peer.empty())
    s.append("        p = pl.system.import_peer_buffer(name=\"buf\", peer_func=\"")
        .append(m.peer)
        .append("\")\n");
  s.append(body);
  if (!m.extra.empty()) s.append("        ").append(m.extra).append("\n");
  s.append("        return o\n");
  return s;
}
}  // namespace detail

/// The first member `name(a, o: Out)`: stores a * scale into o.
inline std::string producer(std::string_view name, const Member& m = {}) {
  std::string body = "        t = pl.load(a, [0, 0], [64, 64])\n        pl.store(pl.mul(t, ";
  body.append(m.scale).append("), [0, 0], o)\n");
  return detail::member(
      name, m, "(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]])",
      body);
}

/// The second member `name(o: InOut)`: doubles o.
inline std::string consumer(std::string_view name, const Member& m = {}) {
  return detail::member(
      name, m, "(self, o: pl.InOut[pl.Tensor[[64, 64], pl.FP32]])",
      "        u = pl.load(o, [0, 0], [64, 64])\n        pl.store(pl.add(u, u), [0, 0], o)\n");
}

}  // namespace dedup_test

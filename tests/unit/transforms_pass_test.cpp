// Tests of
// pypto/transforms/{property,pass,pass_manager,pass_registry,normalize_stmt_structure}.hpp: the
// pass infrastructure (issue 5) and NormalizeStmtStructure. Pass cases read like the seeds'
// examples: a program in text, the pass, the expected program in text, compared structurally.
#include <doctest/doctest.h>

#include <cstddef>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir_samples.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/round_trip.hpp"
#include "pypto/transforms/normalize_stmt_structure.hpp"
#include "pypto/transforms/pass.hpp"
#include "pypto/transforms/pass_instruments.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"
#include "pypto/transforms/property.hpp"

using namespace pypto::test;  // NOLINT
namespace tf = pypto::transforms;
using tf::Property;
using tf::PropertySet;

namespace {

ProgramRef parse(std::string_view text) { return pypto::text::parse_program(text); }

void check_structural_equal(const ProgramRef& actual, const ProgramRef& expected) {
  pypto::structural::assert_structural_equal(actual, expected, /*enable_auto_mapping=*/true);
}

ProgramRef run_passes(const ProgramRef& program, std::string_view pipeline) {
  tf::PassManagerOptions options;
  options.instruments.push_back(tf::verify_each_instrument());
  return tf::PassManager(tf::standard_passes().pipeline(pipeline), std::move(options))
      .run(*program);
}

/// A pass that returns its input and claims the given properties.
tf::Pass identity_pass(std::string name, PropertySet required, PropertySet produced,
                       PropertySet invalidated = {}, int* runs = nullptr) {
  return tf::Pass(std::move(name), required, produced, invalidated,
                  [runs](const Program& p) -> ProgramRef {
                    if (runs) ++*runs;
                    return ProgramRef(&p);
                  });
}

constexpr std::string_view kNested = R"(
import pypto.language as pl

@pl.program
class Nested:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        with pl._dump.seq():
            # the first sum
            y: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x, x)
            with pl._dump.seq():
                z: pl.Tensor[[64], pl.FP32] = pl.tensor.add(y, x)
        for i, (acc,) in pl.range(n, init_values=(z,)):
            with pl._dump.seq():
                t: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc, x)
            acc_rv: pl.Tensor[[64], pl.FP32] = pl.yield_(t)
        if n < 2:
            with pl._dump.stmt():
                w: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc_rv, x)
        else:
            with pl._dump.seq():
                pass
        with pl.at(level=pl.Level.CORE_GROUP):
            with pl._dump.seq():
                with pl._dump.seq():
                    u: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc_rv, acc_rv)
        return acc_rv
)";

constexpr std::string_view kNestedNormalized = R"(
import pypto.language as pl

@pl.program
class Nested:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x, x)
        z: pl.Tensor[[64], pl.FP32] = pl.tensor.add(y, x)
        for i, (acc,) in pl.range(n, init_values=(z,)):
            t: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc, x)
            acc_rv: pl.Tensor[[64], pl.FP32] = pl.yield_(t)
        if n < 2:
            w: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc_rv, x)
        else:
            pass
        with pl.at(level=pl.Level.CORE_GROUP):
            u: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc_rv, acc_rv)
        return acc_rv
)";

const Stmt& body_stmt(const ProgramRef& p, std::size_t i) {
  return *cast<SeqStmts>(p->find("main")->body)->stmts.at(i);
}

}  // namespace

// ---- properties and passes ---------------------------------------------------------------------

TEST_CASE("transforms: a PropertySet is a bitmask value") {
  const PropertySet ssa{Property::SSAForm};
  const PropertySet both = ssa.with({Property::AivSplitValid});
  CHECK(both.contains(Property::SSAForm));
  CHECK(both.contains(Property::AivSplitValid));
  CHECK_FALSE(both.contains(Property::ClusterOutlined));
  CHECK(both.contains_all(ssa));
  CHECK_FALSE(ssa.contains_all(both));
  CHECK(both.without(ssa) == PropertySet{Property::AivSplitValid});
  CHECK(PropertySet{}.empty());
  CHECK(both.to_string() == "{SSAForm, AivSplitValid}");
}

TEST_CASE("transforms: a pass name must be stable kebab-case") {
  CHECK(tf::is_kebab_case("normalize-stmt-structure"));
  CHECK(tf::is_kebab_case("pass2"));
  for (std::string_view bad : {"", "Normalize", "a_b", "-a", "a-", "a--b", "a b"}) {
    CAPTURE(bad);
    CHECK_FALSE(tf::is_kebab_case(bad));
    CHECK_THROWS_AS(identity_pass(std::string(bad), {}, {}), pypto::core::ValueError);
  }
}

// ---- the pass manager --------------------------------------------------------------------------

TEST_CASE("pass manager: runs in order and tracks produced and invalidated properties") {
  std::vector<std::string> order;
  auto recording = [&](std::string name, PropertySet req, PropertySet prod, PropertySet inval) {
    return tf::Pass(name, req, prod, inval, [&order, name](const Program& p) -> ProgramRef {
      order.push_back(name);
      return ProgramRef(&p);
    });
  };
  tf::PassManager manager({recording("make-ssa", {}, {Property::SSAForm}, {}),
                           recording("use-ssa", {Property::SSAForm}, {Property::AivSplitValid}, {}),
                           recording("break-ssa", {}, {}, {Property::SSAForm})});
  const ProgramRef input = parse(kNestedNormalized);
  const ProgramRef output = manager.run(*input);
  CHECK(output == input);
  CHECK(order == std::vector<std::string>{"make-ssa", "use-ssa", "break-ssa"});
  CHECK(manager.properties() == PropertySet{Property::AivSplitValid});
  CHECK(manager.timings().empty());  // timing is off by default
}

TEST_CASE("pass manager: a pass whose required property does not hold is refused up front") {
  int runs = 0;
  tf::PassManager manager({identity_pass("first", {}, {Property::SSAForm}, {}, &runs),
                           identity_pass("breaker", {}, {}, {Property::SSAForm}, &runs),
                           identity_pass("needs-ssa", {Property::SSAForm}, {}, {}, &runs)});
  const ProgramRef input = parse(kNestedNormalized);
  try {
    manager.run(*input);
    FAIL("expected PassPreconditionError");
  } catch (const tf::PassPreconditionError& e) {
    CHECK(e.pass_name() == "needs-ssa");
    CHECK(e.missing() == Property::SSAForm);
    CHECK(std::string(e.what()).find("needs-ssa requires property SSAForm") != std::string::npos);
  }
  CHECK(runs == 0);  // nothing ran

  // Declared on the input, the property holds from the start.
  tf::PassManagerOptions options;
  options.initial_properties = {Property::SSAForm};
  tf::PassManager ok({identity_pass("needs-ssa", {Property::SSAForm}, {}, {}, &runs)},
                     std::move(options));
  CHECK_NOTHROW(ok.run(*input));
  CHECK(runs == 1);
}

TEST_CASE("pass manager: verify_each catches a pass claiming a property it does not deliver") {
  tf::PassManagerOptions options;
  options.instruments.push_back(tf::verify_each_instrument());
  tf::PassManager manager({identity_pass("liar", {}, {Property::NormalizedStmtStructure})},
                          std::move(options));
  try {
    manager.run(*parse(kNested));
    FAIL("expected PassVerificationError");
  } catch (const tf::PassVerificationError& e) {
    CHECK(e.pass_name() == "liar");
    CHECK(e.check() == "NormalizedStmtStructure");
    CHECK(std::string(e.what()).find("main: body.stmts[0] is a SeqStmts nested in a SeqStmts") !=
          std::string::npos);
  }
  // Without verify_each the claim is trusted.
  tf::PassManager trusting({identity_pass("liar", {}, {Property::NormalizedStmtStructure})});
  CHECK_NOTHROW(trusting.run(*parse(kNested)));
}

TEST_CASE("pass manager: verify_each runs verify_structural_bindings on every SSA function") {
  // y is defined twice: a binding error the pass introduces into a program it says is SSA.
  auto x = var("x"), y = var("y");
  auto body =
      SeqStmts::make({AssignStmt::make(y, x), AssignStmt::make(y, x), ReturnStmt::make({y})});
  auto bad = Program::make("", {Function::make("f", {{x}}, {scalar(DataType::INDEX)}, body)});
  tf::PassManagerOptions options;
  options.instruments.push_back(tf::verify_each_instrument());
  tf::PassManager manager({tf::Pass("rebind", {}, {Property::SSAForm}, {},
                                    [bad](const Program&) -> ProgramRef { return bad; })},
                          std::move(options));
  try {
    manager.run(*parse(kNestedNormalized));
    FAIL("expected PassVerificationError");
  } catch (const tf::PassVerificationError& e) {
    CHECK(e.pass_name() == "rebind");
    CHECK(e.check() == "verify_structural_bindings");
    CHECK(std::string(e.what()).find("function f") != std::string::npos);
  }
  // The natural form (no SSAForm: before convert-to-ssa) binds a name several times.
  tf::PassManagerOptions natural;
  natural.instruments.push_back(tf::verify_each_instrument());
  CHECK_NOTHROW(tf::PassManager({tf::Pass("rebind", {}, {}, {},
                                          [bad](const Program&) -> ProgramRef { return bad; })},
                                std::move(natural))
                    .run(*parse(kNestedNormalized)));
}

TEST_CASE("pass manager: the print-after-all instrument, a host's instrument and timing") {
  std::ostringstream printed;
  std::vector<std::string> seen;
  tf::PassManagerOptions options;
  options.instruments.push_back(tf::print_after_all_instrument(printed));
  options.instruments.push_back([&](const tf::Pass& pass, const Program& p, PropertySet holding) {
    seen.push_back(pass.name() + ":" + std::to_string(p.functions.size()) + ":" +
                   holding.to_string());
  });
  options.timing = true;
  tf::PassManager manager(tf::standard_passes().pipeline("normalize-stmt-structure, "
                                                         "normalize-stmt-structure"),
                          std::move(options));
  manager.run(*parse(kNested));
  const std::string text = printed.str();
  const std::string marker = "# ----- after normalize-stmt-structure -----\n";
  REQUIRE(text.find(marker) == 0);
  CHECK(text.find(marker, marker.size()) != std::string::npos);  // once per pass
  CHECK(text.find("class Nested:") != std::string::npos);
  CHECK(text.find("pl._dump.seq") == std::string::npos);
  CHECK(seen == std::vector<std::string>{"normalize-stmt-structure:1:{NormalizedStmtStructure}",
                                         "normalize-stmt-structure:1:{NormalizedStmtStructure}"});
  REQUIRE(manager.timings().size() == 2);
  CHECK(manager.timings()[0].pass_name == "normalize-stmt-structure");
  const std::string report = manager.timing_report();
  CHECK(report.find("normalize-stmt-structure\n") != std::string::npos);
  CHECK(report.find("total\n") != std::string::npos);
}

// ---- the registry ------------------------------------------------------------------------------

TEST_CASE("pass registry: names, pipelines and unknown passes") {
  const tf::PassRegistry registry = tf::standard_passes();
  CHECK(registry.contains("normalize-stmt-structure"));
  CHECK(registry.make("normalize-stmt-structure").produced() ==
        PropertySet{Property::NormalizedStmtStructure});
  CHECK(registry.pipeline("").empty());
  CHECK(registry.pipeline(" normalize-stmt-structure ,normalize-stmt-structure").size() == 2);
  try {
    registry.pipeline("normalize-stmt-structure,no-such-pass");
    FAIL("expected UnknownPassError");
  } catch (const tf::UnknownPassError& e) {
    CHECK(e.name() == "no-such-pass");
    CHECK(std::string(e.what()).find("known passes: convert-tensor-to-tile-ops, convert-to-ssa, "
                                     "ctrl-flow-transform, deduplicate-outlined-kernels, "
                                     "expand-mixed-kernels, fuse-create-assemble-to-slice, "
                                     "normalize-return-order, "
                                     "normalize-stmt-structure") != std::string::npos);
  }
  CHECK_THROWS_AS(registry.pipeline("normalize-stmt-structure,,"), pypto::core::ValueError);
  tf::PassRegistry twice = registry;
  CHECK_THROWS_AS(twice.add("again", tf::NormalizeStmtStructure), pypto::core::ValueError);
}

TEST_CASE("pass registry: options in braces, checked against what the pass declares") {
  tf::PassRegistry registry;
  std::vector<std::string> made;
  registry.add("a pass with one option",
               {{"mode", "how it runs", {"fast", "slow"}}, {"level", "how much", {"1", "2", "3"}}},
               [&made](const tf::PassOptions& o) {
                 made.push_back(o.at("mode") + "/" + o.at("level"));
                 return tf::NormalizeStmtStructure();
               });
  made.clear();
  CHECK(registry.pipeline("normalize-stmt-structure").size() == 1);
  CHECK(registry
            .pipeline("normalize-stmt-structure{mode=slow}, normalize-stmt-structure{ level=3 "
                      "mode=fast },normalize-stmt-structure{level=2,mode=slow}")
            .size() == 3);
  CHECK(made == std::vector<std::string>{"fast/1", "slow/1", "fast/3", "slow/2"});
  auto error = [&](std::string_view pipeline) -> std::string {
    try {
      registry.pipeline(pipeline);
    } catch (const pypto::core::ValueError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(error("normalize-stmt-structure{speed=1}") ==
        "pass 'normalize-stmt-structure' has no option 'speed' (options: mode, level)");
  CHECK(error("normalize-stmt-structure{mode=medium}") ==
        "pass 'normalize-stmt-structure': option mode=medium is not one of fast|slow");
  CHECK(error("normalize-stmt-structure{mode=fast mode=slow}").find("is given twice") !=
        std::string::npos);
  CHECK(error("normalize-stmt-structure{mode}").find("is not key=value") != std::string::npos);
  CHECK(error("normalize-stmt-structure{mode=fast").find("are not one `{key=value ...}`") !=
        std::string::npos);
  CHECK(error("{mode=fast}").find("empty pass name") != std::string::npos);
  CHECK(tf::standard_passes().entries().at("convert-tensor-to-tile-ops").options.at(0).key ==
        "arch");
  CHECK_THROWS_WITH_AS(tf::standard_passes().pipeline("convert-to-ssa{arch=a5}"),
                       "pass 'convert-to-ssa' has no option 'arch' (it takes none)",
                       pypto::core::ValueError);
}

// ---- NormalizeStmtStructure --------------------------------------------------------------------

TEST_CASE("normalize-stmt-structure: every body slot one flat SeqStmts") {
  const ProgramRef before = parse(kNested);
  CHECK_FALSE(tf::is_normalized_stmt_structure(*before));
  const ProgramRef after = run_passes(before, "normalize-stmt-structure");
  check_structural_equal(after, parse(kNestedNormalized));
  CHECK(tf::is_normalized_stmt_structure(*after));
  pypto::text::check_round_trip(*after);
  // The nested sequences differ structurally: the pass did change something.
  CHECK_FALSE(pypto::structural::structural_equal(after, before, true));
}

TEST_CASE("normalize-stmt-structure: comments of spliced sequences move onto the next statement") {
  const ProgramRef after = tf::NormalizeStmtStructure()(*parse(kNested));
  CHECK(body_stmt(after, 0).leading_comments == std::vector<std::string>{"the first sum"});
  CHECK(pypto::text::print(*after).find("        # the first sum\n        y: ") !=
        std::string::npos);
}

TEST_CASE("normalize-stmt-structure: a normalized program comes back as the same object") {
  const ProgramRef normalized = parse(kNestedNormalized);
  CHECK(tf::is_normalized_stmt_structure(*normalized));
  CHECK(tf::NormalizeStmtStructure()(*normalized) == normalized);
  const ProgramRef once = tf::NormalizeStmtStructure()(*parse(kNested));
  CHECK(tf::NormalizeStmtStructure()(*once) == once);  // idempotent
}

TEST_CASE("normalize-stmt-structure: the verifier names the first slot that is not flat") {
  const ProgramRef lone = parse(R"(
import pypto.language as pl

@pl.program
class Lone:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        if n < 2:
            with pl._dump.stmt():
                m: pl.Scalar[pl.INDEX] = n + 1
        return n
)");
  CHECK(tf::find_unnormalized_stmt_structure(*lone) ==
        "main: body.stmts[0].then_body is a AssignStmt, not a SeqStmts");
}

TEST_CASE("normalize-stmt-structure: deep sequence chains are flattened without recursion") {
  // 100,000 SeqStmts each holding the next: far deeper than any native stack could follow.
  auto x = var("x"), y = var("y");
  StmtRef chain = SeqStmts::make({AssignStmt::make(y, x)});
  for (int i = 0; i < 100000; ++i) chain = SeqStmts::make({chain});
  const ProgramRef p =
      Program::make("", {Function::make("f", {{x}}, {scalar(DataType::INDEX)},
                                        SeqStmts::make({chain, ReturnStmt::make({y})}))});
  const ProgramRef after = tf::NormalizeStmtStructure()(*p);
  const auto body = cast<SeqStmts>(after->find("f")->body);
  REQUIRE(body->stmts.size() == 2);
  CHECK(isa<AssignStmt>(body->stmts[0]));
  CHECK(tf::is_normalized_stmt_structure(*after));
}

TEST_CASE("normalize-stmt-structure: compound statements nested too deep are a ValueError") {
  auto program_of_depth = [](std::size_t depth) {
    auto x = var("x");
    StmtRef body = SeqStmts::make({});
    for (std::size_t i = 0; i < depth; ++i) body = InCoreScopeStmt::make(body);  // lone: not a Seq
    return Program::make("", {Function::make("f", {{x}}, {}, SeqStmts::make({body}))});
  };
  const ProgramRef shallow = tf::NormalizeStmtStructure()(*program_of_depth(400));
  CHECK(tf::is_normalized_stmt_structure(*shallow));
  CHECK_THROWS_AS(tf::NormalizeStmtStructure()(*program_of_depth(2000)), pypto::core::ValueError);
}

// Tests of the orchestration-side forms of the text: `pl.spmd_submit` (a Submit with a launch
// spec), `dumps=` on a submit, `pl.no_dep(x)` kernel-call arguments, the `pl.dump_tag(t)` marker,
// `None` as the invalid task id and `deps=` list comprehensions unrolled as the text is read —
// each read, checked in the IR, printed back losslessly, and each with its errors at line:column.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "pypto/ir.hpp"
#include "pypto/ir/scope_attrs.hpp"
#include "pypto/text/parse_error.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"
#include "text_test_support.hpp"

namespace {

using pypto::text_test::const_value;
using pypto::text_test::expect_error;
using pypto::text_test::replaced;

using namespace pypto;
using namespace pypto::ir;
using core::DataType;

template <class T>
std::vector<const T*> all_of_kind(const Function& f) {
  std::vector<const T*> out;
  for_each_node(f.body, [&](const Node& n) {
    if (const auto* x = as<T>(&n)) out.push_back(x);
  });
  return out;
}

/// The names of the variables of a list-valued attr, in order.
std::vector<std::string> var_names(const Attrs& attrs, std::string_view key) {
  std::vector<std::string> out;
  for (const ExprRef& e : scope_attr::exprs(attrs, key)) {
    const auto* v = as<Var>(e.get());
    REQUIRE(v);
    out.push_back(v->name_hint);
  }
  return out;
}

constexpr const char* kKernel = R"(import pypto.language as pl

@pl.program
class Dispatch:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(a, [0], [64])
        return pl.store(t, [0], o)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
)";

// ---- pl.spmd_submit ---------------------------------------------------------------------------

const std::string kSpmdSubmit = std::string(kKernel) + R"(        o, t0 = pl.submit(self.k, a, o)
        o, t1 = pl.spmd_submit(self.k, a, o, core_num=8, sync_start=True, deps=[t0])
        o, t2 = pl.spmd_submit(self.k, a, o, deps=[t1], core_num=4, allow_early_resolve=True)
        return o
)";

TEST_CASE("dispatch: pl.spmd_submit is a Submit with a launch spec, printed back as one") {
  const ProgramRef p = text::parse_program(kSpmdSubmit);
  const auto submits = all_of_kind<Submit>(*p->find("main"));
  REQUIRE(submits.size() == 3);
  CHECK_FALSE(submits[0]->core_num);
  CHECK(const_value(submits[1]->core_num) == 8);
  CHECK(submits[1]->sync_start);
  REQUIRE(submits[1]->deps.size() == 1);
  CHECK(const_value(submits[2]->core_num) == 4);
  CHECK_FALSE(submits[2]->sync_start);
  CHECK(submits[2]->allow_early_resolve);
  text::check_round_trip(*p);
  const std::string printed = text::print(*p);
  CAPTURE(printed);
  CHECK(printed.find("pl.submit(self.k, a, o)") != std::string::npos);
  CHECK(printed.find("pl.spmd_submit(self.k, a, o, deps=[t0], core_num=8, sync_start=True)") !=
        std::string::npos);
}

TEST_CASE("dispatch: pl.spmd_submit errors say what and where") {
  expect_error(replaced(kSpmdSubmit, "core_num=8, ", ""), 13, 17, "core_num=N on pl.spmd_submit");
  expect_error(replaced(kSpmdSubmit, "core_num=8", "core_num=0"), 13, 55, "a positive core_num");
  expect_error(replaced(kSpmdSubmit, "sync_start=True", "sync_start=1"), 13, 69, "True or False");
  expect_error(replaced(kSpmdSubmit, "pl.spmd_submit(self.k, a, o, core_num=8",
                        "pl.spmd_submit(self.nope, a, o, core_num=8"),
               13, 32, "a function of this program to launch");
}

// ---- pl.dump_tag, dumps= and pl.no_dep ---------------------------------------------------------

const std::string kDumps = std::string(kKernel) + R"(        o = self.k(a, o)
        pl.dump_tag(a)
        pl.dump_tag(a)
        o = self.k(pl.no_dep(a), o)
        o, t0 = pl.submit(self.k, a, o, dumps=[o])
        with pl.at(level=pl.Level.CORE_GROUP, dumps=[o]):
            t = pl.load(a, [0], [64])
            o = pl.store(t, [0], o)
        return o
)";

TEST_CASE("dispatch: pl.dump_tag, dumps= and pl.no_dep become the dispatches' attrs") {
  const ProgramRef p = text::parse_program(kDumps);
  const Function& main = *p->find("main");
  std::vector<const Call*> calls;
  for (const Call* c : all_of_kind<Call>(main))
    if (isa<GlobalVar>(*c->op)) calls.push_back(c);
  REQUIRE(calls.size() == 2);
  // Before the tag: nothing. After it: `a` is dumped; the no_dep argument's index is kept.
  CHECK(calls[0]->attrs.empty());
  CHECK(var_names(calls[1]->attrs, scope_attr::kDumpVars) == std::vector<std::string>{"a"});
  const AttrValue* overrides = calls[1]->attrs.find("arg_direction_overrides");
  REQUIRE(overrides);
  REQUIRE(overrides->get_if<AttrValueList>()->size() == 1);
  CHECK(*(*overrides->get_if<AttrValueList>())[0].get_if<std::int64_t>() == 0);
  // The submit dumps the tagged `a` and the `dumps=` argument `o`, in argument order.
  const auto submits = all_of_kind<Submit>(main);
  REQUIRE(submits.size() == 1);
  CHECK(var_names(submits[0]->attrs, scope_attr::kDumpVars) == std::vector<std::string>{"a", "o"});
  // A task scope dumps its own `dumps=` and every tensor tagged before it.
  const auto kernels = all_of_kind<InCoreScopeStmt>(main);
  REQUIRE(kernels.size() == 1);
  CHECK(var_names(kernels[0]->attrs, scope_attr::kDumpVars) == std::vector<std::string>{"o", "a"});
  text::check_round_trip(*p);
  const std::string printed = text::print(*p);
  CAPTURE(printed);
  CHECK(printed.find("pl.submit(self.k, a, o, dumps=[a, o])") != std::string::npos);
  CHECK(printed.find(R"(self.k(a, o, attrs={"arg_direction_overrides": [0], "dump_vars": [a]}))") !=
        std::string::npos);
  CHECK(printed.find("dumps=[o, a]") != std::string::npos);
}

TEST_CASE("dispatch: pl.dump_tag, dumps= and pl.no_dep errors say what and where") {
  expect_error(replaced(kDumps, "        pl.dump_tag(a)\n        pl.dump_tag(a)",
                        "        pl.dump_tag(a, o)"),
               13, 9, "pl.dump_tag takes 1 positional argument");
  expect_error(replaced(kDumps, "pl.dump_tag(a)\n        pl.dump_tag(a)", "pl.dump_tag(self.k)"),
               13, 21, "a tensor variable's name");
  expect_error(replaced(kDumps, "dumps=[o])\n", "dumps=[t0])\n"), 16, 48, "a defined name");
  expect_error(replaced(kDumps, "o, t0 = pl.submit(self.k, a, o, dumps=[o])",
                        "o, t0 = pl.submit(self.k, o, dumps=[a])"),
               16, 45, "a tensor variable passed to this submit");
  expect_error(replaced(kDumps, "o = self.k(pl.no_dep(a), o)", "o = pl.no_dep(a)"), 15, 13,
               "pl.no_dep only where the DSL places it");
  expect_error(replaced(kDumps, "pl.no_dep(a)", "pl.no_dep(a, o)"), 15, 20,
               "pl.no_dep takes 1 positional argument");
  // Only an Orchestration (or Inline) function tags tensors for its dispatches.
  const std::string in_kernel =
      replaced(kDumps, "        t = pl.load(a, [0], [64])\n        return",
               "        pl.dump_tag(a)\n        t = pl.load(a, [0], [64])\n        return");
  expect_error(in_kernel, 7, 9, "pl.dump_tag only in an Orchestration or Inline function");
}

// ---- None and deps list comprehensions ---------------------------------------------------------

const std::string kDeps = std::string(kKernel) + R"(        tids = pl.array.create(4, pl.TASK_ID)
        prev = None
        for n in pl.range(4):
            o, prev = pl.submit(self.k, a, o, deps=[prev, None])
            tids[n] = prev
        o, t1 = pl.submit(self.k, a, o, deps=[tids[k] for k in range(4) if k % 2 == 0 and k != 2])
        o, t2 = pl.submit(self.k, a, o, deps=[t1, [tids[k] for k in [3, 1]]])
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tids[i] for i in range(6, 0, -2) if i < 6]):
            t = pl.load(a, [0], [64])
            o = pl.store(t, [0], o)
        return o
)";

TEST_CASE("dispatch: None is the invalid task id, deps comprehensions unroll over constants") {
  const ProgramRef p = text::parse_program(kDeps);
  const Function& main = *p->find("main");
  // `prev = None` binds a task id: system.task_invalid(); a `None` deps item adds no edge.
  bool invalid = false;
  for (const Call* c : all_of_kind<Call>(main))
    if (c->op->name == "system.task_invalid") {
      invalid = true;
      CHECK(has_scalar_dtype(ExprRef(c), DataType::TASK_ID));
    }
  CHECK(invalid);
  const auto submits = all_of_kind<Submit>(main);
  REQUIRE(submits.size() == 3);
  CHECK(submits[0]->deps.size() == 1);
  // range(4) kept where k % 2 == 0 and k != 2: tids[0].
  REQUIRE(submits[1]->deps.size() == 1);
  const auto* read = as<Call>(submits[1]->deps[0].get());
  REQUIRE(read);
  CHECK(read->op->name == "array.get_element");
  CHECK(const_value(read->args[1]) == 0);
  // An item of the list may be a comprehension: t1, tids[3], tids[1].
  REQUIRE(submits[2]->deps.size() == 3);
  CHECK(const_value(as<Call>(submits[2]->deps[1].get())->args[1]) == 3);
  CHECK(const_value(as<Call>(submits[2]->deps[2].get())->args[1]) == 1);
  // A scope's deps unroll the same way: range(6, 0, -2) below 6 is 4, 2.
  const auto kernels = all_of_kind<InCoreScopeStmt>(main);
  REQUIRE(kernels.size() == 1);
  const std::vector<ExprRef> deps = scope_attr::exprs(kernels[0]->attrs, scope_attr::kDeps);
  REQUIRE(deps.size() == 2);
  CHECK(const_value(as<Call>(deps[0].get())->args[1]) == 4);
  CHECK(const_value(as<Call>(deps[1].get())->args[1]) == 2);
  text::check_round_trip(*p);
}

TEST_CASE("dispatch: deps comprehension errors say what and where") {
  const std::string comp = "deps=[tids[k] for k in range(4) if k % 2 == 0 and k != 2]";
  expect_error(replaced(kDeps, comp, "deps=[tids[k] for k in pl.range(4)]"), 17, 64,
               "range(...) of constants or a list of integer constants");
  expect_error(replaced(kDeps, comp, "deps=[tids[k] for k in range(4) if k != n]"), 17, 81,
               "a constant or the comprehension's variable");
  expect_error(replaced(kDeps, comp, "deps=[tids[k] for k in range(0, 4, 0)]"), 17, 76,
               "a non-zero step");
  expect_error(replaced(kDeps, comp, "deps=[tids[k] for k in range(4) if k // 0]"), 17, 81,
               "a non-zero divisor");
  expect_error(replaced(kDeps, comp, "deps=[tids[k] for k in range(4) for j in range(2)]"), 17, 73,
               "a comprehension has one for clause");
  expect_error(replaced(kDeps, comp, "deps=[tids[k] for (k, j) in range(4)]"), 17, 59,
               "a name as the comprehension's target");
  expect_error(replaced(kDeps, comp, "deps=[a for k in range(4)]"), 17, 47,
               "a Scalar[TASK_ID] task id");
  expect_error(replaced(kDeps, "tids = pl.array.create(4, pl.TASK_ID)",
                        "tids = [pl.array.create(4, pl.TASK_ID) for k in range(4)]"),
               12, 16, "a list comprehension only as a deps= list");
  expect_error(replaced(kDeps, comp, "deps=[t0] + [tids[k] for k in range(4)]"), 17, 46,
               "a list of task ids");
}

// ---- pl.at of another level: its level first, deps= and `as tid` ------------------------------

constexpr const char* kHierarchy = R"(import pypto.language as pl

@pl.program
class Levels:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.GLOBAL, role=pl.Role.Orchestrator, name_hint="s1") as t1:
            y = pl.add(x, x)
        with pl.at(pl.Level.HOST, role=pl.Role.Orchestrator, deps=[t1], dumps=[y]) as t2:
            z = pl.mul(y, y)
        return z
)";

TEST_CASE("dispatch: a pl.at of another level takes its level first, deps= and as tid") {
  const ProgramRef p = text::parse_program(kHierarchy);
  const auto scopes = all_of_kind<HierarchyScopeStmt>(*p->find("main"));
  REQUIRE(scopes.size() == 2);
  CHECK(scopes[0]->level == Level::GLOBAL);
  REQUIRE(scopes[0]->task_id);
  CHECK(scopes[0]->task_id->name_hint == "t1");
  CHECK(scopes[1]->level == Level::HOST);
  const std::vector<ExprRef> deps = scope_attr::exprs(scopes[1]->attrs, scope_attr::kDeps);
  REQUIRE(deps.size() == 1);
  CHECK(deps[0].get() == scopes[0]->task_id.get());
  CHECK(var_names(scopes[1]->attrs, scope_attr::kDumpVars) == std::vector<std::string>{"y"});
  REQUIRE(scopes[1]->task_id);
  text::check_round_trip(*p);
  const std::string printed = text::print(*p);
  CAPTURE(printed);
  CHECK(printed.find("with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator, deps=[t1], "
                     "dumps=[y]) as t2:") != std::string::npos);
}

TEST_CASE("dispatch: pl.at level errors say what and where") {
  expect_error(replaced(kHierarchy, "pl.at(pl.Level.HOST, ", "pl.at("), 9, 14, "a level on pl.at");
  expect_error(
      replaced(kHierarchy, "pl.at(pl.Level.HOST, ", "pl.at(pl.Level.HOST, level=pl.Level.HOST, "),
      9, 41, "the level once");
  expect_error(replaced(kHierarchy, "deps=[t1]", "deps=[y]"), 9, 68, "a Scalar[TASK_ID] task id");
}

}  // namespace

// Tests of pypto/transforms/{outline_properties,return_lineage,stmt_tree}.hpp: the verifiers of
// SplitIncoreOrch, ClusterOutlined, NoScalarKernelReturn, ReturnParamsExplicit and
// AivSplitValid (seed 002), the return-lineage analysis they share with the outliner, and the
// statement tree they walk. Each property has programs that hold and programs that violate it;
// a violation's message must name the function and the offending statement or variable.
#include <doctest/doctest.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/round_trip.hpp"
#include "pypto/transforms/outline_properties.hpp"
#include "pypto/transforms/pass.hpp"
#include "pypto/transforms/pass_instruments.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/property.hpp"
#include "pypto/transforms/property_verifiers.hpp"
#include "pypto/transforms/return_lineage.hpp"
#include "pypto/transforms/stmt_tree.hpp"

namespace tf = pypto::transforms;
namespace ir = pypto::ir;
using tf::Property;

namespace {

using Verifier = std::function<std::optional<std::string>(const ir::Program&)>;

/// The program of `text`, which must read back as itself after printing.
ir::ProgramRef parse(std::string_view text) {
  ir::ProgramRef p = pypto::text::parse_program(text);
  CHECK_NOTHROW(pypto::text::check_round_trip(*p));
  return p;
}

/// find_return_params_explicit_violation with the default op registry.
std::optional<std::string> return_params_violation(const ir::Program& p) {
  return tf::find_return_params_explicit_violation(p);
}

void check_holds(const Verifier& verify, std::string_view text) {
  const std::optional<std::string> violation = verify(*parse(text));
  CHECK_MESSAGE(!violation, violation.value_or(""));
}

/// A program with one function of type `type` (`Opaque`, `InCore`, ...); `def` is the rest of
/// the function: its `def` line and its body.
std::string one_function(std::string_view type, std::string_view def) {
  if (def.starts_with('\n')) def.remove_prefix(1);  // a raw string's first line break
  return "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType." + std::string(type) +
         ")\n" + std::string(def);
}

/// The violation of `text`, which must contain every one of `parts`.
void check_violation(const Verifier& verify, std::string_view text,
                     const std::vector<std::string_view>& parts) {
  const std::optional<std::string> violation = verify(*parse(text));
  REQUIRE(violation);
  for (std::string_view part : parts) {
    CAPTURE(*violation);
    CHECK_MESSAGE(violation->find(part) != std::string::npos, "missing: ", part);
  }
}

/// The variable named `name` that `fn` assigns, or that one of its loops or ifs returns.
const ir::Var& defined_var(const ir::Function& fn, std::string_view name) {
  const tf::StmtTree tree(fn);
  const ir::Var* found = nullptr;
  auto look = [&](const ir::VarRef& v) {
    if (v->name_hint == name) found = v.get();
  };
  for (std::size_t id = 0; id < tree.size() && !found; ++id) {
    const ir::Stmt& s = tree.stmt(id);
    if (const auto* a = ir::as<ir::AssignStmt>(&s)) look(a->var);
    if (const auto* l = ir::as<ir::ForStmt>(&s))
      for (const auto& v : l->return_vars) look(v);
    if (const auto* w = ir::as<ir::WhileStmt>(&s))
      for (const auto& v : w->return_vars) look(v);
    if (const auto* i = ir::as<ir::IfStmt>(&s))
      for (const auto& v : i->return_vars) look(v);
  }
  INFO("no variable ", name);
  REQUIRE(found);
  return *found;
}

// ---- programs ----------------------------------------------------------------------------------

// Seed 002's basic example after outlining: the kernel returns the store target parameter.
constexpr std::string_view kOutlined = R"(
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, y: pl.Tensor[[64], pl.FP32], x: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        tile = pl.tile.load(y, [0], [64])
        tile_sq = pl.tile.mul(tile, tile)
        result = pl.tile.store(tile_sq, [0], x)
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.tensor.add(x, x)
        result = self.main_incore_0(y, x)
        z = pl.tensor.add(result, result)
        return z
)";

}  // namespace

// ---- StmtTree ----------------------------------------------------------------------------------

TEST_CASE("stmt tree: pre-order sites with field paths and enclosing scopes") {
  const ir::ProgramRef p = parse(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]):
        y = pl.tensor.add(x, x)
        if n < 2:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
                for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    z = pl.tensor.add(y, y)
)");
  const tf::StmtTree tree(*p->find("main"));
  std::vector<std::string> paths;
  for (std::size_t id = 0; id < tree.size(); ++id) paths.push_back(tree.path(id));
  CHECK(paths == std::vector<std::string>{
                     "body", "body.stmts[0]", "body.stmts[1]", "body.stmts[1].then_body",
                     "body.stmts[1].then_body.stmts[0]", "body.stmts[1].then_body.stmts[0].body",
                     "body.stmts[1].then_body.stmts[0].body.stmts[0]",
                     "body.stmts[1].then_body.stmts[0].body.stmts[0].body",
                     "body.stmts[1].then_body.stmts[0].body.stmts[0].body.stmts[0]"});
  const std::size_t last = tree.size() - 1;
  CHECK(ir::isa<ir::AssignStmt>(tree.stmt(last)));
  CHECK(tree.enclosing<ir::SplitAivScopeStmt>(last) == 6);
  CHECK(tree.enclosing<ir::InCoreScopeStmt>(last) == 4);
  CHECK(tree.enclosing<ir::InCoreScopeStmt>(4) == tf::StmtTree::npos);  // not itself
  CHECK(tree.enclosing<ir::ClusterScopeStmt>(last) == tf::StmtTree::npos);
  CHECK(tree.where(4).find("body.stmts[1].then_body.stmts[0] (") == 0);  // with line:column
}

// ---- SplitIncoreOrch ---------------------------------------------------------------------------

TEST_CASE("SplitIncoreOrch: holds once every InCore scope is a function and a call") {
  check_holds(tf::find_split_incore_orch_violation, kOutlined);
}

TEST_CASE("SplitIncoreOrch: a scope left in a host function names the function and the scope") {
  check_violation(tf::find_split_incore_orch_violation, R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.tensor.add(x, x)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="fused"):
            z = pl.tensor.add(y, y)
        return z
)",
                  {"main: the InCoreScopeStmt 'fused' at body.stmts[1] (", "was not outlined"});
}

TEST_CASE("SplitIncoreOrch: nested InCore scopes (NoNestedInCore) are reported before leftovers") {
  // In another InCore scope: `a` has a plain leftover, but the nesting in `b` is reported.
  check_violation(tf::find_split_incore_orch_violation, R"(
@pl.program
class P:
    @pl.function
    def a(self, x: pl.Tensor[[64], pl.FP32]):
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.tensor.add(x, x)

    @pl.function
    def b(self, x: pl.Tensor[[64], pl.FP32]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="outer"):
            y = pl.tensor.add(x, x)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="inner"):
                z = pl.tensor.add(y, y)
)",
                  {"b: the InCoreScopeStmt 'inner' at body.stmts[0].body.stmts[1]",
                   "nested in the InCoreScopeStmt 'outer' at body.stmts[0]", "NoNestedInCore"});
  // In a kernel function.
  for (std::string_view type : {"InCore", "AIC", "AIV"}) {
    CAPTURE(type);
    check_violation(tf::find_split_incore_orch_violation, one_function(type, R"(
    def k(self, x: pl.Tensor[[64], pl.FP32]):
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.tensor.add(x, x)
)"),
                    {"k: the InCoreScopeStmt at body.stmts[0]",
                     "inside " + std::string(type) + " function 'k'", "NoNestedInCore"});
  }
}

// ---- ClusterOutlined ---------------------------------------------------------------------------

TEST_CASE("ClusterOutlined: holds with Group and Spmd functions and no cluster or host spmd") {
  check_holds(tf::find_cluster_outlined_violation, R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.tensor.add(x, x)
        return y

    @pl.function(type=pl.FunctionType.Group)
    def main_cluster_0(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = self.k(x)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = self.main_cluster_0(x)
        return y
)");
  // SplitIncoreOrch holds before cluster outlining too: the cluster body calls a kernel.
  check_holds(tf::find_split_incore_orch_violation, R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]):
        with pl.cluster():
            y = pl.tensor.add(x, x)
)");
}

TEST_CASE("ClusterOutlined: a cluster scope left in a host function") {
  check_violation(
      tf::find_cluster_outlined_violation, R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]):
        y = pl.tensor.add(x, x)
        with pl.cluster(name_hint="grp"):
            z = pl.tensor.add(y, y)
)",
      {"main: the ClusterScopeStmt 'grp' at body.stmts[1]", "was not outlined", "Function(Group)"});
}

TEST_CASE("ClusterOutlined: a standalone spmd scope left in an Opaque or Orchestration function") {
  for (std::string_view type : {"Opaque", "Orchestration"}) {
    CAPTURE(type);
    check_violation(tf::find_cluster_outlined_violation, one_function(type, R"(
    def main(self, x: pl.Tensor[[64], pl.FP32]):
        with pl.spmd(4):
            y = pl.tensor.add(x, x)
)"),
                    {"main: the SpmdScopeStmt at body.stmts[0]",
                     "still in " + std::string(type) + " function 'main'", "Function(Spmd)"});
  }
}

TEST_CASE("ClusterOutlined: a cluster inside an InCore function is reported first") {
  check_violation(tf::find_cluster_outlined_violation, R"(
@pl.program
class P:
    @pl.function
    def a(self, x: pl.Tensor[[64], pl.FP32]):
        with pl.spmd(4):
            y = pl.tensor.add(x, x)

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32]):
        with pl.cluster():
            y = pl.tensor.add(x, x)
)",
                  {"k: the ClusterScopeStmt at body.stmts[0]", "inside InCore function 'k'"});
}

// ---- NoScalarKernelReturn ----------------------------------------------------------------------

TEST_CASE("NoScalarKernelReturn: holds for tensor kernels and for scalar host returns") {
  check_holds(tf::find_no_scalar_kernel_return_violation, kOutlined);
  for (std::string_view type : {"Opaque", "Orchestration", "Graph", "Inline"}) {
    CAPTURE(type);
    check_holds(tf::find_no_scalar_kernel_return_violation, one_function(type, R"(
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        m = n * 32
        return m
)"));
  }
}

TEST_CASE("NoScalarKernelReturn: a device function returning a scalar names it and the index") {
  for (std::string_view type : {"InCore", "AIC", "AIV", "Group", "Spmd"}) {
    CAPTURE(type);
    check_violation(tf::find_no_scalar_kernel_return_violation, one_function(type, R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Scalar[pl.INDEX]]:
        off = n * 32
        return (x, off)
)"),
                    {"k: return type 1 is pl.Scalar[pl.INDEX]",
                     std::string(type) + " function 'k' cannot return a scalar"});
  }
}

TEST_CASE("NoScalarKernelReturn: a scalar nested in a tuple, TASK_ID included") {
  check_violation(tf::find_no_scalar_kernel_return_violation, R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Spmd)
    def s(self, x: pl.Tensor[[64], pl.FP32]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tuple[pl.Tensor[[64], pl.FP32], pl.Scalar[pl.TASK_ID]]]:
        ...
)",
                  {"s: return type 1, element 1 is pl.Scalar[pl.TASK_ID]",
                   "Spmd function 's' cannot return a scalar"});
}

// ---- ReturnParamsExplicit ----------------------------------------------------------------------

TEST_CASE("ReturnParamsExplicit: holds when kernels return the parameter or a fresh buffer") {
  check_holds(return_params_violation, kOutlined);
  check_holds(return_params_violation, R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
        t = pl.tile.load(x, [0], [64])
        buf = pl.tensor.create([64], dtype=pl.FP32)
        local = pl.tile.store(t, [0], buf)
        sum = pl.tensor.add(x, x)
        for i, (acc,) in pl.range(4, init_values=(x,)):
            fresh = pl.tensor.add(acc, acc)
            acc_rv = pl.yield_(fresh)
        return (local, sum, acc_rv)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.tile.load(x, [0], [64])
        stored = pl.tile.store(t, [0], x)
        return stored
)");
}

TEST_CASE("ReturnParamsExplicit: returning the store result instead of the parameter") {
  check_violation(return_params_violation, R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, a: pl.Tensor[[32, 32], pl.FP32], o: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        ta = pl.tile.load(a, [0, 0], [32, 32])
        o_1 = pl.tile.store(ta, [0, 0], o)
        return o_1
)",
                  {"main_incore_0: return value 0 'o_1'", "ReturnStmt at body.stmts[2]",
                   "parameter 1 'o'", "return 'o' itself"});
  // Through two writes (tensor.assemble reads its effects from the registry too).
  check_violation(return_params_violation, R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, src: pl.Tensor[[16], pl.FP32], o: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        o_1 = pl.tensor.assemble(o, src, [0])
        o_2 = pl.tensor.assemble(o_1, src, [16])
        return o_2
)",
                  {"k: return value 0 'o_2'", "parameter 1 'o'"});
}

TEST_CASE("ReturnParamsExplicit: through a callee's Out slot, a tuple item and a loop carry") {
  constexpr std::string_view kernels = R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.tile.load(x, [0], [64])
        s = pl.tile.store(t, [0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def pair(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
        fresh = pl.tensor.add(x, x)
        t = pl.tile.load(x, [0], [64])
        s = pl.tile.store(t, [0], out)
        return (fresh, out)
)";
  check_violation(return_params_violation, std::string(kernels) + R"(
    @pl.function(type=pl.FunctionType.Group)
    def g(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        r = self.k(x, o)
        return r
)",
                  {"g: return value 0 'r'", "parameter 1 'o'"});
  check_violation(return_params_violation, std::string(kernels) + R"(
    @pl.function(type=pl.FunctionType.Spmd)
    def g(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
        rr = self.pair(x, o)
        a = rr[0]
        b = rr[1]
        return (a, b)
)",
                  {"g: return value 1 'b'", "parameter 1 'o'"});
  check_holds(return_params_violation, std::string(kernels) + R"(
    @pl.function(type=pl.FunctionType.Spmd)
    def g(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
        rr = self.pair(x, o)
        a = rr[0]
        return (a, o)
)");
  check_violation(return_params_violation, R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.tile.load(x, [0], [64])
        for i, (acc,) in pl.range(4, init_values=(out,)):
            s = pl.tile.store(t, [0], acc)
            acc_rv = pl.yield_(s)
        return acc_rv
)",
                  {"k: return value 0 'acc_rv'", "parameter 1 'out'"});
}

TEST_CASE("return lineage: what aliases a parameter and what does not") {
  const ir::ProgramRef p = parse(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
        t = pl.tile.load(x, [0], [64])
        copy = out
        s = pl.tile.store(t, [0], copy)
        fresh = pl.tensor.add(x, x)
        if n < 2:
            s2 = pl.tile.store(t, [0], s)
            both = pl.yield_(s2)
        else:
            both = pl.yield_(s)
        if n < 3:
            mixed = pl.yield_(s)
        else:
            mixed = pl.yield_(fresh)
        for i, (acc,) in pl.range(4, init_values=(s,)):
            for j, (acc2,) in pl.range(4, init_values=(acc,)):
                w = pl.tile.store(t, [0], acc2)
                acc2_rv = pl.yield_(w)
            acc_rv = pl.yield_(acc2_rv)
        for i2, (c,) in pl.range(4, init_values=(out,)):
            nw = pl.tensor.add(c, c)
            c_rv = pl.yield_(nw)
        for i3, (d,) in pl.range(4, init_values=(out,)):
            for j3, (d2,) in pl.range(4, init_values=(d,)):
                w3 = pl.tile.store(t, [0], d2)
                d2_rv = pl.yield_(w3)
            f3 = pl.tensor.add(d2_rv, d2_rv)
            d_rv = pl.yield_(f3)
        for (wc, m) in pl.while_(init_values=(out, 0)):
            pl.cond(m < n)
            ws = pl.tile.store(t, [0], wc)
            wc_rv, m_rv = pl.yield_(ws, m + 1)
        return (fresh, s)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        r = self.k(a, b, 1)
        r0 = r[0]
        r1 = r[1]
        sub = pl.submit(self.k, a, b, 1)
        sub1 = sub[1]
        return r1

    @pl.function(type=pl.FunctionType.Orchestration)
    def pass_on(self, a: pl.Tensor[[64], pl.FP32], b: pl.Out[pl.Tensor[[64], pl.FP32]]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
        return self.k(a, b, 1)

    @pl.function(type=pl.FunctionType.Orchestration)
    def pass_named(self, a: pl.Tensor[[64], pl.FP32], b: pl.Out[pl.Tensor[[64], pl.FP32]]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
        both = self.k(a, b, 1)
        return both
)");
  const ir::Function& k = *p->find("k");
  tf::ReturnLineage lineage(p.get());
  auto of = [&](const ir::Function& fn, std::string_view name) {
    CAPTURE(name);
    return lineage.param_of(fn, defined_var(fn, name));
  };
  CHECK(lineage.param_of(k, *k.params[1]) == 1);
  CHECK(of(k, "copy") == 1);
  CHECK(of(k, "s") == 1);
  CHECK(of(k, "t") == std::nullopt);      // a load computes a tile
  CHECK(of(k, "fresh") == std::nullopt);  // a computing op allocates
  CHECK(of(k, "both") == 1);              // every arm yields `out`'s buffer
  CHECK(of(k, "mixed") == std::nullopt);  // one arm yields a fresh buffer
  CHECK(of(k, "acc2_rv") == 1);           // nested carries, stores into the carry
  CHECK(of(k, "acc_rv") == 1);
  CHECK(of(k, "c_rv") == std::nullopt);  // the body yields a fresh buffer into the carry
  CHECK(of(k, "nw") == std::nullopt);
  // The outer carry is refuted (it yields a fresh buffer), so the inner one, seeded from it,
  // keeps no parameter either: a second pass settles it.
  CHECK(of(k, "d_rv") == std::nullopt);
  CHECK(of(k, "d2_rv") == std::nullopt);
  CHECK(of(k, "w3") == std::nullopt);
  CHECK(of(k, "wc_rv") == 1);            // a while loop carries like a for loop
  CHECK(of(k, "m_rv") == std::nullopt);  // a scalar seeded by a constant
  CHECK(lineage.returned_params(k) ==
        std::vector<std::optional<std::size_t>>{std::nullopt, std::size_t{1}});
  // Callers: a tuple item of a call or a submit resolves through the callee's Out slot.
  const ir::Function& main = *p->find("main");
  CHECK(of(main, "r0") == std::nullopt);
  CHECK(of(main, "r1") == 1);
  CHECK(of(main, "sub1") == 1);
  CHECK(of(main, "r") == std::nullopt);  // the whole tuple is no single buffer
  // A function returning a call's whole tuple returns the callee's results, slot by slot.
  for (const char* name : {"pass_on", "pass_named"}) {
    CAPTURE(name);
    CHECK(lineage.returned_params(*p->find(name)) ==
          std::vector<std::optional<std::size_t>>{std::nullopt, std::size_t{1}});
  }
  // Without the program, callees are unknown; the free function is the one-shot form.
  CHECK(tf::return_lineage(main, defined_var(main, "r1")) == std::nullopt);
  CHECK(tf::return_lineage(main, defined_var(main, "r1"), p.get()) == 1);
}

TEST_CASE("return lineage: an In slot, an op writing two arguments and recursion stop the walk") {
  ir::OpRegistry ops = ir::standard_op_registry();
  // A made-up op that writes both of its arguments: its result is neither for sure.
  ops.add({"test.swap",
           {{"a", ir::ArgEffect::Write}, {"b", ir::ArgEffect::ReadWrite}},
           {},
           [](std::string_view, const std::vector<ir::ExprRef>& args, const ir::Attrs&) {
             return args[0]->type;
           }});
  auto x = ir::Var::make(
      "x", ir::TensorType::make(pypto::core::DataType::FP32, {ir::ConstInt::make(64)}));
  auto y = ir::Var::make("y", x->type);
  auto z = ir::Var::make("z", x->type);
  auto swap = ops.make_call("test.swap", {x, y});
  auto f = ir::Function::make(
      "f", {{x, ir::ParamDirection::InOut}, {y, ir::ParamDirection::InOut}}, {x->type},
      ir::SeqStmts::make({ir::AssignStmt::make(z, swap), ir::ReturnStmt::make({z})}),
      ir::FunctionType::InCore);
  CHECK(tf::return_lineage(*f, *z, nullptr, ops) == std::nullopt);

  const ir::ProgramRef p = parse(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def id(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Group)
    def loop(self, x: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        r = self.loop(x)
        return r

    @pl.function(type=pl.FunctionType.Group)
    def g(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        r = self.id(x)
        return r
)");
  tf::ReturnLineage lineage(p.get());
  const ir::Function& id = *p->find("id");
  CHECK(lineage.returned_params(id) == std::vector<std::optional<std::size_t>>{std::size_t{0}});
  const ir::Function& g = *p->find("g");
  CHECK(lineage.param_of(g, defined_var(g, "r")) == std::nullopt);  // `id` returns an In slot
  const ir::Function& loop = *p->find("loop");
  CHECK(lineage.param_of(loop, defined_var(loop, "r")) == std::nullopt);
  CHECK_FALSE(tf::find_return_params_explicit_violation(*p));
}

// ---- AivSplitValid -----------------------------------------------------------------------------

namespace {

/// An InCore function `k` with `attrs` and a region per mode in `modes`.
std::string incore_with_regions(std::string_view attrs, const std::vector<std::string>& modes) {
  std::string text = one_function("InCore", "    def k(self, x: pl.Tensor[[64], pl.FP32]):\n");
  if (!attrs.empty()) text += "        pl.func_attr(" + std::string(attrs) + ")\n";
  for (const std::string& mode : modes)
    text += "        for aiv in pl.split_aiv(2, mode=pl.SplitMode." + mode +
            "):\n            y = pl.tensor.add(x, x)\n";
  if (modes.empty()) text += "        y = pl.tensor.add(x, x)\n";
  return text;
}

}  // namespace

TEST_CASE("AivSplitValid: holds for seed 002's attr table and for regions in InCore scopes") {
  const Verifier verify = tf::find_aiv_split_valid_violation;
  check_holds(verify, incore_with_regions(R"({"split_aiv": True, "split": pl.SplitMode.UP_DOWN})",
                                          {"UP_DOWN", "UP_DOWN"}));
  check_holds(verify,
              incore_with_regions(R"({"split_aiv": True, "split": pl.SplitMode.LEFT_RIGHT})",
                                  {"LEFT_RIGHT"}));
  check_holds(verify, incore_with_regions(R"({"split_aiv": True})", {"NONE", "NONE"}));
  check_holds(verify, incore_with_regions(R"({"split_aiv": True})", {"UP_DOWN", "LEFT_RIGHT"}));
  check_holds(verify, incore_with_regions(R"({"split_aiv": True})", {"UP_DOWN", "NONE"}));
  // No regions: an AUTO split's attr alone is fine.
  check_holds(verify, incore_with_regions(R"({"split": pl.SplitMode.UP_DOWN})", {}));
  // Before outlining: a region in an InCore scope of a host function, with no AUTO split.
  check_holds(verify, R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]):
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                y = pl.tensor.add(x, x)
        for b in pl.spmd(4):
            for aiv in pl.split_aiv(2):
                z = pl.tensor.add(x, x)
)");
  // AIC / AIV functions may hold regions; their attrs are not the outliner's table.
  check_holds(verify, R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[64], pl.FP32]):
        for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            y = pl.tensor.add(x, x)
)");
}

TEST_CASE("AivSplitValid: a region outside any InCore scope or kernel") {
  for (std::string_view type : {"Opaque", "Orchestration", "Group", "Spmd", "Graph"}) {
    CAPTURE(type);
    check_violation(tf::find_aiv_split_valid_violation, one_function(type, R"(
    def main(self, x: pl.Tensor[[64], pl.FP32]):
        y = pl.tensor.add(x, x)
        for aiv in pl._dump.split_aiv(2, mode=pl.SplitMode.UP_DOWN, name_hint="halves"):
            z = pl.tensor.add(y, y)
)"),
                    {"main: the SplitAivScopeStmt 'halves' at body.stmts[1]",
                     "outside any InCore scope, in " + std::string(type) + " function 'main'"});
    // Written `pl.split_aiv`, the region reads back inside an InCore scope of its own.
    check_holds(tf::find_aiv_split_valid_violation, one_function(type, R"(
    def main(self, x: pl.Tensor[[64], pl.FP32]):
        for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN, name_hint="halves"):
            z = pl.tensor.add(x, x)
)"));
  }
  // A cluster or spmd scope is not an InCore scope.
  check_violation(
      tf::find_aiv_split_valid_violation, R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]):
        with pl.cluster():
            for aiv in pl._dump.split_aiv(2):
                z = pl.tensor.add(x, x)
)",
      {"main: the SplitAivScopeStmt at body.stmts[0].body.stmts[0]", "outside any InCore scope"});
}

TEST_CASE("AivSplitValid: nested regions") {
  check_violation(tf::find_aiv_split_valid_violation, R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32]):
        pl.func_attr({"split_aiv": True, "split": pl.SplitMode.UP_DOWN})
        for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN, name_hint="outer"):
            for aiv2 in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN, name_hint="inner"):
                y = pl.tensor.add(x, x)
)",
                  {"k: the SplitAivScopeStmt 'inner' at body.stmts[0].body.stmts[0]",
                   "nested in the SplitAivScopeStmt 'outer' at body.stmts[0]"});
}

TEST_CASE("AivSplitValid: an AUTO split and explicit regions in one scope are exclusive") {
  check_violation(tf::find_aiv_split_valid_violation, R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            y = pl.tensor.add(x, x)
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                z = pl.tensor.add(y, y)
)",
                  {"main: the InCoreScopeStmt 'k' at body.stmts[0]",
                   "AUTO split (optimizations=[pl.split(pl.SplitMode.UP_DOWN)])",
                   "SplitAivScopeStmt at body.stmts[0].body.stmts[1]", "mutually exclusive"});
}

TEST_CASE("AivSplitValid: an InCore function's split attrs disagreeing with its regions") {
  const Verifier verify = tf::find_aiv_split_valid_violation;
  check_violation(verify, incore_with_regions("", {"UP_DOWN"}),
                  {"k: holds split_aiv regions (first: the SplitAivScopeStmt at body.stmts[0]",
                   "attr split_aiv is absent"});
  check_violation(verify, incore_with_regions(R"({"split_aiv": False})", {"NONE"}),
                  {"k: holds split_aiv regions", "attr split_aiv is not True"});
  check_violation(verify, incore_with_regions(R"({"split_aiv": True})", {}),
                  {"k: attr split_aiv is set but the body holds no split_aiv region"});
  check_violation(verify, incore_with_regions(R"({"split_aiv": True})", {"UP_DOWN", "UP_DOWN"}),
                  {"k: every split_aiv region has mode UP_DOWN",
                   "attr split must be pl.SplitMode.UP_DOWN; it is absent"});
  check_violation(
      verify,
      incore_with_regions(R"({"split_aiv": True, "split": pl.SplitMode.LEFT_RIGHT})", {"UP_DOWN"}),
      {"k: every split_aiv region has mode UP_DOWN", "it is pl.SplitMode.LEFT_RIGHT"});
  check_violation(
      verify,
      incore_with_regions(R"({"split_aiv": True, "split": pl.SplitMode.UP_DOWN})",
                          {"UP_DOWN", "LEFT_RIGHT"}),
      {"k: its split_aiv regions have different modes (UP_DOWN in the SplitAivScopeStmt at "
       "body.stmts[0]",
       "LEFT_RIGHT in the SplitAivScopeStmt at body.stmts[1]",
       "no split attr; it has split = pl.SplitMode.UP_DOWN"});
  check_violation(
      verify,
      incore_with_regions(R"({"split_aiv": True, "split": pl.SplitMode.UP_DOWN})", {"NONE"}),
      {"k: its split_aiv regions all have mode NONE", "no split attr"});
  check_violation(verify, incore_with_regions(R"({"split": 1})", {}),
                  {"k: attr split is not a pl.SplitMode"});
}

// ---- registration ------------------------------------------------------------------------------

TEST_CASE("outline properties: registered, and checked by verify_each at a pass boundary") {
  const tf::PropertyVerifiers verifiers = tf::standard_property_verifiers();
  for (Property p :
       {Property::SplitIncoreOrch, Property::ClusterOutlined, Property::NoScalarKernelReturn,
        Property::ReturnParamsExplicit, Property::AivSplitValid}) {
    CAPTURE(tf::property_name(p));
    CHECK(verifiers.has(p));
    CHECK_FALSE(verifiers.check(p, *parse(kOutlined)));
  }
  tf::PassManagerOptions options;
  options.instruments.push_back(tf::verify_each_instrument());
  tf::PassManager manager(
      {tf::Pass("liar", {}, {Property::SplitIncoreOrch}, {},
                [](const ir::Program& p) -> ir::ProgramRef { return ir::ProgramRef(&p); })},
      std::move(options));
  const ir::ProgramRef scoped = parse(R"(
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]):
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.tensor.add(x, x)
)");
  try {
    manager.run(*scoped);
    FAIL("expected PassVerificationError");
  } catch (const tf::PassVerificationError& e) {
    CHECK(e.check() == "SplitIncoreOrch");
    CHECK(std::string(e.what()).find("main: the InCoreScopeStmt at body.stmts[0]") !=
          std::string::npos);
  }
}

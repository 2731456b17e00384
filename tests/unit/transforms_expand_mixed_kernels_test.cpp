// Tests of pypto/transforms/expand_mixed_kernels.hpp (issue 8: a Group runs as one mixed task, so
// its members take one argument list). Each case is a program in the text format, the pass (run
// by the pass manager with verify-each) and the expected program, compared structurally — or the
// typed error, which names the Group, the member, the argument and line:column.
#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "pypto/structural/compare.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/transforms/expand_mixed_kernels.hpp"
#include "pypto/transforms/pass_instruments.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"

namespace tf = pypto::transforms;
namespace ir = pypto::ir;
using ir::ProgramRef;

namespace {

ProgramRef parse(std::string_view text) { return pypto::text::parse_program(text); }

ProgramRef expand(const ProgramRef& before) {
  tf::PassManagerOptions options;
  options.instruments.push_back(tf::verify_each_instrument());
  options.initial_properties = {tf::Property::SSAForm, tf::Property::SplitIncoreOrch,
                                tf::Property::ClusterOutlined};
  return tf::PassManager(tf::standard_passes().pipeline("expand-mixed-kernels"), std::move(options))
      .run(*before);
}

void check_expand(std::string_view before, std::string_view expected) {
  ProgramRef after = expand(parse(before));
  INFO(pypto::text::print(*after));
  pypto::structural::assert_structural_equal(after, parse(expected),
                                             /*enable_auto_mapping=*/true);
}

std::string expand_error(std::string_view before) {
  try {
    expand(parse(before));
  } catch (const tf::MixedKernelError& e) {
    return e.what();
  }
  FAIL("no MixedKernelError");
  return {};
}

// The cube and vector kernels of group_aic_aiv.pl, each with the parameters its scope used, and
// the same kernels taking the Group's parameters (a, w, c, bias, o).
constexpr std::string_view kCubeBody = R"(
        ta: pl.Tile[[16, 32], pl.FP32] = pl.tile.load(a, [0, 0], [16, 32])
        tw: pl.Tile[[32, 16], pl.FP32] = pl.tile.load(w, [0, 0], [32, 16])
        pl.tile.store(pl.tile.matmul(ta, tw), [0, 0], c)
        return c
)";
constexpr std::string_view kCube = R"(
    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, a: pl.Tensor[[16, 32], pl.FP32], w: pl.Tensor[[32, 16], pl.FP32], c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:)";
constexpr std::string_view kExpandedCube = R"(
    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, a: pl.Tensor[[16, 32], pl.FP32], w: pl.Tensor[[32, 16], pl.FP32], c: pl.Out[pl.Tensor[[16, 16], pl.FP32]], bias: pl.Tensor[[16, 16], pl.FP32], o: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:)";
constexpr std::string_view kVecBody = R"(
        tc: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(c, [0, 0], [16, 16])
        tb: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(bias, [0, 0], [16, 16])
        pl.tile.store(pl.tile.add(tc, tb), [0, 0], o)
        return o
)";
constexpr std::string_view kVec = R"(
    @pl.function(type=pl.FunctionType.AIV)
    def vec(self, c: pl.Tensor[[16, 16], pl.FP32], bias: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:)";
constexpr std::string_view kExpandedVec = R"(
    @pl.function(type=pl.FunctionType.AIV)
    def vec(self, a: pl.Tensor[[16, 32], pl.FP32], w: pl.Tensor[[32, 16], pl.FP32], c: pl.Tensor[[16, 16], pl.FP32], bias: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:)";

std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

const std::string kMembers = cat({kCube, kCubeBody, kVec, kVecBody});
const std::string kExpandedMembers = cat({kExpandedCube, kCubeBody, kExpandedVec, kVecBody});

constexpr std::string_view kMain = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], w: pl.Tensor[[32, 16], pl.FP32], c: pl.Out[pl.Tensor[[16, 16], pl.FP32]], bias: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        r: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.grp(a, w, c, bias, o)
        o_1: pl.Tensor[[16, 16], pl.FP32] = r[1]
        return o_1
)";

constexpr std::string_view kGroupHead = R"(
    @pl.function(type=pl.FunctionType.Group)
    def grp(self, a: pl.Tensor[[16, 32], pl.FP32], w: pl.Tensor[[32, 16], pl.FP32], c: pl.InOut[pl.Tensor[[16, 16], pl.FP32]], bias: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
)";

std::string program(std::string_view group_body, std::string_view members = kMembers,
                    std::string_view extra = {}) {
  std::string p = "import pypto.language as pl\n@pl.program\nclass P:";
  p.append(members).append(kGroupHead).append(group_body).append(kMain).append(extra);
  return p;
}

}  // namespace

TEST_CASE(
    "expand mixed kernels: members take the Group's parameters, a member's result is the "
    "buffer it returns") {
  // vec reads c1, the cube's result: the cube returns its parameter c, bound to the Group's c.
  check_expand(program(R"(
        c1: pl.Tensor[[16, 16], pl.FP32] = self.cube(a, w, c)
        r1: pl.Tensor[[16, 16], pl.FP32] = self.vec(c1, bias, o)
        return c, o
)"),
               program(R"(
        c1: pl.Tensor[[16, 16], pl.FP32] = self.cube(a, w, c, bias, o)
        r1: pl.Tensor[[16, 16], pl.FP32] = self.vec(a, w, c, bias, o)
        return c, o
)",
                       kExpandedMembers));
}

TEST_CASE("expand mixed kernels: a Group already passing its parameters is the same object") {
  const ProgramRef before = parse(program(R"(
        c1: pl.Tensor[[16, 16], pl.FP32] = self.cube(a, w, c, bias, o)
        r1: pl.Tensor[[16, 16], pl.FP32] = self.vec(a, w, c, bias, o)
        return c, o
)",
                                          kExpandedMembers));
  CHECK(expand(before).get() == before.get());
}

TEST_CASE("expand mixed kernels: a constant argument is substituted into the member") {
  constexpr std::string_view vec_body = R"(
        tc: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(c, [0, 0], [16, 16])
        pl.tile.store(pl.tile.mul(tc, s), [0, 0], o)
        return o
)";
  const std::string members = cat({kCube, kCubeBody, R"(
    @pl.function(type=pl.FunctionType.AIV)
    def vec(self, c: pl.Tensor[[16, 16], pl.FP32], s: pl.Scalar[pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:)",
                                   vec_body});
  std::string expanded_body(vec_body);
  expanded_body.replace(expanded_body.find("(tc, s)"), 7, "(tc, 0.5)");
  const std::string expanded = cat({kExpandedCube, kCubeBody, kExpandedVec, expanded_body});
  check_expand(program(R"(
        c1: pl.Tensor[[16, 16], pl.FP32] = self.cube(a, w, c)
        r1: pl.Tensor[[16, 16], pl.FP32] = self.vec(c1, 0.5, o)
        return c, o
)",
                       members),
               program(R"(
        c1: pl.Tensor[[16, 16], pl.FP32] = self.cube(a, w, c, bias, o)
        r1: pl.Tensor[[16, 16], pl.FP32] = self.vec(a, w, c, bias, o)
        return c, o
)",
                       expanded));
}

TEST_CASE("expand mixed kernels: a member called outside the Group gets a Group-private copy") {
  // `vec` is also launched by `other`: it keeps its signature there, the Group calls grp_vec.
  constexpr std::string_view other = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def other(self, c: pl.Tensor[[16, 16], pl.FP32], bias: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        o_1: pl.Tensor[[16, 16], pl.FP32] = self.vec(c, bias, o)
        return o_1
)";
  const std::string copy = cat({kExpandedVec, kVecBody});
  const std::string expected_members =
      cat({kExpandedCube, kCubeBody, std::string_view(copy).substr(0, copy.find("def vec")),
           "def grp_vec", std::string_view(copy).substr(copy.find("def vec") + 7), kVec, kVecBody});
  check_expand(program(R"(
        c1: pl.Tensor[[16, 16], pl.FP32] = self.cube(a, w, c)
        r1: pl.Tensor[[16, 16], pl.FP32] = self.vec(c1, bias, o)
        return c, o
)",
                       kMembers, other),
               program(R"(
        c1: pl.Tensor[[16, 16], pl.FP32] = self.cube(a, w, c, bias, o)
        r1: pl.Tensor[[16, 16], pl.FP32] = self.grp_vec(a, w, c, bias, o)
        return c, o
)",
                       expected_members, other));
}

TEST_CASE("expand mixed kernels: an element of a member's tuple result resolves through it") {
  constexpr std::string_view members = R"(
    @pl.function(type=pl.FunctionType.AIV)
    def both(self, a: pl.Tensor[[16, 16], pl.FP32], c: pl.Out[pl.Tensor[[16, 16], pl.FP32]], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(a, [0, 0], [16, 16])
        pl.tile.store(t, [0, 0], c)
        pl.tile.store(t, [0, 0], o)
        return c, o

    @pl.function(type=pl.FunctionType.AIV)
    def twice(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(x, [0, 0], [16, 16])
        pl.tile.store(pl.tile.add(t, t), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Group)
    def grp(self, a: pl.Tensor[[16, 16], pl.FP32], c: pl.InOut[pl.Tensor[[16, 16], pl.FP32]], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
)";
  constexpr std::string_view main = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], c: pl.Out[pl.Tensor[[16, 16], pl.FP32]], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        r: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.grp(a, c, o)
        o_1: pl.Tensor[[16, 16], pl.FP32] = r[1]
        return o_1
)";
  auto whole = [&](std::string_view members_text, std::string_view body) {
    std::string p = "import pypto.language as pl\n@pl.program\nclass P:";
    return p.append(members_text).append(body).append(main);
  };
  // twice(r[0], o): r[0] is the buffer `both` returns from c, so twice reads the Group's c.
  std::string expected(members);
  expected.replace(expected.find("def twice(self, "), 16,
                   "def twice(self, a: pl.Tensor[[16, 16], pl.FP32], ");
  check_expand(whole(members, R"(
        r: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.both(a, c, o)
        c1: pl.Tensor[[16, 16], pl.FP32] = r[0]
        o1: pl.Tensor[[16, 16], pl.FP32] = self.twice(c1, o)
        return c, o
)"),
               whole(expected, R"(
        r: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.both(a, c, o)
        c1: pl.Tensor[[16, 16], pl.FP32] = r[0]
        o1: pl.Tensor[[16, 16], pl.FP32] = self.twice(a, c, o)
        return c, o
)"));
}

TEST_CASE("expand mixed kernels: a value the Group computes is an error naming it") {
  const std::string members = cat({kCube, kCubeBody, R"(
    @pl.function(type=pl.FunctionType.AIV)
    def vec(self, c: pl.Tensor[[16, 16], pl.FP32], s: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        tc: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(c, [0, 0], [16, 16])
        pl.tile.store(tc, [0, 0], o)
        return o
)"});
  const std::string text = program(R"(
        c1: pl.Tensor[[16, 16], pl.FP32] = self.cube(a, w, c)
        n: pl.Scalar[pl.INDEX] = pl.tensor.dim(c1, 0)
        r1: pl.Tensor[[16, 16], pl.FP32] = self.vec(c1, n, o)
        return c, o
)",
                                   members);
  CHECK(expand_error(text) ==
        "expand-mixed-kernels: Group 'grp': 22:44: argument 1 of the call of 'vec' is a value "
        "the Group computes; a mixed task's kernels take only the Group's parameters");
}

TEST_CASE("expand mixed kernels: one kernel bound two ways in a Group gets a copy per binding") {
  // `lane` runs twice on different halves of the Group's parameters (two AIV lanes).
  constexpr std::string_view members = R"(
    @pl.function(type=pl.FunctionType.AIV)
    def lane(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(x, [0, 0], [16, 16])
        pl.tile.store(pl.tile.add(t, t), [0, 0], y)
        return y
)";
  constexpr std::string_view expanded = R"(
    @pl.function(type=pl.FunctionType.AIV)
    def lane(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]], x2: pl.Tensor[[16, 16], pl.FP32], y2: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(x, [0, 0], [16, 16])
        pl.tile.store(pl.tile.add(t, t), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.AIV)
    def grp_lane(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32], x2: pl.Tensor[[16, 16], pl.FP32], y2: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(x2, [0, 0], [16, 16])
        pl.tile.store(pl.tile.add(t, t), [0, 0], y2)
        return y2
)";
  auto whole = [](std::string_view members_text, std::string_view body) {
    std::string p = "import pypto.language as pl\n@pl.program\nclass P:";
    p.append(members_text).append(R"(
    @pl.function(type=pl.FunctionType.Group)
    def grp(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]], x2: pl.Tensor[[16, 16], pl.FP32], y2: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
)");
    p.append(body).append(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]], x2: pl.Tensor[[16, 16], pl.FP32], y2: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        r: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.grp(x, y, x2, y2)
        y_1: pl.Tensor[[16, 16], pl.FP32] = r[1]
        return y_1
)");
    return p;
  };
  check_expand(whole(members, R"(
        y1: pl.Tensor[[16, 16], pl.FP32] = self.lane(x, y)
        y3: pl.Tensor[[16, 16], pl.FP32] = self.lane(x2, y2)
        return y, y2
)"),
               whole(expanded, R"(
        y1: pl.Tensor[[16, 16], pl.FP32] = self.lane(x, y, x2, y2)
        y3: pl.Tensor[[16, 16], pl.FP32] = self.grp_lane(x, y, x2, y2)
        return y, y2
)"));
}

TEST_CASE("expand mixed kernels: a sibling's peer_func follows the Group-private copy") {
  // `vec` is also launched by `other`, so the Group gets grp_vec; the cube names its peer by it.
  auto with_peer = [](std::string members_text, std::string_view peer) {
    const std::string store = "        pl.tile.store(pl.tile.matmul(ta, tw), [0, 0], c)\n";
    members_text.insert(members_text.find(store),
                        "        p = pl.system.import_peer_buffer(name=\"buf\", peer_func=\"" +
                            std::string(peer) + "\")\n");
    return members_text;
  };
  constexpr std::string_view other = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def other(self, c: pl.Tensor[[16, 16], pl.FP32], bias: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        o_1: pl.Tensor[[16, 16], pl.FP32] = self.vec(c, bias, o)
        return o_1
)";
  const std::string before = program(R"(
        c1: pl.Tensor[[16, 16], pl.FP32] = self.cube(a, w, c)
        r1: pl.Tensor[[16, 16], pl.FP32] = self.vec(c1, bias, o)
        return c, o
)",
                                     with_peer(kMembers, "vec"), other);
  const ProgramRef after = expand(parse(before));
  INFO(pypto::text::print(*after));
  const std::string printed = pypto::text::print(*after->find("cube"));
  CHECK(printed.find("peer_func='grp_vec'") != std::string::npos);
  REQUIRE(after->find("grp_vec"));
  CHECK(after->find("vec")->params.size() == 3);  // the other caller's kernel is unchanged
  CHECK(after->find("grp_vec")->params.size() == 5);
}

// Tests of pypto/text/parser.hpp: programs in the pl DSL read into IR, the lossless round trip
// parse(print(p)) == p (seed 003), the upstream source form, exact dtypes, annotations checked
// against inferred types, and ParseErrors with line:column for bad input.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "pypto/ir.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"
#include "random_ir.hpp"

namespace {

using namespace pypto;
using namespace pypto::ir;
using core::DataType;
using text::parse_program;
using text::ParseError;

/// The one function of a parsed program.
FunctionRef only_function(const ProgramRef& p) {
  REQUIRE(p->functions.size() == 1);
  return p->functions[0].function;
}

/// The statements of a function body (a SeqStmts).
const std::vector<StmtRef>& body_of(const FunctionRef& f) {
  const auto* seq = as<SeqStmts>(f->body.get());
  REQUIRE(seq != nullptr);
  return seq->stmts;
}

/// Parses `text` expecting a ParseError at line:column whose message contains `what`.
void expect_parse_error(const std::string& text, std::uint32_t line, std::uint32_t column,
                        const std::string& what) {
  CAPTURE(text);
  try {
    parse_program(text);
    FAIL("no ParseError");
  } catch (const ParseError& e) {
    const std::string message = e.what();
    CAPTURE(message);
    CHECK(e.line() == line);
    CHECK(e.column() == column);
    CHECK(std::string(e.what()).find(what) != std::string::npos);
  }
}

constexpr const char* kDemo = R"(# pypto.program: Demo
import pypto.language as pl

@pl.program
class Demo:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, a: pl.Tensor[[32, 32], pl.FP32], o: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        t: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 32])
        o_1: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(t, [0, 0], o)
        return o_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], o: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        o_1: pl.Tensor[[32, 32], pl.FP32] = self.main_incore_0(a, o)
        return o_1
)";

TEST_CASE("parser: the printed program reads back, printing it again gives the same text") {
  const ProgramRef p = parse_program(kDemo);
  REQUIRE(p->functions.size() == 2);
  const FunctionRef kernel = p->find("main_incore_0");
  CHECK(kernel->func_type == FunctionType::InCore);
  CHECK(kernel->param_directions ==
        std::vector<ParamDirection>{ParamDirection::In, ParamDirection::Out});
  const auto& load = static_cast<const AssignStmt&>(*body_of(kernel)[0]);
  const auto* tile = as<TileType>(load.var->type.get());
  REQUIRE(tile != nullptr);
  CHECK(tile->memory_space == MemorySpace::Vec);
  // The call in main is typed by the callee's return type.
  const auto& call = static_cast<const AssignStmt&>(*body_of(p->find("main"))[0]);
  CHECK(isa<GlobalVar>(static_cast<const Call&>(*call.value).op));
  CHECK(text::print(p) == kDemo);
  CHECK_NOTHROW(text::check_round_trip(*p));
}

TEST_CASE("parser: round trip of thousands of random programs, annotated and concise") {
  const auto free = test::rir::FreeVars::make();
  for (std::uint64_t seed = 0; seed < 1500; ++seed) {
    CAPTURE(seed);
    const ProgramRef p = test::rir::generate_program(seed, free, {});
    REQUIRE_NOTHROW(text::check_round_trip(*p));
    // The round trip maps open references only: a different program stays different.
    const ProgramRef other = test::rir::generate_program(seed + 100'000, free, {});
    CHECK_FALSE(structural::structural_equal(NodeRef(text::reparse(*p)), NodeRef(other), true));
  }
}

TEST_CASE("parser: a round trip keeps definition relations and storage aliasing exact") {
  // Two loads through one allocation base, a third through another: the reparsed program
  // aliases exactly the same way (an implicit base per quoted name per function).
  const ProgramRef p = parse_program(R"(
@pl.program
class P:
    @pl.function
    def f(self, a: pl.Tensor[[16, 16], pl.FP32]):
        t0: pl.Tile[[16, 16], pl.FP32, pl.MemRef("base", 0, 1024)] = pl._dump.call(pl.tile.load, a, [0, 0], [16, 16], type=pl.Tile[[16, 16], pl.FP32, pl.MemRef("base", 0, 1024)])
        t1: pl.Tile[[16, 16], pl.FP32, pl.MemRef("base", 1024, 1024)] = pl._dump.call(pl.tile.load, a, [0, 0], [16, 16], type=pl.Tile[[16, 16], pl.FP32, pl.MemRef("base", 1024, 1024)])
        t2: pl.Tile[[16, 16], pl.FP32, pl.MemRef("other", 1024, 1024)] = pl._dump.call(pl.tile.load, a, [0, 0], [16, 16], type=pl.Tile[[16, 16], pl.FP32, pl.MemRef("other", 1024, 1024)])
)");
  const auto& stmts = body_of(only_function(p));
  auto base_of = [&](std::size_t i) {
    return static_cast<const ShapedType&>(*static_cast<const AssignStmt&>(*stmts[i]).var->type)
        .memref->base;
  };
  CHECK(base_of(0) == base_of(1));
  CHECK(base_of(0) != base_of(2));
  CHECK_NOTHROW(text::check_round_trip(*p));
  // Re-aliasing t1 onto "other" is a different program.
  const ProgramRef q =
      parse_program(text::print(p).replace(text::print(p).find("\"base\", 1024"), 6, "\"other\""));
  CHECK_FALSE(structural::structural_equal(NodeRef(p), NodeRef(q), true));
}

TEST_CASE("parser: a WindowBuffer binding keeps its storage fields through the text") {
  auto base = Var::make("B", PtrType::make());
  auto w = WindowBuffer::make("win", ConstInt::make(4096), base, true, false);
  auto free_w = WindowBuffer::make("shared", ConstInt::make(64));
  auto alloc = Call::make(Op::make("comm.alloc_window"), {}, WindowBufferType::make());
  auto use = Call::make(Op::make("comm.use"), {w, free_w}, UnknownType::make());
  auto f = Function::make("f", {{base}}, {},
                          SeqStmts::make({AssignStmt::make(w, alloc), EvalStmt::make(use)}));
  const ProgramRef p = Program::make("P", {f});
  std::string text = text::print(p);
  CHECK(text.find("win: pl._dump.WindowBuffer(4096, base=B, load_from_host=True) = ") !=
        std::string::npos);
  CHECK(text.find("shared__FREE_VAR: pl._dump.WindowBuffer(64)") != std::string::npos);
  CHECK_NOTHROW(text::check_round_trip(*p));
  CHECK_NOTHROW(text::check_round_trip(*p, {.concise = true}));
  // A different size is a different program after the round trip too.
  const ProgramRef q = parse_program(text.replace(text.find("4096"), 4, "2048"));
  CHECK_FALSE(structural::structural_equal(NodeRef(p), NodeRef(q), true));
}

TEST_CASE("parser: exact dtypes survive, a bare integer literal is INDEX") {
  const ProgramRef p = parse_program(R"(
@pl.program
class P:
    @pl.function
    def f(self, a: pl.Tensor[[pl.const(64, pl.INT64), 32], pl.FP16], n: pl.Scalar[pl.INT64]):
        x: pl.Scalar[pl.INT64] = n + 1
        y: pl.Scalar[pl.INDEX] = 7
        z: pl.Scalar[pl.FP16] = pl.const(0.5, pl.FP16)
)");
  const FunctionRef f = only_function(p);
  const auto& shape = static_cast<const TensorType&>(*f->params[0]->type).shape;
  CHECK(static_cast<const ConstInt&>(*shape[0]).dtype() == DataType::INT64);
  CHECK(static_cast<const ConstInt&>(*shape[1]).dtype() == DataType::INDEX);
  // `n + 1`: the bare literal takes the other operand's dtype.
  const auto& x = static_cast<const AssignStmt&>(*body_of(f)[0]);
  const auto& add = static_cast<const Add&>(*x.value);
  CHECK(static_cast<const ConstInt&>(*add.right).dtype() == DataType::INT64);
  const auto& z = static_cast<const AssignStmt&>(*body_of(f)[2]);
  CHECK(static_cast<const ConstFloat&>(*z.value).dtype() == DataType::FP16);
  CHECK_NOTHROW(text::check_round_trip(*p));
}

TEST_CASE("parser: the upstream source form (natural form, short op names, no annotations)") {
  const ProgramRef p = parse_program(R"(
import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class Source:
    @pl.function
    def kernel(self, x: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]):
        """Adds x to itself four times."""
        acc = pl.add(x, x)  # a short op name on tensors is tensor.add
        for i in pl.range(4):
            acc = pl.add(acc, x)
        t = pl.load(x, [0, 0], [16, 64])
        t = pl.mul(t, t)
        pl.store(t, [0, 0], out)
        n = 0
        n += 1
)");
  const FunctionRef f = only_function(p);
  CHECK(f->func_type == FunctionType::Opaque);
  const auto& stmts = body_of(f);
  REQUIRE(stmts.size() == 7);
  const auto& acc0 = static_cast<const AssignStmt&>(*stmts[0]);
  CHECK(static_cast<const Call&>(*acc0.value).op->name == "tensor.add");
  // Rebinding `acc` with the same type keeps one variable (the natural form ConvertToSSA reads).
  const auto& loop = static_cast<const ForStmt&>(*stmts[1]);
  const auto& acc1 =
      static_cast<const AssignStmt&>(*static_cast<const SeqStmts&>(*loop.body).stmts[0]);
  CHECK(acc1.var == acc0.var);
  // Tile operands resolve to tile ops; pl.store stands alone.
  const auto& mul = static_cast<const AssignStmt&>(*stmts[3]);
  CHECK(static_cast<const Call&>(*mul.value).op->name == "tile.mul");
  CHECK(static_cast<const Call&>(*static_cast<const EvalStmt&>(*stmts[4]).expr).op->name ==
        "tile.store");
  // `n += 1` is `n = n + 1` on the same variable.
  const auto& inc = static_cast<const AssignStmt&>(*stmts[6]);
  CHECK(inc.var == static_cast<const AssignStmt&>(*stmts[5]).var);
  CHECK(isa<Add>(inc.value));
  // The shape symbol is one variable everywhere.
  const auto& xt = static_cast<const TensorType&>(*f->params[0]->type);
  const auto& ot = static_cast<const TensorType&>(*f->params[1]->type);
  CHECK(xt.shape[0] == ot.shape[0]);
  CHECK_NOTHROW(text::check_round_trip(*p));
}

TEST_CASE("parser: programs written as upstream's documentation shows parse unchanged") {
  // The language guide's complete examples: a plain `def`, scalar dtypes as types, a loop
  // whose carried value is annotated INT64 while the literal is bare.
  const ProgramRef loop_sum = parse_program(R"(# pypto.program: my_program
import pypto.language as pl

def loop_sum(n: pl.INT64) -> pl.INT64:
    sum_init: pl.INT64 = 0
    for i, (sum,) in pl.range(n, init_values=(sum_init,)):
        sum = pl.yield_(sum + i)
    return sum
)");
  const FunctionRef f = only_function(loop_sum);
  CHECK(f->func_type == FunctionType::Opaque);
  const auto& loop = static_cast<const ForStmt&>(*body_of(f)[1]);
  CHECK(static_cast<const ScalarType&>(*loop.loop_var->type).dtype == DataType::INT64);
  CHECK(static_cast<const ScalarType&>(*loop.return_vars[0]->type).dtype == DataType::INT64);

  const ProgramRef block = parse_program(R"(import pypto.language as pl

@pl.program
class BlockExample:
    @pl.function
    def tile_add(
        self,
        input_a: pl.Tensor[[64, 64], pl.FP32],
        input_b: pl.Tensor[[64, 64], pl.FP32],
        output: pl.Tensor[[64, 64], pl.FP32],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        tile_a: pl.Tile[[64, 64], pl.FP32] = pl.load(input_a, [0, 0], [64, 64])
        tile_b: pl.Tile[[64, 64], pl.FP32] = pl.load(input_b, [0, 0], [64, 64])
        tile_c: pl.Tile[[64, 64], pl.FP32] = pl.add(tile_a, tile_b)
        result: pl.Tensor[[64, 64], pl.FP32] = pl.store(tile_c, [0, 0], output)
        return result
)");
  CHECK(static_cast<const Call&>(
            *static_cast<const AssignStmt&>(*body_of(only_function(block))[2]).value)
            .op->name == "tile.add");
  CHECK_NOTHROW(text::check_round_trip(*block));

  // Layout shorthand, builtins min/max, `^` on booleans, manual scope, pre-SSA while, and a
  // submit unpacked into result and task id.
  const ProgramRef misc = parse_program(R"(import pypto.language as pl

@pl.program
class Misc:
    @pl.function(type=pl.FunctionType.InCore)
    def stage(self, x: pl.Tensor[[64], pl.FP32, pl.NZ]) -> pl.Tensor[[64], pl.FP32, pl.NZ]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32, pl.NZ], n: pl.Scalar[pl.INT64], p: pl.Scalar[pl.BOOL]):
        m = min(n, 8)
        q = p ^ True
        x_init: pl.Scalar[pl.INT64] = 0
        for (v,) in pl.while_(init_values=(x_init,)):
            pl.cond(v < n)
            v = v + 1
        with pl.manual_scope():
            out, tid = pl.submit(self.stage, x)
            out2, _ = pl.submit(self.stage, out, deps=[tid])
        for b in pl.spmd(4, sync_start=True):
            t = pl.load(x, [b * 16], [16])
)");
  const FunctionRef stage = misc->find("stage");
  CHECK(static_cast<const TensorType&>(*stage->params[0]->type).tensor_view->layout ==
        TensorLayout::NZ);
  const auto& ms = body_of(misc->find("main"));
  CHECK(isa<Min>(static_cast<const AssignStmt&>(*ms[0]).value));
  CHECK(isa<Xor>(static_cast<const AssignStmt&>(*ms[1]).value));
  const auto& wl = static_cast<const WhileStmt&>(*ms[3]);
  CHECK(wl.return_vars.size() == 1);  // results named after the carried values
  CHECK(static_cast<const RuntimeScopeStmt&>(*ms[4]).manual);
  // `for b in pl.spmd(4)`: an Spmd scope around an InCore region that binds the block index.
  const auto& spmd = static_cast<const SpmdScopeStmt&>(*ms[5]);
  CHECK(spmd.sync_start);
  const auto& incore =
      static_cast<const InCoreScopeStmt&>(*static_cast<const SeqStmts&>(*spmd.body).stmts[0]);
  const auto& bind =
      static_cast<const AssignStmt&>(*static_cast<const SeqStmts&>(*incore.body).stmts[0]);
  CHECK(static_cast<const Call&>(*bind.value).op->name == "tile.get_block_idx");
  CHECK_NOTHROW(text::check_round_trip(*misc));
}

TEST_CASE("parser: the Before programs of upstream's outline tests (pl.incore, natural if)") {
  const ProgramRef p = parse_program(R"(import pypto.language as pl

@pl.program
class Before:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], cond: pl.Scalar[pl.BOOL]) -> pl.Tensor[[64], pl.FP32]:
        if cond:
            with pl.incore():
                y: pl.Tensor[[64], pl.FP32] = pl.add(x, x)  # type: ignore[no-redef]
        else:
            y: pl.Tensor[[64], pl.FP32] = pl.mul(x, x)  # type: ignore[no-redef,unreachable]
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def pair(self, x: pl.Tensor[[64], pl.FP32]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
        y: pl.Tensor[[64], pl.FP32] = pl.add(x, x)
        z: pl.Tensor[[64], pl.FP32] = pl.mul(x, x)
        return (y, z)

    @pl.function(type=pl.FunctionType.Orchestration)
    def use(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        ret = self.pair(x)
        y = ret[0]
        z = ret[1]
        result: pl.Tensor[[64], pl.FP32] = pl.add(y, z)
        return result
)");
  const auto& main_body = body_of(p->find("main"));
  const auto& branch = static_cast<const IfStmt&>(*main_body[0]);
  CHECK(isa<InCoreScopeStmt>(static_cast<const SeqStmts&>(*branch.then_body).stmts[0]));
  // Natural form: both arms assign the one variable `y` that the return reads.
  const auto& ret = static_cast<const ReturnStmt&>(*main_body[1]);
  const auto& else_y =
      static_cast<const AssignStmt&>(*static_cast<const SeqStmts&>(*branch.else_body).stmts[0]);
  CHECK(ret.values[0] == ExprRef(else_y.var));
  // `return (y, z)` returns two values, as in Python.
  CHECK(static_cast<const ReturnStmt&>(*body_of(p->find("pair"))[2]).values.size() == 2);
  CHECK_NOTHROW(text::check_round_trip(*p));
}

TEST_CASE("parser: an augmented assignment means what its binary operator means") {
  const ProgramRef p = parse_program(R"(
def f(p: pl.Scalar[pl.BOOL], n: pl.Scalar[pl.INT64]):
    q = p
    q ^= True
    n += 1
)");
  const auto& stmts = body_of(only_function(p));
  CHECK(isa<Xor>(static_cast<const AssignStmt&>(*stmts[1]).value));  // logical on booleans
  const auto& inc = static_cast<const Add&>(*static_cast<const AssignStmt&>(*stmts[2]).value);
  CHECK(static_cast<const ConstInt&>(*inc.right).dtype() == DataType::INT64);
}

TEST_CASE("parser: omitted views and memory spaces come from the inferred type, storage is exact") {
  const ProgramRef p = parse_program(R"(
@pl.program
class P:
    @pl.function
    def f(self, a: pl.Tensor[[16, 16], pl.FP32]):
        t: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        u: pl.Tile[[16, 16], pl.FP32, pl.MemRef("buf", 0, 1024)] = pl.tile.add(t, t)
)");
  const auto& stmts = body_of(only_function(p));
  const auto& t =
      static_cast<const TileType&>(*static_cast<const AssignStmt&>(*stmts[0]).var->type);
  CHECK(t.memory_space == MemorySpace::Mat);  // inherited
  CHECK(t.memref == nullptr);                 // "no allocation" stays exact
  const auto& u =
      static_cast<const TileType&>(*static_cast<const AssignStmt&>(*stmts[1]).var->type);
  CHECK(u.memref != nullptr);
  CHECK(u.memory_space == MemorySpace::Mat);
}

TEST_CASE("parser: an annotation contradicting the inferred type is an error at its line:column") {
  const std::string head =
      "@pl.program\nclass P:\n    @pl.function\n"
      "    def f(self, a: pl.Tensor[[16, 16], pl.FP32]):\n";
  expect_parse_error(head + "        b: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.add(a, a)\n", 5,
                     12, "annotated FP16, the value is FP32");
  expect_parse_error(head + "        b: pl.Tensor[[16, 8], pl.FP32] = pl.tensor.add(a, a)\n", 5, 12,
                     "dimension 1: annotated 8, the value has 16");
  expect_parse_error(head + "        b: pl.Tile[[16, 16], pl.FP32] = pl.tensor.add(a, a)\n", 5, 12,
                     "annotated TileType, the value is a TensorType");
  // Tuples are checked element by element.
  expect_parse_error(head + "        t: pl.Tuple[pl.INDEX, pl.FP32] = [1, 2]\n", 5, 12,
                     "annotated FP32, the value is INDEX");
}

TEST_CASE("parser: loops, ifs, while, scopes and region results") {
  const ProgramRef p = parse_program(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        for i, (acc, k) in pl.range(0, n, 2, init_values=(x, 0)):
            if i < 2:
                y, j = pl._dump.yield_(acc, k, types=[pl.Tensor[[64], pl.FP32], pl.Scalar[pl.INDEX]])
            else:
                y, j = pl.yield_(acc, i)
            r, s = pl.yield_(y, j)
        for (c,) in pl.while_(init_values=(0,)):
            pl.cond(c < n)
            c_rv: pl.Scalar[pl.INDEX] = pl.yield_(c + 1)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            z = pl.tensor.add(r, r)
        for aiv in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
            pass
        with pl.spmd(4, sync_start=True):
            pass
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            pass
        with pl.cluster():
            pass
        with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
            pass
        return z
)");
  const auto& stmts = body_of(only_function(p));
  const auto& loop = static_cast<const ForStmt&>(*stmts[0]);
  CHECK(loop.iter_args.size() == 2);
  CHECK(loop.return_vars.size() == 2);
  const auto& branch =
      static_cast<const IfStmt&>(*static_cast<const SeqStmts&>(*loop.body).stmts[0]);
  CHECK(branch.return_vars.size() == 2);
  CHECK(isa<WhileStmt>(stmts[1]));
  CHECK(static_cast<const InCoreScopeStmt&>(*stmts[2]).split == SplitMode::UpDown);
  // A split_aiv region outside an InCore scope is a kernel of its own: it reads back wrapped.
  const auto* wrapper = as<InCoreScopeStmt>(stmts[3].get());
  REQUIRE(wrapper);
  CHECK(wrapper->split == SplitMode::None);
  CHECK(isa<SplitAivScopeStmt>(static_cast<const SeqStmts&>(*wrapper->body).stmts[0]));
  CHECK(static_cast<const SpmdScopeStmt&>(*stmts[4]).sync_start);
  CHECK(static_cast<const RuntimeScopeStmt&>(*stmts[5]).manual);
  CHECK(isa<ClusterScopeStmt>(stmts[6]));
  CHECK(static_cast<const HierarchyScopeStmt&>(*stmts[7]).role == Role::Orchestrator);
  CHECK_NOTHROW(text::check_round_trip(*p));
}

TEST_CASE("parser: submit, self calls with attrs, a runtime-bound declaration, func_attr") {
  const ProgramRef p = parse_program(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        pl.func_attr({"priority": 2})
        ...

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[8], pl.FP32], flag: pl.Scalar[pl.BOOL]):
        t0 = pl.submit(self.k, a, core_num=4, sync_start=True, predicate=flag)
        tid = t0[1]
        t1 = pl.submit(self.k, a, deps=[tid], allow_early_resolve=True)
        r = self.k(a, attrs={"arg_directions": [pl.adir.input]})
)");
  const FunctionRef k = p->find("k");
  CHECK(k->requires_runtime_binding);
  CHECK(k->attrs.get<std::int64_t>("priority") == 2);
  const auto& stmts = body_of(p->find("main"));
  const auto& s0 = static_cast<const Submit&>(*static_cast<const AssignStmt&>(*stmts[0]).value);
  CHECK(s0.sync_start);
  CHECK(s0.core_num != nullptr);
  const auto& tt = static_cast<const TupleType&>(*s0.type);
  CHECK(tt.types.size() == 2);  // the callee's result, then the task id
  const auto& s1 = static_cast<const Submit&>(*static_cast<const AssignStmt&>(*stmts[2]).value);
  CHECK(s1.deps.size() == 1);
  CHECK(s1.allow_early_resolve);
  CHECK_NOTHROW(text::check_round_trip(*p));
}

TEST_CASE("parser: function attrs from the decorator and the pl.func_attr prologue merge") {
  const ProgramRef p = parse_program(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore, attrs={"slot_num": 16})
    def k(self, a: pl.Tensor[[8], pl.FP32], w: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        """A docstring comes before the prologue."""
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        pl.func_attr({"stationary": w, "windowize": True})
        return a

    @pl.function(type=pl.FunctionType.AIV, attrs={"dual_aiv_dispatch": True})
    def v(self, a: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.NONE})
        return a

    @pl.function(attrs={}, auto_scope=False)
    def main(self, a: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        return a
)");
  const FunctionRef k = p->find("k");
  CHECK(k->attrs.get<std::int64_t>("slot_num") == 16);
  CHECK(k->attrs.get<SplitMode>("split") == SplitMode::UpDown);
  CHECK(k->attrs.get<bool>("windowize") == true);
  CHECK(k->attrs.get<ExprRef>("stationary") == ExprRef(k->params[1]));  // the parameter itself
  const FunctionRef v = p->find("v");
  CHECK(v->attrs.get<bool>("dual_aiv_dispatch") == true);
  CHECK_FALSE(v->attrs.contains("split"));  // NONE is no split at all, as upstream drops it
  const FunctionRef main = p->find("main");
  REQUIRE(main->attrs.size() == 1);
  CHECK(main->attrs.get<bool>("auto_scope") == false);
  CHECK_NOTHROW(text::check_round_trip(*p));
  // Printed as upstream prints them: the prologue, auto_scope as the decorator's keyword.
  const std::string printed = text::print(*p);
  CHECK(printed.find("pl.func_attr({\"slot_num\": 16, \"split\": pl.SplitMode.UP_DOWN, "
                     "\"stationary\": w, \"windowize\": True})") != std::string::npos);
  CHECK(printed.find("@pl.function(auto_scope=False)") != std::string::npos);
  CHECK(printed.find("attrs=") == std::string::npos);
}

TEST_CASE("parser: pl.create_tensor is tensor.create, pl.system.task_invalid() a task id") {
  const ProgramRef p = parse_program(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8, 4], pl.FP16]:
        t = pl.create_tensor([8, 4], dtype=pl.FP16)
        tid = pl.system.task_invalid()
        return t
)");
  const auto& stmts = body_of(only_function(p));
  const auto& create = static_cast<const Call&>(*static_cast<const AssignStmt&>(*stmts[0]).value);
  CHECK(create.op->name == "tensor.create");
  CHECK(structural::structural_equal(
      *create.type, *TensorType::make(DataType::FP16, {ConstInt::make(8), ConstInt::make(4)})));
  const auto& tid = static_cast<const AssignStmt&>(*stmts[1]);
  CHECK(static_cast<const Call&>(*tid.value).op->name == "system.task_invalid");
  CHECK(structural::structural_equal(*tid.var->type, *ScalarType::make(DataType::TASK_ID)));
  const std::string printed = text::print(*p);
  CHECK(printed.find("pl.tensor.create([8, 4], dtype=pl.FP16)") != std::string::npos);
  CHECK_NOTHROW(text::check_round_trip(*p));
}

TEST_CASE("parser: op arguments bind by position or by name, as upstream's DSL signatures") {
  // Each pair is one program written two ways: the DSL's positional forms (keywords such as
  // dtype and target_memory in their positional slots, pl.MemorySpace for pl.Mem) and the
  // keyword forms; both read to the same IR.
  auto program = [](const std::string& body) {
    return parse_program(R"(
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.FP16]:
)" + body + "        return x\n");
  };
  const std::pair<const char*, const char*> same[] = {
      {"        t = pl.tile.load(x, [0, 0], [16, 16], None, pl.MemorySpace.Mat)\n",
       "        t = pl.load(x, offsets=[0, 0], shapes=[16, 16], target_memory=pl.Mem.Mat)\n"},
      {"        t = pl.tile.create([16, 16], pl.FP32, pl.Mem.Vec)\n",
       "        t = pl.create_tile([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"},
      {"        b = pl.tile.alloc(pl.Mem.Vec, 16384)\n",
       "        b = pl.tile.alloc(size=16384, memory_space=pl.MemorySpace.Vec)\n"},
      {"        t = pl.load(x, [0, 0], [16, 16])\n        c = pl.cast(t, pl.FP32)\n",
       "        t = pl.load(x, [0, 0], [16, 16])\n        c = pl.tile.cast(t, "
       "target_type=pl.FP32)\n"},
  };
  for (const auto& form : same) {
    const char* positional = form.first;
    const char* named = form.second;
    CAPTURE(positional);
    const ProgramRef a = program(positional);
    CHECK(structural::structural_equal(NodeRef(a), NodeRef(program(named)), true));
    CHECK_NOTHROW(text::check_round_trip(*a));
  }
  // `pl.add(t, 2.0)` on a tile is tile.adds, its literal in the tile's dtype; a tensor's
  // scalar form likewise.
  const ProgramRef p = program(
      "        t = pl.load(x, [0, 0], [16, 16])\n        u = pl.add(t, 2.0)\n"
      "        y = pl.mul(x, 3)\n");
  const auto& stmts = body_of(only_function(p));
  const auto& adds = static_cast<const Call&>(*static_cast<const AssignStmt&>(*stmts[1]).value);
  CHECK(adds.op->name == "tile.adds");
  CHECK(structural::structural_equal(*adds.args[1]->type, *ScalarType::make(DataType::FP16)));
  const auto& muls = static_cast<const Call&>(*static_cast<const AssignStmt&>(*stmts[2]).value);
  CHECK(muls.op->name == "tensor.muls");
  // an optional argument that is keyword-only in the DSL prints by name and reads back
  const ProgramRef v = program(
      "        t = pl.load(x, [0, 0], [16, 16])\n"
      "        w = pl.tile.reinterpret_view(t, pl.INT16, shape=[16, 16])\n");
  CHECK(text::print(*v).find("pl.tile.reinterpret_view(t, shape=[16, 16], dtype=pl.INT16)") !=
        std::string::npos);
  CHECK_NOTHROW(text::check_round_trip(*v));
}

TEST_CASE("parser: an extent read folds in every Orchestration function, not only the last") {
  // Each function's reads are checked against its own parameters (the signature pass visits
  // every function before the bodies are read).
  const ProgramRef p = parse_program(R"(
T = pl.dynamic("T")
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def a(self, x: pl.Tensor[[T, 128], pl.FP32]):
        n = pl.tensor.dim(x, 0)
        return pl.create_tensor([n, 128], dtype=pl.FP32)

    @pl.function(type=pl.FunctionType.Orchestration)
    def b(self, y: pl.Tensor[[T, 64], pl.FP32]):
        n = pl.tensor.dim(y, axis=0)
        return pl.create_tensor([n, 64], dtype=pl.FP32)
)");
  // the read is T itself in both: no binding is left
  CHECK(text::print(*p).find("pl.tensor.dim") == std::string::npos);
  CHECK_NOTHROW(text::check_round_trip(*p));
}

TEST_CASE("parser: op arguments that do not bind are errors naming the parameter") {
  const std::string head =
      "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def k(self, x: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.FP16]:\n"
      "        ";
  expect_parse_error(head + "t = pl.load(x, [0, 0], [16, 16], offsets=[0, 0])\n", 5, 50,
                     "tile.load: 'offsets' given once");
  expect_parse_error(head + "t = pl.load(x, [0, 0], [16, 16], tile_shape=[4])\n", 5, 53,
                     "tile.load: a parameter (tensor, offsets, shapes, valid_shape, target_memory, "
                     "clamp, cache=), not 'tile_shape'");
  expect_parse_error(head + "t = pl.tile.neg(x, x)\n", 5, 28,
                     "tile.neg takes at most 1 positional arguments (tile)");
  expect_parse_error(head + "t = pl.load(x, shapes=[16, 16])\n", 5, 13,
                     "tile.load: argument 'offsets' is required");
}

TEST_CASE(
    "parser: a module-level @pl.function the program calls joins it, one never called does not") {
  const ProgramRef p = parse_program(R"(
import pypto.language as pl

@pl.function
def double(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    y: pl.Tensor[[64], pl.FP32] = pl.add(x, x)
    return y

@pl.function
def twice(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    y: pl.Tensor[[64], pl.FP32] = double(double(x))
    return y

@pl.function
def unused(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    return x

@pl.program
class MyModel:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = twice(x)
        return y
)");
  std::vector<std::string> names;
  for (const auto& f : p->functions) names.push_back(f.name);
  CHECK(names == std::vector<std::string>{"double", "main", "twice"});
  const auto& call =
      static_cast<const Call&>(*static_cast<const AssignStmt&>(*body_of(p->find("main"))[0]).value);
  CHECK(isa<GlobalVar>(*call.op));
  CHECK(call.op->name == "twice");
  CHECK(p->find("double")->params.size() == 1);
  // Printed, the externals are methods called through self, which read back as the same IR.
  const std::string printed = text::print(*p);
  CHECK(printed.find("def double(self, x:") != std::string::npos);
  CHECK(printed.find("self.twice(x)") != std::string::npos);
  CHECK_NOTHROW(text::check_round_trip(*p));
}

TEST_CASE("parser: an external function and a method of one name, or a bare method call, fail") {
  expect_parse_error(R"(@pl.function
def f(x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
    return x

@pl.program
class P:
    @pl.function
    def f(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        return x
)",
                     8, 5, "a function name not used before in this program");
  // The same, the external written after the class: the method is still read as a method.
  expect_parse_error(R"(@pl.program
class P:
    @pl.function
    def f(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        return x

@pl.function
def f(x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
    return x
)",
                     8, 1, "a function name not used before in this program");
  expect_parse_error(R"(@pl.program
class P:
    @pl.function
    def g(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        return x

    @pl.function
    def main(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        y = g(x)
        return y
)",
                     9, 13, "a callee");
}

TEST_CASE("parser: function attrs that are no dict, repeat a key or come late, fail") {
  const auto with = [](const std::string& decorator, const std::string& prologue) {
    return "@pl.program\nclass P:\n    " + decorator +
           "\n    def f(self, a: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:\n" +
           prologue + "        return a\n";
  };
  expect_parse_error(with("@pl.function(attrs=[1])", ""), 3, 24, "a dict of attributes");
  expect_parse_error(with("@pl.function", "        pl.func_attr({1: 2})\n"), 5, 23, "a string key");
  expect_parse_error(with("@pl.function", "        pl.func_attr(split=1)\n"), 5, 9,
                     "pl.func_attr takes");
  expect_parse_error(with("@pl.function", "        pl.func_attr({\"w\": 1, \"w\": 2})\n"), 5, 31,
                     "a key not given before");
  expect_parse_error(with("@pl.function(attrs={\"split\": pl.SplitMode.UP_DOWN})",
                          "        pl.func_attr({\"split\": pl.SplitMode.LEFT_RIGHT})\n"),
                     5, 23, "no duplicate attribute key 'split'");
  expect_parse_error(with("@pl.function", "        pl.func_attr({\"auto_scope\": True})\n"), 5, 23,
                     "cannot be set with pl.func_attr");
  expect_parse_error(with("@pl.function(auto_scope=True, attrs={\"auto_scope\": False})", ""), 3,
                     41, "no \"auto_scope\" key beside the auto_scope= keyword");
  expect_parse_error(with("@pl.function", "        b = a\n        pl.func_attr({\"w\": 1})\n"), 6,
                     9, "pl.func_attr only before every other statement");
}

TEST_CASE("parser: `(a, b), tid = pl.submit(...)` names the results, then the task id") {
  const auto program = [](std::string_view target, std::string_view call) {
    return std::string(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8], pl.FP32], o: pl.Out[pl.Tensor[[8], pl.FP32]], p: pl.Out[pl.Tensor[[8], pl.FP32]]) -> tuple[pl.Tensor[[8], pl.FP32], pl.Tensor[[8], pl.FP32]]:
        t = pl.load(x, [0], [8])
        o1 = pl.store(t, [0], o)
        p1 = pl.store(t, [0], p)
        return (o, p)

    @pl.function
    def main(self, x: pl.Tensor[[8], pl.FP32], o: pl.Out[pl.Tensor[[8], pl.FP32]], p: pl.Out[pl.Tensor[[8], pl.FP32]]) -> pl.Tensor[[8], pl.FP32]:
        )") +
           std::string(target) + " = " + std::string(call) + R"(
        return b
)";
  };
  const ProgramRef nested = parse_program(program("(a, b), tid", "pl.submit(self.k, x, o, p)"));
  const ProgramRef flat = parse_program(program("a, b, tid", "pl.submit(self.k, x, o, p)"));
  CHECK(structural::structural_equal(NodeRef(nested), NodeRef(flat), true));
  CHECK_NOTHROW(text::check_round_trip(*nested));
  // Only a submit's tuple ends in a task id: a call's has no place for `tid`.
  expect_parse_error(program("(a, b), tid", "self.k(x, o, p)"), 14, 9, "a name");
}

TEST_CASE("parser: syntax errors name line:column, the token and what was expected") {
  expect_parse_error("@pl.program\nclass P:\n    @pl.function\n    def f(self, a):\n        pass\n",
                     4, 17, "a type annotation on the parameter");
  expect_parse_error("@pl.program\nclass P:\n    @pl.function\n    def f(self):\n        x = (1,\n",
                     5, 13, "')' to close this bracket");
  expect_parse_error("@pl.program\nclass P:\n    @pl.function\n    def f(self):\n        x = y\n",
                     5, 13, "a defined name");
  expect_parse_error(
      "@pl.program\nclass P:\n    @pl.function\n    def f(self):\n        x = pl.tile.nope(1)\n", 5,
      13, "a registered op");
  expect_parse_error(
      "@pl.program\nclass P:\n    @pl.function\n    def f(self):\n      x = 1\n     y = 2\n", 6, 6,
      "an indentation that matches an enclosing block");
  expect_parse_error(
      "@pl.program\nclass P:\n    @pl.function\n    def f(self):\n        x = 1 < 2 < 3\n", 5, 13,
      "a single comparison");
  expect_parse_error(
      "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.Kernel)\n    def f(self):\n    "
      "    pass\n",
      3, 23, "a pl.FunctionType.<value>");
  expect_parse_error(
      "@pl.program\nclass P:\n    @pl.function\n    def f(self):\n        with "
      "pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.NONE)]):\n            "
      "for v in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n                pass\n",
      6, 22, "no pl.split_aiv region in a scope that declares pl.split(pl.SplitMode.NONE)");
  expect_parse_error("x = $\n", 1, 5, "a name, a number");
  expect_parse_error(
      "@pl.program\nclass P:\n    @pl.function\n    def f(self):\n        x = 'abc\n", 5, 13,
      "a closing quote");
  expect_parse_error(
      "@pl.program\nclass P:\n    @pl.function\n    def f(self):\n        x = "
      "pl._dump.float64(\"7ff8z00000000001\")\n",
      5, 30, "the 16 hex digits of a float64 bit pattern");
  // A yield that binds region results ends its region (the printer writes it last).
  expect_parse_error(
      "@pl.program\nclass P:\n    @pl.function\n    def f(self, n: pl.Scalar[pl.INDEX]):\n        "
      "for i, (a,) in pl.range(4, init_values=(n,)):\n            r = pl.yield_(a)\n            m "
      "= a + 1\n",
      7, 13, "`r = pl.yield_(...)` is the region's last statement");
  // An op's type rule rejecting its arguments is reported at the call.
  expect_parse_error(
      "@pl.program\nclass P:\n    @pl.function\n    def f(self, n: pl.Scalar[pl.INDEX]):\n        "
      "x = pl.tile.add(n, n)\n",
      5, 13, "tile.add: argument 0 must have a TileType");
}

TEST_CASE("parser: deeply nested input is a ParseError, not a crash") {
  std::string deep = "@pl.program\nclass P:\n    @pl.function\n    def f(self):\n        x = ";
  deep += std::string(100'000, '(') + "1" + std::string(100'000, ')') + "\n";
  CHECK_THROWS_AS(parse_program(deep), ParseError);
  std::string minus = "@pl.program\nclass P:\n    @pl.function\n    def f(self):\n        x = ";
  minus += std::string(100'000, '-') + "1\n";
  CHECK_THROWS_AS(parse_program(minus), ParseError);
  std::string blocks =
      "@pl.program\nclass P:\n    @pl.function\n    def f(self, c: pl.Scalar[pl.BOOL]):\n";
  for (int i = 0; i < 2000; ++i) blocks += std::string(8 + 4 * i, ' ') + "if c:\n";
  blocks += std::string(8 + 4 * 2000, ' ') + "pass\n";
  CHECK_THROWS_AS(parse_program(blocks), ParseError);
}

TEST_CASE("parser: a long flat operator chain is a ParseError at the limit, not a crash") {
  // `n + 1 + 1 ...` is parsed without recursion, but each operator nests the IR one level.
  const std::string head =
      "@pl.program\nclass P:\n    @pl.function\n    def f(self, n: pl.Scalar[pl.INDEX], c: "
      "pl.Scalar[pl.BOOL]) -> pl.Scalar[pl.INDEX]:\n        ";
  const auto chain = [](std::string first, std::string_view op, std::size_t terms) {
    for (std::size_t i = 0; i < terms; ++i) first += op;
    return first;
  };
  for (std::string_view op : {" + 1", " * 2", " - n", " // 3", " | n", " << 1"}) {
    CAPTURE(op);
    expect_parse_error(head + "m = " + chain("n", op, 20'000) + "\n        return m\n", 5, 13,
                       "an expression nested at most 512 levels deep");
  }
  for (std::string_view op : {" and c", " or c"})
    expect_parse_error(head + "d = " + chain("c", op, 20'000) + "\n        return n\n", 5, 13,
                       "an expression nested at most 512 levels deep");
  // A chain inside a call argument: the call is a level too.
  expect_parse_error(head + "m = pl.min(n, " + chain("n", " + 1", 600) + ")\n        return m\n", 5,
                     23, "an expression nested at most 512 levels deep");
  // Half a million terms: no recursion in the parser, the error or the syntax tree's teardown.
  expect_parse_error(head + "m = " + chain("n", " + 1", 500'000) + "\n        return m\n", 5, 13,
                     "nested at most 512 levels");
  // Within the limit the chain parses into a left-nested Add chain.
  const ProgramRef p =
      parse_program(head + "m = " + chain("n", " + 1", 500) + "\n        return m\n");
  const auto& m = static_cast<const AssignStmt&>(*body_of(p->find("f"))[0]);
  std::size_t depth = 0;
  for (const Expr* e = m.value.get(); const auto* add = as<Add>(e); e = add->left.get()) ++depth;
  CHECK(depth == 500);
}

TEST_CASE("parser: operators bind and associate as Python's do") {
  const std::string head =
      "@pl.program\nclass P:\n    @pl.function\n    def f(self, a: pl.Scalar[pl.INDEX], b: "
      "pl.Scalar[pl.INDEX], c: pl.Scalar[pl.INDEX], p: pl.Scalar[pl.BOOL], q: "
      "pl.Scalar[pl.BOOL]):\n        x = ";
  const auto parsed = [&](const std::string& e) {
    return text::print(*parse_program(head + e + "\n"));
  };
  // Each expression against its fully bracketed reading.
  const std::pair<std::string, std::string> cases[] = {
      {"a + b * c", "a + (b * c)"},
      {"a - b - c", "(a - b) - c"},
      {"a * b // c % a", "((a * b) // c) % a"},
      {"a ** b ** c", "a ** (b ** c)"},
      {"-a ** b", "-(a ** b)"},
      {"a ** -b", "a ** (-b)"},
      {"-a * b", "(-a) * b"},
      {"~a + b", "(~a) + b"},
      {"a << b + c", "a << (b + c)"},
      {"a & b | c ^ a", "(a & b) | (c ^ a)"},
      {"a | b & c", "a | (b & c)"},
      {"a + b < c * a", "(a + b) < (c * a)"},
      {"not a < b", "not (a < b)"},
      {"not p and q", "(not p) and q"},
      {"p or q and p", "p or (q and p)"},
      {"p and q or p", "(p and q) or p"},
      {"not not p", "not (not p)"},
      {"a < b and b < c or not p", "((a < b) and (b < c)) or (not p)"},
  };
  for (const auto& c : cases) {  // no structured binding: clang 14 cannot capture one
    CAPTURE(c.first);
    CHECK(parsed(c.first) == parsed(c.second));
  }
  CHECK(parsed("a - b - c") != parsed("a - (b - c)"));
  CHECK(parsed("a ** b ** c") != parsed("(a ** b) ** c"));
  // `not` binds looser than a comparison or an arithmetic operator: it cannot be their operand.
  expect_parse_error(head + "a + not p\n", 5, 17, "an expression");
  expect_parse_error(head + "p == not q\n", 5, 18, "an expression");
  expect_parse_error(head + "a + b in c\n", 5, 13, "the operator 'in' has no scalar meaning");
}

TEST_CASE("parser: a split_aiv region outside an InCore scope reads back inside one of its own") {
  const auto program = [](std::string_view type, std::string_view body) {
    return parse_program(
        "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType." + std::string(type) +
        ")\n    def main(self, a: pl.Tensor[[256, 128], pl.FP32], out: "
        "pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:\n" +
        std::string(body) + "        return out\n");
  };
  const std::string bare = R"(        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [aiv_id * 128, 0], [128, 128])
            out = pl.store(t, [aiv_id * 128, 0], out)
)";
  const std::string wrapped = R"(        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [aiv_id * 128, 0], [128, 128])
                out = pl.store(t, [aiv_id * 128, 0], out)
)";
  for (std::string_view type : {"Orchestration", "Opaque"}) {
    CAPTURE(type);
    const ProgramRef p = program(type, bare);
    CHECK(structural::structural_equal(NodeRef(p), NodeRef(program(type, wrapped)), true));
    CHECK(isa<InCoreScopeStmt>(body_of(p->find("main"))[0]));
    CHECK_NOTHROW(text::check_round_trip(*p));
  }
  // In a kernel, or under an InCore scope already, the region stays where it is written.
  const ProgramRef kernel = program("InCore", bare);
  CHECK(isa<SplitAivScopeStmt>(body_of(kernel->find("main"))[0]));
  // `pl._dump.split_aiv` is the region without the wrapper (IR built in C++ can hold it).
  std::string dump = bare;
  dump.replace(dump.find("pl.split_aiv"), 12, "pl._dump.split_aiv");
  const ProgramRef unwrapped = program("Orchestration", dump);
  CHECK(isa<SplitAivScopeStmt>(body_of(unwrapped->find("main"))[0]));
  CHECK(text::print(*unwrapped).find("in pl._dump.split_aiv(2, mode=pl.SplitMode.UP_DOWN):") !=
        std::string::npos);
  CHECK_NOTHROW(text::check_round_trip(*unwrapped));
}

TEST_CASE("parser: a `with pl.spmd` body doing per-block work reads back as a kernel of its own") {
  const auto program = [](std::string_view body) {
    return parse_program(
        "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n    def k(self, "
        "a: pl.Tensor[[64, 16], pl.FP32], out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> "
        "pl.Tensor[[64, 16], pl.FP32]:\n        return out\n\n    @pl.function\n    def main(self, "
        "a: pl.Tensor[[64, 16], pl.FP32], out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> "
        "pl.Tensor[[64, 16], pl.FP32]:\n" +
        std::string(body) + "        return out\n");
  };
  const std::string inline_body = R"(        with pl.spmd(4, name_hint="rows"):
            i = pl.tile.get_block_idx()
            t: pl.Tile[[16, 16], pl.FP32] = pl.load(a, [i * 16, 0], [16, 16])
            out = pl.store(t, [i * 16, 0], out)
)";
  const std::string carrier = R"(        with pl.spmd(4, name_hint="rows_spmd"):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="rows"):
                i = pl.tile.get_block_idx()
                t: pl.Tile[[16, 16], pl.FP32] = pl.load(a, [i * 16, 0], [16, 16])
                out = pl.store(t, [i * 16, 0], out)
)";
  // As `for i in pl.spmd(4, name_hint="rows")` reads: the kernel `rows`, its dispatch `rows_spmd`.
  const ProgramRef p = program(inline_body);
  CHECK(structural::structural_equal(NodeRef(p), NodeRef(program(carrier)), true));
  CHECK_NOTHROW(text::check_round_trip(*p));
  // A body dispatching a kernel stays as written.
  const ProgramRef dispatch = program(R"(        with pl.spmd(4):
            out = self.k(a, out)
)");
  const auto* spmd = as<SpmdScopeStmt>(body_of(dispatch->find("main"))[0].get());
  REQUIRE(spmd);
  CHECK(isa<AssignStmt>(*as<SeqStmts>(spmd->body.get())->stmts[0]));
  // `pl._dump.spmd` is the body without the wrapper, and prints back so.
  std::string dump = inline_body;
  dump.replace(dump.find("pl.spmd"), 7, "pl._dump.spmd");
  const ProgramRef bare = program(dump);
  const auto* bare_spmd = as<SpmdScopeStmt>(body_of(bare->find("main"))[0].get());
  REQUIRE(bare_spmd);
  CHECK(isa<AssignStmt>(*as<SeqStmts>(bare_spmd->body.get())->stmts[0]));
  CHECK(text::print(*bare).find("with pl._dump.spmd(4, name_hint=\"rows\"):") != std::string::npos);
  CHECK_NOTHROW(text::check_round_trip(*bare));
}

TEST_CASE("parser: nested and unwrapped statement sequences keep their structure") {
  auto n = Var::make("n", ScalarType::make(DataType::INDEX));
  auto c = Var::make("c", ScalarType::make(DataType::BOOL));
  StmtRef inner = SeqStmts::make({EvalStmt::make(n), SeqStmts::make({EvalStmt::make(n)})});
  StmtRef bare_if = IfStmt::make(c, BreakStmt::make());
  auto loop =
      ForStmt::make(Var::make("i", ScalarType::make(DataType::INDEX)), ConstInt::make(0),
                    ConstInt::make(4), ConstInt::make(1), {}, SeqStmts::make({bare_if, inner}), {});
  auto f = Function::make("f", {{n}, {c}}, {}, loop);
  CHECK_NOTHROW(text::check_round_trip(*Program::make("P", {f})));
}
}  // namespace

TEST_CASE("printer: a loop written in the natural form prints back in it") {
  // Found by the pass fuzzer: `for j, (q,) in pl.range(...)` whose body rebinds `q` and has no
  // yield printed the rebinding as `q_1 = ...` and the loop's result as an undefined `q_2`; the
  // text did not parse back. The natural form's names are its meaning: the carried name stays.
  const std::string src = R"(import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 16], pl.FP32]:
        for j, (q,) in pl.range(3, init_values=(x,)):
            q = pl.add(q, x)
            q = pl.mul(q, q)
        for (c, s) in pl.while_(init_values=(0, q)):
            pl.cond(c < n)
            s = pl.add(s, x)
            c = c + 1
        return s
)";
  const ProgramRef p = parse_program(src);
  const std::string printed = text::print(*p);
  CHECK(printed.find("q: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.mul(q, q)") != std::string::npos);
  CHECK(printed.find("init_values=(0, q)") != std::string::npos);
  CHECK(printed.find("s: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(s, x)") != std::string::npos);
  CHECK(printed.find("return s") != std::string::npos);
  CHECK_NOTHROW(text::check_round_trip(*p));
  CHECK(text::print(*parse_program(printed)) == printed);
}

TEST_CASE("parser: a call's result type is the callee's, bound to the call's arguments") {
  // k's return type is in k's symbol M; the calls pass 32 rows and N rows. Each call's type is
  // in the caller's names, so the program prints with plain calls and reads back as itself.
  const std::string text = R"(import pypto.language as pl

M = pl.dynamic("M")
N = pl.dynamic("N")

@pl.program
class Bound:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, 64], pl.FP32], o: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(a, [0, 0], [16, 64])
        o: pl.Tensor[[M, 64], pl.FP32] = pl.store(t, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def kv(self, a: pl.Tensor[[M, 64], pl.FP32, pl.TensorView(valid_shape=[M, 60])]) -> pl.Tensor[[M, 64], pl.FP32, pl.TensorView(valid_shape=[M, 60])]:
        return a

    @pl.function
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]], u: pl.Tensor[[N, 64], pl.FP32], v: pl.Out[pl.Tensor[[N, 64], pl.FP32]], z: pl.Tensor[[N, 64], pl.FP32, pl.TensorView(valid_shape=[N, 60])]) -> pl.Tensor[[32, 64], pl.FP32]:
        r: pl.Tensor[[32, 64], pl.FP32] = self.k(x, y)
        w: pl.Tensor[[N, 64], pl.FP32] = self.k(u, v)
        s, tid = pl.submit(self.k, x, y)
        zv = self.kv(z)
        return r
)";
  const ProgramRef p = parse_program(text);
  const auto& body = body_of(p->find("main"));
  const auto type_of = [&](std::size_t k) {
    return text::print(*as<AssignStmt>(body.at(k).get())->value->type);
  };
  CHECK(type_of(0) == "pl.Tensor[[32, 64], pl.FP32]");
  CHECK(type_of(1) == "pl.Tensor[[N, 64], pl.FP32]");
  CHECK(type_of(2) == "pl.Tuple[pl.Tensor[[32, 64], pl.FP32], pl.Scalar[pl.TASK_ID]]");
  // a view's dims are bound too (zv, the statement before the return)
  CHECK(type_of(body.size() - 2) ==
        "pl.Tensor[[N, 64], pl.FP32, pl.TensorView(valid_shape=[N, 60])]");
  const std::string printed = text::print(*p);
  CHECK(printed.find("pl._dump") == std::string::npos);
  CHECK(printed.find("self.k(u, v)") != std::string::npos);
  CHECK_NOTHROW(text::check_round_trip(*p));
  // A result annotated in the callee's names: a symbolic dimension may differ (as upstream
  // checks only constant ones), and the tensor keeps the call's [32, 64].
  const ProgramRef bound = parse_program(
      R"(import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class Bound:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, 64], pl.FP32]) -> pl.Tensor[[M, 64], pl.FP32]:
        return a

    @pl.function
    def main(self, x: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:
        r: pl.Tensor[[M, 64], pl.FP32] = self.k(x)
        return r
)");
  const auto& r = *as<AssignStmt>(body_of(bound->find("main")).at(0).get());
  CHECK(text::print(*r.var->type) == "pl.Tensor[[32, 64], pl.FP32]");
  CHECK_NOTHROW(text::check_round_trip(*bound));
}

TEST_CASE("parser: a call's result storage is the argument's, so a submit of it round-trips") {
  // k's return type names k's allocation "buf"; main passes o, whose storage is main's own
  // "buf". The call's and the submit's types hold main's base, and print and read back as such.
  const std::string text = R"(@pl.program
class Stored:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16], pl.FP32], out: pl.Out[pl.Tensor[[16], pl.FP32, pl.MemRef("buf", 0, 64)]]) -> pl.Tensor[[16], pl.FP32, pl.MemRef("buf", 0, 64)]:
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16], pl.FP32], o: pl.Out[pl.Tensor[[16], pl.FP32, pl.MemRef("buf", 0, 64)]]) -> pl.Tensor[[16], pl.FP32, pl.MemRef("buf", 0, 64)]:
        r = pl.submit(self.k, x, o)
        y = self.k(x, o)
        return y
)";
  const ProgramRef p = parse_program(text);
  const FunctionRef main = p->find("main");
  const auto& body = body_of(main);
  const auto& o_type = static_cast<const TensorType&>(*main->params.at(1)->type);
  const auto& submit_type =
      static_cast<const TupleType&>(*as<AssignStmt>(body.at(0).get())->value->type);
  const auto& call_type =
      static_cast<const TensorType&>(*as<AssignStmt>(body.at(1).get())->value->type);
  CHECK(static_cast<const TensorType&>(*submit_type.types.at(0)).memref->base ==
        o_type.memref->base);
  CHECK(call_type.memref->base == o_type.memref->base);
  const std::string printed = text::print(*p);
  CHECK(printed.find("buf_1") == std::string::npos);  // no second name for one allocation
  CHECK_NOTHROW(text::check_round_trip(*p));
}

TEST_CASE("parser: in an Orchestration function a parameter's symbolic extent read is the symbol") {
  const std::string text = R"(import pypto.language as pl
M = pl.dynamic("M")
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        m = pl.tensor.dim(a, 0)
        c = pl.tensor.dim(a, 1)
        k = m + c
        m = k * 2
        return m
)";
  const ProgramRef p = parse_program(text);
  const FunctionRef main = p->find("main");
  const auto& body = body_of(main);
  // `m = tensor.dim(a, 0)` is folded onto M (no statement); the constant extent 64 stays a read.
  REQUIRE(body.size() == 4);
  const auto& c = static_cast<const AssignStmt&>(*body[0]);
  CHECK(c.var->name_hint == "c");
  const auto& k = static_cast<const AssignStmt&>(*body[1]);
  const ExprRef symbol = static_cast<const TensorType&>(*main->params[0]->type).shape[0];
  CHECK(static_cast<const Add&>(*k.value).left == symbol);
  // Rebinding m makes a new variable: the symbol itself is never redefined.
  const auto& m = static_cast<const AssignStmt&>(*body[2]);
  CHECK(m.var != symbol);
  CHECK(m.var->name_hint == "m");
  CHECK_NOTHROW(text::check_round_trip(*p));
  // Written as Opaque, the read stays.
  std::string opaque = text;
  opaque.replace(opaque.find("(type=pl.FunctionType.Orchestration)"),
                 std::string("(type=pl.FunctionType.Orchestration)").size(), "");
  CHECK(body_of(parse_program(opaque)->find("main")).size() == 5);
}

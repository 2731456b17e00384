// Golden tests of pypto/text/printer.hpp: exact text for programs, statements, types and
// expressions built with the IR builders.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "pypto/core/identifier.hpp"
#include "pypto/ir.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"

namespace {

using namespace pypto;
using namespace pypto::ir;
using core::DataType;
using text::print;

ExprRef idx(std::int64_t v) { return ConstInt::make(v); }
// `base + std::to_string(i)` by append: g++ 12 -O3 warns falsely (-Wrestrict) on `"lit" + str`.
std::string numbered(std::string base, int i) { return base.append(std::to_string(i)); }
TypeRef scalar(DataType t) { return ScalarType::make(t); }
std::vector<ExprRef> dims(std::initializer_list<std::int64_t> ds) {
  std::vector<ExprRef> out;
  for (auto d : ds) out.push_back(idx(d));
  return out;
}
TypeRef tensor(std::initializer_list<std::int64_t> ds, DataType t = DataType::FP32) {
  return TensorType::make(t, dims(ds));
}
TypeRef tile(std::initializer_list<std::int64_t> ds, DataType t = DataType::FP32,
             MemorySpace m = MemorySpace::Vec) {
  return TileType::make(t, dims(ds), m);
}
VarRef var(std::string name, TypeRef t) { return Var::make(std::move(name), std::move(t)); }
ExprRef tuple(std::vector<ExprRef> xs) { return MakeTuple::make(std::move(xs)); }
ExprRef call(std::string op, std::vector<ExprRef> args, TypeRef result, Attrs kwargs = {},
             Attrs attrs = {}) {
  return Call::make(Op::make(std::move(op)), std::move(args), std::move(result), std::move(kwargs),
                    std::move(attrs));
}
StmtRef assign(VarRef v, ExprRef e) { return AssignStmt::make(std::move(v), std::move(e)); }
StmtRef seq(std::vector<StmtRef> ss) { return SeqStmts::make(std::move(ss)); }
StmtRef ret(std::vector<ExprRef> vs) { return ReturnStmt::make(std::move(vs)); }
StmtRef yield(std::vector<ExprRef> vs) { return YieldStmt::make(std::move(vs)); }
/// `s` with comments printed above it.
template <class T>
StmtRef commented(Ref<const T> s, std::vector<std::string> comments) {
  auto c = copy_node(*s);
  c->leading_comments = std::move(comments);
  return c;
}

// ---- (1) the seed-002 example ----------------------------------------------------------------

ProgramRef seed_002_program() {
  auto t32 = tensor({32, 32});
  // InCore kernel: load, add, store into the Out parameter.
  auto a = var("a", t32), b = var("b", t32), o = var("o", t32);
  // Mat: a memory the load records (Vec, its default, it would leave out).
  const MemorySpace mat = MemorySpace::Mat;
  auto ta = var("ta", tile({32, 32}, DataType::FP32, mat)),
       tb = var("tb", tile({32, 32}, DataType::FP32, mat)),
       ts = var("ts", tile({32, 32}, DataType::FP32, mat));
  auto o2 = var("o", t32);
  Attrs mat_kw{{"target_memory", mat}};
  auto kernel = Function::make(
      "main_incore_0", {{a}, {b}, {o, ParamDirection::Out}}, {t32},
      seq({assign(ta, call("tile.load", {a, tuple({idx(0), idx(0)}), tuple({idx(32), idx(32)})},
                           ta->type, mat_kw)),
           assign(tb, call("tile.load", {b, tuple({idx(0), idx(0)}), tuple({idx(32), idx(32)})},
                           tb->type, mat_kw)),
           assign(ts, call("tile.add", {ta, tb}, ts->type)),
           assign(o2, call("tile.store", {ts, tuple({idx(0), idx(0)}), o}, t32)), ret({o2})}),
      FunctionType::InCore);
  // Orchestration: one call of the kernel.
  auto x = var("a", t32), y = var("b", t32), out = var("out", t32), r = var("out", t32);
  auto main = Function::make(
      "main", {{x}, {y}, {out, ParamDirection::Out}}, {t32},
      seq({assign(r, Call::make(
                         GlobalVar::make("main_incore_0"), {x, y, out}, t32, {},
                         {{"arg_directions", AttrValueList{ArgDirection::Input, ArgDirection::Input,
                                                           ArgDirection::Output}}})),
           ret({r})}),
      FunctionType::Orchestration);
  return Program::make("Demo", {main, kernel});
}

TEST_CASE("printer: seed-002 program, callee first, pl.Out params, tile ops") {
  CHECK(print(seed_002_program()) == R"(# pypto.program: Demo
import pypto.language as pl

@pl.program
class Demo:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], o: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        ta: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        ts: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.add(ta, tb)
        o_1: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(ts, [0, 0], o)
        return o_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        out_1: pl.Tensor[[32, 32], pl.FP32] = self.main_incore_0(a, b, out, attrs={"arg_directions": [pl.adir.input, pl.adir.input, pl.adir.output]})
        return out_1
)");
}

TEST_CASE("printer: the golden programs read back as themselves (lossless round trip)") {
  CHECK_NOTHROW(text::check_round_trip(*seed_002_program()));
  CHECK_NOTHROW(text::check_round_trip(*seed_002_program(), {.concise = true}));
}

TEST_CASE("printer: concise mode drops assignment annotations") {
  const std::string text = print(seed_002_program(), {.concise = true});
  CHECK(text.find("        ts = pl.tile.add(ta, tb)\n") != std::string::npos);
  CHECK(text.find("ts: pl.Tile") == std::string::npos);
  // Signatures keep their types.
  CHECK(text.find("def main(self, a: pl.Tensor[[32, 32], pl.FP32],") != std::string::npos);
}

TEST_CASE("printer: a standalone function has no self and calls by bare name") {
  const auto prog = seed_002_program();
  CHECK(print(prog->find("main")) == R"(@pl.function(type=pl.FunctionType.Orchestration)
def main(a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
    out_1: pl.Tensor[[32, 32], pl.FP32] = main_incore_0(a, b, out, attrs={"arg_directions": [pl.adir.input, pl.adir.input, pl.adir.output]})
    return out_1
)");
}

// ---- (2) every statement kind ------------------------------------------------------------------

ProgramRef statements_program() {
  auto t64 = tensor({64});
  auto index = scalar(DataType::INDEX);
  auto boolean = scalar(DataType::BOOL);
  auto x = var("x", t64), n = var("n", index);

  // for with a carried tensor; the body ends in an if whose arms yield its return var.
  auto i = var("i", index);
  auto acc = IterArg::make("acc", t64, x);
  auto y = var("y", t64), z = var("z", t64), acc_rv = var("acc_rv", t64);
  auto lt = Lt::make(i, idx(2));
  auto branch = IfStmt::make(lt, seq({yield({y})}), seq({yield({acc})}), {z});
  auto y_def = commented(AssignStmt::make(y, call("tensor.add", {acc, acc}, t64)),
                         {"double the carry", "(twice)"});
  auto loop =
      ForStmt::make(i, idx(0), n, idx(1), {acc}, seq({y_def, branch, yield({z})}), {acc_rv});

  // while in SSA form with its condition on the carried value; break / continue inside.
  auto c = IterArg::make("c", index, idx(0));
  auto c1 = var("c", index), c_rv = var("c_rv", index);
  auto wloop = WhileStmt::make(
      {c}, Lt::make(c, n),
      seq({IfStmt::make(Gt::make(c, idx(8)), BreakStmt::make()), assign(c1, Add::make(c, idx(1))),
           IfStmt::make(Eq::make(c1, idx(3)), ContinueStmt::make()), yield({c1})}),
      {c_rv});
  // while without carried values; `flag` is bound nowhere, so it prints as a free var.
  auto flag = var("flag", boolean);
  auto plain_while =
      WhileStmt::make({}, flag, seq({EvalStmt::make(call("system.barrier", {}, boolean))}), {});

  // Loop kinds and range forms.
  auto j = var("j", index), k = var("k", index), l = var("l", index);
  auto body = [&](VarRef v) { return seq({EvalStmt::make(call("debug.touch", {v}, index))}); };
  auto par = ForStmt::make(j, idx(2), n, idx(1), {}, body(j), {}, ForKind::Parallel);
  auto unr = ForStmt::make(k, idx(0), idx(8), idx(2), {}, body(k), {}, ForKind::Unroll);
  auto pip =
      ForStmt::make(l, ConstInt::make(0, DataType::INT64), ConstInt::make(16, DataType::INT64),
                    ConstInt::make(1, DataType::INT64), {}, body(l), {}, ForKind::Pipeline,
                    {{"pipeline_stages", 2}, {"unroll_hint", true}});

  // All six scopes, nested; comments above statements.
  auto w = var("w", t64), aiv = var("aiv_id", index);
  auto incore = InCoreScopeStmt::make(seq({assign(w, call("tensor.mul", {x, x}, t64))}), "fused",
                                      SplitMode::UpDown, {{"cache", "bypass"}});
  auto hier = HierarchyScopeStmt::make(seq({}), Level::HOST, Role::Orchestrator, "host_part");
  auto cluster = ClusterScopeStmt::make(seq({}), "grp");
  auto spmd = SpmdScopeStmt::make(seq({EvalStmt::make(call("debug.touch", {n}, index))}), idx(4),
                                  true, "", {{"tag", 7}});
  auto split =
      SplitAivScopeStmt::make(aiv, seq({EvalStmt::make(call("debug.touch", {aiv}, index))}),
                              SplitMode::LeftRight, "halves");
  auto rt_auto = RuntimeScopeStmt::make(seq({incore, hier, cluster}));
  auto rt_manual = RuntimeScopeStmt::make(seq({spmd, split}), true);

  auto main = Function::make(
      "main", {{x}, {n}}, {t64, t64},
      seq({loop, wloop, plain_while, seq({par, unr}), pip, rt_auto, rt_manual, ret({acc_rv, w})}),
      FunctionType::Orchestration);

  // Function-level details: a yield stays a yield (not a return), func_attr, level/role.
  auto q = var("q", index);
  auto helper =
      Function::make("helper", {{q}}, {index}, seq({yield({q})}), FunctionType::InCore,
                     {{"cache_policy", "hot"}, {"split2", SplitMode::UpDown}},
                     FunctionOptions().with_level(Level::CORE_GROUP).with_role(Role::Orchestrator));
  auto stub = Function::make("stub", {}, {}, nullptr, FunctionType::Opaque, {{"extern", true}},
                             FunctionOptions().with_runtime_binding());
  auto empty = Function::make("empty", {}, {}, seq({}), FunctionType::Opaque);
  return Program::make("Stmts", {main, helper, stub, empty});
}

TEST_CASE("printer: every statement kind and scope") {
  CHECK(print(statements_program()) == R"(# pypto.program: Stmts
import pypto.language as pl

@pl.program
class Stmts:
    @pl.function
    def empty(self):
        pass

    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CORE_GROUP, role=pl.Role.Orchestrator)
    def helper(self, q: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        pl.func_attr({"cache_policy": "hot", "split2": pl.SplitMode.UP_DOWN})
        pl.yield_(q)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
        flag__FREE_VAR: pl.Scalar[pl.BOOL]
        for i, (acc,) in pl.range(n, init_values=(x,)):
            # double the carry
            # (twice)
            y: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc, acc)
            if i < 2:
                z: pl.Tensor[[64], pl.FP32] = pl.yield_(y)
            else:
                z: pl.Tensor[[64], pl.FP32] = pl.yield_(acc)
            acc_rv: pl.Tensor[[64], pl.FP32] = pl.yield_(z)
        for (c,) in pl.while_(init_values=(0,)):
            pl.cond(c < n)
            if c > 8:
                with pl._dump.stmt():
                    break
            c_1: pl.Scalar[pl.INDEX] = c + 1
            if c_1 == 3:
                with pl._dump.stmt():
                    continue
            c_rv: pl.Scalar[pl.INDEX] = pl.yield_(c_1)
        while flag__FREE_VAR:
            pl._dump.call(pl.system.barrier, type=pl.Scalar[pl.BOOL])
        with pl._dump.seq():
            for j in pl.parallel(2, n):
                pl._dump.call(pl.debug.touch, j, type=pl.Scalar[pl.INDEX])
            for k in pl.unroll(0, 8, 2):
                pl._dump.call(pl.debug.touch, k, type=pl.Scalar[pl.INDEX])
        l: pl.Scalar[pl.INDEX]
        for l in pl.pipeline(pl.const(0, pl.INT64), pl.const(16, pl.INT64), pl.const(1, pl.INT64), stage=2, attrs={"unroll_hint": True}):
            pl._dump.call(pl.debug.touch, l, type=pl.Scalar[pl.INDEX])
        with pl.scope():
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="fused", optimizations=[pl.split(pl.SplitMode.UP_DOWN)], attrs={"cache": "bypass"}):
                w: pl.Tensor[[64], pl.FP32] = pl.tensor.mul(x, x)
            with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator, name_hint="host_part"):
                pass
            with pl.cluster(name_hint="grp"):
                pass
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            with pl.spmd(4, sync_start=True, attrs={"tag": 7}):
                pl._dump.call(pl.debug.touch, n, type=pl.Scalar[pl.INDEX])
            for aiv_id in pl._dump.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT, name_hint="halves"):
                pl._dump.call(pl.debug.touch, aiv_id, type=pl.Scalar[pl.INDEX])
        return acc_rv, w

    @pl.function
    def stub(self):
        pl.func_attr({"extern": True})
        ...
)");
}

TEST_CASE("printer: the statements program reads back as itself") {
  CHECK_NOTHROW(text::check_round_trip(*statements_program()));
}

TEST_CASE("printer: a scope ending a loop body passes the loop's return var to its yield") {
  auto index = scalar(DataType::INDEX);
  auto i = var("i", index), s1 = var("s", index), s_rv = var("s_rv", index);
  auto s0 = IterArg::make("s", index, idx(0));
  auto loop = ForStmt::make(
      i, idx(0), idx(4), idx(1), {s0},
      seq({RuntimeScopeStmt::make(seq({assign(s1, Add::make(s0, i)), yield({s1})}))}), {s_rv});
  CHECK(print(loop) == R"(for i, (s,) in pl.range(4, init_values=(0,)):
    with pl.scope():
        s_1: pl.Scalar[pl.INDEX] = s + i
        s_rv: pl.Scalar[pl.INDEX] = pl.yield_(s_1)
)");
  // Alone, a statement has no enclosing function: no `__FREE_VAR`, a yield stays a yield.
  CHECK(print(yield({s1, i})) == "pl.yield_(s, i)\n");
  CHECK(print(seq({})) == "pass\n");
}

// ---- (3) types -------------------------------------------------------------------------------

TEST_CASE("printer: every type kind") {
  CHECK(print(scalar(DataType::INT64)) == "pl.Scalar[pl.INT64]");
  CHECK(print(tensor({64, 128})) == "pl.Tensor[[64, 128], pl.FP32]");
  CHECK(print(TileType::make(DataType::FP16, dims({16, 16}))) == "pl.Tile[[16, 16], pl.FP16]");
  CHECK(print(TupleType::make({scalar(DataType::BOOL), tensor({8})})) ==
        "pl.Tuple[pl.Scalar[pl.BOOL], pl.Tensor[[8], pl.FP32]]");
  CHECK(print(TupleType::make({})) == "pl.Tuple[()]");
  CHECK(print(UnknownType::make()) == "pl._dump.Unknown");
  CHECK(print(MemRefType::make()) == "pl.MemRefType");
  CHECK(print(PtrType::make()) == "pl.Ptr");
  CHECK(print(WindowBufferType::make()) == "pl._dump.WindowBuffer");
  CHECK(print(CommCtxType::make()) == "pld.CommCtx");
  CHECK(print(PrefetchAsyncContextType::make()) == "pl.PrefetchAsyncContext");
  CHECK(print(AsyncEventType::make()) == "pl.AsyncEvent");
  CHECK(print(AsyncSessionType::make()) == "pl.AsyncSession");
  // A dim keeps its exact dtype: only INDEX constants print bare.
  CHECK(print(TensorType::make(DataType::INT8, {ConstInt::make(64, DataType::INT32), idx(4)})) ==
        "pl.Tensor[[pl.const(64, pl.INT32), 4], pl.INT8]");
}

TEST_CASE("printer: views print every non-default field, and an all-default view is kept") {
  CHECK(print(TensorType::make(DataType::FP32, dims({4}), TensorView{})) ==
        "pl.Tensor[[4], pl.FP32, pl.TensorView()]");
  CHECK(print(TileType::make(DataType::FP32, dims({4}), std::nullopt, TileView{})) ==
        "pl.Tile[[4], pl.FP32, pl.TileView()]");
  TensorView nz;
  nz.layout = TensorLayout::NZ;
  nz.stride = dims({128, 1});
  nz.valid_shape = dims({60, 100});
  nz.pad = PadValue::zero;
  CHECK(print(TensorType::make(DataType::FP16, dims({64, 128}), nz)) ==
        "pl.Tensor[[64, 128], pl.FP16, pl.TensorView(valid_shape=[60, 100], stride=[128, 1], "
        "layout=pl.TensorLayout.NZ, pad=pl.PadValue.zero)]");
  TileView tv;
  tv.valid_shape = dims({16, 10});
  tv.stride = dims({16, 1});
  tv.start_offset = idx(32);
  tv.blayout = TileLayout::col_major;
  tv.slayout = TileLayout::row_major;
  tv.fractal = 1024;
  tv.pad = PadValue::max;
  tv.compact = CompactMode::normal;
  CHECK(print(TileType::make(DataType::FP16, dims({16, 16}), MemorySpace::Mat, tv)) ==
        "pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat, pl.TileView(valid_shape=[16, 10], "
        "stride=[16, 1], start_offset=32, blayout=pl.TileLayout.col_major, "
        "slayout=pl.TileLayout.row_major, fractal=1024, pad=pl.PadValue.max, "
        "compact=pl.CompactMode.normal)]");
}

TEST_CASE("printer: dynamic shape symbols, memrefs with slots, pld import") {
  auto index = scalar(DataType::INDEX);
  auto N = var("N", index);  // bound nowhere: a program-level shape symbol
  auto M = var("M", index);  // a parameter: an ordinary name
  TensorView valid;
  valid.valid_shape = {N, idx(100)};
  auto in_t = TensorType::make(DataType::FP16, {N, idx(128)}, valid);
  auto out_t = TensorType::make(DataType::FP32, {Mul::make(N, idx(2)), M});
  auto a = var("a", in_t), o = var("o", out_t);
  auto local_n = var("N", index);  // another Var named N: renamed, the symbol keeps `N`

  // A memref whose base is allocated in the body (a bare name) and one in the signature (a
  // quoted name: the text has not bound it there).
  auto mem = var("mem_vec_0", PtrType::make());
  auto slot = var("slot", index);
  auto buf_t =
      TileType::make(DataType::FP32, dims({16, 16}), MemorySpace::Vec, std::nullopt,
                     MemRef::make(mem, ConstInt::make(0, DataType::INT64), 2048, true, 2, slot));
  auto gm = var("mem_ddr_0", PtrType::make());
  auto sig_t = TensorType::make(DataType::FP32, dims({16, 16}), std::nullopt,
                                MemRef::make(gm, idx(64), 1024));
  auto g = var("g", sig_t);
  auto t = var("t", buf_t), ctx = var("ctx", CommCtxType::make());
  auto f = Function::make(
      "kernel", {{a}, {M}, {g}, {o, ParamDirection::InOut}}, {out_t},
      seq({assign(local_n, Add::make(N, M)), assign(mem, call("tile.alloc", {}, PtrType::make())),
           assign(slot, idx(1)),
           assign(t, call("tile.load", {g, tuple({idx(0), idx(0)}), tuple({idx(16), idx(16)})},
                          buf_t)),
           assign(ctx, call("pld.comm.context", {}, CommCtxType::make())), ret({o})}),
      FunctionType::AIV);
  CHECK(print(Program::make("Shapes", {f})) == R"(# pypto.program: Shapes
import pypto.language as pl
import pypto.language.distributed as pld

N = pl.dynamic("N")

@pl.program
class Shapes:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[N, 128], pl.FP16, pl.TensorView(valid_shape=[N, 100])], M: pl.Scalar[pl.INDEX], g: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", 64, 1024)], o: pl.InOut[pl.Tensor[[N * 2, M], pl.FP32]]) -> pl.Tensor[[N * 2, M], pl.FP32]:
        N_1: pl.Scalar[pl.INDEX] = N + M
        mem_vec_0: pl.Ptr = pl._dump.call(pl.tile.alloc, type=pl.Ptr)
        slot: pl.Scalar[pl.INDEX] = 1
        t: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 2048, pinned=True, slots=2)[slot], pl.Mem.Vec] = pl._dump.call(pl.tile.load, g, [0, 0], [16, 16], type=pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 2048, pinned=True, slots=2)[slot], pl.Mem.Vec])
        ctx: pld.CommCtx = pl._dump.call(pld.comm.context, type=pld.CommCtx)
        return o
)");
}

// ---- (4) expressions ---------------------------------------------------------------------------

TEST_CASE("printer: parentheses follow Python precedence and associativity") {
  auto index = scalar(DataType::INDEX);
  auto boolean = scalar(DataType::BOOL);
  ExprRef a = var("a", index), b = var("b", index), c = var("c", index);
  ExprRef p = var("p", boolean), q = var("q", boolean), r = var("r", boolean);
  CHECK(print(Mul::make(Add::make(a, b), c)) == "(a + b) * c");
  CHECK(print(Add::make(a, Mul::make(b, c))) == "a + b * c");
  CHECK(print(Sub::make(Sub::make(a, b), c)) == "a - b - c");
  CHECK(print(Sub::make(a, Sub::make(b, c))) == "a - (b - c)");
  CHECK(print(FloorDiv::make(a, Mul::make(b, c))) == "a // (b * c)");
  CHECK(print(Pow::make(a, Pow::make(b, c))) == "a ** b ** c");
  CHECK(print(Pow::make(Pow::make(a, b), c)) == "(a ** b) ** c");
  CHECK(print(Neg::make(Pow::make(a, idx(2)))) == "-a ** 2");
  CHECK(print(Pow::make(Neg::make(a), idx(2))) == "(-a) ** 2");
  CHECK(print(Pow::make(idx(-1), a)) == "(-1) ** a");
  CHECK(print(Neg::make(Add::make(a, b))) == "-(a + b)");
  CHECK(print(Neg::make(Neg::make(a))) == "--a");
  // Neg of a literal keeps its parentheses: the parser folds `-5` into the constant -5.
  CHECK(print(Neg::make(idx(5))) == "-(5)");
  CHECK(print(Sub::make(a, idx(-1))) == "a - -1");
  CHECK(print(BitNot::make(BitAnd::make(a, b))) == "~(a & b)");
  // Comparisons chain in Python, so a comparison operand is always parenthesised.
  CHECK(print(Eq::make(Lt::make(a, b), Lt::make(b, c))) == "(a < b) == (b < c)");
  CHECK(print(Lt::make(Add::make(a, b), c)) == "a + b < c");
  CHECK(print(Or::make(p, And::make(q, r))) == "p or q and r");
  CHECK(print(And::make(Or::make(p, q), r)) == "(p or q) and r");
  CHECK(print(And::make(Not::make(p), q)) == "not p and q");
  CHECK(print(Not::make(And::make(p, q))) == "not (p and q)");
  CHECK(print(Not::make(Lt::make(a, b))) == "not a < b");
  CHECK(print(Eq::make(Not::make(p), q)) == "(not p) == q");
  CHECK(print(BitOr::make(BitAnd::make(a, b), BitXor::make(c, a))) == "a & b | c ^ a");
  CHECK(print(BitAnd::make(BitOr::make(a, b), c)) == "(a | b) & c");
  CHECK(print(BitShiftLeft::make(a, Add::make(b, idx(1)))) == "a << b + 1");
  CHECK(print(Add::make(BitShiftLeft::make(a, b), idx(1))) == "(a << b) + 1");
  CHECK(print(Mul::make(pypto::ir::Min::make(a, b), Add::make(a, c))) == "pl.min(a, b) * (a + c)");
  CHECK(print(Mul::make(Abs::make(Add::make(a, b)), c)) == "abs(a + b) * c");
}

TEST_CASE("printer: every binary and unary kind") {
  auto index = scalar(DataType::INDEX);
  auto boolean = scalar(DataType::BOOL);
  ExprRef a = var("a", index), b = var("b", index);
  ExprRef p = var("p", boolean), q = var("q", boolean);
  const std::vector<std::pair<ExprRef, std::string>> cases = {
      {Add::make(a, b), "a + b"},
      {Sub::make(a, b), "a - b"},
      {Mul::make(a, b), "a * b"},
      {FloorDiv::make(a, b), "a // b"},
      {FloorMod::make(a, b), "a % b"},
      {FloatDiv::make(a, b), "a / b"},
      {pypto::ir::Min::make(a, b), "pl.min(a, b)"},
      {pypto::ir::Max::make(a, b), "pl.max(a, b)"},
      {Pow::make(a, b), "a ** b"},
      {Eq::make(a, b), "a == b"},
      {Ne::make(a, b), "a != b"},
      {Lt::make(a, b), "a < b"},
      {Le::make(a, b), "a <= b"},
      {Gt::make(a, b), "a > b"},
      {Ge::make(a, b), "a >= b"},
      {And::make(p, q), "p and q"},
      {Or::make(p, q), "p or q"},
      {Xor::make(p, q), "pl._dump.logical_xor(p, q)"},
      {BitAnd::make(a, b), "a & b"},
      {BitOr::make(a, b), "a | b"},
      {BitXor::make(a, b), "a ^ b"},
      {BitShiftLeft::make(a, b), "a << b"},
      {BitShiftRight::make(a, b), "a >> b"},
      {Abs::make(a), "abs(a)"},
      {Neg::make(a), "-a"},
      {Not::make(p), "not p"},
      {BitNot::make(a), "~a"},
      {Cast::make(a, DataType::INT32), "pl.cast(a, pl.INT32)"},
  };
  for (const auto& [e, text] : cases) CHECK(print(e) == text);
}

TEST_CASE("printer: constants keep their dtype and exact value") {
  CHECK(print(idx(7)) == "7");
  CHECK(print(idx(-3)) == "-3");
  CHECK(print(ConstInt::make(0, DataType::INT64)) == "pl.const(0, pl.INT64)");
  CHECK(print(ConstInt::make(-5, DataType::INT8)) == "pl.const(-5, pl.INT8)");
  CHECK(print(ConstInt::make(std::numeric_limits<std::int64_t>::min(), DataType::INT64)) ==
        "pl.const(-9223372036854775808, pl.INT64)");
  CHECK(print(ConstBool::make(true)) == "True");
  CHECK(print(ConstBool::make(false)) == "False");
  auto f32 = [](double v) { return print(ConstFloat::make(v)); };
  CHECK(f32(1.0) == "1.0");
  CHECK(f32(0.5) == "0.5");
  CHECK(f32(0.1) == "0.10000000000000001");
  CHECK(f32(1e-5) == "1.0000000000000001e-05");
  CHECK(f32(1e16) == "10000000000000000.0");  // %.17g stays positional up to 17 digits
  CHECK(f32(1e17) == "1e+17");
  CHECK(f32(-0.0) == "-0.0");
  CHECK(f32(-2.5) == "-2.5");
  CHECK(f32(std::numeric_limits<double>::infinity()) == R"(pl._dump.float64("7ff0000000000000"))");
  CHECK(f32(-std::numeric_limits<double>::infinity()) == R"(pl._dump.float64("fff0000000000000"))");
  CHECK(f32(std::numeric_limits<double>::quiet_NaN()) == R"(pl._dump.float64("7ff8000000000000"))");
  CHECK(f32(std::bit_cast<double>(std::uint64_t{0xfff0000000000123})) ==
        R"(pl._dump.float64("fff0000000000123"))");
  CHECK(print(ConstFloat::make(1.5, DataType::FP16)) == "pl.const(1.5, pl.FP16)");
  CHECK(print(ConstFloat::make(std::numeric_limits<double>::infinity(), DataType::BF16)) ==
        R"(pl.const(pl._dump.float64("7ff0000000000000"), pl.BF16))");
  // A negative float literal binds like unary minus.
  CHECK(print(Pow::make(ConstFloat::make(-0.5), ConstFloat::make(2.0))) == "(-0.5) ** 2.0");
  CHECK(print(Neg::make(ConstFloat::make(2.0))) == "-(2.0)");
}

TEST_CASE("printer: calls, kwargs and attrs of every value type") {
  auto index = scalar(DataType::INDEX);
  auto t = tensor({8});
  auto x = var("x", t), i = var("i", index);
  OpaquePayload payload{"HostCookie", nullptr};
  Attrs attrs{{"int", -4},
              {"flag", true},
              {"off", false},
              {"text", "say \"hi\"\n\\ 'q'"},
              {"ratio", 0.25},
              {"inf", std::numeric_limits<double>::infinity()},
              {"dtype", DataType::BF16},
              {"mode", SplitMode::UpDown},
              {"space", MemorySpace::Vec},
              {"dir", ArgDirection::OutputExisting},
              {"expr", Add::make(i, idx(1))},
              {"list", AttrValueList{1, "two", AttrValueList{DataType::INT8}}},
              {"cookie", payload}};
  Attrs kwargs{
      {"target_memory", MemorySpace::Left}, {"name", "it's"}, {"clamp", true}, {"scale", 2.0}};
  CHECK(
      print(call("tile.load", {x, tuple({idx(0)}), tuple({i})}, t, kwargs, attrs)) ==
      R"(pl._dump.call(pl.tile.load, x, [0], [i], target_memory=pl.Mem.Left, name='it\'s', clamp=True, scale=2.0, )"
      R"(attrs={"int": -4, "flag": True, "off": False, "text": "say \"hi\"\n\\ 'q'", "ratio": 0.25, )"
      R"("inf": pl._dump.float64("7ff0000000000000"), "dtype": pl.BF16, "mode": pl.SplitMode.UP_DOWN, )"
      R"("space": pl.Mem.Vec, "dir": pl.adir.output_existing, "expr": i + 1, "list": [1, "two", [pl.INT8]], )"
      R"("cookie": pl._dump.opaque("HostCookie")}, type=pl.Tensor[[8], pl.FP32]))");
  // A call whose type the op's rule derives prints plainly; an expression attr that is a
  // literal is written pl.const (a bare 1 would read back as an integer attr).
  auto tile = TileType::make(DataType::FP32, {idx(8)}, MemorySpace::Vec);
  auto y = var("y", tile);
  CHECK(print(call("tile.add", {y, y}, tile, {}, {{"e", idx(1)}, {"i", 1}})) ==
        R"(pl.tile.add(y, y, attrs={"e": pl.const(1, pl.INDEX), "i": 1}))");
  // Op names: `pl.` prefix, except `pld.`; a keyword leaf gets `_`. These ops are not in the
  // standard registry, so their recorded types are written out.
  auto boolean = scalar(DataType::BOOL);
  CHECK(print(call("tile.in", {x, x}, t)) ==
        "pl._dump.call(pl.tile.in_, x, x, type=pl.Tensor[[8], pl.FP32])");
  CHECK(print(call("pld.system.notify", {x, i}, UnknownType::make(), {{"op", 1}})) ==
        "pl._dump.call(pld.system.notify, x, i, op=1, type=pl._dump.Unknown)");
  CHECK(print(call("system.barrier", {}, boolean)) ==
        "pl._dump.call(pl.system.barrier, type=pl.Scalar[pl.BOOL])");
  // Tuples, element access, a call's element.
  auto pair = var("pair", TupleType::make({t, index}));
  CHECK(print(TupleGetItem::make(pair, 1)) == "pair[1]");
  CHECK(print(tuple({i, idx(2)})) == "[i, 2]");
  CHECK(print(TupleGetItem::make(call("tensor.split", {x}, TupleType::make({t, t})), 0)) ==
        "pl._dump.call(pl.tensor.split, x, type=pl.Tuple[pl.Tensor[[8], pl.FP32], "
        "pl.Tensor[[8], pl.FP32]])[0]");
  // A function call outside a program, and a memref expression.
  CHECK(print(Call::make(GlobalVar::make("k"), {x}, t, {}, {{"core_num", 4}})) ==
        R"(k(x, attrs={"core_num": 4}))");
  auto base = var("mem_vec_1", PtrType::make());
  CHECK(print(MemRef::make(base, idx(0), 256)) == R"(pl.MemRef("mem_vec_1", 0, 256))");
}

TEST_CASE("printer: submit prints each launch option only when set") {
  auto t = tensor({8});
  auto task = scalar(DataType::TASK_ID);
  auto result = TupleType::make({t, task});
  auto x = var("x", t), dep = var("t0", task), go = var("go", scalar(DataType::BOOL));
  auto k = GlobalVar::make("kernel");
  CHECK(print(Submit::make(k, {x}, result)) == "pl.submit(kernel, x)");
  SubmitLaunch launch{{dep}, idx(4), true, true, go};
  CHECK(print(Submit::make(k, {x, x}, result, launch, {{"mode", "fast"}}, {{"tag", 1}})) ==
        R"(pl.spmd_submit(kernel, x, x, deps=[t0], core_num=4, sync_start=True, )"
        R"(allow_early_resolve=True, predicate=go, mode='fast', attrs={"tag": 1}))");
}

// ---- (5) names and determinism ----------------------------------------------------------------

/// The naming program; `reverse_creation` creates its Vars in the opposite order (other
/// creation counters and, typically, other address order), which must not change the text.
ProgramRef naming_program(bool reverse_creation = false) {
  auto index = scalar(DataType::INDEX);
  const std::vector<std::string> hints{"x", "x", "x_1", "x", "lambda", "pl", "", "2d.v", "ghost"};
  std::vector<VarRef> vs(hints.size());
  for (std::size_t k = 0; k < hints.size(); ++k) {
    const std::size_t i = reverse_creation ? hints.size() - 1 - k : k;
    vs[i] = var(hints[i], index);
  }
  auto x = vs[0], x2 = vs[1], x3 = vs[2], x4 = vs[3], kw = vs[4], pl_var = vs[5], empty = vs[6];
  auto odd = vs[7], free = vs[8];
  auto f = Function::make("names", {{x}}, {index},
                          seq({assign(x2, Add::make(x, idx(1))), assign(x3, x2), assign(x4, x3),
                               assign(kw, x4), assign(pl_var, kw), assign(empty, pl_var),
                               assign(odd, Add::make(empty, free)), ret({odd})}));
  // A callee in the same program, so function order and `self.` matter too.
  auto y = var("y", index);
  auto g = Function::make("a_first", {{y}}, {index},
                          seq({ret({Call::make(GlobalVar::make("names"), {y}, index)})}));
  return Program::make("Names", {f, g});
}

TEST_CASE("printer: colliding and invalid names are renamed in first-appearance order") {
  CHECK(print(naming_program()) == R"(# pypto.program: Names
import pypto.language as pl

@pl.program
class Names:
    @pl.function
    def names(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        x_1: pl.Scalar[pl.INDEX] = x + 1
        x_1_1: pl.Scalar[pl.INDEX] = x_1
        x_2: pl.Scalar[pl.INDEX] = x_1_1
        lambda_1: pl.Scalar[pl.INDEX] = x_2
        pl_1: pl.Scalar[pl.INDEX] = lambda_1
        v: pl.Scalar[pl.INDEX] = pl_1
        _2d_v: pl.Scalar[pl.INDEX] = v + ghost__FREE_VAR
        return _2d_v

    @pl.function
    def a_first(self, y: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        return self.names(y)
)");
}

TEST_CASE("printer: output depends on structure and names only") {
  const ProgramRef p1 = naming_program();
  // Printing twice gives the same text.
  CHECK(print(p1) == print(p1));
  // A separately built copy whose Vars were created in the opposite order (other addresses,
  // other creation counters) prints identically.
  const ProgramRef p2 = naming_program(/*reverse_creation=*/true);
  CHECK(print(p2) == print(p1));
  CHECK(print(statements_program()) == print(statements_program()));
  // Function order ignores insertion order: callees first, ties by name.
  const auto prog = seed_002_program();
  const auto reordered = Program::make("Demo", {prog->find("main_incore_0"), prog->find("main")});
  CHECK(print(reordered) == print(prog));
}

TEST_CASE("printer: a call cycle falls back to name order") {
  auto index = scalar(DataType::INDEX);
  auto mk = [&](std::string name, std::string callee) {
    auto v = var("v", index);
    return Function::make(std::move(name), {{v}}, {index},
                          ret({Call::make(GlobalVar::make(std::move(callee)), {v}, index)}));
  };
  const std::string text =
      print(Program::make("Cycle", {mk("b", "a"), mk("a", "b"), mk("c", "a")}));
  const auto pa = text.find("def a("), pb = text.find("def b("), pc = text.find("def c(");
  REQUIRE(pa != std::string::npos);
  CHECK(pa < pb);
  CHECK(pb < pc);
}

// ---- (6) deep IR and awkward text --------------------------------------------------------------

/// `x + 1 + 1 + ...` with `depth` Adds.
ExprRef add_chain(int depth) {
  ExprRef e = var("x", scalar(DataType::INDEX));
  for (int i = 0; i < depth; ++i) e = Add::make(e, idx(1));
  return e;
}

TEST_CASE("printer: a 300,000-deep expression is a ValueError naming the limit, not a crash") {
  const ExprRef deep = add_chain(300'000);
  CHECK_THROWS_WITH_AS(print(deep), doctest::Contains("nests deeper than 512 levels"),
                       core::ValueError);
  // Inside a function too.
  auto r = var("r", scalar(DataType::INDEX));
  CHECK_THROWS_AS(print(Function::make("f", {}, {}, seq({assign(r, deep), ret({r})}))),
                  core::ValueError);
}

TEST_CASE("printer: a 400-deep expression prints") {
  const std::string text = print(add_chain(400));
  CHECK(text.size() == 1 + 400 * 4);  // `x` then ` + 1` per level
  CHECK(text.starts_with("x + 1 + 1"));
}

TEST_CASE("printer: deep statement, type and attribute nesting are ValueErrors, not crashes") {
  auto cond = var("c", scalar(DataType::BOOL));
  StmtRef body = BreakStmt::make();
  for (int i = 0; i < 300'000; ++i) body = IfStmt::make(cond, body);
  CHECK_THROWS_WITH_AS(print(body), doctest::Contains("nests deeper than 512 levels"),
                       core::ValueError);
  TypeRef type = scalar(DataType::INDEX);
  for (int i = 0; i < 600; ++i) type = TupleType::make({type});
  CHECK_THROWS_AS(print(type), core::ValueError);
  AttrValue list = 1;
  for (int i = 0; i < 600; ++i) list = AttrValueList{list};
  CHECK_THROWS_AS(
      print(EvalStmt::make(call("debug.touch", {}, UnknownType::make(), {}, {{"deep", list}}))),
      core::ValueError);
  // 250 nested ifs (two levels each: the IfStmt and its body) print: one line per level plus
  // the break.
  StmtRef ok = seq({BreakStmt::make()});
  for (int i = 0; i < 250; ++i) ok = seq({IfStmt::make(cond, ok)});
  const std::string text = print(ok);
  CHECK(std::count(text.begin(), text.end(), '\n') == 251);
}

TEST_CASE("printer: nested SeqStmts keep their structure, 300,000 of them are a ValueError") {
  auto n = var("n", scalar(DataType::INDEX));
  StmtRef s = EvalStmt::make(n);
  for (int i = 0; i < 2; ++i) s = seq({s});
  CHECK(print(s) == "with pl._dump.seq():\n    n\n");
  for (int i = 0; i < 300'000; ++i) s = seq({s});
  CHECK_THROWS_WITH_AS(print(s), doctest::Contains("nests deeper than 512 levels"),
                       core::ValueError);
}

TEST_CASE("printer: a 100,000-deep call chain prints callees first") {
  // The call graph is walked with an explicit stack, whatever the call depth.
  constexpr int kFunctions = 100'000;
  auto index = scalar(DataType::INDEX);
  std::vector<FunctionRef> fns;
  for (int i = 0; i < kFunctions; ++i) {
    auto v = var("v", index);
    ExprRef value = v;
    if (i + 1 < kFunctions) value = Call::make(GlobalVar::make(numbered("f", i + 1)), {v}, index);
    fns.push_back(Function::make(numbered("f", i), {{v}}, {index}, ret({value})));
  }
  const std::string text = print(Program::make("Chain", std::move(fns)));
  const auto last = text.find(numbered("def f", kFunctions - 1) + "(");
  const auto first = text.find("def f0(");
  REQUIRE(last != std::string::npos);
  REQUIRE(first != std::string::npos);
  CHECK(last < first);
}

TEST_CASE("printer: a comment line break may be \\r\\n, \\r or \\n") {
  auto n = var("n", scalar(DataType::INDEX));
  auto s = commented(EvalStmt::make(n), {"crlf\r\nline", "cr\rline", "lf\nline", "end\r"});
  CHECK(print(s) == "# crlf\n# line\n# cr\n# line\n# lf\n# line\n# end\n#\nn\n");
}

TEST_CASE("printer: every printed variable name is an identifier that is not reserved") {
  for (const char* hint : {"", "1", "x.y", "a b", "\xc3\xa9t\xc3\xa9", "for", "_", "9lives"}) {
    CAPTURE(hint);
    const std::string name = print(var(hint, scalar(DataType::INDEX)));
    CHECK(core::is_usable_name(name));
  }
}

}  // namespace

// Tests of `x: T = value` as upstream's parser checks it, and of the type rules the check
// exposed: constant dimensions must agree and symbolic ones may differ, an annotation
// flattening a loaded ND tile to 2-D types the load, and the rules of tile.store (any tensor
// dtype), the matmul family (batch dimensions broadcast; a tensor result keeps the operands'
// dtype), tile.gemv (a 16-row fractal), tile.transpose_view, a 1-D tile.slice and the ops that
// keep their first operand's dtype; each read, checked, printed and read back.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "pypto/ir.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/text/parse_error.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"
#include "text_test_support.hpp"

namespace {

using pypto::text_test::expect_error;

using namespace pypto;
using namespace pypto::ir;
using core::DataType;

/// The AssignStmt of `f` binding `name` (the first).
const AssignStmt& binding(const Function& f, const std::string& name) {
  const AssignStmt* found = nullptr;
  for_each_node(f.body, [&](const Node& n) {
    if (const auto* a = as<AssignStmt>(&n); a && !found && a->var->name_hint == name) found = a;
  });
  REQUIRE(found);
  return *found;
}

std::vector<std::int64_t> dims(const TypeRef& t) {
  const auto* s = as<ShapedType>(t.get());
  REQUIRE(s);
  std::vector<std::int64_t> out;
  for (const ExprRef& d : s->shape) {
    const auto* c = as<ConstInt>(d.get());
    out.push_back(c ? c->value : -1);
  }
  return out;
}

DataType dtype(const TypeRef& t) {
  const auto* s = as<ShapedType>(t.get());
  REQUIRE(s);
  return s->dtype;
}

using V = std::vector<std::int64_t>;

constexpr const char* kSymbolic = R"(import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class Symbolic:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, 64], pl.FP32], o: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
        rows = pl.tensor.dim(a, 0)
        t: pl.Tile[[rows, 64], pl.FP32] = pl.load(a, [0, 0], [M, 64])
        r: pl.Tensor[[rows, 64], pl.FP32] = pl.store(t, [0, 0], o)
        return r
)";

TEST_CASE("annotations: symbolic dimensions may differ, a tile takes the annotated ones") {
  const ProgramRef p = text::parse_program(kSymbolic);
  const Function& f = *p->find("k");
  // The tile: the annotation's `rows`; the tensor: the value's `M`.
  const auto& t = static_cast<const TileType&>(*binding(f, "t").var->type);
  REQUIRE(as<Var>(t.shape[0].get()));
  CHECK(as<Var>(t.shape[0].get())->name_hint == "rows");
  const auto& r = static_cast<const TensorType&>(*binding(f, "r").var->type);
  REQUIRE(as<Var>(r.shape[0].get()));
  CHECK(as<Var>(r.shape[0].get())->name_hint == "M");
  text::check_round_trip(*p);
}

TEST_CASE("annotations: constant dimensions, rank and dtype must agree") {
  const std::string head =
      "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"
      "    def f(self, a: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX]):\n";
  expect_error(head + "        b: pl.Tensor[[16, 8], pl.FP32] = pl.tensor.add(a, a)\n", 7, 12,
               "dimension 1: annotated 8, the value has 16");
  expect_error(head + "        b: pl.Tensor[[16], pl.FP32] = pl.tensor.add(a, a)\n", 7, 12,
               "annotated rank 1, the value has rank 2");
  expect_error(head + "        b: pl.Tensor[[16, 16], pl.INT32] = pl.tensor.add(a, a)\n", 7, 12,
               "annotated INT32, the value is FP32");
  // INDEX is any integer, as for scalars.
  CHECK_NOTHROW(text::parse_program(head + "        m: pl.Scalar[pl.INT32] = n + 1\n"));
}

constexpr const char* kFlatten = R"(import pypto.language as pl

@pl.program
class Flat:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 3, 4], pl.FP32], o: pl.Out[pl.Tensor[[2, 3, 4], pl.FP32]]) -> pl.Tensor[[2, 3, 4], pl.FP32]:
        t: pl.Tile[[6, 4], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 3, 4], target_memory=pl.Mem.Vec)
        z: pl.Tile[[6, 4], pl.FP32] = pl.tile.create([2, 3, 4], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        u: pl.Tile[[6, 4], pl.FP32] = pl.tile.add(t, z)
        r = pl.store(u, [0, 0, 0], o)
        return r
)";

TEST_CASE("annotations: a 2-D annotation of an ND load or create types the call") {
  const ProgramRef p = text::parse_program(kFlatten);
  const Function& f = *p->find("k");
  const AssignStmt& t = binding(f, "t");
  CHECK(dims(t.value->type) == V{6, 4});
  CHECK(dims(t.var->type) == V{6, 4});
  CHECK(dims(binding(f, "z").value->type) == V{6, 4});
  // Vec, tile.create's default memory, is the keyword's absence; the type says Vec.
  const auto* z = ir::as<ir::Call>(binding(f, "z").value.get());
  REQUIRE(z);
  CHECK(z->kwargs.find("target_memory") == nullptr);
  CHECK(static_cast<const TileType&>(*binding(f, "z").var->type).memory_space == MemorySpace::Vec);
  text::check_round_trip(*p);
  // Printed with its annotation, the load reads as written (no private type marker).
  const std::string printed = text::print(*p);
  CAPTURE(printed);
  CHECK(printed.find("pl._dump.call") == std::string::npos);
  // Only a load or create flattens: a 2-D annotation of another ND value is an error.
  expect_error(R"(import pypto.language as pl

@pl.program
class Flat:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 3, 4], pl.FP32]):
        t = pl.tile.load(x, [0, 0, 0], [2, 3, 4])
        e: pl.Tile[[6, 4], pl.FP32] = pl.tile.exp(t)
)",
               8, 12, "annotated rank 2, the value has rank 3");
}

constexpr const char* kRules = R"(import pypto.language as pl

@pl.program
class Rules:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 128], pl.BF16], b: pl.Tensor[[1, 3, 128, 64], pl.BF16], c: pl.Tensor[[2, 1, 16, 128], pl.BF16], g: pl.Tensor[[128, 64], pl.BF16], v: pl.Tensor[[64], pl.FP32], q: pl.Tensor[[16, 16], pl.UINT16], s: pl.Tensor[[16, 16], pl.UINT32], o: pl.Out[pl.Tensor[[16, 64], pl.BF16]]) -> pl.Tensor[[16, 64], pl.BF16]:
        mm: pl.Tensor[[1, 3, 16, 64], pl.BF16] = pl.matmul(a, b)
        lt = pl.load(c, [0, 0, 0, 0], [2, 1, 16, 128], target_memory=pl.Mem.Mat)
        rt = pl.load(b, [0, 0, 0, 0], [1, 3, 128, 64], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[2, 3, 16, 64], pl.FP32] = pl.tile.batch_matmul(lt, rt)
        row = pl.load(a, [0, 0], [1, 128], target_memory=pl.Mem.Left)
        rhs = pl.load(g, [0, 0], [128, 64], target_memory=pl.Mem.Right)
        gv: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.gemv(row, rhs)
        tv: pl.Tile[[128, 16], pl.BF16] = pl.tile.transpose_view(pl.load(a, [0, 0], [16, 128]))
        vt = pl.load(v, [0], [64])
        half: pl.Tile[[32], pl.FP32] = pl.tile.slice(vt, [32], [0])
        sh: pl.Tile[[16, 16], pl.UINT16] = pl.shl(pl.load(q, [0, 0], [16, 16]), pl.load(s, [0, 0], [16, 16]))
        sub: pl.Tensor[[16, 16], pl.UINT16] = pl.tensor.subs(q, pl.const(2.0, pl.FP32))
        o = pl.store(pl.tile.create([16, 64], dtype=pl.FP32), [0, 0], o)
        return o
)";

TEST_CASE("annotations: type rules as upstream's (matmul batches, gemv, transpose_view, ...)") {
  const ProgramRef p = text::parse_program(kRules);
  const Function& f = *p->find("k");
  // A tensor matmul broadcasts the batch dimensions and keeps the operands' dtype.
  CHECK(dims(binding(f, "mm").value->type) == V{1, 3, 16, 64});
  CHECK(dtype(binding(f, "mm").value->type) == DataType::BF16);
  // A tile batch_matmul broadcasts them too (FP32 in Acc).
  CHECK(dims(binding(f, "bm").value->type) == V{2, 3, 16, 64});
  // GEMV fills a fractal of 16 rows, one of them valid.
  const auto& gv = static_cast<const TileType&>(*binding(f, "gv").value->type);
  CHECK(dims(binding(f, "gv").value->type) == V{16, 64});
  REQUIRE(gv.tile_view);
  CHECK(as<ConstInt>(gv.tile_view->valid_shape[0].get())->value == 1);
  CHECK(gv.tile_view->fractal == 1024);
  CHECK(dims(binding(f, "tv").value->type) == V{128, 16});
  CHECK(dims(binding(f, "half").value->type) == V{32});
  CHECK(dtype(binding(f, "sh").value->type) == DataType::UINT16);
  CHECK(dtype(binding(f, "sub").value->type) == DataType::UINT16);
  text::check_round_trip(*p);
}

TEST_CASE("annotations: tile.store writes a tensor of another dtype") {
  const ProgramRef p = text::parse_program(R"(import pypto.language as pl

@pl.program
class Store:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.BF16]]) -> pl.Tensor[[16, 16], pl.BF16]:
        t = pl.load(a, [0, 0], [16, 16])
        o = pl.store(t, [0, 0], o)
        return o
)");
  CHECK(dtype(binding(*p->find("k"), "o").value->type) == DataType::BF16);
  text::check_round_trip(*p);
}

}  // namespace

TEST_CASE("annotations: a tile result lives where upstream's registry places it") {
  const ProgramRef p = text::parse_program(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 16])
        m = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        c = pl.tile.matmul(m, m)
        r = pl.tile.reshape(c, [256, 1])
        e = pl.tile.exp(x)
        s = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Left)
        v = pl.tile.slice(s, [8, 8], [0, 0])
        o1 = pl.tile.store(e, [0, 0], o)
        return o1
)");
  const Function& f = *p->find("k");
  auto space = [&](const char* name) {
    return static_cast<const TileType&>(*binding(f, name).var->type).memory_space;
  };
  CHECK(space("x") == MemorySpace::Vec);   // target_memory left out: Vec
  CHECK(space("m") == MemorySpace::Mat);   // as the keyword says
  CHECK(space("c") == MemorySpace::Acc);   // the cube's result
  CHECK(space("r") == MemorySpace::Acc);   // a view: its operand's
  CHECK(space("e") == MemorySpace::Vec);   // a vector op
  CHECK(space("s") == MemorySpace::Left);  // as the keyword says
  CHECK(space("v") == MemorySpace::Left);  // a view: its operand's
  CHECK(ir::isa<TensorType>(*binding(f, "o1").var->type));
  text::check_round_trip(*p);
}

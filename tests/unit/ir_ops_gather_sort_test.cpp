// Tests of the gather / scatter / sort / MX-matmul / AIV-split op families: text programs read
// through the catalog (upstream PyPTO's DSL spellings, the op a keyword selects, mask patterns
// and named int keywords), the result types and effects they get, the TypeErrors the rules
// raise, and the printed text read back unchanged.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/ir.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"

namespace {

using namespace pypto;
using namespace pypto::ir;
using core::DataType;

/// The calls of `op` in `f`'s body, in walk order.
std::vector<const Call*> calls_of(const Function& f, std::string_view op) {
  std::vector<const Call*> out;
  for_each_node(f.body, [&](const Node& n) {
    if (const auto* c = as<Call>(&n); c && c->op->name == op) out.push_back(c);
  });
  return out;
}

const Call& first_call(const Function& f, std::string_view op) {
  const std::vector<const Call*> all = calls_of(f, op);
  REQUIRE_MESSAGE(!all.empty(), "no call of " << op);
  return *all.front();
}

/// True when `t` is a tile (Tile) or tensor of this dtype and these constant dims.
template <class T>
bool is_shaped(const TypeRef& t, DataType dtype, std::vector<std::int64_t> dims) {
  const auto* s = as<T>(t.get());
  if (!s || s->dtype != dtype || s->shape.size() != dims.size()) return false;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    const auto* c = as<ConstInt>(s->shape[k].get());
    if (!c || c->value != dims[k]) return false;
  }
  return true;
}

/// `text` with the first `from` replaced by `to` (which must be there).
std::string with(std::string text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "no '" << from << "' in the program");
  return text.replace(at, from.size(), to);
}

constexpr const char* kTileGather = R"(import pypto.language as pl

@pl.program
class Pick:
    @pl.function(type=pl.FunctionType.InCore)
    def pick(self, x: pl.Tensor[[8, 64], pl.FP32], ix: pl.Tensor[[8, 16], pl.INT32], rows: pl.Tensor[[1, 4], pl.INT32], offs: pl.Tensor[[4, 8], pl.UINT32], scr: pl.Tensor[[8, 16], pl.FP32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        src = pl.load(x, [0, 0], [8, 64])
        idx = pl.load(ix, [0, 0], [8, 16])
        tmp = pl.tile.create([8, 16], dtype=pl.INT32)
        g = pl.tile.gather(src, idx, tmp)
        odd = pl.tile.gather_mask(src, mask_pattern=pl.tile.MaskPattern.P1010, output_dtype=pl.INT32)
        k = pl.tile.read(src, [0, 0])
        ws = pl.tile.create([1, 256], dtype=pl.UINT8)
        hits, counts = pl.tile.gather_compare(src, k, ws, cmp_mode="ge", out_cols=16)
        off = pl.load(offs, [0, 0], [4, 8])
        blocks = pl.gatherb(src, off, output_dtype=pl.FP16)
        ridx = pl.load(rows, [0, 0], [1, 4])
        picked = pl.mgather(x, ridx, coalesce="row")
        elems = pl.tile.mgather(x, ix, coalesce="elem", target_memory=pl.Mem.Mat, scratch=scr)
        some = pl.tile.mgather(x, rows, target_memory=pl.Mem.Mat, valid_shape=[3, 64])
        out = pl.store(g, [0, 0], out)
        return out
)";

TEST_CASE("gather (tile): index, mask, compare, block and memory gathers are typed by the rules") {
  const ProgramRef p = text::parse_program(kTileGather);
  const Function& f = *p->find("pick");
  CHECK(is_shaped<TileType>(first_call(f, "tile.gather").type, DataType::FP32, {8, 16}));
  const Call& odd = first_call(f, "tile.gather_mask");
  CHECK(is_shaped<TileType>(odd.type, DataType::INT32, {8, 32}));
  CHECK(odd.kwargs.get<std::int64_t>("mask_pattern") == 2);  // MaskPattern.P1010 is the int 2
  const Call& cmp = first_call(f, "tile.gather_compare");
  CHECK(cmp.kwargs.get<std::int64_t>("cmp_mode") == 5);  // "ge" is stored as its index
  const auto* pair = as<TupleType>(cmp.type.get());
  REQUIRE(pair);
  REQUIRE(pair->types.size() == 2);
  CHECK(is_shaped<TileType>(pair->types[0], DataType::INT32, {8, 16}));
  CHECK(is_shaped<TileType>(pair->types[1], DataType::INT32, {1, 8}));
  // Each UINT32 offset picks a 32-byte block: 16 FP16 elements.
  CHECK(is_shaped<TileType>(first_call(f, "tile.gatherb").type, DataType::FP16, {4, 128}));

  const std::vector<const Call*> mg = calls_of(f, "tile.mgather");
  REQUIRE(mg.size() == 3);
  CHECK(is_shaped<TileType>(mg[0]->type, DataType::FP32, {4, 64}));  // 4 whole rows
  CHECK(is_shaped<TileType>(mg[1]->type, DataType::FP32, {8, 16}));  // element-wise
  CHECK(as<TileType>(mg[1]->type.get())->memory_space == MemorySpace::Mat);
  // valid_shape without a scratch tensor is the third argument, as upstream builds it.
  REQUIRE(mg[2]->args.size() == 3);
  CHECK(isa<MakeTuple>(mg[2]->args[2]));

  const OpRegistry& ops = standard_op_registry();
  CHECK(ops.effect(*mg[1], 2) == ArgEffect::Write);  // the Mat element-wise scratch
  CHECK(ops.effect(*mg[2], 2) == ArgEffect::Read);   // a valid_shape is only read
  CHECK(ops.effect(first_call(f, "tile.gather"), 0) == ArgEffect::Read);
}

TEST_CASE("gather (tile): the text prints back as it reads, the keyword forms by name") {
  const ProgramRef p = text::parse_program(kTileGather);
  text::check_round_trip(*p);
  const std::string printed = text::print(*p);
  CAPTURE(printed);
  CHECK(printed.find("mask_pattern=2") != std::string::npos);
  CHECK(printed.find("cmp_mode=5") != std::string::npos);
  CHECK(printed.find("scratch=scr") != std::string::npos);
  CHECK(printed.find("valid_shape=[3, 64]") != std::string::npos);
}

TEST_CASE("gather (tile): wrong operands are TypeErrors naming the argument") {
  CHECK_THROWS_WITH_AS(
      text::parse_program(with(kTileGather, "ix: pl.Tensor[[8, 16], pl.INT32]",
                               "ix: pl.Tensor[[8, 16], pl.INT16]")),
      doctest::Contains("tile.gather: argument 1 must have dtype INT32 (INT16 only with a "
                        "16-bit source)"),
      text::ParseError);
  CHECK_THROWS_WITH_AS(
      text::parse_program(with(kTileGather, "pl.tile.MaskPattern.P1010, output_dtype=pl.INT32",
                               "pl.tile.MaskPattern.P1010, output_dtype=pl.FP16")),
      doctest::Contains("tile.gather_mask: keyword 'output_dtype' must have the source's bit "
                        "width"),
      text::ParseError);
  CHECK_THROWS_WITH_AS(
      text::parse_program(with(kTileGather, "cmp_mode=\"ge\"", "cmp_mode=\"gte\"")),
      doctest::Contains("cmp_mode as an int or one of 'eq', 'ne', 'lt', 'le', 'gt', 'ge'"),
      text::ParseError);
  CHECK_THROWS_WITH_AS(
      text::parse_program(with(kTileGather, "scratch=scr)", "valid_shape=[8, 16])")),
      doctest::Contains("tile.mgather: argument 2 must be a scratch tensor exactly in the Mat "
                        "elementwise form"),
      text::ParseError);
}

constexpr const char* kTensorGather = R"(import pypto.language as pl

@pl.program
class Lookup:
    @pl.function
    def main(self, x: pl.Tensor[[8, 64], pl.FP32], ix: pl.Tensor[[8, 16], pl.INT32], k: pl.Scalar[pl.FP32], pages: pl.Tensor[[512, 128], pl.FP16], pidx: pl.Tensor[[16], pl.INT32], table: pl.Tensor[[1, 8], pl.INT32]) -> pl.Tensor[[8, 16], pl.FP32]:
        a = pl.gather(x, dim=-1, index=ix)
        b = pl.tensor.gather(x, -1, ix)
        m = pl.gather(x, mask_pattern=pl.tile.MaskPattern.P0001)
        hits, counts = pl.tensor.gather(x, kvalue=k, cmp_mode="lt", out_cols=4, count_dtype=pl.UINT32)
        kv = pl.create_l1([2, 128], dtype=pl.FP16)
        kv = pl.gather_row(kv, pages, [0, 0], [5, 0], [2, 128], valid_shape=[1, 128])
        pg = pl.paged_gather(pages, pidx, table, block_size=64, size=32, max_indices=16, is_trans=True)
        return b
)";

TEST_CASE("gather (tensor): pl.gather is the index, mask or compare op by its keywords") {
  const ProgramRef p = text::parse_program(kTensorGather);
  const Function& f = *p->find("main");
  const std::vector<const Call*> idx = calls_of(f, "tensor.gather");
  REQUIRE(idx.size() == 2);
  for (const Call* c : idx) {
    CHECK(is_shaped<TensorType>(c->type, DataType::FP32, {8, 16}));
    CHECK(c->kwargs.get<std::int64_t>("dim") == -1);
    REQUIRE(c->args.size() == 2);  // input, index; dim is a keyword of the IR op
  }
  CHECK(is_shaped<TensorType>(first_call(f, "tensor.gather_mask").type, DataType::FP32, {8, 16}));
  const auto* pair = as<TupleType>(first_call(f, "tensor.gather_compare").type.get());
  REQUIRE(pair);
  CHECK(is_shaped<TensorType>(pair->types[0], DataType::INT32, {8, 4}));
  CHECK(is_shaped<TensorType>(pair->types[1], DataType::UINT32, {1, 8}));
  // gather_row gives back its destination; a paged gather transposed is [size, max_indices].
  const Call& row = first_call(f, "tensor.gather_row");
  CHECK(row.type.get() == row.args[0]->type.get());
  REQUIRE(row.args.size() == 6);
  CHECK(is_shaped<TensorType>(first_call(f, "tensor.paged_gather").type, DataType::FP16, {32, 16}));
  text::check_round_trip(*p);
}

TEST_CASE("gather (tensor): checks of the index, mask and paged forms") {
  CHECK_THROWS_WITH_AS(
      text::parse_program(with(kTensorGather, "pl.gather(x, dim=-1", "pl.gather(x, dim=2")),
      doctest::Contains("tensor.gather: keyword 'dim' must be in [-2, 1], got 2"),
      text::ParseError);
  CHECK_THROWS_WITH_AS(
      text::parse_program(with(kTensorGather, "MaskPattern.P0001)", "MaskPattern.P0001, dim=1)")),
      doctest::Contains("tensor.gather_mask"), text::ParseError);
  CHECK_THROWS_WITH_AS(
      text::parse_program(with(kTensorGather, "is_trans=True)", "is_trans=True, col_off=100)")),
      doctest::Contains("tensor.paged_gather: keyword 'size' must fit in argument 0's columns"),
      text::ParseError);
  CHECK_THROWS_WITH_AS(
      text::parse_program(
          with(kTensorGather, "[2, 128], valid_shape=[1, 128]", "[2, 128], valid_shape=[3, 128]")),
      doctest::Contains("tensor.gather_row: argument 5 must lie within the shapes"),
      text::ParseError);
}

constexpr const char* kScatter = R"(import pypto.language as pl

@pl.program
class Spread:
    @pl.function(type=pl.FunctionType.InCore)
    def tiles(self, d: pl.Tensor[[16, 32], pl.FP32], s: pl.Tensor[[16, 8], pl.FP32], i: pl.Tensor[[16, 8], pl.INT32], mem: pl.Out[pl.Tensor[[256], pl.FP32]]) -> pl.Tensor[[256], pl.FP32]:
        dst = pl.load(d, [0, 0], [16, 32])
        src = pl.load(s, [0, 0], [16, 8])
        idx = pl.load(i, [0, 0], [16, 8])
        dst = pl.tile.scatter(dst, src, idx)
        dst = pl.tile.scatter_mask(dst, src, pl.tile.MaskPattern.P0001)
        blk = pl.tile.scatter_update(dst, dim=-2, index=idx, src=dst)
        mem = pl.mscatter(src, idx, mem)
        return mem

    @pl.function
    def tensors(self, base: pl.Tensor[[16, 32], pl.FP16], ix: pl.Tensor[[16, 8], pl.INT16], v: pl.Tensor[[16, 8], pl.FP16], narrow: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[16, 32], pl.FP16]:
        o = pl.scatter(base, dim=-1, index=ix, src=v)
        w = pl.scatter(narrow, mask_pattern=pl.tile.MaskPattern.P0101, dst=base)
        u = pl.scatter_update(base, -2, ix, base)
        return o
)";

TEST_CASE("scatter: tile forms update their destination, tensor forms select by keyword") {
  const ProgramRef p = text::parse_program(kScatter);
  const OpRegistry& ops = standard_op_registry();
  const Function& t = *p->find("tiles");
  const Call& sc = first_call(t, "tile.scatter");
  CHECK(sc.type.get() == sc.args[0]->type.get());
  CHECK(ops.effect(sc, 0) == ArgEffect::ReadWrite);
  CHECK(ops.effect(sc, 2) == ArgEffect::Read);
  CHECK(ops.effect(first_call(t, "tile.scatter_mask"), 0) == ArgEffect::ReadWrite);
  const Call& up = first_call(t, "tile.scatter_update");
  CHECK(up.kwargs.get<std::int64_t>("dim") == -2);
  CHECK(ops.effect(up, 0) == ArgEffect::ReadWrite);
  const Call& ms = first_call(t, "tile.mscatter");
  CHECK(ms.type.get() == ms.args[2]->type.get());
  CHECK(ops.effect(ms, 2) == ArgEffect::Write);

  const Function& g = *p->find("tensors");
  CHECK(is_shaped<TensorType>(first_call(g, "tensor.scatter").type, DataType::FP16, {16, 32}));
  const Call& mask = first_call(g, "tensor.scatter_mask");
  CHECK(mask.type.get() == mask.args[1]->type.get());  // the dst's type
  CHECK(ops.effect(first_call(g, "tensor.scatter_update"), 0) == ArgEffect::Read);
  text::check_round_trip(*p);
}

TEST_CASE("scatter: index widths, mask strides and the update axis are checked") {
  CHECK_THROWS_WITH_AS(
      text::parse_program(
          with(kScatter, "ix: pl.Tensor[[16, 8], pl.INT16]", "ix: pl.Tensor[[16, 8], pl.INT32]")),
      doctest::Contains("tensor.scatter: argument 1 must have dtype INT16 for a narrower "
                        "destination"),
      text::ParseError);
  CHECK_THROWS_WITH_AS(
      text::parse_program(with(kScatter, "src, pl.tile.MaskPattern.P0001", "src, 1")),
      doctest::Contains("tile.scatter_mask: argument 0 must have 2 times the source's columns"),
      text::ParseError);
  CHECK_THROWS_WITH_AS(text::parse_program(with(kScatter, "dim=-2, index", "dim=-1, index")),
                       doctest::Contains("tile.scatter_update: keyword 'dim' must be in [-2, -2]"),
                       text::ParseError);
}

constexpr const char* kSort = R"(import pypto.language as pl

@pl.program
class Order:
    @pl.function(type=pl.FunctionType.InCore)
    def tiles(self, x: pl.Tensor[[1, 128], pl.FP32], i: pl.Tensor[[1, 128], pl.UINT32], out: pl.Out[pl.Tensor[[1, 256], pl.FP32]]) -> pl.Tensor[[1, 256], pl.FP32]:
        src = pl.load(x, [0, 0], [1, 128])
        idx = pl.load(i, [0, 0], [1, 128])
        s = pl.tile.sort32(src, idx)
        m = pl.tile.mrgsort(s, block_len=64)
        tmp = pl.tile.create([1, 512], dtype=pl.FP32)
        all4 = pl.mrgsort(s, m, s, m, tmp)
        two = pl.tile.mrgsort(s, m, tmp, exhausted=True)
        out = pl.store(s, [0, 0], out)
        return out

    @pl.function
    def tensors(self, x: pl.Tensor[[4, 64], pl.FP16], i: pl.Tensor[[4, 64], pl.UINT32]) -> pl.Tensor[[4, 128], pl.FP16]:
        s = pl.sort32(x, i)
        r = pl.tensor.mrgsort(s, block_len=128)
        merged = pl.mrgsort(s, r, x)
        return s
)";

TEST_CASE("sort: sort32 doubles the last dimension, mrgsort is format1 by block_len") {
  const ProgramRef p = text::parse_program(kSort);
  const Function& t = *p->find("tiles");
  CHECK(is_shaped<TileType>(first_call(t, "tile.sort32").type, DataType::FP32, {1, 256}));
  const Call& f1 = first_call(t, "tile.mrgsort_format1");
  CHECK(f1.type.get() == f1.args[0]->type.get());
  const std::vector<const Call*> f2 = calls_of(t, "tile.mrgsort_format2");
  REQUIRE(f2.size() == 2);
  CHECK(f2[0]->args.size() == 5);
  CHECK(is_shaped<TileType>(f2[0]->type, DataType::FP32, {1, 512}));  // tmp's shape
  CHECK(f2[1]->args.size() == 3);
  CHECK(f2[1]->kwargs.get<bool>("exhausted") == true);

  const Function& g = *p->find("tensors");
  CHECK(is_shaped<TensorType>(first_call(g, "tensor.sort32").type, DataType::FP16, {4, 128}));
  CHECK(is_shaped<TensorType>(first_call(g, "tensor.mrgsort_format1").type, DataType::FP16,
                              {4, 128}));
  // Merged lists: the last dimensions summed.
  CHECK(is_shaped<TensorType>(first_call(g, "tensor.mrgsort_format2").type, DataType::FP16,
                              {4, 320}));
  text::check_round_trip(*p);
  const std::string printed = text::print(*p);
  CAPTURE(printed);
  CHECK(printed.find("pl.tile.mrgsort_format1(s, 64)") != std::string::npos);
}

TEST_CASE("sort: dtypes, index tensors and block lengths are checked") {
  CHECK_THROWS_WITH_AS(
      text::parse_program(
          with(kSort, "i: pl.Tensor[[4, 64], pl.UINT32]", "i: pl.Tensor[[4, 64], pl.INT32]")),
      doctest::Contains("tensor.sort32: argument 1 must be UINT32 of argument 0's shape"),
      text::ParseError);
  CHECK_THROWS_WITH_AS(
      text::parse_program(with(kSort, "block_len=64", "block_len=48")),
      doctest::Contains("tile.mrgsort_format1: argument 1 must be a positive multiple of 64"),
      text::ParseError);
  CHECK_THROWS_WITH_AS(text::parse_program(with(kSort, "pl.tensor.mrgsort(s, block_len=128)",
                                                "pl.tensor.mrgsort(s, x, block_len=128)")),
                       doctest::Contains("tensor.mrgsort_format1"), text::ParseError);
}

constexpr const char* kMx = R"(import pypto.language as pl

@pl.program
class Mx:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[16, 128], pl.FP8E4M3FN], sa: pl.Tensor[[16, 4], pl.FP8E8M0], b: pl.Tensor[[128, 32], pl.FP8E4M3FN], sb: pl.Tensor[[4, 32], pl.FP8E8M0], bias: pl.Tensor[[1, 32], pl.FP32]) -> pl.Tensor[[1, 32], pl.FP32]:
        la = pl.load(a, [0, 0], [16, 128])
        las = pl.load(sa, [0, 0], [16, 4])
        rb = pl.load(b, [0, 0], [128, 32])
        rbs = pl.load(sb, [0, 0], [4, 32])
        bt = pl.load(bias, [0, 0], [1, 32])
        c = pl.matmul_mx(la, las, rb, rbs)
        c = pl.matmul_mx_acc(c, la, las, rb, rbs)
        d = pl.tile.matmul_mx_bias(la, las, rb, rbs, bt)
        return bias
)";

TEST_CASE("matmul_mx: FP8 operands with E8M0 scales give an FP32 accumulator tile") {
  const ProgramRef p = text::parse_program(kMx);
  const Function& f = *p->find("mm");
  for (std::string_view op : {"tile.matmul_mx", "tile.matmul_mx_acc", "tile.matmul_mx_bias"}) {
    CAPTURE(op);
    const Call& c = first_call(f, op);
    CHECK(is_shaped<TileType>(c.type, DataType::FP32, {16, 32}));
    CHECK(as<TileType>(c.type.get())->memory_space == MemorySpace::Acc);
  }
  const OpRegistry& ops = standard_op_registry();
  CHECK(ops.effect(first_call(f, "tile.matmul_mx_acc"), 0) == ArgEffect::ReadWrite);
  CHECK(ops.effect(first_call(f, "tile.matmul_mx"), 0) == ArgEffect::Read);
  // The scale-address op upstream's InsertMxScaleAddr inserts writes its first argument.
  const Ref<const Call> addr_ref = ops.make_call(
      "tile.tget_scale_addr",
      {first_call(f, "tile.matmul_mx").args[1], first_call(f, "tile.matmul_mx").args[1]});
  const Call& addr = *addr_ref;
  CHECK(addr.type.get() == addr.args[0]->type.get());
  CHECK(ops.effect(addr, 0) == ArgEffect::Write);
  text::check_round_trip(*p);
}

TEST_CASE("matmul_mx: operand dtypes, scale shapes and the bias row are checked") {
  CHECK_THROWS_WITH_AS(text::parse_program(with(kMx, "a: pl.Tensor[[16, 128], pl.FP8E4M3FN]",
                                                "a: pl.Tensor[[16, 128], pl.FP16]")),
                       doctest::Contains("tile.matmul_mx: argument 0 must be a 2-D FP8E4M3FN tile"),
                       text::ParseError);
  CHECK_THROWS_WITH_AS(
      text::parse_program(with(with(kMx, "sb: pl.Tensor[[4, 32]", "sb: pl.Tensor[[2, 32]"),
                               "pl.load(sb, [0, 0], [4, 32])", "pl.load(sb, [0, 0], [2, 32])")),
      doctest::Contains("tile.matmul_mx: argument 3 must be [K/32, N]"), text::ParseError);
  CHECK_THROWS_WITH_AS(
      text::parse_program(with(with(kMx, "bias: pl.Tensor[[1, 32]", "bias: pl.Tensor[[2, 32]"),
                               "pl.load(bias, [0, 0], [1, 32])", "pl.load(bias, [0, 0], [2, 32])")),
      doctest::Contains("tile.matmul_mx_bias: argument 4 must be [1, N]"), text::ParseError);
}

constexpr const char* kSplit = R"(import pypto.language as pl

@pl.program
class Halves:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[64, 48], pl.FP32], out: pl.Out[pl.Tensor[[64, 48], pl.FP32]]) -> pl.Tensor[[64, 48], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [64, 48])
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                h = pl.aiv_shard(t)
                w = pl.aic_gather(h)
            v = pl.tile.aiv_shard(t, split=2, lane_stride=8)
            full = pl.tile.aic_gather(v, split=2)
            same = pl.tile.aiv_shard(t, split=0)
            out = pl.store(full, [0, 0], out)
        return out
)";

TEST_CASE("aiv_shard / aic_gather: the split comes from the region or the keyword") {
  const ProgramRef p = text::parse_program(kSplit);
  const Function& f = *p->find("main");
  const std::vector<const Call*> shards = calls_of(f, "tile.aiv_shard");
  REQUIRE(shards.size() == 3);
  // Inside the UP_DOWN region the split is the region's (1): the rows are halved.
  CHECK(shards[0]->kwargs.get<std::int64_t>("split") == 1);
  CHECK(is_shaped<TileType>(shards[0]->type, DataType::FP32, {32, 48}));
  CHECK(is_shaped<TileType>(shards[1]->type, DataType::FP32, {64, 24}));
  CHECK(is_shaped<TileType>(shards[2]->type, DataType::FP32, {64, 48}));
  const std::vector<const Call*> gathers = calls_of(f, "tile.aic_gather");
  REQUIRE(gathers.size() == 2);
  CHECK(is_shaped<TileType>(gathers[0]->type, DataType::FP32, {64, 48}));
  CHECK(is_shaped<TileType>(gathers[1]->type, DataType::FP32, {64, 48}));
  text::check_round_trip(*p);
}

TEST_CASE("aiv_shard / aic_gather: a split outside a region is required and in range") {
  CHECK_THROWS_WITH_AS(text::parse_program(with(kSplit, "t, split=2, lane_stride=8", "t")),
                       doctest::Contains("tile.aiv_shard: keyword 'split' is required"),
                       text::ParseError);
  CHECK_THROWS_WITH_AS(text::parse_program(with(kSplit, "t, split=0", "t, split=3")),
                       doctest::Contains("tile.aiv_shard: keyword 'split' must be in [0, 2]"),
                       text::ParseError);
}

TEST_CASE("catalog: every op a keyword selects is registered and takes that keyword") {
  const OpRegistry& ops = standard_op_registry();
  std::size_t variants = 0;
  for (const OpDef& def : ops.ops())
    for (const auto& variant : def.by_keyword) {
      const std::string& key = variant.first;
      const std::string& target = variant.second;
      CAPTURE(def.name);
      CAPTURE(target);
      const OpDef* t = ops.find(target);
      REQUIRE(t);
      CHECK((t->find_kwarg(key) || t->arg_index(key) < t->args.size()));
      ++variants;
    }
  CHECK(variants >= 9);
  // The DSL's other names of ops the corpus calls that way.
  CHECK(ops.find_spelled("tile.arange")->name == "tile.ci");
  CHECK(ops.find_spelled("tensor.arange")->name == "tensor.ci");
  CHECK(ops.find_spelled("get_subblock_idx")->name == "tensor.get_subblock_idx");
  CHECK(ops.find_spelled("tile.mrgsort")->name == "tile.mrgsort_format2");
  // A name an Int keyword takes is only valid on an Int keyword.
  OpRegistry r;
  CHECK_THROWS_AS(r.add({.name = "x.op",
                         .kwargs = {{"mode", KwargKind::String, kNoEnum, {"a", "b"}}},
                         .type_rule = [](std::string_view, const std::vector<ExprRef>&,
                                         const Attrs&) -> TypeRef { return TupleType::make({}); }}),
                  core::ValueError);
}

}  // namespace

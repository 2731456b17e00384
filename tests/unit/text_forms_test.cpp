// Tests of upstream DSL forms the text reads: every pl.MemRef form of a type annotation (the
// resolved view, the declared allocation, the unnamed one, the legacy integer forms, a slot
// subscript) and the pl.spmd / pl.at keywords of a dispatch (core_num=, optimizations=, deps=,
// allow_early_resolve=, predicate=, `as tid`) — each read, checked in the IR, and printed back
// losslessly; each with an error case.
#include <doctest/doctest.h>

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
using pypto::text_test::error_of;
using pypto::text_test::replaced;

using namespace pypto;
using namespace pypto::ir;
using core::DataType;

/// The MemRef of each tile-typed AssignStmt of `f`, in order.
std::vector<const MemRef*> tile_memrefs(const Function& f) {
  std::vector<const MemRef*> out;
  for_each_node(f.body, [&](const Node& n) {
    if (const auto* a = as<AssignStmt>(&n))
      if (const auto* t = as<TileType>(a->var->type.get())) out.push_back(t->memref.get());
  });
  return out;
}

constexpr const char* kMemRefs = R"(import pypto.language as pl

@pl.program
class Buffers:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32, pl.NZ, pl.MemRef(0, 16384, 2)], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(), pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64])
        t1: pl.Tile[[64, 64], pl.FP32, pl.MemRef("ping", slots=2)[1], pl.Mem.Vec] = pl.exp(t0)
        t2: pl.Tile[[64, 64], pl.FP32, pl.MemRef("ping", slots=2)[0], pl.Mem.Vec] = pl.exp(t1)
        t3: pl.Tile[[64, 64], pl.FP32, pl.MemRef(16384, 16384, 0), pl.Mem.Vec] = pl.exp(t2)
        t4: pl.Tile[[64, 64], pl.FP32, pl.MemRef(pl.Mem.Vec, 0, 16384, 5), pl.Mem.Vec] = pl.exp(t3)
        t5: pl.Tile[[64, 64], pl.FP32, pl.MemRef("q", 8192, 8192, slots=2)[1], pl.Mem.Vec] = pl.exp(t4)
        t6: pl.Tile[[64, 64], pl.FP32, pl.MemRef(slots=2)[0], pl.Mem.Vec] = pl.exp(t5)
        return pl.store(t6, [0, 0], o)
)";

TEST_CASE("forms: every upstream pl.MemRef form of a type annotation") {
  const ProgramRef p = text::parse_program(kMemRefs);
  const Function& f = *p->find("kernel");
  // The tensor parameter: legacy (addr, size, id) is base `mem_<id>` at offset addr.
  const auto* at = as<TensorType>(f.params[0]->type.get());
  REQUIRE(at);
  REQUIRE(at->memref);
  CHECK(at->memref->base->name_hint == "mem_2");
  CHECK(const_value(at->memref->byte_offset) == 0);
  CHECK(at->memref->size == 16384);
  CHECK_FALSE(at->memref->is_pinned);

  const std::vector<const MemRef*> m = tile_memrefs(f);
  REQUIRE(m.size() == 7);
  for (const MemRef* r : m) REQUIRE(r);
  // pl.MemRef(): an unnamed declared allocation (pinned, offset 0, size 0, one slot).
  CHECK(m[0]->is_pinned);
  CHECK(m[0]->size == 0);
  CHECK(const_value(m[0]->byte_offset) == 0);
  CHECK(m[0]->slot_count == 1);
  CHECK_FALSE(m[0]->slot_index);
  // pl.MemRef("ping", slots=2)[k]: two slots of one declared allocation.
  CHECK(m[1]->is_pinned);
  CHECK(m[1]->base->name_hint == "ping");
  CHECK(m[1]->slot_count == 2);
  CHECK(const_value(m[1]->slot_index) == 1);
  CHECK(m[2]->base == m[1]->base);
  CHECK(const_value(m[2]->slot_index) == 0);
  // Legacy forms: (addr, size, id) and (space, addr, size, id).
  CHECK(m[3]->base->name_hint == "mem_0");
  CHECK(const_value(m[3]->byte_offset) == 16384);
  CHECK(m[4]->base->name_hint == "mem_vec_5");
  CHECK(m[4]->size == 16384);
  // A slot of a resolved view keeps its offset and size.
  CHECK_FALSE(m[5]->is_pinned);
  CHECK(const_value(m[5]->byte_offset) == 8192);
  CHECK(m[5]->slot_count == 2);
  CHECK(const_value(m[5]->slot_index) == 1);
  // Each unnamed declaration is an allocation of its own.
  CHECK(m[6]->base != m[0]->base);
  CHECK(m[6]->slot_count == 2);

  text::check_round_trip(*p);
  const std::string printed = text::print(*p);
  CAPTURE(printed);
  CHECK(printed.find(R"(pl.MemRef("ping", slots=2)[1])") != std::string::npos);
  CHECK(printed.find(R"(pl.MemRef("q", 8192, 8192, slots=2)[1])") != std::string::npos);
}

TEST_CASE("forms: a bare pl.MemRef base the text does not bind is an implicit one") {
  const ProgramRef p = text::parse_program(
      replaced(kMemRefs, "pl.MemRef(16384, 16384, 0)", "pl.MemRef(mem_vec_9, 16384, 16384)"));
  const std::vector<const MemRef*> m = tile_memrefs(*p->find("kernel"));
  REQUIRE(m.size() == 7);
  REQUIRE(m[3]);
  CHECK(m[3]->base->name_hint == "mem_vec_9");
  CHECK(isa<PtrType>(m[3]->base->type));
  text::check_round_trip(*p);
}

TEST_CASE("forms: pl.MemRef errors say what and where") {
  CHECK(error_of(replaced(kMemRefs, R"(pl.MemRef("ping", slots=2)[1])", R"(pl.MemRef("ping")[1])"))
            .find("a multi-slot MemRef (slots=N, N > 1)") != std::string::npos);
  CHECK(error_of(replaced(kMemRefs, R"(pl.MemRef("ping", slots=2)[1])",
                          R"(pl.MemRef("ping", slots=2)[2])"))
            .find("a slot index in [0, 2)") != std::string::npos);
  CHECK(error_of(replaced(kMemRefs, "pl.MemRef(16384, 16384, 0)", "pl.MemRef(16384, 16384)"))
            .find("pl.MemRef takes 0, 1, 3 or 4 positional arguments, got 2") != std::string::npos);
  CHECK(error_of(replaced(kMemRefs, "pl.MemRef()", "pl.MemRef(7)"))
            .find("a declared allocation's name") != std::string::npos);
  CHECK(error_of(replaced(kMemRefs, "pl.MemRef()", "pl.MemRef(slots=0)"))
            .find("a slot count of at least 1") != std::string::npos);
}

constexpr const char* kSpmd = R"(import pypto.language as pl

@pl.program
class Dispatch:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64])
        return pl.store(t, [0, 0], o)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], g: pl.Tensor[[4, 4], pl.INT32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.spmd(4, name_hint="first", allow_early_resolve=True) as tid:
            o = self.kernel(a, o)
        with pl.spmd(core_num=4, deps=[tid], predicate=g[0, 1] > 0) as t2:
            o = self.kernel(a, o)
        with pl.spmd(4, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            t = pl.load(a, [0, 0], [64, 64])
            o = pl.store(t, [0, 0], o)
        with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=True, deps=[t2]) as t3:
            t = pl.load(a, [0, 0], [64, 64])
            o = pl.store(t, [0, 0], o)
        return o
)";

TEST_CASE("forms: pl.spmd and pl.at dispatch keywords, and pl.spmd ... as tid") {
  const ProgramRef p = text::parse_program(kSpmd);
  const Function& main = *p->find("main");
  std::vector<const ScopeStmt*> scopes;
  for_each_node(main.body, [&](const Node& n) {
    if (const auto* s = as<ScopeStmt>(&n)) scopes.push_back(s);
  });
  REQUIRE(scopes.size() == 5);  // three spmd scopes, the kernel of the third, one pl.at
  const auto* first = as<SpmdScopeStmt>(scopes[0]);
  REQUIRE(first);
  REQUIRE(first->task_id);
  CHECK(first->task_id->name_hint == "tid");
  const AttrValue* early = first->attrs.find(scope_attr::kAllowEarlyResolve);
  REQUIRE(early);
  CHECK(*early->get_if<bool>());
  CHECK(first->name_hint == "first");

  const auto* second = as<SpmdScopeStmt>(scopes[1]);
  REQUIRE(second);
  CHECK(const_value(second->core_num) == 4);
  const std::vector<ExprRef> deps = scope_attr::exprs(second->attrs, scope_attr::kDeps);
  REQUIRE(deps.size() == 1);
  CHECK(deps[0].get() == first->task_id.get());
  const AttrValue* pred = second->attrs.find(scope_attr::kPredicate);
  REQUIRE(pred);
  const auto* gt = as<Gt>(pred->get_if<ExprRef>()->get());
  REQUIRE(gt);
  const auto* read = as<Call>(gt->left.get());
  REQUIRE(read);
  CHECK(read->op->name == "tensor.read");
  CHECK_FALSE(second->attrs.contains(scope_attr::kAllowEarlyResolve));

  // optimizations= belongs to the kernel: the body becomes one with the split.
  const auto* third = as<SpmdScopeStmt>(scopes[2]);
  REQUIRE(third);
  const auto* kernel = as<InCoreScopeStmt>(scopes[3]);
  REQUIRE(kernel);
  CHECK(kernel->split == SplitMode::UpDown);

  const auto* at = as<InCoreScopeStmt>(scopes[4]);
  REQUIRE(at);
  CHECK(at->attrs.contains(scope_attr::kAllowEarlyResolve));
  REQUIRE(at->task_id);

  text::check_round_trip(*p);
  const std::string printed = text::print(*p);
  CAPTURE(printed);
  CHECK(printed.find(R"(with pl.spmd(4, name_hint="first", allow_early_resolve=True) as tid:)") !=
        std::string::npos);
  CHECK(printed.find("allow_early_resolve=True) as t3:") != std::string::npos);
}

TEST_CASE("forms: pl.spmd keyword errors say what and where") {
  CHECK(error_of(replaced(kSpmd, "pl.spmd(core_num=4,", "pl.spmd(4, core_num=4,"))
            .find("core_num once") != std::string::npos);
  CHECK(error_of(replaced(kSpmd, "pl.spmd(core_num=4,", "pl.spmd(")).find("needs core_num") !=
        std::string::npos);
  CHECK(error_of(replaced(kSpmd, "predicate=g[0, 1] > 0", "predicate=g[0, 1]"))
            .find("a BOOL scalar dispatch predicate") != std::string::npos);
  CHECK(
      error_of(replaced(kSpmd, "allow_early_resolve=True) as tid", "allow_early_resolve=1) as tid"))
          .find("True or False") != std::string::npos);
  CHECK(error_of(replaced(kSpmd,
                          "            t = pl.load(a, [0, 0], [64, 64])\n"
                          "            o = pl.store(t, [0, 0], o)\n        with pl.at(",
                          "            with pl.at(level=pl.Level.CORE_GROUP):\n"
                          "                t = pl.load(a, [0, 0], [64, 64])\n"
                          "                o = pl.store(t, [0, 0], o)\n        with pl.at("))
            .find("optimizations= on the inner pl.at") != std::string::npos);
  CHECK(error_of(replaced(kSpmd, "with pl.spmd(4, name_hint=\"first\",",
                          "with pl.spmd(4, name_hint=\"first\", windowize=True,"))
            .find("pl.spmd takes the keywords") != std::string::npos);
}

}  // namespace

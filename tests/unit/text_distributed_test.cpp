// Tests of the distributed language (`pld.`): DistributedTensor types, window buffers and their
// views, the communication context, signals, one-sided copies and collectives, read from text,
// typed by the op catalog, with the effects passes see, and printed back losslessly.
#include <doctest/doctest.h>

#include <string>

#include "pypto/ir.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"

namespace {

using namespace pypto;
using namespace pypto::ir;
using core::DataType;

constexpr const char* kRing = R"(import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class Ring:
    @pl.function(type=pl.FunctionType.InCore)
    def step(self, inp: pl.Tensor[[NR, 64], pl.FP32], out: pl.Out[pl.Tensor[[NR, 64], pl.FP32]], data: pl.InOut[pld.DistributedTensor[[NR, 64], pl.FP32]], signal: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]]) -> pl.Tensor[[NR, 64], pl.FP32]:
        ctx = pld.get_comm_ctx(data)
        me = pld.rank(ctx)
        n = pld.system.nranks(ctx)
        for dest in pl.range(n):
            pld.tensor.put(data, dest, inp, [me, 0], [dest, 0], [1, 64])
            pld.system.notify(signal, peer=dest, offsets=[me, 0], value=1, op=pld.NotifyOp.Set)
        for src in pl.range(n):
            pld.system.wait(signal=signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)
            t = pld.tile.remote_load(data, src, [src, 0], [1, 64])
            pl.store(t, [src, 0], out)
        return out

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[NR, 64], pl.FP32]) -> pl.Tensor[[NR, 64], pl.FP32]:
        data_buf = pld.alloc_window_buffer(NR * 256)
        signal_buf = pld.alloc_window_buffer(NR * 4)
        data = pld.window(data_buf, [NR, 64], dtype=pl.FP32)
        signal = pld.window(signal_buf, [NR, 1], dtype=pl.INT32)
        data = pld.tensor.allreduce(data, signal, op=pld.ReduceOp.Max, mode="ring", core_num=2)
        signal = pld.tensor.barrier(signal)
        return x
)";

/// The first call of `op` in `f`'s body (in walk order).
const Call& find_call(const Function& f, std::string_view op) {
  const Call* found = nullptr;
  for_each_node(f.body, [&](const Node& n) {
    if (const auto* c = as<Call>(&n); c && !found && c->op->name == op) found = c;
  });
  REQUIRE_MESSAGE(found, "no call of " << op);
  return *found;
}

TEST_CASE("distributed: window views, the context and signals are typed by the catalog") {
  const ProgramRef p = text::parse_program(kRing);
  const Function& step = *p->find("step");
  const auto* data = as<TensorType>(step.params[2]->type.get());
  REQUIRE(data);
  CHECK(data->distributed);
  CHECK_FALSE(as<TensorType>(step.params[0]->type.get())->distributed);
  CHECK(isa<CommCtxType>(find_call(step, "pld.system.get_comm_ctx").type));
  CHECK(as<ScalarType>(find_call(step, "pld.system.rank").type.get())->dtype == DataType::INT32);
  // A remote load is a local tile of the window's dtype.
  const auto* tile = as<TileType>(find_call(step, "pld.tile.remote_load").type.get());
  REQUIRE(tile);
  CHECK(tile->dtype == DataType::FP32);

  const Function& host = *p->find("host");
  CHECK(isa<PtrType>(find_call(host, "pld.tensor.alloc_window_buffer").type));
  const auto* window = as<TensorType>(find_call(host, "pld.tensor.window").type.get());
  REQUIRE(window);
  CHECK(window->distributed);
  CHECK(window->dtype == DataType::FP32);
  // A collective rebinds its destination: the result is that argument's type.
  const Call& all = find_call(host, "pld.tensor.allreduce");
  CHECK(all.type.get() == all.args[0]->type.get());
  CHECK(all.kwargs.get<ReduceOp>("op") == ReduceOp::Max);
}

TEST_CASE("distributed: effects follow the keywords (notify Set writes, put atomically reads)") {
  const ProgramRef p = text::parse_program(kRing);
  const OpRegistry& ops = standard_op_registry();
  const Function& step = *p->find("step");
  CHECK(ops.effect(find_call(step, "pld.system.notify"), 0) == ArgEffect::Write);
  CHECK(ops.effect(find_call(step, "pld.system.wait"), 0) == ArgEffect::Read);
  CHECK(ops.effect(find_call(step, "pld.tensor.put"), 0) == ArgEffect::Write);
  const Function& host = *p->find("host");
  CHECK(ops.effect(find_call(host, "pld.tensor.allreduce"), 1) == ArgEffect::ReadWrite);

  std::string atomic = kRing;
  const std::string plain = "[1, 64])\n            pld.system.notify";
  atomic.replace(atomic.find(plain), plain.size(),
                 "[1, 64], atomic=pld.AtomicType.Add)\n            pld.system.notify");
  const ProgramRef q = text::parse_program(atomic);
  CHECK(ops.effect(find_call(*q->find("step"), "pld.tensor.put"), 0) == ArgEffect::ReadWrite);
}

TEST_CASE("distributed: the text prints back as it reads (pld types, enums and ops)") {
  const ProgramRef p = text::parse_program(kRing);
  text::check_round_trip(*p);
  const std::string printed = text::print(*p);
  CAPTURE(printed);
  CHECK(printed.find("import pypto.language.distributed as pld") != std::string::npos);
  CHECK(printed.find("pld.DistributedTensor[[NR, 64], pl.FP32]") != std::string::npos);
  CHECK(printed.find("op=pld.NotifyOp.Set") != std::string::npos);
  CHECK(printed.find("cmp=pld.WaitCmp.Ge") != std::string::npos);
  CHECK(printed.find("op=pld.ReduceOp.Max") != std::string::npos);
}

TEST_CASE("distributed: a local tensor where a window view is due is a ParseError") {
  std::string local = kRing;
  const std::string sig = "signal: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]]";
  local.replace(local.find(sig), sig.size(), "signal: pl.InOut[pl.Tensor[[NR, 1], pl.INT32]]");
  CHECK_THROWS_WITH_AS(text::parse_program(local),
                       doctest::Contains("pld.system.notify: argument 0 must be a "
                                         "pld.DistributedTensor (a window view)"),
                       text::ParseError);
  // An annotation must say which kind of tensor the value is.
  std::string annotated = kRing;
  const std::string win = "data = pld.window(";
  annotated.replace(annotated.find(win), win.size(),
                    "data: pl.Tensor[[NR, 64], pl.FP32] = pld.window(");
  CHECK_THROWS_WITH_AS(
      text::parse_program(annotated),
      doctest::Contains("annotated pl.Tensor, the value is a pld.DistributedTensor"),
      text::ParseError);
  // An enum keyword takes its own enum.
  std::string wrong = kRing;
  const std::string set = "op=pld.NotifyOp.Set";
  wrong.replace(wrong.find(set), set.size(), "op=pld.WaitCmp.Eq");
  CHECK_THROWS_WITH_AS(text::parse_program(wrong), doctest::Contains("pld.system.notify"),
                       text::ParseError);
}

}  // namespace

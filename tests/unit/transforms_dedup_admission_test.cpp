// Tests of the admission and skip rules of pypto/transforms/deduplicate_outlined_kernels.hpp
// (seed 001, "Eligibility and equality" and the two narrowly checked exceptions): every
// DedupSkip reason with its detail, the UnknownType allow-list, Group bundles normalized through
// import_peer_buffer(peer_func=...), the identities that are never merged, and the pass run
// twice under verify-each. As in transforms_dedup_test.cpp, a program is written in the text
// format, the pass runs through the pass manager with verify-each (the IR the text cannot
// express is built with the IR builders and the pass then runs directly), the result is compared
// with the expected program (enable_auto_mapping=false) and the diagnostics log is checked.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dedup_test_support.hpp"

using namespace dedup_test;  // NOLINT: the shared runners, checks and program fragments

namespace {

/// Both twins were skipped as not closed, the detail naming `fragment`.
void check_twins_not_closed(const std::string& step, const std::string& step_copy,
                            std::string_view fragment) {
  const tf::DedupLog log = check_twins_kept(step, step_copy);
  CHECK(log.count(Kind::Skipped, DedupSkip::NotClosed) == 2);
  check_skip(log, "step", DedupSkip::NotClosed, fragment);
  check_skip(log, "step_copy", DedupSkip::NotClosed, fragment);
}

/// `f` with `extra` inserted before its final return statement (its body is a SeqStmts).
ir::FunctionRef with_stmts_before_return(const ir::Function& f, std::vector<ir::StmtRef> extra) {
  const auto& seq = static_cast<const ir::SeqStmts&>(*f.body);
  std::vector<ir::StmtRef> stmts(seq.stmts.begin(), seq.stmts.end() - 1);
  for (auto& s : extra) stmts.push_back(std::move(s));
  stmts.push_back(seq.stmts.back());
  auto copy = ir::copy_node(f);
  copy->body = ir::SeqStmts::make(std::move(stmts));
  return copy;
}

/// `f` with one more function attribute.
ir::FunctionRef with_attr(const ir::Function& f, std::string key, ir::AttrValue value) {
  auto copy = ir::copy_node(f);
  copy->attrs.entries.push_back({std::move(key), std::move(value)});
  return copy;
}

}  // namespace

// ---- NotClosed: free capture, runtime binding -----------------------------------------------

TEST_CASE("dedup admission: a kernel reading a variable defined outside it is not closed") {
  const std::string load = "t = pl.load(x, [i__FREE_VAR], [64])";
  check_twins_not_closed(kernel("step", kAddOne, {.load = load}),
                         kernel("step_copy", kAddOne, {.load = load}), "free capture");
  // The same twins without the capture merge: the capture alone keeps them apart.
  tf::DedupLog log;
  ProgramRef after =
      dedup(program(std::string(kMainTwo) + kernel("step") + kernel("step_copy")), log);
  CHECK(log.count(Kind::Merged) == 1);
  check_equal(after, program(std::string(kMainMerged) + kernel("step")));
}

TEST_CASE("dedup admission: runtime-bound declarations (`...` bodies) are not closed") {
  constexpr std::string_view kDecl = R"(
    @pl.function(type=pl.FunctionType.InCore)
    def NAME(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        ...
)";
  auto decl = [&](std::string_view name) {
    std::string s(kDecl);
    s.replace(s.find("NAME"), 4, name);
    return s;
  };
  // The text writes the flag as a `...` body.
  const ProgramRef parsed =
      parse(program(std::string(kMainTwo) + decl("step") + decl("step_copy")));
  REQUIRE(parsed->find("step")->requires_runtime_binding);
  CHECK(parsed->find("step")->body == nullptr);
  check_twins_not_closed(decl("step"), decl("step_copy"), "runtime binding");
}

// ---- HelperGraph ------------------------------------------------------------------------------

namespace {
/// A kernel `name(x, o: Out)` that calls the program function `helper` on its arguments.
std::string caller_kernel(std::string_view name, std::string_view helper) {
  return "\n    @pl.function(type=pl.FunctionType.InCore)\n    def " + std::string(name) +
         "(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> "
         "pl.Tensor[[64], pl.FP32]:\n        r = self." +
         std::string(helper) + "(x, o)\n        return o\n";
}
}  // namespace

TEST_CASE(
    "dedup admission: kernels calling program functions are helper graphs, their equal "
    "leaf helpers merge") {
  tf::DedupLog log;
  ProgramRef after =
      dedup(program(std::string(kMainTwo) + caller_kernel("step", "h") +
                    caller_kernel("step_copy", "h_copy") + kernel("h") + kernel("h_copy")),
            log);
  INFO(all_lines(log));
  // The callers are equal only once their helpers are one; they are skipped, not compared.
  check_skip(log, "step", DedupSkip::HelperGraph, "references program function h");
  check_skip(log, "step_copy", DedupSkip::HelperGraph, "references program function h_copy");
  CHECK(log.count(Kind::Skipped, DedupSkip::HelperGraph) == 2);
  REQUIRE(log.count(Kind::Merged) == 1);
  CHECK(has_line(log, "merged h <- h_copy"));
  check_equal(after, program(std::string(kMainTwo) + caller_kernel("step", "h") +
                             caller_kernel("step_copy", "h") + kernel("h")));
}

// ---- UnsupportedProjection --------------------------------------------------------------------

TEST_CASE("dedup admission: a duplicate attribute key is an unsupported projection") {
  // The text format refuses a repeated key, so the twins are built with the IR builders.
  const ProgramRef parsed =
      parse(program(std::string(kMainTwo) + kernel("step") + kernel("step_copy")));
  ProgramRef before = parsed;
  for (const char* name : {"step", "step_copy"}) {
    ir::FunctionRef f = with_attr(*before->find(name), "tag", ir::AttrValue(std::int64_t{1}));
    before = before->with_function(with_attr(*f, "tag", ir::AttrValue(std::int64_t{2})));
  }
  tf::DedupLog log;
  ProgramRef after = dedup_unverified(*before, log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Merged) == 0);
  CHECK(log.count(Kind::Skipped, DedupSkip::UnsupportedProjection) == 2);
  check_skip(log, "step", DedupSkip::UnsupportedProjection, "duplicate attribute key 'tag'");
  check_skip(log, "step_copy", DedupSkip::UnsupportedProjection, "at attrs");
  CHECK(after.get() == before.get());
}

TEST_CASE(
    "dedup admission: nesting deeper than the projection's limit is an unsupported "
    "projection") {
  const ProgramRef parsed =
      parse(program(std::string(kMainTwo) + kernel("step") + kernel("step_copy")));
  ProgramRef before = parsed;
  for (const char* name : {"step", "step_copy"}) {
    const ir::Function& f = *before->find(name);
    ir::ExprRef e = ir::ConstInt::make(1);
    for (int i = 0; i < 600; ++i) e = ir::Neg::make(e);
    ir::VarRef v = ir::Var::make("deep", e->type);
    before = before->with_function(with_stmts_before_return(f, {ir::AssignStmt::make(v, e)}));
  }
  tf::DedupLog log;
  ProgramRef after = dedup_unverified(*before, log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Merged) == 0);
  check_skip(log, "step", DedupSkip::UnsupportedProjection, "nesting deeper than 512");
  check_skip(log, "step_copy", DedupSkip::UnsupportedProjection, "at body");
  CHECK(after.get() == before.get());
}

// ---- ProgramKept ------------------------------------------------------------------------------

TEST_CASE("dedup admission: an opaque attribute payload keeps the whole Program") {
  const ProgramRef parsed =
      parse(program(std::string(kMainTwo) + kernel("step") + kernel("step_copy")));
  // On main, not on a candidate: it may hide a reference to either twin.
  const ProgramRef before = parsed->with_function(
      with_attr(*parsed->find("main"), "host", ir::OpaquePayload{"host.Schedule", nullptr}));
  tf::DedupLog log;
  ProgramRef after = dedup_unverified(*before, log);
  INFO(all_lines(log));
  CHECK(after.get() == before.get());
  CHECK(log.count(Kind::Merged) == 0);
  REQUIRE(log.events().size() == 1);
  check_skip(log, "main", DedupSkip::ProgramKept, "opaque attribute payload");
  // Without the payload the twins merge.
  tf::DedupLog plain;
  CHECK(dedup_unverified(*parsed, plain)->functions.size() == 2);
}

TEST_CASE("dedup admission: a callee naming no function keeps the whole Program") {
  const ProgramRef parsed =
      parse(program(std::string(kMainTwo) + kernel("step") + kernel("step_copy")));
  const ir::Function& main = *parsed->find("main");
  auto ghost = ir::Call::make(ir::GlobalVar::make("ghost"), {main.params[0]}, main.params[0]->type);
  const ProgramRef before =
      parsed->with_function(with_stmts_before_return(main, {ir::EvalStmt::make(ghost)}));
  tf::DedupLog log;
  ProgramRef after = dedup_unverified(*before, log);
  INFO(all_lines(log));
  CHECK(after.get() == before.get());
  CHECK(log.count(Kind::Merged) == 0);
  REQUIRE(log.events().size() == 1);
  check_skip(log, "main", DedupSkip::ProgramKept, "callee 'ghost' names no function");
}

TEST_CASE("dedup admission: a peer_func naming no function keeps the whole Program") {
  const std::string peer =
      "u = pl.add(t, 1.0)\n        p = pl.system.import_peer_buffer(name=\"buf\", "
      "peer_func=\"ghost\")";
  const std::string text =
      program(std::string(kMainTwo) + kernel("step", peer) + kernel("step_copy", peer));
  tf::DedupLog log;
  ProgramRef after = dedup(text, log);
  INFO(all_lines(log));
  check_equal(after, text);
  CHECK(log.count(Kind::Merged) == 0);
  REQUIRE(log.events().size() == 1);
  check_skip(log, "step", DedupSkip::ProgramKept, "peer_func 'ghost' names no function");
}

// ---- NotClosed: explicit storage and communication resources ---------------------------------

TEST_CASE("dedup admission: a MemRef in the signature is an explicit storage resource") {
  const std::string x_type = R"(pl.Tensor[[64], pl.FP32, pl.MemRef("mem_ddr_0", 64, 1024)])";
  check_twins_not_closed(kernel("step", kAddOne, {.x_type = x_type}),
                         kernel("step_copy", kAddOne, {.x_type = x_type}),
                         "explicit storage/communication resource (MemRef)");
}

TEST_CASE("dedup admission: a window buffer is an explicit communication resource") {
  const std::string win =
      "u = pl.add(t, 1.0)\n        win: pl._dump.WindowBuffer(4096) = "
      "pl._dump.call(pl.comm.alloc_window, type=pl._dump.WindowBuffer)";
  check_twins_not_closed(kernel("step", win), kernel("step_copy", win),
                         "explicit storage/communication resource (WindowBuffer");
}

TEST_CASE("dedup admission: a CommCtx is an explicit communication resource") {
  const std::string ctx =
      "u = pl.add(t, 1.0)\n        ctx: pld.CommCtx = pl._dump.call(pld.comm.context, "
      "type=pld.CommCtx)";
  check_twins_not_closed(kernel("step", ctx), kernel("step_copy", ctx),
                         "explicit storage/communication resource (CommCtxType)");
}

// ---- UnknownType: the statement-only allow-list ----------------------------------------------

TEST_CASE("dedup admission: an allow-listed call whose result is bound to a name is rejected") {
  const std::string bound =
      "u = pl.add(t, 1.0)\n        s = pl.system.sync_set(pipe=pl.PipeType.V, event_id=0)";
  check_twins_not_closed(kernel("step", bound), kernel("step_copy", bound),
                         "unresolved value type (UnknownType in a");
}

TEST_CASE("dedup admission: an allow-listed EvalStmt call also used as an operand is rejected") {
  // One Call node shared by an EvalStmt and an operand of another call (a DAG edge the text
  // cannot write): the edge into the operand position is checked too.
  const ProgramRef parsed =
      parse(program(std::string(kMainTwo) + kernel("step") + kernel("step_copy")));
  ProgramRef before = parsed;
  for (const char* name : {"step", "step_copy"}) {
    auto set = ir::Call::make(ir::Op::make("system.sync_set"), {}, ir::UnknownType::make(),
                              {{"pipe", std::int64_t{1}}, {"event_id", std::int64_t{0}}});
    auto wait = ir::Call::make(ir::Op::make("system.sync_wait"), {set}, ir::UnknownType::make(),
                               {{"pipe", std::int64_t{1}}, {"event_id", std::int64_t{0}}});
    before = before->with_function(with_stmts_before_return(
        *before->find(name), {ir::EvalStmt::make(set), ir::EvalStmt::make(wait)}));
  }
  tf::DedupLog log;
  ProgramRef after = dedup_unverified(*before, log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Merged) == 0);
  CHECK(after.get() == before.get());
  check_skip(log, "step", DedupSkip::NotClosed, "UnknownType in a Call of system.sync_set");
  check_skip(log, "step_copy", DedupSkip::NotClosed, "UnknownType in a Call of system.sync_set");
}

TEST_CASE("dedup admission: UnknownType in a signature is rejected") {
  constexpr std::string_view kMainTag = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]], s: pl._dump.Unknown) -> pl.Tensor[[64], pl.FP32]:
        x1 = self.step(x0, o1, s)
        x2 = self.step_copy(x1, o2, s)
        return x2
)";
  auto tagged = [](std::string_view name) {
    return "\n    @pl.function(type=pl.FunctionType.InCore)\n    def " + std::string(name) +
           "(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]], s: "
           "pl._dump.Unknown) -> pl.Tensor[[64], pl.FP32]:\n        t = pl.load(x, [0], [64])\n"
           "        u = pl.add(t, 1.0)\n        pl.store(u, [0], o)\n        return o\n";
  };
  const std::string text = program(std::string(kMainTag) + tagged("step") + tagged("step_copy"));
  tf::DedupLog log;
  ProgramRef after = dedup(text, log);
  INFO(all_lines(log));
  check_equal(after, text);
  CHECK(log.count(Kind::Merged) == 0);
  check_skip(log, "step", DedupSkip::NotClosed, "UnknownType in a Var");
  check_skip(log, "step_copy", DedupSkip::NotClosed, "unresolved value type");
}

TEST_CASE("dedup admission: a call outside the allow-list may not carry UnknownType") {
  const std::string other =
      "u = pl.add(t, 1.0)\n        pl._dump.call(pl.tile.get_block_idx, type=pl._dump.Unknown)";
  check_twins_not_closed(kernel("step", other), kernel("step_copy", other),
                         "UnknownType in a Call of tile.get_block_idx");
}

TEST_CASE("dedup admission: UnknownType nested in a tuple type is rejected") {
  const std::string nested =
      "u = pl.add(t, 1.0)\n        pl._dump.call(pl.system.sync_set, pipe=pl.PipeType.V, "
      "event_id=0, "
      "type=pl.Tuple[pl._dump.Unknown])";
  check_twins_not_closed(kernel("step", nested), kernel("step_copy", nested),
                         "UnknownType in a TupleType");
}

TEST_CASE("dedup admission: UnknownType in call metadata (an attribute expression) is rejected") {
  const std::string meta =
      "u = pl.add(t, 1.0)\n        pl.system.sync_set(pipe=pl.PipeType.V, event_id=0, "
      "attrs={\"e\": "
      "pl._dump.call(pl.tile.get_block_idx, type=pl._dump.Unknown)})";
  check_twins_not_closed(kernel("step", meta), kernel("step_copy", meta),
                         "UnknownType in a Call of tile.get_block_idx");
}

/// Twins `step` / `step_copy` (or `step` twice when `merged`) taking the windows `d` and `s`.
std::string windowed(std::string_view step, std::string_view step_copy, bool merged) {
  const std::string main = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]], d: pl.InOut[pld.DistributedTensor[[64], pl.FP32]], s: pl.InOut[pld.DistributedTensor[[64], pl.INT32]]) -> pl.Tensor[[64], pl.FP32]:
        x1 = self.step(x0, o1, d, s)
        x2 = self.SECOND(x1, o2, d, s)
        return x2
)";
  auto kernel = [](std::string_view name, std::string_view body) {
    return "\n    @pl.function(type=pl.FunctionType.InCore)\n    def " + std::string(name) +
           "(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]], d: "
           "pl.InOut[pld.DistributedTensor[[64], pl.FP32]], s: "
           "pl.InOut[pld.DistributedTensor[[64], pl.INT32]]) -> pl.Tensor[[64], pl.FP32]:\n"
           "        t = pl.load(x, [0], [64])\n        " +
           std::string(body) + "\n        pl.store(u, [0], o)\n        return o\n";
  };
  std::string m = main;
  m.replace(m.find("SECOND"), 6, merged ? "step" : "step_copy");
  return program(m + kernel("step", step) + (merged ? "" : kernel("step_copy", step_copy)));
}

TEST_CASE(
    "dedup admission: every allow-listed statement-only call is admitted, equality still "
    "holds") {
  const std::string calls =
      "u = pl.add(t, 1.0)\n"
      "        pl.system.set_ffts(x)\n"
      "        pl.system.sync_set(pipe=pl.PipeType.V, event_id=0)\n"
      "        pl.system.sync_wait(pipe=pl.PipeType.V, event_id=0)\n"
      "        pld.tensor.put(d, 1, x)\n"
      "        pld.tile.remote_store(u, d, 1, [0])\n"
      "        pld.tensor.remote_store(x, d, 1, [0])\n"
      "        pld.system.notify(s, 1, [0], 1, op=pld.NotifyOp.AtomicAdd)\n"
      "        pld.system.wait(s, [0], 1, cmp=pld.WaitCmp.Eq)\n"
      "        pld.system.defer_wait(s, [0], 1, cmp=pld.WaitCmp.Ge)";
  tf::DedupLog log;
  ProgramRef after = dedup(windowed(calls, calls, false), log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Skipped) == 0);
  REQUIRE(log.count(Kind::Merged) == 1);
  check_equal(after, windowed(calls, calls, true));
  // The exception does not relax equality: a different event id keeps the twins apart.
  std::string other = calls;
  other.replace(other.find("pl.PipeType.V, event_id=0)\n        pld"), 26,
                "pl.PipeType.V, event_id=1)");
  tf::DedupLog kept;
  dedup(windowed(calls, other, false), kept);
  CHECK(kept.count(Kind::Merged) == 0);
  CHECK(kept.count(Kind::Skipped) == 0);
}

// ---- prefetch handles ----------------------------------------------------------------------

namespace {
/// main calling the prefetching twins step / step_copy with a workspace.
constexpr std::string_view kMainPrefetch = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x1 = self.step(x0, ws, o1)
        x2 = self.step_copy(x1, ws, o2)
        return x2
)";
/// A kernel `name(x, ws, o: Out)` whose `prefetch` lines run before the load.
std::string prefetching(std::string_view name, std::string_view prefetch) {
  return "\n    @pl.function(type=pl.FunctionType.InCore)\n    def " + std::string(name) +
         "(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8], o: "
         "pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:\n" +
         std::string(prefetch) +
         "        t = pl.load(x, [0], [64])\n        u = pl.add(t, 1.0)\n"
         "        pl.store(u, [0], o)\n        return o\n";
}
constexpr std::string_view kLocalPrefetch =
    "        ctx = pl.prefetch.make_context(ws)\n"
    "        ev = pl.prefetch.async_prefetch(x, ctx)\n"
    "        ss = pl.prefetch.session(ctx)\n"
    "        done = pl.prefetch.wait(ev, ss)\n";
}  // namespace

TEST_CASE("dedup admission: prefetch handles produced and consumed locally are admitted") {
  // Seed 001's second exception: each invocation creates its own context.
  tf::DedupLog log;
  ProgramRef after =
      dedup(program(std::string(kMainPrefetch) + prefetching("step", kLocalPrefetch) +
                    prefetching("step_copy", kLocalPrefetch)),
            log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Skipped) == 0);
  REQUIRE(log.count(Kind::Merged) == 1);
  check_equal(after, program(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x1 = self.step(x0, ws, o1)
        x2 = self.step(x1, ws, o2)
        return x2
)" + prefetching("step", kLocalPrefetch)));
}

TEST_CASE("dedup admission: a wait on another context's session keeps the kernels apart") {
  // The wait must use the event's originating context: here the session is of a second one.
  const std::string mixed =
      "        ctx = pl.prefetch.make_context(ws)\n"
      "        ctx2 = pl.prefetch.make_context(ws)\n"
      "        ev = pl.prefetch.async_prefetch(x, ctx)\n"
      "        ss = pl.prefetch.session(ctx2)\n"
      "        done = pl.prefetch.wait(ev, ss)\n";
  const ProgramRef before = parse(program(std::string(kMainPrefetch) + prefetching("step", mixed) +
                                          prefetching("step_copy", mixed)));
  tf::DedupLog log;
  ProgramRef after = dedup(*before, log);
  INFO(all_lines(log));
  CHECK(after.get() == before.get());
  CHECK(log.count(Kind::Merged) == 0);
  CHECK(log.count(Kind::Skipped, DedupSkip::NotClosed) == 2);
  check_skip(log, "step", DedupSkip::NotClosed, "prefetch handle");
}

TEST_CASE("dedup admission: a prefetch context escaping through a signature is not closed") {
  auto taking = [](std::string_view name) {
    return "\n    @pl.function(type=pl.FunctionType.InCore)\n    def " + std::string(name) +
           "(self, x: pl.Tensor[[64], pl.FP32], ctx: pl.PrefetchAsyncContext, o: "
           "pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:\n"
           "        ev = pl.prefetch.async_prefetch(x, ctx)\n"
           "        ss = pl.prefetch.session(ctx)\n"
           "        done = pl.prefetch.wait(ev, ss)\n"
           "        t = pl.load(x, [0], [64])\n        u = pl.add(t, 1.0)\n"
           "        pl.store(u, [0], o)\n        return o\n";
  };
  const ProgramRef before = parse(program(std::string(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        ctx = pl.prefetch.make_context(ws)
        x1 = self.step(x0, ctx, o1)
        x2 = self.step_copy(x1, ctx, o2)
        return x2
)") + taking("step") + taking("step_copy")));
  tf::DedupLog log;
  ProgramRef after = dedup(*before, log);
  INFO(all_lines(log));
  CHECK(after.get() == before.get());
  CHECK(log.count(Kind::Merged) == 0);
  check_skip(log, "step", DedupSkip::NotClosed, "prefetch context 'ctx' is a parameter");
  check_skip(log, "step_copy", DedupSkip::NotClosed, "prefetch context 'ctx' is a parameter");
}

// ---- Group bundles: peer_func normalization ---------------------------------------------------

namespace {
/// The AIC member: imports the buffer of `peer`, then `extra` (a statement or empty).
std::string cube(std::string_view name, std::string_view peer, std::string_view extra = "") {
  return producer(name, {.type = "AIC", .scale = "2.0", .peer = peer, .extra = extra});
}
/// The AIV member: imports the buffer of `peer`, then `extra` (a statement or empty).
std::string vec(std::string_view name, std::string_view peer, std::string_view extra = "") {
  return consumer(name, {.type = "AIV", .peer = peer, .extra = extra});
}
}  // namespace

TEST_CASE(
    "dedup admission: Groups whose AIC/AIV members name each other through peer_func "
    "merge, the names normalized to positions") {
  tf::DedupLog log;
  ProgramRef after = dedup(
      program(std::string(kMainGroups) + group("g_a", "cube_a", "vec_a") + cube("cube_a", "vec_a") +
              vec("vec_a", "cube_a") + group("g_b", "cube_b", "vec_b") + cube("cube_b", "vec_b") +
              vec("vec_b", "cube_b")),
      log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Skipped) == 0);
  REQUIRE(log.count(Kind::Merged) == 1);
  CHECK(has_line(log, "merged g_a <- g_b cube_b=>cube_a vec_b=>vec_a"));
  // The survivors keep their own peer_func names (they already name survivors).
  check_equal(after, program(std::string(kMainGroupsMerged) + group("g_a", "cube_a", "vec_a") +
                             cube("cube_a", "vec_a") + vec("vec_a", "cube_a")));
}

TEST_CASE("dedup admission: a bundle whose peer_func names another position does not merge") {
  // In g_b the AIC member imports its own buffer (position 0) where g_a's imports the AIV
  // member's (position 1): equal as text up to names, different once normalized.
  const std::string text =
      program(std::string(kMainGroups) + group("g_a", "cube_a", "vec_a") + cube("cube_a", "vec_a") +
              vec("vec_a", "cube_a") + group("g_b", "cube_b", "vec_b") + cube("cube_b", "cube_b") +
              vec("vec_b", "cube_b"));
  tf::DedupLog log;
  ProgramRef after = dedup(text, log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Skipped) == 0);  // both admitted, compared, found different
  CHECK(log.count(Kind::Merged) == 0);
  check_equal(after, text);
}

TEST_CASE("dedup admission: a Group named like a position token does not alias a position") {
  // g_a's AIC member imports the buffer of its own Group, which is named as the position token
  // of a second member would be; g_b's imports its AIV peer (position 1). Different bundles:
  // the tokens must not be able to spell a function's name.
  const std::string text =
      program(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        o1 = self.__dedup_member_1(a, o)
        o2 = self.g_b(a, o1)
        return o2
)" + group("__dedup_member_1", "cube_a", "vec_a") +
              cube("cube_a", "__dedup_member_1") + vec("vec_a", "cube_a") +
              group("g_b", "cube_b", "vec_b") + cube("cube_b", "vec_b") + vec("vec_b", "cube_b"));
  tf::DedupLog log;
  ProgramRef after = dedup(text, log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Merged) == 0);
  check_equal(after, text);
}

TEST_CASE("dedup admission: a Group member named by a peer_func outside its bundle blocks it") {
  // `probe`, an ordinary kernel called from main, imports vec_a's buffer.
  const std::string text =
      program(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        o1 = self.g_a(a, o)
        o2 = self.g_b(a, o1)
        o3 = self.probe(o2)
        return o3
)" + group("g_a", "cube_a", "vec_a") +
              cube("cube_a", "vec_a") + vec("vec_a", "cube_a") + group("g_b", "cube_b", "vec_b") +
              cube("cube_b", "vec_b") + vec("vec_b", "cube_b") + vec("probe", "vec_a"));
  tf::DedupLog log;
  ProgramRef after = dedup(text, log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Merged) == 0);
  check_equal(after, text);
  check_skip(log, "g_a", DedupSkip::BlockedBundle, "member vec_a is also used by probe");
  check_skip(log, "cube_a", DedupSkip::BlockedBundle, "vec_a");
  check_skip(log, "vec_a", DedupSkip::BlockedBundle, "probe");
  check_skip(log, "probe", DedupSkip::HelperGraph, "references program function vec_a");
  CHECK(skip_of(log, "g_b") == nullptr);  // admitted, but alone
}

TEST_CASE("dedup admission: a member naming a function outside its bundle blocks it") {
  const std::string text =
      program(std::string(kMainGroups) + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def side(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        o1 = self.cube_x(a, o)
        return o1
)" + group("g_a", "cube_a", "vec_a") +
              cube("cube_a", "cube_x") + vec("vec_a", "cube_a") + group("g_b", "cube_b", "vec_b") +
              cube("cube_b", "cube_x") + vec("vec_b", "cube_b") + cube("cube_x", ""));
  tf::DedupLog log;
  ProgramRef after = dedup(text, log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Merged) == 0);
  check_equal(after, text);
  check_skip(log, "g_a", DedupSkip::BlockedBundle, "member cube_a references cube_x outside");
  check_skip(log, "g_b", DedupSkip::BlockedBundle, "member cube_b references cube_x outside");
}

TEST_CASE("dedup admission: Group members may use the statement-only sync calls") {
  // Cross-core synchronization is what AIC/AIV members of a Group typically hold; the
  // allow-list admits it in bundles exactly as in ordinary kernels.
  const std::string set = "pl.system.sync_set(pipe=pl.PipeType.V, event_id=0)";
  const std::string wait = "pl.system.sync_wait(pipe=pl.PipeType.V, event_id=0)";
  tf::DedupLog log;
  ProgramRef after = dedup(program(std::string(kMainGroups) + group("g_a", "cube_a", "vec_a") +
                                   cube("cube_a", "vec_a", set) + vec("vec_a", "cube_a", wait) +
                                   group("g_b", "cube_b", "vec_b") + cube("cube_b", "vec_b", set) +
                                   vec("vec_b", "cube_b", wait)),
                           log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Skipped) == 0);
  REQUIRE(log.count(Kind::Merged) == 1);
  CHECK(has_line(log, "merged g_a <- g_b cube_b=>cube_a vec_b=>vec_a"));
  check_equal(after, program(std::string(kMainGroupsMerged) + group("g_a", "cube_a", "vec_a") +
                             cube("cube_a", "vec_a", set) + vec("vec_a", "cube_a", wait)));
}

// ---- identities that are never merged ---------------------------------------------------------

TEST_CASE(
    "dedup admission: equal Orchestration, Graph, Spmd and Opaque functions keep their "
    "identity") {
  for (std::string_view type : {"Orchestration", "Graph", "Spmd", "Opaque"}) {
    CAPTURE(type);
    auto wrapper = [&](std::string_view name) {
      return "\n    @pl.function(type=pl.FunctionType." + std::string(type) + ")\n    def " +
             std::string(name) +
             "(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> "
             "pl.Tensor[[64], pl.FP32]:\n        r = self.k(x, o)\n        return o\n";
    };
    const std::string text = program(std::string(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x1 = self.w_a(x0, o1)
        x2 = self.w_b(x1, o2)
        return x2
)") + wrapper("w_a") + wrapper("w_b") +
                                     kernel("k"));
    tf::DedupLog log;
    ProgramRef after = dedup(text, log);
    INFO(all_lines(log));
    CHECK(log.count(Kind::Merged) == 0);
    CHECK(log.events().empty());  // not candidates: nothing to report
    CHECK(after->functions.size() == 4);
    check_equal(after, text);
  }
}

// ---- verify-each and idempotence --------------------------------------------------------------

TEST_CASE("dedup admission: a merged program passes verify-each and a second run changes nothing") {
  const std::string text =
      program(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]], a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x1 = self.step(x0, o1)
        x2 = self.step_copy(x1, o2)
        x3 = self.k(x2, o1)
        x4 = self.k_copy(x3, o2)
        y1 = self.g_a(a, o)
        y2 = self.g_b(a, y1)
        return x4
)" + caller_kernel("step", "h") +
              caller_kernel("step_copy", "h_copy") + kernel("h") + kernel("h_copy") +
              kernel("k", "u = pl.add(t, 2.0)") + kernel("k_copy", "u = pl.add(t, 2.0)") +
              group("g_a", "cube_a", "vec_a") + cube("cube_a", "vec_a") + vec("vec_a", "cube_a") +
              group("g_b", "cube_b", "vec_b") + cube("cube_b", "vec_b") + vec("vec_b", "cube_b"));
  tf::DedupLog first, second;
  tf::DedupOptions o1, o2;
  o1.on_event = first.sink();
  o2.on_event = second.sink();
  std::vector<ProgramRef> outputs;
  tf::PassManagerOptions pm = verify_each_options();
  pm.instruments.push_back(
      [&](const tf::Pass&, const ir::Program& p, tf::PropertySet) { outputs.emplace_back(&p); });
  ProgramRef twice = tf::PassManager({tf::DeduplicateOutlinedKernels(std::move(o1)),
                                      tf::DeduplicateOutlinedKernels(std::move(o2))},
                                     std::move(pm))
                         .run(*parse(text));
  INFO(all_lines(first));
  INFO(all_lines(second));
  REQUIRE(outputs.size() == 2);
  CHECK(first.count(Kind::Merged) == 3);
  CHECK(has_line(first, "merged g_a <- g_b cube_b=>cube_a vec_b=>vec_a"));
  CHECK(has_line(first, "merged h <- h_copy"));
  CHECK(has_line(first, "merged k <- k_copy"));
  // The second run finds nothing more (step / step_copy are still helper graphs) and returns
  // its input.
  CHECK(second.count(Kind::Merged) == 0);
  CHECK(second.count(Kind::Skipped, DedupSkip::HelperGraph) == 2);
  CHECK(twice.get() == outputs[0].get());
  check_equal(twice, program(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]], a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x1 = self.step(x0, o1)
        x2 = self.step_copy(x1, o2)
        x3 = self.k(x2, o1)
        x4 = self.k(x3, o2)
        y1 = self.g_a(a, o)
        y2 = self.g_a(a, y1)
        return x4
)" + caller_kernel("step", "h") +
                             caller_kernel("step_copy", "h") + kernel("h") +
                             kernel("k", "u = pl.add(t, 2.0)") + group("g_a", "cube_a", "vec_a") +
                             cube("cube_a", "vec_a") + vec("vec_a", "cube_a")));
}

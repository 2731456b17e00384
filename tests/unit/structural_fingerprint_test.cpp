// Tests of pypto/structural/fingerprint.hpp and structural_equal_hashed: a function's hash with
// its hash walk's census, stream and observations; unsupported IR reported with its field path
// (thrown, or only flagged in the result); the hashed equality agreeing with structural_equal.
// Programs are written in the text format; what the text cannot express (a duplicate attribute key,
// sharing that differs) is built with the IR builders.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/ir.hpp"
#include "pypto/structural.hpp"
#include "pypto/structural/fingerprint.hpp"
#include "pypto/text/parser.hpp"

namespace {

using namespace pypto::ir;  // NOLINT: the tests read like the IR they build
namespace structural = pypto::structural;
using structural::Fingerprint;
using structural::FingerprintOptions;
using structural::FingerprintStream;

/// `step`, `step_copy` (equal to it but for its name), `step_two` (adds 2.0, not 1.0), `capture`
/// (loads at a variable defined outside it) and `dyn` (its shape is the dynamic symbol M).
constexpr std::string_view kProgram = R"(
import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def step(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        u = pl.add(t, 1.0)
        pl.store(u, [0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def step_copy(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        u = pl.add(t, 1.0)
        pl.store(u, [0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def step_two(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        u = pl.add(t, 2.0)
        pl.store(u, [0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def capture(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [i__FREE_VAR], [64])
        u = pl.add(t, 1.0)
        pl.store(u, [0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def dyn(self, x: pl.Tensor[[M], pl.FP32], o: pl.Out[pl.Tensor[[M], pl.FP32]]) -> pl.Tensor[[M], pl.FP32]:
        t = pl.load(x, [0], [64])
        u = pl.add(t, 1.0)
        pl.store(u, [0], o)
        return o
)";

const Program& program() {
  static const ProgramRef p = pypto::text::parse_program(kProgram);
  return *p;
}
const Function& fn(std::string_view name) {
  const FunctionRef f = program().find(name);
  REQUIRE(f);
  return *f;
}

/// The fingerprint of `f` with its stream written to `stream` (cleared first).
Fingerprint with_stream(const Function& f, FingerprintStream& stream) {
  stream.clear();
  FingerprintOptions options;
  options.stream = &stream;
  return structural::fingerprint(f, options);
}

bool same_words(const FingerprintStream& a, const FingerprintStream& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(std::uint32_t)) == 0;
}

/// Counts the nodes a walk enters, and the Calls among them.
struct Counter final : structural::FingerprintObserver {
  std::uint64_t nodes = 0, calls = 0;
  void walked(const Node& n) override {
    ++nodes;
    if (isa<Call>(n)) ++calls;
  }
};

/// `f` with one more function attribute.
FunctionRef with_attr(const Function& f, std::string key, AttrValue value) {
  auto copy = copy_node(f);
  copy->attrs.entries.push_back({std::move(key), std::move(value)});
  return copy;
}

/// `f(p: T, q: U) -> T: return p`.
FunctionRef two_params(TypeRef tp, TypeRef tq) {
  const VarRef p = Var::make("p", tp), q = Var::make("q", std::move(tq));
  return Function::make("f", {{p}, {q}}, {std::move(tp)}, SeqStmts::make({ReturnStmt::make({p})}),
                        FunctionType::InCore);
}
TypeRef tensor64() { return TensorType::make(pypto::core::DataType::FP32, {ConstInt::make(64)}); }

}  // namespace

TEST_CASE("fingerprint: the hash is structural_hash, the census counts the walk") {
  const Function& f = fn("step");
  const Fingerprint fp = structural::fingerprint(f);
  CHECK(fp.supported);
  CHECK(fp.hash == structural_hash(f));
  CHECK(fp.census.count(NodeKind::Function) == 1);
  CHECK(fp.census.count(NodeKind::Call) == 3);  // load, add, store
  CHECK(fp.census.free_vars == 0);
  CHECK(fp.census.root_signature_symbols == 0);
  std::uint64_t per_kind = 0;
  for (std::uint32_t k : fp.census.kinds) per_kind += k;
  CHECK(per_kind == fp.census.records);
  // Auto-mapping changes nothing of a closed function's hash, and it agrees with structural_hash.
  FingerprintOptions automap;
  automap.enable_auto_mapping = true;
  CHECK(structural::fingerprint(f, automap).hash == structural_hash(f, true));
}

TEST_CASE("fingerprint: equal functions give equal fingerprints and equal exact streams") {
  FingerprintStream a, b;
  const Fingerprint fa = with_stream(fn("step"), a);
  const Fingerprint fb = with_stream(fn("step_copy"), b);
  REQUIRE(fa.supported);
  REQUIRE(fb.supported);
  CHECK(fa.stream_exact);
  CHECK(fb.stream_exact);
  CHECK(fa.hash == fb.hash);
  CHECK(fa.census.records == fb.census.records);
  CHECK(std::memcmp(fa.census.kinds, fb.census.kinds, sizeof fa.census.kinds) == 0);
  CHECK(a.size() > fa.census.records);  // at least a token per record, plus the leaves
  CHECK(same_words(a, b));
  // The same walk again appends the same words after the first.
  FingerprintOptions options;
  options.stream = &a;
  CHECK(structural::fingerprint(fn("step_copy"), options).hash == fa.hash);
  REQUIRE(a.size() == 2 * b.size());
  CHECK(std::memcmp(a.data() + b.size(), b.data(), b.size() * sizeof(std::uint32_t)) == 0);
}

TEST_CASE("fingerprint: a one-field difference changes the hash and the stream") {
  FingerprintStream a, c;
  const Fingerprint fa = with_stream(fn("step"), a);
  const Fingerprint fc = with_stream(fn("step_two"), c);
  REQUIRE(fa.stream_exact);
  REQUIRE(fc.stream_exact);
  CHECK_FALSE(structural_equal(fn("step"), fn("step_two")));
  CHECK(fa.hash != fc.hash);
  CHECK(fa.census.records == fc.census.records);  // the same shape: only a constant differs
  CHECK(a.size() == c.size());
  CHECK_FALSE(same_words(a, c));
}

TEST_CASE("fingerprint: a free variable is counted in the census, not under auto-mapping") {
  const Function& f = fn("capture");
  const Fingerprint fp = structural::fingerprint(f);
  CHECK(fp.supported);
  CHECK(fp.census.free_vars == 1);
  CHECK(structural::fingerprint(fn("step")).census.free_vars == 0);
  FingerprintOptions automap;
  automap.enable_auto_mapping = true;
  CHECK(structural::fingerprint(f, automap).census.free_vars == 0);  // numbered, not free
}

TEST_CASE("fingerprint: the census counts the signature symbols the root binds") {
  const Function& f = fn("dyn");
  const Fingerprint fp = structural::fingerprint(f);
  CHECK(fp.census.root_signature_symbols == 1);
  CHECK(fp.census.root_signature_symbols == structural::signature_symbols(f).size());
}

TEST_CASE("fingerprint: the observer is told of every node the census counts") {
  Counter counter;
  FingerprintOptions options;
  options.observer = &counter;
  const Fingerprint fp = structural::fingerprint(fn("step"), options);
  CHECK(counter.nodes == fp.census.records);
  CHECK(counter.calls == fp.census.count(NodeKind::Call));
  // The observer is unhooked after the call: a later walk does not reach it.
  structural::fingerprint(fn("step_copy"));
  CHECK(structural_hash(fn("step_copy")) == fp.hash);
  CHECK(counter.nodes == fp.census.records);
}

TEST_CASE("fingerprint: an unsupported node is reported with its field path") {
  const FunctionRef f = with_attr(*with_attr(fn("step"), "tag", AttrValue(std::int64_t{1})), "tag",
                                  AttrValue(std::int64_t{2}));
  FingerprintStream stream;
  stream.push_back(7);  // words already there stay, and nothing is appended
  FingerprintOptions options;
  options.stream = &stream;
  std::string reason, path;
  try {
    structural::fingerprint(*f, options);
    FAIL("fingerprint accepted a duplicate attribute key");
  } catch (const StructuralComparisonUnsupported& e) {
    reason = e.reason();
    path = e.field_path();
  }
  CHECK(reason.find("duplicate attribute key 'tag'") != std::string::npos);
  CHECK(path == "attrs");
  REQUIRE(stream.size() == 1);
  CHECK(stream[0] == 7);
  // structural_hash throws the same.
  try {
    structural_hash(*f);
    FAIL("structural_hash accepted a duplicate attribute key");
  } catch (const StructuralComparisonUnsupported& e) {
    CHECK(e.reason() == reason);
    CHECK(e.field_path() == path);
  }
  // Not thrown, the result only says so.
  options.throw_unsupported = false;
  const Fingerprint quiet = structural::fingerprint(*f, options);
  CHECK_FALSE(quiet.supported);
  CHECK_FALSE(quiet.stream_exact);
  CHECK(quiet.hash == 0);
  CHECK(stream.size() == 1);
  // A supported function is the same either way.
  const Fingerprint fp = structural::fingerprint(fn("step"), options);
  CHECK(fp.supported);
  CHECK(fp.hash == structural_hash(fn("step")));
}

TEST_CASE("fingerprint: nesting deeper than the limit is reported below the body") {
  const Function& step = fn("step");
  ExprRef e = ConstInt::make(1);
  for (int i = 0; i < 600; ++i) e = Neg::make(e);
  const auto& seq = static_cast<const SeqStmts&>(*step.body);
  std::vector<StmtRef> stmts(seq.stmts.begin(), seq.stmts.end());
  stmts.insert(stmts.end() - 1, AssignStmt::make(Var::make("deep", e->type), e));
  auto deep = copy_node(step);
  deep->body = SeqStmts::make(std::move(stmts));
  try {
    structural::fingerprint(*deep);
    FAIL("fingerprint accepted nesting deeper than the limit");
  } catch (const StructuralComparisonUnsupported& e) {
    CHECK(e.reason().find("nesting deeper than 512") != std::string::npos);
    CHECK(e.field_path().rfind("body[3].value", 0) == 0);
  }
}

TEST_CASE("structural_equal_hashed agrees with structural_equal") {
  const char* names[] = {"step", "step_copy", "step_two", "capture", "dyn"};
  for (const char* x : names)
    for (const char* y : names) {
      INFO(x, " vs ", y);
      const Function &a = fn(x), &b = fn(y);
      CHECK(structural::structural_equal_hashed(a, b, structural_hash(a), structural_hash(b)) ==
            structural_equal(a, b));
    }
  CHECK(structural::structural_equal_hashed(fn("step"), fn("step_copy"), 1, 2));  // lockstep
}

TEST_CASE("structural_equal_hashed: equal functions shared differently take the projection") {
  // One parameter type shared by both parameters, or two equal types: equal functions whose walks
  // differ in sharing (the lockstep walk diverges, and so do the streams).
  const TypeRef shared = tensor64();
  const FunctionRef a = two_params(shared, shared), b = two_params(tensor64(), tensor64());
  REQUIRE(structural_equal(*a, *b));
  const std::uint64_t ha = structural_hash(*a), hb = structural_hash(*b);
  REQUIRE(ha == hb);
  CHECK(structural::structural_equal_hashed(*a, *b, ha, hb));
  // Past the diverging walk, different hashes are taken as proof of inequality.
  CHECK_FALSE(structural::structural_equal_hashed(*a, *b, ha, ha + 1));
  FingerprintStream sa, sb;
  CHECK(with_stream(*a, sa).stream_exact);
  CHECK(with_stream(*b, sb).stream_exact);
  CHECK_FALSE(same_words(sa, sb));  // streams that differ are no proof of inequality
}

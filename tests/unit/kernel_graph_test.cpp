// Tests of pypto/kernel/graph.hpp: which producer->consumer pairs fuse, that a fused spec
// computes bit for bit what the unfused nodes compute, refusal over the limits, determinism,
// and random chains from kernel_random.hpp.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "kernel_random.hpp"
#include "kernel_samples.hpp"
#include "pypto/kernel/canonicalize.hpp"
#include "pypto/kernel/graph.hpp"
#include "pypto/kernel/interpreter.hpp"
#include "pypto/kernel/key.hpp"
#include "pypto/kernel/serialize.hpp"
#include "pypto/kernel/validate.hpp"

namespace k = pypto::kernel;
using k::Op;
using pypto::test::kernel::SplitMix64;

namespace {

constexpr k::Shape kShape{4, 4};
constexpr k::View kLinear{k::ViewKind::Linear, 0};

std::vector<float> run(const k::Spec& s, const std::vector<std::vector<float>>& bufs,
                       k::Shape shape) {
  std::vector<std::span<const float>> spans(bufs.begin(), bufs.end());
  return k::evaluate(s, spans, k::Grid{shape.rows, shape.cols, 0});
}

std::vector<std::vector<float>> run_graph(const k::Graph& g,
                                          const std::vector<std::vector<float>>& bufs) {
  std::vector<std::span<const float>> spans(bufs.begin(), bufs.end());
  return k::evaluate_graph(g, spans);
}

/// Sixteen values per buffer (kShape): IEEE corner cases and ordinary finite values, rotated
/// so that different buffers pair different values.
std::vector<float> corner_values(int rotation) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> v = {
      0.0f,  -0.0f, inf,   -inf,   nan,   1.5f, -2.0f, std::numeric_limits<float>::denorm_min(),
      0.25f, 3.0f,  -7.0f, 100.0f, -0.5f, 2.0f, 5.0f,  -1.0f};
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    out[i] = v[(i * 5 + static_cast<std::size_t>(rotation)) % v.size()];
  }
  return out;
}

/// max(x*y + 0, x) * scale: two inputs, a constant, a runtime scalar.
k::Spec producer_spec() {
  k::Spec s;
  s.views = {kLinear, kLinear};
  s.consts = {k::float_bits(0.0f)};
  s.runtime_scalars = {k::float_bits(2.0f)};
  s.num_regs = 4;
  s.instrs = {k::binary(Op::Mul, 0, k::input(0), k::input(1)),
              k::binary(Op::Add, 1, k::reg(0), k::constant(0)),
              k::binary(Op::Max, 2, k::reg(1), k::input(0)),
              k::binary(Op::Mul, 3, k::reg(2), k::runtime_scalar(0))};
  return s;
}

/// p != 0 ? (z - p) / 3 : scale — reads p (input 1), z (input 0), a constant, a runtime scalar.
k::Spec consumer_spec() {
  k::Spec s;
  s.views = {kLinear, kLinear};
  s.consts = {k::float_bits(3.0f)};
  s.runtime_scalars = {k::float_bits(-0.0f)};
  s.num_regs = 3;
  s.instrs = {k::binary(Op::Sub, 0, k::input(0), k::input(1)),
              k::binary(Op::Div, 1, k::reg(0), k::constant(0)),
              k::select(2, k::input(1), k::reg(1), k::runtime_scalar(0))};
  return s;
}

/// exp(x) + 1: a one-input elementwise step for chains.
k::Spec step_spec(float c) {
  k::Spec s;
  s.views = {kLinear};
  s.consts = {k::float_bits(c)};
  s.num_regs = 2;
  s.instrs = {k::unary(Op::Exp, 0, k::input(0)), k::binary(Op::Mul, 1, k::reg(0), k::constant(0))};
  return s;
}

/// x - rowsum(x): elementwise output, but a reduction inside.
k::Spec reduction_spec() {
  k::Spec s;
  s.views = {kLinear};
  s.num_regs = 2;
  s.instrs = {k::unary(Op::RowSum, 1, k::input(0)),
              k::binary(Op::Sub, 0, k::input(0), k::reduce_result(1))};
  return s;
}

/// A chain of `n` instructions that no pass shortens: alternating Add/Mul with two inputs.
k::Spec long_chain(std::size_t n) {
  k::Spec s;
  s.views = {kLinear, kLinear};
  s.num_regs = 1;
  s.instrs.push_back(k::binary(Op::Add, 0, k::input(0), k::input(1)));
  for (std::size_t i = 1; i < n; ++i) {
    const Op op = i % 2 ? Op::Mul : Op::Add;
    s.instrs.push_back(k::binary(op, 0, k::reg(0), k::input(static_cast<std::uint8_t>(i % 2))));
  }
  return s;
}

/// x -> producer(x, y) -> consumer(z, .), the consumer as the only graph output.
k::Graph two_node_chain(k::Spec producer = producer_spec(), k::Spec consumer = consumer_spec()) {
  k::Graph g;
  const k::Source x = g.add_input(), y = g.add_input(), z = g.add_input();
  const k::Source p = g.add_node(std::move(producer), kShape, {x, y});
  g.mark_output(g.add_node(std::move(consumer), kShape, {z, p}));
  return g;
}

}  // namespace

TEST_CASE("kernel graph: a 2-node chain fuses into a spec that equals running both in turn") {
  const k::Graph g = two_node_chain();
  const k::Graph f = k::fuse(g);
  REQUIRE(f.nodes().size() == 1);
  const k::GraphNode& fused = f.nodes()[0];
  CHECK(k::is_valid(fused.spec));
  CHECK(fused.bindings == std::vector<k::Source>{k::Source::graph_input(0),
                                                 k::Source::graph_input(1),
                                                 k::Source::graph_input(2)});

  // Sequential reference: the producer's output buffer feeds the consumer's input 1.
  const std::vector<float> x = corner_values(0), y = corner_values(5), z = corner_values(9);
  const std::vector<float> p = run(producer_spec(), {x, y}, kShape);
  const std::vector<float> expected = run(consumer_spec(), {z, p}, kShape);
  const std::vector<float> got = run(fused.spec, {x, y, z}, kShape);
  CHECK(k::first_mismatch(got, expected) == -1);
}

TEST_CASE("kernel graph: a producer with two consumers is not fused") {
  k::Graph g;
  const k::Source x = g.add_input(), y = g.add_input(), z = g.add_input();
  const k::Source p = g.add_node(producer_spec(), kShape, {x, y});
  g.mark_output(g.add_node(consumer_spec(), kShape, {z, p}));
  g.mark_output(g.add_node(step_spec(2.0f), kShape, {p}));
  CHECK(k::fuse(g) == g);
}

TEST_CASE("kernel graph: a producer that is a graph output is not fused") {
  k::Graph g = two_node_chain();
  g.mark_output(k::Source::node(0));
  CHECK(k::fuse(g) == g);
}

TEST_CASE("kernel graph: a reduction producer is not fused") {
  k::Graph g;
  const k::Source x = g.add_input(), z = g.add_input();
  const k::Source p = g.add_node(reduction_spec(), kShape, {x});
  g.mark_output(g.add_node(consumer_spec(), kShape, {z, p}));
  CHECK(k::fuse(g) == g);
}

TEST_CASE("kernel graph: a reduction consumer is not fused") {
  k::Graph g;
  const k::Source x = g.add_input(), y = g.add_input();
  const k::Source p = g.add_node(producer_spec(), kShape, {x, y});
  g.mark_output(g.add_node(reduction_spec(), kShape, {p}));
  CHECK(k::fuse(g) == g);
}

TEST_CASE("kernel graph: a spec with a reduction view is not fused") {
  k::Spec consumer = consumer_spec();
  consumer.views[0] = {k::ViewKind::RowReduceMax, 0};  // reads graph input z, not the producer
  const k::Graph g = two_node_chain(producer_spec(), consumer);
  CHECK(k::fuse(g) == g);
}

TEST_CASE("kernel graph: a consumer reading the producer through a non-Linear view is not fused") {
  k::Spec consumer = consumer_spec();
  consumer.views[1] = {k::ViewKind::RotateHalf, 2};  // the producer's slot
  const k::Graph g = two_node_chain(producer_spec(), consumer);
  CHECK(k::fuse(g) == g);
}

TEST_CASE(
    "kernel graph: a consumer reading the producer through Linear and another view is not "
    "fused") {
  k::Spec consumer = consumer_spec();
  consumer.views.push_back({k::ViewKind::RotateHalf, 1});
  consumer.instrs.back().c = k::input(2);
  k::Graph g;
  const k::Source x = g.add_input(), y = g.add_input(), z = g.add_input();
  const k::Source p = g.add_node(producer_spec(), kShape, {x, y});
  g.mark_output(g.add_node(consumer, kShape, {z, p, p}));
  CHECK(k::fuse(g) == g);
}

TEST_CASE("kernel graph: a consumer reading the producer through two Linear slots fuses") {
  k::Spec consumer = consumer_spec();
  consumer.views.push_back(kLinear);
  consumer.instrs.back().c = k::input(2);
  k::Graph g;
  const k::Source x = g.add_input(), y = g.add_input(), z = g.add_input();
  const k::Source p = g.add_node(producer_spec(), kShape, {x, y});
  g.mark_output(g.add_node(consumer, kShape, {z, p, p}));
  const k::Graph f = k::fuse(g);
  REQUIRE(f.nodes().size() == 1);
  const std::vector<std::vector<float>> in = {corner_values(1), corner_values(2), corner_values(6)};
  CHECK(k::first_mismatch(run_graph(f, in)[0], run_graph(g, in)[0]) == -1);
}

TEST_CASE("kernel graph: nodes of different shapes are not fused") {
  k::Graph g;
  const k::Source x = g.add_input(), y = g.add_input(), z = g.add_input();
  const k::Source p = g.add_node(producer_spec(), k::Shape{4, 4}, {x, y});
  g.mark_output(g.add_node(consumer_spec(), k::Shape{2, 8}, {z, p}));  // same size, other shape
  CHECK(k::fuse(g) == g);
}

TEST_CASE("kernel graph: a fusion over the instruction limit is refused and the graph unchanged") {
  // 40 + 40 instructions: no pass shortens either, so the fused code would need 80 > 64.
  const k::Graph g = two_node_chain(long_chain(40), long_chain(40));
  REQUIRE(k::canonicalize(long_chain(40)).instrs.size() == 40);
  CHECK(k::fuse(g) == g);
}

TEST_CASE("kernel graph: a fusion over the input limit is refused and the graph unchanged") {
  // 9 + 9 distinct graph inputs (the producer's output slot disappears): 17 > 16.
  auto wide = [](std::size_t n) {
    k::Spec s;
    s.views.assign(n, kLinear);
    s.num_regs = 1;
    s.instrs.push_back(k::unary(Op::Mov, 0, k::input(0)));
    for (std::size_t i = 1; i < n; ++i) {
      s.instrs.push_back(k::binary(Op::Add, 0, k::reg(0), k::input(static_cast<std::uint8_t>(i))));
    }
    return s;
  };
  k::Graph g;
  std::vector<k::Source> a, b;
  for (int i = 0; i < 9; ++i) a.push_back(g.add_input());
  for (int i = 0; i < 9; ++i) b.push_back(g.add_input());
  const k::Source p = g.add_node(wide(9), kShape, a);
  b.push_back(p);
  g.mark_output(g.add_node(wide(10), kShape, b));
  CHECK(k::fuse(g) == g);
}

TEST_CASE("kernel graph: inputs shared by producer and consumer are merged") {
  // The consumer reads graph input x (the producer's input 0) through the same Linear view.
  k::Graph g;
  const k::Source x = g.add_input(), y = g.add_input();
  const k::Source p = g.add_node(producer_spec(), kShape, {x, y});
  g.mark_output(g.add_node(consumer_spec(), kShape, {x, p}));
  const k::Graph f = k::fuse(g);
  REQUIRE(f.nodes().size() == 1);
  CHECK(f.nodes()[0].bindings == std::vector<k::Source>{x, y});
  CHECK(f.nodes()[0].spec.views.size() == 2);
}

TEST_CASE("kernel graph: a 4-node chain fuses into one node with the same output") {
  k::Graph g;
  const k::Source x = g.add_input(), y = g.add_input(), z = g.add_input();
  const k::Source n0 = g.add_node(producer_spec(), kShape, {x, y});
  const k::Source n1 = g.add_node(step_spec(0.5f), kShape, {n0});
  const k::Source n2 = g.add_node(step_spec(-3.0f), kShape, {n1});
  g.mark_output(g.add_node(consumer_spec(), kShape, {z, n2}));
  const k::Graph f = k::fuse(g);
  REQUIRE(f.nodes().size() == 1);
  CHECK(f.outputs() == std::vector<k::Source>{k::Source::node(0)});
  const std::vector<std::vector<float>> in = {corner_values(0), corner_values(4), corner_values(7)};
  CHECK(k::first_mismatch(run_graph(f, in)[0], run_graph(g, in)[0]) == -1);
}

TEST_CASE("kernel graph: the fused spec is canonical") {
  const k::Spec fused = k::fuse(two_node_chain()).nodes().at(0).spec;
  CHECK(k::canonicalize(fused) == fused);
}

TEST_CASE("kernel graph: fusing the same graph twice gives identical bytes and keys") {
  auto build = [] {
    k::Graph g;
    const k::Source x = g.add_input(), y = g.add_input(), z = g.add_input();
    const k::Source n0 = g.add_node(producer_spec(), kShape, {x, y});
    const k::Source n1 = g.add_node(step_spec(0.5f), kShape, {n0});
    g.mark_output(g.add_node(consumer_spec(), kShape, {z, n1}));
    return g;
  };
  const k::Graph a = k::fuse(build()), b = k::fuse(build());
  REQUIRE(a.nodes().size() == 1);
  REQUIRE(b.nodes().size() == 1);
  const std::vector<k::Spec> sa = {a.nodes()[0].spec}, sb = {b.nodes()[0].spec};
  CHECK(k::write_specs(sa) == k::write_specs(sb));
  CHECK(k::kernel_key(sa[0]) == k::kernel_key(sb[0]));
  CHECK(a == b);
}

namespace {

/// Mov of op(A) x op(B), A in input 0 and B in input 1.
k::Spec matmul_node(std::uint32_t k, std::uint32_t batch = 1, bool trans_b = false) {
  k::Spec s;
  s.views = {kLinear, kLinear};
  s.num_regs = 1;
  s.matmul = k::Matmul{0, 1, false, trans_b, k, batch};
  s.instrs = {k::unary(Op::Mov, 0, k::matmul_result())};
  return s;
}

/// op(C, x) with C = A x B (inputs 0 and 1) and x read from input 2.
k::Spec matmul_with_input(Op op, std::uint32_t k) {
  k::Spec s = matmul_node(k);
  s.views.push_back(kLinear);
  s.instrs = {k::binary(op, 0, k::matmul_result(), k::input(2))};
  return s;
}

/// n small distinct values (finite, mixed signs), so that matmul results are informative.
std::vector<float> ramp(std::size_t n, float scale) {
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = scale * static_cast<float>(int(i % 7) - 3);
  return out;
}

}  // namespace

TEST_CASE("kernel graph: a matmul producer fuses with its elementwise consumer (an epilogue)") {
  // C = A x B^T (A: 4 x 4, B stored 4 x 4) -> consumer(z, C).
  k::Graph g;
  const k::Source a = g.add_input(), b = g.add_input(), z = g.add_input();
  const k::Source p = g.add_node(matmul_node(4, 1, true), kShape, {a, b});
  g.mark_output(g.add_node(consumer_spec(), kShape, {z, p}));
  const k::Graph f = k::fuse(g);
  REQUIRE(f.nodes().size() == 1);
  const k::Spec& fused = f.nodes()[0].spec;
  CHECK(k::is_valid(fused));
  REQUIRE(fused.matmul);
  CHECK(fused.matmul->trans_b);
  CHECK(fused.matmul->k == 4);
  CHECK(f.nodes()[0].bindings[fused.matmul->a_input] == a);
  CHECK(f.nodes()[0].bindings[fused.matmul->b_input] == b);
  const std::vector<std::vector<float>> in = {ramp(16, 0.5f), ramp(16, -1.5f), corner_values(3)};
  CHECK(k::first_mismatch(run_graph(f, in)[0], run_graph(g, in)[0]) == -1);
  CHECK(k::canonicalize(fused) == fused);
}

TEST_CASE("kernel graph: an elementwise producer fuses into a consumer with a matmul") {
  // p = step(x); out = C + p, with C = A x B in the consumer.
  k::Graph g;
  const k::Source x = g.add_input(), a = g.add_input(), b = g.add_input();
  const k::Source p = g.add_node(step_spec(0.25f), kShape, {x});
  g.mark_output(g.add_node(matmul_with_input(Op::Add, 2), kShape, {a, b, p}));
  const k::Graph f = k::fuse(g);
  REQUIRE(f.nodes().size() == 1);
  const k::GraphNode& fused = f.nodes()[0];
  REQUIRE(fused.spec.matmul);
  CHECK(fused.bindings[fused.spec.matmul->a_input] == a);
  CHECK(fused.bindings[fused.spec.matmul->b_input] == b);
  const std::vector<std::vector<float>> in = {corner_values(2), ramp(8, 2.0f), ramp(8, -0.5f)};
  CHECK(k::first_mismatch(run_graph(f, in)[0], run_graph(g, in)[0]) == -1);
}

TEST_CASE("kernel graph: a consumer whose matmul reads the producer is not fused") {
  // The producer's 4 x 4 output is the consumer's A or B (k = 4): a whole matrix, not one
  // element.
  for (const std::size_t slot : {0, 1}) {
    k::Graph g;
    const k::Source x = g.add_input(), other = g.add_input();
    const k::Source p = g.add_node(step_spec(1.0f), kShape, {x});
    std::vector<k::Source> bindings = {other, other};
    bindings[slot] = p;
    g.mark_output(g.add_node(matmul_node(4), kShape, bindings));
    CHECK(k::fuse(g) == g);
  }
}

TEST_CASE("kernel graph: two specs with a matmul each are not fused") {
  k::Graph g;
  const k::Source a = g.add_input(), b = g.add_input();
  const k::Source p = g.add_node(matmul_node(4), kShape, {a, b});
  g.mark_output(g.add_node(matmul_with_input(Op::Mul, 4), kShape, {a, b, p}));
  CHECK(k::fuse(g) == g);
}

TEST_CASE("kernel graph: a batched matmul fuses only with code that reads no Row or Batch") {
  // The consumer adds GridIndex Row to its input: with a matmul of batch 2 in the same spec,
  // Row would become the row within a block, so the pair stays apart; batch 1 fuses.
  k::Spec reads_row;
  reads_row.views = {kLinear};
  reads_row.num_regs = 1;
  reads_row.instrs = {k::binary(Op::Add, 0, k::input(0), k::grid(k::GridAxis::Row))};
  k::Spec reads_col = reads_row;
  reads_col.instrs[0].b = k::grid(k::GridAxis::Col);
  auto graph = [](std::uint32_t batch, const k::Spec& consumer) {
    k::Graph g;
    const k::Source a = g.add_input(), b = g.add_input();
    const k::Source p = g.add_node(matmul_node(2, batch), kShape, {a, b});
    g.mark_output(g.add_node(consumer, kShape, {p}));
    return g;
  };
  const k::Graph batched = graph(2, reads_row);
  CHECK(k::fuse(batched) == batched);
  for (const k::Graph& g : {graph(2, reads_col), graph(1, reads_row)}) {
    const std::uint32_t batch = g.nodes()[0].spec.matmul->batch;
    const k::Graph f = k::fuse(g);
    CHECK(f.nodes().size() == 1);
    const std::vector<std::vector<float>> in = {ramp(8, 1.0f), ramp(8 * batch, 0.5f)};
    CHECK(k::first_mismatch(run_graph(f, in)[0], run_graph(g, in)[0]) == -1);
  }
}

TEST_CASE("kernel graph: a matmul slot is never shared with a slot the code reads") {
  // x is both the producer's A (4 x 4, k = 4) and an elementwise input of the consumer: the
  // fused spec binds x twice, once per role, and stays valid.
  k::Spec consumer;
  consumer.views = {kLinear, kLinear};
  consumer.num_regs = 1;
  consumer.instrs = {k::binary(Op::Sub, 0, k::input(0), k::input(1))};
  k::Graph g;
  const k::Source x = g.add_input(), b = g.add_input();
  const k::Source p = g.add_node(matmul_node(4), kShape, {x, b});
  g.mark_output(g.add_node(consumer, kShape, {x, p}));
  const k::Graph f = k::fuse(g);
  REQUIRE(f.nodes().size() == 1);
  CHECK(f.nodes()[0].bindings == std::vector<k::Source>{x, b, x});
  CHECK(k::is_valid(f.nodes()[0].spec));
  const std::vector<std::vector<float>> in = {ramp(16, 1.0f), ramp(16, 0.5f)};
  CHECK(k::first_mismatch(run_graph(f, in)[0], run_graph(g, in)[0]) == -1);
}

TEST_CASE("kernel graph: a binding to a node that does not exist yet is rejected") {
  k::Graph g;
  const k::Source x = g.add_input();
  CHECK_THROWS_AS(g.add_node(step_spec(1.0f), kShape, {k::Source::node(0)}), k::GraphError);
  CHECK_THROWS_AS(g.add_node(step_spec(1.0f), kShape, {x, x}), k::GraphError);
}

namespace {

/// The number of values input `v` of `s` reads on `shape` (the buffer it needs).
std::size_t input_size(const k::Spec& s, std::size_t v, k::Shape shape) {
  return k::input_size(s, v, k::Grid{shape.rows, shape.cols, 0});
}

/// A random spec, made elementwise (reduction views turned Linear, reduction code redrawn)
/// when `elementwise`.
k::Spec random_node_spec(SplitMix64& rng, bool elementwise) {
  pypto::test::kernel::RandomSpecOptions opt;
  opt.max_instrs = 12;
  opt.rows = 3;
  opt.cols = 4;
  for (int attempt = 0;; ++attempt) {
    k::Spec s = pypto::test::kernel::random_spec(rng.next(), opt);
    if (!elementwise) return s;
    for (k::View& v : s.views) {
      if (v.kind >= k::ViewKind::RowReduceSum) v = kLinear;
    }
    bool has_reduction = false;
    for (const k::Instr& in : s.instrs) has_reduction = has_reduction || k::is_reduction(in.op);
    if (!has_reduction || attempt > 50) return s;
  }
}

}  // namespace

TEST_CASE("kernel graph: fusing random chains keeps every graph output bit-exact") {
  constexpr k::Shape shape{3, 4};
  const std::size_t full = shape.rows * shape.cols;
  std::size_t fused_pairs = 0, chains_fully_fused = 0, matmul_graphs_fused = 0;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    SplitMix64 rng(seed * 0x9e3779b97f4a7c15ULL);
    k::Graph g;
    std::vector<std::vector<float>> buffers;
    auto graph_input = [&](std::size_t size) {
      for (std::size_t i = 0; i < buffers.size(); ++i) {
        if (buffers[i].size() == size && rng.chance(30)) {
          return k::Source::graph_input(static_cast<std::uint32_t>(i));
        }
      }
      std::vector<float> buf(size);
      for (float& v : buf) v = pypto::test::kernel::random_value(rng);
      buffers.push_back(std::move(buf));
      return g.add_input();
    };
    const std::uint32_t length = 2 + rng.below(5);
    for (std::uint32_t n = 0; n < length; ++n) {
      k::Spec s = random_node_spec(rng, rng.chance(80));
      std::vector<k::Source> bindings;
      for (std::size_t v = 0; v < s.views.size(); ++v) {
        k::View& view = s.views[v];
        const bool matmul_slot = k::is_matmul_operand(s.matmul, v);
        const bool chain_slot = v == 0 && n > 0;
        if (chain_slot || (n > 0 && rng.chance(15))) {
          // A node output has rows*cols values: keep the view only if it reads that many. A
          // matmul slot keeps its Linear view and takes a node output only when its matrices
          // have that many values (fusion must then refuse: the matmul reads a whole matrix).
          if (!matmul_slot && ((chain_slot && rng.chance(80)) || input_size(s, v, shape) != full)) {
            view = kLinear;
          }
          if (input_size(s, v, shape) == full) {
            bindings.push_back(k::Source::node(chain_slot ? n - 1 : rng.below(n)));
            continue;
          }
        }
        bindings.push_back(graph_input(input_size(s, v, shape)));
      }
      const k::Source node = g.add_node(std::move(s), shape, std::move(bindings));
      if (n + 1 == length || rng.chance(15)) g.mark_output(node);
    }

    const k::Graph f = k::fuse(g);
    CAPTURE(seed);
    for (const k::GraphNode& node : f.nodes()) CHECK(k::is_valid(node.spec));
    CHECK(k::fuse(f) == f);  // a fixpoint: no pair is left that fuses
    const auto before = run_graph(g, buffers), after = run_graph(f, buffers);
    REQUIRE(before.size() == after.size());
    for (std::size_t o = 0; o < before.size(); ++o) {
      CAPTURE(o);
      CHECK(k::first_mismatch(after[o], before[o]) == -1);
    }
    fused_pairs += g.nodes().size() - f.nodes().size();
    if (f.nodes().size() == 1) ++chains_fully_fused;
    // Fusion neither drops nor merges matmul segments: each survives in exactly one node.
    auto matmuls = [](const k::Graph& graph) {
      std::size_t count = 0;
      for (const k::GraphNode& node : graph.nodes()) count += node.spec.matmul ? 1 : 0;
      return count;
    };
    CHECK(matmuls(f) == matmuls(g));
    if (matmuls(g) > 0 && f.nodes().size() < g.nodes().size()) ++matmul_graphs_fused;
  }
  // The generator must actually exercise fusion, not only refusals.
  CHECK(fused_pairs > 200);
  CHECK(chains_fully_fused > 20);
  CHECK(matmul_graphs_fused > 20);
  MESSAGE("fused pairs: " << fused_pairs << ", chains fused to one node: " << chains_fully_fused
                          << ", graphs with a matmul that fused: " << matmul_graphs_fused);
}

// Tests of pypto/runtime/interpreter.hpp: programs in the text format run on seeded inputs and
// compared with outputs computed independently here (strict float, Python floor semantics), and
// the oracle property of issue 8: every program of tests/programs/ (and pypto-opt's embedded
// default) gives bit-identical results and argument buffers before and after
// convert-to-ssa, outline-incore-scopes, outline-cluster-scopes, deduplicate-outlined-kernels.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../examples/pypto-opt/default_program.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/runtime/interpreter.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/transforms/pass_instruments.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"
#include "test_files.hpp"
#include "test_rng.hpp"

namespace ir = pypto::ir;
namespace rt = pypto::runtime;
namespace tf = pypto::transforms;
using rt::Value;

namespace {

constexpr std::string_view kPipeline =
    "convert-to-ssa,outline-incore-scopes,outline-cluster-scopes,deduplicate-outlined-kernels";

ir::ProgramRef parse(std::string_view text) { return pypto::text::parse_program(text); }

ir::ProgramRef transform(const ir::Program& p, std::string_view pipeline = kPipeline) {
  tf::PassManagerOptions options;
  options.instruments.push_back(tf::verify_each_instrument());
  return tf::PassManager(tf::standard_passes().pipeline(pipeline), std::move(options)).run(p);
}

using pypto_test::read_program;

bool same_bits(float a, float b) {
  return pypto::kernel::float_bits(a) == pypto::kernel::float_bits(b);
}

float strict(float x) {
  volatile float v = x;
  return v;
}

/// Seeded arguments for every parameter of `fn`: FP32 tensors in [-2, 2) with 1/64 steps
/// (plus signed zeros), integer tensors in [0, 4) whose first element is 0 (an offset), and
/// integer scalars equal to `scalar`.
std::vector<Value> seeded_args(const ir::Function& fn, std::uint64_t seed, std::int64_t scalar) {
  pypto::test::SplitMix64 rng(seed);
  std::vector<Value> args;
  for (const auto& p : fn.params) {
    if (const auto* st = ir::as<ir::ScalarType>(p->type.get())) {
      args.push_back(Value::scalar_int(scalar, st->dtype));
      continue;
    }
    const auto& t = static_cast<const ir::ShapedType&>(*p->type);
    std::vector<std::int64_t> shape;
    for (const auto& d : t.shape) shape.push_back(static_cast<const ir::ConstInt&>(*d).value);
    Value v = Value::zeros(t.dtype, shape);
    auto& b = *v.buffer;
    for (std::size_t k = 0; k < b.size(); ++k) {
      if (rt::is_float_dtype(t.dtype))  // exact in FP16 and BF16 too
        b.f32[k] = static_cast<float>(rng.range(-128, 127)) / 64.0f;
      else
        b.ints[k] = k == 0 ? 0 : rng.range(0, 3);
    }
    args.push_back(std::move(v));
  }
  return args;
}

struct Outcome {
  std::vector<Value> results;
  std::vector<Value> args;  // the argument buffers after the run (Out / InOut written)
};

Outcome run_on(const ir::Program& p, std::string_view fn, const std::vector<Value>& inputs) {
  Outcome o;
  for (const auto& a : inputs) o.args.push_back(a.deep_copy());
  o.results = rt::run(p, fn, o.args);  // shares the buffers of o.args
  return o;
}

void check_same(const Outcome& a, const Outcome& b) {
  REQUIRE(a.results.size() == b.results.size());
  for (std::size_t k = 0; k < a.results.size(); ++k)
    CHECK_MESSAGE(rt::bit_identical(a.results[k], b.results[k]), "result " << k);
  REQUIRE(a.args.size() == b.args.size());
  for (std::size_t k = 0; k < a.args.size(); ++k)
    CHECK_MESSAGE(rt::bit_identical(a.args[k], b.args[k]), "argument " << k);
}

std::vector<float> f32(const Value& v) { return v.buffer->f32; }

/// Runs `entry` of `before` and of its transformed program on seeded inputs; returns how many
/// functions each has (so callers can see that the passes did outline something).
void check_meaning_kept(const ir::Program& before, std::string_view entry,
                        std::vector<std::int64_t> scalars = {3}) {
  const ir::ProgramRef after = transform(before);
  INFO(pypto::text::print(*after));
  CHECK(after->functions.size() > 1);  // the pipeline outlined (or kept) kernels
  for (std::int64_t scalar : scalars)
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      CAPTURE(seed);
      CAPTURE(scalar);
      const auto inputs = seeded_args(*before.find(entry), seed, scalar);
      const Outcome x = run_on(before, entry, inputs);
      const Outcome y = run_on(*after, entry, inputs);
      check_same(x, y);
      // The outputs are not trivially the inputs: some result or argument differs.
      bool changed = false;
      for (std::size_t k = 0; k < inputs.size(); ++k)
        changed = changed || !rt::bit_identical(inputs[k], x.args[k]);
      for (const auto& r : x.results) {
        bool is_arg = false;
        for (const auto& a : inputs) is_arg = is_arg || rt::bit_identical(a, r);
        changed = changed || !is_arg;
      }
      CHECK(changed);
    }
}

}  // namespace

// ---- the oracle property: the passes keep meaning ----------------------------------------------

TEST_CASE("interpret: outline_seed_basic.pl means the same before and after the pipeline") {
  const auto p = parse(read_program("outline_seed_basic.pl"));
  check_meaning_kept(*p, "main");
  // and the meaning is the one the text says: x = (x+1)^2 + 1 stored in place, z = x + 2
  const auto inputs = seeded_args(*p->find("main"), 7, 0);
  const Outcome o = run_on(*p, "main", inputs);
  const auto x = f32(inputs[0]);
  std::vector<float> stored(64), z(64);
  for (std::size_t k = 0; k < 64; ++k) {
    const float y = strict(x[k] + 1.0f);
    stored[k] = strict(strict(y * y) + 1.0f);
    z[k] = strict(stored[k] + 2.0f);
  }
  CHECK(f32(o.args[0]) == stored);
  CHECK(f32(o.results[0]) == z);
}

TEST_CASE("interpret: outline_seed_loop.pl (a store in a loop, threaded as a carry)") {
  const auto p = parse(read_program("outline_seed_loop.pl"));
  check_meaning_kept(*p, "k");
  const auto inputs = seeded_args(*p->find("k"), 9, 0);
  const Outcome o = run_on(*p, "k", inputs);
  const auto a = f32(inputs[0]);
  std::vector<float> want(a.size());
  for (std::size_t k = 0; k < a.size(); ++k) want[k] = strict(a[k] * 2.0f);
  CHECK(f32(o.args[1]) == want);
  CHECK(f32(o.results[0]) == want);
  CHECK(o.results[0].buffer == o.args[1].buffer);  // the returned tensor is the Out buffer
}

TEST_CASE("interpret: dedup_twin_kernels.pl (calls with Out parameters write the caller's)") {
  const auto p = parse(read_program("dedup_twin_kernels.pl"));
  check_meaning_kept(*p, "main");
  const auto after = transform(*p);
  CHECK(after->find("step_copy") == nullptr);  // dedup did merge the twins
  const auto inputs = seeded_args(*p->find("main"), 4, 0);
  const Outcome o = run_on(*after, "main", inputs);
  const auto x = f32(inputs[0]);
  std::vector<float> o1(64), o2(64);
  for (std::size_t k = 0; k < 64; ++k) {
    o1[k] = strict(x[k] + 1.0f);
    o2[k] = strict(o1[k] + 1.0f);
  }
  CHECK(f32(o.args[1]) == o1);
  CHECK(f32(o.args[2]) == o2);
  CHECK(f32(o.results[0]) == o2);
}

TEST_CASE("interpret: outline_cluster.pl (Group bundle, Spmd blocks by get_block_idx)") {
  const auto p = parse(read_program("outline_cluster.pl"));
  check_meaning_kept(*p, "main");
  const auto inputs = seeded_args(*p->find("main"), 5, 0);
  const Outcome o = run_on(*p, "main", inputs);
  // o = a + a, then every 16-row block of o is overwritten with a: o == a.
  CHECK(f32(o.args[1]) == f32(inputs[0]));
}

TEST_CASE("interpret: natural_form.pl (rebinding, carries, if, while, scope)") {
  const auto p = parse(read_program("natural_form.pl"));
  check_meaning_kept(*p, "main", {0, 1, 3});
  for (std::int64_t n : {0, 1, 3}) {
    CAPTURE(n);
    const auto inputs = seeded_args(*p->find("main"), 11, n);
    const auto x = f32(inputs[0]);
    std::vector<float> z(64), out(64);
    for (std::size_t k = 0; k < 64; ++k) {
      float y = strict(strict(x[k] + x[k]) + x[k]);
      for (std::int64_t i = 0; i < n; ++i) y = strict(y * x[k]);
      float acc = y;
      for (std::int64_t j = 0; j < n; ++j) acc = strict(acc + x[k]);
      out[k] = acc;
      if (n < 2) y = strict(y + acc);
      y = strict(y + out[k]);
      z[k] = strict(y + y);
    }
    const Outcome natural = run_on(*p, "main", inputs);
    CHECK(f32(natural.results[0]) == z);
    CHECK(f32(natural.args[2]) == out);
    const Outcome ssa = run_on(*transform(*p, "convert-to-ssa"), "main", inputs);
    check_same(natural, ssa);
  }
}

TEST_CASE("interpret: the other programs of tests/programs/ keep their meaning") {
  for (std::string_view name :
       {"nested_seq.pl", "natural_form.ssa.pl", "nested_seq.normalized.pl"}) {
    CAPTURE(name);
    check_meaning_kept(*parse(read_program(name)), "main", {0, 1, 3});
  }
}

TEST_CASE("interpret: pypto-opt's embedded default program keeps its meaning") {
  const auto ops = ir::standard_op_registry();
  const auto p = pypto_opt::default_program(ops);
  check_meaning_kept(*p, "main");
  const auto inputs = seeded_args(*p->find("main"), 3, 0);
  const Outcome o = run_on(*p, "main", inputs);
  const auto a = f32(inputs[0]), b = f32(inputs[1]);
  std::vector<float> sum(a.size());
  for (std::size_t k = 0; k < a.size(); ++k) sum[k] = strict(a[k] + b[k]);
  REQUIRE(o.results.size() == 2);
  CHECK(f32(o.results[0]) == sum);
  CHECK(f32(o.results[1]) == sum);
}

// ---- scalar semantics --------------------------------------------------------------------------

namespace {
std::int64_t py_floordiv(std::int64_t a, std::int64_t b) {
  const double q = std::floor(static_cast<double>(a) / static_cast<double>(b));
  return static_cast<std::int64_t>(q);  // exact for the small operands used here
}
std::int64_t py_mod(std::int64_t a, std::int64_t b) { return a - b * py_floordiv(a, b); }

Value scalar_fn(std::string_view expr, std::string_view dtype, std::int64_t a, std::int64_t b,
                pypto::core::DataType t) {
  const std::string text = std::string(R"(
import pypto.language as pl
@pl.program
class S:
    @pl.function
    def f(self, a: pl.Scalar[pl.)") +
                           std::string(dtype) + "], b: pl.Scalar[pl." + std::string(dtype) +
                           "]) -> pl.Scalar[pl." + std::string(dtype) +
                           "]:\n        r = " + std::string(expr) + "\n        return r\n";
  auto out = rt::run(*parse(text), "f", {Value::scalar_int(a, t), Value::scalar_int(b, t)});
  REQUIRE(out.size() == 1);
  return out[0];
}
}  // namespace

TEST_CASE("interpret: integer // and % floor like Python, on every sign combination") {
  using pypto::core::DataType;
  for (std::int64_t a : {-7, -6, -1, 0, 1, 6, 7, 13})
    for (std::int64_t b : {-3, -1, 1, 2, 3}) {
      CAPTURE(a);
      CAPTURE(b);
      CHECK(scalar_fn("a // b", "INDEX", a, b, DataType::INDEX).i == py_floordiv(a, b));
      CHECK(scalar_fn("a % b", "INDEX", a, b, DataType::INDEX).i == py_mod(a, b));
      CHECK(scalar_fn("a * b - a + b", "INDEX", a, b, DataType::INDEX).i == a * b - a + b);
      CHECK(scalar_fn("min(a, b)", "INDEX", a, b, DataType::INDEX).i == (a < b ? a : b));
    }
}

TEST_CASE("interpret: integer arithmetic wraps to its dtype, division by zero is an error") {
  using pypto::core::DataType;
  CHECK(scalar_fn("a * b", "INT32", 65536, 65536, DataType::INT32).i == 0);
  CHECK(scalar_fn("a + b", "INT32", 2147483647, 1, DataType::INT32).i == -2147483648LL);
  CHECK(scalar_fn("a + b", "INT8", 127, 1, DataType::INT8).i == -128);
  CHECK(scalar_fn("a + b", "UINT8", 255, 1, DataType::UINT8).i == 0);
  CHECK(scalar_fn("a // b", "INT64", INT64_MIN, -1, DataType::INT64).i == INT64_MIN);
  CHECK_THROWS_AS(scalar_fn("a // b", "INDEX", 5, 0, DataType::INDEX), rt::RuntimeError);
  CHECK_THROWS_AS(scalar_fn("a % b", "INDEX", 5, 0, DataType::INDEX), rt::RuntimeError);
}

// ---- statements and ops ------------------------------------------------------------------------

TEST_CASE("interpret: Submit runs synchronously in program order and yields a task id") {
  const auto p = parse(R"(
import pypto.language as pl
@pl.program
class Tasks:
    @pl.function(type=pl.FunctionType.InCore)
    def stage(self, x: pl.Tensor[[16], pl.FP32], o: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        t = pl.load(x, [0], [16])
        pl.store(pl.exp(pl.neg(t)), [0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16], pl.FP32], o1: pl.Out[pl.Tensor[[16], pl.FP32]], o2: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        r1, t1 = pl.submit(self.stage, x, o1)
        r2, t2 = pl.submit(self.stage, r1, o2, deps=[t1])
        return r2
)");
  const auto inputs = seeded_args(*p->find("main"), 21, 0);
  const Outcome o = run_on(*p, "main", inputs);
  const auto x = f32(inputs[0]);
  for (std::size_t k = 0; k < 16; ++k) {
    const float e1 = strict(std::exp(-x[k]));
    CHECK(same_bits(o.args[1].buffer->f32[k], e1));
    CHECK(same_bits(o.args[2].buffer->f32[k], strict(std::exp(-e1))));
  }
  CHECK(o.results[0].buffer == o.args[2].buffer);
}

TEST_CASE("interpret: matmul, row reductions, tensor.dim and a multi-value return") {
  const auto p = parse(R"(
import pypto.language as pl
@pl.program
class Mm:
    @pl.function
    def main(self, a: pl.Tensor[[4, 8], pl.FP32], b: pl.Tensor[[8, 3], pl.FP32], o: pl.Out[pl.Tensor[[4, 3], pl.FP32]], s: pl.Out[pl.Tensor[[4, 1], pl.FP32]]) -> pl.Scalar[pl.INDEX]:
        with pl.at(level=pl.Level.CORE_GROUP):
            ta = pl.load(a, [0, 0], [4, 8])
            tb = pl.load(b, [0, 0], [8, 3])
            c = pl.tile.matmul(ta, tb)
            pl.store(c, [0, 0], o)
            m = pl.tile.row_max(ta, ta)
            r = pl.tile.row_sum(ta, ta)
            pl.store(pl.sub(r, m), [0, 0], s)
        d = pl.tensor.dim(a, 1)
        return d
)");
  check_meaning_kept(*p, "main");
  const auto inputs = seeded_args(*p->find("main"), 31, 0);
  const Outcome o = run_on(*p, "main", inputs);
  const auto a = f32(inputs[0]), b = f32(inputs[1]);
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 3; ++j) {
      float acc = strict(a[i * 8] * b[j]);
      for (std::size_t k = 1; k < 8; ++k) acc = strict(acc + strict(a[i * 8 + k] * b[k * 3 + j]));
      CHECK(o.args[2].buffer->f32[i * 3 + j] == acc);
    }
    float sum = a[i * 8], mx = a[i * 8];
    for (std::size_t k = 1; k < 8; ++k) {
      sum = strict(sum + a[i * 8 + k]);
      mx = mx < a[i * 8 + k] ? a[i * 8 + k] : mx;
    }
    CHECK(o.args[3].buffer->f32[i] == strict(sum - mx));
  }
  REQUIRE(o.results.size() == 1);
  CHECK(o.results[0].kind == rt::ValueKind::Scalar);
  CHECK(o.results[0].i == 8);
}

TEST_CASE(
    "interpret: a batched matmul broadcasts its batch dimensions, a_trans reads its left operand "
    "transposed, and a BF16 result rounds the binary32 sum once") {
  const auto p = parse(R"(
import pypto.language as pl
@pl.program
class Batched:
    @pl.function
    def main(self, a: pl.Tensor[[2, 2, 3], pl.FP32], b: pl.Tensor[[3, 2], pl.FP32], o: pl.Out[pl.Tensor[[2, 2, 2], pl.FP32]], t: pl.Out[pl.Tensor[[2, 2], pl.BF16]]) -> pl.Tensor[[2, 2, 2], pl.FP32]:
        r = pl.tensor.matmul(a, b)
        o1 = pl.tensor.assemble(o, r, [0, 0, 0])
        s = pl.tensor.matmul(b, b, a_trans=True, out_dtype=pl.BF16)
        t1 = pl.tensor.assemble(t, s, [0, 0])
        return o1
)");
  const auto inputs = seeded_args(*p->find("main"), 17, 0);
  const Outcome o = run_on(*p, "main", inputs);
  const auto a = f32(inputs[0]), b = f32(inputs[1]);
  auto dot = [](auto x, auto y, std::size_t k) {  // products summed from the first, in order
    float acc = 0.0f;
    for (std::size_t p = 0; p < k; ++p)
      acc = p == 0 ? strict(x(p) * y(p)) : strict(acc + strict(x(p) * y(p)));
    return acc;
  };
  for (std::size_t q = 0; q < 2; ++q)
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t j = 0; j < 2; ++j) {
        const float want = dot([&](std::size_t p) { return a[q * 6 + i * 3 + p]; },
                               [&](std::size_t p) { return b[p * 2 + j]; }, 3);
        CHECK(same_bits(o.args[2].buffer->f32[q * 4 + i * 2 + j], want));
      }
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 2; ++j) {
      const float want = dot([&](std::size_t p) { return b[p * 2 + i]; },
                             [&](std::size_t p) { return b[p * 2 + j]; }, 3);
      CHECK(same_bits(o.args[3].buffer->f32[i * 2 + j],
                      rt::round_to_dtype(pypto::core::DataType::BF16, want)));
    }
}

TEST_CASE("interpret: an op it cannot execute is a RuntimeError naming the op and line:column") {
  const auto p = parse(R"(
import pypto.language as pl
@pl.program
class Bad:
    @pl.function
    def main(self, x: pl.Tensor[[16], pl.FP32], o: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        y = pl.add(x, x)
        r = pl.tensor.view(y, [16])
        return r
)");
  const auto inputs = seeded_args(*p->find("main"), 1, 0);
  try {
    rt::run(*p, "main", inputs);
    FAIL("no RuntimeError");
  } catch (const rt::RuntimeError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("'tensor.view'") != std::string::npos);
    CHECK(msg.find("at 8:") != std::string::npos);
    INFO(msg);
  }
  // Wrong arguments and out-of-bounds regions are errors too, never crashes.
  CHECK_THROWS_AS(rt::run(*p, "main", {}), rt::RuntimeError);
  CHECK_THROWS_AS(rt::run(*p, "nope", {}), rt::RuntimeError);
  const auto oob = parse(R"(
import pypto.language as pl
@pl.program
class Oob:
    @pl.function
    def main(self, x: pl.Tensor[[16], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [n], [16])
            pl.store(t, [0], x)
        return x
)");
  const auto args = seeded_args(*oob->find("main"), 1, 1);
  CHECK_THROWS_WITH_AS(rt::run(*oob, "main", args), doctest::Contains("out of bounds"),
                       rt::RuntimeError);
  CHECK_NOTHROW(rt::run(*oob, "main", seeded_args(*oob->find("main"), 1, 0)));
}

// ---- IR built directly: casts, shifts, unsigned compares, runaway recursion --------------------

namespace {
/// f(a, b) = <expr(a, b)> as a one-function program built with the IR builders.
Value eval_expr(pypto::core::DataType t,
                const std::function<ir::ExprRef(const ir::VarRef&, const ir::VarRef&)>& expr,
                Value a, Value b) {
  auto va = ir::Var::make("a", ir::ScalarType::make(t));
  auto vb = ir::Var::make("b", ir::ScalarType::make(t));
  ir::ExprRef e = expr(va, vb);
  auto f = ir::Function::make("f", {{va}, {vb}}, {e->type}, ir::ReturnStmt::make({e}));
  auto out = rt::run(*ir::Program::make("P", {f}), "f", {std::move(a), std::move(b)});
  REQUIRE(out.size() == 1);
  return out[0];
}
}  // namespace

TEST_CASE("interpret: casts, shifts and unsigned compares follow their dtype") {
  using pypto::core::DataType;
  const auto i32 = [](std::int64_t v) { return Value::scalar_int(v, DataType::INT32); };
  // arithmetic shift right of a negative INT32; shift left wraps to 32 bits
  CHECK(eval_expr(
            DataType::INT32, [](auto a, auto b) { return ir::BitShiftRight::make(a, b); }, i32(-20),
            i32(2))
            .i == -5);
  CHECK(eval_expr(
            DataType::INT32, [](auto a, auto b) { return ir::BitShiftLeft::make(a, b); },
            i32(0x40000001), i32(2))
            .i == 4);
  CHECK_THROWS_AS(eval_expr(
                      DataType::INT32, [](auto a, auto b) { return ir::BitShiftLeft::make(a, b); },
                      i32(1), i32(32)),
                  rt::RuntimeError);
  // UINT64 compares as unsigned: 2^63 > 1
  const auto u64 = [](std::int64_t v) { return Value::scalar_int(v, DataType::UINT64); };
  CHECK(eval_expr(
            DataType::UINT64, [](auto a, auto b) { return ir::Gt::make(a, b); }, u64(INT64_MIN),
            u64(1))
            .i == 1);
  // FP32 -> INT32 truncates toward zero; INT32 -> FP32 rounds to nearest
  const auto f = [](float v) { return Value::scalar_float(v); };
  CHECK(eval_expr(
            DataType::FP32, [](auto a, auto) { return ir::Cast::make(a, DataType::INT32); },
            f(-2.75f), f(0))
            .i == -2);
  CHECK(eval_expr(
            DataType::INT32, [](auto a, auto) { return ir::Cast::make(a, DataType::FP32); },
            i32(16777217), i32(0))
            .f == 16777216.0f);
  // FP32 arithmetic is float arithmetic: 0.1f + 0.2f, not the double sum rounded
  const Value sum = eval_expr(
      DataType::FP32, [](auto a, auto b) { return ir::Add::make(a, b); }, f(0.1f), f(0.2f));
  CHECK(same_bits(sum.f, strict(0.1f + 0.2f)));
}

TEST_CASE("interpret: runaway recursion is a RuntimeError, not a stack overflow") {
  using pypto::core::DataType;
  auto x = ir::Var::make("x", ir::ScalarType::make(DataType::INDEX));
  auto call = ir::Call::make(ir::GlobalVar::make("f"), {x}, ir::ScalarType::make(DataType::INDEX));
  auto f = ir::Function::make("f", {{x}}, {call->type}, ir::ReturnStmt::make({call}));
  CHECK_THROWS_WITH_AS(rt::run(*ir::Program::make("P", {f}), "f", {Value::scalar_int(1)}),
                       doctest::Contains("call depth"), rt::RuntimeError);
}

TEST_CASE("interpret: a host sub-worker's Python body is an error naming it, not IR to run") {
  const auto p = parse(R"(
import pypto.language as pl
@pl.program
class Host:
    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def total(f: pl.Tensor[[4], pl.FP32]):
        print("sum", f.sum())

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
        self.total(x)
        return x
)");
  CHECK_THROWS_WITH_AS(rt::run(*p, "main", seeded_args(*p->find("main"), 1, 0)),
                       doctest::Contains("cannot run host-language (Python) source such as a "
                                         "sub-worker's body: it is text, not IR at 7:9"),
                       rt::RuntimeError);
}

TEST_CASE("interpret: an atomic add store accumulates in program order") {
  const auto p = parse(R"(
import pypto.language as pl
@pl.program
class Acc:
    @pl.function
    def main(self, x: pl.Tensor[[4, 16], pl.FP32], o: pl.InOut[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [i, 0], [1, 16])
                pl.store(t, [0, 0], o, atomic=pl.AtomicType.Add)
        return o
)");
  check_meaning_kept(*p, "main");
  const auto inputs = seeded_args(*p->find("main"), 41, 0);
  const Outcome o = run_on(*p, "main", inputs);
  const auto x = f32(inputs[0]);
  auto want = f32(inputs[1]);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t k = 0; k < 16; ++k) want[k] = strict(want[k] + x[i * 16 + k]);
  CHECK(f32(o.args[1]) == want);
}

TEST_CASE("interpret: dedup_shape_distinct.pl (kernels over rows M and N merged by the proof)") {
  const auto p = parse(read_program("dedup_shape_distinct.pl"));
  const auto after = transform(*p);
  CHECK(after->find("main_incore_1") == nullptr);  // the shape-distinct twins were merged
  // M = 32 and N = 48 rows: both kernels' calls write the first 16 rows, doubled.
  pypto::test::SplitMix64 rng(11);
  auto filled = [&](std::int64_t rows) {
    Value v = Value::zeros(pypto::core::DataType::FP32, {rows, 64});
    for (auto& x : v.buffer->f32) x = static_cast<float>(rng.range(-128, 127)) / 64.0f;
    return v;
  };
  const std::vector<Value> inputs{filled(32), filled(48), filled(32), filled(48)};
  const Outcome x = run_on(*p, "main", inputs);
  const Outcome y = run_on(*after, "main", inputs);
  check_same(x, y);
  const auto b = f32(inputs[1]);
  auto ob = f32(inputs[3]);
  for (std::size_t k = 0; k < 16 * 64; ++k) ob[k] = strict(b[k] + b[k]);
  CHECK(f32(y.args[3]) == ob);
}

// ---- operand broadcasting, valid_shape loads, predicated Submits -------------------------------

TEST_CASE("interpret: a scalar second operand applies to every element, in the tile's dtype") {
  const auto p = parse(R"(
import pypto.language as pl
@pl.program
class Scalars:
    @pl.function
    def main(self, x: pl.Tensor[[4, 8], pl.FP32], s: pl.Scalar[pl.FP32], i: pl.Tensor[[4, 8], pl.INT32], k: pl.Scalar[pl.INT32], o: pl.Out[pl.Tensor[[4, 8], pl.FP32]], oi: pl.Out[pl.Tensor[[4, 8], pl.INT32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [4, 8])
            u = pl.tile.add(t, 1.5)
            pl.store(pl.tile.mul(u, s), [0, 0], o)
            ti = pl.load(i, [0, 0], [4, 8])
            pl.store(pl.tile.sub(ti, k), [0, 0], oi)
        return o
)");
  check_meaning_kept(*p, "main");
  auto inputs = seeded_args(*p->find("main"), 51, 0);
  inputs[1] = Value::scalar_float(-0.75f);
  inputs[3] = Value::scalar_int(2147483647, pypto::core::DataType::INT32);
  const Outcome o = run_on(*p, "main", inputs);
  const auto x = f32(inputs[0]);
  for (std::size_t k = 0; k < 32; ++k) {
    CHECK(same_bits(o.args[4].buffer->f32[k], strict(strict(x[k] + 1.5f) * -0.75f)));
    // INT32 wraps: v - INT32_MAX for v in [0, 4) stays in range; 0 - MAX = -MAX
    CHECK(o.args[5].buffer->ints[k] == inputs[2].buffer->ints[k] - 2147483647);
  }
}

TEST_CASE("interpret: a [rows, 1] or [1, cols] second operand broadcasts into the first's shape") {
  const auto p = parse(R"(
import pypto.language as pl
@pl.program
class Bcast:
    @pl.function
    def main(self, x: pl.Tensor[[4, 8], pl.FP32], r: pl.Tensor[[1, 8], pl.FP32], o: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [4, 8])
            m = pl.tile.row_max(t, t)
            c = pl.tile.sub(t, m)
            tr = pl.load(r, [0, 0], [1, 8])
            pl.store(pl.tile.mul(c, tr), [0, 0], o)
        return o
)");
  check_meaning_kept(*p, "main");
  const auto inputs = seeded_args(*p->find("main"), 52, 0);
  const Outcome o = run_on(*p, "main", inputs);
  const auto x = f32(inputs[0]), r = f32(inputs[1]);
  for (std::size_t i = 0; i < 4; ++i) {
    float m = x[i * 8];
    for (std::size_t k = 1; k < 8; ++k) m = m < x[i * 8 + k] ? x[i * 8 + k] : m;
    for (std::size_t k = 0; k < 8; ++k)
      CHECK(same_bits(o.args[2].buffer->f32[i * 8 + k], strict(strict(x[i * 8 + k] - m) * r[k])));
  }
  // A first operand of [4, 1] does not grow when the op runs (a RuntimeError naming the op and
  // where it is); dimensions that are neither equal nor 1 do not even type (upstream's rule).
  for (std::string_view bad : {"pl.tile.add(m, t)", "pl.tile.add(t, pl.load(x, [0, 0], [4, 3]))"}) {
    CAPTURE(bad);
    const std::string text = std::string(R"(
import pypto.language as pl
@pl.program
class Bad:
    @pl.function
    def main(self, x: pl.Tensor[[4, 8], pl.FP32], o: pl.Out[pl.Tensor[[4, 1], pl.FP32]]) -> pl.Tensor[[4, 1], pl.FP32]:
        t = pl.load(x, [0, 0], [4, 8])
        m = pl.tile.row_max(t, t)
        u = )") + std::string(bad) +
                             R"(
        return o
)";
    if (bad.find("[4, 3]") != std::string_view::npos) {
      CHECK_THROWS_WITH(
          parse(text), doctest::Contains("tile.add: argument 1 must have a shape that broadcasts"));
      continue;
    }
    const auto q = parse(text);
    CHECK_THROWS_WITH_AS(
        rt::run(*q, "main", seeded_args(*q->find("main"), 1, 0)),
        doctest::Contains("op 'tile.add' cannot broadcast a second operand of shape"),
        rt::RuntimeError);
    CHECK_THROWS_WITH_AS(rt::run(*q, "main", seeded_args(*q->find("main"), 1, 0)),
                         doctest::Contains("at 9:9"), rt::RuntimeError);
  }
}

TEST_CASE(
    "interpret: a load or slice with a valid_shape reads that box and zero-fills the rest, a "
    "store writes that box alone") {
  const auto p = parse(R"(
import pypto.language as pl
@pl.program
class Valid:
    @pl.function
    def main(self, x: pl.Tensor[[12, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]], s: pl.Out[pl.Tensor[[8, 8], pl.FP32]], w: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [8, 0], [16, 16], [4, 16])
            pl.store(pl.add(t, 1.0), [0, 0], o)
            pl.store(pl.tile.set_validshape(pl.add(t, 1.0), 16, 16), [0, 0], w)
        v = pl.tensor.slice(x, [8, 8], [0, 10], [8, 6])
        s1 = pl.tensor.assemble(s, v, [0, 0])
        return o
)");
  check_meaning_kept(*p, "main");
  const auto inputs = seeded_args(*p->find("main"), 53, 0);
  const Outcome o = run_on(*p, "main", inputs);
  const auto x = f32(inputs[0]);
  const auto o_in = f32(inputs[1]);
  // The sum keeps the load's valid box: the store moves its 4 rows, o keeps the rest. Widened
  // to the whole tile (w), the zero-filled rows show.
  for (std::size_t i = 0; i < 16; ++i)
    for (std::size_t k = 0; k < 16; ++k) {
      const float loaded = i < 4 ? x[(8 + i) * 16 + k] : 0.0f;
      CHECK(same_bits(o.args[3].buffer->f32[i * 16 + k], strict(loaded + 1.0f)));
      CHECK(same_bits(o.args[1].buffer->f32[i * 16 + k],
                      i < 4 ? strict(loaded + 1.0f) : o_in[i * 16 + k]));
    }
  // the assemble moves the slice's valid box alone; s keeps the rest
  const auto s = f32(inputs[2]);
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t k = 0; k < 8; ++k)
      CHECK(same_bits(o.args[2].buffer->f32[i * 8 + k], k < 6 ? x[i * 16 + 10 + k] : s[i * 8 + k]));
  // The valid box must be inside the tensor and inside the tile's shape.
  for (std::string_view bad : {"[8, 0], [16, 16], [5, 16]", "[0, 0], [4, 4], [8, 4]"}) {
    CAPTURE(bad);
    const auto q = parse(std::string(R"(
import pypto.language as pl
@pl.program
class Bad:
    @pl.function
    def main(self, x: pl.Tensor[[12, 16], pl.FP32]) -> pl.Tensor[[12, 16], pl.FP32]:
        t = pl.tile.load(x, )") +
                         std::string(bad) + R"()
        return x
)");
    CHECK_THROWS_WITH_AS(rt::run(*q, "main", seeded_args(*q->find("main"), 1, 0)),
                         doctest::Contains("op 'tile.load'"), rt::RuntimeError);
  }
}

TEST_CASE("interpret: a Submit whose predicate is false runs nothing and yields the Out tensor") {
  const auto p = parse(R"(
import pypto.language as pl
@pl.program
class Pred:
    @pl.function(type=pl.FunctionType.InCore)
    def stage(self, x: pl.Tensor[[16], pl.FP32], o: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        t = pl.load(x, [0], [16])
        pl.store(pl.add(t, t), [0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16], pl.FP32], o: pl.Out[pl.Tensor[[16], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16], pl.FP32]:
        r, t = pl.submit(self.stage, x, o, predicate=n > 1)
        r2, t2 = pl.submit(self.stage, r, deps=[t], predicate=n > 2)
        return r2
)");
  for (std::int64_t n : {0, 2, 3}) {
    CAPTURE(n);
    const auto inputs = seeded_args(*p->find("main"), 54, n);
    const Outcome o = run_on(*p, "main", inputs);
    const auto x = f32(inputs[0]);
    std::vector<float> doubled(16), twice(16);
    for (std::size_t k = 0; k < 16; ++k) {
      doubled[k] = strict(x[k] + x[k]);
      twice[k] = strict(doubled[k] + doubled[k]);
    }
    CHECK(f32(o.args[1]) == (n > 1 ? doubled : f32(inputs[1])));
    // The second task's output is omitted: a zero buffer the runtime allocates when it is
    // skipped, the doubled-again values when it runs.
    CHECK(f32(o.results[0]) == (n > 2 ? twice : std::vector<float>(16, 0.0f)));
  }
  // A skipped task whose callee returns a computed value has no result to yield.
  const auto q = parse(R"(
import pypto.language as pl
@pl.program
class Pred:
    @pl.function(type=pl.FunctionType.InCore)
    def fresh(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        y = pl.add(x, x)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16], pl.FP32]:
        r, t = pl.submit(self.fresh, x, predicate=n > 1)
        return r
)");
  CHECK(rt::run(*q, "main", seeded_args(*q->find("main"), 1, 2)).size() == 1);
  CHECK_THROWS_WITH_AS(rt::run(*q, "main", seeded_args(*q->find("main"), 1, 0)),
                       doctest::Contains("not one of its parameters"), rt::RuntimeError);
}

// ---- FP16 and BF16 -----------------------------------------------------------------------------

namespace {
/// The value of an FP16 bit pattern (an independent decoder: sign, 5-bit exponent, 10 bits).
float half_value(std::uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v = 0.0f;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31)
    v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else
    v = std::ldexp(static_cast<float>(mant | 0x400), exp - 25);
  return sign ? -v : v;
}
float bf16_value(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

/// Every finite value of the 16-bit format is a fixed point of rounding; the midpoint between
/// two neighbours rounds to the one with an even last bit, and points just off the midpoint
/// round to the nearer one.
void check_rounding(pypto::core::DataType t, float (*value)(std::uint16_t)) {
  for (std::uint32_t h = 0; h < 0x7fff; ++h) {  // positive, ascending; negatives by symmetry
    const float lo = value(static_cast<std::uint16_t>(h));
    const float hi = value(static_cast<std::uint16_t>(h + 1));
    if (!std::isfinite(lo) || !std::isfinite(hi)) continue;  // overflow: checked below
    CAPTURE(h);
    CHECK(same_bits(rt::round_to_dtype(t, lo), lo));
    CHECK(same_bits(rt::round_to_dtype(t, -static_cast<long double>(lo)), -lo));
    const long double mid = (static_cast<long double>(lo) + hi) / 2;
    const float even = (h % 2 == 0) ? lo : hi;
    CHECK(same_bits(rt::round_to_dtype(t, mid), even));
    CHECK(same_bits(rt::round_to_dtype(t, -mid), -even));
    const long double eps = (static_cast<long double>(hi) - lo) / 1024;
    CHECK(same_bits(rt::round_to_dtype(t, mid - eps), lo));
    CHECK(same_bits(rt::round_to_dtype(t, mid + eps), hi));
  }
}
}  // namespace

TEST_CASE("interpret: FP16 / BF16 rounding is to nearest, ties to even, exhaustively") {
  using pypto::core::DataType;
  check_rounding(DataType::FP16, half_value);
  check_rounding(DataType::BF16, bf16_value);
  // Overflow: FP16's largest value is 65504; the midpoint to 65536 rounds up to infinity.
  CHECK(rt::round_to_dtype(DataType::FP16, 65519.0) == 65504.0f);
  CHECK(std::isinf(rt::round_to_dtype(DataType::FP16, 65520.0)));
  CHECK(std::isinf(rt::round_to_dtype(DataType::BF16, std::numeric_limits<float>::max())));
  CHECK(std::isnan(rt::round_to_dtype(DataType::FP16, std::nan(""))));
  CHECK(same_bits(rt::round_to_dtype(DataType::FP16, -0.0), -0.0f));
  CHECK(same_bits(rt::round_to_dtype(DataType::FP16, std::ldexp(1.0, -25)), 0.0f));  // tie to 0
  // FP32 results keep their bits, a signalling NaN's payload included.
  const std::uint32_t snan_bits = 0x7fa00001u;
  float snan;
  std::memcpy(&snan, &snan_bits, sizeof snan);
  CHECK(pypto::kernel::float_bits(rt::rounded(DataType::FP32, snan)) == snan_bits);
  CHECK(pypto::kernel::float_bits(Value::scalar_float(snan).f) == snan_bits);
  // A 64-bit integer converts with one rounding: 2^60 + 2^52 + 1 is just above a BF16 tie.
  CHECK(
      rt::round_to_dtype(DataType::BF16, static_cast<long double>((1LL << 60) + (1LL << 52) + 1)) ==
      std::ldexp(1.0f, 60) + std::ldexp(1.0f, 53));
}

TEST_CASE("interpret: FP16 and BF16 tiles compute in binary32 and round each result") {
  using pypto::core::DataType;
  for (std::string_view dt : {"FP16", "BF16"}) {
    CAPTURE(dt);
    const DataType t = dt == "FP16" ? DataType::FP16 : DataType::BF16;
    std::string text = R"(
import pypto.language as pl
@pl.program
class Half:
    @pl.function
    def main(self, x: pl.Tensor[[4, 8], pl.DT], w: pl.Tensor[[8, 4], pl.DT], o: pl.Out[pl.Tensor[[4, 8], pl.DT]], s: pl.Out[pl.Tensor[[4, 1], pl.DT]], c: pl.Out[pl.Tensor[[4, 4], pl.FP32]], f: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.DT]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [4, 8])
            u = pl.tile.mul(pl.tile.add(t, t), t)
            d = pl.tile.div(u, pl.tile.full([4, 8], dtype=pl.DT, value=3.0))
            pl.store(d, [0, 0], o)
            pl.store(pl.tile.row_sum(d, d), [0, 0], s)
            tw = pl.load(w, [0, 0], [8, 4])
            pl.store(pl.tile.matmul(t, tw), [0, 0], c)
            pl.store(pl.tile.cast(d, target_type=pl.FP32), [0, 0], f)
        return o
)";
    for (std::size_t at = text.find("DT"); at != std::string::npos; at = text.find("DT", at))
      text.replace(at, 2, dt);
    const auto p = parse(text);
    check_meaning_kept(*p, "main");
    const auto inputs = seeded_args(*p->find("main"), 61, 0);
    const Outcome o = run_on(*p, "main", inputs);
    const auto x = f32(inputs[0]), w = f32(inputs[1]);
    auto r = [&](float v) { return rt::round_to_dtype(t, v); };
    for (std::size_t i = 0; i < 4; ++i) {
      float sum = 0.0f;
      for (std::size_t k = 0; k < 8; ++k) {
        const float u = r(strict(r(strict(x[i * 8 + k] + x[i * 8 + k])) * x[i * 8 + k]));
        const float d = r(strict(u / 3.0f));
        CHECK(same_bits(o.args[2].buffer->f32[i * 8 + k], d));
        CHECK(same_bits(o.args[5].buffer->f32[i * 8 + k], d));
        sum = k == 0 ? d : r(strict(sum + d));
      }
      CHECK(same_bits(o.args[3].buffer->f32[i], sum));
      for (std::size_t j = 0; j < 4; ++j) {
        float acc = 0.0f;
        for (std::size_t k = 0; k < 8; ++k) {
          const float prod = strict(x[i * 8 + k] * w[k * 4 + j]);
          acc = k == 0 ? prod : strict(acc + prod);
        }
        CHECK(same_bits(o.args[4].buffer->f32[i * 4 + j], acc));
      }
    }
    CHECK(o.args[2].buffer->dtype == t);
  }
}

TEST_CASE("interpret: other float dtypes (HF8, ...) stay a RuntimeError naming the op and where") {
  const auto p = parse(R"(
import pypto.language as pl
@pl.program
class Hf8:
    @pl.function
    def main(self, x: pl.Tensor[[16], pl.HF8], o: pl.Out[pl.Tensor[[16], pl.HF8]]) -> pl.Tensor[[16], pl.HF8]:
        t = pl.load(x, [0], [16])
        pl.store(pl.tile.add(t, t), [0], o)
        return o
)");
  std::vector<Value> args{Value::zeros(pypto::core::DataType::HF8, {16}),
                          Value::zeros(pypto::core::DataType::HF8, {16})};
  CHECK_THROWS_WITH_AS(rt::run(*p, "main", args),
                       "interpreter: tile.add's operand has dtype HF8, which the interpreter "
                       "does not execute (floats, integers and BOOL only) at 8:9",
                       rt::RuntimeError);
}

TEST_CASE("interpret: a shape symbol is bound from the first argument's extent and readable") {
  const auto p = parse(R"(
import pypto.language as pl
M = pl.dynamic("M")
@pl.program
class Sym:
    @pl.function
    def main(self, a: pl.Tensor[[M, 8], pl.FP32], b: pl.Tensor[[M, 8], pl.FP32], o: pl.Out[pl.Tensor[[M, 8], pl.FP32]]) -> pl.Scalar[pl.INDEX]:
        for i in pl.range(M // 4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [i * 4, 0], [4, 8])
                u = pl.load(b, [i * 4, 0], [4, 8])
                pl.store(pl.add(t, u), [i * 4, 0], o)
        return M
)");
  using pypto::core::DataType;
  for (std::int64_t m : {4, 12}) {
    CAPTURE(m);
    pypto::test::SplitMix64 rng(71);
    std::vector<Value> args;
    for (int k = 0; k < 3; ++k) {
      Value v = Value::zeros(DataType::FP32, {m, 8});
      for (auto& x : v.buffer->f32) x = static_cast<float>(rng.range(-128, 127)) / 64.0f;
      args.push_back(v);
    }
    const Outcome o = run_on(*p, "main", args);
    REQUIRE(o.results.size() == 1);
    CHECK(o.results[0].i == m);
    for (std::size_t k = 0; k < static_cast<std::size_t>(m) * 8; ++k)
      CHECK(same_bits(o.args[2].buffer->f32[k],
                      strict(args[0].buffer->f32[k] + args[1].buffer->f32[k])));
    const Outcome after = run_on(*transform(*p), "main", args);
    check_same(o, after);
  }
  // Two parameters that give M different extents: M is the first's (a per-tensor dynamic
  // dimension, as upstream binds it), and each access is checked against its own tensor.
  Value a = Value::zeros(DataType::FP32, {4, 8}), b = Value::zeros(DataType::FP32, {8, 8});
  for (std::size_t k = 0; k < 64; ++k) b.buffer->f32[k] = static_cast<float>(k);
  const Outcome first = run_on(*p, "main", {a, b, Value::zeros(DataType::FP32, {4, 8})});
  CHECK(first.results[0].i == 4);
  for (std::size_t k = 0; k < 32; ++k) CHECK(first.args[2].buffer->f32[k] == static_cast<float>(k));
  CHECK_THROWS_WITH_AS(
      rt::run(*p, "main", {b, a, Value::zeros(DataType::FP32, {8, 8})}),
      doctest::Contains("op 'tile.load' region [4, 8) is out of bounds of dimension 0 (4)"),
      rt::RuntimeError);
}

TEST_CASE(
    "interpret: an integer scalar binds to an integer parameter that holds it, a float does not") {
  const auto p = parse(R"(
import pypto.language as pl
@pl.program
class Config:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 8], pl.FP32], rows: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        t = pl.load(x, [rows, 0], [1, 8])
        o = pl.store(t, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 8], pl.FP32], config: pl.Tensor[[2], pl.INT64], o: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        rows: pl.Scalar[pl.INT64] = pl.tensor.read(config, [1])
        o = self.k(x, rows, o)
        return o
)");
  using pypto::core::DataType;
  Value x = Value::zeros(DataType::FP32, {4, 8});
  for (std::size_t k = 0; k < x.buffer->f32.size(); ++k) x.buffer->f32[k] = static_cast<float>(k);
  const Outcome o = run_on(
      *p, "main",
      {x, Value::tensor_int(DataType::INT64, {2}, {0, 3}), Value::zeros(DataType::FP32, {4, 8})});
  for (std::size_t k = 0; k < 8; ++k) CHECK(o.args[2].buffer->f32[k] == 24.0f + k);  // row 3
  CHECK_NOTHROW(rt::run(
      *p, "k", {x, Value::scalar_int(1, DataType::INT32), Value::zeros(DataType::FP32, {4, 8})}));
  CHECK_THROWS_WITH_AS(
      rt::run(*p, "k", {x, Value::scalar_float(1.0f), Value::zeros(DataType::FP32, {4, 8})}),
      doctest::Contains("argument 'rows' of k must be a Scalar[INDEX]"), rt::RuntimeError);
}

TEST_CASE("interpret: outputs compare by bits, zeros by sign, and every NaN equals every NaN") {
  const auto nan_bits = [](std::uint32_t bits) { return std::bit_cast<float>(bits); };
  const auto tile = [](std::vector<float> values) {
    rt::Value v = rt::Value::zeros(pypto::core::DataType::FP32,
                                   {1, static_cast<std::int64_t>(values.size())}, true);
    v.buffer->f32 = std::move(values);
    return v;
  };
  // The quiet NaN x86 produces (sign set), its positive twin, and a payload-carrying NaN.
  const float qnan_neg = nan_bits(0xffc00000u), qnan_pos = nan_bits(0x7fc00000u),
              payload = nan_bits(0x7fc00123u);
  CHECK(rt::bit_identical(tile({qnan_neg, 1.0f}), tile({qnan_pos, 1.0f})));
  CHECK(rt::bit_identical(tile({payload, 1.0f}), tile({qnan_neg, 1.0f})));
  CHECK(rt::bit_identical(rt::Value::scalar_float(qnan_neg), rt::Value::scalar_float(payload)));
  CHECK_FALSE(rt::bit_identical(tile({0.0f}), tile({-0.0f})));
  CHECK_FALSE(rt::bit_identical(tile({qnan_pos}), tile({std::numeric_limits<float>::infinity()})));
  CHECK_FALSE(rt::bit_identical(rt::Value::scalar_float(-0.0f), rt::Value::scalar_float(0.0f)));
  CHECK_FALSE(rt::bit_identical(tile({1.0f}), tile({std::nextafter(1.0f, 2.0f)})));
}

TEST_CASE("interpret: a slice passed to a call is a view, a copy of it is not") {
  // The kernel doubles its Out argument's rows in place; out[1] is a view, so out's row 1
  // changes; a deep copy of a view owns its storage and views nothing.
  const auto p = parse(R"(
import pypto.language as pl
@pl.program
class Views:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 4], pl.FP32], y: pl.Out[pl.Tensor[[1, 4], pl.FP32]]) -> pl.Tensor[[1, 4], pl.FP32]:
        t = pl.load(x, [0, 0], [1, 4])
        return pl.store(pl.add(t, t), [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[1, 4], pl.FP32], out: pl.Out[pl.Tensor[[2, 1, 4], pl.FP32]]) -> pl.Tensor[[2, 1, 4], pl.FP32]:
        row = out[1]
        self.k(x, row)
        return out
)");
  using pypto::core::DataType;
  Value x = Value::tensor_f32({1, 4}, {1.0f, -2.0f, 0.5f, 3.0f});
  const Outcome o = run_on(*p, "main", {x, Value::zeros(DataType::FP32, {2, 1, 4})});
  CHECK(o.args[1].buffer->f32 ==
        std::vector<float>{0.0f, 0.0f, 0.0f, 0.0f, 2.0f, -4.0f, 1.0f, 6.0f});
  auto parent = Value::zeros(DataType::FP32, {2});
  Value view = Value::zeros(DataType::FP32, {1});
  view.buffer->origin =
      std::make_shared<const rt::ViewOrigin>(rt::ViewOrigin{parent.buffer, {1}, {1}, false});
  CHECK(view.deep_copy().buffer->origin == nullptr);
}

// Tests of runtime/program_runner.hpp: a whole program runs with its kernels executed by
// compiled hand-written sources (kernel_abi.hpp convention) and gives bit-identical results and
// argument buffers to the reference interpreter running the same program (loops, an if, a
// Submit with a dependency; FP32, FP16 and INT32 tensors; INDEX and INT32 scalars).
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/runtime/compile_cache.hpp"
#include "pypto/runtime/files.hpp"
#include "pypto/runtime/interpreter.hpp"
#include "pypto/runtime/kernel_library.hpp"
#include "pypto/runtime/program_runner.hpp"
#include "pypto/text/parser.hpp"

namespace rt = pypto::runtime;
namespace cg = pypto::codegen;
namespace ir = pypto::ir;
using rt::Value;

namespace {

constexpr std::string_view kLoopProgram = R"(
import pypto.language as pl
@pl.program
class Runner:
    @pl.function(type=pl.FunctionType.InCore)
    def scale_rows(self, a: pl.Tensor[[256, 128], pl.FP32], i: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        t = pl.load(a, [i * 64, 0], [64, 128])
        pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def shift(self, x: pl.Tensor[[256, 128], pl.FP32], o: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        t = pl.load(x, [0, 0], [256, 128])
        pl.store(pl.add(t, 1.5), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 128], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]], out2: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i, (acc,) in pl.range(4, init_values=(out,)):
            r = self.scale_rows(a, i, acc)
            acc_next = pl.yield_(r)
        first, t0 = pl.submit(self.shift, acc_next, out2)
        if n < 2:
            second, t1 = pl.submit(self.shift, first, out, deps=[t0])
            phi = pl.yield_(second)
        else:
            phi = pl.yield_(first)
        return phi
)";

// scale_rows(a, out; i): rows [64 i, 64 i + 64) of out = rows of a * 2.
constexpr const char* kScaleRows = R"(#include <pypto/codegen/kernel_abi.hpp>
#include <cstdint>
extern "C" void pypto_kernel_entry(const std::uint64_t* args) {
  auto* a = reinterpret_cast<pypto::codegen::TensorArg*>(args[0]);
  auto* out = reinterpret_cast<pypto::codegen::TensorArg*>(args[1]);
  const auto i = static_cast<std::int64_t>(args[2]);
  const std::int64_t cols = a->shape[1];
  const float* x = static_cast<const float*>(a->data);
  float* y = static_cast<float*>(out->data);
  for (std::int64_t r = i * 64; r < i * 64 + 64; ++r)
    for (std::int64_t c = 0; c < cols; ++c) y[r * cols + c] = x[r * cols + c] * 2.0f;
}
)";

// shift(x, o): o = x + 1.5 over the whole extent.
constexpr const char* kShift = R"(#include <pypto/codegen/kernel_abi.hpp>
#include <cstdint>
extern "C" void pypto_kernel_entry(const std::uint64_t* args) {
  auto* x = reinterpret_cast<pypto::codegen::TensorArg*>(args[0]);
  auto* o = reinterpret_cast<pypto::codegen::TensorArg*>(args[1]);
  std::int64_t n = 1;
  for (std::int64_t d = 0; d < x->rank; ++d) n *= x->shape[d];
  for (std::int64_t k = 0; k < n; ++k)
    static_cast<float*>(o->data)[k] = static_cast<const float*>(x->data)[k] + 1.5f;
}
)";

constexpr std::string_view kIntProgram = R"(
import pypto.language as pl
@pl.program
class Ints:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: pl.Tensor[[8], pl.INT32], k: pl.Scalar[pl.INT32], o: pl.Out[pl.Tensor[[8], pl.INT32]]) -> pl.Tensor[[8], pl.INT32]:
        t = pl.load(x, [0], [8])
        pl.store(pl.add(t, k), [0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8], pl.INT32], k: pl.Scalar[pl.INT32], o: pl.Out[pl.Tensor[[8], pl.INT32]]) -> pl.Tensor[[8], pl.INT32]:
        r = self.inc(x, k, o)
        return r
)";

// inc(x, o; k): o = x + k with int32 wraparound; it also scribbles on x, which is an IN tensor
// and so must not be copied back.
constexpr const char* kInc = R"(#include <pypto/codegen/kernel_abi.hpp>
#include <cstdint>
extern "C" void pypto_kernel_entry(const std::uint64_t* args) {
  auto* x = reinterpret_cast<pypto::codegen::TensorArg*>(args[0]);
  auto* o = reinterpret_cast<pypto::codegen::TensorArg*>(args[1]);
  const auto k = static_cast<std::uint32_t>(args[2]);
  auto* xs = static_cast<std::int32_t*>(x->data);
  auto* os = static_cast<std::int32_t*>(o->data);
  for (std::int64_t j = 0; j < x->shape[0]; ++j) {
    os[j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(xs[j]) + k);
    xs[j] = 0;
  }
}
)";

constexpr std::string_view kHalfProgram = R"(
import pypto.language as pl
@pl.program
class Halves:
    @pl.function(type=pl.FunctionType.InCore)
    def neg(self, x: pl.Tensor[[6], pl.FP16], o: pl.Out[pl.Tensor[[6], pl.FP16]]) -> pl.Tensor[[6], pl.FP16]:
        t = pl.load(x, [0], [6])
        pl.store(pl.neg(t), [0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[6], pl.FP16], o: pl.Out[pl.Tensor[[6], pl.FP16]]) -> pl.Tensor[[6], pl.FP16]:
        r = self.neg(x, o)
        return r
)";

// neg(x, o): o = -x on FP16 bit patterns (the sign bit flipped, which is the rounded negation of
// every non-NaN value); it also scribbles on x, an IN tensor.
constexpr const char* kNegHalf = R"(#include <pypto/codegen/kernel_abi.hpp>
#include <cstdint>
extern "C" void pypto_kernel_entry(const std::uint64_t* args) {
  auto* x = reinterpret_cast<pypto::codegen::TensorArg*>(args[0]);
  auto* o = reinterpret_cast<pypto::codegen::TensorArg*>(args[1]);
  auto* xs = static_cast<std::uint16_t*>(x->data);
  auto* os = static_cast<std::uint16_t*>(o->data);
  for (std::int64_t j = 0; j < x->shape[0]; ++j) {
    os[j] = static_cast<std::uint16_t>(xs[j] ^ 0x8000u);
    xs[j] = 0;
  }
}
)";

std::vector<Value> deep_copy(const std::vector<Value>& v) {
  std::vector<Value> out;
  for (const auto& x : v) out.push_back(x.deep_copy());
  return out;
}

bool all_identical(const std::vector<Value>& a, const std::vector<Value>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (!rt::bit_identical(a[k], b[k])) return false;
  return true;
}

std::vector<Value> loop_inputs(std::int64_t n) {
  std::vector<float> a(256 * 128);
  for (std::size_t k = 0; k < a.size(); ++k)
    a[k] = static_cast<float>(static_cast<int>(k % 255) - 127) / 64.0f;
  return {Value::tensor_f32({256, 128}, a), Value::scalar_int(n),
          Value::zeros(pypto::core::DataType::FP32, {256, 128}),
          Value::zeros(pypto::core::DataType::FP32, {256, 128})};
}

struct Ran {
  std::vector<Value> results, args;
};

/// Runs `main` of `p` on copies of `inputs` with the interpreter and with `runner`: results and
/// argument buffers must be bit-identical. The runner's side is returned.
Ran run_both(const ir::Program& p, rt::ProgramRunner& runner, const std::vector<Value>& inputs) {
  std::vector<Value> expected_args = deep_copy(inputs);
  const std::vector<Value> expected = rt::run(p, "main", expected_args);
  Ran got{{}, deep_copy(inputs)};
  got.results = runner.run("main", got.args);
  CHECK(all_identical(got.results, expected));
  CHECK(all_identical(got.args, expected_args));
  return got;
}

const cg::RuntimeDirection In = cg::RuntimeDirection::In;
const cg::RuntimeDirection Out = cg::RuntimeDirection::Out;

}  // namespace

TEST_CASE("program runner: an orchestration loop, if and submits on compiled kernels") {
  const ir::ProgramRef p = pypto::text::parse_program(kLoopProgram);
  rt::TempDir dir;
  rt::CompileCache cache(dir.path(), rt::find_compiler());
  const auto lib =
      rt::KernelLibrary::compile(cache,
                                 {{"scale_rows", kScaleRows, rt::CodeOrigin::Generated, {}},
                                  {"shift", kShift, rt::CodeOrigin::Generated, {}}},
                                 {{0, "scale_rows", cg::CoreType::AIV, {In, Out}},
                                  {1, "shift", cg::CoreType::AIV, {In, Out}}});
  CHECK(cache.stats().compilations == 2);
  for (std::int64_t n : {1, 5}) {  // both branches of the if
    CAPTURE(n);
    const std::vector<Value> inputs = loop_inputs(n);
    rt::ProgramRunner runner(*p, lib, {{"scale_rows", 0}, {"shift", 1}});
    const Ran got = run_both(*p, runner, inputs);
    CHECK(runner.kernel_calls() == (n < 2 ? 6u : 5u));
    // Spot value: row 0 of a is doubled, then shifted by 1.5 (twice when n < 2).
    const float a0 = inputs[0].buffer->f32[0];
    CHECK(got.results[0].buffer->f32[0] == a0 * 2.0f + (n < 2 ? 3.0f : 1.5f));
  }
  // The results alias the caller's Out buffers, as with the interpreter.
  std::vector<Value> args = loop_inputs(5);
  rt::ProgramRunner runner(*p, lib, {{"scale_rows", 0}, {"shift", 1}});
  const auto results = runner.run("main", args);
  CHECK(results[0].buffer == args[3].buffer);
}

TEST_CASE("program runner: INT32 tensors and scalars, IN tensors are not written back") {
  const ir::ProgramRef p = pypto::text::parse_program(kIntProgram);
  rt::TempDir dir;
  rt::CompileCache cache(dir.path(), rt::find_compiler());
  const auto lib = rt::KernelLibrary::compile(cache, {{"inc", kInc, rt::CodeOrigin::Generated, {}}},
                                              {{9, "inc", cg::CoreType::AIV, {In, Out}}});
  const std::vector<Value> inputs{
      Value::tensor_int(pypto::core::DataType::INT32, {8},
                        {0, -1, 2147483647, -2147483648LL, 5, -7, 100, 1}),
      Value::scalar_int(3, pypto::core::DataType::INT32),
      Value::zeros(pypto::core::DataType::INT32, {8})};
  rt::ProgramRunner runner(*p, lib, {{"inc", 9}});
  const std::vector<Value> args = run_both(*p, runner, inputs).args;
  CHECK(args[2].buffer->ints[2] == -2147483646);  // wrapped like the interpreter
  CHECK(args[0].buffer->ints == inputs[0].buffer->ints);
}

TEST_CASE("program runner: FP16 tensors travel as 16-bit patterns, a non-FP16 value is refused") {
  const ir::ProgramRef p = pypto::text::parse_program(kHalfProgram);
  rt::TempDir dir;
  rt::CompileCache cache(dir.path(), rt::find_compiler());
  const auto lib =
      rt::KernelLibrary::compile(cache, {{"neg", kNegHalf, rt::CodeOrigin::Generated, {}}},
                                 {{2, "neg", cg::CoreType::AIV, {In, Out}}});
  Value x = Value::zeros(pypto::core::DataType::FP16, {6});
  x.buffer->f32 = {
      1.5f,         -0.0f, 65504.0f, 0x1p-24f, -std::numeric_limits<float>::infinity(),
      -0x1.ff8p-15f};  // one, zero, largest, smallest subnormal, inf, largest subnormal
  const std::vector<Value> inputs{x, Value::zeros(pypto::core::DataType::FP16, {6})};
  rt::ProgramRunner runner(*p, lib, {{"neg", 2}});
  const std::vector<Value> args = run_both(*p, runner, inputs).args;
  CHECK(args[1].buffer->f32[0] == -1.5f);
  CHECK(args[1].buffer->f32[3] == -0x1p-24f);
  CHECK(args[0].buffer->f32 == inputs[0].buffer->f32);  // IN: not written back
  // 0.1 is no FP16 value: the runner refuses to round it on the way in
  std::vector<Value> bad = deep_copy(inputs);
  bad[0].buffer->f32[2] = 0.1f;
  CHECK_THROWS_WITH_AS(
      runner.run("main", bad),
      doctest::Contains("a tensor of dtype FP16 holds 0.100000, which is not a value"),
      rt::RuntimeError);
}

TEST_CASE("program runner: a kernel without a registration is a RuntimeError naming it") {
  const ir::ProgramRef p = pypto::text::parse_program(kIntProgram);
  rt::TempDir dir;
  rt::CompileCache cache(dir.path(), rt::find_compiler());
  const auto lib = rt::KernelLibrary::compile(cache, {{"inc", kInc, rt::CodeOrigin::Generated, {}}},
                                              {{9, "inc", cg::CoreType::AIV, {In, Out}}});
  std::vector<Value> args{Value::zeros(pypto::core::DataType::INT32, {8}),
                          Value::scalar_int(3, pypto::core::DataType::INT32),
                          Value::zeros(pypto::core::DataType::INT32, {8})};
  rt::ProgramRunner no_mapping(*p, lib, {});
  CHECK_THROWS_WITH_AS(no_mapping.run("main", args), doctest::Contains("kernel 'inc'"),
                       rt::RuntimeError);
  rt::ProgramRunner wrong_id(*p, lib, {{"inc", 4}});
  CHECK_THROWS_WITH_AS(wrong_id.run("main", args), doctest::Contains("func_id 4"),
                       rt::RuntimeError);
  // A registration whose signature does not match the kernel's tensors is refused at the call.
  const auto short_sig = rt::KernelLibrary::compile(
      cache, {{"inc", kInc, rt::CodeOrigin::Generated, {}}}, {{9, "inc", cg::CoreType::AIV, {In}}});
  rt::ProgramRunner mismatch(*p, short_sig, {{"inc", 9}});
  CHECK_THROWS_WITH_AS(mismatch.run("main", args), doctest::Contains("takes 1 tensors, got 2"),
                       rt::KernelLibraryError);
  CHECK(cache.stats().compilations == 1);
}

TEST_CASE("interpreter call hook: consulted for kernels only, nullopt interprets the body") {
  const ir::ProgramRef p = pypto::text::parse_program(kLoopProgram);
  std::vector<std::string> seen;
  rt::RunOptions options;
  options.call_hook = [&](const ir::Function& fn, std::vector<Value>& args, std::int64_t,
                          std::int64_t) {
    seen.push_back(fn.name + "/" + std::to_string(args.size()));
    return std::optional<std::vector<Value>>();
  };
  std::vector<Value> args = loop_inputs(1);
  std::vector<Value> expected_args = deep_copy(args);
  const auto results = rt::run(*p, "main", args, options);
  const auto expected = rt::run(*p, "main", expected_args);
  CHECK(all_identical(results, expected));
  CHECK(all_identical(args, expected_args));
  CHECK(seen == std::vector<std::string>{"scale_rows/3", "scale_rows/3", "scale_rows/3",
                                         "scale_rows/3", "shift/2", "shift/2"});
}

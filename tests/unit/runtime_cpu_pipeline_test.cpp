// The whole of issue 8 on the CPU target, program by program: each runnable program of
// tests/programs/ goes through the tensor pipeline (convert-to-ssa ... convert-tensor-to-tile-ops),
// codegen<CpuTarget>, the compile-once cache and the program runner, and must give results and
// argument buffers bit-identical to the input program interpreted with its scopes inline (the
// un-outlined reference). Programs the CPU target cannot express yet are listed with the exact
// CodegenError they get. Dedup's effect on compilation is checked too: the pipeline without
// deduplicate-outlined-kernels launches more kernel functions than the pipeline with it compiles.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/codegen/codegen.hpp"
#include "pypto/codegen/cpu_target.hpp"
#include "pypto/runtime/cpu_program.hpp"
#include "pypto/runtime/interpreter.hpp"
#include "pypto/runtime/seeded_inputs.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"
#include "test_files.hpp"

namespace ir = pypto::ir;
namespace rt = pypto::runtime;
namespace cg = pypto::codegen;
namespace tf = pypto::transforms;

namespace {

constexpr std::string_view kPipeline = tf::kCodegenPipeline;
constexpr std::string_view kPipelineWithoutDedup =
    "convert-to-ssa,outline-incore-scopes,outline-cluster-scopes,convert-tensor-to-tile-ops,"
    "expand-mixed-kernels,normalize-return-order";

using pypto_test::read_program;

ir::ProgramRef lower(const ir::Program& p, std::string_view pipeline) {
  return tf::PassManager(tf::standard_passes().pipeline(pipeline), tf::PassManagerOptions{}).run(p);
}

/// `main`, else the only Orchestration / Opaque function.
std::string entry_of(const ir::Program& p) {
  if (p.find("main")) return "main";
  std::string entry;
  for (const ir::NamedFunction& f : p.functions)
    if (f.function->func_type == ir::FunctionType::Orchestration ||
        f.function->func_type == ir::FunctionType::Opaque) {
      REQUIRE_MESSAGE(entry.empty(), "two entry candidates: " << entry << ", " << f.name);
      entry = f.name;
    }
  REQUIRE(!entry.empty());
  return entry;
}

std::vector<rt::Value> copies(const std::vector<rt::Value>& v) {
  std::vector<rt::Value> out;
  for (const auto& x : v) out.push_back(x.deep_copy());
  return out;
}

/// One compile cache for every case of the suite (tests/CMakeLists.txt): equal code across
/// programs compiles once, the target's prologue is precompiled once.
rt::CompileCache& cache() {
  static rt::CompileCache c(PYPTO_TEST_KERNEL_CACHE);
  return c;
}

struct Outcome {
  std::size_t code_units = 0;
  std::size_t registrations = 0;
  std::size_t launched_kernels = 0;
};

/// Lowers, generates, compiles and runs `file` on seeds 1..3; every result and argument must be
/// bit-identical to the un-outlined reference.
Outcome check_program(std::string_view file, std::string_view pipeline = kPipeline) {
  CAPTURE(file);
  const ir::ProgramRef input = pypto::text::parse_program(read_program(file));
  const ir::ProgramRef lowered = lower(*input, pipeline);
  cg::KernelCodeMap codes;
  const cg::OrchestrationResult code = cg::codegen<cg::CpuTarget>(*lowered, {}, &codes);
  const rt::CpuProgram compiled = rt::CpuProgram::compile(cache(), *lowered, code, codes);
  const std::string entry = entry_of(*input);
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    CAPTURE(seed);
    const std::vector<rt::Value> inputs = rt::seeded_inputs(*input->find(entry), seed);
    std::vector<rt::Value> got_args = copies(inputs), want_args = copies(inputs);
    const std::vector<rt::Value> got = compiled.run(entry, got_args);
    const std::vector<rt::Value> want = rt::run(*input, entry, want_args);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CAPTURE(i);
      CHECK(rt::bit_identical(got[i], want[i]));
    }
    for (std::size_t i = 0; i < got_args.size(); ++i) {
      CAPTURE(i);
      CHECK(rt::bit_identical(got_args[i], want_args[i]));
    }
  }
  return {code.kernel_sources.size(), code.kernel_registrations.size(),
          cg::launched_kernels(*lowered).size()};
}

}  // namespace

/// The error running `text` (a whole program) compiled on the CPU target gives (a RuntimeError, or
/// the CodegenError of a program the target refuses), with the interpreter's error on the same
/// inputs after it (empty strings: none). `dims` fixes shape symbols' extents; `world` is the
/// ranks of the world both run in.
std::pair<std::string, std::string> run_errors(const std::string& text,
                                               const rt::SymbolExtents& dims = {},
                                               std::int64_t world = 1) {
  const ir::ProgramRef input = pypto::text::parse_program(text);
  const ir::ProgramRef lowered = lower(*input, kPipeline);
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1, {}, dims),
                         again = copies(args);
  std::pair<std::string, std::string> out;
  try {
    cg::KernelCodeMap codes;
    const cg::OrchestrationResult code = cg::codegen<cg::CpuTarget>(*lowered, {}, &codes);
    const rt::CpuProgram compiled = rt::CpuProgram::compile(cache(), *lowered, code, codes);
    (void)compiled.run("main", args, world);
  } catch (const rt::RuntimeError& e) {
    out.first = e.what();
  } catch (const cg::CodegenError& e) {  // what the target refuses to compile
    out.first = e.what();
  }
  try {
    rt::RunOptions options;
    options.world_size = world;
    (void)rt::run(*input, "main", again, options);
  } catch (const rt::RuntimeError& e) {
    out.second = e.what();
  }
  return out;
}

/// Checks that the compiled run's error and the interpreter's (run_errors) both say every one
/// of `parts`.
void check_both_say(const std::pair<std::string, std::string>& errors,
                    std::initializer_list<std::string_view> parts) {
  for (const std::string& e : {errors.first, errors.second}) {
    CAPTURE(e);
    for (const std::string_view part : parts) CHECK(e.find(part) != std::string::npos);
  }
}

/// The error codegen gives `file` after the pipeline (empty: none).
std::string codegen_error(std::string_view file) {
  const ir::ProgramRef input = pypto::text::parse_program(read_program(file));
  const ir::ProgramRef lowered = lower(*input, kPipeline);
  try {
    (void)cg::codegen<cg::CpuTarget>(*lowered);
  } catch (const cg::CodegenError& e) {
    return e.what();
  }
  return {};
}

TEST_CASE(
    "cpu pipeline: every program the CPU target expresses runs bit-identical to the reference") {
  // loops with carries, Submit with deps, spmd blocks (block index), matmul, scalar params,
  // shape-distinct merges (symbols given extents), tensor ops converted to tile ops, ...
  for (std::string_view file :
       {"loops_carries.pl", "submit_deps.pl", "spmd_blocks.pl", "matmul_tiles.pl",
        "scalar_params.pl", "dedup_signed_zero.pl", "dedup_shape_loop.pl", "tensor_ops_kernel.pl",
        "row_reduce_softmax.pl", "outline_seed_loop.pl",
        // ifs inside kernels: one yielding a tile computed in each arm, one whose arms both
        // store into the carried Out tensor (the if's result is that tensor)
        "if_branches.pl", "outline_if_store_phi.pl",
        // NaNs whose sign the host compiler chooses: equal as NaNs, zeros still by sign
        "nan_signs.pl",
        // a loop carry and an if result whose buffer switches between two
        "ping_pong.pl"})
    check_program(file);
}

TEST_CASE("cpu pipeline: a kernel reading one element of a computed tile runs as interpreted") {
  // tensor_ops_materialize.pl: tensor.read of a computed value becomes tile.read.
  check_program("tensor_ops_materialize.pl");
}

TEST_CASE("cpu pipeline: Groups run as mixed tasks, their members on one argument list") {
  // group_aic_aiv.pl: the AIV member reads what the AIC member wrote (the cube's result is the
  // buffer of the Group's c); the two equal bundles share one pair of kernels.
  const Outcome group = check_program("group_aic_aiv.pl");
  CHECK(group.code_units == 2);
  CHECK(group.registrations == 2);
  CHECK(group.launched_kernels == 2);
  CHECK(check_program("group_aic_aiv.pl", kPipelineWithoutDedup).launched_kernels == 4);
  // outline_cluster.pl: a cluster of an InCore producer and consumer, then a spmd block loop.
  const Outcome cluster = check_program("outline_cluster.pl");
  CHECK(cluster.code_units == 3);
}

TEST_CASE(
    "cpu pipeline: values scopes compute with tensor ops and read after them come back through "
    "Out parameters the orchestration allocates (a Submit too)") {
  const ir::ProgramRef lowered =
      lower(*pypto::text::parse_program(read_program("scope_result_read_after.pl")), kPipeline);
  INFO(pypto::text::print(*lowered));
  const ir::FunctionRef first = lowered->find("main_incore_0");
  const ir::FunctionRef second = lowered->find("main_incore_1");
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first->params.size() == 4);  // x, b, then y and z
  CHECK(first->param_directions.back() == ir::ParamDirection::Out);
  CHECK(second->params.size() == 3);  // z, y, then u
  const Outcome o = check_program("scope_result_read_after.pl");
  CHECK(o.launched_kernels == 3);
}

TEST_CASE("cpu pipeline: the embedded default's text twin compiles one kernel for two launches") {
  const Outcome o = check_program("default_twin_add.pl");
  CHECK(o.code_units == 1);
  CHECK(o.registrations == 1);
  const Outcome without = check_program("default_twin_add.pl", kPipelineWithoutDedup);
  CHECK(without.launched_kernels == 2);
}

TEST_CASE("cpu pipeline: dedup reduces the kernels launched to the code units compiled") {
  struct Case {
    std::string_view file;
    std::size_t launched_without_dedup, code_units;
  };
  for (const Case& c :
       {Case{"dedup_many_equal.pl", 5, 2}, Case{"dedup_twin_kernels.pl", 2, 1},
        Case{"dedup_shape_distinct.pl", 2, 1}, Case{"dedup_signed_zero.pl", 3, 2},
        // FP16 / BF16 tensors, each op rounded to the dtype: the FP16 twins share one code
        // unit, the BF16 kernel (same ops, another dtype) and the row-sum kernel stay apart
        Case{"half_precision.pl", 4, 3}}) {
    CAPTURE(c.file);
    const Outcome with = check_program(c.file);
    const Outcome without = check_program(c.file, kPipelineWithoutDedup);
    CHECK(without.launched_kernels == c.launched_without_dedup);
    CHECK(with.launched_kernels == c.code_units);
    CHECK(with.code_units == c.code_units);
  }
}

TEST_CASE("cpu pipeline: what the CPU target cannot express yet is a CodegenError naming it") {
  struct Case {
    std::string_view file, error;
  };
  for (const Case& c : {
           // orchestration code cannot compute tensors: tensor.add belongs inside a kernel
           Case{"outline_seed_basic.pl",
                "codegen: main: 8:9: 'y' is computed by the op 'tensor.adds', which belongs "
                "inside a kernel"},
           // its scope's result now comes back through an Out parameter the orchestration
           // allocates; what is left is the tensor.add outside any scope
           Case{"natural_form.pl",
                "codegen: main: 10:9: 'y' is computed by the op 'tensor.add', which belongs "
                "inside a kernel"},
       }) {
    CAPTURE(c.file);
    CHECK(codegen_error(c.file) == c.error);
  }
}

TEST_CASE("cpu pipeline: a kernel that leaves its tensor or divides by zero is a RuntimeError") {
  // The kernel records the fault, touches no memory outside a tensor and the runner raises it
  // naming the kernel, the op and its line:column; the interpreter refuses the same program.
  const std::string head = R"(import pypto.language as pl

@pl.program
class Faults:
    @pl.function
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
)";
  struct Case {
    std::string body, error;
  };
  for (const Case& c : {
           Case{"            t = pl.load(x, [8, 0], [16, 16])\n"
                "            o1 = pl.store(t, [0, 0], o)\n",
                "kernel 'main_incore_0': tile.load at 8:17 accesses 8..24 of dimension 0, "
                "outside its tensor (size 16) (block 0)"},
           Case{"            t = pl.load(x, [0, 0], [16, 16])\n"
                "            o1 = pl.store(t, [0, n * 0 + 4], o)\n",
                "kernel 'main_incore_0': tile.store at 9:18 accesses 4..20 of dimension 1, "
                "outside its tensor (size 16) (block 0)"},
           Case{"            t = pl.load(x, [0, 0], [16, 16])\n"
                "            v = pl.tensor.read(x, [0, n - n + 16])\n"
                "            o1 = pl.store(pl.mul(t, v), [0, 0], o)\n",
                "kernel 'main_incore_0': tensor.read at 9:17 accesses 16..17 of dimension 1, "
                "outside its tensor (size 16) (block 0)"},
           Case{"            z = n - n\n"
                "            q = n // z\n"
                "            t = pl.load(x, [0, 0], [16, 16])\n"
                "            o1 = pl.store(pl.add(t, pl.cast(q, pl.FP32)), [0, 0], o)\n",
                "kernel 'main_incore_0': FloorDiv at 9:17 divides an integer by zero (block 0)"},
           Case{"            a = pl.array.create(4, pl.INT32)\n"
                "            v = pl.array.get_element(a, n - n + 4)\n"
                "            t = pl.load(x, [0, 0], [16, 16])\n"
                "            o1 = pl.store(pl.add(t, pl.cast(v, pl.FP32)), [0, 0], o)\n",
                "kernel 'main_incore_0': array.get_element at 9:17 accesses 4..5 of dimension 0, "
                "outside its tensor (size 4) (block 0)"},
           Case{"            s = n << (n - n + 64)\n"
                "            t = pl.load(x, [0, 0], [16, 16])\n"
                "            o1 = pl.store(pl.add(t, pl.cast(s, pl.FP32)), [0, 0], o)\n",
                "kernel 'main_incore_0': BitShiftLeft at 8:17 shifts by 64, out of range (block "
                "0)"},
       }) {
    CAPTURE(c.body);
    const auto [compiled, interpreted] = run_errors(head + c.body + "        return o1\n");
    CHECK(compiled == "program runner: " + c.error);
    CHECK_FALSE(interpreted.empty());
  }
}

/// The arguments after running `input`'s main on seeded inputs whose first tensor holds `x`:
/// compiled on the CPU target, then interpreted.
std::pair<std::vector<rt::Value>, std::vector<rt::Value>> run_both(const ir::Program& input,
                                                                   const std::vector<float>& x) {
  std::vector<rt::Value> args = rt::seeded_inputs(*input.find("main"), 1);
  args[0].buffer->f32 = x;
  const ir::ProgramRef lowered = lower(input, kPipeline);
  cg::KernelCodeMap codes;
  const cg::OrchestrationResult code = cg::codegen<cg::CpuTarget>(*lowered, {}, &codes);
  const rt::CpuProgram compiled = rt::CpuProgram::compile(cache(), *lowered, code, codes);
  std::vector<rt::Value> interpreted = copies(args);
  (void)compiled.run("main", args);
  (void)rt::run(input, "main", interpreted);
  return {std::move(args), std::move(interpreted)};
}

TEST_CASE("cpu pipeline: tile.cast rounds a float to an integer as its mode says, saturating") {
  // Ties in both directions, a value past INT32's range each way and a NaN, through each of
  // upstream's seven modes (left out: "round", ties away from zero); UINT8 saturates at 0 and
  // 255; FP16 first makes +-3e9 infinite. The interpreter and the compiled kernel both give the
  // table below.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Rounding:
    @pl.function
    def main(self, x: pl.Tensor[[1, 8], pl.FP32], o: pl.Out[pl.Tensor[[8, 8], pl.INT32]], b: pl.Out[pl.Tensor[[1, 8], pl.UINT8]], h: pl.Out[pl.Tensor[[1, 8], pl.INT8]]) -> pl.Tensor[[8, 8], pl.INT32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [1, 8])
            o0 = pl.store(pl.tile.cast(t, target_type=pl.INT32, mode="none"), [0, 0], o)
            o1 = pl.store(pl.tile.cast(t, target_type=pl.INT32, mode="rint"), [1, 0], o0)
            o2 = pl.store(pl.tile.cast(t, target_type=pl.INT32, mode="round"), [2, 0], o1)
            o3 = pl.store(pl.tile.cast(t, target_type=pl.INT32, mode=3), [3, 0], o2)
            o4 = pl.store(pl.tile.cast(t, target_type=pl.INT32, mode="ceil"), [4, 0], o3)
            o5 = pl.store(pl.tile.cast(t, target_type=pl.INT32, mode="trunc"), [5, 0], o4)
            o6 = pl.store(pl.tile.cast(t, target_type=pl.INT32, mode="odd"), [6, 0], o5)
            o7 = pl.store(pl.tile.cast(t, target_type=pl.INT32), [7, 0], o6)
            pl.store(pl.tile.cast(t, target_type=pl.UINT8), [0, 0], b)
            half = pl.tile.cast(t, target_type=pl.FP16)
            pl.store(pl.tile.cast(half, target_type=pl.INT8, mode="floor"), [0, 0], h)
        return o7
)");
  constexpr std::int64_t kMax = 2147483647, kMin = -kMax - 1;
  const std::vector<float> x = {2.5f, -2.5f, 3.5f, -0.5f, 1.75f, 3e9f, -3e9f, std::nanf("")};
  const std::vector<std::vector<std::int64_t>> want = {
      {2, -2, 3, 0, 1, kMax, kMin, 0},   // none
      {2, -2, 4, 0, 2, kMax, kMin, 0},   // rint
      {3, -3, 4, -1, 2, kMax, kMin, 0},  // round
      {2, -3, 3, -1, 1, kMax, kMin, 0},  // floor
      {3, -2, 4, 0, 2, kMax, kMin, 0},   // ceil
      {2, -2, 3, 0, 1, kMax, kMin, 0},   // trunc
      {3, -3, 3, -1, 2, kMax, kMin, 0},  // odd
      {3, -3, 4, -1, 2, kMax, kMin, 0},  // left out: round
  };
  const std::vector<std::int64_t> want_u8 = {3, 0, 4, 0, 2, 255, 0, 0},
                                  want_i8 = {2, -3, 3, -1, 1, 127, -128, 0};
  const auto [compiled, interpreted] = run_both(*input, x);
  for (const auto* got : {&compiled, &interpreted}) {
    for (std::size_t row = 0; row < want.size(); ++row) {
      CAPTURE(row);
      CHECK(std::vector<std::int64_t>((*got)[1].buffer->ints.begin() + row * 8,
                                      (*got)[1].buffer->ints.begin() + row * 8 + 8) == want[row]);
    }
    CHECK((*got)[2].buffer->ints == want_u8);
    CHECK((*got)[3].buffer->ints == want_i8);
  }
}

TEST_CASE("cpu pipeline: a cast's rounding mode outside upstream's seven is a TypeError") {
  CHECK_THROWS_WITH_AS(pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Rounding:
    @pl.function
    def main(self, x: pl.Tensor[[1, 8], pl.FP32], o: pl.Out[pl.Tensor[[1, 8], pl.INT32]]) -> pl.Tensor[[1, 8], pl.INT32]:
        t = pl.load(x, [0, 0], [1, 8])
        return pl.store(pl.tile.cast(t, target_type=pl.INT32, mode=7), [0, 0], o)
)"),
                       doctest::Contains("tile.cast: keyword 'mode' must be in [0, 6], got 7"),
                       pypto::core::Error);
}

TEST_CASE("cpu pipeline: tile.log and tensor.log take the natural logarithm, IEEE at the edges") {
  // log 1 = +0, log +-0 = -inf, log of a negative or NaN = NaN, log +inf = +inf; the others as
  // binary32 std::log gives them, in FP32 and rounded once more in FP16.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Logs:
    @pl.function
    def main(self, x: pl.Tensor[[1, 8], pl.FP32], o: pl.Out[pl.Tensor[[1, 8], pl.FP32]], h: pl.Out[pl.Tensor[[1, 8], pl.FP16]]) -> pl.Tensor[[1, 8], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [1, 8])
            o1 = pl.store(pl.log(t), [0, 0], o)
            pl.store(pl.tile.log(pl.tile.cast(t, target_type=pl.FP16)), [0, 0], h)
        return o1
)");
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {1.0f, 0.0f, -0.0f, -1.0f, inf, std::nanf(""), 2.0f, 0.5f};
  const auto [compiled, interpreted] = run_both(*input, x);
  for (const auto* got : {&compiled, &interpreted}) {
    const std::vector<float>& o = (*got)[1].buffer->f32;
    CHECK(std::bit_cast<std::uint32_t>(o[0]) == 0u);  // +0
    CHECK(o[1] == -inf);
    CHECK(o[2] == -inf);
    CHECK(std::isnan(o[3]));
    CHECK(o[4] == inf);
    CHECK(std::isnan(o[5]));
    CHECK(std::bit_cast<std::uint32_t>(o[6]) == std::bit_cast<std::uint32_t>(std::log(2.0f)));
    CHECK(std::bit_cast<std::uint32_t>(o[7]) == std::bit_cast<std::uint32_t>(std::log(0.5f)));
    const std::vector<float>& h = (*got)[2].buffer->f32;
    CHECK(h[6] == rt::round_to_dtype(pypto::core::DataType::FP16, std::log(2.0f)));
    CHECK(h[1] == -inf);
    CHECK(std::isnan(h[3]));
  }
  for (std::size_t i = 0; i < 3; ++i) CHECK(rt::bit_identical(compiled[i], interpreted[i]));
}

TEST_CASE(
    "cpu pipeline: column reductions run top to bottom, row min and product left to right, in "
    "the interpreter and the CPU target alike") {
  // Column 0 sums to 0 only top to bottom (1e8 + 1 rounds to 1e8); max keeps a leading NaN and
  // skips a later one (a < b ? b : a); -0 stays the max of -0 and +0, and -0 + +0 is +0. Row 2's
  // product is -1e8 * 2 * 2 * -0 = +0; its min is -1e8.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Columns:
    @pl.function
    def main(self, x: pl.Tensor[[3, 4], pl.FP32], s: pl.Out[pl.Tensor[[1, 4], pl.FP32]], m: pl.Out[pl.Tensor[[1, 4], pl.FP32]], n: pl.Out[pl.Tensor[[1, 4], pl.FP32]], p: pl.Out[pl.Tensor[[3, 1], pl.FP32]], r: pl.Out[pl.Tensor[[3, 1], pl.FP32]]) -> pl.Tensor[[1, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [3, 4])
            s1 = pl.store(pl.tile.col_sum(t), [0, 0], s)
            pl.store(pl.tile.col_max(t), [0, 0], m)
            pl.store(pl.tile.col_min(t), [0, 0], n)
            pl.store(pl.tile.row_prod(t, t), [0, 0], p)
            pl.store(pl.tile.row_min(t, t), [0, 0], r)
        return s1
)");
  const float nan = std::nanf("");
  const std::vector<float> x = {1e8f,  nan,  1.0f, -0.0f,  //
                                1.0f,  1.0f, nan,  0.0f,   //
                                -1e8f, 2.0f, 2.0f, -0.0f};
  const auto [compiled, interpreted] = run_both(*input, x);
  for (const auto* got : {&compiled, &interpreted}) {
    const std::vector<float>& sum = (*got)[1].buffer->f32;
    const std::vector<float>& max = (*got)[2].buffer->f32;
    const std::vector<float>& min = (*got)[3].buffer->f32;
    const std::vector<float>& prod = (*got)[4].buffer->f32;
    const std::vector<float>& row_min = (*got)[5].buffer->f32;
    REQUIRE(sum.size() == 4);
    CHECK(std::bit_cast<std::uint32_t>(sum[0]) == 0u);
    CHECK(std::isnan(sum[1]));
    CHECK(std::isnan(sum[2]));
    CHECK(std::bit_cast<std::uint32_t>(sum[3]) == 0u);
    CHECK(max[0] == 1e8f);
    CHECK(std::isnan(max[1]));
    CHECK(max[2] == 2.0f);
    CHECK(std::bit_cast<std::uint32_t>(max[3]) == 0x80000000u);
    CHECK(min[0] == -1e8f);
    CHECK(std::isnan(min[1]));
    CHECK(min[2] == 1.0f);  // NaN < 1 is false: 1 stays, then 2 < 1 is false
    CHECK(std::bit_cast<std::uint32_t>(min[3]) == 0x80000000u);
    CHECK(std::isnan(prod[0]));
    CHECK(std::isnan(prod[1]));
    CHECK(std::bit_cast<std::uint32_t>(prod[2]) == 0u);
    CHECK(std::bit_cast<std::uint32_t>(row_min[0]) == 0x80000000u);  // 1e8, 1, then -0 < 1
    CHECK(std::bit_cast<std::uint32_t>(row_min[1]) == 0u);
    CHECK(row_min[2] == -1e8f);
  }
  for (std::size_t i = 0; i < 6; ++i) CHECK(rt::bit_identical(compiled[i], interpreted[i]));
}

TEST_CASE(
    "cpu pipeline: matmul, matmul_acc (init_cond), transposes and an FP32 result stored into a "
    "BF16 tensor") {
  // a = [[1, 2^-8, 0], [3, 1, 0.5]]: a x a^T = [[1 + 2^-16, 3 + 2^-8], [3 + 2^-8, 10.25]],
  // exact in binary32; BF16 keeps 8 bits, so 1 + 2^-16 and 3 + 2^-8 round to 1 and 3.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Products:
    @pl.function
    def main(self, a: pl.Tensor[[2, 3], pl.FP32], y: pl.Out[pl.Tensor[[2, 2], pl.FP32]], z: pl.Out[pl.Tensor[[2, 2], pl.BF16]], e: pl.Out[pl.Tensor[[2, 2], pl.FP32]], t: pl.Out[pl.Tensor[[3, 2], pl.FP32]], u: pl.Out[pl.Tensor[[2, 2], pl.FP32]]) -> pl.Tensor[[2, 2], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            m = pl.load(a, [0, 0], [2, 3], target_memory=pl.MemorySpace.Mat)
            mt = pl.tile.transpose_view(m)
            c = pl.tile.matmul(m, mt)
            y1 = pl.store(pl.tile.matmul_acc(c, m, mt), [0, 0], y)
            pl.store(c, [0, 0], z)
            pl.store(pl.tile.matmul_acc(c, m, mt, True), [0, 0], e)
            v = pl.load(a, [0, 0], [2, 3])
            pl.store(pl.tile.transpose(v, 0, 1), [0, 0], t)
            p = pl.tensor.matmul(a, a, b_trans=True)
            u1 = pl.tensor.assemble(u, p, [0, 0])
        return y1
)");
  const float q = 1.0f / 256.0f;
  const auto [compiled, interpreted] = run_both(*input, {1.0f, q, 0.0f, 3.0f, 1.0f, 0.5f});
  const std::vector<float> product = {1.0f + q * q, 3.0f + q, 3.0f + q, 10.25f};
  for (const auto* got : {&compiled, &interpreted}) {
    std::vector<float> twice;
    for (float x : product) twice.push_back(2.0f * x);
    CHECK((*got)[1].buffer->f32 == twice);
    CHECK((*got)[2].buffer->f32 == std::vector<float>{1.0f, 3.0f, 3.0f, 10.25f});
    CHECK((*got)[3].buffer->f32 == product);
    CHECK((*got)[4].buffer->f32 == std::vector<float>{1.0f, 3.0f, q, 1.0f, 0.0f, 0.5f});
    CHECK((*got)[5].buffer->f32 == product);
  }
  for (std::size_t i = 0; i < 6; ++i) CHECK(rt::bit_identical(compiled[i], interpreted[i]));
}

TEST_CASE("cpu pipeline: a load with a valid_shape reads that box and zero-fills the rest") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Partial:
    @pl.function
    def main(self, x: pl.Tensor[[3, 5], pl.FP32], o: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [1, 2], [4, 8], [2, 3])
            o1 = pl.store(pl.tile.set_validshape(pl.add(t, t), 4, 8), [0, 0], o)
        return o1
)");
  std::vector<float> x;
  for (int i = 0; i < 15; ++i) x.push_back(static_cast<float>(i));
  const auto [compiled, interpreted] = run_both(*input, x);
  std::vector<float> want(32, 0.0f);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j) want[i * 8 + j] = 2.0f * x[(1 + i) * 5 + 2 + j];
  // (the sum keeps the load's valid box; widened to the whole tile, the store shows the zeros)
  CHECK(compiled[1].buffer->f32 == want);
  CHECK(interpreted[1].buffer->f32 == want);
}

TEST_CASE("cpu pipeline: tile.ci counts along its first row, wrapping to the dtype") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Counts:
    @pl.function
    def main(self, x: pl.Tensor[[1, 4], pl.FP32], y: pl.Out[pl.Tensor[[1, 4], pl.FP32]], d: pl.Out[pl.Tensor[[2, 4], pl.INT16]], w: pl.Out[pl.Tensor[[1, 4], pl.INT16]]) -> pl.Tensor[[1, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y1 = pl.store(pl.load(x, [0, 0], [1, 4]), [0, 0], y)
            pl.store(pl.tile.ci(5, [2, 4], dtype=pl.INT16, descending=True), [0, 0], d)
            pl.store(pl.tile.arange(32766, [1, 4], dtype=pl.INT16), [0, 0], w)
        return y1
)");
  const auto [compiled, interpreted] = run_both(*input, {1.0f, 2.0f, 3.0f, 4.0f});
  for (const auto* got : {&compiled, &interpreted}) {
    CHECK((*got)[2].buffer->ints == std::vector<std::int64_t>{5, 4, 3, 2, 0, 0, 0, 0});
    CHECK((*got)[3].buffer->ints == std::vector<std::int64_t>{32766, 32767, -32768, -32767});
  }
}

TEST_CASE(
    "cpu pipeline: a kernel may return the store it ends with, and an orchestration the task it "
    "launches") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Returns:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[4, 8], pl.FP32], c: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        t = pl.load(a, [0, 0], [4, 8])
        return pl.store(pl.add(t, t), [0, 0], c)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[4, 8], pl.FP32], c: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        return self.k(a, c)
)");
  std::vector<float> a;
  for (int i = 0; i < 32; ++i) a.push_back(0.25f * static_cast<float>(i - 7));
  const auto [compiled, interpreted] = run_both(*input, a);
  std::vector<float> twice;
  for (float x : a) twice.push_back(x + x);
  CHECK(compiled[1].buffer->f32 == twice);
  CHECK(rt::bit_identical(compiled[1], interpreted[1]));
}

TEST_CASE("cpu pipeline: row_expand_<op> and col_expand_<op> broadcast a row or column vector") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Expands:
    @pl.function
    def main(self, x: pl.Tensor[[2, 3], pl.FP32], a: pl.Out[pl.Tensor[[2, 3], pl.FP32]], b: pl.Out[pl.Tensor[[2, 3], pl.FP32]], d: pl.Out[pl.Tensor[[2, 3], pl.FP32]]) -> pl.Tensor[[2, 3], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [2, 3])
            r = pl.tile.row_max(t, t)
            c = pl.tile.col_sum(t)
            a1 = pl.store(pl.tile.row_expand_sub(t, r), [0, 0], a)
            pl.store(pl.tile.col_expand_mul(t, c), [0, 0], b)
            pl.store(pl.tile.col_expand_div(t, c), [0, 0], d)
        return a1
)");
  const auto [compiled, interpreted] = run_both(*input, {1, 2, 3, 4, 5, 6});
  const volatile float five = 5.0f, seven = 7.0f, nine = 9.0f;  // divided at run time, binary32
  const std::vector<float> quotients = {1.0f / five, 2.0f / seven, 3.0f / nine,
                                        4.0f / five, 5.0f / seven, 6.0f / nine};
  for (const auto* got : {&compiled, &interpreted}) {
    CHECK((*got)[1].buffer->f32 == std::vector<float>{-2, -1, 0, -2, -1, 0});
    CHECK((*got)[2].buffer->f32 == std::vector<float>{5, 14, 27, 20, 35, 54});
    CHECK((*got)[3].buffer->f32 == quotients);
  }
  for (std::size_t i = 0; i < 4; ++i) CHECK(rt::bit_identical(compiled[i], interpreted[i]));
}

TEST_CASE(
    "cpu pipeline: tile.slice copies a window (a valid box zero-fills, a store writes it "
    "alone), reshape keeps order") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Windows:
    @pl.function
    def main(self, x: pl.Tensor[[4, 6], pl.FP32], a: pl.Out[pl.Tensor[[2, 3], pl.FP32]], b: pl.Out[pl.Tensor[[2, 4], pl.FP32]], r: pl.Out[pl.Tensor[[3, 2], pl.FP32]]) -> pl.Tensor[[2, 3], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [4, 6])
            s = pl.tile.slice(t, [2, 3], [1, 2])
            a1 = pl.store(s, [0, 0], a)
            pl.store(pl.tile.slice(t, [2, 4], [2, 1], [1, 2]), [0, 0], b)
            pl.store(pl.tile.reshape(s, [3, 2]), [0, 0], r)
        return a1
)");
  std::vector<float> x;
  for (int i = 0; i < 24; ++i) x.push_back(static_cast<float>(i));
  const auto [compiled, interpreted] = run_both(*input, x);
  // the valid box [1, 2] alone is stored; b keeps the rest
  std::vector<float> b = rt::seeded_inputs(*input->find("main"), 1)[2].buffer->f32;
  b[0] = 13;
  b[1] = 14;
  for (const auto* got : {&compiled, &interpreted}) {
    CHECK((*got)[1].buffer->f32 == std::vector<float>{8, 9, 10, 14, 15, 16});
    CHECK((*got)[2].buffer->f32 == b);
    CHECK((*got)[3].buffer->f32 == std::vector<float>{8, 9, 10, 14, 15, 16});
    CHECK((*got)[3].buffer->shape == std::vector<std::int64_t>{3, 2});
  }
  for (std::size_t i = 0; i < 4; ++i) CHECK(rt::bit_identical(compiled[i], interpreted[i]));
}

namespace {

/// The arguments after running `input`'s main on `args`: compiled on the CPU target, then
/// interpreted.
/// `entry` names the Orchestration function kernel_config.py points at when there are several.
/// `world`: the ranks of the world the two runs are (RunOptions::world_size).
std::pair<std::vector<rt::Value>, std::vector<rt::Value>> run_both_on(
    const ir::Program& input, const std::vector<rt::Value>& args, std::string_view entry = {},
    std::int64_t world = 1) {
  const ir::ProgramRef lowered = lower(input, kPipeline);
  cg::KernelCodeMap codes;
  const cg::OrchestrationResult code = cg::codegen<cg::CpuTarget>(*lowered, entry, &codes);
  const rt::CpuProgram compiled = rt::CpuProgram::compile(cache(), *lowered, code, codes);
  std::vector<rt::Value> got = copies(args), want = copies(args);
  (void)compiled.run("main", got, world);
  rt::RunOptions options;
  options.world_size = world;
  (void)rt::run(input, "main", want, options);
  return {std::move(got), std::move(want)};
}

/// The arguments after running `input`'s main on `args` compiled on the CPU target, checked
/// bit-identical to the interpreter's.
std::vector<rt::Value> run_identical(const ir::Program& input, const std::vector<rt::Value>& args,
                                     std::string_view entry = {}, std::int64_t world = 1) {
  auto [compiled, interpreted] = run_both_on(input, args, entry, world);
  for (std::size_t k = 0; k < args.size(); ++k) {
    CAPTURE(k);
    CHECK(rt::bit_identical(compiled[k], interpreted[k]));
  }
  return std::move(compiled);
}

std::uint32_t comparable(float f) { return rt::comparable_bits(f); }

}  // namespace

TEST_CASE("cpu pipeline: relu, recip, fmod, remainder, leaky ReLU and bit ops as interpreted") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Elements:
    @pl.function
    def main(self, x: pl.Tensor[[1, 6], pl.FP32], y: pl.Tensor[[1, 6], pl.FP32], h: pl.Tensor[[1, 6], pl.FP16], i: pl.Tensor[[1, 4], pl.INT16], j: pl.Tensor[[1, 4], pl.INT16], s: pl.Scalar[pl.FP32], f: pl.Out[pl.Tensor[[5, 6], pl.FP32]], g: pl.Out[pl.Tensor[[2, 6], pl.FP16]], n: pl.Out[pl.Tensor[[6, 4], pl.INT16]]) -> pl.Tensor[[5, 6], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a = pl.load(x, [0, 0], [1, 6])
            b = pl.load(y, [0, 0], [1, 6])
            f0 = pl.store(pl.tile.relu(a), [0, 0], f)
            f1 = pl.store(pl.tile.recip(a), [1, 0], f0)
            f2 = pl.store(pl.tile.fmod(a, b), [2, 0], f1)
            f3 = pl.store(pl.tile.rem(a, b), [3, 0], f2)
            f4 = pl.store(pl.tile.lrelu(a, s), [4, 0], f3)
            c = pl.load(h, [0, 0], [1, 6])
            g0 = pl.store(pl.tile.sin(c), [0, 0], g)
            pl.store(pl.tile.fmods(c, s), [1, 0], g0)
            p = pl.load(i, [0, 0], [1, 4])
            q = pl.load(j, [0, 0], [1, 4])
            n0 = pl.store(pl.tile.not_(p), [0, 0], n)
            n1 = pl.store(pl.tile.and_(p, q), [1, 0], n0)
            n2 = pl.store(pl.tile.or_(p, q), [2, 0], n1)
            n3 = pl.store(pl.tile.xor(p, q), [3, 0], n2)
            n4 = pl.store(pl.tile.shl(p, q), [4, 0], n3)
            pl.store(pl.tile.shrs(p, 1), [5, 0], n4)
        return f4
)");
  constexpr float inf = std::numeric_limits<float>::infinity();
  constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  args[0].buffer->f32 = {nan, -0.0f, -1.0f, inf, 5.5f, -5.5f};
  args[1].buffer->f32 = {1.0f, 2.0f, 0.0f, 2.0f, -2.0f, 2.0f};
  args[3].buffer->ints = {0x7fff, -1, 1, -8};
  args[4].buffer->ints = {1, 3, 1, 0};
  args[5] = rt::Value::scalar_float(0.1f);
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  const std::vector<float> want = {nan, 0.0f,  0.0f,  inf,  5.5f,        0.0f,           // relu
                                   nan, -inf,  -1.0f, 0.0f, 1.0f / 5.5f, 1.0f / -5.5f,   // recip
                                   nan, -0.0f, nan,   nan,  1.5f,        -1.5f,          // fmod
                                   nan, -0.0f, nan,   nan,  -0.5f,       0.5f,           // rem
                                   nan, -0.0f, -0.1f, inf,  5.5f,        -5.5f * 0.1f};  // lrelu
  for (std::size_t k = 0; k < want.size(); ++k) {
    CAPTURE(k);
    CHECK(comparable(compiled[6].buffer->f32[k]) == comparable(want[k]));
  }
  CHECK(compiled[8].buffer->ints == std::vector<std::int64_t>{-32768, 0,  -2, 7,   //
                                                              1,      3,  1,  0,   //
                                                              0x7fff, -1, 1,  -8,  //
                                                              0x7ffe, -4, 0,  -8,  //
                                                              -2,     -8, 2,  -8,  //
                                                              0x3fff, -1, 0,  -4});
}

TEST_CASE("cpu pipeline: barriers, flags and a prefetch in a kernel order nothing on one thread") {
  // The CPU target runs a kernel as one in-order thread, as the interpreter runs it: the
  // barrier, fence and cache ops lower to nothing and a prefetch's wait is satisfied; the data
  // moves as without them. A cross-block syncall is not among them: it is the blocks' barrier.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Hints:
    @pl.function
    def main(self, x: pl.Tensor[[1, 8], pl.FP32], o: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            ctx = pl.prefetch.make_context()
            ev = pl.prefetch.async_prefetch(x, ctx)
            session = pl.prefetch.session(ctx)
            ready = pl.prefetch.wait(ev, session)
            a = pl.load(x, [0, 0], [1, 8])
            pl.system.bar_all()
            pl.system.fence()
            b = pl.tile.muls(a, 2.0)
            pl.system.bar_v()
            o1 = pl.store(b, [0, 0], o)
            o2 = pl.tensor.write(o1, [0, 7], pl.cast(ready, pl.FP32))
        return o2
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  args[0].buffer->f32 = {1.0f, -2.0f, 0.5f, 3.0f, -0.0f, 8.0f, 1.5f, 9.0f};
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  CHECK(compiled[1].buffer->f32 ==
        std::vector<float>{2.0f, -4.0f, 1.0f, 6.0f, -0.0f, 16.0f, 3.0f, 1.0f});
}

TEST_CASE("cpu pipeline: rsqrt with a scratch tile (its high-precision form) is 1 / sqrt(x)") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Rsqrt:
    @pl.function
    def main(self, x: pl.Tensor[[1, 4], pl.FP32], o: pl.Out[pl.Tensor[[1, 4], pl.FP32]]) -> pl.Tensor[[1, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a = pl.load(x, [0, 0], [1, 4])
            tmp = pl.tile.create([1, 4], dtype=pl.FP32)
            o1 = pl.store(pl.tile.rsqrt(a, tmp), [0, 0], o)
        return o1
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  args[0].buffer->f32 = {4.0f, 0.25f, 0.0f, -1.0f};
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  const std::vector<float> want = {0.5f, 2.0f, std::numeric_limits<float>::infinity(),
                                   std::numeric_limits<float>::quiet_NaN()};
  for (std::size_t k = 0; k < want.size(); ++k) {
    CAPTURE(k);
    CHECK(comparable(compiled[1].buffer->f32[k]) == comparable(want[k]));
  }
}

TEST_CASE("cpu pipeline: a scalar operand of another dtype is converted to the tile's first") {
  // As upstream narrows it: INT32 2 is 2.0f on an FP32 tile, FP32 2.5 truncates to 2 on an INT16
  // tile (which then wraps), FP32 0.1 rounds to BF16 before a BF16 subtraction, -3 fills an FP32
  // select; an FP32 literal that binary32 cannot hold (0.1) is rounded once.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Scalars:
    @pl.function
    def main(self, x: pl.Tensor[[1, 4], pl.FP32], m: pl.Tensor[[1, 4], pl.UINT8], h: pl.Tensor[[1, 4], pl.BF16], i: pl.Tensor[[1, 4], pl.INT16], s: pl.Scalar[pl.FP32], f: pl.Out[pl.Tensor[[3, 4], pl.FP32]], g: pl.Out[pl.Tensor[[1, 4], pl.BF16]], n: pl.Out[pl.Tensor[[1, 4], pl.INT16]]) -> pl.Tensor[[3, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a = pl.load(x, [0, 0], [1, 4])
            f0 = pl.store(pl.tile.subs(a, pl.const(2, pl.INT32)), [0, 0], f)
            f1 = pl.store(pl.tile.muls(a, 0.1), [1, 0], f0)
            mask = pl.load(m, [0, 0], [1, 4])
            f2 = pl.store(pl.tile.sels(mask, a, a, -3), [2, 0], f1)
            b = pl.load(h, [0, 0], [1, 4])
            pl.store(pl.tile.subs(b, s), [0, 0], g)
            c = pl.load(i, [0, 0], [1, 4])
            pl.store(pl.tile.subs(c, pl.const(2.5, pl.FP32)), [0, 0], n)
        return f2
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  args[0].buffer->f32 = {1.5f, -2.25f, 0.3f, -0.0f};
  args[1].buffer->ints = {1, 0, 7, 0};
  args[2].buffer->f32 = {1.0f, 3.0f, -2.5f, 0.5f};
  args[3].buffer->ints = {7, -7, 100, -32768};
  args[4] = rt::Value::scalar_float(0.1f);
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  const std::vector<float> want = {-0.5f,       -4.25f,        0.3f - 2.0f, -2.0f,   // subs
                                   1.5f * 0.1f, -2.25f * 0.1f, 0.3f * 0.1f, -0.0f,   // muls
                                   1.5f,        -3.0f,         0.3f,        -3.0f};  // sels
  for (std::size_t k = 0; k < want.size(); ++k) {
    CAPTURE(k);
    CHECK(comparable(compiled[5].buffer->f32[k]) == comparable(want[k]));
  }
  // 0.1 is 0.10009765625 in BF16; each difference rounds to BF16's 8 bits
  CHECK(compiled[6].buffer->f32 ==
        std::vector<float>{0.8984375f, 2.90625f, -2.59375f, 0.400390625f});
  CHECK(compiled[7].buffer->ints == std::vector<std::int64_t>{5, -9, 98, 32766});
}

TEST_CASE("cpu pipeline: an array carried through a loop and an if is a value, as interpreted") {
  // `before = acc` keeps the array as it was when a later update gives `acc` a new value; an
  // INT8 element wraps (100 + 100 = -56); a new array is all zeros.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Arrays:
    @pl.function
    def main(self, x: pl.Tensor[[1, 8], pl.INT32], out: pl.Out[pl.Tensor[[1, 8], pl.INT32]]) -> pl.Tensor[[1, 8], pl.INT32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [1, 8])
            acc = pl.array.create(4, pl.INT32)
            for i in pl.range(8):
                v = pl.tile.read(t, [0, i])
                if v > 0:
                    acc[i % 4] = acc[i % 4] + v
                else:
                    acc[3] = v
            before = acc
            acc[0] = 100
            small = pl.array.create(2, pl.INT8)
            small[1] = 100
            small[1] = small[1] + 100
            out = pl.tensor.write(out, [0, 0], acc[0])
            out = pl.tensor.write(out, [0, 1], acc[1])
            out = pl.tensor.write(out, [0, 2], acc[2])
            out = pl.tensor.write(out, [0, 3], acc[3])
            out = pl.tensor.write(out, [0, 4], before[0])
            out = pl.tensor.write(out, [0, 5], pl.cast(small[1], pl.INT32))
            out = pl.tensor.write(out, [0, 6], pl.cast(small[0], pl.INT32))
        return out
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  args[0].buffer->ints = {3, -2, 5, 1, -7, 4, 2, 6};
  args[1].buffer->ints.assign(8, 9);
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  // acc: [3, 4, 5 + 2, -2 + 1 -> -7 + 6] = [3, 4, 7, -1] before acc[0] = 100
  CHECK(compiled[1].buffer->ints == std::vector<std::int64_t>{100, 4, 7, -1, 3, -56, 0, 9});
}

TEST_CASE("cpu pipeline: a compare's packed mask, a select through it, fills and broadcasts") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Masks:
    @pl.function
    def main(self, x: pl.Tensor[[2, 10], pl.FP32], y: pl.Tensor[[2, 10], pl.FP32], s: pl.Scalar[pl.FP32], m: pl.Out[pl.Tensor[[2, 32], pl.UINT8]], o: pl.Out[pl.Tensor[[4, 10], pl.FP32]], e: pl.Out[pl.Tensor[[6, 10], pl.FP32]]) -> pl.Tensor[[2, 32], pl.UINT8]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a = pl.load(x, [0, 0], [2, 10])
            b = pl.load(y, [0, 0], [2, 10])
            gt = pl.tile.cmp(a, b, cmp_type=4)
            m0 = pl.store(gt, [0, 0], m)
            o0 = pl.store(pl.tile.sel(gt, a, b), [0, 0], o)
            pl.store(pl.tile.sels(pl.tile.cmps(a, s, cmp_type=3), a, b, s), [2, 0], o0)
            r = pl.tile.row_max(a, a)
            c = pl.tile.col_sum(a)
            e0 = pl.store(pl.tile.row_expand(a, r), [0, 0], e)
            e1 = pl.store(pl.tile.col_expand(a, c), [2, 0], e0)
            pl.store(pl.tile.expands(a, s), [4, 0], e1)
        return m0
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 3);
  args[0].buffer->f32[9] = std::numeric_limits<float>::quiet_NaN();
  args[1].buffer->f32[0] = args[0].buffer->f32[0];  // equal: not greater
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  const std::vector<float>& x = args[0].buffer->f32;
  const std::vector<float>& y = args[1].buffer->f32;
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t j = 0; j < 10; ++j) {
      const std::size_t k = r * 10 + j;
      const bool bit = (compiled[3].buffer->ints[r * 32 + j / 8] >> (j % 8)) & 1;
      CHECK(bit == (x[k] > y[k]));
      CHECK(comparable(compiled[4].buffer->f32[k]) == comparable(x[k] > y[k] ? x[k] : y[k]));
    }
  CHECK_FALSE((compiled[3].buffer->ints[0] & 1));  // the equal pair
}

TEST_CASE("cpu pipeline: fillpad pads outside the valid shape, matmul_bias and gemv add a bias") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Pads:
    @pl.function
    def main(self, x: pl.Tensor[[2, 3], pl.FP32], w: pl.Tensor[[3, 4], pl.FP32], v: pl.Tensor[[1, 4], pl.FP32], n: pl.Scalar[pl.INDEX], p: pl.Out[pl.Tensor[[6, 4], pl.FP32]], q: pl.Out[pl.Tensor[[2, 4], pl.FP32]], g: pl.Out[pl.Tensor[[16, 4], pl.FP32]]) -> pl.Tensor[[6, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [2, 3], [1, 2])
            p0 = pl.store(pl.tile.fillpad_expand(t, [2, 4], pad_value=pl.PadValue.min), [0, 0], p)
            u = pl.tile.set_validshape(pl.load(x, [0, 0], [2, 3]), 2, n)
            p1 = pl.store(pl.tile.fillpad_expand(u, [2, 4], pad_value=pl.PadValue.max), [2, 0], p0)
            p2 = pl.store(pl.tile.fillpad_expand(u, [2, 4]), [4, 0], p1)
            a = pl.load(x, [0, 0], [2, 3], target_memory=pl.Mem.Left)
            b = pl.load(w, [0, 0], [3, 4], target_memory=pl.Mem.Right)
            bias = pl.load(v, [0, 0], [1, 4])
            pl.store(pl.tile.matmul_bias(a, b, bias), [0, 0], q)
            r = pl.load(x, [0, 0], [1, 3], target_memory=pl.Mem.Left)
            pl.store(pl.tile.gemv_bias(r, b, bias), [0, 0], g)
        return p2
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  args[0].buffer->f32 = {1, 2, 3, 4, 5, 6};
  args[3] = rt::Value::scalar_int(1);
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  constexpr float inf = std::numeric_limits<float>::infinity();
  CHECK(compiled[4].buffer->f32 ==
        std::vector<float>{1, 2,   -inf, -inf, -inf, -inf, -inf, -inf,  //
                           1, inf, inf,  inf,  4,    inf,  inf,  inf,   //
                           1, 0,   0,    0,    4,    0,    0,    0});
  const std::vector<float>& w = args[1].buffer->f32;
  const std::vector<float>& bias = args[2].buffer->f32;
  for (std::size_t j = 0; j < 4; ++j) {
    volatile float p0 = 1.0f * w[j], p1 = 2.0f * w[4 + j], p2 = 3.0f * w[8 + j];
    volatile float sum = p0;
    sum = sum + p1;
    sum = sum + p2;
    sum = sum + bias[j];
    CHECK(compiled[5].buffer->f32[j] == sum);
    CHECK(compiled[6].buffer->f32[j] == sum);  // gemv: row 0
  }
  // gemv's valid row alone is stored: g keeps the other fifteen
  for (std::size_t k = 4; k < 64; ++k) CHECK(compiled[6].buffer->f32[k] == args[6].buffer->f32[k]);
}

TEST_CASE("cpu pipeline: argmax / argmin, tri, extract, assemble, expdif and element access") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Moves:
    @pl.function
    def main(self, x: pl.Tensor[[2, 4], pl.FP32], h: pl.Tensor[[2, 4], pl.FP16], d: pl.Scalar[pl.INDEX], i: pl.Out[pl.Tensor[[4, 4], pl.INT32]], t: pl.Out[pl.Tensor[[4, 4], pl.INT32]], m: pl.Out[pl.Tensor[[2, 4], pl.FP32]], e: pl.Out[pl.Tensor[[2, 4], pl.FP16]]) -> pl.Tensor[[4, 4], pl.INT32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a = pl.load(x, [0, 0], [2, 4])
            i0 = pl.store(pl.tile.row_argmax(a, a), [0, 0], i)
            i1 = pl.store(pl.tile.row_argmin(a, a), [0, 1], i0)
            i2 = pl.store(pl.tile.col_argmax(a, a), [2, 0], i1)
            i3 = pl.store(pl.tile.col_argmin(a, a), [3, 0], i2)
            pl.store(pl.tile.tri(d, [4, 4], upper=True), [0, 0], t)
            w = pl.tile.extract(a, 0, 2, [2, 2])
            b = pl.tile.assemble(a, w, [0, 0])
            v = pl.tile.read(b, [1, 1])
            c = pl.tile.write(b, [0, 3], v)
            pl.store(c, [0, 0], m)
            g = pl.load(h, [0, 0], [2, 4])
            r = pl.tile.row_max(g, g)
            pl.store(pl.tile.row_expand_expdif(g, r), [0, 0], e)
        return i3
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 2);
  args[0].buffer->f32 = {3, 7, 7, -1, 0, -2, 5, -2};
  args[2] = rt::Value::scalar_int(1);
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  const std::vector<std::int64_t>& idx = compiled[3].buffer->ints;
  CHECK(idx[0] == 1);  // row 0's first 7
  CHECK(idx[4] == 2);  // row 1's 5
  CHECK(idx[1] == 3);  // row 0's -1
  CHECK(idx[5] == 1);  // row 1's first -2
  CHECK(std::vector<std::int64_t>(idx.begin() + 8, idx.begin() + 12) ==
        std::vector<std::int64_t>{0, 0, 0, 0});  // column argmax
  CHECK(std::vector<std::int64_t>(idx.begin() + 12, idx.begin() + 16) ==
        std::vector<std::int64_t>{1, 1, 1, 1});  // column argmin
  CHECK(compiled[4].buffer->ints ==
        std::vector<std::int64_t>{0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0});
  // extract [[7, -1], [5, -2]] into the top left, then element [1, 1] (-2) into [0, 3].
  CHECK(compiled[5].buffer->f32 == std::vector<float>{7, -1, 7, -2, 5, -2, 5, -2});
}

TEST_CASE("cpu pipeline: col_sum with a scratch tile sums in the interpreter's tree order") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Tree:
    @pl.function
    def main(self, x: pl.Tensor[[6, 2], pl.FP32], h: pl.Tensor[[5, 2], pl.FP16], o: pl.Out[pl.Tensor[[1, 2], pl.FP32]], p: pl.Out[pl.Tensor[[1, 2], pl.FP16]]) -> pl.Tensor[[1, 2], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a = pl.load(x, [0, 0], [6, 2])
            s = pl.tile.create([6, 2], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
            o1 = pl.store(pl.tile.col_sum(a, s), [0, 0], o)
            g = pl.load(h, [0, 0], [5, 2])
            u = pl.tile.create([5, 2], dtype=pl.FP16, target_memory=pl.MemorySpace.Vec)
            pl.store(pl.tile.col_sum(g, u), [0, 0], p)
        return o1
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 3);
  args[0].buffer->f32 = {1e8f, 1, 1, 1e8f, -1e8f, -1e8f, 1, 1, 1, 1, 1, 1};
  // FP16: 2048 + 1 rounds to 2048 (ties to even), so the order shows there too.
  args[1].buffer->f32 = {1, 2048, 2048, 1, -2048, -2048, 1, 1, 1, 1};
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  // Column 0: ((1e8 + 1) + (-1e8 + 1)) + (1 + 1) = 2; column 1 the same values in another
  // order: ((1 + 1e8) + (-1e8 + 1)) + 2 = 2 (top to bottom: 3). FP16, rows 0..4 of a column:
  // ((1 + 2048) + 1) + (-2048 + 1) = 2048 - 2047 = 1 (top to bottom: 2).
  CHECK(compiled[2].buffer->f32 == std::vector<float>{2, 2});
  CHECK(compiled[3].buffer->f32 == std::vector<float>{1, 1});
}

TEST_CASE("cpu pipeline: batch_matmul broadcasts a batch of one, transposes go batch by batch") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Batches:
    @pl.function
    def main(self, a: pl.Tensor[[2, 2, 3], pl.FP32], b: pl.Tensor[[1, 3, 2], pl.FP32], o: pl.Out[pl.Tensor[[2, 2, 2], pl.FP32]], t: pl.Out[pl.Tensor[[2, 3, 2], pl.FP32]]) -> pl.Tensor[[2, 2, 2], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0, 0], [2, 2, 3], target_memory=pl.MemorySpace.Mat)
            y = pl.load(b, [0, 0, 0], [1, 3, 2], target_memory=pl.MemorySpace.Mat)
            o1 = pl.store(pl.batch_matmul(x, y), [0, 0, 0], o)
            v = pl.load(a, [0, 0, 0], [2, 2, 3])
            pl.store(pl.tile.transpose_view(v), [0, 0, 0], t)
        return o1
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 4);
  args[0].buffer->f32 = {1, 2, 3, 4, 5, 6, 0.5f, -1, 2, 1, 0, -2};
  args[1].buffer->f32 = {1, 0, 0, 1, 1, 1};
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  // Each batch of a times b's one matrix [[1, 0], [0, 1], [1, 1]].
  CHECK(compiled[2].buffer->f32 == std::vector<float>{4, 5, 10, 11, 2.5f, 1, -1, -2});
  CHECK(compiled[3].buffer->f32 == std::vector<float>{1, 4, 2, 5, 3, 6, 0.5f, 1, -1, 0, 2, -2});
}

TEST_CASE("cpu pipeline: an element op keeps its operands' valid box, which a store then moves") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Narrow:
    @pl.function
    def main(self, x: pl.Tensor[[4, 8], pl.FP32], y: pl.Tensor[[4, 8], pl.FP32], o: pl.InOut[pl.Tensor[[4, 8], pl.FP32]], p: pl.InOut[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a = pl.load(x, [0, 0], [4, 8])
            b = pl.load(y, [0, 0], [4, 8])
            n = pl.tile.set_validshape(a, 2, 4)
            m = pl.tile.set_validshape(b, 2, 4)
            t = pl.tile.adds(pl.add(n, m), 1.0)
            o1 = pl.store(t, [0, 0], o)
            pl.store(pl.add(n, b), [0, 0], p)
        return o1
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 5);
  args[0].buffer->f32.assign(32, 1.0f);
  args[1].buffer->f32.assign(32, 2.0f);
  args[2].buffer->f32.assign(32, -7.0f);
  args[3].buffer->f32.assign(32, -7.0f);
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  // Both operands valid in [2, 4]: the sum and the sum plus one keep that box, the store moves
  // it alone. Operands with different boxes (b is whole): the result is whole.
  for (std::size_t k = 0; k < 32; ++k) {
    CAPTURE(k);
    CHECK(compiled[2].buffer->f32[k] == (k / 8 < 2 && k % 8 < 4 ? 4.0f : -7.0f));
    CHECK(compiled[3].buffer->f32[k] == 3.0f);
  }
}

TEST_CASE("cpu pipeline: a kernel's break, continue and pl.unroll carry what it stores") {
  // The codegen pipeline unrolls, structures the exits (ctrl-flow-transform) and carries what
  // the loop stores, as the interpreter runs the loops themselves.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Exits:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 8], pl.FP32], c: pl.Out[pl.Tensor[[32, 8], pl.FP32]]) -> pl.Tensor[[32, 8], pl.FP32]:
        for i in pl.range(4):
            if i == 1:
                continue
            if i >= 3:
                break
            t = pl.load(a, [i * 8, 0], [8, 8])
            for j in pl.unroll(2):
                t = pl.add(t, t)
            out = pl.store(t, [i * 8, 0], c)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 8], pl.FP32], c: pl.Out[pl.Tensor[[32, 8], pl.FP32]]) -> pl.Tensor[[32, 8], pl.FP32]:
        c = self.k(a, c)
        return c
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 6);
  args[0].buffer->f32.assign(256, 1.5f);
  args[1].buffer->f32.assign(256, -1.0f);
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  // Rows of blocks 0 and 2 hold 1.5 * 4; blocks 1 (continued) and 3 (broken) keep -1.
  for (std::size_t k = 0; k < 256; ++k) {
    CAPTURE(k);
    CHECK(compiled[1].buffer->f32[k] == (k / 64 == 0 || k / 64 == 2 ? 6.0f : -1.0f));
  }
}

TEST_CASE("cpu pipeline: sorts, merges and gathers move the interpreter's elements") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Sorts:
    @pl.function
    def main(self, x: pl.Tensor[[1, 256], pl.FP32], i: pl.Tensor[[1, 8], pl.UINT32], s: pl.Out[pl.Tensor[[1, 16], pl.FP32]], k: pl.Out[pl.Tensor[[1, 8], pl.UINT32]], m: pl.Out[pl.Tensor[[2, 256], pl.FP32]], g: pl.Out[pl.Tensor[[2, 4], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a = pl.load(x, [0, 0], [1, 8])
            b = pl.load(i, [0, 0], [1, 8])
            t = pl.tile.sort32(a, b)
            s0 = pl.store(t, [0, 0], s)
            pl.store(pl.tile.gather_mask(t, mask_pattern=2, output_dtype=pl.UINT32), [0, 0], k)
            m0 = pl.store(pl.tile.mrgsort_format1(pl.load(x, [0, 0], [1, 256]), 64), [0, 0], m)
            l0 = pl.load(x, [0, 4], [1, 4])
            l1 = pl.load(x, [0, 0], [1, 4])
            pl.store(pl.tile.mrgsort_format2(l0, l1, pl.tile.create([1, 8], dtype=pl.FP32)), [1, 0], m0)
            j = pl.tile.ci(7, [2, 4], dtype=pl.INT32, descending=True)
            pl.store(pl.tile.gather(a, j, pl.tile.create([2, 4], dtype=pl.INT32)), [0, 0], g)
        return s0
)");
  constexpr float inf = std::numeric_limits<float>::infinity();
  constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  // the first eight values by hand; the rest (seeded) only sorted the same way on both sides
  const std::vector<float> first = {1, nan, -0.0f, 2, 0.0f, 2, -inf, 1};
  std::copy(first.begin(), first.end(), args[0].buffer->f32.begin());
  args[1].buffer->ints = {10, 11, 12, 13, 14, 15, 16, 9};
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  // descending, NaN first, equal values by their index: 2 (13) 2 (15), 1 (9) 1 (10), -0 (12) +0
  // (14)
  CHECK(compiled[3].buffer->ints == std::vector<std::int64_t>{11, 13, 15, 9, 10, 12, 14, 16});
  const std::vector<float> merged = {1, nan, 0.0f, 2, -0.0f, 2, -inf, 1};  // lists: +0 first
  for (std::size_t k = 0; k < merged.size(); ++k) {
    CAPTURE(k);
    CHECK(comparable(compiled[4].buffer->f32[256 + k]) == comparable(merged[k]));
  }
  // row 0 of the tile.ci indices counts 7, 6, 5, 4; the other row is zero
  CHECK(compiled[5].buffer->f32 == std::vector<float>{1, -inf, 2, 0, 1, 1, 1, 1});
}

TEST_CASE("cpu pipeline: scatters, mgather, mscatter and random write the interpreter's bits") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Scatters:
    @pl.function
    def main(self, x: pl.Tensor[[4, 8], pl.FP16], i: pl.Tensor[[2, 8], pl.INT32], y: pl.Tensor[[2, 8], pl.FP16], j: pl.Tensor[[1, 2], pl.INT32], s: pl.Out[pl.Tensor[[4, 8], pl.FP16]], g: pl.Out[pl.Tensor[[2, 8], pl.FP16]], m: pl.Out[pl.Tensor[[4, 8], pl.FP16]], r: pl.Out[pl.Tensor[[2, 8], pl.INT32]]) -> pl.Tensor[[4, 8], pl.FP16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a = pl.load(x, [0, 0], [4, 8])
            b = pl.load(y, [0, 0], [2, 8])
            k = pl.load(j, [0, 0], [1, 2])
            u = pl.tile.scatter_update(a, -2, k, b)
            s0 = pl.store(pl.tile.scatter_mask(u, pl.load(x, [0, 0], [4, 4]), mask_pattern=1), [0, 0], s)
            pl.store(pl.tile.mgather(x, pl.tile.adds(k, 4), gather_oob=2), [0, 0], g)
            pl.tile.mscatter(b, pl.load(i, [0, 0], [2, 8]), m)
            pl.store(pl.tile.random(1, 2, 3, 4, 5, 6, [2, 8], dtype=pl.INT32, rounds=7), [0, 0], r)
        return s0
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1, {0, 16});
  args[3].buffer->ints = {3, 1};  // rows 3 and 1; plus 4, wrapped back to them
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  // the gathered rows are x's rows 3 and 1
  for (std::size_t k = 0; k < 8; ++k) {
    CHECK(compiled[5].buffer->f32[k] == args[0].buffer->f32[24 + k]);
    CHECK(compiled[5].buffer->f32[8 + k] == args[0].buffer->f32[8 + k]);
  }
}

TEST_CASE("cpu pipeline: a Mat mgather fills its valid shape, an element gather stages scratch") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class MatGathers:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, mem: pl.Tensor[[4, 4], pl.FP16], flat: pl.Tensor[[16], pl.FP16], rows: pl.Tensor[[1, 4], pl.INT32], elems: pl.Tensor[[4, 4], pl.INT32], scratch: pl.Tensor[[16], pl.FP16], eye: pl.Tensor[[4, 4], pl.FP16], o1: pl.Out[pl.Tensor[[4, 4], pl.FP32]], o2: pl.Out[pl.Tensor[[4, 4], pl.FP32]]) -> pl.Tensor[[4, 4], pl.FP32]:
        r = pl.tile.mgather(mem, rows, coalesce='row', target_memory=pl.MemorySpace.Mat, valid_shape=[2, 4])
        e = pl.tile.mgather(flat, elems, coalesce='elem', target_memory=pl.MemorySpace.Mat, scratch=scratch, valid_shape=[4, 4])
        i = pl.load(eye, [0, 0], [4, 4], target_memory=pl.MemorySpace.Mat)
        pl.store(pl.matmul(i, e), [0, 0], o2)
        return pl.store(pl.matmul(i, r), [0, 0], o1)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, mem: pl.Tensor[[4, 4], pl.FP16], flat: pl.Tensor[[16], pl.FP16], rows: pl.Tensor[[1, 4], pl.INT32], elems: pl.Tensor[[4, 4], pl.INT32], scratch: pl.Tensor[[16], pl.FP16], eye: pl.Tensor[[4, 4], pl.FP16], o1: pl.Out[pl.Tensor[[4, 4], pl.FP32]], o2: pl.Out[pl.Tensor[[4, 4], pl.FP32]]) -> pl.Tensor[[4, 4], pl.FP32]:
        return self.kernel(mem, flat, rows, elems, scratch, eye, o1, o2)
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  std::vector<float> values(16), eye(16, 0.0f);
  for (std::size_t k = 0; k < 16; ++k) values[k] = static_cast<float>(k);
  for (std::size_t k = 0; k < 4; ++k) eye[5 * k] = 1.0f;
  args[0].buffer->f32 = args[1].buffer->f32 = values;
  args[2].buffer->ints = {3, 0, 2, 1};
  for (std::size_t k = 0; k < 16; ++k) args[3].buffer->ints[k] = static_cast<std::int64_t>(15 - k);
  args[4].buffer->f32.assign(16, -1.0f);
  args[5].buffer->f32 = eye;
  const std::vector<rt::Value> out = run_identical(*input, args);
  // rows 3 and 0 of mem fill the valid [2, 4]; the rows past it stay zero
  CHECK(out[6].buffer->f32 ==
        std::vector<float>{12, 13, 14, 15, 0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0});
  std::vector<float> reversed(values.rbegin(), values.rend());
  CHECK(out[7].buffer->f32 == reversed);
  CHECK(out[4].buffer->f32 == reversed);  // the elements, staged through scratch
}

TEST_CASE("cpu pipeline: gatherb moves 32-byte source blocks by byte offset, in any dtype") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Blocks:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, src: pl.Tensor[[1, 64], pl.FP32], offset: pl.Tensor[[2, 8], pl.UINT32], out: pl.Out[pl.Tensor[[2, 64], pl.FP32]], bits: pl.Out[pl.Tensor[[2, 128], pl.UINT16]]) -> pl.Tensor[[2, 64], pl.FP32]:
        s = pl.load(src, [0, 0], [1, 64])
        o = pl.load(offset, [0, 0], [2, 8])
        pl.store(pl.tile.gatherb(s, o, output_dtype=pl.UINT16), [0, 0], bits)
        return pl.store(pl.tile.gatherb(s, o), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, src: pl.Tensor[[1, 64], pl.FP32], offset: pl.Tensor[[2, 8], pl.UINT32], out: pl.Out[pl.Tensor[[2, 64], pl.FP32]], bits: pl.Out[pl.Tensor[[2, 128], pl.UINT16]]) -> pl.Tensor[[2, 64], pl.FP32]:
        return self.kernel(src, offset, out, bits)
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  for (std::size_t k = 0; k < 64; ++k) args[0].buffer->f32[k] = static_cast<float>(k);
  // Row 0 takes the 8 blocks (8 floats each) in reverse; row 1 starts at byte 4 (float 1), then
  // names byte 232, whose block would pass the source's 256 bytes: it stays zero.
  args[1].buffer->ints = {224, 192, 160, 128, 96, 64, 32, 0, 4, 232, 0, 0, 0, 0, 0, 0};
  const std::vector<rt::Value> out = run_identical(*input, args);
  std::vector<float> want(128, 0.0f);
  for (std::size_t c = 0; c < 8; ++c)
    for (std::size_t i = 0; i < 8; ++i) want[c * 8 + i] = static_cast<float>((7 - c) * 8 + i);
  for (std::size_t i = 0; i < 8; ++i) want[64 + i] = static_cast<float>(1 + i);
  for (std::size_t c = 2; c < 8; ++c)
    for (std::size_t i = 0; i < 8; ++i) want[64 + c * 8 + i] = static_cast<float>(i);
  CHECK(out[2].buffer->f32 == want);
  // The same bytes read as UINT16: each float's low half, then its high half.
  for (std::size_t k = 0; k < 128; ++k) {
    const auto word = std::bit_cast<std::uint32_t>(want[k]);
    CHECK(out[3].buffer->ints[2 * k] == (word & 0xffffu));
    CHECK(out[3].buffer->ints[2 * k + 1] == (word >> 16));
  }
}

TEST_CASE("cpu pipeline: a 2-D tile stores into a tensor of higher rank through its 2-D view") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Fold:
    @pl.function
    def main(self, a: pl.Tensor[[2, 4], pl.FP32], out: pl.InOut[pl.Tensor[[2, 3, 4], pl.FP32]]) -> pl.Tensor[[2, 3, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [2, 4])
            out = pl.store(t, [0, 2, 0], out)
        return out
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  args[0].buffer->f32 = {1, 2, 3, 4, 5, 6, 7, 8};
  args[1].buffer->f32.assign(24, 0.0f);
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  // rows 2 and 3 of the [6, 4] view: out[0][2] and out[1][0]
  std::vector<float> want(24, 0.0f);
  for (std::size_t k = 0; k < 8; ++k) want[8 + k] = static_cast<float>(k + 1);
  CHECK(compiled[1].buffer->f32 == want);
}

namespace {

/// A Group whose AIC member comes first and waits for the AIV member: the AIV pushes 2x to the
/// cube, which multiplies it by w and pushes the product back; the AIV adds 1 and stores.
constexpr std::string_view kPingPong = R"(import pypto.language as pl

@pl.program
class PingPong:
    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, x: pl.Tensor[[4, 4], pl.FP32], w: pl.Tensor[[4, 4], pl.FP32], o: pl.Out[pl.Tensor[[4, 4], pl.FP32]]):
        v: pl.Tile[[4, 4], pl.FP32, pl.Mem.Mat] = pl.tpop_from_aiv(split=0)
        left = pl.move(v, target_memory=pl.MemorySpace.Left)
        w_mat = pl.load(w, [0, 0], [4, 4], target_memory=pl.MemorySpace.Mat)
        right = pl.move(w_mat, target_memory=pl.MemorySpace.Right)
        acc = pl.matmul(left, right)
        pl.tpush_to_aiv(acc, split=0)
        pl.tfree_to_aiv(v)

    @pl.function(type=pl.FunctionType.AIV)
    def vector(self, x: pl.Tensor[[4, 4], pl.FP32], w: pl.Tensor[[4, 4], pl.FP32], o: pl.Out[pl.Tensor[[4, 4], pl.FP32]]) -> pl.Tensor[[4, 4], pl.FP32]:
        t = pl.load(x, [0, 0], [4, 4])
        pl.tpush_to_aic(pl.mul(t, 2.0), split=0)
        back: pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=0)
        pl.tfree_to_aic(back)
        return pl.store(pl.add(back, 1.0), [0, 0], o)

    @pl.function(type=pl.FunctionType.Group)
    def group(self, x: pl.Tensor[[4, 4], pl.FP32], w: pl.Tensor[[4, 4], pl.FP32], o: pl.Out[pl.Tensor[[4, 4], pl.FP32]]) -> pl.Tensor[[4, 4], pl.FP32]:
        self.cube(x, w, o)
        r = self.vector(x, w, o)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 4], pl.FP32], w: pl.Tensor[[4, 4], pl.FP32], o: pl.Out[pl.Tensor[[4, 4], pl.FP32]]) -> pl.Tensor[[4, 4], pl.FP32]:
        r = self.group(x, w, o)
        return r
)";

/// `text` with its first occurrence of `from` replaced by `to`.
std::string replaced(std::string_view text, std::string_view from, std::string_view to) {
  std::string s(text);
  const std::size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("cpu pipeline: a Group's members run side by side, handing tiles through their pipes") {
  // The cube waits for the vector's push before the vector waits for the cube's: the members run
  // interleaved (one at a time, switching where one waits), compiled as interpreted.
  const ir::ProgramRef input = pypto::text::parse_program(kPingPong);
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  std::vector<float> x(16), identity(16, 0.0f);
  for (std::size_t k = 0; k < 16; ++k) x[k] = static_cast<float>(k) - 5.5f;
  for (std::size_t k = 0; k < 4; ++k) identity[k * 5] = 1.0f;
  args[0].buffer->f32 = x;
  args[1].buffer->f32 = identity;
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  std::vector<float> want;
  for (float v : x) want.push_back(2.0f * v + 1.0f);
  CHECK(compiled[2].buffer->f32 == want);
}

TEST_CASE("cpu pipeline: members that all wait on empty pipes are a deadlock error") {
  // The vector pops before it pushes: both members wait, and no tile will come.
  const std::string text =
      replaced(kPingPong, "        pl.tpush_to_aic(pl.mul(t, 2.0), split=0)\n", "");
  const auto [compiled, interpreted] = run_errors(replaced(
      text, "        pl.tfree_to_aic(back)\n",
      "        pl.tfree_to_aic(back)\n        pl.tpush_to_aic(pl.mul(t, 2.0), split=0)\n"));
  for (const std::string& e : {compiled, interpreted}) {
    CAPTURE(e);
    CHECK(e.find("mixed task: every member that has not ended waits, and nothing it waits for "
                 "will come") != std::string::npos);
    CHECK(e.find("cube waits in tile.tpop_from_aiv (pipe 0 toward AIC)") != std::string::npos);
    CHECK(e.find("vector waits in tile.tpop_from_aic (pipe 0 toward AIV)") != std::string::npos);
  }
}

TEST_CASE("cpu pipeline: a pipe op outside a mixed task and a pop of another shape are errors") {
  // The vector member called alone from the orchestration: no cube is at the other end.
  const auto alone = run_errors(replaced(kPingPong, "        r = self.group(x, w, o)\n",
                                         "        r = self.vector(x, w, o)\n"));
  CHECK(alone.first.find("tile.tpush_to_aic runs outside a mixed task") != std::string::npos);
  CHECK(alone.second.find("'tile.tpush_to_aic' runs outside a mixed task") != std::string::npos);
  // The cube pops a [4, 4] tile where the vector pushed a [2, 4] one.
  const std::string half = replaced(kPingPong, "        t = pl.load(x, [0, 0], [4, 4])\n",
                                    "        t = pl.load(x, [0, 0], [2, 4])\n");
  const auto shapes = run_errors(half);
  CHECK(shapes.first.find("tile.tpop_from_aiv pops a tile of another dtype or shape") !=
        std::string::npos);
  CHECK(shapes.second.find("pops a FP32 [4, 4] tile where a FP32 [2, 4] one was pushed") !=
        std::string::npos);
}

TEST_CASE("cpu pipeline: a split-AIV region runs its lanes in turn, sharding and gathering") {
  // qk = x (a is the identity); each lane takes its half of the rows (aiv_shard), stores 3x at
  // its rows and hands 2x back to the cube (aic_gather), which multiplies by the identity.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Lanes:
    @pl.function
    def main(self, a: pl.Tensor[[4, 4], pl.FP32], x: pl.Tensor[[4, 4], pl.FP32], o: pl.Out[pl.Tensor[[4, 4], pl.FP32]], p: pl.Out[pl.Tensor[[4, 4], pl.FP32]]) -> tuple[pl.Tensor[[4, 4], pl.FP32], pl.Tensor[[4, 4], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint='qk'):
            left = pl.move(pl.load(a, [0, 0], [4, 4], target_memory=pl.MemorySpace.Mat), target_memory=pl.MemorySpace.Left)
            right = pl.move(pl.load(x, [0, 0], [4, 4], target_memory=pl.MemorySpace.Mat), target_memory=pl.MemorySpace.Right)
            qk = pl.matmul(left, right)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                half = pl.aiv_shard(qk)
                o = pl.store(pl.mul(half, 3.0), [aiv_id * 2, 0], o)
                full = pl.aic_gather(pl.mul(half, 2.0))
            back = pl.matmul(pl.move(full, target_memory=pl.MemorySpace.Left), pl.move(pl.load(a, [0, 0], [4, 4], target_memory=pl.MemorySpace.Mat), target_memory=pl.MemorySpace.Right))
            p = pl.store(back, [0, 0], p)
        return (o, p)
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  std::vector<float> x(16), identity(16, 0.0f);
  for (std::size_t k = 0; k < 16; ++k) x[k] = static_cast<float>(k) * 0.5f - 3.0f;
  for (std::size_t k = 0; k < 4; ++k) identity[k * 5] = 1.0f;
  args[0].buffer->f32 = identity;
  args[1].buffer->f32 = x;
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  std::vector<float> thrice, twice;
  for (float v : x) {
    thrice.push_back(3.0f * v);
    twice.push_back(2.0f * v);
  }
  CHECK(compiled[2].buffer->f32 == thrice);
  CHECK(compiled[3].buffer->f32 == twice);
}

TEST_CASE("cpu pipeline: a member's error stops the mixed task and names the member's op") {
  // The vector reads past its tensor before it pushes: the cube, waiting on the pipe, is
  // stopped, and the error is the vector's (no hang, no deadlock report).
  const auto [compiled, interpreted] =
      run_errors(replaced(kPingPong, "        t = pl.load(x, [0, 0], [4, 4])\n",
                          "        t = pl.load(x, [2, 0], [4, 4])\n"));
  CHECK(compiled.find("kernel 'vector': tile.load") != std::string::npos);
  CHECK(compiled.find("outside its tensor") != std::string::npos);
  CHECK(interpreted.find("tile.load") != std::string::npos);
  CHECK(interpreted.find("mixed task") == std::string::npos);
}

TEST_CASE("cpu pipeline: tile.reinterpret_view reads a tile's bytes as another dtype") {
  // FP32 1.0 is 0x3F800000, -0.0 is 0x80000000: as INT32 1065353216 and INT32's least; as INT16
  // pairs, little-endian, 0 then 0x3F80 and 0 then -0x8000.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Bits:
    @pl.function
    def main(self, x: pl.Tensor[[1, 2], pl.FP32], i: pl.Out[pl.Tensor[[1, 2], pl.INT32]], h: pl.Out[pl.Tensor[[1, 4], pl.INT16]]) -> pl.Tensor[[1, 2], pl.INT32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [1, 2])
            i1 = pl.store(pl.tile.reinterpret_view(t, pl.INT32), [0, 0], i)
            pl.store(pl.tile.reinterpret_view(t, pl.INT16), [0, 0], h)
        return i1
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  args[0].buffer->f32 = {1.0f, -0.0f};
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  CHECK(compiled[1].buffer->ints == std::vector<std::int64_t>{1065353216, -2147483648LL});
  CHECK(compiled[2].buffer->ints == std::vector<std::int64_t>{0, 0x3F80, 0, -0x8000});
}

/// tests/programs' handshake through windows, in a world of one rank (NR = 1).
const std::string& handshake() {
  static const std::string text = read_program("world_handshake.pl");
  return text;
}
const rt::SymbolExtents kOneRank = {{"NR", 1}};

TEST_CASE("cpu pipeline: a distributed program runs in a world of one rank") {
  // Rank 0 stores x into its peer's window, (0 + 1) % 1 = itself, notifies it (0 + 3), waits
  // for 3 and reads its window back: outs[0] = 2 x. outs[r] is a view, so the chip's store
  // reaches outs.
  const ir::ProgramRef input = pypto::text::parse_program(handshake());
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1, {}, kOneRank);
  const std::vector<float> x = {1.5f, -2.0f, 0.25f, 3.0f, -0.0f, 7.0f, -1.0f, 0.5f};
  args[0].buffer->f32 = x;
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  std::vector<float> want;
  for (float v : x) want.push_back(v + v);
  CHECK(compiled[1].buffer->f32 == want);
}

TEST_CASE("cpu pipeline: an unmet signal wait and a second rank are errors in a world of one") {
  const auto wait = run_errors(replaced(handshake(), "expected=3", "expected=4"), kOneRank);
  check_both_say(wait,
                 {"no other rank runs in a world of one rank, so it never would (a deadlock)"});
  // A float signal parses, as upstream's parser takes it; running refuses it in both.
  const std::string int_sig = "sig: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]]",
                    float_sig = "sig: pl.InOut[pld.DistributedTensor[[1, 1], pl.FP32]]";
  const auto float_signal =
      run_errors(replaced(replaced(replaced(handshake(), int_sig, float_sig), int_sig, float_sig),
                          "sig = pld.window(sbuf, [1, 1], dtype=pl.INT32)",
                          "sig = pld.window(sbuf, [1, 1], dtype=pl.FP32)"),
                 kOneRank);
  check_both_say(float_signal, {"needs an integer signal (INT32)"});
  // A chip orchestration that talks to the other ranks cannot run as device 1 of a world of one.
  const auto device = run_errors(replaced(handshake(), "device=r", "device=r + 1"), kOneRank);
  CHECK(device.second.find("call of 'chip' on device 1, which reaches 'pld.") != std::string::npos);
  CHECK(device.second.find("needs the other ranks running beside it") != std::string::npos);
  const auto peer = run_errors(replaced(handshake(), "pld.tile.remote_store(t, data, peer,",
                                        "pld.tile.remote_store(t, data, peer + 1,"),
                               kOneRank);
  check_both_say(peer, {"names rank 1", "outside the world of one rank"});
}

TEST_CASE("cpu pipeline: a reduction of a tile with a valid box combines its valid elements") {
  // Loaded with valid_shape [4, 3] of [4, 8] (the rest zero): every row and column reduction
  // reads only the valid box. All-negative elements: a max that took in the zero padding would
  // be 0, and a product would be 0.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Partial:
    @pl.function
    def main(self, x: pl.Tensor[[4, 8], pl.FP32], rs: pl.Out[pl.Tensor[[4, 1], pl.FP32]], rm: pl.Out[pl.Tensor[[4, 1], pl.FP32]], rp: pl.Out[pl.Tensor[[4, 1], pl.FP32]], rn: pl.Out[pl.Tensor[[4, 1], pl.FP32]], cm: pl.Out[pl.Tensor[[1, 8], pl.FP32]], cp: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[4, 1], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [4, 8], valid_shape=[4, 3])
            rs1 = pl.store(pl.tile.row_sum(t, t), [0, 0], rs)
            pl.store(pl.tile.row_max(t, t), [0, 0], rm)
            pl.store(pl.tile.row_prod(t, t), [0, 0], rp)
            pl.store(pl.tile.row_min(t, t), [0, 0], rn)
            u = pl.load(x, [0, 0], [4, 8], valid_shape=[2, 8])
            pl.store(pl.tile.col_max(u), [0, 0], cm)
            pl.store(pl.tile.col_prod(u), [0, 0], cp)
        return rs1
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  for (std::size_t k = 0; k < 32; ++k)  // -0.5, -1, ..., -2 (exact products)
    args[0].buffer->f32[k] = -0.5f * static_cast<float>(1 + k % 4);
  const std::vector<float>& x = args[0].buffer->f32;
  const std::vector<rt::Value> out = run_identical(*input, args);
  for (std::size_t r = 0; r < 4; ++r) {
    const float a = x[r * 8], b = x[r * 8 + 1], c = x[r * 8 + 2];
    CHECK(out[1].buffer->f32[r] == (a + b) + c);
    CHECK(out[2].buffer->f32[r] == std::max({a, b, c}));
    CHECK(out[3].buffer->f32[r] == (a * b) * c);
    CHECK(out[4].buffer->f32[r] == std::min({a, b, c}));
  }
  for (std::size_t j = 0; j < 8; ++j) {
    CHECK(out[5].buffer->f32[j] == std::max(x[j], x[8 + j]));
    CHECK(out[6].buffer->f32[j] == x[j] * x[8 + j]);
  }
}

TEST_CASE("cpu pipeline: chip orchestrations on two devices that share only host tensors run") {
  // Nothing of the world is used below the host: device 1's call runs after device 0's, on the
  // same host tensors, as two devices that exchange nothing give.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class TwoDevices:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], f: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.add(pl.load(a, [0, 0], [16, 16]), pl.load(b, [0, 0], [16, 16]))
        return pl.store(t, [0, 0], f)

    @pl.function(type=pl.FunctionType.InCore)
    def sub(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], g: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.sub(pl.load(a, [0, 0], [16, 16]), pl.load(b, [0, 0], [16, 16]))
        return pl.store(t, [0, 0], g)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_add(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], f: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        return self.add(a, b, f)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_sub(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], g: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        return self.sub(a, b, g)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], f: pl.Out[pl.Tensor[[16, 16], pl.FP32]], g: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        out_f = self.chip_add(a, b, f, device=0)
        out_g = self.chip_sub(a, b, g, device=1)
        return (out_f, out_g)
)");
  const std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  for (const std::int64_t world : {1, 2}) {  // in a world of two, each device is its own rank
    CAPTURE(world);
    const std::vector<rt::Value> compiled = run_identical(*input, args, "chip_add", world);
    REQUIRE(compiled.size() == 4);
    for (std::size_t k = 0; k < 256; ++k) {
      const float a = args[0].buffer->f32[k], b = args[1].buffer->f32[k];
      CHECK(compiled[2].buffer->f32[k] == a + b);
      CHECK(compiled[3].buffer->f32[k] == a - b);
    }
  }
}

TEST_CASE("interpret: a window or buffer no host can hold is an error naming the op") {
  // A negative extent, and extents whose product wraps a 64-bit size to a small one.
  const auto negative = run_errors(
      replaced(handshake(), "pld.window(buf, [1, 8]", "pld.window(buf, [4 - 6, 8]"), kOneRank);
  CHECK(negative.second.find("op 'pld.tensor.window' cannot make a buffer of shape [-2, 8] (a "
                             "negative extent)") != std::string::npos);
  const auto wrapping = run_errors(
      replaced(handshake(), "pld.window(buf, [1, 8]", "pld.window(buf, [4611686018427387904, 8]"),
      kOneRank);
  CHECK(wrapping.second.find("cannot make a buffer of shape [4611686018427387904, 8] (over 2^30 "
                             "elements") != std::string::npos);
  const auto huge = run_errors(
      replaced(handshake(), "alloc_window_buffer(32)", "alloc_window_buffer(99999999999)"),
      kOneRank);
  CHECK(huge.second.find("op 'pld.tensor.alloc_window_buffer' cannot make a buffer of shape "
                         "[99999999999]") != std::string::npos);
  const auto below = run_errors(
      replaced(handshake(), "alloc_window_buffer(32)", "alloc_window_buffer(0 - 5)"), kOneRank);
  CHECK(below.second.find("alloc_window_buffer' size -5 is negative") != std::string::npos);
}

TEST_CASE("seeded inputs: a named shape symbol takes the given extent, arithmetic of dims too") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

NR = pl.dynamic('NR')

@pl.program
class Dims:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[NR, NR * 4 + 2], pl.FP32], b: pl.Tensor[[NR // 2, 3], pl.INT32]) -> pl.Tensor[[NR, NR * 4 + 2], pl.FP32]:
        return a
)");
  const auto fixed = rt::seeded_inputs(*input->find("main"), 1, {}, {{"NR", 6}});
  CHECK(fixed[0].buffer->shape == std::vector<std::int64_t>{6, 26});
  CHECK(fixed[1].buffer->shape == std::vector<std::int64_t>{3, 3});
  const auto seeded = rt::seeded_inputs(*input->find("main"), 1);  // 16, 32, 48 or 64
  const std::int64_t nr = seeded[0].buffer->shape[0];
  CHECK(nr % 16 == 0);
  CHECK(seeded[0].buffer->shape[1] == nr * 4 + 2);
}

TEST_CASE(
    "seeded inputs: signed integer elements take the range asked for, an empty one is refused") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Ints:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, i: pl.Tensor[[64], pl.INT32], u: pl.Tensor[[64], pl.UINT8]) -> pl.Tensor[[64], pl.INT32]:
        return i
)");
  const ir::Function& main = *input->find("main");
  const auto small = rt::seeded_inputs(main, 1, {0, 3});
  std::set<std::int64_t> seen(small[0].buffer->ints.begin(), small[0].buffer->ints.end());
  CHECK(seen == std::set<std::int64_t>{0, 1, 2});
  const auto shifted = rt::seeded_inputs(main, 1, {-100, -97});
  for (std::size_t k = 0; k < 64; ++k)  // the same draws, moved; unsigned elements unaffected
    CHECK(shifted[0].buffer->ints[k] == small[0].buffer->ints[k] - 100);
  CHECK(shifted[1].buffer->ints == small[1].buffer->ints);
  const auto usual = rt::seeded_inputs(main, 1);  // [-8, 8)
  CHECK(*std::min_element(usual[0].buffer->ints.begin(), usual[0].buffer->ints.end()) < 0);
  CHECK_THROWS_WITH_AS(rt::seeded_inputs(main, 1, {5, 5}),
                       "seeded inputs: the integer range [5, 5) is empty", rt::RuntimeError);
  CHECK(rt::seeded_inputs(main, 1, {-(std::int64_t{1} << 31), std::int64_t{1} << 31}).size() == 2);
  CHECK_THROWS_WITH_AS(rt::seeded_inputs(main, 1, {0, (std::int64_t{1} << 31) + 1}),
                       "seeded inputs: the integer range [0, 2147483649) does not fit parameter "
                       "'i' of main (INT32)",
                       rt::RuntimeError);
  // The widest range of an INT64 tensor: no overflow on the way.
  const ir::ProgramRef wide = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Wide:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, w: pl.Tensor[[64], pl.INT64]) -> pl.Tensor[[64], pl.INT64]:
        return w
)");
  const auto all = rt::seeded_inputs(
      *wide->find("main"), 1,
      {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()});
  CHECK(std::set<std::int64_t>(all[0].buffer->ints.begin(), all[0].buffer->ints.end()).size() > 60);
}

TEST_CASE("cpu pipeline: a chip scope inside a host orchestrator runs in place") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class HostChips:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, a: pl.Tensor[[4, 8], pl.FP32], b: pl.Tensor[[4, 8], pl.FP32], s: pl.Out[pl.Tensor[[4, 8], pl.FP32]], d: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        with pl.at(level=pl.Level.CHIP, role=pl.Role.Orchestrator):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.add(a, b)
                s1 = pl.assemble(s, t, [0, 0])
        with pl.at(level=pl.Level.CHIP, role=pl.Role.Orchestrator):
            with pl.at(level=pl.Level.CORE_GROUP):
                u = pl.sub(a, b)
                pl.assemble(d, u, [0, 0])
        return s1
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  for (std::size_t k = 0; k < 32; ++k) {
    CHECK(compiled[2].buffer->f32[k] == args[0].buffer->f32[k] + args[1].buffer->f32[k]);
    CHECK(compiled[3].buffer->f32[k] == args[0].buffer->f32[k] - args[1].buffer->f32[k]);
  }
}

TEST_CASE("cpu pipeline: tiles of two dtypes are both promoted before an element op") {
  // Upstream's rule: a float over an integer, the wider over the narrower. FP32 + BF16 adds
  // in FP32 (1 + 2^-8 is exact there, a tie BF16 would round to 1); INT32 * FP32 multiplies
  // the integer's float (16777217 is 2^24 there); INT8 - INT32 subtracts in INT32 (no wrap).
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Promote:
    @pl.function
    def main(self, a: pl.Tensor[[1, 4], pl.FP32], b: pl.Tensor[[1, 4], pl.BF16], i: pl.Tensor[[1, 4], pl.INT32], j: pl.Tensor[[1, 4], pl.INT8], f: pl.Out[pl.Tensor[[2, 4], pl.FP32]], n: pl.Out[pl.Tensor[[1, 4], pl.INT32]]) -> pl.Tensor[[2, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0], [1, 4])
            y = pl.load(b, [0, 0], [1, 4])
            p = pl.load(i, [0, 0], [1, 4])
            q = pl.load(j, [0, 0], [1, 4])
            f0 = pl.store(pl.add(x, y), [0, 0], f)
            f1 = pl.store(pl.mul(p, x), [1, 0], f0)
            pl.store(pl.sub(q, p), [0, 0], n)
        return f1
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  args[0].buffer->f32 = {1.0f, 0.1f, 1e30f, -0.0f};
  args[1].buffer->f32 = {0.00390625f, 1.0f, -1.0f, 0.0f};
  args[2].buffer->ints = {3, -2, 16777217, 0};
  args[3].buffer->ints = {-128, 127, 1, 0};
  const std::vector<rt::Value> out = run_identical(*input, args);
  const std::vector<float> f = out[4].buffer->f32;
  CHECK(f[0] == 1.00390625f);
  CHECK(f[1] == 0.1f + 1.0f);
  CHECK(f[2] == 1e30f);
  CHECK(comparable(f[3]) == comparable(0.0f));  // -0 + +0 is +0
  CHECK(f[4] == 3.0f);
  CHECK(f[5] == -2.0f * 0.1f);
  CHECK(f[6] == 16777216.0f * 1e30f);
  CHECK(comparable(f[7]) == comparable(-0.0f));  // 0 * -0
  CHECK(out[5].buffer->ints == std::vector<std::int64_t>{-131, 129, -16777216, 0});
}

TEST_CASE(
    "cpu pipeline: FP8 and FP4 elements round as the MX formats, matmul_mx scales by groups") {
  // FP8E4M3FN has 3 mantissa bits: 1 + 1/16 ties to 1, 1.125 + 1/16 ties to 1.25, 448 + 32
  // passes its greatest value and is its NaN. matmul_mx scales each element by its group of 32
  // along K: out[m, n] = 32 b(n) sum_g sa(m, g) sb(g, n) with every a = 1; the scale tensors
  // hold the device's block order (upstream's MX_A_ZZ / MX_B_NN), built here by walking the
  // blocks in storage order. b is FP4, cast to FP8 first.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Mx:
    @pl.function
    def main(self, a: pl.Tensor[[16, 128], pl.FP8E4M3FN], sa: pl.Tensor[[16, 4], pl.FP8E8M0, pl.MX_A_ZZ], b: pl.Tensor[[128, 32], pl.FP4], sb: pl.Tensor[[4, 32], pl.FP8E8M0, pl.MX_B_NN], e: pl.Tensor[[1, 4], pl.FP8E4M3FN], f: pl.Tensor[[1, 4], pl.FP8E4M3FN], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]], sums: pl.Out[pl.Tensor[[1, 4], pl.FP8E4M3FN]]) -> pl.Tensor[[16, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            lhs = pl.move(pl.load(a, [0, 0], [16, 128], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            ls = pl.move(pl.load(sa, [0, 0], [16, 4], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)
            rhs8 = pl.cast(pl.load(b, [0, 0], [128, 32]), pl.FP8E4M3FN)
            rhs = pl.move(pl.move(rhs8, target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            rs = pl.move(pl.load(sb, [0, 0], [4, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.RightScale)
            o = pl.store(pl.matmul_mx(lhs, ls, rhs, rs), [0, 0], out)
            pl.store(pl.add(pl.load(e, [0, 0], [1, 4]), pl.load(f, [0, 0], [1, 4])), [0, 0], sums)
        return o
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  auto sa = [](std::size_t m, std::size_t g) {
    return std::ldexp(1.0f, static_cast<int>(g + m % 3) - 1);
  };
  auto sb = [](std::size_t g, std::size_t n) {
    return std::ldexp(1.0f, static_cast<int>(n % 4) - static_cast<int>(g));
  };
  auto bv = [](std::size_t n) { return n == 1 ? -0.5f : n == 2 ? 6.0f : 1.0f; };
  std::fill(args[0].buffer->f32.begin(), args[0].buffer->f32.end(), 1.0f);
  std::vector<float>& sa_store = args[1].buffer->f32;
  std::size_t at = 0;  // MX_A_ZZ: blocks of 16 rows x 2 groups, row-major over the blocks
  for (std::size_t mb = 0; mb < 1; ++mb)
    for (std::size_t gb = 0; gb < 2; ++gb)
      for (std::size_t mi = 0; mi < 16; ++mi)
        for (std::size_t gi = 0; gi < 2; ++gi) sa_store[at++] = sa(mb * 16 + mi, gb * 2 + gi);
  for (std::size_t k = 0; k < 128; ++k)
    for (std::size_t n = 0; n < 32; ++n) args[2].buffer->f32[k * 32 + n] = bv(n);
  std::vector<float>& sb_store = args[3].buffer->f32;
  at = 0;  // MX_B_NN: blocks of 16 columns x 2 groups, each column's two groups together
  for (std::size_t nb = 0; nb < 2; ++nb)
    for (std::size_t gb = 0; gb < 2; ++gb)
      for (std::size_t ni = 0; ni < 16; ++ni)
        for (std::size_t gi = 0; gi < 2; ++gi) sb_store[at++] = sb(gb * 2 + gi, nb * 16 + ni);
  args[4].buffer->f32 = {1.0f, 448.0f, 1.125f, -0.0f};
  args[5].buffer->f32 = {0.0625f, 32.0f, 0.0625f, 0.0f};
  const std::vector<rt::Value> got = run_identical(*input, args);
  for (std::size_t m = 0; m < 16; ++m)
    for (std::size_t n = 0; n < 32; ++n) {
      float want = 0.0f;
      for (std::size_t g = 0; g < 4; ++g) want += 32.0f * sa(m, g) * sb(g, n);
      CHECK(got[6].buffer->f32[m * 32 + n] == want * bv(n));
    }
  const std::vector<float>& sums = got[7].buffer->f32;
  CHECK(sums[0] == 1.0f);
  CHECK(std::isnan(sums[1]));
  CHECK(sums[2] == 1.25f);
  CHECK(comparable(sums[3]) == comparable(0.0f));
}

TEST_CASE("cpu pipeline: three-operand adds round each step, concat appends columns") {
  // FP16 spacing is 2 from 2048: 2048 + 1 ties to 2048 twice; 2048 + 3 rounds to 2052, + 3 to
  // 2056 (one rounding of 2054 would keep it). Below 2048 the spacing is 1.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Steps:
    @pl.function
    def main(self, a: pl.Tensor[[1, 2], pl.FP16], b: pl.Tensor[[1, 2], pl.FP16], o: pl.Out[pl.Tensor[[3, 2], pl.FP16]], j: pl.Out[pl.Tensor[[1, 4], pl.FP16]]) -> pl.Tensor[[3, 2], pl.FP16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0], [1, 2])
            y = pl.load(b, [0, 0], [1, 2])
            o0 = pl.store(pl.tile.addc(x, y, y), [0, 0], o)
            o1 = pl.store(pl.tile.subc(x, y, y), [1, 0], o0)
            o2 = pl.store(pl.tile.addsc(x, 1.0, y), [2, 0], o1)
            pl.store(pl.tile.concat(x, y), [0, 0], j)
        return o2
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  args[0].buffer->f32 = {2048.0f, 2048.0f};
  args[1].buffer->f32 = {1.0f, 3.0f};
  const std::vector<rt::Value> got = run_identical(*input, args);
  CHECK(got[2].buffer->f32 == std::vector<float>{2048, 2056, 2046, 2042, 2048, 2052});
  CHECK(got[3].buffer->f32 == std::vector<float>{2048, 2048, 1, 3});
}

TEST_CASE("cpu pipeline: compiled kernels in a world of several ranks reach their peers") {
  // The handshake: rank r stores its x into rank r + 1's window, notifies it and waits for its
  // own signal, so outs[r] = 2 xs[r - 1]: the compiled kernels ask the runtime's world for the
  // peer's window and signal, and wait while the other ranks run.
  const ir::ProgramRef input = pypto::text::parse_program(handshake());
  for (const std::int64_t n : {2, 3}) {
    CAPTURE(n);
    std::vector<rt::Value> args =
        rt::seeded_inputs(*input->find("main"), 1, {}, rt::SymbolExtents{{"NR", n}});
    for (std::size_t k = 0; k < args[0].buffer->f32.size(); ++k)
      args[0].buffer->f32[k] = static_cast<float>(k) * 0.5f - 3.0f;
    const std::vector<rt::Value> compiled = run_identical(*input, args, {}, n);
    for (std::int64_t r = 0; r < n; ++r)
      for (std::size_t k = 0; k < 8; ++k) {
        const float from = args[0].buffer->f32[static_cast<std::size_t>((r + n - 1) % n) * 8 + k];
        CHECK(compiled[1].buffer->f32[static_cast<std::size_t>(r) * 8 + k] == from + from);
      }
  }
  // A signal no rank sets is the same deadlock compiled as interpreted.
  check_both_say(run_errors(replaced(handshake(), "expected=3", "expected=4"), {{"NR", 2}}, 2),
                 {"world: every member that has not ended waits",
                  "waits for the signal [0, 0] to be >= 4, and it holds 3"});
}

namespace {

/// The handshake's ranks with a chip orchestration in which each rank's consumer depends on a
/// deferred wait that only a later task of its peer satisfies: rank r's `use` (and `again`,
/// which depends on it) must wait while its `send` runs first. outs[r] = 2 xs[r - 1] + xs[r].
std::string deferred_ring() {
  std::string text = handshake();
  const std::size_t from = text.find("    @pl.function(type=pl.FunctionType.InCore)");
  const std::size_t to = text.find("    @pl.function(level=pl.Level.HOST");
  REQUIRE(from < to);
  return text.replace(from, to - from, R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]], data: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]], sig: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        with pl.manual_scope():
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="arrival") as arrived:
                pld.system.defer_wait(sig, offsets=[0, 0], expected=5, cmp=pld.WaitCmp.Ge)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="use", deps=[arrived]) as used:
                got = pl.load(data, [0, 0], [1, 8])
                out = pl.store(pl.add(got, got), [0, 0], out)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="again", deps=[used]):
                row = pl.load(out, [0, 0], [1, 8])
                out = pl.store(pl.add(row, pl.load(x, [0, 0], [1, 8])), [0, 0], out)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="send"):
                ctx = pld.get_comm_ctx(data)
                peer = (pld.rank(ctx) + 1) % pld.nranks(ctx)
                pld.tile.remote_store(pl.load(x, [0, 0], [1, 8]), data, peer, [0, 0])
                pld.system.notify(sig, peer=peer, offsets=[0, 0], value=5, op=pld.NotifyOp.Set)
        return out

)");
}

}  // namespace

TEST_CASE("cpu pipeline: a deferred wait's dependents run after the later tasks that satisfy it") {
  const ir::ProgramRef input = pypto::text::parse_program(deferred_ring());
  // In a world of one the rank is its own peer: only the order of its tasks lets it finish.
  for (const std::int64_t n : {1, 2, 3}) {
    CAPTURE(n);
    std::vector<rt::Value> args =
        rt::seeded_inputs(*input->find("main"), 1, {}, rt::SymbolExtents{{"NR", n}});
    const std::vector<float>& xs = args[0].buffer->f32;
    const std::vector<rt::Value> compiled = run_identical(*input, args, {}, n);
    for (std::int64_t r = 0; r < n; ++r)
      for (std::size_t k = 0; k < 8; ++k) {
        const auto at = [k](std::int64_t rank) { return static_cast<std::size_t>(rank) * 8 + k; };
        const float from = xs[at((r + n - 1) % n)];
        CAPTURE(r);
        CHECK(compiled[1].buffer->f32[at(r)] == from + from + xs[at(r)]);
      }
  }
  // A condition no task satisfies leaves its dependents waiting: a deadlock, compiled and
  // interpreted, once nothing else can run.
  check_both_say(run_errors(replaced(deferred_ring(), "expected=5", "expected=6"), {{"NR", 2}}, 2),
                 {"world: every member that has not ended waits",
                  "a deferred completion waits for the signal to be >= 6, and it holds 5"});
}

TEST_CASE("cpu pipeline: deps name arrays of task ids, an unset entry naming no task") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Phases:
    @pl.function(type=pl.FunctionType.InCore)
    def bump(self, data: pl.Tensor[[4, 8], pl.FP32], row: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        t = pl.load(data, [row, 0], [1, 8])
        return pl.store(pl.add(t, 1.0), [row, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, data: pl.Tensor[[4, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        with pl.manual_scope():
            tids = pl.array.create(3, pl.TASK_ID)
            for b in pl.range(2):
                out, tid = pl.submit(self.bump, data, b, out, deps=[tids])
                tids[b] = tid
            with pl.at(level=pl.Level.CORE_GROUP, deps=[tids]):
                t = pl.load(out, [0, 0], [2, 8])
                out = pl.store(pl.mul(t, 2.0), [2, 0], out)
        return out
)");
  const std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  const std::vector<float>& data = args[0].buffer->f32;
  const std::vector<rt::Value> got = run_identical(*input, args);
  for (std::size_t k = 0; k < 16; ++k) {
    CAPTURE(k);
    CHECK(got[1].buffer->f32[k] == data[k] + 1.0f);
    CHECK(got[1].buffer->f32[16 + k] == (data[k] + 1.0f) * 2.0f);
  }
}

TEST_CASE("cpu pipeline: a kernel's collectives in a world of three, compiled as interpreted") {
  // Each rank r gives its x (3 x 4) and one row: all_to_all hands row d of rank s's stage to
  // rank d's row s; allgather puts rank s's row at row s; reduce_scatter leaves row r the sum
  // of every rank's row r (in rank order); broadcast gives everyone root 1's data.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class Collectives:
    @pl.function(type=pl.FunctionType.InCore)
    def step(self, x: pl.Tensor[[3, 4], pl.FP32], row: pl.Tensor[[1, 4], pl.FP32], out: pl.Out[pl.Tensor[[4, 3, 4], pl.FP32]], stage: pl.InOut[pld.DistributedTensor[[3, 4], pl.FP32]], data: pl.InOut[pld.DistributedTensor[[3, 4], pl.FP32]], sig: pl.InOut[pld.DistributedTensor[[3, 1], pl.INT32]]) -> pl.Tensor[[4, 3, 4], pl.FP32]:
        staged = pl.store(pl.load(x, [0, 0], [3, 4]), [0, 0], stage)
        exchanged = pld.tensor.all_to_all(staged, data, sig)
        o1 = pl.store(pl.load(exchanged, [0, 0], [3, 4]), [0, 0, 0], out)
        gathered = pld.tensor.allgather(row, data, sig)
        o2 = pl.store(pl.load(gathered, [0, 0], [3, 4]), [1, 0, 0], o1)
        restaged = pl.store(pl.load(x, [0, 0], [3, 4]), [0, 0], data)
        scattered = pld.tensor.reduce_scatter(restaged, sig, op=pld.ReduceOp.Sum)
        o3 = pl.store(pl.load(scattered, [0, 0], [3, 4]), [2, 0, 0], o2)
        cast = pld.tensor.broadcast(scattered, sig, root=1)
        return pl.store(pl.load(cast, [0, 0], [3, 4]), [3, 0, 0], o3)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[3, 4], pl.FP32], row: pl.Tensor[[1, 4], pl.FP32], out: pl.Out[pl.Tensor[[4, 3, 4], pl.FP32]], stage: pl.InOut[pld.DistributedTensor[[3, 4], pl.FP32]], data: pl.InOut[pld.DistributedTensor[[3, 4], pl.FP32]], sig: pl.InOut[pld.DistributedTensor[[3, 1], pl.INT32]]) -> pl.Tensor[[4, 3, 4], pl.FP32]:
        return self.step(x, row, out, stage, data, sig)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, xs: pl.Tensor[[3, 3, 4], pl.FP32], rows: pl.Tensor[[3, 1, 4], pl.FP32], outs: pl.Out[pl.Tensor[[3, 4, 3, 4], pl.FP32]]) -> pl.Tensor[[3, 4, 3, 4], pl.FP32]:
        sbuf = pld.alloc_window_buffer(48)
        dbuf = pld.alloc_window_buffer(48)
        gbuf = pld.alloc_window_buffer(12)
        for r in pl.range(3):
            stage = pld.window(sbuf, [3, 4], dtype=pl.FP32)
            data = pld.window(dbuf, [3, 4], dtype=pl.FP32)
            sig = pld.window(gbuf, [3, 1], dtype=pl.INT32)
            self.chip(xs[r], rows[r], outs[r], stage, data, sig, device=r)
        return outs
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  const std::vector<float>& xs = args[0].buffer->f32;  // xs[s][i][j] at s * 12 + i * 4 + j
  const std::vector<float>& rows = args[1].buffer->f32;
  const std::vector<rt::Value> compiled = run_identical(*input, args, {}, 3);
  const std::vector<float>& outs = compiled[2].buffer->f32;  // outs[r][b][i][j]
  auto x = [&](std::size_t s, std::size_t i, std::size_t j) { return xs[s * 12 + i * 4 + j]; };
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 4; ++j) {
        CAPTURE(r);
        CAPTURE(i);
        auto out = [&](std::size_t rank, std::size_t b) {
          return outs[rank * 48 + b * 12 + i * 4 + j];
        };
        CHECK(out(r, 0) == x(i, r, j));       // all_to_all: rank i's row r
        CHECK(out(r, 1) == rows[i * 4 + j]);  // allgather: rank i's row
        const float sum = (x(0, i, j) + x(1, i, j)) + x(2, i, j);
        CHECK(out(r, 2) == (i == r ? sum : x(r, i, j)));  // reduce_scatter: row r reduced
        CHECK(out(r, 3) == (i == 1 ? sum : x(1, i, j)));  // broadcast: rank 1's
      }
}

TEST_CASE("cpu pipeline: all_to_all_v in a world of two moves blocks and clamped counts") {
  // MAX_RECV = 4 rows / 2 ranks: rank r receives rows [2r, 2r + 2) of rank p's input as its
  // block p, and min(p's send count for r, 2) as recv_counts[p]. A whole-tensor get reads the
  // peer's window (rank r reads rank 1 - r's block).
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class Vary:
    @pl.function(type=pl.FunctionType.InCore)
    def step(self, x: pl.Tensor[[4, 2], pl.FP32], n: pl.Tensor[[2, 1], pl.INT32], out: pl.Out[pl.Tensor[[4, 2], pl.FP32]], got: pl.Out[pl.Tensor[[2, 1], pl.INT32]], peer_out: pl.Out[pl.Tensor[[4, 2], pl.FP32]], d: pl.InOut[pld.DistributedTensor[[4, 2], pl.FP32]], s: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]], rn: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]]) -> pl.Tensor[[4, 2], pl.FP32]:
        moved = pld.tensor.all_to_all_v(x, d, s, n, rn)
        o = pl.store(pl.load(moved, [0, 0], [4, 2]), [0, 0], out)
        pl.store(pl.load(rn, [0, 0], [2, 1]), [0, 0], got)
        ctx = pld.get_comm_ctx(d)
        pld.tensor.get(peer_out, peer=1 - pld.rank(ctx), src=moved)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[4, 2], pl.FP32], n: pl.Tensor[[2, 1], pl.INT32], out: pl.Out[pl.Tensor[[4, 2], pl.FP32]], got: pl.Out[pl.Tensor[[2, 1], pl.INT32]], peer_out: pl.Out[pl.Tensor[[4, 2], pl.FP32]], d: pl.InOut[pld.DistributedTensor[[4, 2], pl.FP32]], s: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]], rn: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]]) -> pl.Tensor[[4, 2], pl.FP32]:
        return self.step(x, n, out, got, peer_out, d, s, rn)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, xs: pl.Tensor[[2, 4, 2], pl.FP32], ns: pl.Tensor[[2, 2, 1], pl.INT32], outs: pl.Out[pl.Tensor[[2, 4, 2], pl.FP32]], gots: pl.Out[pl.Tensor[[2, 2, 1], pl.INT32]], peers: pl.Out[pl.Tensor[[2, 4, 2], pl.FP32]]) -> pl.Tensor[[2, 4, 2], pl.FP32]:
        dbuf = pld.alloc_window_buffer(32)
        sbuf = pld.alloc_window_buffer(8)
        rbuf = pld.alloc_window_buffer(8)
        for r in pl.range(2):
            d = pld.window(dbuf, [4, 2], dtype=pl.FP32)
            s = pld.window(sbuf, [2, 1], dtype=pl.INT32)
            rn = pld.window(rbuf, [2, 1], dtype=pl.INT32)
            self.chip(xs[r], ns[r], outs[r], gots[r], peers[r], d, s, rn, device=r)
        return outs
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  args[1].buffer->ints = {1, 9, 2, 0};  // rank 0 sends 1 row to 0, 9 to 1; rank 1 sends 2, 0
  const std::vector<float>& xs = args[0].buffer->f32;
  const std::vector<rt::Value> compiled = run_identical(*input, args, {}, 2);
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t p = 0; p < 2; ++p)
      for (std::size_t k = 0; k < 4; ++k) {  // block p: 2 rows of 2
        CHECK(compiled[2].buffer->f32[r * 8 + p * 4 + k] == xs[p * 8 + r * 4 + k]);
        CHECK(compiled[4].buffer->f32[(1 - r) * 8 + p * 4 + k] == xs[p * 8 + r * 4 + k]);
      }
  CHECK(compiled[3].buffer->ints == std::vector<std::int64_t>{1, 2, 2, 0});
}

TEST_CASE("cpu pipeline: a broadcast's root other than 0 is an error in a world of one") {
  const auto [compiled, interpreted] = run_errors(R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class Cast:
    @pl.function
    def main(self, d: pld.DistributedTensor[[1, 4], pl.FP32], s: pld.DistributedTensor[[1, 1], pl.INT32]) -> pld.DistributedTensor[[1, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            d2 = pld.tensor.broadcast(d, s, root=1)
        return d2
)");
  CHECK(compiled.find("names rank 1, outside the world of one rank") != std::string::npos);
  CHECK(interpreted.find("names root 1 of 1 ranks") != std::string::npos);
}

TEST_CASE("cpu pipeline: all_to_all_v in a world of one rank receives its own clamped count") {
  // MAX_RECV is the target's 4 rows over 1 rank: the whole block moves, and rank 0 receives
  // min(send_counts[0], 4).
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class Vary:
    @pl.function
    def main(self, x: pl.Tensor[[4, 2], pl.FP32], d: pld.DistributedTensor[[4, 2], pl.FP32], s: pld.DistributedTensor[[1, 1], pl.INT32], n: pl.Tensor[[1], pl.INT32], rn: pld.DistributedTensor[[1, 1], pl.INT32]) -> pld.DistributedTensor[[4, 2], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            d2 = pld.tensor.all_to_all_v(x, d, s, n, rn)
        return d2
)");
  for (const std::int64_t sent : {7, 2}) {
    CAPTURE(sent);
    std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
    args[0].buffer->f32 = {0.5f, 1.0f, 1.5f, 2.0f, -0.0f, 3.0f, 4.0f, -5.0f};
    args[3].buffer->ints = {sent};
    const std::vector<rt::Value> compiled = run_identical(*input, args);
    CHECK(compiled[1].buffer->f32 == args[0].buffer->f32);
    CHECK(compiled[4].buffer->ints == std::vector<std::int64_t>{std::min<std::int64_t>(sent, 4)});
  }
}

namespace {

/// Four blocks rotate x's rows: each stores its row into the workspace, waits at the syncall
/// until every block has, then copies the next block's row out. Run one block after another,
/// a block would read a row no block has written yet.
constexpr std::string_view kRotate = R"(import pypto.language as pl

@pl.program
class Rotate:
    @pl.function(type=pl.FunctionType.InCore)
    def rotate(self, x: pl.Tensor[[4, 8], pl.FP32], ws: pl.InOut[pl.Tensor[[4, 8], pl.FP32]], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        b = pl.tile.get_block_idx()
        ws = pl.store(pl.load(x, [b, 0], [1, 8]), [b, 0], ws)
        pl.system.syncall(mode='soft', core_type='aiv_only', gm_workspace=ws, used_cores=4)
        nxt = (b + 1) % 4
        return pl.store(pl.load(ws, [nxt, 0], [1, 8]), [b, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 8], pl.FP32], ws: pl.InOut[pl.Tensor[[4, 8], pl.FP32]], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        with pl.spmd(4):
            out = self.rotate(x, ws, out)
        return out
)";

/// kRotate's x (row r holds 10 r + column) and the out it must give: row b is x's row b + 1.
std::vector<rt::Value> rotate_inputs(const ir::Program& input, std::vector<float>& want) {
  std::vector<rt::Value> args = rt::seeded_inputs(*input.find("main"), 1);
  want.assign(32, 0.0f);
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t c = 0; c < 8; ++c) {
      args[0].buffer->f32[r * 8 + c] = static_cast<float>(10 * r + c);
      want[((r + 3) % 4) * 8 + c] = static_cast<float>(10 * r + c);
    }
  args[1].buffer->f32.assign(32, 0.0f);
  return args;
}

}  // namespace

TEST_CASE("cpu pipeline: a syncall is the barrier of a launch's blocks, compiled and interpreted") {
  const ir::ProgramRef input = pypto::text::parse_program(kRotate);
  std::vector<float> want;
  const std::vector<rt::Value> args = rotate_inputs(*input, want);
  CHECK(run_identical(*input, args)[2].buffer->f32 == want);
  // The same blocks written inline in the scope: each runs in its own copy of the scope's names.
  const ir::ProgramRef inline_scope = pypto::text::parse_program(replaced(
      replaced(kRotate, "            out = self.rotate(x, ws, out)\n",
               "            b = pl.tile.get_block_idx()\n"
               "            ws = pl.store(pl.load(x, [b, 0], [1, 8]), [b, 0], ws)\n"
               "            pl.system.syncall(mode='soft', core_type='aiv_only', "
               "gm_workspace=ws, used_cores=4)\n"
               "            out = pl.store(pl.load(ws, [(b + 1) % 4, 0], [1, 8]), [b, 0], out)\n"),
      "class Rotate:", "class RotateInline:"));
  CHECK(run_identical(*inline_scope, args)[2].buffer->f32 == want);
}

TEST_CASE("cpu pipeline: get_block_num is the launch's block count, compiled and interpreted") {
  // Each block finds its neighbour modulo the block count instead of the literal 4.
  const ir::ProgramRef input = pypto::text::parse_program(
      replaced(kRotate, "nxt = (b + 1) % 4", "nxt = (b + 1) % pl.tile.get_block_num()"));
  std::vector<float> want;
  const std::vector<rt::Value> args = rotate_inputs(*input, want);
  CHECK(run_identical(*input, args)[2].buffer->f32 == want);
}

TEST_CASE("cpu pipeline: a block that ends without reaching the syncall is a deadlock error") {
  const std::string text = replaced(kRotate, "        pl.system.syncall(",
                                    "        if b == 0:\n            pl.system.syncall(");
  const auto [compiled, interpreted] = run_errors(text);
  for (const std::string& e : {compiled, interpreted}) {
    CAPTURE(e);
    CHECK(e.find("block 0 waits in system.syncall; the barrier waits for every member, and "
                 "block 1, block 2, block 3 ended without reaching it") != std::string::npos);
  }
}

TEST_CASE("cpu pipeline: a syncall in a member of a Group's mixed task is refused by name") {
  const auto [compiled, interpreted] =
      run_errors(replaced(kPingPong, "        t = pl.load(x, [0, 0], [4, 4])\n",
                          "        t = pl.load(x, [0, 0], [4, 4])\n        pl.system.syncall()\n"));
  CHECK(compiled.find("kernel 'vector': system.syncall in a member of a Group's mixed task") !=
        std::string::npos);
  CHECK(interpreted.find("op 'system.syncall' in a member of a Group's mixed task") !=
        std::string::npos);
}

namespace {

/// Each row's columns (plus 100) whose element differs from k, the first four of them, and how
/// many there are.
constexpr std::string_view kMatches = R"(import pypto.language as pl

@pl.program
class Matches:
    @pl.function
    def main(self, x: pl.Tensor[[2, 8], pl.FP32], k: pl.Scalar[pl.FP32], hits: pl.Out[pl.Tensor[[2, 4], pl.INT32]], counts: pl.Out[pl.Tensor[[1, 2], pl.UINT32]]) -> pl.Tensor[[2, 4], pl.INT32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            d, c = pl.tensor.gather(x, kvalue=k, cmp_mode='ne', out_cols=4, offset=100, count_dtype=pl.UINT32)
            hits = pl.assemble(hits, d, [0, 0])
            counts = pl.assemble(counts, c, [0, 0])
        return hits
)";

}  // namespace

TEST_CASE("cpu pipeline: gather_compare packs each row's matching columns and counts them all") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    std::string mode;
    std::vector<std::int64_t> hits, counts;
  };
  for (const Case& want : std::vector<Case>{
           // a NaN differs from everything, -0 does not differ from 0; row 1 has 7 matches
           {"ne", {102, 103, 0, 0, 100, 101, 102, 103}, {2, 7}},
           // -0 equals 0, a NaN equals nothing
           {"eq", {100, 101, 104, 105, 106, 0, 0, 0}, {6, 1}},
           {"gt", {103, 0, 0, 0, 100, 101, 102, 103}, {1, 7}},
           {"le", {100, 101, 104, 105, 106, 0, 0, 0}, {6, 1}}}) {
    CAPTURE(want.mode);
    const ir::ProgramRef input = pypto::text::parse_program(
        replaced(kMatches, "cmp_mode='ne'", "cmp_mode='" + want.mode + "'"));
    std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
    args[0].buffer->f32 = {0.0f, -0.0f, nan,  1.0f, 0.0f, 0.0f, 0.0f, 0.0f,
                           5.0f, 5.0f,  5.0f, 5.0f, 5.0f, 5.0f, 0.0f, 5.0f};
    args[1].f = 0.0f;
    const std::vector<rt::Value> out = run_identical(*input, args);
    CHECK(out[2].buffer->ints == want.hits);
    CHECK(out[3].buffer->ints == want.counts);
  }
}

namespace {

/// main's inputs: src [16, 4] holding 10 * row + column, n = 3.
std::vector<rt::Value> row_inputs(const ir::Program& input) {
  std::vector<rt::Value> args = rt::seeded_inputs(*input.find("main"), 1);
  for (std::size_t k = 0; k < 64; ++k)
    args[0].buffer->f32[k] = static_cast<float>(10 * (k / 4) + k % 4);
  args[1].buffer->ints = {3};
  return args;
}

}  // namespace

TEST_CASE("cpu pipeline: gather_row writes a tensor window's valid rows into an L1 tile") {
  // Rows 8.. of src fill the accumulator; then a run-time count of src's first rows overwrites
  // rows 2.. of it (a window of 4 rows, 3 of them valid): row 5 keeps src's row 13.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Rows:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, src: pl.Tensor[[16, 4], pl.FP32], n: pl.Tensor[[1], pl.INT32], eye: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 4], pl.FP32]]) -> pl.Tensor[[8, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            rows = pl.cast(pl.read(n, [0]), pl.INDEX)
            kv = pl.create_l1([8, 4], pl.FP32)
            kv = pl.gather_row(kv, src, [0, 0], [8, 0], [8, 4])
            kv = pl.gather_row(kv, src, [2, 0], [0, 0], [4, 4], valid_shape=[rows, 4])
            out = pl.assemble(out, pl.matmul(eye, kv, out_dtype=pl.FP32), [0, 0])
        return out
)");
  std::vector<rt::Value> args = row_inputs(*input);
  args[2].buffer->f32.assign(64, 0.0f);
  for (std::size_t k = 0; k < 8; ++k) args[2].buffer->f32[k * 9] = 1.0f;
  const std::vector<rt::Value> out = run_identical(*input, args);
  std::vector<float> want;
  for (std::size_t r = 0; r < 8; ++r)
    for (std::size_t c = 0; c < 4; ++c)
      want.push_back(static_cast<float>(10 * (r >= 2 && r < 5 ? r - 2 : r + 8) + c));
  CHECK(out[3].buffer->f32 == want);
}

TEST_CASE("cpu pipeline: gather_row into a global-memory tensor writes only its valid rows") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class RowsIntoTensor:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, src: pl.Tensor[[16, 4], pl.FP32], n: pl.Tensor[[1], pl.INT32], out: pl.InOut[pl.Tensor[[8, 4], pl.FP32]]) -> pl.Tensor[[8, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            rows = pl.cast(pl.read(n, [0]), pl.INDEX)
            out = pl.tensor.gather_row(out, src, [2, 0], [0, 0], [4, 4], valid_shape=[rows, 4])
        return out
)");
  std::vector<rt::Value> args = row_inputs(*input);
  args[2].buffer->f32.assign(32, -1.0f);
  const std::vector<rt::Value> out = run_identical(*input, args);
  std::vector<float> want(32, -1.0f);
  for (std::size_t r = 2; r < 5; ++r)
    for (std::size_t c = 0; c < 4; ++c) want[r * 4 + c] = static_cast<float>(10 * (r - 2) + c);
  CHECK(out[2].buffer->f32 == want);
}

TEST_CASE("cpu pipeline: paged_gather reads each logical row through its block table") {
  // Blocks of 4 rows; logical row l lives in physical block table[l / 4], at row l % 4. The
  // gather fills rows 0..2 of a [4, 2] tile (columns 1..2 of each source row); row 3 stays zero.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Paged:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, src: pl.Tensor[[12, 4], pl.FP32], idx: pl.Tensor[[3], pl.INT32], bt: pl.Tensor[[1, 3], pl.INT32], out: pl.Out[pl.Tensor[[4, 2], pl.FP32]]) -> pl.Tensor[[4, 2], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            rows = pl.paged_gather(src, idx, bt, block_size=4, size=2, col_off=1, max_indices=4, space=pl.MemorySpace.Vec)
            out = pl.assemble(out, rows, [0, 0])
        return out
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  for (std::size_t k = 0; k < 48; ++k)
    args[0].buffer->f32[k] = static_cast<float>(10 * (k / 4) + k % 4);
  args[1].buffer->ints = {0, 5, 11};  // blocks 0, 1, 2 at rows 0, 1, 3
  args[2].buffer->ints = {2, 0, 1};   // physical blocks: rows 8.., 0.., 4..
  const std::vector<rt::Value> out = run_identical(*input, args);
  // l = 0: row 8; l = 5: block 0 row 1 -> row 1; l = 11: block 1 row 3 -> row 7
  CHECK(out[3].buffer->f32 == std::vector<float>{81, 82, 11, 12, 71, 72, 0, 0});
}

TEST_CASE("cpu pipeline: expand_clone repeats the input's extent of 1 along each dimension") {
  // The input [A, B, C] with one extent 1; the target [2, 3, 4] gets it repeated there, in place.
  for (const char* shape : {"[1, 3, 4]", "[2, 1, 4]", "[2, 3, 1]", "[2, 3, 4]"}) {
    CAPTURE(shape);
    const std::string text = std::string(R"(import pypto.language as pl

@pl.program
class Clone:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[SHAPE, pl.FP32], y: pl.Out[pl.Tensor[[2, 3, 4], pl.FP32]]) -> pl.Tensor[[2, 3, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.expand_clone(x, y)
        return y
)");
    pypto::text::ParseOptions options;
    options.host_values = {{"SHAPE", shape}};
    const ir::ProgramRef input = pypto::text::parse_program(text, options);
    std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
    const std::vector<std::int64_t>& in = args[0].buffer->shape;
    for (std::size_t k = 0; k < args[0].buffer->f32.size(); ++k)
      args[0].buffer->f32[k] = static_cast<float>(k);
    const std::vector<rt::Value> out = run_identical(*input, args);
    for (std::int64_t i = 0; i < 2; ++i)
      for (std::int64_t j = 0; j < 3; ++j)
        for (std::int64_t l = 0; l < 4; ++l) {
          const std::int64_t from =
              ((in[0] == 1 ? 0 : i) * in[1] + (in[1] == 1 ? 0 : j)) * in[2] + (in[2] == 1 ? 0 : l);
          CHECK(out[1].buffer->f32[static_cast<std::size_t>((i * 3 + j) * 4 + l)] ==
                static_cast<float>(from));
        }
  }
}

TEST_CASE("cpu pipeline: row_expand_add's workspace tile changes nothing of the sum") {
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class RowAdd:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[2, 4], pl.FP32], v: pl.Tensor[[2, 1], pl.FP32], o: pl.Out[pl.Tensor[[2, 4], pl.FP32]]) -> pl.Tensor[[2, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a = pl.load(x, [0, 0], [2, 4])
            b = pl.load(v, [0, 0], [2, 1])
            tmp = pl.tile.create([2, 4], dtype=pl.FP32)
            o = pl.store(pl.tile.row_expand_add(a, b, tmp=tmp), [0, 0], o)
        return o
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  args[0].buffer->f32 = {1, 2, 3, 4, 5, 6, 7, 8};
  args[1].buffer->f32 = {10, -0.5f};
  const std::vector<rt::Value> out = run_identical(*input, args);
  CHECK(out[2].buffer->f32 == std::vector<float>{11, 12, 13, 14, 4.5f, 5.5f, 6.5f, 7.5f});
}

TEST_CASE("cpu pipeline: a packed select mask may be carried by any integer dtype") {
  // Bit j of a row is bit j % B of its element j / B (B the carrier's bits): the row's
  // little-endian bytes, whatever the carrier. 0xAA... sets the odd columns; row 1 sets column 0
  // and column 15 (the top bit of the last byte) only.
  struct Case {
    const char* dtype;
    std::int64_t cols;
    std::vector<std::int64_t> bits;
  };
  for (const Case& k :
       {Case{"pl.INT8", 4, {-86, -86, 0, 0, 1, -128, 0, 0}},
        Case{"pl.UINT8", 4, {0xAA, 0xAA, 0, 0, 1, 0x80, 0, 0}},
        Case{"pl.INT16", 2, {-21846, 0, -32767, 0}}, Case{"pl.UINT32", 1, {0xAAAA, 0x8001}}}) {
    CAPTURE(k.dtype);
    const std::string text = R"(import pypto.language as pl

@pl.program
class Sels:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[2, 16], pl.FP32], m: pl.Tensor[[2, COLS], DTYPE], o: pl.Out[pl.Tensor[[2, 16], pl.FP32]]) -> pl.Tensor[[2, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a = pl.load(x, [0, 0], [2, 16])
            mask = pl.load(m, [0, 0], [2, COLS])
            tmp = pl.tile.create([1, 8], dtype=pl.FP32)
            o = pl.store(pl.tile.sels(mask, a, tmp, -3.0), [0, 0], o)
        return o
)";
    pypto::text::ParseOptions options;
    options.host_values = {{"DTYPE", k.dtype}, {"COLS", std::to_string(k.cols)}};
    const ir::ProgramRef input = pypto::text::parse_program(text, options);
    std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
    for (std::size_t j = 0; j < 32; ++j) args[0].buffer->f32[j] = static_cast<float>(j);
    args[1].buffer->ints = k.bits;
    const std::vector<rt::Value> out = run_identical(*input, args);
    std::vector<float> want(32, -3.0f);
    for (std::size_t j = 1; j < 16; j += 2) want[j] = static_cast<float>(j);
    want[16] = 16;
    want[31] = 31;
    CHECK(out[2].buffer->f32 == want);
  }
}

TEST_CASE("cpu pipeline: orchestration slices and transposes are views the kernels see through") {
  // Each iteration's kernel reads four rows of x's transpose and stores them into a slice of
  // `out`: the stores reach `out` through the view, so `out` ends as x transposed; a store into
  // a transpose of `back` reaches `back` with the axes swapped back.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Views:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[4, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 4], pl.FP32]], back: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[8, 4], pl.FP32]:
        xt = pl.transpose(x, 0, 1)
        for h in pl.range(2):
            part = pl.slice(out, [4, 4], [4 * h, 0])
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(xt, [4 * h, 0], [4, 4])
                part = pl.store(t, [0, 0], part)
        bt = pl.transpose(back, 0, 1)
        with pl.at(level=pl.Level.CORE_GROUP):
            u = pl.load(xt, [0, 0], [8, 4])
            bt = pl.store(u, [0, 0], bt)
        return out
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  for (std::size_t k = 0; k < 32; ++k) args[0].buffer->f32[k] = static_cast<float>(k);
  const std::vector<rt::Value> out = run_identical(*input, args);
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t j = 0; j < 4; ++j)
      CHECK(out[1].buffer->f32[i * 4 + j] == args[0].buffer->f32[j * 8 + i]);
  // x's transpose stored into `back`'s transpose: `back` is x again.
  CHECK(out[2].buffer->f32 == args[0].buffer->f32);
}

TEST_CASE(
    "cpu pipeline: FP16 and BF16 scalars in a kernel hold their dtype's values, as interpreted") {
  // k is read from an FP16 tensor (the gather compares against its value); e is x[0][0] = 0.1
  // cast to the half dtype (rounded once) and back; s is 2.5 cast to the half dtype (a value of
  // it) and back. Row 0 of f is x + k + e + s, in that order, in binary32.
  struct Case {
    const char* dtype;
    float tenth;  // 0.1 rounded to the dtype
  };
  for (const Case& h : {Case{"pl.FP16", 0.0999755859375f}, Case{"pl.BF16", 0.10009765625f}}) {
    CAPTURE(h.dtype);
    const std::string text = R"(import pypto.language as pl

@pl.program
class HalfScalars:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, src: pl.Tensor[[4, 16], pl.FP16], kv: pl.Tensor[[1], pl.FP16], x: pl.Tensor[[1, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 8], pl.INT32]], c: pl.Out[pl.Tensor[[1, 4], pl.INT32]], f: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            k: pl.Scalar[pl.FP16] = pl.tensor.read(kv, [0])
            dst, cnt = pl.tensor.gather(src, kvalue=k, cmp_mode='gt', out_cols=8, count_dtype=pl.INT32)
            o = pl.assemble(o, dst, [0, 0])
            c = pl.assemble(c, cnt, [0, 0])
            e: pl.Scalar[pl.FP32] = pl.tensor.read(x, [0, 0])
            t = pl.load(x, [0, 0], [1, 16])
            s: pl.Scalar[DTYPE] = pl.cast(2.5, DTYPE)
            u = pl.add(pl.add(pl.add(t, pl.cast(k, pl.FP32)), pl.cast(pl.cast(e, DTYPE), pl.FP32)), pl.cast(s, pl.FP32))
            f = pl.store(u, [0, 0], f)
        return f
)";
    pypto::text::ParseOptions options;
    options.host_values = {{"DTYPE", h.dtype}};
    const ir::ProgramRef input = pypto::text::parse_program(text, options);
    std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
    // Row r of src: 0, 1.5 and 3 in turn; k = 1.5 (a value of both dtypes): 'gt' keeps the 3s.
    for (std::size_t j = 0; j < 64; ++j) args[0].buffer->f32[j] = static_cast<float>(j % 3) * 1.5f;
    args[1].buffer->f32[0] = 1.5f;
    for (std::size_t j = 0; j < 16; ++j) args[2].buffer->f32[j] = j == 0 ? 0.1f : 1.0f;
    const std::vector<rt::Value> out = run_identical(*input, args);
    CHECK(out[5].buffer->f32[0] == ((0.1f + 1.5f) + h.tenth) + 2.5f);
    CHECK(out[5].buffer->f32[1] == ((1.0f + 1.5f) + h.tenth) + 2.5f);
    // Row 0 of src: columns 2, 5, 8, 11, 14 hold 3 (five matches).
    CHECK(out[4].buffer->ints[0] == 5);
    CHECK(out[3].buffer->ints[0] == 2);
    CHECK(out[3].buffer->ints[4] == 14);
  }
}

TEST_CASE("cpu pipeline: a predicated dispatch whose predicate is false leaves its output as is") {
  // The predicate of a `pl.spmd` scope and of a `pl.spmd_submit` decides whether the task runs;
  // a skipped task's result is the Out tensor it would have written (the kernel returns the
  // store's result, which is that tensor), so the consumer reads the producer's values.
  for (const char* dispatch :
       {"        with pl.spmd(1) as p:\n"
        "            x = self.produce(x)\n"
        "        with pl.spmd(1, deps=[p], predicate=gate[0, 0] > 0) as c:\n"
        "            x = self.clobber(x)\n"
        "        with pl.spmd(1, deps=[c]) as _:\n"
        "            out = self.consume(x, out)\n",
        "        with pl.manual_scope():\n"
        "            x, p = pl.spmd_submit(self.produce, x, core_num=1)\n"
        "            x, c = pl.spmd_submit(self.clobber, x, core_num=1, deps=[p], "
        "predicate=gate[0, 0] > 0)\n"
        "            out, _ = pl.spmd_submit(self.consume, x, out, core_num=1, deps=[c])\n"}) {
    CAPTURE(dispatch);
    const ir::ProgramRef input =
        pypto::text::parse_program(std::string(R"(import pypto.language as pl

@pl.program
class Gated:
    @pl.function(type=pl.FunctionType.InCore)
    def produce(self, x: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
        t: pl.Tile[[8, 8], pl.FP32] = pl.tile.full([8, 8], dtype=pl.FP32, value=42.0)
        return pl.store(t, [0, 0], x)

    @pl.function(type=pl.FunctionType.InCore)
    def clobber(self, x: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
        t: pl.Tile[[8, 8], pl.FP32] = pl.tile.full([8, 8], dtype=pl.FP32, value=-7.0)
        return pl.store(t, [0, 0], x)

    @pl.function(type=pl.FunctionType.InCore)
    def consume(self, x: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
        t = pl.load(x, [0, 0], [8, 8])
        return pl.store(pl.add(t, t), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Out[pl.Tensor[[8, 8], pl.FP32]], gate: pl.Tensor[[8, 8], pl.INT32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
)") + dispatch + R"(        return out
)");
    for (const std::int64_t g : {0, -3, 1}) {
      CAPTURE(g);
      std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
      args[1].buffer->ints.assign(64, 5);
      args[1].buffer->ints[0] = g;
      const std::vector<rt::Value> compiled = run_identical(*input, args);
      const float x = g > 0 ? -7.0f : 42.0f;
      CHECK(compiled[0].buffer->f32 == std::vector<float>(64, x));
      CHECK(compiled[2].buffer->f32 == std::vector<float>(64, x + x));
    }
  }
}

TEST_CASE("cpu pipeline: a matmul_acc into a window of an Acc tile accumulates in that tile") {
  // Each column window of `acc` runs its own K reduction (init_cond on the first step); the
  // store of `acc` then holds every window's product: a window of an accumulator is its memory.
  const ir::ProgramRef input = pypto::text::parse_program(R"(import pypto.language as pl

@pl.program
class Windows:
    @pl.function(type=pl.FunctionType.InCore)
    def windows(self, a: pl.Tensor[[4, 8], pl.FP32], b: pl.Tensor[[8, 8], pl.FP32], c: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        acc = pl.tile.create([4, 8], pl.FP32, target_memory=pl.MemorySpace.Acc)
        for t in pl.range(2):
            for k0 in pl.range(0, 8, 4):
                a_l1 = pl.load(a, offsets=[0, k0], shapes=[4, 4], target_memory=pl.MemorySpace.Mat)
                b_l1 = pl.load(b, offsets=[k0, t * 4], shapes=[4, 4], target_memory=pl.MemorySpace.Mat)
                a_l0 = pl.move(a_l1, target_memory=pl.MemorySpace.Left)
                b_l0 = pl.move(b_l1, target_memory=pl.MemorySpace.Right)
                win = pl.tile.slice(acc, [4, 4], [0, t * 4])
                win = pl.matmul_acc(win, a_l0, b_l0, init_cond=k0 == 0)
        return pl.store(acc, offsets=[0, 0], output_tensor=c)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[4, 8], pl.FP32], b: pl.Tensor[[8, 8], pl.FP32], c: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        c = self.windows(a, b, c)
        return c
)");
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  for (std::size_t k = 0; k < 32; ++k) args[0].buffer->f32[k] = static_cast<float>(k % 5) - 2.0f;
  for (std::size_t k = 0; k < 64; ++k) args[1].buffer->f32[k] = static_cast<float>(k % 7) - 3.0f;
  args[2].buffer->f32.assign(32, 100.0f);  // what the store replaces
  const std::vector<rt::Value> compiled = run_identical(*input, args);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 8; ++j) {
      float want = 0.0f;  // small integers: every sum is exact
      for (std::size_t k = 0; k < 8; ++k)
        want += args[0].buffer->f32[i * 8 + k] * args[1].buffer->f32[k * 8 + j];
      CAPTURE(i);
      CAPTURE(j);
      CHECK(compiled[2].buffer->f32[i * 8 + j] == want);
    }
}

namespace {
/// The interpreter's run of `text`'s main in a world of `ranks` ranks (NR = ranks) on seeded
/// inputs whose first tensor is `x`: the arguments after the run.
std::vector<rt::Value> run_world(const std::string& text, std::int64_t ranks,
                                 const std::vector<float>& x) {
  const ir::ProgramRef input = pypto::text::parse_program(text);
  std::vector<rt::Value> args =
      rt::seeded_inputs(*input->find("main"), 1, {}, rt::SymbolExtents{{"NR", ranks}});
  args[0].buffer->f32 = x;
  rt::RunOptions options;
  options.world_size = ranks;
  (void)rt::run(*input, "main", args, options);
  return args;
}

std::vector<float> counting(std::size_t n) {
  std::vector<float> x(n);
  for (std::size_t k = 0; k < n; ++k) x[k] = static_cast<float>(k) * 0.5f - 3.0f;
  return x;
}
}  // namespace

TEST_CASE("interpret: the ranks of a world run side by side, each with its own windows") {
  // Rank r stores its x into rank r + 1's window, notifies it and waits for its own signal:
  // outs[r] = 2 xs[r - 1], which only ranks running beside each other can give.
  for (const std::int64_t n : {2, 3}) {
    CAPTURE(n);
    const std::vector<float> x = counting(static_cast<std::size_t>(n) * 8);
    const std::vector<rt::Value> args = run_world(handshake(), n, x);
    for (std::int64_t r = 0; r < n; ++r)
      for (std::size_t k = 0; k < 8; ++k) {
        const float from = x[static_cast<std::size_t>((r + n - 1) % n) * 8 + k];
        CHECK(args[1].buffer->f32[static_cast<std::size_t>(r) * 8 + k] == from + from);
      }
  }
  // A signal no rank sets is a deadlock naming each waiting rank; a device past the world's
  // last rank is refused.
  const auto error_of = [](const std::string& text) {
    try {
      (void)run_world(text, 2, counting(16));
    } catch (const rt::RuntimeError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string deadlock = error_of(replaced(handshake(), "expected=3", "expected=4"));
  CHECK(deadlock.find("world: every member that has not ended waits") != std::string::npos);
  CHECK(deadlock.find("rank 0 waits in pld.system.wait (waits for the signal [0, 0] to be >= 4") !=
        std::string::npos);
  CHECK(error_of(replaced(handshake(), "device=r", "device=r + 1"))
            .find("call of 'chip' on device 2, outside the world of 2 ranks") != std::string::npos);
}

TEST_CASE("interpret: an allreduce sums every rank's window, in a kernel or on the host") {
  const std::string text = R"(import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class Reduce:
    @pl.function(type=pl.FunctionType.InCore)
    def step(self, x: pl.Tensor[[1, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]], data: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]], sig: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        staged = pl.store(pl.load(x, [0, 0], [1, 8]), [0, 0], data)
        summed = pld.tensor.allreduce(staged, sig, op=pld.ReduceOp.Sum)
        return pl.store(pl.load(summed, [0, 0], [1, 8]), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]], data: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]], sig: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        return self.step(x, out, data, sig)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, xs: pl.Tensor[[NR, 1, 8], pl.FP32], outs: pl.Out[pl.Tensor[[NR, 1, 8], pl.FP32]]) -> pl.Tensor[[NR, 1, 8], pl.FP32]:
        buf = pld.alloc_window_buffer(32)
        sbuf = pld.alloc_window_buffer(pld.world_size() * 4)
        for r in pl.range(pld.world_size()):
            data = pld.window(buf, [1, 8], dtype=pl.FP32)
            sig = pld.window(sbuf, [pld.world_size(), 1], dtype=pl.INT32)
            self.chip(xs[r], outs[r], data, sig, device=r)
        return outs
)";
  const std::int64_t n = 3;
  const std::vector<float> x = counting(24);
  std::vector<float> sum(8, 0.0f);
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t k = 0; k < 8; ++k) sum[k] += x[r * 8 + k];
  const std::vector<rt::Value> in_kernel = run_world(text, n, x);
  for (std::size_t k = 0; k < 24; ++k) CHECK(in_kernel[1].buffer->f32[k] == sum[k % 8]);
  // Devices 0 and 1 alone of the three: the allreduce meets its window's domain, not rank 2.
  const std::vector<rt::Value> two = run_world(
      replaced(text, "for r in pl.range(pld.world_size()):", "for r in pl.range(2):"), n, x);
  for (std::size_t k = 0; k < 16; ++k) CHECK(two[1].buffer->f32[k] == x[k % 8] + x[8 + k % 8]);

  // On the host, between two rounds of device calls: the first stages each x in its rank's
  // window, the host reduces the ranks' windows, the second reads each rank's back.
  const std::string host = replaced(
      replaced(text, R"(        summed = pld.tensor.allreduce(staged, sig, op=pld.ReduceOp.Sum)
        return pl.store(pl.load(summed, [0, 0], [1, 8]), [0, 0], out))",
               R"(        return pl.store(pl.load(data, [0, 0], [1, 8]), [0, 0], out))"),
      R"(            self.chip(xs[r], outs[r], data, sig, device=r)
)",
      R"(            self.chip(xs[r], outs[r], data, sig, device=r)
        data = pld.window(buf, [1, 8], dtype=pl.FP32)
        sig = pld.window(sbuf, [pld.world_size(), 1], dtype=pl.INT32)
        data = pld.tensor.allreduce(data, sig, op=pld.ReduceOp.Max)
        for r in pl.range(pld.world_size()):
            data = pld.window(buf, [1, 8], dtype=pl.FP32)
            sig = pld.window(sbuf, [pld.world_size(), 1], dtype=pl.INT32)
            self.reread(data, outs[r], device=r)
)");
  const std::string with_reread =
      replaced(host, R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def chip()",
               R"(    @pl.function(type=pl.FunctionType.InCore)
    def reread_step(self, data: pld.DistributedTensor[[1, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        return pl.store(pl.load(data, [0, 0], [1, 8]), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def reread(self, data: pld.DistributedTensor[[1, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        return self.reread_step(data, out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip()");
  const std::vector<rt::Value> on_host = run_world(with_reread, n, x);
  for (std::size_t k = 0; k < 24; ++k)  // the third rank's row is the largest
    CHECK(on_host[1].buffer->f32[k] == x[16 + k % 8]);
}

TEST_CASE("interpret: a window's ranks are the devices given it, so groups may share a device") {
  // Devices 0 and 1 swap through the `a` windows, devices 1 and 2 through the `b` windows:
  // device 1 is rank 1 of the first group and rank 0 of the second. A window of [8] passed
  // for a [1, 8] parameter is its bytes read in the parameter's shape.
  const std::string text = R"(import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class Groups:
    @pl.function(type=pl.FunctionType.InCore)
    def swap(self, x: pl.Tensor[[1, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]], scratch: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]], sig: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        ctx = pld.get_comm_ctx(scratch)
        peer = pld.nranks(ctx) - 1 - pld.rank(ctx)
        pld.tile.remote_store(pl.load(x, [0, 0], [1, 8]), scratch, peer, [0, 0])
        pld.system.notify(sig, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(sig, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
        return pl.store(pl.load(scratch, [0, 0], [1, 8]), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]], scratch: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]], sig: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        return self.swap(x, out, scratch, sig)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main(self, xs: pl.Tensor[[3, 1, 8], pl.FP32], outs_a: pl.Out[pl.Tensor[[3, 1, 8], pl.FP32]], outs_b: pl.Out[pl.Tensor[[3, 1, 8], pl.FP32]]) -> pl.Tensor[[3, 1, 8], pl.FP32]:
        a_buf = pld.alloc_window_buffer(32)
        a_sig = pld.alloc_window_buffer(4)
        b_buf = pld.alloc_window_buffer(32)
        b_sig = pld.alloc_window_buffer(4)
        for r in pl.range(2):
            self.chip(xs[r], outs_a[r], pld.window(a_buf, [8], dtype=pl.FP32), pld.window(a_sig, [1, 1], dtype=pl.INT32), device=r)
        for r in pl.range(1, 3):
            self.chip(xs[r], outs_b[r], pld.window(b_buf, [8], dtype=pl.FP32), pld.window(b_sig, [1, 1], dtype=pl.INT32), device=r)
        return outs_a
)";
  const std::vector<float> x = counting(24);
  const ir::ProgramRef input = pypto::text::parse_program(text);
  std::vector<rt::Value> args = rt::seeded_inputs(*input->find("main"), 1);
  args[0].buffer->f32 = x;
  const std::vector<float> a_before = args[1].buffer->f32, b_before = args[2].buffer->f32;
  rt::RunOptions options;
  options.world_size = 3;
  (void)rt::run(*input, "main", args, options);
  const auto row = [](const std::vector<float>& v, std::size_t r) {
    return std::vector<float>(v.begin() + static_cast<std::ptrdiff_t>(r * 8),
                              v.begin() + static_cast<std::ptrdiff_t>(r * 8 + 8));
  };
  CHECK(row(args[1].buffer->f32, 0) == row(x, 1));
  CHECK(row(args[1].buffer->f32, 1) == row(x, 0));
  CHECK(row(args[1].buffer->f32, 2) == row(a_before, 2));  // no device 2 in the first group
  CHECK(row(args[2].buffer->f32, 0) == row(b_before, 0));
  CHECK(row(args[2].buffer->f32, 1) == row(x, 2));
  CHECK(row(args[2].buffer->f32, 2) == row(x, 1));
}

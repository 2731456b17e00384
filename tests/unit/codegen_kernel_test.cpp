// Tests of the kernel code generator (issue 8, "Targets" and "Kernel code"):
// pypto/codegen/{target_traits,npu_target,cpu_target,core_type,kernel_source,spec_emitter,
// kernel_codegen}.hpp. Each case is a kernel in the text format, codegen for a target, and the
// expected source (golden files under tests/codegen/golden/ for the NPU), property, or error.
// The last cases compile the CPU sources with the system compiler (through the compile cache),
// run them and compare every output bit for bit with the reference interpreter
// (runtime/interpreter.hpp).
//
// Set PYPTO_UPDATE_CODEGEN_GOLDENS=1 to rewrite the golden files from the current output.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/codegen/codegen_error.hpp"
#include "pypto/codegen/core_type.hpp"
#include "pypto/codegen/cpu_target.hpp"
#include "pypto/codegen/kernel_abi.hpp"
#include "pypto/codegen/kernel_codegen.hpp"
#include "pypto/codegen/npu_target.hpp"
#include "pypto/codegen/spec_emitter.hpp"
#include "pypto/codegen/target_traits.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/kernel/interpreter.hpp"
#include "pypto/runtime/compile_cache.hpp"
#include "pypto/runtime/interpreter.hpp"
#include "pypto/runtime/shared_library.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/transforms/pass_instruments.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"
#include "test_files.hpp"
#include "test_rng.hpp"

#ifndef PYPTO_TEST_CODEGEN_DIR
#error "PYPTO_TEST_CODEGEN_DIR must name tests/codegen (tests/CMakeLists.txt sets it)"
#endif

namespace cg = pypto::codegen;
namespace ir = pypto::ir;
namespace rt = pypto::runtime;

namespace {

ir::ProgramRef parse(std::string_view text) { return pypto::text::parse_program(text); }

using pypto_test::read_file;

const std::string kCodegenDir = PYPTO_TEST_CODEGEN_DIR;

ir::ProgramRef kernels() { return parse(read_file(kCodegenDir + "/kernels.pl")); }

const ir::Function& function(const ir::ProgramRef& p, std::string_view name) {
  ir::FunctionRef f = p->find(name);
  REQUIRE_MESSAGE(f, "no function " << name);
  return *f;
}

/// A program with one kernel `k` of `params` and `body` (each body line indented 8 spaces).
std::string kernel_program(std::string_view name, std::string_view type, std::string_view params,
                           std::string_view ret, std::string_view body) {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n"
         "    @pl.function(type=pl.FunctionType." +
         std::string(type) + ")\n    def " + std::string(name) + "(self, " + std::string(params) +
         ") -> " + std::string(ret) + ":\n" + std::string(body);
}

template <class T>
std::string source_of(std::string_view program_text, std::string_view name = "k") {
  const auto p = parse(program_text);
  return cg::codegen_kernel<T>(function(p, name)).source;
}

template <class T>
cg::CodegenError codegen_error(std::string_view program_text, std::string_view name = "k") {
  const auto p = parse(program_text);
  try {
    cg::codegen_kernel<T>(function(p, name));
  } catch (const cg::CodegenError& e) {
    return e;
  }
  FAIL("no CodegenError");
  return cg::CodegenError("", "");
}

constexpr std::string_view kTwoIn =
    "a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], "
    "o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]";
constexpr std::string_view kRet = "pl.Tensor[[16, 64], pl.FP32]";

}  // namespace

// ---- traits --------------------------------------------------------------------------------

TEST_CASE("codegen traits: both targets model TargetTraits and carry their runtime ABI") {
  static_assert(cg::TargetTraits<cg::NpuTarget>);
  static_assert(cg::TargetTraits<cg::CpuTarget>);
  static_assert(!cg::TargetTraits<int>);
  CHECK(&cg::NpuTarget::runtime_abi == &cg::kNpuRuntimeAbi);
  CHECK(&cg::CpuTarget::runtime_abi == &cg::kCpuRuntimeAbi);
  CHECK(cg::NpuTarget::name != cg::CpuTarget::name);
  CHECK(cg::NpuTarget::fingerprint != cg::CpuTarget::fingerprint);
  CHECK(cg::CpuTarget::float_semantics.strict);
  CHECK_FALSE(cg::CpuTarget::float_semantics.fp_contraction);
  REQUIRE(cg::NpuTarget::memory_space(ir::MemorySpace::Vec) != nullptr);
  CHECK(cg::NpuTarget::memory_space(ir::MemorySpace::Vec)->capacity_bytes == 192 * 1024);
  CHECK(cg::NpuTarget::memory_space(ir::MemorySpace::Left)->cube);
  CHECK(cg::NpuTarget::memory_space(ir::MemorySpace::DDR) == nullptr);
  CHECK(cg::NpuTarget::instr_table[static_cast<std::size_t>(pypto::kernel::Op::RowSum)] ==
        "TROWSUM({d}, {a}, {t});");
}

TEST_CASE("codegen traits: float literals are exact, signed zeros and NaN payloads survive") {
  CHECK(cg::CpuTarget::float_literal(pypto::kernel::float_bits(1.0f)) == "0x1p0f");
  CHECK(cg::CpuTarget::float_literal(pypto::kernel::float_bits(0.5f)) == "0x1p-1f");
  CHECK(cg::CpuTarget::float_literal(pypto::kernel::float_bits(-3.0f)) == "-0x3p0f");
  CHECK(cg::CpuTarget::float_literal(pypto::kernel::float_bits(-0.0f)) == "-0.0f");
  CHECK(cg::CpuTarget::float_literal(0x7fc00001u) == "std::bit_cast<float>(0x7fc00001u)");
  CHECK(cg::CpuTarget::float_literal(1u) == "0x1p-149f");  // the smallest denormal
}

// ---- core type -----------------------------------------------------------------------------

TEST_CASE("codegen core type: AIC for matmul or a cube memory space, AIV otherwise") {
  const auto p = kernels();
  CHECK(cg::core_type_of(function(p, "matmul")) == cg::CoreType::AIC);
  CHECK(cg::core_type_of(function(p, "elementwise")) == cg::CoreType::AIV);
  CHECK(cg::core_type_of(function(p, "loop_carry")) == cg::CoreType::AIV);
  CHECK(cg::codegen_kernel<cg::NpuTarget>(function(p, "matmul")).core_type == cg::CoreType::AIC);
  CHECK(cg::codegen_kernel<cg::CpuTarget>(function(p, "row_stats")).core_type == cg::CoreType::AIV);

  const auto cube = parse(
      kernel_program("k", "InCore", kTwoIn, kRet,
                     "        x = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)\n"
                     "        o1 = pl.tile.store(x, [0, 0], o)\n        return o1\n"));
  CHECK(cg::core_type_of(function(cube, "k")) == cg::CoreType::AIC);
  const auto aic = parse(kernel_program("k", "AIC", kTwoIn, kRet,
                                        "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                                        "        o1 = pl.tile.store(x, [0, 0], o)\n"
                                        "        return o1\n"));
  CHECK(cg::core_type_of(function(aic, "k")) == cg::CoreType::AIC);
}

// ---- golden NPU sources --------------------------------------------------------------------

TEST_CASE("codegen npu: every kernel of tests/codegen/kernels.pl matches its golden source") {
  const auto p = kernels();
  const bool update = std::getenv("PYPTO_UPDATE_CODEGEN_GOLDENS") != nullptr;
  REQUIRE(p->functions.size() >= 6);
  for (const auto& f : p->functions) {
    CAPTURE(f.name);
    const std::string source = cg::codegen_kernel<cg::NpuTarget>(*f.function).source;
    const std::string golden = kCodegenDir + "/golden/" + f.name + ".npu.cpp";
    if (update) std::ofstream(golden, std::ios::binary) << source;
    CHECK(source == read_file(golden));
  }
}

TEST_CASE("codegen npu: the entry unpacks tensors first, then scalars, whatever the order") {
  const auto src = source_of<cg::NpuTarget>(kernel_program(
      "k", "AIV",
      "s: pl.Scalar[pl.FP32], a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], "
      "o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
      kRet,
      "        x = pl.tile.load(a, [n, 0], [16, 64])\n"
      "        y = pl.tile.add(x, s)\n"
      "        o1 = pl.tile.store(y, [0, 0], o)\n        return o1\n"));
  CHECK(src.find("kernel_entry(__gm__ int64_t* args)") != std::string::npos);
  const auto t0 = src.find("reinterpret_cast<__gm__ Tensor*>(args[0])");
  const auto t1 = src.find("reinterpret_cast<__gm__ Tensor*>(args[1])");
  const auto s0 =
      src.find("const float s0 = std::bit_cast<float>(static_cast<std::uint32_t>(args[2]))");
  const auto s1 = src.find("const std::int64_t s1 = static_cast<std::int64_t>(args[3])");
  CHECK(t0 < t1);
  CHECK(t1 < s0);
  CHECK(s0 < s1);
  CHECK(s1 != std::string::npos);
  CHECK(src.find("TADDS(r0, v0, s0);") != std::string::npos);

  const auto p = parse(kernel_program("k", "AIV",
                                      "s: pl.Scalar[pl.FP32], a: pl.Tensor[[16, 64], pl.FP32], "
                                      "o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
                                      kRet,
                                      "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                                      "        o1 = pl.tile.store(x, [0, 0], o)\n"
                                      "        return o1\n"));
  const cg::KernelSource ks = cg::codegen_kernel<cg::NpuTarget>(function(p, "k"));
  REQUIRE(ks.tensors.size() == 2);
  REQUIRE(ks.scalars.size() == 1);
  CHECK(ks.tensors[0].index == 1);
  CHECK(ks.tensors[1].index == 2);
  CHECK(ks.tensors[1].direction == ir::ParamDirection::Out);
  CHECK(ks.scalars[0].index == 0);
  CHECK(ks.scalars[0].dtype == pypto::core::DataType::FP32);
  CHECK(ks.function_name == "k");
}

// ---- identity of code ----------------------------------------------------------------------

TEST_CASE("codegen: alpha-renamed kernels print byte-identical source on both targets") {
  const std::string one = kernel_program("first_kernel", "InCore", kTwoIn, kRet,
                                         "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                                         "        y = pl.tile.load(b, [0, 0], [16, 64])\n"
                                         "        z = pl.tile.mul(pl.tile.add(x, y), 2.0)\n"
                                         "        o1 = pl.tile.store(z, [0, 0], o)\n"
                                         "        return o1\n");
  const std::string two =
      kernel_program("other_name", "InCore",
                     "p: pl.Tensor[[16, 64], pl.FP32], q: pl.Tensor[[16, 64], pl.FP32], "
                     "r: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
                     kRet,
                     "        left = pl.tile.load(p, [0, 0], [16, 64])\n"
                     "        right = pl.tile.load(q, [0, 0], [16, 64])\n"
                     "        total = pl.tile.add(left, right)\n"
                     "        scaled = pl.tile.mul(total, 2.0)\n"
                     "        r1 = pl.tile.store(scaled, [0, 0], r)\n"
                     "        return r1\n");
  const std::string npu = source_of<cg::NpuTarget>(one, "first_kernel");
  CHECK(npu == source_of<cg::NpuTarget>(two, "other_name"));
  CHECK(source_of<cg::CpuTarget>(one, "first_kernel") ==
        source_of<cg::CpuTarget>(two, "other_name"));
  CHECK(npu.find("first_kernel") == std::string::npos);
}

TEST_CASE("codegen: kernels whose regions canonicalize alike print byte-identical source") {
  // x * 1.0 is x exactly (IEEE), so both regions canonicalize to one Add.
  const std::string plain = kernel_program("k", "InCore", kTwoIn, kRet,
                                           "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                                           "        y = pl.tile.load(b, [0, 0], [16, 64])\n"
                                           "        z = pl.tile.add(x, y)\n"
                                           "        o1 = pl.tile.store(z, [0, 0], o)\n"
                                           "        return o1\n");
  const std::string noisy = kernel_program("k", "InCore", kTwoIn, kRet,
                                           "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                                           "        y = pl.tile.load(b, [0, 0], [16, 64])\n"
                                           "        w = pl.tile.mul(x, 1.0)\n"
                                           "        z = pl.tile.add(w, y)\n"
                                           "        o1 = pl.tile.store(z, [0, 0], o)\n"
                                           "        return o1\n");
  CHECK(source_of<cg::NpuTarget>(plain) == source_of<cg::NpuTarget>(noisy));
  CHECK(source_of<cg::CpuTarget>(plain) == source_of<cg::CpuTarget>(noisy));
}

TEST_CASE("codegen: a different constant gives a different source") {
  auto with = [](std::string_view c) {
    return kernel_program("k", "InCore", kTwoIn, kRet,
                          "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                          "        z = pl.tile.add(x, " +
                              std::string(c) +
                              ")\n"
                              "        o1 = pl.tile.store(z, [0, 0], o)\n"
                              "        return o1\n");
  };
  CHECK(source_of<cg::NpuTarget>(with("1.0")) != source_of<cg::NpuTarget>(with("2.0")));
  CHECK(source_of<cg::CpuTarget>(with("1.0")) != source_of<cg::CpuTarget>(with("2.0")));
  CHECK(source_of<cg::CpuTarget>(with("0.0")) != source_of<cg::CpuTarget>(with("-0.0")));
  CHECK(source_of<cg::NpuTarget>(with("1.0")).find("TADDS(r0, v0, 0x1p0f);") != std::string::npos);
}

TEST_CASE("codegen: reductions and the elementwise code on their results share one Spec") {
  const auto p = kernels();
  const std::string npu = cg::codegen_kernel<cg::NpuTarget>(function(p, "norm")).source;
  // One block: both reductions, then the row-vector code reading the [16, 1] input directly.
  const auto sum = npu.find("TROWSUM("), max = npu.find("TROWMAX("), rsqrt = npu.find("TRSQRT(");
  REQUIRE(sum != std::string::npos);
  REQUIRE(max != std::string::npos);
  REQUIRE(rsqrt != std::string::npos);
  CHECK(npu.substr(sum, rsqrt - sum).find('}') == std::string::npos);
  CHECK(npu.find("TROWEXPAND") == std::string::npos);
  const std::string cpu = cg::codegen_kernel<cg::CpuTarget>(function(p, "norm")).source;
  CHECK(cpu.find("v1[i]") != std::string::npos);  // the [16, 1] tile, read per row
  // Over two grids, each reduction is materialized by its own Spec.
  const std::string mixed = cg::codegen_kernel<cg::NpuTarget>(function(p, "mixed_grids")).source;
  CHECK(mixed.find("TDIV(r0, v2, v3);") != std::string::npos);
}

TEST_CASE("codegen: a second operand broadcasts as a [rows, 1] column or a [1, cols] row") {
  const auto p = kernels();
  // A grid-shaped value reads the reduction results along each row, in the reductions' Spec.
  const std::string cpu = cg::codegen_kernel<cg::CpuTarget>(function(p, "broadcast")).source;
  CHECK(cpu.find("q1[i]") != std::string::npos);
  CHECK(cpu.find("v1[i]") != std::string::npos);  // the [16, 1] tile, along the row
  CHECK(cpu.find("v2[j]") != std::string::npos);  // the [1, 32] tile, down the columns
  const std::string npu = cg::codegen_kernel<cg::NpuTarget>(function(p, "broadcast")).source;
  CHECK(npu.find("TCOLEXPAND(x0, v2);") != std::string::npos);
  CHECK(npu.find("TROWEXPAND(x0, v1);") != std::string::npos);
}

// ---- loops, symbolic shapes ----------------------------------------------------------------

TEST_CASE("codegen: a loop carries a tile and a scalar through its yield") {
  const auto p = kernels();
  const std::string cpu = cg::codegen_kernel<cg::CpuTarget>(function(p, "loop_carry")).source;
  CHECK(cpu.find("for (std::int64_t s1 = std::int64_t{0}; s1 < std::int64_t{4}; "
                 "s1 = pk::add(s1, std::int64_t{1})) {") != std::string::npos);
  CHECK(cpu.find("    v1 = v3;\n") != std::string::npos);  // the tile carry takes the yield
  const std::string npu = cg::codegen_kernel<cg::NpuTarget>(function(p, "loop_carry")).source;
  CHECK(npu.find("    TMOV(v1, v3);\n") != std::string::npos);
}

TEST_CASE("codegen npu: each hand-over between pipes waits on a flag, loops drain the pipes") {
  // load (MTE2) -> add (V) -> store (MTE3), then a loop whose body loads, adds and stores.
  const std::string text = kernel_program("k", "InCore", kTwoIn, kRet, R"(
        ta = pl.load(a, [0, 0], [16, 64])
        tb = pl.load(b, [0, 0], [16, 64])
        pl.store(pl.add(ta, tb), [0, 0], o)
        for i in pl.range(2):
            u = pl.load(o, [0, 0], [16, 64])
            pl.store(pl.add(u, ta), [0, 0], o)
        return o
)");
  const std::string npu = source_of<cg::NpuTarget>(text);
  auto at = [&npu](std::string_view what, std::size_t from = 0) {
    const std::size_t k = npu.find(what, from);
    REQUIRE_MESSAGE(k != std::string::npos, "no '" << what << "' in\n" << npu);
    return k;
  };
  const std::size_t second_load = at("TLOAD(", at("TLOAD(") + 1);
  const std::size_t to_vector = at("set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n", second_load);
  CHECK(npu.find("wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n", to_vector) < at("TADD("));
  const std::size_t to_store = at("set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);", at("TADD("));
  CHECK(to_store < at("TSTORE("));
  // The two loads of the first block share one hand-over: none between them.
  CHECK(npu.find("set_flag", at("TLOAD(")) == to_vector);
  // Before the loop and at the end of its body (the next iteration reuses the tiles).
  const std::size_t loop = at("for (");
  CHECK(npu.rfind("pipe_barrier(PIPE_ALL);\n", loop) > at("TSTORE("));
  CHECK(at("pipe_barrier(PIPE_ALL);\n", loop) > at("TSTORE(", loop));
  // Inside the body (entered with drained pipes), its own load -> add waits on a flag.
  CHECK(at("set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);", loop) < at("TADD(", loop));
  // The CPU runs in order: nothing to synchronize.
  const std::string cpu = source_of<cg::CpuTarget>(text);
  CHECK(cpu.find("set_flag") == std::string::npos);
  CHECK(cpu.find("pipe_barrier") == std::string::npos);
}

TEST_CASE("codegen: symbolic dims are read from the runtime shapes") {
  const auto p = kernels();
  const std::string npu = cg::codegen_kernel<cg::NpuTarget>(function(p, "symbolic")).source;
  CHECK(npu.find("[[maybe_unused]] const std::int64_t s0 = t0->shape[0];") != std::string::npos);
  CHECK(npu.find("const std::int64_t s1 = t0->shape[0];") != std::string::npos);  // tensor.dim
  CHECK(npu.find("TileDyn<TileType::Vec, float> v0(s1, 64);") != std::string::npos);
  const std::string cpu = cg::codegen_kernel<cg::CpuTarget>(function(p, "symbolic")).source;
  CHECK(cpu.find("std::vector<float> v0(static_cast<std::size_t>((s1) * (64)));") !=
        std::string::npos);
}

// ---- errors --------------------------------------------------------------------------------

TEST_CASE("codegen: an op the target cannot express is a CodegenError naming kernel and line") {
  const std::string program = kernel_program("bad_kernel", "AIV", kTwoIn, kRet,
                                             "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                                             "        y = pl.tile.alloc(pl.Mem.Vec, 16384)\n"
                                             "        o1 = pl.tile.store(x, [0, 0], o)\n"
                                             "        return o1\n");
  for (const cg::CodegenError& e : {codegen_error<cg::CpuTarget>(program, "bad_kernel"),
                                    codegen_error<cg::NpuTarget>(program, "bad_kernel")}) {
    CAPTURE(std::string(e.what()));
    CHECK(e.function() == "bad_kernel");
    const std::string what = e.what();
    CHECK(what.find("bad_kernel") != std::string::npos);
    CHECK(what.find("tile.alloc") != std::string::npos);
    CHECK(what.find("at 8:") != std::string::npos);  // line 8 of the program text
  }
  const cg::CodegenError sync =
      codegen_error<cg::NpuTarget>(kernel_program("k", "AIV", kTwoIn, kRet,
                                                  "        i = pl.tile.get_subblock_idx()\n"
                                                  "        x = pl.tile.load(a, [i, 0], [16, 64])\n"
                                                  "        o1 = pl.tile.store(x, [0, 0], o)\n"
                                                  "        return o1\n"));
  CHECK(std::string(sync.what()).find("tile.get_subblock_idx") != std::string::npos);
  CHECK(std::string(sync.what()).find("at 7:") != std::string::npos);
}

TEST_CASE(
    "codegen: a scalar of another dtype is converted to the tile's, a half tile's must be a "
    "float") {
  // as the interpreter converts it (runtime.md, element ops): FP32 2.0 into INT16 by pk::cast
  const std::string source = source_of<cg::CpuTarget>(kernel_program(
      "k", "AIV", "a: pl.Tensor[[16, 64], pl.INT16], o: pl.Out[pl.Tensor[[16, 64], pl.INT16]]",
      "pl.Tensor[[16, 64], pl.INT16]",
      "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
      "        y = pl.tile.subs(x, pl.const(2.0, pl.FP32))\n"
      "        o1 = pl.tile.store(y, [0, 0], o)\n"
      "        return o1\n"));
  CHECK(source.find("pk::sub(v0[i], pk::cast<std::int16_t>(0x1p1f))") != std::string::npos);
  const cg::CodegenError e = codegen_error<cg::CpuTarget>(kernel_program(
      "k", "AIV", "a: pl.Tensor[[16, 64], pl.FP16], o: pl.Out[pl.Tensor[[16, 64], pl.FP16]]",
      "pl.Tensor[[16, 64], pl.FP16]",
      "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
      "        y = pl.tile.subs(x, pl.const(2, pl.INT32))\n"
      "        o1 = pl.tile.store(y, [0, 0], o)\n"
      "        return o1\n"));
  CHECK(std::string(e.what()).find("tile.subs") != std::string::npos);
  CHECK(std::string(e.what()).find("on FP16 tiles needs a float scalar operand") !=
        std::string::npos);
}

TEST_CASE("codegen: a loop carry without a yield (pre-SSA natural form) is refused") {
  const cg::CodegenError e = codegen_error<cg::CpuTarget>(
      kernel_program("k", "InCore", kTwoIn, kRet,
                     "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                     "        for i, (acc,) in pl.range(4, init_values=(x,)):\n"
                     "            acc = pl.tile.add(acc, x)\n"
                     "        o1 = pl.tile.store(acc, [0, 0], o)\n"
                     "        return o1\n"));
  CHECK(std::string(e.what()).find("with results but no yield") != std::string::npos);
  CHECK(std::string(e.what()).find("at 8:") != std::string::npos);
}

TEST_CASE("codegen: an NPU tile over its memory space's capacity is refused") {
  const cg::CodegenError e = codegen_error<cg::NpuTarget>(kernel_program(
      "k", "AIV", "a: pl.Tensor[[512, 512], pl.FP32], o: pl.Out[pl.Tensor[[512, 512], pl.FP32]]",
      "pl.Tensor[[512, 512], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [512, 512])\n"
      "        o1 = pl.tile.store(x, [0, 0], o)\n        return o1\n"));
  CHECK(std::string(e.what()).find("1048576 bytes, over the 196608 bytes of Vec") !=
        std::string::npos);
  // The CPU has no such limit.
  CHECK_NOTHROW(source_of<cg::CpuTarget>(kernel_program(
      "k", "AIV", "a: pl.Tensor[[512, 512], pl.FP32], o: pl.Out[pl.Tensor[[512, 512], pl.FP32]]",
      "pl.Tensor[[512, 512], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [512, 512])\n"
      "        o1 = pl.tile.store(x, [0, 0], o)\n        return o1\n")));
}

TEST_CASE("codegen: an NPU cube-core kernel with a vector-memory tile is refused") {
  // The loads feeding a matmul default to Vec (as upstream's pl.load does); the AIC has no UB.
  const cg::CodegenError e = codegen_error<cg::NpuTarget>(kernel_program(
      "k", "InCore", "a: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
      "pl.Tensor[[16, 16], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [16, 16])\n"
      "        c = pl.tile.matmul(x, x)\n"
      "        o1 = pl.tile.store(c, [0, 0], o)\n        return o1\n"));
  CHECK(std::string(e.what()).find("memory space Vec in a cube-core (AIC) kernel") !=
        std::string::npos);
  CHECK_NOTHROW(source_of<cg::NpuTarget>(kernel_program(
      "k", "InCore", "a: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
      "pl.Tensor[[16, 16], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "        c = pl.tile.matmul(x, x)\n"
      "        o1 = pl.tile.store(c, [0, 0], o)\n        return o1\n")));
}

TEST_CASE("codegen: a first operand smaller than the second is refused (no broadcast)") {
  // The interpreter broadcasts the second operand only: [16, 1] + [16, 64] is refused there too.
  const cg::CodegenError e =
      codegen_error<cg::CpuTarget>(kernel_program("k", "AIV", kTwoIn, kRet,
                                                  "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                                                  "        y = pl.tile.load(b, [0, 0], [16, 1])\n"
                                                  "        z = pl.tile.add(y, x)\n"
                                                  "        o1 = pl.tile.store(z, [0, 0], o)\n"
                                                  "        return o1\n"));
  CHECK(std::string(e.what()).find("no implicit broadcast") != std::string::npos);
  CHECK(std::string(e.what()).find("op 'tile.add' at 9:") != std::string::npos);
}

TEST_CASE("codegen: an orchestration function is not a kernel") {
  const cg::CodegenError e = codegen_error<cg::CpuTarget>(
      kernel_program("k", "Orchestration", kTwoIn, kRet, "        return o\n"));
  CHECK(std::string(e.what()).find("is not a kernel") != std::string::npos);
}

// ---- execution: the CPU source computes what the interpreter computes, bit for bit ---------

namespace {

/// A CPU kernel source compiled through the suite's compile cache (tests/CMakeLists.txt), the
/// way a CpuProgram compiles its kernels, and loaded.
class LoadedKernel {
 public:
  explicit LoadedKernel(const std::string& source) {
    static rt::CompileCache cache(PYPTO_TEST_KERNEL_CACHE);
    cache.share_prelude(cg::CpuTarget::prologue(cg::CoreType::AIV));
    library_ = cache.load({"k", source, rt::CodeOrigin::Generated, {}});
    entry_ = reinterpret_cast<cg::KernelEntry>(library_->symbol(cg::kKernelEntrySymbol));
  }

  /// Calls the kernel on `args` (one per parameter), packed in the task-parameter order.
  void call(const cg::KernelSource& ks, std::vector<rt::Value>& args) {
    std::vector<cg::TensorArg> tensors(ks.tensors.size());
    std::vector<std::vector<std::int32_t>> int32s(ks.tensors.size());   // INT32 tensor storage
    std::vector<std::vector<std::uint16_t>> halves(ks.tensors.size());  // FP16 / BF16 patterns
    std::vector<std::uint64_t> packed;
    for (std::size_t k = 0; k < ks.tensors.size(); ++k) {
      rt::Buffer& b = *args[ks.tensors[k].index].buffer;
      if (b.dtype == pypto::core::DataType::INT32) {
        int32s[k].assign(b.ints.begin(), b.ints.end());
        tensors[k].data = int32s[k].data();
      } else if (const auto format = half_format(b.dtype)) {
        for (float x : b.f32) {
          halves[k].push_back(cg::float_to_half(x, *format, true));
          REQUIRE(pypto::kernel::float_bits(cg::half_to_float(halves[k].back(), *format)) ==
                  pypto::kernel::float_bits(x));  // a value of the dtype
        }
        tensors[k].data = halves[k].data();
      } else {
        REQUIRE(b.dtype == pypto::core::DataType::FP32);
        tensors[k].data = b.f32.data();
      }
      tensors[k].rank = static_cast<std::int64_t>(b.shape.size());
      for (std::size_t d = 0; d < b.shape.size(); ++d) tensors[k].shape[d] = b.shape[d];
      packed.push_back(reinterpret_cast<std::uintptr_t>(&tensors[k]));
    }
    for (const cg::KernelParam& s : ks.scalars) {
      const rt::Value& v = args[s.index];
      packed.push_back(v.dtype == pypto::core::DataType::FP32
                           ? std::uint64_t{pypto::kernel::float_bits(v.f)}
                           : static_cast<std::uint64_t>(v.i));
    }
    entry_(packed.data());
    for (std::size_t k = 0; k < ks.tensors.size(); ++k) {
      rt::Buffer& b = *args[ks.tensors[k].index].buffer;
      if (b.dtype == pypto::core::DataType::INT32)
        b.ints.assign(int32s[k].begin(), int32s[k].end());
      if (const auto format = half_format(b.dtype))
        for (std::size_t j = 0; j < b.f32.size(); ++j)
          b.f32[j] = cg::half_to_float(halves[k][j], *format);
    }
  }

  static std::optional<cg::HalfFormat> half_format(pypto::core::DataType t) {
    if (t == pypto::core::DataType::FP16) return cg::HalfFormat::FP16;
    if (t == pypto::core::DataType::BF16) return cg::HalfFormat::BF16;
    return std::nullopt;
  }

 private:
  std::shared_ptr<rt::SharedLibrary> library_;
  cg::KernelEntry entry_ = nullptr;
};

/// Seeded arguments for `fn`: FP32, FP16 and BF16 tensors (symbolic dims = `rows`) with a few
/// signed zeros, infinities and NaNs mixed in, INT32 tensors over the whole range, and the given
/// scalars in parameter order.
std::vector<rt::Value> seeded_args(const ir::Function& fn, std::uint64_t seed, std::int64_t rows,
                                   const std::vector<rt::Value>& scalars) {
  pypto::test::SplitMix64 rng(seed);
  std::vector<rt::Value> args;
  std::size_t next_scalar = 0;
  for (const auto& p : fn.params) {
    if (ir::isa<ir::ScalarType>(*p->type)) {
      REQUIRE(next_scalar < scalars.size());
      args.push_back(scalars[next_scalar++]);
      continue;
    }
    const auto& t = static_cast<const ir::ShapedType&>(*p->type);
    std::vector<std::int64_t> shape;
    for (const auto& d : t.shape) {
      const auto* c = ir::as<ir::ConstInt>(d.get());
      shape.push_back(c ? c->value : rows);
    }
    rt::Value v = rt::Value::zeros(t.dtype, shape);
    // INT32: the full range, so that sums and products wrap.
    for (std::int64_t& x : v.buffer->ints) x = rng.range(INT32_MIN, INT32_MAX);
    for (float& x : v.buffer->f32) {
      const std::int64_t r = rng.range(0, 99);
      x = r == 0   ? -0.0f
          : r == 1 ? std::numeric_limits<float>::infinity()
          : r == 2 ? std::numeric_limits<float>::quiet_NaN()
                   : static_cast<float>(rng.range(-4096, 4095)) / 1024.0f;
      // FP16 / BF16: values of the dtype, some near its largest finite value (sums and
      // products overflow) or subnormal
      if (t.dtype == pypto::core::DataType::FP16 || t.dtype == pypto::core::DataType::BF16) {
        const bool fp16 = t.dtype == pypto::core::DataType::FP16;
        if (r == 3) x *= fp16 ? 16384.0f : 0x1p125f;
        if (r == 4) x *= fp16 ? 0x1p-16f : 0x1p-128f;
        x = rt::round_to_dtype(t.dtype, x);
      }
    }
    args.push_back(std::move(v));
  }
  return args;
}

/// Bit equality of two FP32 buffers, except that any NaN equals any NaN: which operand's payload
/// a NaN result carries depends on the operand order the compiler picks for a commutative op
/// (kernel/interpreter.hpp's same_float); every other bit, the sign of zero included, must match.
bool bit_identical_buffers(const rt::Value& a, const rt::Value& b) {
  if (a.buffer->ints != b.buffer->ints) return false;
  return pypto::kernel::first_mismatch(a.buffer->f32, b.buffer->f32) < 0;
}

/// Runs function `fn` of `program` on `expected` with the interpreter (its outputs land there)
/// and `kernel` on copies of the arguments taken before: the copies, with the kernel's outputs.
std::vector<rt::Value> run_both(const ir::Program& program, std::string_view fn,
                                const cg::KernelSource& ks, LoadedKernel& kernel,
                                std::vector<rt::Value>& expected) {
  std::vector<rt::Value> actual;
  for (const rt::Value& v : expected) actual.push_back(v.deep_copy());
  rt::run(program, fn, expected);
  kernel.call(ks, actual);
  return actual;
}

}  // namespace

TEST_CASE("codegen cpu: compiled kernels match the reference interpreter bit for bit") {
  const auto p = kernels();
  struct Case {
    std::string_view kernel;
    std::int64_t rows;                            // the value of symbolic dims
    std::vector<std::vector<rt::Value>> scalars;  // one run per set
  };
  const std::vector<Case> cases = {
      {"elementwise", 0, {{rt::Value::scalar_float(0.75f)}, {rt::Value::scalar_float(-0.0f)}}},
      {"row_stats", 0, {{}, {}}},
      {"norm", 0, {{}, {}}},
      {"mixed_grids", 0, {{}, {}}},
      {"loop_carry", 0, {{}, {}}},
      {"loop_store", 0, {{}, {}}},
      {"integer", 0, {{}, {}}},
      {"while_loop", 0, {{rt::Value::scalar_int(3)}, {rt::Value::scalar_int(0)}}},
      {"scalars",
       0,
       {{rt::Value::scalar_int(-7, pypto::core::DataType::INT32),
         rt::Value::scalar_int(2, pypto::core::DataType::INT32), rt::Value::scalar_float(2.5f),
         rt::Value::scalar_float(-0.75f)},
        {rt::Value::scalar_int(1000003, pypto::core::DataType::INT32),
         rt::Value::scalar_int(-77777, pypto::core::DataType::INT32),
         rt::Value::scalar_float(-3.75f), rt::Value::scalar_float(0.5f)}}},
      {"symbolic", 48, {{}, {}}},
      {"matmul", 0, {{}, {}}},
      // both sides of the branch
      {"branch", 0, {{rt::Value::scalar_int(13)}, {rt::Value::scalar_int(6)}}},
      // every arm of both ifs
      {"if_results",
       0,
       {{rt::Value::scalar_int(0)}, {rt::Value::scalar_int(1)}, {rt::Value::scalar_int(5)}}},
      {"broadcast", 0, {{}, {}}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.kernel);
    const ir::Function& fn = function(p, c.kernel);
    const cg::KernelSource ks = cg::codegen_kernel<cg::CpuTarget>(fn);
    LoadedKernel kernel(ks.source);
    for (std::uint64_t seed = 0; seed < c.scalars.size(); ++seed) {
      CAPTURE(seed);
      std::vector<rt::Value> expected = seeded_args(fn, seed + 1, c.rows, c.scalars[seed]);
      const std::vector<rt::Value> actual = run_both(*p, c.kernel, ks, kernel, expected);
      for (std::size_t k = 0; k < expected.size(); ++k) {
        CAPTURE(k);
        if (expected[k].is_shaped()) CHECK(bit_identical_buffers(expected[k], actual[k]));
      }
    }
  }
}

TEST_CASE("codegen cpu: a tensor-level kernel after convert-tensor-to-tile-ops runs like before") {
  const auto before = parse(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32], s: pl.Scalar[pl.FP32], o: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        x = pl.tensor.slice(a, [16, 64], [16, 0])
        y = pl.tensor.slice(b, [16, 64], [0, 0])
        c = pl.tensor.add(x, y)
        d = pl.tensor.mul(c, x)
        e = pl.tensor.maximum(d, s)
        f = pl.tensor.exp(e)
        h = pl.tensor.full([16, 64], dtype=pl.FP32, value=1.5)
        g = pl.tensor.sub(f, h)
        o1 = pl.tensor.assemble(o, g, [8, 0], atomic=pl.AtomicType.Add)
        return o1
)");
  pypto::transforms::PassManagerOptions options;
  options.instruments.push_back(pypto::transforms::verify_each_instrument());
  options.initial_properties = {pypto::transforms::Property::SSAForm,
                                pypto::transforms::Property::SplitIncoreOrch};
  const auto after =
      pypto::transforms::PassManager(
          pypto::transforms::standard_passes().pipeline("convert-tensor-to-tile-ops"),
          std::move(options))
          .run(*before);
  const ir::Function& fn = function(after, "k");
  const cg::KernelSource ks = cg::codegen_kernel<cg::CpuTarget>(fn);
  CHECK(ks.source.find("pk::Box::StoreAdd") != std::string::npos);
  LoadedKernel kernel(ks.source);
  std::vector<rt::Value> expected =
      seeded_args(function(before, "k"), 7, 0, {rt::Value::scalar_float(0.25f)});
  // the tensor-level original interpreted
  const std::vector<rt::Value> actual = run_both(*before, "k", ks, kernel, expected);
  CHECK(bit_identical_buffers(expected[3], actual[3]));
}

TEST_CASE("codegen: rank-3 tiles run on the CPU, the NPU target refuses them") {
  const std::string program = kernel_program(
      "k", "AIV", "a: pl.Tensor[[4, 8, 16], pl.FP32], o: pl.Out[pl.Tensor[[2, 8, 16], pl.FP32]]",
      "pl.Tensor[[2, 8, 16], pl.FP32]",
      "        x = pl.tile.load(a, [1, 0, 0], [2, 8, 16])\n"
      "        y = pl.tile.sqrt(pl.tile.abs(x))\n"
      "        o1 = pl.tile.store(y, [0, 0, 0], o)\n"
      "        return o1\n");
  const cg::CodegenError e = codegen_error<cg::NpuTarget>(program);
  CHECK(std::string(e.what()).find("rank-3 tile") != std::string::npos);

  const auto p = parse(program);
  const cg::KernelSource ks = cg::codegen_kernel<cg::CpuTarget>(function(p, "k"));
  LoadedKernel kernel(ks.source);
  std::vector<rt::Value> expected = seeded_args(function(p, "k"), 11, 0, {});
  const std::vector<rt::Value> actual = run_both(*p, "k", ks, kernel, expected);
  CHECK(bit_identical_buffers(expected[1], actual[1]));
}

TEST_CASE("codegen: tensor.create is a zero-filled kernel-local tensor on the CPU") {
  // Stored into in part, read back element by element and as a tile: the unstored elements
  // are the interpreter's zeros.
  const std::string program =
      kernel_program("k", "InCore",
                     "a: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 16], pl.FP32]], r: "
                     "pl.Out[pl.Tensor[[1, 2], pl.FP32]]",
                     "tuple[pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[1, 2], pl.FP32]]",
                     "        x = pl.tile.load(a, [0, 0], [4, 16])\n"
                     "        buf = pl.tensor.create([8, 16], dtype=pl.FP32)\n"
                     "        b1 = pl.tile.store(pl.tile.mul(x, x), [2, 0], buf)\n"
                     "        v = pl.tensor.read(b1, [3, 5])\n"
                     "        w = pl.tensor.read(b1, [7, 1])\n"
                     "        r1 = pl.tensor.write(r, [0, 0], v)\n"
                     "        r2 = pl.tensor.write(r1, [0, 1], w)\n"
                     "        y = pl.tile.load(b1, [0, 0], [8, 16])\n"
                     "        o1 = pl.tile.store(pl.tile.add(y, 1.0), [0, 0], o)\n"
                     "        return o1, r2\n");
  const auto p = parse(program);
  const cg::KernelSource ks = cg::codegen_kernel<cg::CpuTarget>(function(p, "k"));
  CHECK(ks.source.find("pypto::codegen::TensorArg c0a{") != std::string::npos);
  LoadedKernel kernel(ks.source);
  std::vector<rt::Value> expected = seeded_args(function(p, "k"), 5, 0, {});
  const std::vector<rt::Value> actual = run_both(*p, "k", ks, kernel, expected);
  CHECK(bit_identical_buffers(expected[1], actual[1]));
  CHECK(bit_identical_buffers(expected[2], actual[2]));
  // The NPU target has no kernel-local global memory: a CodegenError naming the op.
  const cg::CodegenError e = codegen_error<cg::NpuTarget>(program);
  CHECK(std::string(e.what()).find("op 'tensor.create' at 8:") != std::string::npos);
}

TEST_CASE("codegen: a kernel returning its tensor.create tensor is refused") {
  const cg::CodegenError e = codegen_error<cg::CpuTarget>(
      kernel_program("k", "InCore", "a: pl.Tensor[[64], pl.FP32]", "pl.Tensor[[64], pl.FP32]",
                     "        x = pl.tile.load(a, [0], [64])\n"
                     "        buf = pl.tensor.create([64], dtype=pl.FP32)\n"
                     "        b1 = pl.tile.store(x, [0], buf)\n"
                     "        return b1\n"));
  const std::string what = e.what();
  CAPTURE(what);
  CHECK(what.find("k:") != std::string::npos);
  CHECK(what.find("at 10:") != std::string::npos);  // the return
  CHECK(what.find("tensor.create at 8:") != std::string::npos);
}

TEST_CASE("codegen cpu: [1, cols] and rank-1 [1] second operands broadcast bit for bit") {
  const std::string program = kernel_program(
      "k", "AIV",
      "a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[1, 64], pl.FP32], u: pl.Tensor[[64], "
      "pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]], p: pl.Out[pl.Tensor[[64], pl.FP32]]",
      "tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[64], pl.FP32]]",
      "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
      "        r = pl.tile.load(b, [0, 0], [1, 64])\n"
      "        y = pl.tile.maximum(pl.tile.sub(x, 0.5), r)\n"
      "        o1 = pl.tile.store(y, [0, 0], o)\n"
      "        v = pl.tile.load(u, [0], [64])\n"
      "        w = pl.tile.load(u, [5], [1])\n"
      "        p1 = pl.tile.store(pl.tile.div(v, w), [0], p)\n"
      "        return o1, p1\n");
  const auto p = parse(program);
  const cg::KernelSource ks = cg::codegen_kernel<cg::CpuTarget>(function(p, "k"));
  LoadedKernel kernel(ks.source);
  for (std::uint64_t seed : {3u, 4u}) {
    std::vector<rt::Value> expected = seeded_args(function(p, "k"), seed, 0, {});
    const std::vector<rt::Value> actual = run_both(*p, "k", ks, kernel, expected);
    CHECK(bit_identical_buffers(expected[3], actual[3]));
    CHECK(bit_identical_buffers(expected[4], actual[4]));
  }
  CHECK_NOTHROW(cg::codegen_kernel<cg::NpuTarget>(function(p, "k")));
  // A [1, 1] tile into a [16, 64] value has no Spec view (one element for every row and
  // column): a CodegenError naming the op, not wrong code.
  const cg::CodegenError e = codegen_error<cg::CpuTarget>(
      kernel_program("k", "AIV", kTwoIn, kRet,
                     "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                     "        c = pl.tile.load(b, [0, 0], [1, 1])\n"
                     "        o1 = pl.tile.store(pl.tile.sub(x, c), [0, 0], o)\n"
                     "        return o1\n"));
  CHECK(std::string(e.what()).find("op 'tile.sub' at 9:") != std::string::npos);
  CHECK(std::string(e.what()).find("[1, 1] and [16, 64]") != std::string::npos);
}

// ---- FP16 / BF16 on the CPU: 16-bit storage, every op in binary32 rounded to the dtype -------

namespace {

/// A kernel of every op the CPU target computes on FP16 / BF16 tiles: the elementwise ops, row
/// reductions, casts FP32 <-> FP16 <-> BF16 both ways and from INT32, an atomic-add store into an
/// FP16 tensor.
const std::string kHalfKernel = kernel_program(
    "k", "AIV",
    "a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[16, 64], pl.FP16], f: pl.Tensor[[16, 64], "
    "pl.FP32], c: pl.Tensor[[16, 64], pl.BF16], o: pl.InOut[pl.Tensor[[16, 64], pl.FP16]], p: "
    "pl.Out[pl.Tensor[[16, 64], pl.BF16]], q: pl.Out[pl.Tensor[[16, 64], pl.FP32]], s: "
    "pl.Out[pl.Tensor[[16, 1], pl.FP16]], m: pl.Out[pl.Tensor[[16, 1], pl.BF16]], e: "
    "pl.Out[pl.Tensor[[16, 64], pl.FP16]], n: pl.Tensor[[16, 64], pl.INT32], nh: "
    "pl.Out[pl.Tensor[[16, 64], pl.FP16]], nb: pl.Out[pl.Tensor[[16, 64], pl.BF16]]",
    "tuple[pl.Tensor[[16, 64], pl.FP16], pl.Tensor[[16, 64], pl.BF16], pl.Tensor[[16, 64], "
    "pl.FP32], pl.Tensor[[16, 1], pl.FP16], pl.Tensor[[16, 1], pl.BF16], pl.Tensor[[16, 64], "
    "pl.FP16], pl.Tensor[[16, 64], pl.FP16], pl.Tensor[[16, 64], pl.BF16]]",
    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
    "        y = pl.tile.load(b, [0, 0], [16, 64])\n"
    "        z = pl.tile.div(pl.tile.sub(pl.tile.mul(pl.tile.add(x, y), x), y), y)\n"
    "        w = pl.tile.maximum(pl.tile.minimum(z, x), pl.tile.neg(pl.tile.abs(y)))\n"
    "        o1 = pl.tile.store(w, [0, 0], o, atomic=pl.AtomicType.Add)\n"
    "        g = pl.tile.cast(pl.tile.load(f, [0, 0], [16, 64]), target_type=pl.FP16)\n"
    "        u = pl.tile.load(c, [0, 0], [16, 64])\n"
    "        v = pl.tile.add(pl.tile.mul(u, pl.tile.cast(g, target_type=pl.BF16)), u)\n"
    "        p1 = pl.tile.store(v, [0, 0], p)\n"
    "        vh = pl.tile.cast(pl.tile.cast(v, target_type=pl.FP16), target_type=pl.FP32)\n"
    "        q1 = pl.tile.store(pl.tile.sub(pl.tile.cast(v, target_type=pl.FP32), vh), [0, 0], "
    "q)\n"
    "        s1 = pl.tile.store(pl.tile.row_sum(z, z), [0, 0], s)\n"
    "        m1 = pl.tile.store(pl.tile.row_max(u, u), [0, 0], m)\n"
    "        r = pl.tile.rsqrt(pl.tile.sqrt(pl.tile.exp(pl.tile.abs(g))))\n"
    "        e1 = pl.tile.store(r, [0, 0], e)\n"
    "        ni = pl.tile.load(n, [0, 0], [16, 64])\n"
    "        nh1 = pl.tile.store(pl.tile.cast(ni, target_type=pl.FP16), [0, 0], nh)\n"
    "        nb1 = pl.tile.store(pl.tile.cast(ni, target_type=pl.BF16), [0, 0], nb)\n"
    "        return o1, p1, q1, s1, m1, e1, nh1, nb1\n");

/// Exact bit equality of every element (NaNs included).
bool exactly_equal(const rt::Value& a, const rt::Value& b) { return rt::bit_identical(a, b); }

}  // namespace

TEST_CASE("codegen cpu: FP16 and BF16 kernels match the interpreter bit for bit") {
  const auto p = parse(kHalfKernel);
  const ir::Function& fn = function(p, "k");
  const cg::KernelSource ks = cg::codegen_kernel<cg::CpuTarget>(fn);
  // 16-bit storage, and no Spec: each op is its own loop, rounded to its dtype
  CHECK(ks.source.find("pk::fp16* const t0d") != std::string::npos);
  CHECK(ks.source.find("std::vector<pk::bf16>") != std::string::npos);
  CHECK(ks.source.find("pk::round_to<pk::fp16>(r)") != std::string::npos);
  CHECK(ks.source.find("pk::round_to<pk::bf16>(r)") != std::string::npos);
  LoadedKernel kernel(ks.source);
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    CAPTURE(seed);
    std::vector<rt::Value> expected = seeded_args(fn, seed, 0, {});
    // 2^24 + 2^16 + 1 is just over halfway between two BF16 values: rounded through binary32
    // first (to 2^24 + 2^16, the halfway point) it would round to even, down, instead of up
    expected[10].buffer->ints[0] = 16842753;
    expected[10].buffer->ints[1] = -16842753;
    const std::vector<rt::Value> actual = run_both(*p, "k", ks, kernel, expected);
    for (std::size_t k = 4; k < expected.size(); ++k) {
      CAPTURE(k);
      CHECK(bit_identical_buffers(expected[k], actual[k]));
    }
    CHECK(actual[12].buffer->f32[0] == 0x1.02p24f);
    CHECK(actual[12].buffer->f32[1] == -0x1.02p24f);
  }
  // The NPU target computes halves natively, a contract it does not state: a CodegenError.
  const cg::CodegenError e = codegen_error<cg::NpuTarget>(kHalfKernel);
  CAPTURE(std::string(e.what()));
  CHECK(std::string(e.what()).find("op 'tile.add' at 9:") != std::string::npos);
  CHECK(std::string(e.what()).find("on FP16 tiles is not supported") != std::string::npos);
}

TEST_CASE("codegen cpu: FP16 / BF16 edge values round like the interpreter, bit for bit") {
  // Per column j: a[j] op b[j] for op in +, *, and a[j] copied and cast to FP32 (FP16 kernel,
  // then the same in BF16). Hand-picked bit patterns: signed zeros, subnormals, the largest
  // finite value, sums that overflow (one exactly at the halfway point to 2^16), ties to even
  // both ways, NaNs (quiet, signaling with a payload, negative) and inf - inf.
  struct Pair {
    std::uint16_t a, b;
    std::uint16_t sum, product;  // expected FP16 results (0 = not checked by value)
  };
  const std::vector<Pair> fp16 = {
      {0x0000, 0x8000, 0x0000, 0x8000},  // +0 + -0 = +0, +0 * -0 = -0
      {0x8000, 0x8000, 0x8000, 0x0000},  // -0 + -0 = -0
      {0x0001, 0x0001, 0x0002, 0x0000},  // smallest subnormals; 2^-48 underflows to +0
      {0x03ff, 0x0001, 0x0400, 0x0000},  // largest subnormal + smallest: smallest normal
      {0x0001, 0x3800, 0x3800, 0x0000},  // 2^-24 * 0.5 = 2^-25: tie between 0 and 2^-24 -> 0
      {0x0003, 0x3800, 0x3800, 0x0002},  // 1.5 * 2^-24: tie -> 2 * 2^-24 (even)
      {0x7bff, 0x7bff, 0x7c00, 0x7c00},  // 65504 + 65504 overflows to inf
      {0x7bff, 0x4c00, 0x7c00, 0x7c00},  // 65504 + 16 = 65520: halfway to 2^16 -> inf (even)
      {0x7bff, 0x4b00, 0x7bff, 0x7c00},  // 65504 + 14 rounds back to 65504
      {0x3c00, 0x1000, 0x3c00, 0x1000},  // 1 + 2^-11: tie -> 1 (even)
      {0x3c01, 0x1000, 0x3c02, 0x1001},  // (1 + 2^-10) + 2^-11: tie -> 1 + 2^-9 (even)
      {0x7e00, 0x3c00, 0x7e00, 0x7e00},  // quiet NaN
      {0x7c01, 0x0000, 0x7e00, 0x7e00},  // a signaling NaN with a payload: the quiet NaN
      {0xfe00, 0x3c00, 0xfe00, 0xfe00},  // negative NaN keeps its sign
      {0x7c00, 0xfc00, 0x0000, 0xfc00},  // inf - inf: NaN (compared with the interpreter)
      {0x3555, 0x3555, 0x3955, 0x2f1c},  // 1/3-ish: inexact sum and product
  };
  const std::vector<Pair> bf16 = {
      {0x0000, 0x8000, 0x0000, 0x8000}, {0x8000, 0x8000, 0x8000, 0x0000},
      {0x0001, 0x0001, 0x0002, 0x0000},  // subnormals
      {0x007f, 0x0001, 0x0080, 0x0000},  // largest subnormal + smallest: smallest normal
      {0x0001, 0x3f00, 0x3f00, 0x0000},  // 2^-133 * 0.5: tie -> 0
      {0x0003, 0x3f00, 0x3f00, 0x0002},  // tie -> even
      {0x7f7f, 0x7f7f, 0x7f80, 0x7f80},  // largest finite + itself: inf
      {0x7f7f, 0x7370, 0x7f7f, 0x7f80},  // + 1.875 * 2^103: under half an ulp, stays
      {0x3f80, 0x3b80, 0x3f80, 0x3b80},  // 1 + 2^-8: tie -> 1 (even)
      {0x3f81, 0x3b80, 0x3f82, 0x3b81},  // (1 + 2^-7) + 2^-8: tie -> 1 + 2^-6
      {0x7fc0, 0x3f80, 0x7fc0, 0x7fc0},  // quiet NaN
      {0x7f81, 0x0000, 0x7fc0, 0x7fc0},  // signaling NaN with a payload: the quiet NaN
      {0xffc0, 0x3f80, 0xffc0, 0xffc0},  // negative NaN
      {0x7f80, 0xff80, 0x0000, 0xff80},  // inf - inf: NaN
      {0x3eab, 0x3eab, 0x3f2b, 0x3de4},  // inexact
      {0x4049, 0x3f80, 0x4084, 0x4049},  // 3.140625 + 1 = 4.140625: tie -> 4.125 (even)
  };
  for (const bool is_fp16 : {true, false}) {
    const std::string dt = is_fp16 ? "pl.FP16" : "pl.BF16";
    const auto dtype = is_fp16 ? pypto::core::DataType::FP16 : pypto::core::DataType::BF16;
    const auto format = is_fp16 ? cg::HalfFormat::FP16 : cg::HalfFormat::BF16;
    const std::vector<Pair>& pairs = is_fp16 ? fp16 : bf16;
    CAPTURE(dt);
    const std::string t = "pl.Tensor[[1, 16], " + dt + "]";
    const std::string program = kernel_program(
        "k", "AIV",
        "a: " + t + ", b: " + t + ", s: pl.Out[" + t + "], m: pl.Out[" + t + "], c: pl.Out[" + t +
            "], w: pl.Out[pl.Tensor[[1, 16], pl.FP32]]",
        "tuple[" + t + ", " + t + ", " + t + ", pl.Tensor[[1, 16], pl.FP32]]",
        "        x = pl.tile.load(a, [0, 0], [1, 16])\n"
        "        y = pl.tile.load(b, [0, 0], [1, 16])\n"
        "        s1 = pl.tile.store(pl.tile.add(x, y), [0, 0], s)\n"
        "        m1 = pl.tile.store(pl.tile.mul(x, y), [0, 0], m)\n"
        "        c1 = pl.tile.store(x, [0, 0], c)\n"
        "        w1 = pl.tile.store(pl.tile.cast(x, target_type=pl.FP32), [0, 0], w)\n"
        "        return s1, m1, c1, w1\n");
    const auto p = parse(program);
    const cg::KernelSource ks = cg::codegen_kernel<cg::CpuTarget>(function(p, "k"));
    LoadedKernel kernel(ks.source);
    std::vector<rt::Value> expected;
    for (int k = 0; k < 5; ++k) expected.push_back(rt::Value::zeros(dtype, {1, 16}));
    expected.push_back(rt::Value::zeros(pypto::core::DataType::FP32, {1, 16}));
    REQUIRE(pairs.size() == 16);
    for (std::size_t j = 0; j < pairs.size(); ++j) {
      expected[0].buffer->f32[j] = cg::half_to_float(pairs[j].a, format);
      expected[1].buffer->f32[j] = cg::half_to_float(pairs[j].b, format);
    }
    const std::vector<rt::Value> actual = run_both(*p, "k", ks, kernel, expected);
    for (std::size_t k = 2; k < expected.size(); ++k) {
      CAPTURE(k);
      CHECK(exactly_equal(expected[k], actual[k]));
    }
    // The values themselves (both sides agree; these say what they agree on).
    for (std::size_t j = 0; j < pairs.size(); ++j) {
      CAPTURE(j);
      const bool inf_minus_inf = j == 14 - (is_fp16 ? 0 : 1);
      if (!inf_minus_inf)
        CHECK(cg::float_to_half(actual[2].buffer->f32[j], format, true) == pairs[j].sum);
      else
        CHECK(actual[2].buffer->f32[j] != actual[2].buffer->f32[j]);  // NaN
      CHECK(cg::float_to_half(actual[3].buffer->f32[j], format, true) == pairs[j].product);
      // a copy keeps every pattern (a signaling NaN's payload too); a cast to FP32 reads the
      // value of the dtype, so a NaN becomes the quiet NaN of its sign
      CHECK(cg::float_to_half(actual[4].buffer->f32[j], format, true) == pairs[j].a);
      const float a = cg::half_to_float(pairs[j].a, format);
      if (a == a)
        CHECK(pypto::kernel::float_bits(actual[5].buffer->f32[j]) == pypto::kernel::float_bits(a));
      else
        CHECK(pypto::kernel::float_bits(actual[5].buffer->f32[j]) ==
              (pypto::kernel::float_bits(a) & 0x80000000u) + 0x7fc00000u);
    }
  }
}

TEST_CASE("codegen: emit_spec refuses FP16 / BF16 tiles (a Spec never rounds to them)") {
  pypto::kernel::Spec spec;
  spec.views = {pypto::kernel::View{pypto::kernel::ViewKind::Linear, 0}};
  spec.instrs = {pypto::kernel::Instr{pypto::kernel::Op::Neg, 0, pypto::kernel::input(0), {}, {}}};
  spec.num_regs = 1;
  const std::vector<cg::Dim> dims = {{"4", 4}, {"8", 8}};
  cg::SpecBinding b;
  b.inputs = {cg::TileRef{"v0", pypto::core::DataType::FP32, ir::MemorySpace::Vec, dims}};
  b.output = cg::TileRef{"v1", pypto::core::DataType::FP32, ir::MemorySpace::Vec, dims};
  b.rows = dims[0];
  b.cols = dims[1];
  CHECK(cg::emit_spec<cg::CpuTarget>(spec, b, "").find("r0 = -v0[") != std::string::npos);
  for (const auto dtype : {pypto::core::DataType::FP16, pypto::core::DataType::BF16}) {
    cg::SpecBinding half_in = b, half_out = b;
    half_in.inputs[0].dtype = dtype;
    half_out.output.dtype = dtype;
    for (const cg::SpecBinding* x : {&half_in, &half_out}) {
      CHECK_THROWS_WITH_AS(cg::emit_spec<cg::CpuTarget>(spec, *x, ""),
                           doctest::Contains("a Spec computes FP32 tiles only"), cg::SpecEmitError);
      CHECK_THROWS_AS(cg::emit_spec<cg::NpuTarget>(spec, *x, ""), cg::SpecEmitError);
    }
  }
}

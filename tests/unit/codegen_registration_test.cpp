// Kernel registrations (seed 001, "Code and registration identity"): IDs from (code, core type,
// tensor signature) in the final task order, and the KERNELS rows of kernel_config.py.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "dedup_test_support.hpp"
#include "pypto/codegen/kernel_config.hpp"
#include "pypto/codegen/kernel_registration.hpp"
#include "pypto/codegen/orchestration_codegen.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/transforms/pass_instruments.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"

namespace cg = pypto::codegen;
namespace ir = pypto::ir;
using cg::CoreType;
using cg::KernelRegistration;
using D = cg::RuntimeDirection;

namespace doctest {
template <>
struct StringMaker<KernelRegistration> {
  static String convert(const KernelRegistration& r) {
    std::string s = "{" + std::to_string(r.func_id) + ", " + r.code_name + ", " +
                    std::string(cg::core_type_name(r.core_type)) + ", [";
    for (D d : r.signature) s += std::string(cg::runtime_direction_name(d)) + " ";
    return (s + "]}").c_str();
  }
};
}  // namespace doctest

namespace {

ir::ProgramRef parse(std::string_view text) { return pypto::text::parse_program(text); }

constexpr std::string_view kHeader = R"(
import pypto.language as pl
@pl.program
class P:
)";

/// An InCore kernel `name(x, o: Out) -> o` over [64] FP32.
std::string kernel(std::string_view name) {
  std::string s = "\n    @pl.function(type=pl.FunctionType.InCore)\n    def ";
  s.append(name).append(
      "(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> "
      "pl.Tensor[[64], pl.FP32]:\n"
      "        t = pl.load(x, [0], [64])\n        pl.store(t, [0], o)\n        return o\n");
  return s;
}

/// The program P: an Orchestration `main(x, o1: Out, o2: Out)` with `body`, and `kernels`.
std::string program(std::string_view body, std::string_view kernels) {
  std::string s(kHeader);
  s.append(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
)");
  s.append(body).append(kernels);
  return s;
}

/// One code unit per kernel function, named after it.
cg::KernelCodeMap own_codes(std::initializer_list<std::string_view> aiv,
                            std::initializer_list<std::string_view> aic = {}) {
  cg::KernelCodeMap codes;
  for (auto k : aiv) codes.emplace(std::string(k), cg::KernelCode{std::string(k), CoreType::AIV});
  for (auto k : aic) codes.emplace(std::string(k), cg::KernelCode{std::string(k), CoreType::AIC});
  return codes;
}

std::vector<KernelRegistration> registrations(std::string_view text, const cg::KernelCodeMap& c) {
  return cg::assign_kernel_registrations(*parse(text), c);
}

}  // namespace

TEST_CASE("registration: equal (code, core type, signature) keys reuse one func_id") {
  const auto regs = registrations(program(R"(
        x1 = self.step(x, o1)
        x2 = self.step(x1, o2)
        return x2
)",
                                          kernel("step")),
                                  own_codes({"step"}));
  CHECK(regs == std::vector<KernelRegistration>{{0, "step", CoreType::AIV, {D::In, D::Out}}});
}

TEST_CASE("registration: one code with two signatures gets two func_ids (NoDep is INOUT)") {
  const auto regs = registrations(program(R"(
        x1 = self.step(x, o1)
        x2 = self.step(x1, o2, attrs={"arg_directions": [pl.adir.no_dep, pl.adir.output]})
        return x2
)",
                                          kernel("step")),
                                  own_codes({"step"}));
  CHECK(regs == std::vector<KernelRegistration>{{0, "step", CoreType::AIV, {D::In, D::Out}},
                                                {1, "step", CoreType::AIV, {D::InOut, D::Out}}});
}

TEST_CASE("registration: no_dep_args (arg_direction_overrides) and InOut/OutputExisting map") {
  const auto regs = registrations(program(R"(
        x1 = self.step(x, o1, attrs={"arg_direction_overrides": [0]})
        x2 = self.step(x1, o2, attrs={"arg_directions": [pl.adir.inout, pl.adir.output_existing]})
        return x2
)",
                                          kernel("step")),
                                  own_codes({"step"}));
  CHECK(regs == std::vector<KernelRegistration>{{0, "step", CoreType::AIV, {D::InOut, D::Out}}});
}

TEST_CASE("registration: scalars are omitted, tensors come first in the task order") {
  // k(i, a, out): the scalar is the first parameter, yet the signature holds only tensors.
  const auto regs = registrations(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i, (acc,) in pl.range(4, init_values=(out,)):
            acc1 = self.k(i, a, acc)
            acc2 = pl.yield_(acc1)
        return acc2

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, i: pl.Scalar[pl.INDEX], a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        t = pl.load(a, [i * 64, 0], [64, 128])
        pl.store(t, [i * 64, 0], out)
        return out
)",
                                  own_codes({"k"}));
  CHECK(regs == std::vector<KernelRegistration>{{0, "k", CoreType::AIV, {D::In, D::Out}}});
}

TEST_CASE("registration: IDs follow the task order (through loops), not function names") {
  const auto regs = registrations(program(R"(
        x1 = self.zeta(x, o1)
        for i, (acc,) in pl.range(2, init_values=(o2,)):
            acc1 = self.beta(x1, acc)
            acc2 = pl.yield_(acc1)
        x3 = self.alpha(acc2, o1)
        return x3
)",
                                          kernel("alpha") + kernel("beta") + kernel("zeta")),
                                  own_codes({"alpha", "beta", "zeta"}));
  REQUIRE(regs.size() == 3);
  CHECK(regs[0].code_name == "zeta");
  CHECK(regs[1].code_name == "beta");
  CHECK(regs[2].code_name == "alpha");
  CHECK(regs[2].func_id == 2);
}

TEST_CASE("registration: kernels sharing one code unit with one signature share one func_id") {
  // step and step_copy generate byte-identical sources: one code unit, one registration.
  const auto units = cg::share_identical_sources({{"step_copy", CoreType::AIV, "same\n"},
                                                  {"step", CoreType::AIV, "same\n"},
                                                  {"other", CoreType::AIV, "different\n"}});
  CHECK(units.codes.at("step_copy") == cg::KernelCode{"step", CoreType::AIV});
  CHECK(units.codes.at("other") == cg::KernelCode{"other", CoreType::AIV});
  CHECK(units.sources.size() == 2);
  const auto regs = registrations(program(R"(
        x1 = self.step(x, o1)
        x2 = self.step_copy(x1, o2)
        return x2
)",
                                          kernel("step") + kernel("step_copy")),
                                  units.codes);
  CHECK(regs == std::vector<KernelRegistration>{{0, "step", CoreType::AIV, {D::In, D::Out}}});
}

TEST_CASE("registration: the same source on two core types is two code units") {
  const auto units =
      cg::share_identical_sources({{"a", CoreType::AIC, "same\n"}, {"b", CoreType::AIV, "same\n"}});
  CHECK(units.codes.at("b").code_name == "b");
  CHECK_THROWS_AS(
      cg::share_identical_sources({{"a", CoreType::AIV, "x\n"}, {"a", CoreType::AIV, "y\n"}}),
      cg::CodegenError);
}

TEST_CASE("registration: a deduplicated program has fewer registrations and code units") {
  // Seed 001's example: step and step_copy are the same kernel. Codes here are one unit per
  // function (no source sharing), so only DeduplicateOutlinedKernels can merge them.
  const std::string before = program(R"(
        x1 = self.step(x, o1)
        x2 = self.step_copy(x1, o2)
        return x2
)",
                                     kernel("step") + kernel("step_copy") + kernel("unused_twin"));
  const auto codes = own_codes({"step", "step_copy", "unused_twin"});
  const std::map<std::string, std::string, std::less<>> sources{
      {"step", "// step\n"}, {"step_copy", "// step_copy\n"}, {"unused_twin", "// unused\n"}};

  const auto plain = cg::generate_orchestration(*parse(before), codes, sources, cg::kCpuRuntimeAbi);
  CHECK(plain.kernel_registrations ==
        std::vector<KernelRegistration>{{0, "step", CoreType::AIV, {D::In, D::Out}},
                                        {1, "step_copy", CoreType::AIV, {D::In, D::Out}}});
  CHECK(plain.kernel_sources.size() == 2);  // unused_twin launches nothing: no unit

  pypto::transforms::DedupLog log;
  const auto merged = dedup_test::dedup(before, log);
  const auto deduped = cg::generate_orchestration(*merged, codes, sources, cg::kCpuRuntimeAbi);
  CHECK(deduped.kernel_registrations ==
        std::vector<KernelRegistration>{{0, "step", CoreType::AIV, {D::In, D::Out}}});
  REQUIRE(deduped.kernel_sources.size() == 1);
  CHECK(deduped.kernel_sources[0] == cg::GeneratedFile{"kernels/aiv/step.cpp", "// step\n"});
  // Both executions stay: two tasks, one func_id.
  const std::string& orch = deduped.orchestration_sources.at(0).text;
  CHECK(orch.find("rt_submit_aiv_task(0, params_t0);") != std::string::npos);
  CHECK(orch.find("rt_submit_aiv_task(0, params_t1);") != std::string::npos);
}

TEST_CASE("registration: a Group registers its AIC member first, each with the task signature") {
  const auto regs = registrations(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        o1 = self.g(a, o)
        return o1

    @pl.function(type=pl.FunctionType.Group)
    def g(self, a: pl.Tensor[[64], pl.FP32], o: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        o1 = self.vec(a, o)
        o2 = self.cube(a, o)
        return o

    @pl.function(type=pl.FunctionType.AIV)
    def vec(self, x: pl.Tensor[[64], pl.FP32], o: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        pl.store(t, [0], o)
        return o

    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, x: pl.Tensor[[64], pl.FP32], o: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        pl.store(t, [0], o)
        return o
)",
                                  own_codes({"vec"}, {"cube"}));
  // The outer call passes o to the Group's InOut slot: INOUT, for both members.
  CHECK(regs == std::vector<KernelRegistration>{{0, "cube", CoreType::AIC, {D::In, D::InOut}},
                                                {1, "vec", CoreType::AIV, {D::In, D::InOut}}});
}

TEST_CASE("registration: errors name the orchestration function and line:column") {
  // A kernel without generated code.
  try {
    registrations(program("        x1 = self.step(x, o1)\n        return x1\n", kernel("step")),
                  own_codes({}));
    FAIL("expected a CodegenError");
  } catch (const cg::CodegenError& e) {
    CHECK(e.function() == "main");
    CHECK(std::string(e.what()).find("'step', which has no generated code") != std::string::npos);
    CHECK(std::string(e.what()).find("main: 8:14: launches") != std::string::npos);
  }
  // arg_directions that do not cover every argument.
  CHECK_THROWS_WITH_AS(
      registrations(program("        x1 = self.step(x, o1, attrs={\"arg_directions\": "
                            "[pl.adir.input]})\n        return x1\n",
                            kernel("step")),
                    own_codes({"step"})),
      doctest::Contains("need one tensor direction per argument"), cg::CodegenError);
}

TEST_CASE("kernel config: KERNELS has one row per registration, sorted by func_id") {
  const std::vector<KernelRegistration> regs{
      {2, "mm", CoreType::AIC, {D::In, D::In, D::InOut}},
      {0, "step", CoreType::AIV, {D::In, D::Out}},
      {1, "step", CoreType::AIV, {D::InOut, D::Out}},
      {3, "scalars_only", CoreType::AIV, {}},
  };
  CHECK(
      cg::kernel_config_text(cg::kNpuRuntimeAbi, "main", regs) ==
      "# Kernel and Orchestration Configuration\n"
      "\n"
      "from pathlib import Path\n"
      "\n"
      "from simpler.task_interface import ArgDirection as _D\n"
      "\n"
      "_ROOT_DIR = Path(__file__).parent\n"
      "\n"
      "RUNTIME_CONFIG = {\n"
      "\t\"runtime\": \"tensormap_and_ringbuffer\",\n"
      "\t\"aicpu_thread_num\": 4,\n"
      "}\n"
      "\n"
      "ORCHESTRATION = {\n"
      "\t\"source\": str(_ROOT_DIR / \"orchestration\" / \"main.cpp\"),\n"
      "\t\"function_name\": \"aicpu_orchestration_entry\",\n"
      "}\n"
      "\n"
      "KERNELS = [\n"
      "\t{\"func_id\": 0, \"name\": \"step\", \"source\": str(_ROOT_DIR / \"kernels\" / \"aiv\" / "
      "\"step.cpp\"), \"core_type\": \"aiv\", \"signature\": [_D.IN, _D.OUT]},\n"
      "\t{\"func_id\": 1, \"name\": \"step\", \"source\": str(_ROOT_DIR / \"kernels\" / \"aiv\" / "
      "\"step.cpp\"), \"core_type\": \"aiv\", \"signature\": [_D.INOUT, _D.OUT]},\n"
      "\t{\"func_id\": 2, \"name\": \"mm\", \"source\": str(_ROOT_DIR / \"kernels\" / \"aic\" / "
      "\"mm.cpp\"), \"core_type\": \"aic\", \"signature\": [_D.IN, _D.IN, _D.INOUT]},\n"
      "\t{\"func_id\": 3, \"name\": \"scalars_only\", \"source\": str(_ROOT_DIR / \"kernels\" / "
      "\"aiv\" / \"scalars_only.cpp\"), \"core_type\": \"aiv\"},\n"
      "]\n");
}

TEST_CASE("kernel config: no signature anywhere, no ArgDirection import, CPU runtime name") {
  const std::string text =
      cg::kernel_config_text(cg::kCpuRuntimeAbi, "orch", {{0, "k", CoreType::AIV, {}}});
  CHECK(text.find("ArgDirection") == std::string::npos);
  CHECK(text.find("\"runtime\": \"pypto_cpu_reference\"") != std::string::npos);
  CHECK(text.find("\"orchestration\" / \"orch.cpp\"") != std::string::npos);
  CHECK(text == cg::kernel_config_text(cg::kCpuRuntimeAbi, "orch", {{0, "k", CoreType::AIV, {}}}));
}

TEST_CASE("registration: several Orchestration functions are walked in name order") {
  // `b_main` launches step with [IN, OUT], `a_main` with [INOUT, OUT]: a_main's comes first.
  std::string text(kHeader);
  text.append(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def b_main(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        y = self.step(x, o)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def a_main(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        y = self.step(x, o, attrs={"arg_direction_overrides": [0]})
        return y
)");
  text.append(kernel("step"));
  const auto p = parse(text);
  const auto codes = own_codes({"step"});
  CHECK(cg::assign_kernel_registrations(*p, codes) ==
        std::vector<KernelRegistration>{{0, "step", CoreType::AIV, {D::InOut, D::Out}},
                                        {1, "step", CoreType::AIV, {D::In, D::Out}}});
  // One source per Orchestration function; kernel_config.py names the chosen entry.
  const std::map<std::string, std::string, std::less<>> sources{{"step", "// step\n"}};
  CHECK_THROWS_WITH_AS(cg::generate_orchestration(*p, codes, sources, cg::kNpuRuntimeAbi),
                       "codegen: P: has 2 Orchestration functions; name the entry one",
                       cg::CodegenError);
  const auto r = cg::generate_orchestration(*p, codes, sources, cg::kNpuRuntimeAbi, "b_main");
  REQUIRE(r.orchestration_sources.size() == 2);
  CHECK(r.orchestration_sources[0].path == "orchestration/a_main.cpp");
  CHECK(r.orchestration_sources[1].path == "orchestration/b_main.cpp");
  CHECK(r.orchestration_sources[1].text.find("rt_submit_aiv_task(1, params_t0);") !=
        std::string::npos);
  CHECK(r.kernel_config.text.find("\"orchestration\" / \"b_main.cpp\"") != std::string::npos);
  CHECK(r.kernel_sources.size() == 1);
}

TEST_CASE("registration: the result from shared code units names each unit's source once") {
  // Kernel codegen gave step and step_copy byte-identical sources: one unit, one KERNELS row.
  const auto units = cg::share_identical_sources(
      {{"step", CoreType::AIV, "// add one\n"}, {"step_copy", CoreType::AIV, "// add one\n"}});
  const auto r = cg::generate_orchestration(*parse(program(R"(
        x1 = self.step(x, o1)
        x2 = self.step_copy(x1, o2)
        return x2
)",
                                                           kernel("step") + kernel("step_copy"))),
                                            units, cg::kNpuRuntimeAbi);
  CHECK(r.kernel_registrations ==
        std::vector<KernelRegistration>{{0, "step", CoreType::AIV, {D::In, D::Out}}});
  CHECK(r.kernel_sources ==
        std::vector<cg::GeneratedFile>{{"kernels/aiv/step.cpp", "// add one\n"}});
  CHECK(r.kernel_config.text.find("\"func_id\": 1") == std::string::npos);
}

TEST_CASE("registration: the real pipeline up to dedup halves the registrations of seed 001") {
  // Seed 001's example before outlining: two identical InCore scopes.
  const auto source = parse(R"(
import pypto.language as pl
@pl.program
class Seed:
    @pl.function
    def main(self, x0: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x0, [0], [64])
            u = pl.add(t, 1.0)
            x1 = pl.store(u, [0], o1)
        with pl.at(level=pl.Level.CORE_GROUP):
            t2 = pl.load(x1, [0], [64])
            u2 = pl.add(t2, 1.0)
            x2 = pl.store(u2, [0], o2)
        return x2
)");
  auto run = [&](std::string_view pipeline) {
    pypto::transforms::PassManagerOptions options;
    options.instruments.push_back(pypto::transforms::verify_each_instrument());
    return pypto::transforms::PassManager(pypto::transforms::standard_passes().pipeline(pipeline),
                                          std::move(options))
        .run(*source);
  };
  // One code unit per kernel function (what a generator without source sharing gives).
  auto codes_of = [](const ir::Program& p) {
    cg::KernelCodeMap codes;
    for (const auto& [name, fn] : p.functions)
      if (ir::is_incore_type(fn->func_type))
        codes.emplace(name, cg::KernelCode{name, CoreType::AIV});
    return codes;
  };
  const auto outlined = run("convert-to-ssa,outline-incore-scopes,outline-cluster-scopes");
  const auto deduped = run(
      "convert-to-ssa,outline-incore-scopes,outline-cluster-scopes,deduplicate-outlined-kernels");
  const auto before = cg::assign_kernel_registrations(*outlined, codes_of(*outlined));
  const auto after = cg::assign_kernel_registrations(*deduped, codes_of(*deduped));
  CHECK(before.size() == 2);
  REQUIRE(after.size() == 1);
  CHECK(after[0].signature == std::vector<D>{D::In, D::Out});
  CHECK(codes_of(*deduped).size() == 1);
}

// Orchestration codegen (pypto.md section 6): the C++ a task runtime runs, golden-tested from
// program text; and the errors for what it cannot express.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "pypto/codegen/orchestration_codegen.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/transforms/pass_instruments.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"

namespace cg = pypto::codegen;
namespace ir = pypto::ir;
namespace tf = pypto::transforms;
using cg::CoreType;

namespace {

ir::ProgramRef parse(std::string_view text) { return pypto::text::parse_program(text); }

/// The orchestration source of `main` with registrations assigned for the same program.
std::string orchestration(std::string_view text, const cg::KernelCodeMap& codes,
                          const cg::RuntimeAbi& abi = cg::kNpuRuntimeAbi) {
  const auto p = parse(text);
  const auto regs = cg::assign_kernel_registrations(*p, codes);
  return cg::generate_orchestration_source(*p, *p->find("main"), codes, regs, abi);
}

/// The CodegenError message of generating `main`, or "" when it succeeds.
std::string error_of(std::string_view text, const cg::KernelCodeMap& codes) {
  try {
    orchestration(text, codes);
  } catch (const cg::CodegenError& e) {
    return e.what();
  }
  return {};
}

// A loop carrying a buffer, two Submits (the second NoDep on one argument and waiting for the
// first), an intermediate tensor, a scalar argument and a Group of an AIC and an AIV kernel.
constexpr std::string_view kDemo = R"(
import pypto.language as pl
@pl.program
class Demo:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.tensor.create([64, 64], dtype=pl.FP32)
        r0, t0 = pl.submit(self.fill, a, t)
        r1, t1 = pl.submit(self.fill, r0, o, deps=[t0], attrs={"arg_directions": [pl.adir.no_dep, pl.adir.output]})
        for i, (acc,) in pl.range(n, init_values=(r1,)):
            acc2 = self.scale(a, i * 16, acc)
            acc3 = pl.yield_(acc2)
        o2 = self.mixed(a, acc3)
        return o2

    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [64, 64])
        pl.store(t, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[64, 64], pl.FP32], k: pl.Scalar[pl.INDEX], o: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [64, 64])
        pl.store(t, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Group)
    def mixed(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        o1 = self.mm(a, o)
        o2 = self.post(a, o)
        return o

    @pl.function(type=pl.FunctionType.AIC)
    def mm(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [64, 64])
        pl.store(t, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.AIV)
    def post(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [64, 64])
        pl.store(t, [0, 0], o)
        return o
)";

const cg::KernelCodeMap kDemoCodes{{"fill", {"fill", CoreType::AIV}},
                                   {"scale", {"scale", CoreType::AIV}},
                                   {"mm", {"mm", CoreType::AIC}},
                                   {"post", {"post", CoreType::AIV}}};

// Scalar and buffer loop carries through an if, floor division, and a Spmd wrapper launched
// with a dynamic core count and sync_start.
constexpr std::string_view kFlow = R"(
import pypto.language as pl
@pl.program
class Flow:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        for i, (acc, s) in pl.range(0, n, 2, init_values=(o, 0)):
            if i < 4:
                r = self.k(a, s // 3, acc)
                y1 = pl.yield_(r)
            else:
                r2 = self.k(a, s % 5, acc)
                y1 = pl.yield_(r2)
            acc2, s2 = pl.yield_(y1, s + i)
        o3 = self.rows(a, acc2, attrs={"core_num": n * 2, "sync_start": True})
        return o3

    @pl.function(type=pl.FunctionType.Spmd)
    def rows(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        o1 = self.k(a, 7, o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], j: pl.Scalar[pl.INDEX], o: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        pl.store(t, [0], o)
        return o
)";

/// A one-kernel program: `main` runs `body`; `k(x, o: InOut)` is an AIV kernel.
std::string one_kernel(std::string_view body) {
  std::string s = R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
)";
  s.append(body);
  s.append(R"(
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], o: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        pl.store(t, [0], o)
        return o
)");
  return s;
}

const cg::KernelCodeMap kK{{"k", {"k", CoreType::AIV}}};

}  // namespace

TEST_CASE("orchestration: golden for a loop, Submits with deps and NoDep, and a Group") {
  CHECK(
      orchestration(kDemo, kDemoCodes) ==
      R"golden(// main: orchestration for the tensormap_and_ringbuffer runtime, generated by pypto.
#include <stddef.h>
#include <stdint.h>

#include "pto_orchestration_api.h"

extern "C" {

__attribute__((visibility("default")))
PTO2OrchestrationConfig aicpu_orchestration_config(const ChipTaskArgs& orch_args) {
    (void)orch_args;
    return PTO2OrchestrationConfig{
        .expected_arg_count = 3,
    };
}

__attribute__((visibility("default")))
void aicpu_orchestration_entry(const ChipTaskArgs& orch_args) {
    const ChipTensor& ext_a = orch_args.tensor(0).ref();
    int64_t n = from_u64<int64_t>(orch_args.scalar(0));
    const ChipTensor& ext_o = orch_args.tensor(1).ref();

    PTO2_SCOPE() {
        uint32_t t_ci_shapes[2] = {64, 64};
        TensorCreateInfo t_ci(t_ci_shapes, 2, DataType::FP32);
        TaskOutputTensors alloc_0 = alloc_tensors(t_ci);
        const ChipTensor& t = alloc_0.get_ref(0);

        // Task 0: fill
        CoreTaskArgs params_t0;
        params_t0.add_input(ext_a);
        params_t0.add_output(t);
        TaskOutputTensors task_0_outs = rt_submit_aiv_task(0, params_t0);
        PTO2TaskId t0 = task_0_outs.task_id();

        // Task 1: fill
        CoreTaskArgs params_t1;
        params_t1.add_no_dep(t);
        params_t1.add_output(ext_o);
        PTO2TaskId params_t1_deps[1];
        uint32_t params_t1_deps_count = 0;
        if (t0.is_valid()) params_t1_deps[params_t1_deps_count++] = t0;
        params_t1.set_dependencies(params_t1_deps, params_t1_deps_count);
        rt_submit_aiv_task(1, params_t1);
        for (int64_t i = 0; i < n; i += 1) {
            // Task 2: scale
            CoreTaskArgs params_t2;
            params_t2.add_input(ext_a);
            params_t2.add_inout(ext_o);
            params_t2.add_scalar(to_u64(i * 16));
            rt_submit_aiv_task(2, params_t2);
        }

        // Task 3: mixed (mm, post)
        CoreTaskArgs params_t3;
        params_t3.add_input(ext_a);
        params_t3.add_inout(ext_o);
        MixedKernels mixed_3 = {3, 4, INVALID_KERNEL_ID};
        rt_submit_task(mixed_3, params_t3);
    }
}

}  // extern "C"
)golden");
}

TEST_CASE("orchestration: golden for scalar carries, an if, floor division and a Spmd launch") {
  CHECK(
      orchestration(kFlow, kK) ==
      R"golden(// main: orchestration for the tensormap_and_ringbuffer runtime, generated by pypto.
#include <stddef.h>
#include <stdint.h>

#include "pto_orchestration_api.h"

// Python floor division and modulo of the DSL's integer scalars.
static inline int64_t pypto_floordiv(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t pypto_floormod(int64_t a, int64_t b) {
    const int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

extern "C" {

__attribute__((visibility("default")))
PTO2OrchestrationConfig aicpu_orchestration_config(const ChipTaskArgs& orch_args) {
    (void)orch_args;
    return PTO2OrchestrationConfig{
        .expected_arg_count = 3,
    };
}

__attribute__((visibility("default")))
void aicpu_orchestration_entry(const ChipTaskArgs& orch_args) {
    const ChipTensor& ext_a = orch_args.tensor(0).ref();
    int64_t n = from_u64<int64_t>(orch_args.scalar(0));
    const ChipTensor& ext_o = orch_args.tensor(1).ref();

    PTO2_SCOPE() {
        int64_t s = 0;
        for (int64_t i = 0; i < n; i += 2) {
            if (i < 4) {
                // Task 0: k
                CoreTaskArgs params_t0;
                params_t0.add_input(ext_a);
                params_t0.add_inout(ext_o);
                params_t0.add_scalar(to_u64(pypto_floordiv(s, 3)));
                rt_submit_aiv_task(0, params_t0);
            } else {
                // Task 1: k
                CoreTaskArgs params_t1;
                params_t1.add_input(ext_a);
                params_t1.add_inout(ext_o);
                params_t1.add_scalar(to_u64(pypto_floormod(s, 5)));
                rt_submit_aiv_task(0, params_t1);
            }
            s = s + i;
        }

        // Task 2: rows (k)
        CoreTaskArgs params_t2;
        params_t2.add_input(ext_a);
        params_t2.add_output(ext_o);
        params_t2.add_scalar(to_u64(7));
        params_t2.launch_spec.set_block_num(n * 2);
        params_t2.launch_spec.set_require_sync_start(true);
        rt_submit_aiv_task(1, params_t2);
    }
}

}  // extern "C"
)golden");
}

TEST_CASE("orchestration: the NoDep argument prints add_no_dep, its registration says INOUT") {
  const auto p = parse(kDemo);
  const auto regs = cg::assign_kernel_registrations(*p, kDemoCodes);
  REQUIRE(regs.size() == 5);
  CHECK(regs[1] ==
        cg::KernelRegistration{
            1, "fill", CoreType::AIV, {cg::RuntimeDirection::InOut, cg::RuntimeDirection::Out}});
  const std::string text = orchestration(kDemo, kDemoCodes);
  CHECK(text.find("params_t1.add_no_dep(t);\n") != std::string::npos);
  CHECK(text.find("rt_submit_aiv_task(1, params_t1);\n") != std::string::npos);
}

TEST_CASE("orchestration: a Submit's omitted output is allocated by the runtime") {
  const std::string text = orchestration(R"(
import pypto.language as pl
@pl.program
class Alloc:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], flag: pl.Scalar[pl.BOOL], w: pl.Scalar[pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        r, t = pl.submit(self.k, a, w, core_num=4, predicate=flag, allow_early_resolve=True)
        r2, t2 = pl.submit(self.k, r, 1.5, deps=[t])
        return r2

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], w: pl.Scalar[pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        pl.store(t, [0], o)
        return o
)",
                                         {{"k", {"k", CoreType::AIC}}});
  CHECK(text.find(R"(
    bool flag = from_u64<bool>(orch_args.scalar(0));
    float w = from_u64<float>(orch_args.scalar(1));
)") != std::string::npos);
  CHECK(text.find(R"(
        // Task 0: k
        CoreTaskArgs params_t0;
        uint32_t params_t0_out0_shapes[1] = {64};
        TensorCreateInfo params_t0_out0(params_t0_out0_shapes, 1, DataType::FP32);
        params_t0.add_input(ext_a);
        params_t0.add_output(params_t0_out0);
        params_t0.add_scalar(to_u64(w));
        params_t0.launch_spec.set_block_num(4);
        params_t0.set_allow_early_resolve(true);
        params_t0.set_predicate(flag);
        TaskOutputTensors task_0_outs = rt_submit_aic_task(0, params_t0);
        PTO2TaskId t = task_0_outs.task_id();
)") != std::string::npos);
  // The allocated output feeds the next task; the constant scalar is a float literal.
  CHECK(text.find("params_t1.add_input(task_0_outs.get_ref(0));\n") != std::string::npos);
  CHECK(text.find("params_t1.add_scalar(to_u64(1.5f));\n") != std::string::npos);
}

TEST_CASE("orchestration: the real pipeline's output, for the CPU runtime vocabulary") {
  const auto before = parse(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function
    def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [i * 64, 0], [64, 128])
                pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
        return out
)");
  tf::PassManagerOptions options;
  options.instruments.push_back(tf::verify_each_instrument());
  const auto after =
      tf::PassManager(tf::standard_passes().pipeline(
                          "convert-to-ssa,outline-incore-scopes,outline-cluster-scopes,"
                          "deduplicate-outlined-kernels,convert-tensor-to-tile-ops"),
                      std::move(options))
          .run(*before);
  const cg::KernelCodeMap codes{{"k_incore_0", {"k_incore_0", CoreType::AIV}}};
  const auto result = cg::generate_orchestration(*after, codes, {{"k_incore_0", "// k_incore_0\n"}},
                                                 cg::kCpuRuntimeAbi);
  REQUIRE(result.orchestration_sources.size() == 1);
  CHECK(result.orchestration_sources[0].path == "orchestration/k.cpp");
  const std::string& text = result.orchestration_sources[0].text;
  CHECK(text.rfind("// k: orchestration for the pypto_cpu_reference runtime", 0) == 0);
  CHECK(text.find(R"(
    PTO2_SCOPE() {
        for (int64_t i = 0; i < 4; i += 1) {
            // Task 0: k_incore_0
            CoreTaskArgs params_t0;
            params_t0.add_input(ext_a);
            params_t0.add_output(ext_out);
            params_t0.add_scalar(to_u64(i));
            rt_submit_aiv_task(0, params_t0);
        }
    }
)") != std::string::npos);
  CHECK(result.kernel_sources ==
        std::vector<cg::GeneratedFile>{{"kernels/aiv/k_incore_0.cpp", "// k_incore_0\n"}});
  CHECK(result.kernel_config.path == "kernel_config.py");
  CHECK(result.kernel_config.text.find("\"orchestration\" / \"k.cpp\"") != std::string::npos);
  // The entry's tensors by direction (a: In, out: Out), in orch_args order.
  CHECK(result.kernel_config.text.find("\t\"function_name\": \"aicpu_orchestration_entry\",\n"
                                       "\t\"signature\": [_D.IN, _D.OUT],\n}") !=
        std::string::npos);
  // Byte-deterministic: a second run gives the same files.
  const auto again = cg::generate_orchestration(*after, codes, {{"k_incore_0", "// k_incore_0\n"}},
                                                cg::kCpuRuntimeAbi);
  CHECK(again.orchestration_sources == result.orchestration_sources);
  CHECK(again.kernel_config == result.kernel_config);
}

TEST_CASE("orchestration: a manual runtime scope, a scalar if result and a tensor.dim") {
  const std::string text = orchestration(one_kernel(R"(
        d = pl.tensor.dim(a, 0)
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            o1 = self.k(a, o)
        if n > d:
            m = pl.yield_(n)
        else:
            m = pl.yield_(d)
        return o1
)"),
                                         kK);
  CHECK(text.find(R"(
        int64_t d = (int64_t)ext_a.shapes[0];
        PTO2_SCOPE(PTO2ScopeMode::MANUAL) {
            // Task 0: k
)") != std::string::npos);
  CHECK(text.find(R"(
        int64_t m{};
        if (n > d) {
            m = n;
        } else {
            m = d;
        }
)") != std::string::npos);
}

TEST_CASE("orchestration: tensor elements read and written through the runtime") {
  const std::string text = orchestration(one_kernel(R"(
        v = pl.tensor.read(a, [n - 1])
        pl.tensor.write(o, [0], v * 2.0)
        o1 = self.k(a, o)
        return o1
)"),
                                         kK);
  CHECK(text.find(R"(
        float v = pypto_read<float>(ext_a, n - 1);
        pypto_write<float>(ext_o, static_cast<float>(v * 2.0f), 0);
)") != std::string::npos);
  // The helpers go through the runtime's get_tensor_data / set_tensor_data (which wait for the
  // element's producer), written only into a source that uses them.
  CHECK(text.find("return get_tensor_data<T>(t, sizeof...(I), sizeof...(I) ? at : nullptr);") !=
        std::string::npos);
  CHECK(text.find("set_tensor_data<T>(t, sizeof...(I), sizeof...(I) ? at : nullptr, value);") !=
        std::string::npos);
  CHECK(orchestration(kFlow, kK).find("pypto_read") == std::string::npos);
}

// Task ids kept in a pl.Array across a loop (a whole-array fence), None as a dependency and a
// barrier task over them, as upstream's phase-fence programs write them.
constexpr std::string_view kFence = R"(
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            ids = pl.array.create(2, dtype=pl.TASK_ID)
            for i, (acc, ids_c) in pl.range(n, init_values=(o, ids)):
                r, tid = pl.submit(self.k, a, acc, deps=[ids_c])
                ids2 = pl.array.update_element(ids_c, i % 2, tid)
                acc2, ids3 = pl.yield_(r, ids2)
            none = pl.system.task_invalid()
            fence = pl.system.task_dummy(deps=[ids3, none])
            first = pl.array.get_element(ids3, 0)
            r2, t2 = pl.submit(self.k, a, acc2, deps=[fence, first])
        return r2
)";

// Views of a tensor, as the runtime's tensor makes them: a reshape, a transpose, and a slice of
// lower rank than its input (its box padded with a leading 1, then reshaped).
constexpr std::string_view kViews = R"(
        m = pl.reshape(a, [1, 64])
        t = pl.transpose(m, 0, -1)
        u = pl.transpose(t, 1, 0)
        s = pl.slice(u, [64], [0, n - 64])
        o1 = self.k(s, o)
        return o1
)";

TEST_CASE("orchestration: an orchestration slice, reshape or transpose is a view, not a copy") {
  const std::string text = orchestration(one_kernel(kViews), kK);
  CHECK(text.find(R"(
        uint32_t m_shapes[2] = {1, 64};
        const ChipTensor m = ext_a.reshape(m_shapes, 2);
        const ChipTensor t = m.transpose(0, 1);
        const ChipTensor u = t.transpose(1, 0);
        uint32_t s_shapes[2] = {1, 64};
        uint32_t s_offsets[2] = {0, static_cast<uint32_t>((n - 64))};
        uint32_t s_dims[1] = {64};
        const ChipTensor s = u.view(s_shapes, s_offsets).reshape(s_dims, 1);
)") != std::string::npos);
  CHECK(text.find("params_t0.add_input(s);") != std::string::npos);
  // A slice with a valid_shape of its own has no view form: an error at its line:column.
  const std::string narrow = error_of(one_kernel(R"(
        s = pl.slice(a, [64], [0], valid_shape=[n])
        o1 = self.k(s, o)
        return o1
)"),
                                      kK);
  CHECK(narrow.find("8:13: ") != std::string::npos);
  CHECK(narrow.find("a slice with a valid_shape has no view form") != std::string::npos);
}

TEST_CASE("orchestration: task id arrays, the invalid id and a barrier task") {
  const std::string text = orchestration(one_kernel(kFence), kK);
  INFO(text);
  // The array is a value: created full of invalid ids, copied into the carry, updated by copy.
  CHECK(text.find(R"(
            pypto_array<PTO2TaskId, 2> ids = pypto_array_filled<pypto_array<PTO2TaskId, 2>>(PTO2TaskId::invalid());
            pypto_array<PTO2TaskId, 2> ids_c = ids;
            for (int64_t i = 0; i < n; i += 1) {
)") != std::string::npos);
  // A dependency on an array is one on each valid id in it.
  CHECK(text.find(R"(
                PTO2TaskId params_t0_deps[2];
                uint32_t params_t0_deps_count = 0;
                for (int k = 0; k < 2; ++k) {
                    if (ids_c.at[k].is_valid()) params_t0_deps[params_t0_deps_count++] = ids_c.at[k];
                }
                params_t0.set_dependencies(params_t0_deps, params_t0_deps_count);
)") != std::string::npos);
  CHECK(text.find(R"(
                pypto_array<PTO2TaskId, 2> ids2 = pypto_array_updated(ids_c, pypto_floormod(i, 2), tid);
)") != std::string::npos);
  // The barrier waits for every valid id and is not submitted when there is none.
  CHECK(text.find(R"(
            PTO2TaskId none = PTO2TaskId::invalid();

            // A barrier: a task that does no work, after its dependencies
            CoreTaskArgs params_barrier;
            PTO2TaskId params_barrier_deps[3];
            uint32_t params_barrier_deps_count = 0;
            for (int k_1 = 0; k_1 < 2; ++k_1) {
                if (ids_c.at[k_1].is_valid()) params_barrier_deps[params_barrier_deps_count++] = ids_c.at[k_1];
            }
            if (none.is_valid()) params_barrier_deps[params_barrier_deps_count++] = none;
            params_barrier.set_dependencies(params_barrier_deps, params_barrier_deps_count);
            PTO2TaskId fence = params_barrier_deps_count > 0 ? rt_submit_dummy_task(params_barrier).task_id() : PTO2TaskId::invalid();
            PTO2TaskId first = ids_c.at[0];
)") != std::string::npos);
  // The helpers go only into a source that uses arrays.
  CHECK(text.find("struct pypto_array {") != std::string::npos);
  CHECK(orchestration(kFlow, kK).find("pypto_array") == std::string::npos);
}

/// A loop carry that is `o` at first and `a` after each iteration, and an if result that is `a`
/// in one arm and `o` in the other.
constexpr std::string_view kSwitching = R"(
        for i, (acc,) in pl.range(n, init_values=(o,)):
            acc2 = self.k(acc, a)
            acc3 = pl.yield_(acc2)
        if n < 2:
            r = self.k(acc3, a)
            r1 = pl.yield_(r)
        else:
            s = self.k(acc3, o)
            r1 = pl.yield_(s)
        o1 = self.k(r1, o)
        return o1
)";

TEST_CASE("orchestration: a carry whose buffer switches is a variable holding the descriptor") {
  const std::string text = orchestration(one_kernel(kSwitching), kK);
  INFO(text);
  // The loop carry starts as o's descriptor and takes a's at the yield; the data never moves.
  CHECK(text.find("    ChipTensor acc = ext_o;\n        for (int64_t i = 0; i < n; i += 1) {") !=
        std::string::npos);
  CHECK(text.find("params_t0.add_input(acc);") != std::string::npos);
  CHECK(text.find("params_t0.add_inout(ext_a);") != std::string::npos);
  CHECK(text.find("            acc = ext_a;\n        }") != std::string::npos);
  // The if result is declared empty and set by each arm.
  CHECK(text.find("        ChipTensor r1{};\n        if (n < 2) {") != std::string::npos);
  CHECK(text.find("            r1 = ext_a;\n        } else {") != std::string::npos);
  CHECK(text.find("            r1 = ext_o;\n        }") != std::string::npos);
  CHECK(text.find("params_t3.add_input(r1);") != std::string::npos);
  // A carry that keeps its buffer still aliases it (no variable of its own).
  CHECK(orchestration(kFlow, kK).find("ChipTensor ") == std::string::npos);
}

TEST_CASE("orchestration: errors name the function and line:column") {
  SUBCASE("a tensor op outside a kernel") {
    CHECK(error_of(one_kernel("        y = pl.add(a, 1.0)\n        return y\n"), kK) ==
          "codegen: main: 7:9: 'y' is computed by the op 'tensor.adds', which belongs inside a "
          "kernel");
  }
  SUBCASE("an InCore scope that was not outlined") {
    CHECK(error_of(one_kernel("        with pl.at(level=pl.Level.CORE_GROUP):\n"
                              "            o1 = self.k(a, o)\n        return o1\n"),
                   kK)
              .find("main: 7:9: cannot lower a statement of kind InCoreScopeStmt") !=
          std::string::npos);
  }
  SUBCASE("a task id declared inside a runtime scope, used after it") {
    CHECK(error_of(one_kernel(R"(
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            r0, t0 = pl.submit(self.k, a, o)
        r1, t1 = pl.submit(self.k, a, r0, deps=[t0])
        return r1
)"),
                   kK)
              .find("main: 10:18: uses 't0', which is defined inside a runtime scope and used "
                    "after it") != std::string::npos);
    // Buffers are not declared: they flow out of the scope.
    CHECK(error_of(one_kernel(R"(
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            r0, t0 = pl.submit(self.k, a, o)
        r1 = self.k(a, r0)
        return r1
)"),
                   kK) == "");
  }
  SUBCASE("a kernel result that is not one of its parameters") {
    const std::string e =
        error_of(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        y = self.fresh(a)
        o1 = self.k(y, o)
        return o1

    @pl.function(type=pl.FunctionType.InCore)
    def fresh(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        b = pl.tensor.create([64], dtype=pl.FP32)
        t = pl.load(x, [0], [64])
        b2 = pl.store(t, [0], b)
        return b2

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], o: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        pl.store(t, [0], o)
        return o
)",
                 {{"fresh", {"fresh", CoreType::AIV}}, {"k", {"k", CoreType::AIV}}});
    CHECK(e.find("main: 8:14: uses 'y', the result of 'fresh', which is not one of its "
                 "parameters") != std::string::npos);
  }
  SUBCASE("Group members that take different arguments") {
    // outline_cluster.expected.pl: produce(a, o) and consume(o1) cannot share one task payload.
    const std::string e = error_of(
        R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        o1 = self.main_cluster_0(a, o)
        return o1

    @pl.function(type=pl.FunctionType.Group)
    def main_cluster_0(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        o1 = self.produce(a, o)
        o2 = self.consume(o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def produce(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64])
        pl.store(t, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def consume(self, o: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        u = pl.load(o, [0, 0], [64, 64])
        pl.store(pl.add(u, u), [0, 0], o)
        return o
)",
        {{"produce", {"produce", CoreType::AIV}}, {"consume", {"consume", CoreType::AIV}}});
    CHECK(e.find("main: 13:14: the members of the Group 'main_cluster_0' take different "
                 "arguments ('produce' and 'consume')") != std::string::npos);
  }
  SUBCASE("an Opaque callee") {
    const std::string e = error_of(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = self.helper(a)
        return y

    @pl.function
    def helper(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x
)",
                                   {});
    CHECK(e.find("main: 7:13: launches 'helper' of function type Opaque") != std::string::npos);
  }
}

TEST_CASE("orchestration: the result needs exactly one named entry") {
  const auto p = parse(kDemo);
  CHECK_THROWS_WITH_AS(cg::generate_orchestration(*p, kDemoCodes, {}, cg::kNpuRuntimeAbi, "nope"),
                       "codegen: Demo: has no Orchestration function 'nope'", cg::CodegenError);
  // A registered code unit needs its source text.
  CHECK_THROWS_WITH_AS(cg::generate_orchestration(*p, kDemoCodes, {}, cg::kNpuRuntimeAbi),
                       doctest::Contains("is a registered code unit without a source"),
                       cg::CodegenError);
}

TEST_CASE("orchestration: a while loop tests its condition on the carries each iteration") {
  const std::string text = orchestration(one_kernel(R"(
        for (c, acc) in pl.while_(init_values=(0, o)):
            pl.cond(c < n)
            acc1 = self.k(a, acc)
            c_rv, acc_rv = pl.yield_(c + 1, acc1)
        return acc_rv
)"),
                                         kK);
  CHECK(text.find(R"(
        int64_t c = 0;
        while (true) {
            if (!(c < n)) break;

            // Task 0: k
            CoreTaskArgs params_t0;
            params_t0.add_input(ext_a);
            params_t0.add_inout(ext_o);
            rt_submit_aiv_task(0, params_t0);
            c = c + 1;
        }
)") != std::string::npos);
}

TEST_CASE("orchestration: an AIV-only Group is an AIV task, a split AIV kernel fills both lanes") {
  const std::string program = R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        o1 = self.g(a, o)
        return o1

    @pl.function(type=pl.FunctionType.Group)
    def g(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        o1 = self.v(a, o)
        return o

    @pl.function(type=pl.FunctionType.AIV)
    def v(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        @ATTR@
        t = pl.load(x, [0], [64])
        pl.store(t, [0], o)
        return o
)";
  auto with_attr = [&](std::string_view attr) {
    std::string s = program;
    s.replace(s.find("@ATTR@"), 6, attr);
    return s;
  };
  const cg::KernelCodeMap codes{{"v", {"v", CoreType::AIV}}};
  CHECK(
      orchestration(with_attr("pass"), codes).find("        rt_submit_aiv_task(0, params_t0);\n") !=
      std::string::npos);
  const std::string split =
      orchestration(with_attr("pl.func_attr({\"dual_aiv_dispatch\": True})"), codes);
  CHECK(split.find(R"(
        MixedKernels mixed_0 = {INVALID_KERNEL_ID, 0, 0};
        rt_submit_task(mixed_0, params_t0);
)") != std::string::npos);
}

// ---- the emitted C++ is well-formed -----------------------------------------------------------

namespace {

/// A stub of the runtime API the NPU vocabulary names: enough declarations to type-check the
/// generated sources (not to link or run them).
constexpr std::string_view kRuntimeStub = R"(#pragma once
#include <stdint.h>
struct ChipTensor {
  int64_t shapes[8];
  ChipTensor view(const uint32_t[], const uint32_t[]) const;
  ChipTensor reshape(const uint32_t[], uint32_t) const;
  ChipTensor transpose(uint32_t, uint32_t) const;
};
struct ChipTensorArg { const ChipTensor& ref() const; };
struct ChipTaskArgs { ChipTensorArg tensor(int) const; uint64_t scalar(int) const; };
struct PTO2OrchestrationConfig { int expected_arg_count; };
struct PTO2TaskId { uint64_t raw; static PTO2TaskId invalid(); bool is_valid() const; };
enum class DataType { FP32 };
struct TensorCreateInfo { TensorCreateInfo(uint32_t*, int, DataType); };
struct TaskOutputTensors { const ChipTensor& get_ref(int) const; PTO2TaskId task_id() const; };
TaskOutputTensors alloc_tensors(TensorCreateInfo&);
struct LaunchSpec { void set_block_num(int64_t); void set_require_sync_start(bool); };
struct CoreTaskArgs {
  void add_input(const ChipTensor&); void add_output(const ChipTensor&);
  void add_output(TensorCreateInfo&); void add_inout(const ChipTensor&);
  void add_no_dep(const ChipTensor&); void add_scalar(uint64_t);
  void set_dependencies(PTO2TaskId*, uint32_t); void set_predicate(bool);
  void set_allow_early_resolve(bool);
  LaunchSpec launch_spec;
};
constexpr int INVALID_KERNEL_ID = -1;
struct MixedKernels { int aic, aiv0, aiv1; };
TaskOutputTensors rt_submit_aic_task(int, CoreTaskArgs&);
TaskOutputTensors rt_submit_aiv_task(int, CoreTaskArgs&);
TaskOutputTensors rt_submit_task(MixedKernels&, CoreTaskArgs&);
TaskOutputTensors rt_submit_dummy_task(const CoreTaskArgs&);
template <class T = uint64_t> T get_tensor_data(const ChipTensor&, uint32_t, const uint32_t[]);
template <class T = uint64_t> void set_tensor_data(const ChipTensor&, uint32_t, const uint32_t[], T);
template <class T> uint64_t to_u64(T);
template <class T> T from_u64(uint64_t);
enum class PTO2ScopeMode { AUTO, MANUAL };
struct PTO2ScopeGuard { explicit PTO2ScopeGuard(PTO2ScopeMode = PTO2ScopeMode::AUTO); };
#define PTO2_SCOPE(...) if (PTO2ScopeGuard pto2_scope_guard{__VA_ARGS__}; true)
)";

// (C stdio, not <fstream>/<filesystem>: those pull in std::quoted, which ADL then prefers to the
// transforms' own `quoted` helper.)
void write_file(const std::string& path, std::string_view text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
}

}  // namespace

TEST_CASE("orchestration: generated sources type-check against a runtime stub (-Wall -Werror)") {
  if (std::system("c++ --version > /dev/null 2>&1") != 0) {
    MESSAGE("no system C++ compiler: skipped");
    return;
  }
  char dir_template[] = "/tmp/pypto_orch_syntax_XXXXXX";
  REQUIRE(::mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template;
  write_file(dir + "/pto_orchestration_api.h", kRuntimeStub);
  const std::pair<std::string, std::string> sources[] = {
      {"demo.cpp", orchestration(kDemo, kDemoCodes)},
      {"flow.cpp", orchestration(kFlow, kK)},
      {"while.cpp", orchestration(one_kernel(R"(
        d = pl.tensor.dim(a, 0)
        for (c, acc) in pl.while_(init_values=(0, o)):
            pl.cond(c < n)
            with pl.scope(mode=pl.ScopeMode.MANUAL):
                acc1 = self.k(a, acc)
            c_rv, acc_rv = pl.yield_(c + d, acc1)
        return acc_rv
)"),
                                  kK)},
      {"fence.cpp", orchestration(one_kernel(kFence), kK)},
      {"switching.cpp", orchestration(one_kernel(kSwitching), kK)},
      {"views.cpp", orchestration(one_kernel(kViews), kK)},
      {"elements.cpp", orchestration(one_kernel(R"(
        v = pl.tensor.read(a, [n - 1])
        pl.tensor.write(o, [0], v)
        o1 = self.k(a, o)
        return o1
)"),
                                     kK)},
  };
  for (const auto& source : sources) {  // (clang 14: INFO cannot capture structured bindings)
    const std::string& name = source.first;
    const std::string& text = source.second;
    INFO(name);
    INFO(text);
    write_file(dir + "/" + name, text);
    const std::string command =
        "c++ -std=c++17 -fsyntax-only -Wall -Wextra -Werror -I" + dir + " " + dir + "/" + name;
    CHECK(std::system(command.c_str()) == 0);
  }
  CHECK(std::system(("rm -rf " + dir).c_str()) == 0);
}

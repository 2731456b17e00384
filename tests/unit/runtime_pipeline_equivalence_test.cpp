// The proof that the passes keep meaning (issue 8): every runnable program of tests/programs/
// runs on seeded random inputs in the reference interpreter (runtime/interpreter.hpp)
//   (a) as parsed, scopes interpreted inline, and after convert-to-ssa,
//   (b) after convert-to-ssa, outline-incore-scopes, outline-cluster-scopes,
//   (c) after deduplicate-outlined-kernels,
//   (d) after convert-tensor-to-tile-ops,
// and every stage gives results and Out / InOut argument buffers bit-identical to (a). The
// passes run through one PassManager with verify-each, each stage's program taken after its
// pass. Dedup must reduce the number of kernels of the programs made for it and must not merge
// kernels that differ in the sign of a zero.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../examples/pypto-opt/default_program.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/runtime/interpreter.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/transforms/pass_instruments.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"
#include "test_files.hpp"
#include "test_rng.hpp"

// The directory is listed with POSIX <dirent.h>: on this branch's base, <filesystem> brought
// std::quoted, which ADL preferred to the unqualified quoted() of transforms/ssa_form.hpp
// (fixed on main in 19644d3: after the merge <filesystem> would work too).
#include <dirent.h>

namespace ir = pypto::ir;
namespace rt = pypto::runtime;
namespace tf = pypto::transforms;
using pypto::core::DataType;
using rt::Value;

namespace {

constexpr std::string_view kPipeline = tf::kCodegenPipeline;

using pypto_test::read_program;

/// The program after each pass of kPipeline, by pass name (with verify-each unless told not to).
std::map<std::string, ir::ProgramRef> stages(const ir::Program& p, bool verify = true) {
  std::map<std::string, ir::ProgramRef> out;
  tf::PassManagerOptions options;
  if (verify) options.instruments.push_back(tf::verify_each_instrument());
  options.instruments.push_back([&](const tf::Pass& pass, const ir::Program& q, tf::PropertySet) {
    out[std::string(pass.name())] = ir::ProgramRef(&q);
  });
  tf::PassManager(tf::standard_passes().pipeline(kPipeline), std::move(options)).run(p);
  return out;
}

/// A runnable program of tests/programs/ and how to feed it.
struct Case {
  std::string_view file;
  std::string_view entry;
  std::vector<std::int64_t> int_scalars{3};       // tried in turn for every integer scalar
  std::map<std::string, std::int64_t> dims = {};  // values of symbolic dimensions
};

/// Seeded arguments: float tensors in [-2, 2) in 1/64 steps with some signed zeros, integer
/// tensors in [0, 4) whose first element is 0 (an offset), FP32 scalars in [-2, 2), integer
/// scalars equal to `int_scalar`, symbolic dimensions from `dims`.
std::vector<Value> seeded_args(const ir::Function& fn, std::uint64_t seed, std::int64_t int_scalar,
                               const std::map<std::string, std::int64_t>& dims) {
  pypto::test::SplitMix64 rng(seed);
  auto f32 = [&] {
    const std::int64_t r = rng.range(-128, 127);
    if (rng.range(0, 15) == 0) return r < 0 ? -0.0f : 0.0f;
    return static_cast<float>(r) / 64.0f;
  };
  std::vector<Value> args;
  for (const auto& p : fn.params) {
    if (const auto* st = ir::as<ir::ScalarType>(p->type.get())) {
      if (st->dtype == DataType::FP32)
        args.push_back(Value::scalar_float(f32()));
      else if (st->dtype == DataType::BOOL)
        args.push_back(Value::scalar_bool(int_scalar % 2 != 0));
      else
        args.push_back(Value::scalar_int(int_scalar, st->dtype));
      continue;
    }
    const auto& t = static_cast<const ir::ShapedType&>(*p->type);
    std::vector<std::int64_t> shape;
    for (const auto& d : t.shape) {
      if (const auto* c = ir::as<ir::ConstInt>(d.get())) {
        shape.push_back(c->value);
        continue;
      }
      const auto* v = ir::as<ir::Var>(d.get());
      REQUIRE_MESSAGE(v, "a parameter dimension that is neither a constant nor a symbol");
      const auto it = dims.find(v->name_hint);
      REQUIRE_MESSAGE(it != dims.end(), "no value for the dimension " << v->name_hint);
      shape.push_back(it->second);
    }
    Value v = Value::zeros(t.dtype, shape);
    auto& b = *v.buffer;
    for (std::size_t k = 0; k < b.size(); ++k) {
      if (rt::is_float_dtype(t.dtype))  // the values are exact in FP16 and BF16 too
        b.f32[k] = f32();
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

void check_same(const Outcome& want, const Outcome& got, std::string_view stage) {
  CAPTURE(stage);
  REQUIRE(want.results.size() == got.results.size());
  for (std::size_t k = 0; k < want.results.size(); ++k)
    CHECK_MESSAGE(rt::bit_identical(want.results[k], got.results[k]), "result " << k);
  REQUIRE(want.args.size() == got.args.size());
  for (std::size_t k = 0; k < want.args.size(); ++k)
    CHECK_MESSAGE(rt::bit_identical(want.args[k], got.args[k]), "argument " << k);
}

/// True when the run wrote some argument or returned something that is not an input.
bool did_something(const std::vector<Value>& inputs, const Outcome& o) {
  for (std::size_t k = 0; k < inputs.size(); ++k)
    if (!rt::bit_identical(inputs[k], o.args[k])) return true;
  for (const auto& r : o.results) {
    bool is_input = false;
    for (const auto& a : inputs) is_input = is_input || rt::bit_identical(a, r);
    if (!is_input) return true;
  }
  return false;
}

bool is_kernel(const ir::Function& f) {
  return f.func_type == ir::FunctionType::InCore || f.func_type == ir::FunctionType::AIC ||
         f.func_type == ir::FunctionType::AIV;
}
std::size_t count_functions(const ir::Program& p, bool (*pred)(const ir::Function&)) {
  std::size_t n = 0;
  for (const auto& f : p.functions) n += pred(*f.function) ? 1 : 0;
  return n;
}
std::size_t kernels(const ir::Program& p) { return count_functions(p, is_kernel); }
std::size_t groups(const ir::Program& p) {
  return count_functions(
      p, [](const ir::Function& f) { return f.func_type == ir::FunctionType::Group; });
}

/// The stage programs of `c`, each checked to mean the same as the parsed program.
std::map<std::string, ir::ProgramRef> check_case(const Case& c) {
  CAPTURE(c.file);
  const ir::ProgramRef parsed = pypto::text::parse_program(read_program(c.file));
  REQUIRE(parsed->find(c.entry));
  std::map<std::string, ir::ProgramRef> st = stages(*parsed);
  REQUIRE(st.size() == 10);  // every pass of the codegen pipeline
  const std::pair<std::string_view, std::string_view> order[] = {
      {"(a) convert-to-ssa", "convert-to-ssa"},
      {"(b) outlined", "outline-cluster-scopes"},
      {"(c) deduplicated", "deduplicate-outlined-kernels"},
      {"(d) tile ops", "convert-tensor-to-tile-ops"},
      {"(e) mixed kernels expanded", "expand-mixed-kernels"},
      {"(f) returns in parameter order", "normalize-return-order"},
      {"(g) staging buffers fused into views", "fuse-create-assemble-to-slice"},
  };
  for (std::int64_t scalar : c.int_scalars)
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      CAPTURE(scalar);
      CAPTURE(seed);
      const auto inputs = seeded_args(*parsed->find(c.entry), seed, scalar, c.dims);
      const Outcome reference = run_on(*parsed, c.entry, inputs);
      CHECK(did_something(inputs, reference));
      for (const auto& [label, pass] : order) {
        const ir::Program& p = *st.at(std::string(pass));
        INFO(pypto::text::print(p));
        check_same(reference, run_on(p, c.entry, inputs), label);
      }
    }
  // (b) outlined something: the entry calls kernels now.
  CHECK(kernels(*st.at("outline-cluster-scopes")) > 0);
  return st;
}

// Every runnable program: its entry, the integer scalars it runs with, its symbolic dims.
const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"default_twin_add.pl", "main"},
      {"outline_seed_basic.pl", "main"},
      {"outline_seed_loop.pl", "k"},
      {"outline_cluster.pl", "main"},
      {"natural_form.pl", "main", {0, 1, 3}},
      {"nested_seq.pl", "main", {0, 1, 3}},
      {"dedup_twin_kernels.pl", "main"},
      {"dedup_shape_distinct.pl", "main", {3}, {{"M", 32}, {"N", 48}}},
      {"dedup_shape_loop.pl", "main", {3}, {{"M", 32}, {"N", 48}}},
      {"dedup_many_equal.pl", "main"},
      {"dedup_signed_zero.pl", "main"},
      {"loops_carries.pl", "main", {0, 1, 2, 5}},
      {"group_aic_aiv.pl", "main"},
      {"submit_deps.pl", "main"},
      {"spmd_blocks.pl", "main", {0, 2}},
      {"if_branches.pl", "main", {0, 1, 2}},
      {"row_reduce_softmax.pl", "main"},
      {"matmul_tiles.pl", "main"},
      {"scalar_params.pl", "main", {0, 3, 16}},
      {"tensor_ops_kernel.pl", "main"},
      {"tensor_ops_materialize.pl", "main"},
      {"scope_result_read_after.pl", "main"},
      {"half_precision.pl", "main"},
      {"outline_if_store_phi.pl", "main", {1, 3}},
      {"nan_signs.pl", "main"},
      {"two_entries.pl", "doubled"},
      {"world_handshake.pl", "main", {3}, {{"NR", 1}}},
      {"ping_pong.pl", "main", {0, 1, 4}},
  };
  return all;
}

const Case& case_of(std::string_view file) {
  for (const Case& c : cases())
    if (c.file == file) return c;
  FAIL("no case for " << file);
  return cases().front();
}

}  // namespace

// The expected outputs of pass tests (post-pass programs), each with the input it comes from.
const std::vector<std::pair<std::string_view, std::string_view>>& expected_outputs() {
  static const std::vector<std::pair<std::string_view, std::string_view>> all = {
      {"outline_seed_basic.expected.pl", "outline_seed_basic.pl"},
      {"outline_seed_loop.expected.pl", "outline_seed_loop.pl"},
      {"outline_cluster.expected.pl", "outline_cluster.pl"},
      {"dedup_shape_distinct.expected.pl", "dedup_shape_distinct.pl"},
      {"natural_form.ssa.pl", "natural_form.pl"},
      {"nested_seq.normalized.pl", "nested_seq.pl"},
  };
  return all;
}

// Programs that are error inputs on purpose (each checked where its error is tested).
constexpr std::string_view kErrorInputs[] = {
    "syntax_error.pl",             // text_parser_test.cpp
    "annotation_mismatch.pl",      // text_parser_test.cpp
    "branch_local_use.pl",         // transforms_convert_to_ssa_test.cpp
    "outline_scalar_live_out.pl",  // below: outlining refuses it
    "opaque_attr.pl",              // tests/cli: --assert-equal refuses its opaque payload
};

TEST_CASE("equivalence: at least 15 runnable programs, every file of tests/programs/ is known") {
  CHECK(cases().size() >= 15);
  std::set<std::string> known;
  for (const Case& c : cases()) CHECK(known.insert(std::string(c.file)).second);
  for (const auto& [expected, input] : expected_outputs()) known.insert(std::string(expected));
  for (std::string_view e : kErrorInputs) known.insert(std::string(e));
  std::size_t files = 0;
  DIR* dir = opendir(PYPTO_TEST_PROGRAMS_DIR);
  REQUIRE(dir != nullptr);
  std::vector<std::string> names;
  while (const dirent* e = readdir(dir)) names.emplace_back(e->d_name);
  closedir(dir);
  for (const std::string& name : names) {
    if (name.size() < 3 || name.compare(name.size() - 3, 3, ".pl") != 0) continue;
    ++files;
    CHECK_MESSAGE(known.count(name) == 1,
                  name << " is in no list: add it to cases() (runnable), expected_outputs() or "
                          "kErrorInputs");
  }
  CHECK(files == known.size());
}

TEST_CASE("equivalence: the expected outputs of pass tests mean what their inputs mean") {
  for (const auto& pair : expected_outputs()) {
    // Named copies: clang 14 cannot capture a structured binding in CAPTURE's lambda.
    const std::string_view expected = pair.first, input = pair.second;
    CAPTURE(expected);
    const Case& c = case_of(input);
    const ir::ProgramRef before = pypto::text::parse_program(read_program(input));
    const ir::ProgramRef after = pypto::text::parse_program(read_program(expected));
    for (std::int64_t scalar : c.int_scalars)
      for (std::uint64_t seed : {4u, 5u}) {
        CAPTURE(scalar);
        CAPTURE(seed);
        const auto inputs = seeded_args(*before->find(c.entry), seed, scalar, c.dims);
        check_same(run_on(*before, c.entry, inputs), run_on(*after, c.entry, inputs), expected);
      }
  }
}

TEST_CASE("equivalence: the programs cover what they claim after outlining") {
  auto outlined = [](std::string_view file) {
    return pypto::text::print(
        *stages(*pypto::text::parse_program(read_program(file))).at("outline-cluster-scopes"));
  };
  auto has = [](const std::string& text, std::string_view what) {
    return text.find(what) != std::string::npos;
  };
  const std::string submit = outlined("submit_deps.pl");
  CHECK(has(submit, "pl.submit(self.main_incore_1"));
  CHECK(has(submit, "deps=[t0, t1]"));
  const std::string spmd = outlined("spmd_blocks.pl");
  CHECK(has(spmd, "type=pl.FunctionType.Spmd"));
  CHECK(has(spmd, "\"core_num\": n + 1"));
  CHECK(has(spmd, "pl.tile.get_block_idx()"));
  const std::string loops = outlined("loops_carries.pl");
  CHECK(has(loops, "pl.while_("));
  CHECK(has(loops, "init_values=(acc_1,)"));
  const std::string ifs = outlined("if_branches.pl");
  CHECK(has(ifs, "if n < 2:"));
  CHECK(has(ifs, "if n == 0:"));
  const std::string scalars = outlined("scalar_params.pl");
  CHECK(has(scalars, "scale: pl.Scalar[pl.FP32]"));
  const std::string materialize = pypto::text::print(
      *stages(*pypto::text::parse_program(read_program("tensor_ops_materialize.pl")))
           .at("convert-tensor-to-tile-ops"));
  CHECK(has(materialize, "cache=pl.CachePolicy.BYPASS"));
  CHECK(has(materialize, "pl.tile.read(u_tile, [3, 4])"));
  // a scope's computed result comes back through an Out parameter its caller allocates
  const std::string read_after = pypto::text::print(
      *stages(*pypto::text::parse_program(read_program("scope_result_read_after.pl")))
           .at("convert-tensor-to-tile-ops"));
  CHECK(has(read_after, "ret0_out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]"));
  CHECK(has(read_after, "self.main_incore_0(x, b, ret0_out, ret1_out)"));
  CHECK(has(read_after, "pl.submit(self.main_incore_1, z, y, ret0_out_1)"));
  const std::string shapes = outlined("dedup_shape_distinct.pl");
  CHECK(has(shapes, "pl.Tensor[[N, 64], pl.FP32]"));
  // convert-tensor-to-tile-ops rewrote the kernels with tensor ops, and the directions of the
  // parameters main passes to a kernel that writes them (x of outline_seed_basic.pl, read first,
  // becomes InOut; the Out of the other two, passed to a kernel's InOut, too), and only those
  // (the pass returns the same program object when nothing changed).
  for (const Case& c : cases()) {
    CAPTURE(c.file);
    const auto st = stages(*pypto::text::parse_program(read_program(c.file)));
    const bool changed =
        st.at("convert-tensor-to-tile-ops") != st.at("deduplicate-outlined-kernels");
    // natural_form.pl and nested_seq.pl have a tensor.add in a scope, too.
    CHECK(changed == (c.file == "tensor_ops_kernel.pl" || c.file == "tensor_ops_materialize.pl" ||
                      c.file == "natural_form.pl" || c.file == "nested_seq.pl" ||
                      c.file == "scope_result_read_after.pl" || c.file == "outline_seed_basic.pl" ||
                      c.file == "outline_cluster.pl" || c.file == "group_aic_aiv.pl"));
  }
}

TEST_CASE("equivalence: every program means the same as parsed, outlined, deduplicated, tiled") {
  for (const Case& c : cases()) {
    SUBCASE(std::string(c.file).c_str()) { check_case(c); }
  }
}

TEST_CASE("equivalence: default_twin_add.pl is pypto-opt's embedded default program") {
  const auto ops = ir::standard_op_registry();
  const ir::ProgramRef text = pypto::text::parse_program(read_program("default_twin_add.pl"));
  CHECK(pypto::structural::structural_equal(text, pypto_opt::default_program(ops)));
  const auto st = check_case(case_of("default_twin_add.pl"));
  CHECK(kernels(*st.at("outline-cluster-scopes")) == 2);
  CHECK(kernels(*st.at("deduplicate-outlined-kernels")) == 1);
}

TEST_CASE("equivalence: dedup shares equal kernels, so fewer kernels are compiled") {
  struct Expect {
    std::string_view file;
    std::size_t outlined, deduplicated;
  };
  for (const Expect& e :
       {Expect{"dedup_many_equal.pl", 5, 2}, Expect{"dedup_twin_kernels.pl", 3, 2},
        Expect{"dedup_shape_distinct.pl", 2, 1}, Expect{"half_precision.pl", 4, 3},
        Expect{"dedup_shape_loop.pl", 2, 1}}) {
    CAPTURE(e.file);
    const auto st = check_case(case_of(e.file));
    CHECK(kernels(*st.at("outline-cluster-scopes")) == e.outlined);
    CHECK(kernels(*st.at("deduplicate-outlined-kernels")) == e.deduplicated);
  }
}

TEST_CASE("equivalence: dedup keeps the -0.0 kernel apart from the 0.0 one") {
  const auto st = check_case(case_of("dedup_signed_zero.pl"));
  const ir::Program& outlined = *st.at("outline-cluster-scopes");
  const ir::Program& dedup = *st.at("deduplicate-outlined-kernels");
  CHECK(kernels(outlined) == 3);
  CHECK(kernels(dedup) == 2);
  CHECK(dedup.find("plus_zero") != nullptr);
  CHECK(dedup.find("minus_zero") != nullptr);
  CHECK(dedup.find("plus_zero_again") == nullptr);
  // The inputs hold signed zeros, so the two kernels do give different bits.
  const ir::ProgramRef parsed = pypto::text::parse_program(read_program("dedup_signed_zero.pl"));
  Value x = Value::zeros(DataType::FP32, {16, 16});
  x.buffer->f32[0] = -0.0f;
  std::vector<Value> inputs{x, Value::zeros(DataType::FP32, {16, 16}),
                            Value::zeros(DataType::FP32, {16, 16}),
                            Value::zeros(DataType::FP32, {16, 16})};
  const Outcome o = run_on(dedup, "main", inputs);
  CHECK(pypto::kernel::float_bits(o.args[1].buffer->f32[0]) == pypto::kernel::float_bits(0.0f));
  CHECK(pypto::kernel::float_bits(o.args[2].buffer->f32[0]) == pypto::kernel::float_bits(-0.0f));
}

TEST_CASE("equivalence: dedup keeps the BF16 kernel apart from its FP16 twin") {
  const auto st = check_case(case_of("half_precision.pl"));
  const ir::Program& dedup = *st.at("deduplicate-outlined-kernels");
  CHECK(dedup.find("fp16_kernel") != nullptr);
  CHECK(dedup.find("bf16_kernel") != nullptr);
  CHECK(dedup.find("fp16_kernel_again") == nullptr);
}

TEST_CASE("equivalence: the Group bundle has an AIC and an AIV member and is shared") {
  const auto st = check_case(case_of("group_aic_aiv.pl"));
  const ir::Program& outlined = *st.at("outline-cluster-scopes");
  const ir::Program& dedup = *st.at("deduplicate-outlined-kernels");
  CHECK(groups(outlined) == 2);
  CHECK(kernels(outlined) == 4);
  CHECK(outlined.find("cube_a")->func_type == ir::FunctionType::AIC);
  CHECK(outlined.find("vec_a")->func_type == ir::FunctionType::AIV);
  // The second bundle (Group and both members) is an alias of the first.
  CHECK(groups(dedup) == 1);
  CHECK(kernels(dedup) == 2);
  CHECK(dedup.find("cube_b") == nullptr);
  CHECK(dedup.find("vec_b") == nullptr);
  // Both members take the Group's five parameters: one argument list for the mixed task.
  const ir::Program& expanded = *st.at("expand-mixed-kernels");
  CHECK(expanded.find("cube_a")->params.size() == 5);
  CHECK(expanded.find("vec_a")->params.size() == 5);
}

TEST_CASE("equivalence: outline_scalar_live_out.pl is refused by outlining, by design") {
  // A scalar read from device memory inside a scope and used after it: a kernel cannot return
  // a scalar. The un-outlined program runs; the pipeline stops with the outliner's message.
  const ir::ProgramRef parsed =
      pypto::text::parse_program(read_program("outline_scalar_live_out.pl"));
  Value x = Value::zeros(DataType::INDEX, {64});
  for (std::size_t k = 1; k < 64; ++k) x.buffer->ints[k] = static_cast<std::int64_t>(k);
  const Outcome o = run_on(*parsed, "main", {x, Value::zeros(DataType::INDEX, {64})});
  CHECK(o.args[1].buffer->ints == x.buffer->ints);
  CHECK_THROWS_WITH(stages(*parsed),
                    doctest::Contains("10:13: outline-incore-scopes (function main): scalar 'n' "
                                      "is computed inside the scope and used after it, but a "
                                      "kernel cannot return a scalar"));
}

TEST_CASE("equivalence: a phi of writes through a parameter is returned as the parameter") {
  // outline_if_store_phi.pl: a scope whose if stores into the loop-carried Out tensor in both
  // branches. The kernel returns the parameter itself, not the phi of the two stores
  // (ReturnParamsExplicit holds), and the caller's loop yields the call's result.
  const auto st = check_case(case_of("outline_if_store_phi.pl"));
  const ir::Program& outlined = *st.at("outline-incore-scopes");
  const ir::Function& kernel = *outlined.find("main_incore_0");
  REQUIRE(kernel.return_types.size() == 1);
  CHECK(pypto::text::print(outlined).find("return acc\n") != std::string::npos);
  // The same with the store chain's phi from an if without else, and with the loop carry of a
  // loop inside the scope: each kernel returns `o` alone, and the program means the same.
  for (const char* body : {
           "            if n == 0:\n"
           "                o = pl.store(pl.add(t, t), [0], o)\n",
           "            for i in pl.range(n):\n"
           "                o = pl.store(t, [0], o)\n"
           "                t = pl.add(t, t)\n",
       }) {
    CAPTURE(body);
    const std::string text = std::string(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0], [16])
            o = pl.store(t, [0], o)
)") + body + "        return o\n";
    const ir::ProgramRef parsed = pypto::text::parse_program(text);
    const auto stage_programs = stages(*parsed);
    const ir::Function& k = *stage_programs.at("outline-incore-scopes")->find("main_incore_0");
    CHECK(k.return_types.size() == 1);
    for (std::int64_t n : {0, 1, 3}) {
      CAPTURE(n);
      const auto inputs = seeded_args(*parsed->find("main"), 1, n, {});
      const Outcome reference = run_on(*parsed, "main", inputs);
      for (const auto& [pass, program] : stage_programs)
        check_same(reference, run_on(*program, "main", inputs), pass);
    }
  }
}

TEST_CASE("equivalence: if_branches.pl's kernels return only the tensor they write") {
  // Each arm's scope defines the tile `t`; convert-to-ssa joins it in a phi nothing reads.
  // A read by that dead phi is no live-out: the kernels return `o` alone, no tile.
  const auto st = check_case(case_of("if_branches.pl"));
  const ir::Program& outlined = *st.at("outline-incore-scopes");
  for (std::string_view name : {"main_incore_0", "main_incore_1"}) {
    CAPTURE(name);
    const ir::Function& k = *outlined.find(name);
    REQUIRE(k.return_types.size() == 1);
    CHECK(ir::isa<ir::TensorType>(*k.return_types[0]));
  }
  CHECK(pypto::text::print(outlined).find("t__phi") == std::string::npos);
}

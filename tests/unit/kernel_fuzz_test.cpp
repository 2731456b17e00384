// Seeded random-spec fuzzing of the kernel passes: every pass keeps validate() true and the
// interpreter's results bit-identical (NaN-aware) on inputs full of ±0, ±Inf, NaN and
// denormals; canonicalize is idempotent byte for byte, never grows the code, keeps views and
// runtime scalars; the canonical form round-trips through serialization.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernel_random.hpp"
#include "kernel_samples.hpp"
#include "pypto/kernel/canonicalize.hpp"
#include "pypto/kernel/serialize.hpp"

namespace k = pypto::kernel;
namespace tk = pypto::test::kernel;

namespace {

constexpr std::uint64_t kSeeds = 3000;
constexpr k::Grid kGrid{3, 4, 2};

struct NamedPass {
  const char* name;
  std::function<k::Spec(const k::Spec&)> run;
};

const std::vector<NamedPass>& passes() {
  static const std::vector<NamedPass> all = {
      {"fold_constants", [](const k::Spec& s) { return k::fold_constants(s); }},
      {"eliminate_dead_code", [](const k::Spec& s) { return k::eliminate_dead_code(s); }},
      {"eliminate_common_subexpressions",
       [](const k::Spec& s) { return k::eliminate_common_subexpressions(s); }},
      {"allocate_registers", [](const k::Spec& s) { return k::allocate_registers(s); }},
      {"canonicalize", [](const k::Spec& s) { return k::canonicalize(s); }},
  };
  return all;
}

}  // namespace

TEST_CASE("kernel fuzz: the generator makes valid, varied specs") {
  std::size_t reductions = 0, reused = 0;
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    const k::Spec s = tk::random_spec(seed);
    REQUIRE_MESSAGE(k::is_valid(s), "seed ", seed, k::to_string(s));
    std::vector<bool> written(k::kMaxRegs);
    for (const k::Instr& in : s.instrs) {
      reductions += k::is_reduction(in.op) ? 1 : 0;
      reused += written[in.dst] ? 1 : 0;
      written[in.dst] = true;
    }
  }
  CHECK(reductions > kSeeds / 2);
  CHECK(reused > kSeeds);
}

TEST_CASE("kernel fuzz: every pass keeps the spec valid and its results bit-identical") {
  std::size_t over_limit = 0, shrunk = 0;
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    const k::Spec s = tk::random_spec(seed);
    const auto in1 = tk::random_inputs(seed, s, kGrid);
    const auto in2 = tk::random_inputs(seed + 1000003, s, kGrid);
    const auto want1 = tk::run_on(s, in1, kGrid);
    const auto want2 = tk::run_on(s, in2, kGrid);
    for (const NamedPass& pass : passes()) {
      k::Spec out;
      try {
        out = pass.run(s);
      } catch (const k::SpecError& e) {
        // Only allocation may refuse: folding/CSE can lengthen live ranges past 32 registers.
        REQUIRE_MESSAGE(std::string(e.what()).rfind("num_regs: the code needs", 0) == 0, pass.name,
                        " seed ", seed, ": ", e.what());
        ++over_limit;
        continue;
      }
      INFO(pass.name, " seed ", seed, "\nbefore: ", k::to_string(s), "after: ", k::to_string(out));
      REQUIRE(k::is_valid(out));
      CHECK(out.views == s.views);
      CHECK(out.runtime_scalars == s.runtime_scalars);
      CHECK(out.instrs.size() <= s.instrs.size());
      CHECK(k::first_mismatch(tk::run_on(out, in1, kGrid), want1) == -1);
      CHECK(k::first_mismatch(tk::run_on(out, in2, kGrid), want2) == -1);
    }
    const k::Spec c = k::canonicalize(s);
    INFO("seed ", seed, "\nbefore: ", k::to_string(s), "canonical: ", k::to_string(c));
    CHECK(k::canonicalize(c) == c);
    CHECK(c.num_regs <= s.num_regs);
    CHECK(k::read_specs(k::write_specs(std::vector<k::Spec>{c})) == std::vector<k::Spec>{c});
    shrunk += c.instrs.size() < s.instrs.size() ? 1 : 0;
  }
  CHECK(over_limit == 0);
  CHECK(shrunk > kSeeds / 2);  // the passes have work to do on these specs
}

TEST_CASE("kernel fuzz: canonicalize with unsafe flags still validates and is idempotent") {
  const k::FoldFlags all = k::FoldFlags::NoNaNs | k::FoldFlags::NoInfs |
                           k::FoldFlags::NoSignedZeros | k::FoldFlags::Reassociate;
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    const k::Spec s = tk::random_spec(seed);
    const k::Spec c = k::canonicalize(s, all);
    INFO("seed ", seed, "\nbefore: ", k::to_string(s), "canonical: ", k::to_string(c));
    REQUIRE(k::is_valid(c));
    CHECK(k::canonicalize(c, all) == c);
  }
}

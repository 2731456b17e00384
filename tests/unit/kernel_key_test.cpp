// Tests of pypto/kernel/key.hpp: the key contract (runtime values never move the key,
// structure always does, +0 vs -0), a golden key that g++ and clang must both produce, the
// registry's confirmation by full equality (with a forced collision), and a fuzz check that
// equal keys coincide with equal structure.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kernel_random.hpp"
#include "kernel_samples.hpp"
#include "pypto/kernel/key.hpp"
#include "pypto/kernel/serialize.hpp"

namespace k = pypto::kernel;
namespace tk = pypto::test::kernel;
using k::FoldFlags;
using k::Op;

namespace {

k::Spec add_const(std::uint32_t bits) {
  k::Spec s;
  s.views = {{}};
  s.consts = {bits};
  s.num_regs = 1;
  s.instrs = {k::binary(Op::Add, 0, k::input(0), k::constant(0))};
  return s;
}

}  // namespace

TEST_CASE("kernel key: runtime values never move the key") {
  const k::Spec base = tk::rope_like();
  k::Spec other = base;
  other.views[1].param = 7;  // RotateHalf block
  other.views[2].param = 9;  // RowMod period
  CHECK(k::kernel_key(other) == k::kernel_key(base));

  const k::Spec soft = tk::softmax_like();
  k::Spec soft2 = soft;
  soft2.runtime_scalars[0] = k::float_bits(123.0f);
  CHECK(k::kernel_key(soft2) == k::kernel_key(soft));

  CHECK(k::kernel_key(add_const(k::float_bits(2.0f))) ==
        k::kernel_key(add_const(k::float_bits(1e-6f))));
  k::Spec mul_plus = add_const(0x00000000u), mul_minus = add_const(0x80000000u);
  mul_plus.instrs[0].op = mul_minus.instrs[0].op = Op::Mul;
  CHECK(k::kernel_key(mul_plus) == k::kernel_key(mul_minus));
}

TEST_CASE("kernel key: structure always moves the key") {
  const k::Spec base = tk::masked_bias();
  const k::Key key = k::kernel_key(base);
  auto differs = [&](auto mutate) {
    k::Spec s = base;
    mutate(s);
    return k::kernel_key(s) != key;
  };
  CHECK(differs([](k::Spec& s) { s.instrs[2].op = Op::Sub; }));
  CHECK(differs([](k::Spec& s) { s.instrs[2].b = k::input(0); }));
  CHECK(differs([](k::Spec& s) { s.instrs[1].a = k::grid(k::GridAxis::Batch); }));
  CHECK(differs([](k::Spec& s) { s.instrs[0].op = Op::ColMax; }));
  CHECK(differs([](k::Spec& s) { s.views[1].kind = k::ViewKind::Linear; }));
  CHECK(differs([](k::Spec& s) { s.views.push_back({}); }));
  CHECK(differs([](k::Spec& s) { s.runtime_scalars.push_back(0); }));
  CHECK(differs([](k::Spec& s) { s.instrs.push_back(k::unary(Op::Exp, 4, k::reg(4))); }));
  CHECK(k::kernel_key(base, FoldFlags::NoSignedZeros) != key);
  CHECK(k::kernel_key(base, FoldFlags::Reassociate) != k::kernel_key(base, FoldFlags::NoNaNs));
}

TEST_CASE("kernel key: +0 and -0 constants give different keys where they fold differently") {
  // x + (-0) folds to x; x + (+0) does not (it turns -0 into +0).
  CHECK(k::kernel_key(add_const(0x80000000u)) != k::kernel_key(add_const(0x00000000u)));
  // With nsz both fold: same key.
  CHECK(k::kernel_key(add_const(0x80000000u), FoldFlags::NoSignedZeros) ==
        k::kernel_key(add_const(0x00000000u), FoldFlags::NoSignedZeros));
}

TEST_CASE("kernel key: the key is defined on the canonical form") {
  for (const k::Spec& s : tk::samples()) {
    const k::Spec c = k::canonicalize(s);
    CHECK(k::kernel_key(s) == k::kernel_key(c));
    CHECK(k::kernel_key(s) == k::structural_key(c, FoldFlags::None));
  }
  // seed 004's counterexample and its hand-simplified form share a key
  k::Spec simple;
  simple.views = {{}, {}, {}};
  simple.num_regs = 2;
  simple.instrs = {k::binary(Op::Mul, 1, k::input(1), k::input(0)),
                   k::binary(Op::Add, 0, k::input(2), k::reg(1))};
  CHECK(k::kernel_key(simple) == k::kernel_key(tk::pitfall_counterexample()));
}

TEST_CASE("kernel key: golden values, identical under g++ and clang and across runs") {
  // The first two predate the matmul segment: a spec without one keeps its key.
  CHECK(k::kernel_key(tk::softmax_like()).hex() == "656f818946392937d04815bc0a743d91");
  CHECK(k::kernel_key(tk::masked_bias()).hex() == "3ebfda94141329fac192426ce08857f9");
  CHECK(k::kernel_key(tk::matmul_epilogue()).hex() == "09c660d19ead63866647adcc8cfa742d");
}

TEST_CASE(
    "kernel key: matmul k, batch and transposes are runtime values, slots and presence are "
    "structure") {
  const k::Spec base = tk::matmul_epilogue();
  const k::Key key = k::kernel_key(base);
  auto with = [&](auto mutate) {
    k::Spec s = base;
    mutate(s);
    REQUIRE(k::is_valid(s));
    return k::kernel_key(s);
  };
  CHECK(with([](k::Spec& s) { s.matmul->k = 4096; }) == key);
  CHECK(with([](k::Spec& s) { s.matmul->batch = 8; }) == key);
  CHECK(with([](k::Spec& s) {
          s.matmul->k = 1;
          s.matmul->batch = 3;
        }) == key);

  const k::Key ta = with([](k::Spec& s) { s.matmul->trans_a = true; });
  const k::Key tb = with([](k::Spec& s) { s.matmul->trans_b = true; });
  const k::Key tab = with([](k::Spec& s) { s.matmul->trans_a = s.matmul->trans_b = true; });
  // Seed 004: mm_trans is a push constant; one kernel covers the four layouts.
  CHECK(ta == key);
  CHECK(tb == key);
  CHECK(tab == key);
  // The slots: A and B swapped, and B moved to another input slot.
  CHECK(with([](k::Spec& s) { std::swap(s.matmul->a_input, s.matmul->b_input); }) != key);
  CHECK(with([](k::Spec& s) {
          s.views.push_back({});
          s.matmul->b_input = 3;
        }) != with([](k::Spec& s) { s.views.push_back({}); }));
  // Presence: the same code and views with the matmul result read as an input instead.
  k::Spec without = base;
  without.matmul.reset();
  without.views.push_back({});
  for (k::Instr& in : without.instrs) {
    for (std::size_t i = 0; i < k::arity(in.op); ++i) {
      if (in.slot(i).kind == k::OperandKind::MatmulResult) in.slot(i) = k::input(3);
    }
  }
  REQUIRE(k::is_valid(without));
  CHECK(k::kernel_key(without) != key);
  CHECK_FALSE(k::same_structure(k::canonicalize(without), k::canonicalize(base)));

  // same_structure agrees with the key on each of these.
  k::Spec bigger_k = base;
  bigger_k.matmul->k = 77;
  CHECK(k::same_structure(k::canonicalize(bigger_k), k::canonicalize(base)));
  k::Spec transposed = base;
  transposed.matmul->trans_b = true;
  CHECK(k::same_structure(k::canonicalize(transposed), k::canonicalize(base)));
  k::Spec swapped = base;
  std::swap(swapped.matmul->a_input, swapped.matmul->b_input);
  CHECK_FALSE(k::same_structure(k::canonicalize(swapped), k::canonicalize(base)));
}

TEST_CASE(
    "kernel registry: specs that differ only in matmul k, batch or transposes share one entry") {
  k::KeyedRegistry<std::string> reg;
  CHECK(reg.insert(tk::matmul_epilogue(), "gemm").second);
  k::Spec other = tk::matmul_epilogue();
  other.matmul->k = 999;
  other.matmul->batch = 4;
  const auto again = reg.insert(other, "gemm again");
  CHECK_FALSE(again.second);
  CHECK(again.first->value == "gemm");
  other.matmul->trans_a = true;  // a run-time layout bit: still the same kernel
  REQUIRE(reg.find(other) != nullptr);
  CHECK(reg.find(other)->value == "gemm");
  std::swap(other.matmul->a_input, other.matmul->b_input);  // structure: another kernel
  CHECK(reg.find(other) == nullptr);
  CHECK(reg.insert(other, "gemm swapped").second);
  CHECK(reg.size() == 2);
}

TEST_CASE("kernel registry: lookups canonicalize and ignore runtime values") {
  k::KeyedRegistry<std::string> reg;
  CHECK(reg.insert(tk::softmax_like(), "softmax").second);
  CHECK(reg.insert(tk::rope_like(), "rope").second);
  k::Spec rope2 = tk::rope_like();
  rope2.views[2].param = 5;
  const auto again = reg.insert(rope2, "rope again");
  CHECK_FALSE(again.second);
  CHECK(again.first->value == "rope");
  CHECK(reg.size() == 2);
  REQUIRE(reg.find(rope2) != nullptr);
  CHECK(reg.find(rope2)->value == "rope");
  CHECK(reg.find(tk::masked_bias()) == nullptr);
}

TEST_CASE("kernel registry: a key collision is confirmed by full equality") {
  struct Colliding {
    k::Key operator()(const k::Spec&, FoldFlags) const { return {1, 2}; }
  };
  k::KeyedRegistry<int, Colliding> reg;
  CHECK(reg.insert(tk::softmax_like(), 1).second);
  CHECK(reg.insert(tk::rope_like(), 2).second);  // same key, other structure: a second entry
  CHECK(reg.size() == 2);
  CHECK(reg.find(tk::softmax_like())->value == 1);
  CHECK(reg.find(tk::rope_like())->value == 2);
  CHECK(reg.find(tk::masked_bias()) == nullptr);
}

TEST_CASE("kernel key fuzz: equal keys exactly when the canonical structures are equal") {
  std::map<k::Key, k::Spec> seen;
  std::size_t shared = 0;
  for (std::uint64_t seed = 0; seed < 3000; ++seed) {
    const k::Spec c = k::canonicalize(tk::random_spec(seed));
    const k::Key key = k::structural_key(c, FoldFlags::None);
    CHECK(k::kernel_key(c) == key);
    const auto [it, inserted] = seen.emplace(key, c);
    if (!inserted) {
      ++shared;
      CHECK_MESSAGE(k::same_structure(it->second, c), "collision at seed ", seed);
    }
  }
  // Conversely, equal structure means an equal key: group by the structure alone (values
  // blanked) and require one key per group.
  std::map<std::string, k::Key> by_structure;
  for (const auto& entry : seen) {
    const k::Spec& spec = entry.second;
    k::Spec blank = spec;
    for (auto& c : blank.consts) c = 0;
    for (auto& c : blank.runtime_scalars) c = 0;
    for (auto& v : blank.views) v.param = k::view_has_param(v.kind) ? 1 : 0;
    if (blank.matmul) blank.matmul->k = blank.matmul->batch = 1;
    const auto bytes = k::write_specs(std::vector<k::Spec>{blank});
    const bool inserted =
        by_structure.emplace(std::string(bytes.begin(), bytes.end()), entry.first).second;
    CHECK_MESSAGE(inserted, "two keys for one structure: ", k::to_string(spec));
  }
  CHECK(shared > 0);  // tiny specs recur (Mov of an input, ...)
}

// Property tests of structural equality and hashing over seeded random IR
// (tests/unit/random_ir.hpp): an alpha-renamed deep copy is equal with the same hash; every single
// semantic mutation is unequal; equal implies the same hash; the generator and the hash are
// deterministic. The cross-process half of hash determinism is the ctest
// `structural.hash_stable_across_processes` (tests/hash_dump.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "pypto/detail/pod_stack.hpp"
#include "pypto/ir.hpp"
#include "pypto/structural.hpp"
#include "pypto/structural/projection.hpp"
#include "random_ir.hpp"

namespace {

using namespace pypto::ir;  // NOLINT
namespace rir = pypto::test::rir;
namespace core = pypto::core;

// Counts are sized for < ~5 s in Release; the Debug + sanitizer preset (about 30x slower) runs
// fewer.
#ifdef NDEBUG
constexpr std::uint64_t kCopyPrograms = 2500;
constexpr std::uint64_t kMutationPrograms = 800;
constexpr std::uint64_t kTinyBatch = 48;
#else
constexpr std::uint64_t kCopyPrograms = 120;
constexpr std::uint64_t kMutationPrograms = 25;
constexpr std::uint64_t kTinyBatch = 24;
#endif

/// Stops a property loop after a few reported failures (one bug, not thousands of lines).
struct FailureBudget {
  int left = 5;
  bool exhausted() const { return left <= 0; }
  void spend() { --left; }
};

}  // namespace

TEST_CASE("structural property: the generator is deterministic and varied") {
  const auto free = rir::FreeVars::make();
  int distinct_neighbours = 0;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    CAPTURE(seed);
    auto a = rir::generate_program(seed, free), b = rir::generate_program(seed, free);
    CHECK(structural_equal(a, b));
    CHECK(structural_hash(a) == structural_hash(b));
    if (!structural_equal(a, rir::generate_program(seed + 1, free))) ++distinct_neighbours;
  }
  CHECK(distinct_neighbours >= 45);
}

TEST_CASE("structural property: an alpha-renamed deep copy is equal with the same hash") {
  const auto free = rir::FreeVars::make();
  FailureBudget budget;
  std::size_t functions = 0;
  for (std::uint64_t seed = 0; seed < kCopyPrograms && !budget.exhausted(); ++seed) {
    CAPTURE(seed);
    const auto p = rir::generate_program(seed, free);
    const auto c = rir::deep_copy(p);
    const bool eq = structural_equal(p, c);
    const bool hash_eq = structural_hash(p) == structural_hash(c);
    const bool eq_auto = structural_equal(p, c, true);
    const bool hash_auto_eq = structural_hash(p, true) == structural_hash(c, true);
    if (!(eq && hash_eq && eq_auto && hash_auto_eq)) {
      budget.spend();
      const auto mm = find_first_mismatch(p, c);
      FAIL_CHECK(
          "copy of seed " << seed << ": equal=" << eq << " same_hash=" << hash_eq
                          << " equal(auto)=" << eq_auto << " same_hash(auto)=" << hash_auto_eq
                          << (mm ? " first mismatch at " + mm->field_path + ": " + mm->reason +
                                       "\n  lhs: " + mm->lhs + "\n  rhs: " + mm->rhs
                                 : std::string()));
    }
    // Each function alone, copied under another (ignored) name.
    for (const auto& e : p->functions) {
      ++functions;
      const auto fc = rir::deep_copy(e.function);
      if (!structural_equal(e.function, fc) || structural_hash(e.function) != structural_hash(fc)) {
        budget.spend();
        const auto mm = find_first_mismatch(e.function, fc);
        FAIL_CHECK(
            "function " << e.name << " of seed " << seed << " differs from its copy"
                        << (mm ? " at " + mm->field_path + ": " + mm->reason : std::string()));
      }
    }
  }
  CHECK(functions > kCopyPrograms);
}

TEST_CASE("structural property: a copy of a copy is equal and shares only free variables") {
  const auto free = rir::FreeVars::make();
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    CAPTURE(seed);
    const auto p = rir::generate_program(seed, free);
    const auto c1 = rir::deep_copy(p);
    const auto c2 = rir::deep_copy(c1);
    CHECK(structural_equal(p, c2));
    CHECK(structural_equal(c1, c2));
    CHECK(structural_hash(p) == structural_hash(c2));
    // The copy is really a different object graph (so the equality above is not by identity).
    std::unordered_set<const Node*> original;
    for_each_node(p, [&](const Node& n) { original.insert(&n); });
    int shared = 0;
    for_each_node(c1, [&](const Node& n) {
      if (!original.count(&n)) return;
      const auto* v = as<Var>(&n);
      const bool free_var = v && (v == free.g0.get() || v == free.g1.get() || v == free.gf.get());
      // Builders share one ScalarType per dtype; all else must be fresh.
      if (!free_var && n.kind() != NodeKind::ScalarType) ++shared;
    });
    CHECK(shared == 0);
  }
}

TEST_CASE("structural property: every single semantic mutation makes the program unequal") {
  const auto free = rir::FreeVars::make();
  std::array<int, rir::kMutationCount> mutants{};
  int hash_collisions = 0, total = 0;
  FailureBudget budget;
  for (std::uint64_t seed = 0; seed < kMutationPrograms && !budget.exhausted(); ++seed) {
    const auto p = rir::generate_program(seed, free);
    const auto sites = rir::mutation_sites(p);
    const auto p_hash = structural_hash(p);
    rir::SplitMix64 pick(seed);
    for (std::size_t k = 1; k < rir::kMutationCount; ++k) {
      const auto kind = static_cast<rir::Mutation>(k);
      const int n = sites[k];
      // Up to two sites of each kind per program (all of them when there are few).
      for (int j = 0; j < std::min(n, 2); ++j) {
        const int site = n <= 2 ? j : static_cast<int>(pick.below(static_cast<std::uint64_t>(n)));
        bool applied = false;
        const auto m = rir::mutate(p, kind, site, &applied);
        CAPTURE(seed);
        CAPTURE(rir::mutation_name(kind));
        CAPTURE(site);
        REQUIRE(applied);
        ++mutants[k];
        ++total;
        if (structural_equal(p, m) || structural_equal(m, p)) {
          budget.spend();
          FAIL_CHECK("mutant " << rir::mutation_name(kind) << " #" << site << " of seed " << seed
                               << " compares equal to the original");
          continue;
        }
        if (structural_hash(m) == p_hash) ++hash_collisions;
        // Diagnostics agree with equality on a sample.
        if (total % 16 == 0) {
          const auto mm = find_first_mismatch(p, m);
          CHECK(mm.has_value());
          CHECK_THROWS_AS(assert_structural_equal(p, m), core::ValueError);
        }
      }
    }
  }
  for (std::size_t k = 1; k < rir::kMutationCount; ++k) {
    CAPTURE(rir::mutation_name(static_cast<rir::Mutation>(k)));
    // Every kind is exercised on most programs, so none of them passes vacuously.
    CHECK(mutants[k] >= static_cast<int>(kMutationPrograms));
  }
  // Not a contract (the hash may collide), but a hash that ignores a whole category of fields
  // would collide on most mutants of that category.
  CHECK(hash_collisions * 1000 <= total);
}

TEST_CASE("structural property: equal implies the same hash across all pairs of a batch") {
  const auto free = rir::FreeVars::make();
  rir::GenOptions tiny;
  tiny.tiny = true;
  std::vector<NodeRef> batch;
  // Tiny programs from different seeds (many coincide), copies of some, a few full programs
  // with their copies, and functions alone with their copies.
  for (std::uint64_t seed = 0; seed < kTinyBatch; ++seed)
    batch.push_back(rir::generate_program(seed, free, tiny));
  for (std::uint64_t k = 0; k < 8; ++k) batch.push_back(rir::deep_copy(batch[k]));
  const std::size_t full = batch.size();
  for (std::uint64_t seed = 100; seed < 106; ++seed)
    batch.push_back(rir::generate_program(seed, free));
  for (std::size_t k = 0; k < 3; ++k) {
    batch.push_back(rir::deep_copy(batch[full + k]));
    auto f = static_cast<const Program&>(*batch[full + k]).functions[0].function;
    batch.push_back(f);
    batch.push_back(rir::deep_copy(f));
  }
  const int known_equal_pairs = 2 * (8 + 3 + 3);  // ordered pairs of an item and its copy
  for (bool automap : {false, true}) {
    CAPTURE(automap);
    std::vector<std::uint64_t> hashes;
    for (const auto& n : batch) hashes.push_back(structural_hash(n, automap));
    int equal_pairs = 0;
    for (std::size_t i = 0; i < batch.size(); ++i)
      for (std::size_t j = 0; j < batch.size(); ++j) {
        const bool eq = structural_equal(batch[i], batch[j], automap);
        if (i == j) {
          CHECK(eq);
          continue;
        }
        if (eq) {
          ++equal_pairs;
          CAPTURE(i);
          CAPTURE(j);
          CHECK(hashes[i] == hashes[j]);
        }
        if (j > i) {
          CHECK(eq == structural_equal(batch[j], batch[i], automap));
          CHECK(eq == !find_first_mismatch(batch[i], batch[j], automap).has_value());
        }
      }
    // The batch holds coincidentally equal programs from different seeds, not only the copies.
    CHECK(equal_pairs >= known_equal_pairs + 10);
  }
}

namespace {

/// The stream a hash walk of function `f` records (Hasher::record), or empty when the walk
/// says its stream is not exact (or hands over to the projector).
std::vector<std::uint32_t> walk_stream(const Function& f) {
  pypto::detail::PodStack<std::uint32_t> stream;
  pypto::structural::detail::Hasher hasher;
  hasher.record(&stream);
  try {
    hasher.run(f, false);
  } catch (const pypto::structural::detail::HandOver&) {
    return {};
  }
  if (!hasher.stream_exact()) return {};
  return std::vector<std::uint32_t>(stream.data(), stream.data() + stream.size());
}

using Hasher = pypto::structural::detail::Hasher;

/// Whether `s` is exactly one token tree (a record followed by one token per child, recursively):
/// every token delimits itself, so a stream parses one way only.
bool parses_as_one_tree(const std::vector<std::uint32_t>& s) {
  std::size_t pos = 0;
  std::vector<std::uint32_t> pending{1};  // tokens still owed, innermost record last
  while (!pending.empty()) {
    if (pending.back() == 0) {
      pending.pop_back();
      continue;
    }
    --pending.back();
    if (pos >= s.size()) return false;
    const std::uint32_t w = s[pos], kind = w >> 28;
    std::uint32_t words = 0, children = 0, length = 1;
    if (kind == Hasher::kLong) {
      switch (w & 0xfu) {
        case Hasher::kRecord:
          if (pos + 2 >= s.size()) return false;
          words = s[pos + 1];
          children = s[pos + 2];
          length = 3;
          break;
        case Hasher::kBound:
        case Hasher::kMemo:
        case Hasher::kDtype: length = 2; break;
        case Hasher::kFree: length = 3; break;
        default: return false;
      }
    } else if (kind == Hasher::kRecord) {
      words = (w >> 14) & 0x3fffu;
      children = w & 0x3fffu;
    } else if (kind != Hasher::kBound && kind != Hasher::kMemo && kind != Hasher::kDtype) {
      return false;
    }
    pos += length + words;
    if (children) pending.push_back(children);
  }
  return pos == s.size();
}

/// A function of `n` statements `x_k = k + tail`, returning x_0.
FunctionRef long_function(int n, std::int64_t tail) {
  auto y = Var::make("y", ScalarType::make(DataType::INDEX));
  std::vector<StmtRef> body;
  VarRef first;
  for (int k = 0; k < n; ++k) {
    auto x = Var::make("x", ScalarType::make(DataType::INDEX));
    if (!first) first = x;
    body.push_back(AssignStmt::make(
        x, Add::make(ConstInt::make(k, DataType::INDEX),
                     k + 1 == n ? ExprRef(ConstInt::make(tail, DataType::INDEX)) : ExprRef(y))));
  }
  body.push_back(ReturnStmt::make({first}));
  return Function::make("f", {{y}}, {ScalarType::make(DataType::INDEX)},
                        SeqStmts::make(std::move(body)));
}

}  // namespace

TEST_CASE("structural property: a record too long for the short token takes the long form") {
  // A body of 20,000 statements: its SeqStmts record has more words and children than the
  // short token holds (2^14 - 1).
  const auto a = walk_stream(*long_function(20000, 7)), b = walk_stream(*long_function(20000, 7));
  REQUIRE(!a.empty());
  CHECK(parses_as_one_tree(a));
  CHECK(std::count(a.begin(), a.end(), Hasher::kLong << 28 | Hasher::kRecord) >= 1);
  CHECK(a == b);
  const auto c = walk_stream(*long_function(20000, 8));  // the last statement differs
  CHECK(parses_as_one_tree(c));
  CHECK(a != c);
  CHECK(walk_stream(*long_function(19999, 7)) != a);
}

TEST_CASE("structural property: equal hash-walk streams mean equal functions") {
  // The dedup pass decides equality of kernels by their recorded streams; a stream that
  // serialized less than the projection compares would merge different kernels.
  const auto free = rir::FreeVars::make();
  FailureBudget budget;
  int exact = 0, mutants_compared = 0;
  for (std::uint64_t seed = 0; seed < kMutationPrograms && !budget.exhausted(); ++seed) {
    CAPTURE(seed);
    const auto p = rir::generate_program(seed, free);
    const auto& pf = static_cast<const Program&>(*p).functions;
    // The same program built again (other Vars, the same sharing) records the same streams.
    const auto again = rir::generate_program(seed, free);
    const auto& af = static_cast<const Program&>(*again).functions;
    for (std::size_t i = 0; i < pf.size(); ++i) {
      const auto s = walk_stream(*pf[i].function);
      if (s.empty()) continue;
      ++exact;
      CHECK(parses_as_one_tree(s));
      if (walk_stream(*af[i].function) != s) {
        budget.spend();
        FAIL_CHECK("function " << pf[i].name << " of seed " << seed
                               << " rebuilt records another stream");
      }
    }
    // Every single semantic mutation changes the stream of the function it changes.
    const auto sites = rir::mutation_sites(p);
    for (std::size_t k = 1; k < rir::kMutationCount; ++k) {
      if (sites[k] == 0) continue;
      const auto kind = static_cast<rir::Mutation>(k);
      const auto m = rir::mutate(p, kind, 0);
      const auto& mf = static_cast<const Program&>(*m).functions;
      for (std::size_t i = 0; i < pf.size() && i < mf.size(); ++i) {
        const auto a = walk_stream(*pf[i].function), b = walk_stream(*mf[i].function);
        if (a.empty() || b.empty()) continue;
        const bool equal = structural_equal(pf[i].function, mf[i].function);
        if (!equal) ++mutants_compared;
        if (a == b && !equal) {
          budget.spend();
          FAIL_CHECK("seed " << seed << ", mutation " << rir::mutation_name(kind) << ", function "
                             << pf[i].name << ": equal streams, unequal functions");
        }
      }
    }
  }
  CHECK(exact > static_cast<int>(kMutationPrograms));
  // Mutated functions with exact streams on both sides, each an unequal pair checked.
  CHECK(mutants_compared > static_cast<int>(kMutationPrograms));
}

TEST_CASE("structural property: hashes are stable within a process") {
  const auto free = rir::FreeVars::make();
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    CAPTURE(seed);
    const auto p = rir::generate_program(seed, free);
    const auto h = structural_hash(p);
    // Interleave other work (other programs, other arenas) between the two calls.
    for (std::uint64_t k = 0; k < 3; ++k)
      structural_hash(rir::generate_program(seed + 1000 + k, free));
    CHECK(structural_hash(p) == h);
    CHECK(structural_hash(rir::generate_program(seed, free)) == h);
  }
}

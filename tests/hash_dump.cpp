// pypto_hash_dump: prints the structural hashes of N seeded random programs, one line each
// (`<seed> <hash> <hash with auto-mapping>`). The ctest `structural.hash_stable_across_processes`
// runs it twice — the second time with its heap perturbed — and requires identical output: a hash
// may not depend on addresses, allocation order or anything else that changes between processes.
//
// Usage: pypto_hash_dump [count] [--perturb]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "pypto/structural.hpp"
#include "unit/random_ir.hpp"

int main(int argc, char** argv) {
  std::uint64_t count = 200;
  bool perturb = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--perturb")
      perturb = true;
    else
      count = std::strtoull(argv[i], nullptr, 10);
  }
  // Shift the heap layout without creating IR (Var creation numbers must stay the same).
  std::vector<std::unique_ptr<char[]>> ballast;
  if (perturb)
    for (std::size_t i = 0; i < 97; ++i) ballast.push_back(std::make_unique<char[]>(1 + i * 37));

  namespace rir = pypto::test::rir;
  const auto free = rir::FreeVars::make();
  for (std::uint64_t seed = 0; seed < count; ++seed) {
    if (perturb && seed % 7 == 0) ballast.push_back(std::make_unique<char[]>(1 + seed * 13));
    const auto p = rir::generate_program(seed, free);
    std::printf("%llu %016llx %016llx\n", static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(pypto::ir::structural_hash(p)),
                static_cast<unsigned long long>(pypto::ir::structural_hash(p, true)));
  }
  return 0;
}

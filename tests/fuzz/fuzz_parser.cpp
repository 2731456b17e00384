// libFuzzer entry for the pl DSL parser (build with -DPYPTO_BUILD_FUZZERS=ON and clang++,
// preset `fuzz`; run with ./dev.sh fuzz). The oracle is in parser_case.hpp.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parser_case.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pypto::fuzz::parser_case(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}

// pypto-opt — the command-line driver: reads a program, runs passes, prints the result.
//
// For now it prints its embedded default program (default_program.hpp); the parser and the
// pass pipeline (--passes=...) plug in here as they land.
#include <cstdio>
#include <cstring>
#include <exception>
#include <pypto/ir.hpp>
#include <pypto/ir/op_registry.hpp>
#include <pypto/text/printer.hpp>
#include <string>

#include "default_program.hpp"

namespace {

constexpr const char* kUsage =
    "usage: pypto-opt [options]\n"
    "\n"
    "Prints the embedded default program (two InCore scopes computing the same sum) in the pl\n"
    "text format.\n"
    "\n"
    "options:\n"
    "  --concise   omit type annotations on assignments\n"
    "  --help      show this message\n";

}  // namespace

int main(int argc, char** argv) {
  pypto::text::PrintOptions options;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (std::strcmp(argv[i], "--concise") == 0) {
      options.concise = true;
      continue;
    }
    std::fprintf(stderr, "pypto-opt: unknown option '%s'\n\n%s", argv[i], kUsage);
    return 2;
  }
  try {
    const auto ops = pypto::ir::standard_op_registry();
    const std::string text = pypto::text::print(*pypto_opt::default_program(ops), options);
    std::fputs(text.c_str(), stdout);
    return 0;
  } catch (const pypto::core::Error& e) {
    std::fprintf(stderr, "pypto-opt: error: %s\n", e.what());
    return 1;
  }
}

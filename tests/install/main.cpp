// Consumer of the installed package: parses a program, runs convert-to-ssa through the pass
// manager, prints the result and compares it structurally with its own text read back, so the
// installed headers, the definitions (inline or in the compiled library), the package config and
// the Boost dependency are all exercised. Built twice: header-only and against pypto::compiled.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <pypto/ir/program.hpp>
#include <pypto/structural/compare.hpp>
#include <pypto/text/parser.hpp>
#include <pypto/text/printer.hpp>
#include <pypto/transforms/convert_to_ssa.hpp>
#include <pypto/transforms/pass_manager.hpp>
#include <string>

namespace {
constexpr const char* kProgram = R"(
import pypto.language as pl

@pl.program
class Consumer:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        y = n + 1
        y = y * 2
        return y
)";
}  // namespace

int main() {
  namespace tf = pypto::transforms;
  const pypto::ir::ProgramRef input = pypto::text::parse_program(kProgram);
  tf::PassManager manager({tf::ConvertToSSA()});
  const pypto::ir::ProgramRef ssa = manager.run(*input);
  const std::string text = pypto::text::print(*ssa);
  const bool same = pypto::structural::structural_equal(pypto::ir::NodeRef(ssa),
                                                        pypto::text::parse_program(text), true);
  if (!same || text.find("y__ssa_v1") == std::string::npos) {
    std::printf("pypto install test: unexpected result\n%s", text.c_str());
    return 1;
  }
  std::printf("pypto install test: convert-to-ssa gave %zu lines of text\n",
              static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')));
  return 0;
}

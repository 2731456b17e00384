// What a host compiler writes: read a program, run the four passes that outline and share its
// kernels, print the result. benchmarks/compile_time.sh times this TU in both ways of consuming
// the library (docs/compilation.md); the host names its passes, so only those are compiled.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <pypto/dedup.hpp>
#include <pypto/text/parser.hpp>
#include <pypto/text/printer.hpp>
#include <pypto/transforms/convert_to_ssa.hpp>
#include <pypto/transforms/outline_cluster_scopes.hpp>
#include <pypto/transforms/outline_incore_scopes.hpp>
#include <string>

int main(int argc, char** argv) {
  namespace tf = pypto::transforms;
  if (argc != 2) return 2;
  std::ifstream in(argv[1]);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  tf::PassManager manager({tf::ConvertToSSA(), tf::OutlineIncoreScopes(),
                           tf::OutlineClusterScopes(), tf::DeduplicateOutlinedKernels()});
  std::fputs(pypto::text::print(*manager.run(*pypto::text::parse_program(text))).c_str(), stdout);
}

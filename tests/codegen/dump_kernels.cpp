// tests/codegen/dump_kernels.cpp — writes the NPU and CPU sources of every kernel of a program
// in the text format into a directory, as <kernel>.npu.cpp and <kernel>.cpu.cpp, for
// syntax_check.cmake to compile with -fsyntax-only (issue 8: emitted code is always well-formed
// C++). Usage: pypto_codegen_dump PROGRAM.pl OUTDIR
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "pypto/codegen/cpu_target.hpp"
#include "pypto/codegen/kernel_codegen.hpp"
#include "pypto/codegen/npu_target.hpp"
#include "pypto/text/parser.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: pypto_codegen_dump PROGRAM.pl OUTDIR\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "cannot open " << argv[1] << "\n";
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  try {
    const auto program = pypto::text::parse_program(text.str());
    for (const auto& f : program->functions) {
      const std::string base = std::string(argv[2]) + "/" + f.name;
      std::ofstream(base + ".npu.cpp")
          << pypto::codegen::codegen_kernel<pypto::codegen::NpuTarget>(*f.function).source;
      std::ofstream(base + ".cpu.cpp")
          << pypto::codegen::codegen_kernel<pypto::codegen::CpuTarget>(*f.function).source;
      std::cout << f.name << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}

// Runs the parser's fuzz oracle (parser_case.hpp) over every file of a corpus directory: the
// inputs that once failed, kept as regression tests, plus seed programs for the fuzzer.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "parser_case.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: pypto_fuzz_corpus CORPUS_DIR\n";
    return 2;
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(argv[1]))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    pypto::fuzz::parser_case(text);
  }
  std::cout << files.size() << " corpus inputs passed\n";
  return files.empty() ? 1 : 0;
}

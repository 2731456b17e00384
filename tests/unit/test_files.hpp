// tests/unit/test_files.hpp — reading the data files tests compare against: the programs of
// tests/programs/, the pages of docs/ and golden sources.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace pypto_test {

/// The bytes of the file at `path`; fails the test case when it cannot be opened.
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in, "cannot open " << path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

#ifdef PYPTO_TEST_PROGRAMS_DIR
/// tests/programs/<name> (only the TUs tests/CMakeLists.txt gives the directory see this).
inline std::string read_program(std::string_view name) {
  // Appended in place: GCC 12 misreads `std::string(a) + "/" + b` at -O2 as an out-of-bounds
  // copy (-Warray-bounds) in some of the TUs that inline it.
  std::string path = PYPTO_TEST_PROGRAMS_DIR;
  path += '/';
  path += name;
  return read_file(path);
}
#endif

#ifdef PYPTO_TEST_DOCS_DIR
/// docs/<name> (only the TUs tests/CMakeLists.txt gives the directory see this).
inline std::string read_doc(std::string_view name) {
  return read_file(std::string(PYPTO_TEST_DOCS_DIR) + "/" + std::string(name));
}
#endif

}  // namespace pypto_test

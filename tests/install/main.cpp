// Consumer of the installed package: include a pypto header, use it, exit 0 on success.
#include <cstdio>
#include <pypto/core/dtype.hpp>

int main() {
  constexpr auto name = pypto::core::dtype_name(pypto::core::DataType::FP32);
  static_assert(name == "FP32");
  std::printf("pypto install test: found pypto::pypto, dtype %.*s\n",
              static_cast<int>(name.size()), name.data());
  return 0;
}

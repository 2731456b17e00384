// The one TU of the compiled mode (the CMake target pypto::compiled): every definition of the
// library, compiled once. See docs/compilation.md.
#include <pypto/src.hpp>

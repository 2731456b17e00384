// pypto/core/config.hpp — how the library's definitions reach a program.
//
// Every heavy component is a contract header (`text/printer.hpp`: types and declarations) and
// its definitions (`text/printer.ipp`). Two ways to consume them (docs/compilation.md):
//   header-only (default)  a contract header includes its `.ipp` at its end; PYPTO_DECL is
//                          `inline`; nothing to link.
//   compiled               define PYPTO_SEPARATE_COMPILATION for every TU and compile
//                          <pypto/src.hpp> in exactly one of them (or link the CMake target
//                          pypto::compiled, which does both); contract headers then declare only.
// Templates over user types stay in the headers in both modes.
#pragma once

#ifdef PYPTO_SEPARATE_COMPILATION
#define PYPTO_DECL
#else
#define PYPTO_DECL inline
#endif

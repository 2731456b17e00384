// pypto/runtime/seeded_inputs.hpp — deterministic inputs for a function's parameters: what
// `pypto-opt --run` and the end-to-end tests feed a program to compare two executions of it.
//
// The generator is splitmix64 with a fixed value mapping (no <random> distributions, whose
// results differ between standard libraries), so a seed means the same inputs everywhere.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/runtime/interpreter.hpp"

namespace pypto::ir {
struct Function;
}  // namespace pypto::ir

namespace pypto::runtime {

/// Extents of shape symbols, by name.
using SymbolExtents = std::map<std::string, std::int64_t, std::less<>>;

/// The values of signed integer tensor and tile elements: [low, high).
struct IntRange {
  std::int64_t low = -8;
  std::int64_t high = 8;
};

/// Values for parameters by name, taken as they are instead of drawn (`pypto-opt --input`).
using GivenInputs = std::map<std::string, Value, std::less<>>;

/// splitmix64: a fixed generator, so inputs are the same on every platform and library.
PYPTO_DECL std::uint64_t next_random(std::uint64_t& state);

/// Seeded inputs for `fn`'s parameters, tensors and tiles alike: FP32 values in [-2, 2)
/// (multiples of 2^-20, so sums are exact often and inexact sometimes), FP16 / BF16 the same
/// values rounded to the dtype, signed integers in [-8, 8), unsigned ones in [0, 16), BOOL 0 or
/// 1; float scalars in [-2, 2) rounded to their dtype, integer scalars in [1, 4] (loop
/// bounds and dims stay small). A dim must be a constant, a scalar parameter or a shape symbol
/// (given a multiple of 16 up to 64, one extent per symbol). `ints` sets the signed integer
/// elements' range: {0, 16} makes every one a valid index of an extent of 16 or more, {0, 8} of
/// 8 (the gathers' index tensors); an empty range is a RuntimeError.
/// `symbols` fixes the extents of the shape symbols it names (`pypto-opt --dim NR=1`); a dim may
/// also be + - * // of constants, scalar parameters and symbols (`NR * 64`).
/// `given` supplies parameters' values: a given scalar counts for the dims that name it, a given
/// tensor's extents bind the shape symbols its type names (before `symbols`), and a given value
/// of the wrong kind, dtype, rank or constant extent is a RuntimeError naming the parameter.
PYPTO_DECL std::vector<Value> seeded_inputs(const ir::Function& fn, std::uint64_t seed,
                                            IntRange ints = {}, const SymbolExtents& symbols = {},
                                            const GivenInputs& given = {});

}  // namespace pypto::runtime

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/runtime/seeded_inputs.ipp"
#endif

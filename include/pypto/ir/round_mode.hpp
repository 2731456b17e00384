// pypto/ir/round_mode.hpp — a cast's rounding modes: upstream PyPTO's RoundMode numbers and names.
//
// `tile.cast` / `tensor.cast` take `mode=` as a number or one of these names (the catalog's
// keyword spec reads them); left out, it is "round". What each mode does to a float becoming an
// integer is codegen/kernel_abi.hpp's float_to_integer; the NPU target spells them
// `RoundMode::CAST_<NAME>`, as PTO-ISA does.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace pypto::ir {

/// The mode names, by number.
inline constexpr std::array<std::string_view, 7> kRoundModeNames = {
    "none", "rint", "round", "floor", "ceil", "trunc", "odd"};

/// The mode a cast that leaves `mode=` out rounds with ("round").
inline constexpr std::int64_t kDefaultRoundMode = 2;

}  // namespace pypto::ir

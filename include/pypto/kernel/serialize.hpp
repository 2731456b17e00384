// pypto/kernel/serialize.hpp — a versioned little-endian binary format (PPKX) for lists of
// kernel Specs.
//
// Every field of Spec is written, so read(write(x)) == x. Writing always uses kFormatVersion;
// reading also takes version 1 streams (the same layout without the matmul byte: their specs
// have no matmul). Reading never canonicalizes: a registry that stores canonical specs reads
// back exactly what it wrote. All integers are little-endian, independent of the host's byte
// order. O(bytes).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/validate.hpp"

namespace pypto::kernel {

inline constexpr std::uint32_t kFormatVersion = 2;  // 2 added the matmul segment
inline constexpr std::uint32_t kOldestFormatVersion = 1;
inline constexpr std::uint8_t kFormatMagic[4] = {'P', 'P', 'K', 'X'};

/// Bytes that are not a well-formed PPKX stream; the message names the byte offset.
class FormatError : public core::ValueError {
 public:
  explicit FormatError(const std::string& message) : core::ValueError(message) {}
};

/// Serializes `specs` (each must be valid; SpecError otherwise) into one PPKX stream:
///   "PPKX"  u32 version (= kFormatVersion)  u32 spec count
///   per spec:
///     u8 num_regs
///     u8 instr count,          per instr 8 bytes: op, dst, a.kind, a.index, b.kind, b.index,
///                              c.kind, c.index
///     u8 view count,           per view: u8 kind, u32 param
///     u8 const count,          per const: u32 FP32 bit pattern
///     u8 runtime-scalar count, per scalar: u32 FP32 bit pattern
///     u8 matmul presence (0 or 1), if 1: u8 a_input, u8 b_input, u8 transposes (bit 0 trans_a,
///                              bit 1 trans_b, the others 0), u32 k, u32 batch      (version 2)
PYPTO_DECL std::vector<std::uint8_t> write_specs(std::span<const Spec> specs);

/// Parses a PPKX stream; every spec is validated. Throws FormatError naming the byte offset: a
/// wrong magic or an unknown version, truncation, a count over the Spec limits, an unknown op,
/// operand kind or view kind, a matmul presence byte other than 0 or 1 or unknown transpose
/// bits, trailing bytes, and any spec that fails validate() (reported with the offset where
/// that spec starts: a matmul slot out of range, k = 0, ...).
PYPTO_DECL std::vector<Spec> read_specs(std::span<const std::uint8_t> bytes);

}  // namespace pypto::kernel

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/kernel/serialize.ipp"
#endif

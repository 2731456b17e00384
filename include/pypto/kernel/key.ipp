// pypto/kernel/key.ipp — the definitions of kernel/key.hpp.
#pragma once

#include "pypto/kernel/key.hpp"

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pypto/core/hash.hpp"
#include "pypto/kernel/canonicalize.hpp"
#include "pypto/kernel/fold.hpp"
#include "pypto/kernel/spec.hpp"

namespace pypto::kernel {

PYPTO_DECL std::string Key::hex() const {
  constexpr char digits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[static_cast<std::size_t>(i)] = digits[(hi >> (60 - 4 * i)) & 15];
    out[static_cast<std::size_t>(16 + i)] = digits[(lo >> (60 - 4 * i)) & 15];
  }
  return out;
}

namespace detail {

class KeyHasher {
 public:
  void add(std::uint64_t v) {
    hi_ = core::hash_combine(hi_, v);
    lo_ = core::hash_combine(lo_, (v ^ 0xa0761d6478bd642fULL) * 0xe7037ed1a0b428dbULL);
  }
  Key key() const { return {core::hash_mix(hi_ ^ 0x8ebc6af09c88c6e3ULL), core::hash_mix(lo_)}; }

 private:
  std::uint64_t hi_ = core::hash_string("pypto.kernel.key/hi");
  std::uint64_t lo_ = core::hash_string("pypto.kernel.key/lo");
};

inline std::uint64_t operand_word(const Operand& o) {
  return (std::uint64_t{static_cast<std::uint8_t>(o.kind)} << 8) | o.index;
}

/// The structural fields of a matmul segment, tagged: its input slots (the transposes, k and
/// batch are run-time parameters).
inline std::uint64_t matmul_word(const Matmul& m) {
  constexpr std::uint64_t kTag = 0x4d4d'0000'0000'0000ULL;  // "MM"
  return kTag | (std::uint64_t{m.a_input} << 24) | (std::uint64_t{m.b_input} << 16);
}

}  // namespace detail

PYPTO_DECL Key structural_key(const Spec& canonical, FoldFlags flags) {
  detail::KeyHasher h;
  h.add(kPipelineVersion);
  h.add(static_cast<std::uint8_t>(flags));
  h.add(canonical.num_regs);
  h.add(canonical.instrs.size());
  for (const Instr& in : canonical.instrs) {
    // op, dst and three 16-bit operands fill one 64-bit word exactly
    h.add((std::uint64_t{static_cast<std::uint8_t>(in.op)} << 56) | (std::uint64_t{in.dst} << 48) |
          (detail::operand_word(in.a) << 32) | (detail::operand_word(in.b) << 16) |
          detail::operand_word(in.c));
  }
  h.add(canonical.views.size());
  for (const View& v : canonical.views) h.add(static_cast<std::uint8_t>(v.kind));
  h.add(canonical.consts.size());
  h.add(canonical.runtime_scalars.size());
  if (const std::optional<Matmul>& m = canonical.matmul) h.add(detail::matmul_word(*m));
  return h.key();
}

PYPTO_DECL Key kernel_key(const Spec& spec, FoldFlags flags) {
  return structural_key(canonicalize(spec, flags), flags);
}

PYPTO_DECL bool same_structure(const Spec& a, const Spec& b) {
  if (a.num_regs != b.num_regs || a.instrs != b.instrs || a.views.size() != b.views.size() ||
      a.consts.size() != b.consts.size() || a.runtime_scalars.size() != b.runtime_scalars.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.views.size(); ++i) {
    if (a.views[i].kind != b.views[i].kind) return false;
  }
  if (a.matmul.has_value() != b.matmul.has_value()) return false;
  return !a.matmul || detail::matmul_word(*a.matmul) == detail::matmul_word(*b.matmul);
}

}  // namespace pypto::kernel

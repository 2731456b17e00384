// pypto/kernel/serialize.ipp — the definitions of kernel/serialize.hpp.
#pragma once

#include "pypto/kernel/serialize.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/validate.hpp"

namespace pypto::kernel {

namespace detail {

class ByteWriter {
 public:
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  std::vector<std::uint8_t> take() { return std::move(out_); }

 private:
  std::vector<std::uint8_t> out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::uint8_t> in) : in_(in) {}
  std::size_t offset() const { return pos_; }
  std::size_t remaining() const { return in_.size() - pos_; }

  [[noreturn]] void fail(std::size_t at, const std::string& what) const {
    throw FormatError("PPKX byte offset " + std::to_string(at) + ": " + what);
  }
  void need(std::size_t n, const char* what) const {
    if (remaining() < n) {
      fail(pos_, std::string("truncated: ") + what + " needs " + std::to_string(n) + " byte(s), " +
                     std::to_string(remaining()) + " left");
    }
  }
  std::uint8_t u8(const char* what) {
    need(1, what);
    return in_[pos_++];
  }
  std::uint32_t u32(const char* what) {
    need(4, what);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t{in_[pos_ + i]} << (8 * i);
    pos_ += 4;
    return v;
  }
  /// A count byte, checked against a Spec limit.
  std::uint8_t count(const char* what, std::size_t max) {
    const std::size_t at = pos_;
    const std::uint8_t n = u8(what);
    if (n > max) {
      fail(at, std::string(what) + " " + std::to_string(n) + " exceeds the limit of " +
                   std::to_string(max));
    }
    return n;
  }

 private:
  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
};

inline void write_operand(ByteWriter& w, const Operand& o) {
  w.u8(static_cast<std::uint8_t>(o.kind));
  w.u8(o.index);
}

inline Operand read_operand(ByteReader& r) {
  const std::size_t at = r.offset();
  const std::uint8_t kind = r.u8("operand kind");
  if (kind >= kOperandKindCount) r.fail(at, "invalid operand kind " + std::to_string(kind));
  return {static_cast<OperandKind>(kind), r.u8("operand index")};
}

inline void write_matmul(ByteWriter& w, const std::optional<Matmul>& m) {
  w.u8(m ? 1 : 0);
  if (!m) return;
  w.u8(m->a_input);
  w.u8(m->b_input);
  w.u8(static_cast<std::uint8_t>((m->trans_a ? 1 : 0) | (m->trans_b ? 2 : 0)));
  w.u32(m->k);
  w.u32(m->batch);
}

inline std::optional<Matmul> read_matmul(ByteReader& r) {
  const std::size_t at = r.offset();
  const std::uint8_t present = r.u8("matmul presence");
  if (present > 1) {
    r.fail(at, "invalid matmul presence byte " + std::to_string(present) + " (0 or 1)");
  }
  if (present == 0) return std::nullopt;
  Matmul m;
  m.a_input = r.u8("matmul a_input");
  m.b_input = r.u8("matmul b_input");
  const std::size_t bits_at = r.offset();
  const std::uint8_t bits = r.u8("matmul transposes");
  if (bits > 3) {
    r.fail(bits_at, "invalid matmul transpose bits " + std::to_string(bits) +
                        " (bit 0 trans_a, bit 1 trans_b)");
  }
  m.trans_a = (bits & 1) != 0;
  m.trans_b = (bits & 2) != 0;
  m.k = r.u32("matmul k");
  m.batch = r.u32("matmul batch");
  return m;
}

inline Spec read_spec(ByteReader& r, std::uint32_t version) {
  Spec s;
  s.num_regs = r.u8("num_regs");
  if (s.num_regs > kMaxRegs) {
    r.fail(r.offset() - 1, "num_regs " + std::to_string(s.num_regs) + " exceeds the limit of " +
                               std::to_string(kMaxRegs));
  }
  s.instrs.resize(r.count("instruction count", kMaxInstrs));
  for (Instr& in : s.instrs) {
    const std::size_t at = r.offset();
    const std::uint8_t op = r.u8("op");
    if (!is_valid_op(op)) r.fail(at, "invalid op code " + std::to_string(op));
    in.op = static_cast<Op>(op);
    in.dst = r.u8("dst");
    in.a = read_operand(r);
    in.b = read_operand(r);
    in.c = read_operand(r);
  }
  s.views.resize(r.count("view count", kMaxInputs));
  for (View& v : s.views) {
    const std::size_t at = r.offset();
    const std::uint8_t kind = r.u8("view kind");
    if (kind >= kViewKindCount) r.fail(at, "invalid view kind " + std::to_string(kind));
    v.kind = static_cast<ViewKind>(kind);
    v.param = r.u32("view param");
  }
  s.consts.resize(r.count("constant count", kMaxConsts));
  for (std::uint32_t& c : s.consts) c = r.u32("constant");
  s.runtime_scalars.resize(r.count("runtime scalar count", kMaxRuntimeScalars));
  for (std::uint32_t& c : s.runtime_scalars) c = r.u32("runtime scalar");
  if (version >= 2) s.matmul = read_matmul(r);
  return s;
}

}  // namespace detail

PYPTO_DECL std::vector<std::uint8_t> write_specs(std::span<const Spec> specs) {
  detail::ByteWriter w;
  for (std::uint8_t m : kFormatMagic) w.u8(m);
  w.u32(kFormatVersion);
  w.u32(static_cast<std::uint32_t>(specs.size()));
  for (const Spec& s : specs) {
    validate(s);
    w.u8(s.num_regs);
    w.u8(static_cast<std::uint8_t>(s.instrs.size()));
    for (const Instr& in : s.instrs) {
      w.u8(static_cast<std::uint8_t>(in.op));
      w.u8(in.dst);
      detail::write_operand(w, in.a);
      detail::write_operand(w, in.b);
      detail::write_operand(w, in.c);
    }
    w.u8(static_cast<std::uint8_t>(s.views.size()));
    for (const View& v : s.views) {
      w.u8(static_cast<std::uint8_t>(v.kind));
      w.u32(v.param);
    }
    w.u8(static_cast<std::uint8_t>(s.consts.size()));
    for (std::uint32_t c : s.consts) w.u32(c);
    w.u8(static_cast<std::uint8_t>(s.runtime_scalars.size()));
    for (std::uint32_t c : s.runtime_scalars) w.u32(c);
    detail::write_matmul(w, s.matmul);
  }
  return w.take();
}

PYPTO_DECL std::vector<Spec> read_specs(std::span<const std::uint8_t> bytes) {
  detail::ByteReader r(bytes);
  for (std::size_t i = 0; i < 4; ++i) {
    if (r.u8("magic") != kFormatMagic[i]) r.fail(i, "bad magic: expected \"PPKX\"");
  }
  const std::uint32_t version = r.u32("version");
  if (version < kOldestFormatVersion || version > kFormatVersion) {
    r.fail(4, "unsupported version " + std::to_string(version) + " (this reader reads " +
                  std::to_string(kOldestFormatVersion) + " to " + std::to_string(kFormatVersion) +
                  ")");
  }
  const std::uint32_t count = r.u32("spec count");
  std::vector<Spec> specs;
  // No reserve(count): a corrupted count must not allocate; truncation stops the loop.
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::size_t at = r.offset();
    Spec s = detail::read_spec(r, version);
    try {
      validate(s);
    } catch (const SpecError& e) {
      r.fail(at, "spec " + std::to_string(i) + " is invalid: " + e.what());
    }
    specs.push_back(std::move(s));
  }
  if (r.remaining() != 0) {
    r.fail(r.offset(), std::to_string(r.remaining()) + " trailing byte(s) after " +
                           std::to_string(count) + " spec(s)");
  }
  return specs;
}

}  // namespace pypto::kernel

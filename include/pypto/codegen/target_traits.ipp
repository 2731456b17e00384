// pypto/codegen/target_traits.ipp — the definitions of codegen/target_traits.hpp.
#pragma once

#include "pypto/codegen/target_traits.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/kernel/spec.hpp"

namespace pypto::codegen {

PYPTO_DECL std::string format_template(std::string_view tpl, std::string_view d, std::string_view a,
                                       std::string_view b, std::string_view c, std::string_view t) {
  std::string out;
  for (std::size_t i = 0; i < tpl.size(); ++i) {
    if (tpl[i] == '{' && i + 2 < tpl.size() && tpl[i + 2] == '}') {
      switch (tpl[i + 1]) {
        case 'd':
          out += d;
          i += 2;
          continue;
        case 'a':
          out += a;
          i += 2;
          continue;
        case 'b':
          out += b;
          i += 2;
          continue;
        case 'c':
          out += c;
          i += 2;
          continue;
        case 't':
          out += t;
          i += 2;
          continue;
        default: break;
      }
    }
    out += tpl[i];
  }
  return out;
}

PYPTO_DECL std::string brace_list(const std::vector<std::string>& items) {
  std::string out = "{";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "}";
}

PYPTO_DECL Dim tile_rows(const TileRef& t) {
  if (t.dims.size() <= 1) return {"1", 1};
  if (t.dims.size() == 2) return t.dims[0];
  Dim d{"", std::int64_t{1}};
  for (std::size_t k = 0; k + 1 < t.dims.size(); ++k) {
    d.text += (k ? " * " : "") + std::string("(") + t.dims[k].text + ")";
    if (d.value && t.dims[k].value)
      *d.value *= *t.dims[k].value;
    else
      d.value.reset();
  }
  if (d.value) d.text = std::to_string(*d.value);
  return d;
}
PYPTO_DECL Dim tile_cols(const TileRef& t) { return t.dims.empty() ? Dim{"1", 1} : t.dims.back(); }

PYPTO_DECL std::string tile_size_text(const TileRef& t) {
  const Dim r = tile_rows(t), c = tile_cols(t);
  if (r.value && c.value) return std::to_string(*r.value * *c.value);
  return "(" + r.text + ") * (" + c.text + ")";
}

PYPTO_DECL std::string hex_float_literal(std::uint32_t bits, std::string_view special_prefix) {
  const float f = kernel::bits_float(bits);
  if (f != f || f - f != 0.0f) {  // NaN or infinity
    constexpr char digits[] = "0123456789abcdef";
    std::string hex = "0x";
    for (int i = 7; i >= 0; --i) hex += digits[(bits >> (4 * i)) & 15];
    return std::string(special_prefix) + "(" + hex + "u)";
  }
  // Exact: decompose into sign, integer mantissa and power of two (no locale, no printf).
  const bool negative = (bits >> 31) != 0;
  const std::uint32_t exp_bits = (bits >> 23) & 0xff;
  std::uint32_t mant = bits & 0x7fffff;
  if (exp_bits == 0 && mant == 0) return negative ? "-0.0f" : "0.0f";
  int e = 0;
  if (exp_bits == 0) {
    e = -149;  // denormal: mant * 2^-149
  } else {
    mant |= 0x800000;
    e = static_cast<int>(exp_bits) - 150;
  }
  while ((mant & 1) == 0) {
    mant >>= 1;
    ++e;
  }
  // mant * 2^e, written as a hex float: 0x<mant>p<e>f
  constexpr char digits[] = "0123456789abcdef";
  std::string hex;
  for (std::uint32_t m = mant; m != 0; m >>= 4) hex.insert(hex.begin(), digits[m & 15]);
  return std::string(negative ? "-" : "") + "0x" + hex + "p" + std::to_string(e) + "f";
}

}  // namespace pypto::codegen

// pypto/runtime/npy.ipp — the definitions of runtime/npy.hpp.
#pragma once

#include "pypto/runtime/npy.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/codegen/kernel_abi.hpp"
#include "pypto/core/dtype.hpp"
#include "pypto/runtime/interpreter.hpp"

namespace pypto::runtime {

namespace npy_detail {

/// A NumPy element type: kind 'b' (bool), 'i', 'u' or 'f', and its size in bytes.
struct ElementType {
  char kind = 0;
  unsigned size = 0;
  bool operator==(const ElementType&) const = default;
};

/// The element type a value of dtype `t` is written as: nullopt when NumPy has none that holds
/// it exactly.
inline std::optional<ElementType> written_type(core::DataType t) {
  using D = core::DataType;
  switch (t) {
    case D::BOOL: return ElementType{'b', 1};
    case D::INT8: return ElementType{'i', 1};
    case D::INT16: return ElementType{'i', 2};
    case D::INT32: return ElementType{'i', 4};
    case D::INT64:
    case D::INDEX: return ElementType{'i', 8};
    case D::UINT8: return ElementType{'u', 1};
    case D::UINT16: return ElementType{'u', 2};
    case D::UINT32: return ElementType{'u', 4};
    case D::UINT64: return ElementType{'u', 8};
    case D::FP16: return ElementType{'f', 2};
    case D::FP32:
    case D::BF16:
    case D::FP8E4M3FN:
    case D::FP8E5M2:
    case D::FP8E8M0:
    case D::FP4: return ElementType{'f', 4};
    default: return std::nullopt;
  }
}

/// `<f4`, `|b1`: the descr NumPy writes (little-endian; `|` where byte order is moot).
inline std::string descr_text(ElementType e) {
  return std::string(e.size == 1 ? "|" : "<") + e.kind + std::to_string(e.size);
}

/// The multi-index of flat element `k` of `shape`, as errors print it: `[1, 0]`.
inline std::string index_text(std::size_t k, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    const auto extent = static_cast<std::size_t>(shape[d]);
    index[d] = static_cast<std::int64_t>(k % extent);
    k /= extent;
  }
  return shape_text(index);
}

/// The little-endian unsigned integer of `size` bytes at `p`.
inline std::uint64_t load_le(const char* p, unsigned size) {
  std::uint64_t u = 0;
  for (unsigned b = 0; b < size; ++b)
    u |= std::uint64_t{static_cast<unsigned char>(p[b])} << (8 * b);
  return u;
}

inline void store_le(std::string& out, std::uint64_t u, unsigned size) {
  for (unsigned b = 0; b < size; ++b) out.push_back(static_cast<char>((u >> (8 * b)) & 0xffu));
}

/// The header's dictionary, e.g. `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`:
/// a Python literal with exactly these three keys.
struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};

class HeaderReader {
 public:
  HeaderReader(std::string_view text, const std::string& file) : s_(text), file_(file) {}

  Header read() {
    Header h;
    bool seen[3] = {false, false, false};
    expect('{');
    while (!eat('}')) {
      skip();
      const std::size_t key_at = i_;
      const std::string key = quoted();
      const int slot = key == "descr" ? 0 : key == "fortran_order" ? 1 : key == "shape" ? 2 : -1;
      if (slot < 0) fail("unknown key '" + key + "'", key_at);
      if (seen[slot]) fail("key '" + key + "' given twice", key_at);
      expect(':');
      seen[slot] = true;
      if (slot == 0) h.descr = quoted();
      if (slot == 1) h.fortran_order = boolean();
      if (slot == 2) h.shape = dims();
      if (eat('}')) break;
      expect(',');
    }
    skip();
    if (i_ != s_.size()) fail("text after the dictionary");
    for (int k = 0; k < 3; ++k)
      if (!seen[k])
        fail(std::string("no key '") +
             (k == 0   ? "descr"
              : k == 1 ? "fortran_order"
                       : "shape") +
             "'");
    return h;
  }

 private:
  /// `what` is wrong at `at` (default: where reading stands), a 0-based offset in the header.
  [[noreturn]] void fail(const std::string& what, std::size_t at = std::string::npos) const {
    throw RuntimeError("array file '" + file_ + "': header column " +
                       std::to_string((at == std::string::npos ? i_ : at) + 1) + ": " + what);
  }
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  std::string quoted() {
    skip();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) fail("expected a quoted string");
    const char quote = s_[i_++];
    const std::size_t start = i_;
    while (i_ < s_.size() && s_[i_] != quote) ++i_;
    if (i_ >= s_.size()) fail("unterminated string");
    return std::string(s_.substr(start, i_++ - start));
  }
  bool boolean() {
    skip();
    for (const bool value : {true, false}) {
      const std::string_view word = value ? "True" : "False";
      if (s_.substr(i_, word.size()) == word) {
        i_ += word.size();
        return value;
      }
    }
    fail("expected True or False");
  }
  std::vector<std::int64_t> dims() {
    std::vector<std::int64_t> out;
    expect('(');
    while (!eat(')')) {
      skip();
      std::int64_t d = 0;
      std::size_t digits = 0;
      for (; i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9'; ++i_, ++digits) {
        if (d > (std::int64_t{1} << 40)) fail("a dimension too large");
        d = d * 10 + (s_[i_] - '0');
      }
      if (digits == 0) fail("expected a nonnegative dimension");
      if (i_ < s_.size() && s_[i_] == 'L') ++i_;  // Python 2 wrote longs so
      out.push_back(d);
      if (eat(')')) break;
      expect(',');
    }
    return out;
  }

  std::string_view s_;
  const std::string& file_;
  std::size_t i_ = 0;
};

inline constexpr std::string_view kMagic{"\x93NUMPY", 6};

}  // namespace npy_detail

PYPTO_DECL std::string write_npy(const Value& v) {
  using namespace npy_detail;
  if (v.kind != ValueKind::Scalar && !v.is_shaped())
    throw RuntimeError("write_npy: only a tensor, a tile or a scalar has an array file");
  const std::optional<ElementType> e = written_type(v.dtype);
  if (!e)
    throw RuntimeError("write_npy: no NumPy dtype holds " + std::string(core::dtype_name(v.dtype)) +
                       " elements exactly");
  const std::vector<std::int64_t> shape =
      v.is_shaped() ? v.buffer->shape : std::vector<std::int64_t>{};
  std::string dims;
  for (std::size_t k = 0; k < shape.size(); ++k) dims += (k ? ", " : "") + std::to_string(shape[k]);
  if (shape.size() == 1) dims += ",";
  std::string header =
      "{'descr': '" + descr_text(*e) + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Magic, version, length, dictionary, newline: padded with spaces to a multiple of 64 bytes.
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  store_le(out, header.size(), 2);
  out += header;

  auto put_float = [&](float x) {
    if (e->size == 2)
      store_le(out, codegen::float_to_half(x, codegen::HalfFormat::FP16, true), 2);
    else
      store_le(out, std::bit_cast<std::uint32_t>(x), 4);
  };
  auto put_int = [&](std::int64_t x) { store_le(out, static_cast<std::uint64_t>(x), e->size); };
  if (!v.is_shaped()) {
    if (is_float_dtype(v.dtype))
      put_float(v.f);
    else
      put_int(v.i);
    return out;
  }
  if (is_float_dtype(v.dtype))
    for (float x : v.buffer->f32) put_float(x);
  else
    for (std::int64_t x : v.buffer->ints) put_int(x);
  return out;
}

PYPTO_DECL Value read_npy(std::string_view bytes, core::DataType dtype, bool tile,
                          const std::string& file) {
  using namespace npy_detail;
  auto fail = [&](const std::string& what) -> RuntimeError {
    return RuntimeError("array file '" + file + "': " + what);
  };
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic)
    throw fail("not a .npy file (no \\x93NUMPY magic)");
  const auto major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3) throw fail("format version " + std::to_string(major) + " is unknown");
  const unsigned length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) throw fail("truncated header");
  const std::uint64_t header_size = load_le(bytes.data() + 8, length_bytes);
  const std::size_t data_start = 8 + length_bytes + header_size;
  if (data_start > bytes.size()) throw fail("truncated header");
  const Header h = HeaderReader(bytes.substr(8 + length_bytes, header_size), file).read();

  const std::string_view d = h.descr;
  const bool le_host = std::endian::native == std::endian::little;
  if (d.size() != 3 || (d[0] != '<' && d[0] != '>' && d[0] != '|' && d[0] != '=') ||
      (d[1] != 'b' && d[1] != 'i' && d[1] != 'u' && d[1] != 'f') ||
      (d[2] != '1' && d[2] != '2' && d[2] != '4' && d[2] != '8'))
    throw fail("dtype '" + h.descr +
               "' is not a bool, integer or float type of 1, 2, 4 or 8 bytes");
  const ElementType got{d[1], static_cast<unsigned>(d[2] - '0')};
  if (got.size > 1 && (d[0] == '>' || (d[0] == '=' && !le_host)))
    throw fail("dtype '" + h.descr + "' is big-endian; write it little-endian ('<')");
  if (h.fortran_order && h.shape.size() > 1)
    throw fail("the array is in Fortran order; write it C-contiguous (numpy.ascontiguousarray)");

  // What the parameter's dtype reads: its own NumPy type, and for the 16-, 8- and 4-bit floats
  // also float32 values that are exactly of the dtype and their bit patterns (uint16, uint8).
  const std::optional<ElementType> own = written_type(dtype);
  const std::optional<codegen::MiniFormat> mini = mini_format(dtype);
  const bool half = dtype == core::DataType::FP16 || dtype == core::DataType::BF16;
  const bool from_f32 = (half || mini) && got == ElementType{'f', 4};
  const bool from_bits =
      (half && got == ElementType{'u', 2}) || (mini && got == ElementType{'u', 1});
  if (!own || !(got == *own || from_f32 || from_bits))
    throw fail("dtype '" + h.descr + "' does not hold " + std::string(core::dtype_name(dtype)) +
               " elements" + (own ? " (expected '" + descr_text(*own) + "')" : std::string()));

  std::size_t count = 1;
  for (std::int64_t extent : h.shape) {
    const auto e = static_cast<std::size_t>(extent);
    if (e != 0 && count > (std::size_t{1} << 40) / e) throw fail("the shape is too large");
    count *= e;
  }
  const std::size_t have = bytes.size() - data_start;
  if (have != count * got.size)
    throw fail("holds " + std::to_string(have) + " bytes of elements, its shape " +
               shape_text(h.shape) + " of '" + h.descr + "' needs " +
               std::to_string(count * got.size));

  const char* p = bytes.data() + data_start;
  std::vector<float> floats;
  std::vector<std::int64_t> ints;
  for (std::size_t k = 0; k < count; ++k, p += got.size) {
    const std::uint64_t u = load_le(p, got.size);
    if (is_float_dtype(dtype)) {
      float x = 0;
      if (from_bits && mini)
        x = codegen::mini_to_float(static_cast<std::uint8_t>(u), *mini);
      else if (from_bits)
        x = codegen::half_to_float(static_cast<std::uint16_t>(u), dtype == core::DataType::BF16
                                                                      ? codegen::HalfFormat::BF16
                                                                      : codegen::HalfFormat::FP16);
      else if (got.size == 2)
        x = codegen::half_to_float(static_cast<std::uint16_t>(u), codegen::HalfFormat::FP16);
      else
        x = std::bit_cast<float>(static_cast<std::uint32_t>(u));
      if (from_f32 && !std::isnan(x) &&
          std::bit_cast<std::uint32_t>(rounded(dtype, x)) != std::bit_cast<std::uint32_t>(x))
        throw fail("element " + index_text(k, h.shape) + " (" + std::to_string(x) + ") is not a " +
                   std::string(core::dtype_name(dtype)) + " value");
      floats.push_back(from_f32 ? rounded(dtype, x) : x);
    } else if (got.kind == 'b') {
      if (u > 1)
        throw fail("element " + index_text(k, h.shape) + " is the byte " + std::to_string(u) +
                   ", not a bool");
      ints.push_back(static_cast<std::int64_t>(u));
    } else if (got.kind == 'i' && got.size < 8) {
      const unsigned shift = 64 - 8 * got.size;  // sign-extend
      ints.push_back(static_cast<std::int64_t>(u << shift) >> shift);
    } else {
      ints.push_back(static_cast<std::int64_t>(u));
    }
  }
  if (h.shape.empty()) {
    if (is_float_dtype(dtype)) return Value::scalar_float(floats[0], dtype);
    if (dtype == core::DataType::BOOL) return Value::scalar_bool(ints[0] != 0);
    return Value::scalar_int(ints[0], dtype);
  }
  Value v = Value::zeros(dtype, h.shape, tile);
  if (is_float_dtype(dtype))
    v.buffer->f32 = std::move(floats);
  else
    v.buffer->ints = std::move(ints);
  return v;
}

}  // namespace pypto::runtime

// pypto/core/dtype.hpp — the scalar element types of the IR.
//
// A DataType is one exact byte code; the high nibble is the family (bool, signed, unsigned,
// IEEE float, brain/HiSilicon float, identifier) and the low nibble the member. Codes are
// compared raw: INDEX (the machine word, the type of a bare integer literal) and INT64 are
// different types ("scalar dtype: exact raw code"). All queries are O(1) and
// constexpr.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pypto::core {

enum class DataType : std::uint8_t {
  BOOL = 0x00,
  INT4 = 0x10,
  INT8 = 0x11,
  INT16 = 0x12,
  INT32 = 0x13,
  INT64 = 0x14,
  INDEX = 0x15,
  UINT4 = 0x20,
  UINT8 = 0x21,
  UINT16 = 0x22,
  UINT32 = 0x23,
  UINT64 = 0x24,
  FP4 = 0x30,
  FP8E4M3FN = 0x31,
  FP8E5M2 = 0x32,
  FP16 = 0x33,
  FP32 = 0x34,
  FP8E8M0 = 0x36,
  BF16 = 0x40,
  HF4 = 0x41,
  HF8 = 0x42,
  TASK_ID = 0x50,
};

/// Every DataType, in code order; the single list the name table and parsers are built from.
inline constexpr DataType kAllDataTypes[] = {
    DataType::BOOL,   DataType::INT4,    DataType::INT8,    DataType::INT16,     DataType::INT32,
    DataType::INT64,  DataType::INDEX,   DataType::UINT4,   DataType::UINT8,     DataType::UINT16,
    DataType::UINT32, DataType::UINT64,  DataType::FP4,     DataType::FP8E4M3FN, DataType::FP8E5M2,
    DataType::FP16,   DataType::FP32,    DataType::FP8E8M0, DataType::BF16,      DataType::HF4,
    DataType::HF8,    DataType::TASK_ID,
};

constexpr std::uint8_t code(DataType t) { return static_cast<std::uint8_t>(t); }

/// The DSL spelling without the `pl.` prefix: "FP32", "INDEX", "TASK_ID".
constexpr std::string_view dtype_name(DataType t) {
  switch (t) {
    case DataType::BOOL: return "BOOL";
    case DataType::INT4: return "INT4";
    case DataType::INT8: return "INT8";
    case DataType::INT16: return "INT16";
    case DataType::INT32: return "INT32";
    case DataType::INT64: return "INT64";
    case DataType::INDEX: return "INDEX";
    case DataType::UINT4: return "UINT4";
    case DataType::UINT8: return "UINT8";
    case DataType::UINT16: return "UINT16";
    case DataType::UINT32: return "UINT32";
    case DataType::UINT64: return "UINT64";
    case DataType::FP4: return "FP4";
    case DataType::FP8E4M3FN: return "FP8E4M3FN";
    case DataType::FP8E5M2: return "FP8E5M2";
    case DataType::FP16: return "FP16";
    case DataType::FP32: return "FP32";
    case DataType::FP8E8M0: return "FP8E8M0";
    case DataType::BF16: return "BF16";
    case DataType::HF4: return "HF4";
    case DataType::HF8: return "HF8";
    case DataType::TASK_ID: return "TASK_ID";
  }
  return "<invalid dtype>";
}

/// Inverse of dtype_name; nullopt for an unknown spelling.
constexpr std::optional<DataType> parse_dtype(std::string_view name) {
  for (DataType t : kAllDataTypes)
    if (dtype_name(t) == name) return t;
  return std::nullopt;
}

/// True for a byte that is the code of some DataType (used when decoding untrusted input).
constexpr bool is_valid_dtype_code(std::uint8_t c) {
  for (DataType t : kAllDataTypes)
    if (code(t) == c) return true;
  return false;
}

constexpr unsigned family(DataType t) { return code(t) >> 4; }
constexpr bool is_bool(DataType t) { return t == DataType::BOOL; }
constexpr bool is_signed_int(DataType t) { return family(t) == 0x1; }
constexpr bool is_unsigned_int(DataType t) { return family(t) == 0x2; }
constexpr bool is_int(DataType t) { return is_signed_int(t) || is_unsigned_int(t); }
constexpr bool is_float(DataType t) { return family(t) == 0x3 || family(t) == 0x4; }
constexpr bool is_index_like(DataType t) { return is_int(t); }

/// Storage width in bits (INDEX is a 64-bit machine word; TASK_ID a 64-bit handle).
constexpr unsigned bit_width(DataType t) {
  switch (t) {
    case DataType::BOOL: return 8;
    case DataType::INT4:
    case DataType::UINT4:
    case DataType::FP4:
    case DataType::HF4: return 4;
    case DataType::INT8:
    case DataType::UINT8:
    case DataType::FP8E4M3FN:
    case DataType::FP8E5M2:
    case DataType::FP8E8M0:
    case DataType::HF8: return 8;
    case DataType::INT16:
    case DataType::UINT16:
    case DataType::FP16:
    case DataType::BF16: return 16;
    case DataType::INT32:
    case DataType::UINT32:
    case DataType::FP32: return 32;
    case DataType::INT64:
    case DataType::UINT64:
    case DataType::INDEX:
    case DataType::TASK_ID: return 64;
  }
  return 0;
}

}  // namespace pypto::core

// pypto/runtime/prebuilt_manifest.hpp — the prebuilt kernel manifest, schema 1: several
// registrations may reference one validated binary file; duplicate function IDs stay invalid.
//
//   {"schema": 1,
//    "binaries": [{"file": "add.so", "sha256": "<64 lowercase hex digits>"}],
//    "registrations": [{"func_id": 0, "name": "kernel_add", "core_type": "aiv",
//                       "signature": ["IN", "IN", "OUT"], "binary": "add.so"}]}
//
// `file` is relative to the manifest's directory (or absolute) and unique; `binary` names one of
// the listed files; `name` is the registration's code name; `signature` lists the tensor
// directions (IN / OUT / INOUT). Parsing is strict: unknown or missing keys, a wrong kind, an
// unknown schema, a duplicate func_id or file, a dangling `binary` are ManifestErrors at the
// offending value's line:column. Files and checksums are checked when the binaries are loaded
// (kernel_library.hpp), before any dlopen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/codegen/kernel_registration.hpp"
#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"

namespace pypto::runtime {

class ManifestError : public core::ValueError {
 public:
  explicit ManifestError(const std::string& message) : core::ValueError(message) {}
};

inline constexpr std::int64_t kPrebuiltManifestSchema = 1;

struct PrebuiltBinary {
  std::string file;    ///< as written in the manifest
  std::string path;    ///< resolved against the manifest's directory
  std::string sha256;  ///< 64 lowercase hex digits
};

struct PrebuiltManifest {
  std::vector<PrebuiltBinary> binaries;
  std::vector<codegen::KernelRegistration> registrations;
  std::vector<std::size_t> binary_of;  ///< registrations[k]'s binary, an index into binaries
};

/// Parses manifest text; relative binary files resolve against `base_dir`; `source` names the
/// text in messages ("<source>:line:column: ...").
PYPTO_DECL PrebuiltManifest parse_prebuilt_manifest(std::string_view text,
                                                    const std::string& base_dir,
                                                    const std::string& source = "<manifest>");

/// Reads and parses the manifest file at `path` (binaries relative to its directory).
PYPTO_DECL PrebuiltManifest read_prebuilt_manifest(const std::string& path);

/// The manifest as schema-1 JSON (deterministic: the order of `m`), for tools that write one.
PYPTO_DECL std::string prebuilt_manifest_json(const PrebuiltManifest& m);

}  // namespace pypto::runtime

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/runtime/prebuilt_manifest.ipp"
#endif

// pypto/structural/fingerprint.hpp — a function's structural hash and what its hash walk met.
//
// `fingerprint(f, options)` runs structural_hash's walk once over a Function and returns the hash
// with the walk's census (census.hpp: records, per-kind counts, free variables, the root's
// signature symbols); on request the walk also appends its exact stream and tells an observer of
// every node it enters. Exactness: the hash is structural_hash(f, enable_auto_mapping) (equal
// functions have equal hashes; a hash match proves nothing); two streams that are both exact
// (`stream_exact`) and equal word for word, under the same options, prove the functions
// structurally equal, and equal functions with the same sharing give equal streams. IR the
// projection cannot represent throws the projector's StructuralComparisonUnsupported with its field
// path, as structural_hash does, or, when asked, only clears `supported`. Cost: one O(N) walk over
// the thread's reused tables, O(N) stream words when recorded; the result is trivially copyable (no
// allocation); locating an unsupported node costs one canonical projection.
#pragma once

#include <cstdint>

#include "pypto/core/config.hpp"
#include "pypto/detail/pod_stack.hpp"
#include "pypto/structural/census.hpp"
#include "pypto/structural/errors.hpp"

namespace pypto::ir {
struct Function;
}  // namespace pypto::ir

namespace pypto::structural {

/// Where hash walks append their streams: 32-bit tokens, each delimiting itself, in walk order.
using FingerprintStream = ::pypto::detail::PodStack<std::uint32_t>;

struct FingerprintOptions {
  bool enable_auto_mapping = false;
  /// Appended with the walk's stream; left as it was when `f` is unsupported. Null: none.
  FingerprintStream* stream = nullptr;
  /// Told of every node the walk enters (only until the refusal when `f` is unsupported).
  FingerprintObserver* observer = nullptr;
  /// When `f` is unsupported: true runs the canonical projection, which throws
  /// StructuralComparisonUnsupported with the reason and the field path; false only clears
  /// Fingerprint::supported, at no cost beyond the walk (for a caller that reports it later).
  bool throw_unsupported = true;
};

struct Fingerprint {
  std::uint64_t hash = 0;  ///< structural_hash(f, enable_auto_mapping); 0 when unsupported
  /// What the walk finished (up to the refusal when unsupported).
  FingerprintCensus census;
  /// False: the projection cannot represent `f` (nesting too deep, a cycle, an opaque payload,
  /// a duplicate attribute key) and `throw_unsupported` was false — or the projector accepted
  /// what the hash walk refused (a bug of the library, reported so rather than thrown).
  bool supported = true;
  /// The stream this walk appends (or would append) encodes it exactly and may be compared; false
  /// after a nested Function or a repeated use of a free-numbered or implicit binding.
  bool stream_exact = false;
};

/// The structural hash of `f` with its census (and stream, and observations, as asked).
PYPTO_DECL Fingerprint fingerprint(const ir::Function& f, const FingerprintOptions& options = {});

}  // namespace pypto::structural

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/structural/fingerprint.ipp"
#endif

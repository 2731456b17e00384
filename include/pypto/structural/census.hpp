// pypto/structural/census.hpp — what a structural hash walk met, and who is told as it walks.
//
// FingerprintCensus counts what one walk of structural_hash's projection finished: its records
// (each node walked once, shared nodes once per function context), how many of each kind, the
// free variables it met without auto-mapping and the signature symbols its root Function binds.
// FingerprintObserver is told of each of those nodes as the walk enters it. Both are filled by
// the walk itself (structural/projection.hpp) and handed out by structural/fingerprint.hpp; this
// light header is the one both include, so the walk writes the public types with no copy or
// adaptor in between. Reading them costs nothing beyond the walk.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pypto/ir/node.hpp"

namespace pypto::structural {

/// What one hash walk finished.
struct FingerprintCensus {
  std::uint64_t records = 0;                     ///< records finished (the walk's weight)
  std::uint64_t free_vars = 0;                   ///< free Vars met (without auto-mapping)
  std::uint64_t root_signature_symbols = 0;      ///< signature symbols of the root Function
  std::uint32_t kinds[ir::kNodeKindCount] = {};  ///< records finished, per NodeKind

  /// The records of kind `k`.
  std::uint32_t count(ir::NodeKind k) const { return kinds[static_cast<std::size_t>(k)]; }
};

/// Told of every node a walk enters (each once per function context, as the census counts
/// them; what resolves at once — a scalar type, a variable use, a shared node already walked —
/// is not entered), so that a caller needing a fact of every node gets it from the hash walk
/// instead of walking again. It must not change the IR.
class FingerprintObserver {
 public:
  virtual void walked(const ir::Node& n) = 0;

 protected:
  ~FingerprintObserver() = default;
};

}  // namespace pypto::structural

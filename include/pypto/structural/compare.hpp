// pypto/structural/compare.hpp — structural_equal, structural_hash, assert_structural_equal.
//
// One exact semantics, no modes besides `enable_auto_mapping`: two sides are equal iff they
// project to the same record number in one arena; the hash is the root record's hash. Equality
// first walks both sides in lockstep, which settles the common equal case without building
// records; when the walks diverge, the canonical projection decides (structural_equal_hashed lets
// two known hashes that differ decide first). `find_first_mismatch` descends from the roots along
// the first differing child and reports the first differing field path and both values. Null
// handles: two nulls are equal, a null and a node are not. IR that cannot be projected (opaque
// attribute payloads, duplicate attribute keys, cycles, nesting deeper than kMaxNesting) throws
// StructuralComparisonUnsupported from every entry point — it is never reported as "not equal".
// O(N) expected, O(N log N) worst case; O(N) memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pypto/core/config.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/structural/errors.hpp"

namespace pypto::structural {

/// True when `a` and `b` are structurally equal.
PYPTO_DECL bool structural_equal(const ir::Node& a, const ir::Node& b,
                                 bool enable_auto_mapping = false);
PYPTO_DECL bool structural_equal(const ir::NodeRef& a, const ir::NodeRef& b,
                                 bool enable_auto_mapping = false);

/// structural_equal(a, b, enable_auto_mapping) for two nodes whose structural hashes under the
/// same `enable_auto_mapping` are known (`hash_a`, `hash_b`): the lockstep walk first; when it
/// diverges, different hashes prove inequality (equal ⇒ same hash) and only a hash match
/// (sharing that differs, or a collision) takes the canonical projection. Cheap on a difference.
PYPTO_DECL bool structural_equal_hashed(const ir::Node& a, const ir::Node& b, std::uint64_t hash_a,
                                        std::uint64_t hash_b, bool enable_auto_mapping = false);

/// A fingerprint consistent with structural_equal under the same `enable_auto_mapping`:
/// equal ⇒ same hash. Deterministic within and across processes for the same construction
/// sequence (free variables hash by creation number). Not a persistent cache key, and a hash
/// match is never proof of equality.
PYPTO_DECL std::uint64_t structural_hash(const ir::Node& x, bool enable_auto_mapping = false);
PYPTO_DECL std::uint64_t structural_hash(const ir::NodeRef& x, bool enable_auto_mapping = false);

/// Where and how two nodes first differ.
struct StructuralMismatch {
  std::string field_path;  ///< from the roots, e.g. `body[2].value.args[0].type.shape[1]`
  std::string reason;
  std::string lhs, rhs;            ///< the differing values, or the differing nodes described
  ir::NodeRef lhs_node, rhs_node;  ///< the nodes holding the difference (for printing)
};

/// The first field path where `a` and `b` differ, or nullopt when they are equal.
PYPTO_DECL std::optional<StructuralMismatch> find_first_mismatch(const ir::NodeRef& a,
                                                                 const ir::NodeRef& b,
                                                                 bool enable_auto_mapping = false);

/// Throws core::ValueError naming the first differing field path and both sides unless `a`
/// and `b` are structurally equal.
PYPTO_DECL void assert_structural_equal(const ir::NodeRef& a, const ir::NodeRef& b,
                                        bool enable_auto_mapping = false);

}  // namespace pypto::structural

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/structural/compare.ipp"
#endif

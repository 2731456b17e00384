// pypto/structural.hpp — structural comparison: equal, hash, fingerprints (hash, census and exact
// stream), first-mismatch diagnostics and binding verification, also reachable as
// pypto::ir::structural_equal & co. An umbrella of contracts, for hosts; library headers include
// the component headers instead.
#pragma once

#include "pypto/structural/bindings.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/structural/errors.hpp"
#include "pypto/structural/fingerprint.hpp"
#include "pypto/structural/signature.hpp"

namespace pypto::ir {
using structural::assert_structural_equal;
using structural::find_first_mismatch;
using structural::structural_equal;
using structural::structural_equal_hashed;
using structural::structural_hash;
using structural::StructuralComparisonUnsupported;
using structural::StructuralMismatch;
using structural::verify_structural_bindings;
}  // namespace pypto::ir

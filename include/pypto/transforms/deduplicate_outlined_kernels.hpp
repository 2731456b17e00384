// pypto/transforms/deduplicate_outlined_kernels.hpp — one definition for equivalent kernels.
//
// DeduplicateOutlinedKernels runs after OutlineClusterScopes. A unit is a referenced, closed
// InCore / AIC / AIV kernel or an exclusive Group bundle (the bridge and its kernel members, their
// names normalized to positions); two units merge iff structurally equal with
// enable_auto_mapping=false (names ignored; attrs, directions, dtypes, layouts, storage and
// constants significant), or, for kernels whose signature shape symbols differ, when every call
// site passes the call-shape proof (call_shape_proof.hpp). In name order, the first of a class
// survives; every Call / Submit / peer_func naming an alias is re-pointed and nothing else
// changes. Every skip is reported through DedupOptions::on_event; an exhausted budget keeps the
// original. Time O(N log N), storage O(N).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/transforms/pass.hpp"

namespace pypto::transforms {

/// Why a candidate (or a function that looked like one) keeps its own definition.
enum class DedupSkip : std::uint8_t {
  Unreferenced,           ///< no Call / Submit / peer_func names it: a potential entry
  NotClosed,              ///< free capture, runtime binding, resource, unknown type, ...
  UnsupportedProjection,  ///< the structural projection refused it (reason and field path)
  HelperGraph,            ///< it calls program functions outside a Group bundle
  BlockedBundle,          ///< a Group bundle (or its member) whose member is used elsewhere
  BudgetExhausted,        ///< the comparison budget ran out before every representative
  BucketFull,             ///< unmatched, and its hash bucket already holds the maximum
  ProgramKept,            ///< the reference index is incomplete: the whole Program is kept
  ShapeDistinct,          ///< equal up to signature symbols, but no call-shape proof
};

constexpr std::string_view dedup_skip_name(DedupSkip s) {
  switch (s) {
    case DedupSkip::Unreferenced: return "unreferenced";
    case DedupSkip::NotClosed: return "not closed";
    case DedupSkip::UnsupportedProjection: return "unsupported projection";
    case DedupSkip::HelperGraph: return "helper graph";
    case DedupSkip::BlockedBundle: return "blocked bundle";
    case DedupSkip::BudgetExhausted: return "budget exhausted";
    case DedupSkip::BucketFull: return "bucket full";
    case DedupSkip::ProgramKept: return "program kept";
    case DedupSkip::ShapeDistinct: return "shape distinct";
  }
  return "?";
}

/// One thing the pass did or declined to do.
struct DedupEvent {
  enum class Kind : std::uint8_t { Merged, Skipped };
  Kind kind = Kind::Skipped;
  /// Merged: the surviving unit (a kernel or a Group); Skipped: the candidate.
  std::string unit;
  /// Merged: every function now served by another, as (alias, survivor), bundles' members
  /// included, in name order of the alias units.
  std::vector<std::pair<std::string, std::string>> renamed;
  DedupSkip reason = DedupSkip::Unreferenced;  ///< Skipped only
  std::string detail;                          ///< Skipped: the specifics (path, caller, ...)

  /// `merged step <- step_copy` / `skipped k: not closed: free capture 'n'`.
  PYPTO_DECL std::string to_string() const;
};

using DedupSink = std::function<void(const DedupEvent&)>;

/// A diagnostics sink that keeps every event: `DedupOptions o; o.on_event = log.sink();`.
/// The log must outlive the pass runs that write to it.
class DedupLog {
 public:
  DedupSink sink() {
    return [this](const DedupEvent& e) { events_.push_back(e); };
  }
  const std::vector<DedupEvent>& events() const { return events_; }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (const auto& e : events_) out.push_back(e.to_string());
    return out;
  }
  /// The events of one kind (and, for skips, one reason).
  std::size_t count(DedupEvent::Kind k, std::optional<DedupSkip> reason = std::nullopt) const {
    return static_cast<std::size_t>(std::count_if(events_.begin(), events_.end(), [&](auto& e) {
      return e.kind == k && (!reason || e.reason == *reason);
    }));
  }

 private:
  std::vector<DedupEvent> events_;
};

/// A unit as the hash sees it: its functions (a bundle's with normalized member names), the
/// default structural hash and the projection weight.
struct DedupUnit {
  std::string name;
  std::vector<ir::FunctionRef> functions;
  std::uint64_t structural_hash = 0;
  std::uint64_t weight = 0;
};

struct DedupOptions {
  DedupSink on_event;  ///< null: no diagnostics
  /// The bucket key of a unit; null: its structural hash. (Tests put every unit in one bucket.)
  std::function<std::uint64_t(const DedupUnit&)> unit_hash;
  /// At most this many representatives per hash bucket.
  std::size_t bucket_capacity = 8;
  /// Comparing a new unit charges both units' weights against this times the new unit's weight.
  std::uint64_t budget_factor = 8;
};

/// DeduplicateOutlinedKernels: equivalent outlined kernels and exclusive Group bundles share one
/// definition; every Call / Submit is kept. Requires and preserves SSAForm, SplitIncoreOrch,
/// ClusterOutlined, NormalizedStmtStructure. O(N log N).
PYPTO_DECL Pass DeduplicateOutlinedKernels(DedupOptions options = {});

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/deduplicate_outlined_kernels.ipp"
#endif

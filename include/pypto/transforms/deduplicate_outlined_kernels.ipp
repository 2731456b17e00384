// pypto/transforms/deduplicate_outlined_kernels.ipp — the definitions of
// transforms/deduplicate_outlined_kernels.hpp.
#pragma once

#include "pypto/transforms/deduplicate_outlined_kernels.hpp"

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/core/hash.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/core/span.hpp"
#include "pypto/detail/hash_buckets.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/reflect/field.hpp"
#include "pypto/structural/census.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/structural/errors.hpp"
#include "pypto/structural/fingerprint.hpp"
#include "pypto/structural/signature.hpp"
#include "pypto/transforms/call_shape_proof.hpp"
#include "pypto/transforms/pass.hpp"
#include "pypto/transforms/prefetch_locality.hpp"
#include "pypto/transforms/property.hpp"
#include "pypto/transforms/reference_renamer.ipp"  // detail::peer_func_of

// The pass in full:
//
// A unit is either one referenced, closed InCore / AIC / AIV kernel, or an exclusive Group bundle
// (the Group bridge and its direct kernel members in first-use order, member names inside the
// bundle — callees and import_peer_buffer `peer_func` — normalized to their position). Two units
// merge iff they are structurally equal with enable_auto_mapping=false (parameters and signature
// symbols alpha-renamed by the projection; names ignored; attrs, directions, dtypes, layouts,
// storage and constant bits significant). Units are taken in name order; the first of an
// equivalence class survives; every Call / Submit / peer_func naming an alias is re-pointed at
// the survivor and nothing else of it changes (result types stay in caller coordinates, Submit
// launch fields stay, no task is removed); aliases are removed, bundles atomically; then every
// reference must resolve (InternalError otherwise). Unreferenced functions, Orchestration /
// Graph / Spmd / Opaque functions, kernels that are not closed (free captures, runtime bindings,
// storage or communication resources, unknown value types outside the statement-only
// allow-list, prefetch handles that are not produced and consumed locally), kernels calling
// program functions, and bundles with a member used from outside keep their identity; every
// skip is reported with its reason through DedupOptions::on_event. A payload the reference index
// cannot see through (an opaque attribute) or a reference to a missing function keeps the whole
// Program. Budgets: at most `bucket_capacity` (8) representatives per hash bucket; comparing a
// new unit charges both units' weights (records walked by the projection) against
// `budget_factor` (8) times the new unit's weight; exhaustion keeps the original. Time
// O(N log N), storage O(N). Shape-distinct merge: two equal ordinary kernels whose signature
// shape symbols are different variables merge only when every Call / Submit of the alias passes
// the call-shape proof against the survivor's signature (call_shape_proof.hpp; its steps come out
// of a budget equal to the weight the index walked); Group bundles and signatures the proof does
// not cover need the same symbols. A refused candidate is reported with the call site and the
// reason.

namespace pypto::transforms {

PYPTO_DECL std::string DedupEvent::to_string() const {
  if (kind == Kind::Merged) {
    std::string s = "merged " + unit + " <-";
    for (const auto& [alias, survivor] : renamed) {
      s += " " + alias;
      if (survivor != unit) s += "=>" + survivor;
    }
    return s;
  }
  std::string s = "skipped " + unit + ": " + std::string(dedup_skip_name(reason));
  if (!detail.empty()) s += ": " + detail;
  return s;
}

namespace detail {

/// The nine statement-only calls whose result may be UnknownType as a direct EvalStmt value.
inline bool is_statement_only_call(ir::OpId op) {
  using ir::OpId;
  static constexpr OpId kAllowed[] = {
      OpId::pld_tensor_put,    OpId::pld_tile_remote_store, OpId::pld_tensor_remote_store,
      OpId::pld_system_notify, OpId::pld_system_wait,       OpId::pld_system_defer_wait,
      OpId::system_set_ffts,   OpId::system_sync_set,       OpId::system_sync_wait};
  return std::find(std::begin(kAllowed), std::end(kAllowed), op) != std::end(kAllowed);
}

inline bool is_kernel(const ir::Function& f) {
  return f.func_type == ir::FunctionType::InCore || f.func_type == ir::FunctionType::AIC ||
         f.func_type == ir::FunctionType::AIV;
}

/// Lists a node's children (every reflected handle, attribute expressions included) and notes
/// opaque attribute payloads, which may hide references.
struct IndexChildren {
  std::vector<const ir::Node*>* out;
  bool opaque = false;

  template <class T>
  requires std::derived_from<T, ir::Node>
  void visit(const ir::Ref<const T>& child) {
    if (child) out->push_back(child.get());
  }
  void visit(const ir::Attrs& attrs) {
    for (const auto& e : attrs) visit_attr(e.value);
  }
  void visit_attr(const ir::AttrValue& v) {
    if (const auto* e = v.get_if<ir::ExprRef>()) visit(*e);
    if (const auto* l = v.get_if<ir::AttrValueList>())
      for (const auto& item : *l) visit_attr(item);
    if (v.get_if<ir::OpaquePayload>()) opaque = true;
  }
  template <class T>
  requires(std::is_arithmetic_v<T> || std::is_enum_v<T>) void visit(const T&) {}
  void visit(const std::string&) {}
  void visit(const core::Span&) {}
};

/// The pass's algorithm, one run per Program.
class Deduplicator {
  static constexpr std::size_t kNone = ~std::size_t{0};
  static constexpr std::uint32_t kEndOfBucket = ::pypto::detail::HashBuckets::kEnd;

 public:
  explicit Deduplicator(const DedupOptions& options) : options_(options) {}

  ir::ProgramRef run(const ir::Program& program) {
    // 1. index every reference (callees, peer_func names) of every function
    if (!index(program)) return ir::ProgramRef(&program);
    // 2. Group bundles first, then ordinary kernels; 3. admission (closure, projection)
    std::vector<Unit> units = collect_units(program);
    // 4. units in name order; buckets, budgets, exact equality
    std::sort(units.begin(), units.end(),
              [](const Unit& a, const Unit& b) { return a.info.name < b.info.name; });
    std::vector<std::size_t> survivor_of(units.size());
    program_ = &program;
    proof_budget_ = program_weight_;
    match(units, survivor_of);
    // 5. rewrite references to aliases, drop aliases, check that nothing dangles
    return rewrite(program, units, survivor_of);
  }

 private:
  /// What the index knows of one function.
  /// One Call or Submit naming a program function.
  struct Site {
    std::size_t caller;
    const ir::Expr* node;  ///< the Call or Submit
  };
  struct FnIndex {
    std::vector<std::size_t> callees;  ///< program functions it references, first-use order
    std::vector<std::size_t> callers;  ///< functions referencing it, program order, unique
    std::vector<Site> sites;           ///< Calls / Submits of it, in caller then walk order
    std::size_t other_references = 0;  ///< references that are not a Call / Submit callee
  };
  /// A kernel's closure problem (empty: closed), structural hash and weight, from the index.
  struct Inspection {
    std::string problem;
    std::uint64_t hash = 0;
    std::uint64_t weight = 0;
    std::uint64_t signature_symbols = 0;            ///< how many the hash walk numbered
    std::size_t stream_begin = 0, stream_size = 0;  ///< its hash walk's stream in streams_, if kept
    bool done = false;
    std::size_t equivalence_class = kNone;  ///< see classify()
  };
  /// A unit: its public view, the program functions it stands for (bridge first), and whether
  /// it is admitted to the comparison.
  struct Unit {
    DedupUnit info;
    std::vector<std::size_t> members;   ///< program function indices, parallel to functions
    std::vector<std::uint64_t> hashes;  ///< structural hash of each function
    std::uint64_t bucket = 0;
    bool admitted = false;
    bool bundle = false;
    /// Signature symbols of each function, computed when first needed.
    std::vector<std::vector<ir::VarRef>> symbols;
  };

  void report_skip(std::string unit, DedupSkip reason, std::string detail) const {
    if (!options_.on_event) return;
    DedupEvent e;
    e.kind = DedupEvent::Kind::Skipped;
    e.unit = std::move(unit);
    e.reason = reason;
    e.detail = std::move(detail);
    options_.on_event(e);
  }

  std::size_t find_function(const ir::Program& p, std::string_view name) const {
    auto it =
        std::lower_bound(p.functions.begin(), p.functions.end(), name,
                         [](const ir::NamedFunction& e, std::string_view n) { return e.name < n; });
    return it != p.functions.end() && it->name == name
               ? static_cast<std::size_t>(it - p.functions.begin())
               : kNone;
  }

  /// A reference found in a function: a Call / Submit callee (`site` set), another GlobalVar,
  /// or an import_peer_buffer `peer_func` name.
  struct Reference {
    const std::string& name;
    std::string_view what;
    const ir::Expr* site;
  };

  /// Walks function `i` of `p` once (shared nodes once), calling `on(Reference)` for each
  /// reference; `on` returns false to stop. False when stopped, or when an opaque attribute
  /// payload may hide references (reported: the Program is kept). Adds the nodes walked to
  /// program_weight_.
  template <class OnReference>
  bool walk_references(const ir::Program& p, std::size_t i, OnReference&& on) {
    seen_.clear();
    stack_.assign(1, p.functions[i].function.get());
    while (!stack_.empty()) {
      const ir::Node* n = stack_.back();
      stack_.pop_back();
      if (n->use_count() > 1 && !seen_.insert(n, 0).second) continue;
      ++program_weight_;
      if (const auto* g = ir::as<ir::GlobalVar>(n)) {  // not a Call / Submit callee
        if (!on(Reference{g->name, "reference", nullptr})) return false;
        continue;
      }
      const ir::Op* op = nullptr;
      if (const auto* c = ir::as<ir::Call>(n)) {
        op = c->op.get();
        if (const std::string* peer = peer_func_of(*c))
          if (!on(Reference{*peer, "peer_func", nullptr})) return false;
      } else if (const auto* sub = ir::as<ir::Submit>(n)) {
        op = sub->op.get();
      }
      if (op && ir::isa<ir::GlobalVar>(*op)) {
        if (!on(Reference{op->name, "callee", static_cast<const ir::Expr*>(n)})) return false;
      } else {
        op = nullptr;
      }
      children_.clear();
      IndexChildren collect{&children_};
      ir::visit(*n, [&](const auto& concrete) { reflect::walk_fields(collect, concrete); });
      if (collect.opaque) {
        report_skip(p.functions[i].name, DedupSkip::ProgramKept,
                    "an opaque attribute payload may hide references");
        return false;
      }
      // Touching a node is mostly a cache miss on cold IR: ask for every child now, so the
      // misses of siblings overlap instead of queueing one after another.
      for (auto it = children_.rbegin(); it != children_.rend(); ++it)
        if (*it != op) {  // a callee op is indexed with its site
          __builtin_prefetch(*it);
          stack_.push_back(*it);
        }
    }
    return true;
  }

  /// Indexes every reference of every function and inspects each kernel right after walking it
  /// (while its nodes are in cache); false when the Program must be kept: an opaque payload may
  /// hide a reference, or a reference names no function.
  bool index(const ir::Program& p) {
    fns_.assign(p.functions.size(), FnIndex{});
    inspections_.assign(p.functions.size(), Inspection{});
    class_buckets_.clear();
    class_buckets_.reserve(p.functions.size());
    std::vector<std::size_t> last_referrer(p.functions.size(), kNone);  // dedups callee lists
    program_weight_ = 0;
    for (std::size_t i = 0; i < p.functions.size(); ++i) {
      const bool kernel = is_kernel(*p.functions[i].function);
      if (kernel && inspect_unreferencing_kernel(p, i)) continue;
      const bool complete = walk_references(p, i, [&](const Reference& r) {
        const std::size_t callee = find_function(p, r.name);
        if (callee == kNone) {
          report_skip(p.functions[i].name, DedupSkip::ProgramKept,
                      std::string(r.what) + " '" + r.name + "' names no function of the program");
          return false;
        }
        if (last_referrer[callee] != i) {
          last_referrer[callee] = i;
          fns_[i].callees.push_back(callee);
          fns_[callee].callers.push_back(i);
        }
        if (r.site)
          fns_[callee].sites.push_back(Site{i, r.site});
        else
          ++fns_[callee].other_references;
        return true;
      });
      if (!complete) return false;
      if (kernel) {
        Inspection& in = inspections_[i];
        in.problem =
            closure_problem(*p.functions[i].function, in.hash, in.weight, &in.signature_symbols);
        in.done = true;
        if (in.problem.empty()) classify(p, i);
      }
    }
    return true;
  }

  /// Notes whether a walked node is or holds a reference (a GlobalVar, a peer_func name).
  struct ReferenceSpotter final : structural::FingerprintObserver {
    bool found = false;
    void walked(const ir::Node& n) override {
      if (ir::isa<ir::GlobalVar>(n)) found = true;
      if (const auto* c = ir::as<ir::Call>(&n); c && peer_func_of(*c)) found = true;
    }
  };

  /// The common case of the index, in one walk: kernel `i` is hashed (its inspection filled, its
  /// records added to the program weight) and, when that walk met no reference, no free
  /// variable and nothing the projector must report, it references nothing and the index has
  /// no need to walk it (every node the reference walk would meet, the hash walk meets). False
  /// otherwise: the index walks it and inspects it as any kernel.
  bool inspect_unreferencing_kernel(const ir::Program& p, std::size_t i) {
    const ir::Function& f = *p.functions[i].function;
    if (f.requires_runtime_binding || !f.body) return false;
    Inspection& in = inspections_[i];
    const std::size_t stream_at = streams_.size();
    {
      ReferenceSpotter spot;
      structural::FingerprintOptions options;
      options.stream = &streams_;
      options.observer = &spot;
      options.throw_unsupported = false;  // the projector reports it on the ordinary path
      const structural::Fingerprint fp = structural::fingerprint(f, options);
      in.hash = fp.hash;
      const auto& census = fp.census;
      if (!fp.supported || spot.found || census.free_vars) {
        streams_.resize(stream_at);
        return false;
      }
      in.problem = census_problem(f, census, in.weight);
      in.signature_symbols = census.root_signature_symbols;
      program_weight_ += census.records;
      if (fp.stream_exact && in.problem.empty()) {
        in.stream_begin = stream_at;
        in.stream_size = streams_.size() - stream_at;
      } else {
        streams_.resize(stream_at);
      }
    }
    in.done = true;
    if (in.problem.empty()) classify(p, i);
    return true;
  }

  /// Group bundles (exclusive ones) and ordinary kernels, each admitted or reported.
  std::vector<Unit> collect_units(const ir::Program& p) {
    // Position tokens no function name starts with: every reference names a function of the
    // program (index() keeps the program otherwise), so a token can never stand for a name.
    std::string member_token_prefix = "__dedup_member_";
    for (bool clash = true; clash;) {
      clash = false;
      for (const auto& f : p.functions)
        clash = clash || std::string_view(f.name).starts_with(member_token_prefix);
      if (clash) member_token_prefix += '_';
    }
    const std::size_t n = p.functions.size();
    auto fn = [&](std::size_t i) -> const ir::Function& { return *p.functions[i].function; };
    auto name = [&](std::size_t i) -> const std::string& { return p.functions[i].name; };
    std::vector<char> claimed(n, 0);  // a Group member: never an ordinary kernel
    std::vector<Unit> units;

    // Group members are indexed before ordinary kernels.
    for (std::size_t g = 0; g < n; ++g) {
      if (fn(g).func_type != ir::FunctionType::Group) continue;
      std::vector<std::size_t> members;
      std::string blocked;
      for (std::size_t c : fns_[g].callees) {
        if (is_kernel(fn(c))) {
          members.push_back(c);
          claimed[c] = 1;
        } else if (blocked.empty()) {
          blocked = "the Group calls " + name(c) + ", which is not an InCore/AIC/AIV kernel";
        }
      }
      for (std::size_t m : members) {
        for (std::size_t caller : fns_[m].callers) {
          const bool inside =
              caller == g || std::find(members.begin(), members.end(), caller) != members.end();
          if (!inside && blocked.empty())
            blocked = "member " + name(m) + " is also used by " + name(caller) +
                      (fn(caller).func_type == ir::FunctionType::Group ? " (shared between Groups)"
                                                                       : " (called from outside)");
        }
        for (std::size_t c : fns_[m].callees)
          if (c != g && std::find(members.begin(), members.end(), c) == members.end() &&
              blocked.empty())
            blocked = "member " + name(m) + " references " + name(c) + " outside the bundle";
      }
      if (fns_[g].callers.empty()) {
        report_skip(name(g), DedupSkip::Unreferenced, "Group kept as a potential entry");
        continue;
      }
      if (!blocked.empty()) {
        report_skip(name(g), DedupSkip::BlockedBundle, blocked);
        for (std::size_t m : members) report_skip(name(m), DedupSkip::BlockedBundle, blocked);
        continue;
      }
      Unit u;
      u.info.name = name(g);
      u.bundle = true;
      u.members.push_back(g);
      u.members.insert(u.members.end(), members.begin(), members.end());
      // Member names normalized together: callees and peer_func names become positions.
      ReferenceRenamer::Renames positions;
      for (std::size_t k = 0; k < members.size(); ++k)
        positions.emplace(name(members[k]), member_token_prefix + std::to_string(k));
      ReferenceRenamer normalize(positions);
      for (std::size_t f : u.members)
        u.info.functions.push_back(normalize.function(p.functions[f].function));
      if (admit(u)) units.push_back(std::move(u));
    }

    for (std::size_t k = 0; k < n; ++k) {
      if (!is_kernel(fn(k)) || claimed[k]) continue;
      if (fns_[k].callers.empty()) {
        report_skip(name(k), DedupSkip::Unreferenced, "kept as a potential entry");
        continue;
      }
      if (!fns_[k].callees.empty()) {
        report_skip(name(k), DedupSkip::HelperGraph,
                    "references program function " + name(fns_[k].callees.front()));
        continue;
      }
      Unit u;
      u.info.name = name(k);
      u.members.push_back(k);
      u.info.functions.push_back(p.functions[k].function);
      if (admit(u)) units.push_back(std::move(u));
    }
    return units;
  }

  /// Closure and projection checks of every function of the unit; fills hash and weight.
  bool admit(Unit& u) {
    std::uint64_t h = core::hash_string("dedup-unit");
    for (std::size_t k = 0; k < u.info.functions.size(); ++k) {
      const ir::Function& f = *u.info.functions[k];
      std::uint64_t fh = 0;
      std::string why;
      const Inspection& known = inspections_[u.members[k]];
      if (!u.bundle && known.done) {  // an ordinary kernel: inspected by the index
        fh = known.hash;
        u.info.weight += known.weight;
        why = known.problem;
      } else {  // a bundle's function, member names normalized
        why = closure_problem(f, fh, u.info.weight);
      }
      h = core::hash_combine(h, fh);
      u.hashes.push_back(fh);
      if (!why.empty()) {
        report_skip(u.info.name,
                    why.rfind("unsupported: ", 0) == 0 ? DedupSkip::UnsupportedProjection
                                                       : DedupSkip::NotClosed,
                    why.rfind("unsupported: ", 0) == 0 ? why.substr(13) : why);
        return false;
      }
    }
    u.info.structural_hash = h;
    u.bucket = options_.unit_hash ? options_.unit_hash(u.info) : h;
    u.admitted = true;
    return true;
  }

  /// Empty when `f` is closed; else why not (`unsupported: ...` for a projection refusal).
  /// Sets `h` to f's structural hash and adds its weight.
  static std::string closure_problem(const ir::Function& f, std::uint64_t& h, std::uint64_t& weight,
                                     std::uint64_t* signature_symbols = nullptr) {
    if (f.requires_runtime_binding || !f.body)
      return "runtime binding (its code is bound at run time)";
    structural::Fingerprint fp;
    try {
      fp = structural::fingerprint(f);
    } catch (const structural::StructuralComparisonUnsupported& e) {
      return "unsupported: " + e.reason() + " at " +
             (e.field_path().empty() ? std::string("<root>") : e.field_path());
    }
    if (!fp.supported) return "unsupported: the projection refused the function";
    h = fp.hash;
    if (signature_symbols) *signature_symbols = fp.census.root_signature_symbols;
    return census_problem(f, fp.census, weight);
  }

  /// The closure facts of a hashed function, read from its hash walk's census; adds its weight.
  static std::string census_problem(const ir::Function& f,
                                    const structural::FingerprintCensus& census,
                                    std::uint64_t& weight) {
    weight += census.records;
    if (census.free_vars) return "free capture (a variable defined outside the function)";
    auto seen = [&](ir::NodeKind k) { return census.count(k) != 0; };
    using K = ir::NodeKind;
    for (K k : {K::MemRef, K::MemRefType, K::PtrType, K::WindowBuffer, K::WindowBufferType,
                K::CommCtxType})
      if (seen(k))
        return "explicit storage/communication resource (" + std::string(ir::kind_name(k)) + ")";
    if (seen(K::PrefetchAsyncContextType) || seen(K::AsyncEventType) || seen(K::AsyncSessionType)) {
      std::string why = prefetch_handle_problem(f);
      if (!why.empty()) return "prefetch handle not local: " + why;
    }
    if (seen(K::UnknownType)) return unknown_type_problem(f);
    return {};
  }

  /// UnknownType is admitted only as the type of a direct EvalStmt call of the allow-list,
  /// the call reached by no other edge of the function; every incoming edge of every
  /// UnknownType is checked. (Edges are counted in the function, not by reference counts, which
  /// memo tables of other walks also hold.)
  static std::string unknown_type_problem(const ir::Function& f) {
    ::pypto::detail::PointerMap<std::uint32_t> edges;  // incoming edges of statement-only calls
    std::vector<const ir::Node*> evaluated;            // the calls EvalStmts evaluate directly
    std::string problem;
    auto statement_only = [](const ir::Node* n) {
      const auto* c = ir::as<ir::Call>(n);
      return c && is_statement_only_call(c->op->id);
    };
    ir::for_each_node(ir::NodeRef(&f), [&](const ir::Node& n) {
      ir::for_each_child(n, [&](const ir::NodeRef& child) {
        if (statement_only(child.get())) ++*edges.insert(child.get(), 0).first;
      });
      if (const auto* s = ir::as<ir::EvalStmt>(&n); s && statement_only(s->expr.get()))
        evaluated.push_back(s->expr.get());
    });
    ::pypto::detail::PointerMap<char> allowed;  // evaluated, and reached by that edge alone
    for (const ir::Node* c : evaluated)
      if (*edges.find(c) == 1) allowed.insert(c, 0);
    ir::for_each_node(ir::NodeRef(&f), [&](const ir::Node& n) {
      if (!problem.empty()) return;
      ir::for_each_child(n, [&](const ir::NodeRef& child) {
        if (!problem.empty() || !ir::isa<ir::UnknownType>(*child)) return;
        const auto* c = ir::as<ir::Call>(&n);
        const bool ok = c && c->type.get() == child.get() && allowed.find(&n) != nullptr;
        if (!ok)
          problem = "unresolved value type (UnknownType in a " +
                    std::string(ir::kind_name(n.kind())) +
                    (c ? " of " + c->op->name : std::string()) +
                    ", allowed only as the result of a statement-only call)";
      });
    });
    return problem;
  }

  /// Exact equality, cheap on a difference: the lockstep walk settles the common cases; when
  /// it diverges, different structural hashes prove inequality (equal => same hash), and only a
  /// hash match (sharing that differs, or a true collision) takes the canonical projection.
  static bool functions_equal(const ir::Function& fa, const ir::Function& fb, std::uint64_t ha,
                              std::uint64_t hb) {
    return structural::structural_equal_hashed(fa, fb, ha, hb, false);
  }

  bool units_equal(const Unit& a, const Unit& b) const {
    if (a.info.functions.size() != b.info.functions.size()) return false;
    if (!a.bundle && !b.bundle) {  // ordinary kernels: the index may already know
      const std::size_t ca = inspections_[a.members.front()].equivalence_class,
                        cb = inspections_[b.members.front()].equivalence_class;
      if (ca != kNone && cb != kNone) return ca == cb;
    }
    for (std::size_t i = 0; i < a.info.functions.size(); ++i)
      if (!functions_equal(*a.info.functions[i], *b.info.functions[i], a.hashes[i], b.hashes[i]))
        return false;
    return true;
  }

  /// Right after inspecting closed kernel `i` (its nodes still in cache), compares it with the
  /// classes already seen under its structural hash — at most bucket_capacity of them, within
  /// budget_factor times its weight, as in match() — and records its equivalence class: an
  /// earlier kernel's when equal, its own when it differs from every class of the hash, unknown
  /// (kNone) when the cap or the budget stopped the search. Equal kernels have equal hashes and
  /// equality is transitive, so two known classes are equal exactly when the kernels are.
  ///
  /// Kernels whose hash walks left exact streams (FingerprintOptions::stream) compare by them; the
  /// stream of a kernel is kept only while it represents its class (it is the last one written
  /// when its class is decided). Streams that differ may still be equal kernels shared
  /// differently: those take the lockstep walk.
  void classify(const ir::Program& p, std::size_t i) {
    Inspection& in = inspections_[i];
    find_class(p, i);
    if (in.equivalence_class != i && in.stream_size) {  // not a representative: its stream goes
      streams_.resize(in.stream_begin);
      in.stream_size = 0;
    }
  }

  void find_class(const ir::Program& p, std::size_t i) {
    Inspection& in = inspections_[i];
    auto& reps = class_buckets_.bucket(in.hash);
    const std::uint64_t budget = options_.budget_factor * std::max<std::uint64_t>(1, in.weight);
    std::uint64_t spent = 0;
    for (std::uint32_t c = reps.head; c != kEndOfBucket; c = class_buckets_.next(c)) {
      const Inspection& rep = inspections_[c];
      spent += in.weight + rep.weight;
      if (spent > budget) return;  // unknown: match() compares for itself
      if (same_stream(rep, in) ||
          functions_equal(*p.functions[c].function, *p.functions[i].function, rep.hash, in.hash)) {
        in.equivalence_class = c;
        return;
      }
    }
    if (reps.size >= options_.bucket_capacity) return;  // unknown
    class_buckets_.add(reps, static_cast<std::uint32_t>(i));
    in.equivalence_class = i;
  }

  bool same_stream(const Inspection& a, const Inspection& b) const {
    return a.stream_size != 0 && a.stream_size == b.stream_size &&
           std::memcmp(streams_.data() + a.stream_begin, streams_.data() + b.stream_begin,
                       a.stream_size * sizeof(std::uint32_t)) == 0;
  }

  bool symbol_free(const Unit& u) const {
    if (u.bundle) return false;
    const Inspection& in = inspections_[u.members.front()];
    return in.done && in.signature_symbols == 0;
  }

  const std::vector<ir::VarRef>& symbols_of(Unit& u, std::size_t k) {
    if (u.symbols.empty()) {
      u.symbols.reserve(u.info.functions.size());
      for (const auto& f : u.info.functions) u.symbols.push_back(structural::signature_symbols(*f));
    }
    return u.symbols[k];
  }

  /// Whether `alias`, structurally equal to `canonical`, may be served by it: yes when every
  /// signature symbol is the same variable; otherwise only an ordinary kernel whose every
  /// Call / Submit passes the call-shape proof against the canonical signature. Sets `why`.
  bool may_alias(Unit& canonical, Unit& alias, std::string& why, bool& out_of_budget) {
    // Ordinary kernels whose hash walks met no signature symbol: nothing to compare (and their
    // signatures, long out of cache here, are not read again).
    if (symbol_free(canonical) && symbol_free(alias)) return true;
    bool same_symbols = true;
    for (std::size_t k = 0; k < alias.info.functions.size() && same_symbols; ++k) {
      const auto &a = symbols_of(alias, k), &c = symbols_of(canonical, k);
      same_symbols = a.size() == c.size() &&
                     std::equal(a.begin(), a.end(), c.begin(),
                                [](const ir::VarRef& x, const ir::VarRef& y) { return x == y; });
    }
    if (same_symbols) return true;  // identical signatures: omitted outputs keep their meaning
    if (alias.bundle) {
      why = "Group bundles need exact signature-symbol identity";
      return false;
    }
    CallShapeProof proof(*canonical.info.functions.front());
    if (!proof.eligible()) {
      why = "the signature needs exact symbol identity: " + proof.ineligibility();
      return false;
    }
    const FnIndex& used = fns_[alias.members.front()];
    if (used.other_references != 0) {
      why = "it is named other than as a Call / Submit callee, so no call site binds it";
      return false;
    }
    for (const Site& site : used.sites) {
      const auto* submit = ir::as<ir::Submit>(site.node);
      const auto& args = submit ? submit->args : static_cast<const ir::Call&>(*site.node).args;
      ShapeProofOutcome outcome = proof.prove(args, *site.node->type, submit, proof_budget_);
      if (outcome.proven()) continue;
      out_of_budget = outcome.status == ShapeProofOutcome::Status::OutOfBudget;
      why = "the " + std::string(submit ? "Submit" : "Call") + " in " +
            program_->functions[site.caller].name +
            (site.node->span.is_known() ? " at " + site.node->span.to_string() : std::string()) +
            ": " + outcome.why;
      return false;
    }
    return true;
  }

  void match(std::vector<Unit>& units, std::vector<std::size_t>& survivor_of) {
    ::pypto::detail::HashBuckets buckets;
    buckets.reserve(units.size());
    for (std::size_t u = 0; u < units.size(); ++u) {
      survivor_of[u] = u;
      if (!units[u].admitted) continue;
      auto& reps = buckets.bucket(units[u].bucket);
      const std::uint64_t budget =
          options_.budget_factor * std::max<std::uint64_t>(1, units[u].info.weight);
      std::uint64_t spent = 0;
      std::size_t compared = 0;
      bool exhausted = false, matched = false, refused_budget = false;
      std::string refused;  // why the first equal representative could not serve it
      for (std::uint32_t r = reps.head; r != kEndOfBucket; r = buckets.next(r)) {
        const std::uint64_t cost = units[u].info.weight + units[r].info.weight;
        if (spent + cost > budget) {
          exhausted = true;
          break;
        }
        spent += cost;
        ++compared;
        if (!units_equal(units[r], units[u])) continue;
        std::string why;
        bool proof_out_of_budget = false;
        if (may_alias(units[r], units[u], why, proof_out_of_budget)) {
          survivor_of[u] = r;
          matched = true;
          break;
        }
        if (refused.empty()) {
          refused = "equal to " + units[r].info.name + ", but " + why;
          refused_budget = proof_out_of_budget;
        }
      }
      if (matched) continue;
      if (!refused.empty())
        report_skip(units[u].info.name,
                    refused_budget ? DedupSkip::BudgetExhausted : DedupSkip::ShapeDistinct,
                    refused);
      if (exhausted)
        report_skip(units[u].info.name, DedupSkip::BudgetExhausted,
                    "compared with " + std::to_string(compared) + " of " +
                        std::to_string(reps.size) + " representatives (budget " +
                        std::to_string(budget) + ")");
      if (reps.size < options_.bucket_capacity)
        buckets.add(reps, static_cast<std::uint32_t>(u));
      else
        report_skip(units[u].info.name, DedupSkip::BucketFull,
                    "its hash bucket already holds " + std::to_string(reps.size) +
                        " representatives; it cannot become one");
    }
  }

  ir::ProgramRef rewrite(const ir::Program& p, const std::vector<Unit>& units,
                         const std::vector<std::size_t>& survivor_of) {
    ReferenceRenamer::Renames renames;
    std::vector<char> removed(p.functions.size(), 0);
    std::map<std::size_t, DedupEvent> merged;  // by survivor unit (units are in name order)
    for (std::size_t u = 0; u < units.size(); ++u) {
      const std::size_t s = survivor_of[u];
      if (s == u) continue;
      DedupEvent& e = merged[s];
      e.kind = DedupEvent::Kind::Merged;
      e.unit = units[s].info.name;
      for (std::size_t k = 0; k < units[u].members.size(); ++k) {
        const std::string& alias = p.functions[units[u].members[k]].name;
        const std::string& to = p.functions[units[s].members[k]].name;
        renames.emplace(alias, to);
        removed[units[u].members[k]] = 1;
        e.renamed.emplace_back(alias, to);
      }
    }
    if (options_.on_event)
      for (const auto& [s, e] : merged) options_.on_event(e);
    if (renames.empty()) return ir::ProgramRef(&p);

    // The dangling-reference check rides on the rewrite: the renamer reports every reference
    // of what it returns, each must name a function that stays (untouched functions reference
    // no removed one).
    std::string dangling, dangling_in;
    const std::string* rewriting = nullptr;
    ReferenceRenamer renamer(renames, [&](const std::string& name, std::string_view) {
      if (!dangling.empty()) return;
      const std::size_t f = find_function(p, name);
      if (f == kNone || removed[f]) {
        dangling = name;
        dangling_in = *rewriting;
      }
    });
    std::vector<ir::FunctionRef> out;
    out.reserve(p.functions.size());
    for (std::size_t i = 0; i < p.functions.size(); ++i) {
      if (removed[i]) continue;
      bool refers = false;
      for (std::size_t c : fns_[i].callees) refers = refers || removed[c];
      rewriting = &p.functions[i].name;
      out.push_back(refers ? renamer.function(p.functions[i].function) : p.functions[i].function);
    }
    if (!dangling.empty())  // a bug here
      throw core::InternalError("deduplicate-outlined-kernels: a reference of " + dangling_in +
                                " dangles after the rewrite: '" + dangling + "'");
    return ir::Program::make(p.name, std::move(out));
  }

  const DedupOptions& options_;
  std::vector<FnIndex> fns_;
  std::vector<Inspection> inspections_;
  ::pypto::detail::HashBuckets class_buckets_;  // kernels' classes by structural hash
  /// The exact streams (structural::fingerprint) of the class representatives classify() keeps.
  structural::FingerprintStream streams_;
  std::vector<const ir::Node*> stack_, children_;  // walk_references' scratch
  ::pypto::detail::PointerMap<char> seen_;
  std::uint64_t program_weight_ = 0;  ///< records the index walked: the proof's global budget
  std::uint64_t proof_budget_ = 0;
  const ir::Program* program_ = nullptr;
};

}  // namespace detail

PYPTO_DECL Pass DeduplicateOutlinedKernels(DedupOptions options) {
  const PropertySet kept{Property::SSAForm, Property::SplitIncoreOrch, Property::ClusterOutlined,
                         Property::NormalizedStmtStructure};
  return Pass("deduplicate-outlined-kernels", kept, kept, {},
              [options = std::move(options)](const ir::Program& p) {
                return detail::Deduplicator(options).run(p);
              });
}

}  // namespace pypto::transforms

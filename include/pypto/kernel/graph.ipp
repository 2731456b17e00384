// pypto/kernel/graph.ipp — the definitions of kernel/graph.hpp.
//
// The fused spec is P's code followed by C's: C's values are numbered after P's (the value-form
// equivalent of offsetting C's registers by P.num_regs — there are no register holes in the
// value form, so a pair is never refused for registers it would not use), C's reads of P become
// reads of P's result, inputs are merged (P's first, then C's; a slot is shared when it has the
// same source and the same view), C's constants are appended after P's (a bit-identical
// constant is shared) and its runtime scalars after P's, with operand indices remapped; then
// canonicalize() gives equal fusions equal bytes and keys.
#pragma once

#include "pypto/kernel/graph.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/kernel/canonicalize.hpp"
#include "pypto/kernel/fold.hpp"
#include "pypto/kernel/interpreter.hpp"
#include "pypto/kernel/regalloc.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.hpp"
#include "pypto/kernel/validate.hpp"

namespace pypto::kernel {

PYPTO_DECL Source Graph::add_node(Spec spec, Shape shape, std::vector<Source> bindings) {
  const std::string where = "graph node " + std::to_string(nodes_.size());
  try {
    validate(spec);
  } catch (const SpecError& e) {
    throw GraphError(where + ": invalid spec: " + e.what());
  }
  if (shape.rows == 0 || shape.cols == 0) {
    throw GraphError(where + ": the shape needs at least one row and one column");
  }
  if (bindings.size() != spec.views.size()) {
    throw GraphError(where + ": the spec has " + std::to_string(spec.views.size()) +
                     " inputs but " + std::to_string(bindings.size()) + " bindings were given");
  }
  for (std::size_t i = 0; i < bindings.size(); ++i) check_source(bindings[i], where, i);
  nodes_.push_back({std::move(spec), shape, std::move(bindings)});
  return Source::node(static_cast<std::uint32_t>(nodes_.size() - 1));
}

PYPTO_DECL void Graph::mark_output(Source s) {
  if (s.kind != Source::Kind::Node || s.index >= nodes_.size()) {
    throw GraphError("mark_output: a graph output must name an existing node");
  }
  outputs_.push_back(s);
}

PYPTO_DECL void Graph::check_source(const Source& s, const std::string& where,
                                    std::size_t slot) const {
  const bool ok =
      s.kind == Source::Kind::GraphInput ? s.index < num_inputs_ : s.index < nodes_.size();
  if (!ok) {
    throw GraphError(where + ": binding " + std::to_string(slot) + " names " +
                     (s.kind == Source::Kind::GraphInput ? "graph input " : "node ") +
                     std::to_string(s.index) + ", which does not exist (yet)");
  }
}

namespace detail {

/// No reduction instruction and no reduction view: the spec is a pure per-element map.
inline bool is_elementwise(const Spec& s) {
  for (const Instr& in : s.instrs) {
    if (is_reduction(in.op)) return false;
  }
  for (const View& v : s.views) {
    if (v.kind != ViewKind::Linear && v.kind != ViewKind::RowBroadcast &&
        v.kind != ViewKind::ColBroadcast && v.kind != ViewKind::RowMod &&
        v.kind != ViewKind::RotateHalf) {
      return false;
    }
  }
  return true;
}

/// The fused spec and its bindings, or nothing when the pair must stay apart.
struct FusedNode {
  Spec spec;
  std::vector<Source> bindings;
};

/// Splices `producer` (node p) into `consumer` in the value form and canonicalizes; nullopt if
/// the result would break a limit. The caller has checked the structural conditions.
inline std::optional<FusedNode> splice(const GraphNode& producer, std::uint32_t p,
                                       const GraphNode& consumer, FoldFlags flags) {
  // Canonical halves first: fewer nodes, so fewer pairs are refused on the splice bounds.
  SsaForm fp = to_ssa(producer.spec);
  canonicalize(fp, flags);
  SsaForm fc = to_ssa(consumer.spec);
  canonicalize(fc, flags);
  // Views are unchanged by canonicalize, so input slots still match the bindings.
  if (fp.views.size() != producer.bindings.size() || fc.views.size() != consumer.bindings.size()) {
    throw core::InternalError("kernel fuse: canonicalize changed the number of inputs");
  }

  FusedNode out;
  SsaForm f;
  std::vector<bool> matmul_slot;  // per fused input: an operand of the matmul
  auto add_input = [&](const Source& src, const View& view, bool of_matmul) {
    for (std::size_t i = 0; i < out.bindings.size(); ++i) {
      if (out.bindings[i] == src && f.views[i] == view && matmul_slot[i] == of_matmul) {
        return static_cast<std::uint8_t>(i);
      }
    }
    out.bindings.push_back(src);
    f.views.push_back(view);
    matmul_slot.push_back(of_matmul);
    return static_cast<std::uint8_t>(out.bindings.size() - 1);
  };
  // The one matmul segment (fusion_partner refuses two), its slots remapped by `slots`.
  auto take_matmul = [&](const SsaForm& g, const std::vector<std::uint8_t>& slots) {
    if (!g.matmul) return;
    f.matmul = g.matmul;
    f.matmul->a_input = slots[g.matmul->a_input];
    f.matmul->b_input = slots[g.matmul->b_input];
  };
  auto add_const = [&](std::uint32_t bits) {
    for (std::size_t i = 0; i < f.consts.size(); ++i) {
      if (f.consts[i] == bits) return static_cast<std::uint8_t>(i);
    }
    f.consts.push_back(bits);
    return static_cast<std::uint8_t>(f.consts.size() - 1);
  };

  std::vector<std::uint8_t> p_input(fp.views.size()), p_const(fp.consts.size());
  for (std::size_t i = 0; i < fp.views.size(); ++i) {
    p_input[i] = add_input(producer.bindings[i], fp.views[i], is_matmul_operand(fp.matmul, i));
  }
  take_matmul(fp, p_input);
  for (std::size_t i = 0; i < fp.consts.size(); ++i) p_const[i] = add_const(fp.consts[i]);
  f.runtime_scalars = fp.runtime_scalars;

  // The consumer's slots bound to the producer read its result instead (no input slot).
  constexpr std::uint8_t kReadsProducer = 0xff;
  std::vector<std::uint8_t> c_input(fc.views.size()), c_const(fc.consts.size()),
      c_scalar(fc.runtime_scalars.size());
  for (std::size_t i = 0; i < fc.views.size(); ++i) {
    const Source& src = consumer.bindings[i];
    c_input[i] = src == Source::node(p)
                     ? kReadsProducer
                     : add_input(src, fc.views[i], is_matmul_operand(fc.matmul, i));
  }
  take_matmul(fc, c_input);  // a matmul slot never reads the producer (fusion_partner)
  for (std::size_t i = 0; i < fc.consts.size(); ++i) c_const[i] = add_const(fc.consts[i]);
  for (std::size_t i = 0; i < fc.runtime_scalars.size(); ++i) {
    c_scalar[i] = static_cast<std::uint8_t>(f.runtime_scalars.size());
    f.runtime_scalars.push_back(fc.runtime_scalars[i]);
  }

  // The bounds every pass input satisfies (to_ssa of a valid spec); checked before the passes.
  const std::size_t total_nodes = fp.nodes.size() + fc.nodes.size();
  if (total_nodes > kMaxInstrs || f.views.size() > kMaxInputs || f.consts.size() > kMaxConsts ||
      f.runtime_scalars.size() > kMaxRuntimeScalars) {
    return std::nullopt;
  }

  const auto offset = static_cast<std::uint8_t>(fp.nodes.size());
  const auto producer_result = static_cast<std::uint8_t>(fp.nodes.size() - 1);
  f.nodes.reserve(total_nodes);
  for (Node n : fp.nodes) {
    for (std::size_t s = 0; s < arity(n.op); ++s) {
      Operand& o = n.slot(s);
      if (o.kind == OperandKind::Input) o.index = p_input[o.index];
      if (o.kind == OperandKind::Const) o.index = p_const[o.index];
    }
    f.nodes.push_back(n);
  }
  for (Node n : fc.nodes) {
    for (std::size_t s = 0; s < arity(n.op); ++s) {
      Operand& o = n.slot(s);
      switch (o.kind) {
        case OperandKind::Reg:
        case OperandKind::ReduceResult:
          o.index = static_cast<std::uint8_t>(o.index + offset);
          break;
        case OperandKind::Input:
          o = c_input[o.index] == kReadsProducer ? reg(producer_result) : input(c_input[o.index]);
          break;
        case OperandKind::Const: o.index = c_const[o.index]; break;
        case OperandKind::RuntimeScalar: o.index = c_scalar[o.index]; break;
        default: break;
      }
    }
    f.nodes.push_back(n);
  }

  // Inputs the canonical code no longer reads keep their slots (views are part of the
  // spec's interface); canonicalize decides everything else.
  try {
    canonicalize(f, flags);
    out.spec = allocate(f);
    validate(out.spec);
  } catch (const SpecError&) {
    return std::nullopt;  // over a limit after canonicalization (e.g. > kMaxRegs registers)
  }
  return out;
}

/// True when the code reads GridIndex Row or Batch (which a batched matmul redefines).
inline bool reads_row_or_batch(const Spec& s) {
  for (const Instr& in : s.instrs) {
    for (std::size_t i = 0; i < arity(in.op); ++i) {
      const Operand& o = in.slot(i);
      if (o.kind == OperandKind::GridIndex && o.index != static_cast<std::uint8_t>(GridAxis::Col)) {
        return true;
      }
    }
  }
  return false;
}

/// True when specs `a` and `b` can share one matmul segment's grid (see graph.hpp).
inline bool matmul_compatible(const Spec& a, const Spec& b) {
  if (a.matmul && b.matmul) return false;
  if (!a.matmul && !b.matmul) return true;
  const Spec& with = a.matmul ? a : b;
  const Spec& without = a.matmul ? b : a;
  return with.matmul->batch == 1 || !reads_row_or_batch(without);
}

/// The node that `p` can fuse into, if the structural conditions hold.
inline std::optional<std::uint32_t> fusion_partner(const Graph& g, std::uint32_t p) {
  const Source self = Source::node(p);
  for (const Source& o : g.outputs()) {
    if (o == self) return std::nullopt;
  }
  const std::vector<GraphNode>& nodes = g.nodes();
  std::optional<std::uint32_t> consumer;
  for (std::uint32_t n = p + 1; n < nodes.size(); ++n) {
    for (std::size_t i = 0; i < nodes[n].bindings.size(); ++i) {
      if (nodes[n].bindings[i] != self) continue;
      if (consumer && *consumer != n) return std::nullopt;  // a second consumer
      const Spec& spec = nodes[n].spec;
      if (spec.views[i].kind != ViewKind::Linear) return std::nullopt;
      if (is_matmul_operand(spec.matmul, i)) {
        return std::nullopt;  // the consumer's matmul reads the producer as a matrix
      }
      consumer = n;
    }
  }
  if (!consumer) return std::nullopt;
  const GraphNode &a = nodes[p], &b = nodes[*consumer];
  if (a.shape != b.shape || !is_elementwise(a.spec) || !is_elementwise(b.spec) ||
      !matmul_compatible(a.spec, b.spec)) {
    return std::nullopt;
  }
  return consumer;
}

}  // namespace detail

PYPTO_DECL Graph fuse(const Graph& graph, FoldFlags flags) {
  Graph g = graph;
  for (bool changed = true; changed;) {
    changed = false;
    for (std::uint32_t p = 0; p < g.nodes_.size() && !changed; ++p) {
      const std::optional<std::uint32_t> c = detail::fusion_partner(g, p);
      if (!c) continue;
      std::optional<detail::FusedNode> fused = detail::splice(g.nodes_[p], p, g.nodes_[*c], flags);
      if (!fused) continue;
      GraphNode& consumer = g.nodes_[*c];
      consumer.spec = std::move(fused->spec);
      consumer.bindings = std::move(fused->bindings);
      g.nodes_.erase(g.nodes_.begin() + p);
      auto shift = [p](Source& s) {
        if (s.kind == Source::Kind::Node && s.index > p) --s.index;
      };
      for (GraphNode& n : g.nodes_) {
        for (Source& s : n.bindings) shift(s);
      }
      for (Source& s : g.outputs_) shift(s);
      changed = true;
    }
  }
  return g;
}

PYPTO_DECL std::vector<std::vector<float>> evaluate_graph(
    const Graph& graph, std::span<const std::span<const float>> inputs, std::uint32_t batch) {
  if (inputs.size() != graph.num_inputs()) {
    throw GraphError("evaluate_graph: the graph has " + std::to_string(graph.num_inputs()) +
                     " inputs, " + std::to_string(inputs.size()) + " buffers were given");
  }
  std::vector<std::vector<float>> results;
  results.reserve(graph.nodes().size());
  std::vector<std::span<const float>> args;
  for (const GraphNode& n : graph.nodes()) {
    args.clear();
    for (const Source& s : n.bindings) {
      args.push_back(s.kind == Source::Kind::GraphInput ? inputs[s.index]
                                                        : std::span<const float>(results[s.index]));
    }
    results.push_back(evaluate(n.spec, args, Grid{n.shape.rows, n.shape.cols, batch}));
  }
  std::vector<std::vector<float>> out;
  for (const Source& s : graph.outputs()) out.push_back(results[s.index]);
  return out;
}

}  // namespace pypto::kernel

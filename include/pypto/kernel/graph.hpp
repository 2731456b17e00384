// pypto/kernel/graph.hpp — a graph of kernel Specs and producer->consumer fusion.
//
// A Graph records a chain (a DAG in topological order) of kernel expressions. Each node is a
// Spec run over a rows x cols shape, plus one binding per spec input saying what feeds it: a
// graph input or the output of an earlier node. Some node outputs are graph outputs (visible
// to the outside, so never fused away). Invariants, checked by the builder: a spec is valid,
// it has one binding per view, and a binding names an existing graph input or an earlier node.
// fuse(graph) merges a producer into its only consumer when both are per-element maps of the
// same shape (the conditions are at fuse()); the fused spec is canonical, so equal fusions get
// equal bytes and keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"
#include "pypto/kernel/fold.hpp"
#include "pypto/kernel/spec.hpp"

namespace pypto::kernel {

/// A malformed graph (a binding that names nothing, a missing binding, ...).
class GraphError : public core::ValueError {
 public:
  explicit GraphError(const std::string& message) : core::ValueError(message) {}
};

/// What feeds a spec input: graph input `index` or the output of node `index`.
struct Source {
  enum class Kind : std::uint8_t { GraphInput, Node };
  Kind kind = Kind::GraphInput;
  std::uint32_t index = 0;

  static constexpr Source graph_input(std::uint32_t i) { return {Kind::GraphInput, i}; }
  static constexpr Source node(std::uint32_t i) { return {Kind::Node, i}; }
  friend constexpr bool operator==(const Source&, const Source&) = default;
};

/// The grid a node runs over.
struct Shape {
  std::size_t rows = 1;
  std::size_t cols = 1;
  friend constexpr bool operator==(const Shape&, const Shape&) = default;
};

struct GraphNode {
  Spec spec;
  Shape shape;
  std::vector<Source> bindings;  // bindings[i] feeds spec input i (read through spec.views[i])
  friend bool operator==(const GraphNode&, const GraphNode&) = default;
};

class Graph;

/// Fuses producer->consumer pairs until none fuses; pure and deterministic. `flags` are the
/// fold flags of the target, passed to canonicalize. A producer P fuses into its consumer C when
///   * both are elementwise (no reduction instruction, no reduction view) of the same shape;
///   * C reads P only through Linear views that are not operands of C's matmul (a matmul reads
///     a whole matrix, not one element), and no other node reads P; P is not a graph output;
///   * at most one of them has a matmul segment, and if its batch is not 1 the other reads no
///     GridIndex Row or Batch (a batched matmul redefines those two as the row within a block
///     and the block index; with batch 1 they mean what they meant).
/// A matmul segment computes each output element on its own, so a spec with one is still a
/// per-element map for fusion: the fused spec keeps it, its slots remapped to the merged
/// inputs. The fused spec is P's code followed by C's (graph.ipp has the splice). Producers
/// are tried in node order, first producer first; after each fusion the scan restarts, and it
/// ends when no pair fuses. The fused node takes the consumer's place, so the order stays
/// topological and graph outputs keep naming the same values. A pair is refused, leaving both
/// nodes untouched, when the spliced code would exceed the pass input bounds (64
/// instructions, 16 inputs, 16 constants, 16 runtime scalars) or the canonical result fails
/// validate() (e.g. more than 32 registers): fuse never produces an invalid spec.
/// O(nodes^2 * (bindings + canonicalize)) per fusion round, at most nodes rounds.
PYPTO_DECL Graph fuse(const Graph& graph, FoldFlags flags = FoldFlags::None);

class Graph {
 public:
  /// Declares a new graph input and returns its source.
  Source add_input() { return Source::graph_input(num_inputs_++); }

  /// Appends a node; its bindings may name graph inputs and earlier nodes only.
  PYPTO_DECL Source add_node(Spec spec, Shape shape, std::vector<Source> bindings);

  /// Makes a node's output visible outside the graph (it is then never fused away).
  PYPTO_DECL void mark_output(Source s);

  std::size_t num_inputs() const { return num_inputs_; }
  const std::vector<GraphNode>& nodes() const { return nodes_; }
  const std::vector<Source>& outputs() const { return outputs_; }
  friend bool operator==(const Graph&, const Graph&) = default;

 private:
  friend Graph fuse(const Graph&, FoldFlags);

  PYPTO_DECL void check_source(const Source& s, const std::string& where, std::size_t slot) const;

  std::size_t num_inputs_ = 0;
  std::vector<GraphNode> nodes_;
  std::vector<Source> outputs_;
};

/// Runs every node of `graph` with the reference interpreter, in order, on one buffer per graph
/// input; returns one buffer per graph output (in mark_output order). `batch` is the value of
/// GridIndex Batch. Throws like evaluate() when a buffer does not fit a view.
PYPTO_DECL std::vector<std::vector<float>> evaluate_graph(
    const Graph& graph, std::span<const std::span<const float>> inputs, std::uint32_t batch = 0);

}  // namespace pypto::kernel

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/kernel/graph.ipp"
#endif

// pypto/codegen/spec_emitter.hpp — prints a canonical kernel Spec with a target's instruction
// table.
//
// emit_spec<T>(spec, binding, indent) returns one C++ block that computes the Spec over a
// rows x cols grid into the output tile: per element with a loop nest (T::spec_style
// PerElement, the CPU: kernel/interpreter.hpp's order, bit-identical results) or one whole-tile
// instruction per Spec instruction (WholeTile, the NPU). Names are the register numbers, so
// equal canonical Specs with equal bindings print equal bytes. Tiles are FP32; what the emitter
// does not print (other views, matmul segments, column reductions, narrower dtypes) is a
// SpecEmitError. O(instrs + output). The template is instantiated for CpuTarget and NpuTarget
// in compiled mode (docs/compilation.md); another target needs header-only mode.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pypto/codegen/cpu_target.hpp"
#include "pypto/codegen/npu_target.hpp"
#include "pypto/codegen/target_traits.hpp"
#include "pypto/core/error.hpp"

namespace pypto::codegen {

class SpecEmitError : public core::ValueError {
 public:
  explicit SpecEmitError(const std::string& what) : core::ValueError(what) {}
};

/// What the names of a Spec stand for in the generated code.
struct SpecBinding {
  std::vector<TileRef> inputs;               ///< one per Spec input, in view order
  std::vector<std::string> runtime_scalars;  ///< one C++ expression per runtime scalar
  TileRef output;                            ///< rows x cols, or rows x 1 with row_vector
  Dim rows, cols;                            ///< the grid
  bool row_vector = false;
};

/// The block computing a valid canonical `spec` under `binding`, each line prefixed by `indent`.
/// SpecEmitError for what the emitter does not print.
template <TargetTraits T>
std::string emit_spec(const kernel::Spec& spec, const SpecBinding& binding,
                      std::string_view indent);

#ifdef PYPTO_SEPARATE_COMPILATION
extern template std::string emit_spec<CpuTarget>(const kernel::Spec& spec,
                                                 const SpecBinding& binding,
                                                 std::string_view indent);
extern template std::string emit_spec<NpuTarget>(const kernel::Spec& spec,
                                                 const SpecBinding& binding,
                                                 std::string_view indent);
#endif

}  // namespace pypto::codegen

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/codegen/spec_emitter.ipp"
#endif

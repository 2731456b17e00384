// pypto/codegen/core_type.hpp — which NPU core a kernel runs on.
//
// A kernel is an AIC (cube core) kernel when it uses a cube memory space or a matmul, else an
// AIV (vector core) kernel. A CPU target records the same core type so that registrations are
// the same for both targets. core_type_of visits each node of the body once: O(body).
#pragma once

#include <cstdint>
#include <string_view>

#include "pypto/core/config.hpp"
#include "pypto/ir/enums.hpp"

namespace pypto::ir {
struct Function;
}  // namespace pypto::ir

namespace pypto::codegen {

enum class CoreType : std::uint8_t { AIC = 0, AIV = 1 };

/// The lowercase name used in KERNELS rows and kernel directories: "aic" or "aiv".
constexpr std::string_view core_type_name(CoreType t) { return t == CoreType::AIC ? "aic" : "aiv"; }

/// True for the memory spaces of the cube core (L1 and the L0 buffers around the cube unit).
constexpr bool is_cube_memory(ir::MemorySpace m) {
  switch (m) {
    case ir::MemorySpace::Mat:
    case ir::MemorySpace::Left:
    case ir::MemorySpace::Right:
    case ir::MemorySpace::Acc:
    case ir::MemorySpace::Bias:
    case ir::MemorySpace::LeftScale:
    case ir::MemorySpace::RightScale: return true;
    default: return false;
  }
}

/// The core a kernel runs on. An AIC / AIV function says so itself; an InCore function is AIC
/// when its body (any depth, types included) holds a tile in a cube memory space or a
/// tile.matmul, else AIV. The walk visits each node once: O(body).
PYPTO_DECL CoreType core_type_of(const ir::Function& fn);

}  // namespace pypto::codegen

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/codegen/core_type.ipp"
#endif

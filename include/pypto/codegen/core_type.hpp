// pypto/codegen/core_type.hpp — which NPU core a kernel runs on.
//
// A kernel is an AIC (cube core) kernel when it uses a cube memory space or a matmul, else an
// AIV (vector core) kernel (pypto.md section 6). A CPU target records the same core type so that
// registrations are the same for both targets.
#pragma once

#include <cstdint>
#include <string_view>

namespace pypto::codegen {

enum class CoreType : std::uint8_t { AIC = 0, AIV = 1 };

/// The lowercase name used in KERNELS rows and kernel directories: "aic" or "aiv".
constexpr std::string_view core_type_name(CoreType t) { return t == CoreType::AIC ? "aic" : "aiv"; }

}  // namespace pypto::codegen

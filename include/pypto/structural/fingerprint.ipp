// pypto/structural/fingerprint.ipp — the definitions of structural/fingerprint.hpp.
//
// The thread's borrowed Hasher (projection.hpp) walks the function with the caller's stream and
// observer hooked for that one run; when it hands over, the canonical projection throws the
// problem with its field path.
#pragma once

#include "pypto/structural/fingerprint.hpp"

#include <cstddef>
#include <cstdint>

#include "pypto/ir/function.hpp"
#include "pypto/structural/census.hpp"
#include "pypto/structural/errors.hpp"
#include "pypto/structural/projection.hpp"

namespace pypto::structural {

PYPTO_DECL Fingerprint fingerprint(const ir::Function& f, const FingerprintOptions& options) {
  detail::Borrowed<detail::Hasher> hasher;
  struct Hooked {  // the borrowed hasher outlives this call: unhook it on every exit
    detail::Hasher* h;
    ~Hooked() {
      h->observe(nullptr);
      h->record(nullptr);
    }
  } hooked{hasher.operator->()};
  hasher->observe(options.observer);
  hasher->record(options.stream);
  const std::size_t stream_at = options.stream ? options.stream->size() : 0;
  std::uint64_t hash = 0;
  try {
    hash = hasher->run(f, options.enable_auto_mapping);
  } catch (const detail::HandOver&) {
    if (options.stream) options.stream->resize(stream_at);
    if (options.throw_unsupported) {  // the projector reports the problem with its field path
      detail::Arena arena;
      detail::Projector<>(&arena, options.enable_auto_mapping).project(f);
    }
    return Fingerprint{0, hasher->census(), false, false};
  }
  return Fingerprint{hash, hasher->census(), true, hasher->stream_exact()};
}

}  // namespace pypto::structural

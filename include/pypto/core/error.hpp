// pypto/core/error.hpp — the typed errors of the library.
//
// Every rejection of user input is one of these, with a message that says what is wrong and
// where (a field path such as `body[2].value.args[0]` or a `line:column`). ValueError is a
// malformed value (bad IR shape, unequal structures in an assertion); TypeError is a value of
// the wrong kind (a type mismatch, an unsupported payload). Later layers derive their own
// errors (parse errors, StructuralComparisonUnsupported, ...) from these two.
#pragma once

#include <stdexcept>
#include <string>

namespace pypto::core {

/// Root of every error the library throws on purpose.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

class ValueError : public Error {
 public:
  explicit ValueError(const std::string& message) : Error(message) {}
};

class TypeError : public Error {
 public:
  explicit TypeError(const std::string& message) : Error(message) {}
};

/// A broken invariant inside the library itself (never caused by user input alone).
class InternalError : public Error {
 public:
  explicit InternalError(const std::string& message) : Error("internal error: " + message) {}
};

}  // namespace pypto::core

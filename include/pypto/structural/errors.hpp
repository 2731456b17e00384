// pypto/structural/errors.hpp — the errors of structural comparison and binding verification.
//
// Both report a field path from the root they were given: field names joined by '.', list
// elements as `[i]`, SeqStmts transparent (`body[2]`, not `body.stmts[2]`), program entries by
// name (`['main'].body[0]`). "Cannot be represented" (StructuralComparisonUnsupported, a
// TypeError) is a different outcome from "not equal" (a bool, or a ValueError from
// assert_structural_equal). Binding violations are BindingErrors (ValueErrors) carrying the kind
// of violation and the path of the offending definition or use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "pypto/core/error.hpp"
#include "pypto/core/limits.hpp"

namespace pypto::structural {

/// The IR cannot be projected: an opaque attribute payload, duplicate attribute keys, a cycle,
/// or node/type nesting deeper than kMaxNesting.
class StructuralComparisonUnsupported : public core::TypeError {
 public:
  StructuralComparisonUnsupported(std::string reason, std::string field_path)
      : core::TypeError("structural comparison unsupported at " +
                        (field_path.empty() ? std::string("<root>") : field_path) + ": " + reason),
        reason_(std::move(reason)),
        field_path_(std::move(field_path)) {}

  const std::string& reason() const { return reason_; }
  const std::string& field_path() const { return field_path_; }

 private:
  std::string reason_;
  std::string field_path_;
};

/// Deepest node/type nesting the projection accepts; the library-wide limit.
using core::kMaxNesting;

enum class BindingErrorKind : std::uint8_t {
  DuplicateDefinition,        ///< a Var defined at two Def positions
  NotVisible,                 ///< a use before the definition or outside its lexical scope
  IneligibleSignatureSymbol,  ///< a signature symbol that cannot be a binding
  SharedStatement,            ///< one statement object at two places of the body
};

constexpr std::string_view binding_error_kind_name(BindingErrorKind k) {
  switch (k) {
    case BindingErrorKind::DuplicateDefinition: return "DuplicateDefinition";
    case BindingErrorKind::NotVisible: return "BindingNotVisible";
    case BindingErrorKind::IneligibleSignatureSymbol: return "IneligibleSignatureSymbol";
    case BindingErrorKind::SharedStatement: return "SharedStatement";
  }
  return "?";
}

/// A violation found by verify_structural_bindings.
class BindingError : public core::ValueError {
 public:
  BindingError(BindingErrorKind kind, std::string field_path, std::string detail)
      : core::ValueError(std::string(binding_error_kind_name(kind)) + " at " +
                         (field_path.empty() ? std::string("<root>") : field_path) + ": " + detail),
        kind_(kind),
        field_path_(std::move(field_path)),
        detail_(std::move(detail)) {}

  BindingErrorKind kind() const { return kind_; }
  const std::string& field_path() const { return field_path_; }
  const std::string& detail() const { return detail_; }

 private:
  BindingErrorKind kind_;
  std::string field_path_;
  std::string detail_;
};

/// A use of a Var where it is not visible: before its definition, or after its lexical scope
/// ended (a branch or loop local used outside). The path points at the illegal use itself.
class BindingNotVisible : public BindingError {
 public:
  BindingNotVisible(std::string field_path, std::string detail)
      : BindingError(BindingErrorKind::NotVisible, std::move(field_path), std::move(detail)) {}
};

}  // namespace pypto::structural

// pypto/transforms/property.hpp — the IR properties passes require, produce and invalidate.
//
// A Property is a fact about a whole program that a pass may rely on (SSAForm) or establish
// (NormalizedStmtStructure); a PropertySet is a value of such facts, one bit per property, so
// every operation is O(1). The pass manager tracks the set that holds between passes;
// the verifiers that check a property against the IR live next to the pass that produces it.
// Names are the enum's own spelling (`SSAForm`), stable, and used in every error message.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace pypto::transforms {

enum class Property : std::uint8_t {
  SSAForm,
  SplitIncoreOrch,
  ClusterOutlined,
  NormalizedStmtStructure,
  NoScalarKernelReturn,
  ReturnParamsExplicit,
  AivSplitValid,
};

/// Every property, in declaration order (the order sets print in).
inline constexpr std::array<Property, 7> kAllProperties = {
    Property::SSAForm,
    Property::SplitIncoreOrch,
    Property::ClusterOutlined,
    Property::NormalizedStmtStructure,
    Property::NoScalarKernelReturn,
    Property::ReturnParamsExplicit,
    Property::AivSplitValid,
};

constexpr std::string_view property_name(Property p) {
  switch (p) {
    case Property::SSAForm: return "SSAForm";
    case Property::SplitIncoreOrch: return "SplitIncoreOrch";
    case Property::ClusterOutlined: return "ClusterOutlined";
    case Property::NormalizedStmtStructure: return "NormalizedStmtStructure";
    case Property::NoScalarKernelReturn: return "NoScalarKernelReturn";
    case Property::ReturnParamsExplicit: return "ReturnParamsExplicit";
    case Property::AivSplitValid: return "AivSplitValid";
  }
  return "?";
}

/// A set of properties as a bitmask: `PropertySet{Property::SSAForm, Property::AivSplitValid}`.
class PropertySet {
 public:
  constexpr PropertySet() = default;
  constexpr PropertySet(std::initializer_list<Property> ps) {
    for (Property p : ps) bits_ |= bit(p);
  }

  constexpr bool contains(Property p) const { return (bits_ & bit(p)) != 0; }
  constexpr bool contains_all(PropertySet other) const {
    return (bits_ & other.bits_) == other.bits_;
  }
  constexpr bool empty() const { return bits_ == 0; }

  /// This set plus / minus the properties of `other`.
  constexpr PropertySet with(PropertySet other) const { return from_bits(bits_ | other.bits_); }
  constexpr PropertySet without(PropertySet other) const {
    return from_bits(bits_ & static_cast<std::uint32_t>(~other.bits_));
  }

  constexpr bool operator==(const PropertySet&) const = default;

  /// `{SSAForm, AivSplitValid}`, in declaration order.
  std::string to_string() const {
    std::string s = "{";
    for (Property p : kAllProperties) {
      if (!contains(p)) continue;
      if (s.size() > 1) s += ", ";
      s += property_name(p);
    }
    return s + "}";
  }

 private:
  static constexpr std::uint32_t bit(Property p) {
    return std::uint32_t{1} << static_cast<unsigned>(p);
  }
  static constexpr PropertySet from_bits(std::uint32_t b) {
    PropertySet s;
    s.bits_ = b;
    return s;
  }
  std::uint32_t bits_ = 0;
};

/// Properties every program must have at every pass boundary, whatever a pass claims:
/// verify-each checks them after each pass.
inline constexpr PropertySet kStructuralProperties{Property::NoScalarKernelReturn};

}  // namespace pypto::transforms

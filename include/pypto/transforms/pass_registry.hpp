// pypto/transforms/pass_registry.hpp — pass factories by command-line name.
//
// A PassRegistry is a value mapping each stable kebab-case name (`normalize-stmt-structure`)
// to a one-line description and a factory making the Pass; `standard_passes()` is the registry
// of every pass that exists, which is what `pypto-opt --passes=` and `--list-passes` use.
// Entries are kept sorted by name, so listings are deterministic. `pipeline("a,b")` turns a
// comma-separated list into passes, throwing UnknownPassError for a name it does not know.
// Lookup is O(log n).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"
#include "pypto/transforms/pass.hpp"

namespace pypto::transforms {

/// A pass name no registry entry has.
class UnknownPassError : public core::ValueError {
 public:
  UnknownPassError(std::string name, const std::string& known)
      : core::ValueError("unknown pass '" + name + "' (known passes: " + known + ")"),
        name_(std::move(name)) {}
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

class PassRegistry {
 public:
  using Factory = std::function<Pass()>;
  struct Entry {
    std::string description;
    Factory factory;
  };

  /// Registers `factory` under the name of the pass it makes. Throws core::ValueError when the
  /// name is taken.
  PassRegistry& add(std::string description, Factory factory) {
    const Pass probe = factory();
    if (!entries_.emplace(probe.name(), Entry{std::move(description), std::move(factory)}).second)
      throw core::ValueError("PassRegistry: pass '" + probe.name() + "' is already registered");
    return *this;
  }

  bool contains(std::string_view name) const { return entries_.find(name) != entries_.end(); }

  /// A fresh pass by name; throws UnknownPassError.
  Pass make(std::string_view name) const {
    auto it = entries_.find(name);
    if (it == entries_.end()) throw UnknownPassError(std::string(name), known_names());
    return it->second.factory();
  }

  /// The passes of a comma-separated list, in order (`""` is the empty pipeline). Blanks around
  /// names are ignored; an empty item is an error.
  std::vector<Pass> pipeline(std::string_view list) const {
    std::vector<Pass> passes;
    const std::string_view whole = list;
    if (trim(list).empty()) return passes;
    for (;;) {
      const std::size_t comma = list.find(',');
      const std::string_view item = trim(list.substr(0, comma));
      if (item.empty())
        throw core::ValueError("pass list '" + std::string(whole) + "': empty pass name");
      passes.push_back(make(item));
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
    return passes;
  }

  /// Every entry, sorted by name.
  const std::map<std::string, Entry, std::less<>>& entries() const { return entries_; }

  /// `a, b, c`: the registered names, sorted.
  std::string known_names() const {
    std::string out;
    for (const auto& [name, entry] : entries_) out += (out.empty() ? "" : ", ") + name;
    return out.empty() ? "none" : out;
  }

 private:
  static std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  }

  std::map<std::string, Entry, std::less<>> entries_;
};

/// The registry of every pass that exists.
PYPTO_DECL PassRegistry standard_passes();

/// The passes that take a program as written to what codegen<Target> accepts, in order (the
/// `pypto-opt --target` default).
inline constexpr std::string_view kCodegenPipeline =
    "convert-to-ssa,outline-incore-scopes,outline-cluster-scopes,deduplicate-outlined-kernels,"
    "convert-tensor-to-tile-ops,expand-mixed-kernels,normalize-return-order";

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/pass_registry.ipp"
#endif

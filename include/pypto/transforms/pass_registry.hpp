// pypto/transforms/pass_registry.hpp — pass factories by command-line name.
//
// A PassRegistry is a value mapping each stable kebab-case name (`normalize-stmt-structure`)
// to a one-line description and a factory making the Pass; `standard_passes()` is the registry
// of every pass that exists, which is what `pypto-opt --passes=` and `--list-passes` use.
// Entries are kept sorted by name, so listings are deterministic. A pass may declare options
// (name, meaning, accepted values, the first the default); `pipeline("a,b{key=value}")` turns a
// comma-separated list into passes, each made with its options, throwing UnknownPassError for a
// name it does not know and core::ValueError for an option or value it does not declare.
// Lookup is O(log n).
#pragma once

#include <algorithm>
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

/// An option a registered pass declares: `name{key=value}` in a pipeline.
struct PassOption {
  std::string key;
  std::string description;
  std::vector<std::string> values;  // the accepted values; the first is the default
};

/// The options a pass is made with: every declared key, the default where none was given.
using PassOptions = std::map<std::string, std::string, std::less<>>;

class PassRegistry {
 public:
  using Factory = std::function<Pass(const PassOptions&)>;
  struct Entry {
    std::string description;
    std::vector<PassOption> options;
    Factory factory;
  };

  /// Registers a pass without options under the name of the pass `factory` makes. Throws
  /// core::ValueError when the name is taken.
  PassRegistry& add(std::string description, std::function<Pass()> factory) {
    return add(std::move(description), {},
               [f = std::move(factory)](const PassOptions&) { return f(); });
  }

  /// Registers a pass taking `options`; `factory` gets every declared key.
  PassRegistry& add(std::string description, std::vector<PassOption> options, Factory factory) {
    for (const PassOption& o : options)
      if (o.values.empty())
        throw core::ValueError("PassRegistry: option '" + o.key + "' accepts no value");
    PassOptions defaults;
    for (const PassOption& o : options) defaults.emplace(o.key, o.values.front());
    const Pass probe = factory(defaults);
    if (!entries_
             .emplace(probe.name(),
                      Entry{std::move(description), std::move(options), std::move(factory)})
             .second)
      throw core::ValueError("PassRegistry: pass '" + probe.name() + "' is already registered");
    return *this;
  }

  bool contains(std::string_view name) const { return entries_.find(name) != entries_.end(); }

  /// A fresh pass by name, with `given` options over the defaults; throws UnknownPassError, and
  /// core::ValueError for an option the pass does not declare or a value it does not accept.
  Pass make(std::string_view name, const PassOptions& given = {}) const {
    auto it = entries_.find(name);
    if (it == entries_.end()) throw UnknownPassError(std::string(name), known_names());
    const Entry& entry = it->second;
    PassOptions options;
    for (const PassOption& o : entry.options) options.emplace(o.key, o.values.front());
    for (const auto& [key, value] : given) {
      auto declared =
          std::find_if(entry.options.begin(), entry.options.end(),
                       [&, k = std::string_view(key)](const PassOption& o) { return o.key == k; });
      if (declared == entry.options.end())
        throw core::ValueError("pass '" + std::string(name) + "' has no option '" + key + "'" +
                               (entry.options.empty() ? std::string(" (it takes none)")
                                                      : " (options: " + keys(entry) + ")"));
      if (std::find(declared->values.begin(), declared->values.end(), value) ==
          declared->values.end())
        throw core::ValueError("pass '" + std::string(name) + "': option " + key + "=" + value +
                               " is not one of " + joined(declared->values, "|"));
      options[key] = value;
    }
    return entry.factory(options);
  }

  /// The passes of a comma-separated list, in order (`""` is the empty pipeline); an item is a
  /// name with its options in braces, `name{key=value key2=value2}` (blanks or commas between
  /// them). Blanks around items are ignored; an empty item or option is an error.
  std::vector<Pass> pipeline(std::string_view list) const {
    std::vector<Pass> passes;
    const std::string whole(list);
    auto bad = [&](const std::string& why) {
      return core::ValueError("pass list '" + whole + "': " + why);
    };
    if (trim(list).empty()) return passes;
    for (;;) {
      std::size_t end = 0;
      for (int depth = 0; end < list.size() && (depth > 0 || list[end] != ','); ++end)
        depth += list[end] == '{' ? 1 : list[end] == '}' ? -1 : 0;
      std::string_view item = trim(list.substr(0, end));
      PassOptions given;
      if (const std::size_t brace = item.find('{'); brace != std::string_view::npos) {
        if (item.back() != '}' || item.find('{', brace + 1) != std::string_view::npos)
          throw bad("options of '" + std::string(item) + "' are not one `{key=value ...}`");
        std::string_view body = item.substr(brace + 1, item.size() - brace - 2);
        item = trim(item.substr(0, brace));
        while (!(body = trim_separators(body)).empty()) {
          const std::size_t stop = body.find_first_of(" \t,");
          const std::string_view option = body.substr(0, stop);
          const std::size_t eq = option.find('=');
          if (eq == std::string_view::npos || eq == 0 || eq + 1 == option.size())
            throw bad("option '" + std::string(option) + "' of '" + std::string(item) +
                      "' is not key=value");
          if (!given.emplace(option.substr(0, eq), option.substr(eq + 1)).second)
            throw bad("option '" + std::string(option.substr(0, eq)) + "' of '" +
                      std::string(item) + "' is given twice");
          body.remove_prefix(option.size());
        }
      }
      if (item.empty()) throw bad("empty pass name");
      passes.push_back(make(item, given));
      if (end == list.size()) break;
      list.remove_prefix(end + 1);
    }
    return passes;
  }

  /// Every entry, sorted by name.
  const std::map<std::string, Entry, std::less<>>& entries() const { return entries_; }

  /// `a, b, c`: the registered names, sorted.
  std::string known_names() const {
    std::vector<std::string> names;
    for (const auto& [name, entry] : entries_) names.push_back(name);
    return names.empty() ? "none" : joined(names, ", ");
  }

 private:
  static std::string joined(const std::vector<std::string>& items, std::string_view sep) {
    std::string out;
    for (const std::string& i : items) out += (out.empty() ? "" : std::string(sep)) + i;
    return out;
  }
  static std::string keys(const Entry& entry) {
    std::vector<std::string> k;
    for (const PassOption& o : entry.options) k.push_back(o.key);
    return joined(k, ", ");
  }
  static std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  }
  static std::string_view trim_separators(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == ','))
      s.remove_prefix(1);
    return s;
  }

  std::map<std::string, Entry, std::less<>> entries_;
};

/// The registry of every pass that exists.
PYPTO_DECL PassRegistry standard_passes();

/// The passes that take a program as written to what codegen<Target> accepts, in order (the
/// `pypto-opt --target` default).
inline constexpr std::string_view kCodegenPipeline =
    "unroll-loops,ctrl-flow-transform,convert-to-ssa,outline-incore-scopes,outline-cluster-scopes,"
    "deduplicate-outlined-kernels,"
    "convert-tensor-to-tile-ops,expand-mixed-kernels,normalize-return-order,"
    "fuse-create-assemble-to-slice";

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/pass_registry.ipp"
#endif

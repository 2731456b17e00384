// pypto/ir/program.hpp — a program: functions keyed and ordered by name.
//
// Functions are stored sorted by name with unique names, so iteration order is deterministic
// and independent of insertion order. The key of each entry is a compared field: two programs
// are equal only if the same names map to equal functions ("map keys and callee names
// still compare"), even though Function::name itself is Ignore. The program's own name is
// Ignore. Lookup is O(log n).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/ir/function.hpp"
#include "pypto/ir/node.hpp"

namespace pypto::ir {

/// One entry of a program: the key name and the function (whose own name equals the key).
struct NamedFunction {
  std::string name;
  FunctionRef function;
  using fields = FieldList<UsualField<&NamedFunction::name, "name">,
                           UsualField<&NamedFunction::function, "function">>;
};

struct Program final : Node {
  PYPTO_CONCRETE_NODE(Program)
  std::string name;
  std::vector<NamedFunction> functions;  ///< sorted by name, names unique

  using fields =
      FieldList<IgnoreField<&Program::name, "name">, UsualField<&Program::functions, "functions">>;

  /// `name` may be empty (the printer then calls the class `Program`); otherwise it is the
  /// printed class name, so a Python identifier that is not a keyword.
  static Ref<const Program> make(std::string name, std::vector<FunctionRef> functions) {
    if (!name.empty()) detail::require_name(name, "Program", "name");
    detail::require_non_null(functions, "Program", "functions");
    auto p = make_node<Program>();
    p->name = std::move(name);
    for (auto& fn : functions) p->functions.push_back({fn->name, std::move(fn)});
    // Unstable is enough: equal names are rejected below. (std::sort also instantiates far less
    // than std::stable_sort, which measurably slowed every TU that builds a Program.)
    std::sort(p->functions.begin(), p->functions.end(),
              [](const NamedFunction& a, const NamedFunction& b) { return a.name < b.name; });
    for (std::size_t i = 1; i < p->functions.size(); ++i)
      if (p->functions[i - 1].name == p->functions[i].name)
        detail::fail("Program", "functions",
                     "duplicate function name '" + p->functions[i].name + "'");
    return p;
  }

  /// The function named `fn_name`, or null.
  FunctionRef find(std::string_view fn_name) const {
    auto it =
        std::lower_bound(functions.begin(), functions.end(), fn_name,
                         [](const NamedFunction& e, std::string_view n) { return e.name < n; });
    return it != functions.end() && it->name == fn_name ? it->function : nullptr;
  }

  /// A copy with `fn` added, or replacing the function of the same name.
  Ref<const Program> with_function(FunctionRef fn) const {
    if (!fn) detail::fail("Program", "functions", "with_function needs a function, got null");
    std::vector<FunctionRef> fns;
    for (const auto& e : functions)
      if (e.name != fn->name) fns.push_back(e.function);
    fns.push_back(std::move(fn));
    return make(name, std::move(fns));
  }
};
using ProgramRef = Ref<const Program>;

}  // namespace pypto::ir

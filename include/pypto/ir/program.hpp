// pypto/ir/program.hpp — a program: functions keyed and ordered by name.
//
// Functions are stored sorted by name with unique names, so iteration order is deterministic
// and independent of insertion order. The key of each entry is a compared field: two programs
// are equal only if the same names map to equal functions (seed 003: "map keys and callee names
// still compare"), even though Function::name itself is Ignore. The program's own name is
// Ignore. Lookup is O(log n).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
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

  static Ref<const Program> make(std::string name, std::vector<FunctionRef> functions) {
    auto p = make_node<Program>();
    p->name = std::move(name);
    for (std::size_t i = 0; i < functions.size(); ++i) {
      if (!functions[i])
        detail::fail("Program", detail::indexed("functions", i), "must not be null");
      p->functions.push_back({functions[i]->name, std::move(functions[i])});
    }
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

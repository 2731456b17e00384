// pypto/ir/function.hpp — a function: parameters with directions, return types, body, metadata.
//
// Parameters are Def fields (bound for the whole function, including the types of other
// parameters: a shape may name a later scalar parameter). The name is Ignore (a function
// compares equal to a renamed copy); the program keys functions by name instead. Directions,
// return types, attrs, function type, level, role and the runtime-binding flag all compare
// ("function metadata"). When no level/role is given the builder derives them from
// the function type, as upstream does.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/ir/attrs.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/var.hpp"

namespace pypto::ir {

/// The function attr `@pl.function(auto_scope=...)` sets (the DSL's own keyword for it).
inline constexpr std::string_view kAutoScopeAttr = "auto_scope";

/// Whether a function attr is the decorator's to set, never a `pl.func_attr` prologue's (the
/// DSL reads these before the body).
inline bool decorator_only_attr(std::string_view key) {
  return key == kAutoScopeAttr || key == "external_source";
}

/// One parameter: its variable and the callee-side direction.
struct Param {
  VarRef var;
  ParamDirection direction = ParamDirection::In;
};

/// The rarely set parts of a function, with chainable setters:
/// `FunctionOptions().with_level(Level::HOST).with_span(span)`.
struct FunctionOptions {
  std::optional<Level> level;  ///< derived from the function type when absent
  std::optional<Role> role;    ///< derived from the function type when absent
  bool requires_runtime_binding = false;
  Span span;

  FunctionOptions& with_level(Level l) {
    level = l;
    return *this;
  }
  FunctionOptions& with_role(Role r) {
    role = r;
    return *this;
  }
  FunctionOptions& with_runtime_binding(bool b = true) {
    requires_runtime_binding = b;
    return *this;
  }
  FunctionOptions& with_span(Span s) {
    span = std::move(s);
    return *this;
  }
};

/// True for a sub-worker at HOST level or above: its body is host code carried verbatim (an
/// InlineStmt, or `...` when bound at run time) and it takes no `self` in the text.
constexpr bool is_host_sub_worker(std::optional<Level> level, std::optional<Role> role) {
  return level && *level >= Level::HOST && role == Role::SubWorker;
}

struct Function final : Node {
  PYPTO_CONCRETE_NODE(Function)
  Span span;
  std::string name;
  std::vector<VarRef> params;
  std::vector<ParamDirection> param_directions;
  std::vector<TypeRef> return_types;
  StmtRef body;  ///< null only for a runtime-bound declaration
  FunctionType func_type = FunctionType::Opaque;
  std::optional<Level> level;
  std::optional<Role> role;
  Attrs attrs;
  bool requires_runtime_binding = false;

  using fields =
      FieldList<IgnoreField<&Function::span, "span">, IgnoreField<&Function::name, "name">,
                DefField<&Function::params, "params">,
                UsualField<&Function::param_directions, "param_directions">,
                UsualField<&Function::return_types, "return_types">,
                UsualField<&Function::func_type, "func_type">,
                UsualField<&Function::level, "level">, UsualField<&Function::role, "role">,
                UsualField<&Function::attrs, "attrs">,
                UsualField<&Function::requires_runtime_binding, "requires_runtime_binding">,
                UsualField<&Function::body, "body">>;

  static Ref<const Function> make(std::string name, std::vector<Param> params,
                                  std::vector<TypeRef> return_types, StmtRef body,
                                  FunctionType func_type = FunctionType::Opaque, Attrs attrs = {},
                                  FunctionOptions options = {}) {
    detail::require_name(name, "Function", "name");
    auto f = make_node<Function>();
    auto fail = [&](std::string_view field, std::string_view problem) {
      detail::fail("Function " + name, field, problem);
    };
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (!params[i].var) fail(detail::indexed("params", i), "must not be null");
      for (std::size_t j = 0; j < i; ++j)
        if (f->params[j] == params[i].var)  // params[j].var was moved into f->params
          fail(detail::indexed("params", i),
               "the same variable is already parameter " + std::to_string(j));
      f->params.push_back(std::move(params[i].var));
      f->param_directions.push_back(params[i].direction);
    }
    detail::require_non_null(return_types, "Function " + name, "return_types");
    // Upstream #2298: a NONE split attr broke print→parse. No `split` key is the one no-split
    // encoding, so a stamped NONE is refused here rather than dropped by the printer.
    for (std::size_t i = 0; i < attrs.size(); ++i) {
      const auto* mode = attrs.entries[i].value.get_if<EnumValue>();
      if (attrs.entries[i].key == "split" && mode && mode->get<SplitMode>() == SplitMode::None)
        fail(detail::indexed("attrs", i),
             "split = NONE is not stamped (no `split` key is the canonical no-split)");
    }
    if (!body && !options.requires_runtime_binding)
      fail("body", "must not be null (only a runtime-bound declaration has no body)");
    if (body && options.requires_runtime_binding)
      fail("body", "a runtime-bound declaration has no body (its code is bound at run time)");
    f->span = std::move(options.span);
    f->name = std::move(name);
    f->return_types = std::move(return_types);
    f->body = std::move(body);
    f->func_type = func_type;
    f->level = options.level ? options.level : default_level(func_type);
    f->role = options.role ? options.role : default_role(func_type);
    f->attrs = std::move(attrs);
    f->requires_runtime_binding = options.requires_runtime_binding;
    if (f->body && f->body->kind() == NodeKind::InlineStmt &&
        !is_host_sub_worker(f->level, f->role))
      detail::fail("Function " + f->name, "body",
                   "host code (an InlineStmt) is the body of a HOST sub-worker only");
    return f;
  }

  /// This function under another name (for passes that rename or outline).
  Ref<const Function> renamed(std::string new_name) const {
    detail::require_name(new_name, "Function", "name");
    auto f = copy_node(*this);
    f->name = std::move(new_name);
    return f;
  }
};
using FunctionRef = Ref<const Function>;

}  // namespace pypto::ir

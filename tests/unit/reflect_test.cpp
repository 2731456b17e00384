// Tests of pypto/reflect at run time: descriptor names and kinds of real nodes, the field walker
// with its hooks, and Hana queries over descriptor lists.
#include <doctest/doctest.h>

#include <algorithm>
#include <boost/hana/count_if.hpp>
#include <boost/hana/filter.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/tuple.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir_samples.hpp"
#include "pypto/reflect/field.hpp"
#include "pypto/reflect/hana.hpp"
#include "pypto/reflect/walk.hpp"

using namespace pypto::test;  // NOLINT
namespace core = pypto::core;
namespace reflect = pypto::reflect;
namespace hana = boost::hana;
using reflect::FieldKind;

namespace {
/// a + b + c, built by appending (g++ 12 -O3 misreports `"x" + std::string` under -Wrestrict).
std::string cat(std::string_view a, std::string_view b, std::string_view c = {}) {
  std::string s;
  s.append(a).append(b).append(c);
  return s;
}
/// "name:Kind" of each descriptor of T, in declaration order.
template <class T>
std::vector<std::string> describe() {
  std::vector<std::string> out;
  reflect::for_each_field_descriptor<T>([&](auto f) {
    using F = decltype(f);
    out.push_back(cat(F::name, ":", reflect::field_kind_name(F::kind)));
  });
  return out;
}
using Strings = std::vector<std::string>;
}  // namespace

// ---- descriptor lists of real nodes -----------------------------------------------------------

TEST_CASE("descriptors: SplitAivScopeStmt lists every ScopeStmt member, task_id included") {
  CHECK(describe<SplitAivScopeStmt>() ==
        Strings{"span:Ignore", "leading_comments:Ignore", "name_hint:Usual", "aiv_id:Def",
                "body:Usual", "attrs:Usual", "task_id:Def", "split:Usual", "count:Usual"});
}

TEST_CASE("descriptors: AssignStmt is span, leading_comments (Ignore), var (Def), value (Usual)") {
  CHECK(describe<AssignStmt>() ==
        Strings{"span:Ignore", "leading_comments:Ignore", "var:Def", "value:Usual"});
}

TEST_CASE("descriptors: ForStmt defines loop_var, iter_args and return_vars") {
  CHECK(describe<ForStmt>() == Strings{"span:Ignore", "leading_comments:Ignore", "loop_var:Def",
                                       "start:Usual", "stop:Usual", "step:Usual", "iter_args:Def",
                                       "body:Usual", "return_vars:Def", "for_kind:Usual",
                                       "attrs:Usual"});
}

TEST_CASE("descriptors: Function's params are Def and its name is Ignore") {
  CHECK(describe<Function>() ==
        Strings{"span:Ignore", "name:Ignore", "params:Def", "param_directions:Usual",
                "return_types:Usual", "func_type:Usual", "level:Usual", "role:Usual", "attrs:Usual",
                "requires_runtime_binding:Usual", "body:Usual"});
}

TEST_CASE("descriptors: a Var's name_hint is Ignore, an IterArg adds its init_value") {
  CHECK(describe<Var>() == Strings{"span:Ignore", "type:Usual", "name_hint:Ignore"});
  CHECK(describe<IterArg>() ==
        Strings{"span:Ignore", "type:Usual", "name_hint:Ignore", "init_value:Usual"});
}

TEST_CASE("descriptors: a scope's name_hint is compared (Usual), unlike a Var's") {
  CHECK(describe<InCoreScopeStmt>() == Strings{"span:Ignore", "leading_comments:Ignore",
                                               "name_hint:Usual", "body:Usual", "attrs:Usual",
                                               "task_id:Def", "split:Usual"});
  // The position of aiv_id among the scope's fields is not the point here: its kind is.
  const Strings split_aiv = describe<SplitAivScopeStmt>();
  CHECK(std::count(split_aiv.begin(), split_aiv.end(), "aiv_id:Def") == 1);
  CHECK(std::count(split_aiv.begin(), split_aiv.end(), "name_hint:Usual") == 1);
}

TEST_CASE("descriptors: Program's name is Ignore and its function map Usual") {
  CHECK(describe<Program>() == Strings{"name:Ignore", "functions:Usual"});
  CHECK(describe<NamedFunction>() == Strings{"name:Usual", "function:Usual"});
}

TEST_CASE("descriptors: get reads the member through the descriptor, also via a base") {
  const auto x = var("x");
  const auto one = idx(1);
  const auto s = AssignStmt::make(x, one);
  using VarField = DefField<&AssignStmt::var, "var">;
  CHECK(VarField::get(*s) == x);
  using SpanField = IgnoreField<&Stmt::span, "span">;
  CHECK_FALSE(SpanField::get(*s).is_known());  // AssignStmt read through its Stmt base
  CHECK(reflect::has_field<AssignStmt>("value"));
  CHECK_FALSE(reflect::has_field<AssignStmt>("values"));
  CHECK(reflect::count_fields<ForStmt>(FieldKind::Usual) == 6);
}

TEST_CASE("descriptors: for_each_field hands each descriptor its value, in order") {
  const auto x = var("x");
  const auto one = idx(1);
  const auto s = AssignStmt::make(x, one);
  std::vector<std::string> names;
  NodeRef var_value, value_value;
  reflect::for_each_field(*s, [&](auto f, const auto& value) {
    using F = decltype(f);
    names.emplace_back(F::name);
    if constexpr (F::name == "var") var_value = value;
    if constexpr (F::name == "value") value_value = value;
  });
  CHECK(names == Strings{"span", "leading_comments", "var", "value"});
  CHECK(var_value == x);
  CHECK(value_value == one);
}

TEST_CASE("descriptors: field_kind_name spells each kind") {
  CHECK(reflect::field_kind_name(FieldKind::Ignore) == "Ignore");
  CHECK(reflect::field_kind_name(FieldKind::Usual) == "Usual");
  CHECK(reflect::field_kind_name(FieldKind::Def) == "Def");
}

namespace {
struct TwoNamesOneMember {
  int a = 0;
  int b = 0;
  using fields = reflect::FieldList<reflect::UsualField<&TwoNamesOneMember::a, "a">,
                                    reflect::UsualField<&TwoNamesOneMember::a, "alias">>;
};
struct TwoMembersOneName {
  int a = 0;
  int b = 0;
  using fields = reflect::FieldList<reflect::UsualField<&TwoMembersOneName::a, "a">,
                                    reflect::UsualField<&TwoMembersOneName::b, "a">>;
};
}  // namespace

TEST_CASE("descriptors: fields_are_distinct rejects two descriptors with one name") {
  CHECK_FALSE(reflect::fields_are_distinct<TwoMembersOneName>());
  CHECK(reflect::fields_are_distinct<AssignStmt>());
}

TEST_CASE("descriptors: fields_are_distinct rejects two descriptors of one member") {
  CHECK_FALSE(reflect::fields_are_distinct<TwoNamesOneMember>());
}

// ---- walk_fields ------------------------------------------------------------------------------

namespace {
/// Records the walk as a flat event log.
struct Recorder {
  std::vector<std::string> log;

  /// The log as one line, events separated by spaces.
  std::string text() const {
    std::string out;
    for (const auto& e : log) out.append(out.empty() ? "" : " ").append(e);
    return out;
  }

  template <class F>
  void begin_field(F) {
    log.push_back(cat("<", F::name));
  }
  template <class F>
  void end_field(F) {
    log.push_back(cat(F::name, ">"));
  }
  void begin_list(std::size_t n) { log.push_back(cat("[", std::to_string(n))); }
  void end_list() { log.push_back("]"); }
  void begin_element(std::size_t i) { log.push_back(cat("#", std::to_string(i))); }
  void absent() { log.push_back("absent"); }

  template <class T>
  void visit(const Ref<const T>& n) {
    log.push_back(n ? std::string(kind_name(n->kind())) : "null");
  }
  void visit(const core::Span&) { log.push_back("span"); }
  void visit(const std::string& s) { log.push_back(cat("'", s, "'")); }
  void visit(const Attrs& a) { log.push_back(cat("attrs", std::to_string(a.size()))); }
  void visit(core::DataType t) { log.push_back(std::string(core::dtype_name(t))); }
  template <class E>
  requires IrEnum<E>
  void visit(E e) { log.push_back(std::string(enum_name(e))); }
  void visit(bool b) { log.push_back(b ? "true" : "false"); }
  void visit(std::uint64_t v) { log.push_back(cat("u", std::to_string(v))); }
  void visit(std::int64_t v) { log.push_back(cat("i", std::to_string(v))); }
};

/// Handles only node handles; everything else must be decomposed or rejected.
struct VectorOwner {
  int whole_vectors = 0;
  int elements = 0;
  template <class T>
  void visit(const Ref<const T>&) {
    ++elements;
  }
  void visit(const std::vector<StmtRef>&) { ++whole_vectors; }
  void visit(const core::Span&) {}
  void visit(const std::string&) {}
};
}  // namespace

TEST_CASE("walk_fields: visits fields in order with begin/end_field around each") {
  const auto s = AssignStmt::make(var("x"), idx(1));
  Recorder r;
  reflect::walk_fields(r, *s);
  CHECK(r.text() ==
        "<span span span> <leading_comments [0 ] leading_comments> <var Var var> "
        "<value ConstInt value>");
}

TEST_CASE("walk_fields: a vector is announced with begin_list(n) and its elements numbered") {
  const auto s = YieldStmt::make({idx(1), true_()});
  Recorder r;
  reflect::walk_fields(r, *s);
  CHECK(r.text() ==
        "<span span span> <leading_comments [0 ] leading_comments> "
        "<values [2 #0 ConstInt #1 ConstBool ] values>");
}

TEST_CASE("walk_fields: an empty optional calls absent(), a present one is walked") {
  const auto f = Function::make("f", {}, {}, empty_body());  // Opaque: no level, no role
  Recorder r;
  reflect::walk_fields(r, *f);
  CHECK(r.text() ==
        "<span span span> <name 'f' name> <params [0 ] params> "
        "<param_directions [0 ] param_directions> <return_types [0 ] return_types> "
        "<func_type Opaque func_type> <level absent level> <role absent role> "
        "<attrs attrs0 attrs> <requires_runtime_binding false requires_runtime_binding> "
        "<body SeqStmts body>");

  const auto g = Function::make("g", {}, {}, empty_body(), FunctionType::AIV);
  Recorder rg;
  reflect::walk_fields(rg, *g);
  CHECK(rg.text().find("<level AIV level> <role SubWorker role>") != std::string::npos);
}

TEST_CASE("walk_fields: a nested reflected struct (TileView) is walked field by field") {
  TileView view;
  view.fractal = 256;
  const auto t = TileType::make(DataType::FP16, {idx(16)}, MemorySpace::Mat, view);
  Recorder r;
  reflect::walk_fields(r, *t);
  CHECK(r.text() ==
        "<dtype FP16 dtype> <shape [1 #0 ConstInt ] shape> <memref null memref> "
        "<tile_view <valid_shape [0 ] valid_shape> <stride [0 ] stride> "
        "<start_offset null start_offset> <blayout row_major blayout> "
        "<slayout none_box slayout> <fractal u256 fractal> <pad null pad> "
        "<compact null compact> tile_view> <memory_space Mat memory_space>");
}

TEST_CASE("walk_fields: a visitor's own overload for a container wins over decomposition") {
  const auto s = SeqStmts::make({BreakStmt::make(), ContinueStmt::make()});
  VectorOwner v;
  reflect::walk_fields(v, *s);
  CHECK(v.whole_vectors == 1);
  CHECK(v.elements == 0);
  const auto y = YieldStmt::make({idx(1), idx(2)});  // a vector<ExprRef>: decomposed
  VectorOwner w;
  reflect::walk_fields(w, *y);
  CHECK(w.whole_vectors == 0);
  CHECK(w.elements == 2);
}

// ---- Hana queries -----------------------------------------------------------------------------

namespace {
constexpr auto is_def = [](auto t) {
  using F = typename decltype(t)::type;
  return hana::bool_c<F::kind == FieldKind::Def>;
};
constexpr auto is_ignore = [](auto t) {
  using F = typename decltype(t)::type;
  return hana::bool_c<F::kind == FieldKind::Ignore>;
};
}  // namespace

TEST_CASE("hana: counting Def descriptors of ForStmt and AssignStmt") {
  constexpr std::size_t for_defs = hana::count_if(reflect::hana_fields<ForStmt>(), is_def);
  static_assert(for_defs == 3);
  CHECK(for_defs == 3);
  constexpr std::size_t assign_defs = hana::count_if(reflect::hana_fields<AssignStmt>(), is_def);
  static_assert(assign_defs == 1);
  CHECK(assign_defs == 1);
  constexpr std::size_t call_defs = hana::count_if(reflect::hana_fields<Call>(), is_def);
  CHECK(call_defs == 0);
}

TEST_CASE("hana: the view has one element per descriptor and filters by kind") {
  constexpr std::size_t length = hana::length(reflect::hana_fields<ForStmt>());
  static_assert(length == reflect::FieldsOf<ForStmt>::size);
  CHECK(length == 11);
  const auto ignored = hana::filter(hana::to_tuple(reflect::hana_fields<Function>()), is_ignore);
  std::vector<std::string_view> names;
  hana::for_each(ignored, [&](auto t) { names.push_back(decltype(t)::type::name); });
  CHECK(names == std::vector<std::string_view>{"span", "name"});
}

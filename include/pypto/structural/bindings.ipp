// pypto/structural/bindings.ipp — the definitions of structural/bindings.hpp.
//
// Which fields define comes from the descriptors (FieldKind::Def); the lexical rules are the
// statement's ScopeRule (below). Scoping is lexical and time only moves forward, so the places
// where a variable is visible form one interval of "walk time": [its binding, the end of its
// scope). Verification therefore runs in two passes:
//   1. Statements are walked (iteratively) in field order; every binding gets its interval and
//      every expression/type slot a "use site" with its evaluation time. Statement-level errors
//      (duplicate definition, shared statement) are recorded at their walk position.
//   2. Each use site is checked against the interval in which everything its expression or type
//      DAG references is visible: the intersection of the variables' intervals, propagated up
//      the DAG edges and memoised for shared nodes (use_count() > 1), so a shared subtree is
//      never walked twice. Only when a check fails is that one subtree searched, in field order,
//      for the actual illegal use, so the path names the Var inside a shared expression or type,
//      also for a later out-of-scope use whose first use was legal.
// Evaluation points: a statement's plain fields (loop bounds, a scope's core_num, attrs, an
// iter_arg's init value) are evaluated before its regions open; a binder's own fields (its type,
// a window buffer's storage) where it becomes visible, so binders bound together (a loop's
// loop_var and iter_args, a statement's results, the parameters) may name each other in their
// types. A reference to a Var is a leaf: its own fields are checked once, at its definition.
// Time O(N) expected (identity hash lookups; O(N log N) at worst), space O(N),
// N = nodes + fields; no native recursion over IR depth. Messages name variables by their name
// hints and places by field paths, never by addresses.
#pragma once

#include "pypto/structural/bindings.hpp"

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "pypto/core/dtype.hpp"
#include "pypto/core/error.hpp"
#include "pypto/core/hash.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/reflect/field.hpp"
#include "pypto/reflect/walk.hpp"
#include "pypto/structural/errors.hpp"
#include "pypto/structural/signature.hpp"

namespace pypto::structural {

namespace detail::binding {

// ---- the lexical rules ------------------------------------------------------------------------

/// How a node scopes the bindings of its fields. Which fields define is the descriptors'
/// business (FieldKind::Def); this is the part no descriptor can say.
enum class ScopeRule : std::uint8_t {
  /// No region of its own (AssignStmt, EvalStmt, SeqStmts, YieldStmt, ...): nested statements
  /// run in sequence and Def fields bind after the statement (an assignment's right side cannot
  /// see its own variable).
  Sequential,
  /// ForStmt, WhileStmt: the body (and a while's condition) is one region that is a barrier.
  /// Def fields declared before the region are the loop's binders, visible in the region only
  /// (their initial values are evaluated outside); those after it are the results, bound after
  /// the loop.
  Loop,
  /// IfStmt: each arm is its own barrier region; Def fields are results bound after the if.
  Branches,
  /// Scope statements: the body is not a barrier (its definitions flow out to later
  /// statements); the scope's Def fields before the body (SplitAiv's aiv_id) bind for the body
  /// only, those after it (the task id) after the scope.
  Straight,
  /// Function: the Def fields (parameters) and the signature symbols bind for the whole
  /// function; every other field is evaluated in that signature context.
  Signature,
};

constexpr ScopeRule scope_rule(ir::NodeKind k) {
  switch (k) {
    case ir::NodeKind::ForStmt:
    case ir::NodeKind::WhileStmt: return ScopeRule::Loop;
    case ir::NodeKind::IfStmt: return ScopeRule::Branches;
    case ir::NodeKind::Function: return ScopeRule::Signature;
    default: return ir::kinds::scope.contains(k) ? ScopeRule::Straight : ScopeRule::Sequential;
  }
}

template <class F, auto Member>
constexpr bool is_member() {
  if constexpr (std::is_same_v<std::remove_cv_t<decltype(F::member)>, decltype(Member)>)
    return F::member == Member;
  else
    return false;
}

/// A while condition is evaluated before every iteration: inside the loop region.
template <class F>
constexpr bool evaluated_in_loop_region() {
  return is_member<F, &ir::WhileStmt::condition>();
}

/// An iter_arg's initial value seeds the first iteration: it is evaluated outside the loop.
template <class F>
constexpr bool evaluated_before_loop() {
  return is_member<F, &ir::IterArg::init_value>();
}

// ---- times and paths --------------------------------------------------------------------------

using Time = std::uint64_t;
inline constexpr Time kForever = std::numeric_limits<Time>::max();

/// The walk times at which a variable (or everything an expression references) is visible.
struct Interval {
  Time begin = 0;
  Time end = kForever;
  bool contains(Time t) const { return begin <= t && t < end; }
  Interval meet(Interval o) const { return {std::max(begin, o.begin), std::min(end, o.end)}; }
};
inline constexpr Interval kAlways{0, kForever};
inline constexpr Interval kNever{kForever, 0};

/// One step of a field path: `.name`, `[i]` or `["key"]` (an attribute entry, as in
/// assert_structural_equal's paths).
struct Step {
  enum class Kind : std::uint8_t { Field, Index, Key };
  Kind kind = Kind::Field;
  std::string_view name;
  std::size_t index = 0;
};

inline void append_step(std::string& out, const Step& s) {
  switch (s.kind) {
    case Step::Kind::Field:
      if (!out.empty()) out += '.';
      out += s.name;
      break;
    case Step::Kind::Index: out += '[' + std::to_string(s.index) + ']'; break;
    case Step::Kind::Key: out.append("[\"").append(s.name).append("\"]"); break;
  }
}

/// The paths of statement-level places, stored as a tree of steps (parent links) so that a
/// path costs one entry, not one string; rendered only for an error message.
class PathTree {
 public:
  static constexpr std::uint32_t kRoot = 0;

  PathTree() { nodes_.push_back({kRoot, {}}); }

  std::uint32_t add(std::uint32_t parent, Step step) {
    nodes_.push_back({parent, step});
    return static_cast<std::uint32_t>(nodes_.size() - 1);
  }

  std::string render(std::uint32_t node) const {
    std::vector<const Step*> steps;
    for (; node != kRoot; node = nodes_[node].parent) steps.push_back(&nodes_[node].step);
    std::string out;
    for (auto it = steps.rbegin(); it != steps.rend(); ++it) append_step(out, **it);
    return out;
  }

 private:
  struct Entry {
    std::uint32_t parent;
    Step step;
  };
  std::vector<Entry> nodes_;
};

/// A path under construction during a field walk: steps are pushed and popped freely and
/// turned into PathTree entries only when a place actually needs a path.
class PathCursor {
 public:
  explicit PathCursor(PathTree& tree) : tree_(tree) {}

  /// Starts a new walk below `base` (keeps the buffers).
  void reset(std::uint32_t base) {
    steps_.clear();
    nodes_.assign(1, base);
  }

  void push(Step s) { steps_.push_back(s); }
  void pop() {
    steps_.pop_back();
    if (nodes_.size() > steps_.size() + 1) nodes_.pop_back();
  }
  std::uint32_t here() {
    while (nodes_.size() <= steps_.size())
      nodes_.push_back(tree_.add(nodes_.back(), steps_[nodes_.size() - 1]));
    return nodes_.back();
  }

 private:
  PathTree& tree_;
  std::vector<Step> steps_;
  std::vector<std::uint32_t> nodes_;
};

/// True for a field value that can hold no node: scalars, enums, strings, and lists/optionals
/// of those.
template <class T>
constexpr bool is_plain_value() {
  if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_same_v<T, std::string>)
    return true;
  else if constexpr (reflect::detail::is_vector<T> || reflect::detail::is_optional<T>)
    return is_plain_value<typename T::value_type>();
  else
    return false;
}

/// True when some compared field of T can hold a node (derived from the descriptors).
template <class T>
constexpr bool may_reference_nodes() {
  bool any = false;
  reflect::for_each_field_descriptor<T>([&](auto f) {
    using F = decltype(f);
    if (F::kind != reflect::FieldKind::Ignore && !is_plain_value<typename F::value_type>())
      any = true;
  });
  return any;
}

/// may_reference_nodes per NodeKind, for a one-load test in the hot loop.
inline constexpr bool kMayReferenceNodes[] = {
#define PYPTO_X(T) may_reference_nodes<ir::T>(),
    PYPTO_IR_NODES(PYPTO_X)
#undef PYPTO_X
};
static_assert(sizeof(kMayReferenceNodes) == ir::kNodeKindCount);
static_assert(!kMayReferenceNodes[static_cast<std::size_t>(ir::NodeKind::ScalarType)]);
static_assert(kMayReferenceNodes[static_cast<std::size_t>(ir::NodeKind::TensorType)]);

// ---- identity maps ----------------------------------------------------------------------------

/// An open-addressing map from node addresses to small values, for membership and lookup only
/// (never iterated, so addresses decide nothing observable). Linear probing, load <= 1/2;
/// pointers returned by find/try_emplace stay valid until the next insertion.
template <class K, class V>
class IdentityMap {
 public:
  V* find(const K* key) {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & mask()) {
      if (slots_[i].key == key) return &slots_[i].value;
      if (slots_[i].key == nullptr) return nullptr;
    }
  }
  const V* find(const K* key) const { return const_cast<IdentityMap*>(this)->find(key); }

  /// The value under `key`, inserting `value` first when absent; second = inserted.
  std::pair<V*, bool> try_emplace(const K* key, V value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = home(key);
    for (; slots_[i].key != nullptr; i = (i + 1) & mask())
      if (slots_[i].key == key) return {&slots_[i].value, false};
    slots_[i] = {key, std::move(value)};
    ++size_;
    return {&slots_[i].value, true};
  }

 private:
  struct Slot {
    const K* key = nullptr;
    V value{};
  };
  std::size_t mask() const { return slots_.size() - 1; }
  std::size_t home(const K* key) const {
    return static_cast<std::size_t>(core::hash_mix(reinterpret_cast<std::uintptr_t>(key))) & mask();
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : 2 * old.size(), Slot{});
    size_ = 0;
    for (auto& e : old)
      if (e.key) try_emplace(e.key, std::move(e.value));
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

// ---- child enumeration ------------------------------------------------------------------------

/// A reflect::walk visitor that reports every node-valued child of one node (null children and
/// Ignore fields skipped), optionally with the steps from the node to the child.
template <class Fn, bool WithSteps>
class ChildLister {
 public:
  static constexpr bool skips_ignored_fields = true;

  explicit ChildLister(Fn& fn) : fn_(fn) {}

  template <class F>
  void begin_field(F) {
    if constexpr (F::kind == reflect::FieldKind::Ignore) ++ignoring_;
    push({Step::Kind::Field, F::name, 0});
  }
  template <class F>
  void end_field(F) {
    if constexpr (F::kind == reflect::FieldKind::Ignore) --ignoring_;
    pop();
  }
  void begin_element(std::size_t i) { push({Step::Kind::Index, {}, i}); }
  void end_element() { pop(); }

  template <class T>
  requires std::derived_from<T, ir::Node>
  void visit(const ir::Ref<const T>& child) {
    if (ignoring_ == 0 && child) report(child.get());
  }
  void visit(const ir::Attrs& attrs) {
    if (ignoring_ != 0) return;
    for (const auto& e : attrs) {
      push({Step::Kind::Key, e.key, 0});
      visit_attr(e.value);
      pop();
    }
  }
  void visit(const core::Span&) {}
  void visit(const std::string&) {}
  template <class T>
  requires(std::is_arithmetic_v<T> || std::is_enum_v<T>) void visit(const T&) {}

 private:
  void visit_attr(const ir::AttrValue& v) {
    if (const auto* e = v.get_if<ir::ExprRef>()) visit(*e);
    if (const auto* list = v.get_if<ir::AttrValueList>())
      for (std::size_t i = 0; i < list->size(); ++i) {
        push({Step::Kind::Index, {}, i});
        visit_attr((*list)[i]);
        pop();
      }
  }
  void push(Step s) {
    if constexpr (WithSteps) steps_.push_back(s);
  }
  void pop() {
    if constexpr (WithSteps) steps_.pop_back();
  }
  void report(const ir::Node* child) {
    if constexpr (WithSteps)
      fn_(child, steps_);
    else
      fn_(child);
  }

  Fn& fn_;
  int ignoring_ = 0;
  std::vector<Step> steps_;
};

/// Calls fn(child) for each node-valued child of `n` in field order.
template <class Fn>
void for_each_child_node(const ir::Node& n, Fn&& fn) {
  ChildLister<std::remove_reference_t<Fn>, false> lister(fn);
  ir::visit(n, [&](const auto& concrete) { reflect::walk_fields(lister, concrete); });
}

/// Calls fn(child, steps) for each node-valued child of `n` in field order.
template <class Fn>
void for_each_child_node_with_steps(const ir::Node& n, Fn&& fn) {
  ChildLister<std::remove_reference_t<Fn>, true> lister(fn);
  ir::visit(n, [&](const auto& concrete) { reflect::walk_fields(lister, concrete); });
}

// ---- the verifier -----------------------------------------------------------------------------

inline std::string quoted_name(const ir::Var& v) { return "'" + v.name_hint + "'"; }

inline std::string describe_type(const ir::TypeRef& t) {
  if (!t) return "no type";
  if (const auto* s = ir::as<ir::ScalarType>(t.get()))
    return "Scalar[" + std::string(core::dtype_name(s->dtype)) + "]";
  return std::string(ir::kind_name(t->kind()));
}

class Verifier {
 public:
  explicit Verifier(const ir::Function& f) : function_(f) {}

  void run() {
    collect();
    check_uses();
    if (first_error_)
      throw BindingError(first_error_->kind, paths_.render(first_error_->path),
                         first_error_->detail);
  }

 private:
  // Slots hold times that are known only later in the walk (a loop binder's visibility starts
  // when the loop region opens, which comes after its Def field in field order).
  static constexpr std::uint32_t kSignatureSlot = 0;  // time 0: the signature context
  static constexpr std::uint32_t kForeverSlot = 1;    // the end of the function
  static constexpr std::uint32_t kNoPath = std::numeric_limits<std::uint32_t>::max();

  struct Binding {
    std::uint32_t begin_slot;
    std::uint32_t end_slot;
    std::uint32_t path;  // kNoPath for a signature symbol
    bool ineligible;     // a signature symbol that is not an integer scalar
  };

  struct UseSite {
    const ir::Node* root;  // an expression or a type evaluated at `time_slot`
    std::uint32_t path;
    std::uint32_t time_slot;
  };

  struct PendingError {
    BindingErrorKind kind;
    std::uint32_t path;
    std::string detail;
    std::size_t before_use;  // index of the first use site that comes after it in walk order
  };

  struct Task {
    enum class Op : std::uint8_t { Stmt, Open, Close, Define, Use, Finish };
    Op op = Op::Stmt;
    bool barrier = false;  // Open/Close: the region's locals die at its end
    const ir::Node* node = nullptr;
    std::uint32_t path = 0;
    std::uint32_t time = 0;         // Use: when; Open/Finish: the slot to fill; Define: begin
    std::uint32_t end = 0;          // Open/Close: the region's end slot; Define: binding end
    std::uint32_t fields_time = 0;  // Define: when the variable's own fields are evaluated
    std::uint32_t outer_time = 0;   // Define: when an iter_arg's initial value is evaluated
  };

  // ---- pass 1: bindings, use sites, statement-level errors --------------------------------

  std::uint32_t new_slot(Time t = kForever) {
    slots_.push_back(t);
    return static_cast<std::uint32_t>(slots_.size() - 1);
  }
  std::uint32_t enclosing_end() const {
    return barriers_.empty() ? kForeverSlot : barriers_.back();
  }

  void record_error(BindingErrorKind kind, std::uint32_t path, std::string detail) {
    if (!first_error_) first_error_ = PendingError{kind, path, std::move(detail), uses_.size()};
  }
  void add_use(const ir::Node* root, std::uint32_t path, std::uint32_t time_slot) {
    if (!first_error_) uses_.push_back({root, path, time_slot});  // later uses cannot be first
  }

  struct FieldContext {
    reflect::FieldKind kind;
    bool in_loop_region;
    bool transparent;
  };

  /// Turns the fields of one statement or function into tasks, in field order.
  class Planner {
   public:
    static constexpr bool skips_ignored_fields = true;

    Planner(Verifier& v, std::uint32_t path, ScopeRule rule, bool transparent)
        : v_(v),
          cursor_(v.cursor_),
          rule_(rule),
          transparent_(transparent),
          fields_(v.plan_fields_),
          tasks_(v.plan_tasks_) {
      cursor_.reset(path);
      fields_.clear();
      tasks_.clear();
      pre_ = rule == ScopeRule::Signature ? kSignatureSlot : v.new_slot(v.now_);
      post_ = rule == ScopeRule::Signature ? kSignatureSlot : v.new_slot();
      if (rule == ScopeRule::Loop || rule == ScopeRule::Straight) {
        open_slot_ = v.new_slot();
        end_slot_ = v.new_slot();
      }
      outer_end_ = v.enclosing_end();
    }

    template <class F>
    void begin_field(F) {
      fields_.push_back({F::kind, evaluated_in_loop_region<F>(), transparent_});
      if (!transparent_) cursor_.push({Step::Kind::Field, F::name, 0});
    }
    template <class F>
    void end_field(F) {
      if (!fields_.back().transparent) cursor_.pop();
      fields_.pop_back();
    }
    void begin_element(std::size_t i) { cursor_.push({Step::Kind::Index, {}, i}); }
    void end_element() { cursor_.pop(); }

    template <class T>
    requires std::derived_from<T, ir::Node>
    void visit(const ir::Ref<const T>& ref) {
      if (!ref || ignoring()) return;
      if constexpr (std::derived_from<T, ir::Stmt>) {
        statement(ref.get());
      } else if constexpr (std::derived_from<T, ir::Var>) {
        if (fields_.back().kind == reflect::FieldKind::Def)
          definition(ref.get());
        else
          use(ref.get());
      } else if constexpr (std::derived_from<T, ir::Expr> || std::derived_from<T, ir::Type>) {
        use(ref.get());
      }  // callees (Op, GlobalVar) bind nothing
    }
    void visit(const ir::Attrs& attrs) {
      if (ignoring()) return;
      for (const auto& e : attrs) {
        cursor_.push({Step::Kind::Key, e.key, 0});
        visit_attr(e.value);
        cursor_.pop();
      }
    }
    void visit(const core::Span&) {}
    void visit(const std::string&) {}
    template <class T>
    requires(std::is_arithmetic_v<T> || std::is_enum_v<T>) void visit(const T&) {}

    /// Closes what is open and appends the statement's end.
    void finish() {
      close_region();
      if (rule_ != ScopeRule::Signature) push(Task{.op = Task::Op::Finish, .time = post_});
    }

    std::vector<Task>& tasks() { return tasks_; }

   private:
    bool ignoring() const {
      return !fields_.empty() && fields_.back().kind == reflect::FieldKind::Ignore;
    }
    void visit_attr(const ir::AttrValue& v) {
      if (const auto* e = v.get_if<ir::ExprRef>()) visit(*e);
      if (const auto* list = v.get_if<ir::AttrValueList>())
        for (std::size_t i = 0; i < list->size(); ++i) {
          cursor_.push({Step::Kind::Index, {}, i});
          visit_attr((*list)[i]);
          cursor_.pop();
        }
    }
    void push(Task t) { tasks_.push_back(t); }

    void open_region() {
      if (region_open_) return;
      if (region_used_) throw core::InternalError("bindings: a loop region is not contiguous");
      region_open_ = region_used_ = true;
      const bool barrier = rule_ == ScopeRule::Loop;
      push(Task{.op = Task::Op::Open, .barrier = barrier, .time = open_slot_, .end = end_slot_});
    }
    void close_region() {
      if (!region_open_) return;
      region_open_ = false;
      push(Task{.op = Task::Op::Close, .barrier = rule_ == ScopeRule::Loop, .end = end_slot_});
    }

    void statement(const ir::Node* s) {
      switch (rule_) {
        case ScopeRule::Sequential:
        case ScopeRule::Signature: break;
        case ScopeRule::Loop:
        case ScopeRule::Straight: open_region(); break;
        case ScopeRule::Branches: {
          const std::uint32_t open = v_.new_slot(), end = v_.new_slot();
          push(Task{.op = Task::Op::Open, .barrier = true, .time = open, .end = end});
          push(Task{.op = Task::Op::Stmt, .node = s, .path = cursor_.here()});
          push(Task{.op = Task::Op::Close, .barrier = true, .end = end});
          return;
        }
      }
      push(Task{.op = Task::Op::Stmt, .node = s, .path = cursor_.here()});
    }

    void definition(const ir::Node* var) {
      Task t{.op = Task::Op::Define, .node = var, .path = cursor_.here(), .outer_time = pre_};
      // Def fields before a loop's or a scope's region bind inside it; those after it (loop
      // results, a scope's task id) bind after the statement.
      const bool binder =
          (rule_ == ScopeRule::Straight || rule_ == ScopeRule::Loop) && !region_used_;
      if (rule_ == ScopeRule::Signature) {
        t.time = t.fields_time = kSignatureSlot;
        t.end = kForeverSlot;
      } else if (binder) {
        t.time = t.fields_time = open_slot_;
        t.end = end_slot_;
      } else {  // a result: bound after the statement, in the enclosing scope
        if (rule_ == ScopeRule::Loop) close_region();
        t.time = t.fields_time = post_;
        t.end = outer_end_;
      }
      push(t);
    }

    void use(const ir::Node* root) {
      if (fields_.back().in_loop_region) {
        open_region();
        push(Task{.op = Task::Op::Use, .node = root, .path = cursor_.here(), .time = open_slot_});
        return;
      }
      if (rule_ == ScopeRule::Loop) close_region();
      push(Task{.op = Task::Op::Use, .node = root, .path = cursor_.here(), .time = pre_});
    }

    Verifier& v_;
    PathCursor& cursor_;
    ScopeRule rule_;
    bool transparent_;
    std::vector<FieldContext>& fields_;  // scratch buffers owned by the verifier
    std::vector<Task>& tasks_;
    std::uint32_t pre_ = 0, post_ = 0, open_slot_ = 0, end_slot_ = 0, outer_end_ = 0;
    bool region_open_ = false, region_used_ = false;
  };

  /// Use sites for the fields of a variable at its definition (type, init value, storage).
  class DefinitionFields {
   public:
    static constexpr bool skips_ignored_fields = true;

    DefinitionFields(Verifier& v, std::uint32_t path, std::uint32_t fields_time,
                     std::uint32_t outer_time)
        : v_(v), cursor_(v.cursor_), fields_time_(fields_time), outer_time_(outer_time) {
      cursor_.reset(path);
    }

    template <class F>
    void begin_field(F) {
      ignoring_.push_back(F::kind == reflect::FieldKind::Ignore);
      outer_.push_back(evaluated_before_loop<F>());
      cursor_.push({Step::Kind::Field, F::name, 0});
    }
    template <class F>
    void end_field(F) {
      ignoring_.pop_back();
      outer_.pop_back();
      cursor_.pop();
    }
    void begin_element(std::size_t i) { cursor_.push({Step::Kind::Index, {}, i}); }
    void end_element() { cursor_.pop(); }

    template <class T>
    requires std::derived_from<T, ir::Node>
    void visit(const ir::Ref<const T>& ref) {
      if (!ref || ignoring_.back()) return;
      if constexpr (std::derived_from<T, ir::Expr> || std::derived_from<T, ir::Type>)
        v_.add_use(ref.get(), cursor_.here(), outer_.back() ? outer_time_ : fields_time_);
    }
    void visit(const ir::Attrs& attrs) {
      if (ignoring_.back()) return;
      for (const auto& e : attrs) {
        cursor_.push({Step::Kind::Key, e.key, 0});
        visit_attr(e.value);
        cursor_.pop();
      }
    }
    void visit(const core::Span&) {}
    void visit(const std::string&) {}
    template <class T>
    requires(std::is_arithmetic_v<T> || std::is_enum_v<T>) void visit(const T&) {}

   private:
    void visit_attr(const ir::AttrValue& v) {
      if (const auto* e = v.get_if<ir::ExprRef>()) visit(*e);
      if (const auto* list = v.get_if<ir::AttrValueList>())
        for (std::size_t i = 0; i < list->size(); ++i) {
          cursor_.push({Step::Kind::Index, {}, i});
          visit_attr((*list)[i]);
          cursor_.pop();
        }
    }

    Verifier& v_;
    PathCursor& cursor_;
    std::uint32_t fields_time_, outer_time_;
    std::vector<bool> ignoring_, outer_;
  };

  template <class T>
  void plan(const T& node, std::uint32_t path, ScopeRule rule) {
    Planner planner(*this, path, rule, std::is_same_v<T, ir::SeqStmts>);
    reflect::walk_fields(planner, node);
    planner.finish();
    const auto& tasks = planner.tasks();
    for (auto it = tasks.rbegin(); it != tasks.rend(); ++it) stack_.push_back(*it);
  }

  void collect() {
    slots_ = {0, kForever};  // kSignatureSlot, kForeverSlot
    // The signature binds its shape symbols before anything else.
    for (const auto& sym : signature_symbols(function_)) {
      const auto* st = ir::as<ir::ScalarType>(sym->type.get());
      const bool eligible = st && core::is_int(st->dtype);
      bindings_.try_emplace(sym.get(), Binding{kSignatureSlot, kForeverSlot, kNoPath, !eligible});
    }
    plan(function_, PathTree::kRoot, ScopeRule::Signature);
    while (!stack_.empty()) {
      const Task t = stack_.back();
      stack_.pop_back();
      switch (t.op) {
        case Task::Op::Stmt: enter_statement(static_cast<const ir::Stmt&>(*t.node), t.path); break;
        case Task::Op::Open:
          slots_[t.time] = ++now_;
          if (t.barrier) barriers_.push_back(t.end);
          break;
        case Task::Op::Close:
          slots_[t.end] = ++now_;
          if (t.barrier) barriers_.pop_back();
          break;
        case Task::Op::Finish: slots_[t.time] = ++now_; break;
        case Task::Op::Use: add_use(t.node, t.path, t.time); break;
        case Task::Op::Define: define(t); break;
      }
    }
  }

  void enter_statement(const ir::Stmt& s, std::uint32_t path) {
    // A statement held once cannot be at two places; only shared ones need remembering.
    const auto [first_path, fresh] = s.use_count() > 1
                                         ? statements_.try_emplace(&s, path)
                                         : std::pair<std::uint32_t*, bool>{nullptr, true};
    if (!fresh) {
      record_error(BindingErrorKind::SharedStatement, path,
                   "this " + std::string(ir::kind_name(s.kind())) + " object also appears at " +
                       paths_.render(*first_path) +
                       "; a statement object may appear at one place only");
      return;
    }
    ir::visit(s, [&](const auto& concrete) {
      using S = std::remove_cvref_t<decltype(concrete)>;
      if constexpr (std::derived_from<S, ir::Stmt>)
        plan(concrete, path, scope_rule(S::static_kind));
    });
  }

  void define(const Task& t) {
    const auto& var = static_cast<const ir::Var&>(*t.node);
    const auto [first, fresh] =
        bindings_.try_emplace(&var, Binding{t.time, t.end, t.path, /*ineligible=*/false});
    if (!fresh) {
      record_error(BindingErrorKind::DuplicateDefinition, t.path,
                   "variable " + quoted_name(var) +
                       (first->path == kNoPath
                            ? std::string(" is already bound as a shape symbol of the signature")
                            : " is already defined at " + paths_.render(first->path)));
    }
    DefinitionFields fields(*this, t.path, t.fields_time, t.outer_time);
    ir::visit(var, [&](const auto& concrete) {
      using V = std::remove_cvref_t<decltype(concrete)>;
      if constexpr (std::derived_from<V, ir::Var>) reflect::walk_fields(fields, concrete);
    });
  }

  // ---- pass 2: use sites against the intervals ---------------------------------------------

  Interval interval_of(const ir::Var& v) const {
    const Binding* b = bindings_.find(&v);
    if (!b) return kAlways;  // an open capture
    if (b->ineligible) return kNever;
    return {slots_[b->begin_slot], slots_[b->end_slot]};
  }

  struct Memo {
    Interval interval;
    bool done = false;  // false while the node is being summarised
  };
  struct SummaryFrame {
    const ir::Node* node;
    std::size_t values_base;
    bool expanded;
  };

  /// Kinds without node-valued fields (scalar and resource types, callees): nothing to look up.
  static bool references_nothing(ir::NodeKind k) {
    return !kMayReferenceNodes[static_cast<std::size_t>(k)];
  }

  /// The interval in which everything `root` references is visible. Iterative post-order;
  /// shared nodes are summarised once (a shared node met while being summarised is a cycle).
  Interval summarize(const ir::Node* root, std::uint32_t path) {
    if (const auto* v = ir::as<ir::Var>(root)) return interval_of(*v);
    frames_.clear();
    values_.clear();
    auto push = [&](const ir::Node* n) {
      if (const auto* v = ir::as<ir::Var>(n)) {
        values_.push_back(interval_of(*v));
        return;
      }
      if (references_nothing(n->kind())) {
        values_.push_back(kAlways);
        return;
      }
      if (n->use_count() > 1)
        if (const Memo* m = memo_.find(n); m && m->done) {
          values_.push_back(m->interval);
          return;
        }
      frames_.push_back({n, values_.size(), false});
    };
    push(root);
    while (!frames_.empty()) {
      SummaryFrame& f = frames_.back();
      const ir::Node* n = f.node;
      const bool shared = n->use_count() > 1;
      if (!f.expanded) {
        f.expanded = true;
        // The node's own values start here: a sibling pushed after it (a Var's interval) already
        // sits below, so the base is taken now, not when the frame was pushed.
        f.values_base = values_.size();
        if (shared) {
          const auto [m, fresh] = memo_.try_emplace(n, Memo{});
          if (!fresh) {
            if (!m->done)
              throw StructuralComparisonUnsupported("the expression/type graph has a cycle",
                                                    paths_.render(path));
            values_.push_back(m->interval);  // summarised since this frame was pushed
            frames_.pop_back();
            continue;
          }
        }
        for_each_child_node(*n, push);
        continue;
      }
      Interval all = kAlways;
      for (std::size_t i = f.values_base; i < values_.size(); ++i) all = all.meet(values_[i]);
      values_.resize(f.values_base);
      values_.push_back(all);
      if (shared) *memo_.find(n) = Memo{all, true};
      frames_.pop_back();
    }
    return values_.back();
  }

  /// The first Var under `root` (field order) that is not visible at `t`, and the steps to it.
  /// Walks only subtrees that can contain one: shared nodes whose summary admits `t` are skipped.
  const ir::Var* find_offender(const ir::Node* root, Time t, std::vector<Step>& steps) const {
    if (const auto* v = ir::as<ir::Var>(root)) return v;
    struct Child {
      const ir::Node* node;
      std::vector<Step> steps;
    };
    struct Frame {
      std::vector<Child> children;
      std::size_t next;
      std::size_t steps_mark;
    };
    auto children_of = [](const ir::Node& n) {
      std::vector<Child> out;
      for_each_child_node_with_steps(n, [&](const ir::Node* c, const std::vector<Step>& s) {
        out.push_back({c, s});
      });
      return out;
    };
    std::vector<Frame> stack;
    stack.push_back({children_of(*root), 0, 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next == f.children.size()) {
        steps.resize(f.steps_mark);
        stack.pop_back();
        continue;
      }
      const Child& c = f.children[f.next++];
      const std::size_t mark = steps.size();
      if (const auto* v = ir::as<ir::Var>(c.node)) {
        if (interval_of(*v).contains(t)) continue;
        steps.insert(steps.end(), c.steps.begin(), c.steps.end());
        return v;
      }
      if (c.node->use_count() > 1)
        if (const Memo* m = memo_.find(c.node); m && m->done && m->interval.contains(t)) continue;
      steps.insert(steps.end(), c.steps.begin(), c.steps.end());
      auto grandchildren = children_of(*c.node);
      stack.push_back({std::move(grandchildren), 0, mark});
    }
    throw core::InternalError("bindings: a failing use site without an offending variable");
  }

  [[noreturn]] void report(const UseSite& use, Time t) const {
    std::vector<Step> steps;
    const ir::Var* v = find_offender(use.root, t, steps);
    std::string path = paths_.render(use.path);
    for (const Step& s : steps) append_step(path, s);
    const Binding& b = *bindings_.find(v);
    if (b.ineligible)
      throw BindingError(BindingErrorKind::IneligibleSignatureSymbol, path,
                         "shape symbol " + quoted_name(*v) +
                             " of the signature must be an integer scalar, but its type is " +
                             describe_type(v->type));
    const std::string where = b.path == kNoPath ? "the signature" : paths_.render(b.path);
    if (t < slots_[b.begin_slot])
      throw BindingNotVisible(
          path, "variable " + quoted_name(*v) + " is used before its definition at " + where);
    throw BindingNotVisible(path, "variable " + quoted_name(*v) +
                                      " is used outside the scope of its definition at " + where);
  }

  void check_uses() {
    const std::size_t n = first_error_ ? first_error_->before_use : uses_.size();
    for (std::size_t i = 0; i < n; ++i) {
      const UseSite& u = uses_[i];
      const Time t = slots_[u.time_slot];
      if (!summarize(u.root, u.path).contains(t)) report(u, t);
    }
  }

  const ir::Function& function_;
  PathTree paths_;
  PathCursor cursor_{paths_};
  std::vector<FieldContext> plan_fields_;
  std::vector<Task> plan_tasks_;
  std::vector<Time> slots_;
  Time now_ = 0;                         // the body starts at 1; the signature context is time 0
  std::vector<std::uint32_t> barriers_;  // end slots of the open barrier regions
  std::vector<Task> stack_;
  IdentityMap<ir::Var, Binding> bindings_;
  IdentityMap<ir::Stmt, std::uint32_t> statements_;  // shared statements only (use_count() > 1)
  IdentityMap<ir::Node, Memo> memo_;                 // shared nodes only
  std::vector<UseSite> uses_;
  std::optional<PendingError> first_error_;
  // Scratch of summarize.
  std::vector<SummaryFrame> frames_;
  std::vector<Interval> values_;
};

}  // namespace detail::binding

PYPTO_DECL void verify_structural_bindings(const ir::Function& f) {
  detail::binding::Verifier(f).run();
}

}  // namespace pypto::structural

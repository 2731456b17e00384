// Tests of pypto/transforms/prefetch_locality.hpp: the prefetch exception of seed 001
// (DeduplicateOutlinedKernels). Each case is a kernel `k` in the text format (parsed as file
// "k.pl", so messages start with k.pl:line:column) and the expected answer of
// prefetch_handle_problem: empty for the local pattern, else the message naming the handle and
// the escape. IR the text cannot write (a shared node, function attrs holding a body variable, a
// free handle) is built from a parsed kernel with the IR builders.
#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/ir/attrs.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/transforms/prefetch_locality.hpp"

namespace ir = pypto::ir;
using pypto::transforms::prefetch_handle_problem;

namespace {

/// The program is this header and then the functions (without their first newline): the first
/// function's `def` is on line 5 and its body starts on line 6.
constexpr std::string_view kHeader = R"(import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
)";

ir::ProgramRef parse(std::string_view functions) {
  pypto::text::ParseOptions options;
  options.file_name = "k.pl";
  if (functions.starts_with('\n')) functions.remove_prefix(1);
  return pypto::text::parse_program(std::string(kHeader) + std::string(functions), options);
}

ir::FunctionRef kernel(std::string_view functions, std::string_view name = "k") {
  auto f = parse(functions)->find(name);
  REQUIRE(f);
  return f;
}

/// The check on function `name` of the program.
std::string problem(std::string_view functions, std::string_view name = "k") {
  return prefetch_handle_problem(*kernel(functions, name));
}

/// `f` with another body and attrs (same name, parameters, return types, type).
ir::FunctionRef rebuilt(const ir::Function& f, std::vector<ir::StmtRef> body,
                        ir::Attrs attrs = {}) {
  std::vector<ir::Param> params;
  for (std::size_t i = 0; i < f.params.size(); ++i)
    params.push_back({f.params[i], f.param_directions[i]});
  return ir::Function::make(f.name, std::move(params), f.return_types,
                            ir::SeqStmts::make(std::move(body)), f.func_type, std::move(attrs));
}

const std::vector<ir::StmtRef>& body_of(const ir::Function& f) {
  return ir::cast<ir::SeqStmts>(f.body)->stmts;
}

ir::ExprRef call(std::string_view op, std::vector<ir::ExprRef> args) {
  static const ir::OpRegistry ops = ir::standard_op_registry();
  return ops.make_call(op, std::move(args));
}

/// The seed's local pattern: one context, an event and a session from it, a wait on both.
constexpr std::string_view kLocal = R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        c = pl.prefetch.make_context(ws)
        e = pl.prefetch.async_prefetch(x, c)
        s = pl.prefetch.session(c)
        done = pl.prefetch.wait(e, s)
        return done
)";

}  // namespace

// ---- accepted ---------------------------------------------------------------------------------

TEST_CASE("prefetch: handles produced and consumed locally are admitted") {
  CHECK(problem(kLocal) == "");
}

TEST_CASE("prefetch: a kernel without prefetch handles has no problem") {
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.add(x, 1.0)
        return y
)") == "");
}

TEST_CASE("prefetch: producers in a loop body are admitted (each iteration makes its context)") {
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        for i, (acc,) in pl.range(n, init_values=(x,)):
            c = pl.prefetch.make_context(ws)
            e = pl.prefetch.async_prefetch(acc, c)
            s = pl.prefetch.session(c)
            done = pl.prefetch.wait(e, s)
            y = pl.add(acc, 1.0)
            r = pl.yield_(y)
        return r
)") == "");
}

TEST_CASE("prefetch: several events of one context, and producers written inline in a slot") {
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        c = pl.prefetch.make_context(ws)
        e0 = pl.prefetch.async_prefetch(x, c)
        e1 = pl.prefetch.async_prefetch(x, c)
        s = pl.prefetch.session(c)
        d0 = pl.prefetch.wait(e0, s)
        d1 = pl.prefetch.wait(e1, s)
        d2 = pl.prefetch.wait(pl.prefetch.async_prefetch(x, c), pl.prefetch.session(c))
        return d2
)") == "");
}

// ---- escapes ----------------------------------------------------------------------------------

TEST_CASE("prefetch: a handle returned escapes through the return") {
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        c = pl.prefetch.make_context(ws)
        e = pl.prefetch.async_prefetch(x, c)
        return e
)") == "k.pl:8:9: prefetch event 'e' escapes through the return");
}

TEST_CASE("prefetch: a handle in the signature escapes: parameter, return type") {
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], c: pl.PrefetchAsyncContext) -> pl.Scalar[pl.BOOL]:
        e = pl.prefetch.async_prefetch(x, c)
        s = pl.prefetch.session(c)
        done = pl.prefetch.wait(e, s)
        return done
)") == "k.pl:5:5: prefetch context 'c' is a parameter of function 'k' (escapes through the "
       "signature)");
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8]) -> pl.AsyncSession:
        c = pl.prefetch.make_context(ws)
        s = pl.prefetch.session(c)
        return s
)") == "k.pl:5:5: function 'k' returns a pl.AsyncSession (escapes through the signature)");
}

TEST_CASE("prefetch: a handle packed into a tuple escapes, a handle type nested in a TupleType") {
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        c = pl.prefetch.make_context(ws)
        e = pl.prefetch.async_prefetch(x, c)
        t = [x, e]
        s = pl.prefetch.session(c)
        done = pl.prefetch.wait(e, s)
        return done
)") == "k.pl:8:9: pl.AsyncEvent is nested in a TupleType (in the type of 't')");
  // In a parameter, two tuples deep; in the result type of a call; in the return types.
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], t: pl.Tuple[pl.Tensor[[64], pl.FP32], pl.Tuple[pl.AsyncSession]]) -> pl.Scalar[pl.BOOL]:
        return True
)") == "k.pl:5:46: pl.AsyncSession is nested in a TupleType (in the type of 't')");
  CHECK(problem(R"(
    def k(self, ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        pl._dump.call(pl.system.set_ffts, ws, type=pl.Tuple[pl.PrefetchAsyncContext])
        return True
)") == "k.pl:6:9: pl.PrefetchAsyncContext is nested in a TupleType (in the result type of "
       "system.set_ffts)");
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tuple[pl.Tensor[[64], pl.FP32], pl.AsyncEvent]:
        return x
)") == "k.pl:5:5: pl.AsyncEvent is nested in a TupleType (in the signature of function 'k')");
}

TEST_CASE("prefetch: re-binding a handle to another variable is an alias") {
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        c = pl.prefetch.make_context(ws)
        c2 = c
        e = pl.prefetch.async_prefetch(x, c)
        s = pl.prefetch.session(c2)
        done = pl.prefetch.wait(e, s)
        return done
)") == "k.pl:7:9: prefetch context 'c' is re-bound to 'c2' (an alias)");
}

TEST_CASE("prefetch: any op but the prefetch consumers is an arbitrary consumer") {
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        c = pl.prefetch.make_context(ws)
        pl.system.set_ffts(c)
        e = pl.prefetch.async_prefetch(x, c)
        s = pl.prefetch.session(c)
        done = pl.prefetch.wait(e, s)
        return done
)") == "k.pl:7:9: prefetch context 'c' is argument 0 of system.set_ffts (an arbitrary consumer; "
       "only the ctx operand of prefetch.async_prefetch and prefetch.session may use it)");
  // The src operand of async_prefetch is not a consumer slot either.
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        c = pl.prefetch.make_context(ws)
        e = pl.prefetch.async_prefetch(c, c)
        return True
)") == "k.pl:7:13: prefetch context 'c' is argument 0 of prefetch.async_prefetch (an arbitrary "
       "consumer; only the ctx operand of prefetch.async_prefetch and prefetch.session may use "
       "it)");
  // Nor may a prefetch op run as a task.
  CHECK(problem(R"(
    def k(self, ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        c = pl.prefetch.make_context(ws)
        t = pl._dump.submit(pl.prefetch.session, c, type=pl.Tuple[pl.Scalar[pl.BOOL], pl.Scalar[pl.TASK_ID]])
        return True
)") == "k.pl:7:13: prefetch.session is launched as a task; prefetch ops are called in place");
}

TEST_CASE("prefetch: a program function cannot return a handle, nor its caller bind one") {
  auto program = R"(
    def g(self, x: pl.Tensor[[64], pl.FP32]) -> pl.AsyncEvent:
        return x

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Scalar[pl.BOOL]:
        e = self.g(x)
        return True
)";
  CHECK(problem(program, "g") ==
        "k.pl:5:5: function 'g' returns a pl.AsyncEvent (escapes through the signature)");
  CHECK(problem(program, "k") ==
        "k.pl:10:9: prefetch event made by self.g is bound to 'e'; only a prefetch.async_prefetch "
        "call is bound to a prefetch event");
}

TEST_CASE("prefetch: a wait uses its event's originating context") {
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        c0 = pl.prefetch.make_context(ws)
        c1 = pl.prefetch.make_context(ws)
        e = pl.prefetch.async_prefetch(x, c0)
        s = pl.prefetch.session(c1)
        done = pl.prefetch.wait(e, s)
        return done
)") == "k.pl:10:16: prefetch.wait uses prefetch session 's' of context 'c1' but prefetch event 'e' "
       "of context 'c0' (a wait must use the event's originating context)");
  // Two inline make_context calls are two contexts.
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        e = pl.prefetch.async_prefetch(x, pl.prefetch.make_context(ws))
        s = pl.prefetch.session(pl.prefetch.make_context(ws))
        done = pl.prefetch.wait(e, s)
        return done
)") == "k.pl:8:16: prefetch.wait uses prefetch session 's' of context made inline by "
       "prefetch.make_context but prefetch event 'e' of context made inline by "
       "prefetch.make_context (a wait must use the event's originating context)");
  // Operands swapped: each slot takes its own handle kind.
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        c = pl.prefetch.make_context(ws)
        e = pl.prefetch.async_prefetch(x, c)
        s = pl.prefetch.session(c)
        done = pl.prefetch.wait(s, e)
        return done
)") == "k.pl:9:16: the event operand of prefetch.wait is not a prefetch event (it is prefetch "
       "session 's')");
}

TEST_CASE("prefetch: handles in call kwargs and attrs escape") {
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        c = pl.prefetch.make_context(ws)
        e = pl.prefetch.async_prefetch(x, c)
        s = pl._dump.call(pl.prefetch.session, c, keep=e, type=pl.AsyncSession)
        done = pl.prefetch.wait(e, s)
        return done
)") == "k.pl:8:13: prefetch event 'e' escapes through the kwargs of prefetch.session");
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        c = pl.prefetch.make_context(ws)
        e = pl.prefetch.async_prefetch(x, c)
        s = pl.prefetch.session(c, attrs={"ctx": [c]})
        done = pl.prefetch.wait(e, s)
        return done
)") == "k.pl:8:13: prefetch context 'c' escapes through the attrs of prefetch.session");
}

TEST_CASE("prefetch: a handle in function attrs escapes") {
  auto f = kernel(kLocal);
  auto c = ir::cast<ir::AssignStmt>(body_of(*f)[0])->var;
  auto g = rebuilt(*f, body_of(*f), ir::Attrs{{"ctx", ir::ExprRef(c)}});
  CHECK(prefetch_handle_problem(*g) ==
        "prefetch context 'c' escapes through the attrs of function 'k'");
}

TEST_CASE("prefetch: loop carries, loop results and if results are escapes") {
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.BOOL]:
        c = pl.prefetch.make_context(ws)
        for i, (cc,) in pl.range(n, init_values=(c,)):
            r = pl.yield_(cc)
        return True
)") == "k.pl:7:9: prefetch context 'cc' is carried by a loop");
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.BOOL]:
        c = pl.prefetch.make_context(ws)
        if n < 2:
            e1 = pl.prefetch.async_prefetch(x, c)
            e = pl.yield_(e1)
        else:
            e2 = pl.prefetch.async_prefetch(x, c)
            e = pl.yield_(e2)
        s = pl.prefetch.session(c)
        done = pl.prefetch.wait(e, s)
        return done
)") == "k.pl:7:9: prefetch event 'e' is a result of an if");
}

TEST_CASE("prefetch: a producer is bound once, to a variable of its own type") {
  // Assigned twice (the natural form before convert-to-ssa): two contexts under one name.
  CHECK(problem(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32], ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        c = pl.prefetch.make_context(ws)
        e = pl.prefetch.async_prefetch(x, c)
        c = pl.prefetch.make_context(ws)
        s = pl.prefetch.session(c)
        done = pl.prefetch.wait(e, s)
        return done
)") == "k.pl:6:9: prefetch context 'c' is assigned 2 times (a handle is bound exactly once)");
  CHECK(problem(R"(
    def k(self, ws: pl.Tensor[[1024], pl.INT8]) -> pl.Scalar[pl.BOOL]:
        pl.prefetch.make_context(ws)
        return True
)") == "k.pl:6:9: prefetch context made by prefetch.make_context is evaluated as a statement (a "
       "handle is bound to a variable)");
  // A producer whose recorded type hides the handle.
  CHECK(problem(R"(
    def k(self, ws: pl.Tensor[[1024], pl.INT8]) -> pl.Tensor[[1024], pl.INT8]:
        c = pl._dump.call(pl.prefetch.make_context, ws, type=pl.Tensor[[1024], pl.INT8])
        return c
)") == "k.pl:6:13: prefetch.make_context is typed TensorType; its result must be "
       "pl.PrefetchAsyncContext");
}

TEST_CASE("prefetch: a handle from outside the function is not local") {
  auto f = kernel(kLocal);
  auto free_ctx = ir::Var::make("c", ir::PrefetchAsyncContextType::make());
  auto s = ir::Var::make("s", ir::AsyncSessionType::make());
  auto g = rebuilt(*f, {ir::AssignStmt::make(s, call("prefetch.session", {free_ctx})),
                        ir::ReturnStmt::make({ir::ConstBool::make(true)})});
  CHECK(prefetch_handle_problem(*g) ==
        "the ctx operand of prefetch.session, prefetch context 'c', is not bound by "
        "prefetch.make_context in this function");
}

// ---- shared DAG nodes: every incoming edge counts ----------------------------------------------

TEST_CASE("prefetch: a producer call shared by two slots makes two contexts, not one") {
  auto f = kernel(kLocal);
  const ir::ExprRef x = f->params[0], ws = f->params[1];
  auto ctx = call("prefetch.make_context", {ws});  // one node, two incoming edges
  auto wait = call("prefetch.wait",
                   {call("prefetch.async_prefetch", {x, ctx}), call("prefetch.session", {ctx})});
  auto done = ir::Var::make("done", wait->type);
  auto g = rebuilt(*f, {ir::AssignStmt::make(done, wait), ir::ReturnStmt::make({done})});
  CHECK(prefetch_handle_problem(*g) ==
        "prefetch.make_context call is shared by two uses (each evaluation makes a new prefetch "
        "context; bind it to one variable)");
}

TEST_CASE("prefetch: a node reached through an allowed slot and through a return is rejected") {
  auto f = kernel(kLocal);
  const auto& body = body_of(*f);
  auto e = ir::cast<ir::AssignStmt>(body[1])->var;
  // `return done` becomes `return done, e`: e's edge from its wait slot is fine, this one is not.
  auto done = ir::cast<ir::AssignStmt>(body[3])->var;
  auto g = rebuilt(*f, {body[0], body[1], body[2], body[3], ir::ReturnStmt::make({done, e})});
  CHECK(prefetch_handle_problem(*g) == "prefetch event 'e' escapes through the return");
}

TEST_CASE("prefetch: a binding reached through a shared statement node binds twice") {
  // c = make_context; e = async_prefetch(x, c); <the same c = make_context node>; s = session(c)
  auto f = kernel(kLocal);
  const auto& body = body_of(*f);
  auto g = rebuilt(*f, {body[0], body[1], body[0], body[2], body[3], body[4]});
  CHECK(prefetch_handle_problem(*g) ==
        "k.pl:6:9: prefetch context 'c' is bound inside a statement node reached 2 times (a "
        "shared statement would bind it once per use)");
}

TEST_CASE("prefetch: malformed prefetch calls are named") {
  auto f = kernel(kLocal);
  const auto& body = body_of(*f);
  auto e = ir::cast<ir::AssignStmt>(body[1])->var;
  auto wait = ir::Call::make(ir::Op::make("prefetch.wait"), {e},
                             ir::ScalarType::make(pypto::core::DataType::BOOL));
  auto g = rebuilt(*f, {body[0], body[1], ir::EvalStmt::make(wait),
                        ir::ReturnStmt::make({ir::ConstBool::make(true)})});
  CHECK(prefetch_handle_problem(*g) == "prefetch.wait takes 2 argument(s), got 1");
}

TEST_CASE("prefetch: deep type nesting is walked without native recursion") {
  ir::TypeRef t = ir::AsyncEventType::make();
  for (int i = 0; i < 20000; ++i) t = ir::TupleType::make({t});
  auto f = kernel(R"(
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Scalar[pl.BOOL]:
        return True
)");
  auto p = ir::Var::make("p", t);
  auto g = ir::Function::make("k", {{p}}, f->return_types, f->body, f->func_type);
  CHECK(prefetch_handle_problem(*g) ==
        "pl.AsyncEvent is nested in a TupleType (in the type of 'p')");
}

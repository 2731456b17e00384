// The README's tour, compiled and run by the tests so that it cannot go stale.
#include <cstdio>
#include <pypto/ir.hpp>              // the IR: types, expressions, statements, functions, programs
#include <pypto/ir/op_registry.hpp>  // builtin ops with argument effects and type rules
#include <pypto/text/printer.hpp>    // the pl text format

using namespace pypto::ir;

int main() {
  const OpRegistry ops = standard_op_registry();
  const TypeRef f32x64 = TensorType::make(DataType::FP32, {ConstInt::make(64)});
  auto x = Var::make("x", f32x64);
  auto out = Var::make("out", f32x64);

  // t = pl.tile.load(x, [0], [64]); pl.tile.store(t, [0], out) — typed by the registry
  auto load = ops.make_call("tile.load", {x, MakeTuple::make({ConstInt::make(0)}),
                                          MakeTuple::make({ConstInt::make(64)})});
  auto t = Var::make("t", load->type);
  auto store = ops.make_call("tile.store", {t, MakeTuple::make({ConstInt::make(0)}), out});
  auto body =
      SeqStmts::make({AssignStmt::make(t, load), EvalStmt::make(store), ReturnStmt::make({out})});

  auto kernel = Function::make("copy", {{x}, {out, ParamDirection::Out}}, {f32x64}, body,
                               FunctionType::InCore);
  std::puts(pypto::text::print(*Program::make("Copy", {kernel})).c_str());
}

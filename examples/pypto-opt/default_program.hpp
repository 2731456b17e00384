// examples/pypto-opt/default_program.hpp — the program pypto-opt shows when given no input.
//
// An Opaque `main` with two InCore scopes that compute the same thing (out = a + b, tile by
// tile) into two different outputs: after outlining they become two structurally equal
// kernels, which is what kernel deduplication exists to share.
#pragma once

#include <cstdint>
#include <pypto/ir.hpp>
#include <pypto/ir/op_registry.hpp>
#include <utility>
#include <vector>

namespace pypto_opt {

inline pypto::ir::ProgramRef default_program(const pypto::ir::OpRegistry& ops) {
  using namespace pypto::ir;
  auto index = [](std::int64_t v) -> ExprRef { return ConstInt::make(v); };
  auto list = [](std::vector<ExprRef> xs) -> ExprRef { return MakeTuple::make(std::move(xs)); };
  const TypeRef tensor = TensorType::make(DataType::FP32, {index(64), index(64)});

  auto a = Var::make("a", tensor);
  auto b = Var::make("b", tensor);
  auto out1 = Var::make("out1", tensor);
  auto out2 = Var::make("out2", tensor);

  // with pl.at(level=pl.Level.CORE_GROUP): out = a + b, one 64x64 tile.
  auto add_scope = [&](const VarRef& out) -> StmtRef {
    const ExprRef origin = list({index(0), index(0)});
    const ExprRef shape = list({index(64), index(64)});
    const Attrs vec{{"target_memory", MemorySpace::Vec}};
    auto ta = ops.make_call("tile.load", {a, origin, shape}, vec);
    auto tb = ops.make_call("tile.load", {b, origin, shape}, vec);
    auto va = Var::make("ta", ta->type);
    auto vb = Var::make("tb", tb->type);
    auto sum = ops.make_call("tile.add", {va, vb});
    auto vs = Var::make("ts", sum->type);
    auto stored = ops.make_call("tile.store", {vs, origin, out});
    return InCoreScopeStmt::make(SeqStmts::make({
        AssignStmt::make(va, ta), AssignStmt::make(vb, tb), AssignStmt::make(vs, sum),
        EvalStmt::make(stored),  // writes through the pl.Out parameter
    }));
  };

  auto body = SeqStmts::make({add_scope(out1), add_scope(out2), ReturnStmt::make({out1, out2})});
  auto main =
      Function::make("main", {{a}, {b}, {out1, ParamDirection::Out}, {out2, ParamDirection::Out}},
                     {tensor, tensor}, body);
  return Program::make("TwinAdd", {main});
}

}  // namespace pypto_opt

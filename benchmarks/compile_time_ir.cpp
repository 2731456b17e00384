// The compile-time bar of the IR layer: a TU that includes only <pypto/ir.hpp> and builds one
// small Program must compile in under 2.5 s with g++ -O2 on the 2-core machine.
// Measured by benchmarks/compile_time.sh.
#include <pypto/ir.hpp>

pypto::ir::ProgramRef build_program() {
  using namespace pypto::ir;
  const TypeRef tensor = TensorType::make(DataType::FP32, {ConstInt::make(64), ConstInt::make(64)});
  auto a = Var::make("a", tensor);
  auto out = Var::make("out", tensor);
  auto i = Var::make("i", ScalarType::make(DataType::INDEX));
  auto acc = IterArg::make("acc", tensor, out);
  auto acc_out = Var::make("acc_out", tensor);
  auto loop = ForStmt::make(i, ConstInt::make(0), ConstInt::make(4), ConstInt::make(1), {acc},
                            SeqStmts::make({YieldStmt::make({acc})}), {acc_out});
  auto body =
      SeqStmts::make({InCoreScopeStmt::make(SeqStmts::make({loop})), ReturnStmt::make({out})});
  auto main_fn = Function::make("main", {{a}, {out, ParamDirection::Out}}, {tensor}, body);
  return Program::make("CompileTime", {main_fn});
}

int main() { return build_program()->functions.size() == 1 ? 0 : 1; }

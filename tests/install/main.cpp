// Consumer of the installed package: builds a small Program through <pypto/ir.hpp> and checks
// it, so the installed headers, the package config and the Boost dependency are all exercised.
#include <cstdio>
#include <pypto/ir.hpp>

int main() {
  using namespace pypto::ir;
  const TypeRef tensor = TensorType::make(DataType::FP32, {ConstInt::make(16)});
  auto x = Var::make("x", tensor);
  auto y = Var::make("y", tensor);
  auto body = SeqStmts::make({AssignStmt::make(y, x), ReturnStmt::make({y})});
  auto main_fn = Function::make("main", {{x}}, {tensor}, body, FunctionType::Orchestration);
  auto program = Program::make("Consumer", {main_fn});
  std::size_t nodes = 0;
  for_each_node(program, [&](const Node&) { ++nodes; });
  if (program->find("main") != main_fn || nodes == 0) {
    std::printf("pypto install test: unexpected program\n");
    return 1;
  }
  std::printf("pypto install test: built a program of %zu nodes\n", nodes);
  return 0;
}

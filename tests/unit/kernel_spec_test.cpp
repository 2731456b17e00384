// Tests of pypto/kernel/spec.hpp and validate.hpp: the op table, operand helpers and every
// validate() rule, each as "a spec, validate, the expected error".
#include <doctest/doctest.h>

#include <string>

#include "kernel_samples.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/validate.hpp"

namespace k = pypto::kernel;
using k::Op;

namespace {

std::string error_of(const k::Spec& s) {
  try {
    k::validate(s);
  } catch (const k::SpecError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("kernel spec: the op table states arity, commutativity and class per op") {
  CHECK(k::arity(Op::Neg) == 1);
  CHECK(k::arity(Op::Add) == 2);
  CHECK(k::arity(Op::Select) == 3);
  CHECK(k::arity(Op::RowSum) == 1);
  CHECK(k::op_info(Op::Add).commutative);
  CHECK(k::op_info(Op::Mul).commutative);
  CHECK_FALSE(k::op_info(Op::Sub).commutative);
  CHECK_FALSE(k::op_info(Op::Max).commutative);  // NaN and +-0 make max order-sensitive
  CHECK(k::is_reduction(Op::ColMax));
  CHECK_FALSE(k::is_reduction(Op::Exp));
  CHECK_FALSE(k::op_info(Op::Exp).host_foldable);
  CHECK_FALSE(k::op_info(Op::Div).host_foldable);
  CHECK(k::op_name(Op::Rsqrt) == "Rsqrt");
  CHECK(k::is_valid_op(24));
  CHECK_FALSE(k::is_valid_op(25));
}

TEST_CASE("kernel spec: an unused slot is None, distinct from register 0") {
  constexpr k::Instr neg = k::unary(Op::Neg, 1, k::reg(0));
  static_assert(neg.b.kind == k::OperandKind::None);
  CHECK(k::none() != k::reg(0));
  CHECK(k::float_bits(0.0f) != k::float_bits(-0.0f));
}

TEST_CASE("kernel validate: the sample specs are valid") {
  for (const auto& s : pypto::test::kernel::samples()) CHECK(error_of(s) == "");
}

TEST_CASE("kernel validate: reading a register before it is written names instr and slot") {
  k::Spec s;
  s.views = {{}};
  s.num_regs = 8;
  s.instrs = {k::unary(Op::Neg, 0, k::input(0)), k::binary(Op::Add, 1, k::reg(0), k::input(0)),
              k::unary(Op::Exp, 2, k::reg(1)), k::binary(Op::Mul, 3, k::reg(2), k::reg(7))};
  CHECK(error_of(s) == "instrs[3].b: register 7 is read before it is written");
}

TEST_CASE("kernel validate: each rule rejects with its field path") {
  k::Spec base;
  base.views = {{}};
  base.consts = {k::float_bits(1.0f)};
  base.num_regs = 4;
  base.instrs = {k::unary(Op::RowSum, 3, k::input(0)),
                 k::binary(Op::Add, 0, k::input(0), k::reduce_result(3)),
                 k::binary(Op::Mul, 1, k::reg(0), k::constant(0))};
  REQUIRE(error_of(base) == "");

  auto with = [&](auto mutate) {
    k::Spec s = base;
    mutate(s);
    return error_of(s);
  };
  CHECK(with([](k::Spec& s) { s.instrs.clear(); }) ==
        "instrs: a spec needs at least one instruction (the last is the output)");
  CHECK(with([](k::Spec& s) { s.instrs.resize(65, s.instrs.back()); }) ==
        "instrs: 65 exceed the limit of 64");
  CHECK(with([](k::Spec& s) { s.num_regs = 33; }) == "num_regs: 33 exceed the limit of 32");
  CHECK(with([](k::Spec& s) { s.views.resize(17); }) == "views: 17 exceed the limit of 16");
  CHECK(with([](k::Spec& s) { s.consts.resize(17); }) == "consts: 17 exceed the limit of 16");
  CHECK(with([](k::Spec& s) { s.runtime_scalars.resize(17); }) ==
        "runtime_scalars: 17 exceed the limit of 16");
  CHECK(with([](k::Spec& s) {
          s.views[0] = {k::ViewKind::RowMod, 0};
        }) == "views[0]: RowMod needs a param >= 1");
  CHECK(with([](k::Spec& s) {
          s.views[0] = {k::ViewKind::Linear, 3};
        }) == "views[0]: Linear takes no param (got 3)");
  CHECK(with([](k::Spec& s) { s.views[0].kind = static_cast<k::ViewKind>(9); }) ==
        "views[0]: invalid view kind 9");
  CHECK(with([](k::Spec& s) { s.instrs[1].op = static_cast<Op>(200); }) ==
        "instrs[1].op: invalid op code 200");
  CHECK(with([](k::Spec& s) { s.instrs[2].dst = 4; }) ==
        "instrs[2].dst: register 4 is out of range (num_regs = 4)");
  CHECK(with([](k::Spec& s) { s.instrs[2].b = k::none(); }) ==
        "instrs[2].b: Mul reads this slot, but it is None");
  CHECK(with([](k::Spec& s) { s.instrs[2].c = k::reg(0); }) ==
        "instrs[2].c: Mul uses 2 operand(s); this slot must be None, not Reg 0");
  CHECK(with([](k::Spec& s) {
          s.instrs[2].b = {static_cast<k::OperandKind>(8), 0};
        }) == "instrs[2].b: invalid operand kind 8");
  CHECK(with([](k::Spec& s) { s.instrs[2].b = k::input(1); }) ==
        "instrs[2].b: input 1 is out of range (1 available)");
  CHECK(with([](k::Spec& s) { s.instrs[2].b = k::constant(1); }) ==
        "instrs[2].b: constant 1 is out of range (1 available)");
  CHECK(with([](k::Spec& s) { s.instrs[2].b = k::runtime_scalar(0); }) ==
        "instrs[2].b: runtime scalar 0 is out of range (0 available)");
  CHECK(with([](k::Spec& s) {
          s.instrs[2].b = {k::OperandKind::GridIndex, 3};
        }) == "instrs[2].b: grid index 3 is not Row (0), Col (1) or Batch (2)");
  CHECK(with([](k::Spec& s) { s.instrs[2].b = k::reg(3); }) ==
        "instrs[2].b: register 3 holds the reduction of instrs[0]; read it as ReduceResult");
  CHECK(with([](k::Spec& s) { s.instrs[2].b = k::reduce_result(0); }) ==
        "instrs[2].b: ReduceResult 0 names a register that no earlier reduction writes");
  CHECK(with([](k::Spec& s) { s.instrs[0].a = k::reduce_result(3); }) ==
        "instrs[0].a: ReduceResult 3 names a register that no earlier reduction writes");
  CHECK(with([](k::Spec& s) { s.instrs[2].dst = 3; }) ==
        "instrs[2].dst: register 3 holds the reduction of instrs[0]; an elementwise "
        "instruction cannot write it");
  CHECK(with([](k::Spec& s) {
          s.instrs.insert(s.instrs.begin() + 1, k::unary(Op::ColSum, 3, k::input(0)));
        }) ==
        "instrs[1].dst: register 3 already holds the reduction of instrs[0]; reduction "
        "registers are written once");
  CHECK(with([](k::Spec& s) { s.instrs.push_back(k::unary(Op::RowMax, 2, k::reg(1))); }) ==
        "instrs[3].a: register 1 is elementwise; a reduction cannot read it (reductions run "
        "first)");
  CHECK(with([](k::Spec& s) { s.instrs.push_back(k::unary(Op::RowMax, 2, k::input(0))); }) ==
        "instrs[3]: the last instruction is the output and must be elementwise, not RowMax");
}

TEST_CASE("kernel validate: the matmul segment's rules reject with their field paths") {
  const k::Spec base = pypto::test::kernel::matmul_epilogue();
  REQUIRE(error_of(base) == "");
  auto with = [&](auto mutate) {
    k::Spec s = base;
    mutate(s);
    return error_of(s);
  };
  CHECK(with([](k::Spec& s) { s.matmul->a_input = 3; }) ==
        "matmul.a_input: input 3 is out of range (3 available)");
  CHECK(with([](k::Spec& s) { s.matmul->b_input = 200; }) ==
        "matmul.b_input: input 200 is out of range (3 available)");
  CHECK(with([](k::Spec& s) {
          s.views[0] = {k::ViewKind::ColBroadcast, 0};
        }) ==
        "matmul.a_input: input 0 is read through a ColBroadcast view; matmul operand A needs a "
        "Linear view (the matmul reads the whole buffer)");
  CHECK(with([](k::Spec& s) { s.matmul->b_input = 2; }) ==
        "matmul.b_input: input 2 is read through a RowBroadcast view; matmul operand B needs a "
        "Linear view (the matmul reads the whole buffer)");
  CHECK(with([](k::Spec& s) { s.matmul->k = 0; }) == "matmul.k: the summation length must be >= 1");
  CHECK(with([](k::Spec& s) { s.matmul->batch = 0; }) ==
        "matmul.batch: the number of stacked matrices must be >= 1");
  CHECK(with([](k::Spec& s) { s.instrs[1].b = k::input(1); }) ==
        "instrs[1].b: input 1 is matmul operand B; the code cannot read it (its buffer holds a "
        "matrix, not the grid); read MatmulResult");
  CHECK(with([](k::Spec& s) {
          s.instrs.insert(s.instrs.begin(), k::unary(Op::RowSum, 1, k::input(0)));
          s.num_regs = 2;
        }) ==
        "instrs[0].a: input 0 is matmul operand A; the code cannot read it (its buffer holds a "
        "matrix, not the grid); read MatmulResult");
  CHECK(with([](k::Spec& s) { s.matmul.reset(); }) ==
        "instrs[0].a: MatmulResult, but the spec has no matmul segment");
  CHECK(with([](k::Spec& s) { s.instrs[0].a.index = 1; }) ==
        "instrs[0].a: MatmulResult index 1 is not 0 (a spec has at most one matmul)");
  // Valid: one slot as both operands (x times its transpose), a reduction of the matmul result,
  // and a matmul no instruction reads (canonicalize may leave one).
  CHECK(with([](k::Spec& s) {
          s.matmul->b_input = 0;
          s.matmul->trans_b = true;
        }) == "");
  CHECK(with([](k::Spec& s) {
          s.instrs.insert(s.instrs.begin(), k::unary(Op::RowMax, 1, k::matmul_result()));
          s.instrs.back().b = k::reduce_result(1);
          s.num_regs = 2;
        }) == "");
  CHECK(with([](k::Spec& s) { s.instrs[0].a = k::input(2); }) == "");
}

TEST_CASE("kernel validate: a register written twice (allocated, non-SSA code) is valid") {
  k::Spec s;
  s.views = {{}};
  s.num_regs = 1;
  s.instrs = {k::unary(Op::Neg, 0, k::input(0)), k::binary(Op::Add, 0, k::reg(0), k::reg(0))};
  CHECK(error_of(s) == "");
}

// Hand-built kernel Specs shared by the kernel_* tests (not a test file itself), and the
// seed-004 counterexample to one-shot canonicalization (exprspec.md §1.8.1).
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "pypto/kernel/spec.hpp"

namespace doctest {
template <>
struct StringMaker<pypto::kernel::Spec> {
  static String convert(const pypto::kernel::Spec& s) {
    std::string text = "\n";
    text += pypto::kernel::to_string(s);
    return text.c_str();
  }
};
}  // namespace doctest

namespace pypto::test::kernel {

namespace k = pypto::kernel;
using k::Op;

/// exprspec.md §1.8.1: r0=a*b; r1=a*b; r2=max(r0,r1); r3=r2+c (output r3).
inline k::Spec pitfall_counterexample() {
  k::Spec s;
  s.views = {{}, {}, {}};
  s.num_regs = 4;
  s.instrs = {k::binary(Op::Mul, 0, k::input(0), k::input(1)),
              k::binary(Op::Mul, 1, k::input(0), k::input(1)),
              k::binary(Op::Max, 2, k::reg(0), k::reg(1)),
              k::binary(Op::Add, 3, k::reg(2), k::input(2))};
  return s;
}

/// x - rowmax(x), exp, times a runtime scale, divided by a row sum read through a view.
inline k::Spec softmax_like() {
  k::Spec s;
  s.views = {{k::ViewKind::Linear, 0}, {k::ViewKind::RowReduceSum, 0}};
  s.runtime_scalars = {k::float_bits(0.5f)};
  s.num_regs = 5;
  s.instrs = {
      k::unary(Op::RowMax, 4, k::input(0)), k::binary(Op::Sub, 0, k::input(0), k::reduce_result(4)),
      k::unary(Op::Exp, 1, k::reg(0)), k::binary(Op::Mul, 2, k::reg(1), k::runtime_scalar(0)),
      k::binary(Op::Div, 3, k::reg(2), k::input(1))};
  return s;
}

/// RoPE: x*cos + rotate_half(x)*sin, with row-modulo tables.
inline k::Spec rope_like() {
  k::Spec s;
  s.views = {{k::ViewKind::Linear, 0},
             {k::ViewKind::RotateHalf, 2},
             {k::ViewKind::RowMod, 2},
             {k::ViewKind::RowMod, 2}};
  s.num_regs = 3;
  s.instrs = {k::binary(Op::Mul, 0, k::input(0), k::input(2)),
              k::binary(Op::Mul, 1, k::input(1), k::input(3)),
              k::binary(Op::Add, 2, k::reg(0), k::reg(1))};
  return s;
}

/// A mask with grid indices, select, broadcasts, a column reduction and constants.
inline k::Spec masked_bias() {
  k::Spec s;
  s.views = {
      {k::ViewKind::Linear, 0}, {k::ViewKind::RowBroadcast, 0}, {k::ViewKind::ColBroadcast, 0}};
  s.consts = {k::float_bits(-0.0f), k::float_bits(1.0f), k::float_bits(2.0f)};
  s.num_regs = 6;
  s.instrs = {k::unary(Op::ColSum, 5, k::input(0)),
              k::binary(Op::Le, 0, k::grid(k::GridAxis::Col), k::grid(k::GridAxis::Row)),
              k::binary(Op::Add, 1, k::input(1), k::input(2)),
              k::binary(Op::Mul, 2, k::reg(1), k::constant(1)),
              k::binary(Op::Add, 3, k::reg(2), k::reduce_result(5)),
              k::select(4, k::reg(0), k::reg(3), k::constant(0))};
  return s;
}

/// A GEMM epilogue: relu(A x B + bias), A in input 0 (m x 3), B in input 1 (3 x n), the bias
/// row-broadcast from input 2.
inline k::Spec matmul_epilogue() {
  k::Spec s;
  s.views = {{}, {}, {k::ViewKind::RowBroadcast, 0}};
  s.consts = {k::float_bits(0.0f)};
  s.num_regs = 1;
  s.matmul = k::Matmul{0, 1, false, false, 3, 1};
  s.instrs = {k::binary(Op::Add, 0, k::matmul_result(), k::input(2)),
              k::binary(Op::Max, 0, k::reg(0), k::constant(0))};
  return s;
}

inline std::vector<k::Spec> samples() {
  return {pitfall_counterexample(), softmax_like(), rope_like(), masked_bias(), matmul_epilogue()};
}

}  // namespace pypto::test::kernel

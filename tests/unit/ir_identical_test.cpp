// Tests of pypto/ir/identical.hpp: exact sameness with variables compared by identity.
#include <doctest/doctest.h>

#include "ir_samples.hpp"
#include "pypto/ir/identical.hpp"

namespace {

using namespace pypto::test;  // NOLINT

TEST_CASE("identical: separately built equal types and expressions are identical") {
  auto n = var("n");
  auto t1 = TensorType::make(DataType::FP32, {Add::make(n, idx(1)), idx(16)});
  auto t2 = TensorType::make(DataType::FP32, {Add::make(n, idx(1)), idx(16)});
  CHECK(identical(t1, t2));
  CHECK(identical(TupleType::make({t1, scalar(DataType::INDEX)}),
                  TupleType::make({t2, scalar(DataType::INDEX)})));
}

TEST_CASE("identical: variables only to themselves, every semantic field counts") {
  auto n = var("n"), m = var("n");
  CHECK_FALSE(
      identical(TensorType::make(DataType::FP32, {n}), TensorType::make(DataType::FP32, {m})));
  CHECK_FALSE(identical(TensorType::make(DataType::FP32, {idx(4)}),
                        TensorType::make(DataType::FP16, {idx(4)})));
  // INDEX and INT64 literals differ; +0.0 and -0.0 differ.
  CHECK_FALSE(identical(idx(4), ConstInt::make(4, DataType::INT64)));
  CHECK_FALSE(identical(ConstFloat::make(0.0), ConstFloat::make(-0.0)));
  CHECK(identical(ConstFloat::make(-0.0), ConstFloat::make(-0.0)));
  // Views and memory spaces.
  TileView v;
  v.blayout = TileLayout::col_major;
  CHECK_FALSE(identical(TileType::make(DataType::FP32, {idx(16)}, MemorySpace::Vec),
                        TileType::make(DataType::FP32, {idx(16)}, MemorySpace::Vec, v)));
  CHECK_FALSE(identical(TileType::make(DataType::FP32, {idx(16)}, MemorySpace::Vec),
                        TileType::make(DataType::FP32, {idx(16)}, MemorySpace::Mat)));
  CHECK(identical(TileType::make(DataType::FP32, {idx(16)}, MemorySpace::Vec, v),
                  TileType::make(DataType::FP32, {idx(16)}, MemorySpace::Vec, v)));
  // Attrs, in stored order and by value kind.
  auto t = TensorType::make(DataType::FP32, {idx(8)});
  auto x = Var::make("x", t);
  auto call = [&](Attrs a) { return Call::make(Op::make("k"), {x}, t, {}, std::move(a)); };
  CHECK(identical(call({{"a", 1}}), call({{"a", 1}})));
  CHECK_FALSE(identical(call({{"a", 1}}), call({{"a", 1.0}})));
  CHECK_FALSE(identical(call({{"a", 1}, {"b", 2}}), call({{"b", 2}, {"a", 1}})));
}

TEST_CASE("identical: nesting beyond the library limit answers false, without recursion trouble") {
  ExprRef a = idx(1), b = idx(1);
  for (int i = 0; i < 2000; ++i) {
    a = Neg::make(a);
    b = Neg::make(b);
  }
  CHECK_FALSE(identical(a, b));
  ExprRef c = idx(1), d = idx(1);
  for (int i = 0; i < 100; ++i) {
    c = Neg::make(c);
    d = Neg::make(d);
  }
  CHECK(identical(c, d));
}

}  // namespace

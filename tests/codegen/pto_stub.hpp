// tests/codegen/pto_stub.hpp — declarations of the PTO-ISA intrinsics and runtime types that
// NpuTarget's kernels use, for `-fsyntax-only` checks of generated NPU code (issue 8, "Proof
// that the passes keep meaning"). Not an implementation: every intrinsic is declared with the
// operand shape NpuTarget prints (a tile is an object, a scalar a value), so a kernel that
// passes the wrong number or kind of operands, or names an intrinsic that does not exist here,
// fails to compile. Keep in step with npu_target.hpp.
#pragma once

#include <cstdint>
#include <initializer_list>

#define __gm__
#define __aicore__
#define __global__

using std::int64_t;

// The core's pipe synchronization builtins (global, as the device compiler provides them).
enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL };
enum event_t { EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3 };
__aicore__ void set_flag(pipe_t from, pipe_t to, event_t event);
__aicore__ void wait_flag(pipe_t from, pipe_t to, event_t event);
__aicore__ void pipe_barrier(pipe_t pipe);

namespace pto {

struct half {
  std::uint16_t bits;
};
struct bfloat16_t {
  std::uint16_t bits;
};

/// The runtime's tensor descriptor: global-memory address and shape (tensors-first args).
struct Tensor {
  std::uint64_t buffer_addr;
  std::int64_t rank;
  std::int64_t shape[8];
};

enum class TileType { Vec, Mat, Left, Right, Acc, Bias, ScaleLeft, ScaleRight };
enum class CmpMode { LT, LE, GT, GE, EQ, NE };
enum class RoundMode {
  CAST_NONE,
  CAST_RINT,
  CAST_ROUND,
  CAST_FLOOR,
  CAST_CEIL,
  CAST_TRUNC,
  CAST_ODD
};
enum class AtomicType { AtomicNone, AtomicAdd };

/// A tile of compile-time shape in an on-chip buffer.
template <TileType Space, class E, int Rows, int Cols>
struct Tile {
  static_assert(Rows > 0 && Cols > 0, "a tile has a positive shape");
  using element = E;
};
/// A tile whose shape is known at run time.
template <TileType Space, class E>
struct TileDyn {
  using element = E;
  __aicore__ TileDyn(std::int64_t rows, std::int64_t cols);
};

template <class T>
concept TileLike = requires {
  typename T::element;
};

using Offsets = std::initializer_list<std::int64_t>;

template <TileLike D, class E>
__aicore__ void TLOAD(D& dst, __gm__ E* src, const std::int64_t* shape, Offsets offsets,
                      Offsets extents);
template <AtomicType A = AtomicType::AtomicNone, class E, TileLike S>
__aicore__ void TSTORE(__gm__ E* dst, const std::int64_t* shape, Offsets offsets, Offsets extents,
                       S& src);

#define PTO_STUB_UNARY(NAME)        \
  template <TileLike D, TileLike S> \
  __aicore__ void NAME(D& dst, S& src);
PTO_STUB_UNARY(TMOV)
PTO_STUB_UNARY(TNEG)
PTO_STUB_UNARY(TABS)
PTO_STUB_UNARY(TEXP)
PTO_STUB_UNARY(TLOG)
PTO_STUB_UNARY(TSQRT)
PTO_STUB_UNARY(TRSQRT)
PTO_STUB_UNARY(TTANH)
PTO_STUB_UNARY(TROWEXPAND)
PTO_STUB_UNARY(TCOLEXPAND)
#undef PTO_STUB_UNARY

#define PTO_STUB_BINARY(NAME, NAME_S)           \
  template <TileLike D, TileLike A, TileLike B> \
  __aicore__ void NAME(D& dst, A& a, B& b);     \
  template <TileLike D, TileLike A, class S>    \
  __aicore__ void NAME_S(D& dst, A& a, S b);
PTO_STUB_BINARY(TADD, TADDS)
PTO_STUB_BINARY(TSUB, TSUBS)
PTO_STUB_BINARY(TMUL, TMULS)
PTO_STUB_BINARY(TDIV, TDIVS)
PTO_STUB_BINARY(TMAX, TMAXS)
PTO_STUB_BINARY(TMIN, TMINS)
#undef PTO_STUB_BINARY

template <TileLike D, TileLike A, TileLike B>
__aicore__ void TCMP(D& dst, A& a, B& b, CmpMode mode);
template <TileLike D, TileLike M, TileLike A, TileLike B>
__aicore__ void TSEL(D& dst, M& mask, A& a, B& b);

#define PTO_STUB_REDUCE(NAME)                   \
  template <TileLike D, TileLike S, TileLike T> \
  __aicore__ void NAME(D& dst, S& src, T& tmp);
PTO_STUB_REDUCE(TROWSUM)
PTO_STUB_REDUCE(TROWMAX)
PTO_STUB_REDUCE(TCOLSUM)
PTO_STUB_REDUCE(TCOLMAX)
#undef PTO_STUB_REDUCE

template <TileLike D, class S>
__aicore__ void TEXPANDS(D& dst, S scalar);
template <TileLike D, TileLike S>
__aicore__ void TCVT(D& dst, S& src, RoundMode mode);
template <TileLike C, TileLike A, TileLike B>
__aicore__ void TMATMUL(C& c, A& a, B& b);
template <TileLike C, TileLike A, TileLike B>
__aicore__ void TMATMUL_ACC(C& c_out, C& c_in, A& a, B& b);

__aicore__ std::int64_t get_block_idx();

}  // namespace pto

// pypto/ir/ops/distributed.ipp — the distributed op family (`pld.`): the communication
// context, window buffers and their distributed-tensor views, one-sided puts, gets and remote
// loads / stores, signals, and the collectives (docs/text-format.md lists them).
//
// A window buffer is allocated per rank on the host (`pld.alloc_window_buffer`, a Ptr) and seen
// as a distributed tensor (`pld.window`); the cross-rank ops take only distributed tensors.
// Signals are INT32 distributed tensors. A collective rebinds its destination: its result is
// that argument's type.
#pragma once

#include <cstddef>
#include <string_view>

#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/ops/type_rules.hpp"

namespace pypto::ir::ops {

/// Argument `i` as a distributed tensor (a window view), else a TypeError.
inline const TensorType& distributed_arg(std::string_view op, const Args& args, std::size_t i) {
  const auto& t = arg_as<TensorType>(op, args, i);
  if (!t.distributed) fail(op, i, "must be a pld.DistributedTensor (a window view)");
  return t;
}

/// Argument `i` as a signal: a distributed INT32 tensor.
inline const TensorType& signal_arg(std::string_view op, const Args& args, std::size_t i) {
  const auto& t = distributed_arg(op, args, i);
  if (t.dtype != core::DataType::INT32) fail(op, i, "must be an INT32 signal tensor");
  return t;
}

/// Argument `i` is a list of one index per dimension of `t`.
inline void offsets_arg(std::string_view op, const Args& args, std::size_t i, const TensorType& t) {
  if (shape_arg(op, args, i).size() != t.rank()) fail(op, i, "must index every dimension");
}

/// pld.system.get_comm_ctx(tensor) -> the communication context of its window.
inline TypeRef comm_ctx(std::string_view op, const Args& args, const Attrs&) {
  distributed_arg(op, args, 0);
  return CommCtxType::make();
}

/// pld.system.rank / nranks(ctx) -> INT32.
inline TypeRef rank_of(std::string_view op, const Args& args, const Attrs&) {
  arg_as<CommCtxType>(op, args, 0);
  return ScalarType::make(core::DataType::INT32);
}

/// pld.tensor.alloc_window_buffer(size) -> the buffer's base pointer.
inline TypeRef window_buffer(std::string_view op, const Args& args, const Attrs&) {
  if (!is_integer_scalar(args[0])) fail(op, 0, "must be an integer size in bytes");
  return PtrType::make();
}

/// pld.tensor.window(buf, shape, dtype=...) -> a distributed tensor over the buffer.
inline TypeRef window_view(std::string_view op, const Args& args, const Attrs& kw) {
  arg_as<PtrType>(op, args, 0);
  return TensorType::make(required_kwarg<core::DataType>(op, kw, "dtype"), shape_arg(op, args, 1),
                          std::nullopt, nullptr, true);
}

/// pld.system.notify / wait / defer_wait(signal, [peer,] offsets, value): a signal operation.
/// The signal is INT32 by contract; upstream's parser takes any dtype, and so does this rule
/// (running refuses a float one).
template <std::size_t Offsets>
TypeRef signal_op(std::string_view op, const Args& args, const Attrs&) {
  const auto& t = distributed_arg(op, args, 0);
  offsets_arg(op, args, Offsets, t);
  for (std::size_t i = 1; i < args.size(); ++i)
    if (i != Offsets) arg_as<ScalarType>(op, args, i);
  return UnknownType::make();
}

/// pld.tensor.put / get(dst, peer, src[, dst_offsets, src_offsets, shape]): a one-sided copy
/// between this rank and a peer; `Remote` is the distributed side (0 for put, 2 for get).
template <std::size_t Remote>
TypeRef one_sided(std::string_view op, const Args& args, const Attrs&) {
  distributed_arg(op, args, Remote);
  const auto& dst = arg_as<TensorType>(op, args, 0);
  arg_as<ScalarType>(op, args, 1);
  const auto& src = arg_as<TensorType>(op, args, 2);
  if (src.dtype != dst.dtype) fail(op, 2, "must have the destination's dtype");
  if (src.rank() != dst.rank()) fail(op, 2, "must have the destination's rank");
  if (args.size() != 3 && args.size() != 6)
    fail(op, 3, "the offsets and shape come together (dst_offsets, src_offsets, shape)");
  if (args.size() == 6) {
    offsets_arg(op, args, 3, dst);
    offsets_arg(op, args, 4, src);
    offsets_arg(op, args, 5, dst);
  }
  return UnknownType::make();
}

/// pld.tile.put / get(dst, peer, src, stage[, stage2][, dst_offsets, src_offsets, shape]): the
/// same copy through on-core staging tiles of the destination's dtype.
inline TypeRef staged_one_sided(std::string_view op, const Args& args, const Attrs&) {
  const auto& dst = arg_as<TensorType>(op, args, 0);
  arg_as<ScalarType>(op, args, 1);
  arg_as<TensorType>(op, args, 2);
  for (std::size_t i = 3; i < args.size() && as<TileType>(args[i]->type.get()); ++i)
    if (as<TileType>(args[i]->type.get())->dtype != dst.dtype)
      fail(op, i, "must be a staging tile of the destination's dtype");
  return TupleType::make({});
}

/// pld.tile.remote_load(target, peer, offsets, shape[, valid_shape]) -> a tile read from the
/// peer's window.
inline TypeRef remote_load(std::string_view op, const Args& args, const Attrs&) {
  const auto& t = distributed_arg(op, args, 0);
  arg_as<ScalarType>(op, args, 1);
  offsets_arg(op, args, 2, t);
  std::vector<ExprRef> shape = shape_arg(op, args, 3);
  if (shape.size() != t.rank()) fail(op, 3, "must have the target's rank");
  std::optional<TileView> view;
  if (args.size() > 4) {
    view = TileView{};
    view->valid_shape = shape_arg(op, args, 4);
    if (view->valid_shape.size() != t.rank()) fail(op, 4, "must have the target's rank");
  }
  return TileType::make(t.dtype, std::move(shape), std::nullopt, std::move(view));
}

/// pld.tile / tensor.remote_store(src, target, peer, offsets): a store into the peer's window.
inline TypeRef remote_store(std::string_view op, const Args& args, const Attrs&) {
  const Shaped src = shaped_arg(op, args, 0);
  const auto& t = distributed_arg(op, args, 1);
  if (src.dtype != t.dtype) fail(op, 0, "must have the target's dtype");
  arg_as<ScalarType>(op, args, 2);
  offsets_arg(op, args, 3, t);
  return UnknownType::make();
}

/// A collective over distributed tensors: the result is argument `Result` (its destination,
/// rebound); the arguments before it are local or distributed tensors, the others distributed,
/// argument `Signal` (when given) the INT32 signal.
template <std::size_t Result, std::size_t Signal>
TypeRef collective(std::string_view op, const Args& args, const Attrs&) {
  for (std::size_t i = 0; i < args.size(); ++i)
    if (i == Signal)
      signal_arg(op, args, i);
    else if (i < Result)
      arg_as<TensorType>(op, args, i);
    else
      distributed_arg(op, args, i);
  return args[Result]->type;
}

/// pld.tensor.all_to_all_v(input, target, signal, send_counts, recv_counts) -> the target:
/// the counts are INT32, the received ones distributed.
inline TypeRef all_to_all_v(std::string_view op, const Args& args, const Attrs& kw) {
  for (std::size_t i : {std::size_t{3}, std::size_t{4}})
    if (arg_as<TensorType>(op, args, i).dtype != core::DataType::INT32)
      fail(op, i, "must be INT32 counts");
  distributed_arg(op, args, 4);
  return collective<1, 2>(op, {args.begin(), args.begin() + 3}, kw);
}

/// pld.system.notify: the AtomicAdd form (the default) reads the signal; Set only writes.
inline ArgEffect notify_effect(const Attrs& kw) {
  auto op = kw.get<NotifyOp>("op");
  return op && *op == NotifyOp::Set ? ArgEffect::Write : ArgEffect::ReadWrite;
}

// Cold: it runs once per registry, and the optimizer then spends little on its initialisers.
[[gnu::cold]] inline void add_distributed_ops(OpRegistry& r) {
  using K = KwargKind;
  using R = ArgEffect;
  const KwargSpec atomic = enum_kwarg<AtomicType>("atomic");
  const KwargSpec reduce = enum_kwarg<ReduceOp>("op");
  auto stmt = [&r](OpDef d) {  // seed 001's legacy statement-only allowlist
    d.statement_only = true;
    r.add(std::move(d));
  };

  // the context: world, rank, communication context
  r.add({.name = "pld.system.world_size",
         .type_rule = scalar<core::DataType::INT64>,
         .spellings = {"pld.world_size"}});
  r.add({.name = "pld.system.get_comm_ctx",
         .args = {{"dist_tensor"}},
         .type_rule = comm_ctx,
         .spellings = {"pld.get_comm_ctx"}});
  r.add({.name = "pld.system.rank",
         .args = {{"ctx"}},
         .type_rule = rank_of,
         .spellings = {"pld.rank"}});
  r.add({.name = "pld.system.nranks",
         .args = {{"ctx"}},
         .type_rule = rank_of,
         .spellings = {"pld.nranks"}});

  // windows
  r.add({.name = "pld.tensor.alloc_window_buffer",
         .args = {{"size"}},
         .kwargs = {{"name", K::String}},
         .type_rule = window_buffer,
         .spellings = {"pld.alloc_window_buffer"}});
  r.add({.name = "pld.tensor.window",
         .args = {{"buf"}, {"shape"}},
         .kwargs = {{"dtype", K::DataType}},
         .type_rule = window_view,
         .spellings = {"pld.window"}});

  // one-sided copies, remote loads and stores
  const std::vector<ArgSpec> region = {
      {"dst_offsets", R::Read, true}, {"src_offsets", R::Read, true}, {"shape", R::Read, true}};
  stmt({.name = "pld.tensor.put",
        .args = {atomic_destination("dst"), {"peer"}, {"src"}, region[0], region[1], region[2]},
        .kwargs = {atomic, {"chunk_rows", K::Int}, {"chunk_cols", K::Int}, {"pipeline", K::Bool}},
        .type_rule = one_sided<0>});
  r.add({.name = "pld.tensor.get",
         .args = {{"dst", R::Write}, {"peer"}, {"src"}, region[0], region[1], region[2]},
         .kwargs = {{"chunk_rows", K::Int}, {"chunk_cols", K::Int}, {"pipeline", K::Bool}},
         .type_rule = one_sided<2>});
  r.add({.name = "pld.tile.put",
         .args = {atomic_destination("dst"),
                  {"peer"},
                  {"src"},
                  {"stage"},
                  {"stage2", R::Read, true},
                  {"dst_offsets", R::Read, true},
                  {"src_offsets", R::Read, true},
                  {"shape", R::Read, true}},
         .kwargs = {atomic},
         .type_rule = staged_one_sided});
  r.add({.name = "pld.tile.get",
         .args = {{"dst", R::Write},
                  {"peer"},
                  {"src"},
                  {"stage"},
                  {"stage2", R::Read, true},
                  {"dst_offsets", R::Read, true},
                  {"src_offsets", R::Read, true},
                  {"shape", R::Read, true}},
         .type_rule = staged_one_sided});
  r.add({.name = "pld.tile.remote_load",
         .args = {{"target"}, {"peer"}, {"offsets"}, {"shape"}, {"valid_shape", R::Read, true}},
         .type_rule = remote_load});
  stmt({.name = "pld.tile.remote_store",
        .args = {{"src_tile"}, atomic_destination("target"), {"peer"}, {"offsets"}},
        .kwargs = {atomic},
        .type_rule = remote_store});
  stmt({.name = "pld.tensor.remote_store",
        .args = {{"src"}, atomic_destination("target"), {"peer"}, {"offsets"}},
        .kwargs = {atomic},
        .type_rule = remote_store});

  // signals
  stmt({.name = "pld.system.notify",
        .args = {{"target", R::ReadWrite, false, notify_effect}, {"peer"}, {"offsets"}, {"value"}},
        .kwargs = {enum_kwarg<NotifyOp>("op")},
        .type_rule = signal_op<2>});
  stmt({.name = "pld.system.wait",
        .args = {{"signal"}, {"offsets"}, {"expected"}},
        .kwargs = {enum_kwarg<WaitCmp>("cmp")},
        .type_rule = signal_op<1>});
  stmt({.name = "pld.system.defer_wait",
        .args = {{"signal"}, {"offsets"}, {"expected"}},
        .kwargs = {enum_kwarg<WaitCmp>("cmp")},
        .type_rule = signal_op<1>});

  // collectives: each rebinds its destination
  r.add({.name = "pld.tensor.allreduce",
         .args = {{"target", R::ReadWrite}, {"signal", R::ReadWrite, true}},
         .kwargs = {reduce, {"mode", K::String}, {"core_num", K::Int}},
         .type_rule = collective<0, 1>});
  r.add({.name = "pld.tensor.barrier",
         .args = {{"signal", R::ReadWrite}},
         .type_rule = collective<0, 0>});
  r.add({.name = "pld.tensor.broadcast",
         .args = {{"target", R::ReadWrite}, {"signal", R::ReadWrite}},
         .kwargs = {{"root", K::Int}},
         .type_rule = collective<0, 1>});
  r.add({.name = "pld.tensor.reduce_scatter",
         .args = {{"target", R::ReadWrite}, {"signal", R::ReadWrite}},
         .kwargs = {reduce},
         .type_rule = collective<0, 1>});
  r.add({.name = "pld.tensor.allgather",
         .args = {{"input"}, {"target", R::Write}, {"signal", R::ReadWrite}},
         .type_rule = collective<1, 2>});
  r.add({.name = "pld.tensor.all_to_all",
         .args = {{"input"}, {"target", R::Write}, {"signal", R::ReadWrite}},
         .type_rule = collective<1, 2>});
  r.add({.name = "pld.tensor.all_to_all_v",
         .args = {{"input"},
                  {"target", R::Write},
                  {"signal", R::ReadWrite},
                  {"send_counts"},
                  {"recv_counts", R::Write}},
         .type_rule = all_to_all_v});
}

}  // namespace pypto::ir::ops

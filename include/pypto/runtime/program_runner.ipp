// pypto/runtime/program_runner.ipp — the definitions of runtime/program_runner.hpp.
#pragma once

#include "pypto/runtime/program_runner.hpp"

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/codegen/kernel_abi.hpp"
#include "pypto/codegen/kernel_codegen.hpp"
#include "pypto/core/dtype.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/runtime/interpreter.hpp"
#include "pypto/runtime/kernel_library.hpp"
#include "pypto/runtime/mixed_task.hpp"
#include "pypto/transforms/return_lineage.hpp"

namespace pypto::runtime {

PYPTO_DECL std::vector<Value> ProgramRunner::run(std::string_view function, std::vector<Value> args,
                                                 std::int64_t world_size) {
  RunOptions options;
  options.world_size = world_size;
  options.call_hook = [this](const ir::Function& fn, std::vector<Value>& a, std::int64_t block,
                             std::int64_t blocks) {
    return std::optional<std::vector<Value>>(call_kernel(fn, a, block, blocks));
  };
  return runtime::run(program_, function, std::move(args), options);
}

PYPTO_DECL void ProgramRunner::fail(const ir::Function& fn, const std::string& what) {
  throw RuntimeError("program runner: kernel '" + fn.name + "': " + what);
}

PYPTO_DECL std::optional<codegen::HalfFormat> ProgramRunner::half_format(core::DataType t) {
  if (t == core::DataType::FP16) return codegen::HalfFormat::FP16;
  if (t == core::DataType::BF16) return codegen::HalfFormat::BF16;
  return std::nullopt;
}

PYPTO_DECL std::size_t ProgramRunner::element_bytes(const ir::Function& fn, core::DataType t) {
  using core::DataType;
  if (t == DataType::FP32) return 4;
  if (t == DataType::BOOL) return 1;
  if (half_format(t)) return 2;
  if (mini_format(t)) return 1;  // one code a byte, an FP4 code in the low nibble
  if (core::is_int(t) && core::bit_width(t) >= 8) return core::bit_width(t) / 8;
  fail(fn, "tensors of dtype " + std::string(core::dtype_name(t)) +
               " cannot be passed to compiled code");
}

PYPTO_DECL std::vector<unsigned char> ProgramRunner::pack(const ir::Function& fn, const Buffer& b,
                                                          std::size_t width) {
  if (const auto mini = mini_format(b.dtype)) {
    std::vector<unsigned char> out(b.f32.size());
    for (std::size_t k = 0; k < b.f32.size(); ++k) {
      out[k] = codegen::float_to_mini(b.f32[k], *mini);
      if (!std::isnan(b.f32[k]) && std::bit_cast<std::uint32_t>(codegen::mini_to_float(
                                       out[k], *mini)) != std::bit_cast<std::uint32_t>(b.f32[k]))
        fail(fn, "a tensor of dtype " + std::string(core::dtype_name(b.dtype)) + " holds " +
                     std::to_string(b.f32[k]) + ", which is not a value of its dtype");
    }
    return out;
  }
  if (const auto format = half_format(b.dtype)) {
    std::vector<unsigned char> out(b.f32.size() * 2);
    for (std::size_t k = 0; k < b.f32.size(); ++k) {
      const std::uint16_t x = codegen::float_to_half(b.f32[k], *format, true);
      if (std::bit_cast<std::uint32_t>(codegen::half_to_float(x, *format)) !=
          std::bit_cast<std::uint32_t>(b.f32[k]))
        fail(fn, "a tensor of dtype " + std::string(core::dtype_name(b.dtype)) + " holds " +
                     std::to_string(b.f32[k]) + ", which is not a value of its dtype");
      std::memcpy(&out[k * 2], &x, 2);
    }
    return out;
  }
  std::vector<unsigned char> out(b.ints.size() * width);
  for (std::size_t k = 0; k < b.ints.size(); ++k) {
    const auto v = static_cast<std::uint64_t>(b.ints[k]);
    switch (width) {
      case 1: out[k] = static_cast<std::uint8_t>(v); break;
      case 2: {
        const auto x = static_cast<std::uint16_t>(v);
        std::memcpy(&out[k * 2], &x, 2);
        break;
      }
      case 4: {
        const auto x = static_cast<std::uint32_t>(v);
        std::memcpy(&out[k * 4], &x, 4);
        break;
      }
      default: std::memcpy(&out[k * 8], &v, 8); break;
    }
  }
  return out;
}

PYPTO_DECL void ProgramRunner::unpack(const std::vector<unsigned char>& in, std::size_t width,
                                      Buffer& b) {
  if (const auto mini = mini_format(b.dtype)) {
    for (std::size_t k = 0; k < b.f32.size(); ++k) b.f32[k] = codegen::mini_to_float(in[k], *mini);
    return;
  }
  if (const auto format = half_format(b.dtype)) {
    for (std::size_t k = 0; k < b.f32.size(); ++k) {
      std::uint16_t x;
      std::memcpy(&x, &in[k * 2], 2);
      b.f32[k] = codegen::half_to_float(x, *format);
    }
    return;
  }
  const bool is_signed = core::is_signed_int(b.dtype);
  for (std::size_t k = 0; k < b.ints.size(); ++k) {
    std::int64_t v = 0;
    switch (width) {
      case 1: v = is_signed ? std::int64_t{static_cast<std::int8_t>(in[k])} : in[k]; break;
      case 2: {
        std::uint16_t x;
        std::memcpy(&x, &in[k * 2], 2);
        v = is_signed ? std::int64_t{static_cast<std::int16_t>(x)} : x;
        break;
      }
      case 4: {
        std::uint32_t x;
        std::memcpy(&x, &in[k * 4], 4);
        v = is_signed ? std::int64_t{static_cast<std::int32_t>(x)} : x;
        break;
      }
      default: std::memcpy(&v, &in[k * 8], 8); break;
    }
    if (b.dtype == core::DataType::BOOL) v = v != 0 ? 1 : 0;
    b.ints[k] = v;
  }
}

PYPTO_DECL std::vector<Value> ProgramRunner::call_kernel(const ir::Function& fn,
                                                         std::vector<Value>& args,
                                                         std::int64_t block_idx,
                                                         std::int64_t block_num) {
  auto id = func_ids_.find(fn.name);
  if (id == func_ids_.end()) fail(fn, "has no kernel registration (no func_id for it)");
  const Kernel* kernel = library_.find(id->second);
  if (!kernel)
    fail(fn, "its func_id " + std::to_string(id->second) + " is not in the kernel library");
  const std::vector<transforms::ReturnLineage::ParamIndex> returned = lineage_.returned_params(fn);
  for (std::size_t k = 0; k < returned.size(); ++k)
    if (!returned[k])
      fail(fn, "result " + std::to_string(k) +
                   " is not one of its parameters: compiled kernels return through parameters");

  const auto& signature = kernel->registration().signature;
  std::vector<codegen::TensorArg> tensors;
  std::vector<std::uint64_t> scalars;
  std::vector<Staged> staged;  // integer and 16-bit float tensors, packed at their width
  staged.reserve(args.size());
  KernelCall call{this, &fn, nullptr, &args, &tensors, {}, &staged};
  for (std::size_t a = 0; a < args.size(); ++a) {
    const Value& v = args[a];
    if (v.kind == ValueKind::Scalar) {
      scalars.push_back(v.dtype == core::DataType::FP32
                            ? std::uint64_t{std::bit_cast<std::uint32_t>(v.f)}
                            : static_cast<std::uint64_t>(v.i));
      continue;
    }
    if (!v.is_shaped()) fail(fn, "takes an argument that is neither a tensor nor a scalar");
    Buffer& b = *v.buffer;
    if (b.shape.size() > static_cast<std::size_t>(codegen::kKernelAbiMaxRank))
      fail(fn, "a tensor of rank " + std::to_string(b.shape.size()) + " exceeds the ABI's " +
                   std::to_string(codegen::kKernelAbiMaxRank));
    codegen::TensorArg t{};
    t.rank = static_cast<std::int64_t>(b.shape.size());
    for (std::size_t d = 0; d < b.shape.size(); ++d) t.shape[d] = b.shape[d];
    const std::size_t width = element_bytes(fn, b.dtype);
    if (b.dtype == core::DataType::FP32) {
      t.data = b.f32.data();
    } else {
      staged.push_back({&b, width, pack(fn, b, width), tensors.size()});
      t.data = staged.back().bytes.data();
    }
    tensors.push_back(t);
    call.tensor_args.push_back(a);
  }
  kernel->set_pipe(&ProgramRunner::pipe_entry, &call);
  kernel->set_world(RankPort::current() ? &ProgramRunner::world_entry : nullptr, &call);
  try {
    (*kernel)(tensors, scalars, block_idx, block_num);
  } catch (const KernelFaultError& e) {
    if (call.error) std::rethrow_exception(call.error);
    // The kernel's text names its sites by number only; lowering `fn` again says which is which.
    const codegen::KernelFault& f = e.fault();
    const std::vector<codegen::KernelFaultSite> sites =
        codegen::codegen_kernel<codegen::CpuTarget>(fn).fault_sites;
    std::string where = "an operation";
    if (f.site >= 0 && static_cast<std::size_t>(f.site) < sites.size()) {
      const codegen::KernelFaultSite& s = sites[static_cast<std::size_t>(f.site)];
      where = s.what + " at " + s.span.to_string();
    }
    fail(fn, where + " " + kernel_fault_text(f) + " (block " + std::to_string(block_idx) + ")");
  }
  ++kernel_calls_;
  for (Staged& s : staged)
    if (s.tensor_index < signature.size() &&
        signature[s.tensor_index] != codegen::RuntimeDirection::In)
      unpack(s.bytes, s.width, *s.buffer);
  std::vector<Value> results;
  for (const auto& p : returned) results.push_back(args[*p]);
  return results;
}

PYPTO_DECL bool ProgramRunner::pipe_entry(void* context, std::int64_t op, std::int64_t id,
                                          codegen::PipeTile* tile) {
  KernelCall& call = *static_cast<KernelCall*>(context);
  if (call.error) return false;  // the kernel goes on after a refusal: the first error stands
  using codegen::PipeOp;
  const auto what = static_cast<PipeOp>(op);
  if (what == PipeOp::SyncAll) return sync_all(call);
  const bool push = what == PipeOp::PushToAiv || what == PipeOp::PushToAic;
  const PipeDirection d = what == PipeOp::PushToAiv || what == PipeOp::PopFromAic
                              ? PipeDirection::ToAiv
                              : PipeDirection::ToAic;
  const std::string name = what == PipeOp::PushToAiv    ? "tile.tpush_to_aiv"
                           : what == PipeOp::PushToAic  ? "tile.tpush_to_aic"
                           : what == PipeOp::PopFromAic ? "tile.tpop_from_aic"
                                                        : "tile.tpop_from_aiv";
  try {
    const ir::Function& fn = *call.fn;
    MixedTask* task = MixedTask::current();
    if (!task)
      fail(fn, name +
                   " runs outside a mixed task (consecutive calls of a Group's AIC and AIV "
                   "members): no member is at the other end of its pipe");
    const auto dtype = static_cast<core::DataType>(tile->dtype);
    const std::size_t width = element_bytes(fn, dtype);
    const std::vector<std::int64_t> shape{tile->rows, tile->cols};
    const std::size_t n = static_cast<std::size_t>(tile->rows * tile->cols);
    auto* bytes = static_cast<unsigned char*>(tile->data);
    if (push) {
      Value v = Value::zeros(dtype, shape, true);
      if (dtype == core::DataType::FP32)
        std::memcpy(v.buffer->f32.data(), bytes, n * 4);
      else
        unpack(std::vector<unsigned char>(bytes, bytes + n * width), width, *v.buffer);
      if (tile->valid_rows != tile->rows || tile->valid_cols != tile->cols)
        v.buffer->valid = {tile->valid_rows, tile->valid_cols};
      task->push(d, id, std::move(v));
      return true;
    }
    const Value v = task->pop(d, id, name);
    if (v.buffer->shape != shape || v.dtype != dtype)
      fail(fn, name +
                   " pops a tile of another dtype or shape than was pushed (one full-width "
                   "AIV lane runs here: a per-lane half is not popped)");
    if (dtype == core::DataType::FP32)
      std::memcpy(bytes, v.buffer->f32.data(), n * 4);
    else
      std::memcpy(bytes, pack(fn, *v.buffer, width).data(), n * width);
    const std::vector<std::int64_t>& valid = v.buffer->valid.empty() ? shape : v.buffer->valid;
    tile->valid_rows = valid[0];
    tile->valid_cols = valid[1];
    return true;
  } catch (...) {
    call.error = std::current_exception();
    return false;
  }
}

PYPTO_DECL bool ProgramRunner::sync_all(KernelCall& call) {
  try {
    MixedTask* task = MixedTask::current();
    if (task) task->arrive("system.syncall");  // else a launch of one block: no one to wait for
    return true;
  } catch (const RuntimeError& e) {  // a syncall where the members are not blocks
    call.error = std::make_exception_ptr(
        RuntimeError("program runner: kernel '" + call.fn->name + "': " + e.what()));
  } catch (...) {  // the task is stopping
    call.error = std::current_exception();
  }
  return false;
}

PYPTO_DECL bool ProgramRunner::world_entry(void* context, std::int64_t op, codegen::WorldCall* w) {
  KernelCall& call = *static_cast<KernelCall*>(context);
  if (call.error) return false;  // the kernel goes on after a refusal: the first error stands
  try {
    RankPort* port = RankPort::current();
    if (!port || op < 0 || op > static_cast<std::int64_t>(codegen::WorldOp::Collective))
      fail(*call.fn, "made a distributed request outside a world's rank");
    world_request(call, *port, static_cast<codegen::WorldOp>(op), *w);
    return true;
  } catch (...) {
    call.error = std::current_exception();
    return false;
  }
}

PYPTO_DECL void ProgramRunner::world_request(KernelCall& call, RankPort& port, codegen::WorldOp op,
                                             codegen::WorldCall& w) {
  using codegen::WorldOp;
  const ir::Function& fn = *call.fn;
  const ir::Call& c = call.runner->site_call(fn, w.site);
  const Value* window = w.tensor ? argument(call, w.tensor) : nullptr;
  if (w.tensor && !window)
    fail(fn, c.op->name + " names a tensor that is not one of the kernel's arguments");
  if (w.rank < 0 || w.rank > codegen::kKernelAbiMaxRank)
    fail(fn, c.op->name + " sent a box of rank " + std::to_string(w.rank));
  const std::vector<std::int64_t> offsets(w.offsets, w.offsets + w.rank);
  const std::vector<std::int64_t> extents(w.extents, w.extents + w.rank);
  if ((op != WorldOp::Query && !window) ||
      ((op == WorldOp::Load || op == WorldOp::Store) && (w.rank == 0 || !w.tile.data)))
    fail(fn, c.op->name + " sent an incomplete request");
  // A box's rows (its leading extents folded) at the tile's row pitch.
  const std::int64_t cols = w.rank > 0 ? extents.back() : 0;
  std::int64_t rows = 1;
  for (std::size_t k = 0; k + 1 < extents.size(); ++k) rows *= extents[k];
  const auto dtype = static_cast<core::DataType>(w.tile.dtype);
  const bool converts = core::is_float(dtype) && window && core::is_float(window->buffer->dtype);
  if ((op == WorldOp::Load || op == WorldOp::Store) &&
      (rows < 0 || cols < 0 || rows > w.tile.rows || cols > w.tile.cols ||
       (dtype != window->buffer->dtype && !(op == WorldOp::Store && converts))))
    fail(fn, c.op->name + "'s box does not fit its tile");
  auto* tile = static_cast<unsigned char*>(w.tile.data);
  switch (op) {
    case WorldOp::IsLocal: w.value = port.is_remote(*window, w.peer) ? 0 : 1; return;
    case WorldOp::Query: {
      std::vector<Value> args;
      if (window)
        args.push_back(*window);
      else if (!c.args.empty())
        args.push_back(Value::scalar_int(w.value, core::DataType::INT64));
      w.value = port.run_op(c, args).i;
      return;
    }
    case WorldOp::Load: {
      const Value box = port.peer_read(c, *window, w.peer, offsets, extents);
      const std::size_t width = element_bytes(fn, dtype);
      const std::vector<unsigned char> bytes = dtype == core::DataType::FP32
                                                   ? std::vector<unsigned char>()
                                                   : pack(fn, *box.buffer, width);
      const auto* from = dtype == core::DataType::FP32
                             ? reinterpret_cast<const unsigned char*>(box.buffer->f32.data())
                             : bytes.data();
      for (std::int64_t r = 0; r < rows; ++r)
        std::memcpy(tile + static_cast<std::size_t>(r * w.tile.cols) * width,
                    from + static_cast<std::size_t>(r * cols) * width,
                    static_cast<std::size_t>(cols) * width);
      return;
    }
    case WorldOp::Store: {
      Value box = Value::zeros(dtype, extents);
      const std::size_t width = element_bytes(fn, dtype);
      std::vector<unsigned char> bytes(static_cast<std::size_t>(rows * cols) * width);
      for (std::int64_t r = 0; r < rows; ++r)
        std::memcpy(bytes.data() + static_cast<std::size_t>(r * cols) * width,
                    tile + static_cast<std::size_t>(r * w.tile.cols) * width,
                    static_cast<std::size_t>(cols) * width);
      if (dtype == core::DataType::FP32)
        std::memcpy(box.buffer->f32.data(), bytes.data(), bytes.size());
      else
        unpack(bytes, width, *box.buffer);
      port.peer_store(c, *window, w.peer, *box.buffer, offsets);
      return;
    }
    case WorldOp::Notify: port.notify(c, *window, w.peer, offsets, w.value); return;
    case WorldOp::Wait:
    case WorldOp::Collective: {  // the other ranks run meanwhile: they see this one's memory
      unpack_all(call);
      if (op == WorldOp::Wait) {
        port.wait(c, *window, offsets, w.value);
      } else {
        std::vector<Value> args;
        for (std::int64_t k = 0; k < w.count && k < codegen::kWorldMaxOperands; ++k) {
          const codegen::TensorArg* t = w.operands[k];
          const Value* v = t ? argument(call, t) : nullptr;
          if (t && !v)
            fail(fn, c.op->name + " names a tensor that is not one of the kernel's arguments");
          args.push_back(v ? *v : Value::scalar_int(w.values[k], core::DataType::INT64));
        }
        port.run_op(c, args);
      }
      repack_all(call);
      return;
    }
  }
}

PYPTO_DECL const Value* ProgramRunner::argument(const KernelCall& call,
                                                const codegen::TensorArg* t) {
  for (std::size_t k = 0; k < call.tensors->size(); ++k)
    if ((*call.tensors)[k].data == t->data) return &(*call.args)[call.tensor_args[k]];
  return nullptr;
}

PYPTO_DECL const ir::Call& ProgramRunner::site_call(const ir::Function& fn, std::int64_t site) {
  auto it = sites_.find(fn.name);
  if (it == sites_.end())
    it = sites_.emplace(fn.name, codegen::codegen_kernel<codegen::CpuTarget>(fn).fault_sites).first;
  const auto* c = site >= 0 && static_cast<std::size_t>(site) < it->second.size()
                      ? ir::as<ir::Call>(it->second[static_cast<std::size_t>(site)].expr)
                      : nullptr;
  if (!c || !c->op) fail(fn, "made a distributed request at an unknown site");
  return *c;
}

PYPTO_DECL void ProgramRunner::unpack_all(KernelCall& call) {
  for (const Staged& s : *call.staged) unpack(s.bytes, s.width, *s.buffer);
}

PYPTO_DECL void ProgramRunner::repack_all(KernelCall& call) {
  for (Staged& s : *call.staged) {
    const std::vector<unsigned char> fresh = pack(*call.fn, *s.buffer, s.width);
    std::memcpy(s.bytes.data(), fresh.data(), fresh.size());
  }
}

}  // namespace pypto::runtime

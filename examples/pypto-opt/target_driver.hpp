// examples/pypto-opt/target_driver.hpp — pypto-opt's `--target=cpu --run` and
// `--target=npu -o DIR` (issue 8, "Main job"): the lowered program to code, and for the CPU
// target a run of it checked against the un-outlined program.
//
// The stages, each announced by a progress line on stderr:
//   codegen   codegen<Target>(lowered): kernels, registrations, orchestration, kernel_config.py
//   compile   (cpu) every code unit compiled once through the compile cache
//   run       (cpu) the entry function on seeded inputs, kernels running compiled
//   check     (cpu) the same inputs through the reference interpreter on the input program
//             (scopes inline, nothing outlined): every result and every argument buffer must be
//             bit-identical
//   write     (npu) the sources and kernel_config.py into DIR
// Nothing is written into DIR before all code exists; DIR is filled in a staging directory next
// to it and renamed into place, so a failure leaves no half-written DIR (and an existing DIR is
// replaced only when it holds an earlier kernel_config.py).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <pypto/codegen/codegen.hpp>
#include <pypto/codegen/cpu_target.hpp>
#include <pypto/codegen/npu_target.hpp>
#include <pypto/ir/program.hpp>
#include <pypto/runtime/cpu_program.hpp>
#include <pypto/runtime/files.hpp>
#include <pypto/runtime/interpreter.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace pypto_opt {

struct TargetOptions {
  std::string target;                    // "cpu" or "npu"
  bool run = false;                      // cpu: compile and run, check against the reference
  std::optional<std::string> out_dir;    // npu (or cpu): write the generated files here
  std::optional<std::string> cache_dir;  // cpu: the compile cache (default: see cache_directory)
  std::uint64_t seed = 1;
};

/// A target failure the driver reports on one line (exit code 2), or a failed check (exit 1).
struct TargetFailure {
  std::string message;
  bool check_failed = false;
};

/// `--cache-dir`, else $PYPTO_CACHE_DIR, else $XDG_CACHE_HOME/pypto, else $HOME/.cache/pypto,
/// else /tmp/pypto-cache-<uid>.
inline std::string cache_directory(const TargetOptions& o) {
  if (o.cache_dir) return *o.cache_dir;
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : std::string();
  };
  if (auto d = env("PYPTO_CACHE_DIR"); !d.empty()) return d;
  if (auto d = env("XDG_CACHE_HOME"); !d.empty()) return d + "/pypto";
  if (auto d = env("HOME"); !d.empty()) return d + "/.cache/pypto";
  return "/tmp/pypto-cache-" + std::to_string(::getuid());
}

/// The function a run starts at: `main`, else the only Orchestration or Opaque function.
inline std::string entry_function(const pypto::ir::Program& p) {
  if (p.find("main")) return "main";
  std::vector<std::string> candidates;
  for (const auto& [name, fn] : p.functions)
    if (fn->func_type == pypto::ir::FunctionType::Orchestration ||
        fn->func_type == pypto::ir::FunctionType::Opaque)
      candidates.push_back(name);
  if (candidates.size() != 1)
    throw TargetFailure{"--run: cannot tell the entry function (no 'main', " +
                        std::to_string(candidates.size()) + " Orchestration/Opaque functions)"};
  return candidates.front();
}

/// splitmix64: a fixed generator, so inputs are the same on every platform and library.
inline std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Seeded inputs for `fn`'s parameters: FP32 values in [-2, 2) (multiples of 2^-20, so sums are
/// exact often and inexact sometimes), integers in [-8, 8); integer scalars in [1, 4] (loop
/// bounds and dims stay small). A dim must be a constant or a scalar parameter.
inline std::vector<pypto::runtime::Value> seeded_inputs(const pypto::ir::Function& fn,
                                                        std::uint64_t seed) {
  using namespace pypto;
  using runtime::Value;
  std::uint64_t state = seed;
  std::map<const ir::Var*, std::int64_t> scalars;
  std::vector<Value> args(fn.params.size());
  for (std::size_t k = 0; k < fn.params.size(); ++k) {  // scalars first: dims may name them
    const ir::Var& p = *fn.params[k];
    const auto* s = ir::as<ir::ScalarType>(p.type.get());
    if (!s) continue;
    if (s->dtype == core::DataType::FP32) {
      args[k] = Value::scalar_float(static_cast<float>(next_random(state) % 4096) / 1024.0f - 2.0f);
    } else if (core::is_int(s->dtype) || core::is_unsigned_int(s->dtype) ||
               s->dtype == core::DataType::INDEX) {
      const auto v = static_cast<std::int64_t>(1 + next_random(state) % 4);
      args[k] = Value::scalar_int(v, s->dtype);
      scalars[&p] = v;
    } else if (s->dtype == core::DataType::BOOL) {
      args[k] = Value::scalar_bool(next_random(state) % 2 == 1);
    } else {
      throw TargetFailure{"--run: parameter '" + p.name_hint + "' of " + fn.name + " has dtype " +
                          std::string(core::dtype_name(s->dtype)) + ", which --run cannot make"};
    }
  }
  for (std::size_t k = 0; k < fn.params.size(); ++k) {
    const ir::Var& p = *fn.params[k];
    const auto* t = ir::as<ir::TensorType>(p.type.get());
    if (!t) {
      if (!ir::isa<ir::ScalarType>(*p.type))
        throw TargetFailure{"--run: parameter '" + p.name_hint + "' of " + fn.name +
                            " is neither a tensor nor a scalar"};
      continue;
    }
    std::vector<std::int64_t> shape;
    for (const auto& dim : t->shape) {
      if (const auto* c = ir::as<ir::ConstInt>(dim.get())) {
        shape.push_back(c->value);
      } else if (const auto* v = ir::as<ir::Var>(dim.get()); v && scalars.count(v)) {
        shape.push_back(scalars[v]);
      } else {
        throw TargetFailure{"--run: a dim of parameter '" + p.name_hint + "' of " + fn.name +
                            " is neither a constant nor a scalar parameter"};
      }
    }
    Value v = Value::zeros(t->dtype, shape);
    if (t->dtype == core::DataType::FP32) {
      for (float& x : v.buffer->f32)
        x = static_cast<float>(next_random(state) % (1u << 22)) / (1u << 20) - 2.0f;
    } else if (core::is_int(t->dtype)) {
      for (std::int64_t& x : v.buffer->ints)
        x = static_cast<std::int64_t>(next_random(state) % 16) - 8;
    } else {
      throw TargetFailure{"--run: tensor parameter '" + p.name_hint + "' of " + fn.name +
                          " has dtype " + std::string(core::dtype_name(t->dtype)) +
                          ", which --run cannot fill"};
    }
    args[k] = std::move(v);
  }
  return args;
}

inline std::vector<pypto::runtime::Value> deep_copies(const std::vector<pypto::runtime::Value>& v) {
  std::vector<pypto::runtime::Value> out;
  out.reserve(v.size());
  for (const auto& x : v) out.push_back(x.deep_copy());
  return out;
}

/// Prints the registrations, one per line, and the KERNELS configuration.
inline void print_registrations(const pypto::codegen::OrchestrationResult& r, std::ostream& out) {
  using namespace pypto::codegen;
  out << "# kernel registrations (" << r.kernel_registrations.size() << ")\n";
  for (const KernelRegistration& k : r.kernel_registrations) {
    out << "#   func_id " << k.func_id << ": " << k.code_name << " (" << core_type_name(k.core_type)
        << ") [";
    for (std::size_t i = 0; i < k.signature.size(); ++i)
      out << (i ? ", " : "") << runtime_direction_name(k.signature[i]);
    out << "]\n";
  }
  out << "# " << r.kernel_config.path << "\n" << r.kernel_config.text;
}

/// Writes every generated file under `dir` (see the file comment for the staging rule).
inline void write_outputs(const pypto::codegen::OrchestrationResult& r, const std::string& dir) {
  namespace files = pypto::runtime::files;
  std::vector<const pypto::codegen::GeneratedFile*> all;
  for (const auto& f : r.orchestration_sources) all.push_back(&f);
  for (const auto& f : r.kernel_sources) all.push_back(&f);
  all.push_back(&r.kernel_config);
  const bool existed = files::exists(dir);
  if (existed) {
    if (!files::is_directory(dir)) throw TargetFailure{"-o " + dir + ": not a directory"};
    if (!files::list_directory(dir).empty() && !files::exists(dir + "/kernel_config.py"))
      throw TargetFailure{"-o " + dir +
                          ": exists and holds no earlier output (kernel_config.py); not replaced"};
  }
  const std::string staging = dir + ".pypto-staging-" + std::to_string(::getpid());
  try {
    files::remove_tree(staging);
    for (const auto* f : all) {
      const std::string path = staging + "/" + f->path;
      files::make_directories(path.substr(0, path.rfind('/')));
      files::write_atomic(path, f->text);
    }
    const std::string old = dir + ".pypto-old-" + std::to_string(::getpid());
    if (existed && std::rename(dir.c_str(), old.c_str()) != 0)
      throw TargetFailure{"-o " + dir + ": cannot move the earlier output aside"};
    if (std::rename(staging.c_str(), dir.c_str()) != 0) {
      if (existed) std::rename(old.c_str(), dir.c_str());
      throw TargetFailure{"-o " + dir + ": cannot create it"};
    }
    if (existed) files::remove_tree(old);
  } catch (...) {
    files::remove_tree(staging);
    throw;
  }
}

/// Runs the target stages on `lowered` (the pipeline's result) with `input` as the reference.
/// Returns the process exit code; progress goes to `progress`, results to `out`.
inline int run_target(const pypto::ir::Program& input, const pypto::ir::Program& lowered,
                      const TargetOptions& o, std::ostream& out, std::ostream& progress) {
  using namespace pypto;
  const bool cpu = o.target == "cpu";
  const std::string entry = entry_function(lowered);
  progress << "pypto-opt: codegen: target " << o.target << "\n";
  codegen::KernelCodeMap codes;
  const codegen::OrchestrationResult result =
      cpu ? codegen::codegen<codegen::CpuTarget>(lowered, {}, &codes)
          : codegen::codegen<codegen::NpuTarget>(lowered, {}, &codes);
  progress << "pypto-opt: codegen: " << result.kernel_sources.size() << " code units, "
           << result.kernel_registrations.size() << " registrations\n";
  print_registrations(result, out);
  if (o.out_dir) {
    write_outputs(result, *o.out_dir);
    progress << "pypto-opt: write: " << *o.out_dir << " ("
             << result.orchestration_sources.size() + result.kernel_sources.size() + 1
             << " files)\n";
  }
  if (!o.run) return 0;

  const std::string cache_dir = cache_directory(o);
  progress << "pypto-opt: compile: cache " << cache_dir << "\n";
  runtime::CompileCache cache(cache_dir);
  const runtime::CpuProgram program = runtime::CpuProgram::compile(cache, lowered, result, codes);
  out << "# kernels compiled: " << cache.stats().compilations << " (cache hits "
      << cache.stats().hits << ") for " << result.kernel_registrations.size() << " registrations\n";

  const ir::FunctionRef fn = input.find(entry);
  if (!fn) throw TargetFailure{"--run: the input program has no function '" + entry + "'"};
  const std::vector<runtime::Value> inputs = seeded_inputs(*fn, o.seed);
  progress << "pypto-opt: run: " << entry << " on inputs of seed " << o.seed << "\n";
  std::vector<runtime::Value> compiled_args = deep_copies(inputs);
  const std::vector<runtime::Value> compiled = program.run(entry, compiled_args);
  progress << "pypto-opt: check: the input program, scopes interpreted inline\n";
  std::vector<runtime::Value> reference_args = deep_copies(inputs);
  const std::vector<runtime::Value> reference = runtime::run(input, entry, reference_args);

  std::size_t values = 0;
  auto count = [&](const runtime::Value& v) { values += v.buffer ? v.buffer->size() : 1; };
  bool same = compiled.size() == reference.size();
  for (std::size_t i = 0; same && i < compiled.size(); ++i) {
    same = runtime::bit_identical(compiled[i], reference[i]);
    count(compiled[i]);
  }
  for (std::size_t i = 0; same && i < compiled_args.size(); ++i) {
    same = runtime::bit_identical(compiled_args[i], reference_args[i]);
    count(compiled_args[i]);
  }
  if (!same)
    throw TargetFailure{
        "check: the compiled program's outputs differ from the un-outlined "
        "reference on inputs of seed " +
            std::to_string(o.seed),
        /*check_failed=*/true};
  out << "# check: " << entry << " compiled matches the un-outlined reference bit for bit ("
      << compiled.size() << " results, " << compiled_args.size() << " arguments, " << values
      << " values)\n";
  return 0;
}

}  // namespace pypto_opt

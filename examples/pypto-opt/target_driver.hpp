// examples/pypto-opt/target_driver.hpp — pypto-opt's `--target=cpu --run` and
// `--target=npu -o DIR`: the lowered program to code, and for the CPU target a run of it
// checked against the un-outlined program.
//
// The stages, each announced by a progress line on stderr:
//   codegen   codegen<Target>(lowered): kernels, registrations, orchestration, kernel_config.py
//   compile   (cpu) every code unit compiled once through the compile cache
//   run       (cpu) each entry function on seeded inputs (or the --input array files),
//             kernels running compiled
//   check     (cpu) the same inputs through the reference interpreter on the input program
//             (scopes inline, nothing outlined): every result and every argument buffer must be
//             bit-identical
//   save      (cpu, --save=DIR) each argument after the run and each result as a .npy file
//   write     (npu) the sources and kernel_config.py into DIR
// Nothing is written into DIR before all code exists; DIR is filled in a staging directory next
// to it and renamed into place, so a failure leaves no half-written DIR (and an existing DIR is
// replaced only when it holds nothing but earlier output: kernel_config.py, orchestration/,
// kernels/).
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
#include <pypto/ir/visit.hpp>
#include <pypto/runtime/compile_cache.hpp>
#include <pypto/runtime/compiler.hpp>
#include <pypto/runtime/cpu_program.hpp>
#include <pypto/runtime/files.hpp>
#include <pypto/runtime/interpreter.hpp>
#include <pypto/runtime/npy.hpp>
#include <pypto/runtime/seeded_inputs.hpp>
#include <set>
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
  pypto::runtime::IntRange ints;              // cpu: signed integer inputs in [low, high)
  pypto::runtime::SymbolExtents symbols;      // cpu: shape symbols' extents in the inputs (--dim)
  std::map<std::string, std::string> inputs;  // cpu: parameter name -> .npy file (--input)
  std::optional<std::string> save_dir;        // cpu: where the run's values go (--save)
  std::int64_t world = 1;                     // cpu: the ranks of a distributed run (--world)
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

/// The include root generated kernels compile against: next to an installed pypto-opt
/// (<prefix>/bin/../include) unless $PYPTO_INCLUDE_DIR is set; otherwise the runtime's own
/// lookup (the environment, then where the headers were when pypto-opt was built).
inline std::optional<std::string> kernel_include_dir() {
  if (const char* e = std::getenv("PYPTO_INCLUDE_DIR"); e && *e) return std::nullopt;
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return std::nullopt;
  const std::string exe(buf, static_cast<std::size_t>(n));
  const std::string dir = exe.substr(0, exe.rfind('/')) + "/../include";
  if (pypto::runtime::files::exists(dir + "/pypto/codegen/kernel_abi.hpp")) return dir;
  return std::nullopt;
}

/// The functions a run starts at: `main`, else the only Orchestration or Opaque function, else
/// those of them no function calls (a host orchestration over the others, or independent
/// entries, each run in turn).
inline std::vector<std::string> entry_functions(const pypto::ir::Program& p) {
  if (p.find("main")) return {"main"};
  std::vector<std::string> candidates;
  std::set<std::string> called;
  for (const auto& [name, fn] : p.functions) {
    if (fn->func_type == pypto::ir::FunctionType::Orchestration ||
        fn->func_type == pypto::ir::FunctionType::Opaque)
      candidates.push_back(name);
    pypto::ir::for_each_node(fn->body, [&](const pypto::ir::Node& n) {
      const pypto::ir::Op* callee = nullptr;
      if (const auto* c = pypto::ir::as<pypto::ir::Call>(&n)) callee = c->op.get();
      if (const auto* c = pypto::ir::as<pypto::ir::Submit>(&n)) callee = c->op.get();
      if (const auto* g = pypto::ir::as<pypto::ir::GlobalVar>(callee)) called.insert(g->name);
    });
  }
  if (candidates.size() == 1) return candidates;
  std::vector<std::string> roots;
  for (const std::string& c : candidates)
    if (!called.count(c)) roots.push_back(c);
  if (roots.empty())
    throw TargetFailure{"--run: cannot tell the entry function (no 'main', " +
                        std::to_string(candidates.size()) +
                        " Orchestration/Opaque functions, each called by another)"};
  return roots;
}

/// `entry` when it is an Orchestration function, else the first one it calls (in body order),
/// else `entry`.
inline std::string orchestration_of(const pypto::ir::Program& p, const std::string& entry) {
  const pypto::ir::FunctionRef fn = p.find(entry);
  if (!fn || fn->func_type == pypto::ir::FunctionType::Orchestration) return entry;
  std::string first;
  pypto::ir::for_each_node(fn->body, [&](const pypto::ir::Node& n) {
    const auto* c = pypto::ir::as<pypto::ir::Call>(&n);
    const auto* g = c ? pypto::ir::as<pypto::ir::GlobalVar>(c->op.get()) : nullptr;
    if (!g || !first.empty()) return;
    if (const pypto::ir::FunctionRef callee = p.find(g->name);
        callee && callee->func_type == pypto::ir::FunctionType::Orchestration)
      first = g->name;
  });
  return first.empty() ? entry : first;
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
    for (const std::string& entry : files::list_directory(dir))
      if (entry != "kernel_config.py" && entry != "orchestration" && entry != "kernels")
        throw TargetFailure{"-o " + dir + ": holds '" + entry +
                            "', which is not earlier output of pypto-opt; not replaced"};
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

/// The --input files of `fn`'s parameters, read as their dtypes.
inline pypto::runtime::GivenInputs given_inputs(const pypto::ir::Function& fn,
                                                const TargetOptions& o) {
  using namespace pypto;
  runtime::GivenInputs given;
  for (const auto& p : fn.params) {
    auto file = o.inputs.find(p->name_hint);
    if (file == o.inputs.end()) continue;
    const auto* shaped = ir::as<ir::ShapedType>(p->type.get());
    const auto* scalar = ir::as<ir::ScalarType>(p->type.get());
    if (!shaped && !scalar)
      throw TargetFailure{"--input=" + file->first + ": parameter '" + p->name_hint + "' of " +
                          fn.name + " is neither a tensor, a tile nor a scalar"};
    given[p->name_hint] = runtime::read_npy(
        runtime::files::read(file->second), shaped ? shaped->dtype : scalar->dtype,
        shaped && ir::isa<ir::TileType>(*p->type), file->second);
  }
  return given;
}

/// Writes `args` (by parameter name) and `results` (result_K) of `fn` into `dir` as .npy files;
/// values with no array form (tuples, arrays) are skipped. Returns the number of files.
inline std::size_t save_values(const pypto::ir::Function& fn,
                               const std::vector<pypto::runtime::Value>& args,
                               const std::vector<pypto::runtime::Value>& results,
                               const std::string& dir) {
  using namespace pypto::runtime;
  files::make_directories(dir);
  std::size_t written = 0;
  auto save = [&](const Value& v, const std::string& name) {
    if (v.kind != ValueKind::Scalar && !v.is_shaped()) return;
    files::write_atomic(dir + "/" + name + ".npy", write_npy(v));
    ++written;
  };
  for (std::size_t k = 0; k < args.size() && k < fn.params.size(); ++k)
    save(args[k], fn.params[k]->name_hint);
  for (std::size_t k = 0; k < results.size(); ++k) save(results[k], "result_" + std::to_string(k));
  return written;
}

/// Runs `entry` compiled and interpreted on the same inputs (seeded, or given by --input); a
/// TargetFailure unless every result and argument is bit-identical. With --save, writes the
/// compiled run's values into DIR (DIR/ENTRY when the program has several entries).
inline void check_entry(const pypto::ir::Program& input, const pypto::runtime::CpuProgram& program,
                        const std::string& entry, const TargetOptions& o, bool several,
                        std::ostream& out, std::ostream& progress) {
  using namespace pypto;
  const ir::FunctionRef fn = input.find(entry);
  if (!fn) throw TargetFailure{"--run: the input program has no function '" + entry + "'"};
  const runtime::GivenInputs given = given_inputs(*fn, o);
  const std::vector<runtime::Value> inputs =
      runtime::seeded_inputs(*fn, o.seed, o.ints, o.symbols, given);
  std::string from_files;
  for (const auto& g : given) from_files += (from_files.empty() ? "" : ", ") + g.first;
  progress << "pypto-opt: run: " << entry << " on inputs of seed " << o.seed
           << (from_files.empty() ? "" : " (" + from_files + " from --input)") << "\n";
  std::vector<runtime::Value> compiled_args = deep_copies(inputs);
  const std::vector<runtime::Value> compiled = program.run(entry, compiled_args, o.world);
  progress << "pypto-opt: check: the input program, scopes interpreted inline\n";
  std::vector<runtime::Value> reference_args = deep_copies(inputs);
  runtime::RunOptions reference_options;
  reference_options.world_size = o.world;
  const std::vector<runtime::Value> reference =
      runtime::run(input, entry, reference_args, reference_options);

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
  if (o.save_dir) {
    const std::string dir = several ? *o.save_dir + "/" + entry : *o.save_dir;
    const std::size_t n = save_values(*fn, compiled_args, compiled, dir);
    progress << "pypto-opt: save: " << dir << " (" << n << " files)\n";
  }
}

/// Runs the target stages on `lowered` (the pipeline's result) with `input` as the reference.
/// Returns the process exit code; progress goes to `progress`, results to `out`.
inline int run_target(const pypto::ir::Program& input, const pypto::ir::Program& lowered,
                      const TargetOptions& o, std::ostream& out, std::ostream& progress) {
  using namespace pypto;
  const bool cpu = o.target == "cpu";
  const std::vector<std::string> entries = entry_functions(lowered);
  for (const auto& [name, file] : o.inputs) {  // every --input names some entry's parameter
    bool found = false;
    for (const std::string& e : entries)
      if (const ir::FunctionRef fn = input.find(e))
        for (const auto& p : fn->params) found = found || p->name_hint == name;
    if (!found)
      throw TargetFailure{"--input=" + name + "=" + file + ": no entry function has a parameter '" +
                          name + "'"};
  }
  const std::string& entry = entries.front();
  progress << "pypto-opt: codegen: target " << o.target << "\n";
  codegen::KernelCodeMap codes;
  // kernel_config.py points at the run's entry when there are several orchestrations.
  std::size_t orchestrations = 0;
  for (const auto& f : lowered.functions)
    orchestrations += f.function->func_type == ir::FunctionType::Orchestration;
  // A host orchestrator over several of them names the first it calls.
  std::string config_entry;
  if (orchestrations > 1) config_entry = orchestration_of(lowered, entry);
  const codegen::OrchestrationResult result =
      cpu ? codegen::codegen<codegen::CpuTarget>(lowered, config_entry, &codes)
          : codegen::codegen<codegen::NpuTarget>(lowered, config_entry, &codes);
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
  runtime::CompileCache cache(cache_dir,
                              runtime::find_compiler(std::nullopt, kernel_include_dir()));
  const runtime::CpuProgram program = runtime::CpuProgram::compile(cache, lowered, result, codes);
  out << "# kernels compiled: " << cache.stats().compilations << " (cache hits "
      << cache.stats().hits << ") for " << result.kernel_registrations.size() << " registrations\n";

  for (const std::string& run_entry : entries)
    check_entry(input, program, run_entry, o, entries.size() > 1, out, progress);
  return 0;
}

}  // namespace pypto_opt

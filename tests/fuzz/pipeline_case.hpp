// The pass fuzzer's oracle: one program through the whole tensor pipeline, every stage checked.
//
// For a program: the print → parse round trip; the reference interpreter on seeded inputs; the
// pipeline (kCodegenPipeline) under the verify-each instrument, the program after every pass run
// on the same inputs and required bit-identical (results and Out / InOut buffers) to the
// reference; every dedup merge proven by running the alias and its survivor on seeded inputs of
// the alias; optionally the CPU target: codegen, compile, run, bit-identical again. The first
// failure is a Finding (stage, kind, message); the coverage of the run is added to `Coverage`.
//
// Strict (generated programs): every error is a finding, since the program is valid by
// construction. Lenient (the libFuzzer parser target): a typed refusal (core::Error other than
// InternalError) of a pass or the interpreter ends the case quietly; an InternalError, any other
// exception, a verifier failure or a difference is still a finding.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "pypto/codegen/codegen.hpp"
#include "pypto/codegen/codegen_error.hpp"
#include "pypto/codegen/cpu_target.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/runtime/compile_cache.hpp"
#include "pypto/runtime/cpu_program.hpp"
#include "pypto/runtime/interpreter.hpp"
#include "pypto/runtime/seeded_inputs.hpp"
#include "pypto/text/parse_error.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"
#include "pypto/transforms/deduplicate_outlined_kernels.hpp"
#include "pypto/transforms/pass_instruments.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"

namespace pypto::fuzz {

struct Finding {
  std::string stage;    ///< "parse", "reference run", "pass outline-incore-scopes", "cpu run", ...
  std::string kind;     ///< "ParseError", "difference", "InternalError", ...
  std::string message;  ///< what happened, with the position or field path the error gave
  /// The program parsed and ran on the reference interpreter before the failure: a shrunk
  /// program must too (or it may fail the same way only because it became invalid).
  bool valid = false;
  /// Stage, kind and the message without its numbers and quoted names: what a shrunk program
  /// must still show.
  std::string signature() const {
    std::string m;
    bool quoted = false;
    for (char c : message) {
      if (c == '\'') {
        quoted = !quoted;
        m += c;
      } else if (!quoted && !(c >= '0' && c <= '9')) {
        m += c;
      }
    }
    return stage + " | " + kind + " | " + m;
  }
};

/// What the runs reached: in how many programs each node kind, op and pass occurred.
struct Coverage {
  std::map<std::string, std::size_t> node_kinds, ops, passes, notes;
  void note(const std::string& what) { ++notes[what]; }
};

struct CaseOptions {
  bool strict = true;
  int seeds = 2;
  /// Bounds of a lenient case's runs (a program nobody generated may loop for ever or declare
  /// tensors of any size): more statements is a typed refusal, larger inputs are not run.
  std::uint64_t max_statements = 2'000'000;
  std::uint64_t max_input_elements = std::uint64_t{1} << 22;
  runtime::CompileCache* cpu = nullptr;  ///< null: the CPU target is not tried
};

namespace detail {

inline std::string error_kind(const std::exception& e) {
  if (dynamic_cast<const core::InternalError*>(&e)) return "InternalError";
  if (dynamic_cast<const transforms::PassVerificationError*>(&e)) return "PassVerificationError";
  if (dynamic_cast<const text::ParseError*>(&e)) return "ParseError";
  if (dynamic_cast<const runtime::RuntimeError*>(&e)) return "RuntimeError";
  if (dynamic_cast<const runtime::KernelFaultError*>(&e)) return "KernelFaultError";
  if (dynamic_cast<const runtime::CompileError*>(&e)) return "CompileError";
  if (dynamic_cast<const codegen::CodegenError*>(&e)) return "CodegenError";
  if (dynamic_cast<const core::TypeError*>(&e)) return "TypeError";
  if (dynamic_cast<const core::ValueError*>(&e)) return "ValueError";
  if (dynamic_cast<const core::Error*>(&e)) return "Error";
  return std::string("non-pypto exception ") + typeid(e).name();
}

/// True when a lenient case may stop quietly on `e`.
inline bool typed_refusal(const std::exception& e) {
  return dynamic_cast<const core::Error*>(&e) && !dynamic_cast<const core::InternalError*>(&e) &&
         !dynamic_cast<const transforms::PassVerificationError*>(&e);
}

struct Outcome {
  std::vector<runtime::Value> results, args;
};

inline Outcome run_on(const ir::Program& p, std::string_view fn,
                      const std::vector<runtime::Value>& inputs,
                      const runtime::RunOptions& options = {}) {
  Outcome o;
  for (const auto& a : inputs) o.args.push_back(a.deep_copy());
  o.results = runtime::run(p, fn, o.args, options);
  return o;
}

/// The elements of `fn`'s tensor parameters with constant shapes (a shape symbol counts 64,
/// the most seeded_inputs gives), saturating.
inline std::uint64_t input_elements(const ir::Function& fn) {
  std::uint64_t total = 0;
  for (const auto& p : fn.params) {
    const auto* t = ir::as<ir::ShapedType>(p->type.get());
    if (!t) continue;
    std::uint64_t n = 1;
    for (const auto& d : t->shape) {
      const auto* c = ir::as<ir::ConstInt>(d.get());
      const std::uint64_t e =
          c ? static_cast<std::uint64_t>(std::max<std::int64_t>(c->value, 0)) : 64;
      n = e != 0 && n > (std::uint64_t{1} << 40) / e ? (std::uint64_t{1} << 40) : n * e;
    }
    total = std::min(total + n, std::uint64_t{1} << 40);
  }
  return total;
}

/// Where two values that are not bit-identical first differ: the flat element index and both
/// values (floats with their bits), so a finding says what it is without a rerun.
inline std::string where_different(const runtime::Value& want, const runtime::Value& got) {
  if (want.kind != got.kind || !want.buffer || !got.buffer) return "";
  const runtime::Buffer &x = *want.buffer, &y = *got.buffer;
  if (x.shape != y.shape || x.dtype != y.dtype) return " (shape or dtype)";
  const auto show = [](float f) {
    char s[64];
    std::snprintf(s, sizeof s, "%.9g [0x%08x]", static_cast<double>(f),
                  static_cast<unsigned>(kernel::float_bits(f)));
    return std::string(s);
  };
  for (std::size_t k = 0; k < x.f32.size() && k < y.f32.size(); ++k)
    if (runtime::comparable_bits(x.f32[k]) != runtime::comparable_bits(y.f32[k]))
      return " at element " + std::to_string(k) + ": " + show(y.f32[k]) + ", expected " +
             show(x.f32[k]);
  for (std::size_t k = 0; k < x.ints.size() && k < y.ints.size(); ++k)
    if (x.ints[k] != y.ints[k])
      return " at element " + std::to_string(k) + ": " + std::to_string(y.ints[k]) + ", expected " +
             std::to_string(x.ints[k]);
  return "";
}

/// "" when equal, else which value differs, and where.
inline std::string difference(const Outcome& want, const Outcome& got) {
  if (want.results.size() != got.results.size())
    return std::to_string(got.results.size()) + " results, expected " +
           std::to_string(want.results.size());
  for (std::size_t k = 0; k < want.results.size(); ++k)
    if (!runtime::bit_identical(want.results[k], got.results[k]))
      return "result " + std::to_string(k) + " differs" +
             where_different(want.results[k], got.results[k]);
  for (std::size_t k = 0; k < want.args.size() && k < got.args.size(); ++k)
    if (!runtime::bit_identical(want.args[k], got.args[k]))
      return "argument " + std::to_string(k) + " differs" +
             where_different(want.args[k], got.args[k]);
  return {};
}

inline std::string entry_of(const ir::Program& p) {
  if (p.find("main")) return "main";
  for (const auto& f : p.functions)
    if (f.function->func_type == ir::FunctionType::Opaque ||
        f.function->func_type == ir::FunctionType::Orchestration)
      return f.function->name;
  return {};
}

inline void cover(const ir::Program& p, Coverage& cov) {
  std::map<std::string, std::size_t> kinds, ops;
  ir::for_each_node(ir::NodeRef(&p), [&](const ir::Node& n) {
    kinds[std::string(ir::kind_name(n.kind()))] = 1;
    if (const auto* c = ir::as<ir::Call>(&n)) ops[c->op->name] = 1;
  });
  for (const auto& [k, v] : kinds) cov.node_kinds[k] += v;
  for (const auto& [k, v] : ops) cov.ops[k] += v;
}

}  // namespace detail

namespace detail {

inline std::optional<Finding> pipeline_case(const ir::Program& program, const CaseOptions& opt,
                                            Coverage& cov, bool& valid) {
  using detail::error_kind;
  auto fail = [&](std::string stage, const std::exception& e) -> std::optional<Finding> {
    if (!opt.strict && detail::typed_refusal(e)) {
      cov.note("refused at " + stage);
      return std::nullopt;
    }
    return Finding{std::move(stage), error_kind(e), e.what()};
  };
  detail::cover(program, cov);
  try {
    text::check_round_trip(program);
  } catch (const std::exception& e) {
    if (!opt.strict && std::string_view(e.what()).find("nests deeper than") != std::string::npos)
      return std::nullopt;
    return Finding{"round trip", error_kind(e), e.what()};
  }

  // The reference runs.
  const std::string entry = detail::entry_of(program);
  std::vector<std::vector<runtime::Value>> inputs;
  std::vector<detail::Outcome> reference;
  runtime::RunOptions run_options;
  runtime::RunOptions stage_options;  // a transformed program executes a few more statements
  if (!opt.strict) {
    run_options.max_statements = opt.max_statements;
    stage_options.max_statements = 4 * opt.max_statements;
  }
  const bool runnable =
      !entry.empty() &&
      (opt.strict || detail::input_elements(*program.find(entry)) <= opt.max_input_elements);
  if (runnable) {
    try {
      for (int s = 1; s <= opt.seeds; ++s) {
        inputs.push_back(
            runtime::seeded_inputs(*program.find(entry), static_cast<std::uint64_t>(s)));
        reference.push_back(detail::run_on(program, entry, inputs.back(), run_options));
      }
    } catch (const std::exception& e) {
      if (auto f = fail("reference run", e)) return f;
      inputs.clear();
      reference.clear();
    }
  }

  valid = !reference.empty();

  // The printed text means what the program means (the natural form's names are its meaning).
  if (!reference.empty()) {
    try {
      const ir::ProgramRef again = text::parse_program(text::print(program));
      for (std::size_t s = 0; s < reference.size(); ++s) {
        const std::string d =
            detail::difference(reference[s], detail::run_on(*again, entry, inputs[s], run_options));
        if (!d.empty())
          return Finding{"round trip", "difference", d + " (seed " + std::to_string(s + 1) + ")"};
      }
    } catch (const std::exception& e) {
      return Finding{"round trip run", error_kind(e), e.what()};
    }
  }

  // The pipeline, every pass's output kept (the dedup pass with a log of its merges).
  transforms::DedupLog log;
  std::vector<transforms::Pass> passes;
  for (auto& p : transforms::standard_passes().pipeline(transforms::kCodegenPipeline)) {
    if (p.name() == "deduplicate-outlined-kernels") {
      transforms::DedupOptions d;
      d.on_event = log.sink();
      passes.push_back(transforms::DeduplicateOutlinedKernels(std::move(d)));
    } else {
      passes.push_back(std::move(p));
    }
  }
  // Lenient: an input that already fails what verify-each checks after every pass (bindings,
  // the properties that always hold) is the user's error, reported as such by the first pass.
  if (!opt.strict) {
    try {
      transforms::verify_each_instrument()(passes.front(), program, transforms::PropertySet{});
    } catch (const transforms::PassVerificationError&) {
      cov.note("refused: the input fails verify-each");
      return std::nullopt;
    }
  }
  std::vector<std::pair<std::string, ir::ProgramRef>> stages;
  transforms::PassManagerOptions pm;
  pm.instruments.push_back(transforms::verify_each_instrument());
  pm.instruments.push_back(
      [&](const transforms::Pass& pass, const ir::Program& q, transforms::PropertySet) {
        stages.emplace_back(std::string(pass.name()), ir::ProgramRef(&q));
      });
  const std::size_t total = passes.size();
  std::vector<std::string> names;
  for (const auto& p : passes) names.emplace_back(p.name());
  try {
    transforms::PassManager(std::move(passes), std::move(pm)).run(program);
  } catch (const std::exception& e) {
    // The pass that threw: the first without an output (verify-each failures name theirs).
    const std::string at = stages.size() < total ? names[stages.size()] : names.back();
    if (auto f = fail("pass " + at, e)) return f;
  }
  for (const auto& [name, p] : stages) cov.passes[name] += 1;
  if (stages.size() == total) cov.passes["(whole pipeline)"] += 1;

  // Every stage means what the program means.
  for (const auto& [name, p] : stages) {
    for (std::size_t s = 0; s < reference.size(); ++s) {
      try {
        const std::string d =
            detail::difference(reference[s], detail::run_on(*p, entry, inputs[s], stage_options));
        if (!d.empty())
          return Finding{"after " + name, "difference",
                         d + " (seed " + std::to_string(s + 1) + ")"};
      } catch (const std::exception& e) {
        return Finding{"run after " + name, error_kind(e), e.what()};
      }
    }
  }

  // Every merge: the alias and its survivor compute the same on the alias's inputs.
  const ir::Program* before_dedup = nullptr;
  for (const auto& [name, p] : stages)
    if (name == "outline-cluster-scopes") before_dedup = p.get();
  for (const auto& e : log.events()) {
    if (e.kind != transforms::DedupEvent::Kind::Merged || !before_dedup) continue;
    for (const auto& [alias, survivor] : e.renamed) {
      const ir::FunctionRef a = before_dedup->find(alias);
      if (!a || !before_dedup->find(survivor)) {
        return Finding{"dedup proof", "missing function", alias + " <- " + survivor};
      }
      for (int s = 1; s <= opt.seeds; ++s) {
        std::vector<runtime::Value> in;
        detail::Outcome want;
        try {
          in = runtime::seeded_inputs(*a, static_cast<std::uint64_t>(s));
          want = detail::run_on(*before_dedup, alias, in, stage_options);
        } catch (const std::exception&) {
          cov.note("dedup proof: alias not runnable alone");
          break;  // the alias cannot run alone on seeded inputs: its callers' runs prove it
        }
        try {
          const std::string d =
              detail::difference(want, detail::run_on(*before_dedup, survivor, in, stage_options));
          if (!d.empty())
            return Finding{"dedup proof", "difference", survivor + " serves " + alias + ": " + d};
        } catch (const std::exception& ex) {
          return Finding{"dedup proof", error_kind(ex),
                         survivor + " serves " + alias + ": " + ex.what()};
        }
      }
      cov.note("dedup merges proven");
    }
  }

  // The CPU target.
  if (opt.cpu && stages.size() == total && !reference.empty()) {
    const ir::Program& lowered = *stages.back().second;
    codegen::KernelCodeMap codes;
    std::optional<codegen::OrchestrationResult> code;
    try {
      code = codegen::codegen<codegen::CpuTarget>(lowered, {}, &codes);
    } catch (const std::exception& e) {
      if (dynamic_cast<const codegen::CodegenError*>(&e)) {
        std::string why = e.what();
        why = why.substr(why.find(": ") == std::string::npos ? 0 : why.find(": ") + 2, 70);
        cov.note("cpu: codegen refused: " + why);
        return std::nullopt;
      }
      return Finding{"cpu codegen", error_kind(e), e.what()};
    }
    try {
      const auto compiled = runtime::CpuProgram::compile(*opt.cpu, lowered, *code, codes);
      for (std::size_t s = 0; s < reference.size(); ++s) {
        detail::Outcome got;
        for (const auto& a : inputs[s]) got.args.push_back(a.deep_copy());
        got.results = compiled.run(entry, got.args);
        const std::string d = detail::difference(reference[s], got);
        if (!d.empty())
          return Finding{"cpu run", "difference", d + " (seed " + std::to_string(s + 1) + ")"};
      }
      cov.note("cpu: compiled and run");
    } catch (const std::exception& e) {
      return Finding{"cpu run", error_kind(e), e.what()};
    }
  }
  return std::nullopt;
}

}  // namespace detail

/// The pipeline on `program`; the first failure, or nothing.
inline std::optional<Finding> pipeline_case(const ir::Program& program, const CaseOptions& opt,
                                            Coverage& cov) {
  bool valid = false;
  std::optional<Finding> f = detail::pipeline_case(program, opt, cov, valid);
  if (f) f->valid = valid;
  return f;
}

/// Parses `text` first: a ParseError is a finding when strict, the end of the case otherwise.
inline std::optional<Finding> pipeline_case(std::string_view text, const CaseOptions& opt,
                                            Coverage& cov) {
  ir::ProgramRef program;
  try {
    program = text::parse_program(text);
  } catch (const std::exception& e) {
    if (!opt.strict && dynamic_cast<const text::ParseError*>(&e)) return std::nullopt;
    return Finding{"parse", detail::error_kind(e), e.what()};
  }
  return pipeline_case(*program, opt, cov);
}

}  // namespace pypto::fuzz

// pypto-opt — the command-line driver: reads a program, runs passes, prints the result.
//
//   pypto-opt [FILE|-] [--passes=p1,p2,...] [-o OUT] [--list-passes] [--print-after-all]
//             [--verify-each] [--pass-timing] [--assert-equal EXPECTED_FILE] [--concise]
//             [--assume=PROP,...] [--debug-dedup]
//             [--target=cpu|npu] [--run] [--cache-dir=DIR] [--seed=N]
//             [--nonnegative-ints | --int-range=LO,HI] [--dim=NAME=N]... [--define=NAME=VALUE]...
//             [--input=NAME=FILE.npy]... [--save=DIR] [--world=N]
//
// Input is FILE, stdin for `-`, or the embedded default program (default_program.hpp) when no
// FILE is given. The result goes to stdout or OUT; --print-after-all and --pass-timing write to
// stderr. Exit codes: 0 success; 1 a check failed (--assert-equal mismatch, --verify-each
// failure); 2 a usage or input error (unknown flag or pass, unreadable file, parse error shown
// as `FILE:line:column: message`, a pipeline whose required properties do not hold, a pass
// rejecting the program, a kernel the target cannot express, a compiler failure). Every failure
// is reported on stderr, first line `pypto-opt: ...` or `FILE:line:column: ...`.
//
// With --target the passes default to the whole tensor pipeline (transforms::kCodegenPipeline),
// the result is printed, then target_driver.hpp generates code: `-o DIR` writes it into DIR, and
// `--run` (cpu) compiles each code unit once, runs the program and checks it against the input
// program interpreted with its scopes inline (a mismatch exits 1).
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <pypto/core/error.hpp>
#include <pypto/ir/op_registry.hpp>
#include <pypto/structural/compare.hpp>
#include <pypto/text/host_values.hpp>
#include <pypto/text/parse_error.hpp>
#include <pypto/text/parser.hpp>
#include <pypto/text/printer.hpp>
#include <pypto/transforms/deduplicate_outlined_kernels.hpp>
#include <pypto/transforms/pass_instruments.hpp>
#include <pypto/transforms/pass_manager.hpp>
#include <pypto/transforms/pass_registry.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "default_program.hpp"
#include "target_driver.hpp"

namespace {

constexpr int kSuccess = 0;
constexpr int kCheckFailed = 1;
constexpr int kUsageError = 2;

constexpr const char* kUsage =
    "usage: pypto-opt [FILE|-] [options]\n"
    "\n"
    "Reads a program in the pl text format (FILE, `-` for stdin, or the embedded default\n"
    "program: two InCore scopes computing the same sum), runs the passes and prints the result.\n"
    "\n"
    "options:\n"
    "  --passes=P1,P2,...        run these passes in order (see --list-passes); options in\n"
    "                            braces: convert-tensor-to-tile-ops{arch=a5}\n"
    "  -o OUT                    write the result to OUT instead of stdout\n"
    "  --list-passes             list the passes and exit\n"
    "  --list-ops                list the registered ops (arguments, effects, keywords, the\n"
    "                            DSL's other spellings) and exit\n"
    "  --print-after-all         print the program after each pass (to stderr)\n"
    "  --verify-each             after each pass: binding verifier, text round trip, property\n"
    "                            verifiers\n"
    "  --pass-timing             report the wall time of each pass (to stderr)\n"
    "  --assert-equal EXPECTED   exit 1 unless the result is structurally equal to EXPECTED\n"
    "  --concise                 omit type annotations on assignments\n"
    "  --assume=P1,P2,...        properties that hold on the input (e.g. SSAForm)\n"
    "  --debug-dedup             deduplicate-outlined-kernels reports merges and skips with\n"
    "                            their reasons (to stderr, lines `dedup: ...`)\n"
    "  --target=cpu|npu          generate code after the passes (default passes: the whole\n"
    "                            pipeline); prints the kernel registrations and KERNELS rows;\n"
    "                            with -o DIR, writes the orchestration and kernel sources and\n"
    "                            kernel_config.py into DIR instead of the program text\n"
    "  --run                     (--target=cpu) compile each kernel once, run the program on\n"
    "                            seeded inputs, check it against the input program interpreted\n"
    "                            with its scopes inline (exit 1 on a mismatch)\n"
    "  --cache-dir=DIR           (--run) the compile cache (default $PYPTO_CACHE_DIR, else\n"
    "                            ~/.cache/pypto)\n"
    "  --seed=N                  (--run) the seed of the inputs (default 1)\n"
    "  --nonnegative-ints        (--run) signed integer inputs in [0, 16) instead of [-8, 8)\n"
    "  --int-range=LO,HI         (--run) signed integer inputs in [LO, HI) (an index tensor's\n"
    "                            extent: --int-range=0,8)\n"
    "  --dim=NAME=N              (--run, repeatable) the shape symbol NAME has extent N in the\n"
    "                            inputs (default: 16, 32, 48 or 64, seeded)\n"
    "  --input=NAME=FILE         (--run, repeatable) parameter NAME's value is the NumPy .npy\n"
    "                            array in FILE (a 0-d array for a scalar) instead of seeded;\n"
    "                            its extents bind the shape symbols of NAME's type\n"
    "  --world=N                 (--run) run a distributed program's devices as N ranks side by\n"
    "                            side (default 1)\n"
    "  --save=DIR                (--run) write each argument after the run (DIR/NAME.npy) and\n"
    "                            each result (DIR/result_K.npy); several entries: DIR/ENTRY/\n"
    "  --define=NAME=VALUE       (repeatable) the text's unbound name NAME reads as the Python\n"
    "                            expression VALUE (`--define=rows=64 --define=dtype=pl.FP16`),\n"
    "                            as a host's closure gives it\n"
    "  --help                    show this message\n"
    "\n"
    "exit codes: 0 success, 1 check failed, 2 usage or input error\n";

struct Options {
  std::optional<std::string> input;  // a path, "-" for stdin; none = the default program
  std::string passes;
  std::optional<std::string> output;
  std::optional<std::string> expected;
  bool list_passes = false;
  bool list_ops = false;
  bool print_after_all = false;
  bool verify_each = false;
  bool pass_timing = false;
  bool concise = false;
  bool debug_dedup = false;
  std::string assume;
  std::map<std::string, std::string> host_values;  // --define
  pypto_opt::TargetOptions target;
  bool help = false;
};

/// A usage or input error: reported as one line, exit code 2. A message that starts with its
/// own location (`FILE:line:column: ...`) is printed as is, others after `pypto-opt: `.
struct UsageError {
  std::string message;
  bool located = false;
};

/// `--name=value` or `--name value` (and `-o value`); advances `i` past a separate value.
std::optional<std::string> option_value(int argc, char** argv, int& i, std::string_view name) {
  const std::string_view arg = argv[i];
  if (arg == name) {
    if (i + 1 >= argc) throw UsageError{"option '" + std::string(name) + "' needs a value"};
    return std::string(argv[++i]);
  }
  if (arg.size() > name.size() && arg.substr(0, name.size()) == name && arg[name.size()] == '=')
    return std::string(arg.substr(name.size() + 1));
  return std::nullopt;
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else if (arg == "--list-passes") {
      o.list_passes = true;
    } else if (arg == "--list-ops") {
      o.list_ops = true;
    } else if (arg == "--print-after-all") {
      o.print_after_all = true;
    } else if (arg == "--verify-each") {
      o.verify_each = true;
    } else if (arg == "--pass-timing") {
      o.pass_timing = true;
    } else if (arg == "--concise") {
      o.concise = true;
    } else if (arg == "--debug-dedup") {
      o.debug_dedup = true;
    } else if (arg == "--nonnegative-ints") {
      o.target.ints = {0, 16};
    } else if (arg == "--run") {
      o.target.run = true;
    } else if (auto t = option_value(argc, argv, i, "--target")) {
      if (*t != "cpu" && *t != "npu")
        throw UsageError{"unknown target '" + *t + "' (known: cpu, npu)"};
      o.target.target = *t;
    } else if (auto dir = option_value(argc, argv, i, "--cache-dir")) {
      o.target.cache_dir = *dir;
    } else if (auto range = option_value(argc, argv, i, "--int-range")) {
      const std::size_t comma = range->find(',');
      char* end_low = nullptr;
      char* end_high = nullptr;
      errno = 0;  // strtoll saturates out-of-range numbers; ERANGE says so
      const long long low = std::strtoll(range->c_str(), &end_low, 10);
      const long long high =
          comma == std::string::npos ? 0 : std::strtoll(range->c_str() + comma + 1, &end_high, 10);
      if (comma == std::string::npos || comma == 0 || end_low != range->c_str() + comma ||
          comma + 1 == range->size() || *end_high != '\0' || errno == ERANGE || high <= low)
        throw UsageError{"--int-range: '" + *range + "' is not LO,HI with LO < HI"};
      o.target.ints = {low, high};
    } else if (auto dim = option_value(argc, argv, i, "--dim")) {
      const std::size_t eq = dim->find('=');
      char* end = nullptr;
      const long long n =
          eq == std::string::npos ? -1 : std::strtoll(dim->c_str() + eq + 1, &end, 10);
      if (eq == std::string::npos || eq == 0 || eq + 1 == dim->size() || *end != '\0' || n < 0)
        throw UsageError{"--dim: '" + *dim + "' is not NAME=N with N a nonnegative number"};
      o.target.symbols[dim->substr(0, eq)] = n;
    } else if (auto in = option_value(argc, argv, i, "--input")) {
      const std::size_t eq = in->find('=');
      if (eq == 0 || eq == std::string::npos || eq + 1 == in->size())
        throw UsageError{"--input: '" + *in + "' is not NAME=FILE"};
      if (!o.target.inputs.emplace(in->substr(0, eq), in->substr(eq + 1)).second)
        throw UsageError{"--input: parameter '" + in->substr(0, eq) + "' given twice"};
    } else if (auto dir = option_value(argc, argv, i, "--save")) {
      o.target.save_dir = *dir;
    } else if (auto def = option_value(argc, argv, i, "--define")) {
      const std::size_t eq = def->find('=');
      if (eq == std::string::npos || eq == 0)
        throw UsageError{"--define: '" + *def + "' is not NAME=VALUE"};
      std::map<std::string, std::string> one{{def->substr(0, eq), def->substr(eq + 1)}};
      try {  // checked here, so that a bad value is not reported at the input's line 1
        pypto::text::syntax::Module none;
        pypto::text::bind_host_values(none, one);
      } catch (const pypto::core::Error& e) {
        throw UsageError{"--define: " + std::string(e.what())};
      }
      o.host_values.insert(one.begin(), one.end());
    } else if (auto seed = option_value(argc, argv, i, "--seed")) {
      char* end = nullptr;
      o.target.seed = std::strtoull(seed->c_str(), &end, 10);
      if (seed->empty() || *end != '\0')
        throw UsageError{"--seed: '" + *seed + "' is not a number"};
    } else if (auto world = option_value(argc, argv, i, "--world")) {
      char* end = nullptr;
      o.target.world = std::strtoll(world->c_str(), &end, 10);
      if (world->empty() || *end != '\0' || o.target.world < 1 || o.target.world > 64)
        throw UsageError{"--world: '" + *world + "' is not a number of ranks from 1 to 64"};
    } else if (auto props = option_value(argc, argv, i, "--assume")) {
      o.assume = *props;
    } else if (auto v = option_value(argc, argv, i, "--passes")) {
      o.passes = *v;
    } else if (auto out = option_value(argc, argv, i, "-o")) {
      o.output = *out;
    } else if (auto exp = option_value(argc, argv, i, "--assert-equal")) {
      o.expected = *exp;
    } else if (arg == "-" || arg.empty() || arg.front() != '-') {
      if (o.input)
        throw UsageError{"more than one input file ('" + *o.input + "', '" + std::string(arg) +
                         "')"};
      o.input = std::string(arg);
    } else {
      throw UsageError{"unknown option '" + std::string(arg) + "' (see --help)"};
    }
  }
  if ((!o.target.inputs.empty() || o.target.save_dir || o.target.world != 1) && !o.target.run)
    throw UsageError{"--input, --save and --world need --run"};
  if (o.target.run && o.target.target != "cpu")
    throw UsageError{"--run needs --target=cpu (the NPU target only writes code)"};
  if (!o.target.target.empty()) {
    o.target.out_dir = o.output;
    o.output.reset();
    if (o.passes.empty()) o.passes = std::string(pypto::transforms::kCodegenPipeline);
  }
  return o;
}

/// The properties named in a comma-separated list (`SSAForm,ClusterOutlined`).
pypto::transforms::PropertySet assumed_properties(std::string_view list) {
  pypto::transforms::PropertySet set;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    bool known = false;
    for (auto p : pypto::transforms::kAllProperties)
      if (pypto::transforms::property_name(p) == name) {
        set = set.with({p});
        known = true;
      }
    if (!known) throw UsageError{"--assume: unknown property '" + std::string(name) + "'"};
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return set;
}

/// Only the first line: the driver promises one-line messages for errors; callers that want
/// more detail print it themselves.
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string read_source(const std::string& path) {
  if (path == "-") {
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError{"cannot read '" + path + "'"};
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw UsageError{"cannot read '" + path + "'"};
  return text.str();
}

/// The program in `path`; parse errors become `FILE:line:column: message` usage errors.
pypto::ir::ProgramRef parse_file(const std::string& path, const pypto::ir::OpRegistry& ops,
                                 const std::map<std::string, std::string>& host_values) {
  const std::string shown = path == "-" ? "<stdin>" : path;
  const std::string source = read_source(path);
  pypto::text::ParseOptions options;
  options.ops = &ops;
  options.file_name = shown;
  options.host_values = host_values;
  try {
    return pypto::text::parse_program(source, options);
  } catch (const pypto::text::ParseError& e) {
    // what() is "line:column: at 'token': expected ...": prefix the file, as compilers do.
    throw UsageError{shown + ":" + e.what(), /*located=*/true};
  } catch (const pypto::core::Error& e) {
    throw UsageError{shown + ": " + first_line(e.what()), /*located=*/true};
  }
}

int run(const Options& o) {
  namespace tf = pypto::transforms;
  const tf::PassRegistry registry = tf::standard_passes();
  if (o.list_passes) {
    for (const auto& [name, entry] : registry.entries()) {
      std::cout << name << "  " << entry.description << "\n";
      for (const tf::PassOption& option : entry.options) {
        std::cout << "    {" << option.key << "=";
        for (std::size_t i = 0; i < option.values.size(); ++i)
          std::cout << (i ? "|" : "") << option.values[i];
        std::cout << "}  " << option.description << " (default " << option.values.front() << ")\n";
      }
    }
    return kSuccess;
  }

  const auto ops = pypto::ir::standard_op_registry();
  if (o.list_ops) {
    for (const auto& def : ops.ops()) std::cout << pypto::ir::catalog_line(def) << "\n";
    return kSuccess;
  }
  std::vector<tf::Pass> passes;
  try {
    passes = registry.pipeline(o.passes);
  } catch (const pypto::core::Error& e) {
    throw UsageError{e.what()};
  }

  const pypto::ir::ProgramRef input =
      o.input ? parse_file(*o.input, ops, o.host_values) : pypto_opt::default_program(ops);
  const pypto::ir::ProgramRef expected =
      o.expected ? parse_file(*o.expected, ops, o.host_values) : pypto::ir::ProgramRef();

  if (o.debug_dedup)
    for (tf::Pass& pass : passes)
      if (pass.name() == "deduplicate-outlined-kernels") {
        tf::DedupOptions dedup;
        dedup.on_event = [](const tf::DedupEvent& e) {
          std::cerr << "dedup: " << e.to_string() << "\n";
        };
        pass = tf::DeduplicateOutlinedKernels(std::move(dedup));
      }

  tf::PassManagerOptions pm_options;
  pm_options.initial_properties = assumed_properties(o.assume);
  if (o.verify_each) pm_options.instruments.push_back(tf::verify_each_instrument(&ops));
  if (o.print_after_all)
    pm_options.instruments.push_back(tf::print_after_all_instrument(std::cerr, &ops));
  pm_options.timing = o.pass_timing;
  tf::PassManager manager(std::move(passes), std::move(pm_options));

  const bool targeted = !o.target.target.empty();
  if (targeted)
    std::cerr << "pypto-opt: passes: " << o.passes << " (" << input->functions.size()
              << " functions in)\n";
  pypto::ir::ProgramRef result;
  try {
    result = manager.run(*input);
  } catch (const tf::PassVerificationError& e) {
    std::cerr << "pypto-opt: verify-each: " << e.what() << "\n";
    return kCheckFailed;
  } catch (const pypto::core::Error& e) {
    throw UsageError{first_line(e.what())};
  }
  if (o.pass_timing) std::cerr << manager.timing_report();
  if (targeted)
    std::cerr << "pypto-opt: passes: done (" << result->functions.size() << " functions out)\n";

  pypto::text::PrintOptions print_options;
  print_options.concise = o.concise;
  print_options.ops = &ops;
  const std::string text = pypto::text::print(*result, print_options);
  if (o.output) {
    std::ofstream out(*o.output, std::ios::binary);
    out << text;
    out.close();
    if (!out) throw UsageError{"cannot write '" + *o.output + "'"};
  } else {
    std::cout << text;
  }

  if (targeted) {
    try {
      const int rc = pypto_opt::run_target(*input, *result, o.target, std::cout, std::cerr);
      if (rc != kSuccess) return rc;
    } catch (const pypto_opt::TargetFailure& e) {
      std::cerr << "pypto-opt: " << e.message << "\n";
      return e.check_failed ? kCheckFailed : kUsageError;
    } catch (const pypto::core::Error& e) {
      std::cerr << "pypto-opt: " << e.what() << "\n";  // a compiler's diagnostics follow
      return kUsageError;
    }
  }

  if (expected) {
    std::optional<pypto::structural::StructuralMismatch> m;
    try {
      m = pypto::structural::find_first_mismatch(result, expected, /*enable_auto_mapping=*/true);
    } catch (const pypto::core::Error& e) {  // e.g. an opaque payload: no comparison exists
      std::cerr << "pypto-opt: --assert-equal: " << e.what() << "\n";
      return kUsageError;
    }
    if (m) {
      std::cerr << "pypto-opt: result differs from " << *o.expected << " at "
                << (m->field_path.empty() ? std::string("<root>") : m->field_path) << ": "
                << m->reason << "\n  result:   " << m->lhs << "\n  expected: " << m->rhs << "\n";
      return kCheckFailed;
    }
  }
  return kSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = parse_args(argc, argv);
    if (options.help) {
      std::cout << kUsage;
      return kSuccess;
    }
    return run(options);
  } catch (const UsageError& e) {
    std::cerr << (e.located ? "" : "pypto-opt: ") << e.message << "\n";
    return kUsageError;
  } catch (const std::exception& e) {
    std::cerr << "pypto-opt: internal error: " << first_line(e.what()) << "\n";
    return kUsageError;
  }
}

// Tests of the CPU runtime's compile-once cache and kernel library (runtime/compile_cache.hpp,
// runtime/kernel_library.hpp, runtime/sha256.hpp, runtime/shared_library.hpp): a hand-written
// kernel source that follows kernel_abi.hpp is compiled once per cache directory and reused;
// the key follows source, headers and identity kind; stale, corrupted and unloadable binaries
// are rebuilt; compiler errors leave nothing behind; registrations get their own callables.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "pypto/runtime/compile_cache.hpp"
#include "pypto/runtime/files.hpp"
#include "pypto/runtime/kernel_library.hpp"
#include "pypto/runtime/sha256.hpp"

namespace rt = pypto::runtime;
namespace cg = pypto::codegen;

namespace {

/// out[k] = in[k] * scale + bias over the flat extent of `in`; `scale` is a literal of the
/// source (so sources differ by it), `bias` the first scalar (FP32 bits).
std::string affine_source(const std::string& scale) {
  return R"(#include <pypto/codegen/kernel_abi.hpp>
#include <cstdint>
#include <cstring>
extern "C" void pypto_kernel_entry(const std::uint64_t* args) {
  auto* in = reinterpret_cast<pypto::codegen::TensorArg*>(args[0]);
  auto* out = reinterpret_cast<pypto::codegen::TensorArg*>(args[1]);
  const auto bits = static_cast<std::uint32_t>(args[2]);
  float bias;
  std::memcpy(&bias, &bits, 4);
  std::int64_t n = 1;
  for (std::int64_t d = 0; d < in->rank; ++d) n *= in->shape[d];
  const float* x = static_cast<const float*>(in->data);
  float* y = static_cast<float*>(out->data);
  for (std::int64_t k = 0; k < n; ++k) y[k] = x[k] * )" +
         scale + R"(.0f + bias;
}
)";
}

std::uint64_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

cg::TensorArg tensor(std::vector<float>& v) {
  cg::TensorArg t{};
  t.data = v.data();
  t.rank = 1;
  t.shape[0] = static_cast<std::int64_t>(v.size());
  return t;
}

/// Runs `k` on in = {1, 2, 3, 4} with `bias`, returns out.
std::vector<float> run_affine(const rt::Kernel& k, float bias) {
  std::vector<float> in{1, 2, 3, 4}, out(4, 0.0f);
  const cg::TensorArg tensors[] = {tensor(in), tensor(out)};
  const std::uint64_t scalars[] = {float_bits(bias)};
  k(tensors, scalars);
  return out;
}

cg::KernelRegistration reg(std::int32_t id, std::string code,
                           std::vector<cg::RuntimeDirection> sig = {cg::RuntimeDirection::In,
                                                                    cg::RuntimeDirection::Out}) {
  return {id, std::move(code), cg::CoreType::AIV, std::move(sig)};
}

/// The files of a cache directory that are compiled binaries (<key>.so).
std::vector<std::string> binaries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& n : rt::files::list_directory(dir))
    if (n.size() > 3 && n.compare(n.size() - 3, 3, ".so") == 0) out.push_back(n);
  return out;
}

const rt::Compiler& compiler() {
  static const rt::Compiler c = rt::find_compiler();
  return c;
}

}  // namespace

TEST_CASE("sha256: FIPS 180-4 test vectors") {
  CHECK(rt::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(rt::sha256_hex("abc") ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(rt::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(rt::sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Streaming in pieces that straddle block boundaries gives the same digest.
  rt::Sha256 h;
  const std::string text(200, 'x');
  for (std::size_t k = 0; k < text.size(); k += 7) h.update(std::string_view(text).substr(k, 7));
  CHECK(h.hex() == rt::sha256_hex(text));
}

TEST_CASE("compiler: identity is the --version output, the include dir holds kernel_abi.hpp") {
  const rt::Compiler& c = compiler();
  CHECK_FALSE(c.identity.empty());
  CHECK(rt::has_kernel_abi(c.include_dir));
  CHECK(c.flags == rt::default_compile_flags());
  CHECK_THROWS_AS(rt::find_include_dir(std::string("/nonexistent-pypto-include")),
                  rt::CompileError);
  CHECK_THROWS_AS(rt::find_compiler(std::string("/nonexistent/c++")), rt::CompileError);
}

TEST_CASE("compile cache: equal code compiles once, a new cache on the same directory hits") {
  rt::TempDir dir;
  const rt::CodeUnit unit{"affine2", affine_source("2"), rt::CodeOrigin::Generated, {}};
  {
    rt::CompileCache cache(dir.path(), compiler());
    const std::string so = cache.binary(unit);
    CHECK(cache.stats().compilations == 1);
    CHECK(so == cache.binary_path(cache.key(unit)));
    CHECK(cache.binary(unit) == so);  // second request: a hit
    CHECK(cache.stats().compilations == 1);
    CHECK(cache.stats().hits == 1);
    // Another name for the same code shares the binary.
    const rt::CodeUnit alias{"affine2_copy", unit.source, rt::CodeOrigin::Generated, {}};
    CHECK(cache.key(alias) == cache.key(unit));
    CHECK(cache.binary(alias) == so);
    CHECK(cache.stats().compilations == 1);
  }
  rt::CompileCache again(dir.path(), compiler());
  again.binary(unit);
  CHECK(again.stats().compilations == 0);
  CHECK(again.stats().hits == 1);
  CHECK(binaries(dir.path()).size() == 1);
  // No temporaries are left: just the binary and its checksum sidecar.
  CHECK(rt::files::list_directory(dir.path()).size() == 2);
}

TEST_CASE("compile cache: the key follows source, origin, flags, compiler identity and headers") {
  rt::TempDir dir;
  // A private copy of the include tree, so the test can edit a header.
  const std::string inc = dir.path() + "/include";
  rt::files::make_directories(inc + "/pypto/codegen");
  const std::string abi = inc + "/pypto/codegen/kernel_abi.hpp";
  rt::files::write_atomic(
      abi, rt::files::read(compiler().include_dir + "/pypto/codegen/kernel_abi.hpp"));
  rt::Compiler c = compiler();
  c.include_dir = inc;
  rt::CompileCache cache(dir.path() + "/cache", c);
  const rt::CodeUnit unit{"k", affine_source("2"), rt::CodeOrigin::Generated, {}};
  const std::string key = cache.key(unit);
  CHECK(key.size() == 64);
  CHECK(cache.key(rt::CodeUnit{"k", affine_source("3"), rt::CodeOrigin::Generated, {}}) != key);
  for (auto origin :
       {rt::CodeOrigin::External, rt::CodeOrigin::BuiltinTemplate, rt::CodeOrigin::Legacy})
    CHECK(cache.key(rt::CodeUnit{"k", unit.source, origin, {}}) != key);
  CHECK(cache.key(rt::CodeUnit{"k", unit.source, rt::CodeOrigin::Generated, {"-DX=1"}}) != key);
  CHECK(cache.included_headers(unit.source).count("pypto/codegen/kernel_abi.hpp") == 1);

  rt::Compiler other_identity = c;
  other_identity.identity += " (patched)";
  CHECK(rt::CompileCache(dir.path() + "/cache", other_identity).key(unit) != key);
  rt::Compiler other_flags = c;
  other_flags.flags.push_back("-g");
  CHECK(rt::CompileCache(dir.path() + "/cache", other_flags).key(unit) != key);

  // Editing the included header changes the key, so binaries built against it are not reused.
  rt::files::write_atomic(abi, rt::files::read(abi) + "\n// edited\n");
  CHECK(cache.key(unit) != key);
}

TEST_CASE("compile cache: a corrupted binary is rebuilt, an unloadable one is rebuilt on load") {
  rt::TempDir dir;
  const rt::CodeUnit unit{"affine2", affine_source("2"), rt::CodeOrigin::Generated, {}};
  std::string so;
  {
    rt::CompileCache cache(dir.path(), compiler());
    so = cache.binary(unit);
  }
  // Overwrite bytes in the middle of the binary (it is not loaded in this process).
  const std::string original = rt::files::read(so);
  std::string bytes = original;
  REQUIRE(bytes.size() > 200);
  for (std::size_t k = 100; k < 140; ++k) bytes[k] = static_cast<char>(0x5A);
  rt::files::write_atomic(so, bytes);
  {
    rt::CompileCache cache(dir.path(), compiler());
    CHECK(cache.binary(unit) == so);
    CHECK(cache.stats().compilations == 1);
    CHECK(cache.stats().rebuilds == 1);
    CHECK(rt::files::read(so) == original);  // builds are reproducible: same key, same bytes
  }
  // A binary whose sidecar matches but which the loader rejects: rebuilt once at load.
  rt::files::write_atomic(so, "not an ELF file");
  rt::files::write_atomic(so + ".sha256", rt::sha256_hex("not an ELF file"));
  {
    rt::CompileCache cache(dir.path(), compiler());
    auto lib = rt::KernelLibrary::compile(cache, {unit}, {reg(0, "affine2")});
    CHECK(cache.stats().rebuilds == 1);
    CHECK(cache.stats().compilations == 1);
    CHECK(run_affine(lib.at(0), 0.5f) == std::vector<float>{2.5f, 4.5f, 6.5f, 8.5f});
  }
  // A missing sidecar is a stale entry too.
  ::unlink((so + ".sha256").c_str());
  rt::CompileCache cache(dir.path(), compiler());
  cache.binary(unit);
  CHECK(cache.stats().rebuilds == 1);
}

TEST_CASE("compile cache: a compiler error names the kernel and leaves no file behind") {
  rt::TempDir dir;
  rt::CompileCache cache(dir.path(), compiler());
  const rt::CodeUnit bad{"broken_kernel",
                         "#include <pypto/codegen/kernel_abi.hpp>\nint f( {\n",
                         rt::CodeOrigin::Generated,
                         {}};
  try {
    cache.binary(bad);
    FAIL("expected a CompileError");
  } catch (const rt::CompileError& e) {
    CHECK(e.code_name() == "broken_kernel");
    CHECK(std::string(e.what()).find("kernel 'broken_kernel'") != std::string::npos);
    CHECK(e.diagnostics().find("error") != std::string::npos);
  }
  CHECK(cache.stats().failures == 1);
  CHECK(cache.stats().compilations == 0);
  CHECK(rt::files::list_directory(dir.path()).empty());
  // The error derives from core::Error, like every error of the library.
  CHECK_THROWS_AS(cache.binary(bad), pypto::core::Error);
}

/// The lines every affine_source begins with: a prelude the cache can share.
const std::string kAffinePrelude =
    "#include <pypto/codegen/kernel_abi.hpp>\n#include <cstdint>\n#include <cstring>\n";

/// True when the compiler is one whose precompiled headers the cache builds (g++, clang++).
bool precompiles(const rt::Compiler& c) {
  return c.identity.find("clang") != std::string::npos ||
         c.identity.find("Free Software Foundation") != std::string::npos;
}

/// The cache directory's files that end with `suffix`.
std::size_t files_ending(const std::string& dir, const std::string& suffix) {
  std::size_t n = 0;
  for (const auto& f : rt::files::list_directory(dir))
    if (f.size() >= suffix.size() &&
        f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0)
      ++n;
  return n;
}

TEST_CASE("compile cache: units that begin with a shared prelude read it precompiled, built once") {
  REQUIRE(affine_source("2").rfind(kAffinePrelude, 0) == 0);
  rt::TempDir dir;
  const bool pch = precompiles(compiler());
  const std::string ext = compiler().identity.find("clang") != std::string::npos ? ".pch" : ".gch";
  const rt::CodeUnit two{"affine2", affine_source("2"), rt::CodeOrigin::Generated, {}};
  const rt::CodeUnit three{"affine3", affine_source("3"), rt::CodeOrigin::Generated, {}};
  std::string key_without;
  std::string bytes_without;
  {
    rt::TempDir plain;
    rt::CompileCache cache(plain.path(), compiler());
    key_without = cache.key(two);
    bytes_without = rt::files::read(cache.binary(two));
  }
  {
    rt::CompileCache cache(dir.path(), compiler());
    cache.share_prelude(kAffinePrelude);
    cache.share_prelude(kAffinePrelude);   // once is enough
    CHECK(cache.key(two) == key_without);  // how a binary is built is not what it is
    auto lib =
        rt::KernelLibrary::compile(cache, {two, three}, {reg(0, "affine2"), reg(1, "affine3")});
    CHECK(cache.stats().compilations == 2);
    CHECK(cache.stats().preludes == (pch ? 1u : 0u));
    CHECK(run_affine(lib.at(0), 0.5f) == std::vector<float>{2.5f, 4.5f, 6.5f, 8.5f});
    CHECK(run_affine(lib.at(1), 1.0f) == std::vector<float>{4.0f, 7.0f, 10.0f, 13.0f});
    CHECK(rt::files::read(cache.binary_path(cache.key(two))) == bytes_without);
  }
  // The directory: two binaries, their sidecars, the prelude and its precompiled form; nothing
  // else (no scratch is left behind).
  CHECK(binaries(dir.path()).size() == 2);
  CHECK(files_ending(dir.path(), ".sha256") == 2);
  if (pch) {
    CHECK(files_ending(dir.path(), ".hpp") == 1);
    CHECK(files_ending(dir.path(), ".hpp" + ext) == 1);
    CHECK(rt::files::list_directory(dir.path()).size() == 6);
  }
  // A new cache on the directory reuses the precompiled prelude.
  rt::CompileCache again(dir.path(), compiler());
  again.share_prelude(kAffinePrelude);
  auto lib = rt::KernelLibrary::compile(
      again, {{"affine4", affine_source("4"), rt::CodeOrigin::Generated, {}}}, {reg(0, "affine4")});
  CHECK(again.stats().compilations == 1);
  CHECK(again.stats().preludes == 0);
  CHECK(run_affine(lib.at(0), 0.0f) == std::vector<float>{4.0f, 8.0f, 12.0f, 16.0f});
  // Text that does not end a line is no prelude; neither is a whole source.
  rt::TempDir other;
  rt::CompileCache partial(other.path(), compiler());
  partial.share_prelude("#include <pypto/codegen/kernel_abi.hpp>");
  partial.share_prelude(affine_source("5"));
  partial.binary({"affine5", affine_source("5"), rt::CodeOrigin::Generated, {}});
  CHECK(partial.stats().preludes == 0);
  CHECK(files_ending(other.path(), ".hpp") == 0);
}

TEST_CASE(
    "compile cache: after a shared prelude, errors name the whole source's lines, and a corrupted "
    "precompiled prelude is rebuilt") {
  rt::TempDir dir;
  rt::CompileCache cache(dir.path(), compiler());
  cache.share_prelude(kAffinePrelude);
  const rt::CodeUnit bad{
      "broken_kernel", kAffinePrelude + "\nint f( {\n", rt::CodeOrigin::Generated, {}};
  try {
    cache.binary(bad);
    FAIL("expected a CompileError");
  } catch (const rt::CompileError& e) {
    CHECK(e.code_name() == "broken_kernel");
    CHECK_MESSAGE(e.diagnostics().find(".cpp:5:") != std::string::npos, e.diagnostics());
  }
  CHECK(cache.stats().failures == 1);
  CHECK(binaries(dir.path()).empty());
  if (!precompiles(compiler())) return;
  CHECK(cache.stats().preludes == 1);
  // Overwrite the precompiled prelude with junk: the next compile still succeeds (it reads the
  // prelude as text), drops the junk, and the one after builds it again.
  std::string pch;
  for (const auto& f : rt::files::list_directory(dir.path()))
    if (f.size() > 4 && (f.ends_with(".gch") || f.ends_with(".pch"))) pch = dir.path() + "/" + f;
  REQUIRE(!pch.empty());
  rt::files::write_atomic(pch, "not a precompiled header");
  rt::CompileCache next(dir.path(), compiler());
  next.share_prelude(kAffinePrelude);
  auto lib = rt::KernelLibrary::compile(
      next, {{"affine6", affine_source("6"), rt::CodeOrigin::Generated, {}}}, {reg(0, "affine6")});
  CHECK(run_affine(lib.at(0), 0.0f) == std::vector<float>{6.0f, 12.0f, 18.0f, 24.0f});
  CHECK(next.stats().preludes == 0);
  CHECK_FALSE(rt::files::exists(pch));
  next.binary({"affine7", affine_source("7"), rt::CodeOrigin::Generated, {}});
  CHECK(next.stats().preludes == 1);
  CHECK(rt::files::read(pch).size() > 1000);
  // The prelude's header edited by hand is written again and precompiled again before use.
  const std::string header = pch.substr(0, pch.size() - 4);
  REQUIRE(rt::files::read(header) == kAffinePrelude);
  rt::files::write_atomic(header, kAffinePrelude + "#error edited by hand\n");
  rt::CompileCache edited(dir.path(), compiler());
  edited.share_prelude(kAffinePrelude);
  auto lib8 = rt::KernelLibrary::compile(
      edited, {{"affine8", affine_source("8"), rt::CodeOrigin::Generated, {}}},
      {reg(0, "affine8")});
  CHECK(run_affine(lib8.at(0), 0.0f) == std::vector<float>{8.0f, 16.0f, 24.0f, 32.0f});
  CHECK(edited.stats().preludes == 1);
  CHECK(rt::files::read(header) == kAffinePrelude);
}

TEST_CASE("kernel library: two registrations with different signatures on one code") {
  rt::TempDir dir;
  rt::CompileCache cache(dir.path(), compiler());
  const std::vector<rt::CodeUnit> units{
      {"affine2", affine_source("2"), rt::CodeOrigin::Generated, {}},
      {"affine2_twin", affine_source("2"), rt::CodeOrigin::Generated, {}},  // equal code
      {"unused", affine_source("9"), rt::CodeOrigin::Generated, {}},        // not referenced
  };
  const std::vector<cg::KernelRegistration> regs{
      reg(3, "affine2", {cg::RuntimeDirection::In, cg::RuntimeDirection::Out}),
      reg(7, "affine2", {cg::RuntimeDirection::In, cg::RuntimeDirection::InOut}),
      reg(8, "affine2_twin"),
  };
  auto lib = rt::KernelLibrary::compile(cache, units, regs);
  CHECK(cache.stats().compilations == 1);  // one compilation for three registrations
  CHECK(lib.size() == 3);
  CHECK(lib.func_ids() == std::vector<std::int32_t>{3, 7, 8});
  CHECK(lib.load_count() == 1);
  CHECK(lib.at(3).registration().signature == regs[0].signature);
  CHECK(lib.at(7).registration().signature == regs[1].signature);
  CHECK(run_affine(lib.at(3), 1.0f) == std::vector<float>{3, 5, 7, 9});
  CHECK(run_affine(lib.at(7), 0.0f) == std::vector<float>{2, 4, 6, 8});
  CHECK(run_affine(lib.at(8), -1.0f) == std::vector<float>{1, 3, 5, 7});
  CHECK(binaries(dir.path()).size() == 1);
  // The cache hands out one load per key while it is held.
  CHECK(cache.load(units[0]) == cache.load(units[1]));

  // A call must match the registration's signature.
  std::vector<float> in{1, 2, 3, 4};
  const cg::TensorArg one[] = {tensor(in)};
  CHECK_THROWS_AS(lib.at(3)(one, {}), rt::KernelLibraryError);
  CHECK_THROWS_AS(lib.at(99), rt::KernelLibraryError);
}

TEST_CASE("kernel library: external code keeps its own compilation identity") {
  rt::TempDir dir;
  rt::CompileCache cache(dir.path(), compiler());
  const std::vector<rt::CodeUnit> units{
      {"gen", affine_source("2"), rt::CodeOrigin::Generated, {}},
      {"ext", affine_source("2"), rt::CodeOrigin::External, {}},
  };
  auto lib = rt::KernelLibrary::compile(cache, units, {reg(0, "gen"), reg(1, "ext")});
  CHECK(cache.stats().compilations == 2);
  CHECK(binaries(dir.path()).size() == 2);
  CHECK(lib.load_count() == 2);
  CHECK(run_affine(lib.at(1), 0.0f) == run_affine(lib.at(0), 0.0f));
}

TEST_CASE("kernel library: bad configurations are rejected before anything compiles") {
  rt::TempDir dir;
  rt::CompileCache cache(dir.path(), compiler());
  const std::vector<rt::CodeUnit> units{{"a", affine_source("2"), rt::CodeOrigin::Generated, {}}};
  try {
    rt::KernelLibrary::compile(cache, units,
                               {reg(5, "a"), reg(5, "a", {cg::RuntimeDirection::In})});
    FAIL("expected a duplicate func_id error");
  } catch (const rt::KernelLibraryError& e) {
    CHECK(std::string(e.what()).find("duplicate func_id 5") != std::string::npos);
  }
  CHECK_THROWS_WITH_AS(rt::KernelLibrary::compile(cache, units, {reg(0, "missing")}),
                       doctest::Contains("'missing'"), rt::KernelLibraryError);
  CHECK_THROWS_WITH_AS(
      rt::KernelLibrary::compile(
          cache, {units[0], {"a", affine_source("3"), rt::CodeOrigin::Generated, {}}},
          {reg(0, "a")}),
      doctest::Contains("twice"), rt::KernelLibraryError);
  CHECK(cache.stats().compilations == 0);
  CHECK(rt::files::list_directory(dir.path()).empty());
  // Code without the entry symbol is a LoadError naming the registration.
  const rt::CodeUnit no_entry{
      "no_entry", "extern \"C\" void other() {}\n", rt::CodeOrigin::Generated, {}};
  CHECK_THROWS_WITH_AS(rt::KernelLibrary::compile(cache, {no_entry}, {reg(0, "no_entry")}),
                       doctest::Contains("pypto_kernel_entry"), rt::LoadError);
}

// Tests of the prebuilt manifest, schema 1 (runtime/prebuilt_manifest.hpp, runtime/json.hpp) and
// its loading (KernelLibrary::from_manifest): several registrations share one validated binary
// (each with its own load unless asked otherwise), a checksum mismatch, a missing file, a
// duplicate func_id, an unknown schema and bad JSON are clear errors with line:column.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "pypto/runtime/compile_cache.hpp"
#include "pypto/runtime/files.hpp"
#include "pypto/runtime/json.hpp"
#include "pypto/runtime/kernel_library.hpp"
#include "pypto/runtime/prebuilt_manifest.hpp"
#include "pypto/runtime/sha256.hpp"

namespace rt = pypto::runtime;
namespace cg = pypto::codegen;

namespace {

/// A kernel with static state: out[0] = in[0] + (number of calls of this load so far). Two
/// registrations that share a load share the counter; private loads do not.
constexpr const char* kCounterSource = R"(#include <pypto/codegen/kernel_abi.hpp>
#include <cstdint>
static int calls = 0;
extern "C" void pypto_kernel_entry(const std::uint64_t* args) {
  auto* in = reinterpret_cast<pypto::codegen::TensorArg*>(args[0]);
  auto* out = reinterpret_cast<pypto::codegen::TensorArg*>(args[1]);
  ++calls;
  static_cast<float*>(out->data)[0] = static_cast<const float*>(in->data)[0] + calls;
}
)";

float call_counter(const rt::Kernel& k, float x) {
  float in = x, out = 0.0f;
  cg::TensorArg tensors[2]{};
  tensors[0].data = &in;
  tensors[0].rank = 1;
  tensors[0].shape[0] = 1;
  tensors[1] = tensors[0];
  tensors[1].data = &out;
  k(tensors, {});
  return out;
}

/// A manifest directory holding the compiled counter kernel as "counter.so".
struct Fixture {
  rt::TempDir dir;
  std::string sha;
  Fixture() {
    rt::CompileCache cache(dir.path() + "/cache", rt::find_compiler());
    const std::string so =
        cache.binary(rt::CodeUnit{"counter", kCounterSource, rt::CodeOrigin::External, {}});
    const std::string bytes = rt::files::read(so);
    rt::files::write_atomic(dir.path() + "/counter.so", bytes);
    sha = rt::sha256_hex(bytes);
  }
  std::string manifest(const std::string& registrations, const std::string& sum = {}) const {
    return "{\n  \"schema\": 1,\n  \"binaries\": [{\"file\": \"counter.so\", \"sha256\": \"" +
           (sum.empty() ? sha : sum) + "\"}],\n  \"registrations\": [" + registrations + "]\n}\n";
  }
};

const std::string kTwoRegs =
    "\n    {\"func_id\": 0, \"name\": \"counter\", \"core_type\": \"aiv\", \"signature\": "
    "[\"IN\", \"OUT\"], \"binary\": \"counter.so\"},"
    "\n    {\"func_id\": 4, \"name\": \"counter\", \"core_type\": \"aic\", \"signature\": "
    "[\"IN\", \"INOUT\"], \"binary\": \"counter.so\"}";

}  // namespace

TEST_CASE("json: the strict subset, with line:column errors") {
  const rt::JsonValue v =
      rt::parse_json("{\"a\": [1, -2, true, null], \"s\": \"x\\n\\u00e9\\ud83d\\ude00\"}");
  REQUIRE(v.kind == rt::JsonValue::Kind::Object);
  CHECK(v.find("a")->items.size() == 4);
  CHECK(v.find("a")->items[1].i == -2);
  CHECK(v.find("s")->s == "x\n\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(rt::parse_json("-9223372036854775808").i == INT64_MIN);
  auto error_at = [](const char* text) {
    try {
      rt::parse_json(text);
    } catch (const rt::JsonError& e) {
      return std::to_string(e.line()) + ":" + std::to_string(e.column());
    }
    return std::string("no error");
  };
  CHECK(error_at("{\n  \"a\": 1,\n  \"b\" 2\n}") == "3:7");  // missing ':'
  CHECK(error_at("{\"a\": 1, \"a\": 2}") == "1:10");         // duplicate key
  CHECK(error_at("[1.5]") == "1:3");                         // not an integer
  CHECK(error_at("[1,]") == "1:4");
  CHECK(error_at("\"abc") == "1:5");
  CHECK(error_at("9223372036854775808") == "1:19");
  CHECK(error_at("[1] x") == "1:5");
  CHECK(error_at(std::string(100, '[').c_str()) == "1:65");  // depth limit
  CHECK(rt::parse_json(rt::json_quote("q\"\\\n\x01")).s == "q\"\\\n\x01");
}

TEST_CASE("manifest: two registrations share one validated binary, each with its own load") {
  Fixture f;
  const std::string path = f.dir.path() + "/manifest.json";
  rt::files::write_atomic(path, f.manifest(kTwoRegs));
  const rt::PrebuiltManifest m = rt::read_prebuilt_manifest(path);
  REQUIRE(m.binaries.size() == 1);
  CHECK(m.binaries[0].path == f.dir.path() + "/counter.so");
  REQUIRE(m.registrations.size() == 2);
  CHECK(m.binary_of == std::vector<std::size_t>{0, 0});
  CHECK(m.registrations[1].func_id == 4);
  CHECK(m.registrations[1].core_type == cg::CoreType::AIC);
  CHECK(m.registrations[1].signature ==
        std::vector<cg::RuntimeDirection>{cg::RuntimeDirection::In, cg::RuntimeDirection::InOut});
  // The writer round-trips.
  CHECK(rt::parse_prebuilt_manifest(rt::prebuilt_manifest_json(m), f.dir.path()).registrations ==
        m.registrations);

  {  // Default: a private load per registration — distinct addresses, distinct static state.
    const auto lib = rt::KernelLibrary::from_manifest(m);
    CHECK(lib.load_count() == 2);
    CHECK((lib.at(0).entry() != lib.at(4).entry()));
    CHECK(call_counter(lib.at(0), 10.0f) == 11.0f);
    CHECK(call_counter(lib.at(4), 10.0f) == 11.0f);
    CHECK(call_counter(lib.at(0), 10.0f) == 12.0f);
  }
  {  // Shared on request: one load, one counter.
    const auto lib = rt::KernelLibrary::from_manifest(m, rt::LoadMode::PerBinary);
    CHECK(lib.load_count() == 1);
    CHECK((lib.at(0).entry() == lib.at(4).entry()));
    CHECK(call_counter(lib.at(0), 10.0f) == 11.0f);
    CHECK(call_counter(lib.at(4), 10.0f) == 12.0f);
  }
  // Private copies are removed once loaded: the manifest directory is unchanged.
  CHECK(rt::files::list_directory(f.dir.path()) ==
        std::vector<std::string>{"cache", "counter.so", "manifest.json"});
}

TEST_CASE("manifest: a checksum mismatch and a missing file are rejected before loading") {
  Fixture f;
  const std::string wrong(64, '0');
  const auto bad_sum = rt::parse_prebuilt_manifest(f.manifest(kTwoRegs, wrong), f.dir.path());
  CHECK_THROWS_WITH_AS(rt::KernelLibrary::from_manifest(bad_sum),
                       doctest::Contains("'counter.so' fails its checksum"), rt::ManifestError);
  auto missing = rt::parse_prebuilt_manifest(f.manifest(kTwoRegs), f.dir.path());
  missing.binaries[0].path = f.dir.path() + "/gone.so";
  CHECK_THROWS_WITH_AS(rt::KernelLibrary::from_manifest(missing), doctest::Contains("gone.so"),
                       rt::ManifestError);
  CHECK_THROWS_WITH_AS(rt::read_prebuilt_manifest(f.dir.path() + "/nope.json"),
                       doctest::Contains("nope.json"), rt::ManifestError);
}

TEST_CASE("manifest: schema violations are ManifestErrors at line:column") {
  Fixture f;
  auto error = [&](const std::string& text) {
    try {
      rt::parse_prebuilt_manifest(text, f.dir.path(), "m.json");
    } catch (const rt::ManifestError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string dup = f.manifest(kTwoRegs +
                                     ",\n    {\"func_id\": 4, \"name\": \"again\", \"core_type\": "
                                     "\"aiv\", \"signature\": [], \"binary\": \"counter.so\"}");
  CHECK(error(dup) == "m.json:7:17: duplicate func_id 4 (also at 6:17, registration 'counter')");
  CHECK(error("{\"schema\": 2, \"binaries\": [], \"registrations\": []}") ==
        "m.json:1:12: unknown schema 2 (this runtime reads schema 1)");
  CHECK(error("{\"schema\": 1,\n \"binaries\": [}") == "m.json:2:15: expected a value");
  CHECK(error("{\"schema\": 1, \"binaries\": []}").find("lacks \"registrations\"") !=
        std::string::npos);
  CHECK(error("{\"schema\": 1, \"binaries\": [], \"registrations\": [], \"extra\": 0}")
            .find("unknown key \"extra\"") != std::string::npos);
  CHECK(error(f.manifest("{\"func_id\": 0, \"name\": \"c\", \"core_type\": \"aiv\", "
                         "\"signature\": [\"IN\"], \"binary\": \"other.so\"}"))
            .find("'other.so' is not listed") != std::string::npos);
  CHECK(error(f.manifest("{\"func_id\": 0, \"name\": \"c\", \"core_type\": \"gpu\", "
                         "\"signature\": [\"IN\"], \"binary\": \"counter.so\"}"))
            .find("core_type must be") != std::string::npos);
  CHECK(error(f.manifest("{\"func_id\": \"0\", \"name\": \"c\", \"core_type\": \"aiv\", "
                         "\"signature\": [\"IN\"], \"binary\": \"counter.so\"}"))
            .find("\"func_id\" must be an integer, not a string") != std::string::npos);
  CHECK(error(f.manifest("", "ABC")).find("64 lowercase hex digits") != std::string::npos);
  // Duplicate func_ids are also refused when a manifest is built in code.
  auto m = rt::parse_prebuilt_manifest(f.manifest(kTwoRegs), f.dir.path());
  m.registrations[1].func_id = 0;
  CHECK_THROWS_WITH_AS(rt::KernelLibrary::from_manifest(m),
                       doctest::Contains("duplicate func_id 0"), rt::KernelLibraryError);
}

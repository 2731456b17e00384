// Tests of pypto/core: exact dtype codes and names, spans, the error hierarchy, the stable hash
// mixer, and Ref handles with stack-safe teardown.
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "pypto/core/dtype.hpp"
#include "pypto/core/error.hpp"
#include "pypto/core/hash.hpp"
#include "pypto/core/identifier.hpp"
#include "pypto/core/ref.hpp"
#include "pypto/core/span.hpp"
#include "pypto/ir/expr.hpp"

namespace core = pypto::core;
namespace ir = pypto::ir;
using core::DataType;

// ---- DataType ---------------------------------------------------------------------------------

TEST_CASE("dtype: every DataType has the exact upstream byte code") {
  CHECK(core::code(DataType::BOOL) == 0x00);
  CHECK(core::code(DataType::INT4) == 0x10);
  CHECK(core::code(DataType::INT8) == 0x11);
  CHECK(core::code(DataType::INT16) == 0x12);
  CHECK(core::code(DataType::INT32) == 0x13);
  CHECK(core::code(DataType::INT64) == 0x14);
  CHECK(core::code(DataType::INDEX) == 0x15);
  CHECK(core::code(DataType::UINT4) == 0x20);
  CHECK(core::code(DataType::UINT8) == 0x21);
  CHECK(core::code(DataType::UINT16) == 0x22);
  CHECK(core::code(DataType::UINT32) == 0x23);
  CHECK(core::code(DataType::UINT64) == 0x24);
  CHECK(core::code(DataType::FP4) == 0x30);
  CHECK(core::code(DataType::FP8E4M3FN) == 0x31);
  CHECK(core::code(DataType::FP8E5M2) == 0x32);
  CHECK(core::code(DataType::FP16) == 0x33);
  CHECK(core::code(DataType::FP32) == 0x34);
  CHECK(core::code(DataType::FP8E8M0) == 0x36);
  CHECK(core::code(DataType::BF16) == 0x40);
  CHECK(core::code(DataType::HF4) == 0x41);
  CHECK(core::code(DataType::HF8) == 0x42);
  CHECK(core::code(DataType::TASK_ID) == 0x50);
}

TEST_CASE("dtype: INDEX and INT64 are different types of the same width") {
  CHECK(DataType::INDEX != DataType::INT64);
  CHECK(core::code(DataType::INDEX) != core::code(DataType::INT64));
  CHECK(core::dtype_name(DataType::INDEX) != core::dtype_name(DataType::INT64));
  CHECK(core::bit_width(DataType::INDEX) == core::bit_width(DataType::INT64));
}

TEST_CASE("dtype: kAllDataTypes lists 22 distinct codes in increasing order") {
  CHECK(std::size(core::kAllDataTypes) == 22);
  std::set<std::uint8_t> codes;
  for (DataType t : core::kAllDataTypes) codes.insert(core::code(t));
  CHECK(codes.size() == std::size(core::kAllDataTypes));
  for (std::size_t i = 1; i < std::size(core::kAllDataTypes); ++i)
    CHECK(core::code(core::kAllDataTypes[i - 1]) < core::code(core::kAllDataTypes[i]));
}

TEST_CASE("dtype: every name round-trips through dtype_name and parse_dtype") {
  std::set<std::string_view> names;
  for (DataType t : core::kAllDataTypes) {
    CAPTURE(core::code(t));
    const std::string_view name = core::dtype_name(t);
    CHECK(name != "<invalid dtype>");
    names.insert(name);
    const auto parsed = core::parse_dtype(name);
    REQUIRE(parsed.has_value());
    CHECK(*parsed == t);
  }
  CHECK(names.size() == std::size(core::kAllDataTypes));
  CHECK(core::dtype_name(DataType::FP8E4M3FN) == "FP8E4M3FN");
  CHECK(core::dtype_name(DataType::TASK_ID) == "TASK_ID");
}

TEST_CASE("dtype: an unknown or differently spelled name parses to nullopt") {
  CHECK_FALSE(core::parse_dtype("").has_value());
  CHECK_FALSE(core::parse_dtype("FP64").has_value());
  CHECK_FALSE(core::parse_dtype("fp32").has_value());
  CHECK_FALSE(core::parse_dtype("pl.FP32").has_value());
  CHECK_FALSE(core::parse_dtype("INT").has_value());
}

TEST_CASE("dtype: is_valid_dtype_code accepts exactly the listed codes") {
  int valid = 0;
  for (unsigned c = 0; c < 256; ++c)
    valid += core::is_valid_dtype_code(static_cast<std::uint8_t>(c));
  CHECK(valid == 22);
  CHECK(core::is_valid_dtype_code(0x36));
  CHECK_FALSE(core::is_valid_dtype_code(0x35));  // the gap between FP32 and FP8E8M0
  CHECK_FALSE(core::is_valid_dtype_code(0x16));
  CHECK_FALSE(core::is_valid_dtype_code(0xff));
}

TEST_CASE("dtype: family predicates classify each dtype") {
  CHECK(core::is_bool(DataType::BOOL));
  CHECK_FALSE(core::is_int(DataType::BOOL));
  CHECK_FALSE(core::is_float(DataType::BOOL));

  for (DataType t : {DataType::INT4, DataType::INT8, DataType::INT16, DataType::INT32,
                     DataType::INT64, DataType::INDEX}) {
    CAPTURE(core::dtype_name(t));
    CHECK(core::is_signed_int(t));
    CHECK_FALSE(core::is_unsigned_int(t));
    CHECK(core::is_int(t));
    CHECK(core::is_index_like(t));
    CHECK_FALSE(core::is_float(t));
  }
  for (DataType t :
       {DataType::UINT4, DataType::UINT8, DataType::UINT16, DataType::UINT32, DataType::UINT64}) {
    CAPTURE(core::dtype_name(t));
    CHECK(core::is_unsigned_int(t));
    CHECK_FALSE(core::is_signed_int(t));
    CHECK(core::is_int(t));
    CHECK_FALSE(core::is_float(t));
  }
  for (DataType t :
       {DataType::FP4, DataType::FP8E4M3FN, DataType::FP8E5M2, DataType::FP16, DataType::FP32,
        DataType::FP8E8M0, DataType::BF16, DataType::HF4, DataType::HF8}) {
    CAPTURE(core::dtype_name(t));
    CHECK(core::is_float(t));
    CHECK_FALSE(core::is_int(t));
    CHECK_FALSE(core::is_bool(t));
  }
  CHECK_FALSE(core::is_int(DataType::TASK_ID));
  CHECK_FALSE(core::is_float(DataType::TASK_ID));
  CHECK_FALSE(core::is_bool(DataType::TASK_ID));
}

TEST_CASE("dtype: bit widths") {
  CHECK(core::bit_width(DataType::BOOL) == 8);
  CHECK(core::bit_width(DataType::INT4) == 4);
  CHECK(core::bit_width(DataType::INT8) == 8);
  CHECK(core::bit_width(DataType::INT16) == 16);
  CHECK(core::bit_width(DataType::INT32) == 32);
  CHECK(core::bit_width(DataType::INT64) == 64);
  CHECK(core::bit_width(DataType::INDEX) == 64);
  CHECK(core::bit_width(DataType::UINT4) == 4);
  CHECK(core::bit_width(DataType::UINT8) == 8);
  CHECK(core::bit_width(DataType::UINT16) == 16);
  CHECK(core::bit_width(DataType::UINT32) == 32);
  CHECK(core::bit_width(DataType::UINT64) == 64);
  CHECK(core::bit_width(DataType::FP4) == 4);
  CHECK(core::bit_width(DataType::FP8E4M3FN) == 8);
  CHECK(core::bit_width(DataType::FP8E5M2) == 8);
  CHECK(core::bit_width(DataType::FP16) == 16);
  CHECK(core::bit_width(DataType::FP32) == 32);
  CHECK(core::bit_width(DataType::FP8E8M0) == 8);
  CHECK(core::bit_width(DataType::BF16) == 16);
  CHECK(core::bit_width(DataType::HF4) == 4);
  CHECK(core::bit_width(DataType::HF8) == 8);
  CHECK(core::bit_width(DataType::TASK_ID) == 64);
}

TEST_CASE("dtype: the queries are usable in constant expressions") {
  static_assert(core::parse_dtype("BF16") == DataType::BF16);
  static_assert(core::dtype_name(DataType::INDEX) == "INDEX");
  static_assert(core::bit_width(DataType::FP16) == 16);
  CHECK(core::parse_dtype("BF16") == DataType::BF16);
}

// ---- Span -------------------------------------------------------------------------------------

TEST_CASE("span: an unknown span prints <unknown> and has no file") {
  const core::Span s = core::Span::unknown();
  CHECK_FALSE(s.is_known());
  CHECK(s.to_string() == "<unknown>");
  CHECK(s.file_name().empty());
}

TEST_CASE("span: a known span prints file:line:column, or line:column without a file") {
  core::Span with_file;
  with_file.file = core::make_ref<const core::SourceFile>("kernel.pl");
  with_file.line = 12;
  with_file.column = 5;
  with_file.end_line = 12;
  with_file.end_column = 9;
  CHECK(with_file.is_known());
  CHECK(with_file.file_name() == "kernel.pl");
  CHECK(with_file.to_string() == "kernel.pl:12:5");

  core::Span no_file;
  no_file.line = 3;
  no_file.column = 1;
  CHECK(no_file.to_string() == "3:1");
}

TEST_CASE("span: spans of one parse share the SourceFile") {
  auto file = core::make_ref<const core::SourceFile>("a.pl");
  core::Span a{file, 1, 1, 1, 2};
  core::Span b{file, 2, 1, 2, 2};
  CHECK(a.file == b.file);
  CHECK(file.use_count() == 3);
}

// ---- errors -----------------------------------------------------------------------------------

TEST_CASE("errors: ValueError, TypeError and InternalError derive from core::Error") {
  static_assert(std::is_base_of_v<core::Error, core::ValueError>);
  static_assert(std::is_base_of_v<core::Error, core::TypeError>);
  static_assert(std::is_base_of_v<core::Error, core::InternalError>);
  static_assert(std::is_base_of_v<std::runtime_error, core::Error>);
  static_assert(!std::is_base_of_v<core::ValueError, core::TypeError>);
  static_assert(!std::is_base_of_v<core::TypeError, core::ValueError>);
}

TEST_CASE("errors: each error, seen as a core::Error, carries its message") {
  const core::ValueError value("bad value");
  const core::TypeError type("bad type");
  const core::InternalError internal("kind out of range");
  const core::Error* as_error[] = {&value, &type, &internal};
  CHECK(std::string_view(as_error[0]->what()) == "bad value");
  CHECK(std::string_view(as_error[1]->what()) == "bad type");
  // An InternalError says it is internal.
  CHECK(std::string_view(as_error[2]->what()) == "internal error: kind out of range");
}

// ---- identifiers ------------------------------------------------------------------------------

TEST_CASE("identifier: ASCII Python identifiers, keywords are identifiers but not usable names") {
  for (std::string_view ok : {"x", "_", "_x1", "tile_load", "X9", "match", "self"}) {
    CAPTURE(ok);
    CHECK(core::is_identifier(ok));
    CHECK(core::is_usable_name(ok));
  }
  for (std::string_view bad : {"", "1x", "a.b", "a b", "a-b", "\xc3\xa9", "x\n", "a(b"}) {
    CAPTURE(bad);
    CHECK_FALSE(core::is_identifier(bad));
    CHECK_FALSE(core::is_usable_name(bad));
  }
  for (std::string_view kw : {"for", "lambda", "None", "True", "await", "yield"}) {
    CAPTURE(kw);
    CHECK(core::is_python_keyword(kw));
    CHECK(core::is_identifier(kw));
    CHECK_FALSE(core::is_usable_name(kw));
  }
  static_assert(core::is_usable_name("tile_load") && !core::is_usable_name("pass"));
}

// ---- hashing ----------------------------------------------------------------------------------

TEST_CASE("hash: hash_mix is splitmix64's finaliser (pinned values)") {
  CHECK(core::hash_mix(0) == 0);
  CHECK(core::hash_mix(1) == 0x5692161d100b05e5ULL);
  CHECK(core::hash_mix(0x0123456789abcdefULL) == 0xb2c058e4ebb5112cULL);
}

TEST_CASE("hash: hash_string and hash_combine are stable (pinned values)") {
  CHECK(core::hash_string("") == 0xf52a15e9a9b5e89bULL);
  CHECK(core::hash_string("pypto") == 0x310d45805c213aeaULL);
  CHECK(core::hash_combine(1, 2) == 0xdde5dccdbded3282ULL);
  static_assert(core::hash_string("pypto") == 0x310d45805c213aeaULL);
}

TEST_CASE("hash: hash_combine is order-sensitive and hash_string length-sensitive") {
  CHECK(core::hash_combine(core::hash_combine(0, 1), 2) !=
        core::hash_combine(core::hash_combine(0, 2), 1));
  CHECK(core::hash_string("a") != core::hash_string("b"));
  CHECK(core::hash_string(std::string_view("a\0", 2)) != core::hash_string("a"));
}

// ---- Ref --------------------------------------------------------------------------------------

namespace {
struct Counted : core::RefCounted {
  explicit Counted(int v, int* destroyed = nullptr) : value(v), destroyed_(destroyed) {}
  ~Counted() override {
    if (destroyed_) ++*destroyed_;
  }
  int value;
  int* destroyed_;
};
struct Derived final : Counted {
  using Counted::Counted;
};
}  // namespace

TEST_CASE("ref: copies share one object and count it, the last release deletes it") {
  int destroyed = 0;
  {
    auto a = core::make_ref<Counted>(7, &destroyed);
    CHECK(a.use_count() == 1);
    {
      core::Ref<Counted> b = a;
      CHECK(a.use_count() == 2);
      CHECK(b->value == 7);
      CHECK(a == b);
    }
    CHECK(a.use_count() == 1);
    core::Ref<Counted> moved = std::move(a);
    CHECK(moved.use_count() == 1);
    CHECK(a == nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
    CHECK(destroyed == 0);
  }
  CHECK(destroyed == 1);
}

TEST_CASE("ref: == compares identity, not value") {
  auto a = core::make_ref<Counted>(1);
  auto b = core::make_ref<Counted>(1);
  CHECK_FALSE(a == b);
  CHECK(a != b);
  core::Ref<const Counted> ca = a;
  CHECK(ca == a);
}

TEST_CASE("ref: a null Ref is false, counts zero and equals nullptr") {
  core::Ref<Counted> r;
  CHECK_FALSE(static_cast<bool>(r));
  CHECK(r.use_count() == 0);
  CHECK(r == nullptr);
  CHECK(r.get() == nullptr);
  core::Ref<Counted> n = nullptr;
  CHECK(n == r);
}

TEST_CASE("ref: converting to a base handle shares the object, a converting move steals it") {
  int destroyed = 0;
  auto d = core::make_ref<Derived>(3, &destroyed);
  core::Ref<const Counted> base = d;
  CHECK(d.use_count() == 2);
  CHECK(base == d);
  core::Ref<const Counted> stolen = std::move(d);
  CHECK(stolen.use_count() == 2);
  CHECK(d == nullptr);  // NOLINT(bugprone-use-after-move)
  base = nullptr;
  CHECK(stolen.use_count() == 1);
  stolen = nullptr;
  CHECK(destroyed == 1);
}

TEST_CASE("ref: a copied RefCounted object starts with its own count of zero") {
  Counted original(5);
  auto r = core::make_ref<Counted>(original);
  CHECK(r.use_count() == 1);
  CHECK(original.use_count() == 0);
}

namespace {
/// A chain link that counts its own destruction: the test sees every level go.
struct Link final : core::RefCounted {
  Link(core::Ref<const Link> n, int* destroyed) : next(std::move(n)), destroyed_(destroyed) {}
  ~Link() override { ++*destroyed_; }
  core::Ref<const Link> next;
  int* destroyed_;
};
}  // namespace

TEST_CASE("ref: destroying a 1,000,000-deep chain destroys every link without deep recursion") {
  constexpr int kDepth = 1'000'000;
  int destroyed = 0;
  core::Ref<const Link> chain;
  for (int i = 0; i < kDepth; ++i) chain = core::make_ref<const Link>(chain, &destroyed);
  CHECK(chain.use_count() == 1);
  CHECK(destroyed == 0);
  chain = nullptr;  // recursive teardown would need ~1M native frames (dies at ~40k under ASan)
  CHECK(destroyed == kDepth);
}

TEST_CASE("ref: a node chain is torn down the same way (1,000,000 Neg nodes)") {
  constexpr int kDepth = 1'000'000;
  const ir::ExprRef leaf = ir::ConstInt::make(1);
  ir::ExprRef chain = leaf;
  for (int i = 0; i < kDepth; ++i) chain = ir::Neg::make(chain);
  CHECK(leaf.use_count() == 2);
  chain = nullptr;
  CHECK(leaf.use_count() == 1);  // the last Neg, and so every Neg above it, is gone
}

TEST_CASE("ref: a deep chain of binary nodes is torn down completely") {
  // Counts deletions through a sentinel shared by every level: all levels must be released.
  constexpr int kDepth = 1'000'000;
  const ir::ExprRef one = ir::ConstInt::make(1);
  ir::ExprRef chain = one;
  for (int i = 0; i < kDepth; ++i) chain = ir::Add::make(chain, one);
  CHECK(one.use_count() == kDepth + 2);  // `one`, the chain's leaf, and every right operand
  chain = nullptr;
  CHECK(one.use_count() == 1);
}

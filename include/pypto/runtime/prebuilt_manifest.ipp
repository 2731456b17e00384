// pypto/runtime/prebuilt_manifest.ipp — the definitions of runtime/prebuilt_manifest.hpp.
#pragma once

#include "pypto/runtime/prebuilt_manifest.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/codegen/kernel_registration.hpp"
#include "pypto/core/error.hpp"
#include "pypto/runtime/files.hpp"
#include "pypto/runtime/json.hpp"

namespace pypto::runtime {

namespace detail {

class ManifestReader {
 public:
  ManifestReader(std::string source, std::string base_dir)
      : source_(std::move(source)), base_(std::move(base_dir)) {}

  PrebuiltManifest read(std::string_view text) {
    JsonValue doc;
    try {
      doc = parse_json(text);
    } catch (const JsonError& e) {
      throw ManifestError(source_ + ":" + e.what());
    }
    object(doc, "the manifest", {"schema", "binaries", "registrations"});
    const JsonValue& schema = member(doc, "schema", JsonValue::Kind::Int);
    if (schema.i != kPrebuiltManifestSchema)
      fail(schema, "unknown schema " + std::to_string(schema.i) + " (this runtime reads schema " +
                       std::to_string(kPrebuiltManifestSchema) + ")");
    PrebuiltManifest m;
    for (const JsonValue& b : member(doc, "binaries", JsonValue::Kind::Array).items) {
      object(b, "a binary", {"file", "sha256"});
      const JsonValue& file = member(b, "file", JsonValue::Kind::String);
      const JsonValue& sum = member(b, "sha256", JsonValue::Kind::String);
      if (file.s.empty()) fail(file, "empty file name");
      for (const auto& other : m.binaries)
        if (other.file == file.s) fail(file, "binary '" + file.s + "' is listed twice");
      if (sum.s.size() != 64 || sum.s.find_first_not_of("0123456789abcdef") != std::string::npos)
        fail(sum, "sha256 must be 64 lowercase hex digits");
      m.binaries.push_back({file.s, file.s.front() == '/' ? file.s : base_ + "/" + file.s, sum.s});
    }
    std::vector<const JsonValue*> id_at;
    for (const JsonValue& r : member(doc, "registrations", JsonValue::Kind::Array).items) {
      object(r, "a registration", {"func_id", "name", "core_type", "signature", "binary"});
      codegen::KernelRegistration reg;
      const JsonValue& id = member(r, "func_id", JsonValue::Kind::Int);
      if (id.i < 0 || id.i > std::numeric_limits<std::int32_t>::max())
        fail(id, "func_id " + std::to_string(id.i) + " is out of range");
      reg.func_id = static_cast<std::int32_t>(id.i);
      for (std::size_t k = 0; k < m.registrations.size(); ++k)
        if (m.registrations[k].func_id == reg.func_id)
          fail(id, "duplicate func_id " + std::to_string(reg.func_id) + " (also at " +
                       id_at[k]->where() + ", registration '" + m.registrations[k].code_name +
                       "')");
      reg.code_name = member(r, "name", JsonValue::Kind::String).s;
      const JsonValue& core = member(r, "core_type", JsonValue::Kind::String);
      if (core.s == "aic")
        reg.core_type = codegen::CoreType::AIC;
      else if (core.s == "aiv")
        reg.core_type = codegen::CoreType::AIV;
      else
        fail(core, "core_type must be \"aic\" or \"aiv\", not \"" + core.s + "\"");
      for (const JsonValue& d : member(r, "signature", JsonValue::Kind::Array).items) {
        if (d.kind != JsonValue::Kind::String) fail(d, "a signature entry must be a string");
        if (d.s == "IN")
          reg.signature.push_back(codegen::RuntimeDirection::In);
        else if (d.s == "OUT")
          reg.signature.push_back(codegen::RuntimeDirection::Out);
        else if (d.s == "INOUT")
          reg.signature.push_back(codegen::RuntimeDirection::InOut);
        else
          fail(d, "a signature entry must be IN, OUT or INOUT, not \"" + d.s + "\"");
      }
      const JsonValue& bin = member(r, "binary", JsonValue::Kind::String);
      std::size_t index = m.binaries.size();
      for (std::size_t k = 0; k < m.binaries.size(); ++k)
        if (m.binaries[k].file == bin.s) index = k;
      if (index == m.binaries.size())
        fail(bin, "binary '" + bin.s + "' is not listed in \"binaries\"");
      m.registrations.push_back(std::move(reg));
      m.binary_of.push_back(index);
      id_at.push_back(&id);
    }
    return m;
  }

 private:
  [[noreturn]] void fail(const JsonValue& at, const std::string& what) const {
    throw ManifestError(source_ + ":" + at.where() + ": " + what);
  }

  void object(const JsonValue& v, std::string_view what,
              std::initializer_list<std::string_view> keys) const {
    if (v.kind != JsonValue::Kind::Object) fail(v, std::string(what) + " must be an object");
    for (std::size_t m = 0; m < v.keys.size(); ++m) {
      bool known = false;
      for (auto key : keys) known = known || key == v.keys[m];
      if (!known) fail(v.values[m], "unknown key \"" + v.keys[m] + "\" in " + std::string(what));
    }
    for (auto key : keys)
      if (!v.find(key)) fail(v, std::string(what) + " lacks \"" + std::string(key) + "\"");
  }

  const JsonValue& member(const JsonValue& obj, std::string_view key, JsonValue::Kind kind) const {
    const JsonValue* v = obj.find(key);
    if (!v) fail(obj, "missing \"" + std::string(key) + "\"");
    if (v->kind != kind)
      fail(*v, "\"" + std::string(key) + "\" must be " + std::string(json_kind_name(kind)) +
                   ", not " + std::string(json_kind_name(v->kind)));
    return *v;
  }

  std::string source_;
  std::string base_;
};

}  // namespace detail

PYPTO_DECL PrebuiltManifest parse_prebuilt_manifest(std::string_view text,
                                                    const std::string& base_dir,
                                                    const std::string& source) {
  return detail::ManifestReader(source, base_dir).read(text);
}

PYPTO_DECL PrebuiltManifest read_prebuilt_manifest(const std::string& path) {
  auto text = files::try_read(path);
  if (!text) throw ManifestError("cannot read the manifest '" + path + "'");
  const auto slash = path.rfind('/');
  return parse_prebuilt_manifest(*text, slash == std::string::npos ? "." : path.substr(0, slash),
                                 path);
}

PYPTO_DECL std::string prebuilt_manifest_json(const PrebuiltManifest& m) {
  std::string out = "{\n  \"schema\": 1,\n  \"binaries\": [";
  for (std::size_t k = 0; k < m.binaries.size(); ++k)
    out += std::string(k ? "," : "") + "\n    {\"file\": " + json_quote(m.binaries[k].file) +
           ", \"sha256\": " + json_quote(m.binaries[k].sha256) + "}";
  out += "\n  ],\n  \"registrations\": [";
  for (std::size_t k = 0; k < m.registrations.size(); ++k) {
    const auto& r = m.registrations[k];
    std::string sig;
    for (std::size_t j = 0; j < r.signature.size(); ++j)
      sig += std::string(j ? ", " : "") + "\"" +
             std::string(codegen::runtime_direction_name(r.signature[j])) + "\"";
    out += std::string(k ? "," : "") + "\n    {\"func_id\": " + std::to_string(r.func_id) +
           ", \"name\": " + json_quote(r.code_name) + ", \"core_type\": \"" +
           std::string(codegen::core_type_name(r.core_type)) + "\", \"signature\": [" + sig +
           "], \"binary\": " + json_quote(m.binaries.at(m.binary_of.at(k)).file) + "}";
  }
  out += "\n  ]\n}\n";
  return out;
}

}  // namespace pypto::runtime

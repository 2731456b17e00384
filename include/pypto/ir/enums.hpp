// pypto/ir/enums.hpp — the enumerations of the IR and their DSL spellings.
//
// Each enum has one EnumTraits specialisation: its DSL type name (`pl.<type_name>.<value>`),
// the longer name the DSL also accepts (`pl.MemorySpace` for the printed `pl.Mem`), and a table of
// (value, spelling) entries. The first entry of a value is its printed name; later entries with the
// same value are aliases the parser also accepts (Level::L2CACHE). `enum_name`, `parse_enum` and
// the attribute payload EnumValue are all derived from the tables, so a new value is one table row.
// Lookups are O(entries) and constexpr. The rows are untyped (EnumSpelling: the underlying value
// and a spelling), so the lookups are plain functions compiled once rather than once per enum.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace pypto::ir {

enum class FunctionType : std::uint8_t {
  Opaque = 0,
  Orchestration = 1,
  InCore = 2,
  AIC = 3,
  AIV = 4,
  Group = 5,
  Spmd = 6,
  Inline = 7,
  Graph = 8,
};
/// InCore, AIC and AIV: functions whose body is one kernel.
constexpr bool is_kernel_function(FunctionType t) {
  return t == FunctionType::InCore || t == FunctionType::AIC || t == FunctionType::AIV;
}
/// The kernels plus the Group and Spmd wrappers: functions dispatched as a runtime task.
constexpr bool is_device_function(FunctionType t) {
  return is_kernel_function(t) || t == FunctionType::Group || t == FunctionType::Spmd;
}
/// Callee-side contract of a parameter.
enum class ParamDirection : std::uint8_t { In = 0, Out = 1, InOut = 2 };
/// Call-site direction of an argument (Call.attrs["arg_directions"]).
enum class ArgDirection : std::uint8_t {
  Input = 0,
  Output = 1,
  InOut = 2,
  OutputExisting = 3,
  NoDep = 4,
  Scalar = 5,
};
/// Hierarchy level in the machine model, from one vector core up to the global coordinator.
enum class Level : std::uint8_t {
  AIV = 0,
  AIC = 1,
  CORE_GROUP = 2,
  CHIP_DIE = 3,
  CHIP = 4,
  HOST = 5,
  CLUSTER_0 = 6,
  CLUSTER_1 = 7,
  CLUSTER_2 = 8,
  GLOBAL = 9,
};
/// Orchestrators build task graphs and submit work; sub-workers execute it.
enum class Role : std::uint8_t { Orchestrator = 0, SubWorker = 1 };
enum class ForKind : std::uint8_t { Sequential = 0, Parallel = 1, Unroll = 2, Pipeline = 3 };
/// AIV split of a vector region; `None` is the only "no split" encoding.
enum class SplitMode : std::uint8_t { None = 0, UpDown = 1, LeftRight = 2 };
enum class MemorySpace : std::uint8_t {
  DDR = 0,
  Vec = 1,
  Mat = 2,
  Left = 3,
  Right = 4,
  Acc = 5,
  Bias = 6,
  ScalarLocal = 7,
  LeftScale = 8,
  RightScale = 9,
};
enum class TensorLayout : std::uint8_t { ND = 0, DN = 1, NZ = 2, MX_A_ZZ = 3, MX_B_NN = 4 };
enum class TileLayout : std::uint8_t { none_box = 0, row_major = 1, col_major = 2 };
enum class PadValue : std::uint8_t { null = 0, zero = 1, max = 2, min = 3 };
enum class CompactMode : std::uint8_t { null = 0, normal = 1 };
/// GM cache policy of a tensor read ("cache policy").
enum class CachePolicy : std::uint8_t { DEFAULT = 0, BYPASS = 1 };
/// Task-scope dependency mode of a RuntimeScopeStmt.
enum class ScopeMode : std::uint8_t { AUTO = 0, MANUAL = 1 };
/// Atomic read-modify-write of a store; `None` is a plain store.
enum class AtomicType : std::uint8_t { None = 0, Add = 1 };
/// What pld.system.notify does to the peer's signal: add to it (reading it) or overwrite it.
enum class NotifyOp : std::uint8_t { AtomicAdd = 0, Set = 1 };
/// How pld.system.wait compares the signal with the expected value.
enum class WaitCmp : std::uint8_t { Eq = 0, Ge = 1 };
/// The elementwise combination of a collective across ranks.
enum class ReduceOp : std::uint8_t { Sum = 0, Max = 1, Min = 2, Prod = 3 };
/// A hardware pipe of one core, as synchronisation ops name them.
enum class PipeType : std::uint8_t {
  MTE1 = 0,
  MTE2 = 1,
  MTE3 = 2,
  M = 3,
  V = 4,
  S = 5,
  FIX = 6,
  ALL = 7
};

template <class E>
struct EnumTraits;  // specialised below for every IR enum

template <class E>
concept IrEnum = requires {
  EnumTraits<E>::type_name;
  EnumTraits<E>::entries;
};

/// One row of an enum's spelling table: an enumerator's underlying value and a DSL spelling.
struct EnumSpelling {
  std::int64_t value;
  std::string_view name;

  template <class E>
  requires std::is_enum_v<E>
  constexpr EnumSpelling(E v, std::string_view n) : value(static_cast<std::int64_t>(v)), name(n) {}
};

/// An enum's spelling table as a range: `for (const EnumSpelling& s : spellings<E>())`.
struct EnumSpellings {
  const EnumSpelling* first;
  std::size_t count;
  constexpr const EnumSpelling* begin() const { return first; }
  constexpr const EnumSpelling* end() const { return first + count; }
};
template <IrEnum E>
constexpr EnumSpellings spellings() {
  constexpr auto& table = EnumTraits<E>::entries;
  return {table, sizeof table / sizeof table[0]};
}

namespace detail {
/// The first spelling of `value` in `t`; "?" when it has none.
constexpr std::string_view spelling_of(EnumSpellings t, std::int64_t value) {
  for (const EnumSpelling& s : t)
    if (s.value == value) return s.name;
  return "?";
}
/// The value spelled `name` in `t`.
constexpr std::optional<std::int64_t> value_spelled(EnumSpellings t, std::string_view name) {
  for (const EnumSpelling& s : t)
    if (s.name == name) return s.value;
  return std::nullopt;
}
}  // namespace detail

/// Printed spelling of a value (its first table entry); "?" for a value outside the table.
template <IrEnum E>
constexpr std::string_view enum_name(E value) {
  return detail::spelling_of(spellings<E>(), static_cast<std::int64_t>(value));
}

/// The value spelled `name` (aliases included); nullopt when unknown.
template <IrEnum E>
constexpr std::optional<E> parse_enum(std::string_view name) {
  if (const std::optional<std::int64_t> v = detail::value_spelled(spellings<E>(), name))
    return static_cast<E>(*v);
  return std::nullopt;
}

/// The DSL module an enum is printed in (`pl` or `pld`); the parser accepts either.
template <IrEnum E>
constexpr std::string_view enum_module() {
  return EnumTraits<E>::module;
}

/// `written` without its DSL module prefix (`pl.` or `pld.`); empty when it has neither.
constexpr std::string_view strip_dsl_module(std::string_view written) {
  for (std::string_view m : {std::string_view("pl."), std::string_view("pld.")})
    if (written.starts_with(m)) return written.substr(m.size());
  return {};
}

/// True when `written` names the enum type E in the DSL: its printed name or its alias.
template <IrEnum E>
constexpr bool is_enum_type_name(std::string_view written) {
  return written == EnumTraits<E>::type_name ||
         (!EnumTraits<E>::type_alias.empty() && written == EnumTraits<E>::type_alias);
}

/// True when `raw` is the underlying value of some enumerator (for decoding untrusted input).
template <IrEnum E>
constexpr bool is_valid_enum(std::int64_t raw) {
  return detail::spelling_of(spellings<E>(), raw) != "?";
}

#define PYPTO_ENUM_TRAITS_IN(MODULE, E, TYPE_NAME, TYPE_ALIAS, ...) \
  template <>                                                       \
  struct EnumTraits<E> {                                            \
    static constexpr std::string_view module = MODULE;              \
    static constexpr std::string_view type_name = TYPE_NAME;        \
    static constexpr std::string_view type_alias = TYPE_ALIAS;      \
    static constexpr EnumSpelling entries[] = {__VA_ARGS__};        \
  }
#define PYPTO_ENUM_TRAITS_AKA(E, TYPE_NAME, TYPE_ALIAS, ...) \
  PYPTO_ENUM_TRAITS_IN("pl", E, TYPE_NAME, TYPE_ALIAS, __VA_ARGS__)
#define PYPTO_ENUM_TRAITS(E, TYPE_NAME, ...) PYPTO_ENUM_TRAITS_AKA(E, TYPE_NAME, "", __VA_ARGS__)

PYPTO_ENUM_TRAITS(FunctionType, "FunctionType", {FunctionType::Opaque, "Opaque"},
                  {FunctionType::Orchestration, "Orchestration"}, {FunctionType::InCore, "InCore"},
                  {FunctionType::AIC, "AIC"}, {FunctionType::AIV, "AIV"},
                  {FunctionType::Group, "Group"}, {FunctionType::Spmd, "Spmd"},
                  {FunctionType::Inline, "Inline"}, {FunctionType::Graph, "Graph"});
PYPTO_ENUM_TRAITS(ParamDirection, "ParamDirection", {ParamDirection::In, "In"},
                  {ParamDirection::Out, "Out"}, {ParamDirection::InOut, "InOut"});
PYPTO_ENUM_TRAITS(ArgDirection, "adir", {ArgDirection::Input, "input"},
                  {ArgDirection::Output, "output"}, {ArgDirection::InOut, "inout"},
                  {ArgDirection::OutputExisting, "output_existing"},
                  {ArgDirection::NoDep, "no_dep"}, {ArgDirection::Scalar, "scalar"});
PYPTO_ENUM_TRAITS(Level, "Level", {Level::AIV, "AIV"}, {Level::AIC, "AIC"},
                  {Level::CORE_GROUP, "CORE_GROUP"}, {Level::CHIP_DIE, "CHIP_DIE"},
                  {Level::CHIP, "CHIP"}, {Level::HOST, "HOST"}, {Level::CLUSTER_0, "CLUSTER_0"},
                  {Level::CLUSTER_1, "CLUSTER_1"}, {Level::CLUSTER_2, "CLUSTER_2"},
                  {Level::GLOBAL, "GLOBAL"}, {Level::CHIP_DIE, "L2CACHE"},
                  {Level::CHIP, "PROCESSOR"}, {Level::CHIP, "UMA"}, {Level::HOST, "NODE"},
                  {Level::CLUSTER_0, "POD"}, {Level::CLUSTER_1, "CLOS1"},
                  {Level::CLUSTER_2, "CLOS2"});
PYPTO_ENUM_TRAITS(Role, "Role", {Role::Orchestrator, "Orchestrator"},
                  {Role::SubWorker, "SubWorker"}, {Role::Orchestrator, "ORCHESTRATOR"},
                  {Role::SubWorker, "SUBWORKER"});
PYPTO_ENUM_TRAITS(ForKind, "ForKind", {ForKind::Sequential, "Sequential"},
                  {ForKind::Parallel, "Parallel"}, {ForKind::Unroll, "Unroll"},
                  {ForKind::Pipeline, "Pipeline"});
PYPTO_ENUM_TRAITS(SplitMode, "SplitMode", {SplitMode::None, "NONE"}, {SplitMode::UpDown, "UP_DOWN"},
                  {SplitMode::LeftRight, "LEFT_RIGHT"});
PYPTO_ENUM_TRAITS_AKA(MemorySpace, "Mem", "MemorySpace", {MemorySpace::DDR, "DDR"},
                      {MemorySpace::Vec, "Vec"}, {MemorySpace::Mat, "Mat"},
                      {MemorySpace::Left, "Left"}, {MemorySpace::Right, "Right"},
                      {MemorySpace::Acc, "Acc"}, {MemorySpace::Bias, "Bias"},
                      {MemorySpace::ScalarLocal, "ScalarLocal"},
                      {MemorySpace::LeftScale, "LeftScale"},
                      {MemorySpace::RightScale, "RightScale"});
PYPTO_ENUM_TRAITS(TensorLayout, "TensorLayout", {TensorLayout::ND, "ND"}, {TensorLayout::DN, "DN"},
                  {TensorLayout::NZ, "NZ"}, {TensorLayout::MX_A_ZZ, "MX_A_ZZ"},
                  {TensorLayout::MX_B_NN, "MX_B_NN"});
PYPTO_ENUM_TRAITS(TileLayout, "TileLayout", {TileLayout::none_box, "none_box"},
                  {TileLayout::row_major, "row_major"}, {TileLayout::col_major, "col_major"});
PYPTO_ENUM_TRAITS(PadValue, "PadValue", {PadValue::null, "null"}, {PadValue::zero, "zero"},
                  {PadValue::max, "max"}, {PadValue::min, "min"});
PYPTO_ENUM_TRAITS(CompactMode, "CompactMode", {CompactMode::null, "null"},
                  {CompactMode::normal, "normal"});
PYPTO_ENUM_TRAITS(CachePolicy, "CachePolicy", {CachePolicy::DEFAULT, "DEFAULT"},
                  {CachePolicy::BYPASS, "BYPASS"});
PYPTO_ENUM_TRAITS(ScopeMode, "ScopeMode", {ScopeMode::AUTO, "AUTO"}, {ScopeMode::MANUAL, "MANUAL"});
PYPTO_ENUM_TRAITS(AtomicType, "AtomicType", {AtomicType::None, "None_"}, {AtomicType::Add, "Add"});
PYPTO_ENUM_TRAITS_IN("pld", NotifyOp, "NotifyOp", "", {NotifyOp::AtomicAdd, "AtomicAdd"},
                     {NotifyOp::Set, "Set"});
PYPTO_ENUM_TRAITS_IN("pld", WaitCmp, "WaitCmp", "", {WaitCmp::Eq, "Eq"}, {WaitCmp::Ge, "Ge"});
PYPTO_ENUM_TRAITS_IN("pld", ReduceOp, "ReduceOp", "", {ReduceOp::Sum, "Sum"},
                     {ReduceOp::Max, "Max"}, {ReduceOp::Min, "Min"}, {ReduceOp::Prod, "Prod"});
PYPTO_ENUM_TRAITS(PipeType, "PipeType", {PipeType::MTE1, "MTE1"}, {PipeType::MTE2, "MTE2"},
                  {PipeType::MTE3, "MTE3"}, {PipeType::M, "M"}, {PipeType::V, "V"},
                  {PipeType::S, "S"}, {PipeType::FIX, "FIX"}, {PipeType::ALL, "ALL"});

#undef PYPTO_ENUM_TRAITS
#undef PYPTO_ENUM_TRAITS_AKA
#undef PYPTO_ENUM_TRAITS_IN

/// True for the kernel function types that run on one core kind (InCore and its AIC/AIV forms).
constexpr bool is_incore_type(FunctionType t) {
  return t == FunctionType::InCore || t == FunctionType::AIC || t == FunctionType::AIV;
}

/// The level a function type runs at when none is given (upstream's defaults).
constexpr std::optional<Level> default_level(FunctionType t) {
  switch (t) {
    case FunctionType::InCore: return Level::CHIP_DIE;
    case FunctionType::AIC: return Level::AIC;
    case FunctionType::AIV: return Level::AIV;
    case FunctionType::Group: return Level::CORE_GROUP;
    case FunctionType::Orchestration:
    case FunctionType::Graph: return Level::CHIP;
    default: return std::nullopt;
  }
}

/// The role a function type has when none is given: device kernels work, hosts orchestrate.
constexpr std::optional<Role> default_role(FunctionType t) {
  switch (t) {
    case FunctionType::InCore:
    case FunctionType::AIC:
    case FunctionType::AIV:
    case FunctionType::Group: return Role::SubWorker;
    case FunctionType::Orchestration:
    case FunctionType::Graph: return Role::Orchestrator;
    default: return std::nullopt;
  }
}

}  // namespace pypto::ir

// pypto/ir/ops/system.ipp — the system and prefetch op families: synchronisation, task ids,
// buffers and the cross-core pipes (docs/text-format.md lists them).
#pragma once

#include <cstdint>

#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/ops/type_rules.hpp"

namespace pypto::ir::ops {

// Cold: it runs once per registry, and the optimizer then spends little on its initialisers.
[[gnu::cold]] inline void add_system_ops(OpRegistry& r) {
  using K = KwargKind;
  using R = ArgEffect;
  auto stmt = [&r](OpDef d) {  // seed 001's legacy statement-only allowlist
    d.statement_only = true;
    d.type_rule = unknown;
    r.add(std::move(d));
  };
  auto effect_only = [&r](OpDef d) {
    d.type_rule = nothing;
    r.add(std::move(d));
  };

  // A declaration that the parser hoists onto the enclosing scope: it does not access the data
  // and is not one of the statement-only calls.
  r.add({.name = "set_cache_policy", .args = {{"tensor"}, {"policy"}}, .type_rule = unknown});

  // synchronisation
  stmt({.name = "system.set_ffts", .args = {{"workspace"}}});
  stmt({.name = "system.sync_set",
        .args = {{"event_id_dyn", R::Read, true}},
        .kwargs = {enum_kwarg<PipeType>("pipe"),
                   {"event_id", K::Int},
                   {"ffts_mode", K::Int},
                   {"core_type", K::String}}});
  stmt({.name = "system.sync_wait",
        .args = {{"event_id_dyn", R::Read, true}},
        .kwargs = {enum_kwarg<PipeType>("pipe"), {"event_id", K::Int}, {"core_type", K::String}}});
  for (const char* name : {"system.sync_src", "system.sync_dst"})
    effect_only({.name = name,
                 .kwargs = {enum_kwarg<PipeType>("set_pipe"),
                            enum_kwarg<PipeType>("wait_pipe"),
                            {"event_id", K::Int}}});
  for (const char* name : {"system.bar_v", "system.bar_m", "system.bar_all", "system.fence"})
    effect_only({.name = name});
  effect_only(
      {.name = "system.cacheinvalid",
       .args = {{"tensor", R::Read, true}, {"shapes", R::Read, true}, {"offsets", R::Read, true}}});
  effect_only({.name = "system.syncall",
               .args = {{"gm_workspace", R::ReadWrite, true}, {"used_cores", R::Read, true}},
               .kwargs = {{"core_type", K::String}, {"mode", K::String}}});

  // task ids and counts
  r.add({.name = "system.task_invalid", .type_rule = scalar<core::DataType::TASK_ID>});
  r.add({.name = "system.task_dummy",
         .kwargs = {{"deps", K::Any}},
         .type_rule = scalar<core::DataType::TASK_ID>});
  r.add({.name = "system.task_is_valid",
         .args = {{"task_id"}},
         .type_rule = scalar<core::DataType::BOOL>});
  r.add({.name = "system.available_aiv_count", .type_rule = scalar<core::DataType::INDEX>});
  r.add({.name = "system.available_cluster_count", .type_rule = scalar<core::DataType::INDEX>});

  // buffers and the cross-core pipes
  r.add({.name = "system.import_peer_buffer",
         .kwargs = {{"name", K::String}, {"peer_func", K::String}},
         .type_rule = scalar<core::DataType::INT32>,
         .spellings = {"import_peer_buffer"}});
  r.add({.name = "system.reserve_buffer",
         .kwargs = {{"name", K::String}, {"size", K::Int}, {"base", K::Int}},
         .type_rule = scalar<core::DataType::INT32>,
         .spellings = {"reserve_buffer"}});
  const std::vector<KwargSpec> pipe_kw = {{"dir_mask", K::Int},
                                          {"slot_size", K::Int},
                                          {"slot_num", K::Int},
                                          {"local_slot_num", K::Int},
                                          {"id", K::Int}};
  effect_only({.name = "system.aic_initialize_pipe",
               .args = {filled("c2v_consumer_buf", ArgFill::ZeroInt32),
                        {"v2c_consumer_buf", R::Read, true}},
               .kwargs = pipe_kw,
               .spellings = {"aic_initialize_pipe"}});
  effect_only({.name = "system.aiv_initialize_pipe",
               .args = {filled("c2v_consumer_buf", ArgFill::ZeroInt32),
                        {"v2c_consumer_buf", R::Read, true}},
               .kwargs = pipe_kw,
               .spellings = {"aiv_initialize_pipe"}});
  effect_only({.name = "system.tfree_to_aic",
               .args = {{"tile"}},
               .kwargs = {{"split", K::Int}, {"id", K::Int}},
               .spellings = {"tfree_to_aic"}});
  effect_only({.name = "system.tfree_to_aiv",
               .args = {{"tile"}},
               .kwargs = {{"split", K::Int}, {"id", K::Int}},
               .spellings = {"tfree_to_aiv"}});

  // prefetch: a context, its events and sessions, produced and consumed locally
  r.add({.name = "prefetch.make_context",
         .args = {{"workspace", R::Read, true}},
         .type_rule = resource<PrefetchAsyncContextType>});
  r.add({.name = "prefetch.async_prefetch",
         .args = {{"src"}, {"ctx"}},
         .type_rule = resource<AsyncEventType>});
  r.add({.name = "prefetch.session", .args = {{"ctx"}}, .type_rule = resource<AsyncSessionType>});
  r.add({.name = "prefetch.wait",
         .args = {{"event"}, {"session"}},
         .type_rule = scalar<core::DataType::BOOL>});
}

}  // namespace pypto::ir::ops

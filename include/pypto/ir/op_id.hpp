// pypto/ir/op_id.hpp — an id per op of the standard catalog, for consumers to switch on.
//
// The interpreter, the code generators and the passes dispatch on `Op::id` instead of comparing
// op names. PYPTO_IR_OPS is the list of the catalog's 296 names, sorted, each with its
// enumerator (the name with `_` for `.`); every op the standard registry defines has its id there
// and every id names a registered op (tests/unit/ir_op_registry_test.cpp checks both). An op a
// host registers itself has `OpId::custom`. docs/ir.md, "Ops".
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

// clang-format off
#define PYPTO_IR_OPS(X) \
  X(array_create, "array.create") \
  X(array_get_element, "array.get_element") \
  X(array_update_element, "array.update_element") \
  X(pld_system_defer_wait, "pld.system.defer_wait") \
  X(pld_system_get_comm_ctx, "pld.system.get_comm_ctx") \
  X(pld_system_notify, "pld.system.notify") \
  X(pld_system_nranks, "pld.system.nranks") \
  X(pld_system_rank, "pld.system.rank") \
  X(pld_system_wait, "pld.system.wait") \
  X(pld_system_world_size, "pld.system.world_size") \
  X(pld_tensor_all_to_all, "pld.tensor.all_to_all") \
  X(pld_tensor_all_to_all_v, "pld.tensor.all_to_all_v") \
  X(pld_tensor_allgather, "pld.tensor.allgather") \
  X(pld_tensor_alloc_window_buffer, "pld.tensor.alloc_window_buffer") \
  X(pld_tensor_allreduce, "pld.tensor.allreduce") \
  X(pld_tensor_barrier, "pld.tensor.barrier") \
  X(pld_tensor_broadcast, "pld.tensor.broadcast") \
  X(pld_tensor_get, "pld.tensor.get") \
  X(pld_tensor_put, "pld.tensor.put") \
  X(pld_tensor_reduce_scatter, "pld.tensor.reduce_scatter") \
  X(pld_tensor_remote_store, "pld.tensor.remote_store") \
  X(pld_tensor_window, "pld.tensor.window") \
  X(pld_tile_get, "pld.tile.get") \
  X(pld_tile_put, "pld.tile.put") \
  X(pld_tile_remote_load, "pld.tile.remote_load") \
  X(pld_tile_remote_store, "pld.tile.remote_store") \
  X(prefetch_async_prefetch, "prefetch.async_prefetch") \
  X(prefetch_make_context, "prefetch.make_context") \
  X(prefetch_session, "prefetch.session") \
  X(prefetch_wait, "prefetch.wait") \
  X(set_cache_policy, "set_cache_policy") \
  X(system_aic_initialize_pipe, "system.aic_initialize_pipe") \
  X(system_aiv_initialize_pipe, "system.aiv_initialize_pipe") \
  X(system_available_aiv_count, "system.available_aiv_count") \
  X(system_available_cluster_count, "system.available_cluster_count") \
  X(system_bar_all, "system.bar_all") \
  X(system_bar_m, "system.bar_m") \
  X(system_bar_v, "system.bar_v") \
  X(system_cacheinvalid, "system.cacheinvalid") \
  X(system_fence, "system.fence") \
  X(system_import_peer_buffer, "system.import_peer_buffer") \
  X(system_reserve_buffer, "system.reserve_buffer") \
  X(system_set_ffts, "system.set_ffts") \
  X(system_sync_dst, "system.sync_dst") \
  X(system_sync_set, "system.sync_set") \
  X(system_sync_src, "system.sync_src") \
  X(system_sync_wait, "system.sync_wait") \
  X(system_syncall, "system.syncall") \
  X(system_task_dummy, "system.task_dummy") \
  X(system_task_invalid, "system.task_invalid") \
  X(system_task_is_valid, "system.task_is_valid") \
  X(system_tfree_to_aic, "system.tfree_to_aic") \
  X(system_tfree_to_aiv, "system.tfree_to_aiv") \
  X(tensor_abs, "tensor.abs") \
  X(tensor_add, "tensor.add") \
  X(tensor_adds, "tensor.adds") \
  X(tensor_aic_gather, "tensor.aic_gather") \
  X(tensor_aiv_shard, "tensor.aiv_shard") \
  X(tensor_alloc, "tensor.alloc") \
  X(tensor_and, "tensor.and") \
  X(tensor_ands, "tensor.ands") \
  X(tensor_assemble, "tensor.assemble") \
  X(tensor_cast, "tensor.cast") \
  X(tensor_ci, "tensor.ci") \
  X(tensor_cmp, "tensor.cmp") \
  X(tensor_col_argmax, "tensor.col_argmax") \
  X(tensor_col_argmin, "tensor.col_argmin") \
  X(tensor_col_expand, "tensor.col_expand") \
  X(tensor_col_expand_add, "tensor.col_expand_add") \
  X(tensor_col_expand_div, "tensor.col_expand_div") \
  X(tensor_col_expand_expdif, "tensor.col_expand_expdif") \
  X(tensor_col_expand_max, "tensor.col_expand_max") \
  X(tensor_col_expand_min, "tensor.col_expand_min") \
  X(tensor_col_expand_mul, "tensor.col_expand_mul") \
  X(tensor_col_expand_sub, "tensor.col_expand_sub") \
  X(tensor_col_max, "tensor.col_max") \
  X(tensor_col_min, "tensor.col_min") \
  X(tensor_col_prod, "tensor.col_prod") \
  X(tensor_col_sum, "tensor.col_sum") \
  X(tensor_concat, "tensor.concat") \
  X(tensor_cos, "tensor.cos") \
  X(tensor_create, "tensor.create") \
  X(tensor_create_l1, "tensor.create_l1") \
  X(tensor_dim, "tensor.dim") \
  X(tensor_div, "tensor.div") \
  X(tensor_divs, "tensor.divs") \
  X(tensor_exp, "tensor.exp") \
  X(tensor_expand_clone, "tensor.expand_clone") \
  X(tensor_expands, "tensor.expands") \
  X(tensor_fillpad, "tensor.fillpad") \
  X(tensor_fillpad_expand, "tensor.fillpad_expand") \
  X(tensor_fmod, "tensor.fmod") \
  X(tensor_fmods, "tensor.fmods") \
  X(tensor_full, "tensor.full") \
  X(tensor_gather, "tensor.gather") \
  X(tensor_gather_compare, "tensor.gather_compare") \
  X(tensor_gather_mask, "tensor.gather_mask") \
  X(tensor_gather_row, "tensor.gather_row") \
  X(tensor_get_block_idx, "tensor.get_block_idx") \
  X(tensor_get_block_num, "tensor.get_block_num") \
  X(tensor_get_subblock_idx, "tensor.get_subblock_idx") \
  X(tensor_log, "tensor.log") \
  X(tensor_matmul, "tensor.matmul") \
  X(tensor_matmul_acc, "tensor.matmul_acc") \
  X(tensor_maximum, "tensor.maximum") \
  X(tensor_minimum, "tensor.minimum") \
  X(tensor_mrgsort_format1, "tensor.mrgsort_format1") \
  X(tensor_mrgsort_format2, "tensor.mrgsort_format2") \
  X(tensor_mul, "tensor.mul") \
  X(tensor_muls, "tensor.muls") \
  X(tensor_neg, "tensor.neg") \
  X(tensor_not, "tensor.not") \
  X(tensor_or, "tensor.or") \
  X(tensor_ors, "tensor.ors") \
  X(tensor_paged_gather, "tensor.paged_gather") \
  X(tensor_part_add, "tensor.part_add") \
  X(tensor_part_max, "tensor.part_max") \
  X(tensor_part_min, "tensor.part_min") \
  X(tensor_part_mul, "tensor.part_mul") \
  X(tensor_random, "tensor.random") \
  X(tensor_read, "tensor.read") \
  X(tensor_recip, "tensor.recip") \
  X(tensor_reinterpret_view, "tensor.reinterpret_view") \
  X(tensor_reshape, "tensor.reshape") \
  X(tensor_row_argmax, "tensor.row_argmax") \
  X(tensor_row_argmin, "tensor.row_argmin") \
  X(tensor_row_expand, "tensor.row_expand") \
  X(tensor_row_expand_add, "tensor.row_expand_add") \
  X(tensor_row_expand_div, "tensor.row_expand_div") \
  X(tensor_row_expand_expdif, "tensor.row_expand_expdif") \
  X(tensor_row_expand_max, "tensor.row_expand_max") \
  X(tensor_row_expand_min, "tensor.row_expand_min") \
  X(tensor_row_expand_mul, "tensor.row_expand_mul") \
  X(tensor_row_expand_sub, "tensor.row_expand_sub") \
  X(tensor_row_max, "tensor.row_max") \
  X(tensor_row_min, "tensor.row_min") \
  X(tensor_row_prod, "tensor.row_prod") \
  X(tensor_row_sum, "tensor.row_sum") \
  X(tensor_rsqrt, "tensor.rsqrt") \
  X(tensor_scatter, "tensor.scatter") \
  X(tensor_scatter_mask, "tensor.scatter_mask") \
  X(tensor_scatter_update, "tensor.scatter_update") \
  X(tensor_set_validshape, "tensor.set_validshape") \
  X(tensor_shl, "tensor.shl") \
  X(tensor_shls, "tensor.shls") \
  X(tensor_shr, "tensor.shr") \
  X(tensor_shrs, "tensor.shrs") \
  X(tensor_sin, "tensor.sin") \
  X(tensor_slice, "tensor.slice") \
  X(tensor_sort32, "tensor.sort32") \
  X(tensor_sqrt, "tensor.sqrt") \
  X(tensor_sub, "tensor.sub") \
  X(tensor_subs, "tensor.subs") \
  X(tensor_transpose, "tensor.transpose") \
  X(tensor_view, "tensor.view") \
  X(tensor_write, "tensor.write") \
  X(tensor_xor, "tensor.xor") \
  X(tensor_xors, "tensor.xors") \
  X(tile_abs, "tile.abs") \
  X(tile_add, "tile.add") \
  X(tile_addc, "tile.addc") \
  X(tile_adds, "tile.adds") \
  X(tile_addsc, "tile.addsc") \
  X(tile_aic_gather, "tile.aic_gather") \
  X(tile_aiv_shard, "tile.aiv_shard") \
  X(tile_alloc, "tile.alloc") \
  X(tile_and, "tile.and") \
  X(tile_ands, "tile.ands") \
  X(tile_assemble, "tile.assemble") \
  X(tile_batch_matmul, "tile.batch_matmul") \
  X(tile_batch_matmul_acc, "tile.batch_matmul_acc") \
  X(tile_cast, "tile.cast") \
  X(tile_ci, "tile.ci") \
  X(tile_cmp, "tile.cmp") \
  X(tile_cmps, "tile.cmps") \
  X(tile_col_argmax, "tile.col_argmax") \
  X(tile_col_argmin, "tile.col_argmin") \
  X(tile_col_expand, "tile.col_expand") \
  X(tile_col_expand_add, "tile.col_expand_add") \
  X(tile_col_expand_div, "tile.col_expand_div") \
  X(tile_col_expand_expdif, "tile.col_expand_expdif") \
  X(tile_col_expand_max, "tile.col_expand_max") \
  X(tile_col_expand_min, "tile.col_expand_min") \
  X(tile_col_expand_mul, "tile.col_expand_mul") \
  X(tile_col_expand_sub, "tile.col_expand_sub") \
  X(tile_col_max, "tile.col_max") \
  X(tile_col_min, "tile.col_min") \
  X(tile_col_prod, "tile.col_prod") \
  X(tile_col_sum, "tile.col_sum") \
  X(tile_concat, "tile.concat") \
  X(tile_cos, "tile.cos") \
  X(tile_create, "tile.create") \
  X(tile_div, "tile.div") \
  X(tile_divs, "tile.divs") \
  X(tile_exp, "tile.exp") \
  X(tile_expands, "tile.expands") \
  X(tile_extract, "tile.extract") \
  X(tile_fillpad, "tile.fillpad") \
  X(tile_fillpad_expand, "tile.fillpad_expand") \
  X(tile_fillpad_inplace, "tile.fillpad_inplace") \
  X(tile_fmod, "tile.fmod") \
  X(tile_fmods, "tile.fmods") \
  X(tile_full, "tile.full") \
  X(tile_gather, "tile.gather") \
  X(tile_gather_compare, "tile.gather_compare") \
  X(tile_gather_mask, "tile.gather_mask") \
  X(tile_gather_row, "tile.gather_row") \
  X(tile_gatherb, "tile.gatherb") \
  X(tile_gemv, "tile.gemv") \
  X(tile_gemv_acc, "tile.gemv_acc") \
  X(tile_gemv_bias, "tile.gemv_bias") \
  X(tile_get_block_idx, "tile.get_block_idx") \
  X(tile_get_block_num, "tile.get_block_num") \
  X(tile_get_subblock_idx, "tile.get_subblock_idx") \
  X(tile_load, "tile.load") \
  X(tile_log, "tile.log") \
  X(tile_lrelu, "tile.lrelu") \
  X(tile_matmul, "tile.matmul") \
  X(tile_matmul_acc, "tile.matmul_acc") \
  X(tile_matmul_bias, "tile.matmul_bias") \
  X(tile_matmul_mx, "tile.matmul_mx") \
  X(tile_matmul_mx_acc, "tile.matmul_mx_acc") \
  X(tile_matmul_mx_bias, "tile.matmul_mx_bias") \
  X(tile_maximum, "tile.maximum") \
  X(tile_maximums, "tile.maximums") \
  X(tile_mgather, "tile.mgather") \
  X(tile_minimum, "tile.minimum") \
  X(tile_minimums, "tile.minimums") \
  X(tile_move, "tile.move") \
  X(tile_mrgsort_format1, "tile.mrgsort_format1") \
  X(tile_mrgsort_format2, "tile.mrgsort_format2") \
  X(tile_mscatter, "tile.mscatter") \
  X(tile_mul, "tile.mul") \
  X(tile_muls, "tile.muls") \
  X(tile_neg, "tile.neg") \
  X(tile_not, "tile.not") \
  X(tile_or, "tile.or") \
  X(tile_ors, "tile.ors") \
  X(tile_part_add, "tile.part_add") \
  X(tile_part_max, "tile.part_max") \
  X(tile_part_min, "tile.part_min") \
  X(tile_part_mul, "tile.part_mul") \
  X(tile_prelu, "tile.prelu") \
  X(tile_random, "tile.random") \
  X(tile_read, "tile.read") \
  X(tile_recip, "tile.recip") \
  X(tile_reinterpret_view, "tile.reinterpret_view") \
  X(tile_relu, "tile.relu") \
  X(tile_rem, "tile.rem") \
  X(tile_rems, "tile.rems") \
  X(tile_reshape, "tile.reshape") \
  X(tile_row_argmax, "tile.row_argmax") \
  X(tile_row_argmin, "tile.row_argmin") \
  X(tile_row_expand, "tile.row_expand") \
  X(tile_row_expand_add, "tile.row_expand_add") \
  X(tile_row_expand_div, "tile.row_expand_div") \
  X(tile_row_expand_expdif, "tile.row_expand_expdif") \
  X(tile_row_expand_max, "tile.row_expand_max") \
  X(tile_row_expand_min, "tile.row_expand_min") \
  X(tile_row_expand_mul, "tile.row_expand_mul") \
  X(tile_row_expand_sub, "tile.row_expand_sub") \
  X(tile_row_max, "tile.row_max") \
  X(tile_row_min, "tile.row_min") \
  X(tile_row_prod, "tile.row_prod") \
  X(tile_row_sum, "tile.row_sum") \
  X(tile_rsqrt, "tile.rsqrt") \
  X(tile_scatter, "tile.scatter") \
  X(tile_scatter_mask, "tile.scatter_mask") \
  X(tile_scatter_update, "tile.scatter_update") \
  X(tile_sel, "tile.sel") \
  X(tile_sels, "tile.sels") \
  X(tile_set_validshape, "tile.set_validshape") \
  X(tile_shl, "tile.shl") \
  X(tile_shls, "tile.shls") \
  X(tile_shr, "tile.shr") \
  X(tile_shrs, "tile.shrs") \
  X(tile_sin, "tile.sin") \
  X(tile_slice, "tile.slice") \
  X(tile_sort32, "tile.sort32") \
  X(tile_sqrt, "tile.sqrt") \
  X(tile_store, "tile.store") \
  X(tile_sub, "tile.sub") \
  X(tile_subc, "tile.subc") \
  X(tile_subs, "tile.subs") \
  X(tile_subsc, "tile.subsc") \
  X(tile_tget_scale_addr, "tile.tget_scale_addr") \
  X(tile_tpop_from_aic, "tile.tpop_from_aic") \
  X(tile_tpop_from_aiv, "tile.tpop_from_aiv") \
  X(tile_tpush_to_aic, "tile.tpush_to_aic") \
  X(tile_tpush_to_aiv, "tile.tpush_to_aiv") \
  X(tile_transpose, "tile.transpose") \
  X(tile_transpose_view, "tile.transpose_view") \
  X(tile_tri, "tile.tri") \
  X(tile_write, "tile.write") \
  X(tile_xor, "tile.xor") \
  X(tile_xors, "tile.xors")
// clang-format on

namespace pypto::ir {

// clang-format off
enum class OpId : std::uint16_t {
#define PYPTO_IR_OP_ENUMERATOR(id, name) id,
  PYPTO_IR_OPS(PYPTO_IR_OP_ENUMERATOR)
#undef PYPTO_IR_OP_ENUMERATOR
  custom  ///< an op outside the standard catalog
};
// clang-format on

/// The catalog's op names, in OpId order (sorted).
inline constexpr std::array<std::string_view, static_cast<std::size_t>(OpId::custom)> kOpNames = {
#define PYPTO_IR_OP_NAME(id, name) name,
    PYPTO_IR_OPS(PYPTO_IR_OP_NAME)
#undef PYPTO_IR_OP_NAME
};
static_assert(std::is_sorted(kOpNames.begin(), kOpNames.end()), "PYPTO_IR_OPS must stay sorted");

/// The id of the op `name`: OpId::custom when the standard catalog has none of that name.
constexpr OpId op_id(std::string_view name) {
  const auto it = std::lower_bound(kOpNames.begin(), kOpNames.end(), name);
  return it != kOpNames.end() && *it == name ? static_cast<OpId>(it - kOpNames.begin())
                                             : OpId::custom;
}

/// The name of a standard op; "" for OpId::custom.
constexpr std::string_view op_name(OpId id) {
  return id < OpId::custom ? kOpNames[static_cast<std::size_t>(id)] : std::string_view();
}

}  // namespace pypto::ir

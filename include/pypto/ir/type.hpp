// pypto/ir/type.hpp — the types of the IR and the storage descriptors they carry.
//
// Types are immutable nodes without spans: ScalarType (a dtype), TensorType (a DDR tensor with
// an optional TensorView, possibly a distributed window view), TileType (an on-core tile with
// an optional TileView and memory space), ArrayType (a small on-core array of integers),
// TupleType, UnknownType (not inferred yet), and fieldless resource types (MemRef, Ptr,
// WindowBuffer, CommCtx, prefetch context/event/session). Shapes are expressions: a constant,
// a shape symbol Var, or an arithmetic expression over them, always of an integer dtype (a
// dimension keeps its exact dtype: INDEX and INT64 dims differ).
//
// Storage descriptors live here because types refer to them: a MemRef (an allocation view:
// base pointer Var, byte offset, size, pinning, slots) attached to a Tensor/Tile type, and a
// WindowBuffer (a distributed window slot, a binding Var with storage fields). A MemRef is not a
// Var: its identity is its base and its fields, not its address (storage).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/core/dtype.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/var.hpp"

namespace pypto::ir {

using core::DataType;

// ---- fieldless types --------------------------------------------------------------------------

namespace detail {
template <class T>
Ref<const T> make_fieldless_type() {
  return make_node<T>();
}
}  // namespace detail

#define PYPTO_FIELDLESS_TYPE(T, DOC)                                        \
  /** DOC */                                                                \
  struct T final : Type {                                                   \
    PYPTO_CONCRETE_NODE(T)                                                  \
    using fields = Type::fields;                                            \
    static Ref<const T> make() { return detail::make_fieldless_type<T>(); } \
  };

PYPTO_FIELDLESS_TYPE(UnknownType, "A type not inferred yet; equal to itself, proves nothing.")
PYPTO_FIELDLESS_TYPE(MemRefType, "The type of a MemRef storage descriptor.")
PYPTO_FIELDLESS_TYPE(PtrType, "An allocation base pointer (the base of a MemRef).")
PYPTO_FIELDLESS_TYPE(WindowBufferType, "The type of a WindowBuffer slot.")
PYPTO_FIELDLESS_TYPE(CommCtxType, "A communication context handle.")
PYPTO_FIELDLESS_TYPE(PrefetchAsyncContextType, "A prefetch context (prefetch.make_context).")
PYPTO_FIELDLESS_TYPE(AsyncEventType, "A prefetch completion event (prefetch.async_prefetch).")
PYPTO_FIELDLESS_TYPE(AsyncSessionType, "A prefetch wait session (prefetch.session).")
#undef PYPTO_FIELDLESS_TYPE

struct ScalarType final : Type {
  PYPTO_CONCRETE_NODE(ScalarType)
  DataType dtype{};
  using fields = ConcatFields<Type::fields, FieldList<UsualField<&ScalarType::dtype, "dtype">>>;

  /// The scalar type of `dtype`. Scalar types are shared, one per dtype: every constant and
  /// scalar expression has one, and a fresh allocation each halved expression-building speed.
  static Ref<const ScalarType> make(DataType dtype) {
    static const auto table = [] {
      std::array<Ref<const ScalarType>, 256> t;
      for (DataType d : core::kAllDataTypes) {
        auto node = make_node<ScalarType>();
        node->dtype = d;
        t[core::code(d)] = std::move(node);
      }
      return t;
    }();
    if (const auto& shared = table[core::code(dtype)]) return shared;
    auto t = make_node<ScalarType>();  // a code outside the catalog (decoded foreign IR)
    t->dtype = dtype;
    return t;
  }
};

/// True for an expression usable as a shape dimension, offset or stride: integer scalar-typed.
inline bool is_integer_scalar(const ExprRef& e) {
  const auto* st = e ? as<ScalarType>(e->type.get()) : nullptr;
  return st && core::is_int(st->dtype);
}

/// True for a non-null expression of scalar type `dtype` (a BOOL condition, a TASK_ID dependency).
inline bool has_scalar_dtype(const ExprRef& e, DataType dtype) {
  const auto* st = e ? as<ScalarType>(e->type.get()) : nullptr;
  return st && st->dtype == dtype;
}

namespace detail {
inline void require_dims(const std::vector<ExprRef>& dims, std::string_view node,
                         std::string_view field) {
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (!is_integer_scalar(dims[i]))
      fail(node, indexed(field, i),
           dims[i] ? "a dimension must be an integer scalar expression"
                   : "a dimension must not be null");
}
}  // namespace detail

// ---- storage descriptors ----------------------------------------------------------------------

/// An allocation view: `size` bytes at `byte_offset` from the allocation `base`; with
/// `slot_count > 1` a multi-buffered allocation of which `slot_index` selects one slot.
struct MemRef final : Expr {
  PYPTO_CONCRETE_NODE(MemRef)
  VarRef base;
  ExprRef byte_offset;
  std::uint64_t size = 0;
  bool is_pinned = false;
  std::int64_t slot_count = 1;
  ExprRef slot_index;  ///< optional (null when absent)

  using fields = ConcatFields<
      Expr::fields,
      FieldList<UsualField<&MemRef::base, "base">, UsualField<&MemRef::byte_offset, "byte_offset">,
                UsualField<&MemRef::size, "size">, UsualField<&MemRef::is_pinned, "is_pinned">,
                UsualField<&MemRef::slot_count, "slot_count">,
                UsualField<&MemRef::slot_index, "slot_index">>>;

  static Ref<const MemRef> make(VarRef base, ExprRef byte_offset, std::uint64_t size,
                                bool is_pinned = false, std::int64_t slot_count = 1,
                                ExprRef slot_index = nullptr, Span span = {}) {
    detail::require(static_cast<bool>(base), "MemRef", "base", "an allocation base is required");
    detail::require(is_integer_scalar(byte_offset), "MemRef", "byte_offset",
                    "must be an integer scalar expression");
    detail::require(slot_count >= 1, "MemRef", "slot_count", "must be at least 1");
    detail::require(!slot_index || is_integer_scalar(slot_index), "MemRef", "slot_index",
                    "must be an integer scalar expression");
    auto m = make_node<MemRef>();
    m->type = MemRefType::make();
    m->span = std::move(span);
    m->base = std::move(base);
    m->byte_offset = std::move(byte_offset);
    m->size = size;
    m->is_pinned = is_pinned;
    m->slot_count = slot_count;
    m->slot_index = std::move(slot_index);
    return m;
  }
};
using MemRefRef = Ref<const MemRef>;

/// A distributed window slot: a binding (compared as a variable) plus its storage fields.
struct WindowBuffer final : Var {
  PYPTO_CONCRETE_NODE(WindowBuffer)
  VarRef base;  ///< optional backing buffer
  ExprRef size;
  bool load_from_host = false;
  bool store_to_host = false;

  using fields = ConcatFields<
      Var::fields,
      FieldList<UsualField<&WindowBuffer::base, "base">, UsualField<&WindowBuffer::size, "size">,
                UsualField<&WindowBuffer::load_from_host, "load_from_host">,
                UsualField<&WindowBuffer::store_to_host, "store_to_host">>>;

  static Ref<const WindowBuffer> make(std::string name_hint, ExprRef size, VarRef base = nullptr,
                                      bool load_from_host = false, bool store_to_host = false,
                                      Span span = {}) {
    detail::require(is_integer_scalar(size), "WindowBuffer", "size",
                    "must be an integer scalar expression");
    auto w = make_named<WindowBuffer>("WindowBuffer", std::move(name_hint),
                                      WindowBufferType::make(), std::move(span));
    w->base = std::move(base);
    w->size = std::move(size);
    w->load_from_host = load_from_host;
    w->store_to_host = store_to_host;
    return w;
  }
};
using WindowBufferRef = Ref<const WindowBuffer>;

// ---- shaped types -----------------------------------------------------------------------------

/// Layout of a tensor in DDR. An empty `stride` means contiguous; an empty `valid_shape` means
/// the whole shape is valid.
struct TensorView {
  std::vector<ExprRef> stride;
  TensorLayout layout = TensorLayout::ND;
  std::vector<ExprRef> valid_shape;
  PadValue pad = PadValue::null;

  using fields = FieldList<
      UsualField<&TensorView::stride, "stride">, UsualField<&TensorView::layout, "layout">,
      UsualField<&TensorView::valid_shape, "valid_shape">, UsualField<&TensorView::pad, "pad">>;
};

/// Layout of a tile in on-core memory: valid region, strides, start offset (optional), block
/// and scatter layouts, fractal size in bytes, padding and compaction.
struct TileView {
  std::vector<ExprRef> valid_shape;
  std::vector<ExprRef> stride;
  ExprRef start_offset;  ///< optional (null when absent)
  TileLayout blayout = TileLayout::row_major;
  TileLayout slayout = TileLayout::none_box;
  std::uint64_t fractal = 512;
  PadValue pad = PadValue::null;
  CompactMode compact = CompactMode::null;

  using fields = FieldList<
      UsualField<&TileView::valid_shape, "valid_shape">, UsualField<&TileView::stride, "stride">,
      UsualField<&TileView::start_offset, "start_offset">,
      UsualField<&TileView::blayout, "blayout">, UsualField<&TileView::slayout, "slayout">,
      UsualField<&TileView::fractal, "fractal">, UsualField<&TileView::pad, "pad">,
      UsualField<&TileView::compact, "compact">>;
};

/// Base of TensorType and TileType: element dtype, shape, optional attached storage.
struct ShapedType : Type {
  PYPTO_ABSTRACT_NODE(ShapedType, (KindRange{NodeKind::TensorType, NodeKind::TileType}))
  DataType dtype{};
  std::vector<ExprRef> shape;
  MemRefRef memref;  ///< optional (null when no storage is attached)

  using fields = ConcatFields<Type::fields, FieldList<UsualField<&ShapedType::dtype, "dtype">,
                                                      UsualField<&ShapedType::shape, "shape">,
                                                      UsualField<&ShapedType::memref, "memref">>>;

  std::size_t rank() const { return shape.size(); }

 protected:
  static void check_view_dims(const std::vector<ExprRef>& dims, std::size_t rank,
                              std::string_view node, std::string_view field) {
    detail::require_dims(dims, node, field);
    if (!dims.empty() && dims.size() != rank)
      detail::fail(node, field,
                   "has " + std::to_string(dims.size()) + " entries for a rank-" +
                       std::to_string(rank) + " shape");
  }
};

/// A tensor in DDR. A `distributed` tensor (`pld.DistributedTensor`) is this rank's slice of a
/// window buffer shared between ranks: the cross-rank ops take only these, every tensor op
/// takes them too, and views of one stay distributed.
struct TensorType final : ShapedType {
  PYPTO_CONCRETE_NODE(TensorType)
  std::optional<TensorView> tensor_view;
  bool distributed = false;

  using fields = ConcatFields<ShapedType::fields,
                              FieldList<UsualField<&TensorType::tensor_view, "tensor_view">,
                                        UsualField<&TensorType::distributed, "distributed">>>;

  static Ref<const TensorType> make(DataType dtype, std::vector<ExprRef> shape,
                                    std::optional<TensorView> view = std::nullopt,
                                    MemRefRef memref = nullptr, bool distributed = false) {
    detail::require_dims(shape, "TensorType", "shape");
    if (view) {
      check_view_dims(view->stride, shape.size(), "TensorType", "tensor_view.stride");
      check_view_dims(view->valid_shape, shape.size(), "TensorType", "tensor_view.valid_shape");
    }
    auto t = make_node<TensorType>();
    t->dtype = dtype;
    t->shape = std::move(shape);
    t->tensor_view = std::move(view);
    t->memref = std::move(memref);
    t->distributed = distributed;
    return t;
  }
};

struct TileType final : ShapedType {
  PYPTO_CONCRETE_NODE(TileType)
  std::optional<TileView> tile_view;
  std::optional<MemorySpace> memory_space;

  using fields = ConcatFields<ShapedType::fields,
                              FieldList<UsualField<&TileType::tile_view, "tile_view">,
                                        UsualField<&TileType::memory_space, "memory_space">>>;

  static Ref<const TileType> make(DataType dtype, std::vector<ExprRef> shape,
                                  std::optional<MemorySpace> memory_space = std::nullopt,
                                  std::optional<TileView> view = std::nullopt,
                                  MemRefRef memref = nullptr) {
    detail::require_dims(shape, "TileType", "shape");
    if (view) {
      check_view_dims(view->valid_shape, shape.size(), "TileType", "tile_view.valid_shape");
      check_view_dims(view->stride, shape.size(), "TileType", "tile_view.stride");
      detail::require(!view->start_offset || is_integer_scalar(view->start_offset), "TileType",
                      "tile_view.start_offset", "must be an integer scalar expression");
      detail::require(view->fractal > 0, "TileType", "tile_view.fractal", "must be positive");
    }
    auto t = make_node<TileType>();
    t->dtype = dtype;
    t->shape = std::move(shape);
    t->tile_view = std::move(view);
    t->memory_space = memory_space;
    t->memref = std::move(memref);
    return t;
  }
};

/// A small fixed-size array of integers, BOOLs or task ids held in on-core scalar storage
/// (`pl.Array[4, pl.TASK_ID]`); it never crosses a function boundary. Upstream's extent is a
/// constant expression; here it is the constant.
struct ArrayType final : Type {
  PYPTO_CONCRETE_NODE(ArrayType)
  DataType dtype{};
  std::int64_t extent = 0;

  using fields = ConcatFields<Type::fields, FieldList<UsualField<&ArrayType::dtype, "dtype">,
                                                      UsualField<&ArrayType::extent, "extent">>>;

  static Ref<const ArrayType> make(DataType dtype, std::int64_t extent) {
    detail::require(core::is_int(dtype) || dtype == DataType::BOOL || dtype == DataType::TASK_ID,
                    "ArrayType", "dtype", "must be an integer, BOOL or TASK_ID");
    detail::require(extent > 0, "ArrayType", "extent", "must be positive");
    auto t = make_node<ArrayType>();
    t->dtype = dtype;
    t->extent = extent;
    return t;
  }
};

/// True for a task dependency: a TASK_ID scalar, or a pl.Array of task ids (a fence on each).
inline bool is_task_dependency(const ExprRef& e) {
  if (has_scalar_dtype(e, DataType::TASK_ID)) return true;
  const auto* a = e ? as<ArrayType>(e->type.get()) : nullptr;
  return a && a->dtype == DataType::TASK_ID;
}

struct TupleType final : Type {
  PYPTO_CONCRETE_NODE(TupleType)
  std::vector<TypeRef> types;

  using fields = ConcatFields<Type::fields, FieldList<UsualField<&TupleType::types, "types">>>;

  static Ref<const TupleType> make(std::vector<TypeRef> types) {
    detail::require_non_null(types, "TupleType", "types");
    auto t = make_node<TupleType>();
    t->types = std::move(types);
    return t;
  }
};

}  // namespace pypto::ir

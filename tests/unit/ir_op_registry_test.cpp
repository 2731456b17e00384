// The op registry: the standard ops, their declared effects, keyword checks and type rules.
#include <doctest/doctest.h>

#include <algorithm>
#include <pypto/ir.hpp>
#include <pypto/ir/op_registry.hpp>
#include <string>
#include <vector>

using namespace pypto::ir;
using pypto::core::TypeError;
using pypto::core::ValueError;

namespace {

ExprRef idx(std::int64_t v) { return ConstInt::make(v); }
ExprRef list(std::vector<ExprRef> xs) { return MakeTuple::make(std::move(xs)); }
TypeRef tensor(DataType dt, std::int64_t rows, std::int64_t cols) {
  return TensorType::make(dt, {idx(rows), idx(cols)});
}
std::int64_t const_dim(const ExprRef& e) { return cast<ConstInt>(e)->value; }

struct Fixture {
  OpRegistry ops = standard_op_registry();
  VarRef a = Var::make("a", tensor(DataType::FP16, 64, 128));
  VarRef out = Var::make("out", tensor(DataType::FP16, 64, 128));
  ExprRef origin = list({idx(0), idx(0)});
  ExprRef tile_shape = list({idx(16), idx(32)});

  Ref<const Call> load(Attrs kw = {}) {
    return ops.make_call("tile.load", {a, origin, tile_shape}, std::move(kw));
  }
  VarRef tile_var(const char* name = "t") { return Var::make(name, load()->type); }
};

}  // namespace

TEST_CASE("standard registry: every op the pipeline needs is registered") {
  const OpRegistry ops = standard_op_registry();
  for (const char* name : {"tile.load",
                           "tile.store",
                           "tile.add",
                           "tile.sub",
                           "tile.mul",
                           "tile.div",
                           "tile.maximum",
                           "tile.minimum",
                           "tile.neg",
                           "tile.abs",
                           "tile.exp",
                           "tile.sqrt",
                           "tile.rsqrt",
                           "tile.cast",
                           "tile.row_sum",
                           "tile.row_max",
                           "tile.matmul",
                           "tensor.add",
                           "tensor.sub",
                           "tensor.mul",
                           "tensor.div",
                           "tensor.read",
                           "tensor.write",
                           "tensor.slice",
                           "tensor.assemble",
                           "tensor.dim",
                           "tensor.create",
                           "tensor.expand_clone",
                           "set_cache_policy",
                           "pld.tensor.put",
                           "pld.tile.remote_store",
                           "pld.tensor.remote_store",
                           "pld.system.notify",
                           "pld.system.wait",
                           "pld.system.defer_wait",
                           "system.set_ffts",
                           "system.sync_set",
                           "system.sync_wait",
                           "system.import_peer_buffer",
                           "prefetch.make_context",
                           "prefetch.async_prefetch",
                           "prefetch.session",
                           "prefetch.wait"}) {
    CAPTURE(name);
    CHECK(ops.find(name) != nullptr);
  }
  CHECK(ops.find("tile.nope") == nullptr);
  CHECK_THROWS_WITH_AS(ops.at("tile.nope"), "unknown op 'tile.nope'", ValueError);
}

TEST_CASE("standard registry: ops are listed sorted by name") {
  const OpRegistry ops = standard_op_registry();
  const auto& all = ops.ops();
  CHECK(std::is_sorted(all.begin(), all.end(),
                       [](const OpDef& x, const OpDef& y) { return x.name < y.name; }));
}

TEST_CASE("op ids: the standard registry's ops and OpId's enumerators are one list, in order") {
  // Sorted names on both sides make the k-th op the k-th id: consumers may switch on Op::id.
  const OpRegistry ops = standard_op_registry();
  const auto& all = ops.ops();
  REQUIRE(all.size() == kOpNames.size());
  for (std::size_t k = 0; k < all.size(); ++k) {
    CAPTURE(all[k].name);
    CHECK(all[k].name == kOpNames[k]);
    CHECK(op_id(all[k].name) == static_cast<OpId>(k));
  }
  const ExprRef block = ops.make_call("tile.get_block_idx", {}, {});
  CHECK(as<Call>(block.get())->op->id == OpId::tile_get_block_idx);
  CHECK(op_name(OpId::tile_get_block_idx) == "tile.get_block_idx");
}

TEST_CASE("op ids: an op outside the catalog and a program function are OpId::custom") {
  CHECK(Op::make("host.my_op")->id == OpId::custom);
  CHECK(op_id("tile") == OpId::custom);
  CHECK(op_id("tile.zzz") == OpId::custom);
  CHECK(op_id("") == OpId::custom);
  CHECK(op_name(OpId::custom).empty());
  CHECK(GlobalVar::make("helper")->id == OpId::custom);
  // The id is derived from the name, so it takes no part in structural identity.
  CHECK(Op::make("tile.add")->id == OpId::tile_add);
}

TEST_CASE("standard registry: exactly seed 001's legacy allowlist is statement-only") {
  const OpRegistry ops = standard_op_registry();
  std::vector<std::string> statement_only;
  for (const auto& def : ops.ops())
    if (def.statement_only) statement_only.push_back(def.name);
  CHECK(statement_only == std::vector<std::string>{
                              // newer effect-only ops give Tuple[]
                              "pld.system.defer_wait", "pld.system.notify", "pld.system.wait",
                              "pld.tensor.put", "pld.tensor.remote_store", "pld.tile.remote_store",
                              "system.set_ffts", "system.sync_set", "system.sync_wait"});
}

TEST_CASE("effects: tile.store writes its destination, ReadWrite when atomic") {
  Fixture f;
  auto t = f.tile_var();
  auto plain = f.ops.make_call("tile.store", {t, f.origin, f.out});
  CHECK(f.ops.effect(*plain, 0) == ArgEffect::Read);
  CHECK(f.ops.effect(*plain, 1) == ArgEffect::Read);
  CHECK(f.ops.effect(*plain, 2) == ArgEffect::Write);
  auto atomic = f.ops.make_call("tile.store", {t, f.origin, f.out}, {{"atomic", AtomicType::Add}});
  CHECK(f.ops.effect(*atomic, 2) == ArgEffect::ReadWrite);
  auto explicit_none =
      f.ops.make_call("tile.store", {t, f.origin, f.out}, {{"atomic", AtomicType::None}});
  CHECK(f.ops.effect(*explicit_none, 2) == ArgEffect::Write);
}

TEST_CASE("effects: tensor.assemble, tensor.write and expand_clone declare their write slots") {
  Fixture f;
  auto src = Var::make("src", tensor(DataType::FP16, 16, 32));
  auto assemble = f.ops.make_call("tensor.assemble", {f.out, src, f.origin});
  CHECK(f.ops.effect(*assemble, 0) == ArgEffect::Write);
  CHECK(f.ops.effect(*assemble, 1) == ArgEffect::Read);
  auto atomic =
      f.ops.make_call("tensor.assemble", {f.out, src, f.origin}, {{"atomic", AtomicType::Add}});
  CHECK(f.ops.effect(*atomic, 0) == ArgEffect::ReadWrite);

  auto value = ConstFloat::make(1.0, DataType::FP16);
  auto write = f.ops.make_call("tensor.write", {f.out, f.origin, value});
  CHECK(f.ops.effect(*write, 0) == ArgEffect::Write);

  auto row = Var::make("row", TensorType::make(DataType::FP16, {idx(4), idx(1), idx(8)}));
  auto rows = Var::make("rows", TensorType::make(DataType::FP16, {idx(4), idx(16), idx(8)}));
  auto clone = f.ops.make_call("tensor.expand_clone", {row, rows});
  CHECK(f.ops.effect(*clone, 0) == ArgEffect::Read);
  CHECK(f.ops.effect(*clone, 1) == ArgEffect::Write);
}

TEST_CASE("type rules: expand_clone broadcasts one extent of 1 of a rank-3 tensor, as upstream") {
  OpRegistry ops = standard_op_registry();
  auto t = [](std::int64_t a, std::int64_t b, std::int64_t c) {
    return Var::make("t", TensorType::make(DataType::FP32, {idx(a), idx(b), idx(c)}));
  };
  CHECK(ops.make_call("tensor.expand_clone", {t(4, 16, 8), t(4, 16, 8)})->type);  // a copy
  CHECK(ops.make_call("tensor.expand_clone", {t(1, 16, 8), t(4, 16, 8)})->type);
  CHECK(ops.make_call("tensor.expand_clone", {t(4, 16, 1), t(4, 16, 8)})->type);
  auto error = [&](const ExprRef& in, const ExprRef& target) -> std::string {
    try {
      ops.make_call("tensor.expand_clone", {in, target});
    } catch (const TypeError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(error(t(1, 1, 8), t(4, 16, 8)).find("in one dimension only") != std::string::npos);
  CHECK(error(t(2, 16, 8), t(4, 16, 8)).find("only where its extent is 1, not in dimension 0") !=
        std::string::npos);
  const auto flat = Var::make("f", TensorType::make(DataType::FP32, {idx(16), idx(8)}));
  CHECK(error(flat, t(4, 16, 8)).find("must be rank 3, got rank 2") != std::string::npos);
}

TEST_CASE("effects: notify reads its signal in the AtomicAdd form only, wait never writes") {
  Fixture f;
  auto sig =
      Var::make("sig", TensorType::make(DataType::INT32, {ConstInt::make(1), ConstInt::make(8)},
                                        std::nullopt, nullptr, true));
  auto peer = ConstInt::make(1, DataType::INT32);
  auto one = ConstInt::make(1, DataType::INT32);
  auto add = f.ops.make_call("pld.system.notify", {sig, peer, f.origin, one});
  CHECK(f.ops.effect(*add, 0) == ArgEffect::ReadWrite);
  auto set =
      f.ops.make_call("pld.system.notify", {sig, peer, f.origin, one}, {{"op", NotifyOp::Set}});
  CHECK(f.ops.effect(*set, 0) == ArgEffect::Write);
  auto wait = f.ops.make_call("pld.system.wait", {sig, f.origin, one}, {{"cmp", WaitCmp::Eq}});
  for (std::size_t i = 0; i < 3; ++i) CHECK(f.ops.effect(*wait, i) == ArgEffect::Read);
  CHECK(isa<UnknownType>(wait->type));
  // The cross-rank ops take window views only.
  auto local = Var::make("local", tensor(DataType::INT32, 1, 8));
  CHECK_THROWS_WITH_AS(
      f.ops.make_call("pld.system.wait", {local, f.origin, one}),
      "pld.system.wait: argument 0 must be a pld.DistributedTensor (a window view)",
      pypto::core::TypeError);
}

TEST_CASE("effects: an op node made apart from the registry is found by name") {
  Fixture f;
  auto t = f.tile_var();
  auto apart = Call::make(Op::make("tile.store"), {t, f.origin, f.out}, f.out->type);
  CHECK(f.ops.effect(*apart, 2) == ArgEffect::Write);
  CHECK(f.ops.find(*apart->op) == f.ops.find("tile.store"));
  CHECK(f.ops.find(*Op::make("tile.no_such_op")) == nullptr);
}

TEST_CASE("effects: adding ops keeps every call's definition, whatever sorts before it") {
  Fixture f;
  auto t = f.tile_var();
  auto store = f.ops.make_call("tile.store", {t, f.origin, f.out});
  auto load = f.load();
  // Names sorting before, between and after the two, so both move in the sorted table.
  for (const char* name : {"a.first", "tile.m_between", "z.last"})
    f.ops.add(OpDef{
        name, {{"x"}}, {}, [](std::string_view, const std::vector<ExprRef>& args, const Attrs&) {
          return args[0]->type;
        }});
  CHECK(f.ops.find(*store->op)->name == "tile.store");
  CHECK(f.ops.find(*load->op)->name == "tile.load");
  CHECK(f.ops.effect(*store, 2) == ArgEffect::Write);
  auto added = f.ops.make_call("tile.m_between", {t});
  CHECK(f.ops.find(*added->op)->name == "tile.m_between");
}

TEST_CASE("spellings: the DSL's other name of an op resolves to it, and no name is taken twice") {
  Fixture f;
  REQUIRE(f.ops.find_spelled("create_tensor") != nullptr);
  CHECK(f.ops.find_spelled("create_tensor")->name == "tensor.create");
  CHECK(f.ops.find_spelled("tensor.create") == f.ops.find("tensor.create"));
  CHECK(f.ops.find("create_tensor") == nullptr);  // a spelling is no op name
  CHECK(f.ops.find_spelled("no_such_spelling") == nullptr);
  const auto rule = [](std::string_view, const std::vector<ExprRef>& args, const Attrs&) {
    return args[0]->type;
  };
  CHECK_THROWS_AS(f.ops.add(OpDef{"x.one", {{"x"}}, {}, rule, false, {"create_tensor"}}),
                  ValueError);
  CHECK_THROWS_AS(f.ops.add(OpDef{"x.two", {{"x"}}, {}, rule, false, {"tile.load"}}), ValueError);
  CHECK_THROWS_AS(f.ops.add(OpDef{"create_tensor", {{"x"}}, {}, rule}), ValueError);
  CHECK_THROWS_AS(f.ops.add(OpDef{"x.three", {{"x"}}, {}, rule, false, {"x.three"}}), ValueError);
  CHECK(f.ops.find("x.one") == nullptr);  // a refused op is not half added
}

TEST_CASE("effects: a call of a program function reads its arguments as far as ops know") {
  Fixture f;
  auto call = Call::make(GlobalVar::make("kernel"), {f.a, f.out}, f.out->type);
  CHECK(f.ops.effect(*call, 1) == ArgEffect::Read);
}

TEST_CASE("typing: tile.load takes the tensor's dtype, the shape list and the target memory") {
  Fixture f;
  auto t = cast<TileType>(f.load({{"target_memory", MemorySpace::Mat}})->type);
  CHECK(t->dtype == DataType::FP16);
  REQUIRE(t->rank() == 2);
  CHECK(const_dim(t->shape[0]) == 16);
  CHECK(const_dim(t->shape[1]) == 32);
  CHECK(t->memory_space == MemorySpace::Mat);
  // Vec, the default, is the load without it: make_call leaves the keyword out and the type
  // says Vec (where upstream's registry places a load's result).
  CHECK(cast<TileType>(f.load()->type)->memory_space == MemorySpace::Vec);
  const auto vec = f.load({{"target_memory", MemorySpace::Vec}});
  CHECK(vec->kwargs.find("target_memory") == nullptr);
  CHECK(cast<TileType>(vec->type)->memory_space == MemorySpace::Vec);
}

TEST_CASE("typing: tile.store returns the destination's type, of any dtype (as upstream's)") {
  Fixture f;
  auto t = f.tile_var();
  CHECK(f.ops.make_call("tile.store", {t, f.origin, f.out})->type == f.out->type);
  auto f32_out = Var::make("o32", tensor(DataType::FP32, 64, 128));
  CHECK(f.ops.make_call("tile.store", {t, f.origin, f32_out})->type == f32_out->type);
  CHECK_THROWS_WITH_AS(f.ops.make_call("tile.store", {t, f.origin, t}),
                       "tile.store: argument 2 must have a TensorType, got a TileType", TypeError);
}

TEST_CASE("typing: elementwise tile ops promote dtypes and broadcast shapes as upstream") {
  Fixture f;
  auto t = f.tile_var();
  CHECK(f.ops.make_call("tile.add", {t, t})->type == t->type);
  // a scalar operand narrows to the tile (upstream's tile.muls): the tile's type
  CHECK(f.ops.make_call("tile.muls", {t, ConstFloat::make(2.0)})->type == t->type);
  const auto& tt = *as<TileType>(t->type.get());
  auto row = Var::make("r", TileType::make(DataType::FP32, {tt.shape[0], idx(1)}));
  const auto call = f.ops.make_call("tile.add", {t, row});
  const auto* sum = as<TileType>(call->type.get());
  REQUIRE(sum != nullptr);
  CHECK(sum->dtype == DataType::FP32);  // FP16 + FP32 -> FP32
  CHECK(sum->shape.size() == 2);
  CHECK_THROWS_WITH_AS(f.ops.make_call("tile.add", {t, f.a}), "tile.add: argument 1 must be a tile",
                       TypeError);
  CHECK_THROWS_WITH_AS(f.ops.make_call("tile.muls", {t, t}),
                       "tile.muls: argument 1 must be a scalar", TypeError);
  CHECK(f.ops.make_call("tile.exp", {t})->type == t->type);
}

TEST_CASE("typing: reductions, matmul and cast compute their result shapes and dtypes") {
  Fixture f;
  auto t = f.tile_var();
  auto rows = cast<TileType>(f.ops.make_call("tile.row_sum", {t, t})->type);
  CHECK(const_dim(rows->shape[0]) == 16);
  CHECK(const_dim(rows->shape[1]) == 1);

  auto lhs = Var::make("l", TileType::make(DataType::FP16, {idx(16), idx(64)}, MemorySpace::Left));
  auto rhs = Var::make("r", TileType::make(DataType::FP16, {idx(64), idx(8)}, MemorySpace::Right));
  auto mm = cast<TileType>(f.ops.make_call("tile.matmul", {lhs, rhs})->type);
  CHECK(mm->dtype == DataType::FP32);
  CHECK(const_dim(mm->shape[0]) == 16);
  CHECK(const_dim(mm->shape[1]) == 8);
  CHECK(mm->memory_space == MemorySpace::Acc);

  auto c =
      cast<TileType>(f.ops.make_call("tile.cast", {t}, {{"target_type", DataType::FP32}})->type);
  CHECK(c->dtype == DataType::FP32);
  CHECK_THROWS_WITH_AS(f.ops.make_call("tile.cast", {t}),
                       "tile.cast: keyword 'target_type' is required", TypeError);
}

TEST_CASE("typing: tensor.dim checks the axis against the rank") {
  Fixture f;
  auto d = f.ops.make_call("tensor.dim", {f.a, idx(-1)});
  CHECK(cast<ScalarType>(d->type)->dtype == DataType::INDEX);
  CHECK_THROWS_WITH_AS(f.ops.make_call("tensor.dim", {f.a, idx(2)}),
                       "tensor.dim: argument 1 must be a constant axis in [-rank, rank)",
                       TypeError);
}

TEST_CASE("typing: tensor.create and tensor.read") {
  Fixture f;
  auto created =
      cast<TensorType>(f.ops
                           .make_call("tensor.create", {list({idx(8), idx(8)})},
                                      {{"dtype", DataType::BF16}, {"layout", TensorLayout::NZ}})
                           ->type);
  CHECK(created->dtype == DataType::BF16);
  REQUIRE(created->tensor_view.has_value());
  CHECK(created->tensor_view->layout == TensorLayout::NZ);
  auto read = f.ops.make_call("tensor.read", {f.a, list({idx(1), idx(2)})});
  CHECK(cast<ScalarType>(read->type)->dtype == DataType::FP16);
  CHECK_THROWS_WITH_AS(f.ops.make_call("tensor.read", {f.a, list({idx(1)})}),
                       "tensor.read: argument 1 must index every dimension", TypeError);
}

TEST_CASE("typing: tensor.alloc is a pointer to DDR bytes, as tile.alloc is to on-chip ones") {
  Fixture f;
  auto p = f.ops.make_call("tensor.alloc", {idx(1024)}, {{"memory_space", MemorySpace::DDR}});
  CHECK(isa<PtrType>(p->type));
  CHECK(f.ops.find("tensor.alloc")->effect(0, {}) == ArgEffect::Read);
  CHECK_THROWS_WITH_AS(
      f.ops.make_call("tensor.alloc", {idx(1024)}, {{"memory_space", MemorySpace::Vec}}),
      "tensor.alloc: keyword 'memory_space' must be pl.Mem.DDR", TypeError);
  CHECK_THROWS_WITH_AS(f.ops.make_call("tensor.alloc", {idx(1024)}),
                       "tensor.alloc: keyword 'memory_space' is required", TypeError);
  auto size = Var::make("n", ScalarType::make(DataType::FP32));
  CHECK_THROWS_WITH_AS(
      f.ops.make_call("tensor.alloc", {size}, {{"memory_space", MemorySpace::DDR}}),
      "tensor.alloc: argument 0 must be an integer size in bytes", TypeError);
}

TEST_CASE("typing: prefetch handles have their resource types") {
  Fixture f;
  auto ws = Var::make("ws", tensor(DataType::INT8, 1, 1024));
  auto ctx = f.ops.make_call("prefetch.make_context", {ws});
  CHECK(isa<PrefetchAsyncContextType>(ctx->type));
  auto ev = f.ops.make_call("prefetch.async_prefetch", {f.a, ctx});
  CHECK(isa<AsyncEventType>(ev->type));
  auto session = f.ops.make_call("prefetch.session", {ctx});
  CHECK(isa<AsyncSessionType>(session->type));
  auto done = f.ops.make_call("prefetch.wait", {ev, session});
  CHECK(cast<ScalarType>(done->type)->dtype == DataType::BOOL);
  auto peer =
      f.ops.make_call("system.import_peer_buffer", {}, {{"name", "buf"}, {"peer_func", "k_aiv"}});
  CHECK(cast<ScalarType>(peer->type)->dtype == DataType::INT32);
}

TEST_CASE("calls are checked: argument count, keyword names, keyword kinds, duplicates") {
  Fixture f;
  CHECK_THROWS_WITH_AS(f.ops.make_call("tile.load", {f.a, f.origin}),
                       "tile.load: expected 3 to 4 arguments, got 2", TypeError);
  CHECK_THROWS_WITH_AS(f.load({{"bogus", 1}}), "tile.load: unknown keyword argument 'bogus'",
                       TypeError);
  CHECK_THROWS_WITH_AS(f.load({{"clamp", 1}}),
                       "tile.load: keyword 'clamp' has a value of the wrong kind", TypeError);
  Attrs twice;
  twice.entries = {{"clamp", true}, {"clamp", false}};
  CHECK_THROWS_WITH_AS(f.load(twice), "tile.load: keyword 'clamp' given twice", ValueError);
  CHECK_THROWS_WITH_AS(f.ops.make_call("tile.load", {f.origin, f.origin, f.tile_shape}),
                       "tile.load: argument 0 must have a TensorType, got a TupleType", TypeError);
}

TEST_CASE("a registry is a value: ops are added explicitly and checked") {
  OpRegistry ops;
  CHECK(ops.ops().empty());
  auto rule = [](std::string_view, const std::vector<ExprRef>&, const Attrs&) -> TypeRef {
    return UnknownType::make();
  };
  ops.add({"my.op", {{"dst", ArgEffect::Write}}, {}, rule});
  CHECK(ops.find("my.op") != nullptr);
  CHECK(standard_op_registry().find("my.op") == nullptr);
  CHECK_THROWS_WITH_AS(ops.add({"my.op", {}, {}, rule}),
                       "OpRegistry.add: op 'my.op' is already registered", ValueError);
  CHECK_THROWS_WITH_AS(ops.add({"bad", {{"a", ArgEffect::Read, true}, {"b"}}, {}, rule}),
                       "OpDef bad.args[1]: a required argument cannot follow an optional one",
                       ValueError);
  CHECK_THROWS_WITH_AS(ops.add({"untyped", {}, {}, nullptr}),
                       "OpDef untyped.type_rule: is required", ValueError);
}

TEST_CASE("keywords: an Enum keyword accepts values of its own IR enum only") {
  Fixture f;
  CHECK(cast<TileType>(f.load({{"target_memory", MemorySpace::Left}})->type)->memory_space ==
        MemorySpace::Left);
  CHECK_THROWS_WITH_AS(f.load({{"target_memory", Level::HOST}}),
                       "tile.load: keyword 'target_memory' has a value of the wrong kind: "
                       "expected a pl.Mem value, got pl.Level.HOST",
                       TypeError);
  CHECK_THROWS_WITH_AS(f.load({{"target_memory", 1}}),
                       "tile.load: keyword 'target_memory' has a value of the wrong kind",
                       TypeError);
  CHECK(f.load({{"cache", CachePolicy::BYPASS}}) != nullptr);
  CHECK_THROWS_AS(f.load({{"cache", MemorySpace::Vec}}), TypeError);
  auto t = f.tile_var();
  CHECK_THROWS_AS(f.ops.make_call("tile.store", {t, f.origin, f.out}, {{"atomic", PadValue::zero}}),
                  TypeError);
  CHECK_THROWS_AS(f.ops.make_call("tensor.create", {list({idx(8)})},
                                  {{"dtype", DataType::FP32}, {"layout", TileLayout::row_major}}),
                  TypeError);
}

TEST_CASE("keywords: every Enum keyword of the standard registry names its enum") {
  const OpRegistry ops = standard_op_registry();
  std::vector<std::string> enum_keywords;
  for (const auto& def : ops.ops())
    for (const auto& k : def.kwargs) {
      CAPTURE(def.name);
      CAPTURE(k.name);
      CHECK((k.kind == KwargKind::Enum) == (k.enum_id != kNoEnum));
      if (k.kind == KwargKind::Enum)
        enum_keywords.push_back(def.name + ":" + k.name + "=" +
                                std::string(enum_type_name(EnumValue{k.enum_id, 0})));
    }
  for (const char* expected :
       {"tile.load:target_memory=Mem", "tile.move:blayout=TileLayout",
        "tile.alloc:memory_space=Mem", "tensor.slice:pad_value=PadValue",
        "tile.store:atomic=AtomicType", "tensor.create:layout=TensorLayout"}) {
    CAPTURE(expected);
    CHECK(std::find(enum_keywords.begin(), enum_keywords.end(), expected) != enum_keywords.end());
  }
}

TEST_CASE("keywords: a registry rejects an Enum keyword without its enum, and an enum elsewhere") {
  OpRegistry ops;
  auto rule = [](std::string_view, const std::vector<ExprRef>&, const Attrs&) -> TypeRef {
    return UnknownType::make();
  };
  CHECK_THROWS_WITH_AS(ops.add({"my.op", {}, {{"mode", KwargKind::Enum}}, rule}),
                       "OpDef my.op.kwargs[0]: an Enum keyword names its IR enum (use "
                       "enum_kwarg<E>), no other kind does",
                       ValueError);
  CHECK_THROWS_AS(ops.add({"my.op", {}, {{"n", KwargKind::Int, EnumValue::id_of<Level>()}}, rule}),
                  ValueError);
  ops.add({"my.op", {}, {enum_kwarg<SplitMode>("mode")}, rule});
  CHECK(ops.make_call("my.op", {}, {{"mode", SplitMode::UpDown}}) != nullptr);
  CHECK_THROWS_AS(ops.make_call("my.op", {}, {{"mode", ForKind::Unroll}}), TypeError);
}

TEST_CASE("typing: tile.matmul checks that constant K dimensions agree") {
  Fixture f;
  auto lhs = Var::make("l", TileType::make(DataType::FP16, {idx(16), idx(64)}, MemorySpace::Left));
  auto rhs = Var::make("r", TileType::make(DataType::FP16, {idx(32), idx(8)}, MemorySpace::Right));
  CHECK_THROWS_WITH_AS(
      f.ops.make_call("tile.matmul", {lhs, rhs}),
      "tile.matmul: argument 1 must have as many rows as argument 0 has columns (K = 64, got 32)",
      TypeError);
  // A symbolic K cannot be checked here; it is accepted.
  auto k = Var::make("k", ScalarType::make(DataType::INDEX));
  auto sym = Var::make("s", TileType::make(DataType::FP16, {k, idx(8)}, MemorySpace::Right));
  CHECK(f.ops.make_call("tile.matmul", {lhs, sym}) != nullptr);
}

TEST_CASE("typing: elementwise tensor ops broadcast right-aligned and promote dtypes") {
  Fixture f;
  CHECK(f.ops.make_call("tensor.add", {f.a, f.out})->type == f.a->type);
  auto rank1 = Var::make("v", TensorType::make(DataType::FP16, {idx(128)}));
  CHECK(f.ops.make_call("tensor.add", {f.a, rank1})->type == f.a->type);  // [64,128] + [128]
  auto bad = Var::make("v", TensorType::make(DataType::FP16, {idx(64)}));
  CHECK_THROWS_WITH_AS(
      f.ops.make_call("tensor.add", {f.a, bad}),
      "tensor.add: argument 1 must have a shape that broadcasts against argument 0's", TypeError);
  auto f32 = Var::make("w", tensor(DataType::FP32, 64, 128));
  CHECK(as<TensorType>(f.ops.make_call("tensor.sub", {f.a, f32})->type.get())->dtype ==
        DataType::FP32);
  auto i8 = Var::make("w", tensor(DataType::INT8, 64, 128));
  CHECK(as<TensorType>(f.ops.make_call("tensor.sub", {f.a, i8})->type.get())->dtype ==
        DataType::FP16);  // a float beats an integer
}

TEST_CASE("typing: a missing required keyword is named (one helper for every rule)") {
  Fixture f;
  for (const char* op : {"tensor.create", "tensor.full", "tile.full"}) {
    const std::string expected = std::string(op) + ": keyword 'dtype' is required";
    CHECK_THROWS_WITH_AS(f.ops.make_call(op, {list({idx(8)})}), expected.c_str(), TypeError);
  }
}

// A seeded generator of random valid programs in the text format, for the differential pass
// fuzzer (fuzz_passes.cpp). Valid by construction: every name is defined before use and only
// where the language allows it (no branch-local or scope-local name escapes), every operand has
// the type its op's rule needs, every load, store and slice box lies inside its tensor for every
// input seeded_inputs() can give (integer scalars in [1, 4], shape symbols 16..64), and every
// loop runs a bounded number of times. The same seed gives the same text on every platform
// (splitmix64, no std distributions).
//
// What it covers: InCore scopes (named, with task ids and deps), clusters, spmd loops and spmd
// scopes with block indices, split_aiv, manual scopes; for loops (explicit iter_args and natural
// carries, break / continue), while loops, ifs with and without else, kernel ifs with yields;
// calls and submits of InCore helpers (deps, core_num, predicate), AIC / AIV Group bundles;
// shape symbols; FP32 / FP16 / BF16 tiles and casts; elementwise, unary, reductions, matmul,
// full, tensor ops (slice, elementwise, full, assemble), tensor.read / dim; atomic stores, cache
// policies; scalar arithmetic. Scopes are sometimes replayed verbatim so dedup has work.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "../unit/test_rng.hpp"

namespace pypto::fuzz {

struct GenOptions {
  int max_orch_stmts = 6;    ///< statements of one orchestration block
  int max_kernel_stmts = 7;  ///< statements of one kernel body (before its stores)
  int max_depth = 2;         ///< nesting of orchestration for / while / if
};

class ProgramGenerator {
 public:
  ProgramGenerator(std::uint64_t seed, GenOptions options = {})
      : rng_(seed * 0x9e3779b97f4a7c15ULL + 0x5151ULL), opt_(options) {}

  /// The program's text, ending with a newline.
  std::string program();

 private:
  /// A tensor the code can name: a parameter or its current binding.
  struct Tensor {
    std::string param;  ///< the parameter's name
    std::string cur;    ///< the name that holds it now
    std::string rows;   ///< "32" or a symbol
    std::int64_t rows_min = 0;
    std::int64_t cols = 0;
    std::string dtype;  ///< "FP32", ...
    bool out = false;   ///< Out / InOut parameter: kernels may store into it
    bool inout = false;
    std::string type() const {
      return "pl.Tensor[[" + rows + ", " + std::to_string(cols) + "], pl." + dtype + "]";
    }
  };
  struct Tile {
    std::string name;
    std::int64_t rows = 0, cols = 0;
    std::string dtype;
    bool tensor = false;  ///< a kernel-local tensor value (tensor ops), not a tile
    bool acc = false;     ///< a matmul result: its type is in Acc memory, a carry cannot change it
  };
  /// An integer the code can use as an offset, with its value range over every run.
  struct Index {
    std::string text;
    std::int64_t lo = 0, hi = 0;
  };
  /// A helper kernel function: its parameters index main's tensors (same types).
  struct Helper {
    std::string name;
    std::vector<int> ins;  ///< indices into tensors_
    int out = -1;
  };

  struct KernelCtx {
    std::vector<Tile> tiles;
    std::vector<Index> indices;
    std::vector<std::string> fp_scalars;
    std::vector<int> tensors;  ///< indices into tensors_ the kernel may read / write
    bool top = true;           ///< bindings may take fresh names (not in a nested block)
    bool reassign = true;      ///< a statement may rebind a tile defined before it
    bool bare_stores = false;  ///< stores bind nothing
    int depth = 0;
  };
  struct OrchCtx {
    std::vector<Index> indices;
    std::vector<std::string> conds;  ///< scalar conditions in scope
    bool in_for = false;             ///< break / continue allowed
    bool top = true;                 ///< directly in main's body
    /// Nothing rebinds a name defined outside (a loop with break / continue carries nothing:
    /// convert-to-ssa refuses a carry out of such a loop).
    bool no_rebind = false;
    int depth = 0;
  };

  // ---- output ----
  void line(int indent, const std::string& s) {
    lines_->push_back(std::string(static_cast<std::size_t>(indent) * 4, ' ') + s);
  }
  std::string fresh(const std::string& stem) { return stem + std::to_string(next_name_++); }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return rng_.pick(v);
  }

  // ---- pieces ----
  void make_params();
  void make_helpers();
  void make_group();
  void helper_body(const Helper& h);
  void orch_block(int indent, OrchCtx ctx, int count);
  void orch_stmt(int indent, OrchCtx& ctx);
  void scope(int indent, OrchCtx& ctx);
  void spmd_loop(int indent, OrchCtx& ctx);
  void spmd_scope(int indent, OrchCtx& ctx);
  void for_loop(int indent, OrchCtx& ctx);
  void while_loop(int indent, OrchCtx& ctx);
  void if_stmt(int indent, OrchCtx& ctx);
  void call_helper(int indent, OrchCtx& ctx);
  void group_call(int indent, OrchCtx& ctx);
  void kernel_body(int indent, KernelCtx& k);
  void kernel_stmt(int indent, KernelCtx& k);
  void kernel_store(int indent, KernelCtx& k, int tensor);
  void kernel_for(int indent, KernelCtx& k);
  void kernel_if(int indent, KernelCtx& k);

  // ---- values ----
  KernelCtx kernel_ctx(const OrchCtx& o);
  std::optional<Tile> load(int indent, KernelCtx& k, std::int64_t rows, std::int64_t cols,
                           const std::string& dtype, bool tile_only = false);
  std::string offset(const std::vector<Index>& ix, std::int64_t extent, std::int64_t size);
  std::string tile_expr(KernelCtx& k, const Tile& like, int depth);
  std::string float_const();
  std::string cond(const std::vector<Index>& ix, const std::vector<std::string>& conds);
  std::vector<int> all_tensors() const;
  /// A tile a loop or an if may carry (no tensor value, no Acc tile), or none.
  std::optional<Tile> carryable(const KernelCtx& k);

  pypto::test::SplitMix64 rng_;
  GenOptions opt_;
  std::vector<std::string> main_lines_, helper_lines_;
  std::vector<std::string>* lines_ = &main_lines_;
  int next_name_ = 0;
  std::vector<Tensor> tensors_;
  std::vector<std::string> int_params_, fp_params_;
  std::vector<std::string> symbols_;
  std::vector<Helper> helpers_;
  bool helper_returns_param_ = false;  ///< never set yet: see call_helper
  bool group_ = false;  ///< the program has a cube / vector Group pair (ga, gw -> gc -> go)
  std::vector<std::string> task_ids_;  ///< task ids usable as deps (main's top level)
  /// Scope bodies that may be replayed verbatim: (lines relative to the body, names they use).
  struct Replay {
    std::vector<std::string> body;
    std::vector<std::string> names;
  };
  std::vector<Replay> replays_;
  std::set<std::string> used_;  ///< names a kernel body referenced (for replays)
};

// ---- implementation ---------------------------------------------------------------------------

inline std::string ProgramGenerator::program() {
  make_params();
  make_helpers();
  if (rng_.chance(20)) make_group();
  // main's body
  lines_ = &main_lines_;
  OrchCtx ctx;
  for (const auto& n : int_params_) {
    ctx.indices.push_back({n, 1, 4});
    ctx.conds.push_back(n);
  }
  orch_block(2, ctx, static_cast<int>(rng_.range(1, opt_.max_orch_stmts)));
  std::vector<int> outs;
  for (std::size_t i = 0; i < tensors_.size(); ++i)
    if (tensors_[i].out) outs.push_back(static_cast<int>(i));
  const Tensor& ret = tensors_[static_cast<std::size_t>(pick(outs))];
  line(2, "return " + ret.cur);

  std::string text = "import pypto.language as pl\n\n";
  for (const auto& s : symbols_) text += s + " = pl.dynamic(\"" + s + "\")\n";
  if (!symbols_.empty()) text += "\n";
  text += "@pl.program\nclass Fuzz:\n";
  for (const auto& l : helper_lines_) text += l + "\n";
  std::string sig = "    def main(self";
  for (const auto& t : tensors_) {
    const char* dir = t.inout ? "pl.InOut[" : t.out ? "pl.Out[" : "";
    sig += ", " + t.param + ": " + dir + t.type() + (t.out ? "]" : "");
  }
  for (const auto& n : int_params_) sig += ", " + n + ": pl.Scalar[pl.INDEX]";
  for (const auto& n : fp_params_) sig += ", " + n + ": pl.Scalar[pl.FP32]";
  sig += ") -> " + ret.type() + ":";
  text += "    @pl.function\n" + sig + "\n";
  for (const auto& l : main_lines_) text += l + "\n";
  return text;
}

inline void ProgramGenerator::make_params() {
  const std::vector<std::int64_t> rows = {16, 32, 64};
  const std::vector<std::int64_t> cols = {16, 32, 64};
  auto dtype = [&] {
    const auto r = rng_.below(10u);
    return std::string(r < 7 ? "FP32" : r < 9 ? "FP16" : "BF16");
  };
  auto tensor = [&](const std::string& name, bool out) {
    Tensor t;
    t.param = t.cur = name;
    t.out = out;
    t.inout = out && rng_.chance(20);
    if (rng_.chance(12)) {  // a shape symbol: 16..64 rows at run time
      t.rows = rng_.chance(50) ? "M" : "N";
      if (std::find(symbols_.begin(), symbols_.end(), t.rows) == symbols_.end())
        symbols_.push_back(t.rows);
      t.rows_min = 16;
    } else {
      t.rows_min = pick(rows);
      t.rows = std::to_string(t.rows_min);
    }
    t.cols = pick(cols);
    t.dtype = dtype();
    return t;
  };
  const int ins = static_cast<int>(rng_.range(1, 3));
  const int outs = static_cast<int>(rng_.range(1, 3));
  for (int i = 0; i < ins; ++i) tensors_.push_back(tensor("x" + std::to_string(i), false));
  for (int i = 0; i < outs; ++i) tensors_.push_back(tensor("o" + std::to_string(i), true));
  // Every dtype a kernel works in has a tensor to load from and one to store into.
  std::set<std::string> in_types, out_types;
  for (const auto& t : tensors_) (t.out ? out_types : in_types).insert(t.dtype);
  for (const auto& d : in_types)
    if (!out_types.count(d)) {
      Tensor t = tensor("p" + std::to_string(out_types.size()), true);
      t.dtype = d;
      out_types.insert(d);
      tensors_.push_back(t);
    }
  if (rng_.chance(30)) {  // a column for row reductions
    Tensor t;
    t.param = t.cur = "col";
    t.rows_min = pick(rows);
    t.rows = std::to_string(t.rows_min);
    t.cols = 1;
    t.dtype = "FP32";
    t.out = true;
    tensors_.push_back(t);
  }
  if (rng_.chance(60)) int_params_.push_back("n");
  if (rng_.chance(25)) int_params_.push_back("m");
  if (rng_.chance(40)) fp_params_.push_back("s");
}

inline std::optional<ProgramGenerator::Tile> ProgramGenerator::carryable(const KernelCtx& k) {
  std::vector<Tile> tiles;
  for (const auto& t : k.tiles)
    if (!t.tensor && !t.acc) tiles.push_back(t);
  if (tiles.empty()) return std::nullopt;
  return pick(tiles);
}

inline std::vector<int> ProgramGenerator::all_tensors() const {
  std::vector<int> r;
  for (std::size_t i = 0; i < tensors_.size(); ++i) r.push_back(static_cast<int>(i));
  return r;
}

inline void ProgramGenerator::make_helpers() {
  const int n = rng_.chance(40) ? static_cast<int>(rng_.range(1, 2)) : 0;
  for (int h = 0; h < n; ++h) {
    Helper helper;
    helper.name = "k" + std::to_string(h);
    std::vector<int> outs;
    for (std::size_t i = 0; i < tensors_.size(); ++i)
      if (tensors_[i].out && tensors_[i].cols > 1) outs.push_back(static_cast<int>(i));
    if (outs.empty()) return;
    helper.out = pick(outs);
    const std::string dt = tensors_[static_cast<std::size_t>(helper.out)].dtype;
    for (std::size_t i = 0; i < tensors_.size(); ++i)
      if (!tensors_[i].out && tensors_[i].dtype == dt && rng_.chance(70))
        helper.ins.push_back(static_cast<int>(i));
    helper_body(helper);
    helpers_.push_back(helper);
  }
}

inline void ProgramGenerator::helper_body(const Helper& h) {
  lines_ = &helper_lines_;
  // The helper's parameters shadow main's names while its body is generated.
  const std::vector<Tensor> saved = tensors_;
  std::vector<Tensor> own;
  std::string sig = "    def " + h.name + "(self";
  KernelCtx k;
  for (int i : h.ins) {
    Tensor t = tensors_[static_cast<std::size_t>(i)];
    t.param = t.cur = "a" + std::to_string(own.size());
    own.push_back(t);
  }
  Tensor o = tensors_[static_cast<std::size_t>(h.out)];
  o.param = o.cur = "out";
  o.inout = false;
  own.push_back(o);
  tensors_ = own;
  for (std::size_t i = 0; i < own.size(); ++i) {
    const Tensor& t = own[i];
    sig += ", " + t.param + ": " + (t.out ? "pl.Out[" + t.type() + "]" : t.type());
    k.tensors.push_back(static_cast<int>(i));
  }
  if (rng_.chance(40)) {
    sig += ", s: pl.Scalar[pl.FP32]";
    k.fp_scalars.push_back("s");
  }
  sig += ") -> " + o.type() + ":";
  line(1, "@pl.function(type=pl.FunctionType.InCore)");
  line(0, sig);
  kernel_body(2, k);
  line(2, "return " + tensors_.back().cur);
  line(0, "");
  tensors_ = saved;
  lines_ = &main_lines_;
}

inline void ProgramGenerator::make_group() {
  // Dedicated parameters, FP32: ga [16, 32] @ gw [32, 16] -> gc (Out) -> go (Out).
  auto add = [&](const std::string& name, std::int64_t r, std::int64_t c, bool out) {
    Tensor t;
    t.param = t.cur = name;
    t.rows_min = r;
    t.rows = std::to_string(r);
    t.cols = c;
    t.dtype = "FP32";
    t.out = out;
    tensors_.push_back(t);
  };
  add("ga", 16, 32, false);
  add("gw", 32, 16, false);
  add("gc", 16, 16, true);
  add("go", 16, 16, true);
  group_ = true;
  lines_ = &helper_lines_;
  const std::string ta = "pl.Tensor[[16, 32], pl.FP32]", tw = "pl.Tensor[[32, 16], pl.FP32]",
                    tc = "pl.Tensor[[16, 16], pl.FP32]";
  for (const char* variant : {"a", "b"}) {
    line(1, "@pl.function(type=pl.FunctionType.AIC)");
    line(1, std::string("def cube_") + variant + "(self, a: " + ta + ", w: " + tw + ", c: pl.Out[" +
                tc + "]) -> " + tc + ":");
    line(2, "ta = pl.load(a, [0, 0], [16, 32])");
    line(2, "tw = pl.load(w, [0, 0], [32, 16])");
    line(2, "tc = pl.tile.matmul(ta, tw)");
    line(2, "pl.store(tc, [0, 0], c)");
    line(2, "return c");
    line(0, "");
    line(1, "@pl.function(type=pl.FunctionType.AIV)");
    line(1, std::string("def vec_") + variant + "(self, c: " + tc + ", o: pl.Out[" + tc + "]) -> " +
                tc + ":");
    line(2, "t = pl.load(c, [0, 0], [16, 16])");
    const bool same = std::string(variant) == "a" || rng_.chance(50);
    line(2, same ? "u = pl.maximum(pl.mul(t, 0.5), 0.0)" : "u = pl.minimum(pl.add(t, t), 1.0)");
    line(2, "pl.store(u, [0, 0], o)");
    line(2, "return o");
    line(0, "");
  }
  lines_ = &main_lines_;
}

// ---- orchestration ----------------------------------------------------------------------------

inline void ProgramGenerator::orch_block(int indent, OrchCtx ctx, int count) {
  for (int i = 0; i < count; ++i) orch_stmt(indent, ctx);
}

inline void ProgramGenerator::orch_stmt(int indent, OrchCtx& ctx) {
  const bool nest = ctx.depth < opt_.max_depth;
  const auto r = rng_.below(100u);
  if (r < 34) return scope(indent, ctx);
  if (r < 42) return spmd_loop(indent, ctx);
  if (r < 46) return spmd_scope(indent, ctx);
  if (r < 56 && nest) return for_loop(indent, ctx);
  if (r < 61 && nest) return while_loop(indent, ctx);
  if (r < 69 && nest) return if_stmt(indent, ctx);
  if (r < 75 && !helpers_.empty() && !ctx.no_rebind) return call_helper(indent, ctx);
  if (r < 79 && !helpers_.empty() && ctx.top) {  // a manual scope: its task ids stay inside
    line(indent, "with pl.scope(mode=pl.ScopeMode.MANUAL):");
    const std::vector<std::string> outer_tids = task_ids_;
    task_ids_.clear();
    const int n = static_cast<int>(rng_.range(1, 2));
    for (int c = 0; c < n; ++c) call_helper(indent + 1, ctx);  // buffers flow out of it
    task_ids_ = outer_tids;
    return;
  }
  if (r < 84 && group_ && !ctx.no_rebind) return group_call(indent, ctx);
  if (r < 88 && ctx.in_for) {  // break / continue behind a condition
    line(indent, "if " + cond(ctx.indices, ctx.conds) + ":");
    line(indent + 1, rng_.chance(50) ? "break" : "continue");
    return;
  }
  if (r < 94) {  // scalar code
    const Index a = ctx.indices.empty() ? Index{"1", 1, 1} : pick(ctx.indices);
    const std::string name = fresh("q");
    const auto form = rng_.below(4u);
    if (form == 0)
      line(indent, name + " = " + a.text + " + 1"),
          ctx.indices.push_back({name, a.lo + 1, a.hi + 1});
    else if (form == 1)
      line(indent, name + " = pl.min(" + a.text + ", 2)"),
          ctx.indices.push_back(
              {name, std::min<std::int64_t>(a.lo, 2), std::min<std::int64_t>(a.hi, 2)});
    else if (form == 2)
      line(indent, name + " = " + a.text + " * 2 - 1"),
          ctx.indices.push_back({name, a.lo * 2 - 1, a.hi * 2 - 1});
    else {  // a dimension read: a constant or a shape symbol's extent
      const int t = pick(all_tensors());
      const Tensor& ts = tensors_[static_cast<std::size_t>(t)];
      line(indent,
           name + " = pl.tensor.dim(" + ts.cur + ", " + (rng_.chance(50) ? "0" : "1") + ")");
      ctx.conds.push_back(name + " > 16");
      return;
    }
    ctx.conds.push_back(name + " < 3");
    return;
  }
  scope(indent, ctx);
}

inline ProgramGenerator::KernelCtx ProgramGenerator::kernel_ctx(const OrchCtx& o) {
  KernelCtx k;
  k.indices = o.indices;
  k.fp_scalars = fp_params_;
  k.tensors = all_tensors();
  k.top = o.top;
  k.bare_stores = o.no_rebind;
  return k;
}

inline void ProgramGenerator::scope(int indent, OrchCtx& ctx) {
  // A replay of an earlier scope, when every tensor name it uses still names the same value.
  // (Not in a loop that must rebind nothing: a replay rebinds the names its body defines.)
  if (!replays_.empty() && !ctx.no_rebind && rng_.chance(25)) {
    const Replay& rp = pick(replays_);
    bool ok = true;
    for (const auto& n : rp.names) {
      bool found = false;
      for (const auto& t : tensors_) found = found || t.cur == n || (!t.out && t.param == n);
      for (const auto& ix : ctx.indices) found = found || ix.text == n;
      ok = ok && (found || n == "s");
    }
    if (ok && (ctx.top || std::none_of(rp.body.begin(), rp.body.end(), [](const std::string& l) {
                 return l.find(" = pl.store(") != std::string::npos;
               }))) {
      line(indent, "with pl.at(level=pl.Level.CORE_GROUP):");
      for (const auto& l : rp.body) line(indent + 1, l);
      return;
    }
  }
  std::string head = "with pl.at(level=pl.Level.CORE_GROUP";
  if (rng_.chance(20)) head += ", name_hint=\"" + fresh("kern") + "\"";
  std::string tid;
  if (ctx.top && rng_.chance(25)) {
    if (!task_ids_.empty() && rng_.chance(60)) head += ", deps=[" + pick(task_ids_) + "]";
    tid = fresh("t");
  }
  head += ")";
  if (!tid.empty()) head += " as " + tid;
  line(indent, head + ":");
  KernelCtx k = kernel_ctx(ctx);
  const std::size_t first = lines_->size();
  used_.clear();
  kernel_body(indent + 1, k);
  if (!tid.empty()) task_ids_.push_back(tid);
  Replay rp;
  for (std::size_t i = first; i < lines_->size(); ++i)
    rp.body.push_back((*lines_)[i].substr(static_cast<std::size_t>(indent + 1) * 4));
  rp.names.assign(used_.begin(), used_.end());
  bool binds = false;
  for (const auto& l : rp.body)
    binds = binds || l.find(" = pl.store(") != std::string::npos ||
            l.find(" = pl.tensor.assemble(") != std::string::npos;
  if (!binds && replays_.size() < 8) replays_.push_back(std::move(rp));
}

inline void ProgramGenerator::spmd_loop(int indent, OrchCtx& ctx) {
  const std::int64_t blocks = rng_.range(2, 4);
  const std::string b = fresh("b");
  std::string head = "for " + b + " in pl.spmd(" + std::to_string(blocks);
  if (rng_.chance(30)) head += ", name_hint=\"" + fresh("blocks") + "\"";
  line(indent, head + "):");
  KernelCtx k = kernel_ctx(ctx);
  k.indices.push_back({b, 0, blocks - 1});
  k.top = false;  // the body runs once per block: a name bound in it is block-local
  kernel_body(indent + 1, k);
}

inline void ProgramGenerator::spmd_scope(int indent, OrchCtx& ctx) {
  std::int64_t hi = 3;
  std::string count = "3";
  if (!int_params_.empty() && rng_.chance(50)) {
    count = int_params_.front() + " + 1";
    hi = 5;
  } else {
    hi = rng_.range(1, 4);
    count = std::to_string(hi);
  }
  line(indent, "with pl.spmd(" + count + "):");
  // The kernel scope is written out, or implied by a body that reads the block index.
  int body = indent + 1;
  if (rng_.chance(50)) line(body++, "with pl.at(level=pl.Level.CORE_GROUP):");
  const std::string b = fresh("b");
  line(body, b + " = pl.tile.get_block_idx()");
  KernelCtx k = kernel_ctx(ctx);
  k.indices.push_back({b, 0, hi - 1});
  k.top = false;  // blocks run the same body: bindings would be per block
  kernel_body(body, k);
}

inline void ProgramGenerator::for_loop(int indent, OrchCtx& ctx) {
  const std::string i = fresh("i");
  std::string bound;
  std::int64_t hi = 0;
  if (!int_params_.empty() && rng_.chance(40)) {
    bound = pick(int_params_);
    hi = 4;
  } else {
    hi = rng_.range(1, 3);
    bound = std::to_string(hi);
  }
  OrchCtx inner = ctx;
  inner.depth++;
  inner.top = false;
  inner.indices.push_back({i, 0, hi - 1});
  inner.conds.push_back(i + " == 1");
  // An explicit carry of one Out tensor (the body rebinds it), or natural carries.
  std::vector<int> outs;
  for (std::size_t t = 0; t < tensors_.size(); ++t)
    if (tensors_[t].out) outs.push_back(static_cast<int>(t));
  if (ctx.top && rng_.chance(40)) {
    Tensor& t = tensors_[static_cast<std::size_t>(pick(outs))];
    const std::string carry = fresh("c");
    line(indent, "for " + i + ", (" + carry + ",) in pl.range(" + bound + ", init_values=(" +
                     t.cur + ",)):");
    t.cur = carry;  // the body rebinds the carry by its own name; after the loop it is the result
    scope(indent + 1, inner);
    orch_block(indent + 1, inner, static_cast<int>(rng_.range(0, 2)));
    return;
  }
  std::string kind = "pl.range";
  const auto form = rng_.below(10u);
  if (form < 3) {  // break / continue allowed: the loop carries nothing
    inner.in_for = true;
    inner.no_rebind = true;
  } else if (form < 4) {  // pl.parallel: iterations rebind nothing either
    // (not pl.unroll: outlining a scope that writes a tensor there needs a carry, which an
    // unrolled loop cannot have: a typed OutlineError)
    kind = "pl.parallel";
    inner.in_for = false;
    inner.no_rebind = true;
  } else {
    inner.in_for = false;
  }
  line(indent, "for " + i + " in " + kind + "(" + bound + "):");
  orch_block(indent + 1, inner, static_cast<int>(rng_.range(1, 3)));
}

inline void ProgramGenerator::while_loop(int indent, OrchCtx& ctx) {
  const std::string m = fresh("w");
  const std::int64_t step = rng_.range(1, 2);
  std::string limit =
      int_params_.empty() || rng_.chance(40) ? std::to_string(rng_.range(1, 4)) : pick(int_params_);
  line(indent, m + " = 0");
  line(indent, "while " + m + " < " + limit + ":");
  OrchCtx inner = ctx;
  inner.depth++;
  inner.top = false;
  inner.in_for = false;
  inner.indices.push_back({m, 0, 3});
  orch_block(indent + 1, inner, static_cast<int>(rng_.range(1, 2)));
  line(indent + 1, m + " = " + m + " + " + std::to_string(step));
}

inline void ProgramGenerator::if_stmt(int indent, OrchCtx& ctx) {
  line(indent, "if " + cond(ctx.indices, ctx.conds) + ":");
  OrchCtx inner = ctx;
  inner.depth++;
  inner.top = false;
  orch_block(indent + 1, inner, static_cast<int>(rng_.range(1, 2)));
  if (rng_.chance(60)) {
    line(indent, "else:");
    orch_block(indent + 1, inner, static_cast<int>(rng_.range(1, 2)));
  }
}

inline void ProgramGenerator::call_helper(int indent, OrchCtx& ctx) {
  const Helper& h = pick(helpers_);
  Tensor& out = tensors_[static_cast<std::size_t>(h.out)];
  std::string args;
  for (int i : h.ins) args += tensors_[static_cast<std::size_t>(i)].cur + ", ";
  args += out.cur;
  // The helper's FP32 scalar parameter, when it has one, is the last of its signature.
  for (const auto& l : helper_lines_)
    if (l.find("def " + h.name + "(") != std::string::npos &&
        l.find("s: pl.Scalar[pl.FP32]") != std::string::npos)
      args += ", " + (fp_params_.empty() ? std::string("1.5") : fp_params_.front());
  const std::string result = ctx.top ? fresh("r") : out.cur;
  if (rng_.chance(50)) {
    line(indent, result + " = self." + h.name + "(" + args + ")");
  } else {
    std::string call = "pl.submit(self." + h.name + ", " + args;
    if (ctx.top && !task_ids_.empty() && rng_.chance(50))
      call += ", deps=[" + pick(task_ids_) + "]";
    if (rng_.chance(25)) call += ", core_num=" + std::to_string(rng_.range(1, 3));
    // A predicate may skip the task: its result is then the Out argument, which the interpreter
    // can name only when the helper returns its parameter itself (not yet: `out_1 = pl.store`).
    if (rng_.chance(25) && helper_returns_param_)
      call += ", predicate=" + cond(ctx.indices, ctx.conds);
    call += ")";
    const std::string tid = fresh("t");  // a submit gives (result, task id)
    line(indent, result + ", " + tid + " = " + call);
    if (ctx.top) task_ids_.push_back(tid);
  }
  out.cur = result;
}

inline void ProgramGenerator::group_call(int indent, OrchCtx& ctx) {
  Tensor *gc = nullptr, *go = nullptr;
  for (auto& t : tensors_) {
    if (t.param == "gc") gc = &t;
    if (t.param == "go") go = &t;
  }
  const char* v = rng_.chance(50) ? "a" : "b";
  const std::string c1 = ctx.top ? fresh("gc") : gc->cur, r1 = ctx.top ? fresh("go") : go->cur;
  line(indent, "with pl.cluster():");
  line(indent + 1, c1 + " = self.cube_" + v + "(ga, gw, " + gc->cur + ")");
  line(indent + 1, r1 + " = self.vec_" + v + "(" + c1 + ", " + go->cur + ")");
  gc->cur = c1;
  go->cur = r1;
}

inline std::string ProgramGenerator::cond(const std::vector<Index>& ix,
                                          const std::vector<std::string>& conds) {
  if (!conds.empty() && rng_.chance(50)) {
    std::string c = pick(conds);
    used_.insert(c.substr(0, c.find(' ')));
    if (c.find(' ') == std::string::npos) c += " < 3";  // a bare integer parameter
    return c;
  }
  if (ix.empty()) return "1 < 2";
  const Index& a = pick(ix);
  used_.insert(a.text);
  const char* ops[] = {" < ", " == ", " > ", " != ", " <= "};
  return a.text + ops[rng_.below(5u)] + std::to_string(rng_.range(a.lo, a.hi));
}

// ---- kernels ----------------------------------------------------------------------------------

inline std::string ProgramGenerator::offset(const std::vector<Index>& ix, std::int64_t extent,
                                            std::int64_t size) {
  // extent: the dimension's smallest value; the box [off, off + size) must fit every run.
  const std::int64_t room = extent - size;
  std::vector<std::string> forms;
  for (const Index& i : ix) {
    if (i.lo < 0) continue;
    if (i.hi * size <= room && size > 0) forms.push_back(i.text + " * " + std::to_string(size));
    if (i.hi <= room) forms.push_back(i.text);
  }
  if (!forms.empty() && rng_.chance(45)) return pick(forms);
  if (room <= 0) return "0";
  if (rng_.chance(50)) return "0";
  // a multiple of the size, or any offset
  if (size > 0 && rng_.chance(60)) return std::to_string(size * rng_.range(0, room / size));
  return std::to_string(rng_.range(0, room));
}

inline std::optional<ProgramGenerator::Tile> ProgramGenerator::load(int indent, KernelCtx& k,
                                                                    std::int64_t rows,
                                                                    std::int64_t cols,
                                                                    const std::string& dtype,
                                                                    bool tile_only) {
  std::vector<int> from;
  for (int t : k.tensors) {
    const Tensor& ts = tensors_[static_cast<std::size_t>(t)];
    if (ts.dtype == dtype && ts.rows_min >= rows && ts.cols >= cols) from.push_back(t);
  }
  if (from.empty()) return std::nullopt;
  const Tensor& src = tensors_[static_cast<std::size_t>(pick(from))];
  used_.insert(src.cur);
  Tile t{fresh("t"), rows, cols, dtype, false};
  const std::string off =
      "[" + offset(k.indices, src.rows_min, rows) + ", " + offset(k.indices, src.cols, cols) + "]";
  const std::string shape = "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
  // the tensor-op form (convert-tensor-to-tile-ops converts a kernel's top level only)
  if (!tile_only && k.depth == 0 && rng_.chance(12)) {
    t.tensor = true;
    line(indent, t.name + " = pl.tensor.slice(" + src.cur + ", " + shape + ", " + off + ")");
  } else {
    std::string extra;
    if (rng_.chance(8)) extra = ", cache=pl.CachePolicy.BYPASS";
    line(indent, t.name + " = pl.load(" + src.cur + ", " + off + ", " + shape + extra + ")");
  }
  for (const auto& ix : k.indices)
    if (off.find(ix.text) != std::string::npos) used_.insert(ix.text);
  k.tiles.push_back(t);
  return t;
}

inline std::string ProgramGenerator::float_const() {
  const char* c[] = {"0.5", "0.25", "1.5", "-2.0", "0.0", "-0.0", "3.0", "0.125"};
  return c[rng_.below(8u)];
}

/// An expression of tiles (no tensor values) shaped like `like`, nested up to `depth`.
inline std::string ProgramGenerator::tile_expr(KernelCtx& k, const Tile& like, int depth) {
  // Acc tiles (matmul results) take no part: an expression's type follows its first operand's
  // memory, and a carry must keep its type.
  std::vector<Tile> same;
  for (const auto& t : k.tiles)
    if (!t.tensor && !t.acc && t.rows == like.rows && t.cols == like.cols && t.dtype == like.dtype)
      same.push_back(t);
  if (same.empty() || like.acc) return like.name;
  const std::string a =
      depth > 0 && rng_.chance(30) ? tile_expr(k, like, depth - 1) : pick(same).name;
  const auto r = rng_.below(100u);
  const bool fp32 = like.dtype == "FP32";
  if (r < 45) {
    const char* ops[] = {"pl.add", "pl.sub", "pl.mul", "pl.div", "pl.maximum", "pl.minimum"};
    const std::string op = ops[rng_.below(6u)];
    std::string b;
    if (fp32 && rng_.chance(35))
      b = !k.fp_scalars.empty() && rng_.chance(40) ? pick(k.fp_scalars) : float_const();
    else
      b = depth > 0 && rng_.chance(20) ? tile_expr(k, like, depth - 1) : pick(same).name;
    return op + "(" + a + ", " + b + ")";
  }
  if (r < 65) {
    const char* ops[] = {"pl.neg", "pl.abs", "pl.exp", "pl.tile.sqrt", "pl.tile.rsqrt"};
    return std::string(ops[rng_.below(5u)]) + "(" + a + ")";
  }
  return a;
}

inline void ProgramGenerator::kernel_body(int indent, KernelCtx& k) {
  // The body's working shape and dtype.
  std::vector<std::string> dtypes;
  for (int t : k.tensors)
    if (!tensors_[static_cast<std::size_t>(t)].out)
      dtypes.push_back(tensors_[static_cast<std::size_t>(t)].dtype);
  if (dtypes.empty()) dtypes.push_back("FP32");
  const std::string dt = pick(dtypes);
  const std::vector<std::int64_t> hs = {1, 2, 4, 8, 16};
  const std::vector<std::int64_t> ws = {16, 16, 32};
  std::int64_t h = pick(hs), w = pick(ws);
  if (!load(indent, k, h, w, dt) && !load(indent, k, h = 1, w = 16, dt)) {
    // nothing of this dtype to load: a filled tile
    const std::string name = fresh("t");
    line(indent, name + " = pl.tile.full([1, 16], dtype=pl." + dt + ", value=0.5)");
    k.tiles.push_back({name, 1, 16, dt, false});
  }
  const int n = static_cast<int>(rng_.range(1, opt_.max_kernel_stmts));
  for (int i = 0; i < n; ++i) kernel_stmt(indent, k);
  // Stores: at least one, into an Out tensor whose dtype one of the tiles has.
  const int stores = static_cast<int>(rng_.range(1, 2));
  for (int s = 0; s < stores; ++s) {
    std::vector<int> outs;
    for (int t : k.tensors) {
      const Tensor& ts = tensors_[static_cast<std::size_t>(t)];
      if (!ts.out) continue;
      for (const auto& tile : k.tiles)
        if (tile.dtype == ts.dtype && tile.rows <= ts.rows_min && tile.cols <= ts.cols) {
          outs.push_back(t);
          break;
        }
    }
    if (outs.empty()) {  // cast a tile to an Out tensor's dtype
      for (int t : k.tensors) {
        const Tensor& ts = tensors_[static_cast<std::size_t>(t)];
        if (!ts.out) continue;
        for (const auto& tile : k.tiles)
          if (!tile.tensor && tile.rows <= ts.rows_min && tile.cols <= ts.cols) {
            const std::string name = fresh("t");
            line(indent,
                 name + " = pl.tile.cast(" + tile.name + ", target_type=pl." + ts.dtype + ")");
            k.tiles.push_back({name, tile.rows, tile.cols, ts.dtype, false});
            outs.push_back(t);
            break;
          }
        if (!outs.empty()) break;
      }
    }
    if (outs.empty()) {
      const int t = k.tensors.back();
      const Tensor& ts = tensors_[static_cast<std::size_t>(t)];
      const std::string name = fresh("t");
      line(indent, name + " = pl.tile.full([1, 1], dtype=pl." + ts.dtype + ", value=1.0)");
      k.tiles.push_back({name, 1, 1, ts.dtype, false});
      outs.push_back(t);
    }
    kernel_store(indent, k, pick(outs));
  }
}

inline void ProgramGenerator::kernel_store(int indent, KernelCtx& k, int t) {
  Tensor& out = tensors_[static_cast<std::size_t>(t)];
  std::vector<Tile> fit;
  for (const auto& tile : k.tiles)
    if (tile.dtype == out.dtype && tile.rows <= out.rows_min && tile.cols <= out.cols)
      fit.push_back(tile);
  const Tile tile = pick(fit);
  used_.insert(out.cur);
  const std::string off = "[" + offset(k.indices, out.rows_min, tile.rows) + ", " +
                          offset(k.indices, out.cols, tile.cols) + "]";
  for (const auto& ix : k.indices)
    if (off.find(ix.text) != std::string::npos) used_.insert(ix.text);
  const bool atomic = out.dtype == "FP32" && rng_.chance(12);
  const std::string bind = k.bare_stores              ? std::string()
                           : k.top && rng_.chance(50) ? fresh(out.param + "_")
                           : rng_.chance(50)          ? out.cur
                                                      : std::string();
  std::string value = tile.name;
  if (tile.tensor) {  // a tensor value stored as a tile
    value = fresh("t");
    line(indent, value + " = pl.load(" + tile.name + ", [0, 0], [" + std::to_string(tile.rows) +
                     ", " + std::to_string(tile.cols) + "])");
  } else if (rng_.chance(30))
    value = tile_expr(k, tile, 1);
  if (tile.tensor && !k.bare_stores && k.depth == 0) {
    const std::string target = bind.empty() ? out.cur : bind;
    line(indent, target + " = pl.tensor.assemble(" + out.cur + ", " + tile.name + ", " + off +
                     (atomic ? ", atomic=pl.AtomicType.Add" : "") + ")");
    out.cur = target;
    return;
  }
  const std::string call = "pl.store(" + value + ", " + off + ", " + out.cur +
                           (atomic ? ", atomic=pl.AtomicType.Add" : "") + ")";
  if (bind.empty()) {
    line(indent, call);
  } else {
    line(indent, bind + " = " + call);
    out.cur = bind;
  }
}

inline void ProgramGenerator::kernel_stmt(int indent, KernelCtx& k) {
  const Tile base = pick(k.tiles);
  const auto r = rng_.below(100u);
  if (r < 15) {  // another load, of the base's shape or a new one
    const std::vector<std::int64_t> hs = {1, 4, 8, 16};
    if (rng_.chance(60))
      (void)load(indent, k, base.rows, base.cols, base.dtype);
    else
      (void)load(indent, k, pick(hs), 16, base.dtype);
    return;
  }
  if (base.tensor && k.depth > 0) return;  // tensor ops are converted at a kernel's top level only
  if (base.tensor) {                       // tensor ops on tensor values, one per statement
    std::vector<Tile> same;
    for (const auto& t : k.tiles)
      if (t.tensor && t.rows == base.rows && t.cols == base.cols && t.dtype == base.dtype)
        same.push_back(t);
    Tile t = base;
    t.name = fresh("v");
    if (r < 50) {
      const char* ops[] = {"add", "sub", "mul", "div", "maximum", "minimum"};
      line(indent, t.name + " = pl.tensor." + ops[rng_.below(6u)] + "(" + base.name + ", " +
                       pick(same).name + ")");
    } else if (r < 70) {
      const char* ops[] = {"neg", "exp", "sqrt"};
      line(indent, t.name + " = pl.tensor." + ops[rng_.below(3u)] + "(" + base.name + ")");
    } else {
      line(indent, t.name + " = pl.tensor.full([" + std::to_string(t.rows) + ", " +
                       std::to_string(t.cols) + "], dtype=pl." + t.dtype +
                       ", value=" + float_const() + ")");
    }
    k.tiles.push_back(t);
    return;
  }
  if (r < 55) {  // an elementwise expression
    Tile t = base;
    t.name = k.top || !k.reassign || base.acc || rng_.chance(60) ? fresh("t") : base.name;
    t.acc = base.acc;  // tile_expr gives an Acc tile as it is (`t = acc`): the copy is Acc too
    line(indent, t.name + " = " + tile_expr(k, base, 2));
    if (t.name != base.name) k.tiles.push_back(t);
    return;
  }
  if (r < 62) {  // a row reduction
    const std::string tmp = fresh("t"), s = fresh("t");
    line(indent, tmp + " = pl.tile.full([" + std::to_string(base.rows) + ", " +
                     std::to_string(base.cols) + "], dtype=pl." + base.dtype + ", value=0.0)");
    line(indent, s + " = pl.tile." + (rng_.chance(50) ? "row_sum" : "row_max") + "(" + base.name +
                     ", " + tmp + ")");
    k.tiles.push_back({tmp, base.rows, base.cols, base.dtype, false});
    // The reduction keeps its input's memory space: a row of an Acc tile is Acc.
    k.tiles.push_back({s, base.rows, 1, base.dtype, false, base.acc});
    return;
  }
  if (r < 68) {  // a cast
    const char* to[] = {"FP32", "FP16", "BF16"};
    const std::string d = to[rng_.below(3u)];
    const std::string name = fresh("t");
    line(indent, name + " = pl.tile.cast(" + base.name + ", target_type=pl." + d + ")");
    k.tiles.push_back({name, base.rows, base.cols, d, false, base.acc});  // same memory space
    return;
  }
  if (r < 74 && base.dtype == "FP32") {  // matmul: base [h, w] @ [w, n]
    const std::int64_t n = rng_.chance(50) ? 16 : 32;
    auto rhs = load(indent, k, base.cols, n, "FP32", /*tile_only=*/true);
    if (!rhs) return;
    const std::string name = fresh("t");
    line(indent, name + " = pl.tile.matmul(" + base.name + ", " + rhs->name + ")");
    k.tiles.push_back({name, base.rows, n, "FP32", false, true});
    return;
  }
  if (r < 80) {  // a filled tile
    const std::string name = fresh("t");
    line(indent, name + " = pl.tile.full([" + std::to_string(base.rows) + ", " +
                     std::to_string(base.cols) + "], dtype=pl." + base.dtype + ", value=" +
                     (base.dtype == "FP32" ? float_const() : std::string("1.0")) + ")");
    k.tiles.push_back({name, base.rows, base.cols, base.dtype, false});
    return;
  }
  if (r < 88 && k.depth < 2) return kernel_for(indent, k);
  if (r < 95 && k.depth < 2) return kernel_if(indent, k);
  if (r < 98) {  // a scalar read of a tensor element
    const int t = pick(k.tensors);
    const Tensor& ts = tensors_[static_cast<std::size_t>(t)];
    if (ts.dtype != "FP32") return;
    const std::string name = fresh("e");
    used_.insert(ts.cur);
    line(indent, name + " = pl.tensor.read(" + ts.cur + ", [0, 0])");
    k.fp_scalars.push_back(name);
    return;
  }
  if (r < 100 && k.depth == 0) {  // split_aiv: the body runs once per sub-block
    const std::string a = fresh("aiv");
    line(indent, "for " + a + " in pl.split_aiv(2):");
    KernelCtx inner = k;
    inner.depth++;
    inner.top = false;
    inner.reassign = false;  // the body runs twice: it rebinds no tile of the enclosing kernel
    inner.indices.push_back({a, 0, 1});
    kernel_stmt(indent + 1, inner);
    std::vector<int> outs;
    for (int t : inner.tensors) {
      const Tensor& ts = tensors_[static_cast<std::size_t>(t)];
      for (const auto& tile : inner.tiles)
        if (ts.out && tile.dtype == ts.dtype && tile.rows <= ts.rows_min && tile.cols <= ts.cols) {
          outs.push_back(t);
          break;
        }
    }
    if (!outs.empty())
      kernel_store(indent + 1, inner, pick(outs));
    else
      line(indent + 1, "pass");
    return;  // tiles made inside do not escape
  }
}

inline void ProgramGenerator::kernel_for(int indent, KernelCtx& k) {
  const std::optional<Tile> carried = carryable(k);
  if (!carried) return;
  const Tile p = *carried;
  const std::string i = fresh("j");
  const std::int64_t n = rng_.range(1, 3);
  KernelCtx inner = k;
  inner.depth++;
  inner.top = false;
  inner.indices.push_back({i, 0, n - 1});
  Tile q = p;
  if (rng_.chance(50)) {  // explicit iter_args
    q.name = fresh("q");
    line(indent, "for " + i + ", (" + q.name + ",) in pl.range(" + std::to_string(n) +
                     ", init_values=(" + p.name + ",)):");
    inner.tiles.push_back(q);
    if (rng_.chance(40)) (void)load(indent + 1, inner, q.rows, q.cols, q.dtype);
    line(indent + 1, q.name + " = " + tile_expr(inner, q, 1));
  } else {  // a natural carry: the loop reassigns a name defined before it
    q.name = fresh("q");
    line(indent, q.name + " = " + p.name);
    inner.tiles.push_back(q);
    line(indent, "for " + i + " in pl.range(" + std::to_string(n) + "):");
    if (rng_.chance(40)) (void)load(indent + 1, inner, q.rows, q.cols, q.dtype);
    line(indent + 1, q.name + " = " + tile_expr(inner, q, 1));
  }
  k.tiles.push_back(q);
}

inline void ProgramGenerator::kernel_if(int indent, KernelCtx& k) {
  const std::optional<Tile> carried = carryable(k);
  if (!carried) return;
  const Tile p = *carried;
  Tile v = p;
  v.name = fresh("y");
  const bool yields = rng_.chance(50);
  line(indent, "if " + cond(k.indices, {}) + ":");
  auto arm = [&] {
    const std::string e = tile_expr(k, p, 1);
    line(indent + 1, yields ? v.name + " = pl.yield_(" + e + ")" : v.name + " = " + e);
  };
  arm();
  line(indent, "else:");
  arm();
  k.tiles.push_back(v);
}

}  // namespace pypto::fuzz

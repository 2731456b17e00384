// Tests of pypto/transforms/convert_tensor_to_tile_ops.hpp (and seed 002's cache-policy
// window). Each case is a program in the text format, the pass (run by the pass
// manager with verify-each: binding checks, property verifiers, print -> parse round trip) and the
// expected program in the text format, compared structurally (names do not matter) — or the
// typed error, which must name the kernel, the op and line:column.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <utility>

#include "pypto/structural/compare.hpp"
#include "pypto/text/parse_error.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/transforms/convert_tensor_to_tile_ops.hpp"
#include "pypto/transforms/pass_instruments.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"

namespace tf = pypto::transforms;
namespace ir = pypto::ir;
using ir::ProgramRef;

namespace {

ProgramRef parse(std::string_view text) { return pypto::text::parse_program(text); }

/// Runs `pipeline` with verify-each on an outlined program in SSA form.
ProgramRef run(const ProgramRef& before, std::string_view pipeline = "convert-tensor-to-tile-ops") {
  tf::PassManagerOptions options;
  options.instruments.push_back(tf::verify_each_instrument());
  options.initial_properties = {tf::Property::SSAForm, tf::Property::SplitIncoreOrch};
  return tf::PassManager(tf::standard_passes().pipeline(pipeline), std::move(options)).run(*before);
}

void check_convert(std::string_view before, std::string_view expected,
                   std::string_view pipeline = "convert-tensor-to-tile-ops") {
  ProgramRef after = run(parse(before), pipeline);
  INFO(pypto::text::print(*after));
  pypto::structural::assert_structural_equal(after, parse(expected),
                                             /*enable_auto_mapping=*/true);
}

/// The TensorToTileError the pass throws on `before`.
tf::TensorToTileError convert_error(std::string_view before) {
  try {
    run(parse(before));
  } catch (const tf::TensorToTileError& e) {
    return e;
  }
  FAIL("no TensorToTileError");
  return tf::TensorToTileError("", "", {}, "");
}

}  // namespace

TEST_CASE("tensor to tile: elementwise ops become loads, tile ops and a store into the Out") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], s: pl.Scalar[pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        c = pl.add(a, b)
        d = pl.tensor.mul(c, a)
        e = pl.tensor.maximum(d, s)
        f = pl.tensor.exp(e)
        g = pl.tensor.sub(f, b)
        o1 = pl.tensor.assemble(o, g, [0])
        return o
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], s: pl.Scalar[pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        a_tile = pl.tile.load(a, [0], [64])
        b_tile = pl.tile.load(b, [0], [64])
        c = pl.tile.add(a_tile, b_tile)
        d = pl.tile.mul(c, a_tile)
        e = pl.tile.maximums(d, s)
        f = pl.tile.exp(e)
        g = pl.tile.sub(f, b_tile)
        o1 = pl.tile.store(g, [0], o)
        return o
)");
}

TEST_CASE("tensor to tile: slice becomes a windowed load, full becomes tile.full") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, a: pl.Tensor[[32, 64], pl.FP32], o: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        s = pl.tensor.slice(a, [16, 64], [16, 0])
        z = pl.tensor.full([16, 64], dtype=pl.FP32, value=1.0)
        t = pl.tensor.add(s, z)
        o1 = pl.tensor.assemble(o, t, [0, 0], atomic=pl.AtomicType.Add)
        return o
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, a: pl.Tensor[[32, 64], pl.FP32], o: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        s = pl.tile.load(a, [16, 0], [16, 64])
        z = pl.tile.full([16, 64], dtype=pl.FP32, value=1.0)
        t = pl.tile.add(s, z)
        o1 = pl.tile.store(t, [0, 0], o, atomic=pl.AtomicType.Add)
        return o
)");
}

TEST_CASE("tensor to tile: a returned assemble of a computed tile converts as a statement") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tensor.add(a, a)
        return pl.tensor.assemble(o, t, [0, 0])
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a_tile = pl.tile.load(a, [0, 0], [16, 64])
        t = pl.tile.add(a_tile, a_tile)
        ret0_value = pl.tile.store(t, [0, 0], o)
        return ret0_value
)");
}

TEST_CASE(
    "tensor to tile: a returned tile is stored into a trailing Out parameter the caller "
    "allocates and the store is returned, a read of a tile is tile.read") {
  const ProgramRef before = parse(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.add(x, x)
        z = pl.mul(y, x)
        v = pl.tensor.read(y, [3])
        return z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        w = pl.add(x, x)
        r = self.k(w)
        return r
)");
  const ProgramRef after = run(before);
  INFO(pypto::text::print(*after));
  const ir::FunctionRef k = after->find("k");
  REQUIRE(k->params.size() == 2);
  CHECK(k->params[1]->name_hint == "ret0_out");
  CHECK(k->param_directions[1] == ir::ParamDirection::Out);
  pypto::structural::assert_structural_equal(after, parse(R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], ret0_out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x_tile = pl.tile.load(x, [0], [64])
        y = pl.tile.add(x_tile, x_tile)
        z = pl.tile.mul(y, x_tile)
        v = pl.tile.read(y, [3])
        ret0_store = pl.tile.store(z, [0], ret0_out)
        return ret0_store

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        w = pl.add(x, x)
        ret0_out = pl.tensor.create([64], dtype=pl.FP32)
        r = self.k(w, ret0_out)
        return r
)"),
                                             /*enable_auto_mapping=*/true);
  CHECK(run(after).get() == after.get());  // nothing left to convert: the same object
}

TEST_CASE(
    "tensor to tile: two returned tiles get Out parameters in return order, stored at the "
    "return") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 8], pl.FP32], s: pl.Scalar[pl.FP32]) -> tuple[pl.Tensor[[16, 8], pl.FP32], pl.Tensor[[16, 8], pl.FP32]]:
        q = pl.mul(x, s)
        p = pl.add(q, x)
        v = pl.tensor.read(q, [1, 2])
        return p, q

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 8], pl.FP32]) -> pl.Tensor[[16, 8], pl.FP32]:
        r = self.k(x, 2.0)
        a = r[0]
        b = r[1]
        return b
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 8], pl.FP32], s: pl.Scalar[pl.FP32], p_out: pl.Out[pl.Tensor[[16, 8], pl.FP32]], q_out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> tuple[pl.Tensor[[16, 8], pl.FP32], pl.Tensor[[16, 8], pl.FP32]]:
        x_tile = pl.tile.load(x, [0, 0], [16, 8])
        q = pl.tile.muls(x_tile, s)
        p = pl.tile.add(q, x_tile)
        v = pl.tile.read(q, [1, 2])
        p_gm = pl.tile.store(p, [0, 0], p_out)
        q_gm = pl.tile.store(q, [0, 0], q_out)
        return p_gm, q_gm

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 8], pl.FP32]) -> pl.Tensor[[16, 8], pl.FP32]:
        p_out = pl.tensor.create([16, 8], dtype=pl.FP32)
        q_out = pl.tensor.create([16, 8], dtype=pl.FP32)
        r = self.k(x, 2.0, p_out, q_out)
        a = r[0]
        b = r[1]
        return b
)");
}

TEST_CASE(
    "tensor to tile: a kernel-local tensor.create is a Vec tile assembled into, sliced with "
    "tile.slice, and its callers are untouched") {
  const ProgramRef before = parse(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        buf = pl.tensor.create([64], dtype=pl.FP32)
        y = pl.add(x, x)
        b1 = pl.tensor.assemble(buf, y, [0])
        z = pl.tensor.slice(b1, [32], [32])
        o1 = pl.tensor.assemble(o, z, [0])
        return o1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        r = self.k(x, o)
        return r
)");
  const ProgramRef after = run(before);
  INFO(pypto::text::print(*after));
  CHECK(after->find("main") == before->find("main"));  // the same object
  pypto::structural::assert_structural_equal(after, parse(R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x_tile = pl.tile.load(x, [0], [64])
        buf = pl.tile.create([64], dtype=pl.FP32)
        y = pl.tile.add(x_tile, x_tile)
        b1 = pl.tile.assemble(buf, y, [0])
        z = pl.tile.slice(b1, [32], [32])
        o1 = pl.tile.store(z, [0], o)
        return o1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        r = self.k(x, o)
        return r
)"),
                                             /*enable_auto_mapping=*/true);
}

TEST_CASE(
    "tensor to tile: a kernel called twice, once in a loop, gets a buffer allocated right "
    "before each call (and an output arg_direction), and so does a Submit passing every "
    "parameter") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.exp(x)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        a = self.k(x, attrs={"arg_directions": [pl.adir.input]})
        for i, (acc,) in pl.range(n, init_values=(a,)):
            b = self.k(acc)
            acc1 = pl.yield_(b)
        s = pl.submit(self.k, acc1)
        c = s[0]
        return c
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], y_out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x_tile = pl.tile.load(x, [0], [64])
        y = pl.tile.exp(x_tile)
        y_gm = pl.tile.store(y, [0], y_out)
        return y_gm

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        y_out = pl.tensor.create([64], dtype=pl.FP32)
        a = self.k(x, y_out, attrs={"arg_directions": [pl.adir.input, pl.adir.output]})
        for i, (acc,) in pl.range(n, init_values=(a,)):
            y_out2 = pl.tensor.create([64], dtype=pl.FP32)
            b = self.k(acc, y_out2)
            acc1 = pl.yield_(b)
        y_out3 = pl.tensor.create([64], dtype=pl.FP32)
        s = pl.submit(self.k, acc1, y_out3)
        c = s[0]
        return c
)");
}

TEST_CASE(
    "tensor to tile: an Out parameter's shape at the call is the call's result type, in the "
    "caller's symbols, a symbol the caller does not bind is a typed error at the call") {
  check_convert(R"(
import pypto.language as pl
M = pl.dynamic("M")
N = pl.dynamic("N")
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, 64], pl.FP32]) -> pl.Tensor[[M, 64], pl.FP32]:
        y = pl.add(a, a)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, b: pl.Tensor[[N, 64], pl.FP32]) -> pl.Tensor[[N, 64], pl.FP32]:
        r = pl._dump.call(self.k, b, type=pl.Tensor[[N, 64], pl.FP32])
        return r
)",
                R"(
import pypto.language as pl
M = pl.dynamic("M")
N = pl.dynamic("N")
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, 64], pl.FP32], y_out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
        a_tile = pl.tile.load(a, [0, 0], [M, 64])
        y = pl.tile.add(a_tile, a_tile)
        y_gm = pl.tile.store(y, [0, 0], y_out)
        return y_gm

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, b: pl.Tensor[[N, 64], pl.FP32]) -> pl.Tensor[[N, 64], pl.FP32]:
        y_out = pl.tensor.create([N, 64], dtype=pl.FP32)
        r = pl._dump.call(self.k, b, y_out, type=pl.Tensor[[N, 64], pl.FP32])
        return r
)");

  try {
    run(parse(R"(
import pypto.language as pl
K = pl.dynamic("K")
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[K], pl.FP32]:
        y = pl.tensor.full([K], dtype=pl.FP32, value=1.0)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[K], pl.FP32]:
        r = self.k(a)
        return r
)"));
    FAIL("no KernelOutputCallError");
  } catch (const tf::KernelOutputCallError& e) {
    CHECK(e.function() == "main");
    CHECK(e.kernel() == "k");
    CHECK(e.span().line == 13);
    CHECK(e.span().column > 0);
    const std::string message = e.what();
    CHECK(message.find("13:" + std::to_string(e.span().column)) != std::string::npos);
    CHECK(message.find("'K'") != std::string::npos);
  }
}

TEST_CASE(
    "tensor to tile: a call the pass cannot give the new Out parameter (from a Spmd wrapper, "
    "nested in an expression) is a typed error naming the call") {
  auto error_of = [](std::string_view text) {
    try {
      run(parse(text));
    } catch (const tf::KernelOutputCallError& e) {
      return e;
    }
    FAIL("no KernelOutputCallError");
    return tf::KernelOutputCallError("", "", {}, "");
  };
  const tf::KernelOutputCallError spmd = error_of(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.neg(x)
        return y

    @pl.function(type=pl.FunctionType.Spmd)
    def w(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        r = self.k(x)
        return r
)");
  CHECK(spmd.function() == "w");
  CHECK(spmd.kernel() == "k");
  CHECK(spmd.span().line == 12);
  CHECK(std::string(spmd.what()).find("Spmd function 'w'") != std::string::npos);

  const tf::KernelOutputCallError nested = error_of(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
        y = pl.neg(x)
        return y, x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        r = self.k(x)[0]
        return r
)");
  CHECK(nested.function() == "main");
  CHECK(nested.span().line == 12);
  CHECK(std::string(nested.what()).find("nested in an expression") != std::string::npos);
}

TEST_CASE(
    "tensor to tile: cache_policy becomes a cache kwarg on each load of its parameter, "
    "then is erased (seed 002)") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], c: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        pl.func_attr({"cache_policy": [[0, 1], [1, 0]], "split2": 3})
        s = pl.tensor.slice(a, [16, 64], [16, 0])
        t = pl.tensor.mul(s, b)
        u = pl.tensor.add(t, c)
        o1 = pl.tensor.assemble(o, u, [0, 0])
        return o
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], c: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        pl.func_attr({"split2": 3})
        b_tile = pl.tile.load(b, [0, 0], [16, 64], cache=pl.CachePolicy.DEFAULT)
        c_tile = pl.tile.load(c, [0, 0], [16, 64])
        s = pl.tile.load(a, [16, 0], [16, 64], cache=pl.CachePolicy.BYPASS)
        t = pl.tile.mul(s, b_tile)
        u = pl.tile.add(t, c_tile)
        o1 = pl.tile.store(u, [0, 0], o)
        return o
)");
}

TEST_CASE(
    "tensor to tile: a kernel already in tile form gets only its cache kwargs, in loops "
    "too, an explicit cache kwarg is kept") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        pl.func_attr({"cache_policy": [[0, 1]]})
        t0 = pl.load(a, [0], [64], cache=pl.CachePolicy.DEFAULT)
        for i in pl.range(2):
            t = pl.load(a, [0], [64])
            o1 = pl.store(pl.add(t, t0), [0], o)
        return o
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t0 = pl.load(a, [0], [64], cache=pl.CachePolicy.DEFAULT)
        for i in pl.range(2):
            t = pl.load(a, [0], [64], cache=pl.CachePolicy.BYPASS)
            o1 = pl.store(pl.add(t, t0), [0], o)
        return o
)");
}

TEST_CASE(
    "tensor to tile: tile-form input is returned as the same object, a second run changes "
    "nothing") {
  const ProgramRef tile_form = parse(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        n = pl.tensor.dim(a, 0)
        t = pl.load(a, [0], [64])
        o1 = pl.store(pl.add(t, t), [0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        b = pl.add(a, a)
        r = self.k(b, o)
        return r
)");
  CHECK(run(tile_form).get() == tile_form.get());

  const ProgramRef tensor_form = parse(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        pl.func_attr({"cache_policy": [[0, 1]]})
        b = pl.add(a, a)
        o1 = pl.tensor.assemble(o, b, [0])
        return o
)");
  const ProgramRef once = run(tensor_form);
  CHECK(once.get() != tensor_form.get());
  CHECK(once->find("k")->attrs.find("cache_policy") == nullptr);
  CHECK(run(once).get() == once.get());
}

TEST_CASE(
    "tensor to tile: an op without a tile form is a typed error naming kernel, op and "
    "line:column") {
  const tf::TensorToTileError e = convert_error(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kern(self, a: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        o1 = pl.tensor.aiv_shard(a, split=1)
        return o1
)");
  CHECK(e.function() == "kern");
  CHECK(e.op() == "tensor.aiv_shard");
  CHECK(e.span().line == 7);
  const std::string message = e.what();
  CHECK(message.find("'kern'") != std::string::npos);
  CHECK(message.find("tensor.aiv_shard") != std::string::npos);
  CHECK(message.find("7:" + std::to_string(e.span().column)) != std::string::npos);
  CHECK(e.span().column > 0);

  // A tensor op nested where no conversion reaches (a loop's yield) is refused, not kept.
  const tf::TensorToTileError nested = convert_error(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kern(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        for i, (acc,) in pl.range(2, init_values=(a,)):
            acc2 = pl.yield_(pl.add(acc, a))
        return acc2
)");
  CHECK(nested.op() == "tensor.add");
  CHECK(nested.span().line == 8);
  CHECK(std::string(nested.what()).find("nested in an expression") != std::string::npos);

  // Orchestration functions keep every tensor op, supported or not.
  const ProgramRef orch = parse(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        o1 = pl.tensor.view(a, [64])
        return o1
)");
  CHECK(run(orch).get() == orch.get());
}

TEST_CASE("tensor to tile: tensor ops nested in an argument or a return are converted first") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kern(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        o1 = pl.tensor.assemble(o, pl.add(a, a), [0])
        return pl.mul(a, a)
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def kern(self, a: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]], ret0_out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        a_tile = pl.load(a, [0], [64])
        add_tile = pl.tile.add(a_tile, a_tile)
        o1 = pl.store(add_tile, [0], o)
        mul_tile = pl.tile.mul(a_tile, a_tile)
        ret0_store = pl.store(mul_tile, [0], ret0_out)
        return ret0_store
)");
}

TEST_CASE("tensor to tile: after outlining and dedup, the whole pipeline from a scope") {
  tf::PassManagerOptions options;
  options.instruments.push_back(tf::verify_each_instrument());
  options.initial_properties = {tf::Property::SSAForm};
  const ProgramRef after =
      tf::PassManager(tf::standard_passes().pipeline(
                          "outline-incore-scopes,outline-cluster-scopes,normalize-stmt-structure,"
                          "deduplicate-outlined-kernels,"
                          "convert-tensor-to-tile-ops"),
                      std::move(options))
          .run(*parse(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.set_cache_policy(b, pl.CachePolicy.BYPASS)
            c = pl.add(a, b)
            o1 = pl.tensor.assemble(o, c, [0])
        return o1
)"));
  INFO(pypto::text::print(*after));
  pypto::structural::assert_structural_equal(after, parse(R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        o1 = self.main_incore_0(a, b, o)
        return o1

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        a_tile = pl.tile.load(a, [0], [64])
        b_tile = pl.tile.load(b, [0], [64], cache=pl.CachePolicy.BYPASS)
        c = pl.tile.add(a_tile, b_tile)
        o1 = pl.tile.store(c, [0], o)
        return o
)"),
                                             /*enable_auto_mapping=*/true);
  CHECK(tf::standard_passes().contains("convert-tensor-to-tile-ops"));
}

TEST_CASE("tensor to tile: a parameter the kernel writes is Out, or InOut when it reads it too") {
  // As upstream PyPTO's conversion upgrades them: `dst`, written by pl.tensor.write and never
  // read, is Out, and so is the caller's parameter passed to it; `acc`, read and stored into, is
  // InOut, and so is the caller's; `x`, only read, stays In. A return is no access.
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4], pl.FP32], dst: pl.Tensor[[4], pl.FP32], acc: pl.Tensor[[4], pl.FP32], v: pl.Scalar[pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
        pl.tensor.write(dst, [0], v)
        t = pl.tile.load(x, [0], [4])
        u = pl.tile.load(acc, [0], [4])
        w = pl.tile.add(t, u)
        acc1 = pl.tile.store(w, [0], acc)
        return acc1

    @pl.function
    def main(self, x: pl.Tensor[[4], pl.FP32], dst: pl.Tensor[[4], pl.FP32], acc: pl.Tensor[[4], pl.FP32], v: pl.Scalar[pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
        r = self.k(x, dst, acc, v)
        return r
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4], pl.FP32], dst: pl.Out[pl.Tensor[[4], pl.FP32]], acc: pl.InOut[pl.Tensor[[4], pl.FP32]], v: pl.Scalar[pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
        pl.tensor.write(dst, [0], v)
        t = pl.tile.load(x, [0], [4])
        u = pl.tile.load(acc, [0], [4])
        w = pl.tile.add(t, u)
        acc1 = pl.tile.store(w, [0], acc)
        return acc1

    @pl.function
    def main(self, x: pl.Tensor[[4], pl.FP32], dst: pl.Out[pl.Tensor[[4], pl.FP32]], acc: pl.InOut[pl.Tensor[[4], pl.FP32]], v: pl.Scalar[pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
        r = self.k(x, dst, acc, v)
        return r
)");
}

TEST_CASE("tensor to tile: a read that may be of a written parameter makes it InOut") {
  // `r` is `d` or `e`, whichever the branch takes: reading it may read `d`, which the kernel
  // writes, so `d` is InOut, not Out (e, only read, stays In).
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, d: pl.Tensor[[4], pl.FP32], e: pl.Tensor[[4], pl.FP32], c: pl.Scalar[pl.BOOL]) -> pl.Tensor[[4], pl.FP32]:
        if c:
            r = pl.yield_(d)
        else:
            r = pl.yield_(e)
        t = pl.tile.load(r, [0], [4])
        d1 = pl.tile.store(t, [0], d)
        return d1
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, d: pl.InOut[pl.Tensor[[4], pl.FP32]], e: pl.Tensor[[4], pl.FP32], c: pl.Scalar[pl.BOOL]) -> pl.Tensor[[4], pl.FP32]:
        if c:
            r = pl.yield_(d)
        else:
            r = pl.yield_(e)
        t = pl.tile.load(r, [0], [4])
        d1 = pl.tile.store(t, [0], d)
        return d1
)");
}

TEST_CASE(
    "tensor to tile: through a loop and an if, an iter_arg seeded by a loaded parameter is a "
    "tile, and so are the loop's and the if's results") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, acc: pl.Tensor[[64], pl.FP32], x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        for i, (s,) in pl.range(n, init_values=(acc,)):
            t = pl.add(s, x)
            if i == 0:
                u = pl.mul(t, x)
                r = pl.yield_(u)
            else:
                r = pl.yield_(t)
            s1 = pl.yield_(r)
        return s1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, acc: pl.Tensor[[64], pl.FP32], x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = self.k(acc, x, 4)
        return y
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, acc: pl.Tensor[[64], pl.FP32], x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX], ret0_out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        acc_tile = pl.load(acc, [0], [64])
        x_tile = pl.load(x, [0], [64])
        for i, (s,) in pl.range(n, init_values=(acc_tile,)):
            t = pl.tile.add(s, x_tile)
            if i == 0:
                u = pl.tile.mul(t, x_tile)
                r = pl.yield_(u)
            else:
                r = pl.yield_(t)
            s1 = pl.yield_(r)
        ret0_store = pl.store(s1, [0], ret0_out)
        return ret0_store

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, acc: pl.Tensor[[64], pl.FP32], x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        ret0_out = pl.create_tensor([64], dtype=pl.FP32)
        y = self.k(acc, x, 4, ret0_out)
        return y
)");
}

TEST_CASE(
    "tensor to tile: a local tensor is a tile assembled into (a tensor source loaded first), "
    "read and written with tile.read / tile.write, cast with tile.cast, and a global tensor's "
    "read stays") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 32], pl.FP32], b: pl.Tensor[[1, 32], pl.FP32], cfg: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[1, 64], pl.BF16]:
        scale = pl.tensor.read(cfg, [0])
        t = pl.create_tensor([1, 64], dtype=pl.FP32)
        t1 = pl.assemble(t, a, [0, 0])
        b2 = pl.mul(b, scale)
        t2 = pl.assemble(t1, b2, [0, 32])
        e = pl.tensor.read(t2, [0, 5])
        pl.tensor.write(t2, [0, 0], e)
        out = pl.cast(t2, target_type=pl.BF16)
        return out
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 32], pl.FP32], b: pl.Tensor[[1, 32], pl.FP32], cfg: pl.Tensor[[4], pl.FP32], ret0_out: pl.Out[pl.Tensor[[1, 64], pl.BF16]]) -> pl.Tensor[[1, 64], pl.BF16]:
        b_tile = pl.load(b, [0, 0], [1, 32])
        scale = pl.tensor.read(cfg, [0])
        t = pl.tile.create([1, 64], dtype=pl.FP32)
        a_tile = pl.load(a, [0, 0], [1, 32])
        t1 = pl.tile.assemble(t, a_tile, [0, 0])
        b2 = pl.tile.muls(b_tile, scale)
        t2 = pl.tile.assemble(t1, b2, [0, 32])
        e = pl.tile.read(t2, [0, 5])
        pl.tile.write(t2, [0, 0], e)
        out = pl.tile.cast(t2, target_type=pl.BF16)
        ret0_store = pl.store(out, [0, 0], ret0_out)
        return ret0_store
)");
}

TEST_CASE(
    "tensor to tile: put and get move through Vec staging tiles of the transfer's rows and "
    "columns capped by chunk_rows / chunk_cols, two with pipeline=True, and a kernel without "
    "results ends in a return") {
  check_convert(R"(
import pypto.language as pl
import pypto.language.distributed as pld
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, dst: pld.DistributedTensor[[16, 64], pl.FP16], src: pld.DistributedTensor[[16, 64], pl.FP16], peer: pl.Scalar[pl.INT32]):
        pld.tensor.put(dst, peer=peer, src=src, chunk_rows=4, chunk_cols=32)
        pld.tensor.get(src, peer=peer, src=dst, pipeline=True)
)",
                R"(
import pypto.language as pl
import pypto.language.distributed as pld
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, dst: pl.InOut[pld.DistributedTensor[[16, 64], pl.FP16]], src: pl.InOut[pld.DistributedTensor[[16, 64], pl.FP16]], peer: pl.Scalar[pl.INT32]):
        stage = pl.tile.create([4, 32], dtype=pl.FP16)
        pld.tile.put(dst, peer, src, stage)
        ping = pl.tile.create([16, 64], dtype=pl.FP16)
        pong = pl.tile.create([16, 64], dtype=pl.FP16)
        pld.tile.get(src, peer, dst, ping, pong)
        return
)");

  const tf::TensorToTileError computed = convert_error(R"(
import pypto.language as pl
import pypto.language.distributed as pld
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, dst: pld.DistributedTensor[[16, 64], pl.FP16], src: pld.DistributedTensor[[16, 64], pl.FP16], peer: pl.Scalar[pl.INT32]):
        s2 = pl.add(src, src)
        pld.tensor.put(dst, peer=peer, src=s2)
)");
  CHECK(computed.op() == "pld.tensor.put");
  CHECK(computed.span().line == 9);
  CHECK(std::string(computed.what()).find("remote_store") != std::string::npos);
}

TEST_CASE("tensor to tile: a gather on A2/A3 gathers row by row into an accumulated tile") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, inp: pl.Tensor[[2, 16], pl.FP32], idx: pl.Tensor[[2, 4], pl.INT32]) -> pl.Tensor[[2, 4], pl.FP32]:
        out = pl.tensor.gather(inp, dim=-1, index=idx)
        return out
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, inp: pl.Tensor[[2, 16], pl.FP32], idx: pl.Tensor[[2, 4], pl.INT32], ret0_out: pl.Out[pl.Tensor[[2, 4], pl.FP32]]) -> pl.Tensor[[2, 4], pl.FP32]:
        acc = pl.tile.create([2, 4], dtype=pl.FP32)
        for r, (ia,) in pl.range(2, init_values=(acc,)):
            row = pl.tile.load(inp, [r, 0], [1, 16])
            idx_row = pl.tile.load(idx, [r, 0], [1, 4])
            tmp = pl.tile.create([1, 4], dtype=pl.INT32)
            g = pl.tile.gather(row, idx_row, tmp)
            next = pl.tile.assemble(ia, g, [r, 0])
            rv = pl.yield_(next)
        out = rv
        ret0_store = pl.tile.store(out, [0, 0], ret0_out)
        return ret0_store
)");
}

TEST_CASE("tensor to tile: a gather on A5 is one tile.gather of flat indices") {
  // flat[i, j] = i * 16 + idx[i, j]: the row of each element from a linear index over [2, 8].
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, inp: pl.Tensor[[2, 16], pl.FP32], idx: pl.Tensor[[2, 8], pl.INT32]) -> pl.Tensor[[2, 8], pl.FP32]:
        out = pl.tensor.gather(inp, dim=1, index=idx)
        return out
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, inp: pl.Tensor[[2, 16], pl.FP32], idx: pl.Tensor[[2, 8], pl.INT32], ret0_out: pl.Out[pl.Tensor[[2, 8], pl.FP32]]) -> pl.Tensor[[2, 8], pl.FP32]:
        src = pl.tile.load(inp, [0, 0], [2, 16])
        index = pl.tile.load(idx, [0, 0], [2, 8])
        lin = pl.tile.ci(pl.const(0, pl.INT32), [1, 16], dtype=pl.INT32)
        lin2d = pl.tile.reshape(lin, [2, 8])
        rows = pl.tile.divs(lin2d, pl.const(8, pl.INT32))
        base = pl.tile.muls(rows, pl.const(16, pl.INT32))
        flat = pl.tile.add(index, base)
        tmp = pl.tile.create([2, 8], dtype=pl.INT32)
        g = pl.tile.gather(src, flat, tmp)
        out = g
        ret0_store = pl.tile.store(out, [0, 0], ret0_out)
        return ret0_store
)",
                "convert-tensor-to-tile-ops{arch=a5}");
}

TEST_CASE("tensor to tile: gathers the tile forms do not cover are typed errors") {
  const tf::TensorToTileError e = convert_error(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, inp: pl.Tensor[[2, 3, 8], pl.FP16], idx: pl.Tensor[[2, 3, 8], pl.INT32]) -> pl.Tensor[[2, 3, 8], pl.FP16]:
        out = pl.tensor.gather(inp, dim=0, index=idx)
        return out
)");
  CHECK(e.op() == "tensor.gather");
  CHECK(e.span().line == 7);
  CHECK(std::string(e.what()).find("needs an FP32 or INT32 input") != std::string::npos);
}

TEST_CASE("tensor to tile: expand_clone along dimension 1 expands each row's columns") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[2, 1, 8], pl.FP16], target: pl.Tensor[[2, 4, 8], pl.FP16]) -> pl.Tensor[[2, 4, 8], pl.FP16]:
        y = pl.expand_clone(src, target)
        return y
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[2, 1, 8], pl.FP16], target: pl.Out[pl.Tensor[[2, 4, 8], pl.FP16]]) -> pl.Tensor[[2, 4, 8], pl.FP16]:
        for i, (acc,) in pl.range(2, init_values=(target,)):
            row = pl.load(src, [i, 0, 0], [1, 1, 8])
            wide = pl.tile.create([1, 4, 8], dtype=pl.FP16)
            col = pl.tile.col_expand(wide, row)
            stored = pl.store(col, [i, 0, 0], acc)
            result = pl.yield_(stored)
        y = result
        return y
)");
  // Two broadcast dimensions: upstream's type rule refuses the call where it is written.
  try {
    parse(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[1, 1, 8], pl.FP16], target: pl.Tensor[[2, 4, 8], pl.FP16]) -> pl.Tensor[[2, 4, 8], pl.FP16]:
        y = pl.expand_clone(src, target)
        return y
)");
    FAIL("no ParseError");
  } catch (const pypto::text::ParseError& e) {
    CHECK(e.line() == 7);
    CHECK(std::string(e.what()).find("in one dimension only") != std::string::npos);
  }
}

TEST_CASE("tensor to tile: mrgsort_format2 gets a scratch tile as wide as the merged output") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, s0: pl.Tensor[[1, 64], pl.FP32], s1: pl.Tensor[[1, 32], pl.FP32]) -> pl.Tensor[[1, 96], pl.FP32]:
        out = pl.tensor.mrgsort(s0, s1)
        return out
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, s0: pl.Tensor[[1, 64], pl.FP32], s1: pl.Tensor[[1, 32], pl.FP32], ret0_out: pl.Out[pl.Tensor[[1, 96], pl.FP32]]) -> pl.Tensor[[1, 96], pl.FP32]:
        a = pl.load(s0, [0, 0], [1, 64])
        b = pl.load(s1, [0, 0], [1, 32])
        tmp = pl.tile.create([1, 96], dtype=pl.FP32)
        out = pl.tile.mrgsort(a, b, tmp)
        ret0_store = pl.store(out, [0, 0], ret0_out)
        return ret0_store
)");
}

TEST_CASE(
    "tensor to tile: xor and a high-precision rsqrt get a scratch tile, a nested op is bound "
    "first") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.INT32], b: pl.Tensor[[16, 16], pl.INT32], x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        c = pl.tensor.xor(a, b)
        d = pl.tensor.xors(c, 3)
        y = pl.tensor.rsqrt(x, high_precision=True)
        z = pl.tensor.rsqrt(y)
        w = pl.tensor.add(z, pl.tensor.cast(d, pl.FP32))
        return w
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.INT32], b: pl.Tensor[[16, 16], pl.INT32], x: pl.Tensor[[16, 16], pl.FP32], ret0_out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_tile = pl.load(a, [0, 0], [16, 16])
        b_tile = pl.load(b, [0, 0], [16, 16])
        x_tile = pl.load(x, [0, 0], [16, 16])
        xor_tmp = pl.tile.create([16, 16], dtype=pl.INT32)
        c = pl.tile.xor(a_tile, b_tile, xor_tmp)
        xor_tmp2 = pl.tile.create([16, 16], dtype=pl.INT32)
        d = pl.tile.xors(c, 3, xor_tmp2)
        rsqrt_tmp = pl.tile.create([16, 16], dtype=pl.FP32)
        y = pl.tile.rsqrt(x_tile, rsqrt_tmp)
        z = pl.tile.rsqrt(y)
        cast_tile = pl.tile.cast(d, pl.FP32)
        w = pl.tile.add(z, cast_tile)
        ret0_store = pl.store(w, [0, 0], ret0_out)
        return ret0_store
)");
}

TEST_CASE("tensor to tile: a returned loop assembling into its carried tile stores into the Out") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 16], pl.FP32]) -> pl.Tensor[[1, 64], pl.FP32]:
        buf = pl.create_tensor([1, 64], dtype=pl.FP32)
        for i, (acc,) in pl.range(4, init_values=(buf,)):
            part = pl.slice(x, [1, 16], [0, 0])
            acc_next = pl.assemble(acc, part, [0, i * 16])
            result = pl.yield_(acc_next)
        return result
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 16], pl.FP32], ret0_out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[1, 64], pl.FP32]:
        for i, (acc,) in pl.range(4, init_values=(ret0_out,)):
            part = pl.load(x, [0, 0], [1, 16])
            acc_next = pl.store(part, [0, i * 16], acc)
            result = pl.yield_(acc_next)
        return result
)");
}

TEST_CASE("tensor to tile: ci's constant start takes the dtype keyword") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 16], pl.INT16]) -> pl.Tensor[[1, 16], pl.INT16]:
        idx = pl.tensor.ci(0, [1, 16], dtype=pl.INT16, descending=True)
        y = pl.add(idx, x)
        return y
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 16], pl.INT16], ret0_out: pl.Out[pl.Tensor[[1, 16], pl.INT16]]) -> pl.Tensor[[1, 16], pl.INT16]:
        x_tile = pl.load(x, [0, 0], [1, 16])
        idx = pl.tile.ci(pl.const(0, pl.INT16), [1, 16], dtype=pl.INT16, descending=True)
        y = pl.tile.add(idx, x_tile)
        ret0_store = pl.store(y, [0, 0], ret0_out)
        return ret0_store
)");
}

TEST_CASE(
    "tensor to tile: a matmul loads its tensor operands into Mat, a transposed one through a view "
    "of a Mat tile (a Vec result moved there first), and matmul_acc keeps its accumulator") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b0: pl.Tensor[[32, 64], pl.FP32], b1: pl.Tensor[[32, 64], pl.FP32], w: pl.Tensor[[64, 32], pl.BF16], x: pl.Tensor[[16, 64], pl.BF16], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        bt = pl.add(b0, b1)
        y = pl.matmul(a, bt, b_trans=True, out_dtype=pl.FP32)
        z = pl.tensor.matmul(x, w, out_dtype=pl.FP32)
        acc = pl.tensor.matmul_acc(y, a, b0, b_trans=True)
        s = pl.add(acc, z)
        o1 = pl.tensor.assemble(o, s, [0, 0])
        return o
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b0: pl.Tensor[[32, 64], pl.FP32], b1: pl.Tensor[[32, 64], pl.FP32], w: pl.Tensor[[64, 32], pl.BF16], x: pl.Tensor[[16, 64], pl.BF16], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        b0_tile = pl.tile.load(b0, [0, 0], [32, 64])
        b1_tile = pl.tile.load(b1, [0, 0], [32, 64])
        bt = pl.tile.add(b0_tile, b1_tile)
        a_mat = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.MemorySpace.Mat)
        bt_mat = pl.tile.move(bt, target_memory=pl.MemorySpace.Mat)
        bt_mat_t = pl.tile.transpose_view(bt_mat)
        y = pl.tile.matmul(a_mat, bt_mat_t)
        x_mat = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.MemorySpace.Mat)
        w_mat = pl.tile.load(w, [0, 0], [64, 32], target_memory=pl.MemorySpace.Mat)
        z = pl.tile.matmul(x_mat, w_mat)
        a_mat2 = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.MemorySpace.Mat)
        b0_mat = pl.tile.move(b0_tile, target_memory=pl.MemorySpace.Mat)
        b0_mat_t = pl.tile.transpose_view(b0_mat)
        acc = pl.tile.matmul_acc(y, a_mat2, b0_mat_t)
        s = pl.tile.add(acc, z)
        o1 = pl.tile.store(s, [0, 0], o)
        return o
)");
}

TEST_CASE("tensor to tile: a BF16 matmul without out_dtype is narrowed to its BF16 type") {
  // The cube's product is FP32; the tensor op's type (upstream's promotion of its operands) is
  // BF16, so the FP32 product is cast, keeping what the program computes.
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.BF16], w: pl.Tensor[[64, 32], pl.BF16], acc: pl.Tensor[[16, 32], pl.FP32], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        s = pl.add(acc, pl.matmul(x, w))
        o1 = pl.tensor.assemble(o, s, [0, 0])
        return o
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.BF16], w: pl.Tensor[[64, 32], pl.BF16], acc: pl.Tensor[[16, 32], pl.FP32], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        acc_tile = pl.tile.load(acc, [0, 0], [16, 32])
        x_mat = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.MemorySpace.Mat)
        w_mat = pl.tile.load(w, [0, 0], [64, 32], target_memory=pl.MemorySpace.Mat)
        matmul_product = pl.tile.matmul(x_mat, w_mat)
        matmul_tile = pl.tile.cast(matmul_product, target_type=pl.BF16)
        s_tile = pl.tile.add(acc_tile, matmul_tile)
        o1 = pl.tile.store(s_tile, [0, 0], o)
        return o
)");
}

TEST_CASE(
    "tensor to tile: a row reduction reads a scratch tile at least 128 wide, an arg-reduction one "
    "of its operand's shape, and a compare selects ones and zeros through its packed mask") {
  check_convert(R"(
import pypto.language as pl
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]], r: pl.Out[pl.Tensor[[16, 1], pl.FP32]], i: pl.Out[pl.Tensor[[1, 64], pl.INT32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        s = pl.tensor.row_sum(a)
        r1 = pl.tensor.assemble(r, s, [0, 0])
        m = pl.tensor.col_argmax(a)
        i1 = pl.tensor.assemble(i, m, [0, 0])
        c = pl.tensor.cmp(a, b, cmp_type=4)
        o1 = pl.tensor.assemble(o, c, [0, 0])
        return o
)",
                R"(
import pypto.language as pl
@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]], r: pl.Out[pl.Tensor[[16, 1], pl.FP32]], i: pl.Out[pl.Tensor[[1, 64], pl.INT32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a_tile = pl.tile.load(a, [0, 0], [16, 64])
        b_tile = pl.tile.load(b, [0, 0], [16, 64])
        tmp = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        s = pl.tile.row_sum(a_tile, tmp)
        r1 = pl.tile.store(s, [0, 0], r)
        tmp2 = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        m = pl.tile.col_argmax(a_tile, tmp2)
        i1 = pl.tile.store(m, [0, 0], i)
        mask = pl.tile.cmp(a_tile, b_tile, cmp_type=4)
        one = pl.tile.full([16, 64], dtype=pl.FP32, value=1.0)
        zero = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        t = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
        c = pl.tile.sel(mask, one, zero, t)
        o1 = pl.tile.store(c, [0, 0], o)
        return o
)");
}

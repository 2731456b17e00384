# Kernels in tile form (what convert-tensor-to-tile-ops leaves) for the kernel code generator's
# tests: golden NPU sources (golden/<name>.npu.cpp), the -fsyntax-only checks of both targets'
# sources (syntax_check.cmake) and the CPU execution check against the reference interpreter.
import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class Kernels:
    # Elementwise chain with a constant and a runtime scalar operand: one Spec.
    @pl.function(type=pl.FunctionType.InCore)
    def elementwise(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32], s: pl.Scalar[pl.FP32], o: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        x = pl.tile.load(a, [16, 0], [16, 64])
        y = pl.tile.load(b, [16, 0], [16, 64])
        z = pl.tile.add(x, y)
        w = pl.tile.mul(z, 0.5)
        u = pl.tile.sub(w, s)
        v = pl.tile.maximum(u, x)
        e = pl.tile.exp(v)
        o1 = pl.tile.store(e, [0, 0], o)
        return o1

    # Row reductions and elementwise code on their [rows, 1] results.
    @pl.function(type=pl.FunctionType.AIV)
    def row_stats(self, a: pl.Tensor[[16, 64], pl.FP32], sums: pl.Out[pl.Tensor[[16, 1], pl.FP32]], maxes: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 64])
        sq = pl.tile.mul(x, x)
        rs = pl.tile.row_sum(sq, sq)
        rm = pl.tile.row_max(x, x)
        r = pl.tile.rsqrt(pl.tile.add(rs, 1e-05))
        sums1 = pl.tile.store(r, [0, 0], sums)
        maxes1 = pl.tile.store(pl.tile.neg(rm), [0, 0], maxes)
        return maxes1

    # A norm-like kernel: two reductions over one grid, the elementwise code on their [16, 1]
    # results and a [16, 1] input tile, all in one row-vector Spec.
    @pl.function(type=pl.FunctionType.AIV)
    def norm(self, a: pl.Tensor[[16, 64], pl.FP32], g: pl.Tensor[[16, 1], pl.FP32], o: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 64])
        w = pl.tile.load(g, [0, 0], [16, 1])
        sq = pl.tile.mul(x, x)
        ss = pl.tile.row_sum(sq, sq)
        mx = pl.tile.row_max(x, x)
        r = pl.tile.mul(pl.tile.rsqrt(pl.tile.add(pl.tile.mul(ss, 0.015625), 1e-05)), w)
        y = pl.tile.sub(r, mx)
        o1 = pl.tile.store(y, [0, 0], o)
        return o1

    # Reductions over two different grids meet in one value: each reduction gets its own Spec.
    @pl.function(type=pl.FunctionType.AIV)
    def mixed_grids(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], o: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 64])
        y = pl.tile.load(b, [0, 0], [16, 32])
        sx = pl.tile.row_sum(x, x)
        sy = pl.tile.row_max(y, y)
        d = pl.tile.div(sx, sy)
        o1 = pl.tile.store(d, [0, 0], o)
        return o1

    # A loop carrying a tile accumulator and a scalar; integer index arithmetic.
    @pl.function(type=pl.FunctionType.InCore)
    def loop_carry(self, a: pl.Tensor[[64, 32], pl.FP32], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        acc0 = pl.tile.full([16, 32], dtype=pl.FP32, value=0.0)
        for i, (acc, n) in pl.range(4, init_values=(acc0, 0)):
            t = pl.tile.load(a, [i * 16, 0], [16, 32])
            acc2 = pl.tile.add(acc, t)
            n2 = n + i // 2
            acc3, n3 = pl.yield_(acc2, n2)
        o1 = pl.tile.store(acc3, [0, 0], o)
        return o1

    # A loop that stores into its Out tensor, threaded through the loop as a carry (seed 002's
    # loop example in tile form), at the block's rows.
    @pl.function(type=pl.FunctionType.AIV)
    def loop_store(self, a: pl.Tensor[[64, 32], pl.FP32], o: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        b = pl.tile.get_block_idx()
        for i, (o_it,) in pl.range(0, 64, 16, init_values=(o,)):
            t = pl.tile.load(a, [i + b * 16, 0], [16, 32])
            o2 = pl.tile.store(pl.tile.neg(t), [i, 0], o_it)
            o3 = pl.yield_(o2)
        return o3

    # Integer tiles (wrap-around arithmetic, one instruction per op) and a cast to FP32.
    @pl.function(type=pl.FunctionType.AIV)
    def integer(self, a: pl.Tensor[[8, 16], pl.INT32], b: pl.Tensor[[8, 16], pl.INT32], o: pl.Out[pl.Tensor[[8, 16], pl.INT32]], f: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [8, 16])
        y = pl.tile.load(b, [0, 0], [8, 16])
        z = pl.tile.mul(pl.tile.add(x, y), y)
        w = pl.tile.maximum(z, pl.tile.neg(x))
        o1 = pl.tile.store(w, [0, 0], o)
        g = pl.tile.cast(w, target_type=pl.FP32)
        f1 = pl.tile.store(pl.tile.mul(g, 0.25), [0, 0], f)
        return f1

    # Scalar code: INT32 wrap-around, Python floor division and modulo, shifts, bit ops, min/max,
    # casts and FP32 floor division/modulo, written element by element into global memory.
    @pl.function(type=pl.FunctionType.AIV)
    def scalars(self, n: pl.Scalar[pl.INT32], m: pl.Scalar[pl.INT32], x: pl.Scalar[pl.FP32], y: pl.Scalar[pl.FP32], oi: pl.Out[pl.Tensor[[8], pl.INT32]], of: pl.Out[pl.Tensor[[6], pl.FP32]]) -> pl.Tensor[[6], pl.FP32]:
        oi1 = pl.tensor.write(oi, [0], n // m)
        oi2 = pl.tensor.write(oi1, [1], n % m)
        oi3 = pl.tensor.write(oi2, [2], n * m + 7)
        oi4 = pl.tensor.write(oi3, [3], (n << 3) ^ m)
        oi5 = pl.tensor.write(oi4, [4], -n >> 2)
        oi6 = pl.tensor.write(oi5, [5], max(n, m) - min(n, m))
        oi7 = pl.tensor.write(oi6, [6], pl.cast(x, pl.INT32))
        oi8 = pl.tensor.write(oi7, [7], pl.tensor.read(oi7, [0]) & m)
        of1 = pl.tensor.write(of, [0], x // y)
        of2 = pl.tensor.write(of1, [1], x % y)
        of3 = pl.tensor.write(of2, [2], x / y * y - x)
        of4 = pl.tensor.write(of3, [3], max(x, y))
        of5 = pl.tensor.write(of4, [4], pl.cast(n, pl.FP32))
        of6 = pl.tensor.write(of5, [5], -x)
        return of6

    # A while loop carrying a scalar and a tile: doubles the tile until the counter reaches k.
    @pl.function(type=pl.FunctionType.AIV)
    def while_loop(self, a: pl.Tensor[[16], pl.FP32], k: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        x = pl.tile.load(a, [0], [16])
        m = 0
        for (mi, xi) in pl.while_(init_values=(m, x)):
            pl.cond(mi < k)
            m2 = mi + 1
            x2 = pl.tile.add(xi, xi)
            m3, x3 = pl.yield_(m2, x2)
        o1 = pl.tile.store(x3, [0], o)
        return o1

    # Symbolic shapes: the rows come from the tensor's runtime shape.
    @pl.function(type=pl.FunctionType.InCore)
    def symbolic(self, a: pl.Tensor[[M, 64], pl.FP32], o: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
        n = pl.tensor.dim(a, 0)
        x = pl.tile.load(a, [0, 0], [n, 64])
        y = pl.tile.abs(pl.tile.add(x, 1.0))
        o1 = pl.tile.store(y, [0, 0], o)
        return o1

    # Two matmuls of the same tiles, the second accumulated into the output: an AIC kernel.
    @pl.function(type=pl.FunctionType.InCore)
    def matmul(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 16], pl.FP32], c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        y = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        z = pl.tile.matmul(x, y)
        c1 = pl.tile.store(z, [0, 0], c)
        w = pl.tile.matmul(x, y)
        c2 = pl.tile.store(w, [0, 0], c, atomic=pl.AtomicType.Add)
        return c2

    # A branch on a scalar parameter with a scalar result; floor division and modulo.
    @pl.function(type=pl.FunctionType.InCore)
    def branch(self, a: pl.Tensor[[64], pl.FP32], k: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        if k % 4 < 2:
            off0 = k // 4 * 16
            off = pl.yield_(off0)
        else:
            off = pl.yield_(0)
        x = pl.tile.load(a, [off], [16])
        o1 = pl.tile.store(pl.tile.div(x, 3.0), [0], o)
        return o1

    # Ifs with results: a tile computed differently in each arm (the arms' yields fill one tile),
    # and a store into the Out tensor in each arm (the if's result is that tensor).
    @pl.function(type=pl.FunctionType.InCore)
    def if_results(self, a: pl.Tensor[[16, 16], pl.FP32], k: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]], p: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        x = pl.tile.load(a, [0, 0], [16, 16])
        if k < 2:
            y = pl.yield_(pl.tile.mul(x, x))
        else:
            y = pl.yield_(pl.tile.abs(x))
        o1 = pl.tile.store(y, [0, 0], o)
        if k == 0:
            p1 = pl.tile.store(x, [0, 0], p)
            p2 = pl.yield_(p1)
        else:
            p3 = pl.tile.store(pl.tile.neg(x), [0, 0], p)
            p2 = pl.yield_(p3)
        return o1, p2

    # Row softmax with implicit broadcasts: [16, 1] reduction results (and a [16, 1] tile) read
    # along each row of a [16, 32] value, and a [1, 32] row read down every row.
    @pl.function(type=pl.FunctionType.AIV)
    def broadcast(self, a: pl.Tensor[[16, 32], pl.FP32], c: pl.Tensor[[16, 1], pl.FP32], r: pl.Tensor[[1, 32], pl.FP32], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t = pl.tile.load(a, [0, 0], [16, 32])
        w = pl.tile.load(c, [0, 0], [16, 1])
        v = pl.tile.load(r, [0, 0], [1, 32])
        m = pl.tile.row_max(t, t)
        e = pl.tile.exp(pl.tile.sub(t, m))
        s = pl.tile.row_sum(e, e)
        y = pl.tile.add(pl.tile.mul(pl.tile.div(e, s), w), v)
        o1 = pl.tile.store(y, [0, 0], o)
        return o1

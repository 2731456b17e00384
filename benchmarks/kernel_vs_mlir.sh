#!/usr/bin/env bash
# Kernel IR canonicalize + key vs. mlir-opt --canonicalize --cse (issue 7, Performance).
#
#   benchmarks/kernel_vs_mlir.sh [--install] [-n N] [--bench PATH]
#
# Prints our BM_Canonicalize64 median (canonicalize + structural key of the 64-instruction
# benchmark spec, from bench_kernel_ir) and, when mlir-opt 16 is present, the Canonicalizer and
# CSE pass times of `mlir-opt --canonicalize --cse --mlir-timing` on N (default 1000) arith-dialect
# functions that compute the same 64 operations on f32 scalars, divided by N, and the ratio.
#
# Installs nothing unless run as root with --install; then it checks `apt-cache policy
# mlir-16-tools` and runs `apt-get install -y mlir-16-tools`. Without mlir-opt (or without the
# package in the apt sources) it says so and exits 0 after printing our figure alone.
# Needs python3 (function generation and parsing). Builds the `bench` preset if the benchmark
# binary is missing. The machine may be shared: the figures are medians of repetitions.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
n=1000
install=0
bench="$root/build/bench/benchmarks/bench_kernel_ir"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --install) install=1 ;;
    -n) n="$2"; shift ;;
    --bench) bench="$2"; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done

# ---- our figure -------------------------------------------------------------------------------
if [[ ! -x "$bench" ]]; then
  echo "building bench_kernel_ir (cmake --preset bench) ..." >&2
  (cd "$root" && cmake --preset bench >/dev/null && cmake --build --preset bench --target bench_kernel_ir >/dev/null)
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$bench" --benchmark_filter='^BM_Canonicalize64$' --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true --benchmark_format=json >"$work/bench.json" 2>/dev/null
ours_ns="$(python3 - "$work/bench.json" <<'EOF'
import json, sys
scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b["name"] == "BM_Canonicalize64_median":
        print(f'{b["real_time"] * scale[b["time_unit"]]:.1f}')
EOF
)"
echo "pypto  BM_Canonicalize64 (canonicalize + key, 64 instrs), median of 5: ${ours_ns} ns"

# ---- mlir-opt ---------------------------------------------------------------------------------
find_mlir_opt() {
  local c
  for c in mlir-opt-16 /usr/lib/llvm-16/bin/mlir-opt mlir-opt; do
    if command -v "$c" >/dev/null 2>&1; then command -v "$c"; return 0; fi
  done
  return 1
}

mlir_opt="$(find_mlir_opt || true)"
if [[ -z "$mlir_opt" && $install -eq 1 ]]; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "--install needs root; not installing mlir-16-tools" >&2
  else
    candidate="$(apt-cache policy mlir-16-tools 2>/dev/null | awk '/Candidate:/ {print $2}')"
    if [[ -z "$candidate" || "$candidate" == "(none)" ]]; then
      echo "mlir-16-tools is not available from the configured apt sources; printing our figure alone."
      exit 0
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y mlir-16-tools >&2
    mlir_opt="$(find_mlir_opt || true)"
  fi
fi
if [[ -z "$mlir_opt" ]]; then
  echo "mlir-opt (mlir-16-tools) not found; run as root with --install to install it. Our figure only."
  exit 0
fi

# MLIR 16 spells max/min arith.maxf/minf; later versions arith.maximumf/minimumf.
printf 'func.func @p(%%a: f32, %%b: f32) -> f32 {\n  %%0 = arith.maximumf %%a, %%b : f32\n  return %%0 : f32\n}\n' >"$work/probe.mlir"
if "$mlir_opt" "$work/probe.mlir" >/dev/null 2>&1; then maxop=maximumf; minop=minimumf; else maxop=maxf; minop=minf; fi

# N functions, each the benchmark's spec64 (benchmarks/bench_kernel_ir.cpp) on f32 scalars: four
# inputs as arguments, constants 1.0, 2.0, -0.0, registers mod 24, every 11th instruction a
# duplicate of the previous computation. Each function has its own argument values, so nothing is
# shared between functions.
python3 - "$n" "$maxop" "$minop" >"$work/kernels.mlir" <<'EOF'
import sys
n, maxop, minop = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ops = ["addf", "mulf", "subf", maxop, "mulf", "addf", minop, "divf"]
consts = ["1.000000e+00", "2.000000e+00", "-0.000000e+00"]
out = []
for f in range(n):
    out.append(f"func.func @k{f}(%in0: f32, %in1: f32, %in2: f32, %in3: f32) -> f32 {{")
    for c, v in enumerate(consts):
        out.append(f"  %c{c} = arith.constant {v} : f32")
    reg = {}
    vid = 0
    def emit(op, a, b):
        global vid
        name = f"%v{vid}"; vid += 1
        out.append(f"  {name} = arith.{op} {a}, {b} : f32")
        return name
    last = ("addf", "%in0", "%in1")
    reg[0] = emit(*last)
    for i in range(1, 64):
        dst = i % 24
        if i % 11 == 0:  # a duplicate of the previous instruction's computation
            reg[dst] = emit(*last)
            continue
        prev = reg[(i - 1) % 24]
        other = f"%in{i % 4}"
        if i % 5 == 0: other = f"%c{i % 3}"
        if i % 7 == 0 and i > 8: other = reg[(i - 8) % 24]
        last = (ops[i % 8], prev, other)
        reg[dst] = emit(*last)
    out.append(f"  return {reg[63 % 24]} : f32")
    out.append("}")
print("\n".join(out))
EOF

# Median over 5 runs of the per-pass wall times.
for rep in 1 2 3 4 5; do
  "$mlir_opt" --canonicalize --cse --mlir-timing "$work/kernels.mlir" -o /dev/null 2>"$work/timing.$rep"
done
python3 - "$n" "$ours_ns" "$mlir_opt" "$work"/timing.* <<'EOF'
import re, statistics, sys
n, ours, tool, files = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4:]
row = re.compile(r"^\s*([0-9.]+)\s+\(\s*[0-9.]+%\)\s+(.*?)\s*$")
canon, cse = [], []
for path in files:
    t = {"Canonicalizer": 0.0, "CSE": 0.0}
    for line in open(path):
        m = row.match(line)
        if m and m.group(2) in t:
            t[m.group(2)] += float(m.group(1))  # wall seconds
    canon.append(t["Canonicalizer"]); cse.append(t["CSE"])
if not any(canon):
    sys.exit("could not find the Canonicalizer pass time in the --mlir-timing report")
c, e = statistics.median(canon), statistics.median(cse)
per_c, per_e = c / n * 1e9, e / n * 1e9
print(f"mlir   {tool} --canonicalize --cse, {n} functions, median of 5 runs:")
print(f"         Canonicalizer {c * 1e3:8.2f} ms total = {per_c / 1e3:7.2f} us/function")
print(f"         CSE           {e * 1e3:8.2f} ms total = {per_e / 1e3:7.2f} us/function")
print(f"         sum                               = {(per_c + per_e) / 1e3:7.2f} us/function")
print(f"ratio  mlir (Canonicalizer + CSE) / pypto (canonicalize + key) = {(per_c + per_e) / ours:.1f}x")
EOF

#!/usr/bin/env bash
# DeduplicateOutlinedKernels vs. LLVM's MergeFunctions (issue 6, Performance: the side-by-side
# peer).
#
#   benchmarks/dedup_vs_mergefunc.sh [-r REPS] [-n "N1 N2 ..."] [--bench PATH] [--keep DIR]
#
# For each N (default 1000 10000 100000) it prints our BM_Dedup/N ns_per_kernel median (CPU time
# of the pass call per input kernel, from bench_dedup, --benchmark_repetitions=REPS) next to the
# MergeFunctionsPass time of `opt-16 -passes=mergefunc -time-passes -disable-output` on the
# equivalent LLVM IR module, divided by N (median of REPS runs, default 5), and the ratio.
#
# The equivalent module has the shape of bench_dedup's program (benchmarks/bench_dedup.cpp):
#   - N internal functions @k000000.. `void (ptr %a, ptr %o)`, each with eight instructions and a
#     `ret void`: a load, six fadds (the first adds the per-function constant i/2, the other five
#     add the running value to itself, like `tile.add(t, t)`), a store;
#   - kernels 2j and 2j+1 are equal (N/2 merges); pairs differ in their constant;
#   - an external @main calling every kernel once (the Orchestration function).
# The kernels are `internal`, as our outlined kernels are private to the program: mergefunc then
# rewrites the calls and deletes the duplicate instead of leaving a thunk. Before timing, the
# script runs mergefunc without -disable-output on the smallest N and checks that exactly N/2
# `define`s disappeared.
#
# Timing columns: `-time-passes` reports User+System (CPU) and Wall time per pass; the mergefunc
# column is User+System (our ns_per_kernel is thread CPU time too), the wall time is printed
# alongside. opt's parsing/verification is not in the MergeFunctionsPass row, just as building
# the program is outside our timed region. -time-passes prints seconds with four decimals: at
# N = 1000 that is a resolution of 100 ns per function.
#
# Needs: bash, awk, llvm-16's opt-16 (installed with apt-get when missing: needs root and the
# Debian 12 `llvm-16` package, checked with `apt-cache policy llvm-16`), cmake + ninja + g++ and
# libbenchmark-dev to build bench_dedup (preset `bench`) when the binary is missing. No python.
# The machine may be shared: every figure is a median of repetitions.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
reps=5
sizes="1000 10000 100000"
bench="$root/build/bench/benchmarks/bench_dedup"
keep=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    -r) reps="$2"; shift ;;
    -n) sizes="$2"; shift ;;
    --bench) bench="$2"; shift ;;
    --keep) keep="$2"; shift ;;
    -h | --help) sed -n '2,33p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done

log() { printf '==> %s\n' "$*" >&2; }

# ---- opt-16 -----------------------------------------------------------------------------------
find_opt16() {
  local c
  for c in opt-16 /usr/lib/llvm-16/bin/opt; do
    if command -v "$c" >/dev/null 2>&1; then command -v "$c"; return 0; fi
  done
  return 1
}
opt="$(find_opt16 || true)"
if [[ -z "$opt" ]]; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "opt-16 not found and not root: install llvm-16 (apt-get install llvm-16) first" >&2
    exit 1
  fi
  candidate="$(apt-cache policy llvm-16 2>/dev/null | awk '/Candidate:/ {print $2}')"
  if [[ -z "$candidate" || "$candidate" == "(none)" ]]; then
    log "llvm-16 has no candidate; running apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update >&2
    candidate="$(apt-cache policy llvm-16 2>/dev/null | awk '/Candidate:/ {print $2}')"
  fi
  if [[ -z "$candidate" || "$candidate" == "(none)" ]]; then
    echo "llvm-16 is not available from the configured apt sources" >&2
    exit 1
  fi
  log "installing llvm-16 $candidate"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends llvm-16 >&2
  opt="$(find_opt16)"
fi
log "opt: $opt ($("$opt" --version | awk '/LLVM version/ {print $NF; exit}'))"

# ---- bench_dedup ------------------------------------------------------------------------------
if [[ ! -x "$bench" ]]; then
  log "building bench_dedup (cmake --preset bench, -j2)"
  (cd "$root" && cmake --preset bench >/dev/null &&
    cmake --build --preset bench -j2 --target bench_dedup >/dev/null)
  [[ -x "$bench" ]] || { echo "no bench_dedup at $bench" >&2; exit 1; }
fi

if [[ -n "$keep" ]]; then
  mkdir -p "$keep"
  work="$(cd "$keep" && pwd)"
else
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi

# ---- the equivalent LLVM IR module ------------------------------------------------------------
gen_module() {  # N -> LLVM IR on stdout
  awk -v n="$1" 'BEGIN {
    print "; bench_dedup-shaped module: " n " kernels, kernels 2j and 2j+1 equal"
    for (i = 0; i < n; ++i) {
      printf "define internal void @k%06d(ptr %%a, ptr %%o) {\n", i
      print "  %t = load float, ptr %a, align 4"
      printf "  %%s0 = fadd float %%t, %.6e\n", int(i / 2)  # integers < 2^24: exact in float
      for (k = 1; k <= 5; ++k) printf "  %%s%d = fadd float %%s%d, %%s%d\n", k, k - 1, k - 1
      print "  store float %s5, ptr %o, align 4"
      print "  ret void"
      print "}"
    }
    print "define void @main(ptr %a, ptr %o) {"
    for (i = 0; i < n; ++i) printf "  call void @k%06d(ptr %%a, ptr %%o)\n", i
    print "  ret void"
    print "}"
  }'
}

# -time-passes -> the MergeFunctionsPass row's User+System and Wall seconds ("cpu wall").
# Columns appear only when their total is non-zero, so they are read off the header line.
mergefunc_seconds() {
  awk '
    /Pass execution timing report/ { in_report = 1 }
    in_report && /Wall Time/ {
      ncol = 0
      for (f = 1; f <= NF; ++f) {
        if ($f ~ /User\+System/) col[++ncol] = "cpu"
        else if ($f ~ /Wall/) col[++ncol] = "wall"
        else if ($f ~ /User/) col[++ncol] = "user"
        else if ($f ~ /System/) col[++ncol] = "sys"
      }
    }
    in_report && ncol && $NF == "MergeFunctionsPass" {
      k = 0
      for (f = 1; f < NF; ++f) if ($f ~ /^[0-9.]+$/) v[col[++k]] = $f
      cpu = ("cpu" in v) ? v["cpu"] : ("user" in v ? v["user"] : 0) + ("sys" in v ? v["sys"] : 0)
      print cpu, v["wall"]
      found = 1
      exit
    }
    END { if (!found) exit 1 }'
}

median() {  # numbers on stdin, one a line -> their median
  sort -g | awk '{ a[NR] = $1 }
    END { m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; print m }'
}

read -r -a ns <<<"$sizes"
smallest="$(printf '%s\n' "${ns[@]}" | sort -n | head -1)"
declare -A mf_cpu mf_wall
for n in "${ns[@]}"; do
  gen_module "$n" >"$work/kernels_$n.ll"
  if [[ "$n" == "$smallest" ]]; then
    before="$(grep -c '^define' "$work/kernels_$n.ll")"
    after="$("$opt" -passes=mergefunc -S "$work/kernels_$n.ll" | grep -c '^define')"
    log "check N=$n: mergefunc leaves $after of $before defines (expected $((n / 2 + 1)))"
    if [[ "$after" -ne $((n / 2 + 1)) ]]; then
      echo "mergefunc did not merge exactly N/2 functions: $before -> $after defines" >&2
      exit 1
    fi
  fi
  : >"$work/mf_$n.txt"
  for ((rep = 1; rep <= reps; ++rep)); do
    "$opt" -passes=mergefunc -time-passes -disable-output "$work/kernels_$n.ll" \
      2>"$work/timing_$n.$rep"
    mergefunc_seconds <"$work/timing_$n.$rep" >>"$work/mf_$n.txt" ||
      { echo "no MergeFunctionsPass row in $work/timing_$n.$rep" >&2; exit 1; }
  done
  mf_cpu[$n]="$(awk '{print $1}' "$work/mf_$n.txt" | median)"
  mf_wall[$n]="$(awk '{print $2}' "$work/mf_$n.txt" | median)"
  log "mergefunc N=$n: median MergeFunctionsPass ${mf_cpu[$n]} s CPU," \
    "${mf_wall[$n]} s wall ($reps runs)"
  [[ -n "$keep" ]] || rm -f "$work/kernels_$n.ll"
done

# ---- our figures ------------------------------------------------------------------------------
filter="^BM_Dedup(AllCollide)?/($(printf '%s\n' "${ns[@]}" | paste -sd'|'))\$"
log "bench_dedup --benchmark_filter='$filter' --benchmark_repetitions=$reps"
"$bench" --benchmark_filter="$filter" --benchmark_repetitions="$reps" \
  --benchmark_report_aggregates_only=true --benchmark_format=json >"$work/bench.json"
# Google Benchmark's JSON has one "key": value per line: pair each _median entry with its counter.
ours() {  # benchmark name -> ns_per_kernel median
  awk -v want="\"$1_median\"," '
    $1 == "\"name\":" { current = $2 }
    $1 == "\"ns_per_kernel\":" && current == want { sub(/,$/, "", $2); print $2; exit }
  ' "$work/bench.json"
}

# ---- table ------------------------------------------------------------------------------------
printf '\n%-8s %14s %16s %16s %16s %15s %15s\n' N "pypto ns/kern" "mergefunc ns/fn" \
  "mergefunc wall" "pypto collide" "pypto/mergefn" "mergefn/pypto"
printf '%-8s %14s %16s %16s %16s %15s %15s\n' "" "(BM_Dedup, CPU)" "(User+System)" "ns/fn" \
  "ns/kern (CPU)" "" ""
for n in "${ns[@]}"; do
  p="$(ours "BM_Dedup/$n")"
  c="$(ours "BM_DedupAllCollide/$n")"
  awk -v n="$n" -v p="$p" -v c="$c" -v mc="${mf_cpu[$n]}" -v mw="${mf_wall[$n]}" 'BEGIN {
    m = mc * 1e9 / n; w = mw * 1e9 / n
    printf "%-8d %14.1f %16.1f %16.1f %16.1f %14.2fx %14.2fx\n", n, p, m, w, c, p / m, m / p
  }'
done
echo "(medians of $reps runs; $opt -passes=mergefunc -time-passes -disable-output;" \
  "internal kernels, N/2 merges)"

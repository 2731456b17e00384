#!/usr/bin/env bash
# Compile-time benchmark: what including the library costs a TU, in both ways of consuming it.
#
#   benchmarks/compile_time.sh [-r RUNS] [-x CXX]     the table below (defaults: 3 runs, g++)
#   benchmarks/compile_time.sh TU [CXX]               one TU, 5 runs (extra flags: $PYPTO_CT_FLAGS)
#
# The table times `$CXX -std=c++20 -O2 -Iinclude -c` of: a TU of only the standard headers the
# library includes (the baseline, measured in the same run), a TU holding one `#include` and
# `int main(){}` for every public umbrella header, and benchmarks/compile_time_host.cpp (what a
# host writes). Each is taken header-only and compiled (-DPYPTO_SEPARATE_COMPILATION: the
# declarations only, docs/compilation.md). It prints the median wall seconds of RUNS and the
# ratio to the baseline. Figures vary between machines; the ratios travel better.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

median_seconds() {  # runs cmd... -> median wall seconds of `runs` compiles
  local runs="$1" i start end
  shift
  local times=()
  for ((i = 1; i <= runs; i++)); do
    start=$(date +%s%N)
    "$@"
    end=$(date +%s%N)
    times+=("$(awk -v ns=$((end - start)) 'BEGIN { printf "%.3f", ns / 1e9 }')")
  done
  local sorted=($(printf '%s\n' "${times[@]}" | sort -g))
  echo "${sorted[$((runs / 2))]}"
}

single_tu() {  # the original mode: one TU, 5 runs, median/min/max and peak RSS
  local tu="$1" cxx="${2:-g++}" runs=5
  local extra_flags=(${PYPTO_CT_FLAGS:-})
  [[ -f "$tu" ]] || { echo "compile_time.sh: no such TU: $tu" >&2; exit 1; }
  local cmd=("$cxx" -std=c++20 -O2 -Iinclude "${extra_flags[@]}" -c "$tu" -o /dev/null)
  echo "compile_time: ${cmd[*]}  (x$runs)"
  local times=() rss=() i start end
  for ((i = 1; i <= runs; i++)); do
    start=$(date +%s%N)
    /usr/bin/time -f %M -o "$scratch/rss" "${cmd[@]}"
    end=$(date +%s%N)
    rss+=("$(tail -n 1 "$scratch/rss")")
    times+=("$(awk -v ns=$((end - start)) 'BEGIN { printf "%.3f", ns / 1e9 }')")
  done
  local sorted=($(printf '%s\n' "${times[@]}" | sort -g))
  echo "compile_time: $tu with $cxx: median ${sorted[$((runs / 2))]} s, min ${sorted[0]} s," \
    "max ${sorted[$((runs - 1))]} s"
  local peak=$(printf '%s\n' "${rss[@]}" | sort -n | tail -n 1)
  echo "compile_time: peak RSS $((peak / 1024)) MiB (${peak} KiB)"
}

if [[ $# -ge 1 && "$1" != -* ]]; then
  single_tu "$@"
  exit 0
fi

runs=3
cxx=g++
while getopts "r:x:" opt; do
  case "$opt" in
    r) runs="$OPTARG" ;;
    x) cxx="$OPTARG" ;;
    *) sed -n '2,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2; exit 2 ;;
  esac
done
command -v "$cxx" >/dev/null 2>&1 || { echo "compile_time.sh: compiler not found: $cxx" >&2; exit 1; }

# The baseline: every standard header the library includes, nothing of ours.
grep -rhoE '#include <[a-z_]+>' include/pypto | sort -u >"$scratch/std.cpp"
echo 'int main() {}' >>"$scratch/std.cpp"

umbrellas=(pypto/ir.hpp pypto/structural.hpp pypto/text/parser.hpp pypto/codegen/codegen.hpp
  pypto/dedup.hpp pypto/pypto.hpp)
for h in "${umbrellas[@]}"; do
  printf '#include <%s>\nint main() {}\n' "$h" >"$scratch/$(echo "$h" | tr '/.' '__').cpp"
done

compile() { "$cxx" -std=c++20 -O2 -Iinclude "$@" -o /dev/null; }

echo "compile_time: $cxx -std=c++20 -O2 -Iinclude -c, median of $runs runs (wall s, ratio to std-only)"
base=$(median_seconds "$runs" compile -c "$scratch/std.cpp")
printf '%-36s %14s %22s\n' "TU" "header-only" "compiled"
printf '%-36s %8s s       %8s\n' "std headers only (baseline)" "$base" "-"
row() {  # label tu
  local ho co
  ho=$(median_seconds "$runs" compile -c "$2")
  co=$(median_seconds "$runs" compile -DPYPTO_SEPARATE_COMPILATION -c "$2")
  printf '%-36s %8s s %5.1fx %8s s %5.1fx\n' "$1" "$ho" "$(awk -v a="$ho" -v b="$base" 'BEGIN{print a/b}')" \
    "$co" "$(awk -v a="$co" -v b="$base" 'BEGIN{print a/b}')"
}
for h in "${umbrellas[@]}"; do
  row "<$h>" "$scratch/$(echo "$h" | tr '/.' '__').cpp"
done
row "host program (compile_time_host.cpp)" benchmarks/compile_time_host.cpp

#!/usr/bin/env bash
# Compile-time benchmark: how long one TU that uses the IR takes to compile.
#
#   benchmarks/compile_time.sh [TU [CXX]]     (defaults: benchmarks/compile_time_ir.cpp, g++)
#
# Compiles `$CXX -std=c++20 -O2 -Iinclude -c TU -o /dev/null` 5 times from the repo root and
# prints the median/min/max wall time in seconds, and the peak RSS of the compiler when
# /usr/bin/time is available. Extra flags may be passed in $PYPTO_CT_FLAGS.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

tu="${1:-benchmarks/compile_time_ir.cpp}"
cxx="${2:-g++}"
runs=5
extra_flags=(${PYPTO_CT_FLAGS:-})

if [[ ! -f "$tu" ]]; then
  echo "compile_time.sh: no such TU: $tu" >&2
  exit 1
fi
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "compile_time.sh: compiler not found: $cxx" >&2
  exit 1
fi

cmd=("$cxx" -std=c++20 -O2 -Iinclude "${extra_flags[@]}" -c "$tu" -o /dev/null)
have_gnu_time=0
[[ -x /usr/bin/time ]] && have_gnu_time=1

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

times=()
rss=()
echo "compile_time: ${cmd[*]}  (x$runs)"
for ((i = 1; i <= runs; i++)); do
  start=$(date +%s%N)
  if ((have_gnu_time)); then
    /usr/bin/time -f %M -o "$scratch/rss" "${cmd[@]}"
    rss+=("$(tail -n 1 "$scratch/rss")")
  else
    "${cmd[@]}"
  fi
  end=$(date +%s%N)
  times+=("$(awk -v ns=$((end - start)) 'BEGIN { printf "%.3f", ns / 1e9 }')")
done

sorted=($(printf '%s\n' "${times[@]}" | sort -g))
median="${sorted[$((runs / 2))]}"
echo "compile_time: $tu with $cxx: median ${median} s, min ${sorted[0]} s, max ${sorted[$((runs - 1))]} s"
if ((have_gnu_time)); then
  peak=$(printf '%s\n' "${rss[@]}" | sort -n | tail -n 1)
  echo "compile_time: peak RSS $((peak / 1024)) MiB (${peak} KiB)"
else
  echo "compile_time: /usr/bin/time not found; peak RSS not measured"
fi

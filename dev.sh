#!/usr/bin/env bash
# dev.sh — the single entry point for building, running and testing pypto.
#
#   ./dev.sh setup      install the Debian packages the build needs (only what is missing)
#   ./dev.sh run [ARGS] setup, build pypto-opt (preset default) and run it with ARGS; without
#                       ARGS, the main job: `--target=cpu --run` on the embedded program
#   ./dev.sh test       setup, then configure + build + ctest with g++ (default), clang++ (clang)
#                       and g++ with ASan + UBSan (debug)
#   ./dev.sh sanitize   setup, then configure + build + ctest with ASan/UBSan (preset debug)
#   ./dev.sh bench      setup, build the benchmarks (preset bench), run them, then
#                       benchmarks/compile_time.sh (every umbrella header, both modes)
#   ./dev.sh fuzz [SEC] setup, build the libFuzzer parser target (preset fuzz, clang++) and run it
#                       SEC seconds (default 300) from a scratch copy of tests/fuzz/corpus
#   ./dev.sh fuzz-passes [SEC [PRESET]]  setup, build the differential pass fuzzer (preset default,
#                       or debug for ASan + UBSan) and run it SEC seconds (default 300) from a
#                       random seed; shrunk reproducers of failures go to ./fuzz-passes-out/
#   ./dev.sh format     clang-format -i every .hpp/.ipp/.cpp under include tests examples benchmarks
#                       (not the golden outputs under tests/codegen/golden)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

# tool on PATH -> Debian package that provides it
declare -A TOOL_PACKAGES=([g++]=g++ [clang++]=clang [cmake]=cmake [ninja]=ninja-build)
LIBRARY_PACKAGES=(libboost1.81-dev doctest-dev libbenchmark-dev)

log() { printf '==> %s\n' "$*"; }

package_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == "install ok installed" ]]
}

cmd_setup() {
  local missing=() tool pkg
  for tool in g++ clang++ cmake ninja; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("${TOOL_PACKAGES[$tool]}")
  done
  if command -v dpkg-query >/dev/null 2>&1; then
    for pkg in "${LIBRARY_PACKAGES[@]}"; do
      package_installed "$pkg" || missing+=("$pkg")
    done
  else
    echo "dev.sh: dpkg-query not found; cannot check ${LIBRARY_PACKAGES[*]} (not Debian?)." >&2
  fi
  if ((${#missing[@]} == 0)); then
    log "setup: all tools and packages present"
    return 0
  fi

  local install=(apt-get install -y --no-install-recommends "${missing[@]}")
  if [[ "$(id -u)" -ne 0 ]]; then
    echo "dev.sh: missing packages: ${missing[*]}" >&2
    echo "Run as root:" >&2
    echo "  apt-get update && DEBIAN_FRONTEND=noninteractive ${install[*]}" >&2
    exit 1
  fi
  log "setup: installing ${missing[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive "${install[@]}"
}

configure_build() {  # preset [build args...]
  local preset="$1"
  shift
  log "configure: preset $preset"
  cmake --preset "$preset"
  log "build: preset $preset $*"
  cmake --build --preset "$preset" "$@"
}

cmd_run() {
  if [[ ! -f examples/pypto-opt/main.cpp ]]; then
    echo "dev.sh run: examples/pypto-opt/main.cpp does not exist yet" >&2
    exit 1
  fi
  # Build logs go to stderr so that stdout is pypto-opt's output alone.
  cmd_setup >&2
  configure_build default --target pypto-opt >&2
  if [[ $# -eq 0 ]]; then set -- --target=cpu --run; fi
  exec ./build/default/examples/pypto-opt/pypto-opt "$@"
}

TEST_STEP="setup"
on_test_exit() {
  local rc=$?
  ((rc == 0)) || echo "dev.sh test: FAILED at ${TEST_STEP} (exit ${rc})" >&2
}

minutes() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

run_suite() {  # preset -> appends "preset: N tests passed (build T, tests T)" to SUMMARY
  local preset="$1" total start built
  start=$SECONDS
  TEST_STEP="configure/build ($preset)"
  configure_build "$preset"
  built=$SECONDS
  TEST_STEP="ctest ($preset)"
  log "ctest: preset $preset"
  ctest --preset "$preset"
  total="$(ctest --preset "$preset" -N | sed -n 's/^Total Tests: //p')"
  SUMMARY+=("$preset: ${total:-?} tests passed (build $(minutes $((built - start))), tests $(minutes $((SECONDS - built))))")
}

cmd_test() {
  trap on_test_exit EXIT
  cmd_setup
  SUMMARY=()
  run_suite default
  run_suite clang
  run_suite debug  # the sanitizer claims (stack-safe teardown, no UB) are checked, not assumed
  local joined
  joined="$(printf '%s; ' "${SUMMARY[@]}")"
  echo "dev.sh test: OK (g++, clang++, g++ ASan+UBSan) — ${joined%; }"
}

cmd_sanitize() {
  cmd_setup
  configure_build debug
  log "ctest: preset debug"
  ctest --preset debug
  echo "dev.sh sanitize: OK (ASan + UBSan, preset debug)"
}

cmd_bench() {
  cmd_setup
  configure_build bench
  local bm found=0
  for bm in build/bench/benchmarks/bm_* build/bench/benchmarks/bench_*; do
    [[ -x "$bm" && -f "$bm" ]] || continue
    found=1
    log "benchmark: $bm"
    "$bm" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
      --benchmark_min_time=0.05
  done
  ((found)) || log "no benchmarks/bm_*.cpp or bench_*.cpp yet"
  log "compile time"
  benchmarks/compile_time.sh
}

cmd_format() {
  local clang_format
  clang_format="$(command -v clang-format || command -v clang-format-14 || true)"
  if [[ -z "$clang_format" ]]; then
    echo "dev.sh: clang-format not found; apt-get install clang-format" >&2
    exit 1
  fi
  local dirs=() d
  for d in include tests examples benchmarks; do [[ -d "$d" ]] && dirs+=("$d"); done
  # Golden files are generated output, compared byte for byte: never reformatted.
  find "${dirs[@]}" -path tests/codegen/golden -prune -o \
    -type f \( -name '*.hpp' -o -name '*.ipp' -o -name '*.cpp' \) -print0 |
    sort -z | xargs -0 --no-run-if-empty "$clang_format" -i
  log "format: done"
}

usage() {
  sed -n '2,17s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

cmd_fuzz() {
  local seconds="${1:-300}" work
  cmd_setup
  configure_build fuzz
  work="$(mktemp -d)"
  cp tests/fuzz/corpus/* "$work/"
  log "fuzz: ${seconds}s from $work (a crashing input is written to the current directory;"
  log "      once fixed, copy it into tests/fuzz/corpus/ so fuzz.parser_corpus keeps it)"
  build/fuzz/tests/fuzz/pypto_fuzz_parser -max_total_time="$seconds" -max_len=4096 -timeout=10 \
    -dict=tests/fuzz/pl.dict "$work"
}

cmd_fuzz_passes() {
  local seconds="${1:-300}" preset="${2:-default}" out seed
  cmd_setup
  configure_build "$preset" --target pypto_fuzz_passes
  out="$PWD/fuzz-passes-out"
  mkdir -p "$out"
  seed="$(date +%s)"
  log "fuzz-passes: ${seconds}s from seed $seed (preset $preset); reproducers in $out"
  "build/$preset/tests/fuzz/pypto_fuzz_passes" --seed "$seed" --seconds "$seconds" \
    --cpu-every 10 --out "$out"
}

case "${1:-}" in
  setup) cmd_setup ;;
  run) shift; cmd_run "$@" ;;
  test) cmd_test ;;
  sanitize) cmd_sanitize ;;
  bench) cmd_bench ;;
  fuzz) shift; cmd_fuzz "$@" ;;
  fuzz-passes) shift; cmd_fuzz_passes "$@" ;;
  format) cmd_format ;;
  -h | --help | help) usage ;;
  *) usage >&2; exit 2 ;;
esac

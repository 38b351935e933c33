#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang 22, ASan + UBSan, every
# library instrumented) in ${FS_FUZZ_BUILD_DIR:-build-fuzz} and runs each
# one for SECONDS (default 60) from the committed seed corpus, one job at a
# time (one process, one job). New inputs go to a scratch corpus (not the committed one); a crash
# leaves its input in $out/<fuzzer>/ and the script exits 1. A summary line
# per fuzzer (seconds, execs, crashes) goes to $out/summary.txt.
#
#   scripts/fuzz.sh [SECONDS] [fuzzer...]     e.g. scripts/fuzz.sh 600 ir
#
# Needs clang-22 and libclang-rt-22-dev (the fuzzer runtime); it installs
# the latter with apt-get when it can.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
shift || true
build=${FS_FUZZ_BUILD_DIR:-$root/build-fuzz}
out=${FS_FUZZ_OUT:-$build/fuzz-runs}
jobs=${FS_JOBS:-2}
all=(ir tune-results unified-diff compile-db)
want=("$@")
[ ${#want[@]} -eq 0 ] && want=("${all[@]}")

runtime=/usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.fuzzer-x86_64.a
if [ ! -f "$runtime" ] && command -v apt-get >/dev/null; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libclang-rt-22-dev >/dev/null
fi
[ -f "$runtime" ] || { echo "fuzz: no libFuzzer runtime ($runtime); install libclang-rt-22-dev" >&2; exit 2; }

mkdir -p "$build" "$out"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_C_COMPILER=clang-22 \
    -DFS_ENABLE_FUZZ=ON -DFS_ENABLE_TESTS=OFF -DFS_PARTS="IR;Patch;Forge;Driver" \
    >"$build/configure.log" 2>&1 || { tail -20 "$build/configure.log"; exit 2; }
fi
targets=()
for f in "${want[@]}"; do targets+=("fs-fuzz-$f"); done
cmake --build "$build" -j "$jobs" --target "${targets[@]}" >"$build/build.log" 2>&1 ||
  { tail -30 "$build/build.log"; exit 2; }

status=0
: > "$out/summary.txt"
for f in "${want[@]}"; do
  bin="$build/fuzz/fs-fuzz-$f"
  seeds="$root/fuzz/corpus/$f"
  scratch="$out/$f/corpus"
  mkdir -p "$scratch" "$out/$f"
  dict=(); [ -f "$root/fuzz/$f.dict" ] && dict=(-dict="$root/fuzz/$f.dict")
  log="$out/$f/fuzz.log"
  start=$(date +%s)
  "$bin" "${dict[@]}" -max_total_time="$seconds" \
    -print_final_stats=1 -artifact_prefix="$out/$f/" -rss_limit_mb=2048 \
    "$scratch" "$seeds" >"$log" 2>&1
  rc=$?
  end=$(date +%s)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  crashes=$(ls "$out/$f"/crash-* "$out/$f"/leak-* "$out/$f"/timeout-* "$out/$f"/oom-* 2>/dev/null | wc -l)
  line="$f: $((end - start)) s, ${execs:-?} execs, $crashes crashes (exit $rc)"
  echo "fuzz: $line"
  echo "$line" >> "$out/summary.txt"
  [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ] && status=1
done
exit $status

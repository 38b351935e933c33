#!/usr/bin/env bash
# The one-command path on a GPU host that has no LLVM: the portable
# fs-rewrite (scripts/build-portable.sh, carried as
# .carry/fs-rewrite-portable.tar.xz) analyses each app, writes a bundle, runs
# fs-tune on it and emits the patch with the verified winners, in one
# fs-rewrite command. With --harness, fs-harness then measures the app with
# that patch (USE_OURS=0/1 interleaved). Everything goes to $OUT.
#
#   scripts/gpu/one-command.sh [--harness ROUNDS] [app...]   (default: rtm)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
rounds=0
if [ "${1:-}" = "--harness" ]; then rounds=$2; shift 2; fi
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(rtm)
out=${OUT:-$root/one-command-out}
mkdir -p "$out"
work=${FS_WORK:-/tmp/fs-one-command}
mkdir -p "$work"
tar -C "$work" -xJf .carry/fs-rewrite-portable.tar.xz
fsr=$work/fs-rewrite-portable/bin/fs-rewrite
"$fsr" --version
build=${FS_BUILD_DIR:-$root/build-gpu}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFS_ENABLE_LLVM=OFF -DFS_PARTS= \
  -DFS_ENABLE_TESTS=OFF -DFS_EXTRA_INCLUDE_DIR="$root/.carry/include" > "$out/build.log" 2>&1
ninja -C "$build" fs-tune fs-harness >> "$out/build.log" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
status=0
for app in "${apps[@]}"; do
  cmake -S "apps/$app/src" -B "$work/apps/$app" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_COMPILER="${CUDACXX:-nvcc}" > "$out/$app-cmake.log" 2>&1
  rm -rf "$work/bundles/$app" "$out/patches/$app"
  cmd=("$fsr" --app "$app" --source-root "apps/$app/src" --emit-patch
       --output-dir "$out/patches/$app" --knowledge "$work/fs-rewrite-portable/operator-matrix.json"
       --fs-tune "$build/bin/fs-tune" --bundle "$work/bundles/$app"
       --tune-arg=-j"$(nproc)" "$work/apps/$app")
  echo "\$ ${cmd[*]}" | tee "$out/$app-one-command.log"
  start=$(date +%s)
  "${cmd[@]}" >> "$out/$app-one-command.log" 2>&1 || status=1
  echo "one command: $(( $(date +%s) - start )) s, exit $status" | tee -a "$out/$app-one-command.log"
  cp "$work/bundles/$app/results.json" "$out/$app-results.json" 2>/dev/null || true
  grep -E "^fs-rewrite: " "$out/$app-one-command.log" | grep -v "bundle:" || true
  if [ "$rounds" -gt 0 ] && [ -d "$out/patches/$app" ]; then
    # fs-harness reads patches/<app>/ (app.json): this copy of the tree takes
    # the patch just made.
    rm -rf "patches/$app" && cp -r "$out/patches/$app" "patches/$app"
    "$build/bin/fs-harness" --app "$app" --rounds "$rounds" --root "$root" \
      --work-dir "$work/harness/$app" --json "$out/$app-runs.json" 2>&1 |
      tee "$out/$app-harness.log" | tail -15 || status=1
  fi
done
tar -C "$out" -czf "$out/patches.tgz" patches && rm -rf "$out/patches"
exit $status

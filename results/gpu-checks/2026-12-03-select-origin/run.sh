#!/usr/bin/env bash
# Rebuilds the check: fs-rewrite patches check.cu (its two kernels: a mode
# switch on an int parameter, an in-place -= on a grid whose origin is a
# struct field), then, on a GPU host, the patched and the unpatched program
# run and print a checksum of every array's bits.
#   run.sh patch DIR   (a machine with fs-rewrite: writes DIR/{main.cu,forgestencil/})
#   run.sh run DIR     (a GPU host with nvcc: builds and runs both modes)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mode=$1 dir=$2
case $mode in
patch)
  mkdir -p "$dir" && cp "$here/check.cu" "$dir/main.cu" && cp "$here/check.cu" "$dir/main_orig.cu"
  printf '[{"directory": "%s", "file": "%s/main.cu", "command": "nvcc -arch=sm_90 -std=c++17 -c main.cu -o main.o"}]\n' \
    "$dir" "$dir" > "$dir/compile_commands.json"
  (cd "$dir" && git init -q . && git add main.cu && git -c user.name=x -c user.email=x commit -qm check)
  "$root/build/bin/fs-rewrite" --app check --emit-patch --output-dir "$dir/patch" --cpu-check=never \
    "$dir/compile_commands.json"
  (cd "$dir" && git apply patch/*.patch) ;;
run)
  cd "$dir"
  nvcc -arch=sm_90 -std=c++17 -O3 -o app main.cu
  nvcc -arch=sm_90 -std=c++17 -O3 -o orig main_orig.cu
  for m in 0 1 0 1; do echo "USE_OURS=$m $(USE_OURS=$m ./app)"; done
  echo "unpatched $(./orig)"
  for m in 1 0; do
    echo "kernels run with USE_OURS=$m:"
    USE_OURS=$m ncu --csv --metrics gpu__time_duration.sum ./app 2>/dev/null |
      awk -F'","' 'NR>1 && $5 != "" {print $5}' | sed 's/(.*//' | sort | uniq -c
  done ;;
*) echo "usage: run.sh patch|run DIR" >&2; exit 2 ;;
esac

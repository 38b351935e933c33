#!/bin/bash
# Fidelity apps patched with best-known variants (no GPU verification):
# every launcher runs run_checked. USE_OURS=0/1/verify on the GPU host, and
# "direct": the same patch with run_checked replaced by a direct launch of
# the variant (what such launchers did before the first-launch check).
# Usage: gpu-script.sh APPS_DIR (one patched app per subdirectory); writes
# under $OUT.
set -u
apps=$(realpath "$1")
o=$OUT/fid5; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $o/gpu.txt
nvcc --version | tail -2 > $o/nvcc.txt
for a in $(ls "$apps"); do
  ( cd "$apps/$a"
    nvcc -arch=sm_90 -O3 -o app app.cu > $o/$a-build.txt 2>&1 || { echo "$a: build failed"; tail -5 $o/$a-build.txt; exit 0; }
    USE_OURS=0 ./app > $o/$a-out-0.txt 2>&1
    USE_OURS=1 ./app > $o/$a-out-1.txt 2> $o/$a-err-1.txt
    USE_OURS=verify ./app > $o/$a-out-verify.txt 2> $o/$a-err-verify.txt
    rm -rf /tmp/direct && mkdir /tmp/direct && cp -r app.cu forgestencil /tmp/direct/
    sed -i 's/forgestencil::run_checked(/forgestencil::run_direct(/' /tmp/direct/forgestencil/*.cuh
    sed -i 's|^#endif // FORGESTENCIL_CHECKS_H|namespace forgestencil { template <typename O, typename U> static void run_direct(const char *, cudaStream_t, const void *const *, int, O, U RunOurs, const char *, const unsigned char *, unsigned long long) { RunOurs(); } }\n#endif|' /tmp/direct/forgestencil/checks.h
    (cd /tmp/direct && nvcc -arch=sm_90 -O3 -o app app.cu > $o/$a-build-direct.txt 2>&1 && USE_OURS=1 ./app > $o/$a-out-direct.txt 2>&1)
    s01=no; cmp -s $o/$a-out-0.txt $o/$a-out-1.txt && s01=yes
    s0v=no; cmp -s $o/$a-out-0.txt $o/$a-out-verify.txt && s0v=yes
    s0d=no; cmp -s $o/$a-out-0.txt $o/$a-out-direct.txt && s0d=yes
    echo "$a: out 0=1 $s01, 0=verify $s0v, 0=direct $s0d; checked: $(grep -c 'it runs in it from now on' $o/$a-err-1.txt) run, $(grep -c 'the original runs in it from now on' $o/$a-err-1.txt) fall back; verify: $(grep 'launch(es) compared' $o/$a-err-verify.txt | tail -1 | sed 's/forgestencil verify: //')"
    if [ -f check.cu ]; then
      nvcc -arch=sm_90 -O3 -o check check.cu > $o/$a-build-check.txt 2>&1 && USE_OURS=1 ./check > $o/$a-check-out.txt 2> $o/$a-check-err.txt
      cat $o/$a-check-out.txt; cut -c1-160 $o/$a-check-err.txt
    fi
    if [ $a = chunked-loops ]; then
      nvcc -arch=sm_90 -O3 -fmad=false -o app-nofma app.cu > $o/$a-build-nofma.txt 2>&1
      USE_OURS=1 ./app-nofma > $o/$a-out-1-nofma.txt 2> $o/$a-err-1-nofma.txt
      echo "$a -fmad=false: checked: $(grep -c 'it runs in it from now on' $o/$a-err-1-nofma.txt) run, $(grep -c 'the original runs in it from now on' $o/$a-err-1-nofma.txt) fall back"
    fi )
done
cat $o/gpu.txt
cd $OUT && tar czf fid5.tgz fid5 && rm -rf fid5

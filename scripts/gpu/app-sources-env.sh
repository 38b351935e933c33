# Sourced, not run: what the third-party app builds on a GPU host need from
# the environment. The app builds call ${CUDACXX:-/usr/local/cuda/bin/nvcc};
# without that nvcc, CUDACXX becomes the nvcc on PATH. The sources come from
# the carried repositories (.carry/apps, scripts/gpu/carry-apps.sh) unless
# the caller named a mirror (FS_MIRROR).
#
#   source scripts/gpu/app-sources-env.sh ROOT
if [ -z "${CUDACXX:-}" ] && [ ! -x /usr/local/cuda/bin/nvcc ] && command -v nvcc >/dev/null; then
  CUDACXX=$(command -v nvcc)
  export CUDACXX
fi
if [ -z "${FS_MIRROR:-}" ] && [ -d "$1/.carry/apps" ]; then
  export FS_MIRROR=$1/.carry/apps
fi

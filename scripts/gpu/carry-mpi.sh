#!/usr/bin/env bash
# Downloads Debian's Open MPI for a GPU host that has no MPI: the runtime,
# the compiler wrappers (mpicc, mpicxx, mpif90), the headers and the
# libraries they need that such a host may lack, and GNU Fortran (gfortran
# 12, the compiler Debian's mpif90 calls; the Fortran hosts of CloverLeaf and
# TeaLeaf need it), as .deb files into .carry/mpi (or DIR).
# Run it here (a Debian 12 amd64 machine with apt); carry .carry/ to the GPU
# host, where scripts/gpu/mpi-env.sh extracts the packages into a prefix
# (dpkg -x; nothing is installed) and sets the environment:
#
#   scripts/gpu/carry-mpi.sh [DIR]          # here
#   source scripts/gpu/mpi-env.sh           # there (apps-e2e.sh does this)
#
# One rank is all the apps here run, so no network fabric is configured.
# The list leaves out what every host with a C++ compiler has (libc and its
# headers, libstdc++, zlib, binutils); it carries what gfortran 12 links
# with (libgcc-12-dev: crtbegin/crtend, libgcc; libquadmath, libgomp), as a
# host's g++ may be another version. gcc-12 itself (the LTO plugin) is left
# out: mpi-env.sh runs gfortran with -fno-use-linker-plugin where it lacks it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dest=${1:-$root/.carry/mpi}
packages=(
  openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev
  libevent-core-2.1-7 libevent-pthreads-2.1-7 libhwloc15 libhwloc-plugins
  libpmix2 libmunge2 libfabric1 libucx0 libibverbs1 ibverbs-providers
  librdmacm1 libnl-3-200 libnl-route-3-200 libnuma1 libpciaccess0
  libpsm2-2 libpsm-infinipath1 libxnvctrl0 ocl-icd-libopencl1
  gfortran gfortran-12 libgfortran-12-dev libgfortran5
  libgcc-12-dev libquadmath0 libgomp1
)
command -v apt-get >/dev/null || { echo "carry-mpi: needs apt-get (a Debian host)" >&2; exit 1; }
arch=$(dpkg --print-architecture)
[ "$arch" = amd64 ] || { echo "carry-mpi: this host is $arch; the GPU host needs amd64 packages" >&2; exit 1; }
mkdir -p "$dest"
scratch=$(mktemp -d "$dest/.download.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# apt drops privileges to _apt for downloads, which cannot write a root-owned
# directory; as root, download as root.
sandbox=()
[ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
(cd "$scratch" && apt-get "${sandbox[@]}" download "${packages[@]}") >&2
rm -f "$dest"/*.deb
mv "$scratch"/*.deb "$dest/"
for deb in "$dest"/*.deb; do
  dpkg-deb -W --showformat='${Package} ${Version} ${Architecture}\n' "$deb"
done | sort > "$dest/packages.txt"
echo "carry-mpi: $(wc -l <"$dest/packages.txt") packages ($(du -sh "$dest" | cut -f1)) in $dest" >&2

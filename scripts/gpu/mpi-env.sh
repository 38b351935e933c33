# Sourced, not run: makes an MPI usable for building and running the apps
# that need one (mpicc/mpicxx on PATH, its libraries found at run time).
#
#   source scripts/gpu/mpi-env.sh [PREFIX]
#
# An MPI already on PATH (mpicxx, and an mpif90 that runs, for the Fortran
# apps) is used as it is. Otherwise the Debian
# packages that scripts/gpu/carry-mpi.sh put in .carry/mpi are extracted into
# PREFIX (default: build-gpu/mpi in the tree; FS_MPI_PREFIX) once, with
# dpkg -x, or ar and tar where dpkg is missing, and PATH, LIBRARY_PATH, LD_LIBRARY_PATH,
# OPAL_PREFIX and PMIX_PREFIX point there (Open MPI relocated). Open MPI
# refuses root unless told, and one process (a singleton, no mpirun) is what
# the apps run, so the variables that allow both are set too: the singleton
# starts its local daemon with the 'isolated' launcher, which needs no ssh.
# Returns non-zero, saying why, when there is no MPI to use.
fs_mpi_env() {
  local root carry prefix deb multiarch
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  carry=${FS_MPI_CARRY:-$root/.carry/mpi}
  prefix=${1:-${FS_MPI_PREFIX:-$root/build-gpu/mpi}}
  # The wrappers must run: a host's mpif90 without the Fortran compiler it
  # was configured with fails ("unable to find the specified compiler").
  if command -v mpicxx >/dev/null 2>&1 && mpif90 --version >/dev/null 2>&1 &&
    [ -z "${FS_MPI_FORCE_CARRY:-}" ]; then
    echo "mpi-env: using $(command -v mpicxx)" >&2
    return 0
  fi
  if [ ! -e "$prefix/.extracted" ]; then
    ls "$carry"/*.deb >/dev/null 2>&1 || {
      echo "mpi-env: no MPI on PATH whose mpicxx and mpif90 run, and no packages in $carry (run scripts/gpu/carry-mpi.sh where apt works)" >&2
      return 1
    }
    rm -rf "$prefix" && mkdir -p "$prefix" || return 1
    for deb in "$carry"/*.deb; do
      if command -v dpkg >/dev/null 2>&1; then
        dpkg -x "$deb" "$prefix" || return 1
      else
        # A .deb is an ar archive whose data.tar.* holds the files.
        local member
        member=$(ar t "$deb" | grep '^data\.tar') || return 1
        case $member in
        *.xz) (cd "$prefix" && ar p "$deb" "$member" | tar -xJf -) ;;
        *.zst) (cd "$prefix" && ar p "$deb" "$member" | zstd -dc | tar -xf -) ;;
        *.gz) (cd "$prefix" && ar p "$deb" "$member" | tar -xzf -) ;;
        *) (cd "$prefix" && ar p "$deb" "$member" | tar -xf -) ;;
        esac || return 1
      fi
    done
    # What the packages' maintainer scripts would have made: the generic
    # names of the wrappers (Debian's alternatives) and one library link.
    mkdir -p "$prefix/bin"
    for tool in mpicc mpicxx mpic++ mpiCC mpif90 mpifort mpif77 mpirun mpiexec; do
      [ -e "$prefix/usr/bin/$tool.openmpi" ] && ln -sfn "../usr/bin/$tool.openmpi" "$prefix/bin/$tool"
    done
    [ -e "$prefix/usr/lib/libpsm1/libpsm_infinipath.so.1.16" ] &&
      ln -sfn libpsm_infinipath.so.1.16 "$prefix/usr/lib/libpsm1/libpsm_infinipath.so.1"
    touch "$prefix/.extracted"
    echo "mpi-env: extracted $(ls "$carry"/*.deb | wc -l) packages into $prefix" >&2
  fi
  # gfortran (Debian's mpif90 calls it by that name) runs from the prefix;
  # a relocated GCC finds the rest of its files (f951, crtbegin, libgcc,
  # libgfortran) under its own prefix. What gcc-12 itself would bring is
  # made here: -fopenmp links through libgomp.spec (one line, for the
  # libgomp that libgcc-12-dev links); the CUDA and C++ objects of the
  # Fortran link come from the host's g++ and need its libstdc++; without
  # gcc-12's LTO plugin gfortran is told not to use one (no LTO here).
  local gcclib="$prefix/usr/lib/gcc/x86_64-linux-gnu/12" hostcxx
  if [ -e "$prefix/usr/bin/gfortran-12" ]; then
    [ -e "$gcclib/libgomp.spec" ] ||
      printf '*link_gomp: -lgomp %%{static: -ldl }\n' > "$gcclib/libgomp.spec"
    hostcxx=$(g++ -print-file-name=libstdc++.so 2>/dev/null || true)
    if [ ! -e "$gcclib/libstdc++.so" ] && [ "${hostcxx#/}" != "$hostcxx" ] &&
      [ -e "$hostcxx" ]; then
      ln -sfn "$(readlink -f "$hostcxx")" "$gcclib/libstdc++.so"
    fi
    rm -f "$prefix/bin/gfortran"
    if [ -e "$gcclib/liblto_plugin.so" ]; then
      ln -sfn ../usr/bin/gfortran-12 "$prefix/bin/gfortran"
    else
      printf '#!/bin/sh\nexec "%s" -fno-use-linker-plugin "$@"\n' \
        "$prefix/usr/bin/gfortran-12" > "$prefix/bin/gfortran"
      chmod +x "$prefix/bin/gfortran"
    fi
  fi
  multiarch=x86_64-linux-gnu
  # The wrappers link with -lmpi, -lhwloc, -levent_core, ... and find them
  # where Debian's alternatives and -dev packages put libX.so, which dpkg -x
  # does not make (mpif90 passes no -L for libmpi at all): those links, to
  # the carried libraries, for the compiler drivers (LIBRARY_PATH), so that
  # a program links with the MPI it runs with, host MPI or none.
  local dev="$prefix/devlinks" lib f
  mkdir -p "$dev"
  for lib in mpi open-rte open-pal hwloc event_core event_pthreads; do
    [ -e "$dev/lib$lib.so" ] && continue
    for f in "$prefix/usr/lib/$multiarch/openmpi/lib/lib$lib.so" \
      "$prefix/usr/lib/$multiarch/lib$lib.so".* \
      "$prefix/usr/lib/$multiarch/lib$lib"-*.so.*; do
      if [ -e "$f" ]; then
        ln -sfn "$f" "$dev/lib$lib.so"
        break
      fi
    done
  done
  export LIBRARY_PATH="$dev${LIBRARY_PATH:+:$LIBRARY_PATH}"
  export PATH="$prefix/bin:$prefix/usr/bin:$PATH"
  export LD_LIBRARY_PATH="$prefix/usr/lib/$multiarch/openmpi/lib:$prefix/usr/lib/$multiarch:$prefix/lib/$multiarch:$prefix/usr/lib/libpsm1${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export OPAL_PREFIX="$prefix/usr"
  export PMIX_PREFIX="$prefix/usr/lib/$multiarch/pmix2"
  export PMIX_MCA_pcompress_base_silence_warning=1
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_plm=isolated
  echo "mpi-env: using $prefix/bin/mpicxx (Open MPI from .carry/mpi)" >&2
}
fs_mpi_env "$@"

#!/usr/bin/env python3
"""Runs an fs-bench directory's generated driver on the CPU, without a GPU.

    fs-bench --stencil box3d_r1 --strategy all --emit-dir DIR
    cpu-emulate.py DIR

compiles the very files fs-bench emitted (driver.cu, original.cu,
reference_f64.cu, cand_N.cu) as host C++17 against utils/cuda-host-shim.h and
runs the driver, which verifies every candidate against the original kernel
over whole arrays at odd sizes, as it does on a GPU. What the emulation
checks is the domain and boundary logic: which points a candidate writes,
which it leaves alone, and the values it computes there. It says nothing
about speed; the driver's timings are host times of an emulation and are not
reported.

    cpu-emulate.py --program prog.cu [-I DIR]...

builds one CUDA program the same way (its launches emulated, also those of
the headers it includes with #include "..." from its directory or a -I
directory, whose text is put in its place) and runs it, its output and exit
status its own: the tests run patched programs and the USE_OURS=verify
comparison of forgestencil/checks.h this way without a GPU.

How the CUDA source becomes host code:
  * every `kernel<<<grid, block[, shmem[, stream]]>>>(args)` becomes a call of
    fs_emu::launch, which checks the configuration as a GPU does (including
    the kernel's __launch_bounds__), binds the arguments by value and runs
    every block, and every thread of a block, one after another;
  * a kernel that calls __syncthreads (directly or through a __device__
    function) runs each thread of a block as a fiber that yields
    at every barrier, so no thread passes a barrier before the whole block
    has reached it;
  * warp-synchronous code (shuffles, votes, __syncwarp) is refused with a
    message naming the candidate: threads that run one at a time cannot
    exchange registers.

The copy-bandwidth baseline of the driver, which is timed and never
verified, is shrunk from 256 MiB to 1 MiB.

Everything is compiled with -O1 -ffp-contract=off: the original and the
candidates alike go uncontracted, so a candidate that keeps the original's
arithmetic order stays bit-identical to it. Vector loads and stores are
checked for alignment, since a misaligned float4 faults on a GPU.

Every access is bounds-checked: each device array sits between guard
regions that fault, and everything is built with AddressSanitizer
(-fsanitize=address; --no-asan leaves it out), which also catches one
element past an array's end, overruns of shared-memory tiles and of
__constant__ arrays. A candidate that accesses memory out of bounds fails
with where it was (`out of bounds: a read of 4 bytes 4 bytes past the end of
a device allocation of ...`, with the kernel, block and thread); the driver
then runs again without it, so every other candidate still gets its verdict.

Prints one line per candidate, `PASS <id>` or `FAIL <id>: <the driver's
reason>`, then `emulated N candidates: P passed, F failed`. Exit status 0
when every candidate passed, 1 when one failed, 2 when the emulation could
not be built or run.

With --bundle, the directory is a tuning bundle that fs-rewrite --bundle
wrote for fs-tune: each candidate's driver includes the app's own
translation unit, so the emulation verifies the candidate against the app's
real kernel (what the analysis read), not against the original the IR
describes. The app's unit is inlined into the driver (its launches become
host calls like the driver's; headers it includes from its own directory
are found there but are not rewritten), and the driver runs the given small
verification cases (--case, default three 2-D/3-D sizes, odd and aligned,
one with a partial grid) instead of the bundle's GPU-sized ones. Prints
`PASS <kernel> <id>` or `FAIL <kernel> <id>: <reason>` per candidate, and
`SKIP <kernel> <id>: no driver: <why>` for a candidate the bundle has no
driver for (the summary counts those apart; exit status 2 when no
candidate had one, so that nothing emulated never reads as a pass).

With FS_EMU_CACHE set to a directory, the precompiled shim and its runtime
unit, the same for every emulation with the same compiler and flags, are
compiled once into it and linked from there (the test suite sets it).

Python 3 standard library only, and utils/emu_source.py beside it (how the
units' CUDA source is read and rewritten as host C++).
"""
import argparse
import concurrent.futures
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Beside this script (the source tree's utils/, or the install's).
from emu_source import EmulationError, Unit, barrier_functions

SHIM_NAME = "cuda-host-shim.h"
SHIM = os.path.join(os.path.dirname(os.path.abspath(__file__)), SHIM_NAME)
# Small timed sizes: the driver verifies them too, but timing on the CPU
# means nothing, so the cheaper the better. Odd, like the driver's own.
DEFAULT_TIME_EXT = {1: "1001", 2: "35,19", 3: "35,19,11"}
# Why each flag: -O1 because the emulated sizes are small and compiling
# dominates (a quarter less time than -O2 over a test's candidates; without
# -ffast-math the level changes no result); -ffp-contract=off keeps a*b+c
# two roundings in the original and the candidates alike; -fno-strict-aliasing because CUDA code reads
# float arrays through float4 pointers; the copy kernel, only timed, copies
# 1 MiB instead of the driver's 256 (half of every emulated run otherwise).
CXXFLAGS = ["-std=c++17", "-O1", "-ffp-contract=off", "-fno-strict-aliasing",
            "-w", "-DFS_COPY_MIN_BYTES=(1LL<<20)"]
# Bounds checks beyond the guard pages: one element past an array, shared
# tiles, __constant__ arrays.
ASAN_FLAGS = ["-fsanitize=address", "-fno-omit-frame-pointer"]
# What the emulated driver runs under: a bad access is reported once and ends
# the run (the shim names the kernel and thread); no leak report; the shim's
# own handlers catch the guard pages' faults.
ASAN_OPTIONS = ("halt_on_error=1:detect_leaks=0:handle_segv=0:handle_sigbus=0:"
                "handle_abort=0:handle_sigfpe=0:handle_sigill=0:"
                "allow_user_segv_handler=1:detect_stack_use_after_return=0:"
                "detect_odr_violation=0:alloc_dealloc_mismatch=0:"
                "new_delete_type_mismatch=0")

# --- Building and running ---------------------------------------------------

def read_bench(bench_dir):
    """The manifest and the units of an fs-bench --emit-dir directory."""
    path = os.path.join(bench_dir, "manifest.json")
    try:
        with open(path) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        raise EmulationError("cannot read %s: %s" % (path, e))
    units = []
    for name in manifest.get("units", []):
        try:
            with open(os.path.join(bench_dir, name)) as f:
                units.append(Unit(name, f.read()))
        except OSError as e:
            raise EmulationError("cannot read %s: %s" % (name, e))
    if not any(u.name == "driver.cu" for u in units):
        raise EmulationError("%s lists no driver.cu" % path)
    return manifest, units


def candidate_ids(manifest, units):
    """Candidate id by unit name, from the launcher each unit defines."""
    by_launcher = {c["launcher"]: c["id"]
                   for c in manifest.get("candidates", [])}
    return {u.name: by_launcher[u.launcher] for u in units
            if u.launcher in by_launcher}


def check_emulatable(units, ids):
    for u in units:
        op = u.warp_synchronous()
        if op:
            who = ("candidate %s (%s)" % (ids[u.name], u.name)
                   if u.name in ids else u.name)
            raise EmulationError(
                "cannot emulate %s: it uses %s, and warp-synchronous code "
                "needs a warp's threads in lockstep, which threads run one "
                "after another do not give" % (who, op))


def write_include(work):
    """The shim and the cuda_runtime.h (and friends) that stand for the
    toolkit's, in work/include."""
    include = os.path.join(work, "include")
    os.makedirs(include, exist_ok=True)
    shutil.copyfile(SHIM, os.path.join(include, SHIM_NAME))
    for header in ("cuda_runtime.h", "cuda_runtime_api.h", "cuda_pipeline.h",
                   "cooperative_groups.h"):
        with open(os.path.join(include, header), "w") as f:
            f.write('#include "%s"\n' % SHIM_NAME)


def write_sources(units, work):
    """Writes the host versions of the units and the cuda_runtime.h that
    stands for the toolkit's; returns {unit name: source path}."""
    functions = [f for u in units for f in u.kernels + u.device_functions]
    barriers = barrier_functions(functions)
    max_threads = {k.name: k.max_threads for u in units for k in u.kernels}
    write_include(work)
    sources = {}
    for u in units:
        path = os.path.join(work, u.name[:-3] + ".cpp")
        with open(path, "w") as f:
            f.write('#line 1 "%s"\n' % u.name)
            f.write(u.rewrite(barriers, max_threads))
        sources[u.name] = path
    return sources


@functools.lru_cache(maxsize=None)
def compiler_identity(cxx):
    """What `cxx --version` says and where cxx is: asked once a run."""
    try:
        version = subprocess.run([cxx, "--version"], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT).stdout
    except OSError:
        version = b""
    return version + (shutil.which(cxx) or cxx).encode()


@functools.lru_cache(maxsize=None)
def shim_text():
    with open(SHIM, "rb") as f:
        return f.read()


def cache_key(cxx, flags, what):
    """A name for what the shim compiles to with cxx and flags: the shim's
    text, the compiler's identity and the flags decide it."""
    h = hashlib.sha256(shim_text())
    h.update(compiler_identity(cxx))
    h.update("\0".join([what] + list(flags)).encode())
    return h.hexdigest()[:32]


def compile_log(cmd):
    """None when cmd compiles, else the compiler's output."""
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return None if r.returncode == 0 else r.stdout


def from_cache(cxx, flags, what, dest, produce):
    """Makes dest (a file the shim compiles to with flags) with produce(path),
    which returns compile_log's answer; or, with FS_EMU_CACHE set to a
    directory, links the copy made there before: every emulation compiles
    the same shim with the same flags. Written to a temporary name and
    renamed, so that emulations running side by side never see half a file;
    a failed compile keeps nothing. Returns produce's log where it failed."""
    cache = os.environ.get("FS_EMU_CACHE")
    if not cache:
        return produce(dest)
    os.makedirs(cache, exist_ok=True)
    kept = os.path.join(cache, "%s.%s" % (cache_key(cxx, flags, what),
                                          os.path.basename(dest)))
    if not os.path.exists(kept):
        tmp = "%s.%d.tmp" % (kept, os.getpid())
        log = produce(tmp)
        if log is not None:
            if os.path.exists(tmp):
                os.remove(tmp)
            return log
        os.replace(tmp, kept)
    if os.path.lexists(dest):
        os.remove(dest)
    os.symlink(kept, dest)
    return None


def precompile_shim(cxx, work):
    """Precompiles the shim: every unit starts with it, and parsing its
    standard headers again for each would be a third of the build."""
    header = os.path.join(work, "include", SHIM_NAME)
    log = from_cache(cxx, CXXFLAGS, "pch", header + ".gch", lambda out: compile_log(
        [cxx] + CXXFLAGS + ["-x", "c++-header", header, "-o", out]))
    if log is not None:
        raise EmulationError("the shim does not compile:\n" + log)


RUNTIME_UNIT = "fs-emu-runtime.cpp"


def write_runtime(work):
    """The unit that holds the shim's runtime: grids, fibers, capture."""
    path = os.path.join(work, RUNTIME_UNIT)
    with open(path, "w") as f:
        f.write('#define FS_EMU_RUNTIME\n#include "%s"\n' % SHIM_NAME)
    return path


def compile_unit(cxx, source, work, extra=()):
    obj = source[:-4] + ".o"
    # The runtime unit includes the shim itself, after its macro.
    pch = [] if source.endswith(RUNTIME_UNIT) else ["-include", SHIM_NAME]
    flags = CXXFLAGS
    if source.endswith(RUNTIME_UNIT):
        # The fibers switch stacks under AddressSanitizer's feet: the
        # runtime itself is not instrumented (the kernels it runs are).
        flags = [f for f in CXXFLAGS if f not in ASAN_FLAGS]
    cmd = [cxx] + flags + ["-I", os.path.join(work, "include")] + list(
        extra) + pch + ["-c", source]
    if source.endswith(RUNTIME_UNIT):
        # The same unit for every emulation: compiled once where cached.
        log = from_cache(cxx, flags + list(extra), "runtime", obj,
                         lambda out: compile_log(cmd + ["-o", out]))
        return obj, 0 if log is None else 1, log or ""
    r = subprocess.run(cmd + ["-o", obj], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    return obj, r.returncode, r.stdout


def compile_all(cxx, sources, work, jobs, extra=(), precompile=True):
    """Object paths of sources, in order."""
    if precompile:
        precompile_shim(cxx, work)
    objects = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for obj, rc, log in pool.map(
                lambda s: compile_unit(cxx, s, work, extra), sources):
            if rc != 0:
                first = next((l for l in log.splitlines() if "error" in l),
                             log.strip().splitlines()[-1] if log.strip()
                             else "")
                raise EmulationError("%s does not compile as host C++: %s"
                                     % (os.path.basename(obj)[:-2] + ".cu",
                                        first))
            objects.append(obj)
    return objects


def link(cxx, objects, binary):
    r = subprocess.run([cxx] + CXXFLAGS + objects + ["-o", binary],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if r.returncode != 0:
        raise EmulationError("linking the emulation failed:\n" + r.stdout)
    return binary


def parse_result(stdout):
    """The driver's FSBENCH_RESULT object."""
    line = next((l for l in stdout.splitlines()
                 if l.startswith("FSBENCH_RESULT ")), None)
    if line is None:
        return None
    text = line[len("FSBENCH_RESULT "):]
    try:
        return json.loads(text)
    except ValueError as e:
        raise EmulationError("the driver's FSBENCH_RESULT is not JSON: %s" % e)


def verdicts(result, order):
    """{id: (passed, detail)} for the candidates in order."""
    cases = {}
    for v in result.get("verification", []):
        cases.setdefault(v["variant"], []).append(v)
    out = {}
    for cid in order:
        runs = cases.get(cid, [])
        if not runs:
            out[cid] = (False, "the driver verified it in no case")
            continue
        failed = [r for r in runs if r["verdict"] == "FAIL"]
        if failed:
            r = failed[0]
            out[cid] = (False, "%s (case %s %s, grid %s, block %s)" % (
                r["reason"], r["case"], "x".join(map(str, r["ext"])),
                "x".join(map(str, r["grid"])), "x".join(map(str, r["block"]))))
            continue
        tol = [r for r in runs if r["verdict"] == "tolerance"]
        out[cid] = (True, "within tolerance %g (max error %g)" % (
            tol[0]["tolerance"], tol[0]["err_cand"]) if tol else "")
    return out


def fault_report(stderr, ids):
    """(id or None, message) for the FS_EMU_FAULT the shim printed."""
    m = re.search(r"^FS_EMU_FAULT unit=(\S+) kernel=(.*?) (block=.*)$",
                  stderr, re.M)
    if not m:
        return None, None
    unit, kernel, where = m.groups()
    return ids.get(unit), "emulated kernel %s faulted at %s" % (kernel, where)


def main(argv):
    parser = argparse.ArgumentParser(
        description="Verify an fs-bench directory's candidates on the CPU.")
    parser.add_argument("bench_dir", help="what fs-bench --emit-dir wrote "
                        "(with --bundle: what fs-rewrite --bundle wrote)")
    parser.add_argument("--program", action="store_true",
                        help="bench_dir is one CUDA program (a .cu file) to "
                        "build and run as it is: its own launches are "
                        "emulated (headers it includes may hold host code "
                        "only); its output and exit status are the "
                        "program's")
    parser.add_argument("-I", dest="includes", action="append", default=[],
                        help="with --program: an include directory")
    parser.add_argument("--bundle", action="store_true",
                        help="the directory is a tuning bundle: verify its "
                        "candidates against the app's own kernels")
    parser.add_argument("--kernel", action="append", default=[],
                        help="with --bundle: only this kernel (repeatable)")
    parser.add_argument("--case", action="append", default=[],
                        help="with --bundle: a verification case "
                        "NAME=E0,E1,E2 (repeatable; a NAME with "
                        "'partial-grid' launches a grid that does not "
                        "cover the array)")
    parser.add_argument("--time-ext",
                        help="the driver's timed size (default: small)")
    parser.add_argument("--reps", type=int, default=3,
                        help="timed repetitions (the driver's minimum is 3)")
    parser.add_argument("--cxx", default=os.environ.get("CXX", "g++"),
                        help="host C++ compiler (default: $CXX or g++)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="parallel compiler processes")
    parser.add_argument("--work-dir",
                        help="where to build (default: a temporary directory)")
    parser.add_argument("--timeout", type=int, default=1800,
                        help="seconds the emulated driver may run")
    parser.add_argument("--no-asan", action="store_true",
                        help="build without AddressSanitizer (the guard "
                        "pages still catch accesses well outside an array)")
    args = parser.parse_args(argv)
    if not args.no_asan:
        CXXFLAGS.extend(ASAN_FLAGS)

    work = os.path.abspath(args.work_dir or
                           tempfile.mkdtemp(prefix="fs-cpu-emulate-"))
    os.makedirs(work, exist_ok=True)
    try:
        if args.program:
            return emulate_program(args, work)
        return emulate_bundle(args, work) if args.bundle else emulate(args, work)
    except EmulationError as e:
        print("cpu-emulate: error: %s" % e, file=sys.stderr)
        return 2
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)


QUOTED_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"[^\n]*$', re.M)


def inline_includes(text, path, dirs, depth):
    """text with every #include "..." that resolves next to path or in dirs
    replaced by the file's text (recursively, with #line markers), so that
    the kernels and launches of a program's own headers are emulated too.
    Include guards keep working: the text is the same."""
    if depth > 16:
        raise EmulationError("%s: #include nested more than 16 deep" % path)

    def one(m):
        name = m.group(1)
        for d in [os.path.dirname(os.path.abspath(path))] + dirs:
            candidate = os.path.join(d, name)
            if os.path.isfile(candidate):
                with open(candidate) as f:
                    inner = inline_includes(f.read(), candidate, dirs,
                                            depth + 1)
                line = text.count("\n", 0, m.start()) + 2
                return '#line 1 "%s"\n%s\n#line %d "%s"' % (
                    name, inner, line, os.path.basename(path))
        return m.group(0)  # a system header, or one the compiler finds

    return QUOTED_INCLUDE.sub(one, text)


def emulate_program(args, work):
    """Builds one CUDA program as host C++ and runs it in the working
    directory it was started from, its stdout and stderr passed through."""
    path = args.bench_dir
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise EmulationError("cannot read %s: %s" % (path, e))
    dirs = [os.path.dirname(os.path.abspath(path))] + [
        os.path.abspath(d) for d in args.includes]
    text = inline_includes(text, path, dirs, 0)
    unit = Unit(os.path.basename(path), text)
    op = unit.warp_synchronous()
    if op:
        raise EmulationError("%s uses %s, which needs a warp's threads in "
                             "lockstep" % (path, op))
    sources = write_sources([unit], work)
    extra = ["-I", os.path.dirname(os.path.abspath(path))]
    for d in args.includes:
        extra += ["-I", os.path.abspath(d)]
    objects = compile_all(args.cxx, [sources[unit.name],
                                     write_runtime(work)], work, args.jobs,
                          extra)
    binary = link(args.cxx, objects, os.path.join(work, "program"))
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ASAN_OPTIONS
    try:
        r = subprocess.run([binary], env=env, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        raise EmulationError("the emulated program ran longer than %d s"
                             % args.timeout)
    return r.returncode


def run_driver(binary, args, time_ext, work, skip=()):
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ASAN_OPTIONS
    cmd = [binary, "--time-ext", time_ext, "--reps", str(args.reps)]
    if skip:
        cmd += ["--skip", ",".join(str(v) for v in sorted(skip))]
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True,
                              timeout=args.timeout, cwd=work, env=env)
    except subprocess.TimeoutExpired:
        raise EmulationError("the emulated driver ran longer than %d s"
                             % args.timeout)


def emulate(args, work):
    manifest, units = read_bench(args.bench_dir)
    ids = candidate_ids(manifest, units)
    check_emulatable(units, ids)
    if not shutil.which(args.cxx):
        raise EmulationError("no host C++ compiler '%s'" % args.cxx)
    sources = write_sources(units, work)
    sources[RUNTIME_UNIT] = write_runtime(work)
    objects = compile_all(args.cxx, list(sources.values()), work, args.jobs)
    binary = link(args.cxx, objects, os.path.join(work, "bench-emulated"))

    # Candidates in the driver's order, the order of the manifest.
    unit_of = {cid: unit for unit, cid in ids.items()}
    ordered = [c["id"] for c in manifest.get("candidates", [])
               if c["id"] in unit_of]
    dims = len(manifest.get("shape", [])) or 3
    # fs-bench says which small size the original handles in bounds.
    time_ext = (args.time_ext or manifest.get("emulation_time_ext") or
                DEFAULT_TIME_EXT.get(dims, "35,19,11"))
    # A candidate that faults ends the run (a GPU would have lost its
    # context too); the driver runs again without it until none faults.
    faulted = {}
    while True:
        skip = {ordered.index(cid) + 1 for cid in faulted}
        run = run_driver(binary, args, time_ext, work, skip)
        if run.returncode == 0:
            break
        cid, msg = fault_report(run.stderr, ids)
        if msg is None:
            raise EmulationError("the emulated driver failed (exit %d):\n%s"
                                 % (run.returncode, run.stderr.strip()[-4000:]))
        if cid is None:
            raise EmulationError("%s, outside any candidate" % msg)
        if cid in faulted or cid not in ordered:
            raise EmulationError("%s, again after it was left out" % msg)
        faulted[cid] = msg
        if len(faulted) == len(ordered):
            run = None
            break
    result = parse_result(run.stdout) if run else {"verification": []}
    if result is None:
        raise EmulationError("the emulated driver printed no FSBENCH_RESULT:"
                             "\n%s" % run.stderr.strip())
    results = verdicts(result, [c for c in ordered if c not in faulted])
    results.update({cid: (False, msg) for cid, msg in faulted.items()})

    passed = failed = 0
    for cid in ordered:
        ok, detail = results[cid]
        if ok:
            passed += 1
            print("PASS %s%s" % (cid, " (%s)" % detail if detail else ""))
        else:
            failed += 1
            print("FAIL %s: %s" % (cid, detail))
    print("emulated %d candidates: %d passed, %d failed"
          % (len(ordered), passed, failed))
    return 1 if failed else 0


# --- Tuning bundles -------------------------------------------------------

# Small cases: odd extents (no block or vector width divides them), the
# same rounded up to a multiple of 4 (the vector kernels run), and a grid
# that leaves part of the array alone.
BUNDLE_CASES = {
    1: ["small=1001", "small-partial-grid=999", "small-aligned=1004"],
    2: ["small=37,23", "small-partial-grid=45,19", "small-aligned=40,23"],
    3: ["small=23,13,11", "small-partial-grid=21,15,9",
        "small-aligned=24,13,11"],
}

APP_INCLUDE = re.compile(r'^#include "(\.\./\.\./[^"]+)"[ \t]*$', re.M)


def bundle_unit(bundle_dir, driver):
    """The driver with the app's unit it includes inlined, and the app
    unit's directory (for the headers it includes)."""
    path = os.path.join(bundle_dir, driver)
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise EmulationError("cannot read %s: %s" % (driver, e))
    m = APP_INCLUDE.search(text)
    if not m:
        raise EmulationError("%s includes no app unit" % driver)
    app = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
    try:
        with open(app) as f:
            app_text = f.read()
    except OSError as e:
        raise EmulationError("cannot read the app's unit %s: %s" % (app, e))
    after = text.count("\n", 0, m.end()) + 2
    unit = (text[:m.start()] + '#line 1 "%s"\n' % app + app_text +
            '\n#line %d "%s"\n' % (after, driver) + text[m.end():])
    return unit, os.path.dirname(app)


def emulate_bundle(args, work):
    path = os.path.join(args.bench_dir, "manifest.json")
    try:
        with open(path) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        raise EmulationError("cannot read %s: %s" % (path, e))
    if not shutil.which(args.cxx):
        raise EmulationError("no host C++ compiler '%s'" % args.cxx)
    kernels = [k for k in manifest.get("kernels", [])
               if not args.kernel or k.get("name") in args.kernel]
    missing = set(args.kernel) - {k.get("name") for k in kernels}
    if missing:
        raise EmulationError("the bundle has no kernel %s"
                             % ", ".join(sorted(missing)))
    write_include(work)
    precompile_shim(args.cxx, work)
    runtime = compile_all(args.cxx, [write_runtime(work)], work, 1,
                          precompile=False)[0]
    passed = failed = skipped = 0
    for k in kernels:
        name = k.get("name", "?")
        for n, c in enumerate(k.get("candidates", [])):
            cid = c.get("id", "?")
            if not c.get("driver"):
                # fs-rewrite wrote no driver for it and says why: nothing
                # runs it, here or in fs-tune.
                skipped += 1
                print("SKIP %s %s: no driver: %s" % (
                    name, cid, c.get("skipped") or "the bundle has none"))
                continue
            try:
                ok, detail = emulate_bundle_candidate(args, work, runtime, k,
                                                      c, n)
            except EmulationError as e:
                ok, detail = False, str(e)
            if ok:
                passed += 1
                print("PASS %s %s%s" % (name, cid,
                                        " (%s)" % detail if detail else ""))
            else:
                failed += 1
                print("FAIL %s %s: %s" % (name, cid, detail))
    print("emulated %d candidates: %d passed, %d failed%s"
          % (passed + failed, passed, failed,
             ", %d without a driver" % skipped if skipped else ""))
    if skipped and not passed + failed:
        raise EmulationError("no candidate of the bundle has a driver: "
                             "nothing was emulated")
    return 1 if failed else 0


def emulate_bundle_candidate(args, work, runtime, kernel, cand, n):
    text, app_dir = bundle_unit(args.bench_dir, cand["driver"])
    unit = Unit(cand["driver"], text)
    op = unit.warp_synchronous()
    if op:
        raise EmulationError("cannot emulate it: it uses %s" % op)
    functions = unit.kernels + unit.device_functions
    barriers = barrier_functions(functions)
    max_threads = {f.name: f.max_threads for f in unit.kernels}
    stem = "%s-%d" % (re.sub(r"[^\w.-]", "_", kernel.get("name", "k")), n)
    source = os.path.join(work, stem + ".cpp")
    with open(source, "w") as f:
        f.write(unit.rewrite(barriers, max_threads))
    obj = compile_all(args.cxx, [source], work, 1, ["-I", app_dir],
                      precompile=False)[0]
    binary = link(args.cxx, [obj, runtime], os.path.join(work, stem))
    dims = int(kernel.get("ir", {}).get("dims", 0)) or 3
    cases = args.case or BUNDLE_CASES.get(dims, BUNDLE_CASES[3])
    time_ext = args.time_ext or DEFAULT_TIME_EXT.get(dims, "35,19,11")
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ASAN_OPTIONS
    cmd = [binary, "--time-ext", time_ext, "--reps", str(args.reps)]
    for case in cases:
        cmd += ["--case", case]
    try:
        run = subprocess.run(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True,
                             timeout=args.timeout, cwd=work, env=env)
    except subprocess.TimeoutExpired:
        raise EmulationError("the emulated driver ran longer than %d s"
                             % args.timeout)
    if run.returncode != 0:
        _, msg = fault_report(run.stderr, {})
        raise EmulationError(msg or "the emulated driver failed (exit %d): %s"
                             % (run.returncode, run.stderr.strip()[-2000:]))
    result = parse_result(run.stdout)
    if result is None:
        raise EmulationError("the emulated driver printed no FSBENCH_RESULT:"
                             " %s" % run.stderr.strip()[-2000:])
    return verdicts(result, [cand["id"]])[cand["id"]]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

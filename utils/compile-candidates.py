#!/usr/bin/env python3
"""Compiles every candidate the forge generates for the stencil corpus.

The corpus is every kernel that fs-rewrite analyses as a stencil in
  * the inputs of the analysis tests (test/Analysis/*.test: split-file
    sections compiled through test/Analysis/Inputs/cc.json), and
  * the in-tree proxy apps (apps/*/app.json with an in-tree source; their
    compilation database comes from configuring the CMake project).

For each corpus source, `fs-rewrite --bundle` with an unbounded budget writes
a tuning bundle that holds, per stencil kernel, the knowledge pick and every
point of every applicable strategy's search space, each in a driver of its
own. The candidate is the text between the driver's "// The candidate." and
"// The float64 reference" comments: generated against the app's own
__constant__ symbols, exactly what fs-tune compiles.

One translation unit holds all candidates of the kernels of one of the
bundle's translation units (with the same flags): the app's unit (its main
renamed, as in a driver), then every candidate in a namespace of its own.
nvcc compiles it once for every architecture. When that fails, each kernel's
candidates are compiled in a unit of their own, and when that fails, each
candidate alone, its device code for each architecture alone, so that the
report names the kernel, the candidate and the architecture (or "host
code").

--per-strategy N compiles N points of each strategy's search space per
kernel (the first, the last and the rest spread between them) instead of
all of them, and the knowledge pick.

Not compiled, but listed: kernels that no strategy applies to, and
candidates for which the bundle has no driver (fs-bench's driver cannot give
some parameter a value); neither has candidate code to compile.

Python 3 standard library only. Exit status 0 when every candidate compiled,
1 when one did not, 2 when the corpus could not be prepared.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import time

CANDIDATE_START = "\n// The candidate.\n"
CANDIDATE_END = "\n// The float64 reference"
BUNDLE_TOKEN = "${BUNDLE}"
# The front ends (cudafe++ and cicc's) check every candidate whatever the
# level, and ptxas still assembles and allocates registers for every arch;
# -Xcicc -O0 skips only NVVM's optimiser, which rewrites code that already
# compiled, and that saves a third of the time (measured: 178 s instead of
# 272 s of CPU for 541 candidates of 34 kernels).
DEFAULT_NVCC_FLAGS = "-O0 -Xcicc -O0 -Xptxas -O1"
# fs-rewrite stops at this many candidates per kernel; no search space comes
# near it, so the bundle holds every candidate the forge generates.
UNBOUNDED_BUDGET = 1000000

# Kernels whose candidates are known not to compile, with the reason: they
# are compiled and reported like the others, but do not fail the run; one
# that compiles fails it, so that its entry goes as soon as the fix lands.
# (kind, corpus source, kernel): reason.
KNOWN_FAILURES = {
}


class CorpusError(Exception):
    """The corpus could not be prepared (not a compile failure)."""


def run(argv, cwd=None, timeout=None):
    """Runs argv; returns (exit status, stdout and stderr together)."""
    try:
        p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "timed out after %d s" % timeout
    except OSError as e:
        raise CorpusError("cannot run %s: %s" % (argv[0], e))
    return p.returncode, p.stdout.decode("utf-8", "replace")


# --- The corpus ---------------------------------------------------------------

def analysis_sources(test_dir):
    """The analysis tests whose input is compiled through Inputs/cc.json."""
    out = []
    for name in sorted(os.listdir(test_dir)):
        path = os.path.join(test_dir, name)
        if not name.endswith(".test") or not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            if "Inputs/cc.json" in f.read():
                out.append(("test", name[:-len(".test")], path))
    return out


def app_sources(apps_dir):
    """The in-tree proxy apps: (kind, name, source directory)."""
    out = []
    root = os.path.dirname(os.path.abspath(apps_dir))
    for name in sorted(os.listdir(apps_dir)):
        manifest = os.path.join(apps_dir, name, "app.json")
        if not os.path.isfile(manifest):
            continue
        with open(manifest, encoding="utf-8") as f:
            source = json.load(f).get("source", {})
        if source.get("kind") == "in-tree":
            out.append(("app", name, os.path.join(root, source["path"])))
    return out


def shard_of(sources, spec):
    """Sources I, I+N, I+2N, ... of the sorted list for spec "I/N" (1-based)."""
    m = re.fullmatch(r"(\d+)/(\d+)", spec)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise CorpusError("--shard wants I/N with 1 <= I <= N, not " + spec)
    index, count = int(m.group(1)) - 1, int(m.group(2))
    return sources[index::count]


def database_for_test(test, work, args):
    """Splits the test's inputs into work and writes its database there."""
    rc, log = run([args.split_file, test, work])
    if rc != 0:
        raise CorpusError("split-file %s: %s" % (test, log))
    template = os.path.join(os.path.dirname(test), "Inputs", "cc.json")
    with open(template, encoding="utf-8") as f:
        text = f.read().replace("@DIR@", work)
    db = os.path.join(work, "compile_commands.json")
    with open(db, "w", encoding="utf-8") as f:
        f.write(text)
    return db


def database_for_app(source_dir, work, args):
    """Configures the app's CMake project (no build) for its database."""
    build = os.path.join(work, "build")
    rc, log = run([args.cmake, "-S", source_dir, "-B", build, "-G", "Ninja",
                   "-DCMAKE_CUDA_COMPILER=" + args.nvcc])
    if rc != 0:
        raise CorpusError("configuring %s: %s" % (source_dir, log))
    return os.path.join(build, "compile_commands.json")


def write_bundle(kind, name, path, work, args):
    """The tuning bundle of one corpus source; returns (dir, manifest)."""
    inputs = os.path.join(work, "src")
    os.makedirs(inputs)
    if kind == "test":
        db = database_for_test(path, inputs, args)
    else:
        db = database_for_app(path, inputs, args)
    bundle = os.path.join(work, "bundle")
    rc, log = run([args.fs_rewrite, "--app", name, "--bundle", bundle,
                   "--bundle-budget", str(UNBOUNDED_BUDGET), db])
    if rc != 0:
        raise CorpusError("fs-rewrite --bundle for %s %s: %s" % (kind, name, log))
    with open(os.path.join(bundle, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    if manifest.get("skipped"):
        raise CorpusError("%s %s: the bundle left stencil kernels out: %s"
                          % (kind, name, "; ".join(manifest["skipped"])))
    return bundle, manifest


# --- Translation units --------------------------------------------------------

class Candidate:
    """One candidate of one kernel, as its bundle driver holds it."""

    def __init__(self, cid, driver, text, first_line):
        self.id = cid
        self.driver = driver          # the driver file, for the report
        self.text = text              # the candidate's source
        self.first_line = first_line  # its first line in the driver


def spread_sample(items, n):
    """At most n of items, spread evenly: the first, the last and the rest at
    equal steps between them, in order (forge::spreadSample)."""
    if n <= 0 or len(items) <= n:
        return list(items)
    if n == 1:
        return [items[0]]
    last = len(items) - 1
    return [items[(i * last + (n - 1) // 2) // (n - 1)] for i in range(n)]


def sampled_candidates(kernel, per_strategy):
    """The manifest's candidates of kernel with at most per_strategy search
    points of each strategy (spread over its space, in the manifest's
    order); every candidate of another origin (the knowledge pick, an added
    one) stays."""
    candidates = kernel["candidates"]
    if not per_strategy:
        return candidates
    spaces = {}
    for c in candidates:
        if c.get("origin") == "search":
            strategy = c.get("params", {}).get("strategy", c["id"])
            spaces.setdefault(strategy, []).append(c["id"])
    kept = set()
    for ids in spaces.values():
        kept.update(spread_sample(ids, per_strategy))
    return [c for c in candidates
            if c.get("origin") != "search" or c["id"] in kept]


def read_candidates(bundle, kernel, per_strategy=0):
    """The kernel's candidates with a driver, and (id, why) of the others."""
    out, refused = [], []
    for c in sampled_candidates(kernel, per_strategy):
        if not c.get("driver"):
            refused.append((c["id"], c.get("skipped", "")))
            continue
        driver = os.path.join(bundle, c["driver"])
        with open(driver, encoding="utf-8") as f:
            text = f.read()
        start = text.find(CANDIDATE_START)
        end = text.find(CANDIDATE_END, start + 1)
        if start < 0 or end < 0:
            raise CorpusError("%s: no candidate between %r and %r" % (
                driver, CANDIDATE_START.strip(), CANDIDATE_END.strip()))
        start += len(CANDIDATE_START)
        first_line = text.count("\n", 0, start) + 1
        out.append(Candidate(c["id"], driver, text[start:end], first_line))
    return out, refused


def include_lines(candidates):
    """The #include lines of the candidates, in order, each once."""
    return list(dict.fromkeys(
        line for c in candidates for line in c.text.splitlines()
        if line.startswith("#include")))


def helper_guards(candidates):
    """The include guards (#ifndef NAME / #define NAME) of the candidates'
    helper blocks, in order, each once."""
    return list(dict.fromkeys(
        name for c in candidates
        for name in re.findall(r"^#ifndef (\w+)\n#define \1\n", c.text, re.M)))


def unit_text(bundle, kernel, candidates):
    """A unit like a driver's head, then every candidate in a namespace.

    A candidate's own #include lines sit inside its namespace; they are
    no-ops there because the same headers were included before at file
    scope. Each candidate guards its helper blocks (shared helpers, clamps,
    wraps, plane staging) with include guards, all of which are undefined
    before every candidate so that each namespace gets its own helpers.
    """
    return group_unit_text(bundle, kernel, [candidates],
                           "kernel %s" % kernel["name"])


def group_unit_text(bundle, kernel, candidate_lists, what):
    """unit_text for the candidates of several kernels of one translation
    unit (the same flags): the app's unit once, then each kernel's
    candidates, every one in a namespace of its own."""
    tu = os.path.join(bundle, "app", kernel["translation_unit"])
    out = ["// Every candidate of %s, checked by compile-candidates.py." % what,
           "#define FS_BUNDLE_DRIVER 1",
           "#define main fs_app_main",
           '#include "%s"' % tu,
           "#undef main"]
    every = [c for cs in candidate_lists for c in cs]
    out += include_lines(every)
    guards = ["#undef " + g for g in helper_guards(every)]
    for k, candidates in enumerate(candidate_lists):
        for n, c in enumerate(candidates):
            space = ("fs_candidate_%d" % n if len(candidate_lists) == 1
                     else "fs_kernel_%d_candidate_%d" % (k, n))
            out += guards + [
                    "namespace %s {" % space,
                    '#line %d "%s"' % (c.first_line, c.driver),
                    c.text,
                    "} // namespace %s" % space]
    return "\n".join(out) + "\n"


def nvcc_command(args, kernel, bundle, source, archs, opt_flags,
                 step="-c"):
    """nvcc with the unit's flags as fs-tune gives them to a driver, for the
    given archs, writing nothing; step -cubin compiles device code only."""
    argv = [args.nvcc] + opt_flags
    has_std = False
    for flag in kernel["flags"]:
        has_std |= flag.startswith("-std")
        if flag.startswith("-std=gnu++"):
            flag = "-std=c++" + flag[len("-std=gnu++"):]
        argv.append(flag.replace(BUNDLE_TOKEN, bundle))
    if not has_std:
        argv.append("-std=c++17")
    for a in archs:
        argv += ["-gencode", "arch=compute_%s,code=sm_%s" % (a, a)]
    return argv + [step, source, "-o", os.devnull]


# --- Checking one kernel ------------------------------------------------------

class Kernel:
    """One stencil kernel of the corpus and what its bundle holds for it."""

    def __init__(self, key, bundle, manifest_entry, candidates, no_driver,
                 work):
        self.key = key                # (kind, corpus source, kernel name)
        self.label = "%s %s kernel %s" % key
        self.bundle = bundle
        self.entry = manifest_entry
        self.candidates = candidates  # [Candidate] with a driver
        self.no_driver = no_driver    # [(id, why)]: the bundle has no driver
        self.work = work


class Failure:
    """A candidate (None: the unit of all) that does not compile for some
    archs, or in host code."""

    def __init__(self, candidate, archs, log, reproduce):
        self.candidate = candidate
        self.archs = archs          # ["sm_80", ...] or ["host code"]
        self.log = log              # nvcc's output for the first of them
        self.reproduce = reproduce  # the nvcc command for the first of them


def first_error(log):
    """The first line of nvcc's output that says error, else its last."""
    for line in log.splitlines():
        if "error" in line.lower():
            return line.strip()
    lines = [l for l in log.splitlines() if l.strip()]
    return lines[-1].strip() if lines else "(no output)"


def write_unit(kernel, name, candidates):
    """Writes the unit of the given candidates of kernel; returns its path."""
    path = os.path.join(kernel.work, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(unit_text(kernel.bundle, kernel.entry, candidates))
    return path


def culprits(kernel, args, opt):
    """Every candidate alone: per arch on the device side, then whole.

    A failure on an arch's device side names that arch; a candidate whose
    device code compiles for every arch but whose whole unit does not fails
    in host code, which is the same for every arch.
    """
    failures = []
    for n, c in enumerate(kernel.candidates):
        single = write_unit(kernel, "cand_%d.cu" % n, [c])
        failed = None
        for a in args.archs:
            device = nvcc_command(args, kernel.entry, kernel.bundle, single,
                                  [a], opt, step="-cubin")
            rc, log = run(device, timeout=args.timeout)
            if rc == 0:
                continue
            if failed:
                failed.archs.append("sm_" + a)
                continue
            failed = Failure(c, ["sm_" + a], log, nvcc_command(
                args, kernel.entry, kernel.bundle, single, [a], opt))
        if not failed:
            whole = nvcc_command(args, kernel.entry, kernel.bundle, single,
                                 args.archs, opt)
            rc, log = run(whole, timeout=args.timeout)
            if rc != 0:
                failed = Failure(c, ["host code"], log, whole)
        if failed:
            failures.append(failed)
    return failures


def check_kernel(kernel, args, known):
    """Compiles the kernel's candidates; returns (failures, note).

    A known failure is not taken apart: that it still fails is all the run
    needs, and naming each culprit costs a compile per candidate and arch.
    """
    opt = args.nvcc_flags.split()
    unit = write_unit(kernel, "all.cu", kernel.candidates)
    whole = nvcc_command(args, kernel.entry, kernel.bundle, unit, args.archs,
                         opt)
    rc, log = run(whole, timeout=args.timeout)
    if rc == 0:
        return [], ""
    if kernel.key in known:
        return [Failure(None, ["sm_" + a for a in args.archs], log, whole)], ""
    failures = culprits(kernel, args, opt)
    if failures:
        return failures, ""
    # Each alone compiles: the unit this script writes is at fault, not the
    # forge. That is an error all the same: the fallback compiles every
    # candidate four times over, which multiplies the run's time.
    return [Failure(None, ["sm_" + a for a in args.archs], log, whole)], (
        "note: %s: the unit of all candidates fails but each candidate "
        "compiles alone: utils/compile-candidates.py must put them into one "
        "unit without clashes" % kernel.label)


def unit_groups(kernels, known):
    """The kernels to compile in one unit: those of one bundle's translation
    unit with the same flags share it (the app's unit, the headers and
    nvcc's start-up once instead of once per kernel). A known failure is
    checked alone."""
    groups, index = [], {}
    for k in kernels:
        key = (k.bundle, k.entry["translation_unit"], tuple(k.entry["flags"]))
        if k.key in known:
            groups.append([k])
        elif key in index:
            groups[index[key]].append(k)
        else:
            index[key] = len(groups)
            groups.append([k])
    return groups


def check_group(group, args, known):
    """check_kernel for each kernel of group; when there are several, one
    compile of a unit of all their candidates first, and each kernel alone
    only if that fails (then naming the culprits as before)."""
    if len(group) > 1:
        first = group[0]
        path = os.path.join(first.work, "group.cu")
        with open(path, "w", encoding="utf-8") as f:
            f.write(group_unit_text(
                first.bundle, first.entry, [k.candidates for k in group],
                "%d kernels of %s" % (len(group),
                                      first.entry["translation_unit"])))
        whole = nvcc_command(args, first.entry, first.bundle, path,
                             args.archs, args.nvcc_flags.split())
        rc, _ = run(whole, timeout=args.timeout)
        if rc == 0:
            return [([], "") for _ in group]
    return [check_kernel(k, args, known) for k in group]


def prepare(sources, args):
    """Bundles every source; returns its stencil kernels."""
    kernels = []
    for kind, name, path in sources:
        work = os.path.join(args.work, "%s-%s" % (kind, name))
        bundle, manifest = write_bundle(kind, name, path, work, args)
        for entry in manifest["kernels"]:
            key = (kind, name, entry["name"])
            # A known failure is compiled whole: a sample could leave out
            # the candidate that fails and report it fixed.
            candidates, no_driver = read_candidates(
                bundle, entry, 0 if key in KNOWN_FAILURES else args.per_strategy)
            kwork = os.path.join(work, "check", re.sub(r"\W", "_",
                                                        entry["name"]))
            os.makedirs(kwork, exist_ok=True)
            kernels.append(Kernel(key, bundle, entry,
                                  candidates, no_driver, kwork))
    return kernels


def print_failures(k, failures, tag="FAIL"):
    """The failing candidates of k on stderr; nvcc's output for the first of
    them (the others of a kernel usually fail alike)."""
    out = sys.stderr
    for n, f in enumerate(failures):
        what = ("candidate %s for %s (%s)" % (
            f.candidate.id, " ".join(f.archs), f.candidate.driver)
                if f.candidate else "the unit of all candidates")
        print("%s %s %s: %s" % (tag, k.label, what, first_error(f.log)),
              file=out)
        if n == 0:
            print("  reproduce: %s" % " ".join(f.reproduce), file=out)
            for line in f.log.splitlines()[:12]:
                print("  | " + line, file=out)


def report(kernels, results, archs, known):
    """Prints a line per kernel on stdout, failures on stderr, then the
    summary; returns the exit status."""
    compiled = failed = 0
    compiled_kernels = 0
    known_lines = []
    unexpected = []
    for k, (failures, note) in zip(kernels, results):
        if note:
            print(note, file=sys.stderr)
        if k.no_driver:
            reasons = sorted(set(why for _, why in k.no_driver))
            print("no driver: %s: %d candidates: %s" % (
                k.label, len(k.no_driver), "; ".join(reasons)))
        if not k.candidates:
            if not k.no_driver:
                print("no candidate: %s: no strategy applies" % k.label)
            continue
        if k.key in known:
            if not failures:
                unexpected.append(k)
                print("XPASS %s: every candidate compiles now; drop it from "
                      "KNOWN_FAILURES in utils/compile-candidates.py"
                      % k.label)
                continue
            known_lines.append("known failure: %s: %d candidates: %s" % (
                k.label, len(k.candidates), known[k.key]))
            print(known_lines[-1])
            print_failures(k, failures, tag="known failure:")
            continue
        compiled_kernels += 1
        compiled += len(k.candidates) - len(failures)
        failed += len(failures)
        print("%s %s: %d candidates" % ("FAIL" if failures else "ok",
                                        k.label, len(k.candidates)))
        print_failures(k, failures)
    if failed or unexpected:
        message = ("FAILED: %d of %d candidates of %d kernels do not compile "
                   "for %s; %d known failures compile now" % (
                       failed, compiled + failed, compiled_kernels, archs,
                       len(unexpected)))
        print(message)
        print(message, file=sys.stderr)
        return 1
    print("compiled %d candidates of %d kernels for %s" % (
        compiled, compiled_kernels, archs))
    print("known failures: %d kernels" % len(known_lines))
    print("left out %d candidates of %d kernels that have no driver, "
          "%d kernels that no strategy applies to" % (
              sum(len(k.no_driver) for k in kernels),
              sum(1 for k in kernels if k.no_driver),
              sum(1 for k in kernels if not k.candidates and not k.no_driver)))
    return 0


def known_failures(args, all_sources, shard_sources, kernels):
    """KNOWN_FAILURES, checked against the corpus (a stale entry is an
    error), or nothing with --no-known-failures."""
    if args.no_known_failures:
        return {}
    names = set((kind, name) for kind, name, _ in all_sources)
    in_shard = set((kind, name) for kind, name, _ in shard_sources)
    found = set(k.key for k in kernels if k.candidates)
    for key in KNOWN_FAILURES:
        if key[:2] not in names:
            raise CorpusError("KNOWN_FAILURES names %s %s, which is no corpus "
                              "source" % key[:2])
        if key[:2] in in_shard and key not in found:
            raise CorpusError("KNOWN_FAILURES names %s %s kernel %s, which has "
                              "no candidates" % key)
    return KNOWN_FAILURES


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fs-rewrite", required=True)
    ap.add_argument("--nvcc", required=True)
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--split-file", default=shutil.which("split-file"))
    ap.add_argument("--analysis-tests", help="test/Analysis")
    ap.add_argument("--apps", help="apps/ (in-tree apps by app.json)")
    ap.add_argument("--shard", default="1/1",
                    help="I/N: every Nth corpus source from the Ith")
    ap.add_argument("--archs", default="80,90,100",
                    help="compute capabilities, comma-separated")
    ap.add_argument("--per-strategy", type=int, default=0,
                    help="at most N search points of each strategy per "
                    "kernel, spread over its space (default: every one); "
                    "the knowledge pick is always compiled")
    ap.add_argument("--nvcc-flags", default=DEFAULT_NVCC_FLAGS,
                    help="optimisation flags for every nvcc call")
    ap.add_argument("--work", help="an empty work directory")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=900,
                    help="seconds one nvcc call may take")
    ap.add_argument("--no-known-failures", action="store_true",
                    help="fail on the kernels in KNOWN_FAILURES too")
    ap.add_argument("--list", action="store_true",
                    help="print the shard's corpus sources and stop")
    args = ap.parse_args()
    args.archs = [a.strip() for a in args.archs.split(",") if a.strip()]
    if not args.split_file:
        args.split_file = "split-file"

    start = time.time()
    try:
        sources = []
        if args.analysis_tests:
            sources += analysis_sources(args.analysis_tests)
        if args.apps:
            sources += app_sources(args.apps)
        if not sources:
            raise CorpusError("no corpus sources: give --analysis-tests "
                              "and/or --apps")
        all_sources = sources
        sources = shard_of(sources, args.shard)
        if args.list:
            for kind, name, _ in sources:
                print(kind, name)
            return 0
        if not args.work:
            raise CorpusError("give --work")
        os.makedirs(args.work, exist_ok=True)
        kernels = prepare(sources, args)
        known = known_failures(args, all_sources, sources, kernels)
    except CorpusError as e:
        print("compile-candidates: error: %s" % e, file=sys.stderr)
        return 2
    prepared = time.time()
    groups = unit_groups([k for k in kernels if k.candidates], known)
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        by_group = list(pool.map(lambda g: check_group(g, args, known),
                                 groups))
    by_kernel = {id(k): r for g, rs in zip(groups, by_group)
                 for k, r in zip(g, rs)}
    results = [by_kernel[id(k)] if k.candidates else ([], "")
               for k in kernels]
    print("compile-candidates: %d sources bundled in %.0f s, compiled in "
          "%.0f s" % (len(sources), prepared - start, time.time() - prepared),
          file=sys.stderr)
    return report(kernels, results, " ".join("sm_" + a for a in args.archs),
                  known)


if __name__ == "__main__":
    sys.exit(main())

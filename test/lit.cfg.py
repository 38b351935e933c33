# -*- Python -*-
# lit configuration for ForgeStencil's tool tests.
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "ForgeStencil"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".cu", ".cuh", ".test", ".json", ".cpp"]
# Inputs/ holds files that tests read; they are not tests themselves.
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py", "Unit", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fs_obj_root, "test")

llvm_config.with_system_environment(["HOME", "TMPDIR", "TMP", "TEMP", "CUDA_PATH"])
llvm_config.use_default_substitutions()
config.environment["FS_NO_COLOR"] = "1"
config.environment["LC_ALL"] = "C"
# utils/cpu-emulate.py compiles its CUDA shim (a precompiled header and a
# runtime unit) once into this directory for the whole run instead of once
# per emulation: 113 emulations, about 3 s of compiling each.
config.environment["FS_EMU_CACHE"] = os.path.join(config.fs_obj_root, "test", "emu-cache")
# Tests never reach a real model server or a user's key.
for var in ("FS_LLM_BASE_URL", "FS_LLM_MODEL", "FS_LLM_API_KEY", "OPENAI_API_KEY", "USE_OURS"):
    config.environment.pop(var, None)

# FileCheck, not, split-file, count from llvm-22-tools.
llvm_config.add_tool_substitutions(["FileCheck", "not", "split-file", "count"],
                                   [config.llvm_tools_dir])

tool_dirs = [config.fs_tools_dir, config.llvm_tools_dir]
for tool in ("fs-rewrite", "fs-tune", "fs-agent", "fs-harness", "fs-bench"):
    path = os.path.join(config.fs_tools_dir, tool)
    if os.path.exists(path):
        config.available_features.add(tool)
        config.substitutions.append(("%" + tool, path))
config.substitutions.append(("%fs-src", config.fs_src_root))
config.substitutions.append(("%fs-obj", config.fs_obj_root))
config.substitutions.append(("%fs-version", config.fs_version))
config.substitutions.append(("%python", shutil.which("python3") or "python3"))
# The scripted OpenAI-compatible server the LLM agent's tests talk to.
config.substitutions.append(("%scripted-llm-server", "%s %s" % (
    shutil.which("python3") or "python3",
    os.path.join(config.fs_src_root, "utils", "scripted-llm-server.py"))))

# test/.lit_test_times.txt holds each test's time in a run on a 2-core
# machine: on a fresh build lit reads it to start the slowest tests first,
# so that the two workers finish together (lit writes later times into the
# build's test directory, not here).
#
# Test tiers. `ci` (the default: scripts/test.sh, `ninja check`, what CI
# runs) emulates and compiles a spread sample of each strategy's search
# space, two points per strategy (fs-bench --per-strategy), and compiles the
# candidate corpus for sm_90 only; `full` (scripts/test.sh --full,
# `ninja check-full`) takes every point of every space and the three
# architectures. The same tests run in both, only on fewer candidates in
# `ci`: %per-strategy goes after fs-bench's --strategy, %corpus-archs after
# compile-candidates.py's --archs, and a test whose checks differ between the
# tiers checks with the prefix TIER-%fs-tier.
fs_tier = lit_config.params.get("fs_tier", os.environ.get("FS_TEST_TIER", "ci"))
if fs_tier not in ("ci", "full"):
    lit_config.fatal("fs_tier must be 'ci' or 'full', not '%s'" % fs_tier)
config.available_features.add("tier-" + fs_tier)
config.substitutions.append(("%fs-tier", fs_tier))
config.substitutions.append(
    ("%per-strategy", "--per-strategy 2" if fs_tier == "ci" else ""))
config.substitutions.append(
    ("%corpus-archs", "90" if fs_tier == "ci" else "80,90,100"))

if config.fs_enable_llvm:
    config.available_features.add("llvm")
if config.nvcc and os.path.exists(config.nvcc):
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", config.nvcc))
    config.substitutions.append(("%cuda-path", os.path.dirname(os.path.dirname(config.nvcc))))
if shutil.which("nvidia-smi") and os.system("nvidia-smi -L >/dev/null 2>&1") == 0:
    config.available_features.add("gpu")
for tool in ("git", "patch", "cmake", "ninja"):
    if shutil.which(tool):
        config.available_features.add(tool)

llvm_config.with_environment("PATH", tool_dirs, append_path=True)

# The third-party dev set (../shared/devset, extracted with its extract.sh);
# tests that read its sources say `REQUIRES: devset` and are reported
# UNSUPPORTED where it is absent (CI has no network to fetch it).
devset_root = os.environ.get("DEVSET_ROOT", "/tmp/devset")
if os.path.isdir(devset_root) and os.listdir(devset_root):
    config.available_features.add("devset")
    config.substitutions.append(("%devset", devset_root))

# Local mirrors of the third-party apps' repositories (FS_MIRROR, any layout
# scripts/vendor.sh reads): tests that vendor and build a third-party app say
# `REQUIRES: mirrors` and pass `env FS_MIRROR=%mirrors` themselves, so no
# other test sees the variable. CI has no mirrors; those tests are UNSUPPORTED.
mirror_root = os.environ.get("FS_MIRROR", "")
if mirror_root and os.path.isdir(mirror_root):
    config.available_features.add("mirrors")
    config.substitutions.append(("%mirrors", os.path.abspath(mirror_root)))
# An MPI to build the MPI apps with: one on PATH, or the Debian packages that
# scripts/gpu/carry-mpi.sh carried into .carry/mpi (scripts/gpu/mpi-env.sh
# extracts them).
carried_mpi = os.path.join(config.fs_src_root, ".carry", "mpi")
has_carried_mpi = os.path.isdir(carried_mpi) and any(
    f.endswith(".deb") for f in os.listdir(carried_mpi))
if has_carried_mpi:
    config.available_features.add("carried-mpi")
if shutil.which("mpicxx") or has_carried_mpi:
    config.available_features.add("mpi")

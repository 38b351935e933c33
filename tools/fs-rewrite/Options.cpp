//===- Options.cpp - fs-rewrite's command line ---------------------------===//
///
/// \file
/// Every option of fs-rewrite, declared here and read once into plain
/// values (Options.h); nothing else reads or writes a cl::opt.
///
//===----------------------------------------------------------------------===//

#include "Options.h"

#include "forgestencil/Version.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

cl::OptionCategory Category("fs-rewrite options");

const char Overview[] =
    "fs-rewrite: find the stencil kernels of a CUDA application and rewrite\n"
    "their launches to faster, verified kernels behind USE_OURS.\n"
    "\n"
    "  fs-rewrite --app NAME --list build/compile_commands.json\n"
    "\n"
    "Every parse first includes an analysis-only prelude (built in; never\n"
    "part of a patch or bundle) that lets CUDA 13's headers configure for\n"
    "clang and declares APIs CUDA 12/13 removed (cudaThreadSynchronize,\n"
    "texture references, ...); -v names what it supplied.\n"
    "An #include that names no existing file is parsed as an empty stand-in\n"
    "and reported (--strict-includes: an error instead). Errors outside every\n"
    "kernel and launch are reported and tolerated. --list ends with each\n"
    "translation unit's status per side and overall (--json:\n"
    "\"translation_units\"): parsed, parsed with stand-ins (which includes) "
    "or\n"
    "failed (the first error).\n"
    "\n"
    "Exit status: 0 when every translation unit was analysed (stand-ins are\n"
    "reported); 1 when some kernel or launch could not be analysed because\n"
    "of errors, or a requested step (patch, bundle, tuning) failed; 2 for\n"
    "usage errors and compile-database errors (an entry that cannot be\n"
    "read; the other entries are still analysed).\n";

cl::opt<std::string>
    DatabasePath(cl::Positional, cl::Required,
                 cl::desc("<compile_commands.json or its directory>"),
                 cl::cat(Category));
cl::opt<std::string> AppName("app", cl::desc("Name of the application"),
                             cl::value_desc("name"), cl::cat(Category));
cl::opt<bool> List("list", cl::desc("Print every kernel and launch site found"),
                   cl::cat(Category));
cl::opt<bool> Json("json", cl::desc("With --list: print JSON"),
                   cl::cat(Category));
cl::opt<std::string>
    SourceRoot("source-root",
               cl::desc("Print paths relative to this directory (default: the "
                        "common directory of the translation units)"),
               cl::cat(Category));
cl::opt<std::string> CudaPath("cuda-path",
                              cl::desc("CUDA toolkit to parse against"),
                              cl::cat(Category));
cl::opt<std::string> ResourceDir("resource-dir",
                                 cl::desc("clang resource directory"),
                                 cl::cat(Category));
cl::list<std::string>
    ExtraArgs("extra-arg", cl::desc("Extra argument for every clang command"),
              cl::cat(Category));
cl::opt<std::string>
    DumpIR("dump-ir",
           cl::desc("Write every kernel's analysis and Stencil IR as JSON to "
                    "<file> ('-' for stdout)"),
           cl::value_desc("file"), cl::cat(Category));
cl::opt<std::string>
    ProfilePath("profile",
                cl::desc("Rank by measured kernel times: CSV from `nsys stats "
                         "--report cuda_gpu_kern_sum --format csv`"),
                cl::value_desc("csv"), cl::cat(Category));
cl::opt<bool> Verbose("v",
                      cl::desc("Say what was translated and skipped, and "
                               "which removed CUDA APIs the analysis "
                               "prelude supplied"),
                      cl::cat(Category));
cl::opt<bool> StrictIncludes(
    "strict-includes",
    cl::desc("A missing #include fails its translation unit instead of "
             "being parsed as an empty stand-in"),
    cl::cat(Category));

// --bundle DIR writes the tuning bundle fs-tune runs; --tuning-results FILE
// reads what fs-tune measured and patches its winners.
cl::opt<std::string>
    BundleDir("bundle",
              cl::desc("Write a tuning bundle (candidates, drivers that call "
                       "the original kernel from the app's own TU, manifest) "
                       "to <dir> for fs-tune"),
              cl::value_desc("dir"), cl::cat(Category));
cl::opt<unsigned>
    BundleBudget("bundle-budget",
                 cl::desc("Candidates per kernel in the bundle (default 6)"),
                 cl::init(6), cl::cat(Category));
cl::opt<std::string>
    BundleArch("bundle-arch",
               cl::desc("GPU architecture to tune and patch for: the best "
                        "known strategies, the bundle's candidates and the "
                        "patch's variants are this architecture's"),
               cl::init("sm_90"), cl::cat(Category));
cl::opt<std::string>
    TuningResults("tuning-results",
                  cl::desc("fs-tune's results: patch each kernel with its "
                           "fastest verified candidate (else the reference)"),
                  cl::value_desc("json"), cl::cat(Category));

// --agent builtin|llm|both: who writes candidates (lib/Agents, through the
// bundle --bundle wrote).
cl::opt<std::string>
    AgentKind("agent",
              cl::desc("Who writes candidates: builtin (the forge's "
                       "strategies), llm (a model, through fs-tune) or both "
                       "(fs-tune's winner selection decides)"),
              cl::init("builtin"), cl::cat(Category));
cl::opt<unsigned> LlmRounds("llm-rounds",
                            cl::desc("Generation/repair rounds per "
                                     "kernel (default 4)"),
                            cl::init(4), cl::cat(Category));
cl::opt<int> LlmMaxTokens("llm-max-tokens",
                          cl::desc("Token limit of one answer"), cl::init(0),
                          cl::cat(Category));
cl::opt<unsigned> LlmTimeout("llm-timeout",
                             cl::desc("Seconds one request may take"),
                             cl::init(600), cl::cat(Category));
cl::opt<bool> LlmCompileOnly(
    "llm-compile-only",
    cl::desc("Without a GPU: a candidate that compiles ends the loop"),
    cl::cat(Category));
cl::opt<std::string>
    LlmRunDir("llm-run-dir",
              cl::desc("Audit directory of the LLM run (default: "
                       "<bundle>/llm-run)"),
              cl::value_desc("dir"), cl::cat(Category));
cl::opt<std::string>
    FsTunePath("fs-tune",
               cl::desc("The fs-tune that evaluates LLM candidates (default: "
                        "beside fs-rewrite)"),
               cl::value_desc("path"), cl::cat(Category));

cl::list<std::string>
    LlmFsTuneArgs("llm-fs-tune-arg",
                  cl::desc("An extra argument for each fs-tune run of the "
                           "LLM loop (e.g. --nvcc=PATH)"),
                  cl::value_desc("arg"), cl::cat(Category));

// --emit-patch / --stdout: the patch (lib/Rewrite) and the variants it
// routes to (lib/Knowledge).
cl::opt<bool>
    EmitPatch("emit-patch",
              cl::desc("Write patches/<app>/NNNN-<slug>.patch that guards the "
                       "rewritten launches with USE_OURS (needs --app)"),
              cl::cat(Category));
cl::opt<bool> PatchToStdout("stdout",
                            cl::desc("Print the patch instead of "
                                     "writing a file"),
                            cl::cat(Category));
cl::opt<std::string>
    PatchOutputDir("output-dir",
                   cl::desc("Directory for the patch file (default: "
                            "./patches/<app>)"),
                   cl::value_desc("dir"), cl::cat(Category));
cl::list<std::string>
    RewriteKernels("kernels", cl::CommaSeparated,
                   cl::desc("Kernels to rewrite (with --bundle, to bundle "
                            "and tune), a template by its name or "
                            "by instantiation (k<double>) (default: every "
                            "kernel with a launch that can be rewritten)"),
                   cl::value_desc("a,b"), cl::cat(Category));
cl::list<std::string> RestrictKernels(
    "restrict", cl::CommaSeparated,
    cl::desc("With the forge strategy: kernels that get a copy of their own "
             "body with __restrict__ (and const on what they only read) "
             "instead of a generated variant, run when their pointer "
             "arguments point into distinct allocations; verify it in the "
             "app with USE_OURS=verify"),
    cl::value_desc("a,b"), cl::cat(Category));
cl::list<std::string> ReblockKernels(
    "reblock", cl::CommaSeparated,
    cl::desc("With the forge strategy: kernels that get a copy of their own "
             "body launched with another block shape covering the same "
             "thread indices: K=XxY[xZ] for that shape, K alone for the "
             "original's (USE_OURS=verify then times every candidate shape "
             "in the app)"),
    cl::value_desc("k[=XxY],..."), cl::cat(Category));
cl::list<std::string> RegisterCapKernels(
    "register-cap", cl::CommaSeparated,
    cl::desc("With --reblock for the same kernels: the re-blocked copy also "
             "runs with at most N registers a thread (__launch_bounds__ for "
             "its block): K=N for that cap (with a chosen shape), K alone to "
             "time the uncapped copy and each cap of 64, 56, 48, 40, 32 "
             "under USE_OURS=verify, beside every shape (--reblock-times "
             "then chooses the shape and the cap). Without --reblock: a copy "
             "at the original's block shape (for kernels whose shape cannot "
             "change: shared memory, barriers), timed with each cap; "
             "--reblock-times chooses the cap"),
    cl::value_desc("k[=N],..."), cl::cat(Category));
cl::list<std::string> CoarsenKernels(
    "coarsen", cl::CommaSeparated,
    cl::desc("With --reblock for the same kernels: copies in which each "
             "thread computes several consecutive points along y or z, "
             "launched with that many times fewer blocks along the axis: "
             "K=yN or K=zN for that coarsening, K alone to time 2 and 4 "
             "points along each of y and z the kernel indexes under "
             "USE_OURS=verify, beside every shape (--reblock-times then "
             "chooses)"),
    cl::value_desc("k[=yN],..."), cl::cat(Category));
cl::opt<std::string> ReblockTimes(
    "reblock-times",
    cl::desc("For each --reblock kernel without a shape: the fastest shape "
             "of this fs-harness run record's USE_OURS=verify times, if it "
             "beats the original by --reblock-min-gain; otherwise the kernel "
             "keeps its original launches"),
    cl::value_desc("runs.json"), cl::cat(Category));
cl::opt<double> ReblockMinGain(
    "reblock-min-gain",
    cl::desc("With --reblock-times: the least gain a shape must show "
             "(default 0.01: 1%)"),
    cl::init(0.01), cl::cat(Category));
cl::list<std::string> InAppKernels(
    "in-app", cl::CommaSeparated,
    cl::desc("With the forge strategy: plain kernels whose generated "
             "candidates (up to --bundle-budget) go into the patch to be "
             "compared with the original and timed in the app under "
             "USE_OURS=verify; the launcher runs the original otherwise. "
             "With --in-app-times, the fastest of them instead"),
    cl::value_desc("a,b"), cl::cat(Category));
cl::opt<std::string> InAppTimes(
    "in-app-times",
    cl::desc("For each --in-app kernel: the candidate this fs-harness run "
             "record's USE_OURS=verify run timed fastest without a "
             "difference, if it beats the original by --in-app-min-gain; "
             "otherwise the kernel keeps its original launches"),
    cl::value_desc("runs.json"), cl::cat(Category));
cl::opt<double> InAppMinGain(
    "in-app-min-gain",
    cl::desc("With --in-app-times: the least gain a candidate must show "
             "(default 0.02: 2%)"),
    cl::init(0.02), cl::cat(Category));
cl::opt<std::string>
    RewriteStrategy("strategy",
                    cl::desc("How replacement kernels are made: forge (a "
                             "generated variant for the --bundle-arch GPU from "
                             "the Stencil IR, "
                             "the reference elsewhere) or reference (a renamed "
                             "copy of the original; no speed-up)"),
                    cl::init("forge"), cl::cat(Category));
cl::opt<std::string>
    KnowledgePath("knowledge",
                  cl::desc("Operator matrix the forge strategy reads (default: "
                           "the project's knowledge/operator-matrix.json)"),
                  cl::value_desc("json"), cl::cat(Category));

cl::opt<std::string> CpuCheckMode(
    "cpu-check",
    cl::desc("Check variants on the CPU (utils/cpu-emulate.py: the "
             "original and the variant on bounds-checked arrays) before "
             "patching them: auto (default; the variants no GPU verified "
             "on this app), always (fs-tune's winners too) or never (patch "
             "unchecked best known strategies)"),
    cl::init("auto"), cl::cat(Category));
cl::opt<std::string>
    CpuEmulatorPath("cpu-emulator",
                    cl::desc("The CPU emulator (default: the installed or "
                             "source tree's utils/cpu-emulate.py; "
                             "FS_CPU_EMULATOR)"),
                    cl::value_desc("path"), cl::cat(Category));
cl::opt<std::string>
    CpuCheckDir("cpu-check-dir",
                cl::desc("Keep each CPU check's sources and build in "
                         "<dir>/<kernel> (default: a temporary directory, "
                         "removed)"),
                cl::value_desc("dir"), cl::cat(Category));

// --tune auto|always|never: with a GPU here, patch emission first writes a
// bundle, runs fs-tune on it (a child process) and patches its verified
// winners, as if --tuning-results had been given.
cl::opt<std::string> TuneMode(
    "tune",
    cl::desc("With --emit-patch/--stdout and the forge strategy: auto "
             "(default; when a GPU is here, write a bundle, run fs-tune on it "
             "and patch its verified winners), always (also when no GPU is "
             "detected) or never (patch the best known strategies)"),
    cl::init("auto"), cl::cat(Category));
cl::list<std::string>
    TuneArgs("tune-arg",
             cl::desc("An extra argument for fs-tune under --tune (e.g. "
                      "--budget=8)"),
             cl::value_desc("arg"), cl::cat(Category));

/// A comma-separated list of kernel names as the user meant it: the
/// commas inside template arguments ("k<double, 1>") do not separate.
std::vector<std::string> kernelNames(const cl::list<std::string> &Items) {
  std::vector<std::string> Out;
  int Depth = 0;
  for (const std::string &Item : Items) {
    if (Depth > 0)
      Out.back() += "," + Item;
    else
      Out.push_back(Item);
    for (char C : Item)
      Depth += C == '<' ? 1 : C == '>' ? -1 : 0;
  }
  return Out;
}

} // namespace

namespace fsrewrite {

bool parseCommandLine(int Argc, char **Argv, ToolOptions &Tool,
                      forgestencil::pipeline::Options &Steps, LlmOptions &Llm) {
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "fs-rewrite (ForgeStencil) " << FORGESTENCIL_VERSION << "\n";
  });
  if (!cl::ParseCommandLineOptions(Argc, Argv, Overview, &errs()))
    return false;
  Tool.DatabasePath = DatabasePath;
  Tool.CudaPath = CudaPath;
  Tool.ResourceDir = ResourceDir;
  Tool.DumpIR = DumpIR;
  Tool.ProfilePath = ProfilePath;
  Tool.ExtraArgs.assign(ExtraArgs.begin(), ExtraArgs.end());
  Tool.List = List;
  Tool.Json = Json;
  Tool.Verbose = Verbose;
  Tool.StrictIncludes = StrictIncludes;

  Steps.MainExecutable =
      sys::fs::getMainExecutable(Argv[0], (void *)&parseCommandLine);
  Steps.AppName = AppName;
  Steps.SourceRoot = SourceRoot;
  Steps.BundleDir = BundleDir;
  Steps.Budget = BundleBudget;
  Steps.Arch = BundleArch;
  Steps.KnowledgePath = KnowledgePath;
  Steps.TuningResults = TuningResults;
  Steps.FsTune = FsTunePath;
  Steps.EmitPatch = EmitPatch;
  Steps.ToStdout = PatchToStdout;
  Steps.OutputDir = PatchOutputDir;
  Steps.Strategy = RewriteStrategy;
  Steps.Kernels = kernelNames(RewriteKernels);
  Steps.RestrictKernels.assign(RestrictKernels.begin(), RestrictKernels.end());
  Steps.ReblockKernels.assign(ReblockKernels.begin(), ReblockKernels.end());
  Steps.RegisterCapKernels.assign(RegisterCapKernels.begin(),
                                  RegisterCapKernels.end());
  Steps.CoarsenKernels.assign(CoarsenKernels.begin(), CoarsenKernels.end());
  Steps.ReblockTimes = ReblockTimes;
  Steps.ReblockMinGain = ReblockMinGain;
  Steps.InAppKernels = kernelNames(InAppKernels);
  Steps.InAppTimes = InAppTimes;
  Steps.InAppMinGain = InAppMinGain;
  Steps.CpuCheck = CpuCheckMode;
  Steps.CpuEmulator = CpuEmulatorPath;
  Steps.CpuCheckDir = CpuCheckDir;
  Steps.Tune = TuneMode;
  Steps.TuneArgs.assign(TuneArgs.begin(), TuneArgs.end());

  Llm.Agent = AgentKind;
  Llm.Rounds = LlmRounds;
  Llm.Timeout = LlmTimeout;
  Llm.MaxTokens = LlmMaxTokens;
  Llm.CompileOnly = LlmCompileOnly;
  Llm.RunDir = LlmRunDir;
  Llm.FsTuneArgs.assign(LlmFsTuneArgs.begin(), LlmFsTuneArgs.end());
  return true;
}

} // namespace fsrewrite

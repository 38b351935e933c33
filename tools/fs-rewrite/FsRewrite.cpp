//===- FsRewrite.cpp - The fs-rewrite command-line tool ---------------------===//
///
/// \file
/// fs-rewrite reads an app's compile_commands.json, parses its CUDA sources
/// (host and device side) and reports the kernels and launch sites it finds.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Analysis/Hotspots.h"
#include "forgestencil/Analysis/Inventory.h"
#include "forgestencil/Analysis/Report.h"
#include "forgestencil/Driver/CompilationDatabase.h"
#include "forgestencil/Driver/FrontendRunner.h"
#include "forgestencil/Driver/ParseStatus.h"
#include "forgestencil/Rewrite/PatchEmission.h"
#include "forgestencil/Rewrite/RewritePlanner.h"
#include "forgestencil/Forge/OperatorMatrix.h"
#include "forgestencil/Forge/Bundle.h"
#include "forgestencil/Forge/CpuCheck.h"
#include "forgestencil/Knowledge/BlockShapeChoice.h"
#include "forgestencil/Knowledge/VariantChoice.h"
#include "forgestencil/Forge/BundleResults.h"
#include "forgestencil/Harness/HostInfo.h"
#include "forgestencil/Version.h"
#ifdef FS_HAVE_AGENTS // LLM agent (lib/Agents).
#include "forgestencil/Agents/BundleAgent.h"
#include <iostream>
#include <set>
#endif

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace forgestencil;

static cl::OptionCategory Category("fs-rewrite options");

/// Exit codes (documented in the overview below and in the README).
enum ExitCode {
  ExitAnalysed = 0,    ///< Every TU analysed (stand-ins reported).
  ExitNotAnalysed = 1, ///< Some kernel or launch was not, or a step failed.
  ExitUsage = 2,       ///< Bad options or a bad compile database.
};

/// Prints "fs-rewrite: error: Msg"; returns the exit code of a failure.
static int fail(const Twine &Msg) {
  WithColor::error(errs(), "fs-rewrite") << Msg << "\n";
  return ExitNotAnalysed;
}

/// fail() for a usage or compile-database error.
static int usageError(const Twine &Msg) {
  fail(Msg);
  return ExitUsage;
}

static const char Overview[] =
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
    "\"translation_units\"): parsed, parsed with stand-ins (which includes) or\n"
    "failed (the first error).\n"
    "\n"
    "Exit status: 0 when every translation unit was analysed (stand-ins are\n"
    "reported); 1 when some kernel or launch could not be analysed because\n"
    "of errors, or a requested step (patch, bundle, tuning) failed; 2 for\n"
    "usage errors and compile-database errors (an entry that cannot be\n"
    "read; the other entries are still analysed).\n";

static cl::opt<std::string> DatabasePath(cl::Positional, cl::Required,
                                         cl::desc("<compile_commands.json or its directory>"),
                                         cl::cat(Category));
static cl::opt<std::string> AppName("app", cl::desc("Name of the application"),
                                    cl::value_desc("name"), cl::cat(Category));
static cl::opt<bool> List("list",
                          cl::desc("Print every kernel and launch site found"),
                          cl::cat(Category));
static cl::opt<bool> Json("json", cl::desc("With --list: print JSON"),
                          cl::cat(Category));
static cl::opt<std::string>
    SourceRoot("source-root",
               cl::desc("Print paths relative to this directory (default: the "
                        "common directory of the translation units)"),
               cl::cat(Category));
static cl::opt<std::string> CudaPath("cuda-path",
                                     cl::desc("CUDA toolkit to parse against"),
                                     cl::cat(Category));
static cl::opt<std::string>
    ResourceDir("resource-dir", cl::desc("clang resource directory"),
                cl::cat(Category));
static cl::list<std::string>
    ExtraArgs("extra-arg", cl::desc("Extra argument for every clang command"),
              cl::cat(Category));
static cl::opt<std::string>
    DumpIR("dump-ir",
           cl::desc("Write every kernel's analysis and Stencil IR as JSON to "
                    "<file> ('-' for stdout)"),
           cl::value_desc("file"), cl::cat(Category));
static cl::opt<std::string>
    ProfilePath("profile",
                cl::desc("Rank by measured kernel times: CSV from `nsys stats "
                         "--report cuda_gpu_kern_sum --format csv`"),
                cl::value_desc("csv"), cl::cat(Category));
static cl::opt<bool> Verbose("v",
                             cl::desc("Say what was translated and skipped, and "
                                      "which removed CUDA APIs the analysis "
                                      "prelude supplied"),
                             cl::cat(Category));
static cl::opt<bool> StrictIncludes(
    "strict-includes",
    cl::desc("A missing #include fails its translation unit instead of "
             "being parsed as an empty stand-in"),
    cl::cat(Category));

namespace {

std::string commonDirectory(const std::vector<std::string> &Files) {
  if (Files.empty())
    return "";
  std::string Common = sys::path::parent_path(Files.front()).str();
  for (const std::string &F : Files) {
    while (!Common.empty() && !StringRef(F).starts_with(Common + "/"))
      Common = sys::path::parent_path(Common).str();
  }
  return Common;
}

} // namespace

//===--- Tuning bundle and tuning results (lib/Forge) ---------------------===//
// --bundle DIR writes the tuning bundle fs-tune runs (forge::writeBundle);
// --tuning-results FILE reads what fs-tune measured and picks the winners
// (forge::chooseWinners). Option handling and collection only.

/// The operator matrix to read (--knowledge, FS_KNOWLEDGE, beside the
/// install prefix or in the source tree), said once on the log; empty when
/// there is none or it cannot be read, and then the reason is said.
static std::string knowledgeFile(raw_ostream &Log);

static cl::opt<std::string>
    BundleDir("bundle",
              cl::desc("Write a tuning bundle (candidates, drivers that call "
                       "the original kernel from the app's own TU, manifest) "
                       "to <dir> for fs-tune"),
              cl::value_desc("dir"), cl::cat(Category));
static cl::opt<unsigned>
    BundleBudget("bundle-budget",
                 cl::desc("Candidates per kernel in the bundle (default 6)"),
                 cl::init(6), cl::cat(Category));
static cl::opt<std::string>
    BundleArch("bundle-arch", cl::desc("GPU architecture to tune for"),
               cl::init("sm_90"), cl::cat(Category));
static cl::opt<std::string>
    TuningResults("tuning-results",
                  cl::desc("fs-tune's results: patch each kernel with its "
                           "fastest verified candidate (else the reference)"),
                  cl::value_desc("json"), cl::cat(Category));

/// What this run works with: the values of the options above, and what
/// the run decides itself (the bundle directory it creates to tune in,
/// the results fs-tune writes there, the budget of an LLM run). The
/// options themselves are never written.
static struct {
  std::string BundleDir, TuningResults, FsTune;
  unsigned Budget = 6;
} Cur;

/// Runs --bundle after the analysis; returns the exit code.
static int runBundle(const driver::CudaCompilationDatabase &DB,
                     const analysis::Inventory &Inv, StringRef Root,
                     bool Announce = true) {
  forge::BundleRequest Req;
  Req.App = AppName.empty() ? sys::path::filename(Root).str()
                            : AppName.getValue();
  Req.ToolVersion = FORGESTENCIL_VERSION;
  Req.Arch = BundleArch;
  Req.SourceRoot = Root.str();
  Req.Budget = Cur.Budget;
  for (const std::string &F : DB.getAllFiles()) {
    const driver::TranslationUnit *TU = DB.unit(F);
    if (!TU || TU->Job.Skip)
      continue;
    forge::BundleRequest::Unit U{TU->Job.File, TU->Job.Directory,
                                 TU->Job.CommonFlags};
    for (const std::string &H : TU->Job.HostFlags)
      U.Flags.push_back("-Xcompiler=" + H);
    for (const std::string &N : TU->Job.NvccFlags)
      U.Flags.push_back(N);
    Req.Units.push_back(std::move(U));
  }
  for (const auto &[Name, A] : Inv.analyses()) {
    if (A.Result != analysis::KernelAnalysis::Stencil || !A.IR)
      continue;
    if (!A.NotRewritten.empty()) {
      errs() << "fs-rewrite: " << Name << ": not tuned: " << A.NotRewritten
             << "\n";
      continue;
    }
    // An instantiation "k<double>" is defined by its template "k".
    std::string Defined =
        rewrite::KernelInstanceName::parse(A.IR->Kernel).Kernel;
    std::string Unit;
    for (const auto &[Pos, K] : Inv.kernels())
      if (Pos.File == A.Pos.File && K.Name == Defined)
        Unit = K.TranslationUnit;
    if (Unit.empty())
      for (const auto &[Pos, K] : Inv.kernels())
        if (Pos.File == A.Pos.File)
          Unit = K.TranslationUnit;
    Req.Kernels.push_back({*A.IR, Unit});
  }
  std::string Error;
  // C/C++ units the CUDA front end skipped still have to link.
  for (const driver::CompileJob &H : DB.hostJobs())
    Req.Units.push_back({H.File, H.Directory, H.CommonFlags});
  Req.Knowledge = forge::emptyMatrix();
  if (std::string K = knowledgeFile(errs());
      !K.empty() && !forge::loadMatrix(K, Req.Knowledge, Error))
    errs() << "fs-rewrite: note: no knowledge base (" << Error << ")\n";
  forge::BundleManifest M;
  if (!forge::writeBundle(Req, Cur.BundleDir, M, Error))
    return fail(Error);
  for (const forge::BundleKernel &K : M.Kernels) {
    unsigned Drivers = 0;
    for (const forge::BundleCandidate &C : K.Candidates)
      Drivers += !C.Driver.empty();
    errs() << "fs-rewrite: bundle: " << K.Name << ": " << Drivers << " of "
           << K.Candidates.size() << " candidates have a driver\n";
    if (K.Candidates.empty()) {
      // Say why no strategy applies (each reason once).
      std::set<std::string> Said;
      for (const auto &S : forge::allStrategies()) {
        std::string Why = S->whyNot(K.IR);
        if (!Why.empty() && Said.insert(Why).second)
          errs() << "fs-rewrite: bundle: " << K.Name << ": " << S->name()
                 << " does not apply: " << Why << "\n";
      }
    }
  }
  for (const std::string &S : M.Skipped)
    errs() << "fs-rewrite: bundle: left out " << S << "\n";
  if (Announce)
    outs() << Cur.BundleDir << "\n";
  return 0;
}
//===--- End of tuning bundle and tuning results --------------------------===//

//===--- LLM agent (lib/Agents) -------------------------------------------===//
// --agent builtin|llm|both: option handling only; the work is
// agents::runAgentOnBundle (shared with fs-agent), run on the bundle --bundle
// wrote.

static cl::opt<std::string>
    AgentKind("agent",
              cl::desc("Who writes candidates: builtin (the forge's "
                       "strategies), llm (a model, through fs-tune) or both "
                       "(fs-tune's winner selection decides)"),
              cl::init("builtin"), cl::cat(Category));
static cl::opt<unsigned> LlmRounds("llm-rounds",
                                   cl::desc("Generation/repair rounds per "
                                            "kernel (default 4)"),
                                   cl::init(4), cl::cat(Category));
static cl::opt<int> LlmMaxTokens("llm-max-tokens",
                                 cl::desc("Token limit of one answer"),
                                 cl::init(0), cl::cat(Category));
static cl::opt<unsigned> LlmTimeout("llm-timeout",
                                    cl::desc("Seconds one request may take"),
                                    cl::init(600), cl::cat(Category));
static cl::opt<bool> LlmCompileOnly(
    "llm-compile-only",
    cl::desc("Without a GPU: a candidate that compiles ends the loop"),
    cl::cat(Category));
static cl::opt<std::string>
    LlmRunDir("llm-run-dir",
              cl::desc("Audit directory of the LLM run (default: "
                       "<bundle>/llm-run)"),
              cl::value_desc("dir"), cl::cat(Category));
static cl::opt<std::string>
    FsTunePath("fs-tune",
               cl::desc("The fs-tune that evaluates LLM candidates (default: "
                        "beside fs-rewrite)"),
               cl::value_desc("path"), cl::cat(Category));

static cl::list<std::string>
    LlmFsTuneArgs("llm-fs-tune-arg",
                  cl::desc("An extra argument for each fs-tune run of the "
                           "LLM loop (e.g. --nvcc=PATH)"),
                  cl::value_desc("arg"), cl::cat(Category));

static bool wantsLlm() { return AgentKind == "llm" || AgentKind == "both"; }

#ifdef FS_HAVE_AGENTS
static std::unique_ptr<agents::LlmClient> LlmAgentClient;
#endif

/// Checks --agent before any analysis: the model is configured and the
/// server answers. Returns the exit code (0 to go on).
static int startLlmAgent(const char *Argv0) {
  if (AgentKind != "builtin" && !wantsLlm())
    return fail("--agent must be builtin, llm or both, not '" + AgentKind +
                "'");
  if (!wantsLlm())
    return 0;
#ifndef FS_HAVE_AGENTS
  (void)Argv0;
  return fail("--agent " + AgentKind + ": this fs-rewrite was built without "
              "the LLM agent (libcurl not found)");
#else
  if (Cur.BundleDir.empty())
    return fail("--agent " + AgentKind + " needs --bundle DIR: the model's "
                "candidates are evaluated by fs-tune in that bundle");
  if (Cur.FsTune.empty())
    Cur.FsTune = (sys::path::parent_path(
                      sys::fs::getMainExecutable(Argv0, (void *)&wantsLlm)) +
                  "/fs-tune")
                     .str();
  agents::AgentClientOptions Client;
  Client.Timeout = std::chrono::seconds(LlmTimeout);
  if (LlmMaxTokens > 0)
    Client.MaxTokens = LlmMaxTokens;
  auto Connected = agents::connectFromEnvironment(Client);
  if (!Connected)
    return fail("--agent " + AgentKind + ": " + Connected.error());
  LlmAgentClient = std::move(*Connected);
  // `llm` alone keeps one built-in candidate: the model's one-shot example.
  if (AgentKind == "llm")
    Cur.Budget = 1;
  return 0;
#endif
}

/// Runs the generation loop for every kernel of the bundle; returns the exit
/// code.
static int runLlmAgent() {
#ifndef FS_HAVE_AGENTS
  return 1;
#else
  agents::BundleAgentOptions O;
  O.BundleDir = Cur.BundleDir;
  O.RunDir = LlmRunDir;
  O.FsTune = Cur.FsTune;
  O.FsTuneArgs.assign(LlmFsTuneArgs.begin(), LlmFsTuneArgs.end());
  O.Rounds = LlmRounds;
  if (LlmMaxTokens > 0)
    O.MaxTokens = LlmMaxTokens;
  O.CompileOnly = LlmCompileOnly;
  O.Messages = &std::cerr;
  O.MessagePrefix = "fs-rewrite: llm: ";
  auto Report = agents::runAgentOnBundle(*LlmAgentClient, O);
  if (!Report) {
    WithColor::error(errs(), "fs-rewrite")
        << "llm: " << Report.error() << "\n";
    return 1;
  }
  return Report->allSucceeded() ? 0 : 1;
#endif
}
//===--- End of LLM agent -------------------------------------------------===//

//===--- Patch emission (lib/Rewrite) -------------------------------------===//
// --emit-patch / --stdout: option handling only; the work is
// rewrite::emitPatch. The hook in main() calls runPatchEmission.

static cl::opt<bool>
    EmitPatch("emit-patch",
              cl::desc("Write patches/<app>/NNNN-<slug>.patch that guards the "
                       "rewritten launches with USE_OURS (needs --app)"),
              cl::cat(Category));
static cl::opt<bool> PatchToStdout("stdout",
                                   cl::desc("Print the patch instead of "
                                            "writing a file"),
                                   cl::cat(Category));
static cl::opt<std::string>
    PatchOutputDir("output-dir",
                   cl::desc("Directory for the patch file (default: "
                            "./patches/<app>)"),
                   cl::value_desc("dir"), cl::cat(Category));
static cl::list<std::string>
    RewriteKernels("kernels", cl::CommaSeparated,
                   cl::desc("Kernels to rewrite, a template by its name or "
                            "by instantiation (k<double>) (default: every "
                            "kernel with a launch that can be rewritten)"),
                   cl::value_desc("a,b"), cl::cat(Category));
static cl::list<std::string> RestrictKernels(
    "restrict", cl::CommaSeparated,
    cl::desc("With the forge strategy: kernels that get a copy of their own "
             "body with __restrict__ (and const on what they only read) "
             "instead of a generated variant, run when their pointer "
             "arguments point into distinct allocations; verify it in the "
             "app with USE_OURS=verify"),
    cl::value_desc("a,b"), cl::cat(Category));
static cl::list<std::string> ReblockKernels(
    "reblock", cl::CommaSeparated,
    cl::desc("With the forge strategy: kernels that get a copy of their own "
             "body launched with another block shape covering the same "
             "thread indices: K=XxY[xZ] for that shape, K alone for the "
             "original's (USE_OURS=verify then times every candidate shape "
             "in the app)"),
    cl::value_desc("k[=XxY],..."), cl::cat(Category));
static cl::opt<std::string> ReblockTimes(
    "reblock-times",
    cl::desc("For each --reblock kernel without a shape: the fastest shape "
             "of this fs-harness run record's USE_OURS=verify times, if it "
             "beats the original by --reblock-min-gain; otherwise the kernel "
             "keeps its original launches"),
    cl::value_desc("runs.json"), cl::cat(Category));
static cl::opt<double> ReblockMinGain(
    "reblock-min-gain",
    cl::desc("With --reblock-times: the least gain a shape must show "
             "(default 0.01: 1%)"),
    cl::init(0.01), cl::cat(Category));
static cl::opt<std::string>
    RewriteStrategy("strategy",
                    cl::desc("How replacement kernels are made: forge (a "
                             "generated variant for sm_90 from the Stencil IR, "
                             "the reference elsewhere) or reference (a renamed "
                             "copy of the original; no speed-up)"),
                    cl::init("forge"), cl::cat(Category));
static cl::opt<std::string>
    KnowledgePath("knowledge",
                  cl::desc("Operator matrix the forge strategy reads (default: "
                           "the project's knowledge/operator-matrix.json)"),
                  cl::value_desc("json"), cl::cat(Category));

static std::string knowledgeFile(raw_ostream &Log) {
  static std::optional<std::string> Chosen;
  if (Chosen)
    return *Chosen;
  forge::KnowledgeLocation L = forge::locateKnowledge(
      KnowledgePath, sys::fs::getMainExecutable("fs-rewrite",
                                                (void *)&knowledgeFile));
  Chosen = "";
  if (L.Path.empty()) {
    Log << "fs-rewrite: note: no knowledge base found (looked at";
    for (const std::string &T : L.Tried)
      Log << " " << T;
    Log << "); using the documented default strategies (set FS_KNOWLEDGE "
           "or give --knowledge)\n";
  } else if (!sys::fs::exists(L.Path)) {
    Log << "fs-rewrite: note: no knowledge base at " << L.Path << " ("
        << L.How << "); using the documented default strategies\n";
  } else {
    Log << "fs-rewrite: knowledge: " << L.Path << " (" << L.How << ")\n";
    Chosen = L.Path;
  }
  return *Chosen;
}

static bool wantsPatch() { return EmitPatch || PatchToStdout; }

// --cpu-check auto|always|never: a variant no GPU verified on this app is
// patched only after the CPU emulation (forge::cpuCheck) verified it.
static cl::opt<std::string> CpuCheckMode(
    "cpu-check",
    cl::desc("Check variants on the CPU (utils/cpu-emulate.py: the "
             "original and the variant on bounds-checked arrays) before "
             "patching them: auto (default; the variants no GPU verified "
             "on this app), always (fs-tune's winners too) or never (patch "
             "unchecked best known strategies)"),
    cl::init("auto"), cl::cat(Category));
static cl::opt<std::string>
    CpuEmulatorPath("cpu-emulator",
                    cl::desc("The CPU emulator (default: the installed or "
                             "source tree's utils/cpu-emulate.py; "
                             "FS_CPU_EMULATOR)"),
                    cl::value_desc("path"), cl::cat(Category));
static cl::opt<std::string>
    CpuCheckDir("cpu-check-dir",
                cl::desc("Keep each CPU check's sources and build in "
                         "<dir>/<kernel> (default: a temporary directory, "
                         "removed)"),
                cl::value_desc("dir"), cl::cat(Category));

/// The variant choice (lib/Knowledge) with this command line's options.
static Expected<std::map<std::string, rewrite::KernelVariant>>
chooseVariants(const analysis::Inventory &Inv, raw_ostream &Log) {
  knowledge::VariantChoiceOptions O;
  O.TuningResults = Cur.TuningResults;
  O.KnowledgeFile = knowledgeFile(Log);
  O.Arch = BundleArch;
  O.CpuCheck = *knowledge::parseCpuCheckMode(CpuCheckMode);
  forge::EmulatorLocation Where = forge::locateCpuEmulator(
      CpuEmulatorPath,
      sys::fs::getMainExecutable("fs-rewrite", (void *)&chooseVariants));
  O.CpuEmulator = Where.Path;
  O.CpuEmulatorHow = Where.How;
  O.CpuEmulatorTried = Where.Tried;
  O.CpuCheckDir = CpuCheckDir;
  O.Kernels.assign(RewriteKernels.begin(), RewriteKernels.end());
  return knowledge::chooseVariants(Inv, O, Log);
}

/// --reblock-times: the shape of each --reblock kernel given without one,
/// from the in-app times of a verify run; 0 or the exit code.
static int chooseReblockShapes(
    std::map<std::string, std::optional<std::array<unsigned, 3>>> &Reblock) {
  if (ReblockTimes.empty())
    return 0;
  std::vector<std::string> Open;
  for (const auto &[Name, Shape] : Reblock)
    if (!Shape)
      Open.push_back(Name);
  auto Text = MemoryBuffer::getFile(ReblockTimes);
  if (!Text)
    return fail(ReblockTimes + ": " + Text.getError().message());
  auto Choices = knowledge::chooseBlockShapes((*Text)->getBuffer(), Open,
                                              ReblockMinGain);
  if (!Choices)
    return fail(ReblockTimes + ": " + toString(Choices.takeError()));
  for (const knowledge::ShapeChoice &C : *Choices) {
    std::string Times = formatv("{0:F4} ms against the original's {1:F4} ms, "
                                "{2} shape(s) measured",
                                C.CopyMs, C.OriginalMs, C.Measured)
                            .str();
    if (C.Block) {
      errs() << "fs-rewrite: " << C.Kernel << ": block " << (*C.Block)[0]
             << "x" << (*C.Block)[1] << "x" << (*C.Block)[2] << " from "
             << ReblockTimes << " (" << Times << ")\n";
      Reblock[C.Kernel] = C.Block;
    } else {
      errs() << "fs-rewrite: " << C.Kernel
             << ": keeps its original launches: no block shape in "
             << ReblockTimes << " gains "
             << formatv("{0}", ReblockMinGain * 100).str() << "% (best "
             << Times << ")\n";
      Reblock.erase(C.Kernel);
    }
  }
  return 0;
}

/// Runs --emit-patch/--stdout; returns the exit code.
static int runPatchEmission(const driver::CudaCompilationDatabase &DB,
                            const analysis::Inventory &Inv) {
  if (!PatchToStdout && AppName.empty())
    return usageError("--emit-patch needs --app NAME (or use --stdout)");
  Expected<rewrite::Strategy> Strat = rewrite::parseStrategy(RewriteStrategy);
  if (!Strat)
    return usageError(toString(Strat.takeError()));
  if ((!RestrictKernels.empty() || !ReblockKernels.empty()) &&
      *Strat != rewrite::Strategy::Forge)
    return usageError("--restrict and --reblock need --strategy forge");
  rewrite::EmitOptions Opts;
  SmallString<256> Root(SourceRoot.empty() ? commonDirectory(DB.cudaFiles())
                                           : SourceRoot.getValue());
  sys::fs::make_absolute(Root);
  sys::fs::real_path(Root, Root);
  Opts.Rewrite.SourceRoot = std::string(Root);
  Opts.Rewrite.Kernels.assign(RewriteKernels.begin(), RewriteKernels.end());
  Opts.Rewrite.Strat = *Strat;
  if (*Strat == rewrite::Strategy::Forge) {
    auto Variants = chooseVariants(Inv, errs());
    if (!Variants)
      return fail(toString(Variants.takeError()));
    Opts.Rewrite.Variants = std::move(*Variants);
    Opts.Rewrite.RestrictKernels.assign(RestrictKernels.begin(),
                                        RestrictKernels.end());
    for (StringRef Item : ReblockKernels) {
      auto [Name, Shape] = Item.split('=');
      std::optional<std::array<unsigned, 3>> Block;
      if (!Shape.empty() && !(Block = rewrite::parseBlockShape(Shape)))
        return usageError("--reblock " + Item.str() +
                          ": the shape must be XxY or XxYxZ, at most 1024 "
                          "threads");
      Opts.Rewrite.ReblockKernels[Name.str()] = Block;
    }
    if (int RC = chooseReblockShapes(Opts.Rewrite.ReblockKernels))
      return RC;
    if (!ReblockKernels.empty() && Opts.Rewrite.ReblockKernels.empty() &&
        RestrictKernels.empty() && RewriteKernels.empty())
      return fail("no block shape in " + ReblockTimes +
                  " is faster for any --reblock kernel: nothing to patch");
    StringRef Arch = BundleArch;
    if (!Arch.consume_front("sm_") ||
        Arch.getAsInteger(10, Opts.Rewrite.BodyComputeCapability))
      return usageError("--bundle-arch must be sm_<NN>, not '" + BundleArch +
                        "'");
    // A kernel asked for a body copy is rewritten whatever else is.
    std::vector<std::string> BodyKernels(RestrictKernels.begin(),
                                         RestrictKernels.end());
    for (const auto &[Name, Shape] : Opts.Rewrite.ReblockKernels)
      BodyKernels.push_back(Name);
    // Routing a kernel through a launcher that can only run the reference
    // copy gains nothing: by default the forge rewrites the kernels it has a
    // variant for.
    if (Opts.Rewrite.Kernels.empty()) {
      for (const auto &[Name, V] : Opts.Rewrite.Variants)
        Opts.Rewrite.Kernels.push_back(Name);
    }
    if (Opts.Rewrite.Kernels.empty() && BodyKernels.empty()) {
      if (!Cur.TuningResults.empty())
        return fail("fs-tune found no verified candidate faster than the "
                   "original for any kernel: nothing to patch");
      bool AnyStencil = false;
      for (const auto &[Name, A] : Inv.analyses())
        AnyStencil |= A.Result == analysis::KernelAnalysis::Stencil && A.IR;
      if (AnyStencil)
        return fail("every stencil kernel keeps its original launch (the "
                    "reasons are above): nothing to patch");
      return fail("no kernel was analysed as a stencil, so the forge has "
                  "nothing to rewrite (see --list for the reasons)");
    }
    for (const std::string &Name : BodyKernels)
      if (!is_contained(Opts.Rewrite.Kernels, Name))
        Opts.Rewrite.Kernels.push_back(Name);
  }
  Opts.Rewrite.ToolVersion = FORGESTENCIL_VERSION;
  Opts.ToStream = PatchToStdout;
  SmallString<256> OutDir(PatchOutputDir.getValue());
  if (OutDir.empty())
    sys::path::append(OutDir, "patches", AppName.getValue());
  sys::fs::make_absolute(OutDir);
  Opts.OutputDirectory = std::string(OutDir);
  if (Error E = rewrite::emitPatch(DB, Opts, outs(), errs()))
    return fail(toString(std::move(E)));
  return 0;
}
//===--- End of patch emission --------------------------------------------===//

//===--- One-command tuning on a GPU host ---------------------------------===//
// --tune auto|always|never: with a GPU here, patch emission first writes a
// bundle, runs fs-tune on it (a child process) and patches its verified
// winners, as if --tuning-results had been given.

static cl::opt<std::string> TuneMode(
    "tune",
    cl::desc("With --emit-patch/--stdout and the forge strategy: auto "
             "(default; when a GPU is here, write a bundle, run fs-tune on it "
             "and patch its verified winners), always (also when no GPU is "
             "detected) or never (patch the best known strategies)"),
    cl::init("auto"), cl::cat(Category));
static cl::list<std::string>
    TuneArgs("tune-arg",
             cl::desc("An extra argument for fs-tune under --tune (e.g. "
                      "--budget=8)"),
             cl::value_desc("arg"), cl::cat(Category));

static bool TuneBeforePatching = false;

/// True when nvidia-smi reports a GPU.
static bool gpuHere() {
  return harness::queryGpu("").Name != harness::UnknownValue;
}

/// fs-tune's path: --fs-tune, else the one beside this fs-rewrite.
static std::string fsTuneBeside(const char *Argv0) {
  if (!Cur.FsTune.empty())
    return Cur.FsTune;
  return (sys::path::parent_path(
              sys::fs::getMainExecutable(Argv0, (void *)&gpuHere)) +
          "/fs-tune")
      .str();
}

/// Decides --tune before any analysis; returns the exit code (0 to go on).
static int startTuning(const char *Argv0) {
  if (TuneMode != "auto" && TuneMode != "always" && TuneMode != "never")
    return usageError("--tune must be auto, always or never, not '" + TuneMode +
                "'");
  if (!knowledge::parseCpuCheckMode(CpuCheckMode))
    return usageError("--cpu-check must be auto, always or never, not '" +
                      CpuCheckMode + "'");
  if (!wantsPatch() || RewriteStrategy != "forge" || !Cur.TuningResults.empty() ||
      TuneMode == "never")
    return 0;
  if (TuneMode == "auto" && !gpuHere()) {
    errs() << "fs-rewrite: no GPU here: patching the best known strategies "
           << (CpuCheckMode == "never" ? "unchecked"
                                       : "that pass the CPU check")
           << " (with a GPU, fs-rewrite tunes on this app first; elsewhere, "
              "--bundle + fs-tune + --tuning-results)\n";
    return 0;
  }
  Cur.FsTune = fsTuneBeside(Argv0);
  if (!sys::fs::can_execute(Cur.FsTune))
    return fail("--tune " + TuneMode + ": no fs-tune at '" + Cur.FsTune +
                "' (give --fs-tune PATH, or --tune never)");
  TuneBeforePatching = true;
  return 0;
}

/// Writes the bundle (--bundle, or a new directory under the system's
/// temporary directory), runs fs-tune on it and points --tuning-results at
/// what it measured. Returns the exit code.
static int tuneForPatch(const driver::CudaCompilationDatabase &DB,
                        const analysis::Inventory &Inv, StringRef Root) {
  if (Cur.BundleDir.empty()) {
    SmallString<256> Dir;
    if (std::error_code EC = sys::fs::createUniqueDirectory(
            "fs-tune-" + AppName.getValue(), Dir))
      return fail("cannot create a bundle directory: " + EC.message());
    Cur.BundleDir = std::string(Dir);
  }
  if (int RC = runBundle(DB, Inv, Root, /*Announce=*/false))
    return RC;
  std::string Results = Cur.BundleDir + "/results.json";
  std::vector<std::string> Argv = {Cur.FsTune, Cur.BundleDir, "--out", Results};
  Argv.insert(Argv.end(), TuneArgs.begin(), TuneArgs.end());
  std::vector<StringRef> Args(Argv.begin(), Argv.end());
  errs() << "fs-rewrite: tuning:";
  for (const std::string &A : Argv)
    errs() << " " << A;
  errs() << "\n";
  std::string Why;
  int Exit = sys::ExecuteAndWait(Cur.FsTune, Args, std::nullopt, {}, 0, 0,
                                 &Why);
  if (Exit != 0)
    return fail("fs-tune " +
                (Exit < 0 ? "did not run: " + Why
                          : "failed (exit " + std::to_string(Exit) + ")") +
                "; the bundle is in " + Cur.BundleDir + "; nothing was patched");
  Cur.TuningResults = Results;
  errs() << "fs-rewrite: tuning: results in " << Results << "\n";
  return 0;
}
//===--- End of one-command tuning ----------------------------------------===//

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "fs-rewrite (ForgeStencil) " << FORGESTENCIL_VERSION << "\n";
  });
  if (!cl::ParseCommandLineOptions(argc, argv, Overview, &errs()))
    return ExitUsage;
  Cur.BundleDir = BundleDir;
  Cur.TuningResults = TuningResults;
  Cur.FsTune = FsTunePath;
  Cur.Budget = BundleBudget;
  if (int RC = startLlmAgent(argv[0])) // LLM agent (lib/Agents).
    return RC;
  if (int RC = startTuning(argv[0])) // One-command tuning.
    return RC;
  driver::DatabaseOptions Opts;
  Opts.CudaPath = CudaPath;
  Opts.ResourceDir = ResourceDir;
  Opts.ExtraArgs.assign(ExtraArgs.begin(), ExtraArgs.end());
  Opts.StrictIncludes = StrictIncludes;
  auto DB = driver::CudaCompilationDatabase::load(DatabasePath, Opts);
  if (!DB)
    return usageError(toString(DB.takeError()));
  bool DatabaseProblems = false;
  for (const driver::EntryProblem &P : (*DB)->problems()) {
    fail(P.File + ": " + P.Message);
    DatabaseProblems = true;
  }
  if (Verbose) {
    for (const driver::EntryProblem &S : (*DB)->skipped())
      errs() << "fs-rewrite: note: skipped " << S.File << ": " << S.Message
             << "\n";
    for (const std::string &F : (*DB)->cudaFiles())
      for (const std::string &N : (*DB)->unit(F)->Job.Notes)
        errs() << "fs-rewrite: note: " << F << ": " << N << "\n";
  }
  if ((*DB)->cudaFiles().empty())
    return usageError((*DB)->path() +
                      ": no CUDA translation units in the database");
  analysis::Inventory Inv;
  auto Results = driver::runFrontend(
      **DB, {},
      [&](clang::CompilerInstance &CI, const driver::TranslationUnit &TU,
          driver::CudaSide Side) { return Inv.makeConsumer(CI, TU, Side); });
  driver::reportParses(errs(), Results, Verbose);
  // The exit code when every requested step succeeds.
  int Outcome = DatabaseProblems ? ExitUsage
                : driver::anyFailed(driver::summarizeUnits(Results))
                    ? ExitNotAnalysed
                    : ExitAnalysed;

  std::string Root = SourceRoot.empty() ? commonDirectory((*DB)->cudaFiles())
                                        : SourceRoot.getValue();
  if (!SourceRoot.empty()) {
    SmallString<256> R(Root);
    sys::fs::make_absolute(R);
    sys::fs::real_path(R, R);
    Root = std::string(R);
  }
  if (wantsPatch()) { // Patch emission (lib/Rewrite).
    if (TuneBeforePatching)
      if (int RC = tuneForPatch(**DB, Inv, Root))
        return RC;
    int RC = runPatchEmission(**DB, Inv);
    return RC ? RC : Outcome;
  }
  if (!Cur.BundleDir.empty()) { // Tuning bundle (lib/Forge), LLM agent.
    int RC = runBundle(**DB, Inv, Root);
    return RC || !wantsLlm() ? RC : runLlmAgent();
  }
  if (!Cur.TuningResults.empty()) { // Winners of a tuning run (lib/Forge).
    auto Winners = knowledge::loadWinners(Cur.TuningResults, errs());
    if (!Winners)
      return fail(toString(Winners.takeError()));
    return 0;
  }
  std::optional<analysis::KernelProfile> Profile;
  if (!ProfilePath.empty()) {
    auto Buf = MemoryBuffer::getFile(ProfilePath);
    if (!Buf)
      return fail("cannot read '" + ProfilePath +
                  "': " + Buf.getError().message());
    auto P = analysis::parseKernelProfileCsv((*Buf)->getBuffer(), ProfilePath);
    if (!P)
      return fail(toString(P.takeError()));
    Profile = std::move(*P);
  }
  auto Rows = analysis::rankHotspots(Inv, Profile ? &*Profile : nullptr);

  if (!DumpIR.empty()) {
    json::Value V = analysis::analysesJson(Inv, Root);
    if (DumpIR == "-") {
      outs() << formatv("{0:2}", V) << "\n";
    } else {
      std::error_code EC;
      raw_fd_ostream OS(DumpIR, EC);
      if (EC)
        return fail("cannot write '" + DumpIR + "': " + EC.message());
      OS << formatv("{0:2}", V) << "\n";
    }
  }
  if (List || DumpIR.empty()) {
    if (Json) {
      json::Object Out = analysis::listJson(Inv, Rows, Results, Root);
      Out["tool_version"] = FORGESTENCIL_VERSION;
      Out["app"] = AppName.getValue();
      outs() << formatv("{0:2}", json::Value(std::move(Out))) << "\n";
    } else {
      analysis::printListText(outs(), Inv, Rows, Root);
      analysis::printTranslationUnits(outs(), Results, Root);
    }
  }
  return Outcome;
}

//===- Session.cpp - fs-rewrite's checks, knowledge and tuning step -------===//
///
/// \file
/// The option checks made before any analysis, the knowledge base's
/// location, and the one-command tuning on a GPU host: write a bundle, run
/// fs-tune on it and patch its verified winners as if --tuning-results had
/// been given.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Pipeline/Session.h"

#include "forgestencil/Forge/OperatorMatrix.h"
#include "forgestencil/Knowledge/VariantChoice.h"
#include "forgestencil/Support/HostInfo.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace forgestencil {
namespace pipeline {

int Session::fail(const Twine &Msg) {
  WithColor::error(Err, "fs-rewrite") << Msg << "\n";
  return ExitNotAnalysed;
}

int Session::usageError(const Twine &Msg) {
  fail(Msg);
  return ExitUsage;
}

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

/// True when nvidia-smi reports a GPU.
bool gpuHere() { return support::queryGpu("").Name != support::UnknownValue; }

} // namespace

std::string Options::besideThisProgram(const std::string &Name) const {
  return (sys::path::parent_path(MainExecutable) + "/" + Name).str();
}

std::string
Session::sourceRoot(const driver::CudaCompilationDatabase &DB) const {
  if (O.SourceRoot.empty())
    return commonDirectory(DB.cudaFiles());
  SmallString<256> R(O.SourceRoot);
  sys::fs::make_absolute(R);
  sys::fs::real_path(R, R);
  return std::string(R);
}

std::string Session::knowledgeFile() {
  if (Knowledge)
    return *Knowledge;
  forge::KnowledgeLocation L =
      forge::locateKnowledge(O.KnowledgePath, O.MainExecutable);
  Knowledge = "";
  if (L.Path.empty()) {
    Err << "fs-rewrite: note: no knowledge base found (looked at";
    for (const std::string &T : L.Tried)
      Err << " " << T;
    Err << "); using the documented default strategies (set FS_KNOWLEDGE "
           "or give --knowledge)\n";
  } else if (!sys::fs::exists(L.Path)) {
    Err << "fs-rewrite: note: no knowledge base at " << L.Path << " (" << L.How
        << "); using the documented default strategies\n";
  } else {
    Err << "fs-rewrite: knowledge: " << L.Path << " (" << L.How << ")\n";
    Knowledge = L.Path;
  }
  return *Knowledge;
}

int Session::start() {
  if (O.Tune != "auto" && O.Tune != "always" && O.Tune != "never")
    return usageError("--tune must be auto, always or never, not '" + O.Tune +
                      "'");
  if (!knowledge::parseCpuCheckMode(O.CpuCheck))
    return usageError("--cpu-check must be auto, always or never, not '" +
                      O.CpuCheck + "'");
  // --in-app kernels are tuned in the app itself (USE_OURS=verify).
  if (!O.wantsPatch() || O.Strategy != "forge" || !O.TuningResults.empty() ||
      O.Tune == "never" || !O.InAppKernels.empty())
    return 0;
  if (O.Tune == "auto" && !gpuHere()) {
    Err << "fs-rewrite: no GPU here: patching the best known strategies "
        << (O.CpuCheck == "never" ? "unchecked" : "that pass the CPU check")
        << " (with a GPU, fs-rewrite tunes on this app first; elsewhere, "
           "--bundle + fs-tune + --tuning-results)\n";
    return 0;
  }
  if (O.FsTune.empty())
    O.FsTune = O.besideThisProgram("fs-tune");
  if (!sys::fs::can_execute(O.FsTune))
    return fail("--tune " + O.Tune + ": no fs-tune at '" + O.FsTune +
                "' (give --fs-tune PATH, or --tune never)");
  TuneFirst = true;
  return 0;
}

int Session::tune(const driver::CudaCompilationDatabase &DB,
                  const AppFacts &App) {
  if (O.BundleDir.empty()) {
    SmallString<256> Dir;
    if (std::error_code EC =
            sys::fs::createUniqueDirectory("fs-tune-" + O.AppName, Dir))
      return fail("cannot create a bundle directory: " + EC.message());
    O.BundleDir = std::string(Dir);
  }
  if (int RC = writeBundle(DB, App, /*Announce=*/false))
    return RC;
  std::string Results = O.BundleDir + "/results.json";
  std::vector<std::string> Argv = {O.FsTune, O.BundleDir, "--out", Results};
  Argv.insert(Argv.end(), O.TuneArgs.begin(), O.TuneArgs.end());
  std::vector<StringRef> Args(Argv.begin(), Argv.end());
  Err << "fs-rewrite: tuning:";
  for (const std::string &A : Argv)
    Err << " " << A;
  Err << "\n";
  std::string Why;
  int Exit = sys::ExecuteAndWait(O.FsTune, Args, std::nullopt, {}, 0, 0, &Why);
  if (Exit != 0)
    return fail("fs-tune " +
                (Exit < 0 ? "did not run: " + Why
                          : "failed (exit " + std::to_string(Exit) + ")") +
                "; the bundle is in " + O.BundleDir + "; nothing was patched");
  O.TuningResults = Results;
  Err << "fs-rewrite: tuning: results in " << Results << "\n";
  return 0;
}

int Session::emitPatch(const driver::CudaCompilationDatabase &DB,
                       const AppFacts &App) {
  if (TuneFirst)
    if (int RC = tune(DB, App))
      return RC;
  return writePatch(DB, App);
}

int Session::readTuningResults() {
  auto Winners = knowledge::loadWinners(O.TuningResults, Err);
  if (!Winners)
    return fail(toString(Winners.takeError()));
  return 0;
}

} // namespace pipeline
} // namespace forgestencil

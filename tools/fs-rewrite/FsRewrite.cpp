//===- FsRewrite.cpp - The fs-rewrite command-line tool -------------------===//
///
/// \file
/// fs-rewrite reads an app's compile_commands.json, parses its CUDA sources
/// (host and device side), analyses their kernels and launch sites, and
/// then lists them (--list, --dump-ir), writes a tuning bundle (--bundle)
/// or emits the integration patch (--emit-patch, --stdout). The options are
/// parsed in Options.cpp; the steps after the analysis are lib/Pipeline's.
///
//===----------------------------------------------------------------------===//

#include "LlmAgent.h"
#include "Options.h"

#include "forgestencil/Analysis/Hotspots.h"
#include "forgestencil/Analysis/Inventory.h"
#include "forgestencil/Analysis/Report.h"
#include "forgestencil/Driver/CompilationDatabase.h"
#include "forgestencil/Driver/FrontendRunner.h"
#include "forgestencil/Driver/ParseStatus.h"
#include "forgestencil/Pipeline/AppFacts.h"
#include "forgestencil/Pipeline/Session.h"
#include "forgestencil/Version.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace forgestencil;
using pipeline::ExitAnalysed;
using pipeline::ExitNotAnalysed;
using pipeline::ExitUsage;

/// --list, --dump-ir and --profile: the analysis as text or JSON.
static int report(const fsrewrite::ToolOptions &T, pipeline::Session &S,
                  const analysis::Inventory &Inv,
                  const std::vector<driver::ParseResult> &Results,
                  StringRef Root, int Outcome) {
  std::optional<analysis::KernelProfile> Profile;
  if (!T.ProfilePath.empty()) {
    auto Buf = MemoryBuffer::getFile(T.ProfilePath);
    if (!Buf)
      return S.fail("cannot read '" + T.ProfilePath +
                    "': " + Buf.getError().message());
    auto P =
        analysis::parseKernelProfileCsv((*Buf)->getBuffer(), T.ProfilePath);
    if (!P)
      return S.fail(toString(P.takeError()));
    Profile = std::move(*P);
  }
  auto Rows = analysis::rankHotspots(Inv, Profile ? &*Profile : nullptr);
  if (!T.DumpIR.empty()) {
    json::Value V = analysis::analysesJson(Inv, Root);
    if (T.DumpIR == "-") {
      outs() << formatv("{0:2}", V) << "\n";
    } else {
      std::error_code EC;
      raw_fd_ostream OS(T.DumpIR, EC);
      if (EC)
        return S.fail("cannot write '" + T.DumpIR + "': " + EC.message());
      OS << formatv("{0:2}", V) << "\n";
    }
  }
  if (T.List || T.DumpIR.empty()) {
    if (T.Json) {
      json::Object Out = analysis::listJson(Inv, Rows, Results, Root);
      Out["tool_version"] = FORGESTENCIL_VERSION;
      Out["app"] = S.options().AppName;
      outs() << formatv("{0:2}", json::Value(std::move(Out))) << "\n";
    } else {
      analysis::printListText(outs(), Inv, Rows, Root);
      analysis::printTranslationUnits(outs(), Results, Root);
    }
  }
  return Outcome;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  fsrewrite::ToolOptions T;
  pipeline::Options Steps;
  fsrewrite::LlmOptions Llm;
  if (!fsrewrite::parseCommandLine(argc, argv, T, Steps, Llm))
    return ExitUsage;
  pipeline::Session S(std::move(Steps), outs(), errs());
  if (int RC = fsrewrite::startLlmAgent(Llm, S))
    return RC;
  if (int RC = S.start()) // --tune, --cpu-check.
    return RC;

  driver::DatabaseOptions Opts;
  Opts.CudaPath = T.CudaPath;
  Opts.ResourceDir = T.ResourceDir;
  Opts.ExtraArgs = T.ExtraArgs;
  Opts.StrictIncludes = T.StrictIncludes;
  auto DB = driver::CudaCompilationDatabase::load(T.DatabasePath, Opts);
  if (!DB)
    return S.usageError(toString(DB.takeError()));
  bool DatabaseProblems = false;
  for (const driver::EntryProblem &P : (*DB)->problems()) {
    S.fail(P.File + ": " + P.Message);
    DatabaseProblems = true;
  }
  if (T.Verbose) {
    for (const driver::EntryProblem &Skipped : (*DB)->skipped())
      errs() << "fs-rewrite: note: skipped " << Skipped.File << ": "
             << Skipped.Message << "\n";
    for (const std::string &F : (*DB)->cudaFiles())
      for (const std::string &N : (*DB)->unit(F)->Job.Notes)
        errs() << "fs-rewrite: note: " << F << ": " << N << "\n";
  }
  if ((*DB)->cudaFiles().empty())
    return S.usageError((*DB)->path() +
                        ": no CUDA translation units in the database");
  std::unique_ptr<pipeline::AppFacts> App = pipeline::AppFacts::parse(**DB);
  const analysis::Inventory &Inv = App->Inventory;
  const std::vector<driver::ParseResult> &Results = App->Parses;
  driver::reportParses(errs(), Results, T.Verbose);
  // The exit code when every requested step succeeds.
  int Outcome = DatabaseProblems ? ExitUsage
                : driver::anyFailed(driver::summarizeUnits(Results))
                    ? ExitNotAnalysed
                    : ExitAnalysed;

  if (S.options().wantsPatch()) { // Patch emission (lib/Rewrite).
    int RC = S.emitPatch(**DB, *App);
    return RC ? RC : Outcome;
  }
  if (!S.options().BundleDir.empty()) { // Tuning bundle, LLM agent.
    int RC = S.writeBundle(**DB, *App);
    return RC || !Llm.wanted() ? RC : fsrewrite::runLlmAgent(Llm, S);
  }
  if (!S.options().TuningResults.empty()) // Winners of a tuning run.
    return S.readTuningResults();
  return report(T, S, Inv, Results, S.sourceRoot(**DB), Outcome);
}

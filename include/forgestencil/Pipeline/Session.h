//===- Session.h - fs-rewrite's steps on an analysed app --------*- C++ -*-===//
///
/// \file
/// What fs-rewrite does after the front end has analysed an application:
/// write a tuning bundle (--bundle), tune on a GPU host (--tune: bundle,
/// then fs-tune as a child process), and emit the integration patch
/// (--emit-patch/--stdout) with the variants lib/Knowledge chooses. The
/// tool parses its options into a pipeline::Options and calls these steps;
/// the steps never read a command-line option themselves.
///
/// Every step says what it does on the error stream ("fs-rewrite: ...") and
/// returns the tool's exit code: 0 when it succeeded, 1 when it failed
/// (fs-rewrite: error: and the reason), 2 for a usage error.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_PIPELINE_SESSION_H
#define FORGESTENCIL_PIPELINE_SESSION_H

#include "forgestencil/Pipeline/AppFacts.h"
#include "forgestencil/Driver/CompilationDatabase.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace pipeline {

/// Exit codes (fs-rewrite's overview and the README say the same).
enum ExitCode {
  ExitAnalysed = 0,    ///< Every TU analysed (stand-ins reported).
  ExitNotAnalysed = 1, ///< Some kernel or launch was not, or a step failed.
  ExitUsage = 2,       ///< Bad options or a bad compile database.
};

/// The values the steps work with: fs-rewrite's options, and what the run
/// decides itself (a bundle directory it creates to tune in, the results
/// fs-tune writes there, the budget of an LLM run).
struct Options {
  /// This program's path: the knowledge base, the CPU emulator and fs-tune
  /// are looked for beside its install prefix.
  std::string MainExecutable;
  std::string AppName;
  /// Paths are said relative to it; empty: the units' common directory.
  std::string SourceRoot;

  /// --bundle, --bundle-budget, --bundle-arch (sm_<NN>; fs-rewrite's
  /// default is the one place an architecture is named), --knowledge.
  std::string BundleDir;
  unsigned Budget = 6;
  std::string Arch;
  std::string KnowledgePath;
  /// --tuning-results; --fs-tune (empty: beside this program).
  std::string TuningResults, FsTune;

  /// --emit-patch, --stdout, --output-dir, --strategy, --kernels.
  bool EmitPatch = false, ToStdout = false;
  std::string OutputDir, Strategy = "forge";
  std::vector<std::string> Kernels;
  /// --restrict, --reblock (k or k=XxY[xZ]), --reblock-times,
  /// --reblock-min-gain.
  std::vector<std::string> RestrictKernels, ReblockKernels;
  /// --register-cap: K or K=N (registers a thread), each also --reblock.
  std::vector<std::string> RegisterCapKernels;
  /// --coarsen: K or K=yN / K=zN (points a thread), each also --reblock.
  std::vector<std::string> CoarsenKernels;
  std::string ReblockTimes;
  double ReblockMinGain = 0.01;
  /// --in-app, --in-app-times, --in-app-min-gain.
  std::vector<std::string> InAppKernels;
  std::string InAppTimes;
  double InAppMinGain = 0.02;
  /// --cpu-check auto|always|never, --cpu-emulator, --cpu-check-dir.
  std::string CpuCheck = "auto", CpuEmulator, CpuCheckDir;
  /// --tune auto|always|never, --tune-arg.
  std::string Tune = "auto";
  std::vector<std::string> TuneArgs;

  bool wantsPatch() const { return EmitPatch || ToStdout; }
  /// The program \p Name in the directory of this one (fs-tune's default).
  std::string besideThisProgram(const std::string &Name) const;
};

/// One fs-rewrite run's steps over one analysed application.
class Session {
public:
  Session(Options O, llvm::raw_ostream &Out, llvm::raw_ostream &Err)
      : O(std::move(O)), Out(Out), Err(Err) {}

  Options &options() { return O; }
  const Options &options() const { return O; }

  /// Checks --tune and --cpu-check before any analysis and decides whether
  /// patch emission tunes first (a GPU here, or --tune always). The exit
  /// code; 0 to go on.
  int start();

  /// The directory paths are said relative to: --source-root made absolute
  /// and real, else the units' common directory.
  std::string sourceRoot(const driver::CudaCompilationDatabase &DB) const;

  /// --bundle: writes the tuning bundle of every rewritable stencil kernel
  /// to options().BundleDir, says how many candidates have a driver, and
  /// prints the directory on the output stream when \p Announce.
  int writeBundle(const driver::CudaCompilationDatabase &DB,
                  const AppFacts &App, bool Announce = true);

  /// --emit-patch / --stdout: tunes first when start() decided so, then
  /// writes the patch.
  int emitPatch(const driver::CudaCompilationDatabase &DB,
                const AppFacts &App);

  /// --tuning-results alone: reads the winners and says them.
  int readTuningResults();

  /// Says "fs-rewrite: error: Msg"; returns ExitNotAnalysed.
  int fail(const llvm::Twine &Msg);
  /// fail() for a usage error; returns ExitUsage.
  int usageError(const llvm::Twine &Msg);

private:
  int tune(const driver::CudaCompilationDatabase &DB, const AppFacts &App);
  int writePatch(const driver::CudaCompilationDatabase &DB,
                 const AppFacts &App);
  /// The operator matrix to read, said once; empty when there is none.
  std::string knowledgeFile();

  Options O;
  llvm::raw_ostream &Out, &Err;
  std::optional<std::string> Knowledge;
  bool TuneFirst = false;
};

} // namespace pipeline
} // namespace forgestencil

#endif

//===- FsTune.cpp - Build, verify and time a tuning bundle -----------------===//
///
/// \file
/// fs-tune runs the tuning bundle fs-rewrite wrote: it compiles every
/// candidate's driver, screens external candidate code, checks memory
/// accesses, verifies each candidate against the app's original kernel on
/// fresh random inputs and sizes, times both interleaved, and writes the
/// results as JSON for `fs-rewrite --tuning-results`.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/CandidateScreen.h"
#include "forgestencil/Forge/Bundle.h"
#include "forgestencil/Forge/BundleTune.h"
#include "forgestencil/Forge/OperatorMatrix.h"
#include "forgestencil/Version.h"

#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>

using namespace forgestencil;

namespace {

/// The static screen from lib/Agents: a refusal's findings, or "".
std::string screen(const std::string &Code, const std::string &ElementType) {
  agents::ScreenOptions Opts;
  Opts.ElementType = ElementType;
  auto Findings = agents::screenCandidate(Code, Opts);
  if (!agents::screenRefuses(Findings))
    return "";
  std::string Text;
  for (const agents::ScreenFinding &F : Findings)
    if (F.Severity == agents::ScreenSeverity::Refuse)
      Text += (Text.empty() ? "" : "; ") + std::string("line ") +
              std::to_string(F.Line) + ": " +
              agents::screenCategoryName(F.Category) + ": " + F.Token;
  return Text;
}

int addCandidates(const std::string &Bundle,
                  const std::vector<std::string> &Specs) {
  for (const std::string &Spec : Specs) {
    // KERNEL=FILE:LAUNCHER
    size_t Eq = Spec.find('='), Colon = Spec.rfind(':');
    if (Eq == std::string::npos || Colon == std::string::npos || Colon < Eq) {
      std::cerr << "fs-tune: error: --add-candidate wants KERNEL=FILE:LAUNCHER, "
                   "got '" << Spec << "'\n";
      return 1;
    }
    std::string Error;
    if (!forge::addExternalCandidate(Bundle, Spec.substr(0, Eq),
                                     Spec.substr(Eq + 1, Colon - Eq - 1),
                                     Spec.substr(Colon + 1), Error)) {
      std::cerr << "fs-tune: error: " << Error << "\n";
      return 1;
    }
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App App{"fs-tune: build, verify and time the candidates of a tuning "
               "bundle against the app's original kernels"};
  std::string Bundle, OutPath;
  forge::TuneOptions Opts;
  std::vector<std::string> Add;
  bool NoScreen = false, NoMemcheck = false, AddOnly = false;
  App.add_option("bundle", Bundle, "The bundle directory (fs-rewrite --bundle)")
      ->required();
  App.add_option("--arch", Opts.Arch, "GPU architecture, e.g. sm_90 (default: "
                                      "the bundle's)");
  App.add_option("--nvcc", Opts.Nvcc, "The CUDA compiler");
  App.add_option("--jobs,-j", Opts.Jobs, "Parallel nvcc processes");
  App.add_option("--timeout", Opts.RunTimeout,
                 "Seconds one driver run may take");
  App.add_option("--compile-timeout", Opts.CompileTimeout,
                 "Seconds one nvcc may take");
  App.add_option("--budget", Opts.Budget,
                 "Candidates per kernel to build and run (0: all)");
  App.add_option("--rounds", Opts.Rounds, "Rounds of successive halving");
  App.add_option("--reps", Opts.Reps, "Timed repetitions in the first round");
  App.add_option("--seed", Opts.Seed, "Base seed (default: from the clock)");
  App.add_option("--kernels", Opts.Kernels, "Only these kernels")
      ->delimiter(',');
  App.add_option("--candidates", Opts.Candidates,
                 "Only these candidate ids (e.g. src:mine)")
      ->delimiter(',');
  App.add_option("--out,-o", OutPath, "Write the results JSON here");
  App.add_flag("--compile-only", Opts.CompileOnly,
               "Build every driver, run nothing");
  App.add_flag("--no-screen", NoScreen,
               "Do not screen external candidates (to test the dynamic checks)");
  App.add_flag("--no-memcheck", NoMemcheck, "Skip compute-sanitizer");
  bool NoDerive = false;
  App.add_flag("--no-derive-sizes", NoDerive,
               "Verify at the drawn extents as they are (but for those a "
               "literal or named constant of the IR fixes), not at extents "
               "derived from the IR (to test the check of the original)");
  App.add_option("--sanitizer", Opts.Sanitizer, "compute-sanitizer to use");
  App.add_option("--add-candidate", Add,
                 "Add external code KERNEL=FILE.cu:LAUNCHER to the bundle");
  App.add_flag("--add-only", AddOnly, "Only add the candidates, run nothing");
  std::string Record, Import;
  App.add_option("--record", Record,
                 "Add each kernel's winner to this operator matrix "
                 "(knowledge/operator-matrix.json)");
  App.add_option("--import", Import,
                 "Take the results from this file (an earlier fs-tune --out "
                 "of the bundle) instead of tuning; with --record");
  App.set_version_flag("--version",
                       std::string("fs-tune (ForgeStencil) ") +
                           FORGESTENCIL_VERSION);
  CLI11_PARSE(App, argc, argv);

  if (int RC = addCandidates(Bundle, Add))
    return RC;
  if (AddOnly)
    return 0;
  if (!NoScreen)
    Opts.Screen = screen;
  Opts.Memcheck = !NoMemcheck;
  Opts.DeriveSizes = !NoDerive;
  Opts.Progress = &std::cerr;
  // The results' and the knowledge's evidence: what was run, not where
  // the binary or the output files were.
  Opts.Command =
      forge::evidenceCommand("fs-tune", argc, argv, {"--out", "--record"});
  forge::TuneResults Results;
  std::string Error;
  if (!Import.empty()) {
    if (Record.empty()) {
      std::cerr << "fs-tune: error: --import needs --record\n";
      return 1;
    }
    auto Loaded = forge::loadTuneResults(Import, Error);
    if (!Loaded) {
      std::cerr << "fs-tune: error: " << Import << ": " << Error << "\n";
      return 1;
    }
    Results = *Loaded;
  } else if (!forge::tuneBundle(Bundle, Opts, Results, Error)) {
    std::cerr << "fs-tune: error: " << Error << "\n";
    return 1;
  }
  if (!Record.empty() && !Opts.CompileOnly) {
    auto Manifest = forge::loadBundle(Bundle, Error);
    if (!Manifest) {
      std::cerr << "fs-tune: error: " << Error << "\n";
      return 1;
    }
    std::vector<std::string> Skipped;
    for (const forge::Measurement &M :
         forge::tuneMeasurements(*Manifest, Results, Skipped)) {
      if (!forge::recordMeasurement(Record, M, Error)) {
        std::cerr << "fs-tune: error: " << Error << "\n";
        return 1;
      }
      std::cerr << "fs-tune: recorded " << M.Best.id() << " for "
                << M.Signature << " (" << M.Arch << ", " << M.SizeClass
                << "): " << static_cast<int>(M.FractionOfCopy * 1000) / 10.0
                << "% of copy, ";
      if (M.FractionOfFootprint > 0)
        std::cerr << static_cast<int>(M.FractionOfFootprint * 1000) / 10.0
                  << "% of the footprint kernel, ";
      std::cerr << static_cast<int>(M.SpeedupVsNaive * 100) / 100.0
                << "x the app's kernel, in " << Record << "\n";
    }
    for (const std::string &S : Skipped)
      std::cerr << "fs-tune: not recorded: " << S << "\n";
    if (!Import.empty())
      return 0;
  }
  std::string Json = Results.toJson().dump(2) + "\n";
  if (!OutPath.empty()) {
    std::ofstream Out(OutPath);
    Out << Json;
    if (!Out) {
      std::cerr << "fs-tune: error: cannot write " << OutPath << "\n";
      return 1;
    }
  }
  std::cout << forge::formatResultsTable(Results);
  if (!Opts.CompileOnly)
    for (const auto &[Kernel, W] : forge::chooseWinners(Results))
      std::cout << "winner " << W.Summary << "\n";
  return 0;
}

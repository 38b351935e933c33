//===- HarnessMain.cpp - fs-harness: interleaved end-to-end measurement ---===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Measures a patched application end to end: its own timer and check, run
/// alternately with USE_OURS=0 and USE_OURS=1. All the work is in
/// lib/Harness; this file only maps the command line onto HarnessOptions.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Harness/IntegrationRun.h"
#include "forgestencil/Version.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <iostream>

using namespace forgestencil::harness;

static const char *Overview =
    "fs-harness: vendors and builds a patched app, runs it N round pairs with\n"
    "USE_OURS=0 and USE_OURS=1 in a seeded random order, and reports the\n"
    "speed-up (median of per-pair ratios, bootstrap 95% interval) - or refuses\n"
    "to when any run fails its check, crashes, times out or prints no timer.\n"
    "Exit status: 0 reported, 1 refused, 2 nothing measured.";

int main(int Argc, char **Argv) {
  CLI::App Cli(Overview, "fs-harness");
  HarnessOptions Options;
  std::string Gpu = "auto";
  bool NoRegistry = false;
  uint64_t Seed = 0;
  double OutputMaxRel = 0;

  Cli.add_option("--app", Options.AppName, "The app to measure (apps/<name>/)");
  Cli.add_option("--app-json", Options.AppJsonPath,
                 "Use this app.json instead of <apps-dir>/<app>/app.json");
  Cli.add_option("--rounds", Options.Rounds,
                 "Round pairs (one run per mode each)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  Cli.add_option("--gpu", Gpu,
                 "auto (keep CUDA_VISIBLE_DEVICES, else the least busy GPU) "
                 "or a device index/UUID")
      ->capture_default_str();
  Cli.add_flag("--small", Options.Small, "Use the app's small problem (run.small)");
  Cli.add_option("--root", Options.RootDir,
                 "Project root with apps/, patches/, scripts/, results/");
  Cli.add_option("--apps-dir", Options.AppsDir, "Directory of app definitions");
  Cli.add_option("--patches-dir", Options.PatchesDir,
                 "Patches whose hash is recorded (default <root>/patches/<app>)");
  Cli.add_option("--work-dir", Options.WorkDir,
                 "Vendored source directory (passed to vendor.sh; with "
                 "--no-build, the existing one)");
  Cli.add_option("--registry", Options.RegistryPath,
                 "Registry file (default <root>/results/integration_registry.json)");
  Cli.add_flag("--no-registry", NoRegistry, "Do not write the registry");
  Cli.add_option("--json", Options.JsonPath,
                 "Write the record of every run to this JSON file");
  Cli.add_flag("--no-build", Options.NoBuild,
               "Skip vendoring and building; run the existing binary");
  Cli.add_flag("--build-only", Options.BuildOnly,
               "Vendor and build (every selected variant), then stop");
  Cli.add_option("--variant", Options.Variants,
                 "Measure only this build variant of app.json (repeatable; "
                 "default: every variant)")
      ->delimiter(',');
  Cli.add_option("--binary", Options.BinaryPath,
                 "The executable to run (default <work-dir>/build/<binary>, "
                 "<work-dir>/build/<variant>/<binary> for a variant)");
  Cli.add_option("--run-timeout", Options.RunTimeoutSeconds,
                 "Seconds before a run is killed and counted as failed")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  Cli.add_option("--build-timeout", Options.BuildTimeoutSeconds,
                 "Seconds allowed for vendoring and each build command")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  auto *SeedOption = Cli.add_option(
      "--seed", Seed, "Seed of the run order and the bootstrap (default random)");
  Cli.add_option("--resamples", Options.Resamples, "Bootstrap resamples")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  Cli.add_flag("--keep-going", Options.KeepGoing,
               "Finish every round after a failed run");
  Cli.add_flag("--keep-outputs", Options.KeepOutputs,
               "Keep the output files after comparing them");
  auto *OutputMaxRelOption = Cli.add_option(
      "--output-max-rel", OutputMaxRel,
      "Refuse when the outputs differ by more than this relative difference "
      "(default: app.json output_max_rel)");
  Cli.add_option("--output-type", Options.OutputType,
                 "Read differing output files as float32 or float64 "
                 "(default: app.json output_type, else float32)");
  std::string ImportRecord;
  Cli.add_option("--import-record", ImportRecord,
                 "Put the registry entry of a run record (--json of a run on "
                 "another host) into the registry, if it was measured with "
                 "the patches in patches/<app>; runs nothing");
  Cli.set_version_flag("--version", FORGESTENCIL_VERSION);

  try {
    Cli.parse(Argc, Argv);
  } catch (const CLI::ParseError &Error) {
    // --help and --version end here too, with status 0.
    int Code = Cli.exit(Error);
    return Code == 0 ? 0 : ExitSetupFailed;
  }

  Options.Gpu = Gpu;
  Options.WriteRegistry = !NoRegistry;
  if (!ImportRecord.empty())
    return importRunRecord(Options, ImportRecord, std::cout);
  if (*SeedOption)
    Options.Seed = Seed;
  if (*OutputMaxRelOption)
    Options.OutputMaxRelDiff = OutputMaxRel;
  return runIntegration(Options, std::cout, std::cerr);
}

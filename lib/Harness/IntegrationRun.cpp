//===- IntegrationRun.cpp - One end-to-end measurement of an app ----------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Harness/IntegrationRun.h"

#include "ProjectPaths.h"

#include "forgestencil/Support/HostInfo.h"
#include "forgestencil/Harness/InAppVerify.h"
#include "forgestencil/Harness/Measurement.h"
#include "forgestencil/Harness/OutputCompare.h"
#include "forgestencil/Harness/OutputParsing.h"
#include "forgestencil/Support/ProcessRunner.h"
#include "forgestencil/Harness/Registry.h"
#include "forgestencil/Harness/Sha256.h"
#include "forgestencil/Version.h"

#include <cstdint>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <random>
#include <sstream>
#include <unistd.h>

namespace forgestencil {
namespace harness {

namespace fs = std::filesystem;
using nlohmann::json;

std::string utcTimestamp() {
  std::time_t Now = std::time(nullptr);
  std::tm Utc;
  gmtime_r(&Now, &Utc);
  char Text[32];
  std::strftime(Text, sizeof(Text), "%Y-%m-%dT%H:%M:%SZ", &Utc);
  return Text;
}

Expected<PatchSet> hashPatches(const std::string &PatchesDir) {
  PatchSet Patches;
  std::error_code Error;
  if (PatchesDir.empty() || !fs::is_directory(PatchesDir, Error)) {
    Patches.Sha256 = Sha256::hexDigest("");
    return Patches;
  }
  std::vector<fs::path> Paths;
  for (const fs::directory_entry &Entry :
       fs::directory_iterator(PatchesDir, Error))
    if (Entry.path().extension() == ".patch" && Entry.is_regular_file(Error))
      Paths.push_back(Entry.path());
  if (Error)
    return fail(PatchesDir + ": cannot list: " + Error.message());
  // The order vendor.sh applies them in, so the digest names that sequence.
  std::sort(Paths.begin(), Paths.end());

  Sha256 Hasher;
  for (const fs::path &Path : Paths) {
    Expected<std::string> Bytes = readWholeFile(Path.string());
    if (!Bytes)
      return fail(Bytes.error());
    Hasher.update(*Bytes);
    Patches.Files.push_back(Path.filename().string());
  }
  Patches.Sha256 = Sha256::toHex(Hasher.finalize());
  return Patches;
}

namespace {

/// One comparison of the outputs of a round pair.
struct PairComparison {
  unsigned Round = 0;
  /// The file, or the whole output directory as one comparison.
  OutputComparison Result;
  /// File by file, for an app that writes a directory.
  std::optional<TreeComparison> Tree;

  std::string describe() const {
    return Tree ? Tree->describe() : Result.describe();
  }
};

json comparisonToJson(const PairComparison &Pair) {
  json Value = {{"round", Pair.Round},
                {"identical", Pair.Result.Identical},
                {"bytes", {Pair.Result.SizeA, Pair.Result.SizeB}}};
  if (const auto &D = Pair.Result.AsValues) {
    Value["values"] = {{"type", elementTypeName(D->Type)},
                       {"elements", D->Elements},
                        {"differing", D->DifferingElements},
                        {"nan_mismatches", D->NanMismatches},
                        {"max_abs_diff", D->MaxAbsDiff},
                        {"max_rel_diff", D->MaxRelDiff}};
  }
  if (Pair.Tree) {
    Value["files"] = Pair.Tree->Files.size();
    Value["only_in_0"] = Pair.Tree->OnlyInA;
    Value["only_in_1"] = Pair.Tree->OnlyInB;
    json Differing = json::array();
    for (const FileComparison &File : Pair.Tree->Files)
      if (!File.Result.Identical)
        Differing.push_back({{"path", File.Path},
                             {"description", File.Result.describe()}});
    Value["differing_files"] = Differing;
  }
  return Value;
}

json runToJson(const RunRecord &Run) {
  json Value = {{"sequence", Run.Sequence},
                {"round", Run.Round},
                {"mode", int(Run.RunMode)},
                {"kind", Run.IsCheckRun ? "check" : "timed"},
                {"time_ms", nullptr},
                {"check", nullptr},
                {"check_passed", false},
                {"exit_code", nullptr},
                {"signal", nullptr},
                {"timed_out", Run.TimedOut},
                {"wall_s", Run.WallSeconds},
                {"problem", nullptr}};
  if (Run.TimeMs)
    Value["time_ms"] = *Run.TimeMs;
  if (Run.Check) {
    Value["check"] = Run.Check->Word;
    Value["check_passed"] = Run.Check->Passed;
  }
  if (Run.ExitCode)
    Value["exit_code"] = *Run.ExitCode;
  if (Run.Signal)
    Value["signal"] = *Run.Signal;
  if (!Run.LaunchError.empty())
    Value["launch_error"] = Run.LaunchError;
  if (!Run.Problem.empty()) {
    Value["problem"] = Run.Problem;
    Value["output_tail"] = Run.OutputTail;
  }
  return Value;
}

json modeToJson(const ModeSummary &Summary) {
  return {{"runs", Summary.Runs},
          {"median_ms", Summary.MedianMs},
          {"min_ms", Summary.MinMs},
          {"max_ms", Summary.MaxMs}};
}

/// The state of one measurement from start to report: the app is vendored
/// once, then each of its build variants (or its one build) is built,
/// measured and recorded in turn.
class IntegrationRun {
public:
  IntegrationRun(const HarnessOptions &Options, std::ostream &Report,
                 std::ostream &Progress)
      : Options(Options), Report(Report), Progress(Progress) {}

  int run();

private:
  Status resolvePaths();
  Status loadApp();
  Status selectVariants();
  Status vendor();
  void beginVariant(const VariantSpec *Variant);
  Status build();
  Status locateBinary();
  void selectGpu();
  Status prepareOutputDirectory();
  void measure();
  void verifyInApp();
  /// The app's process: the binary with \p Args, its output arguments
  /// pointed at \p OutPath (none when empty), USE_OURS=\p UseOurs.
  support::ProcessSpec appProcess(const std::vector<std::string> &Args,
                         const std::string &OutPath,
                         const std::string &UseOurs) const;
  RunRecord runOnce(unsigned Round, Mode RunMode, bool IsCheckRun);
  void reportRun(unsigned Round, const RunRecord &Record);
  void comparePairOutputs(unsigned Round);
  void judgeOutputs();
  std::string checkStatus() const;
  void printReport();
  json buildRunRecord() const;
  json buildRegistryEntry() const;
  int finishVariant();
  int writeRunRecords();

  std::string outputPath(unsigned Round, Mode RunMode) const {
    return OutputDir + "/round" + std::to_string(Round) + "-use_ours" +
           std::to_string(int(RunMode)) + (App.OutputIsDirectory ? ".d" : ".out");
  }
  size_t plannedRuns() const {
    return size_t(Options.Rounds) * (App.CheckArgs ? 4 : 2);
  }
  /// ${SRC_DIR}, ${BUILD_DIR} and ${APP_DIR} (the directory of app.json,
  /// for files of the project's own that a build or run needs).
  PlaceholderValues placeholders() const {
    std::error_code Error;
    return {{"SRC_DIR", SourceDir},
            {"BUILD_DIR", BuildDir},
            {"APP_DIR", fs::absolute(fs::path(AppJsonPath).parent_path(), Error)
                            .lexically_normal()
                            .string()}};
  }
  /// "demo" or "demo [variant n4096]", for messages.
  std::string appLabel() const {
    return VariantName.empty() ? App.Name
                               : App.Name + " [variant " + VariantName + "]";
  }
  /// The output limit: --output-max-rel, else app.json's output_max_rel.
  std::optional<double> outputMaxRel() const {
    return Options.OutputMaxRelDiff ? Options.OutputMaxRelDiff
                                    : App.OutputMaxRelDiff;
  }

  const HarnessOptions &Options;
  std::ostream &Report;
  std::ostream &Progress;

  // Shared by every variant.
  std::string Root, AppsDir, AppJsonPath, PatchesDir, RegistryPath;
  AppSpec BaseApp;
  std::vector<const VariantSpec *> Selected;
  PatchSet Patches;
  std::string SourceDir;
  std::optional<std::string> VisibleDevices;
  ElementType OutputType = ElementType::Float32;
  support::GpuInfo Gpu;
  std::string NvccVersion = support::UnknownValue;
  uint64_t Seed = 0;
  std::string Date;
  std::vector<json> Records;

  // Of the variant being measured.
  AppSpec App;
  std::string VariantName;
  std::string BuildDir, Binary, OutputDir;
  bool OutputDirIsTemporary = false;
  std::vector<std::string> RunArgs;
  std::vector<RunRecord> Runs;
  std::vector<PairComparison> Comparisons;
  /// What the USE_OURS=verify run reported, when the patch holds body
  /// copies (forgestencil/checks.h).
  std::optional<InAppVerification> Verification;
  /// Why no speed-up is reported; empty when it is.
  std::string RefusalReason;
  std::optional<MeasurementSummary> Summary;
};

Status IntegrationRun::resolvePaths() {
  if (Options.AppName.empty() && Options.AppJsonPath.empty())
    return fail("no app given: use --app NAME or --app-json FILE");
  if (Options.Rounds == 0)
    return fail("--rounds must be at least 1");
  if (Options.Resamples == 0)
    return fail("--resamples must be at least 1");
  if (!(Options.RunTimeoutSeconds > 0))
    return fail("--run-timeout must be positive");
  if (Options.BuildOnly && Options.NoBuild)
    return fail("--build-only and --no-build exclude each other");

  Root = Options.RootDir.empty() ? findProjectRoot() : Options.RootDir;
  // vendor.sh runs from the root, so relative paths would change meaning.
  std::error_code Error;
  if (!Root.empty())
    Root = fs::absolute(Root, Error).lexically_normal().string();
  AppsDir = Options.AppsDir.empty() ? Root + "/apps" : Options.AppsDir;
  AppJsonPath = Options.AppJsonPath.empty()
                    ? AppsDir + "/" + Options.AppName + "/app.json"
                    : Options.AppJsonPath;
  RegistryPath = registryPathFor(Options, Root);
  if (Options.WriteRegistry && !Options.BuildOnly && RegistryPath.empty())
    return fail(NoRegistry);
  return Status::success();
}

Status IntegrationRun::loadApp() {
  Expected<AppSpec> Spec = loadAppSpec(AppJsonPath);
  if (!Spec)
    return fail(Spec.error());
  BaseApp = std::move(*Spec);
  if (!Options.AppName.empty() && Options.AppName != BaseApp.Name)
    return fail(AppJsonPath + ": names app '" + BaseApp.Name + "', not '" +
                Options.AppName + "'");

  if (!Options.NoBuild && !Options.AppJsonPath.empty()) {
    // vendor.sh finds app.json as <apps dir>/<name>/app.json.
    fs::path Given = fs::path(Options.AppJsonPath).parent_path();
    if (Given.filename() != BaseApp.Name)
      return fail(AppJsonPath + ": to vendor and build, app.json must lie in "
                                "a directory named after the app ('" +
                  BaseApp.Name + "'); or use --no-build");
    AppsDir = fs::absolute(Given).parent_path().string();
  }
  Expected<ElementType> Type = parseElementType(
      Options.OutputType.empty() ? BaseApp.OutputType : Options.OutputType);
  if (!Type)
    return fail("--output-type: " + Type.error());
  OutputType = *Type;

  PatchesDir = patchesDirFor(Options, Root, BaseApp.Name);
  std::error_code Error;
  if (!Options.PatchesDir.empty() && !fs::is_directory(PatchesDir, Error))
    return fail("--patches-dir " + PatchesDir + ": not a directory");
  Expected<PatchSet> Hashed = hashPatches(PatchesDir);
  if (!Hashed)
    return fail(Hashed.error());
  Patches = std::move(*Hashed);
  return selectVariants();
}

Status IntegrationRun::selectVariants() {
  if (BaseApp.Variants.empty()) {
    if (!Options.Variants.empty())
      return fail(AppJsonPath + ": has no variants, so --variant " +
                  Options.Variants.front() + " cannot be measured");
    Selected = {nullptr};
    return Status::success();
  }
  if (Options.Variants.empty()) {
    for (const VariantSpec &Variant : BaseApp.Variants)
      Selected.push_back(&Variant);
  } else {
    for (const std::string &Name : Options.Variants) {
      auto It = std::find_if(
          BaseApp.Variants.begin(), BaseApp.Variants.end(),
          [&](const VariantSpec &Variant) { return Variant.Name == Name; });
      if (It == BaseApp.Variants.end()) {
        std::string Known;
        for (const VariantSpec &Variant : BaseApp.Variants)
          Known += (Known.empty() ? "" : ", ") + Variant.Name;
        return fail(AppJsonPath + ": no variant '" + Name + "' (it has " +
                    Known + ")");
      }
      if (std::find(Selected.begin(), Selected.end(), &*It) == Selected.end())
        Selected.push_back(&*It);
    }
  }
  if (!Options.BinaryPath.empty() && Selected.size() > 1)
    return fail("--binary names one executable, but " +
                std::to_string(Selected.size()) +
                " variants are selected: choose one with --variant");
  return Status::success();
}

Status IntegrationRun::vendor() {
  std::string VendorScript = Root + "/scripts/vendor.sh";
  if (Root.empty() || access(VendorScript.c_str(), R_OK) != 0)
    return fail("cannot find scripts/vendor.sh (give --root DIR, or "
                "--no-build to run an existing build)");
  Progress << "fs-harness: vendoring " << BaseApp.Name << " with patches";
  for (const std::string &File : Patches.Files)
    Progress << " " << File;
  Progress << "\n";

  support::ProcessSpec Vendor;
  Vendor.Argv = {"bash", VendorScript, BaseApp.Name};
  std::error_code Error;
  if (!Options.WorkDir.empty())
    Vendor.Argv.push_back(fs::absolute(Options.WorkDir, Error).string());
  // vendor.sh must read the same app.json and apply the very patches whose
  // hash is recorded.
  Vendor.EnvOverrides["FS_APPS_DIR"] = fs::absolute(AppsDir, Error).string();
  if (fs::is_directory(PatchesDir, Error))
    Vendor.EnvOverrides["FS_PATCH_DIR"] =
        fs::absolute(PatchesDir, Error).string();
  Vendor.WorkingDirectory = Root;
  Vendor.TimeoutSeconds = Options.BuildTimeoutSeconds;
  support::ProcessResult Vendored = support::runProcess(Vendor);
  if (!Vendored.succeeded())
    return fail("vendor.sh " + Vendored.describeEnd() + ":\n" +
                support::lastLines(Vendored.Stdout + Vendored.Stderr, 20));
  // vendor.sh prints the work directory on its last line.
  SourceDir = support::lastLines(Vendored.Stdout, 1);
  if (SourceDir.empty() || !fs::is_directory(SourceDir, Error))
    return fail("vendor.sh did not print the vendored directory on its last "
                "line (got '" + SourceDir + "')");
  return Status::success();
}

void IntegrationRun::beginVariant(const VariantSpec *Variant) {
  App = Variant ? applyVariant(BaseApp, *Variant) : BaseApp;
  VariantName = Variant ? Variant->Name : "";
  if (Options.NoBuild && !Options.WorkDir.empty())
    SourceDir = Options.WorkDir;
  // Each variant builds in a directory of its own, so that one variant's
  // objects never stand in for another's.
  BuildDir = SourceDir.empty() ? ""
             : VariantName.empty() ? SourceDir + "/build"
                                   : SourceDir + "/build/" + VariantName;
  Binary.clear();
  OutputDir.clear();
  OutputDirIsTemporary = false;
  RunArgs = Options.Small && App.SmallArgs ? *App.SmallArgs : App.FullArgs;
  Runs.clear();
  Comparisons.clear();
  RefusalReason.clear();
  Summary.reset();
}

Status IntegrationRun::build() {
  std::error_code Error;
  fs::create_directories(BuildDir, Error);
  if (Error)
    return fail(BuildDir + ": cannot create: " + Error.message());
  PlaceholderValues Values = placeholders();
  for (const std::string &Command : App.BuildCommands) {
    std::string Expanded = expandPlaceholders(Command, Values);
    Progress << "fs-harness: build" << (VariantName.empty() ? "" : " " + VariantName)
             << ": " << Expanded << "\n";
    support::ProcessResult Built =
        support::runShellCommand(Expanded, SourceDir, Options.BuildTimeoutSeconds);
    if (!Built.succeeded())
      return fail("build command '" + Expanded + "' " + Built.describeEnd() +
                  ":\n" + support::lastLines(Built.Stdout + Built.Stderr, 30));
  }
  return Status::success();
}

Status IntegrationRun::locateBinary() {
  if (!Options.BinaryPath.empty())
    Binary = Options.BinaryPath;
  else if (!BuildDir.empty())
    Binary = BuildDir + "/" + App.Binary;
  else
    return fail("--no-build needs --binary PATH or --work-dir DIR (the "
                "vendored source with its build/ directory)");
  if (access(Binary.c_str(), X_OK) != 0)
    return fail(Binary + ": no executable there");
  std::error_code Error;
  Binary = fs::absolute(Binary, Error).lexically_normal().string();
  return Status::success();
}

void IntegrationRun::selectGpu() {
  if (Options.Gpu != "auto") {
    VisibleDevices = Options.Gpu;
  } else if (const char *Inherited = std::getenv("CUDA_VISIBLE_DEVICES")) {
    // A batch scheduler chose the GPU; keep its choice.
    VisibleDevices = Inherited;
  } else {
    VisibleDevices = support::queryIdlestGpu();
  }
  std::string First = VisibleDevices.value_or("");
  First = First.substr(0, First.find(','));
  Gpu = support::queryGpu(First);
  NvccVersion = support::queryNvccVersion();
}

Status IntegrationRun::prepareOutputDirectory() {
  if (!App.OutputArgs)
    return Status::success();
  std::error_code Error;
  if (!SourceDir.empty()) {
    OutputDir = SourceDir + "/fs-harness-outputs" +
                (VariantName.empty() ? "" : "/" + VariantName);
    fs::create_directories(OutputDir, Error);
    if (Error)
      return fail(OutputDir + ": cannot create: " + Error.message());
    return Status::success();
  }
  std::string Template =
      (fs::temp_directory_path(Error) / "fs-harness-XXXXXX").string();
  if (!mkdtemp(Template.data()))
    return fail("cannot create a directory for the output files");
  OutputDir = Template;
  OutputDirIsTemporary = true;
  return Status::success();
}

support::ProcessSpec IntegrationRun::appProcess(const std::vector<std::string> &Args,
                                       const std::string &OutPath,
                                       const std::string &UseOurs) const {
  PlaceholderValues Values = placeholders();
  support::ProcessSpec Spec;
  Spec.Argv.push_back(Binary);
  for (const std::string &Arg : Args)
    Spec.Argv.push_back(expandPlaceholders(Arg, Values));
  std::error_code Error;
  if (!OutPath.empty()) {
    // A stale file must not pass for new output.
    fs::remove_all(OutPath, Error);
    if (App.OutputIsDirectory)
      fs::create_directories(OutPath, Error);
    Values[App.OutputIsDirectory ? "OUT_DIR" : "OUT_FILE"] = OutPath;
    for (const std::string &Arg : *App.OutputArgs)
      Spec.Argv.push_back(expandPlaceholders(Arg, Values));
  }
  Spec.EnvOverrides["USE_OURS"] = UseOurs;
  if (VisibleDevices)
    Spec.EnvOverrides["CUDA_VISIBLE_DEVICES"] = *VisibleDevices;
  if (!BuildDir.empty() && fs::is_directory(BuildDir, Error))
    Spec.WorkingDirectory = BuildDir;
  Spec.TimeoutSeconds = Options.RunTimeoutSeconds;
  return Spec;
}

RunRecord IntegrationRun::runOnce(unsigned Round, Mode RunMode,
                                  bool IsCheckRun) {
  bool WritesOutput = App.OutputArgs && !IsCheckRun;
  std::string OutPath = WritesOutput ? outputPath(Round, RunMode) : "";
  support::ProcessSpec Spec = appProcess(IsCheckRun ? *App.CheckArgs : RunArgs, OutPath,
                                std::to_string(int(RunMode)));
  std::error_code Error;
  RunRecord Record;
  Record.Round = Round;
  Record.RunMode = RunMode;
  Record.IsCheckRun = IsCheckRun;
  Record.Sequence = unsigned(Runs.size() + 1);
  RunExpectations Expect;
  Expect.NeedsTimer = !IsCheckRun;
  Expect.NeedsCheck = IsCheckRun || !App.CheckArgs;
  Expect.FailureRegex = App.FailureRegex;
  judgeRun(support::runProcess(Spec), App.Timer, App.Check ? &*App.Check : nullptr,
           Expect, Record);
  if (Record.Problem.empty() && WritesOutput) {
    bool Written = App.OutputIsDirectory ? !fs::is_empty(OutPath, Error)
                                         : fs::exists(OutPath, Error);
    if (!Written || Error)
      Record.Problem = App.OutputIsDirectory
                           ? "wrote nothing into its output directory " + OutPath
                           : "did not write its output file " + OutPath;
  }
  return Record;
}

void IntegrationRun::comparePairOutputs(unsigned Round) {
  std::string Original = outputPath(Round, Mode::Original);
  std::string Ours = outputPath(Round, Mode::Ours);
  PairComparison Pair;
  Pair.Round = Round;
  if (App.OutputIsDirectory) {
    Expected<TreeComparison> Tree =
        compareOutputTrees(Original, Ours, OutputType);
    if (!Tree) {
      RefusalReason = "round " + std::to_string(Round) +
                      ": cannot compare outputs: " + Tree.error();
      return;
    }
    Pair.Result = Tree->aggregate();
    Pair.Tree = std::move(*Tree);
  } else {
    Expected<OutputComparison> Compared =
        compareOutputFiles(Original, Ours, OutputType);
    if (!Compared) {
      RefusalReason = "round " + std::to_string(Round) +
                      ": cannot compare outputs: " + Compared.error();
      return;
    }
    Pair.Result = *Compared;
  }
  Progress << "fs-harness: [round " << Round << "/" << Options.Rounds
           << "] outputs " << Pair.describe() << "\n";
  Comparisons.push_back(std::move(Pair));
  if (!Options.KeepOutputs) {
    std::error_code Error;
    fs::remove_all(Original, Error);
    fs::remove_all(Ours, Error);
  }
}

void IntegrationRun::reportRun(unsigned Round, const RunRecord &Record) {
  Progress << "fs-harness: [round " << Round << "/" << Options.Rounds << "] "
           << modeLabel(Record.RunMode);
  if (Record.IsCheckRun) {
    Progress << " check run: check "
             << (Record.Check ? Record.Check->Word : "missing");
  } else {
    Progress << ": ";
    if (Record.TimeMs)
      Progress << formatNumber(*Record.TimeMs, 3) << " ms";
    else
      Progress << "no time";
    if (App.Check && !App.CheckArgs)
      Progress << ", check " << (Record.Check ? Record.Check->Word : "missing");
  }
  if (!Record.Problem.empty())
    Progress << " -- FAILED: " << Record.Problem;
  Progress << "\n";
  if (!Record.Problem.empty() && !Record.OutputTail.empty())
    Progress << "fs-harness: last lines of its output:\n"
             << Record.OutputTail << "\n";
}

void IntegrationRun::measure() {
  std::vector<std::array<Mode, 2>> Order = planRoundOrder(Options.Rounds, Seed);
  for (unsigned Round = 1; Round <= Options.Rounds; ++Round) {
    bool PairCounts = true;
    for (Mode RunMode : Order[Round - 1]) {
      // A check run follows the timed run of the same mode.
      for (bool IsCheckRun : {false, true}) {
        if (IsCheckRun && !App.CheckArgs)
          continue;
        RunRecord Record = runOnce(Round, RunMode, IsCheckRun);
        reportRun(Round, Record);
        PairCounts &= Record.Problem.empty();
        Runs.push_back(std::move(Record));
        if (!PairCounts && !Options.KeepGoing)
          return;
      }
    }
    if (PairCounts && App.OutputArgs)
      comparePairOutputs(Round);
    if (!RefusalReason.empty() && !Options.KeepGoing)
      return;
  }
}

/// A patch with body copies (restrict, re-block) or in-app candidates carries
/// forgestencil/checks.h: one run with USE_OURS=verify compares each copy
/// with the original on the app's own state at sampled launches, and any
/// difference refuses the measurement.
void IntegrationRun::verifyInApp() {
  if (!hasBodyCopies(SourceDir))
    return;
  std::string OutPath =
      App.OutputArgs
          ? OutputDir + "/verify" + (App.OutputIsDirectory ? ".d" : ".out")
          : "";
  Progress << "fs-harness: USE_OURS=verify run (body copies or in-app "
              "candidates compared "
              "with the originals in the app)\n";
  RefusalReason = judgeInAppVerification(
      support::runProcess(appProcess(RunArgs, OutPath, "verify")), Binary,
      Verification, Progress);
}

void IntegrationRun::judgeOutputs() {
  std::optional<double> Limit = outputMaxRel();
  for (const PairComparison &Pair : Comparisons) {
    const OutputComparison &Result = Pair.Result;
    if (Result.Identical)
      continue;
    std::string Where = "round " + std::to_string(Pair.Round) + ": outputs ";
    if (Result.SizeA != Result.SizeB || (Pair.Tree && Pair.Tree->structureDiffers())) {
      RefusalReason = Where + Pair.describe();
      return;
    }
    if (!Limit) {
      // Without a check of its own an app's outputs are its check: they must
      // agree exactly unless app.json states a tolerance.
      if (!App.Check)
        RefusalReason = Where + Pair.describe() +
                        " (the app has no check of its own, so its outputs "
                        "must be bit-identical; app.json output_max_rel "
                        "states a tolerance)";
      if (!RefusalReason.empty())
        return;
      continue;
    }
    const auto &D = Result.AsValues;
    if (!D || D->NanMismatches > 0 || D->MaxRelDiff > *Limit) {
      RefusalReason = Where + Pair.describe() + " (limit: max rel " +
                      formatNumber(*Limit, 9) + ")";
      return;
    }
  }
}

std::string IntegrationRun::checkStatus() const {
  if (!App.Check)
    return "none";
  for (const RunRecord &Run : Runs)
    if (Run.Check && !Run.Check->Passed)
      return "fail";
  for (const RunRecord &Run : Runs)
    if (!Run.Check && (Run.IsCheckRun || !App.CheckArgs))
      return "incomplete";
  return Runs.size() == plannedRuns() ? "pass" : "incomplete";
}

void IntegrationRun::printReport() {
  Report << "fs-harness: " << appLabel() << " ("
         << (Options.Small && App.SmallArgs ? "small" : "full") << "), "
         << Options.Rounds << " rounds, seed " << Seed << ", GPU " << Gpu.Name
         << " (driver " << Gpu.Driver << "), nvcc " << NvccVersion << "\n";
  if (!Summary) {
    Report << "REFUSED: no speed-up reported\n";
    Report << "  reason: " << RefusalReason << "\n";
    return;
  }
  for (Mode RunMode : {Mode::Original, Mode::Ours}) {
    const ModeSummary &M =
        RunMode == Mode::Original ? Summary->Original : Summary->Ours;
    Report << "  " << modeLabel(RunMode) << ": median "
           << formatNumber(M.MedianMs, 3) << " ms, min "
           << formatNumber(M.MinMs, 3) << ", max " << formatNumber(M.MaxMs, 3)
           << " (" << M.Runs << " runs)\n";
  }
  const SpeedupSummary &S = Summary->Speedup;
  Report << "  speed-up: " << formatNumber(S.Median, 3)
         << "x (median of " << S.PairRatios.size()
         << " pair ratios t0/t1), 95% CI [" << formatNumber(S.Confidence95.Low, 3)
         << ", " << formatNumber(S.Confidence95.High, 3) << "] (bootstrap, "
         << S.Resamples << " resamples)\n";
  if (S.PairRatios.size() < 5)
    Report << "  note: with fewer than 5 round pairs the interval is coarse; "
              "use --rounds 5 or more for a result to quote\n";
  if (Verification && Verification->Untouched)
    Report << "  note: the patch rewrites no launch of this program (it holds "
              "none of the patch's code): both modes run the same code\n";
  if (!App.Check)
    Report << "  check: none of its own; the outputs of the two modes are "
              "compared instead\n";
  else if (App.CheckArgs)
    Report << "  check: PASS in all " << Options.Rounds * 2
           << " check runs (separate runs, run.check)\n";
  else
    Report << "  check: PASS in all " << Runs.size() << " runs\n";
  for (const PairComparison &Pair : Comparisons)
    Report << "  output, round " << Pair.Round << ": " << Pair.describe()
           << "\n";
}

json IntegrationRun::buildRegistryEntry() const {
  json Entry = {{"app", App.Name},
                {"kernels", App.Kernels},
                {"gpu", {{"name", Gpu.Name}, {"driver", Gpu.Driver}}},
                {"nvcc", NvccVersion},
                {"problem", Options.Small && App.SmallArgs ? "small" : "full"},
                {"rounds", Options.Rounds},
                {"runs_made", Runs.size()},
                {"seed", Seed},
                {"status", Summary ? "pass" : "refused"},
                {"check", checkStatus()},
                {"date", Date},
                {"tool_version", FORGESTENCIL_VERSION},
                {"patches", {{"files", Patches.Files}, {"sha256", Patches.Sha256}}}};
  if (!VariantName.empty())
    Entry["variant"] = VariantName;
  if (Verification)
    Entry["in_app_verification"] = inAppVerificationJson(*Verification);
  if (!Summary) {
    Entry["reason"] = RefusalReason;
    return Entry;
  }
  Entry["modes"] = {{"0", modeToJson(Summary->Original)},
                    {"1", modeToJson(Summary->Ours)}};
  const SpeedupSummary &S = Summary->Speedup;
  Entry["speedup"] = {{"median", S.Median},
                      {"ci95", {S.Confidence95.Low, S.Confidence95.High}},
                      {"method", "median of per-round t0/t1, percentile bootstrap"},
                      {"resamples", S.Resamples}};
  if (App.OutputArgs) {
    bool AllIdentical = std::all_of(
        Comparisons.begin(), Comparisons.end(),
        [](const PairComparison &Pair) { return Pair.Result.Identical; });
    double MaxAbs = 0, MaxRel = 0;
    for (const PairComparison &Pair : Comparisons)
      if (Pair.Result.AsValues) {
        MaxAbs = std::max(MaxAbs, Pair.Result.AsValues->MaxAbsDiff);
        MaxRel = std::max(MaxRel, Pair.Result.AsValues->MaxRelDiff);
      }
    Entry["output"] = {{"identical", AllIdentical},
                       {"compared_as", elementTypeName(OutputType)},
                       {"max_abs_diff", MaxAbs},
                       {"max_rel_diff", MaxRel}};
    if (std::optional<double> Limit = outputMaxRel())
      Entry["output"]["max_rel_allowed"] = *Limit;
  }
  return Entry;
}

json IntegrationRun::buildRunRecord() const {
  json Record = buildRegistryEntry();
  Record["binary"] = Binary;
  Record["args"] = RunArgs;
  if (App.CheckArgs)
    Record["check_args"] = *App.CheckArgs;
  Record["cuda_visible_devices"] =
      VisibleDevices ? json(*VisibleDevices) : json(nullptr);
  Record["run_timeout_s"] = Options.RunTimeoutSeconds;
  json RunList = json::array();
  for (const RunRecord &Run : Runs)
    RunList.push_back(runToJson(Run));
  Record["runs"] = RunList;
  json OutputList = json::array();
  for (const PairComparison &Pair : Comparisons)
    OutputList.push_back(comparisonToJson(Pair));
  Record["outputs"] = OutputList;
  if (Summary)
    Record["speedup"]["pair_ratios"] = Summary->Speedup.PairRatios;
  return Record;
}

int IntegrationRun::finishVariant() {
  printReport();
  if (OutputDirIsTemporary && !Options.KeepOutputs) {
    std::error_code Error;
    fs::remove(OutputDir, Error); // Only when empty: never a user's file.
  }
  int Code = Summary ? ExitReported : ExitRefused;
  if (!Options.JsonPath.empty())
    Records.push_back(buildRunRecord());
  if (!Options.WriteRegistry)
    return Code;
  Status Updated = updateRegistryFile(RegistryPath, buildRegistryEntry());
  if (!Updated) {
    Progress << "fs-harness: error: " << Updated.error() << "\n";
    return ExitSetupFailed;
  }
  Report << "  registry: " << RegistryPath << " updated"
         << (Summary ? "" : " (recorded as refused)") << "\n";
  return Code;
}

int IntegrationRun::writeRunRecords() {
  if (Options.JsonPath.empty() || Records.empty())
    return ExitReported;
  // An app with variants gets one record per variant in one file.
  json Content = BaseApp.Variants.empty()
                     ? Records.front()
                     : json{{"app", BaseApp.Name}, {"variants", Records}};
  Status Written = writeFileAtomically(Options.JsonPath, Content.dump(2) + "\n");
  if (!Written) {
    Progress << "fs-harness: error: " << Written.error() << "\n";
    return ExitSetupFailed;
  }
  return ExitReported;
}

int IntegrationRun::run() {
  Status Ready = resolvePaths();
  if (Ready)
    Ready = loadApp();
  if (Ready && !Options.NoBuild)
    Ready = vendor();
  if (!Ready) {
    Progress << "fs-harness: error: " << Ready.error() << "\n";
    return ExitSetupFailed;
  }

  if (!Options.BuildOnly) {
    selectGpu();
    // One seed for every variant: the same order, repeatable with --seed.
    Seed = Options.Seed ? *Options.Seed : std::random_device()();
    Date = utcTimestamp();
  }
  int Code = ExitReported;
  for (const VariantSpec *Variant : Selected) {
    beginVariant(Variant);
    if (Options.Small && !App.SmallArgs) {
      Progress << "fs-harness: error: " << AppJsonPath
               << ": field 'run.small': missing"
               << (VariantName.empty() ? "" : " for variant " + VariantName)
               << ", so --small cannot be used\n";
      return ExitSetupFailed;
    }
    Ready = Options.NoBuild ? Status::success() : build();
    if (Ready && Options.BuildOnly) {
      Progress << "fs-harness: built " << appLabel() << " in " << BuildDir
               << "\n";
      continue;
    }
    if (Ready)
      Ready = locateBinary();
    if (Ready)
      Ready = prepareOutputDirectory();
    if (!Ready) {
      Progress << "fs-harness: error: "
               << (VariantName.empty() ? "" : "variant " + VariantName + ": ")
               << Ready.error() << "\n";
      return std::max(Code, int(ExitSetupFailed));
    }

    Progress << "fs-harness: " << appLabel() << ": " << Options.Rounds
             << " rounds, seed " << Seed << " (repeat the order with --seed "
             << Seed << "), CUDA_VISIBLE_DEVICES="
             << VisibleDevices.value_or("(inherited, unset)") << ", GPU "
             << Gpu.Name << "\n";
    verifyInApp();
    if (RefusalReason.empty())
      measure();
    if (RefusalReason.empty()) {
      if (const RunRecord *Failed = findFirstProblem(Runs))
        RefusalReason =
            describeRun(*Failed, plannedRuns()) + ": " + Failed->Problem;
    }
    if (RefusalReason.empty())
      judgeOutputs();
    if (RefusalReason.empty()) {
      Expected<MeasurementSummary> Summarized =
          summarizeRuns(Runs, Options.Resamples, Seed);
      if (Summarized)
        Summary = *Summarized;
      else
        RefusalReason = Summarized.error();
    }
    Code = std::max(Code, finishVariant());
  }
  return std::max(Code, writeRunRecords());
}

} // namespace

int runIntegration(const HarnessOptions &Options, std::ostream &Report,
                   std::ostream &Progress) {
  return IntegrationRun(Options, Report, Progress).run();
}

} // namespace harness
} // namespace forgestencil

//===- IntegrationRun.h - One end-to-end measurement of an app ------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What fs-harness does, as a library call: vendor and build the patched app,
/// run it interleaved with USE_OURS=0/1, judge every run by the app's own
/// timer and check, compare output files, report the speed-up or refuse it,
/// and record the outcome in the integration registry and a JSON run record.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_HARNESS_INTEGRATIONRUN_H
#define FORGESTENCIL_HARNESS_INTEGRATIONRUN_H

#include "forgestencil/Harness/AppSpec.h"
#include "forgestencil/Harness/Expected.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace forgestencil {
namespace harness {

/// Everything fs-harness can be told on its command line.
struct HarnessOptions {
  /// The app's name; may be left empty when AppJsonPath is given.
  std::string AppName;
  /// app.json to use instead of <AppsDir>/<AppName>/app.json.
  std::string AppJsonPath;
  /// The project root (holds apps/, patches/, scripts/vendor.sh, results/);
  /// found from the working directory when empty.
  std::string RootDir;
  std::string AppsDir;
  std::string PatchesDir;
  /// Where vendor.sh puts the source; its default when empty. With NoBuild,
  /// the already vendored and built source directory.
  std::string WorkDir;
  std::string RegistryPath;
  bool WriteRegistry = true;
  /// Where to write the JSON record of the whole run; none when empty.
  std::string JsonPath;
  /// The executable to run instead of <build dir>/<app.json binary>.
  std::string BinaryPath;
  unsigned Rounds = 5;
  /// "auto" or a device index/UUID for CUDA_VISIBLE_DEVICES.
  std::string Gpu = "auto";
  bool Small = false;
  /// Skip vendoring and building; run what is there.
  bool NoBuild = false;
  /// Vendor and build (every selected variant), then stop: no runs, no
  /// registry entry.
  bool BuildOnly = false;
  /// The variants to measure (app.json "variants"), in this order; empty
  /// means all of them.
  std::vector<std::string> Variants;
  double RunTimeoutSeconds = 1800;
  double BuildTimeoutSeconds = 7200;
  /// The seed of the run order and the bootstrap; drawn at random when unset.
  std::optional<uint64_t> Seed;
  unsigned Resamples = 10000;
  /// Finish all rounds after a failed run instead of stopping at the first.
  bool KeepGoing = false;
  /// Keep the output files of both modes instead of deleting them after the
  /// comparison.
  bool KeepOutputs = false;
  /// Refuse the speed-up when the outputs differ by more than this relative
  /// difference; without it, app.json's output_max_rel; without both,
  /// differences are only reported (an app without a check of its own must
  /// give bit-identical outputs then).
  std::optional<double> OutputMaxRelDiff;
  /// How differing output files are read ("float32", "float64"); empty means
  /// app.json's output_type, else float32.
  std::string OutputType;
};

/// fs-harness's exit statuses.
enum HarnessExitCode {
  /// Every run counted; the speed-up was reported.
  ExitReported = 0,
  /// The measurement ran but a run failed; no speed-up was reported.
  ExitRefused = 1,
  /// Nothing was measured: bad options, app.json, vendoring or build.
  ExitSetupFailed = 2,
};

/// Runs the whole measurement. The report goes to \p Report, one progress line
/// per step and run to \p Progress. Returns a HarnessExitCode.
int runIntegration(const HarnessOptions &Options, std::ostream &Report,
                   std::ostream &Progress);

/// Puts the registry entry of a run record written by `--json` on another
/// host into the registry (every variant's, for a record file of an app with
/// variants), after checking that the record was measured with the patches
/// in the patches directory (their SHA-256). Returns a HarnessExitCode.
int importRunRecord(const HarnessOptions &Options, const std::string &RecordPath,
                    std::ostream &Report);

/// The patch files of an app (*.patch in \p PatchesDir, sorted by name) and
/// the SHA-256 of their concatenation. An absent directory gives no files
/// (and the digest of nothing).
struct PatchSet {
  std::vector<std::string> Files;
  std::string Sha256;
};
Expected<PatchSet> hashPatches(const std::string &PatchesDir);

/// The current time in UTC as ISO 8601 ("2024-05-01T12:34:56Z").
std::string utcTimestamp();

} // namespace harness
} // namespace forgestencil

#endif // FORGESTENCIL_HARNESS_INTEGRATIONRUN_H

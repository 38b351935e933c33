//===- Measurement.h - The interleaved USE_OURS=0/1 protocol --------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// One measurement is N round pairs; each pair runs the app once with the
/// original code (USE_OURS=0) and once with ours (USE_OURS=1), in an order
/// drawn from a seeded generator so that neither mode always runs first
/// (and warms a cache or a clock for the other). A run counts only when it
/// exited with status 0, printed its timer line and its check passed; one
/// run that does not is enough to refuse the speed-up.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_HARNESS_MEASUREMENT_H
#define FORGESTENCIL_HARNESS_MEASUREMENT_H

#include "forgestencil/Harness/Expected.h"
#include "forgestencil/Harness/OutputParsing.h"
#include "forgestencil/Support/ProcessRunner.h"
#include "forgestencil/Harness/Statistics.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace harness {

/// Which code path a run takes; the value is what USE_OURS is set to.
enum class Mode { Original = 0, Ours = 1 };

/// "USE_OURS=0" or "USE_OURS=1".
std::string modeLabel(Mode RunMode);

/// \p Value with \p Decimals digits after the point, for reports.
std::string formatNumber(double Value, int Decimals);

/// The order of the two modes in each of \p Rounds round pairs, drawn from a
/// generator seeded with \p Seed.
std::vector<std::array<Mode, 2>> planRoundOrder(unsigned Rounds, uint64_t Seed);

/// One run of the app and what the harness made of it.
struct RunRecord {
  /// 1-based round (pair) number and 1-based position among all runs.
  unsigned Round = 0;
  unsigned Sequence = 0;
  Mode RunMode = Mode::Original;
  /// A check run (app.json run.check: a size the app's own reference can
  /// afford) is judged by its check line only and gives no time.
  bool IsCheckRun = false;
  std::optional<int> ExitCode;
  std::optional<int> Signal;
  bool TimedOut = false;
  std::string LaunchError;
  double WallSeconds = 0;
  /// The app's own time, in milliseconds, when its timer line was found.
  std::optional<double> TimeMs;
  /// The app's verdict, when its check line was found.
  std::optional<CheckVerdict> Check;
  /// Why the run does not count; empty when it does.
  std::string Problem;
  /// The last lines the run printed, kept when it does not count.
  std::string OutputTail;
};

/// What a run must print to count.
struct RunExpectations {
  /// The timer line (a timed run).
  bool NeedsTimer = true;
  /// The check line. When false a check line that is printed still counts:
  /// one that fails fails the run.
  bool NeedsCheck = true;
  /// When not empty, a run whose output matches it fails (app.json
  /// failure_regex).
  std::string FailureRegex;
};

/// Fills \p Record from how the process ended and what it printed, and sets
/// its Problem when the run does not count. \p Check may be null (an app
/// whose outputs are its only check).
void judgeRun(const support::ProcessResult &Result, const TimerPattern &Timer,
              const CheckPattern *Check, RunExpectations Expect,
              RunRecord &Record);

/// judgeRun for a run that must print both its timer and its check line.
void judgeRun(const support::ProcessResult &Result, const TimerPattern &Timer,
              const CheckPattern &Check, RunRecord &Record);

/// "round 2, USE_OURS=1 (run 3 of 8)"; "round 2, USE_OURS=1, check run (run
/// 4 of 8)".
std::string describeRun(const RunRecord &Record, size_t TotalRuns);

/// The medians and spread of one mode's times.
struct ModeSummary {
  size_t Runs = 0;
  double MedianMs = 0;
  double MinMs = 0;
  double MaxMs = 0;
};

/// The speed-up of ours over the original.
struct SpeedupSummary {
  /// t(USE_OURS=0) / t(USE_OURS=1) per round pair, in round order.
  std::vector<double> PairRatios;
  double Median = 0;
  Interval Confidence95;
  unsigned Resamples = 0;
};

/// The summary of a complete measurement in which every run counted.
struct MeasurementSummary {
  ModeSummary Original;
  ModeSummary Ours;
  SpeedupSummary Speedup;
};

/// The first run that does not count, if any.
const RunRecord *findFirstProblem(const std::vector<RunRecord> &Runs);

/// Summarises \p Runs (both timed runs of every round; check runs give no
/// time and are only required to count). Fails, naming the run and the
/// reason, when any run does not count or a round lacks a mode: no speed-up
/// is computed from an incomplete or failed measurement.
Expected<MeasurementSummary> summarizeRuns(const std::vector<RunRecord> &Runs,
                                           unsigned Resamples, uint64_t Seed);

} // namespace harness
} // namespace forgestencil

#endif // FORGESTENCIL_HARNESS_MEASUREMENT_H

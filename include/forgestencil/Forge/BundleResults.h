//===- BundleResults.h - What fs-tune measured, and the winners ------------===//
///
/// \file
/// fs-tune writes one JSON document per bundle run: where it ran (GPU,
/// driver, runtime, nvcc, date, command, seeds) and per (kernel, candidate)
/// the compile status, the verification verdict with the max error and the
/// reason for a failure, and the original's and the candidate's times
/// (median and spread) measured interleaved in the same process.
/// fs-rewrite reads it back and picks per kernel the fastest verified
/// candidate that beats the original by more than the measured noise.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_BUNDLERESULTS_H
#define FORGESTENCIL_FORGE_BUNDLERESULTS_H

#include "forgestencil/Forge/Bundle.h"
#include "forgestencil/Forge/OperatorMatrix.h"
#include "forgestencil/Forge/Strategy.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace forge {

inline constexpr const char *TuneResultsSchemaId = "forgestencil.tune-results";
inline constexpr int TuneResultsSchemaVersion = 1;

/// One candidate's outcome.
struct CandidateResult {
  std::string Kernel, Id, Origin;
  std::optional<StrategyParams> Params;
  std::string Source; ///< External candidates: the file in the bundle.
  /// "ok", "failed" (nvcc), "screened" (refused before compiling),
  /// "not-generated" or "not-compiled" (over the budget).
  std::string Compile = "not-compiled";
  /// "bitexact", "tolerance", "FAIL", "crash", "timeout", "memcheck",
  /// "not-run".
  std::string Verdict = "not-run";
  /// Why it was refused or failed; the compiler's or checker's words.
  std::string Reason;
  double MaxError = 0, Tolerance = 0;
  /// Medians and spreads ((p90 - p10) / 2) in milliseconds, from the last
  /// round the candidate ran in.
  double OriginalMs = 0, OriginalSpreadMs = 0;
  double CandidateMs = 0, CandidateSpreadMs = 0;
  double CopyMs = 0;
  /// The footprint kernel (the domain's compulsory traffic, no stencil work)
  /// in the same run; 0 in results from before the driver timed it.
  double FootprintMs = 0;
  /// The timed case: points of the original's domain and the bytes the
  /// copy kernel moved (read + written); 0 in results from before they
  /// were kept.
  long long Points = 0;
  double CopyBytes = 0;
  /// The timed case's extents (the driver's, after any derivation).
  std::vector<long long> TimedExt;
  unsigned Rounds = 0, Reps = 0;
  unsigned Seed = 0;

  bool verified() const {
    return Compile == "ok" && (Verdict == "bitexact" || Verdict == "tolerance");
  }
  double speedup() const {
    return CandidateMs > 0 ? OriginalMs / CandidateMs : 0;
  }
  nlohmann::json toJson() const;
  static std::optional<CandidateResult> fromJson(const nlohmann::json &J,
                                                 std::string &Error);
  /// As above; errors name the member below \p Path ("candidates[3]").
  static std::optional<CandidateResult> fromJson(const nlohmann::json &J,
                                                 std::string &Error,
                                                 const std::string &Path);
};

/// How far a verified candidate may beat the yardsticks measured in the
/// same driver run before its timing is taken for what it is: impossible.
inline constexpr double PlausibleMargin = 1.5;

/// Why C's timing is physically impossible, or "": a time below the
/// footprint kernel's (the stencil's compulsory traffic over the same
/// domain and buffers, nothing else) by more than the margin, or an
/// effective bandwidth (BytesPerPoint, the IR's compulsory bytes, times
/// the timed points over the time) above the copy kernel's by more than
/// the margin where the timed buffers (RotatedBytes) exceed 3x L2 (smaller
/// ones may partly stay in L2; the copy's never do). Such a candidate is
/// rejected and reported, never ranked.
std::string implausibleTiming(const CandidateResult &C, unsigned BytesPerPoint,
                              double RotatedBytes, double L2Bytes);

/// Reads the medians and spreads of one driver run's "timing" rows into C:
/// the original, the candidate, and the copy and footprint kernels.
void readDriverTiming(const nlohmann::json &Timing, CandidateResult &C);

/// One case of one round, as the original kernel handled it: cases the
/// original cannot run in bounds are refused, never held against a
/// candidate.
struct CaseCheck {
  std::string Kernel;
  unsigned Round = 0;
  std::string Case; ///< small, small-partial-grid, ..., timed-size
  std::vector<long long> Ext;
  /// "in-bounds" or "refused".
  std::string Status;
  /// Why it was refused: the memory checker's or the model's words.
  std::string Reason;
  /// How its extents were derived from the drawn ones, when they were.
  std::string Derived;
  /// What the IR's model says at these extents ("in bounds", "out of
  /// bounds: ...", "unknown").
  std::string Model;
  nlohmann::json toJson() const;
  static CaseCheck fromJson(const nlohmann::json &J);
};

struct TuneResults {
  std::string ToolVersion, App, Arch, Date, Command;
  std::string GpuName, Driver, Runtime, NvccVersion;
  long long L2Bytes = 0; ///< The GPU's L2 (decides the size class).
  std::string Tolerance;
  /// What ran the memory check, or why it did not run.
  std::string Memcheck;
  /// How each case was checked on the original kernel.
  std::string OriginalCheck;
  /// The rule that rejects physically impossible timings, in words.
  std::string Plausibility;
  std::vector<CandidateResult> Candidates;
  std::vector<CaseCheck> Cases;

  nlohmann::json toJson() const;
  static std::optional<TuneResults> fromJson(const nlohmann::json &J,
                                             std::string &Error);
};

/// Reads a results file. Errors name the file and the member
/// ("r.json: candidates[3].verdict: expected a string, found an integer").
std::optional<TuneResults> loadTuneResults(const std::string &Path,
                                           std::string &Error);

/// The choice for one kernel.
struct Winner {
  std::string Kernel;
  /// Empty when the original stays (no verified candidate beat it).
  std::string CandidateId;
  /// Set when the winner is a generated strategy.
  std::optional<StrategyParams> Params;
  /// External winners: the source in the bundle.
  std::string Source;
  double Speedup = 1;
  /// One line for a patch header or a report, saying what was measured or
  /// why the reference fallback stays.
  std::string Summary;
  bool fallback() const { return CandidateId.empty(); }
};

/// Per kernel, the fastest verified candidate whose median beats the
/// original's by more than the larger of the two spreads; a candidate that
/// failed to compile, was screened, crashed, hung or mismatched is never
/// chosen. Ties go to the bit-identical one, then to the smaller id.
std::map<std::string, Winner> chooseWinners(const TuneResults &R);

/// The generated strategies among the winners, as the patch emission takes
/// them.
std::map<std::string, StrategyParams>
winningStrategies(const std::map<std::string, Winner> &Winners);

/// What the tuning measured, as operator-matrix measurements: one per
/// kernel whose winner is a generated strategy, keyed by the kernel's
/// stencil signature, the results' arch and the timed case's size class,
/// with its effective bandwidth (the IR's compulsory bytes per point over
/// the timed points), the copy kernel's from the same run, and its speed-up
/// over the app's own kernel. Kernels without such a winner, or results
/// without the timed case's size, are named in Skipped with the reason.
std::vector<Measurement> tuneMeasurements(const BundleManifest &M,
                                          const TuneResults &R,
                                          std::vector<std::string> &Skipped);

/// A fixed-width table of the results (one line per candidate).
std::string formatResultsTable(const TuneResults &R);

} // namespace forge
} // namespace forgestencil

#endif

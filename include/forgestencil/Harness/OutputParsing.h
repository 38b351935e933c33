//===- OutputParsing.h - The app's own timer and check lines --------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The harness trusts only what the application itself prints: its timer line
/// and its correctness verdict, found with the regular expressions in
/// app.json (ECMAScript syntax, capture group 1 holds the value).
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_HARNESS_OUTPUTPARSING_H
#define FORGESTENCIL_HARNESS_OUTPUTPARSING_H

#include "forgestencil/Harness/Expected.h"

#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace forgestencil {
namespace harness {

/// How many milliseconds one \p Unit is ("ns", "us", "ms", "s", "min").
/// Fails on any other spelling.
Expected<double> millisecondsPerUnit(const std::string &Unit);

/// Compiles \p Pattern, which must have at least one capture group. \p What
/// names the pattern in the error ("timer.regex"); empty leaves it out.
Expected<std::regex> compileCapturePattern(const std::string &Pattern,
                                           const std::string &What);

/// Where an application prints its elapsed time.
struct TimerPattern {
  std::string Regex;
  std::string Unit = "ms";
};

/// Where an application prints its correctness verdict and what counts as
/// passing: capture group 1 equal to the pass word, or, for an app that
/// prints a measured error instead of a verdict, a number within the bounds
/// (Min <= value <= Max; either bound may be absent, not both).
struct CheckPattern {
  CheckPattern() = default;
  CheckPattern(std::string Regex, std::string PassWord = "PASS")
      : Regex(std::move(Regex)), PassWord(std::move(PassWord)) {}

  std::string Regex;
  std::string PassWord = "PASS";
  std::optional<double> Min;
  std::optional<double> Max;

  /// True when the check compares a number with bounds, not a word.
  bool isNumeric() const { return Min.has_value() || Max.has_value(); }
  /// What passes, for messages: "'PASS'", "<= 1e-06", "in [3.5, 4.5]".
  std::string describeRule() const;
};

/// The time printed in \p Output, in milliseconds. When the timer line occurs
/// more than once the last occurrence counts (the final, total time of the
/// run). Fails when the pattern does not match, or its capture is not a
/// finite, non-negative number.
Expected<double> parseTimerMs(const std::string &Output,
                              const TimerPattern &Timer);

/// The verdict an application printed (the captured text: a word, or the
/// number of a numeric check) and whether it passes.
struct CheckVerdict {
  std::string Word;
  bool Passed = false;
};

/// The verdict printed in \p Output (the last one when printed more than
/// once). Fails when the pattern does not match. A numeric check fails (does
/// not pass) when the capture is not a finite number or lies outside the
/// bounds.
Expected<CheckVerdict> parseCheck(const std::string &Output,
                                  const CheckPattern &Check);

/// What a run with USE_OURS=verify reported (forgestencil/checks.h, which
/// a patch with body copies adds): the summary line printed at exit,
/// and the launches that differed.
struct InAppVerification {
  unsigned Compared = 0, Identical = 0, Differ = 0, NotCompared = 0;
  /// Compared launches of variants checked at run time (checks.h,
  /// run_checked) that differed: the original ran in their place, as it
  /// does under USE_OURS=1, so they do not refuse the measurement.
  unsigned FellBack = 0;
  /// "k[v] launch 1: FALLS BACK: differs ..." for each that did.
  std::vector<std::string> FallingBack;
  /// The program holds none of the patch's code (a build variant the patch
  /// does not touch): nothing to compare, both modes run the same code.
  bool Untouched = false;
  /// "dvelcx launch 3: DIFFERS in ..." for each that did.
  std::vector<std::string> Differing;
  /// Every "not compared" line.
  std::vector<std::string> Skipped;
  /// Per kernel, the median times the run measured: the original's and
  /// the copy's, in ms.
  struct KernelTimes {
    std::string Kernel;
    double OriginalMs = 0, CopyMs = 0;
    unsigned Launches = 0;
  };
  std::vector<KernelTimes> Kernels;
};

/// Reads the verify lines of \p Output. Fails when the summary line is
/// missing (the run ended before exit, or the binary holds no body
/// copy) or contradicts the per-launch lines.
Expected<InAppVerification> parseInAppVerification(const std::string &Output);

} // namespace harness
} // namespace forgestencil

#endif // FORGESTENCIL_HARNESS_OUTPUTPARSING_H

//===- Measurement.cpp - The interleaved USE_OURS=0/1 protocol ------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Harness/Measurement.h"

#include <cstdint>
#include <iomanip>
#include <map>
#include <random>
#include <regex>
#include <sstream>

namespace forgestencil {
namespace harness {

std::string formatNumber(double Value, int Decimals) {
  std::ostringstream Text;
  Text << std::fixed << std::setprecision(Decimals) << Value;
  return Text.str();
}

std::string modeLabel(Mode RunMode) {
  return RunMode == Mode::Original ? "USE_OURS=0" : "USE_OURS=1";
}

std::vector<std::array<Mode, 2>> planRoundOrder(unsigned Rounds,
                                                uint64_t Seed) {
  std::mt19937_64 Generator(Seed);
  std::vector<std::array<Mode, 2>> Order;
  Order.reserve(Rounds);
  for (unsigned Round = 0; Round < Rounds; ++Round) {
    bool OursFirst = uniformBelow(Generator, 2) == 1;
    Order.push_back(OursFirst ? std::array<Mode, 2>{Mode::Ours, Mode::Original}
                              : std::array<Mode, 2>{Mode::Original, Mode::Ours});
  }
  return Order;
}

namespace {

/// Why a process that did not exit cleanly does not count.
std::string describeAbnormalEnd(const support::ProcessResult &Result) {
  if (!Result.LaunchError.empty())
    return "could not start: " + Result.LaunchError;
  if (Result.TimedOut)
    return Result.describeEnd();
  if (Result.Signal)
    return "crashed: " + Result.describeEnd();
  return "exited with " + Result.describeEnd() + " (non-zero)";
}

} // namespace

void judgeRun(const support::ProcessResult &Result, const TimerPattern &Timer,
              const CheckPattern *Check, RunExpectations Expect,
              RunRecord &Record) {
  Record.ExitCode = Result.ExitCode;
  Record.Signal = Result.Signal;
  Record.TimedOut = Result.TimedOut;
  Record.LaunchError = Result.LaunchError;
  Record.WallSeconds = Result.WallSeconds;

  // An app may print its lines on either stream.
  std::string Output = Result.Stdout + "\n" + Result.Stderr;
  Expected<double> TimeMs = fail("not read");
  if (Expect.NeedsTimer) {
    TimeMs = parseTimerMs(Output, Timer);
    if (TimeMs)
      Record.TimeMs = *TimeMs;
  }
  Expected<CheckVerdict> Verdict = fail("no check");
  if (Check) {
    Verdict = parseCheck(Output, *Check);
    if (Verdict)
      Record.Check = *Verdict;
  }

  std::smatch FailureMatch;
  // The first reason in this order is the one reported: how the process
  // ended explains a missing timer or check line, not the other way round.
  if (!Result.succeeded())
    Record.Problem = describeAbnormalEnd(Result);
  else if (!Expect.FailureRegex.empty() &&
           std::regex_search(Output, FailureMatch,
                             std::regex(Expect.FailureRegex, std::regex::ECMAScript)))
    Record.Problem = "the app printed '" + support::lastLines(FailureMatch.str(0), 1) +
                     "', which app.json's failure_regex names a failure";
  else if (Check && Expect.NeedsCheck && !Verdict)
    Record.Problem = "check line missing: " + Verdict.error();
  else if (Check && Verdict && !Verdict->Passed)
    Record.Problem = Check->isNumeric()
                         ? "check failed: the app printed '" + Verdict->Word +
                               "', not a number " +
                               Check->describeRule()
                         : "check failed: the app printed '" + Verdict->Word +
                               "', not '" + Check->PassWord + "'";
  else if (Expect.NeedsTimer && !TimeMs)
    Record.Problem = "timer line missing or unreadable: " + TimeMs.error();
  if (!Record.Problem.empty())
    Record.OutputTail = support::lastLines(Result.Stdout + Result.Stderr, 10);
}

void judgeRun(const support::ProcessResult &Result, const TimerPattern &Timer,
              const CheckPattern &Check, RunRecord &Record) {
  judgeRun(Result, Timer, &Check, RunExpectations{}, Record);
}

std::string describeRun(const RunRecord &Record, size_t TotalRuns) {
  return "round " + std::to_string(Record.Round) + ", " +
         modeLabel(Record.RunMode) + (Record.IsCheckRun ? ", check run" : "") +
         " (run " +
         std::to_string(Record.Sequence) + " of " + std::to_string(TotalRuns) +
         ")";
}

const RunRecord *findFirstProblem(const std::vector<RunRecord> &Runs) {
  for (const RunRecord &Run : Runs)
    if (!Run.Problem.empty())
      return &Run;
  return nullptr;
}

namespace {

ModeSummary summarizeMode(const std::vector<double> &Times) {
  ModeSummary Summary;
  Summary.Runs = Times.size();
  Summary.MedianMs = *median(Times);
  auto Range = *minMax(Times);
  Summary.MinMs = Range.first;
  Summary.MaxMs = Range.second;
  return Summary;
}

} // namespace

Expected<MeasurementSummary> summarizeRuns(const std::vector<RunRecord> &Runs,
                                           unsigned Resamples, uint64_t Seed) {
  if (const RunRecord *Failed = findFirstProblem(Runs))
    return fail(describeRun(*Failed, Runs.size()) + ": " + Failed->Problem);

  // Pair the two modes of each round.
  std::map<unsigned, std::array<std::optional<double>, 2>> Rounds;
  for (const RunRecord &Run : Runs) {
    if (Run.IsCheckRun)
      continue;
    if (!Run.TimeMs)
      return fail(describeRun(Run, Runs.size()) + ": no time");
    Rounds[Run.Round][size_t(Run.RunMode)] = *Run.TimeMs;
  }
  if (Rounds.empty())
    return fail("no runs were made");

  std::vector<double> Original, Ours;
  for (const auto &[Round, Times] : Rounds) {
    if (!Times[0] || !Times[1])
      return fail("round " + std::to_string(Round) + " lacks " +
                  modeLabel(Times[0] ? Mode::Ours : Mode::Original));
    Original.push_back(*Times[0]);
    Ours.push_back(*Times[1]);
  }

  Expected<std::vector<double>> Ratios = pairRatios(Original, Ours);
  if (!Ratios)
    return fail("cannot form speed-ups: " + Ratios.error() +
                " (a run of USE_OURS=1 reported a time of 0)");
  Expected<Interval> Confidence =
      bootstrapMedianInterval(*Ratios, Resamples, Seed);
  if (!Confidence)
    return fail(Confidence.error());

  MeasurementSummary Summary;
  Summary.Original = summarizeMode(Original);
  Summary.Ours = summarizeMode(Ours);
  Summary.Speedup.PairRatios = *Ratios;
  Summary.Speedup.Median = *median(*Ratios);
  Summary.Speedup.Confidence95 = *Confidence;
  Summary.Speedup.Resamples = Resamples;
  return Summary;
}

} // namespace harness
} // namespace forgestencil

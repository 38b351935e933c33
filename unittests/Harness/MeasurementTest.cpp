//===- MeasurementTest.cpp - Judging runs and summarising a measurement ---===//

#include "forgestencil/Harness/Measurement.h"

#include <gtest/gtest.h>

using namespace forgestencil::harness;
namespace support = forgestencil::support;

namespace {

const TimerPattern Timer{R"(TIMER loop_ms=([0-9.]+))", "ms"};
const CheckPattern Check{R"(CHECK (\w+))", "PASS"};

support::ProcessResult exited(int Code, std::string Stdout) {
  support::ProcessResult Result;
  Result.ExitCode = Code;
  Result.Stdout = std::move(Stdout);
  return Result;
}

RunRecord judged(const support::ProcessResult &Result, unsigned Round = 1,
                 Mode RunMode = Mode::Original) {
  RunRecord Record;
  Record.Round = Round;
  Record.RunMode = RunMode;
  judgeRun(Result, Timer, Check, Record);
  return Record;
}

TEST(MeasurementTest, RoundOrderIsSeededAndMixed) {
  auto First = planRoundOrder(64, 11);
  EXPECT_EQ(First, planRoundOrder(64, 11));
  EXPECT_NE(First, planRoundOrder(64, 12));
  size_t OursFirst = 0;
  for (const auto &Pair : First) {
    EXPECT_NE(Pair[0], Pair[1]);
    OursFirst += Pair[0] == Mode::Ours;
  }
  EXPECT_GT(OursFirst, 10u);
  EXPECT_LT(OursFirst, 54u);
}

TEST(MeasurementTest, GoodRunCounts) {
  RunRecord R = judged(exited(0, "TIMER loop_ms=12.5\nCHECK PASS\n"));
  EXPECT_TRUE(R.Problem.empty()) << R.Problem;
  EXPECT_EQ(R.TimeMs, std::optional<double>(12.5));
  ASSERT_TRUE(R.Check);
  EXPECT_TRUE(R.Check->Passed);
}

TEST(MeasurementTest, LinesOnStderrCount) {
  support::ProcessResult Result = exited(0, "CHECK PASS\n");
  Result.Stderr = "TIMER loop_ms=3\n";
  EXPECT_TRUE(judged(Result).Problem.empty());
}

TEST(MeasurementTest, FailedCheckIsAProblem) {
  RunRecord R = judged(exited(0, "TIMER loop_ms=12.5\nCHECK FAIL\n"));
  EXPECT_EQ(R.Problem, "check failed: the app printed 'FAIL', not 'PASS'");
}

TEST(MeasurementTest, MissingLinesAreProblems) {
  EXPECT_NE(judged(exited(0, "CHECK PASS\n")).Problem.find("timer line missing"),
            std::string::npos);
  EXPECT_NE(judged(exited(0, "TIMER loop_ms=1\n")).Problem.find("check line missing"),
            std::string::npos);
}

TEST(MeasurementTest, AbnormalEndsAreProblemsEvenWithGoodLines) {
  RunRecord NonZero = judged(exited(2, "TIMER loop_ms=1\nCHECK PASS\n"));
  EXPECT_EQ(NonZero.Problem, "exited with exit code 2 (non-zero)");

  support::ProcessResult Crashed;
  Crashed.Signal = 11;
  EXPECT_NE(judged(Crashed).Problem.find("crashed: killed by signal 11"),
            std::string::npos);

  support::ProcessResult Hung;
  Hung.TimedOut = true;
  Hung.Signal = 9;
  EXPECT_NE(judged(Hung).Problem.find("timed out"), std::string::npos);
}

std::vector<RunRecord> pairs(const std::vector<std::pair<double, double>> &Times) {
  std::vector<RunRecord> Runs;
  unsigned Round = 0;
  for (auto [Original, Ours] : Times) {
    ++Round;
    for (Mode M : {Mode::Original, Mode::Ours}) {
      RunRecord R;
      R.Round = Round;
      R.RunMode = M;
      R.Sequence = unsigned(Runs.size() + 1);
      R.TimeMs = M == Mode::Original ? Original : Ours;
      R.Check = CheckVerdict{"PASS", true};
      Runs.push_back(R);
    }
  }
  return Runs;
}

TEST(MeasurementTest, SummaryUsesPairRatios) {
  auto Summary = summarizeRuns(pairs({{200, 100}, {210, 100}, {190, 100}}), 1000, 5);
  ASSERT_TRUE(Summary) << Summary.error();
  EXPECT_DOUBLE_EQ(Summary->Original.MedianMs, 200);
  EXPECT_DOUBLE_EQ(Summary->Original.MinMs, 190);
  EXPECT_DOUBLE_EQ(Summary->Original.MaxMs, 210);
  EXPECT_DOUBLE_EQ(Summary->Ours.MedianMs, 100);
  EXPECT_DOUBLE_EQ(Summary->Speedup.Median, 2.0);
  EXPECT_LE(Summary->Speedup.Confidence95.Low, 2.0);
  EXPECT_GE(Summary->Speedup.Confidence95.High, 2.0);
  EXPECT_GE(Summary->Speedup.Confidence95.Low, 1.9);
  EXPECT_LE(Summary->Speedup.Confidence95.High, 2.1);
}

TEST(MeasurementTest, SummaryRefusesAFailedRun) {
  std::vector<RunRecord> Runs = pairs({{200, 100}, {200, 100}});
  Runs[3].Problem = "check failed: the app printed 'FAIL', not 'PASS'";
  auto Summary = summarizeRuns(Runs, 100, 1);
  ASSERT_FALSE(Summary);
  EXPECT_EQ(Summary.error(), "round 2, USE_OURS=1 (run 4 of 4): check failed: "
                             "the app printed 'FAIL', not 'PASS'");
}

TEST(MeasurementTest, SummaryRefusesAnIncompleteRound) {
  std::vector<RunRecord> Runs = pairs({{200, 100}, {200, 100}});
  Runs.pop_back();
  auto Summary = summarizeRuns(Runs, 100, 1);
  ASSERT_FALSE(Summary);
  EXPECT_EQ(Summary.error(), "round 2 lacks USE_OURS=1");
  EXPECT_FALSE(summarizeRuns({}, 100, 1));
}

} // namespace

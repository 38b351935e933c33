//===- OutputParsingTest.cpp - Timer and check lines ----------------------===//

#include "forgestencil/Harness/OutputParsing.h"

#include <gtest/gtest.h>

using namespace forgestencil::harness;

namespace {

TEST(OutputParsingTest, UnitConversion) {
  EXPECT_DOUBLE_EQ(*millisecondsPerUnit("ms"), 1.0);
  EXPECT_DOUBLE_EQ(*millisecondsPerUnit("s"), 1000.0);
  EXPECT_DOUBLE_EQ(*millisecondsPerUnit("us"), 0.001);
  EXPECT_DOUBLE_EQ(*millisecondsPerUnit("ns"), 1e-6);
  EXPECT_DOUBLE_EQ(*millisecondsPerUnit("min"), 60000.0);
  Expected<double> Bad = millisecondsPerUnit("hours");
  ASSERT_FALSE(Bad);
  EXPECT_NE(Bad.error().find("'hours'"), std::string::npos);
}

TEST(OutputParsingTest, TimerInSecondsIsConverted) {
  auto Ms = parseTimerMs("setup\nTotal time: 1.25 s\n",
                         {R"(Total time: ([0-9.eE+-]+) s)", "s"});
  ASSERT_TRUE(Ms);
  EXPECT_DOUBLE_EQ(*Ms, 1250.0);
}

TEST(OutputParsingTest, TimerInMicroseconds) {
  auto Ms = parseTimerMs("kernel_us=2500\n", {R"(kernel_us=(\d+))", "us"});
  ASSERT_TRUE(Ms);
  EXPECT_DOUBLE_EQ(*Ms, 2.5);
}

TEST(OutputParsingTest, LastTimerLineCounts) {
  auto Ms = parseTimerMs("TIMER 10\nTIMER 20\nTIMER 30\n",
                         {R"(TIMER (\d+))", "ms"});
  ASSERT_TRUE(Ms);
  EXPECT_DOUBLE_EQ(*Ms, 30.0);
}

TEST(OutputParsingTest, MissingTimerLineFails) {
  auto Ms = parseTimerMs("no time here\n", {R"(TIMER (\d+))", "ms"});
  ASSERT_FALSE(Ms);
  EXPECT_NE(Ms.error().find("no timer line"), std::string::npos);
}

TEST(OutputParsingTest, NonNumericTimerFails) {
  auto Ms = parseTimerMs("TIMER abc\n", {R"(TIMER (\S+))", "ms"});
  ASSERT_FALSE(Ms);
  EXPECT_NE(Ms.error().find("not a number"), std::string::npos);
  EXPECT_FALSE(parseTimerMs("TIMER -3\n", {R"(TIMER (\S+))", "ms"}));
  EXPECT_FALSE(parseTimerMs("TIMER inf\n", {R"(TIMER (\S+))", "ms"}));
}

TEST(OutputParsingTest, InvalidRegexIsReportedNotThrown) {
  auto Ms = parseTimerMs("TIMER 1\n", {"TIMER ([0-9", "ms"});
  ASSERT_FALSE(Ms);
  EXPECT_NE(Ms.error().find("timer.regex: invalid regular expression"),
            std::string::npos);
}

TEST(OutputParsingTest, RegexWithoutCaptureGroupIsRejected) {
  Expected<std::regex> Pattern = compileCapturePattern("TIMER [0-9]+", "timer.regex");
  ASSERT_FALSE(Pattern);
  EXPECT_NE(Pattern.error().find("no capture group"), std::string::npos);
}

TEST(OutputParsingTest, CheckVerdicts) {
  CheckPattern Check{R"(Verification: (\w+))", "PASS"};
  auto Pass = parseCheck("Verification: PASS\n", Check);
  ASSERT_TRUE(Pass);
  EXPECT_TRUE(Pass->Passed);
  auto Fail = parseCheck("Verification: FAIL\n", Check);
  ASSERT_TRUE(Fail);
  EXPECT_FALSE(Fail->Passed);
  EXPECT_EQ(Fail->Word, "FAIL");
  // The pass word must match exactly, not as a prefix.
  auto Passive = parseCheck("Verification: PASSIVE\n", Check);
  ASSERT_TRUE(Passive);
  EXPECT_FALSE(Passive->Passed);
}

TEST(OutputParsingTest, CustomPassWord) {
  auto Ok = parseCheck("result=OK\n", {R"(result=(\w+))", "OK"});
  ASSERT_TRUE(Ok);
  EXPECT_TRUE(Ok->Passed);
}

TEST(OutputParsingTest, MissingCheckLineFails) {
  auto Verdict = parseCheck("done\n", {R"(Verification: (\w+))", "PASS"});
  ASSERT_FALSE(Verdict);
  EXPECT_NE(Verdict.error().find("no check line"), std::string::npos);
}

} // namespace

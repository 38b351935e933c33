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

TEST(OutputParsingTest, InAppVerificationSummary) {
  auto V = parseInAppVerification(
      "step 1\n"
      "forgestencil verify: dvelcx launch 1: identical (13 allocation(s), "
      "100 bytes)\n"
      "forgestencil verify: dvelcx launch 2: not compared: no device memory "
      "for the copies of its state\n"
      "done\n"
      "forgestencil verify: kernel dvelcx: original 1.2500 ms, copy 1.0000 "
      "ms, original/copy 1.250 (median of 1 launch(es), best of 3 each)\n"
      "forgestencil verify: 1 launch(es) compared: 1 identical, 0 differ; 1 "
      "not compared\n");
  ASSERT_TRUE(V);
  EXPECT_EQ(V->Compared, 1u);
  EXPECT_EQ(V->Identical, 1u);
  EXPECT_EQ(V->Differ, 0u);
  EXPECT_EQ(V->NotCompared, 1u);
  ASSERT_EQ(V->Skipped.size(), 1u);
  EXPECT_TRUE(V->Differing.empty());
  ASSERT_EQ(V->Kernels.size(), 1u);
  EXPECT_EQ(V->Kernels[0].Kernel, "dvelcx");
  EXPECT_DOUBLE_EQ(V->Kernels[0].OriginalMs, 1.25);
  EXPECT_DOUBLE_EQ(V->Kernels[0].CopyMs, 1.0);
  EXPECT_EQ(V->Kernels[0].Launches, 1u);
}

TEST(OutputParsingTest, InAppVerificationDifference) {
  auto V = parseInAppVerification(
      "forgestencil verify: k launch 3: DIFFERS in 4 byte(s), first at byte 8 "
      "of allocation 1 of 2; the original's result is kept\n"
      "forgestencil verify: 3 launch(es) compared: 2 identical, 1 differ; 0 "
      "not compared\n");
  ASSERT_TRUE(V);
  EXPECT_EQ(V->Differ, 1u);
  ASSERT_EQ(V->Differing.size(), 1u);
  EXPECT_EQ(V->Differing[0].rfind("k launch 3: DIFFERS", 0), 0u);
}

TEST(OutputParsingTest, InAppVerificationDifferenceFromScrambledInputs) {
  // Identical on the app's state, not from scrambled inputs: a difference.
  auto V = parseInAppVerification(
      "forgestencil verify: k[a] launch 1: identical (3 allocation(s), 96 "
      "bytes; also from scrambled inputs (2 allocation(s) scrambled)); "
      "original 0.0100 ms, copy 0.0090 ms\n"
      "forgestencil verify: k[b] launch 1: DIFFERS from scrambled inputs "
      "(identical on the app's state) in 12 byte(s), first at byte 4 of "
      "allocation 3 of 3; the original's result is kept\n"
      "forgestencil verify: 2 launch(es) compared: 1 identical, 1 differ; 0 "
      "not compared\n");
  ASSERT_TRUE(V) << V.error();
  EXPECT_EQ(V->Identical, 1u);
  EXPECT_EQ(V->Differ, 1u);
  ASSERT_EQ(V->Differing.size(), 1u);
  EXPECT_EQ(V->Differing[0].rfind("k[b] launch 1: DIFFERS from scrambled", 0),
            0u);
}

TEST(OutputParsingTest, InAppVerificationFallBack) {
  // A variant checked at run time that differed: the original ran in its
  // place; counted apart from the differences that refuse a measurement.
  auto V = parseInAppVerification(
      "forgestencil verify: k[a] launch 1: identical (2 allocation(s), 64 "
      "bytes); original 0.0100 ms, copy 0.0090 ms\n"
      "forgestencil verify: z[b] launch 1: FALLS BACK: differs in 8 byte(s), "
      "first at byte 4 of allocation 2 of 2; the original runs in its place, "
      "as under USE_OURS=1\n"
      "forgestencil verify: 2 launch(es) compared: 1 identical, 0 differ; 0 "
      "not compared; 1 fell back to the original\n");
  ASSERT_TRUE(V) << V.error();
  EXPECT_EQ(V->Compared, 2u);
  EXPECT_EQ(V->Differ, 0u);
  EXPECT_EQ(V->FellBack, 1u);
  ASSERT_EQ(V->FallingBack.size(), 1u);
  EXPECT_EQ(V->FallingBack[0].rfind("z[b] launch 1: FALLS BACK", 0), 0u);
  EXPECT_TRUE(V->Differing.empty());
  // A count that disagrees with the lines is refused.
  auto Wrong = parseInAppVerification(
      "forgestencil verify: 2 launch(es) compared: 1 identical, 0 differ; 0 "
      "not compared; 1 fell back to the original\n");
  EXPECT_FALSE(Wrong);
}

TEST(OutputParsingTest, InAppVerificationNeedsItsSummary) {
  auto Missing = parseInAppVerification(
      "forgestencil verify: k launch 1: identical (1 allocation(s), 8 bytes)\n");
  ASSERT_FALSE(Missing);
  EXPECT_NE(Missing.error().find("no 'forgestencil verify"), std::string::npos);
  // A summary that hides a difference its launches reported.
  auto Inconsistent = parseInAppVerification(
      "forgestencil verify: k launch 1: DIFFERS in 1 byte(s), first at byte 0 "
      "of allocation 1 of 1; the original's result is kept\n"
      "forgestencil verify: 1 launch(es) compared: 1 identical, 0 differ; 0 "
      "not compared\n");
  ASSERT_FALSE(Inconsistent);
}

} // namespace

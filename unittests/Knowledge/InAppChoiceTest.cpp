//===- InAppChoiceTest.cpp - In-app candidates from a verify record -------===//

#include "forgestencil/Knowledge/InAppChoice.h"

#include <gtest/gtest.h>

using namespace forgestencil::knowledge;

namespace {

const char *Record = R"({"app": "demo", "in_app_verification": {
  "differing": ["smooth[c.32x8] launch 10: DIFFERS in 4 byte(s), first at byte 8 of allocation 2 of 2; the original's result is kept"],
  "kernel_times": {
  "smooth[a.128x1]": {"original_ms": 2.0, "copy_ms": 1.9, "launches": 5},
  "smooth[b.32x4]": {"original_ms": 2.1, "copy_ms": 1.5, "launches": 5},
  "smooth[c.32x8]": {"original_ms": 2.0, "copy_ms": 0.5, "launches": 4},
  "smooth2[a.128x1]": {"original_ms": 1.0, "copy_ms": 0.1, "launches": 5}}}})";

TEST(InAppChoiceTest, FastestThatNeverDiffered) {
  auto M = measuredInApp(Record, "smooth", 0.02);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  ASSERT_TRUE(M->Fastest.has_value());
  EXPECT_EQ(*M->Fastest, "b.32x4");
  EXPECT_TRUE(M->Faster);
  EXPECT_DOUBLE_EQ(M->OriginalMs, 2.1);
  EXPECT_DOUBLE_EQ(M->CandidateMs, 1.5);
  EXPECT_EQ(M->Launches, 5u);
  // Another kernel whose name starts the same is not mixed in.
  EXPECT_EQ(M->Timed, (std::vector<std::string>{"a.128x1", "b.32x4"}));
  EXPECT_EQ(M->Differed, (std::vector<std::string>{"c.32x8"}));
}

TEST(InAppChoiceTest, ADifferenceFromScrambledInputsRefusesToo) {
  // b was identical on the app's state at every launch and the fastest,
  // but differed from scrambled inputs once: a.
  const char *R = R"({"in_app_verification": {
    "differing": ["k[b] launch 2: DIFFERS from scrambled inputs (identical on the app's state) in 8 byte(s), first at byte 4 of allocation 2 of 2; the original's result is kept"],
    "kernel_times": {
    "k[a]": {"original_ms": 2.0, "copy_ms": 1.6, "launches": 3},
    "k[b]": {"original_ms": 2.0, "copy_ms": 1.0, "launches": 2}}}})";
  auto M = measuredInApp(R, "k", 0.02);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  ASSERT_TRUE(M->Fastest.has_value());
  EXPECT_EQ(*M->Fastest, "a");
  EXPECT_EQ(M->Differed, (std::vector<std::string>{"b"}));
}

TEST(InAppChoiceTest, TheRatioDecidesNotTheTime) {
  // b's own original is slower (its launches were), but its ratio is the
  // better one: 2.2 / 1.8 = 1.22 against 2.0 / 1.7 = 1.18.
  const char *R = R"({"in_app_verification": {"kernel_times": {
    "k[a]": {"original_ms": 2.0, "copy_ms": 1.7, "launches": 3},
    "k[b]": {"original_ms": 2.2, "copy_ms": 1.8, "launches": 3}}}})";
  auto M = measuredInApp(R, "k", 0.02);
  ASSERT_TRUE(bool(M));
  EXPECT_EQ(*M->Fastest, "b");
}

TEST(InAppChoiceTest, BelowTheMarginIsNotFaster) {
  const char *R = R"({"in_app_verification": {"kernel_times": {
    "k[a]": {"original_ms": 1.0, "copy_ms": 0.985, "launches": 3}}}})";
  auto M = measuredInApp(R, "k", 0.02);
  ASSERT_TRUE(bool(M));
  ASSERT_TRUE(M->Fastest.has_value());
  EXPECT_FALSE(M->Faster);
  auto Lower = measuredInApp(R, "k", 0.01);
  ASSERT_TRUE(bool(Lower));
  EXPECT_TRUE(Lower->Faster);
}

TEST(InAppChoiceTest, ErrorsNameWhatIsWrong) {
  auto NotARecord = measuredInApp(R"({"app": "demo"})", "k", 0.0);
  ASSERT_FALSE(bool(NotARecord));
  EXPECT_NE(llvm::toString(NotARecord.takeError()).find("kernel_times"),
            std::string::npos);
  auto BadTimes = measuredInApp(
      R"({"in_app_verification": {"kernel_times": {"k[a]": {"original_ms": 1, "copy_ms": 0}}}})",
      "k", 0.0);
  ASSERT_FALSE(bool(BadTimes));
  EXPECT_NE(llvm::toString(BadTimes.takeError()).find("k[a]"),
            std::string::npos);
  auto NotJson = measuredInApp("{", "k", 0.0);
  EXPECT_FALSE(bool(NotJson));
  llvm::consumeError(NotJson.takeError());
}

} // namespace

//===- StatisticsTest.cpp - Medians, ratios and bootstrap intervals -------===//

#include "forgestencil/Harness/Statistics.h"

#include <gtest/gtest.h>

using namespace forgestencil::harness;

namespace {

TEST(StatisticsTest, MedianOfOddCountIsTheMiddleValue) {
  Expected<double> M = median({5.0, 1.0, 3.0});
  ASSERT_TRUE(M);
  EXPECT_DOUBLE_EQ(*M, 3.0);
}

TEST(StatisticsTest, MedianOfEvenCountAveragesTheMiddlePair) {
  Expected<double> M = median({4.0, 1.0, 3.0, 10.0});
  ASSERT_TRUE(M);
  EXPECT_DOUBLE_EQ(*M, 3.5);
}

TEST(StatisticsTest, MedianOfOneValue) {
  EXPECT_DOUBLE_EQ(*median({7.25}), 7.25);
}

TEST(StatisticsTest, MedianOfNothingFails) {
  Expected<double> M = median({});
  ASSERT_FALSE(M);
  EXPECT_NE(M.error().find("empty"), std::string::npos);
}

TEST(StatisticsTest, MinMax) {
  auto Range = minMax({3.0, -1.0, 8.0, 2.0});
  ASSERT_TRUE(Range);
  EXPECT_DOUBLE_EQ(Range->first, -1.0);
  EXPECT_DOUBLE_EQ(Range->second, 8.0);
  EXPECT_FALSE(minMax({}));
}

TEST(StatisticsTest, PairRatios) {
  auto Ratios = pairRatios({200, 300, 90}, {100, 100, 90});
  ASSERT_TRUE(Ratios);
  EXPECT_EQ(*Ratios, (std::vector<double>{2.0, 3.0, 1.0}));
}

TEST(StatisticsTest, PairRatiosRejectsMismatchAndZero) {
  EXPECT_FALSE(pairRatios({1, 2}, {1}));
  Expected<std::vector<double>> Zero = pairRatios({1, 2}, {1, 0});
  ASSERT_FALSE(Zero);
  EXPECT_NE(Zero.error().find("pair 2"), std::string::npos);
}

TEST(StatisticsTest, BootstrapIntervalContainsTheMedian) {
  std::vector<double> Values = {1.9, 2.1, 2.0, 1.95, 2.05, 2.2, 1.8, 2.02};
  auto CI = bootstrapMedianInterval(Values, 10000, 42);
  ASSERT_TRUE(CI);
  double M = *median(Values);
  EXPECT_LE(CI->Low, M);
  EXPECT_GE(CI->High, M);
  EXPECT_GE(CI->Low, 1.8);
  EXPECT_LE(CI->High, 2.2);
  EXPECT_LT(CI->Low, CI->High);
}

TEST(StatisticsTest, BootstrapIsDeterministicForASeed) {
  std::vector<double> Values = {1.0, 1.5, 2.5, 3.0, 0.5, 4.0, 2.0};
  auto First = bootstrapMedianInterval(Values, 2000, 7);
  auto Second = bootstrapMedianInterval(Values, 2000, 7);
  ASSERT_TRUE(First && Second);
  EXPECT_EQ(First->Low, Second->Low);
  EXPECT_EQ(First->High, Second->High);
}

TEST(StatisticsTest, BootstrapDependsOnTheSeed) {
  // With many distinct values and few resamples, two seeds almost surely
  // give different bounds; this guards against an ignored seed.
  std::vector<double> Values;
  for (int I = 0; I < 50; ++I)
    Values.push_back(I * 0.37 + (I % 7) * 0.11);
  auto A = bootstrapMedianInterval(Values, 25, 1);
  auto B = bootstrapMedianInterval(Values, 25, 2);
  ASSERT_TRUE(A && B);
  EXPECT_TRUE(A->Low != B->Low || A->High != B->High);
}

TEST(StatisticsTest, BootstrapDegenerateCases) {
  auto Single = bootstrapMedianInterval({3.5}, 100, 1);
  ASSERT_TRUE(Single);
  EXPECT_EQ(Single->Low, 3.5);
  EXPECT_EQ(Single->High, 3.5);

  auto Constant = bootstrapMedianInterval({2.0, 2.0, 2.0, 2.0}, 100, 1);
  ASSERT_TRUE(Constant);
  EXPECT_EQ(Constant->Low, 2.0);
  EXPECT_EQ(Constant->High, 2.0);

  EXPECT_FALSE(bootstrapMedianInterval({}, 100, 1));
  EXPECT_FALSE(bootstrapMedianInterval({1.0, 2.0}, 0, 1));
  EXPECT_FALSE(bootstrapMedianInterval({1.0, 2.0}, 10, 1, 1.0));
  EXPECT_FALSE(bootstrapMedianInterval({1.0, 2.0}, 10, 1, 0.0));
}

TEST(StatisticsTest, UniformBelowStaysInRangeAndCoversIt) {
  std::mt19937_64 Generator(3);
  std::vector<int> Seen(5, 0);
  for (int I = 0; I < 1000; ++I) {
    uint64_t Draw = uniformBelow(Generator, 5);
    ASSERT_LT(Draw, 5u);
    ++Seen[Draw];
  }
  for (int Count : Seen)
    EXPECT_GT(Count, 100);
}

} // namespace

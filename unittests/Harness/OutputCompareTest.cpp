//===- OutputCompareTest.cpp - Comparing the outputs of the two modes -----===//

#include "forgestencil/Harness/OutputCompare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace forgestencil::harness;

namespace {

std::string floatBytes(const std::vector<float> &Values) {
  std::string Bytes(Values.size() * 4, '\0');
  std::memcpy(Bytes.data(), Values.data(), Bytes.size());
  return Bytes;
}

TEST(OutputCompareTest, IdenticalBytes) {
  OutputComparison C = compareOutputBytes("abcd", "abcd");
  EXPECT_TRUE(C.Identical);
  EXPECT_FALSE(C.AsValues);
  EXPECT_EQ(C.describe(), "identical (4 bytes)");
}

TEST(OutputCompareTest, DifferentSizes) {
  OutputComparison C = compareOutputBytes("abcd", "abcdefgh");
  EXPECT_FALSE(C.Identical);
  EXPECT_FALSE(C.AsValues);
  EXPECT_EQ(C.describe(), "differ (4 vs 8 bytes)");
}

TEST(OutputCompareTest, Float32Differences) {
  OutputComparison C = compareOutputBytes(floatBytes({1.0f, 2.0f, 0.0f, 4.0f}),
                                          floatBytes({1.0f, 2.5f, 0.1f, 4.0f}));
  EXPECT_FALSE(C.Identical);
  ASSERT_TRUE(C.AsValues);
  EXPECT_EQ(C.AsValues->Elements, 4u);
  EXPECT_EQ(C.AsValues->DifferingElements, 2u);
  EXPECT_NEAR(C.AsValues->MaxAbsDiff, 0.5, 1e-7);
  // The zero original is left out of the relative difference.
  EXPECT_NEAR(C.AsValues->MaxRelDiff, 0.25, 1e-7);
  EXPECT_EQ(C.AsValues->FirstDifference, std::optional<size_t>(1));
  EXPECT_NE(C.describe().find("2 of 4 values"), std::string::npos);
}

TEST(OutputCompareTest, NanHandling) {
  float Nan = std::nanf("");
  OutputComparison Same = compareOutputBytes(floatBytes({Nan, 1.0f}),
                                             floatBytes({Nan, 1.0f}));
  EXPECT_TRUE(Same.Identical);
  // Different NaN payloads differ as bytes but are equal as values.
  std::string A = floatBytes({Nan, 1.0f}), B = A;
  B[0] ^= 1;
  OutputComparison Payload = compareOutputBytes(A, B);
  EXPECT_FALSE(Payload.Identical);
  ASSERT_TRUE(Payload.AsValues);
  EXPECT_EQ(Payload.AsValues->DifferingElements, 0u);

  OutputComparison OneSided = compareOutputBytes(floatBytes({1.0f, 1.0f}),
                                                 floatBytes({Nan, 1.0f}));
  ASSERT_TRUE(OneSided.AsValues);
  EXPECT_EQ(OneSided.AsValues->NanMismatches, 1u);
  EXPECT_NE(OneSided.describe().find("NaN in one output only"), std::string::npos);
}

TEST(OutputCompareTest, Float64Differences) {
  std::vector<double> A = {1.0, 2.0}, B = {1.0, 2.0 + 1e-12};
  std::string BytesA(16, '\0'), BytesB(16, '\0');
  std::memcpy(BytesA.data(), A.data(), 16);
  std::memcpy(BytesB.data(), B.data(), 16);
  OutputComparison C = compareOutputBytes(BytesA, BytesB, ElementType::Float64);
  ASSERT_TRUE(C.AsValues);
  EXPECT_EQ(C.AsValues->Elements, 2u);
  EXPECT_EQ(C.AsValues->DifferingElements, 1u);
  EXPECT_NEAR(C.AsValues->MaxAbsDiff, 1e-12, 1e-15);
  EXPECT_NE(C.describe().find("differ as float64"), std::string::npos);
}

TEST(OutputCompareTest, ElementTypeNames) {
  EXPECT_EQ(*parseElementType("float64"), ElementType::Float64);
  EXPECT_EQ(*parseElementType("float32"), ElementType::Float32);
  EXPECT_FALSE(parseElementType("int8"));
}

TEST(OutputCompareTest, MissingFileFails) {
  Expected<OutputComparison> C =
      compareOutputFiles("/nonexistent/a.out", "/nonexistent/b.out");
  ASSERT_FALSE(C);
  EXPECT_NE(C.error().find("cannot be read"), std::string::npos);
}

} // namespace

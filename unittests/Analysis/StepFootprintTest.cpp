//===- StepFootprintTest.cpp - One time step's points from N steps' ------===//

#include "StepFootprint.h"

#include "gtest/gtest.h"

using namespace forgestencil::analysis;
using namespace forgestencil::analysis::detail;

namespace {

std::set<StepOffset> star2d(int64_t R) {
  std::set<StepOffset> S;
  for (int64_t D = -R; D <= R; ++D) {
    S.insert({D, 0, 0});
    S.insert({0, D, 0});
  }
  return S;
}

std::set<StepOffset> diamond2d(int64_t R) {
  std::set<StepOffset> S;
  for (int64_t X = -R; X <= R; ++X)
    for (int64_t Y = -R; Y <= R; ++Y)
      if (std::llabs(X) + std::llabs(Y) <= R)
        S.insert({X, Y, 0});
  return S;
}

std::set<StepOffset> shifted(const std::set<StepOffset> &S, StepOffset T) {
  std::set<StepOffset> Out;
  for (const StepOffset &O : S)
    Out.insert({O[0] + T[0], O[1] + T[1], O[2] + T[2]});
  return Out;
}

TEST(StepFootprintTest, ThreeStepsOfAStarAreADiamond) {
  // The step as seen from elsewhere (its points relative to another
  // store): the translation is found from the three steps' diamond.
  auto F = stepFootprint(shifted(star2d(1), {4, -7, 0}), diamond2d(3), 3);
  ASSERT_TRUE(F);
  EXPECT_EQ(*F, star2d(1));
}

TEST(StepFootprintTest, UpwindStepsKeepTheirSide) {
  std::set<StepOffset> Step{{-1, 0, 0}, {0, 0, 0}};
  std::set<StepOffset> Two{{-2, 0, 0}, {-1, 0, 0}, {0, 0, 0}};
  auto F = stepFootprint(shifted(Step, {10, 0, 0}), Two, 2);
  ASSERT_TRUE(F);
  EXPECT_EQ(*F, Step);
}

TEST(StepFootprintTest, RefusesWhatDoesNotSumToTheComposite) {
  // A boundary store's value was computed from fewer points.
  std::set<StepOffset> Clipped = diamond2d(2);
  Clipped.erase({-2, 0, 0});
  EXPECT_FALSE(stepFootprint(star2d(1), Clipped, 2));
  // A half-point translation.
  std::set<StepOffset> Odd = shifted(diamond2d(2), {1, 0, 0});
  EXPECT_FALSE(stepFootprint(star2d(1), Odd, 2));
  // A partial update (one row of a box) is no step of the box.
  std::set<StepOffset> Row{{-1, 0, 0}, {0, 0, 0}, {1, 0, 0}};
  std::set<StepOffset> Box;
  for (int64_t X = -2; X <= 2; ++X)
    for (int64_t Y = -2; Y <= 2; ++Y)
      Box.insert({X, Y, 0});
  EXPECT_FALSE(stepFootprint(Row, Box, 2));
  EXPECT_FALSE(stepFootprint({}, Box, 2));
  EXPECT_FALSE(stepFootprint(Row, Box, 0));
}

TEST(StepFootprintTest, DescribesShapes) {
  auto Star = describeStep(star2d(2), 2);
  EXPECT_EQ(Star.Dims, 2u);
  EXPECT_EQ(Star.Radius, 2);
  EXPECT_EQ(Star.Offsets.size(), 9u);
  EXPECT_EQ(Star.Shape, "star");
  std::set<StepOffset> Box;
  for (int64_t X = -1; X <= 1; ++X)
    for (int64_t Y = -1; Y <= 1; ++Y)
      for (int64_t Z = -1; Z <= 1; ++Z)
        Box.insert({X, Y, Z});
  EXPECT_EQ(describeStep(Box, 3).Shape, "box");
  EXPECT_EQ(describeStep(Box, 3).Offsets.size(), 27u);
  EXPECT_EQ(describeStep(diamond2d(2), 2).Shape, "other");
}

SymbolKind kinds(const std::string &S) {
  if (S.rfind("tid.", 0) == 0 || S.rfind("bid.", 0) == 0 || S == "row")
    return SymbolKind::Thread;
  if (S == "level")
    return SymbolKind::Selector;
  return SymbolKind::Size;
}

TEST(StepFootprintTest, AxesAndOffsetsFromIndexPolynomials) {
  // a[level*n*n*n + (bid.z*32 + 2)*n*n + row*n + bid.x*blockDim.x + tid.x]
  Poly N = Poly::symbol("n");
  Poly Stored = Poly::symbol("level") * N * N * N +
                (Poly::symbol("bid.z") * Poly::constant(32) +
                 Poly::constant(2)) * N * N +
                Poly::symbol("row") * N +
                Poly::symbol("bid.x") * Poly::symbol("bdim.x") +
                Poly::symbol("tid.x");
  auto Axes = indexAxes(Stored, kinds);
  ASSERT_TRUE(Axes);
  ASSERT_EQ(Axes->size(), 3u);
  EXPECT_EQ((*Axes)[0], Monomial{});
  EXPECT_EQ((*Axes)[1], Monomial{"n"});
  EXPECT_EQ((*Axes)[2], (Monomial{"n", "n"}));
  // Another time level, one plane up, one row down, two columns right.
  Poly Read = Stored - Poly::symbol("level") * N * N * N +
              Poly::symbol("other") * N * N * N + N * N - N +
              Poly::constant(2);
  // 'other' is a size symbol here: n^3 is no axis, so it is refused...
  EXPECT_FALSE(indexOffset(Read - Stored, *Axes, kinds));
  // ...while a time-level selector is dropped.
  Read = Stored + N * N - N + Poly::constant(2);
  auto O = indexOffset(Read - Stored, *Axes, kinds);
  ASSERT_TRUE(O);
  EXPECT_EQ(*O, (StepOffset{2, -1, 1}));
  // A difference that still depends on the thread is no offset.
  EXPECT_FALSE(indexOffset(Poly::symbol("tid.x"), *Axes, kinds));
  // threadIdx.y * blockDim.x is part of a linear thread id, not a stride.
  auto Linear = indexAxes(Poly::symbol("tid.y") * Poly::symbol("bdim.x") +
                              Poly::symbol("tid.x") +
                              Poly::symbol("row") * N,
                          kinds);
  ASSERT_TRUE(Linear);
  EXPECT_EQ(Linear->size(), 2u);
}

} // namespace

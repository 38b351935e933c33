//===- NamedStencilsTest.cpp ----------------------------------------------===//

#include "forgestencil/Forge/NamedStencils.h"

#include <gtest/gtest.h>

using namespace forgestencil;

namespace {

ir::StencilIR named(const std::string &Name, const std::string &T = "float") {
  std::string Error;
  auto IR = forge::namedStencil(Name, T, Error);
  EXPECT_TRUE(IR) << Error;
  return IR ? *IR : ir::StencilIR();
}

TEST(NamedStencils, PointCountsAndShapes) {
  EXPECT_EQ(named("star2d_r1").Points, 5u);
  EXPECT_EQ(named("box2d_r1").Points, 9u);
  EXPECT_EQ(named("star3d_r1").Points, 7u);
  EXPECT_EQ(named("box3d_r1").Points, 27u);
  EXPECT_EQ(named("star3d_r4").Points, 25u);
  EXPECT_EQ(named("box3d_r1").Shape, "box");
  EXPECT_EQ(named("star3d_r4").Shape, "star");
  EXPECT_EQ(named("star3d_r4").Radius, 4u);
}

TEST(NamedStencils, CompulsoryBytes) {
  EXPECT_EQ(named("star3d_r1", "double").BytesPerPoint, 16u);
  EXPECT_EQ(named("rtm").BytesPerPoint, 16u); // u, u_prev, vel, u_next
  // Three fields read and written, three read, two coefficients.
  EXPECT_EQ(named("fdtd_e").BytesPerPoint, 44u);
  EXPECT_EQ(named("fdtd_h").BytesPerPoint, 44u);
}

TEST(NamedStencils, RtmVelocityIsPerPoint) {
  ir::StencilIR IR = named("rtm");
  bool Found = false;
  for (const ir::InputArray &In : IR.Inputs)
    if (In.Param == "vel") {
      Found = true;
      EXPECT_TRUE(In.PerPointCoefficient);
    }
  EXPECT_TRUE(Found);
  EXPECT_EQ(IR.Points, 25u); // the velocity is not part of the footprint
}

TEST(NamedStencils, RoundTripsThroughJson) {
  for (const std::string &N : forge::namedStencilNames()) {
    ir::StencilIR IR = named(N);
    std::string Error;
    auto Back = ir::fromJson(ir::toJson(IR), Error);
    ASSERT_TRUE(Back) << N << ": " << Error;
    EXPECT_EQ(ir::toJson(*Back), ir::toJson(IR)) << N;
  }
}

TEST(NamedStencils, RejectsUnknown) {
  std::string Error;
  EXPECT_FALSE(forge::namedStencil("star5d_r1", "float", Error));
  EXPECT_NE(Error.find("unknown"), std::string::npos);
  EXPECT_FALSE(forge::namedStencil("rtm", "half", Error));
}

} // namespace

//===- StrategyTest.cpp ---------------------------------------------------===//

#include "forgestencil/Forge/NamedStencils.h"
#include "forgestencil/Forge/Strategy.h"

#include <gtest/gtest.h>

using namespace forgestencil;

namespace {

ir::StencilIR named(const std::string &Name, const std::string &T = "float") {
  std::string Error;
  return *forge::namedStencil(Name, T, Error);
}

TEST(Strategy, RegistryHasTheBaselineFirst) {
  ASSERT_FALSE(forge::allStrategies().empty());
  EXPECT_STREQ(forge::allStrategies()[0]->name(), "naive");
  for (const char *N : {"naive", "multipoint", "zmarch", "zmarch_smem"})
    EXPECT_NE(forge::findStrategy(N), nullptr) << N;
  EXPECT_EQ(forge::findStrategy("nope"), nullptr);
}

TEST(Strategy, ParamsRoundTripAndId) {
  forge::StrategyParams P;
  P.Strategy = "zmarch";
  P.VectorWidth = 4;
  P.ZChunk = 32;
  P.RegisterQueue = true;
  P.Unroll = 2;
  EXPECT_EQ(P.id(), "zmarch.32x4.v4.y1.z32.q.u2");
  // Unstaged parameters are written as before staging existed.
  EXPECT_FALSE(P.toJson().contains("stages"));
  std::string Error;
  auto Back = forge::StrategyParams::fromJson(P.toJson(), Error);
  ASSERT_TRUE(Back) << Error;
  EXPECT_EQ(*Back, P);
  P.Stages = 2;
  EXPECT_EQ(P.id(), "zmarch.32x4.v4.y1.z32.q.u2.a2");
  EXPECT_EQ(P.toJson().at("stages"), 2);
  Back = forge::StrategyParams::fromJson(P.toJson(), Error);
  ASSERT_TRUE(Back) << Error;
  EXPECT_EQ(*Back, P);
}

TEST(Strategy, ParamsRejectBadValues) {
  std::string Error;
  nlohmann::json J = {{"strategy", "zmarch"}, {"vector_width", 3}};
  EXPECT_FALSE(forge::StrategyParams::fromJson(J, Error));
  J = {{"strategy", "zmarch"}, {"block", {64, 32, 1}}};
  EXPECT_FALSE(forge::StrategyParams::fromJson(J, Error));
  J = {{"strategy", "zmarch"}, {"stages", 9}};
  EXPECT_FALSE(forge::StrategyParams::fromJson(J, Error));
  EXPECT_NE(Error.find("stages"), std::string::npos) << Error;
}

TEST(Strategy, EverySearchPointGeneratesForEveryNamedStencil) {
  for (const std::string &N : forge::namedStencilNames())
    for (const char *T : {"float", "double"}) {
      ir::StencilIR IR = named(N, T);
      for (const auto &S : forge::allStrategies()) {
        if (!S->whyNot(IR).empty())
          continue;
        for (const forge::StrategyParams &P : S->searchSpace(IR)) {
          forge::GenerateOptions O;
          O.LauncherName = "fs_test";
          forge::GeneratedSource G = S->generate(IR, P, O);
          EXPECT_TRUE(G.ok()) << N << " " << T << " " << P.id() << ": "
                              << G.Error;
        }
      }
    }
}

TEST(Strategy, SmemNeedsNeighboursInThePlane) {
  const forge::Strategy *S = forge::findStrategy("zmarch_smem");
  EXPECT_TRUE(S->whyNot(named("star3d_r2")).empty());
  EXPECT_TRUE(S->whyNot(named("fdtd_e")).empty());
  // A box reads xy neighbours in the planes above and below.
  EXPECT_FALSE(S->whyNot(named("box3d_r1")).empty());
  EXPECT_FALSE(S->whyNot(named("star2d_r1")).empty());
}

TEST(Strategy, DoubleHasNoFourWideVector) {
  forge::StrategyParams P;
  P.Strategy = "multipoint";
  P.VectorWidth = 4;
  forge::GenerateOptions O;
  auto G = forge::findStrategy("multipoint")
               ->generate(named("star3d_r1", "double"), P, O);
  EXPECT_FALSE(G.ok());
  EXPECT_NE(G.Error.find("4-wide"), std::string::npos);
}

} // namespace

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
  // P comes back the same from its JSON and from its id.
  auto RoundTrips = [](const forge::StrategyParams &P) {
    std::string Error;
    auto Back = forge::StrategyParams::fromJson(P.toJson(), Error);
    ASSERT_TRUE(Back) << Error;
    EXPECT_EQ(*Back, P);
    Back = forge::StrategyParams::fromId(P.id(), Error);
    ASSERT_TRUE(Back) << P.id() << ": " << Error;
    EXPECT_EQ(*Back, P);
  };
  forge::StrategyParams P;
  P.Strategy = "zmarch";
  P.VectorWidth = 4;
  P.ZChunk = 32;
  P.RegisterQueue = true;
  P.Unroll = 2;
  EXPECT_EQ(P.id(), "zmarch.32x4.v4.y1.z32.q.u2");
  // Unstaged parameters are written as before staging existed.
  EXPECT_FALSE(P.toJson().contains("stages"));
  RoundTrips(P);
  P.Stages = 2;
  EXPECT_EQ(P.id(), "zmarch.32x4.v4.y1.z32.q.u2.a2");
  EXPECT_EQ(P.toJson().at("stages"), 2);
  RoundTrips(P);
  // The load order is written only when reversed.
  EXPECT_FALSE(P.toJson().contains("reverse_loads"));
  P.ReverseLoads = true;
  EXPECT_EQ(P.id(), "zmarch.32x4.v4.y1.z32.q.u2.a2.r");
  EXPECT_EQ(P.toJson().at("reverse_loads"), true);
  RoundTrips(P);
  // So are the streaming hints and masked edge groups, only when used.
  EXPECT_FALSE(P.toJson().contains("streaming_hints"));
  EXPECT_FALSE(P.toJson().contains("masked_edges"));
  P.StreamingHints = true;
  EXPECT_EQ(P.id(), "zmarch.32x4.v4.y1.z32.q.u2.a2.r.cs");
  EXPECT_EQ(P.toJson().at("streaming_hints"), true);
  RoundTrips(P);
  P.MaskedEdges = true;
  EXPECT_EQ(P.id(), "zmarch.32x4.v4.y1.z32.q.u2.a2.r.cs.w");
  EXPECT_EQ(P.toJson().at("masked_edges"), true);
  RoundTrips(P);
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

TEST(Strategy, IdParsesBackToEverySearchPoint) {
  std::string Error;
  for (const std::string &N : forge::namedStencilNames()) {
    ir::StencilIR IR = named(N);
    for (const auto &S : forge::allStrategies())
      for (const forge::StrategyParams &P : S->searchSpace(IR)) {
        auto Back = forge::StrategyParams::fromId(P.id(), Error);
        ASSERT_TRUE(Back) << P.id() << ": " << Error;
        EXPECT_EQ(*Back, P) << P.id();
      }
  }
  forge::StrategyParams P;
  P.Strategy = "zsum";
  P.BlockZ = 2;
  P.SharedTile = true;
  P.MinBlocksPerSM = 10;
  P.Stages = 3;
  P.RegisterQueue = P.PlaneQueue = true;
  EXPECT_EQ(P.id(), "zsum.32x4x2.v1.y1.z1.qp.s.a3.m10");
  auto Back = forge::StrategyParams::fromId(P.id(), Error);
  ASSERT_TRUE(Back) << Error;
  EXPECT_EQ(*Back, P);
}

TEST(Strategy, SpreadSampleTakesBothEndsAndEvenSteps) {
  std::vector<forge::StrategyParams> Space;
  for (unsigned BX : {32u, 64u, 128u, 256u, 512u, 1024u, 16u})
    Space.push_back(forge::searchPoint("naive", BX, 1, 1, 1, 1));
  auto Blocks = [](const std::vector<forge::StrategyParams> &Ps) {
    std::vector<unsigned> B;
    for (const forge::StrategyParams &P : Ps)
      B.push_back(P.BlockX);
    return B;
  };
  using V = std::vector<unsigned>;
  EXPECT_EQ(Blocks(forge::spreadSample(Space, 2)), (V{32, 16}));
  EXPECT_EQ(Blocks(forge::spreadSample(Space, 3)), (V{32, 256, 16}));
  // Index steps of 6/3 = 2: 0, 2, 4, 6.
  EXPECT_EQ(Blocks(forge::spreadSample(Space, 4)), (V{32, 128, 512, 16}));
  // Index steps of 6/5, rounded: 0, 1, 2, 4, 5, 6; distinct, in order.
  EXPECT_EQ(Blocks(forge::spreadSample(Space, 6)),
            (V{32, 64, 128, 512, 1024, 16}));
  EXPECT_EQ(Blocks(forge::spreadSample(Space, 1)), (V{32}));
  EXPECT_EQ(forge::spreadSample(Space, 7).size(), 7u);
  EXPECT_EQ(forge::spreadSample(Space, 9).size(), 7u);
  EXPECT_EQ(forge::spreadSample(Space, 0).size(), 7u);
  EXPECT_TRUE(forge::spreadSample({}, 2).empty());
}

TEST(Strategy, IdRejectsWhatIdNeverWrites) {
  std::string Error;
  struct Case {
    const char *Id, *Says;
  } Cases[] = {
      {"zsum.32x4.v1.y8", "expected strategy.BXxBY"},
      {"zsum.32.v1.y1.z8", "block '32'"},
      {"zsum.32x4x2x2.v1.y1.z8", "block"},
      {"zsum.32x4.y1.v1.z8", "expected 'vN', found 'y1'"},
      {"zsum.32x4.v3.y1.z8", "vector_width"},
      {"zsum.64x32.v1.y1.z8", "1..1024 threads"},
      {"zsum.32x4.v1.y0.z8", "at least 1"},
      {"zsum.32x4.v1.y1.z8.u1", "canonical form"},
      {"zsum.32x4.v1.y1.z8.a2.u3", "canonical form (that would be "
                                   "'zsum.32x4.v1.y1.z8.u3.a2')"},
      {"zsum.32x4.v1.y1.z8.r.a2", "canonical form (that would be "
                                  "'zsum.32x4.v1.y1.z8.a2.r')"},
      {"zsum.32x4.v1.y1.z8.cs.r", "canonical form (that would be "
                                  "'zsum.32x4.v1.y1.z8.r.cs')"},
      {"zsum.32x4.v1.y1.z8.w.cs", "canonical form (that would be "
                                  "'zsum.32x4.v1.y1.z8.cs.w')"},
      {"zsum.32x4.v1.y1.z8.w2", "unknown part 'w2'"},
      {"zsum.32x4.v1.y1.z8.u", "unknown part 'u'"},
      {"zsum.32x4.v-1.y1.z8", "expected 'vN'"},
      {".32x4.v1.y1.z8", "expected strategy"},
  };
  for (const Case &C : Cases) {
    Error.clear();
    EXPECT_FALSE(forge::StrategyParams::fromId(C.Id, Error)) << C.Id;
    EXPECT_NE(Error.find(C.Says), std::string::npos) << C.Id << ": " << Error;
  }
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

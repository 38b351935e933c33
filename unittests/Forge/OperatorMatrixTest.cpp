//===- OperatorMatrixTest.cpp ---------------------------------------------===//

#include "forgestencil/Forge/NamedStencils.h"
#include "forgestencil/Forge/OperatorMatrix.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace forgestencil;

namespace {

ir::StencilIR named(const std::string &Name, const std::string &T = "float") {
  std::string Error;
  return *forge::namedStencil(Name, T, Error);
}

forge::Measurement measurement(const std::string &Strategy, double Fraction) {
  forge::Measurement M;
  M.Signature = forge::stencilSignature(named("rtm"));
  M.Arch = "sm_90";
  M.SizeClass = "large";
  M.Best.Strategy = Strategy;
  M.FractionOfCopy = Fraction;
  M.EffectiveGBs = Fraction * 4000;
  M.CopyGBs = 4000;
  M.Evidence = {{"date", "2026-11-30"}, {"gpu", "test"}};
  return M;
}

TEST(OperatorMatrix, SignatureSaysWhatMatters) {
  EXPECT_EQ(forge::stencilSignature(named("rtm")),
            "3d.star.r4.pts25.in3.out1.pp1.coef-constant-array.f32");
  EXPECT_EQ(forge::stencilSignature(named("star3d_r1", "double")),
            "3d.star.r1.pts7.in1.out1.pp0.coef-scalar-param.f64");
  // A replicated boundary is a different entry from the same footprint's
  // untouched boundary.
  EXPECT_EQ(forge::stencilSignature(named("star3d_r1_clamp")),
            "3d.star.r1.pts7.in1.out1.pp0.coef-scalar-param.clamp-xyz.f32");
  EXPECT_EQ(forge::stencilSignature(named("hotspot2d")),
            "2d.star.r1.pts5.in2.out1.pp1.coef-scalar-param.clamp-xy.f32");
}

TEST(OperatorMatrix, SizeClass) {
  ir::StencilIR IR = named("rtm"); // 16 B/point
  EXPECT_EQ(forge::sizeClass(IR, 1000, 60 << 20), "small");
  EXPECT_EQ(forge::sizeClass(IR, 512LL * 512 * 512, 60 << 20), "large");
}

TEST(OperatorMatrix, AddKeepsHistoryAndTheBest) {
  nlohmann::json M = forge::emptyMatrix();
  forge::addMeasurement(M, measurement("zmarch", 0.7));
  forge::addMeasurement(M, measurement("naive", 0.5));
  ASSERT_EQ(M["entries"].size(), 1u);
  EXPECT_EQ(M["entries"][0]["history"].size(), 2u);
  EXPECT_EQ(M["entries"][0]["best"]["strategy"]["strategy"], "zmarch");
  forge::addMeasurement(M, measurement("multipoint", 0.8));
  EXPECT_EQ(M["entries"][0]["best"]["strategy"]["strategy"], "multipoint");
}

TEST(OperatorMatrix, MergeLosesNothingAndIsIdempotent) {
  nlohmann::json A = forge::emptyMatrix(), B = forge::emptyMatrix();
  forge::addMeasurement(A, measurement("zmarch", 0.7));
  forge::addMeasurement(B, measurement("multipoint", 0.6));
  forge::Measurement Other = measurement("naive", 0.5);
  Other.Arch = "sm_80";
  forge::addMeasurement(B, Other);
  forge::mergeMatrix(A, B);
  forge::mergeMatrix(A, B);
  ASSERT_EQ(A["entries"].size(), 2u);
  EXPECT_EQ(A["entries"][0]["history"].size(), 2u);
  EXPECT_EQ(A["entries"][0]["best"]["strategy"]["strategy"], "zmarch");
}

TEST(OperatorMatrix, PicksKnownBestOrTheDocumentedDefault) {
  ir::StencilIR IR = named("rtm");
  nlohmann::json M = forge::emptyMatrix();
  std::string Source;
  forge::StrategyParams P = forge::pickStrategy(M, IR, "sm_90", "large",
                                                &Source);
  EXPECT_EQ(Source, "default");
  EXPECT_EQ(P.Strategy, "zmarch");
  EXPECT_EQ(P.VectorWidth, 4u);
  forge::addMeasurement(M, measurement("multipoint", 0.9));
  P = forge::pickStrategy(M, IR, "sm_90", "large", &Source);
  EXPECT_EQ(Source, "knowledge");
  EXPECT_EQ(P.Strategy, "multipoint");
  // Another architecture knows nothing yet.
  forge::pickStrategy(M, IR, "sm_100", "large", &Source);
  EXPECT_EQ(Source, "default");
}

TEST(OperatorMatrix, SkipsAKnownBestThatCannotBeGeneratedHere) {
  // The best recorded point masks cut groups, which needs the row's extent;
  // an IR of the same signature without it gets the documented default, not
  // a point whose generation would fail when the patch is written.
  ir::StencilIR IR = named("rtm");
  forge::Measurement Masked = measurement("zmarch", 0.81);
  Masked.Best.VectorWidth = 4;
  Masked.Best.ZChunk = 16;
  Masked.Best.RegisterQueue = true;
  Masked.Best.Unroll = 2;
  Masked.Best.MaskedEdges = true;
  nlohmann::json M = forge::emptyMatrix();
  forge::addMeasurement(M, Masked);
  std::string Source;
  forge::StrategyParams P = forge::pickStrategy(M, IR, "sm_90", "large",
                                                &Source);
  EXPECT_EQ(Source, "knowledge");
  EXPECT_TRUE(P.MaskedEdges);
  IR.Axes[0].Extent.clear();
  P = forge::pickStrategy(M, IR, "sm_90", "large", &Source);
  EXPECT_EQ(Source, "default");
  EXPECT_FALSE(P.MaskedEdges);
}

TEST(OperatorMatrix, ClampedStencilFallsBackToTheUntouchedBoundary) {
  // Recorded for star3d_r1 (untouched boundary): the clamped variant takes
  // it and says why; the reverse does not happen.
  nlohmann::json M = forge::emptyMatrix();
  forge::Measurement Plain = measurement("multipoint", 0.9);
  Plain.Signature = forge::stencilSignature(named("star3d_r1"));
  forge::addMeasurement(M, Plain);
  std::string Source;
  forge::StrategyParams P =
      forge::pickStrategy(M, named("star3d_r1_clamp"), "sm_90", "large",
                          &Source);
  EXPECT_EQ(P.Strategy, "multipoint");
  EXPECT_NE(Source.find("replicated boundary"), std::string::npos) << Source;

  nlohmann::json C = forge::emptyMatrix();
  forge::Measurement Clamped = measurement("multipoint", 0.9);
  Clamped.Signature = forge::stencilSignature(named("star3d_r1_clamp"));
  forge::addMeasurement(C, Clamped);
  P = forge::pickStrategy(C, named("star3d_r1"), "sm_90", "large", &Source);
  EXPECT_EQ(Source, "default");
  P = forge::pickStrategy(C, named("star3d_r1_clamp"), "sm_90", "large",
                          &Source);
  EXPECT_EQ(Source, "knowledge");
}

TEST(OperatorMatrix, RecordWritesAtomicallyAndAccumulates) {
  char Dir[] = "/tmp/fs-matrix-XXXXXX";
  ASSERT_NE(mkdtemp(Dir), nullptr);
  std::string Path = std::string(Dir) + "/operator-matrix.json";
  std::string Error;
  ASSERT_TRUE(forge::recordMeasurement(Path, measurement("zmarch", 0.7), Error))
      << Error;
  ASSERT_TRUE(forge::recordMeasurement(Path, measurement("naive", 0.5), Error))
      << Error;
  nlohmann::json M;
  ASSERT_TRUE(forge::loadMatrix(Path, M, Error)) << Error;
  EXPECT_EQ(M["entries"][0]["history"].size(), 2u);
  std::ofstream(Path) << "not json";
  EXPECT_FALSE(forge::recordMeasurement(Path, measurement("x", 0.1), Error));
  std::remove(Path.c_str());
  std::remove((Path + ".lock").c_str());
  rmdir(Dir);
}

TEST(OperatorMatrix, EvidenceCommandLeavesOutPathsOfTheHost) {
  const char *Argv[] = {"/opt/fs/bin/fs-tune",   "b",        "-j",
                        "16",                    "--out",    "/data/r.json",
                        "--record=/data/m.json", "--reps",   "20",
                        "--run-only",            "--output", "x"};
  EXPECT_EQ(forge::evidenceCommand("fs-tune", 12, Argv, {"--out", "--record"},
                                   {"--run-only"}),
            "fs-tune b -j 16 --reps 20 --output x");
  // Nothing to leave out: the arguments as given, the tool by its name.
  EXPECT_EQ(forge::evidenceCommand("fs-bench", 3, Argv, {}), "fs-bench b -j");
  // A dropped option given last without its value drops nothing more.
  const char *Last[] = {"fs-tune", "b", "--out"};
  EXPECT_EQ(forge::evidenceCommand("fs-tune", 3, Last, {"--out"}), "fs-tune b");
}

} // namespace

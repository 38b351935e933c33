//===- BundleTest.cpp - Tuning bundle manifest, drivers and winners --------===//

#include "forgestencil/Forge/Bundle.h"
#include "forgestencil/Forge/BundleResults.h"
#include "forgestencil/Forge/NamedStencils.h"

#include <gtest/gtest.h>

using namespace forgestencil;
using nlohmann::json;

namespace {

ir::StencilIR named(const std::string &Name) {
  std::string Error;
  return *forge::namedStencil(Name, "float", Error);
}

forge::BundleKernel rtmKernel() {
  forge::BundleKernel K;
  K.IR = named("rtm");
  K.Name = K.IR.Kernel;
  K.TranslationUnit = "src/rtm.cu";
  K.Flags = {"-I${BUNDLE}/app/include", "-DNDEBUG"};
  K.TimeShape = {96, 80, 64};
  K.Candidates =
      forge::chooseCandidates(K.IR, json::object(), "sm_90", 4, nullptr);
  return K;
}

TEST(Bundle, ManifestRoundTrips) {
  forge::BundleManifest M;
  M.ToolVersion = "0.1.0";
  M.App = "rtm";
  M.Tolerance = "bit-identical";
  M.Kernels.push_back(rtmKernel());
  forge::BundleCandidate Ext;
  Ext.Id = "src:mine";
  Ext.Origin = "external";
  Ext.Source = "candidates/k/mine.cu";
  Ext.Launcher = "mine";
  Ext.Driver = "drivers/k/4.cu";
  M.Kernels[0].Candidates.push_back(Ext);
  M.LinkUnits.push_back({"src/host.cpp", {"-O2"}});
  M.Skipped.push_back("sponge: not a stencil");
  std::string Error;
  auto Back = forge::BundleManifest::fromJson(M.toJson(), Error);
  ASSERT_TRUE(Back) << Error;
  EXPECT_EQ(Back->toJson(), M.toJson());
  ASSERT_EQ(Back->Kernels.size(), 1u);
  EXPECT_EQ(Back->Kernels[0].Candidates.back().Launcher, "mine");
  EXPECT_FALSE(Back->Kernels[0].Candidates.back().Params);
  EXPECT_TRUE(Back->Kernels[0].Candidates.front().Params);
  EXPECT_NE(Back->kernel(M.Kernels[0].Name), nullptr);
}

TEST(Bundle, ManifestRejectsOtherDocuments) {
  std::string Error;
  EXPECT_FALSE(forge::BundleManifest::fromJson({{"schema", "x"}}, Error));
  EXPECT_NE(Error.find("not a tuning bundle"), std::string::npos);
  json J = forge::BundleManifest().toJson();
  J["version"] = 99;
  EXPECT_FALSE(forge::BundleManifest::fromJson(J, Error));
  J = forge::BundleManifest().toJson();
  J.erase("kernels");
  EXPECT_FALSE(forge::BundleManifest::fromJson(J, Error));
}

TEST(Bundle, FlagsUnderTheSourceRootBecomeBundlePaths) {
  auto F = forge::rebaseFlags(
      {"-Iinclude", "-I", "/src/app/gen", "-isystem", "/opt/x/include",
       "-DA=1", "-I/src/app"},
      "/src/app/build", "/src/app");
  std::vector<std::string> Want = {"-I/src/app/build/include",
                                   "-I",
                                   "${BUNDLE}/app/gen",
                                   "-isystem",
                                   "/opt/x/include",
                                   "-DA=1",
                                   "-I${BUNDLE}/app"};
  // include/ is relative to the build directory, which is under the root.
  Want[0] = "-I${BUNDLE}/app/build/include";
  EXPECT_EQ(F, Want);
}

TEST(Bundle, CandidatesStartFromKnowledgeAndStayWithinBudget) {
  std::string Source;
  auto C = forge::chooseCandidates(named("rtm"), json::object(), "sm_90", 5,
                                   &Source);
  ASSERT_EQ(C.size(), 5u);
  EXPECT_EQ(C[0].Origin, "knowledge");
  EXPECT_EQ(Source, "default");
  std::set<std::string> Ids;
  for (const auto &X : C) {
    EXPECT_TRUE(Ids.insert(X.Id).second) << X.Id;
    EXPECT_TRUE(X.Params);
  }
  // Different strategies are taken in turn, not one strategy's space only.
  std::set<std::string> Strategies;
  for (const auto &X : C)
    Strategies.insert(X.Params->Strategy);
  EXPECT_GE(Strategies.size(), 3u);
  EXPECT_EQ(forge::chooseCandidates(named("rtm"), json::object(), "sm_90", 1,
                                    nullptr)
                .size(),
            1u);
}

TEST(Bundle, DriverCallsTheAppsKernelAndSymbols) {
  forge::BundleKernel K = rtmKernel();
  std::string Error;
  std::string D = forge::generateDriver(K, K.Candidates[0], "/b", Error);
  ASSERT_FALSE(D.empty()) << Error;
  EXPECT_NE(D.find("#define main fs_app_main\n#include \"../../app/src/rtm.cu\"\n#undef main"),
            std::string::npos);
  // The original is the app's kernel, launched on the given stream.
  EXPECT_NE(D.find(K.IR.Kernel + "<<<fs_g, fs_b, fs_sh, fs_s>>>("),
            std::string::npos);
  // Coefficients go to the app's own __constant__ symbol.
  EXPECT_NE(D.find("return cudaMemcpyToSymbol(c, host, bytes);"),
            std::string::npos)
      << D.substr(0, 4000);
  // The candidate uses the existing symbols rather than defining copies.
  EXPECT_NE(D.find("the original's symbol, visible where this file is "
                   "included"),
            std::string::npos);
  EXPECT_NE(D.find("namespace fs_f64 {"), std::string::npos);
  EXPECT_NE(D.find("#define FS_BUNDLE_DRIVER 1"), std::string::npos);
  EXPECT_NE(D.find("\"" + K.Candidates[0].Id + "\""), std::string::npos);
  EXPECT_NE(D.find("int main(int argc, char **argv)"), std::string::npos);
}

TEST(Bundle, ExternalCandidateIsIncludedAndNamed) {
  forge::BundleKernel K = rtmKernel();
  forge::BundleCandidate C;
  C.Id = "src:mine";
  C.Source = "candidates/rtm/mine.cu";
  C.Launcher = "my_launcher";
  std::string Error;
  std::string D = forge::generateDriver(K, C, "/b", Error);
  ASSERT_FALSE(D.empty()) << Error;
  EXPECT_NE(D.find("#include \"../../candidates/rtm/mine.cu\""),
            std::string::npos);
  EXPECT_NE(D.find("  my_launcher(fs_g, fs_b, fs_sh, fs_s, "), std::string::npos);
  EXPECT_NE(D.find("\"src:mine\""), std::string::npos);
}

forge::CandidateResult result(const std::string &Id, const std::string &Verdict,
                              double Orig, double Cand, double Spread = 0.01) {
  forge::CandidateResult C;
  C.Kernel = "k";
  C.Id = Id;
  C.Compile = "ok";
  C.Verdict = Verdict;
  C.OriginalMs = Orig;
  C.OriginalSpreadMs = Spread;
  C.CandidateMs = Cand;
  C.CandidateSpreadMs = Spread;
  forge::StrategyParams P;
  P.Strategy = "zmarch";
  C.Params = P;
  return C;
}

TEST(BundleResults, RoundTrip) {
  forge::TuneResults R;
  R.GpuName = "NVIDIA H200";
  R.Driver = "580.1";
  R.NvccVersion = "13.0";
  R.Candidates.push_back(result("a", "bitexact", 2, 1));
  R.Candidates.back().Reason = "r";
  R.Candidates.push_back(result("b", "FAIL", 2, 0.5));
  R.Candidates.back().Params.reset();
  R.Candidates.back().Source = "candidates/k/b.cu";
  std::string Error;
  auto Back = forge::TuneResults::fromJson(R.toJson(), Error);
  ASSERT_TRUE(Back) << Error;
  EXPECT_EQ(Back->toJson(), R.toJson());
  EXPECT_DOUBLE_EQ(Back->Candidates[0].speedup(), 2.0);
  EXPECT_FALSE(forge::TuneResults::fromJson({{"schema", "nope"}}, Error));
}

TEST(BundleResults, FailedCandidatesAreNeverChosen) {
  forge::TuneResults R;
  R.Candidates.push_back(result("fast-but-wrong", "FAIL", 2, 0.2));
  R.Candidates.push_back(result("crashed", "crash", 2, 0.1));
  R.Candidates.push_back(result("oob", "memcheck", 2, 0.1));
  auto Screened = result("screened", "FAIL", 2, 0.1);
  Screened.Compile = "screened";
  R.Candidates.push_back(Screened);
  auto NotBuilt = result("not-built", "bitexact", 2, 0.1);
  NotBuilt.Compile = "failed";
  R.Candidates.push_back(NotBuilt);
  R.Candidates.push_back(result("right", "bitexact", 2, 1.5));
  auto W = forge::chooseWinners(R);
  ASSERT_EQ(W.count("k"), 1u);
  EXPECT_EQ(W["k"].CandidateId, "right");
  EXPECT_NEAR(W["k"].Speedup, 2.0 / 1.5, 1e-12);
  EXPECT_TRUE(W["k"].Params);
  EXPECT_EQ(forge::winningStrategies(W).count("k"), 1u);
}

TEST(BundleResults, NoiseKeepsTheOriginal) {
  forge::TuneResults R;
  // 1% faster, but both measurements spread by 3%.
  R.Candidates.push_back(result("close", "bitexact", 1.00, 0.99, 0.03));
  auto W = forge::chooseWinners(R);
  EXPECT_TRUE(W["k"].fallback());
  EXPECT_NE(W["k"].Summary.find("reference fallback"), std::string::npos);
  EXPECT_NE(W["k"].Summary.find("none faster"), std::string::npos);
  EXPECT_TRUE(forge::winningStrategies(W).empty());
}

TEST(BundleResults, NothingVerifiedSaysSo) {
  forge::TuneResults R;
  R.Candidates.push_back(result("x", "FAIL", 1, 0.5));
  auto W = forge::chooseWinners(R);
  EXPECT_TRUE(W["k"].fallback());
  EXPECT_NE(W["k"].Summary.find("none of 1 candidates passed verification"),
            std::string::npos);
}

TEST(BundleResults, TiesPreferBitIdenticalThenId) {
  forge::TuneResults R;
  R.Candidates.push_back(result("b-tol", "tolerance", 2, 1.000, 0.01));
  R.Candidates.push_back(result("c-exact", "bitexact", 2, 1.005, 0.01));
  R.Candidates.push_back(result("a-exact", "bitexact", 2, 1.005, 0.01));
  auto W = forge::chooseWinners(R);
  EXPECT_EQ(W["k"].CandidateId, "a-exact");
  // A clear win beats bit-identity.
  R.Candidates.push_back(result("d-tol", "tolerance", 2, 0.5, 0.01));
  W = forge::chooseWinners(R);
  EXPECT_EQ(W["k"].CandidateId, "d-tol");
}

} // namespace

namespace {

using forgestencil::forge::CandidateResult;
using forgestencil::forge::implausibleTiming;

CandidateResult timed(double CandidateMs) {
  CandidateResult C;
  C.Compile = "ok";
  C.Verdict = "bitexact";
  C.CandidateMs = CandidateMs;
  C.OriginalMs = 0.2174;
  C.FootprintMs = 0.15;
  C.CopyMs = 0.2;
  C.CopyBytes = 2.0 * 256 * 1024 * 1024; // 2.7 TB/s
  C.Points = 384LL * 384 * 384;
  return C;
}

TEST(PlausibleTimingTest, AnHonestFastCandidatePasses) {
  // 8 bytes a point at 0.16 ms: 2.8 TB/s, 1.05x the copy kernel.
  EXPECT_EQ(implausibleTiming(timed(0.16), 8, 1e9, 50e6), "");
}

TEST(PlausibleTimingTest, FasterThanTheFootprintKernelIsRejected) {
  // The 174x winner of an idle candidate: 0.0012 ms.
  std::string Why = implausibleTiming(timed(0.0012), 8, 1e9, 50e6);
  EXPECT_NE(Why.find("implausible: 0.0012 ms is 125.0x faster than the "
                     "footprint kernel's 0.1500 ms"),
            std::string::npos)
      << Why;
}

TEST(PlausibleTimingTest, BandwidthAboveTheCopyIsRejectedWhereBuffersExceedL2) {
  CandidateResult C = timed(0.075);
  C.FootprintMs = 0; // results without the footprint kernel
  std::string Why = implausibleTiming(C, 8, 1e9, 50e6);
  EXPECT_NE(Why.find("implausible: an effective bandwidth of"), std::string::npos)
      << Why;
  EXPECT_NE(Why.find("the copy kernel's"), std::string::npos) << Why;
  // Timed buffers that fit in L2 can beat the copy kernel honestly.
  EXPECT_EQ(implausibleTiming(C, 8, 100e6, 50e6), "");
}

} // namespace

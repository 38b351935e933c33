//===- GenerationLoopTest.cpp - The loop's decisions from fs-tune results -===//

#include "forgestencil/Agents/GenerationLoop.h"

#include <gtest/gtest.h>

using namespace forgestencil::agents;
using nlohmann::json;

namespace {

json resultsWith(json Candidate) {
  Candidate["kernel"] = "heat";
  Candidate["id"] = "src:llm_heat_r1_1";
  return {{"candidates", json::array({Candidate})}};
}

TEST(GenerationLoopTest, CompileFailureAsksForACompileRepair) {
  json R = resultsWith({{"compile", "failed"}, {"verdict", "FAIL"},
                        {"reason", "nvcc exit 1: error: identifier \"q\" is "
                                   "undefined"}});
  CandidateVerdict V = classifyCandidate(R, "heat", "src:llm_heat_r1_1", true);
  EXPECT_EQ(V.Status, CandidateVerdict::CompileError);
  EXPECT_FALSE(isSuccess(V, true));
  auto M = repairMessageFor(V, true);
  ASSERT_TRUE(M);
  EXPECT_NE(M->Content.find("identifier \"q\" is undefined"), std::string::npos);
}

TEST(GenerationLoopTest, CompileRepairPrefersTheWholeBuildLog) {
  json R = resultsWith({{"compile", "failed"}, {"verdict", "FAIL"},
                        {"reason", "nvcc exit code 2: 1 error detected"}});
  CandidateVerdict V = classifyCandidate(R, "heat", "src:llm_heat_r1_1", true);
  V.BuildLog = "c.cu(3): error: identifier \"q\" is undefined\n"
               "1 error detected\n";
  auto M = repairMessageFor(V, true);
  ASSERT_TRUE(M);
  EXPECT_NE(M->Content.find("identifier \"q\" is undefined"),
            std::string::npos);
}

TEST(GenerationLoopTest, CompiledIsSuccessOnlyInCompileOnlyMode) {
  json R = resultsWith({{"compile", "ok"}, {"verdict", "not-run"}});
  CandidateVerdict V = classifyCandidate(R, "heat", "src:llm_heat_r1_1", true);
  EXPECT_EQ(V.Status, CandidateVerdict::Compiled);
  EXPECT_TRUE(isSuccess(V, true));
  EXPECT_FALSE(repairMessageFor(V, true));
  // With a GPU a driver that ran nothing did not verify: ask again.
  CandidateVerdict G = classifyCandidate(R, "heat", "src:llm_heat_r1_1", false);
  EXPECT_FALSE(isSuccess(G, false));
  EXPECT_TRUE(repairMessageFor(G, false));
}

TEST(GenerationLoopTest, VerificationFailureQuotesTheCaseAndReason) {
  json R = resultsWith({{"compile", "ok"}, {"verdict", "FAIL"},
                        {"reason", "partial case [37,19,11]: mismatch"},
                        {"max_error", 0.5}, {"tolerance", 1e-6}});
  CandidateVerdict V = classifyCandidate(R, "heat", "src:llm_heat_r1_1", false);
  EXPECT_EQ(V.Status, CandidateVerdict::Mismatch);
  auto M = repairMessageFor(V, false);
  ASSERT_TRUE(M);
  EXPECT_NE(M->Content.find("37,19,11"), std::string::npos);
  EXPECT_NE(M->Content.find("mismatch"), std::string::npos);
}

TEST(GenerationLoopTest, VerifiedEndsTheLoop) {
  json R = resultsWith({{"compile", "ok"}, {"verdict", "tolerance"},
                        {"candidate_ms", 1.5}, {"original_ms", 2.0}});
  CandidateVerdict V = classifyCandidate(R, "heat", "src:llm_heat_r1_1", false);
  EXPECT_EQ(V.Status, CandidateVerdict::Verified);
  EXPECT_TRUE(isSuccess(V, false));
  EXPECT_DOUBLE_EQ(V.CandidateMs, 1.5);
}

TEST(GenerationLoopTest, CrashAndScreenAndMissing) {
  json Crash = resultsWith({{"compile", "ok"}, {"verdict", "crash"},
                            {"reason", "driver signal 11"}});
  EXPECT_EQ(classifyCandidate(Crash, "heat", "src:llm_heat_r1_1", false).Status,
            CandidateVerdict::Crash);
  json Screened = resultsWith({{"compile", "screened"}, {"verdict", "FAIL"},
                               {"reason", "screen: line 3: timing: clock"}});
  EXPECT_EQ(
      classifyCandidate(Screened, "heat", "src:llm_heat_r1_1", true).Status,
      CandidateVerdict::Screened);
  CandidateVerdict Missing = classifyCandidate(Crash, "heat", "src:other", true);
  EXPECT_EQ(Missing.Status, CandidateVerdict::Missing);
  EXPECT_TRUE(repairMessageFor(Missing, true));
}

TEST(GenerationLoopTest, LauncherParamsPutTheLaunchFirst) {
  json Ir = {{"params", {{{"type", "const float *"}, {"name", "in"}},
                         {{"type", "int"}, {"name", "nx"}}}}};
  std::vector<std::string> P = launcherParams(Ir);
  ASSERT_EQ(P.size(), 6u);
  EXPECT_EQ(P[0], "dim3 grid");
  EXPECT_EQ(P[3], "cudaStream_t stream");
  EXPECT_EQ(P[4], "const float * in");
  EXPECT_EQ(P[5], "int nx");
}

TEST(GenerationLoopTest, KernelSourceIsCutOutOfItsUnit) {
  std::string TU = "#include <x>\n__global__ void other(float *a) { a[0] = 1; }\n"
                   "__global__ void heat(float *a) {\n  if (1) { a[1] = 2; }\n}\n"
                   "int main() {}\n";
  EXPECT_EQ(extractKernelSource(TU, "heat"),
            "__global__ void heat(float *a) {\n  if (1) { a[1] = 2; }\n}");
  EXPECT_EQ(extractKernelSource(TU, "absent"), TU);
}

} // namespace

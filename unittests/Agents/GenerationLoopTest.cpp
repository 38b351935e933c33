//===- GenerationLoopTest.cpp - The loop's decisions from fs-tune results -===//

#include "forgestencil/Agents/GenerationLoop.h"
#include "forgestencil/Agents/RunLog.h"

#include "ScriptedServer.h"
#include "TempDir.h"

#include <algorithm>
#include <fstream>

#include <gtest/gtest.h>

using namespace forgestencil::agents;
using namespace forgestencil::agents::test;
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

TEST(GenerationLoopTest, VerificationFailureNamesThePointExpectedAndGot) {
  json R = resultsWith(
      {{"compile", "ok"}, {"verdict", "FAIL"},
       {"reason", "small case [41,57,43]: mismatch: 310 points differ, max "
                  "error 0.5 against float64 exceeds the tolerance 2.4e-07; "
                  "largest error at out[40,3,17]: expected 0.125, got 0.625"},
       {"max_error", 0.5}, {"tolerance", 2.4e-07}});
  CandidateVerdict V = classifyCandidate(R, "heat", "src:llm_heat_r1_1", false);
  auto M = repairMessageFor(V, false);
  ASSERT_TRUE(M);
  EXPECT_NE(M->Content.find("The first wrong value in `out` is at [40,3,17] "
                            "of the small case [41,57,43] (the point of the "
                            "largest error): expected 0.125 (the original's), "
                            "got 0.625."),
            std::string::npos)
      << M->Content;
  EXPECT_NE(M->Content.find("Problem size: 41,57,43."), std::string::npos);
  EXPECT_NE(M->Content.find("(tolerance 2.4e-07)"), std::string::npos);
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

/// A bundle manifest with one kernel `heat(const float *in, float *out)` and
/// no built-in candidates.
void writeManifest(const std::string &Dir) {
  json Ir = {{"kernel", "heat"},
             {"element_type", "float"},
             {"params", {{{"type", "const float *"}, {"name", "in"}},
                         {{"type", "float *"}, {"name", "out"}}}}};
  json M = {{"kernels", {{{"name", "heat"},
                          {"translation_unit", "heat.cu"},
                          {"time_shape", {64, 64}},
                          {"candidates", json::array()},
                          {"ir", Ir}}}}};
  std::ofstream(Dir + "/manifest.json") << M.dump(2);
}

// Answers that never reach the evaluator: no code block, then code the
// screen refuses. Each is sent back as a repair request, and the round budget
// ends the loop. The evaluator path is a binary that does not exist, so
// reaching it would be an error of the loop.
TEST(GenerationLoopTest, FormatAndScreenRepairsUseUpTheRounds) {
  ScriptedServer Server;
  Server.then(replyJson(200, completion("I would rather explain it in words.")));
  Server.then(replyJson(
      200, completion("```cuda\n__global__ void k(const float *in, float "
                      "*out) { long long t = clock64(); out[0] = in[0] + t; }\n"
                      "void fs_llm_heat(dim3 grid, dim3 block, size_t shmem, "
                      "cudaStream_t stream, const float *in, float *out) {\n"
                      "  k<<<grid, block, shmem, stream>>>(in, out);\n}\n```\n")));
  TempDir Bundle, Run;
  writeManifest(Bundle.path());
  LlmConfig Config;
  Config.BaseUrl = Server.root();
  Config.Model = "test";
  Config.ApiKey = "sk-loop-secret";
  Config.MaxAttempts = 1;
  LlmClient Client(Config);
  auto Log = RunLog::open(Run.path(), Config.ApiKey);
  ASSERT_TRUE(Log) << Log.error();
  Client.setRunLog(&*Log);
  GenerationLoopOptions O;
  O.BundleDir = Bundle.path();
  O.Kernel = "heat";
  O.FsTune = Bundle.path() + "/no-such-fs-tune";
  O.Rounds = 2;
  auto R = runGenerationLoop(Client, *Log, O);
  ASSERT_TRUE(R) << R.error();
  EXPECT_FALSE(R->Succeeded);
  EXPECT_EQ(R->RoundsUsed, 2);
  ASSERT_EQ(R->RoundSummaries.size(), 2u);
  EXPECT_NE(R->RoundSummaries[0].find("format"), std::string::npos);
  EXPECT_NE(R->RoundSummaries[1].find("screen"), std::string::npos);
  // The second request carries the first answer and the format repair; the
  // launcher the model was asked for is the one fs-tune's drivers call.
  auto Seen = Server.requests();
  ASSERT_GE(Seen.size(), 2u);
  json First = json::parse(Seen[Seen.size() - 2].Body);
  json Second = json::parse(Seen.back().Body);
  EXPECT_NE(First.dump().find("void fs_llm_heat(dim3 grid, dim3 block, size_t "
                              "shmem, cudaStream_t stream"),
            std::string::npos);
  EXPECT_EQ(Second["messages"].size(), First["messages"].size() + 2);
  EXPECT_EQ(Second["messages"][First["messages"].size()]["role"], "assistant");
  // Two requests, two responses, two verdicts; no candidate file.
  std::vector<std::string> Files = Run.filesUnder("");
  int Verdicts = 0;
  for (const std::string &F : Files) {
    Verdicts += F.find("-verdict.json") != std::string::npos;
    EXPECT_EQ(F.find(".cu"), std::string::npos) << F;
    EXPECT_EQ(Run.read(F).find("sk-loop-secret"), std::string::npos) << F;
  }
  EXPECT_EQ(Verdicts, 2);
}

TEST(GenerationLoopTest, AKernelMissingFromTheBundleIsAnError) {
  TempDir Bundle, Run;
  writeManifest(Bundle.path());
  LlmConfig Config;
  Config.BaseUrl = "http://127.0.0.1:1";
  Config.Model = "test";
  LlmClient Client(Config);
  auto Log = RunLog::open(Run.path(), "");
  ASSERT_TRUE(Log);
  GenerationLoopOptions O;
  O.BundleDir = Bundle.path();
  O.Kernel = "wave";
  auto R = runGenerationLoop(Client, *Log, O);
  ASSERT_FALSE(R);
  EXPECT_NE(R.error().find("no kernel 'wave'"), std::string::npos);
}

TEST(GenerationLoopTest, ProfilePicksTheCandidatesLongestLaunch) {
  // A bundle driver's launches: the original, the float64 reference, the
  // footprint kernel (checked on each verification case) and the candidate
  // at two sizes (verification, then the timed size).
  const char *Csv =
      "==PROF== Connected to process 4242\n"
      "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"heat7(const float *, float *, int, int, int)\",\"Duration\",\"msecond\",\"2.5\"\n"
      "\"1\",\"void fs_f64::fs_reference_impl_kernel<int>(double *)\",\"Duration\",\"msecond\",\"9\"\n"
      "\"5\",\"void fs_footprint<4>(FsFootprint)\",\"Duration\",\"msecond\",\"3\"\n"
      "\"2\",\"fs_llm_heat7_k(const float *, float *, int, int, int)\",\"Duration\",\"usecond\",\"12.5\"\n"
      "\"2\",\"fs_llm_heat7_k(const float *, float *, int, int, int)\",\"DRAM Throughput\",\"%\",\"20.1\"\n"
      "\"3\",\"fs_llm_heat7_k(const float *, float *, int, int, int)\",\"Duration\",\"usecond\",\"1,810.4\"\n"
      "\"3\",\"fs_llm_heat7_k(const float *, float *, int, int, int)\",\"DRAM Throughput\",\"%\",\"88.7\"\n"
      "\"3\",\"fs_llm_heat7_k(const float *, float *, int, int, int)\",\"Function Cache Configuration\",\"\",\"CachePreferNone\"\n"
      "\"4\",\"heat7_like(const float *)\",\"Duration\",\"nsecond\",\"100\"\n";
  auto All = parseNcuCsv(Csv);
  ASSERT_TRUE(All) << All.error();
  std::vector<NcuMetric> M = candidateLaunchMetrics(*All, "heat7");
  ASSERT_EQ(M.size(), 2u);
  EXPECT_EQ(M[0].MetricName, "Duration");
  EXPECT_EQ(M[0].ValueText, "1,810.4");
  EXPECT_EQ(M[1].MetricName, "DRAM Throughput");
  EXPECT_EQ(M[1].ValueText, "88.7");
  // Only the original and the reference: nothing to report.
  All->erase(std::remove_if(All->begin(), All->end(),
                            [](const NcuMetric &X) { return X.LaunchId >= 2; }),
             All->end());
  EXPECT_TRUE(candidateLaunchMetrics(*All, "heat7").empty());
}

TEST(GenerationLoopTest, ProfileOfARealDriverRunSkipsTheDriversKernels) {
  // Rows of `ncu --csv` 2025 on an H200 for a bundle driver: metric rows
  // stop before the rule columns of the header, rule rows fill them, and
  // the driver's float64 widening (longer than the candidate here) is not
  // the candidate.
  const char *Csv = R"csv(==PROF== Connected to process 5418
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value","Rule Name","Rule Type","Rule Description","Estimated Speedup Type","Estimated Speedup"
"26","5418","5","127.0.0.1","fs_widen(double *, const float *, long long)","1","7","(256, 1, 1)","(4224, 1, 1)","0","9.0","GPU Speed Of Light Throughput","DRAM Throughput","%","67.74",
"26","5418","5","127.0.0.1","fs_widen(double *, const float *, long long)","1","7","(256, 1, 1)","(4224, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","ns","200,928",
"26","5418","5","127.0.0.1","fs_widen(double *, const float *, long long)","1","7","(256, 1, 1)","(4224, 1, 1)","0","9.0","SpeedOfLight","","","","SOLBottleneck","OPT","Memory is more heavily utilized than Compute: Look at the Memory Workload Analysis section to identify the DRAM bottleneck. Check memory replay (coalescing) metrics to make sure you're efficiently utilizing the bytes transferred. Also consider whether it is possible to do more work per memory access (kernel fusion) or whether there are values you can (re)compute.","",""
"39","5418","5","127.0.0.1","fs_llm_heat7_k(const float *, float *, int, int, int, int, int)","1","18","(64, 4, 1)","(6, 96, 24)","0","9.0","GPU Speed Of Light Throughput","DRAM Throughput","%","52.80",
"39","5418","5","127.0.0.1","fs_llm_heat7_k(const float *, float *, int, int, int, int, int)","1","18","(64, 4, 1)","(6, 96, 24)","0","9.0","GPU Speed Of Light Throughput","Duration","ns","175,680",
"39","5418","5","127.0.0.1","fs_llm_heat7_k(const float *, float *, int, int, int, int, int)","1","18","(64, 4, 1)","(6, 96, 24)","0","9.0","SpeedOfLight","","","","SOLBottleneck","OPT","This workload exhibits low compute throughput and memory bandwidth utilization relative to the peak performance of this device. Achieved compute throughput and/or memory bandwidth below 60.0% of peak typically indicate latency issues. Look at Scheduler Statistics and Warp State Statistics for potential reasons.","",""
)csv";
  auto All = parseNcuCsv(Csv);
  ASSERT_TRUE(All) << All.error();
  std::vector<NcuMetric> M = candidateLaunchMetrics(*All, "heat7");
  ASSERT_EQ(M.size(), 2u);
  EXPECT_EQ(M[0].LaunchId, 39);
  EXPECT_EQ(M[0].MetricName, "Duration");
  EXPECT_EQ(M[0].ValueText, "175,680");
  EXPECT_EQ(M[1].ValueText, "52.80");
}

} // namespace

//===- PromptsTest.cpp - Generation, repair and analysis prompts ---------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/Prompts.h"
#include "forgestencil/Agents/ResponseParsing.h"

#include <gtest/gtest.h>

using namespace forgestencil::agents;

namespace {

bool contains(const std::string &Text, const std::string &Part) {
  return Text.find(Part) != std::string::npos;
}

TEST(PromptsTest, GenerationPromptCarriesEveryInput) {
  GenerationPromptInput In;
  In.ContractText = "Compute the same values at the same points.";
  In.StencilIrJson = R"({"element_type": "float", "radius": 1})";
  In.OriginalSource = "__global__ void heat(const float *in, float *out) {}";
  In.LauncherSignature = formatLauncherSignature(
      "fs_launch_heat", {"dim3 grid", "dim3 block", "size_t shmem", "cudaStream_t stream"});
  In.KnowledgeEntries = {"2D star r=1 on sm_90: 32x8 tile won by 1.4x"};
  In.ExampleCandidate = "__global__ void example() {}";
  std::vector<ChatMessage> Messages = buildGenerationPrompt(In);
  ASSERT_EQ(Messages.size(), 2u);
  EXPECT_EQ(Messages[0].Role, "system");
  EXPECT_EQ(Messages[1].Role, "user");
  const std::string &User = Messages[1].Content;
  EXPECT_TRUE(contains(User, In.ContractText));
  EXPECT_TRUE(contains(User, "```json\n" + In.StencilIrJson + "\n```"));
  EXPECT_TRUE(contains(User, In.OriginalSource));
  EXPECT_TRUE(contains(User, "void fs_launch_heat(dim3 grid, dim3 block, size_t shmem, "
                             "cudaStream_t stream);"));
  EXPECT_TRUE(contains(User, "- 2D star r=1 on sm_90: 32x8 tile won by 1.4x"));
  EXPECT_TRUE(contains(User, In.ExampleCandidate));
  EXPECT_TRUE(contains(Messages[0].Content, "exactly one ```cuda"));
  EXPECT_TRUE(contains(Messages[0].Content, "No timing"));
}

TEST(PromptsTest, RepairForVerificationNamesThePoint) {
  RepairDetails Details;
  Details.Mismatch = VerificationMismatch{"(x=17, y=3)", "out", "0.25", "0.5",
                                         "1027x515", "0.25", "0", 12};
  ChatMessage Message = buildRepairPrompt(RepairKind::Verification, Details);
  EXPECT_EQ(Message.Role, "user");
  EXPECT_TRUE(contains(Message.Content,
                       "The first wrong value in `out` is at (x=17, y=3): expected "
                       "0.25, got 0.5."))
      << Message.Content;
  EXPECT_TRUE(contains(Message.Content, "12 points differ"));
  EXPECT_TRUE(contains(Message.Content, "1027x515"));
}

TEST(PromptsTest, RepairForCompileErrorsCutsLongOutput) {
  RepairDetails Details;
  for (int I = 0; I < 200; ++I)
    Details.ToolOutput += "cand.cu(" + std::to_string(I) + "): error: oops\n";
  ChatMessage Message = buildRepairPrompt(RepairKind::Compile, Details);
  EXPECT_TRUE(contains(Message.Content, "cand.cu(0): error"));
  EXPECT_FALSE(contains(Message.Content, "cand.cu(150): error"));
  EXPECT_TRUE(contains(Message.Content, "output cut"));
}

TEST(PromptsTest, RepairForFormatAndCrashAndScreen) {
  EXPECT_TRUE(contains(buildRepairPrompt(RepairKind::Format,
                                         {"Your answer contained 2 fenced code blocks", "",
                                          std::nullopt})
                           .Content,
                       "2 fenced code blocks"));
  EXPECT_TRUE(contains(
      buildRepairPrompt(RepairKind::Crash,
                        {"", "CUDA error: an illegal memory access was encountered",
                         std::nullopt})
          .Content,
      "illegal memory access"));
  EXPECT_TRUE(contains(buildRepairPrompt(RepairKind::Screen,
                                         {"line 3: `clock64` (timing): ...", "",
                                          std::nullopt})
                           .Content,
                       "line 3: `clock64`"));
}

TEST(PromptsTest, AnalysisPromptReportsBandwidthAgainstTheCeiling) {
  AnalysisPromptInput In;
  In.StencilIrJson = "{}";
  In.CandidateSource = "__global__ void k() {}";
  In.Gpu = "NVIDIA H100";
  In.OriginalMedianMs = 2.0;
  In.CandidateMedianMs = 1.0;
  In.CompulsoryBytes = 2.0e9; // 2 GB in 1 ms = 2000 GB/s
  In.CopyBandwidthGBs = 2500;
  PtxasFunctionInfo Info;
  Info.MangledName = "_Z1kv";
  Info.Registers = 96;
  Info.SpillStoreBytes = 8;
  In.Ptxas = {Info};
  In.NcuMetrics = {NcuMetric{0, "k()", "SOL", "DRAM Throughput", "%", "80.1", 80.1}};
  std::vector<ChatMessage> Messages = buildAnalysisPrompt(In);
  ASSERT_EQ(Messages.size(), 2u);
  const std::string &User = Messages[1].Content;
  EXPECT_TRUE(contains(User, "2000.0 GB/s effective")) << User;
  EXPECT_TRUE(contains(User, "1000.0 GB/s effective"));
  EXPECT_TRUE(contains(User, "80.0% of it"));
  EXPECT_TRUE(contains(User, "speed-up: 2.00x"));
  EXPECT_TRUE(contains(User, "96 registers"));
  EXPECT_TRUE(contains(User, "(SPILLS)"));
  EXPECT_TRUE(contains(User, "DRAM Throughput = 80.1 %"));
  EXPECT_DOUBLE_EQ(effectiveBandwidthGBs(1e9, 1.0), 1000.0);
  EXPECT_EQ(effectiveBandwidthGBs(1e9, 0.0), 0.0);
}

} // namespace

//===- ProfileParsersTest.cpp - ptxas and ncu output parsing -------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/ProfileParsers.h"

#include <gtest/gtest.h>

using namespace forgestencil::agents;

namespace {

// As printed by `nvcc -arch=sm_90 -Xptxas -v` for a file with a device
// function that was not inlined and two kernels, one of which spills.
const char *PtxasOutput =
    R"(ptxas info    : 0 bytes gmem, 8 bytes cmem[4]
ptxas info    : Function properties for _Z10neighbourswPKfi
    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function '_Z10heat_tiledPKfPfii' for 'sm_90'
ptxas info    : Function properties for _Z10heat_tiledPKfPfii
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 30 registers, used 1 barriers, 1360 bytes smem, 376 bytes cmem[0]
ptxas info    : Compile time = 3.141 ms
ptxas info    : Compiling entry function '_Z8rtm_starPKfS0_Pfiii' for 'sm_90'
ptxas info    : Function properties for _Z8rtm_starPKfS0_Pfiii
    72 bytes stack frame, 48 bytes spill stores, 52 bytes spill loads
ptxas info    : Used 255 registers, used 0 barriers, 392 bytes cmem[0], 16 bytes cmem[2]
ptxas info    : Compile time = 12.5 ms
)";

TEST(ParsePtxasInfoTest, ReadsEveryFunction) {
  std::vector<PtxasFunctionInfo> Functions = parsePtxasInfo(PtxasOutput);
  ASSERT_EQ(Functions.size(), 3u);

  EXPECT_EQ(Functions[0].MangledName, "_Z10neighbourswPKfi");
  EXPECT_FALSE(Functions[0].IsEntry);
  EXPECT_EQ(Functions[0].StackFrameBytes, 16);

  const PtxasFunctionInfo &Heat = Functions[1];
  EXPECT_EQ(Heat.MangledName, "_Z10heat_tiledPKfPfii");
  EXPECT_EQ(Heat.Arch, "sm_90");
  EXPECT_TRUE(Heat.IsEntry);
  EXPECT_EQ(Heat.Registers, 30);
  EXPECT_EQ(Heat.Barriers, 1);
  EXPECT_EQ(Heat.SharedBytes, 1360);
  EXPECT_EQ(Heat.ConstantBytes, 376);
  EXPECT_FALSE(Heat.spills());

  const PtxasFunctionInfo &Rtm = Functions[2];
  EXPECT_EQ(Rtm.Registers, 255);
  EXPECT_EQ(Rtm.SharedBytes, 0);
  EXPECT_EQ(Rtm.ConstantBytes, 392);
  EXPECT_EQ(Rtm.StackFrameBytes, 72);
  EXPECT_EQ(Rtm.SpillStoreBytes, 48);
  EXPECT_EQ(Rtm.SpillLoadBytes, 52);
  EXPECT_TRUE(Rtm.spills());
}

TEST(ParsePtxasInfoTest, OlderFormatAndSeveralArchitectures) {
  const char *Text =
      "nvcc warning : something unrelated\n"
      "ptxas info    : Compiling entry function '_Z1kPf' for 'sm_70'\n"
      "ptxas info    : Used 12 registers, 4096 bytes smem, 360 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function '_Z1kPf' for 'sm_80'\n"
      "ptxas info    : Function properties for _Z1kPf\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 14 registers, used 1 barriers, 4096 bytes smem, 360 "
      "bytes cmem[0]\n";
  std::vector<PtxasFunctionInfo> Functions = parsePtxasInfo(Text);
  ASSERT_EQ(Functions.size(), 2u);
  EXPECT_EQ(Functions[0].Arch, "sm_70");
  EXPECT_EQ(Functions[0].Registers, 12);
  EXPECT_EQ(Functions[0].SharedBytes, 4096);
  EXPECT_EQ(Functions[1].Arch, "sm_80");
  EXPECT_EQ(Functions[1].Registers, 14);
}

TEST(ParsePtxasInfoTest, NothingToReadGivesNothing) {
  EXPECT_TRUE(parsePtxasInfo("").empty());
  EXPECT_TRUE(parsePtxasInfo("error: identifier \"x\" is undefined\n").empty());
}

// `ncu --csv --page details --metrics ...` output, with the tool's own lines
// and the application's output around the table.
const char *NcuOutput =
    R"csv(==PROF== Connected to process 81234 (/tmp/bundle/driver)
==PROF== Profiling "heat_tiled" - 0: 0%....50%....100% - 9 passes
verify: ok
==PROF== Disconnected from process 81234
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","81234","driver","127.0.0.1","heat_tiled(const float *, float *, int, int)","1","7","(32, 8, 1)","(128, 512, 1)","0","9.0","GPU Speed Of Light Throughput","DRAM Throughput","%","87.41"
"0","81234","driver","127.0.0.1","heat_tiled(const float *, float *, int, int)","1","7","(32, 8, 1)","(128, 512, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","usecond","1,024.35"
"0","81234","driver","127.0.0.1","heat_tiled(const float *, float *, int, int)","1","7","(32, 8, 1)","(128, 512, 1)","0","9.0","Occupancy","Achieved Occupancy","%","71.2"
"1","81234","driver","127.0.0.1","copy_kernel(const float *, float *, long)","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","Launch Statistics","Function Cache Configuration","","CachePreferNone"
"1","81234","driver","127.0.0.1","copy_kernel(const float *, float *, long)","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","Memory Workload Analysis","Memory ""Peak"" Note","","n/a"
)csv";

TEST(ParseNcuCsvTest, ReadsMetricRows) {
  Result<std::vector<NcuMetric>> Metrics = parseNcuCsv(NcuOutput);
  ASSERT_TRUE(Metrics) << Metrics.error();
  ASSERT_EQ(Metrics->size(), 5u);
  const NcuMetric &Dram = (*Metrics)[0];
  EXPECT_EQ(Dram.LaunchId, 0);
  EXPECT_EQ(Dram.KernelName, "heat_tiled(const float *, float *, int, int)");
  EXPECT_EQ(Dram.SectionName, "GPU Speed Of Light Throughput");
  EXPECT_EQ(Dram.MetricName, "DRAM Throughput");
  EXPECT_EQ(Dram.Unit, "%");
  ASSERT_TRUE(Dram.Value);
  EXPECT_DOUBLE_EQ(*Dram.Value, 87.41);

  const NcuMetric *Duration = findNcuMetric(*Metrics, "Duration", "heat_tiled");
  ASSERT_NE(Duration, nullptr);
  EXPECT_EQ(Duration->ValueText, "1,024.35");
  ASSERT_TRUE(Duration->Value);
  EXPECT_DOUBLE_EQ(*Duration->Value, 1024.35);

  const NcuMetric &Cache = (*Metrics)[3];
  EXPECT_EQ(Cache.LaunchId, 1);
  EXPECT_EQ(Cache.ValueText, "CachePreferNone");
  EXPECT_FALSE(Cache.Value);
  EXPECT_EQ((*Metrics)[4].MetricName, "Memory \"Peak\" Note");

  EXPECT_EQ(findNcuMetric(*Metrics, "Duration", "copy_kernel"), nullptr);
  EXPECT_EQ(findNcuMetric(*Metrics, "Achieved Occupancy")->Value, 71.2);
}

TEST(ParseNcuCsvTest, NoHeaderIsAnError) {
  Result<std::vector<NcuMetric>> Metrics =
      parseNcuCsv("==PROF== No kernels were profiled.\n");
  ASSERT_FALSE(Metrics);
  EXPECT_NE(Metrics.error().find("header"), std::string::npos);
}

TEST(ParseNcuCsvTest, RawPageWithoutMetricColumnsIsAnError) {
  Result<std::vector<NcuMetric>> Metrics =
      parseNcuCsv("\"ID\",\"Kernel Name\",\"dram__bytes.sum\"\n\"0\",\"k\",\"12\"\n");
  ASSERT_FALSE(Metrics);
  EXPECT_NE(Metrics.error().find("Metric Name"), std::string::npos);
}

TEST(ParseNcuCsvTest, RowWithWrongFieldCountIsAnError) {
  std::string Text = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
                     "\"0\",\"k\",\"Duration\",\"ns\"\n";
  Result<std::vector<NcuMetric>> Metrics = parseNcuCsv(Text);
  ASSERT_FALSE(Metrics);
  EXPECT_NE(Metrics.error().find("row 2"), std::string::npos) << Metrics.error();
}

} // namespace

//===- HostInfoTest.cpp - Parsing nvidia-smi and nvcc output --------------===//

#include "forgestencil/Support/HostInfo.h"

#include <gtest/gtest.h>

using namespace forgestencil::support;

namespace {

TEST(HostInfoTest, ParsesGpuQuery) {
  auto Info = parseGpuQueryOutput("NVIDIA H100 80GB HBM3, 550.54.15\n"
                                  "NVIDIA H100 80GB HBM3, 550.54.15\n");
  ASSERT_TRUE(Info);
  EXPECT_EQ(Info->Name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(Info->Driver, "550.54.15");
}

TEST(HostInfoTest, GpuQueryWithoutDataGivesNothing) {
  EXPECT_FALSE(parseGpuQueryOutput(""));
  EXPECT_FALSE(parseGpuQueryOutput("No devices were found\n"));
  GpuInfo Unknown;
  EXPECT_EQ(Unknown.Name, "unknown");
  EXPECT_EQ(Unknown.Driver, "unknown");
}

TEST(HostInfoTest, ParsesNvccVersion) {
  EXPECT_EQ(parseNvccVersion("nvcc: NVIDIA (R) Cuda compiler driver\n"
                             "Built on Thu_Mar_28_02:18:24_PDT_2024\n"
                             "Cuda compilation tools, release 12.4, V12.4.131\n"
                             "Build cuda_12.4.r12.4/compiler.34097967_0\n"),
            "12.4.131");
  EXPECT_EQ(parseNvccVersion("Cuda compilation tools, release 13.0\n"), "13.0");
  EXPECT_EQ(parseNvccVersion("command not found"), "unknown");
}

TEST(HostInfoTest, PicksTheIdlestGpu) {
  EXPECT_EQ(pickIdlestGpu("0, 95, 70000\n1, 0, 500\n2, 0, 300\n3, 10, 0\n"),
            std::optional<std::string>("2"));
  EXPECT_EQ(pickIdlestGpu("0, 0, 0\n"), std::optional<std::string>("0"));
  EXPECT_FALSE(pickIdlestGpu(""));
  EXPECT_FALSE(pickIdlestGpu("0, [N/A], [N/A]\n"));
}

} // namespace

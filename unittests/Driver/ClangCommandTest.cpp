//===- ClangCommandTest.cpp - CompileJobs to clang CUDA command lines -----===//
///
/// \file
/// buildClangCommand: one host-side and one device-side command per CUDA
/// job, with the nvcc-only macros and the host-only flags where they belong.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Driver/AnalysisPrelude.h"
#include "forgestencil/Driver/CompileCommand.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <algorithm>

using namespace forgestencil::driver;
using ::testing::Contains;
using ::testing::Not;

namespace {

Toolchain fakeToolchain() {
  Toolchain TC;
  TC.ClangPath = "clang++";
  TC.ResourceDir = "/res";
  TC.CudaPath = "/opt/cuda";
  TC.CudaMajor = 13;
  TC.CudaMinor = 0;
  return TC;
}

CompileJob cudaJob() {
  auto Job = parseNvccCommand(
      {"nvcc", "-gencode", "arch=compute_80,code=sm_80", "-gencode",
       "arch=compute_90,code=sm_90", "-DRADIUS=2", "-Xcompiler", "-fopenmp",
       "-rdc=true", "-c", "k.cu"},
      "/b", "");
  EXPECT_TRUE(bool(Job));
  return Job ? std::move(*Job) : CompileJob();
}

TEST(ClangCommand, HostSide) {
  std::vector<std::string> Cmd =
      buildClangCommand(cudaJob(), fakeToolchain(), CudaSide::Host);
  EXPECT_THAT(Cmd, Contains("--cuda-host-only"));
  EXPECT_THAT(Cmd, Not(Contains("--cuda-device-only")));
  EXPECT_THAT(Cmd, Contains("-fopenmp"));
  EXPECT_THAT(Cmd, Contains("-DRADIUS=2"));
  EXPECT_THAT(Cmd, Contains("--cuda-path=/opt/cuda"));
  EXPECT_THAT(Cmd, Contains("-resource-dir=/res"));
  EXPECT_THAT(Cmd, Contains("-Wno-unknown-cuda-version"));
  EXPECT_THAT(Cmd, Contains("-D__NVCC__=1"));
  EXPECT_THAT(Cmd, Contains("-fgpu-rdc"));
  EXPECT_EQ(Cmd.back(), "/b/k.cu");
}

TEST(ClangCommand, DeviceSideIsOneParseForTheNewestArch) {
  std::vector<std::string> Cmd =
      buildClangCommand(cudaJob(), fakeToolchain(), CudaSide::Device);
  EXPECT_THAT(Cmd, Contains("--cuda-device-only"));
  EXPECT_THAT(Cmd, Contains("--cuda-gpu-arch=sm_90"));
  EXPECT_THAT(Cmd, Not(Contains("--cuda-gpu-arch=sm_80")));
  EXPECT_EQ(std::count_if(Cmd.begin(), Cmd.end(),
                          [](const std::string &A) {
                            return A.rfind("--cuda-gpu-arch=", 0) == 0;
                          }),
            1);
  // Host compiler flags never reach the device side.
  EXPECT_THAT(Cmd, Not(Contains("-fopenmp")));
  EXPECT_THAT(Cmd, Contains("-DRADIUS=2"));
  EXPECT_THAT(Cmd, Contains("-D__NVCC__=1"));
}

TEST(ClangCommand, NvccMacrosComeWithTheToolkitVersion) {
  std::vector<std::string> Cmd =
      buildClangCommand(cudaJob(), fakeToolchain(), CudaSide::Host);
  EXPECT_THAT(Cmd, Contains("-D__CUDACC_VER_MAJOR__=13"));
  EXPECT_THAT(Cmd, Contains("-D__CUDACC_VER_MINOR__=0"));
  EXPECT_THAT(Cmd, Not(Contains("-D__CUDACC_EXTENDED_LAMBDA__=1")));
}

TEST(ClangCommand, ExtendedLambdaAnswersNvccQueries) {
  auto Job = parseNvccCommand({"nvcc", "--extended-lambda", "-c", "k.cu"},
                              "/b", "");
  ASSERT_TRUE(bool(Job));
  std::vector<std::string> Cmd =
      buildClangCommand(*Job, fakeToolchain(), CudaSide::Host);
  EXPECT_THAT(Cmd, Contains("-D__CUDACC_EXTENDED_LAMBDA__=1"));
  EXPECT_THAT(Cmd,
              Contains("-D__nv_is_extended_device_lambda_closure_type(X)=false"));
}

TEST(ClangCommand, ClangBuiltJobGetsNoNvccMacros) {
  auto Job = parseCompileCommand(
      {"clang++", "-x", "cuda", "--cuda-gpu-arch=sm_90", "-c", "k.cu"}, "/b",
      "");
  ASSERT_TRUE(bool(Job));
  std::vector<std::string> Cmd =
      buildClangCommand(*Job, fakeToolchain(), CudaSide::Device);
  EXPECT_THAT(Cmd, Not(Contains("-D__NVCC__=1")));
  EXPECT_THAT(Cmd, Not(Contains("-D__CUDACC_VER_MAJOR__=13")));
  EXPECT_THAT(Cmd, Contains("--cuda-gpu-arch=sm_90"));
}

TEST(ClangCommand, NonCudaJobIsPlainCxx) {
  auto Job = parseCompileCommand({"g++", "-DX=1", "-c", "m.cpp"}, "/b", "");
  ASSERT_TRUE(bool(Job));
  std::vector<std::string> Cmd =
      buildClangCommand(*Job, fakeToolchain(), CudaSide::Host);
  EXPECT_THAT(Cmd, Contains("c++"));
  EXPECT_THAT(Cmd, Not(Contains("cuda")));
  EXPECT_THAT(Cmd, Not(Contains("-D__NVCC__=1")));
}

TEST(ClangCommand, AnalysisPreludeComesBeforeTheCommandsOwnIncludes) {
  auto Job = parseNvccCommand(
      {"nvcc", "-include", "first.h", "-DX=1", "-c", "k.cu"}, "/b", "");
  ASSERT_TRUE(bool(Job));
  for (CudaSide Side : {CudaSide::Host, CudaSide::Device}) {
    std::vector<std::string> Cmd =
        buildClangCommand(*Job, fakeToolchain(), Side);
    auto Prelude = std::find(Cmd.begin(), Cmd.end(), analysisPreludePath());
    auto Own = std::find(Cmd.begin(), Cmd.end(), "/b/first.h");
    ASSERT_NE(Prelude, Cmd.end());
    ASSERT_NE(Own, Cmd.end());
    EXPECT_EQ(*(Prelude - 1), "-include");
    EXPECT_LT(Prelude, Own);
    // nvcc accepts 'register'; clang is told to.
    EXPECT_THAT(Cmd, Contains("-Wno-register"));
  }
}

TEST(ClangCommand, NonCudaJobGetsNoPrelude) {
  auto Job = parseCompileCommand({"g++", "-c", "m.cpp"}, "/b", "");
  ASSERT_TRUE(bool(Job));
  std::vector<std::string> Cmd =
      buildClangCommand(*Job, fakeToolchain(), CudaSide::Host);
  EXPECT_THAT(Cmd, Not(Contains(analysisPreludePath().str())));
  EXPECT_THAT(Cmd, Not(Contains("-Wno-register")));
}

TEST(AnalysisPrelude, TextIsBuiltIn) {
  EXPECT_TRUE(analysisPreludeText().contains("FORGESTENCIL_ANALYSIS_PRELUDE_H"));
  EXPECT_TRUE(analysisPreludeText().contains("cudaThreadSynchronize"));
}

TEST(Toolchain, ExplicitCudaPathMustBeValid) {
  CompileJob Job = cudaJob();
  auto TC = findToolchain(Job, "/nonexistent/cuda", "");
  ASSERT_FALSE(bool(TC));
  EXPECT_THAT(llvm::toString(TC.takeError()),
              ::testing::HasSubstr("--cuda-path '/nonexistent/cuda' is not a "
                                   "CUDA installation"));
}

} // namespace

//===- ResponseParsingTest.cpp - Code block and launcher checks ----------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/ResponseParsing.h"

#include <gtest/gtest.h>

using namespace forgestencil::agents;

namespace {

bool contains(const std::string &Text, const std::string &Part) {
  return Text.find(Part) != std::string::npos;
}

TEST(ExtractSingleCudaBlockTest, OneBlockIsReturnedWithoutProse) {
  Result<std::string> Code = extractSingleCudaBlock(
      "Here is the kernel:\n\n```cuda\n__global__ void k(float *a) { a[0] = 1; }\n```\n"
      "It uses one thread.");
  ASSERT_TRUE(Code) << Code.error();
  EXPECT_EQ(*Code, "__global__ void k(float *a) { a[0] = 1; }\n");
}

TEST(ExtractSingleCudaBlockTest, AcceptedTags) {
  for (std::string Tag : {"cuda", "cpp", "c++", "CUDA", "", "cu"}) {
    Result<std::string> Code = extractSingleCudaBlock("```" + Tag + "\nint x;\n```");
    ASSERT_TRUE(Code) << "tag '" << Tag << "': " << Code.error();
    EXPECT_EQ(*Code, "int x;\n");
  }
}

TEST(ExtractSingleCudaBlockTest, NoBlock) {
  Result<std::string> Code = extractSingleCudaBlock("__global__ void k() {}");
  ASSERT_FALSE(Code);
  EXPECT_TRUE(contains(Code.error(), "no fenced code block")) << Code.error();
  EXPECT_TRUE(contains(Code.error(), "exactly one ```cuda block"));
}

TEST(ExtractSingleCudaBlockTest, TwoBlocks) {
  Result<std::string> Code = extractSingleCudaBlock(
      "Kernel:\n```cuda\n__global__ void k() {}\n```\nLauncher:\n```cpp\n"
      "void launch() {}\n```\n");
  ASSERT_FALSE(Code);
  EXPECT_TRUE(contains(Code.error(), "Your answer contained 2 fenced code blocks; "
                                     "reply with exactly one ```cuda block"))
      << Code.error();
}

TEST(ExtractSingleCudaBlockTest, BlockInsideThinkIsIgnored) {
  std::string Answer = "<think>\nFirst idea:\n```cuda\n__global__ void draft() {}\n```\n"
                       "Better to tile.\n</think>\n```cuda\n__global__ void final_k() {}\n```";
  Result<std::string> Code = extractSingleCudaBlock(Answer);
  ASSERT_TRUE(Code) << Code.error();
  EXPECT_EQ(*Code, "__global__ void final_k() {}\n");
}

TEST(ExtractSingleCudaBlockTest, ReasoningBeforeALoneClosingTagIsIgnored) {
  Result<std::string> Code = extractSingleCudaBlock(
      "hmm ```cuda\n```\n```cuda\nold\n```\n</think>\n```cuda\nnew\n```\n");
  ASSERT_TRUE(Code) << Code.error();
  EXPECT_EQ(*Code, "new\n");
}

TEST(ExtractSingleCudaBlockTest, OnlyABlockInsideThinkMeansNoBlock) {
  Result<std::string> Code =
      extractSingleCudaBlock("<think>```cuda\nint x;\n```</think>Done.");
  ASSERT_FALSE(Code);
  EXPECT_TRUE(contains(Code.error(), "no fenced code block"));
}

TEST(ExtractSingleCudaBlockTest, UnclosedBlockLooksCutOff) {
  Result<std::string> Code = extractSingleCudaBlock("```cuda\n__global__ void k(");
  ASSERT_FALSE(Code);
  EXPECT_TRUE(contains(Code.error(), "not closed")) << Code.error();
}

TEST(ExtractSingleCudaBlockTest, WrongLanguage) {
  Result<std::string> Code = extractSingleCudaBlock("```python\nprint(1)\n```");
  ASSERT_FALSE(Code);
  EXPECT_TRUE(contains(Code.error(), "tagged ```python")) << Code.error();
}

TEST(ExtractSingleCudaBlockTest, EmptyBlock) {
  Result<std::string> Code = extractSingleCudaBlock("```cuda\n\n```");
  ASSERT_FALSE(Code);
  EXPECT_TRUE(contains(Code.error(), "empty"));
}

TEST(ExtractSingleCudaBlockTest, InlineBackticksAreNotFences) {
  Result<std::string> Code =
      extractSingleCudaBlock("Use ```cuda fences, as asked.\n```cuda\nint y;\n```\n");
  ASSERT_TRUE(Code) << Code.error();
  EXPECT_EQ(*Code, "int y;\n");
}

const std::vector<std::string> HeatParams = {
    "dim3 grid", "dim3 block", "size_t shmem", "cudaStream_t stream",
    "const float *in", "float *out", "int nx", "int ny"};

TEST(CheckLauncherSignatureTest, MatchingDefinitionPasses) {
  std::string Code = R"(
__global__ void heat_kernel(const float *__restrict__ in, float *out, int nx, int ny) {}
// fs_launch_heat(int) in a comment does not count
static void fs_launch_heat  (dim3   grid, dim3 block,size_t shmem ,
                     cudaStream_t s, const float* __restrict__ input,
                     float*output, int width, int height)
{
  heat_kernel<<<grid, block, shmem, s>>>(input, output, width, height);
}
)";
  Result<void> Check = checkLauncherSignature(Code, "fs_launch_heat", HeatParams);
  EXPECT_TRUE(Check) << Check.error();
}

TEST(CheckLauncherSignatureTest, MissingLauncher) {
  Result<void> Check = checkLauncherSignature("__global__ void k() {}",
                                              "fs_launch_heat", HeatParams);
  ASSERT_FALSE(Check);
  EXPECT_TRUE(contains(Check.error(), "`fs_launch_heat` is missing")) << Check.error();
  EXPECT_TRUE(contains(Check.error(),
                       "void fs_launch_heat(dim3 grid, dim3 block, size_t shmem, "
                       "cudaStream_t stream, const float *in, float *out, int nx, "
                       "int ny)"));
}

TEST(CheckLauncherSignatureTest, DeclaredButNotDefined) {
  Result<void> Check = checkLauncherSignature(
      "void fs_launch_heat(dim3, dim3, size_t, cudaStream_t, const float*, float*, "
      "int, int);",
      "fs_launch_heat", HeatParams);
  ASSERT_FALSE(Check);
  EXPECT_TRUE(contains(Check.error(), "never defined")) << Check.error();
}

TEST(CheckLauncherSignatureTest, WrongParameterCount) {
  Result<void> Check = checkLauncherSignature(
      "void fs_launch_heat(dim3 g, dim3 b, const float *in, float *out, int nx, int ny) {}",
      "fs_launch_heat", HeatParams);
  ASSERT_FALSE(Check);
  EXPECT_TRUE(contains(Check.error(), "takes 6 parameters but the agreed signature has 8"))
      << Check.error();
}

TEST(CheckLauncherSignatureTest, WrongParameterType) {
  Result<void> Check = checkLauncherSignature(
      "void fs_launch_heat(dim3 g, dim3 b, size_t s, cudaStream_t st, float *in, "
      "float *out, int nx, int ny) {}",
      "fs_launch_heat", HeatParams);
  ASSERT_FALSE(Check);
  EXPECT_TRUE(contains(Check.error(), "Parameter 5")) << Check.error();
  EXPECT_TRUE(contains(Check.error(), "`float*`"));
  EXPECT_TRUE(contains(Check.error(), "`const float*`"));
}

TEST(CheckLauncherSignatureTest, KernelInsteadOfLauncher) {
  Result<void> Check = checkLauncherSignature(
      "__global__ void fs_launch_heat(dim3 g, dim3 b, size_t s, cudaStream_t st, "
      "const float *in, float *out, int nx, int ny) {}",
      "fs_launch_heat", HeatParams);
  ASSERT_FALSE(Check);
  EXPECT_TRUE(contains(Check.error(), "not a __global__ kernel")) << Check.error();
}

TEST(CheckLauncherSignatureTest, DefinedTwice) {
  std::string One = "void fs_launch_heat(dim3 g, dim3 b, size_t s, cudaStream_t st, "
                    "const float *in, float *out, int nx, int ny) {}\n";
  Result<void> Check = checkLauncherSignature(One + One, "fs_launch_heat", HeatParams);
  ASSERT_FALSE(Check);
  EXPECT_TRUE(contains(Check.error(), "defined 2 times"));
}

TEST(CheckLauncherSignatureTest, UnsignedAndConstQualifiedTypesKeepTheirLastWord) {
  Result<void> Check = checkLauncherSignature(
      "void f(const size_t n, unsigned int flags) {}", "f",
      {"const size_t count", "unsigned int mask"});
  EXPECT_TRUE(Check) << Check.error();
  Check = checkLauncherSignature("void f(size_t n, unsigned flags) {}", "f",
                                 {"const size_t count", "unsigned int mask"});
  EXPECT_FALSE(Check);
}

} // namespace

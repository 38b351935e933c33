//===- LauncherConditionsTest.cpp - Assumptions a launcher checks ---------===//
//
// A variant runs only where the IR's assumptions hold at the launch; an
// at-least assumption (a periodic boundary's period against the reads'
// reach) is a test on the kernel's arguments, by name, also in a template's
// dispatch table.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Forge/NamedStencils.h"
#include "forgestencil/Rewrite/LauncherGen.h"
#include "forgestencil/Rewrite/RewritePlanner.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace forgestencil;
using namespace forgestencil::rewrite;

namespace {

bool contains(const std::string &Text, const std::string &Piece) {
  return Text.find(Piece) != std::string::npos;
}

/// `__global__ void star3d_r2_wrap(const float *in, float *out, int nx, int
/// ny, int nz)`, as a template on its element type when \p Template.
KernelDefinition wrapKernel(bool Template) {
  KernelDefinition K;
  K.Name = K.QualifiedName = "star3d_r2_wrap";
  const std::string T = Template ? "T" : "float";
  K.Text = std::string(Template ? "template <typename T>\n" : "") +
           "__global__ void @(const " + T + " *in, " + T +
           " *out, int nx, int ny, int nz) {}";
  K.NameOffsetInText = K.Text.find('@');
  K.Text.replace(K.NameOffsetInText, 1, K.Name);
  K.LauncherParams = {"const " + T + " *in", T + " *out", "int nx", "int ny",
                      "int nz"};
  K.ParamNames = {"in", "out", "nx", "ny", "nz"};
  if (Template) {
    K.IsTemplate = true;
    K.TemplateHeader = "template <typename T>";
    K.TemplateForwardArgs = "T";
    K.Instantiations = {"float"};
  }
  return K;
}

KernelVariant wrapVariant() {
  std::string Error;
  auto IR = forge::namedStencil("star3d_r2_wrap", "float", Error);
  EXPECT_TRUE(IR.has_value()) << Error;
  KernelVariant V;
  V.IR = *IR;
  // The kernel's own parameter order: in, out, nx, ny, nz.
  EXPECT_EQ(V.IR.Params.size(), 5u);
  V.Params.Strategy = "naive";
  V.Params.BlockX = 32;
  V.Params.BlockY = 4;
  // Verified on a GPU: launched directly where its conditions hold.
  V.GpuVerified = true;
  return V;
}

/// The header of the wrap kernel with variant \p V (of its float
/// instantiation when \p Template); empty, and a failure, if V was refused.
std::string headerWith(const KernelVariant &V, bool Template) {
  std::vector<HeaderVariant> Variants = {{Template ? "float" : "", &V, ""}};
  std::string H = kernelHeader(wrapKernel(Template), "forgestencil/fs_k.cuh",
                               "G", "k.cu", "1", Variants);
  EXPECT_EQ(Variants[0].Error, "");
  return Variants[0].Error.empty() ? H : "";
}

TEST(LauncherConditions, AtLeastIsCheckedOnTheArguments) {
  std::string H = headerWith(wrapVariant(), false);
  EXPECT_TRUE(contains(H, "//   (nx - 1) - (0) + 1 >= 2: reads along 'i' "
                          "reach 2 past its periodic boundary"))
      << H;
  EXPECT_TRUE(contains(H, "    if ((long long)((nx - 1) - (0) + 1) >= 2) {\n"
                          "      fs_sm90_star3d_r2_wrap("))
      << H;
  // Elsewhere the original runs.
  EXPECT_TRUE(contains(H, "fs_ref_star3d_r2_wrap<<<fs_grid, fs_block, "
                          "fs_shmem, fs_stream>>>(in, out, nx, ny, nz);"));
}

TEST(LauncherConditions, AVariantNoGpuVerifiedIsCheckedWhereItsConditionsHold) {
  KernelVariant V = wrapVariant();
  V.GpuVerified = false;
  std::string H = headerWith(V, false);
  EXPECT_TRUE(contains(H, "    if ((long long)((nx - 1) - (0) + 1) >= 2) {\n"
                          "      {\n"))
      << H;
  EXPECT_TRUE(contains(H, "        forgestencil::run_checked(\n"
                          "            \"star3d_r2_wrap\", fs_stream, fs_ptrs, 2,\n"
                          "            [&] { fs_ref_star3d_r2_wrap<<<fs_grid, "
                          "fs_block, fs_shmem, fs_stream>>>(in, out, nx, ny, nz); },\n"
                          "            [&] { fs_sm90_star3d_r2_wrap(fs_grid, "
                          "fs_block, fs_shmem, fs_stream, in, out, nx, ny, nz); },\n"))
      << H;
}

TEST(LauncherConditions, ATemplatesTableNamesTheArgumentsAtLeastReads) {
  std::string H = headerWith(wrapVariant(), true);
  EXPECT_TRUE(contains(H, "struct fs_variants_star3d_r2_wrap<float> {\n"
                          "  static bool launch(dim3 fs_grid, dim3 fs_block, "
                          "size_t fs_shmem,\n"
                          "                     cudaStream_t fs_stream, "))
      << H;
  EXPECT_TRUE(contains(H, "      if (!((long long)((nx - 1) - (0) + 1) >= 2))\n"
                          "        return false;"))
      << H;
}

} // namespace

//===- TemplateKernelTest.cpp - Instantiation names and template headers --===//

#include "forgestencil/Rewrite/LauncherGen.h"
#include "forgestencil/Rewrite/RewritePlanner.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace forgestencil::rewrite;

namespace {

TEST(KernelInstanceName, PlainName) {
  KernelInstanceName N = KernelInstanceName::parse("ns::lap");
  EXPECT_EQ(N.Kernel, "ns::lap");
  EXPECT_EQ(N.TemplateArgs, "");
  EXPECT_FALSE(N.isInstantiation());
  EXPECT_EQ(N.str(), "ns::lap");
}

TEST(KernelInstanceName, Instantiation) {
  KernelInstanceName N = KernelInstanceName::parse(" heat_step < double > ");
  EXPECT_EQ(N.Kernel, "heat_step");
  EXPECT_EQ(N.TemplateArgs, "double");
  EXPECT_TRUE(N.isInstantiation());
  EXPECT_EQ(N.str(), "heat_step<double>");
}

TEST(KernelInstanceName, NestedArguments) {
  KernelInstanceName N = KernelInstanceName::parse("k<Vec<float, 3>, 4>");
  EXPECT_EQ(N.Kernel, "k");
  EXPECT_EQ(N.TemplateArgs, "Vec<float, 3>, 4");
}

TEST(KernelInstanceName, UnclosedIsAName) {
  KernelInstanceName N = KernelInstanceName::parse("k<float");
  EXPECT_EQ(N.Kernel, "k<float");
  EXPECT_FALSE(N.isInstantiation());
}

TEST(SameTemplateArgs, IgnoresSpacing) {
  EXPECT_TRUE(sameTemplateArgs("float, 4", "float,4"));
  EXPECT_TRUE(sameTemplateArgs(" double", "double "));
  EXPECT_FALSE(sameTemplateArgs("float, 4", "float, 5"));
  EXPECT_FALSE(sameTemplateArgs("float", "double"));
}

/// `template <typename T> __global__ void k(T *out, const T *in)`.
KernelDefinition templateKernel() {
  KernelDefinition K;
  K.Name = K.QualifiedName = "k";
  K.Text = "template <typename T>\n__global__ void @(T *out, const T *in) {}";
  K.NameOffsetInText = K.Text.find('@');
  K.Text.replace(K.NameOffsetInText, 1, "k");
  K.IsTemplate = true;
  K.TemplateHeader = "template <typename T>";
  K.TemplateForwardArgs = "T";
  K.LauncherParams = {"T *out", "const T *in"};
  K.ParamNames = {"out", "in"};
  K.Instantiations = {"float"};
  return K;
}

TEST(TemplateKernelHeader, WithoutVariantsKeepsTheSwitchingLauncher) {
  std::vector<HeaderVariant> None;
  std::string H = kernelHeader(templateKernel(), "forgestencil/fs_k.cuh",
                               "G", "k.cu", "1", None);
  EXPECT_NE(H.find("void fs_launch_k(dim3 fs_grid"), std::string::npos);
  EXPECT_NE(H.find("fs_ref_k<T><<<fs_grid, fs_block, fs_shmem, fs_stream>>>"
                   "(out, in);"),
            std::string::npos);
  EXPECT_EQ(H.find("fs_variants_k"), std::string::npos);
}

TEST(TemplateKernelHeader, VariantsThatCannotBeMadeSayWhy) {
  KernelVariant Unknown;
  Unknown.Params.Strategy = "no-such-strategy";
  std::vector<HeaderVariant> Variants = {{"float", &Unknown, ""},
                                         {"", &Unknown, ""}};
  std::string H = kernelHeader(templateKernel(), "forgestencil/fs_k.cuh",
                               "G", "k.cu", "1", Variants);
  EXPECT_EQ(Variants[0].Error, "unknown strategy 'no-such-strategy'");
  EXPECT_EQ(Variants[1].Error, "a variant of a template kernel must name the "
                               "instantiation it is for");
  // Nothing to dispatch to: the launcher runs the reference.
  EXPECT_EQ(H.find("fs_variants_k"), std::string::npos);
  EXPECT_NE(H.find("fs_ref_k<T><<<"), std::string::npos);
}

TEST(PlainKernelHeader, InstantiationOfAPlainKernelIsAnError) {
  KernelDefinition K = templateKernel();
  K.IsTemplate = false;
  K.TemplateHeader.clear();
  K.TemplateForwardArgs.clear();
  KernelVariant Unknown;
  Unknown.Params.Strategy = "no-such-strategy";
  std::vector<HeaderVariant> Variants = {{"float", &Unknown, ""}};
  kernelHeader(K, "forgestencil/fs_k.cuh", "G", "k.cu", "1", Variants);
  EXPECT_EQ(Variants[0].Error, "a plain kernel has no instantiation 'float'");
}

} // namespace

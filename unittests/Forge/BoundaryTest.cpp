//===- BoundaryTest.cpp - Periodic boundaries in the generated code -------===//
//
// A wrapped axis takes the clamped axes' path: the interior with the
// strategy's kernel, the frame one point per thread, reads along the axis
// through fs_wrap (defined once per unit, beside fs_clamp's block) in the
// frame, the original and the reference; its signature, test sizes and
// parameter renames know it.
//
// A boundary frame (values the kernel writes itself around its domain)
// goes through the same boxes: the box as the launch covers it, the domain
// clipped into it, the boundary kernel over the rest before the domain;
// the original tests the domain inside the box. Also with a clamped or
// wrapped axis, on a 1-D thread id, with renamed parameters, in the
// signature and in the cases' bounds.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Forge/CaseShapes.h"
#include "forgestencil/Forge/CodeGen.h"
#include "forgestencil/Forge/NamedStencils.h"
#include "forgestencil/Forge/OperatorMatrix.h"
#include "forgestencil/Forge/ParamNames.h"

#include <gtest/gtest.h>

using namespace forgestencil;

namespace {

bool contains(const std::string &Text, const std::string &Piece) {
  return Text.find(Piece) != std::string::npos;
}

ir::StencilIR named(const std::string &Name, const std::string &T = "float") {
  std::string Error;
  auto IR = forge::namedStencil(Name, T, Error);
  EXPECT_TRUE(IR.has_value()) << Error;
  return *IR;
}

std::string original(const ir::StencilIR &IR) {
  forge::GenerateOptions O;
  O.LauncherName = "fs_original";
  return forge::emitOriginalSource(IR, O);
}

forge::GeneratedSource generate(const ir::StencilIR &IR,
                                const forge::StrategyParams &P) {
  forge::GenerateOptions O;
  O.LauncherName = "fs_test";
  return forge::findStrategy(P.Strategy)->generate(IR, P, O);
}

std::string naive(const ir::StencilIR &IR) {
  forge::StrategyParams P;
  P.Strategy = "naive";
  if (IR.Dims < 3)
    P.BlockY = 1;
  forge::GeneratedSource G = generate(IR, P);
  EXPECT_TRUE(G.ok()) << G.Error;
  return G.Source;
}

TEST(Boundary, NamedWrapStencils) {
  ir::StencilIR S2 = named("star2d_r1_wrap");
  for (const ir::Axis &X : S2.Axes) {
    EXPECT_TRUE(X.wrapped()) << X.Name;
    EXPECT_EQ(X.Lower, "0");
    EXPECT_EQ(X.Upper, X.Extent);
    EXPECT_EQ(X.WrapUpper, X.Extent + " - 1");
  }
  // Reads at +-1 wrap by one shift for any period: nothing to assume.
  EXPECT_TRUE(S2.Assumptions.empty());
  ir::StencilIR S3 = named("star3d_r2_wrap");
  EXPECT_EQ(S3.summary(), "3D star r=2 13pt f32, 1 out, 1 in");
  EXPECT_TRUE(S3.Axes[0].wrapped());
  EXPECT_FALSE(S3.Axes[1].hasBoundary());
  EXPECT_FALSE(S3.Axes[2].hasBoundary());
  EXPECT_EQ(S3.Axes[1].Lower, "2");
  ASSERT_EQ(S3.Assumptions.size(), 1u);
  EXPECT_EQ(S3.Assumptions[0].Kind, ir::Assumption::AtLeast);
  EXPECT_EQ(S3.Assumptions[0].Expr, "(nx - 1) - (0) + 1");
  EXPECT_EQ(S3.Assumptions[0].Value, "2");
}

TEST(Boundary, EveryStrategyLaunchesTheWrappedFrameBeforeTheInterior) {
  for (const char *Name : {"star2d_r1_wrap", "star3d_r2_wrap"}) {
    ir::StencilIR IR = named(Name);
    unsigned Generated = 0;
    for (const auto &Strat : forge::allStrategies())
      for (const forge::StrategyParams &P : Strat->searchSpace(IR)) {
        forge::GeneratedSource G = generate(IR, P);
        if (!G.ok())
          continue;
        ++Generated;
        const std::string &S = G.Source;
        SCOPED_TRACE(std::string(Name) + " " + P.id());
        size_t Wrap = S.find("__device__ inline long long fs_wrap(");
        size_t Frame = S.find("__global__ void fs_test_frame(");
        size_t Launch = S.find("fs_test_frame<<<");
        size_t Interior = S.find("fs_lo[a] = fs_ilo[a];");
        ASSERT_NE(Wrap, std::string::npos);
        EXPECT_LT(Wrap, Frame);
        EXPECT_LT(Frame, Launch);
        EXPECT_LT(Launch, Interior);
        EXPECT_TRUE(contains(S, "fs_ilo[0] = fs_min(fs_max(fs_lo[0], (long "
                                "long)(0) - (-" +
                                    std::to_string(IR.Radius) +
                                    ")), fs_hi[0]);"));
        EXPECT_FALSE(contains(S, "fs_clamp(x"));
      }
    EXPECT_GT(Generated, 0u) << Name;
  }
}

TEST(Boundary, WrappedReadsInTheFrameAndTheOriginal) {
  std::string S = naive(named("star3d_r2_wrap"));
  EXPECT_TRUE(contains(S, "// axis 'i': wrapped into [0, nx - 1], read at "
                          "offsets [-2, 2]"))
      << S;
  EXPECT_TRUE(contains(S, "const int fs_axes[1] = {0};"));
  EXPECT_TRUE(contains(S, "in[fs_i + (fs_wrap(x + (-2), (long long)(0), "
                          "(long long)(nx - 1), (long long)((nx - 1) - (0) "
                          "+ 1)) - x) * s0]"));
  // Only x wraps; y and z read at plain offsets.
  EXPECT_TRUE(contains(S, "in[fs_i + (2) * s1]"));
  EXPECT_FALSE(contains(S, "fs_wrap(y"));
  EXPECT_TRUE(contains(S, "// A periodic boundary: the interior, whose reads "
                          "all lie within\n  // the wrap bounds"));
  // One shift by the period, below lo and above hi.
  EXPECT_TRUE(contains(S, "long long hi, long long p) {\n"
                          "  return c < lo ? c + p : c > hi ? c - p : c;"));
  std::string O = original(named("star3d_r2_wrap"));
  EXPECT_TRUE(contains(O, "#ifndef FORGESTENCIL_GENERATED_WRAP"));
  EXPECT_TRUE(contains(O, "in[fs_i + (fs_wrap(i + (2), (long long)(0), "
                          "(long long)(nx - 1), (long long)((nx - 1) - (0) "
                          "+ 1)) - i) * (long long)(1)]"))
      << O;
  EXPECT_TRUE(contains(O, "if (i < (0) || i >= (nx))"));
}

TEST(Boundary, ClampedOnlyIRsHaveNoWrapHelper) {
  for (const char *Name : {"hotspot2d", "star3d_r1_clamp"}) {
    EXPECT_FALSE(contains(naive(named(Name)), "fs_wrap")) << Name;
    EXPECT_FALSE(contains(original(named(Name)), "fs_wrap")) << Name;
  }
  EXPECT_FALSE(contains(naive(named("star2d_r1")), "FORGESTENCIL_GENERATED"
                                                   "_CLAMP"));
}

TEST(Boundary, ClampedAndWrappedAxesInOneIR) {
  // Wrapped along x, clamped along y: both helpers, each axis its own.
  ir::StencilIR IR = named("star2d_r1_wrap");
  IR.Axes[1].WrapLower = IR.Axes[1].WrapUpper = "";
  IR.Axes[1].ClampLower = "0";
  IR.Axes[1].ClampUpper = "ny - 1";
  std::string S = naive(IR);
  EXPECT_TRUE(contains(S, "fs_wrap(x + (1)"));
  EXPECT_TRUE(contains(S, "fs_clamp(z + (1)")) << S;
  EXPECT_TRUE(contains(S, "const int fs_axes[2] = {0, 2};"));
  EXPECT_TRUE(contains(S, "Replicated and periodic boundaries"));
}

TEST(Boundary, RefusesOneWrapBoundOrAClampedAndWrappedAxis) {
  ir::StencilIR IR = named("star2d_r1");
  IR.Axes[0].WrapUpper = "nx - 1";
  std::string Error;
  EXPECT_FALSE(forge::StencilView::create(IR, Error));
  EXPECT_TRUE(contains(Error, "axis 'i' has one wrap bound only")) << Error;
  IR = named("star2d_r1_wrap");
  IR.Axes[1].ClampLower = "0";
  IR.Axes[1].ClampUpper = "ny - 1";
  EXPECT_FALSE(forge::StencilView::create(IR, Error));
  EXPECT_TRUE(contains(Error, "axis 'j' is both clamped and wrapped")) << Error;
}

TEST(Boundary, SignatureNamesTheWrappedAxes) {
  EXPECT_EQ(forge::stencilSignature(named("star2d_r1_wrap")),
            "2d.star.r1.pts5.in1.out1.pp0.coef-scalar-param.wrap-xy.f32");
  EXPECT_EQ(forge::stencilSignature(named("star3d_r2_wrap")),
            "3d.star.r2.pts13.in1.out1.pp0.coef-constant-array.wrap-x.f32");
}

TEST(Boundary, RenamedParametersInWrapBoundsAndAtLeast) {
  ir::StencilIR IR = named("star3d_r2_wrap");
  ir::StencilIR R = forge::renameParams(IR, {{"nx", "fs_p_nx"}});
  EXPECT_EQ(R.Axes[0].WrapUpper, "fs_p_nx - 1");
  EXPECT_EQ(R.Assumptions[0].Expr, "(fs_p_nx - 1) - (0) + 1");
  EXPECT_EQ(R.Assumptions[0].Value, "2");
}

TEST(Boundary, CasesGrowUntilThePeriodIsLongEnough) {
  ir::StencilIR IR = named("star3d_r2_wrap");
  IR.Assumptions[0].Value = "100";
  std::string Note;
  // 41 + 60 = 101: grown by whole multiples of 4, so odd stays odd.
  auto E = forge::withAtLeast(IR, {41, 45, 37}, Note);
  ASSERT_TRUE(E.has_value()) << Note;
  EXPECT_EQ((*E)[0], 101);
  EXPECT_EQ((*E)[1], 45);
  EXPECT_EQ(Note, "41x45x37 became 101x45x37: the variants assume (nx - 1) - "
                  "(0) + 1 >= 100 (at-least)");
  // Holding already: unchanged, no note.
  Note.clear();
  E = forge::withAtLeast(IR, {128, 45, 37}, Note);
  ASSERT_TRUE(E.has_value());
  EXPECT_EQ((*E)[0], 128);
  EXPECT_EQ(Note, "");
  // An extent the build fixes cannot grow: the case is skipped.
  IR.Axes[0].Extent = "64";
  IR.Axes[0].WrapUpper = IR.Assumptions[0].Expr = "63";
  Note.clear();
  EXPECT_FALSE(forge::withAtLeast(IR, {64, 45, 37}, Note).has_value());
  EXPECT_TRUE(contains(Note, "which is 63 at 64x45x37, and no free extent "
                             "raises it"))
      << Note;
  std::mt19937 Rng(1);
  for (const forge::CaseShape &C :
       forge::makeCases(IR, {64, 64, 64}, {32, 4, 1}, Rng, true))
    EXPECT_FALSE(C.Skip.empty()) << C.Name;
}

TEST(Boundary, EveryCaseOfAWrappedStencilHoldsItsAssumption) {
  ir::StencilIR IR = named("star3d_r2_wrap");
  IR.Assumptions[0].Value = "50";
  std::mt19937 Rng(7);
  for (const forge::CaseShape &C :
       forge::makeCases(IR, {16, 16, 16}, {32, 4, 1}, Rng, true)) {
    SCOPED_TRACE(C.Name);
    EXPECT_TRUE(C.Skip.empty());
    EXPECT_GE(C.Ext[0], 50);
    EXPECT_TRUE(C.Derivation.Check.InBounds) << C.Derivation.Check.Why;
  }
}

TEST(Boundary, NamedDirichletStencils) {
  ir::StencilIR S2 = named("star2d_r1_dirichlet");
  EXPECT_EQ(S2.Axes[0].Lower, "1");
  EXPECT_EQ(S2.Axes[1].Upper, "ny - 1");
  EXPECT_EQ(S2.Frame.Lower, (std::vector<std::string>{"0", "0"}));
  EXPECT_EQ(S2.Frame.Upper, (std::vector<std::string>{"nx", "ny"}));
  ASSERT_EQ(S2.Frame.Updates.size(), 1u);
  EXPECT_EQ(S2.Frame.Updates[0].Target, "out");
  EXPECT_EQ(S2.Frame.Updates[0].Value.Kind, ir::Expr::Read);
  EXPECT_EQ(ir::validate(S2), "");
  ir::StencilIR S3 = named("star3d_r1_dirichlet0", "double");
  EXPECT_EQ(S3.Frame.Upper, (std::vector<std::string>{"nx", "ny", "nz"}));
  EXPECT_EQ(S3.Frame.Updates[0].Value.Value, "0.0");
  EXPECT_EQ(ir::validate(S3), "");
  EXPECT_EQ(ir::whyNoGenerator(S3), "");
}

TEST(Boundary, EveryStrategyWritesTheFrameBeforeTheDomain) {
  for (const char *Name : {"star2d_r1_dirichlet", "star3d_r1_dirichlet0"}) {
    ir::StencilIR IR = named(Name);
    unsigned Generated = 0;
    for (const auto &Strat : forge::allStrategies())
      for (const forge::StrategyParams &P : Strat->searchSpace(IR)) {
        forge::GeneratedSource G = generate(IR, P);
        if (!G.ok())
          continue;
        ++Generated;
        const std::string &S = G.Source;
        SCOPED_TRACE(std::string(Name) + " " + P.id());
        size_t Kernel = S.find("__global__ void fs_test_boundary(");
        size_t Box = S.find("fs_fhi[0] = fs_min((long long)(nx), fs_first + "
                            "fs_covered);");
        size_t Clip = S.find("fs_lo[a] = fs_min(fs_max(fs_lo[a], fs_flo[a]), "
                             "fs_fhi[a]);");
        size_t Launch = S.find("fs_test_boundary<<<");
        size_t Empty = S.find("return; // no domain: the box was all "
                              "boundary");
        ASSERT_NE(Kernel, std::string::npos);
        EXPECT_LT(Kernel, Box);
        EXPECT_LT(Box, Clip);
        EXPECT_LT(Clip, Launch);
        EXPECT_LT(Launch, Empty);
        // The domain's own guards stay as they were.
        EXPECT_TRUE(contains(S, "fs_lo[0] = fs_max((long long)(1), "
                                "fs_first);"));
        EXPECT_FALSE(contains(S, "nothing to compute: the original writes "
                                 "nothing"));
        EXPECT_FALSE(contains(S, "fs_test_frame"));
      }
    EXPECT_GT(Generated, 0u) << Name;
  }
}

TEST(Boundary, TheFrameKernelStoresTheValuesAtThePoint) {
  std::string S = naive(named("star2d_r1_dirichlet"));
  EXPECT_TRUE(contains(S, "    const long long fs_i = x * s0 + y * s1 + z * "
                          "s2;\n    out[fs_i] = in[fs_i];\n  }\n}\n"))
      << S;
  // Every axis of the IR is cut, the missing middle one is not.
  EXPECT_TRUE(contains(S, "const int fs_axes[2] = {0, 2};"));
  EXPECT_TRUE(contains(S, "fs_blo[a] = fs_flo[a];"));
  EXPECT_TRUE(contains(S, "fs_bhi[fs_axes[k]] = fs_lo[fs_axes[k]];"));
  S = naive(named("star3d_r1_dirichlet0"));
  EXPECT_TRUE(contains(S, "    out[fs_i] = 0.0f;\n")) << S;
  EXPECT_TRUE(contains(S, "const int fs_axes[3] = {0, 1, 2};"));
  EXPECT_TRUE(contains(S, "fs_fhi[1] = fs_min((long long)(ny), fs_first + "
                          "fs_covered);"));
}

TEST(Boundary, TheOriginalTestsTheDomainInsideTheBox) {
  std::string O = original(named("star2d_r1_dirichlet"));
  EXPECT_TRUE(contains(O, "if (i < (0) || i >= (nx))\n    return;")) << O;
  EXPECT_TRUE(contains(O, "if (j < (0) || j >= (ny))\n    return;"));
  EXPECT_TRUE(contains(O, "  if (i >= (1) && i < (nx - 1) &&\n"
                          "      j >= (1) && j < (ny - 1)) {\n"
                          "    out[fs_i] = "));
  EXPECT_TRUE(contains(O, "  } else {\n    out[fs_i] = in[fs_i];\n  }\n"));
  // No clamp or box helper: the original reads nothing moved.
  EXPECT_FALSE(contains(O, "FORGESTENCIL_GENERATED_CLAMP"));
  // A loop axis runs over the box.
  ir::StencilIR IR = named("star3d_r1_dirichlet0");
  IR.Axes[2].Source = ir::AxisSource::Loop;
  O = original(IR);
  EXPECT_TRUE(contains(O, "for (long long k = (0); k < (nz); ++k) {")) << O;
  EXPECT_TRUE(contains(O, "k >= (1) && k < (nz - 1)) {"));
  EXPECT_TRUE(contains(O, "} else {\n      out[fs_i] = 0.0f;\n    }\n"));
}

TEST(Boundary, AFrameWithAWrappedAxis) {
  // Wrapped along x over whole rows, a frame on the first and last rows:
  // the wrapped frame inside the domain, the boundary kernel outside it.
  ir::StencilIR IR = named("star2d_r1_wrap");
  IR.Axes[1].WrapLower = IR.Axes[1].WrapUpper = "";
  IR.Axes[1].Lower = "1";
  IR.Axes[1].Upper = "ny - 1";
  IR.Frame = named("star2d_r1_dirichlet").Frame;
  std::string S = naive(IR);
  size_t Boundary = S.find("fs_test_boundary<<<");
  size_t Wrapped = S.find("fs_test_frame<<<");
  ASSERT_NE(Boundary, std::string::npos) << S;
  EXPECT_LT(Boundary, Wrapped);
  EXPECT_TRUE(contains(S, "__device__ inline long long fs_wrap("));
  EXPECT_TRUE(contains(S, "const int fs_axes[1] = {0};"));
  std::string O = original(IR);
  EXPECT_TRUE(contains(O, "in[fs_i + (fs_wrap(i + (-1), (long long)(0), "
                          "(long long)(nx - 1), (long long)((nx - 1) - (0) "
                          "+ 1)) - i) * (long long)(1)]"));
  EXPECT_TRUE(contains(O, "} else {\n    out[fs_i] = in[fs_i];"));
}

TEST(Boundary, AFrameOnAOneDimensionalIdSkipsPointsBeyondTheLaunch) {
  ir::StencilIR IR = named("star2d_r1_dirichlet");
  for (size_t A = 0; A < 2; ++A) {
    IR.Axes[A].Source = ir::AxisSource::Linear;
    IR.Axes[A].ThreadDim = 'x';
  }
  IR.Axes[0].LinearStep = "1";
  IR.Axes[0].LinearModulus = "nx";
  IR.Axes[1].LinearStep = "nx";
  std::string S = naive(IR);
  EXPECT_TRUE(contains(S, ", long long fs_ids, fs_frame_boxes fs_f) {"))
      << S;
  EXPECT_TRUE(contains(S, "if ((x - (0)) * (long long)(1) + (z - (0)) * "
                          "(long long)(nx) >= fs_ids)\n      continue;"));
  EXPECT_TRUE(contains(S, "fs_fhi[0] = fs_min(fs_fhi[0], (long long)(0) + "
                          "(long long)(nx));"));
  EXPECT_TRUE(contains(S, ", (long long)grid.x * block.x, fs_f);"));
}

TEST(Boundary, RefusesFramesNoGeneratorCanWrite) {
  auto Why = [](const ir::StencilIR &IR) {
    std::string Error;
    EXPECT_FALSE(forge::StencilView::create(IR, Error));
    return Error;
  };
  ir::StencilIR IR = named("star2d_r1_dirichlet");
  IR.Frame.Upper.pop_back();
  EXPECT_EQ(Why(IR), "the frame's box needs a lower and an upper bound per "
                     "axis (2)");
  IR = named("star2d_r1_dirichlet");
  IR.Frame.Updates[0].Target = "in";
  EXPECT_EQ(Why(IR), "the frame stores 'in', which the stencil does not "
                     "update");
  IR = named("star2d_r1_dirichlet");
  IR.Frame.Updates[0].Value.Off = {1, 0, 0};
  EXPECT_EQ(Why(IR), "the frame value of 'out' reads 'in' at another point "
                     "than its own");
  IR = named("star2d_r1_dirichlet");
  IR.Frame.Updates[0].Value.Name = "out";
  EXPECT_EQ(Why(IR), "the frame value of 'out' reads 'out', an output, which "
                     "the frame's stores may change");
  IR = named("star2d_r1_dirichlet");
  IR.Frame.Updates.push_back(IR.Frame.Updates[0]);
  EXPECT_EQ(Why(IR), "the frame stores 'out' twice");
}

TEST(Boundary, SignatureAndRenamesKnowTheFrame) {
  EXPECT_EQ(forge::stencilSignature(named("star2d_r1_dirichlet")),
            "2d.star.r1.pts5.in1.out1.pp0.coef-scalar-param.frame.f32");
  ir::StencilIR IR = named("star2d_r1_dirichlet");
  IR.Frame.Updates[0].Value = ir::Expr();
  IR.Frame.Updates[0].Value.Kind = ir::Expr::Coef;
  IR.Frame.Updates[0].Value.Name = "c0";
  ir::StencilIR R = forge::renameParams(
      IR, {{"nx", "fs_p_nx"}, {"out", "fs_p_out"}, {"c0", "fs_p_c0"}});
  EXPECT_EQ(R.Frame.Upper[0], "fs_p_nx");
  EXPECT_EQ(R.Frame.Updates[0].Target, "fs_p_out");
  EXPECT_EQ(R.Frame.Updates[0].Value.Name, "fs_p_c0");
}

TEST(Boundary, CasesHoldADomainAndAFrameInBounds) {
  for (const char *Name : {"star2d_r1_dirichlet", "star3d_r1_dirichlet0"}) {
    ir::StencilIR IR = named(Name);
    std::mt19937 Rng(3);
    for (const forge::CaseShape &C :
         forge::makeCases(IR, {64, 64, 64}, {32, 4, 2}, Rng, true)) {
      SCOPED_TRACE(std::string(Name) + " " + C.Name);
      EXPECT_TRUE(C.Derivation.Check.InBounds) << C.Derivation.Check.Why;
      // The domain [1, n - 1) and the frame around it hold points.
      for (unsigned A = 0; A < IR.Dims; ++A)
        EXPECT_GE(C.Ext[A], 3);
    }
  }
  // A box wider than the arrays writes outside them.
  ir::StencilIR IR = named("star2d_r1_dirichlet");
  IR.Frame.Upper[1] = "ny + 1";
  forge::BoundsCheck B = forge::checkBounds(IR, {35, 19, 1}, {32, 8, 1});
  EXPECT_TRUE(B.Known);
  EXPECT_FALSE(B.InBounds);
  EXPECT_EQ(B.Why, "the original writes y = 19, outside [0, 19)");
  // An empty domain still writes its box.
  IR = named("star2d_r1_dirichlet");
  IR.Frame.Upper[0] = "nx + 1";
  B = forge::checkBounds(IR, {2, 19, 1}, {32, 8, 1});
  EXPECT_FALSE(B.InBounds);
  EXPECT_EQ(B.Why, "the original writes x = 2, outside [0, 2)");
}

} // namespace

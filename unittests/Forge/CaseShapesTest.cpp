//===- CaseShapesTest.cpp - Case sizes the original handles in bounds -----===//

#include "forgestencil/Forge/CaseShapes.h"

#include "forgestencil/Forge/Bundle.h"
#include "forgestencil/Forge/NamedStencils.h"

#include <gtest/gtest.h>

using namespace forgestencil;
using namespace forgestencil::forge;

namespace {

TEST(CaseShapesTest, EvaluatesTheIRsExpressions) {
  const std::map<std::string, long long> V = {{"nx", 10}, {"ny", 7}, {"n", 5}};
  EXPECT_EQ(evaluateExpression("n - 1", V), 4);
  EXPECT_EQ(evaluateExpression("nx*ny", V), 70);
  EXPECT_EQ(evaluateExpression("(size_t)nx * ny", V), 70);
  EXPECT_EQ(evaluateExpression("(long long)(nx) * (ny - 2)", V), 50);
  EXPECT_EQ(evaluateExpression("-(n) + 3 * 2 % 4", V), -3);
  EXPECT_EQ(evaluateExpression("1024u", V), 1024);
  EXPECT_EQ(evaluateExpression("min(nx, 64) + max(n, 2)", V), 15);
  EXPECT_EQ(evaluateExpression("nx / (n - 5)", V), std::nullopt);
  EXPECT_EQ(evaluateExpression("N - 1", V), std::nullopt);
  EXPECT_EQ(evaluateExpression("nx +", V), std::nullopt);
  EXPECT_EQ(evaluateExpression("f(nx)", V), std::nullopt);
  EXPECT_EQ(evaluateExpression("", V), std::nullopt);
}

/// `B[i * N + j]` with `#define N 1024` and both bounds from the
/// parameter n, as the analysis describes it.
ir::StencilIR macroStrideJacobi() {
  ir::StencilIR IR;
  IR.Kernel = "jacobi";
  IR.Dims = 2;
  ir::Axis X, Y;
  X.Name = "j";
  X.ThreadDim = 'x';
  X.Lower = "1";
  X.Upper = "n - 1";
  X.Extent = "1024";
  Y.Name = "i";
  Y.ThreadDim = 'y';
  Y.Lower = "1";
  Y.Upper = "n - 1";
  Y.Extent = "n";
  IR.Axes = {X, Y};
  IR.Strides = {"1", "1024"};
  IR.Params = {{"A", "const float *", ir::Param::Input},
               {"B", "float *", ir::Param::Output},
               {"n", "int", ir::Param::Size}};
  ir::InputArray In;
  In.Param = "A";
  In.Offsets = {{-1, 0, 0}, {0, -1, 0}, {0, 0, 0}, {0, 1, 0}, {1, 0, 0}};
  IR.Inputs = {In};
  ir::OutputArray Out;
  Out.Param = "B";
  IR.Outputs = {Out};
  IR.Radius = 1;
  return IR;
}

const std::array<unsigned, 3> Block = {32, 4, 1};

TEST(CaseShapesTest, TheMacroStrideKernelIsOutOfBoundsBeyondItsRowLength) {
  ir::StencilIR IR = macroStrideJacobi();
  EXPECT_EQ(fixedExtents(IR), (Extents{1024, 0, 0}));
  BoundsCheck In = checkBounds(IR, {1024, 1024, 1}, Block);
  EXPECT_TRUE(In.Known);
  EXPECT_TRUE(In.InBounds) << In.Why;
  // The last row reads one row past the arrays.
  BoundsCheck Tall = checkBounds(IR, {1024, 4096, 1}, Block);
  EXPECT_TRUE(Tall.Known);
  EXPECT_FALSE(Tall.InBounds);
  EXPECT_NE(Tall.Why.find("reads element 4194304 of arrays of 4194304"),
            std::string::npos)
      << Tall.Why;
  // Rows other than the IR's: not a case the app can run.
  BoundsCheck Wide = checkBounds(IR, {4096, 4096, 1}, Block);
  EXPECT_FALSE(Wide.InBounds);
  EXPECT_NE(Wide.Why.find("axis x's extent is 1024 in the IR, not 4096"),
            std::string::npos)
      << Wide.Why;
  // Free rows wider than the stride: distinct points share elements.
  IR.Axes[0].Extent = "nx";
  BoundsCheck Shared = checkBounds(IR, {4096, 4096, 1}, Block);
  EXPECT_FALSE(Shared.InBounds);
  EXPECT_NE(Shared.Why.find("different points share elements"), std::string::npos)
      << Shared.Why;
}

TEST(CaseShapesTest, SizesAreDerivedFromTheLiteralExtent) {
  ir::StencilIR IR = macroStrideJacobi();
  DerivedExtents Timed = deriveExtents(IR, {4096, 4096, 1}, Block, false);
  EXPECT_EQ(Timed.Ext, (Extents{1024, 1024, 1}));
  EXPECT_TRUE(Timed.Changed);
  EXPECT_TRUE(Timed.Check.InBounds);
  EXPECT_NE(Timed.Note.find("4096x4096 became 1024x1024: axis x's extent is "
                            "1024 in the IR"),
            std::string::npos)
      << Timed.Note;
  // Odd extents stay odd and fit.
  DerivedExtents Medium = deriveExtents(IR, {2001, 2001, 1}, Block, true);
  EXPECT_EQ(Medium.Ext[0], 1024);
  EXPECT_EQ(Medium.Ext[1] % 2, 1);
  EXPECT_LE(Medium.Ext[1], 1024);
  EXPECT_TRUE(Medium.Check.InBounds);
  // What already fits stays.
  DerivedExtents Small = deriveExtents(IR, {1024, 301, 1}, Block, true);
  EXPECT_FALSE(Small.Changed);
  EXPECT_EQ(Small.Ext, (Extents{1024, 301, 1}));
}

/// The same kernel as the analysis describes it now: the macro kept by
/// name in the row's extent and the stride, its value in the constants.
ir::StencilIR namedConstantJacobi() {
  ir::StencilIR IR = macroStrideJacobi();
  IR.Axes[0].Extent = "N";
  IR.Strides[1] = "N";
  ir::NamedConstant N;
  N.Name = "N";
  N.Type = "int";
  N.Value = "1024";
  N.DefinedAt = "jacobi.cu:10";
  IR.Constants = {N};
  return IR;
}

TEST(CaseShapesTest, ANamedConstantExtentTakesTheConstantsValue) {
  ir::StencilIR IR = namedConstantJacobi();
  EXPECT_EQ(constantValues(IR), (std::map<std::string, long long>{{"N", 1024}}));
  EXPECT_EQ(fixedExtents(IR), (Extents{1024, 0, 0}));
  EXPECT_NE(fixedExtentWhy(IR, 0).find("N = 1024 (a named constant defined at "
                                       "jacobi.cu:10"),
            std::string::npos)
      << fixedExtentWhy(IR, 0);
  // The stride is N whatever the case's rows: 4096-wide rows are not a
  // case the app can run.
  BoundsCheck Wide = checkBounds(IR, {4096, 4096, 1}, Block);
  EXPECT_TRUE(Wide.Known);
  EXPECT_FALSE(Wide.InBounds);
  EXPECT_NE(Wide.Why.find("axis x's extent is N = 1024"), std::string::npos)
      << Wide.Why;
  EXPECT_TRUE(checkBounds(IR, {1024, 1024, 1}, Block).InBounds);
  BoundsCheck Tall = checkBounds(IR, {1024, 4096, 1}, Block);
  EXPECT_FALSE(Tall.InBounds);
  EXPECT_NE(Tall.Why.find("reads element 4194304 of arrays of 4194304"),
            std::string::npos)
      << Tall.Why;
  DerivedExtents Timed = deriveExtents(IR, {4096, 4096, 1}, Block, false);
  EXPECT_EQ(Timed.Ext, (Extents{1024, 1024, 1}));
  EXPECT_NE(Timed.Note.find("axis x's extent is N = 1024"), std::string::npos)
      << Timed.Note;
  // Another build's value is another fixed extent.
  IR.Constants[0].Value = "4096";
  EXPECT_EQ(deriveExtents(IR, {4096, 4096, 1}, Block, false).Ext,
            (Extents{4096, 4096, 1}));
  // A constant too small for the stencil leaves nothing to derive: the
  // case stays out of bounds, and is refused.
  IR.Constants[0].Value = "2";
  DerivedExtents Tiny = deriveExtents(IR, {301, 201, 1}, Block, true);
  EXPECT_EQ(Tiny.Ext[0], 2);
  EXPECT_TRUE(Tiny.Check.Known);
  EXPECT_FALSE(Tiny.Check.InBounds);
}

TEST(CaseShapesTest, DrawnCasesKeepTheNamedConstantsExtent) {
  ir::StencilIR IR = namedConstantJacobi();
  for (bool Derive : {true, false}) {
    std::mt19937 Rng(11);
    for (const CaseShape &C : makeCases(IR, {1024, 1024, 1}, Block, Rng, Derive))
      EXPECT_EQ(C.Ext[0], 1024) << C.Name << (Derive ? " derived" : " drawn");
  }
}

TEST(CaseShapesTest, ParameterExtentsNeedNoDerivation) {
  std::string Error;
  for (const char *Name : {"star3d_r4", "box3d_r1", "star2d_r1", "hotspot2d"}) {
    auto IR = namedStencil(Name, "float", Error);
    ASSERT_TRUE(IR) << Error;
    Extents E = IR->Dims == 3 ? Extents{67, 45, 37} : Extents{333, 211, 1};
    DerivedExtents D = deriveExtents(*IR, E, bundleBlock(*IR), true);
    EXPECT_TRUE(D.Check.Known) << Name;
    EXPECT_TRUE(D.Check.InBounds) << Name << ": " << D.Check.Why;
    EXPECT_FALSE(D.Changed) << Name << ": " << D.Note;
  }
}

TEST(CaseShapesTest, UnknownExpressionsLeaveTheSizesAlone) {
  ir::StencilIR IR = macroStrideJacobi();
  IR.Strides[1] = "PITCH"; // a macro the IR does not resolve
  IR.Axes[0].Extent = "";
  DerivedExtents D = deriveExtents(IR, {301, 4001, 1}, Block, true);
  EXPECT_FALSE(D.Check.Known);
  EXPECT_FALSE(D.Changed);
}

TEST(CaseShapesTest, TheCasesOfARun) {
  ir::StencilIR IR = macroStrideJacobi();
  std::mt19937 Rng(5);
  std::vector<CaseShape> Cases = makeCases(IR, {1024, 1024, 1}, Block, Rng, true);
  ASSERT_EQ(Cases.size(), 7u);
  const char *Names[] = {"small",         "small-partial-grid",
                         "medium",        "small-aligned",
                         "small-aligned-partial-grid", "medium-aligned",
                         "timed-size"};
  for (size_t I = 0; I < Cases.size(); ++I) {
    EXPECT_EQ(Cases[I].Name, Names[I]);
    EXPECT_EQ(Cases[I].Ext[0], 1024) << Cases[I].Name;
    EXPECT_TRUE(checkBounds(IR, Cases[I].Ext, Block).InBounds) << Cases[I].Name;
  }
  // Drawn as they are, some cases of the same draw are out of bounds.
  std::mt19937 Again(5);
  std::vector<CaseShape> Raw = makeCases(IR, {1024, 1024, 1}, Block, Again, false);
  bool AnyOut = false;
  for (const CaseShape &C : Raw)
    AnyOut |= !C.Derivation.Check.InBounds;
  EXPECT_TRUE(AnyOut);
}

TEST(CaseShapesTest, AGridExtentKernelGetsWholeGridsOnly) {
  // A kernel with no guard, its reads clamped (PERKS's naive kernels): its
  // variants run only where the grid covers the extent exactly.
  std::string Error;
  auto IR = namedStencil("star2d_r1", "float", Error);
  ASSERT_TRUE(IR) << Error;
  for (const char *D : {"x", "y"}) {
    ir::Assumption A;
    A.Kind = ir::Assumption::GridExtent;
    A.Expr = D;
    A.Value = std::string("n") + D;
    IR->Assumptions.push_back(A);
  }
  const std::array<unsigned, 3> B = {32, 4, 1};
  std::mt19937 Rng(7);
  std::vector<CaseShape> Cases = makeCases(*IR, {4096, 4096, 1}, B, Rng, true);
  ASSERT_EQ(Cases.size(), 5u);
  for (const CaseShape &C : Cases) {
    EXPECT_EQ(C.Name.find("partial-grid"), std::string::npos) << C.Name;
    for (size_t Ax = 0; Ax < 2; ++Ax) {
      unsigned Size = B[IR->Axes[Ax].ThreadDim - 'x'];
      EXPECT_EQ(C.Ext[Ax] % Size, 0) << C.Name << " axis " << Ax;
    }
  }
  // Without the assumption, the partial grids are back.
  IR->Assumptions.clear();
  std::mt19937 Again(7);
  EXPECT_EQ(makeCases(*IR, {4096, 4096, 1}, B, Again, true).size(), 7u);
}

} // namespace

//===- HostExpressionsTest.cpp - The IR's expressions the host evaluates --===//
//
// A `__constant__` integer in an expression the launcher evaluates on the
// host is read there from its host shadow: hostNameIn must find it wherever
// the host evaluates it, and only as the name itself (not a struct's member,
// not a longer name that contains it, not a number's suffix).
//
//===----------------------------------------------------------------------===//

#include "forgestencil/IR/StencilIR.h"

#include "gtest/gtest.h"

using namespace forgestencil;

namespace {

ir::StencilIR plainIR() {
  ir::StencilIR IR;
  IR.Kernel = "k";
  IR.Dims = 2;
  ir::Axis X, Y;
  X.Name = "thread.x";
  X.Lower = "1";
  X.Upper = "nx - 1";
  Y.Name = "thread.y";
  Y.ThreadDim = 'y';
  Y.Lower = "1";
  Y.Upper = "ny - 1";
  IR.Axes = {X, Y};
  IR.Strides = {"1", "nx"};
  return IR;
}

TEST(HostExpressions, FindsAConstantWhereverTheHostEvaluatesIt) {
  const std::set<std::string> Device = {"c_nx"};
  EXPECT_EQ(ir::hostNameIn(plainIR(), Device), "");

  auto Upper = plainIR();
  Upper.Axes[0].Upper = "c_nx - 1";
  EXPECT_EQ(ir::hostNameIn(Upper, Device), "c_nx");

  auto Stride = plainIR();
  Stride.Strides[1] = "c_nx";
  EXPECT_EQ(ir::hostNameIn(Stride, Device), "c_nx");

  auto Own = plainIR();
  ir::InputArray In;
  In.Param = "u";
  In.Strides = {"1", "2*c_nx"};
  Own.Inputs.push_back(In);
  EXPECT_EQ(ir::hostNameIn(Own, Device), "c_nx");

  auto Clamp = plainIR();
  Clamp.Axes[1].ClampLower = "0";
  Clamp.Axes[1].ClampUpper = "c_nx-1";
  EXPECT_EQ(ir::hostNameIn(Clamp, Device), "c_nx");

  auto Checked = plainIR();
  ir::Assumption A;
  A.Kind = ir::Assumption::Holds;
  A.Expr = "(c_nx) % 4 == 0";
  A.Value = "1";
  Checked.Assumptions.push_back(A);
  EXPECT_EQ(ir::hostNameIn(Checked, Device), "c_nx");
}

TEST(HostExpressions, MatchesTheWholeNameOnly) {
  const std::set<std::string> Device = {"nx"};
  auto IR = plainIR();
  IR.Axes[0].Upper = "g.nx - 1";
  IR.Axes[1].Upper = "p->nx + nx2 + nxy + 2nx";
  IR.Strides = {"1", "m_nx"};
  EXPECT_EQ(ir::hostNameIn(IR, Device), "");
  IR.Strides = {"1", "ns::nx"};
  EXPECT_EQ(ir::hostNameIn(IR, Device), "");
  EXPECT_EQ(ir::hostNameIn(IR, {"ns::nx"}), "ns::nx");
  IR.Strides = {"1", "(nx)"};
  EXPECT_EQ(ir::hostNameIn(IR, Device), "nx");
  EXPECT_EQ(ir::hostNameIn(IR, {}), "");
}

} // namespace

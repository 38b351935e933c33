//===- PackedFieldsTest.cpp - Fields of a grid kept in one allocation -----===//

#include "PackedFields.h"

#include "gtest/gtest.h"

using namespace forgestencil::analysis;
using namespace forgestencil::analysis::detail;

namespace {

Poly sym(const char *S) { return Poly::symbol(S); }
Poly num(int64_t C) { return Poly::constant(C); }

/// Accepts a rest that is a number of elements (a neighbour along x).
bool aNumber(const Poly &Rest) { return Rest.isConstant() || Rest.terms().empty(); }

/// Accepts a rest of whole planes nx*ny and a number.
bool planesAndANumber(const Poly &Rest) {
  Poly R = Rest;
  int64_t Planes = R.coefficient({"nx", "ny"});
  R = R - num(Planes) * sym("nx") * sym("ny");
  return R.isConstant() || R.terms().empty();
}

TEST(PackedFieldsTest, PlanesCountedByParametersAreTheField) {
  const Poly Plane = sym("nx") * sym("ny");
  // 2*n_cells - 1: two volumes' planes, one element back.
  auto F = splitField(num(2) * Plane * sym("nz") - num(1), Plane, aNumber);
  ASSERT_TRUE(F);
  EXPECT_EQ(F->Count, num(2) * sym("nz"));
  EXPECT_EQ(F->Field, num(2) * Plane * sym("nz"));
  // A whole number of planes is an offset along z, not part of the field.
  F = splitField(num(2) * Plane * sym("nz") - Plane, Plane, planesAndANumber);
  ASSERT_TRUE(F);
  EXPECT_EQ(F->Count, num(2) * sym("nz"));
  // (n_fields - 1) * n_cells; padded planes (nx+2)*(ny+2) go whole.
  F = splitField((sym("nf") - num(1)) * Plane * sym("nz"), Plane, aNumber);
  ASSERT_TRUE(F);
  EXPECT_EQ(F->Count, (sym("nf") - num(1)) * sym("nz"));
  const Poly Padded = (sym("nx") + num(2)) * (sym("ny") + num(2));
  F = splitField(num(3) * Padded * sym("nz") + num(1), Padded, aNumber);
  ASSERT_TRUE(F);
  EXPECT_EQ(F->Field, num(3) * Padded * sym("nz"));
  // A padded field of (nz + 4) planes: the plain count leaves 4 planes as
  // an offset, the whole count takes them into the field.
  const Poly Row = sym("nx") + num(4);
  const Poly Ghosted = (sym("nz") + num(4)) * Row;
  auto RowsAndANumber = [&](const Poly &Rest) {
    for (int64_t K = -8; K <= 8; ++K)
      if (aNumber(Rest - num(K) * Row))
        return true;
    return false;
  };
  F = splitField(Ghosted + num(1), Row, RowsAndANumber);
  ASSERT_TRUE(F);
  EXPECT_EQ(F->Count, sym("nz"));
  F = splitField(Ghosted + num(1), Row, RowsAndANumber, /*Whole=*/true);
  ASSERT_TRUE(F);
  EXPECT_EQ(F->Count, sym("nz") + num(4));
  EXPECT_EQ(F->Field, Ghosted);
  EXPECT_FALSE(splitField(num(4) * Row, Row, RowsAndANumber, true))
      << "planes not counted by a parameter are an offset, whole or not";
  // Nothing counted by a parameter, or a rest that is not placed.
  EXPECT_FALSE(splitField(num(4) * Plane + num(1), Plane, aNumber));
  EXPECT_FALSE(splitField(Plane * sym("nz") + sym("s"), Plane, aNumber));
  EXPECT_FALSE(splitField(sym("s"), Poly(), aNumber));
}

TEST(PackedFieldsTest, AFieldLiesPastTheDomain) {
  // zid < nz - 1: 2*nz and nz are past it, nz - 1 reaches it only when
  // the coordinate is not moved, s and m say nothing, -nz is behind.
  const std::vector<Poly> Up = {sym("nz") - num(1)};
  EXPECT_TRUE(countsPast(num(2) * sym("nz"), Up, 0));
  EXPECT_TRUE(countsPast(sym("nz"), Up, 1));
  EXPECT_FALSE(countsPast(sym("nz"), Up, 2)) << "the coordinate reaches nz";
  EXPECT_TRUE(countsPast(sym("nz") - num(1), Up, 0));
  EXPECT_FALSE(countsPast(sym("s"), Up, 0));
  EXPECT_FALSE(countsPast(num(-1) * sym("nz"), Up, 0));
  EXPECT_FALSE(countsPast(sym("nz"), {}, 0)) << "no bound, no field";
  // A bound that reaches past its symbol (j < e_j + 28): e_j is no field.
  EXPECT_FALSE(countsPast(sym("e_j"), {sym("e_j") + num(28)}, 0));
  // One of several bounds suffices (i < n && i < m).
  EXPECT_TRUE(countsPast(sym("m"), {sym("n"), sym("m")}, 0));
}

} // namespace

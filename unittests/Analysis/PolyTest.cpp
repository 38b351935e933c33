//===- PolyTest.cpp - Integer polynomials over named symbols --------------===//

#include "forgestencil/Analysis/Poly.h"

#include <gtest/gtest.h>

using forgestencil::analysis::Monomial;
using forgestencil::analysis::Poly;

namespace {

Poly sym(const char *S) { return Poly::symbol(S); }
Poly num(int64_t C) { return Poly::constant(C); }

TEST(PolyTest, LinearIndexExpandsToCanonicalTerms) {
  // (k*ny + j)*nx + i == i + nx*j + nx*ny*k
  Poly A = (sym("k") * sym("ny") + sym("j")) * sym("nx") + sym("i");
  Poly B = sym("i") + sym("nx") * sym("j") + sym("nx") * sym("ny") * sym("k");
  EXPECT_EQ(A, B);
  EXPECT_EQ(A.coefficient({"i"}), 1);
  EXPECT_EQ(A.coefficient({"j", "nx"}), 1);
  EXPECT_EQ(A.coefficient({"k", "nx", "ny"}), 1);
  EXPECT_EQ(A.coefficient({"k"}), 0);
}

TEST(PolyTest, CancellingTermsDisappear) {
  Poly P = sym("nx") * num(2) - sym("nx") - sym("nx");
  EXPECT_TRUE(P.isConstant());
  EXPECT_EQ(P.constantValue(), 0);
  EXPECT_TRUE(P.terms().empty());
  EXPECT_EQ(P.str(), "0");
}

TEST(PolyTest, ConstantValueOnlyForConstants) {
  EXPECT_EQ((num(3) * num(-4)).constantValue(), -12);
  EXPECT_FALSE((sym("n") + num(1)).constantValue().has_value());
  EXPECT_EQ(Poly().constantValue(), 0);
}

TEST(PolyTest, CoefficientOfIsTheStride) {
  // c = k*nxy + j*nx + i + 1: the stride of j is nx, of k nxy.
  Poly C = sym("k") * sym("nxy") + sym("j") * sym("nx") + sym("i") + num(1);
  EXPECT_EQ(*C.coefficientOf("j"), sym("nx"));
  EXPECT_EQ(*C.coefficientOf("k"), sym("nxy"));
  EXPECT_EQ(*C.coefficientOf("i"), num(1));
  EXPECT_EQ(*C.coefficientOf("z"), Poly());
  // A squared symbol has no single coefficient.
  EXPECT_FALSE((sym("i") * sym("i")).coefficientOf("i").has_value());
}

TEST(PolyTest, WithoutDropsMonomialsMentioningNames) {
  Poly C = sym("k") * sym("nx") + sym("j") * sym("nx") + sym("i") - sym("nx");
  EXPECT_EQ(C.without({"j", "k"}), sym("i") - sym("nx"));
  EXPECT_TRUE(C.mentions("nx"));
  EXPECT_FALSE(C.mentions("ny"));
  EXPECT_TRUE((sym("@gx") + num(1)).mentionsPrefix("@"));
  EXPECT_FALSE(C.mentionsPrefix("@"));
}

TEST(PolyTest, SubstituteExpandsProducts) {
  // t = mod + nx*div, substituted into t + nx.
  Poly P = sym("t") + sym("nx");
  Poly Q = P.substitute("t", sym("m") + sym("nx") * sym("d"));
  EXPECT_EQ(Q, sym("m") + sym("nx") * sym("d") + sym("nx"));
  // Every occurrence is replaced, also in products.
  EXPECT_EQ((sym("t") * sym("t")).substitute("t", sym("a") + num(1)),
            sym("a") * sym("a") + num(2) * sym("a") + num(1));
}

TEST(PolyTest, SubstituteKeepsOtherTermsAndCancels) {
  // The terms without the symbol stay as they were; those with it keep
  // their other factors and coefficient, and like terms that result
  // merge, down to nothing where they cancel.
  Poly P = num(3) * sym("t") * sym("t") * sym("x") + num(2) * sym("x") + num(5);
  EXPECT_EQ(P.substitute("t", sym("x") - num(1)),
            num(3) * sym("x") * sym("x") * sym("x") -
                num(6) * sym("x") * sym("x") + num(5) * sym("x") + num(5));
  EXPECT_EQ(P.substitute("absent", sym("y")), P);
  EXPECT_EQ((sym("t") - sym("a")).substitute("t", sym("a")), Poly());
  EXPECT_EQ((sym("t") * sym("b") + sym("a") * sym("b"))
                .substitute("t", -sym("a")),
            Poly());
}

TEST(PolyTest, DivideExactly) {
  Poly P = num(4) * sym("j") * sym("pitch") + num(8);
  EXPECT_EQ(*P.divideExactly(num(4)), sym("j") * sym("pitch") + num(2));
  EXPECT_FALSE(P.divideExactly(num(3)).has_value());
  EXPECT_FALSE(P.divideExactly(num(0)).has_value());
  EXPECT_FALSE(P.divideExactly(sym("n")).has_value());
}

TEST(PolyTest, SpellingIsValidC) {
  Poly P = sym("k") * sym("nx") * sym("ny") + num(2) * sym("nx") - num(1);
  EXPECT_EQ(P.str(), "k*nx*ny + 2*nx - 1");
  EXPECT_EQ((-sym("i") - num(3)).str(), "-i - 3");
  EXPECT_EQ(num(-5).str(), "-5");
}

TEST(PolyTest, WideSpellingEvaluatesInLongLong) {
  Poly P = sym("k") * sym("nx") * sym("ny") + num(2) * sym("nx") - num(1);
  EXPECT_EQ(P.wideStr(), "(long long)k*nx*ny + 2LL*nx - 1LL");
  EXPECT_EQ((-sym("i") - num(3)).wideStr(), "-(long long)i - 3LL");
  EXPECT_EQ(Poly().wideStr(), "0LL");
}

TEST(PolyTest, MonomialsAreSortedProducts) {
  Poly A = sym("ny") * sym("nx");
  Poly B = sym("nx") * sym("ny");
  EXPECT_EQ(A, B);
  EXPECT_EQ(A.coefficient(Monomial{"nx", "ny"}), 1);
  EXPECT_NE(A, sym("nx"));
}

} // namespace

//===- DataBranches.cpp - Values chosen by a test on loaded data ----------===//
//
// A limiter or a switch of formula on the data (if (limiter > 0 || div >=
// 0.0) visc[p] = 0.0; else visc[p] = ...;  if (diffuw * diffdw > 0.0) lim =
// ...; else lim = 0.0;) computes, at every point, cond ? A : B with cond a
// comparison of values the thread loaded (or a loaded integer taken as a
// truth value). Where both sides store the same
// element (or only set locals the store then uses), the IR states that as a
// select whose condition compares data; generated code evaluates it per
// point as the original does. A generated kernel reads its whole footprint
// at every point, so a neighbour that only one side reads (and no other
// part of the update) is one no generator rebuilds
// (ir::whyReadsChosenByData). Where one side stores and the other does not,
// whether the point is written depends on the data: that stays refused
// (test/Analysis/neg-data-dependent-branch.test). Offsets chosen by the
// data (an upwind donor cell) are DataChosenOffsets.cpp's. A test converted
// to a number (double pos = a > 0;) is the select of 1 and 0 in that type.
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

#include <set>

namespace forgestencil {
namespace analysis {
namespace detail {

namespace {

/// Whether N reads memory (a float parameter alone is no loaded data).
bool loads(const DNode &N) {
  if (N.K == DNode::Read)
    return true;
  for (const DPtr &A : N.Args)
    if (A && loads(*A))
      return true;
  return false;
}

} // namespace

DPtr Interpreter::dataCondition(const Expr *Cond) {
  if (!Cond)
    return nullptr;
  const Expr *E = namedCondition(Cond->IgnoreParenImpCasts());
  if (std::optional<DPtr> N = logicalNode(
          E, [&](const Expr *X) { return dataCondition(X); }))
    return *N;
  const auto *B = dyn_cast<BinaryOperator>(E);
  const char *Op = B ? comparisonSpelling(B->getOpcode()) : nullptr;
  if (!Op) {
    // A loaded integer tested as a truth value (alive && n == 2): x != 0.
    if (!E->getType()->isIntegerType())
      return nullptr;
    Value V = eval(E);
    if (V.K != Value::Data || !V.D || !loads(*V.D))
      return nullptr;
    DPtr Zero = node(DNode::Literal);
    Zero->Value = "0";
    DPtr N = node(DNode::Binary);
    N->Op = "!=";
    N->Args = {V.D, Zero};
    return N;
  }
  // Each side: a data value, or an integer constant (limiter > 0). At
  // least one side loads from memory: a test of parameters alone is a mode
  // switch (one on a floating-point parameter is not taken yet), and one of
  // positions a guard, both handled before.
  bool SawData = false;
  auto Side = [&](const Expr *X) -> DPtr {
    Value V = eval(X);
    if (V.K == Value::Data && V.D) {
      SawData |= loads(*V.D);
      return V.D;
    }
    if (V.K == Value::Index && V.Idx.isConstant())
      return asData(V, X);
    return nullptr;
  };
  DPtr L = Side(B->getLHS());
  DPtr R = L ? Side(B->getRHS()) : nullptr;
  if (!R || !SawData)
    return nullptr;
  DPtr N = node(DNode::Binary);
  N->Op = Op;
  N->Args = {L, R};
  return N;
}

std::optional<Value>
Interpreter::comparisonAsNumber(const ImplicitCastExpr *C) {
  if (C->getCastKind() != CK_IntegralToFloating) // bool is integral here
    return std::nullopt;
  const Expr *Sub = C->getSubExpr()->IgnoreParenImpCasts();
  const auto *B = dyn_cast<BinaryOperator>(Sub);
  const auto *U = dyn_cast<UnaryOperator>(Sub);
  if (!(B && (B->isComparisonOp() || B->isLogicalOp())) &&
      !(U && U->getOpcode() == UO_LNot))
    return std::nullopt;
  const QualType To = C->getType().getCanonicalType();
  const bool IsFloat = To->isSpecificBuiltinType(BuiltinType::Float);
  if (!IsFloat && !To->isSpecificBuiltinType(BuiltinType::Double))
    return std::nullopt;
  const size_t ReadsBefore = Reads.size();
  DPtr Cond = dataCondition(Sub);
  if (!Cond) {
    Reads.resize(ReadsBefore);
    return std::nullopt;
  }
  auto Number = [&](const char *Text) {
    DPtr N = node(DNode::Literal);
    N->Value = std::string(Text) + (IsFloat ? "f" : "");
    return N;
  };
  DPtr S = node(DNode::Select);
  S->Args = {Cond, Number("1.0"), Number("0.0")};
  return Value::data(S);
}

std::optional<Value>
Interpreter::selectedValue(const ConditionalOperator *CO) {
  // Indices chosen by a test are not selects; whole numbers chosen by a
  // test on loaded data between two constants are (a cellular automaton's
  // rule: n == 3 ? 1 : 0).
  const bool Whole = CO->getType()->isIntegerType();
  if (!CO->getType()->isRealFloatingType() && !Whole)
    return std::nullopt;
  const bool OnData = readsData(CO->getCond());
  if (Whole && !OnData)
    return std::nullopt;
  size_t ReadsBefore = Reads.size();
  DPtr Cond = OnData ? dataCondition(CO->getCond())
                     : uniformCondition(CO->getCond());
  if (Cond) {
    auto Arm = [&](const Expr *X) -> DPtr {
      Value V = eval(X);
      if (V.K == Value::Index && !V.Idx.isConstant())
        return nullptr;
      if (Whole && !(V.K == Value::Index && V.Idx.isConstant()))
        return nullptr;
      return asData(V, X);
    };
    DPtr T = Arm(CO->getTrueExpr());
    DPtr F = T ? Arm(CO->getFalseExpr()) : nullptr;
    if (F) {
      DPtr N = node(DNode::Select);
      N->Args = {Cond, T, F};
      return Value::data(N);
    }
  }
  Reads.resize(ReadsBefore);
  return std::nullopt;
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

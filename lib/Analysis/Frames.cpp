//===- Frames.cpp - Boundary values a kernel writes around its domain -----===//
///
/// \file
/// A Dirichlet boundary set by the stencil kernel itself:
///
///   if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1)
///     out[c] = 0.25f * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx]);
///   else
///     out[c] = u[c];            // or 0.0f, or a parameter
///
/// (also with the test the other way round, if (i == 0 || ...) out[c] = u[c];
/// else ..., as if (on the boundary) { out[c] = ...; return; }, as an else-if
/// chain of boundary sides that store one value, as a store of a
/// conditional expression, out[c] = inner ? <stencil> : u[c], read as the
/// if it stands for (ternaryStoreAsIf), and on a 1-D thread id
/// split with % and /, i = id % nx and j = id / nx, whose stores
/// applySplits puts in the same coordinates and whose remainders are below
/// their divisors where nothing else bounds them). The side whose
/// condition bounds the position is the stencil; the stores of the
/// other side are kept apart (FrameWrites) and, when each is a plain store of
/// an output of the stencil at the same point whose value reads nothing but
/// the point itself, become the IR's frame: the box the other side's guards
/// give, around the domain, and those values. Anything else keeps the
/// kernel partial with the reason.
///
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

namespace forgestencil {
namespace analysis {
namespace detail {

const IfStmt *Interpreter::ternaryStoreAsIf(const Stmt *S) {
  // Most statements are no such store: told apart before the cache.
  const auto *E = dyn_cast<Expr>(S);
  if (const auto *EWC = dyn_cast_or_null<ExprWithCleanups>(E))
    E = EWC->getSubExpr();
  const auto *B = dyn_cast_or_null<BinaryOperator>(E);
  if (!B || B->getOpcode() != BO_Assign ||
      !isa<ConditionalOperator>(B->getRHS()->IgnoreParens()))
    return nullptr;
  if (auto It = TernaryIfs.find(S); It != TernaryIfs.end())
    return It->second;
  const IfStmt *&Made = TernaryIfs[S];
  const auto *AS = dyn_cast<ArraySubscriptExpr>(B->getLHS()->IgnoreParens());
  const auto *DR =
      AS ? dyn_cast<DeclRefExpr>(AS->getBase()->IgnoreParenImpCasts()) : nullptr;
  const ArrayInfo *A = DR ? arrayOf(DR->getDecl()->getName().str()) : nullptr;
  const auto *CO = dyn_cast<ConditionalOperator>(B->getRHS()->IgnoreParens());
  if (!A || A->Kind != ArrayKind::Global || !CO ||
      Ctx.getCanonicalType(CO->getType()).getUnqualifiedType() !=
          Ctx.getCanonicalType(B->getLHS()->getType()).getUnqualifiedType())
    return Made;
  // A literal on a side is a guarded load's fill (i > 0 ? in[i - 1] : 0),
  // and a test on the data or one every thread decides alike chooses a
  // value (selectedValue): those stay values.
  const Expr *Cond = CO->getCond();
  std::vector<Constraint> Cs;
  if (isLiteralFill(CO->getTrueExpr()) || isLiteralFill(CO->getFalseExpr()) ||
      readsData(Cond) || uniformCondition(Cond) ||
      !(guardConstraints(Cond, false, Cs) || guardConstraints(Cond, true, Cs)))
    return Made;
  auto Store = [&](const Expr *V) {
    return BinaryOperator::Create(Ctx, const_cast<Expr *>(B->getLHS()),
                                  const_cast<Expr *>(V), BO_Assign,
                                  B->getType(), B->getValueKind(),
                                  B->getObjectKind(), B->getOperatorLoc(),
                                  FPOptionsOverride());
  };
  Made = IfStmt::Create(Ctx, B->getBeginLoc(), IfStatementKind::Ordinary,
                        nullptr, nullptr, const_cast<Expr *>(Cond),
                        CO->getBeginLoc(), CO->getQuestionLoc(),
                        Store(CO->getTrueExpr()), CO->getColonLoc(),
                        Store(CO->getFalseExpr()));
  return Made;
}

void Interpreter::execFrameSide(const Stmt *Frame, const ThreadCond &C,
                                const Expr *Cond) {
  const size_t Before = Writes.size();
  enterCond(C);
  exec(Frame);
  leaveCond();
  if (Writes.size() == Before)
    return;
  FrameWrites.insert(FrameWrites.end(),
                     std::make_move_iterator(Writes.begin() + Before),
                     std::make_move_iterator(Writes.end()));
  Writes.resize(Before);
  const std::string T = text(Cond);
  if (std::find(FrameConds.begin(), FrameConds.end(), T) == FrameConds.end())
    FrameConds.push_back(T);
}

std::string Interpreter::frameOf(
    ir::StencilIR &IR, const std::vector<std::string> &AxisSyms,
    const std::vector<std::optional<Poly>> &TLo,
    const std::vector<std::optional<Poly>> &THi,
    const std::function<Poly(size_t)> &ShiftOf,
    const std::function<std::optional<ir::Offset>(const Poly &,
                                                  std::string &)> &OffsetOf,
    const std::function<ir::Expr(const DPtr &)> &Convert) {
  if (FrameWrites.empty())
    return "";
  // An else-if chain of boundary sides (the x faces, else the y faces) that
  // store one value: a later side's store is an earlier one's, at the same
  // point, under its guards and the negations of the earlier tests (a
  // point excluded along an axis each, i != 0 && i != nx - 1; a test that
  // is not a disjunction of such points was refused where it was met). The
  // union of the sides is then one store over the box less the domain.
  auto Extends = [](const std::vector<Constraint> &Earlier,
                    const std::vector<Constraint> &Later) {
    auto Same = [](const Constraint &A, const Constraint &B) {
      return A.Symbol == B.Symbol && A.Upper == B.Upper &&
             A.NotEqual == B.NotEqual && A.Bound == B.Bound;
    };
    for (const Constraint &C : Earlier)
      if (std::none_of(Later.begin(), Later.end(),
                       [&](const Constraint &L) { return Same(C, L); }))
        return false;
    for (const Constraint &L : Later)
      if (!L.NotEqual &&
          std::none_of(Earlier.begin(), Earlier.end(),
                       [&](const Constraint &C) { return Same(C, L); }))
        return false;
    return true;
  };
  std::vector<const Write *> Sides, Repeats;
  for (const Write &F : FrameWrites) {
    const bool Repeat =
        std::any_of(Sides.begin(), Sides.end(), [&](const Write *G) {
          return G->Array == F.Array && G->Index == F.Index &&
                 !G->Accumulate && !F.Accumulate && G->Value && F.Value &&
                 sameTree(*G->Value, *F.Value) && Extends(G->Guards, F.Guards);
        });
    (Repeat ? Repeats : Sides).push_back(&F);
  }
  const ir::Offset Zero{0, 0, 0};
  // The values: plain stores of the stencil's outputs, at the point, that
  // read the point itself only.
  std::set<std::string> Stored;
  std::string Why;
  std::function<bool(const DPtr &)> AtPoint = [&](const DPtr &N) {
    if (!N)
      return false;
    if (N->K == DNode::Select) {
      Why = "a boundary value chosen by a condition";
      return false;
    }
    if (N->K == DNode::Read) {
      std::string Ignored;
      auto O = N->Shared ? std::nullopt : OffsetOf(N->Index, Ignored);
      const bool Moved = std::any_of(
          N->Clamps.begin(), N->Clamps.end(),
          [](const ClampSet &S) { return !S.Ids.empty(); });
      if (!O || *O != Zero || Moved || !N->InBounds.empty()) {
        Why = "a boundary value reads '" + N->Name + "' at another point";
        return false;
      }
      bool Output = false, Input = false;
      for (const Write &W : Writes)
        Output |= W.Array == N->Name;
      for (const ir::InputArray &In : IR.Inputs)
        Input |= In.Param == N->Name;
      if (Output || !Input) {
        Why = "a boundary value reads '" + N->Name + "', " +
              (Output ? "an output of the stencil"
                      : "which the stencil does not read");
        return false;
      }
    }
    for (const DPtr &A : N->Args)
      if (!AtPoint(A))
        return false;
    return true;
  };
  for (const Write *R : Repeats)
    if (!AtPoint(R->Value))
      return Why;
  for (const Write *S : Sides) {
    const Write &F = *S;
    const ir::OutputArray *Out = nullptr;
    for (const ir::OutputArray &O : IR.Outputs)
      if (O.Param == F.Array)
        Out = &O;
    if (!Out)
      return "'" + F.Array + "' is stored on the boundary only";
    if (F.Accumulate)
      return "a compound store of '" + F.Array + "' on the boundary";
    if (!Stored.insert(F.Array).second)
      return "'" + F.Array + "' is stored twice on the boundary";
    std::string OWhy;
    auto O = OffsetOf(F.Index, OWhy);
    if (!O || *O != Out->WriteOffset || Out->WriteOffset != Zero)
      return "'" + F.Array + "' is stored on the boundary at another point "
             "than in the interior";
    if (!AtPoint(F.Value))
      return Why;
    if (F.Guards.size() != Sides.front()->Guards.size())
      return "boundary stores under different guards";
  }
  // A remainder of the 1-D thread id (i = id % nx, j = id / nx % ny; the
  // id, blockIdx.x * blockDim.x + threadIdx.x, is never negative) is below
  // its divisor while the divisors are positive: whether a symbol is such
  // an id, or a remainder or quotient of one, with the divisors it takes
  // (nx, ny).
  std::function<bool(const std::string &, std::vector<Poly> &, int)>
      NonNegative = [&](const std::string &Sym, std::vector<Poly> &Divs,
                        int Depth) {
        if (std::find(std::begin(GlobalThread), std::end(GlobalThread),
                      Sym) != std::end(GlobalThread))
          return true;
        if (Depth > 3)
          return false;
        for (const auto &[Key, Sp] : Splits) {
          if (Sp.ModName != Sym && Sp.DivName != Sym)
            continue;
          const auto &Terms = Sp.X.terms();
          if (Terms.size() == 1 && Terms.begin()->first.size() == 1 &&
              Terms.begin()->second == 1 &&
              NonNegative(Terms.begin()->first[0], Divs, Depth + 1)) {
            Divs.push_back(Sp.A);
            return true;
          }
        }
        return false;
      };
  std::vector<Poly> Divisors;
  // The box: the guards of the boundary's stores, along each axis.
  const std::vector<Constraint> &Gs = Sides.front()->Guards;
  for (size_t A = 0; A < AxisSyms.size(); ++A) {
    const std::string &S = AxisSyms[A];
    const std::string Axis = "'" + IR.Axes[A].Name + "'";
    std::vector<Poly> Lows, Highs;
    for (const AxisSym &L : LoopAxes)
      if (L.Symbol == S && L.HasLoopRange) {
        Lows.push_back(L.LoopLower);
        Highs.push_back(L.LoopUpper);
      }
    if (Lows.empty() && IR.Axes[A].Source != ir::AxisSource::Loop)
      Lows.push_back(Poly()); // a thread's coordinate is at least its offset
    for (const Constraint &C : Gs) {
      if (C.Symbol != S)
        continue;
      if (C.NotEqual)
        return "a boundary store excludes one point along " + Axis;
      (C.Upper ? Highs : Lows).push_back(C.Bound);
    }
    if (Highs.empty())
      for (const auto &[Key, Sp] : Splits)
        if (std::vector<Poly> Divs;
            Sp.ModName == S && Sp.HaveMod && NonNegative(S, Divs, 0)) {
          Highs.push_back(Sp.A);
          Divisors.insert(Divisors.end(), Divs.begin(), Divs.end());
          break;
        }
    keepTightest(Lows, false);
    keepTightest(Highs, true);
    if (Lows.size() > 1 || Highs.size() > 1)
      return "boundary stores under two bounds along " + Axis;
    std::optional<Poly> Lo, Hi;
    if (!Lows.empty())
      Lo = Lows.front();
    if (!Highs.empty())
      Hi = Highs.front();
    if (!Lo || !Hi)
      return "the boundary stores have no " + std::string(Lo ? "upper" : "lower") +
             " bound along " + Axis;
    if (!TLo[A] || !THi[A] || !nonNegative(*TLo[A] - *Lo) ||
        !nonNegative(*Hi - *THi[A]))
      return "the domain along " + Axis + " is not within the box of the "
             "boundary stores [" + (*Lo + ShiftOf(A)).str() + ", " +
             (*Hi + ShiftOf(A)).str() + ")";
    IR.Frame.Lower.push_back((*Lo + ShiftOf(A)).str());
    IR.Frame.Upper.push_back((*Hi + ShiftOf(A)).str());
  }
  for (const Poly &A : Divisors) {
    if (auto C = A.constantValue(); C && *C >= 1)
      continue;
    ir::Assumption P;
    P.Kind = ir::Assumption::AtLeast;
    P.Expr = A.str();
    P.Value = "1";
    P.Why = "the boundary frame spans the remainders of the thread id by " +
            A.str() + ", which are below it while it is positive";
    if (std::none_of(IR.Assumptions.begin(), IR.Assumptions.end(),
                     [&](const ir::Assumption &Q) {
                       return Q.Kind == P.Kind && Q.Expr == P.Expr;
                     }))
      IR.Assumptions.push_back(std::move(P));
  }
  for (const Write *F : Sides) {
    ir::Update U;
    U.Target = F->Array;
    U.Value = Convert(F->Value);
    IR.Frame.Updates.push_back(std::move(U));
  }
  return "";
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

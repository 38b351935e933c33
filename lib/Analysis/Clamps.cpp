//===- Clamps.cpp - Boundary clamps of positions ----------------------------===//

#include "KernelInterpreter.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

namespace forgestencil {
namespace analysis {
namespace detail {

Value Interpreter::clampOf(bool Upper, const Value &Pos, const Value &Bound,
                           const std::string &Text) {
  Clamps.insert(Text);
  ClampInfo CI;
  CI.Upper = Upper;
  CI.Bound = Bound.Idx;
  std::vector<std::pair<int, Poly>> Inner;
  if (!splitClamps(Pos.Idx, CI.Arg, Inner))
    return Value::unknown("a clamp of a clamped position times another (" +
                          Text + ")");
  CI.Text = Text;
  std::string Sym = ClampPrefix + std::to_string(ClampInfos.size());
  ClampInfos.push_back(std::move(CI));
  return Value::index(Pos.Idx + Poly::symbol(Sym));
}

namespace {
/// c ? t : f as L == R ? AtEq : Other.
struct EqualityForm {
  Value L, R, AtEq, Other;
};

/// An equality as it is (c != e ? p : b is c == e ? b : p). A comparison of
/// a position p with a fixed b whose two values both move, as in
/// i > 0 ? i - 1 : i or k >= nz - 1 ? c : c + xy, keeps the point on one
/// side, the edge: below a bound that is a number (i > 0), above one that
/// is not (nz - 1). On a domain that does not pass that edge (which
/// equalityClamp's caller, clampedBounds, checks) the edge side is one
/// point, the equality there: i > 0 keeps i where i == 0, k >= nz - 1
/// where k == nz - 1. A wrong guess of the edge gives a bound the domain
/// passes, which clampedBounds refuses.
std::optional<EqualityForm> asEquality(const BinaryOperator *Cmp,
                                       const Value &L, const Value &R,
                                       const Value &T, const Value &F) {
  BinaryOperatorKind Op = Cmp->getOpcode();
  if (Op == BO_EQ)
    return EqualityForm{L, R, T, F};
  if (Op == BO_NE)
    return EqualityForm{L, R, F, T};
  if (!Cmp->isRelationalOp() || !moves(T) || !moves(F) || moves(L) == moves(R))
    return std::nullopt;
  const bool PosLeft = moves(L);
  const Value &P = PosLeft ? L : R, &B = PosLeft ? R : L;
  if (!PosLeft) // b < p is p > b
    Op = Op == BO_LT ? BO_GT : Op == BO_GT ? BO_LT : Op == BO_LE ? BO_GE : BO_LE;
  const bool Above = Op == BO_GT || Op == BO_GE; // where the test holds
  const bool LowerEdge = B.Idx.isConstant();
  // The test holds at the edge (then keeps the point) or not (else does).
  const bool HoldsAtEdge = Above != LowerEdge;
  int64_t Step = 0;
  if (HoldsAtEdge)
    Step = Op == BO_GT ? 1 : Op == BO_LT ? -1 : 0;
  else
    Step = Op == BO_GE ? -1 : Op == BO_LE ? 1 : 0;
  const Value At = Value::index(B.Idx + Poly::constant(Step));
  return HoldsAtEdge ? EqualityForm{P, At, T, F} : EqualityForm{P, At, F, T};
}
} // namespace

/// e == b ? a : p that replaces p only where it is one point beyond the
/// bound: i == 0 ? 0 : i - 1, i == nx - 1 ? nx - 1 : i + 1, j == ny - 1 ?
/// j : j + 1 (an inequality where asEquality makes it one). It equals
/// max(p, b) (min) only for reads at -1 (+1) on a domain within the bounds;
/// clampedBounds checks both.
std::optional<Value> Interpreter::equalityClamp(const Value &L, const Value &R,
                                                const Value &AtEq,
                                                const Value &Pos,
                                                const std::string &Text) {
  Poly P, Lp, Rp, B;
  std::vector<std::pair<int, Poly>> Ignored;
  if (!moves(Pos) || !splitClamps(Pos.Idx, P, Ignored) ||
      !splitClamps(L.Idx, Lp, Ignored) || !splitClamps(R.Idx, Rp, Ignored) ||
      !splitClamps(AtEq.Idx, B, Ignored))
    return std::nullopt;
  const Poly D = Lp - Rp;
  // A value chosen at equality that moves (j == ny - 1 ? j : ...) is, where
  // it is chosen, the fixed bound it equals there.
  if (moves(AtEq)) {
    std::optional<Poly> Fixed;
    for (const Poly &C : {B - D, B + D})
      if (!moves(Value::index(C)))
        Fixed = C;
    if (!Fixed)
      return std::nullopt;
    B = *Fixed;
  }
  for (bool Upper : {false, true}) {
    Poly Rest = P - B + Poly::constant(Upper ? -1 : 1);
    if (Rest != D && Rest != -D)
      continue;
    Value V = clampOf(Upper, Pos, Value::index(B), Text);
    if (V.K == Value::Index)
      ClampInfos.back().Equality = true;
    return V;
  }
  return std::nullopt;
}

std::optional<Value> Interpreter::ternaryClamp(const ConditionalOperator *CO) {
  const auto *Cmp =
      dyn_cast<BinaryOperator>(CO->getCond()->IgnoreParenImpCasts());
  if (!Cmp || !Cmp->isComparisonOp() || !CO->getType()->isIntegerType())
    return std::nullopt;
  Value L = eval(Cmp->getLHS()), R = eval(Cmp->getRHS());
  Value T = eval(CO->getTrueExpr()), F = eval(CO->getFalseExpr());
  if (std::optional<Value> V = choiceClamp(Cmp, L, R, T, F, text(CO)))
    return V;
  if (std::optional<Value> V = choiceWrap(Cmp, L, R, T, F, text(CO))) // Wraps.cpp
    return V;
  if (std::optional<Value> V = offsetChoice(Cmp, L, R, T, F, text(CO)))
    return V;
  return linearChoice(Cmp, L, R, T, F, text(CO));
}

std::optional<Value>
Interpreter::positionChoice(const BinaryOperator *Cmp, const Value &L,
                            const Value &R, const Value &T, const Value &F,
                            const std::string &Text) {
  if (std::optional<Value> V = choiceClamp(Cmp, L, R, T, F, Text))
    return V;
  if (std::optional<Value> V = choiceWrap(Cmp, L, R, T, F, Text))
    return V;
  return linearChoice(Cmp, L, R, T, F, Text);
}

std::optional<Value> Interpreter::readChoice(const ConditionalOperator *CO) {
  const auto *Cmp =
      dyn_cast<BinaryOperator>(CO->getCond()->IgnoreParenImpCasts());
  if (!Cmp || !Cmp->isComparisonOp() || readsData(Cmp))
    return std::nullopt;
  const auto *TA = dyn_cast<ArraySubscriptExpr>(CO->getTrueExpr()->IgnoreParenImpCasts());
  const auto *FA = dyn_cast<ArraySubscriptExpr>(CO->getFalseExpr()->IgnoreParenImpCasts());
  if (!TA || !FA || !TA->getType()->isRealFloatingType() ||
      TA->getType().getCanonicalType().getUnqualifiedType() !=
          FA->getType().getCanonicalType().getUnqualifiedType())
    return std::nullopt;
  // The element each side reads, as an index into the array.
  auto Element = [&](const ArraySubscriptExpr *A) -> std::optional<Value> {
    if (A->getType()->isArrayType())
      return std::nullopt;
    Value B = eval(A->getBase()), I = eval(A->getIdx());
    if (B.K != Value::Pointer || I.K != Value::Index)
      return std::nullopt;
    return B.movedTo(B.Idx + I.Idx);
  };
  std::optional<Value> TE = Element(TA), FE = Element(FA);
  if (!TE || !FE || TE->Array != FE->Array || TE->UnitBytes != FE->UnitBytes)
    return std::nullopt;
  Value L = eval(Cmp->getLHS()), R = eval(Cmp->getRHS());
  const Value T = Value::index(TE->Idx), F = Value::index(FE->Idx);
  std::optional<Value> Chosen = positionChoice(Cmp, L, R, T, F, text(CO));
  if (!Chosen || Chosen->K != Value::Index)
    return std::nullopt;
  return load(TE->movedTo(Chosen->Idx), TA->getType(), false);
}

/// c ? x : x + m*s with x a linear index (i + j*nx), c an equality of a
/// position p of it with a bound (or an inequality asEquality makes one)
/// and m a number, as in W = (i == 0) ? c : c - 1 or S = (j < ny - 1) ?
/// c + nx : c. Where x is s*p + rest, s the multiple of p in x (1, nx) and
/// rest free of p's symbols, the choice is
/// exactly rest + s * (c ? p : p + m): the side chosen at equality is the
/// point's own index, as its coordinate is p. That is a linear index
/// through the equality clamp of p (equalityClamp, whose reads
/// clampedBounds checks) where the coordinate choice is one; the clamp's
/// symbol then has coefficient s, the stride of p's axis, as a clamped
/// coordinate's has. Wraps stay refused.
std::optional<Value> Interpreter::linearChoice(const BinaryOperator *Cmp,
                                               const Value &L, const Value &R,
                                               const Value &T, const Value &F,
                                               const std::string &Text) {
  if (L.K != Value::Index || R.K != Value::Index || T.K != Value::Index ||
      F.K != Value::Index || moves(L) == moves(R) || !moves(T) || !moves(F) ||
      unsignedBelowZero(Cmp, L, R))
    return std::nullopt;
  std::optional<EqualityForm> E = asEquality(Cmp, L, R, T, F);
  if (!E)
    return std::nullopt;
  const Poly &P = moves(L) ? L.Idx : R.Idx;
  const Poly &AtEq = E->AtEq.Idx, &Other = E->Other.Idx;
  if (P.mentionsPrefix(ClampPrefix) || AtEq.mentionsPrefix(ClampPrefix) ||
      Other.mentionsPrefix(ClampPrefix))
    return std::nullopt;
  std::set<std::string> PSyms;
  for (const auto &[Mono, C] : P.terms())
    PSyms.insert(Mono.begin(), Mono.end());
  for (const std::string &Sym : PSyms) {
    std::optional<Poly> InP = P.coefficientOf(Sym), InX = AtEq.coefficientOf(Sym);
    std::optional<int64_t> C = InP ? InP->constantValue() : std::nullopt;
    if (!C || *C == 0 || !InX)
      continue;
    std::optional<Poly> S = InX->divideExactly(Poly::constant(*C));
    if (!S || (S->isConstant() && S->constantValue() == 0))
      continue;
    const Poly Rest = AtEq - *S * P;
    if (std::any_of(PSyms.begin(), PSyms.end(),
                    [&](const std::string &N) { return Rest.mentions(N); }))
      return std::nullopt;
    for (int64_t M = -8; M <= 8; ++M) {
      if (M == 0 || *S * Poly::constant(M) != Other - AtEq)
        continue;
      std::optional<Value> V =
          equalityClamp(E->L, E->R, Value::index(P),
                        Value::index(P + Poly::constant(M)), Text);
      if (!V || V->K != Value::Index)
        return V;
      return Value::index(Rest + *S * V->Idx);
    }
    return std::nullopt;
  }
  return std::nullopt;
}

/// c ? a : b with a and b numbers and c a comparison of a position p with
/// a bound: an offset from p chosen at the edge, as in CloverLeaf's
/// upwind = (column == x_max + 3) ? 0 : 1, read at column + upwind. It is
/// (c ? p + a : p + b) - p exactly, so where that position ternary is a
/// clamp or a wrap of p + b, the offset is that clamped position minus p:
/// added back to p (the only use in which it stays one), it is the clamp.
/// Added to another coordinate, the clamp symbol's coefficient is not that
/// coordinate's stride and the read is refused where clamps are laid out.
std::optional<Value> Interpreter::offsetChoice(const BinaryOperator *Cmp,
                                               const Value &L, const Value &R,
                                               const Value &T, const Value &F,
                                               const std::string &Text) {
  if (T.K != Value::Index || F.K != Value::Index || !numberOf(T.Idx) ||
      !numberOf(F.Idx) || moves(L) == moves(R))
    return std::nullopt;
  const Value &P = moves(L) ? L : R;
  if (P.Idx.mentionsPrefix(ClampPrefix))
    return std::nullopt;
  const Value PT = Value::index(P.Idx + T.Idx), PF = Value::index(P.Idx + F.Idx);
  std::optional<Value> V = choiceClamp(Cmp, L, R, PT, PF, Text);
  if (!V)
    V = choiceWrap(Cmp, L, R, PT, PF, Text);
  if (!V || V->K != Value::Index)
    return V;
  return Value::index(V->Idx - P.Idx);
}

/// A comparison made in unsigned arithmetic (i - 1 < 0u, never true) of a
/// position that may go below 0: it does not choose as the same comparison
/// of the position's mathematical value would.
bool unsignedBelowZero(const BinaryOperator *Cmp, const Value &L,
                       const Value &R) {
  if (!Cmp->getLHS()->getType()->isUnsignedIntegerType())
    return false;
  return (moves(L) && mayBeNegative(L.Idx)) ||
         (moves(R) && mayBeNegative(R.Idx));
}

std::optional<Value> Interpreter::choiceClamp(const BinaryOperator *Cmp,
                                              const Value &L, const Value &R,
                                              const Value &T, const Value &F,
                                              const std::string &Text) {
  if (L.K != Value::Index || R.K != Value::Index || T.K != Value::Index ||
      F.K != Value::Index || unsignedBelowZero(Cmp, L, R))
    return std::nullopt;
  if (Cmp->isEqualityOp() || (moves(T) && moves(F))) {
    std::optional<EqualityForm> E = asEquality(Cmp, L, R, T, F);
    return E ? equalityClamp(E->L, E->R, E->AtEq, E->Other, Text)
             : std::nullopt;
  }
  if (moves(T) == moves(F))
    return std::nullopt;
  const bool PosTrue = moves(T);
  const Value &Pos = PosTrue ? T : F, &Bound = PosTrue ? F : T;
  Poly P, Lp, Rp;
  std::vector<std::pair<int, Poly>> Ignored;
  if (!splitClamps(Pos.Idx, P, Ignored) || !splitClamps(L.Idx, Lp, Ignored) ||
      !splitClamps(R.Idx, Rp, Ignored))
    return std::nullopt;
  // The condition as "Pos - Bound + c REL 0", when it is one; REL chooses Pos.
  BinaryOperatorKind Op = Cmp->getOpcode();
  auto Mirror = [](BinaryOperatorKind O) {
    return O == BO_LT ? BO_GT : O == BO_GT ? BO_LT : O == BO_LE ? BO_GE : BO_LE;
  };
  auto Negate = [](BinaryOperatorKind O) {
    return O == BO_LT ? BO_GE : O == BO_GE ? BO_LT : O == BO_GT ? BO_LE : BO_GT;
  };
  for (int Swap = 0; Swap < 2; ++Swap) {
    Poly D = Swap ? Rp - Lp : Lp - Rp;
    BinaryOperatorKind Rel = Swap ? Mirror(Op) : Op;
    if (!PosTrue)
      Rel = Negate(Rel);
    auto C = numberOf(D - (P - Bound.Idx));
    if (!C)
      continue;
    // Pos is chosen when Pos - Bound >= K (max) or <= K (min); when K is the
    // value at which Pos equals Bound, or one off towards choosing Bound, the
    // choice is exactly max or min.
    if (Rel == BO_GT || Rel == BO_GE) {
      int64_t K = Rel == BO_GT ? 1 - *C : -*C;
      if (K == 0 || K == 1)
        return clampOf(false, Pos, Bound, Text);
    } else {
      int64_t K = Rel == BO_LT ? -*C - 1 : -*C;
      if (K == 0 || K == -1)
        return clampOf(true, Pos, Bound, Text);
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::string Interpreter::clampedBounds(
    ir::StencilIR &IR, const std::vector<std::string> &AxisSyms,
    const std::vector<Poly> &Strides, const ir::Offset &Shift,
    const std::vector<std::optional<Poly>> &TLo,
    const std::vector<std::optional<Poly>> &THi,
    const std::function<std::optional<ir::Offset>(const Poly &, std::string &)>
        &OffsetOf,
    const std::function<std::optional<ir::Offset>(const Poly &,
                                                  std::vector<Poly> &)>
        &OwnOffsetOf) {
  const size_t N = AxisSyms.size();
  auto AxisName = [&](size_t A) { return IR.Axes[A].Name; };
  // The axis a clamp acts on and KRaw, the clamped position's offset from
  // the axis symbol (the thread's coordinate, before the store's shift).
  struct Act {
    size_t Axis;
    int64_t KRaw;
  };
  std::string Why;
  auto AxisOf = [&](const ClampInfo &CI) -> std::optional<Act> {
    for (size_t A = 0; A < N; ++A) {
      auto C = CI.Arg.coefficientOf(AxisSyms[A]);
      if (!C || *C != Poly::constant(1))
        continue;
      if (auto K = numberOf(CI.Arg - Poly::symbol(AxisSyms[A])))
        return Act{A, *K};
      break;
    }
    Why = "the clamp " + CI.Text + " bounds " + CI.Arg.str() +
          ", which is not a coordinate of the stored point plus a constant";
    return std::nullopt;
  };
  auto ThreadAxis = [&](size_t A) {
    return (IR.Axes[A].Source == ir::AxisSource::Thread &&
            IR.Axes[A].usualThreadMapping()) ||
           IR.Axes[A].Source == ir::AxisSource::GridStride;
  };
  // A clamp that never moves the position of a point of the domain.
  auto NoOp = [&](const ClampInfo &CI, const Act &X, const ClampSet &S) {
    const size_t A = X.Axis;
    if (CI.Upper)
      return THi[A] && nonNegative(CI.Bound - *THi[A] + Poly::constant(1 - X.KRaw));
    if (TLo[A] && nonNegative(*TLo[A] + Poly::constant(X.KRaw) - CI.Bound))
      return true;
    // The thread at threadIdx t of its block stands at blockIdx*B + t >= t.
    auto B = numberOf(CI.Bound);
    return S.InBlock && ThreadAxis(A) && B &&
           S.Reader[IR.Axes[A].ThreadDim - 'x'] + X.KRaw >= *B;
  };

  struct Use {
    std::string Array;
    ir::Offset O;
    const ClampSet *S;
    std::vector<std::pair<Act, const ClampInfo *>> Active;
    std::vector<std::pair<Act, const ClampInfo *>> Wrapped;
  };
  std::vector<Use> Uses;
  std::map<size_t, std::map<std::string, Poly>> UpperB, LowerB;
  const ClampSet Unclamped;
  const bool AllRead = eachGlobalRead(Writes, [&](const DNode &Read) {
    const DNode *D = &Read;
    std::string Ignored;
    auto O = OffsetOf(D->Index, Ignored);
    // An array of its own layout: its clamps index it with its strides.
    std::vector<Poly> Layout;
    if (!O)
      O = OwnOffsetOf(D->Index, Layout);
    const std::vector<Poly> &ReadStrides = Layout.empty() ? Strides : Layout;
    if (!O)
      for (const ClampSet &S : D->Clamps)
        if (!S.Ids.empty()) {
          Why = "'" + D->Name + "' is read through " +
                ClampInfos[S.Ids.front().first].Text +
                " at an index the IR does not place";
          return false;
        }
    if (O) {
      std::vector<const ClampSet *> Sets;
      for (const ClampSet &S : D->Clamps)
        Sets.push_back(&S);
      if (Sets.empty())
        Sets.push_back(&Unclamped);
      for (const ClampSet *S : Sets) {
        Use U{D->Name, *O, S, {}, {}};
        for (const auto &[Id, Coef] : S->Ids) {
          const ClampInfo &CI = ClampInfos[Id];
          const std::string What = CI.Wrap ? "the wrap " : "the clamp ";
          const std::string Verb = CI.Wrap ? " moves" : " bounds";
          auto X = AxisOf(CI);
          if (!X)
            return false;
          if (Coef != ReadStrides[X->Axis]) {
            Why = What + CI.Text + Verb + " the position along '" +
                  AxisName(X->Axis) + "' but indexes '" + D->Name +
                  "' with the stride " + Coef.str();
            return false;
          }
          if (!CI.Wrap && NoOp(CI, *X, *S))
            continue;
          int64_t K = X->KRaw - Shift[X->Axis];
          if (K != (*O)[X->Axis]) {
            Why = What + CI.Text + Verb + " the position " +
                  std::to_string(K) + " along '" + AxisName(X->Axis) +
                  "', but '" + D->Name + "' is read at " +
                  std::to_string((*O)[X->Axis]) + " after it";
            return false;
          }
          if (CI.Wrap) {
            U.Wrapped.push_back({*X, &CI});
            continue;
          }
          if (CI.Equality && K != (CI.Upper ? 1 : -1)) {
            Why = "the condition " + CI.Text + " replaces only the "
                  "position one point beyond its bound, but '" + D->Name +
                  "' is read at " + std::to_string(K) + " along '" +
                  AxisName(X->Axis) + "' through it";
            return false;
          }
          (CI.Upper ? UpperB : LowerB)[X->Axis].emplace(CI.Bound.str(),
                                                         CI.Bound);
          U.Active.push_back({*X, &CI});
        }
        Uses.push_back(std::move(U));
      }
    }
    return true;
  });
  if (!AllRead)
    return Why;

  for (size_t A = 0; A < N; ++A) {
    auto &Up = UpperB[A], &Lo = LowerB[A];
    std::vector<BoundaryUse> WrapUses;
    bool Wrapped = false;
    for (const Use &U : Uses) {
      BoundaryUse B{U.Array, U.O, {}};
      // One block spans the axis: a reader's place in it is its coordinate.
      const ir::Axis &Ax = IR.Axes[A];
      if (U.S->InBlock && Ax.Source == ir::AxisSource::Thread &&
          Ax.blockDim() == '-' && Ax.ThreadDim >= 'x' && Ax.ThreadDim <= 'z')
        B.At = U.S->Reader[Ax.ThreadDim - 'x'] + Shift[A];
      for (const auto &[X, CI] : U.Wrapped)
        if (X.Axis == A)
          B.Wraps.push_back({X.KRaw - Shift[A], CI});
      Wrapped = Wrapped || !B.Wraps.empty();
      WrapUses.push_back(std::move(B));
    }
    if (Wrapped) {
      if (!Up.empty() || !Lo.empty())
        return "reads along '" + AxisName(A) + "' are both clamped and "
               "wrapped";
      if (!TLo[A] || !THi[A])
        return "the domain along '" + AxisName(A) + "' is not one interval";
      const Poly Sh = Poly::constant(Shift[A]);
      std::string Why = wrappedAxis(IR, A, WrapUses, *TLo[A] + Sh,
                                    *THi[A] + Sh - Poly::constant(1));
      if (!Why.empty())
        return Why;
      continue;
    }
    if (Up.empty() && Lo.empty())
      continue;
    for (auto *Bs : {&Up, &Lo})
      if (Bs->size() > 1) {
        std::string List;
        for (const auto &[T, P] : *Bs)
          List += (List.empty() ? "" : ", ") + T;
        return "reads along '" + AxisName(A) + "' are clamped to different " +
               (Bs == &Up ? "upper" : "lower") + " bounds (" + List + ")";
      }
    const char TD = IR.Axes[A].ThreadDim;
    const int Dim = TD == 'y' ? 1 : TD == 'z' ? 2 : 0;
    int MinO = 0, MaxO = 0;
    for (const Use &U : Uses) {
      const int O = U.O[A];
      MinO = std::min(MinO, O);
      MaxO = std::max(MaxO, O);
      if (O == 0)
        continue;
      bool Clamped = false;
      for (const auto &[X, CI] : U.Active)
        Clamped = Clamped || (X.Axis == A && CI->Upper == (O > 0));
      if (Clamped || (O > 0 ? Up.empty() : Lo.empty()))
        continue;
      // Below: a reader at threadIdx t of its block is at least t along A.
      auto LoC = numberOf(Lo.begin()->second);
      if (O < 0 && U.S->InBlock && ThreadAxis(A) && LoC &&
          U.S->Reader[Dim] + Shift[A] + O >= *LoC)
        continue;
      return "'" + U.Array + "' is read at " + std::to_string(O) +
             " along '" + AxisName(A) + "' without the clamp other reads " +
             "there have" +
             (U.S->InBlock ? " (through the __shared__ tile, by the thread " +
                                 std::to_string(U.S->Reader[Dim]) +
                                 " of the block)"
                           : std::string());
    }
    const Poly Sh = Poly::constant(Shift[A]);
    std::optional<Poly> Hi = THi[A];
    if (!Hi && !Up.empty() && IR.Axes[A].Source == ir::AxisSource::Thread &&
        IR.Axes[A].usualThreadMapping() && IR.Axes[A].Upper.empty()) {
      // No guard bounds the thread axis, the launch's grid does: the reads
      // are a replicated boundary where the grid ends within the clamp's
      // bound, which the launcher checks before it runs a variant.
      const Poly End = Up.begin()->second + Poly::constant(1) - Sh;
      Hi = End;
      ir::Assumption G;
      G.Kind = ir::Assumption::GridExtent;
      G.Expr = std::string(1, IR.Axes[A].ThreadDim);
      G.Value = End.str();
      G.Why = "no guard bounds '" + AxisName(A) +
              "': the grid must end within the clamp's bound " +
              Up.begin()->second.str();
      IR.Assumptions.push_back(std::move(G));
      IR.Axes[A].Upper = End.str();
    }
    if (!TLo[A] || !Hi)
      return "the domain along '" + AxisName(A) + "' is not one interval";
    const Poly DLo = *TLo[A] + Sh, DLast = *Hi + Sh - Poly::constant(1);
    // Without a bound on one side, one no read reaches.
    Poly L = Lo.empty() ? DLo + Poly::constant(MinO) : Lo.begin()->second;
    Poly H = Up.empty() ? DLast + Poly::constant(MaxO) : Up.begin()->second;
    if (!nonNegative(DLo - L) || !nonNegative(H - DLast))
      return "the domain along '" + AxisName(A) + "' [" + DLo.str() + ", " +
             DLast.str() + "] is not within the clamp's bounds [" + L.str() +
             ", " + H.str() + "]";
    IR.Axes[A].ClampLower = L.str();
    IR.Axes[A].ClampUpper = H.str();
  }
  return "";
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

//===- Wraps.cpp - Periodic boundaries: positions wrapped by a period -----===//
///
/// \file
/// A periodic boundary reads, beyond one end of the interval [Lo, Hi], the
/// point a period P = Hi - Lo + 1 away: (i + 1) % n, (i - 1 + n) % n,
/// i == n - 1 ? 0 : i + 1, i > 0 ? i - 1 : n - 1, i + 2 >= n ? i + 2 - n :
/// i + 2. A wrap is a ClampInfo with Wrap set: the wrapped value is the
/// position plus a clamp# symbol, so that every index formed from it names
/// the wrap, as a clamp's does, and wrappedAxis turns the wraps an axis'
/// reads went through into the IR's wrap_lower/wrap_upper. Each form is
/// taken only where it chooses exactly as the periodic image does; anything
/// else stays what it was (an index split, a conditional the analysis does
/// not follow).
///
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

#include <cstdlib>

namespace forgestencil {
namespace analysis {
namespace detail {

namespace {

/// The terms of P that move with the thread's position, and the rest.
std::pair<Poly, Poly> movingAndRest(const Poly &P) {
  Poly Moving, Rest;
  for (const auto &[M, C] : P.terms()) {
    Poly T = Poly::constant(C);
    for (const std::string &S : M)
      T = T * Poly::symbol(S);
    Poly &Part = moves(Value::index(T)) ? Moving : Rest;
    Part = Part + T;
  }
  return {Moving, Rest};
}

/// +1 or -1 when P has a sign whatever its symbols' (positive) values are:
/// a number, or one symbol term plus a number (n, -n, n - 1); 0 otherwise.
int signOf(const Poly &P) {
  if (auto C = P.constantValue())
    return *C > 0 ? 1 : *C < 0 ? -1 : 0;
  int Sign = 0;
  for (const auto &[M, C] : P.terms()) {
    if (M.empty())
      continue;
    if (Sign != 0)
      return 0; // two symbol terms: n - m may have either sign
    Sign = C > 0 ? 1 : -1;
  }
  return Sign;
}

} // namespace

Value Interpreter::wrapOf(ClampInfo W, const Value &Pos,
                          const std::string &Text) {
  std::vector<std::pair<int, Poly>> Inner;
  if (!splitClamps(Pos.Idx, W.Arg, Inner) || !Inner.empty())
    return Value::unknown("a wrap of a position that is already clamped or "
                          "wrapped (" + Text + ")");
  W.Wrap = true;
  W.Text = Text;
  Wraps.insert(Text);
  std::string Sym = ClampPrefix + std::to_string(ClampInfos.size());
  ClampInfos.push_back(std::move(W));
  return Value::index(Pos.Idx + Poly::symbol(Sym));
}

std::optional<Value> Interpreter::remainderWrap(const Value &L, const Value &R,
                                                const std::string &Text) {
  if (L.K != Value::Index || R.K != Value::Index || !moves(L) || moves(R) ||
      L.Idx.mentionsPrefix(ClampPrefix) || R.Idx.mentionsPrefix(ClampPrefix))
    return std::nullopt;
  auto [Pos, Rest] = movingAndRest(L.Idx);
  if (Pos.terms().size() != 1 || Pos.terms().begin()->second != 1)
    return std::nullopt; // not one position (2*i, i + j)
  // Rest = k*n + o with k >= 0 and o a number; the smallest |o| where the
  // period is a number itself (63 % 64 could be k = 0, o = 63 or k = 1,
  // o = -1: both the same remainder on [0, n)).
  std::optional<std::pair<int64_t, int64_t>> Best; // {k, o}
  for (int64_t K = 0; K <= 2; ++K) {
    auto O = (Rest - Poly::constant(K) * R.Idx).constantValue();
    if (!O || (K == 0 && *O < 0 && R.Idx.constantValue()))
      continue;
    if (!Best || std::llabs(*O) < std::llabs(Best->second))
      Best = {{K, *O}};
  }
  if (!Best || Best->second == 0)
    return std::nullopt; // no offset: a 1-D id split, as before
  const auto [K, O] = *Best;
  ClampInfo W;
  // (p + o) % n with o > 0 wraps only above; with o < 0 it is no wrap at
  // all, p + o, where that is not negative (wrappedAxis asks the domain).
  W.Upper = true;
  W.Both = K > 0;
  W.Lo = Poly::constant(0);
  W.Hi = R.Idx - Poly::constant(1);
  return wrapOf(std::move(W), Value::index(Pos + Poly::constant(O)), Text);
}

std::optional<Value> Interpreter::choiceWrap(const BinaryOperator *Cmp,
                                             const Value &L, const Value &R,
                                             const Value &T, const Value &F,
                                             const std::string &Text) {
  for (const Value *V : {&L, &R, &T, &F})
    if (V->K != Value::Index || V->Idx.mentionsPrefix(ClampPrefix))
      return std::nullopt;
  if (unsignedBelowZero(Cmp, L, R))
    return std::nullopt;
  for (bool WrappedIsTrue : {true, false}) {
    const Value &Q = WrappedIsTrue ? F : T, &W = WrappedIsTrue ? T : F;
    if (!moves(Q))
      continue;
    // Shift form: W is Q moved by a period; point form: W is the other end
    // of the interval, a value that does not move.
    const bool Shift = moves(W);
    const Poly Delta = W.Idx - Q.Idx;
    if (Shift && (moves(Value::index(Delta)) || signOf(Delta) == 0))
      continue;
    for (int Swap = 0; Swap < 2; ++Swap) {
      // W is chosen where D Rel 0, D = Q + E.
      const Poly D = Swap ? R.Idx - L.Idx : L.Idx - R.Idx;
      BinaryOperatorKind Rel = Cmp->getOpcode();
      if (Swap)
        Rel = BinaryOperator::reverseComparisonOp(Rel);
      if (!WrappedIsTrue)
        Rel = BinaryOperator::negateComparisonOp(Rel);
      const Poly E = D - Q.Idx;
      if (moves(Value::index(E)))
        continue;
      const Poly X0 = -E; // where Q == X0, D == 0
      ClampInfo Info;
      switch (Rel) {
      case BO_GT: // Q > X0: above Hi = X0
        Info.Upper = true;
        Info.Hi = X0;
        break;
      case BO_GE:
        Info.Upper = true;
        Info.Hi = X0 - Poly::constant(1);
        break;
      case BO_LT: // Q < X0: below Lo = X0
        Info.Lo = X0;
        break;
      case BO_LE:
        Info.Lo = X0 + Poly::constant(1);
        break;
      case BO_EQ: {
        // One point, beyond whichever end W moves it back from.
        const int S = signOf(Shift ? Delta : W.Idx - X0);
        if (S == 0)
          return std::nullopt;
        Info.Upper = S < 0;
        Info.Equality = true;
        if (Info.Upper)
          Info.Hi = X0 - Poly::constant(1);
        else
          Info.Lo = X0 + Poly::constant(1);
        break;
      }
      default:
        return std::nullopt;
      }
      if (Shift) {
        // W = Q - P above, Q + P below.
        if (signOf(Delta) != (Info.Upper ? -1 : 1))
          return std::nullopt;
        const Poly P = Info.Upper ? -Delta : Delta;
        if (Info.Upper)
          Info.Lo = Info.Hi - P + Poly::constant(1);
        else
          Info.Hi = Info.Lo + P - Poly::constant(1);
      } else {
        // W is the wrapped value only at the one point beyond the end.
        Info.Equality = true;
        (Info.Upper ? Info.Lo : Info.Hi) = W.Idx;
        if (signOf(Info.Hi - Info.Lo + Poly::constant(1)) <= 0)
          return std::nullopt;
      }
      return wrapOf(std::move(Info), Q, Text);
    }
  }
  return std::nullopt;
}

std::string Interpreter::wrappedAxis(ir::StencilIR &IR, size_t A,
                                     const std::vector<BoundaryUse> &Uses,
                                     const Poly &DLo, const Poly &DLast) {
  const std::string Axis = "'" + IR.Axes[A].Name + "'";
  const ClampInfo *First = nullptr;
  int64_t Reach = 0;
  struct Sides {
    bool Lower = false, Upper = false;
  };
  std::vector<Sides> Wrapped(Uses.size());
  for (size_t I = 0; I < Uses.size(); ++I) {
    const BoundaryUse &U = Uses[I];
    const int64_t O = U.O[A];
    Reach = std::max<int64_t>(Reach, std::llabs(O));
    for (const auto &[K, W] : U.Wraps) {
      if (!First)
        First = W;
      if (W->Lo != First->Lo || W->Hi != First->Hi ||
          W->period() != First->period())
        return "reads along " + Axis + " wrap into different intervals ([" +
               First->Lo.str() + ", " + First->Hi.str() + "] of period " +
               First->period().str() + " by " + First->Text + ", [" +
               W->Lo.str() + ", " + W->Hi.str() + "] of period " +
               W->period().str() + " by " + W->Text + ")";
      if (W->Equality && K != (W->Upper ? 1 : -1))
        return "the condition " + W->Text + " wraps only the position one "
               "point beyond its interval, but '" + U.Array + "' is read at " +
               std::to_string(K) + " along " + Axis + " through it";
      Wrapped[I].Lower |= W->Both || !W->Upper;
      Wrapped[I].Upper |= W->Both || W->Upper;
    }
  }
  if (!First)
    return "";
  const Poly &Lo = First->Lo, &Hi = First->Hi;
  if (!nonNegative(DLo - Lo) || !nonNegative(Hi - DLast))
    return "the domain along " + Axis + " [" + DLo.str() + ", " +
           DLast.str() + "] is not within the wrap's interval [" + Lo.str() +
           ", " + Hi.str() + "]";
  // A read the wraps do not move on its side must stay inside the interval:
  // from every point of the domain, or from the one reader it is.
  for (size_t I = 0; I < Uses.size(); ++I) {
    const int64_t O = Uses[I].O[A];
    const Poly Po = Poly::constant(O);
    const Poly From = Uses[I].At ? Poly::constant(*Uses[I].At) : DLo;
    const Poly To = Uses[I].At ? Poly::constant(*Uses[I].At) : DLast;
    if ((O < 0 && !Wrapped[I].Lower && !nonNegative(From + Po - Lo)) ||
        (O > 0 && !Wrapped[I].Upper && !nonNegative(Hi - To - Po)))
      return "'" + Uses[I].Array + "' is read at " + std::to_string(O) +
             " along " + Axis + " without the wrap other reads there have";
  }
  IR.Axes[A].WrapLower = Lo.str();
  IR.Axes[A].WrapUpper = Hi.str();
  const Poly Period = First->period();
  if (Period != Hi - Lo + Poly::constant(1))
    IR.Axes[A].WrapPeriod = Period.str();
  if (Reach >= 2 && !(Period.constantValue() && *Period.constantValue() >= Reach)) {
    // One shift by the period is the periodic image only while the reads
    // reach no further than a period.
    ir::Assumption P;
    P.Kind = ir::Assumption::AtLeast;
    P.Expr = Period.str();
    P.Value = std::to_string(Reach);
    P.Why = "the period along " + Axis + " covers the reads' reach of " +
            std::to_string(Reach) + " points";
    IR.Assumptions.push_back(std::move(P));
  }
  return "";
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

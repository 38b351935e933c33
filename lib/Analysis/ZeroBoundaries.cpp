//===- ZeroBoundaries.cpp - Reads replaced by 0 outside the array
//----------===//
//
// Image filters and convolutions with zero padding test a read's coordinate
// and take the literal 0 in place of the load where it lies outside the
// image:
//
//   float l = x > 0 ? in[y * w + x - 1] : 0.0f;
//   v[j][i] = (xx >= 0 && xx < w && yy >= 0 && yy < h) ? in[yy * w + xx] : 0;
//   float r = 0; if (x < w - 1) r = in[y * w + x + 1];
//
// The guarded value is the read itself and the fill is +0 (guardedValue and
// mergeBranches mark such guards ZeroFill). Where each such guard is a bound
// on one coordinate of the read (x - 1 >= 0 is the read's x at least 0) and
// all of them agree on the bounds along an axis, the reads are a zero
// boundary the IR states: zero_lower and zero_upper on the axis (every read
// outside them is 0). Checked here, each a reason when it fails:
//   - a guard that the domain can fail is a ZeroFill bound of one coordinate
//     (a fill of another value, or of a value computed from the read, is a
//     boundary value the IR does not state);
//   - the bounds along an axis are the same for every read, the domain lies
//     within them, and every read whose coordinate can leave them on the
//     domain carries the test (an unguarded read there reads memory the
//     boundary would call 0);
//   - every read is placed on the axes (an array of another layout next to
//     a zero boundary is refused).
// A term added only where a test holds (if (inside) sum += w * in[...]) is
// not a read of 0 (0 * w is not 0 where w is infinite) and stays refused.
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

#include <cstdlib>
#include <cstring>
#include <map>

namespace forgestencil {
namespace analysis {
namespace detail {

namespace {

/// A guard as a bound on one axis symbol: Sym >= B (Lower) or Sym <= B.
struct AxisBound {
  size_t Axis = 0;
  bool Lower = true;
  Poly B;
};

/// G (D OP 0) as a bound on one of AxisSyms with coefficient 1 or -1, the
/// rest free of axis symbols; nullopt otherwise.
std::optional<AxisBound> axisBound(const PosGuard &G,
                                   const std::vector<std::string> &AxisSyms) {
  std::optional<AxisBound> R;
  for (size_t A = 0; A < AxisSyms.size(); ++A) {
    std::optional<Poly> C = G.D.coefficientOf(AxisSyms[A]);
    if (!C || C->terms().empty())
      continue;
    std::optional<int64_t> K = C->constantValue();
    if (R || !K || (*K != 1 && *K != -1))
      return std::nullopt;
    const Poly Rest = G.D - Poly::symbol(AxisSyms[A]) * Poly::constant(*K);
    for (const std::string &S : AxisSyms)
      if (Rest.mentions(S))
        return std::nullopt;
    // K * sym + Rest OP 0.
    BinaryOperatorKind Op = G.Op;
    Poly Bound = -Rest; // sym OP' -Rest for K == 1
    if (*K == -1) {
      Op = Op == BO_GE   ? BO_LE
           : Op == BO_GT ? BO_LT
           : Op == BO_LE ? BO_GE
           : Op == BO_LT ? BO_GT
                         : Op;
      Bound = Rest; // -sym + Rest OP 0  is  sym OP' Rest
    }
    switch (Op) {
    case BO_GE:
      R = AxisBound{A, true, Bound};
      break;
    case BO_GT:
      R = AxisBound{A, true, Bound + Poly::constant(1)};
      break;
    case BO_LE:
      R = AxisBound{A, false, Bound};
      break;
    case BO_LT:
      R = AxisBound{A, false, Bound - Poly::constant(1)};
      break;
    default:
      return std::nullopt;
    }
  }
  return R;
}

} // namespace

bool isZeroFill(const Expr *X) {
  // +0 in the value's type: 0, 0.0f, T(0), (double)0, T(); not -0.0.
  X = X->IgnoreParenCasts();
  if (isa<CXXScalarValueInitExpr>(X))
    return true;
  if (const auto *I = dyn_cast<IntegerLiteral>(X))
    return I->getValue().isZero();
  if (const auto *F = dyn_cast<FloatingLiteral>(X))
    return F->getValue().isPosZero();
  return false;
}

bool isZeroText(const std::string &Literal) {
  // A literal as the interpreter spells it (its token, or digits).
  std::string S = Literal;
  while (!S.empty() && std::strchr("fFlLuU", S.back()))
    S.pop_back();
  if (S.empty() || S[0] == '-' || S[0] == '+')
    return false;
  char *End = nullptr;
  const double V = std::strtod(S.c_str(), &End);
  return End && *End == '\0' && V == 0.0;
}

void markZeroFill(std::vector<PosGuard> &Gs, const DPtr &Taken,
                  bool FillIsZero) {
  // The read itself, not a value computed from it: 0 in its place is the
  // IR's zero boundary.
  if (FillIsZero && Taken && Taken->K == DNode::Read && !Taken->Shared)
    for (PosGuard &G : Gs)
      G.ZeroFill = true;
}

void Interpreter::zeroBoundaries(
    ir::StencilIR &IR, const std::vector<std::string> &AxisSyms,
    const ir::Offset &Shift, const std::vector<std::optional<Poly>> &TLo,
    const std::vector<std::optional<Poly>> &THi,
    const std::function<std::optional<ir::Offset>(const Poly &, std::string &)>
        &OffsetOf,
    const std::string &FillWhy) {
  bool Specific = false;
  auto Bounds = [&]() -> std::string {
    const size_t N = AxisSyms.size();
    Specific = false;
    auto AxisName = [&](size_t A) { return IR.Axes[A].Name; };
    // The bounds guards put on reads, in array coordinates, per axis.
    std::vector<std::map<std::string, Poly>> Lo(N), Hi(N);
    struct Use {
      std::string Array;
      ir::Offset O;
      std::vector<bool> HasLo, HasHi;
    };
    std::vector<Use> Uses;
    std::string Unplaced, Why;
    const bool AllRead = eachGlobalRead(Writes, [&](const DNode &D) {
      std::string Ignored;
      std::optional<ir::Offset> O = OffsetOf(D.Index, Ignored);
      if (!O) {
        if (!D.InBounds.empty()) {
          Why = "the load of '" + D.Name + "' guarded by " +
                D.InBounds.front().Text +
                " is at an index the IR does not place";
          return false;
        }
        Unplaced = D.Name;
        return true;
      }
      Use U{D.Name, *O, std::vector<bool>(N), std::vector<bool>(N)};
      for (const PosGuard &G : D.InBounds) {
        const std::string Fill =
            "the load of '" + D.Name + "' guarded by " + G.Text +
            " takes its fill value at points of the domain";
        if (!G.Tile.empty()) {
          Why = "the __shared__ array '" + G.Tile + "' is loaded from '" +
                D.Name + "' only where " + G.Text +
                ", which does not hold for every element the domain's "
                "points read";
          return false;
        }
        std::optional<AxisBound> B = axisBound(G, AxisSyms);
        if (!B) {
          Why = Fill + " (a boundary value the IR does not state)";
          return false;
        }
        const size_t A = B->Axis;
        // A bound the whole domain keeps changes nothing.
        if (B->Lower
                ? TLo[A] && nonNegative(*TLo[A] - B->B)
                : THi[A] && nonNegative(B->B - *THi[A] + Poly::constant(1)))
          continue;
        if (!G.ZeroFill) {
          Why = Fill + " (a boundary value the IR does not state: the fill "
                       "is not 0, or it replaces a value computed from the "
                       "read rather than the read)";
          return false;
        }
        Specific = true;
        const Poly C = B->B + Poly::constant(Shift[A] + (*O)[A]);
        (B->Lower ? Lo : Hi)[A].emplace(C.str(), C);
        (B->Lower ? U.HasLo : U.HasHi)[A] = true;
      }
      Uses.push_back(std::move(U));
      return true;
    });
    if (!AllRead)
      return Why;
    if (!Specific)
      return "no read is replaced by 0 outside a bound of its coordinates";

    // The bounds, set on the IR only once every axis passed.
    std::vector<std::pair<size_t, std::pair<std::string, std::string>>> Found;
    for (size_t A = 0; A < N; ++A) {
      if (Lo[A].empty() && Hi[A].empty())
        continue;
      if (!Unplaced.empty())
        return "reads along '" + AxisName(A) +
               "' are 0 outside their bounds, "
               "but '" +
               Unplaced +
               "' is read in a layout of its own, which "
               "the zero boundary does not place";
      for (auto *Bs : {&Lo[A], &Hi[A]})
        if (Bs->size() > 1) {
          std::string List;
          for (const auto &[T, P] : *Bs)
            List += (List.empty() ? "" : ", ") + T;
          return "reads along '" + AxisName(A) + "' are 0 beyond different " +
                 (Bs == &Hi[A] ? "upper" : "lower") + " bounds (" + List + ")";
        }
      if (!TLo[A] || !THi[A])
        return "the domain along '" + AxisName(A) + "' is not one interval";
      const Poly Sh = Poly::constant(Shift[A]);
      const Poly DLo = *TLo[A] + Sh, DLast = *THi[A] + Sh - Poly::constant(1);
      int MinO = 0, MaxO = 0;
      for (const Use &U : Uses) {
        MinO = std::min(MinO, U.O[A]);
        MaxO = std::max(MaxO, U.O[A]);
      }
      // Without a bound on one side, one no read reaches.
      const Poly L =
          Lo[A].empty() ? DLo + Poly::constant(MinO) : Lo[A].begin()->second;
      const Poly H =
          Hi[A].empty() ? DLast + Poly::constant(MaxO) : Hi[A].begin()->second;
      if (!nonNegative(DLo - L) || !nonNegative(H - DLast))
        return "the domain along '" + AxisName(A) + "' [" + DLo.str() + ", " +
               DLast.str() + "] is not within the bounds [" + L.str() + ", " +
               H.str() + "] outside which reads are 0";
      for (const Use &U : Uses) {
        const Poly O = Poly::constant(U.O[A]);
        const bool MayLeaveBelow = !nonNegative(DLo + O - L);
        const bool MayLeaveAbove = !nonNegative(H - DLast - O);
        if ((MayLeaveBelow && !U.HasLo[A]) || (MayLeaveAbove && !U.HasHi[A]))
          return "'" + U.Array + "' is read at " + std::to_string(U.O[A]) +
                 " along '" + AxisName(A) +
                 "' without the test of the bounds "
                 "[" +
                 L.str() + ", " + H.str() + "] other reads there have";
      }
      Found.push_back({A, {L.str(), H.str()}});
    }
    for (const auto &[A, Bounds] : Found) {
      IR.Axes[A].ZeroLower = Bounds.first;
      IR.Axes[A].ZeroUpper = Bounds.second;
    }
    return "";
  };
  const std::string Why = Bounds();
  if (Why.empty())
    return;
  if (Specific)
    partial(ReasonKind::Boundary, "reads are 0 outside bounds, but not as a "
                                  "zero boundary the IR states: " +
                                      Why);
  else
    partial(ReasonKind::Guard, FillWhy);
}

void Interpreter::oneBoundaryKind(const ir::StencilIR &IR) {
  for (const ir::Axis &X : IR.Axes)
    if (X.zeroed() && (X.clamped() || X.wrapped()))
      partial(ReasonKind::Boundary,
              "reads along '" + X.Name + "' are 0 outside bounds and also " +
                  (X.clamped() ? "clamped" : "wrapped") +
                  ": the IR states one boundary kind per axis");
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

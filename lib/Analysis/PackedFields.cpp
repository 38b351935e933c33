//===- PackedFields.cpp - Several fields of a grid kept in one allocation -===//
//
// See PackedFields.h.
//
//===----------------------------------------------------------------------===//

#include "PackedFields.h"
#include "KernelInterpreter.h"

#include <algorithm>
#include <set>

namespace forgestencil {
namespace analysis {
namespace detail {

std::optional<FieldSplit>
splitField(const Poly &Rel, const Poly &Slowest,
           const std::function<bool(const Poly &)> &RestPlaces, bool Whole) {
  if (Slowest.terms().empty())
    return std::nullopt;
  const auto &[Lead, LeadC] = leadingTerm(Slowest);
  Poly LeadMonomial = Poly::constant(1);
  for (const std::string &S : Lead)
    LeadMonomial = LeadMonomial * Poly::symbol(S);
  Poly Count;
  bool Counted = false; // a term counted by a parameter
  for (const auto &[M, C] : Rel.terms()) {
    Poly Term = Poly::constant(C);
    for (const std::string &S : M)
      Term = Term * Poly::symbol(S);
    std::optional<Poly> Q = exactQuotient(Term, LeadMonomial);
    if (Q)
      Q = Q->divideExactly(Poly::constant(LeadC));
    if (!Q || (Q->isConstant() && !Whole)) // a number of planes: an offset
      continue;
    Counted |= !Q->isConstant();
    Count = Count + *Q;
  }
  if (!Counted)
    return std::nullopt;
  Poly Field = Count * Slowest;
  if (!RestPlaces(Rel - Field))
    return std::nullopt;
  return FieldSplit{Count, Field};
}

bool countsPast(const Poly &Count, const std::vector<Poly> &Uppers,
                int64_t Shift) {
  for (const Poly &U : Uppers) {
    const Poly Gap = Count - U - Poly::constant(Shift);
    if (std::all_of(Gap.terms().begin(), Gap.terms().end(),
                    [](const auto &T) { return T.second >= 0; }))
      return true;
  }
  return false;
}

std::vector<Poly> Interpreter::slowestUppers(const std::vector<Constraint> &Guards,
                                             const std::string &Slow) {
  std::vector<Poly> Up;
  for (const Constraint &C : Guards)
    if (C.Symbol == Slow && C.Upper && !C.NotEqual)
      Up.push_back(C.Bound);
  for (const AxisSym &L : LoopAxes)
    if (L.Symbol == Slow && L.HasLoopRange)
      Up.push_back(L.LoopUpper);
  for (const auto &[Key, Sp] : Splits)
    if (Sp.ModName == Slow)
      Up.push_back(Sp.A);
  // Only bounds over the launch's parameters say where the domain ends.
  Up.erase(std::remove_if(Up.begin(), Up.end(),
                          [&](const Poly &U) { return !uniformPoly(U); }),
           Up.end());
  return Up;
}

std::optional<FieldSplit> Interpreter::fieldOf(const Poly &Rel,
                                               const std::vector<Poly> &Strides,
                                               const std::vector<Poly> &Uppers,
                                               std::optional<int64_t> Shift,
                                               bool Whole) {
  if (Uppers.empty() || offsetAlong(Rel, Strides))
    return std::nullopt;
  if (Whole)
    if (auto F = fieldOf(Rel, Strides, Uppers, Shift, false))
      return F;
  std::optional<ir::Offset> Placed;
  auto F = splitField(
      Rel, Strides.back(),
      [&](const Poly &Rest) {
        Placed = offsetAlong(Rest, Strides);
        return Placed.has_value();
      },
      Whole);
  if (!F || !uniformPoly(F->Field))
    return std::nullopt;
  const int64_t By = Shift ? *Shift : (*Placed)[Strides.size() - 1];
  if (countsPast(F->Count, Uppers, By))
    return F;
  // Sizes that are named constants (a ghost width HS): with their numbers.
  std::set<std::string> Before = NamedAssumed;
  std::vector<Poly> Numeric;
  for (const Poly &U : Uppers)
    Numeric.push_back(resolved(U));
  if (countsPast(resolved(F->Count), Numeric, By))
    return F;
  NamedAssumed = std::move(Before); // nothing was concluded from them
  return std::nullopt;
}

std::optional<ir::Offset> Interpreter::placeInField(const Poly &Rel,
                                                   const std::vector<Poly> &Strides,
                                                   FieldState &Fields, int64_t Shift,
                                                   Poly &Field) {
  if (Fields.Uppers.empty())
    return std::nullopt;
  for (const Poly &F : Fields.Known)
    if (auto O = offsetAlong(Rel - F, Strides)) {
      Field = F;
      return O;
    }
  auto F = fieldOf(Rel, Strides, Fields.Uppers, Shift, Fields.Stores);
  if (!F)
    return std::nullopt;
  if (Fields.Stores)
    Fields.Known.push_back(F->Field);
  Field = F->Field;
  return offsetAlong(Rel - F->Field, Strides);
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

//===- IdSplits.cpp - 1-D thread ids split into coordinates ---------------===//
//
// A kernel launched over a 1-D id that it splits with / and % (row = id /
// (nx + 4), column = id % (nx + 4)) works in coordinates: where both halves
// of a split are used, X = mod[X|A] + A * div[X|A] is substituted in every
// index and guard, and a guard on the id becomes one on the slower
// coordinate where A divides its bound.
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

#include <algorithm>

namespace forgestencil {
namespace analysis {
namespace detail {

/// P / D when D's single monomial divides every monomial of P.
std::optional<Poly> exactQuotient(const Poly &P, const Poly &D) {
  if (D.terms().size() != 1 || D.terms().begin()->second != 1)
    return std::nullopt;
  const Monomial &DM = D.terms().begin()->first;
  Poly R;
  for (const auto &[M, C] : P.terms()) {
    Monomial Rest = M;
    for (const std::string &S : DM) {
      auto It = std::find(Rest.begin(), Rest.end(), S);
      if (It == Rest.end())
        return std::nullopt;
      Rest.erase(It);
    }
    Poly Term = Poly::constant(C);
    for (const std::string &S : Rest)
      Term = Term * Poly::symbol(S);
    R = R + Term;
  }
  return R;
}

void Interpreter::applySplits() {
  // X = mod[X|A] + A*div[X|A] for every split whose two halves were used.
  auto Subst = [&](Poly P) {
    for (int Round = 0; Round < 4; ++Round) {
      bool Changed = false;
      for (const auto &[Key, S] : Splits) {
        if (!S.HaveMod || !S.HaveDiv)
          continue;
        if (S.X.terms().size() != 1 || S.X.terms().begin()->first.size() != 1)
          continue;
        std::string XSym = S.X.terms().begin()->first[0];
        if (!P.mentions(XSym))
          continue;
        P = P.substitute(XSym, Poly::symbol(S.ModName) +
                                   S.A * Poly::symbol(S.DivName));
        Changed = true;
      }
      if (!Changed)
        break;
    }
    return P;
  };
  // div[div[X|a]|b] was canonicalised to div[X|a*b]; the inner quotient
  // q = div[X|a] also equals mod[q|b] + b*div[X|a*b].
  for (auto &[Key, S] : Splits) {
    if (S.X.terms().size() == 1 && S.X.terms().begin()->first.size() == 1 &&
        S.X.terms().begin()->first[0].rfind("div[", 0) == 0) {
      std::string Inner = S.X.terms().begin()->first[0];
      for (auto &[K2, S2] : Splits)
        if (S2.DivName == Inner && S.HaveMod) {
          std::string Outer = "div[" + S2.X.str() + "|" + (S2.A * S.A).str() + "]";
          if (Splits.count(S2.X.str() + "|" + (S2.A * S.A).str())) {
            S.DivName = Outer;
            S.HaveDiv = true;
          }
        }
    }
  }
  for (Write &W : Writes)
    W.Index = Subst(W.Index);
  for (ReadRecord &R : Reads)
    R.Index = Subst(R.Index);
  std::function<void(DPtr &)> Walk = [&](DPtr &N) {
    if (!N)
      return;
    if (N->K == DNode::Read) {
      N->Index = Subst(N->Index);
      for (PosGuard &G : N->InBounds)
        G.D = Subst(G.D);
    }
    for (DPtr &A : N->Args)
      Walk(A);
  };
  for (Write &W : Writes)
    Walk(W.Value);
  for (Write &W : Writes)
    for (Constraint &C : W.Guards) {
      Poly Sym = Subst(Poly::symbol(C.Symbol));
      if (Sym == Poly::symbol(C.Symbol))
        continue;
      // A bound on the 1-D id itself. id >= 0 says nothing; id < A*B with
      // id = mod[id|A] + A*div[id|A] bounds the slowest coordinate:
      // div[id|A] < B. The widest split that divides the bound is the
      // slowest axis.
      if (!C.Upper && !C.NotEqual && C.Bound == Poly()) {
        C.Symbol = "";
        continue;
      }
      const Split *Best = nullptr;
      for (const auto &[Key, S] : Splits) {
        if (!C.Upper || C.NotEqual || !S.HaveDiv ||
            S.X != Poly::symbol(C.Symbol))
          continue;
        auto Deg = [](const Poly &P) {
          size_t D = 0;
          for (const auto &[M, K] : P.terms())
            D = std::max(D, M.size());
          return D;
        };
        if (!exactQuotient(C.Bound, S.A))
          continue;
        if (!Best || Deg(S.A) > Deg(Best->A))
          Best = &S;
      }
      if (!Best) {
        C.Symbol = "?";
        continue;
      }
      C.Bound = *exactQuotient(C.Bound, Best->A);
      C.Symbol = Best->DivName;
    }
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

//===- IdSplits.cpp - 1-D thread ids split into coordinates ---------------===//
//
// A kernel launched over a 1-D id that it splits with / and % (row = id /
// (nx + 4), column = id % (nx + 4)) works in coordinates: where both halves
// of a split are used, X = mod[X|A] + A * div[X|A] is substituted in every
// index and guard, and a guard on the id becomes one on the slower
// coordinate where A divides its bound.
//
// Codes also split without %: z = id / (nx*ny); y = (id - z*nx*ny) / nx;
// x = id - z*nx*ny - y*nx. The remainder X - A*div[X|A] is mod[X|A]
// (foldSplitRemainders), and a split of a remainder by a divisor of its
// modulus is one of the id itself: mod[mod[X|a]|b] = mod[X|b] and
// div[mod[X|a]|b] = mod[div[X|b]|a/b] where b divides a (nestedSplit), the
// forms the % spelling gives.
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

Poly Interpreter::registerSplit(const Poly &X, const Poly &A, bool Div) {
  std::string Key = X.str() + "|" + A.str();
  Split &S = Splits[Key];
  S.X = X;
  S.A = A;
  S.ModName = "mod[" + Key + "]";
  S.DivName = "div[" + Key + "]";
  (Div ? S.HaveDiv : S.HaveMod) = true;
  return Poly::symbol(Div ? S.DivName : S.ModName);
}

Poly Interpreter::foldSplitRemainders(const Poly &P) {
  Poly Out = P;
  // Every term of Part is in Out with its coefficient.
  auto Holds = [&](const Poly &Part) {
    for (const auto &[M, C] : Part.terms()) {
      auto It = Out.terms().find(M);
      if (It == Out.terms().end() || It->second != C)
        return false;
    }
    return !Part.terms().empty();
  };
  for (int Round = 0; Round < 4; ++Round) {
    bool Changed = false;
    for (auto &[Key, S] : Splits) {
      if (!S.HaveDiv || !Out.mentions(S.DivName))
        continue;
      // Out = X - A*div[X|A] + Rest.
      const Poly Rem = S.X - S.A * Poly::symbol(S.DivName);
      if (!Holds(Rem))
        continue;
      S.HaveMod = true;
      Out = Out - Rem + Poly::symbol(S.ModName);
      Changed = true;
    }
    // mod[Y|a*b] - a*mod[div[Y|a]|b] = mod[Y|a]: the fastest coordinate
    // taken off the remainder of the slowest split.
    std::optional<std::pair<Poly, Poly>> Finer; // (Y, a)
    for (const auto &[Key, S] : Splits) {
      if (!S.HaveMod || !Out.mentions(S.ModName) || S.X.terms().size() != 1)
        continue;
      const Monomial &M = S.X.terms().begin()->first;
      if (S.X.terms().begin()->second != 1 || M.size() != 1)
        continue;
      for (const auto &[K2, D] : Splits) {
        if (D.DivName != M[0])
          continue;
        auto Whole = Splits.find(D.X.str() + "|" + (D.A * S.A).str());
        if (Whole == Splits.end() || !Whole->second.HaveMod)
          continue;
        const Poly Rem = Poly::symbol(Whole->second.ModName) -
                         D.A * Poly::symbol(S.ModName);
        if (Holds(Rem)) {
          Out = Out - Rem;
          Finer = std::make_pair(D.X, D.A);
        }
        break;
      }
      if (Finer)
        break;
    }
    if (Finer) {
      Out = Out + registerSplit(Finer->first, Finer->second, /*Div=*/false);
      Changed = true;
    }
    if (!Changed)
      break;
  }
  return Out;
}

std::optional<Poly> Interpreter::nestedSplit(const Poly &L, const Poly &B,
                                             bool Div) {
  if (L.terms().size() != 1 || L.terms().begin()->second != 1 ||
      L.terms().begin()->first.size() != 1)
    return std::nullopt;
  const std::string &Sym = L.terms().begin()->first[0];
  if (Sym.rfind("mod[", 0) != 0)
    return std::nullopt;
  for (const auto &[Key, S] : Splits) {
    if (S.ModName != Sym)
      continue;
    std::optional<Poly> Q = exactQuotient(S.A, B);
    if (!Q || Q->constantValue() == std::optional<int64_t>(1))
      return std::nullopt;
    const Poly X = S.X; // Splits may grow below.
    if (!Div)
      return registerSplit(X, B, /*Div=*/false);
    return registerSplit(registerSplit(X, B, /*Div=*/true), *Q, /*Div=*/false);
  }
  return std::nullopt;
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
  // The stencil's stores and those of a boundary side (Frames.cpp), whose
  // box is stated in the same coordinates.
  const std::vector<Write *> Stores = [&] {
    std::vector<Write *> V;
    for (std::vector<Write> *Ws : {&Writes, &FrameWrites})
      for (Write &W : *Ws)
        V.push_back(&W);
    return V;
  }();
  for (Write *W : Stores)
    W->Index = Subst(W->Index);
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
  for (Write *W : Stores)
    Walk(W->Value);
  for (Write *W : Stores)
    for (Constraint &C : W->Guards) {
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

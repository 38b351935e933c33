//===- Offsets.cpp - Index offsets as whole numbers of rows and columns ---===//
//
// An element index relative to a point, written as offsets along the axes
// of a layout (strides fastest first): numbers for a neighbour's offset,
// expressions over the kernel's parameters for a grid's origin.
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

#include <algorithm>
#include <cmath>

namespace forgestencil {
namespace analysis {
namespace detail {

const std::pair<const Monomial, int64_t> &leadingTerm(const Poly &S) {
  return *std::max_element(
      S.terms().begin(), S.terms().end(),
      [](const auto &X, const auto &Y) { return X.first.size() < Y.first.size(); });
}

bool fasterStride(const Poly &A, const Poly &B) {
  auto Deg = [](const Poly &P) {
    size_t D = 0;
    for (const auto &[M, C] : P.terms())
      D = std::max(D, M.size());
    return D;
  };
  if (Deg(A) != Deg(B))
    return Deg(A) < Deg(B);
  return A.str() < B.str();
}

std::optional<ir::Offset> solveOffset(Poly Rel, const std::vector<Poly> &Strides) {
  ir::Offset O{0, 0, 0};
  for (int A = static_cast<int>(Strides.size()) - 1; A >= 0; --A) {
    const Poly &S = Strides[A];
    if (S.terms().empty())
      return std::nullopt;
    // The stride's leading monomial decides the offset along this axis.
    const auto &Lead = leadingTerm(S);
    int64_t C = Rel.coefficient(Lead.first);
    int64_t Off;
    if (Lead.first.empty()) {
      // A numeric stride (a row of float u[][512]): the nearest whole
      // number of rows; the rest is the offset along faster axes.
      Off = static_cast<int64_t>(
          std::llround(static_cast<double>(C) / static_cast<double>(Lead.second)));
    } else {
      if (C % Lead.second != 0)
        return std::nullopt;
      Off = C / Lead.second;
    }
    O[A] = static_cast<int>(Off);
    Rel = Rel - Poly::constant(Off) * S;
  }
  if (!Rel.terms().empty())
    return std::nullopt;
  return O;
}

std::vector<std::string> layoutText(const std::vector<Poly> &Strides) {
  std::vector<std::string> Out;
  for (const Poly &S : Strides)
    Out.push_back(S.terms().empty() ? "0" : S.str());
  return Out;
}

std::string extentBetween(const Poly &Lo, const Poly &Hi) {
  std::string Ext;
  for (const auto &[M, C] : Hi.terms()) {
    (void)C;
    Monomial Rest = M;
    bool Ok = true;
    for (const auto &[LM, LC] : Lo.terms()) {
      (void)LC;
      for (const std::string &Sy : LM) {
        auto It = std::find(Rest.begin(), Rest.end(), Sy);
        if (It == Rest.end())
          Ok = false;
        else
          Rest.erase(It);
      }
    }
    auto HiC = Hi.constantValue(), LoC = Lo.constantValue();
    if (HiC && LoC && *LoC != 0 && *HiC % *LoC == 0)
      return std::to_string(*HiC / *LoC);
    if (Ok && Hi.terms().size() == 1 && Lo.terms().size() == 1) {
      for (const std::string &Sy : Rest)
        Ext += (Ext.empty() ? "" : "*") + Sy;
      if (Ext.empty())
        Ext = "1";
    }
  }
  return Ext;
}

std::optional<std::vector<Poly>> symbolicOffset(Poly Rel,
                                                const std::vector<Poly> &Strides) {
  std::vector<Poly> O(Strides.size());
  for (int A = static_cast<int>(Strides.size()) - 1; A >= 0; --A) {
    const Poly &S = Strides[A];
    if (S == Poly::constant(1)) {
      // The contiguous axis takes what is left.
      O[A] = Rel;
      Rel = Poly();
      continue;
    }
    if (S.isConstant() || S.terms().empty())
      return std::nullopt;
    const auto &Lead = leadingTerm(S);
    // Division by the leading monomial: each term of Rel that it divides
    // (with a coefficient it divides) moves Rel by a multiple of the stride.
    for (int Step = 0; Step < 64; ++Step) {
      std::optional<Poly> Q;
      for (const auto &[M, C] : Rel.terms()) {
        if (C % Lead.second != 0)
          continue;
        Monomial Rest = M;
        bool Divides = true;
        for (const std::string &Sym : Lead.first) {
          auto It = std::find(Rest.begin(), Rest.end(), Sym);
          if (It == Rest.end()) {
            Divides = false;
            break;
          }
          Rest.erase(It);
        }
        if (!Divides)
          continue;
        Poly T = Poly::constant(C / Lead.second);
        for (const std::string &Sym : Rest)
          T = T * Poly::symbol(Sym);
        Q = T;
        break;
      }
      if (!Q)
        break;
      O[A] = O[A] + *Q;
      Rel = Rel - *Q * S;
    }
  }
  if (!Rel.terms().empty())
    return std::nullopt;
  return O;
}

std::optional<ir::Offset>
Interpreter::offsetAlong(const Poly &Rel, const std::vector<Poly> &Strides) {
  if (auto O = solveOffset(Rel, Strides))
    return O;
  // in[i + R] with R a macro: the offset is a number of this build.
  auto InStrides = [&](const std::string &S) {
    return std::any_of(Strides.begin(), Strides.end(),
                       [&](const Poly &P) { return P.mentions(S); });
  };
  std::set<std::string> Before = NamedAssumed;
  if (auto O = solveOffset(
          resolved(Rel, [&](const std::string &S) { return !InStrides(S); }),
          Strides))
    return O;
  std::vector<Poly> Numeric;
  for (const Poly &S : Strides)
    Numeric.push_back(resolved(S));
  if (auto O = solveOffset(resolved(Rel), Numeric))
    return O;
  NamedAssumed = std::move(Before); // nothing was concluded from them
  return std::nullopt;
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

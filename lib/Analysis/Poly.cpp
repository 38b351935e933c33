//===- Poly.cpp - Integer polynomials over named symbols -------------------===//

#include "forgestencil/Analysis/Poly.h"

#include <algorithm>

namespace forgestencil {
namespace analysis {

Poly Poly::constant(int64_t C) {
  Poly P;
  P.add({}, C);
  return P;
}

Poly Poly::symbol(const std::string &Name) {
  Poly P;
  P.add({Name}, 1);
  return P;
}

void Poly::add(const Monomial &M, int64_t C) {
  if (C == 0)
    return;
  auto It = Terms.find(M);
  if (It == Terms.end()) {
    Terms.emplace(M, C);
    return;
  }
  It->second += C;
  if (It->second == 0)
    Terms.erase(It);
}

Poly Poly::operator+(const Poly &O) const {
  Poly R = *this;
  for (const auto &[M, C] : O.Terms)
    R.add(M, C);
  return R;
}

Poly Poly::operator-() const {
  Poly R;
  for (const auto &[M, C] : Terms)
    R.add(M, -C);
  return R;
}

Poly Poly::operator-(const Poly &O) const { return *this + (-O); }

Poly Poly::operator*(const Poly &O) const {
  Poly R;
  for (const auto &[M1, C1] : Terms)
    for (const auto &[M2, C2] : O.Terms) {
      Monomial M = M1;
      M.insert(M.end(), M2.begin(), M2.end());
      std::sort(M.begin(), M.end());
      R.add(M, C1 * C2);
    }
  return R;
}

bool Poly::isConstant() const {
  return Terms.empty() || (Terms.size() == 1 && Terms.begin()->first.empty());
}

std::optional<int64_t> Poly::constantValue() const {
  if (!isConstant())
    return std::nullopt;
  return Terms.empty() ? 0 : Terms.begin()->second;
}

int64_t Poly::coefficient(const Monomial &M) const {
  auto It = Terms.find(M);
  return It == Terms.end() ? 0 : It->second;
}

bool Poly::mentions(const std::string &Name) const {
  for (const auto &[M, C] : Terms)
    if (std::find(M.begin(), M.end(), Name) != M.end())
      return true;
  return false;
}

bool Poly::mentionsPrefix(const std::string &Prefix) const {
  for (const auto &[M, C] : Terms)
    for (const std::string &S : M)
      if (S.compare(0, Prefix.size(), Prefix) == 0)
        return true;
  return false;
}

std::optional<Poly> Poly::coefficientOf(const std::string &Name) const {
  Poly R;
  for (const auto &[M, C] : Terms) {
    auto N = std::count(M.begin(), M.end(), Name);
    if (N == 0)
      continue;
    if (N > 1)
      return std::nullopt;
    Monomial Rest = M;
    Rest.erase(std::find(Rest.begin(), Rest.end(), Name));
    R.add(Rest, C);
  }
  return R;
}

Poly Poly::without(const std::vector<std::string> &Names) const {
  Poly R;
  for (const auto &[M, C] : Terms) {
    bool Hit = false;
    for (const std::string &N : Names)
      if (std::find(M.begin(), M.end(), N) != M.end())
        Hit = true;
    if (!Hit)
      R.add(M, C);
  }
  return R;
}

Poly Poly::substitute(const std::string &Name, const Poly &Value) const {
  if (!mentions(Name))
    return *this;
  // Monomials without Name are kept as they are; the others are the rest
  // of the monomial (still sorted) times Value once for each occurrence.
  Poly R;
  for (const auto &[M, C] : Terms) {
    const auto N = std::count(M.begin(), M.end(), Name);
    if (N == 0) {
      R.add(M, C);
      continue;
    }
    Monomial Rest;
    Rest.reserve(M.size() - N);
    for (const std::string &S : M)
      if (S != Name)
        Rest.push_back(S);
    Poly Term;
    Term.add(Rest, C);
    for (long I = 0; I < N; ++I)
      Term = Term * Value;
    for (const auto &[TM, TC] : Term.Terms)
      R.add(TM, TC);
  }
  return R;
}

std::optional<Poly> Poly::divideExactly(const Poly &D) const {
  auto DV = D.constantValue();
  if (!DV || *DV == 0)
    return std::nullopt;
  Poly R;
  for (const auto &[M, C] : Terms) {
    if (C % *DV != 0)
      return std::nullopt;
    R.add(M, C / *DV);
  }
  return R;
}

std::string Poly::str() const { return spell(false); }

std::string Poly::wideStr() const { return spell(true); }

std::string Poly::spell(bool Wide) const {
  if (Terms.empty())
    return Wide ? "0LL" : "0";
  std::string S;
  // Highest-degree terms first reads naturally: nx*ny*k + nx*j + i + 1.
  std::vector<std::pair<Monomial, int64_t>> Sorted(Terms.begin(), Terms.end());
  std::stable_sort(Sorted.begin(), Sorted.end(), [](const auto &A, const auto &B) {
    return A.first.size() > B.first.size();
  });
  for (const auto &[M, C] : Sorted) {
    int64_t Abs = C < 0 ? -C : C;
    if (S.empty())
      S += C < 0 ? "-" : "";
    else
      S += C < 0 ? " - " : " + ";
    std::string Body;
    for (const std::string &Sym : M)
      Body += (Body.empty() ? "" : "*") + Sym;
    const std::string Num = std::to_string(Abs) + (Wide ? "LL" : "");
    if (Body.empty())
      S += Num;
    else if (Abs == 1)
      S += (Wide ? "(long long)" : "") + Body;
    else
      S += Num + "*" + Body;
  }
  return S;
}

} // namespace analysis
} // namespace forgestencil

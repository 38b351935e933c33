//===- Poly.h - Integer polynomials over named symbols ---------------------===//
///
/// \file
/// Index expressions of stencil kernels are polynomials over a few symbols:
/// the thread's grid position, loop variables and kernel parameters
/// (i + nx*(j + ny*k) = i + nx*j + nx*ny*k). Poly keeps them in a canonical
/// form so that strides and offsets can be read off by comparing monomials.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_ANALYSIS_POLY_H
#define FORGESTENCIL_ANALYSIS_POLY_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace analysis {

/// A product of symbols, sorted (with repetition): {"nx", "ny"} is nx*ny.
using Monomial = std::vector<std::string>;

/// A sum of integer multiples of monomials; the empty monomial is 1.
class Poly {
public:
  Poly() = default;
  static Poly constant(int64_t C);
  static Poly symbol(const std::string &Name);

  Poly operator+(const Poly &O) const;
  Poly operator-(const Poly &O) const;
  Poly operator*(const Poly &O) const;
  Poly operator-() const;
  bool operator==(const Poly &O) const { return Terms == O.Terms; }
  bool operator!=(const Poly &O) const { return !(*this == O); }

  bool isConstant() const;
  std::optional<int64_t> constantValue() const;
  int64_t coefficient(const Monomial &M) const;
  const std::map<Monomial, int64_t> &terms() const { return Terms; }
  /// Whether any monomial mentions Name.
  bool mentions(const std::string &Name) const;
  /// Whether any monomial mentions a symbol starting with Prefix.
  bool mentionsPrefix(const std::string &Prefix) const;
  /// The part of the polynomial whose monomials contain Name exactly once,
  /// divided by Name; nullopt when Name appears squared.
  std::optional<Poly> coefficientOf(const std::string &Name) const;
  /// The polynomial without the monomials that mention any of Names.
  Poly without(const std::vector<std::string> &Names) const;
  /// Replaces the symbol Name by Value everywhere.
  Poly substitute(const std::string &Name, const Poly &Value) const;
  /// Exact division by a monomial-free constant or nullopt.
  std::optional<Poly> divideExactly(const Poly &D) const;
  /// C spelling, e.g. "nx*ny + 2*nx - 1"; symbols are printed as named.
  std::string str() const;
  /// As str(), evaluated in long long: each term's first factor is one
  /// ("2LL*nx*ny", "(long long)nx*ny"), so no product of ints overflows.
  std::string wideStr() const;

private:
  void add(const Monomial &M, int64_t C);
  std::string spell(bool Wide) const;
  std::map<Monomial, int64_t> Terms;
};

} // namespace analysis
} // namespace forgestencil

#endif

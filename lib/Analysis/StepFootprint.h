//===- StepFootprint.h - One time step's points, from N steps' points ----===//
///
/// \file
/// Internal to lib/Analysis. Pure arithmetic on index polynomials and sets
/// of offsets, for FusedSteps.cpp (and unit tests):
///
///  * indexAxes() reads a stored element's axes off its index: the size
///    monomials (products of parameters, blockDim, gridDim) that multiply a
///    term depending on the thread, x (the smallest) first;
///    `i + nx*j + nx*ny*k` has axes 1, nx, nx*ny;
///  * indexOffset() writes an index difference on those axes, dropping
///    terms that only select a time level (`((t + 1) % 2) * n*n`);
///  * stepFootprint() finds one step's footprint F from N steps' footprint
///    and F up to a translation (F summed with itself N times must be the
///    N steps' footprint exactly);
///  * describeStep() gives its dims, radius and shape;
///  * oneStep() puts them together for a kernel's stores and updates.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_STEPFOOTPRINT_H
#define FORGESTENCIL_LIB_ANALYSIS_STEPFOOTPRINT_H

#include "forgestencil/Analysis/Poly.h"
#include "forgestencil/Analysis/StencilAnalysis.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace forgestencil {
namespace analysis {
namespace detail {

/// Grid points along x (unit stride), y, z.
using StepOffset = std::array<int64_t, 3>;

/// How a symbol of an index polynomial varies.
enum class SymbolKind {
  Size,     ///< A parameter, a constant's name, blockDim, gridDim.
  Selector, ///< Uniform but not a size: a quotient or remainder of
            ///< parameters (a time level, `t % 2`).
  Thread,   ///< Depends on threadIdx or blockIdx.
};
using SymbolKinds = std::function<SymbolKind(const std::string &)>;

std::optional<std::vector<Monomial>> indexAxes(const Poly &Stored,
                                               const SymbolKinds &Kind);

/// \p Delta (an element's index minus the stored one) as a whole number of
/// points along each axis, or nullopt.
std::optional<StepOffset> indexOffset(const Poly &Delta,
                                      const std::vector<Monomial> &Axes,
                                      const SymbolKinds &Kind);

/// A store of the last step: its index and the indices of the elements its
/// value was computed from.
struct StoredSample {
  Poly Index;
  std::vector<Poly> From;
};

/// One step's footprint, from the last step's stores and the first step's
/// updates (the indices each read), all in one kernel's terms: the axes are
/// the stores' (they must agree), and every store/update pair that fits
/// (stepFootprint) must give the same footprint; a store next to a boundary,
/// whose value was computed from fewer points, fits none. nullopt, with
/// \p Why, when none or several do.
std::optional<TemporalBlocking::StepFootprint>
oneStep(const std::vector<StoredSample> &Last,
        const std::vector<std::vector<Poly>> &FirstSteps, unsigned N,
        const SymbolKinds &Kind, std::string &Why);

/// The footprint F of one step such that F summed with itself \p N times
/// is \p Composite, given F up to a translation (\p Step): F = Step + t for
/// the one integral t that makes the N-fold sum of F equal to Composite.
/// nullopt when there is none (or the sets are too large to sum).
std::optional<std::set<StepOffset>>
stepFootprint(const std::set<StepOffset> &Step,
              const std::set<StepOffset> &Composite, unsigned N);

/// Dims, radius, point count and shape (star, box or other) of \p F.
TemporalBlocking::StepFootprint describeStep(const std::set<StepOffset> &F,
                                             unsigned Dims);

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif

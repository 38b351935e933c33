//===- PackedFields.h - Several fields of a grid kept in one allocation ---===//
///
/// \file
/// Internal to lib/Analysis (IRBuilder.cpp uses it). Hydrodynamics, weather
/// and lattice codes keep their fields one after the other in one array:
/// the density at u[id], the x momentum at u[n_cells + id], the energy at
/// u[4 * n_cells + id] (n_cells = nx * ny * nz), or with ghost planes
/// state[v * (nz + 2 * hs) * (nx + 2 * hs) + (k + hs) * (nx + 2 * hs) + i +
/// hs]. Against the store's layout (strides 1, nx, nx * ny) a term such as
/// 2 * nx * ny * nz is no whole number of elements along the axes: the
/// analysis refused such reads as offsets it could not place.
///
/// A field is a number of whole planes of the slowest axis: Count * S, S
/// that axis' stride and Count a polynomial of parameters without a
/// constant term (2 * nz, (nz + 2 * hs)), past every plane the domain
/// covers: Count minus the slowest axis' upper bound (zid < nz - 1: nz - 1,
/// plus how far the array's coordinate is moved from the position) has no
/// negative coefficient, so it holds whatever values the sizes take. What
/// is left of the index must be a whole number of elements along each axis,
/// the access' offset. A store's field may count the constant planes too
/// (a padded field, (nz + 4) planes, stored at its point): the reads then
/// take the fields the stores named first, so that a read one plane below
/// is that field at offset -1, not a field of nz + 3 planes. Each field of an array is an input or output of its
/// own in the IR (InputArray::Field). The split is exact: the element is
/// the same, only where the field starts is named. A term that counts no
/// planes past the domain stays unplaced: u[i + s] (a shift by a parameter,
/// s - n not provably >= 0), rows m * nx with m a parameter, a buffer's
/// origin moved back (buf[(y - e) * nx + x]).
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_PACKEDFIELDS_H
#define FORGESTENCIL_LIB_ANALYSIS_PACKEDFIELDS_H

#include "forgestencil/Analysis/Poly.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace analysis {
namespace detail {

/// A relative index's field: Field = Count * the slowest stride.
struct FieldSplit {
  Poly Count, Field;
};

/// The field of the element index relative \p Rel in a layout whose
/// slowest stride is \p Slowest: Count, the non-constant part of the
/// quotient of the terms of Rel that Slowest's leading term divides, when
/// it is not zero and \p RestPlaces accepts Rel - Count * Slowest (the
/// constant part is an offset along the slowest axis; with \p Whole, part
/// of the count: the ghost planes of a padded field, (nz + 2*HS) planes
/// spelled nz + 4). nullopt otherwise.
std::optional<FieldSplit>
splitField(const Poly &Rel, const Poly &Slowest,
           const std::function<bool(const Poly &)> &RestPlaces,
           bool Whole = false);

/// Whether \p Count lies past every coordinate of the slowest axis: for one
/// of the position's upper bounds U (exclusive) in \p Uppers, Count - (U +
/// \p Shift) has no negative coefficient (Shift: the coordinate minus the
/// position).
bool countsPast(const Poly &Count, const std::vector<Poly> &Uppers,
                int64_t Shift);

/// What the IR builder knows of the fields of a kernel's arrays: the upper
/// bounds of the slowest axis, the fields its stores named, and whether a
/// store is being placed (whose field may count constant planes).
struct FieldState {
  std::vector<Poly> Uppers;
  std::vector<Poly> Known;
  bool Stores = false;
};

/// A field as the IR spells it: empty for the field at element 0.
inline std::string fieldText(const Poly &F) {
  return F.terms().empty() ? std::string() : F.str();
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif

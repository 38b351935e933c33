//===- CaseShapes.h - Case sizes the original kernel handles in bounds -----===//
///
/// \file
/// The driver verifies and times candidates at sizes of its own choosing.
/// Those sizes mean something only where the original kernel itself stays
/// inside its arrays: a kernel whose row stride is the macro `N` (1024 in
/// the app's build) but whose bound is the parameter `n` reads far outside
/// its arrays at 4096^2, and "verified bit-exact" there says nothing. This
/// part evaluates the IR's domain, strides and offsets at given extents (a
/// small evaluator for the C expressions the IR holds, its named constants
/// at their values) and says whether every access of the original stays
/// inside the arrays the driver allocates, and derives sizes that do from
/// the relations the IR shows: an axis whose extent is a literal or a named
/// constant takes its value (the app's build fixes it, the driver cannot
/// choose it); the other extents shrink, all by the same factor, until the
/// domain, its reads and its writes fit.
///
/// It is a model of the original, not the original: fs-tune runs the real
/// kernel under compute-sanitizer on every case too and refuses a case (not
/// a candidate) that it finds out of bounds.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_CASESHAPES_H
#define FORGESTENCIL_FORGE_CASESHAPES_H

#include "forgestencil/IR/StencilIR.h"

#include <array>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace forgestencil {
namespace forge {

using Extents = std::array<long long, 3>;

/// The value of an integer C expression over Vars ("n - 1", "nx*ny",
/// "(size_t)nx * ny", "min(n, 64)"); std::nullopt for anything else (an
/// unknown name, a call, a division by zero).
std::optional<long long>
evaluateExpression(const std::string &Expr,
                   const std::map<std::string, long long> &Vars);

/// What the model says about the original at some extents.
struct BoundsCheck {
  /// False when an expression of the IR could not be evaluated: the model
  /// knows nothing then, and only compute-sanitizer can tell.
  bool Known = false;
  bool InBounds = false;
  /// Why not, in words ("reads up to element 4197375 of 4196352").
  std::string Why;
};

/// Whether every access of the original, launched over the whole domain
/// with Block threads per block (along x, y, z), stays inside the arrays of
/// Ext (elements 1 + sum of (ext - 1) * stride), its writes inside the
/// array along every axis and distinct points at distinct elements.
BoundsCheck checkBounds(const ir::StencilIR &IR, const Extents &Ext,
                        const std::array<unsigned, 3> &Block);

/// The integer named constants of the IR (`#define N 1024`: N = 1024), by
/// name: values the app's build fixes, which the driver cannot choose.
std::map<std::string, long long> constantValues(const ir::StencilIR &IR);

/// Per IR axis, the extent the IR fixes: a literal ("1024") or an
/// expression of its named constants alone ("N" with N = 1024 in
/// IR.Constants), 0 where it is free.
Extents fixedExtents(const ir::StencilIR &IR);

/// Why axis A's extent is fixed, in words ("N = 1024 (a named constant
/// defined at jacobi.cu:10; the app's build fixes it)"); "" when free.
std::string fixedExtentWhy(const ir::StencilIR &IR, size_t A);

/// Extents derived from Wanted for the IR.
struct DerivedExtents {
  Extents Ext{1, 1, 1};
  /// Ext differs from Wanted; Note says how and why.
  bool Changed = false;
  BoundsCheck Check;
  std::string Note;
};

/// Wanted with the IR's fixed extents, then the free ones shrunk by one
/// factor until checkBounds holds (odd ones when Odd, so no block or vector
/// width divides them). When nothing fits, or the model knows nothing, Ext
/// is Wanted with the fixed extents and Check says so.
DerivedExtents deriveExtents(const ir::StencilIR &IR, const Extents &Wanted,
                             const std::array<unsigned, 3> &Block, bool Odd);

/// A wrapped axis read at |offset| R >= 2 has variants only for a period of
/// at least R (the IR's at-least assumptions, which the generated launcher
/// checks and a tuning driver's candidates do not): Ext with the free
/// extents that an unmet assumption's expression rises with grown, by whole
/// multiples of 4 (odd stays odd, aligned rows stay aligned), until every
/// one holds; Note says what became what and why (empty when nothing
/// changed). An assumption the model cannot evaluate is left to the
/// launcher. std::nullopt, and in Note the reason, where no free extent
/// raises an unmet one.
std::optional<Extents> withAtLeast(const ir::StencilIR &IR, const Extents &Ext,
                                   std::string &Note);

/// One case the driver verifies (or times) at.
struct CaseShape {
  std::string Name; ///< small, small-partial-grid, ..., timed-size
  Extents Ext{1, 1, 1};
  DerivedExtents Derivation;
  /// Non-empty: the case is not run, and why (an assumption of the IR
  /// that no extent the driver may choose satisfies).
  std::string Skip;
};

/// The verification extents the driver draws: [Lo, Lo + Span) per axis,
/// made odd, for the small and the medium case, by dimensionality.
struct CaseSpans {
  int SmallLo, SmallSpan, MediumLo, MediumSpan;
};
CaseSpans caseSpans(unsigned Dims);

/// The cases of one driver run: small and medium extents drawn from Rng,
/// each also with a partial grid (small) and with the contiguous extent a
/// multiple of 4 (aligned rows for the vector kernels), then the timed
/// size. With Derive, every case's extents go through deriveExtents;
/// without, they are as drawn except the extents the IR fixes. Either way
/// the cases honour the IR's launch assumptions: whole grids where a
/// grid-extent assumption holds (no partial-grid cases then), and free
/// extents grown until every at-least assumption holds (a case where none
/// can grow is Skip-ped).
std::vector<CaseShape> makeCases(const ir::StencilIR &IR,
                                 const Extents &TimeShape,
                                 const std::array<unsigned, 3> &Block,
                                 std::mt19937 &Rng, bool Derive);

/// "1024x1024" for the first Dims extents.
std::string formatExtents(const Extents &E, unsigned Dims);

} // namespace forge
} // namespace forgestencil

#endif

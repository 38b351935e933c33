//===- Coarsening.h - Threads that compute several points of an axis ------===//
///
/// \file
/// Internal to lib/Analysis (KernelInterpreter.h includes it). Thread
/// coarsening: a loop of a constant trip count C whose round s stores the
/// point v = C * g + s of an axis (consecutive points, g the thread's
/// position blockIdx * blockDim + threadIdx), v = (C * blockIdx + s) *
/// blockDim + threadIdx (points a block apart) or v = g + s * gridDim *
/// blockDim (points a grid apart). Over s = 0 .. C - 1 the threads of a
/// launch cover C times their number of points, each computed as a kernel
/// without the loop would compute it at position v. Loops over different
/// axes may nest.
///
/// A first reading unrolls such a loop like any loop of constant trips and
/// notes it (coarseLoopOf, from the first stores of its first two rounds, or
/// from the indices the body's own variables hold). A second reading runs
/// its body once, with the loop variable a marker (coarseVar) and the
/// thread's position along the axis another (coarseOld), both per axis:
/// every index made of the two in the coarsening's form is rewritten to the
/// position v (coarseNormal), a symbol of its own (coarsePosition) until
/// the round is over, when it becomes the axis' position. A marker left in
/// anything the kernel stores or reads (the thread's first point, or the
/// loop variable, used alone) keeps the kernel partial, and
/// StencilAnalysis.cpp drops that reading.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_COARSENING_H
#define FORGESTENCIL_LIB_ANALYSIS_COARSENING_H

#include "SymbolicValues.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace analysis {
namespace detail {

struct Write;
struct ReadRecord;

struct CoarseLoop {
  enum Form { Consecutive, BlockApart, GridApart };
  int64_t Points = 0; ///< C, the loop's trip count.
  int Dim = 0;        ///< The thread dimension of the axis (0..2).
  Form Apart = Consecutive;
  Poly Block;         ///< BlockApart: blockDim along Dim, or its number.
  bool operator==(const CoarseLoop &O) const {
    return Points == O.Points && Dim == O.Dim && Apart == O.Apart &&
           Block == O.Block;
  }
};

/// The markers of a coarsening reading along \p Dim: the loop variable, and
/// the thread's position along the axis as it was before the loop; and the
/// symbol of the position v while the round runs.
std::string coarseVar(int Dim);
std::string coarseOld(int Dim);
std::string coarsePosition(int Dim);

/// The coarsening that a loop of \p Trips rounds shows when its rounds s = 0
/// and s = 1 first store at \p First and \p Second; nullopt for any other
/// loop (a radius sum, a loop over fields or time levels).
std::optional<CoarseLoop> coarseLoopOf(const Poly &First, const Poly &Second,
                                       int64_t Trips);

/// What keeps the loop body \p Body (its variable \p Var) from being run
/// once for a point of its own: a return or break in it, or an assignment to
/// a variable declared outside it (a value carried from one point to the
/// next); empty when none.
std::string bodyProblem(const clang::Stmt *Body, const clang::VarDecl *Var);

/// The variables \p Body declares, in order.
std::vector<const clang::VarDecl *> declaredIn(const clang::Stmt *Body);

/// \p P with the thread's position along L's axis renamed to coarseOld, and
/// then, where P is A + B * (C * old + s) (a block apart: A + B * ((C *
/// blockIdx + s) * blockDim + threadIdx); a grid apart: A + B * (old + s *
/// gridDim * blockDim)) with A and B free of the markers, A + B *
/// coarsePosition; else P with the rename only (a part of an index still
/// being formed, or a marker used alone).
Poly coarseNormal(const Poly &P, const CoarseLoop &L);
/// The same for each of the loops whose rounds are running, outermost first.
Poly coarseNormal(const Poly &P, const std::vector<const CoarseLoop *> &Active);

/// Whether \p P names a marker of a coarsening reading (of any axis), the
/// position's own symbol along L's axis, or (points a block apart) blockIdx
/// along it.
bool mentionsCoarseMarker(const Poly &P, const CoarseLoop &L);
/// The same for a value tree: its reads' indices and bounds.
bool mentionsCoarseMarker(const DPtr &N, const CoarseLoop &L);

/// Puts each coarsened dimension's points a thread (\p Coarsened) on the
/// IR's axis at blockIdx.D * blockDim.D + threadIdx.D; why not, where the
/// store has no such axis (its index does not move with the point).
std::string setThreadPoints(const std::map<int, int64_t> &Coarsened,
                            ir::StencilIR &IR);

/// Why a reading that ran \p Loops leaves a marker in a store or a read
/// (a value of the thread's first point used after the loop); empty when
/// it leaves none.
std::string coarseMarkerLeft(const std::map<const clang::Stmt *, CoarseLoop> &Loops,
                             const std::vector<Write> &Writes,
                             const std::vector<ReadRecord> &Reads);

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif

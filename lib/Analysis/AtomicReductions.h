//===- AtomicReductions.h - Atomic accumulations fused into a stencil -----===//
///
/// \file
/// Internal to lib/Analysis. Finds an accumulation by atomics that a
/// stencil kernel makes beside its update, as iterative solvers sum the
/// squared change of a sweep or raise a flag where it is not converged:
///
///   if (inside) {
///     float v = 0.25f * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx]);
///     un[c] = v;
///     atomicAdd(res, (v - u[c]) * (v - u[c]));
///   }
///
/// The call is taken out of the stencil's interpretation when
///  * it is atomicAdd, atomicMax, atomicMin, atomicOr or atomicAnd, as a
///    statement of its own (its result unused);
///  * its target is a pointer parameter of the kernel (p, &p[c], p + c with
///    c an integer constant) that nothing else in the kernel names: it
///    receives the result, and the stencil never touches it;
///  * its value only computes (no assignment, no call but math functions).
/// Its value then reaches no store of the stencil, and its store no array
/// the stencil reads or writes. The IR records it as a BlockReduction with
/// no __shared__ array. A kernel that does nothing else (a norm, a dot
/// product) stores nothing the analysis sees and stays no stencil; an
/// atomic to an element that depends on the thread (a scatter, a
/// histogram) is left in, and refused where it is met.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_ATOMICREDUCTIONS_H
#define FORGESTENCIL_LIB_ANALYSIS_ATOMICREDUCTIONS_H

#include "Slices.h"

namespace forgestencil {
namespace analysis {
namespace detail {

std::unique_ptr<KernelSlicer> makeAtomicReductionSlicer();

/// Why a kernel whose only stores are atomic accumulations this slicer took
/// out is no stencil ("" where it has none).
std::string onlyAccumulates(const KernelSlices &Slices);

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif

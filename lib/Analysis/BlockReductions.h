//===- BlockReductions.h - Block reductions fused into a stencil ----------===//
///
/// \file
/// Internal to lib/Analysis. Finds a reduction over the thread block that a
/// stencil kernel computes beside its update, as solvers write the norm of
/// a sweep's change or an error flag:
///
///   __shared__ double err[BLOCK];
///   err[threadIdx.x] = 0;
///   if (inside) { u1[p] = ...; err[threadIdx.x] = fabs(u1[p] - u0[p]); }
///   Reduce<double, BLOCK / 2>::run(err, partial_sums, SUM);
///
/// The part is taken out of the stencil's interpretation when
///  * the __shared__ array is declared in the kernel and used only as the
///    target of plain stores (`err[i] = v;` as a statement, v without side
///    effects and with no calls but math functions) and as an argument of
///    one call;
///  * that call is a statement of the kernel's body itself (not under a
///    condition or in a loop) to a function the translation unit defines;
///  * its other arguments are the combining function, integer constants
///    and pointer parameters of the kernel that nothing else in the kernel
///    names: they receive the result, and the stencil never touches them.
/// Its values then reach no store of the stencil, and its stores no array
/// the stencil reads or writes. The IR records it as a BlockReduction.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_BLOCKREDUCTIONS_H
#define FORGESTENCIL_LIB_ANALYSIS_BLOCKREDUCTIONS_H

#include "Slices.h"

namespace forgestencil {
namespace analysis {
namespace detail {

std::unique_ptr<KernelSlicer> makeBlockReductionSlicer();

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif

//===- TreeReductions.h - Block reductions written out in the kernel ------===//
///
/// \file
/// Internal to lib/Analysis. Finds a reduction over the thread block that a
/// stencil kernel writes out itself beside its update, a halving loop over
/// a __shared__ array and one thread's store of the block's result, as
/// solvers keep the largest change of a sweep:
///
///   __shared__ float big[256];
///   big[t] = change;                    // 0 outside the domain
///   __syncthreads();
///   for (int s = 128; s > 0; s >>= 1) {
///     if (t < s) big[t] = fmaxf(big[t], big[t + s]);
///     __syncthreads();
///   }
///   if (t == 0) err[blockIdx.x] = big[0];   // or atomicMax(err, big[0])
///
/// The part is taken out of the stencil's interpretation when
///  * the __shared__ array is declared in the kernel and, besides the loop
///    and the final store, used only as the target of plain stores (`s[i] =
///    v;` as a statement, v without side effects and with no calls but math
///    functions);
///  * the loop is a statement of the kernel's body that names nothing but
///    the array, its own variables, integer locals of the kernel (the
///    thread's place), integer constants, barriers and math functions, and
///    stores only to the array and its own variables;
///  * the final store is a later statement of the body, an if without else
///    around one store `p[e] = s[k]` or one atomic call `atomicOp(q, s[k])`,
///    whose condition and indices only compute, into a pointer parameter p
///    of the kernel that nothing else in the kernel names.
/// Its values then reach no store of the stencil, and its stores no array
/// the stencil reads or writes. The IR records it as a BlockReduction whose
/// call is the final store.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_TREEREDUCTIONS_H
#define FORGESTENCIL_LIB_ANALYSIS_TREEREDUCTIONS_H

#include "Slices.h"

namespace forgestencil {
namespace analysis {
namespace detail {

std::unique_ptr<KernelSlicer> makeTreeReductionSlicer();

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif

//===- TemporalBlocking.h - Kernels that run several time steps -----------===//
///
/// \file
/// Internal to lib/Analysis. Recognises in-kernel temporal blocking, which
/// is not a plain stencil and must not be rewritten as one:
///
///  * fused time steps: the value a kernel stores to global memory is the
///    same update applied N >= 2 times, each application reading values
///    the previous one computed (through registers or a __shared__ tile),
///    as code generators such as AN5D write it; the report says N;
///  * a time loop: a loop inside the kernel (or in a device function it
///    calls) with a grid-wide barrier (cooperative groups' grid sync)
///    around its global stores, as persistent kernels are written.
///
/// A kernel whose stages compute different expressions (fluxes, then
/// their differences) is one time step and is not reported.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_TEMPORALBLOCKING_H
#define FORGESTENCIL_LIB_ANALYSIS_TEMPORALBLOCKING_H

#include "Recognisers.h"

namespace forgestencil {
namespace analysis {
namespace detail {

std::unique_ptr<KernelRecogniser> makeTemporalBlockingRecogniser();

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif

//===- FusedSteps.h - The time steps a kernel fuses, and one step's points -===//
///
/// \file
/// Internal to lib/Analysis (TemporalBlocking.cpp asks it). Finds fused time
/// steps: the value a kernel stores to global memory is the same update
/// applied N >= 2 times, each application reading values the previous one
/// computed (through registers or a __shared__ tile).
///
/// Where the code says where every value comes from, it also gives the
/// footprint of one step: the points of the grid one application reads
/// relative to the point it computes. It is derived, not assumed: the
/// footprint of a first-step update (known up to a translation) must,
/// summed with itself N times (a Minkowski sum), give exactly the points the
/// stored value was computed from, relative to the stored point; the
/// translation that makes them equal places the step's centre.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_FUSEDSTEPS_H
#define FORGESTENCIL_LIB_ANALYSIS_FUSEDSTEPS_H

#include "forgestencil/Analysis/StencilAnalysis.h"

#include <optional>
#include <string>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace forgestencil {
namespace analysis {
namespace detail {

struct FusedStepsFound {
  unsigned Steps = 0; ///< 0: no fused steps.
  /// One step's footprint, where it could be derived.
  std::optional<TemporalBlocking::StepFootprint> PerStep;
  /// Why there is no PerStep (for -v and the tests), when Steps >= 2.
  std::string NoStepWhy;
};

FusedStepsFound findFusedSteps(const clang::FunctionDecl &Kernel,
                               clang::ASTContext &Ctx);

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif

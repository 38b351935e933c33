//===- MultiPoint.h - Several points per thread, vector loads --------------===//
///
/// \file
/// Each thread computes VectorWidth consecutive points along the contiguous
/// axis (one vector load or store per row) times PointsY along the middle
/// axis (3-D) or ZChunk along the slowest axis (2-D). No register queue: the
/// reuse comes from the vectors and the caches. More bytes in flight per
/// thread than one point per thread, no streaming state.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_STRATEGIES_MULTIPOINT_H
#define FORGESTENCIL_FORGE_STRATEGIES_MULTIPOINT_H

#include "forgestencil/Forge/Strategy.h"

namespace forgestencil {
namespace forge {

class MultiPointStrategy : public Strategy {
public:
  const char *name() const override { return "multipoint"; }
  const char *description() const override {
    return "k points per thread along x (vector loads) and y, no queue";
  }
  std::vector<StrategyParams>
  searchSpace(const ir::StencilIR &IR) const override;
  GeneratedSource emit(const ir::StencilIR &IR, const StrategyParams &P,
                       const GenerateOptions &Opts) const override;
};

} // namespace forge
} // namespace forgestencil

#endif

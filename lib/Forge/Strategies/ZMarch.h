//===- ZMarch.h - 2.5-D streaming with a register queue --------------------===//
///
/// \file
/// Each thread owns a column chunk: VectorWidth x PointsY points of the xy
/// plane, ZChunk planes deep. It marches along the slowest axis and keeps
/// the centre column's 2r+1 values in registers, loading one new plane per
/// step; xy neighbours come through the read-only cache (L1), as vectors.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_STRATEGIES_ZMARCH_H
#define FORGESTENCIL_FORGE_STRATEGIES_ZMARCH_H

#include "forgestencil/Forge/Strategy.h"

namespace forgestencil {
namespace forge {

class ZMarchStrategy : public Strategy {
public:
  const char *name() const override { return "zmarch"; }
  const char *description() const override {
    return "march along the slowest axis, centre column in a register "
           "queue, xy neighbours via L1, vector loads";
  }
  std::string whyNot(const ir::StencilIR &IR) const override;
  std::vector<StrategyParams>
  searchSpace(const ir::StencilIR &IR) const override;
  GeneratedSource emit(const ir::StencilIR &IR, const StrategyParams &P,
                       const GenerateOptions &Opts) const override;
};

} // namespace forge
} // namespace forgestencil

#endif

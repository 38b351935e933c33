//===- Naive.h - One thread per point --------------------------------------===//
///
/// \file
/// The straightforward mapping: a 2-D or 3-D grid of blocks, one thread per
/// point, every read a plain load. It is the baseline the other strategies
/// must beat and the fallback when nothing better is known.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_STRATEGIES_NAIVE_H
#define FORGESTENCIL_FORGE_STRATEGIES_NAIVE_H

#include "forgestencil/Forge/Strategy.h"

namespace forgestencil {
namespace forge {

class NaiveStrategy : public Strategy {
public:
  const char *name() const override { return "naive"; }
  const char *description() const override {
    return "one thread per point, 2-D/3-D blocks, plain loads";
  }
  std::vector<StrategyParams>
  searchSpace(const ir::StencilIR &IR) const override;
  GeneratedSource emit(const ir::StencilIR &IR, const StrategyParams &P,
                       const GenerateOptions &Opts) const override;
};

} // namespace forge
} // namespace forgestencil

#endif

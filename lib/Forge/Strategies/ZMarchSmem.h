//===- ZMarchSmem.h - 2.5-D streaming with a shared-memory plane -----------===//
///
/// \file
/// The textbook 2.5-D scheme: each block stages the current plane of every
/// array read at xy neighbours into a shared-memory tile (with halos), each
/// thread keeps its centre column's values along the slowest axis in a
/// register queue and reads the xy neighbours from the tile. Applies when
/// all xy-neighbour reads lie in the current plane (stars, Yee updates).
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_STRATEGIES_ZMARCHSMEM_H
#define FORGESTENCIL_FORGE_STRATEGIES_ZMARCHSMEM_H

#include "forgestencil/Forge/Strategy.h"

namespace forgestencil {
namespace forge {

class ZMarchSmemStrategy : public Strategy {
public:
  const char *name() const override { return "zmarch_smem"; }
  const char *description() const override {
    return "march along the slowest axis, register queue, current xy plane "
           "in a shared-memory tile";
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

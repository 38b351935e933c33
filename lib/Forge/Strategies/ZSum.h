//===- ZSum.h - Streaming partial sums along the slowest axis --------------===//
///
/// \file
/// For sums whose terms each read one plane, in plane order (a box written
/// as a sum of rows, plane after plane): each thread marches along the
/// slowest axis, loads every plane it needs once, and adds that plane's
/// terms into the partial sums of the 2r+1 output planes that read it. A
/// sum is finished, and stored, when its last plane has been added. The
/// additions happen in the original's order, so results are bit-identical;
/// plane loads per point drop from 2r+1 to one, with no plane kept in
/// registers or shared memory.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_STRATEGIES_ZSUM_H
#define FORGESTENCIL_FORGE_STRATEGIES_ZSUM_H

#include "forgestencil/Forge/Strategy.h"

namespace forgestencil {
namespace forge {

class ZSumStrategy : public Strategy {
public:
  const char *name() const override { return "zsum"; }
  const char *description() const override {
    return "march along the slowest axis adding each plane, loaded once, "
           "into the partial sums of the output planes that read it";
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

//===- MultiPoint.cpp - Several points per thread, vector loads ------------===//

#include "MultiPoint.h"

#include "../ColumnKernel.h"

namespace forgestencil {
namespace forge {

std::vector<StrategyParams>
MultiPointStrategy::searchSpace(const ir::StencilIR &IR) const {
  std::vector<StrategyParams> Space;
  const unsigned VMax = IR.ElementType == "float" ? 4 : 2;
  auto Add = [&](unsigned BX, unsigned BY, unsigned VW, unsigned PY,
                 unsigned ZC) {
    Space.push_back(searchPoint(name(), BX, BY, VW, PY, ZC));
  };
  if (IR.Dims == 3) {
    Add(32, 4, VMax, 1, 1);
    Add(32, 4, VMax, 2, 1);
    Add(32, 8, 2, 1, 1);
    Add(64, 4, 2, 2, 1);
    Add(32, 4, VMax, 1, 2);
  } else {
    Add(128, 1, VMax, 1, 1);
    Add(128, 1, VMax, 1, 2);
    Add(256, 1, VMax, 1, 4);
    // Wider blocks and taller columns, after the first three points so that
    // the default budget takes the same candidates (and before the last, so
    // that sampling a strategy's first and last points does too): in PERKS'
    // 9-point box (double, 8192^2, in the app on an H100) 256x1 z2 was 1%
    // faster than 128x1 z2, the z4 and z8 columns slower
    // (results/apps-e2e/2026-12-05-h100-perks-in-app/).
    Add(128, 1, VMax, 1, 4);
    Add(128, 1, VMax, 1, 8);
    Add(64, 1, VMax, 1, 4);
    Add(256, 1, VMax, 1, 2);
    Add(128, 1, 2, 1, 2);
  }
  return Space;
}

GeneratedSource MultiPointStrategy::emit(const ir::StencilIR &IR,
                                         const StrategyParams &P,
                                         const GenerateOptions &Opts) const {
  StrategyParams Q = P;
  Q.RegisterQueue = false;
  Q.PlaneQueue = false;
  return generateColumnSource(IR, Q, Opts);
}

} // namespace forge
} // namespace forgestencil

//===- ZMarch.cpp - 2.5-D streaming with a register queue ------------------===//

#include "ZMarch.h"

#include "../ColumnKernel.h"

namespace forgestencil {
namespace forge {

std::string ZMarchStrategy::whyNot(const ir::StencilIR &IR) const {
  std::string Why = Strategy::whyNot(IR);
  if (!Why.empty())
    return Why;
  if (IR.Dims < 2)
    return "a 1-D stencil has no slowest axis to march along";
  return "";
}

std::vector<StrategyParams>
ZMarchStrategy::searchSpace(const ir::StencilIR &IR) const {
  std::vector<StrategyParams> Space;
  const bool F32 = IR.ElementType == "float";
  auto Add = [&](unsigned BX, unsigned BY, unsigned VW, unsigned PY,
                 unsigned ZC, unsigned Unroll, unsigned MinBlocks) {
    StrategyParams P;
    P.Strategy = name();
    P.BlockX = BX;
    P.BlockY = BY;
    P.VectorWidth = VW;
    P.PointsY = PY;
    P.ZChunk = ZC;
    P.RegisterQueue = true;
    P.Unroll = Unroll;
    P.MinBlocksPerSM = MinBlocks;
    Space.push_back(P);
  };
  const unsigned VMax = F32 ? 4 : 2;
  if (IR.Dims == 3) {
    Add(32, 4, 1, 1, 32, 1, 0);
    Add(32, 4, 2, 1, 32, 2, 0);
    Add(32, 4, VMax, 1, 32, 2, 0);
    Add(16, 8, VMax, 1, 32, 2, 0);
    Add(32, 4, VMax, 1, 64, 2, 0);
    Add(32, 2, VMax, 2, 32, 1, 0);
    Add(32, 8, 2, 1, 16, 2, 0);
    Add(64, 2, 2, 1, 32, 2, 0);
  } else {
    Add(128, 1, VMax, 1, 32, 2, 0);
    Add(256, 1, VMax, 1, 32, 2, 0);
    Add(128, 1, VMax, 1, 64, 2, 0);
    Add(128, 1, 2, 1, 32, 2, 0);
    Add(256, 1, 1, 1, 32, 2, 0);
    Add(64, 1, VMax, 1, 16, 2, 0);
  }
  return Space;
}

GeneratedSource ZMarchStrategy::generate(const ir::StencilIR &IR,
                                         const StrategyParams &P,
                                         const GenerateOptions &Opts) const {
  GeneratedSource Out;
  Out.Error = whyNot(IR);
  if (!Out.ok())
    return Out;
  StrategyParams Q = P;
  Q.RegisterQueue = true;
  return generateColumnSource(IR, Q, Opts);
}

} // namespace forge
} // namespace forgestencil

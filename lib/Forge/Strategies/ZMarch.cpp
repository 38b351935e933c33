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

/// True when some array is read at xy neighbours in planes other than the
/// current one (boxes): then whole planes are worth keeping in registers.
static bool readsNeighboursOffPlane(const ir::StencilIR &IR) {
  for (const ir::InputArray &In : IR.Inputs)
    for (const ir::Offset &O : In.Offsets) {
      int Slow = static_cast<int>(IR.Dims) - 1;
      bool Centre = true;
      for (int A = 0; A < Slow; ++A)
        Centre = Centre && O[A] == 0;
      if (!Centre && O[Slow] != 0)
        return true;
    }
  return false;
}

std::vector<StrategyParams>
ZMarchStrategy::searchSpace(const ir::StencilIR &IR) const {
  std::vector<StrategyParams> Space;
  const bool F32 = IR.ElementType == "float";
  // The switches of a point, or-ed: the plane queue and the '.r', '.cs'
  // and '.w' knobs.
  enum : unsigned { Planes = 1, Reverse = 2, Streaming = 4, Masked = 8 };
  auto Add = [&](unsigned BX, unsigned BY, unsigned VW, unsigned PY,
                 unsigned ZC, unsigned Unroll, unsigned MinBlocks,
                 unsigned Stages = 0, unsigned Switches = 0) {
    StrategyParams P = searchPoint(name(), BX, BY, VW, PY, ZC);
    P.RegisterQueue = true;
    P.PlaneQueue = Switches & Planes;
    P.Unroll = Unroll;
    P.MinBlocksPerSM = MinBlocks;
    P.Stages = Stages;
    P.ReverseLoads = Switches & Reverse;
    P.StreamingHints = Switches & Streaming;
    P.MaskedEdges = Switches & Masked;
    // Staged points only where there is something to stage and it fits,
    // masked ones where the IR knows the row's extent.
    if ((!Stages && !P.MaskedEdges) || generate(IR, P, GenerateOptions()).ok())
      addSearchPoint(Space, P);
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
    // Around the best radius-4 point of the first measurement (v2, z32).
    if (IR.Radius >= 2) {
      Add(32, 4, 2, 1, 16, 2, 0);
      Add(64, 4, 2, 1, 32, 2, 0);
      Add(32, 4, 2, 1, 32, 4, 0);
      Add(32, 4, 2, 1, 32, 2, 4);
      Add(32, 8, 2, 1, 32, 2, 0);
      // Several rows per thread share the xy-neighbour rows they read.
      Add(32, 4, 2, 2, 16, 1, 0);
      Add(32, 8, 2, 2, 16, 1, 0);
      Add(32, 4, 1, 2, 16, 2, 0);
      Add(32, 16, 2, 1, 16, 2, 0);
      Add(32, 8, 2, 1, 8, 2, 0);
      // The plane's tile copied ahead into shared memory (run 10): 81.0 %
      // and 79.9 % against 82.2 % through L1; taller tiles, which would
      // fetch fewer halo rows from L2, lost occupancy (32x16: 65.3 %).
      Add(32, 4, VMax, 1, 32, 2, 0, 1);
      Add(32, 8, 2, 1, 32, 2, 0, 2);
      // The same loads in the reverse order (run 29: 32x4 v2 z16 from 81.4
      // to 83.4 % for rtm, 32x8 v2 z32 from 83.0 to 77.5 %).
      Add(32, 4, 2, 1, 16, 2, 0, 0, Reverse);
      Add(32, 8, 2, 1, 32, 2, 0, 0, Reverse);
      Add(32, 4, VMax, 1, 16, 2, 0, 1, Reverse);
      // That point with evict-first stores and per-point loads (run 31:
      // rtm's kernel at 384^3 from 75.8 to 78.7 %; the L1 points lost up
      // to 17 points with them).
      Add(32, 4, VMax, 1, 16, 2, 0, 1, Reverse | Streaming);
      // Groups cut by the domain's edge masked, no edge block column (run
      // 32: rtm's kernel at 384^3 81.8 % for this shape, 72.1 % without;
      // other shapes lost up to 25 points).
      Add(32, 4, VMax, 1, 16, 2, 0, 0, Reverse | Masked);
    }
    if (readsNeighboursOffPlane(IR)) {
      Add(32, 4, VMax, 1, 32, 1, 0, 0, Planes);
      Add(32, 4, 2, 1, 32, 1, 0, 0, Planes);
      Add(32, 4, 1, 1, 32, 1, 0, 0, Planes);
      Add(32, 2, 2, 2, 32, 1, 0, 0, Planes);
      Add(64, 4, 1, 1, 64, 1, 0, 0, Planes);
    }
  } else {
    Add(128, 1, VMax, 1, 32, 2, 0);
    Add(256, 1, VMax, 1, 32, 2, 0);
    Add(128, 1, VMax, 1, 64, 2, 0);
    Add(128, 1, 2, 1, 32, 2, 0);
    Add(256, 1, 1, 1, 32, 2, 0);
    Add(64, 1, VMax, 1, 16, 2, 0);
    if (readsNeighboursOffPlane(IR))
      Add(128, 1, VMax, 1, 32, 1, 0, 0, Planes);
  }
  return Space;
}

GeneratedSource ZMarchStrategy::emit(const ir::StencilIR &IR,
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

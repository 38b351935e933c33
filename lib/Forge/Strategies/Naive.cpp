//===- Naive.cpp - One thread per point ------------------------------------===//

#include "Naive.h"

#include "forgestencil/Forge/CodeGen.h"

#include <sstream>

namespace forgestencil {
namespace forge {

std::vector<StrategyParams>
NaiveStrategy::searchSpace(const ir::StencilIR &IR) const {
  std::vector<StrategyParams> Space;
  auto Add = [&](unsigned X, unsigned Y, unsigned Z) {
    StrategyParams P;
    P.Strategy = name();
    P.BlockX = X;
    P.BlockY = Y;
    P.BlockZ = Z;
    Space.push_back(P);
  };
  if (IR.Dims == 3) {
    Add(32, 4, 2);
    Add(32, 8, 1);
    Add(64, 4, 1);
  } else {
    Add(32, 8, 1);
    Add(64, 4, 1);
    Add(128, 2, 1);
  }
  return Space;
}

GeneratedSource NaiveStrategy::emit(const ir::StencilIR &IR,
                                    const StrategyParams &P,
                                    const GenerateOptions &Opts) const {
  GeneratedSource Out;
  auto V = StencilView::create(IR, Out.Error);
  if (!V)
    return Out;
  // Thread dimensions onto view axes: x -> contiguous; for 3-D y -> middle
  // and z -> slowest; for 2-D y -> slowest.
  const bool ThreeD = IR.Dims == 3;
  const unsigned BX = P.BlockX;
  const unsigned BMid = ThreeD ? P.BlockY : 1;
  const unsigned BSlow = ThreeD ? P.BlockZ : P.BlockY * P.BlockZ;
  std::ostringstream OS;
  OS << emitFilePrologue(IR, P) << emitConstants(*V, Opts);
  OS << "namespace {\n"
     << "template <typename Idx>\n"
     << "__global__ void __launch_bounds__(" << BX * BMid * BSlow << ")\n"
     << Opts.LauncherName << "_kernel(" << kernelParams(*V, "Idx") << ") {\n"
     << "  const Idx x = lo0 + (Idx)blockIdx.x * " << BX
     << " + (Idx)threadIdx.x;\n"
     << "  if (x >= hi0)\n    return;\n"
     << "  const unsigned tm = " << (ThreeD ? "threadIdx.y" : "0") << ";\n"
     << "  const unsigned ts = " << (ThreeD ? "threadIdx.z" : "threadIdx.y")
     << ";\n"
     << "  const unsigned gm = " << (ThreeD ? "blockIdx.y" : "0") << ";\n"
     << "  const unsigned nm = " << (ThreeD ? "gridDim.y" : "1") << ";\n"
     << "  const unsigned gs = " << (ThreeD ? "blockIdx.z" : "blockIdx.y")
     << ";\n"
     << "  const unsigned ns = " << (ThreeD ? "gridDim.z" : "gridDim.y")
     << ";\n"
     << "  // Block loops cover domains larger than the grid's y/z limits.\n"
     << "  for (Idx bs = gs; lo2 + bs * " << BSlow
     << " < hi2; bs += ns) {\n"
     << "    const Idx z = lo2 + bs * " << BSlow << " + ts;\n"
     << "    if (z >= hi2)\n      continue;\n"
     << "    for (Idx bm = gm; lo1 + bm * " << BMid << " < hi1; bm += nm) {\n"
     << "      const Idx y = lo1 + bm * " << BMid << " + tm;\n"
     << "      if (y >= hi1)\n        continue;\n"
     << "      const Idx fs_i = x * s0 + y * s1 + z * s2;\n"
     << emitPointUpdate(*V, "      ", "fs_i") << "    }\n  }\n}\n"
     << "} // namespace\n\n";
  OS << emitLauncherHead(*V, Opts, 0);
  OS << "  const dim3 fs_block(" << BX << ", "
     << (ThreeD ? BMid : BSlow) << ", " << (ThreeD ? BSlow : 1) << ");\n"
     << "  const unsigned fs_gx = fs_blocks(fs_hi[0] - fs_lo[0], " << BX
     << ", 2147483647LL);\n"
     << "  const unsigned fs_gm = fs_blocks(fs_hi[1] - fs_lo[1], " << BMid
     << ", 65535);\n"
     << "  const unsigned fs_gs = fs_blocks(fs_hi[2] - fs_lo[2], " << BSlow
     << ", 65535);\n"
     << "  const dim3 fs_grid = " << (ThreeD ? "dim3(fs_gx, fs_gm, fs_gs)"
                                              : "dim3(fs_gx, fs_gs, 1)")
     << ";\n"
     << emitIndexWidthLaunch(*V, Opts.LauncherName + "_kernel");
  Out.Source = OS.str();
  return Out;
}

} // namespace forge
} // namespace forgestencil

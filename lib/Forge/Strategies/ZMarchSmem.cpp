//===- ZMarchSmem.cpp - 2.5-D streaming with a shared-memory plane ---------===//

#include "ZMarchSmem.h"

#include "forgestencil/Forge/CodeGen.h"

#include <map>
#include <sstream>

namespace forgestencil {
namespace forge {

namespace {

using ir::Offset;


bool isCentre(const Offset &O) { return O[0] == 0 && O[1] == 0; }

/// Halo of the tile of one array: how far left/right/below/above it reaches.
struct Halo {
  int X0 = 0, X1 = 0, Y0 = 0, Y1 = 0;
};

/// Arrays read at xy neighbours, each with its tile's halo.
std::map<std::string, Halo> tiledArrays(const StencilView &V) {
  std::map<std::string, Halo> Tiles;
  for (const StencilView::Array &A : V.arrays())
    for (const Offset &O : A.Offsets) {
      if (isCentre(O))
        continue;
      Halo &H = Tiles[A.Name];
      H.X0 = std::max(H.X0, -O[0]);
      H.X1 = std::max(H.X1, O[0]);
      H.Y0 = std::max(H.Y0, -O[1]);
      H.Y1 = std::max(H.Y1, O[1]);
    }
  return Tiles;
}

/// True when every tiled array is read in the plane along the axes only
/// (a star: no corner of the tile is ever read) and the block is at least
/// as large as the halo: then each thread stores its own point and edge
/// threads the halo, with no division and no corner.
bool edgeFill(const std::map<std::string, Halo> &Tiles,
              const std::vector<StencilView::Array> &Arrays, unsigned BX,
              unsigned BY) {
  for (const StencilView::Array &A : Arrays) {
    auto It = Tiles.find(A.Name);
    if (It == Tiles.end())
      continue;
    const Halo &H = It->second;
    if (std::max(H.X0, H.X1) > static_cast<int>(BX) ||
        std::max(H.Y0, H.Y1) > static_cast<int>(BY))
      return false;
    for (const Offset &O : A.Offsets)
      if (O[0] != 0 && O[1] != 0)
        return false;
  }
  return true;
}

/// The value of array A at the thread's own point of the current plane: the
/// register queue's when it holds that plane, else a load.
template <typename QueueMap, typename QVarFn>
std::string ownCell(const StencilView &V, const std::string &A,
                    const QueueMap &Queue, const QVarFn &QVar) {
  auto It = Queue.find(A);
  if (It != Queue.end() && It->second.first <= 0 && It->second.second >= 0)
    return QVar(A, 0);
  return emitLoad(V, A, V.elementType(), A + " + fs_p");
}

/// Stores the tile of A for a star: own points, then the rows above and
/// below and the columns left and right of the block, each only where the
/// original reads it (never a corner).
std::string fillByEdges(const StencilView &V, const std::string &A,
                        const Halo &H, unsigned BX, unsigned BY,
                        const std::string &Own) {
  std::ostringstream OS;
  const std::string T = V.elementType();
  auto Load = [&](const std::string &Dx, const std::string &Dy) {
    return emitLoad(V, A, T,
                    A + " + fs_p + (" + Dx + ") * s0 + (" + Dy + ") * s1");
  };
  const std::string Tile = "t_" + A;
  const std::string X0 = std::to_string(H.X0), Y0 = std::to_string(H.Y0);
  OS << "        if (fs_in)\n"
     << "          " << Tile << "[ty + " << Y0 << "][tx + " << X0
     << "] = " << Own << ";\n"
     << "        else if ((x < hi0 + " << H.X1 << " && y < hi1) || (x < hi0 && y < hi1 + "
     << H.Y1 << "))\n"
     << "          " << Tile << "[ty + " << Y0 << "][tx + " << X0
     << "] = " << emitLoad(V, A, T, A + " + fs_p") << ";\n";
  if (H.Y0)
    OS << "        if (ty < " << H.Y0 << " && x < hi0)\n"
       << "          " << Tile << "[ty][tx + " << X0
       << "] = " << Load("0", "-" + Y0) << ";\n";
  if (H.Y1)
    OS << "        if (ty < " << H.Y1 << " && x < hi0 && y + " << BY
       << " < hi1 + " << H.Y1 << ")\n"
       << "          " << Tile << "[ty + " << BY + H.Y0 << "][tx + " << X0
       << "] = " << Load("0", std::to_string(BY)) << ";\n";
  if (H.X0)
    OS << "        if (tx < " << H.X0 << " && y < hi1)\n"
       << "          " << Tile << "[ty + " << Y0 << "][tx] = "
       << Load("-" + X0, "0") << ";\n";
  if (H.X1)
    OS << "        if (tx < " << H.X1 << " && y < hi1 && x + " << BX
       << " < hi0 + " << H.X1 << ")\n"
       << "          " << Tile << "[ty + " << Y0 << "][tx + " << BX + H.X0
       << "] = " << Load(std::to_string(BX), "0") << ";\n";
  return OS.str();
}

} // namespace

std::string ZMarchSmemStrategy::whyNot(const ir::StencilIR &IR) const {
  std::string Error;
  auto V = StencilView::create(IR, Error);
  if (!V)
    return Error;
  if (IR.Dims != 3)
    return "the shared-memory plane needs three dimensions";
  for (const StencilView::Array &A : V->arrays())
    for (const Offset &O : A.Offsets)
      if (!isCentre(O) && (O[2] != 0 || !A.readOnly()))
        return "array '" + A.Name +
               "' is read at xy neighbours outside the current plane or is "
               "also written";
  return "";
}

std::vector<StrategyParams>
ZMarchSmemStrategy::searchSpace(const ir::StencilIR &IR) const {
  std::vector<StrategyParams> Space;
  auto Add = [&](unsigned BX, unsigned BY, unsigned ZC) {
    StrategyParams P = searchPoint(name(), BX, BY, 1, 1, ZC);
    P.RegisterQueue = true;
    P.SharedTile = true;
    Space.push_back(P);
  };
  Add(32, 8, 32);
  Add(32, 16, 64);
  Add(64, 8, 32);
  Add(32, 16, 32);
  Add(64, 4, 32);
  Add(32, 32, 64);
  Add(128, 4, 32);
  return Space;
}

GeneratedSource ZMarchSmemStrategy::emit(const ir::StencilIR &IR,
                                         const StrategyParams &P,
                                         const GenerateOptions &Opts) const {
  GeneratedSource Out;
  Out.Error = whyNot(IR);
  if (!Out.ok())
    return Out;
  if (P.BlockX * P.BlockY > 1024 || P.BlockZ != 1 || P.VectorWidth != 1 ||
      P.PointsY != 1) {
    Out.Error = "zmarch_smem takes a (x, y, 1) block of at most 1024 threads, "
                "one point per thread";
    return Out;
  }
  auto V = StencilView::create(IR, Out.Error);
  const std::string T = V->elementType();
  const unsigned BX = P.BlockX, BY = P.BlockY, ZC = P.ZChunk;
  auto Tiles = tiledArrays(*V);
  // Centre-column planes per array, kept in registers.
  std::map<std::string, std::pair<int, int>> Queue;
  for (const StencilView::Array &A : V->arrays())
    for (const Offset &O : A.Offsets) {
      if (!isCentre(O))
        continue;
      auto It = Queue.find(A.Name);
      if (It == Queue.end())
        Queue[A.Name] = {O[2], O[2]};
      else
        It->second = {std::min(It->second.first, O[2]),
                      std::max(It->second.second, O[2])};
    }
  auto QVar = [](const std::string &A, int D) {
    return "q_" + A + "_" + signedTag(D);
  };

  std::ostringstream OS;
  OS << emitFilePrologue(IR, P) << emitConstants(*V, Opts) << "namespace {\n";
  OS << "template <typename Idx>\n__global__ void __launch_bounds__("
     << BX * BY << ")\n" << Opts.LauncherName << "_kernel(" << kernelParams(*V, "Idx") << ") {\n";
  for (auto &[A, H] : Tiles)
    OS << "  __shared__ " << T << " t_" << A << "[" << BY + H.Y0 + H.Y1
       << "][" << BX + H.X0 + H.X1 << "];\n";
  OS << "  const int tx = threadIdx.x, ty = threadIdx.y;\n"
     << "  const Idx x = lo0 + (Idx)blockIdx.x * " << BX << " + tx;\n"
     << "  // Every thread stays to the end: all of them fill the tiles.\n"
     << "  for (Idx bs = blockIdx.z; lo2 + bs * " << ZC
     << " < hi2; bs += gridDim.z) {\n"
     << "    const Idx zs = lo2 + bs * " << ZC << ";\n"
     << "    const Idx ze = zs + " << ZC << " < hi2 ? zs + " << ZC
     << " : hi2;\n"
     << "    for (Idx bm = blockIdx.y; lo1 + bm * " << BY
     << " < hi1; bm += gridDim.y) {\n"
     << "      const Idx y = lo1 + bm * " << BY << " + ty;\n"
     << "      const bool fs_in = x < hi0 && y < hi1;\n"
     << "      const Idx fs_b = x * s0 + y * s1;\n";
  for (auto &[A, R] : Queue) {
    OS << "      " << T << " ";
    for (int D = R.first; D <= R.second; ++D)
      OS << (D == R.first ? "" : ", ") << QVar(A, D) << " = 0";
    OS << ";\n";
    OS << "      if (fs_in) {\n";
    for (int D = R.first; D < R.second; ++D)
      OS << "        " << QVar(A, D) << " = "
         << emitLoad(*V, A, T,
                     A + " + fs_b + (zs + (" + std::to_string(D) + ")) * s2")
         << ";\n";
    OS << "      }\n";
  }
  OS << "      #pragma unroll 1\n"
     << "      for (Idx z = zs; z < ze; ++z) {\n"
     << "        const Idx fs_p = fs_b + z * s2;\n"
     << "        if (fs_in) {\n";
  for (auto &[A, R] : Queue)
    OS << "          " << QVar(A, R.second) << " = "
       << emitLoad(*V, A, T,
                   A + " + fs_p + (" + std::to_string(R.second) + ") * s2")
       << ";\n";
  OS << "        }\n"
     << "        __syncthreads(); // the previous plane is no longer read\n";
  const bool Edges = edgeFill(Tiles, V->arrays(), BX, BY);
  for (auto &[A, H] : Tiles) {
    if (Edges) {
      OS << fillByEdges(*V, A, H, BX, BY, ownCell(*V, A, Queue, QVar));
      continue;
    }
    unsigned W = BX + H.X0 + H.X1, Hh = BY + H.Y0 + H.Y1;
    OS << "        for (int fs_c = ty * " << BX << " + tx; fs_c < " << W * Hh
       << "; fs_c += " << BX * BY << ") {\n"
       << "          const int fs_cy = fs_c / " << W << ", fs_cx = fs_c % "
       << W << ";\n"
       << "          const Idx gx = lo0 + (Idx)blockIdx.x * " << BX
       << " + fs_cx - " << H.X0 << ";\n"
       << "          const Idx gy = lo1 + bm * " << BY << " + fs_cy - "
       << H.Y0 << ";\n"
       << "          if (gx >= lo0 - " << H.X0 << " && gx < hi0 + " << H.X1
       << " && gy >= lo1 - " << H.Y0 << " && gy < hi1 + " << H.Y1 << ")\n"
       << "            t_" << A << "[fs_cy][fs_cx] = "
       << emitLoad(*V, A, T, A + " + gx * s0 + gy * s1 + z * s2") << ";\n"
       << "        }\n";
  }
  OS << "        __syncthreads();\n"
     << "        if (fs_in) {\n";
  auto Read = [&](const std::string &Name, const Offset &IROff) {
    Offset O = V->toView(IROff);
    if (isCentre(O))
      return QVar(Name, O[2]);
    const Halo &H = Tiles.at(Name);
    return "t_" + Name + "[ty + " + std::to_string(H.Y0 + O[1]) + "][tx + " +
           std::to_string(H.X0 + O[0]) + "]";
  };
  for (size_t U = 0; U < IR.Updates.size(); ++U) {
    const ir::Update &Up = IR.Updates[U];
    std::string Value = emitExpr(Up.Value, Read, &IR);
    if (Up.Accumulate) {
      Offset W = V->writeOffset(Up.Target);
      Value = "(" + QVar(Up.Target, W[2]) + " + " + Value + ")";
    }
    OS << "          const " << T << " fs_u" << U << " = " << Value << ";\n";
  }
  for (size_t U = 0; U < IR.Updates.size(); ++U) {
    const ir::Update &Up = IR.Updates[U];
    Offset W = V->writeOffset(Up.Target);
    std::string Addr = "fs_p";
    for (int A = 0; A < 3; ++A)
      if (W[A])
        Addr += " + (" + std::to_string(W[A]) + ") * s" + std::to_string(A);
    OS << "          " << Up.Target << "[" << Addr << "] = fs_u" << U
       << ";\n";
  }
  for (auto &[A, R] : Queue)
    for (int D = R.first; D < R.second; ++D)
      OS << "          " << QVar(A, D) << " = " << QVar(A, D + 1) << ";\n";
  OS << "        }\n      }\n    }\n  }\n}\n} // namespace\n\n";
  OS << emitLauncherHead(*V, Opts, 0)
     << "  const dim3 fs_block(" << BX << ", " << BY << ", 1);\n"
     << "  const dim3 fs_grid(fs_blocks(fs_hi[0] - fs_lo[0], " << BX
     << ", 2147483647LL), fs_blocks(fs_hi[1] - fs_lo[1], " << BY
     << ", 65535), fs_blocks(fs_hi[2] - fs_lo[2], " << ZC << ", 65535));\n"
     << emitIndexWidthLaunch(*V, Opts.LauncherName + "_kernel");
  Out.Source = OS.str();
  return Out;
}

} // namespace forge
} // namespace forgestencil

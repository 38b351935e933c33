//===- Positions.cpp - Grid positions formed from the launch indices ------===//
//
// How a kernel forms its grid position from threadIdx, blockIdx and
// blockDim: blockIdx.D * blockDim.D + threadIdx.D (the global symbol @gD),
// blockIdx.D * B + threadIdx.D with a constant B, blockIdx.B * blockDim.T +
// threadIdx.T across dimensions (@gTB), and either index alone (@gT-,
// @g-B), the last taken as positions by a second reading of the kernel
// (StencilAnalysis.cpp).
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

#include <algorithm>
#include <map>

namespace forgestencil {
namespace analysis {
namespace detail {

/// Folds blockIdx.A*blockDim.A + threadIdx.A into the global symbol @gA.
/// blockIdx.A*B + threadIdx.A with a constant B folds too (the kernel then
/// assumes blockDim.A == B); BlockSizes records B.
/// blockIdx.B*blockDim.A + threadIdx.A with B another dimension than A (a
/// block row of threads along y, numbered by blockIdx.x) folds into @gAB,
/// one position variable whose launch covers gridDim.B * blockDim.A points.
Poly foldGlobalThread(Poly P, std::map<int, int64_t> *BlockSizes,
                      const std::map<int, BlockLoopDim> *LoopDims) {
  for (int D = 0; D < 3 && LoopDims && BlockSizes; ++D) {
    auto B = BlockSizes->find(D);
    if (!LoopDims->count(D) || B == BlockSizes->end())
      continue;
    const std::string T(1, "xyz"[D]);
    const int64_t CT = P.coefficient({"tid." + T});
    if (CT <= 0)
      continue;
    for (int E = 0; E < 3; ++E) {
      const std::string Bd(1, "xyz"[E]);
      if (E == D || P.coefficient({"bid." + Bd}) != CT * B->second)
        continue;
      P = P - Poly::constant(CT * B->second) * Poly::symbol("bid." + Bd) -
          Poly::constant(CT) * Poly::symbol("tid." + T) +
          Poly::constant(CT) * Poly::symbol(mixedPosition(D, E));
      break;
    }
  }
  for (int D = 0; D < 3; ++D) {
    std::string T(1, "xyz"[D]);
    const int64_t CT = P.coefficient({"tid." + T});
    Monomial Usual = {"bdim." + T, "bid." + T};
    std::sort(Usual.begin(), Usual.end());
    if (CT <= 0 || P.coefficient(Usual) != 0)
      continue;
    for (int E = 0; E < 3; ++E) {
      std::string B(1, "xyz"[E]);
      Monomial Mixed = {"bdim." + T, "bid." + B};
      std::sort(Mixed.begin(), Mixed.end());
      if (E == D || P.coefficient(Mixed) != CT)
        continue;
      Poly Both = Poly::symbol("bid." + B) * Poly::symbol("bdim." + T) +
                  Poly::symbol("tid." + T);
      P = P - Poly::constant(CT) * Both +
          Poly::constant(CT) * Poly::symbol(mixedPosition(D, E));
      break;
    }
  }
  for (int D = 0; D < 3 && BlockSizes; ++D) {
    std::string Ax(1, "xyz"[D]);
    int64_t CB = P.coefficient({"bid." + Ax});
    int64_t CT = P.coefficient({"tid." + Ax});
    if (CT <= 0 || CB <= CT || CB % CT != 0)
      continue;
    auto It = BlockSizes->find(D);
    if (It != BlockSizes->end() && It->second != CB / CT)
      continue;
    (*BlockSizes)[D] = CB / CT;
    Poly Both = Poly::constant(CB) * Poly::symbol("bid." + Ax) +
                Poly::constant(CT) * Poly::symbol("tid." + Ax);
    P = P - Both + Poly::constant(CT) * Poly::symbol(GlobalThread[D]);
  }
  for (int D = 0; D < 3; ++D) {
    std::string Ax(1, "xyz"[D]);
    Monomial BB = {"bdim." + Ax, "bid." + Ax};
    std::sort(BB.begin(), BB.end());
    int64_t CB = P.coefficient(BB);
    int64_t CT = P.coefficient({"tid." + Ax});
    int64_t C = std::min(CB, CT);
    if (CB > 0 && CT > 0 && CB == CT) {
      Poly Both = Poly::symbol("bid." + Ax) * Poly::symbol("bdim." + Ax) +
                  Poly::symbol("tid." + Ax);
      P = P - Poly::constant(C) * Both + Poly::constant(C) * Poly::symbol(GlobalThread[D]);
    }
  }
  return P;
}

std::set<int> Interpreter::blockSizesWanted() const {
  std::set<int> W;
  for (int D : BlockSizeWanted)
    if (!BlockSizes.count(D))
      W.insert(D);
  return W;
}

std::set<std::string> Interpreter::lonePositionIndices() const {
  std::set<std::string> Out;
  if (Writes.empty())
    return Out;
  const Poly &Index = Writes.front().Index;
  // A builtin multiplied by another is no position by itself (blockIdx.x
  // * blockDim.x without threadIdx.x); one multiplied by a row length
  // (blockIdx.x * nx) is.
  auto Builtin = [](const std::string &S) {
    return S.rfind("tid.", 0) == 0 || S.rfind("bid.", 0) == 0 ||
           S.rfind("bdim.", 0) == 0 || S.rfind("gdim.", 0) == 0;
  };
  std::set<std::string> InProducts;
  for (const auto &[M, C] : Index.terms())
    if (std::count_if(M.begin(), M.end(), Builtin) > 1)
      InProducts.insert(M.begin(), M.end());
  // blockIdx.D * B + threadIdx.D folded with a block size B this run
  // inferred from the index's coefficients alone (k * nx * ny + j * nx
  // with k = blockIdx.y and j = threadIdx.y gives B = ny): the two may be
  // positions of their own instead.
  // So may a block-stride loop's, whose block size is the run's own.
  for (const auto &[D, B] : BlockSizes)
    if ((!GivenBlockSizes.count(D) || BlockLoops.count(D)) &&
        Index.mentions(GlobalThread[D])) {
      Out.insert(std::string("tid.") + char('x' + D));
      Out.insert(std::string("bid.") + char('x' + D));
    }
  for (int D = 0; D < 3; ++D) {
    const std::string Tid = std::string("tid.") + char('x' + D);
    const std::string Bid = std::string("bid.") + char('x' + D);
    const bool T = Index.mentions(Tid) && !InProducts.count(Tid);
    const bool B = Index.mentions(Bid) && !InProducts.count(Bid);
    // Both, unfolded (j * n + i with j = blockIdx.x, i = threadIdx.x): a
    // row per block, each a position of its own.
    if (T)
      Out.insert(Tid);
    if (B)
      Out.insert(Bid);
  }
  return Out;
}

std::string positionsSharingAComponent(const std::vector<std::string> &Syms) {
  std::map<std::string, std::string> Owner;
  for (const std::string &S : Syms) {
    if (S.rfind("@g", 0) != 0 || S.size() < 3)
      continue;
    const char T = S[2], B = S.size() == 4 ? S[3] : S[2];
    for (const std::string &Part :
         {T == '-' ? std::string() : std::string("threadIdx.") + T,
          B == '-' ? std::string() : std::string("blockIdx.") + B}) {
      if (Part.empty())
        continue;
      auto [It, New] = Owner.emplace(Part, S);
      if (!New)
        return "two position variables of the store index (" + It->second +
               ", " + S + ") are both formed from " + Part;
    }
  }
  return "";
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

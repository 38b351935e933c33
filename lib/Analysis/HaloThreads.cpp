//===- HaloThreads.cpp - Blocks whose edge threads only load the tile ------===//
//
// The textbook shared-memory stencil gives each block one thread per element
// of its tile, halo included, and lets only the inner threads compute:
//
//   i = blockIdx.x * OUT_TILE + threadIdx.x - 1;          // block: OUT_TILE + 2
//   tile[threadIdx.y][threadIdx.x] = in[j * nx + i];      // every thread loads
//   __syncthreads();
//   if (threadIdx.x >= 1 && threadIdx.x < IN_TILE - 1 && ...)
//     out[j * nx + i] = ... tile[threadIdx.y][threadIdx.x - 1] ...;
//
// Blocks overlap by their halo threads, so the usual reading (one point per
// thread, blockDim points a block) does not hold. A run with halo threads
// along a dimension (from a launch whose block has more threads than the
// kernel indexes blocks by) numbers the computing threads from 0: threadIdx
// is tid + First, the position folds as for a block of Points threads, the
// tile's stores are run by all Threads threads (from -First) and its reads
// by the computing ones. A store to global memory is taken only under a
// condition that holds exactly for the computing threads (or after a
// return that only the others take); anywhere else the halo threads would
// store too. The IR states the block (a block-dim assumption of Threads,
// the launcher checks it) and the points it covers (the axis's
// block_points and block_first).
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

namespace forgestencil {
namespace analysis {
namespace detail {

bool Interpreter::haloComputes(const ThreadPos &T) const {
  for (const auto &[D, H] : Halo)
    if (T[D] < 0 || T[D] >= H.Points)
      return false;
  return true;
}

void Interpreter::blockRange(ThreadPos &Lo, ThreadPos &Hi,
                             bool Readers) const {
  for (int D = 0; D < 3; ++D) {
    Lo[D] = 0;
    auto It = BlockSizes.find(D);
    Hi[D] = It == BlockSizes.end() ? 1 : It->second;
    auto H = Halo.find(D);
    if (H == Halo.end() || Readers)
      continue;
    Lo[D] = -H->second.First;
    Hi[D] = H->second.Threads - H->second.First;
  }
}

std::optional<bool>
Interpreter::selectsComputingThreads(const ThreadCond &Raw) {
  if (Halo.empty())
    return std::nullopt;
  // Decided on numbers: the named constants (IN_TILE) resolved.
  const ThreadCond Cond = resolvedCond(Raw);
  ThreadPos Lo, Hi;
  blockRange(Lo, Hi, /*Readers=*/false);
  if ((Hi[0] - Lo[0]) * (Hi[1] - Lo[1]) * (Hi[2] - Lo[2]) > 4096)
    return std::nullopt;
  bool Same = true, Opposite = true;
  ThreadPos T;
  for (T[2] = Lo[2]; T[2] < Hi[2]; ++T[2])
    for (T[1] = Lo[1]; T[1] < Hi[1]; ++T[1])
      for (T[0] = Lo[0]; T[0] < Hi[0]; ++T[0]) {
        std::optional<bool> V = holdsAt(Cond, T, BlockSizes, ThreadFns);
        if (!V)
          return std::nullopt;
        const bool Computes = haloComputes(T);
        Same = Same && *V == Computes;
        Opposite = Opposite && *V != Computes;
      }
  if (Same)
    return true;
  if (Opposite)
    return false;
  return std::nullopt;
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

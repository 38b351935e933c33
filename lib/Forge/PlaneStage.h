//===- PlaneStage.h - Planes copied ahead into shared memory ---------------===//
///
/// \file
/// Staging for the column strategies (`.aN` variants of zmarch and zsum).
/// A block marches through its run of planes in lockstep. For every
/// read-only array that its threads read at xy neighbours, the block's tile
/// of a plane (its columns and rows plus the halo the reads reach) is copied
/// into a ring of shared-memory slots with asynchronous copies (cp.async,
/// sm_80 and later) N steps before it is read, so N planes of loads are in
/// flight without holding a register. Threads then read their neighbours
/// from the ring instead of through L1, and every tile is fetched from L2
/// once per block.
///
/// One step of the block (cur is the plane index the step is at):
///   1. wait until the copies of the planes this step reads have landed
///      (all but the N-1 youngest groups), then __syncthreads: every
///      thread's copies are visible and no thread still reads the slot the
///      next copy overwrites;
///   2. start copying plane cur + hi + N into that slot (one commit group
///      per step, empty when the plane is past the last one read);
///   3. compute from the ring.
/// A run starts by copying its first planes and ends by waiting for all
/// copies and a barrier, so the next run may reuse the slots.
///
/// Copies never touch memory the original kernel does not span: a chunk is
/// copied only when it lies within [lowest, highest] flat index the original
/// reads of that array (computed by the launcher from the domain and the
/// read offsets); chunks outside are never read by a thread. The staged
/// kernel runs only when both ends of every span fall on chunk boundaries
/// (as for arrays whose rows are a multiple of VW long and reads that reach
/// the array's first and last rows); otherwise the launcher takes the
/// one-point-wide kernel, as for unaligned arrays.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_FORGE_PLANESTAGE_H
#define FORGESTENCIL_LIB_FORGE_PLANESTAGE_H

#include "forgestencil/Forge/Strategy.h"

#include <map>
#include <string>

namespace forgestencil {
namespace forge {

class StencilView;

class PlaneStage {
public:
  /// Staging with P.Stages planes ahead for a block of P.BlockX x P.BlockY
  /// threads, each owning VW consecutive points of one row.
  PlaneStage(const StencilView &V, const StrategyParams &P, unsigned VW);

  /// The thread reads chunk \p Column (in VW-wide vectors from its own) of
  /// \p Row (relative to its row) of plane \p Plane (relative to the step's)
  /// of \p Array from the ring. Call for every such read before emitting.
  void add(const std::string &Array, int Row, int Plane, int Column);
  bool has(const std::string &Array) const { return Rings.count(Array); }
  bool empty() const { return Rings.empty(); }

  /// Bytes of shared memory per block.
  unsigned sharedBytes() const;

  /// Extra kernel parameters (each array's span) and the matching launch
  /// arguments; the launcher computes them with launcherSpans().
  std::string kernelParams() const;
  std::string launchArgs() const;
  std::string launcherSpans() const;
  /// The launcher's condition for the staged kernel: every span starts and
  /// ends on a chunk boundary, and the tiles' indices, which reach up to a
  /// tile beyond the domain's reads, fit in int.
  std::string launchCondition() const;

  /// Kernel-scope declarations: the rings and each thread's copy slots.
  /// Needs `Idx s1` in scope.
  std::string declare(const std::string &In) const;
  /// At the start of a run: the tile's origin and the copies of the first
  /// planes. \p Cur is the step variable's first value, \p Last the last
  /// value it takes; in scope: `fs_xa`, `lo1`, `bm`, `s0`..`s2`.
  std::string runStart(const std::string &In, const std::string &Cur,
                       const std::string &Last) const;
  /// The head of every step at \p Cur (see the file comment).
  std::string stepStart(const std::string &In, const std::string &Cur) const;
  /// After the last step of a run.
  std::string runEnd(const std::string &In) const;
  /// The expression reading a chunk: the whole vector, or with
  /// \p Component >= 0 that element of it.
  std::string read(const std::string &Array, int Row, int Plane, int Column,
                   int Component = -1) const;

  /// Device and host helpers, defined once per translation unit.
  static std::string helpers();

private:
  struct Ring {
    int PlaneLo = 0, PlaneHi = 0, RowLo = 0, RowHi = 0, ColLo = 0, ColHi = 0;
  };
  const StencilView &V;
  const StrategyParams &P;
  unsigned VW;
  std::map<std::string, Ring> Rings;

  /// Slots per ring: every ring covers the same planes (the union of the
  /// arrays'), so one commit group per step serves all of them.
  unsigned slots() const;
  unsigned rows(const Ring &R) const;
  unsigned chunks(const Ring &R) const;
  /// Copies per thread and plane for R's tile.
  unsigned copiesPerThread(const Ring &R) const;
  std::string copyPlane(const std::string &In, const std::string &A,
                        const Ring &R, const std::string &Plane,
                        const std::string &Slot) const;
};

} // namespace forge
} // namespace forgestencil

#endif

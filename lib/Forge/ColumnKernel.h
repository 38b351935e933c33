//===- ColumnKernel.h - Points per thread, streamed along z ----------------===//
///
/// \file
/// The code generator behind the `zmarch` and `multipoint` strategies. Each
/// thread owns VectorWidth consecutive points along the contiguous axis,
/// PointsY along the middle axis, and ZChunk along the slowest axis, which it
/// visits in order. With a register queue the centre column's values along
/// the slowest axis stay in registers (one new plane loaded per step);
/// every other read is a vector load through the read-only cache. Whole
/// groups start at aligned columns; the few columns before the first and
/// after the last are computed one point wide by a block column of their
/// own, so that no warp runs both paths, or (StrategyParams::MaskedEdges)
/// by the vector path of the groups they cut, whose stores are masked
/// (columnOffset, columnStore). Row groups cut by the domain's
/// edge go point by point, and arrays whose alignment does not allow
/// vectors take a one-point-wide kernel, with the same arithmetic.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_FORGE_COLUMNKERNEL_H
#define FORGESTENCIL_LIB_FORGE_COLUMNKERNEL_H

#include "forgestencil/Forge/Strategy.h"

#include <functional>
#include <string>
#include <vector>

namespace forgestencil {
namespace forge {

class StencilView;

class PlaneStage;

/// Emits the loop over the slowest axis for one whole group of points (the
/// "fast path"), at indentation In. In scope: `x0`, `y0` (the group's first
/// point), `zs`, `ze` (the planes to compute), `Idx`, the kernel's
/// parameters and `fs_b`-style locals are the emitter's own. Strategies that
/// share the column mapping but compute a group differently pass their own.
/// With \p Stage (staged variants), the whole block runs the loop in
/// lockstep, reads what the stage holds from it, and computes and stores
/// only where `fs_act` (the thread owns a whole group).
using GroupEmitter = std::function<std::string(
    const StencilView &V, const StrategyParams &P, unsigned VectorWidth,
    const std::string &In, const PlaneStage *Stage)>;
/// Tells \p Stage every read of a group that the ring serves.
using StageCollector =
    std::function<void(const StencilView &V, const StrategyParams &P,
                       unsigned VectorWidth, PlaneStage &Stage)>;

/// How a strategy uses the column generator.
struct ColumnOptions {
  /// Computes whole groups instead of the register-queue / multipoint body;
  /// the mapping of threads to groups, the per-point path for groups on the
  /// domain's edge, the scalar kernel for unaligned arrays and the launcher
  /// stay the same.
  GroupEmitter Group;
  /// With P.Stages and a custom Group: the reads the ring of the
  /// whole-group kernel serves (the default body stages every read-only
  /// array it reads at xy neighbours).
  StageCollector Collect;
  /// Runs of at least this many planes (ZChunk) give the vector groups cut
  /// by the domain's edge along x a block column of their own. Over a long
  /// run, a cut group in a warp of whole ones would make the warp run the
  /// per-point path for every plane after the vector one (the 27-point box
  /// at 512^3 on the H200: 54% of copy bandwidth against 72% with the block
  /// column); over a plane or two the extra block column costs more than it
  /// saves (the FDTD E update: 107% against 87%).
  unsigned EdgeColumnPlanes = 8;
};

/// With P.MaskedEdges and vectors (VectorWidth > 1): the offset along x,
/// times s0, of the Width elements from Elem of the thread's group at x0; a
/// chunk that leaves the row [0, extent) is read at the group itself
/// instead (its values then feed only points outside the domain, which are
/// not stored). Otherwise `(Elem) * s0`.
std::string columnOffset(const StencilView &V, const StrategyParams &P,
                         unsigned VectorWidth, int Elem, unsigned Width);

/// The store of one row of a group's values (Parts, one per lane) to
/// Target + Offset: one vector store, or with P.MaskedEdges the lanes
/// inside [lo0, hi0) one by one when the group is cut (`fs_xwhole` false).
std::string columnStore(const StencilView &V, const StrategyParams &P,
                        unsigned VectorWidth, const std::string &In,
                        const std::string &Target, const std::string &Offset,
                        const std::vector<std::string> &Parts);

/// The whole file: kernels and launcher.
GeneratedSource generateColumnSource(const ir::StencilIR &IR,
                                     const StrategyParams &P,
                                     const GenerateOptions &Opts,
                                     const ColumnOptions &Column = {});

} // namespace forge
} // namespace forgestencil

#endif

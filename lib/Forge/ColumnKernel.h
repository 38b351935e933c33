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
/// own, so that no warp runs both paths. Row groups cut by the domain's
/// edge go point by point, and arrays whose alignment does not allow
/// vectors take a one-point-wide kernel, with the same arithmetic.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_FORGE_COLUMNKERNEL_H
#define FORGESTENCIL_LIB_FORGE_COLUMNKERNEL_H

#include "forgestencil/Forge/Strategy.h"

#include <functional>
#include <string>

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

/// Why P cannot be generated for IR with the column generator, or "".
std::string columnWhyNot(const ir::StencilIR &IR, const StrategyParams &P);

/// The whole file: kernels and launcher. With \p Group, whole groups are
/// computed by it instead of the register-queue / multipoint body; the
/// mapping of threads to groups, the per-point path for groups on the
/// domain's edge, the scalar kernel for unaligned arrays and the launcher
/// stay the same. With P.Stages, \p Collect names the reads the ring of
/// the whole-group kernel serves (with a custom \p Group; the default body
/// stages every read-only array it reads at xy neighbours).
GeneratedSource generateColumnSource(const ir::StencilIR &IR,
                                     const StrategyParams &P,
                                     const GenerateOptions &Opts,
                                     const GroupEmitter &Group = nullptr,
                                     const StageCollector &Collect = nullptr);

} // namespace forge
} // namespace forgestencil

#endif

//===- ColumnKernel.h - Points per thread, streamed along z ----------------===//
///
/// \file
/// The code generator behind the `zmarch` and `multipoint` strategies. Each
/// thread owns VectorWidth consecutive points along the contiguous axis,
/// PointsY along the middle axis, and ZChunk along the slowest axis, which it
/// visits in order. With a register queue the centre column's values along
/// the slowest axis stay in registers (one new plane loaded per step);
/// every other read is a vector load through the read-only cache. Groups
/// that straddle the domain's edge, and arrays whose alignment does not
/// allow vectors, take a per-point path with the same arithmetic.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_FORGE_COLUMNKERNEL_H
#define FORGESTENCIL_LIB_FORGE_COLUMNKERNEL_H

#include "forgestencil/Forge/Strategy.h"

namespace forgestencil {
namespace forge {

/// Why P cannot be generated for IR with the column generator, or "".
std::string columnWhyNot(const ir::StencilIR &IR, const StrategyParams &P);

/// The whole file: kernels and launcher.
GeneratedSource generateColumnSource(const ir::StencilIR &IR,
                                     const StrategyParams &P,
                                     const GenerateOptions &Opts);

} // namespace forge
} // namespace forgestencil

#endif

//===- CudaBuiltins.h - threadIdx, blockIdx, blockDim, gridDim -*- C++ -*-===//
///
/// \file
/// Recognises a read of one axis of the CUDA index builtins in clang's AST,
/// where `threadIdx.x` is a property reference wrapped in a pseudo-object
/// expression, and the same values read through cooperative groups
/// (`block.thread_index().x`, `block.group_index().y`, `block.group_dim().z`).
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_ANALYSIS_CUDABUILTINS_H
#define FORGESTENCIL_ANALYSIS_CUDABUILTINS_H

#include "clang/AST/Expr.h"

#include <optional>

namespace forgestencil {
namespace analysis {

enum class CudaBuiltin { ThreadIdx, BlockIdx, BlockDim, GridDim };

struct CudaBuiltinRef {
  CudaBuiltin Var;
  int Axis; ///< 0 for x, 1 for y, 2 for z.
  bool operator==(const CudaBuiltinRef &O) const {
    return Var == O.Var && Axis == O.Axis;
  }
  bool operator!=(const CudaBuiltinRef &O) const { return !(*this == O); }
};

/// "threadIdx", "blockIdx", "blockDim" or "gridDim".
const char *cudaBuiltinName(CudaBuiltin B);

/// The builtin and axis \p E reads (past parentheses and implicit casts),
/// or none. Cooperative groups: thread_block's group_index() (blockIdx),
/// thread_index() (threadIdx), group_dim() and dim_threads() (blockDim);
/// grid_group's block_index() (blockIdx) and dim_blocks() (gridDim).
std::optional<CudaBuiltinRef> cudaBuiltinRef(const clang::Expr *E);

/// Whether \p C is a barrier of the thread block: __syncthreads(),
/// __barrier_sync(0), or cooperative groups' thread_block::sync(),
/// cooperative_groups::sync(block) and this_thread_block().sync(). Not the
/// grid's (grid_group::sync(), a barrier across blocks).
bool isBlockBarrier(const clang::CallExpr *C);

} // namespace analysis
} // namespace forgestencil

#endif

//===- BlockLoops.h - Loops that spread points over the block's threads ---===//
///
/// \file
/// Internal to lib/Analysis. A kernel may cover its rows by loops that step
/// by the block's size, whatever that size is:
///
///     for (int j = threadIdx.y; j < 64; j += blockDim.y) { ... }
///
/// (NVIDIA's finite-difference pencils, launched with 8 or 4 rows of
/// threads for 32 or 64 rows of points). Every j in [0, 64) is handled once
/// by some thread of the block for any blockDim.y >= 1, so such a kernel
/// computes the same with a block of 64 threads along y running each body
/// once: the analysis reads it so (a "virtual" block, the launch's real size
/// unknown or smaller), and the IR says the block covers 64 points by loops
/// (Axis::BlockLoop) and how many threads along y the rest of the kernel
/// needs (a block-dim-at-least assumption: the threads below 4 that fill a
/// tile's halo must exist).
///
/// What makes the reading exact, checked here on the AST: along y every
/// such loop has the same start (threadIdx.y plus a constant) and bound (a
/// constant); blockDim.y appears nowhere else (nor in the functions the
/// kernel calls); no loop body has a barrier, a break, a return or a goto,
/// assigns a variable declared outside it, or reads one whose value
/// depends on threadIdx.y (the value a thread carried in would differ
/// between the two blocks). What the rest of the kernel does with
/// threadIdx.y is weighed after the run (Interpreter::blockLoopLeast).
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_BLOCKLOOPS_H
#define FORGESTENCIL_LIB_ANALYSIS_BLOCKLOOPS_H

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace clang {
class ASTContext;
class FunctionDecl;
class Stmt;
class VarDecl;
} // namespace clang

namespace forgestencil {
namespace analysis {
namespace detail {

/// The block-stride loops along one thread dimension.
struct BlockLoopDim {
  int64_t Start = 0; ///< The variable starts at threadIdx.D + Start ...
  int64_t End = 0;   ///< ... and runs while below End.
  /// 0: the loops step by blockDim.D. Otherwise the constant they step by,
  /// the launches' block size along D: read the same way, exact only for
  /// that block (a block-dim assumption the launcher checks).
  int64_t Step = 0;
  /// The loops' bodies, with each loop's variable.
  std::map<const clang::Stmt *, const clang::VarDecl *> Bodies;
  std::string Var; ///< The first loop's variable, for the IR's notes.
  /// Points a block covers along D.
  int64_t span() const { return End - Start; }
};

/// By thread dimension (0 = x), those along which the kernel's loops may be
/// read with a block that runs each body once; empty where none may.
/// \p LaunchDims, when given, is the block the kernel's launches use:
/// loops stepping by a constant equal to it along their dimension count too
/// (for (dy = threadIdx.y; dy < 32; dy += 8) launched with 8 rows).
std::map<int, BlockLoopDim>
blockStrideLoops(const clang::FunctionDecl &Kernel, clang::ASTContext &Ctx,
                 const std::array<int64_t, 3> *LaunchDims = nullptr);

/// Why a kernel whose loops along \p D are \p L needs the block it does
/// (\p Least threads at least, for loops stepping by blockDim): the text of
/// its block-dim assumption, in the IR and in the kernel's notes.
std::string blockLoopWhy(const BlockLoopDim &L, int D, int64_t Least);

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif

//===- BodyTransform.h - Variants made from the kernel's own body -*- C++ -*-===//
///
/// \file
/// Variants made from the original kernel's body rather than from a Stencil
/// IR, for kernels the generators cannot rebuild or whose generated variant
/// loses in the app. The definition is copied (`fs_body_<kernel>`) with:
///
/// - restrict: `__restrict__` on every pointer parameter and `const` on the
///   pointee of those it only reads through, so the compiler may keep loaded
///   values across stores and use the read-only data path. Valid when no two
///   pointer parameters reach the same memory: RestrictFacts.h rules out
///   every other way in, and the launcher checks the rest before each launch
///   (the pointers point into distinct allocations).
/// - re-block: the launch's block shape changed, the grid resized to cover
///   the same global thread indices. Valid when the kernel uses each thread
///   index only as `blockIdx.d * B + threadIdx.d` and its threads never work
///   together (no __shared__, __syncthreads or warp functions); a constant B
///   becomes blockDim.d in the copy, and the launcher checks that the
///   original was launched with B.
/// - register cap (with re-block only): `__launch_bounds__(T, B)` on the
///   copy, T the chosen shape's threads and B the blocks an SM must hold, so
///   that a thread has at most N registers and more threads of a
///   register-heavy kernel fit on an SM; what each thread computes is
///   unchanged (registers spill to local memory where needed). Without a
///   chosen N, the copy is also made as a template on its launch bounds and
///   a USE_OURS=verify run times every candidate shape of 64 to 1024
///   threads with each cap of RegisterCapCandidates ("WxHxD/rN" beside
///   "WxHxD").
///
/// Without a chosen block shape the copy runs with the original's, and a
/// USE_OURS=verify run times every candidate shape in the app; with one, the
/// copy runs with it wherever it divides the launch's extent. Either way,
/// USE_OURS=verify compares the copy with the original at sampled launches
/// (forgestencil/checks.h).
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_REWRITE_BODYTRANSFORM_H
#define FORGESTENCIL_LIB_REWRITE_BODYTRANSFORM_H

#include "forgestencil/Rewrite/LauncherGen.h"
#include "forgestencil/Rewrite/RewriteFacts.h"

#include "llvm/ADT/StringRef.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace rewrite {

constexpr const char *ChecksHeaderName = "checks.h";

/// The caps a USE_OURS=verify run times (registers per thread).
constexpr unsigned RegisterCapCandidates[] = {64, 56, 48, 40, 32};

/// "fs_body_<kernel>_capped": the copy as a template on its launch bounds.
std::string cappedBodyKernelName(const KernelDefinition &K);

/// The coarsenings a --coarsen copy is timed with: this many consecutive
/// points a thread along y or z.
constexpr unsigned CoarsenFactors[] = {2, 4};

/// "fs_body_<kernel>_cy2": the copy in which a thread computes 2 points
/// along y.
std::string coarsenedBodyKernelName(const KernelDefinition &K,
                                    const BodyTransform::Coarsening &C);

/// "cy2": how USE_OURS=verify labels the coarsening (after the block
/// shape: "64x4x1/cy2").
std::string coarseningLabel(const BodyTransform::Coarsening &C);

/// The coarsened copies bodyCopy makes for \p T: the chosen one, else 2
/// and 4 points along each of y and z that \p K indexes.
std::vector<BodyTransform::Coarsening>
coarseningsOf(const KernelDefinition &K, const BodyTransform &T);

/// "fs_body_<kernel>": the copy.
std::string bodyKernelName(const KernelDefinition &K);

/// The copy of \p K made by \p T, or why it cannot be made.
struct BodyCopy {
  std::string Text;
  /// The parameters that got `__restrict__`, and those whose pointee got
  /// `const`, by name.
  std::vector<std::string> Restricted, MadeConst;
  /// Bit d set: axis d may take another block size.
  unsigned ReblockAxes = 0;
  std::string Error;
};
BodyCopy bodyCopy(const KernelDefinition &K, const BodyTransform &T);

/// One sentence on what the copy is, for the header and the patch.
std::string describeBodyCopy(const BodyTransform &T, const BodyCopy &C);

/// The launcher's `case <CC>:` that runs the copy where its conditions hold
/// and \p ReferenceLaunch otherwise. Indented for the launcher's switch.
std::string bodyCase(const KernelDefinition &K, const BodyTransform &T,
                     const BodyCopy &C, int ComputeCapability,
                     llvm::StringRef ReferenceLaunch);

/// The most pointer parameters checks.h compares in one launch
/// (checks_detail::MaxPointers).
constexpr unsigned MaxCheckedPointers = 64;

/// The content of forgestencil/checks.h (ChecksHeader.cpp); with
/// \p InAppCandidates, also compare_candidates(), which the launchers of
/// kernels with in-app candidates call; with \p CheckedVariants,
/// run_checked(), which launches a generated variant no GPU verified.
std::string checksHeader(llvm::StringRef ToolVersion,
                         bool InAppCandidates = false,
                         bool CheckedVariants = false);

} // namespace rewrite
} // namespace forgestencil

#endif

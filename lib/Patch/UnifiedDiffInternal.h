//===- UnifiedDiffInternal.h - Shared by the patch writers ------*- C++ -*-===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_PATCH_UNIFIEDDIFFINTERNAL_H
#define FORGESTENCIL_LIB_PATCH_UNIFIEDDIFFINTERNAL_H

#include "forgestencil/Patch/UnifiedDiff.h"

#include <string>

namespace forgestencil {
namespace patch {
namespace detail {

/// A file's diff text together with its line counts, so that the patch
/// writer computes each diff once for both the diffstat and the body.
struct RenderedFileDiff {
  std::string Text;
  DiffStat Stat;
};

RenderedFileDiff renderFileDiff(const FileChange &Change, unsigned Context);

} // namespace detail
} // namespace patch
} // namespace forgestencil

#endif // FORGESTENCIL_LIB_PATCH_UNIFIEDDIFFINTERNAL_H

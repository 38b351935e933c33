//===- AlreadyApplied.h - Does a tree already carry a patch? ----*- C++ -*-===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Running the rewriter on a tree that already carries its patch must say so
/// rather than write a second patch that guards launches twice. A file
/// carries the change when it already holds the patched content, or when it
/// already holds ForgeStencil's runtime switch (the `forgestencil/use_ours.h`
/// include or a `forgestencil::use_ours()` call), which only a ForgeStencil
/// patch puts there.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_PATCH_ALREADYAPPLIED_H
#define FORGESTENCIL_PATCH_ALREADYAPPLIED_H

#include "forgestencil/Patch/UnifiedDiff.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace forgestencil {
namespace patch {

enum class ApplyState {
  /// The tree holds the content the change starts from.
  NotApplied,
  /// The tree already holds the change or an earlier ForgeStencil patch.
  AlreadyApplied,
  /// The tree holds something else; the change would not apply cleanly.
  Diverged,
};

/// What detectAlreadyApplied found, with a sentence for the user.
struct ApplyCheck {
  ApplyState State = ApplyState::NotApplied;
  std::string Reason;
};

/// The first ForgeStencil marker in \p Content with its 1-based line number
/// ("line 12: forgestencil::use_ours("), or none when there is none.
std::optional<std::string> findForgeStencilMarker(std::string_view Content);

/// Checks one file: \p CurrentContent is what the tree holds at
/// \p Change.Path now (none when the file does not exist).
ApplyCheck detectAlreadyApplied(const FileChange &Change,
                                const std::optional<std::string> &CurrentContent);

/// Checks every change against the files under \p SourceRoot. The patch is
/// NotApplied when every file is, AlreadyApplied when every file is, and
/// Diverged otherwise (a tree that carries part of the patch is Diverged
/// too). The reason names each file that is not NotApplied.
ApplyCheck detectAlreadyAppliedInTree(const std::string &SourceRoot,
                                      const std::vector<FileChange> &Changes);

} // namespace patch
} // namespace forgestencil

#endif // FORGESTENCIL_PATCH_ALREADYAPPLIED_H

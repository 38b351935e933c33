//===- PatchWriter.h - A whole patch in git format-patch form ---*- C++ -*-===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A patch as `git format-patch` writes one: a mail header that says what the
/// patch does, which kernels it replaces, the measured speed-up and the tool
/// version; a diffstat; the diffs of every file, sorted by path; and the
/// `-- ` signature. `git apply` and `patch -p1` skip the text above the first
/// `diff --git`, so the patch applies with either.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_PATCH_PATCHWRITER_H
#define FORGESTENCIL_PATCH_PATCHWRITER_H

#include "forgestencil/Patch/Expected.h"
#include "forgestencil/Patch/UnifiedDiff.h"

#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace patch {

/// What the text above the diffs says.
struct PatchHeader {
  /// One line saying what the patch does; goes after `Subject: [PATCH]`.
  std::string Subject;
  /// The kernels whose launches the patch reroutes.
  std::vector<std::string> Kernels;
  /// The measured end-to-end speed-up, when one was measured.
  std::optional<std::string> SpeedupSummary;
  /// The version of the tool that wrote the patch.
  std::string ToolVersion;
  /// Further lines for the body, one paragraph each.
  std::vector<std::string> Notes;
};

/// Writes a patch that makes every change in \p Files, with \p Header above
/// the diffs. Files are sorted by path and files that do not change are left
/// out, so the same inputs give the same bytes. Fails when a path is not a
/// valid relative path, when two changes name the same file, or when no file
/// changes.
Expected<std::string> writePatch(const PatchHeader &Header,
                                 std::vector<FileChange> Files);

} // namespace patch
} // namespace forgestencil

#endif // FORGESTENCIL_PATCH_PATCHWRITER_H

//===- PatchFile.h - Where patches are written and how ----------*- C++ -*-===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Patches live in `patches/<app>/NNNN-<slug>.patch`, numbered like
/// `git format-patch` output, and are written so that a reader never sees a
/// half-written one.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_PATCH_PATCHFILE_H
#define FORGESTENCIL_PATCH_PATCHFILE_H

#include "forgestencil/Patch/Expected.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace forgestencil {
namespace patch {

/// Writes \p Content to \p Path atomically: into a temporary file in the same
/// directory, flushed to disk, then renamed over \p Path. Creates missing
/// parent directories. On failure \p Path is untouched and no temporary file
/// is left behind.
Status writePatchFileAtomically(const std::string &Path,
                                std::string_view Content);

/// \p Text reduced to a file-name slug: lowercase [a-z0-9] words joined by
/// single '-', at most 52 characters (as `git format-patch` keeps them);
/// "patch" when nothing is left.
std::string sanitiseSlug(std::string_view Text);

/// The path of the next patch in \p Directory: `<Directory>/NNNN-<slug>.patch`
/// where NNNN is one more than the highest number already used by a
/// `NNNN-*.patch` file there (0001 in an empty or missing directory).
Expected<std::string> nextPatchPath(const std::string &Directory,
                                    std::string_view Slug);

/// The `NNNN-*.patch` file in \p Directory whose bytes equal \p Content, if
/// any, so that running twice on the same inputs can report the existing
/// patch instead of numbering a copy.
std::optional<std::string> findIdenticalPatch(const std::string &Directory,
                                              std::string_view Content);

/// True when the file at \p Path starts with the header writePatch writes
/// (`From: ForgeStencil <forgestencil@localhost>` above the first diff).
bool isForgeStencilPatch(const std::string &Path);

/// What replacePatchSeries did.
struct SeriesUpdate {
  /// The series' one patch: `<Directory>/0001-<slug>.patch`.
  std::string Path;
  /// The directory already held exactly this series; nothing was written.
  bool Unchanged = false;
  /// The patches the new one replaced (its own name excepted).
  std::vector<std::string> Replaced;
};

/// Makes \p Content the whole patch series of \p Directory, as
/// `0001-<slug>.patch`: fs-rewrite's patch is made against the tree as it
/// read it, which carries none of the series (it refuses a tree that
/// does), so a second patch numbered after the first would not apply.
/// Patches of the series that ForgeStencil wrote are replaced; one it did
/// not write is a refusal, saying why. The new patch is complete on disk
/// before the old ones move; on failure the old series is restored.
Expected<SeriesUpdate> replacePatchSeries(const std::string &Directory,
                                          std::string_view Slug,
                                          std::string_view Content);

} // namespace patch
} // namespace forgestencil

#endif // FORGESTENCIL_PATCH_PATCHFILE_H

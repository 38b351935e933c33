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

} // namespace patch
} // namespace forgestencil

#endif // FORGESTENCIL_PATCH_PATCHFILE_H

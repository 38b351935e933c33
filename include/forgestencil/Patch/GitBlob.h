//===- GitBlob.h - Git object names for file contents -----------*- C++ -*-===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The object names git gives file contents, used on the `index` line of a
/// patch so that `git apply --3way` and `git am` can find the blobs.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_PATCH_GITBLOB_H
#define FORGESTENCIL_PATCH_GITBLOB_H

#include <string>
#include <string_view>

namespace forgestencil {
namespace patch {

/// The SHA-1 digest of \p Data as 40 lowercase hex digits.
std::string sha1Hex(std::string_view Data);

/// The git blob name of \p Content: SHA-1 of "blob <size>\0<content>".
std::string gitBlobHash(std::string_view Content);

/// How many hex digits of a blob name the `index` line shows, as `git diff`
/// does outside a large repository.
constexpr unsigned AbbreviatedHashLength = 7;

/// The all-zero name git writes for the missing side of a new file.
constexpr std::string_view NullBlobAbbreviation = "0000000";

} // namespace patch
} // namespace forgestencil

#endif // FORGESTENCIL_PATCH_GITBLOB_H

//===- UnifiedDiff.h - Git-style diff of one file ---------------*- C++ -*-===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The diff of one file in the exact format `git diff` writes: the
/// `diff --git` header, the `index` line with blob names, `---`/`+++` labels,
/// and unified hunks with function-name context. Lines keep every byte,
/// including a `\r` before the newline and tabs, so `git apply` and
/// `patch -p1` reproduce the new content byte for byte.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_PATCH_UNIFIEDDIFF_H
#define FORGESTENCIL_PATCH_UNIFIEDDIFF_H

#include <optional>
#include <string>
#include <string_view>

namespace forgestencil {
namespace patch {

/// One file a patch changes or adds.
struct FileChange {
  /// The path relative to the application's source root, with `/`
  /// separators and no `.` or `..` components.
  std::string Path;
  /// The current content; none when the patch adds the file.
  std::optional<std::string> OldContent;
  /// The content after the patch.
  std::string NewContent;
  /// The file is executable (git mode 100755, else 100644); the patch
  /// keeps its mode.
  bool Executable = false;

  bool isNewFile() const { return !OldContent.has_value(); }
};

/// Lines added and removed by one file's diff, as the diffstat counts them.
struct DiffStat {
  unsigned Insertions = 0;
  unsigned Deletions = 0;
};

/// The default number of context lines around a change, as in git.
constexpr unsigned DefaultContextLines = 3;

/// Writes the git diff of \p Change with \p Context lines of context.
///
/// Returns the empty string when the file does not change. A new file is
/// written against /dev/null with `new file mode 100644`. \p Change.Path must
/// satisfy checkPatchPath.
std::string writeFileDiff(const FileChange &Change,
                          unsigned Context = DefaultContextLines);

/// Counts the lines that writeFileDiff would show as added and removed.
DiffStat computeDiffStat(const FileChange &Change);

/// Checks that \p Path can name a file in a patch: relative, `/`-separated,
/// free of `.`/`..` components, empty components and NUL bytes.
/// Returns the reason it cannot, or none when it can.
std::optional<std::string> checkPatchPath(std::string_view Path);

/// \p Path as git prints it in headers: unchanged when it holds only
/// printable ASCII without `"` or `\`, otherwise C-quoted in double quotes
/// with octal escapes for bytes outside ASCII (git's core.quotePath default).
std::string quotePathForGit(std::string_view Path);

} // namespace patch
} // namespace forgestencil

#endif // FORGESTENCIL_PATCH_UNIFIEDDIFF_H

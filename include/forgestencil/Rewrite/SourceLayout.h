//===- SourceLayout.h - Lines, indentation and include points --*- C++ -*-===//
///
/// \file
/// Text-level facts about a source file that the AST does not keep: its line
/// ending, the indentation of a line and the file's indentation step, and
/// where a new `#include` goes so that it is seen by the whole file and sits
/// inside the include guard but outside `extern "C"` blocks and conditional
/// sections.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_REWRITE_SOURCELAYOUT_H
#define FORGESTENCIL_REWRITE_SOURCELAYOUT_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <tuple>

namespace forgestencil {
namespace rewrite {

/// One textual edit of a file: replace [Offset, Offset + Length) by Text.
struct TextEdit {
  unsigned Offset = 0;
  unsigned Length = 0;
  std::string Text;
  bool operator<(const TextEdit &O) const {
    return std::tie(Offset, Length, Text) < std::tie(O.Offset, O.Length, O.Text);
  }
  bool operator==(const TextEdit &O) const {
    return Offset == O.Offset && Length == O.Length && Text == O.Text;
  }
};

/// "\r\n" when the file's first line ends so, else "\n".
llvm::StringRef lineEnding(llvm::StringRef Content);

/// The offset where the line holding \p Offset starts.
unsigned lineStart(llvm::StringRef Content, unsigned Offset);

/// The spaces and tabs that start the line holding \p Offset.
std::string lineIndentation(llvm::StringRef Content, unsigned Offset);

/// One level of indentation as the file uses it: a tab when \p LineIndent
/// starts with one, else the most common increase of indentation between
/// consecutive lines (2 when the file does not say).
std::string indentStep(llvm::StringRef Content, llvm::StringRef LineIndent);

/// Inserts \p Line as a line of its own after the line holding \p Offset,
/// keeping a missing final newline missing.
TextEdit insertLineAfter(llvm::StringRef Content, unsigned Offset,
                         llvm::StringRef Line);

/// The offset of the line start where a new `#include` goes: after the last
/// `#include` that starts before \p Limit, moved past the end of any
/// conditional section (other than the include guard) or `extern "C"` block
/// that holds it. Without such an include: after `#pragma once` or the
/// guard's `#define`, else after the comments that open the file.
unsigned includeInsertionLine(llvm::StringRef Content, unsigned Limit);

/// The start of the logical line holding \p Offset: its physical line, or
/// the first of the lines a backslash joins to it (a `#define` spread over
/// several lines).
unsigned logicalLineStart(llvm::StringRef Content, unsigned Offset);

/// Inserts `#include "<Path>"` at \p LineOffset (a line start, or the end of
/// a file without a final newline).
TextEdit insertIncludeAt(llvm::StringRef Content, unsigned LineOffset,
                         llvm::StringRef Path);

/// \p Text with every line after the first prefixed by \p Prefix.
std::string indentContinuationLines(llvm::StringRef Text,
                                    llvm::StringRef Prefix);

} // namespace rewrite
} // namespace forgestencil

#endif

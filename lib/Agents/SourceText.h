//===- SourceText.h - Comment-free text and tokens of C++/CUDA source ----===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The textual checks on candidate code (the launcher signature, the static
/// screen) must not be fooled by words inside comments and string literals.
/// These helpers blank them out while keeping every offset and line number,
/// and split what is left into tokens. Private to the agents library.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_AGENTS_SOURCETEXT_H
#define FORGESTENCIL_LIB_AGENTS_SOURCETEXT_H

#include <string>
#include <string_view>
#include <vector>

namespace forgestencil {
namespace agents {

/// Returns \p Code with comments replaced by spaces and, when
/// \p AlsoLiterals, the contents of string and character literals (raw
/// strings included) too; the quotes stay. Newlines are kept, so offsets and
/// line numbers are those of the original.
std::string blankCommentsAndLiterals(std::string_view Code, bool AlsoLiterals);

/// One token of blanked source.
struct SourceToken {
  enum KindType { Identifier, Number, Punctuation };
  KindType Kind;
  std::string Text;
  unsigned Line; ///< 1-based.
  size_t Offset;

  bool is(std::string_view Spelling) const { return Text == Spelling; }
};

/// Splits blanked source into identifiers, numbers and punctuation. `<<<`,
/// `>>>`, `::`, `->` and `##` are single tokens; other punctuation is one
/// character per token. String literals come out as their quote characters.
std::vector<SourceToken> tokenize(std::string_view Blanked);

/// The 1-based line of \p Offset in \p Text.
unsigned lineOfOffset(std::string_view Text, size_t Offset);

} // namespace agents
} // namespace forgestencil

#endif // FORGESTENCIL_LIB_AGENTS_SOURCETEXT_H

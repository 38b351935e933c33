//===- SourceText.cpp - Comment-free text and tokens of source -----------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "SourceText.h"

#include <algorithm>
#include <cctype>

namespace forgestencil {
namespace agents {

namespace {

bool isIdentifierChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
}

/// Blanks Out[Begin, End) except newlines.
void blank(std::string &Out, size_t Begin, size_t End) {
  for (size_t I = Begin; I < End && I < Out.size(); ++I)
    if (Out[I] != '\n')
      Out[I] = ' ';
}

/// If a raw string literal starts at the `R` at \p Pos, returns its end (one
/// past the closing quote) and sets \p ContentBegin; otherwise npos.
size_t rawStringEnd(std::string_view Code, size_t Pos, size_t &ContentBegin) {
  if (Code[Pos] != 'R' || Pos + 1 >= Code.size() || Code[Pos + 1] != '"')
    return std::string_view::npos;
  // The R may carry an encoding prefix (u8R, LR, uR, UR) but must not end
  // some other identifier.
  size_t Start = Pos;
  while (Start > 0 && isIdentifierChar(Code[Start - 1]))
    --Start;
  std::string_view Prefix = Code.substr(Start, Pos - Start);
  if (!Prefix.empty() && Prefix != "u8" && Prefix != "L" && Prefix != "u" &&
      Prefix != "U")
    return std::string_view::npos;
  size_t Paren = Code.find('(', Pos + 2);
  if (Paren == std::string_view::npos || Paren - (Pos + 2) > 16)
    return std::string_view::npos;
  std::string Closing = ")" + std::string(Code.substr(Pos + 2, Paren - Pos - 2)) + "\"";
  size_t Close = Code.find(Closing, Paren + 1);
  ContentBegin = Paren + 1;
  return Close == std::string_view::npos ? Code.size() : Close + Closing.size();
}

/// The end of the quoted literal opened at \p Pos (one past its closing
/// quote), stopping at an unescaped newline for unterminated literals.
size_t quotedEnd(std::string_view Code, size_t Pos) {
  char Quote = Code[Pos];
  size_t I = Pos + 1;
  while (I < Code.size() && Code[I] != Quote && Code[I] != '\n') {
    if (Code[I] == '\\' && I + 1 < Code.size())
      ++I;
    ++I;
  }
  return I < Code.size() && Code[I] == Quote ? I + 1 : I;
}

/// A `'` between two digits of a number is a C++14 digit separator.
bool isDigitSeparator(std::string_view Code, size_t Pos) {
  if (Pos == 0 || Pos + 1 >= Code.size())
    return false;
  if (!std::isxdigit(static_cast<unsigned char>(Code[Pos - 1])) ||
      !std::isxdigit(static_cast<unsigned char>(Code[Pos + 1])))
    return false;
  size_t Start = Pos;
  while (Start > 0 && (isIdentifierChar(Code[Start - 1]) || Code[Start - 1] == '\''))
    --Start;
  return std::isdigit(static_cast<unsigned char>(Code[Start]));
}

} // namespace

std::string blankCommentsAndLiterals(std::string_view Code, bool AlsoLiterals) {
  std::string Out(Code);
  size_t I = 0;
  while (I < Code.size()) {
    char C = Code[I];
    if (C == '/' && I + 1 < Code.size() && Code[I + 1] == '/') {
      size_t End = Code.find('\n', I);
      End = End == std::string_view::npos ? Code.size() : End;
      blank(Out, I, End);
      I = End;
      continue;
    }
    if (C == '/' && I + 1 < Code.size() && Code[I + 1] == '*') {
      size_t End = Code.find("*/", I + 2);
      End = End == std::string_view::npos ? Code.size() : End + 2;
      blank(Out, I, End);
      I = End;
      continue;
    }
    size_t ContentBegin = 0;
    if (size_t End = rawStringEnd(Code, I, ContentBegin);
        End != std::string_view::npos) {
      if (AlsoLiterals)
        blank(Out, ContentBegin, End - 1);
      I = End;
      continue;
    }
    if ((C == '"' || C == '\'') && !(C == '\'' && isDigitSeparator(Code, I))) {
      size_t End = quotedEnd(Code, I);
      if (AlsoLiterals && End > I + 1)
        blank(Out, I + 1, Code[End - 1] == C ? End - 1 : End);
      I = End;
      continue;
    }
    ++I;
  }
  return Out;
}

std::vector<SourceToken> tokenize(std::string_view Blanked) {
  std::vector<SourceToken> Tokens;
  unsigned Line = 1;
  size_t I = 0;
  while (I < Blanked.size()) {
    char C = Blanked[I];
    if (C == '\n') {
      ++Line;
      ++I;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(C))) {
      ++I;
      continue;
    }
    size_t Start = I;
    SourceToken::KindType Kind = SourceToken::Punctuation;
    if (std::isalpha(static_cast<unsigned char>(C)) || C == '_') {
      Kind = SourceToken::Identifier;
      while (I < Blanked.size() && isIdentifierChar(Blanked[I]))
        ++I;
    } else if (std::isdigit(static_cast<unsigned char>(C))) {
      Kind = SourceToken::Number;
      while (I < Blanked.size() &&
             (isIdentifierChar(Blanked[I]) || Blanked[I] == '.' || Blanked[I] == '\''))
        ++I;
    } else {
      static constexpr std::string_view MultiChar[] = {"<<<", ">>>", "::", "->", "##"};
      size_t Length = 1;
      for (std::string_view Spelling : MultiChar)
        if (Blanked.substr(I, Spelling.size()) == Spelling) {
          Length = Spelling.size();
          break;
        }
      I += Length;
    }
    Tokens.push_back({Kind, std::string(Blanked.substr(Start, I - Start)), Line, Start});
  }
  return Tokens;
}

unsigned lineOfOffset(std::string_view Text, size_t Offset) {
  Offset = std::min(Offset, Text.size());
  return 1 + static_cast<unsigned>(
                 std::count(Text.begin(), Text.begin() + Offset, '\n'));
}

} // namespace agents
} // namespace forgestencil

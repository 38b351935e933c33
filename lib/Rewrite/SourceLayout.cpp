//===- SourceLayout.cpp - Lines, indentation and include points -----------===//

#include "forgestencil/Rewrite/SourceLayout.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

using namespace llvm;

namespace forgestencil {
namespace rewrite {

StringRef lineEnding(StringRef Content) {
  size_t NL = Content.find('\n');
  if (NL != StringRef::npos && NL > 0 && Content[NL - 1] == '\r')
    return "\r\n";
  return "\n";
}

unsigned lineStart(StringRef Content, unsigned Offset) {
  size_t NL = Content.take_front(Offset).rfind('\n');
  return NL == StringRef::npos ? 0 : NL + 1;
}

/// One past the line's '\n' (or the end of the file).
static unsigned nextLineStart(StringRef Content, unsigned Offset) {
  size_t NL = Content.find('\n', Offset);
  return NL == StringRef::npos ? Content.size() : NL + 1;
}

std::string lineIndentation(StringRef Content, unsigned Offset) {
  StringRef Line = Content.drop_front(lineStart(Content, Offset));
  return Line.take_while([](char C) { return C == ' ' || C == '\t'; }).str();
}

std::string indentStep(StringRef Content, StringRef LineIndent) {
  if (LineIndent.starts_with("\t"))
    return "\t";
  std::map<unsigned, unsigned> Increases;
  unsigned Previous = 0;
  bool HavePrevious = false;
  SmallVector<StringRef, 0> Lines;
  Content.split(Lines, '\n');
  for (StringRef Line : Lines) {
    StringRef Body = Line.ltrim(" ");
    if (Body.trim().empty() || Body.starts_with("\t") || Body.starts_with("*"))
      continue;
    unsigned Width = Line.size() - Body.size();
    if (HavePrevious && Width > Previous && Width - Previous <= 8)
      ++Increases[Width - Previous];
    Previous = Width;
    HavePrevious = true;
  }
  unsigned Best = 2, BestCount = 0;
  for (auto [Width, Count] : Increases)
    if (Count > BestCount) {
      Best = Width;
      BestCount = Count;
    }
  return std::string(Best, ' ');
}

TextEdit insertLineAfter(StringRef Content, unsigned Offset, StringRef Line) {
  StringRef EOL = lineEnding(Content);
  unsigned At = nextLineStart(Content, Offset);
  if (At == Content.size() && !Content.ends_with("\n"))
    return {At, 0, EOL.str() + Line.str()};
  return {At, 0, Line.str() + EOL.str()};
}

TextEdit insertIncludeAt(StringRef Content, unsigned LineOffset,
                         StringRef Path) {
  std::string Line = "#include \"" + Path.str() + "\"";
  StringRef EOL = lineEnding(Content);
  if (LineOffset == Content.size() && !Content.empty() &&
      !Content.ends_with("\n"))
    return {LineOffset, 0, EOL.str() + Line};
  return {LineOffset, 0, Line + EOL.str()};
}

std::string indentContinuationLines(StringRef Text, StringRef Prefix) {
  std::string Out;
  for (char C : Text) {
    Out += C;
    if (C == '\n')
      Out += Prefix.str();
  }
  return Out;
}

namespace {

/// Walks a file line by line, following preprocessor conditionals, comments
/// and braces, to find where a new include belongs.
class IncludeScanner {
public:
  IncludeScanner(StringRef Content, unsigned Limit)
      : Content(Content), Limit(Limit) {}

  unsigned run() {
    unsigned Offset = 0;
    while (Offset < Content.size()) {
      unsigned End = logicalLineEnd(Offset);
      StringRef Line = Content.slice(Offset, End);
      if (Offset >= Limit)
        break;
      LineHasCode = false;
      if (!InBlockComment && isDirective(Line)) {
        directive(Line, End);
        LineHasCode = true;
      } else {
        code(Line);
      }
      if (PendingEscape && atTopLevel()) {
        Candidate = End;
        PendingEscape = false;
      }
      // A line that only ends a block comment (` */`) is still comment.
      if (LineHasCode)
        SeenCode = true;
      if (!SeenCode)
        AfterLeadingComments = End;
      Offset = End;
    }
    if (Candidate && *Candidate <= Limit)
      return *Candidate;
    if (AfterGuardOrPragma && *AfterGuardOrPragma <= Limit)
      return *AfterGuardOrPragma;
    return std::min(AfterLeadingComments, Limit);
  }

private:
  /// One past the line's newline, following backslash continuations.
  unsigned logicalLineEnd(unsigned Offset) {
    while (true) {
      size_t NL = Content.find('\n', Offset);
      if (NL == StringRef::npos)
        return Content.size();
      StringRef Before = Content.slice(Offset, NL).rtrim('\r');
      if (!Before.ends_with("\\"))
        return NL + 1;
      Offset = NL + 1;
    }
  }

  static bool isDirective(StringRef Line) {
    return Line.ltrim(" \t").starts_with("#");
  }

  bool atTopLevel() const {
    return Conditionals.size() <= GuardDepth && Braces.empty();
  }

  void directive(StringRef Line, unsigned End) {
    StringRef Rest = Line.ltrim(" \t").drop_front().ltrim(" \t");
    StringRef Name = Rest.take_while([](char C) { return isalpha(C); });
    StringRef Arg = Rest.drop_front(Name.size()).trim();
    ++DirectiveCount;
    if (Name == "if" || Name == "ifdef" || Name == "ifndef") {
      Conditionals.push_back(End);
      if (DirectiveCount == 1 && Name == "ifndef")
        GuardCandidate = Arg.take_while([](char C) {
          return isalnum(C) || C == '_';
        }).str();
      return;
    }
    if (Name == "endif") {
      if (!Conditionals.empty())
        Conditionals.pop_back();
      return;
    }
    if (Name == "define" && DirectiveCount == 2 && !GuardCandidate.empty() &&
        Arg.starts_with(GuardCandidate) &&
        (Arg.size() == GuardCandidate.size() ||
         !isalnum(Arg[GuardCandidate.size()]))) {
      // Treated as the include guard: includes inside it are top level.
      GuardDepth = 1;
      AfterGuardOrPragma = End;
      return;
    }
    if (Name == "pragma" && Arg.starts_with("once")) {
      AfterGuardOrPragma = End;
      return;
    }
    if (Name == "include" || Name == "import") {
      // An include inside a function or namespace body is not one the whole
      // file sees; leave it alone.
      for (bool IsExternC : Braces)
        if (!IsExternC)
          return;
      if (atTopLevel())
        Candidate = End;
      else
        PendingEscape = true;
    }
  }

  /// Follows comments, literals and braces through one line of code.
  void code(StringRef Line) {
    for (size_t I = 0; I < Line.size(); ++I) {
      char C = Line[I];
      if (InBlockComment) {
        if (C == '*' && I + 1 < Line.size() && Line[I + 1] == '/') {
          InBlockComment = false;
          ++I;
        }
        continue;
      }
      if (C == '/' && I + 1 < Line.size() && Line[I + 1] == '/')
        return;
      if (C == '/' && I + 1 < Line.size() && Line[I + 1] == '*') {
        InBlockComment = true;
        ++I;
        continue;
      }
      if (C != ' ' && C != '\t' && C != '\r' && C != '\n' && C != '\\')
        LineHasCode = true;
      if (C == '"' || C == '\'') {
        if (C == '"' && Line.take_front(I).rtrim(" \t").ends_with("extern"))
          ExternCPending = Line.drop_front(I).starts_with("\"C\"");
        for (++I; I < Line.size() && Line[I] != C; ++I)
          if (Line[I] == '\\')
            ++I;
        continue;
      }
      if (C == '{') {
        Braces.push_back(ExternCPending);
        ExternCPending = false;
      } else if (C == '}') {
        if (!Braces.empty())
          Braces.pop_back();
      } else if (C == ';') {
        ExternCPending = false;
      }
    }
  }

  StringRef Content;
  unsigned Limit;
  std::vector<unsigned> Conditionals;
  std::vector<bool> Braces; ///< True for an `extern "C" {` block.
  unsigned GuardDepth = 0;
  unsigned DirectiveCount = 0;
  std::string GuardCandidate;
  bool InBlockComment = false;
  bool ExternCPending = false;
  bool PendingEscape = false;
  bool SeenCode = false;
  bool LineHasCode = false; ///< Outside comments, in the current line.
  unsigned AfterLeadingComments = 0;
  std::optional<unsigned> Candidate;
  std::optional<unsigned> AfterGuardOrPragma;
};

} // namespace

unsigned includeInsertionLine(StringRef Content, unsigned Limit) {
  return IncludeScanner(Content, Limit).run();
}

unsigned logicalLineStart(StringRef Content, unsigned Offset) {
  unsigned Start = lineStart(Content, Offset);
  while (Start > 0) {
    // The previous physical line, without its line ending.
    StringRef Previous = Content.take_front(Start - 1);
    if (Previous.ends_with("\r"))
      Previous = Previous.drop_back();
    if (!Previous.ends_with("\\"))
      break;
    Start = lineStart(Content, Start - 1);
  }
  return Start;
}

} // namespace rewrite
} // namespace forgestencil

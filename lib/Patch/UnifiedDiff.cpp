//===- UnifiedDiff.cpp - Git-style diff of one file -----------------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The line diff comes from dtl (Wu, Manber and Myers' O(NP) algorithm); this
/// file turns dtl's shortest edit script into hunks and writes them the way
/// git's xdiff does, so that the output matches `git diff` byte for byte
/// wherever the two agree on which lines changed.
///
//===----------------------------------------------------------------------===//

#include "UnifiedDiffInternal.h"

#include "forgestencil/Patch/GitBlob.h"

#include <dtl/dtl.hpp>

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace forgestencil {
namespace patch {

namespace {

/// Lines of a file. Each keeps its '\n'; only the last may lack one.
using LineList = std::vector<std::string_view>;

LineList splitLines(std::string_view Content) {
  LineList Lines;
  size_t Start = 0;
  while (Start < Content.size()) {
    size_t End = Content.find('\n', Start);
    if (End == std::string_view::npos) {
      Lines.push_back(Content.substr(Start));
      break;
    }
    Lines.push_back(Content.substr(Start, End + 1 - Start));
    Start = End + 1;
  }
  return Lines;
}

enum class EditKind { Common, Delete, Insert };

/// One step of the edit script, with the line positions it stands at.
struct Edit {
  EditKind Kind;
  /// Old lines before this step; for Common and Delete the old line's index.
  size_t OldPos;
  /// New lines before this step; for Common and Insert the new line's index.
  size_t NewPos;
};

/// Above this many lines dtl reserves its coordinate table up front. The
/// unserious (trivial) mode stays off: it gives up minimality, and a
/// non-minimal diff would only make patches harder to review.
constexpr size_t HugeInputLines = 100000;

/// The edit script of Old[OldBegin, OldEnd) against New[NewBegin, NewEnd).
std::vector<EditKind> diffLineRanges(const LineList &Old, size_t OldBegin,
                                     size_t OldEnd, const LineList &New,
                                     size_t NewBegin, size_t NewEnd) {
  std::vector<EditKind> Kinds;
  if (OldBegin == OldEnd || NewBegin == NewEnd) {
    Kinds.insert(Kinds.end(), OldEnd - OldBegin, EditKind::Delete);
    Kinds.insert(Kinds.end(), NewEnd - NewBegin, EditKind::Insert);
    return Kinds;
  }

  // dtl compares elements often; equal lines get equal small integers so it
  // compares integers instead of strings.
  std::unordered_map<std::string_view, long long> LineIds;
  auto IdOf = [&LineIds](std::string_view Line) {
    long long NextId = static_cast<long long>(LineIds.size());
    return LineIds.emplace(Line, NextId).first->second;
  };
  std::vector<long long> OldIds, NewIds;
  for (size_t I = OldBegin; I < OldEnd; ++I)
    OldIds.push_back(IdOf(Old[I]));
  for (size_t I = NewBegin; I < NewEnd; ++I)
    NewIds.push_back(IdOf(New[I]));

  dtl::Diff<long long> Differ(OldIds, NewIds);
  if (OldIds.size() + NewIds.size() > HugeInputLines)
    Differ.onHuge();
  Differ.compose();
  for (const auto &Step : Differ.getSes().getSequence()) {
    switch (Step.second.type) {
    case dtl::SES_COMMON:
      Kinds.push_back(EditKind::Common);
      break;
    case dtl::SES_DELETE:
      Kinds.push_back(EditKind::Delete);
      break;
    case dtl::SES_ADD:
      Kinds.push_back(EditKind::Insert);
      break;
    }
  }
  return Kinds;
}

/// The edit script of Old against New. Lines shared at both ends are matched
/// before dtl runs, which keeps a change next to identical lines where git
/// puts it too (an appended duplicate line shows as added last).
std::vector<EditKind> diffLines(const LineList &Old, const LineList &New) {
  size_t Prefix = 0;
  while (Prefix < Old.size() && Prefix < New.size() &&
         Old[Prefix] == New[Prefix])
    ++Prefix;
  size_t Suffix = 0;
  while (Suffix < Old.size() - Prefix && Suffix < New.size() - Prefix &&
         Old[Old.size() - 1 - Suffix] == New[New.size() - 1 - Suffix])
    ++Suffix;

  std::vector<EditKind> Kinds(Prefix, EditKind::Common);
  std::vector<EditKind> Middle =
      diffLineRanges(Old, Prefix, Old.size() - Suffix, New, Prefix,
                     New.size() - Suffix);
  Kinds.insert(Kinds.end(), Middle.begin(), Middle.end());
  Kinds.insert(Kinds.end(), Suffix, EditKind::Common);
  return Kinds;
}

/// Places the removed lines of every change before its added lines, as git
/// shows them, and records each step's line positions.
std::vector<Edit> normaliseScript(const std::vector<EditKind> &Kinds) {
  std::vector<Edit> Script;
  Script.reserve(Kinds.size());
  size_t OldPos = 0, NewPos = 0;
  size_t I = 0;
  while (I < Kinds.size()) {
    if (Kinds[I] == EditKind::Common) {
      Script.push_back({EditKind::Common, OldPos++, NewPos++});
      ++I;
      continue;
    }
    size_t Deletes = 0, Inserts = 0;
    for (; I < Kinds.size() && Kinds[I] != EditKind::Common; ++I)
      ++(Kinds[I] == EditKind::Delete ? Deletes : Inserts);
    for (size_t D = 0; D < Deletes; ++D)
      Script.push_back({EditKind::Delete, OldPos++, NewPos});
    for (size_t A = 0; A < Inserts; ++A)
      Script.push_back({EditKind::Insert, OldPos, NewPos++});
  }
  return Script;
}

/// A hunk: the script steps [FirstStep, EndStep) and the line ranges they
/// cover.
struct Hunk {
  size_t FirstStep, EndStep;
  size_t OldStart = 0, OldCount = 0, NewStart = 0, NewCount = 0;
};

/// Groups the changes of \p Script into hunks with \p Context lines around
/// them. Changes whose gap is at most 2 * Context lines share a hunk, as in
/// git and GNU diff, so no line is shown twice.
std::vector<Hunk> groupIntoHunks(const std::vector<Edit> &Script,
                                 unsigned Context) {
  // Runs of consecutive non-common steps, as [begin, end) step indices.
  std::vector<std::pair<size_t, size_t>> Changes;
  for (size_t I = 0; I < Script.size();) {
    if (Script[I].Kind == EditKind::Common) {
      ++I;
      continue;
    }
    size_t Begin = I;
    while (I < Script.size() && Script[I].Kind != EditKind::Common)
      ++I;
    Changes.emplace_back(Begin, I);
  }

  std::vector<Hunk> Hunks;
  for (size_t C = 0; C < Changes.size();) {
    size_t Last = C;
    while (Last + 1 < Changes.size() &&
           Changes[Last + 1].first - Changes[Last].second <= 2 * Context)
      ++Last;
    Hunk H;
    H.FirstStep = Changes[C].first - std::min<size_t>(Changes[C].first, Context);
    H.EndStep = std::min(Changes[Last].second + Context, Script.size());
    H.OldStart = Script[H.FirstStep].OldPos;
    H.NewStart = Script[H.FirstStep].NewPos;
    for (size_t S = H.FirstStep; S < H.EndStep; ++S) {
      if (Script[S].Kind != EditKind::Insert)
        ++H.OldCount;
      if (Script[S].Kind != EditKind::Delete)
        ++H.NewCount;
    }
    Hunks.push_back(H);
    C = Last + 1;
  }
  return Hunks;
}

bool isAsciiAlpha(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z');
}

/// Whitespace as git's own ctype table defines it (no \v or \f).
bool isGitSpace(char C) {
  return C == ' ' || C == '\t' || C == '\n' || C == '\r';
}

/// The text git shows after a hunk header for \p Line when it starts a
/// "function" by xdiff's default rule (a letter, `_` or `$` in the first
/// column), cut to 80 bytes and stripped of trailing whitespace; empty when
/// the line does not qualify.
std::string_view functionContextOf(std::string_view Line) {
  constexpr size_t MaxFunctionContext = 80;
  if (Line.empty() ||
      !(isAsciiAlpha(Line[0]) || Line[0] == '_' || Line[0] == '$'))
    return {};
  Line = Line.substr(0, MaxFunctionContext);
  while (!Line.empty() && isGitSpace(Line.back()))
    Line.remove_suffix(1);
  return Line;
}

/// The nearest function line above old line \p OldStart (0-based).
std::string_view findFunctionContext(const LineList &Old, size_t OldStart) {
  for (size_t I = OldStart; I > 0; --I) {
    std::string_view Name = functionContextOf(Old[I - 1]);
    if (!Name.empty())
      return Name;
  }
  return {};
}

/// One side of a hunk header: `start,count`, git style. A one-line range
/// omits its count; an empty range names the line before it.
std::string formatRange(size_t Start, size_t Count) {
  std::string Out = std::to_string(Count == 0 ? Start : Start + 1);
  if (Count != 1)
    Out += "," + std::to_string(Count);
  return Out;
}

void appendDiffLine(std::string &Out, char Marker, std::string_view Line) {
  Out += Marker;
  Out.append(Line.data(), Line.size());
  if (Line.empty() || Line.back() != '\n')
    Out += "\n\\ No newline at end of file\n";
}

void appendHunk(std::string &Out, const Hunk &H,
                const std::vector<Edit> &Script, const LineList &Old,
                const LineList &New) {
  Out += "@@ -" + formatRange(H.OldStart, H.OldCount) + " +" +
         formatRange(H.NewStart, H.NewCount) + " @@";
  std::string_view Function = findFunctionContext(Old, H.OldStart);
  if (!Function.empty()) {
    Out += ' ';
    Out.append(Function.data(), Function.size());
  }
  Out += '\n';
  for (size_t S = H.FirstStep; S < H.EndStep; ++S) {
    const Edit &Step = Script[S];
    switch (Step.Kind) {
    case EditKind::Common:
      appendDiffLine(Out, ' ', Old[Step.OldPos]);
      break;
    case EditKind::Delete:
      appendDiffLine(Out, '-', Old[Step.OldPos]);
      break;
    case EditKind::Insert:
      appendDiffLine(Out, '+', New[Step.NewPos]);
      break;
    }
  }
}

/// Whether git quotes a path holding byte \p C (with core.quotePath on).
bool needsQuoting(unsigned char C) {
  return C < 0x20 || C == '"' || C == '\\' || C >= 0x7f;
}

/// \p Path in C-style double quotes, escaping what git escapes.
std::string cQuote(std::string_view Path) {
  std::string Out = "\"";
  for (char Ch : Path) {
    unsigned char C = static_cast<unsigned char>(Ch);
    if (!needsQuoting(C)) {
      Out += Ch;
      continue;
    }
    Out += '\\';
    switch (C) {
    case '\a': Out += 'a'; break;
    case '\b': Out += 'b'; break;
    case '\t': Out += 't'; break;
    case '\n': Out += 'n'; break;
    case '\v': Out += 'v'; break;
    case '\f': Out += 'f'; break;
    case '\r': Out += 'r'; break;
    case '"': Out += '"'; break;
    case '\\': Out += '\\'; break;
    default:
      Out += static_cast<char>('0' + ((C >> 6) & 7));
      Out += static_cast<char>('0' + ((C >> 3) & 7));
      Out += static_cast<char>('0' + (C & 7));
    }
  }
  Out += '"';
  return Out;
}

/// The `diff --git`, mode, `index` and file label lines of \p Change.
std::string formatFileHeader(const FileChange &Change, bool HasHunks) {
  std::string OldLabel = quotePathForGit("a/" + Change.Path);
  std::string NewLabel = quotePathForGit("b/" + Change.Path);
  // Without hunks there are no `---`/`+++` lines, and GNU patch takes the
  // name from the `diff --git` line, which it cannot split at the right space
  // unless the names are quoted. git reads quoted names too. This one case
  // is where the output differs from git's, which leaves such names bare.
  bool EmptyNewFile = Change.isNewFile() && !HasHunks;
  if (EmptyNewFile && Change.Path.find(' ') != std::string::npos &&
      OldLabel.front() != '"') {
    OldLabel = cQuote("a/" + Change.Path);
    NewLabel = cQuote("b/" + Change.Path);
  }
  std::string OldHash =
      Change.isNewFile()
          ? std::string(NullBlobAbbreviation)
          : gitBlobHash(*Change.OldContent).substr(0, AbbreviatedHashLength);
  std::string NewHash =
      gitBlobHash(Change.NewContent).substr(0, AbbreviatedHashLength);

  std::string Out = "diff --git " + OldLabel + " " + NewLabel + "\n";
  if (Change.isNewFile())
    Out += "new file mode 100644\nindex " + OldHash + ".." + NewHash + "\n";
  else
    Out += "index " + OldHash + ".." + NewHash +
           (Change.Executable ? " 100755\n" : " 100644\n");
  // An empty new file has no hunks, and git writes no labels for it.
  if (!HasHunks)
    return Out;
  if (Change.isNewFile())
    OldLabel = "/dev/null";
  // git ends a label that holds a space with a tab, so that tools reading
  // `--- name<TAB>timestamp` find where the name ends.
  auto TabIfSpaced = [](const std::string &Label) {
    return Label.find(' ') == std::string::npos ? "" : "\t";
  };
  Out += "--- " + OldLabel + TabIfSpaced(OldLabel) + "\n";
  Out += "+++ " + NewLabel + TabIfSpaced(NewLabel) + "\n";
  return Out;
}

} // namespace

namespace detail {

RenderedFileDiff renderFileDiff(const FileChange &Change, unsigned Context) {
  RenderedFileDiff Result;
  if (!Change.isNewFile() && *Change.OldContent == Change.NewContent)
    return Result;

  std::string_view OldContent;
  if (Change.OldContent)
    OldContent = *Change.OldContent;
  LineList Old = splitLines(OldContent);
  LineList New = splitLines(Change.NewContent);
  std::vector<Edit> Script = normaliseScript(diffLines(Old, New));
  std::vector<Hunk> Hunks = groupIntoHunks(Script, Context);

  Result.Text = formatFileHeader(Change, !Hunks.empty());
  for (const Hunk &H : Hunks)
    appendHunk(Result.Text, H, Script, Old, New);
  for (const Edit &Step : Script) {
    if (Step.Kind == EditKind::Insert)
      ++Result.Stat.Insertions;
    else if (Step.Kind == EditKind::Delete)
      ++Result.Stat.Deletions;
  }
  return Result;
}

} // namespace detail

std::string writeFileDiff(const FileChange &Change, unsigned Context) {
  return detail::renderFileDiff(Change, Context).Text;
}

DiffStat computeDiffStat(const FileChange &Change) {
  return detail::renderFileDiff(Change, DefaultContextLines).Stat;
}

std::optional<std::string> checkPatchPath(std::string_view Path) {
  if (Path.empty())
    return std::string("the path is empty");
  if (Path.front() == '/')
    return "'" + std::string(Path) + "' is absolute; patches name files "
           "relative to the application's source root";
  if (Path.find('\0') != std::string_view::npos)
    return std::string("the path holds a NUL byte");
  if (Path.find('\\') != std::string_view::npos)
    return "'" + std::string(Path) + "' uses '\\'; patches use '/'";
  size_t Start = 0;
  while (true) {
    size_t End = Path.find('/', Start);
    std::string_view Component = Path.substr(
        Start, End == std::string_view::npos ? std::string_view::npos
                                             : End - Start);
    if (Component.empty() || Component == "." || Component == "..")
      return "'" + std::string(Path) +
             "' has an empty, '.' or '..' component";
    if (End == std::string_view::npos)
      return std::nullopt;
    Start = End + 1;
  }
}

std::string quotePathForGit(std::string_view Path) {
  if (std::none_of(Path.begin(), Path.end(), [](char C) {
        return needsQuoting(static_cast<unsigned char>(C));
      }))
    return std::string(Path);
  return cQuote(Path);
}

} // namespace patch
} // namespace forgestencil

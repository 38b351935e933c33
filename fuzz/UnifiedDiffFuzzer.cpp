//===- UnifiedDiffFuzzer.cpp - The diff writer on any two files ------------===//
///
/// \file
/// The input is split into an old and a new file (and a path); the diff
/// written for them must apply, by a strict in-memory reading of its hunks,
/// to exactly the new file, its hunk headers must count their lines, and
/// the diffstat must count what the hunks add and remove.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Patch/PatchWriter.h"
#include "forgestencil/Patch/UnifiedDiff.h"

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

using namespace forgestencil::patch;

namespace {

/// Lines with their endings; the last one may have none.
std::vector<std::string> splitLines(const std::string &S) {
  std::vector<std::string> Lines;
  size_t Start = 0;
  while (Start < S.size()) {
    size_t End = S.find('\n', Start);
    if (End == std::string::npos) {
      Lines.push_back(S.substr(Start));
      break;
    }
    Lines.push_back(S.substr(Start, End + 1 - Start));
    Start = End + 1;
  }
  return Lines;
}

bool parseRange(const std::string &S, size_t &Pos, unsigned long &Start,
                unsigned long &Count) {
  auto Number = [&](unsigned long &N) {
    if (Pos >= S.size() || S[Pos] < '0' || S[Pos] > '9')
      return false;
    N = 0;
    while (Pos < S.size() && S[Pos] >= '0' && S[Pos] <= '9')
      N = N * 10 + static_cast<unsigned long>(S[Pos++] - '0');
    return true;
  };
  if (!Number(Start))
    return false;
  Count = 1;
  if (Pos < S.size() && S[Pos] == ',') {
    ++Pos;
    if (!Number(Count))
      return false;
  }
  return true;
}

[[noreturn]] void broken(const char *Why) {
  fprintf(stderr, "unified-diff fuzzer: %s\n", Why);
  std::abort();
}

/// Applies \p Diff (one file's diff) to \p Old the way `patch` reads it,
/// with no fuzz and no offsets: context and removed lines must match.
std::string apply(const std::string &Old, const std::string &Diff,
                  unsigned &Added, unsigned &Removed) {
  std::vector<std::string> OldLines = splitLines(Old);
  std::vector<std::string> D = splitLines(Diff);
  std::string Out;
  size_t Pos = 0; // Next line of Old to copy.
  size_t I = 0;
  while (I < D.size() && D[I].rfind("@@ ", 0) != 0)
    ++I;
  if (I == D.size())
    broken("no hunk");
  while (I < D.size()) {
    const std::string &H = D[I];
    if (H.rfind("@@ -", 0) != 0)
      broken("text between hunks");
    size_t P = 4;
    unsigned long OldStart, OldCount, NewStart, NewCount;
    if (!parseRange(H, P, OldStart, OldCount) || H.compare(P, 2, " +") != 0)
      broken("bad hunk header");
    P += 2;
    if (!parseRange(H, P, NewStart, NewCount) || H.compare(P, 3, " @@") != 0)
      broken("bad hunk header");
    size_t First = OldCount == 0 ? OldStart : OldStart - 1;
    if (First < Pos || First > OldLines.size())
      broken("hunk out of order or beyond the file");
    for (; Pos < First; ++Pos)
      Out += OldLines[Pos];
    ++I;
    // The hunk's lines, each with its ending unless "\ No newline" follows.
    std::vector<std::pair<char, std::string>> Body;
    while (I < D.size() && !D[I].empty() &&
           (D[I][0] == ' ' || D[I][0] == '-' || D[I][0] == '+' ||
            D[I][0] == '\\')) {
      if (D[I][0] == '\\') {
        if (Body.empty() || Body.back().second.empty() ||
            Body.back().second.back() != '\n')
          broken("misplaced no-newline marker");
        Body.back().second.pop_back();
      } else {
        Body.push_back({D[I][0], D[I].substr(1)});
      }
      ++I;
    }
    unsigned long SeenOld = 0, SeenNew = 0;
    for (const auto &[Op, Text] : Body) {
      if (Op == ' ' || Op == '-') {
        if (Pos >= OldLines.size() || OldLines[Pos] != Text)
          broken("context or removed line does not match the old file");
        ++Pos;
        ++SeenOld;
      }
      if (Op == ' ' || Op == '+') {
        Out += Text;
        ++SeenNew;
      }
      Added += Op == '+';
      Removed += Op == '-';
    }
    if (SeenOld != OldCount || SeenNew != NewCount)
      broken("hunk header counts do not match its lines");
  }
  for (; Pos < OldLines.size(); ++Pos)
    Out += OldLines[Pos];
  return Out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 1)
    return 0;
  // Byte 0: bit 0 a new file, bits 1-3 the context lines; then old, a 0xff
  // byte, new, a 0xfe byte, a path for the path checks.
  const uint8_t Flags = Data[0];
  std::string Rest(reinterpret_cast<const char *>(Data + 1), Size - 1);
  size_t Split = Rest.find('\xff');
  std::string Old = Rest.substr(0, Split);
  std::string New = Split == std::string::npos ? "" : Rest.substr(Split + 1);
  std::string PathText;
  if (size_t P = New.find('\xfe'); P != std::string::npos) {
    PathText = New.substr(P + 1);
    New.resize(P);
  }
  // Paths: checked, quoted, never a crash.
  if (!checkPatchPath(PathText))
    (void)quotePathForGit(PathText);

  FileChange Change;
  Change.Path = "dir/file.cu";
  if (!(Flags & 1))
    Change.OldContent = Old;
  Change.NewContent = New;
  unsigned Context = (Flags >> 1) & 7;
  std::string Diff = writeFileDiff(Change, Context);
  const std::string &Before = Change.OldContent ? Old : std::string();
  if (Change.OldContent && Old == New) {
    if (!Diff.empty())
      broken("a diff for an unchanged file");
    return 0;
  }
  if (!Change.OldContent && New.empty()) {
    // An empty new file is a header without a hunk, as git writes it.
    if (Diff.find("new file mode") == std::string::npos ||
        Diff.find("\n@@ ") != std::string::npos)
      broken("an empty new file is not a bare new-file header");
    return 0;
  }
  if (Diff.empty())
    broken("no diff for a change");
  unsigned Added = 0, Removed = 0;
  if (apply(Before, Diff, Added, Removed) != New)
    broken("the diff does not turn the old file into the new one");
  DiffStat Stat = computeDiffStat(Change);
  if (Stat.Insertions != Added || Stat.Deletions != Removed)
    broken("the diffstat does not count the hunks' lines");

  // The whole patch, with a header, for the same change.
  PatchHeader Header;
  Header.Subject = "fuzz";
  Header.ToolVersion = "0";
  auto Patch = writePatch(Header, {Change});
  std::string Default = writeFileDiff(Change);
  if (Patch && (*Patch).find(Default) == std::string::npos)
    broken("the patch does not hold the file's diff");
  return 0;
}

//===- PatchWriter.cpp - A whole patch in git format-patch form -----------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Patch/PatchWriter.h"

#include "UnifiedDiffInternal.h"

#include <algorithm>
#include <set>

namespace forgestencil {
namespace patch {

namespace {

/// `git format-patch` lays its diffstat out for this many columns.
constexpr int DiffstatWidth = 72;

/// Prefix a body line must not start with: each opens a diff, a hunk or the
/// mail's signature for git apply, GNU patch or git am.
constexpr std::string_view DiffSyntaxPrefixes[] = {
    "diff ", "---", "+++ ", "***", "@@", "Index:", "Prereq:", "< ", "> ",
    "-- "};

/// Makes a line of free text safe to stand above the diffs: a line that a
/// patch reader could take for diff syntax gets a `| ` in front.
std::string neutraliseBodyLine(std::string_view Line) {
  std::string_view Trimmed = Line;
  while (!Trimmed.empty() && (Trimmed.front() == ' ' || Trimmed.front() == '\t'))
    Trimmed.remove_prefix(1);
  for (std::string_view Prefix : DiffSyntaxPrefixes)
    if (Trimmed.substr(0, Prefix.size()) == Prefix)
      return "| " + std::string(Line);
  return std::string(Line);
}

/// Splits free text into lines, dropping carriage returns: the header is
/// plain text and must not alter how a reader splits the lines below it.
std::vector<std::string> bodyLines(std::string_view Text) {
  std::vector<std::string> Lines(1);
  for (char C : Text) {
    if (C == '\n')
      Lines.emplace_back();
    else if (C != '\r')
      Lines.back() += C;
  }
  return Lines;
}

/// The subject as one line.
std::string singleLine(std::string_view Text) {
  std::string Out;
  for (char C : Text)
    Out += (C == '\n' || C == '\r') ? ' ' : C;
  size_t First = Out.find_first_not_of(' ');
  if (First == std::string::npos)
    return "";
  return Out.substr(First, Out.find_last_not_of(' ') - First + 1);
}

std::string formatMailHeader(const PatchHeader &Header) {
  std::string Out =
      "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
      "From: ForgeStencil <forgestencil@localhost>\n"
      "Subject: [PATCH] " +
      singleLine(Header.Subject) + "\n\n";

  std::vector<std::string> Body;
  if (!Header.Kernels.empty()) {
    Body.push_back("Kernels:");
    for (const std::string &Kernel : Header.Kernels)
      Body.push_back("  " + singleLine(Kernel));
  }
  Body.push_back("Measured speed-up: " +
                 (Header.SpeedupSummary ? singleLine(*Header.SpeedupSummary)
                                        : std::string("not measured yet")));
  Body.push_back("Tool: forgestencil " + singleLine(Header.ToolVersion));
  for (const std::string &Note : Header.Notes) {
    Body.emplace_back();
    for (std::string &Line : bodyLines(Note))
      Body.push_back(std::move(Line));
  }
  for (const std::string &Line : Body)
    Out += neutraliseBodyLine(Line) + "\n";
  return Out;
}

int decimalWidth(unsigned long long N) {
  int Width = 1;
  for (; N >= 10; N /= 10)
    ++Width;
  return Width;
}

/// git's graph scaling: a non-zero count never vanishes.
int scaleLinear(int Count, int Width, int MaxChange) {
  if (Count == 0)
    return 0;
  return 1 + static_cast<int>(static_cast<long long>(Count) * (Width - 1) /
                              MaxChange);
}

struct StatEntry {
  std::string Name; ///< As git prints it, quoted when needed.
  DiffStat Stat;
  bool IsNew;
};

/// The diffstat as `git format-patch` prints it: name, count and a +/- graph
/// per file, scaled to fit DiffstatWidth columns, then the totals and the
/// `create mode` summary.
std::string formatDiffstat(const std::vector<StatEntry> &Entries) {
  int MaxNameLength = 0, MaxChange = 0;
  for (const StatEntry &E : Entries) {
    MaxNameLength = std::max(MaxNameLength, static_cast<int>(E.Name.size()));
    MaxChange = std::max(
        MaxChange, static_cast<int>(E.Stat.Insertions + E.Stat.Deletions));
  }
  int NumberWidth = decimalWidth(MaxChange);
  int Width = std::max(DiffstatWidth, 16 + 6 + NumberWidth);
  int GraphWidth = MaxChange;
  int NameWidth = MaxNameLength;
  if (NameWidth + NumberWidth + 6 + GraphWidth > Width) {
    if (GraphWidth > Width * 3 / 8 - NumberWidth - 6)
      GraphWidth = std::max(Width * 3 / 8 - NumberWidth - 6, 6);
    if (NameWidth > Width - NumberWidth - 6 - GraphWidth)
      NameWidth = Width - NumberWidth - 6 - GraphWidth;
    else
      GraphWidth = Width - NumberWidth - 6 - NameWidth;
  }

  std::string Out;
  unsigned TotalInsertions = 0, TotalDeletions = 0;
  for (const StatEntry &E : Entries) {
    int Added = static_cast<int>(E.Stat.Insertions);
    int Deleted = static_cast<int>(E.Stat.Deletions);
    TotalInsertions += E.Stat.Insertions;
    TotalDeletions += E.Stat.Deletions;

    // A name too long for its column loses its head, up to a '/'.
    std::string_view Name = E.Name;
    std::string Prefix;
    int Columns = NameWidth;
    if (NameWidth < static_cast<int>(Name.size())) {
      Prefix = "...";
      Columns = std::max(Columns - 3, 0);
      Name.remove_prefix(Name.size() - Columns);
      size_t Slash = Name.find('/');
      if (Slash != std::string_view::npos)
        Name.remove_prefix(Slash);
    }
    int Padding = std::max(Columns - static_cast<int>(Name.size()), 0);

    int GraphAdded = Added, GraphDeleted = Deleted;
    if (GraphWidth <= MaxChange) {
      int Total = scaleLinear(Added + Deleted, GraphWidth, MaxChange);
      if (Total < 2 && Added && Deleted)
        Total = 2;
      if (Added < Deleted) {
        GraphAdded = scaleLinear(Added, GraphWidth, MaxChange);
        GraphDeleted = Total - GraphAdded;
      } else {
        GraphDeleted = scaleLinear(Deleted, GraphWidth, MaxChange);
        GraphAdded = Total - GraphDeleted;
      }
    }

    std::string Count = std::to_string(Added + Deleted);
    Out += " " + Prefix + std::string(Name) + std::string(Padding, ' ') +
           " | " +
           std::string(NumberWidth - static_cast<int>(Count.size()), ' ') +
           Count + (Added + Deleted ? " " : "") +
           std::string(GraphAdded, '+') + std::string(GraphDeleted, '-') +
           "\n";
  }

  size_t Files = Entries.size();
  Out += " " + std::to_string(Files) +
         (Files == 1 ? " file changed" : " files changed");
  if (TotalInsertions || !TotalDeletions)
    Out += ", " + std::to_string(TotalInsertions) +
           (TotalInsertions == 1 ? " insertion(+)" : " insertions(+)");
  if (TotalDeletions || !TotalInsertions)
    Out += ", " + std::to_string(TotalDeletions) +
           (TotalDeletions == 1 ? " deletion(-)" : " deletions(-)");
  Out += "\n";
  for (const StatEntry &E : Entries)
    if (E.IsNew)
      Out += " create mode 100644 " + E.Name + "\n";
  return Out;
}

} // namespace

Expected<std::string> writePatch(const PatchHeader &Header,
                                 std::vector<FileChange> Files) {
  if (singleLine(Header.Subject).empty())
    return makeFailure("a patch needs a subject line");

  std::set<std::string> SeenPaths;
  for (const FileChange &File : Files) {
    if (std::optional<std::string> Problem = checkPatchPath(File.Path))
      return makeFailure("cannot write a patch for '" + File.Path +
                         "': " + *Problem);
    if (!SeenPaths.insert(File.Path).second)
      return makeFailure("two changes name the same file '" + File.Path + "'");
  }
  std::sort(Files.begin(), Files.end(),
            [](const FileChange &L, const FileChange &R) {
              return L.Path < R.Path;
            });

  std::vector<StatEntry> Stats;
  std::string Diffs;
  for (const FileChange &File : Files) {
    detail::RenderedFileDiff Rendered =
        detail::renderFileDiff(File, DefaultContextLines);
    if (Rendered.Text.empty())
      continue;
    Stats.push_back({quotePathForGit(File.Path), Rendered.Stat,
                     File.isNewFile()});
    Diffs += Rendered.Text;
  }
  if (Stats.empty())
    return makeFailure("no file changes, so there is nothing to patch");

  return formatMailHeader(Header) + "---\n" + formatDiffstat(Stats) + "\n" +
         Diffs + "-- \nforgestencil " + singleLine(Header.ToolVersion) + "\n";
}

} // namespace patch
} // namespace forgestencil

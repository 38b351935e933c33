//===- ApplyPropertyTest.cpp - Patches apply with git and GNU patch -------===//
//
// Random old files (mixed LF/CRLF endings, tabs, with and without a final
// newline, sometimes empty) receive random runs of inserted, deleted and
// replaced lines; the patch for each batch must turn a tree of old files into
// the new files byte for byte, both with `git apply` and with `patch -p1`.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Patch/PatchWriter.h"

#include "TestSupport.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <random>

namespace fs = std::filesystem;
using namespace forgestencil::patch;
using namespace forgestencil::patch::test;

namespace {

/// The fixed seed keeps runs reproducible; FS_PATCH_PROPERTY_SEED picks
/// another one to explore more cases.
unsigned propertySeed() {
  const char *FromEnvironment = std::getenv("FS_PATCH_PROPERTY_SEED");
  return FromEnvironment ? static_cast<unsigned>(std::stoul(FromEnvironment))
                         : 20240611u;
}
constexpr int Batches = 20;
constexpr int FilesPerBatch = 50;

/// Generates the random files and edits.
class CaseGenerator {
public:
  explicit CaseGenerator(unsigned Seed) : Rng(Seed) {}

  FileChange nextChange(const std::string &Path) {
    if (chance(10))
      return {Path, std::nullopt, randomFile()};
    std::string Old = randomFile();
    std::string New = edit(Old);
    if (New == Old)
      New += randomLine() + "\n";
    return {Path, Old, New};
  }

private:
  /// True with probability Percent / 100.
  bool chance(size_t Percent) { return pick(100) < Percent; }
  size_t pick(size_t N) { return std::uniform_int_distribution<size_t>(0, N - 1)(Rng); }

  /// Line text without its ending. Repeats from a small vocabulary make
  /// ambiguous diffs; the rest look like code, diff syntax or noise.
  std::string randomLine() {
    static const char *const Vocabulary[] = {
        "",       "{",         "}",           "  x = 1;",        "\tint a;",
        "\t\tz",  " ",         "\t",          "--- a/fake",      "+++ b/fake",
        "@@ -1 +1 @@", "-- ",  "\\ No newline at end of file", "a\rb",
        "void step(float *u)", "diff --git a/x b/x", "  return;",
    };
    constexpr size_t VocabularySize = sizeof(Vocabulary) / sizeof(*Vocabulary);
    if (chance(60))
      return Vocabulary[pick(VocabularySize)];
    static const char Alphabet[] = "abcxyz019 \t;{}()=+-*/_";
    std::string Line;
    for (size_t I = 0, N = pick(14); I < N; ++I)
      Line += Alphabet[pick(sizeof(Alphabet) - 1)];
    return Line;
  }

  std::string randomEnding() { return chance(30) ? "\r\n" : "\n"; }

  /// The last line's ending: usually a newline, sometimes none or a lone CR.
  std::string randomFinalEnding() {
    size_t Choice = pick(10);
    if (Choice < 6)
      return randomEnding();
    return Choice < 9 ? "" : "\r";
  }

  std::vector<std::string> randomLines(size_t Count) {
    std::vector<std::string> Lines;
    for (size_t I = 0; I < Count; ++I)
      Lines.push_back(randomLine() + randomEnding());
    return Lines;
  }

  static std::string join(const std::vector<std::string> &Lines) {
    std::string Out;
    for (const std::string &Line : Lines)
      Out += Line;
    return Out;
  }

  std::string randomFile() {
    if (chance(8))
      return "";
    std::vector<std::string> Lines = randomLines(1 + pick(40));
    Lines.back() = randomLine() + randomFinalEnding();
    if (Lines.back().empty())
      Lines.back() = "tail";
    return join(Lines);
  }

  /// Splits like the diff does: every line keeps its '\n'.
  static std::vector<std::string> split(const std::string &Text) {
    std::vector<std::string> Lines;
    size_t Start = 0;
    while (Start < Text.size()) {
      size_t End = Text.find('\n', Start);
      End = End == std::string::npos ? Text.size() : End + 1;
      Lines.push_back(Text.substr(Start, End - Start));
      Start = End;
    }
    return Lines;
  }

  std::string edit(const std::string &Old) {
    std::vector<std::string> Lines = split(Old);
    for (size_t Run = 0, Runs = pick(5); Run <= Runs; ++Run) {
      size_t At = pick(Lines.size() + 1);
      size_t Length = 1 + pick(4);
      switch (pick(3)) {
      case 0: { // insert
        std::vector<std::string> Inserted = randomLines(Length);
        Lines.insert(Lines.begin() + At, Inserted.begin(), Inserted.end());
        break;
      }
      case 1: // delete
        Lines.erase(Lines.begin() + At,
                    Lines.begin() + std::min(At + Length, Lines.size()));
        break;
      default: { // replace
        size_t End = std::min(At + Length, Lines.size());
        for (size_t I = At; I < End; ++I)
          Lines[I] = randomLine() + randomEnding();
      }
      }
    }
    // Joining may merge a line that lacked its newline with the next one;
    // the result is just another file.
    std::string New = join(Lines);
    if (chance(25) && !New.empty() && New.back() == '\n')
      New.pop_back(); // drop the final newline
    else if (chance(15) && !New.empty() && New.back() != '\n')
      New += "\n"; // add one
    return New;
  }

  std::mt19937 Rng;
};

/// Writes the old side of \p Changes under \p Root.
void writeOldTree(const fs::path &Root, const std::vector<FileChange> &Changes) {
  fs::create_directories(Root);
  for (const FileChange &C : Changes)
    if (C.OldContent)
      writeFile(Root / C.Path, *C.OldContent);
}

/// Checks that \p Root holds exactly the new side of \p Changes.
void expectNewTree(const fs::path &Root, const std::vector<FileChange> &Changes,
                   const std::string &Tool, int Batch) {
  size_t Files = 0;
  for (const auto &Entry : fs::recursive_directory_iterator(Root))
    Files += Entry.is_regular_file();
  EXPECT_EQ(Files, Changes.size())
      << Tool << " left extra files (backups or rejects) in batch " << Batch;
  for (const FileChange &C : Changes) {
    std::optional<std::string> Got = readFile(Root / C.Path);
    ASSERT_TRUE(Got) << Tool << " did not create " << C.Path;
    EXPECT_EQ(*Got, C.NewContent)
        << Tool << ", batch " << Batch << ", " << C.Path << "\nold:\n"
        << (C.OldContent ? escapeForMessage(*C.OldContent) : "(new file)")
        << "\nexpected:\n"
        << escapeForMessage(C.NewContent) << "\ngot:\n"
        << escapeForMessage(*Got);
  }
}

TEST(ApplyPropertyTest, GitApplyAndGnuPatchReproduceNewFiles) {
  if (!haveProgram("git") || !haveProgram("patch"))
    GTEST_SKIP() << "needs git and GNU patch";
  unsigned Seed = propertySeed();
  SCOPED_TRACE("seed " + std::to_string(Seed));
  CaseGenerator Generator(Seed);
  PatchHeader Header;
  Header.Subject = "Random edits";
  Header.Kernels = {"k0", "k1"};
  Header.ToolVersion = "0.1.0";
  Header.Notes = {"--- a/d0/f0.txt\n+++ b/d0/f0.txt\n@@ -1 +1 @@\n-x\n+y"};

  for (int Batch = 0; Batch < Batches; ++Batch) {
    std::vector<FileChange> Changes;
    for (int File = 0; File < FilesPerBatch; ++File) {
      std::string Path = "d" + std::to_string(File % 4) +
                         (File % 7 == 0 ? "/with space " : "/f") +
                         std::to_string(File) + ".txt";
      Changes.push_back(Generator.nextChange(Path));
    }
    Expected<std::string> Patch = writePatch(Header, Changes);
    ASSERT_TRUE(Patch) << Patch.error();

    TempDir Dir;
    fs::path PatchFile = Dir.path() / "changes.patch";
    writeFile(PatchFile, *Patch);

    writeOldTree(Dir.path() / "git", Changes);
    CommandResult Git = runCommand(
        "git -c core.autocrlf=false apply --whitespace=nowarn '" +
            PatchFile.string() + "'",
        Dir.path() / "git");
    ASSERT_EQ(Git.ExitCode, 0) << "git apply, batch " << Batch << ":\n"
                               << Git.Output;
    expectNewTree(Dir.path() / "git", Changes, "git apply", Batch);

    // Plain `patch -p1`, as users run it: on POSIX it keeps CRs as line
    // content without --binary, since the patch's own lines end in LF.
    // --fuzz=0 refuses sloppy matches that could hide a wrong hunk.
    writeOldTree(Dir.path() / "gnu", Changes);
    CommandResult Gnu = runCommand(
        "patch -p1 --quiet --batch --fuzz=0 --no-backup-if-mismatch "
        "-i '" + PatchFile.string() + "'",
        Dir.path() / "gnu");
    ASSERT_EQ(Gnu.ExitCode, 0) << "patch, batch " << Batch << ":\n"
                               << Gnu.Output;
    EXPECT_EQ(Gnu.Output, "") << "patch, batch " << Batch;
    expectNewTree(Dir.path() / "gnu", Changes, "patch -p1", Batch);
    if (HasFailure())
      break;
  }
}

} // namespace

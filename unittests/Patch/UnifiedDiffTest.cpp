//===- UnifiedDiffTest.cpp - The diff of one file -------------------------===//
//
// Expected outputs are written from git's format by hand; GitAgreesOn...
// runs real `git diff --no-index` on the same contents and compares bytes.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Patch/UnifiedDiff.h"

#include "TestSupport.h"

#include "gtest/gtest.h"

using namespace forgestencil::patch;
using namespace forgestencil::patch::test;

namespace {

FileChange modify(std::string Path, std::string Old, std::string New) {
  return FileChange{std::move(Path), std::move(Old), std::move(New)};
}

FileChange create(std::string Path, std::string New) {
  return FileChange{std::move(Path), std::nullopt, std::move(New)};
}

/// The lines "1".."N", each with a newline.
std::string numberedLines(int N) {
  std::string Out;
  for (int I = 1; I <= N; ++I)
    Out += std::to_string(I) + "\n";
  return Out;
}

/// \p Text with line \p Line (1-based) replaced by \p Replacement.
std::string replaceLine(const std::string &Text, int Line,
                        const std::string &Replacement) {
  size_t Begin = 0;
  for (int I = 1; I < Line; ++I)
    Begin = Text.find('\n', Begin) + 1;
  size_t End = Text.find('\n', Begin);
  return Text.substr(0, Begin) + Replacement + Text.substr(End);
}

/// The hunks of a one-file diff: everything after the `+++` line.
std::string hunksOf(const std::string &Diff) {
  size_t Labels = Diff.find("\n+++ ");
  if (Labels == std::string::npos)
    return "";
  return Diff.substr(Diff.find('\n', Labels + 1) + 1);
}

TEST(UnifiedDiffTest, ExecutableFileKeepsItsMode) {
  std::string Old = numberedLines(3);
  FileChange C = modify("run.sh", Old, replaceLine(Old, 2, "two"));
  C.Executable = true;
  std::string Diff = writeFileDiff(C);
  EXPECT_NE(Diff.find("\nindex "), std::string::npos);
  EXPECT_NE(Diff.find(" 100755\n--- a/run.sh\n"), std::string::npos) << Diff;
  EXPECT_EQ(Diff.find("100644"), std::string::npos) << Diff;
}

TEST(UnifiedDiffTest, ChangedLineInTheMiddle) {
  std::string Old = numberedLines(10);
  EXPECT_EQ(writeFileDiff(modify("src/x.txt", Old, replaceLine(Old, 5, "five"))),
            "diff --git a/src/x.txt b/src/x.txt\n"
            "index f00c965..33011fd 100644\n"
            "--- a/src/x.txt\n"
            "+++ b/src/x.txt\n"
            "@@ -2,7 +2,7 @@\n"
            " 2\n"
            " 3\n"
            " 4\n"
            "-5\n"
            "+five\n"
            " 6\n"
            " 7\n"
            " 8\n");
}

TEST(UnifiedDiffTest, UnchangedFileHasNoDiff) {
  EXPECT_EQ(writeFileDiff(modify("a.c", "x\n", "x\n")), "");
}

TEST(UnifiedDiffTest, ChangesSixLinesApartShareAHunk) {
  // Lines 4..9 lie between the changes: 6 = 2 * 3 lines of context.
  std::string Old = numberedLines(20);
  std::string New = replaceLine(replaceLine(Old, 3, "c"), 10, "j");
  EXPECT_EQ(hunksOf(writeFileDiff(modify("f", Old, New))),
            "@@ -1,13 +1,13 @@\n"
            " 1\n 2\n-3\n+c\n 4\n 5\n 6\n 7\n 8\n 9\n-10\n+j\n 11\n 12\n 13\n");
}

TEST(UnifiedDiffTest, ChangesSevenLinesApartGetTwoHunks) {
  std::string Old = numberedLines(20);
  std::string New = replaceLine(replaceLine(Old, 3, "c"), 11, "k");
  EXPECT_EQ(hunksOf(writeFileDiff(modify("f", Old, New))),
            "@@ -1,6 +1,6 @@\n"
            " 1\n 2\n-3\n+c\n 4\n 5\n 6\n"
            "@@ -8,7 +8,7 @@\n"
            " 8\n 9\n 10\n-11\n+k\n 12\n 13\n 14\n");
}

TEST(UnifiedDiffTest, ContextWidthIsAParameter) {
  std::string Old = numberedLines(20);
  std::string New = replaceLine(replaceLine(Old, 3, "c"), 6, "f");
  EXPECT_EQ(hunksOf(writeFileDiff(modify("f", Old, New), 0)),
            "@@ -3 +3 @@\n-3\n+c\n"
            "@@ -6 +6 @@\n-6\n+f\n");
  EXPECT_EQ(hunksOf(writeFileDiff(modify("f", Old, New), 1)),
            "@@ -2,6 +2,6 @@\n 2\n-3\n+c\n 4\n 5\n-6\n+f\n 7\n");
}

TEST(UnifiedDiffTest, PureInsertionAndDeletionWithoutContext) {
  // A zero-length range names the line before it.
  std::string Old = numberedLines(5);
  std::string Inserted = Old.substr(0, 4) + "new\n" + Old.substr(4);
  EXPECT_EQ(hunksOf(writeFileDiff(modify("f", Old, Inserted), 0)),
            "@@ -2,0 +3 @@\n+new\n");
  EXPECT_EQ(hunksOf(writeFileDiff(modify("f", Inserted, Old), 0)),
            "@@ -3 +2,0 @@\n-new\n");
}

TEST(UnifiedDiffTest, NewlineAddedAtEndOfFile) {
  EXPECT_EQ(writeFileDiff(modify("t", "a\nb", "a\nb\n")),
            "diff --git a/t b/t\n"
            "index 0a207c0..422c2b7 100644\n"
            "--- a/t\n"
            "+++ b/t\n"
            "@@ -1,2 +1,2 @@\n"
            " a\n"
            "-b\n"
            "\\ No newline at end of file\n"
            "+b\n");
}

TEST(UnifiedDiffTest, NewlineRemovedAtEndOfFile) {
  EXPECT_EQ(hunksOf(writeFileDiff(modify("t", "a\nb\n", "a\nb"))),
            "@@ -1,2 +1,2 @@\n"
            " a\n"
            "-b\n"
            "+b\n"
            "\\ No newline at end of file\n");
}

TEST(UnifiedDiffTest, MissingNewlineOnBothSidesInContext) {
  EXPECT_EQ(writeFileDiff(modify("t", "1\n2\nx", "1\n3\nx")),
            "diff --git a/t b/t\n"
            "index 2b7d714..6b95c21 100644\n"
            "--- a/t\n"
            "+++ b/t\n"
            "@@ -1,3 +1,3 @@\n"
            " 1\n"
            "-2\n"
            "+3\n"
            " x\n"
            "\\ No newline at end of file\n");
}

TEST(UnifiedDiffTest, CarriageReturnsStayInTheLines) {
  EXPECT_EQ(writeFileDiff(modify("w.txt", "1\r\n2\r\n3\r\n", "1\r\n2b\r\n3\r\n")),
            "diff --git a/w.txt b/w.txt\n"
            "index 294d779..f276f1f 100644\n"
            "--- a/w.txt\n"
            "+++ b/w.txt\n"
            "@@ -1,3 +1,3 @@\n"
            " 1\r\n"
            "-2\r\n"
            "+2b\r\n"
            " 3\r\n");
}

TEST(UnifiedDiffTest, OnlyTheLineEndingChanges) {
  EXPECT_EQ(hunksOf(writeFileDiff(modify("w", "1\n2\n3\n", "1\n2\r\n3\n"))),
            "@@ -1,3 +1,3 @@\n 1\n-2\n+2\r\n 3\n");
}

TEST(UnifiedDiffTest, TabsAreKept) {
  EXPECT_EQ(hunksOf(writeFileDiff(modify("t", "\tfoo\n", "\tfoo\n\tbar\n"))),
            "@@ -1 +1,2 @@\n \tfoo\n+\tbar\n");
}

TEST(UnifiedDiffTest, NewFile) {
  EXPECT_EQ(writeFileDiff(create("include/forgestencil/use_ours.h", "hello\n")),
            "diff --git a/include/forgestencil/use_ours.h "
            "b/include/forgestencil/use_ours.h\n"
            "new file mode 100644\n"
            "index 0000000..ce01362\n"
            "--- /dev/null\n"
            "+++ b/include/forgestencil/use_ours.h\n"
            "@@ -0,0 +1 @@\n"
            "+hello\n");
}

TEST(UnifiedDiffTest, NewEmptyFileHasNoHunks) {
  EXPECT_EQ(writeFileDiff(create("empty", "")),
            "diff --git a/empty b/empty\n"
            "new file mode 100644\n"
            "index 0000000..e69de29\n");
}

TEST(UnifiedDiffTest, NewEmptyFileWithASpaceHasQuotedNames) {
  // The one departure from git: GNU patch could not split the bare names.
  EXPECT_EQ(writeFileDiff(create("my dir/empty", "")),
            "diff --git \"a/my dir/empty\" \"b/my dir/empty\"\n"
            "new file mode 100644\n"
            "index 0000000..e69de29\n");
}

TEST(UnifiedDiffTest, AllContentDeleted) {
  EXPECT_EQ(writeFileDiff(modify("gone", "a\nb\n", "")),
            "diff --git a/gone b/gone\n"
            "index 422c2b7..e69de29 100644\n"
            "--- a/gone\n"
            "+++ b/gone\n"
            "@@ -1,2 +0,0 @@\n"
            "-a\n"
            "-b\n");
}

TEST(UnifiedDiffTest, EmptyFileGetsContent) {
  EXPECT_EQ(writeFileDiff(modify("grow", "", "x\n")),
            "diff --git a/grow b/grow\n"
            "index e69de29..587be6b 100644\n"
            "--- a/grow\n"
            "+++ b/grow\n"
            "@@ -0,0 +1 @@\n"
            "+x\n");
}

TEST(UnifiedDiffTest, FunctionLineAboveTheHunk) {
  std::string Old = "int main(void)\t \n{\n" + numberedLines(8) + "}\n";
  std::string New = replaceLine(Old, 8, "six");
  // The nearest line above the hunk that starts with a letter, '_' or '$',
  // without trailing whitespace.
  EXPECT_EQ(hunksOf(writeFileDiff(modify("m.c", Old, New))),
            "@@ -5,7 +5,7 @@ int main(void)\n"
            " 3\n 4\n 5\n-6\n+six\n 7\n 8\n }\n");
}

TEST(UnifiedDiffTest, FunctionLineIsCutAt80Bytes) {
  std::string Long = "void " + std::string(100, 'f') + "()\n";
  std::string Old = Long + numberedLines(8);
  std::string New = replaceLine(Old, 8, "x");
  EXPECT_EQ(hunksOf(writeFileDiff(modify("m.c", Old, New))).substr(0, 100),
            "@@ -5,5 +5,5 @@ " + Long.substr(0, 80) + "\n 4\n");
}

TEST(UnifiedDiffTest, PathsWithSpacesEndTheirLabelWithATab) {
  std::string Diff = writeFileDiff(modify("my dir/f.txt", "a\n", "b\n"));
  EXPECT_EQ(Diff.substr(0, Diff.find("@@")),
            "diff --git a/my dir/f.txt b/my dir/f.txt\n"
            "index 7898192..6178079 100644\n"
            "--- a/my dir/f.txt\t\n"
            "+++ b/my dir/f.txt\t\n");
}

TEST(UnifiedDiffTest, UnusualPathsAreQuoted) {
  EXPECT_EQ(quotePathForGit("a/plain-name_1.cu"), "a/plain-name_1.cu");
  EXPECT_EQ(quotePathForGit("a/caf\xc3\xa9.cu"), "\"a/caf\\303\\251.cu\"");
  EXPECT_EQ(quotePathForGit("a/tab\there"), "\"a/tab\\there\"");
  EXPECT_EQ(quotePathForGit("a/q\"b\\c"), "\"a/q\\\"b\\\\c\"");
}

TEST(UnifiedDiffTest, PatchPathsMustBeRelativeAndClean) {
  EXPECT_FALSE(checkPatchPath("src/kernels/heat.cu"));
  EXPECT_TRUE(checkPatchPath(""));
  EXPECT_TRUE(checkPatchPath("/abs/path.cu"));
  EXPECT_TRUE(checkPatchPath("../outside.cu"));
  EXPECT_TRUE(checkPatchPath("src/./x.cu"));
  EXPECT_TRUE(checkPatchPath("src//x.cu"));
  EXPECT_TRUE(checkPatchPath("src/"));
  EXPECT_TRUE(checkPatchPath("src\\x.cu"));
}

TEST(UnifiedDiffTest, DiffStatCountsChangedLines) {
  DiffStat Stat = computeDiffStat(modify("f", "a\nb\nc\n", "a\nB\nc\nd\n"));
  EXPECT_EQ(Stat.Insertions, 2u);
  EXPECT_EQ(Stat.Deletions, 1u);
  Stat = computeDiffStat(create("n", "1\n2\n3"));
  EXPECT_EQ(Stat.Insertions, 3u);
  EXPECT_EQ(Stat.Deletions, 0u);
}

TEST(UnifiedDiffTest, OutputIsReproducible) {
  std::string Old = numberedLines(200), New = Old;
  for (int Line : {7, 50, 51, 120, 199})
    New = replaceLine(New, Line, "changed " + std::to_string(Line));
  EXPECT_EQ(writeFileDiff(modify("f", Old, New)),
            writeFileDiff(modify("f", Old, New)));
}

/// Runs `git diff --no-index` on \p Change; the labels come out as a/P, b/P.
std::string gitDiffOf(const FileChange &Change) {
  TempDir Dir;
  writeFile(Dir.path() / "b" / Change.Path, Change.NewContent);
  if (Change.isNewFile())
    return runCommand("cd b && git diff --no-index --no-color --no-ext-diff "
                      "/dev/null '" + Change.Path + "'",
                      Dir.path())
        .Output;
  writeFile(Dir.path() / "a" / Change.Path, *Change.OldContent);
  return runCommand("git diff --no-index --no-prefix --no-color "
                    "--no-ext-diff 'a/" + Change.Path + "' 'b/" +
                        Change.Path + "'",
                    Dir.path())
      .Output;
}

TEST(UnifiedDiffTest, GitAgreesOnUnambiguousChanges) {
  if (!haveProgram("git"))
    GTEST_SKIP() << "git is not installed";
  std::string Twenty = numberedLines(20);
  std::string Function = "static void step(float *u)\n{\n" + Twenty + "}\n";
  std::string Spaced = "int main(void)\t \r\n{\n" + Twenty + "}\n";
  std::string Long = "_" + std::string(100, 'f') + "()\n" + Twenty;
  std::string NotFunctions = " indented\n#define X\n\xc3\xa9t\u00e9\n" + Twenty;
  const FileChange Cases[] = {
      modify("src/x.txt", numberedLines(10),
             replaceLine(numberedLines(10), 5, "five")),
      modify("f", Twenty, replaceLine(replaceLine(Twenty, 3, "c"), 10, "j")),
      modify("f", Twenty, replaceLine(replaceLine(Twenty, 3, "c"), 11, "k")),
      modify("f", Twenty, replaceLine(Twenty, 20, "twenty")),
      modify("t", "a\nb", "a\nb\n"),
      modify("t", "a\nb\n", "a\nb"),
      modify("t", "1\n2\nx", "1\n3\nx"),
      modify("t", "1\n2\nx", "1\n2\ny"),
      modify("w.txt", "1\r\n2\r\n3\r\n", "1\r\n2b\r\n3\r\n"),
      modify("w", "1\n2\n3\n", "1\n2\r\n3\n"),
      modify("t", "\tfoo\n", "\tfoo\n\tbar\n"),
      modify("gone", "a\nb\n", ""),
      modify("grow", "", "x\n"),
      modify("grow", "", "x"),
      modify("k.cu", Function, replaceLine(Function, 15, "  u[0] = 1;")),
      modify("k.cu", Function,
             replaceLine(replaceLine(Function, 5, "x"), 20, "y")),
      modify("m.c", Spaced, replaceLine(Spaced, 12, "x")),
      modify("l.c", Long, replaceLine(Long, 9, "x")),
      modify("n.c", NotFunctions, replaceLine(NotFunctions, 12, "x")),
      modify("my dir/f.txt", "a\n", "b\n"),
      create("include/forgestencil/use_ours.h", "hello\n"),
      create("n.txt", "no newline"),
      create("crlf.txt", "a\r\nb\r\n"),
  };
  for (const FileChange &Change : Cases) {
    std::string Ours = writeFileDiff(Change);
    std::string Git = gitDiffOf(Change);
    EXPECT_EQ(Ours, Git) << "for " << Change.Path << "\nours:\n"
                         << escapeForMessage(Ours) << "git:\n"
                         << escapeForMessage(Git);
  }
}

} // namespace

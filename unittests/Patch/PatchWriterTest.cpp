//===- PatchWriterTest.cpp - Whole patches --------------------------------===//
//
// The expected patch is written from git format-patch's layout by hand;
// DiffstatAndDiffsMatchGitFormatPatch compares with real format-patch output.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Patch/PatchWriter.h"

#include "TestSupport.h"

#include "gtest/gtest.h"

namespace fs = std::filesystem;
using namespace forgestencil::patch;
using namespace forgestencil::patch::test;

namespace {

PatchHeader sampleHeader() {
  PatchHeader Header;
  Header.Subject = "Use ForgeStencil kernels for heat_step";
  Header.Kernels = {"heat_step (src/heat.cu:12)"};
  Header.SpeedupSummary = "1.84x end to end on NVIDIA H200 (median of 10 rounds)";
  Header.ToolVersion = "0.1.0";
  Header.Notes = {"Launches are guarded by USE_OURS; unset or 0 keeps the\n"
                  "original kernels."};
  return Header;
}

std::vector<FileChange> sampleChanges() {
  return {{"src/heat.cu", std::string("1\n2\n3\n"), "1\ntwo\n3\n"},
          {"include/forgestencil/use_ours.h", std::nullopt, "hello\n"}};
}

TEST(PatchWriterTest, FormatPatchLayout) {
  Expected<std::string> Patch = writePatch(sampleHeader(), sampleChanges());
  ASSERT_TRUE(Patch) << Patch.error();
  EXPECT_EQ(*Patch,
            "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
            "From: ForgeStencil <forgestencil@localhost>\n"
            "Subject: [PATCH] Use ForgeStencil kernels for heat_step\n"
            "\n"
            "Kernels:\n"
            "  heat_step (src/heat.cu:12)\n"
            "Measured speed-up: 1.84x end to end on NVIDIA H200 (median of 10 rounds)\n"
            "Tool: forgestencil 0.1.0\n"
            "\n"
            "Launches are guarded by USE_OURS; unset or 0 keeps the\n"
            "original kernels.\n"
            "---\n"
            " include/forgestencil/use_ours.h | 1 +\n"
            " src/heat.cu                     | 2 +-\n"
            " 2 files changed, 2 insertions(+), 1 deletion(-)\n"
            " create mode 100644 include/forgestencil/use_ours.h\n"
            "\n"
            "diff --git a/include/forgestencil/use_ours.h b/include/forgestencil/use_ours.h\n"
            "new file mode 100644\n"
            "index 0000000..ce01362\n"
            "--- /dev/null\n"
            "+++ b/include/forgestencil/use_ours.h\n"
            "@@ -0,0 +1 @@\n"
            "+hello\n"
            "diff --git a/src/heat.cu b/src/heat.cu\n"
            "index 01e79c3..d8eb098 100644\n"
            "--- a/src/heat.cu\n"
            "+++ b/src/heat.cu\n"
            "@@ -1,3 +1,3 @@\n"
            " 1\n"
            "-2\n"
            "+two\n"
            " 3\n"
            "-- \n"
            "forgestencil 0.1.0\n");
}

TEST(PatchWriterTest, UnmeasuredSpeedupIsSaidSo) {
  PatchHeader Header = sampleHeader();
  Header.SpeedupSummary.reset();
  Expected<std::string> Patch = writePatch(Header, sampleChanges());
  ASSERT_TRUE(Patch) << Patch.error();
  EXPECT_NE(Patch->find("\nMeasured speed-up: not measured yet\n"),
            std::string::npos);
}

TEST(PatchWriterTest, InputOrderDoesNotMatter) {
  std::vector<FileChange> Reversed = sampleChanges();
  std::swap(Reversed[0], Reversed[1]);
  Expected<std::string> A = writePatch(sampleHeader(), sampleChanges());
  Expected<std::string> B = writePatch(sampleHeader(), Reversed);
  ASSERT_TRUE(A && B);
  EXPECT_EQ(*A, *B);
}

TEST(PatchWriterTest, UnchangedFilesAreLeftOut) {
  std::vector<FileChange> Changes = sampleChanges();
  Changes.push_back({"src/same.cu", std::string("same\n"), "same\n"});
  Expected<std::string> Patch = writePatch(sampleHeader(), Changes);
  ASSERT_TRUE(Patch);
  EXPECT_EQ(Patch->find("same.cu"), std::string::npos);
}

TEST(PatchWriterTest, RefusesBadInput) {
  Expected<std::string> Patch = writePatch(
      sampleHeader(), {{"/etc/passwd", std::string("a\n"), "b\n"}});
  ASSERT_FALSE(Patch);
  EXPECT_NE(Patch.error().find("absolute"), std::string::npos);

  Patch = writePatch(sampleHeader(), {{"a.cu", std::string("a\n"), "b\n"},
                                      {"a.cu", std::string("a\n"), "c\n"}});
  ASSERT_FALSE(Patch);
  EXPECT_NE(Patch.error().find("same file"), std::string::npos);

  Patch = writePatch(sampleHeader(), {{"a.cu", std::string("a\n"), "a\n"}});
  ASSERT_FALSE(Patch);
  EXPECT_NE(Patch.error().find("nothing to patch"), std::string::npos);

  PatchHeader NoSubject = sampleHeader();
  NoSubject.Subject = " \n ";
  EXPECT_FALSE(writePatch(NoSubject, sampleChanges()));
}

TEST(PatchWriterTest, BodyTextCannotPassForDiffSyntax) {
  PatchHeader Header = sampleHeader();
  Header.Subject = "two\nlines";
  Header.Notes = {"--- a/src/heat.cu\n+++ b/src/heat.cu\n@@ -1 +1 @@\n"
                  "diff --git a/x b/x\n---\n  Index: x\n> quoted\nplain"};
  Expected<std::string> Patch = writePatch(Header, sampleChanges());
  ASSERT_TRUE(Patch);
  EXPECT_NE(Patch->find("Subject: [PATCH] two lines\n"), std::string::npos);
  EXPECT_NE(Patch->find("\n| --- a/src/heat.cu\n| +++ b/src/heat.cu\n"
                        "| @@ -1 +1 @@\n| diff --git a/x b/x\n| ---\n"
                        "|   Index: x\n| > quoted\nplain\n---\n"),
            std::string::npos)
      << *Patch;
}

TEST(PatchWriterTest, DiffstatScalesLongGraphsAndNames) {
  std::string Many;
  for (int I = 0; I < 200; ++I)
    Many += "line " + std::to_string(I) + "\n";
  std::string LongPath = "apps/very/deeply/nested/directory/structure/with/a/"
                         "rather/long/name/kernels.cu";
  Expected<std::string> Patch =
      writePatch(sampleHeader(), {{"big.cu", std::nullopt, Many},
                                  {LongPath, std::string("x\n"), "y\n"}});
  ASSERT_TRUE(Patch);
  size_t Begin = Patch->find("\n---\n") + 5;
  EXPECT_EQ(Patch->substr(Begin, Patch->find("\n\n", Begin) + 1 - Begin),
            // 72 columns: the graph gets 18, the name 45 and loses its head.
            " .../with/a/rather/long/name/kernels.cu        |   2 +-\n"
            " big.cu                                        | 200 "
            "++++++++++++++++++\n"
            " 2 files changed, 201 insertions(+), 1 deletion(-)\n"
            " create mode 100644 big.cu\n");
}

/// Runs `git format-patch` on a commit that makes \p Changes and returns the
/// part from the `---` line before the diffstat to the signature.
std::string formatPatchStatAndDiffs(const std::vector<FileChange> &Changes) {
  TempDir Dir;
  const std::string Git = "git -c user.name=T -c user.email=t@example.com "
                          "-c core.autocrlf=false ";
  runCommand("git init -q .", Dir.path());
  for (const FileChange &C : Changes)
    if (C.OldContent)
      writeFile(Dir.path() / C.Path, *C.OldContent);
  runCommand("git add -A && " + Git + "commit -q --allow-empty -m old",
             Dir.path());
  for (const FileChange &C : Changes)
    writeFile(Dir.path() / C.Path, C.NewContent);
  runCommand("git add -A && " + Git + "commit -q -m new", Dir.path());
  std::string Patch =
      runCommand(Git + "format-patch -1 --stdout --no-color", Dir.path())
          .Output;
  size_t Begin = Patch.find("\n---\n");
  size_t End = Patch.rfind("\n-- \n");
  if (Begin == std::string::npos || End == std::string::npos)
    return Patch;
  return Patch.substr(Begin, End - Begin);
}

std::string statAndDiffs(const std::string &Patch) {
  size_t Begin = Patch.find("\n---\n");
  return Patch.substr(Begin, Patch.rfind("\n-- \n") - Begin);
}

TEST(PatchWriterTest, DiffstatAndDiffsMatchGitFormatPatch) {
  if (!haveProgram("git"))
    GTEST_SKIP() << "git is not installed";
  std::string Many, Some;
  for (int I = 0; I < 120; ++I)
    Many += std::to_string(I) + "\n";
  for (int I = 0; I < 30; ++I)
    Some += std::to_string(I) + "\n";
  std::string LongPath = "apps/very/deeply/nested/directory/structure/with/a/"
                         "rather/long/name/kernels.cu";
  const std::vector<std::vector<FileChange>> Cases = {
      sampleChanges(),
      {{"big.cu", std::nullopt, Many},
       {LongPath, std::string("x\n"), "y\n"},
       {"empty.h", std::nullopt, ""},
       {"some.cu", Some, Some.substr(0, 12) + "a\nb\nc\n" + Some.substr(40)},
       {"dir with space/k.cu", std::string("1\n2\n"), "1\n2\n3"}},
      {{"only/deletions.cu", Many, Many.substr(0, 10)}},
      {{"a.cu", Many, "x\n" + Many}, {"b.cu", Some, Some + Many},
       {"c.cu", std::string("q\n"), "r\n"}},
  };
  for (const std::vector<FileChange> &Changes : Cases) {
    Expected<std::string> Ours = writePatch(sampleHeader(), Changes);
    ASSERT_TRUE(Ours) << Ours.error();
    std::string Git = formatPatchStatAndDiffs(Changes);
    EXPECT_EQ(statAndDiffs(*Ours), Git)
        << "ours:\n" << escapeForMessage(statAndDiffs(*Ours)) << "git:\n"
        << escapeForMessage(Git);
  }
}

} // namespace

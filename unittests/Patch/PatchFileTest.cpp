//===- PatchFileTest.cpp - Patch file names and atomic writes -------------===//

#include "forgestencil/Patch/PatchFile.h"

#include "TestSupport.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <sys/stat.h>

namespace fs = std::filesystem;
using namespace forgestencil::patch;
using namespace forgestencil::patch::test;

namespace {

TEST(PatchFileTest, SlugKeepsLowercaseWordsJoinedByDashes) {
  EXPECT_EQ(sanitiseSlug("Use ours: 3-D Laplacian (RTM)!"),
            "use-ours-3-d-laplacian-rtm");
  EXPECT_EQ(sanitiseSlug("  --heat__step--  "), "heat-step");
  EXPECT_EQ(sanitiseSlug("caf\xc3\xa9 kernels"), "caf-kernels");
  EXPECT_EQ(sanitiseSlug("!!!"), "patch");
  EXPECT_EQ(sanitiseSlug(""), "patch");
}

TEST(PatchFileTest, SlugIsCutWithoutATrailingDash) {
  std::string Slug = sanitiseSlug(std::string(51, 'a') + " bcd");
  EXPECT_EQ(Slug, std::string(51, 'a'));
  EXPECT_EQ(sanitiseSlug(std::string(60, 'z')), std::string(52, 'z'));
}

TEST(PatchFileTest, FirstPatchInAMissingDirectory) {
  TempDir Dir;
  Expected<std::string> Path =
      nextPatchPath((Dir.path() / "patches" / "rtm").string(), "Fuse stencils");
  ASSERT_TRUE(Path) << Path.error();
  EXPECT_EQ(*Path, (Dir.path() / "patches/rtm/0001-fuse-stencils.patch").string());
}

TEST(PatchFileTest, NextNumberFollowsTheHighest) {
  TempDir Dir;
  writeFile(Dir.path() / "0001-a.patch", "x");
  writeFile(Dir.path() / "0007-b.patch", "x");
  writeFile(Dir.path() / "0042-notes.txt", "x");   // not a patch
  writeFile(Dir.path() / "12-short.patch", "x");   // not numbered like one
  writeFile(Dir.path() / "README.patch", "x");
  Expected<std::string> Path = nextPatchPath(Dir.path().string(), "c");
  ASSERT_TRUE(Path) << Path.error();
  EXPECT_EQ(fs::path(*Path).filename(), "0008-c.patch");
}

TEST(PatchFileTest, IdenticalPatchIsFound) {
  TempDir Dir;
  writeFile(Dir.path() / "0001-a.patch", "first\n");
  writeFile(Dir.path() / "0002-b.patch", "second\n");
  writeFile(Dir.path() / "0003-b.patch", "second\n");
  writeFile(Dir.path() / "notes.txt", "third\n");
  EXPECT_EQ(findIdenticalPatch(Dir.path().string(), "second\n"),
            (Dir.path() / "0002-b.patch").string());
  EXPECT_FALSE(findIdenticalPatch(Dir.path().string(), "third\n"));
  EXPECT_FALSE(findIdenticalPatch(Dir.path().string(), "second"));
  EXPECT_FALSE(findIdenticalPatch((Dir.path() / "missing").string(), "x"));
}

TEST(PatchFileTest, DirectoryThatIsAFileIsAnError) {
  TempDir Dir;
  writeFile(Dir.path() / "file", "x");
  Expected<std::string> Path = nextPatchPath((Dir.path() / "file").string(), "c");
  ASSERT_FALSE(Path);
  EXPECT_NE(Path.error().find("not a directory"), std::string::npos);
}

TEST(PatchFileTest, AtomicWriteCreatesParentsAndLeavesNoTemporary) {
  TempDir Dir;
  fs::path Target = Dir.path() / "patches" / "heat" / "0001-x.patch";
  std::string Content = std::string("line\r\nno newline\0 at end", 24);
  Status Written = writePatchFileAtomically(Target.string(), Content);
  ASSERT_TRUE(Written.ok()) << Written.error();
  EXPECT_EQ(readFile(Target), Content);

  struct stat Info;
  ASSERT_EQ(::stat(Target.c_str(), &Info), 0);
  EXPECT_EQ(Info.st_mode & 0777, 0644u);

  // Overwriting replaces the content; only the target is left.
  ASSERT_TRUE(writePatchFileAtomically(Target.string(), "second\n").ok());
  EXPECT_EQ(readFile(Target), "second\n");
  size_t Entries = 0;
  for (const auto &Entry : fs::directory_iterator(Target.parent_path())) {
    (void)Entry;
    ++Entries;
  }
  EXPECT_EQ(Entries, 1u);
}

TEST(PatchFileTest, AtomicWriteFailsCleanly) {
  TempDir Dir;
  writeFile(Dir.path() / "blocker", "x");
  // The parent is a file, so nothing can be created below it.
  Status Written = writePatchFileAtomically(
      (Dir.path() / "blocker" / "0001-x.patch").string(), "content");
  EXPECT_FALSE(Written.ok());
  EXPECT_FALSE(Written.error().empty());

  // A directory in the way of the rename: the temporary file must go.
  fs::create_directories(Dir.path() / "out" / "0001-x.patch" / "inside");
  Written = writePatchFileAtomically(
      (Dir.path() / "out" / "0001-x.patch").string(), "content");
  EXPECT_FALSE(Written.ok());
  size_t Entries = 0;
  for (const auto &Entry : fs::directory_iterator(Dir.path() / "out")) {
    (void)Entry;
    ++Entries;
  }
  EXPECT_EQ(Entries, 1u);
}

const char *const OurHeader =
    "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
    "From: ForgeStencil <forgestencil@localhost>\n"
    "Subject: [PATCH] x\n\n";

std::vector<std::string> listing(const fs::path &Dir) {
  std::vector<std::string> Names;
  for (const auto &E : fs::directory_iterator(Dir))
    Names.push_back(E.path().filename().string());
  std::sort(Names.begin(), Names.end());
  return Names;
}

TEST(PatchFileTest, SeriesIsReplacedNotExtended) {
  TempDir Dir;
  writeFile(Dir.path() / "0001-old.patch", std::string(OurHeader) + "old\n");
  writeFile(Dir.path() / "0002-old-copy.patch", std::string(OurHeader) + "old\n");
  writeFile(Dir.path() / "notes.txt", "kept\n");
  std::string New = std::string(OurHeader) + "new\n";
  auto U = replacePatchSeries(Dir.path().string(), "New kernels", New);
  ASSERT_TRUE(U) << U.error();
  EXPECT_FALSE((*U).Unchanged);
  EXPECT_EQ((*U).Replaced.size(), 2u);
  EXPECT_EQ(listing(Dir.path()),
            (std::vector<std::string>{"0001-new-kernels.patch", "notes.txt"}));
  EXPECT_EQ(readFile(Dir.path() / "0001-new-kernels.patch"), New);
  // The same patch again changes nothing.
  U = replacePatchSeries(Dir.path().string(), "New kernels", New);
  ASSERT_TRUE(U) << U.error();
  EXPECT_TRUE((*U).Unchanged);
}

TEST(PatchFileTest, SeriesWithAForeignPatchIsRefused) {
  TempDir Dir;
  writeFile(Dir.path() / "0001-ours.patch", std::string(OurHeader) + "old\n");
  writeFile(Dir.path() / "0002-fix.patch", "From: Someone <s@x>\n");
  auto U = replacePatchSeries(Dir.path().string(), "n", OurHeader);
  ASSERT_FALSE(U);
  EXPECT_NE(U.error().find("0002-fix.patch, which fs-rewrite did not write"),
            std::string::npos)
      << U.error();
  EXPECT_EQ(listing(Dir.path()),
            (std::vector<std::string>{"0001-ours.patch", "0002-fix.patch"}));
}

TEST(PatchFileTest, ForgeStencilPatchesAreRecognisedByTheirHeader) {
  TempDir Dir;
  writeFile(Dir.path() / "a.patch", std::string(OurHeader) + "diff --git a/x b/x\n");
  writeFile(Dir.path() / "b.patch",
            "From: X <x@y>\n\ndiff --git a/x b/x\n+From: ForgeStencil "
            "<forgestencil@localhost>\n");
  EXPECT_TRUE(isForgeStencilPatch((Dir.path() / "a.patch").string()));
  EXPECT_FALSE(isForgeStencilPatch((Dir.path() / "b.patch").string()));
}

} // namespace

//===- AlreadyAppliedTest.cpp - Does a tree already carry a patch? --------===//

#include "forgestencil/Patch/AlreadyApplied.h"

#include "TestSupport.h"

#include "gtest/gtest.h"

using namespace forgestencil::patch;
using namespace forgestencil::patch::test;

namespace {

const std::string Original = "void run() {\n  step<<<g, b>>>(u);\n}\n";
const std::string Patched =
    "#include \"forgestencil/use_ours.h\"\n"
    "void run() {\n"
    "  if (forgestencil::use_ours()) { fs_step(g, b, 0, 0, u); }\n"
    "  else { step<<<g, b>>>(u); }\n"
    "}\n";

FileChange launchChange() { return {"src/run.cu", Original, Patched}; }

TEST(AlreadyAppliedTest, MarkerIsFoundWithItsLine) {
  EXPECT_EQ(findForgeStencilMarker(Patched),
            "line 1: forgestencil/use_ours.h");
  EXPECT_EQ(findForgeStencilMarker("int a;\nbool b = forgestencil::use_ours();\n"),
            "line 2: forgestencil::use_ours(");
  EXPECT_FALSE(findForgeStencilMarker(Original));
  EXPECT_FALSE(findForgeStencilMarker("bool use_ours();\n"));
}

TEST(AlreadyAppliedTest, OriginalTreeIsNotApplied) {
  EXPECT_EQ(detectAlreadyApplied(launchChange(), Original).State,
            ApplyState::NotApplied);
}

TEST(AlreadyAppliedTest, PatchedContentIsAlreadyApplied) {
  ApplyCheck Check = detectAlreadyApplied(launchChange(), Patched);
  EXPECT_EQ(Check.State, ApplyState::AlreadyApplied);
  EXPECT_NE(Check.Reason.find("src/run.cu"), std::string::npos);
}

TEST(AlreadyAppliedTest, ChangeComputedFromAPatchedTreeIsAlreadyApplied) {
  // The rewriter ran again on a patched tree: its old content is the tree.
  std::string Twice = "// guarded again\n" + Patched;
  ApplyCheck Check = detectAlreadyApplied({"src/run.cu", Patched, Twice}, Patched);
  EXPECT_EQ(Check.State, ApplyState::AlreadyApplied);
  EXPECT_NE(Check.Reason.find("line 1: forgestencil/use_ours.h"),
            std::string::npos);
}

TEST(AlreadyAppliedTest, OtherContentHasDiverged) {
  EXPECT_EQ(detectAlreadyApplied(launchChange(), "// edited\n" + Original).State,
            ApplyState::Diverged);
  EXPECT_EQ(detectAlreadyApplied(launchChange(), std::nullopt).State,
            ApplyState::Diverged);
}

TEST(AlreadyAppliedTest, NewFiles) {
  FileChange Header{"include/forgestencil/use_ours.h", std::nullopt,
                    "#pragma once\nnamespace forgestencil { bool use_ours(); }\n"};
  EXPECT_EQ(detectAlreadyApplied(Header, std::nullopt).State,
            ApplyState::NotApplied);
  EXPECT_EQ(detectAlreadyApplied(Header, Header.NewContent).State,
            ApplyState::AlreadyApplied);
  EXPECT_EQ(detectAlreadyApplied(Header, std::string("unrelated\n")).State,
            ApplyState::Diverged);
}

TEST(AlreadyAppliedTest, WholeTree) {
  TempDir Dir;
  FileChange Header{"include/forgestencil/use_ours.h", std::nullopt,
                    "#pragma once\n"};
  std::vector<FileChange> Changes = {launchChange(), Header};

  writeFile(Dir.path() / "src/run.cu", Original);
  ApplyCheck Check = detectAlreadyAppliedInTree(Dir.path().string(), Changes);
  EXPECT_EQ(Check.State, ApplyState::NotApplied) << Check.Reason;

  writeFile(Dir.path() / "src/run.cu", Patched);
  Check = detectAlreadyAppliedInTree(Dir.path().string(), Changes);
  EXPECT_EQ(Check.State, ApplyState::Diverged) << Check.Reason;
  EXPECT_NE(Check.Reason.find("part of the patch"), std::string::npos);

  writeFile(Dir.path() / "include/forgestencil/use_ours.h", "#pragma once\n");
  Check = detectAlreadyAppliedInTree(Dir.path().string(), Changes);
  EXPECT_EQ(Check.State, ApplyState::AlreadyApplied) << Check.Reason;
  EXPECT_NE(Check.Reason.find("src/run.cu"), std::string::npos);
  EXPECT_NE(Check.Reason.find("use_ours.h"), std::string::npos);
}

} // namespace

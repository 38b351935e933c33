//===- SourceLayoutTest.cpp - Include points, indentation, line ends ------===//

#include "forgestencil/Rewrite/SourceLayout.h"

#include "gtest/gtest.h"

#include <string>

using namespace forgestencil::rewrite;

namespace {

/// The text of the line that starts at \p Offset, or "<eof>".
std::string lineAt(const std::string &Content, unsigned Offset) {
  if (Offset >= Content.size())
    return "<eof>";
  return Content.substr(Offset, Content.find('\n', Offset) - Offset);
}

TEST(IncludeInsertion, AfterLastTopLevelInclude) {
  std::string C = "// c\n#include <a.h>\n#include \"b.h\"\n\nint x;\n";
  EXPECT_EQ(lineAt(C, includeInsertionLine(C, C.size())), "");
}

TEST(IncludeInsertion, InsideIncludeGuard) {
  std::string C = "#ifndef G_H\n#define G_H\n#include <a.h>\nint x;\n#endif\n";
  EXPECT_EQ(lineAt(C, includeInsertionLine(C, C.size())), "int x;");
}

TEST(IncludeInsertion, GuardWithoutIncludes) {
  std::string C = "#ifndef G_H\n#define G_H\nint x;\n#endif\n";
  EXPECT_EQ(lineAt(C, includeInsertionLine(C, C.size())), "int x;");
}

TEST(IncludeInsertion, PragmaOnceWithoutIncludes) {
  std::string C = "// header\n#pragma once\nint x;\n";
  EXPECT_EQ(lineAt(C, includeInsertionLine(C, C.size())), "int x;");
}

TEST(IncludeInsertion, AfterConditionalSection) {
  std::string C = "#include <a.h>\n#ifdef USE_MPI\n#include <mpi.h>\n#endif\n"
                  "int x;\n";
  EXPECT_EQ(lineAt(C, includeInsertionLine(C, C.size())), "int x;");
}

TEST(IncludeInsertion, AfterExternCBlock) {
  std::string C = "#include <a.h>\nextern \"C\" {\n#include \"legacy.h\"\n}\n"
                  "int x;\n";
  EXPECT_EQ(lineAt(C, includeInsertionLine(C, C.size())), "int x;");
}

TEST(IncludeInsertion, AfterCppGuardedExternC) {
  std::string C = "#ifdef __cplusplus\nextern \"C\" {\n#endif\n#include \"c.h\"\n"
                  "#ifdef __cplusplus\n}\n#endif\nint x;\n";
  EXPECT_EQ(lineAt(C, includeInsertionLine(C, C.size())), "int x;");
}

TEST(IncludeInsertion, IgnoresIncludeInsideFunctionBody) {
  std::string C = "#include <a.h>\nvoid f() {\n#include \"body.inc\"\n}\n";
  EXPECT_EQ(lineAt(C, includeInsertionLine(C, C.size())), "void f() {");
}

TEST(IncludeInsertion, StopsBeforeLimit) {
  std::string C = "#include <a.h>\nint x;\n#include <late.h>\nint y;\n";
  unsigned Limit = C.find("int x;");
  EXPECT_EQ(lineAt(C, includeInsertionLine(C, Limit)), "int x;");
}

TEST(IncludeInsertion, NoIncludesAfterLeadingComments) {
  std::string C = "// License\n// text\n\nint x;\n";
  EXPECT_EQ(lineAt(C, includeInsertionLine(C, C.size())), "int x;");
}

TEST(IncludeInsertion, NoIncludesAfterLeadingBlockComment) {
  // The line that only closes the comment is comment, not code: the include
  // goes after it, not inside the comment.
  std::string C = "/* Licence\n * text\n */\n\n__global__ void k();\n";
  EXPECT_EQ(lineAt(C, includeInsertionLine(C, C.size())),
            "__global__ void k();");
}

TEST(IncludeInsertion, CodeAfterAClosingCommentIsCode) {
  std::string C = "/* a */ int x;\nint y;\n";
  EXPECT_EQ(lineAt(C, includeInsertionLine(C, C.size())), "/* a */ int x;");
}

TEST(LogicalLine, StartsAtTheDirectiveABackslashContinues) {
  std::string C = "int a;\n#define M(k) \\\n  one; \\\r\n  k();\nint b;\n";
  unsigned Inside = C.find("k();");
  EXPECT_EQ(lineAt(C, logicalLineStart(C, Inside)), "#define M(k) \\");
  EXPECT_EQ(lineAt(C, logicalLineStart(C, C.find("int b"))), "int b;");
  EXPECT_EQ(logicalLineStart(C, 2), 0u);
}

TEST(IncludeInsertion, CommentedIncludeIsNotAnInclude) {
  std::string C = "#include <a.h>\n/*\n#include <b.h>\n*/\nint x;\n";
  EXPECT_EQ(lineAt(C, includeInsertionLine(C, C.size())), "/*");
}

TEST(InsertInclude, KeepsMissingFinalNewlineMissing) {
  std::string C = "#include <a.h>";
  TextEdit E = insertIncludeAt(C, C.size(), "x.h");
  EXPECT_EQ(E.Offset, C.size());
  EXPECT_EQ(E.Text, "\n#include \"x.h\"");
}

TEST(InsertInclude, UsesTheFileLineEnding) {
  std::string C = "#include <a.h>\r\nint x;\r\n";
  TextEdit E = insertIncludeAt(C, includeInsertionLine(C, C.size()), "x.h");
  EXPECT_EQ(E.Offset, C.find("int x;"));
  EXPECT_EQ(E.Text, "#include \"x.h\"\r\n");
}

TEST(InsertLineAfter, GoesAfterTheWholeLine) {
  std::string C = "void f();\nint y;\n";
  TextEdit E = insertLineAfter(C, 3, "void g();");
  EXPECT_EQ(E.Offset, C.find("int y;"));
  EXPECT_EQ(E.Text, "void g();\n");
}

TEST(Indentation, StepFollowsTheFile) {
  std::string Four = "void f() {\n    if (x) {\n        g();\n    }\n}\n";
  EXPECT_EQ(indentStep(Four, "    "), "    ");
  std::string Two = "void f() {\n  g();\n}\n";
  EXPECT_EQ(indentStep(Two, "  "), "  ");
  EXPECT_EQ(indentStep(Two, "\t"), "\t");
  EXPECT_EQ(indentStep("int x;\n", ""), "  ");
}

TEST(Indentation, LineIndentationAndContinuations) {
  std::string C = "a\n  \tb c\n";
  EXPECT_EQ(lineIndentation(C, C.find('c')), "  \t");
  EXPECT_EQ(indentContinuationLines("f(a,\n  b);", "  "), "f(a,\n    b);");
  EXPECT_EQ(lineEnding("a\r\nb"), "\r\n");
  EXPECT_EQ(lineEnding("a\nb"), "\n");
}

} // namespace

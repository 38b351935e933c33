//===- ParamNamesTest.cpp - Parameters named like generated locals --------===//

#include "forgestencil/Forge/CodeGen.h"
#include "forgestencil/Forge/NamedStencils.h"
#include "forgestencil/Forge/ParamNames.h"

#include <gtest/gtest.h>

#include <functional>

using namespace forgestencil;

namespace {

ir::StencilIR named(const std::string &Name) {
  std::string Error;
  return *forge::namedStencil(Name, "float", Error);
}

bool contains(const std::string &Text, const std::string &Piece) {
  return Text.find(Piece) != std::string::npos;
}

forge::GenerateOptions options() {
  forge::GenerateOptions O;
  O.LauncherName = "fs_test";
  return O;
}

TEST(ParamNames, RenamesWholeIdentifiersOnly) {
  std::map<std::string, std::string> R = {{"x", "fs_p_x"}, {"n", "m"}};
  EXPECT_EQ(forge::renameIdentifiers(
                "x + info.x * 2 - a->x + ns::x + x::k + 1e5f + xx + x1 + n*n",
                R),
            "fs_p_x + info.x * 2 - a->x + ns::x + x::k + 1e5f + xx + x1 + m*m");
  // A member of a renamed struct parameter keeps its field name.
  EXPECT_EQ(forge::renameIdentifiers("x.x_offset + x . x", R),
            "fs_p_x.x_offset + fs_p_x . x");
  // Hex and exponent literals are numbers, not identifiers.
  EXPECT_EQ(forge::renameIdentifiers("0x1F + 2.5e-3f + 'x'", R),
            "0x1F + 2.5e-3f + 'x'");
}

TEST(ParamNames, OnlyTheFunctionsTakingTheParametersAreLookedInto) {
  const std::string Code = "#include <x.h>\n"
                           "#define M(a) { a; }\n"
                           "namespace {\n"
                           "// helper: b c\n"
                           "int helper(int u) { return u; }\n"
                           "template <typename Idx>\n"
                           "__global__ void k(const float *P0, Idx n) {\n"
                           "  if (n) { const Idx x = helper(2); }\n"
                           "  printf(\"%d lo0\", 'q'); /* s0 */ dim3 g; g.y; g . z;\n"
                           "}\n"
                           "} // namespace\n"
                           "extern \"C\" {\n"
                           "void launch(int P1) { int t = P1; }\n"
                           "}\n"
                           "struct S { int v; };\n";
  std::set<std::string> Seen =
      forge::identifiersSeenBy(Code, {"P0", "P1"});
  EXPECT_EQ(Seen, (std::set<std::string>{
                      "template", "typename", "Idx", "__global__", "void",
                      "k", "const", "float", "P0", "n", "if", "x", "helper",
                      "printf", "dim3", "g", "int", "launch", "P1",
                      "t"}));
}

TEST(ParamNames, RenamesEveryPlaceTheIrNamesAParameter) {
  ir::StencilIR IR = named("star3d_r1");
  IR.Axes[0].ThreadOffset = "off.x";
  IR.Params.push_back({"off", "info_t", ir::Param::Other});
  ir::StencilIR R = forge::renameParams(
      IR, {{"in", "fs_p_in"}, {"nx", "fs_p_nx"}, {"off", "fs_p_off"}});
  std::vector<std::string> Names;
  for (const ir::Param &P : R.Params)
    Names.push_back(P.Name);
  EXPECT_EQ(Names, (std::vector<std::string>{"fs_p_in", "out", "fs_p_nx", "ny",
                                             "nz", "c0", "c1", "fs_p_off"}));
  EXPECT_EQ(R.Inputs[0].Param, "fs_p_in");
  EXPECT_EQ(R.Axes[0].Upper, "fs_p_nx - 1");
  EXPECT_EQ(R.Axes[0].ThreadOffset, "fs_p_off.x");
  EXPECT_EQ(R.Strides[2], "fs_p_nx * ny");
  std::string Code = forge::emitExpr(
      R.Updates[0].Value,
      [](const std::string &A, const ir::Offset &) { return A; }, &R);
  EXPECT_TRUE(contains(Code, "fs_p_in")) << Code;
  EXPECT_FALSE(contains(Code, "(in")) << Code;
}

/// The parameter list that follows Head in Source.
std::string declared(const std::string &Source, const std::string &Head) {
  size_t At = Source.find(Head);
  if (At == std::string::npos)
    return "(no " + Head + ")";
  return Source.substr(At, Source.find(')', At) - At);
}

/// Calls Check(strategy, point, source) for every search point of every
/// strategy (searched on Space) that generates code for IR.
void forEachGenerated(
    const ir::StencilIR &Space, const ir::StencilIR &IR,
    const std::function<void(const forge::Strategy &,
                             const forge::StrategyParams &,
                             const std::string &)> &Check) {
  for (const auto &S : forge::allStrategies())
    for (const forge::StrategyParams &P : S->searchSpace(Space)) {
      SCOPED_TRACE(P.id());
      forge::GeneratedSource G = S->generate(IR, P, options());
      if (G.ok())
        Check(*S, P, G.Source);
    }
}

TEST(ParamNames, OnlyCollidingParametersAreRenamed) {
  // The ordinary names of the in-tree stencils never collide, so their
  // generated code (and the patches that hold it) is what it always was.
  ir::StencilIR Plain = named("star3d_r1");
  forge::GenerateOptions O = options();
  forEachGenerated(Plain, Plain,
                   [&](const forge::Strategy &S, const forge::StrategyParams &P,
                       const std::string &Source) {
                     EXPECT_TRUE(forge::collidingParams(
                                     Plain,
                                     [&](const ir::StencilIR &I) {
                                       return S.generate(I, P, O).Source;
                                     })
                                     .empty());
                     EXPECT_TRUE(
                         contains(Source, "const float *__restrict__ in"));
                   });

  // A kernel whose input is called hi0, its output lo0 and its row length
  // s0: every generated kernel takes parameters of those names itself.
  ir::StencilIR Clash = forge::renameParams(
      Plain, {{"in", "hi0"}, {"out", "lo0"}, {"nx", "s0"}});
  ir::StencilIR Safe = forge::renameParams(
      Plain, {{"in", "fs_p_hi0"}, {"out", "fs_p_lo0"}, {"nx", "fs_p_s0"}});
  int Generated = 0;
  forEachGenerated(Plain, Clash,
                   [&](const forge::Strategy &S, const forge::StrategyParams &P,
                       const std::string &Source) {
                     ++Generated;
                     // The same code as for a kernel that had used the safe
                     // names.
                     EXPECT_EQ(Source, S.generate(Safe, P, O).Source);
                     EXPECT_TRUE(
                         contains(Source, "const float *__restrict__ fs_p_hi0"));
                     EXPECT_FALSE(contains(Source, "__restrict__ hi0,"));
                   });
  EXPECT_GT(Generated, 3);
  // One point per thread (naive) declares x, y and z; the z-march x0 and
  // z, not x.
  ir::StencilIR X = forge::renameParams(Plain, {{"in", "x"}});
  forge::StrategyParams Naive = forge::findStrategy("naive")->searchSpace(X)[0];
  EXPECT_TRUE(contains(forge::findStrategy("naive")->generate(X, Naive, O).Source,
                       "const float *__restrict__ fs_p_x"));
  forge::StrategyParams March =
      forge::findStrategy("zmarch")->searchSpace(X)[0];
  EXPECT_TRUE(contains(forge::findStrategy("zmarch")->generate(X, March, O).Source,
                       "const float *__restrict__ x,"));

  // The original kernel declares i, j, k and fs_i, not lo0 or s0.
  forge::GenerateOptions Orig = options();
  Orig.LauncherName = "fs_original";
  EXPECT_EQ(forge::emitOriginalSource(forge::renameParams(Plain, {{"in", "i"}}),
                                      Orig),
            forge::emitOriginalSource(
                forge::renameParams(Plain, {{"in", "fs_p_i"}}), Orig));
  EXPECT_TRUE(contains(forge::emitOriginalSource(Clash, Orig),
                       "float *__restrict__ lo0, int s0"));
}

TEST(ParamNames, LauncherArgumentNamesCollideToo) {
  // The launcher's own parameters (grid, block, stream) are generated names.
  ir::StencilIR IR =
      forge::renameParams(named("star2d_r1"), {{"nx", "grid"}, {"ny", "block"}});
  forge::StrategyParams P = forge::allStrategies()[0]->searchSpace(IR)[0];
  forge::GeneratedSource G =
      forge::allStrategies()[0]->generate(IR, P, options());
  ASSERT_TRUE(G.ok()) << G.Error;
  EXPECT_TRUE(contains(G.Source, "int fs_p_grid, int fs_p_block"))
      << declared(G.Source, "void fs_test(");
}

} // namespace

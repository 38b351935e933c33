//===- CodeGenTest.cpp - Domain, guards and expression order ---------------===//

#include "forgestencil/Forge/CodeGen.h"
#include "forgestencil/Forge/NamedStencils.h"

#include <gtest/gtest.h>

using namespace forgestencil;

namespace {

bool contains(const std::string &Text, const std::string &Piece) {
  return Text.find(Piece) != std::string::npos;
}

ir::StencilIR named(const std::string &Name, const std::string &T = "float") {
  std::string Error;
  return *forge::namedStencil(Name, T, Error);
}

/// The IR's original kernel (retyped to To when given), as fs-bench emits it.
std::string original(const ir::StencilIR &IR, const std::string &To = "") {
  forge::GenerateOptions O;
  O.LauncherName = "fs_original";
  return forge::emitOriginalSource(IR, O, To);
}

forge::StrategyParams params(const ir::StencilIR &IR,
                             const std::string &Strategy, unsigned VW,
                             unsigned PY, unsigned ZC) {
  forge::StrategyParams P;
  P.Strategy = Strategy;
  P.VectorWidth = VW;
  P.PointsY = PY;
  P.ZChunk = ZC;
  if (IR.Dims < 3)
    P.BlockY = 1;
  return P;
}

forge::GeneratedSource
generateFrom(const ir::StencilIR &IR, const forge::StrategyParams &P,
             forge::ConstantMode M = forge::ConstantMode::UseExisting) {
  forge::GenerateOptions O;
  O.LauncherName = "fs_test";
  O.Constants = M;
  return forge::findStrategy(P.Strategy)->generate(IR, P, O);
}

std::string generate(const ir::StencilIR &IR, const std::string &Strategy,
                     unsigned VW = 1, unsigned PY = 1, unsigned ZC = 1,
                     forge::ConstantMode M = forge::ConstantMode::UseExisting) {
  auto G = generateFrom(IR, params(IR, Strategy, VW, PY, ZC), M);
  EXPECT_TRUE(G.ok()) << G.Error;
  return G.Source;
}

TEST(CodeGen, LauncherIntersectsGuardsWithTheOriginalGrid) {
  ir::StencilIR IR = named("star3d_r1");
  IR.Axes[0].ThreadOffset = "1"; // i = blockIdx.x*blockDim.x+threadIdx.x+1
  std::string S = generate(IR, "naive");
  EXPECT_TRUE(contains(S, "void fs_test(dim3 grid, dim3 block, size_t shmem, "
                          "cudaStream_t stream, const float *__restrict__ in"));
  EXPECT_TRUE(contains(S, "const long long fs_first = (long long)(1);"));
  EXPECT_TRUE(contains(S, "(long long)grid.x * (long long)block.x"));
  EXPECT_TRUE(contains(S, "fs_lo[0] = fs_max((long long)(1), fs_first);"));
  EXPECT_TRUE(
      contains(S, "fs_hi[0] = fs_min((long long)(nx - 1), fs_first + "
                  "fs_covered);"));
  EXPECT_TRUE(contains(S, "fs_st[2] = (long long)(nx * ny);"));
  // Empty domains launch nothing; sizes decide the index width.
  EXPECT_TRUE(contains(S, "if (fs_hi[a] <= fs_lo[a])"));
  EXPECT_TRUE(contains(S, "fs_test_kernel<long long>"));
  EXPECT_TRUE(contains(S, "if (fs_fits32)"));
  // The kernel runs on the caller's stream.
  EXPECT_TRUE(contains(S, "0, stream>>>"));
}

TEST(CodeGen, LoopAxesTakeTheirBoundsOnly) {
  ir::StencilIR IR = named("star3d_r1");
  IR.Axes[2].Source = ir::AxisSource::Loop;
  std::string S = generate(IR, "zmarch", 1, 1, 32);
  EXPECT_TRUE(contains(S, "fs_lo[2] = (long long)(1);"));
  EXPECT_TRUE(contains(S, "fs_hi[2] = (long long)(nz - 1);"));
  EXPECT_FALSE(contains(S, "grid.z * (long long)block.z"));
}

TEST(CodeGen, RejectsWhatWouldRace) {
  std::string Error;
  ir::StencilIR IR = named("star3d_r1");
  IR.Updates[0].Value.Args[0].Args[1].Name = "out"; // out read at the centre
  IR.Updates[0].Value.Args[1].Args[1].Args[1].Name = "out"; // and beside it
  EXPECT_FALSE(forge::StencilView::create(IR, Error));
  EXPECT_TRUE(contains(Error, "neighbour")) << Error;

  // A 1-D id other than blockIdx.x * blockDim.x + threadIdx.x: which points
  // the original covers is unknown.
  ir::StencilIR Linear = named("star2d_r1");
  Linear.Axes[0].Source = ir::AxisSource::Linear;
  EXPECT_FALSE(forge::StencilView::create(Linear, Error));
  EXPECT_TRUE(contains(Error, "1-D thread id")) << Error;
}

/// The named 2-D stencil \p Name on a 1-D thread id split as jacobi2d
/// splits it: x = id % Row, y = id / Row.
ir::StencilIR onLinearIds(const std::string &Name, const std::string &Row) {
  ir::StencilIR IR = named(Name);
  for (ir::Axis &X : IR.Axes)
    X.Source = ir::AxisSource::Linear;
  IR.Axes[0].LinearStep = "1";
  IR.Axes[0].LinearModulus = Row;
  IR.Axes[1].LinearStep = Row;
  return IR;
}

TEST(CodeGen, LinearIdsTakeTheStrategyKernelOnlyWhenTheyReachTheDomain) {
  // jacobi2d's style: i = id % nx, j = id / nx.
  ir::StencilIR IR = onLinearIds("star2d_r1", "nx");
  std::string Error;
  ASSERT_TRUE(forge::StencilView::create(IR, Error)) << Error;
  forge::StrategyParams P = params(IR, "multipoint", 4, 1, 1);
  forge::GeneratedSource G = generateFrom(IR, P);
  ASSERT_TRUE(G.ok()) << G.Error;
  const std::string S = G.Source;
  // The covered-ids kernel comes before the launcher; the launcher clamps
  // the split coordinate to its modulus, never to the grid, and tests the
  // domain's last id against the launch's ids before the strategy's launch.
  size_t Ids = S.find("__global__ void fs_test_ids(");
  size_t Launcher = S.find("void fs_test(dim3 grid");
  size_t Clamp = S.find("fs_hi[0] = fs_min(fs_hi[0], (long long)(0) + (long long)(nx));");
  size_t Reach = S.find("const long long fs_ids = (long long)grid.x * block.x;");
  size_t Test = S.find("(long long)(nx) >= fs_ids) {");
  size_t Strategy = S.find("fs_test_kernel<int><<<");
  ASSERT_NE(Ids, std::string::npos) << S;
  EXPECT_LT(Ids, Launcher);
  EXPECT_LT(Launcher, Clamp);
  EXPECT_LT(Clamp, Reach);
  EXPECT_LT(Reach, Test);
  EXPECT_LT(Test, Strategy);
  EXPECT_FALSE(contains(S, "grid.y")) << S;
  // The same stencil on thread axes has no such kernel.
  G = generateFrom(named("star2d_r1"), P);
  ASSERT_TRUE(G.ok()) << G.Error;
  EXPECT_FALSE(contains(G.Source, "fs_test_ids"));
}

TEST(CodeGen, RejectsAnUpdateReadingAnotherOutput) {
  ir::StencilIR IR = named("fdtd_e");
  // Make Ey's update read Ex: the result would depend on update order.
  IR.Updates[1].Value.Args[0].Args[1].Name = "Ex";
  std::string Error;
  EXPECT_FALSE(forge::StencilView::create(IR, Error));
  EXPECT_TRUE(contains(Error, "read by the update")) << Error;
}

TEST(CodeGen, ExpressionKeepsTreeOrder) {
  ir::Expr A, B, C;
  A.Kind = B.Kind = C.Kind = ir::Expr::Literal;
  A.Value = "a";
  B.Value = "b";
  C.Value = "c";
  ir::Expr Left, Right;
  Left.Kind = Right.Kind = ir::Expr::Binary;
  Left.Op = Right.Op = "+";
  Left.Args = {A, B};
  ir::Expr LeftSum = Left;
  Left.Args = {LeftSum, C};
  Right.Args = {B, C};
  ir::Expr RightSum = Right;
  Right.Args = {A, RightSum};
  auto NoRead = [](const std::string &, const ir::Offset &) {
    return std::string("?");
  };
  EXPECT_EQ(forge::emitExpr(Left, NoRead), "((a + b) + c)");
  EXPECT_EQ(forge::emitExpr(Right, NoRead), "(a + (b + c))");
  ir::Expr Neg;
  Neg.Kind = ir::Expr::Unary;
  Neg.Op = "neg";
  Neg.Args = {A};
  EXPECT_EQ(forge::emitExpr(Neg, NoRead), "(-a)");
}

TEST(CodeGen, VectorPathChecksAlignmentAndKeepsAScalarFallback) {
  std::string S = generate(named("rtm"), "zmarch", 4, 1, 32);
  EXPECT_TRUE(contains(S, "fs_st[0] == 1 && fs_st[1] % 4 == 0"));
  EXPECT_TRUE(contains(S, "((uintptr_t)u % 16) == 0"));
  EXPECT_TRUE(contains(S, "((uintptr_t)u_next % 16) == 0"));
  EXPECT_TRUE(contains(S, "fs_test_kernel_scalar<int>"));
  EXPECT_TRUE(contains(S, "fs_test_kernel_scalar<long long>"));
  // Whole groups start at aligned columns; rows cut by the domain's edge
  // go point by point with guards.
  EXPECT_TRUE(contains(S, "const Idx fs_xa = ((lo0 + 3) / 4 * 4 < hi0 ? "
                          "(lo0 + 3) / 4 * 4 : hi0);"));
  EXPECT_TRUE(contains(S, "if (y0 + 1 <= hi1) {"));
  EXPECT_FALSE(contains(S, "x0 + 4 <= hi0"));
  EXPECT_TRUE(contains(S, "if (x < lo0 || x >= hi0 || y >= hi1)"));
  EXPECT_TRUE(contains(S, "*(float4 *)(u_next + fs_p) = make_float4("));
  // The radius-4 centre column is a queue of 9 planes.
  EXPECT_TRUE(contains(S, "q_u_0_m4 = q_u_0_m3;"));
  EXPECT_TRUE(contains(S, "q_u_0_3 = q_u_0_4;"));
}

TEST(CodeGen, EdgeColumnsOfVectorGroupsHaveABlockColumnOfTheirOwn) {
  // Vectors of 2 from an odd first column (a box of radius 1): the columns
  // before the first aligned group and after the last are not computed by
  // the vector warps (which would run the per-point path beside the vector
  // one), but by one extra block column, one point wide.
  std::string S = generate(named("box3d_r1"), "zsum", 2, 2, 32);
  EXPECT_TRUE(contains(S, "if ((Idx)blockIdx.x >= fs_whole) {"));
  EXPECT_TRUE(contains(S, "const Idx fs_cols = fs_head + (hi0 - fs_xe);"));
  EXPECT_TRUE(contains(S, "const Idx x0 = fs_c < fs_head ? lo0 + fs_c : "
                          "fs_xe + (fs_c - fs_head);"));
  EXPECT_TRUE(contains(S, "const Idx y0 = lo1 + (bm * 4 + fs_g) * 2;"));
  // The vector warps start at the 128-byte line holding the first aligned
  // column; the threads before that column end at once.
  EXPECT_TRUE(contains(S, "const Idx fs_xl = fs_xa / 32 * 32;"));
  EXPECT_TRUE(contains(S, "const Idx x0 = fs_xl + ((Idx)blockIdx.x * 32"));
  EXPECT_TRUE(contains(S, "  if (x0 < fs_xa || x0 >= fs_xe)\n    return;"));
  // The launcher adds that block column only when there are such columns.
  EXPECT_TRUE(contains(S, "const bool fs_cols = fs_xa > fs_lo[0] || fs_xe < "
                          "fs_hi[0];"));
  EXPECT_TRUE(contains(S, "fs_blocks(fs_xe > fs_xa ? fs_xe - fs_xa / 32 * 32 : 0, "
                          "64, 2147483647LL) + (fs_cols ? 1 : 0), fs_gy, fs_gz);"));
  // One point wide, the edge column needs no x guard of its own.
  EXPECT_FALSE(contains(S, "x0 >= lo0 && x0 + 1 <= hi0"));
}

TEST(CodeGen, ShortRunsOfPlanesKeepCutGroupsInTheirWarps) {
  // Over one or two planes a block column of its own costs more than the
  // per-point path of the cut groups (the FDTD E update on the H200).
  std::string S = generate(named("box3d_r1"), "multipoint", 2, 2, 1);
  EXPECT_TRUE(contains(S, "const Idx fs_xa = (lo0 / 2) * 2;"));
  EXPECT_TRUE(contains(S, "if (x0 >= lo0 && x0 + 2 <= hi0 && y0 + 2 <= hi1)"));
  EXPECT_FALSE(contains(S, "fs_whole"));
  EXPECT_TRUE(contains(S, "fs_blocks(fs_hi[0] - fs_xa, 64, 2147483647LL), "
                          "fs_gy, fs_gz);"));
}

forge::GeneratedSource generateStaged(const ir::StencilIR &IR,
                                      const std::string &Strategy,
                                      unsigned BX, unsigned BY, unsigned VW,
                                      unsigned ZC, unsigned Stages) {
  forge::StrategyParams P = params(IR, Strategy, VW, 1, ZC);
  P.BlockX = BX;
  P.BlockY = BY;
  P.Stages = Stages;
  return generateFrom(IR, P);
}

TEST(CodeGen, StagedPlanesAreCopiedAheadAndWaitedForBeforeTheyAreRead) {
  // The box's tile of 32 float4 columns and 4 rows, plus one chunk and one
  // row on each side, in a ring of 1 + 2 planes.
  auto G = generateStaged(named("box3d_r1"), "zsum", 32, 4, 4, 16, 2);
  ASSERT_TRUE(G.ok()) << G.Error;
  const std::string &S = G.Source;
  EXPECT_TRUE(contains(S, "extern __shared__ float4 fs_stage_smem[];"));
  EXPECT_TRUE(contains(S, "float4 (*const fs_st_in)[6][34] = "
                          "reinterpret_cast<float4 (*)[6][34]>("));
  EXPECT_TRUE(contains(S, "<<<fs_grid, fs_block, 9792, stream>>>"));
  EXPECT_FALSE(contains(S, "cudaFuncSetAttribute"));
  // Each of the 128 threads copies chunks t and t + 128 of 204.
  EXPECT_TRUE(contains(S, "const bool fs_con_in_1 = (fs_ct + 128) < 204;"));
  // Two planes before the first step; each step waits for all but its
  // youngest group, meets the barrier, then copies two planes ahead into
  // the slot read one step before.
  EXPECT_TRUE(contains(S, "// The first 2 planes, one commit group each."));
  EXPECT_TRUE(contains(S, "__pipeline_wait_prior(1);\n"
                          "        __syncthreads();\n"
                          "        const unsigned fs_k_in = (unsigned)(p - "
                          "fs_c0_in);\n"
                          "        if (p + (2) <= fs_pe_in) {"));
  EXPECT_TRUE(contains(S, "&fs_st_in[(fs_k_in + 2) % 3][0][0];"));
  EXPECT_TRUE(contains(S, "const float4 r_in_0_c0 = "
                          "fs_st_in[(fs_k_in + 0) % 3][fs_ty + 1][fs_tx + 1];"));
  EXPECT_TRUE(contains(S, "const float r_in_0_cm1 = "
                          "fs_st_in[(fs_k_in + 0) % 3][fs_ty + 1][fs_tx + 0].w;"));
  // Every thread meets the barriers; only those with a group compute.
  EXPECT_TRUE(contains(S, "const bool fs_act = fs_xin && y0 < hi1;"));
  EXPECT_TRUE(contains(S, "__pipeline_wait_prior(0);"));
  // Copies stay within what the original reads, whose ends the launcher
  // requires on chunk boundaries.
  EXPECT_TRUE(contains(S, "fs_span_add(fs_span_in, fs_lo, fs_hi, fs_st, -1, "
                          "-1, -1);"));
  EXPECT_TRUE(contains(S, "fs_span_in[0] % 4 == 0 && (fs_span_in[1] + 1) % "
                          "4 == 0 && fs_reach + 6LL * fs_abs(fs_st[1]) + 136 "
                          "< 2147483647LL"));
  EXPECT_TRUE(contains(S, ", (int)fs_span_in[0], (int)fs_span_in[1]);"));
}

TEST(CodeGen, StagedQueueTakesItsNewPlaneFromTheRing) {
  // rtm: u's centre column is a queue of planes -4..4; its new plane (+4)
  // comes from the ring, which holds planes 0..4 and two ahead.
  auto G = generateStaged(named("rtm"), "zmarch", 32, 8, 2, 32, 2);
  ASSERT_TRUE(G.ok()) << G.Error;
  EXPECT_TRUE(contains(G.Source, "float2 (*const fs_st_u)[16][36] = "));
  EXPECT_TRUE(contains(G.Source,
                       "q_u_0_4 = fs_st_u[(fs_k_u + 4) % 7][fs_ty + 4][fs_tx + 2];"));
  // The arrays read at the centre only are not staged.
  EXPECT_FALSE(contains(G.Source, "fs_st_vel"));
  // Within the default 48 KiB nothing is asked for.
  EXPECT_FALSE(contains(G.Source, "cudaFuncSetAttribute"));
  // 8 planes of 24 x 36 float2 (a 32x16 block three planes ahead): more
  // than the default 48 KiB, asked for.
  G = generateStaged(named("rtm"), "zmarch", 32, 16, 2, 32, 3);
  ASSERT_TRUE(G.ok()) << G.Error;
  EXPECT_TRUE(contains(G.Source, "cudaFuncAttributeMaxDynamicSharedMemorySize, "
                                 "55296);"));
  EXPECT_TRUE(contains(G.Source, "<<<fs_grid, fs_block, 55296, stream>>>"));
}

TEST(CodeGen, StagedPlanesRefuseWhatTheyCannotDo) {
  auto G = generateStaged(named("box3d_r1"), "zsum", 32, 4, 1, 16, 2);
  EXPECT_NE(G.Error.find("staged planes need vectors of 2 or 4"),
            std::string::npos)
      << G.Error;
  G = generateStaged(named("box3d_r1"), "zsum", 32, 4, 4, 2, 2);
  EXPECT_NE(G.Error.find("runs of 4 planes or more"),
            std::string::npos)
      << G.Error;
  G = generateStaged(named("rtm"), "zmarch", 32, 16, 4, 32, 8);
  EXPECT_NE(G.Error.find("more than 96 KiB"), std::string::npos) << G.Error;
  G = generateStaged(named("star2d_r1"), "zmarch", 128, 1, 4, 32, 1);
  EXPECT_NE(G.Error.find("three dimensions"), std::string::npos) << G.Error;
}

TEST(CodeGen, ZSumKnowsWhatTheFirstAndLastStepsOfALongRunAdd) {
  // A run of at least 2r planes: its first two steps add the terms of the
  // planes below (-1) and then also the centre (0), its last two the
  // centre and above (0, 1) and then above only, with no test; shorter runs
  // test at every step.
  std::string S = generate(named("box3d_r1"), "zsum", 4, 1, 8);
  const size_t Long = S.find("if (ze - zs >= 2) {");
  const size_t Short = S.find("} else {", Long);
  ASSERT_NE(Long, std::string::npos);
  ASSERT_NE(Short, std::string::npos);
  const std::string Static = S.substr(Long, Short - Long);
  EXPECT_EQ(Static.find("fs_on_"), std::string::npos);
  EXPECT_EQ(Static.find("if (", 1), std::string::npos);
  EXPECT_NE(Static.find("          ++p;\n"), std::string::npos);
  // The first step starts the sums of the output above with w[0]..w[8];
  // w[9] (the centre plane's first term) first appears in the second.
  const size_t Second = Static.find("++p;");
  EXPECT_NE(Static.find("(w[0] * r_in_m1_cm1)"), std::string::npos);
  EXPECT_GT(Static.find("w[9]"), Second);
  EXPECT_NE(S.substr(Short).find("const bool fs_on_m1 = p - (-1) >= zs"),
            std::string::npos);
}

TEST(CodeGen, ZSumRunsOfFourPlanesHaveTheEdgeBlockColumn) {
  // Four planes computed, six read: long enough for the block column (the
  // box at 512^3 ran at 38 % of copy without it, 70 % with it).
  std::string S = generate(named("box3d_r1"), "zsum", 4, 1, 4);
  EXPECT_TRUE(contains(S, "if ((Idx)blockIdx.x >= fs_whole) {"));
  S = generate(named("box3d_r1"), "zsum", 4, 1, 2);
  EXPECT_FALSE(contains(S, "fs_whole"));
}

TEST(CodeGen, VectorGroupsNeedAThreadPerEdgeColumn) {
  forge::StrategyParams P;
  P.Strategy = "zmarch";
  P.BlockX = 4;
  P.BlockY = 8;
  P.VectorWidth = 4;
  P.ZChunk = 16;
  forge::GenerateOptions O;
  O.LauncherName = "fs_test";
  auto G = forge::findStrategy("zmarch")->generate(named("rtm"), P, O);
  EXPECT_NE(G.Error.find("block x must be at least 6"), std::string::npos)
      << G.Error;
}

TEST(CodeGen, WrittenArraysAreNeverReadThroughTheReadOnlyCache) {
  std::string S = generate(named("fdtd_e"), "zmarch", 4, 1, 16);
  EXPECT_TRUE(contains(S, "__ldg((const float4 *)(Hx"));
  EXPECT_FALSE(contains(S, "__ldg((const float4 *)(Ex"));
  EXPECT_TRUE(contains(S, "(*(const float4 *)(Ex"));
}

TEST(CodeGen, ConstantsAreDefinedOnlyWhenAsked) {
  ir::StencilIR IR = named("star3d_r4");
  std::string Existing = generate(IR, "naive");
  EXPECT_FALSE(contains(Existing, "static __constant__"));
  std::string Own = generate(IR, "naive", 1, 1, 1,
                             forge::ConstantMode::DefineWithSetter);
  EXPECT_TRUE(contains(Own, "static __constant__ float c[5];"));
  EXPECT_TRUE(contains(Own, "cudaError_t fs_test_set_c(const void *host"));
}

TEST(CodeGen, SmemTileSynchronisesAroundEveryPlane) {
  std::string S = generate(named("star3d_r4"), "zmarch_smem", 1, 1, 32);
  EXPECT_TRUE(contains(S, "__shared__ float t_in[12][40];"));
  EXPECT_TRUE(contains(S, "__syncthreads(); // the previous plane"));
  // A star's tile: the thread's own point from the register queue, the
  // halo by the edge threads, only where the original reads (no corner).
  EXPECT_TRUE(contains(S, "t_in[ty + 4][tx + 4] = q_in_0;"));
  EXPECT_TRUE(contains(S, "else if ((x < hi0 + 4 && y < hi1) || (x < hi0 && "
                          "y < hi1 + 4))"));
  EXPECT_TRUE(contains(S, "if (ty < 4 && x < hi0)"));
  EXPECT_TRUE(contains(S, "if (tx < 4 && y < hi1 && x + 32 < hi0 + 4)"));
  EXPECT_FALSE(contains(S, "fs_c /"));
}

TEST(CodeGen, SmemTileOfABlockSmallerThanTheHaloFillsCellByCell) {
  ir::StencilIR IR = named("star3d_r4");
  forge::StrategyParams P;
  P.Strategy = "zmarch_smem";
  P.BlockX = 32;
  P.BlockY = 2; // smaller than the radius: no edge threads for 4 rows
  P.ZChunk = 32;
  forge::GenerateOptions O;
  auto G = forge::findStrategy("zmarch_smem")->generate(IR, P, O);
  ASSERT_TRUE(G.ok()) << G.Error;
  EXPECT_TRUE(contains(G.Source, "gx >= lo0 - 4 && gx < hi0 + 4"));
  EXPECT_TRUE(contains(G.Source, "fs_c / 40"));
}

TEST(CodeGen, ZSumAddsEachPlaneIntoThePartialSumsInTreeOrder) {
  std::string S = generate(named("box3d_r1"), "zsum", 2, 1, 32);
  // The first plane starts the sum for the output one plane up; the next
  // planes continue the same chain; the last one stores it.
  EXPECT_TRUE(contains(S, "fs_s0_0_0_1 = (((((w[0] * r_in_m1_cm1)"));
  EXPECT_TRUE(contains(S, "fs_s0_0_0_0 = (((fs_s0_0_0_0 + (((w[9] *"));
  EXPECT_TRUE(contains(S, "*(float2 *)(out + fs_p + (-1) * s2) ="));
  // Chunk ends and starts test which outputs are in [zs, ze); the planes
  // in between do not.
  EXPECT_TRUE(contains(S, "const bool fs_on_m1 = p - (-1) >= zs && p - (-1) < ze;"));
  EXPECT_TRUE(contains(S, "for (; p < ze + (-1); ++p) {"));
  // One element of a neighbouring vector is loaded as that element.
  EXPECT_TRUE(contains(S, "const float r_in_0_cm1 = __ldg((const float *)(in + fs_p + (-1) * s0));"));
}

TEST(CodeGen, ZSumNeedsTermsThatEachReadOnePlaneInOrder) {
  const forge::Strategy *Z = forge::findStrategy("zsum");
  EXPECT_NE(Z->whyNot(named("star3d_r1")).find("reads several planes"),
            std::string::npos);
  EXPECT_NE(Z->whyNot(named("box2d_r1")).find("three dimensions"),
            std::string::npos);
  EXPECT_EQ(Z->whyNot(named("box3d_r2")), "");
  // The same box summed from the top plane down cannot be streamed upwards.
  ir::StencilIR Down = named("box3d_r1");
  const ir::Expr *E = &Down.Updates[0].Value;
  ir::Expr Reversed;
  {
    std::vector<ir::Expr> Terms;
    while (E->Kind == ir::Expr::Binary && E->Op == "+") {
      Terms.push_back(E->Args[1]);
      E = &E->Args[0];
    }
    Terms.push_back(*E); // now top plane first
    Reversed = Terms[0];
    for (size_t I = 1; I < Terms.size(); ++I) {
      ir::Expr Sum;
      Sum.Kind = ir::Expr::Binary;
      Sum.Op = "+";
      Sum.Args = {Reversed, Terms[I]};
      Reversed = Sum;
    }
  }
  Down.Updates[0].Value = Reversed;
  EXPECT_NE(Z->whyNot(Down).find("not in plane order"), std::string::npos);
}

TEST(CodeGen, ArrayPointerParametersAreDeclaredAroundTheirName) {
  EXPECT_EQ(forge::declareParam("float (*)[512]", "out"), "float (*out)[512]");
  EXPECT_EQ(forge::declareParam("const float (*)[64][128]", "u"),
            "const float (*u)[64][128]");
  EXPECT_EQ(forge::declareParam("const float *__restrict__", "u"),
            "const float *__restrict__ u");
  // A kernel taking `float (*out)[512]`: the launcher keeps that signature
  // and hands the generated kernel the flat element pointer.
  ir::StencilIR IR = named("star2d_r1");
  for (ir::Param &P : IR.Params)
    if (P.Name == "out")
      P.Type = "float (*)[8192]";
  std::string S = generate(IR, "naive");
  EXPECT_TRUE(contains(S, "float (*out)[8192]")) << S;
  EXPECT_TRUE(contains(S, "(float *)out")) << S;
  std::string Orig = forge::emitOriginalSource(IR, forge::GenerateOptions());
  EXPECT_TRUE(contains(Orig, "fs_original_kernel(const float *__restrict__ in, float *out"))
      << Orig;
}

TEST(CodeGen, MultiDimensionalConstantsAreIndexedAsDeclared) {
  ir::StencilIR IR = named("box2d_r1");
  for (ir::Coefficient &C : IR.Coefficients)
    if (C.Name == "w")
      C.Shape = {3, 3};
  // The app's own `__constant__ float w[3][3]`: element 5 is w[1][2].
  std::string S = generate(IR, "naive");
  EXPECT_TRUE(contains(S, "(w[1][2] * ")) << S;
  EXPECT_FALSE(contains(S, "w[5]"));
  // A file that defines its own copy declares it the same way.
  std::string Own = generate(IR, "naive", 1, 1, 1,
                             forge::ConstantMode::DefineWithSetter);
  EXPECT_TRUE(contains(Own, "static __constant__ float w[3][3];")) << Own;
  std::string Error;
  auto RT = ir::fromJson(ir::toJson(IR), Error);
  ASSERT_TRUE(RT) << Error;
  for (const ir::Coefficient &C : RT->Coefficients) {
    if (C.Name == "w") {
      EXPECT_EQ(C.Shape, (std::vector<unsigned>{3, 3}));
    }
  }
}

TEST(CodeGen, OriginalGuardsThreadAxes) {
  std::string S = original(named("star2d_r1"));
  EXPECT_TRUE(contains(S, "if (i < (1) || i >= (nx - 1))"));
  EXPECT_TRUE(contains(S, "if (j < (1) || j >= (ny - 1))"));
  std::string D = original(named("star2d_r1"), "double");
  EXPECT_TRUE(contains(D, "const double *__restrict__ in"));
  EXPECT_TRUE(contains(D, "double c0"));
}

TEST(CodeGen, ClampedAxesLaunchTheFrameBeforeTheInterior) {
  // Every strategy's launcher goes through the head: the frame kernel is
  // defined before the launcher and launched on the caller's stream before
  // the strategy's kernel, which gets the interior.
  for (const char *Name : {"hotspot2d", "star3d_r1_clamp", "box3d_r1_clamp"}) {
    ir::StencilIR IR = named(Name);
    for (const auto &Strat : forge::allStrategies()) {
      for (const forge::StrategyParams &P : Strat->searchSpace(IR)) {
        forge::GeneratedSource G = generateFrom(IR, P);
        if (!G.ok())
          continue; // e.g. zsum on a star
        const std::string &S = G.Source;
        SCOPED_TRACE(std::string(Name) + " " + P.id());
        size_t Frame = S.find("__global__ void fs_test_frame(");
        size_t Launcher = S.find("void fs_test(dim3 grid");
        size_t Shrink = S.find("fs_ilo[0] = fs_min(fs_max(fs_lo[0], (long "
                               "long)(0) - (-1)), fs_hi[0]);");
        size_t Launch = S.find("fs_test_frame<<<fs_blocks(fs_count, 256, "
                               "1048576), 256, 0, stream>>>(");
        size_t Interior = S.find("fs_lo[a] = fs_ilo[a];");
        size_t Reach = S.find("long long fs_reach");
        size_t Strategy = S.find("fs_test_kernel<int><<<");
        ASSERT_NE(Frame, std::string::npos);
        EXPECT_LT(Frame, Launcher);
        EXPECT_LT(Launcher, Shrink);
        EXPECT_LT(Shrink, Launch);
        EXPECT_LT(Launch, Interior);
        // fs_fits32 is decided on the interior the strategy's kernel gets.
        EXPECT_LT(Interior, Reach);
        ASSERT_NE(Strategy, std::string::npos);
        EXPECT_LT(Reach, Strategy);
        EXPECT_TRUE(contains(S, "return; // no interior"));
      }
    }
  }
}

TEST(CodeGen, FrameBoxesAreTakenAlongEveryClampedViewAxis) {
  // 3-D clamped along y only (view axis 1); 2-D hotspot along x and y (view
  // axes 0 and 2: a 2-D stencil has no middle axis).
  ir::StencilIR IR = named("star3d_r1");
  IR.Axes[1].Lower = "0";
  IR.Axes[1].Upper = "ny";
  IR.Axes[1].ClampLower = "0";
  IR.Axes[1].ClampUpper = "ny - 1";
  std::string S = generate(IR, "zmarch", 4, 1, 32);
  EXPECT_TRUE(contains(S, "const int fs_axes[1] = {1};")) << S;
  EXPECT_TRUE(contains(S, "fs_ihi[1] = fs_max(fs_min(fs_hi[1], (long long)"
                          "(ny - 1) + 1 - (1)), fs_ilo[1]);"));
  EXPECT_FALSE(contains(S, "fs_ilo[0] = fs_min"));
  // Clamped reads along y only; x and z read at plain offsets.
  EXPECT_TRUE(contains(S, "in[fs_i + (fs_clamp(y + (-1), (long long)(0), "
                          "(long long)(ny - 1)) - y) * s1]"));
  EXPECT_TRUE(contains(S, "in[fs_i + (-1) * s0]"));
  EXPECT_FALSE(contains(S, "fs_clamp(x"));
  std::string H = generate(named("hotspot2d"), "naive");
  EXPECT_TRUE(contains(H, "const int fs_axes[2] = {0, 2};")) << H;
  EXPECT_TRUE(contains(H, "t_in[fs_i + (fs_clamp(z + (1), (long long)(0), "
                          "(long long)(rows - 1)) - z) * s2]"));
}

TEST(CodeGen, UnclampedStencilsHaveNoFrameCode) {
  for (const char *Name : {"star2d_r1", "box3d_r1", "rtm"}) {
    std::string S = generate(named(Name), "naive");
    EXPECT_FALSE(contains(S, "fs_clamp")) << Name;
    EXPECT_FALSE(contains(S, "_frame")) << Name;
    EXPECT_FALSE(contains(S, "fs_ilo")) << Name;
    EXPECT_FALSE(contains(original(named(Name)), "fs_clamp"));
  }
}

TEST(CodeGen, ClampedLinearIdsKernelClampsItsReads) {
  // The covered-ids kernel computes points of the frame too.
  ir::StencilIR IR = onLinearIds("hotspot2d", "cols");
  std::string S = generate(IR, "naive");
  size_t Ids = S.find("__global__ void fs_test_ids(");
  size_t Frame = S.find("__global__ void fs_test_frame(");
  ASSERT_NE(Ids, std::string::npos);
  ASSERT_NE(Frame, std::string::npos);
  EXPECT_NE(S.substr(Ids, Frame - Ids).find("fs_clamp(x + (-1)"),
            std::string::npos)
      << S;
  // The ids path returns before the frame's launch.
  EXPECT_LT(S.find("fs_test_ids<<<"), S.find("fs_test_frame<<<"));
}

TEST(CodeGen, OriginalClampsItsReads) {
  std::string S = original(named("hotspot2d"));
  EXPECT_TRUE(contains(S, "__device__ inline long long fs_clamp("));
  EXPECT_TRUE(contains(S, "if (c < (0) || c >= (cols))"));
  EXPECT_TRUE(contains(S, "t_in[fs_i + (fs_clamp(c + (-1), (long long)(0), "
                          "(long long)(cols - 1)) - c) * (long long)(1)]"));
  // Offset 0 and the per-point power are never clamped.
  EXPECT_TRUE(contains(S, "(t_in[fs_i] + (cp * power[fs_i]))"));
  std::string D = original(named("hotspot2d"), "double");
  EXPECT_TRUE(contains(D, "fs_clamp(r + (1), (long long)(0), (long long)"
                          "(rows - 1))"));
}

TEST(CodeGen, RefusesAnAxisWithOneClampBound) {
  ir::StencilIR IR = named("star2d_r1");
  IR.Axes[0].ClampUpper = "nx - 1";
  std::string Error;
  EXPECT_FALSE(forge::StencilView::create(IR, Error));
  EXPECT_TRUE(contains(Error, "one clamp bound only")) << Error;
}

TEST(CodeGen, MaskedEdgeGroupsNeedTheRowsExtent) {
  // A cut group's chunks are clamped into the row [0, extent): without the
  // contiguous axis's extent there is no row to clamp into.
  ir::StencilIR IR = named("box3d_r1");
  forge::StrategyParams P = params(IR, "zsum", 4, 1, 8);
  P.MaskedEdges = true;
  auto G = generateFrom(IR, P);
  ASSERT_TRUE(G.ok()) << G.Error;
  EXPECT_TRUE(contains(G.Source, "(x0 + (-1) >= 0 ? (-1) : 0) * s0"));
  EXPECT_TRUE(contains(G.Source, "(x0 + 5 <= (Idx)(nx) ? (4) : 0) * s0"));
  EXPECT_TRUE(contains(G.Source, "fs_lo[0] + (-1) >= 0 && fs_hi[0] + (1) <= "
                                 "(long long)(nx) && (long long)(nx) % 4 == 0"));
  IR.Axes[0].Extent.clear();
  G = generateFrom(IR, P);
  EXPECT_FALSE(G.ok());
  EXPECT_TRUE(contains(G.Error, "need the extent of the contiguous axis"))
      << G.Error;
}

} // namespace

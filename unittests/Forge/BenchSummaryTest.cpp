//===- BenchSummaryTest.cpp -----------------------------------------------===//
//
// fs-bench's rates from a driver's result: the copy and footprint rows, and
// what each variant's row says against them.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Forge/Bench.h"
#include "forgestencil/Forge/BundleResults.h"
#include "forgestencil/Forge/NamedStencils.h"
#include "forgestencil/Forge/OperatorMatrix.h"

#include <gtest/gtest.h>

using namespace forgestencil;
using nlohmann::json;

namespace {

ir::StencilIR box() {
  std::string Error;
  return *forge::namedStencil("box3d_r1", "float", Error); // 8 B/point
}

json timing(const std::string &Variant, double Ms, const std::string &Verdict) {
  return {{"variant", Variant}, {"median_ms", Ms}, {"verdict", Verdict}};
}

/// 1e9 points; the copy moves 4e9 bytes in 1 ms (4000 GB/s).
json result(bool WithFootprint) {
  json T = json::array({timing("original", 4.0, "reference"),
                        timing("zsum.32x4.v4.y1.z8", 2.5, "bitexact"),
                        timing("copy", 1.0, "n/a")});
  if (WithFootprint)
    T.push_back(timing("footprint", 2.0, "n/a"));
  return {{"gpu", {{"name", "test"}}}, {"ext", {1000, 1000, 1000}},
          {"points", 1000000000LL}, {"copy_bytes", 4.0e9}, {"reps", 3},
          {"buffer_sets", 2}, {"timing", T}};
}

const forge::BenchRow &row(const std::vector<forge::BenchRow> &Rows,
                           const std::string &Variant) {
  for (const forge::BenchRow &R : Rows)
    if (R.Variant == Variant)
      return R;
  ADD_FAILURE() << "no row " << Variant;
  return Rows.front();
}

TEST(BenchSummary, FootprintKernelIsTheExactReplacementsYardstick) {
  auto Rows = forge::summarise(box(), result(true));
  ASSERT_EQ(Rows.size(), 4u);
  const forge::BenchRow &Cand = row(Rows, "zsum.32x4.v4.y1.z8");
  EXPECT_DOUBLE_EQ(Cand.EffectiveGBs, 8e9 / 2.5e6);   // 3200 GB/s
  EXPECT_DOUBLE_EQ(Cand.FractionOfCopy, 0.8);
  EXPECT_DOUBLE_EQ(Cand.FractionOfFootprint, 2.0 / 2.5);
  EXPECT_DOUBLE_EQ(Cand.SpeedupVsOriginal, 4.0 / 2.5);
  // The footprint row: the same bytes over its own time, against the copy.
  const forge::BenchRow &Foot = row(Rows, "footprint");
  EXPECT_DOUBLE_EQ(Foot.EffectiveGBs, 4000.0);
  EXPECT_DOUBLE_EQ(Foot.FractionOfCopy, 1.0);
  EXPECT_DOUBLE_EQ(Foot.FractionOfFootprint, 1.0);
  EXPECT_EQ(Foot.SpeedupVsOriginal, 0.0); // not a replacement
  EXPECT_EQ(row(Rows, "copy").FractionOfFootprint, 0.0);

  std::string Table = forge::formatTable(Rows, result(true));
  EXPECT_NE(Table.find("%copy    %fp"), std::string::npos) << Table;
  EXPECT_NE(Table.find("   80.0   80.0    1.60  bitexact"), std::string::npos)
      << Table;
  // The copy row has no footprint figure.
  EXPECT_NE(Table.find("  100.0      -    0.00  n/a"), std::string::npos)
      << Table;
}

TEST(BenchSummary, ResultsFromBeforeTheFootprintKernelReadAsUnmeasured) {
  auto Rows = forge::summarise(box(), result(false));
  ASSERT_EQ(Rows.size(), 3u);
  EXPECT_EQ(row(Rows, "zsum.32x4.v4.y1.z8").FractionOfFootprint, 0.0);
  EXPECT_DOUBLE_EQ(row(Rows, "zsum.32x4.v4.y1.z8").FractionOfCopy, 0.8);
  std::string Table = forge::formatTable(Rows, result(false));
  EXPECT_NE(Table.find("   80.0      -    1.60  bitexact"), std::string::npos)
      << Table;
}

TEST(BenchSummary, MeasurementRecordsTheFootprintFractionOnlyWhenMeasured) {
  forge::Measurement M;
  M.Signature = forge::stencilSignature(box());
  M.Arch = "sm_90";
  M.SizeClass = "large";
  M.Best.Strategy = "zsum";
  M.FractionOfCopy = 0.8;
  json Matrix = forge::emptyMatrix();
  forge::addMeasurement(Matrix, M);
  EXPECT_FALSE(Matrix["entries"][0]["best"].contains("fraction_of_footprint"));
  M.FractionOfFootprint = 0.86;
  forge::addMeasurement(Matrix, M);
  EXPECT_DOUBLE_EQ(
      Matrix["entries"][0]["history"][1]["fraction_of_footprint"].get<double>(),
      0.86);
}

TEST(BenchSummary, TunerTellsTheFootprintKernelFromTheCandidate) {
  // A bundle's driver times the original, one candidate, the copy and the
  // footprint kernel; only the candidate's row is the candidate's time.
  forge::CandidateResult C;
  forge::readDriverTiming(result(true)["timing"], C);
  EXPECT_DOUBLE_EQ(C.OriginalMs, 4.0);
  EXPECT_DOUBLE_EQ(C.CandidateMs, 2.5);
  EXPECT_DOUBLE_EQ(C.CopyMs, 1.0);
  EXPECT_DOUBLE_EQ(C.FootprintMs, 2.0);
}

TEST(BenchSummary, TuneResultsKeepTheFootprintTime) {
  forge::CandidateResult C;
  C.Kernel = "k";
  C.Id = "zsum.32x4.v4.y1.z8";
  C.FootprintMs = 0.25;
  std::string Error;
  auto Back = forge::CandidateResult::fromJson(C.toJson(), Error);
  ASSERT_TRUE(Back) << Error;
  EXPECT_DOUBLE_EQ(Back->FootprintMs, 0.25);
  json Old = C.toJson();
  Old.erase("footprint_ms");
  Back = forge::CandidateResult::fromJson(Old, Error);
  ASSERT_TRUE(Back) << Error;
  EXPECT_EQ(Back->FootprintMs, 0.0);
}

} // namespace

//===- IRRoundTripTest.cpp - Stencil IR JSON round trip -------------------===//
///
/// \file
/// Documents printed by `fs-rewrite --dump-ir` for kernels of the analysis
/// corpus (test/Analysis): diffusion1d-r1, fdtd-h-update and shared-tile-1d.
/// Parsing one into a StencilIR and printing it again must give the same
/// document, and re-deriving the derived facts must not change them.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/IR/StencilIR.h"

#include <gtest/gtest.h>

using forgestencil::ir::StencilIR;
using nlohmann::json;

namespace {
const char *const DiffusionStar1D = R"json({"axes": [{"extent": "", "lower": "1", "name": "thread.x", "source": "thread", "thread_dim": "x", "thread_offset": "0", "upper": "n - 1"}], "bytes_per_point": 8, "coefficients": [{"kind": "scalar-param", "name": "nu", "size": 1, "type": "float"}], "dims": 1, "element_type": "float", "flops_per_point": 5, "inputs": [{"ldg": false, "offsets": [[-1, 0, 0], [0, 0, 0], [1, 0, 0]], "param": "u", "per_point_coefficient": false, "restrict": false}], "kernel": "diffuse", "notes": [], "outputs": [{"accumulate": false, "in_place": false, "param": "un", "write_offset": [0, 0, 0]}], "params": [{"name": "un", "role": "output", "type": "float *"}, {"name": "u", "role": "input", "type": "const float *"}, {"name": "nu", "role": "scalar", "type": "float"}, {"name": "n", "role": "size", "type": "int"}], "points": 3, "radius": 1, "schema": "forgestencil.stencil-ir", "shape": "star", "source": {"file": "k.cu", "line": 1}, "strides": ["1"], "updates": [{"accumulate": false, "target": "un", "value": {"args": [{"array": "u", "kind": "read", "offset": [0, 0, 0]}, {"args": [{"kind": "param", "name": "nu"}, {"args": [{"args": [{"array": "u", "kind": "read", "offset": [1, 0, 0]}, {"args": [{"kind": "literal", "value": "2.0f"}, {"array": "u", "kind": "read", "offset": [0, 0, 0]}], "kind": "binary", "op": "*"}], "kind": "binary", "op": "-"}, {"array": "u", "kind": "read", "offset": [-1, 0, 0]}], "kind": "binary", "op": "+"}], "kind": "binary", "op": "*"}], "kind": "binary", "op": "+"}}], "version": 1})json";
const char *const FdtdMagneticUpdate = R"json({"axes": [{"extent": "nx", "lower": "0", "name": "thread.x", "source": "thread", "thread_dim": "x", "thread_offset": "0", "upper": "nx - 1"}, {"extent": "ny", "lower": "0", "name": "thread.y", "source": "thread", "thread_dim": "y", "thread_offset": "0", "upper": "ny - 1"}, {"extent": "", "lower": "0", "name": "thread.z", "source": "thread", "thread_dim": "z", "thread_offset": "0", "upper": "nz - 1"}], "bytes_per_point": 36, "coefficients": [{"kind": "scalar-param", "name": "db", "size": 1, "type": "float"}], "dims": 3, "element_type": "float", "flops_per_point": 15, "inputs": [{"ldg": false, "offsets": [[0, 0, 0], [0, 0, 1], [0, 1, 0]], "param": "ex", "per_point_coefficient": false, "restrict": false}, {"ldg": false, "offsets": [[0, 0, 0], [0, 0, 1], [1, 0, 0]], "param": "ey", "per_point_coefficient": false, "restrict": false}, {"ldg": false, "offsets": [[0, 0, 0], [0, 1, 0], [1, 0, 0]], "param": "ez", "per_point_coefficient": false, "restrict": false}, {"ldg": false, "offsets": [[0, 0, 0]], "param": "hx", "per_point_coefficient": false, "restrict": false}, {"ldg": false, "offsets": [[0, 0, 0]], "param": "hy", "per_point_coefficient": false, "restrict": false}, {"ldg": false, "offsets": [[0, 0, 0]], "param": "hz", "per_point_coefficient": false, "restrict": false}], "kernel": "upd_h", "notes": [], "outputs": [{"accumulate": true, "in_place": false, "param": "hx", "write_offset": [0, 0, 0]}, {"accumulate": true, "in_place": false, "param": "hy", "write_offset": [0, 0, 0]}, {"accumulate": true, "in_place": false, "param": "hz", "write_offset": [0, 0, 0]}], "params": [{"name": "hx", "role": "inout", "type": "float *"}, {"name": "hy", "role": "inout", "type": "float *"}, {"name": "hz", "role": "inout", "type": "float *"}, {"name": "ex", "role": "input", "type": "const float *"}, {"name": "ey", "role": "input", "type": "const float *"}, {"name": "ez", "role": "input", "type": "const float *"}, {"name": "db", "role": "scalar", "type": "float"}, {"name": "nx", "role": "size", "type": "int"}, {"name": "ny", "role": "size", "type": "int"}, {"name": "nz", "role": "size", "type": "int"}], "points": 4, "radius": 1, "schema": "forgestencil.stencil-ir", "shape": "other", "source": {"file": "k.cu", "line": 2}, "strides": ["1", "nx", "nx*ny"], "updates": [{"accumulate": true, "target": "hx", "value": {"args": [{"kind": "param", "name": "db"}, {"args": [{"args": [{"array": "ey", "kind": "read", "offset": [0, 0, 1]}, {"array": "ey", "kind": "read", "offset": [0, 0, 0]}], "kind": "binary", "op": "-"}, {"args": [{"array": "ez", "kind": "read", "offset": [0, 1, 0]}, {"array": "ez", "kind": "read", "offset": [0, 0, 0]}], "kind": "binary", "op": "-"}], "kind": "binary", "op": "-"}], "kind": "binary", "op": "*"}}, {"accumulate": true, "target": "hy", "value": {"args": [{"kind": "param", "name": "db"}, {"args": [{"args": [{"array": "ez", "kind": "read", "offset": [1, 0, 0]}, {"array": "ez", "kind": "read", "offset": [0, 0, 0]}], "kind": "binary", "op": "-"}, {"args": [{"array": "ex", "kind": "read", "offset": [0, 0, 1]}, {"array": "ex", "kind": "read", "offset": [0, 0, 0]}], "kind": "binary", "op": "-"}], "kind": "binary", "op": "-"}], "kind": "binary", "op": "*"}}, {"accumulate": true, "target": "hz", "value": {"args": [{"kind": "param", "name": "db"}, {"args": [{"args": [{"array": "ex", "kind": "read", "offset": [0, 1, 0]}, {"array": "ex", "kind": "read", "offset": [0, 0, 0]}], "kind": "binary", "op": "-"}, {"args": [{"array": "ey", "kind": "read", "offset": [1, 0, 0]}, {"array": "ey", "kind": "read", "offset": [0, 0, 0]}], "kind": "binary", "op": "-"}], "kind": "binary", "op": "-"}], "kind": "binary", "op": "*"}}], "version": 1})json";
const char *const SharedTileWithNotes = R"json({"axes": [{"extent": "", "lower": "2", "name": "thread.x", "source": "thread", "thread_dim": "x", "thread_offset": "0", "upper": "n - 2"}], "bytes_per_point": 8, "coefficients": [], "dims": 1, "element_type": "float", "flops_per_point": 7, "inputs": [{"ldg": false, "offsets": [[-2, 0, 0], [-1, 0, 0], [0, 0, 0], [1, 0, 0], [2, 0, 0]], "param": "in", "per_point_coefficient": false, "restrict": false}], "kernel": "smooth", "notes": ["blockDim.x == 128 (the kernel indexes blocks by 128)"], "outputs": [{"accumulate": false, "in_place": false, "param": "out", "write_offset": [0, 0, 0]}], "params": [{"name": "out", "role": "output", "type": "float *"}, {"name": "in", "role": "input", "type": "const float *"}, {"name": "n", "role": "size", "type": "int"}], "points": 5, "radius": 2, "schema": "forgestencil.stencil-ir", "shape": "star", "source": {"file": "k.cu", "line": 3}, "strides": ["1"], "updates": [{"accumulate": false, "target": "out", "value": {"args": [{"args": [{"args": [{"kind": "literal", "value": "0.1f"}, {"args": [{"array": "in", "kind": "read", "offset": [-2, 0, 0]}, {"array": "in", "kind": "read", "offset": [2, 0, 0]}], "kind": "binary", "op": "+"}], "kind": "binary", "op": "*"}, {"args": [{"kind": "literal", "value": "0.2f"}, {"args": [{"array": "in", "kind": "read", "offset": [-1, 0, 0]}, {"array": "in", "kind": "read", "offset": [1, 0, 0]}], "kind": "binary", "op": "+"}], "kind": "binary", "op": "*"}], "kind": "binary", "op": "+"}, {"args": [{"kind": "literal", "value": "0.4f"}, {"array": "in", "kind": "read", "offset": [0, 0, 0]}], "kind": "binary", "op": "*"}], "kind": "binary", "op": "+"}}], "version": 1})json";

void expectRoundTrip(const char *Text) {
  json Original = json::parse(Text);
  std::string Error;
  std::optional<StencilIR> IR = forgestencil::ir::fromJson(Original, Error);
  ASSERT_TRUE(IR.has_value()) << Error;
  EXPECT_EQ(forgestencil::ir::toJson(*IR), Original);
  // The derived facts in the document are the ones computeDerived gives.
  StencilIR Rederived = *IR;
  Rederived.computeDerived();
  EXPECT_EQ(forgestencil::ir::toJson(Rederived), Original);
}

TEST(IRRoundTripTest, DiffusionStar1D) { expectRoundTrip(DiffusionStar1D); }

TEST(IRRoundTripTest, FdtdMagneticUpdateWithThreeOutputs) {
  expectRoundTrip(FdtdMagneticUpdate);
}

TEST(IRRoundTripTest, SharedTileWithNotes) {
  expectRoundTrip(SharedTileWithNotes);
}

TEST(IRRoundTripTest, LinearAxesKeepTheirStepAndModulus) {
  // i = id % n, j = id / n: the split's weights and modulus travel with
  // the axes; other axes write neither field.
  json Doc = json::parse(DiffusionStar1D);
  Doc["axes"][0]["source"] = "linear";
  Doc["axes"][0]["linear_step"] = "1";
  Doc["axes"][0]["linear_modulus"] = "n";
  std::string Error;
  std::optional<StencilIR> IR = forgestencil::ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR.has_value()) << Error;
  EXPECT_EQ(IR->Axes[0].LinearStep, "1");
  EXPECT_EQ(IR->Axes[0].LinearModulus, "n");
  EXPECT_EQ(forgestencil::ir::toJson(*IR), Doc);
  auto Plain = forgestencil::ir::fromJson(json::parse(DiffusionStar1D), Error);
  ASSERT_TRUE(Plain.has_value()) << Error;
  EXPECT_FALSE(forgestencil::ir::toJson(*Plain)["axes"][0].contains("linear_step"));
}

TEST(IRRoundTripTest, ClampedAxesKeepTheirBounds) {
  // A replicated boundary: reads clamped into [0, n - 1] along x.
  json Doc = json::parse(DiffusionStar1D);
  Doc["axes"][0]["clamp_lower"] = "0";
  Doc["axes"][0]["clamp_upper"] = "n - 1";
  std::string Error;
  std::optional<StencilIR> IR = forgestencil::ir::fromJson(Doc, Error);
  ASSERT_TRUE(IR.has_value()) << Error;
  EXPECT_TRUE(IR->Axes[0].clamped());
  EXPECT_EQ(IR->Axes[0].ClampUpper, "n - 1");
  EXPECT_EQ(forgestencil::ir::toJson(*IR), Doc);
  auto Plain = forgestencil::ir::fromJson(json::parse(DiffusionStar1D), Error);
  ASSERT_TRUE(Plain.has_value()) << Error;
  EXPECT_FALSE(Plain->Axes[0].clamped());
  EXPECT_FALSE(forgestencil::ir::toJson(*Plain)["axes"][0].contains("clamp_lower"));
  // One bound alone says nothing usable.
  Doc["axes"][0].erase("clamp_upper");
  EXPECT_FALSE(forgestencil::ir::fromJson(Doc, Error).has_value());
  EXPECT_NE(Error.find("has clamp_lower but no clamp_upper"), std::string::npos)
      << Error;
}

TEST(IRRoundTripTest, SummaryOfCorpusDocuments) {
  std::string Error;
  auto Fdtd = forgestencil::ir::fromJson(json::parse(FdtdMagneticUpdate), Error);
  ASSERT_TRUE(Fdtd.has_value()) << Error;
  EXPECT_EQ(Fdtd->summary(), "3D other r=1 4pt f32, 3 out, 6 in");
  auto Tile = forgestencil::ir::fromJson(json::parse(SharedTileWithNotes), Error);
  ASSERT_TRUE(Tile.has_value()) << Error;
  EXPECT_EQ(Tile->summary(), "1D star r=2 5pt f32, 1 out, 1 in");
}

TEST(IRRoundTripTest, ANewerVersionIsRefused) {
  json Doc = json::parse(DiffusionStar1D);
  Doc["version"] = 2;
  std::string Error;
  EXPECT_FALSE(forgestencil::ir::fromJson(Doc, Error).has_value());
  EXPECT_NE(Error.find("version 2"), std::string::npos) << Error;
}

TEST(IRRoundTripTest, ABrokenOffsetIsNamed) {
  json Doc = json::parse(DiffusionStar1D);
  Doc["inputs"][0]["offsets"][0] = json::array({1, 2});
  std::string Error;
  EXPECT_FALSE(forgestencil::ir::fromJson(Doc, Error).has_value());
  EXPECT_NE(Error.find("inputs[0].offsets[0]: an offset is an array of 3 integers"),
            std::string::npos)
      << Error;
}

} // namespace

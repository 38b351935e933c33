//===- BlockShapeChoiceTest.cpp - Shapes from in-app times ----------------===//

#include "forgestencil/Knowledge/BlockShapeChoice.h"

#include <gtest/gtest.h>

using namespace forgestencil::knowledge;

namespace {

const char *Record = R"({"app": "demo", "in_app_verification": {"kernel_times": {
  "stress[256x2x1]": {"original_ms": 5.5, "copy_ms": 5.48, "launches": 5},
  "stress[32x4x1]": {"original_ms": 5.5, "copy_ms": 3.98, "launches": 5},
  "stress[64x2x1]": {"original_ms": 5.5, "copy_ms": 4.01, "launches": 5},
  "stress2[32x4x1]": {"original_ms": 1.0, "copy_ms": 0.1, "launches": 5},
  "vel[32x8x1]": {"original_ms": 1.186, "copy_ms": 1.1677, "launches": 5},
  "vel[256x2x1]": {"original_ms": 1.186, "copy_ms": 1.19, "launches": 5}}}})";

TEST(BlockShapeChoiceTest, FastestShapeAboveTheMargin) {
  auto C = chooseBlockShapes(Record, {"stress", "vel"}, 0.01);
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  ASSERT_EQ(C->size(), 2u);
  EXPECT_EQ((*C)[0].Kernel, "stress");
  ASSERT_TRUE((*C)[0].Block.has_value());
  EXPECT_EQ(*(*C)[0].Block, (std::array<unsigned, 3>{32, 4, 1}));
  // A kernel whose name another starts with is not mixed up with it.
  EXPECT_EQ((*C)[0].Measured, 3u);
  EXPECT_DOUBLE_EQ((*C)[0].CopyMs, 3.98);
  ASSERT_TRUE((*C)[1].Block.has_value());
  EXPECT_EQ(*(*C)[1].Block, (std::array<unsigned, 3>{32, 8, 1}));
}

TEST(BlockShapeChoiceTest, NoShapeBelowTheMargin) {
  auto C = chooseBlockShapes(Record, {"vel"}, 0.02);
  ASSERT_TRUE(bool(C));
  EXPECT_FALSE((*C)[0].Block.has_value()); // 1.186 / 1.1677 = 1.016
}

TEST(BlockShapeChoiceTest, AnUntimedKernelBesideATimedOneKeepsItsLaunches) {
  auto C = chooseBlockShapes(Record, {"stress", "never_launched"}, 0.01);
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  ASSERT_EQ(C->size(), 2u);
  EXPECT_TRUE((*C)[0].Block.has_value());
  EXPECT_EQ((*C)[1].Kernel, "never_launched");
  EXPECT_EQ((*C)[1].Measured, 0u);
  EXPECT_FALSE((*C)[1].Block.has_value());
}

TEST(BlockShapeChoiceTest, ErrorsNameWhatIsMissing) {
  auto NoKernel = chooseBlockShapes(Record, {"other"}, 0.0);
  ASSERT_FALSE(bool(NoKernel));
  EXPECT_NE(llvm::toString(NoKernel.takeError()).find("'other'"),
            std::string::npos);
  auto NotARecord = chooseBlockShapes(R"({"app": "demo"})", {"stress"}, 0.0);
  ASSERT_FALSE(bool(NotARecord));
  EXPECT_NE(llvm::toString(NotARecord.takeError()).find("kernel_times"),
            std::string::npos);
  auto BadShape = chooseBlockShapes(
      R"({"in_app_verification": {"kernel_times": {"k[huge]": {"original_ms": 1, "copy_ms": 1}}}})",
      {"k"}, 0.0);
  ASSERT_FALSE(bool(BadShape));
}

} // namespace

TEST(BlockShapeChoiceTest, ACoarsenedCopyIsChosenWithItsShape) {
  const char *Timed = R"({"in_app_verification": {"kernel_times": {
    "smooth[32x4x1]": {"original_ms": 3.0, "copy_ms": 2.9},
    "smooth[256x1x1]": {"original_ms": 3.0, "copy_ms": 2.5},
    "smooth[32x4x1/cz4]": {"original_ms": 3.0, "copy_ms": 1.9},
    "smooth[32x4x1/cy2]": {"original_ms": 3.0, "copy_ms": 2.1}}}})";
  auto C = chooseBlockShapes(Timed, {"smooth"}, 0.01);
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  ASSERT_TRUE((*C)[0].Block.has_value());
  EXPECT_EQ(*(*C)[0].Block, (std::array<unsigned, 3>{32, 4, 1}));
  ASSERT_TRUE((*C)[0].Coarsened.has_value());
  EXPECT_EQ((*C)[0].Coarsened->Axis, 2u);
  EXPECT_EQ((*C)[0].Coarsened->Factor, 4u);
  EXPECT_FALSE((*C)[0].MaxRegisters.has_value());
  EXPECT_EQ((*C)[0].Measured, 4u);
  // Only y or z, by 2 to 16 points.
  for (const char *Bad : {"k[32x4x1/cx2]", "k[32x4x1/cy1]", "k[32x4x1/cy17]"}) {
    std::string Text = std::string(R"({"in_app_verification": {"kernel_times": {")") +
                       Bad + R"(": {"original_ms": 1, "copy_ms": 0.5}}}})";
    auto E = chooseBlockShapes(Text, {"k"}, 0.0);
    ASSERT_FALSE(bool(E)) << Bad;
    EXPECT_NE(llvm::toString(E.takeError()).find("XxYxZ/cyN"), std::string::npos);
  }
}

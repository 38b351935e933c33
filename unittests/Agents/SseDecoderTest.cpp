//===- SseDecoderTest.cpp - Server-Sent Events decoding ------------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/SseDecoder.h"

#include <gtest/gtest.h>

using namespace forgestencil::agents;

namespace {

std::vector<std::string> decodeInPieces(const std::string &Stream, size_t PieceSize,
                                        bool *SawDone = nullptr) {
  std::vector<std::string> Events;
  SseDecoder Decoder([&](std::string_view Data) { Events.emplace_back(Data); });
  for (size_t I = 0; I < Stream.size(); I += PieceSize)
    Decoder.feed(std::string_view(Stream).substr(I, PieceSize));
  Decoder.finish();
  if (SawDone)
    *SawDone = Decoder.sawDone();
  return Events;
}

TEST(SseDecoderTest, SameEventsWhateverTheSplit) {
  const std::string Stream = ": comment\r\n\r\ndata: {\"a\":1}\r\n\r\n"
                             "event: message\ndata: {\"b\":2}\n\n"
                             "data:{\"c\":3}\n\ndata: [DONE]\n\n";
  for (size_t PieceSize : {1, 2, 3, 5, 7, 64, 1000}) {
    bool SawDone = false;
    std::vector<std::string> Events = decodeInPieces(Stream, PieceSize, &SawDone);
    ASSERT_EQ(Events.size(), 3u) << "piece size " << PieceSize;
    EXPECT_EQ(Events[0], "{\"a\":1}");
    EXPECT_EQ(Events[1], "{\"b\":2}");
    EXPECT_EQ(Events[2], "{\"c\":3}");
    EXPECT_TRUE(SawDone);
  }
}

TEST(SseDecoderTest, MultiLineDataIsJoined) {
  std::vector<std::string> Events = decodeInPieces("data: one\ndata: two\n\n", 4);
  ASSERT_EQ(Events.size(), 1u);
  EXPECT_EQ(Events[0], "one\ntwo");
}

TEST(SseDecoderTest, LastEventWithoutBlankLineIsDispatchedAtFinish) {
  bool SawDone = true;
  std::vector<std::string> Events = decodeInPieces("data: {\"x\":1}", 3, &SawDone);
  ASSERT_EQ(Events.size(), 1u);
  EXPECT_EQ(Events[0], "{\"x\":1}");
  EXPECT_FALSE(SawDone);
}

} // namespace

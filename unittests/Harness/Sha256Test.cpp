//===- Sha256Test.cpp - SHA-256 against the FIPS 180 test vectors ---------===//

#include "forgestencil/Harness/Sha256.h"

#include <gtest/gtest.h>

using namespace forgestencil::harness;

namespace {

TEST(Sha256Test, EmptyMessage) {
  EXPECT_EQ(Sha256::hexDigest(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256Test, Abc) {
  EXPECT_EQ(Sha256::hexDigest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, TwoBlockMessage448Bits) {
  EXPECT_EQ(Sha256::hexDigest(
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, MillionA) {
  EXPECT_EQ(Sha256::hexDigest(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, IncrementalUpdatesMatchOneShot) {
  // Pieces of awkward sizes cross the 64-byte block boundary at every offset.
  std::string Message;
  for (int I = 0; I < 1000; ++I)
    Message.push_back(char('a' + I % 26));
  Sha256 Hasher;
  size_t Position = 0;
  for (size_t Piece = 1; Position < Message.size(); ++Piece) {
    size_t Take = std::min(Piece, Message.size() - Position);
    Hasher.update(std::string_view(Message).substr(Position, Take));
    Position += Take;
  }
  EXPECT_EQ(Sha256::toHex(Hasher.finalize()), Sha256::hexDigest(Message));
}

TEST(Sha256Test, PaddingBoundaries) {
  // 55 bytes fit the length in the same block, 56 need a second one.
  EXPECT_EQ(Sha256::hexDigest(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(Sha256::hexDigest(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(Sha256::hexDigest(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

} // namespace

//===- GitBlob.cpp - SHA-1 and git blob names -----------------------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// SHA-1 as specified in FIPS 180-4. The library carries its own because the
/// LLVM-free parts may run on hosts with nothing but a C++ compiler, and git
/// fixes this exact hash for blob names.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Patch/GitBlob.h"

#include <array>
#include <cstdint>

namespace forgestencil {
namespace patch {

namespace {

/// Incremental SHA-1 over 64-byte blocks.
class Sha1 {
public:
  void update(std::string_view Data) {
    for (char C : Data) {
      Block[BlockFill++] = static_cast<uint8_t>(C);
      if (BlockFill == Block.size())
        compressBlock();
    }
    TotalBytes += Data.size();
  }

  std::string finishHex() {
    uint64_t TotalBits = TotalBytes * 8;
    // Padding: a single 1 bit, zeros up to 56 mod 64, then the bit length.
    Block[BlockFill++] = 0x80;
    if (BlockFill > 56) {
      while (BlockFill < Block.size())
        Block[BlockFill++] = 0;
      compressBlock();
    }
    while (BlockFill < 56)
      Block[BlockFill++] = 0;
    for (int Shift = 56; Shift >= 0; Shift -= 8)
      Block[BlockFill++] = static_cast<uint8_t>(TotalBits >> Shift);
    compressBlock();

    static const char Hex[] = "0123456789abcdef";
    std::string Out;
    for (uint32_t Word : State)
      for (int Shift = 28; Shift >= 0; Shift -= 4)
        Out += Hex[(Word >> Shift) & 0xf];
    return Out;
  }

private:
  static uint32_t rotl(uint32_t X, int N) { return (X << N) | (X >> (32 - N)); }

  void compressBlock() {
    std::array<uint32_t, 80> W;
    for (int I = 0; I < 16; ++I)
      W[I] = uint32_t(Block[4 * I]) << 24 | uint32_t(Block[4 * I + 1]) << 16 |
             uint32_t(Block[4 * I + 2]) << 8 | uint32_t(Block[4 * I + 3]);
    for (int I = 16; I < 80; ++I)
      W[I] = rotl(W[I - 3] ^ W[I - 8] ^ W[I - 14] ^ W[I - 16], 1);

    uint32_t A = State[0], B = State[1], C = State[2], D = State[3],
             E = State[4];
    for (int I = 0; I < 80; ++I) {
      uint32_t F, K;
      if (I < 20) {
        F = (B & C) | (~B & D);
        K = 0x5a827999;
      } else if (I < 40) {
        F = B ^ C ^ D;
        K = 0x6ed9eba1;
      } else if (I < 60) {
        F = (B & C) | (B & D) | (C & D);
        K = 0x8f1bbcdc;
      } else {
        F = B ^ C ^ D;
        K = 0xca62c1d6;
      }
      uint32_t Next = rotl(A, 5) + F + E + K + W[I];
      E = D;
      D = C;
      C = rotl(B, 30);
      B = A;
      A = Next;
    }
    State[0] += A;
    State[1] += B;
    State[2] += C;
    State[3] += D;
    State[4] += E;
    BlockFill = 0;
  }

  std::array<uint32_t, 5> State = {0x67452301, 0xefcdab89, 0x98badcfe,
                                   0x10325476, 0xc3d2e1f0};
  std::array<uint8_t, 64> Block{};
  size_t BlockFill = 0;
  uint64_t TotalBytes = 0;
};

} // namespace

std::string sha1Hex(std::string_view Data) {
  Sha1 Hasher;
  Hasher.update(Data);
  return Hasher.finishHex();
}

std::string gitBlobHash(std::string_view Content) {
  Sha1 Hasher;
  std::string Header = "blob " + std::to_string(Content.size());
  Hasher.update(std::string_view(Header.data(), Header.size() + 1));
  Hasher.update(Content);
  return Hasher.finishHex();
}

} // namespace patch
} // namespace forgestencil

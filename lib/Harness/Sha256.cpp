//===- Sha256.cpp - SHA-256 digests ---------------------------------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Harness/Sha256.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace forgestencil {
namespace harness {

namespace {

/// The first 32 bits of the fractional parts of the cube roots of the first
/// 64 primes (FIPS 180-4, section 4.2.2).
constexpr uint32_t RoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

/// The first 32 bits of the fractional parts of the square roots of the first
/// 8 primes (FIPS 180-4, section 5.3.3).
constexpr uint32_t InitialState[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                      0xa54ff53a, 0x510e527f, 0x9b05688c,
                                      0x1f83d9ab, 0x5be0cd19};

uint32_t rotateRight(uint32_t Value, unsigned Bits) {
  return (Value >> Bits) | (Value << (32 - Bits));
}

uint32_t loadBigEndian(const uint8_t *Bytes) {
  return (uint32_t(Bytes[0]) << 24) | (uint32_t(Bytes[1]) << 16) |
         (uint32_t(Bytes[2]) << 8) | uint32_t(Bytes[3]);
}

} // namespace

Sha256::Sha256() {
  std::memcpy(State.data(), InitialState, sizeof(InitialState));
}

void Sha256::processBlock(const uint8_t *Block) {
  uint32_t Schedule[64];
  for (int I = 0; I < 16; ++I)
    Schedule[I] = loadBigEndian(Block + 4 * I);
  for (int I = 16; I < 64; ++I) {
    uint32_t S0 = rotateRight(Schedule[I - 15], 7) ^
                  rotateRight(Schedule[I - 15], 18) ^ (Schedule[I - 15] >> 3);
    uint32_t S1 = rotateRight(Schedule[I - 2], 17) ^
                  rotateRight(Schedule[I - 2], 19) ^ (Schedule[I - 2] >> 10);
    Schedule[I] = Schedule[I - 16] + S0 + Schedule[I - 7] + S1;
  }

  uint32_t A = State[0], B = State[1], C = State[2], D = State[3];
  uint32_t E = State[4], F = State[5], G = State[6], H = State[7];
  for (int I = 0; I < 64; ++I) {
    uint32_t Sigma1 = rotateRight(E, 6) ^ rotateRight(E, 11) ^ rotateRight(E, 25);
    uint32_t Choose = (E & F) ^ (~E & G);
    uint32_t Temp1 = H + Sigma1 + Choose + RoundConstants[I] + Schedule[I];
    uint32_t Sigma0 = rotateRight(A, 2) ^ rotateRight(A, 13) ^ rotateRight(A, 22);
    uint32_t Majority = (A & B) ^ (A & C) ^ (B & C);
    uint32_t Temp2 = Sigma0 + Majority;
    H = G;
    G = F;
    F = E;
    E = D + Temp1;
    D = C;
    C = B;
    B = A;
    A = Temp1 + Temp2;
  }
  State[0] += A;
  State[1] += B;
  State[2] += C;
  State[3] += D;
  State[4] += E;
  State[5] += F;
  State[6] += G;
  State[7] += H;
}

void Sha256::update(std::string_view Data) {
  update(reinterpret_cast<const uint8_t *>(Data.data()), Data.size());
}

void Sha256::update(const uint8_t *Data, size_t Size) {
  MessageBytes += Size;
  // Top up a partly filled block first, then take whole blocks straight from
  // the input, and keep the tail for later.
  if (PendingSize > 0) {
    size_t Take = std::min(Size, Pending.size() - PendingSize);
    std::memcpy(Pending.data() + PendingSize, Data, Take);
    PendingSize += Take;
    Data += Take;
    Size -= Take;
    if (PendingSize < Pending.size())
      return;
    processBlock(Pending.data());
    PendingSize = 0;
  }
  for (; Size >= Pending.size(); Data += Pending.size(), Size -= Pending.size())
    processBlock(Data);
  std::memcpy(Pending.data(), Data, Size);
  PendingSize = Size;
}

Sha256::Digest Sha256::finalize() {
  uint64_t MessageBits = MessageBytes * 8;
  // A single 1 bit, zeros up to 56 bytes mod 64, then the length in bits as a
  // 64-bit big-endian number.
  uint8_t Padding[72] = {0x80};
  size_t PaddingSize = (PendingSize < 56 ? 56 : 120) - PendingSize;
  for (int I = 0; I < 8; ++I)
    Padding[PaddingSize + I] = uint8_t(MessageBits >> (56 - 8 * I));
  update(Padding, PaddingSize + 8);

  Digest Result;
  for (int I = 0; I < 8; ++I) {
    Result[4 * I] = uint8_t(State[I] >> 24);
    Result[4 * I + 1] = uint8_t(State[I] >> 16);
    Result[4 * I + 2] = uint8_t(State[I] >> 8);
    Result[4 * I + 3] = uint8_t(State[I]);
  }
  return Result;
}

std::string Sha256::toHex(const Digest &Value) {
  static const char Digits[] = "0123456789abcdef";
  std::string Hex;
  Hex.reserve(2 * Value.size());
  for (uint8_t Byte : Value) {
    Hex.push_back(Digits[Byte >> 4]);
    Hex.push_back(Digits[Byte & 0xf]);
  }
  return Hex;
}

std::string Sha256::hexDigest(std::string_view Data) {
  Sha256 Hasher;
  Hasher.update(Data);
  return toHex(Hasher.finalize());
}

} // namespace harness
} // namespace forgestencil

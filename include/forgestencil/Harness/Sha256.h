//===- Sha256.h - SHA-256 digests -----------------------------------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// SHA-256 (FIPS 180-4) for the patch hashes in the integration registry. The
/// GPU host that runs the harness may lack OpenSSL, so the digest is computed
/// here; it is checked against the FIPS test vectors in the unit tests.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_HARNESS_SHA256_H
#define FORGESTENCIL_HARNESS_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace forgestencil {
namespace harness {

/// An incremental SHA-256 computation: feed bytes with update(), then read the
/// digest once with finalize().
class Sha256 {
public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();

  /// Appends \p Data to the message.
  void update(std::string_view Data);
  void update(const uint8_t *Data, size_t Size);

  /// Pads the message and returns its digest. The object must not be updated
  /// afterwards.
  Digest finalize();

  /// The digest of \p Data as 64 lowercase hexadecimal digits.
  static std::string hexDigest(std::string_view Data);

  /// \p Value as lowercase hexadecimal digits.
  static std::string toHex(const Digest &Value);

private:
  void processBlock(const uint8_t *Block);

  std::array<uint32_t, 8> State;
  std::array<uint8_t, 64> Pending;
  size_t PendingSize = 0;
  uint64_t MessageBytes = 0;
};

} // namespace harness
} // namespace forgestencil

#endif // FORGESTENCIL_HARNESS_SHA256_H

//===- GitBlobTest.cpp - SHA-1 and git blob names -------------------------===//

#include "forgestencil/Patch/GitBlob.h"

#include "gtest/gtest.h"

using namespace forgestencil::patch;

namespace {

TEST(GitBlobTest, Sha1OfStandardVectors) {
  // FIPS 180 examples.
  EXPECT_EQ(sha1Hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(sha1Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(sha1Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(sha1Hex(std::string(1000000, 'a')),
            "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST(GitBlobTest, Sha1AroundThePaddingBoundary) {
  // 55, 56 and 64 bytes take the padding through its three paths.
  EXPECT_EQ(sha1Hex(std::string(55, 'a')),
            "c1c8bbdc22796e28c0e15163d20899b65621d65a");
  EXPECT_EQ(sha1Hex(std::string(56, 'a')),
            "c2db330f6083854c99d4b5bfb6e8f29f201be699");
  EXPECT_EQ(sha1Hex(std::string(64, 'a')),
            "0098ba824b5c16427bd7a1122a5a442a25ec644d");
}

TEST(GitBlobTest, BlobNamesMatchGit) {
  EXPECT_EQ(gitBlobHash(""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
  EXPECT_EQ(gitBlobHash("hello\n"), "ce013625030ba8dba906f756967f9e9ca394464a");
  EXPECT_EQ(gitBlobHash("hello world\n"),
            "3b18e512dba79e4c8300dd08aeb37f8e728b8dad");
}

} // namespace

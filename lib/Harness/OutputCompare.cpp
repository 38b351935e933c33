//===- OutputCompare.cpp - Compare the output files of the two modes ------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Harness/OutputCompare.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

namespace forgestencil {
namespace harness {

namespace {

float loadFloat(const std::string &Bytes, size_t Index) {
  float Value;
  std::memcpy(&Value, Bytes.data() + 4 * Index, sizeof(Value));
  return Value;
}

Float32Difference compareAsFloat32(const std::string &A, const std::string &B) {
  Float32Difference Difference;
  Difference.Elements = A.size() / 4;
  for (size_t I = 0; I < Difference.Elements; ++I) {
    double X = loadFloat(A, I), Y = loadFloat(B, I);
    bool XNan = std::isnan(X), YNan = std::isnan(Y);
    if ((XNan && YNan) || X == Y)
      continue;
    ++Difference.DifferingElements;
    if (!Difference.FirstDifference)
      Difference.FirstDifference = I;
    if (XNan || YNan) {
      ++Difference.NanMismatches;
      continue;
    }
    double Abs = std::fabs(X - Y);
    Difference.MaxAbsDiff = std::max(Difference.MaxAbsDiff, Abs);
    if (X != 0)
      Difference.MaxRelDiff = std::max(Difference.MaxRelDiff, Abs / std::fabs(X));
  }
  return Difference;
}

Expected<std::string> readWholeFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return fail(Path + ": cannot be read");
  std::ostringstream Bytes;
  Bytes << In.rdbuf();
  return Bytes.str();
}

} // namespace

std::string OutputComparison::describe() const {
  std::ostringstream Text;
  if (Identical) {
    Text << "identical (" << SizeA << " bytes)";
    return Text.str();
  }
  if (!AsFloat32) {
    Text << "differ (" << SizeA << " vs " << SizeB << " bytes)";
    return Text.str();
  }
  const Float32Difference &D = *AsFloat32;
  Text << "differ as float32: " << D.DifferingElements << " of " << D.Elements
       << " values, max abs " << D.MaxAbsDiff << ", max rel " << D.MaxRelDiff;
  if (D.NanMismatches)
    Text << ", " << D.NanMismatches << " NaN in one output only";
  if (D.FirstDifference)
    Text << ", first at index " << *D.FirstDifference;
  return Text.str();
}

OutputComparison compareOutputBytes(const std::string &A, const std::string &B) {
  OutputComparison Comparison;
  Comparison.SizeA = A.size();
  Comparison.SizeB = B.size();
  Comparison.Identical = A == B;
  if (!Comparison.Identical && A.size() == B.size() && A.size() % 4 == 0)
    Comparison.AsFloat32 = compareAsFloat32(A, B);
  return Comparison;
}

Expected<OutputComparison> compareOutputFiles(const std::string &PathA,
                                              const std::string &PathB) {
  Expected<std::string> A = readWholeFile(PathA);
  if (!A)
    return fail(A.error());
  Expected<std::string> B = readWholeFile(PathB);
  if (!B)
    return fail(B.error());
  return compareOutputBytes(*A, *B);
}

} // namespace harness
} // namespace forgestencil

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

size_t elementSize(ElementType Type) {
  return Type == ElementType::Float32 ? sizeof(float) : sizeof(double);
}

double loadValue(const std::string &Bytes, size_t Index, ElementType Type) {
  if (Type == ElementType::Float32) {
    float Value;
    std::memcpy(&Value, Bytes.data() + sizeof(Value) * Index, sizeof(Value));
    return Value;
  }
  double Value;
  std::memcpy(&Value, Bytes.data() + sizeof(Value) * Index, sizeof(Value));
  return Value;
}

ValueDifference compareAsValues(const std::string &A, const std::string &B,
                                ElementType Type) {
  ValueDifference Difference;
  Difference.Type = Type;
  Difference.Elements = A.size() / elementSize(Type);
  for (size_t I = 0; I < Difference.Elements; ++I) {
    double X = loadValue(A, I, Type), Y = loadValue(B, I, Type);
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

} // namespace

Expected<std::string> readWholeFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return fail(Path + ": cannot be read");
  std::ostringstream Bytes;
  Bytes << In.rdbuf();
  return Bytes.str();
}

const char *elementTypeName(ElementType Type) {
  return Type == ElementType::Float32 ? "float32" : "float64";
}

Expected<ElementType> parseElementType(const std::string &Name) {
  if (Name == "float32")
    return ElementType::Float32;
  if (Name == "float64")
    return ElementType::Float64;
  return fail("unknown output element type '" + Name +
              "' (expected float32 or float64)");
}

std::string OutputComparison::describe() const {
  std::ostringstream Text;
  if (Identical) {
    Text << "identical (" << SizeA << " bytes)";
    return Text.str();
  }
  if (!AsValues) {
    Text << "differ (" << SizeA << " vs " << SizeB << " bytes)";
    return Text.str();
  }
  const ValueDifference &D = *AsValues;
  Text << "differ as " << elementTypeName(D.Type) << ": " << D.DifferingElements << " of " << D.Elements
       << " values, max abs " << D.MaxAbsDiff << ", max rel " << D.MaxRelDiff;
  if (D.NanMismatches)
    Text << ", " << D.NanMismatches << " NaN in one output only";
  if (D.FirstDifference)
    Text << ", first at index " << *D.FirstDifference;
  return Text.str();
}

OutputComparison compareOutputBytes(const std::string &A, const std::string &B,
                                    ElementType Type) {
  OutputComparison Comparison;
  Comparison.SizeA = A.size();
  Comparison.SizeB = B.size();
  Comparison.Identical = A == B;
  if (!Comparison.Identical && A.size() == B.size() &&
      A.size() % elementSize(Type) == 0)
    Comparison.AsValues = compareAsValues(A, B, Type);
  return Comparison;
}

Expected<OutputComparison> compareOutputFiles(const std::string &PathA,
                                              const std::string &PathB,
                                              ElementType Type) {
  Expected<std::string> A = readWholeFile(PathA);
  if (!A)
    return fail(A.error());
  Expected<std::string> B = readWholeFile(PathB);
  if (!B)
    return fail(B.error());
  return compareOutputBytes(*A, *B, Type);
}

} // namespace harness
} // namespace forgestencil

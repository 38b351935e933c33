//===- OutputCompare.cpp - Compare the output files of the two modes ------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Harness/OutputCompare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
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

bool TreeComparison::identical() const {
  return OnlyInA.empty() && OnlyInB.empty() &&
         std::all_of(Files.begin(), Files.end(),
                     [](const FileComparison &F) { return F.Result.Identical; });
}

bool TreeComparison::structureDiffers() const {
  if (!OnlyInA.empty() || !OnlyInB.empty())
    return true;
  return std::any_of(Files.begin(), Files.end(), [](const FileComparison &F) {
    return F.Result.SizeA != F.Result.SizeB;
  });
}

OutputComparison TreeComparison::aggregate() const {
  OutputComparison Total;
  Total.Identical = identical();
  for (const FileComparison &F : Files) {
    Total.SizeA += F.Result.SizeA;
    Total.SizeB += F.Result.SizeB;
  }
  if (Total.Identical || structureDiffers())
    return Total;
  ValueDifference Merged;
  for (const FileComparison &F : Files) {
    if (F.Result.Identical)
      continue;
    if (!F.Result.AsValues)
      return Total; // Same size, but not a whole number of elements.
    const ValueDifference &D = *F.Result.AsValues;
    Merged.Type = D.Type;
    Merged.Elements += D.Elements;
    Merged.DifferingElements += D.DifferingElements;
    Merged.NanMismatches += D.NanMismatches;
    Merged.MaxAbsDiff = std::max(Merged.MaxAbsDiff, D.MaxAbsDiff);
    Merged.MaxRelDiff = std::max(Merged.MaxRelDiff, D.MaxRelDiff);
  }
  Total.AsValues = Merged;
  return Total;
}

std::string TreeComparison::describe() const {
  std::ostringstream Text;
  auto Names = [](const std::vector<std::string> &Paths) {
    std::string List;
    for (size_t I = 0; I < Paths.size() && I < 3; ++I)
      List += (I ? ", " : "") + Paths[I];
    if (Paths.size() > 3)
      List += ", ...";
    return List;
  };
  if (!OnlyInA.empty() || !OnlyInB.empty()) {
    if (!OnlyInA.empty())
      Text << OnlyInA.size() << " file(s) only in the first (" << Names(OnlyInA)
           << ")";
    if (!OnlyInB.empty())
      Text << (OnlyInA.empty() ? "" : "; ") << OnlyInB.size()
           << " file(s) only in the second (" << Names(OnlyInB) << ")";
    return Text.str();
  }
  if (identical()) {
    Text << "identical (" << Files.size() << " files, " << aggregate().SizeA
         << " bytes)";
    return Text.str();
  }
  size_t Differing = 0;
  const FileComparison *First = nullptr;
  for (const FileComparison &F : Files)
    if (!F.Result.Identical) {
      ++Differing;
      if (!First)
        First = &F;
    }
  Text << "differ in " << Differing << " of " << Files.size() << " files (first "
       << First->Path << ": " << First->Result.describe() << ")";
  return Text.str();
}

namespace {

/// The regular files under \p Dir, as '/'-separated relative paths.
Expected<std::set<std::string>> listFiles(const std::string &Dir) {
  namespace fs = std::filesystem;
  std::error_code Error;
  if (!fs::is_directory(Dir, Error))
    return fail(Dir + ": not a directory");
  std::set<std::string> Paths;
  fs::recursive_directory_iterator It(Dir, Error), End;
  for (; !Error && It != End; It.increment(Error))
    if (It->is_regular_file(Error))
      Paths.insert(fs::relative(It->path(), Dir, Error).generic_string());
  if (Error)
    return fail(Dir + ": cannot list: " + Error.message());
  return Paths;
}

} // namespace

Expected<TreeComparison> compareOutputTrees(const std::string &DirA,
                                            const std::string &DirB,
                                            ElementType Type) {
  Expected<std::set<std::string>> A = listFiles(DirA);
  if (!A)
    return fail(A.error());
  Expected<std::set<std::string>> B = listFiles(DirB);
  if (!B)
    return fail(B.error());
  TreeComparison Tree;
  for (const std::string &Path : *A) {
    if (!B->count(Path)) {
      Tree.OnlyInA.push_back(Path);
      continue;
    }
    Expected<OutputComparison> File =
        compareOutputFiles(DirA + "/" + Path, DirB + "/" + Path, Type);
    if (!File)
      return fail(File.error());
    Tree.Files.push_back({Path, *File});
  }
  for (const std::string &Path : *B)
    if (!A->count(Path))
      Tree.OnlyInB.push_back(Path);
  return Tree;
}

} // namespace harness
} // namespace forgestencil

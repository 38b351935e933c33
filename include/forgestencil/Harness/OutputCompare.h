//===- OutputCompare.h - Compare the output files of the two modes --------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Where an app can write its result to a file, the harness compares what the
/// original and our code wrote in the same round pair: bit-identical is the
/// expectation when arithmetic order is kept; otherwise the files are read as
/// float32 (or float64) arrays and the largest differences are reported, so a
/// reader can judge the tolerance the app's own check applied.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_HARNESS_OUTPUTCOMPARE_H
#define FORGESTENCIL_HARNESS_OUTPUTCOMPARE_H

#include "forgestencil/Harness/Expected.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace harness {

/// How an output file is read when it is not bit-identical.
enum class ElementType { Float32, Float64 };

/// "float32" or "float64".
const char *elementTypeName(ElementType Type);

/// The element type named \p Name ("float32", "float64").
Expected<ElementType> parseElementType(const std::string &Name);

/// The element-wise difference of two equally long floating-point arrays.
struct ValueDifference {
  ElementType Type = ElementType::Float32;
  size_t Elements = 0;
  /// Elements whose values differ (NaN equals NaN here).
  size_t DifferingElements = 0;
  /// Elements that are NaN in one array only.
  size_t NanMismatches = 0;
  /// The largest |a - b| over elements that are numbers in both arrays.
  double MaxAbsDiff = 0;
  /// The largest |a - b| / |a| over those elements where a (the original)
  /// is not zero.
  double MaxRelDiff = 0;
  /// The first differing element, when one differs.
  std::optional<size_t> FirstDifference;
};

/// How the output of the original (A) and of our code (B) compare.
struct OutputComparison {
  size_t SizeA = 0;
  size_t SizeB = 0;
  bool Identical = false;
  /// Set when the files differ but have the same size, a multiple of the
  /// element size.
  std::optional<ValueDifference> AsValues;

  /// One line for the report: "identical (4096 bytes)", "differ as float32:
  /// 3 of 1024 values, max abs 1e-07, max rel 2e-06", ...
  std::string describe() const;
};

/// Compares two byte strings, as arrays of \p Type where they differ.
OutputComparison compareOutputBytes(const std::string &A, const std::string &B,
                                    ElementType Type = ElementType::Float32);

/// Compares the files at \p PathA and \p PathB. Fails when one cannot be read.
Expected<OutputComparison>
compareOutputFiles(const std::string &PathA, const std::string &PathB,
                   ElementType Type = ElementType::Float32);

/// One file of two output directories.
struct FileComparison {
  /// The file's path relative to the directories, '/'-separated.
  std::string Path;
  OutputComparison Result;
};

/// Two output directories (an app that writes several files per run),
/// compared file by file: the same relative paths must be there in both.
struct TreeComparison {
  std::vector<std::string> OnlyInA;
  std::vector<std::string> OnlyInB;
  /// The files present in both, in path order.
  std::vector<FileComparison> Files;

  /// Both directories hold the same files with the same bytes.
  bool identical() const;
  /// A file is missing on one side or has another size: the outputs cannot
  /// be compared value by value.
  bool structureDiffers() const;
  /// The whole tree as one comparison: total sizes, identical, and the
  /// values merged over every differing file (element counts summed, largest
  /// differences) when no file's structure differs.
  OutputComparison aggregate() const;
  /// One line: "identical (3 files, 12288 bytes)", "differ in 1 of 3 files
  /// (first SX0000020: differ as float32: ...)", "1 file only in the first
  /// (a)".
  std::string describe() const;
};

/// Compares every regular file under \p DirA with the file of the same
/// relative path under \p DirB.
Expected<TreeComparison>
compareOutputTrees(const std::string &DirA, const std::string &DirB,
                   ElementType Type = ElementType::Float32);

/// The bytes of the file at \p Path.
Expected<std::string> readWholeFile(const std::string &Path);

} // namespace harness
} // namespace forgestencil

#endif // FORGESTENCIL_HARNESS_OUTPUTCOMPARE_H

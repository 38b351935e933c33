//===- Bench.h - One stencil, our kernels against the baselines ------------===//
///
/// \file
/// What fs-bench does: generate the CUDA sources for a set of candidate
/// strategies, the straightforward kernel the IR describes (the "original"),
/// a float64 reference, a float4 copy kernel and a driver that verifies every
/// candidate against the original (bit-identity, or a stated tolerance
/// against float64, with untouched points bit-identical) and times them
/// interleaved with CUDA events over buffers larger than L2; compile with
/// nvcc, run, read the results back.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_BENCH_H
#define FORGESTENCIL_FORGE_BENCH_H

#include "forgestencil/Forge/Strategy.h"
#include "forgestencil/IR/StencilIR.h"

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace forgestencil {
namespace forge {

struct BenchConfig {
  /// Extents per IR axis, fastest first.
  std::vector<long long> Shape;
  std::vector<StrategyParams> Candidates;
  unsigned Reps = 40, Warmup = 5;
  int Gpu = 0;
};

/// A generated file, relative to the bench directory.
struct BenchFile {
  std::string Path, Text;
};

struct BenchSources {
  std::vector<BenchFile> Files;
  /// Candidates that were generated, in launch order.
  std::vector<StrategyParams> Candidates;
  /// "id: reason" for candidates that could not be generated.
  std::vector<std::string> Skipped;
  /// The .cu files to compile, in link order.
  std::vector<std::string> Units;
  std::string Error;
};

/// The driver's block for the original kernel: (32, 4, 2) in 3-D, (32, 8)
/// in 2-D, 256 in 1-D (and 256 along x for a kernel on a 1-D thread id).
std::vector<unsigned> originalBlock(unsigned Dims);

/// For each IR axis, the thread dimension (0 x, 1 y, 2 z) its coordinate
/// comes from, or -1 for a loop inside the kernel (and for missing axes):
/// the original's grid covers only the thread axes, one block along a loop.
std::array<int, 3> axisThreadDims(const ir::StencilIR &IR);

/// Reads a Stencil IR document (fs-bench --dump-ir's output, or one
/// kernel's "ir" of fs-rewrite --dump-ir) from \p Path and validates it.
/// Errors name the file and, for a document that is not valid IR, the
/// member's path and the reason ("my.json: inputs[0].offsets[3][1]: ...").
std::optional<ir::StencilIR> loadStencilFile(const std::string &Path,
                                             std::string &Error);

/// Parses fs-bench's --shape ("512", "512,256,64"): positive extents, one
/// for every axis or one for all of them. Errors quote the text and say
/// what is wrong with it.
std::optional<std::vector<long long>> parseShape(const std::string &Text,
                                                 unsigned Dims,
                                                 std::string &Error);

/// An IR from an app (fs-rewrite --dump-ir) made to compile on its own,
/// away from the app's headers: completeForBundle's names and extents, and
/// parameter types that spell the element type through an app's typedef
/// (`const prk_float *`) spelt with the element type itself (`const double
/// *`), the same type.
ir::StencilIR standaloneIR(ir::StencilIR IR);

BenchSources generateBench(const ir::StencilIR &IR, const BenchConfig &C);

/// Writes the files under Dir (created).
bool writeBench(const BenchSources &S, const std::string &Dir,
                std::string &Error);

/// Compiles every unit of S in Dir with at most Jobs nvcc processes at once
/// and links `Dir/bench`. Compiler messages go to Dir/<unit>.log.
bool buildBench(const BenchSources &S, const std::string &Dir,
                const std::string &Nvcc, const std::string &Arch,
                unsigned Jobs, std::string &Error);

/// Runs Dir/bench and returns the JSON document it prints last. Reps, when
/// not 0, overrides the timed repetitions the driver was built with (a
/// --run-only run of what --build-only compiled).
bool runBench(const std::string &Dir, unsigned Reps, nlohmann::json &Result,
              std::string &Error);

/// One row of the summary: per variant time, rates and verdict.
struct BenchRow {
  std::string Variant;
  double MedianMs = 0, GStencils = 0, EffectiveGBs = 0, FractionOfCopy = 0;
  /// The footprint kernel's time over this variant's: the same compulsory
  /// bytes over the same domain with no stencil work, so 1 is what an exact
  /// replacement could reach. 0 for the copy row and in results from before
  /// the driver timed the footprint kernel.
  double FractionOfFootprint = 0;
  double SpeedupVsOriginal = 0;
  std::string Verdict;
};

/// Rates from the driver's result: compulsory bytes per point from the IR,
/// points of the timed domain from the driver.
std::vector<BenchRow> summarise(const ir::StencilIR &IR,
                                const nlohmann::json &Result);

/// A fixed-width table of the rows.
std::string formatTable(const std::vector<BenchRow> &Rows,
                        const nlohmann::json &Result);

} // namespace forge
} // namespace forgestencil

#endif

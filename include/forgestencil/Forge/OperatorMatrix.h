//===- OperatorMatrix.h - What won, where, by how much ---------------------===//
///
/// \file
/// knowledge/operator-matrix.json records, per stencil signature x GPU
/// architecture x size class, the best measured strategy with its
/// parameters, effective bandwidth, fraction of the measured copy bandwidth,
/// speed-up over the straightforward kernel and the evidence (date, GPU,
/// driver, nvcc, tool version, command). Every measurement is kept in the
/// entry's history; merging never drops one. Writers lock the file and
/// replace it atomically.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_OPERATORMATRIX_H
#define FORGESTENCIL_FORGE_OPERATORMATRIX_H

#include "forgestencil/Forge/Strategy.h"
#include "forgestencil/IR/StencilIR.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace forge {

inline constexpr const char *MatrixSchemaId = "forgestencil.operator-matrix";

/// "3d.star.r4.pts25.in3.out1.pp1.coef-constant-array.f32": what a
/// strategy's performance depends on, nothing that names the kernel.
std::string stencilSignature(const ir::StencilIR &IR);

/// "small" when the arrays fit in half the L2 of the GPU (so timings
/// measure the cache), "large" otherwise.
std::string sizeClass(const ir::StencilIR &IR, long long Points,
                      long long L2Bytes);

/// One measurement to record.
struct Measurement {
  std::string Signature, Arch, SizeClass;
  StrategyParams Best;
  double EffectiveGBs = 0, CopyGBs = 0, FractionOfCopy = 0;
  /// The footprint kernel's time over the best's (fs-bench's "%fp"); 0 when
  /// not measured, and then left out of the record.
  double FractionOfFootprint = 0;
  double SpeedupVsNaive = 0;
  nlohmann::json Evidence; ///< date, gpu, driver, nvcc, tool, command, ...
};

/// The command line kept as a measurement's evidence: Tool (the program's
/// name, not the directory it was built in) and the arguments after
/// Argv[0], less the options that say only where files went: each of
/// DropWithValue with its value ("--out F" or "--out=F") and each of
/// DropAlone. The knowledge must not depend on a host's paths.
std::string evidenceCommand(const std::string &Tool, int Argc,
                            const char *const *Argv,
                            const std::vector<std::string> &DropWithValue,
                            const std::vector<std::string> &DropAlone = {});

/// An empty matrix document.
nlohmann::json emptyMatrix();

/// Adds M to Matrix: appended to the entry's history; the entry's best
/// becomes M when M reaches a higher fraction of copy.
void addMeasurement(nlohmann::json &Matrix, const Measurement &M);

/// Merges Other into Matrix without losing any measurement.
void mergeMatrix(nlohmann::json &Matrix, const nlohmann::json &Other);

/// Reads Path (an absent file is an empty matrix).
bool loadMatrix(const std::string &Path, nlohmann::json &Matrix,
                std::string &Error);

/// Where a tool found the knowledge base, and how it looked.
struct KnowledgeLocation {
  /// The operator matrix to read; empty when none was found.
  std::string Path;
  /// How it was found: "--knowledge", "FS_KNOWLEDGE", "install prefix" or
  /// "source tree".
  std::string How;
  /// Every place looked at, in order (for the message when none is found).
  std::vector<std::string> Tried;
};

/// Finds the project's operator matrix, in this order: \p Explicit (a
/// --knowledge option) when given, whether or not it exists; $FS_KNOWLEDGE
/// (the file, or a directory holding operator-matrix.json); beside the
/// running binary's install prefix (<prefix>/share/forgestencil/knowledge/,
/// <prefix>/knowledge/ and <prefix>/ as the portable package has it, with
/// <prefix> the directory above the binary's); the source tree the binary
/// was built from (its knowledge/). \p Argv0 is used only where
/// /proc/self/exe cannot be read.
KnowledgeLocation locateKnowledge(const std::string &Explicit,
                                  const std::string &Argv0);

/// Read-modify-write of Path under an exclusive flock on Path + ".lock",
/// written to a temporary file and renamed over Path.
bool recordMeasurement(const std::string &Path, const Measurement &M,
                       std::string &Error);

/// Merges Other (another matrix document, e.g. one written on a GPU host)
/// into the matrix at Path, under the same lock as recordMeasurement.
bool recordMatrix(const std::string &Path, const nlohmann::json &Other,
                  std::string &Error);

/// The best known strategy for IR on Arch ("sm_90") and size class, from
/// Matrix; when none is recorded, the documented default (docs/forge.md):
/// zmarch with 32x4 blocks, z chunks of 32 and the widest vector for 3-D,
/// zmarch 128x1 for 2-D, naive for 1-D. Source says which it was.
StrategyParams pickStrategy(const nlohmann::json &Matrix,
                            const ir::StencilIR &IR, const std::string &Arch,
                            const std::string &SizeClass,
                            std::string *Source = nullptr);

} // namespace forge
} // namespace forgestencil

#endif

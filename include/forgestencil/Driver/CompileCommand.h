//===- CompileCommand.h - Compile commands as ForgeStencil sees them -------===//
///
/// \file
/// Turns one compilation-database entry (nvcc, clang or a host compiler) into
/// a language-neutral CompileJob, and a CompileJob into the clang command
/// lines that parse its host side and its device side.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_DRIVER_COMPILECOMMAND_H
#define FORGESTENCIL_DRIVER_COMPILECOMMAND_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace forgestencil {
namespace driver {

/// The language a translation unit is compiled as.
enum class SourceLanguage { Cuda, Cxx, C, Other };

/// Which side of a CUDA translation unit a clang invocation parses.
enum class CudaSide { Host, Device };

/// What ForgeStencil needs to know about one compile command.
struct CompileJob {
  std::string File;      ///< Absolute path of the source file.
  std::string Directory; ///< Absolute working directory of the command.
  std::string Compiler;  ///< argv[0] as written in the database.
  SourceLanguage Language = SourceLanguage::Other;
  /// Preprocessor and language flags that both sides see (-D, -U, -I,
  /// -isystem, -include, -std=), in command-line order.
  std::vector<std::string> CommonFlags;
  /// Flags only the host compiler sees (unwrapped -Xcompiler flags,
  /// forwarded unknown options).
  std::vector<std::string> HostFlags;
  /// Real GPU architectures named by -arch/-gencode/-code, e.g. "sm_90".
  std::vector<std::string> GpuArchs;
  /// The CUDA installation named by the command (nvcc's own location or a
  /// clang --cuda-path), empty when the command does not say.
  std::string CudaPathHint;
  bool RelocatableDeviceCode = false;
  /// nvcc builds it, so the clang parse must see nvcc's own macros.
  bool BuiltByNvcc = false;
  /// --extended-lambda / --expt-extended-lambda was given.
  bool ExtendedLambda = false;
  /// nvcc options that change what the unit means or how it links with the
  /// app's other units, spelled for nvcc (-rdc=true, --extended-lambda,
  /// --expt-relaxed-constexpr, --use_fast_math, --default-stream per-thread,
  /// -static-global-template-stub=false, ...): a build of the unit elsewhere
  /// (a tuning driver) passes them as they are.
  std::vector<std::string> NvccFlags;
  /// Not a compilation of a source (link, preprocess-only, dependency scan);
  /// such an entry is skipped and SkipReason says why.
  bool Skip = false;
  std::string SkipReason;
  /// Flags that were dropped or not understood, for --verbose.
  std::vector<std::string> Notes;

  /// The device architecture to parse the device side for: the newest real
  /// architecture the command builds for, or nvcc's default.
  std::string deviceArch() const;
};

/// Parses an nvcc command line (argv[0] is nvcc) into a CompileJob. File is
/// the database's "file" entry when known (it wins over inputs found in the
/// arguments). Relative paths in --options-file are read from Directory.
llvm::Expected<CompileJob> parseNvccCommand(llvm::ArrayRef<std::string> Argv,
                                            llvm::StringRef Directory,
                                            llvm::StringRef File);

/// Parses a clang/gcc-style command line. A clang CUDA compile (-x cuda or a
/// .cu input) becomes a Cuda job; anything else keeps its own language.
llvm::Expected<CompileJob> parseGccStyleCommand(llvm::ArrayRef<std::string> Argv,
                                                llvm::StringRef Directory,
                                                llvm::StringRef File);

/// Dispatches on argv[0]: nvcc (any path or wrapper named *nvcc) or a
/// gcc-style compiler.
llvm::Expected<CompileJob> parseCompileCommand(llvm::ArrayRef<std::string> Argv,
                                               llvm::StringRef Directory,
                                               llvm::StringRef File);

/// Where the CUDA toolkit and clang's resource directory are.
struct Toolchain {
  std::string ClangPath;   ///< Used as argv[0]; only its name matters.
  std::string ResourceDir; ///< clang's built-in headers (CUDA wrappers).
  std::string CudaPath;    ///< The CUDA toolkit root.
  /// System include directories that nvcc adds on its own (nvcc.profile's
  /// SYSTEM_INCLUDES: the toolkit's include/cccl for Thrust, CUB and
  /// libcu++ since CUDA 13); clang's CUDA driver does not add them.
  std::vector<std::string> ToolkitSystemIncludes;
  /// The toolkit's version from cuda.h's CUDA_VERSION (13.0 -> 13, 0);
  /// 0, 0 when unknown.
  unsigned CudaMajor = 0, CudaMinor = 0;
  /// Where CudaPath came from ("--cuda-path", "CUDA_PATH", ...).
  std::string CudaPathOrigin;
  /// Places that were looked at and rejected, for --verbose.
  std::vector<std::string> Notes;
};

/// Whether Root holds a CUDA toolkit's headers (include/cuda_runtime.h).
bool isCudaInstallation(llvm::StringRef Root);

/// Finds the CUDA toolkit for Job: an explicit override (which must be
/// valid), the nvcc in the command (by its path, or on PATH when named
/// bare), $CUDA_PATH, /usr/local/cuda, in that order, and clang's resource
/// directory (override, the one this tool was built against). Fails with a
/// message naming every place looked at.
llvm::Expected<Toolchain> findToolchain(const CompileJob &Job,
                                        llvm::StringRef CudaPathOverride,
                                        llvm::StringRef ResourceDirOverride);

/// The clang command line that parses one side of a CUDA job (or the one
/// side of a non-CUDA job) with -fsyntax-only.
std::vector<std::string> buildClangCommand(const CompileJob &Job,
                                           const Toolchain &TC, CudaSide Side);

} // namespace driver
} // namespace forgestencil

#endif

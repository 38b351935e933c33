//===- CompilationDatabase.h - compile_commands.json for CUDA apps ---------===//
///
/// \file
/// Loads a compile_commands.json written by CMake (CUDA language), bear or by
/// hand, translates every entry into clang CUDA commands (one for the host
/// side, one for the device side), and serves them to a ClangTool.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_DRIVER_COMPILATIONDATABASE_H
#define FORGESTENCIL_DRIVER_COMPILATIONDATABASE_H

#include "forgestencil/Driver/CompileCommand.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace forgestencil {
namespace driver {

/// Options that steer how commands are translated.
struct DatabaseOptions {
  std::string CudaPath;    ///< Overrides the toolkit found per command.
  std::string ResourceDir; ///< Overrides clang's resource directory.
  std::vector<std::string> ExtraArgs; ///< Appended to every clang command.
  /// A missing #include stops the parse (clang's own behaviour) instead of
  /// being parsed as an empty stand-in.
  bool StrictIncludes = false;
};

/// One database entry after translation.
struct TranslationUnit {
  CompileJob Job;
  /// Host and device clang commands for CUDA, one command otherwise.
  std::vector<clang::tooling::CompileCommand> Commands;
};

/// A problem with one entry that does not stop the others.
struct EntryProblem {
  std::string File;
  std::string Message;
};

/// compile_commands.json, translated for clang's CUDA front end.
class CudaCompilationDatabase : public clang::tooling::CompilationDatabase {
public:
  /// Loads Path, which is the JSON file or the directory holding it.
  /// Malformed JSON or a missing file is an Error; an entry that cannot be
  /// translated is recorded in problems() and left out.
  static llvm::Expected<std::unique_ptr<CudaCompilationDatabase>>
  load(llvm::StringRef Path, const DatabaseOptions &Opts);

  /// Builds a database from JSON text, as if read from JsonPath.
  static llvm::Expected<std::unique_ptr<CudaCompilationDatabase>>
  loadFromBuffer(llvm::StringRef Json, llvm::StringRef JsonPath,
                 const DatabaseOptions &Opts);

  std::vector<clang::tooling::CompileCommand>
  getCompileCommands(llvm::StringRef FilePath) const override;
  std::vector<std::string> getAllFiles() const override;
  std::vector<clang::tooling::CompileCommand>
  getAllCompileCommands() const override;

  /// The CUDA translation units, in database order (first entry per file).
  std::vector<std::string> cudaFiles() const;
  const TranslationUnit *unit(llvm::StringRef File) const;
  /// Entries left out, with the reason (non-CUDA, link steps, errors).
  const std::vector<EntryProblem> &problems() const { return Problems; }
  const std::vector<EntryProblem> &skipped() const { return Skipped; }
  /// The C and C++ units of the app that are not CUDA (host code the CUDA
  /// units link with), in database order, first entry per file: a tuning
  /// bundle builds them to link the app's own units.
  const std::vector<CompileJob> &hostJobs() const { return HostJobs; }
  const std::string &path() const { return JsonPath; }
  const DatabaseOptions &options() const { return Options; }

private:
  std::string JsonPath;
  DatabaseOptions Options;
  std::vector<std::string> Order;
  std::map<std::string, TranslationUnit> Units;
  std::vector<EntryProblem> Problems;
  std::vector<EntryProblem> Skipped;
  std::vector<CompileJob> HostJobs;
};

} // namespace driver
} // namespace forgestencil

#endif

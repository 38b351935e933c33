//===- FrontendRunner.h - Parse every CUDA TU, host and device side --------===//
///
/// \file
/// Runs clang over the CUDA translation units of a CudaCompilationDatabase:
/// one host-side and one device-side parse per TU. Each parse hands its AST to
/// a caller-provided consumer, even when the TU has errors, and records the
/// errors so that the caller can decide what is safe to use.
///
/// Third-party code is read as it is: an #include of a file that does not
/// exist is parsed as an empty file (a stand-in) unless the database asks
/// for strict includes, and errors are told apart by where they are. An
/// error inside a kernel's definition (or a function it calls), or one that
/// kept a <<< >>> launch from parsing, is what makes a parse fail; the
/// others are kept and reported, and everything else is still analysed.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_DRIVER_FRONTENDRUNNER_H
#define FORGESTENCIL_DRIVER_FRONTENDRUNNER_H

#include "forgestencil/Driver/CompilationDatabase.h"

#include "clang/AST/ASTConsumer.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class CompilerInstance;
class FunctionDecl;
} // namespace clang

namespace forgestencil {
namespace driver {

/// One error (or fatal error) seen while parsing.
struct ParseDiagnostic {
  std::string File; ///< Where the error is (may be a header).
  unsigned Line = 0, Column = 0;
  std::string Message;
  /// "file:line:col: error: message".
  std::string format() const;
};

/// An #include that named no existing file, parsed as an empty file.
struct StandIn {
  std::string Name; ///< As written between the delimiters: "mpi.h".
  bool Angled = false;
  std::string IncludedFrom; ///< The file that holds the #include.
  unsigned Line = 0;
  /// Kernels defined after the #include in this translation unit: what the
  /// missing header declares may be what they use.
  std::vector<std::string> KernelsAfter;
  /// "<mpi.h>" or "\"config.h\"".
  std::string spelled() const;
};

/// An error that makes a parse unusable for one kernel or one launch.
struct ParseBlocker {
  std::string Kernel; ///< The kernel not analysed, or empty for a launch.
  /// The launch that did not parse: where its "<<<" is (Message unused).
  ParseDiagnostic Launch;
  ParseDiagnostic Error;
  /// "kernel 'k'" or "the launch at file:line:col", the file as Shown
  /// turns it into text (as it is by default).
  std::string what(const std::function<std::string(llvm::StringRef)> &Shown =
                       nullptr) const;
};

/// How far a parse (or a translation unit) can be trusted.
enum class ParseStatus {
  Parsed,             ///< Every kernel and launch parsed.
  ParsedWithStandIns, ///< The same, with missing includes stood in for.
  Failed,             ///< Some kernel or launch did not parse.
};

/// "parsed", "parsed with stand-ins" or "failed".
const char *statusName(ParseStatus S);

/// The outcome of one parse (one side of one TU).
struct ParseResult {
  std::string File;
  CudaSide Side = CudaSide::Host;
  bool Ran = false; ///< False when clang could not even start.
  unsigned NumErrors = 0;
  bool Fatal = false; ///< A fatal error (e.g. a missing include) stopped it.
  std::vector<ParseDiagnostic> Errors; ///< The first few errors.
  /// The includes stood in for, each once, in the order they were met.
  std::vector<StandIn> StandIns;
  /// Removed CUDA APIs that the analysis prelude declared and the code used.
  std::vector<std::string> PreludeUses;
  /// The kernels and launches that errors made unusable.
  std::vector<ParseBlocker> Blockers;

  /// No errors at all.
  bool ok() const { return Ran && NumErrors == 0; }
  /// Errors that blocked nothing: outside every kernel and launch.
  bool hasToleratedErrors() const { return NumErrors > 0 && !failed(); }
  bool failed() const { return !Ran || Fatal || !Blockers.empty(); }
  ParseStatus status() const;
};

/// What the parse in progress has seen, for consumers that look at a
/// declaration and want to know whether errors reach it.
class ParseLog {
public:
  virtual ~ParseLog();
  /// The first error inside FD's definition (its pattern's, for an
  /// instantiation) or inside a definition FD calls, directly or not.
  virtual std::optional<ParseDiagnostic>
  errorAffecting(const clang::FunctionDecl &FD) const = 0;
  /// The includes stood in for so far.
  virtual const std::vector<StandIn> &standIns() const = 0;
};

/// The log of the parse that CI runs under runFrontend, or null when CI was
/// not started by runFrontend. Valid until that parse ends.
const ParseLog *parseLogOf(const clang::CompilerInstance &CI);

/// Called once per parse to make the consumer that sees its AST.
using ConsumerFactory = std::function<std::unique_ptr<clang::ASTConsumer>(
    clang::CompilerInstance &CI, const TranslationUnit &TU, CudaSide Side)>;

/// Parses Files (all CUDA TUs of DB when empty) and returns one result per
/// parse, host before device, in file order. Missing includes are stood in
/// for unless DB's options ask for strict includes.
std::vector<ParseResult> runFrontend(const CudaCompilationDatabase &DB,
                                     const std::vector<std::string> &Files,
                                     const ConsumerFactory &Factory,
                                     unsigned MaxErrorsKept = 5);

const char *sideName(CudaSide Side);

} // namespace driver
} // namespace forgestencil

#endif

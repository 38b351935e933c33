//===- FrontendRunner.h - Parse every CUDA TU, host and device side --------===//
///
/// \file
/// Runs clang over the CUDA translation units of a CudaCompilationDatabase:
/// one host-side and one device-side parse per TU. Each parse hands its AST to
/// a caller-provided consumer, even when the TU has errors, and records the
/// errors so that the caller can decide what is safe to use.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_DRIVER_FRONTENDRUNNER_H
#define FORGESTENCIL_DRIVER_FRONTENDRUNNER_H

#include "forgestencil/Driver/CompilationDatabase.h"

#include "clang/AST/ASTConsumer.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace clang {
class CompilerInstance;
}

namespace forgestencil {
namespace driver {

/// One error (or fatal error) seen while parsing.
struct ParseDiagnostic {
  std::string File; ///< Where the error is (may be a header).
  unsigned Line = 0, Column = 0;
  std::string Message;
  std::string format() const;
};

/// The outcome of one parse (one side of one TU).
struct ParseResult {
  std::string File;
  CudaSide Side = CudaSide::Host;
  bool Ran = false; ///< False when clang could not even start.
  unsigned NumErrors = 0;
  bool Fatal = false; ///< A fatal error (e.g. a missing include) stopped it.
  std::vector<ParseDiagnostic> Errors; ///< The first few errors.
  bool ok() const { return Ran && NumErrors == 0; }
};

/// Called once per parse to make the consumer that sees its AST.
using ConsumerFactory = std::function<std::unique_ptr<clang::ASTConsumer>(
    clang::CompilerInstance &CI, const TranslationUnit &TU, CudaSide Side)>;

/// Parses Files (all CUDA TUs of DB when empty) and returns one result per
/// parse, host before device, in file order.
std::vector<ParseResult> runFrontend(const CudaCompilationDatabase &DB,
                                     const std::vector<std::string> &Files,
                                     const ConsumerFactory &Factory,
                                     unsigned MaxErrorsKept = 5);

const char *sideName(CudaSide Side);

} // namespace driver
} // namespace forgestencil

#endif

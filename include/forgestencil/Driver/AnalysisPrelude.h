//===- AnalysisPrelude.h - The header fs-rewrite's own parses include ------===//
///
/// \file
/// The analysis prelude (lib/Driver/Prelude/analysis-prelude.h) is passed with
/// -include to every clang parse of a CUDA translation unit that fs-rewrite
/// runs, and to nothing it writes: it lets clang read CUDA 13's headers as
/// nvcc does and declares APIs CUDA removed. Its text is built into the
/// library and mapped into each parse in memory, so no installed file can be
/// missing.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_DRIVER_ANALYSISPRELUDE_H
#define FORGESTENCIL_DRIVER_ANALYSISPRELUDE_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace clang {
class ASTContext;
}

namespace forgestencil {
namespace driver {

/// The path the prelude has inside each parse (served from memory).
llvm::StringRef analysisPreludePath();

/// The prelude's text.
llvm::StringRef analysisPreludeText();

/// The removed CUDA APIs that the prelude declared and the parsed code used
/// ("cudaThreadSynchronize", "cudaDeviceProp::deviceOverlap", "texture"),
/// in the order the prelude declares them.
std::vector<std::string> preludeDeclarationsUsed(clang::ASTContext &Ctx);

} // namespace driver
} // namespace forgestencil

#endif

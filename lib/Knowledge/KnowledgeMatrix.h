//===- KnowledgeMatrix.h - The operator matrix the choices read -----------===//
///
/// \file
/// Internal to lib/Knowledge: the operator matrix at a path, or the empty
/// one (the documented defaults) when there is none, said on the log.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_KNOWLEDGE_KNOWLEDGEMATRIX_H
#define FORGESTENCIL_LIB_KNOWLEDGE_KNOWLEDGEMATRIX_H

#include "forgestencil/Forge/OperatorMatrix.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace forgestencil {
namespace knowledge {

/// The matrix in \p File (none when empty); one that cannot be read gives
/// the empty matrix and "fs-rewrite: note: no knowledge base (<why>);
/// <\p Instead>" on \p Log.
inline nlohmann::json knowledgeMatrix(const std::string &File,
                                      llvm::raw_ostream &Log,
                                      llvm::StringRef Instead) {
  nlohmann::json Matrix = forge::emptyMatrix();
  std::string Why;
  if (!File.empty() && !forge::loadMatrix(File, Matrix, Why))
    Log << "fs-rewrite: note: no knowledge base (" << Why << "); " << Instead
        << "\n";
  return Matrix;
}

} // namespace knowledge
} // namespace forgestencil

#endif

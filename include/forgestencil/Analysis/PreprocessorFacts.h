//===- PreprocessorFacts.h - What the preprocessor decided in one parse ---===//
///
/// \file
/// The conditional directives (#if, #ifdef, #elif, ...) of one parse with the
/// value each one had. A kernel whose body holds such a directive is what
/// the preprocessor made of it under this build's flags; the analysis turns
/// every directive inside a kernel (or a helper it calls) into an assumption
/// the generated code checks, so that another build runs the original.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_ANALYSIS_PREPROCESSORFACTS_H
#define FORGESTENCIL_ANALYSIS_PREPROCESSORFACTS_H

#include "clang/Basic/SourceLocation.h"

#include <memory>
#include <string>
#include <vector>

namespace clang {
class Preprocessor;
class SourceManager;
} // namespace clang

namespace forgestencil {
namespace analysis {

/// One evaluated conditional directive.
struct ConditionalDirective {
  clang::SourceLocation Loc; ///< The directive's '#'.
  /// A condition the preprocessor can evaluate again: the #if/#elif text, or
  /// defined(NAME) for #ifdef/#ifndef (negated for #ifndef).
  std::string Condition;
  bool Taken = false; ///< Whether the condition held.
};

class PreprocessorFacts {
public:
  /// Records the directives of PP's parse into this object from now on.
  void attach(clang::Preprocessor &PP);
  const std::vector<ConditionalDirective> &directives() const {
    return Directives;
  }
  /// The directives within Range (file locations), in order.
  std::vector<const ConditionalDirective *>
  within(clang::SourceRange Range, const clang::SourceManager &SM) const;

  std::vector<ConditionalDirective> Directives;
};

} // namespace analysis
} // namespace forgestencil

#endif

//===- LaunchBlocks.h - The block each kernel is launched with ------------===//
///
/// \file
/// Internal to lib/Analysis. For every kernel launched with `<<< >>>` in a
/// translation unit, the block its launches use where they all say it with
/// constants: an integer (`<<<g, 256>>>`), a dim3 built from constants
/// (`dim3(BX, BY)`), or a local dim3 variable initialised so (`dim3
/// block(32, 8); k<<<g, block>>>`). A kernel whose launches disagree, or one
/// of which has a block that is not constant, gets none. What is found
/// here is only ever an assumption the launcher checks at run time.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_ANALYSIS_LAUNCHBLOCKS_H
#define FORGESTENCIL_LIB_ANALYSIS_LAUNCHBLOCKS_H

#include "forgestencil/Analysis/StencilAnalysis.h"

#include <map>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace forgestencil {
namespace analysis {
namespace detail {

/// By kernel (its canonical declaration; an instantiation for templates).
std::map<const clang::FunctionDecl *, LaunchBlock>
launchBlocks(clang::ASTContext &Ctx);

} // namespace detail
} // namespace analysis
} // namespace forgestencil

#endif

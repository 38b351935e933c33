//===- RestrictFacts.h - What the restrict transform may change -*- C++ -*-===//
///
/// \file
/// Reads a kernel definition for the restrict body transform: where each
/// pointer parameter's `*` is spelled, which of them the kernel only reads
/// through, and whether anything but its own pointer parameters could reach
/// the memory they point to (a parameter that carries pointers, a
/// `__device__` variable, a callee whose body is not in the unit, inline
/// assembly). The launcher checks at run time that the pointers point into
/// distinct allocations; these facts make that check sufficient.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_REWRITE_RESTRICTFACTS_H
#define FORGESTENCIL_LIB_REWRITE_RESTRICTFACTS_H

#include "forgestencil/Rewrite/RewriteFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

namespace forgestencil {
namespace rewrite {

/// Fills \p K's PointerParams and RestrictProblem from definition \p FD,
/// whose text starts at file offset \p TextBegin of the file \p K.Text was
/// cut from. For a template, the uses are read in every instantiation the
/// unit makes.
void recordRestrictFacts(const clang::FunctionDecl *FD, clang::ASTContext &Ctx,
                         unsigned TextBegin, KernelDefinition &K);

} // namespace rewrite
} // namespace forgestencil

#endif

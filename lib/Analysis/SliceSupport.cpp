//===- SliceSupport.cpp - What slicers look up in a kernel body -----------===//

#include "SliceSupport.h"

#include "KernelInterpreter.h"
#include "forgestencil/Analysis/CudaBuiltins.h"

#include "clang/AST/Attr.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

namespace forgestencil {
namespace analysis {
namespace detail {

using namespace clang;

const Stmt *BodyIndex::parent(const Stmt *S) const {
  for (;;) {
    auto It = Parents.find(S);
    if (It == Parents.end() || !It->second)
      return nullptr;
    S = It->second;
    if (!isa<ParenExpr>(S) && !isa<ImplicitCastExpr>(S))
      return S;
  }
}

void BodyIndex::walk(const Stmt *S, const Stmt *Parent) {
  if (!S)
    return;
  Parents[S] = Parent;
  if (const auto *DR = dyn_cast<DeclRefExpr>(S))
    Refs[DR->getDecl()].push_back(DR);
  if (const auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D)) {
        if (VD->hasAttr<CUDASharedAttr>() && VD->getType()->isArrayType())
          Shared.push_back(VD);
        if (const Expr *Init = VD->getInit())
          walk(Init, S);
      }
  for (const Stmt *C : S->children())
    walk(C, S);
}

bool pure(const Expr *E, ASTContext &Ctx) {
  if (E->HasSideEffects(Ctx, /*IncludePossibleEffects=*/false))
    return false;
  std::function<bool(const Stmt *)> Calls = [&](const Stmt *S) {
    if (!S)
      return true;
    if (const auto *X = dyn_cast<Expr>(S); X && cudaBuiltinRef(X))
      return true; // threadIdx.x: a property read, a call in the AST.
    if (const auto *C = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *FD = C->getDirectCallee();
      if (!FD || !(isMathFunction(FD->getName()) ||
                   isMathFunction(FD->getQualifiedNameAsString())))
        return false;
    }
    for (const Stmt *Child : S->children())
      if (!Calls(Child))
        return false;
    return true;
  };
  return Calls(E);
}

bool standsAlone(const Stmt *S, const BodyIndex &Index) {
  const Stmt *P = Index.directParent(S);
  if (!P)
    return false;
  if (isa<CompoundStmt>(P) || isa<AttributedStmt>(P))
    return true;
  if (const auto *If = dyn_cast<IfStmt>(P))
    return If->getThen() == S || If->getElse() == S;
  return false;
}

std::string oneLineText(const Expr *E, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange R = CharSourceRange::getTokenRange(E->getSourceRange());
  std::string Text =
      Lexer::getSourceText(SM.getExpansionRange(R), SM, Ctx.getLangOpts())
          .str();
  for (char &C : Text)
    if (C == '\n' || C == '\r' || C == '\t')
      C = ' ';
  return Text;
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

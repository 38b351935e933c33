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

const ParmVarDecl *
elementOfParam(const Expr *Target, const FunctionDecl &Kernel,
               const std::function<bool(const Expr *)> &IndexOk,
               bool Address) {
  auto Param = [&](const Expr *E) -> const ParmVarDecl * {
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *P = DR ? dyn_cast<ParmVarDecl>(DR->getDecl()) : nullptr;
    return P && P->getDeclContext() == &Kernel && P->getType()->isPointerType()
               ? P
               : nullptr;
  };
  auto Element = [&](const Expr *E) -> const ParmVarDecl * {
    const auto *AS = dyn_cast<ArraySubscriptExpr>(E->IgnoreParens());
    return AS && IndexOk(AS->getIdx()) ? Param(AS->getBase()) : nullptr;
  };
  const Expr *E = Target->IgnoreParenImpCasts();
  if (!Address)
    return Element(E);
  if (const ParmVarDecl *P = Param(E))
    return P;
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_AddrOf)
    return Element(U->getSubExpr());
  if (const auto *B = dyn_cast<BinaryOperator>(E);
      B && B->getOpcode() == BO_Add) {
    if (const ParmVarDecl *P = Param(B->getLHS()); P && IndexOk(B->getRHS()))
      return P;
    if (const ParmVarDecl *P = Param(B->getRHS()); P && IndexOk(B->getLHS()))
      return P;
  }
  return nullptr;
}

bool isAccumulatingAtomic(const CallExpr *C, bool Bitwise) {
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD || !FD->getIdentifier() || C->getNumArgs() != 2)
    return false;
  StringRef N = FD->getName();
  return N == "atomicAdd" || N == "atomicMax" || N == "atomicMin" ||
         (Bitwise && (N == "atomicOr" || N == "atomicAnd"));
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

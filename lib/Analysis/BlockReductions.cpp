//===- BlockReductions.cpp - Block reductions fused into a stencil --------===//

#include "BlockReductions.h"

#include "KernelInterpreter.h"
#include "forgestencil/Analysis/CudaBuiltins.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <map>

namespace forgestencil {
namespace analysis {
namespace detail {

namespace {

using namespace clang;

/// The statements of one kernel body with their parents, and the
/// references to each variable.
class BodyIndex {
public:
  explicit BodyIndex(const Stmt *Body) { walk(Body, nullptr); }

  /// The nearest parent of \p S that is not a parenthesis or implicit cast.
  const Stmt *parent(const Stmt *S) const {
    for (;;) {
      auto It = Parents.find(S);
      if (It == Parents.end() || !It->second)
        return nullptr;
      S = It->second;
      if (!isa<ParenExpr>(S) && !isa<ImplicitCastExpr>(S))
        return S;
    }
  }
  const Stmt *directParent(const Stmt *S) const {
    auto It = Parents.find(S);
    return It == Parents.end() ? nullptr : It->second;
  }
  const std::vector<const DeclRefExpr *> &refs(const ValueDecl *D) const {
    static const std::vector<const DeclRefExpr *> None;
    auto It = Refs.find(D);
    return It == Refs.end() ? None : It->second;
  }
  const std::vector<const VarDecl *> &sharedArrays() const { return Shared; }

private:
  void walk(const Stmt *S, const Stmt *Parent) {
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

  std::map<const Stmt *, const Stmt *> Parents;
  std::map<const ValueDecl *, std::vector<const DeclRefExpr *>> Refs;
  std::vector<const VarDecl *> Shared;
};

/// Whether evaluating \p E can do nothing but compute a value: no
/// assignment, increment or call other than to a math function.
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

/// Whether \p S stands as a statement of its own (its value unused): in a
/// compound statement, as a side of an if, or under an attribute.
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

class BlockReductionSlicer : public KernelSlicer {
public:
  const char *name() const override { return "block-reduction"; }

  void slice(const FunctionDecl &Kernel, ASTContext &Ctx,
             KernelSlices &Out) const override {
    const auto *Body = dyn_cast_or_null<CompoundStmt>(Kernel.getBody());
    if (!Body)
      return;
    BodyIndex Index(Body);
    for (const VarDecl *S : Index.sharedArrays())
      if (std::optional<Found> F = reduction(Kernel, Ctx, *Body, Index, *S)) {
        Out.Skipped.insert(F->Call);
        Out.SkippedShared.insert(S->getName().str());
        Out.Reductions.push_back(std::move(F->Info));
      }
  }

private:
  struct Found {
    const CallExpr *Call = nullptr;
    ir::BlockReduction Info;
  };

  std::optional<Found> reduction(const FunctionDecl &Kernel, ASTContext &Ctx,
                                 const CompoundStmt &Body,
                                 const BodyIndex &Index,
                                 const VarDecl &S) const {
    const CallExpr *Call = nullptr;
    unsigned Stores = 0;
    for (const DeclRefExpr *Ref : Index.refs(&S)) {
      const Stmt *P = Index.parent(Ref);
      if (const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(P);
          AS && AS->getBase()->IgnoreParenImpCasts() == Ref) {
        const auto *B = dyn_cast_or_null<BinaryOperator>(Index.parent(AS));
        if (!B || B->getOpcode() != BO_Assign ||
            B->getLHS()->IgnoreParens() != AS || !standsAlone(B, Index) ||
            !pure(B->getRHS(), Ctx) || !pure(AS->getIdx(), Ctx))
          return std::nullopt;
        ++Stores;
        continue;
      }
      const auto *C = dyn_cast_or_null<CallExpr>(P);
      if (!C || (Call && Call != C))
        return std::nullopt;
      bool AnArgument = false;
      for (const Expr *A : C->arguments())
        AnArgument |= A->IgnoreParenImpCasts() == Ref;
      if (!AnArgument)
        return std::nullopt;
      Call = C;
    }
    if (!Call || Stores == 0 || Index.directParent(Call) != &Body)
      return std::nullopt;
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->hasBody() || isAtomicName(Callee->getName()))
      return std::nullopt;
    Found F;
    F.Call = Call;
    F.Info.Shared = S.getName().str();
    for (const Expr *A : Call->arguments()) {
      const Expr *E = A->IgnoreParenImpCasts();
      if (const auto *U = dyn_cast<UnaryOperator>(E);
          U && U->getOpcode() == UO_AddrOf)
        E = U->getSubExpr()->IgnoreParenImpCasts();
      const auto *DR = dyn_cast<DeclRefExpr>(E);
      if (DR && DR->getDecl() == &S)
        continue;
      if (DR && isa<FunctionDecl>(DR->getDecl()))
        continue; // The combining function.
      if (!DR && !E->isValueDependent() && E->isIntegerConstantExpr(Ctx))
        continue;
      const auto *PV = DR ? dyn_cast<ParmVarDecl>(DR->getDecl()) : nullptr;
      if (!PV || PV->getDeclContext() != &Kernel ||
          !PV->getType()->isPointerType() || Index.refs(PV).size() != 1)
        return std::nullopt;
      F.Info.Outputs.push_back(PV->getName().str());
    }
    if (F.Info.Outputs.empty())
      return std::nullopt;
    const SourceManager &SM = Ctx.getSourceManager();
    CharSourceRange R = CharSourceRange::getTokenRange(Call->getSourceRange());
    std::string Text =
        Lexer::getSourceText(SM.getExpansionRange(R), SM, Ctx.getLangOpts())
            .str();
    for (char &C : Text)
      if (C == '\n' || C == '\r' || C == '\t')
        C = ' ';
    F.Info.Call = Text;
    return F;
  }
};

} // namespace

std::unique_ptr<KernelSlicer> makeBlockReductionSlicer() {
  return std::make_unique<BlockReductionSlicer>();
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

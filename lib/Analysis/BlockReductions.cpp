//===- BlockReductions.cpp - Block reductions fused into a stencil --------===//

#include "BlockReductions.h"

#include "KernelInterpreter.h"
#include "SliceSupport.h"
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
    F.Info.Call = oneLineText(Call, Ctx);
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

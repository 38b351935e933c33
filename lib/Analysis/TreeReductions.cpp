//===- TreeReductions.cpp - Block reductions written out in the kernel ----===//

#include "TreeReductions.h"

#include "KernelInterpreter.h"
#include "SliceSupport.h"
#include "forgestencil/Analysis/CudaBuiltins.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

#include <functional>
#include <set>

namespace forgestencil {
namespace analysis {
namespace detail {

namespace {

using namespace clang;

/// Whether the loop \p L only combines elements of \p S: every name in it
/// is S, a variable it declares, an integer local of the kernel, an integer
/// constant, threadIdx, blockDim and the like, or a function that computes
/// (math) or waits (a barrier), and
/// every store goes to an element of S or to a variable it declares.
bool onlyCombines(const ForStmt &L, const VarDecl &S, ASTContext &Ctx) {
  std::set<const VarDecl *> Own;
  bool Ok = true;
  std::function<void(const Stmt *)> Declared = [&](const Stmt *X) {
    if (!X)
      return;
    if (const auto *DS = dyn_cast<DeclStmt>(X))
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D))
          Own.insert(VD);
    for (const Stmt *C : X->children())
      Declared(C);
  };
  Declared(&L);
  auto Target = [&](const Expr *E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      const auto *DR =
          dyn_cast<DeclRefExpr>(AS->getBase()->IgnoreParenImpCasts());
      return DR && DR->getDecl() == &S;
    }
    const auto *DR = dyn_cast<DeclRefExpr>(E);
    const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
    return VD && Own.count(VD);
  };
  std::function<void(const Stmt *)> Walk = [&](const Stmt *X) {
    if (!X || !Ok)
      return;
    if (const auto *E = dyn_cast<Expr>(X); E && cudaBuiltinRef(E))
      return; // blockDim.x: a property read, a call in the AST.
    if (const auto *B = dyn_cast<BinaryOperator>(X);
        B && B->isAssignmentOp() && !Target(B->getLHS()))
      Ok = false;
    if (const auto *U = dyn_cast<UnaryOperator>(X);
        U && U->isIncrementDecrementOp() && !Target(U->getSubExpr()))
      Ok = false;
    if (const auto *C = dyn_cast<CallExpr>(X)) {
      const FunctionDecl *FD = C->getDirectCallee();
      if (!FD || !(isBlockBarrier(C) || isMathFunction(FD->getName())))
        Ok = false;
    }
    if (const auto *DR = dyn_cast<DeclRefExpr>(X)) {
      const ValueDecl *D = DR->getDecl();
      const auto *VD = dyn_cast<VarDecl>(D);
      if (isa<FunctionDecl>(D) || isa<EnumConstantDecl>(D))
        ;
      else if (!VD)
        Ok = false;
      else if (VD != &S && !Own.count(VD) &&
               !(VD->hasLocalStorage() && !isa<ParmVarDecl>(VD) &&
                 VD->getType()->isIntegerType()) &&
               !(VD->getType().isConstQualified() &&
                 VD->getType()->isIntegerType() && VD->getInit() &&
                 !VD->getInit()->isValueDependent() &&
                 VD->getInit()->isIntegerConstantExpr(Ctx)))
        Ok = false;
    }
    for (const Stmt *C : X->children())
      Walk(C);
  };
  Walk(&L);
  return Ok;
}

class TreeReductionSlicer : public KernelSlicer {
public:
  const char *name() const override { return "tree-reduction"; }

  void slice(const FunctionDecl &Kernel, ASTContext &Ctx,
             KernelSlices &Out) const override {
    const auto *Body = dyn_cast_or_null<CompoundStmt>(Kernel.getBody());
    if (!Body)
      return;
    BodyIndex Index(Body);
    for (const VarDecl *S : Index.sharedArrays()) {
      if (Out.SkippedShared.count(S->getName().str()))
        continue; // Another slicer's.
      reduction(Kernel, Ctx, *Body, Index, *S, Out);
    }
  }

private:
  void reduction(const FunctionDecl &Kernel, ASTContext &Ctx,
                 const CompoundStmt &Body, const BodyIndex &Index,
                 const VarDecl &S, KernelSlices &Out) const {
    // The loop and the final store: statements of the body, in that order.
    const ForStmt *Loop = nullptr;
    const IfStmt *Final = nullptr;
    const Expr *Store = nullptr;
    const ParmVarDecl *Result = nullptr;
    auto Names = [&](const Stmt *X) {
      for (const DeclRefExpr *R : Index.refs(&S))
        if (Index.within(R, X))
          return true;
      return false;
    };
    for (const Stmt *X : Body.body()) {
      if (!Names(X))
        continue;
      if (const auto *F = dyn_cast<ForStmt>(X); F && !Loop && !Final) {
        if (!onlyCombines(*F, S, Ctx))
          return;
        Loop = F;
        continue;
      }
      if (const auto *If = dyn_cast<IfStmt>(X); If && Loop && !Final) {
        if (If->getElse() || If->getInit() || If->getConditionVariable() ||
            !pure(If->getCond(), Ctx))
          return;
        const Stmt *Then = If->getThen();
        if (const auto *C = dyn_cast<CompoundStmt>(Then)) {
          if (C->size() != 1)
            return;
          Then = C->body_front();
        }
        Result = finalStore(Then, Kernel, Ctx, S, Store);
        if (!Result)
          return;
        Final = If;
        continue;
      }
      if (Loop)
        return; // S named after the loop by anything but the final store.
    }
    if (!Loop || !Final || Index.refs(Result).size() != 1)
      return;
    // Elsewhere S is only the target of plain stores of computed values.
    const std::set<const Stmt *> Taken = {Loop, Final};
    unsigned Stores = 0;
    for (const DeclRefExpr *Ref : Index.refs(&S)) {
      if (Index.within(Ref, Taken))
        continue;
      const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(Index.parent(Ref));
      const auto *B =
          AS ? dyn_cast_or_null<BinaryOperator>(Index.parent(AS)) : nullptr;
      if (!AS || AS->getBase()->IgnoreParenImpCasts() != Ref || !B ||
          B->getOpcode() != BO_Assign || B->getLHS()->IgnoreParens() != AS ||
          !standsAlone(B, Index) || !pure(B->getRHS(), Ctx) ||
          !pure(AS->getIdx(), Ctx))
        return;
      ++Stores;
    }
    if (Stores == 0)
      return;
    ir::BlockReduction R;
    R.Shared = S.getName().str();
    R.Outputs.push_back(Result->getName().str());
    R.Call = oneLineText(Store, Ctx);
    Out.Skipped.insert(Loop);
    Out.Skipped.insert(Final);
    Out.SkippedShared.insert(R.Shared);
    Out.Reductions.push_back(std::move(R));
  }

  /// p[e] = s[k] or atomicOp(q, s[k]) into a pointer parameter p of the
  /// kernel (q: p, &p[e] or p + e); that parameter, or null.
  static const ParmVarDecl *finalStore(const Stmt *X,
                                       const FunctionDecl &Kernel,
                                       ASTContext &Ctx, const VarDecl &S,
                                       const Expr *&Store) {
    auto Pure = [&](const Expr *E) { return pure(E, Ctx); };
    auto ElementOfS = [&](const Expr *E) {
      const auto *AS = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
      const auto *DR =
          AS ? dyn_cast<DeclRefExpr>(AS->getBase()->IgnoreParenImpCasts())
             : nullptr;
      return DR && DR->getDecl() == &S && pure(AS->getIdx(), Ctx);
    };
    if (const auto *B = dyn_cast<BinaryOperator>(X);
        B && B->getOpcode() == BO_Assign && ElementOfS(B->getRHS())) {
      Store = B;
      return elementOfParam(B->getLHS(), Kernel, Pure, /*Address=*/false);
    }
    if (const auto *C = dyn_cast<CallExpr>(X);
        C && isAccumulatingAtomic(C, /*Bitwise=*/false) &&
        ElementOfS(C->getArg(1))) {
      Store = C;
      return elementOfParam(C->getArg(0), Kernel, Pure, /*Address=*/true);
    }
    return nullptr;
  }
};

} // namespace

std::unique_ptr<KernelSlicer> makeTreeReductionSlicer() {
  return std::make_unique<TreeReductionSlicer>();
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

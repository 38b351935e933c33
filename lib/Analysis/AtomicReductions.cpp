//===- AtomicReductions.cpp - Atomic accumulations fused into a stencil ---===//

#include "AtomicReductions.h"

#include "SliceSupport.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

#include <functional>

namespace forgestencil {
namespace analysis {
namespace detail {

namespace {

using namespace clang;

/// The kernel's pointer parameter that \p Target names the element of: p,
/// &p[c], p + c or c + p with c an integer constant; null for anything else.
const ParmVarDecl *accumulator(const Expr *Target, const FunctionDecl &Kernel,
                               ASTContext &Ctx) {
  auto Param = [&](const Expr *E) -> const ParmVarDecl * {
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *P = DR ? dyn_cast<ParmVarDecl>(DR->getDecl()) : nullptr;
    return P && P->getDeclContext() == &Kernel && P->getType()->isPointerType()
               ? P
               : nullptr;
  };
  auto Constant = [&](const Expr *E) {
    return !E->isValueDependent() && E->isIntegerConstantExpr(Ctx);
  };
  const Expr *E = Target->IgnoreParenImpCasts();
  if (const ParmVarDecl *P = Param(E))
    return P;
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_AddrOf)
    if (const auto *AS =
            dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens()))
      return Constant(AS->getIdx()) ? Param(AS->getBase()) : nullptr;
  if (const auto *B = dyn_cast<BinaryOperator>(E);
      B && B->getOpcode() == BO_Add) {
    if (Constant(B->getRHS()))
      return Param(B->getLHS());
    if (Constant(B->getLHS()))
      return Param(B->getRHS());
  }
  return nullptr;
}

class AtomicReductionSlicer : public KernelSlicer {
public:
  const char *name() const override { return "atomic-reduction"; }

  void slice(const FunctionDecl &Kernel, ASTContext &Ctx,
             KernelSlices &Out) const override {
    const auto *Body = dyn_cast_or_null<CompoundStmt>(Kernel.getBody());
    if (!Body)
      return;
    BodyIndex Index(Body);
    std::vector<const CallExpr *> Calls;
    std::function<void(const Stmt *)> Find = [&](const Stmt *S) {
      if (!S)
        return;
      if (const auto *C = dyn_cast<CallExpr>(S))
        if (const FunctionDecl *FD = C->getDirectCallee();
            FD && FD->getIdentifier() &&
            (FD->getName() == "atomicAdd" || FD->getName() == "atomicMax" ||
             FD->getName() == "atomicMin" || FD->getName() == "atomicOr" ||
             FD->getName() == "atomicAnd"))
          Calls.push_back(C);
      for (const Stmt *Child : S->children())
        Find(Child);
    };
    Find(Body);
    for (const CallExpr *C : Calls) {
      if (C->getNumArgs() != 2 || !standsAlone(C, Index) ||
          !pure(C->getArg(1), Ctx))
        continue;
      // Inside a part another slicer took out (a block's result).
      bool Taken = false;
      for (const Stmt *S = C; S && !Taken; S = Index.directParent(S))
        Taken = Out.Skipped.count(S) != 0;
      if (Taken)
        continue;
      const ParmVarDecl *P = accumulator(C->getArg(0), Kernel, Ctx);
      if (!P || Index.refs(P).size() != 1)
        continue;
      ir::BlockReduction R;
      R.Outputs.push_back(P->getName().str());
      R.Call = oneLineText(C, Ctx);
      Out.Skipped.insert(C);
      Out.Reductions.push_back(std::move(R));
    }
  }
};

} // namespace

std::unique_ptr<KernelSlicer> makeAtomicReductionSlicer() {
  return std::make_unique<AtomicReductionSlicer>();
}

std::string onlyAccumulates(const KernelSlices &Slices) {
  for (const ir::BlockReduction &R : Slices.Reductions)
    if (R.Shared.empty())
      return "atomic update (" + R.Call +
             ") with no stencil beside it: a reduction, not a stencil";
  return "";
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

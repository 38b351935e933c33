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
      if (const auto *C = dyn_cast<CallExpr>(S);
          C && isAccumulatingAtomic(C, /*Bitwise=*/true))
        Calls.push_back(C);
      for (const Stmt *Child : S->children())
        Find(Child);
    };
    Find(Body);
    for (const CallExpr *C : Calls) {
      if (!standsAlone(C, Index) || !pure(C->getArg(1), Ctx))
        continue;
      // Inside a part another slicer took out (a block's result).
      if (Index.within(C, Out.Skipped))
        continue;
      // p, &p[c] or p + c with c an integer constant.
      const ParmVarDecl *P =
          elementOfParam(
              C->getArg(0), Kernel,
              [&](const Expr *E) {
                return !E->isValueDependent() && E->isIntegerConstantExpr(Ctx);
              },
              /*Address=*/true);
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

//===- TemporalBlocking.cpp - Kernels that run several time steps ---------===//
//
// Two forms: fused steps (FusedSteps.h finds them, and one step's
// footprint where the code says where every value comes from) and a time
// loop with a grid-wide barrier, found below.
//
//===----------------------------------------------------------------------===//

#include "TemporalBlocking.h"
#include "FusedSteps.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/Attr.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

using namespace clang;

namespace forgestencil {
namespace analysis {
namespace detail {
namespace {

/// The body of the function \p C calls, when it has one and \p Seen did
/// not hold it yet (it does now); the walks below follow calls once each.
const FunctionDecl *unseenCallee(const CallExpr *C,
                                 std::set<const FunctionDecl *> &Seen) {
  const FunctionDecl *F = C->getDirectCallee(), *Def = nullptr;
  if (!F || !F->hasBody(Def) || !Def || !Seen.insert(Def).second)
    return nullptr;
  return Def;
}

/// True when \p St, or a function it calls (up to \p Depth calls deep),
/// has a grid-wide barrier: cooperative groups' grid_group::sync().
bool hasGridSync(const Stmt *St, int Depth, std::set<const FunctionDecl *> &Seen) {
  if (!St)
    return false;
  if (const auto *M = dyn_cast<CXXMemberCallExpr>(St)) {
    const CXXMethodDecl *MD = M->getMethodDecl();
    const CXXRecordDecl *RD = MD ? MD->getParent() : nullptr;
    if (MD && RD && MD->getName() == "sync" &&
        (RD->getName() == "grid_group" || RD->getName() == "multi_grid_group"))
      return true;
  }
  if (const auto *C = dyn_cast<CallExpr>(St)) {
    const FunctionDecl *F = C->getDirectCallee();
    if (F && F->getName() == "sync" && C->getNumArgs() == 1) {
      QualType T = C->getArg(0)->getType().getNonReferenceType();
      if (const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
          RD && (RD->getName() == "grid_group" ||
                 RD->getName() == "multi_grid_group"))
        return true;
    }
    if (Depth > 0)
      if (const FunctionDecl *Def = unseenCallee(C, Seen);
          Def && !Def->getDeclContext()->isStdNamespace() &&
          hasGridSync(Def->getBody(), Depth - 1, Seen))
        return true;
  }
  for (const Stmt *Child : St->children())
    if (hasGridSync(Child, Depth, Seen))
      return true;
  return false;
}

/// True when \p St, or a function it calls, has a loop whose body has a
/// grid-wide barrier.
bool hasTimeLoop(const Stmt *St, int Depth, std::set<const FunctionDecl *> &Seen) {
  if (!St)
    return false;
  const Stmt *Body = nullptr;
  if (const auto *F = dyn_cast<ForStmt>(St))
    Body = F->getBody();
  else if (const auto *W = dyn_cast<WhileStmt>(St))
    Body = W->getBody();
  else if (const auto *D = dyn_cast<DoStmt>(St))
    Body = D->getBody();
  if (Body) {
    std::set<const FunctionDecl *> Inner;
    if (hasGridSync(Body, 4, Inner))
      return true;
  }
  if (const auto *C = dyn_cast<CallExpr>(St); C && Depth > 0)
    if (const FunctionDecl *Def = unseenCallee(C, Seen);
        Def && hasTimeLoop(Def->getBody(), Depth - 1, Seen))
      return true;
  for (const Stmt *Child : St->children())
    if (hasTimeLoop(Child, Depth, Seen))
      return true;
  return false;
}

class TemporalBlockingRecogniser : public KernelRecogniser {
public:
  const char *name() const override { return "temporal-blocking"; }

  std::optional<Recognised> examine(const FunctionDecl &Kernel,
                                    ASTContext &Ctx,
                                    const KernelAnalysis &) const override {
    const Stmt *Body = Kernel.getBody();
    if (!Body)
      return std::nullopt;
    std::set<const FunctionDecl *> Seen;
    if (hasTimeLoop(Body, 4, Seen)) {
      Recognised R;
      R.Why = {ReasonKind::TemporalBlocking,
               "in-kernel temporal blocking: a loop with a grid-wide barrier "
               "(cooperative groups' grid sync) runs the time steps inside "
               "the kernel (a persistent kernel), not one step a launch"};
      R.Temporal = TemporalBlocking{TemporalBlocking::TimeLoop, 0, std::nullopt, ""};
      return R;
    }
    FusedStepsFound Found = findFusedSteps(Kernel, Ctx);
    unsigned Steps = Found.Steps;
    if (Steps < 2)
      return std::nullopt;
    Recognised R;
    R.Why = {ReasonKind::TemporalBlocking,
             "in-kernel temporal blocking: the stored value is the same "
             "update applied " +
                 std::to_string(Steps) +
                 " times, each on values the previous one computed (" +
                 std::to_string(Steps) +
                 " time steps fused in one kernel), not one step a launch"};
    R.Temporal = TemporalBlocking{TemporalBlocking::FusedSteps, Steps,
                                  Found.PerStep, Found.NoStepWhy};
    return R;
  }
};

} // namespace

std::unique_ptr<KernelRecogniser> makeTemporalBlockingRecogniser() {
  return std::make_unique<TemporalBlockingRecogniser>();
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

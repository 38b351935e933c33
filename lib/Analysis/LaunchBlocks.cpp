//===- LaunchBlocks.cpp - The block each kernel is launched with ----------===//

#include "LaunchBlocks.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/Path.h"

#include <optional>
#include <set>

using namespace clang;

namespace forgestencil {
namespace analysis {
namespace detail {
namespace {

std::optional<int64_t> constantInt(const Expr *E, const ASTContext &Ctx) {
  if (!E || E->isValueDependent())
    return std::nullopt;
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  int64_t V = R.Val.getInt().getExtValue();
  if (V < 1 || V > 1024)
    return std::nullopt;
  return V;
}

/// The constant block \p E says, if any.
std::optional<std::array<int64_t, 3>> constantBlock(const Expr *E,
                                                    const ASTContext &Ctx,
                                                    int Depth = 0) {
  if (!E || Depth > 8)
    return std::nullopt;
  E = E->IgnoreParenImpCasts();
  if (const auto *C = dyn_cast<ExprWithCleanups>(E))
    return constantBlock(C->getSubExpr(), Ctx, Depth + 1);
  if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
    return constantBlock(M->getSubExpr(), Ctx, Depth + 1);
  if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
    return constantBlock(B->getSubExpr(), Ctx, Depth + 1);
  if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E))
    return constantBlock(F->getSubExpr(), Ctx, Depth + 1);
  if (const auto *C = dyn_cast<CXXConstructExpr>(E)) {
    // dim3(x[, y[, z]]), or a copy of a dim3.
    if (C->getNumArgs() == 1 &&
        C->getArg(0)->getType()->getAsCXXRecordDecl() ==
            C->getType()->getAsCXXRecordDecl())
      return constantBlock(C->getArg(0), Ctx, Depth + 1);
    std::array<int64_t, 3> Dims = {1, 1, 1};
    for (unsigned I = 0; I < C->getNumArgs() && I < 3; ++I) {
      if (isa<CXXDefaultArgExpr>(C->getArg(I)))
        continue;
      std::optional<int64_t> V = constantInt(C->getArg(I), Ctx);
      if (!V)
        return std::nullopt;
      Dims[I] = *V;
    }
    return C->getNumArgs() ? std::optional(Dims) : std::nullopt;
  }
  if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(D->getDecl());
    if (V && V->hasLocalStorage() && V->getInit())
      return constantBlock(V->getInit(), Ctx, Depth + 1);
    return std::nullopt;
  }
  if (E->getType()->isIntegerType())
    if (std::optional<int64_t> V = constantInt(E, Ctx))
      return std::array<int64_t, 3>{*V, 1, 1};
  return std::nullopt;
}

struct Collect : RecursiveASTVisitor<Collect> {
  explicit Collect(ASTContext &Ctx) : Ctx(Ctx) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) {
    const FunctionDecl *K = E->getDirectCallee();
    if (!K || E->isInstantiationDependent())
      return true;
    K = K->getCanonicalDecl();
    const CallExpr *Config = E->getConfig();
    std::optional<std::array<int64_t, 3>> B;
    if (Config && Config->getNumArgs() > 1)
      B = constantBlock(Config->getArg(1), Ctx);
    Seen &S = Kernels[K];
    if (!B || (S.Launches && S.Dims != *B))
      S.Agree = false;
    else
      S.Dims = *B;
    ++S.Launches;
    SourceLocation L = Ctx.getSourceManager().getFileLoc(E->getBeginLoc());
    S.Files.insert(
        llvm::sys::path::filename(Ctx.getSourceManager().getFilename(L)).str());
    return true;
  }

  struct Seen {
    std::array<int64_t, 3> Dims = {1, 1, 1};
    unsigned Launches = 0;
    bool Agree = true;
    std::set<std::string> Files;
  };
  ASTContext &Ctx;
  std::map<const FunctionDecl *, Seen> Kernels;
};

} // namespace

std::map<const FunctionDecl *, LaunchBlock> launchBlocks(ASTContext &Ctx) {
  Collect C(Ctx);
  C.TraverseDecl(Ctx.getTranslationUnitDecl());
  std::map<const FunctionDecl *, LaunchBlock> Out;
  for (const auto &[K, S] : C.Kernels) {
    if (!S.Agree || !S.Launches)
      continue;
    LaunchBlock B;
    B.Dims = S.Dims;
    B.Where = std::to_string(S.Launches) +
              (S.Launches == 1 ? " launch in " : " launches in ");
    bool First = true;
    for (const std::string &F : S.Files) {
      B.Where += (First ? "" : ", ") + F;
      First = false;
    }
    Out.emplace(K, std::move(B));
  }
  return Out;
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

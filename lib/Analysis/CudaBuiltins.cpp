//===- CudaBuiltins.cpp - threadIdx, blockIdx, blockDim, gridDim ----------===//

#include "forgestencil/Analysis/CudaBuiltins.h"

#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace forgestencil {
namespace analysis {

const char *cudaBuiltinName(CudaBuiltin B) {
  switch (B) {
  case CudaBuiltin::ThreadIdx:
    return "threadIdx";
  case CudaBuiltin::BlockIdx:
    return "blockIdx";
  case CudaBuiltin::BlockDim:
    return "blockDim";
  case CudaBuiltin::GridDim:
    return "gridDim";
  }
  return "";
}

std::optional<CudaBuiltinRef> cudaBuiltinRef(const Expr *E) {
  const Expr *Inner = E->IgnoreParenImpCasts();
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(Inner))
    Inner = PO->getSyntacticForm()->IgnoreParenImpCasts();
  const auto *Prop = dyn_cast<MSPropertyRefExpr>(Inner);
  if (!Prop)
    return std::nullopt;
  const Expr *BaseExpr = Prop->getBaseExpr()->IgnoreParenImpCasts();
  if (const auto *OV = dyn_cast<OpaqueValueExpr>(BaseExpr))
    BaseExpr = OV->getSourceExpr()->IgnoreParenImpCasts();
  const auto *Base = dyn_cast<DeclRefExpr>(BaseExpr);
  if (!Base)
    return std::nullopt;
  llvm::StringRef Field = Prop->getPropertyDecl()->getName();
  if (Field.size() != 1 || Field[0] < 'x' || Field[0] > 'z')
    return std::nullopt;
  llvm::StringRef Var = Base->getDecl()->getName();
  for (CudaBuiltin B : {CudaBuiltin::ThreadIdx, CudaBuiltin::BlockIdx,
                        CudaBuiltin::BlockDim, CudaBuiltin::GridDim})
    if (Var == cudaBuiltinName(B))
      return CudaBuiltinRef{B, Field[0] - 'x'};
  return std::nullopt;
}

bool isBlockBarrier(const CallExpr *C) {
  const FunctionDecl *F = C ? C->getDirectCallee() : nullptr;
  if (!F || !F->getIdentifier())
    return false;
  const StringRef Name = F->getName();
  if (Name == "__syncthreads" || Name == "__barrier_sync")
    return true;
  if (Name != "sync")
    return false;
  // The group the barrier is over: the object of a member call, else the
  // one argument of cooperative_groups::sync(group).
  const CXXRecordDecl *Group = nullptr;
  if (const auto *M = dyn_cast<CXXMemberCallExpr>(C)) {
    Group = M->getRecordDecl();
  } else if (C->getNumArgs() == 1) {
    Group = C->getArg(0)->getType().getNonReferenceType()->getAsCXXRecordDecl();
  }
  return Group && Group->getName() == "thread_block";
}

} // namespace analysis
} // namespace forgestencil

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

} // namespace analysis
} // namespace forgestencil

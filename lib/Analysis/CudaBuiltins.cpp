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

namespace {

/// Whether \p R is a class of CUDA's cooperative groups (declared in the
/// namespace cooperative_groups, or one nested in it) named \p Name.
bool isCooperativeGroupsClass(const CXXRecordDecl *R, StringRef Name) {
  if (!R || !R->getIdentifier() || R->getName() != Name)
    return false;
  for (const DeclContext *C = R->getDeclContext(); C; C = C->getParent())
    if (const auto *N = dyn_cast<NamespaceDecl>(C);
        N && N->getIdentifier() && N->getName() == "cooperative_groups")
      return true;
  return false;
}

/// One axis of the dim3 a cooperative groups index function returns:
/// `block.group_index().x` (blockIdx.x), `block.thread_index().y`
/// (threadIdx.y), `block.group_dim().z` or `block.dim_threads().z`
/// (blockDim.z) of a thread_block, and `grid.block_index().x` (blockIdx.x)
/// or `grid.dim_blocks().x` (gridDim.x) of a grid_group. Every thread has
/// one block and one grid, so which object the call is made on does not
/// matter, only its class.
std::optional<CudaBuiltinRef> cooperativeGroupsRef(const Expr *E) {
  const auto *M = dyn_cast<MemberExpr>(E);
  if (!M || !M->getMemberDecl()->getIdentifier())
    return std::nullopt;
  const StringRef Field = M->getMemberDecl()->getName();
  if (Field.size() != 1 || Field[0] < 'x' || Field[0] > 'z')
    return std::nullopt;
  // The functions are static members: `block.group_index()` and
  // `cg::thread_block::group_index()` are both plain calls.
  const auto *Call =
      dyn_cast<CallExpr>(M->getBase()->IgnoreImplicit()->IgnoreParens());
  const auto *Method =
      Call ? dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee()) : nullptr;
  if (!Method || !Method->getIdentifier() || Call->getNumArgs() != 0)
    return std::nullopt;
  const StringRef Name = Method->getName();
  const int Axis = Field[0] - 'x';
  if (isCooperativeGroupsClass(Method->getParent(), "thread_block")) {
    if (Name == "group_index")
      return CudaBuiltinRef{CudaBuiltin::BlockIdx, Axis};
    if (Name == "thread_index")
      return CudaBuiltinRef{CudaBuiltin::ThreadIdx, Axis};
    if (Name == "group_dim" || Name == "dim_threads")
      return CudaBuiltinRef{CudaBuiltin::BlockDim, Axis};
  } else if (isCooperativeGroupsClass(Method->getParent(), "grid_group")) {
    if (Name == "block_index")
      return CudaBuiltinRef{CudaBuiltin::BlockIdx, Axis};
    if (Name == "dim_blocks")
      return CudaBuiltinRef{CudaBuiltin::GridDim, Axis};
  }
  return std::nullopt;
}

} // namespace

std::optional<CudaBuiltinRef> cudaBuiltinRef(const Expr *E) {
  const Expr *Inner = E->IgnoreParenImpCasts();
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(Inner))
    Inner = PO->getSyntacticForm()->IgnoreParenImpCasts();
  const auto *Prop = dyn_cast<MSPropertyRefExpr>(Inner);
  if (!Prop)
    return cooperativeGroupsRef(Inner);
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

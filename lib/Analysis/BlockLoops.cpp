//===- BlockLoops.cpp - Loops that spread points over the block's threads -===//

#include "BlockLoops.h"
#include "KernelInterpreter.h"

#include "forgestencil/Analysis/CudaBuiltins.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"

#include <functional>
#include <optional>
#include <vector>

using namespace clang;

namespace forgestencil {
namespace analysis {
namespace detail {
namespace {

std::optional<int64_t> intConstant(const Expr *E, const ASTContext &Ctx) {
  Expr::EvalResult R;
  if (!E || E->isValueDependent() || !E->EvaluateAsInt(R, Ctx) ||
      R.Val.getInt().getSignificantBits() > 40)
    return std::nullopt;
  return R.Val.getInt().getExtValue();
}

bool isBuiltin(const Expr *E, CudaBuiltin B, int D) {
  auto R = E ? cudaBuiltinRef(E) : std::nullopt;
  return R && R->Var == B && R->Axis == D;
}

/// threadIdx.D + c: (D, c).
std::optional<std::pair<int, int64_t>> threadStart(const Expr *E,
                                                   const ASTContext &Ctx) {
  if (!E)
    return std::nullopt;
  E = E->IgnoreParenImpCasts();
  for (int D = 0; D < 3; ++D)
    if (isBuiltin(E, CudaBuiltin::ThreadIdx, D))
      return std::pair<int, int64_t>{D, 0};
  const auto *B = dyn_cast<BinaryOperator>(E);
  if (!B || B->getOpcode() != BO_Add)
    return std::nullopt;
  for (int D = 0; D < 3; ++D)
    for (auto [T, C] : {std::pair{B->getLHS(), B->getRHS()},
                        std::pair{B->getRHS(), B->getLHS()}})
      if (isBuiltin(T, CudaBuiltin::ThreadIdx, D))
        if (auto N = intConstant(C, Ctx))
          return std::pair<int, int64_t>{D, *N};
  return std::nullopt;
}

const VarDecl *varOf(const Expr *E) {
  const auto *D = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
  return D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
}

struct Found {
  int Dim = 0;
  int64_t Start = 0, End = 0;
  int64_t Step = 0; ///< A constant step (the launch's block), 0 for blockDim.
  const VarDecl *Var = nullptr;
  const ForStmt *Loop = nullptr;
};

/// for (int v = threadIdx.D + c; v < N; v += blockDim.D), or the same
/// stepping by a constant that is the launches' block size along D
/// (\p LaunchDims, when known): the loop, or null; \p Stepped is the
/// dimension it steps along, -1 for none.
std::optional<Found> match(const ForStmt *F, const ASTContext &Ctx,
                           const std::array<int64_t, 3> *LaunchDims,
                           int &Stepped) {
  Stepped = -1;
  const auto *Inc = dyn_cast_or_null<CompoundAssignOperator>(F->getInc());
  int StepDim = -1;
  int64_t Step = 0;
  if (Inc && Inc->getOpcode() == BO_AddAssign)
    for (int D = 0; D < 3; ++D)
      if (isBuiltin(Inc->getRHS(), CudaBuiltin::BlockDim, D))
        StepDim = D;
  Stepped = StepDim;
  const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
  const auto *V = DS && DS->isSingleDecl()
                      ? dyn_cast<VarDecl>(DS->getSingleDecl())
                      : nullptr;
  if (!V || !V->getType()->isIntegerType() || !Inc ||
      varOf(Inc->getLHS()) != V)
    return std::nullopt;
  auto S = threadStart(V->getInit(), Ctx);
  if (StepDim < 0 && Inc->getOpcode() == BO_AddAssign && S && LaunchDims)
    if (auto N = intConstant(Inc->getRHS(), Ctx);
        N && *N > 1 && (*LaunchDims)[S->first] == *N) {
      StepDim = S->first;
      Step = *N;
      Stepped = StepDim;
    }
  if (StepDim < 0)
    return std::nullopt;
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(
      F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!S || S->first != StepDim || !Cond || varOf(Cond->getLHS()) != V ||
      (Cond->getOpcode() != BO_LT && Cond->getOpcode() != BO_LE))
    return std::nullopt;
  auto N = intConstant(Cond->getRHS(), Ctx);
  if (!N)
    return std::nullopt;
  Found R;
  R.Dim = StepDim;
  R.Step = Step;
  R.Start = S->second;
  R.End = Cond->getOpcode() == BO_LE ? *N + 1 : *N;
  R.Var = V;
  R.Loop = F;
  if (R.End - R.Start < 1 || R.End - R.Start > 1024)
    return std::nullopt;
  return R;
}

/// How many times \p S names blockDim.D, with the functions it calls (up
/// to \p Depth calls deep).
unsigned countBlockDim(const Stmt *S, int D, int Depth,
                       std::set<const FunctionDecl *> &Seen) {
  if (!S)
    return 0;
  unsigned N = 0;
  if (const auto *E = dyn_cast<MSPropertyRefExpr>(S);
      E && isBuiltin(E, CudaBuiltin::BlockDim, D))
    ++N;
  if (const auto *C = dyn_cast<CallExpr>(S); C && Depth > 0)
    if (const FunctionDecl *F = C->getDirectCallee()) {
      const FunctionDecl *Def = nullptr;
      if (F->hasBody(Def) && Def && Seen.insert(Def).second)
        N += countBlockDim(Def->getBody(), D, Depth - 1, Seen);
    }
  for (const Stmt *Child : S->children())
    N += countBlockDim(Child, D, Depth, Seen);
  return N;
}

/// The variables declared in \p S.
void declaredIn(const Stmt *S, std::set<const VarDecl *> &Out) {
  if (!S)
    return;
  if (const auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        Out.insert(V);
  for (const Stmt *Child : S->children())
    declaredIn(Child, Out);
}

/// Why the body \p Body of a block-stride loop may not be run once by each
/// thread of a larger block; empty when it may. \p Tainted: variables whose
/// value depends on threadIdx.D.
std::string bodyProblem(const Stmt *Body, const VarDecl *LoopVar,
                        const std::set<const VarDecl *> &Tainted) {
  std::set<const VarDecl *> Own = {LoopVar};
  declaredIn(Body, Own);
  std::string Why;
  std::function<void(const Stmt *)> Scan = [&](const Stmt *S) {
    if (!S || !Why.empty())
      return;
    if (isa<BreakStmt, ReturnStmt, GotoStmt>(S)) {
      Why = "it leaves the loop early";
      return;
    }
    if (const auto *C = dyn_cast<CallExpr>(S); C && isBlockBarrier(C)) {
      Why = "it has a barrier";
      return;
    }
    if (const VarDecl *V = varOf(assignedBy(S)); V && !Own.count(V)) {
      Why = "it assigns '" + V->getName().str() + "', declared outside it";
      return;
    }
    if (const VarDecl *V = varOf(dyn_cast<Expr>(S));
        V && !Own.count(V) && Tainted.count(V)) {
      Why = "it reads '" + V->getName().str() +
            "', whose value depends on the thread's place in the block";
      return;
    }
    for (const Stmt *Child : S->children())
      Scan(Child);
  };
  Scan(Body);
  return Why;
}

/// The variables of \p Body whose value depends on threadIdx.D, through
/// their initialisers and assignments (a fixpoint).
std::set<const VarDecl *> taintedBy(const Stmt *Body, int D) {
  std::set<const VarDecl *> Tainted;
  std::function<bool(const Stmt *)> Mentions = [&](const Stmt *S) {
    if (!S)
      return false;
    if (const auto *E = dyn_cast<Expr>(S)) {
      if (isBuiltin(E, CudaBuiltin::ThreadIdx, D))
        return true;
      if (const VarDecl *V = varOf(E); V && Tainted.count(V) &&
                                       isa<DeclRefExpr>(E->IgnoreParenImpCasts()))
        return true;
    }
    for (const Stmt *Child : S->children())
      if (Mentions(Child))
        return true;
    return false;
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    std::function<void(const Stmt *)> Scan = [&](const Stmt *S) {
      if (!S)
        return;
      if (const auto *DS = dyn_cast<DeclStmt>(S))
        for (const Decl *X : DS->decls())
          if (const auto *V = dyn_cast<VarDecl>(X);
              V && V->getInit() && !Tainted.count(V) && Mentions(V->getInit()))
            Changed |= Tainted.insert(V).second;
      if (const auto *B = dyn_cast<BinaryOperator>(S); B && B->isAssignmentOp())
        if (const VarDecl *V = varOf(B->getLHS());
            V && !Tainted.count(V) && Mentions(B->getRHS()))
          Changed |= Tainted.insert(V).second;
      for (const Stmt *Child : S->children())
        Scan(Child);
    };
    Scan(Body);
  }
  return Tainted;
}

} // namespace

std::map<int, BlockLoopDim>
blockStrideLoops(const FunctionDecl &Kernel, ASTContext &Ctx,
                 const std::array<int64_t, 3> *LaunchDims) {
  const Stmt *Body = Kernel.getBody();
  std::map<int, BlockLoopDim> Out;
  if (!Body)
    return Out;
  std::vector<Found> Loops;
  std::set<int> Refused;
  std::function<void(const Stmt *)> Collect = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *F = dyn_cast<ForStmt>(S)) {
      int Stepped = -1;
      if (auto L = match(F, Ctx, LaunchDims, Stepped))
        Loops.push_back(*L);
      else if (Stepped >= 0)
        Refused.insert(Stepped);
    }
    for (const Stmt *Child : S->children())
      Collect(Child);
  };
  Collect(Body);
  for (const Found &L : Loops) {
    if (Refused.count(L.Dim))
      continue;
    auto [It, New] = Out.try_emplace(L.Dim);
    BlockLoopDim &B = It->second;
    if (New) {
      B.Start = L.Start;
      B.End = L.End;
      B.Step = L.Step;
      B.Var = L.Var->getName().str();
    } else if (B.Start != L.Start || B.End != L.End || B.Step != L.Step) {
      Refused.insert(L.Dim);
      continue;
    }
    B.Bodies.emplace(L.Loop->getBody(), L.Var);
  }
  for (auto It = Out.begin(); It != Out.end();) {
    const int D = It->first;
    std::set<const FunctionDecl *> Seen;
    // blockDim.D only as the loops' steps (none where they step by a
    // constant).
    const size_t Steps = It->second.Step ? 0 : It->second.Bodies.size();
    bool Ok = !Refused.count(D) && countBlockDim(Body, D, 4, Seen) == Steps;
    if (Ok) {
      const std::set<const VarDecl *> Tainted = taintedBy(Body, D);
      for (const auto &[LoopBody, Var] : It->second.Bodies)
        Ok = Ok && bodyProblem(LoopBody, Var, Tainted).empty();
    }
    It = Ok ? std::next(It) : Out.erase(It);
  }
  return Out;
}

std::string blockLoopWhy(const BlockLoopDim &L, int D, int64_t Least) {
  const std::string Span = std::to_string(L.span());
  if (L.Step)
    return "the loops over '" + L.Var + "' step by " + std::to_string(L.Step) +
           ", the launches' block: such a block covers " + Span + " points";
  return "the loops over '" + L.Var + "' step by blockDim." + "xyz"[D] +
         ": a block covers " + Span + " points whatever its size" +
         (Least > 1 ? "; its threads below " + std::to_string(Least) +
                          " also fill the rest of a tile"
                    : std::string());
}

bool mentionsThreadPlace(const Poly &P, int D) {
  if (P.mentions(std::string("tid.") + "xyz"[D]))
    return true;
  for (int B = -1; B < 3; ++B)
    if (P.mentions(mixedPosition(D, B)))
      return true;
  return false;
}

std::optional<int64_t> Interpreter::blockLoopLeast(int D,
                                                   std::string &Why) const {
  const std::string Ax(1, "xyz"[D]);
  // What depends on the thread's place along D: threadIdx.D, a position
  // that is threadIdx.D alone, a value computed thread by thread.
  auto Mentions = [&](const Poly &P) {
    return mentionsThreadPlace(P, D) || P.mentionsPrefix(ThreadFnPrefix);
  };
  std::function<bool(const DPtr &)> TreeMentions = [&](const DPtr &N) {
    if (!N)
      return false;
    if (N->K == DNode::Read && Mentions(N->Index))
      return true;
    return std::any_of(N->Args.begin(), N->Args.end(), TreeMentions);
  };
  std::function<bool(const ThreadCond &)> CondMentions =
      [&](const ThreadCond &C) {
        return C.K == ThreadCond::Opaque || Mentions(C.D) ||
               std::any_of(C.Args.begin(), C.Args.end(), CondMentions);
      };
  for (const Write &W : Writes)
    if (!W.InBlockLoop && (Mentions(W.Index) || TreeMentions(W.Value))) {
      Why = "the store to '" + W.Array +
            "' outside them depends on threadIdx." + Ax;
      return std::nullopt;
    }
  ThreadPos Extent{1, 1, 1};
  for (int E = 0; E < 3; ++E)
    if (auto It = BlockSizes.find(E); It != BlockSizes.end())
      Extent[E] = It->second;
  int64_t Least = 1;
  for (const SharedStore &S : SharedStores) {
    if (S.InBlockLoop ||
        (!Mentions(S.Index) && !TreeMentions(S.Value) &&
         std::none_of(S.Conds.begin(), S.Conds.end(), CondMentions)))
      continue;
    // The highest thread along D that makes the store.
    ThreadPos T;
    for (T[D] = Extent[D] - 1; T[D] >= Least; --T[D]) {
      bool Makes = false;
      for (T[(D + 1) % 3] = 0; !Makes && T[(D + 1) % 3] < Extent[(D + 1) % 3];
           ++T[(D + 1) % 3])
        for (T[(D + 2) % 3] = 0;
             !Makes && T[(D + 2) % 3] < Extent[(D + 2) % 3]; ++T[(D + 2) % 3]) {
          bool All = true;
          for (const ThreadCond &C : S.Conds) {
            std::optional<bool> H = holdsAt(C, T, BlockSizes, ThreadFns);
            if (!H) {
              Why = "whether the threads along " + Ax + " store to '" +
                    S.Tile + "' outside them cannot be decided";
              return std::nullopt;
            }
            All = All && *H;
          }
          Makes = All;
        }
      if (Makes) {
        Least = T[D] + 1;
        break;
      }
    }
  }
  return Least;
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

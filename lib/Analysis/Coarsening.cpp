//===- Coarsening.cpp - Threads that compute several points of an axis ----===//

#include "Coarsening.h"
#include "KernelInterpreter.h"

#include <algorithm>
#include <functional>
#include <set>

namespace forgestencil {
namespace analysis {
namespace detail {

std::string coarseVar(int Dim) { return std::string("coarse#s.") + char('x' + Dim); }
std::string coarseOld(int Dim) { return std::string("coarse#old.") + char('x' + Dim); }
std::string coarsePosition(int Dim) {
  return std::string("@coarse.") + char('x' + Dim);
}

/// P / D, exactly (D a number or a single monomial), or nullopt.
static std::optional<Poly> quotient(const Poly &P, const Poly &D) {
  std::optional<Poly> Q =
      D.isConstant() ? P.divideExactly(D) : exactQuotient(P, D);
  if (!Q || *Q * D != P)
    return std::nullopt;
  return Q;
}

static std::string builtin(const char *What, int Dim) {
  return std::string(What) + "." + char('x' + Dim);
}

/// The block factor of a strided coarsening: blockDim along Dim, or the
/// number a kernel writes in its place.
static bool isBlockFactor(const Poly &B, int Dim) {
  if (auto N = B.constantValue())
    return *N > 1;
  return B == Poly::symbol(builtin("bdim", Dim));
}

/// gridDim * blockDim along \p Dim: the points a launch's threads cover.
static Poly gridSpan(int Dim) {
  return Poly::symbol(builtin("gdim", Dim)) * Poly::symbol(builtin("bdim", Dim));
}

std::optional<CoarseLoop> coarseLoopOf(const Poly &First, const Poly &Second,
                                       int64_t Trips) {
  if (Trips < 2 || Trips > 64)
    return std::nullopt;
  const Poly Delta = Second - First;
  if (Delta == Poly() || Delta.mentionsPrefix("@"))
    return std::nullopt;
  const Poly C = Poly::constant(Trips);
  for (int D = 0; D < 3; ++D) {
    std::optional<Poly> G = First.coefficientOf(GlobalThread[D]);
    if (G && *G != Poly() && Second.coefficientOf(GlobalThread[D]) == G) {
      // Consecutive: v = C * g + s moves the index by the axis' stride a
      // round, C of which are the position's coefficient.
      if (*G == C * Delta)
        return CoarseLoop{Trips, D, CoarseLoop::Consecutive, Poly()};
      // A grid apart: v = g + s * gridDim * blockDim.
      if (Delta == *G * gridSpan(D))
        return CoarseLoop{Trips, D, CoarseLoop::GridApart, Poly()};
    }
    // A block apart: v = (C * blockIdx + s) * B + threadIdx, B = blockDim.
    std::optional<Poly> X = First.coefficientOf(builtin("tid", D));
    if (!X || *X == Poly() || First.mentions(GlobalThread[D]))
      continue;
    std::optional<Poly> Block = quotient(Delta, *X);
    if (!Block || !isBlockFactor(*Block, D))
      continue;
    std::optional<Poly> Bid = First.coefficientOf(builtin("bid", D));
    if (Bid && *Bid == C * *X * *Block)
      return CoarseLoop{Trips, D, CoarseLoop::BlockApart, *Block};
  }
  return std::nullopt;
}

std::vector<const VarDecl *> declaredIn(const Stmt *Body) {
  std::vector<const VarDecl *> Out;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D))
          Out.push_back(VD);
    for (const Stmt *C : S->children())
      Walk(C);
  };
  Walk(Body);
  return Out;
}

Poly coarseNormal(const Poly &P, const CoarseLoop &L) {
  const Poly Old = Poly::symbol(coarseOld(L.Dim));
  const Poly Q = P.substitute(GlobalThread[L.Dim], Old);
  const std::string Var = coarseVar(L.Dim);
  if (!Q.mentions(Var))
    return Q;
  std::optional<Poly> B = Q.coefficientOf(Var);
  if (!B)
    return Q;
  const Poly C = Poly::constant(L.Points), S = Poly::symbol(Var);
  Poly K = C * Old + S;
  if (L.Apart == CoarseLoop::BlockApart) {
    B = quotient(*B, L.Block);
    if (!B)
      return Q;
    K = (C * Poly::symbol(builtin("bid", L.Dim)) + S) * L.Block +
        Poly::symbol(builtin("tid", L.Dim));
  } else if (L.Apart == CoarseLoop::GridApart) {
    B = quotient(*B, gridSpan(L.Dim));
    if (!B)
      return Q;
    K = Old + S * gridSpan(L.Dim);
  }
  const Poly R = Q - *B * K;
  if (mentionsCoarseMarker(R, L) || mentionsCoarseMarker(*B, L))
    return Q;
  return R + *B * Poly::symbol(coarsePosition(L.Dim));
}

Poly coarseNormal(const Poly &P, const std::vector<const CoarseLoop *> &Active) {
  Poly Q = P;
  for (const CoarseLoop *L : Active)
    Q = coarseNormal(Q, *L);
  return Q;
}

bool mentionsCoarseMarker(const Poly &P, const CoarseLoop &L) {
  return P.mentionsPrefix("coarse#") || P.mentions(coarsePosition(L.Dim)) ||
         (L.Apart == CoarseLoop::BlockApart && P.mentions(builtin("bid", L.Dim)));
}

bool mentionsCoarseMarker(const DPtr &N, const CoarseLoop &L) {
  if (!N)
    return false;
  if (mentionsCoarseMarker(N->Index, L))
    return true;
  for (const PosGuard &G : N->InBounds)
    if (mentionsCoarseMarker(G.D, L))
      return true;
  for (const ClampSet &CS : N->Clamps)
    for (const auto &[Id, Stride] : CS.Ids)
      if (mentionsCoarseMarker(Stride, L))
        return true;
  for (const DPtr &A : N->Args)
    if (mentionsCoarseMarker(A, L))
      return true;
  return false;
}


/// Why a coarsening loop's body cannot be run once for all its rounds: a
/// return or break in it, or an assignment to a variable declared outside
/// it (a value carried from one point to the next); empty when none.
std::string bodyProblem(const Stmt *Body, const VarDecl *Var) {
  const std::vector<const VarDecl *> Declared = declaredIn(Body);
  const std::set<const VarDecl *> Own(Declared.begin(), Declared.end());
  std::string Why;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || !Why.empty())
      return;
    if (isa<ReturnStmt>(S) || isa<BreakStmt>(S)) {
      Why = isa<ReturnStmt>(S) ? "returns from inside the loop"
                               : "breaks out of the loop";
      return;
    }
    if (const Expr *LHS = assignedBy(S)) {
      const Expr *E = LHS->IgnoreParenImpCasts();
      // Elements of local arrays and members of local structs are the
      // variable's; a subscript of a pointer is a store to memory.
      while (true) {
        if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
          if (AS->getBase()->IgnoreParenImpCasts()->getType()->isPointerType())
            break;
          E = AS->getBase()->IgnoreParenImpCasts();
        } else if (const auto *ME = dyn_cast<MemberExpr>(E); ME && !ME->isArrow()) {
          E = ME->getBase()->IgnoreParenImpCasts();
        } else {
          break;
        }
      }
      if (const auto *DR = dyn_cast<DeclRefExpr>(E))
        if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
            VD && (VD == Var || !Own.count(VD))) {
          Why = "assigns '" + VD->getName().str() +
                "', declared outside the loop's body (a value carried from "
                "one point to the next)";
          return;
        }
    }
    for (const Stmt *C : S->children())
      Walk(C);
  };
  Walk(Body);
  return Why;
}

std::string setThreadPoints(const std::map<int, int64_t> &Coarsened,
                            ir::StencilIR &IR) {
  for (const auto &[D, C] : Coarsened) {
    auto X = std::find_if(IR.Axes.begin(), IR.Axes.end(), [D = D](const ir::Axis &A) {
      return A.Source == ir::AxisSource::Thread && A.ThreadDim == 'x' + D &&
             A.usualThreadMapping() && A.BlockPoints == 0 && !A.BlockLoop;
    });
    if (X == IR.Axes.end())
      return std::string("thread coarsening not followed: no axis of the store "
                         "is the coarsened position along ") +
             char('x' + D);
    X->ThreadPoints = C;
  }
  return "";
}

std::string coarseMarkerLeft(const std::map<const Stmt *, CoarseLoop> &Loops,
                             const std::vector<Write> &Writes,
                             const std::vector<ReadRecord> &Reads) {
  for (const auto &[Body, L] : Loops) {
    for (const Write &W : Writes)
      if (mentionsCoarseMarker(W.Index, L) || mentionsCoarseMarker(W.Value, L))
        return "thread coarsening not followed: a store uses the thread's "
               "first point along the coarsened axis after the loop";
    for (const ReadRecord &R : Reads)
      if (mentionsCoarseMarker(R.Index, L))
        return "thread coarsening not followed: a read uses the thread's "
               "first point along the coarsened axis after the loop";
  }
  return "";
}

void Interpreter::runCoarse(const VarDecl *Var, const Stmt *Body,
                            const CoarseLoop &L, int64_t First, int64_t Step) {
  const std::string G = GlobalThread[L.Dim], Pos = coarsePosition(L.Dim);
  const std::string Bid = builtin("bid", L.Dim);
  auto Refuse = [&](const std::string &Why) {
    partial(ReasonKind::LoopNotFollowed,
            "thread coarsening not followed: the loop over '" +
                Var->getName().str() + "' " + Why);
  };
  if (std::string Why = bodyProblem(Body, Var); !Why.empty())
    return Refuse(Why);
  if (Coarsened.count(L.Dim))
    return Refuse("coarsens an axis another loop coarsens");
  // Points a block apart by a number: a block of that many threads, else
  // the block's threads share points and the IR's (C * blockIdx + s) *
  // blockDim + threadIdx is not what they compute.
  if (L.Apart == CoarseLoop::BlockApart)
    if (std::optional<int64_t> B = L.Block.constantValue())
      if (auto It = BlockSizes.find(L.Dim); It != BlockSizes.end() && It->second != *B)
        return Refuse("moves its points " + std::to_string(*B) +
                      " apart, but a block has " + std::to_string(It->second) +
                      " threads along " + std::string(1, "xyz"[L.Dim]) +
                      ": its threads would compute points of each other's");
  // Before the loop the position along the axis is the thread's first
  // point, no point of its own: nothing may have been stored, read or
  // guarded there.
  auto Named = [&](const Poly &P) {
    return P.mentions(G) ||
           (L.Apart == CoarseLoop::BlockApart && P.mentions(Bid));
  };
  if (!Writes.empty() || !FrameWrites.empty())
    return Refuse("follows a store to global memory");
  for (const ReadRecord &R : Reads)
    if (Named(R.Index))
      return Refuse("follows a read at the thread's first point");
  for (const Constraint &C : Guards)
    if (C.Symbol == G || Named(C.Bound))
      return Refuse("runs under a guard on the thread's first point");
  // Values made before the loop from the thread's position keep it as the
  // first point: a marker, which no index of the point may keep.
  const Poly Old = Poly::symbol(coarseOld(L.Dim));
  for (auto &[VD, V] : Env) {
    if (V.K == Value::Record)
      for (const auto &[Name, F] : *V.Fields)
        if ((F.K == Value::Index || F.K == Value::Pointer) && Named(F.Idx))
          return Refuse("follows a struct holding the thread's first point");
    bool Ok = true;
    V = substituted(V, G, Old, Ok);
    if (!Ok)
      return Refuse("follows a clamped read at the thread's first point");
  }
  for (auto &[Array, Elems] : LocalElems)
    for (auto &[I, V] : Elems) {
      bool Ok = true;
      V = substituted(V, G, Old, Ok);
      if (!Ok)
        return Refuse("follows a clamped read at the thread's first point");
    }
  const size_t W0 = Writes.size(), R0 = Reads.size(), C0 = ClampInfos.size(),
               S0 = SharedStores.size(), L0 = LoopAxes.size(),
               P0 = Splits.size();
  const unsigned B0 = Barriers;
  // The loop's variable is its first value plus the round s times its step
  // (for (j = 0; j < TILE; j += ROWS), rows a block apart, steps by ROWS).
  Env[Var] = Value::index(Poly::symbol(coarseVar(L.Dim)) * Poly::constant(Step) +
                          Poly::constant(First));
  ActiveCoarse.push_back(&L);
  execLoopBody(Body);
  ActiveCoarse.pop_back();
  Env[Var] = Value::unknown("the variable of a coarsening loop after it");
  if (Barriers != B0 || SharedStores.size() != S0)
    return Refuse("uses __shared__ memory or barriers");
  if (LoopAxes.size() != L0 || Splits.size() != P0 || !FrameWrites.empty())
    return Refuse("holds a loop over an axis, a split of a 1-D id or a "
                  "boundary frame");
  if (Writes.size() == W0)
    return Refuse("stores nothing to global memory");
  // The point's position is the axis' position from here on.
  const Poly To = Poly::symbol(G);
  auto Rename = [&](Poly &P) { P = P.substitute(Pos, To); };
  bool Marked = false;
  for (size_t I = W0; I < Writes.size(); ++I) {
    Write &W = Writes[I];
    Rename(W.Index);
    // Clamped reads keep their clamps: only the symbol is renamed.
    bool Clampless = true;
    W.Value = substituted(Value::data(W.Value), Pos, To, Clampless).D;
    for (Constraint &C : W.Guards) {
      if (C.Symbol == Pos)
        C.Symbol = G;
      Rename(C.Bound);
      Marked |= mentionsCoarseMarker(C.Bound, L) || C.Symbol.rfind("coarse#", 0) == 0;
    }
    Marked |= mentionsCoarseMarker(W.Index, L) || mentionsCoarseMarker(W.Value, L);
  }
  for (size_t I = R0; I < Reads.size(); ++I) {
    Rename(Reads[I].Index);
    Marked |= mentionsCoarseMarker(Reads[I].Index, L);
  }
  for (size_t I = C0; I < ClampInfos.size(); ++I) {
    ClampInfo &CI = ClampInfos[I];
    for (Poly *P : {&CI.Bound, &CI.Arg, &CI.Lo, &CI.Hi}) {
      Rename(*P);
      Marked |= mentionsCoarseMarker(*P, L);
    }
    if (CI.Period) {
      Rename(*CI.Period);
      Marked |= mentionsCoarseMarker(*CI.Period, L);
    }
  }
  if (Marked)
    return Refuse("uses the thread's first point or the loop's variable "
                  "other than as the point a round computes");
  Coarsened[L.Dim] = L.Points;
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

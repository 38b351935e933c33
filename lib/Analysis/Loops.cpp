//===- Loops.cpp - Loops inside the kernel ----------------------------------===//

#include "KernelInterpreter.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

namespace forgestencil {
namespace analysis {
namespace detail {

namespace {

/// \p E past parentheses, implicit casts and the cleanups of a full
/// expression: `i += grid.dim_blocks().x * block.dim_threads().x`
/// materialises temporaries, and the increment is then an ExprWithCleanups
/// around the compound assignment.
const Expr *fullExprCore(const Expr *E) {
  return E ? E->IgnoreImplicit()->IgnoreParenImpCasts() : nullptr;
}

/// Whether `V OP Bound` holds.
bool holds(int64_t V, BinaryOperatorKind Op, int64_t Bound) {
  switch (Op) {
  case BO_LT: return V < Bound;
  case BO_LE: return V <= Bound;
  case BO_GT: return V > Bound;
  case BO_GE: return V >= Bound;
  case BO_NE: return V != Bound;
  default: return false;
  }
}

/// How many times `for (v = Init; v OP Bound; v += Step)` runs, counted up
/// to 65 (more is more than any radius).
int64_t constantTrips(int64_t Init, int64_t Step, BinaryOperatorKind Op,
                      int64_t Bound) {
  int64_t Trips = 0;
  for (int64_t V = Init; holds(V, Op, Bound) && Trips <= 64; V += Step)
    ++Trips;
  return Trips;
}

} // namespace

void Interpreter::execFor(const ForStmt *F) {
  // for (int v = A; v OP B; v += S)
  const VarDecl *Var = nullptr;
  Value Init;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
      DS && DS->isSingleDecl()) {
    Var = dyn_cast<VarDecl>(DS->getSingleDecl());
    if (Var && Var->hasInit())
      Init = eval(Var->getInit());
  } else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(F->getInit());
             BO && BO->getOpcode() == BO_Assign) {
    if (const auto *DR = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParenImpCasts()))
      Var = dyn_cast<VarDecl>(DR->getDecl());
    Init = eval(BO->getRHS());
  }
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(fullExprCore(F->getCond()));
  const Expr *Inc = fullExprCore(F->getInc());
  Value Step;
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(Inc)) {
    if (U->isIncrementOp())
      Step = Value::index(Poly::constant(1));
    else if (U->isDecrementOp())
      Step = Value::index(Poly::constant(-1));
  } else if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Inc)) {
    Value S = eval(CA->getRHS());
    if (S.K == Value::Index)
      Step = Value::index(CA->getOpcode() == BO_AddAssign ? S.Idx
                          : CA->getOpcode() == BO_SubAssign ? -S.Idx
                                                            : Poly());
  }
  // k < k0 + C && k < n: a block's chunk of an axis (ChunkedLoops.cpp).
  if (Var && Init.K == Value::Index && Step.K == Value::Index && Cond &&
      Cond->getOpcode() == BO_LAnd &&
      (Init.Idx.mentionsPrefix("bid.") || Init.Idx.mentionsPrefix("@g"))) {
    const auto *L = dyn_cast<BinaryOperator>(Cond->getLHS()->IgnoreParenImpCasts());
    const auto *R = dyn_cast<BinaryOperator>(Cond->getRHS()->IgnoreParenImpCasts());
    if (L && R && L->isComparisonOp() && R->isComparisonOp()) {
      const Value LeftEnd = eval(L->getRHS());
      const bool LeftEnds =
          LeftEnd.Idx.mentionsPrefix("bid.") || LeftEnd.Idx.mentionsPrefix("@g");
      const BinaryOperator *Ends = LeftEnds ? L : R, *Also = LeftEnds ? R : L;
      const auto *DR = dyn_cast<DeclRefExpr>(Ends->getLHS()->IgnoreParenImpCasts());
      if (DR && DR->getDecl() == Var &&
          chunkLoop(Var, Init, Ends, LeftEnds ? LeftEnd : eval(Ends->getRHS()), Step,
                    F->getBody(), Also))
        return;
    }
  }
  if (!Var || Init.K != Value::Index || !Cond || !Cond->isComparisonOp() ||
      Step.K != Value::Index) {
    partial(ReasonKind::LoopNotFollowed, "a loop the analysis does not follow");
    notStencil(ReasonKind::Loop, "a loop whose trip count is not a fixed radius or an axis");
    return;
  }
  execLoop(Var, Init, Cond, Step, F->getBody());
}

void Interpreter::execWhile(const Expr *CondE, const Stmt *BodyS, bool Do) {
  // int k = A; while (k OP B) { ...; ++k; }  is  for (; k OP B; ++k) { ... }
  // when the increment is the body's last statement and the only one. So is
  // do { ...; ++k; } while (k OP B); where k OP B holds at the start.
  const char *What = Do ? "do" : "while";
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(fullExprCore(CondE));
  const auto *Body = dyn_cast_or_null<CompoundStmt>(BodyS);
  const VarDecl *Var = nullptr;
  if (Cond && Cond->isComparisonOp())
    if (const auto *DR =
            dyn_cast<DeclRefExpr>(Cond->getLHS()->IgnoreParenImpCasts()))
      Var = dyn_cast<VarDecl>(DR->getDecl());
  auto IsVar = [&](const Expr *E) {
    const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return DR && DR->getDecl() == Var;
  };
  Value Step;
  if (Var && Body && !Body->body_empty()) {
    const Stmt *Last = Body->body_back();
    if (const auto *E = dyn_cast<Expr>(Last))
      Last = fullExprCore(E);
    if (const auto *U = dyn_cast<UnaryOperator>(Last);
        U && U->isIncrementDecrementOp() && IsVar(U->getSubExpr()))
      Step = Value::index(Poly::constant(U->isIncrementOp() ? 1 : -1));
    else if (const auto *CA = dyn_cast<CompoundAssignOperator>(Last);
             CA && IsVar(CA->getLHS()) &&
             (CA->getOpcode() == BO_AddAssign ||
              CA->getOpcode() == BO_SubAssign)) {
      Value S = eval(CA->getRHS());
      if (S.K == Value::Index)
        Step = Value::index(CA->getOpcode() == BO_AddAssign ? S.Idx : -S.Idx);
    }
  }
  // No other statement may move the variable.
  unsigned Moves = 0;
  std::function<void(const Stmt *)> Count = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *B = dyn_cast<BinaryOperator>(S);
        B && B->isAssignmentOp() && IsVar(B->getLHS()))
      ++Moves;
    if (const auto *U = dyn_cast<UnaryOperator>(S);
        U && U->isIncrementDecrementOp() && IsVar(U->getSubExpr()))
      ++Moves;
    for (const Stmt *C : S->children())
      Count(C);
  };
  Count(Body);
  if (!Var || !Env.count(Var) || Env[Var].K != Value::Index ||
      Step.K != Value::Index || Moves != 1) {
    notStencil(ReasonKind::Loop, std::string("a ") + What +
               " loop inside the kernel that is not a counted loop " +
               (Do ? "(k = A; do { ...; ++k; } while (k < B);)"
                   : "(k = A; while (k < B) { ...; ++k; })"));
    return;
  }
  if (Do)
    Assumptions.insert("the do loop over '" + Var->getName().str() +
                       "' starts within its range (" + text(Cond) +
                       " at the start): where it does not, the original "
                       "runs its body once and the replacement does not");
  execLoop(Var, Env[Var], Cond, Step, Body);
}

void Interpreter::execLoop(const VarDecl *Var, const Value &Init,
                           const BinaryOperator *Cond, const Value &Step,
                           const Stmt *Body) {
  Value Bound = eval(Cond->getRHS());
  bool VarOnLeft = false;
  if (const auto *DR = dyn_cast<DeclRefExpr>(Cond->getLHS()->IgnoreParenImpCasts()))
    VarOnLeft = DR->getDecl() == Var;
  auto InitC = numberOf(Init.Idx);
  auto StepC = numberOf(Step.Idx);
  std::optional<int64_t> BoundC =
      Bound.K == Value::Index ? numberOf(Bound.Idx) : std::nullopt;

  // A loop that spreads a tile's elements over the block's threads:
  // for (k = threadIdx.x; k < TILE + 2*R; k += blockDim.x). Unrolled round
  // by round, each round's body run by the threads for which the loop's
  // condition still holds, so that the tile's stores are decided thread by
  // thread as if written out.
  // In a reading where threadIdx.D alone is a position (@gD-), a
  // block-stride loop along D starts at that position.
  Poly InitInBlock = Init.K == Value::Index ? Init.Idx : Poly();
  for (const auto &[D, L] : BlockLoops)
    InitInBlock = InitInBlock.substitute(
        mixedPosition(D, -1), Poly::symbol(std::string("tid.") + "xyz"[D]));
  if (VarOnLeft && Bound.K == Value::Index &&
      InitInBlock.mentionsPrefix("tid.")) {
    std::string Loop = "the loop over '" + Var->getName().str() + "' (" +
                       text(Cond) + ")";
    ThreadPos Extent{1, 1, 1};
    for (int D = 0; D < 3; ++D) {
      std::string Ax(1, "xyz"[D]);
      if (!InitInBlock.mentions("tid." + Ax) && !Step.Idx.mentions("bdim." + Ax) &&
          !Bound.Idx.mentions("bdim." + Ax))
        continue;
      auto It = BlockSizes.find(D);
      if (It == BlockSizes.end()) {
        BlockSizeWanted.insert(D);
        partial(ReasonKind::LoopNotFollowed, "the analysis does not follow " + Loop + ", which spreads "
                "elements over the block's threads: the block size along " +
                Ax + " is not fixed in the kernel (blockIdx*B + threadIdx)");
        return;
      }
      Extent[D] = It->second;
      if (Halo.count(D)) {
        partial(ReasonKind::LoopNotFollowed,
                "the analysis does not follow " + Loop + ", which spreads "
                "elements over the threads of a block with halo threads");
        return;
      }
    }
    BinaryOperatorKind Op = Cond->getOpcode();
    auto StepN = atThread(resolved(Step.Idx), {0, 0, 0}, BlockSizes, ThreadFns)
                     .constantValue();
    // A block loop stepping by the launches' block as a constant is read,
    // as one stepping by blockDim, with a block of its span.
    for (const auto &[D, L] : BlockLoops)
      if (L.Step && L.Bodies.count(Body) && BlockSizes.count(D))
        StepN = BlockSizes.at(D);
    auto BoundN = atThread(resolved(Bound.Idx), {0, 0, 0}, BlockSizes, ThreadFns)
                      .constantValue();
    if (!inBlock(InitInBlock) || !StepN || *StepN <= 0 || !BoundN ||
        (Op != BO_LT && Op != BO_LE) ||
        Extent[0] * Extent[1] * Extent[2] > 4096) {
      partial(ReasonKind::LoopNotFollowed, "the analysis does not follow " + Loop + ", which starts at "
              "the thread's place in the block but does not step by a "
              "fixed amount up to a fixed bound");
      return;
    }
    int64_t Rounds = 0;
    ThreadPos T;
    for (T[2] = 0; T[2] < Extent[2]; ++T[2])
      for (T[1] = 0; T[1] < Extent[1]; ++T[1])
        for (T[0] = 0; T[0] < Extent[0]; ++T[0]) {
          auto V = atThread(resolved(InitInBlock), T, BlockSizes, ThreadFns)
                       .constantValue();
          if (!V)
            continue;
          int64_t Last = Op == BO_LT ? *BoundN - 1 : *BoundN;
          if (*V <= Last)
            Rounds = std::max(Rounds, (Last - *V) / *StepN + 1);
        }
    if (Rounds > 64) {
      partial(ReasonKind::LoopNotFollowed, "the analysis does not follow " + Loop + ", which runs more "
              "than 64 rounds in a thread");
      return;
    }
    // A block-stride loop this run reads with a block of its span
    // (BlockLoops.h): each thread runs it once, and what it stores to
    // global memory is that thread's point.
    const bool BlockLoop =
        Rounds <= 1 &&
        std::any_of(BlockLoops.begin(), BlockLoops.end(), [&](const auto &B) {
          return B.second.Bodies.count(Body) != 0;
        });
    // Run under a condition on the thread's place along the loop's
    // dimension (if (threadIdx.y < 4) for (j = threadIdx.y; ...)), a
    // smaller block would cover other points: not the same kernel.
    if (BlockLoop)
      for (const auto &[D, L] : BlockLoops) {
        if (!L.Bodies.count(Body))
          continue;
        std::function<bool(const ThreadCond &)> OnD = [&](const ThreadCond &C) {
          return C.K == ThreadCond::Opaque || mentionsThreadPlace(C.D, D) ||
                 std::any_of(C.Args.begin(), C.Args.end(), OnD);
        };
        if (std::any_of(ActiveConds.begin(), ActiveConds.end(), OnD)) {
          partial(ReasonKind::LoopNotFollowed,
                  Loop + " steps by blockDim." + "xyz"[D] +
                      " under a condition on threadIdx." + "xyz"[D] +
                      ": a block of another size covers other points");
          return;
        }
      }
    size_t WritesBefore = Writes.size(), ReadsBefore = Reads.size();
    InBlockLoop += BlockLoop;
    for (int64_t J = 0; J < Rounds; ++J) {
      Poly K = Init.Idx + Poly::constant(J) * Step.Idx;
      Env[Var] = Value::index(K);
      ThreadCond TC;
      TC.K = ThreadCond::Cmp;
      TC.Op = Op;
      TC.D = K - Bound.Idx;
      TC.Text = text(Cond) + " (round " + std::to_string(J) + ")";
      enterCond(TC);
      execLoopBody(Body);
      leaveCond();
    }
    InBlockLoop -= BlockLoop;
    if (BlockLoop && Writes.size() != WritesBefore)
      return;
    // What the loop loads counts where its tile is read, in the reader's
    // frame.
    Reads.resize(ReadsBefore);
    if (Writes.size() != WritesBefore)
      partial(ReasonKind::LoopNotFollowed, "the analysis does not follow " + Loop + ", which spreads "
              "elements over the block's threads and stores to global memory");
    return;
  }

  // A loop with a small constant trip count (a radius sum): unroll it. A
  // unit-step loop of more constant iterations than a radius has is read
  // as a loop over an axis of a size fixed at compile time
  // (for (k = 1; k < N - 1; ++k) with #define N 256), as it would be were
  // its bound a parameter.
  const bool Constant = InitC && StepC && BoundC;
  const int64_t First = Constant ? *InitC : 0, By = Constant ? *StepC : 0,
                Last = Constant ? *BoundC : 0;
  const BinaryOperatorKind Op = Cond->getOpcode();
  const int64_t Trips =
      Constant && By != 0 ? constantTrips(First, By, Op, Last) : 0;
  const bool AxisOfFixedSize = (By == 1 || By == -1) && Trips > 64;
  if (VarOnLeft && Constant && By != 0 && !AxisOfFixedSize) {
    if (Trips > 64) {
      notStencil(ReasonKind::Loop, "a loop of more than 64 constant iterations inside the "
                 "kernel (not a stencil radius)");
      return;
    }
    // Thread coarsening, in a reading that runs the loop once (Coarsening.h).
    // Rounds counted from the loop's first value (for r = 1; r <= C; ...),
    // each a step up (for j = 0; j < TILE; j += ROWS: round s at j = s *
    // ROWS).
    const bool Upward = *StepC > 0;
    if (auto It = CoarseLoops.find(Body);
        It != CoarseLoops.end() && Upward && It->second.Points == Trips &&
        std::none_of(ActiveCoarse.begin(), ActiveCoarse.end(),
                     [&](const CoarseLoop *A) { return A->Dim == It->second.Dim; })) {
      runCoarse(Var, Body, It->second, *InitC, *StepC);
      return;
    }
    // What the first two rounds store first, or (where a guard the
    // analysis cannot state as a bound skipped the stores) the indices the
    // body's own variables hold after each: a coarsening shows in either.
    const bool Observe = Upward && Trips >= 2 && ActiveCoarse.empty();
    std::vector<size_t> Starts;
    std::vector<Poly> Firsts[2];
    const std::vector<const VarDecl *> Own =
        Observe ? declaredIn(Body) : std::vector<const VarDecl *>();
    for (int64_t V = First; holds(V, Op, Last); V += By) {
      Starts.push_back(Writes.size());
      Env[Var] = Value::index(Poly::constant(V));
      execLoopBody(Body);
      if (const int64_t Round = (V - *InitC) / By; Observe && Round < 2)
        for (const VarDecl *VD : Own)
          if (auto E = Env.find(VD); E != Env.end() && E->second.K == Value::Index)
            Firsts[Round].push_back(E->second.Idx);
    }
    if (Observe && Starts[1] > Starts[0] && Writes.size() > Starts[1]) {
      Firsts[0].insert(Firsts[0].begin(), Writes[Starts[0]].Index);
      Firsts[1].insert(Firsts[1].begin(), Writes[Starts[1]].Index);
    }
    for (size_t K = 0; K < Firsts[0].size() && K < Firsts[1].size(); ++K)
      if (std::optional<CoarseLoop> L = coarseLoopOf(Firsts[0][K], Firsts[1][K], Trips)) {
        CoarseSeen[Body] = *L;
        break;
      }
    return;
  }

  // A grid-stride loop: v = global id; v < n; v += blockDim*gridDim.
  for (int D = 0; D < 3; ++D) {
    std::string Ax(1, "xyz"[D]);
    Poly Stride = Poly::symbol("bdim." + Ax) * Poly::symbol("gdim." + Ax);
    if (Step.Idx == Stride && Init.Idx.mentions(GlobalThread[D])) {
      GridStrideSyms.insert(GlobalThread[D]);
      Env[Var] = Init;
      std::vector<Constraint> Cs;
      if (VarOnLeft && comparison(Cond, false, Cs))
        Guards.insert(Guards.end(), Cs.begin(), Cs.end());
      size_t Saved = Guards.size() - Cs.size();
      execLoopBody(Body);
      Guards.resize(Saved);
      return;
    }
  }

  // A block's chunk of an axis, one thread's loop (ChunkedLoops.cpp).
  if (VarOnLeft && chunkLoop(Var, Init, Cond, Bound, Step, Body))
    return;

  // A loop over an axis with unit step: upwards (for k = 1; k < nz-1; ++k)
  // or downwards (for i = e; i >= s; i--). Every point of its range is
  // computed once whichever way it runs; the direction only says which
  // iteration hands its values to which (carryValues).
  if (VarOnLeft && StepC && (*StepC == 1 || *StepC == -1) &&
      Bound.K == Value::Index && !Init.Idx.mentionsPrefix("@") &&
      !Init.Idx.mentionsPrefix("tid.")) {
    const Poly One = Poly::constant(1);
    AxisSym A;
    A.Symbol = "@loop:" + Var->getName().str();
    A.Source = ir::AxisSource::Loop;
    A.LoopVar = Var->getName().str();
    A.LoopFirst = Init.Idx;
    A.LoopDir = static_cast<int>(*StepC);
    if (*StepC == 1) {
      A.LoopLower = Init.Idx;
      A.LoopUpper = Op == BO_LE ? Bound.Idx + One : Bound.Idx;
      A.HasLoopRange = Op == BO_LT || Op == BO_LE;
    } else {
      A.LoopLower = Op == BO_GE ? Bound.Idx : Bound.Idx + One;
      A.LoopUpper = Init.Idx + One;
      A.HasLoopRange = Op == BO_GT || Op == BO_GE;
    }
    if (!A.HasLoopRange) {
      partial(ReasonKind::Loop, "a loop over an axis with condition '" + text(Cond) + "'");
      return;
    }
    A.Body = Body;
    LoopAxes.push_back(A);
    const size_t Ix = LoopAxes.size() - 1;
    Env[Var] = Value::index(Poly::symbol(A.Symbol));
    if (bool IndexRefused = false; !carryValues(Body, Var, A, IndexRefused)) {
      LoopAxes[Ix].CarryRefused = IndexRefused;
      Env[Var] = Value::index(Poly::symbol(A.Symbol));
    }
    LoopAxes[Ix].WritesAt = Writes.size();
    execLoopBody(Body);
    LoopAxes[Ix].WritesEnd = Writes.size();
    forgetPrefetched(Body);
    return;
  }
  notStencil(ReasonKind::Loop, "a loop over '" + Var->getName().str() + "' (" + text(Cond) +
             ") that is neither a constant radius nor an axis of the grid "
             "(e.g. a reduction tree or a matrix product)");
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

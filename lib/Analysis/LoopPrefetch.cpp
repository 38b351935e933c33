//===- LoopPrefetch.cpp - A register queue's front loaded for later -------===//
//
// A loop over an axis that rotates a register queue loads the queue's front
// for the next iteration at the end of the body, plainly or under a guard
// that keeps the load inside the array and fails only at the last iteration
// (the 2.5-D blocking of 3-D sweeps):
//
//   for (k = 1; k < nz - 1; ++k) {
//     ... out[c(k)] = f(below, cur, above, ...);
//     below = cur; cur = above;
//     if (k + 2 < nz) above = in[c(k + 2)];      (or: above = in[c(k + 2)];)
//   }
//
// No statement of the body after the load names the variable, so what it
// loads is used by later iterations only: the loop's carried values
// (LoopCarry.cpp) give it as the queue's front (in[c(k + 1)] while iteration
// k runs), and the load records no read of the iteration's footprint (a
// plain one would add the offset +2 that no update uses). A guarded load is
// taken as unconditional where its guard is on the loop's variable alone and
// holds at every iteration but the last: the value its failing side keeps is
// never used. After the loop the variable holds no value the analysis
// states (the last iteration skipped its load): a use there is refused.
//
// An else that only sets the variable too is as good (its value, kept at the
// last iteration only, is never used). Anything else stays a value the two
// sides of the if set differently: an else that does more, a guard on
// anything but the loop's variable, a guard that may fail before the last
// iteration, a variable read after the if.
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

namespace forgestencil {
namespace analysis {
namespace detail {

bool namesVar(const Stmt *S, const VarDecl *V) {
  if (!S)
    return false;
  if (const auto *DR = dyn_cast<DeclRefExpr>(S); DR && DR->getDecl() == V)
    return true;
  for (const Stmt *C : S->children())
    if (namesVar(C, V))
      return true;
  return false;
}

const VarDecl *plainAssignment(const Stmt *S) {
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(S)) {
    if (CS->size() != 1)
      return nullptr;
    S = CS->body_front();
  }
  if (const auto *EW = dyn_cast_or_null<ExprWithCleanups>(S))
    S = EW->getSubExpr();
  const auto *B = dyn_cast_or_null<BinaryOperator>(S);
  if (!B || B->getOpcode() != BO_Assign)
    return nullptr;
  const auto *DR = dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParenImpCasts());
  const auto *V = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  return V && !namesVar(B->getRHS(), V) ? V : nullptr;
}

namespace {

/// The variable `if (c) V = e;` assigns, alone in its then-side (an else
/// that only sets V too: its value, kept at the last iteration, is never
/// used); null for another statement.
const VarDecl *loneAssignment(const IfStmt *If) {
  if (If->getInit() || If->getConditionVariable())
    return nullptr;
  const VarDecl *V = plainAssignment(If->getThen());
  if (V && If->getElse() && plainAssignment(If->getElse()) != V)
    return nullptr;
  return V;
}

} // namespace

std::vector<const Stmt *>
Interpreter::tailPrefetches(const Stmt *Body, const AxisSym &Loop,
                            const std::set<const VarDecl *> &Carried) {
  std::vector<const Stmt *> Found;
  const auto *CS = dyn_cast_or_null<CompoundStmt>(Body);
  if (!CS || !Loop.HasLoopRange)
    return Found;
  // The iterations whose loads a later iteration uses: all but the last,
  // [Lo, Hi) in the loop's variable.
  const Poly One = Poly::constant(1);
  const Poly Lo = Loop.LoopDir > 0 ? Loop.LoopLower : Loop.LoopLower + One;
  const Poly Hi = Loop.LoopDir > 0 ? Loop.LoopUpper - One : Loop.LoopUpper;
  auto AtLeastZero = [](const Poly &P) {
    auto C = P.constantValue();
    return (C && *C >= 0) || P.terms().empty();
  };
  std::vector<const Stmt *> Top(CS->body_begin(), CS->body_end());
  for (size_t I = 0; I < Top.size(); ++I) {
    const auto *If = dyn_cast<IfStmt>(Top[I]);
    const VarDecl *V = If ? loneAssignment(If) : plainAssignment(Top[I]);
    if (!V || !Carried.count(V))
      continue;
    bool Later = false;
    for (size_t J = I + 1; J < Top.size() && !Later; ++J)
      Later = namesVar(Top[J], V);
    if (Later)
      continue;
    if (!If) {
      Found.push_back(Top[I]);
      continue;
    }
    std::vector<Constraint> Cs;
    if (!guardConstraints(If->getCond(), false, Cs) || Cs.empty())
      continue;
    bool Holds = true;
    for (const Constraint &C : Cs)
      Holds = Holds && C.Symbol == Loop.Symbol && !C.NotEqual &&
              (C.Upper ? AtLeastZero(C.Bound - Hi) : AtLeastZero(Lo - C.Bound));
    if (Holds)
      Found.push_back(If);
  }
  Prefetches.insert(Found.begin(), Found.end());
  return Found;
}

bool Interpreter::execPrefetch(const Stmt *S) {
  if (S == InPrefetch || !Prefetches.count(S))
    return false;
  const size_t ReadsBefore = Reads.size();
  const Stmt *Outer = std::exchange(InPrefetch, S);
  const auto *If = dyn_cast<IfStmt>(S); // a guarded load: run as unconditional
  exec(If ? If->getThen() : S);
  InPrefetch = Outer;
  Reads.resize(ReadsBefore);
  return true;
}

void Interpreter::forgetPrefetched(const Stmt *Body) {
  const auto *CS = dyn_cast_or_null<CompoundStmt>(Body);
  if (!CS)
    return;
  for (const Stmt *S : CS->body())
    if (const auto *If = dyn_cast<IfStmt>(S); If && Prefetches.count(If))
      if (const VarDecl *V = loneAssignment(If); V && Env.count(V))
        Env[V] = Value::unknown("'" + V->getName().str() + "' holds after the loop what "
                                "its guarded load left (skipped at the last iteration)",
                                ReasonKind::LoopCarry);
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

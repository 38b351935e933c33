//===- LoopCarry.cpp - Values a loop over an axis carries -------------------===//

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
#include <functional>
#include <set>
#include <cctype>
#include <cmath>
#include <numeric>

namespace forgestencil {
namespace analysis {
namespace detail {

/// A copy of V with Sym replaced by To in every index (false in Ok when a
/// read carries clamps, whose recorded positions would not move).
Value substituted(const Value &V, const std::string &Sym, const Poly &To,
                  bool &Ok) {
  Value R = V;
  if (V.K == Value::Index || V.K == Value::Pointer)
    R.Idx = V.Idx.substitute(Sym, To);
  std::function<DPtr(const DPtr &)> Tree = [&](const DPtr &N) {
    auto C = std::make_shared<DNode>(*N);
    if (C->K == DNode::Read) {
      C->Index = C->Index.substitute(Sym, To);
      for (PosGuard &G : C->InBounds)
        G.D = G.D.substitute(Sym, To);
      for (const ClampSet &CS : C->Clamps)
        if (!CS.Ids.empty())
          Ok = false;
    }
    for (DPtr &A : C->Args)
      A = Tree(A);
    return C;
  };
  if (V.K == Value::Data && V.D)
    R.D = Tree(V.D);
  return R;
}

const Expr *assignedBy(const Stmt *S) {
  if (const auto *B = dyn_cast_or_null<BinaryOperator>(S); B && B->isAssignmentOp())
    return B->getLHS();
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(S);
      U && U->isIncrementDecrementOp())
    return U->getSubExpr();
  return nullptr;
}

bool sameValue(const Value &A, const Value &B) {
  if (A.K != B.K)
    return false;
  switch (A.K) {
  case Value::Unknown:
    return false;
  case Value::Index:
    return A.Idx == B.Idx;
  case Value::Pointer:
    return A.Array == B.Array && A.Idx == B.Idx && A.UnitBytes == B.UnitBytes;
  case Value::Data:
    return A.D && B.D && sameTree(*A.D, *B.D);
  case Value::Record:
    if (!A.Fields || !B.Fields || A.Fields->size() != B.Fields->size())
      return false;
    return std::equal(A.Fields->begin(), A.Fields->end(), B.Fields->begin(),
                      [](const auto &X, const auto &Y) {
                        return X.first == Y.first && sameValue(X.second, Y.second);
                      });
  }
  return false;
}

/// Whether \p Cond has one value in every iteration of the loop over
/// \p Loop whose body is \p Body: it names neither the loop's variable nor
/// any variable the body assigns, reads no memory and calls nothing (a
/// thread's bounds, `x < nx && y < ny`).
static bool loopInvariant(const Expr *Cond, const Stmt *Body,
                          const VarDecl *Loop) {
  std::set<const VarDecl *> Assigned;
  std::function<void(const Stmt *)> Collect = [&](const Stmt *S) {
    if (!S)
      return;
    if (const Expr *Target = assignedBy(S))
      if (const auto *DR = dyn_cast<DeclRefExpr>(Target->IgnoreParenImpCasts()))
        if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl()))
          Assigned.insert(VD);
    for (const Stmt *C : S->children())
      Collect(C);
  };
  Collect(Body);
  // The body's own locals take a new value in every iteration.
  for (const VarDecl *VD : declaredIn(Body))
    Assigned.insert(VD);
  bool Invariant = true;
  std::function<void(const Stmt *)> Check = [&](const Stmt *S) {
    if (!S || !Invariant)
      return;
    if (isa<ArraySubscriptExpr>(S) || isa<CallExpr>(S) ||
        (isa<UnaryOperator>(S) && cast<UnaryOperator>(S)->getOpcode() == UO_Deref))
      Invariant = false;
    if (const auto *DR = dyn_cast<DeclRefExpr>(S))
      if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
          VD && (VD == Loop || Assigned.count(VD)))
        Invariant = false;
    for (const Stmt *C : S->children())
      Check(C);
  };
  Check(Cond);
  return Invariant;
}

/// Whether the body's first statement that names \p V, in its top-level
/// order, is a plain assignment V = e with e free of V: the value V holds
/// when an iteration starts is never read (below = here; at the top of a
/// z loop, whatever below was set to before the loop). So is
/// `if (c) V = e;` (or `if (c) { ...; V = e; ... }` with V first named
/// there) when c has one value in every iteration (a thread's bounds, as
/// a kernel whose threads all reach a barrier writes `if (x < nx && y < ny)
/// above = in[...]`): where c holds, every iteration sets V before it
/// reads it; where it does not, no iteration sets V, and V keeps the value
/// it had before the loop, which is the value the body sees.
static bool assignedBeforeRead(const Stmt *Body, const VarDecl *V,
                               const VarDecl *Loop) {
  auto Names = [&](const Stmt *S) { return namesVar(S, V); };
  std::vector<const Stmt *> Top;
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(Body))
    Top.assign(CS->body_begin(), CS->body_end());
  else if (Body)
    Top.push_back(Body);
  for (const Stmt *S : Top) {
    if (plainAssignment(S) == V)
      return true;
    if (const auto *If = dyn_cast<IfStmt>(S);
        If && !If->getElse() && !If->getInit() && !If->getConditionVariable() &&
        !Names(If->getCond()) && loopInvariant(If->getCond(), Body, Loop)) {
      const Stmt *Then = If->getThen();
      if (plainAssignment(Then) == V)
        return true;
      if (const auto *CS = dyn_cast<CompoundStmt>(Then))
        for (const Stmt *T : CS->body())
          if (Names(T))
            return plainAssignment(T) == V;
    }
    if (Names(S))
      return false;
  }
  return false;
}

bool Interpreter::carryValues(const Stmt *Body, const VarDecl *Var,
                              const AxisSym &Loop, bool &IndexRefused) {
  IndexRefused = false;
  // What the loop carries: variables from before the loop that its body
  // assigns, and the elements a local array held before the loop when the
  // body assigns to the array (a queue q[s] = q[s + 1]).
  struct Slot {
    const VarDecl *V = nullptr;
    std::string Array;
    int64_t Elem = 0;
    std::string name() const {
      return V ? V->getName().str()
               : Array + "[" + std::to_string(Elem) + "]";
    }
  };
  std::vector<Slot> Carried;
  std::set<std::string> Seen;
  // A variable without a value before the loop (declared at the top of the
  // kernel, first set in the body) carries nothing: the body sets it before
  // it reads it, or reads a value that is unknown and refused where used.
  // Nor does one the body sets before it reads it, whatever its value before.
  auto Add = [&](Slot S) {
    const Value &Now = S.V ? Env[S.V] : LocalElems[S.Array][S.Elem];
    if (Now.K != Value::Unknown && !(S.V && assignedBeforeRead(Body, S.V, Var)) &&
        Seen.insert(S.name()).second)
      Carried.push_back(std::move(S));
  };
  std::function<void(const Stmt *)> Scan = [&](const Stmt *S) {
    if (!S)
      return;
    if (const Expr *Target = assignedBy(S)) {
      const Expr *Root = Target->IgnoreParenImpCasts();
      bool Element = false;
      while (const auto *AS = dyn_cast<ArraySubscriptExpr>(Root)) {
        Root = AS->getBase()->IgnoreParenImpCasts();
        Element = true;
      }
      if (const auto *DR = dyn_cast<DeclRefExpr>(Root))
        if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
            VD && VD != Var && Env.count(VD)) {
          std::string Name = VD->getName().str();
          auto A = Arrays.find(Name);
          if (!Element) {
            Add({VD, "", 0});
          } else if (A != Arrays.end() && A->second.Kind == ArrayKind::Local) {
            for (const auto &[E, V] : LocalElems[Name])
              Add({nullptr, Name, E});
          }
        }
    }
    for (const Stmt *C : S->children())
      Scan(C);
  };
  Scan(Body);
  if (Carried.empty())
    return true;
  auto Get = [&](const Slot &S) -> Value & {
    return S.V ? Env[S.V] : LocalElems[S.Array][S.Elem];
  };
  // Loads of the queue's front guarded to all but the last iteration.
  std::set<const VarDecl *> CarriedVars;
  for (const Slot &S : Carried)
    if (S.V)
      CarriedVars.insert(S.V);
  const std::vector<const Stmt *> Loads = tailPrefetches(Body, Loop, CarriedVars);

  const std::string K = Loop.Symbol;
  const Poly KSym = Poly::symbol(K);
  std::vector<Value> Before, Start;
  for (const Slot &S : Carried) {
    Before.push_back(Get(S));
    // An index or pointer starts as a symbol of its own, so that one run of
    // the body shows its step.
    const Value &B = Before.back();
    Start.push_back(B.K == Value::Index || B.K == Value::Pointer
                        ? B.movedTo(Poly::symbol("carry#" + S.name()))
                        : Value::unknown(""));
  }
  auto Refuse = [&](const std::string &What) {
    std::string L;
    for (const Slot &S : Carried)
      L += (L.empty() ? "" : ", ") + S.name();
    for (const Stmt *P : Loads)
      Prefetches.erase(P);
    partial(ReasonKind::LoopCarry, "the loop over '" + Var->getName().str() + "' carries " + What +
            " from one iteration to the next (" + L +
            "), which the analysis does not follow");
    for (size_t I = 0; I < Carried.size(); ++I) {
      Get(Carried[I]) = Before[I];
      if (Before[I].K == Value::Index || Before[I].K == Value::Pointer)
        IndexRefused = true;
    }
    return false;
  };
  bool Settled = false;
  for (size_t Round = 0; Round <= Carried.size() + 1 && !Settled; ++Round) {
    // One run of the body whose effects are thrown away.
    auto Saved = snapshot();
    for (size_t I = 0; I < Carried.size(); ++I)
      Get(Carried[I]) = Start[I];
    Env[Var] = Value::index(KSym);
    execLoopBody(Body);
    std::vector<Value> End;
    for (const Slot &S : Carried)
      End.push_back(Get(S));
    restore(Saved);
    Settled = true;
    for (size_t I = 0; I < Carried.size(); ++I) {
      const Value &S = Start[I], &E = End[I];
      Value Next;
      bool Ok = true;
      if ((S.K == Value::Index || S.K == Value::Pointer) &&
          S.Idx == Poly::symbol("carry#" + Carried[I].name())) {
        // v += step: v at iteration k is its value before the loop plus
        // one step for each iteration before k ((k - first) of them
        // upwards, (first - k) downwards).
        Poly Step = E.Idx - S.Idx;
        if (E.K == S.K && E.Array == S.Array && E.UnitBytes == S.UnitBytes &&
            !Step.mentionsPrefix("carry#") && !Step.mentions(K))
          Next = Before[I].movedTo(Before[I].Idx + Poly::constant(Loop.LoopDir) *
                                                       (KSym - Loop.LoopFirst) *
                                                       Step);
      } else if (E.K != Value::Unknown) {
        // v at iteration k is what the body left in it at the iteration
        // before: k - 1 upwards, k + 1 downwards.
        Next = substituted(E, K, KSym - Poly::constant(Loop.LoopDir), Ok);
      }
      if (!Ok)
        return Refuse("a clamped value");
      if (!sameValue(Next, S))
        Settled = false;
      Start[I] = Next;
    }
  }
  for (size_t I = 0; I < Carried.size(); ++I) {
    bool Ok = true;
    if (!Settled || Start[I].K == Value::Unknown ||
        !sameValue(substituted(Start[I], K, Loop.LoopFirst, Ok), Before[I]) ||
        !Ok)
      return Refuse("values");
  }
  // The loads before the loop that gave the carried values their first
  // value are the body's loads at its first iteration, not reads of their
  // own; what each iteration reads through them is.
  std::function<void(const DPtr &)> Drop = [&](const DPtr &N) {
    if (!N)
      return;
    if (N->K == DNode::Read && !N->Shared) {
      auto It = std::find_if(Reads.begin(), Reads.end(), [&](const ReadRecord &R) {
        return R.Array == N->Name && R.Index == N->Index;
      });
      if (It != Reads.end())
        Reads.erase(It);
    }
    for (const DPtr &A : N->Args)
      Drop(A);
  };
  for (size_t I = 0; I < Carried.size(); ++I) {
    if (Before[I].K == Value::Data) {
      Drop(Before[I].D);
      recordReads(Start[I].D, /*Carried=*/true);
    }
    Get(Carried[I]) = Start[I];
  }
  return true;
}

void Interpreter::dropUnusedCarriedReads() {
  std::set<std::pair<std::string, std::string>> Used;
  std::function<void(const DPtr &)> Collect = [&](const DPtr &N) {
    if (!N)
      return;
    if (N->K == DNode::Read && !N->Shared)
      Used.insert({N->Name, N->Index.str()});
    for (const DPtr &A : N->Args)
      Collect(A);
  };
  for (const Write &W : Writes)
    Collect(W.Value);
  Reads.erase(std::remove_if(Reads.begin(), Reads.end(),
                             [&](const ReadRecord &R) {
                               return R.Carried &&
                                      !Used.count({R.Array, R.Index.str()});
                             }),
              Reads.end());
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

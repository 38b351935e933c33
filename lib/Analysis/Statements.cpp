//===- Statements.cpp - Statements, stores and compound updates -------------===//

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
#include <set>
#include <utility>

namespace forgestencil {
namespace analysis {
namespace detail {

// ---------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------

const char *compoundOperator(BinaryOperatorKind Op) {
  switch (Op) {
  case BO_AddAssign: return "+";
  case BO_SubAssign: return "-";
  case BO_MulAssign: return "*";
  case BO_DivAssign: return "/";
  default: return nullptr;
  }
}

/// L OP= R for a variable (or a local array's element) holding L: an index,
/// a pointer moved, or an expression; unknown for anything else.
Value Interpreter::compound(const Value &L, const Value &R,
                            BinaryOperatorKind Op, const Expr *LHS,
                            const Expr *RHS) {
  if (L.K == Value::Index && R.K == Value::Index) {
    if (Op == BO_AddAssign)
      return Value::index(L.Idx + R.Idx);
    if (Op == BO_SubAssign)
      return Value::index(L.Idx - R.Idx);
    if (Op == BO_MulAssign)
      return Value::index(L.Idx * R.Idx);
    return Value::unknown("compound index assignment");
  }
  if (L.K == Value::Pointer && R.K == Value::Index &&
      (Op == BO_AddAssign || Op == BO_SubAssign))
    return L.movedTo(Op == BO_AddAssign ? L.Idx + R.Idx : L.Idx - R.Idx);
  const char *Spelled = compoundOperator(Op);
  DPtr LD = asData(L, LHS), RD = asData(R, RHS);
  if (!LD || !RD || !Spelled)
    return Value::unknown("");
  DPtr N = node(DNode::Binary);
  N->Op = Spelled;
  N->Args = {LD, RD};
  return Value::data(N);
}

void Interpreter::assign(const Expr *LHS, const Expr *RHS,
                         BinaryOperatorKind Op, bool IsCompound,
                         const Value *Pre) {
  LHS = LHS->IgnoreParenImpCasts();
  // What a variable or an element of a local or __shared__ array holds:
  // the value converted to its type (a float tile storing u[g] * w, a
  // double product, rounds it; so does a helper's float & parameter). The
  // type the value had before it was stored: for s += x, the type s + x has.
  auto Held = [&](const Value &R, QualType To) {
    QualType From = RHS->IgnoreParenImpCasts()->getType();
    if (IsCompound && From->isRealFloatingType() && To->isRealFloatingType() &&
        Ctx.getTypeSize(To) > Ctx.getTypeSize(From))
      From = To;
    return convertedTo(R, To, From, IsCompound || Pre ? nullptr : RHS);
  };
  // A local variable.
  if (const auto *DR = dyn_cast<DeclRefExpr>(LHS)) {
    const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
    if (!VD)
      return;
    Value R = Pre ? *Pre : eval(RHS);
    if (IsCompound)
      R = compound(Env.count(VD) ? Env[VD] : Value::unknown(""), R, Op, LHS,
                   RHS);
    Env[VD] = Held(R, VD->getType().getNonReferenceType());
    return;
  }
  // A member of a local struct (t.x = x in make_int3, p.y += 1).
  if (const auto *ME = dyn_cast<MemberExpr>(LHS); ME && !ME->isArrow())
    if (const VarDecl *VD = localStruct(ME->getBase(), Env)) {
      const std::string Field = ME->getMemberDecl()->getName().str();
      Value R = Pre ? *Pre : eval(RHS);
      if (IsCompound) {
        const RecordFields &F = *Env[VD].Fields;
        auto Old = F.find(Field);
        R = compound(Old != F.end() ? Old->second : Value::unknown(""), R, Op,
                     LHS, RHS);
      }
      setMember(VD, Field,
                convertedTo(R, ME->getType(),
                            RHS->IgnoreParenImpCasts()->getType(),
                            IsCompound ? nullptr : RHS));
      return;
    }
  // A store through a subscript or a pointer.
  Value Ptr;
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(LHS)) {
    Value Base = evalSubscriptBase(AS->getBase());
    Value Idx = eval(AS->getIdx());
    if (Base.K == Value::Pointer && Idx.K == Value::Index)
      Ptr = Base.movedTo(Base.Idx + Idx.Idx);
    else if (Idx.K == Value::Data)
      notStencil(ReasonKind::Indirect, "a store at an index computed from loaded data (scatter: " +
                 text(LHS) + ")");
    else
      partial(ReasonKind::Untracked, "a store the analysis does not follow: " + text(LHS));
  } else if (const auto *U = dyn_cast<UnaryOperator>(LHS);
             U && U->getOpcode() == UO_Deref) {
    Ptr = eval(U->getSubExpr());
  }
  if (Ptr.K != Value::Pointer) {
    if (Ptr.K == Value::Unknown && !isa<ArraySubscriptExpr>(LHS))
      partial(ReasonKind::Untracked, "a store the analysis does not follow: " + text(LHS));
    return;
  }
  if (!ActiveCoarse.empty())
    Ptr.Idx = coarseNormal(Ptr.Idx, ActiveCoarse);
  ArrayInfo *A = arrayOf(Ptr.Array);
  if (Ptr.Idx.mentionsPrefix(ClampPrefix)) {
    partial(ReasonKind::Boundary, "a store at a clamped or wrapped index (" +
            text(LHS) + ")");
    return;
  }
  if (A && A->Kind == ArrayKind::Shared && Slices.SkippedShared.count(Ptr.Array))
    return; // Only a block reduction reads it (BlockReductions.h).
  if (A && A->Kind == ArrayKind::Shared) {
    // The global reads of a tile store count where the tile is read, in
    // the reading thread's frame; not here.
    size_t ReadsBefore = Reads.size();
    Value R = Held(Pre ? *Pre : eval(RHS), LHS->getType());
    Reads.resize(ReadsBefore);
    DPtr D = R.K == Value::Data ? R.D : nullptr;
    if (R.K == Value::Index && R.Idx.isConstant())
      D = asData(R, RHS);
    if (!D || IsCompound || Ptr.UnitBytes != 0) {
      partial(ReasonKind::Untracked, "a store to the __shared__ array '" + Ptr.Array +
              "' the analysis does not follow: " + text(LHS));
      return;
    }
    SharedStores.push_back({Ptr.Array, Ptr.Idx, D, ActiveConds, Guards,
                            Barriers, SharedStores.size(), InBlockLoop > 0});
    return;
  }
  if (A && A->Kind == ArrayKind::Local) {
    // An element at a constant index is a variable of its own.
    auto E = numberOf(Ptr.Idx);
    if (!E || Ptr.UnitBytes != 0) {
      partial(ReasonKind::Update, "a local array '" + Ptr.Array + "' indexed by a non-constant "
              "holds intermediate values");
      return;
    }
    Value R = Pre ? *Pre : eval(RHS);
    if (IsCompound) {
      auto It = LocalElems[Ptr.Array].find(*E);
      R = compound(It == LocalElems[Ptr.Array].end() ? Value::unknown("")
                                                     : It->second,
                   R, Op, LHS, RHS);
    }
    LocalElems[Ptr.Array][*E] = Held(R, LHS->getType());
    return;
  }
  Value R = Pre ? *Pre : eval(RHS);
  DPtr D = asData(R, RHS);
  if (!D)
    return;
  if (!Halo.empty() && HaloComputing == 0)
    partial(ReasonKind::Guard,
            "a store to '" + Ptr.Array + "' that the block's halo threads "
            "make too: only a condition that lets exactly the threads that "
            "compute through (or a return the others take) keeps them from "
            "global memory");
  bool Accumulate = IsCompound;
  if (IsCompound) {
    const char *Spelled = compoundOperator(Op);
    if (!Spelled || Ptr.UnitBytes != 0 || !A || A->Kind != ArrayKind::Global) {
      Reads.push_back({Ptr.Array, Ptr.Idx, false});
      partial(ReasonKind::Store, "a compound store the analysis does not "
                                 "follow (" + text(LHS) + ")");
      return;
    }
    // out[p] OP= v is out[p] = out[p] OP v, as C evaluates it. Where this
    // thread stored out[p] before (out[p] = a; out[p] *= s;), the old value
    // is that store's and the new store replaces it; otherwise it is a read
    // of the element the thread writes (out[p] += v stays an accumulation).
    if (DPtr Old = priorValue(Ptr.Array, Ptr.Idx,
                              /*FromMemory=*/Op != BO_AddAssign)) {
      DPtr N = node(DNode::Binary);
      N->Op = Spelled;
      N->Args = {Old, D};
      Writes.push_back({Ptr.Array, Ptr.Idx, false, N, Guards, condScopes(),
                        InBlockLoop > 0});
      return;
    }
  }
  if (IsCompound) {
    // out[p] += v reads out[p].
    Reads.push_back({Ptr.Array, Ptr.Idx, false});
  }
  Writes.push_back({Ptr.Array, Ptr.Idx, Accumulate, D, Guards, condScopes(),
                    InBlockLoop > 0});
}

const Write *Interpreter::forwardedStore(const std::string &Array,
                                         const Poly &Index) const {
  // The latest store to the element decides. It is forwarded when it ran
  // under the very same enclosing ifs as the load (the same entries into
  // their branches: if (in range) { out[i] = a; out[i] *= s; }) and the same
  // guards, so it ran whenever the load does; one under another condition,
  // or an accumulation (out[i] += v, whose sum includes memory), is not.
  for (auto It = Writes.rbegin(); It != Writes.rend(); ++It) {
    if (It->Array != Array || It->Index != Index)
      continue;
    if (!It->Accumulate && underScopes(It->Scopes) &&
        sameGuards(It->Guards, Guards))
      return &*It;
    return nullptr;
  }
  return nullptr;
}

DPtr Interpreter::priorValue(const std::string &Array, const Poly &Index,
                             bool FromMemory) {
  if (const Write *W = forwardedStore(Array, Index)) {
    DPtr V = W->Value;
    Writes.erase(Writes.begin() + (W - Writes.data()));
    return V;
  }
  if (!FromMemory)
    return nullptr;
  DPtr Old = node(DNode::Read);
  Old->Name = Array;
  Old->Index = Index;
  Old->Clamps.push_back(ClampSet());
  Reads.push_back({Array, Index, false});
  return Old;
}

void Interpreter::initLocalArray(const VarDecl *VD) {
  const auto *List = dyn_cast_or_null<InitListExpr>(
      VD->getInit() ? VD->getInit()->IgnoreParenImpCasts() : nullptr);
  if (!List)
    return;
  const std::string Name = VD->getName().str();
  int64_t Next = 0;
  // Elements in row-major order, nested lists for rows (float k[3][3]).
  std::function<void(const InitListExpr *, QualType)> Walk =
      [&](const InitListExpr *L, QualType T) {
        const auto *AT = Ctx.getAsConstantArrayType(T);
        if (!AT)
          return;
        QualType Elem = AT->getElementType();
        const int64_t Count = AT->getSize().getSExtValue();
        const int64_t Start = Next;
        for (unsigned I = 0; I < L->getNumInits() && I < Count; ++I) {
          const Expr *X = L->getInit(I);
          if (const auto *Sub = dyn_cast<InitListExpr>(X->IgnoreParenImpCasts())) {
            Walk(Sub, Elem);
            continue;
          }
          LocalElems[Name][Next++] = convertedTo(
              eval(X), Elem, X->IgnoreParenImpCasts()->getType(), X);
        }
        // Elements the list leaves out are zero.
        auto Scalars = scalarsIn(T, Ctx);
        if (Scalars && Elem->isRealFloatingType())
          for (; Next < Start + *Scalars; ++Next) {
            DPtr Z = node(DNode::Literal);
            Z->Value = Elem->isSpecificBuiltinType(BuiltinType::Float) ? "0.0f"
                                                                       : "0.0";
            LocalElems[Name][Next] = Value::data(Z);
          }
        else if (Scalars)
          Next = Start + *Scalars;
      };
  Walk(List, VD->getType());
}

bool Interpreter::containsReturn(const Stmt *S) {
  if (!S)
    return false;
  if (isa<ReturnStmt>(S))
    return true;
  for (const Stmt *C : S->children())
    if (containsReturn(C))
      return true;
  return false;
}

std::optional<bool> Interpreter::constantCondition(const Expr *Cond) {
  const Expr *E = Cond->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_LNot) {
    std::optional<bool> V = constantCondition(U->getSubExpr());
    return V ? std::optional<bool>(!*V) : std::nullopt;
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->getOpcode() == BO_LAnd || B->getOpcode() == BO_LOr) {
      const bool And = B->getOpcode() == BO_LAnd;
      std::optional<bool> L = constantCondition(B->getLHS());
      if (L && *L != And)
        return !And; // false && ..., true || ...
      std::optional<bool> R = constantCondition(B->getRHS());
      if (R && *R != And)
        return !And;
      if (L && R)
        return And;
      return std::nullopt;
    }
    if (B->isComparisonOp()) {
      size_t ReadsBefore = Reads.size();
      Value L = eval(B->getLHS()), R = eval(B->getRHS());
      Reads.resize(ReadsBefore);
      if (L.K != Value::Index || R.K != Value::Index)
        return std::nullopt;
      Poly D = L.Idx - R.Idx;
      std::optional<int64_t> C = D.constantValue();
      if (!C && !D.mentionsPrefix("@") && !D.mentionsPrefix("tid.") &&
          !D.mentionsPrefix("bid.") && !D.mentionsPrefix("mod[") &&
          !D.mentionsPrefix("div["))
        C = resolved(D).constantValue() ? numberOf(D) : std::nullopt;
      if (!C)
        return std::nullopt;
      switch (B->getOpcode()) {
      case BO_LT: return *C < 0;
      case BO_LE: return *C <= 0;
      case BO_GT: return *C > 0;
      case BO_GE: return *C >= 0;
      case BO_EQ: return *C == 0;
      case BO_NE: return *C != 0;
      default: return std::nullopt;
      }
    }
  }
  if (E->getType()->isIntegerType() || E->getType()->isBooleanType()) {
    size_t ReadsBefore = Reads.size();
    Value V = eval(E);
    Reads.resize(ReadsBefore);
    if (V.K == Value::Index)
      if (std::optional<int64_t> C = V.Idx.constantValue())
        return *C != 0;
  }
  return std::nullopt;
}

bool sameGuards(const std::vector<Constraint> &A,
                const std::vector<Constraint> &B) {
  auto Same = [](const Constraint &X, const Constraint &Y) {
    return X.Symbol == Y.Symbol && X.Upper == Y.Upper && X.Bound == Y.Bound &&
           X.NotEqual == Y.NotEqual;
  };
  return A.size() == B.size() && std::equal(A.begin(), A.end(), B.begin(), Same);
}

void Interpreter::mergeBranches(
    const Expr *Cond, const std::map<const VarDecl *, Value> &EnvBefore,
    const std::map<const VarDecl *, Value> &EnvThen,
    const std::map<std::string, std::map<int64_t, Value>> &ElemsThen,
    const DPtr &Uniform) {
  // What a variable holds after the if when its two sides leave different
  // values in it. Where the condition bounds the position and one side
  // leaves a constant (float l = 0; if (i > 0) l = u[i - 1];), the other
  // side's reads carry the condition, as for cond ? u[i - 1] : 0: the IR
  // may only use them where the domain never takes the constant. Otherwise
  // the variable has no one value the IR can state.
  auto IsFill = [](const Value &V) {
    return (V.K == Value::Index && V.Idx.isConstant()) ||
           (V.K == Value::Data && V.D && V.D->K == DNode::Literal) ||
           (V.K == Value::Unknown && V.Unset);
  };
  const bool ReadsData = readsData(Cond);
  // A position local moved where a comparison of positions holds (if (ip
  // == n) ip = 0; if (im < 0) im = 0;): the clamp or wrap the ternary
  // c ? then : else would be. The comparison's operands as they were
  // before the if.
  const auto *Cmp = dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts());
  std::optional<std::pair<Value, Value>> Compared;
  if (Cmp && Cmp->isComparisonOp() && !ReadsData && !Uniform) {
    auto After = std::exchange(Env, EnvBefore);
    Compared = {eval(Cmp->getLHS()), eval(Cmp->getRHS())};
    Env = std::move(After);
  }
  auto Merged = [&](const std::string &Name, const Value &T,
                    const Value &E) -> Value {
    if (sameValue(T, E))
      return T;
    // Set on neither side: still unset.
    if (T.K == Value::Unknown && T.Unset && E.K == Value::Unknown && E.Unset)
      return T;
    if (Compared && T.K == Value::Index && E.K == Value::Index) {
      const std::string Text =
          "if (" + text(Cond) + ") " + Name + " = " + T.Idx.str();
      const auto &[L, R] = *Compared;
      if (std::optional<Value> V = positionChoice(Cmp, L, R, T, E, Text))
        return *V;
    }
    // A mode switch: the variable holds cond ? then : else at every point.
    // (A side may leave a whole number the variable was set to, double
    // d = 0; as the other side's value is data, the select is one too.)
    // An offset the data chooses (an upwind donor): read through it only.
    if (Uniform && ReadsData)
      if (std::optional<Value> C = chosenOffset(Uniform, T, E))
        return *C;
    if (Uniform && (T.K == Value::Data || E.K == Value::Data))
      if (DPtr TD = numberNode(T), ED = numberNode(E); TD && ED) {
        DPtr S = node(DNode::Select);
        S->Args = {Uniform, TD, ED};
        return Value::data(S);
      }
    // A fill never matters where the domain lies inside the test, which
    // the bounds on the other side's global reads make the IR check; a
    // side without one keeps the choice (float l = 0; if (i > 0) l = a;
    // is no a at i == 0).
    if (!ReadsData && IsFill(T) != IsFill(E)) {
      const bool FillThen = IsFill(T);
      const Value &Taken = FillThen ? E : T;
      const Value &Fill = FillThen ? T : E;
      std::vector<PosGuard> Gs;
      bool Guarded = false;
      if (Taken.K == Value::Data && Taken.D &&
          positionGuards(Cond, /*Negate=*/FillThen, Gs)) {
        markZeroFill(Gs, Taken.D,
                     (Fill.K == Value::Index && Fill.Idx == Poly::constant(0)) ||
                         (Fill.K == Value::Data && Fill.D &&
                          isZeroText(Fill.D->Value)));
        if (DPtr G = withInBounds(Taken.D, Gs, &Guarded); Guarded)
          return Value::data(G);
      }
    }
    // An accumulation made only where a test on positions holds.
    if (!ReadsData)
      if (std::optional<Value> V = guardedAccumulation(Cond, T, E))
        return *V;
    return Value::unknown("'" + Name + "' is set differently on the two sides of '" +
                              text(Cond) + "'",
                          ReadsData ? ReasonKind::DataBranch : ReasonKind::Guard);
  };
  // Variables declared on one side only are out of scope after the if.
  for (auto &[VD, V] : Env) {
    auto B = EnvBefore.find(VD);
    auto T = EnvThen.find(VD);
    if (B == EnvBefore.end() || T == EnvThen.end())
      continue;
    V = Merged(VD->getName().str(), T->second, V);
  }
  for (auto &[Array, Elems] : LocalElems) {
    auto T = ElemsThen.find(Array);
    for (auto &[I, V] : Elems) {
      const Value *TV = nullptr;
      if (T != ElemsThen.end())
        if (auto It = T->second.find(I); It != T->second.end())
          TV = &It->second;
      if (TV)
        V = Merged(Array + "[" + std::to_string(I) + "]", *TV, V);
      else
        V = Value::unknown("'" + Array + "[" + std::to_string(I) +
                           "]' is set on one side of '" + text(Cond) + "' only");
    }
    if (T != ElemsThen.end())
      for (const auto &[I, TV] : T->second)
        if (!Elems.count(I))
          Elems[I] = Value::unknown("'" + Array + "[" + std::to_string(I) +
                                    "]' is set on one side of '" + text(Cond) +
                                    "' only");
  }
}

void Interpreter::execIf(const IfStmt *If) {
  if (clearsFlag(If)) // if (i >= n) valid = false;: Guards.cpp
    return;
  std::vector<Constraint> Cs;
  const Stmt *Then = If->getThen();
  if (std::optional<bool> Taken = constantCondition(If->getCond())) {
    exec(*Taken ? Then : If->getElse());
    return;
  }
  // A helper that returns under a condition the analysis cannot decide
  // has no one value.
  if (!Frames.empty() &&
      (containsReturn(Then) || containsReturn(If->getElse()))) {
    execHelperReturnIf(If);
    return;
  }
  // if (g >= 0 && g < n) a[k] = in[g]; else a[k] = 0.0f;  is the store
  // a[k] = g >= 0 && g < n ? in[g] : 0.0f (a tile load kept inside the array).
  if (const Stmt *Else = If->getElse()) {
    auto SingleStore = [](const Stmt *S) -> const BinaryOperator * {
      if (const auto *CS = dyn_cast<CompoundStmt>(S); CS && CS->size() == 1)
        S = CS->body_front();
      if (const auto *EWC = dyn_cast<ExprWithCleanups>(S))
        S = EWC->getSubExpr();
      const auto *B = dyn_cast<BinaryOperator>(S);
      return B && B->getOpcode() == BO_Assign &&
                     isa<ArraySubscriptExpr>(B->getLHS()->IgnoreParenImpCasts())
                 ? B
                 : nullptr;
    };
    // A global array's element is a boundary frame instead (below): the
    // value on the other side is stored where the domain ends.
    auto GlobalArray = [&](const BinaryOperator *S) {
      const auto *AS =
          dyn_cast<ArraySubscriptExpr>(S->getLHS()->IgnoreParenImpCasts());
      const auto *DRE =
          AS ? dyn_cast<DeclRefExpr>(AS->getBase()->IgnoreParenImpCasts())
             : nullptr;
      const ArrayInfo *I =
          DRE ? arrayOf(DRE->getDecl()->getName().str()) : nullptr;
      return I && I->Kind == ArrayKind::Global;
    };
    const BinaryOperator *A = SingleStore(Then), *B = SingleStore(Else);
    if (A && B && text(A->getLHS()) == text(B->getLHS()) && !GlobalArray(A))
      if (std::optional<Value> V =
              guardedValue(If->getCond(), A->getRHS(), B->getRHS())) {
        assign(A->getLHS(), A->getRHS(), BO_Assign, false, &*V);
        return;
      }
  }
  bool ThenReturns = false;
  if (isa<ReturnStmt>(Then))
    ThenReturns = true;
  if (const auto *CS = dyn_cast<CompoundStmt>(Then);
      CS && CS->size() == 1 && isa<ReturnStmt>(CS->body_front()))
    ThenReturns = true;
  if (ThenReturns && !If->getElse()) {
    // if (out of range) return;  constrains everything after it.
    if (guardConstraints(If->getCond(), /*Negate=*/true, Cs)) {
      Guards.insert(Guards.end(), Cs.begin(), Cs.end());
      return;
    }
    // if (a halo thread) return;: only the computing threads go on.
    if (selectsComputingThreads(threadCond(If->getCond())) == false) {
      ++HaloComputing;
      return;
    }
    partial(ReasonKind::ControlFlow, "an early return under a condition the analysis does not "
            "follow: " + text(If->getCond()));
    return;
  }
  ThreadCond TC = threadCond(If->getCond());
  ThreadCond NotTC;
  NotTC.K = ThreadCond::Not;
  NotTC.Args = {TC};
  NotTC.Text = "!(" + TC.Text + ")";
  auto ExecUnder = [&](const Stmt *S, const ThreadCond &C) {
    enterCond(C);
    exec(S);
    leaveCond();
  };
  // Both sides run from the variables' values before the if; after it they
  // hold what the sides agree on, or what mergeBranches makes of the rest.
  const auto EnvBefore = Env;
  const auto ElemsBefore = LocalElems;
  auto ExecBoth = [&](const std::function<void()> &RunThen,
                      const std::function<void()> &RunElse) {
    RunThen();
    const bool ThenReturned = std::exchange(Returned, false);
    auto EnvThen = std::move(Env);
    auto ElemsThen = std::move(LocalElems);
    Env = EnvBefore;
    LocalElems = ElemsBefore;
    RunElse();
    const bool ElseReturned = std::exchange(Returned, false);
    mergeBranches(If->getCond(), EnvBefore, EnvThen, ElemsThen);
    // The threads of one side stop, the others run on: what follows holds
    // for some threads only (a return that is no guard, or in a loop).
    if (ThenReturned && ElseReturned)
      Returned = true;
    else if (ThenReturned || ElseReturned)
      partial(ReasonKind::ControlFlow,
              "a return on one side of '" + text(If->getCond()) +
                  "' that the analysis does not take apart (in a loop or "
                  "before other statements)");
  };
  if (guardConstraints(If->getCond(), false, Cs)) {
    ExecBoth(
        [&] {
          size_t Saved = Guards.size();
          Guards.insert(Guards.end(), Cs.begin(), Cs.end());
          ExecUnder(Then, TC);
          Guards.resize(Saved);
        },
        [&] {
          if (const Stmt *Else = If->getElse())
            execFrameSide(Else, NotTC, If->getCond());
        });
    return;
  }
  // if (on the boundary) <values>; else <stencil>;: the else bounds the
  // domain (i == 0 || i == n - 1 negated is i != 0 && i != n - 1).
  if (If->getElse() && guardConstraints(If->getCond(), true, Cs)) {
    ExecBoth([&] { execFrameSide(Then, TC, If->getCond()); },
             [&] {
               size_t Saved = Guards.size();
               Guards.insert(Guards.end(), Cs.begin(), Cs.end());
               ExecUnder(If->getElse(), NotTC);
               Guards.resize(Saved);
             });
    return;
  }
  // A condition every thread decides alike.
  if (DPtr UC = uniformCondition(If->getCond());
      UC && !containsReturn(Then) && !containsReturn(If->getElse())) {
    execUniformIf(If, UC);
    return;
  }
  // A condition on loaded data that chooses between two values.
  if (readsData(If->getCond()) && !containsReturn(Then) &&
      !containsReturn(If->getElse())) {
    size_t ReadsBefore = Reads.size();
    if (DPtr DC = dataCondition(If->getCond())) {
      execUniformIf(If, DC, /*Data=*/true);
      return;
    }
    Reads.resize(ReadsBefore);
  }
  // With halo threads: a condition that lets exactly the computing threads
  // through, or exactly the others (HaloThreads.cpp). The halo side must
  // store nothing to global memory (the store check in assign says so).
  // Inside such a side already, the condition is another matter.
  if (HaloComputing == 0 && !containsReturn(Then) &&
      !(If->getElse() && containsReturn(If->getElse())))
    if (std::optional<bool> Sel = selectsComputingThreads(TC)) {
      auto Side = [&](const Stmt *S, const ThreadCond &C, bool Computes) {
        if (!S)
          return;
        HaloComputing += Computes;
        ExecUnder(S, C);
        HaloComputing -= Computes;
      };
      ExecBoth([&] { Side(Then, TC, *Sel); },
               [&] { Side(If->getElse(), NotTC, !*Sel); });
      return;
    }
  // A condition that is not a bound on the position.
  size_t Before = Writes.size();
  ExecBoth([&] { ExecUnder(Then, TC); },
           [&] {
             if (If->getElse())
               ExecUnder(If->getElse(), NotTC);
           });
  if (Writes.size() != Before) {
    if (readsData(If->getCond()))
      notStencil(ReasonKind::DataBranch, "a data-dependent branch decides the store");
    else
      partial(ReasonKind::Guard, "a store under the condition '" + text(If->getCond()) +
              "', which is not a bound on the grid position");
  }
}

void Interpreter::execLoopBody(const Stmt *Body) {
  const Stmt *Outer = std::exchange(LoopBody, Body);
  exec(Body);
  LoopBody = Outer;
}

/// if (c) continue; (or if (c) { continue; }) with no else: the if, or null.
const IfStmt *Interpreter::continuingIf(const Stmt *S) {
  const auto *If = dyn_cast<IfStmt>(S);
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return nullptr;
  const Stmt *Then = If->getThen();
  if (const auto *CS = dyn_cast<CompoundStmt>(Then); CS && CS->size() == 1)
    Then = CS->body_front();
  return isa<ContinueStmt>(Then) ? If : nullptr;
}

void Interpreter::execLoopStmt(const Stmt *S) {
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    execFor(F);
    return;
  }
  if (const auto *W = dyn_cast<WhileStmt>(S)) {
    execWhile(W->getCond(), W->getBody(), false);
    return;
  }
  const auto *D = cast<DoStmt>(S);
  // do { ... } while (0), the macro writer's statement: its body once.
  if (constantCondition(D->getCond()) == false) {
    execLoopBody(D->getBody());
    return;
  }
  execWhile(D->getCond(), D->getBody(), true);
}

/// if (c) { s...; return; } with no else and no other return: the if, or
/// null. A lone return is left to execIf, which takes it as a guard.
const IfStmt *Interpreter::returningIf(const Stmt *S) {
  const auto *If = dyn_cast<IfStmt>(S);
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return nullptr;
  const auto *CS = dyn_cast<CompoundStmt>(If->getThen());
  if (!CS || CS->size() < 2 || !isa<ReturnStmt>(CS->body_back()))
    return nullptr;
  for (const Stmt *C : CS->body())
    if (C != CS->body_back() && containsReturn(C))
      return nullptr;
  return If;
}

const IfStmt *Interpreter::withRestAsElse(const IfStmt *If,
                                          CompoundStmt::const_body_iterator From,
                                          CompoundStmt::const_body_iterator To) {
  const auto *Then = cast<CompoundStmt>(If->getThen());
  std::vector<Stmt *> ThenBody(Then->body_begin(), Then->body_end() - 1);
  std::vector<Stmt *> Rest(From, To);
  auto *NewThen = CompoundStmt::Create(Ctx, ThenBody, FPOptionsOverride(),
                                       Then->getLBracLoc(), Then->getRBracLoc());
  auto *NewElse = CompoundStmt::Create(Ctx, Rest, FPOptionsOverride(),
                                       If->getEndLoc(), If->getEndLoc());
  auto *Cond = const_cast<Expr *>(If->getCond());
  // if (i < 1 || i >= n - 1) { ...; return; } rest: rest runs where the
  // position is within bounds, if (!(c)) { rest } else { ... }.
  std::vector<Constraint> Cs;
  if (!guardConstraints(Cond, false, Cs) && guardConstraints(Cond, true, Cs)) {
    auto *Not = UnaryOperator::Create(Ctx, Cond, UO_LNot, Ctx.BoolTy,
                                      VK_PRValue, OK_Ordinary,
                                      Cond->getBeginLoc(), false,
                                      FPOptionsOverride());
    Negations.insert(Not);
    return IfStmt::Create(Ctx, If->getIfLoc(), IfStatementKind::Ordinary,
                          nullptr, nullptr, Not, If->getLParenLoc(),
                          If->getRParenLoc(), NewElse, If->getEndLoc(),
                          NewThen);
  }
  return IfStmt::Create(Ctx, If->getIfLoc(), IfStatementKind::Ordinary,
                        nullptr, nullptr, Cond, If->getLParenLoc(),
                        If->getRParenLoc(), NewThen, If->getEndLoc(), NewElse);
}

void Interpreter::exec(const Stmt *S) {
  if (!S || Returned || (!Frames.empty() && Frames.back().Returned) ||
      Slices.Skipped.count(S))
    return;
  if (++Steps > 200000) {
    partial(ReasonKind::Size, "the kernel is too large to interpret");
    Returned = true;
    return;
  }
  if (execPrefetch(S)) // a queue's load for later: LoopPrefetch.cpp
    return;
  if (const IfStmt *If = ternaryStoreAsIf(S)) {
    execIf(If);
    return;
  }
  if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    const bool CompoundTail = Tail;
    // In a loop's own block: if (c) continue; guards what follows.
    const bool Body = CS == std::exchange(LoopBody, nullptr);
    size_t ContinueFrom = Guards.size(), ContinueGuards = 0;
    for (auto It = CS->body_begin(), End = CS->body_end(); It != End; ++It) {
      Tail = CompoundTail && std::next(It) == End;
      if (const IfStmt *If = Body ? continuingIf(*It) : nullptr) {
        if (std::optional<bool> Taken = constantCondition(If->getCond())) {
          if (*Taken)
            break; // this iteration stops here
          continue;
        }
        std::vector<Constraint> Cs;
        if (!guardConstraints(If->getCond(), /*Negate=*/true, Cs)) {
          partial(ReasonKind::ControlFlow, "a continue under a condition the analysis does "
                  "not follow: " + text(If->getCond()));
          break;
        }
        if (ContinueGuards == 0)
          ContinueFrom = Guards.size();
        Guards.insert(Guards.begin() + ContinueFrom + ContinueGuards, Cs.begin(),
                      Cs.end());
        ContinueGuards += Cs.size();
        continue;
      }
      // if (c) { s; return; } rest  is  if (c) { s } else { rest } where
      // nothing runs after rest: the threads that return skip rest only.
      if (CompoundTail && Frames.empty())
        if (const IfStmt *If = returningIf(*It)) {
          Tail = true;
          execIf(withRestAsElse(If, std::next(It), End));
          break;
        }
      exec(*It);
    }
    if (ContinueGuards != 0 && Guards.size() >= ContinueFrom + ContinueGuards)
      Guards.erase(Guards.begin() + ContinueFrom,
                   Guards.begin() + ContinueFrom + ContinueGuards);
    Tail = CompoundTail;
    return;
  }
  if (const auto *L = dyn_cast<LabelStmt>(S)) {
    exec(L->getSubStmt()); // a label alone changes nothing (goto is refused)
    return;
  }
  if (isa<ContinueStmt>(S) || isa<BreakStmt>(S)) {
    partial(ReasonKind::ControlFlow, std::string("a ") +
            (isa<BreakStmt>(S) ? "break" : "continue") +
            " the analysis does not follow (it would skip the statements after it)");
    return;
  }
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD)
        continue;
      QualType T = VD->getType();
      std::string Name = VD->getName().str();
      if (T->isArrayType())
        noteArraySizeMacros(VD);
      if (VD->hasAttr<CUDASharedAttr>()) {
        ArrayInfo &A = Arrays[Name];
        A.Kind = ArrayKind::Shared;
        A.ElemType = scalarType(T, Ctx);
        A.SharedShape.clear();
        for (QualType E = T; const auto *CA = Ctx.getAsConstantArrayType(E);
             E = CA->getElementType())
          A.SharedShape.push_back(
              static_cast<int64_t>(CA->getSize().getZExtValue()));
        Env[VD] = Value::pointer(Name, Poly());
        continue;
      }
      if (T->isArrayType()) {
        Arrays[Name].Kind = ArrayKind::Local;
        Env[VD] = Value::pointer(Name, Poly());
        initLocalArray(VD);
        continue;
      }
      if (!VD->hasInit()) {
        Env[VD] = Value::unset("'" + Name + "' is used before it is set");
        continue;
      }
      const Expr *Init = VD->getInit();
      Env[VD] = convertedTo(eval(Init), T,
                            Init->IgnoreParenImpCasts()->getType(), Init);
      noteNamedCondition(VD);
    }
    return;
  }
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    execIf(If);
    return;
  }
  // Nothing in a loop body is the thread's last statement.
  if (isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S)) {
    const bool Was = Tail;
    Tail = false;
    execLoopStmt(S);
    Tail = Was;
    return;
  }
  if (const auto *AS = dyn_cast<AttributedStmt>(S)) {
    // #pragma unroll and [[likely]] do not change what is computed.
    exec(AS->getSubStmt());
    return;
  }
  if (const auto *R = dyn_cast<ReturnStmt>(S)) {
    // In a helper the analysis runs inline, the helper's value; in the
    // kernel, the thread's end.
    if (!Frames.empty()) {
      // The value, converted to the helper's return type (a float helper
      // returning a double expression rounds it), is evaluated before the
      // frame is touched: helpers it runs can move Frames' elements.
      const Expr *RV = R->getRetValue();
      Value V = RV ? eval(RV) : Value::unknown("a helper returns no value");
      if (RV)
        V = convertedTo(V, Frames.back().ReturnType,
                        RV->IgnoreParenImpCasts()->getType(), nullptr);
      Frames.back().Result = std::move(V);
      Frames.back().Returned = true;
      return;
    }
    Returned = true;
    return;
  }
  if (const auto *Sw = dyn_cast<SwitchStmt>(S)) {
    auto It = SwitchChains.find(Sw);
    if (It == SwitchChains.end()) {
      std::string Why;
      const Stmt *Chain = switchAsIfs(Sw, Why);
      It = SwitchChains.emplace(Sw, std::make_pair(Chain, Why)).first;
    }
    if (const Stmt *Chain = It->second.first) {
      exec(Chain);
      return;
    }
    partial(ReasonKind::ControlFlow,
            "a switch the analysis does not follow: " + It->second.second);
    return;
  }
  if (isa<GotoStmt>(S)) {
    partial(ReasonKind::ControlFlow, "control flow the analysis does not follow (goto)");
    return;
  }
  if (const auto *E = dyn_cast<Expr>(S)) {
    eval(E);
    return;
  }
}

bool hasOutsideEffect(StringRef N) {
  return N == "printf" || N == "vprintf" || N == "__assertfail" ||
         N == "__assert_fail" || N == "malloc" || N == "free" ||
         N == "__trap" || N == "__brkpt";
}

/// Calls with an effect outside the arrays in \p S or a helper it calls
/// (to a depth of \p Depth), by name, each once.
static void findOutsideEffects(const Stmt *S, unsigned Depth,
                               std::set<const FunctionDecl *> &Seen,
                               std::vector<std::string> &Out);

/// One call's effect outside the arrays, or its helper's.
static void outsideEffectOf(const FunctionDecl &FD, unsigned Depth,
                            std::set<const FunctionDecl *> &Seen,
                            std::vector<std::string> &Out) {
  const std::string N = FD.getName().str();
  if (hasOutsideEffect(N)) {
    if (std::find(Out.begin(), Out.end(), N) == Out.end())
      Out.push_back(N);
  } else if (const FunctionDecl *Def = nullptr;
             Depth > 0 && FD.hasBody(Def) && Def && Seen.insert(Def).second) {
    findOutsideEffects(Def->getBody(), Depth - 1, Seen, Out);
  }
}

static void findOutsideEffects(const Stmt *S, unsigned Depth,
                               std::set<const FunctionDecl *> &Seen,
                               std::vector<std::string> &Out) {
  if (!S)
    return;
  if (const auto *C = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *FD = C->getDirectCallee())
      outsideEffectOf(*FD, Depth, Seen, Out);
  for (const Stmt *Child : S->children())
    findOutsideEffects(Child, Depth, Seen, Out);
}

/// Atomics and warp shuffles make a kernel a reduction or a scatter
/// wherever they are, also in code the interpreter does not reach, but for
/// the parts a slicer accounts for (Slices.h). The same walk records the
/// calls with an effect outside the arrays (DeviceCalls), also in the
/// helpers the kernel calls (to a depth of 4).
void Interpreter::scanForNonStencilCalls(const Stmt *S) {
  if (!S || Slices.Skipped.count(S))
    return;
  if (const auto *C = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *FD = C->getDirectCallee()) {
      outsideEffectOf(*FD, 4, HelpersScanned, DeviceCalls);
      StringRef N = FD->getName();
      if (isAtomicName(N))
        notStencil(ReasonKind::Reduction, "atomic update (" + N.str() +
                   "): a scatter or reduction, not a stencil");
      if (N.starts_with("__shfl"))
        notStencil(ReasonKind::Reduction, "warp shuffles (" + N.str() + "): a reduction or "
                   "exchange between threads");
    }
  for (const Stmt *Child : S->children())
    scanForNonStencilCalls(Child);
}

KernelAnalysis Interpreter::run() {
  BodiesRun.push_back(Kernel.getSourceRange());
  for (const ParmVarDecl *P : Kernel.parameters()) {
    noteArraySizeMacros(P);
    QualType T = P->getType();
    if (T->isPointerType() || T->isArrayType()) {
      ArrayInfo &A = Arrays[P->getName().str()];
      A.Kind = ArrayKind::Global;
      A.ElemType = scalarType(T, Ctx);
      A.Restrict = T.isRestrictQualified();
      if (const auto *PT = T->getAs<PointerType>())
        A.Const = PT->getPointeeType().isConstQualified();
    }
  }
  scanForNonStencilCalls(Kernel.getBody());
  seedAssignedParameters();
  Tail = true;
  exec(Kernel.getBody());
  if (std::string Why = coarseMarkerLeft(CoarseLoops, Writes, Reads); !Why.empty())
    partial(ReasonKind::LoopNotFollowed, Why);
  return finish();
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

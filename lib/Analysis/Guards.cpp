//===- Guards.cpp - Conditions: guards and the iteration domain -------------===//

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

/// Position bounds implied by Cond (or by its negation): a conjunction of
/// comparisons of positions, each kept as D OP 0.
bool Interpreter::positionGuards(const Expr *Cond, bool Negate,
                                 std::vector<PosGuard> &Out) {
  return conjunction(Cond, Negate, [&](const BinaryOperator *B, bool N) {
    std::optional<Poly> D = comparedDifference(B);
    if (!D || !moves(Value::index(*D)) || D->mentionsPrefix(ClampPrefix))
      return false;
    PosGuard G;
    G.D = *D;
    G.Op = N ? BinaryOperator::negateComparisonOp(B->getOpcode())
             : B->getOpcode();
    G.Text = text(B);
    Out.push_back(std::move(G));
    return true;
  });
}

std::optional<Value> Interpreter::guardedLoad(const ConditionalOperator *CO) {
  if (!CO->getType()->isRealFloatingType())
    return std::nullopt;
  return guardedValue(CO->getCond(), CO->getTrueExpr(), CO->getFalseExpr());
}

bool isLiteralFill(const Expr *X) {
  // Explicit conversions of a literal are the literal in the value's type:
  // T(0) in a template, (float)0, static_cast<real>(0); T() is zero.
  X = X->IgnoreParenCasts();
  if (isa<CXXScalarValueInitExpr>(X))
    return true;
  if (const auto *U = dyn_cast<UnaryOperator>(X);
      U && U->getOpcode() == UO_Minus)
    X = U->getSubExpr()->IgnoreParenCasts();
  return isa<FloatingLiteral>(X) || isa<IntegerLiteral>(X);
}

std::optional<Value> Interpreter::guardedValue(const Expr *Cond,
                                               const Expr *TrueE,
                                               const Expr *FalseE) {
  if (readsData(Cond))
    return std::nullopt;
  const bool FillTrue = isLiteralFill(TrueE);
  if (FillTrue == isLiteralFill(FalseE))
    return std::nullopt;
  std::vector<PosGuard> Gs;
  if (!positionGuards(Cond, /*Negate=*/FillTrue, Gs))
    return std::nullopt;
  const Expr *VE = FillTrue ? FalseE : TrueE;
  Value V = eval(VE);
  DPtr D = V.K == Value::Data ? V.D : nullptr;
  // The bounds travel with the global reads, which make the IR check them
  // (guardedReadsHold): a value with none (i > 0 ? a : 0.0f) keeps its fill.
  bool Guarded = false;
  markZeroFill(Gs, D, isZeroFill(FillTrue ? TrueE : FalseE));
  if (D)
    D = withInBounds(D, Gs, &Guarded);
  if (!Guarded)
    return std::nullopt;
  return Value::data(D);
}

std::optional<Value> Interpreter::guardedAccumulation(const Expr *Cond,
                                                      const Value &Then,
                                                      const Value &Else) {
  // One side is the other plus (or minus) a term: the term's global reads
  // carry the test, as a guarded load's do.
  auto Guarded = [&](const Value &Grown, const Value &Base,
                     bool GrownThen) -> std::optional<Value> {
    if (Grown.K != Value::Data || !Grown.D || Grown.D->K != DNode::Binary ||
        (Grown.D->Op != "+" && Grown.D->Op != "-") ||
        Grown.D->Args.size() != 2 || Base.K != Value::Data || !Base.D)
      return std::nullopt;
    const DPtr &Old = Grown.D->Args[0];
    if (!Old || (Old != Base.D && !sameTree(*Old, *Base.D)))
      return std::nullopt;
    std::vector<PosGuard> Gs;
    if (!positionGuards(Cond, /*Negate=*/!GrownThen, Gs))
      return std::nullopt;
    bool Any = false;
    DPtr Term = withInBounds(Grown.D->Args[1], Gs, &Any);
    if (!Any)
      return std::nullopt;
    auto N = std::make_shared<DNode>(*Grown.D);
    N->Args = {Base.D, Term};
    return Value::data(N);
  };
  if (std::optional<Value> V = Guarded(Then, Else, /*GrownThen=*/true))
    return V;
  return Guarded(Else, Then, /*GrownThen=*/false);
}

DPtr withInBounds(const DPtr &N, const std::vector<PosGuard> &Gs,
                  bool *Guarded) {
  // A copy: the value may be shared with other uses that are not guarded.
  auto C = std::make_shared<DNode>(*N);
  if (C->K == DNode::Read && !C->Shared) {
    C->InBounds.insert(C->InBounds.end(), Gs.begin(), Gs.end());
    if (Guarded)
      *Guarded = true;
  }
  for (DPtr &A : C->Args)
    A = withInBounds(A, Gs, Guarded);
  return C;
}

bool eachGlobalRead(const std::vector<Write> &Writes,
                    const std::function<bool(const DNode &)> &Fn) {
  std::function<bool(const DPtr &)> Walk = [&](const DPtr &D) {
    if (!D)
      return true;
    if (D->K == DNode::Read && !D->Shared && !Fn(*D))
      return false;
    for (const DPtr &A : D->Args)
      if (!Walk(A))
        return false;
    return true;
  };
  for (const Write &W : Writes)
    if (!Walk(W.Value))
      return false;
  return true;
}

std::string Interpreter::guardedReadsHold(
    const std::vector<std::string> &AxisSyms,
    const std::vector<std::optional<Poly>> &TLo,
    const std::vector<std::optional<Poly>> &THi,
    std::vector<ir::Assumption> &Checked) {
  // E >= 0 at every point of the domain, E affine in the axis symbols: it
  // is least at a corner of the box [TLo, THi), where each axis with a
  // positive coefficient is at its lower end and each with a negative one
  // at its upper end. With Conds, a coefficient that is a parameter
  // expression is taken as non-negative and E at that corner need not be
  // a number: both go to Conds as conditions over the parameters (each
  // >= 0) that the launcher checks (TeaLeaf's `if (THARR2D(-1, 0, 0) > 0)`,
  // flat index (column - 1) + row * width > 0, holds on the whole domain
  // when it holds at its first point). Where it holds for every launch,
  // Conds stays empty.
  auto Everywhere = [&](const Poly &E, std::vector<Poly> *Conds) {
    Poly Corner = E;
    std::vector<Poly> Signs;
    for (size_t A = 0; A < AxisSyms.size(); ++A) {
      if (!E.mentions(AxisSyms[A]))
        continue;
      std::optional<Poly> C = E.coefficientOf(AxisSyms[A]);
      if (!C)
        return false;
      for (const std::string &S : AxisSyms)
        if (C->mentions(S))
          return false; // Not affine: a product of two axes.
      std::optional<Poly> End;
      if (std::optional<int64_t> K = numberOf(*C)) {
        if (*K >= 0)
          End = TLo[A];
        else if (THi[A])
          End = *THi[A] - Poly::constant(1);
      } else if (Conds && uniformPoly(*C)) {
        End = TLo[A];
        Signs.push_back(*C);
      }
      if (!End)
        return false;
      Corner = Corner.substitute(AxisSyms[A], *End);
    }
    if (Signs.empty() && nonNegative(Corner))
      return true;
    if (!Conds || numberOf(Corner) || !uniformPoly(Corner))
      return false;
    Conds->push_back(Corner);
    Conds->insert(Conds->end(), Signs.begin(), Signs.end());
    return true;
  };
  auto Holds = [&](const PosGuard &G, std::vector<Poly> *Conds) {
    const Poly &D = G.D;
    const Poly One = Poly::constant(1);
    switch (G.Op) {
    case BO_GE: return Everywhere(D, Conds);
    case BO_GT: return Everywhere(D - One, Conds);
    case BO_LE: return Everywhere(-D, Conds);
    case BO_LT: return Everywhere(-D - One, Conds);
    case BO_NE:
      return Everywhere(D - One, nullptr) || Everywhere(-D - One, nullptr) ||
             Everywhere(D - One, Conds) || Everywhere(-D - One, Conds);
    default: return false;
    }
  };
  std::string Why;
  std::vector<ir::Assumption> Found;
  std::function<void(const DPtr &)> Walk = [&](const DPtr &N) {
    if (!N || !Why.empty())
      return;
    if (N->K == DNode::Read)
      for (const PosGuard &G : N->InBounds) {
        // A tile's load takes no condition: the tile must hold every
        // element the domain's points read at every launch.
        std::vector<Poly> Conds;
        if (Holds(G, G.Tile.empty() ? &Conds : nullptr)) {
          if (Conds.empty())
            continue; // Holds for every launch.
          std::string Expr;
          for (const Poly &C : Conds)
            Expr += (Expr.empty() ? "" : " && ") + ("(" + C.wideStr() + ") >= 0");
          if (std::none_of(Found.begin(), Found.end(),
                           [&](const ir::Assumption &A) { return A.Expr == Expr; })) {
            ir::Assumption H;
            H.Kind = ir::Assumption::Holds;
            H.Expr = Expr;
            H.Value = "1";
            H.Why = "the load of '" + N->Name + "' guarded by " + G.Text +
                    " is taken at every point of the domain where this "
                    "holds (the guard at the domain's corner); elsewhere "
                    "the original runs";
            Found.push_back(std::move(H));
          }
          continue;
        }
        Why = G.Tile.empty()
                  ? "the load of '" + N->Name + "' guarded by " + G.Text +
                        " takes its fill value at points of the domain (a "
                        "boundary value the IR does not state)"
                  : "the __shared__ array '" + G.Tile + "' is loaded from '" +
                        N->Name + "' only where " + G.Text +
                        ", which does not hold for every element the "
                        "domain's points read";
        return;
      }
    for (const DPtr &A : N->Args)
      Walk(A);
  };
  for (const Write &W : Writes)
    Walk(W.Value);
  if (Why.empty())
    Checked.insert(Checked.end(), Found.begin(), Found.end());
  return Why;
}

// ---------------------------------------------------------------------------
// Conditions
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// Named conditions
// ---------------------------------------------------------------------------

namespace {
/// Whether Body only reads VD: every use of it is a load (an lvalue to
/// rvalue conversion), so nothing assigns it, steps it, takes its address
/// or binds a reference to it.
bool onlyRead(const Stmt *S, const VarDecl *VD) {
  if (!S)
    return true;
  if (const auto *IC = dyn_cast<ImplicitCastExpr>(S);
      IC && IC->getCastKind() == CK_LValueToRValue)
    if (const auto *DR =
            dyn_cast<DeclRefExpr>(IC->getSubExpr()->IgnoreParens());
        DR && DR->getDecl() == VD)
      return true;
  if (const auto *DR = dyn_cast<DeclRefExpr>(S); DR && DR->getDecl() == VD)
    return false;
  for (const Stmt *C : S->children())
    if (!onlyRead(C, VD))
      return false;
  return true;
}

/// `VD = false;` (or 0), alone or in braces.
bool isClear(const Stmt *S, const VarDecl *VD) {
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(S); CS && CS->size() == 1)
    S = CS->body_front();
  const auto *B = dyn_cast_or_null<BinaryOperator>(S);
  const auto *DR =
      B && B->getOpcode() == BO_Assign
          ? dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParenImpCasts())
          : nullptr;
  if (!DR || DR->getDecl() != VD)
    return false;
  const Expr *R = B->getRHS()->IgnoreParenImpCasts();
  if (const auto *L = dyn_cast<CXXBoolLiteralExpr>(R))
    return !L->getValue();
  const auto *I = dyn_cast<IntegerLiteral>(R);
  return I && I->getValue() == 0;
}

/// The ifs without else after VD's declaration, in its block, whose only
/// statement clears it (if (i >= n) valid = false;), where everything else
/// only reads it: none (false) where another statement writes it or one
/// of them sits elsewhere (in a branch or loop of its own, a clear would
/// hold for some threads of that branch only).
bool clearingIfs(const FunctionDecl *Fn, const VarDecl *VD,
                 std::set<const IfStmt *> &Ifs) {
  const CompoundStmt *Block = nullptr;
  std::function<void(const Stmt *)> Find = [&](const Stmt *S) {
    if (!S || Block)
      return;
    if (const auto *CS = dyn_cast<CompoundStmt>(S))
      for (const Stmt *C : CS->body())
        if (const auto *DS = dyn_cast<DeclStmt>(C))
          for (const Decl *D : DS->decls())
            if (D == VD)
              Block = CS;
    for (const Stmt *C : S->children())
      Find(C);
  };
  Find(Fn->getBody());
  if (!Block)
    return false;
  for (const Stmt *C : Block->body())
    if (const auto *If = dyn_cast<IfStmt>(C);
        If && !If->getElse() && !If->getInit() &&
        !If->getConditionVariable() && isClear(If->getThen(), VD))
      Ifs.insert(If);
  std::function<bool(const Stmt *)> Rest = [&](const Stmt *S) {
    if (const auto *If = dyn_cast_or_null<IfStmt>(S); If && Ifs.count(If))
      return onlyRead(If->getCond(), VD);
    if (!S || onlyRead(S, VD))
      return true;
    if (const auto *DR = dyn_cast<DeclRefExpr>(S); DR && DR->getDecl() == VD)
      return false;
    for (const Stmt *C : S->children())
      if (!Rest(C))
        return false;
    return true;
  };
  return !Ifs.empty() && Rest(Fn->getBody());
}

/// Whether every local a named condition reads still holds what it held.
bool inputsHold(const std::vector<std::pair<const VarDecl *, Value>> &Inputs,
                const std::map<const VarDecl *, Value> &Env) {
  return std::all_of(Inputs.begin(), Inputs.end(), [&](const auto &In) {
    auto Now = Env.find(In.first);
    return Now != Env.end() && sameValue(Now->second, In.second);
  });
}

void localsReadBy(const Stmt *S, std::vector<const VarDecl *> &Out) {
  if (!S)
    return;
  if (const auto *DR = dyn_cast<DeclRefExpr>(S))
    if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
        VD && VD->isLocalVarDecl() &&
        std::find(Out.begin(), Out.end(), VD) == Out.end())
      Out.push_back(VD);
  for (const Stmt *C : S->children())
    localsReadBy(C, Out);
}
} // namespace

void Interpreter::noteNamedCondition(const VarDecl *VD) {
  NamedConditions.erase(VD);
  if (!VD->getType()->isBooleanType() || !VD->hasInit() ||
      !VD->isLocalVarDecl())
    return;
  const auto *Fn = dyn_cast<FunctionDecl>(VD->getParentFunctionOrMethod());
  NamedCondition NC;
  if (!VD->getType().isConstQualified() &&
      (!Fn || (!onlyRead(Fn->getBody(), VD) &&
               !clearingIfs(Fn, VD, NC.ClearIfs))))
    return;
  NC.Init = VD->getInit();
  std::vector<const VarDecl *> Locals;
  localsReadBy(NC.Init, Locals);
  for (const VarDecl *L : Locals) {
    auto It = Env.find(L);
    if (It == Env.end())
      return;
    NC.Inputs.push_back({L, It->second});
  }
  NamedConditions[VD] = std::move(NC);
}

/// A clearing if of a flag (clearingIfs): the test kept in the flag's
/// named condition, where it bounds the position (a guard); the flag is no
/// named condition any more where the test is something else, and the if
/// runs as any other.
bool Interpreter::clearsFlag(const IfStmt *If) {
  for (auto &[VD, NC] : NamedConditions) {
    if (!NC.ClearIfs.count(If))
      continue;
    const VarDecl *Flag = VD;
    std::vector<Constraint> Cs;
    std::vector<const VarDecl *> Locals;
    localsReadBy(If->getCond(), Locals);
    const size_t ReadsBefore = Reads.size(); // a test on data reads
    bool Kept = guardConstraints(If->getCond(), true, Cs);
    Reads.resize(ReadsBefore);
    for (const VarDecl *L : Locals)
      if (auto It = Env.find(L); Kept && It != Env.end())
        NC.Inputs.push_back({L, It->second});
      else
        Kept = false;
    if (!Kept) {
      NamedConditions.erase(Flag);
      return false;
    }
    NC.Clears.push_back(If->getCond());
    Env[Flag] = Value::unknown("'" + Flag->getName().str() +
                               "' is cleared under a condition, and used "
                               "as a value");
    return true;
  }
  return false;
}

const Expr *Interpreter::namedCondition(const Expr *E) const {
  const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  if (!DR)
    return E;
  const auto *VD = dyn_cast<VarDecl>(DR->getDecl());
  auto It = VD ? NamedConditions.find(VD) : NamedConditions.end();
  if (It == NamedConditions.end() || !It->second.Clears.empty())
    return E;
  // bool ok = i < n; ++i; if (ok) ... tests the i of before: the name
  // stands for its initializer only while every input is unchanged.
  if (!inputsHold(It->second.Inputs, Env))
    return E;
  return It->second.Init->IgnoreParenImpCasts();
}

/// Whether a condition compares values loaded from memory.
bool Interpreter::readsData(const Expr *Cond) {
  const Expr *E = namedCondition(Cond->IgnoreParenImpCasts());
  if (std::optional<bool> R = inHelperCondition(
          E, [&](const Expr *Ret) { return readsData(Ret); }))
    return *R;
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    return readsData(U->getSubExpr());
  const auto *B = dyn_cast<BinaryOperator>(E);
  if (!B)
    return false;
  if (B->isLogicalOp())
    return readsData(B->getLHS()) || readsData(B->getRHS());
  if (!B->isComparisonOp())
    return false;
  size_t ReadsBefore = Reads.size();
  Value L = eval(B->getLHS()), R = eval(B->getRHS());
  Reads.resize(ReadsBefore);
  return L.K == Value::Data || R.K == Value::Data;
}

/// Bounds from "a OP b" on index values, as constraints on one symbol.
bool Interpreter::comparison(const Expr *E, bool Negate,
                             std::vector<Constraint> &Out) {
  const auto *B = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  if (!B || !B->isComparisonOp())
    return false;
  Value L = eval(B->getLHS()), R = eval(B->getRHS());
  if (L.K != Value::Index || R.K != Value::Index)
    return false;
  BinaryOperatorKind Op = B->getOpcode();
  if (Negate) {
    switch (Op) {
    case BO_LT: Op = BO_GE; break;
    case BO_LE: Op = BO_GT; break;
    case BO_GT: Op = BO_LE; break;
    case BO_GE: Op = BO_LT; break;
    case BO_EQ: Op = BO_NE; break;
    case BO_NE: Op = BO_EQ; break;
    default: break;
    }
  }
  // An order compared in an unsigned type: a side that is negative as a
  // number wraps to a huge value. Written X < Y (or X <= Y): where X may be
  // negative (i - 1 at i == 0), it holds only where X >= 0 too, which is
  // stated; where Y may be negative, it also holds where Y < 0, a
  // disjunction no constraint states, and nothing is concluded. (Sizes
  // without a position in them are taken as not negative, as everywhere.)
  if (B->getLHS()->getType()->isUnsignedIntegerType() && Op != BO_EQ &&
      Op != BO_NE) {
    Poly X = L.Idx, Y = R.Idx;
    if (Op == BO_GT || Op == BO_GE) {
      std::swap(X, Y);
      Op = Op == BO_GT ? BO_LT : BO_LE;
    }
    if (mayWrapNegative(Y))
      return false;
    if (mayWrapNegative(X)) {
      std::vector<Constraint> NonNegative;
      if (!orderConstraint(X, BO_GE, NonNegative))
        return false;
      if (!orderConstraint(X - Y, Op, Out))
        return false;
      Out.insert(Out.end(), NonNegative.begin(), NonNegative.end());
      return true;
    }
    return orderConstraint(X - Y, Op, Out);
  }
  return orderConstraint(L.Idx - R.Idx, Op, Out);
}

/// Whether \p P, a position-dependent index, can be negative as a number:
/// it has a position in it and a term with a negative coefficient.
bool Interpreter::mayWrapNegative(const Poly &P) {
  if (!P.mentionsPrefix("@") && !P.mentionsPrefix("mod[") &&
      !P.mentionsPrefix("div["))
    return false;
  for (const auto &[M, C] : P.terms())
    if (C < 0)
      return true;
  return false;
}

/// D OP 0 as a constraint on the one position symbol D moves with.
bool Interpreter::orderConstraint(const Poly &D, BinaryOperatorKind Op,
                                  std::vector<Constraint> &Out) {
  // Normalise to D OP 0, then to Sym (<|>=) Bound.
  std::string Sym;
  int64_t Coef = 0;
  for (const auto &[M, C] : D.terms()) {
    if (M.size() == 1 && (M[0][0] == '@' || M[0].rfind("mod[", 0) == 0 ||
                          M[0].rfind("div[", 0) == 0)) {
      if (!Sym.empty() && Sym != M[0])
        return false;
      Sym = M[0];
      Coef = C;
    }
  }
  if (Sym.empty() || (Coef != 1 && Coef != -1))
    return false;
  if (D.without({Sym}).mentionsPrefix("@"))
    return false;
  // Coef*Sym + Rest OP 0.
  Poly Rest = D.without({Sym});
  if (Coef == -1) {
    // -Sym + Rest OP 0  <=>  Sym - Rest OP' 0 with OP mirrored.
    Rest = -Rest;
    switch (Op) {
    case BO_LT: Op = BO_GT; break;
    case BO_LE: Op = BO_GE; break;
    case BO_GT: Op = BO_LT; break;
    case BO_GE: Op = BO_LE; break;
    default: break;
    }
  }
  // Sym + Rest OP 0  <=>  Sym OP -Rest.
  Poly Bound = -Rest;
  switch (Op) {
  case BO_LT:
    Out.push_back({Sym, true, Bound});
    return true;
  case BO_LE:
    Out.push_back({Sym, true, Bound + Poly::constant(1)});
    return true;
  case BO_GE:
    Out.push_back({Sym, false, Bound});
    return true;
  case BO_GT:
    Out.push_back({Sym, false, Bound + Poly::constant(1)});
    return true;
  case BO_NE: {
    Constraint C{Sym, false, Bound};
    C.NotEqual = true;
    Out.push_back(C);
    return true;
  }
  default:
    return false;
  }
}

/// Constraints implied by Cond being true (or false when Negate): a
/// conjunction of comparisons (or, negated, a disjunction).
bool Interpreter::guardConstraints(const Expr *Cond, bool Negate,
                                   std::vector<Constraint> &Out) {
  return conjunction(Cond, Negate, [&](const BinaryOperator *B, bool N) {
    return comparison(B, N, Out);
  });
}

/// Leaf(comparison, negated) for every comparison of Cond, a conjunction
/// (or, negated, a disjunction) under any number of !; false when Cond is
/// not one or a Leaf is false.
bool Interpreter::conjunction(
    const Expr *Cond, bool Negate,
    const std::function<bool(const BinaryOperator *, bool)> &Leaf) {
  const Expr *E = namedCondition(Cond->IgnoreParenImpCasts());
  // A flag cleared by tests c (bool ok = init; if (c) ok = false;) is init
  // && !c && ...; negated, a disjunction: only c where init is true and
  // one test cleared it. Its inputs must hold what they held.
  if (const auto *DR = dyn_cast<DeclRefExpr>(E))
    if (auto It = NamedConditions.find(dyn_cast<VarDecl>(DR->getDecl()));
        It != NamedConditions.end() && !It->second.Clears.empty()) {
      const NamedCondition &NC = It->second;
      if (!inputsHold(NC.Inputs, Env))
        return false;
      const auto *T = dyn_cast<CXXBoolLiteralExpr>(NC.Init->IgnoreParenImpCasts());
      const bool InitTrue = T && T->getValue();
      if (Negate)
        return InitTrue && NC.Clears.size() == 1 &&
               conjunction(NC.Clears.front(), false, Leaf);
      if (!InitTrue && !conjunction(NC.Init, false, Leaf))
        return false;
      return std::all_of(NC.Clears.begin(), NC.Clears.end(), [&](const Expr *C) {
        return conjunction(C, true, Leaf);
      });
    }
  if (std::optional<bool> R = inHelperCondition(E, [&](const Expr *Ret) {
        return conjunction(Ret, Negate, Leaf);
      }))
    return *R;
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_LNot)
    return conjunction(U->getSubExpr(), !Negate, Leaf);
  const auto *B = dyn_cast<BinaryOperator>(E);
  if (!B)
    return false;
  if ((B->getOpcode() == BO_LAnd && !Negate) ||
      (B->getOpcode() == BO_LOr && Negate))
    return conjunction(B->getLHS(), Negate, Leaf) &&
           conjunction(B->getRHS(), Negate, Leaf);
  return B->isComparisonOp() && Leaf(B, Negate);
}

std::optional<bool> Interpreter::inHelperCondition(
    const Expr *E, const std::function<bool(const Expr *)> &Fn) {
  const auto *C = dyn_cast<CallExpr>(E->IgnoreParenImpCasts());
  std::string Why;
  std::optional<InlineHelper> H = C ? inlineHelper(C, Why) : std::nullopt;
  if (!H || !H->Def->getReturnType()->isBooleanType())
    return std::nullopt;
  const auto *Body = dyn_cast<CompoundStmt>(H->Def->getBody());
  const auto *Ret = Body && Body->size() == 1
                        ? dyn_cast<ReturnStmt>(Body->body_front())
                        : nullptr;
  if (!Ret || !Ret->getRetValue())
    return std::nullopt;
  HelperScope Scope(*this, C, *H);
  return Fn(Ret->getRetValue());
}

void keepTightest(std::vector<Poly> &Bounds, bool Upper) {
  std::vector<Poly> Kept;
  for (const Poly &B : Bounds) {
    auto Same = std::find_if(Kept.begin(), Kept.end(), [&](const Poly &K) {
      return (B - K).constantValue().has_value();
    });
    if (Same == Kept.end()) {
      Kept.push_back(B);
      continue;
    }
    const int64_t D = *(B - *Same).constantValue();
    if (Upper ? D < 0 : D > 0)
      *Same = B;
  }
  Bounds = std::move(Kept);
}

/// The bounds \p Guards put on the symbol \p S, the tightest of each kind
/// where they differ by a number (i < n && i < n - 1, an outer guard and
/// the update's own), and the points they exclude (i != v).
void boundsOn(const std::vector<Constraint> &Guards, const std::string &S,
              std::vector<Poly> &Lowers, std::vector<Poly> &Uppers,
              std::vector<Poly> &Excluded) {
  for (const Constraint &C : Guards) {
    if (C.Symbol != S)
      continue;
    if (C.NotEqual)
      Excluded.push_back(C.Bound);
    else
      (C.Upper ? Uppers : Lowers).push_back(C.Bound);
  }
  keepTightest(Lowers, false);
  keepTightest(Uppers, true);
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

//===- TemporalBlocking.cpp - Kernels that run several time steps ---------===//
//
// Fused steps are found by a flow-sensitive walk of the kernel's body that
// gives every floating-point value a depth: 0 for a load from global
// memory, d + 1 for the result of an update whose deepest input has depth
// d. An update is an assignment whose right-hand side combines two or more
// array values with arithmetic; a copy or a scaling keeps its input's
// depth. Values move through local variables, __shared__ arrays (and local
// pointers into them) and device functions that return one of their
// arguments' elements. Branches merge by the larger depth; a loop's body is
// walked until the depths stop changing (a loop that rotates registers
// settles after a round or two), else nothing is concluded.
//
// Every step must apply the updates of the first (the same operators,
// constants and reads, whatever the variables are called; a step may sum
// several partial updates, one per plane): a kernel that computes fluxes
// and then their differences has two stages of different shapes in one
// time step, and is not reported.
//
//===----------------------------------------------------------------------===//

#include "TemporalBlocking.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/Attr.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

using namespace clang;

namespace forgestencil {
namespace analysis {
namespace detail {
namespace {

/// A value: how many updates produced it.
struct Val {
  int Depth = -1; ///< -1: no array value (a constant, an index).
  bool operator==(const Val &O) const { return Depth == O.Depth; }
};

Val deeper(const Val &A, const Val &B) { return B.Depth > A.Depth ? B : A; }

struct State {
  std::map<const VarDecl *, Val> Vars;
  std::set<const VarDecl *> SharedPointers;
  Val Shared; ///< The value last stored to __shared__ memory.
  bool operator==(const State &O) const {
    return Vars == O.Vars && SharedPointers == O.SharedPointers &&
           Shared == O.Shared;
  }
};

State merge(const State &A, const State &B) {
  State M = A;
  for (const auto &[V, X] : B.Vars) {
    auto [It, New] = M.Vars.emplace(V, X);
    if (!New)
      It->second = deeper(It->second, X);
  }
  M.SharedPointers.insert(B.SharedPointers.begin(), B.SharedPointers.end());
  M.Shared = deeper(A.Shared, B.Shared);
  return M;
}

const Expr *strip(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *C = dyn_cast<ExplicitCastExpr>(E))
      E = C->getSubExpr();
    else
      return E;
  }
  return E;
}

bool isFalseConstant(const Expr *E, const ASTContext &Ctx) {
  if (!E || E->isValueDependent())
    return false;
  Expr::EvalResult R;
  return E->EvaluateAsInt(R, Ctx) && R.Val.getInt().isZero();
}

class FusedSteps {
public:
  explicit FusedSteps(ASTContext &Ctx) : Ctx(Ctx) {}

  /// The depth of the deepest value stored to global memory by one chain
  /// of same-shaped updates; 0 when there is none or nothing can be said.
  unsigned run(const Stmt *Body) {
    State S;
    exec(Body, S);
    if (GaveUp || StoredDepth < 2)
      return 0;
    // Each step applies the updates of the first: a step of other shapes
    // is another stage of one time step.
    const std::set<std::string> &First = ShapesAt[1];
    for (int D = 2; D <= StoredDepth; ++D)
      for (const std::string &Shape : ShapesAt[D])
        if (!First.count(Shape))
          return 0;
    return static_cast<unsigned>(StoredDepth);
  }

private:
  ASTContext &Ctx;
  int StoredDepth = -1;
  bool GaveUp = false;
  /// The shapes of the updates that produce values of each depth.
  std::map<int, std::set<std::string>> ShapesAt;
  unsigned Steps = 0;
  static constexpr unsigned MaxSteps = 400000;

  bool refersToShared(const Expr *E, const State &S) const {
    E = strip(E);
    if (!E)
      return false;
    if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
      const auto *V = dyn_cast<VarDecl>(D->getDecl());
      return V && (V->hasAttr<CUDASharedAttr>() || S.SharedPointers.count(V));
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E))
      return refersToShared(U->getSubExpr(), S);
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
      return refersToShared(A->getBase(), S);
    if (const auto *B = dyn_cast<BinaryOperator>(E))
      return B->isAdditiveOp() &&
             (refersToShared(B->getLHS(), S) || refersToShared(B->getRHS(), S));
    if (const auto *C = dyn_cast<ConditionalOperator>(E))
      return refersToShared(C->getTrueExpr(), S) ||
             refersToShared(C->getFalseExpr(), S);
    return false;
  }

  /// The shape of an update: its expression with every variable written
  /// `v`, so the same update on other registers has the same shape.
  std::string shape(const Expr *E) const {
    std::string Out;
    shapeInto(E, Out);
    return Out;
  }
  void shapeInto(const Expr *E, std::string &Out) const {
    if (Out.size() > 4000)
      return;
    E = strip(E);
    if (!E) {
      Out += "?";
      return;
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      Out += "(";
      shapeInto(B->getLHS(), Out);
      Out += B->getOpcodeStr();
      shapeInto(B->getRHS(), Out);
      Out += ")";
    } else if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      Out += UnaryOperator::getOpcodeStr(U->getOpcode());
      shapeInto(U->getSubExpr(), Out);
    } else if (const auto *F = dyn_cast<FloatingLiteral>(E)) {
      Out += std::to_string(F->getValueAsApproximateDouble());
    } else if (const auto *I = dyn_cast<IntegerLiteral>(E)) {
      Out += std::to_string(I->getValue().getSExtValue());
    } else if (isa<DeclRefExpr>(E)) {
      Out += "v";
    } else if (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
      shapeInto(A->getBase(), Out);
      Out += "[";
      shapeInto(A->getIdx(), Out);
      Out += "]";
    } else if (const auto *C = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *F = C->getDirectCallee();
      Out += F ? F->getNameAsString() : "call";
      Out += "(";
      for (const Expr *Arg : C->arguments()) {
        shapeInto(Arg, Out);
        Out += ",";
      }
      Out += ")";
    } else if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
      shapeInto(C->getCond(), Out);
      Out += "?";
      shapeInto(C->getTrueExpr(), Out);
      Out += ":";
      shapeInto(C->getFalseExpr(), Out);
    } else {
      Out += E->getStmtClassName();
    }
  }

  /// The value of \p E; every array value it reads is added to \p Reads.
  Val eval(const Expr *E, State &S, std::vector<Val> &Reads,
           bool &Arithmetic) {
    E = strip(E);
    if (!E)
      return {};
    if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
      const auto *V = dyn_cast<VarDecl>(D->getDecl());
      auto It = V ? S.Vars.find(V) : S.Vars.end();
      if (It == S.Vars.end() || It->second.Depth < 0)
        return {};
      Reads.push_back(It->second);
      return It->second;
    }
    if (isa<ArraySubscriptExpr>(E) ||
        (isa<UnaryOperator>(E) &&
         cast<UnaryOperator>(E)->getOpcode() == UO_Deref)) {
      const Expr *Base = isa<ArraySubscriptExpr>(E)
                             ? cast<ArraySubscriptExpr>(E)->getBase()
                             : cast<UnaryOperator>(E)->getSubExpr();
      if (!E->getType()->isRealFloatingType())
        return {};
      Val V = refersToShared(Base, S) ? S.Shared : Val{0};
      if (V.Depth >= 0)
        Reads.push_back(V);
      return V;
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      if (B->isAssignmentOp()) {
        assign(B, S);
        return {};
      }
      if (B->isCommaOp()) {
        Val Ignored = eval(B->getLHS(), S, Reads, Arithmetic);
        (void)Ignored;
        return eval(B->getRHS(), S, Reads, Arithmetic);
      }
      Val L = eval(B->getLHS(), S, Reads, Arithmetic);
      Val R = eval(B->getRHS(), S, Reads, Arithmetic);
      if (B->isMultiplicativeOp() || B->isAdditiveOp())
        Arithmetic |= B->getType()->isRealFloatingType();
      return deeper(L, R);
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->isIncrementDecrementOp())
        return {};
      return eval(U->getSubExpr(), S, Reads, Arithmetic);
    }
    if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
      std::vector<Val> Ignored;
      bool A = false;
      eval(C->getCond(), S, Ignored, A);
      return deeper(eval(C->getTrueExpr(), S, Reads, Arithmetic),
                    eval(C->getFalseExpr(), S, Reads, Arithmetic));
    }
    if (const auto *C = dyn_cast<CallExpr>(E)) {
      // A device function of array arguments (an accessor, a math
      // function): its value is as deep as its deepest argument.
      Val Out;
      for (const Expr *Arg : C->arguments()) {
        const Expr *A = strip(Arg);
        if (A && A->getType()->isPointerType() && refersToShared(A, S)) {
          if (S.Shared.Depth >= 0)
            Reads.push_back(S.Shared);
          Out = deeper(Out, S.Shared);
        } else {
          Out = deeper(Out, eval(Arg, S, Reads, Arithmetic));
        }
      }
      return Out;
    }
    return {};
  }

  /// `LHS = RHS` (or a compound assignment).
  void assign(const BinaryOperator *B, State &S) {
    const Expr *LHS = strip(B->getLHS());
    // An accumulation (`x += e`, `x = x + e`) adds to the same update: it
    // is as deep as x and e, not one deeper than x.
    const Expr *RHS = B->getRHS();
    bool Accumulates = B->isCompoundAssignmentOp();
    if (const auto *Sum = dyn_cast<BinaryOperator>(strip(RHS));
        !Accumulates && Sum && Sum->isAdditiveOp()) {
      if (sameVariable(LHS, Sum->getLHS())) {
        Accumulates = true;
        RHS = Sum->getRHS();
      } else if (Sum->getOpcode() == BO_Add &&
                 sameVariable(LHS, Sum->getRHS())) {
        Accumulates = true;
        RHS = Sum->getLHS();
      }
    }
    std::vector<Val> Reads;
    bool Arithmetic = false;
    Val Deepest = eval(RHS, S, Reads, Arithmetic);
    Val V = produce(Deepest, Reads, Arithmetic, RHS);
    if (Accumulates) {
      std::vector<Val> Old;
      bool A = false;
      V = deeper(V, eval(B->getLHS(), S, Old, A));
    }
    if (const auto *D = dyn_cast_or_null<DeclRefExpr>(LHS)) {
      const auto *Var = dyn_cast<VarDecl>(D->getDecl());
      if (!Var || !Var->hasLocalStorage())
        return;
      if (Var->getType()->isPointerType()) {
        if (refersToShared(B->getRHS(), S))
          S.SharedPointers.insert(Var);
        return;
      }
      if (Var->getType()->isRealFloatingType())
        S.Vars[Var] = V;
      return;
    }
    const Expr *Base = nullptr;
    if (const auto *A = dyn_cast_or_null<ArraySubscriptExpr>(LHS))
      Base = A->getBase();
    else if (const auto *U = dyn_cast_or_null<UnaryOperator>(LHS);
             U && U->getOpcode() == UO_Deref)
      Base = U->getSubExpr();
    if (!Base || !LHS->getType()->isRealFloatingType())
      return;
    if (refersToShared(Base, S)) {
      S.Shared = V;
    } else if (V.Depth > StoredDepth) {
      StoredDepth = V.Depth;
    }
  }

  static bool sameVariable(const Expr *A, const Expr *B) {
    const auto *DA = dyn_cast_or_null<DeclRefExpr>(strip(A));
    const auto *DB = dyn_cast_or_null<DeclRefExpr>(strip(B));
    return DA && DB && DA->getDecl() == DB->getDecl();
  }

  /// The value an assignment produces from what its right-hand side read.
  Val produce(Val Deepest, const std::vector<Val> &Reads, bool Arithmetic,
              const Expr *RHS) {
    if (!Arithmetic || Reads.size() < 2 || Deepest.Depth < 0)
      return Deepest; // A copy, a scaling: as deep as its input.
    ShapesAt[Deepest.Depth + 1].insert(shape(RHS));
    return {Deepest.Depth + 1};
  }

  void exec(const Stmt *St, State &S) {
    if (!St || GaveUp)
      return;
    if (++Steps > MaxSteps) {
      GaveUp = true;
      return;
    }
    if (const auto *C = dyn_cast<CompoundStmt>(St)) {
      for (const Stmt *Child : C->body())
        exec(Child, S);
    } else if (const auto *D = dyn_cast<DeclStmt>(St)) {
      for (const Decl *Dc : D->decls()) {
        const auto *V = dyn_cast<VarDecl>(Dc);
        if (!V || !V->hasInit())
          continue;
        std::vector<Val> Reads;
        bool Arithmetic = false;
        Val X = eval(V->getInit(), S, Reads, Arithmetic);
        if (V->getType()->isPointerType() && refersToShared(V->getInit(), S))
          S.SharedPointers.insert(V);
        else if (V->getType()->isRealFloatingType())
          S.Vars[V] = produce(X, Reads, Arithmetic, V->getInit());
      }
    } else if (const auto *I = dyn_cast<IfStmt>(St)) {
      State Then = S, Else = S;
      exec(I->getThen(), Then);
      exec(I->getElse(), Else);
      S = merge(Then, Else);
    } else if (const auto *Do = dyn_cast<DoStmt>(St)) {
      if (isFalseConstant(Do->getCond(), Ctx))
        exec(Do->getBody(), S); // do { ... } while (0): a macro's body.
      else
        loop(Do->getBody(), nullptr, S);
    } else if (const auto *F = dyn_cast<ForStmt>(St)) {
      exec(F->getInit(), S);
      if (std::optional<int64_t> Trips = tripCount(F)) {
        // A counted loop over a few steps runs as written: its rounds
        // may each be a step.
        for (int64_t T = 0; T < *Trips && !GaveUp; ++T) {
          exec(F->getBody(), S);
          exec(F->getInc(), S);
        }
      } else {
        loop(F->getBody(), F->getInc(), S);
      }
    } else if (const auto *W = dyn_cast<WhileStmt>(St)) {
      loop(W->getBody(), nullptr, S);
    } else if (const auto *R = dyn_cast<CXXForRangeStmt>(St)) {
      loop(R->getBody(), nullptr, S);
    } else if (isa<SwitchStmt>(St) || isa<GotoStmt>(St)) {
      GaveUp = true;
    } else if (const auto *E = dyn_cast<Expr>(St)) {
      std::vector<Val> Reads;
      bool Arithmetic = false;
      eval(E, S, Reads, Arithmetic);
    } else if (const auto *L = dyn_cast<LabelStmt>(St)) {
      exec(L->getSubStmt(), S);
    } else if (const auto *A = dyn_cast<AttributedStmt>(St)) {
      exec(A->getSubStmt(), S);
    }
  }

  /// The rounds of `for (int v = A; v < B; ++v)` (or <=, v++, v += 1)
  /// with constant A and B, when at most 64; nullopt otherwise.
  std::optional<int64_t> tripCount(const ForStmt *F) const {
    const auto *Init = dyn_cast_or_null<DeclStmt>(F->getInit());
    if (!Init || !Init->isSingleDecl())
      return std::nullopt;
    const auto *V = dyn_cast<VarDecl>(Init->getSingleDecl());
    const auto *Cond = dyn_cast_or_null<BinaryOperator>(
        F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
    if (!V || !V->getInit() || !Cond ||
        (Cond->getOpcode() != BO_LT && Cond->getOpcode() != BO_LE))
      return std::nullopt;
    const auto *L = dyn_cast<DeclRefExpr>(strip(Cond->getLHS()));
    if (!L || L->getDecl() != V)
      return std::nullopt;
    bool Step = false;
    if (const auto *U = dyn_cast_or_null<UnaryOperator>(F->getInc()))
      Step = U->isIncrementOp();
    else if (const auto *C =
                 dyn_cast_or_null<CompoundAssignOperator>(F->getInc())) {
      Expr::EvalResult One;
      Step = C->getOpcode() == BO_AddAssign &&
             C->getRHS()->EvaluateAsInt(One, Ctx) && One.Val.getInt() == 1;
    }
    if (!Step)
      return std::nullopt;
    Expr::EvalResult A, B;
    if (V->getInit()->isValueDependent() || Cond->getRHS()->isValueDependent() ||
        !V->getInit()->EvaluateAsInt(A, Ctx) ||
        !Cond->getRHS()->EvaluateAsInt(B, Ctx))
      return std::nullopt;
    int64_t N = B.Val.getInt().getSExtValue() - A.Val.getInt().getSExtValue() +
                (Cond->getOpcode() == BO_LE ? 1 : 0);
    if (N < 0 || N > 64)
      return std::nullopt;
    return N;
  }

  /// A loop's body (and increment), until the depths settle: the loop may
  /// run any number of rounds, including none.
  void loop(const Stmt *Body, const Expr *Inc, State &S) {
    for (int Round = 0; Round < 6 && !GaveUp; ++Round) {
      State After = S;
      exec(Body, After);
      exec(Inc, After);
      State Merged = merge(S, After);
      if (Merged == S)
        return;
      S = std::move(Merged);
    }
    GaveUp = true;
  }
};

/// The body of the function \p C calls, when it has one and \p Seen did
/// not hold it yet (it does now); the walks below follow calls once each.
const FunctionDecl *unseenCallee(const CallExpr *C,
                                 std::set<const FunctionDecl *> &Seen) {
  const FunctionDecl *F = C->getDirectCallee(), *Def = nullptr;
  if (!F || !F->hasBody(Def) || !Def || !Seen.insert(Def).second)
    return nullptr;
  return Def;
}

/// True when \p St, or a function it calls (up to \p Depth calls deep),
/// has a grid-wide barrier: cooperative groups' grid_group::sync().
bool hasGridSync(const Stmt *St, int Depth, std::set<const FunctionDecl *> &Seen) {
  if (!St)
    return false;
  if (const auto *M = dyn_cast<CXXMemberCallExpr>(St)) {
    const CXXMethodDecl *MD = M->getMethodDecl();
    const CXXRecordDecl *RD = MD ? MD->getParent() : nullptr;
    if (MD && RD && MD->getName() == "sync" &&
        (RD->getName() == "grid_group" || RD->getName() == "multi_grid_group"))
      return true;
  }
  if (const auto *C = dyn_cast<CallExpr>(St)) {
    const FunctionDecl *F = C->getDirectCallee();
    if (F && F->getName() == "sync" && C->getNumArgs() == 1) {
      QualType T = C->getArg(0)->getType().getNonReferenceType();
      if (const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
          RD && (RD->getName() == "grid_group" ||
                 RD->getName() == "multi_grid_group"))
        return true;
    }
    if (Depth > 0)
      if (const FunctionDecl *Def = unseenCallee(C, Seen);
          Def && !Def->getDeclContext()->isStdNamespace() &&
          hasGridSync(Def->getBody(), Depth - 1, Seen))
        return true;
  }
  for (const Stmt *Child : St->children())
    if (hasGridSync(Child, Depth, Seen))
      return true;
  return false;
}

/// True when \p St, or a function it calls, has a loop whose body has a
/// grid-wide barrier.
bool hasTimeLoop(const Stmt *St, int Depth, std::set<const FunctionDecl *> &Seen) {
  if (!St)
    return false;
  const Stmt *Body = nullptr;
  if (const auto *F = dyn_cast<ForStmt>(St))
    Body = F->getBody();
  else if (const auto *W = dyn_cast<WhileStmt>(St))
    Body = W->getBody();
  else if (const auto *D = dyn_cast<DoStmt>(St))
    Body = D->getBody();
  if (Body) {
    std::set<const FunctionDecl *> Inner;
    if (hasGridSync(Body, 4, Inner))
      return true;
  }
  if (const auto *C = dyn_cast<CallExpr>(St); C && Depth > 0)
    if (const FunctionDecl *Def = unseenCallee(C, Seen);
        Def && hasTimeLoop(Def->getBody(), Depth - 1, Seen))
      return true;
  for (const Stmt *Child : St->children())
    if (hasTimeLoop(Child, Depth, Seen))
      return true;
  return false;
}

class TemporalBlockingRecogniser : public KernelRecogniser {
public:
  const char *name() const override { return "temporal-blocking"; }

  std::optional<Recognised> examine(const FunctionDecl &Kernel,
                                    ASTContext &Ctx,
                                    const KernelAnalysis &) const override {
    const Stmt *Body = Kernel.getBody();
    if (!Body)
      return std::nullopt;
    std::set<const FunctionDecl *> Seen;
    if (hasTimeLoop(Body, 4, Seen)) {
      Recognised R;
      R.Why = {ReasonKind::TemporalBlocking,
               "in-kernel temporal blocking: a loop with a grid-wide barrier "
               "(cooperative groups' grid sync) runs the time steps inside "
               "the kernel (a persistent kernel), not one step a launch"};
      R.Temporal = TemporalBlocking{TemporalBlocking::TimeLoop, 0};
      return R;
    }
    unsigned Steps = FusedSteps(Ctx).run(Body);
    if (Steps < 2)
      return std::nullopt;
    Recognised R;
    R.Why = {ReasonKind::TemporalBlocking,
             "in-kernel temporal blocking: the stored value is the same "
             "update applied " +
                 std::to_string(Steps) +
                 " times, each on values the previous one computed (" +
                 std::to_string(Steps) +
                 " time steps fused in one kernel), not one step a launch"};
    R.Temporal = TemporalBlocking{TemporalBlocking::FusedSteps, Steps};
    return R;
  }
};

} // namespace

std::unique_ptr<KernelRecogniser> makeTemporalBlockingRecogniser() {
  return std::make_unique<TemporalBlockingRecogniser>();
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

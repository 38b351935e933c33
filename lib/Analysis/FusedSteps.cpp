//===- FusedSteps.cpp - The time steps a kernel fuses, and one step's points ===//
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
// The same walk keeps, for every value, the global elements it was computed
// from, each an array and an index polynomial (Poly) over the thread's
// indices, the kernel's parameters and opaque quotients and remainders
// (`tid / W`). Integer locals are followed as polynomials where the code
// says their value. A value read from a __shared__ array at the subscript
// the last store used plus a constant d is the value the thread whose
// subscript is d further stored: its elements are shifted accordingly (a
// subscript that is the thread's linear id L, with coordinates L / W and
// L % W, moves them by d's quotient and remainder). A value assigned under
// a named validity flag (`if (valid) r = a[...]`) is taken where the flag
// holds, when the other side leaves the variable as it was: the footprint
// describes the points whose loads and updates are valid, as a generator's
// overlapped tiles store only those. Values whose origin
// differs between rounds of a loop, or between the two sides of any other
// branch (`if (i == 0) w = a[i]` after `w = a[i - 1]`: a clamp), have no
// known elements.
//
// The stored point's axes are the strides of its index that multiply a
// thread-dependent term (x is the unit stride); an element's offset is its
// index minus the stored one, written on those strides (terms that only
// select a time level, `(c0 + 1) % 2 * n*n`, are not an offset). The
// stored value's elements then give N steps' footprint, each first-step
// update one step's footprint up to a translation, and stepFootprint()
// decides whether they agree.
//
//===----------------------------------------------------------------------===//

#include "FusedSteps.h"
#include "FusedStepsValues.h"
#include "StepFootprint.h"

#include "forgestencil/Analysis/CudaBuiltins.h"
#include "forgestencil/Analysis/Poly.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using namespace clang;

namespace forgestencil {
namespace analysis {
namespace detail {
namespace {

using namespace fused;

const Expr *strip(const Expr *E);

/// A named validity flag, or a conjunction of them (`if (valid)`,
/// `if (inX && inY)`): a load under one is taken where the flag holds.
bool isFlag(const Expr *E) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  if (const auto *B = dyn_cast_or_null<BinaryOperator>(E))
    return B->getOpcode() == BO_LAnd && isFlag(B->getLHS()) &&
           isFlag(B->getRHS());
  const auto *D = dyn_cast_or_null<DeclRefExpr>(E);
  const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
  return V && V->hasLocalStorage() &&
         (V->getType()->isIntegralOrEnumerationType() ||
          V->getType()->isBooleanType());
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

int64_t floorDiv(int64_t A, int64_t B) {
  int64_t Q = A / B;
  if ((A % B != 0) && ((A < 0) != (B < 0)))
    --Q;
  return Q;
}

/// An opaque integer symbol: Inner / Divisor or Inner % Divisor.
struct Atom {
  Poly Inner, Divisor;
  bool Mod = false;
  bool Thread = false; ///< Depends on threadIdx.
  bool Block = false;  ///< Depends on blockIdx.
};

class Walker {
public:
  Walker(const FunctionDecl &Kernel, ASTContext &Ctx)
      : Kernel(Kernel), Ctx(Ctx) {}

  FusedStepsFound run(const Stmt *Body) {
    FusedStepsFound F;
    State S;
    exec(Body, S);
    if (GaveUp || StoredDepth < 2)
      return F;
    // Each step applies the updates of the first: a step of other shapes
    // is another stage of one time step.
    const std::set<std::string> &First = ShapesAt[1];
    for (int D = 2; D <= StoredDepth; ++D)
      for (const std::string &Shape : ShapesAt[D])
        if (!First.count(Shape))
          return F;
    F.Steps = static_cast<unsigned>(StoredDepth);
    footprint(F);
    return F;
  }

private:
  const FunctionDecl &Kernel;
  ASTContext &Ctx;
  int StoredDepth = -1;
  /// A floating-point value was read where the walk cannot say from where
  /// (a member, a call it does not follow): no footprint is derived.
  bool Unsure = false;
  bool GaveUp = false;
  /// The shapes of the updates that produce values of each depth.
  std::map<int, std::set<std::string>> ShapesAt;
  unsigned Steps = 0;
  static constexpr unsigned MaxSteps = 400000;
  std::map<std::string, Atom> Atoms;
  int InlineDepth = 0;

  struct Store {
    int Depth;
    ElementsRef From;
    Poly Index;
  };
  std::vector<Store> Stores;
  /// The elements of each first-step update whose elements are known.
  std::vector<ElementsRef> FirstSteps;

  //===--- Integers ------------------------------------------------------===//

  bool threadDependent(const Poly &P, bool Block) const {
    if (P.mentionsPrefix("tid.") || (Block && P.mentionsPrefix("bid.")))
      return true;
    for (const auto &[M, C] : P.terms())
      for (const std::string &S : M)
        if (auto It = Atoms.find(S); It != Atoms.end() &&
                                     (It->second.Thread || (Block && It->second.Block)))
          return true;
    return false;
  }

  Poly atom(const Poly &A, const Poly &B, bool Mod) {
    std::string Name = std::string(Mod ? "mod(" : "div(") + A.str() + "," +
                       B.str() + ")";
    if (!Atoms.count(Name)) {
      Atom X{A, B, Mod, false, false};
      X.Thread = threadDependent(A, false) || threadDependent(B, false);
      X.Block = threadDependent(A, true) || threadDependent(B, true);
      Atoms.emplace(Name, std::move(X));
    }
    return Poly::symbol(Name);
  }

  IntVal evalInt(const Expr *E, const State &S) {
    E = strip(E);
    if (!E || !E->getType()->isIntegralOrEnumerationType())
      return std::nullopt;
    if (auto B = cudaBuiltinRef(E)) {
      static const char *Names[] = {"tid.", "bid.", "bdim.", "gdim."};
      return Poly::symbol(Names[static_cast<int>(B->Var)] +
                          std::string(1, "xyz"[B->Axis]));
    }
    if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl())) {
        if (auto It = S.Ints.find(V); It != S.Ints.end())
          return It->second;
        if (isa<ParmVarDecl>(V))
          return Poly::symbol(V->getName().str());
        if (V->hasLocalStorage())
          return std::nullopt; // Declared without a value we follow.
      }
    }
    if (!E->isValueDependent()) {
      Expr::EvalResult R;
      if (E->EvaluateAsInt(R, Ctx))
        return Poly::constant(R.Val.getInt().getExtValue());
    }
    if (const auto *D = dyn_cast<DeclRefExpr>(E))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl());
          V && V->getType().isConstQualified())
        return Poly::symbol(V->getName().str());
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      IntVal X = evalInt(U->getSubExpr(), S);
      if (!X)
        return std::nullopt;
      if (U->getOpcode() == UO_Minus)
        return -*X;
      if (U->getOpcode() == UO_Plus)
        return X;
      return std::nullopt;
    }
    const auto *B = dyn_cast<BinaryOperator>(E);
    if (!B)
      return std::nullopt;
    IntVal L = evalInt(B->getLHS(), S), R = evalInt(B->getRHS(), S);
    if (!L || !R)
      return std::nullopt;
    switch (B->getOpcode()) {
    case BO_Add:
      return *L + *R;
    case BO_Sub:
      return *L - *R;
    case BO_Mul:
      return *L * *R;
    case BO_Shl:
      if (auto N = R->constantValue(); N && *N >= 0 && *N < 31)
        return *L * Poly::constant(int64_t(1) << *N);
      return std::nullopt;
    case BO_Div:
    case BO_Rem: {
      auto LV = L->constantValue(), RV = R->constantValue();
      if (RV && *RV == 0)
        return std::nullopt;
      if (LV && RV)
        return Poly::constant(B->getOpcode() == BO_Div ? *LV / *RV : *LV % *RV);
      if (RV && *RV == 1)
        return B->getOpcode() == BO_Div ? *L : Poly::constant(0);
      return atom(*L, *R, B->getOpcode() == BO_Rem);
    }
    default:
      return std::nullopt;
    }
  }

  //===--- Where a __shared__ value came from -----------------------------===//

  /// \p From as computed by the thread whose __shared__ subscript is \p D
  /// more than this thread's \p At, or null.
  ElementsRef neighbour(const ElementsRef &From, const Poly &At, int64_t D) {
    if (!From)
      return nullptr;
    if (D == 0)
      return From;
    // The thread's linear place: At's thread-index part.
    std::string Lead;
    int64_t LeadCoef = 0;
    for (const auto &[M, C] : At.terms())
      if (M.size() == 1 && M[0].compare(0, 4, "tid.") == 0) {
        Lead = M[0];
        LeadCoef = C;
        break;
      }
    if (Lead.empty() || LeadCoef == 0)
      return nullptr;
    Poly Place = At - Poly::constant(At.coefficient({}));
    auto Out = std::make_shared<Elements>();
    // The same element moves the same way wherever it comes back (a loop's
    // rounds, a stored value read at several offsets): worked out once.
    const std::string PlaceKey = Place.str();
    for (const auto &Entry : *From) {
      auto Key = std::make_tuple(Entry.first, PlaceKey, D);
      auto Known = MovedCache.find(Key);
      if (Known == MovedCache.end())
        Known = MovedCache
                    .emplace(std::move(Key),
                             moved(Entry.second, Lead, LeadCoef, Place, D))
                    .first;
      if (!Known->second)
        return nullptr;
      Out->insert(*Known->second);
    }
    return Out;
  }

  /// The element \p AI (array, index) as the thread whose place is \p D
  /// further along \p Place computed it, keyed as Elements keys it; none
  /// where the index uses the thread's place other than linearly.
  std::optional<Elements::value_type>
  moved(const std::pair<std::string, Poly> &AI, const std::string &Lead,
        int64_t LeadCoef, const Poly &Place, int64_t D) const {
    const Poly &P = AI.second;
    Poly Moved = P;
    // Linear occurrences of the place: P = a * Place + (no thread index).
    std::optional<Poly> A = P.coefficientOf(Lead);
    if (!A)
      return std::nullopt;
    std::optional<Poly> Scaled = A->divideExactly(Poly::constant(LeadCoef));
    if (!Scaled)
      return std::nullopt;
    Poly Rest = P - *Scaled * Place;
    if (Rest.mentionsPrefix("tid."))
      return std::nullopt;
    Moved = Moved + *Scaled * Poly::constant(D);
    // Quotients and remainders of the place by a constant width, each
    // moved once.
    std::set<std::string> Shifted;
    for (const auto &[M, C] : P.terms())
      for (const std::string &Sym : M)
        if (auto It = Atoms.find(Sym); It != Atoms.end() && It->second.Thread)
          Shifted.insert(Sym);
    for (const std::string &Sym : Shifted) {
      const Atom &X = Atoms.at(Sym);
      auto W = X.Divisor.constantValue();
      if (X.Inner != Place || !W || *W <= 1)
        return std::nullopt;
      // D = Q * W + R with R in [-W/2, W/2): the neighbour is Q rows and
      // R columns away (no wrap at the edge of a row).
      int64_t Q = floorDiv(D + *W / 2, *W);
      int64_t R = D - Q * *W;
      Moved = Moved.substitute(Sym, Poly::symbol(Sym) +
                                        Poly::constant(X.Mod ? R : Q));
    }
    return Elements::value_type(AI.first + "|" + Moved.str(),
                                std::make_pair(AI.first, Moved));
  }

  /// moved()'s results, by element key, place and distance.
  std::map<std::tuple<std::string, std::string, int64_t>,
           std::optional<Elements::value_type>>
      MovedCache;

  //===--- Floating-point values -----------------------------------------===//

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

  /// The element a global load at \p E reads, or null.
  ElementsRef element(const Expr *E, const State &S) {
    const auto *A = dyn_cast<ArraySubscriptExpr>(E);
    if (!A)
      return nullptr;
    // The kernel's own array parameters and global arrays: a local pointer
    // may point anywhere into one.
    const ValueDecl *Base = base(A->getBase(), S);
    const auto *P = dyn_cast_or_null<ParmVarDecl>(Base);
    const auto *G = dyn_cast_or_null<VarDecl>(Base);
    if (!Base || (P ? P->getDeclContext() != &Kernel
                    : !(G && G->hasGlobalStorage())))
      return nullptr;
    IntVal Idx = evalInt(A->getIdx(), S);
    if (!Idx)
      return nullptr;
    std::string Array = Base->getName().str();
    auto Out = std::make_shared<Elements>();
    Out->emplace(Array + "|" + Idx->str(), std::make_pair(Array, *Idx));
    return Out;
  }

  /// The variable \p E names (a called function's parameter: the one it
  /// was given), or null.
  const ValueDecl *base(const Expr *E, const State &S) const {
    const auto *D = dyn_cast_or_null<DeclRefExpr>(strip(E));
    if (!D)
      return nullptr;
    const ValueDecl *V = D->getDecl();
    if (auto It = S.Aliases.find(V); It != S.Aliases.end())
      return It->second;
    return V;
  }

  /// A read of __shared__ memory at \p E: the value the last store to the
  /// same array left, from the thread that stored there.
  Val sharedRead(const Expr *E, const State &S) {
    Val V = S.Shared;
    V.From = nullptr;
    const auto *A = dyn_cast<ArraySubscriptExpr>(E);
    if (!A || S.Shared.Depth < 0 || !S.SharedAt || !S.SharedBase ||
        base(A->getBase(), S) != S.SharedBase)
      return V;
    IntVal Idx = evalInt(A->getIdx(), S);
    if (!Idx)
      return V;
    auto D = (*Idx - *S.SharedAt).constantValue();
    if (D)
      V.From = neighbour(S.Shared.From, *S.SharedAt, *D);
    return V;
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
      Val V;
      if (refersToShared(Base, S))
        V = sharedRead(E, S);
      else
        V = Val{0, element(E, S)};
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
      return combine(L, R);
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->isIncrementDecrementOp()) {
        if (const auto *D = dyn_cast<DeclRefExpr>(strip(U->getSubExpr())))
          if (const auto *V = dyn_cast<VarDecl>(D->getDecl());
              V && S.Ints.count(V)) {
            IntVal &X = S.Ints[V];
            if (X)
              X = *X + Poly::constant(U->isIncrementOp() ? 1 : -1);
          }
        return {};
      }
      return eval(U->getSubExpr(), S, Reads, Arithmetic);
    }
    if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
      std::vector<Val> Ignored;
      bool A = false;
      eval(C->getCond(), S, Ignored, A);
      return either(eval(C->getTrueExpr(), S, Reads, Arithmetic),
                    eval(C->getFalseExpr(), S, Reads, Arithmetic));
    }
    if (const auto *C = dyn_cast<CallExpr>(E)) {
      // A device function of array arguments (an accessor, a math
      // function): its value is as deep as its deepest argument.
      Val Out;
      bool Pointers = false;
      for (const Expr *Arg : C->arguments()) {
        const Expr *A = strip(Arg);
        // A __shared__ array passed as such decays to a pointer.
        bool Pointer = Arg->getType()->isPointerType() ||
                       (A && A->getType()->isPointerType());
        Pointers |= Pointer;
        if (A && Pointer && refersToShared(A, S)) {
          if (S.Shared.Depth >= 0)
            Reads.push_back(S.Shared);
          Out = combine(Out, S.Shared);
          Out.From = nullptr; // Which element: only the callee says.
        } else {
          Out = combine(Out, eval(Arg, S, Reads, Arithmetic));
        }
      }
      // Where it came from: what a one-statement accessor returns.
      std::optional<Val> In = inlined(C, S);
      if (In && In->Depth == Out.Depth)
        Out.From = In->From;
      else if (Pointers)
        Unsure = true; // It may read through them.
      return Out;
    }
    if (E->getType()->isRealFloatingType() && !isa<FloatingLiteral>(E) &&
        !isa<IntegerLiteral>(E))
      Unsure = true; // A member, an operator call: not followed.
    return {};
  }

  /// The value of a call to a function whose body is `return e;`, with its
  /// parameters bound to the arguments; depths as eval() gives them.
  std::optional<Val> inlined(const CallExpr *C, State &S) {
    const FunctionDecl *F = C->getDirectCallee(), *Def = nullptr;
    if (!F || !F->hasBody(Def) || !Def || InlineDepth > 3 ||
        Def->getNumParams() != C->getNumArgs())
      return std::nullopt;
    const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
    const auto *Ret = Body && Body->size() == 1
                          ? dyn_cast<ReturnStmt>(Body->body_front())
                          : nullptr;
    if (!Ret || !Ret->getRetValue())
      return std::nullopt;
    State Inner = S;
    std::vector<Val> Scratch;
    bool A = false;
    for (unsigned I = 0; I < C->getNumArgs(); ++I) {
      const ParmVarDecl *P = Def->getParamDecl(I);
      const Expr *Arg = C->getArg(I);
      QualType T = P->getType();
      if (T->isPointerType()) {
        if (refersToShared(Arg, S))
          Inner.SharedPointers.insert(P);
        if (const ValueDecl *B = base(Arg, S))
          Inner.Aliases[P] = B;
      } else if (T->isIntegralOrEnumerationType()) {
        Inner.Ints[P] = evalInt(Arg, S);
      } else if (T->isRealFloatingType()) {
        State Scratchpad = S;
        Inner.Vars[P] = eval(Arg, Scratchpad, Scratch, A);
      }
    }
    ++InlineDepth;
    Val V = eval(Ret->getRetValue(), Inner, Scratch, A);
    --InlineDepth;
    return V;
  }

  /// `LHS = RHS` (or a compound assignment).
  void assign(const BinaryOperator *B, State &S) {
    const Expr *LHS = strip(B->getLHS());
    // An integer local: its value where the code says it.
    if (const auto *D = dyn_cast_or_null<DeclRefExpr>(LHS))
      if (const auto *Var = dyn_cast<VarDecl>(D->getDecl());
          Var && Var->hasLocalStorage() &&
          Var->getType()->isIntegralOrEnumerationType()) {
        IntVal R = evalInt(B->getRHS(), S);
        IntVal Old = S.Ints.count(Var) ? S.Ints[Var] : std::nullopt;
        IntVal New;
        if (B->getOpcode() == BO_Assign)
          New = R;
        else if (B->getOpcode() == BO_AddAssign && R && Old)
          New = *Old + *R;
        else if (B->getOpcode() == BO_SubAssign && R && Old)
          New = *Old - *R;
        S.Ints[Var] = New;
      }
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
    // So is a fused multiply-add onto x (`x = fmaf(c, e, x)`): its update
    // is the product of its first two arguments.
    const CallExpr *Fma = Accumulates ? nullptr : fmaOnto(LHS, RHS);
    Accumulates |= Fma != nullptr;
    std::vector<Val> Reads;
    bool Arithmetic = false;
    Val Deepest;
    if (Fma) {
      Deepest = eval(Fma->getArg(0), S, Reads, Arithmetic);
      Deepest = combine(Deepest, eval(Fma->getArg(1), S, Reads, Arithmetic));
      Arithmetic = true;
    } else {
      Deepest = eval(RHS, S, Reads, Arithmetic);
    }
    Val V = produce(Deepest, Reads, Arithmetic, RHS);
    if (Accumulates) {
      std::vector<Val> Old;
      bool A = false;
      V = combine(V, eval(B->getLHS(), S, Old, A));
      // A first step may be a sum of partial updates (one per plane).
      if (V.Depth == 1 && V.From)
        FirstSteps.push_back(V.From);
    }
    if (const auto *D = dyn_cast_or_null<DeclRefExpr>(LHS)) {
      const auto *Var = dyn_cast<VarDecl>(D->getDecl());
      if (!Var || !Var->hasLocalStorage())
        return;
      if (Var->getType()->isPointerType()) {
        if (refersToShared(B->getRHS(), S)) {
          S.SharedPointers.insert(Var);
          S.SharedAt.reset(); // Subscripts now count from elsewhere.
        }
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
      S.SharedAt.reset();
      S.SharedBase = base(Base, S);
      if (const auto *A = dyn_cast<ArraySubscriptExpr>(LHS); A && S.SharedBase)
        S.SharedAt = evalInt(A->getIdx(), S);
      return;
    }
    if (V.Depth > StoredDepth)
      StoredDepth = V.Depth;
    if (ElementsRef At = element(LHS, S); At && V.From && V.Depth >= 2)
      Stores.push_back({V.Depth, V.From, At->begin()->second.second});
  }

  static bool sameVariable(const Expr *A, const Expr *B) {
    const auto *DA = dyn_cast_or_null<DeclRefExpr>(strip(A));
    const auto *DB = dyn_cast_or_null<DeclRefExpr>(strip(B));
    return DA && DB && DA->getDecl() == DB->getDecl();
  }

  /// \p RHS as a call of a floating-point fused multiply-add (fma, fmaf,
  /// std::fma, the __fma*_r* intrinsics) whose addend is \p LHS, else null.
  static const CallExpr *fmaOnto(const Expr *LHS, const Expr *RHS) {
    const auto *C = dyn_cast_or_null<CallExpr>(strip(RHS));
    const FunctionDecl *F = C ? C->getDirectCallee() : nullptr;
    if (!F || C->getNumArgs() != 3 || !F->getIdentifier())
      return nullptr;
    const StringRef Name = F->getName();
    const bool IsFma = Name == "fma" || Name == "fmaf" ||
                       (Name.starts_with("__fma") &&
                        (Name.ends_with("_rn") || Name.ends_with("_rz") ||
                         Name.ends_with("_ru") || Name.ends_with("_rd")));
    return IsFma && sameVariable(LHS, C->getArg(2)) ? C : nullptr;
  }

  /// The value an assignment produces from what its right-hand side read.
  Val produce(Val Deepest, const std::vector<Val> &Reads, bool Arithmetic,
              const Expr *RHS) {
    if (!Arithmetic || Reads.size() < 2 || Deepest.Depth < 0)
      return Deepest; // A copy, a scaling: as deep as its input.
    ShapesAt[Deepest.Depth + 1].insert(shape(RHS));
    if (Deepest.Depth == 0 && Deepest.From)
      FirstSteps.push_back(Deepest.From);
    return {Deepest.Depth + 1, Deepest.From};
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
        if (!V)
          continue;
        if (V->getType()->isIntegralOrEnumerationType()) {
          S.Ints[V] = V->hasInit() ? evalInt(V->getInit(), S) : std::nullopt;
          continue;
        }
        if (!V->hasInit())
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
      const bool Flag = isFlag(I->getCond());
      S = merge(Then, Else, Flag ? &S : nullptr);
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
          if (const auto *Init = dyn_cast_or_null<DeclStmt>(F->getInit()))
            if (const auto *V = dyn_cast<VarDecl>(Init->getSingleDecl()))
              if (auto First = evalInt(V->getInit(), S))
                S.Ints[V] = *First + Poly::constant(T);
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
      State Merged = merge(S, After, nullptr);
      bool Settled = Merged == S;
      S = std::move(Merged);
      if (Settled)
        return;
    }
    GaveUp = true;
  }

  //===--- One step's footprint ------------------------------------------===//

  /// How a symbol of an index polynomial varies.
  SymbolKind kindOf(const std::string &S) const {
    if (S.compare(0, 4, "tid.") == 0 || S.compare(0, 4, "bid.") == 0)
      return SymbolKind::Thread;
    if (auto It = Atoms.find(S); It != Atoms.end())
      return It->second.Thread || It->second.Block ? SymbolKind::Thread
                                                   : SymbolKind::Selector;
    return SymbolKind::Size;
  }

  /// One step's footprint (StepFootprint.h) from the last step's stores
  /// and the first step's updates whose elements are known.
  void footprint(FusedStepsFound &F) {
    const unsigned N = F.Steps;
    if (Unsure) {
      F.NoStepWhy = "a value is read where the analysis does not follow "
                    "(a member, a call with pointers that is not a one-line "
                    "accessor)";
      return;
    }
    auto Indices = [](const Elements &From) {
      std::vector<Poly> Out;
      for (const auto &Entry : From)
        Out.push_back(Entry.second.second);
      return Out;
    };
    std::vector<StoredSample> Last;
    for (const Store &St : Stores)
      if (St.Depth == static_cast<int>(N))
        Last.push_back({St.Index, Indices(*St.From)});
    std::vector<std::vector<Poly>> First;
    for (const ElementsRef &From : FirstSteps)
      First.push_back(Indices(*From));
    F.PerStep = oneStep(Last, First, N,
                        [this](const std::string &S) { return kindOf(S); },
                        F.NoStepWhy);
  }
};

} // namespace

FusedStepsFound findFusedSteps(const FunctionDecl &Kernel, ASTContext &Ctx) {
  const Stmt *Body = Kernel.getBody();
  if (!Body)
    return {};
  return Walker(Kernel, Ctx).run(Body);
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

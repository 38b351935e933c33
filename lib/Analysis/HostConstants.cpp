//===- HostConstants.cpp - What the host sets __constant__ integers to ----===//

#include "HostConstants.h"

#include "forgestencil/Analysis/Poly.h"
#include "forgestencil/IR/StencilIR.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <vector>

using namespace clang;

namespace forgestencil {
namespace analysis {
namespace detail {
namespace {

/// "file:line" of the file position \p L expands at.
std::string whereSpelledAt(SourceLocation L, const SourceManager &SM) {
  PresumedLoc P = SM.getPresumedLoc(SM.getFileLoc(L));
  if (P.isInvalid())
    return "?";
  return std::string(llvm::sys::path::filename(P.getFilename())) + ":" +
         std::to_string(P.getLine());
}

bool isSymbolCopy(const CallExpr *C) {
  const FunctionDecl *F = C ? C->getDirectCallee() : nullptr;
  if (!F || !F->getIdentifier() || C->getNumArgs() < 2)
    return false;
  StringRef N = F->getName();
  return N == "cudaMemcpyToSymbol" || N == "cudaMemcpyToSymbolAsync" ||
         N == "hipMemcpyToSymbol" || N == "hipMemcpyToSymbolAsync";
}

const Expr *stripped(const Expr *E) {
  for (int I = 0; E && I < 16; ++I) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *C = dyn_cast<CStyleCastExpr>(Next))
      Next = C->getSubExpr();
    else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = M->getSubExpr();
    if (Next == E)
      break;
    E = Next;
  }
  return E;
}

/// An integer __constant__ variable the app declares (not the implicit
/// attribute clang gives constexpr variables), or null.
const VarDecl *constantInt(const Expr *E) {
  const auto *D = dyn_cast_or_null<DeclRefExpr>(E);
  const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
  if (!V || !V->getType()->isIntegerType())
    return nullptr;
  const auto *A = V->getAttr<CUDAConstantAttr>();
  if (!A || A->isImplicit())
    return nullptr;
  return cast<VarDecl>(V->getCanonicalDecl());
}

/// The variable a symbol copy writes: its first argument, `d_x` or `&d_x`.
const VarDecl *copiedSymbol(const CallExpr *C) {
  const Expr *S = stripped(C->getArg(0));
  if (const auto *U = dyn_cast<UnaryOperator>(S); U && U->getOpcode() == UO_AddrOf)
    S = stripped(U->getSubExpr());
  return constantInt(S);
}

/// True when a symbol copy writes at offset 0 (no offset argument, its
/// default, or a constant 0).
bool atOffsetZero(const CallExpr *C, const ASTContext &Ctx) {
  if (C->getNumArgs() < 4 || isa<CXXDefaultArgExpr>(C->getArg(3)))
    return true;
  Expr::EvalResult R;
  return !C->getArg(3)->isValueDependent() &&
         C->getArg(3)->EvaluateAsInt(R, Ctx) && R.Val.getInt() == 0;
}

bool isHostFunction(const FunctionDecl &F) {
  if (F.hasAttr<CUDAGlobalAttr>())
    return false;
  return !F.hasAttr<CUDADeviceAttr>() || F.hasAttr<CUDAHostAttr>();
}

/// The statement above \p S: its parent (with \p SkipParens, above any
/// parentheses), or the declaration statement of the variable \p S
/// initialises.
const Stmt *parentStmt(const Stmt &S, ASTContext &Ctx,
                       bool SkipParens = false) {
  for (const DynTypedNode &N : Ctx.getParents(S)) {
    if (const auto *P = N.get<Stmt>())
      return SkipParens && isa<ParenExpr>(P) ? parentStmt(*P, Ctx, true) : P;
    if (const auto *V = N.get<VarDecl>())
      for (const DynTypedNode &M : Ctx.getParents(*V))
        return M.get<DeclStmt>();
    return nullptr;
  }
  return nullptr;
}

/// True when every call of \p F runs \p S once it runs at all: \p S is a
/// statement of its body's top level, or sits in one through expressions
/// that always evaluate it (not the arms of ?:, && or ||), declarations,
/// an if's condition, or a do-while's body (a checking macro's
/// `do { ... } while (0)`).
bool unconditional(const Stmt *S, const FunctionDecl &F, ASTContext &Ctx) {
  const Stmt *Body = F.getBody();
  for (int Depth = 0; S && Depth < 64; ++Depth) {
    const Stmt *P = parentStmt(*S, Ctx);
    if (!P)
      return false;
    if (P == Body)
      return true;
    if (const auto *C = dyn_cast<ConditionalOperator>(P);
        C && C->getCond() != S)
      return false;
    if (isa<BinaryConditionalOperator>(P))
      return false;
    if (const auto *B = dyn_cast<BinaryOperator>(P);
        B && B->isLogicalOp() && B->getRHS() == S)
      return false;
    if (const auto *I = dyn_cast<IfStmt>(P); I && I->getCond() != S)
      return false;
    if (isa<ForStmt, WhileStmt, CXXForRangeStmt, SwitchStmt, CaseStmt,
            DefaultStmt, LabelStmt, CXXTryStmt, CXXCatchStmt>(P))
      return false;
    if (const auto *D = dyn_cast<DoStmt>(P); D && D->getBody() != S)
      return false;
    if (isa<CompoundStmt>(P)) {
      // Only the body's own or a do-while's body's: climb through it.
      const Stmt *Up = parentStmt(*P, Ctx);
      if (P != Body && !(Up && isa<DoStmt>(Up)))
        return false;
    }
    S = P;
  }
  return false;
}

struct Write {
  const FunctionDecl *F = nullptr;
  const CallExpr *Call = nullptr;
  std::optional<Poly> Value;
};

/// The value of host integer expressions at a symbol copy, as a polynomial
/// over the function's parameters; nullopt when it is not one.
class HostValues {
public:
  HostValues(ASTContext &Ctx, const FunctionDecl &F) : Ctx(Ctx), F(F) {}

  std::optional<Poly> source(const Expr *Src, const CallExpr *Call) {
    Src = stripped(Src);
    const auto *U = dyn_cast<UnaryOperator>(Src);
    if (!U || U->getOpcode() != UO_AddrOf)
      return std::nullopt;
    const auto *D = dyn_cast<DeclRefExpr>(stripped(U->getSubExpr()));
    const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
    if (!V || !V->getType()->isIntegerType())
      return std::nullopt;
    return variable(V, Call, 0);
  }

private:
  bool topLevel(const Stmt *S) const {
    const auto *Body = dyn_cast_or_null<CompoundStmt>(F.getBody());
    return Body && std::find(Body->body_begin(), Body->body_end(), S) !=
                       Body->body_end();
  }

  /// How a reference to a variable uses it: read, assigned whole (the
  /// assignment in \p Assign), or read by a symbol copy as its source.
  enum class Use { Read, Assigned, CopySource, Other };
  Use useOf(const DeclRefExpr &D, const BinaryOperator **Assign) {
    const Stmt *P = parentStmt(D, Ctx, true);
    if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P);
        IC && IC->getCastKind() == CK_LValueToRValue)
      return Use::Read;
    if (const auto *B = dyn_cast_or_null<BinaryOperator>(P);
        B && B->getOpcode() == BO_Assign && stripped(B->getLHS()) == &D) {
      *Assign = B;
      return Use::Assigned;
    }
    if (const auto *U = dyn_cast_or_null<UnaryOperator>(P);
        U && U->getOpcode() == UO_AddrOf) {
      // &v reaching a symbol copy's second argument.
      const Stmt *Up = parentStmt(*U, Ctx, true);
      while (Up && isa<CastExpr>(Up))
        Up = parentStmt(*Up, Ctx, true);
      if (const auto *C = dyn_cast_or_null<CallExpr>(Up);
          C && isSymbolCopy(C) && stripped(C->getArg(1)) == U)
        return Use::CopySource;
    }
    return Use::Other;
  }

  /// The assignments of \p V in the function; false when some reference
  /// may change it otherwise (an increment, a reference bound to it).
  bool assignments(const VarDecl *V,
                   std::vector<const BinaryOperator *> &Out) {
    bool Ok = true;
    std::function<void(const Stmt *)> Scan = [&](const Stmt *S) {
      if (!S || !Ok)
        return;
      if (const auto *D = dyn_cast<DeclRefExpr>(S); D && D->getDecl() == V) {
        const BinaryOperator *B = nullptr;
        switch (useOf(*D, &B)) {
        case Use::Read:
        case Use::CopySource:
          return;
        case Use::Assigned:
          Out.push_back(B);
          return;
        case Use::Other:
          Ok = false;
          return;
        }
      }
      for (const Stmt *Child : S->children())
        Scan(Child);
    };
    Scan(F.getBody());
    return Ok;
  }

  /// The one definition of \p V that every path to \p Call runs: its
  /// initialiser or its only assignment, a top-level statement of the
  /// function before the call.
  const Expr *definition(const VarDecl *V, const CallExpr *Call) {
    if (isa<ParmVarDecl>(V) || !V->hasLocalStorage())
      return nullptr;
    std::vector<const BinaryOperator *> Assigned;
    if (!assignments(V, Assigned))
      return nullptr;
    const Expr *Def = nullptr;
    const Stmt *DefStmt = nullptr;
    if (V->hasInit() && Assigned.empty()) {
      Def = V->getInit();
      for (const DynTypedNode &P : Ctx.getParents(*V))
        DefStmt = P.get<DeclStmt>();
    } else if (!V->hasInit() && Assigned.size() == 1) {
      Def = Assigned.front()->getRHS();
      DefStmt = Assigned.front();
    }
    if (!Def || !DefStmt || !topLevel(DefStmt) ||
        !Ctx.getSourceManager().isBeforeInTranslationUnit(
            DefStmt->getEndLoc(), Call->getBeginLoc()))
      return nullptr;
    return Def;
  }

  std::optional<Poly> variable(const VarDecl *V, const CallExpr *Call,
                               int Depth) {
    if (Depth > 8)
      return std::nullopt;
    if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
      std::vector<const BinaryOperator *> Assigned;
      if (P->getDeclContext() != &F || !assignments(P, Assigned) ||
          !Assigned.empty())
        return std::nullopt;
      return Poly::symbol("param:" + P->getName().str());
    }
    const Expr *Def = definition(V, Call);
    if (!Def)
      return std::nullopt;
    return value(Def, Call, Depth + 1);
  }

  std::optional<Poly> value(const Expr *E, const CallExpr *Call, int Depth) {
    if (!E || Depth > 16 || E->isValueDependent() ||
        !E->getType()->isIntegerType())
      return std::nullopt;
    Expr::EvalResult R;
    if (E->EvaluateAsInt(R, Ctx) && R.Val.getInt().getSignificantBits() <= 63)
      return Poly::constant(R.Val.getInt().getExtValue());
    E = E->IgnoreParens();
    if (const auto *C = dyn_cast<CastExpr>(E)) {
      if (!C->getSubExpr()->getType()->isIntegerType())
        return std::nullopt;
      return value(C->getSubExpr(), Call, Depth + 1);
    }
    if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
      const auto *V = dyn_cast<VarDecl>(D->getDecl());
      return V ? variable(V, Call, Depth + 1) : std::nullopt;
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      auto A = value(U->getSubExpr(), Call, Depth + 1);
      if (!A)
        return std::nullopt;
      if (U->getOpcode() == UO_Minus)
        return -*A;
      if (U->getOpcode() == UO_Plus)
        return A;
      return std::nullopt;
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      auto L = value(B->getLHS(), Call, Depth + 1);
      auto Rt = value(B->getRHS(), Call, Depth + 1);
      if (!L || !Rt)
        return std::nullopt;
      switch (B->getOpcode()) {
      case BO_Add: return *L + *Rt;
      case BO_Sub: return *L - *Rt;
      case BO_Mul: return *L * *Rt;
      default: return std::nullopt;
      }
    }
    return std::nullopt;
  }

  ASTContext &Ctx;
  const FunctionDecl &F;
};

struct Collect : RecursiveASTVisitor<Collect> {
  explicit Collect(ASTContext &Ctx) : Ctx(Ctx) {}

  // The host function whose body is being walked (a lambda's or a local
  // class's own inside another, while its body is walked), and whether the
  // walk is in device code, which cannot write a __constant__ variable.
  bool TraverseDecl(Decl *D) {
    const auto *F = dyn_cast_or_null<FunctionDecl>(D);
    if (!F || !F->doesThisDeclarationHaveABody())
      return RecursiveASTVisitor::TraverseDecl(D);
    const FunctionDecl *Outer = Function;
    const bool OuterDevice = InDevice;
    InDevice = !isHostFunction(*F);
    Function = InDevice ? nullptr : F;
    bool R = RecursiveASTVisitor::TraverseDecl(D);
    Function = Outer;
    InDevice = OuterDevice;
    return R;
  }

  bool VisitDeclRefExpr(DeclRefExpr *D) {
    // Anywhere in host code (a function, an initialiser at namespace
    // scope): only a copy in a function's body is a write known here.
    if (const VarDecl *V = constantInt(D); V && !InDevice)
      ++Named[V];
    return true;
  }

  bool VisitReturnStmt(ReturnStmt *R) {
    if (Function)
      Returns[Function].push_back(R->getBeginLoc());
    return true;
  }

  bool VisitCallExpr(CallExpr *C) {
    if (InDevice || !isSymbolCopy(C))
      return true;
    const VarDecl *V = copiedSymbol(C);
    if (!V)
      return true;
    ++Copied[V];
    Write W;
    W.F = Function;
    W.Call = C;
    if (Function && atOffsetZero(C, Ctx) && unconditional(C, *Function, Ctx)) {
      HostValues H(Ctx, *Function);
      W.Value = H.source(C->getArg(1), C);
    }
    Writes[V].push_back(W);
    return true;
  }

  ASTContext &Ctx;
  const FunctionDecl *Function = nullptr;
  bool InDevice = false;
  std::map<const VarDecl *, unsigned> Named, Copied;
  std::map<const VarDecl *, std::vector<Write>> Writes;
  std::map<const FunctionDecl *, std::vector<SourceLocation>> Returns;
};

/// The integer c with A == c * B, if any (B not zero).
std::optional<int64_t> factor(const Poly &A, const Poly &B) {
  if (B.terms().empty())
    return std::nullopt;
  const auto &[M, CB] = *B.terms().begin();
  int64_t CA = A.coefficient(M);
  if (CB == 0 || CA % CB != 0)
    return std::nullopt;
  int64_t C = CA / CB;
  if (C == 0 || A != B * Poly::constant(C))
    return std::nullopt;
  return C;
}

} // namespace

std::map<const VarDecl *, ConstantMultiple> constantMultiples(ASTContext &Ctx) {
  Collect C(Ctx);
  C.TraverseDecl(Ctx.getTranslationUnitDecl());
  const SourceManager &SM = Ctx.getSourceManager();

  // The variables whose every host write is known: not extern, named by
  // host code only as the symbol of a copy, every copy's value a
  // polynomial, at most one copy a function, an initial value known.
  // Before the host's first copy a variable holds its initial value: zero,
  // or its initialiser's.
  auto Initial = [&](const VarDecl *V) -> std::optional<int64_t> {
    const VarDecl *Def = V->getDefinition();
    const Expr *I = Def ? Def->getInit() : nullptr;
    if (!I)
      return 0;
    Expr::EvalResult R;
    if (I->isValueDependent() || !I->EvaluateAsInt(R, Ctx) ||
        R.Val.getInt().getSignificantBits() > 63)
      return std::nullopt;
    return R.Val.getInt().getExtValue();
  };
  std::map<const VarDecl *, std::map<const FunctionDecl *, Write>> Known;
  std::map<const VarDecl *, int64_t> Initially;
  for (const auto &[V, Ws] : C.Writes) {
    std::optional<int64_t> I = Initial(V);
    if (V->hasExternalStorage() || C.Named[V] != C.Copied[V] || !I)
      continue;
    std::map<const FunctionDecl *, Write> ByFunction;
    bool Ok = true;
    for (const Write &W : Ws)
      Ok = Ok && W.Value && ByFunction.emplace(W.F, W).second;
    if (Ok) {
      Known.emplace(V, std::move(ByFunction));
      Initially.emplace(V, *I);
    }
  }

  auto Name = [](const VarDecl *V) { return V->getName().str(); };
  std::map<const VarDecl *, ConstantMultiple> Direct;
  for (const auto &[A, WA] : Known)
    for (const auto &[B, WB] : Known) {
      if (A == B || WA.size() != WB.size())
        continue;
      std::optional<int64_t> Common;
      std::string Where;
      for (const auto &[F, W] : WA) {
        auto It = WB.find(F);
        if (It == WB.end()) {
          Common.reset();
          break;
        }
        // A return between the two copies may leave one written alone.
        SourceLocation Lo = W.Call->getBeginLoc(),
                       Hi = It->second.Call->getBeginLoc();
        if (SM.isBeforeInTranslationUnit(Hi, Lo))
          std::swap(Lo, Hi);
        if (std::any_of(C.Returns[F].begin(), C.Returns[F].end(),
                        [&](SourceLocation R) {
                          return SM.isBeforeInTranslationUnit(Lo, R) &&
                                 SM.isBeforeInTranslationUnit(R, Hi);
                        })) {
          Common.reset();
          break;
        }
        auto K = factor(*W.Value, *It->second.Value);
        if (!K || (Common && *Common != *K)) {
          Common.reset();
          break;
        }
        Common = K;
        Where += std::string(Where.empty() ? "" : "; ") +
                 F->getNameAsString() + " (" +
                 whereSpelledAt(W.Call->getBeginLoc(), SM) + ", " +
                 whereSpelledAt(It->second.Call->getBeginLoc(), SM) + ")";
      }
      if (!Common)
        continue;
      // Their initial values too.
      if (Initially.at(A) != *Common * Initially.at(B))
        continue;
      // A == B and B == A: one way only, to the first by name.
      if ((*Common == 1 || *Common == -1) && Name(A) < Name(B))
        continue;
      auto &D = Direct[A];
      // Of several bases, the first by name.
      if (!D.Of || Name(B) < Name(D.Of))
        D = ConstantMultiple{B, *Common, Where};
    }

  // Follow chains (d_4 == 2 * d_2 == 4 * d_1) to a base that is no
  // multiple of another.
  std::map<const VarDecl *, ConstantMultiple> Out;
  for (const auto &[A, D] : Direct) {
    ConstantMultiple R = D;
    std::set<const VarDecl *> Seen = {A};
    bool Ok = true;
    for (auto It = Direct.find(R.Of); It != Direct.end();
         It = Direct.find(R.Of)) {
      if (!Seen.insert(R.Of).second) {
        Ok = false;
        break;
      }
      R.Factor *= It->second.Factor;
      R.Where += "; " + It->second.Where;
      R.Of = It->second.Of;
    }
    if (Ok && R.Of != A)
      Out.emplace(A, std::move(R));
  }
  return Out;
}

std::string deviceValuesOnHost(const ir::StencilIR &IR,
                               const std::set<std::string> &ConstantSymbols) {
  const std::string Name = ir::hostNameIn(IR, ConstantSymbols);
  if (Name.empty())
    return "";
  return "'" + Name + "' is a __constant__ variable that the launcher would read on the "
         "host (the domain, strides or checks), where only its host-side copy is "
         "visible, not the value the app copied to the device";
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

//===- RestrictFacts.cpp - What the restrict transform may change ---------===//

#include "RestrictFacts.h"

#include "forgestencil/Analysis/CudaBuiltins.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <functional>
#include <set>

using namespace clang;
using namespace llvm;
using forgestencil::analysis::CudaBuiltin;
using forgestencil::analysis::cudaBuiltinName;
using forgestencil::analysis::CudaBuiltinRef;
using forgestencil::analysis::cudaBuiltinRef;

namespace forgestencil {
namespace rewrite {

namespace {

/// True when a value of type \p T holds no pointer: arithmetic, enum,
/// vector and complex types, and arrays and classes made only of those.
bool holdsNoPointer(QualType T, unsigned Depth = 0) {
  if (Depth > 8 || T.isNull() || T->isDependentType())
    return false;
  T = T.getCanonicalType();
  if (T->isArithmeticType() || T->isEnumeralType() || T->isVectorType() ||
      T->isAnyComplexType())
    return true;
  if (const ArrayType *A = T->getAsArrayTypeUnsafe())
    return holdsNoPointer(A->getElementType(), Depth + 1);
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return false;
  RD = RD->getDefinition();
  if (RD->isPolymorphic())
    return false;
  for (const CXXBaseSpecifier &B : RD->bases())
    if (!holdsNoPointer(B.getType(), Depth + 1))
      return false;
  for (const FieldDecl *F : RD->fields())
    if (!holdsNoPointer(F->getType(), Depth + 1))
      return false;
  return true;
}

std::string typeText(QualType T, ASTContext &Ctx) {
  return T.getAsString(Ctx.getPrintingPolicy());
}

/// The parent of \p E past parentheses, and with \p PastCasts past
/// implicit casts too; null when it is not one expression.
const Expr *parentExpr(ASTContext &Ctx, const Expr *E, bool PastCasts = false) {
  for (;;) {
    auto Parents = Ctx.getParents(*E);
    if (Parents.size() != 1)
      return nullptr;
    const Expr *P = Parents[0].get<Expr>();
    if (!P || !(isa<ParenExpr>(P) || (PastCasts && isa<ImplicitCastExpr>(P))))
      return P;
    E = P;
  }
}

/// The other operand of binary operator \p BO than the one that holds
/// \p Child, past parentheses and implicit casts.
const Expr *otherOperand(const BinaryOperator *BO, const Expr *Child) {
  auto Holds = [&](const Expr *Side) {
    for (const Expr *E = Side;;) {
      if (E == Child)
        return true;
      if (const auto *P = dyn_cast<ParenExpr>(E))
        E = P->getSubExpr();
      else if (const auto *C = dyn_cast<ImplicitCastExpr>(E))
        E = C->getSubExpr();
      else
        return false;
    }
  };
  if (Holds(BO->getLHS()))
    return BO->getRHS()->IgnoreParenImpCasts();
  if (Holds(BO->getRHS()))
    return BO->getLHS()->IgnoreParenImpCasts();
  return nullptr;
}

bool isWarpOrBlockFunction(StringRef Name) {
  return Name.starts_with("__sync") || Name.starts_with("__shfl") ||
         Name.starts_with("__ballot") || Name.starts_with("__any") ||
         Name.starts_with("__all") || Name.starts_with("__activemask") ||
         Name.starts_with("__match") || Name.starts_with("__reduce") ||
         Name.starts_with("__barrier") || Name == "__threadfence_block";
}

bool isRValueRead(const Expr *E) {
  const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(E);
  return Cast && Cast->getCastKind() == CK_LValueToRValue;
}

/// True when use \p Ref of a pointer parameter only reads one element
/// through it: `p[i]` or `*p`, as a value.
bool readsOneElement(ASTContext &Ctx, const DeclRefExpr *Ref) {
  const Expr *Value = parentExpr(Ctx, Ref);
  if (!isRValueRead(Value))
    return false;
  const Expr *Use = parentExpr(Ctx, Value);
  if (const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(Use)) {
    if (AS->getBase()->IgnoreParenImpCasts() != Ref)
      return false;
  } else if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Use)) {
    if (UO->getOpcode() != UO_Deref)
      return false;
  } else {
    return false;
  }
  return isRValueRead(parentExpr(Ctx, Use));
}

/// Walks a kernel body and the bodies it calls for what could reach the
/// pointer parameters' memory other than through them, and records every
/// use of each parameter of the kernel itself.
class BodyScan : public RecursiveASTVisitor<BodyScan> {
public:
  BodyScan(ASTContext &Ctx, const FunctionDecl *Kernel)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Kernel(Kernel) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitLambdaBodies() const { return true; }

  void scan(const FunctionDecl *FD, unsigned Depth) {
    if (!Problem.empty() || !Seen.insert(FD->getCanonicalDecl()).second)
      return;
    if (Depth > 32) {
      Problem = "its calls nest too deep to follow";
      return;
    }
    const FunctionDecl *Saved = Current;
    unsigned SavedDepth = CurrentDepth;
    Current = FD;
    CurrentDepth = Depth;
    TraverseStmt(FD->getBody());
    Current = Saved;
    CurrentDepth = SavedDepth;
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (const auto *P = dyn_cast<ParmVarDecl>(E->getDecl())) {
      if (Current == Kernel)
        Uses[P->getFunctionScopeIndex()].push_back(E);
      return true;
    }
    const auto *V = dyn_cast<VarDecl>(E->getDecl());
    if (!V || !V->hasGlobalStorage() || V->hasAttr<CUDAConstantAttr>() ||
        V->hasAttr<CUDASharedAttr>() || V->getType().isConstQualified())
      return true;
    if (V->hasAttr<CUDADeviceAttr>() || V->hasAttr<HIPManagedAttr>())
      fail("it uses the __device__ variable '" + V->getNameAsString() +
           "', whose memory a pointer parameter may point into");
    return true;
  }

  bool VisitPseudoObjectExpr(PseudoObjectExpr *E) {
    std::optional<CudaBuiltinRef> B = cudaBuiltinRef(E);
    if (!B)
      return true;
    if (Current != Kernel)
      reblockFail("it calls '" + Current->getQualifiedNameAsString() +
                  "', which reads the thread or block index");
    else
      Builtins.push_back({E, *B});
    return true;
  }

  bool VisitVarDecl(VarDecl *V) {
    if (V->hasAttr<CUDASharedAttr>())
      reblockFail("it uses the __shared__ array '" + V->getNameAsString() +
                  "'");
    return true;
  }

  bool VisitGCCAsmStmt(GCCAsmStmt *) {
    fail("it holds inline assembly");
    return true;
  }
  bool VisitMSAsmStmt(MSAsmStmt *) {
    fail("it holds inline assembly");
    return true;
  }

  bool VisitCallExpr(CallExpr *E) {
    if (isa<CUDAKernelCallExpr>(E)) {
      fail("it launches a kernel");
      return true;
    }
    const FunctionDecl *Callee = E->getDirectCallee();
    if (Callee && Callee->getIdentifier()) {
      StringRef Name = Callee->getName();
      if (isWarpOrBlockFunction(Name) ||
          StringRef(Callee->getQualifiedNameAsString())
              .starts_with("cooperative_groups::"))
        reblockFail("it calls " + Callee->getQualifiedNameAsString() +
                    ", whose threads work together");
      else if (Name.starts_with("atomic"))
        reblockFail("it calls " + Name.str() +
                    ", whose result may depend on the order of the threads");
    }
    if (!Callee) {
      // A call through a pointer or a dependent call in an uninstantiated
      // pattern.
      if (!E->isTypeDependent() && !E->isValueDependent())
        fail("it makes an indirect call");
      return true;
    }
    follow(Callee);
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    follow(E->getConstructor());
    return true;
  }

  std::string Problem, ReblockProblem;
  std::map<unsigned, std::vector<const DeclRefExpr *>> Uses;
  struct Builtin {
    const Expr *E;
    CudaBuiltinRef Ref;
  };
  /// Every threadIdx/blockIdx/blockDim/gridDim the kernel itself reads.
  std::vector<Builtin> Builtins;

private:
  void fail(std::string Why) {
    if (Problem.empty())
      Problem = std::move(Why);
  }
  void reblockFail(std::string Why) {
    if (ReblockProblem.empty())
      ReblockProblem = std::move(Why);
  }

  void follow(const FunctionDecl *Callee) {
    if (!Callee || Callee->getBuiltinID() ||
        SM.isInSystemHeader(SM.getExpansionLoc(Callee->getLocation())))
      return;
    const FunctionDecl *Def = Callee->getDefinition();
    if (!Def || !Def->hasBody()) {
      if (Callee->isTrivial() || Callee->isDefaulted())
        return;
      fail("it calls '" + Callee->getQualifiedNameAsString() +
           "', whose body is not in this translation unit");
      return;
    }
    scan(Def, CurrentDepth + 1);
  }

  ASTContext &Ctx;
  SourceManager &SM;
  const FunctionDecl *Kernel;
  const FunctionDecl *Current = nullptr;
  unsigned CurrentDepth = 0;
  std::set<const FunctionDecl *> Seen;
};

/// The definitions whose bodies say what the kernel does: the plain
/// kernel, or every instantiation of a template.
std::vector<const FunctionDecl *> bodiesOf(const FunctionDecl *FD) {
  const FunctionTemplateDecl *FTD = FD->getDescribedFunctionTemplate();
  if (!FTD)
    return {FD};
  std::vector<const FunctionDecl *> Out;
  for (const FunctionDecl *Spec : FTD->specializations())
    if (Spec->getTemplateSpecializationKind() == TSK_ImplicitInstantiation &&
        Spec->hasBody())
      Out.push_back(Spec);
  return Out;
}

/// Whether \p E only initialises a local variable nothing reads
/// (CloverLeaf's `const int lid = threadIdx.x;`, declared unused in every
/// kernel): it takes no part in what a thread computes.
bool initialisesUnreadLocal(ASTContext &Ctx, const Expr *E) {
  const Expr *At = E;
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(*At);
    if (Parents.size() != 1)
      return false;
    if (const auto *P = Parents[0].get<Expr>()) {
      if (!isa<ImplicitCastExpr>(P) && !isa<ParenExpr>(P) &&
          !isa<PseudoObjectExpr>(P))
        return false;
      At = P;
      continue;
    }
    const auto *VD = Parents[0].get<VarDecl>();
    return VD && VD->isLocalVarDecl() && VD->getInit() &&
           VD->getInit()->IgnoreParenImpCasts() == At->IgnoreParenImpCasts() &&
           !VD->isReferenced();
  }
}

/// Records where the global index \p Add (`blockIdx.d * B + threadIdx.d`)
/// is spelled, for a coarsened copy to replace it whole; a spelling inside
/// a macro leaves the axis a reason instead.
void recordIndexSpan(
    ASTContext &Ctx, const BinaryOperator *Add,
    const std::function<std::optional<unsigned>(SourceLocation)> &OffsetInText,
    KernelDefinition::ReblockAxis &A) {
  if (!A.CoarsenProblem.empty())
    return;
  SourceManager &SM = Ctx.getSourceManager();
  std::optional<unsigned> Begin = OffsetInText(Add->getBeginLoc());
  std::optional<unsigned> Last = OffsetInText(Add->getEndLoc());
  if (!Begin || !Last) {
    A.CoarsenProblem = "a global thread index is spelled inside a macro";
    A.Spans.clear();
    return;
  }
  QualType T = Add->getType();
  if (!T->isBuiltinType() || !T->isIntegerType()) {
    A.CoarsenProblem = "a global thread index of type '" + T.getAsString() +
                       "', not a built-in integer";
    A.Spans.clear();
    return;
  }
  const unsigned End = *Last + Lexer::MeasureTokenLength(Add->getEndLoc(), SM,
                                                         Ctx.getLangOpts());
  KernelDefinition::ReblockAxis::IndexSpan S{*Begin, End - *Begin,
                                             T.getCanonicalType().getAsString()};
  for (const auto &O : A.Spans)
    if (O.Offset == S.Offset && O.Length == S.Length)
      return;
  A.Spans.push_back(std::move(S));
}

/// Reads \p Scan's thread-index uses of one body into \p K's Reblock
/// axes: each blockIdx.d must sit in `blockIdx.d * B + threadIdx.d`, and
/// every threadIdx.d and blockDim.d in one of those. Returns why not.
std::string readReblockAxes(
    const BodyScan &Scan, ASTContext &Ctx,
    const std::function<std::optional<unsigned>(SourceLocation)> &OffsetInText,
    KernelDefinition &K) {
  SourceManager &SM = Ctx.getSourceManager();
  std::set<const Expr *> Matched;
  using CB = CudaBuiltin;
  auto Where = [&](CB Var, int Axis) {
    return std::string(cudaBuiltinName(Var)) + "." + char('x' + Axis);
  };
  for (const BodyScan::Builtin &BI : Scan.Builtins) {
    const CudaBuiltinRef &B = BI.Ref;
    if (B.Var == CB::GridDim)
      return "it reads " + Where(CB::GridDim, B.Axis);
    if (B.Var != CB::BlockIdx)
      continue;
    const auto *Mul =
        dyn_cast_or_null<BinaryOperator>(parentExpr(Ctx, BI.E, true));
    const Expr *Factor =
        Mul && Mul->getOpcode() == BO_Mul ? otherOperand(Mul, BI.E) : nullptr;
    const auto *Add =
        Factor ? dyn_cast_or_null<BinaryOperator>(parentExpr(Ctx, Mul, true))
               : nullptr;
    const Expr *Thread =
        Add && Add->getOpcode() == BO_Add ? otherOperand(Add, Mul) : nullptr;
    if (!Thread ||
        cudaBuiltinRef(Thread) != CudaBuiltinRef{CB::ThreadIdx, B.Axis})
      return "it uses " + Where(CB::BlockIdx, B.Axis) + " other than as " +
             Where(CB::BlockIdx, B.Axis) + " * B + " +
             Where(CB::ThreadIdx, B.Axis);
    KernelDefinition::ReblockAxis &A = K.Reblock[B.Axis];
    A.Used = true;
    Matched.insert(BI.E);
    recordIndexSpan(Ctx, Add, OffsetInText, A);
    for (const BodyScan::Builtin &T : Scan.Builtins)
      if (T.E == Thread || T.E->IgnoreParenImpCasts() == Thread)
        Matched.insert(T.E);
    if (cudaBuiltinRef(Factor) == CudaBuiltinRef{CB::BlockDim, B.Axis}) {
      for (const BodyScan::Builtin &D : Scan.Builtins)
        if (D.E == Factor || D.E->IgnoreParenImpCasts() == Factor)
          Matched.insert(D.E);
      continue;
    }
    Expr::EvalResult R;
    QualType FT = Factor->getType();
    if (!FT->isIntegerType() || Ctx.getTypeSize(FT) > 32 ||
        !Factor->EvaluateAsInt(R, Ctx))
      return "the block size in " + Where(CB::BlockIdx, B.Axis) +
             " * B is neither blockDim nor a constant";
    long long Value = R.Val.getInt().getExtValue();
    if (A.Block && *A.Block != Value)
      return "two block sizes are assumed along " +
             std::string(1, 'x' + B.Axis);
    A.Block = Value;
    CharSourceRange Range = SM.getExpansionRange(Factor->getSourceRange());
    CharSourceRange Index = SM.getExpansionRange(BI.E->getSourceRange());
    std::optional<unsigned> Begin = OffsetInText(Range.getBegin());
    std::optional<unsigned> Last = OffsetInText(Range.getEnd());
    std::optional<unsigned> IndexAt = OffsetInText(Index.getBegin());
    if (!Begin || !Last || !IndexAt ||
        (*IndexAt >= *Begin && *IndexAt <= *Last))
      return "the block size in " + Where(CB::BlockIdx, B.Axis) +
             " * B is spelled inside a macro";
    unsigned End = *Last + Lexer::MeasureTokenLength(Range.getEnd(), SM,
                                                     Ctx.getLangOpts());
    std::pair<unsigned, unsigned> Edit{*Begin, End - *Begin};
    if (!llvm::is_contained(A.Edits, Edit))
      A.Edits.push_back(Edit);
  }
  for (const BodyScan::Builtin &BI : Scan.Builtins)
    if ((BI.Ref.Var == CB::ThreadIdx || BI.Ref.Var == CB::BlockDim) &&
        !Matched.count(BI.E) && !initialisesUnreadLocal(Ctx, BI.E))
      return "it uses " + Where(BI.Ref.Var, BI.Ref.Axis) + " other than in " +
             Where(CB::BlockIdx, BI.Ref.Axis) + " * B + " +
             Where(CB::ThreadIdx, BI.Ref.Axis);
  return "";
}

} // namespace

void recordRestrictFacts(const FunctionDecl *FD, ASTContext &Ctx,
                         unsigned TextBegin, KernelDefinition &K) {
  SourceManager &SM = Ctx.getSourceManager();
  std::vector<const FunctionDecl *> Bodies = bodiesOf(FD);
  if (Bodies.empty()) {
    K.RestrictProblem = "the unit instantiates the template nowhere";
    return;
  }
  auto OffsetInText = [&](SourceLocation L) -> std::optional<unsigned> {
    if (L.isInvalid() || L.isMacroID())
      return std::nullopt;
    std::pair<FileID, unsigned> D = SM.getDecomposedLoc(L);
    if (D.first != SM.getFileID(SM.getExpansionLoc(FD->getLocation())) ||
        D.second < TextBegin || D.second >= TextBegin + K.Text.size())
      return std::nullopt;
    return D.second - TextBegin;
  };

  // Which parameters are pointers, and whether the others are plain data.
  for (unsigned I = 0; I < FD->getNumParams(); ++I) {
    const ParmVarDecl *P = FD->getParamDecl(I);
    std::string Name = P->getName().empty() ? "#" + std::to_string(I + 1)
                                            : "'" + P->getNameAsString() + "'";
    if (P->isParameterPack()) {
      K.RestrictProblem = "parameter " + Name + " is a pack";
      return;
    }
    bool IsPointer = false;
    for (const FunctionDecl *B : Bodies) {
      QualType T = B->getParamDecl(I)->getType();
      if (T->isPointerType()) {
        IsPointer = true;
        QualType Pointee = T->getPointeeType();
        if (!holdsNoPointer(Pointee)) {
          K.RestrictProblem = "parameter " + Name + " points to '" +
                              typeText(Pointee, Ctx) +
                              "', which may hold pointers";
          return;
        }
      } else if (!holdsNoPointer(T)) {
        K.RestrictProblem = "parameter " + Name + " of type '" +
                            typeText(T, Ctx) + "' may carry pointers";
        return;
      }
    }
    if (!IsPointer)
      continue;
    KernelDefinition::PointerParam PP;
    PP.Index = I;
    PP.AlreadyRestrict =
        Bodies.front()->getParamDecl(I)->getType().isRestrictQualified();
    if (const TypeSourceInfo *TSI = P->getTypeSourceInfo()) {
      TypeLoc TL = TSI->getTypeLoc().getUnqualifiedLoc();
      if (auto PTL = TL.getAs<PointerTypeLoc>()) {
        if (std::optional<unsigned> Star = OffsetInText(PTL.getStarLoc()))
          PP.RestrictAt = *Star + 1;
        QualType Pointee = PTL.getPointeeLoc().getType();
        if (PP.RestrictAt && !Pointee->isPointerType() &&
            !Pointee.isConstQualified() && !Pointee->isDependentType())
          PP.ConstAt = OffsetInText(
              SM.getExpansionLoc(PTL.getPointeeLoc().getBeginLoc()));
      }
    }
    K.PointerParams.push_back(PP);
  }

  if (const Stmt *Body = FD->getBody())
    K.BodyOpenInText = OffsetInText(Body->getBeginLoc());

  // What the bodies reach, and whether each pointer is only read through.
  for (const FunctionDecl *B : Bodies) {
    BodyScan Scan(Ctx, B);
    Scan.scan(B, 0);
    if (!Scan.Problem.empty()) {
      K.RestrictProblem = Scan.Problem;
      return;
    }
    if (K.ReblockProblem.empty())
      K.ReblockProblem = Scan.ReblockProblem;
    if (K.ReblockProblem.empty())
      K.ReblockProblem = readReblockAxes(Scan, Ctx, OffsetInText, K);
    for (KernelDefinition::PointerParam &PP : K.PointerParams) {
      if (!PP.ConstAt)
        continue;
      for (const DeclRefExpr *Use : Scan.Uses[PP.Index])
        if (!readsOneElement(Ctx, Use)) {
          PP.ConstAt.reset();
          break;
        }
    }
  }
  if (K.ReblockProblem.empty() &&
      !(K.Reblock[0].Used || K.Reblock[1].Used || K.Reblock[2].Used))
    K.ReblockProblem = "it reads no thread index";
  if (K.PointerParams.empty())
    K.RestrictProblem = "it has no pointer parameter";
}

} // namespace rewrite
} // namespace forgestencil

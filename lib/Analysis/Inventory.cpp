//===- Inventory.cpp - The kernels and launch sites of an app --------------===//

#include "forgestencil/Analysis/Inventory.h"
#include "forgestencil/Analysis/PreprocessorFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TemplateBase.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace llvm;

namespace forgestencil {
namespace analysis {

std::string templateArgumentsText(const TemplateArgumentList &TA,
                                  const LangOptions &LO) {
  std::string S;
  raw_string_ostream OS(S);
  PrintingPolicy PP(LO);
  PP.SuppressTagKeyword = true;
  bool First = true;
  for (const TemplateArgument &A : TA.asArray()) {
    OS << (First ? "" : ", ");
    A.print(PP, OS, /*IncludeType=*/false);
    First = false;
  }
  return S;
}

std::string canonicalPath(StringRef Path) {
  SmallString<256> Real;
  if (!sys::fs::real_path(Path, Real))
    return std::string(Real);
  SmallString<256> P(Path);
  sys::path::remove_dots(P, true);
  return std::string(P);
}

namespace {

class Collector : public RecursiveASTVisitor<Collector> {
public:
  Collector(ASTContext &Ctx, Inventory &Inv, const driver::TranslationUnit &TU,
            driver::CudaSide Side, const PreprocessorFacts &PP)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Inv(Inv), TU(TU), Side(Side),
        PP(PP) {}

  // Launches inside host function templates are seen in each
  // instantiation too, where the kernel and its template arguments are known.
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->hasAttr<CUDAGlobalAttr>() || !FD->doesThisDeclarationHaveABody())
      return true;
    if (FD->isTemplateInstantiation())
      return true;
    KernelInfo K;
    K.Name = FD->getQualifiedNameAsString();
    K.Pos = position(FD->getLocation());
    if (K.Pos.File.empty())
      return true;
    if (FunctionTemplateDecl *FTD = FD->getDescribedFunctionTemplate()) {
      K.IsTemplate = true;
      std::string S;
      raw_string_ostream OS(S);
      bool First = true;
      for (const NamedDecl *P : *FTD->getTemplateParameters()) {
        OS << (First ? "" : ", ") << text(P->getSourceRange());
        First = false;
      }
      K.TemplateParams = S;
    }
    for (const ParmVarDecl *P : FD->parameters())
      K.Params.push_back(text(P->getSourceRange()));
    K.TranslationUnit = TU.Job.File;
    Inv.addKernel(std::move(K), Side);
    // Kernel bodies are analysed on the device side, where code under
    // __CUDA_ARCH__ is visible; a template is analysed per instantiation.
    if (Side == driver::CudaSide::Device) {
      if (FunctionTemplateDecl *FTD = FD->getDescribedFunctionTemplate()) {
        for (FunctionDecl *Spec : FTD->specializations())
          if (Spec->hasBody())
            analyse(*Spec);
      } else {
        analyse(*FD);
      }
    }
    return true;
  }

  void analyse(const FunctionDecl &FD) {
    if (bodyHasErrors(FD)) {
      KernelAnalysis KA;
      KA.Kernel = FD.getNameAsString();
      KA.Result = KernelAnalysis::NotStencil;
      KA.Reasons.push_back("the kernel's body did not parse cleanly; it is "
                           "neither analysed nor rewritten");
      KA.Pos = position(FD.getLocation());
      if (const TemplateArgumentList *TA = FD.getTemplateSpecializationArgs())
        KA.Kernel += "<" + templateArgs(*TA) + ">";
      Inv.addAnalysis(std::move(KA));
      return;
    }
    KernelAnalysis KA = analyzeKernel(FD, Ctx, &PP);
    if (KA.IR)
      KA.IR->SourceFile = KA.Pos.File;
    Inv.addAnalysis(std::move(KA));
  }

  /// Whether clang recovered from errors inside the function: an invalid
  /// declaration or a RecoveryExpr anywhere in its body.
  static bool bodyHasErrors(const FunctionDecl &FD) {
    if (FD.isInvalidDecl())
      return true;
    struct Finder : RecursiveASTVisitor<Finder> {
      bool Found = false;
      bool VisitRecoveryExpr(RecoveryExpr *) {
        Found = true;
        return false;
      }
      bool VisitDecl(Decl *D) {
        if (D->isInvalidDecl())
          Found = true;
        return !Found;
      }
    } F;
    F.TraverseStmt(FD.getBody());
    return F.Found;
  }

  std::string templateArgs(const TemplateArgumentList &TA) {
    return templateArgumentsText(TA, Ctx.getLangOpts());
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) {
    LaunchSite L;
    SourceLocation Begin = E->getBeginLoc();
    L.InMacro = Begin.isMacroID();
    if (L.InMacro) {
      L.MacroName =
          Lexer::getImmediateMacroName(Begin, SM, Ctx.getLangOpts()).str();
      // Report the launch where the macro is used.
      Begin = SM.getExpansionLoc(Begin);
    }
    L.Pos = position(Begin);
    if (L.Pos.File.empty())
      return true;
    L.InDependentContext = E->isInstantiationDependent() ||
                           E->getDirectCallee() == nullptr;
    if (const FunctionDecl *FD = E->getDirectCallee()) {
      L.Kernel = FD->getQualifiedNameAsString();
      const FunctionDecl *Def = FD->getTemplateInstantiationPattern();
      Def = Def ? Def : FD;
      if (const FunctionDecl *D = Def->getDefinition())
        L.KernelPos = position(D->getLocation());
      if (const TemplateArgumentList *TA = FD->getTemplateSpecializationArgs())
        L.TemplateArgs = templateArgs(*TA);
    } else {
      // A dependent callee inside a template: keep the spelling.
      L.Kernel = text(E->getCallee()->getSourceRange());
    }
    const CallExpr *Config = E->getConfig();
    auto ConfigArg = [&](unsigned I) -> std::string {
      if (!Config || I >= Config->getNumArgs())
        return "";
      const Expr *A = Config->getArg(I);
      if (isa<CXXDefaultArgExpr>(A))
        return "";
      return text(A->getSourceRange());
    };
    L.Grid = ConfigArg(0);
    L.Block = ConfigArg(1);
    L.SharedMem = ConfigArg(2);
    L.Stream = ConfigArg(3);
    for (const Expr *A : E->arguments())
      if (!isa<CXXDefaultArgExpr>(A))
        L.Args.push_back(text(A->getSourceRange()));
    if (const auto *FD = dyn_cast_or_null<FunctionDecl>(CurrentFunction))
      L.EnclosingFunction = FD->getQualifiedNameAsString();
    L.TranslationUnit = TU.Job.File;
    L.Loops = enclosingLoops(E);
    Inv.addLaunch(std::move(L));
    return true;
  }

  bool TraverseFunctionDecl(FunctionDecl *FD) {
    Decl *Saved = CurrentFunction;
    CurrentFunction = FD;
    // Loops do not reach across functions (lambdas in loops aside).
    std::vector<const Stmt *> SavedLoops;
    SavedLoops.swap(LoopStack);
    struct Restore {
      std::vector<const Stmt *> &Stack, &Saved;
      ~Restore() { Stack.swap(Saved); }
    } RestoreLoops{LoopStack, SavedLoops};
    bool R = RecursiveASTVisitor::TraverseFunctionDecl(FD);
    CurrentFunction = Saved;
    return R;
  }
  bool TraverseCXXMethodDecl(CXXMethodDecl *MD) {
    Decl *Saved = CurrentFunction;
    CurrentFunction = MD;
    bool R = RecursiveASTVisitor::TraverseCXXMethodDecl(MD);
    CurrentFunction = Saved;
    return R;
  }

private:
  /// The host loops around the current point of the traversal, innermost
  /// first. A stack kept while traversing, rather than the AST parent map,
  /// which would be built for every declaration of the CUDA headers too.
  std::vector<EnclosingLoop> enclosingLoops(const Stmt *) {
    std::vector<EnclosingLoop> Loops;
    for (auto It = LoopStack.rbegin(); It != LoopStack.rend(); ++It) {
      const Stmt *S = *It;
      if (const auto *F = dyn_cast<ForStmt>(S))
        Loops.push_back(describeFor(F));
      else if (const auto *W = dyn_cast<WhileStmt>(S))
        Loops.push_back(describeLoop(W, "while", W->getBody()));
      else if (const auto *D = dyn_cast<DoStmt>(S))
        Loops.push_back(describeLoop(D, "do", D->getBody()));
    }
    return Loops;
  }

public:
  bool TraverseForStmt(ForStmt *S, DataRecursionQueue * = nullptr) {
    LoopStack.push_back(S);
    bool R = RecursiveASTVisitor::TraverseForStmt(S);
    LoopStack.pop_back();
    return R;
  }
  bool TraverseWhileStmt(WhileStmt *S, DataRecursionQueue * = nullptr) {
    LoopStack.push_back(S);
    bool R = RecursiveASTVisitor::TraverseWhileStmt(S);
    LoopStack.pop_back();
    return R;
  }
  bool TraverseDoStmt(DoStmt *S, DataRecursionQueue * = nullptr) {
    LoopStack.push_back(S);
    bool R = RecursiveASTVisitor::TraverseDoStmt(S);
    LoopStack.pop_back();
    return R;
  }

private:
  EnclosingLoop describeLoop(const Stmt *Loop, const char *Kind,
                             const Stmt *Body) {
    EnclosingLoop L;
    L.Pos = position(Loop->getBeginLoc());
    L.Kind = Kind;
    L.LooksLikeTimeLoop = swapsPointers(Body);
    return L;
  }

  EnclosingLoop describeFor(const ForStmt *F) {
    EnclosingLoop L = describeLoop(F, "for", F->getBody());
    if (const auto *C = dyn_cast_or_null<BinaryOperator>(
            F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr)) {
      if (C->isComparisonOp()) {
        const Expr *Bound = C->getRHS();
        const Expr *Start = nullptr;
        if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
            DS && DS->isSingleDecl())
          if (const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
              VD && VD->hasInit())
            Start = VD->getInit();
        bool Down = C->getOpcode() == BO_GT || C->getOpcode() == BO_GE;
        // A loop counting down runs from its start, not to its bound.
        L.TripCount = Down && Start
                          ? text(Start->getSourceRange()) + " .. " +
                                text(Bound->getSourceRange())
                          : text(Bound->getSourceRange());
        auto Constant = [&](const Expr *E) -> std::optional<int64_t> {
          if (!E || E->isValueDependent())
            return std::nullopt;
          if (auto V = E->getIntegerConstantExpr(Ctx))
            return V->getSExtValue();
          return std::nullopt;
        };
        // Trips are known only when both ends are constants (unit steps).
        auto B = Constant(Bound), S = Constant(Start);
        if (B && S) {
          int64_t Trips = Down ? *S - *B : *B - *S;
          if (C->getOpcode() == BO_LE || C->getOpcode() == BO_GE)
            ++Trips;
          L.ConstantTrips = Trips > 0 ? Trips : 0;
        }
      }
    }
    // The same kernels launched every iteration also mark a time loop.
    struct Launches : RecursiveASTVisitor<Launches> {
      unsigned N = 0;
      bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *) {
        ++N;
        return true;
      }
    } Count;
    Count.TraverseStmt(const_cast<Stmt *>(F->getBody()));
    if (Count.N > 0 && L.TripCount.size() && !L.ConstantTrips)
      L.LooksLikeTimeLoop = true;
    return L;
  }

  /// std::swap(a, b) or t = a; a = b; b = t; on pointers inside Body.
  static bool swapsPointers(const Stmt *Body) {
    struct Finder : RecursiveASTVisitor<Finder> {
      bool Found = false;
      bool VisitCallExpr(CallExpr *C) {
        if (const FunctionDecl *FD = C->getDirectCallee())
          // Operators and conversions have no identifier (getName()
          // asserts on them): only a function called swap counts.
          if (FD->getDeclName().isIdentifier() && FD->getName() == "swap" &&
              C->getNumArgs() == 2 &&
              C->getArg(0)->getType()->isPointerType())
            Found = true;
        return !Found;
      }
      bool VisitCompoundStmt(CompoundStmt *CS) {
        // t = a; a = b; b = t;
        const Stmt *Prev2 = nullptr, *Prev1 = nullptr;
        for (const Stmt *S : CS->body()) {
          if (Prev2 && Prev1 && isPtrAssign(Prev1) && isPtrAssign(S) &&
              (isPtrAssign(Prev2) || isPtrDecl(Prev2)))
            Found = true;
          Prev2 = Prev1;
          Prev1 = S;
        }
        return !Found;
      }
      static bool isPtrAssign(const Stmt *S) {
        const auto *B = dyn_cast<BinaryOperator>(S);
        return B && B->getOpcode() == BO_Assign &&
               B->getType()->isPointerType();
      }
      static bool isPtrDecl(const Stmt *S) {
        const auto *DS = dyn_cast<DeclStmt>(S);
        if (!DS || !DS->isSingleDecl())
          return false;
        const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
        return VD && VD->getType()->isPointerType() && VD->hasInit();
      }
    } F;
    F.TraverseStmt(const_cast<Stmt *>(Body));
    return F.Found;
  }

  SourcePos position(SourceLocation Loc) {
    SourcePos P;
    Loc = SM.getFileLoc(Loc);
    if (Loc.isInvalid())
      return P;
    FileID FID = SM.getFileID(Loc);
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
    if (!FE)
      return P;
    P.File = canonicalPath(FE->getName());
    P.Line = SM.getSpellingLineNumber(Loc);
    P.Column = SM.getSpellingColumnNumber(Loc);
    P.Offset = SM.getFileOffset(Loc);
    return P;
  }

  std::string text(SourceRange R) {
    CharSourceRange CR = CharSourceRange::getTokenRange(R);
    CR = Lexer::makeFileCharRange(CR, SM, Ctx.getLangOpts());
    if (CR.isInvalid())
      return "";
    std::string S = Lexer::getSourceText(CR, SM, Ctx.getLangOpts()).str();
    // One line, single spaces: the text is for display and matching.
    std::string Out;
    bool Space = false;
    for (char C : S) {
      if (C == '\n' || C == '\r' || C == '\t' || C == ' ') {
        Space = !Out.empty();
        continue;
      }
      if (Space)
        Out += ' ';
      Space = false;
      Out += C;
    }
    return Out;
  }

  ASTContext &Ctx;
  SourceManager &SM;
  Inventory &Inv;
  const driver::TranslationUnit &TU;
  driver::CudaSide Side;
  const PreprocessorFacts &PP;
  Decl *CurrentFunction = nullptr;
  std::vector<const Stmt *> LoopStack;
};

class CollectorConsumer : public ASTConsumer {
public:
  CollectorConsumer(CompilerInstance &CI, Inventory &Inv,
                    const driver::TranslationUnit &TU, driver::CudaSide Side)
      : Inv(Inv), TU(TU), Side(Side) {
    if (CI.hasPreprocessor())
      PP.attach(CI.getPreprocessor());
  }
  void HandleTranslationUnit(ASTContext &Ctx) override {
    Collector C(Ctx, Inv, TU, Side, PP);
    C.TraverseDecl(Ctx.getTranslationUnitDecl());
  }

private:
  Inventory &Inv;
  const driver::TranslationUnit &TU;
  driver::CudaSide Side;
  PreprocessorFacts PP;
};

} // namespace

std::unique_ptr<ASTConsumer>
Inventory::makeConsumer(CompilerInstance &CI, const driver::TranslationUnit &TU,
                        driver::CudaSide Side) {
  return std::make_unique<CollectorConsumer>(CI, *this, TU, Side);
}

void Inventory::addKernel(KernelInfo K, driver::CudaSide Side) {
  auto [It, Inserted] = Kernels.emplace(K.Pos, K);
  KernelInfo &Stored = It->second;
  if (Side == driver::CudaSide::Host)
    Stored.SeenOnHost = true;
  else
    Stored.SeenOnDevice = true;
}

void Inventory::addAnalysis(KernelAnalysis A) {
  auto It = Analyses.find(A.Kernel);
  if (It == Analyses.end()) {
    Analyses.emplace(A.Kernel, std::move(A));
    return;
  }
  // The same kernel seen through several TUs: the first analysis stands.
  KernelAnalysis &First = It->second;
  if (First.Pos.File == A.Pos.File && First.Pos.Offset == A.Pos.Offset)
    return;
  for (const KernelAnalysis &S : SameName)
    if (S.Pos.File == A.Pos.File && S.Pos.Offset == A.Pos.Offset)
      return;
  // Two kernels of one name: launches, tuning results and patches find a
  // kernel by its name, so neither may be rewritten.
  auto Where = [](const KernelAnalysis &K) {
    return llvm::sys::path::filename(K.Pos.File).str() + ":" +
           std::to_string(K.Pos.Line);
  };
  const std::string Why = "another kernel named '" + A.Kernel +
                          "' is defined at ";
  First.NotRewritten = Why + Where(A);
  A.NotRewritten = Why + Where(First);
  SameName.push_back(std::move(A));
}

const KernelAnalysis *Inventory::analysisFor(const LaunchSite &L) const {
  auto It = Analyses.find(L.kernelKey());
  if (It == Analyses.end())
    return nullptr;
  auto Same = [&](const KernelAnalysis &A) {
    return A.Pos.File == L.KernelPos.File && A.Pos.Offset == L.KernelPos.Offset;
  };
  if (L.KernelPos.File.empty() || Same(It->second))
    return &It->second;
  for (const KernelAnalysis &A : SameName)
    if (A.Kernel == L.kernelKey() && Same(A))
      return &A;
  return &It->second;
}

void Inventory::addLaunch(LaunchSite L) {
  // A template's pattern and its instantiations share a location: the first
  // instantiation seen stands for the site (the pattern's callee is
  // dependent); further instantiations are recorded beside it.
  auto [It, Inserted] = Launches.emplace(L.Pos, L);
  if (Inserted)
    return;
  LaunchSite &Old = It->second;
  if (Old.InDependentContext && !L.InDependentContext) {
    std::vector<std::string> Others = std::move(Old.OtherInstantiations);
    Old = std::move(L);
    Old.OtherInstantiations = std::move(Others);
    return;
  }
  if (!L.InDependentContext && L.kernelKey() != Old.kernelKey() &&
      std::find(Old.OtherInstantiations.begin(), Old.OtherInstantiations.end(),
                L.kernelKey()) == Old.OtherInstantiations.end())
    Old.OtherInstantiations.push_back(L.kernelKey());
}

std::string relativeTo(StringRef Path, StringRef Root) {
  if (Root.empty())
    return Path.str();
  SmallString<256> R(Root);
  if (!R.ends_with("/"))
    R += "/";
  if (Path.starts_with(R))
    return Path.drop_front(R.size()).str();
  return Path.str();
}

json::Object toJSON(const KernelInfo &K, StringRef Root) {
  json::Array Params;
  for (const std::string &P : K.Params)
    Params.push_back(P);
  return json::Object{{"name", K.Name},
                      {"file", relativeTo(K.Pos.File, Root)},
                      {"line", K.Pos.Line},
                      {"column", K.Pos.Column},
                      {"template", K.IsTemplate},
                      {"template_params", K.TemplateParams},
                      {"params", std::move(Params)},
                      {"translation_unit", relativeTo(K.TranslationUnit, Root)}};
}

json::Object toJSON(const LaunchSite &L, StringRef Root) {
  json::Array Args;
  for (const std::string &A : L.Args)
    Args.push_back(A);
  return json::Object{{"kernel", L.Kernel},
                      {"template_args", L.TemplateArgs},
                      {"file", relativeTo(L.Pos.File, Root)},
                      {"line", L.Pos.Line},
                      {"column", L.Pos.Column},
                      {"grid", L.Grid},
                      {"block", L.Block},
                      {"shared_mem", L.SharedMem},
                      {"stream", L.Stream},
                      {"args", std::move(Args)},
                      {"function", L.EnclosingFunction},
                      {"in_macro", L.InMacro},
                      {"macro", L.MacroName},
                      {"dependent", L.InDependentContext},
                      {"translation_unit", relativeTo(L.TranslationUnit, Root)}};
}

} // namespace analysis
} // namespace forgestencil

//===- Inventory.cpp - The kernels and launch sites of an app --------------===//

#include "forgestencil/Analysis/Inventory.h"
#include "forgestencil/Analysis/PreprocessorFacts.h"

#include "LaunchBlocks.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TemplateBase.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseSet.h"
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
            driver::CudaSide Side, const PreprocessorFacts &PP,
            const driver::ParseLog *Log)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Inv(Inv), TU(TU), Side(Side),
        PP(PP), Log(Log) {}

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
    // Errors anywhere in the kernel or in what it calls (the parse's log
    // knows where each error is), or clang's recovery inside its body.
    std::optional<driver::ParseDiagnostic> Error;
    if (Log)
      Error = Log->errorAffecting(FD);
    if (Error || bodyHasErrors(FD)) {
      KernelAnalysis KA;
      KA.Kernel = FD.getNameAsString();
      KA.Result = KernelAnalysis::NotStencil;
      KA.Reasons.push_back({ReasonKind::NotParsed, notParsedReason(Error)});
      KA.Pos = position(FD.getLocation());
      if (const TemplateArgumentList *TA = FD.getTemplateSpecializationArgs())
        KA.Kernel += "<" + templateArgs(*TA) + ">";
      Inv.addAnalysis(std::move(KA));
      return;
    }
    // The block its launches in this unit use, once a unit.
    if (!Blocks)
      Blocks = detail::launchBlocks(Ctx);
    auto B = Blocks->find(FD.getCanonicalDecl());
    KernelAnalysis KA = analyzeKernel(FD, Ctx, &PP,
                                      B == Blocks->end() ? nullptr : &B->second);
    if (KA.IR)
      KA.IR->SourceFile = KA.Pos.File;
    Inv.addAnalysis(std::move(KA));
  }

  /// Why a kernel with errors is left alone: the first error, and the
  /// includes stood in for, whose declarations it may have needed.
  std::string notParsedReason(const std::optional<driver::ParseDiagnostic> &E) {
    std::string S = "the kernel's body did not parse cleanly";
    if (E)
      S += " (" + E->File + ":" + std::to_string(E->Line) + ":" +
           std::to_string(E->Column) + ": " + E->Message + ")";
    if (Log && !Log->standIns().empty()) {
      S += "; the TU was parsed with empty stand-ins for";
      for (const driver::StandIn &SI : Log->standIns())
        S += " " + SI.spelled();
      S += ", which may declare what it uses";
    }
    return S + "; it is neither analysed nor rewritten";
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
      // The kernel's name from an argument, everything else in the body of
      // the same expansion.
      const SourceLocation End = E->getEndLoc();
      if (SM.isMacroArgExpansion(Begin) && End.isMacroID() &&
          !SM.isMacroArgExpansion(End)) {
        const SourceLocation Use = SM.getImmediateExpansionRange(Begin).getBegin();
        L.MacroNamesKernel =
            Use.isMacroID() && !SM.isMacroArgExpansion(Use) &&
            SM.getImmediateExpansionRange(Use).getBegin() ==
                SM.getImmediateExpansionRange(End).getBegin();
      }
      // Report the launch where the macro is used.
      Begin = SM.getExpansionLoc(Begin);
    }
    L.Pos = position(Begin);
    if (L.Pos.File.empty())
      return true;
    L.InDependentContext = E->isInstantiationDependent();
    if (const FunctionDecl *FD = E->getDirectCallee()) {
      L.Kernel = FD->getQualifiedNameAsString();
      const FunctionDecl *Def = FD->getTemplateInstantiationPattern();
      Def = Def ? Def : FD;
      if (const FunctionDecl *D = Def->getDefinition())
        L.KernelPos = position(D->getLocation());
      if (const TemplateArgumentList *TA = FD->getTemplateSpecializationArgs())
        L.TemplateArgs = templateArgs(*TA);
    } else if (!nameDependentKernel(E->getCallee(), L)) {
      // A pointer, or a callee that only instantiation resolves: keep the
      // spelling.
      L.Kernel = text(E->getCallee()->getSourceRange());
      L.ThroughPointer = !L.InDependentContext;
      PointerVar = pointerVariable(E->getCallee());
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
    finishLaunch(E, L);
    return true;
  }

  /// cudaLaunchKernel(func, grid, block, args, shmem, stream) and the
  /// cooperative and extensible forms, called from the app's code.
  bool VisitCallExpr(CallExpr *E) {
    if (isa<CUDAKernelCallExpr>(E))
      return true;
    const FunctionDecl *Callee = E->getDirectCallee();
    if (!Callee || !Callee->getDeclName().isIdentifier())
      return true;
    StringRef Name = Callee->getName();
    Name.consume_back("_ptsz");
    bool Ex = Name == "cudaLaunchKernelEx" || Name == "cudaLaunchKernelExC";
    if (!Ex && Name != "cudaLaunchKernel" &&
        Name != "cudaLaunchCooperativeKernel")
      return true;
    SourceLocation Begin = E->getBeginLoc();
    if (SM.isInSystemHeader(SM.getExpansionLoc(Begin)))
      return true; // The runtime's own wrappers.
    LaunchSite L;
    L.Kind = Ex ? "cudaLaunchKernelEx" : Name.str();
    L.InMacro = Begin.isMacroID();
    if (L.InMacro) {
      L.MacroName =
          Lexer::getImmediateMacroName(Begin, SM, Ctx.getLangOpts()).str();
      Begin = SM.getExpansionLoc(Begin);
    }
    L.Pos = position(Begin);
    if (L.Pos.File.empty())
      return true;
    L.InDependentContext = E->isInstantiationDependent();
    // cudaLaunchKernelEx(config, kernel, args...); the others
    // (kernel, grid, block, args, shmem, stream).
    unsigned KernelArg = Ex ? 1 : 0;
    auto Arg = [&](unsigned I) -> std::string {
      if (I >= E->getNumArgs() || isa<CXXDefaultArgExpr>(E->getArg(I)))
        return "";
      return text(E->getArg(I)->getSourceRange());
    };
    if (KernelArg < E->getNumArgs()) {
      const Expr *K = E->getArg(KernelArg)->IgnoreParenCasts();
      if (const auto *U = dyn_cast<UnaryOperator>(K);
          U && U->getOpcode() == UO_AddrOf)
        K = U->getSubExpr()->IgnoreParenCasts();
      const auto *Ref = dyn_cast<DeclRefExpr>(K);
      const auto *FD = Ref ? dyn_cast<FunctionDecl>(Ref->getDecl()) : nullptr;
      if (FD && FD->hasAttr<CUDAGlobalAttr>()) {
        L.Kernel = FD->getQualifiedNameAsString();
        if (const TemplateArgumentList *TA =
                FD->getTemplateSpecializationArgs())
          L.TemplateArgs = templateArgs(*TA);
      } else if (!nameDependentKernel(K, L)) {
        L.Kernel = Arg(KernelArg);
        L.ThroughPointer = !L.InDependentContext;
        PointerVar = pointerVariable(K);
      }
    }
    if (Ex) {
      L.Grid = Arg(0); // The cudaLaunchConfig_t holds the configuration.
      for (unsigned I = 2; I < E->getNumArgs(); ++I)
        L.Args.push_back(Arg(I));
    } else {
      L.Grid = Arg(1);
      L.Block = Arg(2);
      L.Args.push_back(Arg(3));
      L.SharedMem = Arg(4);
      L.Stream = Arg(5);
    }
    finishLaunch(E, L);
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
  /// A launch inside a template names its kernel template with dependent
  /// arguments ("k<T, 4>"): the template's name and the arguments as written.
  bool nameDependentKernel(const Expr *Callee, LaunchSite &L) {
    const auto *ULE =
        dyn_cast<UnresolvedLookupExpr>(Callee->IgnoreParenImpCasts());
    if (!ULE || ULE->getNumDecls() == 0)
      return false;
    const NamedDecl *D = (*ULE->decls_begin())->getUnderlyingDecl();
    const FunctionDecl *FD = D->getAsFunction();
    if (!FD || !FD->hasAttr<CUDAGlobalAttr>())
      return false;
    L.Kernel = FD->getQualifiedNameAsString();
    std::string Args;
    for (const TemplateArgumentLoc &A : ULE->template_arguments())
      Args += (Args.empty() ? "" : ", ") + text(A.getSourceRange());
    L.TemplateArgs = Args;
    return true;
  }

  /// What every launch records about where it is.
  void finishLaunch(const Expr *E, LaunchSite &L) {
    if (const auto *FD = dyn_cast_or_null<FunctionDecl>(CurrentFunction))
      L.EnclosingFunction = FD->getQualifiedNameAsString();
    if (L.ThroughPointer)
      L.PossibleKernels = kernelsReferencedIn(CurrentFunction, PointerVar);
    PointerVar = nullptr;
    L.TranslationUnit = TU.Job.File;
    L.Loops = enclosingLoops(E);
    Inv.addLaunch(std::move(L));
  }

  /// The variable a launch calls through (`p`, `*p`, `(void *)p`).
  static const VarDecl *pointerVariable(const Expr *E) {
    E = E->IgnoreParenCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(E))
      if (U->getOpcode() == UO_Deref)
        E = U->getSubExpr()->IgnoreParenCasts();
    const auto *Ref = dyn_cast<DeclRefExpr>(E);
    return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  }

  /// The kernels a function names without launching them (their address
  /// goes into a pointer that a launch may call); with \p V, only those it
  /// stores in V (its initializer, `V = k`, `V = c ? k1 : k2`).
  static std::vector<std::string> kernelsReferencedIn(const Decl *D,
                                                      const VarDecl *V) {
    std::vector<std::string> Names;
    const auto *FD = dyn_cast_or_null<FunctionDecl>(D);
    if (!FD || !FD->getBody())
      return Names;
    struct Finder : RecursiveASTVisitor<Finder> {
      std::vector<std::string> &Names;
      const VarDecl *V;
      llvm::DenseSet<const Expr *> Callees;
      /// Inside a value stored in V (a depth count).
      unsigned InStore = 0;
      Finder(std::vector<std::string> &N, const VarDecl *V) : Names(N), V(V) {}
      bool isV(const Expr *E) const {
        const auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
        return R && R->getDecl() == V;
      }
      bool TraverseBinaryOperator(BinaryOperator *B) {
        if (!V || B->getOpcode() != BO_Assign || !isV(B->getLHS()))
          return RecursiveASTVisitor::TraverseBinaryOperator(B);
        ++InStore;
        bool R = TraverseStmt(B->getRHS());
        --InStore;
        return R;
      }
      bool TraverseVarDecl(VarDecl *D) {
        if (D != V)
          return RecursiveASTVisitor::TraverseVarDecl(D);
        ++InStore;
        bool R = RecursiveASTVisitor::TraverseVarDecl(D);
        --InStore;
        return R;
      }
      bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) {
        Callees.insert(E->getCallee()->IgnoreParenImpCasts());
        return true;
      }
      bool VisitDeclRefExpr(DeclRefExpr *E) {
        const auto *K = dyn_cast<FunctionDecl>(E->getDecl());
        if (!K || !K->hasAttr<CUDAGlobalAttr>() || Callees.contains(E) ||
            (V && !InStore))
          return true;
        std::string Name = K->getQualifiedNameAsString();
        if (std::find(Names.begin(), Names.end(), Name) == Names.end())
          Names.push_back(Name);
        return true;
      }
    } F(Names, V);
    F.TraverseStmt(FD->getBody());
    return Names;
  }

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
  const driver::ParseLog *Log;
  std::optional<std::map<const FunctionDecl *, LaunchBlock>> Blocks;
  Decl *CurrentFunction = nullptr;
  /// The variable the launch being recorded calls through, if any.
  const VarDecl *PointerVar = nullptr;
  std::vector<const Stmt *> LoopStack;
};

class CollectorConsumer : public ASTConsumer {
public:
  CollectorConsumer(CompilerInstance &CI, Inventory &Inv,
                    const driver::TranslationUnit &TU, driver::CudaSide Side,
                    const driver::ParseLog *Log)
      : Inv(Inv), TU(TU), Side(Side), Log(Log) {
    if (CI.hasPreprocessor())
      PP.attach(CI.getPreprocessor());
  }
  void HandleTranslationUnit(ASTContext &Ctx) override {
    Collector C(Ctx, Inv, TU, Side, PP, Log);
    C.TraverseDecl(Ctx.getTranslationUnitDecl());
  }

private:
  Inventory &Inv;
  const driver::TranslationUnit &TU;
  driver::CudaSide Side;
  const driver::ParseLog *Log;
  PreprocessorFacts PP;
};

} // namespace

std::unique_ptr<ASTConsumer>
Inventory::makeConsumer(CompilerInstance &CI, const driver::TranslationUnit &TU,
                        driver::CudaSide Side) {
  return std::make_unique<CollectorConsumer>(CI, *this, TU, Side,
                                             driver::parseLogOf(CI));
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

std::vector<std::string>
Inventory::instantiationsOf(const LaunchSite &L) const {
  std::vector<std::string> Keys;
  if (!L.InDependentContext)
    return Keys;
  std::string Prefix = L.Kernel + "<";
  for (auto It = Analyses.lower_bound(Prefix);
       It != Analyses.end() && StringRef(It->first).starts_with(Prefix); ++It)
    Keys.push_back(It->first);
  return Keys;
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
  json::Array Possible;
  for (const std::string &K : L.PossibleKernels)
    Possible.push_back(K);
  return json::Object{{"kernel", L.Kernel},
                      {"kind", L.Kind},
                      {"through_pointer", L.ThroughPointer},
                      {"possible_kernels", std::move(Possible)},
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

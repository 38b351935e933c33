//===- RewriteFacts.cpp - What rewriting needs to know about an app -------===//

#include "forgestencil/Rewrite/RewriteFacts.h"

#include "RestrictFacts.h"

#include "forgestencil/Analysis/Inventory.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace clang;
using namespace llvm;

namespace forgestencil {
namespace rewrite {

using analysis::canonicalPath;

namespace {

/// Where a launch statement sits, found while visiting its parent.
struct StatementSlot {
  StatementContext Context = StatementContext::InBlock;
  SourceLocation ControlToken; ///< For an unbraced body.
  bool AlreadyGuarded = false;
};

/// True when \p Cond is a call of forgestencil::use_ours(), or of
/// forgestencil::macro_launch<...>::ours(), the guard a patch puts into a
/// macro's body.
bool isUseOursCall(const Expr *Cond) {
  const auto *Call = dyn_cast_or_null<CallExpr>(Cond ? Cond->IgnoreImplicit()
                                                     : nullptr);
  if (!Call)
    return false;
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return false;
  if (FD->getQualifiedNameAsString() == "forgestencil::use_ours")
    return true;
  const auto *Class = dyn_cast<CXXRecordDecl>(FD->getDeclContext());
  return FD->getName() == "ours" && Class &&
         Class->getName() == "macro_launch" &&
         Class->getDeclContext()->isNamespace() &&
         cast<NamespaceDecl>(Class->getDeclContext())->getName() ==
             "forgestencil";
}

class FactCollector : public RecursiveASTVisitor<FactCollector> {
public:
  FactCollector(ASTContext &Ctx, RewriteFacts &Facts)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), LO(Ctx.getLangOpts()),
        Facts(Facts) {}

  // Launches are collected once, in the pattern a template is written as.
  bool shouldVisitTemplateInstantiations() const { return false; }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->hasAttr<CUDAGlobalAttr>() || FD->isTemplateInstantiation())
      return true;
    // An explicit specialization is not a kernel of its own name: its
    // template is left alone (see recordInstantiations).
    if (FD->getTemplateSpecializationKind() == TSK_ExplicitSpecialization)
      return true;
    if (FD->doesThisDeclarationHaveABody())
      recordDefinition(FD);
    return true;
  }

  bool VisitCompoundStmt(CompoundStmt *S) {
    for (Stmt *Child : S->body())
      markSlot(Child, {});
    return true;
  }
  bool VisitCaseStmt(CaseStmt *S) { return markSlot(S->getSubStmt(), {}); }
  bool VisitDefaultStmt(DefaultStmt *S) {
    return markSlot(S->getSubStmt(), {});
  }
  bool VisitLabelStmt(LabelStmt *S) { return markSlot(S->getSubStmt(), {}); }

  bool VisitIfStmt(IfStmt *S) {
    markSlot(S->getThen(), unbraced(S->getRParenLoc()));
    StatementSlot Else = unbraced(S->getElseLoc());
    Else.AlreadyGuarded = isUseOursCall(S->getCond());
    markSlot(S->getElse(), Else);
    // The guard's else branch is a block holding the original launch.
    if (Else.AlreadyGuarded)
      if (auto *Block = dyn_cast_or_null<CompoundStmt>(S->getElse()))
        for (Stmt *Child : Block->body())
          markSlot(Child, StatementSlot{StatementContext::InBlock, {}, true});
    return true;
  }
  bool VisitForStmt(ForStmt *S) {
    return markSlot(S->getBody(), unbraced(S->getRParenLoc()));
  }
  bool VisitCXXForRangeStmt(CXXForRangeStmt *S) {
    return markSlot(S->getBody(), unbraced(S->getRParenLoc()));
  }
  bool VisitWhileStmt(WhileStmt *S) {
    return markSlot(S->getBody(), unbraced(S->getRParenLoc()));
  }
  bool VisitDoStmt(DoStmt *S) {
    return markSlot(S->getBody(), unbraced(S->getDoLoc()));
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) {
    recordLaunch(E);
    return true;
  }

  bool TraverseFunctionDecl(FunctionDecl *FD) {
    const FunctionDecl *Saved = CurrentFunction;
    CurrentFunction = FD;
    bool R = RecursiveASTVisitor::TraverseFunctionDecl(FD);
    CurrentFunction = Saved;
    return R;
  }
  bool TraverseCXXMethodDecl(CXXMethodDecl *MD) {
    const FunctionDecl *Saved = CurrentFunction;
    CurrentFunction = MD;
    bool R = RecursiveASTVisitor::TraverseCXXMethodDecl(MD);
    CurrentFunction = Saved;
    return R;
  }

private:
  static StatementSlot unbraced(SourceLocation ControlToken) {
    return StatementSlot{StatementContext::UnbracedBody, ControlToken, false};
  }

  bool markSlot(Stmt *S, StatementSlot Slot) {
    if (!S || isa<CompoundStmt>(S))
      return true;
    auto *E = dyn_cast<Expr>(S);
    auto *Launch =
        E ? dyn_cast<CUDAKernelCallExpr>(E->IgnoreImplicit()) : nullptr;
    if (!Launch)
      return true;
    // The guard's else block is seen again as a plain block: keep what the
    // guard said about it.
    auto [It, Inserted] = Slots.try_emplace(Launch, Slot);
    if (!Inserted)
      It->second.AlreadyGuarded |= Slot.AlreadyGuarded;
    return true;
  }

  /// The file and offset of a location spelled directly in a file.
  std::optional<FileOffset> fileOffset(SourceLocation Loc) {
    if (Loc.isInvalid() || Loc.isMacroID())
      return std::nullopt;
    FileID FID = SM.getFileID(Loc);
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
    if (!FE)
      return std::nullopt;
    FileOffset P{canonicalPath(FE->getName()), SM.getFileOffset(Loc)};
    if (!Facts.contents().count(P.File))
      Facts.addContent(P.File, SM.getBufferData(FID).str());
    return P;
  }

  /// One past the last character of the token at \p Loc.
  SourceLocation tokenEnd(SourceLocation Loc) {
    return Lexer::getLocForEndOfToken(Loc, 0, SM, LO);
  }

  /// Exact text of a token range that is spelled in one file.
  std::optional<std::string> exactText(SourceRange R) {
    CharSourceRange CR = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(R), SM, LO);
    if (CR.isInvalid())
      return std::nullopt;
    return Lexer::getSourceText(CR, SM, LO).str();
  }

  /// One past the `;` that ends a statement or declaration ending at \p End.
  std::optional<unsigned> offsetAfterSemicolon(SourceLocation End) {
    if (End.isMacroID())
      return std::nullopt;
    std::optional<Token> Next = Lexer::findNextToken(End, SM, LO);
    if (!Next || Next->isNot(tok::semi) || Next->getLocation().isMacroID())
      return std::nullopt;
    return SM.getFileOffset(Next->getLocation()) + 1;
  }

  std::string templateHeader(const TemplateParameterList *TPL) {
    return exactText(TPL->getSourceRange()).value_or("");
  }

  /// "float, 4": the arguments of an instantiation, printed as the analysis
  /// prints them, so "k<float, 4>" names the same thing on both sides.
  std::string templateArgsText(const TemplateArgumentList &TA) {
    return analysis::templateArgumentsText(TA, LO);
  }

  /// Records the instantiations of kernel template \p FTD in \p K. An
  /// explicit specialization has a body of its own that the renamed copy of
  /// the template would not follow, so it makes the template a problem.
  void recordInstantiations(FunctionTemplateDecl *FTD, KernelDefinition &K) {
    for (FunctionDecl *Spec : FTD->specializations()) {
      const TemplateArgumentList *TA = Spec->getTemplateSpecializationArgs();
      if (!TA)
        continue;
      std::string Args = templateArgsText(*TA);
      if (Spec->getTemplateSpecializationKind() ==
          TSK_ExplicitSpecialization) {
        K.Problem = "it has an explicit specialization " + K.Name + "<" +
                    Args + ">, whose body a copy of the template would not "
                    "follow";
        continue;
      }
      K.Instantiations.push_back(std::move(Args));
    }
    llvm::sort(K.Instantiations);
    K.Instantiations.erase(
        std::unique(K.Instantiations.begin(), K.Instantiations.end()),
        K.Instantiations.end());
  }

  void recordDefinition(FunctionDecl *FD) {
    KernelDefinition K;
    K.Name = FD->getNameAsString();
    K.QualifiedName = FD->getQualifiedNameAsString();
    std::optional<FileOffset> NamePos = fileOffset(FD->getLocation());
    if (!NamePos)
      return; // Defined by a macro: no place to copy it from.
    K.NamePos = *NamePos;
    K.Line = SM.getSpellingLineNumber(FD->getLocation());
    K.IsStatic = FD->getStorageClass() == SC_Static;
    K.HasRegisterLimit = FD->hasAttr<CUDALaunchBoundsAttr>();
    for (const FunctionDecl *D : FD->redecls())
      if (!D->doesThisDeclarationHaveABody())
        if (std::optional<FileOffset> P = fileOffset(D->getLocation()))
          K.DeclarationPos.push_back(*P);

    SourceLocation Begin = FD->getBeginLoc();
    if (FunctionTemplateDecl *FTD = FD->getDescribedFunctionTemplate()) {
      K.IsTemplate = true;
      Begin = FTD->getBeginLoc();
      K.TemplateHeader = templateHeader(FTD->getTemplateParameters());
      K.TemplateForwardArgs = forwardArgs(FTD->getTemplateParameters(), K);
      recordInstantiations(FTD, K);
    }
    // `__global__` comes from a macro and may precede what the declaration
    // counts as its start.
    for (const Attr *A : FD->attrs()) {
      SourceLocation AL = SM.getExpansionLoc(A->getLocation());
      if (AL.isValid() && SM.isWrittenInSameFile(AL, Begin) &&
          SM.isBeforeInTranslationUnit(AL, Begin))
        Begin = AL;
    }
    Begin = SM.getExpansionLoc(Begin);
    SourceLocation End = FD->getEndLoc();
    std::optional<FileOffset> B = fileOffset(Begin), E = fileOffset(End);
    if (!B || !E || B->File != K.NamePos.File) {
      K.Problem = "its definition is not spelled in one file";
      Facts.addKernel(std::move(K));
      return;
    }
    K.Begin = B->Offset;
    K.End = E->Offset + 1; // The closing brace.
    const std::string &Content = Facts.contents().at(K.NamePos.File);
    K.Text = Content.substr(K.Begin, K.End - K.Begin);
    K.NameOffsetInText = K.NamePos.Offset - K.Begin;
    // __maxnreg__ is no attribute clang keeps; its spelling before the name
    // says it (as a macro's would not: __launch_bounds__ is in the AST).
    {
      StringRef Head = StringRef(K.Text).take_front(K.NameOffsetInText);
      K.HasRegisterLimit |=
          Head.contains("maxnreg") || Head.contains("launch_bounds");
    }
    if (FD->getQualifierLoc())
      K.Problem = "it is defined out of line with a qualified name";

    unsigned Index = 0;
    for (const ParmVarDecl *P : FD->parameters()) {
      std::string Name = P->getName().str();
      std::optional<std::string> Written = exactText(P->getSourceRange());
      if (Name.empty())
        Name = "fs_arg" + std::to_string(Index);
      // Unnamed, or spelled by a macro (CloverLeaf's `_SHARED_KERNEL_ARGS_`):
      // the launcher declares it as the type clang read, with its name.
      if (P->getName().empty() ||
          (!Written && !P->getType()->isDependentType())) {
        std::string Printed;
        raw_string_ostream OS(Printed);
        P->getOriginalType().print(OS, Ctx.getPrintingPolicy(), Name);
        Written = Printed;
      }
      if (!Written) {
        K.Problem = "a parameter of a dependent type is spelled by a macro";
        Written = "";
      }
      if (P->isParameterPack())
        Name += "...";
      K.LauncherParams.push_back(*Written);
      K.ParamNames.push_back(Name);
      ++Index;
    }
    if (K.Problem.empty())
      recordRestrictFacts(FD, Ctx, K.Begin, K);
    Facts.addKernel(std::move(K));
  }

  std::string forwardArgs(const TemplateParameterList *TPL,
                          KernelDefinition &K) {
    std::string Out;
    for (const NamedDecl *P : *TPL) {
      if (P->getName().empty()) {
        K.Problem = "a template parameter has no name";
        return "";
      }
      if (!Out.empty())
        Out += ", ";
      Out += P->getName().str();
      if (P->isParameterPack())
        Out += "...";
    }
    return Out;
  }

  /// The kernel a launch calls, with the callee expression that names it.
  const FunctionDecl *launchedKernel(const CUDAKernelCallExpr *E,
                                     const Expr *&Callee) {
    Callee = E->getCallee()->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Callee))
      return dyn_cast<FunctionDecl>(DRE->getDecl());
    if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(Callee))
      return onlyFunction(ULE);
    return nullptr;
  }

  /// The one function an unresolved name can mean, if it is one.
  static const FunctionDecl *onlyFunction(const UnresolvedLookupExpr *ULE) {
    const FunctionDecl *Found = nullptr;
    for (const NamedDecl *D : ULE->decls()) {
      const FunctionDecl *FD = D->getAsFunction();
      if (!FD || (Found && Found->getCanonicalDecl() != FD->getCanonicalDecl()))
        return nullptr;
      Found = FD;
    }
    return Found;
  }

  /// `ns::` and `<float, 4>` as written around a name.
  template <typename RefExpr>
  void recordSpelling(const RefExpr *Ref, std::string &Qualifier,
                      std::string &TemplateArgs) {
    if (NestedNameSpecifierLoc Q = Ref->getQualifierLoc())
      Qualifier = exactText(Q.getSourceRange()).value_or("");
    if (Ref->hasExplicitTemplateArgs())
      TemplateArgs =
          exactText({Ref->getLAngleLoc(), Ref->getRAngleLoc()}).value_or("");
  }

  template <typename RefExpr>
  void recordCalleeSpelling(const RefExpr *Ref, LaunchStatement &L) {
    recordSpelling(Ref, L.Qualifier, L.ExplicitTemplateArgs);
  }

  void recordLaunch(CUDAKernelCallExpr *E) {
    LaunchStatement L;
    SourceLocation Begin = E->getBeginLoc();
    std::optional<FileOffset> Pos = fileOffset(SM.getExpansionLoc(Begin));
    if (!Pos)
      return;
    L.Pos = *Pos;
    SourceLocation Spelled = SM.getExpansionLoc(Begin);
    L.Line = SM.getSpellingLineNumber(Spelled);
    L.Column = SM.getSpellingColumnNumber(Spelled);
    auto Done = [&](std::string Problem) {
      if (L.Problem.empty())
        L.Problem = std::move(Problem);
      Facts.addLaunch(std::move(L));
    };

    const Expr *Callee = nullptr;
    const FunctionDecl *Kernel = launchedKernel(E, Callee);
    L.Kernel = Kernel ? Kernel->getQualifiedNameAsString()
                      : exactText(E->getCallee()->getSourceRange()).value_or("");

    auto Slot = Slots.find(E);
    if (Slot != Slots.end())
      L.AlreadyGuarded = Slot->second.AlreadyGuarded;
    if (Begin.isMacroID() || E->getEndLoc().isMacroID()) {
      StringRef Macro = Lexer::getImmediateMacroName(Begin, SM, LO);
      std::string Why;
      if (macroBodyLaunch(E, L, Why))
        return recordMacroLaunch(E, Kernel, Callee, Spelled, Slot, L, Done);
      if (!Why.empty())
        return Done(Why);
      if (SM.isMacroArgExpansion(Begin))
        return Done(("the launch is an argument of macro '" + Macro +
                     "'; a guard cannot be placed inside a macro argument")
                        .str());
      return Done(("the launch is spelled in the body of macro '" + Macro +
                   "'; rewriting it would change every expansion")
                      .str());
    }
    if (CurrentFunction && (CurrentFunction->hasAttr<CUDAGlobalAttr>() ||
                            CurrentFunction->hasAttr<CUDADeviceAttr>()))
      return Done("the launch is in device code (dynamic parallelism)");
    if (!Kernel) {
      const VarDecl *Ptr = pointerVariable(Callee);
      if (!Ptr)
        return Done("the launched kernel is not named directly (an overload "
                    "set or an expression)");
      L.Kernel = Ptr->getNameAsString();
      collectPointerTargets(Ptr, L);
      if (L.Targets.empty())
        return Done("the kernel is called through the pointer '" + L.Kernel +
                    "', which the enclosing function sets to no kernel it "
                    "names");
      L.Pointer = exactText(Callee->getSourceRange()).value_or("");
      if (L.Pointer.empty())
        return Done("the pointer the kernel is called through is spelled by "
                    "a macro");
    } else if (const auto *DRE = dyn_cast<DeclRefExpr>(Callee)) {
      recordCalleeSpelling(DRE, L);
      if (const TemplateArgumentList *TA =
              Kernel->getTemplateSpecializationArgs())
        L.TemplateArgs = templateArgsText(*TA);
    } else if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(Callee)) {
      recordCalleeSpelling(ULE, L);
    }

    const CallExpr *Config = E->getConfig();
    auto ConfigText = [&](unsigned I) -> std::string {
      if (!Config || I >= Config->getNumArgs() ||
          isa<CXXDefaultArgExpr>(Config->getArg(I)))
        return "";
      return exactText(Config->getArg(I)->getSourceRange()).value_or("");
    };
    L.Grid = ConfigText(0);
    L.Block = ConfigText(1);
    L.SharedMem = ConfigText(2);
    L.Stream = ConfigText(3);
    for (const Expr *A : E->arguments()) {
      if (isa<CXXDefaultArgExpr>(A))
        return Done("the launch relies on a default argument of the kernel");
      std::optional<std::string> T = exactText(A->getSourceRange());
      if (!T)
        return Done("an argument cannot be read from the source");
      L.Args.push_back(*T);
    }
    if (L.Grid.empty() || L.Block.empty())
      return Done("the launch configuration cannot be read from the source");

    if (Slot == Slots.end()) {
      L.Context = StatementContext::NotAStatement;
      return Done("the launch is part of a larger expression, not a "
                  "statement of its own");
    }
    L.Context = Slot->second.Context;
    std::optional<unsigned> StmtEnd = offsetAfterSemicolon(E->getEndLoc());
    if (!StmtEnd)
      return Done("the statement's ';' is not spelled after the launch");
    L.StatementEnd = *StmtEnd;
    if (L.Context == StatementContext::UnbracedBody) {
      std::optional<FileOffset> Control =
          fileOffset(tokenEnd(Slot->second.ControlToken));
      if (Control && Control->File == L.Pos.File)
        L.ControlTokenEnd = Control->Offset;
    }
    if (Kernel) {
      recordDefinitionVisibility(Kernel, Spelled, L.KernelDefinitionPos,
                                 L.KernelDeclarationPos, L.DeclarationNeeded,
                                 L.Problem);
    } else {
      for (LaunchStatement::Target &T : L.Targets)
        if (T.Problem.empty())
          recordDefinitionVisibility(TargetDecls[&T - L.Targets.data()],
                                     Spelled, T.KernelDefinitionPos,
                                     T.KernelDeclarationPos,
                                     T.DeclarationNeeded, T.Problem);
    }
    Done("");
  }

  /// Whether launch \p E is spelled in the body of a function-like macro
  /// that names the kernel by a parameter (`k<<<g, b>>>(...)` with `k` a
  /// parameter, everything from `<<<` to the closing `)` in the body); then
  /// fills L.InMacro. Sets \p Why, and returns false, when it is such a
  /// launch whose spelling cannot be read back.
  bool macroBodyLaunch(const CUDAKernelCallExpr *E, LaunchStatement &L,
                       std::string &Why) {
    SourceLocation Begin = E->getBeginLoc(), End = E->getEndLoc();
    if (!SM.isMacroArgExpansion(Begin) || !End.isMacroID() ||
        SM.isMacroArgExpansion(End))
      return false;
    // Where the parameter stands in the body, and the `)` there: both in
    // the same expansion of the same macro.
    SourceLocation ParamUse = SM.getImmediateExpansionRange(Begin).getBegin();
    if (!ParamUse.isMacroID() || SM.isMacroArgExpansion(ParamUse) ||
        SM.getImmediateExpansionRange(ParamUse).getBegin() !=
            SM.getImmediateExpansionRange(End).getBegin())
      return false;
    StringRef Macro = Lexer::getImmediateMacroName(End, SM, LO);
    SourceLocation First = SM.getSpellingLoc(ParamUse);
    SourceLocation Last = SM.getSpellingLoc(End);
    std::optional<FileOffset> From = fileOffset(First);
    std::optional<FileOffset> To = fileOffset(Last);
    auto Unreadable = [&](StringRef What) {
      Why = ("the launch is spelled in the body of macro '" + Macro +
             "', whose " + What)
                .str();
      return false;
    };
    if (!From || !To || From->File != To->File || To->Offset < From->Offset)
      return Unreadable("launch is not spelled in one piece");
    StringRef Content = Facts.contents().at(From->File);
    StringRef Text = Content.slice(From->Offset, To->Offset + 1);
    // `k <<< config >>> ( args )`, split at the top-level commas.
    size_t NameEnd = 0;
    while (NameEnd < Text.size() &&
           (isAlnum(Text[NameEnd]) || Text[NameEnd] == '_'))
      ++NameEnd;
    StringRef Rest = Text.drop_front(NameEnd).ltrim(" \t\\\r\n");
    if (NameEnd == 0 || !Rest.consume_front("<<<") || !Rest.ends_with(")"))
      return Unreadable("launch does not read `k<<<...>>>(...)`");
    size_t Close = Rest.find(">>>");
    if (Close == StringRef::npos)
      return Unreadable("launch configuration has no `>>>`");
    std::vector<std::string> Config = splitTopLevel(Rest.take_front(Close));
    StringRef Call = Rest.drop_front(Close + 3).ltrim(" \t\\\r\n");
    if (!Call.consume_front("(") || !Call.consume_back(")"))
      return Unreadable("arguments are not one parenthesised list");
    unsigned Written = 0;
    if (const CallExpr *C = E->getConfig())
      for (const Expr *A : C->arguments())
        Written += !isa<CXXDefaultArgExpr>(A);
    if (Config.size() != Written || Config.size() < 2 || Config.size() > 4)
      return Unreadable("launch configuration cannot be split into its parts");
    LaunchStatement::MacroBody M;
    M.Macro = Macro.str();
    M.Parameter = Text.take_front(NameEnd).str();
    M.Begin = *From;
    M.End = To->Offset + 1;
    M.Grid = Config[0];
    M.Block = Config[1];
    M.SharedMem = Config.size() > 2 ? Config[2] : "0";
    M.Stream = Config.size() > 3 ? Config[3] : "0";
    M.Args = Call.trim().str();
    L.InMacro = std::move(M);
    return true;
  }

  /// \p Text split at the commas outside (), [] and {}, each part trimmed.
  static std::vector<std::string> splitTopLevel(StringRef Text) {
    std::vector<std::string> Parts;
    int Depth = 0;
    size_t Start = 0;
    for (size_t I = 0; I <= Text.size(); ++I) {
      char C = I < Text.size() ? Text[I] : ',';
      if (C == '(' || C == '[' || C == '{')
        ++Depth;
      else if (C == ')' || C == ']' || C == '}')
        --Depth;
      else if (C == ',' && Depth == 0) {
        Parts.push_back(Text.slice(Start, I).trim(" \t\\\r\n").str());
        Start = I + 1;
      }
    }
    return Parts;
  }

  /// The rest of recordLaunch for a launch in a macro's body (L.InMacro):
  /// the guard goes into the body as
  /// `if (forgestencil::macro_launch<decltype(k), k>::ours()) ...::run(...);
  /// else <launch>`, which every expansion compiles, so the kernel each expansion names
  /// must be one that decltype and a template argument take as written.
  template <typename DoneFn>
  void recordMacroLaunch(const CUDAKernelCallExpr *E,
                         const FunctionDecl *Kernel, const Expr *Callee,
                         SourceLocation Spelled,
                         DenseMap<const CUDAKernelCallExpr *,
                                  StatementSlot>::iterator Slot,
                         LaunchStatement &L, DoneFn Done) {
    const std::string In = "in the body of macro '" + L.InMacro->Macro + "'";
    if (CurrentFunction && (CurrentFunction->hasAttr<CUDAGlobalAttr>() ||
                            CurrentFunction->hasAttr<CUDADeviceAttr>()))
      return Done("the launch is in device code (dynamic parallelism)");
    const auto *DRE = dyn_cast<DeclRefExpr>(Callee);
    if (!Kernel || !DRE)
      return Done("the launch " + In + " is given '" +
                  exactText(Callee->getSourceRange()).value_or("?") +
                  "', not a kernel's name");
    if (DRE->hasExplicitTemplateArgs() || DRE->hasQualifier() ||
        Kernel->getTemplateSpecializationArgs() ||
        Kernel->getDescribedFunctionTemplate())
      return Done("the launch " + In + " is given a template or qualified "
                  "kernel name; only a plain kernel's name is guarded there");
    unsigned Overloads = 0;
    for (const NamedDecl *D :
         Kernel->getDeclContext()->getRedeclContext()->lookup(
             Kernel->getDeclName()))
      Overloads += isa<FunctionDecl>(D) || isa<FunctionTemplateDecl>(D)
                       ? (D->getCanonicalDecl() !=
                          Kernel->getCanonicalDecl())
                       : 0;
    if (Overloads)
      return Done("the launch " + In + " names the overloaded kernel '" +
                  Kernel->getNameAsString() +
                  "', which decltype in the guard would not resolve");
    if (!Kernel->getDeclContext()->getRedeclContext()->isTranslationUnit())
      return Done("the launch " + In + " names a kernel inside a namespace "
                  "or class; its launcher's specialisation must be at "
                  "global scope");
    if (Slot == Slots.end())
      return Done("the launch " + In + " is part of a larger expression, "
                  "not a statement of its own");
    L.Context = Slot->second.Context;
    recordDefinitionVisibility(Kernel, Spelled, L.KernelDefinitionPos,
                               L.KernelDeclarationPos, L.DeclarationNeeded,
                               L.Problem);
    if (L.Problem.empty() && L.DeclarationNeeded)
      return Done("the launch " + In + " comes before the kernel's "
                  "definition in this unit; the launcher it needs is "
                  "defined after the definition");
    Done("");
  }

  /// The variable a launch calls through: `p<<<...>>>` or `(*p)<<<...>>>`
  /// with p a pointer to a function (or, in a template, of a type that
  /// depends on its parameters).
  const VarDecl *pointerVariable(const Expr *Callee) {
    const Expr *E = Callee->IgnoreParenImpCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(E))
      if (U->getOpcode() == UO_Deref)
        E = U->getSubExpr()->IgnoreParenImpCasts();
    const auto *DRE = dyn_cast<DeclRefExpr>(E);
    const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    if (!VD)
      return nullptr;
    QualType T = VD->getType();
    if (T->isDependentType() || T->isUndeducedType() ||
        T->isFunctionPointerType())
      return VD;
    return nullptr;
  }

  /// Every value the enclosing function stores in \p V: its initializer
  /// and the right-hand sides of `V = ...`.
  void storesTo(const Stmt *S, const VarDecl *V,
                std::vector<const Expr *> &Values) {
    if (!S)
      return;
    auto IsV = [&](const Expr *E) {
      const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
      return D && D->getDecl() == V;
    };
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      if (BO->getOpcode() == BO_Assign && IsV(BO->getLHS()))
        Values.push_back(BO->getRHS());
    } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S)) {
      if (OC->getOperator() == OO_Equal && OC->getNumArgs() == 2 &&
          IsV(OC->getArg(0)))
        Values.push_back(OC->getArg(1));
    }
    for (const Stmt *C : S->children())
      storesTo(C, V, Values);
  }

  /// The kernels a stored value names: `k`, `&k`, `ns::k<T, 4>`, and
  /// either arm of `c ? k1 : k2`. Anything else (another pointer, a call)
  /// names none; the launch keeps running it as it is.
  void kernelsNamedBy(const Expr *E, std::vector<const Expr *> &Refs) {
    if (!E)
      return;
    E = E->IgnoreParenImpCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(E))
      if (U->getOpcode() == UO_AddrOf)
        return kernelsNamedBy(U->getSubExpr(), Refs);
    if (const auto *C = dyn_cast<ConditionalOperator>(E)) {
      kernelsNamedBy(C->getTrueExpr(), Refs);
      kernelsNamedBy(C->getFalseExpr(), Refs);
      return;
    }
    if (isa<DeclRefExpr>(E) || isa<UnresolvedLookupExpr>(E))
      Refs.push_back(E);
  }

  void collectPointerTargets(const VarDecl *V, LaunchStatement &L) {
    TargetDecls.clear();
    std::vector<const Expr *> Values;
    if (V->hasInit())
      Values.push_back(V->getInit());
    if (CurrentFunction)
      storesTo(CurrentFunction->getBody(), V, Values);
    std::vector<const Expr *> Refs;
    for (const Expr *E : Values)
      kernelsNamedBy(E, Refs);
    std::set<std::string> Seen;
    for (const Expr *R : Refs) {
      const FunctionDecl *FD = nullptr;
      LaunchStatement::Target T;
      if (const auto *DRE = dyn_cast<DeclRefExpr>(R)) {
        FD = dyn_cast<FunctionDecl>(DRE->getDecl());
        recordSpelling(DRE, T.Qualifier, T.ExplicitTemplateArgs);
      } else if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(R)) {
        FD = onlyFunction(ULE);
        recordSpelling(ULE, T.Qualifier, T.ExplicitTemplateArgs);
      }
      if (!FD || !FD->hasAttr<CUDAGlobalAttr>())
        continue;
      T.Kernel = FD->getQualifiedNameAsString();
      std::optional<std::string> Text = exactText(R->getSourceRange());
      T.Spelling = Text.value_or("");
      if (!Seen.insert(T.Spelling.empty() ? T.Kernel : T.Spelling).second)
        continue;
      bool Template = FD->getPrimaryTemplate() ||
                      FD->getDescribedFunctionTemplate() ||
                      isa<UnresolvedLookupExpr>(R);
      if (!Text)
        T.Problem = "the kernel stored in the pointer is spelled by a macro";
      else if (Template && T.ExplicitTemplateArgs.empty())
        T.Problem = "a kernel template is stored in the pointer without "
                    "explicit template arguments";
      L.Targets.push_back(std::move(T));
      TargetDecls.push_back(FD);
    }
  }

  /// Records the kernel's definition, and when the launch does not follow
  /// it, the declaration after which a launcher declaration must go.
  void recordDefinitionVisibility(const FunctionDecl *Kernel,
                                  SourceLocation LaunchLoc,
                                  std::optional<FileOffset> &DefinitionPos,
                                  std::optional<FileOffset> &DeclarationPos,
                                  std::optional<FileOffset> &DeclarationNeeded,
                                  std::string &Problem) {
    const FunctionDecl *Pattern = Kernel;
    if (const FunctionDecl *P = Kernel->getTemplateInstantiationPattern())
      Pattern = P;
    if (const FunctionTemplateDecl *Primary = Pattern->getPrimaryTemplate())
      Pattern = Primary->getTemplatedDecl();
    const FunctionDecl *Definition = nullptr;
    for (const FunctionDecl *D : Pattern->redecls())
      if (D->doesThisDeclarationHaveABody())
        Definition = D;
    if (Definition)
      DefinitionPos = fileOffset(Definition->getLocation());
    if (Definition && DefinitionPos &&
        SM.isBeforeInTranslationUnit(Definition->getLocation(), LaunchLoc))
      return;
    const FunctionDecl *First = Pattern->getFirstDecl();
    if (First != Definition)
      DeclarationPos = fileOffset(First->getLocation());
    if (First == Definition) {
      Problem = "the launch comes before the kernel's definition and no "
                "earlier declaration exists";
      return;
    }
    recordDeclaration(First, DeclarationNeeded, Problem);
  }

  void recordDeclaration(const FunctionDecl *FD,
                         std::optional<FileOffset> &DeclarationNeeded,
                         std::string &Problem) {
    KernelDeclaration D;
    D.QualifiedName = FD->getQualifiedNameAsString();
    D.IsStatic = FD->getStorageClass() == SC_Static;
    std::optional<FileOffset> Pos = fileOffset(FD->getLocation());
    std::optional<unsigned> End = offsetAfterSemicolon(FD->getEndLoc());
    if (!Pos || !End) {
      Problem = "the kernel's declaration seen by this launch is spelled "
                "in a macro";
      return;
    }
    D.Pos = *Pos;
    D.StatementEnd = *End;
    if (const FunctionTemplateDecl *FTD = FD->getDescribedFunctionTemplate())
      D.TemplateHeader = templateHeader(FTD->getTemplateParameters());
    for (const ParmVarDecl *P : FD->parameters())
      D.Params.push_back(exactText(P->getSourceRange()).value_or(""));
    DeclarationNeeded = D.Pos;
    Facts.addDeclaration(std::move(D));
  }

  ASTContext &Ctx;
  SourceManager &SM;
  const LangOptions &LO;
  RewriteFacts &Facts;
  const FunctionDecl *CurrentFunction = nullptr;
  llvm::DenseMap<const CUDAKernelCallExpr *, StatementSlot> Slots;
  /// The kernel of each target of the launch being recorded.
  std::vector<const FunctionDecl *> TargetDecls;
};

class FactConsumer : public ASTConsumer {
public:
  explicit FactConsumer(RewriteFacts &Facts) : Facts(Facts) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    FactCollector C(Ctx, Facts);
    C.TraverseDecl(Ctx.getTranslationUnitDecl());
  }

private:
  RewriteFacts &Facts;
};

} // namespace

void RewriteFacts::addKernel(KernelDefinition K) {
  auto [It, Inserted] = Kernels.emplace(K.NamePos, K);
  if (Inserted)
    return;
  // A template in a header: each translation unit may instantiate it with
  // other arguments.
  std::vector<std::string> &All = It->second.Instantiations;
  All.insert(All.end(), K.Instantiations.begin(), K.Instantiations.end());
  llvm::sort(All);
  All.erase(std::unique(All.begin(), All.end()), All.end());
  if (It->second.Problem.empty())
    It->second.Problem = K.Problem;
}

std::unique_ptr<ASTConsumer>
RewriteFacts::makeConsumer(CompilerInstance &, const driver::TranslationUnit &,
                           driver::CudaSide Side) {
  if (Side != driver::CudaSide::Host)
    return nullptr;
  return std::make_unique<FactConsumer>(*this);
}

} // namespace rewrite
} // namespace forgestencil

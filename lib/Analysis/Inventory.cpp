//===- Inventory.cpp - The kernels and launch sites of an app --------------===//

#include "forgestencil/Analysis/Inventory.h"

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

namespace {

std::string canonicalPath(StringRef Path) {
  SmallString<256> Real;
  if (!sys::fs::real_path(Path, Real))
    return std::string(Real);
  SmallString<256> P(Path);
  sys::path::remove_dots(P, true);
  return std::string(P);
}

class Collector : public RecursiveASTVisitor<Collector> {
public:
  Collector(ASTContext &Ctx, Inventory &Inv, const driver::TranslationUnit &TU,
            driver::CudaSide Side)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Inv(Inv), TU(TU), Side(Side) {}

  bool shouldVisitTemplateInstantiations() const { return false; }

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
    return true;
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
    L.InDependentContext = E->isInstantiationDependent();
    if (const FunctionDecl *FD = E->getDirectCallee()) {
      L.Kernel = FD->getQualifiedNameAsString();
      if (const TemplateArgumentList *TA = FD->getTemplateSpecializationArgs()) {
        std::string S;
        raw_string_ostream OS(S);
        PrintingPolicy PP(Ctx.getLangOpts());
        PP.SuppressTagKeyword = true;
        bool First = true;
        for (const TemplateArgument &A : TA->asArray()) {
          OS << (First ? "" : ", ");
          A.print(PP, OS, /*IncludeType=*/false);
          First = false;
        }
        L.TemplateArgs = S;
      }
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
    Inv.addLaunch(std::move(L));
    return true;
  }

  bool TraverseFunctionDecl(FunctionDecl *FD) {
    Decl *Saved = CurrentFunction;
    CurrentFunction = FD;
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
  Decl *CurrentFunction = nullptr;
};

class CollectorConsumer : public ASTConsumer {
public:
  CollectorConsumer(Inventory &Inv, const driver::TranslationUnit &TU,
                    driver::CudaSide Side)
      : Inv(Inv), TU(TU), Side(Side) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    Collector C(Ctx, Inv, TU, Side);
    C.TraverseDecl(Ctx.getTranslationUnitDecl());
  }

private:
  Inventory &Inv;
  const driver::TranslationUnit &TU;
  driver::CudaSide Side;
};

} // namespace

std::unique_ptr<ASTConsumer>
Inventory::makeConsumer(CompilerInstance &, const driver::TranslationUnit &TU,
                        driver::CudaSide Side) {
  return std::make_unique<CollectorConsumer>(*this, TU, Side);
}

void Inventory::addKernel(KernelInfo K, driver::CudaSide Side) {
  auto [It, Inserted] = Kernels.emplace(K.Pos, K);
  KernelInfo &Stored = It->second;
  if (Side == driver::CudaSide::Host)
    Stored.SeenOnHost = true;
  else
    Stored.SeenOnDevice = true;
}

void Inventory::addLaunch(LaunchSite L) {
  // Host side only sees launches; a template's pattern and its
  // instantiations share a location, and the first one seen is kept.
  Launches.emplace(L.Pos, std::move(L));
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

//===- AnalysisPrelude.cpp - The header fs-rewrite's own parses include ----===//

#include "forgestencil/Driver/AnalysisPrelude.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>

using namespace clang;
using namespace llvm;

namespace forgestencil {
namespace driver {

StringRef analysisPreludePath() {
  // Outside any real tree, so it never shadows or is shadowed by a file.
  return "/__forgestencil__/analysis-prelude.h";
}

StringRef analysisPreludeText() {
  static const char Text[] =
#include "AnalysisPreludeText.inc"
      ;
  return StringRef(Text, sizeof(Text) - 1);
}

namespace {

/// Collects what the code outside the prelude referenced of the prelude's
/// declarations.
class UseCollector {
public:
  UseCollector(const SourceManager &SM) : SM(SM) {}

  void visit(const DeclContext *DC) {
    for (const Decl *D : DC->decls()) {
      if (!inPrelude(D))
        continue;
      if (const auto *LS = dyn_cast<LinkageSpecDecl>(D)) {
        visit(LS);
        continue;
      }
      const auto *ND = dyn_cast<NamedDecl>(D);
      if (!ND || !ND->getIdentifier())
        continue;
      StringRef Name = ND->getName();
      if (Name == "__fs_cudaDeviceProp") {
        // The removed fields, named as the user wrote them.
        if (const auto *RD = dyn_cast<CXXRecordDecl>(ND))
          for (const FieldDecl *F : RD->fields())
            if (F->isReferenced())
              add("cudaDeviceProp::" + F->getName().str());
        continue;
      }
      if (Name.starts_with("__fs_"))
        continue;
      if (used(ND))
        add(Name.str());
    }
  }

  std::vector<std::string> Names;

private:
  /// Whether D is one of the prelude's removed APIs (its part 2; part 1
  /// only adapts the toolkit's headers to clang).
  bool inPrelude(const Decl *D) const {
    SourceLocation Loc = SM.getFileLoc(D->getLocation());
    if (Loc.isInvalid())
      return false;
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(SM.getFileID(Loc));
    static const size_t RemovedApis =
        analysisPreludeText().find("Part 2: APIs CUDA removed");
    return FE && FE->getName() == analysisPreludePath() &&
           SM.getFileOffset(Loc) > RemovedApis;
  }

  /// Functions count when called, templates when specialised, enums when an
  /// enumerator is named. Types the prelude's own declarations mention would
  /// count as referenced by the prelude itself, so they are left out (the
  /// functions that take them say enough).
  static bool used(const NamedDecl *ND) {
    if (isa<FunctionDecl>(ND))
      return ND->isReferenced();
    if (const auto *FTD = dyn_cast<FunctionTemplateDecl>(ND)) {
      for (const FunctionDecl *S : FTD->specializations())
        if (S->isReferenced())
          return true;
      return false;
    }
    if (const auto *CTD = dyn_cast<ClassTemplateDecl>(ND))
      return !CTD->specializations().empty();
    if (const auto *ED = dyn_cast<EnumDecl>(ND)) {
      for (const EnumConstantDecl *C : ED->enumerators())
        if (C->isReferenced())
          return true;
    }
    return false;
  }

  void add(std::string Name) {
    if (std::find(Names.begin(), Names.end(), Name) == Names.end())
      Names.push_back(std::move(Name));
  }

  const SourceManager &SM;
};

} // namespace

std::vector<std::string> preludeDeclarationsUsed(ASTContext &Ctx) {
  UseCollector C(Ctx.getSourceManager());
  C.visit(Ctx.getTranslationUnitDecl());
  return std::move(C.Names);
}

} // namespace driver
} // namespace forgestencil

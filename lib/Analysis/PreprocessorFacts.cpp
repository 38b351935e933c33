//===- PreprocessorFacts.cpp - What the preprocessor decided in one parse -===//

#include "forgestencil/Analysis/PreprocessorFacts.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"

using namespace clang;

namespace forgestencil {
namespace analysis {

namespace {

class Recorder : public PPCallbacks {
public:
  Recorder(PreprocessorFacts &Facts, const SourceManager &SM,
           const LangOptions &LO)
      : Facts(Facts), SM(SM), LO(LO) {}

  void If(SourceLocation Loc, SourceRange Cond,
          ConditionValueKind V) override {
    add(Loc, text(Cond), V);
  }
  void Elif(SourceLocation Loc, SourceRange Cond, ConditionValueKind V,
            SourceLocation) override {
    add(Loc, text(Cond), V);
  }
  void Ifdef(SourceLocation Loc, const Token &Name,
             const MacroDefinition &MD) override {
    defined(Loc, Name, bool(MD), false);
  }
  void Ifndef(SourceLocation Loc, const Token &Name,
              const MacroDefinition &MD) override {
    defined(Loc, Name, !bool(MD), true);
  }
  void Elifdef(SourceLocation Loc, const Token &Name,
               const MacroDefinition &MD) override {
    defined(Loc, Name, bool(MD), false);
  }
  void Elifndef(SourceLocation Loc, const Token &Name,
                const MacroDefinition &MD) override {
    defined(Loc, Name, !bool(MD), true);
  }

private:
  std::string text(SourceRange R) const {
    CharSourceRange C = CharSourceRange::getCharRange(R);
    return Lexer::getSourceText(C, SM, LO).trim().str();
  }
  void add(SourceLocation Loc, std::string Cond, ConditionValueKind V) {
    if (V == CVK_NotEvaluated || Cond.empty())
      return;
    Facts.Directives.push_back({Loc, std::move(Cond), V == CVK_True});
  }
  void defined(SourceLocation Loc, const Token &Name, bool Taken,
               bool Negated) {
    const IdentifierInfo *II = Name.getIdentifierInfo();
    if (!II)
      return;
    std::string Cond = "defined(" + II->getName().str() + ")";
    Facts.Directives.push_back(
        {Loc, Negated ? "!" + Cond : Cond, Taken});
  }

  PreprocessorFacts &Facts;
  const SourceManager &SM;
  const LangOptions &LO;
};

} // namespace

void PreprocessorFacts::attach(Preprocessor &PP) {
  PP.addPPCallbacks(std::make_unique<Recorder>(*this, PP.getSourceManager(),
                                               PP.getLangOpts()));
}

std::vector<const ConditionalDirective *>
PreprocessorFacts::within(SourceRange Range, const SourceManager &SM) const {
  std::vector<const ConditionalDirective *> Out;
  SourceLocation B = SM.getFileLoc(Range.getBegin()),
                 E = SM.getFileLoc(Range.getEnd());
  if (B.isInvalid() || E.isInvalid())
    return Out;
  for (const ConditionalDirective &D : Directives)
    if (SM.getFileID(D.Loc) == SM.getFileID(B) &&
        !SM.isBeforeInTranslationUnit(D.Loc, B) &&
        !SM.isBeforeInTranslationUnit(E, D.Loc))
      Out.push_back(&D);
  return Out;
}

} // namespace analysis
} // namespace forgestencil

//===- FrontendRunner.cpp - Parse every CUDA TU, host and device side ------===//

#include "forgestencil/Driver/FrontendRunner.h"

#include "forgestencil/Driver/AnalysisPrelude.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallString.h"

#include <algorithm>

using namespace clang;
using namespace llvm;

namespace forgestencil {
namespace driver {

std::string ParseDiagnostic::format() const {
  std::string S = File;
  if (Line)
    S += ":" + std::to_string(Line) + ":" + std::to_string(Column);
  return S + ": error: " + Message;
}

std::string StandIn::spelled() const {
  return Angled ? "<" + Name + ">" : "\"" + Name + "\"";
}

std::string ParseBlocker::what(
    const std::function<std::string(StringRef)> &Shown) const {
  if (!Kernel.empty())
    return "kernel '" + Kernel + "'";
  return "the launch at " + (Shown ? Shown(Launch.File) : Launch.File) + ":" +
         std::to_string(Launch.Line) + ":" + std::to_string(Launch.Column);
}

const char *statusName(ParseStatus S) {
  switch (S) {
  case ParseStatus::Parsed:
    return "parsed";
  case ParseStatus::ParsedWithStandIns:
    return "parsed with stand-ins";
  case ParseStatus::Failed:
    return "failed";
  }
  return "failed";
}

ParseStatus ParseResult::status() const {
  if (failed())
    return ParseStatus::Failed;
  return StandIns.empty() ? ParseStatus::Parsed
                          : ParseStatus::ParsedWithStandIns;
}

const char *sideName(CudaSide Side) {
  return Side == CudaSide::Host ? "host" : "device";
}

ParseLog::~ParseLog() = default;

namespace {

/// Whether a clang error is one that nvcc only warns about, so that the
/// user learns why an app that builds with nvcc fails to parse here.
bool isErrorNvccOnlyWarnsAbout(const Diagnostic &Info, StringRef Message) {
  // nvcc (warning #20011-D/#20014-D) accepts a __host__ __device__ function
  // that calls a __host__ function as long as the device side never runs
  // it; clang rejects the call whenever the device side is emitted.
  return Info.getID() == diag::err_ref_bad_target &&
         Message.ends_with("in __host__ __device__ function");
}

/// An error with the location clang gave it, to tell later whose
/// definition it lies in.
struct LocatedError {
  SourceLocation Loc;
  ParseDiagnostic Diag;
};

/// Where errors inside a definition are looked for: one file, an offset
/// range in it.
struct FileSpan {
  FileID File;
  unsigned Begin = 0, End = 0;
};

/// Everything one parse records, and the ParseLog consumers ask.
class ParseSession : public ParseLog {
public:
  ParseSession(ParseResult &R, bool StrictIncludes)
      : R(R), StrictIncludes(StrictIncludes) {}

  ParseResult &R;
  const bool StrictIncludes;
  const SourceManager *SM = nullptr;
  /// Errors with their locations; enough of them to place the ones that
  /// matter (a TU with more is broken beyond what placing errors helps).
  std::vector<LocatedError> Located;
  static constexpr size_t MaxLocated = 4096;
  /// Where each "<<<" of the code (outside system headers) was lexed.
  std::vector<SourceLocation> LaunchTokens;
  /// The #include of each stand-in, parallel to R.StandIns.
  std::vector<SourceLocation> StandInLocs;

  std::optional<ParseDiagnostic>
  errorAffecting(const FunctionDecl &FD) const override;
  const std::vector<StandIn> &standIns() const override { return R.StandIns; }

  /// The first error located in Span, if any.
  std::optional<ParseDiagnostic> errorIn(const FileSpan &Span) const;
  /// The error closest to Loc in its file (for a launch that did not parse).
  ParseDiagnostic errorNear(SourceLocation Loc) const;

private:
  std::optional<FileSpan> spanOf(const FunctionDecl &FD) const;
};

std::optional<FileSpan> ParseSession::spanOf(const FunctionDecl &FD) const {
  CharSourceRange R = SM->getExpansionRange(FD.getSourceRange());
  if (R.isInvalid())
    return std::nullopt;
  auto [BeginFile, Begin] = SM->getDecomposedLoc(R.getBegin());
  auto [EndFile, End] = SM->getDecomposedLoc(R.getEnd());
  if (BeginFile != EndFile || End < Begin)
    return std::nullopt;
  return FileSpan{BeginFile, Begin, End + 1};
}

std::optional<ParseDiagnostic>
ParseSession::errorIn(const FileSpan &Span) const {
  for (const LocatedError &E : Located) {
    if (E.Loc.isInvalid())
      continue;
    auto [File, Offset] = SM->getDecomposedLoc(SM->getExpansionLoc(E.Loc));
    if (File == Span.File && Offset >= Span.Begin && Offset < Span.End)
      return E.Diag;
  }
  return std::nullopt;
}

ParseDiagnostic ParseSession::errorNear(SourceLocation Loc) const {
  auto [LocFile, LocOffset] = SM->getDecomposedLoc(SM->getExpansionLoc(Loc));
  const LocatedError *Best = nullptr;
  unsigned BestDistance = ~0u;
  for (const LocatedError &E : Located) {
    if (E.Loc.isInvalid())
      continue;
    auto [File, Offset] = SM->getDecomposedLoc(SM->getExpansionLoc(E.Loc));
    if (File != LocFile)
      continue;
    unsigned D = Offset > LocOffset ? Offset - LocOffset : LocOffset - Offset;
    if (D < BestDistance) {
      BestDistance = D;
      Best = &E;
    }
  }
  if (Best)
    return Best->Diag;
  if (!Located.empty())
    return Located.front().Diag;
  return R.Errors.empty() ? ParseDiagnostic() : R.Errors.front();
}

/// The functions a body calls, constructs or takes the address of.
class CalleeFinder : public RecursiveASTVisitor<CalleeFinder> {
public:
  std::vector<const FunctionDecl *> Callees;
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (const auto *FD = dyn_cast<FunctionDecl>(E->getDecl()))
      Callees.push_back(FD);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    if (const auto *FD = dyn_cast<FunctionDecl>(E->getMemberDecl()))
      Callees.push_back(FD);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    Callees.push_back(E->getConstructor());
    return true;
  }
};

std::optional<ParseDiagnostic>
ParseSession::errorAffecting(const FunctionDecl &FD) const {
  if (Located.empty() || !SM)
    return std::nullopt;
  SmallPtrSet<const FunctionDecl *, 16> Seen;
  SmallVector<const FunctionDecl *, 16> Work{&FD};
  while (!Work.empty() && Seen.size() < 512) {
    const FunctionDecl *F = Work.pop_back_val();
    if (!Seen.insert(F).second)
      continue;
    // An instantiation's errors are reported in its pattern's text.
    const FunctionDecl *Written = F->getTemplateInstantiationPattern();
    if (auto Span = spanOf(Written ? *Written : *F))
      if (auto E = errorIn(*Span))
        return E;
    const Stmt *Body = F->getBody();
    if (!Body)
      continue;
    CalleeFinder Finder;
    Finder.TraverseStmt(const_cast<Stmt *>(Body));
    for (const FunctionDecl *C : Finder.Callees) {
      if (SM->isInSystemHeader(C->getLocation()))
        continue;
      const FunctionDecl *Def = C->getDefinition();
      Work.push_back(Def ? Def : C);
    }
  }
  return std::nullopt;
}

/// The session of the parse in progress, for parseLogOf().
struct ActiveParse {
  const CompilerInstance *CI = nullptr;
  const ParseSession *Session = nullptr;
};
ActiveParse &activeParse() {
  static ActiveParse A;
  return A;
}

/// Counts errors, keeps the first few formatted and all of them with their
/// locations; prints nothing.
class CollectingDiagConsumer : public DiagnosticConsumer {
public:
  explicit CollectingDiagConsumer(unsigned MaxKept) : MaxKept(MaxKept) {}
  ParseSession *Current = nullptr;

  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (!Current || Level < DiagnosticsEngine::Error)
      return;
    ParseResult &R = Current->R;
    ++R.NumErrors;
    if (Level == DiagnosticsEngine::Fatal)
      R.Fatal = true;
    if (R.Errors.size() >= MaxKept &&
        Current->Located.size() >= ParseSession::MaxLocated)
      return;
    ParseDiagnostic D;
    SmallString<256> Msg;
    Info.FormatDiagnostic(Msg);
    D.Message = std::string(Msg);
    if (isErrorNvccOnlyWarnsAbout(Info, Msg))
      D.Message += " [nvcc only warns about this; clang's CUDA front end "
                   "rejects it]";
    SourceLocation Loc;
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      const SourceManager &SM = Info.getSourceManager();
      Loc = Info.getLocation();
      PresumedLoc P = SM.getPresumedLoc(SM.getFileLoc(Loc));
      if (P.isValid()) {
        D.File = P.getFilename();
        D.Line = P.getLine();
        D.Column = P.getColumn();
      }
    }
    if (Current->Located.size() < ParseSession::MaxLocated)
      Current->Located.push_back({Loc, D});
    if (R.Errors.size() < MaxKept)
      R.Errors.push_back(std::move(D));
  }

private:
  unsigned MaxKept;
};

/// Stands in for includes that name no file: the preprocessor skips them
/// as if they were empty, and the stand-in is recorded.
class StandInCallbacks : public PPCallbacks {
public:
  StandInCallbacks(ParseSession &S, const SourceManager &SM)
      : Session(S), SM(SM) {}

  bool FileNotFound(StringRef FileName) override {
    if (Session.StrictIncludes)
      return false;
    Pending = FileName.str();
    return true;
  }

  void InclusionDirective(SourceLocation HashLoc, const Token &, StringRef FileName,
                          bool IsAngled, CharSourceRange, OptionalFileEntryRef File,
                          StringRef, StringRef, const Module *, bool,
                          SrcMgr::CharacteristicKind) override {
    if (File || Pending.empty() || FileName != Pending)
      return;
    Pending.clear();
    std::vector<StandIn> &All = Session.R.StandIns;
    for (const StandIn &S : All)
      if (S.Name == FileName && S.Angled == IsAngled)
        return;
    StandIn S;
    S.Name = FileName.str();
    S.Angled = IsAngled;
    PresumedLoc P = SM.getPresumedLoc(HashLoc);
    if (P.isValid()) {
      S.IncludedFrom = P.getFilename();
      S.Line = P.getLine();
    }
    All.push_back(std::move(S));
    Session.StandInLocs.push_back(HashLoc);
  }

private:
  ParseSession &Session;
  const SourceManager &SM;
  std::string Pending;
};

/// The kernels defined outside system headers and the launches that
/// parsed, patterns only (an instantiation shares its pattern's text).
class DefinitionWalker : public RecursiveASTVisitor<DefinitionWalker> {
public:
  explicit DefinitionWalker(const SourceManager &SM) : SM(SM) {}

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    // The toolkit's and the C++ library's headers hold no code of the app.
    if (!isa<TranslationUnitDecl, NamespaceDecl, LinkageSpecDecl>(D) &&
        SM.isInSystemHeader(D->getLocation()))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->hasAttr<CUDAGlobalAttr>() && FD->doesThisDeclarationHaveABody() &&
        !FD->isTemplateInstantiation())
      Kernels.push_back(FD);
    return true;
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) {
    // A launch whose configuration or arguments hold an error (clang's
    // recovery, a reference to a declaration that did not parse) is no
    // parsed launch: it blocks its translation unit.
    if (E->containsErrors())
      return true;
    if (const CallExpr *Config = E->getConfig())
      if (const Expr *Callee = Config->getCallee())
        Chevrons.insert(Callee->getBeginLoc().getRawEncoding());
    CharSourceRange R = SM.getExpansionRange(E->getSourceRange());
    if (R.isValid())
      Ranges.push_back(R.getAsRange());
    return true;
  }

  /// Whether the "<<<" lexed at Loc belongs to a launch that parsed.
  bool parsedLaunchAt(SourceLocation Loc) const {
    if (Chevrons.contains(Loc.getRawEncoding()))
      return true;
    SourceLocation At = SM.getExpansionLoc(Loc);
    return std::any_of(Ranges.begin(), Ranges.end(), [&](SourceRange R) {
      return At == R.getBegin() || At == R.getEnd() ||
             SM.isPointWithin(At, R.getBegin(), R.getEnd());
    });
  }

  std::vector<const FunctionDecl *> Kernels;

private:
  const SourceManager &SM;
  DenseSet<SourceLocation::UIntTy> Chevrons;
  std::vector<SourceRange> Ranges;
};

ParseDiagnostic positionOf(const SourceManager &SM, SourceLocation Loc) {
  ParseDiagnostic D;
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
  if (P.isValid()) {
    D.File = P.getFilename();
    D.Line = P.getLine();
    D.Column = P.getColumn();
  }
  return D;
}

/// Runs before the caller's consumer: decides which errors block which
/// kernels and launches, which kernels follow each stand-in, and what the
/// prelude supplied.
class SessionConsumer : public ASTConsumer {
public:
  explicit SessionConsumer(ParseSession &S) : Session(S) {}

  void HandleTranslationUnit(ASTContext &Ctx) override {
    const SourceManager &SM = Ctx.getSourceManager();
    ParseResult &R = Session.R;
    DefinitionWalker Walker(SM);
    Walker.TraverseDecl(Ctx.getTranslationUnitDecl());

    if (R.NumErrors > 0) {
      DenseSet<SourceLocation::UIntTy> Reported;
      for (SourceLocation Tok : Session.LaunchTokens) {
        if (Walker.parsedLaunchAt(Tok) ||
            !Reported.insert(SM.getExpansionLoc(Tok).getRawEncoding()).second)
          continue;
        R.Blockers.push_back(
            {"", positionOf(SM, Tok), Session.errorNear(Tok)});
      }
      for (const FunctionDecl *K : Walker.Kernels)
        if (auto E = Session.errorAffecting(*K))
          R.Blockers.push_back(
              {K->getQualifiedNameAsString(), ParseDiagnostic(), *E});
    }
    for (size_t I = 0; I < R.StandIns.size(); ++I) {
      std::vector<std::string> &After = R.StandIns[I].KernelsAfter;
      for (const FunctionDecl *K : Walker.Kernels) {
        std::string Name = K->getQualifiedNameAsString();
        if (SM.isBeforeInTranslationUnit(Session.StandInLocs[I],
                                         K->getLocation()) &&
            std::find(After.begin(), After.end(), Name) == After.end())
          After.push_back(Name);
      }
    }
    R.PreludeUses = preludeDeclarationsUsed(Ctx);
  }

private:
  ParseSession &Session;
};

class ForwardingAction : public ASTFrontendAction {
public:
  ForwardingAction(const ConsumerFactory &Factory, const TranslationUnit &TU,
                   ParseSession &Session)
      : Factory(Factory), TU(TU), Session(Session) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    CudaSide Side =
        CI.getLangOpts().CUDAIsDevice ? CudaSide::Device : CudaSide::Host;
    // Keep parsing past errors: kernels that parsed cleanly are still
    // worth analysing, and the caller decides what to trust.
    CI.getDiagnostics().setErrorLimit(0);
    // The runner reports errors itself; clang's "N errors generated" line
    // would only repeat them on stderr.
    CI.setVerboseOutputStream(std::make_unique<raw_null_ostream>());
    SourceManager &SM = CI.getSourceManager();
    Session.SM = &SM;
    Preprocessor &PP = CI.getPreprocessor();
    PP.addPPCallbacks(std::make_unique<StandInCallbacks>(Session, SM));
    // Every "<<<" the parser is given, to find launches errors swallowed.
    PP.setTokenWatcher([&S = Session, &SM](const Token &T) {
      if (T.is(tok::lesslessless) && !SM.isInSystemHeader(T.getLocation()))
        S.LaunchTokens.push_back(T.getLocation());
    });
    activeParse() = {&CI, &Session};
    std::vector<std::unique_ptr<ASTConsumer>> Consumers;
    Consumers.push_back(std::make_unique<SessionConsumer>(Session));
    if (auto C = Factory(CI, TU, Side))
      Consumers.push_back(std::move(C));
    return std::make_unique<MultiplexConsumer>(std::move(Consumers));
  }

  void EndSourceFileAction() override { activeParse() = {}; }

private:
  const ConsumerFactory &Factory;
  const TranslationUnit &TU;
  ParseSession &Session;
};

class ForwardingActionFactory : public tooling::FrontendActionFactory {
public:
  ForwardingActionFactory(const ConsumerFactory &F, const TranslationUnit &TU,
                          ParseSession &Session)
      : Factory(F), TU(TU), Session(Session) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<ForwardingAction>(Factory, TU, Session);
  }

private:
  const ConsumerFactory &Factory;
  const TranslationUnit &TU;
  ParseSession &Session;
};

/// Serves exactly one command to a ClangTool, so each side is one run with
/// its own result.
class SingleCommandDatabase : public tooling::CompilationDatabase {
public:
  explicit SingleCommandDatabase(tooling::CompileCommand C)
      : Cmd(std::move(C)) {}
  std::vector<tooling::CompileCommand>
  getCompileCommands(StringRef) const override {
    return {Cmd};
  }

private:
  tooling::CompileCommand Cmd;
};

} // namespace

const ParseLog *parseLogOf(const CompilerInstance &CI) {
  const ActiveParse &A = activeParse();
  return A.CI == &CI ? A.Session : nullptr;
}

std::vector<ParseResult> runFrontend(const CudaCompilationDatabase &DB,
                                     const std::vector<std::string> &Files,
                                     const ConsumerFactory &Factory,
                                     unsigned MaxErrorsKept) {
  std::vector<std::string> Todo = Files.empty() ? DB.cudaFiles() : Files;
  std::vector<ParseResult> Results;
  for (const std::string &File : Todo) {
    const TranslationUnit *TU = DB.unit(File);
    if (!TU)
      continue;
    for (const tooling::CompileCommand &Cmd : TU->Commands) {
      ParseResult R;
      R.File = File;
      R.Side = Cmd.Heuristic == "cuda-device" ? CudaSide::Device
                                               : CudaSide::Host;
      ParseSession Session(R, DB.options().StrictIncludes);
      SingleCommandDatabase One(Cmd);
      tooling::ClangTool Tool(One, {File});
      // The analysis prelude lives in memory (see AnalysisPrelude.h).
      Tool.mapVirtualFile(analysisPreludePath(), analysisPreludeText());
      CollectingDiagConsumer Diags(MaxErrorsKept);
      Diags.Current = &Session;
      Tool.setDiagnosticConsumer(&Diags);
      Tool.setPrintErrorMessage(false);
      ForwardingActionFactory ActionFactory(Factory, *TU, Session);
      int RC = Tool.run(&ActionFactory);
      activeParse() = {};
      R.Ran = RC == 0 || R.NumErrors > 0;
      if (RC != 0 && R.NumErrors == 0) {
        R.NumErrors = 1;
        R.Errors.push_back({File, 0, 0, "clang could not run this command"});
      }
      Results.push_back(std::move(R));
    }
  }
  return Results;
}

} // namespace driver
} // namespace forgestencil

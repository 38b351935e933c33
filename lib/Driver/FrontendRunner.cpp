//===- FrontendRunner.cpp - Parse every CUDA TU, host and device side ------===//

#include "forgestencil/Driver/FrontendRunner.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/SmallString.h"

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

const char *sideName(CudaSide Side) {
  return Side == CudaSide::Host ? "host" : "device";
}

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

/// Counts errors and keeps the first few, formatted; prints nothing.
class CollectingDiagConsumer : public DiagnosticConsumer {
public:
  explicit CollectingDiagConsumer(unsigned MaxKept) : MaxKept(MaxKept) {}
  ParseResult *Current = nullptr;

  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (!Current || Level < DiagnosticsEngine::Error)
      return;
    ++Current->NumErrors;
    if (Level == DiagnosticsEngine::Fatal)
      Current->Fatal = true;
    if (Current->Errors.size() >= MaxKept)
      return;
    ParseDiagnostic D;
    SmallString<256> Msg;
    Info.FormatDiagnostic(Msg);
    D.Message = std::string(Msg);
    if (isErrorNvccOnlyWarnsAbout(Info, Msg))
      D.Message += " [nvcc only warns about this; clang's CUDA front end "
                   "rejects it]";
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      const SourceManager &SM = Info.getSourceManager();
      PresumedLoc P = SM.getPresumedLoc(SM.getFileLoc(Info.getLocation()));
      if (P.isValid()) {
        D.File = P.getFilename();
        D.Line = P.getLine();
        D.Column = P.getColumn();
      }
    }
    Current->Errors.push_back(std::move(D));
  }

private:
  unsigned MaxKept;
};

class ForwardingAction : public ASTFrontendAction {
public:
  ForwardingAction(const ConsumerFactory &Factory, const TranslationUnit &TU)
      : Factory(Factory), TU(TU) {}

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
    auto C = Factory(CI, TU, Side);
    return C ? std::move(C) : std::make_unique<ASTConsumer>();
  }

private:
  const ConsumerFactory &Factory;
  const TranslationUnit &TU;
};

class ForwardingActionFactory : public tooling::FrontendActionFactory {
public:
  ForwardingActionFactory(const ConsumerFactory &F, const TranslationUnit &TU)
      : Factory(F), TU(TU) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<ForwardingAction>(Factory, TU);
  }

private:
  const ConsumerFactory &Factory;
  const TranslationUnit &TU;
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
      SingleCommandDatabase One(Cmd);
      tooling::ClangTool Tool(One, {File});
      CollectingDiagConsumer Diags(MaxErrorsKept);
      Diags.Current = &R;
      Tool.setDiagnosticConsumer(&Diags);
      Tool.setPrintErrorMessage(false);
      ForwardingActionFactory ActionFactory(Factory, *TU);
      int RC = Tool.run(&ActionFactory);
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

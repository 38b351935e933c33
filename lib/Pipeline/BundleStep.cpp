//===- BundleStep.cpp - The tuning bundle of an analysed application ------===//
///
/// \file
/// --bundle: the request forge::writeBundle takes (every translation unit
/// with its nvcc flags, every rewritable stencil kernel with the unit that
/// defines it, or those --kernels names, the knowledge base), and what the
/// bundle holds said kernel by kernel.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Pipeline/Session.h"

#include "forgestencil/Forge/Bundle.h"
#include "forgestencil/Forge/OperatorMatrix.h"
#include "forgestencil/Forge/Strategy.h"
#include "forgestencil/Rewrite/RewritePlanner.h"
#include "forgestencil/Version.h"

#include "llvm/Support/Path.h"

#include <set>

using namespace llvm;

namespace forgestencil {
namespace pipeline {

namespace {

/// The translation unit that defines the kernel \p A analysed: an
/// instantiation "k<double>" is defined by its template "k"; else any
/// kernel's unit of the same file.
std::string definingUnit(const analysis::Inventory &Inv,
                         const analysis::KernelAnalysis &A) {
  std::string Defined = rewrite::KernelInstanceName::parse(A.IR->Kernel).Kernel;
  std::string Unit;
  for (const auto &[Pos, K] : Inv.kernels())
    if (Pos.File == A.Pos.File && K.Name == Defined)
      Unit = K.TranslationUnit;
  if (Unit.empty())
    for (const auto &[Pos, K] : Inv.kernels())
      if (Pos.File == A.Pos.File)
        Unit = K.TranslationUnit;
  return Unit;
}

} // namespace

int Session::writeBundle(const driver::CudaCompilationDatabase &DB,
                         const AppFacts &App, bool Announce) {
  const analysis::Inventory &Inv = App.Inventory;
  std::string Root = sourceRoot(DB);
  forge::BundleRequest Req;
  Req.App = O.AppName.empty() ? sys::path::filename(Root).str() : O.AppName;
  Req.ToolVersion = FORGESTENCIL_VERSION;
  Req.Arch = O.Arch;
  Req.SourceRoot = Root;
  Req.Budget = O.Budget;
  for (const std::string &F : DB.getAllFiles()) {
    const driver::TranslationUnit *TU = DB.unit(F);
    if (!TU || TU->Job.Skip)
      continue;
    forge::BundleRequest::Unit U{TU->Job.File, TU->Job.Directory,
                                 TU->Job.CommonFlags};
    for (const std::string &H : TU->Job.HostFlags)
      U.Flags.push_back("-Xcompiler=" + H);
    for (const std::string &N : TU->Job.NvccFlags)
      U.Flags.push_back(N);
    Req.Units.push_back(std::move(U));
  }
  // --kernels: only the kernels asked for (a template by its name, or one
  // instantiation); a name that matches no stencil kernel gets a note (it
  // may ask for a rewrite of another kind).
  std::vector<rewrite::KernelInstanceName> Wanted;
  std::vector<bool> Found;
  for (const std::string &K : O.Kernels) {
    Wanted.push_back(rewrite::KernelInstanceName::parse(K));
    Found.push_back(false);
  }
  auto Asked = [&](const std::string &Kernel) {
    if (Wanted.empty())
      return true;
    const rewrite::KernelInstanceName Have =
        rewrite::KernelInstanceName::parse(Kernel);
    bool Any = false;
    for (size_t I = 0; I < Wanted.size(); ++I)
      if (Wanted[I].Kernel == Have.Kernel &&
          (!Wanted[I].isInstantiation() ||
           rewrite::sameTemplateArgs(Wanted[I].TemplateArgs, Have.TemplateArgs)))
        Any = Found[I] = true;
    return Any;
  };
  for (const auto &[Name, A] : Inv.analyses()) {
    if (A.Result != analysis::KernelAnalysis::Stencil || !A.IR ||
        !Asked(A.IR->Kernel))
      continue;
    if (!A.NotRewritten.empty()) {
      Err << "fs-rewrite: " << Name << ": not tuned: " << A.NotRewritten
          << "\n";
      continue;
    }
    Req.Kernels.push_back({*A.IR, definingUnit(Inv, A)});
  }
  for (size_t I = 0; I < Wanted.size(); ++I)
    if (!Found[I])
      Err << "fs-rewrite: note: --kernels: '" << O.Kernels[I]
          << "' names no stencil kernel of the analysed units: nothing of "
             "it is bundled\n";
  std::string Error;
  // C/C++ units the CUDA front end skipped still have to link.
  for (const driver::CompileJob &H : DB.hostJobs())
    Req.Units.push_back({H.File, H.Directory, H.CommonFlags});
  Req.Knowledge = forge::emptyMatrix();
  if (std::string K = knowledgeFile();
      !K.empty() && !forge::loadMatrix(K, Req.Knowledge, Error))
    Err << "fs-rewrite: note: no knowledge base (" << Error << ")\n";
  forge::BundleManifest M;
  if (!forge::writeBundle(Req, O.BundleDir, M, Error))
    return fail(Error);
  for (const forge::BundleKernel &K : M.Kernels) {
    unsigned Drivers = 0;
    for (const forge::BundleCandidate &C : K.Candidates)
      Drivers += !C.Driver.empty();
    Err << "fs-rewrite: bundle: " << K.Name << ": " << Drivers << " of "
        << K.Candidates.size() << " candidates have a driver\n";
    if (K.Candidates.empty()) {
      // Say why no strategy applies (each reason once).
      std::set<std::string> Said;
      for (const auto &S : forge::allStrategies()) {
        std::string Why = S->whyNot(K.IR);
        if (!Why.empty() && Said.insert(Why).second)
          Err << "fs-rewrite: bundle: " << K.Name << ": " << S->name()
              << " does not apply: " << Why << "\n";
      }
    }
  }
  for (const std::string &S : M.Skipped)
    Err << "fs-rewrite: bundle: left out " << S << "\n";
  if (Announce)
    Out << O.BundleDir << "\n";
  return 0;
}

} // namespace pipeline
} // namespace forgestencil

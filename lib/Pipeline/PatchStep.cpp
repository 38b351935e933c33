//===- PatchStep.cpp - The integration patch of an analysed application ---===//
///
/// \file
/// --emit-patch / --stdout: the rewrite options from the session's options,
/// the variant of each kernel (lib/Knowledge: fs-tune's winners, else the
/// best known strategy the CPU check verified), the block shapes of the
/// --reblock kernels (given, or chosen from a verify run's times), then
/// rewrite::emitPatch. A run that would patch nothing says why and fails.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Pipeline/Session.h"

#include "forgestencil/Forge/CpuCheck.h"
#include "forgestencil/Knowledge/BlockShapeChoice.h"
#include "forgestencil/Knowledge/InAppChoice.h"
#include "forgestencil/Knowledge/VariantChoice.h"
#include "forgestencil/Rewrite/PatchEmission.h"
#include "forgestencil/Rewrite/RewritePlanner.h"
#include "forgestencil/Version.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace forgestencil {
namespace pipeline {

namespace {

using ReblockMap =
    std::map<std::string, std::optional<std::array<unsigned, 3>>>;
using CapMap = std::map<std::string, std::optional<unsigned>>;
using CoarsenMap =
    std::map<std::string, std::optional<rewrite::Coarsening>>;

/// --reblock-times: the shape (and register cap, where the verify run timed
/// caps) of each --reblock kernel given without a shape, from the in-app
/// times of a verify run; a kernel no candidate speeds up leaves \p Reblock
/// and \p Caps. Returns the error message, empty on success.
std::string chooseReblockShapes(const Options &O, ReblockMap &Reblock,
                                CapMap &Caps, CoarsenMap &Coarsen,
                                raw_ostream &Err) {
  if (O.ReblockTimes.empty())
    return "";
  std::vector<std::string> Open;
  for (const auto &[Name, Shape] : Reblock)
    if (!Shape)
      Open.push_back(Name);
  auto Text = MemoryBuffer::getFile(O.ReblockTimes);
  if (!Text)
    return O.ReblockTimes + ": " + Text.getError().message();
  auto Choices = knowledge::chooseBlockShapes((*Text)->getBuffer(), Open,
                                              O.ReblockMinGain);
  if (!Choices)
    return O.ReblockTimes + ": " + toString(Choices.takeError());
  // A kernel that keeps its original launches takes no copy at all.
  auto Forget = [&](const std::string &Kernel) {
    Reblock.erase(Kernel);
    Caps.erase(Kernel);
    Coarsen.erase(Kernel);
  };
  for (const knowledge::ShapeChoice &C : *Choices) {
    if (!C.Measured) {
      Err << "fs-rewrite: " << C.Kernel << ": keeps its original launches: "
          << O.ReblockTimes << " has no times for it (the verify run never "
             "launched it, or no copy of its body was made)\n";
      Forget(C.Kernel);
      continue;
    }
    std::string Times = formatv("{0:F4} ms against the original's {1:F4} ms, "
                                "{2} shape(s) measured",
                                C.CopyMs, C.OriginalMs, C.Measured)
                            .str();
    if (C.Block) {
      Err << "fs-rewrite: " << C.Kernel << ": block " << (*C.Block)[0] << "x"
          << (*C.Block)[1] << "x" << (*C.Block)[2]
          << (C.MaxRegisters
                  ? ", at most " + std::to_string(*C.MaxRegisters) +
                        " registers a thread,"
                  : std::string())
          << (C.Coarsened ? ", " + std::to_string(C.Coarsened->Factor) +
                                " points a thread along " +
                                char('x' + C.Coarsened->Axis) + ","
                          : std::string())
          << " from " << O.ReblockTimes << " (" << Times << ")\n";
      Reblock[C.Kernel] = C.Block;
      if (C.MaxRegisters)
        Caps[C.Kernel] = C.MaxRegisters;
      else
        Caps.erase(C.Kernel);
      if (C.Coarsened)
        Coarsen[C.Kernel] = C.Coarsened;
      else
        Coarsen.erase(C.Kernel);
    } else {
      Err << "fs-rewrite: " << C.Kernel
          << ": keeps its original launches: no block shape in "
          << O.ReblockTimes << " gains "
          << formatv("{0}", O.ReblockMinGain * 100).str() << "% (best " << Times
          << ")\n";
      Forget(C.Kernel);
    }
  }
  return "";
}

/// The session's options as lib/Knowledge takes them.
knowledge::VariantChoiceOptions choiceOptions(const Options &O,
                                              const std::string &KnowledgeFile) {
  knowledge::VariantChoiceOptions V;
  V.TuningResults = O.TuningResults;
  V.KnowledgeFile = KnowledgeFile;
  V.Arch = O.Arch;
  V.CpuCheck = *knowledge::parseCpuCheckMode(O.CpuCheck);
  forge::EmulatorLocation Where =
      forge::locateCpuEmulator(O.CpuEmulator, O.MainExecutable);
  V.CpuEmulator = Where.Path;
  V.CpuEmulatorHow = Where.How;
  V.CpuEmulatorTried = Where.Tried;
  V.CpuCheckDir = O.CpuCheckDir;
  V.Kernels = O.Kernels;
  return V;
}

/// The variant choice (lib/Knowledge) with the session's options.
Expected<std::map<std::string, rewrite::KernelVariant>>
chooseVariants(const Options &O, const analysis::Inventory &Inv,
               const std::string &KnowledgeFile, raw_ostream &Log) {
  return knowledge::chooseVariants(Inv, choiceOptions(O, KnowledgeFile), Log);
}

/// --in-app: the in-app candidates of the kernels named, or with
/// --in-app-times the fastest of them that the app's verify run measured,
/// as their variants. Only those kernels are rewritten unless --kernels
/// names others. Returns the error message, empty on success.
std::string planInApp(const Options &O, const analysis::Inventory &Inv,
                      const std::string &KnowledgeFile,
                      rewrite::RewriteOptions &R, raw_ostream &Err) {
  if (O.InAppKernels.empty())
    return "";
  knowledge::VariantChoiceOptions V = choiceOptions(O, KnowledgeFile);
  // A winner was compared with the original in the app: the candidates are
  // only made again here to find it, not checked again.
  if (!O.InAppTimes.empty())
    V.CpuCheck = knowledge::CpuCheckMode::Never;
  auto Candidates =
      knowledge::inAppCandidates(Inv, V, O.InAppKernels, O.Budget, Err);
  if (!Candidates)
    return toString(Candidates.takeError());
  for (const auto &[Name, List] : *Candidates)
    R.Variants.erase(Name);
  if (O.InAppTimes.empty()) {
    for (const auto &[Name, List] : *Candidates)
      R.Kernels.push_back(Name);
    R.InAppCandidates = std::move(*Candidates);
    return "";
  }
  auto Winners = knowledge::chooseInAppWinners(*Candidates, O.InAppTimes,
                                               O.InAppMinGain, Err);
  if (!Winners)
    return toString(Winners.takeError());
  for (auto &[Name, W] : *Winners) {
    R.Kernels.push_back(Name);
    R.Variants[Name] = std::move(W);
  }
  if (R.Kernels.empty())
    return "no in-app candidate in " + O.InAppTimes +
           " is faster for any --in-app kernel: nothing to patch";
  return "";
}

} // namespace

int Session::writePatch(const driver::CudaCompilationDatabase &DB,
                        const AppFacts &App) {
  const analysis::Inventory &Inv = App.Inventory;
  if (!O.ToStdout && O.AppName.empty())
    return usageError("--emit-patch needs --app NAME (or use --stdout)");
  Expected<rewrite::Strategy> Strat = rewrite::parseStrategy(O.Strategy);
  if (!Strat)
    return usageError(toString(Strat.takeError()));
  if ((!O.RestrictKernels.empty() || !O.ReblockKernels.empty() ||
       !O.InAppKernels.empty()) &&
      *Strat != rewrite::Strategy::Forge)
    return usageError("--restrict, --reblock and --in-app need --strategy "
                      "forge");
  if (!O.InAppTimes.empty() && O.InAppKernels.empty())
    return usageError("--in-app-times needs --in-app (the kernels whose "
                      "candidates it timed)");
  rewrite::EmitOptions Opts;
  // Patches name files relative to the real source root.
  SmallString<256> Root(sourceRoot(DB));
  sys::fs::make_absolute(Root);
  sys::fs::real_path(Root, Root);
  Opts.Rewrite.SourceRoot = std::string(Root);
  Opts.Rewrite.Kernels = O.Kernels;
  Opts.Rewrite.Strat = *Strat;
  if (*Strat == rewrite::Strategy::Forge) {
    // With --in-app alone, only the --in-app kernels are rewritten.
    if (O.InAppKernels.empty() || !O.Kernels.empty()) {
      auto Variants = chooseVariants(O, Inv, knowledgeFile(), Err);
      if (!Variants)
        return fail(toString(Variants.takeError()));
      Opts.Rewrite.Variants = std::move(*Variants);
    }
    Opts.Rewrite.RestrictKernels = O.RestrictKernels;
    for (StringRef Item : O.ReblockKernels) {
      auto [Name, Shape] = Item.split('=');
      std::optional<std::array<unsigned, 3>> Block;
      if (!Shape.empty() && !(Block = rewrite::parseBlockShape(Shape)))
        return usageError("--reblock " + Item.str() +
                          ": the shape must be XxY or XxYxZ, at most 1024 "
                          "threads");
      Opts.Rewrite.ReblockKernels[Name.str()] = Block;
    }
    for (StringRef Item : O.RegisterCapKernels) {
      auto [Name, Cap] = Item.split('=');
      std::optional<unsigned> N;
      unsigned V = 0;
      if (!Cap.empty()) {
        if (Cap.getAsInteger(10, V) || !rewrite::validRegisterCap(V))
          return usageError("--register-cap " + Item.str() +
                            ": the cap must be a number of registers from 16 "
                            "to 255");
        N = V;
      }
      // Without --reblock the copy keeps the original's block shape; its
      // cap is chosen with the shape it was timed at (--reblock-times).
      if (!Opts.Rewrite.ReblockKernels.count(Name.str())) {
        if (N)
          return usageError("--register-cap " + Item.str() + ": without "
                            "--reblock " + Name.str() + " the cap is chosen "
                            "by --reblock-times, with the block shape it was "
                            "timed at; give " + Name.str() + " alone");
        Opts.Rewrite.ReblockKernels[Name.str()] = std::nullopt;
        Opts.Rewrite.KeepShapeKernels.insert(Name.str());
      }
      Opts.Rewrite.RegisterCapKernels[Name.str()] = N;
    }
    for (StringRef Item : O.CoarsenKernels) {
      auto [Name, Spec] = Item.split('=');
      std::optional<rewrite::Coarsening> Co;
      if (!Spec.empty()) {
        Co = rewrite::parseCoarsening(Spec);
        if (!Co)
          return usageError("--coarsen " + Item.str() +
                            ": the coarsening must be yN or zN, N from 2 "
                            "to 16 points a thread");
      }
      if (!Opts.Rewrite.ReblockKernels.count(Name.str()) ||
          Opts.Rewrite.KeepShapeKernels.count(Name.str()))
        return usageError("--coarsen " + Item.str() + ": needs --reblock " +
                          Name.str() + " (the same conditions make both "
                          "copies)");
      if (Opts.Rewrite.RegisterCapKernels.count(Name.str()))
        return usageError("--coarsen " + Item.str() + ": a coarsened copy "
                          "with a register cap is not made yet");
      Opts.Rewrite.CoarsenKernels[Name.str()] = Co;
    }
    if (std::string E = chooseReblockShapes(O, Opts.Rewrite.ReblockKernels,
                                            Opts.Rewrite.RegisterCapKernels,
                                            Opts.Rewrite.CoarsenKernels,
                                            Err);
        !E.empty())
      return fail(E);
    if ((!O.ReblockKernels.empty() || !O.RegisterCapKernels.empty()) &&
        Opts.Rewrite.ReblockKernels.empty() &&
        O.RestrictKernels.empty() && O.Kernels.empty())
      return fail("no block shape or cap in " + O.ReblockTimes +
                  " is faster for any --reblock or --register-cap kernel: "
                  "nothing to patch");
    StringRef Arch = O.Arch;
    if (!Arch.consume_front("sm_") ||
        Arch.getAsInteger(10, Opts.Rewrite.BodyComputeCapability))
      return usageError("--bundle-arch must be sm_<NN>, not '" + O.Arch + "'");
    // A kernel asked for a body copy is rewritten whatever else is.
    std::vector<std::string> BodyKernels = O.RestrictKernels;
    for (const auto &[Name, Shape] : Opts.Rewrite.ReblockKernels)
      BodyKernels.push_back(Name);
    if (std::string E = planInApp(O, Inv, knowledgeFile(), Opts.Rewrite, Err);
        !E.empty())
      return fail(E);
    // Routing a kernel through a launcher that can only run the reference
    // copy gains nothing: by default the forge rewrites the kernels it has a
    // variant for.
    if (Opts.Rewrite.Kernels.empty() && O.InAppKernels.empty()) {
      for (const auto &[Name, V] : Opts.Rewrite.Variants)
        Opts.Rewrite.Kernels.push_back(Name);
    }
    if (Opts.Rewrite.Kernels.empty() && BodyKernels.empty()) {
      if (!O.TuningResults.empty())
        return fail("fs-tune found no verified candidate faster than the "
                    "original for any kernel: nothing to patch");
      bool AnyStencil = false;
      for (const auto &[Name, A] : Inv.analyses())
        AnyStencil |= A.Result == analysis::KernelAnalysis::Stencil && A.IR;
      if (AnyStencil)
        return fail("every stencil kernel keeps its original launch (the "
                    "reasons are above): nothing to patch");
      return fail("no kernel was analysed as a stencil, so the forge has "
                  "nothing to rewrite (see --list for the reasons)");
    }
    for (const std::string &Name : BodyKernels)
      if (!is_contained(Opts.Rewrite.Kernels, Name))
        Opts.Rewrite.Kernels.push_back(Name);
  }
  Opts.Rewrite.ToolVersion = FORGESTENCIL_VERSION;
  Opts.ToStream = O.ToStdout;
  SmallString<256> OutDir(O.OutputDir);
  if (OutDir.empty())
    sys::path::append(OutDir, "patches", O.AppName);
  sys::fs::make_absolute(OutDir);
  Opts.OutputDirectory = std::string(OutDir);
  if (Error E = rewrite::emitPatch(App.Rewrite, App.Parses, Opts, Out, Err))
    return fail(toString(std::move(E)));
  return 0;
}

} // namespace pipeline
} // namespace forgestencil

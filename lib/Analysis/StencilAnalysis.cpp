//===- StencilAnalysis.cpp - From a kernel's AST to Stencil IR -------------===//

#include "forgestencil/Analysis/StencilAnalysis.h"
#include "KernelInterpreter.h"
#include "Recognisers.h"
#include "forgestencil/Analysis/Poly.h"
#include "forgestencil/Analysis/PreprocessorFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <tuple>

using namespace clang;

namespace forgestencil {
namespace analysis {

const char *verdictName(KernelAnalysis::Verdict V) {
  switch (V) {
  case KernelAnalysis::Stencil:
    return "stencil";
  case KernelAnalysis::Partial:
    return "partial";
  case KernelAnalysis::NotStencil:
    return "not-stencil";
  }
  return "not-stencil";
}

std::string KernelAnalysis::reasonText() const {
  std::string S;
  for (const Reason &R : Reasons)
    S += (S.empty() ? "" : "; ") + R.Text;
  return S;
}

using detail::Interpreter;

KernelAnalysis analyzeKernel(const FunctionDecl &Kernel, ASTContext &Ctx,
                             const PreprocessorFacts *PP,
                             const LaunchBlock *Launch) {
  // Named constants stay symbols unless the analysis needs their numbers;
  // a constant needed somewhere is a number from the start of the next run,
  // so that every value derived from it agrees. Where that still leaves the
  // kernel less understood than with every constant a number, the numbers
  // win (each one an assumption the launcher checks).
  // Block sizes the launches give (\p Launch), used for the dimensions a
  // run found it needs.
  std::map<int, int64_t> FromLaunch;
  // What the interpreter leaves out: the same for every run below.
  detail::KernelSlices Slices;
  for (const auto &Slicer : detail::kernelSlicers())
    Slicer->slice(Kernel, Ctx, Slices);
  // threadIdx/blockIdx components taken as positions of their own, and
  // block sizes guessed from a __shared__ tile's extents (later attempts,
  // below); what the last run saw of each.
  std::set<std::string> Lone, LoneSeen;
  std::map<int, int64_t> TileSizes, GuessSeen;
  // Blocks with halo threads (HaloThreads.cpp): those of this reading, and
  // those the last run's launch suggests.
  std::map<int, detail::HaloThreads> Halo, HaloSeen;
  std::map<int, std::string> TileWhyText, GuessWhy;
  // Block-stride loops (BlockLoops.h): those the kernel has, and those the
  // current reading runs once a thread in a block of their span.
  const std::map<int, detail::BlockLoopDim> KernelLoops =
      detail::blockStrideLoops(Kernel, Ctx, Launch ? &Launch->Dims : nullptr);
  std::map<int, detail::BlockLoopDim> Loops;
  // Thread coarsening (Coarsening.h): the loops the current reading runs
  // once, and those the last run unrolled that could be.
  std::map<const Stmt *, detail::CoarseLoop> Coarse, CoarseSeen;
  // What the host sets constant-memory integers to: one walk of the
  // translation unit for all the runs below, where one needs it.
  std::optional<std::map<const VarDecl *, detail::ConstantMultiple>>
      HostMultiples;
  auto Configure = [&](Interpreter &I, const std::set<int> &Given) {
    I.lonePositions(Lone);
    I.blockLoops(Loops);
    I.coarseLoops(Coarse);
    I.hostMultiplesIn(&HostMultiples);
    if (Launch)
      I.blockSizesFromLaunch(Given, Launch->Where);
    std::map<int, std::string> Guessed;
    for (const auto &[D, B] : TileSizes)
      if (!Given.count(D) && TileWhyText.count(D))
        Guessed[D] = TileWhyText.at(D);
    I.blockSizesFromTiles(std::move(Guessed));
    I.haloThreads(Halo);
  };
  auto Observe = [&](Interpreter &I) {
    LoneSeen = I.lonePositionIndices();
    CoarseSeen = I.coarseLoopsSeen();
    GuessWhy.clear();
    GuessSeen = I.tileBlockGuesses(GuessWhy);
    // A kernel that indexes blocks by fewer points than its launches give
    // threads (blockIdx.x * 14 + threadIdx.x - 1 in blocks of 16): halo
    // threads on either side, as many on each.
    HaloSeen.clear();
    if (Launch && Halo.empty())
      for (const auto &[D, B] : I.blockSizes())
        if (!FromLaunch.count(D) && B > 0 && Launch->Dims[D] > B &&
            (Launch->Dims[D] - B) % 2 == 0)
          HaloSeen[D] = {B, Launch->Dims[D], (Launch->Dims[D] - B) / 2};
  };
  auto RunWith = [&](const Interpreter::NumericConstants &Numbers,
                     std::set<std::string> &Assumed) {
    std::map<int, int64_t> Sizes = FromLaunch;
    Sizes.insert(TileSizes.begin(), TileSizes.end());
    for (const auto &[D, H] : Halo)
      Sizes[D] = H.Points;
    for (const auto &[D, L] : Loops)
      Sizes[D] = L.span();
    Interpreter I(Ctx, Kernel, Slices, PP, Numbers, Sizes);
    std::set<int> Given;
    for (const auto &[D, B] : FromLaunch)
      Given.insert(D);
    Configure(I, Given);
    KernelAnalysis R = I.run();
    Assumed = I.assumedConstants();
    Observe(I);
    if (std::map<int, int64_t> Late = I.lateBlockSizes(); !Late.empty()) {
      Interpreter Again(Ctx, Kernel, Slices, PP, Numbers, std::move(Late));
      Configure(Again, Given);
      R = Again.run();
      Assumed = Again.assumedConstants();
      Observe(Again);
    }
    if (Launch && R.Result != KernelAnalysis::Stencil) {
      std::set<int> Wanted = I.blockSizesWanted();
      // A kernel that indexes blocks by a multiple of the threads its
      // launches give (blockIdx.x * 128 + threadIdx.x in blocks of 16) has
      // each thread compute points a block apart: read it with the
      // launch's block, where the coarsening shows.
      for (const auto &[D, B] : I.blockSizes())
        if (!FromLaunch.count(D) && Launch->Dims[D] > 1 &&
            B > Launch->Dims[D] && B % Launch->Dims[D] == 0)
          Wanted.insert(D);
      bool New = false;
      for (int D : Wanted)
        New |= FromLaunch.emplace(D, Launch->Dims[D]).second;
      if (New)
        return std::optional<KernelAnalysis>(); // Run again with them.
    }
    return std::optional<KernelAnalysis>(std::move(R));
  };
  auto Run = [&](const Interpreter::NumericConstants &Numbers,
                 std::set<std::string> &Assumed) {
    std::optional<KernelAnalysis> R;
    for (int Round = 0; Round < 4 && !R; ++Round)
      R = RunWith(Numbers, Assumed);
    if (!R) { // Still wanting sizes after every launch dimension: as is.
      Launch = nullptr;
      FromLaunch.clear();
      R = RunWith(Numbers, Assumed);
    }
    return std::move(*R);
  };
  const LaunchBlock *const GivenLaunch = Launch;
  auto Analyse = [&] {
    Launch = GivenLaunch;
    FromLaunch.clear();
    Interpreter::NumericConstants Numbers;
    std::set<std::string> Assumed;
    KernelAnalysis KA = Run(Numbers, Assumed);
    for (int Round = 0; Round < 4; ++Round) {
      if (std::includes(Numbers.Names.begin(), Numbers.Names.end(),
                        Assumed.begin(), Assumed.end()))
        break;
      Numbers.Names.insert(Assumed.begin(), Assumed.end());
      KA = Run(Numbers, Assumed);
    }
    if (KA.Result != KernelAnalysis::Stencil && KA.IR &&
        !KA.IR->Constants.empty()) {
      Interpreter::NumericConstants All;
      All.AllNumeric = true;
      auto Seen = std::make_tuple(LoneSeen, GuessSeen, GuessWhy);
      KernelAnalysis Numeric = Run(All, Assumed);
      if (Numeric.Result == KernelAnalysis::Stencil)
        KA = std::move(Numeric);
      else
        std::tie(LoneSeen, GuessSeen, GuessWhy) = std::move(Seen);
    }
    return KA;
  };
  // Where the usual reading leaves the kernel short of a stencil, other
  // readings are tried, each kept only where it makes the kernel one: a
  // store whose position uses threadIdx.D alone (one block spans the axis)
  // or blockIdx.D alone (a block per plane) with those as positions of
  // their own; a tile whose block size no launch in view gives with the
  // size its extents suggest (a block-dim assumption the launcher checks).
  struct Reading {
    std::set<std::string> Lone;
    std::map<int, int64_t> Tiles;
    std::map<int, std::string> Why;
    std::map<int, detail::HaloThreads> Halo = {};
    std::map<int, detail::BlockLoopDim> Loops = {};
    std::map<const Stmt *, detail::CoarseLoop> Coarse = {};
  };
  std::vector<Reading> Readings(1);
  KernelAnalysis KA;
  for (size_t N = 0; N < Readings.size() && N < 12; ++N) {
    Lone = Readings[N].Lone;
    TileSizes = Readings[N].Tiles;
    TileWhyText = Readings[N].Why;
    Halo = Readings[N].Halo;
    Loops = Readings[N].Loops;
    Coarse = Readings[N].Coarse;
    KernelAnalysis R = Analyse();
    const bool Done = R.Result == KernelAnalysis::Stencil;
    // A reading with halo threads is the launch's own account of the
    // block: where it is no worse, its reasons are the ones to tell (a
    // store the halo threads make) rather than the usual reading's (tile
    // elements that threads which never read them would miss).
    const bool HaloNoWorse = !Halo.empty() && R.Result <= KA.Result;
    if (N == 0 || Done || HaloNoWorse)
      KA = std::move(R);
    if (Done)
      break;
    auto Add = [&](Reading Next) {
      for (const Reading &O : Readings)
        if (O.Lone == Next.Lone && O.Tiles == Next.Tiles &&
            O.Halo.size() == Next.Halo.size() &&
            O.Loops.size() == Next.Loops.size() && O.Coarse == Next.Coarse)
          return;
      Readings.push_back(std::move(Next));
    };
    // The same reading with the kernel's block-stride loops run once a
    // thread (not with halo threads: those fix the block's size).
    if (Loops.empty() && Halo.empty() && !KernelLoops.empty())
      Add({Lone, TileSizes, TileWhyText, Halo, KernelLoops});
    if (!HaloSeen.empty() && Halo.empty() && Loops.empty())
      Add({Lone, TileSizes, TileWhyText, HaloSeen});
    if (!LoneSeen.empty() && Lone.empty())
      Add({LoneSeen, TileSizes, TileWhyText, {}, Loops, Coarse});
    // The same reading with its coarsening loops run once (not with halo
    // threads, block loops or lone indices, which map threads to points
    // otherwise).
    if (!CoarseSeen.empty() && Coarse.empty() && Halo.empty() && Loops.empty() &&
        Lone.empty())
      Add({Lone, TileSizes, TileWhyText, {}, {}, CoarseSeen});
    if (!GuessSeen.empty()) {
      Reading Next{Lone, TileSizes, TileWhyText, {}, Loops, Coarse};
      for (const auto &[D, B] : GuessSeen)
        if (Next.Tiles.emplace(D, B).second)
          Next.Why[D] = GuessWhy[D];
      Add(std::move(Next));
    }
  }
  // Idioms that decide the verdict themselves (Recognisers.h).
  for (const auto &R : detail::kernelRecognisers()) {
    std::optional<detail::Recognised> Found = R->examine(Kernel, Ctx, KA);
    if (!Found)
      continue;
    KA.Result = Found->Result;
    KA.Reasons = {Found->Why};
    KA.Temporal = Found->Temporal;
    if (KA.Result == KernelAnalysis::NotStencil)
      KA.IR.reset();
    break;
  }
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Loc = SM.getFileLoc(Kernel.getLocation());
  if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(SM.getFileID(Loc))) {
    llvm::SmallString<256> Real;
    if (llvm::sys::fs::real_path(FE->getName(), Real))
      Real = FE->getName();
    KA.Pos.File = std::string(Real);
    KA.Pos.Line = SM.getSpellingLineNumber(Loc);
    KA.Pos.Column = SM.getSpellingColumnNumber(Loc);
    KA.Pos.Offset = SM.getFileOffset(Loc);
  }
  if (KA.IR) {
    KA.IR->SourceLine = KA.Pos.Line;
  }
  // What generators are given must be an IR a file could hold: where the
  // analysis built one that its own reader would refuse, that is a defect
  // here, and the kernel is reported rather than rewritten from it.
  if (KA.Result == KernelAnalysis::Stencil && KA.IR)
    if (std::string Problem = ir::validate(*KA.IR, "ir"); !Problem.empty()) {
      KA.Result = KernelAnalysis::Partial;
      KA.Reasons.push_back({ReasonKind::Update,
                            "the IR built for the kernel is not valid (" +
                                Problem + "); it is not rewritten"});
    }
  return KA;
}

} // namespace analysis
} // namespace forgestencil

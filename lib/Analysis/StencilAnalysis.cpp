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
  // threadIdx/blockIdx components taken as positions of their own (a
  // second analysis, below), and those the last run's store used alone.
  std::set<std::string> Lone, LoneSeen;
  auto RunWith = [&](const Interpreter::NumericConstants &Numbers,
                     std::set<std::string> &Assumed) {
    Interpreter I(Ctx, Kernel, Slices, PP, Numbers, FromLaunch);
    I.lonePositions(Lone);
    std::set<int> Given;
    for (const auto &[D, B] : FromLaunch)
      Given.insert(D);
    if (Launch)
      I.blockSizesFromLaunch(Given, Launch->Where);
    KernelAnalysis R = I.run();
    Assumed = I.assumedConstants();
    LoneSeen = I.lonePositionIndices();
    if (std::map<int, int64_t> Late = I.lateBlockSizes(); !Late.empty()) {
      Interpreter Again(Ctx, Kernel, Slices, PP, Numbers, std::move(Late));
      Again.lonePositions(Lone);
      if (Launch)
        Again.blockSizesFromLaunch(Given, Launch->Where);
      R = Again.run();
      Assumed = Again.assumedConstants();
      LoneSeen = Again.lonePositionIndices();
    }
    if (Launch && R.Result != KernelAnalysis::Stencil) {
      std::set<int> Wanted = I.blockSizesWanted();
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
      std::set<std::string> Seen = LoneSeen;
      KernelAnalysis Numeric = Run(All, Assumed);
      if (Numeric.Result == KernelAnalysis::Stencil)
        KA = std::move(Numeric);
      else
        LoneSeen = std::move(Seen);
    }
    return KA;
  };
  KernelAnalysis KA = Analyse();
  // A store whose position uses threadIdx.D alone (one block spans the
  // axis) or blockIdx.D alone (a block per plane): analysed again with
  // those as positions of their own, kept where that makes it a stencil.
  if (KA.Result != KernelAnalysis::Stencil && !LoneSeen.empty()) {
    Lone = LoneSeen;
    KernelAnalysis Positions = Analyse();
    if (Positions.Result == KernelAnalysis::Stencil)
      KA = std::move(Positions);
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
  return KA;
}

} // namespace analysis
} // namespace forgestencil

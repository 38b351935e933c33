//===- PatchEmission.cpp - fs-rewrite's --emit-patch, end to end ----------===//

#include "forgestencil/Rewrite/PatchEmission.h"

#include "forgestencil/Patch/AlreadyApplied.h"
#include "forgestencil/Patch/PatchFile.h"

using namespace llvm;

namespace forgestencil {
namespace rewrite {

static Error failure(const Twine &Message) {
  return createStringError(inconvertibleErrorCode(), Message.str());
}

Error emitPatch(const RewriteFacts &Facts,
                const std::vector<driver::ParseResult> &Parses,
                const EmitOptions &Opts, raw_ostream &Out, raw_ostream &Log) {
  // Rewriting code that did not parse could corrupt it: refuse, unless
  // every error lies outside every kernel and launch (the front end made
  // each launch with an error in it, or one the errors hid, a blocker).
  // The patch then replaces launches that parsed without error.
  for (const driver::ParseResult &R : Parses) {
    if (R.ok())
      continue;
    if (R.hasToleratedErrors()) {
      Log << "fs-rewrite: note: " << R.File << " ("
          << driver::sideName(R.Side) << " side): " << R.NumErrors
          << " error(s) outside every kernel and launch"
          << (R.Errors.empty() ? std::string()
                               : " (first: " + R.Errors[0].format() + ")")
          << "; its launches parsed without error and may be rewritten\n";
      continue;
    }
    std::string First = R.Errors.empty() ? "" : "; first: " + R.Errors[0].format();
    return failure("failed to parse " + R.File + " (" +
                   driver::sideName(R.Side) + " side), so nothing is "
                   "rewritten" + First);
  }

  Expected<RewritePlan> Plan = planRewrites(Facts, Opts.Rewrite);
  if (!Plan)
    return Plan.takeError();
  for (const RewriteNote &N : Plan->Notes)
    Log << "fs-rewrite: note: " << N.format() << "\n";
  if (Plan->alreadyApplied()) {
    Log << "fs-rewrite: the tree already carries a ForgeStencil USE_OURS "
           "patch (" << Plan->LaunchesAlreadyGuarded
        << " launch(es) already guarded); no patch written\n";
    return Error::success();
  }
  if (Plan->LaunchesRewritten == 0)
    return failure("no launch can be rewritten");

  patch::ApplyCheck Check =
      patch::detectAlreadyAppliedInTree(Opts.Rewrite.SourceRoot, Plan->Files);
  if (Check.State == patch::ApplyState::AlreadyApplied) {
    Log << "fs-rewrite: " << Check.Reason << "; no patch written\n";
    return Error::success();
  }
  if (Check.State == patch::ApplyState::Diverged)
    return failure("the tree already carries part of a ForgeStencil patch: " +
                   Check.Reason);

  Expected<std::string> Text = buildPatch(*Plan, Opts.Rewrite);
  if (!Text)
    return Text.takeError();
  if (Opts.ToStream) {
    Out << *Text;
    return Error::success();
  }
  patch::Expected<patch::SeriesUpdate> Written = patch::replacePatchSeries(
      Opts.OutputDirectory, patchSlug(*Plan, Opts.Rewrite), *Text);
  if (!Written)
    return failure(Written.error());
  if ((*Written).Unchanged) {
    Log << "fs-rewrite: " << (*Written).Path
        << " is already this patch; nothing written\n";
    return Error::success();
  }
  for (const std::string &Old : (*Written).Replaced)
    Log << "fs-rewrite: replaced " << Old << "\n";
  const std::string *Path = &(*Written).Path;
  Log << "fs-rewrite: wrote " << *Path << " (" << Plan->LaunchesRewritten
      << " launch(es) of " << Plan->Kernels.size() << " kernel(s), strategy "
      << strategyName(Opts.Rewrite.Strat) << ")\n";
  return Error::success();
}

} // namespace rewrite
} // namespace forgestencil

//===- InAppVerify.cpp - The USE_OURS=verify run of a patched app ---------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Harness/InAppVerify.h"

#include "forgestencil/Harness/Measurement.h"

#include <filesystem>
#include <fstream>
#include <iterator>

namespace forgestencil {
namespace harness {

bool hasBodyCopies(const std::string &SourceDir) {
  std::error_code Error;
  return !SourceDir.empty() &&
         std::filesystem::exists(SourceDir + "/forgestencil/checks.h", Error);
}

std::optional<bool> holdsVerifyCode(const std::string &Binary) {
  std::ifstream In(Binary, std::ios::binary);
  if (!In)
    return std::nullopt;
  std::string Bytes((std::istreambuf_iterator<char>(In)),
                    std::istreambuf_iterator<char>());
  if (Bytes.compare(0, 4, "\x7f" "ELF") != 0)
    return std::nullopt;
  return Bytes.find("forgestencil verify:") != std::string::npos;
}

std::string judgeInAppVerification(const support::ProcessResult &Result,
                                   const std::string &Binary,
                                   std::optional<InAppVerification> &Found,
                                   std::ostream &Progress) {
  if (!Result.succeeded())
    return "the USE_OURS=verify run failed: " + Result.describeEnd() + "\n" +
           support::lastLines(Result.Stderr, 10);
  const std::string Output = Result.Stdout + "\n" + Result.Stderr;
  // A build variant the patch does not touch: the program holds none of
  // its code, so there is nothing to verify and both modes run the same.
  if (Output.find("forgestencil verify") == std::string::npos &&
      holdsVerifyCode(Binary) == false) {
    Found = InAppVerification();
    Found->Untouched = true;
    Progress << "fs-harness: USE_OURS=verify: the program holds none of the "
                "patch's code (" << Binary << " has no forgestencil/checks.h "
                "in it): no launch of it is rewritten; measured as it is\n";
    return "";
  }
  Expected<InAppVerification> V = parseInAppVerification(Output);
  if (!V)
    return V.error();
  Found = *V;
  Progress << "fs-harness: USE_OURS=verify: " << V->Compared
           << " launch(es) compared, " << V->Identical << " identical, "
           << V->Differ << " differ, " << V->NotCompared << " not compared";
  if (V->FellBack)
    Progress << ", " << V->FellBack
             << " fell back to the original (variants checked at run time)";
  Progress << "\n";
  if (!V->FallingBack.empty())
    Progress << "fs-harness: USE_OURS=verify: first to fall back: "
             << V->FallingBack.front() << "\n";
  if (!V->Skipped.empty())
    Progress << "fs-harness: USE_OURS=verify: first not compared: "
             << V->Skipped.front() << "\n";
  for (const InAppVerification::KernelTimes &K : V->Kernels)
    Progress << "fs-harness: USE_OURS=verify: " << K.Kernel << ": original "
             << formatNumber(K.OriginalMs, 4) << " ms, copy "
             << formatNumber(K.CopyMs, 4) << " ms ("
             << formatNumber(K.CopyMs > 0 ? K.OriginalMs / K.CopyMs : 0, 3)
             << "x, median of " << K.Launches << " launch(es))\n";
  if (V->Differ)
    return "USE_OURS=verify: " + V->Differing.front();
  if (V->Compared == 0)
    return "USE_OURS=verify compared no launch";
  return "";
}

nlohmann::json inAppVerificationJson(const InAppVerification &V) {
  if (V.Untouched)
    return {{"untouched", true},
            {"how", "USE_OURS=verify printed no verify line and the program "
                    "holds none of forgestencil/checks.h's code: the patch "
                    "rewrites no launch of this program, so both modes run "
                    "the same code"}};
  nlohmann::json KernelTimes = nlohmann::json::object();
  for (const InAppVerification::KernelTimes &K : V.Kernels)
    KernelTimes[K.Kernel] = {{"original_ms", K.OriginalMs},
                             {"copy_ms", K.CopyMs},
                             {"launches", K.Launches}};
  return {{"kernel_times", KernelTimes},
          {"compared", V.Compared},
          {"identical", V.Identical},
          {"differ", V.Differ},
          {"not_compared", V.NotCompared},
          {"differing", V.Differing},
          {"fell_back", V.FellBack},
          {"falling_back", V.FallingBack},
          {"how", "USE_OURS=verify: the original and each body copy or in-app "
                  "candidate run on "
                  "the same saved state at launches 1, 2, 3, 10, 100, ...; "
                  "every byte of every allocation their pointers reach "
                  "compared; each timed best of 3 on the launch's stream, "
                  "median over the launches"}};
}

} // namespace harness
} // namespace forgestencil

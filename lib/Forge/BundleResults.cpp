//===- BundleResults.cpp - What fs-tune measured, and the winners ---------===//

#include "forgestencil/Forge/BundleResults.h"

#include "forgestencil/Support/JsonReader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace forgestencil {
namespace forge {

using nlohmann::json;

json CandidateResult::toJson() const {
  json J = {{"kernel", Kernel},
            {"id", Id},
            {"origin", Origin},
            {"compile", Compile},
            {"verdict", Verdict},
            {"reason", Reason},
            {"max_error", MaxError},
            {"tolerance", Tolerance},
            {"original_ms", OriginalMs},
            {"original_spread_ms", OriginalSpreadMs},
            {"candidate_ms", CandidateMs},
            {"candidate_spread_ms", CandidateSpreadMs},
            {"copy_ms", CopyMs},
            {"footprint_ms", FootprintMs},
            {"speedup", speedup()},
            {"rounds", Rounds},
            {"reps", Reps},
            {"seed", Seed}};
  if (Params)
    J["params"] = Params->toJson();
  if (Points > 0) {
    J["points"] = Points;
    J["copy_bytes"] = CopyBytes;
  }
  if (!TimedExt.empty())
    J["timed_ext"] = TimedExt;
  if (!Source.empty())
    J["source"] = Source;
  return J;
}

void readDriverTiming(const json &Timing, CandidateResult &C) {
  for (const json &T : Timing) {
    double Median = T.value("median_ms", 0.0);
    double Spread = (T.value("p90_ms", 0.0) - T.value("p10_ms", 0.0)) / 2;
    std::string V = T.value("variant", "");
    if (V == "original") {
      C.OriginalMs = Median;
      C.OriginalSpreadMs = Spread;
    } else if (V == "copy") {
      C.CopyMs = Median;
    } else if (V == "footprint") {
      C.FootprintMs = Median;
    } else {
      C.CandidateMs = Median;
      C.CandidateSpreadMs = Spread;
    }
  }
}

std::optional<CandidateResult> CandidateResult::fromJson(const json &J,
                                                         std::string &Error) {
  return fromJson(J, Error, "");
}

std::optional<CandidateResult>
CandidateResult::fromJson(const json &J, std::string &Error,
                          const std::string &Path) {
  support::JsonReader R(Error);
  if (!R.expectObject(J, Path))
    return std::nullopt;
  CandidateResult C;
  C.Kernel = R.string(J, "kernel", Path);
  C.Id = R.string(J, "id", Path);
  C.Origin = R.string(J, "origin", Path, "");
  C.Compile = R.string(J, "compile", Path);
  C.Verdict = R.string(J, "verdict", Path);
  C.Reason = R.string(J, "reason", Path, "");
  C.MaxError = R.number(J, "max_error", Path, 0.0);
  C.Tolerance = R.number(J, "tolerance", Path, 0.0);
  // Times are durations: never negative.
  auto Ms = [&](const char *Key) {
    double V = R.number(J, Key, Path, 0.0);
    if (V < 0)
      R.fail(support::memberPath(Path, Key), "a time is not negative");
    return V;
  };
  C.OriginalMs = Ms("original_ms");
  C.OriginalSpreadMs = Ms("original_spread_ms");
  C.CandidateMs = Ms("candidate_ms");
  C.CandidateSpreadMs = Ms("candidate_spread_ms");
  C.CopyMs = Ms("copy_ms");
  C.FootprintMs = Ms("footprint_ms");
  C.Points = R.integer(J, "points", Path, 0,
                       std::numeric_limits<long long>::max(), 0);
  C.CopyBytes = Ms("copy_bytes");
  constexpr long long MaxU = std::numeric_limits<unsigned>::max();
  C.Rounds = static_cast<unsigned>(R.integer(J, "rounds", Path, 0, MaxU, 0));
  C.Reps = static_cast<unsigned>(R.integer(J, "reps", Path, 0, MaxU, 0));
  C.Seed = static_cast<unsigned>(R.integer(J, "seed", Path, 0, MaxU, 0));
  C.Source = R.string(J, "source", Path, "");
  const json &Timed = R.array(J, "timed_ext", Path, false);
  for (size_t E = 0; E < Timed.size() && R.ok(); ++E)
    C.TimedExt.push_back(R.asInteger(
        Timed[E], support::elementPath(support::memberPath(Path, "timed_ext"), E),
        1, 1000000000));
  if (!R.ok())
    return std::nullopt;
  if (const json *P = R.member(J, "params", Path, false)) {
    C.Params =
        StrategyParams::fromJson(*P, Error, support::memberPath(Path, "params"));
    if (!C.Params)
      return std::nullopt;
  }
  return C;
}

json CaseCheck::toJson() const {
  json J = {{"kernel", Kernel}, {"round", Round},   {"case", Case},
            {"ext", Ext},       {"status", Status}, {"model", Model}};
  if (!Reason.empty())
    J["reason"] = Reason;
  if (!Derived.empty())
    J["derived"] = Derived;
  return J;
}

CaseCheck CaseCheck::fromJson(const json &J) {
  CaseCheck C;
  C.Kernel = J.value("kernel", "");
  C.Round = J.value("round", 0u);
  C.Case = J.value("case", "");
  C.Ext = J.value("ext", std::vector<long long>());
  C.Status = J.value("status", "");
  C.Reason = J.value("reason", "");
  C.Derived = J.value("derived", "");
  C.Model = J.value("model", "");
  return C;
}

json TuneResults::toJson() const {
  json Cands = json::array();
  for (const CandidateResult &C : Candidates)
    Cands.push_back(C.toJson());
  json CaseList = json::array();
  for (const CaseCheck &C : Cases)
    CaseList.push_back(C.toJson());
  json Gpu = {{"name", GpuName}, {"driver", Driver}, {"runtime", Runtime}};
  if (L2Bytes > 0)
    Gpu["l2_bytes"] = L2Bytes;
  return {{"schema", TuneResultsSchemaId},
          {"version", TuneResultsSchemaVersion},
          {"tool_version", ToolVersion},
          {"app", App},
          {"arch", Arch},
          {"date", Date},
          {"command", Command},
          {"gpu", Gpu},
          {"nvcc", NvccVersion},
          {"tolerance", Tolerance},
          {"memcheck", Memcheck},
          {"original_check", OriginalCheck},
          {"plausibility", Plausibility},
          {"candidates", Cands},
          {"cases", CaseList}};
}

std::optional<TuneResults> TuneResults::fromJson(const json &J,
                                                 std::string &Error) {
  support::JsonReader R(Error);
  if (!R.expectObject(J, ""))
    return std::nullopt;
  std::string Schema = R.string(J, "schema", "");
  if (R.ok() && Schema != TuneResultsSchemaId)
    R.fail("schema", "not fs-tune results (expected '" +
                         std::string(TuneResultsSchemaId) + "', found '" +
                         Schema + "')");
  long long Version = R.integer(J, "version", "", 0,
                                std::numeric_limits<int>::max());
  if (R.ok() && Version != TuneResultsSchemaVersion)
    R.fail("version", "unsupported results version " +
                          std::to_string(Version) + " (this tool reads " +
                          std::to_string(TuneResultsSchemaVersion) + ")");
  if (!R.ok())
    return std::nullopt;
  TuneResults T;
  T.ToolVersion = R.string(J, "tool_version", "", "");
  T.App = R.string(J, "app", "", "");
  T.Arch = R.string(J, "arch", "", "");
  T.Date = R.string(J, "date", "", "");
  T.Command = R.string(J, "command", "", "");
  if (const json *G = R.member(J, "gpu", "", true);
      G && R.expectObject(*G, "gpu")) {
    T.GpuName = R.string(*G, "name", "gpu", "");
    T.L2Bytes = R.integer(*G, "l2_bytes", "gpu", 0,
                          std::numeric_limits<long long>::max(), 0);
    T.Driver = R.string(*G, "driver", "gpu", "");
    T.Runtime = R.string(*G, "runtime", "gpu", "");
  }
  T.NvccVersion = R.string(J, "nvcc", "", "");
  T.Tolerance = R.string(J, "tolerance", "", "");
  T.Memcheck = R.string(J, "memcheck", "", "");
  T.OriginalCheck = R.string(J, "original_check", "", "");
  T.Plausibility = R.string(J, "plausibility", "", "");
  const json &CaseList = R.array(J, "cases", "", false);
  for (size_t I = 0; I < CaseList.size() && R.ok(); ++I)
    if (R.expectObject(CaseList[I], support::elementPath("cases", I)))
      T.Cases.push_back(CaseCheck::fromJson(CaseList[I]));
  const json &Cands = R.array(J, "candidates", "", true);
  for (size_t I = 0; I < Cands.size() && R.ok(); ++I) {
    auto CR = CandidateResult::fromJson(Cands[I], Error,
                                        support::elementPath("candidates", I));
    if (!CR)
      return std::nullopt;
    T.Candidates.push_back(std::move(*CR));
  }
  if (!R.ok())
    return std::nullopt;
  return T;
}

/// "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
/// without the exception's tag.
static std::string parseErrorText(const std::exception &E) {
  std::string What = E.what();
  if (size_t Close = What.find("] ");
      !What.empty() && What[0] == '[' && Close != std::string::npos)
    What = What.substr(Close + 2);
  return What;
}

std::optional<TuneResults> loadTuneResults(const std::string &Path,
                                           std::string &Error) {
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    Error = "cannot read " + Path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  json J;
  try {
    J = json::parse(In);
  } catch (const json::exception &E) {
    Error = Path + ": not JSON (" + parseErrorText(E) + ")";
    return std::nullopt;
  }
  auto R = TuneResults::fromJson(J, Error);
  if (!R)
    Error = Path + ": " + Error;
  return R;
}

std::string implausibleTiming(const CandidateResult &C, unsigned BytesPerPoint,
                              double RotatedBytes, double L2Bytes) {
  if (C.CandidateMs <= 0)
    return "";
  char Buf[512];
  if (C.FootprintMs > 0 && C.CandidateMs * PlausibleMargin < C.FootprintMs) {
    std::snprintf(Buf, sizeof Buf,
                  "implausible: %.4f ms is %.1fx faster than the footprint "
                  "kernel's %.4f ms, which moves only the stencil's compulsory "
                  "bytes over the same domain (the margin is %.1fx): the timed "
                  "calls cannot have done the work",
                  C.CandidateMs, C.FootprintMs / C.CandidateMs, C.FootprintMs,
                  PlausibleMargin);
    return Buf;
  }
  if (C.Points > 0 && C.CopyMs > 0 && C.CopyBytes > 0 && RotatedBytes > 0 &&
      RotatedBytes >= 3 * L2Bytes) {
    const double Effective =
        C.Points * double(BytesPerPoint) / (C.CandidateMs * 1e6);
    const double Copy = C.CopyBytes / (C.CopyMs * 1e6);
    if (Effective > PlausibleMargin * Copy) {
      std::snprintf(Buf, sizeof Buf,
                    "implausible: an effective bandwidth of %.0f GB/s is %.1fx "
                    "the copy kernel's %.0f GB/s on the same GPU (the margin "
                    "is %.1fx): the timed calls cannot have done the work",
                    Effective, Effective / Copy, Copy, PlausibleMargin);
      return Buf;
    }
  }
  return "";
}

namespace {

std::string formatSpeedup(double S) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.2fx", S);
  return Buf;
}

std::string formatMs(double Ms) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.4f ms", Ms);
  return Buf;
}

/// True when C's median is below the original's by more than the noise
/// both measurements show.
bool beatsOriginal(const CandidateResult &C) {
  double Noise = std::max(C.OriginalSpreadMs, C.CandidateSpreadMs);
  return C.CandidateMs > 0 && C.OriginalMs - C.CandidateMs > Noise;
}

/// Strictly better winner: faster; at equal speed bit-identical; then id.
bool better(const CandidateResult &A, const CandidateResult &B) {
  if (A.CandidateMs != B.CandidateMs) {
    // Equal within either one's spread counts as a tie.
    double Noise = std::max(A.CandidateSpreadMs, B.CandidateSpreadMs);
    if (std::abs(A.CandidateMs - B.CandidateMs) > Noise)
      return A.CandidateMs < B.CandidateMs;
  }
  bool AExact = A.Verdict == "bitexact", BExact = B.Verdict == "bitexact";
  if (AExact != BExact)
    return AExact;
  if (A.CandidateMs != B.CandidateMs)
    return A.CandidateMs < B.CandidateMs;
  return A.Id < B.Id;
}

/// Text on one line (newlines and runs of blanks become one space), cut
/// to at most Width characters.
std::string oneLine(const std::string &Text, size_t Width) {
  std::string Out;
  for (char C : Text) {
    bool Blank = C == '\n' || C == '\r' || C == ' ' || C == '\t';
    if (Blank && (Out.empty() || Out.back() == ' '))
      continue;
    Out += Blank ? ' ' : C;
  }
  return Out.size() > Width ? Out.substr(0, Width) : Out;
}

} // namespace

std::map<std::string, Winner> chooseWinners(const TuneResults &R) {
  std::map<std::string, const CandidateResult *> Best;
  std::map<std::string, unsigned> Verified, Tried;
  std::map<std::string, const CandidateResult *> FastestVerified;
  for (const CandidateResult &C : R.Candidates) {
    ++Tried[C.Kernel];
    if (!C.verified())
      continue;
    ++Verified[C.Kernel];
    const CandidateResult *&F = FastestVerified[C.Kernel];
    if (C.CandidateMs > 0 && (!F || C.CandidateMs < F->CandidateMs))
      F = &C;
    if (!beatsOriginal(C))
      continue;
    const CandidateResult *&B = Best[C.Kernel];
    if (!B || better(C, *B))
      B = &C;
  }
  std::map<std::string, Winner> Out;
  for (const auto &[Kernel, Count] : Tried) {
    Winner W;
    W.Kernel = Kernel;
    auto It = Best.find(Kernel);
    if (It != Best.end()) {
      const CandidateResult &C = *It->second;
      W.CandidateId = C.Id;
      W.Params = C.Params;
      W.Source = C.Source;
      W.Speedup = C.speedup();
      W.Summary = Kernel + ": " + C.Id + " " + formatSpeedup(W.Speedup) +
                  " over the original (" + formatMs(C.CandidateMs) + " vs " +
                  formatMs(C.OriginalMs) + ", medians; " + C.Verdict +
                  (R.GpuName.empty() ? "" : "; " + R.GpuName) + ")";
      Out[Kernel] = W;
      continue;
    }
    unsigned V = Verified.count(Kernel) ? Verified[Kernel] : 0;
    W.Summary = Kernel + ": the original stays (reference fallback): ";
    if (V == 0) {
      W.Summary += "none of " + std::to_string(Count) +
                   " candidates passed verification";
    } else {
      const CandidateResult *F = FastestVerified[Kernel];
      W.Summary += std::to_string(V) + " verified, none faster than the "
                                       "original by more than the noise";
      if (F)
        W.Summary += " (best " + F->Id + " " + formatSpeedup(F->speedup()) +
                     ")";
    }
    Out[Kernel] = W;
  }
  return Out;
}

std::map<std::string, StrategyParams>
winningStrategies(const std::map<std::string, Winner> &Winners) {
  std::map<std::string, StrategyParams> Out;
  for (const auto &[Kernel, W] : Winners)
    if (W.Params)
      Out[Kernel] = *W.Params;
  return Out;
}

std::vector<Measurement> tuneMeasurements(const BundleManifest &M,
                                          const TuneResults &R,
                                          std::vector<std::string> &Skipped) {
  std::vector<Measurement> Out;
  for (const auto &[Kernel, W] : chooseWinners(R)) {
    const BundleKernel *K = M.kernel(Kernel);
    const CandidateResult *C = nullptr;
    for (const CandidateResult &X : R.Candidates)
      if (X.Kernel == Kernel && X.Id == W.CandidateId)
        C = &X;
    std::string Why;
    if (!K)
      Why = "not in the bundle";
    else if (W.CandidateId.empty())
      Why = "the original stays";
    else if (!W.Params)
      Why = "the winner " + W.CandidateId + " is no generated strategy";
    else if (!C || C->Points <= 0 || C->CopyBytes <= 0 || C->CopyMs <= 0 ||
             C->CandidateMs <= 0)
      Why = "the results do not say how many points and copy bytes were "
            "timed (measured before fs-tune kept them)";
    if (!Why.empty()) {
      Skipped.push_back(Kernel + ": " + Why);
      continue;
    }
    Measurement X;
    X.Signature = stencilSignature(K->IR);
    X.Arch = R.Arch;
    X.SizeClass = sizeClass(K->IR, C->Points, R.L2Bytes);
    X.Best = *W.Params;
    X.EffectiveGBs = static_cast<double>(C->Points) * K->IR.BytesPerPoint /
                     (C->CandidateMs * 1e6);
    X.CopyGBs = C->CopyBytes / (C->CopyMs * 1e6);
    X.FractionOfCopy = X.EffectiveGBs / X.CopyGBs;
    X.FractionOfFootprint = C->FootprintMs / C->CandidateMs;
    X.SpeedupVsNaive = C->speedup();
    X.Evidence = {{"date", R.Date},
                  {"gpu", {{"name", R.GpuName},
                           {"driver", R.Driver},
                           {"runtime", R.Runtime},
                           {"l2_bytes", R.L2Bytes}}},
                  {"nvcc", R.NvccVersion},
                  {"tool", "fs-tune " + R.ToolVersion},
                  {"command", R.Command},
                  {"app", R.App},
                  {"kernel", Kernel},
                  {"baseline", "the app's own kernel (speedup_vs_naive)"},
                  {"points", C->Points},
                  {"verdict", C->Verdict}};
    Out.push_back(std::move(X));
  }
  return Out;
}

std::string formatResultsTable(const TuneResults &R) {
  std::ostringstream OS;
  OS << "GPU " << (R.GpuName.empty() ? "?" : R.GpuName) << ", driver "
     << R.Driver << ", nvcc " << R.NvccVersion << "\n";
  OS << std::left << std::setw(22) << "kernel" << std::setw(36) << "candidate"
     << std::setw(10) << "compile" << std::setw(10) << "verdict"
     << std::right << std::setw(11) << "orig ms" << std::setw(11) << "cand ms"
     << std::setw(9) << "speedup" << "  reason\n";
  for (const CandidateResult &C : R.Candidates) {
    OS << std::left << std::setw(22) << C.Kernel << std::setw(36) << C.Id
       << std::setw(10) << C.Compile << std::setw(10) << C.Verdict
       << std::right << std::fixed << std::setprecision(4) << std::setw(11)
       << C.OriginalMs << std::setw(11) << C.CandidateMs
       << std::setprecision(2) << std::setw(8) << C.speedup() << "x  "
       << oneLine(C.Reason, 160) << "\n";
  }
  // How the first round's sizes came about, and every case refused.
  for (const CaseCheck &C : R.Cases)
    if (!C.Derived.empty() && C.Round == 1)
      OS << "sizes: " << C.Kernel << " " << C.Case << ": "
         << oneLine(C.Derived, 200) << "\n";
  for (const CaseCheck &C : R.Cases)
    if (C.Status == "refused") {
      std::string Ext;
      for (long long E : C.Ext)
        Ext += (Ext.empty() ? "" : "x") + std::to_string(E);
      OS << "refused case: " << C.Kernel << " round " << C.Round << " "
         << C.Case << " " << Ext << ": " << oneLine(C.Reason, 200) << "\n";
    }
  return OS.str();
}

} // namespace forge
} // namespace forgestencil

//===- GenerationLoop.cpp - LLM candidates through the real evaluator ----===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/GenerationLoop.h"

#include "forgestencil/Agents/CandidateScreen.h"
#include "forgestencil/Agents/ProfileParsers.h"
#include "forgestencil/Agents/ResponseParsing.h"
#include "forgestencil/Agents/RunLog.h"
#include "forgestencil/Support/HostInfo.h"
#include "forgestencil/Support/ProcessRunner.h"


#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace forgestencil {
namespace agents {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string readText(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream OS;
  OS << In.rdbuf();
  return OS.str();
}

/// \p Name with every character that cannot be in a C identifier or a file
/// name replaced by `_` (kernels may be `ns::k` or templates).
std::string identifierFor(const std::string &Name) {
  std::string Id;
  for (char C : Name)
    Id += std::isalnum(static_cast<unsigned char>(C)) ? C : '_';
  return Id;
}

/// The replacement contract, as DESIGN.md states it for every candidate.
const char *const ReplacementContract =
    "Write a drop-in replacement for the original kernel. The host launcher "
    "is called with the original launch's grid, block, dynamic shared memory "
    "and stream, and the kernel's own arguments; it must launch all its work "
    "on that stream and compute, for every point the original writes, the "
    "same value (bit-identical, or within twice the original's own error "
    "against a float64 evaluation plus 4 ulps). Points the original does not "
    "write and all inputs must stay unchanged. The launcher may choose its "
    "own grid and block. The code is compiled after the app's translation "
    "unit, so the app's __constant__ symbols and macros are visible. No "
    "timers, host allocation, extra streams, files, inline PTX or state kept "
    "between launches.";

/// The built-in generator's first candidate of \p Kernel, cut out of its
/// driver, for one-shot prompting; "" when there is none.
std::string builtinExample(const std::string &Bundle, const json &K) {
  for (const json &C : K.value("candidates", json::array())) {
    if (!C.contains("params") || C.value("driver", "").empty())
      continue;
    std::string Driver = readText(Bundle + "/" + C.value("driver", ""));
    size_t Begin = Driver.find("// The candidate.\n");
    size_t End = Driver.find("\n// The float64 reference");
    if (Begin == std::string::npos || End == std::string::npos || End < Begin)
      continue;
    Begin += std::string("// The candidate.\n").size();
    return Driver.substr(Begin, End - Begin);
  }
  return "";
}

/// Runs \p Argv (no time limit unless \p Timeout) with its stdout and
/// stderr kept in \p LogPath; returns the exit status, or an error when it
/// could not run, was killed or ran out of time.
Result<int> runLogged(const std::vector<std::string> &Argv,
                      const std::string &LogPath,
                      std::optional<double> Timeout = std::nullopt) {
  support::ProcessResult P = support::runProcess({Argv, {}, {}, "", Timeout});
  std::ofstream(LogPath, std::ios::binary) << P.Stdout << P.Stderr;
  if (!P.ExitCode)
    return makeError(Argv.front() + " " + P.describeEnd());
  return *P.ExitCode;
}

/// Bytes one launch must move at \p Shape: every array parameter read or
/// written once.
double compulsoryBytes(const json &Ir, const json &Shape) {
  double Points = 1;
  for (const json &E : Shape)
    Points *= E.get<double>();
  double Elem = Ir.value("element_type", "") == "double" ? 8 : 4;
  int Arrays = 0;
  for (const json &P : Ir.value("params", json::array()))
    Arrays += P.value("type", "").find('*') != std::string::npos;
  return Points * Elem * Arrays;
}

/// Where fs-tune builds candidate \p Id's driver: `<bundle>/build/<driver
/// path without .cu>`; "" when the manifest does not list the candidate.
std::string driverBinary(const std::string &Bundle, const std::string &Kernel,
                         const std::string &Id) {
  json Manifest = json::parse(readText(Bundle + "/manifest.json"), nullptr,
                              /*allow_exceptions=*/false);
  if (Manifest.is_discarded())
    return "";
  for (const json &K : Manifest.value("kernels", json::array())) {
    if (K.value("name", "") != Kernel)
      continue;
    for (const json &C : K.value("candidates", json::array()))
      if (C.value("id", "") == Id) {
        fs::path Driver = C.value("driver", "");
        return Bundle + "/build/" + Driver.parent_path().string() + "/" +
               Driver.stem().string();
      }
  }
  return "";
}

/// fs-tune's nvcc output for candidate \p Id (where ptxas lines are, when
/// the flags ask for them); "" when absent.
std::string driverBuildLog(const std::string &Bundle, const std::string &Kernel,
                           const std::string &Id) {
  std::string Binary = driverBinary(Bundle, Kernel, Id);
  return Binary.empty() ? "" : readText(Binary + ".log");
}

std::string verdictName(CandidateVerdict::Kind K) {
  switch (K) {
  case CandidateVerdict::Verified: return "verified";
  case CandidateVerdict::Compiled: return "compiled";
  case CandidateVerdict::CompileError: return "compile-error";
  case CandidateVerdict::Screened: return "screened";
  case CandidateVerdict::Mismatch: return "verification-failure";
  case CandidateVerdict::Crash: return "crash";
  case CandidateVerdict::Missing: return "missing";
  }
  return "?";
}

void progress(const GenerationLoopOptions &O, const std::string &Line) {
  if (O.Progress)
    *O.Progress << O.ProgressPrefix << O.Kernel << ": " << Line << "\n";
}

} // namespace

std::vector<NcuMetric> candidateLaunchMetrics(const std::vector<NcuMetric> &All,
                                              const std::string &OriginalKernel) {
  // ncu prints demangled names, with "void " and the parameter list.
  auto IsOurs = [&](const std::string &Name) {
    // The driver's own kernels: fills, widening to float64, the copy and
    // footprint yardsticks, and the float64 reference.
    for (const char *Driver :
         {"fs_fill(", "fs_widen(", "fs_copy4(", "fs_footprint<"})
      if (Name.rfind(Driver, 0) == 0 ||
          Name.find(std::string(" ") + Driver) != std::string::npos)
        return false;
    if (Name.find("fs_reference") != std::string::npos ||
        Name.find("fs_f64") != std::string::npos)
      return false;
    size_t At = Name.find(OriginalKernel);
    if (At == std::string::npos)
      return true;
    size_t End = At + OriginalKernel.size();
    bool StartsName = At == 0 || Name[At - 1] == ' ' || Name[At - 1] == ':';
    bool EndsName = End == Name.size() || Name[End] == '(' || Name[End] == '<';
    return !(StartsName && EndsName);
  };
  int Best = -1;
  double Longest = -1;
  for (const NcuMetric &M : All)
    if (M.MetricName == "Duration" && M.Value && IsOurs(M.KernelName)) {
      // `ncu --csv` spells units out ("usecond"), its text output not.
      const std::string &U = M.Unit;
      double Ns = *M.Value * (U == "ms" || U == "msecond"   ? 1e6
                              : U == "us" || U == "usecond" ? 1e3
                              : U == "s" || U == "second"   ? 1e9
                                                            : 1);
      if (Ns > Longest) {
        Longest = Ns;
        Best = M.LaunchId;
      }
    }
  static const char *const Wanted[] = {
      "Duration", "DRAM Throughput", "Memory Throughput", "L1/TEX Hit Rate",
      "L2 Hit Rate", "L1/TEX Cache Throughput", "L2 Cache Throughput",
      "Compute (SM) Throughput", "Registers Per Thread",
      "Theoretical Occupancy", "Achieved Occupancy", "Block Size",
      "Grid Size", "Dynamic Shared Memory Per Block",
      "Static Shared Memory Per Block"};
  std::vector<NcuMetric> Out;
  for (const char *W : Wanted)
    for (const NcuMetric &M : All)
      if (M.LaunchId == Best && M.MetricName == W) {
        Out.push_back(M);
        break;
      }
  return Out;
}

bool gpuAvailable() {
  return support::queryGpu("").Name != support::UnknownValue;
}

CandidateVerdict classifyCandidate(const json &Results,
                                   const std::string &Kernel,
                                   const std::string &Id, bool CompileOnly) {
  CandidateVerdict V;
  for (const json &C : Results.value("candidates", json::array())) {
    if (C.value("kernel", "") != Kernel || C.value("id", "") != Id)
      continue;
    V.Reason = C.value("reason", "");
    V.MaxError = C.value("max_error", 0.0);
    V.Tolerance = C.value("tolerance", 0.0);
    V.OriginalMs = C.value("original_ms", 0.0);
    V.CandidateMs = C.value("candidate_ms", 0.0);
    V.CandidateSpreadMs = C.value("candidate_spread_ms", 0.0);
    std::string Compile = C.value("compile", "");
    std::string Verdict = C.value("verdict", "");
    if (Compile == "screened")
      V.Status = CandidateVerdict::Screened;
    else if (Compile != "ok")
      V.Status = CandidateVerdict::CompileError;
    else if (Verdict == "bitexact" || Verdict == "tolerance")
      V.Status = CandidateVerdict::Verified;
    else if (Verdict == "FAIL")
      V.Status = CandidateVerdict::Mismatch;
    else if (Verdict == "not-run" && CompileOnly)
      V.Status = CandidateVerdict::Compiled;
    else
      V.Status = CandidateVerdict::Crash; // crash, timeout, memcheck.
    return V;
  }
  return V;
}

bool isSuccess(const CandidateVerdict &V, bool CompileOnly) {
  if (V.Status == CandidateVerdict::Verified)
    return true;
  return CompileOnly && V.Status == CandidateVerdict::Compiled;
}

std::optional<ChatMessage> repairMessageFor(const CandidateVerdict &V,
                                            bool CompileOnly) {
  if (isSuccess(V, CompileOnly))
    return std::nullopt;
  RepairDetails D;
  switch (V.Status) {
  case CandidateVerdict::CompileError:
    D.ToolOutput = V.BuildLog.empty() ? V.Reason : V.BuildLog;
    return buildRepairPrompt(RepairKind::Compile, D);
  case CandidateVerdict::Screened:
    D.Message = V.Reason;
    return buildRepairPrompt(RepairKind::Screen, D);
  case CandidateVerdict::Mismatch: {
    // fs-tune's reason is `<case> case [x,y,z]: <why>[; first at
    // <array>[i,j,k]: expected E, got G]` (or `largest error at`): the
    // failing case and problem size, why (mismatch, unwritten, outside, ...)
    // and the point that shows it.
    VerificationMismatch M;
    const std::string &R = V.Reason;
    size_t Colon = R.find(": ");
    std::string Case = Colon == std::string::npos ? R : R.substr(0, Colon);
    std::string Why = Colon == std::string::npos ? "" : R.substr(Colon + 2);
    size_t Open = R.find('['), Close = R.find(']');
    if (Open != std::string::npos && Close != std::string::npos && Open < Close)
      M.Problem = R.substr(Open + 1, Close - Open - 1);
    size_t At = Why.find(" at ");
    size_t Exp = At == std::string::npos ? At : Why.find(": expected ", At);
    size_t Got = Exp == std::string::npos ? Exp : Why.find(", got ", Exp);
    if (Got != std::string::npos) {
      size_t Bracket = Why.find('[', At);
      M.Array = Why.substr(At + 4, std::min(Bracket, Exp) - At - 4);
      M.Point = Why.substr(std::min(Bracket, Exp), Exp - std::min(Bracket, Exp)) +
                " of the " + Case +
                (Why.find("largest error at") != std::string::npos
                     ? " (the point of the largest error)"
                     : "");
      M.Expected = Why.substr(Exp + 11, Got - Exp - 11) + " (the original's)";
      M.Got = Why.substr(Got + 6);
    } else {
      M.Point = Case;
      M.Expected = "the original kernel's value";
      M.Got = Why.empty() ? "a different value" : Why;
    }
    auto Number = [](double X) {
      char Buf[32];
      std::snprintf(Buf, sizeof Buf, "%.3g", X);
      return std::string(Buf);
    };
    if (V.MaxError > 0)
      M.MaxError = Number(V.MaxError);
    if (V.Tolerance > 0)
      M.Tolerance = Number(V.Tolerance);
    D.Mismatch = M;
    D.Message = "fs-tune: " + R;
    return buildRepairPrompt(RepairKind::Verification, D);
  }
  case CandidateVerdict::Crash:
  case CandidateVerdict::Missing:
  default:
    D.ToolOutput = V.Reason.empty() ? "the evaluator reported no result for "
                                      "the candidate"
                                    : V.Reason;
    return buildRepairPrompt(RepairKind::Crash, D);
  }
}

std::vector<std::string> launcherParams(const json &Ir) {
  std::vector<std::string> Params = {"dim3 grid", "dim3 block", "size_t shmem",
                                     "cudaStream_t stream"};
  for (const json &P : Ir.value("params", json::array()))
    Params.push_back(P.value("type", "") + " " + P.value("name", ""));
  return Params;
}

std::string extractKernelSource(const std::string &Source,
                                const std::string &Kernel) {
  size_t Pos = 0;
  while ((Pos = Source.find("__global__", Pos)) != std::string::npos) {
    size_t Brace = Source.find('{', Pos);
    size_t Name = Source.find(Kernel + "(", Pos);
    if (Name == std::string::npos)
      Name = Source.find(Kernel + " (", Pos);
    if (Brace == std::string::npos || Name == std::string::npos ||
        Name > Brace) {
      Pos += 10;
      continue;
    }
    int Depth = 0;
    for (size_t I = Brace; I < Source.size(); ++I) {
      Depth += Source[I] == '{';
      Depth -= Source[I] == '}';
      if (Depth == 0)
        return Source.substr(Pos, I + 1 - Pos);
    }
    break;
  }
  return Source;
}

/// The evaluator: fs-tune adds \p Code to the bundle as candidate \p Id
/// (`src:<stem>`, the file's stem) and builds its driver, and with a GPU
/// verifies and times it. The file, fs-tune's output and its results stay in
/// \p WorkDir. \p Results receives the results JSON.
static Result<CandidateVerdict>
evaluateCandidate(const GenerationLoopOptions &O, const std::string &WorkDir,
                  const std::string &Id, const std::string &Code,
                  const std::string &Launcher, json &Results) {
  std::string Stem = Id.substr(std::string("src:").size());
  std::string File = WorkDir + "/" + Stem + ".cu";
  std::string ResultsPath = WorkDir + "/" + Stem + ".results.json";
  std::string LogPath = WorkDir + "/" + Stem + ".log";
  if (!(std::ofstream(File) << Code))
    return makeError("cannot write " + File);
  std::vector<std::string> Argv = {O.FsTune, O.BundleDir, "--add-candidate",
                                   O.Kernel + "=" + File + ":" + Launcher,
                                   "--kernels", O.Kernel, "--candidates", Id,
                                   "--out", ResultsPath};
  if (O.CompileOnly)
    Argv.push_back("--compile-only");
  Argv.insert(Argv.end(), O.FsTuneArgs.begin(), O.FsTuneArgs.end());
  Result<int> Exit = runLogged(Argv, LogPath);
  if (!Exit)
    return makeError(Exit.error());
  // Compile errors and failed verifications are results; a failed fs-tune
  // is a broken bundle or tool.
  if (*Exit != 0)
    return makeError("fs-tune failed (exit " + std::to_string(*Exit) +
                     "); see " + LogPath);
  Results = json::parse(readText(ResultsPath), nullptr, false);
  if (Results.is_discarded())
    return makeError("fs-tune wrote no readable results to " + ResultsPath);
  CandidateVerdict V = classifyCandidate(Results, O.Kernel, Id, O.CompileOnly);
  if (V.Status == CandidateVerdict::CompileError)
    V.BuildLog = driverBuildLog(O.BundleDir, O.Kernel, Id);
  return V;
}

/// Runs the verified candidate \p Id's driver under Nsight Compute (the
/// driver verifies and times it again, a few repetitions) and returns the
/// candidate launch's metrics; the CSV stays in the run directory and a
/// "profile" record says what was found. Nothing (and a record saying why)
/// when the profile fails: the loop goes on without it.
static std::vector<NcuMetric> profileCandidate(const GenerationLoopOptions &O,
                                               RunLog &Log,
                                               const std::string &Id,
                                               const json &Kernel) {
  std::string Csv = Log.directory() + "/ncu-" + identifierFor(Id) + ".csv";
  std::string Binary = driverBinary(O.BundleDir, O.Kernel, Id);
  json Record = {{"candidate", Id}, {"kernel", O.Kernel}, {"csv", Csv}};
  std::vector<NcuMetric> Metrics;
  if (Binary.empty()) {
    Record["error"] = "no driver binary for the candidate in the manifest";
  } else {
    progress(O, "profiling " + Id + " with " + O.Ncu);
    // ncu's report goes to its own file: the driver's output on the same
    // stream could land in the middle of a CSV row.
    Result<int> Exit = runLogged(
        {O.Ncu, "--csv", "--log-file", Csv, "--section", "SpeedOfLight",
         "--section", "Occupancy", "--section", "LaunchStats", "--section",
         "MemoryWorkloadAnalysis", "--launch-count", "40", Binary, "--reps",
         "3"},
        Csv + ".out", /*Timeout=*/600);
    if (!Exit || *Exit != 0) {
      Record["error"] = Exit ? "ncu exit " + std::to_string(*Exit) : Exit.error();
    } else if (auto All = parseNcuCsv(readText(Csv)); !All) {
      Record["error"] = All.error();
    } else {
      std::string Original = Kernel.value("ir", json::object()).value("kernel", O.Kernel);
      Metrics = candidateLaunchMetrics(*All, Original);
      if (Metrics.empty())
        Record["error"] = "no launch of the candidate in the profile";
    }
  }
  json List = json::array();
  for (const NcuMetric &M : Metrics)
    List.push_back({{"metric", M.MetricName}, {"unit", M.Unit},
                    {"value", M.ValueText}});
  Record["metrics"] = List;
  Log.record("profile", Record);
  return Metrics;
}

static Result<GenerationLoopResult>
runLoop(LlmClient &Client, RunLog &Log, const GenerationLoopOptions &O) {
  json Manifest = json::parse(readText(O.BundleDir + "/manifest.json"),
                              nullptr, /*allow_exceptions=*/false);
  if (Manifest.is_discarded())
    return makeError("cannot read " + O.BundleDir + "/manifest.json");
  const json *K = nullptr;
  if (Manifest.contains("kernels") && Manifest["kernels"].is_array())
    for (const json &Each : Manifest["kernels"])
      if (Each.value("name", "") == O.Kernel)
        K = &Each;
  if (!K || !K->contains("ir") || !(*K)["ir"].is_object())
    return makeError("the bundle has no kernel '" + O.Kernel +
                     "' with a Stencil IR");
  const json &Ir = (*K)["ir"];
  std::string Launcher = "fs_llm_" + identifierFor(O.Kernel);
  std::vector<std::string> Params = launcherParams(Ir);

  GenerationPromptInput In;
  In.ContractText = ReplacementContract;
  In.StencilIrJson = Ir.dump(2);
  In.OriginalSource = extractKernelSource(
      readText(O.BundleDir + "/app/" + K->value("translation_unit", "")),
      O.Kernel);
  In.LauncherSignature = formatLauncherSignature(Launcher, Params);
  In.KnowledgeEntries = O.KnowledgeEntries;
  In.ExampleCandidate = builtinExample(O.BundleDir, *K);
  ChatRequest Request;
  Request.Messages = buildGenerationPrompt(In);
  Request.MaxTokens = O.MaxTokens;

  GenerationLoopResult R;
  double BestMs = 0;
  ScreenOptions Screen;
  Screen.ElementType = Ir.value("element_type", "");
  auto Note = [&](const std::string &Kind, json Payload) {
    Payload["round"] = R.RoundsUsed;
    Payload["kernel"] = O.Kernel;
    Log.record(Kind, Payload);
  };
  for (int Round = 1; Round <= O.Rounds; ++Round) {
    R.RoundsUsed = Round;
    progress(O, "round " + std::to_string(Round) + ": asking the model");
    Result<ChatResponse> Answer = Client.chat(Request);
    if (!Answer)
      return makeError(Answer.error());
    Request.Messages.push_back({"assistant", Answer->Content});

    auto Repair = [&](RepairKind Kind, const std::string &Why,
                      RepairDetails D) {
      std::string Summary = "round " + std::to_string(Round) + ": " + Why;
      progress(O, Summary);
      R.RoundSummaries.push_back(Summary);
      Request.Messages.push_back(buildRepairPrompt(Kind, D));
    };
    if (Answer->truncated()) {
      Note("verdict", {{"stage", "format"}, {"verdict", "truncated"}});
      Repair(RepairKind::Truncated, "answer truncated", {});
      continue;
    }
    Result<std::string> Code = extractSingleCudaBlock(Answer->Content);
    Result<void> Signature =
        Code ? checkLauncherSignature(*Code, Launcher, Params) : Result<void>();
    if (!Code || !Signature) {
      std::string Why = !Code ? Code.error() : Signature.error();
      Note("verdict", {{"stage", "format"}, {"verdict", "refused"},
                       {"reason", Why}});
      Repair(RepairKind::Format, "format: " + Why, {Why, "", std::nullopt});
      continue;
    }
    auto Findings = screenCandidate(*Code, Screen);
    if (screenRefuses(Findings)) {
      std::string Why = formatScreenFindings(Findings);
      Note("verdict", {{"stage", "screen"}, {"verdict", "refused"},
                       {"reason", Why}});
      Repair(RepairKind::Screen, "screen refused the code",
             {Why, "", std::nullopt});
      continue;
    }

    std::string Id = "src:llm_" + identifierFor(O.Kernel) + "_r" + std::to_string(Round) +
                     "_" + std::to_string(Log.nextIndex());
    progress(O, "round " + std::to_string(Round) + ": evaluating " + Id);
    json Results;
    Result<CandidateVerdict> Evaluated =
        evaluateCandidate(O, Log.directory(), Id, *Code, Launcher, Results);
    if (!Evaluated)
      return makeError(Evaluated.error());
    CandidateVerdict &V = *Evaluated;
    Note("verdict", {{"stage", "evaluator"}, {"candidate", Id},
                     {"verdict", verdictName(V.Status)}, {"reason", V.Reason},
                     {"build_log", V.BuildLog}});
    if (V.Status == CandidateVerdict::Verified)
      Note("measurement", {{"candidate", Id}, {"original_ms", V.OriginalMs},
                           {"candidate_ms", V.CandidateMs},
                           {"candidate_spread_ms", V.CandidateSpreadMs},
                           {"max_error", V.MaxError}});
    std::string Summary = "round " + std::to_string(Round) + ": " + Id + ": " +
                          verdictName(V.Status) +
                          (V.Reason.empty() ? "" : ": " + V.Reason);
    progress(O, Summary);
    R.RoundSummaries.push_back(Summary);
    if (!isSuccess(V, O.CompileOnly)) {
      Request.Messages.push_back(*repairMessageFor(V, O.CompileOnly));
      continue;
    }
    R.Succeeded = true;
    bool Faster = BestMs == 0 || (V.CandidateMs > 0 && V.CandidateMs < BestMs);
    if (R.CandidateId.empty() || Faster) {
      R.CandidateId = Id;
      BestMs = V.CandidateMs;
    }
    // Compiling proves nothing about speed; without a GPU the loop ends here.
    if (O.CompileOnly || Round == O.Rounds)
      return R;
    // A verified candidate and rounds left: the analysis step asks for a
    // faster one, from the measurements, in a fresh conversation.
    AnalysisPromptInput A;
    A.StencilIrJson = In.StencilIrJson;
    A.CandidateSource = *Code;
    A.Gpu = Results.value("gpu", json::object()).value("name", "");
    A.Problem = K->value("time_shape", json::array()).dump();
    A.OriginalMedianMs = V.OriginalMs;
    A.CandidateMedianMs = V.CandidateMs;
    A.CandidateSpreadMs = V.CandidateSpreadMs;
    A.CompulsoryBytes = compulsoryBytes(Ir, K->value("time_shape", json::array()));
    A.Ptxas = parsePtxasInfo(driverBuildLog(O.BundleDir, O.Kernel, Id));
    if (!O.Ncu.empty())
      A.NcuMetrics = profileCandidate(O, Log, Id, *K);
    A.KnowledgeEntries = O.KnowledgeEntries;
    Request.Messages = buildAnalysisPrompt(A);
    progress(O, "round " + std::to_string(Round) +
                    ": verified; asking for a faster one");
  }
  return R;
}

Result<GenerationLoopResult> runGenerationLoop(LlmClient &Client, RunLog &Log,
                                               const GenerationLoopOptions &O) {
  // A bundle or results file of an unexpected shape is an error of the
  // loop, not an exception across the library's interface.
  try {
    return runLoop(Client, Log, O);
  } catch (const nlohmann::json::exception &E) {
    return makeError(std::string("malformed bundle or results: ") + E.what());
  }
}

} // namespace agents
} // namespace forgestencil

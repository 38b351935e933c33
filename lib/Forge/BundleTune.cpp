//===- BundleTune.cpp - Build, verify and time a tuning bundle -------------===//

#include "forgestencil/Forge/BundleTune.h"

#include "forgestencil/Forge/Bundle.h"
#include "forgestencil/Forge/CaseShapes.h"
#include "forgestencil/Forge/GpuProbe.h"
#include "forgestencil/Support/HostInfo.h"
#include "forgestencil/Support/ProcessRunner.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

namespace forgestencil {
namespace forge {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

/// Exit status the memory checker is told to use for errors it found.
constexpr int MemcheckExit = 86;

std::string substituteBundle(const std::string &Flag, const std::string &Dir) {
  std::string S = Flag;
  const std::string Token = BundleDirToken;
  size_t Pos;
  while ((Pos = S.find(Token)) != std::string::npos)
    S.replace(Pos, Token.size(), Dir);
  return S;
}

std::vector<std::string> nvccCommand(const TuneOptions &O,
                                     const std::string &Arch,
                                     const std::vector<std::string> &Flags,
                                     const std::string &Dir) {
  std::vector<std::string> Argv = {O.Nvcc, "-O3", "-arch=" + Arch};
  bool HasStd = false;
  for (const std::string &F : Flags) {
    HasStd |= F.rfind("-std", 0) == 0;
    // CMake gives C++ units -std=gnu++NN; nvcc knows only c++NN.
    if (F.rfind("-std=gnu++", 0) == 0)
      Argv.push_back("-std=c++" + F.substr(10));
    else
      Argv.push_back(substituteBundle(F, Dir));
  }
  if (!HasStd)
    Argv.push_back("-std=c++17");
  return Argv;
}

/// Runs Jobs at a time; Work(I) for every I < N.
void parallelFor(size_t N, unsigned Jobs,
                 const std::function<void(size_t)> &Work) {
  std::mutex Lock;
  size_t Next = 0;
  auto Worker = [&] {
    for (;;) {
      size_t I;
      {
        std::lock_guard<std::mutex> G(Lock);
        if (Next >= N)
          return;
        I = Next++;
      }
      Work(I);
    }
  };
  std::vector<std::thread> Pool;
  for (unsigned J = 0; J < std::max(1u, Jobs); ++J)
    Pool.emplace_back(Worker);
  for (std::thread &T : Pool)
    T.join();
}

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

std::string findSanitizer(const TuneOptions &O) {
  if (!O.Sanitizer.empty())
    return O.Sanitizer;
  fs::path Nvcc(O.Nvcc);
  if (Nvcc.has_parent_path()) {
    fs::path Next = Nvcc.parent_path() / "compute-sanitizer";
    if (fs::exists(Next))
      return Next.string();
  }
  support::ProcessResult R =
      support::runShellCommand("command -v compute-sanitizer", "", 10);
  if (R.succeeded()) {
    std::string P = R.Stdout.substr(0, R.Stdout.find('\n'));
    if (!P.empty())
      return P;
  }
  for (const char *Candidate : {"/usr/local/cuda/bin/compute-sanitizer",
                                "/usr/local/cuda/compute-sanitizer/compute-sanitizer"})
    if (fs::exists(Candidate))
      return Candidate;
  return "";
}

std::string isoDate() {
  std::time_t Now = std::time(nullptr);
  char Buf[32];
  std::strftime(Buf, sizeof Buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&Now));
  return Buf;
}

/// The first error in a compiler's log and the lines after it that belong
/// to it (nvcc echoes the source line and a caret), with the number of
/// errors: what a reader needs first, not the tail ("Error limit reached").
std::string firstCompileError(const std::string &Log) {
  std::vector<std::string> Lines;
  std::istringstream In(Log);
  for (std::string L; std::getline(In, L);)
    Lines.push_back(L);
  auto IsError = [](const std::string &L) {
    static const char *const Marks[] = {": error", ": fatal error",
                                        ": catastrophic error", "ptxas error",
                                        "ptxas fatal", "nvlink error",
                                        "undefined reference to"};
    for (const char *M : Marks)
      if (L.find(M) != std::string::npos)
        return true;
    return L.rfind("error:", 0) == 0 || L.rfind("fatal error", 0) == 0;
  };
  size_t First = Lines.size(), Count = 0;
  for (size_t I = 0; I < Lines.size(); ++I)
    if (IsError(Lines[I])) {
      First = std::min(First, I);
      ++Count;
    }
  if (First == Lines.size())
    return support::lastLines(Log, 4);
  std::string Out = Lines[First];
  // The echoed source line and its caret, up to the next message.
  for (size_t I = First + 1; I < Lines.size() && I <= First + 2; ++I) {
    if (IsError(Lines[I]) || Lines[I].empty() ||
        Lines[I].find(": warning") != std::string::npos)
      break;
    Out += "\n" + Lines[I];
  }
  if (Count > 1)
    Out += "\n(" + std::to_string(Count - 1) + " more error" +
           (Count > 2 ? "s" : "") + " in the log)";
  return Out;
}

/// A program that starts the CUDA runtime on device 0 the way every driver
/// does, and says what it found.
constexpr const char *GpuProbeSource = R"(#include <cstdio>
#include <cuda_runtime.h>
int main() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaSuccess && n == 0) {
    std::printf("FSTUNE_NO_GPU no CUDA device\n");
    return 1;
  }
  if (e == cudaSuccess) e = cudaSetDevice(0);
  if (e == cudaSuccess) e = cudaFree(0);
  cudaDeviceProp p;
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&p, 0);
  if (e != cudaSuccess) {
    std::printf("FSTUNE_NO_GPU %s (%s)\n", cudaGetErrorString(e), cudaGetErrorName(e));
    return 1;
  }
  std::printf("FSTUNE_GPU %d%d %s\n", p.major, p.minor, p.name);
  return 0;
}
)";

/// The compute capability of "sm_90" (90), or 0.
int archNumber(const std::string &Arch) {
  size_t At = Arch.find_first_of("0123456789");
  return At == std::string::npos ? 0 : std::atoi(Arch.c_str() + At);
}

/// "" when a GPU that runs Arch's code is usable here, else why not. The
/// CUDA driver is asked first (forge::probeGpu, as fs-bench does; it also
/// honours FS_ASSUME_GPU and FS_ASSUME_NO_GPU); then a probe built in Build
/// starts the CUDA runtime the way every driver does, which finds what the
/// driver alone does not: a driver too old for the toolkit's runtime, a GPU
/// older than Arch.
std::string usableGpu(const TuneOptions &O, const std::string &Arch,
                      const std::string &Build) {
  std::string Why;
  if (!probeGpu(0, Why))
    return "no usable GPU: " + Why;
  if (const char *Assume = std::getenv("FS_ASSUME_GPU");
      Assume && *Assume && std::string(Assume) != "0")
    return "";
  const std::string Src = Build + "/gpu-probe.cu", Bin = Build + "/gpu-probe";
  std::ofstream(Src) << GpuProbeSource;
  support::ProcessResult C = support::runProcess(
      {{O.Nvcc, "-arch=" + Arch, Src, "-o", Bin}, {}, {}, Build,
       O.CompileTimeout});
  if (!C.succeeded())
    return "the GPU probe did not compile (" + C.describeEnd() +
           "): " + firstCompileError(C.Stderr + C.Stdout);
  support::ProcessResult R = support::runProcess({{Bin}, {}, {}, Build, 120.0});
  const std::string Out = R.Stdout;
  size_t At = Out.find("FSTUNE_GPU ");
  if (!R.succeeded() || At == std::string::npos) {
    size_t No = Out.find("FSTUNE_NO_GPU ");
    std::string Why = No != std::string::npos
                          ? Out.substr(No + 14, Out.find('\n', No) - No - 14)
                          : R.describeEnd() + ": " +
                                support::lastLines(R.Stderr + R.Stdout, 2);
    return "no usable GPU: the CUDA runtime says: " + Why;
  }
  int Have = std::atoi(Out.c_str() + At + 11);
  int Want = archNumber(Arch);
  if (Want > 0 && Have > 0 && Have < Want) {
    std::string Name = Out.substr(At + 11, Out.find('\n', At) - At - 11);
    return "the GPU (" + Name.substr(Name.find(' ') + 1) + ", sm_" +
           std::to_string(Have) + ") cannot run code built for " + Arch +
           " (give --arch sm_" + std::to_string(Have) + ")";
  }
  return "";
}

/// Text with the bundle's absolute path left out: paths in compiler
/// messages become relative to the bundle (`candidates/k/x.cu(2)`).
std::string withinBundle(std::string Text, const std::string &Dir) {
  const std::string Prefix = Dir + "/";
  for (size_t At; (At = Text.find(Prefix)) != std::string::npos;) {
    size_t End = At + Prefix.size();
    // drivers/<kernel>/../../ is where a driver includes a candidate from.
    if (Text.compare(End, 8, "drivers/") == 0) {
      size_t Up = Text.find("/../../", End + 8);
      size_t Slash = Text.find('/', End + 8);
      if (Up != std::string::npos && Up == Slash)
        End = Up + 7;
    }
    Text.erase(At, End - At);
  }
  return Text;
}

/// A driver's last FSBENCH_RESULT line.
std::optional<json> driverResult(const std::string &Stdout) {
  const std::string Tag = "FSBENCH_RESULT ";
  size_t Pos = Stdout.rfind(Tag);
  if (Pos == std::string::npos)
    return std::nullopt;
  size_t End = Stdout.find('\n', Pos);
  json J = json::parse(Stdout.substr(Pos + Tag.size(),
                                     End == std::string::npos
                                         ? std::string::npos
                                         : End - Pos - Tag.size()),
                       nullptr, false);
  if (J.is_discarded())
    return std::nullopt;
  return J;
}

/// A candidate under way: its result and where its binary is.
struct Job {
  const BundleKernel *Kernel = nullptr;
  const BundleCandidate *Candidate = nullptr;
  CandidateResult Result;
  std::string Binary;
};

void progress(const TuneOptions &O, const std::string &Line) {
  if (O.Progress)
    *O.Progress << Line << std::endl;
}

/// Fills the verdict and times of J from one driver run.
void readRun(const json &Out, Job &J, unsigned Round, unsigned Reps,
             unsigned Seed, TuneResults &R) {
  CandidateResult &C = J.Result;
  C.Rounds = Round;
  C.Reps = Reps;
  C.Seed = Seed;
  const json &G = Out.value("gpu", json::object());
  R.GpuName = G.value("name", R.GpuName);
  R.L2Bytes = G.value("l2_bytes", R.L2Bytes);
  C.Points = Out.value("points", 0LL);
  C.CopyBytes = Out.value("copy_bytes", 0.0);
  C.TimedExt.clear();
  if (Out.contains("ext"))
    for (const json &E : Out["ext"])
      C.TimedExt.push_back(E.get<long long>());
  if (J.Kernel)
    C.TimedExt.resize(std::min<size_t>(C.TimedExt.size(), J.Kernel->IR.Dims));
  if (G.contains("runtime"))
    R.Runtime = std::to_string(G["runtime"].get<int>());
  // Verification: the worst case decides, its reason is kept.
  C.Verdict = "bitexact";
  C.Reason.clear();
  C.MaxError = 0;
  for (const json &V : Out.value("verification", json::array())) {
    std::string Verdict = V.value("verdict", "FAIL");
    C.MaxError = std::max(C.MaxError, V.value("err_cand", 0.0));
    C.Tolerance = std::max(C.Tolerance, V.value("tolerance", 0.0));
    // A worse verdict than those so far replaces the verdict and reason.
    if ((Verdict == "FAIL" && C.Verdict != "FAIL") ||
        (Verdict == "tolerance" && C.Verdict == "bitexact")) {
      C.Verdict = Verdict;
      C.Reason = V.value("case", "") + " case " + V["ext"].dump() + ": " +
                 V.value("reason", "");
    }
  }
  readDriverTiming(Out.value("timing", json::array()), C);
  if (C.verified()) {
    std::string Why = implausibleTiming(
        C, J.Kernel->IR.BytesPerPoint,
        Out.value("set_bytes", 0.0) * Out.value("buffer_sets", 0.0),
        Out.value("gpu", json::object()).value("l2_bytes", 0.0));
    if (!Why.empty()) {
      C.Verdict = "FAIL";
      C.Reason = Why;
    }
  }
}

/// One round's cases for a kernel, as the driver takes them.
struct CaseSet {
  /// `--case NAME=E0,E1,E2` for every case the original handles in bounds.
  std::vector<std::string> Args;
  std::string TimeExt;
  /// The first accepted case, for the candidates' memory check.
  std::string MemcheckCase;
  bool Usable = false;
  std::string Why;
};

std::string caseArg(const std::string &Name, const Extents &E) {
  return Name + "=" + std::to_string(E[0]) + "," + std::to_string(E[1]) + "," +
         std::to_string(E[2]);
}

/// Runs the original kernel alone on every case (under the memory checker
/// when there is one): per case, "" when it ran in bounds, else why not.
/// A run stops at the first case that fails (the context is lost); the
/// cases after it get a run of their own.
std::vector<std::string> checkOriginal(const std::string &Binary,
                                       const std::vector<CaseShape> &Cases,
                                       const std::string &Sanitizer,
                                       unsigned Seed, const TuneOptions &O) {
  std::vector<std::string> Refused(Cases.size());
  size_t From = 0;
  while (From < Cases.size()) {
    std::vector<std::string> Argv;
    if (!Sanitizer.empty())
      Argv = {Sanitizer, "--tool", "memcheck", "--error-exitcode",
              std::to_string(MemcheckExit), "--print-limit", "4", "--padding",
              "1048576"};
    Argv.insert(Argv.end(), {Binary, "--check-original", "--seed",
                             std::to_string(Seed)});
    for (size_t I = From; I < Cases.size(); ++I)
      Argv.insert(Argv.end(), {"--case", caseArg(Cases[I].Name, Cases[I].Ext)});
    support::ProcessResult P =
        support::runProcess({Argv, {}, {}, "", 3 * O.RunTimeout});
    std::ofstream(Binary + ".check-original.log", std::ios::app)
        << P.Stdout << P.Stderr;
    // Which cases ran to their end.
    size_t Ended = From;
    for (size_t I = From; I < Cases.size(); ++I)
      if (P.Stdout.find("FSTUNE_CASE_END " + Cases[I].Name + "\n") !=
          std::string::npos)
        Ended = I + 1;
      else
        break;
    if (P.succeeded() && Ended == Cases.size())
      return Refused;
    const std::string All = P.Stdout + P.Stderr;
    size_t At = All.find("Invalid ");
    std::string Why =
        P.ExitCode && *P.ExitCode == MemcheckExit
            ? "the original kernel accesses memory out of bounds there "
              "(compute-sanitizer: " +
                  (At == std::string::npos
                       ? support::lastLines(All, 2)
                       : All.substr(At, All.find('\n', At) - At)) +
                  ")"
            : "the original kernel alone fails there (" + P.describeEnd() +
                  ": " + support::lastLines(P.Stderr, 2) + ")";
    const bool Began = P.Stdout.find("FSTUNE_CASE_BEGIN " + Cases[Ended < Cases.size() ? Ended : 0].Name + "\n") != std::string::npos;
    if (Ended < Cases.size() && Began) {
      Refused[Ended] = Why;
      From = Ended + 1;
      continue;
    }
    if (Ended == Cases.size() && Cases.size() - From > 1) {
      // Errors the run did not stop at: one run per case says whose.
      for (size_t I = From; I < Cases.size(); ++I) {
        std::vector<CaseShape> One = {Cases[I]};
        Refused[I] = checkOriginal(Binary, One, Sanitizer, Seed, O)[0];
      }
      return Refused;
    }
    // Nothing ran: the check itself failed; no case can be trusted.
    for (size_t I = From; I < Cases.size(); ++I)
      Refused[I] = Why;
    return Refused;
  }
  return Refused;
}

/// Draws, derives and checks one round's cases for K, records them in R,
/// and says whether the candidates can be verified and timed on them.
CaseSet prepareCases(const BundleKernel &K, unsigned Round,
                     const std::string &Binary, const std::string &Sanitizer,
                     unsigned Seed, const TuneOptions &O, TuneResults &R) {
  const unsigned Dims = std::min(3u, std::max(1u, K.IR.Dims));
  Extents Time{1, 1, 1};
  for (unsigned A = 0; A < Dims && A < K.TimeShape.size(); ++A)
    Time[A] = K.TimeShape[A];
  std::mt19937 Rng(Seed);
  std::vector<CaseShape> Cases =
      makeCases(K.IR, Time, bundleBlock(K.IR), Rng, O.DeriveSizes);
  // An extent the app's build fixes (a literal, a named constant) that a
  // case does not have is a case the app never runs, and a case skipped for
  // an at-least assumption one the variants never run: refused before the
  // original runs, whatever the memory checker would say.
  const Extents Fixed = fixedExtents(K.IR);
  std::vector<std::string> Refused(Cases.size());
  std::vector<CaseShape> ToCheck;
  std::vector<size_t> Checked;
  for (size_t I = 0; I < Cases.size(); ++I) {
    Refused[I] = Cases[I].Skip;
    for (unsigned A = 0; A < Dims && Refused[I].empty(); ++A)
      if (Fixed[A] && Cases[I].Ext[A] != Fixed[A])
        Refused[I] = "axis " + std::string(A == 0 ? "x" : A == 1 ? "y" : "z") +
                     "'s extent is " + fixedExtentWhy(K.IR, A) + ", not " +
                     std::to_string(Cases[I].Ext[A]);
    if (Refused[I].empty()) {
      ToCheck.push_back(Cases[I]);
      Checked.push_back(I);
    }
  }
  if (!ToCheck.empty()) {
    std::vector<std::string> Found =
        checkOriginal(Binary, ToCheck, Sanitizer, Seed, O);
    for (size_t I = 0; I < Checked.size(); ++I)
      Refused[Checked[I]] = Found[I];
  }
  CaseSet Set;
  std::set<Extents> Sizes;
  bool TimedOk = false, AnyVerify = false;
  for (size_t I = 0; I < Cases.size(); ++I) {
    const CaseShape &C = Cases[I];
    const BoundsCheck &M = C.Derivation.Check;
    CaseCheck Rec;
    Rec.Kernel = K.Name;
    Rec.Round = Round;
    Rec.Case = C.Name;
    Rec.Ext.assign(C.Ext.begin(), C.Ext.begin() + Dims);
    Rec.Derived = C.Derivation.Note;
    Rec.Model = !M.Known ? "unknown" : M.InBounds ? "in bounds" : "out of bounds: " + M.Why;
    Rec.Reason = Refused[I];
    // Without a memory checker the model is all there is.
    if (Rec.Reason.empty() && Sanitizer.empty() && M.Known && !M.InBounds)
      Rec.Reason = "the IR says the original kernel is out of bounds there: " + M.Why;
    Rec.Status = Rec.Reason.empty() ? "in-bounds" : "refused";
    R.Cases.push_back(Rec);
    if (!Rec.Reason.empty()) {
      progress(O, "[cases] " + K.Name + ": refused " + C.Name + " " +
                      formatExtents(C.Ext, Dims) + ": " + Rec.Reason);
      continue;
    }
    Sizes.insert(C.Ext);
    if (C.Name == "timed-size") {
      TimedOk = true;
      Set.TimeExt = std::to_string(C.Ext[0]) + "," + std::to_string(C.Ext[1]) +
                    "," + std::to_string(C.Ext[2]);
    } else {
      AnyVerify = true;
      if (Set.MemcheckCase.empty())
        Set.MemcheckCase = caseArg(C.Name, C.Ext);
    }
    Set.Args.insert(Set.Args.end(), {"--case", caseArg(C.Name, C.Ext)});
  }
  if (!TimedOk)
    Set.Why = "not run: the original kernel cannot run the timed size in "
              "bounds (see the refused cases)";
  else if (!AnyVerify || Sizes.size() < 2)
    Set.Why = "not run: fewer than two sizes the original kernel handles in "
              "bounds (see the refused cases)";
  Set.Usable = Set.Why.empty();
  return Set;
}

/// The memory check of each candidate in Live: only the candidate runs,
/// on the first case the original handles in bounds.
void memcheckCandidates(std::vector<Job *> &Live, const CaseSet &Cases,
                        const std::string &Sanitizer,
                        const std::function<unsigned()> &NextSeed,
                        const TuneOptions &O) {
  for (Job *JP : Live) {
    Job &J = *JP;
    unsigned S = NextSeed();
    support::ProcessResult P = support::runProcess(
        {{Sanitizer, "--tool", "memcheck", "--error-exitcode",
          std::to_string(MemcheckExit), "--print-limit", "4",
          // Padding after every allocation, so a read past one array
          // does not land silently in the next.
          "--padding", "1048576", J.Binary, "--sanitize", "--seed",
          std::to_string(S), "--case", Cases.MemcheckCase},
         {},
         {},
         "",
         O.RunTimeout});
    if (P.succeeded()) {
      progress(O, "[memcheck] " + J.Result.Kernel + " " + J.Result.Id +
                      ": clean");
      continue;
    }
    if (P.ExitCode && *P.ExitCode == MemcheckExit) {
      J.Result.Verdict = "memcheck";
      std::string Out = P.Stdout + P.Stderr;
      size_t At = Out.find("Invalid ");
      J.Result.Reason =
          "memcheck: " + (At == std::string::npos
                              ? support::lastLines(Out, 3)
                              : Out.substr(At, Out.find('\n', At) - At));
    } else {
      J.Result.Verdict = P.TimedOut ? "timeout" : "crash";
      J.Result.Reason = "under memcheck: " + P.describeEnd() + ": " +
                        support::lastLines(P.Stderr, 3);
    }
    J.Result.Seed = S;
    progress(O, "[memcheck] " + J.Result.Kernel + " " + J.Result.Id + ": " +
                    J.Result.Reason);
  }
}

} // namespace

bool tuneBundle(const std::string &DirIn, const TuneOptions &O,
                TuneResults &R, std::string &Error) {
  const std::string Dir = fs::absolute(DirIn).lexically_normal().string();
  auto M = loadBundle(Dir, Error);
  if (!M)
    return false;
  const std::string Arch = O.Arch.empty() ? M->Arch : O.Arch;
  R = TuneResults();
  R.ToolVersion = M->ToolVersion;
  R.App = M->App;
  R.Arch = Arch;
  R.Date = isoDate();
  R.Command = O.Command;
  R.Tolerance = M->Tolerance;
  support::ProcessResult Version =
      support::runProcess({{O.Nvcc, "--version"}, {}, {}, "", 30.0});
  if (!Version.succeeded()) {
    Error = "cannot run " + O.Nvcc + " --version: " + Version.describeEnd();
    return false;
  }
  R.NvccVersion = support::parseNvccVersion(Version.Stdout);
  const std::string Build = Dir + "/build";
  std::error_code EC;
  fs::create_directories(Build, EC);
  // Without a GPU every driver would only crash: say so before compiling.
  if (!O.CompileOnly) {
    std::string Why = usableGpu(O, Arch, Build);
    if (!Why.empty()) {
      Error = Why + "; nothing was compiled or run (--compile-only builds "
                    "every driver without a GPU)";
      return false;
    }
  }

  // The app's other units, once, main renamed so the driver's is the one.
  std::vector<std::string> Objects;
  std::string LinkError;
  for (size_t I = 0; I < M->LinkUnits.size(); ++I) {
    const BundleUnit &U = M->LinkUnits[I];
    std::string Obj = Build + "/unit" + std::to_string(I) + ".o";
    std::vector<std::string> Argv = nvccCommand(O, Arch, U.Flags, Dir);
    Argv.insert(Argv.end(), {"-Dmain=fs_app_unit" + std::to_string(I) + "_main",
                             "-c", Dir + "/app/" + U.File, "-o", Obj});
    progress(O, "compiling app unit " + U.File);
    support::ProcessResult P =
        support::runProcess({Argv, {}, {}, Dir, O.CompileTimeout});
    if (!P.succeeded()) {
      LinkError = "app unit " + U.File + " did not compile (" +
                  P.describeEnd() + "): " + firstCompileError(P.Stderr + P.Stdout);
      break;
    }
    Objects.push_back(Obj);
  }

  // Every candidate, screened, then compiled in parallel.
  std::vector<Job> Jobs;
  for (const BundleKernel &K : M->Kernels) {
    if (!O.Kernels.empty() &&
        std::find(O.Kernels.begin(), O.Kernels.end(), K.Name) ==
            O.Kernels.end())
      continue;
    unsigned Taken = 0;
    for (const BundleCandidate &C : K.Candidates) {
      if (!O.Candidates.empty() &&
          std::find(O.Candidates.begin(), O.Candidates.end(), C.Id) ==
              O.Candidates.end())
        continue;
      Job J;
      J.Kernel = &K;
      J.Candidate = &C;
      J.Result.Kernel = K.Name;
      J.Result.Id = C.Id;
      J.Result.Origin = C.Origin;
      J.Result.Params = C.Params;
      J.Result.Source = C.Source;
      if (C.Driver.empty()) {
        J.Result.Compile = "not-generated";
        J.Result.Reason = C.Skipped;
      } else if (O.Budget && Taken >= O.Budget) {
        J.Result.Reason = "over the candidate budget";
      } else {
        ++Taken;
        J.Result.Compile = "pending";
      }
      if (J.Result.Compile == "pending" && !C.Source.empty() && O.Screen) {
        std::string Why =
            O.Screen(readFile(Dir + "/" + C.Source), K.IR.ElementType);
        if (!Why.empty()) {
          J.Result.Compile = "screened";
          J.Result.Verdict = "FAIL";
          J.Result.Reason = "screen: " + Why;
        }
      }
      Jobs.push_back(std::move(J));
    }
  }
  std::mutex Lock;
  size_t Done = 0, ToCompile = 0;
  for (const Job &J : Jobs)
    ToCompile += J.Result.Compile == "pending";
  parallelFor(Jobs.size(), O.Jobs, [&](size_t I) {
    Job &J = Jobs[I];
    if (J.Result.Compile != "pending")
      return;
    if (!LinkError.empty()) {
      J.Result.Compile = "failed";
      J.Result.Verdict = "FAIL";
      J.Result.Reason = LinkError;
      return;
    }
    fs::path Driver = fs::path(Dir) / J.Candidate->Driver;
    J.Binary = (fs::path(Build) / fs::relative(Driver, Dir))
                   .replace_extension("")
                   .string();
    fs::create_directories(fs::path(J.Binary).parent_path());
    std::vector<std::string> Argv = nvccCommand(O, Arch, J.Kernel->Flags, Dir);
    Argv.insert(Argv.end(), {"-lineinfo", Driver.string()});
    Argv.insert(Argv.end(), Objects.begin(), Objects.end());
    Argv.insert(Argv.end(), {"-o", J.Binary});
    support::ProcessResult P =
        support::runProcess({Argv, {}, {}, Driver.parent_path().string(),
                             O.CompileTimeout});
    std::ofstream(J.Binary + ".log") << P.Stdout << P.Stderr;
    std::lock_guard<std::mutex> G(Lock);
    ++Done;
    if (P.succeeded()) {
      J.Result.Compile = "ok";
    } else {
      J.Result.Compile = "failed";
      J.Result.Verdict = "FAIL";
      J.Result.Reason = "nvcc " + P.describeEnd() + ": " +
                        withinBundle(firstCompileError(P.Stderr + P.Stdout), Dir);
    }
    progress(O, "[compile " + std::to_string(Done) + "/" +
                    std::to_string(ToCompile) + "] " + J.Result.Kernel + " " +
                    J.Result.Id + ": " + J.Result.Compile);
  });
  if (O.CompileOnly) {
    R.Memcheck = "not run (--compile-only)";
    for (Job &J : Jobs)
      R.Candidates.push_back(J.Result);
    return true;
  }

  support::GpuInfo Gpu = support::queryGpu("");
  R.Driver = Gpu.Driver;
  if (Gpu.Name != support::UnknownValue)
    R.GpuName = Gpu.Name;
  unsigned Seed = O.Seed ? O.Seed
                         : static_cast<unsigned>(
                               std::chrono::system_clock::now()
                                   .time_since_epoch()
                                   .count() %
                               1000000007);
  auto NextSeed = [&] {
    Seed = Seed * 1664525u + 1013904223u;
    return Seed % 1000000;
  };

  std::string Sanitizer = O.Memcheck ? findSanitizer(O) : "";
  R.Memcheck = !O.Memcheck        ? "off (--no-memcheck)"
               : Sanitizer.empty() ? "compute-sanitizer not found"
                                   : Sanitizer + " --tool memcheck";
  R.OriginalCheck =
      !Sanitizer.empty()
          ? "the original kernel alone on every case under " + Sanitizer +
                " --tool memcheck; a case it reads or writes out of bounds "
                "is refused"
          : "no memory checker (" + R.Memcheck +
                "): a case is refused where the IR's domain, strides and "
                "offsets reach outside the arrays, or where the original "
                "alone fails";
  R.OriginalCheck += std::string("; case sizes ") +
                     (O.DeriveSizes ? "derived from the IR's extents, strides "
                                      "and bounds"
                                    : "as drawn (--no-derive-sizes)");
  char Rule[256];
  std::snprintf(Rule, sizeof Rule,
                "a verified candidate more than %.1fx faster than the "
                "footprint kernel, or with an effective bandwidth above %.1fx "
                "the copy kernel's (timed buffers beyond 3x L2), is rejected",
                PlausibleMargin, PlausibleMargin);
  R.Plausibility = Rule;

  // Per kernel: each round's cases, checked on the original first; the
  // memory check of the candidates; successive halving, one driver at a
  // time on the GPU.
  std::map<std::string, std::vector<Job *>> Alive;
  for (Job &J : Jobs)
    if (J.Result.Compile == "ok" && J.Result.Verdict == "not-run")
      Alive[J.Result.Kernel].push_back(&J);
  for (auto &[Kernel, Live] : Alive) {
    const BundleKernel &K = *Live.front()->Kernel;
    unsigned Reps = O.Reps;
    for (unsigned Round = 1; Round <= std::max(1u, O.Rounds) && !Live.empty();
         ++Round, Reps *= 2) {
      CaseSet Cases = prepareCases(K, Round, Live.front()->Binary, Sanitizer,
                                   NextSeed(), O, R);
      if (!Cases.Usable) {
        for (Job *J : Live) {
          J->Result.Verdict = "not-run";
          J->Result.Reason = Cases.Why;
        }
        progress(O, "[cases] " + Kernel + ": " + Cases.Why);
        break;
      }
      if (Round == 1 && !Sanitizer.empty())
        memcheckCandidates(Live, Cases, Sanitizer, NextSeed, O);
      size_t N = 0;
      std::vector<Job *> Ran;
      for (Job *J : Live) {
        if (J->Result.Verdict != "not-run" && Round == 1)
          continue; // the memory check failed it
        Ran.push_back(J);
        unsigned S = NextSeed();
        std::vector<std::string> Argv = {J->Binary, "--seed",
                                         std::to_string(S), "--reps",
                                         std::to_string(Reps), "--time-ext",
                                         Cases.TimeExt};
        Argv.insert(Argv.end(), Cases.Args.begin(), Cases.Args.end());
        support::ProcessResult P =
            support::runProcess({Argv, {}, {}, "", O.RunTimeout});
        std::ofstream(J->Binary + ".run" + std::to_string(Round) + ".log")
            << P.Stdout << P.Stderr;
        auto Out = driverResult(P.Stdout);
        CandidateResult &C = J->Result;
        if (!P.succeeded() || !Out) {
          C.Verdict = P.TimedOut ? "timeout" : "crash";
          C.Reason = "driver " + P.describeEnd() + ": " +
                     support::lastLines(P.Stderr, 3);
          C.Seed = S;
        } else {
          readRun(*Out, *J, Round, Reps, S, R);
        }
        char Line[512];
        std::snprintf(Line, sizeof Line,
                      "[round %u, %zu/%zu] %s %s: %s %.4f ms vs original "
                      "%.4f ms (%.2fx) %s",
                      Round, ++N, Live.size(), Kernel.c_str(), C.Id.c_str(),
                      C.Verdict.c_str(), C.CandidateMs, C.OriginalMs,
                      C.speedup(), C.Reason.c_str());
        progress(O, Line);
      }
      Live = Ran;
      // The faster half of the verified ones goes on.
      std::vector<Job *> Next;
      for (Job *J : Live)
        if (J->Result.verified())
          Next.push_back(J);
      std::sort(Next.begin(), Next.end(), [](const Job *A, const Job *B) {
        return A->Result.speedup() > B->Result.speedup();
      });
      Next.resize(Next.size() <= 1 ? Next.size() : (Next.size() + 1) / 2);
      if (Next.size() == Live.size() && Round > 1 && Next.size() <= 1)
        break;
      Live = Next;
    }
  }
  for (Job &J : Jobs)
    R.Candidates.push_back(J.Result);
  return true;
}

} // namespace forge
} // namespace forgestencil

//===- CpuCheck.cpp - A generated variant checked on the CPU --------------===//

#include "forgestencil/Forge/CpuCheck.h"

#include "forgestencil/Forge/Bench.h"
#include "forgestencil/Support/ProcessRunner.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace forgestencil {
namespace forge {

namespace fs = std::filesystem;

EmulatorLocation locateCpuEmulator(const std::string &Explicit,
                                   const std::string &Argv0) {
  EmulatorLocation L;
  auto Try = [&](const fs::path &P, const char *How) {
    L.Tried.push_back(P.string() + " (" + How + ")");
    std::error_code EC;
    if (!fs::is_regular_file(P, EC))
      return false;
    L.Path = P.string();
    L.How = How;
    return true;
  };
  if (!Explicit.empty()) {
    // What the user named is used, or reported missing; never replaced.
    if (!Try(Explicit, "--cpu-emulator"))
      L.How = "--cpu-emulator";
    return L;
  }
  if (const char *Env = std::getenv("FS_CPU_EMULATOR"); Env && *Env) {
    if (!Try(Env, "FS_CPU_EMULATOR"))
      L.How = "FS_CPU_EMULATOR";
    return L;
  }
  std::error_code EC;
  fs::path Exe = fs::read_symlink("/proc/self/exe", EC);
  if (EC && Argv0.find('/') != std::string::npos)
    Exe = fs::absolute(Argv0, EC);
  if (!Exe.empty()) {
    fs::path Prefix = Exe.parent_path().parent_path();
    if (Try(Prefix / "share" / "forgestencil" / "utils" / "cpu-emulate.py",
            "install prefix"))
      return L;
  }
#ifdef FS_SOURCE_TREE
  if (Try(fs::path(FS_SOURCE_TREE) / "utils" / "cpu-emulate.py",
          "source tree"))
    return L;
#endif
  return L;
}

/// The emulator's verdict line for \p Id: "PASS <id>[: note]" or
/// "FAIL <id>: reason".
static bool findVerdict(const std::string &Out, const std::string &Id,
                        CpuCheckVerdict &V) {
  std::istringstream In(Out);
  std::string Line;
  while (std::getline(In, Line)) {
    for (const char *Tag : {"PASS ", "FAIL "}) {
      std::string Head = std::string(Tag) + Id;
      if (Line.compare(0, Head.size(), Head) != 0)
        continue;
      std::string Rest = Line.substr(Head.size());
      if (!Rest.empty() && Rest[0] != ':' && Rest[0] != ' ')
        continue; // Another id with this one as its prefix.
      if (Rest.size() >= 2 && Rest[0] == ':')
        Rest = Rest.substr(2);
      else if (!Rest.empty() && Rest[0] == ' ')
        Rest = Rest.substr(1);
      V.Result = Tag[0] == 'P' ? CpuCheckVerdict::Passed
                               : CpuCheckVerdict::Failed;
      V.Reason = Rest;
      return true;
    }
  }
  return false;
}

CpuCheckVerdict cpuCheck(const ir::StencilIR &IR, const StrategyParams &P,
                         const CpuCheckOptions &Opts) {
  CpuCheckVerdict V;
  if (Opts.Emulator.empty()) {
    V.Reason = "no CPU emulator (utils/cpu-emulate.py) was found";
    return V;
  }
  BenchConfig C;
  // The GPU-sized shape fs-bench times by default; the emulation verifies
  // at its own odd sizes and times at a small one.
  C.Shape.assign(IR.Dims, IR.Dims == 3 ? 512 : IR.Dims == 2 ? 8192 : 67108864);
  C.Candidates = {P};
  C.Reps = 3;
  // As fs-bench compiles an app's IR: identifier axes, a loop axis's
  // extent from the size parameter bounding it, no typedef of the app's.
  BenchSources S = generateBench(standaloneIR(IR), C);
  if (!S.Error.empty()) {
    V.Reason = "no driver for this kernel: " + S.Error;
    return V;
  }
  if (S.Candidates.empty()) {
    V.Result = CpuCheckVerdict::Failed;
    V.Reason = S.Skipped.empty() ? "the variant was not generated"
                                 : "not generated: " + S.Skipped.front();
    return V;
  }
  std::string Dir = Opts.WorkDir;
  bool Temporary = Dir.empty();
  if (Temporary) {
    std::error_code EC;
    fs::path Base = fs::temp_directory_path(EC);
    if (EC)
      Base = "/tmp";
    std::string Template = (Base / "fs-cpu-check-XXXXXX").string();
    if (!mkdtemp(Template.data())) {
      V.Reason = "cannot create a work directory like " + Template;
      return V;
    }
    Dir = Template;
  }
  auto Cleanup = [&] {
    std::error_code EC;
    if (Temporary)
      fs::remove_all(Dir, EC);
  };
  std::string Error;
  if (!writeBench(S, Dir + "/bench", Error)) {
    V.Reason = Error;
    Cleanup();
    return V;
  }
  support::ProcessSpec Spec;
  Spec.Argv = {Opts.Python, Opts.Emulator, Dir + "/bench", "--jobs",
               std::to_string(Opts.Jobs ? Opts.Jobs : 1), "--work-dir",
               Dir + "/emu", "--timeout",
               std::to_string(static_cast<long>(Opts.TimeoutSeconds))};
  if (!Opts.Cxx.empty()) {
    Spec.Argv.push_back("--cxx");
    Spec.Argv.push_back(Opts.Cxx);
  }
  // The emulator has its own driver time limit; this one is for the build.
  Spec.TimeoutSeconds = Opts.TimeoutSeconds + 600;
  support::ProcessResult R = support::runProcess(Spec);
  V.Seconds = R.WallSeconds;
  Cleanup();
  if (!R.LaunchError.empty()) {
    V.Reason = "cannot run " + Opts.Python + ": " + R.LaunchError;
    return V;
  }
  const std::string Id = S.Candidates.front().id();
  if (findVerdict(R.Stdout, Id, V))
    return V;
  std::string Tail = support::lastLines(R.Stderr, 3);
  for (char &Ch : Tail)
    if (Ch == '\n')
      Ch = ' ';
  V.Result = CpuCheckVerdict::NotRun;
  V.Reason = "the emulation did not run (" + R.describeEnd() +
             (Tail.empty() ? "" : ": " + Tail) + ")";
  return V;
}

} // namespace forge
} // namespace forgestencil

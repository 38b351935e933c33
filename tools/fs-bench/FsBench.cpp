//===- FsBench.cpp - One stencil op, our kernels against the baselines -----===//
///
/// \file
/// fs-bench --stencil star3d_r1 --shape 512 --strategy all
/// Generates the candidates, the straightforward kernel, a copy kernel and a
/// verify-and-time driver, compiles them with nvcc, runs them and prints
/// time, GStencils/s, effective GB/s and the fraction of copy bandwidth.
///
//===----------------------------------------------------------------------===//

#include "forgestencil/Forge/Bench.h"
#include "forgestencil/Forge/Bundle.h"
#include "forgestencil/Forge/GpuProbe.h"
#include "forgestencil/Forge/NamedStencils.h"
#include "forgestencil/Forge/OperatorMatrix.h"
#include "forgestencil/Version.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace forgestencil;
using nlohmann::json;

namespace {

std::string detectArch(int Gpu) {
  std::string Cmd = "nvidia-smi --query-gpu=compute_cap --format=csv,noheader "
                    "-i " + std::to_string(Gpu) + " 2>/dev/null";
  FILE *P = popen(Cmd.c_str(), "r");
  if (!P)
    return "";
  char Buf[64] = {0};
  std::string Out = fgets(Buf, sizeof Buf, P) ? Buf : "";
  pclose(P);
  std::string Arch;
  for (char C : Out)
    if (std::isdigit(static_cast<unsigned char>(C)))
      Arch += C;
  return Arch;
}

std::string commandOutput(const std::string &Cmd) {
  FILE *P = popen(Cmd.c_str(), "r");
  if (!P)
    return "";
  std::string Out;
  char Buf[256];
  while (fgets(Buf, sizeof Buf, P))
    Out += Buf;
  pclose(P);
  while (!Out.empty() && (Out.back() == '\n' || Out.back() == '\r'))
    Out.pop_back();
  return Out;
}

std::string today() {
  std::time_t T = std::time(nullptr);
  char Buf[32];
  std::strftime(Buf, sizeof Buf, "%Y-%m-%d", std::gmtime(&T));
  return Buf;
}

} // namespace

int main(int Argc, char **Argv) {
  CLI::App App{"fs-bench: one stencil, generated kernels against a "
               "straightforward kernel and a copy, on one GPU"};
  std::string Stencil, StencilFile, Dtype = "f32", StrategyName = "all";
  std::vector<std::string> Shapes;
  std::string EmitDir, WorkDir, Arch, Nvcc = "nvcc", JsonOut, Knowledge;
  std::string Record;
  int Gpu = 0;
  unsigned Reps = 40, Jobs = 4, PerStrategy = 0;
  bool List = false, BuildOnly = false, RunOnly = false, DumpIR = false;
  App.add_option("--stencil", Stencil, "a named stencil (--list)");
  App.add_option("--stencil-file", StencilFile, "a Stencil IR JSON file");
  App.add_option("--shape", Shapes,
                 "extents, fastest first: 512 or 512,512,512 (repeatable)");
  App.add_option("--dtype", Dtype, "f32 or f64 (named stencils)");
  App.add_option("--strategy", StrategyName,
                 "a strategy name, 'best' (from the knowledge), 'all', or "
                 "search points by id (zsum.32x4.v4.y1.z8), comma-separated");
  App.add_option("--per-strategy", PerStrategy,
                 "with a strategy name or 'all': at most N points of each "
                 "strategy's search space, spread evenly over it (default: "
                 "all of it)");
  App.add_option("--gpu", Gpu, "CUDA device number");
  App.add_option("--arch", Arch, "sm number, e.g. 90 (default: detected)");
  App.add_option("--nvcc", Nvcc, "the nvcc to use");
  App.add_option("--emit-dir", EmitDir,
                 "write the generated sources there and stop");
  App.add_option("--work-dir", WorkDir, "where to build and run");
  App.add_option("--reps", Reps, "timed repetitions per variant");
  App.add_option("--jobs", Jobs, "parallel nvcc processes");
  App.add_option("--json-out", JsonOut, "write the full result there");
  App.add_option("--knowledge", Knowledge,
                 "operator matrix to read for --strategy best");
  App.add_option("--record", Record,
                 "operator matrix to add the best verified result to");
  std::string Merge;
  App.add_option("--merge", Merge,
                 "merge this operator matrix into --record's and stop");
  App.add_flag("--list", List, "list the named stencils and strategies");
  App.add_flag("--dump-ir", DumpIR,
               "print the stencil's IR as JSON and stop (a start for "
               "--stencil-file)");
  App.add_flag("--build-only", BuildOnly,
               "generate and compile in --work-dir, do not run");
  App.add_flag("--run-only", RunOnly,
               "run what --build-only left in --work-dir");
  try {
    App.parse(Argc, Argv);
  } catch (const CLI::ParseError &E) {
    // --help and --version exit 0; a usage error is exit 2, as elsewhere.
    int RC = App.exit(E);
    return RC == 0 ? 0 : 2;
  }

  if (List) {
    for (const std::string &N : forge::namedStencilNames())
      std::cout << N << "\n";
    for (const auto &S : forge::allStrategies())
      std::cout << "strategy " << S->name() << ": " << S->description()
                << "\n";
    return 0;
  }
  std::string Error;
  if (!Merge.empty()) {
    json Other;
    if (Record.empty()) {
      std::cerr << "fs-bench: --merge needs --record (the matrix to merge "
                   "into)\n";
      return 2;
    }
    if (!std::ifstream(Merge)) {
      std::cerr << "fs-bench: cannot read " << Merge << "\n";
      return 1;
    }
    if (!forge::loadMatrix(Merge, Other, Error) ||
        !forge::recordMatrix(Record, Other, Error)) {
      std::cerr << "fs-bench: " << Error << "\n";
      return 1;
    }
    std::cout << "merged " << Other.value("entries", json::array()).size()
              << " entries of " << Merge << " into " << Record << "\n";
    return 0;
  }
  if (RunOnly && WorkDir.empty()) {
    std::cerr << "fs-bench: --run-only needs --work-dir (where --build-only "
                 "built)\n";
    return 2;
  }
  if (BuildOnly && WorkDir.empty() && EmitDir.empty()) {
    std::cerr << "fs-bench: --build-only needs --work-dir (where --run-only "
                 "will find the build)\n";
    return 2;
  }
  if (!Stencil.empty() && !StencilFile.empty()) {
    std::cerr << "fs-bench: give --stencil or --stencil-file, not both\n";
    return 2;
  }
  std::optional<ir::StencilIR> IR;
  if (!StencilFile.empty()) {
    IR = forge::loadStencilFile(StencilFile, Error);
    // As from fs-rewrite --dump-ir: axis names made identifiers, extents
    // taken from the size parameters the bounds name, parameter types
    // without the app's typedefs.
    if (IR)
      IR = forge::standaloneIR(*IR);
  } else if (!Stencil.empty()) {
    if (Dtype != "f32" && Dtype != "f64") {
      std::cerr << "fs-bench: --dtype is f32 or f64\n";
      return 1;
    }
    IR = forge::namedStencil(Stencil, Dtype == "f32" ? "float" : "double",
                             Error);
  } else {
    Error = "give --stencil or --stencil-file";
  }
  if (!IR) {
    std::cerr << "fs-bench: " << Error << "\n";
    return 1;
  }
  if (DumpIR) {
    std::cout << ir::toJson(*IR).dump(1) << "\n";
    return 0;
  }
  if (Shapes.empty())
    Shapes.push_back(IR->Dims == 3 ? "512" : IR->Dims == 2 ? "8192" : "67108864");
  // Every shape is checked before anything is generated or compiled.
  std::vector<std::vector<long long>> Extents;
  for (const std::string &ShapeText : Shapes) {
    auto E = forge::parseShape(ShapeText, IR->Dims, Error);
    if (!E) {
      std::cerr << "fs-bench: " << Error << "\n";
      return 2;
    }
    Extents.push_back(*E);
  }
  // Minutes of nvcc are wasted when nothing can run the result.
  const bool WillRun = EmitDir.empty() && !BuildOnly;
  if (WillRun && !forge::probeGpu(Gpu, Error)) {
    std::cerr << "fs-bench: no usable GPU: " << Error
              << " (--emit-dir and --build-only work without one)\n";
    return 1;
  }
  if (Arch.empty() && EmitDir.empty())
    Arch = detectArch(Gpu);
  if (Arch.empty())
    Arch = "90";

  // The candidates.
  std::vector<forge::StrategyParams> Cands;
  if (StrategyName == "best") {
    json Matrix = forge::emptyMatrix();
    forge::KnowledgeLocation Where =
        forge::locateKnowledge(Knowledge, Argc > 0 ? Argv[0] : "");
    if (Where.Path.empty()) {
      std::cerr << "fs-bench: no knowledge base found (looked at";
      for (const std::string &T : Where.Tried)
        std::cerr << " " << T;
      std::cerr << "); set FS_KNOWLEDGE or give --knowledge\n";
    } else if (!std::ifstream(Where.Path)) {
      std::cerr << "fs-bench: no knowledge base at " << Where.Path << " ("
                << Where.How << ")\n";
    } else if (!forge::loadMatrix(Where.Path, Matrix, Error)) {
      std::cerr << "fs-bench: " << Error << "\n";
      return 1;
    } else {
      std::cerr << "fs-bench: knowledge: " << Where.Path << " (" << Where.How
                << ")\n";
    }
    std::string Source;
    Cands.push_back(forge::pickStrategy(Matrix, *IR, "sm_" + Arch, "large",
                                        &Source));
    std::cerr << "fs-bench: best known (" << Source << "): " << Cands[0].id()
              << "\n";
    if (Cands[0].Strategy != "naive")
      Cands.push_back(forge::findStrategy("naive")->searchSpace(*IR)[0]);
  } else {
    // A comma-separated list of strategy names, 'all', and search points
    // by id; a point is checked against its strategy before anything runs.
    for (const std::string &Item : forge::splitOn(StrategyName, ',')) {
      if (Item.find('.') != std::string::npos) {
        std::optional<forge::StrategyParams> P =
            forge::StrategyParams::fromId(Item, Error);
        if (!P) {
          std::cerr << "fs-bench: " << Error << "\n";
          return 1;
        }
        const forge::Strategy *S = forge::findStrategy(P->Strategy);
        if (!S) {
          std::cerr << "fs-bench: no strategy '" << P->Strategy << "' (in '"
                    << Item << "')\n";
          return 1;
        }
        std::string Why = S->whyNot(*IR);
        if (Why.empty()) {
          forge::GeneratedSource G =
              S->generate(*IR, *P, forge::GenerateOptions());
          Why = G.Error;
        }
        if (!Why.empty()) {
          std::cerr << "fs-bench: " << Item << " does not apply: " << Why
                    << "\n";
          return 1;
        }
        forge::addSearchPoint(Cands, *P);
        continue;
      }
      bool Found = false;
      for (const auto &S : forge::allStrategies()) {
        if (Item != "all" && Item != S->name())
          continue;
        Found = true;
        std::string Why = S->whyNot(*IR);
        if (!Why.empty()) {
          std::cerr << "fs-bench: " << S->name() << " does not apply: " << Why
                    << "\n";
          continue;
        }
        for (const forge::StrategyParams &P :
             forge::spreadSample(S->searchSpace(*IR), PerStrategy))
          forge::addSearchPoint(Cands, P);
      }
      if (!Found) {
        std::cerr << "fs-bench: no strategy '" << Item << "'\n";
        return 1;
      }
    }
  }

  // Without --work-dir the build goes to a fresh temporary directory,
  // removed after a successful run and kept (and named) after a failure.
  std::string TempDir;
  if (WorkDir.empty() && EmitDir.empty()) {
    const char *Tmp = std::getenv("TMPDIR");
    std::string Template =
        std::string(Tmp && *Tmp ? Tmp : "/tmp") + "/fs-bench-XXXXXX";
    if (!mkdtemp(Template.data())) {
      std::cerr << "fs-bench: cannot create a work directory like " << Template
                << ": " << std::strerror(errno) << "\n";
      return 1;
    }
    TempDir = WorkDir = Template;
  }
  auto Fail = [&](const std::string &Message) {
    std::cerr << "fs-bench: " << Message << "\n";
    std::error_code EC;
    if (!TempDir.empty() && std::filesystem::is_empty(TempDir, EC))
      std::filesystem::remove(TempDir, EC);
    else if (!TempDir.empty())
      std::cerr << "fs-bench: the build is kept in " << TempDir << "\n";
    return 1;
  };

  json AllResults = json::array();
  int Status = 0;
  for (size_t ShapeIndex = 0; ShapeIndex < Shapes.size(); ++ShapeIndex) {
    const std::string &ShapeText = Shapes[ShapeIndex];
    forge::BenchConfig C;
    C.Shape = Extents[ShapeIndex];
    C.Candidates = Cands;
    C.Reps = Reps;
    C.Gpu = Gpu;
    forge::BenchSources S = forge::generateBench(*IR, C);
    if (!S.Error.empty())
      return Fail(S.Error);
    for (const std::string &Skip : S.Skipped)
      std::cerr << "fs-bench: skipped " << Skip << "\n";
    std::string Dir = !EmitDir.empty() ? EmitDir : WorkDir;
    if (Shapes.size() > 1)
      Dir += "/" + ShapeText;
    if (!RunOnly && !forge::writeBench(S, Dir, Error))
      return Fail(Error);
    if (!EmitDir.empty()) {
      std::cout << "wrote " << S.Files.size() << " files for "
                << S.Candidates.size() << " candidates to " << Dir << "\n";
      continue;
    }
    auto Start = std::chrono::steady_clock::now();
    if (!RunOnly && !forge::buildBench(S, Dir, Nvcc, Arch, Jobs, Error))
      return Fail(Error);
    if (BuildOnly) {
      std::cout << "built " << S.Candidates.size() << " candidates in " << Dir
                << "\n";
      continue;
    }
    double BuildS = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - Start)
                        .count();
    json Result;
    if (!forge::runBench(Dir, Reps, Result, Error))
      return Fail(Error);
    auto Rows = forge::summarise(*IR, Result);
    std::cout << "== " << IR->Kernel << " (" << IR->summary() << ", "
              << IR->BytesPerPoint << " B/point) sm_" << Arch << ", build "
              << static_cast<int>(BuildS) << " s\n"
              << forge::formatTable(Rows, Result);
    Result["stencil"] = IR->Kernel;
    Result["summary"] = IR->summary();
    Result["bytes_per_point"] = IR->BytesPerPoint;
    json RowsJson = json::array();
    const forge::BenchRow *Best = nullptr, *Naive = nullptr, *Copy = nullptr;
    for (size_t I = 0; I < Rows.size(); ++I) {
      const forge::BenchRow &R = Rows[I];
      RowsJson.push_back({{"variant", R.Variant},
                          {"median_ms", R.MedianMs},
                          {"gstencils", R.GStencils},
                          {"effective_gbps", R.EffectiveGBs},
                          {"fraction_of_copy", R.FractionOfCopy},
                          {"fraction_of_footprint", R.FractionOfFootprint},
                          {"speedup_vs_original", R.SpeedupVsOriginal},
                          {"verdict", R.Verdict}});
      if (R.Verdict == "FAIL")
        Status = 2;
      if (R.Variant == "copy")
        Copy = &R;
      bool Verified = R.Verdict == "bitexact" || R.Verdict == "tolerance";
      if (Verified && R.Variant.rfind("naive.", 0) == 0 &&
          (!Naive || R.MedianMs < Naive->MedianMs))
        Naive = &R;
      if (Verified && (!Best || R.MedianMs < Best->MedianMs))
        Best = &R;
    }
    Result["rows"] = RowsJson;
    AllResults.push_back(Result);
    if (Best) {
      std::cout << "best: " << Best->Variant << " "
                << static_cast<int>(Best->FractionOfCopy * 1000) / 10.0
                << "% of copy";
      if (Best->FractionOfFootprint > 0)
        std::cout << ", "
                  << static_cast<int>(Best->FractionOfFootprint * 1000) / 10.0
                  << "% of the footprint kernel";
      std::cout << "\n";
    }
    if (!Record.empty() && Best && Copy) {
      forge::Measurement M;
      M.Signature = forge::stencilSignature(*IR);
      M.Arch = "sm_" + Arch;
      M.SizeClass = forge::sizeClass(*IR, Result.value("points", 0LL),
                                     Result["gpu"].value("l2_bytes", 0LL));
      for (size_t I = 0; I < S.Candidates.size(); ++I)
        if (S.Candidates[I].id() == Best->Variant)
          M.Best = S.Candidates[I];
      M.EffectiveGBs = Best->EffectiveGBs;
      M.CopyGBs = Copy->EffectiveGBs;
      M.FractionOfCopy = Best->FractionOfCopy;
      M.FractionOfFootprint = Best->FractionOfFootprint;
      M.SpeedupVsNaive = Naive ? Naive->MedianMs / Best->MedianMs : 0;
      // Where files went and how the run was split do not change the
      // result: leave those out.
      std::string CommandLine = forge::evidenceCommand(
          "fs-bench", Argc, Argv, {"--work-dir", "--json-out", "--record"},
          {"--run-only"});
      M.Evidence = {{"date", today()},
                    {"gpu", Result["gpu"]},
                    {"nvcc", commandOutput(Nvcc + " --version | tail -1")},
                    {"tool", std::string("fs-bench ") + FORGESTENCIL_VERSION},
                    {"command", CommandLine},
                    {"extents", Result["ext"]},
                    {"verdict", Best->Verdict}};
      if (!M.Best.Strategy.empty() &&
          !forge::recordMeasurement(Record, M, Error)) {
        std::cerr << "fs-bench: " << Error << "\n";
        return 1;
      }
    }
  }
  if (!JsonOut.empty())
    std::ofstream(JsonOut) << AllResults.dump(2) << "\n";
  if (!TempDir.empty()) {
    std::error_code EC;
    std::filesystem::remove_all(TempDir, EC);
  }
  return Status;
}

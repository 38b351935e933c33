//===- OperatorMatrix.cpp - What won, where, by how much -------------------===//

#include "forgestencil/Forge/OperatorMatrix.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <sys/file.h>
#include <unistd.h>

namespace forgestencil {
namespace forge {

using nlohmann::json;

namespace {

std::string dtypeTag(const std::string &T) {
  return T == "double" ? "f64" : T == "float" ? "f32" : T;
}

json *findEntry(json &Matrix, const json &Key) {
  for (json &E : Matrix["entries"])
    if (E["key"] == Key)
      return &E;
  return nullptr;
}

json keyOf(const std::string &Sig, const std::string &Arch,
           const std::string &Size) {
  return {{"signature", Sig}, {"arch", Arch}, {"size_class", Size}};
}

/// Adds a history item to Matrix, keeping best up to date; duplicates (the
/// same item merged twice) are recorded once.
void addItem(json &Matrix, const json &Key, const json &Item) {
  json *E = findEntry(Matrix, Key);
  if (!E) {
    Matrix["entries"].push_back({{"key", Key}, {"best", Item},
                                 {"history", json::array({Item})}});
    return;
  }
  for (const json &H : (*E)["history"])
    if (H == Item)
      return;
  (*E)["history"].push_back(Item);
  if (Item.value("fraction_of_copy", 0.0) >
      (*E)["best"].value("fraction_of_copy", 0.0))
    (*E)["best"] = Item;
}

} // namespace

std::string stencilSignature(const ir::StencilIR &IR) {
  unsigned PerPoint = 0;
  for (const ir::InputArray &In : IR.Inputs)
    PerPoint += In.PerPointCoefficient;
  std::set<std::string> Kinds;
  for (const ir::Coefficient &C : IR.Coefficients)
    Kinds.insert(ir::coefficientKindName(C.Kind));
  std::ostringstream OS;
  OS << IR.Dims << "d." << IR.Shape << ".r" << IR.Radius << ".pts"
     << IR.Points << ".in" << IR.Inputs.size() << ".out" << IR.Outputs.size()
     << ".pp" << PerPoint << ".coef";
  if (Kinds.empty())
    OS << "-none";
  for (const std::string &K : Kinds)
    OS << "-" << K;
  if (IR.Shape != "box" && IR.Shape != "star") {
    // Irregular footprints differ in where they read: name the offsets.
    std::set<ir::Offset> Offsets;
    for (const ir::InputArray &In : IR.Inputs)
      if (!In.PerPointCoefficient)
        Offsets.insert(In.Offsets.begin(), In.Offsets.end());
    OS << ".fp";
    for (const ir::Offset &O : Offsets)
      OS << "_" << O[0] << "," << O[1] << "," << O[2];
  }
  // Clamped or wrapped reads need a frame kernel and change what the
  // interior costs: a replicated boundary is its own entry, named by the
  // clamped axes, and so is a periodic one, named by the wrapped axes.
  std::string Clamped, Wrapped, Zeroed;
  for (size_t A = 0; A < IR.Axes.size(); ++A) {
    const char Axis = "xyz"[A < 3 ? A : 2];
    if (IR.Axes[A].clamped())
      Clamped += Axis;
    if (IR.Axes[A].wrapped())
      Wrapped += Axis;
    if (IR.Axes[A].zeroed())
      Zeroed += Axis;
  }
  if (!Clamped.empty())
    OS << ".clamp-" << Clamped;
  if (!Wrapped.empty())
    OS << ".wrap-" << Wrapped;
  if (!Zeroed.empty())
    OS << ".zero-" << Zeroed;
  // Boundary values the kernel writes itself add a kernel over the frame.
  if (IR.Frame.present())
    OS << ".frame";
  OS << "." << dtypeTag(IR.ElementType);
  return OS.str();
}

std::string evidenceCommand(const std::string &Tool, int Argc,
                            const char *const *Argv,
                            const std::vector<std::string> &DropWithValue,
                            const std::vector<std::string> &DropAlone) {
  auto In = [](const std::vector<std::string> &Names, const std::string &A) {
    return std::find(Names.begin(), Names.end(), A) != Names.end();
  };
  std::string Command = Tool;
  for (int I = 1; I < Argc; ++I) {
    std::string Arg = Argv[I];
    if (In(DropWithValue, Arg)) {
      ++I;
      continue;
    }
    std::size_t Eq = Arg.find('=');
    if (In(DropAlone, Arg) ||
        (Eq != std::string::npos && In(DropWithValue, Arg.substr(0, Eq))))
      continue;
    Command += " " + Arg;
  }
  return Command;
}

std::string sizeClass(const ir::StencilIR &IR, long long Points,
                      long long L2Bytes) {
  double Bytes = static_cast<double>(Points) * IR.BytesPerPoint;
  return Bytes * 2 <= static_cast<double>(L2Bytes) ? "small" : "large";
}

json emptyMatrix() {
  return {{"schema", MatrixSchemaId}, {"version", 1},
          {"entries", json::array()}};
}

void addMeasurement(json &Matrix, const Measurement &M) {
  json Item = {{"strategy", M.Best.toJson()},
               {"id", M.Best.id()},
               {"effective_gbps", M.EffectiveGBs},
               {"copy_gbps", M.CopyGBs},
               {"fraction_of_copy", M.FractionOfCopy},
               {"speedup_vs_naive", M.SpeedupVsNaive},
               {"evidence", M.Evidence}};
  if (M.FractionOfFootprint > 0)
    Item["fraction_of_footprint"] = M.FractionOfFootprint;
  addItem(Matrix, keyOf(M.Signature, M.Arch, M.SizeClass), Item);
}

void mergeMatrix(json &Matrix, const json &Other) {
  if (!Other.contains("entries"))
    return;
  for (const json &E : Other["entries"])
    for (const json &H : E.value("history", json::array()))
      addItem(Matrix, E["key"], H);
}

bool loadMatrix(const std::string &Path, json &Matrix, std::string &Error) {
  std::ifstream In(Path);
  if (!In) {
    Matrix = emptyMatrix();
    return true;
  }
  try {
    Matrix = json::parse(In);
  } catch (const json::exception &E) {
    Error = Path + ": " + E.what();
    return false;
  }
  if (Matrix.value("schema", "") != MatrixSchemaId ||
      !Matrix.contains("entries")) {
    Error = Path + ": not an operator matrix";
    return false;
  }
  return true;
}

KnowledgeLocation locateKnowledge(const std::string &Explicit,
                                  const std::string &Argv0) {
  namespace fs = std::filesystem;
  KnowledgeLocation L;
  auto IsFile = [](const fs::path &P) {
    std::error_code EC;
    return fs::is_regular_file(P, EC);
  };
  auto Try = [&](const fs::path &P, const char *How) {
    L.Tried.push_back(P.string() + " (" + How + ")");
    if (!IsFile(P))
      return false;
    L.Path = P.string();
    L.How = How;
    return true;
  };
  if (!Explicit.empty()) {
    L.Path = Explicit;
    L.How = "--knowledge";
    L.Tried.push_back(Explicit + " (--knowledge)");
    return L;
  }
  if (const char *Env = std::getenv("FS_KNOWLEDGE"); Env && *Env) {
    fs::path P(Env);
    std::error_code EC;
    if (fs::is_directory(P, EC))
      P /= "operator-matrix.json";
    // A variable set by hand names what the user wants: report it even
    // when it is missing rather than fall back silently.
    L.Path = P.string();
    L.How = "FS_KNOWLEDGE";
    L.Tried.push_back(P.string() + " (FS_KNOWLEDGE)");
    return L;
  }
  std::error_code EC;
  fs::path Exe = fs::read_symlink("/proc/self/exe", EC);
  if (EC && !Argv0.empty() && Argv0.find('/') != std::string::npos)
    Exe = fs::absolute(Argv0, EC);
  if (!Exe.empty()) {
    fs::path Prefix = Exe.parent_path().parent_path();
    for (const fs::path &P :
         {Prefix / "share" / "forgestencil" / "knowledge" / "operator-matrix.json",
          Prefix / "knowledge" / "operator-matrix.json",
          Prefix / "operator-matrix.json"})
      if (Try(P, "install prefix"))
        return L;
  }
#ifdef FS_SOURCE_TREE
  if (Try(fs::path(FS_SOURCE_TREE) / "knowledge" / "operator-matrix.json",
          "source tree"))
    return L;
#endif
  return L;
}

/// Read-modify-write of the matrix at Path under an exclusive flock on
/// Path + ".lock": Change is applied to the current contents, which are then
/// written to a temporary file and renamed over Path.
static bool updateMatrixFile(const std::string &Path,
                             const std::function<void(json &)> &Change,
                             std::string &Error) {
  std::string LockPath = Path + ".lock";
  int Fd = open(LockPath.c_str(), O_CREAT | O_RDWR, 0644);
  if (Fd < 0 || flock(Fd, LOCK_EX) != 0) {
    Error = "cannot lock " + LockPath;
    if (Fd >= 0)
      close(Fd);
    return false;
  }
  json Matrix;
  bool Ok = loadMatrix(Path, Matrix, Error);
  if (Ok) {
    Change(Matrix);
    std::string Tmp = Path + ".tmp." + std::to_string(getpid());
    {
      std::ofstream Out(Tmp);
      Out << Matrix.dump(2) << "\n";
      Ok = static_cast<bool>(Out);
    }
    if (!Ok || std::rename(Tmp.c_str(), Path.c_str()) != 0) {
      Error = "cannot replace " + Path;
      std::remove(Tmp.c_str());
      Ok = false;
    }
  }
  flock(Fd, LOCK_UN);
  close(Fd);
  return Ok;
}

bool recordMeasurement(const std::string &Path, const Measurement &M,
                       std::string &Error) {
  return updateMatrixFile(
      Path, [&](json &Matrix) { addMeasurement(Matrix, M); }, Error);
}

bool recordMatrix(const std::string &Path, const json &Other,
                  std::string &Error) {
  return updateMatrixFile(
      Path, [&](json &Matrix) { mergeMatrix(Matrix, Other); }, Error);
}

StrategyParams pickStrategy(const json &Matrix, const ir::StencilIR &IR,
                            const std::string &Arch,
                            const std::string &SizeClass,
                            std::string *Source) {
  std::string Signature = stencilSignature(IR);
  // How coefficients reach the kernel (literal, scalar parameter,
  // __constant__) barely changes what a bandwidth-bound kernel costs, so an
  // entry that differs only there is the next best evidence. After it, the
  // same footprint on an untouched boundary: a replicated or periodic
  // boundary runs the same strategy over the interior, plus a thin frame
  // kernel, and so do boundary values the kernel writes itself.
  auto Without = [](std::string Sig, const char *Part) {
    size_t Begin = Sig.find(Part);
    if (Begin == std::string::npos)
      return Sig;
    size_t End = Sig.find('.', Begin + 1);
    return Sig.substr(0, Begin) +
           (End == std::string::npos ? "" : Sig.substr(End));
  };
  auto Relaxed = [&](const std::string &Sig, int Pass) {
    std::string R = Pass >= 1 ? Without(Sig, ".coef") : Sig;
    return Pass >= 2 ? Without(Without(Without(Without(R, ".clamp-"), ".wrap-"),
                                       ".zero-"),
                               ".frame")
                     : R;
  };
  auto Differs = [&](int Pass, const std::string &Entry) -> std::string {
    if (Pass == 1)
      return "differs only in how coefficients are passed";
    auto Either = [&](const char *Part) {
      return Signature.find(Part) != std::string::npos ||
             Entry.find(Part) != std::string::npos;
    };
    const bool Wrap = Either(".wrap-"), Zero = Either(".zero-");
    const std::string Kinds = Zero   ? (Wrap ? "replicated, periodic or zero"
                                             : "replicated or zero")
                              : Wrap ? "replicated or periodic"
                                     : "replicated";
    if (Either(".frame"))
      return "differs in how coefficients are passed, in which axes have a " +
             Kinds + " boundary or in the boundary values the kernel writes";
    return "differs in how coefficients are passed or in which axes have a " +
           Kinds + " boundary";
  };
  for (int Pass = 0; Pass < 3; ++Pass) {
    if (!Matrix.contains("entries"))
      break;
    if (Pass == 2 && Relaxed(Signature, 2) == Relaxed(Signature, 1))
      break;
    for (const json &E : Matrix["entries"]) {
      bool Match =
          E["key"]["arch"] == Arch && E["key"]["size_class"] == SizeClass &&
          Relaxed(E["key"]["signature"].get<std::string>(), Pass) ==
              Relaxed(Signature, Pass);
      if (!Match)
        continue;
      std::string Error;
      auto P = StrategyParams::fromJson(E["best"]["strategy"], Error);
      // The point itself must generate for this IR, not only its strategy:
      // a staged point may not fit, a masked one needs the row's extent.
      const Strategy *S = P ? findStrategy(P->Strategy) : nullptr;
      if (S && S->whyNot(IR).empty() &&
          S->generate(IR, *P, GenerateOptions()).ok()) {
        if (Source)
          *Source = Pass == 0
                        ? "knowledge"
                        : "knowledge (entry " +
                              E["key"]["signature"].get<std::string>() +
                              ", which " +
                              Differs(Pass, E["key"]["signature"]
                                                .get<std::string>()) +
                              ")";
        return *P;
      }
    }
  }
  if (Source)
    *Source = "default";
  StrategyParams P;
  if (IR.Dims < 2) {
    P.Strategy = "naive";
    P.BlockX = 256;
    P.BlockY = 1;
    return P;
  }
  P.Strategy = "zmarch";
  P.RegisterQueue = true;
  P.ZChunk = 32;
  P.Unroll = 2;
  P.VectorWidth = IR.ElementType == "float" ? 4 : 2;
  if (IR.Dims == 3) {
    P.BlockX = 32;
    P.BlockY = 4;
  } else {
    P.BlockX = 128;
    P.BlockY = 1;
  }
  return P;
}

} // namespace forge
} // namespace forgestencil

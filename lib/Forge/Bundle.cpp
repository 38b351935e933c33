//===- Bundle.cpp - The tuning bundle fs-rewrite writes and fs-tune runs ---===//

#include "forgestencil/Forge/Bundle.h"

#include "forgestencil/Forge/Bench.h"
#include "forgestencil/Forge/CaseShapes.h"
#include "forgestencil/Forge/CodeGen.h"
#include "forgestencil/Forge/OperatorMatrix.h"
#include "forgestencil/Support/JsonReader.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace forgestencil {
namespace forge {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

/// The launcher name a generated candidate gets inside a driver.
constexpr const char *CandidateLauncher = "fs_tune_candidate";

std::string readText(const std::string &Path, bool &Ok) {
  std::ifstream In(Path, std::ios::binary);
  Ok = static_cast<bool>(In);
  std::ostringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

bool writeText(const std::string &Path, const std::string &Text,
               std::string &Error) {
  std::error_code EC;
  fs::create_directories(fs::path(Path).parent_path(), EC);
  std::ofstream Out(Path, std::ios::binary);
  Out << Text;
  if (!Out) {
    Error = "cannot write " + Path;
    return false;
  }
  return true;
}

bool isUnder(const fs::path &P, const fs::path &Root) {
  auto R = std::mismatch(Root.begin(), Root.end(), P.begin(), P.end());
  return R.first == Root.end();
}

/// Copies the app's source root, leaving out version control, build trees
/// (a directory with a CMakeCache.txt) and the bundle itself.
bool copySourceRoot(const fs::path &From, const fs::path &To,
                    const fs::path &Bundle, std::string &Error) {
  std::error_code EC;
  fs::create_directories(To, EC);
  for (auto It = fs::recursive_directory_iterator(From, EC);
       It != fs::recursive_directory_iterator(); It.increment(EC)) {
    if (EC) {
      Error = "cannot read " + From.string() + ": " + EC.message();
      return false;
    }
    const fs::path &P = It->path();
    if (It->is_directory()) {
      if (P.filename() == ".git" || fs::exists(P / "CMakeCache.txt") ||
          fs::equivalent(P, Bundle, EC))
        It.disable_recursion_pending();
      continue;
    }
    if (!It->is_regular_file())
      continue;
    fs::path Dest = To / fs::relative(P, From);
    fs::create_directories(Dest.parent_path(), EC);
    fs::copy_file(P, Dest, fs::copy_options::overwrite_existing, EC);
    if (EC) {
      Error = "cannot copy " + P.string() + ": " + EC.message();
      return false;
    }
  }
  return true;
}

std::vector<long long> defaultTimeShape(unsigned Dims) {
  if (Dims == 3)
    return {384, 384, 384};
  if (Dims == 2)
    return {4096, 4096};
  return {1LL << 26};
}

/// Replaces every occurrence of From (as the bench driver's declarations do).
std::string replaceAll(std::string S, const std::string &From,
                       const std::string &To) {
  if (From == To || From.empty())
    return S;
  size_t Pos = 0;
  while ((Pos = S.find(From, Pos)) != std::string::npos) {
    S.replace(Pos, From.size(), To);
    Pos += To.size();
  }
  return S;
}

/// Drops `#include` lines, so a generated file can sit inside a namespace
/// (the headers are already included by the app's unit).
std::string withoutIncludes(const std::string &Source) {
  std::istringstream In(Source);
  std::string Line, Out;
  while (std::getline(In, Line))
    if (Line.rfind("#include", 0) != 0)
      Out += Line + "\n";
  return Out;
}

std::vector<const ir::Coefficient *> constantSymbols(const ir::StencilIR &IR) {
  std::vector<const ir::Coefficient *> Out;
  for (const ir::Coefficient &C : IR.Coefficients)
    if (C.Kind == ir::Coefficient::ConstantArray ||
        C.Kind == ir::Coefficient::ConstantScalar)
      Out.push_back(&C);
  return Out;
}

/// The definitions the shared driver body calls: the original is the app's
/// real kernel, launched on the given stream; the candidate's launcher; the
/// float64 reference from its namespace; constant setters that write the
/// app's own `__constant__` symbols.
std::string driverGlue(const BundleKernel &K, const std::string &Launcher) {
  const ir::StencilIR &IR = K.IR;
  std::string Params, Args, RefParams;
  for (const ir::Param &P : IR.Params) {
    Params += ", " + declareParam(P.Type, P.Name);
    RefParams +=
        ", " + declareParam(replaceAll(P.Type, IR.ElementType, "double"), P.Name);
    Args += (Args.empty() ? "" : ", ") + P.Name;
  }
  const std::string Head = "(dim3 fs_g, dim3 fs_b, size_t fs_sh, cudaStream_t fs_s";
  std::ostringstream OS;
  OS << "\n// What the shared driver body calls.\n"
     << "void fs_original" << Head << Params << ") {\n  " << IR.Kernel
     << "<<<fs_g, fs_b, fs_sh, fs_s>>>(" << Args << ");\n}\n"
     << "void fs_cand_0" << Head << Params << ") {\n  " << Launcher
     << "(fs_g, fs_b, fs_sh, fs_s" << (Args.empty() ? "" : ", ") << Args
     << ");\n}\n"
     << "void fs_reference" << Head << RefParams
     << ") {\n  fs_f64::fs_reference_impl(fs_g, fs_b, fs_sh, fs_s"
     << (Args.empty() ? "" : ", ") << Args << ");\n}\n";
  for (const ir::Coefficient *C : constantSymbols(IR)) {
    // The app's own symbol, in the type the app declared it with.
    for (const char *V : {"fs_original", "fs_cand_0"})
      OS << constantSetter(std::string(V) + "_set_" + C->Name, *C, C->Name,
                           C->Type.empty() ? IR.ElementType : C->Type,
                           IR.ElementType);
    OS << "cudaError_t fs_reference_set_" << C->Name
       << "(const void *fs_h, size_t fs_n) {\n  return "
          "fs_f64::fs_reference_impl_set_"
       << C->Name << "(fs_h, fs_n);\n}\n";
  }
  return OS.str();
}

/// Verification extents are drawn per run: [lo, lo + span), made odd (when
/// fs-tune gives the cases, it draws them the same way).
std::string sizeMacros(unsigned Dims) {
  const CaseSpans S = caseSpans(Dims);
  std::ostringstream OS;
  OS << "#define FS_SMALL_LO " << S.SmallLo << "\n#define FS_SMALL_SPAN "
     << S.SmallSpan << "\n#define FS_MEDIUM_LO " << S.MediumLo
     << "\n#define FS_MEDIUM_SPAN " << S.MediumSpan << "\n";
  return OS.str();
}

bool isIdentifier(const std::string &S) {
  if (S.empty() || std::isdigit(static_cast<unsigned char>(S[0])))
    return false;
  for (char C : S)
    if (!std::isalnum(static_cast<unsigned char>(C)) && C != '_')
      return false;
  return true;
}

/// True when Expr names Word as a whole identifier.
bool mentions(const std::string &Expr, const std::string &Word) {
  for (size_t Pos = Expr.find(Word); Pos != std::string::npos;
       Pos = Expr.find(Word, Pos + 1)) {
    bool Before = Pos == 0 || !(std::isalnum(static_cast<unsigned char>(Expr[Pos - 1])) || Expr[Pos - 1] == '_');
    size_t End = Pos + Word.size();
    bool After = End == Expr.size() || !(std::isalnum(static_cast<unsigned char>(Expr[End])) || Expr[End] == '_');
    if (Before && After)
      return true;
  }
  return false;
}

/// The block the original is launched with: 32 threads along x, 4 along y,
/// 2 along z where the kernel's thread axes use them (256 along x for a 1-D
/// thread id), so odd extents are never a multiple; a fixed block size the
/// kernel indexes by wins. (Which thread dimension each IR axis takes is
/// the driver head's fs_axis_thread_dim, lib/Forge/Bench.cpp.)
std::string launchShape(const ir::StencilIR &IR) {
  const std::array<unsigned, 3> Block = bundleBlock(IR);
  return "#define FS_BUNDLE_BLOCK dim3(" + std::to_string(Block[0]) + ", " +
         std::to_string(Block[1]) + ", " + std::to_string(Block[2]) + ")\n";
}

} // namespace

std::array<unsigned, 3> bundleBlock(const ir::StencilIR &IR) {
  std::array<unsigned, 3> Block = {1, 1, 1};
  // A kernel on a 1-D thread id takes all its threads along x.
  const unsigned Preferred[3] = {hasLinearAxes(IR) ? 256u : 32u, 4, 2};
  // A kernel that indexes blocks by a fixed size (blockIdx.x * 16 +
  // threadIdx.x, a 16x16 shared tile) runs only with blocks of that size; the
  // analysis states it as a block-dim assumption.
  unsigned Fixed[3] = {0, 0, 0};
  for (int D = 0; D < 3; ++D)
    if (unsigned B = IR.fixedBlockDim(D); B > 0 && B <= 1024)
      Fixed[D] = B;
  for (int D : axisThreadDims(IR))
    if (D >= 0)
      Block[D] = Preferred[D];
  for (int D = 0; D < 3; ++D)
    if (Fixed[D])
      Block[D] = Fixed[D];
  return Block;
}

ir::StencilIR completeForBundle(ir::StencilIR IR) {
  for (size_t A = 0; A < IR.Axes.size(); ++A) {
    ir::Axis &X = IR.Axes[A];
    if (!isIdentifier(X.Name))
      X.Name = "fs_axis" + std::to_string(A);
    if (!X.Extent.empty())
      continue;
    for (const ir::Param &P : IR.Params) {
      bool Used = false;
      for (const ir::Axis &Other : IR.Axes)
        Used |= Other.Extent == P.Name;
      if (!Used && P.Role == ir::Param::Size && mentions(X.Upper, P.Name)) {
        X.Extent = P.Name;
        break;
      }
    }
  }
  return IR;
}

std::string kernelDirName(const std::string &Kernel) {
  std::string S;
  for (char C : Kernel)
    S += std::isalnum(static_cast<unsigned char>(C)) ? C : '_';
  return S.empty() ? "kernel" : S;
}

json BundleManifest::toJson() const {
  json Kernels = json::array();
  for (const BundleKernel &K : this->Kernels) {
    json Cands = json::array();
    for (const BundleCandidate &C : K.Candidates) {
      json J = {{"id", C.Id}, {"origin", C.Origin}, {"driver", C.Driver}};
      if (C.Params)
        J["params"] = C.Params->toJson();
      if (!C.Source.empty()) {
        J["source"] = C.Source;
        J["launcher"] = C.Launcher;
      }
      if (!C.Skipped.empty())
        J["skipped"] = C.Skipped;
      Cands.push_back(J);
    }
    Kernels.push_back({{"name", K.Name},
                       {"translation_unit", K.TranslationUnit},
                       {"flags", K.Flags},
                       {"time_shape", K.TimeShape},
                       {"time_shape_note", K.TimeShapeNote},
                       {"knowledge_source", K.KnowledgeSource},
                       {"candidates", Cands},
                       {"ir", ir::toJson(K.IR)}});
  }
  json Units = json::array();
  for (const BundleUnit &U : LinkUnits)
    Units.push_back({{"file", U.File}, {"flags", U.Flags}});
  return {{"schema", BundleSchemaId},
          {"version", BundleSchemaVersion},
          {"tool_version", ToolVersion},
          {"app", App},
          {"arch", Arch},
          {"tolerance", Tolerance},
          {"kernels", Kernels},
          {"link_units", Units},
          {"skipped", Skipped}};
}

/// Why \p Path cannot name a file inside the bundle (absolute, `..`,
/// empty); empty when it can.
static std::string whyNotBundlePath(const std::string &Path) {
  if (Path.empty())
    return "empty";
  if (Path[0] == '/')
    return "an absolute path";
  for (const fs::path &Part : fs::path(Path))
    if (Part == "..")
      return "a path out of the bundle ('..')";
  for (char C : Path)
    if (static_cast<unsigned char>(C) < 0x20)
      return "a control character";
  return "";
}

std::optional<BundleManifest> BundleManifest::fromJson(const json &J,
                                                       std::string &Error) {
  using support::elementPath;
  using support::memberPath;
  support::JsonReader R(Error);
  if (!R.expectObject(J, ""))
    return std::nullopt;
  std::string Schema = R.string(J, "schema", "");
  if (R.ok() && Schema != BundleSchemaId)
    R.fail("schema", "not a tuning bundle manifest (expected '" +
                         std::string(BundleSchemaId) + "', found '" + Schema +
                         "')");
  long long Version =
      R.integer(J, "version", "", 0, std::numeric_limits<int>::max());
  if (R.ok() && Version != BundleSchemaVersion)
    R.fail("version", "unsupported bundle version " + std::to_string(Version) +
                          " (this tool reads " +
                          std::to_string(BundleSchemaVersion) + ")");
  if (!R.ok())
    return std::nullopt;
  auto FilePath = [&](const std::string &Where, const std::string &Value) {
    if (std::string Why = whyNotBundlePath(Value); !Why.empty() && R.ok())
      R.fail(Where, "'" + Value.substr(0, 80) + "' is " + Why);
  };
  BundleManifest M;
  M.ToolVersion = R.string(J, "tool_version", "", "");
  M.App = R.string(J, "app", "", "");
  M.Arch = R.string(J, "arch", "", "sm_90");
  M.Tolerance = R.string(J, "tolerance", "", "");
  M.Skipped = R.strings(J, "skipped", "", false);
  const json &Units = R.array(J, "link_units", "", true);
  for (size_t I = 0; I < Units.size() && R.ok(); ++I) {
    std::string UP = elementPath("link_units", I);
    if (!R.expectObject(Units[I], UP))
      break;
    BundleUnit U{R.string(Units[I], "file", UP),
                 R.strings(Units[I], "flags", UP, true)};
    FilePath(memberPath(UP, "file"), U.File);
    M.LinkUnits.push_back(std::move(U));
  }
  const json &Kernels = R.array(J, "kernels", "", true);
  for (size_t I = 0; I < Kernels.size() && R.ok(); ++I) {
    const json &KJ = Kernels[I];
    std::string KP = elementPath("kernels", I);
    if (!R.expectObject(KJ, KP))
      break;
    BundleKernel K;
    K.Name = R.string(KJ, "name", KP);
    const json *IRJ = R.member(KJ, "ir", KP, true);
    if (!R.ok())
      break;
    auto IR = ir::fromJson(*IRJ, Error, memberPath(KP, "ir"));
    if (!IR)
      return std::nullopt;
    K.IR = std::move(*IR);
    K.TranslationUnit = R.string(KJ, "translation_unit", KP);
    FilePath(memberPath(KP, "translation_unit"), K.TranslationUnit);
    K.Flags = R.strings(KJ, "flags", KP, true);
    const json &Shape = R.array(KJ, "time_shape", KP, true);
    for (size_t E = 0; E < Shape.size() && R.ok(); ++E)
      K.TimeShape.push_back(R.asInteger(
          Shape[E], elementPath(memberPath(KP, "time_shape"), E), 1,
          1000000000));
    K.TimeShapeNote = R.string(KJ, "time_shape_note", KP, "");
    K.KnowledgeSource = R.string(KJ, "knowledge_source", KP, "");
    const json &Cands = R.array(KJ, "candidates", KP, true);
    for (size_t C = 0; C < Cands.size() && R.ok(); ++C) {
      const json &CJ = Cands[C];
      std::string CP = elementPath(memberPath(KP, "candidates"), C);
      if (!R.expectObject(CJ, CP))
        break;
      BundleCandidate Cand;
      Cand.Id = R.string(CJ, "id", CP);
      Cand.Origin = R.string(CJ, "origin", CP, "");
      Cand.Driver = R.string(CJ, "driver", CP, "");
      Cand.Source = R.string(CJ, "source", CP, "");
      Cand.Launcher = R.string(CJ, "launcher", CP, "");
      Cand.Skipped = R.string(CJ, "skipped", CP, "");
      if (!Cand.Driver.empty())
        FilePath(memberPath(CP, "driver"), Cand.Driver);
      if (!Cand.Source.empty())
        FilePath(memberPath(CP, "source"), Cand.Source);
      if (!Cand.Launcher.empty() && !ir::isIdentifier(Cand.Launcher) &&
          R.ok())
        R.fail(memberPath(CP, "launcher"),
               "'" + Cand.Launcher.substr(0, 80) + "' is not a C identifier");
      if (!R.ok())
        break;
      if (const json *P = R.member(CJ, "params", CP, false)) {
        Cand.Params =
            StrategyParams::fromJson(*P, Error, memberPath(CP, "params"));
        if (!Cand.Params)
          return std::nullopt;
      }
      K.Candidates.push_back(std::move(Cand));
    }
    M.Kernels.push_back(std::move(K));
  }
  if (!R.ok())
    return std::nullopt;
  return M;
}

const BundleKernel *BundleManifest::kernel(const std::string &Name) const {
  for (const BundleKernel &K : Kernels)
    if (K.Name == Name)
      return &K;
  return nullptr;
}

std::vector<std::string> rebaseFlags(const std::vector<std::string> &Flags,
                                     const std::string &Directory,
                                     const std::string &SourceRoot) {
  static const std::vector<std::string> PathFlags = {"-I", "-isystem",
                                                     "-include", "-iquote"};
  auto Rebase = [&](const std::string &Path) {
    fs::path P(Path);
    if (P.is_relative())
      P = fs::path(Directory) / P;
    P = P.lexically_normal();
    fs::path Root = fs::path(SourceRoot).lexically_normal();
    if (isUnder(P, Root)) {
      std::string Rel = P.lexically_relative(Root).string();
      return std::string(BundleDirToken) + "/app" +
             (Rel == "." ? "" : "/" + Rel);
    }
    return P.string();
  };
  std::vector<std::string> Out;
  for (size_t I = 0; I < Flags.size(); ++I) {
    const std::string &F = Flags[I];
    bool Handled = false;
    for (const std::string &PF : PathFlags) {
      if (F == PF && I + 1 < Flags.size()) {
        Out.push_back(F);
        Out.push_back(Rebase(Flags[++I]));
        Handled = true;
        break;
      }
      if (F.size() > PF.size() && F.compare(0, PF.size(), PF) == 0 &&
          (PF == "-I")) {
        Out.push_back(PF + Rebase(F.substr(PF.size())));
        Handled = true;
        break;
      }
    }
    if (!Handled)
      Out.push_back(F);
  }
  return Out;
}

std::vector<BundleCandidate> chooseCandidates(const ir::StencilIR &IR,
                                              const json &Knowledge,
                                              const std::string &Arch,
                                              unsigned Budget,
                                              std::string *KnowledgeSource) {
  std::vector<BundleCandidate> Out;
  std::set<std::string> Seen;
  auto Add = [&](const StrategyParams &P, const char *Origin) {
    if (Out.size() >= Budget || !Seen.insert(P.id()).second)
      return;
    const Strategy *S = findStrategy(P.Strategy);
    if (!S || !S->whyNot(IR).empty())
      return;
    BundleCandidate C;
    C.Id = P.id();
    C.Origin = Origin;
    C.Params = P;
    Out.push_back(std::move(C));
  };
  // The knowledge pick for the size the candidates are timed at (large:
  // the timed arrays are larger than L2 on every GPU we know).
  Add(pickStrategy(Knowledge, IR, Arch, "large", KnowledgeSource),
      "knowledge");
  // Then every strategy's space, best guesses first, one from each in turn.
  std::vector<std::vector<StrategyParams>> Spaces;
  for (const auto &S : allStrategies())
    if (S->whyNot(IR).empty())
      Spaces.push_back(S->searchSpace(IR));
  for (size_t Rank = 0; Out.size() < Budget; ++Rank) {
    bool Any = false;
    for (const auto &Space : Spaces)
      if (Rank < Space.size()) {
        Any = true;
        Add(Space[Rank], "search");
      }
    if (!Any)
      break;
  }
  return Out;
}

std::string generateDriver(const BundleKernel &K, const BundleCandidate &C,
                           const std::string &BundleDir, std::string &Error) {
  const ir::StencilIR &IR = K.IR;
  // The shared driver body and its problem-specific head, from fs-bench's
  // generator: one candidate, whose name is this candidate's id.
  BenchConfig Config;
  Config.Shape = K.TimeShape;
  StrategyParams Placeholder;
  Placeholder.Strategy = "naive";
  Config.Candidates = {C.Params ? *C.Params : Placeholder};
  BenchSources Bench = generateBench(IR, Config);
  if (!Bench.Error.empty() || Bench.Candidates.size() != 1) {
    Error = !Bench.Error.empty()       ? Bench.Error
            : !Bench.Skipped.empty() ? Bench.Skipped.front()
                                     : "no driver for this candidate";
    return "";
  }
  std::string BenchDriver;
  for (const BenchFile &F : Bench.Files)
    if (F.Path == "driver.cu")
      BenchDriver = F.Text;
  BenchDriver = replaceAll(BenchDriver, "\"" + Bench.Candidates[0].id() + "\"",
                           "\"" + C.Id + "\"");

  // The candidate: generated against the app's own symbols, or included.
  std::string CandidateText, Launcher;
  if (C.Params) {
    const Strategy *S = findStrategy(C.Params->Strategy);
    GenerateOptions O;
    O.LauncherName = CandidateLauncher;
    O.Constants = ConstantMode::UseExisting;
    GeneratedSource G = S->generate(IR, *C.Params, O);
    if (!G.ok()) {
      Error = G.Error;
      return "";
    }
    CandidateText = G.Source;
    Launcher = CandidateLauncher;
  } else {
    CandidateText = "#include \"../../" + C.Source + "\"\n";
    Launcher = C.Launcher;
  }
  GenerateOptions Ref;
  Ref.LauncherName = "fs_reference_impl";
  Ref.Constants = ConstantMode::DefineWithSetter;
  std::string Reference = emitOriginalSource(IR, Ref, "double");

  std::ostringstream OS;
  OS << "// Generated by ForgeStencil (tuning bundle): do not edit.\n"
     << "// Kernel " << K.Name << " (" << IR.summary() << "), candidate "
     << C.Id << " (" << C.Origin << ").\n"
     << "// The app's own translation unit, its main out of the way: the\n"
     << "// original kernel and its __constant__ symbols are the real ones.\n"
     << "#define FS_BUNDLE_DRIVER 1\n"
     << sizeMacros(IR.Dims) << launchShape(IR) << "#define main fs_app_main\n"
     << "#include \"../../app/" << K.TranslationUnit << "\"\n"
     << "#undef main\n"
     << "// Function-like macros an app may define (C's min and max) would\n"
     << "// expand inside the standard headers and the code below; the app's\n"
     << "// kernel is compiled already, and its index expressions mean the\n"
     << "// same with the runtime's functions.\n"
     << "#undef min\n#undef max\n#undef abs\n#undef fabs\n"
     << "#undef isfinite\n#undef isnan\n#undef isinf\n"
     << "\n// The candidate.\n"
     << CandidateText
     << "\n// The float64 reference (the IR's kernel on doubles).\n"
     << "namespace fs_f64 {\n"
     << withoutIncludes(Reference) << "} // namespace fs_f64\n"
     << driverGlue(K, Launcher) << "\n"
     << BenchDriver;
  (void)BundleDir;
  return OS.str();
}

bool saveManifest(const BundleManifest &M, const std::string &Dir,
                  std::string &Error) {
  std::string Tmp = Dir + "/manifest.json.tmp";
  if (!writeText(Tmp, M.toJson().dump(2) + "\n", Error))
    return false;
  std::error_code EC;
  fs::rename(Tmp, Dir + "/manifest.json", EC);
  if (EC) {
    Error = "cannot write " + Dir + "/manifest.json: " + EC.message();
    return false;
  }
  return true;
}

std::optional<BundleManifest> loadBundle(const std::string &Dir,
                                         std::string &Error) {
  bool Ok = false;
  std::string Text = readText(Dir + "/manifest.json", Ok);
  if (!Ok) {
    Error = "cannot read " + Dir + "/manifest.json";
    return std::nullopt;
  }
  json J;
  try {
    J = json::parse(Text);
  } catch (const json::exception &E) {
    std::string What = E.what();
    if (size_t Close = What.find("] ");
        !What.empty() && What[0] == '[' && Close != std::string::npos)
      What = What.substr(Close + 2);
    Error = Dir + "/manifest.json: not JSON (" + What + ")";
    return std::nullopt;
  }
  auto M = BundleManifest::fromJson(J, Error);
  if (!M)
    Error = Dir + "/manifest.json: " + Error;
  return M;
}

/// Generates the driver of C (index N of K) under Dir; records a failure in
/// C.Skipped.
static bool emitCandidateDriver(const BundleKernel &K, BundleCandidate &C,
                                size_t N, const std::string &Dir,
                                std::string &Error) {
  std::string Why;
  std::string Text = generateDriver(K, C, Dir, Why);
  if (Text.empty()) {
    C.Skipped = Why;
    C.Driver.clear();
    return true;
  }
  C.Driver = "drivers/" + kernelDirName(K.Name) + "/" + std::to_string(N) +
             ".cu";
  return writeText(Dir + "/" + C.Driver, Text, Error);
}

bool writeBundle(const BundleRequest &R, const std::string &Dir,
                 BundleManifest &M, std::string &Error) {
  std::error_code EC;
  if (fs::exists(Dir) && !fs::is_empty(Dir, EC)) {
    Error = Dir + " exists and is not empty";
    return false;
  }
  fs::create_directories(Dir, EC);
  fs::path Root = fs::path(R.SourceRoot).lexically_normal();
  if (!copySourceRoot(Root, fs::path(Dir) / "app", fs::absolute(Dir), Error))
    return false;
  M = BundleManifest();
  M.ToolVersion = R.ToolVersion;
  M.App = R.App;
  M.Arch = R.Arch;
  M.Tolerance = "bit-identical to the original kernel; where bits differ, "
                "the max error against a float64 evaluation of the IR must "
                "not exceed twice the original's own plus 4 ulps of the "
                "largest value; points outside the domain and inputs must "
                "stay bit-identical";
  auto RelativeFile = [&](const std::string &File, std::string &Rel) {
    fs::path P = fs::path(File).lexically_normal();
    if (!isUnder(P, Root))
      return false;
    Rel = P.lexically_relative(Root).string();
    return true;
  };
  std::set<std::string> KernelUnits;
  for (const BundleRequest::Kernel &RK : R.Kernels) {
    const BundleRequest::Unit *Unit = nullptr;
    for (const BundleRequest::Unit &U : R.Units)
      if (U.File == RK.TranslationUnit)
        Unit = &U;
    BundleKernel K;
    K.Name = RK.IR.Kernel;
    K.IR = completeForBundle(RK.IR);
    if (!Unit || !RelativeFile(RK.TranslationUnit, K.TranslationUnit)) {
      M.Skipped.push_back(K.Name + ": its translation unit " +
                          RK.TranslationUnit +
                          " is not a compile command under the source root");
      continue;
    }
    KernelUnits.insert(RK.TranslationUnit);
    K.Flags = rebaseFlags(Unit->Flags, Unit->Directory, R.SourceRoot);
    K.TimeShape = R.TimeShape.size() == K.IR.Dims ? R.TimeShape
                                                  : defaultTimeShape(K.IR.Dims);
    // A size the original handles in bounds, as far as the IR tells (a
    // literal extent, strides and bounds that must agree).
    if (K.TimeShape.size() == K.IR.Dims && K.IR.Dims >= 1 && K.IR.Dims <= 3) {
      Extents Wanted{1, 1, 1};
      for (unsigned A = 0; A < K.IR.Dims; ++A)
        Wanted[A] = K.TimeShape[A];
      DerivedExtents D = deriveExtents(K.IR, Wanted, bundleBlock(K.IR), false);
      if (D.Changed) {
        for (unsigned A = 0; A < K.IR.Dims; ++A)
          K.TimeShape[A] = D.Ext[A];
        K.TimeShapeNote = D.Note;
      }
    }
    K.Candidates = chooseCandidates(K.IR, R.Knowledge, R.Arch, R.Budget,
                                    &K.KnowledgeSource);
    for (size_t N = 0; N < K.Candidates.size(); ++N)
      if (!emitCandidateDriver(K, K.Candidates[N], N, Dir, Error))
        return false;
    M.Kernels.push_back(std::move(K));
  }
  for (const BundleRequest::Unit &U : R.Units) {
    std::string Rel;
    if (KernelUnits.count(U.File) || !RelativeFile(U.File, Rel))
      continue;
    M.LinkUnits.push_back(
        {Rel, rebaseFlags(U.Flags, U.Directory, R.SourceRoot)});
  }
  return saveManifest(M, Dir, Error);
}

bool addExternalCandidate(const std::string &Dir, const std::string &Kernel,
                          const std::string &File, const std::string &Launcher,
                          std::string &Error) {
  auto M = loadBundle(Dir, Error);
  if (!M)
    return false;
  BundleKernel *K = nullptr;
  for (BundleKernel &Each : M->Kernels)
    if (Each.Name == Kernel)
      K = &Each;
  if (!K) {
    Error = "the bundle has no kernel '" + Kernel + "'";
    return false;
  }
  bool Ok = false;
  std::string Text = readText(File, Ok);
  if (!Ok) {
    Error = "cannot read " + File;
    return false;
  }
  BundleCandidate C;
  C.Id = "src:" + fs::path(File).stem().string();
  for (const BundleCandidate &Other : K->Candidates)
    if (Other.Id == C.Id) {
      Error = "kernel '" + Kernel + "' already has a candidate " + C.Id;
      return false;
    }
  C.Origin = "external";
  C.Source = "candidates/" + kernelDirName(Kernel) + "/" +
             fs::path(File).filename().string();
  C.Launcher = Launcher;
  if (!writeText(Dir + "/" + C.Source, Text, Error))
    return false;
  size_t N = K->Candidates.size();
  K->Candidates.push_back(C);
  if (!emitCandidateDriver(*K, K->Candidates.back(), N, Dir, Error))
    return false;
  return saveManifest(*M, Dir, Error);
}

} // namespace forge
} // namespace forgestencil

//===- CompileCommand.cpp - nvcc/gcc command lines to clang CUDA commands --===//

#include "forgestencil/Driver/CompileCommand.h"

#include "forgestencil/Driver/AnalysisPrelude.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"

#include <algorithm>

#ifndef FS_CLANG_RESOURCE_DIR
#define FS_CLANG_RESOURCE_DIR ""
#endif
#ifndef FS_CLANG_EXECUTABLE
#define FS_CLANG_EXECUTABLE "clang++"
#endif

using namespace llvm;

namespace forgestencil {
namespace driver {

namespace {

/// What an nvcc option does to the clang command we build.
enum class NvccAction {
  Define,        // -D
  Undefine,      // -U
  IncludePath,   // -I
  SystemInclude, // -isystem
  PreInclude,    // -include
  Std,           // -std
  Arch,          // -arch / --gpu-architecture
  Gencode,       // -gencode / --generate-code
  Code,          // -code / --gpu-code
  XCompiler,     // -Xcompiler / --compiler-options
  Language,      // -x
  OptionsFile,   // --options-file / -optf
  DefaultStream, // --default-stream
  Rdc,           // -rdc=<bool>
  RdcFlag,       // -dc (implies -rdc=true -c)
  FastMath,      // --use_fast_math
  RelaxedConstexpr,
  ExtendedLambda,
  DeviceDebug,   // -G
  ForwardUnknown,
  NoWarnings,    // -w
  SkipTU,        // -E, -M, -dlink, -link, -lib, --run: not a compilation
  HostCompiler,  // -ccbin: the host compiler nvcc would run
  ToolOptions,   // -Xptxas, -Xnvlink, ...: options for a later build stage
  Drop,          // understood and irrelevant to parsing
  Linkage,       // -static-global-template-stub=...: irrelevant to parsing,
                 // needed to link the unit with others
};

struct NvccOption {
  NvccAction Action;
  bool TakesValue;
};

/// nvcc's options by name, without leading dashes. nvcc accepts one or two
/// dashes before every name, and "=" or a separate argument for values.
const StringMap<NvccOption> &nvccOptions() {
  static const StringMap<NvccOption> Table = [] {
    StringMap<NvccOption> T;
    auto Add = [&](std::initializer_list<const char *> Names, NvccAction A,
                   bool Value) {
      for (const char *N : Names)
        T[N] = {A, Value};
    };
    using A = NvccAction;
    Add({"D", "define-macro"}, A::Define, true);
    Add({"U", "undefine-macro"}, A::Undefine, true);
    Add({"I", "include-path"}, A::IncludePath, true);
    Add({"isystem", "system-include"}, A::SystemInclude, true);
    Add({"include", "pre-include"}, A::PreInclude, true);
    Add({"std"}, A::Std, true);
    Add({"arch", "gpu-architecture"}, A::Arch, true);
    Add({"gencode", "generate-code"}, A::Gencode, true);
    Add({"code", "gpu-code"}, A::Code, true);
    Add({"Xcompiler", "compiler-options"}, A::XCompiler, true);
    Add({"x"}, A::Language, true);
    Add({"optf", "options-file"}, A::OptionsFile, true);
    Add({"default-stream"}, A::DefaultStream, true);
    Add({"rdc", "relocatable-device-code"}, A::Rdc, true);
    Add({"dc", "device-c"}, A::RdcFlag, false);
    Add({"use_fast_math", "use-fast-math"}, A::FastMath, false);
    Add({"expt-relaxed-constexpr"}, A::RelaxedConstexpr, false);
    Add({"extended-lambda", "expt-extended-lambda"}, A::ExtendedLambda, false);
    Add({"G", "device-debug"}, A::DeviceDebug, false);
    Add({"forward-unknown-to-host-compiler", "forward-unknown-opts"},
        A::ForwardUnknown, false);
    Add({"w", "disable-warnings"}, A::NoWarnings, false);
    Add({"E", "preprocess", "M", "generate-dependencies", "MM",
         "generate-nonsystem-dependencies", "dlink", "device-link", "link",
         "lib", "run", "dryrun"},
        A::SkipTU, false);
    Add({"ccbin", "compiler-bindir"}, A::HostCompiler, true);
    // Options for the assembler, linkers and the CUDA front end's own
    // back end: they change the binary, never what the source means.
    Add({"Xptxas", "ptxas-options", "Xnvlink", "nvlink-options", "Xcudafe",
         "Xfatbin", "fatbin-options", "Xlinker", "linker-options", "Xarchive",
         "archive-options"},
        A::ToolOptions, true);
    // Understood, irrelevant to parsing, with a value.
    Add({"o", "output-file", "L", "library-path", "l", "library", "O",
         "optimize", "m", "machine", "maxrregcount", "ftz", "prec-div",
         "prec-sqrt", "fmad", "cudart", "cudadevrt", "keep-dir", "t",
         "threads", "MF", "dependency-output", "MT", "dependency-target-name",
         "MQ", "time", "diag-suppress", "diag-warn", "diag-error", "Werror",
         "split-compile", "odir", "output-directory", "dopt", "entries",
         "device-stack-protector", "fdevice-time-trace"},
        A::Drop, true);
    Add({"static-global-template-stub", "device-entity-has-hidden-visibility"},
        A::Linkage, true);
    // Understood, irrelevant to parsing, flags.
    Add({"c", "compile", "cuda", "ptx", "cubin", "fatbin", "optix-ir",
         "lineinfo", "generate-line-info", "g", "debug", "keep",
         "save-temps", "res-usage", "resource-usage", "v", "verbose",
         "allow-unsupported-compiler", "Wno-deprecated-gpu-targets",
         "Wno-deprecated-declarations", "Wreorder", "Wdefault-stream-launch",
         "Wext-lambda-captures-this", "Wmissing-launch-bounds", "restrict",
         "extra-device-vectorization", "display-error-number",
         "no-display-error-number", "MD", "MMD", "MP", "shared",
         "no-host-device-initializer-list", "nohdinitlist",
         "no-host-device-move-forward", "err-no", "src-in-ptx", "noprof",
         "pg", "objdir-as-tempdir", "use-local-env", "dw", "device-w",
         "relocatable-ptx", "reloc-ptx", "fdevice-syntax-only",
         "list-gpu-arch", "list-gpu-code", "version", "help"},
        A::Drop, false);
    return T;
  }();
  return Table;
}

bool isSourceFile(StringRef Path) {
  StringRef Ext = sys::path::extension(Path);
  return StringSwitch<bool>(Ext.lower())
      .Cases({".cu", ".cpp", ".cc", ".cxx", ".c", ".c++", ".cp"}, true)
      .Default(false);
}

/// Objects, libraries and device images: what a link step reads.
bool isLinkInput(StringRef Path) {
  StringRef Ext = sys::path::extension(Path);
  return StringSwitch<bool>(Ext.lower())
      .Cases({".o", ".obj", ".a", ".so", ".lib", ".dll", ".dylib", ".ptx",
              ".cubin", ".fatbin", ".res"},
             true)
      .Default(StringRef(Path).contains(".so."));
}

std::string absolutePath(StringRef Path, StringRef Directory) {
  SmallString<256> P(Path);
  if (!sys::path::is_absolute(P)) {
    SmallString<256> D(Directory);
    sys::path::append(D, P);
    P = D;
  }
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

/// "sm_90", "compute_90", "90" -> "sm_90"; "native"/"all" -> "".
std::string realArch(StringRef Arch) {
  Arch = Arch.trim();
  if (Arch.consume_front("sm_") || Arch.consume_front("compute_") ||
      Arch.consume_front("lto_"))
    return ("sm_" + Arch).str();
  if (!Arch.empty() && isDigit(Arch.front()))
    return ("sm_" + Arch).str();
  return "";
}

/// Splits "a,b,[c,d]" on commas outside brackets.
SmallVector<StringRef, 4> splitList(StringRef S) {
  SmallVector<StringRef, 4> Out;
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I <= S.size(); ++I) {
    if (I == S.size() || (S[I] == ',' && Depth == 0)) {
      StringRef Item = S.slice(Start, I).trim();
      if (!Item.empty())
        Out.push_back(Item);
      Start = I + 1;
    } else if (S[I] == '[') {
      ++Depth;
    } else if (S[I] == ']') {
      --Depth;
    }
  }
  return Out;
}

void addArchList(CompileJob &Job, StringRef List) {
  for (StringRef Item : splitList(List)) {
    Item = Item.trim("[] ");
    for (StringRef A : splitList(Item)) {
      std::string R = realArch(A);
      if (!R.empty() && !is_contained(Job.GpuArchs, R))
        Job.GpuArchs.push_back(R);
    }
  }
}

/// "-gencode arch=compute_90,code=[sm_90,compute_90]".
void addGencode(CompileJob &Job, StringRef Spec) {
  for (StringRef Part : splitList(Spec)) {
    auto [Key, Value] = Part.split('=');
    Key = Key.trim();
    if (Key == "code")
      addArchList(Job, Value);
    else if (Key == "arch" && !Spec.contains("code="))
      addArchList(Job, Value);
  }
}

/// Flags from -Xcompiler: preprocessor flags go to both sides, everything
/// else to the host side only (as nvcc hands them to the host compiler).
void addHostCompilerFlags(CompileJob &Job, ArrayRef<std::string> Flags);

/// Walks an nvcc argument list (and the options files it names) and fills
/// in a CompileJob.
struct NvccParser {
  NvccParser(CompileJob &Job, StringRef Directory)
      : Job(Job), Directory(Directory) {}

  CompileJob &Job;
  StringRef Directory;
  BumpPtrAllocator Alloc;
  StringSaver Saver{Alloc};
  bool ForwardUnknown = false;
  bool LanguageGiven = false;
  /// The option being applied, as written ("--ptxas-options").
  StringRef Spelling;
  std::vector<std::string> Unknown;
  std::vector<std::string> Inputs;
  /// Positional files with no source extension ("kernels.cuknl"): inputs
  /// when -x names their language.
  std::vector<std::string> OtherInputs;
  unsigned OptionsFileDepth = 0;

  /// Parses Args and then decides about the options it did not know.
  Error run(ArrayRef<std::string> Args);
  /// Parses Args (the command line or an options file's contents).
  Error parse(ArrayRef<std::string> Args);
  Error apply(const NvccOption &Opt, StringRef Name, StringRef Value);
};

Error NvccParser::parse(ArrayRef<std::string> Args) {
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef Arg = Args[I];
    if (Arg.empty())
      continue;
    if (Arg[0] != '-') {
      if (isSourceFile(Arg))
        Inputs.push_back(absolutePath(Arg, Directory));
      else if (!isLinkInput(Arg))
        OtherInputs.push_back(absolutePath(Arg, Directory));
      continue;
    }
    Spelling = Arg.split('=').first;
    StringRef Body = Arg.drop_while([](char C) { return C == '-'; });
    auto [Name, Attached] = Body.split('=');
    bool HasEquals = Body.contains('=');
    const auto &Table = nvccOptions();
    auto It = Table.find(Name);
    if (It == Table.end() && !Body.empty() && !Arg.starts_with("--")) {
      // Attached single-letter values: -DFOO, -DN=64, -I/path, -O3, -lm.
      // The value may itself hold '=', so this is tried on the whole body.
      StringRef Short = Body.take_front(1);
      if (StringRef("DUIOLlo").contains(Short)) {
        if (Error E = apply(Table.find(Short)->second, Short,
                            Body.drop_front(1)))
          return E;
        continue;
      }
    }
    if (It == Table.end()) {
      // Kept until the end: -forward-unknown-to-host-compiler may follow.
      Unknown.push_back(Arg.str());
      continue;
    }
    const NvccOption &Opt = It->second;
    StringRef Value;
    if (Opt.TakesValue) {
      if (HasEquals) {
        Value = Attached;
      } else if (I + 1 < Args.size()) {
        Value = Args[++I];
      } else {
        return createStringError(inconvertibleErrorCode(),
                                 "nvcc option '%s' expects a value",
                                 Arg.str().c_str());
      }
    }
    if (Error E = apply(Opt, Name, Value))
      return E;
  }
  return Error::success();
}

Error NvccParser::run(ArrayRef<std::string> Args) {
  if (Error E = parse(Args))
    return E;
  for (const std::string &U : Unknown) {
    if (ForwardUnknown)
      Job.HostFlags.push_back(U);
    else
      Job.Notes.push_back("ignored unknown nvcc option " + U);
  }
  return Error::success();
}

Error NvccParser::apply(const NvccOption &Opt, StringRef Name,
                        StringRef Value) {
  using A = NvccAction;
  switch (Opt.Action) {
  case A::Define:
    Job.CommonFlags.push_back(("-D" + Value).str());
    break;
  case A::Undefine:
    Job.CommonFlags.push_back(("-U" + Value).str());
    break;
  case A::IncludePath:
    Job.CommonFlags.push_back("-I" + absolutePath(Value, Directory));
    break;
  case A::SystemInclude:
    Job.CommonFlags.push_back("-isystem");
    Job.CommonFlags.push_back(absolutePath(Value, Directory));
    break;
  case A::PreInclude:
    Job.CommonFlags.push_back("-include");
    Job.CommonFlags.push_back(absolutePath(Value, Directory));
    break;
  case A::Std:
    Job.CommonFlags.push_back(("-std=" + Value).str());
    break;
  case A::Arch:
    addArchList(Job, Value);
    break;
  case A::Gencode:
    addGencode(Job, Value);
    break;
  case A::Code:
    addArchList(Job, Value);
    break;
  case A::XCompiler: {
    std::vector<std::string> Flags;
    for (StringRef F : splitList(Value))
      Flags.push_back(F.str());
    addHostCompilerFlags(Job, Flags);
    break;
  }
  case A::Language:
    LanguageGiven = true;
    if (Value == "cu" || Value == "cuda")
      Job.Language = SourceLanguage::Cuda;
    else if (Value == "c++" || Value == "cpp")
      Job.Language = SourceLanguage::Cxx;
    else if (Value == "c")
      Job.Language = SourceLanguage::C;
    else
      Job.Language = SourceLanguage::Other;
    break;
  case A::OptionsFile: {
    if (++OptionsFileDepth > 8)
      return createStringError(inconvertibleErrorCode(),
                               "--options-file nested too deeply");
    std::string Path = absolutePath(Value, Directory);
    auto Buf = MemoryBuffer::getFile(Path);
    if (!Buf)
      return createStringError(Buf.getError(),
                               "cannot read options file '%s': %s",
                               Path.c_str(), Buf.getError().message().c_str());
    SmallVector<const char *, 32> Toks;
    cl::TokenizeGNUCommandLine((*Buf)->getBuffer(), Saver, Toks);
    std::vector<std::string> Args(Toks.begin(), Toks.end());
    if (Error E = parse(Args))
      return E;
    --OptionsFileDepth;
    break;
  }
  case A::DefaultStream:
    if (Value == "per-thread") {
      Job.CommonFlags.push_back("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1");
      Job.NvccFlags.push_back("--default-stream=per-thread");
    }
    break;
  case A::Rdc:
    Job.RelocatableDeviceCode = Value == "true" || Value == "1";
    break;
  case A::RdcFlag:
    Job.RelocatableDeviceCode = true;
    break;
  case A::FastMath:
    Job.CommonFlags.push_back("-D__USE_FAST_MATH__=1");
    Job.NvccFlags.push_back("--use_fast_math");
    break;
  case A::RelaxedConstexpr:
    Job.CommonFlags.push_back("-D__CUDACC_RELAXED_CONSTEXPR__=1");
    Job.NvccFlags.push_back("--expt-relaxed-constexpr");
    break;
  case A::ExtendedLambda:
    Job.ExtendedLambda = true;
    Job.NvccFlags.push_back("--extended-lambda");
    break;
  case A::DeviceDebug:
    Job.CommonFlags.push_back("-D__CUDACC_DEBUG__=1");
    break;
  case A::ForwardUnknown:
    ForwardUnknown = true;
    break;
  case A::NoWarnings:
    Job.CommonFlags.push_back("-w");
    break;
  case A::SkipTU:
    Job.Skip = true;
    Job.SkipReason = ("nvcc -" + Name + " does not compile a source").str();
    break;
  case A::HostCompiler:
    Job.Notes.push_back(("host compiler " + Value +
                         " (-ccbin) not run: clang parses the host side")
                            .str());
    break;
  case A::ToolOptions:
    Job.Notes.push_back(
        ("dropped " + Spelling + " " + Value + " (not a parsing option)")
            .str());
    break;
  case A::Drop:
    break;
  case A::Linkage:
    Job.NvccFlags.push_back(("-" + Name + "=" + Value).str());
    break;
  }
  return Error::success();
}

void addHostCompilerFlags(CompileJob &Job, ArrayRef<std::string> Flags) {
  for (size_t I = 0; I < Flags.size(); ++I) {
    StringRef F = Flags[I];
    bool Pre = F.starts_with("-D") || F.starts_with("-U") ||
               F.starts_with("-I") || F.starts_with("-std=");
    if (Pre) {
      Job.CommonFlags.push_back(F.str());
      continue;
    }
    if (F == "-isystem" || F == "-include") {
      Job.CommonFlags.push_back(F.str());
      if (I + 1 < Flags.size())
        Job.CommonFlags.push_back(absolutePath(Flags[++I], Job.Directory));
      continue;
    }
    // Code generation and linking flags do not change what is parsed.
    if (F.starts_with("-O") || F.starts_with("-g") || F.starts_with("-Wl,") ||
        F == "-fPIC" || F == "-fPIE" || F == "-fpic" || F == "-fpie" ||
        F.starts_with("-march") || F.starts_with("-mtune") ||
        F.starts_with("-W")) {
      continue;
    }
    Job.HostFlags.push_back(F.str());
  }
}

SourceLanguage languageFromExtension(StringRef File) {
  StringRef Ext = sys::path::extension(File);
  if (Ext.equals_insensitive(".cu"))
    return SourceLanguage::Cuda;
  if (Ext.equals_insensitive(".c"))
    return SourceLanguage::C;
  if (isSourceFile(File))
    return SourceLanguage::Cxx;
  return SourceLanguage::Other;
}

/// Picks the job's source. LanguageGiven: a -x option names the language,
/// so a file of any extension (.cuknl, .inc) is a source.
Error finishInputs(CompileJob &Job, ArrayRef<std::string> Inputs,
                   StringRef File, bool LanguageGiven = false) {
  if (!File.empty() && Inputs.empty() &&
      !(isSourceFile(File) || (LanguageGiven && !isLinkInput(File)))) {
    // bear records link steps with an object file as "file".
    Job.File = absolutePath(File, Job.Directory);
    if (!Job.Skip) {
      Job.Skip = true;
      Job.SkipReason = "the command names no source file";
    }
    return Error::success();
  }
  if (!File.empty()) {
    Job.File = absolutePath(File, Job.Directory);
  } else if (Inputs.size() == 1) {
    Job.File = Inputs.front();
  } else if (Inputs.empty()) {
    if (!Job.Skip) {
      Job.Skip = true;
      Job.SkipReason = "the command names no source file";
    }
    return Error::success();
  } else {
    return createStringError(inconvertibleErrorCode(),
                             "the command compiles %zu sources; expected one",
                             Inputs.size());
  }
  return Error::success();
}

} // namespace

std::string CompileJob::deviceArch() const {
  // nvcc 13 builds for sm_75 when no architecture is named.
  std::string Best = "sm_75";
  unsigned BestNum = 0;
  for (const std::string &A : GpuArchs) {
    unsigned N = 0;
    StringRef Digits = StringRef(A).drop_front(3).take_while([](char C) { return isDigit(C); });
    if (!Digits.getAsInteger(10, N) && N > BestNum) {
      BestNum = N;
      Best = A;
    }
  }
  return Best;
}

Expected<CompileJob> parseNvccCommand(ArrayRef<std::string> Argv,
                                      StringRef Directory, StringRef File) {
  CompileJob Job;
  Job.Directory = Directory.str();
  Job.Compiler = Argv.empty() ? "" : Argv.front();
  Job.Language = SourceLanguage::Other;
  // nvcc's own location names the toolkit: <cuda>/bin/nvcc. A relative
  // path is relative to the command's directory, as the build ran it there.
  if (StringRef(Job.Compiler).contains('/'))
    Job.CudaPathHint = sys::path::parent_path(
                           sys::path::parent_path(
                               absolutePath(Job.Compiler, Directory)))
                           .str();
  Job.BuiltByNvcc = true;
  NvccParser P(Job, Directory);
  if (Error E = P.run(Argv.drop_front()))
    return E;
  if (P.LanguageGiven)
    P.Inputs.insert(P.Inputs.end(), P.OtherInputs.begin(), P.OtherInputs.end());
  if (Error E = finishInputs(Job, P.Inputs, File, P.LanguageGiven))
    return E;
  if (!P.LanguageGiven && !Job.File.empty()) {
    // nvcc compiles .cu as CUDA and hands .cpp/.c to the host compiler.
    Job.Language = languageFromExtension(Job.File);
  }
  return Job;
}

Expected<CompileJob> parseGccStyleCommand(ArrayRef<std::string> Argv,
                                          StringRef Directory, StringRef File) {
  CompileJob Job;
  Job.Directory = Directory.str();
  Job.Compiler = Argv.empty() ? "" : Argv.front();
  std::vector<std::string> Inputs, OtherInputs;
  std::optional<SourceLanguage> Lang;
  for (size_t I = 1; I < Argv.size(); ++I) {
    StringRef A = Argv[I];
    if (A.empty())
      continue;
    if (A[0] != '-') {
      std::string Path = absolutePath(A, Directory);
      if (isSourceFile(A))
        Inputs.push_back(Path);
      else if (!isLinkInput(A) && sys::fs::is_regular_file(Path))
        OtherInputs.push_back(Path);
      continue;
    }
    auto TakeValue = [&](StringRef Flag) -> std::optional<std::string> {
      if (A == Flag) {
        if (I + 1 < Argv.size())
          return Argv[++I];
        return std::nullopt;
      }
      return A.drop_front(Flag.size()).str();
    };
    if (A == "-x" || (A.starts_with("-x") && A.size() > 2)) {
      auto V = TakeValue("-x");
      if (V)
        Lang = StringSwitch<SourceLanguage>(*V)
                   .Cases({"cuda", "cu"}, SourceLanguage::Cuda)
                   .Case("c++", SourceLanguage::Cxx)
                   .Case("c", SourceLanguage::C)
                   .Default(SourceLanguage::Other);
      continue;
    }
    if (A.starts_with("--cuda-path=")) {
      Job.CudaPathHint = A.drop_front(strlen("--cuda-path=")).str();
      continue;
    }
    if (A.starts_with("--cuda-gpu-arch=") || A.starts_with("--offload-arch=")) {
      addArchList(Job, A.split('=').second);
      continue;
    }
    if (A == "-fgpu-rdc") {
      Job.RelocatableDeviceCode = true;
      continue;
    }
    if (A.starts_with("-D") || A.starts_with("-U") || A.starts_with("-I")) {
      if (A.size() == 2) {
        if (I + 1 < Argv.size())
          Job.CommonFlags.push_back(
              A.str() + (A == "-I" ? absolutePath(Argv[++I], Directory)
                                   : Argv[++I]));
      } else {
        Job.CommonFlags.push_back(
            A.starts_with("-I") ? "-I" + absolutePath(A.drop_front(2), Directory)
                                : A.str());
      }
      continue;
    }
    if (A == "-isystem" || A == "-include" || A == "-iquote") {
      Job.CommonFlags.push_back(A.str());
      if (I + 1 < Argv.size())
        Job.CommonFlags.push_back(absolutePath(Argv[++I], Directory));
      continue;
    }
    if (A.starts_with("-std=")) {
      Job.CommonFlags.push_back(A.str());
      continue;
    }
    if (A == "-o" || A == "-MF" || A == "-MT" || A == "-MQ") {
      ++I;
      continue;
    }
    if (A == "-E" || A == "-M" || A == "-MM") {
      Job.Skip = true;
      Job.SkipReason = (A + " does not compile a source").str();
      continue;
    }
    if (A.starts_with("-f") && !A.starts_with("-fprofile") &&
        !A.starts_with("-fdiagnostics"))
      Job.HostFlags.push_back(A.str());
  }
  if (Lang)
    Inputs.insert(Inputs.end(), OtherInputs.begin(), OtherInputs.end());
  if (Error E = finishInputs(Job, Inputs, File, Lang.has_value()))
    return E;
  Job.Language = Lang ? *Lang : languageFromExtension(Job.File);
  return Job;
}

/// Replaces each "@file" argument by the arguments the file holds (GNU
/// quoting, nested files too), relative paths from Directory.
static Error expandResponseFiles(std::vector<std::string> &Args,
                                 StringRef Directory, unsigned Depth = 0) {
  std::vector<std::string> Out;
  for (const std::string &A : Args) {
    if (A.size() < 2 || A[0] != '@') {
      Out.push_back(A);
      continue;
    }
    if (Depth >= 8)
      return createStringError(inconvertibleErrorCode(),
                               "response file '%s' nests too deeply",
                               A.c_str());
    std::string Path = absolutePath(StringRef(A).drop_front(), Directory);
    auto Buf = MemoryBuffer::getFile(Path);
    if (!Buf)
      return createStringError(Buf.getError(),
                               "cannot read response file '%s' (%s): %s",
                               A.c_str(), Path.c_str(),
                               Buf.getError().message().c_str());
    BumpPtrAllocator Alloc;
    StringSaver Saver(Alloc);
    SmallVector<const char *, 32> Toks;
    cl::TokenizeGNUCommandLine((*Buf)->getBuffer(), Saver, Toks);
    std::vector<std::string> Inner(Toks.begin(), Toks.end());
    if (Error E = expandResponseFiles(Inner, Directory, Depth + 1))
      return E;
    Out.insert(Out.end(), Inner.begin(), Inner.end());
  }
  Args = std::move(Out);
  return Error::success();
}

Expected<CompileJob> parseCompileCommand(ArrayRef<std::string> Arguments,
                                         StringRef Directory, StringRef File) {
  std::vector<std::string> Expanded(Arguments.begin(), Arguments.end());
  if (Error E = expandResponseFiles(Expanded, Directory))
    return std::move(E);
  ArrayRef<std::string> Argv = Expanded;
  // CMake's <LANG>_COMPILER_LAUNCHER and wrapper-based build caches put
  // their own program before the compiler.
  while (Argv.size() > 1 &&
         is_contained({"ccache", "sccache", "distcc", "buildcache"},
                      sys::path::filename(Argv.front())))
    Argv = Argv.drop_front();
  if (Argv.empty())
    return createStringError(inconvertibleErrorCode(), "empty command line");
  StringRef Name = sys::path::filename(Argv.front());
  if (Name.ends_with("nvcc") || Name.ends_with("nvcc.exe"))
    return parseNvccCommand(Argv, Directory, File);
  return parseGccStyleCommand(Argv, Directory, File);
}

static bool isDirectory(const std::string &Path) {
  return !Path.empty() && sys::fs::is_directory(Path);
}

bool isCudaInstallation(StringRef Root) {
  if (Root.empty())
    return false;
  SmallString<256> Header(Root);
  sys::path::append(Header, "include", "cuda_runtime.h");
  return sys::fs::exists(Header);
}

/// Reads CUDA_VERSION from the toolkit's cuda.h.
static void readCudaVersion(Toolchain &TC) {
  SmallString<256> Header(TC.CudaPath);
  sys::path::append(Header, "include", "cuda.h");
  auto Buf = MemoryBuffer::getFile(Header);
  if (!Buf)
    return;
  StringRef Text = (*Buf)->getBuffer();
  size_t At = Text.find("#define CUDA_VERSION ");
  if (At == StringRef::npos)
    return;
  unsigned Version = 0;
  StringRef Digits = Text.drop_front(At + strlen("#define CUDA_VERSION "))
                         .take_while([](char C) { return isDigit(C); });
  if (Digits.getAsInteger(10, Version))
    return;
  TC.CudaMajor = Version / 1000;
  TC.CudaMinor = Version % 1000 / 10;
}

/// The toolkit root of the nvcc that a command runs by its bare name, as the
/// build would have found it on PATH.
static std::string cudaRootOnPath(StringRef Compiler) {
  if (Compiler.contains('/'))
    return "";
  auto Nvcc = sys::findProgramByName(Compiler);
  if (!Nvcc)
    return "";
  std::string Root =
      sys::path::parent_path(sys::path::parent_path(*Nvcc)).str();
  if (isCudaInstallation(Root))
    return Root;
  // A distribution's /usr/bin/nvcc links into the toolkit's own bin/.
  SmallString<256> Real;
  if (sys::fs::real_path(*Nvcc, Real))
    return Root;
  return sys::path::parent_path(sys::path::parent_path(Real)).str();
}

Expected<Toolchain> findToolchain(const CompileJob &Job,
                                  StringRef CudaPathOverride,
                                  StringRef ResourceDirOverride) {
  Toolchain TC;
  TC.ClangPath = FS_CLANG_EXECUTABLE;
  // An explicit --cuda-path is what the user wants, so a wrong one is an
  // error rather than a reason to silently parse against another toolkit.
  if (!CudaPathOverride.empty()) {
    if (!isCudaInstallation(CudaPathOverride))
      return createStringError(inconvertibleErrorCode(),
                               "--cuda-path '%s' is not a CUDA installation "
                               "(no include/cuda_runtime.h)",
                               CudaPathOverride.str().c_str());
    TC.CudaPath = CudaPathOverride.str();
    TC.CudaPathOrigin = "--cuda-path";
  }
  std::vector<std::string> Tried;
  auto TryCuda = [&](const std::string &Candidate, StringRef Origin) {
    if (!TC.CudaPath.empty() || Candidate.empty())
      return;
    Tried.push_back(Candidate);
    if (isCudaInstallation(Candidate)) {
      TC.CudaPath = Candidate;
      TC.CudaPathOrigin = Origin.str();
      return;
    }
    TC.Notes.push_back(("ignored " + Origin + " '" + Candidate +
                        "': no include/cuda_runtime.h there")
                           .str());
  };
  if (Job.Language == SourceLanguage::Cuda) {
    TryCuda(Job.CudaPathHint, "the compiler's toolkit");
    if (Job.CudaPathHint.empty())
      TryCuda(cudaRootOnPath(Job.Compiler), "the nvcc on PATH");
    if (auto Env = sys::Process::GetEnv("CUDA_PATH"))
      TryCuda(*Env, "CUDA_PATH");
    TryCuda("/usr/local/cuda", "the default location");
  }
  if (TC.CudaPath.empty() && Job.Language == SourceLanguage::Cuda) {
    std::string Where;
    for (const std::string &T : Tried)
      Where += (Where.empty() ? "" : ", ") + T;
    return createStringError(
        inconvertibleErrorCode(),
        "no CUDA installation found (looked for include/cuda_runtime.h in: "
        "%s); pass --cuda-path or set CUDA_PATH",
        Where.c_str());
  }
  readCudaVersion(TC);
  SmallString<256> Cccl(TC.CudaPath);
  sys::path::append(Cccl, "include", "cccl");
  if (!TC.CudaPath.empty() && isDirectory(std::string(Cccl)))
    TC.ToolkitSystemIncludes.push_back(std::string(Cccl));
  TC.ResourceDir = ResourceDirOverride.empty()
                       ? std::string(FS_CLANG_RESOURCE_DIR)
                       : ResourceDirOverride.str();
  // A relocated fs-rewrite (scripts/build-portable.sh) carries the headers
  // beside itself, where clang keeps its own: <bin>/../lib/clang/<major>.
  if (ResourceDirOverride.empty() && !isDirectory(TC.ResourceDir + "/include")) {
    std::string Exe = sys::fs::getMainExecutable(nullptr, nullptr);
    SmallString<256> Beside(sys::path::parent_path(sys::path::parent_path(Exe)));
    sys::path::append(Beside, "lib", "clang", sys::path::filename(FS_CLANG_RESOURCE_DIR));
    if (!Exe.empty() && isDirectory(std::string(Beside) + "/include"))
      TC.ResourceDir = std::string(Beside);
  }
  if (!isDirectory(TC.ResourceDir + "/include"))
    return createStringError(
        inconvertibleErrorCode(),
        "clang resource directory '%s' has no include/ (the CUDA wrapper "
        "headers live there); pass --resource-dir",
        TC.ResourceDir.c_str());
  return TC;
}

/// The macros nvcc defines that clang does not. The app is built by nvcc,
/// so code guarded by __NVCC__ is the code that runs and the code we
/// analyse. The toolkit's own headers (CCCL) take __NVCC__ to mean that
/// nvcc's version macros and builtins exist, so those come with it: the
/// version from the toolkit, and the extended-lambda queries as "no"
/// (clang checks extended lambdas itself; CCCL only asserts with them).
static void addNvccMacros(std::vector<std::string> &Cmd, const CompileJob &Job,
                          const Toolchain &TC) {
  Cmd.push_back("-D__NVCC__=1");
  if (TC.CudaMajor) {
    Cmd.push_back("-D__CUDACC_VER_MAJOR__=" + std::to_string(TC.CudaMajor));
    Cmd.push_back("-D__CUDACC_VER_MINOR__=" + std::to_string(TC.CudaMinor));
    Cmd.push_back("-D__CUDACC_VER_BUILD__=0");
  }
  if (Job.ExtendedLambda) {
    Cmd.push_back("-D__CUDACC_EXTENDED_LAMBDA__=1");
    for (const char *Query :
         {"__nv_is_extended_device_lambda_closure_type",
          "__nv_is_extended_host_device_lambda_closure_type",
          "__nv_is_extended_device_lambda_with_preserved_return_type"})
      Cmd.push_back(std::string("-D") + Query + "(X)=false");
  }
}

std::vector<std::string> buildClangCommand(const CompileJob &Job,
                                           const Toolchain &TC, CudaSide Side) {
  std::vector<std::string> Cmd{TC.ClangPath};
  bool Cuda = Job.Language == SourceLanguage::Cuda;
  if (Cuda) {
    Cmd.insert(Cmd.end(), {"-x", "cuda", "--cuda-path=" + TC.CudaPath,
                           "-Wno-unknown-cuda-version"});
    if (Side == CudaSide::Host)
      Cmd.push_back("--cuda-host-only");
    else
      Cmd.insert(Cmd.end(), {"--cuda-device-only",
                             "--cuda-gpu-arch=" + Job.deviceArch()});
    if (Job.BuiltByNvcc) {
      addNvccMacros(Cmd, Job, TC);
      // nvcc accepts the 'register' storage class that C++17 removed (it
      // warns); clang rejects it unless told not to.
      Cmd.push_back("-Wno-register");
    }
    if (Job.RelocatableDeviceCode) {
      Cmd.push_back("-fgpu-rdc");
      Cmd.push_back("-D__CUDACC_RDC__=1");
    }
  } else if (Job.Language == SourceLanguage::C) {
    Cmd.insert(Cmd.end(), {"-x", "c"});
  } else {
    Cmd.insert(Cmd.end(), {"-x", "c++"});
  }
  Cmd.push_back("-resource-dir=" + TC.ResourceDir);
  Cmd.push_back("-fsyntax-only");
  // Before the command's own -include files, so that it sees the toolkit's
  // headers first (lib/Driver/Prelude/analysis-prelude.h).
  if (Cuda)
    Cmd.insert(Cmd.end(), {"-include", analysisPreludePath().str()});
  Cmd.insert(Cmd.end(), Job.CommonFlags.begin(), Job.CommonFlags.end());
  // After the command's own paths, as nvcc puts them.
  for (const std::string &Dir : TC.ToolkitSystemIncludes)
    Cmd.insert(Cmd.end(), {"-isystem", Dir});
  if (Side == CudaSide::Host || !Cuda)
    Cmd.insert(Cmd.end(), Job.HostFlags.begin(), Job.HostFlags.end());
  Cmd.push_back(Job.File);
  return Cmd;
}

} // namespace driver
} // namespace forgestencil

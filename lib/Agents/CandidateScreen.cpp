//===- CandidateScreen.cpp - Static screen for untrusted candidate code --===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/CandidateScreen.h"
#include "SourceText.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace forgestencil {
namespace agents {

namespace {

using Category = ScreenCategory;
using Severity = ScreenSeverity;

constexpr const char *TimingReason =
    "candidates must not read clocks or timers or sleep; timing belongs to the "
    "measurement driver";
constexpr const char *StreamReason =
    "candidates may only enqueue work on the stream the launcher is given: no "
    "other streams, no synchronisation, no blocking or host copies";
constexpr const char *MemoryReason =
    "candidates must not allocate or free memory (host, managed or device); "
    "use the arrays the launcher is given and shared memory";
constexpr const char *SystemReason =
    "candidates must not touch files, the environment, the console or other "
    "processes";
constexpr const char *AsmReason =
    "inline PTX is not allowed: it can read timers and escape this screen";
constexpr const char *StateReason =
    "mutable state that outlives a launch could cache results between calls; "
    "a replacement must recompute every launch";
constexpr const char *AtomicReason =
    "atomics are suspicious in a stencil: each output point has one writer";
constexpr const char *PrecisionReason =
    "half-precision types change the results of a float/double stencil";
constexpr const char *PastingReason =
    "token pasting can assemble a forbidden name that this screen cannot see";

struct Rule {
  Category Kind;
  Severity Level;
  const char *Reason;
};

const std::unordered_map<std::string, Rule> &exactRules() {
  static const std::unordered_map<std::string, Rule> Rules = [] {
    std::unordered_map<std::string, Rule> R;
    auto Add = [&](std::initializer_list<const char *> Names, Category Kind,
                   const char *Reason, Severity Level = Severity::Refuse) {
      for (const char *Name : Names)
        R.emplace(Name, Rule{Kind, Level, Reason});
    };
    Add({"clock", "clock64", "clock_gettime", "gettimeofday", "chrono",
         "steady_clock", "system_clock", "high_resolution_clock", "timespec",
         "rdtsc", "__rdtsc", "__nanosleep", "nanosleep", "usleep", "sleep",
         "sleep_for", "sleep_until", "globaltimer"},
        Category::Timing, TimingReason);
    Add({"cudaDeviceSynchronize", "cudaThreadSynchronize", "cudaDeviceReset",
         "cudaSetDevice", "cudaLaunchHostFunc", "cudaFree", "cudaFreeHost",
         "cudaFreeAsync", "cudaFreeArray"},
        Category::Stream, StreamReason);
    Add({"malloc", "calloc", "realloc", "aligned_alloc", "posix_memalign",
         "new", "mmap", "vector", "device_vector", "host_vector",
         "universal_vector", "make_unique", "make_shared", "unique_ptr",
         "shared_ptr"},
        Category::HostMemory, MemoryReason);
    Add({"FILE", "fopen", "freopen", "fdopen", "fclose", "fread", "fwrite",
         "fprintf", "fputs", "fgets", "fscanf", "ifstream", "ofstream",
         "fstream", "filesystem", "getenv", "secure_getenv", "setenv",
         "putenv", "unsetenv", "system", "popen", "pclose", "fork", "vfork",
         "execl", "execle", "execlp", "execv", "execve", "execvp", "execvpe",
         "execveat", "dlopen", "dlsym", "syscall", "kill", "exit", "_exit",
         "quick_exit", "abort", "atexit", "cout", "cerr", "clog", "thread",
         "async"},
        Category::FileEnvProcess, SystemReason);
    Add({"printf", "puts"}, Category::FileEnvProcess,
        "printing from a candidate floods the output and distorts timing",
        Severity::Suspicious);
    Add({"asm", "__asm__", "__asm"}, Category::InlineAsm, AsmReason);
    Add({"__managed__"}, Category::PersistentState, StateReason);
    return R;
  }();
  return Rules;
}

struct PrefixRule {
  const char *Prefix;
  Rule Applies;
  std::set<std::string> Exceptions;
};

const std::vector<PrefixRule> &prefixRules() {
  static const std::vector<PrefixRule> Rules = {
      {"cudaEvent", {Category::Timing, Severity::Refuse, TimingReason}, {}},
      {"cuEvent", {Category::Timing, Severity::Refuse, TimingReason}, {}},
      {"cudaStream",
       {Category::Stream, Severity::Refuse, StreamReason},
       {"cudaStream_t"}},
      {"cuStream", {Category::Stream, Severity::Refuse, StreamReason}, {}},
      {"cuCtx", {Category::Stream, Severity::Refuse, StreamReason}, {}},
      {"cudaGraph", {Category::Stream, Severity::Refuse, StreamReason}, {}},
      {"cudaMemcpy",
       {Category::Stream, Severity::Refuse, StreamReason},
       {"cudaMemcpyAsync", "cudaMemcpy2DAsync", "cudaMemcpy3DAsync",
        "cudaMemcpyDeviceToDevice", "cudaMemcpyKind"}},
      {"cudaMemset",
       {Category::Stream, Severity::Refuse, StreamReason},
       {"cudaMemsetAsync", "cudaMemset2DAsync", "cudaMemset3DAsync"}},
      {"cuMemcpy", {Category::Stream, Severity::Refuse, StreamReason}, {}},
      {"cudaMalloc", {Category::HostMemory, Severity::Refuse, MemoryReason}, {}},
      {"cudaHost", {Category::HostMemory, Severity::Refuse, MemoryReason}, {}},
      {"cuMem", {Category::HostMemory, Severity::Refuse, MemoryReason}, {}},
      {"atomic", {Category::Atomic, Severity::Suspicious, AtomicReason}, {}},
      {"__atomic_", {Category::Atomic, Severity::Suspicious, AtomicReason}, {}},
      {"__sync_", {Category::Atomic, Severity::Suspicious, AtomicReason}, {}},
  };
  return Rules;
}

const std::set<std::string> &halfPrecisionNames() {
  static const std::set<std::string> Names = {
      "__half",          "__half2",          "half2",
      "__half_raw",      "__nv_bfloat16",    "__nv_bfloat162",
      "nv_bfloat16",     "nv_bfloat162",     "__float2half",
      "__float2half_rn", "__half2float",     "__float2half2_rn",
      "__floats2half2_rn", "__float2bfloat16", "__bfloat162float",
      "__hadd",          "__hsub",           "__hmul",
      "__hdiv",          "__hfma",           "__hadd2",
      "__hmul2",         "__hfma2"};
  return Names;
}

class Screen {
public:
  Screen(std::string_view Code, const ScreenOptions &Options)
      : Code(Code), RefusesHalf(Options.ElementType == "float" ||
                                Options.ElementType == "double") {}

  std::vector<ScreenFinding> run() {
    checkIncludes();
    std::string Blanked = blankCommentsAndLiterals(Code, /*AlsoLiterals=*/true);
    blankIncludeDirectives(Blanked); // checkIncludes() judged them already.
    Tokens = tokenize(Blanked);
    for (size_t I = 0; I < Tokens.size(); ++I) {
      checkToken(I);
      if (Tokens[I].is("<<<"))
        checkLaunchConfiguration(I);
    }
    std::stable_sort(Findings.begin(), Findings.end(),
                     [](const ScreenFinding &A, const ScreenFinding &B) {
                       return A.Line < B.Line;
                     });
    return std::move(Findings);
  }

private:
  void add(unsigned Line, Category Kind, Severity Level, std::string Token,
           std::string Reason) {
    if (!Seen.insert({Line, Token}).second)
      return;
    Findings.push_back({Line, Kind, Level, std::move(Token), std::move(Reason)});
  }

  const SourceToken *tokenAt(size_t I) const {
    return I < Tokens.size() ? &Tokens[I] : nullptr;
  }
  bool tokenIs(size_t I, std::string_view Spelling) const {
    const SourceToken *T = tokenAt(I);
    return T && T->is(Spelling);
  }
  bool previousIs(size_t I, std::string_view Spelling) const {
    return I > 0 && Tokens[I - 1].is(Spelling);
  }

  void checkToken(size_t I) {
    const SourceToken &T = Tokens[I];
    if (T.is("##")) {
      add(T.Line, Category::Preprocessor, Severity::Refuse, T.Text, PastingReason);
      return;
    }
    if (T.Kind != SourceToken::Identifier)
      return;
    // A member such as `grid.sync` or `s.clock` is not the global function.
    if (previousIs(I, ".") || previousIs(I, "->"))
      return;
    if (auto It = exactRules().find(T.Text); It != exactRules().end()) {
      if (!(T.is("delete") && previousIs(I, "=")))
        add(T.Line, It->second.Kind, It->second.Level, T.Text, It->second.Reason);
      return;
    }
    for (const PrefixRule &Rule : prefixRules())
      if (T.Text.rfind(Rule.Prefix, 0) == 0 && !Rule.Exceptions.count(T.Text)) {
        add(T.Line, Rule.Applies.Kind, Rule.Applies.Level, T.Text,
            Rule.Applies.Reason);
        return;
      }
    if (T.is("delete") && !previousIs(I, "="))
      add(T.Line, Category::HostMemory, Severity::Refuse, T.Text, MemoryReason);
    else if (T.is("time") && tokenIs(I + 1, "("))
      add(T.Line, Category::Timing, Severity::Refuse, T.Text, TimingReason);
    else if (RefusesHalf && (halfPrecisionNames().count(T.Text) || isHalfType(I)))
      add(T.Line, Category::Precision, Severity::Refuse, T.Text, PrecisionReason);
    else if (T.is("__device__") || T.is("static"))
      checkPersistentDeclaration(I);
  }

  /// `half` is also a common variable name, so it counts only where it is
  /// used as a type: `half x`, `<half>`, `(half)`.
  bool isHalfType(size_t I) const {
    if (!Tokens[I].is("half"))
      return false;
    const SourceToken *Next = tokenAt(I + 1);
    if (!Next)
      return false;
    if (Next->Kind == SourceToken::Identifier)
      return true;
    if (previousIs(I, "<") && (Next->is(">") || Next->is(",")))
      return true;
    return previousIs(I, "(") && Next->is(")");
  }

  /// Flags a `__device__` or `static` declaration of a mutable variable: a
  /// global written by one launch and read by the next could replay results.
  void checkPersistentDeclaration(size_t I) {
    int AngleDepth = 0;
    for (size_t J = I + 1; J < Tokens.size(); ++J) {
      const SourceToken &T = Tokens[J];
      if (T.is("const") || T.is("constexpr") || T.is("__constant__") ||
          T.is("__shared__") || T.is("__global__"))
        return;
      if (T.is("<"))
        ++AngleDepth;
      else if (T.is(">"))
        --AngleDepth;
      else if (T.is(">>>") || T.is("<<<"))
        return;
      if (T.is("(") || T.is(")") || T.is("{") || T.is("}") || T.is("::"))
        return; // A function, a lambda or a qualified name; not a variable.
      if (T.is(";") || T.is("=") || T.is("[") || (T.is(",") && AngleDepth <= 0)) {
        add(Tokens[I].Line, Category::PersistentState, Severity::Refuse,
            Tokens[I].Text + " variable", StateReason);
        return;
      }
    }
  }

  /// A launch must pass the launcher's stream: `<<<grid, block, shmem, s>>>`.
  void checkLaunchConfiguration(size_t Open) {
    std::vector<std::vector<const SourceToken *>> Arguments(1);
    int Depth = 0;
    size_t J = Open + 1;
    for (; J < Tokens.size() && !(Depth == 0 && Tokens[J].is(">>>")); ++J) {
      const SourceToken &T = Tokens[J];
      if (T.is("(") || T.is("[") || T.is("{"))
        ++Depth;
      else if (T.is(")") || T.is("]") || T.is("}"))
        --Depth;
      if (Depth == 0 && T.is(","))
        Arguments.emplace_back();
      else
        Arguments.back().push_back(&T);
    }
    unsigned Line = Tokens[Open].Line;
    if (Arguments.size() < 4) {
      add(Line, Category::Stream, Severity::Refuse, "<<<...>>>",
          "this launch has no stream argument, so it runs on the default "
          "stream; pass the launcher's stream as the fourth launch parameter");
      return;
    }
    const std::vector<const SourceToken *> &Stream = Arguments[3];
    if (Stream.size() == 1 &&
        (Stream[0]->is("0") || Stream[0]->is("nullptr") || Stream[0]->is("NULL") ||
         Stream[0]->is("cudaStreamDefault")))
      add(Line, Category::Stream, Severity::Refuse, "<<<...>>>",
          "this launch uses the default stream (`" + Stream[0]->Text +
              "`); pass the launcher's stream");
  }

  static void blankIncludeDirectives(std::string &Text) {
    size_t Pos = 0;
    while (Pos < Text.size()) {
      size_t End = Text.find('\n', Pos);
      if (End == std::string::npos)
        End = Text.size();
      size_t Hash = Text.find_first_not_of(" \t", Pos);
      if (Hash < End && Text[Hash] == '#') {
        size_t Word = Text.find_first_not_of(" \t", Hash + 1);
        if (Word < End && Text.compare(Word, 7, "include") == 0)
          std::fill(Text.begin() + Pos, Text.begin() + End, ' ');
      }
      Pos = End + 1;
    }
  }

  void checkIncludes() {
    std::string NoComments = blankCommentsAndLiterals(Code, /*AlsoLiterals=*/false);
    size_t Pos = 0;
    unsigned Line = 1;
    while (Pos <= NoComments.size()) {
      size_t End = NoComments.find('\n', Pos);
      if (End == std::string::npos)
        End = NoComments.size();
      checkIncludeLine(std::string_view(NoComments).substr(Pos, End - Pos), Line);
      if (End == NoComments.size())
        break;
      Pos = End + 1;
      ++Line;
    }
  }

  void checkIncludeLine(std::string_view Text, unsigned Line) {
    size_t Hash = Text.find_first_not_of(" \t");
    if (Hash == std::string_view::npos || Text[Hash] != '#')
      return;
    size_t Word = Text.find_first_not_of(" \t", Hash + 1);
    if (Word == std::string_view::npos || Text.substr(Word, 7) != "include")
      return;
    size_t Open = Text.find_first_of("<\"", Word + 7);
    if (Open == std::string_view::npos)
      return;
    char Closer = Text[Open] == '<' ? '>' : '"';
    size_t Close = Text.find(Closer, Open + 1);
    if (Close == std::string_view::npos)
      return;
    std::string Header(Text.substr(Open + 1, Close - Open - 1));
    checkHeader(Header, Closer == '"', Line);
  }

  void checkHeader(const std::string &Header, bool Quoted, unsigned Line) {
    std::string Shown = Quoted ? "\"" + Header + "\"" : "<" + Header + ">";
    std::string Token = "#include " + Shown;
    if (Quoted) {
      if (Header.rfind("forgestencil/", 0) != 0)
        add(Line, Category::Include, Severity::Refuse, Token,
            "the candidate must be self-contained; it may include only "
            "toolkit headers and forgestencil/ headers");
      return;
    }
    static const std::set<std::string> TimingHeaders = {
        "chrono", "ctime", "time.h", "sys/time.h", "cuda/std/chrono"};
    static const std::set<std::string> SystemHeaders = {
        "fstream", "iostream", "ostream", "istream", "sstream", "cstdio",
        "stdio.h", "cstdlib", "stdlib.h", "unistd.h", "filesystem",
        "dlfcn.h", "fcntl.h", "thread", "future", "csignal", "signal.h"};
    static const std::set<std::string> MemoryHeaders = {"memory", "vector",
                                                        "new", "malloc.h"};
    static const std::set<std::string> HalfHeaders = {"cuda_fp16.h",
                                                      "cuda_bf16.h", "cuda_fp8.h"};
    static const std::set<std::string> Allowed = {
        "cuda_runtime.h", "cuda_runtime_api.h", "device_launch_parameters.h",
        "cooperative_groups.h", "cstdint", "stdint.h", "cstddef", "stddef.h",
        "cmath", "math.h", "math_constants.h", "cfloat", "float.h", "climits",
        "limits.h", "limits", "type_traits", "utility", "algorithm", "cassert",
        "assert.h", "array", "mma.h", "cuda_pipeline.h", "cuda_awbarrier.h",
        "cuda/pipeline", "cuda/barrier"};
    if (TimingHeaders.count(Header))
      add(Line, Category::Timing, Severity::Refuse, Token, TimingReason);
    else if (SystemHeaders.count(Header) || Header.rfind("sys/", 0) == 0)
      add(Line, Category::FileEnvProcess, Severity::Refuse, Token, SystemReason);
    else if (MemoryHeaders.count(Header))
      add(Line, Category::HostMemory, Severity::Refuse, Token, MemoryReason);
    else if (HalfHeaders.count(Header)) {
      if (RefusesHalf)
        add(Line, Category::Precision, Severity::Refuse, Token, PrecisionReason);
    } else if (!Allowed.count(Header) &&
               Header.rfind("cooperative_groups/", 0) != 0 &&
               Header.rfind("cuda/std/", 0) != 0)
      add(Line, Category::Include, Severity::Refuse, Token,
          "this header is not on the allow-list for candidates (CUDA runtime, "
          "cooperative groups, <cmath>, <cstdint> and similar)");
  }

  std::string_view Code;
  bool RefusesHalf;
  std::vector<SourceToken> Tokens;
  std::vector<ScreenFinding> Findings;
  std::set<std::pair<unsigned, std::string>> Seen;
};

} // namespace

std::vector<ScreenFinding> screenCandidate(std::string_view Code,
                                           const ScreenOptions &Options) {
  return Screen(Code, Options).run();
}

bool screenRefuses(const std::vector<ScreenFinding> &Findings) {
  return std::any_of(Findings.begin(), Findings.end(), [](const ScreenFinding &F) {
    return F.Severity == ScreenSeverity::Refuse;
  });
}

const char *screenCategoryName(ScreenCategory Kind) {
  switch (Kind) {
  case Category::Timing:
    return "timing";
  case Category::Stream:
    return "stream";
  case Category::HostMemory:
    return "memory";
  case Category::FileEnvProcess:
    return "system";
  case Category::InlineAsm:
    return "asm";
  case Category::PersistentState:
    return "state";
  case Category::Atomic:
    return "atomic";
  case Category::Precision:
    return "precision";
  case Category::Include:
    return "include";
  case Category::Preprocessor:
    return "preprocessor";
  }
  return "unknown";
}

std::string formatScreenFindings(const std::vector<ScreenFinding> &Findings) {
  std::string Out;
  for (const ScreenFinding &F : Findings) {
    Out += "line " + std::to_string(F.Line) + ": `" + F.Token + "` (" +
           screenCategoryName(F.Category) +
           (F.Severity == Severity::Suspicious ? ", suspicious" : "") + "): " +
           F.Reason + "\n";
  }
  return Out;
}

} // namespace agents
} // namespace forgestencil

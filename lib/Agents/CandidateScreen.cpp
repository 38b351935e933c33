//===- CandidateScreen.cpp - Static screen for untrusted candidate code --===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/CandidateScreen.h"
#include "SourceText.h"

#include <algorithm>
#include <cstdint>
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
    checkModuleState();
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

  //===--- Module state ---------------------------------------------------===//
  // A candidate that remembers anything between calls can be honest while
  // it is checked and idle while it is timed. Every variable whose storage
  // outlives a launch is state: at namespace scope (static or not, extern,
  // declared with a struct or enum body), static data members,
  // function-local statics and thread_local variables, unless it is
  // immutable (const, constexpr, __constant__) or shared memory. This pass
  // follows the braces to know which scope a declaration is in.

  enum class Scope { Namespace, Class, Function, Initializer };

  /// One open brace scope and the statement being read in it, which stays
  /// open across a class, enum or initializer body (`struct {...} s;`).
  struct Frame {
    Scope Kind;
    std::vector<size_t> Stmt; ///< Token indices; a body is its `{` and `}`.
    size_t AfterBody = SIZE_MAX; ///< Position in Stmt after a type's body.
  };

  static bool isSpecifierNoise(const SourceToken &T) {
    static const std::set<std::string> Noise = {
        "inline", "__inline__", "__forceinline__", "__noinline__", "volatile",
        "__restrict__", "__restrict", "register", "mutable", "typename",
        "__host__"};
    return Noise.count(T.Text) > 0;
  }
  static bool isTypeWord(const SourceToken &T) {
    static const std::set<std::string> Words = {"signed", "unsigned", "short",
                                                "long"};
    return Words.count(T.Text) > 0;
  }

  /// Position just past the `<...>` that opens at S[I].
  size_t skipAngles(size_t I, const std::vector<size_t> &S) const {
    int Depth = 0;
    for (; I < S.size(); ++I) {
      if (Tokens[S[I]].is("<"))
        ++Depth;
      else if (Tokens[S[I]].is(">") && --Depth == 0)
        return I + 1;
    }
    return I;
  }

  /// Judges one declaration (token indices S without its `;`) in scope K;
  /// AfterBody is where the declarators after a class or enum body start.
  void judgeDeclaration(const std::vector<size_t> &S, Scope K,
                        size_t AfterBody) {
    size_t B = 0;
    // template <...>, attributes, access specifiers.
    for (bool More = true; More && B < S.size();) {
      More = false;
      const SourceToken &T = Tokens[S[B]];
      if (T.is("template") && B + 1 < S.size() && Tokens[S[B + 1]].is("<")) {
        B = skipAngles(B + 1, S);
        More = true;
      } else if (T.is("[") && B + 1 < S.size() && Tokens[S[B + 1]].is("[")) {
        while (B < S.size() && !Tokens[S[B]].is("]"))
          ++B;
        B += 2;
        More = true;
      } else if ((T.is("public") || T.is("private") || T.is("protected")) &&
                 B + 1 < S.size() && Tokens[S[B + 1]].is(":")) {
        B += 2;
        More = true;
      }
    }
    if (B >= S.size())
      return;
    static const std::set<std::string> NotVariables = {
        "using",  "typedef",  "static_assert", "namespace", "friend",
        "template", "operator", "return",      "__asm__",   "asm"};
    if (NotVariables.count(Tokens[S[B]].Text))
      return;
    bool Static = false, ThreadLocal = false, Extern = false, Immutable = false,
         Shared = false, Device = false, Function = false, Lambda = false,
         Tag = false, SawType = false, ParenDeclarator = false;
    size_t Name = SIZE_MAX, LastStar = SIZE_MAX, LastConst = SIZE_MAX;
    int Angle = 0;
    const size_t End = std::min(S.size(), AfterBody);
    // The specifiers and the first declarator up to its initializer; the
    // other declarators have the same storage.
    for (size_t I = B; I < End; ++I) {
      const SourceToken &T = Tokens[S[I]];
      if (T.is("<")) {
        ++Angle;
        continue;
      }
      if (T.is(">")) {
        --Angle;
        continue;
      }
      if (Angle > 0)
        continue;
      if (T.is("=")) {
        Lambda = I + 1 < S.size() && Tokens[S[I + 1]].is("[");
        break;
      }
      if (T.is("{") || T.is(",") || T.is(":") || T.is("["))
        break;
      if (T.is("(")) {
        const SourceToken *Next = I + 1 < S.size() ? &Tokens[S[I + 1]] : nullptr;
        if (Next && (Next->is("*") || Next->is("&")) && !ParenDeclarator) {
          ParenDeclarator = true; // `(*name)`: a pointer to a function
          continue;
        }
        if (ParenDeclarator)
          break; // its parameter list: still a variable
        if (Next && (Next->Kind == SourceToken::Number || Next->is("-") ||
                     Next->is("{") || Next->is("\"")))
          break; // a direct initializer
        Function = true;
        break;
      }
      if (T.Kind != SourceToken::Identifier) {
        if (T.is("*") || T.is("&"))
          LastStar = I;
        continue;
      }
      if (T.is("static")) {
        Static = true;
      } else if (T.is("thread_local") || T.is("_Thread_local") ||
                 T.is("__thread")) {
        ThreadLocal = true;
      } else if (T.is("extern")) {
        Extern = true;
      } else if (T.is("constexpr") || T.is("consteval") ||
                 T.is("__constant__")) {
        Immutable = true;
      } else if (T.is("__shared__")) {
        Shared = true;
      } else if (T.is("const")) {
        LastConst = I;
      } else if (T.is("__device__")) {
        Device = true;
      } else if (T.is("__global__") || T.is("virtual") || T.is("explicit") ||
                 T.is("operator") || T.is("__launch_bounds__")) {
        Function = true;
        break;
      } else if (T.is("struct") || T.is("class") || T.is("union") ||
                 T.is("enum")) {
        Tag = true;
      } else if (T.is("__align__") || T.is("alignas") ||
                 T.is("__attribute__") || T.is("__declspec")) {
        int Depth = 0; // its arguments are no declarator
        for (++I; I < End; ++I) {
          if (Tokens[S[I]].is("("))
            ++Depth;
          else if (Tokens[S[I]].is(")") && --Depth <= 0)
            break;
        }
      } else if (isTypeWord(T)) {
        SawType = true;
      } else if (!isSpecifierNoise(T)) {
        if (Name != SIZE_MAX)
          SawType = true;
        Name = I;
        if (I + 1 < End && Tokens[S[I + 1]].is("::")) {
          Name = SIZE_MAX; // a qualifier (`int Memo::calls`), not the name
          SawType = true;
          ++I;
        }
      }
    }
    if (Function || Lambda || Shared)
      return;
    std::string Id = Name != SIZE_MAX ? Tokens[S[Name]].Text : "";
    if (AfterBody != SIZE_MAX) {
      // `struct {...} s;` declares s; `struct S {...};` nothing.
      size_t Declarator = SIZE_MAX;
      for (size_t I = AfterBody; I < S.size() && Declarator == SIZE_MAX; ++I)
        if (Tokens[S[I]].Kind == SourceToken::Identifier &&
            !Tokens[S[I]].is("const") && !Tokens[S[I]].is("volatile"))
          Declarator = I;
      if (Declarator == SIZE_MAX || Tokens[S[B]].is("typedef"))
        return;
      Name = Declarator;
      Id = Tokens[S[Declarator]].Text;
      for (size_t I = AfterBody; I < S.size(); ++I)
        if (Tokens[S[I]].is("const"))
          LastConst = I;
        else if (Tokens[S[I]].is("*"))
          LastStar = I;
    } else if (Name == SIZE_MAX) {
      return;
    } else if (Tag) {
      // `struct S;` declares no variable, `struct S s;` one.
      size_t Ids = 0;
      for (size_t I = B; I < End && !Tokens[S[I]].is("="); ++I)
        Ids += Tokens[S[I]].Kind == SourceToken::Identifier &&
               !isSpecifierNoise(Tokens[S[I]]);
      if (Ids < 3)
        return;
    } else if (!SawType) {
      return; // one word: no declaration
    }
    if (LastConst != SIZE_MAX && (LastStar == SIZE_MAX || LastConst > LastStar))
      Immutable = true;
    if (Immutable)
      return;
    if (K == Scope::Function && !Static && !ThreadLocal && !Extern)
      return; // an automatic variable
    if (K == Scope::Class && !Static && !ThreadLocal)
      return; // a member of each object
    std::string What = ThreadLocal              ? "thread_local variable"
                       : K == Scope::Function   ? "function-local static"
                       : K == Scope::Class      ? "static data member"
                       : Extern                 ? "extern variable"
                       : Device                 ? "__device__ variable"
                                                : "namespace-scope variable";
    unsigned Line = Tokens[S[Name != SIZE_MAX ? Name : B]].Line;
    // The keyword rule may have named this line already.
    for (const ScreenFinding &F : Findings)
      if (F.Line == Line && F.Category == Category::PersistentState)
        return;
    add(Line, Category::PersistentState, Severity::Refuse,
        What + (Id.empty() ? "" : " `" + Id + "`"), StateReason);
  }

  /// Lines that hold a preprocessor directive (continued lines included):
  /// their braces are not the program's.
  std::set<unsigned> preprocessorLines() const {
    std::set<unsigned> Lines;
    std::string Blanked = blankCommentsAndLiterals(Code, true);
    unsigned Line = 1;
    bool Continued = false;
    for (size_t Pos = 0; Pos <= Blanked.size(); ++Line) {
      size_t End = Blanked.find('\n', Pos);
      if (End == std::string::npos)
        End = Blanked.size();
      std::string_view L(Blanked.data() + Pos, End - Pos);
      size_t Hash = L.find_first_not_of(" \t");
      bool Directive =
          Continued || (Hash != std::string_view::npos && L[Hash] == '#');
      if (Directive)
        Lines.insert(Line);
      size_t Last = L.find_last_not_of(" \t\r");
      Continued = Directive && Last != std::string_view::npos && L[Last] == '\\';
      Pos = End + 1;
    }
    return Lines;
  }

  /// What a `{` after statement S at namespace or class scope opens; Keep
  /// when the statement goes on after the body.
  Scope classifyBody(const std::vector<size_t> &S, bool &Keep) const {
    Keep = true;
    bool Paren = false, Assign = false, Tag = false, Namespace = false;
    int Angle = 0;
    for (size_t N = 0; N < S.size(); ++N) {
      const SourceToken &T = Tokens[S[N]];
      if (T.is("<"))
        ++Angle;
      else if (T.is(">"))
        --Angle;
      if (Angle > 0)
        continue;
      if (T.is("("))
        Paren = true;
      else if (T.is("="))
        Assign = true;
      else if (T.is("namespace"))
        Namespace = true;
      else if ((T.is("struct") || T.is("class") || T.is("union") ||
                T.is("enum")) &&
               !Paren)
        Tag = true;
      else if (T.is("extern") && N + 3 == S.size() && Tokens[S[N + 1]].is("\""))
        Namespace = true; // extern "C" {
    }
    if (Namespace) {
      Keep = false;
      return Scope::Namespace;
    }
    if (Assign)
      return Scope::Initializer; // `= {...}`, or a lambda's body
    if (Tag && !Paren)
      return Scope::Class;
    if (Paren) {
      Keep = false;
      return Scope::Function;
    }
    return Scope::Initializer; // `int x{5};`
  }

  /// Judges the statement of F at its `;`.
  void judgeStatement(const Frame &F) {
    std::vector<size_t> S = F.Stmt;
    size_t AfterBody = F.AfterBody;
    if (F.Kind == Scope::Function) {
      // What a control statement's head or a label leaves before a
      // declaration is not part of it: `if (c) static int n;`.
      size_t B = 0;
      for (bool More = true; More && B < S.size();) {
        More = false;
        const SourceToken &T = Tokens[S[B]];
        if ((T.is("if") || T.is("for") || T.is("while") || T.is("switch")) &&
            B + 1 < S.size() && Tokens[S[B + 1]].is("(")) {
          int Depth = 0;
          for (++B; B < S.size(); ++B)
            if (Tokens[S[B]].is("("))
              ++Depth;
            else if (Tokens[S[B]].is(")") && --Depth == 0)
              break;
          ++B;
          More = true;
        } else if (T.is("else") || T.is("do")) {
          ++B;
          More = true;
        } else if ((T.is("case") || T.is("default") ||
                    T.Kind == SourceToken::Identifier) &&
                   !T.is("static")) {
          size_t Colon = B;
          while (Colon < S.size() && Colon < B + 4 && !Tokens[S[Colon]].is(":"))
            ++Colon;
          if (Colon < S.size() && Tokens[S[Colon]].is(":") &&
              !(Colon + 1 < S.size() && Tokens[S[Colon + 1]].is(":"))) {
            B = Colon + 1;
            More = true;
          }
        }
      }
      bool Storage = false;
      for (size_t N = B; N < S.size() && !Storage; ++N)
        Storage = Tokens[S[N]].is("static") ||
                  Tokens[S[N]].is("thread_local") ||
                  Tokens[S[N]].is("extern") || Tokens[S[N]].is("__thread");
      if (!Storage)
        return;
      B = std::min(B, S.size());
      S.erase(S.begin(), S.begin() + B);
      if (AfterBody != SIZE_MAX)
        AfterBody = AfterBody > B ? AfterBody - B : 0;
    }
    judgeDeclaration(S, F.Kind, AfterBody);
  }

  void checkModuleState() {
    const std::set<unsigned> Directives = preprocessorLines();
    std::vector<Frame> Stack = {{Scope::Namespace, {}, SIZE_MAX}};
    for (size_t I = 0; I < Tokens.size(); ++I) {
      const SourceToken &T = Tokens[I];
      if (Directives.count(T.Line))
        continue;
      Frame &F = Stack.back();
      if (T.is("{")) {
        Scope Inner = F.Kind;
        bool Keep = true;
        if (F.Kind == Scope::Namespace || F.Kind == Scope::Class) {
          Inner = classifyBody(F.Stmt, Keep);
        } else if (F.Kind == Scope::Function) {
          // A block ends the statement before it; an initializer
          // (`static int n{0};`, `= {...}`, a lambda) goes on after it.
          Keep = false;
          for (size_t N : F.Stmt)
            Keep |= Tokens[N].is("=");
          if (!F.Stmt.empty()) {
            const SourceToken &Last = Tokens[F.Stmt.back()];
            Keep |= Last.Kind == SourceToken::Identifier && !Last.is("else") &&
                    !Last.is("do") && !Last.is("try");
          }
        }
        if (F.Kind != Scope::Initializer) {
          if (Keep) {
            F.Stmt.push_back(I);
          } else {
            F.Stmt.clear();
            F.AfterBody = SIZE_MAX;
          }
        }
        Stack.push_back({Inner, {}, SIZE_MAX});
        continue;
      }
      if (T.is("}")) {
        if (Stack.size() == 1)
          continue;
        const Scope Done = Stack.back().Kind;
        Stack.pop_back();
        Frame &Outer = Stack.back();
        if (Outer.Kind != Scope::Initializer && !Outer.Stmt.empty() &&
            Tokens[Outer.Stmt.back()].is("{")) {
          Outer.Stmt.push_back(I);
          if (Done == Scope::Class && Outer.AfterBody == SIZE_MAX)
            Outer.AfterBody = Outer.Stmt.size();
        }
        continue;
      }
      if (F.Kind == Scope::Initializer)
        continue;
      if (T.is(";")) {
        judgeStatement(F);
        F.Stmt.clear();
        F.AfterBody = SIZE_MAX;
        continue;
      }
      F.Stmt.push_back(I);
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

//===- BodyTransform.cpp - Variants made from the kernel's own body -------===//

#include "BodyTransform.h"

#include "forgestencil/Rewrite/RewritePlanner.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <iterator>
#include <map>

using namespace llvm;

namespace forgestencil {
namespace rewrite {

std::string bodyKernelName(const KernelDefinition &K) {
  return "fs_body_" + K.Name;
}

std::string cappedBodyKernelName(const KernelDefinition &K) {
  return bodyKernelName(K) + "_capped";
}

std::string coarsenedBodyKernelName(const KernelDefinition &K,
                                    const BodyTransform::Coarsening &C) {
  return bodyKernelName(K) + "_c" + char('x' + C.Axis) +
         std::to_string(C.Factor);
}

std::string coarseningLabel(const BodyTransform::Coarsening &C) {
  return std::string("c") + char('x' + C.Axis) + std::to_string(C.Factor);
}

/// The coarsenings bodyCopy makes of \p K for \p T: the chosen one, or
/// 2 and 4 points along each of y and z that the kernel indexes.
std::vector<BodyTransform::Coarsening>
coarseningsOf(const KernelDefinition &K, const BodyTransform &T) {
  std::vector<BodyTransform::Coarsening> Out;
  if (!T.Coarsen)
    return Out;
  if (T.Coarsened) {
    Out.push_back(*T.Coarsened);
    return Out;
  }
  for (unsigned D = 1; D < 3; ++D)
    if (K.Reblock[D].Used && K.Reblock[D].CoarsenProblem.empty() &&
        !K.Reblock[D].Spans.empty())
      for (unsigned F : CoarsenFactors)
        Out.push_back({D, F});
  return Out;
}

bool validRegisterCap(unsigned N) { return N >= 16 && N <= 255; }

/// The threads of the blocks a capped copy may run with: the powers of two
/// block_shapes offers (64 to 1024).
static constexpr unsigned CappedBlockThreads[] = {64, 128, 256, 512, 1024};

static bool cappableThreads(unsigned long long T) {
  for (unsigned C : CappedBlockThreads)
    if (T == C)
      return true;
  return false;
}

/// `__launch_bounds__(T, B)`'s B that leaves a thread of a T-thread block
/// at most N registers (an SM has 65536): the compiler, cicc included,
/// then plans for N, as -maxrregcount=N would; `__maxnreg__` only bounds
/// ptxas, which spills more for the same cap.
static unsigned minBlocksFor(unsigned T, unsigned N) {
  // An SM holds at most 32 blocks (compute capability 9.0).
  unsigned B = 65536u / (T * N);
  return B < 1 ? 1 : B > 32 ? 32 : B;
}

static unsigned long long blockThreads(const std::array<unsigned, 3> &B) {
  return 1ull * B[0] * B[1] * B[2];
}

/// "__launch_bounds__(T, B)" of a copy with a chosen shape and cap.
static std::string launchBounds(const BodyTransform &T) {
  const unsigned Threads = unsigned(blockThreads(*T.Block));
  return "__launch_bounds__(" + std::to_string(Threads) + ", " +
         std::to_string(minBlocksFor(Threads, *T.MaxRegisters)) + ")";
}

std::optional<std::array<unsigned, 3>> parseBlockShape(StringRef S) {
  SmallVector<StringRef, 3> Parts;
  S.split(Parts, 'x');
  if (Parts.size() < 2 || Parts.size() > 3)
    return std::nullopt;
  std::array<unsigned, 3> B = {1, 1, 1};
  for (size_t I = 0; I < Parts.size(); ++I)
    if (Parts[I].getAsInteger(10, B[I]) || B[I] == 0 || B[I] > 1024)
      return std::nullopt;
  if (uint64_t(B[0]) * B[1] * B[2] > 1024)
    return std::nullopt;
  return B;
}

namespace {
/// An edit of a kernel's text: Length characters at an offset (the key of
/// an EditMap) replaced by Text.
struct Edit {
  unsigned Length;
  std::string Text;
};
using EditMap = std::multimap<unsigned, Edit>;
} // namespace

/// Applies \p E to \p Text (from the end, so that earlier offsets hold),
/// each after the kernel's name and none overlapping another; \p Kept, an
/// offset no edit may straddle, follows the edits made before it. False
/// where an edit falls outside the definition.
static bool applyEdits(std::string &Text, const EditMap &E, unsigned NameOffset,
                       unsigned *Kept = nullptr) {
  unsigned Limit = Text.size();
  for (auto It = E.rbegin(); It != E.rend(); ++It) {
    const unsigned At = It->first, Length = It->second.Length;
    if (At <= NameOffset || At + Length > Limit ||
        (Kept && At < *Kept && At + Length > *Kept))
      return false;
    Text.replace(At, Length, It->second.Text);
    if (Length)
      Limit = At;
    if (Kept && At < *Kept)
      *Kept += It->second.Text.size() - Length;
  }
  return true;
}

/// The copy of \p K in which each thread computes \p Co.Factor
/// consecutive points along \p Co.Axis: every global index along the axis,
/// `blockIdx.d * B + threadIdx.d`, becomes `(blockIdx.d * blockDim.d +
/// threadIdx.d) * F + fs_ci`, and the body runs once for each fs_ci below
/// fs_points, the original launch's threads along d (a parameter the copy
/// adds), as a lambda, so that a `return` ends one point's work as it ended
/// the thread's. Launched with ceil(gridDim.d / F) blocks it computes each
/// of the original's points once. \p ParamEdits (the pointer qualifiers)
/// apply too.
static bool coarsenedText(const KernelDefinition &K, const EditMap &ParamEdits,
                          const BodyTransform::Coarsening &Co,
                          std::string &Out, std::string &Why) {
  const std::string Ax(1, char('x' + Co.Axis));
  const std::string F = std::to_string(Co.Factor) + "u";
  EditMap E = ParamEdits;
  for (const auto &S : K.Reblock[Co.Axis].Spans)
    E.insert({S.Offset,
              {S.Length, "static_cast<" + S.Type + ">((blockIdx." + Ax +
                             " * blockDim." + Ax + " + threadIdx." + Ax +
                             ") * " + F + " + fs_ci)"}});
  std::string Text = K.Text;
  unsigned Open = *K.BodyOpenInText;
  if (!applyEdits(Text, E, K.NameOffsetInText, &Open)) {
    Why = "an edit of the coarsened copy falls outside the kernel's "
          "definition";
    return false;
  }
  std::string Body = Text.substr(Open);
  Text.resize(Open);
  // The parameter list ends right before the body (but for blanks).
  size_t Close = Text.find_last_not_of(" \t\r\n");
  if (Close == std::string::npos || Text[Close] != ')') {
    Why = "it cannot be coarsened: something stands between its parameter "
          "list and its body";
    return false;
  }
  size_t Last = Text.find_last_not_of(" \t\r\n", Close - 1);
  Text.insert(Close, std::string(Last != std::string::npos &&
                                         Text[Last] == '(' ? "" : ", ") +
                         "unsigned fs_points");
  Text.replace(K.NameOffsetInText, K.Name.size(),
               coarsenedBodyKernelName(K, Co));
  Out = "// The same copy with " + std::to_string(Co.Factor) +
        " consecutive points along " + Ax + " a thread, one after the\n"
        "// other, of the fs_points the original launch's threads cover "
        "along " + Ax + "\n// (launched with gridDim." + Ax + " / " +
        std::to_string(Co.Factor) + " blocks, rounded up).\n" + Text +
        "{\n#pragma unroll\n  for (unsigned fs_ci = 0; fs_ci < " + F +
        "; ++fs_ci)\n    if ((blockIdx." + Ax + " * blockDim." + Ax +
        " + threadIdx." + Ax + ") * " + F + " + fs_ci < fs_points)\n"
        "      [&]() " + Body + "();\n}";
  return true;
}

std::optional<Coarsening> parseCoarsening(StringRef S) {
  if (S.size() < 2 || (S[0] != 'y' && S[0] != 'z'))
    return std::nullopt;
  unsigned N = 0;
  if (S.drop_front().getAsInteger(10, N) || N < 2 || N > 16)
    return std::nullopt;
  return Coarsening{S[0] == 'y' ? 1u : 2u, N};
}

BodyCopy bodyCopy(const KernelDefinition &K, const BodyTransform &T) {
  BodyCopy C;
  auto Fail = [&](std::string Why) {
    C.Error = std::move(Why);
    return C;
  };
  if (!K.Problem.empty())
    return Fail(K.Problem);
  // Verification restores the memory the pointers reach; nothing else may
  // be reachable, for either transform.
  if (!K.RestrictProblem.empty())
    return Fail(K.RestrictProblem);
  if (K.PointerParams.size() > MaxCheckedPointers)
    return Fail("it has more than " + std::to_string(MaxCheckedPointers) +
                " pointer parameters");
  if (T.Reblock && !T.KeepShape && !K.ReblockProblem.empty())
    return Fail("its block shape cannot change: " + K.ReblockProblem +
                (T.RegisterCap ? " (--register-cap without --reblock caps "
                                 "its registers at the original's shape)"
                               : ""));
  if (T.KeepShape && !T.RegisterCap)
    return Fail("a copy that keeps the original's block shape is made only "
                "with a register cap");
  if (T.RegisterCap) {
    if (!T.Reblock)
      return Fail("a register cap is made only with a re-blocked copy or "
                  "one that keeps the original's shape");
    if (K.IsTemplate)
      return Fail("a register cap on a template kernel is not made yet");
    if (K.HasRegisterLimit)
      return Fail("its definition already limits its registers "
                  "(__launch_bounds__ or __maxnreg__)");
    if (StringRef(K.Text).ltrim().starts_with("extern"))
      return Fail("a register cap on a kernel with a linkage specification "
                  "is not made yet");
    if (T.MaxRegisters && !validRegisterCap(*T.MaxRegisters))
      return Fail("a register cap must be 16 to 255");
    if (T.MaxRegisters && (!T.Block || !cappableThreads(blockThreads(*T.Block))))
      return Fail(T.KeepShape
                      ? "a chosen register cap without re-blocking needs the "
                        "block shape it was timed at (--reblock-times), of "
                        "64, 128, 256, 512 or 1024 threads"
                      : "a register cap needs a chosen block shape (K=XxY) "
                        "of 64, 128, 256, 512 or 1024 threads");
  }

  if (T.Coarsen) {
    if (!T.Reblock || T.KeepShape)
      return Fail("a coarsened copy is made only with --reblock");
    if (T.RegisterCap)
      return Fail("a coarsened copy with a register cap is not made yet");
    if (!K.BodyOpenInText || K.Text.empty() || K.Text.back() != '}' ||
        *K.BodyOpenInText <= K.NameOffsetInText)
      return Fail("it cannot be coarsened: its body is not spelled in its "
                  "definition");
    if (T.Coarsened) {
      if (T.Coarsened->Axis < 1 || T.Coarsened->Axis > 2 ||
          T.Coarsened->Factor < 2 || T.Coarsened->Factor > 16)
        return Fail("a coarsening is along y or z, by 2 to 16 points");
      const KernelDefinition::ReblockAxis &A = K.Reblock[T.Coarsened->Axis];
      const std::string Ax(1, char('x' + T.Coarsened->Axis));
      if (!A.Used)
        return Fail("it reads no thread index along " + Ax +
                    ", so it cannot be coarsened there");
      if (!A.CoarsenProblem.empty())
        return Fail("it cannot be coarsened along " + Ax + ": " +
                    A.CoarsenProblem);
    } else if (coarseningsOf(K, T).empty()) {
      std::string Why = "it indexes no thread along y or z";
      for (unsigned D = 1; D < 3; ++D)
        if (!K.Reblock[D].CoarsenProblem.empty())
          Why = K.Reblock[D].CoarsenProblem;
      return Fail("it cannot be coarsened: " + Why);
    }
  }

  // Edits by offset, applied from the end so earlier offsets hold.
  EditMap Edits;
  if (T.Restrict) {
    for (const KernelDefinition::PointerParam &PP : K.PointerParams) {
      const std::string &Name = K.ParamNames[PP.Index];
      if (PP.RestrictAt && !PP.AlreadyRestrict) {
        // `float *p` becomes `float * __restrict__ p`, `float* p` becomes
        // `float* __restrict__ p`.
        char Next =
            *PP.RestrictAt < K.Text.size() ? K.Text[*PP.RestrictAt] : ' ';
        bool Glued = isAlnum(Next) || Next == '_';
        Edits.insert(
            {*PP.RestrictAt, {0, Glued ? " __restrict__ " : " __restrict__"}});
        C.Restricted.push_back(Name);
      }
      if (PP.ConstAt) {
        Edits.insert({*PP.ConstAt, {0, "const "}});
        C.MadeConst.push_back(Name);
      }
    }
    if (Edits.empty() && !T.Reblock)
      return Fail("none of its pointer parameters can be qualified further");
  }
  // Coarsened copies take the pointer qualifiers, not the re-block edits:
  // they replace each global index whole.
  const EditMap ParamEdits = Edits;
  // A copy that keeps the shape keeps every thread-index expression.
  if (T.Reblock && !T.KeepShape) {
    for (unsigned D = 0; D < 3; ++D) {
      const KernelDefinition::ReblockAxis &A = K.Reblock[D];
      if (!A.Used)
        continue;
      C.ReblockAxes |= 1u << D;
      for (const auto &[Offset, Length] : A.Edits)
        Edits.insert(
            {Offset, {Length, std::string("blockDim.") + char('x' + D)}});
    }
    if (T.Block)
      for (unsigned D = 0; D < 3; ++D)
        if (!(C.ReblockAxes & (1u << D)) && (*T.Block)[D] != 1)
          return Fail(std::string("it reads no thread index along ") +
                      char('x' + D) + ", so the block shape cannot change "
                      "there");
  }
  std::string Text = K.Text;
  if (!applyEdits(Text, Edits, K.NameOffsetInText))
    return Fail("an edit falls outside the kernel's definition");
  if (!T.RegisterCap) {
    Text.replace(K.NameOffsetInText, K.Name.size(), bodyKernelName(K));
    C.Text = std::move(Text);
    for (const BodyTransform::Coarsening &Co : coarseningsOf(K, T)) {
      std::string Coarse, Why;
      if (!coarsenedText(K, ParamEdits, Co, Coarse, Why))
        return Fail(Why);
      C.Text += "\n\n" + Coarse;
    }
    return C;
  }
  if (T.MaxRegisters) {
    Text.replace(K.NameOffsetInText, K.Name.size(),
                 launchBounds(T) + " " + bodyKernelName(K));
    C.Text = std::move(Text);
    return C;
  }
  // Candidates: the uncapped copy, and the same copy as a template on its
  // launch bounds (one instantiation per block size and cap).
  std::string Capped = Text;
  Text.replace(K.NameOffsetInText, K.Name.size(), bodyKernelName(K));
  Capped.replace(K.NameOffsetInText, K.Name.size(),
                 "__launch_bounds__(FS_MAXT, FS_MINB) " +
                     cappedBodyKernelName(K));
  C.Text = Text + "\n\n// The same copy for blocks of at most FS_MAXT "
                  "threads, FS_MINB of them on an SM\n// at once: at most "
                  "65536 / (FS_MAXT * FS_MINB) registers a thread.\n"
                  "template <int FS_MAXT, int FS_MINB>\n" + Capped;
  return C;
}

static std::string shapeText(const std::array<unsigned, 3> &B) {
  return std::to_string(B[0]) + "x" + std::to_string(B[1]) + "x" +
         std::to_string(B[2]);
}

std::string describeBodyCopy(const BodyTransform &T, const BodyCopy &C) {
  std::vector<std::string> Parts;
  if (T.Restrict) {
    std::string R = "`__restrict__` on " + (C.Restricted.empty()
                                                ? std::string("no parameter")
                                                : join(C.Restricted, ", "));
    if (!C.MadeConst.empty())
      R += ", `const` on what " + join(C.MadeConst, ", ") +
           " point(s) to (only read)";
    Parts.push_back(R);
  }
  if (T.KeepShape) {
    Parts.push_back(T.Block ? "the original's block shape, " +
                                  shapeText(*T.Block) + " (launches of "
                                  "another shape run the original)"
                            : "the original's block shape");
  } else if (T.Reblock) {
    std::string Axes;
    for (unsigned D = 0; D < 3; ++D)
      if (C.ReblockAxes & (1u << D))
        Axes += char('x' + D);
    Parts.push_back(
        T.Block ? "block shape " + shapeText(*T.Block) +
                      " (axes " + Axes + " re-blocked)"
                : "the original's block shape, other shapes along " + Axes +
                      " timed under USE_OURS=verify");
  }
  if (T.RegisterCap) {
    std::string Caps;
    for (unsigned N : RegisterCapCandidates)
      Caps += (Caps.empty() ? "" : ", ") + std::to_string(N);
    // Described only for a copy bodyCopy made: a chosen cap has its shape.
    Parts.push_back(T.MaxRegisters
                        ? "at most " + std::to_string(*T.MaxRegisters) +
                              " registers a thread (`" + launchBounds(T) + "`)"
                        : (T.KeepShape ? "with at most " + Caps
                                       : "uncapped and with at most " + Caps) +
                              " registers a thread, each timed under "
                              "USE_OURS=verify");
  }
  return join(Parts, "; ");
}

/// The launcher's call of run_ours for a re-blocked copy: \p Candidate runs
/// candidate fs_i, \p Tail gives run_ours its count and names.
static std::string runOursCall(const KernelDefinition &K, StringRef N,
                               StringRef ReferenceLaunch, StringRef Candidate,
                               StringRef Tail) {
  std::string S;
  S += "        forgestencil::run_ours(\n";
  S += "            \"" + K.QualifiedName + "\", fs_stream, fs_ptrs, " +
       N.str() + ",\n";
  S += "            [&] { " + ReferenceLaunch.str() + " },\n";
  S += "            [&](int fs_i) {\n";
  S += Candidate.str();
  S += "            },\n";
  S += "            " + Tail.str() + ");\n";
  S += "        break;\n      }\n    }\n";
  return S;
}

/// The launch of the coarsened copy \p Co at the launch's own block shape,
/// with gridDim.d / F blocks rounded up along its axis and the original's
/// threads along it as fs_points; one line, ending in a newline.
static std::string coarsenedLaunch(const KernelDefinition &K,
                                   const BodyTransform::Coarsening &Co,
                                   StringRef Args) {
  const std::string Ax(1, char('x' + Co.Axis));
  const std::string F = std::to_string(Co.Factor) + "u";
  std::string Grid = "dim3(fs_grid.x, fs_grid.y, fs_grid.z)";
  Grid.replace(Grid.find("fs_grid." + Ax), 9,
               "(fs_grid." + Ax + " + " + F + " - 1) / " + F);
  return coarsenedBodyKernelName(K, Co) +
         (K.IsTemplate ? "<" + K.TemplateForwardArgs + ">" : "") + "<<<" +
         Grid + ", fs_block, fs_shmem, fs_stream>>>(\n                    " +
         Args.str() + (Args.empty() ? "" : ", ") + "fs_grid." + Ax +
         " * fs_block." + Ax + ");\n";
}

/// The re-blocked copy's candidates with coarsened ones after them: the
/// shapes of fs_shapes, then (under USE_OURS=verify) each coarsening at the
/// launch's own block shape, labelled "WxHxD/cyN".
static std::string coarsenCandidates(const KernelDefinition &K,
                                     const BodyTransform &T, StringRef Copy,
                                     StringRef Args, StringRef N,
                                     StringRef ReferenceLaunch) {
  const std::vector<BodyTransform::Coarsening> Cos = coarseningsOf(K, T);
  std::string Table, Labels, Launches;
  for (size_t J = 0; J < Cos.size(); ++J) {
    const std::string F = std::to_string(Cos[J].Factor) + "u";
    Table += (J ? ", " : "") + std::string("{") +
             std::to_string(Cos[J].Axis) + ", " + F + "}";
    Labels += (J ? ", " : "") + ("\"" + coarseningLabel(Cos[J]) + "\"");
    Launches += "              case " + std::to_string(J) +
                ":\n                " + coarsenedLaunch(K, Cos[J], Args) +
                "                break;\n";
  }
  std::string S;
  S += "      // Candidates: the shapes (k >= 0), then, timed under "
       "USE_OURS=verify, each\n      // coarsening (k = -1 - j): "
       "fs_coarse[j] = {axis, points a thread}.\n";
  S += "      static const unsigned fs_coarse[][2] = {" + Table + "};\n";
  S += "      static const char *const fs_coarse_labels[] = {" + Labels +
       "};\n";
  S += R"(      std::vector<int> fs_cands;
      std::vector<std::string> fs_labels;
      for (int fs_s = 0; fs_s < fs_shapes.count(); ++fs_s) {
        fs_cands.push_back(fs_s);
        fs_labels.push_back(fs_shapes.names()[fs_s]);
      }
      if (forgestencil::checks_detail::verifying())
        for (int fs_j = 0; fs_j < int(sizeof fs_coarse / sizeof fs_coarse[0]); ++fs_j) {
          fs_cands.push_back(-1 - fs_j);
          fs_labels.push_back(std::to_string(fs_block.x) + "x" + std::to_string(fs_block.y) +
                              "x" + std::to_string(fs_block.z) + "/" + fs_coarse_labels[fs_j]);
        }
      if (!fs_cands.empty()) {
        std::vector<const char *> fs_names;
        for (const std::string &fs_l : fs_labels)
          fs_names.push_back(fs_l.c_str());
)";
  std::string Run = "              const int fs_k = fs_cands[fs_i];\n"
                    "              if (fs_k >= 0) {\n                " +
                    Copy.str() +
                    "<<<fs_shapes.grid(fs_k), fs_shapes.block(fs_k), "
                    "fs_shmem,\n                    fs_stream>>>(" +
                    Args.str() + ");\n                return;\n              }\n"
                    "              switch (-1 - fs_k) {\n" + Launches +
                    "              }\n";
  std::string Call = runOursCall(K, N, ReferenceLaunch, Run,
                                 "int(fs_cands.size()), fs_names.data()");
  // runOursCall closes the shapes' `if` and the allocation check's; here
  // the list's `if` comes between them.
  S += Call;
  return S;
}

std::string bodyCase(const KernelDefinition &K, const BodyTransform &T,
                     const BodyCopy &C, int ComputeCapability,
                     StringRef ReferenceLaunch) {
  std::vector<std::string> Ptrs;
  for (const KernelDefinition::PointerParam &PP : K.PointerParams)
    Ptrs.push_back("(const void *)" + K.ParamNames[PP.Index]);
  std::string Copy = bodyKernelName(K);
  if (K.IsTemplate)
    Copy += "<" + K.TemplateForwardArgs + ">";
  std::string Args = join(K.ParamNames, ", ");
  std::string N = std::to_string(Ptrs.size());
  // What the original's launch must have been for the copy to match it.
  std::string Cond = "forgestencil::distinct_allocations(fs_ptrs, " + N + ")";
  if (T.Reblock && !T.KeepShape)
    for (unsigned D = 0; D < 3; ++D)
      if (K.Reblock[D].Block)
        Cond += " &&\n        fs_block." + std::string(1, 'x' + D) +
                " == " + std::to_string(*K.Reblock[D].Block) + "u";
  std::string S;
  S += "  case " + std::to_string(ComputeCapability) + ": {\n";
  S += "    // The copy computes what the original does only when no two "
       "pointer arguments\n    // reach the same memory: they must point "
       "into distinct allocations.\n";
  S += "    const void *const fs_ptrs[] = {" + join(Ptrs, ", ") + "};\n";
  S += "    if (" + Cond + ") {\n";
  // The call of run_ours for a copy without candidates: \p Ours, the
  // lambda's body, runs it.
  auto RunOne = [&](const std::string &Ours) {
    S += "      forgestencil::run_ours(\n";
    S += "          \"" + K.QualifiedName + "\", fs_stream, fs_ptrs, " + N +
         ",\n";
    S += "          [&] { " + ReferenceLaunch.str() + " },\n";
    S += "          [&](int) {" + Ours + "});\n";
    S += "      break;\n    }\n";
  };
  if (!T.Reblock) {
    RunOne(" " + Copy + "<<<fs_grid, fs_block, fs_shmem, fs_stream>>>(" +
           Args + "); ");
  } else if (T.Coarsen && T.Coarsened) {
    // The chosen coarsening runs at the launch's own block shape.
    RunOne("\n            " + coarsenedLaunch(K, *T.Coarsened, Args) +
           "          ");
  } else {
    std::string Chosen = "nullptr";
    if (T.Block) {
      S += "      static const unsigned fs_chosen[3] = {" +
           std::to_string((*T.Block)[0]) + ", " +
           std::to_string((*T.Block)[1]) + ", " +
           std::to_string((*T.Block)[2]) + "};\n";
      Chosen = "fs_chosen";
    }
    S += "      // The shapes that cover the same thread indices (axes mask " +
         std::to_string(C.ReblockAxes) + ") and can launch.\n";
    S += "      static const int fs_max_threads =\n"
         "          forgestencil::max_threads_per_block(" + Copy + ");\n";
    S += "      const forgestencil::block_shapes fs_shapes(fs_grid, fs_block, " +
         std::to_string(C.ReblockAxes) + ", " + Chosen +
         ",\n                                                 "
         "fs_max_threads);\n";
    if (T.KeepShape && !T.MaxRegisters) {
      // Its only candidates are the capped copies at the original's shape:
      // outside a verify run, and where the launch's block is not a power
      // of two of 64 to 1024 threads, the original runs.
      S += "      const unsigned fs_bt = fs_block.x * fs_block.y * "
           "fs_block.z;\n";
      S += "      if (fs_shapes.count() > 0 && "
           "forgestencil::checks_detail::verifying() &&\n          fs_bt >= "
           "64 && fs_bt <= 1024 && (fs_bt & (fs_bt - 1)) == 0) {\n";
    } else if (!T.Coarsen) {
      S += "      if (fs_shapes.count() > 0) {\n";
    } // (coarsenCandidates opens its own list's `if`)
    if (T.RegisterCap && !T.MaxRegisters) {
      // Every shape uncapped, and each shape of 64 to 1024 threads (a power
      // of two) with each cap: "WxHxD" and "WxHxD/rN".
      std::string Caps = "0";
      for (unsigned R : RegisterCapCandidates)
        Caps += ", " + std::to_string(R);
      const std::string NCaps =
          std::to_string(std::size(RegisterCapCandidates) + 1);
      S += "        // Candidate k is shape k / fs_ncaps with cap fs_caps[k % "
           "fs_ncaps] (0: uncapped).\n";
      S += "        static const int fs_caps[] = {" + Caps + "};\n";
      S += "        const int fs_ncaps = " + NCaps + ";\n";
      // A copy that keeps the shape is timed capped only: uncapped, it is
      // the original.
      S += std::string("        const bool fs_uncapped = ") +
           (T.KeepShape ? "false" : "true") + ";\n";
      S += R"(        std::vector<int> fs_cands;
        std::vector<std::string> fs_labels;
        std::vector<const char *> fs_names;
        if (forgestencil::checks_detail::verifying()) {
          for (int fs_s = 0; fs_s < fs_shapes.count(); ++fs_s) {
            const dim3 fs_sb = fs_shapes.block(fs_s);
            const unsigned fs_t = fs_sb.x * fs_sb.y * fs_sb.z;
            const bool fs_cappable = fs_t >= 64 && fs_t <= 1024 && (fs_t & (fs_t - 1)) == 0;
            for (int fs_c = 0; fs_c < fs_ncaps; ++fs_c)
              if (fs_caps[fs_c] == 0 ? fs_uncapped : fs_cappable) {
                fs_cands.push_back(fs_s * fs_ncaps + fs_c);
                fs_labels.push_back(std::string(fs_shapes.names()[fs_s]) +
                                    (fs_caps[fs_c] ? "/r" + std::to_string(fs_caps[fs_c]) : ""));
              }
          }
          for (const std::string &fs_l : fs_labels)
            fs_names.push_back(fs_l.c_str());
        }
)";
      std::string Run = R"(              const int fs_k = fs_cands.empty() ? 0 : fs_cands[fs_i];
              const dim3 fs_g = fs_shapes.grid(fs_k / fs_ncaps),
                         fs_b = fs_shapes.block(fs_k / fs_ncaps);
              const int fs_cap = fs_caps[fs_k % fs_ncaps];
              const unsigned fs_t = fs_b.x * fs_b.y * fs_b.z;
              switch (fs_cap ? fs_cap * 2048 + int(fs_t) : 0) {
)";
      for (unsigned R : RegisterCapCandidates)
        for (unsigned Threads : CappedBlockThreads)
          Run += "              case " + std::to_string(R) + " * 2048 + " +
                 std::to_string(Threads) + ":\n                " +
                 cappedBodyKernelName(K) + "<" + std::to_string(Threads) +
                 ", " + std::to_string(minBlocksFor(Threads, R)) +
                 "><<<fs_g, fs_b, fs_shmem, fs_stream>>>(" + Args +
                 ");\n                break;\n";
      Run += "              default:\n                " + Copy +
             "<<<fs_g, fs_b, fs_shmem, fs_stream>>>(" + Args +
             ");\n                break;\n";
      Run += "              }\n";
      S += runOursCall(K, N, ReferenceLaunch, Run,
                       "fs_cands.empty() ? 1 : int(fs_cands.size()),\n"
                       "            fs_names.empty() ? nullptr : "
                       "fs_names.data()");
    } else if (T.Coarsen) {
      S += coarsenCandidates(K, T, Copy, Args, N, ReferenceLaunch);
    } else {
      S += runOursCall(K, N, ReferenceLaunch,
                       "              " + Copy +
                           "<<<fs_shapes.grid(fs_i), fs_shapes.block(fs_i), "
                           "fs_shmem, fs_stream>>>(\n                  " +
                           Args + ");\n",
                       "fs_shapes.count(), fs_shapes.names()");
    }
  }
  S += "    " + ReferenceLaunch.str() + "\n";
  S += "    break;\n  }\n";
  return S;
}

} // namespace rewrite
} // namespace forgestencil

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

  // Edits by offset, applied from the end so earlier offsets hold.
  struct Edit {
    unsigned Length;
    std::string Text;
  };
  std::multimap<unsigned, Edit> Edits;
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
  unsigned Limit = Text.size();
  for (auto It = Edits.rbegin(); It != Edits.rend(); ++It) {
    if (It->first <= K.NameOffsetInText ||
        It->first + It->second.Length > Limit)
      return Fail("an edit falls outside the kernel's definition");
    Text.replace(It->first, It->second.Length, It->second.Text);
    if (It->second.Length)
      Limit = It->first;
  }
  if (!T.RegisterCap) {
    Text.replace(K.NameOffsetInText, K.Name.size(), bodyKernelName(K));
    C.Text = std::move(Text);
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
  if (!T.Reblock) {
    S += "      forgestencil::run_ours(\n";
    S += "          \"" + K.QualifiedName + "\", fs_stream, fs_ptrs, " + N +
         ",\n";
    S += "          [&] { " + ReferenceLaunch.str() + " },\n";
    S += "          [&](int) { " + Copy +
         "<<<fs_grid, fs_block, fs_shmem, fs_stream>>>(" + Args + "); });\n";
    S += "      break;\n    }\n";
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
    } else {
      S += "      if (fs_shapes.count() > 0) {\n";
    }
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

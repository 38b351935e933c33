//===- RewriteFacts.h - What rewriting needs to know about an app -*- C++ -*-===//
///
/// \file
/// The facts the rewriter needs from the AST, gathered from the host-side
/// parse of every translation unit: each kernel definition with the exact
/// text to copy, each `<<<>>>` launch with the statement that holds it, and
/// the declarations a launch sees when the kernel's definition is elsewhere.
/// Facts are keyed by file and offset, so a header parsed through several
/// translation units contributes each fact once.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_REWRITE_REWRITEFACTS_H
#define FORGESTENCIL_REWRITE_REWRITEFACTS_H

#include "forgestencil/Driver/FrontendRunner.h"

#include "clang/AST/ASTConsumer.h"

#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <string>
#include <utility>
#include <vector>

namespace forgestencil {
namespace rewrite {

/// A place in a file: canonical absolute path and byte offset.
struct FileOffset {
  std::string File;
  unsigned Offset = 0;
  bool operator<(const FileOffset &O) const {
    return std::tie(File, Offset) < std::tie(O.File, O.Offset);
  }
  bool operator==(const FileOffset &O) const {
    return File == O.File && Offset == O.Offset;
  }
};

/// A __global__ function definition, with what it takes to copy it.
struct KernelDefinition {
  std::string Name;          ///< Unqualified name.
  std::string QualifiedName; ///< "ns::k".
  FileOffset NamePos;        ///< Where the kernel's name is; the key.
  unsigned Line = 0;
  /// Where the names of its declarations without a body are (a header
  /// that the launching units include): what pairs a launch in another
  /// unit with this definition when several kernels share its name.
  std::vector<FileOffset> DeclarationPos;
  /// [Begin, End) of the whole definition, from `template`/`__global__` to
  /// the closing brace.
  unsigned Begin = 0, End = 0;
  /// The definition's text with the name replaced by a placeholder
  /// (`NameOffsetInText`), so a renamed copy can be made.
  std::string Text;
  unsigned NameOffsetInText = 0;
  bool IsStatic = false;
  bool IsTemplate = false;
  /// The definition already bounds its registers: `__launch_bounds__` or
  /// `__maxnreg__` (a register-capped body copy would conflict).
  bool HasRegisterLimit = false;
  /// "template <typename T, int R>" as written, for the launcher.
  std::string TemplateHeader;
  /// "T, R" (packs as "Ts..."): the arguments that forward the launcher's
  /// template parameters to the copy.
  std::string TemplateForwardArgs;
  /// The launcher's parameters: the definition's own text where the
  /// parameter has a name, else its type printed around a made-up name.
  std::vector<std::string> LauncherParams;
  std::vector<std::string> ParamNames;
  /// For a template: the template arguments of every instantiation the
  /// parsed translation units use ("double", "float, 4"), printed as the
  /// analysis prints them in "k<float, 4>", sorted and unique.
  std::vector<std::string> Instantiations;
  /// Why the definition cannot be copied; empty when it can.
  std::string Problem;

  /// A pointer parameter, as the restrict body transform sees it
  /// (BodyTransform.h).
  struct PointerParam {
    unsigned Index = 0; ///< Among the kernel's parameters.
    /// Offset in Text right after the parameter's outermost `*`, where
    /// `__restrict__` goes; unset when the `*` is not spelled there (a
    /// typedef, a macro, an array parameter).
    std::optional<unsigned> RestrictAt;
    /// Offset in Text where `const ` makes the pointee const: set only when
    /// the pointee is not const, the pointer has one level, and every use
    /// of the parameter in the kernel reads an element through it.
    std::optional<unsigned> ConstAt;
    bool AlreadyRestrict = false;
  };
  /// Every parameter of pointer type, in order.
  std::vector<PointerParam> PointerParams;
  /// Why the kernel's pointer parameters may not be made `__restrict__`
  /// even when they point into distinct allocations (a parameter that may
  /// carry other pointers, a `__device__` variable the kernel reads, a
  /// callee whose body is not here); empty when they may.
  std::string RestrictProblem;

  /// How the kernel uses one axis of its thread index, for the re-block
  /// transform: only as `blockIdx.d * B + threadIdx.d` (Used), where B is
  /// blockDim.d or a constant (its value, and where it is spelled in Text,
  /// to become `blockDim.d`). Each thread's work then depends on its global
  /// index alone, so any block size that divides gridDim.d * blockDim.d
  /// covers the same indices.
  struct ReblockAxis {
    bool Used = false;
    std::optional<long long> Block;
    /// (offset in Text, length) of each spelling of the constant B.
    std::vector<std::pair<unsigned, unsigned>> Edits;
    /// Each whole `blockIdx.d * B + threadIdx.d` (the thread's global
    /// index along d), for the coarsening transform: where it is spelled
    /// in Text and its type as written in the copy ("unsigned int").
    struct IndexSpan {
      unsigned Offset = 0, Length = 0;
      std::string Type;
    };
    std::vector<IndexSpan> Spans;
    /// Why the axis cannot be coarsened although it can be re-blocked (a
    /// global index spelled by a macro); empty when it can.
    std::string CoarsenProblem;
  };
  ReblockAxis Reblock[3];
  /// Where the body's opening brace is in Text, when the body is spelled
  /// there (not by a macro).
  std::optional<unsigned> BodyOpenInText;
  /// Why the kernel's block shape may not change (a __shared__ array,
  /// __syncthreads, a warp function, a thread index used another way);
  /// empty when it may.
  std::string ReblockProblem;
};

/// Where the launch statement sits, which decides how the guard is braced.
enum class StatementContext {
  /// In a `{}` block, or after a case/default/label.
  InBlock,
  /// The unbraced body of an if/else/for/while/do.
  UnbracedBody,
  /// Not a statement of its own (part of a larger expression).
  NotAStatement,
};

/// One `kernel<<<grid, block, shmem, stream>>>(args);` statement.
struct LaunchStatement {
  FileOffset Pos;            ///< Start of the launch expression; the key.
  unsigned Line = 0, Column = 0;
  std::string Kernel;        ///< Qualified name of the launched kernel.
  /// The kernel's definition when the launching TU has it.
  std::optional<FileOffset> KernelDefinitionPos;
  /// Otherwise where the name of the kernel's first declaration is.
  std::optional<FileOffset> KernelDeclarationPos;
  /// `::ns::` as written before the kernel's name, and `<float, 4>` when
  /// template arguments are written.
  std::string Qualifier, ExplicitTemplateArgs;
  /// The template arguments of the instantiation launched ("float, 4"),
  /// when the launch names one; empty for a plain kernel and for a launch
  /// in a template, which may launch another instantiation each time the
  /// enclosing template is instantiated.
  std::string TemplateArgs;
  /// Exact source text of each part; empty when absent.
  std::string Grid, Block, SharedMem, Stream;
  std::vector<std::string> Args;
  /// One past the statement's `;`.
  unsigned StatementEnd = 0;
  StatementContext Context = StatementContext::InBlock;
  /// For an unbraced body: one past the token that precedes the body (the
  /// `)` of the condition, `else` or `do`).
  unsigned ControlTokenEnd = 0;
  /// The launch already sits in the else branch of a
  /// `forgestencil::use_ours()` guard.
  bool AlreadyGuarded = false;
  /// The launching TU does not see the kernel's definition before the
  /// launch, so the launcher must be declared after this declaration.
  std::optional<FileOffset> DeclarationNeeded;
  /// Why the launch cannot be rewritten; empty when it can.
  std::string Problem;

  /// A kernel the pointer of a launch through a pointer may hold.
  struct Target {
    std::string Kernel; ///< Qualified name.
    std::optional<FileOffset> KernelDefinitionPos, KernelDeclarationPos;
    /// As written where the enclosing function stores it in the pointer:
    /// `ns::`, `<REAL, HALO>`, and the whole name (`ns::k<REAL, HALO>`).
    std::string Qualifier, ExplicitTemplateArgs, Spelling;
    std::optional<FileOffset> DeclarationNeeded;
    std::string Problem; ///< Why this kernel gets no branch.
  };
  /// For `p<<<grid, block>>>(args);` where p is a pointer the enclosing
  /// function sets to kernels (`auto p = k1; ... p = k2;`): p as written
  /// and those kernels. Each kernel with a launcher gets a branch that
  /// compares p with its address; any other value runs the launch as it is.
  std::string Pointer;
  std::vector<Target> Targets;

  /// A launch spelled in the body of a function-like macro that takes the
  /// kernel as one of its parameters:
  /// `#define LAUNCH(k, ...) ...; k<<<grid, block>>>(n, __VA_ARGS__); ...`
  /// invoked as `LAUNCH(kernel, a, b);`. The guard goes into the macro's
  /// body, once for all its expansions (see RewritePlanner).
  struct MacroBody {
    std::string Macro;     ///< LAUNCH
    std::string Parameter; ///< k, as the body spells it
    FileOffset Begin;      ///< The parameter's token in the body.
    unsigned End = 0;      ///< One past the launch's `)` in the body.
    /// The configuration and the arguments as the body spells them (the
    /// text between the parentheses, `n, __VA_ARGS__`).
    std::string Grid, Block, SharedMem, Stream, Args;
  };
  std::optional<MacroBody> InMacro;
};

/// A declaration of a kernel after which a launcher declaration goes.
struct KernelDeclaration {
  FileOffset Pos; ///< The kernel's name in the declaration; the key.
  std::string QualifiedName;
  bool IsStatic = false;
  std::string TemplateHeader;
  std::vector<std::string> Params; ///< As written (names optional).
  unsigned StatementEnd = 0;       ///< One past its `;`.
  std::string Problem;
};

/// Everything gathered, merged over all parses.
class RewriteFacts {
public:
  /// Makes the consumer that records one parse (host side; the device side
  /// sees the same definitions and no host launches).
  std::unique_ptr<clang::ASTConsumer>
  makeConsumer(clang::CompilerInstance &CI, const driver::TranslationUnit &TU,
               driver::CudaSide Side);

  const std::map<FileOffset, KernelDefinition> &kernels() const {
    return Kernels;
  }
  const std::map<FileOffset, LaunchStatement> &launches() const {
    return Launches;
  }
  const std::map<FileOffset, KernelDeclaration> &declarations() const {
    return Declarations;
  }
  /// The content each fact's offsets refer to, as the parser read it.
  const std::map<std::string, std::string> &contents() const {
    return Contents;
  }

  /// Keeps the first parse's view of a kernel, with the instantiations
  /// every parse saw.
  void addKernel(KernelDefinition K);
  /// Keeps the first parse's view of a launch; a later parse that does not
  /// see the kernel's definition first adds the declaration it needs.
  void addLaunch(LaunchStatement L) {
    auto [It, Inserted] = Launches.emplace(L.Pos, L);
    if (!Inserted && L.DeclarationNeeded && !It->second.DeclarationNeeded)
      It->second.DeclarationNeeded = L.DeclarationNeeded;
  }
  void addDeclaration(KernelDeclaration D) {
    Declarations.emplace(D.Pos, std::move(D));
  }
  void addContent(const std::string &File, std::string Content) {
    Contents.emplace(File, std::move(Content));
  }

private:
  std::map<FileOffset, KernelDefinition> Kernels;
  std::map<FileOffset, LaunchStatement> Launches;
  std::map<FileOffset, KernelDeclaration> Declarations;
  std::map<std::string, std::string> Contents;
};

} // namespace rewrite
} // namespace forgestencil

#endif

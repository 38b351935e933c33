//===- RewritePlanner.cpp - From facts to edited files and a patch --------===//

#include "forgestencil/Rewrite/RewritePlanner.h"

#include "BodyTransform.h"

#include "forgestencil/Analysis/Inventory.h"
#include "forgestencil/Patch/PatchWriter.h"
#include "forgestencil/Rewrite/LauncherGen.h"
#include "forgestencil/Rewrite/SourceLayout.h"

#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <map>
#include <set>

using namespace llvm;

namespace forgestencil {
namespace rewrite {

Expected<Strategy> parseStrategy(StringRef Name) {
  if (Name == "reference")
    return Strategy::Reference;
  if (Name == "forge")
    return Strategy::Forge;
  return createStringError(inconvertibleErrorCode(),
                           "unknown strategy '%s' (known: forge, reference)",
                           Name.str().c_str());
}

const char *strategyName(Strategy S) {
  switch (S) {
  case Strategy::Reference:
    return "reference";
  case Strategy::Forge:
    return "forge";
  }
  return "?";
}

KernelInstanceName KernelInstanceName::parse(StringRef Name) {
  Name = Name.trim();
  // Kernels are never members of a class template, so the first `<` opens
  // the instantiation's arguments.
  size_t Open = Name.find('<');
  if (Open == StringRef::npos || !Name.ends_with(">"))
    return {Name.str(), ""};
  return {Name.take_front(Open).rtrim().str(),
          Name.slice(Open + 1, Name.size() - 1).trim().str()};
}

std::string KernelInstanceName::str() const {
  return TemplateArgs.empty() ? Kernel : Kernel + "<" + TemplateArgs + ">";
}

bool sameTemplateArgs(StringRef A, StringRef B) {
  auto Squeezed = [](StringRef S) {
    std::string Out;
    for (char C : S)
      if (!isSpace(C))
        Out += C;
    return Out;
  };
  return Squeezed(A) == Squeezed(B);
}

std::string RewriteNote::format() const {
  std::string S = File;
  if (Line)
    S += ":" + std::to_string(Line) + ":" + std::to_string(Column);
  return S + ": " + Message;
}

namespace {

/// What each kind of insertion at one offset comes before: the switch's
/// include, then launcher declarations, then the kernel header's include.
enum class EditOrder {
  UseOursInclude,
  ChecksInclude,
  MacroLaunchInclude,
  LauncherDeclaration,
  KernelHeader,
  Other
};

struct OrderedEdit {
  EditOrder Order;
  TextEdit Edit;
  bool operator<(const OrderedEdit &O) const {
    return std::tie(Edit.Offset, Order, Edit.Length, Edit.Text) <
           std::tie(O.Edit.Offset, O.Order, O.Edit.Length, O.Edit.Text);
  }
};

/// The header that holds one kernel's variants.
struct KernelOutput {
  const KernelDefinition *Kernel = nullptr;
  std::string HeaderName; ///< "fs_k.cuh"
  std::vector<const LaunchStatement *> Launches;
  /// Launches in the body of a macro given the kernel (L->InMacro).
  std::vector<const LaunchStatement *> MacroLaunches;

  /// The macros those launches are spelled in, each once.
  std::vector<std::string> launchingMacros() const {
    std::vector<std::string> Names;
    for (const LaunchStatement *L : MacroLaunches)
      if (!is_contained(Names, L->InMacro->Macro))
        Names.push_back(L->InMacro->Macro);
    return Names;
  }
};

bool isGeneratedKernel(StringRef QualifiedName) {
  StringRef Name = QualifiedName.rsplit("::").second;
  if (Name.empty())
    Name = QualifiedName;
  return Name.starts_with("fs_ref_");
}

bool matchesName(const KernelDefinition &K, StringRef Wanted) {
  return K.QualifiedName == Wanted || K.Name == Wanted;
}

/// Whether template \p K is instantiated with \p Args.
bool hasInstantiation(const KernelDefinition &K, StringRef Args) {
  return any_of(K.Instantiations, [&](const std::string &I) {
    return sameTemplateArgs(I, Args);
  });
}

/// Whether \p Wanted ("k", "ns::k" or "k<float>") names \p K or one of its
/// instantiations.
bool matchesRequest(const KernelDefinition &K, const KernelInstanceName &W) {
  if (!matchesName(K, W.Kernel))
    return false;
  return !W.isInstantiation() ||
         (K.IsTemplate && hasInstantiation(K, W.TemplateArgs));
}

/// "k<double>, k<float>": the instantiations of template \p K, for messages.
std::string instantiationList(const KernelDefinition &K) {
  std::vector<std::string> Names;
  for (const std::string &Args : K.Instantiations)
    Names.push_back(K.QualifiedName + "<" + Args + ">");
  return join(Names, ", ");
}

class Planner {
public:
  Planner(const RewriteFacts &Facts, const RewriteOptions &Opts)
      : Facts(Facts), Opts(Opts) {}

  Expected<RewritePlan> run() {
    if (Error E = checkRequestedKernels())
      return E;
    selectLaunches();
    if (Plan.LaunchesRewritten == 0)
      return std::move(Plan);
    nameHeaders();
    if (Error E = planEdits())
      return E;
    if (Error E = applyEdits())
      return E;
    addNewFiles();
    return std::move(Plan);
  }

private:
  std::string relative(StringRef File) const {
    return analysis::relativeTo(File, Opts.SourceRoot);
  }
  bool underRoot(StringRef File) const { return relative(File) != File; }

  void note(StringRef File, unsigned Line, unsigned Column, const Twine &Msg) {
    Plan.Notes.push_back({relative(File), Line, Column, Msg.str()});
  }

  bool wanted(const KernelDefinition &K) const {
    if (Opts.Kernels.empty())
      return true;
    return any_of(Requests, [&](const KernelInstanceName &W) {
      return matchesRequest(K, W);
    });
  }

  /// Whether launch \p L of \p K is asked for. A launch that names its
  /// instantiation is left alone when only other instantiations are asked
  /// for; one in a host template may launch any of them.
  bool wanted(const KernelDefinition &K, const LaunchStatement &L) const {
    if (Opts.Kernels.empty() || L.TemplateArgs.empty())
      return wanted(K);
    return any_of(Requests, [&](const KernelInstanceName &W) {
      return matchesRequest(K, W) &&
             (!W.isInstantiation() ||
              sameTemplateArgs(W.TemplateArgs, L.TemplateArgs));
    });
  }

  /// Whether the variant of instantiation \p Args of template \p K is
  /// asked for: the template as a whole, or that instantiation.
  bool wantedInstantiation(const KernelDefinition &K, StringRef Args) const {
    if (Opts.Kernels.empty())
      return true;
    return any_of(Requests, [&](const KernelInstanceName &W) {
      return matchesName(K, W.Kernel) &&
             (!W.isInstantiation() || sameTemplateArgs(W.TemplateArgs, Args));
    });
  }

  Error checkRequestedKernels() {
    for (const std::string &Name : Opts.Kernels) {
      KernelInstanceName W = KernelInstanceName::parse(Name);
      Requests.push_back(W);
      if (any_of(Facts.kernels(), [&](const auto &Entry) {
            return matchesRequest(Entry.second, W);
          }))
        continue;
      // The kernel exists but not as that instantiation: say which exist.
      for (const auto &[Pos, K] : Facts.kernels()) {
        if (!W.isInstantiation() || !matchesName(K, W.Kernel))
          continue;
        if (!K.IsTemplate)
          return createStringError(inconvertibleErrorCode(),
                                   "kernel '%s' is not a template, so there "
                                   "is no '%s'",
                                   W.Kernel.c_str(), Name.c_str());
        return createStringError(
            inconvertibleErrorCode(),
            "kernel template '%s' is not instantiated as '%s' in the parsed "
            "translation units (instantiations: %s)",
            W.Kernel.c_str(), Name.c_str(),
            K.Instantiations.empty() ? "none"
                                     : instantiationList(K).c_str());
      }
      return createStringError(inconvertibleErrorCode(),
                               "no kernel named '%s' is defined in the "
                               "parsed translation units",
                               Name.c_str());
    }
    return Error::success();
  }

  /// The definition a launch calls: the one its TU saw, else the only one
  /// with its name.
  const KernelDefinition *definitionOf(const LaunchStatement &L) const {
    return definitionOf(L.Kernel, L.KernelDefinitionPos,
                        L.KernelDeclarationPos);
  }
  const KernelDefinition *
  definitionOf(const std::string &Kernel,
               const std::optional<FileOffset> &DefinitionPos,
               const std::optional<FileOffset> &DeclarationPos) const {
    if (DefinitionPos) {
      auto It = Facts.kernels().find(*DefinitionPos);
      if (It != Facts.kernels().end())
        return &It->second;
    }
    // The one definition of that name, or else the one that shares the
    // launch's declaration: benchmarks built into separate programs from
    // one database may each define a kernel of the same name, declared in
    // their own header.
    const KernelDefinition *Found = nullptr, *Declared = nullptr;
    unsigned Named = 0, SameDeclaration = 0;
    for (const auto &[Pos, K] : Facts.kernels()) {
      if (K.QualifiedName != Kernel)
        continue;
      ++Named;
      Found = &K;
      if (DeclarationPos && is_contained(K.DeclarationPos, *DeclarationPos)) {
        ++SameDeclaration;
        Declared = &K;
      }
    }
    if (Named == 1)
      return Found;
    return SameDeclaration == 1 ? Declared : nullptr;
  }

  /// A launch through a pointer: a branch for each kernel it may hold
  /// that can be rewritten.
  void selectPointerLaunch(const FileOffset &Pos, const LaunchStatement &L) {
    std::vector<PointerBranch> Branches;
    std::string Why;
    for (const LaunchStatement::Target &T : L.Targets) {
      if (isGeneratedKernel(T.Kernel))
        continue;
      const KernelDefinition *K =
          definitionOf(T.Kernel, T.KernelDefinitionPos, T.KernelDeclarationPos);
      if (K && !wanted(*K))
        continue;
      if (!K && !Opts.Kernels.empty())
        continue;
      std::string Problem = T.Problem;
      if (Problem.empty() && !K)
        Problem = "its definition was not found in a parsed translation unit";
      if (Problem.empty() && !K->Problem.empty())
        Problem = "the kernel cannot be copied: " + K->Problem;
      if (Problem.empty() &&
          (!underRoot(Pos.File) || !underRoot(K->NamePos.File)))
        Problem = "the launch or the kernel is outside the source root " +
                  Opts.SourceRoot;
      if (!Problem.empty()) {
        Why += (Why.empty() ? "" : "; ") + T.Kernel + ": " + Problem;
        continue;
      }
      KernelOutput &Out = Outputs[K->NamePos];
      Out.Kernel = K;
      Branches.push_back({&T, K});
    }
    if (Branches.empty()) {
      if (!Why.empty() || Opts.Kernels.empty())
        note(Pos.File, L.Line, L.Column,
             "launch through the pointer '" + L.Kernel +
                 "' not rewritten: " +
                 (Why.empty() ? "no kernel it may hold is rewritten" : Why));
      return;
    }
    if (!Why.empty())
      note(Pos.File, L.Line, L.Column,
           "launch through the pointer '" + L.Kernel +
               "': no branch for " + Why);
    PointerLaunches.push_back({&L, std::move(Branches)});
    ++Plan.LaunchesRewritten;
  }

  /// The macro bodies some expansion of which cannot take the guard (its
  /// kernel is not named plainly, say): the guard in the body would fail to
  /// compile there, so no launch through that macro is rewritten.
  void findUnguardableMacroBodies() {
    for (const auto &[Pos, L] : Facts.launches())
      if (L.InMacro && !L.Problem.empty() && !L.AlreadyGuarded)
        UnguardableBodies.emplace(
            L.InMacro->Begin, relative(Pos.File) + ":" +
                                  std::to_string(L.Line) + ": " + L.Problem);
  }

  /// Whether launch \p L through a macro can be rewritten; says why not.
  bool selectMacroLaunch(const FileOffset &Pos, const LaunchStatement &L) {
    const LaunchStatement::MacroBody &M = *L.InMacro;
    auto Bad = UnguardableBodies.find(M.Begin);
    std::string Why;
    if (Bad != UnguardableBodies.end())
      Why = "another expansion of macro '" + M.Macro +
            "' cannot take the guard its body would get (" + Bad->second +
            ")";
    else if (!underRoot(M.Begin.File))
      Why = "macro '" + M.Macro + "' is defined outside the source root " +
            Opts.SourceRoot;
    if (Why.empty())
      return true;
    note(Pos.File, L.Line, L.Column,
         "launch of '" + L.Kernel + "' not rewritten: " + Why);
    return false;
  }

  void selectLaunches() {
    findUnguardableMacroBodies();
    for (const auto &[Pos, L] : Facts.launches()) {
      if (isGeneratedKernel(L.Kernel))
        continue; // A launcher's own launch, from an earlier patch.
      if (!L.Pointer.empty() && !L.AlreadyGuarded && L.Problem.empty()) {
        selectPointerLaunch(Pos, L);
        continue;
      }
      const KernelDefinition *K = definitionOf(L);
      if (K && !wanted(*K, L))
        continue;
      if (!K && !Opts.Kernels.empty() &&
          none_of(Requests, [&](const KernelInstanceName &W) {
            return L.Kernel == W.Kernel ||
                   StringRef(L.Kernel).ends_with("::" + W.Kernel);
          }))
        continue;
      if (L.AlreadyGuarded) {
        ++Plan.LaunchesAlreadyGuarded;
        note(Pos.File, L.Line, L.Column,
             "launch of '" + L.Kernel +
                 "' is already guarded by forgestencil::use_ours()");
        continue;
      }
      if (!L.Problem.empty()) {
        note(Pos.File, L.Line, L.Column,
             "launch of '" + L.Kernel + "' not rewritten: " + L.Problem);
        continue;
      }
      if (!K) {
        note(Pos.File, L.Line, L.Column,
             "launch of '" + L.Kernel +
                 "' not rewritten: the kernel's definition was not found in "
                 "exactly one parsed translation unit");
        continue;
      }
      if (!K->Problem.empty()) {
        note(Pos.File, L.Line, L.Column,
             "launch of '" + L.Kernel + "' not rewritten: the kernel cannot "
                                        "be copied: " + K->Problem);
        continue;
      }
      // A kernel asked for a body copy that cannot take one keeps its
      // launches unless it has a generated variant: the reference copy
      // alone gains nothing.
      if (bodyAsked(*K)) {
        const BodyCopy &BC = bodyCopyOf(*K);
        const bool HasVariant = !variantsFor(*K).empty();
        if (!BC.Error.empty() && NoBodyCopy.insert(K->QualifiedName).second)
          note(K->NamePos.File, K->Line, 0,
               "kernel '" + K->QualifiedName +
                   (HasVariant ? "' keeps its generated variant"
                               : "' keeps its original launches") +
                   ": no copy of its body: " + BC.Error);
        if (!BC.Error.empty() && !HasVariant)
          continue;
      }
      if (!underRoot(Pos.File) || !underRoot(K->NamePos.File)) {
        note(Pos.File, L.Line, L.Column,
             "launch of '" + L.Kernel +
                 "' not rewritten: the launch or the kernel is outside the "
                 "source root " + Opts.SourceRoot);
        continue;
      }
      if (L.InMacro && !selectMacroLaunch(Pos, L))
        continue;
      KernelOutput &Out = Outputs[K->NamePos];
      Out.Kernel = K;
      (L.InMacro ? Out.MacroLaunches : Out.Launches).push_back(&L);
      ++Plan.LaunchesRewritten;
    }
    for (const KernelInstanceName &W : Requests)
      if (!NoBodyCopy.count(W.Kernel) &&
          none_of(NoBodyCopy, [&](const std::string &Q) {
            return StringRef(Q).ends_with("::" + W.Kernel);
          }) &&
          none_of(Outputs, [&](const auto &Entry) {
            return matchesRequest(*Entry.second.Kernel, W);
          }))
        note("", 0, 0,
             "kernel '" + W.str() + "' has no launch that can be rewritten");
  }

  void nameHeaders() {
    std::set<std::string> Used;
    for (auto &[Pos, Out] : Outputs) {
      std::string Base = "fs_" + Out.Kernel->QualifiedName;
      for (size_t I; (I = Base.find("::")) != std::string::npos;)
        Base.replace(I, 2, "__");
      std::string Name = Base + ".cuh";
      for (unsigned N = 2; Used.count(Name); ++N)
        Name = Base + "_" + std::to_string(N) + ".cuh";
      Used.insert(Name);
      Out.HeaderName = Name;
      Plan.Kernels.push_back(Out.Kernel->QualifiedName);
    }
    llvm::sort(Plan.Kernels);
    Plan.Kernels.erase(std::unique(Plan.Kernels.begin(), Plan.Kernels.end()),
                       Plan.Kernels.end());
  }

  /// `#include` spelling of a generated file from a file of the app: a path
  /// relative to the including file's directory, which every compiler
  /// searches first for a quoted include.
  std::string includePathFrom(StringRef File, StringRef Generated) const {
    // The directory is a view into Rel: keep Rel alive while it is read.
    const std::string Rel = relative(File);
    StringRef Dir = sys::path::parent_path(Rel);
    std::string Up;
    for (auto It = sys::path::begin(Dir), End = sys::path::end(Dir); It != End;
         ++It)
      Up += "../";
    return Up + GeneratedDirectory + "/" + Generated.str();
  }

  const std::string &content(StringRef File) const {
    return Facts.contents().at(File.str());
  }

  void addEdit(StringRef File, EditOrder Order, TextEdit E) {
    Edits[File.str()].insert({Order, std::move(E)});
  }

  /// Where each file must see forgestencil/use_ours.h by: its first edit.
  void needUseOurs(StringRef File, unsigned Before) {
    auto [It, Inserted] = UseOursBefore.emplace(File.str(), Before);
    if (!Inserted)
      It->second = std::min(It->second, Before);
  }
  /// Likewise for forgestencil/macro_launch.h.
  void needMacroLaunch(StringRef File, unsigned Before) {
    auto [It, Inserted] = MacroLaunchBefore.emplace(File.str(), Before);
    if (!Inserted)
      It->second = std::min(It->second, Before);
  }

  /// The guard in the body of the macro launch \p L: once per body, for
  /// every kernel launched through it.
  void planMacroBodyGuard(const LaunchStatement &L) {
    const LaunchStatement::MacroBody &M = *L.InMacro;
    Plan.MacroLaunches[M.Macro].insert(L.Kernel);
    ++Plan.MacroExpansions[M.Macro];
    if (!GuardedBodies.insert(M.Begin).second)
      return;
    const std::string &Content = content(M.Begin.File);
    addEdit(M.Begin.File, EditOrder::Other,
            {M.Begin.Offset, 0, macroLaunchGuardPrefix(M)});
    // At file scope, before the #define.
    needMacroLaunch(M.Begin.File, logicalLineStart(Content, M.Begin.Offset));
  }

  Error planEdits() {
    for (auto &[Pos, Out] : Outputs) {
      const KernelDefinition &K = *Out.Kernel;
      StringRef DefFile = K.NamePos.File;
      // The variants and the launcher go right after the original's
      // definition, in its scope: see kernelHeader().
      addEdit(DefFile, EditOrder::KernelHeader,
              insertLineAfter(content(DefFile), K.End,
                              "#include \"" +
                                  includePathFrom(DefFile, Out.HeaderName) +
                                  "\""));
      needUseOurs(DefFile, K.Begin);
      // A variant no GPU verified is checked at its first launch: checks.h
      // gets run_checked (and is written even if the variant then cannot
      // be generated, so that the include finds it).
      const bool Checked =
          any_of(variantsFor(K), [](const HeaderVariant &HV) {
            return HV.checkedAtRunTime();
          });
      if (Checked)
        NeedChecks = NeedChecked = true;
      if (takesBodyCopy(K) || !inAppCandidatesOf(K).empty() || Checked)
        ChecksFiles.insert(DefFile.str());
      for (const LaunchStatement *L : Out.Launches) {
        const std::string &Content = content(L->Pos.File);
        TextEdit E = guardedLaunchEdit(Content, *L, K);
        needUseOurs(L->Pos.File, std::min(E.Offset, L->Pos.Offset));
        addEdit(L->Pos.File, EditOrder::Other, std::move(E));
        if (L->DeclarationNeeded)
          planDeclaration(*L->DeclarationNeeded, K);
      }
      // The header's specialisation of macro_launch needs its primary
      // template, at file scope, before the kernel.
      if (!Out.MacroLaunches.empty())
        needMacroLaunch(DefFile, K.Begin);
      for (const LaunchStatement *L : Out.MacroLaunches)
        planMacroBodyGuard(*L);
    }
    for (const auto &[L, Branches] : PointerLaunches) {
      const std::string &Content = content(L->Pos.File);
      TextEdit E = guardedPointerLaunchEdit(Content, *L, Branches);
      needUseOurs(L->Pos.File, std::min(E.Offset, L->Pos.Offset));
      addEdit(L->Pos.File, EditOrder::Other, std::move(E));
      for (const PointerBranch &B : Branches)
        if (B.Target->DeclarationNeeded)
          planDeclaration(*B.Target->DeclarationNeeded, *B.Kernel);
    }
    for (const auto &[File, Before] : UseOursBefore) {
      StringRef Content = content(File);
      unsigned Line = includeInsertionLine(Content, Before);
      addEdit(File, EditOrder::UseOursInclude,
              insertIncludeAt(Content, Line,
                              includePathFrom(File, UseOursHeaderName)));
      // checks.h goes with use_ours.h, at file scope.
      if (ChecksFiles.count(File))
        addEdit(File, EditOrder::ChecksInclude,
                insertIncludeAt(Content, Line,
                                includePathFrom(File, ChecksHeaderName)));
    }
    for (const auto &[File, Before] : MacroLaunchBefore) {
      StringRef Content = content(File);
      addEdit(File, EditOrder::MacroLaunchInclude,
              insertIncludeAt(Content, includeInsertionLine(Content, Before),
                              includePathFrom(File, MacroLaunchHeaderName)));
    }
    return Error::success();
  }

  void planDeclaration(const FileOffset &DeclPos, const KernelDefinition &K) {
    auto It = Facts.declarations().find(DeclPos);
    if (It == Facts.declarations().end())
      return;
    const KernelDeclaration &D = It->second;
    const std::string &Content = content(D.Pos.File);
    std::string Line = lineIndentation(Content, D.StatementEnd - 1) +
                       launcherDeclaration(D, K);
    addEdit(D.Pos.File, EditOrder::LauncherDeclaration,
            insertLineAfter(Content, D.StatementEnd - 1, Line));
  }

  /// Merges each file's edits into Replacements (insertions at one offset
  /// concatenated in EditOrder), reports conflicts and applies them.
  Error applyEdits() {
    for (const auto &[File, Set] : Edits) {
      std::vector<TextEdit> Merged;
      for (const OrderedEdit &OE : Set) {
        if (!Merged.empty() && Merged.back().Offset == OE.Edit.Offset &&
            Merged.back().Length == 0 && OE.Edit.Length == 0) {
          Merged.back().Text += OE.Edit.Text;
          continue;
        }
        Merged.push_back(OE.Edit);
      }
      clang::tooling::Replacements Repls;
      for (const TextEdit &E : Merged) {
        if (Error Err = Repls.add(clang::tooling::Replacement(
                File, E.Offset, E.Length, E.Text)))
          return createStringError(
              inconvertibleErrorCode(), "conflicting edits in %s: %s",
              relative(File).c_str(), toString(std::move(Err)).c_str());
      }
      const std::string &Old = content(File);
      Expected<std::string> New =
          clang::tooling::applyAllReplacements(Old, Repls);
      if (!New)
        return New.takeError();
      if (!underRoot(File))
        return createStringError(inconvertibleErrorCode(),
                                 "%s must change but is outside the source "
                                 "root %s; pass --source-root",
                                 File.c_str(), Opts.SourceRoot.c_str());
      patch::FileChange Change{relative(File), Old, std::move(*New)};
      // The patch keeps an executable file's mode (git warns of a
      // mismatch otherwise).
      if (ErrorOr<sys::fs::perms> Mode = sys::fs::getPermissions(File))
        Change.Executable = (*Mode & sys::fs::owner_exe) != 0;
      Plan.Files.push_back(std::move(Change));
    }
    return Error::success();
  }

  void addNewFiles() {
    std::string Dir = GeneratedDirectory;
    Plan.Files.push_back({Dir + "/" + UseOursHeaderName, std::nullopt,
                          useOursHeader(Opts.ToolVersion)});
    if (!GuardedBodies.empty())
      Plan.Files.push_back({Dir + "/" + MacroLaunchHeaderName, std::nullopt,
                            macroLaunchHeader(Opts.ToolVersion)});
    for (const auto &[Pos, Out] : Outputs) {
      std::string Guard = "FORGESTENCIL_" + Out.HeaderName;
      for (char &C : Guard)
        C = isAlnum(C) ? toUpper(C) : '_';
      std::string Path = Dir + "/" + Out.HeaderName;
      const KernelDefinition &K = *Out.Kernel;
      std::vector<HeaderVariant> Variants = variantsFor(K);
      bool Elsewhere = any_of(Out.Launches, [](const LaunchStatement *L) {
        return L->DeclarationNeeded.has_value();
      });
      for (const auto &[L, Branches] : PointerLaunches)
        for (const PointerBranch &B : Branches)
          Elsewhere |= B.Kernel == &K && B.Target->DeclarationNeeded;
      BodyRequest Body;
      Body.Transform = bodyTransform(K);
      Body.ComputeCapability = Opts.BodyComputeCapability;
      bool AskBody = Body.Transform.any() && Variants.empty();
      std::string Header = kernelHeader(
          K, Path, Guard, relative(K.NamePos.File), Opts.ToolVersion,
          Variants, Elsewhere, AskBody ? &Body : nullptr,
          Out.launchingMacros());
      if (AskBody && !Body.Emitted)
        Plan.Notes.push_back({relative(K.NamePos.File), K.Line, 0,
                              "kernel '" + K.QualifiedName +
                                  "' gets no copy of its body: " +
                                  Body.Error});
      if (Body.Emitted) {
        Plan.BodyCopies[K.QualifiedName] = Body.Description;
        NeedChecks = true;
      }
      for (const HeaderVariant &HV : Variants) {
        std::string Name =
            KernelInstanceName{K.QualifiedName, HV.TemplateArgs}.str();
        if (!HV.Error.empty())
          Plan.Notes.push_back(
              {relative(K.NamePos.File), 0, 0,
               "kernel '" + Name +
                   (HV.InApp ? "' gets no in-app candidate " +
                                   HV.Variant->Params.id() + ": "
                             : "' keeps only the reference variant: ") +
                   HV.Error});
        else if (HV.InApp)
          Plan.InAppCandidates[Name].push_back(HV.Variant->Params.id());
        else
          Plan.Variants[Name] = HV.Variant;
      }
      if (any_of(Variants, [](const HeaderVariant &HV) {
            return HV.InApp && HV.Error.empty();
          }))
        NeedChecks = NeedInApp = true;
      Plan.Files.push_back({Path, std::nullopt, std::move(Header)});
    }
    if (NeedChecks)
      Plan.Files.push_back({Dir + "/" + ChecksHeaderName, std::nullopt,
                            checksHeader(Opts.ToolVersion, NeedInApp,
                                         NeedChecked)});
  }

  /// What the options ask of \p K's body.
  BodyTransform bodyTransform(const KernelDefinition &K) const {
    BodyTransform T;
    if (Opts.Strat != Strategy::Forge)
      return T;
    auto Named = [&](StringRef Name) {
      return Name == K.QualifiedName || Name == K.Name;
    };
    T.Restrict = any_of(Opts.RestrictKernels, Named);
    for (const auto &[Name, Shape] : Opts.ReblockKernels)
      if (Named(Name)) {
        T.Reblock = true;
        T.Block = Shape;
      }
    for (const auto &[Name, Cap] : Opts.RegisterCapKernels)
      if (Named(Name)) {
        T.RegisterCap = true;
        T.MaxRegisters = Cap;
      }
    T.KeepShape = T.Reblock && any_of(Opts.KeepShapeKernels, Named);
    for (const auto &[Name, Co] : Opts.CoarsenKernels)
      if (Named(Name)) {
        T.Coarsen = true;
        T.Coarsened = Co;
      }
    return T;
  }
  bool bodyAsked(const KernelDefinition &K) const {
    return bodyTransform(K).any();
  }

  /// Whether \p K's header will hold a body copy: asked for and possible.
  bool takesBodyCopy(const KernelDefinition &K) const {
    return bodyAsked(K) && bodyCopyOf(K).Error.empty();
  }

  /// \p K's body copy as the options ask for it, made once.
  const BodyCopy &bodyCopyOf(const KernelDefinition &K) const {
    auto It = BodyCopyCache.find(&K);
    if (It == BodyCopyCache.end())
      It = BodyCopyCache.emplace(&K, bodyCopy(K, bodyTransform(K))).first;
    return It->second;
  }

  /// The in-app candidates asked for \p K (a plain kernel) or for the
  /// instantiations of \p K (a template), by template arguments ("" for a
  /// plain kernel); empty when none were.
  std::vector<std::pair<std::string, const std::vector<KernelVariant> *>>
  inAppCandidatesOf(const KernelDefinition &K) const {
    std::vector<std::pair<std::string, const std::vector<KernelVariant> *>> Out;
    if (Opts.Strat != Strategy::Forge)
      return Out;
    for (const auto &[Name, Candidates] : Opts.InAppCandidates) {
      KernelInstanceName N = KernelInstanceName::parse(Name);
      if (Candidates.empty() ||
          (N.Kernel != K.QualifiedName && N.Kernel != K.Name) ||
          N.isInstantiation() != K.IsTemplate ||
          (K.IsTemplate && !wantedInstantiation(K, N.TemplateArgs)))
        continue;
      // Candidates belong to the definition their IR was made from.
      const ir::StencilIR &IR = Candidates.front().IR;
      if (!IR.SourceFile.empty() && IR.SourceLine != 0 &&
          (IR.SourceLine != K.Line ||
           llvm::sys::path::filename(IR.SourceFile) !=
               llvm::sys::path::filename(K.NamePos.File)))
        continue;
      Out.push_back({N.TemplateArgs, &Candidates});
    }
    return Out;
  }

  /// The variants asked for \p K: the plain kernel's, or for a template,
  /// one per instantiation that is asked for (the analysis, which made the
  /// variants, saw each instantiation used); the in-app candidates in
  /// their place where some were asked for.
  std::vector<HeaderVariant> variantsFor(const KernelDefinition &K) const {
    std::vector<HeaderVariant> Out;
    auto InApp = inAppCandidatesOf(K);
    if (!InApp.empty()) {
      for (const auto &[Args, Candidates] : InApp)
        for (const KernelVariant &V : *Candidates)
          Out.push_back({Args, &V, "", /*InApp=*/true});
      return Out;
    }
    // A body copy asked for by name replaces the generated variants.
    if (Opts.Strat != Strategy::Forge || takesBodyCopy(K))
      return Out;
    for (const auto &[Name, V] : Opts.Variants) {
      KernelInstanceName N = KernelInstanceName::parse(Name);
      if (N.Kernel != K.QualifiedName)
        continue;
      // A variant belongs to the definition its IR was made from, not to
      // another kernel of the same name.
      if (!V.IR.SourceFile.empty() && V.IR.SourceLine != 0 &&
          (V.IR.SourceLine != K.Line ||
           llvm::sys::path::filename(V.IR.SourceFile) !=
               llvm::sys::path::filename(K.NamePos.File)))
        continue;
      if (!K.IsTemplate) {
        if (!N.isInstantiation())
          Out.push_back({"", &V, ""});
        continue;
      }
      if (N.isInstantiation() && wantedInstantiation(K, N.TemplateArgs))
        Out.push_back({N.TemplateArgs, &V, ""});
    }
    return Out;
  }

  const RewriteFacts &Facts;
  const RewriteOptions &Opts;
  RewritePlan Plan;
  /// Opts.Kernels, parsed.
  std::vector<KernelInstanceName> Requests;
  std::map<FileOffset, KernelOutput> Outputs;
  std::vector<std::pair<const LaunchStatement *, std::vector<PointerBranch>>>
      PointerLaunches;
  std::map<std::string, std::set<OrderedEdit>> Edits;
  std::map<std::string, unsigned> UseOursBefore;
  std::map<std::string, unsigned> MacroLaunchBefore;
  /// Macro bodies that got their guard, by where the launch starts.
  std::set<FileOffset> GuardedBodies;
  /// Macro bodies that cannot take one, with the expansion that says why.
  std::map<FileOffset, std::string> UnguardableBodies;
  /// Kernels asked for a body copy that cannot take one.
  std::set<std::string> NoBodyCopy;
  mutable std::map<const KernelDefinition *, BodyCopy> BodyCopyCache;
  /// The files that define a kernel with a body copy.
  std::set<std::string> ChecksFiles;
  bool NeedChecks = false;
  /// Some header holds in-app candidates: checks.h gets compare_candidates.
  bool NeedInApp = false;
  /// Some header holds a variant no GPU verified: checks.h gets run_checked.
  bool NeedChecked = false;
};

} // namespace

Expected<RewritePlan> planRewrites(const RewriteFacts &Facts,
                                   const RewriteOptions &Opts) {
  return Planner(Facts, Opts).run();
}

std::string patchSlug(const RewritePlan &Plan, const RewriteOptions &Opts) {
  std::string Slug = std::string(strategyName(Opts.Strat)) + " launchers for";
  for (const std::string &K : Plan.Kernels)
    Slug += " " + K;
  return Slug;
}

Expected<std::string> buildPatch(const RewritePlan &Plan,
                                 const RewriteOptions &Opts) {
  patch::PatchHeader Header;
  Header.Subject = "Route launches of " + join(Plan.Kernels, ", ") +
                   " through USE_OURS-guarded launchers";
  Header.Kernels = Plan.Kernels;
  Header.ToolVersion = Opts.ToolVersion;
  unsigned ThroughMacros = 0;
  for (const auto &[Macro, Kernels] : Plan.MacroLaunches)
    ThroughMacros += Plan.MacroExpansions.count(Macro)
                         ? Plan.MacroExpansions.at(Macro)
                         : 0;
  const unsigned Direct = Plan.LaunchesRewritten - ThroughMacros;
  std::string Launches = "Strategy: " + std::string(strategyName(Opts.Strat)) +
                         ". ";
  if (Direct)
    Launches += std::to_string(Direct) +
                " launch(es) now run `if (forgestencil::use_ours()) { "
                "<launcher>(...); } else { <original launch>; }`" +
                (ThroughMacros ? "; " : "");
  if (ThroughMacros)
    Launches += std::to_string(ThroughMacros) +
                " launch(es) through macros are guarded in the macros' bodies "
                "(below)";
  Header.Notes.push_back(Launches +
                         "; USE_OURS unset or 0 keeps the original path.");
  for (const auto &[Kernel, V] : Plan.Variants) {
    Header.Notes.push_back("Kernel " + Kernel + " on compute capability " +
                           std::to_string(V->ComputeCapability) +
                           ": generated variant " + V->Params.id() + " (" +
                           V->IR.summary() + "). " + V->Provenance +
                           (V->GpuVerified
                                ? ""
                                : " Its launcher compares it with the "
                                  "original byte for byte at its first launch "
                                  "on each GPU in each launch configuration "
                                  "(from the app's state and from scrambled "
                                  "inputs) and runs it there only if "
                                  "identical (forgestencil/checks.h, "
                                  "run_checked)."));
  }
  for (const auto &[Kernel, What] : Plan.BodyCopies)
    Header.Notes.push_back(
        "Kernel " + Kernel + " on compute capability " +
        std::to_string(Opts.BodyComputeCapability) +
        ": a copy of its own body with " + What +
        ", run where it computes what the original does (pointer arguments "
        "in distinct allocations, the launch's block size as assumed); "
        "USE_OURS=verify compares it with the original in the app.");
  for (const auto &[Macro, Kernels] : Plan.MacroLaunches)
    Header.Notes.push_back(
        "Macro " + Macro + " launches the kernel it is given: its body's "
        "launch now reads `if (forgestencil::macro_launch<decltype(k), "
        "k>::ours()) forgestencil::macro_launch<decltype(k), k>::run(...); "
        "else <the launch as written>`, which runs the launcher "
        "of " + join(Kernels, ", ") + " under USE_OURS and the macro's own "
        "launch for every other kernel and without USE_OURS "
        "(forgestencil/macro_launch.h). Every expansion of the macro must "
        "name its kernel plainly; those in the units analysed do.");
  for (const auto &[Kernel, Ids] : Plan.InAppCandidates)
    Header.Notes.push_back(
        "Kernel " + Kernel + ": " + std::to_string(Ids.size()) +
        " in-app candidate(s) (" + join(Ids, ", ") +
        "), each compared with the original byte for byte and timed in the "
        "app under USE_OURS=verify; with any other USE_OURS the launcher runs "
        "the original. `fs-rewrite --in-app " +
        (StringRef(Kernel).contains('<') ? "'" + Kernel + "'" : Kernel) +
        " --in-app-times <the fs-harness record of that run> --emit-patch` "
        "patches the fastest that is identical and faster.");
  std::vector<std::string> Measured;
  for (const auto &[Kernel, V] : Plan.Variants)
    if (!V->MeasuredSpeedup.empty())
      Measured.push_back(Kernel + ": " + V->MeasuredSpeedup);
  if (!Measured.empty())
    Header.SpeedupSummary = join(Measured, "; ");
  if (Opts.Strat == Strategy::Forge && Plan.Variants.empty() &&
      Plan.BodyCopies.empty() && !Plan.InAppCandidates.empty()) {
    Header.SpeedupSummary =
        "none by design: in-app candidates are compared and timed under "
        "USE_OURS=verify, and the original runs otherwise";
  } else if (Opts.Strat == Strategy::Forge && Plan.Variants.empty() &&
      !Plan.BodyCopies.empty()) {
    Header.SpeedupSummary =
        "not measured by fs-tune: body copies are verified and timed in the "
        "app (USE_OURS=verify), then measured by fs-harness";
  } else if (Opts.Strat == Strategy::Forge && Plan.Variants.empty()) {
    Header.SpeedupSummary =
        "none: no kernel got a generated variant, so every launcher runs the "
        "reference copy of the original kernel";
  } else if (Opts.Strat == Strategy::Forge && Measured.empty()) {
    Header.SpeedupSummary =
        "not measured for this app yet (run fs-tune on the bundle, then "
        "fs-harness); see the per-kernel notes for what the choice rests on";
  }
  if (Opts.Strat == Strategy::Forge)
    Header.Notes.push_back(
        "Every launcher falls back to a renamed copy of the original kernel "
        "(variant `reference`) on other GPUs.");
  if (Opts.Strat == Strategy::Reference) {
    Header.SpeedupSummary =
        "none: the reference strategy launches a renamed copy of the original "
        "kernel with the original configuration";
    Header.Notes.push_back(
        "The reference strategy gives no speed-up. Its launchers call a "
        "renamed copy of each original kernel; it is the baseline that "
        "faster variants are verified against and the fallback when none "
        "verifies.");
  }
  patch::Expected<std::string> Text = patch::writePatch(Header, Plan.Files);
  if (!Text)
    return createStringError(inconvertibleErrorCode(), "%s",
                             Text.error().c_str());
  return *Text;
}

} // namespace rewrite
} // namespace forgestencil

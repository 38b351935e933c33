//===- CompilationDatabase.cpp - compile_commands.json for CUDA apps -------===//

#include "forgestencil/Driver/CompilationDatabase.h"

#include "clang/Options/Options.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include "llvm/Support/StringSaver.h"

using namespace llvm;
using clang::tooling::CompileCommand;

namespace forgestencil {
namespace driver {

namespace {

Error jsonError(StringRef Path, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), "%s: %s",
                           Path.str().c_str(), Msg.str().c_str());
}

/// "a number", "null", ... for a JSON value that should have been a string.
std::string jsonKindName(const json::Value &V) {
  switch (V.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return "a boolean";
  case json::Value::Number:
    return "a number";
  case json::Value::String:
    return "a string";
  case json::Value::Array:
    return "an array";
  case json::Value::Object:
    return "an object";
  }
  return "not a string";
}

/// Whether clang's driver knows Flag; host-compiler flags that only gcc
/// understands would make the clang invocation fail.
bool clangKnowsFlag(StringRef Flag) {
  const opt::OptTable &Table = clang::getDriverOptTable();
  std::string Nearest;
  unsigned Distance = Table.findNearest(
      Flag, Nearest, opt::Visibility(clang::options::ClangOption),
      /*MinimumLength=*/4, /*MaximumDistance=*/0);
  return Distance == 0;
}

/// Says which parses a job gets: one host, one device, whatever the number
/// of architectures the command builds for.
std::string describeParses(const CompileJob &Job) {
  std::string Arch = Job.deviceArch();
  std::string Why;
  if (Job.GpuArchs.empty())
    Why = "nvcc's default; the command names no architecture";
  else if (Job.GpuArchs.size() == 1)
    Why = "the only architecture the command builds for";
  else
    Why = "newest of " + join(Job.GpuArchs, ", ");
  return "parsed twice: host side, and device side for " + Arch + " (" + Why +
         ")";
}

} // namespace

Expected<std::unique_ptr<CudaCompilationDatabase>>
CudaCompilationDatabase::load(StringRef Path, const DatabaseOptions &Opts) {
  SmallString<256> File(Path);
  if (sys::fs::is_directory(File))
    sys::path::append(File, "compile_commands.json");
  auto Buf = MemoryBuffer::getFile(File);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read '%s': %s",
                             File.c_str(), Buf.getError().message().c_str());
  SmallString<256> Abs(File);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, true);
  return loadFromBuffer((*Buf)->getBuffer(), Abs, Opts);
}

Expected<std::unique_ptr<CudaCompilationDatabase>>
CudaCompilationDatabase::loadFromBuffer(StringRef Json, StringRef JsonPath,
                                        const DatabaseOptions &Opts) {
  if (!Opts.CudaPath.empty() && !isCudaInstallation(Opts.CudaPath))
    return createStringError(inconvertibleErrorCode(),
                             "--cuda-path '%s' is not a CUDA installation (no "
                             "include/cuda_runtime.h)",
                             Opts.CudaPath.c_str());
  auto Parsed = json::parse(Json);
  if (!Parsed)
    return jsonError(JsonPath, "malformed JSON: " + toString(Parsed.takeError()));
  const json::Array *Entries = Parsed->getAsArray();
  if (!Entries)
    return jsonError(JsonPath, "expected a JSON array of compile commands");

  auto DB = std::unique_ptr<CudaCompilationDatabase>(new CudaCompilationDatabase);
  DB->JsonPath = JsonPath.str();
  DB->Options = Opts;
  StringRef DbDir = sys::path::parent_path(JsonPath);
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);

  for (size_t I = 0; I < Entries->size(); ++I) {
    const json::Object *E = (*Entries)[I].getAsObject();
    std::string Where = "entry " + std::to_string(I);
    if (!E) {
      DB->Problems.push_back({Where, "not a JSON object"});
      continue;
    }
    auto Dir = E->getString("directory");
    auto FileName = E->getString("file");
    if (!Dir || !FileName) {
      DB->Problems.push_back(
          {FileName ? Where + " (" + FileName->str() + ")" : Where,
           "entry lacks a \"directory\" or \"file\" string"});
      continue;
    }
    // A relative directory is taken relative to the database's own folder.
    SmallString<256> Directory(*Dir);
    if (!sys::path::is_absolute(Directory)) {
      SmallString<256> D(DbDir);
      sys::path::append(D, Directory);
      Directory = D;
    }
    sys::path::remove_dots(Directory, true);
    // Problems name the file as the build saw it, so that two entries for
    // "main.cu" in different directories stay apart.
    SmallString<256> SourcePath(*FileName);
    if (!sys::path::is_absolute(SourcePath)) {
      SourcePath = Directory;
      sys::path::append(SourcePath, *FileName);
    }
    sys::path::remove_dots(SourcePath, true);
    std::string Source(SourcePath);

    std::vector<std::string> Argv;
    if (const json::Value *Raw = E->get("arguments"); Raw && !Raw->getAsArray()) {
      DB->Problems.push_back({Where + " (" + FileName->str() + ")",
                              "\"arguments\" is " + jsonKindName(*Raw) +
                                  ", not an array of strings"});
      continue;
    }
    if (const json::Array *Args = E->getArray("arguments")) {
      std::string Bad;
      for (size_t K = 0; K < Args->size() && Bad.empty(); ++K) {
        if (auto S = (*Args)[K].getAsString())
          Argv.push_back(S->str());
        else
          Bad = "\"arguments\" element " + std::to_string(K) + " is " +
                jsonKindName((*Args)[K]) + ", not a string";
      }
      if (!Bad.empty()) {
        DB->Problems.push_back({Where + " (" + FileName->str() + ")", Bad});
        continue;
      }
    } else if (auto Cmd = E->getString("command")) {
      SmallVector<const char *, 64> Toks;
      cl::TokenizeGNUCommandLine(*Cmd, Saver, Toks);
      Argv.assign(Toks.begin(), Toks.end());
    } else {
      DB->Problems.push_back(
          {Source, "entry has neither \"arguments\" nor \"command\""});
      continue;
    }

    auto Job = parseCompileCommand(Argv, Directory, *FileName);
    if (!Job) {
      DB->Problems.push_back({Source, toString(Job.takeError())});
      continue;
    }
    if (Job->Skip) {
      DB->Skipped.push_back({Job->File.empty() ? FileName->str() : Job->File,
                             Job->SkipReason});
      continue;
    }
    if (Job->Language != SourceLanguage::Cuda) {
      DB->Skipped.push_back({Job->File, "not a CUDA translation unit"});
      bool Known = std::any_of(
          DB->HostJobs.begin(), DB->HostJobs.end(),
          [&](const CompileJob &H) { return H.File == Job->File; });
      if ((Job->Language == SourceLanguage::Cxx ||
           Job->Language == SourceLanguage::C) &&
          !Known)
        DB->HostJobs.push_back(*Job);
      continue;
    }
    if (DB->Units.count(Job->File)) {
      // The same file built twice (e.g. two targets): the first entry wins.
      DB->Skipped.push_back({Job->File, "duplicate entry"});
      continue;
    }
    if (!sys::fs::exists(Job->File)) {
      DB->Problems.push_back({Job->File, "source file does not exist"});
      continue;
    }
    auto TC = findToolchain(*Job, Opts.CudaPath, Opts.ResourceDir);
    if (!TC) {
      DB->Problems.push_back({Job->File, toString(TC.takeError())});
      continue;
    }
    Job->Notes.insert(Job->Notes.end(), TC->Notes.begin(), TC->Notes.end());
    Job->Notes.push_back("CUDA toolkit " + TC->CudaPath + " (from " +
                         TC->CudaPathOrigin + ")");
    // Drop host-compiler flags that clang does not know.
    std::vector<std::string> Known;
    for (const std::string &F : Job->HostFlags) {
      if (clangKnowsFlag(F))
        Known.push_back(F);
      else
        Job->Notes.push_back("dropped host flag unknown to clang: " + F);
    }
    Job->HostFlags = std::move(Known);
    if (!Job->CommonFlags.empty())
      Job->Notes.push_back("clang flags, both sides: " +
                           join(Job->CommonFlags, " "));
    if (!Job->HostFlags.empty())
      Job->Notes.push_back("clang flags, host side only: " +
                           join(Job->HostFlags, " "));

    TranslationUnit TU;
    TU.Job = std::move(*Job);
    for (CudaSide Side : {CudaSide::Host, CudaSide::Device}) {
      std::vector<std::string> Cmd = buildClangCommand(TU.Job, *TC, Side);
      Cmd.insert(Cmd.end() - 1, Opts.ExtraArgs.begin(), Opts.ExtraArgs.end());
      TU.Commands.emplace_back(TU.Job.Directory, TU.Job.File, std::move(Cmd),
                               /*Output=*/"");
      TU.Commands.back().Heuristic =
          Side == CudaSide::Host ? "cuda-host" : "cuda-device";
    }
    TU.Job.Notes.push_back(describeParses(TU.Job));
    // The commands themselves, to rerun a parse by hand (the prelude is in
    // lib/Driver/Prelude/ of the source tree).
    for (const CompileCommand &C : TU.Commands) {
      std::string Line;
      raw_string_ostream OS(Line);
      for (const std::string &A : C.CommandLine) {
        OS << (Line.empty() ? "" : " ");
        sys::printArg(OS, A, /*Quote=*/A.find_first_of(" \t\"'$()*?;&|<>") !=
                                 std::string::npos);
      }
      TU.Job.Notes.push_back(std::string("clang command, ") +
                             (C.Heuristic == "cuda-host" ? "host" : "device") +
                             " side: " + Line);
    }
    DB->Order.push_back(TU.Job.File);
    DB->Units.emplace(TU.Job.File, std::move(TU));
  }
  return DB;
}

std::vector<CompileCommand>
CudaCompilationDatabase::getCompileCommands(StringRef FilePath) const {
  SmallString<256> P(FilePath);
  sys::path::remove_dots(P, true);
  auto It = Units.find(std::string(P));
  if (It == Units.end())
    return {};
  return It->second.Commands;
}

std::vector<std::string> CudaCompilationDatabase::getAllFiles() const {
  return Order;
}

std::vector<CompileCommand>
CudaCompilationDatabase::getAllCompileCommands() const {
  std::vector<CompileCommand> All;
  for (const std::string &F : Order)
    for (const CompileCommand &C : Units.at(F).Commands)
      All.push_back(C);
  return All;
}

std::vector<std::string> CudaCompilationDatabase::cudaFiles() const {
  return Order;
}

const TranslationUnit *CudaCompilationDatabase::unit(StringRef File) const {
  auto It = Units.find(File.str());
  return It == Units.end() ? nullptr : &It->second;
}

} // namespace driver
} // namespace forgestencil

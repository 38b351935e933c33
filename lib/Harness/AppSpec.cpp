//===- AppSpec.cpp - An application's app.json ----------------------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Harness/AppSpec.h"

#include "forgestencil/Harness/OutputCompare.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace forgestencil {
namespace harness {

using nlohmann::json;

namespace {

/// Reads the fields of one app.json and remembers the first problem, with
/// the file and field it concerns.
class FieldReader {
public:
  explicit FieldReader(std::string FileName) : FileName(std::move(FileName)) {}

  bool failed() const { return !Problem.empty(); }
  const std::string &problem() const { return Problem; }

  void report(const std::string &Field, const std::string &Message) {
    if (Problem.empty())
      Problem = FileName + ": field '" + Field + "': " + Message;
  }

  /// The member \p Key of \p Object, or null when it is absent; a required
  /// member that is absent is reported.
  const json *member(const json &Object, const std::string &Key,
                     const std::string &Field, bool Required) {
    auto It = Object.find(Key);
    if (It != Object.end() && !It->is_null())
      return &*It;
    if (Required)
      report(Field, "missing");
    return nullptr;
  }

  std::optional<std::string> string(const json &Object, const std::string &Key,
                                    const std::string &Field, bool Required) {
    const json *Value = member(Object, Key, Field, Required);
    if (!Value)
      return std::nullopt;
    if (!Value->is_string()) {
      report(Field, "expected a string, found " + std::string(Value->type_name()));
      return std::nullopt;
    }
    return Value->get<std::string>();
  }

  std::optional<std::vector<std::string>>
  stringList(const json &Object, const std::string &Key,
             const std::string &Field, bool Required) {
    const json *Value = member(Object, Key, Field, Required);
    if (!Value)
      return std::nullopt;
    if (!Value->is_array()) {
      report(Field, "expected a list of strings, found " +
                        std::string(Value->type_name()));
      return std::nullopt;
    }
    std::vector<std::string> Items;
    for (size_t I = 0; I < Value->size(); ++I) {
      const json &Item = (*Value)[I];
      if (!Item.is_string()) {
        report(Field + "[" + std::to_string(I) + "]",
               "expected a string, found " + std::string(Item.type_name()));
        return std::nullopt;
      }
      Items.push_back(Item.get<std::string>());
    }
    return Items;
  }

  const json *object(const json &Parent, const std::string &Key,
                     const std::string &Field, bool Required) {
    const json *Value = member(Parent, Key, Field, Required);
    if (Value && !Value->is_object()) {
      report(Field, "expected an object, found " +
                        std::string(Value->type_name()));
      return nullptr;
    }
    return Value;
  }

private:
  std::string FileName;
  std::string Problem;
};

void readRun(FieldReader &Reader, const json &Root, AppSpec &Spec) {
  const json *Run = Reader.object(Root, "run", "run", /*Required=*/true);
  if (!Run)
    return;
  if (auto Full = Reader.stringList(*Run, "full", "run.full", true))
    Spec.FullArgs = *Full;
  Spec.SmallArgs = Reader.stringList(*Run, "small", "run.small", false);
}

void readTimer(FieldReader &Reader, const json &Root, AppSpec &Spec) {
  const json *Timer = Reader.object(Root, "timer", "timer", true);
  if (!Timer)
    return;
  if (auto Regex = Reader.string(*Timer, "regex", "timer.regex", true)) {
    Spec.Timer.Regex = *Regex;
    Expected<std::regex> Compiled = compileCapturePattern(*Regex, "");
    if (!Compiled)
      Reader.report("timer.regex", Compiled.error());
  }
  if (auto Unit = Reader.string(*Timer, "unit", "timer.unit", false)) {
    Spec.Timer.Unit = *Unit;
    Expected<double> Scale = millisecondsPerUnit(*Unit);
    if (!Scale)
      Reader.report("timer.unit", Scale.error());
  }
}

void readCheck(FieldReader &Reader, const json &Root, AppSpec &Spec) {
  const json *Check = Reader.object(Root, "check", "check", true);
  if (!Check)
    return;
  if (auto Regex = Reader.string(*Check, "regex", "check.regex", true)) {
    Spec.Check.Regex = *Regex;
    Expected<std::regex> Compiled = compileCapturePattern(*Regex, "");
    if (!Compiled)
      Reader.report("check.regex", Compiled.error());
  }
  if (auto Pass = Reader.string(*Check, "pass", "check.pass", false)) {
    if (Pass->empty())
      Reader.report("check.pass", "the pass word must not be empty");
    Spec.Check.PassWord = *Pass;
  }
}

void readOutput(FieldReader &Reader, const json &Root, AppSpec &Spec) {
  if (auto Type = Reader.string(Root, "output_type", "output_type", false)) {
    Spec.OutputType = *Type;
    Expected<ElementType> Parsed = parseElementType(*Type);
    if (!Parsed)
      Reader.report("output_type", Parsed.error());
  }
  Spec.OutputArgs = Reader.stringList(Root, "output", "output", false);
  if (!Spec.OutputArgs)
    return;
  // Without the placeholder the harness could not give each run its own file.
  for (const std::string &Arg : *Spec.OutputArgs)
    if (Arg.find("${OUT_FILE}") != std::string::npos)
      return;
  Reader.report("output", "no argument contains ${OUT_FILE}");
}

} // namespace

Expected<AppSpec> parseAppSpec(const std::string &JsonText,
                               const std::string &FileName) {
  json Root = json::parse(JsonText, nullptr, /*allow_exceptions=*/false);
  if (Root.is_discarded())
    return fail(FileName + ": not valid JSON");
  if (!Root.is_object())
    return fail(FileName + ": expected a JSON object at the top level");

  FieldReader Reader(FileName);
  AppSpec Spec;
  if (auto Name = Reader.string(Root, "name", "name", true)) {
    if (Name->empty())
      Reader.report("name", "must not be empty");
    Spec.Name = *Name;
  }
  if (const json *Source = Reader.object(Root, "source", "source", false))
    if (auto Kind = Reader.string(*Source, "kind", "source.kind", false))
      Spec.SourceKind = *Kind;
  if (auto Build = Reader.stringList(Root, "build", "build", false))
    Spec.BuildCommands = *Build;
  if (auto Binary = Reader.string(Root, "binary", "binary", true)) {
    if (Binary->empty())
      Reader.report("binary", "must not be empty");
    Spec.Binary = *Binary;
  }
  readRun(Reader, Root, Spec);
  readTimer(Reader, Root, Spec);
  readCheck(Reader, Root, Spec);
  readOutput(Reader, Root, Spec);
  if (auto Kernels = Reader.stringList(Root, "kernels", "kernels", false))
    Spec.Kernels = *Kernels;
  if (auto Commands = Reader.string(Root, "compile_commands",
                                    "compile_commands", false))
    Spec.CompileCommands = *Commands;

  if (Reader.failed())
    return fail(Reader.problem());
  return Spec;
}

Expected<AppSpec> loadAppSpec(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return fail(Path + ": cannot be read");
  std::ostringstream Text;
  Text << In.rdbuf();
  return parseAppSpec(Text.str(), Path);
}

std::string expandPlaceholders(const std::string &Text,
                               const PlaceholderValues &Values) {
  std::string Result;
  size_t Position = 0;
  while (Position < Text.size()) {
    size_t Open = Text.find("${", Position);
    size_t Close = Open == std::string::npos ? Open : Text.find('}', Open);
    if (Close == std::string::npos) {
      Result.append(Text, Position, std::string::npos);
      break;
    }
    Result.append(Text, Position, Open - Position);
    auto Value = Values.find(Text.substr(Open + 2, Close - Open - 2));
    if (Value != Values.end())
      Result += Value->second;
    else
      Result.append(Text, Open, Close - Open + 1);
    Position = Close + 1;
  }
  return Result;
}

} // namespace harness
} // namespace forgestencil

//===- AppSpec.cpp - An application's app.json ----------------------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Harness/AppSpec.h"

#include "forgestencil/Harness/OutputCompare.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <regex>
#include <set>
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

  std::optional<double> number(const json &Object, const std::string &Key,
                               const std::string &Field, bool Required) {
    const json *Value = member(Object, Key, Field, Required);
    if (!Value)
      return std::nullopt;
    if (!Value->is_number()) {
      report(Field, "expected a number, found " + std::string(Value->type_name()));
      return std::nullopt;
    }
    double Number = Value->get<double>();
    if (!std::isfinite(Number)) {
      report(Field, "must be a finite number");
      return std::nullopt;
    }
    return Number;
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
  Spec.CheckArgs = Reader.stringList(*Run, "check", "run.check", false);
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
  const json *Check = Reader.object(Root, "check", "check", false);
  if (!Check)
    return;
  CheckPattern Pattern;
  if (auto Regex = Reader.string(*Check, "regex", "check.regex", true)) {
    Pattern.Regex = *Regex;
    Expected<std::regex> Compiled = compileCapturePattern(*Regex, "");
    if (!Compiled)
      Reader.report("check.regex", Compiled.error());
  }
  auto Pass = Reader.string(*Check, "pass", "check.pass", false);
  if (Pass) {
    if (Pass->empty())
      Reader.report("check.pass", "the pass word must not be empty");
    Pattern.PassWord = *Pass;
  }
  Pattern.Min = Reader.number(*Check, "min", "check.min", false);
  Pattern.Max = Reader.number(*Check, "max", "check.max", false);
  if (Pattern.isNumeric() && Pass)
    Reader.report("check.pass", "a numeric check (check.min/check.max) has no "
                                "pass word");
  if (Pattern.Min && Pattern.Max && *Pattern.Min > *Pattern.Max)
    Reader.report("check.min", "is larger than check.max");
  Spec.Check = Pattern;
}

void readOutput(FieldReader &Reader, const json &Root, AppSpec &Spec) {
  if (auto Type = Reader.string(Root, "output_type", "output_type", false)) {
    Spec.OutputType = *Type;
    Expected<ElementType> Parsed = parseElementType(*Type);
    if (!Parsed)
      Reader.report("output_type", Parsed.error());
  }
  if (auto MaxRel = Reader.number(Root, "output_max_rel", "output_max_rel",
                                  false)) {
    if (*MaxRel < 0)
      Reader.report("output_max_rel", "must not be negative");
    Spec.OutputMaxRelDiff = MaxRel;
  }
  Spec.OutputArgs = Reader.stringList(Root, "output", "output", false);
  if (!Spec.OutputArgs)
    return;
  // Without the placeholder the harness could not give each run its own file
  // (or directory).
  bool File = false, Dir = false;
  for (const std::string &Arg : *Spec.OutputArgs) {
    File |= Arg.find("${OUT_FILE}") != std::string::npos;
    Dir |= Arg.find("${OUT_DIR}") != std::string::npos;
  }
  if (File && Dir)
    Reader.report("output", "uses both ${OUT_FILE} and ${OUT_DIR}; an app "
                            "writes either one file or a directory");
  else if (!File && !Dir)
    Reader.report("output", "no argument contains ${OUT_FILE} or ${OUT_DIR}");
  Spec.OutputIsDirectory = Dir;
}

/// Placeholders the harness fills itself; a variant may not redefine them.
bool isHarnessPlaceholder(const std::string &Name) {
  return Name == "SRC_DIR" || Name == "BUILD_DIR" || Name == "APP_DIR" ||
         Name == "OUT_FILE" || Name == "OUT_DIR" || Name == "VARIANT";
}

void readVariants(FieldReader &Reader, const json &Root, AppSpec &Spec) {
  const json *Variants = Reader.member(Root, "variants", "variants", false);
  if (!Variants)
    return;
  if (!Variants->is_array() || Variants->empty()) {
    Reader.report("variants", "expected a non-empty list of objects");
    return;
  }
  static const std::regex NamePattern("[A-Za-z0-9._-]+");
  static const std::regex VarPattern("[A-Za-z_][A-Za-z0-9_]*");
  std::set<std::string> Seen;
  for (size_t I = 0; I < Variants->size(); ++I) {
    std::string Field = "variants[" + std::to_string(I) + "]";
    const json &Item = (*Variants)[I];
    if (!Item.is_object()) {
      Reader.report(Field, "expected an object, found " +
                               std::string(Item.type_name()));
      return;
    }
    VariantSpec Variant;
    if (auto Name = Reader.string(Item, "name", Field + ".name", true)) {
      if (!std::regex_match(*Name, NamePattern) || *Name == "." ||
          *Name == "..")
        Reader.report(Field + ".name", "'" + *Name +
                                           "' is not a name of letters, "
                                           "digits, '.', '_' and '-'");
      else if (!Seen.insert(*Name).second)
        Reader.report(Field + ".name", "'" + *Name + "' is used twice");
      Variant.Name = *Name;
    }
    if (auto Text = Reader.string(Item, "description", Field + ".description",
                                  false))
      Variant.Description = *Text;
    if (const json *Vars = Reader.object(Item, "vars", Field + ".vars", false)) {
      for (const auto &[Key, Value] : Vars->items()) {
        std::string VarField = Field + ".vars." + Key;
        if (!std::regex_match(Key, VarPattern))
          Reader.report(VarField, "not a placeholder name ([A-Za-z_][A-Za-z0-9_]*)");
        else if (isHarnessPlaceholder(Key))
          Reader.report(VarField, "${" + Key + "} is the harness's own");
        if (!Value.is_string())
          Reader.report(VarField, "expected a string, found " +
                                      std::string(Value.type_name()));
        else
          Variant.Vars[Key] = Value.get<std::string>();
      }
    }
    Variant.BuildCommands =
        Reader.stringList(Item, "build", Field + ".build", false);
    Variant.Binary = Reader.string(Item, "binary", Field + ".binary", false);
    if (Variant.Binary && Variant.Binary->empty())
      Reader.report(Field + ".binary", "must not be empty");
    if (const json *Run = Reader.object(Item, "run", Field + ".run", false)) {
      Variant.FullArgs = Reader.stringList(*Run, "full", Field + ".run.full", false);
      Variant.SmallArgs =
          Reader.stringList(*Run, "small", Field + ".run.small", false);
      Variant.CheckArgs =
          Reader.stringList(*Run, "check", Field + ".run.check", false);
    }
    Spec.Variants.push_back(std::move(Variant));
  }
}

/// Rules that tie fields together.
void checkConsistency(FieldReader &Reader, const AppSpec &Spec) {
  bool AnyCheckRun = Spec.CheckArgs.has_value();
  for (const VariantSpec &Variant : Spec.Variants)
    AnyCheckRun |= Variant.CheckArgs.has_value();
  if (!Spec.Check && !Spec.OutputArgs)
    Reader.report("check", "missing: an app without a check of its own needs "
                           "'output', so that the harness can compare the "
                           "outputs of the two modes");
  else if (!Spec.Check && AnyCheckRun)
    Reader.report("run.check", "a check run needs 'check' to judge it");
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
  if (auto Failure = Reader.string(Root, "failure_regex", "failure_regex", false)) {
    Spec.FailureRegex = *Failure;
    try {
      std::regex Compiled(*Failure, std::regex::ECMAScript);
      (void)Compiled;
    } catch (const std::regex_error &Error) {
      Reader.report("failure_regex", "invalid regular expression '" + *Failure +
                                         "': " + Error.what());
    }
  }
  readCheck(Reader, Root, Spec);
  readOutput(Reader, Root, Spec);
  readVariants(Reader, Root, Spec);
  if (!Reader.failed())
    checkConsistency(Reader, Spec);
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

AppSpec applyVariant(const AppSpec &App, const VariantSpec &Variant) {
  AppSpec Result = App;
  Result.Variants.clear();
  if (Variant.BuildCommands)
    Result.BuildCommands = *Variant.BuildCommands;
  if (Variant.Binary)
    Result.Binary = *Variant.Binary;
  if (Variant.FullArgs)
    Result.FullArgs = *Variant.FullArgs;
  if (Variant.SmallArgs)
    Result.SmallArgs = Variant.SmallArgs;
  if (Variant.CheckArgs)
    Result.CheckArgs = Variant.CheckArgs;

  PlaceholderValues Values(Variant.Vars.begin(), Variant.Vars.end());
  Values["VARIANT"] = Variant.Name;
  auto Expand = [&](std::vector<std::string> &List) {
    for (std::string &Item : List)
      Item = expandPlaceholders(Item, Values);
  };
  Expand(Result.BuildCommands);
  Result.Binary = expandPlaceholders(Result.Binary, Values);
  Expand(Result.FullArgs);
  if (Result.SmallArgs)
    Expand(*Result.SmallArgs);
  if (Result.CheckArgs)
    Expand(*Result.CheckArgs);
  if (Result.OutputArgs)
    Expand(*Result.OutputArgs);
  return Result;
}

} // namespace harness
} // namespace forgestencil

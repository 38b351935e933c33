//===- ProfileParsers.cpp - Read ptxas resource lines and ncu CSV --------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Agents/ProfileParsers.h"

#include <algorithm>
#include <cstdlib>
#include <regex>

namespace forgestencil {
namespace agents {

namespace {

std::vector<std::string_view> splitLines(std::string_view Text) {
  std::vector<std::string_view> Lines;
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t End = Text.find('\n', Pos);
    if (End == std::string_view::npos)
      End = Text.size();
    std::string_view Line = Text.substr(Pos, End - Pos);
    if (!Line.empty() && Line.back() == '\r')
      Line.remove_suffix(1);
    Lines.push_back(Line);
    Pos = End + 1;
  }
  return Lines;
}

/// The number before \p Label in \p Line (`24 bytes spill stores` with label
/// `bytes spill stores` -> 24), or nullopt.
std::optional<long> numberBefore(const std::string &Line, const std::string &Label) {
  std::smatch Match;
  std::regex Pattern("(\\d+) " + Label);
  if (!std::regex_search(Line, Match, Pattern))
    return std::nullopt;
  return std::strtol(Match[1].str().c_str(), nullptr, 10);
}

} // namespace

std::vector<PtxasFunctionInfo> parsePtxasInfo(std::string_view Text) {
  static const std::regex Compiling(
      R"(Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex Properties(R"(Function properties for (\S+))");
  std::vector<PtxasFunctionInfo> Functions;
  std::string PendingEntry, PendingArch;
  PtxasFunctionInfo *Current = nullptr;

  auto Select = [&](const std::string &Name) {
    // `Compiling entry function` names a kernel before its properties come.
    for (auto It = Functions.rbegin(); It != Functions.rend(); ++It)
      if (It->MangledName == Name && It->Arch == PendingArch) {
        Current = &*It;
        return;
      }
    PtxasFunctionInfo Info;
    Info.MangledName = Name;
    Info.Arch = PendingArch;
    Info.IsEntry = Name == PendingEntry;
    Functions.push_back(Info);
    Current = &Functions.back();
  };

  for (std::string_view View : splitLines(Text)) {
    std::string Line(View);
    std::smatch Match;
    if (std::regex_search(Line, Match, Compiling)) {
      PendingEntry = Match[1];
      PendingArch = Match[2];
      Select(PendingEntry);
      continue;
    }
    if (std::regex_search(Line, Match, Properties)) {
      Select(Match[1]);
      continue;
    }
    if (!Current)
      continue;
    if (auto Stack = numberBefore(Line, "bytes stack frame"))
      Current->StackFrameBytes = *Stack;
    if (auto Stores = numberBefore(Line, "bytes spill stores"))
      Current->SpillStoreBytes = *Stores;
    if (auto Loads = numberBefore(Line, "bytes spill loads"))
      Current->SpillLoadBytes = *Loads;
    if (Line.find("Used ") == std::string::npos)
      continue;
    if (auto Registers = numberBefore(Line, "registers"))
      Current->Registers = static_cast<int>(*Registers);
    if (auto Barriers = numberBefore(Line, "barriers"))
      Current->Barriers = static_cast<int>(*Barriers);
    if (auto Shared = numberBefore(Line, "bytes smem"))
      Current->SharedBytes = *Shared;
    if (auto Constant = numberBefore(Line, "bytes cmem\\[0\\]"))
      Current->ConstantBytes = *Constant;
  }
  return Functions;
}

namespace {

/// Splits one CSV record with RFC 4180 quoting (`""` is a quote inside a
/// quoted field).
std::vector<std::string> splitCsvRecord(std::string_view Line) {
  std::vector<std::string> Fields(1);
  bool Quoted = false;
  for (size_t I = 0; I < Line.size(); ++I) {
    char C = Line[I];
    if (Quoted) {
      if (C == '"' && I + 1 < Line.size() && Line[I + 1] == '"') {
        Fields.back() += '"';
        ++I;
      } else if (C == '"') {
        Quoted = false;
      } else {
        Fields.back() += C;
      }
      continue;
    }
    if (C == '"')
      Quoted = true;
    else if (C == ',')
      Fields.emplace_back();
    else
      Fields.back() += C;
  }
  return Fields;
}

std::optional<double> parseNumber(const std::string &Text) {
  std::string Digits;
  for (char C : Text)
    if (C != ',')
      Digits += C;
  if (Digits.empty())
    return std::nullopt;
  char *End = nullptr;
  double Value = std::strtod(Digits.c_str(), &End);
  if (End != Digits.c_str() + Digits.size())
    return std::nullopt;
  return Value;
}

} // namespace

Result<std::vector<NcuMetric>> parseNcuCsv(std::string_view Text) {
  std::vector<std::string_view> Lines = splitLines(Text);
  size_t HeaderLine = 0;
  while (HeaderLine < Lines.size() && Lines[HeaderLine].rfind("\"ID\"", 0) != 0)
    ++HeaderLine;
  if (HeaderLine == Lines.size())
    return makeError("no ncu CSV header (a row starting with \"ID\") was found");

  std::vector<std::string> Header = splitCsvRecord(Lines[HeaderLine]);
  auto Column = [&](const char *Name) -> int {
    auto It = std::find(Header.begin(), Header.end(), Name);
    return It == Header.end() ? -1 : static_cast<int>(It - Header.begin());
  };
  int Id = Column("ID"), Kernel = Column("Kernel Name"),
      Section = Column("Section Name"), Name = Column("Metric Name"),
      Unit = Column("Metric Unit"), Value = Column("Metric Value");
  if (Kernel < 0 || Name < 0 || Unit < 0 || Value < 0)
    return makeError("the ncu CSV header lacks one of \"Kernel Name\", "
                     "\"Metric Name\", \"Metric Unit\", \"Metric Value\" (was "
                     "it run with --page details?)");

  std::vector<NcuMetric> Metrics;
  for (size_t I = HeaderLine + 1; I < Lines.size(); ++I) {
    if (Lines[I].empty() || Lines[I].front() != '"')
      continue; // Application output or a ==PROF== line between rows.
    std::vector<std::string> Fields = splitCsvRecord(Lines[I]);
    // Metric rows end before the rule columns ncu appends to the header
    // ("Rule Name" ... "Estimated Speedup"); rule rows fill them. Either way
    // a row must reach the columns read here.
    const int Needed = std::max({Id, Kernel, Section, Name, Unit, Value}) + 1;
    if (static_cast<int>(Fields.size()) < Needed ||
        Fields.size() > Header.size())
      return makeError("ncu CSV row " + std::to_string(I + 1) + " has " +
                       std::to_string(Fields.size()) + " fields, the header " +
                       std::to_string(Header.size()));
    NcuMetric Metric;
    Metric.LaunchId = std::atoi(Fields[Id].c_str());
    Metric.KernelName = Fields[Kernel];
    if (Section >= 0)
      Metric.SectionName = Fields[Section];
    Metric.MetricName = Fields[Name];
    Metric.Unit = Fields[Unit];
    Metric.ValueText = Fields[Value];
    Metric.Value = parseNumber(Fields[Value]);
    Metrics.push_back(std::move(Metric));
  }
  return Metrics;
}

const NcuMetric *findNcuMetric(const std::vector<NcuMetric> &Metrics,
                               std::string_view MetricName,
                               std::string_view KernelSubstring) {
  for (const NcuMetric &Metric : Metrics)
    if (Metric.MetricName == MetricName &&
        Metric.KernelName.find(KernelSubstring) != std::string::npos)
      return &Metric;
  return nullptr;
}

} // namespace agents
} // namespace forgestencil

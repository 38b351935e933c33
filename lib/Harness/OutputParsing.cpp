//===- OutputParsing.cpp - The app's own timer and check lines ------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Harness/OutputParsing.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <sstream>

namespace forgestencil {
namespace harness {

Expected<double> millisecondsPerUnit(const std::string &Unit) {
  if (Unit == "ns")
    return 1e-6;
  if (Unit == "us")
    return 1e-3;
  if (Unit == "ms")
    return 1.0;
  if (Unit == "s")
    return 1e3;
  if (Unit == "min")
    return 60e3;
  return fail("unknown time unit '" + Unit +
              "' (expected one of ns, us, ms, s, min)");
}

Expected<std::regex> compileCapturePattern(const std::string &Pattern,
                                           const std::string &What) {
  std::string Prefix = What.empty() ? "" : What + ": ";
  std::regex Compiled;
  try {
    Compiled = std::regex(Pattern, std::regex::ECMAScript);
  } catch (const std::regex_error &Error) {
    return fail(Prefix + "invalid regular expression '" + Pattern +
                "': " + Error.what());
  }
  if (Compiled.mark_count() < 1)
    return fail(Prefix + "regular expression '" + Pattern +
                "' has no capture group; group 1 must hold the value");
  return Compiled;
}

namespace {

/// Capture group 1 of the last match of \p Pattern in \p Output.
std::optional<std::string> lastCapture(const std::string &Output,
                                       const std::regex &Pattern) {
  std::optional<std::string> Last;
  for (std::sregex_iterator It(Output.begin(), Output.end(), Pattern), End;
       It != End; ++It)
    if ((*It)[1].matched)
      Last = (*It)[1].str();
  return Last;
}

} // namespace

Expected<double> parseTimerMs(const std::string &Output,
                              const TimerPattern &Timer) {
  Expected<double> Scale = millisecondsPerUnit(Timer.Unit);
  if (!Scale)
    return fail("timer.unit: " + Scale.error());
  Expected<std::regex> Pattern = compileCapturePattern(Timer.Regex, "timer.regex");
  if (!Pattern)
    return fail(Pattern.error());

  std::optional<std::string> Text = lastCapture(Output, *Pattern);
  if (!Text)
    return fail("no timer line matching '" + Timer.Regex + "' in the output");
  errno = 0;
  char *End = nullptr;
  double Value = std::strtod(Text->c_str(), &End);
  if (Text->empty() || End != Text->c_str() + Text->size() || errno == ERANGE)
    return fail("the timer line holds '" + *Text + "', which is not a number");
  if (!std::isfinite(Value) || Value < 0)
    return fail("the timer line holds '" + *Text +
                "', which is not a finite non-negative time");
  return Value * *Scale;
}

std::string CheckPattern::describeRule() const {
  if (!isNumeric())
    return "'" + PassWord + "'";
  std::ostringstream Text;
  Text.precision(9);
  if (Min && Max)
    Text << "in [" << *Min << ", " << *Max << "]";
  else if (Max)
    Text << "<= " << *Max;
  else
    Text << ">= " << *Min;
  return Text.str();
}

namespace {

/// Whether \p Text is a finite number within the bounds of \p Check.
bool withinBounds(const std::string &Text, const CheckPattern &Check) {
  errno = 0;
  char *End = nullptr;
  double Value = std::strtod(Text.c_str(), &End);
  if (Text.empty() || End != Text.c_str() + Text.size() || errno == ERANGE ||
      !std::isfinite(Value))
    return false;
  return (!Check.Min || Value >= *Check.Min) &&
         (!Check.Max || Value <= *Check.Max);
}

} // namespace

Expected<CheckVerdict> parseCheck(const std::string &Output,
                                  const CheckPattern &Check) {
  Expected<std::regex> Pattern = compileCapturePattern(Check.Regex, "check.regex");
  if (!Pattern)
    return fail(Pattern.error());
  std::optional<std::string> Word = lastCapture(Output, *Pattern);
  if (!Word)
    return fail("no check line matching '" + Check.Regex + "' in the output");
  bool Passed = Check.isNumeric() ? withinBounds(*Word, Check)
                                  : *Word == Check.PassWord;
  return CheckVerdict{*Word, Passed};
}

Expected<InAppVerification> parseInAppVerification(const std::string &Output) {
  static const std::regex Summary(
      R"(forgestencil verify: (\d+) launch\(es\) compared: (\d+) identical, )"
      R"((\d+) differ; (\d+) not compared(; (\d+) fell back to the original)?)");
  static const std::regex Launch(R"(forgestencil verify: (.*) launch \d+: (.*))");
  static const std::regex Times(
      R"(forgestencil verify: kernel (.*): original ([0-9.]+) ms, copy )"
      R"(([0-9.]+) ms, original/copy [0-9.]+ \(median of (\d+) launch)");
  InAppVerification V;
  bool Found = false;
  unsigned Differing = 0;
  std::istringstream Lines(Output);
  std::string Line;
  while (std::getline(Lines, Line)) {
    std::smatch M;
    if (std::regex_search(Line, M, Summary)) {
      Found = true;
      V.Compared = unsigned(std::stoul(M[1]));
      V.Identical = unsigned(std::stoul(M[2]));
      V.Differ = unsigned(std::stoul(M[3]));
      V.NotCompared = unsigned(std::stoul(M[4]));
      V.FellBack = M[6].matched ? unsigned(std::stoul(M[6])) : 0;
    } else if (std::regex_search(Line, M, Times)) {
      V.Kernels.push_back({M[1], std::stod(M[2]), std::stod(M[3]),
                           unsigned(std::stoul(M[4]))});
    } else if (std::regex_search(Line, M, Launch)) {
      std::string What = M[2];
      std::string Text = Line.substr(size_t(M.position(1)));
      if (What.rfind("DIFFERS", 0) == 0) {
        V.Differing.push_back(Text);
        ++Differing;
      } else if (What.rfind("FALLS BACK", 0) == 0) {
        V.FallingBack.push_back(Text);
      } else if (What.rfind("not compared", 0) == 0) {
        V.Skipped.push_back(Text);
      }
    }
  }
  if (!Found)
    return fail("no 'forgestencil verify: N launch(es) compared' line in the "
                "output of the USE_OURS=verify run");
  if (V.Identical + V.Differ + V.FellBack != V.Compared ||
      Differing != V.Differ || V.FallingBack.size() != V.FellBack)
    return fail("the USE_OURS=verify run's summary line does not add up with "
                "its per-launch lines");
  return V;
}

} // namespace harness
} // namespace forgestencil

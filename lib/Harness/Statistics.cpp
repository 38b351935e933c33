//===- Statistics.cpp - Robust summaries of repeated timings --------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//

#include "forgestencil/Harness/Statistics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace forgestencil {
namespace harness {

Expected<double> median(std::vector<double> Values) {
  if (Values.empty())
    return fail("the median of an empty list is undefined");
  size_t Middle = Values.size() / 2;
  std::nth_element(Values.begin(), Values.begin() + Middle, Values.end());
  double Upper = Values[Middle];
  if (Values.size() % 2 == 1)
    return Upper;
  double Lower = *std::max_element(Values.begin(), Values.begin() + Middle);
  return (Lower + Upper) / 2;
}

Expected<std::pair<double, double>> minMax(const std::vector<double> &Values) {
  if (Values.empty())
    return fail("the range of an empty list is undefined");
  auto [Min, Max] = std::minmax_element(Values.begin(), Values.end());
  return std::make_pair(*Min, *Max);
}

Expected<std::vector<double>>
pairRatios(const std::vector<double> &Numerators,
           const std::vector<double> &Denominators) {
  if (Numerators.size() != Denominators.size())
    return fail("cannot pair " + std::to_string(Numerators.size()) +
                " values with " + std::to_string(Denominators.size()));
  std::vector<double> Ratios;
  Ratios.reserve(Numerators.size());
  for (size_t I = 0; I < Numerators.size(); ++I) {
    if (!(Denominators[I] > 0))
      return fail("pair " + std::to_string(I + 1) +
                  " has a non-positive denominator");
    Ratios.push_back(Numerators[I] / Denominators[I]);
  }
  return Ratios;
}

uint64_t uniformBelow(std::mt19937_64 &Generator, uint64_t Bound) {
  // Reject the top partial copy of [0, Bound) so every value is equally
  // likely; at most one draw in two is rejected.
  uint64_t Limit = std::numeric_limits<uint64_t>::max() -
                   std::numeric_limits<uint64_t>::max() % Bound;
  uint64_t Draw;
  do
    Draw = Generator();
  while (Draw >= Limit);
  return Draw % Bound;
}

namespace {

/// The \p Fraction quantile of sorted \p Values, linearly interpolated
/// between neighbouring order statistics.
double sortedQuantile(const std::vector<double> &Values, double Fraction) {
  double Position = Fraction * double(Values.size() - 1);
  size_t Below = size_t(std::floor(Position));
  size_t Above = std::min(Below + 1, Values.size() - 1);
  double Weight = Position - double(Below);
  return Values[Below] + Weight * (Values[Above] - Values[Below]);
}

} // namespace

Expected<Interval> bootstrapMedianInterval(const std::vector<double> &Values,
                                           unsigned Resamples, uint64_t Seed,
                                           double Confidence) {
  if (Values.empty())
    return fail("cannot bootstrap an empty list");
  if (Resamples == 0)
    return fail("the bootstrap needs at least one resample");
  if (!(Confidence > 0 && Confidence < 1))
    return fail("the confidence level must lie strictly between 0 and 1");
  if (Values.size() == 1)
    return Interval{Values[0], Values[0]};

  std::mt19937_64 Generator(Seed);
  std::vector<double> Medians;
  Medians.reserve(Resamples);
  std::vector<double> Sample(Values.size());
  for (unsigned R = 0; R < Resamples; ++R) {
    for (double &Slot : Sample)
      Slot = Values[uniformBelow(Generator, Values.size())];
    Medians.push_back(*median(Sample));
  }
  std::sort(Medians.begin(), Medians.end());
  double Tail = (1 - Confidence) / 2;
  return Interval{sortedQuantile(Medians, Tail),
                  sortedQuantile(Medians, 1 - Tail)};
}

} // namespace harness
} // namespace forgestencil

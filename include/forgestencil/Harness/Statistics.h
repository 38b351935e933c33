//===- Statistics.h - Robust summaries of repeated timings ----------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The harness reports medians (robust to the odd slow run), the spread as
/// min/max, and the speed-up as the median of per-pair ratios: each round pair
/// runs the original and our code back to back, so drift on the machine
/// (clocks, other jobs) cancels within a pair. The uncertainty of that median
/// is a percentile bootstrap interval with a fixed seed, so the same runs
/// always give the same report.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_HARNESS_STATISTICS_H
#define FORGESTENCIL_HARNESS_STATISTICS_H

#include "forgestencil/Harness/Expected.h"

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace forgestencil {
namespace harness {

/// The median of \p Values: the middle value, or the mean of the two middle
/// values for an even count. Fails on an empty list.
Expected<double> median(std::vector<double> Values);

/// The smallest and largest of \p Values. Fails on an empty list.
Expected<std::pair<double, double>> minMax(const std::vector<double> &Values);

/// Element-wise \p Numerators[i] / \p Denominators[i]. Fails when the lists
/// differ in length or a denominator is not positive.
Expected<std::vector<double>>
pairRatios(const std::vector<double> &Numerators,
           const std::vector<double> &Denominators);

/// A two-sided confidence interval.
struct Interval {
  double Low = 0;
  double High = 0;
};

/// The percentile bootstrap interval of the median of \p Values: \p Resamples
/// resamples with replacement drawn from a generator seeded with \p Seed; the
/// interval holds the central \p Confidence fraction of the resampled medians.
/// A single value gives the degenerate interval [v, v]. Fails on an empty list,
/// no resamples, or a confidence outside (0, 1).
Expected<Interval> bootstrapMedianInterval(const std::vector<double> &Values,
                                           unsigned Resamples, uint64_t Seed,
                                           double Confidence = 0.95);

/// A uniformly distributed integer in [0, \p Bound) from \p Generator.
/// std::uniform_int_distribution differs between standard libraries; this
/// rejection sampler does not, so a seed reproduces a run on any host.
uint64_t uniformBelow(std::mt19937_64 &Generator, uint64_t Bound);

} // namespace harness
} // namespace forgestencil

#endif // FORGESTENCIL_HARNESS_STATISTICS_H

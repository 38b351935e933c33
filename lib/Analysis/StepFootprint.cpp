//===- StepFootprint.cpp - One time step's points, from N steps' points --===//

#include "StepFootprint.h"

#include <algorithm>
#include <climits>
#include <cstdlib>

namespace forgestencil {
namespace analysis {
namespace detail {
namespace {

/// The size factors of \p M (what is left once the thread-dependent and
/// selector symbols are taken out); whether it had a thread-dependent one
/// (\p Thread) or any that is not a size (\p Other).
Monomial sizePart(const Monomial &M, const SymbolKinds &Kind, bool &Thread,
                  bool &Other) {
  Thread = Other = false;
  // blockIdx.d * blockDim.d is the block's place, not a stride; blockDim
  // times threadIdx.y is part of a thread's linear place in its block
  // (threadIdx.y * blockDim.x + threadIdx.x).
  std::multiset<std::string> Paired;
  unsigned Linear = 0;
  for (const std::string &S : M)
    if (S.compare(0, 4, "bid.") == 0)
      Paired.insert("bdim." + S.substr(4));
    else if (S.compare(0, 4, "tid.") == 0)
      ++Linear;
  for (const std::string &S : M)
    if (Linear && S.compare(0, 5, "bdim.") == 0 && !Paired.count(S)) {
      Paired.insert(S);
      --Linear;
    }
  Monomial Size;
  for (const std::string &S : M) {
    if (auto It = Paired.find(S); It != Paired.end()) {
      Paired.erase(It);
      continue;
    }
    switch (Kind(S)) {
    case SymbolKind::Thread:
      Thread = Other = true;
      break;
    case SymbolKind::Selector:
      Other = true;
      break;
    case SymbolKind::Size:
      Size.push_back(S);
      break;
    }
  }
  return Size;
}

} // namespace

std::optional<std::vector<Monomial>> indexAxes(const Poly &Stored,
                                               const SymbolKinds &Kind) {
  std::set<Monomial> Found;
  for (const auto &[M, C] : Stored.terms()) {
    bool Thread = false, Other = false;
    Monomial Size = sizePart(M, Kind, Thread, Other);
    if (Thread)
      Found.insert(Size);
  }
  std::vector<Monomial> Axes(Found.begin(), Found.end());
  std::stable_sort(Axes.begin(), Axes.end(),
                   [](const Monomial &A, const Monomial &B) {
                     return A.size() < B.size();
                   });
  if (Axes.empty() || Axes.size() > 3)
    return std::nullopt;
  return Axes;
}

std::optional<StepOffset> indexOffset(const Poly &Delta,
                                      const std::vector<Monomial> &Axes,
                                      const SymbolKinds &Kind) {
  StepOffset O{0, 0, 0};
  for (const auto &[M, C] : Delta.terms()) {
    bool Thread = false, Other = false;
    Monomial Size = sizePart(M, Kind, Thread, Other);
    if (Thread)
      return std::nullopt;
    if (Other)
      continue; // A uniform selector: the time level, not a point.
    auto It = std::find(Axes.begin(), Axes.end(), Size);
    if (It == Axes.end())
      return std::nullopt;
    O[It - Axes.begin()] += C;
  }
  return O;
}

std::optional<std::set<StepOffset>>
stepFootprint(const std::set<StepOffset> &Step,
              const std::set<StepOffset> &Composite, unsigned N) {
  if (Step.empty() || Composite.empty() || N == 0 || N > 64 ||
      Step.size() > 4096)
    return std::nullopt;
  std::set<StepOffset> Sum{{0, 0, 0}};
  for (unsigned I = 0; I < N; ++I) {
    std::set<StepOffset> Next;
    for (const StepOffset &A : Sum)
      for (const StepOffset &B : Step) {
        Next.insert({A[0] + B[0], A[1] + B[1], A[2] + B[2]});
        if (Next.size() > 400000)
          return std::nullopt;
      }
    Sum = std::move(Next);
  }
  if (Sum.size() != Composite.size())
    return std::nullopt;
  // Sum + N t == Composite: t from the lowest corners.
  const int64_t Steps = static_cast<int64_t>(N);
  StepOffset T{0, 0, 0};
  for (int D = 0; D < 3; ++D) {
    int64_t LoSum = INT64_MAX, LoComposite = INT64_MAX;
    for (const StepOffset &A : Sum)
      LoSum = std::min(LoSum, A[D]);
    for (const StepOffset &A : Composite)
      LoComposite = std::min(LoComposite, A[D]);
    int64_t Diff = LoComposite - LoSum;
    if (Diff % Steps != 0)
      return std::nullopt;
    T[D] = Diff / Steps;
  }
  for (const StepOffset &A : Sum)
    if (!Composite.count({A[0] + Steps * T[0], A[1] + Steps * T[1],
                          A[2] + Steps * T[2]}))
      return std::nullopt;
  std::set<StepOffset> F;
  for (const StepOffset &A : Step)
    F.insert({A[0] + T[0], A[1] + T[1], A[2] + T[2]});
  return F;
}

namespace {

/// The offsets of \p From from \p Stored on \p Axes, or nullopt.
std::optional<std::set<StepOffset>>
offsetsOf(const std::vector<Poly> &From, const Poly &Stored,
          const std::vector<Monomial> &Axes, const SymbolKinds &Kind) {
  std::set<StepOffset> Out;
  for (const Poly &P : From) {
    std::optional<StepOffset> O = indexOffset(P - Stored, Axes, Kind);
    if (!O)
      return std::nullopt;
    Out.insert(*O);
  }
  return Out;
}

} // namespace

std::optional<TemporalBlocking::StepFootprint>
oneStep(const std::vector<StoredSample> &Last,
        const std::vector<std::vector<Poly>> &FirstSteps, unsigned N,
        const SymbolKinds &Kind, std::string &Why) {
  std::optional<std::vector<Monomial>> Axes;
  std::set<std::set<StepOffset>> Composites;
  for (const StoredSample &St : Last) {
    std::optional<std::vector<Monomial>> A = indexAxes(St.Index, Kind);
    if (!A || (Axes && *A != *Axes)) {
      Why = "the stored index has no axes, or stores disagree on them";
      return std::nullopt;
    }
    Axes = A;
    if (std::optional<std::set<StepOffset>> C =
            offsetsOf(St.From, St.Index, *A, Kind))
      Composites.insert(*C);
  }
  if (Composites.empty()) {
    Why = "no store of the last step whose elements are known";
    return std::nullopt;
  }
  // The first step's updates in the first store's frame.
  std::set<std::set<StepOffset>> Firsts;
  for (const std::vector<Poly> &From : FirstSteps)
    if (std::optional<std::set<StepOffset>> G =
            offsetsOf(From, Last.front().Index, *Axes, Kind))
      Firsts.insert(*G);
  if (Firsts.empty()) {
    Why = "no first-step update whose elements are known";
    return std::nullopt;
  }
  std::set<std::set<StepOffset>> Found;
  for (const std::set<StepOffset> &C : Composites)
    for (const std::set<StepOffset> &G : Firsts)
      if (std::optional<std::set<StepOffset>> One = stepFootprint(G, C, N))
        Found.insert(*One);
  if (Found.size() != 1) {
    Why = Found.empty() ? "no first-step update summed " + std::to_string(N) +
                              " times gives a stored value's footprint"
                        : "first-step updates of different footprints fit";
    return std::nullopt;
  }
  return describeStep(*Found.begin(), static_cast<unsigned>(Axes->size()));
}

TemporalBlocking::StepFootprint describeStep(const std::set<StepOffset> &F,
                                             unsigned Dims) {
  TemporalBlocking::StepFootprint S;
  S.Dims = Dims;
  S.Offsets.assign(F.begin(), F.end());
  bool Star = true;
  for (const StepOffset &O : F) {
    int NonZero = 0;
    for (int D = 0; D < 3; ++D) {
      S.Radius = std::max<int64_t>(S.Radius, std::llabs(O[D]));
      NonZero += O[D] != 0;
    }
    Star &= NonZero <= 1;
  }
  int64_t Cube = 1;
  for (unsigned D = 0; D < Dims && D < 3; ++D)
    Cube *= 2 * S.Radius + 1;
  bool Box = static_cast<int64_t>(F.size()) == Cube;
  for (const StepOffset &O : F)
    for (unsigned D = Dims; D < 3; ++D)
      Box &= O[D] == 0;
  // A 1-D footprint (or a single point) is both: it is called a star.
  S.Shape = Star ? "star" : Box ? "box" : "other";
  return S;
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

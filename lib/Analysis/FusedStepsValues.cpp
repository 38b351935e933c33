//===- FusedStepsValues.cpp - What the fused-step walk knows of a value ---===//

#include "FusedStepsValues.h"

namespace forgestencil {
namespace analysis {
namespace detail {
namespace fused {

bool sameElements(const Val &A, const Val &B) {
  if (A.From == B.From)
    return true;
  return A.From && B.From && *A.From == *B.From;
}

ElementsRef unite(const Val &A, const Val &B) {
  if (A.Depth < 0)
    return B.From;
  if (B.Depth < 0)
    return A.From;
  if (!A.From || !B.From)
    return nullptr;
  auto U = std::make_shared<Elements>(*A.From);
  U->insert(B.From->begin(), B.From->end());
  return U;
}

Val combine(const Val &A, const Val &B) {
  Val V = B.Depth > A.Depth ? B : A;
  V.From = unite(A, B);
  return V;
}

Val either(const Val &A, const Val &B) {
  Val V = B.Depth > A.Depth ? B : A;
  if (A.Depth == B.Depth && !sameElements(A, B))
    V.From = nullptr;
  return V;
}

Val eitherAfter(const Val *Before, const Val &T, const Val &E) {
  Val V = either(T, E);
  if (T.Depth != E.Depth || V.From || !Before)
    return V;
  if (Before->Depth == T.Depth && sameElements(*Before, T))
    V.From = E.From;
  else if (Before->Depth == E.Depth && sameElements(*Before, E))
    V.From = T.From;
  return V;
}

State merge(const State &A, const State &B, const State *Before) {
  State M = A;
  for (const auto &[V, X] : B.Vars) {
    auto [It, New] = M.Vars.emplace(V, X);
    if (New)
      continue;
    const Val *Old = nullptr;
    if (Before)
      if (auto BI = Before->Vars.find(V); BI != Before->Vars.end())
        Old = &BI->second;
    It->second = eitherAfter(Old, It->second, X);
  }
  for (auto &[V, X] : M.Ints) {
    auto It = B.Ints.find(V);
    if (It == B.Ints.end() || It->second != X)
      X.reset();
  }
  for (const auto &[V, X] : B.Ints)
    if (!M.Ints.count(V))
      M.Ints.emplace(V, std::nullopt);
  M.SharedPointers.insert(B.SharedPointers.begin(), B.SharedPointers.end());
  M.Shared = eitherAfter(Before ? &Before->Shared : nullptr, A.Shared, B.Shared);
  if (A.SharedAt != B.SharedAt || A.SharedBase != B.SharedBase)
    M.SharedAt.reset();
  return M;
}

} // namespace fused
} // namespace detail
} // namespace analysis
} // namespace forgestencil

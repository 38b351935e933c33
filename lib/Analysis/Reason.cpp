//===- Reason.cpp - Kinds of refusal --------------------------------------===//

#include "forgestencil/Analysis/Reason.h"

#include <iterator>

namespace forgestencil {
namespace analysis {

namespace {
struct KindName {
  ReasonKind Kind;
  const char *Name;
};
constexpr KindName Names[] = {
    {ReasonKind::NotParsed, "not-parsed"},
    {ReasonKind::Untracked, "untracked"},
    {ReasonKind::ControlFlow, "control-flow"},
    {ReasonKind::StoreIndex, "store-index"},
    {ReasonKind::ReadIndex, "read-index"},
    {ReasonKind::Guard, "guard"},
    {ReasonKind::Boundary, "boundary"},
    {ReasonKind::SharedTile, "shared-tile"},
    {ReasonKind::Loop, "loop"},
    {ReasonKind::LoopNotFollowed, "loop-not-followed"},
    {ReasonKind::LoopCarry, "loop-carry"},
    {ReasonKind::Update, "update"},
    {ReasonKind::Store, "store"},
    {ReasonKind::Parameter, "parameter"},
    {ReasonKind::Size, "size"},
    {ReasonKind::Reduction, "reduction"},
    {ReasonKind::Indirect, "indirect"},
    {ReasonKind::Pointwise, "pointwise"},
    {ReasonKind::NoStore, "no-store"},
    {ReasonKind::BoundaryOnly, "boundary-only"},
    {ReasonKind::Transpose, "transpose"},
    {ReasonKind::DataBranch, "data-branch"},
    {ReasonKind::TemporalBlocking, "temporal-blocking"},
};
} // namespace

const char *reasonKindName(ReasonKind K) {
  for (const KindName &N : Names)
    if (N.Kind == K)
      return N.Name;
  return "unknown";
}

std::optional<ReasonKind> reasonKindFromName(const std::string &Name) {
  for (const KindName &N : Names)
    if (Name == N.Name)
      return N.Kind;
  return std::nullopt;
}

bool losesLoads(ReasonKind K) {
  switch (K) {
  case ReasonKind::Untracked:
  case ReasonKind::ControlFlow:
  case ReasonKind::LoopNotFollowed:
  case ReasonKind::LoopCarry:
  // A read through a clamp or a wrap the IR cannot state is left out of it.
  case ReasonKind::Boundary:
    return true;
  default:
    return false;
  }
}

} // namespace analysis
} // namespace forgestencil

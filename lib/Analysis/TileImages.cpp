//===- TileImages.cpp - Periodic images in a __shared__ tile --------------===//
///
/// \file
/// A pencil kernel whose block spans a whole axis (i = threadIdx.x, one
/// block per row) may fill its tile's halo with the periodic image of the
/// row it holds, copied within the tile:
///
///   s[sj][i + 4] = f[row + i];
///   __syncthreads();
///   if (i < 4) { s[sj][i] = s[sj][i + mx - 1];       // below 0
///                s[sj][i + mx + 4] = s[sj][i + 5]; }  // beyond mx - 1
///
/// A read s[sj][i + 4 + o] then sees f at i + o inside the row and, beyond
/// its ends, the point a period away: i + o + P below 0, i + o - P above the
/// last point. The period need not be the row's length: a grid that repeats
/// its first point as its last (x = 0 and x = mx - 1 the same place) has
/// P = mx - 1, as above.
///
/// traceTileRead finds, thread by thread, the global element each reader
/// sees. Where the readers disagree, periodicTileImage accepts them only
/// when every reader sees one global read, the same but for its index, and
/// the indices differ by whole periods along an axis the block spans
/// alone (threadIdx.D without blockIdx.D): +P for exactly the first |o|
/// threads of the block along D, or -P for exactly its last o, nothing for
/// the others. The read is then the global read at o wrapped into
/// [0, B - 1] by P (B the block's size along D), stated as a wrap of
/// Wraps.cpp with a clamp set per reader; wrappedAxis checks them as it
/// does the wraps of global reads, and the IR gets wrap_lower, wrap_upper
/// and, where P is not B, wrap_period. Anything else stays "sees different
/// global elements in different threads of the block".
///
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

#include <cstdlib>

namespace forgestencil {
namespace analysis {
namespace detail {

std::optional<DPtr> Interpreter::periodicTileImage(
    const std::string &Tile,
    const std::vector<std::pair<ThreadPos, DPtr>> &Seen, const ThreadPos &RLo,
    const ThreadPos &RHi) {
  if (Seen.empty())
    return std::nullopt;
  // The value most readers see: the read inside the row.
  std::map<std::string, std::pair<size_t, DPtr>> Count; // readers, a tree
  for (const auto &[R, T] : Seen) {
    auto &[N, Tree] = Count[treeKey(T)];
    if (N++ == 0)
      Tree = T;
  }
  DPtr Ref;
  size_t Most = 0;
  for (const auto &[K, NT] : Count)
    if (NT.first > Most) {
      Most = NT.first;
      Ref = NT.second;
    }
  auto Plain = [](const DPtr &T) {
    if (!T || T->K != DNode::Read || T->Shared || !T->InBounds.empty())
      return false;
    for (const ClampSet &S : T->Clamps)
      if (!S.Ids.empty())
        return false;
    return true;
  };
  if (!Plain(Ref))
    return std::nullopt;
  // Each reader's index less the reference's.
  std::vector<Poly> Delta;
  for (const auto &[R, T] : Seen) {
    if (!Plain(T))
      return std::nullopt;
    DNode Same = *T;
    Same.Index = Ref->Index;
    if (!sameTree(Same, *Ref))
      return std::nullopt;
    Delta.push_back(T->Index - Ref->Index);
  }
  for (int D = 0; D < 3; ++D) {
    const std::string Sym = mixedPosition(D, -1);
    std::optional<Poly> S = Ref->Index.coefficientOf(Sym);
    auto B = BlockSizes.find(D);
    if (!S || *S == Poly() || moves(Value::index(*S)) ||
        B == BlockSizes.end() || RLo[D] != 0 || RHi[D] != B->second)
      continue;
    const int64_t Size = B->second;
    // The shift of each reader in points along D, and the period.
    std::vector<int64_t> Shift;
    int64_t P = 0;
    bool Ok = true;
    for (const Poly &Dl : Delta) {
      // The whole number of points along D, as an offset of one stride.
      std::optional<ir::Offset> O = solveOffset(Dl, {*S});
      std::optional<int64_t> N =
          O ? std::optional<int64_t>((*O)[0]) : std::nullopt;
      if (!N || (*N != 0 && P != 0 && std::llabs(*N) != P)) {
        Ok = false;
        break;
      }
      if (*N != 0)
        P = std::llabs(*N);
      Shift.push_back(*N);
    }
    if (!Ok || P == 0 || P > Size)
      continue;
    // How far the read reaches beyond either end of the block.
    int64_t Below = 0, Above = 0;
    for (size_t I = 0; I < Seen.size(); ++I) {
      const int64_t T = Seen[I].first[D];
      if (Shift[I] > 0)
        Below = std::max(Below, T + 1);
      else if (Shift[I] < 0)
        Above = std::max(Above, Size - T);
    }
    if ((Below > 0) == (Above > 0) || std::max(Below, Above) > P)
      continue;
    for (size_t I = 0; I < Seen.size() && Ok; ++I) {
      const int64_t T = Seen[I].first[D];
      const int64_t Want = T < Below ? P : T >= Size - Above ? -P : 0;
      Ok = Shift[I] == Want;
    }
    if (!Ok)
      continue;
    ClampInfo W;
    W.Wrap = true;
    W.Upper = Above > 0;
    W.Lo = Poly::constant(0);
    W.Hi = Poly::constant(Size - 1);
    if (P != Size)
      W.Period = Poly::constant(P);
    W.Arg = Poly::symbol(Sym) + Poly::constant(Above > 0 ? Above : -Below);
    W.Text = "the periodic image in the __shared__ array '" + Tile + "'";
    Wraps.insert(W.Text);
    const int Id = static_cast<int>(ClampInfos.size());
    ClampInfos.push_back(std::move(W));
    auto Out = std::make_shared<DNode>(*Ref);
    Out->Clamps.clear();
    for (size_t I = 0; I < Seen.size(); ++I) {
      ClampSet CS;
      CS.InBlock = true;
      CS.Reader = Seen[I].first;
      if (Shift[I] != 0)
        CS.Ids.push_back({Id, *S});
      Out->Clamps.push_back(std::move(CS));
    }
    return Out;
  }
  return std::nullopt;
}

} // namespace detail
} // namespace analysis
} // namespace forgestencil

//===- Strategy.h - How a stencil is mapped onto the GPU -------------------===//
///
/// \file
/// A Strategy is the *how* of a stencil kernel: block shape, points per
/// thread and along which axis, streaming along the slowest axis with a
/// register queue, shared-memory tiles, vector width, unrolling and launch
/// bounds. The Stencil IR is the *what*. A strategy turns (IR, parameters)
/// into CUDA source text: a kernel plus a launcher with the original kernel's
/// parameters that honours the replacement semantics (docs/forge.md).
///
/// Adding a strategy is one file pair in lib/Forge/Strategies/ and one line
/// in lib/Forge/StrategyRegistry.cpp.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_STRATEGY_H
#define FORGESTENCIL_FORGE_STRATEGY_H

#include "forgestencil/IR/StencilIR.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace forge {

/// The tunable parameters of every strategy. A strategy reads the ones it
/// understands and documents the rest as ignored.
struct StrategyParams {
  std::string Strategy;
  unsigned BlockX = 32, BlockY = 4, BlockZ = 1;
  /// Consecutive points per thread along the contiguous axis, loaded and
  /// stored as one vector (1, 2 or 4) where alignment allows.
  unsigned VectorWidth = 1;
  /// Points per thread along the middle axis (3-D only).
  unsigned PointsY = 1;
  /// Points per thread along the slowest axis, visited in order.
  unsigned ZChunk = 1;
  /// Keep the centre column's values along the slowest axis in registers.
  bool RegisterQueue = false;
  /// With RegisterQueue: keep every vector the thread reads (all rows and
  /// chunks of every plane), not only the centre column, so each step loads
  /// one new plane (boxes reuse 2r+1 planes of neighbours).
  bool PlaneQueue = false;
  /// Stage the plane at the current slowest-axis position in shared memory.
  bool SharedTile = false;
  /// Second argument of __launch_bounds__ (0: none).
  unsigned MinBlocksPerSM = 0;
  /// Unroll factor of the slowest-axis loop (1: none).
  unsigned Unroll = 1;
  /// Planes copied ahead into shared memory with asynchronous copies (0: no
  /// staging): the block's tile of every array read at xy neighbours is
  /// staged this many steps before it is read (column strategies, see
  /// lib/Forge/PlaneStage.h).
  unsigned Stages = 0;
  /// Issue each step's loads in the reverse of their usual order (column
  /// strategies; the others ignore it). The order changes nothing computed,
  /// but nvcc schedules the step differently: run 29 measured -5.5 to +3.6
  /// points of copy for rtm's kernels between the two orders.
  bool ReverseLoads = false;
  /// Cache-streaming hints (column strategies; the others ignore it): the
  /// fast path stores the outputs with st.global.cs and loads the read-only
  /// arrays read only at the point itself (a per-point velocity) with
  /// ld.global.cs. Both mark lines touched once as first to evict, leaving
  /// L1 and L2 to the arrays read at neighbours. Run 31 measured +2.9 points
  /// of copy for rtm's staged kernel at 384^3 and -17 to +0.5 for others, so
  /// it is a knob for fs-tune, not a default.
  bool StreamingHints = false;
  /// Column strategies with vectors over long runs, unstaged (the column
  /// generator refuses it otherwise; the other strategies ignore it):
  /// groups start at the multiple of VectorWidth at or below the domain's
  /// first column, and a group cut by the domain's edge along x runs the
  /// vector path like any other, storing only its points inside the domain
  /// and reading at the group itself where its chunks would leave the row.
  /// Without it those columns get a block column of their own, whose blocks
  /// each walk a run of planes for a few columns (run 32: they cost the
  /// 27-point box 3 to 13 points of copy, by shape). Needs the contiguous
  /// axis's extent in the IR, a multiple of VectorWidth at run time, and
  /// reads that stay in the row.
  bool MaskedEdges = false;

  /// A short stable identifier, e.g. "zmarch.32x4.v4.y1.z32.q.u2".
  std::string id() const;
  nlohmann::json toJson() const;
  static std::optional<StrategyParams> fromJson(const nlohmann::json &J,
                                                std::string &Error);
  /// As above; errors name the member below \p Path
  /// ("candidates[2].params.block[0]: ...").
  static std::optional<StrategyParams> fromJson(const nlohmann::json &J,
                                                std::string &Error,
                                                const std::string &Path);
  /// The inverse of id(): "zsum.32x4.v1.y8.z8" gives that point. Only the
  /// canonical form id() writes is accepted; the Error names the bad part.
  static std::optional<StrategyParams> fromId(const std::string &Id,
                                              std::string &Error);
  /// The ranges fromJson and fromId accept (block 1..1024 threads, vectors
  /// of 1, 2 or 4, at most 8 stages, counts at least 1).
  bool validate(std::string &Error) const;
  bool operator==(const StrategyParams &O) const {
    return toJson() == O.toJson();
  }
};

/// A point of \p Strategy's search space: block BX x BY, VW-wide vectors,
/// PY rows and ZC planes per thread, the rest at their defaults.
StrategyParams searchPoint(const std::string &Strategy, unsigned BX,
                           unsigned BY, unsigned VW, unsigned PY, unsigned ZC);

/// \p S cut at every \p Sep, empty parts kept: "a..b" gives a, "", b.
std::vector<std::string> splitOn(const std::string &S, char Sep);

/// Appends \p P to \p Space unless an equal point is already there.
void addSearchPoint(std::vector<StrategyParams> &Space,
                    const StrategyParams &P);

/// At most \p N points of \p Space, spread evenly over it in its order: the
/// first, the last and the rest at equal steps between them (N = 1: the
/// first). All of \p Space when it has no more than N points or N is 0.
/// fs-bench's --per-strategy: a few shapes of each strategy instead of its
/// whole space.
std::vector<StrategyParams> spreadSample(const std::vector<StrategyParams> &Space,
                                         unsigned N);

/// How generated code reaches __constant__ coefficient arrays.
enum class ConstantMode {
  /// The generated file defines its own `static __constant__` copies and a
  /// host setter `<launcher>_set_<name>(const void *, size_t)` (fs-bench).
  DefineWithSetter,
  /// The original symbols are visible where the file is included (patches).
  UseExisting,
};

struct GenerateOptions {
  /// Name of the extern launcher function.
  std::string LauncherName = "fs_launch";
  ConstantMode Constants = ConstantMode::UseExisting;
};

/// The generated CUDA source, or why there is none.
struct GeneratedSource {
  std::string Source;
  std::string Error;
  bool ok() const { return Error.empty(); }
};

class Strategy {
public:
  virtual ~Strategy() = default;
  /// The registry key, e.g. "zmarch".
  virtual const char *name() const = 0;
  /// One line for --help and the docs.
  virtual const char *description() const = 0;
  /// Empty when this strategy can generate code for IR; otherwise why not.
  virtual std::string whyNot(const ir::StencilIR &IR) const;
  /// The parameters worth measuring for IR, best guess first.
  virtual std::vector<StrategyParams>
  searchSpace(const ir::StencilIR &IR) const = 0;
  /// Source text for (IR, P). A kernel parameter named like an identifier
  /// the generated code uses itself is renamed there (ParamNames.h); the
  /// launcher takes the same arguments in the same order.
  GeneratedSource generate(const ir::StencilIR &IR, const StrategyParams &P,
                           const GenerateOptions &Opts) const;

protected:
  /// Source text for (IR, P), with the parameters as IR names them.
  virtual GeneratedSource emit(const ir::StencilIR &IR,
                               const StrategyParams &P,
                               const GenerateOptions &Opts) const = 0;
};

/// Every registered strategy, in registration order.
const std::vector<std::unique_ptr<Strategy>> &allStrategies();
/// The strategy called Name, or nullptr.
const Strategy *findStrategy(const std::string &Name);

} // namespace forge
} // namespace forgestencil

#endif

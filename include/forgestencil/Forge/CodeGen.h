//===- CodeGen.h - Pieces every stencil code generator shares --------------===//
///
/// \file
/// The parts of a generated kernel that do not depend on the strategy: the
/// 3-D view of an IR (contiguous axis, middle axis, slowest axis), the
/// update expression in the IR's tree order, the launcher that turns the
/// original grid/block and arguments into the exact iteration domain, and
/// the `__constant__` coefficient arrays. Also the "original" kernel that
/// the IR describes, which fs-bench launches as the straightforward
/// baseline and as the reference the candidates must match.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_CODEGEN_H
#define FORGESTENCIL_FORGE_CODEGEN_H

#include "forgestencil/Forge/Strategy.h"
#include "forgestencil/IR/StencilIR.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace forge {

/// A stencil seen in three dimensions whatever its rank: view axis 0 is the
/// contiguous axis, 2 the slowest axis (the one a z-march streams along) and
/// 1 the middle axis. A 2-D stencil has no middle axis, a 1-D one neither a
/// middle nor a slowest axis; missing axes have the range [0, 1).
class StencilView {
public:
  struct Array {
    std::string Name;
    bool Read = false, Written = false;
    /// Offsets it is read at, in view axes, sorted and unique.
    std::vector<ir::Offset> Offsets;
    bool readOnly() const { return Read && !Written; }
  };

  /// Checks what every generator relies on; std::nullopt and a reason when
  /// the IR is outside that (e.g. an output read at a neighbour's offset,
  /// which would race in the original too).
  static std::optional<StencilView> create(const ir::StencilIR &IR,
                                           std::string &Error);

  const ir::StencilIR &ir() const { return *IR; }
  /// The IR axis behind view axis A, or -1.
  int irAxis(int A) const { return IRAxis[A]; }
  /// An IR offset (dx, dy, dz in IR axis order) in view axes.
  ir::Offset toView(const ir::Offset &IROff) const;
  const std::vector<Array> &arrays() const { return Arrays; }
  const Array *array(const std::string &Name) const;
  /// Smallest / largest read offset along view axis A over all arrays.
  int minOffset(int A) const;
  int maxOffset(int A) const;
  /// Write offset of the output in view axes.
  ir::Offset writeOffset(const std::string &Output) const;
  const std::string &elementType() const { return IR->ElementType; }
  /// "float4", "float2", "double2" or "" when no such vector exists.
  std::string vectorType(unsigned Width) const;

private:
  const ir::StencilIR *IR = nullptr;
  int IRAxis[3] = {-1, -1, -1};
  std::vector<Array> Arrays;
};

/// Produces the code that reads Array at an offset in IR axes.
using ReadEmitter =
    std::function<std::string(const std::string &Array, const ir::Offset &)>;

/// The expression in the IR's tree order, fully parenthesised so nvcc sees
/// the same operation order as in the original (no reassociation).
/// With \p IR, an element of a multi-dimensional coefficient array is
/// indexed as declared (`k[1][2]`), else by its flat index.
std::string emitExpr(const ir::Expr &E, const ReadEmitter &Read,
                     const ir::StencilIR *IR = nullptr);

/// Whether an axis of the IR is split from a 1-D thread id.
bool hasLinearAxes(const ir::StencilIR &IR);
/// For a kernel on a 1-D thread id: the C expression of a point's id from
/// view coordinates named by Coord ("fs_hi[0] - 1", "x", ...).
std::string linearIdOf(const StencilView &V,
                       const std::function<std::string(int)> &Coord);
/// The "s0", "s1", "s2" terms of an offset in view axes, e.g.
/// " + (-1) * s1" (nothing for offset 0).
std::string offsetTerms(const ir::Offset &ViewOff);
/// The generated kernel's parameters: the original's arrays re-typed as
/// `const T *__restrict__` (read only) or `T *__restrict__` (written), its
/// other parameters as spelled, then `Idx lo0, hi0, lo1, hi1, lo2, hi2, s0,
/// s1, s2` (the domain and the element strides in view axes).
std::string kernelParams(const StencilView &V, const std::string &IdxType);
/// The arguments for kernelParams from inside the launcher.
std::string kernelArgs(const StencilView &V, const std::string &IdxType);

/// The launcher's signature and body up to the point where it has, in view
/// axes, `long long fs_lo[3], fs_hi[3], fs_st[3]` (empty domains return
/// early) and `bool fs_fits32` (every index the kernel forms fits in int,
/// with Slack elements to spare). The caller appends the launch and `}`.
/// For a kernel on a 1-D thread id whose launch stops inside the domain,
/// the head launches a one-point-per-thread kernel over exactly the points
/// the original's ids reach (defined before the launcher) and returns.
/// For clamped or wrapped axes (a replicated or periodic boundary) the head
/// launches a frame kernel, one point per thread with clamped or wrapped
/// reads, over the points with a read outside the bounds, and leaves in
/// fs_lo/fs_hi the interior, whose reads stay within them (returning when
/// it is empty): the strategy's kernel knows nothing about boundaries
/// (lib/Forge/Boundary.h).
std::string emitLauncherHead(const StencilView &V, const GenerateOptions &O,
                             unsigned Slack);
/// The condition, in the launcher, under which a vector kernel of Width may
/// run: unit stride, aligned pointers, row strides and write offsets that
/// are multiples of Width.
std::string emitVectorAlignmentCheck(const StencilView &V, unsigned Width);

/// The launcher's last statements: launches Kernel (a template on the index
/// type) on fs_grid/fs_block and the caller's stream with 32-bit indices when
/// fs_fits32, else 64-bit; then closes the launcher.
std::string emitIndexWidthLaunch(const StencilView &V, const std::string &Kernel);

/// `#ifndef N / #define N ((int)1024) / #endif` for each macro the IR keeps
/// by name: where the app's own definitions are not visible (fs-bench),
/// its named constants get the values the analysis saw; an app's
/// definitions win where they are.
std::string defineNamedConstants(const ir::StencilIR &IR);

/// __constant__ coefficient arrays (and their setters) as O asks.
std::string emitConstants(const StencilView &V, const GenerateOptions &O);

/// The setter `cudaError_t Fn(const void *host, size_t bytes)` of the
/// `__constant__` coefficient \p C, whose symbol \p Symbol is declared with
/// the type \p SymbolType. The drivers hand its C.Size values in
/// \p ValueType (the kernel's element type; double for a float64
/// reference); where the symbol is of another type (a `double` scalar in a
/// `float` kernel) each value is converted to it, as the app's own
/// cudaMemcpyToSymbol of a variable of that type would hold it, and a
/// byte count that is not C.Size values is refused.
std::string constantSetter(const std::string &Fn, const ir::Coefficient &C,
                           const std::string &Symbol,
                           const std::string &SymbolType,
                           const std::string &ValueType);

/// One point's updates: computes every value first, then stores them,
/// indexing with the flat index IndexVar and strides s0, s1, s2. With
/// BoundaryReads, reads along the IR's clamped or wrapped axes take the
/// clamped (`fs_clamp`) or wrapped (`fs_wrap`) coordinate, from the
/// launcher head's helpers; the point's view coordinates must be in scope
/// as x, y and z.
std::string emitPointUpdate(const StencilView &V, const std::string &Indent,
                            const std::string &IndexVar,
                            bool BoundaryReads = false);

/// Element type used for reads of Array in generated code: `__ldg` for
/// read-only arrays, a plain load otherwise.
std::string emitLoad(const StencilView &V, const std::string &Array,
                     const std::string &TypeName, const std::string &Address);

/// A file holding the kernel the IR describes, launched exactly like the
/// original (thread axes from blockIdx/threadIdx plus ThreadOffset, guards
/// Lower <= i < Upper, loop axes as loops, updates stored one after
/// another), and a launcher with the usual signature. With ElementType set,
/// every parameter of the IR's element type is retyped (a float64 reference
/// from a float kernel).
std::string emitOriginalSource(const ir::StencilIR &IR,
                               const GenerateOptions &O,
                               const std::string &ElementType = "");

/// \p Name declared with \p Type: `float *u`, and for a pointer to arrays
/// `float (*u)[512]` (the IR spells that type `float (*)[512]`).
std::string declareParam(const std::string &Type, const std::string &Name);

/// A signed number as a fragment of a variable name: -2 -> "m2", 3 -> "3".
std::string signedTag(int N);
/// A / B rounded towards minus infinity (B > 0).
int floorDiv(int A, int B);
/// The member of a CUDA vector type holding element I: "x", "y", "z", "w".
const char *vectorLane(unsigned I);
/// Where element \p E (relative to a group's first element, any sign) lies
/// in \p Width-wide vectors: the vector (relative to the group's first) and
/// the element in it.
struct VectorSlot {
  int Column;
  unsigned Component;
};
VectorSlot vectorSlot(int E, unsigned Width);
/// `make_<VectorType>(parts...)`, or the one part itself.
std::string makeVector(const std::string &VectorType,
                       const std::vector<std::string> &Parts);

/// The common header of every generated file.
std::string emitFilePrologue(const ir::StencilIR &IR,
                             const StrategyParams &P);

} // namespace forge
} // namespace forgestencil

#endif

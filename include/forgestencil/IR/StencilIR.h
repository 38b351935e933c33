//===- StencilIR.h - The description of one stencil kernel ----------------===//
///
/// \file
/// The Stencil IR says *what* a kernel computes, never *how*: the element
/// type, the axes and how they map to array indices, every input with the
/// offsets it is read at, every output with its write offset, the
/// coefficients, the update expression and the iteration domain. A code
/// generator turns it plus a Strategy into a kernel; the analysis produces it
/// from a kernel's AST. It serialises to versioned JSON (docs/stencil-ir.md)
/// and round-trips exactly.
///
/// This library has no LLVM dependency: the GPU-side tools read it too.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_IR_STENCILIR_H
#define FORGESTENCIL_IR_STENCILIR_H

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace forgestencil {
namespace ir {

/// The JSON schema identifier written into every IR document.
inline constexpr const char *SchemaId = "forgestencil.stencil-ir";
inline constexpr int SchemaVersion = 1;

/// A point offset (dx, dy, dz); unused axes are 0.
using Offset = std::array<int, 3>;

/// How a kernel finds the grid position an axis stands for.
enum class AxisSource {
  Thread,      ///< blockIdx.A * blockDim.A + threadIdx.A (A = x, y, z)
  Linear,      ///< split from a 1-D global id with / and %
  Loop,        ///< a for loop inside the kernel (e.g. over z)
  GridStride,  ///< a grid-stride loop over the axis
};

/// One axis of the iteration space, fastest first (axis 0 is contiguous).
struct Axis {
  std::string Name;         ///< The kernel variable, e.g. "i".
  AxisSource Source = AxisSource::Thread;
  char ThreadDim = 'x';     ///< For Thread/Linear/GridStride: x, y or z;
                            ///< for Thread also '-' (no threadIdx term).
  /// For Thread axes: the blockIdx the position is formed with, when it is
  /// not ThreadDim's: the position is blockIdx.B * blockDim.T + threadIdx.T
  /// (B = blockDim(), T = ThreadDim), without the threadIdx term when T is
  /// '-' (blockIdx.B alone: one point per block) and without the blockIdx
  /// term when B is '-' (threadIdx.T alone: one block spans the axis).
  /// 0 means the same as ThreadDim, the usual blockIdx.T*blockDim.T+threadIdx.T.
  char BlockDim = 0;
  char blockDim() const { return BlockDim ? BlockDim : ThreadDim; }
  /// A thread axis whose blocks have halo threads, more threads than the
  /// points a block computes (the textbook tile whose block is the output
  /// tile plus its halo, lib/Analysis/HaloThreads.cpp): the points one
  /// block covers along ThreadDim, and the first of its threads that
  /// computes. The position is blockIdx * BlockPoints + threadIdx -
  /// BlockFirst for the threads BlockFirst .. BlockFirst + BlockPoints - 1;
  /// the others compute nothing. 0: a block covers blockDim points.
  int64_t BlockPoints = 0, BlockFirst = 0;
  /// A thread axis whose block's threads along ThreadDim cover BlockPoints
  /// points by a loop stepping by the block's size (for (v = threadIdx.T;
  /// v < N; v += blockDim.T)): a block covers BlockPoints points along the
  /// axis, at blockIdx.B * BlockPoints + v (v alone without a blockIdx
  /// term), whatever its size along T; a block-dim-at-least assumption
  /// says how many threads the rest of the kernel needs. BlockFirst is 0.
  bool BlockLoop = false;
  /// A thread axis whose threads compute ThreadPoints points each (thread
  /// coarsening: a loop of that many rounds over consecutive points, or over
  /// points a block apart; lib/Analysis/Coarsening.h): the original's launch
  /// covers ThreadPoints times its threads along the axis. 1: one a thread.
  int64_t ThreadPoints = 1;
  /// A Thread axis formed as blockIdx.T * blockDim.T + threadIdx.T (the
  /// only mapping the generators and drivers reproduce the coverage of).
  bool usualThreadMapping() const {
    return blockDim() == ThreadDim && ThreadDim != '-';
  }
  /// Half-open iteration range as C expressions over kernel parameters;
  /// Thread axes are additionally bounded by the launch grid.
  std::string Lower = "0", Upper;
  /// The extent of the array along this axis (for strides): e.g. "nx".
  std::string Extent;
  /// Array coordinate minus the thread's (or loop variable's) position along
  /// this axis, e.g. "1" for i = blockIdx.x*blockDim.x + threadIdx.x + 1.
  /// With the launch grid it bounds which points the original kernel covers.
  std::string ThreadOffset = "0";
  /// Linear axes split from blockIdx.x * blockDim.x + threadIdx.x: the
  /// coordinate's weight in that 1-D id ("1", "nx", "nx*ny"), so that
  /// id = sum over the axes of (coordinate - thread_offset) * step, and for
  /// every axis but the slowest the modulus of the split ("nx", "ny"): the
  /// coordinate minus its offset lies in [0, modulus). Empty for other axes,
  /// and for a linear axis whose 1-D id is formed another way.
  std::string LinearStep, LinearModulus;
  /// A replicated boundary: every read of every input along this axis is at
  /// the coordinate clamped into [ClampLower, ClampUpper] (inclusive C
  /// expressions over kernel parameters), as min(max(c + o, lo), hi). Both
  /// empty when reads are not clamped; the domain lies within the bounds.
  std::string ClampLower, ClampUpper;
  bool clamped() const { return !ClampLower.empty(); }
  /// A periodic boundary: every read of every input along this axis at a
  /// coordinate c = p + o below WrapLower reads c + P, above WrapUpper
  /// c - P, where P = WrapUpper - WrapLower + 1 (inclusive C expressions over
  /// kernel parameters, e.g. "0" and "nx - 1"), or WrapPeriod where that is
  /// set: a grid whose last point repeats its first (x = 0 and x = nx - 1
  /// the same place) has the period nx - 1 on [0, nx - 1]. One shift is the
  /// periodic image: where some |o| >= 2 the IR assumes P >= max |o| (an
  /// AtLeast assumption). Both bounds empty when reads are not wrapped; the
  /// domain lies within the bounds. An axis is clamped or wrapped, never
  /// both.
  std::string WrapLower, WrapUpper, WrapPeriod;
  bool wrapped() const { return !WrapLower.empty(); }
  /// The period of a wrapped axis as a C expression.
  std::string wrapPeriod() const {
    return !WrapPeriod.empty()
               ? WrapPeriod
               : "(" + WrapUpper + ") - (" + WrapLower + ") + 1";
  }
  /// A zero boundary: every read of every input along this axis at a
  /// coordinate c = p + o outside [ZeroLower, ZeroUpper] (inclusive C
  /// expressions over kernel parameters) is 0 in the element type, not an
  /// element (the original tests the coordinate and takes the literal 0 in
  /// place of the load: in >= 0 && in < w ? a[...] : 0). Both empty when no
  /// read is replaced; the domain lies within the bounds. An axis has one
  /// boundary kind at most.
  std::string ZeroLower, ZeroUpper;
  bool zeroed() const { return !ZeroLower.empty(); }
  /// Reads along this axis stay within [boundaryLower(), boundaryUpper()]
  /// (clamped or wrapped there, or replaced by 0 outside).
  bool hasBoundary() const { return clamped() || wrapped() || zeroed(); }
  /// The inclusive bounds of the axis's boundary (clamp, wrap or zero
  /// bounds); empty when it has none.
  const std::string &boundaryLower() const {
    return wrapped() ? WrapLower : zeroed() ? ZeroLower : ClampLower;
  }
  const std::string &boundaryUpper() const {
    return wrapped() ? WrapUpper : zeroed() ? ZeroUpper : ClampUpper;
  }
};

/// A kernel parameter as the generated launcher must accept it.
struct Param {
  std::string Name;
  std::string Type;  ///< As spelled, e.g. "const float *__restrict__".
  enum Role { Input, Output, InOut, Scalar, Size, Other } Role = Other;
};

/// An array read by the stencil.
struct InputArray {
  std::string Param;             ///< The kernel parameter (or __constant__).
  std::vector<Offset> Offsets;   ///< Every offset read, sorted, unique.
  bool Restrict = false, Ldg = false;
  bool PerPointCoefficient = false; ///< Read only at offset 0 (e.g. velocity).
  /// The array's own element strides per axis (fastest first, C
  /// expressions; "0" for an axis it does not move along) when they are not
  /// the IR's Strides: a staggered array with longer rows, a 1-D table per
  /// axis (dx[i]). Empty: the IR's Strides. The element read at offset o
  /// for the point p is sum_a Strides[a] * (p[a] + o[a]).
  std::vector<std::string> Strides;
  /// Packed fields: the element of the allocation where this field starts,
  /// a C expression over kernel parameters that is a whole number of the
  /// grid's volumes ("2*nx*ny*nz" for u[2*n_cells + id]), when the kernel
  /// keeps several fields in one array. A parameter then appears once per
  /// field; (Param, Field) names the array. Empty: the field at element 0.
  std::string Field;
  /// Moves along fewer axes than the grid (a "0" stride): a per-axis table.
  bool perAxisTable() const {
    return std::find(Strides.begin(), Strides.end(), "0") != Strides.end();
  }
};

/// An array written by the stencil.
struct OutputArray {
  std::string Param;
  Offset WriteOffset{0, 0, 0};
  bool Accumulate = false; ///< out += ... (reads itself at the write point).
  bool InPlace = false;    ///< Also read as an input at other offsets.
  /// Its own element strides when they are not the IR's (as
  /// InputArray::Strides): a kernel that stores a staggered array with
  /// longer rows beside one of the grid's layout (CloverLeaf's mass flux
  /// beside its energy flux). Empty: the IR's Strides.
  std::vector<std::string> Strides;
  /// The box it is stored over, per axis [Lower, Upper) (C expressions in
  /// the store's coordinates, as the axes' bounds), when it is not the
  /// axes' domain: face arrays of a staggered grid stored one column or one
  /// row further than the cells. Empty: the axes' domain.
  std::vector<std::string> Lower, Upper;
  /// The field of the allocation it is stored to (as InputArray::Field).
  std::string Field;
};

/// A coefficient that is not a per-point array.
struct Coefficient {
  std::string Name;
  /// ParamArray: a pointer parameter (or struct field) the kernel reads only
  /// at indices every thread of a launch computes alike (alpha[step], a
  /// Runge-Kutta stage's rk_a[stage]); its references carry IndexExpr.
  enum Kind {
    Literal,
    ScalarParam,
    ConstantArray,
    ConstantScalar,
    ParamArray
  } Kind = Literal;
  std::string Type;           ///< Element type.
  unsigned Size = 1;          ///< Number of elements for arrays.
  /// The declared extents of a multi-dimensional array (`float k[5][5]`:
  /// 5, 5), outermost first; empty for a one-dimensional one. The IR's
  /// element index is the flat (row-major) one.
  std::vector<unsigned> Shape;
};

/// A compile-time constant the kernel names (an object-like macro, a const
/// or constexpr variable at namespace or class scope, an enumerator) that the
/// IR keeps by name: the strides, bounds and update expressions that mention
/// it are right for whatever value the app is built with. Generated code
/// sees the same names, since it is compiled in the kernel's own scope.
struct NamedConstant {
  std::string Name;   ///< C spelling: "N", "TILE", "::ns::kRadius".
  std::string Type;   ///< "int", "long long", "float", "double".
  std::string Value;  ///< Its value where the analysis parsed the kernel.
  enum Origin { Macro, Variable, Enumerator } Origin = Macro;
  std::string DefinedAt; ///< "file:line" of its definition, if known.
};

/// A value the IR holds only for one build or one launch: the generated
/// launcher checks it and runs the original kernel where it does not hold.
struct Assumption {
  enum Kind {
    CompileTime,  ///< Expr == Value for a C constant expression: a named
                  ///< constant whose number the analysis needed (a radius
                  ///< loop's bound, a tile's size).
    Preprocessor, ///< A conditional directive inside the kernel (or a
                  ///< helper it calls): Expr is its condition and Value "1"
                  ///< when the branch after it was taken, "0" when not.
    BlockDim,     ///< blockDim.<Expr> == Value at every launch (the kernel
                  ///< indexes blocks by a fixed size).
    GridExtent,   ///< gridDim.<Expr> * blockDim.<Expr> == Value, a C
                  ///< expression over the kernel's parameters: an unguarded
                  ///< thread axis covers exactly what the analysis assumed.
    GridDimMax,   ///< gridDim.<Expr> <= Value, a number: the kernel's
                  ///< __mul24(blockIdx.x, B) is blockIdx.x * B only while
                  ///< blockIdx fits in 24 bits.
    BlockDimAtLeast, ///< blockDim.<Expr> >= Value at every launch: a
                     ///< kernel whose block covers its points by loops
                     ///< stepping by its size (Axis::BlockLoop), whatever
                     ///< that size is from Value up (the threads below
                     ///< Value also fill a tile's halo).
    AtLeast,      ///< (Expr) >= Value, Expr a C expression over the
                  ///< kernel's parameters and Value a whole number: a
                  ///< wrapped axis read at |offset| R >= 2 has a period of
                  ///< at least R, so that one shift wraps every read.
    Holds,        ///< (Expr) is true (Value "1"), Expr a C condition over
                  ///< the kernel's parameters and named constants: the mode
                  ///< the IR describes, where a branch every thread of a
                  ///< launch takes alike has another side that is not a
                  ///< stencil (a block solve in shared memory); or where a
                  ///< guarded load takes the array's element at every point
                  ///< of the domain (the guard at the domain's corner).
  } Kind = CompileTime;
  std::string Expr, Value;
  std::string Why; ///< Where it comes from, for the generated comment.
};

/// A reduction fused into the stencil kernel: every thread stores a value
/// into the __shared__ array Shared, which only the call Call reads, and
/// that call writes the block's result through the pointer parameters
/// Outputs, which the stencil part never touches (TeaLeaf's error norm of a
/// Jacobi sweep, CloverLeaf's error flag); or, Shared empty, the threads
/// accumulate into Outputs by the atomic call Call (a solver's residual).
/// The IR describes the stencil part; no generator reproduces the
/// reduction, so the kernel is never rewritten (whyNoGenerator).
struct BlockReduction {
  /// The __shared__ array; empty for an accumulation by an atomic call
  /// (atomicAdd(res, d * d)), whose Call is then that call.
  std::string Shared;
  std::vector<std::string> Outputs; ///< Pointer parameters the call writes.
  std::string Call;                 ///< The call as written, for reports.
};

/// A node of the update expression tree.
struct Expr {
  enum Kind { Read, Coef, ParamRef, Literal, Unary, Binary, Call, Select } Kind =
      Literal;
  std::string Op;     ///< "+", "-", "*", "/", "neg" or the function name.
  /// Array (Read), coefficient (Coef), or for ParamRef a scalar parameter
  /// or a named constant of the IR's Constants.
  std::string Name;
  Offset Off{0, 0, 0};///< Read offset.
  int Index = -1;     ///< Element of a coefficient array, -1 for scalars.
  /// For a ParamArray coefficient: the element, a C expression over the
  /// kernel's integer parameters and named constants ("step", "s - 1").
  std::string IndexExpr;
  std::string Value;  ///< Literal spelling, e.g. "2.0f".
  /// Read: the field of the array (InputArray::Field), empty for element 0.
  std::string Field;
  std::vector<Expr> Args;
};

/// One output's update: Target[p + WriteOffset] (=|+=) Value.
struct Update {
  std::string Target;
  std::string TargetField; ///< OutputArray::Field of the target.
  bool Accumulate = false;
  Expr Value;
};

/// A boundary the kernel writes itself (Dirichlet): the points of the box
/// [Lower, Upper) that lie outside the domain get their own values, e.g.
/// if (interior) out = <stencil>; else out = u; (or = 0.0f). Each value
/// reads arrays only at the point itself (offset 0), besides literals,
/// parameters and coefficients; the box contains the domain.
struct BoundaryFrame {
  /// Per axis (the IR's axis order), half-open C expressions over the
  /// kernel's parameters, like Axis::Lower and Axis::Upper.
  std::vector<std::string> Lower, Upper;
  /// One plain store per output written there; an output not listed keeps
  /// its values on the frame.
  std::vector<Update> Updates;
  bool present() const { return !Updates.empty(); }
};

/// The description of one stencil kernel.
struct StencilIR {
  std::string Kernel;       ///< Qualified name of the original kernel.
  std::string SourceFile;   ///< Where it is defined (relative path).
  unsigned SourceLine = 0;
  std::string ElementType = "float";
  unsigned Dims = 0;
  std::vector<Axis> Axes;   ///< Fastest first.
  /// Element strides per axis as C expressions ("1", "nx", "nx*ny").
  std::vector<std::string> Strides;
  std::vector<Param> Params;
  std::vector<InputArray> Inputs;
  std::vector<OutputArray> Outputs;
  std::vector<Coefficient> Coefficients;
  std::vector<Update> Updates;
  /// Compile-time constants the expressions above name.
  std::vector<NamedConstant> Constants;
  /// What holds only for the build and launches the analysis saw.
  std::vector<Assumption> Assumptions;
  /// Block reductions the kernel computes beside the stencil.
  std::vector<BlockReduction> Reductions;
  /// Calls whose effect is outside the arrays (printf, assert), by name,
  /// each once: the IR describes the arrays' values only, so no generator
  /// rewrites such a kernel (a generated kernel would not print).
  std::vector<std::string> DeviceCalls;
  /// The boundary values the kernel writes around the domain, if any.
  BoundaryFrame Frame;
  /// Derived facts.
  std::string Shape;        ///< "star", "box" or "other".
  unsigned Radius = 0;
  unsigned Points = 0;      ///< Distinct offsets read from the main field(s).
  unsigned FlopsPerPoint = 0;
  unsigned BytesPerPoint = 0; ///< Compulsory: each array read/written once.
  std::vector<std::string> Notes;

  /// One line such as "3D star r=4 25pt f32, 1 out, 2 in".
  std::string summary() const;
  /// Recomputes Shape, Radius, Points, FlopsPerPoint and BytesPerPoint
  /// from the arrays and updates.
  void computeDerived();
  /// The block size along D (0 = x) that every launch must have, 0 if none.
  unsigned fixedBlockDim(int D) const;
  /// The named constant Name, or null.
  const NamedConstant *constant(const std::string &Name) const;
};

/// Element size in bytes of a C type name; 0 when unknown.
unsigned elementSize(const std::string &Type);

/// The most elements a `__constant__` coefficient array may have (64 KiB of
/// constant memory holds 16384 floats).
inline constexpr long long MaxCoefficientElements = 16384;

/// Checks that \p IR can be given to a code generator: every name that
/// reaches generated code is a C identifier (or a member access of one),
/// every type is a C type, every literal is a number and every bound,
/// extent and stride a C expression over names and integers; the element
/// type is one the generators know; there are axes (as many as dims, with
/// one stride each), inputs, outputs and updates; offsets are within
/// +-1024 and 0 beyond dims; every read names an input at one of its
/// listed offsets, every update an output, every coefficient and parameter
/// reference a declared one, with its index in range. Returns the empty
/// string, or "<path>: <reason>" for the first problem, the path as in the
/// JSON form below \p Path (`inputs[0].offsets[3][1]`).
std::string validate(const StencilIR &IR, const std::string &Path = "");

/// True for a C identifier.
bool isIdentifier(const std::string &S);

/// The math functions an update may call (sqrtf, fmaxf, copysign, the
/// __f*_rn intrinsics, ...): what the analysis records as calls and the
/// validator accepts; a call to anything else is not part of an update.
bool isMathFunctionName(const std::string &Name);

/// Why no generator can build \p IR because an input or an output has a
/// layout of its own (InputArray::Strides, OutputArray::Strides); empty when
/// every array has the IR's strides.
std::string whyMixedLayouts(const StencilIR &IR);
/// Why no generator rewrites a kernel that keeps several fields in one
/// allocation (an input or output with a Field); empty when none does.
std::string whyPackedFields(const StencilIR &IR);

/// The JSON name of a coefficient kind ("scalar-param", "param-array").
const char *coefficientKindName(enum Coefficient::Kind K);

/// A Thread axis's position in CUDA: "(long long)blockIdx.x * blockDim.x +
/// threadIdx.x", "(long long)blockIdx.x * blockDim.y + threadIdx.y",
/// "(long long)threadIdx.x", "(long long)blockIdx.z".
std::string threadPosition(const Axis &X);

/// Why no generator can build \p IR because a neighbour is read only on one
/// side of a select whose condition reads data (an upwind donor, a limiter
/// that reads further out): a generated kernel reads its whole footprint at
/// every point, where the original may not; unless the domain keeps that
/// read inside the array along every axis it moves on (upwind in x over
/// [1, nx - 1) of rows of nx). Empty when there is none.
std::string whyReadsChosenByData(const StencilIR &IR);

/// Why no generator can build \p IR because an output is stored over a box
/// of its own (OutputArray::Lower/Upper); empty when there is none.
std::string whyOutputBoxes(const StencilIR &IR);

/// Why no generator can build \p IR at all: an input with a layout of its
/// own (whyMixedLayouts), an output over a box of its own (whyOutputBoxes),
/// a neighbour the data decides to read
/// (whyReadsChosenByData) or a block reduction fused into the kernel, whose
/// result a generated kernel would not compute. Empty when one can.
std::string whyNoGenerator(const StencilIR &IR);

/// The C expressions of \p IR that a generated launcher or a tuning driver
/// evaluates on the host: the axes' bounds, extents, offsets, linear steps
/// and clamp or wrap bounds; the strides, the arrays' own strides, fields
/// and output boxes; the frame's box; the assumptions' expressions and
/// values.
std::vector<std::string> hostExpressions(const StencilIR &IR);

/// The first of \p Names (identifiers, e.g. the kernel's `__constant__`
/// integers) that one of hostExpressions(IR) names, not as a member
/// (`g.n`); "" when none does.
std::string hostNameIn(const StencilIR &IR, const std::set<std::string> &Names);

nlohmann::json toJson(const StencilIR &IR);
/// Parses an IR document; throws nothing: an error message is returned in
/// Error and std::nullopt when the document is not valid IR. Every member
/// is type- and range-checked, the result is validate()d, and the derived
/// facts (shape, radius, points, flops, bytes) are recomputed from the
/// offsets and updates, whatever the document states. Error names the
/// member's path below \p Path (e.g. "kernels[2].ir") and the reason.
std::optional<StencilIR> fromJson(const nlohmann::json &J, std::string &Error,
                                  const std::string &Path);
std::optional<StencilIR> fromJson(const nlohmann::json &J, std::string &Error);

nlohmann::json toJson(const Expr &E);
std::optional<Expr> exprFromJson(const nlohmann::json &J, std::string &Error);

} // namespace ir
} // namespace forgestencil

#endif

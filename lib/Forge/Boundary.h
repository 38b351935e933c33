//===- Boundary.h - Replicated, periodic and zero boundaries ---------------===//
///
/// \file
/// An axis with a boundary (docs/stencil-ir.md) moves the reads that leave
/// its bounds back inside them: a replicated boundary clamps them into
/// [clamp_lower, clamp_upper] (`fs_clamp`), a periodic one wraps them into
/// [wrap_lower, wrap_upper] by one period (`fs_wrap`), a zero boundary
/// reads 0 outside [zero_lower, zero_upper] instead of an element (the
/// read becomes `inside ? a[...] : 0`). The strategies'
/// kernels know nothing about boundaries. The launcher head computes along
/// every such axis the interior, the points whose reads all lie within the
/// bounds, launches the frame kernel over the rest of the domain (one point
/// per thread, every read along a boundary axis moved), and gives the
/// interior to the strategy's kernel. The kernel the IR describes (the
/// original and the float64 reference) moves the same reads.
///
/// An IR without a boundary gets none of this; one with clamped axes only
/// gets the same text as before periodic boundaries existed.
///
/// A boundary frame (ir::BoundaryFrame: a Dirichlet boundary the kernel
/// writes itself) goes through the same boxes: the launcher head computes
/// the frame's box as the original launch covers it, clips the domain into
/// it and launches the boundary kernel, one point per thread, over the box
/// minus the domain, where each listed output gets its frame value. Those
/// points lie outside the domain, the clamped or wrapped frame above lies
/// inside it: an IR may have both. The original and the reference test the
/// domain inside the box and store the frame values outside it.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_LIB_FORGE_BOUNDARY_H
#define FORGESTENCIL_LIB_FORGE_BOUNDARY_H

#include "forgestencil/Forge/CodeGen.h"

#include <functional>
#include <string>

namespace forgestencil {
namespace forge {

/// Whether an axis of the IR clamps, wraps or zeroes its reads.
bool hasBoundaryAxes(const ir::StencilIR &IR);
/// Whether an axis of the IR wraps its reads (a periodic boundary).
bool hasWrappedAxes(const ir::StencilIR &IR);

/// Why a generator cannot take axis \p X's boundary: one bound of a pair
/// only, or both a clamp and a wrap; empty when it can.
std::string whyNotBoundary(const ir::Axis &X);

/// The device helpers of the IR's boundaries, each block defined once per
/// translation unit: `fs_clamp` and the frame's boxes (`fs_frame_boxes`)
/// for any boundary or boundary frame, `fs_wrap` beside them (a block of
/// its own) when an axis is wrapped.
std::string boundaryHelpers(const ir::StencilIR &IR);

/// The coordinate a read at offset \p O from coordinate \p C (a C
/// expression) takes along axis \p X, which has a boundary:
/// `fs_clamp(C + (O), (long long)(lo), (long long)(hi))` or the same with
/// `fs_wrap`.
std::string boundaryCoord(const std::string &C, int O, const ir::Axis &X);

/// The test that a read at offset \p O from coordinate \p C lies within
/// the bounds of axis \p X, a zero boundary: outside them the read is 0.
std::string zeroTest(const std::string &C, int O, const ir::Axis &X);

/// \p Element, a read, as the IR's boundaries take it: `(Tests ? Element :
/// 0)` where \p Tests (zeroTest's, joined by &&) is not empty.
std::string zeroedRead(const std::string &Element, const std::string &Tests);

/// The frame kernel `<launcher>_frame`: the points of the domain with a
/// read outside the bounds, given as up to six boxes (fs_frame_boxes), one
/// point per thread, every read along a boundary axis moved.
std::string emitFrameKernel(const StencilView &V, const GenerateOptions &O);

/// The launcher's part for the boundary axes: the interior (points whose
/// reads all lie within the bounds), the frame around it launched on the
/// frame kernel, then the domain shrunk to the interior for the strategy's
/// kernel (or a return when the interior is empty).
std::string emitFrameLaunch(const StencilView &V, const GenerateOptions &O);

/// Whether the IR has a boundary frame: values its kernel writes on a box
/// around the domain.
bool hasFrame(const ir::StencilIR &IR);

/// Why a generator cannot take the IR's frame (a bound missing on an axis,
/// a value stored into an array the stencil does not write, or read from one
/// it does not read or from an output); empty when it can or there is none.
std::string whyNotFrame(const ir::StencilIR &IR);

/// Produces the element of Array at an IR offset from the current point.
using ElementAt =
    std::function<std::string(const std::string &Array, const ir::Offset &)>;

/// The frame's stores at one point, in the IR's order: each listed output
/// at its write offset gets its value, whose reads are at the point.
std::string emitFrameStores(const ir::StencilIR &IR, const std::string &Indent,
                            const ElementAt &Element);

/// The boundary kernel `<launcher>_boundary`: the points of the frame's box
/// outside the domain, given as up to six boxes (fs_frame_boxes), one point
/// per thread, each storing the frame values (for a kernel on a 1-D thread
/// id, only the points whose id the original launch reaches).
std::string emitBoundaryKernel(const StencilView &V, const GenerateOptions &O);

/// The launcher's part for the frame, after the domain: the box as the
/// original launch covers it in `fs_flo`/`fs_fhi` (the head computes it),
/// a return when it is empty, the domain clipped into it, and the boundary
/// kernel launched over the box minus the domain. The caller returns when
/// the domain is empty.
std::string emitBoundaryLaunch(const StencilView &V, const GenerateOptions &O);

} // namespace forge
} // namespace forgestencil

#endif

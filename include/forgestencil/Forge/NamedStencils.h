//===- NamedStencils.h - The stencils fs-bench knows by name ---------------===//
///
/// \file
/// Star and box stencils of radius 1-4 in 2-D and 3-D (`star2d_r1` is the
/// 5-point, `box2d_r1` the 9-point, `star3d_r1` the 7-point, `box3d_r1` the
/// 27-point, `star3d_r4` the 25-point stencil), the RTM update (`rtm`: a
/// radius-4 star plus a per-point velocity, second order in time) and the
/// Yee FDTD updates (`fdtd_e`, `fdtd_h`: three field components from the
/// other three and two per-point material coefficients), each as the
/// Stencil IR of a plain kernel with one thread per point. Two have a
/// replicated (clamped) boundary on every axis and the whole array as their
/// domain: `hotspot2d`, the thermal update of apps/hotspot2d (a 5-point
/// star plus a per-point power), and `star3d_r1_clamp` and
/// `box3d_r1_clamp`, the 7-point star and the 27-point box. Two have a
/// periodic (wrapped) boundary: `star2d_r1_wrap`, the 5-point star wrapped
/// on both axes over the whole array, and `star3d_r2_wrap`, the 13-point
/// star wrapped along x only (the whole row its domain, a period of at
/// least 2 assumed) and guarded along y and z. Two write a Dirichlet
/// boundary themselves (a boundary frame): `star2d_r1_dirichlet`, the
/// 5-point star over [1, n - 1) along both axes that copies its input on
/// the rest of the array, and `star3d_r1_dirichlet0`, the 7-point star
/// that writes zeros there.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_FORGE_NAMEDSTENCILS_H
#define FORGESTENCIL_FORGE_NAMEDSTENCILS_H

#include "forgestencil/IR/StencilIR.h"

#include <optional>
#include <string>
#include <vector>

namespace forgestencil {
namespace forge {

/// Every name namedStencil accepts.
std::vector<std::string> namedStencilNames();

/// The IR of the named stencil with elements of ElementType ("float" or
/// "double"); std::nullopt and a message for an unknown name or type.
std::optional<ir::StencilIR> namedStencil(const std::string &Name,
                                          const std::string &ElementType,
                                          std::string &Error);

} // namespace forge
} // namespace forgestencil

#endif

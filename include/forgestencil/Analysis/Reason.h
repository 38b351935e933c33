//===- Reason.h - Why a kernel is not (wholly) a stencil, typed -----------===//
///
/// \file
/// Every refusal of the analysis is a kind plus a sentence for the user.
/// Decisions are made on the kind, never on the sentence; the sentence
/// names the code (the variable, the condition, the index) and is free to
/// change. The kinds group refusals by the idiom a recogniser would have to
/// handle, which is what the dev-set score counts them by.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_ANALYSIS_REASON_H
#define FORGESTENCIL_ANALYSIS_REASON_H

#include <optional>
#include <string>

namespace forgestencil {
namespace analysis {

enum class ReasonKind {
  NotParsed,      ///< The kernel, or what it calls, has parse errors.
  // Parts of a stencil the analysis did not understand (a Partial kernel).
  Untracked,      ///< A value, load or store whose source is not followed.
  ControlFlow,    ///< switch/goto, returns under conditions not followed.
  StoreIndex,     ///< The store index: thread mapping, affinity, strides.
  ReadIndex,      ///< A read's index relative to the store's.
  Guard,          ///< Guards and domains of the stores.
  Boundary,       ///< Clamps, boundary regions, faces.
  SharedTile,     ///< __shared__ tiles and how they are filled.
  Loop,           ///< A loop whose range or role is not understood.
  LoopNotFollowed,///< A loop whose body the analysis did not follow.
  LoopCarry,      ///< Values carried from one loop iteration to the next.
  Update,         ///< The update expression: conversions, positions, calls.
  Store,          ///< How outputs are stored: compound, twice, in place.
  Parameter,      ///< Arrays or values that are not kernel parameters.
  Size,           ///< Beyond what the interpreter takes on.
  // Kernels that are not stencils (NotStencil).
  Reduction,      ///< Atomics, shuffles, reductions and products.
  Indirect,       ///< Indices or store positions loaded from memory.
  Pointwise,      ///< No neighbourhood read: copies, pointwise updates.
  NoStore,        ///< Nothing stored, or every thread stores one element.
  BoundaryOnly,   ///< Stores on a face only, reading no neighbourhood.
  Transpose,      ///< Axes of reads and stores swapped.
  DataBranch,     ///< A data-dependent branch decides the store.
  TemporalBlocking, ///< Several time steps inside the kernel.
};

/// The kind's name in JSON and reports ("shared-tile").
const char *reasonKindName(ReasonKind K);

/// The kind named \p Name, if any.
std::optional<ReasonKind> reasonKindFromName(const std::string &Name);

/// True for kinds that mean a load may have gone unseen: such a kernel is
/// not called pointwise merely because the reads the analysis saw were.
bool losesLoads(ReasonKind K);

struct Reason {
  ReasonKind Kind = ReasonKind::Untracked;
  std::string Text;

  /// Ordered by the sentence, so reports list them alphabetically and a
  /// set says each sentence once (the kind of its first saying).
  bool operator<(const Reason &O) const { return Text < O.Text; }
};

} // namespace analysis
} // namespace forgestencil

#endif

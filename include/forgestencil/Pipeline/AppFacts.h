//===- AppFacts.h - Everything one parse of an application says -*- C++ -*-===//
///
/// \file
/// One parse of an application's CUDA translation units fills one AppFacts:
/// the analysis' inventory (kernels with every launched instantiation,
/// launch sites, their analyses; both CUDA sides) and the rewriter's facts
/// (definitions with the text to copy, launch statements, declarations;
/// host side), side by side, with the outcome of every parse. Every step
/// of fs-rewrite (the listing, the tuning bundle, tuning and the patch)
/// reads these; none parses again.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_PIPELINE_APPFACTS_H
#define FORGESTENCIL_PIPELINE_APPFACTS_H

#include "forgestencil/Analysis/Inventory.h"
#include "forgestencil/Driver/CompilationDatabase.h"
#include "forgestencil/Driver/FrontendRunner.h"
#include "forgestencil/Rewrite/RewriteFacts.h"

#include <memory>
#include <vector>

namespace forgestencil {
namespace pipeline {

struct AppFacts {
  analysis::Inventory Inventory;
  rewrite::RewriteFacts Rewrite;
  /// One result per parse, host before device, in file order.
  std::vector<driver::ParseResult> Parses;

  /// Parses every CUDA translation unit of \p DB once, each side feeding
  /// both the inventory and the rewriter's facts.
  static std::unique_ptr<AppFacts>
  parse(const driver::CudaCompilationDatabase &DB);
};

} // namespace pipeline
} // namespace forgestencil

#endif

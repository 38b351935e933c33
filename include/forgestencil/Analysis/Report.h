//===- Report.h - The --list table and its JSON form -----------------------===//

#ifndef FORGESTENCIL_ANALYSIS_REPORT_H
#define FORGESTENCIL_ANALYSIS_REPORT_H

#include "forgestencil/Analysis/Hotspots.h"
#include "forgestencil/Analysis/Inventory.h"
#include "forgestencil/Driver/FrontendRunner.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace forgestencil {
namespace analysis {

/// Kernels (with the analysis verdict), launches, then the ranked hotspot
/// table with its assumptions. Paths are printed relative to Root.
void printListText(llvm::raw_ostream &OS, const Inventory &Inv,
                   const std::vector<HotspotRow> &Rows, llvm::StringRef Root);

/// Each translation unit's status ("parsed", "parsed with stand-ins" or
/// "failed"), with its stand-ins or the error that decided it.
void printTranslationUnits(llvm::raw_ostream &OS,
                           const std::vector<driver::ParseResult> &Results,
                           llvm::StringRef Root);

/// The same rows as JSON, plus parse failures and "translation_units".
llvm::json::Object listJson(const Inventory &Inv,
                            const std::vector<HotspotRow> &Rows,
                            const std::vector<driver::ParseResult> &Results,
                            llvm::StringRef Root);

/// Every kernel's analysis: {"kernels": [{name, verdict, reasons, ir}...]}.
/// The IR objects are the versioned IR documents.
llvm::json::Value analysesJson(const Inventory &Inv, llvm::StringRef Root);

} // namespace analysis
} // namespace forgestencil

#endif

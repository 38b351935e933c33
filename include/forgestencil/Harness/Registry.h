//===- Registry.h - results/integration_registry.json ---------------------===//
//
// Part of ForgeStencil.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The integration registry holds the latest end-to-end measurement per app,
/// kernel set and GPU. Several harness runs (one per GPU of a node, say) may
/// finish at once, so an update takes an exclusive flock on a lock file
/// beside the registry, re-reads it, merges one entry and replaces the file
/// atomically (write a temporary file, then rename): a reader never sees a
/// half-written registry and no writer loses another's entry.
///
//===----------------------------------------------------------------------===//

#ifndef FORGESTENCIL_HARNESS_REGISTRY_H
#define FORGESTENCIL_HARNESS_REGISTRY_H

#include "forgestencil/Harness/Expected.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace forgestencil {
namespace harness {

/// The value of the registry's "format" member.
inline constexpr const char *RegistryFormat =
    "forgestencil-integration-registry";
/// The registry layout version this code writes and reads.
inline constexpr int RegistryVersion = 1;

/// A registry with no entries.
nlohmann::json makeEmptyRegistry();

/// The identity of an entry: its app, its kernel names (as a set: order does
/// not matter), its GPU name and, for an app with build variants, its
/// variant. Fails when one of the first three is missing.
Expected<std::string> registryKey(const nlohmann::json &Entry);

/// Parses registry text; \p Path names it in errors. Empty text is an empty
/// registry.
Expected<nlohmann::json> parseRegistry(const std::string &Text,
                                       const std::string &Path);

/// Puts \p Entry into \p Registry, replacing the entry with the same key and
/// keeping every other entry; entries stay sorted by key.
Status mergeRegistryEntry(nlohmann::json &Registry,
                          const nlohmann::json &Entry);

/// Replaces the file at \p Path with \p Content so that readers see either
/// the old or the new file, never a mix.
Status writeFileAtomically(const std::string &Path, const std::string &Content);

/// The registry entry of a run record (what `fs-harness --json` writes: the
/// entry's members plus every run): the record without the runs and the
/// host details. Fails when a member an entry needs is missing.
Expected<nlohmann::json> registryEntryFromRecord(const nlohmann::json &Record);

/// The run records in the content of a `--json` file: the file itself, or,
/// for an app with variants, each member of its "variants" list.
Expected<std::vector<nlohmann::json>>
runRecordsOfFile(const nlohmann::json &Content);

/// Merges \p Entry into the registry file at \p Path (created, with its
/// directory, when absent),
/// holding an exclusive lock on "<Path>.lock" throughout.
Status updateRegistryFile(const std::string &Path,
                          const nlohmann::json &Entry);

} // namespace harness
} // namespace forgestencil

#endif // FORGESTENCIL_HARNESS_REGISTRY_H

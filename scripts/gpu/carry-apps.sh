#!/usr/bin/env bash
# carry-apps.sh [app...]
#
# Puts the pinned source of every third-party app (apps/*/app.json with a
# git source; or the apps named) into .carry/apps/<app>, so that a GPU host
# without network vendors them from there (FS_MIRROR=.carry/apps, which
# scripts/gpu/apps-e2e.sh sets). Each is a small bare git repository that
# holds the pinned commit object (the commit id stays the upstream one and
# vendor.sh checks it) and only the trees and files under source.paths:
# nothing else of the upstream history comes along.
#
# Reads the repositories from FS_MIRROR (any layout vendor.sh reads) or, without
# it, fetches each pinned commit from its url. Then vendors each app from the
# carried repository into a scratch directory with its patches, so a pin,
# path or patch that does not work shows here, not on the GPU host.
#
#   FS_MIRROR=DIR      where the repositories are (else the urls)
#   FS_CARRY_APPS=DIR  where to put them (default .carry/apps)
#   FS_APPS_DIR=DIR    the apps (default apps/), as for vendor.sh
set -euo pipefail
export LC_ALL=C
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dest=${FS_CARRY_APPS:-$root/.carry/apps}
apps_dir=${FS_APPS_DIR:-$root/apps}
note() { echo "carry-apps: $*" >&2; }
die() { echo "carry-apps: error: $*" >&2; exit 1; }
g() { git -c safe.directory='*' -c init.defaultBranch=main "$@"; }

apps=("$@")
if [ ${#apps[@]} -eq 0 ]; then
  mapfile -t apps < <(python3 - "$apps_dir" <<'PY'
import glob, json, os, sys
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*", "app.json"))):
    if json.load(open(p)).get("source", {}).get("kind") == "git":
        print(os.path.basename(os.path.dirname(p)))
PY
)
fi
[ ${#apps[@]} -gt 0 ] || die "no third-party apps"
mkdir -p "$dest"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

for app in "${apps[@]}"; do
  json=$apps_dir/$app/app.json
  [ -f "$json" ] || die "no $json"
  mapfile -t f < <(python3 - "$json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["source"]
print(s["url"]); print(s["commit"]); print(" ".join(s.get("paths", [])))
PY
)
  url=${f[0]} commit=${f[1]}
  read -r -a paths <<<"${f[2]:-}"
  # The repository to read: the mirror, as vendor.sh finds it, else a fetch.
  gitdir=""
  if [ -n "${FS_MIRROR:-}" ]; then
    base=$(basename "$url") stem=${base%.git} owner=$(basename "$(dirname "$url")")
    for c in "$FS_MIRROR/$app" "$FS_MIRROR/$owner+$stem/repo" "$FS_MIRROR/$owner+$stem" "$FS_MIRROR/$base" "$FS_MIRROR/$stem"; do
      for d in "$c" "$c/.git"; do
        if [ -d "$d" ] && g --git-dir="$d" rev-parse --git-dir >/dev/null 2>&1 &&
          g --git-dir="$d" cat-file -e "$commit^{commit}" 2>/dev/null; then
          gitdir=$d
          break 2
        fi
      done
    done
    [ -n "$gitdir" ] || die "$app: commit $commit of $url is in no repository under FS_MIRROR=$FS_MIRROR"
  else
    gitdir=$scratch/$app.fetch.git
    g init -q --bare "$gitdir"
    g --git-dir="$gitdir" fetch -q --depth 1 "$url" "$commit" ||
      g --git-dir="$gitdir" fetch -q "$url" '+refs/heads/*:refs/heads/*' ||
      die "$app: cannot fetch $url"
  fi
  # The objects vendor.sh reads: the commit, its root tree, the trees on the
  # way to each path and everything under it.
  objects=$scratch/$app.objects
  {
    echo "$commit"
    g --git-dir="$gitdir" rev-parse "$commit^{tree}"
    g --git-dir="$gitdir" ls-tree -r -t --full-tree "$commit" -- "${paths[@]}" | awk '{print $3}'
  } | sort -u >"$objects"
  repo=$dest/$app
  rm -rf "$repo.new"
  g init -q --bare "$repo.new"
  g --git-dir="$gitdir" pack-objects -q "$repo.new/objects/pack/pack" <"$objects" >/dev/null ||
    die "$app: cannot pack its files from $gitdir (a file missing from the mirror?)"
  # The commit's parents stay behind: the repository says so (shallow).
  echo "$commit" >"$repo.new/shallow"
  g --git-dir="$repo.new" update-ref refs/heads/main "$commit"
  rm -rf "$repo" && mv "$repo.new" "$repo"
  # Prove it: vendor from the carried repository alone, patches applied.
  FS_APPS_DIR=$apps_dir FS_MIRROR=$dest FS_WORK_DIR=$scratch/work bash "$root/scripts/vendor.sh" "$app" >/dev/null 2>"$scratch/$app.log" ||
    { cat "$scratch/$app.log" >&2; die "$app: does not vendor from $repo"; }
  note "$app: $(du -sh "$repo" | cut -f1) in $repo ($(wc -l <"$objects") objects, commit ${commit:0:12})"
done
note "total $(du -sh "$dest" | cut -f1) in $dest"

#!/usr/bin/env bash
# vendor.sh <app> [workdir]
#
# Puts the pinned source of apps/<app> into a work directory outside the
# source tree, makes it a git tree whose first commit is the pristine source,
# then applies patches/<app>/*.patch in name order, one commit per patch.
# Prints progress on stderr and the work directory on the last line of stdout.
#
#   workdir         default ${FS_WORK_DIR:-$HOME/.cache/forgestencil/work}/<app>
#   FS_APPS_DIR     where <app>/app.json lives (default: <repo>/apps)
#   FS_PATCH_DIR    the patches to apply (default: <repo>/patches/<app>)
#   FS_MIRROR=DIR   for git sources: read the repository from DIR instead of
#                   the url (no network): DIR/<app>, DIR/<owner>+<name>/repo,
#                   DIR/<owner>+<name>, DIR/<basename of url> or the same
#                   without .git, each a bare git directory or a work tree
#
# A git source may name source.paths: only those files and directories of
# the commit are vendored (a large repository of which the app is a part;
# a mirror that lacks the repository's other, large files).
#
# Running it again gives the same tree: the result is rebuilt in a scratch
# directory and either matches the existing work directory (which is then
# left alone) or replaces it. A build/ directory inside the work directory is
# kept across a replacement and ignored by git. On any failure the existing
# work directory is untouched.
set -euo pipefail
export LC_ALL=C

prog=vendor.sh
die() {
  echo "$prog: error: $*" >&2
  exit 1
}
note() { echo "$prog: $*" >&2; }

usage() {
  sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  usage
  exit 2
fi
case $1 in
-h | --help)
  usage
  exit 0
  ;;
esac

app=$1
case $app in
'' | */* | .*) die "bad app name '$app'" ;;
esac

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
apps_dir=${FS_APPS_DIR:-$repo_root/apps}
patch_dir=${FS_PATCH_DIR:-$repo_root/patches/$app}

[ -d "$apps_dir/$app" ] || die "unknown app '$app' (no directory $apps_dir/$app)"
app_json=$apps_dir/$app/app.json
[ -f "$app_json" ] || die "missing $app_json"
command -v git >/dev/null || die "git is not installed"
command -v python3 >/dev/null || die "python3 is not installed"

# --- read the source description ------------------------------------------
# One field per line: kind, path, url, commit, license.
source_fields=$(python3 - "$app_json" <<'PY'
import json, sys
path = sys.argv[1]
try:
    with open(path) as f:
        spec = json.load(f)
except (OSError, ValueError) as e:
    sys.exit("cannot read %s: %s" % (path, e))
src = spec.get("source") if isinstance(spec, dict) else None
if not isinstance(src, dict):
    sys.exit("%s: field 'source' is missing or not an object" % path)
out = []
for key in ("kind", "path", "url", "commit", "license"):
    value = src.get(key, "")
    if not isinstance(value, str) or "\n" in value:
        sys.exit("%s: field 'source.%s' must be a one-line string" % (path, key))
    out.append(value)
paths = src.get("paths", [])
if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
    sys.exit("%s: field 'source.paths' must be a list of strings" % path)
for p in paths:
    parts = p.split("/")
    if not p or "\n" in p or "\t" in p or p.startswith("/") or ".." in parts or "." in parts or "" in parts[:-1]:
        sys.exit("%s: field 'source.paths': '%s' is not a path inside the repository" % (path, p))
out.append(" ".join(p.rstrip("/") for p in paths))
print("\n".join(out))
PY
) || die "cannot read the source of '$app' from $app_json"
mapfile -t fields <<<"$source_fields"
kind=${fields[0]:-}
src_path=${fields[1]:-}
url=${fields[2]:-}
commit=${fields[3]:-}
license=${fields[4]:-}
read -r -a src_paths <<<"${fields[5]:-}"

# --- the work directory ----------------------------------------------------
workdir=${2:-${FS_WORK_DIR:-$HOME/.cache/forgestencil/work}/$app}
[ -n "$workdir" ] || die "empty work directory"
parent=$(dirname "$workdir")
mkdir -p "$parent" || die "cannot create $parent"
parent=$(cd "$parent" && pwd -P)
workdir=${parent%/}/$(basename "$workdir")
case $(basename "$workdir") in
. | .. | /) die "bad work directory '$workdir'" ;;
esac

# Refuse a work directory inside the repository unless git ignores it there
# (a build directory, say), and one that contains the repository.
repo_real=$(cd "$repo_root" && pwd -P)
case "$repo_real/" in
"$workdir"/*) die "work directory $workdir contains the repository" ;;
esac
case $workdir in
"$repo_real"/*)
  rel=${workdir#"$repo_real"/}
  if git -C "$repo_real" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$repo_real" check-ignore -q --no-index -- "$rel" ||
      die "work directory $workdir is inside the source tree and not ignored by git; use a directory outside it"
  else
    case $rel in
    build | build/* | build-*) ;;
    *) die "work directory $workdir is inside the source tree; use a directory outside it" ;;
    esac
  fi
  ;;
esac

# Reproducible commits: fixed identity and dates, no user or system config.
export GIT_AUTHOR_NAME="ForgeStencil vendor"
export GIT_AUTHOR_EMAIL="vendor@forgestencil.invalid"
export GIT_COMMITTER_NAME="ForgeStencil vendor"
export GIT_COMMITTER_EMAIL="vendor@forgestencil.invalid"
export GIT_AUTHOR_DATE="2000-01-01T00:00:00+0000"
export GIT_COMMITTER_DATE="2000-01-01T00:00:00+0000"
export GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_GLOBAL=/dev/null
export GIT_TERMINAL_PROMPT=0
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
g() {
  git -c core.autocrlf=false -c core.fileMode=true -c commit.gpgSign=false -c safe.directory='*' \
    -c core.hooksPath=/dev/null -c init.defaultBranch=main -c advice.detachedHead=false "$@"
}

scratch=$(mktemp -d "$parent/.$(basename "$workdir").vendor.XXXXXX")
cleanup() { rm -rf "$scratch"; }
trap cleanup EXIT
tree=$scratch/tree
mkdir "$tree"

# --- fetch the pristine source ---------------------------------------------
case $kind in
in-tree)
  [ -n "$src_path" ] || die "$app_json: source.path is empty"
  case $src_path in
  /*) src_dir=$src_path ;;
  *) src_dir=$repo_root/$src_path ;;
  esac
  [ -d "$src_dir" ] || die "$app_json: source directory $src_dir does not exist"
  src_real=$(cd "$src_dir" && pwd -P)
  case "$workdir/" in
  "$src_real"/*) die "work directory $workdir is inside the app source $src_real" ;;
  esac
  note "copying $src_path"
  # Everything but version-control metadata and in-source build directories.
  (cd "$src_dir" && tar --exclude=.git --exclude='./build' --exclude='./build-*' -cf - .) |
    (cd "$tree" && tar -xf -) || die "cannot copy $src_dir"
  provenance="source: in-tree $src_path"
  ;;
git)
  [ -n "$url" ] || die "$app_json: source.url is empty"
  [[ $commit =~ ^[0-9a-f]{40}$ ]] ||
    die "$app_json: bad commit '$commit' (source.commit must be 40 lower-case hex digits)"
  if [ -n "${FS_MIRROR:-}" ]; then
    # The repository under the mirror: by app name (a carried repository of
    # this app alone), by owner+name (the layout of a fetched mirror), or by
    # the url's basename (a plain directory of clones).
    base=$(basename "$url")
    stem=${base%.git}
    owner=$(basename "$(dirname "$url")")
    owner=${owner##*:}
    candidates=("$FS_MIRROR/$app" "$FS_MIRROR/$owner+$stem/repo" "$FS_MIRROR/$owner+$stem"
      "$FS_MIRROR/$base" "$FS_MIRROR/$stem")
    gitdir=""
    for c in "${candidates[@]}"; do
      for d in "$c" "$c/.git"; do
        if [ -d "$d" ] && [ -n "$(g --git-dir="$d" rev-parse --git-dir 2>/dev/null)" ]; then
          gitdir=$d
          break 2
        fi
      done
    done
    [ -n "$gitdir" ] || die "FS_MIRROR is set but none of $(printf '%s, ' "${candidates[@]}" | sed 's/, $//') is a git repository"
    from=$gitdir
    note "reading $gitdir"
  else
    from=$url
    gitdir=$scratch/source.git
    g init --quiet --bare "$gitdir" >&2
    note "fetching $commit from $url"
    # Only the pinned commit where the server allows it; else everything.
    g --git-dir="$gitdir" fetch --quiet --depth 1 "$url" "$commit" >&2 2>/dev/null ||
      g --git-dir="$gitdir" fetch --quiet "$url" '+refs/heads/*:refs/heads/*' '+refs/tags/*:refs/tags/*' >&2 ||
      die "cannot fetch from $url"
  fi
  g --git-dir="$gitdir" cat-file -e "$commit^{commit}" 2>/dev/null ||
    die "commit $commit is not in $from"
  # The commit's files (or those under source.paths), written straight from
  # the object database: no checkout, so a mirror that lacks other files of
  # the repository serves, and nothing in it is written to.
  python3 - "$gitdir" "$commit" "$tree" "${src_paths[@]}" <<'PY' || die "cannot extract $commit from $from"
import os, subprocess, sys, threading
gitdir, commit, dest, paths = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
git = ["git", "-c", "safe.directory=*", "--git-dir", gitdir]
listing = subprocess.run(git + ["ls-tree", "-r", "-z", "--full-tree", commit, "--"] + paths,
                         stdout=subprocess.PIPE, check=True).stdout
entries = []
for item in listing.split(b"\0"):
    if not item:
        continue
    meta, name = item.split(b"\t", 1)
    mode, kind, sha = meta.split()
    entries.append((mode.decode(), kind.decode(), sha.decode(), name.decode("utf-8", "surrogateescape")))
for p in paths:
    if not any(e[3] == p or e[3].startswith(p + "/") for e in entries):
        sys.exit("vendor.sh: error: source.paths: '%s' is not in commit %s" % (p, commit))
blobs = [e for e in entries if e[1] == "blob"]
batch = subprocess.Popen(git + ["cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def feed():  # in its own thread: cat-file answers while it is still asked
    batch.stdin.write("".join(e[2] + "\n" for e in blobs).encode())
    batch.stdin.close()
feeder = threading.Thread(target=feed)
feeder.start()
for mode, kind, sha, name in blobs:
    header = batch.stdout.readline().split()
    if len(header) != 3 or header[1] != b"blob":
        sys.exit("vendor.sh: error: %s (blob %s) is missing from %s (a partial mirror? "
                 "list the app's files in source.paths)" % (name, sha, gitdir))
    data = batch.stdout.read(int(header[2]))
    batch.stdout.read(1)
    target = os.path.join(dest, name)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if mode == "120000":
        os.symlink(data, target)
        continue
    with open(target, "wb") as f:
        f.write(data)
    os.chmod(target, 0o755 if mode == "100755" else 0o644)
feeder.join()
batch.wait()
for mode, kind, sha, name in entries:
    if kind == "commit":  # a submodule: an empty directory, as a checkout leaves it
        os.makedirs(os.path.join(dest, name), exist_ok=True)
PY
  provenance="source: git $url $commit"
  [ ${#src_paths[@]} -gt 0 ] && provenance="$provenance
paths: ${src_paths[*]}"
  [ -n "$license" ] && provenance="$provenance
license: $license"
  ;;
'') die "$app_json: source.kind is missing" ;;
*) die "$app_json: unknown source.kind '$kind' (expected in-tree or git)" ;;
esac

# --- pristine commit -------------------------------------------------------
g init --quiet "$tree" >&2
printf '/build/\n' >>"$tree/.git/info/exclude"
g -C "$tree" add --all --force .
g -C "$tree" commit --quiet --allow-empty -m "Pristine source of $app" -m "$provenance" >&2

# --- patches ---------------------------------------------------------------
count=0
if [ -d "$patch_dir" ]; then
  shopt -s nullglob
  patches=("$patch_dir"/*.patch)
  shopt -u nullglob
  for p in "${patches[@]}"; do
    name=$(basename "$p")
    if ! out=$(g -C "$tree" apply --index --whitespace=nowarn "$p" 2>&1); then
      echo "$out" | sed 's/^/  /' >&2
      die "patch $name does not apply to $app (after the pristine source and $count earlier patch(es)); $(basename "$workdir") left unchanged"
    fi
    g -C "$tree" commit --quiet --allow-empty -m "Apply $name" >&2
    count=$((count + 1))
    note "applied $name"
  done
elif [ -n "${FS_PATCH_DIR:-}" ]; then
  die "FS_PATCH_DIR=$FS_PATCH_DIR is not a directory"
fi
echo "$app" >"$tree/.git/forgestencil-vendor"

# --- install or verify -----------------------------------------------------
new_head=$(g -C "$tree" rev-parse HEAD)
if [ -e "$workdir" ]; then
  if [ -f "$workdir/.git/forgestencil-vendor" ]; then
    old_head=$(g -C "$workdir" rev-parse -q --verify HEAD 2>/dev/null || true)
    dirty=$(g -C "$workdir" status --porcelain --untracked-files=all 2>/dev/null || echo dirty)
    if [ "$old_head" = "$new_head" ] && [ -z "$dirty" ]; then
      note "$workdir is up to date ($count patch(es))"
      echo "$workdir"
      exit 0
    fi
    note "replacing $workdir"
    if [ -d "$workdir/build" ]; then
      mv "$workdir/build" "$tree/build"
    fi
    rm -rf "$workdir"
  elif [ -d "$workdir" ] && [ -z "$(ls -A "$workdir")" ]; then
    rmdir "$workdir"
  else
    die "$workdir exists and was not made by $prog; remove it or choose another work directory"
  fi
fi
mv "$tree" "$workdir"
note "vendored $app into $workdir ($count patch(es))"
echo "$workdir"

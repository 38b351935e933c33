#!/usr/bin/env bash
# run-deck.sh PROGRAM DECK
#
# Runs one of the UK-MAC mini-apps beside this script (clover_leaf reads
# clover.in and writes clover.out; tea_leaf reads tea.in and writes tea.out)
# on the input deck DECK (relative to this script's directory), in a fresh
# scratch directory, then prints the output file the app wrote to standard
# output. The apps write their 'Wall clock' lines to that file and to
# standard error only, so the harness reads the timer from the printed file.
# The scratch directory is removed afterwards. Part of the run recipes in
# apps/cloverleaf/app.json and apps/tealeaf/app.json.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 2 ] || { echo "run-deck.sh: usage: run-deck.sh PROGRAM DECK" >&2; exit 2; }
program=$1 deck=$2
case $program in
clover_leaf) name=clover ;;
tea_leaf) name=tea ;;
*) echo "run-deck.sh: unknown program '$program' (clover_leaf or tea_leaf)" >&2; exit 2 ;;
esac
[ -x "$here/$program" ] || { echo "run-deck.sh: no program $here/$program" >&2; exit 2; }
[ -f "$here/$deck" ] || { echo "run-deck.sh: no input deck $here/$deck" >&2; exit 2; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/$name-run.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
cp "$here/$deck" "$scratch/$name.in" || exit 2
(cd "$scratch" && "$here/$program")
status=$?
if [ -f "$scratch/$name.out" ]; then
  echo "--- $name.out"
  cat "$scratch/$name.out"
fi
exit $status

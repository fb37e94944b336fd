#!/usr/bin/env bash
# How long the tests take to build: `cargo test --workspace --no-run` from
# a clean target directory, for this commit and for BASE (a commit or
# branch), alternating (this, BASE, BASE, this, this, BASE, ...) so that
# neither side always runs on a fresh or a tired machine. Prints each
# build's wall and CPU seconds, then the ratio of the means.
#
#   benches/test_build_time/run.sh BASE [PAIRS]
#
# PAIRS defaults to 3. Both trees are checked out under
# target/test-build-time/ (git worktrees), each built into a target
# directory emptied before every build.
set -euo pipefail

base="${1:?usage: $0 BASE [PAIRS]}"
pairs="${2:-3}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$root/target/test-build-time"
mkdir -p "$work"
for side in this base; do
    git -C "$root" worktree remove --force "$work/$side" 2>/dev/null || true
done
git -C "$root" worktree add --quiet --detach "$work/this" HEAD
git -C "$root" worktree add --quiet --detach "$work/base" "$base"
trap 'git -C "$root" worktree remove --force "$work/this"; git -C "$root" worktree remove --force "$work/base"' EXIT

declare -A wall cpu
order=()
for ((pair = 0; pair < pairs; pair++)); do
    if ((pair % 2 == 0)); then order+=(this base); else order+=(base this); fi
done
# Bash's own `time`: real, user and system seconds.
TIMEFORMAT='%R %U %S'
for side in "${order[@]}"; do
    rm -rf "$work/target"
    times=$( { time (cd "$work/$side" && CARGO_TARGET_DIR="$work/target" \
        cargo test --workspace --no-run --quiet >/dev/null 2>&1); } 2>&1 )
    read -r real user system <<<"$times"
    echo "$side: $real s wall, $(awk "BEGIN { print $user + $system }") s CPU"
    wall[$side]="${wall[$side]:-0} + $real"
    cpu[$side]="${cpu[$side]:-0} + $user + $system"
done
rm -rf "$work/target"
awk "BEGIN { printf \"this / $base: wall %.3f, CPU %.3f (means of $pairs builds each)\\n\", \
    (${wall[this]}) / (${wall[base]}), (${cpu[this]}) / (${cpu[base]}) }"

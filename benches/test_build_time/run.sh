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
for side in "${order[@]}"; do
    rm -rf "$work/target"
    start=$(date +%s.%N)
    times=$( { /usr/bin/env time -f "%U %S" bash -c \
        "cd '$work/$side' && CARGO_TARGET_DIR='$work/target' cargo test --workspace --no-run --quiet >/dev/null 2>&1"; } 2>&1 )
    end=$(date +%s.%N)
    seconds=$(echo "$end - $start" | bc)
    used=$(echo "$times" | tail -1 | awk '{print $1 + $2}')
    echo "$side: ${seconds} s wall, ${used} s CPU"
    wall[$side]="${wall[$side]:-0} + $seconds"
    cpu[$side]="${cpu[$side]:-0} + $used"
done
rm -rf "$work/target"
ratio=$(echo "scale=3; (${wall[this]}) / (${wall[base]})" | bc)
cpu_ratio=$(echo "scale=3; (${cpu[this]}) / (${cpu[base]})" | bc)
echo "this / $base: wall $ratio, CPU $cpu_ratio (means of $pairs builds each)"

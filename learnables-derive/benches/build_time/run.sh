#!/usr/bin/env bash
# Compile-time benchmark of `#[derive(Learnable)]` against serde's
# `#[derive(Deserialize)]`: generates two throwaway crates with the same N
# shapes (a struct of six fields: an enum of three variants, a list of it and a
# number with a range among them),
# builds their dependencies once, then times `cargo build` of each crate
# alone (incremental compilation off), alternating the two, and prints the
# medians and their ratio.
#
#   learnables-derive/benches/build_time/run.sh [N] [RUNS] [used]
#
# N defaults to 200 structs, RUNS to 7 builds of each crate. With `used`,
# each crate also parses every struct from a JSON value in one public
# function (`from_lesson_value` against serde_json's borrowing
# `deserialize`), so that the parsers are compiled in the crate timed. The
# crates and their target directory live under target/derive-build-time/.
set -euo pipefail

n="${1:-200}"
runs="${2:-7}"
mode="${3:-defined}"
case "$mode" in
defined | used) ;;
*)
    echo "usage: $0 [N] [RUNS] [used]" >&2
    exit 2
    ;;
esac
root="$(cd "$(dirname "$0")/../../.." && pwd)"
work="$root/target/derive-build-time"
export CARGO_INCREMENTAL=0
export CARGO_TARGET_DIR="$work/target"

mkdir -p "$work/learnable/src" "$work/serde/src"

serde_version="$(sed -n 's/^serde = { version = "\([^"]*\)".*/\1/p' "$root/Cargo.toml")"
serde_json_version="$(sed -n 's/^serde_json = "\([^"]*\)".*/\1/p' "$root/Cargo.toml")"

cat >"$work/learnable/Cargo.toml" <<TOML
[package]
name = "build-time-learnable"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
learnables = { path = "$root/learnables", default-features = false, features = ["derive"] }

[workspace]
TOML

cat >"$work/serde/Cargo.toml" <<TOML
[package]
name = "build-time-serde"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
serde = { version = "$serde_version", features = ["derive"] }
serde_json = "$serde_json_version"

[workspace]
TOML

# In `used` mode, a public function that parses a value of type $1 into
# every struct with the call $2, where RULE stands for the struct.
parse_all() {
    [ "$mode" = used ] || return 0
    echo "pub fn parse_all(value: &$1) -> usize {"
    echo '    let mut parsed = 0;'
    for i in $(seq 1 "$n"); do
        echo "    parsed += usize::from(${2//RULE/Rule$i}(value).is_ok());"
    done
    echo '    parsed'
    echo '}'
}

# One shape, written for each derive.
{
    echo '#![allow(dead_code)]'
    echo 'use learnables::{Choice, Learnable};'
    for i in $(seq 1 "$n"); do
        cat <<RUST
#[derive(Choice, Debug, Clone, Copy, PartialEq)]
pub enum Desk$i { General, DangerousGoods, #[choice(rename = "cold chain")] Perishables }
#[derive(Learnable, Debug, Clone, PartialEq)]
#[learnable(collection = "rules_$i", entry = "rule", teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter; anything unmatched goes to the general desk",
    decided_by = "rules", describes = "Chapter {chapter} goes to the {desk} desk")]
pub struct Rule$i {
    /// HS chapter
    pub chapter: u8,
    /// Desk
    #[learnable(default = "general")]
    pub desk: Desk$i,
    /// Note for the broker
    pub note: Option<String>,
    /// Owner
    pub owner: String,
    /// Desks it may also go to
    #[learnable(length(min = 1, max = 3))]
    pub desks: Vec<Desk$i>,
    /// Limit in euros
    #[learnable(range(min = 100, max = 1000000))]
    pub limit: u32,
}
RUST
    done
    parse_all learnables::LessonValue '<RULE as Learnable>::from_lesson_value'
} >"$work/learnable/src/lib.rs.new"

{
    echo '#![allow(dead_code)]'
    echo 'use serde::Deserialize;'
    for i in $(seq 1 "$n"); do
        cat <<RUST
#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub enum Desk$i { General, DangerousGoods, #[serde(rename = "cold chain")] Perishables }
#[derive(Deserialize, Debug, Clone, PartialEq)]
pub struct Rule$i {
    /// HS chapter
    pub chapter: u8,
    /// Desk
    #[serde(default = "general_$i")]
    pub desk: Desk$i,
    /// Note for the broker
    pub note: Option<String>,
    /// Owner
    pub owner: String,
    /// Desks it may also go to
    pub desks: Vec<Desk$i>,
    /// Limit in euros
    pub limit: u32,
}
fn general_$i() -> Desk$i { Desk$i::General }
RUST
    done
    parse_all serde_json::Value 'RULE::deserialize'
} >"$work/serde/src/lib.rs.new"

# Dependencies first, with an empty crate, so that only the crate is timed.
for crate in learnable serde; do
    echo >"$work/$crate/src/lib.rs"
    cargo build -q --manifest-path "$work/$crate/Cargo.toml"
    mv "$work/$crate/src/lib.rs.new" "$work/$crate/src/lib.rs"
done

# One build of the crate alone: "wall cpu" seconds, where cpu is the user
# and system time of cargo and the compiler (less disturbed than the wall
# clock by other work on the machine).
build() {
    local manifest="$work/$1/Cargo.toml"
    touch "$work/$1/src/lib.rs"
    local start end cpu
    start="$(date +%s.%N)"
    cpu="$( { TIMEFORMAT='%U %S'; time cargo build -q --manifest-path "$manifest"; } 2>&1 | tail -n 1)"
    end="$(date +%s.%N)"
    echo "$(echo "$end - $start" | bc) $(echo "$cpu" | awk '{ print $1 + $2 }')"
}

median() {
    sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# A first build of each, untimed (warms the disk cache), then alternating runs.
build learnable >/dev/null
build serde >/dev/null
: >"$work/learnable.times"
: >"$work/serde.times"
for run in $(seq 1 "$runs"); do
    build learnable >>"$work/learnable.times"
    build serde >>"$work/serde.times"
done

column() {
    awk -v n="$1" '{ print $n }' "$2"
}

report() {
    local what="$1" n="$2"
    local ours theirs pairs
    ours="$(column "$n" "$work/learnable.times" | median)"
    theirs="$(column "$n" "$work/serde.times" | median)"
    # Each run's ratio to the serde build right after it: the pairs see
    # about the same load, so their median is steadier than the ratio of
    # medians on a machine others are using.
    pairs="$(paste <(column "$n" "$work/learnable.times") <(column "$n" "$work/serde.times") |
        awk '{ printf "%.3f\n", $1 / $2 }')"
    echo "$what: Learnable median ${ours}s, Deserialize median ${theirs}s," \
        "ratio of medians $(echo "scale=3; $ours / $theirs" | bc)," \
        "median of pair ratios $(echo "$pairs" | median) (pairs: $(echo "$pairs" | tr '\n' ' '))"
}

echo "structs: $n ($mode), runs: $runs each, alternating (CARGO_INCREMENTAL=0, debug profile)"
report "cpu (user+sys)" 2
report "wall" 1

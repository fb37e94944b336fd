//! `pin()` + `get` of a routing rule and its baseline, `HashMap::get` and a
//! clone of the same rule, as criterion benchmarks: shared by the knowledge
//! bench and the PostgreSQL bench, each of which runs both.

use std::collections::HashMap;
use std::hint::black_box;

use criterion::BenchmarkGroup;
use criterion::measurement::WallTime;
use learnables::Knowledge;
use learnables_examples::RoutingRule;

/// The baseline: `HashMap::get` and a clone of the rule, key after key.
pub fn bench_hash_map_get(
    group: &mut BenchmarkGroup<'_, WallTime>,
    map: &HashMap<String, RoutingRule>,
    keys: &[String],
) {
    let mut next = 0usize;
    group.bench_function("HashMap get + clone", |b| {
        b.iter(|| {
            next = (next + 1) % keys.len();
            black_box(map.get(black_box(&keys[next])).cloned())
        });
    });
}

/// `knowledge.pin()` and `get` of the rule, key after key.
pub fn bench_pin_get(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    knowledge: &Knowledge,
    keys: &[String],
) {
    let mut next = 0usize;
    group.bench_function(name, |b| {
        b.iter(|| {
            next = (next + 1) % keys.len();
            let pinned = knowledge.pin();
            black_box(pinned.get::<RoutingRule>(black_box(&keys[next])))
        });
    });
}

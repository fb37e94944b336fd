//! What showing text through `Untrusted` costs, against writing the same
//! text as it is (`{}` of a `&str`), in the same run: ordinary prose, and
//! hostile text where every tenth character is escaped.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use learnables::untrusted::Untrusted;

fn prose() -> String {
    "Chapter 85 declarations now go to the cold chain desk; Größe ≤ 5 kg. ".repeat(16)
}

fn hostile() -> String {
    "abc\x1b]52;c;\x07\u{202e}xyz".repeat(64)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("untrusted");
    for (name, text) in [("prose", prose()), ("hostile", hostile())] {
        let mut out = String::with_capacity(text.len() * 8);
        group.bench_function(format!("{name}/as_is"), |b| {
            b.iter(|| {
                out.clear();
                write!(out, "{}", black_box(text.as_str())).unwrap();
                black_box(out.len())
            })
        });
        group.bench_function(format!("{name}/untrusted"), |b| {
            b.iter(|| {
                out.clear();
                write!(out, "{}", Untrusted::new(black_box(&text))).unwrap();
                black_box(out.len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

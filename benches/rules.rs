//! Perft benchmarks of variants defined as data (`menagerie_rules`): the
//! built-in `variants.ini` games from Fairy-Stockfish's published suite,
//! single-threaded. Throughput is in leaf nodes, so criterion reports nodes
//! per second. `benches/compare_fsf_variants.py` puts the same games side by
//! side with Fairy-Stockfish.
//!
//! Run with `cargo bench -p menagerie-benches --bench rules`.

use criterion::{Criterion, Throughput};
use menagerie_rules::{Definitions, Position};
use std::hint::black_box;

/// (variant, depth, Fairy-Stockfish's published count from the start position).
const CASES: &[(&str, u32, u64)] = &[
    ("makruk", 4, 273_026),
    ("shatranj", 4, 68_122),
    ("nightrider", 4, 419_019),
    ("grasshopper", 4, 635_298),
    ("seirawan", 4, 782_599),
    ("capablanca", 4, 805_128),
    ("courier", 4, 500_337),
];

/// All benchmarks: `rules/<variant>-d<depth>`.
fn bench_rules(c: &mut Criterion) {
    let defs = Definitions::builtin();
    let mut group = c.benchmark_group("rules");
    group.sample_size(10);
    for &(name, depth, expected) in CASES {
        let Some(def) = defs.get(name) else { panic!("{name} is not a built-in variant") };
        let pos = Position::start(def);
        assert_eq!(pos.perft(depth), expected, "{name}: perft {depth}");
        group.throughput(Throughput::Elements(expected));
        group.bench_function(format!("{name}-d{depth}"), |b| b.iter(|| black_box(&pos).perft(black_box(depth))));
    }
    group.finish();
}

/// Runs the benchmarks; criterion's command-line options apply.
fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_rules(&mut criterion);
    criterion.final_summary();
}

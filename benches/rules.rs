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

/// Kiwipete, the usual orthodox test position.
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// (name, variant, FEN or `None` for the start position, depth, perft count:
/// Fairy-Stockfish's published figure, the orthodox ones the usual ones).
/// The chess rows run orthodox chess through the data core, to compare with
/// the compiled core's `perft` bench.
const CASES: &[(&str, &str, Option<&str>, u32, u64)] = &[
    ("makruk", "makruk", None, 4, 273_026),
    ("shatranj", "shatranj", None, 4, 68_122),
    ("nightrider", "nightrider", None, 4, 419_019),
    ("grasshopper", "grasshopper", None, 4, 635_298),
    ("seirawan", "seirawan", None, 4, 782_599),
    ("capablanca", "capablanca", None, 4, 805_128),
    ("courier", "courier", None, 4, 500_337),
    ("chess", "chess", None, 5, 4_865_609),
    ("chess-kiwipete", "chess", Some(KIWIPETE), 4, 4_085_603),
];

/// All benchmarks: `rules/<variant>-d<depth>`.
fn bench_rules(c: &mut Criterion) {
    let defs = Definitions::builtin();
    let mut group = c.benchmark_group("rules");
    group.sample_size(10);
    for &(name, variant, fen, depth, expected) in CASES {
        let Some(def) = defs.get(variant) else { panic!("{variant} is not a built-in variant") };
        let pos = match fen {
            None => Position::start(def),
            Some(fen) => Position::from_fen(def, fen).unwrap_or_else(|e| panic!("{name}: {e}")),
        };
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

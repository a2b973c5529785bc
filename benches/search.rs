//! Search benchmarks: a fixed-depth search per variant (node counts are
//! deterministic with one thread, so the time is comparable run to run),
//! and the cost of the search's `tracing` instrumentation.
//!
//! Run with `cargo bench -p menagerie-benches --bench search`.
//!
//! The tracing group searches the same position three ways: with no
//! subscriber (the normal case: every span is disabled at its call site),
//! with a subscriber that filters everything out, and with a subscriber that
//! records every span and event (formatted into a sink). The first two must
//! be the same within noise: that is the "zero cost when nobody listens"
//! check.

use criterion::Criterion;
use menagerie_notation::fen;
use menagerie_search::{Engine, EngineOptions, Limits};
use menagerie_variants::VariantId;
use std::hint::black_box;

/// (label, variant, FEN, depth).
const CASES: &[(&str, VariantId, &str, u32)] = &[
    ("chess-kiwipete", VariantId::Chess, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 8),
    ("chess-start", VariantId::Chess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 9),
    ("alpaca-gates", VariantId::Alpaca, "r3k2r/pppq1ppp/2npbn2/4p3/4P3/2NPBN2/PPPQ1PPP/R3K2R[A@ea@h] w KQkq - 0 10", 7),
    (
        "alseid-middlegame",
        VariantId::Alseid,
        "r1bqk2r/pppp1ppp/2n2n2/2b1s3/2B1S3/2N2N2/PPPP1PPP/R1BQK2R[] w KQkq - 0 6",
        7,
    ),
    (
        "camel-rhino-start",
        VariantId::CamelRhino,
        "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1",
        5,
    ),
];

fn search(variant: VariantId, f: &str, depth: u32) -> u64 {
    let mut e = Engine::new(EngineOptions { hash_mb: 16, threads: 1, multipv: 1 });
    e.set_position(fen::parse(variant, f).expect("bench FEN"), &[]).expect("no moves");
    e.search(Limits::depth(depth), |_| {}).nodes
}

fn bench_search(c: &mut Criterion) {
    let mut g = c.benchmark_group("search");
    g.sample_size(10);
    for &(name, v, f, d) in CASES {
        let nodes = search(v, f, d);
        eprintln!("{name}: depth {d}, {nodes} nodes");
        g.bench_function(name, |b| b.iter(|| black_box(search(v, f, d))));
    }
    g.finish();
}

fn bench_tracing(c: &mut Criterion) {
    use tracing_subscriber::layer::SubscriberExt;
    let (v, f, d) = (VariantId::Chess, CASES[0].2, 7);
    let mut g = c.benchmark_group("tracing");
    g.sample_size(10);
    g.bench_function("no-subscriber", |b| b.iter(|| black_box(search(v, f, d))));
    g.bench_function("subscriber-filtering-all", |b| {
        let subscriber = tracing_subscriber::registry()
            .with(tracing_subscriber::filter::LevelFilter::OFF)
            .with(tracing_subscriber::fmt::layer().with_writer(std::io::sink));
        tracing::subscriber::with_default(subscriber, || b.iter(|| black_box(search(v, f, d))));
    });
    g.bench_function("subscriber-recording-all", |b| {
        let subscriber = tracing_subscriber::registry()
            .with(tracing_subscriber::filter::LevelFilter::TRACE)
            .with(tracing_subscriber::fmt::layer().with_writer(std::io::sink));
        tracing::subscriber::with_default(subscriber, || b.iter(|| black_box(search(v, f, d))));
    });
    g.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_search(&mut criterion);
    bench_tracing(&mut criterion);
    criterion.final_summary();
}

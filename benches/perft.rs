//! Perft benchmarks: leaf counts at a fixed depth with bulk counting at the
//! last ply, single-threaded (`menagerie_variants::perft`). Throughput is in
//! leaf nodes, so criterion reports nodes per second.
//!
//! Run with `cargo bench -p menagerie-benches --bench perft`.
//!
//! Positions live in [`CASES`]; a fairy variant is benchmarked by adding one
//! row. Orthodox rows run on the monomorphic `Position<Chess>`; other
//! variants go through [`AnyPosition::perft`], which dispatches once per
//! call and then runs the same monomorphic perft.

use criterion::{Criterion, Throughput};
use menagerie_notation::fen;
use menagerie_variants::{AnyPosition, Chess, Position, VariantId, perft};
use std::hint::black_box;

/// One perft run.
struct Case {
    /// Label in criterion's report.
    name: &'static str,
    /// The variant the FEN is read as.
    variant: VariantId,
    /// The position.
    fen: &'static str,
    /// Depth in plies.
    depth: u32,
    /// The published leaf count, checked before measuring (`None` where
    /// there is none yet: the count is then only reported).
    nodes: Option<u64>,
}

/// The perft runs benchmarked; another position or variant is one more row.
const CASES: &[Case] = &[
    Case {
        name: "startpos",
        variant: VariantId::Chess,
        fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        depth: 5,
        nodes: Some(4_865_609),
    },
    Case {
        name: "kiwipete",
        variant: VariantId::Chess,
        fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        depth: 4,
        nodes: Some(4_085_603),
    },
    // Fairy variants, through `AnyPosition`; counts from tests/perft/*.epd.
    Case {
        name: "alpaca-mid",
        variant: VariantId::Alpaca,
        fen: "r3k2r/pppq1ppp/2npbn2/4p3/4P3/2NPBN2/PPPQ1PPP/R3K2R[A@ea@h] w KQkq - 0 10",
        depth: 4,
        nodes: Some(2_501_217),
    },
    Case {
        name: "alseid-kiwipete",
        variant: VariantId::Alseid,
        fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R[S@es@a] w KQkq - 0 1",
        depth: 4,
        nodes: Some(4_088_054),
    },
    Case {
        name: "camel-rhino-mid",
        variant: VariantId::CamelRhino,
        fen: "r2bkr4/1hp2qp1c1/1pp3bppn/4ww4/p3z4p/7P2/2CPBW4/PBP1W1P1PP/1HPZ1K1N1R/Q7R1 w - - 7 17",
        depth: 3,
        nodes: Some(854_659),
    },
];

/// A position ready to count: orthodox chess on `Position<Chess>` directly,
/// anything else through `AnyPosition`. Both were measured on 2026-11-29 for
/// the two orthodox rows and are equal within noise (`AnyPosition::perft`
/// matches once, then recurses in the same monomorphic code); the direct
/// path is kept so the orthodox figures cannot depend on how `AnyPosition`
/// grows.
enum Subject {
    /// Orthodox chess.
    Chess(Position<Chess>),
    /// Any other variant.
    Any(AnyPosition),
}

impl Subject {
    fn parse(case: &Case) -> Subject {
        if case.variant == VariantId::Chess {
            let setup = fen::parse_setup(VariantId::Chess, case.fen).expect("benchmark FEN parses");
            Subject::Chess(Position::from_setup(&setup).expect("benchmark FEN is a valid position"))
        } else {
            Subject::Any(fen::parse(case.variant, case.fen).expect("benchmark FEN is a valid position"))
        }
    }

    fn perft(&self, depth: u32) -> u64 {
        match self {
            Subject::Chess(p) => perft(p, depth),
            Subject::Any(p) => p.perft(depth),
        }
    }
}

/// All perft benchmarks: `perft/<name>-d<depth>`.
fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for case in CASES {
        let pos = Subject::parse(case);
        let nodes = pos.perft(case.depth);
        if let Some(expected) = case.nodes {
            assert_eq!(nodes, expected, "{}: perft {}", case.name, case.depth);
        }
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("{}-d{}", case.name, case.depth), |b| {
            b.iter(|| black_box(&pos).perft(black_box(case.depth)))
        });
    }
    group.finish();
}

/// Runs the benchmarks; criterion's command-line options (filters,
/// `--save-baseline`, ...) apply.
fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_perft(&mut criterion);
    criterion.final_summary();
}

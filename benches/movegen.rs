//! Move generation benchmarks: legal move generation
//! ([`Position::legal_moves`]), bulk counting ([`Position::count_legal`]) and
//! copy-make ([`Position::play_unchecked`] of every legal move) on a few
//! positions.
//!
//! Run with `cargo bench -p menagerie-benches --bench movegen`.
//!
//! Positions live in [`POSITIONS`]; a fairy variant is benchmarked by adding
//! one row. Orthodox rows run on the monomorphic `Position<Chess>`; other
//! variants go through [`AnyPosition`] (see [`bench_case`] for why).

use criterion::{BenchmarkGroup, Criterion, Throughput, measurement::WallTime};
use menagerie_notation::fen;
use menagerie_variants::{AnyPosition, Chess, Move, MoveList, Position, Variant, VariantId};
use std::hint::black_box;
use std::time::Duration;

/// One benchmarked position.
struct Case {
    /// Label in criterion's report.
    name: &'static str,
    /// The variant the FEN is read as.
    variant: VariantId,
    /// The position.
    fen: &'static str,
    /// Its number of legal moves (checked before measuring).
    moves: u64,
}

/// The positions benchmarked; another position or variant is one more row.
const POSITIONS: &[Case] = &[
    Case {
        name: "startpos",
        variant: VariantId::Chess,
        fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        moves: 20,
    },
    Case {
        name: "kiwipete",
        variant: VariantId::Chess,
        fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        moves: 48,
    },
    // Fairy variants, through `AnyPosition`; positions from tests/perft/*.epd.
    Case {
        name: "alpaca-mid",
        variant: VariantId::Alpaca,
        fen: "r3k2r/pppq1ppp/2npbn2/4p3/4P3/2NPBN2/PPPQ1PPP/R3K2R[A@ea@h] w KQkq - 0 10",
        moves: 40,
    },
    Case {
        name: "alseid-kiwipete",
        variant: VariantId::Alseid,
        fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R[S@es@a] w KQkq - 0 1",
        moves: 48,
    },
    Case {
        name: "camel-rhino-mid",
        variant: VariantId::CamelRhino,
        fen: "r2bkr4/1hp2qp1c1/1pp3bppn/4ww4/p3z4p/7P2/2CPBW4/PBP1W1P1PP/1HPZ1K1N1R/Q7R1 w - - 7 17",
        moves: 102,
    },
];

/// What the benchmarks need of a position: implemented by the monomorphic
/// [`Position`] and by the run-time dispatched [`AnyPosition`].
trait Subject {
    fn legal_moves(&self) -> MoveList;
    fn count_legal(&self) -> u64;
    fn play_unchecked(&self, m: Move) -> Self;
}

/// Implements [`Subject`] for a position type by its own methods.
macro_rules! subject {
    ($($generics:ident: $bound:path),* ; $t:ty) => {
        impl<$($generics: $bound),*> Subject for $t {
            fn legal_moves(&self) -> MoveList {
                <$t>::legal_moves(self)
            }
            fn count_legal(&self) -> u64 {
                <$t>::count_legal(self)
            }
            fn play_unchecked(&self, m: Move) -> Self {
                <$t>::play_unchecked(self, m)
            }
        }
    };
}

subject!(V: Variant; Position<V>);
subject!(; AnyPosition);

/// Benchmarks one position: `movegen/<name>/{legal_moves,count_legal,play_all}`.
/// Throughput is in moves, so criterion reports moves generated (or played)
/// per second.
fn bench_subject<P: Subject>(group: &mut BenchmarkGroup<'_, WallTime>, name: &str, pos: &P, expected: u64) {
    let moves = pos.legal_moves();
    assert_eq!(moves.len() as u64, expected, "{name}: legal move count");
    assert_eq!(pos.count_legal(), expected, "{name}: count_legal");
    group.throughput(Throughput::Elements(expected));
    group.bench_function(format!("{name}/legal_moves"), |b| b.iter(|| black_box(pos).legal_moves()));
    group.bench_function(format!("{name}/count_legal"), |b| b.iter(|| black_box(pos).count_legal()));
    group.bench_function(format!("{name}/play_all"), |b| {
        b.iter(|| {
            for &m in moves.as_slice() {
                black_box(&black_box(pos).play_unchecked(m));
            }
        })
    });
}

/// Parses a case and benchmarks it.
///
/// Orthodox chess runs on `Position<Chess>` directly, everything else
/// through `AnyPosition`. Both were compared on 2026-11-29 (the
/// `kiwipete-any` rows, kept to watch the dispatch cost), over four runs:
/// `play_all` through `AnyPosition` was 7-25% slower every time, as
/// expected, since the enum is as large as its largest variant (368 bytes
/// with the 10x10 variants, against 240 for `Position<Chess>`) and every
/// `play_unchecked` through it copies that much; `legal_moves` and
/// `count_legal` showed no consistent difference (these sub-microsecond
/// figures move by up to 30% either way between builds, with code layout).
/// The direct path keeps the hot orthodox figures independent of
/// `AnyPosition`'s size.
fn bench_case(group: &mut BenchmarkGroup<'_, WallTime>, case: &Case) {
    if case.variant == VariantId::Chess {
        let setup = fen::parse_setup(VariantId::Chess, case.fen).expect("benchmark FEN parses");
        let pos = Position::<Chess>::from_setup(&setup).expect("benchmark FEN is a valid position");
        bench_subject(group, case.name, &pos, case.moves);
    } else {
        let pos = fen::parse(case.variant, case.fen).expect("benchmark FEN is a valid position");
        bench_subject(group, case.name, &pos, case.moves);
    }
}

/// All move generation benchmarks.
fn movegen(c: &mut Criterion) {
    let mut group = c.benchmark_group("movegen");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(2));
    for case in POSITIONS {
        bench_case(&mut group, case);
    }
    // The same Kiwipete rows through the run-time dispatched AnyPosition.
    let kiwipete = &POSITIONS[1];
    let any = fen::parse(kiwipete.variant, kiwipete.fen).expect("benchmark FEN is a valid position");
    bench_subject(&mut group, "kiwipete-any", &any, kiwipete.moves);
    group.finish();
}

/// Runs the benchmarks; criterion's command-line options (filters,
/// `--save-baseline`, ...) apply.
fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    movegen(&mut criterion);
    criterion.final_summary();
}

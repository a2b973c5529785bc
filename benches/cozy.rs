//! Orthodox perft side by side with cozy-chess (crates.io, the fastest Rust
//! move generator we know of; orthodox chess only) in one process: the six
//! standard positions of `tests/perft/chess-standard.epd`, one thread, bulk
//! counting at the last ply for both, each timed as the fastest of
//! `--repeat` runs (default 3). Prints nodes per second and the ratio
//! Menagerie / cozy-chess; node counts must agree with the suite.
//!
//! Run with `cargo bench -p menagerie-benches --bench cozy [-- --repeat N --quick]`
//! (`--quick`: every depth one less, a smoke test).

use cozy_chess::Board;
use menagerie_notation::fen;
use menagerie_variants::{Chess, Position, VariantId, perft};
use std::hint::black_box;
use std::time::Instant;

/// (name, FEN, depth, published count): the suite's six positions.
const CASES: &[(&str, &str, u32, u64)] = &[
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6, 119_060_324),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5, 193_690_690),
    ("pos3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 7, 178_633_661),
    ("pos4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 6, 706_045_033),
    ("pos5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 5, 89_941_194),
    ("pos6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 5, 164_075_551),
];

/// cozy-chess perft with bulk counting at the last ply.
fn cozy_perft(board: &Board, depth: u32) -> u64 {
    let mut nodes = 0;
    if depth == 1 {
        board.generate_moves(|moves| {
            nodes += moves.len() as u64;
            false
        });
        return nodes;
    }
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            nodes += cozy_perft(&child, depth - 1);
        }
        false
    });
    nodes
}

/// The fastest of `repeat` runs of `f`: (nodes, seconds).
fn fastest(repeat: usize, f: impl Fn() -> u64) -> (u64, f64) {
    (0..repeat)
        .map(|_| {
            let t = Instant::now();
            let n = black_box(f());
            (n, t.elapsed().as_secs_f64())
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((0, f64::INFINITY))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let repeat = args
        .iter()
        .position(|a| a == "--repeat")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    // `cargo bench` passes `--bench`; nothing else is expected.
    println!(
        "{:<9} {:>5} {:>12} {:>15} {:>13} {:>6}",
        "position", "depth", "nodes", "menagerie n/s", "cozy n/s", "ratio"
    );
    for &(name, text, depth, published) in CASES {
        let depth = if quick { depth - 1 } else { depth };
        let setup = fen::parse_setup(VariantId::Chess, text).expect("suite FEN parses");
        let ours = Position::<Chess>::from_setup(&setup).expect("suite FEN is a valid position");
        let theirs = Board::from_fen(text, false).expect("cozy-chess reads the suite FEN");
        let (a, ta) = fastest(repeat, || perft(&ours, depth));
        let (b, tb) = fastest(repeat, || cozy_perft(&theirs, depth));
        assert_eq!(a, b, "{name}: node counts differ");
        if !quick {
            assert_eq!(a, published, "{name}: perft {depth}");
        }
        let (na, nb) = (a as f64 / ta, b as f64 / tb);
        println!("{name:<9} {depth:>5} {a:>12} {:>13.0} M {:>11.0} M {:>6.2}", na / 1e6, nb / 1e6, na / nb);
    }
}

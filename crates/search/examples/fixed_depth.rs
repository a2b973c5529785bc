//! Fixed-depth single-thread searches of compiled variants: best move,
//! score, nodes and node rate. Used to check that changes to the search
//! keep its results identical and its speed.
//!
//! `cargo run --release -p menagerie-search --example fixed_depth [runs]`

use menagerie_notation::fen;
use menagerie_search::{Engine, EngineOptions, Limits};
use menagerie_variants::VariantId;

/// (label, variant, FEN, depth).
const CASES: &[(&str, VariantId, &str, u32)] = &[
    ("chess-start", VariantId::Chess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 15),
    ("chess-kiwipete", VariantId::Chess, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 12),
    (
        "alpaca-gates",
        VariantId::Alpaca,
        "r3k2r/pppq1ppp/2npbn2/4p3/4P3/2NPBN2/PPPQ1PPP/R3K2R[A@ea@h] w KQkq - 0 10",
        11,
    ),
    (
        "alseid-middlegame",
        VariantId::Alseid,
        "r1bqk2r/pppp1ppp/2n2n2/2b1s3/2B1S3/2N2N2/PPPP1PPP/R1BQK2R[] w KQkq - 0 6",
        11,
    ),
    (
        "camel-rhino-start",
        VariantId::CamelRhino,
        "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1",
        9,
    ),
];

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    for &(name, v, f, d) in CASES {
        let mut rates = Vec::new();
        for _ in 0..runs {
            let mut e = Engine::new(EngineOptions { hash_mb: 16, threads: 1, multipv: 1 });
            let Ok(pos) = fen::parse(v, f) else {
                eprintln!("{name}: bad FEN");
                return;
            };
            if e.set_position(pos, &[]).is_err() {
                return;
            }
            let r = e.search(Limits::depth(d), |_| {});
            let nps = r.nodes * 1000 / r.time_ms.max(1);
            rates.push(nps);
            println!(
                "{name}: depth {d} best {} score {:?} nodes {} time {} ms nps {nps}",
                r.best.map_or("-".into(), |m| e.position().move_text(m)),
                r.score,
                r.nodes,
                r.time_ms
            );
        }
        rates.sort_unstable();
        println!("{name}: median nps {}", rates[rates.len() / 2]);
    }
}

//! Runs every EPD perft suite under `tests/perft/` (repository root) up to a
//! node budget per line, so the suites stay quick in the test profile.

use menagerie_notation::{epd, fen};
use menagerie_variants::VariantId;
use std::path::PathBuf;

fn suites_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/perft")
}

/// Lines are checked at every depth whose expected count is at most this.
const NODE_BUDGET: u64 = 200_000_000;

fn run_suite(file: &str, default: VariantId) {
    let path = suites_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lines = epd::parse(&text).expect("suite parses");
    assert!(!lines.is_empty(), "{file} is empty");
    let mut checked = 0;
    for l in lines {
        let v = l.variant.unwrap_or(default);
        let pos = fen::parse(v, &l.fen).unwrap_or_else(|e| panic!("{file}:{}: {e}", l.line));
        assert_eq!(fen::format(&pos), l.fen, "{file}:{}: FEN round trip", l.line);
        for &(d, n) in &l.depths {
            if n <= NODE_BUDGET {
                assert_eq!(pos.perft_parallel(d), n, "{file}:{} depth {d}", l.line);
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
}

/// One test per suite: `name: "file", VariantId`.
macro_rules! suite_tests {
    ($($name:ident: $file:literal, $variant:ident);* $(;)?) => {
        $(
            #[test]
            fn $name() {
                run_suite($file, VariantId::$variant);
            }
        )*
    };
}

suite_tests! {
    chess_standard_positions: "chess-standard.epd", Chess;
    alpaca_suites: "alpaca.epd", Alpaca;
    alseid_suites: "alseid.epd", Alseid;
    camel_rhino_suite: "camel-rhino.epd", CamelRhino;
}

/// The published Chess960 perft suite (480 positions, Shredder-FEN castling
/// fields) to `max_depth`: the FEN round-trips through Shredder-FEN, and
/// X-FEN output reads back as the same position.
fn run_chess960(max_depth: u32) -> usize {
    let path = suites_dir().join("chess960.epd");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lines = epd::parse(&text).expect("suite parses");
    assert_eq!(lines.len(), 480);
    let mut checked = 0;
    for l in lines {
        let v = l.variant.unwrap_or(VariantId::Chess960);
        let pos = fen::parse(v, &l.fen).unwrap_or_else(|e| panic!("chess960.epd:{}: {e}", l.line));
        assert_eq!(fen::format_shredder(&pos), l.fen, "chess960.epd:{}: Shredder-FEN round trip", l.line);
        let xfen = fen::format(&pos);
        assert_eq!(fen::parse(v, &xfen).as_ref(), Ok(&pos), "chess960.epd:{}: X-FEN {xfen}", l.line);
        for &(d, n) in &l.depths {
            if d <= max_depth {
                assert_eq!(pos.perft_parallel(d), n, "chess960.epd:{} depth {d}", l.line);
                checked += 1;
            }
        }
    }
    checked
}

/// All 480 positions to depth 4 (a few seconds).
#[test]
fn chess960_suite() {
    assert_eq!(run_chess960(4), 480 * 4);
}

/// All 480 positions at every published depth (to 6; minutes in release:
/// `cargo test --release -p menagerie-notation --test perft_suites -- --ignored`,
/// or `menagerie epd tests/perft/chess960.epd -v chess960`).
#[test]
#[ignore]
fn chess960_suite_full() {
    assert_eq!(run_chess960(6), 480 * 6);
}

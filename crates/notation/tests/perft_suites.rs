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

#[test]
fn chess_standard_positions() {
    run_suite("chess-standard.epd", VariantId::Chess);
}

#[test]
fn alpaca_suites() {
    run_suite("alpaca.epd", VariantId::Alpaca);
}

#[test]
fn alseid_suites() {
    run_suite("alseid.epd", VariantId::Alseid);
}

#[test]
fn camel_rhino_suite() {
    run_suite("camel-rhino.epd", VariantId::CamelRhino);
}

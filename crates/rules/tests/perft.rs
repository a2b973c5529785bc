//! Perft counts from Fairy-Stockfish's test suite, in Menagerie's EPD form
//! (`tests/perft/data-variants.epd`: `<fen> ;variant NAME ;Dn count`), and
//! Fairy-Stockfish's counts for the flag-win and check-counting variants
//! (`tests/perft/flags-checks.epd`), and crazyhouse and its relatives
//! (`tests/perft/drops.epd`: python-chess's crazyhouse suite and
//! Fairy-Stockfish's counts, sittuyin's among them), and lichess's antichess,
//! horde and atomic (`tests/perft/lichess.epd`: python-chess's suites and
//! pyffish's counts), and Cambodian chess and kar ouk
//! (`tests/perft/cambodian.epd`: Fairy-Stockfish's counts); deeper counts
//! from start positions (`tests/perft/deep-starts.epd`).

mod common;

use menagerie_rules::{Definitions, Position};

const EPD: &str = concat!(
    include_str!("../../../tests/perft/data-variants.epd"),
    include_str!("../../../tests/perft/flags-checks.epd"),
    include_str!("../../../tests/perft/drops.epd"),
    include_str!("../../../tests/perft/lichess.epd"),
    include_str!("../../../tests/perft/cambodian.epd")
);
const DEEP_STARTS: &str = include_str!("../../../tests/perft/deep-starts.epd");

struct Case {
    line: usize,
    variant: String,
    fen: String,
    depth: u32,
    count: u64,
}

fn cases(epd: &str) -> Vec<Case> {
    let mut out = Vec::new();
    for l in common::epd_lines(epd) {
        assert!(!l.variant.is_empty(), "line {}: no ;variant", l.number);
        for (depth, count) in l.depths {
            out.push(Case { line: l.number, variant: l.variant.to_string(), fen: l.fen.to_string(), depth, count });
        }
    }
    out
}

fn run(epd: &str, filter: impl Fn(&Case) -> bool) {
    let defs = Definitions::builtin();
    let mut failures = Vec::new();
    let mut ran = 0;
    for c in cases(epd).into_iter().filter(|c| filter(c)) {
        let def = defs.get(&c.variant).unwrap_or_else(|| panic!("line {}: unknown variant {}", c.line, c.variant));
        let pos = if c.fen == "startpos" {
            Position::start(def)
        } else {
            Position::from_fen(def, &c.fen).expect("valid FEN")
        };
        let got = pos.perft(c.depth);
        ran += 1;
        if got != c.count {
            failures
                .push(format!("line {} {} {} D{}: got {got}, expected {}", c.line, c.variant, c.fen, c.depth, c.count));
        }
    }
    assert!(ran > 0, "no cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

macro_rules! variant_test {
    ($name:ident, $variant:literal) => {
        #[test]
        fn $name() {
            run(EPD, |c| c.variant == $variant);
        }
    };
}

variant_test!(makruk, "makruk");
variant_test!(cambodian, "cambodian");
variant_test!(karouk, "karouk");
variant_test!(shatranj, "shatranj");
variant_test!(amazon, "amazon");
variant_test!(nightrider, "nightrider");
variant_test!(grasshopper, "grasshopper");
variant_test!(knightmate, "knightmate");
variant_test!(seirawan, "seirawan");
variant_test!(seirawan960, "seirawan960");
variant_test!(capablanca, "capablanca");
variant_test!(embassy, "embassy");
variant_test!(janus, "janus");
variant_test!(chancellor, "chancellor");
variant_test!(courier, "courier");
variant_test!(shako, "shako");
variant_test!(kingofthehill, "kingofthehill");
variant_test!(racingkings, "racingkings");
variant_test!(threecheck, "3check");
variant_test!(fivecheck, "5check");
variant_test!(crazyhouse, "crazyhouse");
variant_test!(loop_chess, "loop");
variant_test!(chessgi, "chessgi");
variant_test!(pocketknight, "pocketknight");
variant_test!(sittuyin, "sittuyin");
variant_test!(antichess, "antichess");
variant_test!(giveaway, "giveaway");
variant_test!(suicide, "suicide");
variant_test!(horde, "horde");
variant_test!(atomic, "atomic");
variant_test!(nocheckatomic, "nocheckatomic");

#[test]
fn every_line_has_a_variant() {
    let defs = Definitions::builtin();
    for c in cases(EPD).into_iter().chain(cases(DEEP_STARTS)) {
        assert!(defs.get(&c.variant).is_some(), "line {}: {}", c.line, c.variant);
    }
}

/// Deeper counts from the start positions, checked against Fairy-Stockfish
/// (built from its public source with large boards) on the same depths.
#[test]
fn deeper_start_position_counts() {
    run(DEEP_STARTS, |_| true);
}

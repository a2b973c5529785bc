//! `epd`: EPD perft-suite lines.
//!
//! Input: suite text. Invariants: no panic; every accepted line formats
//! back (`format_line`) to a line that parses to the same value; the whole
//! text parses (`epd::parse`) exactly when each line does, to the same
//! lines; an accepted line's FEN either parses in its variant (every
//! variant when the line names none) or gives a typed error; when it
//! parses, perft at the line's depths up to 2 runs and perft(1) equals the
//! number of legal moves.

use super::check_position;
use menagerie_notation::{epd, fen};
use menagerie_variants::VariantId;

/// The perft suites of the test suite, built into the harness for seeds.
const SUITES: &[(&str, &str)] = &[
    ("chess-standard", include_str!("../../../tests/perft/chess-standard.epd")),
    ("alpaca", include_str!("../../../tests/perft/alpaca.epd")),
    ("alseid", include_str!("../../../tests/perft/alseid.epd")),
    ("camel-rhino", include_str!("../../../tests/perft/camel-rhino.epd")),
];

/// Runs one input; `true` if some line's FEN was a valid position.
pub fn run(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let mut lines = Vec::new();
    let mut all_ok = true;
    let mut accepted = false;
    for (i, l) in text.lines().enumerate() {
        match epd::parse_line(l, i + 1) {
            Ok(None) => {}
            Ok(Some(e)) => {
                let again = epd::format_line(&e);
                assert_eq!(
                    epd::parse_line(&again, i + 1),
                    Ok(Some(e.clone())),
                    "line {l:?} formats as {again:?}, which reads differently"
                );
                accepted |= check_fen(&e);
                lines.push(e);
            }
            Err(e) => {
                let _ = e.to_string();
                all_ok = false;
            }
        }
    }
    match epd::parse(&text) {
        Ok(suite) => {
            assert!(all_ok, "epd::parse accepts a suite with a malformed line");
            assert_eq!(suite, lines, "epd::parse and parse_line disagree");
        }
        Err(e) => assert!(!all_ok, "epd::parse rejects ({e}) a suite whose lines all parse"),
    }
    accepted
}

fn check_fen(e: &epd::EpdLine) -> bool {
    let variants: &[VariantId] = match &e.variant {
        Some(v) => std::slice::from_ref(v),
        None => VariantId::EVERY,
    };
    let mut ok = false;
    for &v in variants {
        match fen::parse(v, &e.fen) {
            Ok(pos) => {
                ok = true;
                check_position(&pos);
                assert_eq!(pos.perft(1), pos.count_legal(), "{v}: perft(1) != legal moves in {:?}", e.fen);
                for &(d, _) in &e.depths {
                    if d <= 2 {
                        let _ = pos.perft(d);
                    }
                }
            }
            Err(err) => {
                let _ = (err.to_string(), err.field());
            }
        }
    }
    ok
}

/// `(variant, FEN)` of every line of the built-in perft suites.
pub fn suite_positions() -> Vec<(VariantId, String)> {
    let mut out = Vec::new();
    for (_, text) in SUITES {
        for e in epd::parse(text).unwrap_or_default() {
            out.push((e.variant.unwrap_or(VariantId::Chess), e.fen));
        }
    }
    out
}

/// Seeds: the perft suites line by line and whole, plus malformed lines.
pub fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (name, text) in SUITES {
        out.push((format!("suite-{name}"), text.as_bytes().to_vec()));
        for (i, l) in text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).enumerate() {
            out.push((format!("line-{name}-{i:02}"), l.as_bytes().to_vec()));
        }
    }
    for (name, text) in [
        ("no-fen", ";D1 20"),
        ("no-value", "8/8/8/8/8/8/8/K6k w - - 0 1 ;D1"),
        ("bad-depth", "8/8/8/8/8/8/8/K6k w - - 0 1 ;Dx 3"),
        ("unknown-variant", "8/8/8/8/8/8/8/K6k w - - 0 1 ;variant shogi ;D1 3"),
        ("unknown-opcode", "8/8/8/8/8/8/8/K6k w - - 0 1 ;bm e4"),
        ("comment-crlf", "# comment\r\n\r\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ;D1 20 ;\r\n"),
        ("huge-count", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 18446744073709551616"),
    ] {
        out.push((name.to_string(), text.as_bytes().to_vec()));
    }
    out
}

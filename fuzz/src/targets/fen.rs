//! `fen`: FEN text for every variant.
//!
//! Input: `variant\nFEN` (an unknown first line picks a variant by its hash),
//! or a FEN alone, which is tried in every variant. Invariants for every
//! accepted FEN: [`check_position`](super::check_position) (round trip,
//! incremental = from-scratch hash after every move), the unvalidated
//! [`Setup`](menagerie_variants::Setup) round-trips too, and perft(1) =
//! number of legal moves, perft(2) = sum of divide(2).

use super::{check_position, variant_of};
use menagerie_notation::fen;
use menagerie_variants::VariantId;

/// Runs one input; `true` if some variant accepted the FEN.
pub fn run(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    match text.split_once('\n') {
        Some((selector, fen)) => check(variant_of(selector), fen),
        None => VariantId::EVERY.iter().fold(false, |acc, &v| check(v, &text) | acc),
    }
}

/// Checks one FEN in one variant; `true` if it was accepted.
pub fn check(variant: VariantId, text: &str) -> bool {
    if let Ok(setup) = fen::parse_setup(variant, text) {
        let s = fen::format_setup(&setup);
        match fen::parse_setup(variant, &s) {
            Ok(back) => {
                assert!(back == setup, "{variant}: setup of {text:?} formats as {s:?}, which reads differently")
            }
            Err(e) => panic!("{variant}: setup of {text:?} formats as {s:?}, which does not parse: {e}"),
        }
    }
    let pos = match fen::parse_or_start(variant, text) {
        Ok(p) => p,
        Err(e) => {
            let _ = (e.to_string(), e.field());
            return false;
        }
    };
    check_position(&pos);
    let legal = pos.count_legal();
    assert_eq!(pos.perft(1), legal, "{variant}: perft(1) != legal moves in {text:?}");
    let p2 = pos.perft(2);
    let divide = pos.divide(2);
    assert_eq!(divide.len() as u64, legal, "{variant}: divide(2) root moves != legal moves in {text:?}");
    assert_eq!(divide.iter().map(|d| d.1).sum::<u64>(), p2, "{variant}: sum of divide(2) != perft(2) in {text:?}");
    true
}

/// Seeds: every variant's start FEN, and every position of the perft suites.
pub fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for &v in VariantId::EVERY {
        out.push((format!("start-{v}"), format!("{v}\n{}", v.start_fen()).into_bytes()));
    }
    for (i, (v, fen)) in super::epd::suite_positions().into_iter().enumerate() {
        out.push((format!("suite-{i:02}-{v}"), format!("{v}\n{fen}").into_bytes()));
    }
    // A few bare FENs (tried in every variant) and near-misses.
    for (name, text) in [
        ("bare-chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        ("bare-epd4", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3"),
        ("bare-gated", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[A@ga@f] w KQkq - 0 1"),
        ("bare-alseid-board", "4k3/8/8/3s4/8/3S4/8/4K3 w - - 0 1"),
        ("bare-10x10", "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1"),
        ("empty", ""),
    ] {
        out.push((name.to_string(), text.as_bytes().to_vec()));
    }
    out
}

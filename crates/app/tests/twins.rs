//! Variants defined as data that a compiled game plays exactly are counted
//! by the compiled core: which definitions have such a twin, and that the
//! twin counts what the data core counts.

use menagerie_app::perft::Perft;
use menagerie_app::{DataPosition, GamePosition, Variants, compiled_twin};
use menagerie_notation::epd;
use menagerie_rules::{Definitions, MENAGERIE_INI, VariantDef};
use menagerie_variants::{PerftControl, VariantId};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};

/// Perft per root move of `p` by the one count (`Perft`), each move in the
/// data core's coordinate notation.
fn divide(p: &DataPosition, depth: u32) -> Vec<(String, u64)> {
    let perft = Perft::new(GamePosition::Data(p.clone()));
    let (stop, progress) = (AtomicBool::new(false), AtomicU64::new(0));
    let ctl = PerftControl { stop: &stop, progress: &progress, table: None };
    let counts = perft.divide(depth, 1, &ctl, |_, _| Ok::<(), ()>(()), || None).expect("counted");
    counts.into_iter().enumerate().map(|(i, n)| (perft.move_texts(i).0, n)).collect()
}

/// The built-in definitions with Menagerie's games, and `extra` loaded after.
fn definitions(extra: &str) -> Definitions {
    let mut defs = Definitions::builtin();
    defs.load(MENAGERIE_INI, "menagerie.ini").expect("menagerie.ini loads");
    if !extra.is_empty() {
        defs.load(extra, "test.ini").expect("the test definitions load");
    }
    defs
}

/// Perft as every front end counts it: on the compiled twin if there is one.
fn data_perft(p: &DataPosition, depth: u32) -> u64 {
    GamePosition::Data(p.clone()).perft(depth)
}

fn def(defs: &Definitions, name: &str) -> Arc<VariantDef> {
    defs.get(name).unwrap_or_else(|| panic!("no [{name}]")).clone()
}

#[test]
fn each_compiled_game_plays_its_own_definition() {
    let defs = definitions("");
    for &id in VariantId::EVERY {
        assert_eq!(VariantId::playing(&def(&defs, id.name())), Some(id), "{id}");
    }
    // Definitions of other games have no compiled twin.
    for name in ["seirawan", "capablanca", "makruk", "alpaca960", "alseid960", "shako", "nightrider"] {
        assert_eq!(VariantId::playing(&def(&defs, name)), None, "{name}");
    }
}

#[test]
fn user_definitions_with_compiled_rules_have_a_twin() {
    let defs = definitions(
        "[my-chess:chess]\n\
         startFen = r1bqkbnr/pppppppp/2n5/8/8/2N5/PPPPPPPP/R1BQKBNR w KQkq - 2 2\n\
         [my-alseid:alseid-weak]\n\
         [my-camels:camel-rhino]\n\
         [onboard:chess]\n\
         customPiece1 = a:WmD\n\
         startFen = rnbqkbnr/pppppppp/2a5/8/8/5A2/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n\
         [no-castling:chess]\n\
         castling = false\n\
         startFen = rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1\n\
         [forty:chess]\n\
         nMoveRule = 40\n\
         [knights:chess]\n\
         promotionPieceTypes = n\n",
    );
    let twin = |name: &str| VariantId::playing(&def(&defs, name));
    assert_eq!(twin("my-chess"), Some(VariantId::Chess));
    assert_eq!(twin("my-alseid"), Some(VariantId::AlseidWeak));
    assert_eq!(twin("my-camels"), Some(VariantId::CamelRhino));
    // Alpacas on the board without gating: no compiled game has those rules.
    for name in ["onboard", "no-castling", "forty", "knights"] {
        assert_eq!(twin(name), None, "{name}");
    }
    // The user's start position, counted by the compiled core: the same
    // counts, move texts and order as the data core gives.
    let start = DataPosition::start(&def(&defs, "my-chess"));
    let compiled = compiled_twin(&start).expect("a twin");
    assert_eq!(compiled.variant(), VariantId::Chess);
    for depth in 1..=3 {
        assert_eq!(data_perft(&start, depth), start.perft(depth), "depth {depth}");
    }
    assert_eq!(divide(&start, 3), start.divide(3));
    // A definition without a twin is counted by the data core.
    let onboard = DataPosition::start(&def(&defs, "onboard"));
    assert!(compiled_twin(&onboard).is_none());
    assert_eq!(data_perft(&onboard, 3), onboard.perft(3));
}

/// Every line of the compiled games' perft suites read as a position of the
/// game's definition: the twin exists, lists as many moves, and counts what
/// the data core counts (depth 2) and what the suite says (depth 3).
#[test]
fn twins_count_the_suites_like_the_data_core() {
    let defs = definitions("");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/perft/");
    let mut lines = 0;
    for (file, default, step) in [
        ("chess-standard.epd", "chess", 1),
        ("alpaca.epd", "alpaca", 1),
        ("alseid.epd", "alseid", 1),
        ("camel-rhino.epd", "camel-rhino", 1),
        ("chess960.epd", "chess960", 24),
    ] {
        let text = std::fs::read_to_string(format!("{dir}{file}")).expect("the suite is in the repository");
        let suite = text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
        for line in suite.step_by(step) {
            let epd = epd::parse_line_with(line, 1, |name| Ok::<_, String>(name.to_string())).unwrap().unwrap();
            let variant = epd.variant.as_deref().unwrap_or(default);
            let p = DataPosition::from_fen(&def(&defs, variant), &epd.fen).unwrap_or_else(|e| panic!("{line}: {e}"));
            let twin = compiled_twin(&p).unwrap_or_else(|| panic!("{line}: no compiled twin"));
            assert_eq!(twin.variant().name(), variant, "{line}");
            assert_eq!(twin.count_legal(), p.legal_moves().len() as u64, "{line}");
            assert_eq!(twin.perft(2), p.perft(2), "{line}");
            if let Some(&(_, d3)) = epd.depths.iter().find(|&&(d, _)| d == 3) {
                assert_eq!(data_perft(&p, 3), d3, "{line}");
            }
            lines += 1;
        }
    }
    assert!(lines >= 60, "{lines} lines");
}

#[test]
fn served_variants_count_through_the_twin() {
    let mut variants = Variants::builtin();
    let added =
        variants.load("[my-chess:chess]\nstartFen = 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\n", "t.ini", true).expect("loads");
    assert_eq!(added.added, ["my-chess"]);
    let def = variants.data("my-chess").expect("served");
    let p = DataPosition::start(&def);
    assert!(compiled_twin(&p).is_some());
    // Perft 5 of king and pawn against king (Stockfish: 5 ply from this
    // position).
    assert_eq!(data_perft(&p, 5), p.perft(5));
}

//! Position equality is over the position, not over how it was reached:
//! a position reached by play equals the one read back from its own FEN,
//! with the same Zobrist key, in every kind of variant (castling rights
//! lost along the way, S-chess gates and pockets, Makruk's counting).

use menagerie_rules::{Definitions, Game, Position};
use menagerie_testkit::Rng;
use proptest::prelude::*;
use std::sync::OnceLock;

fn defs() -> &'static Definitions {
    static DEFS: OnceLock<Definitions> = OnceLock::new();
    DEFS.get_or_init(Definitions::builtin)
}

/// Variants with castling (orthodox, 10x8, Chess960 letters), gating,
/// gating from a hand refilled by captures, counting, extinction, no
/// castling at all and Cambodian chess's gates.
const VARIANTS: [&str; 12] = [
    "chess",
    "chess960",
    "capablanca",
    "janus",
    "shako",
    "seirawan",
    "seirawan960",
    "shouse",
    "makruk",
    "shatranj",
    "knightmate",
    "cambodian",
];

/// Checks every position of a random playout of up to `plies` from `start`
/// against the one read back from its FEN.
fn check_playout(name: &str, start: Position, plies: usize, rng: &mut Rng) -> Result<(), TestCaseError> {
    let mut pos = start;
    for _ in 0..plies {
        let fen = pos.fen();
        let back = Position::from_fen(pos.variant(), &fen).map_err(|e| TestCaseError::fail(format!("{fen}: {e}")))?;
        prop_assert_eq!(back.fen(), fen.clone(), "{}", name);
        prop_assert!(pos == back, "{}: reached by play != read from its FEN {}", name, fen);
        prop_assert!(back == pos, "{}: not symmetric at {}", name, fen);
        prop_assert_eq!(pos.key(), back.key(), "{}: {}", name, fen);
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        pos = pos.play(legal[rng.below(legal.len())]);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_position_reached_by_play_equals_its_own_fen(variant in 0..VARIANTS.len(), seed in 1..u64::MAX) {
        let name = VARIANTS[variant];
        let def = defs().get(name).cloned().unwrap_or_else(|| panic!("{name} is built in"));
        check_playout(name, Position::start(&def), 160, &mut Rng(seed))?;
    }
}

#[test]
fn makruk_counting_positions_equal_their_fen() {
    // Bare kings but for White's rook: the count is on at once.
    let def = defs().get("makruk").cloned().expect("built in");
    let mut rng = Rng(0x5eed);
    for _ in 0..8 {
        let start = Position::from_fen(&def, "4k3/8/8/8/8/8/8/R3K3 b - 16 3 40").expect("a makruk FEN");
        check_playout("makruk", start, 60, &mut rng).expect("equal");
    }
}

#[test]
fn equality_still_tells_positions_apart() {
    let def = defs().get("chess").cloned().expect("built in");
    let fen = |f: &str| Position::from_fen(&def, f).expect("a FEN");
    let start = Position::start(&def);
    assert_eq!(start, fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"));
    // Castling rights, side, en passant, counters and the variant count.
    for other in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Kkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 1 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2",
    ] {
        assert_ne!(start, fen(other), "{other}");
    }
    let ep = fen("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3");
    assert_ne!(ep, fen("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3"));
    let chess960 = defs().get("chess960").cloned().expect("built in");
    assert_ne!(start, Position::start(&chess960));
    // S-chess: pockets and usable gates.
    let s = defs().get("seirawan").cloned().expect("built in");
    let sfen = |f: &str| Position::from_fen(&s, f).expect("a FEN");
    let full = sfen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1");
    assert_eq!(full, Position::start(&s));
    assert_ne!(full, sfen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Ehe] w KQBCDFGkqbcdfg - 0 1"));
    assert_ne!(full, sfen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFkqbcdfg - 0 1"));
}

#[test]
fn lost_castling_rights_leave_nothing_behind() {
    // The king walks out and back: the rights are gone, and the position
    // is the one its FEN describes (and a repetition of it).
    let def = defs().get("chess").cloned().expect("built in");
    let mut game = Game::new(Position::start(&def));
    for text in ["e2e4", "e7e5", "e1e2", "e8e7", "e2e1", "e7e8"] {
        let m = game.current().parse_move(text).expect("legal");
        game.play(m);
    }
    let here = game.current().clone();
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w - - 4 4";
    assert_eq!(here.fen(), fen);
    assert_eq!(here, Position::from_fen(&def, fen).expect("its FEN"));
}

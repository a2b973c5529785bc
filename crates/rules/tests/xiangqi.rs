//! The xiangqi and janggi families' rules that a position alone does not
//! show (the random-game positions of `fsf_positions.rs` cover the rest):
//! the flying general, the soldier crossing the river, passing, two passes
//! in a row, bikjang, material counting. Expected moves and results are
//! Fairy-Stockfish's (pyffish 0.0.90).

use std::sync::Arc;

use menagerie_rules::{Definitions, EndReason, Game, GameResult, Position, VariantDef};

fn variant(name: &str) -> Arc<VariantDef> {
    Arc::clone(Definitions::builtin().get(name).expect("a built-in variant"))
}

fn pos(name: &str, fen: &str) -> Position {
    Position::from_fen(&variant(name), fen).expect("a valid FEN")
}

fn moves(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().into_iter().map(|m| p.move_text(m)).collect();
    v.sort();
    v
}

/// A game from `fen` with `played` (coordinate moves) played.
fn game(name: &str, fen: &str, played: &[&str]) -> Game {
    let mut g = Game::new(pos(name, fen));
    for text in played {
        let m = g.current().parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        g.play(m);
    }
    g
}

#[test]
fn the_last_piece_between_the_kings_stays_on_the_file_and_kings_never_face() {
    // The chariot on e2 shields its king from the flying general.
    let p = pos("xiangqi", "4k4/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1");
    let expected = ["e1d1", "e1f1", "e2e10", "e2e3", "e2e4", "e2e5", "e2e6", "e2e7", "e2e8", "e2e9"];
    assert_eq!(moves(&p), expected);
    // The king may not step onto the enemy king's open file (d1).
    let p = pos("xiangqi", "3k5/9/9/9/4P4/9/P8/9/9/4K4 w - - 0 1");
    assert_eq!(moves(&p), ["a4a5", "e1e2", "e1f1", "e6d6", "e6e7", "e6f6"]);
}

#[test]
fn soldiers_step_sideways_only_across_the_river() {
    // a4 has not crossed (forward only); e6 has (forward and sideways);
    // soldiers never step back.
    let p = pos("xiangqi", "3k5/9/9/9/4P4/9/P8/9/9/4K4 w - - 0 1");
    let soldier: Vec<String> = moves(&p).into_iter().filter(|m| m.starts_with('a') || m.starts_with("e6")).collect();
    assert_eq!(soldier, ["a4a5", "e6d6", "e6e7", "e6f6"]);
}

#[test]
fn a_janggi_pass_is_the_kings_move_to_its_own_square_and_two_passes_end_the_game() {
    let start = variant("janggicasual").start_fen.clone();
    let p = pos("janggicasual", &start);
    assert_eq!(p.legal_moves().len(), 32, "31 moves and the pass");
    let pass = p.parse_move("e2e2").expect("White may pass");
    assert!(pass.is_pass());
    assert_eq!(p.san(pass), "Ke2");
    assert_eq!(p.play(pass).fen(), "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR b - - 1 1");
    // One pass does not end the game; two in a row do: casual rules draw,
    // tournament rules count material (equal, so Black's 1.5 wins).
    assert_eq!(game("janggicasual", &start, &["e2e2"]).outcome(), None);
    let o = game("janggicasual", &start, &["e2e2", "e9e9"]).outcome().expect("ended");
    assert_eq!((o.reason, o.result), (EndReason::Passes, GameResult::Draw));
    let o = game("janggi", &start, &["e2e2", "e9e9"]).outcome().expect("ended");
    assert_eq!((o.reason, o.result), (EndReason::Passes, GameResult::BlackWins));
    // A move between the passes restarts the count.
    assert_eq!(game("janggicasual", &start, &["e2e2", "a7b7", "e2e2"]).outcome(), None);
}

#[test]
fn a_side_in_check_may_not_pass() {
    // The chariot on e5 checks the king on e2.
    let p = pos("janggicasual", "4k4/9/9/9/9/4r4/9/9/4K4/9 w - - 0 1");
    assert!(p.in_check());
    assert!(p.parse_move("e2e2").is_err());
}

#[test]
fn bikjang_must_be_broken_or_passed_and_twice_in_a_row_ends_the_game() {
    let fen = "9/4k4/9/9/9/9/9/9/4K4/9 w - - 0 1";
    // Facing kings: White leaves the file or passes (e1 and e3 stay on it).
    let bikjang = ["e2d1", "e2d2", "e2d3", "e2e2", "e2f1", "e2f2", "e2f3"];
    assert_eq!(moves(&pos("janggi", fen)), bikjang);
    assert_eq!(moves(&pos("janggitraditional", fen)), bikjang);
    // Casual rules know no bikjang.
    assert_eq!(moves(&pos("janggicasual", fen)).len(), 9);
    // Passing keeps the kings facing: the game ends, decided by material
    // counting (no material: Black's 1.5 wins) or drawn.
    let o = game("janggi", fen, &["e2e2"]).outcome().expect("ended");
    assert_eq!((o.reason, o.result), (EndReason::Bikjang, GameResult::BlackWins));
    let o = game("janggitraditional", fen, &["e2e2"]).outcome().expect("ended");
    assert_eq!((o.reason, o.result), (EndReason::Bikjang, GameResult::Draw));
    assert_eq!(game("janggi", fen, &["e2f2"]).outcome(), None);
    // The position alone, without the move to it, ends nothing.
    assert_eq!(pos("janggi", fen).outcome(), None);
}

#[test]
fn material_counting_decides_the_n_move_rule() {
    // Armageddon: a draw by the 50-move rule is Black's win.
    let g = game("armageddon", "4k3/8/8/8/8/8/8/4K3 w - - 100 80", &[]);
    let o = g.claimable().expect("the 50-move rule");
    assert_eq!((o.reason, o.result), (EndReason::MoveRule, GameResult::BlackWins));
    let g = game("chess", "4k3/8/8/8/8/8/8/4K3 w - - 100 80", &[]);
    assert_eq!(g.claimable().map(|o| o.result), Some(GameResult::Draw));
}

/// Janggi with drops (Fairy-Stockfish's `janggihouse`): under bikjang a
/// drop must part the kings too, and a dropped cannon is a cannon at once.
#[test]
fn under_bikjang_a_drop_must_part_the_kings() {
    let mut defs = Definitions::builtin();
    let section = "[janggihouse:janggi]\nstartFen = rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR[] w - - 0 1\npieceDrops = true\ncapturesToHand = true\n";
    defs.load(section, "janggihouse.ini").expect("the section loads");
    let def = Arc::clone(defs.get("janggihouse").expect("loaded"));
    let p =
        Position::from_fen(&def, "1n1aa1b1r/r2k5/6nc1/b1B1p3p/1p3P3/7P1/P1p3p2/1cN1C2C1/4A3R/R2KA1BN1[Pp] w - - 0 22")
            .expect("a valid FEN");
    // The kings face each other on the d-file: a soldier dropped between
    // them, the king leaving the file, or a pass.
    let expected = ["P@d2", "P@d3", "P@d4", "P@d5", "P@d6", "P@d7", "P@d8", "d1d1", "e2d2", "e2d3"];
    assert_eq!(moves(&p), expected);
    assert_eq!(p.perft(1), expected.len() as u64, "counting agrees with the list");
}

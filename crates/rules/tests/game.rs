//! Game-level rules of data-defined variants (`Game::claimable`): the n-move
//! rule, n-fold repetition (gating squares aside) and Makruk's counting, at
//! the plies where Fairy-Stockfish (pyffish `is_optional_game_end`) ends the
//! same games.

use std::sync::Arc;

use menagerie_rules::{Definitions, EndReason, Game, GameResult, Position, VariantDef};

fn variant(name: &str) -> Arc<VariantDef> {
    Arc::clone(Definitions::builtin().get(name).expect("built-in variant"))
}

fn game(name: &str, fen: &str, moves: &str) -> Game {
    let mut g = Game::new(Position::from_fen(&variant(name), fen).expect("valid FEN"));
    for text in moves.split_whitespace() {
        let m = g.current().parse_move(text).expect("legal move");
        g.play(m);
    }
    g
}

#[test]
fn the_n_move_rule_draws_at_twice_n_plies() {
    let fen = "4k5/10/10/10/10/10/10/R3K5 w - - 99 80";
    assert_eq!(game("capablanca", fen, "").claimable(), None);
    let o = game("capablanca", fen, "a1a2").claimable().expect("ended");
    assert_eq!((o.reason, o.result), (EndReason::MoveRule, GameResult::Draw));
    // A capture resets the count.
    let fen = "r3k5/10/10/10/10/10/10/R3K5 w - - 99 80";
    assert_eq!(game("capablanca", fen, "a1a8").claimable(), None);
}

#[test]
fn threefold_repetition_counts_positions_not_moves() {
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    let shuffle = "a1a2 e8d8 a2a1 d8e8";
    let once = game("makruk", fen, shuffle);
    assert_eq!(once.claimable(), None, "two occurrences only");
    let twice = game("makruk", fen, &format!("{shuffle} {shuffle}"));
    let o = twice.claimable().expect("third occurrence");
    assert_eq!((o.reason, o.result), (EndReason::Repetition, GameResult::Draw));
    assert_eq!(twice.outcome(), None, "moves remain");
    assert_eq!(twice.moves().len(), 8);
}

/// Fairy-Stockfish's position key leaves the gating squares out: a knight
/// back on its square repeats the position from before it left, its gate
/// lost or not (S-chess here; Cambodian chess in `tests/cambodian.rs`).
#[test]
fn repetitions_ignore_gating_squares() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1";
    let shuffle = "g1f3 g8f6 f3g1 f6g8";
    let once = game("seirawan", start, shuffle);
    assert_eq!(once.current().fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQBCDFkqbcdf - 4 3");
    assert_eq!(game("seirawan", start, &format!("{shuffle} g1f3 g8f6 f3g1")).claimable(), None);
    let o = game("seirawan", start, &format!("{shuffle} {shuffle}")).claimable().expect("third occurrence");
    assert_eq!((o.reason, o.result), (EndReason::Repetition, GameResult::Draw));
}

#[test]
fn makruk_counting_ends_past_its_limit() {
    // Rook against bare king: pieces' honour counting, limit 32 plies
    // (Fairy-Stockfish ends the game after the 28th ply of this game).
    let moves = "e1d2 e8d7 a1g1 d7e6 g1g2 e6e5 g2g3 e5d6 g3g7 d6c5 g7g8 c5d4 g8g7 d4e5 d2d1 e5d6 \
                 g7g8 d6c5 g8e8 c5b5 e8e5 b5a6 d1d2 a6b7 d2d1 b7a7 e5h5 a7b6";
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    let g = game("makruk", fen, moves);
    assert_eq!(g.current().fen(), "8/8/1k6/7R/8/8/8/3K4 w - 32 33 15");
    let o = g.claimable().expect("counted out");
    assert_eq!((o.reason, o.result), (EndReason::Counting, GameResult::Draw));
    let all: Vec<&str> = moves.split_whitespace().collect();
    let before = game("makruk", fen, &all[..all.len() - 1].join(" "));
    assert_eq!(before.claimable(), None);
    assert_eq!(o.to_string(), "counting, draw");
}

//! Connect wins and forced drops (the sections of
//! `tests/variants/connect.ini`): rows, squares, lines with gaps, chains
//! between two regions, `connectValue`, `mustDrop`. Expected moves and
//! results are Fairy-Stockfish's (pyffish 0.0.90); `fsf_positions.rs`
//! covers random games of the same sections.

use menagerie_rules::{Definitions, EndReason, GameResult, Position};

const CONNECT_INI: &str = include_str!("../../../tests/variants/connect.ini");

fn pos(name: &str, fen: &str) -> Position {
    let mut d = Definitions::builtin();
    d.load(CONNECT_INI, "connect.ini").expect("the connect sections load");
    Position::from_fen(d.get(name).expect("a variant"), fen).expect("a valid FEN")
}

fn play(p: &Position, text: &str) -> Position {
    p.play(p.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}")))
}

fn ended(p: &Position) -> Option<(EndReason, GameResult)> {
    p.outcome().map(|o| (o.reason, o.result))
}

#[test]
fn three_in_a_row_wins_for_the_side_that_made_it() {
    let p = play(&pos("noughts", "PP1/pp1/3[PPPppp] w - - 0 1"), "P@c3");
    assert_eq!(ended(&p), Some((EndReason::Connect, GameResult::WhiteWins)));
    assert!(p.legal_moves().is_empty());
}

#[test]
fn a_two_by_two_square_wins_and_an_l_does_not() {
    let p = play(&pos("squares", "5/5/5/P4/P4[PPpp] w - - 0 1"), "P@b1");
    assert_eq!(ended(&p), None);
    assert_eq!(p.legal_moves().len(), 22);
    let p = play(&pos("squares", "5/5/5/P4/PP3[Ppp] w - - 0 1"), "P@b2");
    assert_eq!(ended(&p), Some((EndReason::Connect, GameResult::WhiteWins)));
}

#[test]
fn a_side_with_stones_in_hand_must_drop_them() {
    let p = pos("squares", "5/5/5/1pp2/1PP2[PPpp] w - - 0 1");
    let moves = p.legal_moves();
    assert_eq!(moves.len(), 21);
    assert!(moves.iter().all(|&m| p.move_text(m).starts_with("P@")));
    // With the hand empty the stones step.
    assert_eq!(pos("squares", "5/5/5/1pp2/1PP2[] w - - 0 1").legal_moves().len(), 4);
}

#[test]
fn three_guards_on_one_file_lose_however_far_apart() {
    let p = play(&pos("lines", "G4/5/G4/5/pG3 w - - 0 1"), "b1a1");
    assert_eq!(ended(&p), Some((EndReason::Connect, GameResult::BlackWins)));
}

#[test]
fn a_chain_joins_the_regions_growing_east_and_north_only() {
    let p = play(&pos("crossing", "5/5/PPPP1/5/5[PPPPPPPPPppppppppppp] w - - 0 1"), "P@e3");
    assert_eq!(ended(&p), Some((EndReason::Connect, GameResult::WhiteWins)));
    // a3-b3 then down to b2-c2-d2-e2: a step south, which chains do not take.
    let p = play(&pos("crossing", "5/5/PP3/1PPP1/5[PPPPPPPPPppppppppppp] w - - 0 1"), "P@e2");
    assert_eq!(ended(&p), None);
    assert_eq!(p.legal_moves().len(), 19);
}

//! Cambodian chess and kar ouk (built in; Fairy-Stockfish's
//! `cambodianMoves` and `countingRule = cambodian`), rule by rule. Every
//! expected move list, FEN and game end is pyffish 0.0.90's.

use std::sync::Arc;

use menagerie_rules::{Definitions, EndReason, Game, GameResult, Position, VariantDef};

fn variant(name: &str) -> Arc<VariantDef> {
    Arc::clone(Definitions::builtin().get(name).expect("built-in variant"))
}

fn pos(name: &str, fen: &str, moves: &str) -> Position {
    let start = Position::from_fen(&variant(name), fen).expect("valid FEN");
    moves.split_whitespace().fold(start, |p, text| {
        let m = p.parse_move(text).unwrap_or_else(|e| panic!("{text} in {}: {e}", p.fen()));
        p.play(m)
    })
}

fn legal(p: &Position) -> Vec<String> {
    let mut moves: Vec<String> = p.legal_moves().into_iter().map(|m| p.move_text(m)).collect();
    moves.sort();
    moves
}

const START: &str = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1";

#[test]
fn the_start_positions_carry_the_gates() {
    let cambodian = variant("cambodian");
    assert_eq!(cambodian.start_fen, START);
    assert_eq!(Position::start(&cambodian).fen(), START);
    let karouk = Position::start(&variant("karouk"));
    assert_eq!(karouk.fen(), "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 1+1 0 1");
    // No pieces in hand: no pocket is written, and one with pieces is refused.
    assert!(!cambodian.uses_hand());
    assert!(Position::from_fen(&cambodian, "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR[Mm] w DEde - 0 1").is_err());
}

#[test]
fn the_king_leaps_as_a_knight_to_the_next_rank_once_from_its_gate() {
    let start = pos("cambodian", START, "");
    let moves = legal(&start);
    assert!(moves.contains(&"d1b2".to_string()) && moves.contains(&"d1f2".to_string()), "{moves:?}");
    assert_eq!(moves.len(), 25);
    // The leap takes the king off its gate.
    let after = pos("cambodian", START, "d1b2 e8g7");
    assert_eq!(after.fen(), "rnsm1snr/6k1/pppppppp/8/8/PPPPPPPP/1K6/RNS1MSNR w Ed - 2 2");
    assert_eq!(after.legal_moves().len(), 21);
    // So does a step: back on its square the king has no leap.
    let back = pos("cambodian", START, "d1c2 e8e7 c2d1");
    assert_eq!(back.fen(), "rnsm1snr/4k3/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR b Ed - 3 2");
    let d1 = pos("cambodian", &back.fen(), "e7e8 d1d2 e8e7 d2d1 e7e8");
    assert!(!legal(&d1).iter().any(|m| m == "d1b2" || m == "d1f2"));
    // The SAN of a leap is the king's.
    let leap = start.parse_move("d1b2").expect("legal");
    assert_eq!(start.san(leap), "Kb2");
}

#[test]
fn the_king_leaps_only_to_empty_safe_squares_and_not_out_of_check() {
    // b2 is the king's own knight's, f2 attacked by the rook.
    let blocked = pos("cambodian", "4k3/8/8/8/8/5r2/1N6/3K4 w D - 0 1", "");
    assert_eq!(legal(&blocked), ["b2a4", "b2c4", "b2d3", "d1c1", "d1c2", "d1d2", "d1e1", "d1e2"]);
    // In check the king does not leap, though b2 and f2 are safe.
    for fen in ["4k3/8/8/8/8/8/8/r2K4 w D - 0 1", "4k3/8/8/8/8/8/8/3K3r w D - 0 1"] {
        assert_eq!(legal(&pos("cambodian", fen, "")), ["d1c2", "d1d2", "d1e2"], "{fen}");
    }
}

#[test]
fn the_met_steps_two_squares_forward_from_its_gate() {
    // From the start e3 holds a pawn: no double step.
    assert!(!legal(&pos("cambodian", START, "")).contains(&"e1e3".to_string()));
    let open = pos("cambodian", START, "e3e4 d6d5");
    assert!(legal(&open).contains(&"e1e3".to_string()));
    let stepped = pos("cambodian", START, "e3e4 d6d5 e1e3");
    assert_eq!(stepped.fen(), "rnsmksnr/8/ppp1pppp/3p4/4P3/PPPPMPPP/8/RNSK1SNR b Dde - 1 2");
    let moves = legal(&stepped);
    assert!(moves.contains(&"d8d6".to_string()) && moves.contains(&"e8g7".to_string()));
    assert_eq!(moves.len(), 27);
    // It leaps: a piece in between does not stop it.
    let jump = pos("cambodian", "3mk3/4p3/8/8/8/8/R7/3KM3 w DEde - 0 1", "");
    let black = pos("cambodian", "3mk3/3pp3/8/8/8/8/R7/3KM3 b DEde - 0 1", "");
    assert!(legal(&jump).contains(&"e1e3".to_string()));
    assert!(legal(&black).contains(&"d8d6".to_string()));
}

#[test]
fn a_rook_on_the_kings_rank_or_file_takes_its_leap() {
    let fen = "3mk3/4p3/8/8/8/8/R7/3KM3 w DEde - 0 1";
    assert_eq!(
        legal(&pos("cambodian", fen, "")),
        [
            "a2a1", "a2a3", "a2a4", "a2a5", "a2a6", "a2a7", "a2a8", "a2b2", "a2c2", "a2d2", "a2e2", "a2f2", "a2g2",
            "a2h2", "d1b2", "d1c1", "d1c2", "d1d2", "d1e2", "d1f2", "e1d2", "e1e3", "e1f2"
        ]
    );
    // On the king's file behind its pawn, or on its rank behind the met:
    // the gate e8 is gone, and with it the leaps.
    let file = pos("cambodian", fen, "a2e2");
    assert_eq!(file.fen(), "3mk3/4p3/8/8/8/8/4R3/3KM3 b DEd 126 0 1");
    assert_eq!(legal(&file), ["d8c7", "d8d6", "e7e6", "e8d7", "e8f7", "e8f8"]);
    let rank = pos("cambodian", fen, "a2a8");
    assert_eq!(rank.fen(), "R2mk3/4p3/8/8/8/8/8/3KM3 b DEd 126 0 1");
    // Elsewhere it stays.
    let elsewhere = pos("cambodian", fen, "a2a3");
    assert_eq!(elsewhere.fen(), "3mk3/4p3/8/8/8/R7/8/3KM3 b DEde 126 0 1");
    assert_eq!(legal(&elsewhere), ["d8c7", "d8d6", "e7e6", "e8c7", "e8d7", "e8f7", "e8f8", "e8g7"]);
    // Positions differing in a gate differ, key too.
    let with_gate = pos("cambodian", "3mk3/4p3/8/8/8/8/4R3/3KM3 b DEde - 0 1", "");
    let without = pos("cambodian", "3mk3/4p3/8/8/8/8/4R3/3KM3 b DEd - 0 1", "");
    assert_ne!(with_gate, without);
    assert_ne!(with_gate.key(), without.key());
}

#[test]
fn cambodian_counting_limits() {
    let after = |fen: &str, moves: &str| pos("cambodian", fen, moves).fen();
    // The board's honour for a side of up to three pieces, pawns or not.
    assert_eq!(after("4k3/8/4p3/8/8/PPP5/8/R2K4 w - - 0 1", "a1a2"), "4k3/8/4p3/8/8/PPP5/R7/3K4 b - 126 0 1");
    assert_eq!(after("4k3/8/4p3/8/8/PPP5/8/R2K4 w - - 0 1", "a1a2 e6e5"), "4k3/8/8/4p3/8/PPP5/R7/3K4 w - 126 1 2");
    assert_eq!(after("4k3/8/8/8/8/2n5/R2p4/4K3 w - - 0 1", "a2d2"), "4k3/8/8/8/8/2n5/3R4/4K3 b - 126 0 1");
    // The pieces' honour against a bare king.
    for (fen, mv, expected) in [
        ("4k3/8/8/8/8/8/R2p4/4K3 w - - 0 1", "a2d2", "4k3/8/8/8/8/8/3R4/4K3 b - 30 6 1"),
        ("4k3/8/8/8/8/R7/R2p4/4K3 w - - 0 1", "a2d2", "4k3/8/8/8/8/R7/3R4/4K3 b - 14 8 1"),
        ("4k3/8/8/8/8/NN6/3p4/4K3 w - - 0 1", "b3d2", "4k3/8/8/8/8/N7/3N4/4K3 b - 62 8 1"),
        ("4k3/8/8/8/8/S1S5/3p4/4K3 w - - 0 1", "c3d2", "4k3/8/8/8/8/S7/3S4/4K3 b - 42 8 1"),
        ("4k3/8/8/8/8/N1S5/3p4/4K3 w - - 0 1", "c3d2", "4k3/8/8/8/8/N7/3S4/4K3 b - 86 8 1"),
        ("4k3/8/8/8/8/M1M5/3p4/4K3 w - - 0 1", "c3d2", "4k3/8/8/8/8/M7/3M4/4K3 b - 126 8 1"),
        ("4k3/8/8/8/8/2n5/R2p4/4K3 w - - 0 1", "a2d2 c3d1 e1d1", "4k3/8/8/8/8/8/3R4/3K4 b - 30 6 2"),
    ] {
        assert_eq!(after(fen, mv), expected, "{fen} {mv}");
    }
    // Two bare kings: nothing to count.
    assert_eq!(after("4k3/8/8/8/8/8/3p4/4K3 w - - 0 1", "e1d2"), "4k3/8/8/8/8/8/3K4/8 b - - 0 1");
}

#[test]
fn cambodian_counting_ends_past_its_limit() {
    // Rook against bare king: 30 plies counted from 6; Fairy-Stockfish
    // ends the game after the 26th ply (makruk's limit is 32).
    let moves = "e1d2 e8d7 a1g1 d7e6 g1g2 e6e5 g2g3 e5d6 g3g7 d6c5 g7g8 c5d4 g8g7 d4e5 d2d1 e5d6 \
                 g7g8 d6c5 g8e8 c5b5 e8e5 b5a6 d1d2 a6b7 d2d1 b7a7";
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    let game = |moves: &[&str]| {
        let mut g = Game::new(Position::from_fen(&variant("cambodian"), fen).expect("valid FEN"));
        for text in moves {
            let m = g.current().parse_move(text).expect("legal move");
            g.play(m);
        }
        g
    };
    let all: Vec<&str> = moves.split_whitespace().collect();
    let g = game(&all);
    assert_eq!(g.current().fen(), "8/k7/8/4R3/8/8/8/3K4 w - 30 31 14");
    let o = g.claimable().expect("counted out");
    assert_eq!((o.reason, o.result), (EndReason::Counting, GameResult::Draw));
    assert_eq!(game(&all[..all.len() - 1]).claimable(), None);
}

#[test]
fn in_kar_ouk_the_first_check_wins() {
    let fen = "8/8/8/8/3k4/8/8/3KM3 w DE - 1+1 0 1";
    let start = pos("karouk", fen, "");
    assert_eq!(legal(&start), ["d1b2", "d1c1", "d1c2", "d1d2", "d1e2", "d1f2", "e1d2", "e1e3", "e1f2"]);
    assert_eq!(start.outcome(), None);
    // The met's double step checks: Black, out of checks to take, has lost.
    let checked = pos("karouk", fen, "e1e3");
    assert_eq!(checked.fen(), "8/8/8/8/3k4/4M3/8/3K4 b D 126 0+1 6 1");
    let o = checked.outcome().expect("ended");
    assert_eq!((o.reason, o.result), (EndReason::Checks, GameResult::WhiteWins));
    assert!(checked.legal_moves().is_empty());
    // In Cambodian chess the game goes on.
    let plain = pos("cambodian", "8/8/8/8/3k4/8/8/3KM3 w DE - 0 1", "e1e3");
    assert_eq!(plain.fen(), "8/8/8/8/3k4/4M3/8/3K4 b D 126 6 1");
    assert_eq!(plain.outcome(), None);
}

#[test]
fn a_king_back_on_its_square_repeats_the_position_with_its_leap() {
    // As in Fairy-Stockfish, whose position key leaves the gates out, the
    // start (gates DEde) occurs a third time at the 8th ply, gates Ed.
    let shuffle = "d1c2 e8d7 c2d1 d7e8";
    for name in ["cambodian", "karouk"] {
        let start = Position::start(&variant(name)).fen();
        let g = |moves: &str| {
            let mut g = Game::new(pos(name, &start, ""));
            for text in moves.split_whitespace() {
                let m = g.current().parse_move(text).expect("legal move");
                g.play(m);
            }
            g
        };
        assert_eq!(g(&format!("{shuffle} d1c2 e8d7 c2d1")).claimable(), None, "{name}");
        let twice = g(&format!("{shuffle} {shuffle}"));
        assert!(twice.current().fen().contains(" w Ed - "), "{}", twice.current().fen());
        let o = twice.claimable().expect("third occurrence");
        assert_eq!((o.reason, o.result), (EndReason::Repetition, GameResult::Draw), "{name}");
        // A position still differs by its gates.
        assert_ne!(twice.current(), twice.start());
    }
}

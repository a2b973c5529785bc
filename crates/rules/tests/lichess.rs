//! Lichess's variants as Fairy-Stockfish defines them, one rule at a time:
//! antichess, giveaway and suicide (`mustCapture`, extinction of all pieces
//! and stalemate as wins, `stalematePieceCount`), horde (a side without a
//! king, double steps from the first rank) and atomic (`blastOnCapture`,
//! `extinctionPseudoRoyal`). Legal moves and outcomes are pyffish 0.0.90's
//! in the same positions.

mod common;

use common::{ended, pos};
use menagerie_rules::{Definitions, EndReason, GameResult, Position};

fn texts(pos: &Position) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_moves().into_iter().map(|m| pos.move_text(m)).collect();
    v.sort();
    v
}

fn after(p: &Position, moves: &[&str]) -> Position {
    moves.iter().fold(p.clone(), |p, m| p.play(p.parse_move(m).unwrap_or_else(|e| panic!("{m}: {e}"))))
}

#[test]
fn the_built_ins_start_as_fairy_stockfish() {
    let defs = Definitions::builtin();
    for (name, fen) in [
        ("antichess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
        ("giveaway", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        ("suicide", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
        ("horde", "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1"),
        ("atomic", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ] {
        let def = defs.get(name).unwrap_or_else(|| panic!("built-in {name}"));
        let start = Position::start(def);
        assert_eq!(start.fen(), fen, "{name}");
        assert_eq!(Position::from_fen(def, fen).expect("FEN").fen(), fen, "{name} round trip");
        // No royal king: the king is an ordinary piece (a commoner) in
        // antichess and atomic; horde's White has none.
        assert!(def.pieces().all(|p| !p.royal) || name == "horde", "{name}");
        assert!(!def.facts().other_rules.is_empty() || name == "horde", "{name} stays off the compiled core");
    }
}

#[test]
fn antichess_captures_are_forced() {
    // e4xd5 is the only capture: White must take.
    let p = pos("antichess", "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 2");
    assert_eq!(texts(&p), ["e4d5"]);
    // En passant counts as a capture and is then forced too.
    let p = pos("antichess", "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b - e3 0 3");
    assert_eq!(texts(&p), ["d4e3"]);
    // With several captures, any of them.
    let p = pos("antichess", "4k3/8/8/8/8/2p1p3/3Q4/8 w - - 0 1");
    assert_eq!(texts(&p), ["d2c3", "d2e3"]);
}

#[test]
fn antichess_king_is_an_ordinary_piece() {
    // The king may walk into attack and be taken; no check exists.
    let p = pos("antichess", "8/8/8/8/8/8/1r6/K7 w - - 0 1");
    assert_eq!(texts(&p), ["a1b2"], "the capture with the king is forced");
    let p = pos("antichess", "8/8/8/8/8/8/r7/2K5 w - - 0 1");
    assert!(!p.in_check());
    assert_eq!(texts(&p), ["c1b1", "c1b2", "c1c2", "c1d1", "c1d2"]);
    // Pawns promote to kings too.
    let p = pos("antichess", "8/P7/8/8/8/8/7p/8 w - - 0 1");
    assert_eq!(texts(&p), ["a7a8b", "a7a8k", "a7a8n", "a7a8q", "a7a8r"]);
    let p = after(&p, &["a7a8k"]);
    assert_eq!(p.fen(), "K7/8/8/8/8/8/7p/8 b - - 0 1");
    // Antichess does not castle; giveaway does, through attacked squares.
    let p = pos("giveaway", "r3k2r/p6p/8/8/8/8/P6P/R3K2R w KQkq - 0 1");
    assert!(texts(&p).contains(&"e1g1".to_string()) && texts(&p).contains(&"e1c1".to_string()));
    let p = pos("giveaway", "4kr2/8/8/8/8/8/8/4K2R w K - 0 1");
    assert!(texts(&p).contains(&"e1g1".to_string()), "castling across the attacked f1");
    let p = pos("antichess", "4kr2/8/8/8/8/8/8/4K2R w K - 0 1");
    assert_eq!(p.fen(), "4kr2/8/8/8/8/8/8/4K2R w - - 0 1", "antichess has no castling rights");
}

#[test]
fn antichess_losing_everything_or_being_stalemated_wins() {
    // Black has no pieces left: Black wins.
    let p = pos("antichess", "8/8/8/8/8/8/8/N7 b - - 0 1");
    assert!(p.legal_moves().is_empty());
    assert_eq!(p.outcome(), ended(EndReason::Extinction, GameResult::BlackWins, false));
    let p = after(&pos("antichess", "8/8/8/8/8/1p6/8/N7 w - - 0 1"), &["a1b3"]);
    assert_eq!(p.outcome().map(|o| o.result), Some(GameResult::BlackWins));
    // Stalemated (blocked pawns): the side to move wins.
    let p = pos("antichess", "8/8/8/8/8/p7/P7/8 w - - 0 1");
    assert_eq!(p.outcome(), ended(EndReason::Stalemate, GameResult::WhiteWins, true));
}

#[test]
fn suicide_values_a_stalemate_by_the_piece_counts() {
    let result = |fen: &str| pos("suicide", fen).outcome().map(|o| o.result);
    // As many pieces: a draw.
    assert_eq!(result("8/8/8/8/8/p7/P7/8 w - - 0 1"), Some(GameResult::Draw));
    // Fewer pieces than the opponent: the stalemated side wins.
    assert_eq!(result("8/8/8/8/p7/P7/8/7p w - - 0 1"), Some(GameResult::WhiteWins));
    // More: it loses.
    assert_eq!(result("8/8/8/8/p7/P7/8/7p b - - 0 1"), Some(GameResult::WhiteWins));
    assert_eq!(result("8/7P/8/8/p7/P7/8/8 w - - 0 1"), None, "a move left");
    // Extinction is still a win.
    assert_eq!(result("8/8/8/8/8/8/8/N7 b - - 0 1"), Some(GameResult::BlackWins));
}

#[test]
fn horde_white_has_no_king_and_double_steps_from_the_first_rank() {
    let p = pos("horde", "4k3/8/8/8/8/8/8/PPPP4 w - - 0 1");
    assert!(!p.in_check());
    assert_eq!(texts(&p), ["a1a2", "a1a3", "b1b2", "b1b3", "c1c2", "c1c3", "d1d2", "d1d3"]);
    // No en passant on White's second rank: after a1a3 Black's b3 pawn (had
    // there been one) could not take on a2; the FEN keeps no square.
    let p = after(&pos("horde", "4k3/8/8/8/8/8/8/P7 w - - 0 1"), &["a1a3"]);
    assert_eq!(p.fen(), "4k3/8/8/8/8/P7/8/8 b - - 0 1");
    let p = after(&pos("horde", "4k3/8/8/8/8/8/8/PP6 w - - 0 1"), &["b1b3"]);
    assert_eq!(p.fen(), "4k3/8/8/8/8/1P6/8/P7 b - - 0 1");
    // Black's king is royal as in chess.
    let p = pos("horde", "4k3/8/8/8/8/8/3P4/8 w - - 0 1");
    let p = after(&p, &["d2d4"]);
    assert!(texts(&p).contains(&"e8d7".to_string()));
    let p = pos("horde", "4k3/3P4/8/8/8/8/8/8 b - - 0 1");
    assert!(p.in_check());
}

#[test]
fn horde_white_loses_when_all_its_pieces_are_gone() {
    let p = after(&pos("horde", "4k3/8/8/8/8/8/3q4/4P3 w - - 0 1"), &["e1d2"]);
    assert!(p.outcome().is_none(), "White took the queen");
    let p = after(&pos("horde", "4k3/8/8/8/8/8/P7/1q6 b - - 0 1"), &["b1a2"]);
    assert!(p.legal_moves().is_empty());
    assert_eq!(p.outcome(), ended(EndReason::Extinction, GameResult::BlackWins, true));
}

#[test]
fn atomic_captures_blast_the_neighbourhood_but_pawns() {
    // Nxd7 blows up the knight, the queen on d7, the bishop on c8 and the
    // king on e8 (taking Black's castling rights): White wins at once.
    let p = pos("atomic", "r1b1kbnr/pppqpppp/8/2N5/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1");
    let p = after(&p, &["c5d7"]);
    assert_eq!(p.fen(), "r4bnr/ppp1pppp/8/8/8/8/PPPPPPPP/R1BQKBNR b KQ - 0 1");
    assert_eq!(p.outcome(), ended(EndReason::Extinction, GameResult::WhiteWins, false));
    assert!(p.legal_moves().is_empty());
    // En passant blasts around the capturing pawn's square: the knight on
    // c6 goes with both pawns.
    let p = after(&pos("atomic", "4k3/8/2n5/3pP3/8/8/8/4K3 w - d6 0 1"), &["e5d6"]);
    assert_eq!(p.fen(), "4k3/8/8/8/8/8/8/4K3 b - - 0 1");
    // A rook blown away takes its castling right with it.
    let p = after(&pos("atomic", "4k3/8/8/8/8/8/2p5/RN2K3 b Q - 0 1"), &["c2b1q"]);
    assert_eq!(p.fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 2");
}

#[test]
fn atomic_king_rules() {
    // A king never captures (it would blow itself up).
    let p = pos("atomic", "4k3/8/8/8/8/8/4p3/4K3 w - - 0 1");
    assert_eq!(texts(&p), ["e1d2", "e1f2"]);
    // Kings side by side cannot attack each other or be attacked: the
    // white king on the rook's line is not in check, and may step along
    // it next to the black king.
    let p = pos("atomic", "8/8/8/3k4/r3K3/8/8/8 w - - 0 1");
    assert!(!p.in_check());
    assert_eq!(texts(&p), ["e4d3", "e4d4", "e4e3", "e4e5", "e4f3", "e4f5"], "not f4: the rook's line");
    // In check, a capture that blows up the enemy king is legal (and wins)
    // although it leaves the own king attacked.
    let p = pos("atomic", "1k6/Rb6/8/8/4q3/8/8/4K3 w - - 0 1");
    assert!(p.in_check());
    assert_eq!(texts(&p), ["a7b7", "e1d1", "e1d2", "e1f1", "e1f2"]);
    let p = after(&p, &["a7b7"]);
    assert_eq!(p.outcome().map(|o| (o.reason, o.result)), Some((EndReason::Extinction, GameResult::WhiteWins)));
    // Checkmate is a loss, as in chess: the king may not take the queen.
    let p = pos("atomic", "7k/6Q1/5K2/8/8/8/8/8 b - - 0 1");
    assert!(p.in_check());
    assert_eq!(p.outcome(), ended(EndReason::Checkmate, GameResult::WhiteWins, false));
}

#[test]
fn the_new_keys_are_checked() {
    let mut d = Definitions::builtin();
    let err = d.load("[x:chess]\nextinctionPseudoRoyal = true\n", "t.ini").unwrap_err();
    assert!(err.to_string().contains("extinctionPseudoRoyal"), "{err}");
    let err = d.load("[y:chess]\nblastImmuneTypes = p\n", "t.ini").unwrap_err();
    assert!(err.to_string().contains("blastOnCapture"), "{err}");
    // Blasts with drops (Fairy-Stockfish's atomiczh), forced captures with
    // drops (antihouse, coffeehouse) and with flags (atomic-giveaway-hill)
    // load.
    d.load("[z:crazyhouse]\nblastOnCapture = true\n", "t.ini").expect("loads");
    d.load("[zh-anti:crazyhouse]\nmustCapture = true\n", "t.ini").expect("loads");
    d.load(
        "[anti-hill:antichess]\nflagPiece = k\nflagRegionWhite = d4 e4 d5 e5\nflagRegionBlack = d4 e4 d5 e5\n",
        "t.ini",
    )
    .expect("loads");
    // And with shogi-style promotions (Fairy-Stockfish's antiminishogi).
    d.load("[u:minishogi]\nmustCapture = true\n", "t.ini").expect("loads");
    let err = d.load("[v:atomic]\nblastImmuneTypes = k\n", "t.ini").unwrap_err();
    assert!(err.to_string().contains("blastImmuneTypes"), "{err}");
    // Immune kings without pseudo-royalty: the capturing king stays.
    d.load("[immune:nocheckatomic]\nblastImmuneTypes = k\n", "t.ini").expect("loads");
    let p = Position::from_fen(d.get("immune").expect("loaded"), "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1").expect("FEN");
    let p = after(&p, &["e1d2"]);
    assert_eq!(p.fen(), "4k3/8/8/8/8/8/3K4/8 b - - 0 1");
    // Duple check needs pseudo-royal pieces; petrification is refused
    // with drops.
    assert!(d.load("[w:chess]\ndupleCheck = true\n", "t.ini").is_err());
    d.load("[w2:atomic]\ndupleCheck = true\n", "t.ini").expect("pseudo-royal kings");
    let err = d.load("[x2:crazyhouse]\npetrifyOnCaptureTypes = q\n", "t.ini").unwrap_err();
    assert!(err.to_string().contains("drops"), "{err}");
}

//! Game outcomes, captures and the published piece lists of variants.

mod common;

use std::sync::Arc;

use common::{ended, pos};
use menagerie_rules::{Definitions, EndReason, GameResult, Outcome, PieceInfo, Position, VariantDef};

fn variant(name: &str) -> Arc<VariantDef> {
    Arc::clone(Definitions::builtin().get(name).expect("a built-in variant"))
}

#[test]
fn a_bare_king_in_shatranj_and_courier_is_an_extinction() {
    // White to move, Black bare: the game is over at once.
    let p = pos("shatranj", "k7/8/8/8/8/8/8/KR6 w - - 0 1");
    assert!(p.legal_moves().is_empty());
    assert!(!p.in_check());
    let expected = Outcome { reason: EndReason::Extinction, result: GameResult::WhiteWins, white_ended: false };
    assert_eq!(p.outcome(), Some(expected));
    // Black to move may still bare White's king in reply (extinctionClaim).
    let p = pos("shatranj", "k7/8/8/8/8/8/8/KR6 b - - 0 1");
    assert!(!p.legal_moves().is_empty());
    assert_eq!(p.outcome(), None);
    // ... unless White keeps two pieces besides the king.
    let p = pos("shatranj", "k7/8/8/8/8/8/8/KRR5 b - - 0 1");
    assert_eq!(p.outcome(), Some(expected));
    // A bare White king loses the same way.
    let p = pos("courier", "k11/1r10/12/12/12/12/12/11K b - - 0 1");
    assert_eq!(p.outcome(), ended(EndReason::Extinction, GameResult::BlackWins, true));
}

#[test]
fn checkmate_in_capablanca() {
    let p = pos("capablanca", "k9/1Q8/K9/10/10/10/10/10 b - - 0 1");
    assert!(p.in_check());
    assert_eq!(p.outcome(), ended(EndReason::Checkmate, GameResult::WhiteWins, false));
    // The archbishop's knight check with its bishop guarding the flight square.
    let p = pos("capablanca", "k9/ppA7/10/10/10/10/10/9K b - - 0 1");
    assert!(p.legal_moves().is_empty());
    assert_eq!(p.outcome(), ended(EndReason::Checkmate, GameResult::WhiteWins, false));
    let p = pos("capablanca", "k9/ppA7/10/10/10/10/10/9K w - - 0 1");
    assert_eq!(p.outcome(), None);
}

#[test]
fn stalemate_values() {
    // Shatranj: the stalemated side loses.
    let p = pos("shatranj", "k7/Q7/1K6/8/8/8/8/8 b - - 0 1");
    assert!(p.legal_moves().is_empty());
    assert!(!p.in_check());
    assert_eq!(p.outcome(), ended(EndReason::Stalemate, GameResult::WhiteWins, false));
    // Chess: a draw.
    let p = pos("chess", "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1");
    assert_eq!(p.outcome(), ended(EndReason::Stalemate, GameResult::Draw, false));
}

#[test]
fn is_capture_on_captures_en_passant_and_quiet_moves() {
    let p = pos("chess", "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
    let capture = |text: &str| p.is_capture(p.parse_move(text).unwrap());
    assert!(capture("e5d6"), "en passant");
    assert!(!capture("e5e6"));
    assert!(!capture("g1f3"));
    let p = pos("chess", "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    assert!(p.is_capture(p.parse_move("e4d5").unwrap()));
    assert!(!p.is_capture(p.parse_move("e4e5").unwrap()));
    // Castling takes nothing; nor does gating a piece.
    let p = pos("chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert!(!p.is_capture(p.parse_move("e1g1").unwrap()));
    assert!(p.is_capture(p.parse_move("a1a8").unwrap()));
    let p = pos("seirawan", "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 2");
    assert!(!p.is_capture(p.parse_move("g1f3h").unwrap()));
}

/// Along games of every built-in variant, a move is a capture exactly when
/// the opponent has fewer pieces on the board afterwards (but where moves
/// flip enemy pieces to the mover's colour: ataxx, reversi).
#[test]
fn is_capture_agrees_with_the_pieces_taken_along_games() {
    fn enemies(p: &Position, white: bool) -> usize {
        let fen = p.fen();
        let board = fen.split([' ', '[']).next().unwrap_or("");
        board.chars().filter(|c| c.is_ascii_alphabetic() && c.is_ascii_uppercase() != white).count()
    }
    let defs = Definitions::builtin();
    let mut seed = 11u64;
    for name in defs.names() {
        let def = defs.get(name).unwrap();
        let flips = def.facts().other_rules.contains(&"flips");
        for _game in 0..3 {
            let mut p = Position::start(def);
            for _ply in 0..120 {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    assert!(p.outcome().is_some(), "{name}: {}", p.fen());
                    break;
                }
                assert_eq!(p.outcome(), None, "{name}: {}", p.fen());
                let white = p.white_to_move();
                for &m in &moves {
                    let after = p.play(m);
                    let took = enemies(&after, white) < enemies(&p, white);
                    if !flips || p.is_capture(m) {
                        assert_eq!(p.is_capture(m), took, "{name}: {} {}", p.fen(), p.move_text(m));
                    }
                }
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                p = p.play(moves[((seed >> 33) % moves.len() as u64) as usize]);
            }
        }
    }
}

#[test]
fn pieces_and_promotions_are_published() {
    let shatranj = variant("shatranj");
    let pieces: Vec<PieceInfo> = shatranj.pieces().collect();
    let summary: Vec<(char, &str, &str, bool)> =
        pieces.iter().map(|p| (p.letter, p.name.as_str(), p.betza.as_str(), p.royal)).collect();
    assert_eq!(
        summary,
        [
            ('P', "pawn", "fmWfcF", false),
            ('N', "knight", "N", false),
            ('R', "rook", "R", false),
            ('Q', "fers", "F", false),
            ('B', "alfil", "A", false),
            ('K', "king", "K", true),
        ]
    );
    assert_eq!(shatranj.promotion_letters(true), ['Q']);
    assert_eq!(shatranj.promotion_letters(false), ['Q']);
    let chess = variant("chess");
    assert_eq!(chess.promotion_letters(true), ['N', 'B', 'R', 'Q']);
    let nightrider = variant("nightrider");
    let n = nightrider.pieces().find(|p| p.letter == 'N').unwrap();
    assert_eq!((n.name.as_str(), n.betza.as_str()), ("customPiece1", "NN"));
    let capablanca = variant("capablanca");
    let letters: String = capablanca.pieces().map(|p| p.letter).collect();
    assert!(letters.contains('A') && letters.contains('C'), "{letters}");
}

#[test]
fn flags_and_checks_end_the_game_at_once() {
    let ended = |name: &str, fen: &str, reason: EndReason, result: GameResult| {
        let p = pos(name, fen);
        assert!(p.legal_moves().is_empty() && p.is_extinct(), "{name} {fen}: the game has ended");
        let o = p.outcome().expect("an outcome");
        assert_eq!((o.reason, o.result), (reason, result), "{name} {fen}");
        assert_eq!(o.to_string().split(',').next(), Some(if reason == EndReason::Flag { "flag" } else { "checks" }));
    };
    // King of the hill: White's king on e4, Black to move.
    ended("kingofthehill", "k7/8/8/8/4K3/8/8/8 b - - 1 1", EndReason::Flag, GameResult::WhiteWins);
    // Racing kings: White reached the eighth rank and Black's reply did not.
    ended("racingkings", "6K1/k7/8/8/8/8/8/8 w - - 2 2", EndReason::Flag, GameResult::WhiteWins);
    // ... Black's did: a draw.
    ended("racingkings", "1k4K1/8/8/8/8/8/8/8 w - - 2 2", EndReason::Flag, GameResult::Draw);
    // Black reached it first: no reply of White's can help.
    ended("racingkings", "1k6/7K/8/8/8/8/8/8 w - - 2 2", EndReason::Flag, GameResult::BlackWins);
    // Three-check: White has given its third check (none left to give).
    ended(
        "3check",
        "rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 0+1 1 3",
        EndReason::Checks,
        GameResult::WhiteWins,
    );
    // White reached the eighth rank, Black may still reach it: the game goes on.
    let p = pos("racingkings", "6K1/1k6/8/8/8/8/8/8 b - - 1 1");
    assert!(p.outcome().is_none() && !p.is_extinct());
    assert_eq!(p.legal_moves().len(), 8);
    // The check counters in the FEN, and Lichess's form of checks given.
    let p = pos("3check", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 +2+1");
    assert!(p.fen().ends_with(" - 1+2 0 1"), "{}", p.fen());
    let p = pos("3check", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert!(p.fen().ends_with(" - 1+1 0 1"), "without counters the next check wins: {}", p.fen());
    // A check given counts down the giver's checks.
    let p = pos("3check", "rnbqkbnr/ppp2ppp/8/3pp3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 3+3 0 3");
    let after = p.play(p.parse_move("f1b5").expect("legal"));
    assert!(after.fen().contains(" - 2+3 1 3"), "{}", after.fen());
    assert!(after.outcome().is_none());
    // Racing kings: a move giving check is illegal.
    let p = pos("racingkings", "8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w - - 0 1");
    // Nc3 would check the king on a2.
    assert!(p.parse_move("e2c3").is_err() && p.parse_move("e2d4").is_ok());
    let p = pos("racingkings", "8/8/8/k7/8/8/8/1R5K w - - 0 1");
    assert!(p.parse_move("b1a1").is_err() && p.parse_move("b1b2").is_ok());
}

/// `passOnStalemate` (Fairy-Stockfish's `andersanti`): a side without a
/// legal move passes (its first piece's move to its own square), and two
/// passes in a row draw; with another move the pass is not legal.
#[test]
fn a_stalemated_side_passes_under_pass_on_stalemate() {
    let mut defs = Definitions::builtin();
    defs.load("[andersanti:antichess]\npassOnStalemate = true\n", "anders.ini").expect("the section loads");
    let def = Arc::clone(defs.get("andersanti").expect("loaded"));
    let at = |fen: &str| Position::from_fen(&def, fen).expect("a valid FEN");
    let texts = |p: &Position| p.legal_moves().into_iter().map(|m| p.move_text(m)).collect::<Vec<_>>();
    let blocked = at("8/8/8/8/8/p7/P7/8 w - - 0 1");
    assert_eq!(texts(&blocked), ["a2a2"]);
    assert_eq!(texts(&at("8/8/8/8/8/p6p/P7/8 b - - 0 1")), ["h3h2"]);
    assert_eq!(texts(&at("8/8/8/8/8/p7/P6P/8 w - - 0 1")), ["h2h3", "h2h4"]);
    let mut game = menagerie_rules::Game::new(blocked);
    for text in ["a2a2", "a3a3"] {
        let m = game.current().parse_move(text).expect("the pass");
        game.play(m);
    }
    let o = game.outcome().expect("two passes end the game");
    assert_eq!((o.reason, o.result), (EndReason::Passes, GameResult::Draw));
}

/// Makpong (`makpongRule`): a king in check may not step away, only take
/// its checker (Fairy-Stockfish's moves).
#[test]
fn a_checked_makpong_king_only_takes_its_checker() {
    let texts = |p: &Position| {
        let mut v: Vec<String> = p.legal_moves().into_iter().map(|m| p.move_text(m)).collect();
        v.sort();
        v
    };
    assert_eq!(texts(&pos("makpong", "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1")), ["e1e2"]);
    assert_eq!(texts(&pos("makruk", "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1")), ["e1d1", "e1e2", "e1f1"]);
    // Out of check the king moves as in makruk.
    assert_eq!(texts(&pos("makpong", "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1")), ["e1d2", "e1f1"]);
    // A checker defended: no legal move, checkmate.
    let p = pos("makpong", "4k3/8/8/8/8/8/4r3/4K2r w - - 0 1");
    assert_eq!(p.outcome().map(|o| o.reason), Some(EndReason::Checkmate));
}

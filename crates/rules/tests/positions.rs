//! FEN round trips along pseudo-random games, move notation, and FEN errors.

use menagerie_rules::{Definitions, EndReason, FenError, Position};

/// A tiny deterministic generator (no dependencies).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

#[test]
fn fen_round_trips_along_random_games() {
    let defs = Definitions::builtin();
    let names: Vec<String> = defs.names().map(String::from).collect();
    let mut rng = Lcg(7);
    for name in names {
        let def = defs.get(&name).unwrap();
        for _game in 0..6 {
            let mut pos = Position::start(def);
            for _ply in 0..80 {
                // Two passes in a row and bikjang twice end the game by the
                // moves to here, which a FEN does not hold.
                if pos.outcome().is_some_and(|o| matches!(o.reason, EndReason::Passes | EndReason::Bikjang)) {
                    break;
                }
                let fen = pos.fen();
                let back = Position::from_fen(def, &fen).unwrap_or_else(|e| panic!("{name}: {fen}: {e}"));
                assert_eq!(back.fen(), fen, "{name}");
                let moves = pos.legal_moves();
                // Counting without listing agrees with the list.
                assert_eq!(pos.perft(1), moves.len() as u64, "{name}: {fen}");
                let mut a: Vec<String> = moves.iter().map(|&m| pos.move_text(m)).collect();
                let mut b: Vec<String> = back.legal_moves().iter().map(|&m| back.move_text(m)).collect();
                a.sort();
                b.sort();
                assert_eq!(a, b, "{name}: {fen}");
                if moves.is_empty() {
                    break;
                }
                let m = moves[rng.next(moves.len())];
                let text = pos.move_text(m);
                assert_eq!(pos.parse_move(&text), Ok(m), "{name}: {fen} {text}");
                pos = pos.play(m);
            }
        }
    }
}

#[test]
fn move_notation() {
    let defs = Definitions::builtin();
    let seirawan = defs.get("seirawan").unwrap();
    let pos = Position::start(seirawan);
    // Expected values from Fairy-Stockfish (pyffish).
    let moves = ["e2e4", "e7e5", "g1f3h", "b8c6e"];
    let pos = moves.iter().fold(pos, |p, m| p.play(p.parse_move(m).unwrap()));
    assert_eq!(pos.fen(), "rebqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKBHR[Eh] w KQBCDFkqcdfg - 2 3");
    let pos = ["f1c4", "f8c5", "g1h3", "d7d6"].iter().fold(pos, |p, m| p.play(p.parse_move(m).unwrap()));
    assert_eq!(pos.fen(), "rebqk1nr/ppp2ppp/2np4/2b1p3/2B1P3/5N1H/PPPP1PPP/RNBQK2R[Eh] w KQBCDkqcdg - 0 5");
    let mut texts: Vec<String> = pos.legal_moves().iter().map(|&m| pos.move_text(m)).collect();
    texts.retain(|t| t.starts_with("e1") || t.starts_with("h1"));
    texts.sort();
    // Castling with gating on the king's (e1g1e) or the rook's square (h1e1e).
    let expected = ["e1e2", "e1e2e", "e1f1", "e1f1e", "e1g1", "e1g1e", "h1e1e", "h1f1", "h1f1e", "h1g1", "h1g1e"];
    assert_eq!(texts, expected);
    let after = pos.play(pos.parse_move("h1e1e").unwrap());
    assert_eq!(after.fen(), "rebqk1nr/ppp2ppp/2np4/2b1p3/2B1P3/5N1H/PPPP1PPP/RNBQ1RKE[h] b kqcdg - 1 5");

    let shako = defs.get("shako").unwrap();
    let pos = Position::from_fen(shako, "10/rr3k4/ppppp5/10/10/10/10/6PPPP/5K2RR/10 w Kq - 0 1").unwrap();
    let texts: Vec<String> = pos.legal_moves().iter().map(|&m| pos.move_text(m)).collect();
    assert!(texts.contains(&"f2h2".to_string()), "{texts:?}");
    let pos = Position::from_fen(shako, "4k5/4P5/10/10/10/10/10/10/10/4K5 w - - 0 1").unwrap();
    assert!(pos.parse_move("e9e10").is_err());
    let pos = Position::from_fen(shako, "5k4/4P5/10/10/10/10/10/10/10/4K5 w - - 0 1").unwrap();
    assert!(pos.parse_move("e9e10c").is_ok());
    assert!(pos.parse_move("e9e10").is_err());
    assert!(pos.parse_move("e2e4").is_err());
}

#[test]
fn en_passant_field() {
    let defs = Definitions::builtin();
    let chess = defs.get("chess").unwrap();
    let pos = Position::start(chess);
    let pos = pos.play(pos.parse_move("e2e4").unwrap());
    // No black pawn can take: no en passant square.
    assert_eq!(pos.fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    let pos = Position::from_fen(chess, "rnbqkbnr/ppp1pppp/8/8/3p4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap();
    let pos = pos.play(pos.parse_move("e2e4").unwrap());
    assert_eq!(pos.fen(), "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    assert!(pos.parse_move("d4e3").is_ok());
    let back = Position::from_fen(chess, &pos.fen()).unwrap();
    assert_eq!(back, pos);
}

#[test]
fn fen_errors() {
    let defs = Definitions::builtin();
    let chess = defs.get("chess").unwrap();
    assert!(matches!(Position::from_fen(chess, "rnbqkbnr/8 w - - 0 1"), Err(FenError::Board(_))));
    assert!(matches!(
        Position::from_fen(chess, "rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
        Err(FenError::Piece('x'))
    ));
    assert!(matches!(
        Position::from_fen(chess, "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
        Err(FenError::Board(_))
    ));
    assert!(matches!(Position::from_fen(chess, "4k3/8/8/8/8/8/8/4K3 x - - 0 1"), Err(FenError::Side(_))));
    assert!(matches!(Position::from_fen(chess, "4k3/8/8/8/8/8/8/4K3 w K1 - 0 1"), Err(FenError::Castling(_))));
    assert!(matches!(Position::from_fen(chess, "4k3/8/8/8/8/8/8/4K3 w - z9 0 1"), Err(FenError::EnPassant(_))));
    assert!(matches!(Position::from_fen(chess, "4k3/8/8/8/8/8/8/4K3 w - - x 1"), Err(FenError::Counter(_))));
    // Shredder and X-FEN castling letters.
    let a = Position::from_fen(chess, "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1").unwrap();
    let b = Position::from_fen(chess, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    assert_eq!(a, b);
    assert_eq!(a.perft(2), 568);
}

#[test]
fn makruk_counting_in_fen() {
    // Expected FENs from Fairy-Stockfish (pyffish): the counting limit and
    // counted plies replace the en passant field and the half-move clock.
    let defs = Definitions::builtin();
    let makruk = defs.get("makruk").unwrap();
    let play = |fen: &str, moves: &[&str]| {
        let pos = Position::from_fen(makruk, fen).unwrap();
        moves.iter().fold(pos, |p, m| p.play(p.parse_move(m).unwrap())).fen()
    };
    assert_eq!(play("4k3/8/8/8/8/8/R2p4/4K3 w - - 0 1", &["a2d2"]), "4k3/8/8/8/8/8/3R4/4K3 b - 32 6 1");
    assert_eq!(play("4k3/8/8/8/8/8/R2p4/4K3 w - - 0 1", &["a2d2", "e8f8"]), "5k2/8/8/8/8/8/3R4/4K3 w - 32 7 2");
    assert_eq!(play("4k3/8/8/8/8/2n5/R2p4/4K3 w - - 0 1", &["a2d2"]), "4k3/8/8/8/8/2n5/3R4/4K3 b - 128 0 1");
    assert_eq!(
        play("4k3/8/8/8/8/2n5/R2p4/4K3 w - - 0 1", &["a2d2", "c3d1", "e1d1"]),
        "4k3/8/8/8/8/8/3R4/3K4 b - 32 6 2"
    );
    assert_eq!(play("4k3/8/8/8/8/8/8/R3K3 b - 16 3 40", &["e8f8"]), "5k2/8/8/8/8/8/8/R3K3 w - 16 4 41");
}

#[test]
fn chess960_castling() {
    // Perft counts of Chess960 position 1 from the published 960 perft list.
    let defs = Definitions::builtin();
    let def = defs.get("chess960").unwrap();
    let pos = Position::from_fen(def, "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9").unwrap();
    assert_eq!([pos.perft(1), pos.perft(2), pos.perft(3)], [21, 528, 12189]);
    assert_eq!(pos.fen(), "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
    // King takes rook notation.
    let pos = Position::from_fen(def, "4k3/8/8/8/8/8/8/1R2K2R w HB - 0 1").unwrap();
    assert!(pos.parse_move("e1h1").is_ok());
    assert!(pos.parse_move("e1b1").is_ok());
    let after = pos.play(pos.parse_move("e1b1").unwrap());
    assert_eq!(after.fen(), "4k3/8/8/8/8/8/8/2KR3R b - - 1 1");
}

#[test]
fn chess_reference_perfts() {
    // Well-known chess perft positions (en passant, promotions, castling, pins).
    let defs = Definitions::builtin();
    let chess = defs.get("chess").unwrap();
    for (fen, counts) in [
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", &[48u64, 2039, 97862][..]),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", &[14, 191, 2812, 43238, 674624]),
        ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", &[6, 264, 9467, 422333]),
        ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", &[44, 1486, 62379]),
    ] {
        let pos = Position::from_fen(chess, fen).unwrap();
        for (i, &n) in counts.iter().enumerate() {
            assert_eq!(pos.perft(i as u32 + 1), n, "{fen} depth {}", i + 1);
        }
        let listed: u64 = pos.legal_moves().iter().map(|&m| pos.play(m).perft(1)).sum();
        assert_eq!(listed, counts[1], "{fen}");
    }
}

#[test]
fn garbage_fens_are_errors_not_panics() {
    let defs = Definitions::builtin();
    let alphabet: Vec<char> = "pnbrqkPNBRQKheHEacmsfwg0123456789/[]-~ wbKQkqABCa1e3h6x".chars().collect();
    let mut rng = Lcg(99);
    let names: Vec<String> = defs.names().map(String::from).collect();
    for name in &names {
        let def = defs.get(name).unwrap();
        let start = def.start_fen.clone();
        for _ in 0..300 {
            // Random strings, and the start FEN with random characters replaced.
            let fen: String = if rng.next(2) == 0 {
                (0..rng.next(60)).map(|_| alphabet[rng.next(alphabet.len())]).collect()
            } else {
                start.chars().map(|c| if rng.next(8) == 0 { alphabet[rng.next(alphabet.len())] } else { c }).collect()
            };
            if let Ok(pos) = Position::from_fen(def, &fen) {
                // Whatever parses can be played and written.
                let _ = pos.fen();
                for m in pos.legal_moves().into_iter().take(5) {
                    let next = pos.play(m);
                    let _ = next.fen();
                    let _ = next.perft(1);
                }
            }
        }
    }
    let chess = defs.get("chess").unwrap();
    let many = format!("4k3/8/8/8/8/8/8/4K3[{}] w - - 0 1", "Q".repeat(300));
    assert!(matches!(Position::from_fen(chess, &many), Err(FenError::Hand(_))));
    let seirawan = defs.get("seirawan").unwrap();
    assert!(matches!(Position::from_fen(seirawan, &many), Err(FenError::Board(_))));
    let end = Position::from_fen(chess, "4k3/8/8/8/8/8/8/4K3 b - - 4294967295 4294967295").unwrap();
    let m = end.legal_moves()[0];
    assert!(end.play(m).fen().ends_with("4294967295 4294967295"));
}

#[test]
fn pockets_only_in_variants_with_pieces_in_hand() {
    let defs = Definitions::builtin();
    // Makruk and chess have no pieces in hand: a pocket with pieces is
    // refused (they could never be played), an empty one says nothing.
    for (name, fen) in [
        ("makruk", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR[Mm] w - - 0 1"),
        ("chess", "4k3/8/8/8/8/8/8/4K3[Q] w - - 0 1"),
        ("chess", "4k3/8/8/8/8/8/8/4K3[-q] w - - 0 1"),
    ] {
        let def = defs.get(name).unwrap();
        let e = Position::from_fen(def, fen).unwrap_err();
        assert!(matches!(&e, FenError::Hand(h) if fen.contains(h.as_str())), "{name} {fen}: {e}");
        assert!(e.to_string().contains("no pieces in hand"), "{e}");
    }
    let makruk = defs.get("makruk").unwrap();
    for empty in ["[]", "[-]"] {
        let fen = format!("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR{empty} w - - 0 1");
        assert_eq!(Position::from_fen(makruk, &fen).unwrap(), Position::start(makruk), "{fen}");
    }
    // S-chess writes back what it reads (in Fairy-Stockfish's order).
    let seirawan = defs.get("seirawan").unwrap();
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQBCDFGkqbcdfg - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Eh] w KQBCDFGkqbcdfg - 0 1",
        "4k3/8/8/8/8/8/8/4K3[] w - - 0 1",
    ] {
        assert_eq!(Position::from_fen(seirawan, fen).unwrap().fen(), fen);
    }
    // `gating` without S-chess's rules gates nothing from hand (Cambodian
    // chess's gates): as in Fairy-Stockfish no pocket is written, and one
    // with pieces is refused.
    let mut defs = Definitions::builtin();
    defs.load("[gated:chess]\ngating = true\n", "gated.ini").unwrap();
    let gated = defs.get("gated").unwrap();
    assert!(!gated.uses_hand());
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Qq] w KQkq - 0 1";
    assert!(matches!(Position::from_fen(gated, fen), Err(FenError::Hand(_))));
    let empty = Position::from_fen(gated, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1").unwrap();
    assert_eq!(empty.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
}

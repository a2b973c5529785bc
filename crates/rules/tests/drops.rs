//! Drops and pieces in hand (`pieceDrops`, `capturesToHand`): crazyhouse's
//! FEN pockets, promoted pieces, drop moves and their notation, and the
//! keys that shape drops.

use menagerie_rules::{DefinitionError, Definitions, FenError, Move, Position};

fn zh(fen: &str) -> Position {
    let defs = Definitions::builtin();
    Position::from_fen(defs.get("crazyhouse").expect("built-in crazyhouse"), fen).expect("valid FEN")
}

fn texts(pos: &Position) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_moves().into_iter().map(|m| pos.move_text(m)).collect();
    v.sort();
    v
}

#[test]
fn start_position_and_pockets() {
    let defs = Definitions::builtin();
    let def = defs.get("crazyhouse").expect("crazyhouse");
    assert!(def.has_drops() && def.uses_hand());
    let start = Position::start(def);
    assert_eq!(start.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1");
    // The pocket after one more '/', as Fairy-Stockfish and lichess read it;
    // written back in brackets, White's pieces first, queen to pawn.
    let slash = zh("4k3/8/8/8/8/8/8/4K3/pPnQ w - - 0 1");
    assert_eq!(slash.fen(), "4k3/8/8/8/8/8/8/4K3[QPnp] w - - 0 1");
    assert_eq!(slash.key(), zh("4k3/8/8/8/8/8/8/4K3[QPnp] w - - 0 1").key());
    assert_eq!(slash.in_hand(true, 0), 1);
    assert_eq!(zh("4k3/8/8/8/8/8/8/4K3/ w - - 0 1").fen(), "4k3/8/8/8/8/8/8/4K3[] w - - 0 1");
    // A FEN without a pocket has empty hands.
    assert_eq!(zh("4k3/8/8/8/8/8/8/4K3 w - - 0 1").fen(), "4k3/8/8/8/8/8/8/4K3[] w - - 0 1");
    let err = Position::from_fen(def, "4k3/8/8/8/8/8/8/4K3[X] w - - 0 1").expect_err("no piece X");
    assert_eq!(err, FenError::Piece('X'));
    // Chess has no pieces in hand.
    let chess = defs.get("chess").expect("chess");
    let err = Position::from_fen(chess, "4k3/8/8/8/8/8/8/4K3[Q] w - - 0 1").expect_err("no hand in chess");
    assert!(matches!(err, FenError::Hand(_)), "{err:?}");
}

#[test]
fn promoted_pieces_keep_their_mark_and_go_to_hand_as_pawns() {
    let pos = zh("4k3/8/8/8/8/8/8/3q~K3[] w - - 0 1");
    assert_eq!(pos.fen(), "4k3/8/8/8/8/8/8/3q~K3[] w - - 0 1");
    let after = pos.play(pos.parse_move("e1d1").expect("Kxd1"));
    assert_eq!(after.fen(), "4k3/8/8/8/8/8/8/3K4[P] b - - 0 1");
    // Promotion marks the piece; it moves with its mark.
    let pos = zh("8/1P2k3/8/8/8/8/8/4K3[] w - - 0 1");
    let pos = pos.play(pos.parse_move("b7b8q").expect("b8=Q"));
    assert_eq!(pos.fen(), "1Q~6/4k3/8/8/8/8/8/4K3[] b - - 0 1");
    let pos = pos.play(pos.parse_move("e7e6").expect("Ke6"));
    let pos = pos.play(pos.parse_move("b8b3").expect("Qb3"));
    assert_eq!(pos.fen(), "8/8/4k3/8/8/1Q~6/8/4K3[] b - - 2 2");
    // Loop chess: no mark, and a captured promoted piece keeps its type.
    let defs = Definitions::builtin();
    let lp = Position::from_fen(defs.get("loop").expect("loop"), "4k3/8/8/8/8/8/8/3q~K3[] w - - 0 1").expect("FEN");
    assert_eq!(lp.fen(), "4k3/8/8/8/8/8/8/3qK3[] w - - 0 1");
    let after = lp.play(lp.parse_move("e1d1").expect("Kxd1"));
    assert_eq!(after.fen(), "4k3/8/8/8/8/8/8/3K4[Q] b - - 0 1");
}

#[test]
fn drops_their_notation_and_limits() {
    // Pawns are not dropped on the first or last rank.
    let pos = zh("4k3/8/8/8/8/8/8/4K3[P] w - - 0 1");
    let moves = texts(&pos);
    assert!(moves.contains(&"P@e4".to_string()) && moves.contains(&"P@a2".to_string()));
    assert!(!moves.iter().any(|m| m.starts_with("P@") && (m.ends_with('1') || m.ends_with('8'))));
    assert_eq!(moves.len(), 48 + 5);
    let m = pos.parse_move("P@e4").expect("P@e4");
    assert_eq!(m.dropped(), Some(0));
    assert_eq!(m.gated(), None);
    assert_eq!(pos.san(m), "P@e4");
    assert_eq!(pos.parse_san("P@e4"), Ok(m));
    assert_eq!(pos.parse_any("P@e4"), Ok(m));
    assert!(!pos.is_capture(m) && pos.captured_kind(m).is_none());
    assert_eq!(Move::unpack(m.pack()), Some(m));
    let after = pos.play(m);
    assert_eq!(after.fen(), "4k3/8/8/8/4P3/8/8/4K3[] b - - 0 1");
    assert_ne!(after.key(), pos.play(pos.parse_move("P@e3").expect("P@e3")).key());
    assert_eq!(after.key_from(&pos, pos.key()), after.key());
    // A drop that mates is legal, written with '#'.
    let pos = zh("6k1/5ppp/8/8/8/8/8/4K3[R] w - - 0 1");
    let mate = pos.parse_any("R@e8").expect("R@e8");
    assert_eq!(pos.san(mate), "R@e8#");
    assert!(pos.play(mate).outcome().is_some());
}

#[test]
fn drops_block_checks_and_captures_go_to_hand() {
    // The rook on a8 checks: the knight may block on b8, c8 or d8 only.
    let pos = zh("R3k3/8/8/8/8/8/8/4K3[Nn] b - - 0 1");
    let drops: Vec<String> = texts(&pos).into_iter().filter(|m| m.contains('@')).collect();
    assert_eq!(drops, ["N@b8", "N@c8", "N@d8"]);
    // A capture puts the piece, as the capturer's, in the capturer's hand.
    let pos = zh("4k3/8/8/3p4/4P3/8/8/4K3[] w - - 0 1");
    let after = pos.play(pos.parse_move("e4d5").expect("exd5"));
    assert_eq!(after.fen(), "4k3/8/8/3P4/8/8/8/4K3[P] b - - 0 1");
}

#[test]
fn drop_keys() {
    let mut defs = Definitions::builtin();
    let text = "\
[nopawnfirst:crazyhouse]
firstRankPawnDrops = true
dropRegionWhite = *1 *2 *3 *4
dropRegionBlack = *5 *6 *7 *8
dropNoDoubled = p

[quiet:crazyhouse]
dropChecks = false
";
    defs.load(text, "drops.ini").expect("loads");
    let def = defs.get("nopawnfirst").expect("section");
    let pos = Position::from_fen(def, "4k3/8/8/8/8/8/4P3/4K3[PN] w - - 0 1").expect("FEN");
    let moves = texts(&pos);
    // Knights anywhere in ranks 1-4, pawns there too (rank 1 allowed) but
    // not on the e-file, which holds a white pawn.
    assert!(moves.contains(&"N@a4".to_string()) && !moves.contains(&"N@a5".to_string()));
    assert!(moves.contains(&"P@a1".to_string()) && !moves.iter().any(|m| m.starts_with("P@e")));
    let def = defs.get("quiet").expect("section");
    let pos = Position::from_fen(def, "4k3/8/8/8/8/8/8/4K3[R] w - - 0 1").expect("FEN");
    let moves = texts(&pos);
    assert!(!moves.contains(&"R@e2".to_string()) && !moves.contains(&"R@a8".to_string()));
    assert!(moves.contains(&"R@a7".to_string()));
    // Keys not implemented stay refused with their mechanism.
    let err = defs.load("[x:crazyhouse]\ncustomPiece25 = a:W\n", "bad.ini").expect_err("customPiece25");
    assert!(matches!(&err, DefinitionError::Unsupported { key, .. } if key == "customPiece25"), "{err:?}");
    // `sittuyinRookDrop` keeps rooks on the first rank of the drop region.
    defs.load("[rookrank:crazyhouse]\nsittuyinRookDrop = true\n", "ok.ini").expect("loads");
    let pos =
        Position::from_fen(defs.get("rookrank").expect("section"), "4k3/8/8/8/8/8/8/4K3[R] w - - 0 1").expect("FEN");
    let moves = texts(&pos);
    assert!(moves.contains(&"R@a1".to_string()) && !moves.iter().any(|m| m.starts_with("R@") && !m.ends_with('1')));
    let err = defs.load("[x:chess]\ncapturesToHand = true\n", "bad.ini").expect_err("no drops");
    assert!(err.to_string().contains("pieceDrops"), "{err}");
    // pocketSize only sizes a GUI's pockets.
    defs.load("[y:crazyhouse]\npocketSize = 5\n", "ok.ini").expect("ignored");
}

#[test]
fn s_house_gates_shape_the_key_with_empty_hands() {
    // Captures refill S-house's hands, so a gate stays live with nothing
    // in hand: positions that differ only by a gate differ in key.
    let defs = Definitions::builtin();
    let def = defs.get("shouse").expect("built-in shouse");
    let fen = |gates: &str| format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w {gates} - 0 1");
    let all = Position::from_fen(def, &fen("KQBCDFGkqbcdfg")).expect("all gates");
    let fewer = Position::from_fen(def, &fen("KQBCDFkqbcdfg")).expect("one gate fewer");
    assert_eq!(all.fen(), fen("KQBCDFGkqbcdfg"));
    assert_ne!(all.key(), fewer.key());
    let m = all.parse_move("g1f3").expect("Nf3");
    assert_eq!(all.play(m).key_from(&all, all.key()), all.play(m).key());
}

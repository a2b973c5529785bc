//! Menagerie's own games defined as data (`crates/rules/menagerie.ini`,
//! Menagerie's rule keys) play exactly like the compiled games: the
//! compiled games' perft suites (`tests/perft/*.epd`) give the same counts
//! on the data definitions, and every position reached by play reads back
//! from its FEN as the same position.

mod common;

use menagerie_rules::{Definitions, EndReason, FenError, GameResult, MENAGERIE_INI, Move, Position};
use menagerie_testkit::Rng;
use std::sync::OnceLock;

fn defs() -> &'static Definitions {
    static DEFS: OnceLock<Definitions> = OnceLock::new();
    DEFS.get_or_init(|| {
        let mut d = Definitions::builtin();
        d.load(MENAGERIE_INI, "menagerie.ini").expect("menagerie.ini loads");
        d
    })
}

/// Most nodes a suite case may take here (the data core in a test build).
const NODE_LIMIT: u64 = 3_000_000;

/// Runs the cases of `epd` whose variant has a data definition, up to
/// [`NODE_LIMIT`] nodes a case; returns how many ran.
fn run_suite(epd: &str) -> usize {
    let mut ran = 0;
    let mut failures = Vec::new();
    for common::EpdLine { number, fen, variant, depths } in common::epd_lines(epd) {
        let Some(def) = defs().get(variant) else { continue };
        let pos = Position::from_fen(def, fen).unwrap_or_else(|e| panic!("line {number}: {fen}: {e}"));
        if !def.chess960 {
            // (Chess960 forms write castling rights as rook files.)
            assert_eq!(pos.fen(), fen, "line {number}: the FEN reads back");
        }
        for (depth, count) in depths.into_iter().filter(|&(_, n)| n <= NODE_LIMIT) {
            ran += 1;
            let got = pos.perft(depth);
            if got != count {
                failures.push(format!("line {number} {variant} {fen} D{depth}: got {got}, expected {count}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    ran
}

#[test]
fn pioneer_gating_definitions_match_the_compiled_alpaca_suites() {
    let ran = run_suite(include_str!("../../../tests/perft/alpaca.epd"));
    assert!(ran >= 40, "only {ran} cases ran");
}

/// The lines of `epd` for `variant`, moved to `form` (its Chess960 form).
fn in_960_form(epd: &str, variant: &str, form: &str) -> String {
    let tag = format!(";variant {variant} ");
    epd.lines().filter(|l| l.contains(&tag)).map(|l| l.replace(&tag, &format!(";variant {form} ")) + "\n").collect()
}

#[test]
fn chess960_forms_count_the_orthodox_array_like_their_games() {
    // On the orthodox array the Chess960 forms are the games (castling
    // written king-takes-rook changes no count), castling gates included.
    let alpaca = in_960_form(include_str!("../../../tests/perft/alpaca.epd"), "alpaca", "alpaca960");
    assert!(run_suite(&alpaca) >= 20);
    let alseid = in_960_form(include_str!("../../../tests/perft/alseid.epd"), "alseid", "alseid960");
    assert!(run_suite(&alseid) >= 15);
}

#[test]
fn chess960_forms_gate_by_the_positions_castling() {
    let def = defs().get("alpaca960").expect("defined");
    let after = |fen: &str, m: &str| {
        let pos = Position::from_fen(def, fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let mv = pos.parse_any(m).unwrap_or_else(|e| panic!("{m} in {fen}: {e}"));
        (pos.san(mv), pos.play(mv).fen())
    };
    // King f1 to g1, rook h1 to f1: the king left its gate, the rook took
    // the square, the Alpaca is lost.
    let (san, fen) = after("4k3/8/8/8/8/8/8/5K1R[A@f] w H - 0 1", "f1h1");
    assert_eq!((san.as_str(), fen.as_str()), ("O-O", "4k3/8/8/8/8/8/8/5RK1[] b - - 1 1"));
    // The king stays on g1: its gate stays live; the rook's lets its piece in.
    let (_, fen) = after("4k3/8/8/8/8/8/8/6KR[A@g] w H - 0 1", "O-O");
    assert_eq!(fen, "4k3/8/8/8/8/8/8/5RK1[A@g] b - - 1 1");
    let (san, fen) = after("4k3/8/8/8/8/8/8/6KR[A@h] w H - 0 1", "g1h1");
    assert_eq!((san.as_str(), fen.as_str()), ("O-O(A@h1)", "4k3/8/8/8/8/8/8/5RKA[] b - - 1 1"));
    // Both leave: either gate lets its piece in.
    let (san, fen) = after("4k3/8/8/8/8/8/8/RK6[A@b] w A - 0 1", "b1a1");
    assert_eq!((san.as_str(), fen.as_str()), ("O-O-O(A@b1)", "4k3/8/8/8/8/8/8/1AKR4[] b - - 1 1"));
    // Two gates: never the king's file with a castling rook's, as this
    // position's rights give them (king b1, rooks a1 and c1).
    let mut d = Definitions::builtin();
    d.load(MENAGERIE_INI, "menagerie.ini").expect("loads");
    d.load("[alpaca2-960:alpaca2]\nchess960 = true", "test.ini").expect("loads");
    let def2 = d.get("alpaca2-960").expect("defined");
    let pos = Position::from_fen(def2, "rkrbbnnq/pppppppp/8/8/8/8/PPPPPPPP/RKRBBNNQ[AAaa?] w CAca - 0 1").expect("FEN");
    let pos = pos.play(pos.parse_any("accept").expect("legal"));
    let texts: Vec<String> = pos.legal_moves().into_iter().map(|m| pos.move_text(m)).collect();
    assert!(texts.contains(&"A@ac".to_string()) && texts.contains(&"A@bd".to_string()));
    assert!(!texts.contains(&"A@ab".to_string()) && !texts.contains(&"A@bc".to_string()));
    assert_eq!(texts.len(), 28 - 2);
}

#[test]
fn kidnapping_definitions_match_the_compiled_alseid_suites() {
    let ran = run_suite(include_str!("../../../tests/perft/alseid.epd"));
    assert!(ran >= 30, "only {ran} cases ran");
}

#[test]
fn takeover_and_swap_definitions_match_the_compiled_camel_rhino_suite() {
    let ran = run_suite(include_str!("../../../tests/perft/camel-rhino.epd"));
    assert!(ran >= 15, "only {ran} cases ran");
}

#[test]
fn start_positions_are_the_compiled_games() {
    for (name, fen, d2) in [
        ("alpaca", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa?] w KQkq - 0 1", 10),
        ("alpaca2", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[AAaa?] w KQkq - 0 1", 28),
        ("alpaca-samefile", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa?] w KQkq - 0 1", 10),
        ("alseid", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Ss?] w KQkq - 0 1", 10),
        ("alseid-weak", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Ss?] w KQkq - 0 1", 10),
    ] {
        let def = defs().get(name).expect("defined");
        let pos = Position::start(def);
        assert_eq!(pos.fen(), fen);
        assert_eq!(pos.perft(2), d2, "{name}");
    }
}

/// Plays `moves` from the start of `variant`, checking each is legal.
fn play(variant: &str, moves: &[&str]) -> Position {
    let mut pos = Position::start(defs().get(variant).expect("defined"));
    for m in moves {
        let mv = pos.parse_any(m).unwrap_or_else(|e| panic!("{m} in {}: {e}", pos.fen()));
        pos = pos.play(mv);
    }
    pos
}

#[test]
fn the_prelude_and_entries_as_the_rules_say() {
    // White declines, Black overrules: White places first all the same.
    let pos = play("alpaca", &["decline"]);
    assert_eq!(pos.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa?] b KQkq - 0 1");
    let pos = play("alpaca", &["decline", "accept"]);
    assert_eq!(pos.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa] w KQkq - 0 1");
    // Both decline: orthodox chess, the bracket empty.
    let pos = play("alpaca", &["decline", "decline"]);
    assert_eq!(pos.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1");
    assert_eq!(pos.perft(3), 8902);
    // Placement, then the knight's move lets the Alpaca in (SAN names the entry).
    let pos = play("alpaca", &["accept", "A@g", "A@b"]);
    assert_eq!(pos.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[A@ga@b] w KQkq - 0 1");
    let nf3 = pos.parse_any("g1f3").expect("legal");
    assert_eq!(pos.san(nf3), "Nf3(A@g1)");
    let pos = pos.play(nf3);
    assert_eq!(pos.fen(), "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKBAR[a@b] b KQkq - 1 1");
    // SAN without the entry reads too.
    assert!(play("alpaca", &["accept", "A@g", "A@b", "Nf3", "Nc6(A@b8)"]).fen().starts_with("rabqkbnr/pppppppp/2n5"));
    // Two Alpacas: files in order, never the king's with a rook's.
    let pos = play("alpaca2", &["accept"]);
    let texts: Vec<String> = pos.legal_moves().into_iter().map(|m| pos.move_text(m)).collect();
    assert!(texts.contains(&"A@bg".to_string()));
    assert!(!texts.contains(&"A@ae".to_string()) && !texts.contains(&"A@eh".to_string()));
    assert_eq!(texts.len(), 28 - 2);
    // Same file: Black's only placement is White's file.
    let pos = play("alpaca-samefile", &["accept", "A@c"]);
    let texts: Vec<String> = pos.legal_moves().into_iter().map(|m| pos.move_text(m)).collect();
    assert_eq!(texts, ["A@c"]);
}

#[test]
fn a_capture_on_a_live_home_square_forfeits_the_reserve_piece() {
    let def = defs().get("alpaca").expect("defined");
    let pos = Position::from_fen(def, "3qk3/8/8/8/8/8/8/3QK3[A@da@d] w - - 0 1").expect("valid");
    let qxd8 = pos.parse_any("d1d8").expect("legal");
    let after = pos.play(qxd8);
    // White's Alpaca enters on d1, Black's is lost with its queen.
    assert_eq!(after.fen(), "3Qk3/8/8/8/8/8/8/3AK3[] b - - 0 1");
}

#[test]
fn kidnapping_as_the_rules_say() {
    let def = defs().get("alseid").expect("defined");
    // The Alseid on e4 leaving upwards: screen e2... looking back from e4:
    // e3 is empty, e2 the screen (a pawn), e1 the victim (the king, who loses castling).
    let pos = Position::from_fen(def, "r3k2r/8/8/8/4S3/8/4P3/R3K2R[] w KQkq - 0 1").expect("valid");
    let m = pos.parse_any("e4e6").expect("legal");
    assert_eq!(pos.san(m), "Se4-e6(Ke1-e4)");
    assert_eq!(pos.play(m).fen(), "r3k2r/8/4S3/8/4K3/8/4P3/R6R[] b kq - 1 1");
    // SAN in the long form reads too, with or without the victim.
    assert_eq!(pos.parse_any("Se4-e6(Ke1-e4)"), Ok(m));
    assert_eq!(pos.parse_any("Se4e6"), Ok(m));
    assert_eq!(pos.parse_any("Se6"), Ok(m), "the short form reads too");
    // Weak: only one-square moves kidnap; the two-square move is plain.
    let weak = defs().get("alseid-weak").expect("defined");
    let pos = Position::from_fen(weak, "r3k2r/8/8/8/4S3/8/4P3/R3K2R[] w KQkq - 0 1").expect("valid");
    let long = pos.parse_any("e4e6").expect("legal");
    assert_eq!(pos.play(long).fen(), "r3k2r/8/4S3/8/8/8/4P3/R3K2R[] b KQkq - 1 1");
    let short = pos.parse_any("e4e5").expect("legal");
    assert_eq!(pos.san(short), "Se4-e5(Ke1-e4)");
    // Kidnapping a live gate's home piece fires its owner's gate.
    let pos = Position::from_fen(def, "4k3/8/8/8/8/8/1S6/1N2K3[s@b] w - - 0 1");
    assert!(matches!(pos, Err(FenError::Reserve(_))), "Black's gate needs a black piece on b8");
    let pos = Position::from_fen(def, "1n2k3/8/8/8/8/1S6/1P6/1N2K3[S@bs@b] w - - 0 1").expect("valid");
    let up = pos.parse_any("b3b5").expect("legal");
    assert_eq!(pos.san(up), "Sb3-b5(Nb1-b3)(S@b1)");
    assert_eq!(pos.play(up).fen(), "1n2k3/8/8/1S6/8/1N6/1P6/1S2K3[s@b] b - - 1 1");
    // An Alseid may not stand on a live gate's home square.
    let bad = Position::from_fen(def, "4k3/8/8/8/8/8/8/1S2K3[S@ba] w - - 0 1");
    assert!(matches!(bad, Err(FenError::Reserve(e)) if e.contains("kidnapper")));
}

#[test]
fn bad_reserve_brackets_are_clear_errors() {
    let def = defs().get("alpaca").expect("defined");
    for (fen, why) in [
        ("4k3/8/8/8/8/8/8/4K3[Sa?] w - - 0 1", "the reserve piece is 'A'"),
        ("4k3/8/8/8/8/8/8/4K3[AAa?] w - - 0 1", "at most 1 reserve pieces"),
        ("4k3/8/8/8/8/8/8/4K3[aA?] w - - 0 1", "White's entries come first"),
        ("4k3/8/8/8/8/8/8/4K3[A@da] b - - 0 1", "holds no piece"),
        ("4k3/8/8/8/8/8/8/4K3[Aa] b - - 0 1", "White places first"),
        ("4k3/8/8/8/8/8/8/4K3[A?] w - - 0 1", "pending decision"),
        ("4k3/8/8/8/8/8/8/4K3[A@z] w - - 0 1", "off the board"),
        ("4k3/8/8/8/8/8/8/4K3[Aa w - - 0 1", "unclosed"),
    ] {
        match Position::from_fen(def, fen) {
            Err(e @ FenError::Reserve(_)) => assert!(e.to_string().contains(why), "{fen}: {e}"),
            other => panic!("{fen}: {other:?}"),
        }
    }
    // Without a bracket: nothing left in reserve, written back the same.
    let pos = Position::from_fen(def, "4k3/8/8/8/8/8/8/4K3 w - - 0 1").expect("valid");
    assert_eq!(pos.fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
}

#[test]
fn positions_reached_by_play_read_back_from_their_fen() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for name in ["alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak", "camel-rhino"] {
        for _ in 0..20 {
            let mut pos = Position::start(defs().get(name).expect("defined"));
            for _ in 0..80 {
                let fen = pos.fen();
                let back = Position::from_fen(pos.variant(), &fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
                assert_eq!(back.fen(), fen);
                assert!(pos == back, "{name}: reached by play != read from its FEN {fen}");
                assert_eq!(pos.key(), back.key(), "{name}: {fen}");
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let m = legal[rng.below(legal.len())];
                assert_eq!(pos.parse_any(&pos.san(m)), Ok(m), "{name}: SAN {} in {fen}", pos.san(m));
                assert_eq!(pos.parse_move(&pos.move_text(m)), Ok(m));
                assert_eq!(Move::unpack(m.pack()), Some(m), "{name}: {} in {fen}", pos.move_text(m));
                pos = pos.play(m);
            }
        }
    }
}

/// The move texts of the legal moves of `pos`.
fn texts(pos: &Position) -> Vec<String> {
    pos.legal_moves().into_iter().map(|m| pos.move_text(m)).collect()
}

#[test]
fn takeovers_as_the_rules_say() {
    let def = defs().get("camel-rhino").expect("defined");
    // A Camel's (1,3) leap d4-e7 passes d5 and d6: it converts both, or none.
    let pos = Position::from_fen(def, "c8k/10/10/10/3n6/3p6/3C6/10/10/K9 w - - 5 9").expect("valid");
    let take = pos.parse_any("d4e7t").expect("legal");
    assert!(take.is_takeover());
    assert_eq!(pos.san(take), "Cxe7(=d5)(=d6)");
    assert_eq!(pos.play(take).fen(), "c8k/10/10/4C5/3N6/3P6/10/10/10/K9 b - - 0 9");
    assert_eq!(pos.parse_any("Ce7(=d6)(=d5)"), Ok(take), "the marks in any order");
    let plain = pos.parse_any("d4e7").expect("legal");
    assert!(!plain.is_takeover());
    assert_eq!(pos.san(plain), "Ce7");
    assert_eq!(pos.play(plain).fen(), "c8k/10/10/4C5/3n6/3p6/10/10/10/K9 b - - 6 9");
    // Its ferz step jumps nothing.
    assert!(!texts(&pos).iter().any(|t| t.starts_with("d4") && t.ends_with('t') && t.len() == 5 && &t[2..4] == "e5"));

    // A Rhino's (2,3) leap passes the two diagonal squares.
    let pos = Position::from_fen(def, "c8k/10/10/10/10/3b6/2r7/1H8/10/K9 w - - 0 1").expect("valid");
    assert_eq!(pos.play(pos.parse_any("b3d6t").expect("legal")).fen(), "c8k/10/10/10/3H6/3B6/2R7/10/10/K9 b - - 0 1");

    // A Knight takes over only next to a friendly Camel or Rhino, over its orthogonal neighbour.
    let fen = "c8k/10/10/10/10/10/4p5/4N5/10/K8C w - - 0 1";
    let alone = Position::from_fen(def, fen).expect("valid");
    assert!(!texts(&alone).iter().any(|t| t.ends_with('t')));
    let pos = Position::from_fen(def, "c8k/10/10/10/10/10/4p5/4NC4/10/K9 w - - 0 1").expect("valid");
    let t = texts(&pos);
    assert!(t.contains(&"e3d5t".to_string()) && t.contains(&"e3f5t".to_string()), "{t:?}");
    assert!(!t.contains(&"e3g4t".to_string()), "the Knight's path to g4 passes f3, its own Camel");

    // A Queen next to its Camel jumps the first piece on a line to the empty
    // square behind it, if the opponent does not attack that square.
    let pos = Position::from_fen(def, "c8k/10/10/10/3n6/10/10/10/2CQ6/K9 w - - 0 1").expect("valid");
    let jump = pos.parse_any("d2d7").expect("legal");
    assert!(jump.is_takeover());
    assert_eq!(pos.san(jump), "Qxd7(=d6)");
    assert_eq!(pos.play(jump).fen(), "c8k/10/10/3Q6/3N6/10/10/10/2C7/K9 b - - 0 1");
    let guarded = Position::from_fen(def, "c8k/10/4p5/10/3n6/10/10/10/2CQ6/K9 w - - 0 1").expect("valid");
    assert!(guarded.parse_any("d2d7").is_err(), "d7 is attacked by the pawn on e8");
    // The King needs the jumped piece undefended too, and never takes over a king.
    let pos = Position::from_fen(def, "c8k/10/10/10/10/10/10/2n7/1CK7/10 w - - 0 1").expect("valid");
    assert!(texts(&pos).contains(&"c2c4".to_string()));
    let pos = Position::from_fen(def, "c8k/10/10/10/10/10/4n5/2n7/1CK7/10 w - - 0 1").expect("valid");
    assert!(!texts(&pos).contains(&"c2c4".to_string()), "c3 is defended by the knight on e4");
    // A pawn jumps along its capture diagonals and promotes on the last rank.
    let pos = Position::from_fen(def, "c8k/4r5/3P6/2C7/10/10/10/10/10/K9 w - - 0 1").expect("valid");
    let t = texts(&pos);
    assert!(
        t.contains(&"d8f10q".to_string()) && t.contains(&"d8f10w".to_string()) && !t.contains(&"d8f10".to_string()),
        "{t:?}"
    );
    let promo = pos.parse_any("d8f10h").expect("legal");
    assert_eq!(pos.san(promo), "Pxf10=H(=e9)");
    assert_eq!(pos.play(promo).fen(), "c4H3k/4R5/10/2C7/10/10/10/10/10/K9 b - - 0 1");
}

#[test]
fn swaps_promoting_wazirs_and_the_loss_rule() {
    let def = defs().get("camel-rhino").expect("defined");
    // Adjacent friendly pieces swap, once per pair, written from either square.
    let pos = Position::from_fen(def, "c8k/10/10/10/10/10/10/10/2PP6/KR7C w - - 0 1").expect("valid");
    let t = texts(&pos);
    assert!(t.contains(&"a1b1".to_string()) && !t.contains(&"b1a1".to_string()), "{t:?}");
    assert!(!t.contains(&"c2d2".to_string()), "pawn with pawn does not swap");
    assert!(t.contains(&"b1c2".to_string()), "rook with pawn does");
    let swap = pos.parse_any("a1b1").expect("legal");
    assert!(swap.is_swap());
    assert_eq!(pos.parse_any("b1a1"), Ok(swap));
    assert_eq!(pos.san(swap), "Ka1<>Rb1");
    assert_eq!(pos.parse_any("Rb1<>Ka1"), Ok(swap));
    assert_eq!(pos.play(swap).fen(), "c8k/10/10/10/10/10/10/10/2PP6/RK7C b - - 1 1");
    // A pawn moved by a swap resets the clock.
    let pos = Position::from_fen(def, "c8k/10/10/10/10/10/10/10/2PP6/KR7C w - - 7 9").expect("valid");
    assert_eq!(pos.play(pos.parse_any("b1c2").expect("legal")).fen(), "c8k/10/10/10/10/10/10/10/2RP6/KP7C b - - 0 9");

    // A Wazir arriving on the last rank promotes (staying a Wazir is a choice);
    // one already there moves along it without promoting.
    let pos = Position::from_fen(def, "c8k/4W5/10/10/10/10/10/10/10/K8C w - - 0 1").expect("valid");
    let t = texts(&pos);
    assert!(
        t.contains(&"e9e10w".to_string()) && t.contains(&"e9e10c".to_string()) && !t.contains(&"e9e10".to_string())
    );
    let pos = Position::from_fen(def, "c3W4k/10/10/10/10/10/10/10/10/K8C w - - 0 1").expect("valid");
    assert!(texts(&pos).contains(&"e10f10".to_string()));
    // Swapped onto the last rank, a pawn promotes.
    let pos = Position::from_fen(def, "c3R4k/4P5/10/10/10/10/10/10/10/K8C w - - 0 1").expect("valid");
    let t = texts(&pos);
    assert!(t.contains(&"e9e10q".to_string()) && !t.contains(&"e9e10".to_string()), "{t:?}");
    let m = pos.parse_any("e9e10n").expect("legal");
    assert_eq!(pos.san(m), "Pe9<>Re10=N");
    assert_eq!(pos.play(m).fen(), "c3N4k/4R5/10/10/10/10/10/10/10/K8C b - - 0 1");

    // A side with no Camel and no Rhino has lost: no moves.
    let pos = Position::from_fen(def, "9k/10/10/10/10/10/10/10/10/KC8 b - - 0 1").expect("valid");
    assert!(pos.legal_moves().is_empty());
    let o = pos.outcome().expect("over");
    assert_eq!((o.reason, o.result, o.white_ended), (EndReason::Extinction, GameResult::WhiteWins, false));
    // A Rhino alone is enough; with neither on either side, the side to move has lost.
    let pos = Position::from_fen(def, "8hk/10/10/10/10/10/10/10/10/KC8 b - - 0 1").expect("valid");
    assert!(pos.outcome().is_none() && !pos.legal_moves().is_empty());
    let pos = Position::from_fen(def, "9k/10/10/10/10/10/10/10/10/K9 w - - 0 1").expect("valid");
    assert_eq!(pos.outcome().map(|o| o.result), Some(GameResult::BlackWins));
}

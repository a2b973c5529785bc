#![allow(clippy::unwrap_used)]
//! Chess960: start positions, X-FEN and Shredder-FEN castling fields, the
//! castling rules (any king and rook files), SAN `O-O`/`O-O-O`, coordinate
//! forms, and the Zobrist key kept exact along random games.

use menagerie_notation::fen::{self, FenError, FenField};
use menagerie_notation::{parse_move, san, uci};
use menagerie_pieces::PieceKind;
use menagerie_variants::{AnyPosition, MoveKind, PositionError, VariantId, chess960_back_rank, chess960_start_fen};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

const V: VariantId = VariantId::Chess960;
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn pos(text: &str) -> AnyPosition {
    fen::parse(V, text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn castles(p: &AnyPosition) -> Vec<String> {
    let mut v: Vec<String> =
        p.legal_moves().iter().filter(|m| m.kind == MoveKind::Castle).map(|&m| uci::format(V, m)).collect();
    v.sort();
    v
}

#[test]
fn start_positions_follow_the_standard_numbering() {
    assert_eq!(AnyPosition::start(V), pos(START));
    assert_eq!(chess960_start_fen(518).as_deref(), Some(START));
    let p3 = pos(&chess960_start_fen(3).unwrap());
    assert_eq!(castles(&p3), ["f1g1"], "BQNNRKRB: king and rook trade places");
    assert_eq!(chess960_start_fen(0).as_deref(), Some("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"));
    assert_eq!(chess960_start_fen(959).as_deref(), Some("rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1"));
    assert_eq!(chess960_start_fen(960), None);
    let mut seen = std::collections::HashSet::new();
    for n in 0..960 {
        let rank = chess960_back_rank(n).unwrap();
        assert!(seen.insert(rank), "#{n} repeats");
        let at = |k: PieceKind| rank.iter().enumerate().filter(move |&(_, &x)| x == k).map(|(i, _)| i);
        let b: Vec<usize> = at(PieceKind::Bishop).collect();
        let r: Vec<usize> = at(PieceKind::Rook).collect();
        let k: Vec<usize> = at(PieceKind::King).collect();
        assert_eq!((b.len(), r.len(), k.len()), (2, 2, 1), "#{n}");
        assert_ne!(b[0] % 2, b[1] % 2, "#{n}: bishops on one colour");
        assert!(r[0] < k[0] && k[0] < r[1], "#{n}: king not between the rooks");
        let text = chess960_start_fen(n).unwrap();
        let p = pos(&text);
        assert_eq!(fen::format(&p), text, "#{n}");
        // Sixteen pawn moves and a few knight moves (castling where king and
        // rook already stand on each other's destinations, #3: f1/g1).
        assert!((18..=22).contains(&p.perft(1)), "#{n}");
    }
}

#[test]
fn x_fen_and_shredder_fen() {
    // Shredder-FEN in, X-FEN out (KQkq: the rooks are the outermost ones).
    let p = pos("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
    assert_eq!(fen::format(&p), "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9");
    assert_eq!(fen::format_shredder(&p), "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
    // An inner rook keeps its file letter in X-FEN: rooks on b1 and c1, king d1...
    let inner = pos("4k3/8/8/8/8/8/8/1RRK3R w C - 0 1");
    assert_eq!(fen::format(&inner), "4k3/8/8/8/8/8/8/1RRK3R w C - 0 1");
    assert_eq!(inner.castling_rooks()[1].map(|s| s.0), Some(2));
    // ... and `Q` there means the outermost rook (b1).
    let outer = pos("4k3/8/8/8/8/8/8/1RRK3R w Q - 0 1");
    assert_eq!(outer.castling_rooks()[1].map(|s| s.0), Some(1));
    assert_eq!(fen::format(&outer), "4k3/8/8/8/8/8/8/1RRK3R w Q - 0 1");
    assert_eq!(fen::parse(V, "4k3/8/8/8/8/8/8/1RRK3R w B - 0 1"), Ok(outer));
    assert_ne!(inner, outer);
    assert_ne!(inner.hash(), outer.hash(), "the rook file is part of the key");
    // Orthodox chess keeps KQkq and refuses file letters.
    let chess = fen::parse(VariantId::Chess, START).unwrap();
    assert_eq!(fen::format(&chess), START);
    assert_eq!(fen::format_shredder(&chess), START);
    assert!(fen::parse(VariantId::Chess, "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1").is_err());
    assert_eq!(fen::format_shredder(&pos(START)), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1");
}

#[test]
fn bad_castling_fields_are_typed_errors() {
    let field = |text: &str, mentions: &str| match fen::parse(V, text) {
        Err(e @ FenError::Field { field: FenField::Castling, .. }) => {
            assert!(e.to_string().contains(mentions), "{e}");
        }
        other => panic!("{text}: {other:?}"),
    };
    field("4k3/8/8/8/8/8/8/R3K2R w KQx - 0 1", "'x'");
    field("4k3/8/8/8/8/8/8/R3K2R w Ei - 0 1", "king's file");
    field("4k3/8/8/8/8/8/8/R3K2R w KH - 0 1", "twice");
    field("4k3/8/8/8/8/8/8/R3K2R w KQkq1 - 0 1", "'1'");
    field("4k3/8/8/8/8/8/8/R6R w A - 0 1", "no White king");
    field("4k3/8/8/8/8/8/4K3/R6R w H - 0 1", "no White king");
    // Well-formed rights without their rook are position errors.
    let right = |text: &str, ch: char| {
        assert_eq!(fen::parse(V, text), Err(FenError::Position(PositionError::CastlingRight(ch))), "{text}");
    };
    right("4k3/8/8/8/8/8/8/R3K3 w K - 0 1", 'K');
    right("4k3/8/8/8/8/8/8/R3K2R w G - 0 1", 'G');
    right("r3k3/8/8/8/8/8/8/4K3 w k - 0 1", 'k');
    right("4k3/8/8/8/8/8/4K3/R6R w K - 0 1", 'K');
}

#[test]
fn castling_rules() {
    // King g1, rook h1: O-O leaves the king where it is; written g1h1.
    let p = pos("4k3/8/8/8/8/8/8/6KR w K - 0 1");
    assert_eq!(castles(&p), ["g1h1"]);
    let after = p.play(san::parse(&p, "O-O").unwrap()).unwrap();
    assert_eq!(fen::format(&after), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
    // King b1, rook a1: O-O-O moves the king to c1 and the rook to d1.
    let p = pos("4k3/8/8/8/8/8/8/RK6 w Q - 0 1");
    assert_eq!(castles(&p), ["b1a1"]);
    let after = p.play(parse_move(&p, "O-O-O").unwrap()).unwrap();
    assert_eq!(fen::format(&after), "4k3/8/8/8/8/8/8/2KR4 b - - 1 1");
    // King c1 with the castling rook on b1: c1 is the king's own square, d1 must be free.
    let p = pos("4k3/8/8/8/8/8/8/1RK5 w Q - 0 1");
    assert_eq!(castles(&p), ["c1b1"]);
    let p = pos("4k3/8/8/8/8/8/8/1RKN4 w Q - 0 1");
    assert!(castles(&p).is_empty());
    // The pinned castling rook: b1 shields c1 from the a1 rook; O-O-O would expose the king.
    let p = pos("4k3/8/8/8/8/8/8/rRK5 w Q - 0 1");
    assert!(castles(&p).is_empty(), "{:?}", castles(&p));
    let p = pos("4k3/8/8/8/8/8/8/qRK5 w Q - 0 1");
    assert!(castles(&p).is_empty());
    // Same on the king side: king f1, rook g1 shields from h1... the king
    // lands on g1 which the h1 rook attacks once the rook has moved.
    let p = pos("4k3/8/8/8/8/8/8/5KRr w K - 0 1");
    assert!(castles(&p).is_empty());
    // A square the king crosses is attacked.
    let p = pos("7k/8/8/8/8/8/3r4/1K2R3 w K - 0 1");
    assert!(castles(&p).is_empty(), "d1 attacked");
    let p = pos("7k/8/8/8/8/8/6r1/1K2R3 w K - 0 1");
    assert!(castles(&p).is_empty(), "g1 attacked");
    let p = pos("7k/8/8/8/8/8/5r2/1K2R3 w K - 0 1");
    assert!(
        castles(&p).is_empty(),
        "f1 attacked (the rook's square does not matter for the rook, but the king crosses it)"
    );
    // Only the rook's own path attacked: still legal (the rook may cross attacked squares).
    let p = pos("4k3/8/8/8/8/8/8/R3K2r w Q - 0 1");
    assert!(castles(&p).is_empty(), "in check");
    let p = pos("1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
    assert_eq!(castles(&p), ["e1a1"], "b1 attacked, but only the rook crosses it");
    // A piece between king and destination blocks.
    let p = pos("4k3/8/8/8/8/8/8/1K1B2R1 w K - 0 1");
    assert!(castles(&p).is_empty());
    // King and rook swap: king d1, rook c1, O-O-O puts the king on c1 and the rook on d1.
    let p = pos("4k3/8/8/8/8/8/8/2RK4 w Q - 0 1");
    let after = p.play(san::parse(&p, "O-O-O").unwrap()).unwrap();
    assert_eq!(fen::format(&after), "4k3/8/8/8/8/8/8/2KR4 b - - 1 1");
    // Moving a castling rook drops its right only; a king move drops both.
    let p = pos("r3k1r1/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1");
    assert_eq!(fen::format(&p.play(parse_move(&p, "Rb2").unwrap()).unwrap()), "r3k1r1/8/8/8/8/8/1R6/4K1R1 b Kkq - 1 1");
    assert_eq!(fen::format(&p.play(parse_move(&p, "Kd2").unwrap()).unwrap()), "r3k1r1/8/8/8/8/8/3K4/1R4R1 b kq - 1 1");
    // Capturing a castling rook on its square drops the opponent's right.
    let p = pos("r3k1r1/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1");
    assert_eq!(fen::format(&p.play(parse_move(&p, "Rxg8+").unwrap()).unwrap()), "r3k1R1/8/8/8/8/8/8/1R2K3 b Qq - 0 1");
}

#[test]
fn castling_notation() {
    let p = pos("rk2r3/pp2p3/8/8/8/8/PP2P3/RK2R3 w KQkq - 0 1");
    // SAN: O-O / O-O-O, and 0-0 read too.
    let short = san::parse(&p, "O-O").unwrap();
    let long = san::parse(&p, "O-O-O").unwrap();
    assert_eq!((short.kind, long.kind), (MoveKind::Castle, MoveKind::Castle));
    assert_eq!(san::format(&p, short), "O-O");
    assert_eq!(san::format(&p, long), "O-O-O");
    assert_eq!(san::parse(&p, "0-0"), Ok(short));
    // Coordinates: king takes rook (the API/CLI form and UCI_Chess960) ...
    assert_eq!(uci::format(V, short), "b1e1");
    assert_eq!(uci::format(V, long), "b1a1");
    assert_eq!(uci::format_wire(&p, short), "b1e1");
    // ... or king-to-square, written with UCI_Chess960 off and read always.
    assert_eq!(uci::format_wire_orthodox_castling(&p, short), "b1g1");
    assert_eq!(uci::format_wire_orthodox_castling(&p, long), "b1c1");
    assert_eq!(uci::parse(&p, "b1g1"), Ok(short));
    // b1c1 is also an ordinary king step here (c1 is empty): that is what it means.
    assert_eq!(uci::parse(&p, "b1c1").map(|m| m.kind), Ok(MoveKind::Normal));
    assert_eq!(parse_move(&p, "b1e1"), Ok(short));
    // A king-to-square text that is an ordinary king move stays that move.
    let p = pos("4k3/8/8/8/8/8/8/5K1R w K - 0 1");
    assert_eq!(uci::parse(&p, "f1g1").unwrap().kind, MoveKind::Normal);
    assert_eq!(uci::parse(&p, "f1h1").unwrap().kind, MoveKind::Castle);
    assert_eq!(uci::format_wire_orthodox_castling(&p, uci::parse(&p, "f1h1").unwrap()), "f1g1");
    // A king that stays put is written king-takes-rook in both forms.
    let p = pos("4k3/8/8/8/8/8/8/6KR w K - 0 1");
    let m = san::parse(&p, "O-O").unwrap();
    assert_eq!(uci::format_wire_orthodox_castling(&p, m), "g1h1");
    // Orthodox chess is unchanged: e1g1.
    let c = fen::parse(VariantId::Chess, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    assert_eq!(uci::format(VariantId::Chess, san::parse(&c, "O-O").unwrap()), "e1g1");
    // Position #518 castles like orthodox chess, written king-takes-rook.
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(castles(&p), ["e1a1", "e1h1"]);
    assert_eq!(p.perft(3), c.perft(3));
}

/// Random start positions (by number) and random games: the incremental key
/// equals the key from scratch, X-FEN and Shredder-FEN round-trip, every
/// move round-trips through SAN and both coordinate forms.
fn check(p: &AnyPosition) -> Result<(), TestCaseError> {
    let text = fen::format(p);
    prop_assert_eq!(p.hash(), p.compute_hash(), "{}", text);
    prop_assert_eq!(&fen::parse(V, &text).map_err(|e| TestCaseError::fail(e.to_string()))?, p, "{}", text);
    let shredder = fen::format_shredder(p);
    prop_assert_eq!(&fen::parse(V, &shredder).map_err(|e| TestCaseError::fail(e.to_string()))?, p, "{}", shredder);
    let legal = p.legal_moves();
    prop_assert_eq!(p.count_legal(), legal.len() as u64);
    for &m in legal.iter() {
        let after = p.play_unchecked(m);
        prop_assert_eq!(after.hash(), after.compute_hash(), "after {:?} in {}", m, text);
        let s = san::format(p, m);
        prop_assert_eq!(san::parse(p, &s), Ok(m), "SAN {} in {}", s, text);
        let c = uci::format(V, m);
        prop_assert_eq!(uci::parse(p, &c), Ok(m), "{} in {}", c, text);
        let w = uci::format_wire_orthodox_castling(p, m);
        if m.kind != MoveKind::Castle || !legal.iter().any(|o| o.kind != MoveKind::Castle && uci::format(V, *o) == w) {
            prop_assert_eq!(uci::parse(p, &w), Ok(m), "{} in {}", w, text);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_hash_and_notation(n in 0u16..960, picks in proptest::collection::vec(any::<u16>(), 0..=80)) {
        let mut p = pos(&chess960_start_fen(n).unwrap());
        check(&p)?;
        for pick in picks {
            let legal = p.legal_moves();
            if legal.is_empty() {
                break;
            }
            // Prefer castling when available so it is exercised often.
            let m = legal.iter().copied().find(|m| m.kind == MoveKind::Castle && pick % 2 == 0)
                .unwrap_or(legal[pick as usize % legal.len()]);
            p = p.play_unchecked(m);
            check(&p)?;
        }
    }
}

#[test]
fn illegal_castlings_say_why() {
    let why = |text: &str, mv: &str, want: &str| match parse_move(&pos(text), mv) {
        Err(e) => assert!(e.to_string().contains(want), "{mv} in {text}: {e}"),
        Ok(m) => panic!("{mv} in {text} is legal: {m:?}"),
    };
    why("4k3/8/8/8/8/8/8/rRK5 w Q - 0 1", "O-O-O", "shields the king");
    why("4k3/8/8/8/8/8/8/rRK5 w Q - 0 1", "c1b1", "shields the king");
    why("4k3/8/8/8/8/8/8/1RKN4 w Q - 0 1", "O-O-O", "occupied");
    why("7k/8/8/8/8/8/6r1/1K2R3 w K - 0 1", "O-O", "in check on g1");
    why("7k/8/8/8/8/8/3r4/1K2R3 w K - 0 1", "b1e1", "attacked square d1");
    why("7k/8/8/8/8/8/8/1K2R3 w - - 0 1", "O-O", "rights are gone");
}

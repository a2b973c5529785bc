//! Property tests of the orthodox chess rules core, through the notation
//! layer: random playouts from the standard perft positions, checking at
//! every ply that copy-make leaves the old position untouched, that the
//! incremental Zobrist key matches the key computed from scratch, that a
//! move's check is told right without playing it, that FEN, SAN and
//! coordinate notation round-trip, and that the perft flavours agree.

use menagerie_notation::{fen, parse_move, san, uci};
use menagerie_variants::{AnyPosition, VariantId};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

const V: VariantId = VariantId::Chess;

/// Start positions: the six standard perft positions (tests/perft/chess-standard.epd).
const STARTS: [&str; 6] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
];

/// Longest playout, in plies.
const MAX_PLIES: usize = 60;

/// Every per-ply property of one position.
fn check_position(p: &AnyPosition) -> Result<(), TestCaseError> {
    let text = fen::format(p);

    // (b) incremental hash == hash from scratch.
    prop_assert_eq!(p.hash(), p.compute_hash(), "incremental hash differs from scratch in {}", text);

    // (c) FEN round trip, same hash, same position.
    let reparsed = fen::parse(V, &text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
    prop_assert_eq!(fen::format(&reparsed), text.clone());
    prop_assert_eq!(reparsed.hash(), p.hash(), "hash changed by FEN round trip of {}", text);
    prop_assert_eq!(&reparsed, p, "FEN round trip changed the position {}", text);

    // (f) count_legal == legal_moves().len(), and perft(1) agrees.
    let legal = p.legal_moves();
    prop_assert_eq!(p.count_legal(), legal.len() as u64, "count_legal in {}", text);
    prop_assert_eq!(p.perft(1), legal.len() as u64, "perft(1) in {}", text);

    // No duplicates in the move list.
    for (i, a) in legal.iter().enumerate() {
        prop_assert!(!legal[i + 1..].contains(a), "duplicate move {:?} in {}", a, text);
    }

    for &m in legal.iter() {
        // (a) copy-make: playing leaves the original untouched ("unmake" restores
        // position and hash), and the checked and unchecked make agree.
        let before = *p;
        let after = p.play_unchecked(m);
        prop_assert_eq!(p, &before, "play_unchecked modified the position {}", text);
        prop_assert_eq!(p.hash(), before.hash());
        prop_assert_eq!(p.hash(), p.compute_hash());
        prop_assert_eq!(p.play(m), Ok(after), "play and play_unchecked differ for {:?} in {}", m, text);
        // (b) for every child, not only the one the playout continues with.
        prop_assert_eq!(after.hash(), after.compute_hash(), "hash after {:?} in {}", m, text);
        prop_assert_eq!(after.side_to_move(), p.side_to_move().flip());
        // Whether the move gives check, told without playing it.
        prop_assert_eq!(p.gives_check(m), after.is_check(), "gives_check of {:?} in {}", m, text);
        // The mover's king is never left in check: the opponent may not be "in
        // check while it is our move", so the child must reparse.
        let child = fen::format(&after);
        prop_assert!(fen::parse(V, &child).is_ok(), "child {} of {} does not reparse", child, text);

        // (d) SAN round trip.
        let s = san::format_with(p, m, &legal);
        prop_assert_eq!(san::format(p, m), s.clone());
        let back = san::parse(p, &s).map_err(|e| TestCaseError::fail(format!("SAN '{s}' in {text}: {e}")))?;
        prop_assert_eq!(back, m, "SAN '{}' in {}", s, text);
        // Check and mate marks agree with the position after the move.
        let mark = match (after.is_check(), after.count_legal() == 0) {
            (true, true) => Some('#'),
            (true, false) => Some('+'),
            _ => None,
        };
        prop_assert_eq!(s.chars().last().filter(|c| matches!(c, '+' | '#')), mark, "SAN '{}' in {}", s, text);

        // (e) coordinate round trip.
        let c = uci::format(V, m);
        let back = uci::parse(p, &c).map_err(|e| TestCaseError::fail(format!("'{c}' in {text}: {e}")))?;
        prop_assert_eq!(back, m, "coordinate '{}' in {}", c, text);

        // The generic reader accepts both forms.
        prop_assert_eq!(parse_move(p, &c), Ok(m), "parse_move('{}') in {}", c, text);
        prop_assert_eq!(parse_move(p, &s), Ok(m), "parse_move('{}') in {}", s, text);
    }

    // (g) perft flavours agree at depth 2.
    let n = p.perft(2);
    let divided: u64 = p.divide(2).iter().map(|&(_, k)| k).sum();
    prop_assert_eq!(divided, n, "divide(2) sum in {}", text);
    prop_assert_eq!(p.divide(2).len(), legal.len());
    prop_assert_eq!(p.perft_parallel(2), n, "perft_parallel(2) in {}", text);
    prop_assert_eq!(p.perft_hashed(2, 1, 1), n, "perft_hashed(2, 1, 1) in {}", text);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_playouts(start in 0..STARTS.len(), picks in proptest::collection::vec(any::<u16>(), 0..=MAX_PLIES)) {
        let mut p = fen::parse(V, STARTS[start]).map_err(|e| TestCaseError::fail(e.to_string()))?;
        check_position(&p)?;
        for pick in picks {
            let legal = p.legal_moves();
            if legal.is_empty() {
                // Mate or stalemate: the outcome must say so.
                prop_assert!(p.outcome().is_some(), "no moves but no outcome in {}", fen::format(&p));
                break;
            }
            let m = legal[pick as usize % legal.len()];
            p = p.play_unchecked(m);
            check_position(&p)?;
        }
    }
}

/// A fixed, longer playout that exercises castling, en passant and
/// promotion, so the properties are checked on those moves whatever the
/// random cases pick.
#[test]
fn special_moves_keep_hash_and_notation_consistent() {
    let lines: [(&str, &[&str]); 6] = [
        // Both castlings for both sides from Kiwipete.
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", &["O-O", "O-O-O", "Kh1", "Kb8"]),
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", &["O-O-O", "O-O"]),
        // Double steps, en passant both ways.
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            &["e4", "a6", "e5", "d5", "exd6", "c5", "h4", "c4", "b4", "cxb3"],
        ),
        // Promotions with and without capture, under-promotion.
        ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", &["Kh1", "bxa1=N", "Qxa1"]),
        ("1r2k3/P7/8/8/8/8/7p/4K3 w - - 0 1", &["axb8=Q+", "Ke7", "Kd2", "h1=N"]),
        ("1r2k3/P7/8/8/8/8/7p/4K3 w - - 0 1", &["a8=N", "h1=Q+", "Kd2", "Qb1"]),
    ];
    for (start, moves) in lines {
        let mut p = fen::parse(V, start).unwrap();
        check_position(&p).unwrap();
        for text in moves {
            let m = san::parse(&p, text).unwrap_or_else(|e| panic!("{text} in {}: {e}", fen::format(&p)));
            p = p.play(m).unwrap();
            check_position(&p).unwrap_or_else(|e| panic!("after {text}: {e}"));
        }
    }
}

//! SAN for orthodox chess: formatting (disambiguation, captures, en passant,
//! promotions, castling, check and mate marks) and lenient parsing, with the
//! typed errors for ambiguous, illegal and malformed input.

use menagerie_notation::{MoveError, fen, parse_move, san, uci};
use menagerie_pieces::PieceKind;
use menagerie_variants::{AnyPosition, Move, MoveKind, VariantId};

const V: VariantId = VariantId::Chess;

#[track_caller]
fn pos(text: &str) -> AnyPosition {
    fen::parse(V, text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The legal move with coordinate form `c`.
#[track_caller]
fn mv(p: &AnyPosition, c: &str) -> Move {
    uci::parse(p, c).unwrap_or_else(|e| panic!("{c} in {}: {e}", fen::format(p)))
}

/// Asserts the move `coord` is written `want`, and that `want` reads back as it.
#[track_caller]
fn formats(p: &AnyPosition, coord: &str, want: &str) {
    let m = mv(p, coord);
    assert_eq!(san::format(p, m), want, "{coord} in {}", fen::format(p));
    assert_eq!(san::parse(p, want), Ok(m), "{want} in {}", fen::format(p));
}

/// [`formats`] for each `(coord, want)`.
#[track_caller]
fn formats_all(p: &AnyPosition, cases: &[(&str, &str)]) {
    for &(coord, want) in cases {
        formats(p, coord, want);
    }
}

/// Asserts SAN input `text` reads as the move `coord`.
#[track_caller]
fn reads(p: &AnyPosition, text: &str, coord: &str) {
    let m = mv(p, coord);
    assert_eq!(san::parse(p, text), Ok(m), "'{text}' in {}", fen::format(p));
    assert_eq!(parse_move(p, text), Ok(m), "parse_move('{text}') in {}", fen::format(p));
}

/// [`reads`] for each `(text, coord)`.
#[track_caller]
fn reads_all(p: &AnyPosition, cases: &[(&str, &str)]) {
    for &(text, coord) in cases {
        reads(p, text, coord);
    }
}

/// Every SAN string of the position, sorted.
fn all_san(p: &AnyPosition) -> Vec<String> {
    let legal = p.legal_moves();
    let mut v: Vec<String> = legal.iter().map(|&m| san::format_with(p, m, &legal)).collect();
    v.sort();
    v
}

// ----- formatting ------------------------------------------------------------

#[test]
fn start_position_moves() {
    let p = AnyPosition::start(V);
    let mut want: Vec<String> = ["a", "b", "c", "d", "e", "f", "g", "h"]
        .iter()
        .flat_map(|f| [format!("{f}3"), format!("{f}4")])
        .chain(["Na3", "Nc3", "Nf3", "Nh3"].map(String::from))
        .collect();
    want.sort();
    assert_eq!(all_san(&p), want);
    formats_all(&p, &[("g1f3", "Nf3"), ("e2e4", "e4"), ("e2e3", "e3")]);
}

#[test]
fn disambiguation_by_file() {
    // Knights on b1 and f3 both reach d2.
    let p = pos("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
    formats_all(&p, &[("b1d2", "Nbd2"), ("f3d2", "Nfd2")]);
    // Only one knight reaches c3 / e5: no disambiguation.
    formats_all(&p, &[("b1c3", "Nc3"), ("f3e5", "Ne5")]);
    // Rooks on a1 and h1, both reach d1 and f1.
    formats_all(
        &pos("4k3/8/8/8/8/8/K7/R6R w - - 0 1"),
        &[("a1d1", "Rad1"), ("h1d1", "Rhd1"), ("h1f1", "Rhf1"), ("h1h5", "Rh5")],
    );
}

#[test]
fn disambiguation_by_rank() {
    // Rooks on a1 and a5 both reach a3.
    formats_all(
        &pos("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1"),
        &[("a1a3", "R1a3"), ("a5a3", "R5a3"), ("a5a7", "Ra7"), ("a1b1", "Rb1")],
    );
}

#[test]
fn disambiguation_by_file_and_rank() {
    // Queens on a1, a3 and c1 all reach b2: Qa1 shares a file with Qa3 and a
    // rank with Qc1, so it needs both.
    formats_all(&pos("4k3/8/8/8/8/Q7/8/Q1Q4K w - - 0 1"), &[("a1b2", "Qa1b2"), ("a3b2", "Q3b2"), ("c1b2", "Qcb2")]);
    // The classic three queens on d8? No: here on e4, h4 and h1, all reaching e1.
    formats_all(&pos("1k6/8/8/8/4Q2Q/8/8/K6Q w - - 0 1"), &[("h4e1", "Qh4e1"), ("e4e1", "Qee1"), ("h1e1", "Q1e1")]);
}

#[test]
fn pinned_piece_needs_no_disambiguation() {
    // Knights on c3 and g1 both jump to e2, but c3 is pinned by the bishop on a5.
    let p = pos("4k3/8/8/b7/8/2N5/8/4K1N1 w - - 0 1");
    assert!(uci::parse(&p, "c3e2").is_err(), "the pinned knight may not move");
    formats(&p, "g1e2", "Ne2");
}

#[test]
fn captures() {
    // 1.e4 d5: exd5 and the queen trade.
    formats_all(
        &pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2"),
        &[("e4d5", "exd5"), ("e4e5", "e5")],
    );
    formats(&pos("rnb1kbnr/ppp1pppp/8/3q4/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3"), "d1g4", "Qg4");
    formats(&pos("rnb1kbnr/ppp1pppp/8/8/6q1/8/PPPP1PPP/RNBQKBNR w KQkq - 0 4"), "d1g4", "Qxg4");
    // Pieces capturing, with disambiguation.
    formats_all(&pos("4k3/8/8/3p4/8/2N1N3/8/4K3 w - - 0 1"), &[("c3d5", "Ncxd5"), ("e3d5", "Nexd5")]);
}

#[test]
fn en_passant() {
    let p = pos("rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
    let m = mv(&p, "e5d6");
    assert_eq!(m.kind, MoveKind::EnPassant);
    formats(&p, "e5d6", "exd6");
    // Without the en passant square the capture is not available.
    let q = pos("rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3");
    assert!(matches!(san::parse(&q, "exd6"), Err(MoveError::Illegal { .. })));
    // Black takes en passant too.
    formats(&pos("rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 2"), "e4d3", "exd3");
    // Two pawns can take en passant: the file tells them apart.
    formats_all(&pos("4k3/8/8/2PpP3/8/8/8/4K3 w - d6 0 1"), &[("c5d6", "cxd6"), ("e5d6", "exd6")]);
}

#[test]
fn promotions() {
    let p = pos("5r2/4P3/6k1/8/8/8/8/4K3 w - - 0 1");
    // Without capture: the queen and bishop on e8 give check along e8-g6.
    formats_all(&p, &[("e7e8q", "e8=Q+"), ("e7e8r", "e8=R"), ("e7e8b", "e8=B+"), ("e7e8n", "e8=N")]);
    // With capture: the knight on f8 checks g6.
    formats_all(&p, &[("e7f8n", "exf8=N+"), ("e7f8q", "exf8=Q"), ("e7f8r", "exf8=R"), ("e7f8b", "exf8=B")]);
    let m = mv(&p, "e7f8n");
    assert_eq!(m.promotion, Some(PieceKind::Knight));
    // Eight promotion moves plus the king's three (f1 and f2 are covered by the rook).
    assert_eq!(p.count_legal(), 8 + 3);
    // Black promotes towards rank 1.
    formats_all(&pos("4k3/8/8/8/8/8/p7/1N2K3 b - - 0 1"), &[("a2a1q", "a1=Q"), ("a2b1n", "axb1=N")]);
}

#[test]
fn castling() {
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    formats_all(&p, &[("e1g1", "O-O"), ("e1c1", "O-O-O")]);
    assert_eq!(mv(&p, "e1g1").kind, MoveKind::Castle);
    formats_all(&pos("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"), &[("e8g8", "O-O"), ("e8c8", "O-O-O")]);
    // Castling that gives check: the rook lands on d1 facing the king on d8.
    formats_all(&pos("3k4/8/8/8/8/8/8/R3K2R w KQ - 0 1"), &[("e1c1", "O-O-O+"), ("e1g1", "O-O")]);
}

#[test]
fn castling_is_accepted_with_zeros_and_marks() {
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    reads_all(&p, &[("0-0", "e1g1"), ("0-0-0", "e1c1"), ("O-O+", "e1g1"), ("O-O-O!", "e1c1"), ("0-0-0?!", "e1c1")]);
    // Castling in coordinate form is king-to-square (the generic reader).
    assert_eq!(parse_move(&p, "e1g1"), Ok(mv(&p, "e1g1")));
    assert_eq!(parse_move(&p, "e1c1"), Ok(mv(&p, "e1c1")));
}

#[test]
fn check_and_mate_marks() {
    // Fool's mate.
    let p = pos("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq g3 0 2");
    formats(&p, "d8h4", "Qh4#");
    let after = p.play(mv(&p, "d8h4")).unwrap();
    assert!(after.is_check());
    assert_eq!(after.count_legal(), 0);
    // A plain check.
    formats_all(
        &pos("rnbqkbnr/ppp1pppp/3p4/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"),
        &[("f1b5", "Bb5+"), ("f1c4", "Bc4")],
    );
    // Scholar's mate, with a capture.
    formats(&pos("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3"), "f3f7", "Qxf7#");
    // Stalemating is not mate: no mark.
    let p = pos("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1");
    formats(&p, "f1f7", "Qf7");
    assert_eq!(p.play(mv(&p, "f1f7")).unwrap().count_legal(), 0);
    // A discovered check.
    formats(&pos("4k3/8/8/8/4N3/8/8/4R1K1 w - - 0 1"), "e4c5", "Nc5+");
}

// ----- lenient input ---------------------------------------------------------

#[test]
fn lenient_input() {
    let p = AnyPosition::start(V);
    reads_all(
        &p,
        &[
            ("Nf3", "g1f3"),
            ("Nf3+", "g1f3"),
            ("Nf3#", "g1f3"),
            ("Nf3!?", "g1f3"),
            ("Nf3!!", "g1f3"),
            ("Nf3?", "g1f3"),
            (" Nf3 ", "g1f3"),
            ("Ng1f3", "g1f3"),
            ("Ngf3", "g1f3"),
            ("N1f3", "g1f3"),
            ("Ng1-f3", "g1f3"),
        ],
    );
    // Coordinate form goes through the generic reader (to SAN, 'g1f3' is a g-pawn move).
    assert_eq!(parse_move(&p, "g1f3"), Ok(mv(&p, "g1f3")));
    reads_all(&p, &[("e4", "e2e4"), ("e2e4", "e2e4"), ("e2-e4", "e2e4"), ("Pe4", "e2e4")]);
}

#[test]
fn lenient_promotion_input() {
    let p = pos("5r2/4P3/6k1/8/8/8/8/4K3 w - - 0 1");
    reads_all(
        &p,
        &[
            ("e8Q", "e7e8q"),
            ("e8=Q", "e7e8q"),
            ("e8=Q+", "e7e8q"),
            ("e8N", "e7e8n"),
            ("exf8N+", "e7f8n"),
            ("exf8=N", "e7f8n"),
            ("ef8=N", "e7f8n"),
        ],
    );
    // Coordinate promotions go through the generic reader.
    assert_eq!(parse_move(&p, "e7f8n"), Ok(mv(&p, "e7f8n")));
    assert_eq!(parse_move(&p, "e7e8q"), Ok(mv(&p, "e7e8q")));
}

#[test]
fn every_legal_move_round_trips_in_tricky_positions() {
    for text in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        // Many queens: heavy disambiguation.
        "Q2Q4/8/7k/Q2Q4/8/8/8/7K w - - 0 1",
        // Pawns promoting with and without capture, from several files.
        "2r1r3/1P1P1P2/8/7k/K7/8/1p1p1p2/8 w - - 0 1",
        "2r1r3/1P1P1P2/8/7k/K7/8/1p1p1p2/2R1R3 b - - 0 1",
    ] {
        let p = pos(text);
        let legal = p.legal_moves();
        let written = all_san(&p);
        let mut unique = written.clone();
        unique.dedup();
        assert_eq!(unique.len(), written.len(), "two moves share a SAN string in {text}");
        for &m in legal.iter() {
            let s = san::format(&p, m);
            assert_eq!(san::parse(&p, &s), Ok(m), "'{s}' in {text}");
        }
    }
}

// ----- errors ----------------------------------------------------------------

#[test]
fn ambiguous_input() {
    let p = pos("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
    assert_eq!(san::parse(&p, "Nd2"), Err(MoveError::Ambiguous("Nd2".into())));
    assert_eq!(parse_move(&p, "Nd2"), Err(MoveError::Ambiguous("Nd2".into())));
    let p = pos("4k3/8/8/8/8/Q7/8/Q1Q4K w - - 0 1");
    assert_eq!(san::parse(&p, "Qb2"), Err(MoveError::Ambiguous("Qb2".into())));
    // 'a' leaves two queens (a1, a3); '1' leaves two queens (a1, c1).
    assert_eq!(san::parse(&p, "Qab2"), Err(MoveError::Ambiguous("Qab2".into())));
    assert_eq!(san::parse(&p, "Q1b2"), Err(MoveError::Ambiguous("Q1b2".into())));
    assert_eq!(san::parse(&p, "Qa1b2"), Ok(mv(&p, "a1b2")));
    let e = san::parse(&p, "Qb2").unwrap_err();
    assert!(e.to_string().contains("ambiguous"), "{e}");
    // A promotion without the piece is ambiguous between the four choices? No:
    // it is not one of the legal moves' forms and must not pick one silently.
    let p = pos("5r2/4P3/6k1/8/8/8/8/4K3 w - - 0 1");
    assert!(san::parse(&p, "e8").is_err(), "'e8' must not pick a promotion piece");
}

#[test]
fn illegal_input() {
    let p = AnyPosition::start(V);
    for text in ["Nf6", "e5", "Ke2", "Qh5", "Bb5", "Nd2", "exd3", "e8=Q", "Ra3", "e4=Q"] {
        match san::parse(&p, text) {
            Err(MoveError::Illegal { mv, reason }) => {
                assert_eq!(mv, text);
                assert!(!reason.is_empty());
            }
            other => panic!("'{text}': expected Illegal, got {other:?}"),
        }
    }
    // Moving into check.
    let p = pos("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1");
    assert_eq!(san::parse(&p, "Kxe2"), Ok(mv(&p, "e1e2")));
    assert_eq!(san::parse(&p, "Kd1"), Ok(mv(&p, "e1d1")));
    // A missing 'x' is tolerated.
    reads(&p, "Ke2", "e1e2");
    for text in ["Kf2", "Kd2", "Kxf2"] {
        assert!(matches!(san::parse(&p, text), Err(MoveError::Illegal { .. })), "{text}");
    }
    // After mate nothing is legal.
    let p = pos("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    match san::parse(&p, "e4") {
        Err(MoveError::Illegal { reason, .. }) => assert!(reason.contains("over"), "{reason}"),
        other => panic!("expected Illegal, got {other:?}"),
    }
}

#[test]
fn illegal_castling_is_illegal_not_syntax() {
    let p = AnyPosition::start(V);
    for text in ["O-O", "O-O-O", "0-0", "0-0-0"] {
        assert!(matches!(san::parse(&p, text), Err(MoveError::Illegal { .. })), "{text}: {:?}", san::parse(&p, text));
    }
}

#[test]
fn moves_naming_squares_off_the_board() {
    let chess = AnyPosition::start(V);
    for (text, square) in [("zz9", "z9"), ("e2e9", "e9"), ("i2i4", "i2"), ("a0a1", "a0"), ("Ni3", "i3"), ("e8=Q9", "")]
    {
        let r = parse_move(&chess, text);
        if square.is_empty() {
            assert!(!matches!(r, Err(MoveError::OffBoard { .. })), "{text}: {r:?}");
            continue;
        }
        match r {
            Err(MoveError::OffBoard { mv, square: s, files: 8, ranks: 8 }) => {
                assert_eq!((mv.as_str(), s.as_str()), (text, square));
            }
            other => panic!("{text}: expected OffBoard, got {other:?}"),
        }
    }
    let e = parse_move(&chess, "e2e9").unwrap_err();
    assert_eq!(e.to_string(), "'e2e9' names the square e9, which is off the 8x8 board");
    // On 10x10 the j file and the tenth rank exist; k and 11 do not.
    let cr = AnyPosition::start(VariantId::CamelRhino);
    assert!(matches!(parse_move(&cr, "j10j9"), Err(MoveError::Illegal { .. })));
    assert!(matches!(parse_move(&cr, "k3k4"), Err(MoveError::OffBoard { files: 10, ranks: 10, .. })));
    assert!(matches!(parse_move(&cr, "a11a10"), Err(MoveError::OffBoard { .. })));
    // Moves on the board are unaffected, in every notation.
    for text in ["e2e4", "e4", "Nf3", "Nbd2", "accept"] {
        assert!(!matches!(parse_move(&chess, text), Err(MoveError::OffBoard { .. })), "{text}");
    }
}

#[test]
fn garbage_input() {
    let p = AnyPosition::start(V);
    for text in ["", "   ", "hello", "x", "K", "+", "!!", "Nf", "N3", "Xf3", "Nf3xyz", "e2e4e6e7", "é4", "N@f3", "--"]
    {
        let r = san::parse(&p, text);
        assert!(matches!(&r, Err(MoveError::Syntax(t)) if t == text), "'{text}': expected Syntax, got {r:?}");
        let r = parse_move(&p, text);
        assert!(matches!(r, Err(MoveError::Syntax(_))), "parse_move('{text}'): expected Syntax, got {r:?}");
    }
    let e = san::parse(&p, "hello").unwrap_err();
    assert_eq!(e.to_string(), "'hello' is not a move in coordinate or SAN form");
}

// ----- rules seen through the notation -----------------------------------------

#[test]
fn en_passant_that_exposes_the_king_is_illegal() {
    // bxc6 e.p. would empty rank 5 between the king on a5 and the rook on h5.
    let p = pos("8/8/8/KPp4r/8/8/8/7k w - c6 0 1");
    assert!(matches!(san::parse(&p, "bxc6"), Err(MoveError::Illegal { .. })));
    assert!(matches!(uci::parse(&p, "b5c6"), Err(MoveError::Illegal { .. })));
    // The move list is the same as without the en passant square.
    assert_eq!(all_san(&p), all_san(&pos("8/8/8/KPp4r/8/8/8/7k w - - 0 1")));
    // Without the rook the capture is fine.
    formats(&pos("8/8/8/KPp5/8/8/8/7k w - c6 0 1"), "b5c6", "bxc6");
    // An en passant capture that removes the checking pawn.
    let p = pos("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1");
    assert!(p.is_check());
    formats(&p, "e4d3", "exd3");
}

#[test]
fn castling_conditions() {
    let legal = |text: &str, coord: &str| uci::parse(&pos(text), coord).is_ok();
    // Free and unattacked: both sides.
    assert!(legal("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1g1"));
    assert!(legal("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1c1"));
    // Through an attacked square (f1), into one (g1 / c1), out of check.
    assert!(!legal("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1g1"));
    assert!(legal("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1c1"));
    assert!(!legal("4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1g1"));
    assert!(!legal("2r1k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1c1"));
    assert!(!legal("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1g1"));
    assert!(!legal("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1c1"));
    // Only the rook crosses b1: an attacked b1 does not stop O-O-O, an occupied one does.
    assert!(legal("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1c1"));
    assert!(!legal("4k3/8/8/8/8/8/8/RN2K2R w KQ - 0 1", "e1c1"));
    // No right, no castling.
    assert!(!legal("4k3/8/8/8/8/8/8/R3K2R w Q - 0 1", "e1g1"));
    // Black, the same.
    assert!(legal("r3k2r/8/8/8/8/8/8/4K3 b kq - 0 1", "e8c8"));
    assert!(!legal("r3k2r/8/8/8/8/8/8/4KR2 b kq - 0 1", "e8g8"));
    // Rights are lost by moving the king or a rook, and by losing a rook.
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let after = |p: &AnyPosition, c: &str| p.play(mv(p, c)).unwrap();
    assert_eq!(fen::format(&after(&p, "h1h8")), "r3k2R/8/8/8/8/8/8/R3K3 b Qq - 0 1");
    assert_eq!(fen::format(&after(&p, "e1e2")), "r3k2r/8/8/8/8/8/4K3/R6R b kq - 1 1");
    assert_eq!(fen::format(&after(&p, "a1a2")), "r3k2r/8/8/8/8/8/R7/4K2R b Kkq - 1 1");
    assert_eq!(fen::format(&after(&p, "e1g1")), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    assert_eq!(fen::format(&after(&p, "e1c1")), "r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1");
}

//! FEN reading, mostly for orthodox chess (plus the reserve counts of the
//! gating variants): one test per typed error (the variant, the field it
//! names, a one-line message that says where the problem is), and the round
//! trips that must succeed.

use menagerie_notation::fen::{self, FenError, FenField};
use menagerie_pieces::Color;
use menagerie_variants::{AnyPosition, PositionError, VariantId};

const V: VariantId = VariantId::Chess;
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Parses `text`, which must fail; checks the message is one line that
/// mentions `mentions` (case-insensitive) and returns the error.
#[track_caller]
fn fails(text: &str, mentions: &str) -> FenError {
    let e = match fen::parse(V, text) {
        Ok(p) => panic!("'{text}' parsed as {}", fen::format(&p)),
        Err(e) => e,
    };
    let msg = e.to_string();
    assert!(!msg.is_empty() && !msg.contains('\n'), "message of '{text}' is not one line: {msg:?}");
    assert!(
        msg.to_lowercase().contains(&mentions.to_lowercase()),
        "message of '{text}' does not mention '{mentions}': {msg}"
    );
    e
}

/// Parses `text`, which must fail on the board's rank `rank` (named in
/// the message; the field is the board); returns the error.
#[track_caller]
fn bad_rank(text: &str, rank: u32) -> FenError {
    let e = fails(text, &format!("rank {rank}"));
    assert!(matches!(e, FenError::Rank { rank: r, .. } if r == rank), "{e:?}");
    assert_eq!(e.field(), Some(FenField::Board));
    e
}

/// Parses `text`, which must fail on `color` having `count` kings; returns
/// the error.
#[track_caller]
fn king_count(text: &str, color: Color, count: u32) -> FenError {
    let e = fails(text, "kings");
    assert_position(&e, PositionError::KingCount { color, count });
    e
}

/// Parses `text`, which must fail on its field `field` holding `value`
/// (the message mentions `mentions`); returns the error.
#[track_caller]
fn bad_field(text: &str, mentions: &str, field: FenField, value: &str) -> FenError {
    let e = fails(text, mentions);
    assert_field(&e, field, value);
    e
}

/// Parses `text`, which must fail on its en passant square `square`.
#[track_caller]
fn bad_en_passant(text: &str, square: &str) {
    let e = fails(text, "en passant");
    assert!(matches!(&e, FenError::Position(PositionError::EnPassant { square: s, .. }) if s == square), "{e:?}");
}

/// Asserts `e` is a `FenError::Field` about `field`, holding `value`.
#[track_caller]
fn assert_field(e: &FenError, field: FenField, value: &str) {
    match e {
        FenError::Field { field: f, value: v, .. } => {
            assert_eq!(*f, field, "{e}");
            assert_eq!(v, value, "{e}");
        }
        other => panic!("expected a {field} field error, got {other:?}"),
    }
    assert_eq!(e.field(), Some(field));
}

/// Asserts `e` is a position error equal to `want`, about no single field.
#[track_caller]
fn assert_position(e: &FenError, want: PositionError) {
    assert_eq!(e, &FenError::Position(want));
    assert_eq!(e.field(), None);
}

// ----- field count -----------------------------------------------------------

#[test]
fn empty_fen() {
    assert_eq!(fen::parse(V, ""), Err(FenError::Empty));
    assert_eq!(fen::parse(V, "   \t "), Err(FenError::Empty));
    assert_eq!(FenError::Empty.field(), None);
    // The CLI's reader treats an empty FEN as the start position instead.
    assert_eq!(fen::parse_or_start(V, "  "), Ok(AnyPosition::start(V)));
}

#[test]
fn wrong_field_count() {
    for (text, n) in [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", 1),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w", 2),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", 3),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0", 5),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", 7),
    ] {
        let e = fails(text, "fields");
        assert_eq!(e, FenError::FieldCount(n), "{text}");
        assert_eq!(e.field(), None);
        assert!(e.to_string().contains(&n.to_string()), "{e}");
    }
}

// ----- side to move ----------------------------------------------------------

#[test]
fn bad_side_to_move() {
    for side in ["x", "W", "B", "white", "-"] {
        let text = format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR {side} KQkq - 0 1");
        let e = bad_field(&text, "side to move", FenField::Side, side);
        assert!(e.to_string().contains(&format!("'{side}'")), "{e}");
    }
}

// ----- castling --------------------------------------------------------------

#[test]
fn bad_castling_character() {
    for (rights, bad) in [("KQxq", 'x'), ("A", 'A'), ("KQkq-", '-'), ("kqKQ1", '1'), ("HAha", 'H')] {
        let text = format!("r3k2r/8/8/8/8/8/8/R3K2R w {rights} - 0 1");
        let e = bad_field(&text, "castling", FenField::Castling, rights);
        assert!(e.to_string().contains(&format!("'{bad}'")), "{e}");
    }
}

#[test]
fn duplicate_castling_character() {
    for rights in ["KK", "KQkqK", "qq"] {
        let text = format!("r3k2r/8/8/8/8/8/8/R3K2R w {rights} - 0 1");
        let e = bad_field(&text, "castling", FenField::Castling, rights);
        assert!(e.to_string().contains("twice"), "{e}");
    }
}

#[test]
fn castling_order_is_free_on_input_and_canonical_on_output() {
    let p = fen::parse(V, "r3k2r/8/8/8/8/8/8/R3K2R w qkQK - 0 1").unwrap();
    assert_eq!(fen::format(&p), "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
}

#[test]
fn castling_right_without_king_or_rook() {
    // Each right with its rook missing.
    for (board, right) in [
        ("r3k2r/8/8/8/8/8/8/R3K3", 'K'),
        ("r3k2r/8/8/8/8/8/8/4K2R", 'Q'),
        ("r3k3/8/8/8/8/8/8/R3K2R", 'k'),
        ("4k2r/8/8/8/8/8/8/R3K2R", 'q'),
    ] {
        let text = format!("{board} w KQkq - 0 1");
        let e = fails(&text, "castling");
        assert_position(&e, PositionError::CastlingRight(right));
        assert!(e.to_string().contains(&format!("'{right}'")), "{e}");
    }
    // The king off its square (a rook of the wrong colour does not count either).
    let e = fails("r3k2r/8/8/8/8/8/8/R2K3R w KQ - 0 1", "castling");
    assert_position(&e, PositionError::CastlingRight('K'));
    let e = fails("r3k2r/8/8/8/8/8/8/R3K2r w K - 0 1", "castling");
    assert_position(&e, PositionError::CastlingRight('K'));
    // Only the rights given are checked.
    assert!(fen::parse(V, "r3k2r/8/8/8/8/8/8/R3K3 w Qkq - 0 1").is_ok());
}

// ----- en passant ------------------------------------------------------------

#[test]
fn en_passant_on_the_wrong_rank() {
    // White to move: the target must be on rank 6; Black to move: rank 3.
    let e = fails("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 2", "en passant");
    assert_position(
        &e,
        PositionError::EnPassant { square: "e3".into(), reason: "not on the rank a double step passes" },
    );
    bad_en_passant("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e6 0 2", "e6");
    bad_en_passant("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e5 0 2", "e5");
}

/// Found by the fuzzer: an en passant square while the prelude is pending
/// was accepted, and the hash after the prelude action disagreed with the
/// hash from scratch. The prelude comes before White's first move, so no
/// double step can precede it.
#[test]
fn en_passant_during_the_prelude() {
    for (variant, fen) in [
        (VariantId::Alpaca, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[Aa?] b KQkq e3"),
        (VariantId::Alpaca, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[a] b KQkq e3 0 1"),
        (VariantId::Alseid, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[Ss?] b KQkq e3 0 1"),
    ] {
        let e = fen::parse(variant, fen).unwrap_err();
        assert_position(
            &e,
            PositionError::EnPassant { square: "e3".into(), reason: "no double step can come before the prelude ends" },
        );
    }
    // After the prelude, en passant squares are as in chess.
    let after = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[A@ga@b] b KQkq e3 0 1";
    assert!(fen::parse(VariantId::Alpaca, after).is_ok());
}

#[test]
fn en_passant_without_the_pawn_in_front() {
    // Black to move, e3 given, but no white pawn on e4.
    let e = fails(&START.replace("w KQkq -", "b KQkq e3"), "en passant");
    assert_position(
        &e,
        PositionError::EnPassant {
            square: "e3".into(),
            reason: "no pawn that just made a double step stands in front of it",
        },
    );
    // A pawn of the wrong colour in front does not count.
    bad_en_passant("rnbqkbnr/pppp1ppp/8/8/4p3/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1", "e3");
}

#[test]
fn en_passant_with_occupied_crossed_squares() {
    // White pawn on e4, but something stands on e3 (the target) or e2 (the origin).
    bad_en_passant("rnbqkbnr/pppppppp/8/8/4P3/4N3/PPPP1PPP/RNBQKB1R b KQkq e3 0 1", "e3");
    bad_en_passant("rnbqkbnr/pppppppp/8/8/4P3/8/PPPPNPPP/RNBQKB1R b KQkq e3 0 1", "e3");
}

#[test]
fn en_passant_off_the_board() {
    for sq in ["e9", "i6", "e0", "z3", "e", "3", "e33", "E6", "e-6"] {
        let text = format!("rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq {sq} 0 3");
        bad_field(&text, "en passant", FenField::EnPassant, sq);
    }
}

// ----- clocks ----------------------------------------------------------------

#[test]
fn bad_halfmove_clock() {
    for clock in ["-1", "x", "1.5", "+3", "½"] {
        let text = format!("{} {clock} 1", &START[..START.len() - 4]);
        bad_field(&text, "halfmove", FenField::Halfmove, clock);
    }
    bad_field(&format!("{} 99999999999 1", &START[..START.len() - 4]), "halfmove", FenField::Halfmove, "99999999999");
}

#[test]
fn bad_fullmove_number() {
    for number in ["-1", "x", "1.5", "one", "99999999999"] {
        let text = format!("{} {number}", &START[..START.len() - 2]);
        bad_field(&text, "fullmove", FenField::Fullmove, number);
    }
}

#[test]
fn fullmove_zero() {
    let e = fails(&format!("{} 0", &START[..START.len() - 2]), "fullmove");
    assert_eq!(e.field(), Some(FenField::Fullmove));
    assert!(matches!(&e, FenError::Field { field: FenField::Fullmove, .. }));
}

// ----- board -----------------------------------------------------------------

#[test]
fn rank_too_long() {
    let e = bad_rank("rnbqkbnrr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 8);
    assert!(matches!(&e, FenError::Rank { value, .. } if value == "rnbqkbnrr"), "{e:?}");
    bad_rank("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6);
    let e = bad_rank("rnbqkbnr/pppppppp/8/8/8/4P4/PPPP1PPP/RNBQKBNR w KQkq - 0 1", 3);
    assert!(e.to_string().contains("board"), "{e}");
}

#[test]
fn rank_too_short() {
    let e = bad_rank("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPP/RNBQKBNR w KQkq - 0 1", 2);
    assert!(matches!(&e, FenError::Rank { value, .. } if value == "PPPPPPP"), "{e:?}");
    bad_rank("rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6);
    // An empty rank (two slashes in a row).
    bad_rank("rnbqkbnr/pppppppp//8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6);
    // A zero count, alone or as a leading zero (which would not format back).
    for board in [
        "rnbqkbnr/pppppppp/08/8/8/8/PPPPPPPP/RNBQKBNR",
        "rnbqkbnr/pppppppp/0/8/8/8/PPPPPPPP/RNBQKBNR",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN0R",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQK01NR",
    ] {
        let e = fails(&format!("{board} w KQkq - 0 1"), "board rank");
        assert!(matches!(e, FenError::Rank { rank: 6 | 1, .. }), "{e:?}");
    }
}

#[test]
fn wrong_number_of_ranks() {
    for board in ["rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR", "rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR"] {
        let e = bad_field(&format!("{board} w KQkq - 0 1"), "board", FenField::Board, board);
        assert!(e.to_string().contains("ranks"), "{e}");
    }
}

#[test]
fn unknown_piece_letter() {
    let e = bad_rank("rnbqkbnr/ppppXppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 7);
    assert!(matches!(&e, FenError::Rank { value, .. } if value == "ppppXppp"), "{e:?}");
    assert!(e.to_string().contains("'X'"), "{e}");
    bad_rank("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQK?NR w KQkq - 0 1", 1);
}

#[test]
fn fairy_piece_in_chess() {
    // 'S' (Alseid) and the other fairy letters are pieces, just not chess pieces.
    let e = fails("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBSR w KQkq - 0 1", "g1");
    assert_position(&e, PositionError::PieceNotInVariant { piece: 'S', square: "g1".into(), variant: "chess" });
    assert!(e.to_string().contains("chess"), "{e}");
    for (letter, square) in [('a', "a6"), ('C', "a3"), ('h', "a6"), ('Z', "a3"), ('W', "a3")] {
        let board = if letter.is_ascii_uppercase() {
            format!("rnbqkbnr/pppppppp/8/8/8/{letter}7/PPPPPPPP/RNBQKBNR")
        } else {
            format!("rnbqkbnr/pppppppp/{letter}7/8/8/8/PPPPPPPP/RNBQKBNR")
        };
        let e = fails(&format!("{board} w KQkq - 0 1"), square);
        assert!(
            matches!(&e, FenError::Position(PositionError::PieceNotInVariant { piece, square: s, .. }) if *piece == letter && s == square),
            "{e:?}"
        );
    }
}

#[test]
fn two_kings() {
    let e = king_count("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w - - 0 1", Color::White, 2);
    assert!(e.to_string().contains("White"), "{e}");
    king_count("kk6/8/8/8/8/8/8/K7 w - - 0 1", Color::Black, 2);
}

#[test]
fn no_king() {
    let e = king_count("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", Color::Black, 0);
    assert!(e.to_string().contains("Black"), "{e}");
    king_count("8/8/8/8/8/8/8/8 w - - 0 1", Color::White, 0);
}

#[test]
fn pawn_on_first_or_last_rank() {
    for (board, square) in [
        ("4k3/8/8/8/8/8/8/P3K3", "a1"),
        ("P3k3/8/8/8/8/8/8/4K3", "a8"),
        ("4k2p/8/8/8/8/8/8/4K3", "h8"),
        ("4k3/8/8/8/8/8/8/4K2p", "h1"),
    ] {
        let e = fails(&format!("{board} w - - 0 1"), square);
        assert_position(&e, PositionError::PawnOnBackRank(square.into()));
        assert!(e.to_string().contains("pawn"), "{e}");
    }
}

#[test]
fn side_not_to_move_in_check() {
    // Black is in check from the queen on e2, but it is White's move.
    let e = fails("4k3/8/8/8/8/8/4Q3/4K3 w - - 0 1", "check");
    assert_position(&e, PositionError::OppositeCheck(Color::White));
    assert_eq!(e.to_string(), "invalid position: Black is in check but it is White's move");
    // And the other way round (a pawn's check).
    let e = fails("4k3/8/8/8/8/8/3p4/4K3 b - - 0 1", "check");
    assert_position(&e, PositionError::OppositeCheck(Color::Black));
    // The side to move may be in check.
    assert!(fen::parse(V, "4k3/8/8/8/8/8/4Q3/4K3 b - - 0 1").unwrap().is_check());
}

#[test]
fn reserve_bracket_in_chess() {
    for bracket in ["[Aa]", "[Aa?]", "[A@ga@g]", "[]"] {
        let text = format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR{bracket} w KQkq - 0 1");
        let e = fails(&text, "reserve");
        assert_position(&e, PositionError::NoReserve("chess"));
    }
    // An unclosed bracket is a syntax error in the reserve field.
    bad_field("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa w KQkq - 0 1", "reserve", FenField::Reserve, "[Aa");
}

// ----- reserve counts (gating variants) --------------------------------------

/// Parses `text` as `v`, which must fail with a reserve field error whose
/// one-line message says `says` and stays short; returns the quoted value.
#[track_caller]
fn reserve_error(v: VariantId, text: &str, says: &str) -> String {
    let e = match fen::parse(v, text) {
        Ok(p) => panic!("{v} '{}…' parsed as {}", &text[..text.len().min(80)], fen::format(&p)),
        Err(e) => e,
    };
    assert_eq!(e.field(), Some(FenField::Reserve), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains(says), "{msg}");
    assert!(!msg.contains('\n') && msg.len() < 200, "message too long: {} bytes", msg.len());
    match e {
        FenError::Field { value, .. } => value,
        other => panic!("{other:?}"),
    }
}

#[test]
fn reserve_counts_do_not_wrap_at_256() {
    // 256 and 257 black Alseids in hand: formerly counted in a byte, so 257
    // read as one (the normal start) and 256 as none.
    let board = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    for n in [2, 255, 256, 257, 513] {
        let bracket = format!("S{}?", "s".repeat(n));
        let text = format!("{board}[{bracket}] w KQkq - 0 1");
        let value = reserve_error(VariantId::Alseid, &text, &format!("Black has {n} reserve pieces; alseid allows 1"));
        if bracket.chars().count() <= 64 {
            assert_eq!(value, bracket);
        } else {
            assert_eq!(value, format!("{}…", &bracket[..64]));
        }
    }
    // The same for White, before Black's entries, and placed entries count too.
    reserve_error(
        VariantId::Alpaca2,
        &format!("{board}[{}aa] b KQkq - 0 1", "A@b".repeat(257)),
        "White has 257 reserve pieces; alpaca2 allows 2",
    );
    // The normal start is still read as such.
    let start = fen::parse(VariantId::Alseid, &format!("{board}[Ss?] w KQkq - 0 1")).unwrap();
    assert_eq!(start, AnyPosition::start(VariantId::Alseid));
}

#[test]
fn megabyte_reserve_is_rejected_with_a_short_message() {
    // 2^20 white Alpacas: a multiple of 256, formerly read as `[]`.
    let text = format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[{}] w KQkq - 0 1", "A".repeat(1 << 20));
    let value = reserve_error(VariantId::Alpaca, &text, "White has 1048576 reserve pieces; alpaca allows 1");
    assert_eq!(value, format!("{}…", "A".repeat(64)));
}

#[test]
fn reserve_count_is_checked_on_setup_data_too() {
    // A Setup built by a program, not read from a FEN: the position check
    // counts without wrapping as well.
    let mut setup = fen::parse_setup(VariantId::Alseid, "4k3/8/8/8/8/8/8/4K3[s] b - - 0 1").unwrap();
    let entry = setup.reserve.as_ref().unwrap().entries[0];
    setup.reserve.as_mut().unwrap().entries = vec![entry; 257];
    assert_eq!(
        AnyPosition::from_setup(VariantId::Alseid, &setup),
        Err(PositionError::ReserveCount { color: Color::Black, count: 257, max: 1, variant: "alseid" })
    );
}

#[test]
fn long_field_texts_are_cut_in_errors() {
    let digits = "9".repeat(100_000);
    bad_field(
        &format!("{} {digits} 1", &START[..START.len() - 4]),
        "halfmove",
        FenField::Halfmove,
        &format!("{}…", &digits[..64]),
    );
    let rank = "p".repeat(100_000);
    let e = fails(&format!("rnbqkbnr/{rank}/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"), "rank 7");
    assert!(matches!(&e, FenError::Rank { rank: 7, value, .. } if *value == format!("{}…", &rank[..64])), "{e:?}");
    assert!(e.to_string().len() < 200, "{e}");
}

// ----- what must be accepted -------------------------------------------------

#[test]
fn four_field_fen_gets_clocks_0_1() {
    let p = fen::parse(V, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -").unwrap();
    assert_eq!(p, AnyPosition::start(V));
    assert_eq!(fen::format(&p), START);
    let p = fen::parse(V, "r3k2r/8/8/8/8/8/8/R3K2R b Kq -").unwrap();
    assert_eq!(fen::format(&p), "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 0 1");
    assert_eq!(p.halfmove_clock(), 0);
}

#[test]
fn extra_whitespace_is_tolerated() {
    let p = fen::parse(V, "  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR   w  KQkq -  0   1 \n").unwrap();
    assert_eq!(fen::format(&p), START);
}

#[test]
fn canonical_fens_round_trip() {
    let suite = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/perft/chess-standard.epd"))
        .expect("standard suite");
    let mut standard: Vec<String> = suite
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split(';').next().unwrap_or("").trim().to_string())
        .collect();
    assert_eq!(standard.len(), 6);
    standard.extend(
        [
            START,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/4K3 b - - 99 150",
            "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 12 40",
            "8/P6k/8/8/8/8/6Kp/8 b - - 0 70",
            "7k/8/8/8/8/8/8/K7 w - - 4294967295 4294967295",
        ]
        .map(String::from),
    );
    for text in &standard {
        let p = fen::parse(V, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(&fen::format(&p), text);
        assert_eq!(p.hash(), p.compute_hash(), "{text}");
        // The setup data round-trips too.
        let setup = fen::parse_setup(V, text).unwrap();
        assert_eq!(&fen::format_setup(&setup), text);
        assert_eq!(AnyPosition::from_setup(V, &setup), Ok(p));
        let mut back = p.to_setup();
        assert_eq!(&fen::format_setup(&back), text);
        back.pieces.sort_by_key(|&(sq, _)| sq.0);
        let mut sorted = setup.clone();
        sorted.pieces.sort_by_key(|&(sq, _)| sq.0);
        assert_eq!(back, sorted, "{text}");
    }
}

#[test]
fn start_fen_is_the_start_position() {
    assert_eq!(V.start_fen(), START);
    assert_eq!(fen::parse(V, START), Ok(AnyPosition::start(V)));
    assert_eq!(fen::format(&AnyPosition::start(V)), START);
}

#[test]
fn en_passant_square_without_possible_capture_round_trips() {
    // After 1.e4 no black pawn can take on e3; the square is still written
    // (RULES.md §0) and read back, and it does not change the Zobrist key.
    let with = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    let without = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let p = fen::parse(V, with).unwrap();
    assert_eq!(fen::format(&p), with);
    let q = fen::parse(V, without).unwrap();
    assert_eq!(fen::format(&q), without);
    assert_eq!(p.hash(), q.hash(), "an en passant square nobody can use must not change the key");
    assert_eq!(p.perft(3), q.perft(3));

    // Playing 1.e4 from the start writes the square the same way.
    let start = AnyPosition::start(V);
    let e4 = menagerie_notation::uci::parse(&start, "e2e4").unwrap();
    let after = start.play(e4).unwrap();
    assert_eq!(fen::format(&after), with);
    assert_eq!(after.hash(), p.hash());
}

#[test]
fn en_passant_square_with_possible_capture_changes_the_key() {
    let with = "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3";
    let without = "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3";
    let p = fen::parse(V, with).unwrap();
    let q = fen::parse(V, without).unwrap();
    assert_eq!(fen::format(&p), with);
    assert_ne!(p.hash(), q.hash());
    assert_eq!(p.count_legal(), q.count_legal() + 1, "exd6 e.p. is the one extra move");
}

#[test]
fn setup_level_errors_are_the_same_through_parse_setup() {
    // parse_setup does the syntax checks only; the position checks come from from_setup.
    let setup = fen::parse_setup(V, "4k3/8/8/8/8/8/4Q3/4K3 w - - 0 1").unwrap();
    assert_eq!(AnyPosition::from_setup(V, &setup), Err(PositionError::OppositeCheck(Color::White)));
    assert!(matches!(fen::parse_setup(V, "4k3/8/8/8/8/8/4Q3/4K3 x - - 0 1"), Err(FenError::Field { .. })));
}

#[test]
fn clocks_at_their_maximum_do_not_overflow() {
    let p = fen::parse(V, "7k/8/8/8/8/8/8/K7 b - - 4294967295 4294967295").unwrap();
    let m = menagerie_notation::uci::parse(&p, "h8g8").unwrap();
    let after = p.play(m).unwrap();
    // Whatever the engine does at the limit, the result must be a valid FEN.
    let text = fen::format(&after);
    assert!(fen::parse(V, &text).is_ok(), "{text}");
}

// ----- forms other programs write --------------------------------------------

/// The FENs XBoard 4.9, Fairy-Stockfish and pyffish write for Menagerie's
/// games, byte for byte as they wrote them (XBoard: its `setboard` and
/// saved-position files under Xvfb; Fairy-Stockfish: `d`; pyffish 0.0.90:
/// `get_fen`), each read as the position it stands for.
#[test]
fn fens_xboard_fairy_stockfish_and_pyffish_write() {
    use menagerie_variants::VariantId::CamelRhino;
    let start = AnyPosition::start(CamelRhino);
    // XBoard omits the castling field on a board without castling.
    let xboard = "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - 0 1";
    assert_eq!(fen::parse(CamelRhino, xboard), Ok(start));
    let later = "r8r/1hzbqkbnc1/pppp2pppp/5w4/4w5/10/3W1W4/PPPP2PPPP/1HZBQKBNC1/R8R w - 2 2";
    let p = fen::parse(CamelRhino, later).unwrap();
    assert_eq!(fen::format(&p), "r8r/1hzbqkbnc1/pppp2pppp/5w4/4w5/10/3W1W4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 2 2");
    // Neither castling nor en passant (XBoard's form for variants without them).
    assert_eq!(
        fen::parse(CamelRhino, "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w 0 1"),
        Ok(start)
    );
    // pyffish (camel-rhino's plain movement as a Fairy-Stockfish variant).
    let pyffish = "r8r/1hzbqkbnc1/pppp2ppp1/4ww4/9p/P9/4WW4/1PPP2PPPP/1HZBQKBNC1/R8R w - - 0 2";
    assert_eq!(fen::format(&fen::parse(CamelRhino, pyffish).unwrap()), pyffish);
    // Fairy-Stockfish and pyffish in orthodox chess and its Alpaca twin.
    for (v, text) in [
        (V, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
        (V, "rnbqkbnr/pp2pppp/8/2ppP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"),
        (menagerie_variants::VariantId::Alpaca, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
    ] {
        assert_eq!(fen::format(&fen::parse(v, text).unwrap()), text);
    }
    // A field missing elsewhere is still an error.
    assert_eq!(fen::parse(V, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0"), Err(FenError::FieldCount(5)));
}

use crate::*;
use menagerie_geometry::{Bits, Board8x8, Board10x10, Shape, Square};
use proptest::prelude::*;

fn set<S: Shape>(names: &str) -> S::Bits {
    names
        .split_whitespace()
        .map(|n| S::parse_square(n).unwrap_or_else(|| panic!("bad square {n}")))
        .fold(S::Bits::ZERO, |acc, s| acc | S::Bits::bit(s))
}

fn names<S: Shape>(b: S::Bits) -> Vec<String> {
    b.iter().map(S::square_name).collect()
}

fn sq<S: Shape>(n: &str) -> Square {
    S::parse_square(n).unwrap()
}

const W: Color = Color::White;
const B: Color = Color::Black;

fn p(c: Color, k: PieceKind) -> Piece {
    Piece::new(c, k)
}

#[test]
fn letters_codes_and_values() {
    for k in PieceKind::ALL {
        assert_eq!(PieceKind::from_letter(k.letter()), Some(k));
        for c in Color::ALL {
            let pc = Piece::new(c, k);
            assert_eq!(Piece::from_char(pc.char()), Some(pc));
            assert_eq!(Piece::from_code(pc.code()), Some(pc));
        }
    }
    assert_eq!(
        "KQRBNPASCHZW".chars().map(|c| PieceKind::from_letter(c).unwrap().letter()).collect::<String>(),
        "KQRBNPASCHZW"
    );
    assert_eq!(Piece::from_char('h'), Some(p(B, PieceKind::Rhino)));
    assert_eq!(Piece::from_char('x'), None);
    assert_eq!(PieceKind::Alpaca.value(), 200);
    assert_eq!(PieceKind::Alseid.value(), PieceKind::Knight.value());
}

#[test]
fn alpaca_wmd_8x8() {
    let a = p(W, PieceKind::Alpaca);
    let d4 = sq::<Board8x8>("d4");
    assert_eq!(Board8x8::attacks(a, d4, 0), set::<Board8x8>("d5 d3 c4 e4"));
    // The jump passes over anything, but only to an empty square.
    let occ = set::<Board8x8>("d5 d6 c4 f4");
    assert_eq!(Board8x8::quiet_moves(a, d4, occ), set::<Board8x8>("d3 d2 e4 b4"));
    // The jump never captures: on d6 it is not an attack.
    assert!(!Board8x8::attacks(a, d4, occ).has(sq::<Board8x8>("d6")));
    assert_eq!(Board8x8::quiet_moves(a, sq::<Board8x8>("a1"), 0), set::<Board8x8>("a2 a3 b1 c1"));
    assert_eq!(PieceKind::Alpaca.movement().betza, "WmD");
}

#[test]
fn alseid_moves_like_queen_but_never_attacks() {
    let s = p(B, PieceKind::Alseid);
    let d4 = sq::<Board8x8>("d4");
    assert_eq!(Board8x8::attacks(s, d4, 0), 0);
    let occ = set::<Board8x8>("d6 f6");
    let q = Board8x8::quiet_moves(s, d4, occ);
    assert_eq!(q.popcnt(), 27 - 3 - 3);
    assert!(q.has(sq::<Board8x8>("d5")) && !q.has(sq::<Board8x8>("d6")) && !q.has(sq::<Board8x8>("g7")));
}

/// The squares the 10x10 leap of `piece` from `from` to `to` passes.
fn leap_path(piece: Piece, from: &str, to: &str) -> Vec<String> {
    let to = sq::<Board10x10>(to);
    let leaps = Board10x10::pieces().leaps(piece, sq::<Board10x10>(from));
    let leap = leaps.iter().find(|l| l.to == to).unwrap();
    leap.path().iter().map(|&s| Board10x10::square_name(s)).collect()
}

/// Camel: ferz plus the (1,3) leap; Rhino: wazir plus the (2,3) leap; the
/// squares each leap passes.
#[test]
fn camel_and_rhino_on_10x10() {
    let e5 = sq::<Board10x10>("e5");
    for (piece, targets, leaps) in [
        (p(W, PieceKind::Camel), "d4 f4 d6 f6 f8 d8 f2 d2 h6 h4 b6 b4", [("f8", ["e6", "e7"]), ("h6", ["f5", "g5"])]),
        (p(B, PieceKind::Rhino), "e6 e4 d5 f5 g8 c8 g2 c2 h7 h3 b7 b3", [("g8", ["f6", "g7"]), ("h3", ["f4", "g3"])]),
    ] {
        assert_eq!(Board10x10::attacks(piece, e5, 0), set::<Board10x10>(targets), "{piece:?}");
        assert_eq!(Board10x10::quiet_moves(piece, e5, 0), set::<Board10x10>(targets), "{piece:?}");
        for (to, path) in leaps {
            assert_eq!(leap_path(piece, "e5", to), path, "{piece:?} to {to}");
        }
    }
}

#[test]
fn knight_and_zebra_same_leap_different_path() {
    for c in Color::ALL {
        let n = p(c, PieceKind::Knight);
        let z = p(c, PieceKind::Zebra);
        for s in 0..100 {
            assert_eq!(Board10x10::attacks(n, Square(s), 0), Board10x10::attacks(z, Square(s), 0));
        }
        for s in 0..64 {
            assert_eq!(Board8x8::attacks(n, Square(s), 0), Board8x8::attacks(z, Square(s), 0));
        }
    }
    assert_eq!(leap_path(p(W, PieceKind::Knight), "e5", "g6"), ["f5"]);
    assert_eq!(leap_path(p(W, PieceKind::Zebra), "e5", "g6"), ["f6"]);
    assert_eq!(Board8x8::attacks(p(W, PieceKind::Knight), sq::<Board8x8>("g1"), 0), set::<Board8x8>("e2 f3 h3"));
}

#[test]
fn pawns_by_colour() {
    let wp = p(W, PieceKind::Pawn);
    let bp = p(B, PieceKind::Pawn);
    assert_eq!(Board8x8::attacks(wp, sq::<Board8x8>("e4"), 0), set::<Board8x8>("d5 f5"));
    assert_eq!(Board8x8::attacks(bp, sq::<Board8x8>("e4"), 0), set::<Board8x8>("d3 f3"));
    assert_eq!(Board8x8::attacks(wp, sq::<Board8x8>("a2"), 0), set::<Board8x8>("b3"));
    assert_eq!(Board8x8::quiet_moves(wp, sq::<Board8x8>("e4"), 0), set::<Board8x8>("e5"));
    assert_eq!(Board10x10::quiet_moves(bp, sq::<Board10x10>("j8"), 0), set::<Board10x10>("j7"));
    assert_eq!(Board10x10::attacks(bp, sq::<Board10x10>("j8"), 0), set::<Board10x10>("i7"));
}

#[test]
fn king_queen_rook_bishop_wazir() {
    let e4 = sq::<Board8x8>("e4");
    assert_eq!(Board8x8::attacks(p(W, PieceKind::King), e4, 0), set::<Board8x8>("d3 e3 f3 d4 f4 d5 e5 f5"));
    assert_eq!(Board8x8::attacks(p(W, PieceKind::Queen), e4, 0).popcnt(), 27);
    let occ = set::<Board8x8>("e6 g4");
    assert_eq!(Board8x8::attacks(p(B, PieceKind::Rook), e4, occ), set::<Board8x8>("e5 e6 f4 g4 a4 b4 c4 d4 e3 e2 e1"));
    assert_eq!(Board8x8::attacks(p(W, PieceKind::Bishop), e4, 0).popcnt(), 13);
    let j10 = sq::<Board10x10>("j10");
    assert_eq!(Board10x10::attacks(p(W, PieceKind::Wazir), j10, 0), set::<Board10x10>("i10 j9"));
    assert_eq!(Board10x10::attacks(p(W, PieceKind::Queen), j10, 0).popcnt(), 27);
    assert_eq!(names::<Board10x10>(Board10x10::attacks(p(W, PieceKind::King), j10, 0)), ["i9", "j9", "i10"]);
}

proptest! {
    #[test]
    fn queen_is_rook_plus_bishop_10x10(s in 0u8..100, a: u128, b: u128) {
        let occ = a & b & Board10x10::ALL;
        let q = Board10x10::attacks(p(W, PieceKind::Queen), Square(s), occ);
        let r = Board10x10::attacks(p(W, PieceKind::Rook), Square(s), occ);
        let bi = Board10x10::attacks(p(W, PieceKind::Bishop), Square(s), occ);
        prop_assert_eq!(q, r | bi);
        // Symmetric leapers: x attacks y iff y attacks x.
        for k in [PieceKind::Knight, PieceKind::Camel, PieceKind::Rhino, PieceKind::Wazir, PieceKind::King, PieceKind::Alpaca] {
            for t in Board10x10::attacks(p(W, k), Square(s), 0).iter() {
                prop_assert!(Board10x10::attacks(p(B, k), t, 0).has(Square(s)));
            }
        }
    }
}

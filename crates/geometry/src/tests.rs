use crate::*;
use proptest::prelude::*;

const ORTH: [Delta; 4] = [DIRECTIONS[0], DIRECTIONS[2], DIRECTIONS[4], DIRECTIONS[6]];
const DIAG: [Delta; 4] = [DIRECTIONS[1], DIRECTIONS[3], DIRECTIONS[5], DIRECTIONS[7]];

#[test]
fn square_names_round_trip_on_both_shapes() {
    for s in 0..64 {
        let name = Board8x8::square_name(Square(s));
        assert_eq!(Board8x8::parse_square(&name), Some(Square(s)));
    }
    for s in 0..100 {
        let name = Board10x10::square_name(Square(s));
        assert_eq!(Board10x10::parse_square(&name), Some(Square(s)));
    }
    assert_eq!(Board10x10::parse_square("j10"), Some(Square(99)));
    assert_eq!(Board10x10::parse_square("a10"), Some(Square(90)));
    assert_eq!(Board8x8::parse_square("a9"), None);
    assert_eq!(Board8x8::parse_square("i1"), None);
    assert_eq!(Board8x8::parse_square("e04"), None);
    assert_eq!(Board8x8::parse_square("e"), None);
    assert_eq!(Board10x10::parse_square("k1"), None);
    assert_eq!(Board10x10::parse_square("a11"), None);
}

#[test]
fn masks_and_shifts() {
    assert_eq!(Board8x8::file_mask(File(7)), 0x8080_8080_8080_8080);
    assert_eq!(Board8x8::rank_mask(Rank(7)), 0xFF00_0000_0000_0000);
    assert_eq!(Board10x10::rank_mask(Rank(9)).popcnt(), 10);
    assert_eq!(Board10x10::rank_mask(Rank(9)).lsb(), 90);
    assert_eq!(Board10x10::file_mask(File(9)).msb(), 99);
    // North of rank 10 leaves the board; east of file j does not wrap.
    assert_eq!(Board10x10::north(Board10x10::rank_mask(Rank(9))), 0);
    let j = Board10x10::file_mask(File(9));
    assert_eq!(Board10x10::east(j), 0);
    assert_eq!(Board10x10::west(j), Board10x10::file_mask(File(8)));
    assert_eq!(Board8x8::west(Board8x8::FILE_A), 0);
}

#[test]
fn empty_board_slider_counts() {
    let d4 = Board8x8::parse_square("d4").unwrap();
    assert_eq!(Board8x8::rook_attacks(d4, 0).popcnt(), 14);
    assert_eq!(Board8x8::bishop_attacks(d4, 0).popcnt(), 13);
    let e5 = Board10x10::parse_square("e5").unwrap();
    assert_eq!(Board10x10::rook_attacks(e5, 0).popcnt(), 18);
    assert_eq!(Board10x10::bishop_attacks(e5, 0).popcnt(), 4 + 4 + 5 + 4);
}

#[test]
fn between_and_line() {
    let sq = |s| Board10x10::parse_square(s).unwrap();
    let b = Board10x10::between(sq("a1"), sq("j10"));
    assert_eq!(b.popcnt(), 8);
    assert!(b.has(sq("e5")));
    assert_eq!(Board10x10::between(sq("a1"), sq("b3")), 0);
    assert_eq!(Board10x10::line(sq("a1"), sq("b3")), 0);
    assert_eq!(Board10x10::line(sq("c1"), sq("c7")).popcnt(), 10);
    let s8 = |s| Board8x8::parse_square(s).unwrap();
    assert_eq!(Board8x8::between(s8("e1"), s8("h1")).popcnt(), 2);
    assert_eq!(Board8x8::line(s8("e1"), s8("h4")).popcnt(), 4);
}

#[test]
fn leaper_tables_clip_at_edges() {
    let knight: Vec<Delta> = [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]
        .iter()
        .map(|&(f, r)| Delta::new(f, r))
        .collect();
    let t8 = Board8x8::leaper_table(&knight);
    assert_eq!(t8[0].popcnt(), 2);
    assert_eq!(t8[27].popcnt(), 8);
    let t10 = Board10x10::leaper_table(&knight);
    assert_eq!(t10[0].popcnt(), 2);
    assert_eq!(t10[99].popcnt(), 2);
    assert_eq!(t10[44].popcnt(), 8);
    // (1,3) leaps on 10x10 from a corner: b4 and d2.
    let camel: Vec<Delta> = [(1, 3), (3, 1)].iter().map(|&(f, r)| Delta::new(f, r)).collect();
    let c = Board10x10::leaper_table(&camel);
    assert_eq!(c[0], (1u128 << 31) | (1u128 << 13));
}

proptest! {
    #[test]
    fn magic_equals_ray_walk_8x8(sq in 0u8..64, occ: u64) {
        prop_assert_eq!(Board8x8::rook_attacks(Square(sq), occ), Board8x8::slow_ride(Square(sq), &ORTH, occ));
        prop_assert_eq!(Board8x8::bishop_attacks(Square(sq), occ), Board8x8::slow_ride(Square(sq), &DIAG, occ));
    }

    #[test]
    fn sparse_magic_equals_ray_walk_8x8(sq in 0u8..64, a: u64, b: u64) {
        let occ = a & b;
        prop_assert_eq!(Board8x8::queen_attacks(Square(sq), occ), Board8x8::slow_ride(Square(sq), &DIRECTIONS, occ));
    }

    #[test]
    fn rays_equal_ray_walk_10x10(sq in 0u8..100, a: u128, b: u128) {
        let occ = a & b & Board10x10::ALL;
        prop_assert_eq!(Board10x10::rook_attacks(Square(sq), occ), Board10x10::slow_ride(Square(sq), &ORTH, occ));
        prop_assert_eq!(Board10x10::bishop_attacks(Square(sq), occ), Board10x10::slow_ride(Square(sq), &DIAG, occ));
    }
}

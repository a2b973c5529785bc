//! Slider attacks on the 10x10 board (`u128`): the implementation we use
//! (first-blocker scans along four precomputed rays) against two
//! alternatives, to justify the choice; and the 8x8 magic lookup for scale.
//!
//! Run with `cargo bench -p menagerie-benches --bench sliders`.
//!
//! - `rays` — `Board10x10::rook_attacks`: per direction, the ray masked by
//!   the occupancy, the nearest blocker by a bit scan, the ray beyond it
//!   removed.
//! - `rank-table+rays` — horizontal attacks from a 10x256 lookup of the
//!   rank's inner occupancy, vertical ones by ray scans.
//! - `walk` — square-by-square walking (the reference implementation).
//!
//! A magic table over `u128` would need a multi-word multiply and tens of
//! megabytes for rooks, so it is not a candidate.

use criterion::{BenchmarkGroup, Criterion, measurement::WallTime};
use menagerie_geometry::{Board8x8, Board10x10, DIRECTIONS, Dir, Shape, Square};
use std::hint::black_box;
use std::ops::BitXor;

/// Horizontal attacks of a slider on file `f` given the occupancy of files b–i of its rank.
struct RankTable([[u16; 256]; 10]);

impl RankTable {
    fn new() -> RankTable {
        let mut t = [[0u16; 256]; 10];
        for (f, row) in t.iter_mut().enumerate() {
            for (inner, slot) in row.iter_mut().enumerate() {
                let occ = (inner as u16) << 1;
                let mut a = 0u16;
                for dir in [-1i32, 1] {
                    let mut x = f as i32 + dir;
                    while (0..10).contains(&x) {
                        a |= 1 << x;
                        if occ & (1 << x) != 0 {
                            break;
                        }
                        x += dir;
                    }
                }
                *slot = a;
            }
        }
        RankTable(t)
    }

    fn rook(&self, sq: Square, occ: u128) -> u128 {
        let (f, r) = (sq.0 % 10, sq.0 / 10);
        let inner = ((occ >> (r as u32 * 10 + 1)) & 0xFF) as usize;
        let horizontal = (self.0[f as usize][inner] as u128) << (r as u32 * 10);
        let g = Board10x10::geometry();
        horizontal | g.ray_attacks(sq, Dir::N, occ) | g.ray_attacks(sq, Dir::S, occ)
    }
}

fn occupancies() -> Vec<u128> {
    let mut seed = 0x1234_5678_9ABC_DEF0u64;
    (0..1024)
        .map(|_| {
            let mut next = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u128
            };
            (next() | next() << 64) & (next() | next() << 64) & Board10x10::ALL
        })
        .collect()
}

/// Benchmarks `attacks` from square `i % squares` with the `i`-th
/// occupancy, over all of them.
fn bench_attacks<B: Copy + Default + BitXor<Output = B>>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    occs: &[B],
    squares: usize,
    attacks: impl Fn(Square, B) -> B,
) {
    g.bench_function(name, |b| {
        b.iter(|| {
            let mut acc = B::default();
            for (i, &o) in occs.iter().enumerate() {
                acc = acc ^ attacks(Square((i % squares) as u8), black_box(o));
            }
            acc
        })
    });
}

fn bench_sliders(c: &mut Criterion) {
    let occs = occupancies();
    let table = RankTable::new();
    let orth = [DIRECTIONS[0], DIRECTIONS[2], DIRECTIONS[4], DIRECTIONS[6]];
    // The alternatives must agree with the implementation in use.
    for (i, &o) in occs.iter().enumerate() {
        let sq = Square((i % 100) as u8);
        assert_eq!(table.rook(sq, o), Board10x10::rook_attacks(sq, o));
        assert_eq!(Board10x10::slow_ride(sq, &orth, o), Board10x10::rook_attacks(sq, o));
    }
    let mut g = c.benchmark_group("rook-10x10");
    bench_attacks(&mut g, "rays", &occs, 100, Board10x10::rook_attacks);
    bench_attacks(&mut g, "rank-table+rays", &occs, 100, |sq, o| table.rook(sq, o));
    bench_attacks(&mut g, "walk", &occs, 100, |sq, o| Board10x10::slow_ride(sq, &orth, o));
    g.finish();
    let occs8: Vec<u64> = occs.iter().map(|&o| o as u64).collect();
    let mut g = c.benchmark_group("rook-8x8");
    bench_attacks(&mut g, "magic", &occs8, 64, Board8x8::rook_attacks);
    g.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_sliders(&mut criterion);
    criterion.final_summary();
}

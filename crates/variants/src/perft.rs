//! Perft: bulk-counting, divide, hashed and multi-threaded.

use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::variant::Variant;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Number of leaf nodes at `depth` (bulk-counted at the last ply).
///
/// On an x86-64 CPU with `popcnt`, `bmi1` and `lzcnt` (tested at run time)
/// the count runs in a copy of the tree walk compiled for those instructions
/// ([`perft_x86`]); elsewhere in the plain build. The counts are the same.
pub fn perft<V: Variant>(pos: &Position<V>, depth: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if has_bit_instructions() {
        // SAFETY: the CPU has the features `perft_x86` is compiled for.
        return unsafe { perft_x86(pos, depth) };
    }
    perft_plain(pos, depth)
}

/// True if this CPU has the bit instructions [`perft_x86`] is compiled for
/// (the test is cached by the standard library: an atomic load).
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_bit_instructions() -> bool {
    std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("lzcnt")
}

/// [`perft`] in the build's own instruction set.
fn perft_plain<V: Variant>(pos: &Position<V>, depth: u32) -> u64 {
    perft_node(pos, depth, perft_plain)
}

/// [`perft_plain`] compiled with the population count and bit scan
/// instructions that the default x86-64 target lacks (Rust's `count_ones`
/// is otherwise a dozen-instruction software sequence, and the bulk count
/// at the last ply is a population count per piece). Move generation
/// (`Position::generate` and the generators under it) is
/// `#[inline(always)]` so that it is compiled into this function and gets
/// the instructions too.
///
/// # Safety
///
/// The CPU must have `popcnt`, `bmi1` and `lzcnt`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,lzcnt")]
unsafe fn perft_x86<V: Variant>(pos: &Position<V>, depth: u32) -> u64 {
    // SAFETY: called only from itself and from `perft` after the feature test.
    perft_node(pos, depth, |p, d| unsafe { perft_x86(p, d) })
}

/// One node of perft; `child` counts the leaves below a child.
#[inline(always)]
fn perft_node<V: Variant>(pos: &Position<V>, depth: u32, child: impl Fn(&Position<V>, u32) -> u64) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal(),
        _ => {
            // Filled in place: a returned list (4 KB) would be copied at
            // every node, which costs more than the rest of a node in
            // positions with few moves.
            let mut moves = MoveList::new();
            pos.legal_moves_into(&mut moves);
            let mut n = 0;
            for &m in moves.as_slice() {
                // One copy of the position per child (`play_unchecked`
                // returns its copy, which may be copied again).
                let mut next = *pos;
                next.make(m);
                n += child(&next, depth - 1);
            }
            n
        }
    }
}

/// Perft per root move, in generation order.
pub fn divide<V: Variant>(pos: &Position<V>, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves().iter().map(|&m| (m, perft(&pos.play_unchecked(m), depth - 1))).collect()
}

/// Perft with root moves spread over the rayon thread pool.
pub fn perft_parallel<V: Variant>(pos: &Position<V>, depth: u32) -> u64 {
    if depth <= 2 {
        return perft(pos, depth);
    }
    let moves = pos.legal_moves();
    moves.as_slice().par_iter().map(|&m| perft(&pos.play_unchecked(m), depth - 1)).sum()
}

/// A perft transposition table: (hash, depth) → count, lock-free and lossy.
pub struct PerftTable {
    entries: Vec<std::sync::atomic::AtomicU64>,
    mask: usize,
}

impl PerftTable {
    /// A table of about `mb` megabytes (rounded down to a power of two entries).
    pub fn new(mb: usize) -> PerftTable {
        let n = ((mb.max(1) << 20) / 16).next_power_of_two() / 2;
        let mut entries = Vec::with_capacity(2 * n);
        entries.resize_with(2 * n, || std::sync::atomic::AtomicU64::new(0));
        PerftTable { entries, mask: n - 1 }
    }

    /// The stored count for (key, depth), if any.
    pub fn probe(&self, key: u64, depth: u32) -> Option<u64> {
        use std::sync::atomic::Ordering::Relaxed;
        let i = (key as usize & self.mask) * 2;
        let k = self.entries[i].load(Relaxed);
        let v = self.entries[i + 1].load(Relaxed);
        // The key word stores key ^ value so a torn write is detected.
        (k ^ v == key ^ depth as u64 && v != 0).then_some(v >> 8).filter(|_| (v & 0xFF) as u32 == depth)
    }

    /// Stores a count.
    pub fn store(&self, key: u64, depth: u32, count: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        let i = (key as usize & self.mask) * 2;
        let v = (count << 8) | depth as u64;
        self.entries[i].store(key ^ depth as u64 ^ v, Relaxed);
        self.entries[i + 1].store(v, Relaxed);
    }
}

/// Hashed perft below the root; dispatched as [`perft`] is.
fn perft_tt<V: Variant>(pos: &Position<V>, depth: u32, tt: &PerftTable) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if has_bit_instructions() {
        // SAFETY: the CPU has the features `perft_tt_x86` is compiled for.
        return unsafe { perft_tt_x86(pos, depth, tt) };
    }
    perft_tt_plain(pos, depth, tt)
}

fn perft_tt_plain<V: Variant>(pos: &Position<V>, depth: u32, tt: &PerftTable) -> u64 {
    perft_tt_node(pos, depth, tt, perft_plain, perft_tt_plain)
}

/// [`perft_tt_plain`] compiled as [`perft_x86`] is.
///
/// # Safety
///
/// The CPU must have `popcnt`, `bmi1` and `lzcnt`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,lzcnt")]
unsafe fn perft_tt_x86<V: Variant>(pos: &Position<V>, depth: u32, tt: &PerftTable) -> u64 {
    // SAFETY: called only from itself and from `perft_tt` after the feature test.
    perft_tt_node(pos, depth, tt, |p, d| unsafe { perft_x86(p, d) }, |p, d, t| unsafe { perft_tt_x86(p, d, t) })
}

/// One node of hashed perft; `leaf` counts at depth 0 or 1, `child` below a child.
#[inline(always)]
fn perft_tt_node<V: Variant>(
    pos: &Position<V>,
    depth: u32,
    tt: &PerftTable,
    leaf: impl Fn(&Position<V>, u32) -> u64,
    child: impl Fn(&Position<V>, u32, &PerftTable) -> u64,
) -> u64 {
    if depth <= 1 {
        return leaf(pos, depth);
    }
    if let Some(n) = tt.probe(pos.hash(), depth) {
        return n;
    }
    let mut moves = MoveList::new();
    pos.legal_moves_into(&mut moves);
    let n = moves
        .as_slice()
        .iter()
        .map(|&m| {
            let mut next = *pos;
            next.make(m);
            child(&next, depth - 1, tt)
        })
        .sum();
    tt.store(pos.hash(), depth, n);
    n
}

/// Perft with a transposition table of `mb` megabytes, over `threads`
/// threads (root moves in parallel); equal to [`perft`] on every position
/// whose Zobrist keys do not collide.
pub fn perft_hashed<V: Variant>(pos: &Position<V>, depth: u32, mb: usize, threads: usize) -> u64 {
    let tt = PerftTable::new(mb);
    if depth <= 2 || threads <= 1 {
        return perft_tt(pos, depth, &tt);
    }
    let moves = pos.legal_moves();
    moves.as_slice().par_iter().map(|&m| perft_tt(&pos.play_unchecked(m), depth - 1, &tt)).sum()
}

/// Cancellation and progress for long perft runs.
pub struct PerftControl<'a> {
    /// When set, the run stops as soon as possible and yields `None`.
    pub stop: &'a AtomicBool,
    /// Leaf nodes counted so far (updated every few thousand nodes).
    pub progress: &'a AtomicU64,
    /// Optional transposition table (a hashed perft).
    pub table: Option<&'a PerftTable>,
}

/// Perft that can be stopped and reports progress; `None` if stopped. The
/// last two plies (nearly all the work) are a plain [`perft`], with its
/// run-time choice of instructions.
pub fn perft_controlled<V: Variant>(pos: &Position<V>, depth: u32, ctl: &PerftControl<'_>) -> Option<u64> {
    if depth <= 2 {
        let n = perft(pos, depth);
        ctl.progress.fetch_add(n, Ordering::Relaxed);
        return Some(n);
    }
    if ctl.stop.load(Ordering::Relaxed) {
        return None;
    }
    if let Some(t) = ctl.table
        && let Some(n) = t.probe(pos.hash(), depth)
    {
        ctl.progress.fetch_add(n, Ordering::Relaxed);
        return Some(n);
    }
    let mut total = 0;
    for &m in pos.legal_moves().as_slice() {
        total += perft_controlled(&pos.play_unchecked(m), depth - 1, ctl)?;
    }
    if let Some(t) = ctl.table {
        t.store(pos.hash(), depth, total);
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::{Alpaca, Alseid, CamelRhino, Chess, Chess960};

    /// The plain walk (the only one on CPUs without the bit instructions)
    /// and the dispatched one count the same, from the start of each kind
    /// of variant, including its hashed form.
    fn walks_agree<V: Variant>(depth: u32, published: Option<u64>) {
        let pos = Position::<V>::start();
        let plain = perft_plain(&pos, depth);
        assert_eq!(perft(&pos, depth), plain);
        assert_eq!(perft_tt_plain(&pos, depth, &PerftTable::new(1)), plain);
        assert_eq!(perft_hashed(&pos, depth, 1, 1), plain);
        if let Some(n) = published {
            assert_eq!(plain, n);
        }
    }

    #[test]
    fn plain_and_dispatched_perft_agree() {
        walks_agree::<Chess>(4, Some(197_281));
        walks_agree::<Chess960>(3, None);
        walks_agree::<CamelRhino>(3, None);
        walks_agree::<Alpaca>(3, None);
        walks_agree::<Alseid>(3, None);
    }
}

//! Perft: bulk-counting, divide, hashed and multi-threaded.

use crate::moves::Move;
use crate::position::Position;
use crate::variant::Variant;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Number of leaf nodes at `depth` (bulk-counted at the last ply).
pub fn perft<V: Variant>(pos: &Position<V>, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal(),
        _ => {
            let moves = pos.legal_moves();
            let mut n = 0;
            for &m in moves.as_slice() {
                n += perft(&pos.play_unchecked(m), depth - 1);
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

fn perft_tt<V: Variant>(pos: &Position<V>, depth: u32, tt: &PerftTable) -> u64 {
    if depth <= 1 {
        return perft(pos, depth);
    }
    if let Some(n) = tt.probe(pos.hash(), depth) {
        return n;
    }
    let moves = pos.legal_moves();
    let n = moves.as_slice().iter().map(|&m| perft_tt(&pos.play_unchecked(m), depth - 1, tt)).sum();
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

/// Perft that can be stopped and reports progress; `None` if stopped.
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

//! The transposition table: lock-free, shared by all search threads.
//!
//! Each entry is two 64-bit words, the key XORed with the data and the data,
//! so a torn write (two threads storing at once) is detected on probe
//! instead of returning another position's data.

use menagerie_variants::Move;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

/// What a stored score means.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The exact score.
    Exact = 1,
    /// A lower bound (the search failed high).
    Lower = 2,
    /// An upper bound (the search failed low).
    Upper = 3,
}

/// A probe hit.
#[derive(Clone, Copy, Debug)]
pub struct TtHit<M = Move> {
    /// Best move found, if any.
    pub mv: Option<M>,
    /// Score (mate scores relative to this node).
    pub score: i32,
    /// Static evaluation of the position.
    pub eval: i32,
    /// Remaining depth of the search that stored it.
    pub depth: i32,
    /// Score type.
    pub bound: Bound,
}

struct Entry {
    key: AtomicU64,
    data: AtomicU64,
    extra: AtomicU64,
}

/// A fixed-size, lock-free transposition table.
pub struct TranspositionTable {
    entries: Box<[Entry]>,
    mask: usize,
    generation: AtomicU8,
}

/// `n` empty entries, from zeroed memory: the operating system hands out
/// zero pages lazily, so a big table costs nothing until it is used (a
/// short analysis touches a few pages, not every byte of its table).
fn zeroed_entries(n: usize) -> Box<[Entry]> {
    let Ok(layout) = std::alloc::Layout::array::<Entry>(n) else {
        panic!("a transposition table of {n} entries does not fit in memory");
    };
    // SAFETY: the layout has a non-zero size (n >= 1024 entries of 24
    // bytes); all-zero bytes are a valid `Entry` (three `AtomicU64`s); the
    // memory comes from the global allocator with the layout of `[Entry; n]`,
    // which is how a `Box<[Entry]>` of length n is freed.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout).cast::<Entry>();
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, n))
    }
}

impl TranspositionTable {
    /// A table of about `mb` megabytes (a power-of-two number of entries).
    pub fn new(mb: usize) -> TranspositionTable {
        let bytes = mb.clamp(1, 1 << 20) << 20;
        let n = (bytes / core::mem::size_of::<Entry>()).next_power_of_two() / 2;
        let entries = zeroed_entries(n.max(1024));
        let mask = entries.len() - 1;
        TranspositionTable { entries, mask, generation: AtomicU8::new(0) }
    }

    /// Size in megabytes.
    pub fn size_mb(&self) -> usize {
        (self.entries.len() * core::mem::size_of::<Entry>()) >> 20
    }

    /// Forgets everything.
    pub fn clear(&self) {
        for e in self.entries.iter() {
            e.key.store(0, Relaxed);
            e.data.store(0, Relaxed);
            e.extra.store(0, Relaxed);
        }
    }

    /// Starts a new search (older entries become preferred for replacement).
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Relaxed);
    }

    fn generation(&self) -> u64 {
        (self.generation.load(Relaxed) & 0x3F) as u64
    }

    /// Looks `key` up.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtHit> {
        self.probe_with(key, Move::from_u32)
    }

    /// Looks `key` up, unpacking the stored move with `unpack`.
    #[inline(always)]
    pub(crate) fn probe_with<M>(&self, key: u64, unpack: impl Fn(u32) -> Option<M>) -> Option<TtHit<M>> {
        let e = &self.entries[key as usize & self.mask];
        let data = e.data.load(Relaxed);
        let extra = e.extra.load(Relaxed);
        if e.key.load(Relaxed) ^ data ^ extra != key || data == 0 {
            return None;
        }
        let bound = match (data >> 56) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None,
        };
        Some(TtHit {
            mv: unpack(extra as u32).filter(|_| extra >> 32 == 1),
            score: (data as u16 as i16) as i32,
            eval: ((data >> 16) as u16 as i16) as i32,
            depth: ((data >> 32) & 0xFF) as i32 - 16,
            bound,
        })
    }

    /// Stores a search result for `key`.
    #[inline]
    pub fn store(&self, key: u64, mv: Option<Move>, score: i32, eval: i32, depth: i32, bound: Bound) {
        self.store_packed(key, mv.map(Move::to_u32), score, eval, depth, bound);
    }

    /// Stores a search result for `key` with its move packed in 32 bits.
    #[inline(always)]
    pub(crate) fn store_packed(&self, key: u64, mv: Option<u32>, score: i32, eval: i32, depth: i32, bound: Bound) {
        let e = &self.entries[key as usize & self.mask];
        let old_data = e.data.load(Relaxed);
        let old_extra = e.extra.load(Relaxed);
        let same = e.key.load(Relaxed) ^ old_data ^ old_extra == key;
        let old_depth = ((old_data >> 32) & 0xFF) as i32 - 16;
        let old_gen = (old_data >> 58) & 0x3F;
        let epoch = self.generation();
        if same && bound != Bound::Exact && depth + 2 < old_depth && old_gen == epoch {
            return;
        }
        // Keep the old best move if this result has none.
        let extra = match (mv, same) {
            (Some(m), _) => (1u64 << 32) | m as u64,
            (None, true) => old_extra,
            (None, false) => 0,
        };
        let depth = (depth + 16).clamp(0, 255) as u64;
        let data = (score.clamp(-32767, 32767) as i16 as u16 as u64)
            | (eval.clamp(-32767, 32767) as i16 as u16 as u64) << 16
            | depth << 32
            | (bound as u64) << 56
            | epoch << 58;
        e.key.store(key ^ data ^ extra, Relaxed);
        e.data.store(data, Relaxed);
        e.extra.store(extra, Relaxed);
    }

    /// Permille of sampled entries written in the current search.
    pub fn hashfull(&self) -> u32 {
        let epoch = self.generation();
        let n = self.entries.len().min(1000);
        let used = self.entries[..n]
            .iter()
            .filter(|e| {
                let d = e.data.load(Relaxed);
                d != 0 && (d >> 58) & 0x3F == epoch
            })
            .count();
        (used * 1000 / n) as u32
    }
}

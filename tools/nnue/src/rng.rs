//! A small seeded random number generator (SplitMix64): the tools must be
//! reproducible from a `--seed`, and need nothing stronger.

use menagerie_nnue::SplitMix;

/// SplitMix64 (the engine crate's [`SplitMix`]) with the tools' draws.
#[derive(Clone, Debug)]
pub struct Rng(SplitMix);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix(seed ^ 0x9E37_79B9_7F4A_7C15))
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// A uniform integer in `0..n` (`n > 0`; 0 when `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (((self.next_u64() >> 11) as u128 * n as u128) >> 53) as usize
    }
    /// A uniform float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Shuffles a slice (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

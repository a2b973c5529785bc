//! Helpers shared by the workspace's tests and benchmarks: a dev-only
//! crate, never a dependency of a library.

/// A fixed-seed xorshift64 generator (shifts 13, 7, 17): cheap and
/// reproducible randomness for tests, the same sequence on every machine.
///
/// The seed must not be zero (xorshift stays at zero).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng(pub u64);

impl Rng {
    /// The next number of the sequence (the generator's new state).
    #[allow(clippy::should_implement_trait, reason = "not an iterator: it never ends")]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// The next number reduced below `n` (`n` must not be zero), e.g. an
    /// index into a list of `n` moves.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A FEN board rank from its cells, first file first: piece letters as
/// they are, each run of `empty` cells written as its length (`"R.BQK..R"`
/// with `'.'` gives `R1BQK2R`).
pub fn fen_rank(cells: impl IntoIterator<Item = char>, empty: char) -> String {
    let mut out = String::new();
    let mut run = 0;
    for c in cells {
        if c == empty {
            run += 1;
        } else {
            if run > 0 {
                out += &run.to_string();
                run = 0;
            }
            out.push(c);
        }
    }
    if run > 0 {
        out += &run.to_string();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Rng, fen_rank};

    #[test]
    fn ranks_count_their_empty_cells() {
        assert_eq!(fen_rank("R.BQK..R".chars(), '.'), "R1BQK2R");
        assert_eq!(fen_rank("..........".chars(), '.'), "10");
        assert_eq!(fen_rank("rnbqkbnr".chars(), '.'), "rnbqkbnr");
    }

    /// The sequence is xorshift64's (values computed apart): the tests that
    /// draw from it keep drawing the same games.
    #[test]
    fn the_sequence_is_fixed() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let first: Vec<u64> = (0..3).map(|_| rng.next()).collect();
        assert_eq!(first, [0x7f6c_280b_eaa8_e3e7, 0xe471_1987_1cf9_abe0, 0x3517_4a41_58b8_a0b7]);
        assert_eq!(Rng(7).below(10), 7);
    }
}

//! How many times this thread has generated moves (every legal, tactical
//! or counting generation of any position), for tests that bound the work
//! of a task: read [`count`] before and after it.

use std::cell::Cell;

thread_local! {
    static GENERATIONS: Cell<u64> = const { Cell::new(0) };
}

/// Move generations on this thread so far.
pub fn count() -> u64 {
    GENERATIONS.with(Cell::get)
}

/// One more generation.
#[inline(always)]
pub(crate) fn bump() {
    GENERATIONS.with(|g| g.set(g.get() + 1));
}

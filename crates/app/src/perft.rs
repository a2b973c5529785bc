//! Perft and divide of any position, compiled or defined as data: the one
//! count the server's Perft and PerftBatch, the CLI's `perft`, `divide` and
//! `epd`, and the engines' `go perft` run.
//!
//! A [`Perft`] splits a position's tree by root move and counts the
//! subtrees over worker threads, under a [`PerftControl`] the caller owns
//! (its stop flag, node counter and optional table), reporting each root
//! move's count as it finishes and asking the caller, while the workers run,
//! whether to stop (a client gone, a deadline, a cap).
//!
//! ```
//! use menagerie_app::perft::Perft;
//! use menagerie_app::{PositionRequest, Variants};
//! use menagerie_variants::PerftControl;
//! use std::sync::atomic::{AtomicBool, AtomicU64};
//! let none: &[&str] = &[];
//! let start = Variants::builtin().game_position(&PositionRequest::new("makruk", "", none))?;
//! let perft = Perft::new(start.clone());
//! let (stop, nodes) = (AtomicBool::new(false), AtomicU64::new(0));
//! let ctl = PerftControl { stop: &stop, progress: &nodes, table: None };
//! let counts = perft.divide::<()>(3, 2, &ctl, |_, _| Ok(()), || None).map_err(|_| "stopped")?;
//! assert_eq!(counts.len(), perft.root_moves());
//! assert_eq!(counts.iter().sum::<u64>(), start.perft(3));
//! let (coordinate, san) = perft.move_texts(0);
//! assert!(!coordinate.is_empty() && !san.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::{DataMove, DataPosition, GamePosition, compiled_twin_for};
use menagerie_notation::{san, uci};
use menagerie_variants::{Move, PerftControl};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// Divides up to this depth run on the caller's thread, looking at `watch`
/// between root moves: a batch of a million small counts must not start
/// threads.
pub const SMALL_DEPTH: u32 = 3;

/// Perft of a position defined as data, in subtrees of at most this depth
/// between looks at the stop flag (a few milliseconds each).
const DATA_CHUNK: u32 = 3;

/// A position's perft split by root move.
#[derive(Clone, Debug)]
pub struct Perft {
    position: GamePosition,
    moves: RootMoves,
}

/// The root moves, in generation order.
#[derive(Clone, Debug)]
enum RootMoves {
    Compiled(Vec<Move>),
    Data(Vec<DataMove>),
}

/// Why a divide stopped before its count.
#[derive(Debug, thiserror::Error)]
pub enum PerftHalt<E> {
    /// `on_root` or `watch` said to stop, with this reason; `None` when
    /// the control's stop flag was set by someone else.
    #[error("perft stopped")]
    Stopped(Option<E>),
    /// A worker thread could not be started.
    #[error("could not spawn a perft thread: {0}")]
    Spawn(#[source] std::io::Error),
}

/// Runs a closure when dropped, also while unwinding from a panic.
struct Defer<F: FnMut()>(F);

impl<F: FnMut()> Drop for Defer<F> {
    fn drop(&mut self) {
        (self.0)()
    }
}

impl GamePosition {
    /// Leaf count at `depth`, on this thread (a position defined as data is
    /// counted by the compiled core when one of its games plays it exactly,
    /// from [`crate::TWIN_DEPTH`]).
    pub fn perft(&self, depth: u32) -> u64 {
        match self {
            GamePosition::Compiled(p) => p.perft(depth),
            GamePosition::Data(p) => match compiled_twin_for(p, depth) {
                Some(twin) => twin.perft(depth),
                None => p.perft(depth),
            },
        }
    }

    /// [`GamePosition::perft`] that stops (`None`) when `ctl.stop` is set
    /// and adds the leaves to `ctl.progress` as they are counted (the table,
    /// if any, serves compiled positions and twins only).
    pub fn perft_controlled(&self, depth: u32, ctl: &PerftControl<'_>) -> Option<u64> {
        match self {
            GamePosition::Compiled(p) => p.perft_controlled(depth, ctl),
            GamePosition::Data(p) => match compiled_twin_for(p, depth) {
                Some(twin) => twin.perft_controlled(depth, ctl),
                None => chunked_perft(p, depth, ctl),
            },
        }
    }

    /// The variant's name.
    pub fn variant_name(&self) -> &str {
        match self {
            GamePosition::Compiled(p) => p.variant().name(),
            GamePosition::Data(p) => &p.variant().name,
        }
    }
}

/// Perft of a position on the data core under `ctl`: subtrees of at most
/// [`DATA_CHUNK`] plies between looks at the stop flag.
fn chunked_perft(pos: &DataPosition, depth: u32, ctl: &PerftControl<'_>) -> Option<u64> {
    if ctl.stop.load(Ordering::Relaxed) {
        return None;
    }
    if depth <= DATA_CHUNK {
        let n = pos.perft(depth);
        ctl.progress.fetch_add(n, Ordering::Relaxed);
        return Some(n);
    }
    let mut total = 0;
    for m in pos.legal_moves() {
        total += chunked_perft(&pos.play(m), depth - 1, ctl)?;
    }
    Some(total)
}

impl Perft {
    /// The perft of `position`, its root moves generated.
    pub fn new(position: GamePosition) -> Perft {
        let moves = match &position {
            GamePosition::Compiled(p) => RootMoves::Compiled(p.legal_moves().to_vec()),
            GamePosition::Data(p) => RootMoves::Data(p.legal_moves()),
        };
        Perft { position, moves }
    }

    /// The position counted.
    pub fn position(&self) -> &GamePosition {
        &self.position
    }

    /// How many root moves the position has.
    pub fn root_moves(&self) -> usize {
        match &self.moves {
            RootMoves::Compiled(m) => m.len(),
            RootMoves::Data(m) => m.len(),
        }
    }

    /// Root move `i` (in generation order) in coordinate form and SAN.
    ///
    /// # Panics
    /// If `i` is not below [`Perft::root_moves`].
    pub fn move_texts(&self, i: usize) -> (String, String) {
        match (&self.position, &self.moves) {
            (GamePosition::Compiled(p), RootMoves::Compiled(moves)) => {
                (uci::format(p.variant(), moves[i]), san::format_with(p, moves[i], moves))
            }
            (GamePosition::Data(p), RootMoves::Data(moves)) => (p.move_text(moves[i]), p.san(moves[i])),
            _ => unreachable!("the root moves are the position's"),
        }
    }

    /// Perft `depth` of the position after root move `i`; `None` if stopped.
    pub fn subtree(&self, i: usize, depth: u32, ctl: &PerftControl<'_>) -> Option<u64> {
        match (&self.position, &self.moves) {
            (GamePosition::Compiled(p), RootMoves::Compiled(moves)) => {
                p.play_unchecked(moves[i]).perft_controlled(depth, ctl)
            }
            (GamePosition::Data(p), RootMoves::Data(moves)) => {
                GamePosition::Data(p.play(moves[i])).perft_controlled(depth, ctl)
            }
            _ => unreachable!("the root moves are the position's"),
        }
    }

    /// Perft `depth` (at least 1) per root move, in generation order, over
    /// up to `threads` worker threads (on this thread up to [`SMALL_DEPTH`]).
    ///
    /// `on_root(i, n)` is called as root move `i` finishes with `n` leaves
    /// (from the workers, in any order); an error stops the count. While
    /// the count runs, this thread calls `watch` every few milliseconds
    /// (between root moves on this thread); a reason it gives stops the
    /// count. A stop sets `ctl.stop`; a panic in a worker stops the others
    /// and is propagated.
    pub fn divide<E: Send>(
        &self,
        depth: u32,
        threads: usize,
        ctl: &PerftControl<'_>,
        on_root: impl Fn(usize, u64) -> Result<(), E> + Sync,
        mut watch: impl FnMut() -> Option<E>,
    ) -> Result<Vec<u64>, PerftHalt<E>> {
        let below = depth.saturating_sub(1);
        let n_moves = self.root_moves();
        let counts: Vec<AtomicU64> = (0..n_moves).map(|_| AtomicU64::new(0)).collect();
        let why: Mutex<Option<PerftHalt<E>>> = Mutex::new(None);
        let halt = |e: PerftHalt<E>| {
            why.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
            ctl.stop.store(true, Ordering::Relaxed);
        };
        let count = |i: usize| -> bool {
            let Some(n) = self.subtree(i, below, ctl) else { return false };
            counts[i].store(n, Ordering::Relaxed);
            if let Err(e) = on_root(i, n) {
                halt(PerftHalt::Stopped(Some(e)));
                return false;
            }
            true
        };
        if depth <= SMALL_DEPTH {
            for i in 0..n_moves {
                if let Some(e) = watch() {
                    halt(PerftHalt::Stopped(Some(e)));
                    break;
                }
                if !count(i) {
                    break;
                }
            }
        } else {
            let next = AtomicUsize::new(0);
            let workers = threads.clamp(1, n_moves.max(1));
            let active = AtomicUsize::new(workers);
            let watcher = std::thread::current();
            std::thread::scope(|scope| {
                for _ in 0..workers {
                    let worker = std::thread::Builder::new().name("menagerie-perft".into());
                    let spawned = worker.spawn_scoped(scope, || {
                        // Counted out even when the work panics, so that the
                        // watcher ends and the other workers stop.
                        let _out = Defer(|| {
                            if std::thread::panicking() {
                                ctl.stop.store(true, Ordering::Relaxed);
                            }
                            if active.fetch_sub(1, Ordering::Relaxed) == 1 {
                                watcher.unpark();
                            }
                        });
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            if i >= n_moves || ctl.stop.load(Ordering::Relaxed) || !count(i) {
                                break;
                            }
                        }
                    });
                    if let Err(e) = spawned {
                        active.fetch_sub(1, Ordering::Relaxed);
                        halt(PerftHalt::Spawn(e));
                    }
                }
                // This thread watches while the workers run; the last one wakes it.
                while active.load(Ordering::Relaxed) > 0 {
                    if let Some(e) = watch() {
                        halt(PerftHalt::Stopped(Some(e)));
                    }
                    std::thread::park_timeout(Duration::from_millis(2));
                }
            });
        }
        if ctl.stop.load(Ordering::Relaxed) {
            return Err(why.into_inner().unwrap_or_else(|p| p.into_inner()).unwrap_or(PerftHalt::Stopped(None)));
        }
        Ok(counts.into_iter().map(AtomicU64::into_inner).collect())
    }

    /// Leaf count at `depth` over up to `threads` threads, never stopped
    /// (0 is the position itself: 1).
    pub fn count(&self, depth: u32, threads: usize, progress: &AtomicU64) -> u64 {
        if depth == 0 {
            progress.fetch_add(1, Ordering::Relaxed);
            return 1;
        }
        let stop = AtomicBool::new(false);
        let ctl = PerftControl { stop: &stop, progress, table: None };
        let never = || None::<std::convert::Infallible>;
        // Nothing stops it but a failed thread start.
        match self.divide(depth, threads, &ctl, |_, _| Ok(()), never) {
            Ok(counts) => counts.iter().sum(),
            Err(_) => self.position.perft(depth),
        }
    }
}

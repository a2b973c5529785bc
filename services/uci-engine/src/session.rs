//! State shared by both protocols: the engine, the game and the search in
//! progress.

use menagerie_app::{DataPosition, VariantRef, Variants};
use menagerie_game::{Game, Move, Position};
use menagerie_search::{Engine, EngineOptions, Info, Limits, SearchHandle, SearchResult};
use menagerie_variants::{AnyPosition, VariantId};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Writes one protocol line to stdout and flushes.
pub fn send(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// The engine and the game being played.
pub struct Session {
    pub engine: Engine,
    /// The variants `UCI_Variant` and XBoard's `variant` may name.
    pub variants: Variants,
    /// `--strict` / `StrictVariants`: a section of a variants file that
    /// cannot be played makes the whole file an error (else it is skipped
    /// with a warning).
    pub strict_variants: bool,
    /// The compiled variant last chosen (what `UCI_Chess960` switches); not
    /// used while a game defined as data is played.
    pub variant: VariantId,
    /// The game played, of any variant.
    pub game: Game,
    search: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
    /// Set by [`Session::stop_and_wait`]: a held search (`go infinite`)
    /// announces its result only after this.
    stop_requested: Arc<AtomicBool>,
    /// UCI `go ponder`: the limits to search with after `ponderhit`.
    pub ponder_limits: Option<Limits>,
    /// Set when a search's result should not be announced (e.g. `new` in XBoard).
    pub quiet_abort: Arc<AtomicBool>,
    pub debug: Arc<Mutex<bool>>,
    /// XBoard: the move the engine announced, not yet added to the game.
    pub engine_move: Arc<Mutex<Option<Move>>>,
    /// UCI `UCI_LimitStrength`: play at [`Session::elo`].
    pub limit_strength: bool,
    /// UCI `UCI_Elo`.
    pub elo: u32,
    /// UCI `UCI_Chess960`: orthodox chess is played as `chess960` (any
    /// castling files, X-FEN/Shredder-FEN) and castling is printed
    /// king-takes-rook.
    pub chess960: bool,
    /// Seeds the move choice of a strength-limited search; changes with
    /// every `ucinewgame`.
    pub game_seed: u64,
    /// UCI `Move Overhead`: taken off the clocks of `go` (GUI and pipe lag).
    pub move_overhead: std::time::Duration,
    /// UCI `UCI_ShowWDL`: info lines carry `wdl W D L` (per mille).
    pub show_wdl: bool,
}

impl Session {
    pub fn new() -> Session {
        Session {
            engine: Engine::new(EngineOptions::default()),
            variants: Variants::builtin(),
            strict_variants: false,
            variant: VariantId::Chess,
            game: Game::new(AnyPosition::start(VariantId::Chess).into()),
            search: None,
            stop_requested: Arc::new(AtomicBool::new(false)),
            ponder_limits: None,
            quiet_abort: Arc::new(AtomicBool::new(false)),
            debug: Arc::new(Mutex::new(false)),
            engine_move: Arc::new(Mutex::new(None)),
            limit_strength: false,
            elo: crate::uci::DEFAULT_ELO,
            chess960: false,
            game_seed: 0,
            move_overhead: std::time::Duration::from_millis(crate::uci::DEFAULT_MOVE_OVERHEAD),
            show_wdl: false,
        }
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.game.current()
    }

    /// Sets the variant and resets to its start position. With
    /// `UCI_Chess960` on, orthodox chess becomes `chess960` (turning the
    /// option off goes back to orthodox chess).
    pub fn set_variant(&mut self, v: VariantId) {
        let v = match v {
            VariantId::Chess if self.chess960 => VariantId::Chess960,
            v => v,
        };
        self.variant = v;
        self.play_game(Game::new(AnyPosition::start(v).into()));
    }

    /// Selects the variant called `name`, compiled or defined as data, at
    /// its start position.
    pub fn select(&mut self, name: &str) -> Result<(), String> {
        match self.variants.find(name).map_err(|e| e.to_string())? {
            VariantRef::Compiled(v) => self.set_variant(v),
            VariantRef::Data(def) => self.play_game(Game::new(DataPosition::start(&def).into())),
        }
        Ok(())
    }

    /// Goes back to the start position of the variant played.
    pub fn restart(&mut self) {
        if self.game.start().compiled().is_some() {
            self.set_variant(self.variant);
        } else {
            let start = self.game.start().start();
            self.play_game(Game::new(start));
        }
    }

    /// Plays `game` from now on.
    fn play_game(&mut self, game: Game) {
        self.engine.set_game(&game);
        self.game = game;
    }

    /// Plays one more move (XBoard `usermove`, or the engine's own move);
    /// it must be legal.
    pub fn push_move(&mut self, m: Move) -> Result<(), String> {
        let mut game = self.game.clone();
        game.play(m).map_err(|e| e.to_string())?;
        self.play_game(game);
        Ok(())
    }

    /// Sets the game from a FEN (or the start) and a list of move texts.
    pub fn set_game(&mut self, fen_text: Option<&str>, moves: &[&str]) -> Result<(), String> {
        let here = self.game.start();
        let start = match fen_text {
            Some(f) => here.with_fen(f).map_err(|e| e.to_string())?,
            None => here.start(),
        };
        let mut game = Game::new(start);
        for (i, text) in moves.iter().enumerate() {
            let m = game.current().parse_move(text).map_err(|e| format!("move {} ('{text}'): {e}", i + 1))?;
            game.play(m).map_err(|e| format!("move {}: {e}", i + 1))?;
        }
        self.play_game(game);
        Ok(())
    }

    /// Takes back the last move.
    pub fn pop_move(&mut self) {
        let mut game = self.game.clone();
        if game.undo().is_some() {
            self.play_game(game);
        }
    }

    /// Starts a search; `on_info` prints info lines, `on_done` the result.
    /// With `hold` (UCI `go infinite` and `go ponder`) the result is handed
    /// to `on_done` only once the search is stopped from outside, even if
    /// it ended by itself (maximum depth, or no legal move).
    pub fn go(
        &mut self,
        limits: Limits,
        hold: bool,
        on_info: impl FnMut(Info) + Send + 'static,
        on_done: impl FnOnce(SearchResult) + Send + 'static,
    ) {
        self.stop_and_wait();
        // If the search thread fails (a panic in the search or the rules
        // code), its result has no move; a legal move is still better than
        // `bestmove (none)`, which a GUI reads as the end of the game.
        let fallback = self.position().legal_moves().first().copied();
        let handle = self.engine.go(limits, on_info);
        self.wait_for(handle, fallback, hold, on_done);
    }

    /// Hands the result of the search `handle` to `on_done` on a thread of
    /// its own (see [`Session::go`] for `fallback` and `hold`).
    fn wait_for(
        &mut self,
        handle: SearchHandle,
        fallback: Option<Move>,
        hold: bool,
        on_done: impl FnOnce(SearchResult) + Send + 'static,
    ) {
        self.quiet_abort.store(false, Ordering::Relaxed);
        self.stop_requested.store(false, Ordering::Relaxed);
        let stop = handle.stop_flag();
        let requested = self.stop_requested.clone();
        let waiter = std::thread::spawn(move || {
            let mut result = handle.wait();
            if result.best.is_none() && fallback.is_some() {
                result.best = fallback;
                result.ponder = None;
            }
            while hold && !requested.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            on_done(result)
        });
        self.search = Some((stop, waiter));
    }

    /// Waits for a running search to end by itself (without stopping it).
    pub fn wait_search(&mut self) {
        if let Some((_, join)) = self.search.take() {
            let _ = join.join();
        }
    }

    /// Resizes the hash table, refusing sizes the machine cannot hold (the
    /// allocation would abort the process).
    pub fn set_hash(&mut self, mb: usize) -> Result<(), String> {
        if let Some(avail) = available_memory_mb() {
            // The table is at most `mb` MB; keep room for the old one and the rest.
            if mb > avail / 4 * 3 {
                return Err(format!(
                    "Hash {mb} MB exceeds the available memory ({avail} MB); keeping {} MB",
                    self.engine.options().hash_mb
                ));
            }
        }
        self.engine.set_hash(mb);
        Ok(())
    }

    /// True while a search runs.
    pub fn searching(&self) -> bool {
        self.search.as_ref().is_some_and(|(_, j)| !j.is_finished())
    }

    /// Stops a running search without reporting its result (the game it
    /// searched is being left) and waits until it has ended.
    pub fn abort_quietly(&mut self) {
        self.quiet_abort.store(true, Ordering::Relaxed);
        self.stop_and_wait();
    }

    /// Stops a running search and waits until its result has been handled.
    pub fn stop_and_wait(&mut self) {
        self.stop_requested.store(true, Ordering::Relaxed);
        if let Some((stop, join)) = self.search.take() {
            stop.store(true, Ordering::Relaxed);
            let _ = join.join();
        }
    }
}

/// `MemAvailable` from `/proc/meminfo`, in MB (None where unknown).
fn available_memory_mb() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

//! Engine processes spoken to over UCI or XBoard (CECP version 2).
//!
//! An [`Engine`] is one running process. It is started for one game and
//! told the variant and the start position; then, for each of its moves,
//! [`Engine::think`] sends the game so far and the clocks and waits for the
//! move, up to a deadline. Everything that can go wrong with a foreign
//! program — it does not start, exits, falls silent, writes garbage, moves
//! illegally, resigns — comes back as an [`EngineError`] that the game
//! turns into a loss with the reason.

use crate::game::TimeControl;
use menagerie_notation::{fen, parse_move, uci, xboard};
use menagerie_pieces::Color;
use menagerie_variants::{AnyPosition, Move, MoveKind, VariantId};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};
use thiserror::Error;

/// The protocol an engine speaks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Protocol {
    /// The Universal Chess Interface (`uci`).
    Uci,
    /// XBoard/WinBoard's Chess Engine Communication Protocol, version 2.
    Xboard,
}

/// How to start an engine and set it up.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct EngineConfig {
    /// The name used in tables and the PGN `White`/`Black` tags.
    pub name: String,
    /// The program.
    pub command: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its working directory (the runner's if None).
    pub dir: Option<PathBuf>,
    /// The protocol.
    pub protocol: Protocol,
    /// Options set before each game: UCI `setoption name N value V`, XBoard
    /// `option N=V`.
    pub options: Vec<(String, String)>,
    /// The engine's names for Menagerie's variants where they differ (e.g.
    /// Fairy-Stockfish's `camelrhinoplain` for `camel-rhino-plain`): pairs
    /// of Menagerie's name (compiled or data variant) and the engine's.
    pub variant_names: Vec<(String, String)>,
    /// How long the engine may take to start (`uciok`, XBoard's `done=1`).
    pub start_timeout: Duration,
    /// Its own time control, for matches at odds (e.g. fixed nodes against
    /// a clock, or fewer nodes for the stronger engine); None: the match's.
    pub time: Option<TimeControl>,
}

impl EngineConfig {
    /// A UCI engine named after its program, with no options.
    pub fn uci(command: impl Into<PathBuf>) -> EngineConfig {
        let command = command.into();
        let name = command.file_name().map_or_else(|| "engine".to_string(), |n| n.to_string_lossy().into_owned());
        EngineConfig {
            name,
            command,
            args: Vec::new(),
            dir: None,
            protocol: Protocol::Uci,
            options: Vec::new(),
            variant_names: Vec::new(),
            start_timeout: Duration::from_secs(10),
            time: None,
        }
    }

    /// The engine's name for the variant Menagerie calls `ours`.
    pub fn variant_name(&self, ours: &str) -> String {
        if let Some(n) = self.mapped_variant(ours) {
            return n.to_string();
        }
        match VariantId::from_name(ours).and_then(VariantId::xboard_builtin) {
            Some(native) if self.protocol == Protocol::Xboard => native.to_string(),
            _ => ours.to_string(),
        }
    }

    /// The engine's name for `ours` if the configuration maps it.
    fn mapped_variant(&self, ours: &str) -> Option<&str> {
        self.variant_names.iter().find(|(v, _)| v.eq_ignore_ascii_case(ours)).map(|(_, n)| n.as_str())
    }
}

/// What went wrong with an engine.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
pub enum EngineError {
    /// The program could not be started.
    #[error("could not start {command}: {reason}")]
    Spawn {
        /// The program.
        command: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The process exited or closed its output.
    #[error("disconnected (the engine process ended{})", exit.as_ref().map(|e| format!(": {e}")).unwrap_or_default())]
    Disconnected {
        /// Its exit status, if known.
        exit: Option<String>,
    },
    /// No answer within the deadline.
    #[error("no answer after {:.1} s", .0.as_secs_f64())]
    Silent(Duration),
    /// The engine's move is not legal (or not a move) in the position.
    #[error("illegal move '{0}'")]
    IllegalMove(String),
    /// The engine said it has no move while legal moves exist.
    #[error("no move ('{0}') in a position with legal moves")]
    NoMove(String),
    /// The engine resigned.
    #[error("resigns")]
    Resigned,
    /// The engine claimed a result that the rules do not give.
    #[error("false result claim '{0}'")]
    FalseClaim(String),
    /// The engine does not support what the match needs.
    #[error("{0}")]
    Unsupported(String),
    /// The engine refused a legal move of the game.
    #[error("rejected the legal move '{0}'")]
    RejectedMove(String),
}

/// The clocks and limits of one move.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct GoLimits {
    /// White's and Black's remaining time, when playing on a clock.
    pub clocks: Option<(Duration, Duration)>,
    /// White's and Black's increment.
    pub increments: (Duration, Duration),
    /// Moves until the next time control.
    pub moves_to_go: Option<u32>,
    /// Fixed time for this move.
    pub movetime: Option<Duration>,
    /// Fixed nodes.
    pub nodes: Option<u64>,
    /// Fixed depth.
    pub depth: Option<u32>,
}

/// What an engine said about its move (moves of a compiled variant by
/// default, or `menagerie_rules::Move` of a variant defined as data).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Thought<M = Move> {
    /// The moves it played: one, or two for an XBoard engine's combined
    /// White prelude acceptance and placement.
    pub moves: Vec<M>,
    /// Its last reported score in centipawns from its own side (mates as
    /// ±(100000 − plies)), and depth.
    pub score: Option<i32>,
    /// The depth of that score.
    pub depth: Option<u32>,
}

impl<M> Default for Thought<M> {
    fn default() -> Thought<M> {
        Thought { moves: Vec::new(), score: None, depth: None }
    }
}

/// A running engine.
pub struct Engine {
    config: EngineConfig,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// XBoard: the engine asked for `usermove` before moves.
    usermove: bool,
    /// XBoard: it accepts `setboard`.
    setboard: bool,
    /// Lines written to and read from the engine, for debugging (newest last, bounded).
    log: Vec<String>,
    /// UCI: the options the engine listed (lower case).
    options: Vec<String>,
    /// UCI: the values of its `UCI_Variant` combo (lower case).
    variants: Vec<String>,
    /// UCI: `UCI_Chess960` is on, so castling is written king-takes-rook
    /// (`e1h1`); otherwise a Chess960 castling is written king-to-square.
    chess960: bool,
    /// XBoard: whether the engine takes Chess960 castling king-takes-rook
    /// rather than `O-O` (`None`: not yet known).
    castles_king_takes_rook: Option<bool>,
}

/// A mate score's magnitude: scores at least this far from 0 are mates.
pub const MATE: i32 = 100_000;

impl Engine {
    /// Starts the engine and completes the protocol's handshake.
    pub fn start(config: &EngineConfig) -> Result<Engine, EngineError> {
        let mut cmd = Command::new(&config.command);
        cmd.args(&config.args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        if let Some(d) = &config.dir {
            cmd.current_dir(d);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| EngineError::Spawn { command: config.command.display().to_string(), reason: e.to_string() })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(EngineError::Spawn {
                command: config.command.display().to_string(),
                reason: "no pipes".into(),
            });
        };
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = Engine {
            config: config.clone(),
            child,
            stdin,
            lines,
            usermove: false,
            setboard: false,
            log: Vec::new(),
            options: Vec::new(),
            variants: Vec::new(),
            chess960: false,
            castles_king_takes_rook: None,
        };
        match config.protocol {
            Protocol::Uci => e.handshake_uci()?,
            Protocol::Xboard => e.handshake_xboard()?,
        }
        Ok(e)
    }

    /// The engine's configuration.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The last lines exchanged with the engine (`>` sent, `<` received).
    pub fn log(&self) -> &[String] {
        &self.log
    }

    fn send(&mut self, line: &str) -> Result<(), EngineError> {
        self.note(format!("> {line}"));
        writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush()).map_err(|_| self.disconnected())
    }

    fn note(&mut self, line: String) {
        if self.log.len() >= 200 {
            self.log.drain(..100);
        }
        self.log.push(line);
    }

    fn disconnected(&mut self) -> EngineError {
        // Give the process a moment to be reaped so its status can be named.
        let deadline = Instant::now() + Duration::from_millis(200);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return EngineError::Disconnected { exit: Some(status.to_string()) },
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                _ => return EngineError::Disconnected { exit: None },
            }
        }
    }

    /// The next line before `deadline`.
    fn read(&mut self, deadline: Instant, started: Instant) -> Result<String, EngineError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => {
                self.note(format!("< {line}"));
                Ok(line)
            }
            Err(RecvTimeoutError::Timeout) => Err(EngineError::Silent(started.elapsed())),
            Err(RecvTimeoutError::Disconnected) => Err(self.disconnected()),
        }
    }

    /// Reads lines until one satisfies `done`.
    fn read_until(&mut self, timeout: Duration, mut done: impl FnMut(&str) -> bool) -> Result<(), EngineError> {
        let started = Instant::now();
        let deadline = started + timeout;
        loop {
            let line = self.read(deadline, started)?;
            if done(line.trim()) {
                return Ok(());
            }
        }
    }

    /// Drops lines already written (late output of an earlier move).
    fn drain(&mut self) {
        while let Ok(line) = self.lines.try_recv() {
            self.note(format!("< {line}"));
        }
    }

    fn handshake_uci(&mut self) -> Result<(), EngineError> {
        self.send("uci")?;
        let t = self.config.start_timeout;
        let mut advertised = Vec::new();
        let mut variants = Vec::new();
        self.read_until(t, |l| {
            if let Some(rest) = l.strip_prefix("option name ") {
                let (name, spec) = rest.split_once(" type ").unwrap_or((rest, ""));
                let name = name.trim().to_ascii_lowercase();
                if name == "uci_variant" {
                    variants = combo_values(spec);
                }
                advertised.push(name);
            }
            l == "uciok"
        })?;
        self.variants = variants;
        for (name, value) in self.config.options.clone() {
            // A misspelt option would be ignored by the engine in silence.
            if !advertised.contains(&name.to_ascii_lowercase()) {
                return Err(EngineError::Unsupported(format!("the engine has no UCI option '{name}'")));
            }
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        self.options = advertised;
        self.sync()
    }

    fn handshake_xboard(&mut self) -> Result<(), EngineError> {
        self.send("xboard")?;
        self.send("protover 2")?;
        let started = Instant::now();
        let deadline = started + self.config.start_timeout;
        // Engines that know protocol 2 answer with features ending in done=1;
        // older ones say nothing (the specification's 2 s wait).
        let mut waiting = Instant::now() + Duration::from_secs(2);
        loop {
            let until = waiting.min(deadline);
            let line = match self.read(until, started) {
                Ok(l) => l,
                Err(EngineError::Silent(_)) if Instant::now() >= waiting && Instant::now() < deadline => break,
                Err(e) => return Err(e),
            };
            let Some(rest) = line.trim().strip_prefix("feature ") else { continue };
            let mut done = None;
            for (name, value) in features(rest) {
                match name.as_str() {
                    "usermove" => self.usermove = value == "1",
                    "setboard" => self.setboard = value == "1",
                    "done" => done = Some(value == "1"),
                    _ => {}
                }
                self.send(&format!("accepted {name}"))?;
            }
            match done {
                Some(true) => break,
                // done=0: the engine needs time; wait up to the start timeout.
                Some(false) => waiting = deadline,
                None => {}
            }
        }
        for (name, value) in self.config.options.clone() {
            self.send(&format!("option {name}={value}"))?;
        }
        Ok(())
    }

    /// UCI `isready` … `readyok`; XBoard `ping` … `pong`.
    fn sync(&mut self) -> Result<(), EngineError> {
        let t = self.config.start_timeout;
        match self.config.protocol {
            Protocol::Uci => {
                self.send("isready")?;
                self.read_until(t, |l| l == "readyok")
            }
            Protocol::Xboard => {
                self.send("ping 1")?;
                self.read_until(t, |l| l == "pong 1")
            }
        }
    }

    /// Prepares a new game of `variant` from `start` with the clock
    /// settings of `level` (XBoard only: UCI engines get the clocks with
    /// every move).
    pub fn new_game(&mut self, start: &AnyPosition, level: &GoLimits) -> Result<(), EngineError> {
        let variant = start.variant();
        match self.config.protocol {
            Protocol::Uci => {
                let name = self.config.variant_name(variant.name());
                let mapped = self.config.mapped_variant(variant.name()).is_some();
                let has = |o: &str| self.options.iter().any(|x| x == o);
                let (has_variant, has_960) = (has("uci_variant"), has("uci_chess960"));
                if variant.rules().chess960 && !mapped {
                    // Chess960 is chess with `UCI_Chess960` (Stockfish has no
                    // `UCI_Variant`); an engine that lists it as a variant
                    // (Menagerie's) is told that too.
                    let listed = self.variants.contains(&name.to_ascii_lowercase());
                    if listed {
                        self.send(&format!("setoption name UCI_Variant value {name}"))?;
                    }
                    if !has_960 && !listed {
                        return Err(EngineError::Unsupported(format!(
                            "the engine has no UCI option 'UCI_Chess960' and no '{name}' in UCI_Variant, so it cannot play {name}"
                        )));
                    }
                } else if variant != VariantId::Chess || mapped {
                    // An engine without the option would play chess instead.
                    if !has_variant {
                        return Err(EngineError::Unsupported(format!(
                            "the engine has no UCI option 'UCI_Variant', so it cannot be told to play {name}"
                        )));
                    }
                    self.send(&format!("setoption name UCI_Variant value {name}"))?;
                }
                if variant.rules().chess960 && has_960 {
                    self.send("setoption name UCI_Chess960 value true")?;
                    self.chess960 = true;
                }
                self.send("ucinewgame")?;
                self.sync()
            }
            Protocol::Xboard => {
                self.send("new")?;
                self.send("random")?;
                if variant != VariantId::Chess {
                    let name = self.config.variant_name(variant.name());
                    self.send(&format!("variant {name}"))?;
                }
                self.send("force")?;
                self.send("post")?;
                self.send("easy")?;
                if *start != AnyPosition::start(variant) {
                    if !self.setboard {
                        return Err(EngineError::Unsupported(
                            "the engine does not accept setboard, needed for this opening".into(),
                        ));
                    }
                    self.send(&format!("setboard {}", fen::format(start)))?;
                }
                if let Some(t) = level.movetime {
                    // `st` takes whole seconds.
                    self.send(&format!("st {}", t.as_secs().max(1)))?;
                } else if let Some(d) = level.depth {
                    self.send(&format!("sd {d}"))?;
                } else if level.nodes.is_some() {
                    return Err(EngineError::Unsupported("fixed nodes are not supported over XBoard".into()));
                } else if let Some((base, _)) = level.clocks {
                    let secs = base.as_secs();
                    let inc = level.increments.0.as_secs_f64();
                    self.send(&format!(
                        "level {} {}:{:02} {inc}",
                        level.moves_to_go.unwrap_or(0),
                        secs / 60,
                        secs % 60
                    ))?;
                }
                self.sync()
            }
        }
    }

    /// Asks for a move in the game `start` + `moves` and waits until
    /// `deadline` for it.
    pub fn think(
        &mut self,
        start: &AnyPosition,
        moves: &[Move],
        limits: &GoLimits,
        timeout: Duration,
    ) -> Result<Thought, EngineError> {
        self.drain();
        let mut pos = *start;
        for &m in moves {
            pos = pos.play_unchecked(m);
        }
        match self.config.protocol {
            Protocol::Uci => self.think_uci(start, moves, &pos, limits, timeout),
            Protocol::Xboard => self.think_xboard(&pos, limits, timeout),
        }
    }

    fn think_uci(
        &mut self,
        start: &AnyPosition,
        moves: &[Move],
        pos: &AnyPosition,
        limits: &GoLimits,
        timeout: Duration,
    ) -> Result<Thought, EngineError> {
        let variant = start.variant();
        let mut cmd = if *start == AnyPosition::start(variant) {
            "position startpos".to_string()
        } else {
            format!("position fen {}", fen::format(start))
        };
        if !moves.is_empty() {
            // UCI's own alphabet (`0000`, `K@e1`, `A@g1`, ...), which every
            // UCI parser reads; Menagerie's engine also reads its older forms.
            cmd.push_str(" moves");
            let mut p = *start;
            for &m in moves {
                cmd.push(' ');
                // King-takes-rook castling only for an engine in UCI_Chess960 mode.
                cmd.push_str(&if self.chess960 {
                    uci::format_wire(&p, m)
                } else {
                    uci::format_wire_orthodox_castling(&p, m)
                });
                p = p.play_unchecked(m);
            }
        }
        let (token, mut thought) = self.search_uci(&cmd, limits, timeout)?;
        if token == "0000" && !has_null_move(pos) {
            return Err(EngineError::NoMove(token));
        }
        let m = parse_move(pos, &token).map_err(|_| EngineError::IllegalMove(token.clone()))?;
        thought.moves.push(m);
        Ok(thought)
    }

    /// Sends a UCI `position` command and `go` with `limits`, and waits for
    /// `bestmove`: returns its move text (never empty or `(none)`, which
    /// are [`EngineError::NoMove`]) and the last score and depth.
    fn search_uci<M>(
        &mut self,
        position: &str,
        limits: &GoLimits,
        timeout: Duration,
    ) -> Result<(String, Thought<M>), EngineError> {
        self.send(position)?;
        let mut go = "go".to_string();
        if let Some((w, b)) = limits.clocks {
            let _ = write!(
                go,
                " wtime {} btime {} winc {} binc {}",
                w.as_millis(),
                b.as_millis(),
                limits.increments.0.as_millis(),
                limits.increments.1.as_millis()
            );
            if let Some(n) = limits.moves_to_go {
                let _ = write!(go, " movestogo {n}");
            }
        }
        if let Some(t) = limits.movetime {
            let _ = write!(go, " movetime {}", t.as_millis());
        }
        if let Some(n) = limits.nodes {
            let _ = write!(go, " nodes {n}");
        }
        if let Some(d) = limits.depth {
            let _ = write!(go, " depth {d}");
        }
        self.send(&go)?;
        let started = Instant::now();
        let deadline = started + timeout;
        let mut thought = Thought::default();
        loop {
            let line = self.read(deadline, started)?;
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.first() {
                Some(&"info") => read_uci_info(&words, &mut thought),
                Some(&"bestmove") => {
                    let token = words.get(1).copied().unwrap_or("");
                    if token.is_empty() || token == "(none)" {
                        return Err(EngineError::NoMove(token.to_string()));
                    }
                    return Ok((token.to_string(), thought));
                }
                _ => {}
            }
        }
    }

    /// Prepares a new game of a variant defined as data, which the engine
    /// calls `name` (UCI engines only: `UCI_Variant`; `UCI_Chess960` too
    /// for a Chess960 variant, whose castling is written king-takes-rook).
    pub fn new_data_game(&mut self, name: &str, chess960: bool) -> Result<(), EngineError> {
        match self.config.protocol {
            Protocol::Uci => {
                // An engine without the option would play chess instead.
                if !self.options.iter().any(|o| o == "uci_variant") {
                    return Err(EngineError::Unsupported(format!(
                        "the engine has no UCI option 'UCI_Variant', so it cannot be told to play {name}"
                    )));
                }
                self.send(&format!("setoption name UCI_Variant value {name}"))?;
                if chess960 && self.options.iter().any(|o| o == "uci_chess960") {
                    self.send("setoption name UCI_Chess960 value true")?;
                }
                self.send("ucinewgame")?;
                self.sync()
            }
            Protocol::Xboard => Err(EngineError::Unsupported(format!(
                "variants defined as data ({name}) are played by UCI engines only, not over XBoard"
            ))),
        }
    }

    /// Asks for a move in a game of a variant defined as data (moves in
    /// Fairy-Stockfish's coordinate notation) and waits up to `timeout`.
    pub fn think_data(
        &mut self,
        game: &menagerie_rules::Game,
        limits: &GoLimits,
        timeout: Duration,
    ) -> Result<Thought<menagerie_rules::Move>, EngineError> {
        self.drain();
        if self.config.protocol != Protocol::Uci {
            return Err(EngineError::Unsupported("variants defined as data are played by UCI engines only".into()));
        }
        let start = game.start();
        let mut cmd = if *start == menagerie_rules::Position::start(start.variant()) {
            "position startpos".to_string()
        } else {
            format!("position fen {}", start.fen())
        };
        if !game.moves().is_empty() {
            cmd.push_str(" moves");
            let mut p = start.clone();
            for &m in game.moves() {
                cmd.push(' ');
                cmd.push_str(&p.move_text(m));
                p = p.play(m);
            }
        }
        let (token, mut thought) = self.search_uci(&cmd, limits, timeout)?;
        let m = game.current().parse_move(&token).map_err(|_| EngineError::IllegalMove(token.clone()))?;
        thought.moves.push(m);
        Ok(thought)
    }

    fn think_xboard(
        &mut self,
        pos: &AnyPosition,
        limits: &GoLimits,
        timeout: Duration,
    ) -> Result<Thought, EngineError> {
        if let Some((w, b)) = limits.clocks {
            let (own, other) = if pos.side_to_move() == Color::White { (w, b) } else { (b, w) };
            self.send(&format!("time {}", own.as_millis() / 10))?;
            self.send(&format!("otim {}", other.as_millis() / 10))?;
        }
        self.send("go")?;
        let started = Instant::now();
        let deadline = started + timeout;
        let mut thought = Thought::default();
        loop {
            let line = self.read(deadline, started)?;
            let line = line.trim();
            let words: Vec<&str> = line.split_whitespace().collect();
            let Some(&first) = words.first() else { continue };
            let text = if first == "move" {
                words.get(1).copied()
            } else if line.starts_with("My move is") {
                line.split(':').nth(1).map(str::trim)
            } else {
                None
            };
            if let Some(text) = text {
                // Back to force mode at once: the engine neither ponders nor
                // plays on by itself.
                self.send("force")?;
                let played =
                    xboard::from_xboard(pos, text).ok_or_else(|| EngineError::IllegalMove(text.to_string()))?;
                thought.moves = played;
                return Ok(thought);
            }
            if first == "resign" {
                return Err(EngineError::Resigned);
            }
            if matches!(first, "1-0" | "0-1" | "1/2-1/2") {
                return Err(EngineError::FalseClaim(line.to_string()));
            }
            if first.starts_with("Illegal") || first == "Error" {
                return Err(EngineError::RejectedMove(line.to_string()));
            }
            // Thinking output: ply score time nodes pv.
            if let (Some(d), Some(s)) = (
                first.trim_end_matches(['.', '&']).parse::<u32>().ok(),
                words.get(1).and_then(|s| s.parse::<i32>().ok()),
            ) {
                thought.depth = Some(d);
                thought.score = Some(if s.abs() >= 100_000 { s.signum() * (MATE - (s.abs() - 100_000)) } else { s });
            }
        }
    }

    /// Tells an XBoard engine (in force mode) the opponent's moves since its
    /// last move; UCI engines get the whole game with each `position`.
    pub fn tell(&mut self, before: &AnyPosition, moves: &[Move]) -> Result<(), EngineError> {
        if self.config.protocol == Protocol::Uci {
            return Ok(());
        }
        let mut pos = *before;
        let mut i = 0;
        while i < moves.len() {
            let m = moves[i];
            // White's acceptance and placement are one XBoard move.
            let (text, played) = if m.kind == MoveKind::Accept
                && pos.side_to_move() == Color::White
                && moves.get(i + 1).is_some_and(|n| n.kind == MoveKind::Place)
            {
                let after = pos.play_unchecked(m);
                let place = moves[i + 1];
                (xboard::xboard_move(&after, place, false), 2)
            } else {
                (xboard::xboard_move(&pos, m, false), 1)
            };
            let text =
                text.unwrap_or_else(|| xboard::shift(&uci::format(pos.variant(), m), pos.variant().size().1, -1));
            if m.kind == MoveKind::Castle && pos.variant().rules().chess960 {
                self.tell_chess960_castling(&text, &uci::format_wire(&pos, m))?;
            } else {
                let line = if self.usermove { format!("usermove {text}") } else { text };
                self.send(&line)?;
            }
            for &m in &moves[i..i + played] {
                pos = pos.play_unchecked(m);
            }
            i += played;
        }
        Ok(())
    }

    /// Tells a Chess960 castling to an XBoard engine: in the protocol's
    /// `O-O`/`O-O-O` (`frc`), or king-takes-rook (`wire`, `e1h1`) for
    /// engines that refuse it (Fairy-Stockfish 11 answers `Error (unkown
    /// command): O-O`). Each try is followed by a `ping`, so a refusal is
    /// seen before the game goes on; the form that worked is kept.
    fn tell_chess960_castling(&mut self, frc: &str, wire: &str) -> Result<(), EngineError> {
        let forms: Vec<(bool, &str)> = match self.castles_king_takes_rook {
            Some(true) => vec![(true, wire)],
            Some(false) => vec![(false, frc)],
            None => vec![(false, frc), (true, wire)],
        };
        let mut refused = String::new();
        for (king_takes_rook, text) in forms {
            let line = if self.usermove { format!("usermove {text}") } else { text.to_string() };
            self.send(&line)?;
            self.send("ping 960")?;
            let mut error = None;
            self.read_until(self.config.start_timeout, |l| {
                if l.starts_with("Illegal") || l.starts_with("Error") {
                    error = Some(l.to_string());
                }
                l == "pong 960"
            })?;
            match error {
                None => {
                    self.castles_king_takes_rook = Some(king_takes_rook);
                    return Ok(());
                }
                Some(e) => refused = e,
            }
        }
        Err(EngineError::RejectedMove(refused))
    }

    /// Ends the process: `quit`, then a kill if it has not exited within 1 s.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// True when the side to move may pass (a prelude decline, written `0000`).
fn has_null_move(pos: &AnyPosition) -> bool {
    pos.legal_moves().iter().any(|m| m.kind == MoveKind::Decline)
}

/// Reads `score` and `depth` from a UCI `info` line.
fn read_uci_info<M>(words: &[&str], t: &mut Thought<M>) {
    let mut i = 1;
    let mut bound = false;
    let (mut score, mut depth) = (None, None);
    while i < words.len() {
        match words[i] {
            "depth" => depth = words.get(i + 1).and_then(|d| d.parse().ok()),
            "cp" => score = words.get(i + 1).and_then(|s| s.parse::<i32>().ok()),
            "mate" => {
                score = words.get(i + 1).and_then(|s| s.parse::<i32>().ok()).map(|m| {
                    let plies = (m.abs() * 2 - i32::from(m > 0)).min(MATE / 2);
                    m.signum() * (MATE - plies)
                })
            }
            "lowerbound" | "upperbound" => bound = true,
            "multipv" if words.get(i + 1).is_some_and(|n| *n != "1") => return,
            "pv" | "string" => break,
            _ => {}
        }
        i += 1;
    }
    if let Some(s) = score.filter(|_| !bound) {
        t.score = Some(s);
        t.depth = depth.or(t.depth);
    }
}

/// The values of a UCI combo option (`type combo default chess var chess
/// var alpaca`), lower case; none for another type.
fn combo_values(spec: &str) -> Vec<String> {
    let words: Vec<&str> = spec.split_whitespace().collect();
    if words.first() != Some(&"combo") {
        return Vec::new();
    }
    words.windows(2).filter(|w| w[0] == "var").map(|w| w[1].to_ascii_lowercase()).collect()
}

/// The `name=value` pairs of an XBoard `feature` line (values may be quoted).
fn features(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while let Some((name, after)) = rest.split_once('=') {
        let name = name.trim().to_string();
        let after = after.trim_start();
        let (value, next) = if let Some(q) = after.strip_prefix('"') {
            match q.split_once('"') {
                Some((v, n)) => (v.to_string(), n),
                None => (q.to_string(), ""),
            }
        } else {
            match after.split_once(char::is_whitespace) {
                Some((v, n)) => (v.to_string(), n),
                None => (after.to_string(), ""),
            }
        };
        out.push((name, value));
        rest = next.trim_start();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xboard_engines_get_xboard_names_for_the_games_it_knows() {
        let xb = EngineConfig { protocol: Protocol::Xboard, ..EngineConfig::uci("x") };
        assert_eq!(xb.variant_name("chess"), "normal");
        assert_eq!(xb.variant_name("chess960"), "fischerandom");
        assert_eq!(xb.variant_name("alpaca"), "alpaca");
        assert_eq!(EngineConfig::uci("u").variant_name("chess960"), "chess960");
    }

    #[test]
    fn uci_combo_values() {
        assert_eq!(
            combo_values("combo default chess var chess var Alpaca var chess960"),
            ["chess", "alpaca", "chess960"]
        );
        assert!(combo_values("string default <empty>").is_empty());
    }

    #[test]
    fn feature_lines() {
        let f = features("myname=\"Menagerie 0.1\" usermove=1 variants=\"normal,alpaca\" done=1");
        assert_eq!(f[0], ("myname".into(), "Menagerie 0.1".into()));
        assert_eq!(f[1], ("usermove".into(), "1".into()));
        assert_eq!(f[2], ("variants".into(), "normal,alpaca".into()));
        assert_eq!(f[3], ("done".into(), "1".into()));
    }

    #[test]
    fn uci_scores() {
        let mut t = Thought::<Move>::default();
        read_uci_info(&"info depth 7 score cp -35 nodes 10 pv e2e4".split(' ').collect::<Vec<_>>(), &mut t);
        assert_eq!((t.score, t.depth), (Some(-35), Some(7)));
        read_uci_info(&"info depth 9 score mate 2 pv e2e4".split(' ').collect::<Vec<_>>(), &mut t);
        assert_eq!(t.score, Some(MATE - 3));
        read_uci_info(&"info depth 9 score mate -1 pv e2e4".split(' ').collect::<Vec<_>>(), &mut t);
        assert_eq!(t.score, Some(-(MATE - 2)));
        // Bounds and secondary lines do not count.
        read_uci_info(&"info depth 10 score cp 500 lowerbound".split(' ').collect::<Vec<_>>(), &mut t);
        read_uci_info(&"info depth 10 multipv 2 score cp 400".split(' ').collect::<Vec<_>>(), &mut t);
        assert_eq!(t.score, Some(-(MATE - 2)));
    }
}

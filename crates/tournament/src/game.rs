//! One game between two engines: clocks, adjudication by Menagerie's
//! rules, and the PGN record with the reason the game ended.

use crate::engine::{Engine, EngineConfig, EngineError, GoLimits, MATE};
use crate::openings::Opening;
use crate::referee::{CompiledGame, DataGame, Pgn, Referee, RulesEnd};
use menagerie_notation::pgn::GameResult;
use menagerie_pieces::Color;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use thiserror::Error;

/// How long each side may think.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TimeControl {
    /// A clock: `base` for the game (or for each `moves` moves), plus
    /// `increment` after each move.
    Clock {
        /// Moves per period (None: the whole game).
        moves: Option<u32>,
        /// Time per period.
        base: Duration,
        /// Added after each move.
        increment: Duration,
    },
    /// A fixed time per move.
    MoveTime(Duration),
    /// A fixed number of nodes per move.
    Nodes(u64),
    /// A fixed depth per move.
    Depth(u32),
}

/// A time control that could not be read.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
#[error("'{0}' is not a time control (examples: 10+0.1, 40/60, 40/60+0.5, 60)")]
pub struct TimeControlError(pub String);

impl TimeControl {
    /// Reads cutechess-style clock notation: `[moves/]seconds[+increment]`,
    /// seconds also as `m:ss` (`10+0.1`, `40/60`, `2:30+1`).
    pub fn parse_clock(text: &str) -> Result<TimeControl, TimeControlError> {
        let err = || TimeControlError(text.chars().take(64).collect());
        let (moves, rest) = match text.split_once('/') {
            Some((m, r)) => (Some(m.trim().parse::<u32>().ok().filter(|&m| m > 0).ok_or_else(err)?), r),
            None => (None, text),
        };
        let (base, inc) = rest.split_once('+').unwrap_or((rest, "0"));
        let seconds = |s: &str| -> Option<f64> {
            let s = s.trim();
            let v = match s.split_once(':') {
                Some((m, sec)) => m.parse::<f64>().ok()? * 60.0 + sec.parse::<f64>().ok()?,
                None => s.parse::<f64>().ok()?,
            };
            (v.is_finite() && (0.0..1e7).contains(&v)).then_some(v)
        };
        let base = seconds(base).filter(|&b| b > 0.0).ok_or_else(err)?;
        let inc = seconds(inc).ok_or_else(err)?;
        Ok(TimeControl::Clock { moves, base: Duration::from_secs_f64(base), increment: Duration::from_secs_f64(inc) })
    }

    /// The PGN `TimeControl` tag value: `40/60`, `600+0.1`, `60`; a fixed
    /// time per move as `*` plus seconds is not in the standard, so it is
    /// written as the standard's `1/seconds`; nodes and depth as `-`.
    pub fn pgn_tag(&self) -> String {
        let secs = |d: Duration| {
            let s = d.as_secs_f64();
            if s.fract() == 0.0 { format!("{}", s as u64) } else { format!("{s}") }
        };
        match *self {
            TimeControl::Clock { moves, base, increment } => {
                let mut s = moves.map_or_else(String::new, |m| format!("{m}/"));
                s.push_str(&secs(base));
                if !increment.is_zero() {
                    s.push('+');
                    s.push_str(&secs(increment));
                }
                s
            }
            TimeControl::MoveTime(t) => format!("1/{}", secs(t)),
            TimeControl::Nodes(_) | TimeControl::Depth(_) => "-".into(),
        }
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeControl::Clock { .. } => f.write_str(&self.pgn_tag()),
            TimeControl::MoveTime(t) => write!(f, "{} s/move", t.as_secs_f64()),
            TimeControl::Nodes(n) => write!(f, "{n} nodes/move"),
            TimeControl::Depth(d) => write!(f, "depth {d}"),
        }
    }
}

/// Optional adjudication by the engines' scores (the rules' own ends —
/// mate, stalemate, the variants' wins, repetition, fifty moves,
/// insufficient material — always apply).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Adjudication {
    /// Resign: a side whose engine reports a score of at least `score`
    /// centipawns against itself for `moves` consecutive moves, while the
    /// opponent's engine agrees, loses.
    pub resign: Option<ResignRule>,
    /// Draw: from move `from_move` on, both engines report |score| ≤
    /// `score` for `moves` consecutive moves each.
    pub draw: Option<DrawRule>,
    /// A game reaching this many full moves is drawn.
    pub max_moves: Option<u32>,
}

/// See [`Adjudication::resign`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ResignRule {
    /// Consecutive moves of each engine.
    pub moves: u32,
    /// Centipawns.
    pub score: i32,
}

/// See [`Adjudication::draw`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct DrawRule {
    /// First full move at which it applies.
    pub from_move: u32,
    /// Consecutive moves of each engine.
    pub moves: u32,
    /// Centipawns.
    pub score: i32,
}

/// What every game of a match is played under: the clocks, adjudication,
/// the time allowances and the PGN labels.
#[derive(Clone, Debug)]
pub struct Conditions {
    /// The clocks, for an engine without its own ([`EngineConfig::time`]).
    pub time: TimeControl,
    /// Score-based adjudication.
    pub adjudication: Adjudication,
    /// Time an engine may exceed its clock by before it loses on time.
    pub time_margin: Duration,
    /// Longest wait for a move when no clock limits it (fixed nodes or
    /// depth), and the extra wait beyond a fixed move time.
    pub move_timeout: Duration,
    /// PGN `Event`.
    pub event: String,
    /// PGN `Site`.
    pub site: String,
}

/// Everything needed to play one game.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// The engine playing White.
    pub white: EngineConfig,
    /// The engine playing Black.
    pub black: EngineConfig,
    /// The position the game starts from (the opening's own position) and
    /// the book moves played from it before the engines take over.
    pub opening: Opening,
    /// The match's conditions.
    pub conditions: Conditions,
    /// PGN `Round`.
    pub round: String,
}

impl GameSpec {
    /// White's and Black's time controls: each engine's own, else the game's.
    pub fn times(&self) -> [TimeControl; 2] {
        let time = self.conditions.time;
        [self.white.time.unwrap_or(time), self.black.time.unwrap_or(time)]
    }
}

/// Why a game ended.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Termination {
    /// By the rules (mate, stalemate, a variant's win, a draw rule).
    Rules(RulesEnd),
    /// A side's engine failed (illegal move, crash, silence, time, resignation...).
    Engine {
        /// The side whose engine failed.
        loser: Color,
        /// What happened.
        error: EngineError,
    },
    /// A side lost on time (its move came after its clock ran out).
    Flag(Color),
    /// Adjudicated by score: a win for `winner`, or a draw.
    Adjudicated(Option<Color>),
    /// The game reached the maximum length.
    MaxMoves,
    /// The match was stopped while the game was in progress.
    Stopped,
}

impl Termination {
    /// The PGN `Termination` tag value (the standard's vocabulary).
    pub fn tag(&self) -> &'static str {
        match self {
            Termination::Rules(_) => "normal",
            Termination::Engine { error: EngineError::Silent(_), .. } | Termination::Flag(_) => "time forfeit",
            Termination::Engine { error: EngineError::Resigned, .. } => "normal",
            Termination::Engine { error: EngineError::Disconnected { .. } | EngineError::Spawn { .. }, .. } => {
                "abandoned"
            }
            Termination::Engine { .. } => "rules infraction",
            Termination::Adjudicated(_) | Termination::MaxMoves => "adjudication",
            Termination::Stopped => "unterminated",
        }
    }

    /// A sentence for the PGN's final comment and the logs, e.g. `Black
    /// makes an illegal move: e7e5q`.
    pub fn describe(&self) -> String {
        match self {
            Termination::Rules(o) => capitalise(&o.describe()),
            Termination::Engine { loser, error } => match error {
                EngineError::Resigned => format!("{} resigns", loser.name()),
                EngineError::IllegalMove(m) => format!("{} makes an illegal move: {m}", loser.name()),
                EngineError::Silent(s) => {
                    format!("{}'s engine does not move ({:.1} s without a move)", loser.name(), s.as_secs_f64())
                }
                e => format!("{}'s engine: {e}", loser.name()),
            },
            Termination::Flag(c) => format!("{} loses on time", c.name()),
            Termination::Adjudicated(Some(w)) => format!("{} wins by adjudication (score)", w.name()),
            Termination::Adjudicated(None) => "Draw by adjudication (score)".into(),
            Termination::MaxMoves => "Draw by adjudication (maximum game length)".into(),
            Termination::Stopped => "The match was stopped".into(),
        }
    }

    /// The game's result.
    pub fn result(&self) -> GameResult {
        let win = |c: Color| if c == Color::White { GameResult::WhiteWins } else { GameResult::BlackWins };
        match self {
            Termination::Rules(o) => o.result(),
            Termination::Engine { loser, .. } | Termination::Flag(loser) => win(loser.flip()),
            Termination::Adjudicated(Some(w)) => win(*w),
            Termination::Adjudicated(None) | Termination::MaxMoves => GameResult::Draw,
            Termination::Stopped => GameResult::Unknown,
        }
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The game as PGN: tags (players, variant, time control, result and
    /// its reason), moves with the engines' scores, depths and times.
    pub pgn: Pgn,
    /// Why it ended.
    pub termination: Termination,
    /// Plies played by the engines (the opening excluded).
    pub plies: usize,
}

impl GameRecord {
    /// The result.
    pub fn result(&self) -> GameResult {
        self.termination.result()
    }
}

/// Plays one game; `stop` ends it early (result `*`).
pub fn play(spec: &GameSpec, stop: &AtomicBool) -> GameRecord {
    match &spec.opening {
        Opening::Compiled { start, moves } => play_with(spec, CompiledGame::new(*start, moves), stop),
        Opening::Data { start, moves } => play_with(spec, DataGame::new(start.clone(), moves), stop),
    }
}

/// Plays one game of either kind: `book_ok` is false when a book move was illegal.
fn play_with<R: Referee>(spec: &GameSpec, (mut game, book_ok): (R, bool), stop: &AtomicBool) -> GameRecord {
    game.set_tag("Event", &spec.conditions.event);
    game.set_tag("Site", &spec.conditions.site);
    game.set_tag("Date", &today());
    game.set_tag("Round", &spec.round);
    game.set_tag("White", &spec.white.name);
    game.set_tag("Black", &spec.black.name);
    let [white, black] = spec.times();
    if white == black {
        game.set_tag("TimeControl", &white.pgn_tag());
    } else {
        // Odds: each side's own control, no common one (as cutechess writes).
        game.set_tag("WhiteTimeControl", &white.pgn_tag());
        game.set_tag("BlackTimeControl", &black.pgn_tag());
    }
    game.comment_last("book".into());
    let (termination, plies) = if book_ok { run(spec, &mut game, stop) } else { (Termination::Stopped, 0) };
    let text = termination.describe();
    if plies == 0 || !game.comment_last(text.clone()) {
        game.comment_game(text.clone());
    }
    game.set_tag("Termination", termination.tag());
    game.set_tag("TerminationDetails", &text);
    game.set_tag("PlyCount", &game.len().to_string());
    let pgn = game.into_pgn(termination.result());
    GameRecord { pgn, termination, plies }
}

/// The engines' side of the game: returns why it ended and the plies played.
fn run<R: Referee>(spec: &GameSpec, game: &mut R, stop: &AtomicBool) -> (Termination, usize) {
    let times = spec.times();
    let mut engines: [Option<Engine>; 2] = [None, None];
    for (i, config) in [&spec.white, &spec.black].into_iter().enumerate() {
        let side = if i == 0 { Color::White } else { Color::Black };
        let level = go_limits(&times[i], [None, None], [Duration::ZERO; 2], 0);
        match Engine::start(config).and_then(|mut e| game.new_game(&mut e, &level).map(|()| e)) {
            Ok(e) => engines[i] = Some(e),
            Err(error) => return (Termination::Engine { loser: side, error }, 0),
        }
    }
    // Each side's clock, when it plays on one (an odds match may give one
    // side a clock and the other fixed nodes).
    let mut clocks = times.map(|t| match t {
        TimeControl::Clock { base, .. } => Some(base),
        _ => None,
    });
    let increments = times.map(|t| match t {
        TimeControl::Clock { increment, .. } => increment,
        _ => Duration::ZERO,
    });
    // Moves each engine has been told about (XBoard engines get moves one by one).
    let mut told = [0usize; 2];
    let mut own_moves = [0u32; 2];
    // Consecutive scores (from White's point of view) for adjudication.
    let mut history: Vec<(Color, i32)> = Vec::new();
    let mut plies = 0;
    let result = loop {
        if let Some(o) = game.rules_end() {
            break Termination::Rules(o);
        }
        if stop.load(Ordering::Relaxed) {
            break Termination::Stopped;
        }
        let side = game.side_to_move();
        if let Some(max) = spec.conditions.adjudication.max_moves
            && game.fullmoves_played() >= max
        {
            break Termination::MaxMoves;
        }
        let idx = if side == Color::White { 0 } else { 1 };
        let Some(engine) = engines[idx].as_mut() else { break Termination::Stopped };
        if let Err(error) = game.tell(engine, told[idx]) {
            break Termination::Engine { loser: side, error };
        }
        let limits = go_limits(&times[idx], clocks, increments, own_moves[idx]);
        let timeout = match (clocks[idx], times[idx]) {
            (Some(c), _) => c + spec.conditions.time_margin,
            (None, TimeControl::MoveTime(t)) => t + spec.conditions.time_margin.max(spec.conditions.move_timeout),
            _ => spec.conditions.move_timeout,
        };
        let started = Instant::now();
        let answer = game.think(engine, &limits, timeout);
        let elapsed = started.elapsed();
        let thought = match answer {
            Ok(t) => t,
            Err(EngineError::Silent(_)) if clocks[idx].is_some() => break Termination::Flag(side),
            Err(error) => break Termination::Engine { loser: side, error },
        };
        if let Some(c) = clocks[idx].as_mut() {
            if elapsed > *c + spec.conditions.time_margin {
                break Termination::Flag(side);
            }
            *c = c.saturating_sub(elapsed);
            if let TimeControl::Clock { moves, base, increment } = times[idx] {
                *c += increment;
                if moves.is_some_and(|m| (own_moves[idx] + 1) % m == 0) {
                    *c += base;
                }
            }
        }
        own_moves[idx] += 1;
        let mut illegal = None;
        for &m in &thought.moves {
            if let Err(text) = game.play(m) {
                illegal = Some(text);
                break;
            }
            plies += 1;
        }
        if let Some(text) = illegal {
            break Termination::Engine { loser: side, error: EngineError::IllegalMove(text) };
        }
        told[idx] = game.len();
        game.comment_last(move_comment(thought.score, thought.depth, elapsed, clocks[idx]));
        if let Some(s) = thought.score {
            history.push((side, if side == Color::White { s } else { -s }));
            if let Some(t) = adjudicate(&spec.conditions.adjudication, &history, game.fullmoves_played()) {
                break t;
            }
        }
    };
    for e in engines.into_iter().flatten() {
        e.quit();
    }
    (result, plies)
}

/// `+0.35/12 0.510s` as cutechess writes it (mates as `+M3`), then the
/// move's time as `[%emt 0:00:00.510]` and, on a clock, the mover's time
/// left after it (increment included) as `[%clk 0:00:58.490]`: the
/// commands PGN viewers and python-chess read.
fn move_comment(score: Option<i32>, depth: Option<u32>, elapsed: Duration, clock: Option<Duration>) -> String {
    let mut text = engine_comment(score, depth, elapsed);
    text.push_str(&format!(" [%emt {}]", clock_text(elapsed)));
    if let Some(c) = clock {
        text.push_str(&format!(" [%clk {}]", clock_text(c)));
    }
    text
}

/// `h:mm:ss.mmm`.
fn clock_text(d: Duration) -> String {
    let ms = d.as_millis();
    format!("{}:{:02}:{:02}.{:03}", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
}

/// The score, depth and time of a move as cutechess writes them.
fn engine_comment(score: Option<i32>, depth: Option<u32>, elapsed: Duration) -> String {
    let time = format!("{:.3}s", elapsed.as_secs_f64());
    match (score, depth) {
        (Some(s), d) => {
            let score = if s.abs() >= MATE - 1000 {
                let plies = MATE - s.abs();
                format!("{}M{}", if s > 0 { "+" } else { "-" }, (plies + 1) / 2)
            } else {
                format!("{:+.2}", f64::from(s) / 100.0)
            };
            match d {
                Some(d) => format!("{score}/{d} {time}"),
                None => format!("{score} {time}"),
            }
        }
        (None, _) => time,
    }
}

/// The limits of one move of the side playing at `time`: `clocks` and
/// `increments` are White's and Black's (a side without a clock is shown
/// the mover's own).
fn go_limits(time: &TimeControl, clocks: [Option<Duration>; 2], increments: [Duration; 2], own_moves: u32) -> GoLimits {
    match *time {
        TimeControl::Clock { moves, increment, base } => GoLimits {
            clocks: {
                let own = clocks.iter().flatten().next().copied().unwrap_or(base);
                let [w, b] = clocks.map(|c| c.unwrap_or(own));
                Some((w, b))
            },
            increments: (
                if clocks[0].is_some() { increments[0] } else { increment },
                if clocks[1].is_some() { increments[1] } else { increment },
            ),
            moves_to_go: moves.map(|m| m - own_moves % m),
            ..GoLimits::default()
        },
        TimeControl::MoveTime(t) => GoLimits { movetime: Some(t), ..GoLimits::default() },
        TimeControl::Nodes(n) => GoLimits { nodes: Some(n), ..GoLimits::default() },
        TimeControl::Depth(d) => GoLimits { depth: Some(d), ..GoLimits::default() },
    }
}

/// Score adjudication over the scores so far (White's point of view, in
/// the order reported).
fn adjudicate(rules: &Adjudication, history: &[(Color, i32)], fullmoves: u32) -> Option<Termination> {
    if let Some(r) = rules.resign {
        let n = (r.moves as usize) * 2;
        if n > 0 && history.len() >= n {
            let tail = &history[history.len() - n..];
            if tail.iter().all(|&(_, s)| s <= -r.score) {
                return Some(Termination::Adjudicated(Some(Color::Black)));
            }
            if tail.iter().all(|&(_, s)| s >= r.score) {
                return Some(Termination::Adjudicated(Some(Color::White)));
            }
        }
    }
    if let Some(d) = rules.draw {
        let n = (d.moves as usize) * 2;
        if n > 0 && fullmoves >= d.from_move && history.len() >= n {
            let tail = &history[history.len() - n..];
            if tail.iter().all(|&(_, s)| s.abs() <= d.score) {
                return Some(Termination::Adjudicated(None));
            }
        }
    }
    None
}

/// Today's date as PGN writes it (UTC).
fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_notation() {
        let tc = TimeControl::parse_clock("10+0.1").unwrap();
        assert_eq!(
            tc,
            TimeControl::Clock { moves: None, base: Duration::from_secs(10), increment: Duration::from_millis(100) }
        );
        assert_eq!(tc.pgn_tag(), "10+0.1");
        assert_eq!(TimeControl::parse_clock("40/60").unwrap().pgn_tag(), "40/60");
        assert_eq!(TimeControl::parse_clock("2:30+1").unwrap().pgn_tag(), "150+1");
        for bad in ["", "abc", "0", "-5", "40/", "0/60", "10+x", "1e30", "NaN"] {
            assert!(TimeControl::parse_clock(bad).is_err(), "{bad}");
        }
        assert_eq!(TimeControl::MoveTime(Duration::from_millis(500)).pgn_tag(), "1/0.5");
    }

    #[test]
    fn score_adjudication() {
        let rules = Adjudication {
            resign: Some(ResignRule { moves: 2, score: 600 }),
            draw: Some(DrawRule { from_move: 30, moves: 2, score: 10 }),
            max_moves: None,
        };
        let lost = [(Color::White, -700), (Color::Black, -650), (Color::White, -800), (Color::Black, -900)];
        assert_eq!(adjudicate(&rules, &lost, 20), Some(Termination::Adjudicated(Some(Color::Black))));
        // One engine disagrees: no resignation.
        let disputed = [(Color::White, -700), (Color::Black, 0), (Color::White, -800), (Color::Black, -900)];
        assert_eq!(adjudicate(&rules, &disputed, 20), None);
        let quiet = [(Color::White, 5), (Color::Black, -3), (Color::White, 0), (Color::Black, 10)];
        assert_eq!(adjudicate(&rules, &quiet, 29), None);
        assert_eq!(adjudicate(&rules, &quiet, 30), Some(Termination::Adjudicated(None)));
    }

    #[test]
    fn each_side_is_told_its_own_limit_and_a_clockless_opponent_shows_the_movers_clock() {
        let s = Duration::from_secs;
        let ms = Duration::from_millis;
        let clock = TimeControl::Clock { moves: Some(40), base: s(60), increment: ms(500) };
        // White on the clock, Black at fixed nodes: White sees its own time for both.
        let white = go_limits(&clock, [Some(s(42)), None], [ms(500), Duration::ZERO], 3);
        assert_eq!(white.clocks, Some((s(42), s(42))));
        assert_eq!(white.increments, (ms(500), ms(500)));
        assert_eq!(white.moves_to_go, Some(37));
        assert_eq!((white.nodes, white.depth, white.movetime), (None, None, None));
        let black = go_limits(&TimeControl::Nodes(10_000), [Some(s(42)), None], [ms(500), Duration::ZERO], 3);
        assert_eq!((black.nodes, black.clocks), (Some(10_000), None));
        // Both on clocks of their own: each side's time and increment.
        let other = TimeControl::Clock { moves: None, base: s(10), increment: ms(100) };
        let b = go_limits(&other, [Some(s(42)), Some(s(7))], [ms(500), ms(100)], 3);
        assert_eq!((b.clocks, b.increments, b.moves_to_go), (Some((s(42), s(7))), (ms(500), ms(100)), None));
        // Before the first move (the XBoard level command): the control's base.
        assert_eq!(go_limits(&clock, [None, None], [Duration::ZERO; 2], 0).clocks, Some((s(60), s(60))));
    }

    #[test]
    fn clock_comments() {
        let ms = Duration::from_millis;
        assert_eq!(
            move_comment(Some(35), Some(12), ms(510), Some(ms(3_718_490))),
            "+0.35/12 0.510s [%emt 0:00:00.510] [%clk 1:01:58.490]"
        );
        assert_eq!(move_comment(None, None, ms(5), None), "0.005s [%emt 0:00:00.005]");
    }

    #[test]
    fn dates() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"), "{d}");
    }
}

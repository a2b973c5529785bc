//! Matches and tournaments between engines in every Menagerie variant.
//!
//! No other tournament runner knows the prelude, gating, kidnapping,
//! takeovers or the 10x10 board, so Menagerie referees its own games: the
//! engines speak UCI or XBoard ([`engine`]), Menagerie's rules decide
//! legality and the end of each game ([`game`]), openings come from EPD or
//! PGN files ([`openings`]) and are played with both colours, and the
//! result is an Elo difference with its error, the likelihood of
//! superiority and, optionally, an SPRT that stops the match early
//! ([`stats`]).
//!
//! The variants defined as data (`menagerie_rules`: Fairy-Stockfish's
//! `variants.ini`, built in or loaded) are played through the same loop
//! ([`referee`]), by UCI engines that know them by name (`UCI_Variant`),
//! with their game ends including Fairy-Stockfish's optional ones
//! (repetition, n-move rule, counting) and PGN written with their SAN.
//!
//! [`run`] plays a round robin or a gauntlet of the configured engines (a
//! match for two) over one or more rounds, several games at once; an
//! engine is started for each game, so one that crashes loses that game
//! and the match goes on with a fresh process.

pub mod engine;
pub mod game;
pub mod openings;
pub mod referee;
pub mod stats;

pub use engine::{EngineConfig, EngineError, Protocol};
pub use game::{Adjudication, Conditions, DrawRule, GameRecord, GameSpec, ResignRule, Termination, TimeControl};
pub use openings::Opening;
pub use referee::{Pgn, RulesEnd};
pub use stats::{Score, Sprt, SprtState};

#[cfg(test)]
mod tests;

use menagerie_notation::pgn::GameResult;
use menagerie_rules::VariantDef;
use menagerie_variants::VariantId;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;

/// A whole match or tournament.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The engines (at least two); every pair meets.
    pub engines: Vec<EngineConfig>,
    /// The variant played.
    pub variant: MatchVariant,
    /// Openings, used in order (see [`openings::shuffle`] for a random
    /// one); each is played `repeat` times in a row per pair, colours
    /// alternating.
    pub openings: Vec<Opening>,
    /// Who meets whom.
    pub tournament: Tournament,
    /// Games per pair of engines in each round.
    pub games: u32,
    /// Rounds: every pair plays `games` games in each.
    pub rounds: u32,
    /// Games played with each opening before the next (2: once with each
    /// colour, as cutechess's `-repeat`).
    pub repeat: u32,
    /// Games played at the same time.
    pub concurrency: usize,
    /// What every game is played under: clocks, adjudication, allowances,
    /// PGN labels.
    pub conditions: Conditions,
    /// Stop early when this test decides (two engines only).
    pub sprt: Option<Sprt>,
}

/// The variant of a match: compiled, or defined as data (Fairy-Stockfish's
/// `variants.ini`: played by UCI engines told its name with `UCI_Variant`).
#[derive(Clone, Debug)]
pub enum MatchVariant {
    /// A compiled variant.
    Compiled(VariantId),
    /// A variant defined as data.
    Data(Arc<VariantDef>),
}

impl MatchVariant {
    /// Its name.
    pub fn name(&self) -> &str {
        match self {
            MatchVariant::Compiled(v) => v.name(),
            MatchVariant::Data(d) => &d.name,
        }
    }
}

/// Who meets whom.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Tournament {
    /// Every engine meets every other.
    #[default]
    RoundRobin,
    /// The first engine meets each of the others; they do not meet each other.
    Gauntlet,
}

/// One scheduled game: engines by index into [`MatchConfig::engines`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Pairing {
    /// 1-based game number.
    pub number: usize,
    /// White's engine.
    pub white: usize,
    /// Black's engine.
    pub black: usize,
    /// Index of the opening.
    pub opening: usize,
}

/// The schedule, round by round: in each round every pair (a, b) of the
/// tournament, in order, plays `games` games. A pair's `g`-th game over
/// all rounds uses opening `g / repeat` (cycling) and gives White to `a`
/// when `g` is even.
pub fn schedule(config: &MatchConfig) -> Vec<Pairing> {
    let n = config.engines.len();
    let pairs: Vec<(usize, usize)> = match config.tournament {
        Tournament::RoundRobin => (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect(),
        Tournament::Gauntlet => (1..n).map(|b| (0, b)).collect(),
    };
    let per_round = config.games as usize;
    let repeat = config.repeat.max(1) as usize;
    let mut out = Vec::new();
    for round in 0..config.rounds.max(1) as usize {
        for &(a, b) in &pairs {
            for k in 0..per_round {
                let g = round * per_round + k;
                let (white, black) = if g % 2 == 0 { (a, b) } else { (b, a) };
                let opening = (g / repeat) % config.openings.len().max(1);
                out.push(Pairing { number: out.len() + 1, white, black, opening });
            }
        }
    }
    out
}

/// Results so far.
#[derive(Clone, Debug, Default)]
pub struct Standings {
    /// `scores[a][b]`: engine a's results against engine b.
    pub scores: Vec<Vec<Score>>,
    /// Games finished.
    pub finished: usize,
    /// Games scheduled.
    pub scheduled: usize,
    /// How the finished games ended, by [`Termination::describe`] kind:
    /// (PGN `Termination` value, count).
    pub terminations: Vec<(String, usize)>,
    /// The SPRT's state and log-likelihood ratio, when one runs.
    pub sprt: Option<(SprtState, f64)>,
}

impl Standings {
    /// Engine `a`'s total score against everyone.
    pub fn total(&self, a: usize) -> Score {
        self.scores[a].iter().fold(Score::default(), |t, s| Score {
            wins: t.wins + s.wins,
            draws: t.draws + s.draws,
            losses: t.losses + s.losses,
        })
    }
}

/// What [`run`] reports as it goes.
#[derive(Debug)]
pub enum Event<'a> {
    /// A game started.
    Started(Pairing),
    /// A game ended; the standings include it.
    Finished {
        /// Which game.
        pairing: Pairing,
        /// The game.
        record: Box<GameRecord>,
        /// Results so far.
        standings: &'a Standings,
    },
}

/// Plays the match: `concurrency` games at a time, in schedule order. New
/// games stop being started when `stop` is set or the SPRT decides; games
/// in progress finish (with `stop`, they end at once, result `*`, and are
/// not counted). Returns the final standings.
pub fn run(config: &MatchConfig, stop: &AtomicBool, mut on_event: impl FnMut(Event<'_>)) -> Standings {
    let plan = schedule(config);
    let n = config.engines.len();
    let mut standings =
        Standings { scores: vec![vec![Score::default(); n]; n], scheduled: plan.len(), ..Standings::default() };
    let next = AtomicUsize::new(0);
    let no_more = AtomicBool::new(false);
    let (tx, rx) = channel::<(Pairing, Option<GameRecord>)>();
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.max(1) {
            let tx = tx.clone();
            let (plan, next, no_more) = (&plan, &next, &no_more);
            scope.spawn(move || {
                loop {
                    if no_more.load(Ordering::Relaxed) || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&p) = plan.get(i) else { break };
                    if tx.send((p, None)).is_err() {
                        break;
                    }
                    let record = game::play(&spec(config, p), stop);
                    if tx.send((p, Some(record))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (p, record) in rx {
            let Some(record) = record else {
                on_event(Event::Started(p));
                continue;
            };
            let result = record.result();
            if result != GameResult::Unknown {
                let (w, b) = (p.white, p.black);
                match result {
                    GameResult::WhiteWins => {
                        standings.scores[w][b].wins += 1;
                        standings.scores[b][w].losses += 1;
                    }
                    GameResult::BlackWins => {
                        standings.scores[w][b].losses += 1;
                        standings.scores[b][w].wins += 1;
                    }
                    _ => {
                        standings.scores[w][b].draws += 1;
                        standings.scores[b][w].draws += 1;
                    }
                }
                standings.finished += 1;
                let tag = record.termination.tag().to_string();
                match standings.terminations.iter_mut().find(|(t, _)| *t == tag) {
                    Some(slot) => slot.1 += 1,
                    None => standings.terminations.push((tag, 1)),
                }
                if let Some(t) = config.sprt.filter(|_| n == 2) {
                    let s = standings.scores[0][1];
                    let state = t.state(&s);
                    standings.sprt = Some((state, t.llr(&s)));
                    if state != SprtState::Continue {
                        no_more.store(true, Ordering::Relaxed);
                    }
                }
            }
            on_event(Event::Finished { pairing: p, record: Box::new(record), standings: &standings });
        }
    });
    standings
}

/// The game to play for a pairing.
fn spec(config: &MatchConfig, p: Pairing) -> GameSpec {
    let opening = config.openings.get(p.opening).cloned().unwrap_or_else(|| Opening::start_of(&config.variant));
    GameSpec {
        white: config.engines[p.white].clone(),
        black: config.engines[p.black].clone(),
        opening,
        conditions: config.conditions.clone(),
        round: p.number.to_string(),
    }
}

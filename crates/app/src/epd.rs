//! Verifying EPD perft suites: the positions of a suite, the (line, depth)
//! jobs to count, each line's verdict from its jobs' outcomes, and the
//! tally. How the leaves are counted (threads here, replicas, a server's
//! caps) is the front end's business.
//!
//! A line passes when at least one of its depths was checked and every
//! checked depth matched; it is skipped when none was checked, which is
//! never a pass; it fails on any mismatch, a bad FEN or a job error.
//!
//! ```
//! use menagerie_app::{VariantRef, Variants, epd};
//! use menagerie_variants::VariantId;
//! let chess = VariantRef::Compiled(VariantId::Chess);
//! let suite = epd::read(&Variants::builtin(), "8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3 ;D9 1\n", &chess)?;
//! let line = &suite[0];
//! let mut check = epd::LineCheck::default();
//! for (depth, expected) in line.depths(5) {
//!     let actual = line.position.as_ref().map_or(0, |p| p.perft(depth));
//!     check.depth(depth, expected, epd::DepthOutcome::Counted { actual, pass: actual == expected });
//! }
//! let mut tally = epd::Tally::default();
//! tally.add(&check.verdict(&line.epd.depths, 5));
//! assert_eq!(tally, epd::Tally { passed: 1, failed: 0, skipped: 0 });
//! # Ok::<(), menagerie_app::epd::EpdError>(())
//! ```

use crate::{DataPosition, GamePosition, VariantRef, Variants};
use menagerie_notation::epd;
use menagerie_notation::fen;

pub use menagerie_notation::epd::{EpdError, EpdLine};

/// A suite line with the position it names.
#[derive(Clone, Debug)]
pub struct SuiteLine {
    /// The line as read.
    pub epd: EpdLine<VariantRef>,
    /// Its variant: the one it names, else the suite's default.
    pub variant: VariantRef,
    /// Its FEN read in that variant, or why it does not parse.
    pub position: Result<GamePosition, String>,
}

impl SuiteLine {
    /// The depths of the line to check at most `max` deep, with their
    /// expected counts, in the order given.
    pub fn depths(&self, max: u32) -> impl Iterator<Item = (u32, u64)> + '_ {
        depths_at_most(&self.epd.depths, max)
    }
}

/// The word a suite line may give instead of a FEN for its variant's start
/// position.
pub const STARTPOS: &str = "startpos";

/// Reads a suite whose lines without a `;variant` opcode are `default`
/// positions (`startpos` for the start position, which the line then
/// holds as its FEN); variant names are looked up in `variants`.
pub fn read(variants: &Variants, text: &str, default: &VariantRef) -> Result<Vec<SuiteLine>, EpdError> {
    let lines = epd::parse_with(text, |name| variants.find(name))?;
    Ok(lines
        .into_iter()
        .map(|mut epd| {
            let variant = epd.variant.clone().unwrap_or_else(|| default.clone());
            if epd.fen == STARTPOS {
                epd.fen = variant.start_fen().to_string();
            }
            let position = match &variant {
                VariantRef::Compiled(v) => {
                    fen::parse(*v, &epd.fen).map(GamePosition::Compiled).map_err(|e| e.to_string())
                }
                VariantRef::Data(def) => {
                    DataPosition::from_fen(def, &epd.fen).map(GamePosition::Data).map_err(|e| e.to_string())
                }
            };
            SuiteLine { epd, variant, position }
        })
        .collect())
}

/// Reads one suite line (`None` for a blank or comment line), its variant
/// named in `variants`.
pub fn read_line(variants: &Variants, text: &str) -> Result<Option<EpdLine>, EpdError> {
    epd::parse_line_with(text, 1, |name| variants.lookup(name))
}

/// The entries of `depths` at most `max` deep, in order.
pub fn depths_at_most(depths: &[(u32, u64)], max: u32) -> impl Iterator<Item = (u32, u64)> + '_ {
    depths.iter().copied().filter(move |(d, _)| *d <= max)
}

/// The id of the job of suite line `line` at `depth`: the same on every
/// run and every front end, so that a run can resume another's results.
pub fn job_id(line: usize, depth: u32) -> String {
    format!("line{line}-d{depth}")
}

/// The suite line of a [`job_id`].
pub fn line_of(id: &str) -> Option<usize> {
    id.strip_prefix("line").and_then(|r| r.split('-').next()).and_then(|n| n.parse().ok())
}

/// Why a line with `depths` had nothing checked at most `max` deep.
pub fn skip_reason(depths: &[(u32, u64)], max: u32) -> String {
    if depths.is_empty() {
        return "no depths given".into();
    }
    if depths.iter().any(|(d, _)| *d <= max) {
        return "the server checked nothing".into();
    }
    let list: Vec<String> = depths.iter().map(|(d, _)| format!("D{d}")).collect();
    format!("every depth is above the maximum {max} ({})", list.join(", "))
}

/// What came of one (line, depth) job.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum DepthOutcome {
    /// Counted: `actual` leaves, and the counter's own verdict (a server
    /// passes an expected count of 0 as "unknown"; the line still compares).
    Counted {
        /// The leaf count.
        actual: u64,
        /// Whether the counter found it right.
        pass: bool,
    },
    /// The job failed for good: why.
    Error(String),
    /// The counter checked nothing (a server's `skipped`).
    Skipped,
    /// No result came back.
    NotRun,
}

/// A line's verdict, built from what came of its jobs.
#[derive(Clone, Default, Debug)]
pub struct LineCheck {
    reasons: Vec<String>,
    checked: usize,
}

impl LineCheck {
    /// The line's FEN does not parse; gives the reason (`bad FEN: ...`).
    pub fn bad_fen(&mut self, e: &impl core::fmt::Display) -> &str {
        self.fail(format!("bad FEN: {e}"))
    }

    /// Records the outcome of the job at `depth` expecting `expected`
    /// leaves; gives the reason if it failed (`depth 2: expected 400, got 401`).
    pub fn depth(&mut self, depth: u32, expected: u64, outcome: DepthOutcome) -> Option<&str> {
        let reason = match outcome {
            DepthOutcome::Skipped => return None,
            DepthOutcome::Counted { actual, pass } if pass && actual == expected => None,
            DepthOutcome::Counted { actual, .. } => Some(format!("depth {depth}: expected {expected}, got {actual}")),
            DepthOutcome::Error(e) => Some(format!("depth {depth}: {e}")),
            DepthOutcome::NotRun => Some(format!("depth {depth}: not run")),
        };
        self.checked += 1;
        reason.map(|r| self.fail(r))
    }

    /// Why the line failed so far.
    pub fn reasons(&self) -> &[String] {
        &self.reasons
    }

    /// The verdict of the line with `depths`, checked at most `max` deep.
    pub fn verdict(self, depths: &[(u32, u64)], max: u32) -> LineResult {
        if !self.reasons.is_empty() {
            LineResult::Failed(self.reasons)
        } else if self.checked == 0 {
            LineResult::Skipped(skip_reason(depths, max))
        } else {
            LineResult::Passed
        }
    }

    fn fail(&mut self, reason: String) -> &str {
        self.reasons.push(reason);
        self.reasons.last().map_or("", String::as_str)
    }
}

/// How a suite line came out.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum LineResult {
    /// Every checked depth matched.
    Passed,
    /// The reasons (`depth 2: expected 401, got 400`, `bad FEN: ...`).
    Failed(Vec<String>),
    /// Why nothing was checked.
    Skipped(String),
}

/// Lines of a suite run by result.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Lines that passed.
    pub passed: usize,
    /// Lines that failed.
    pub failed: usize,
    /// Lines with nothing checked.
    pub skipped: usize,
}

impl Tally {
    /// Counts a line's result.
    pub fn add(&mut self, result: &LineResult) {
        match result {
            LineResult::Passed => self.passed += 1,
            LineResult::Failed(_) => self.failed += 1,
            LineResult::Skipped(_) => self.skipped += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use menagerie_variants::VariantId;

    #[test]
    fn verdicts() {
        let depths = [(1, 20), (2, 400)];
        let mut c = LineCheck::default();
        assert_eq!(c.depth(1, 20, DepthOutcome::Counted { actual: 20, pass: true }), None);
        assert_eq!(c.clone().verdict(&depths, 1), LineResult::Passed);
        // A pass with another count (expected 0 on a server) is a mismatch.
        assert_eq!(
            c.depth(2, 400, DepthOutcome::Counted { actual: 401, pass: true }),
            Some("depth 2: expected 400, got 401")
        );
        assert_eq!(c.depth(3, 1, DepthOutcome::Error("boom".into())), Some("depth 3: boom"));
        assert_eq!(c.depth(4, 1, DepthOutcome::NotRun), Some("depth 4: not run"));
        assert_eq!(c.reasons().len(), 3);
        assert!(matches!(c.verdict(&depths, 9), LineResult::Failed(r) if r.len() == 3));
        let mut c = LineCheck::default();
        assert_eq!(c.depth(1, 20, DepthOutcome::Skipped), None);
        assert_eq!(c.verdict(&depths, 1), LineResult::Skipped("the server checked nothing".into()));
        assert_eq!(
            LineCheck::default().verdict(&depths, 0),
            LineResult::Skipped("every depth is above the maximum 0 (D1, D2)".into())
        );
        assert_eq!(LineCheck::default().verdict(&[], 3), LineResult::Skipped("no depths given".into()));
    }

    #[test]
    fn suites_mix_compiled_and_data_variants() {
        let text = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1 ;variant makruk ;D2 529\n\
                    8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3\n";
        let suite = read(&Variants::builtin(), text, &VariantRef::Compiled(VariantId::Chess)).unwrap();
        let counts: Vec<u64> = suite
            .iter()
            .map(|l| match &l.position {
                Ok(GamePosition::Data(p)) => p.perft(2),
                Ok(GamePosition::Compiled(p)) => p.perft(1),
                Err(e) => panic!("{e}"),
            })
            .collect();
        assert_eq!(counts, [529, 3]);
        assert_eq!(suite[0].variant.name(), "makruk");
    }

    #[test]
    fn startpos_is_each_lines_own_start_position() {
        let text = "startpos ;variant makruk ;D1 23\nstartpos ;D1 20\nstartpos ;variant camel-rhino ;D1 1\n";
        let suite = read(&Variants::builtin(), text, &VariantRef::Compiled(VariantId::Chess)).unwrap();
        assert_eq!(suite[0].epd.fen, "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1");
        assert_eq!(suite[1].epd.fen, VariantId::Chess.start_fen());
        assert_eq!(suite[2].epd.fen, VariantId::CamelRhino.start_fen());
        assert!(suite.iter().all(|l| l.position.is_ok()));
    }

    #[test]
    fn suites_and_ids() {
        let text = "# x\nnot a fen ;D1 1\n8/8/8/8/8/8/8/K6k w - - 0 1 ;variant chess960 ;D1 3\n";
        let chess = VariantRef::Compiled(VariantId::Chess);
        let suite = read(&Variants::builtin(), text, &chess).unwrap();
        assert_eq!(suite.len(), 2);
        assert!(suite[0].position.is_err());
        assert_eq!((suite[1].epd.line, suite[1].variant.name()), (3, "chess960"));
        let e = read(&Variants::builtin(), "8/8 w ;variant tamerlane", &chess).unwrap_err();
        assert!(e.to_string().starts_with("line 1: unknown variant 'tamerlane' (known: chess"), "{e}");
        assert_eq!(line_of(&job_id(12, 3)), Some(12));
        assert_eq!(line_of("abc"), None);
    }
}

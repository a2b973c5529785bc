//! How results are shown: text or JSON lines on stdout, and progress bars
//! on stderr — drawn only when stderr is a terminal (not `TERM=dumb`) and
//! `--no-progress` was not given, so piped output is never touched.

use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The global output options (set once, from the command line).
#[derive(Clone, Copy, Debug, Default)]
struct Options {
    json: bool,
    progress: bool,
}

static OPTIONS: OnceLock<Options> = OnceLock::new();

/// Sets the output options: `--json`, and whether bars may be drawn.
pub(crate) fn init(json: bool, no_progress: bool) {
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    let progress = !no_progress && !dumb && std::io::stderr().is_terminal();
    let _ = OPTIONS.set(Options { json, progress });
}

/// Whether `--json` was given: one JSON object per line on stdout.
pub(crate) fn json() -> bool {
    OPTIONS.get().is_some_and(|o| o.json)
}

/// Whether progress bars may be drawn (stderr a terminal, not `TERM=dumb`,
/// no `--no-progress`).
pub(crate) fn progress_allowed() -> bool {
    OPTIONS.get().is_some_and(|o| o.progress)
}

/// Writes one JSON object as a line.
pub(crate) fn emit(out: &mut impl Write, value: &serde_json::Value) -> Result<()> {
    writeln!(out, "{value}")?;
    Ok(())
}

/// `1234567` as `1.23M`.
fn si(n: f64) -> String {
    match n {
        n if n >= 1e12 => format!("{:.2}T", n / 1e12),
        n if n >= 1e9 => format!("{:.2}G", n / 1e9),
        n if n >= 1e6 => format!("{:.2}M", n / 1e6),
        n if n >= 1e4 => format!("{:.1}k", n / 1e3),
        n => format!("{n:.0}"),
    }
}

/// A progress bar with a live node counter (nodes and nodes/s), and for
/// job runs a jobs-done counter. Hidden (every call a no-op) when progress
/// is not drawn.
#[derive(Clone)]
pub(crate) struct Progress {
    bar: ProgressBar,
    nodes: Arc<AtomicU64>,
    jobs_done: Arc<AtomicU64>,
}

impl Progress {
    fn with_template(len: u64, template: &str, jobs_total: u64) -> Progress {
        let nodes = Arc::new(AtomicU64::new(0));
        let jobs_done = Arc::new(AtomicU64::new(0));
        if !progress_allowed() {
            return Progress { bar: ProgressBar::hidden(), nodes, jobs_done };
        }
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
        let (n1, n2, j) = (nodes.clone(), nodes.clone(), jobs_done.clone());
        let style = ProgressStyle::with_template(template).map(|s| {
            s.with_key("nodes", move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}", si(n1.load(Ordering::Relaxed) as f64));
            })
            .with_key("nps", move |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let secs = s.elapsed().as_secs_f64();
                let nps = if secs > 0.0 { n2.load(Ordering::Relaxed) as f64 / secs } else { 0.0 };
                let _ = write!(w, "{}", si(nps));
            })
            .with_key("jobs", move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}/{jobs_total}", j.load(Ordering::Relaxed));
            })
        });
        if let Ok(style) = style {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress { bar, nodes, jobs_done }
    }

    /// `len` units (root moves, subtrees) to do, with nodes counted.
    pub(crate) fn units(len: u64, unit: &str) -> Progress {
        let template = format!(
            "{{bar:30}} {{pos}}/{{len}} {unit}  {{nodes}} nodes  {{nps}} nodes/s  [{{elapsed_precise}}, eta {{eta}}]"
        );
        Progress::with_template(len, &template, 0)
    }

    /// `jobs` jobs whose sizes (expected nodes) add up to `weight`: the bar
    /// measures the weight done, and shows jobs done/total.
    pub(crate) fn jobs(jobs: u64, weight: u64) -> Progress {
        let template = "{bar:30} {jobs} jobs  {nodes} nodes  {nps} nodes/s  [{elapsed_precise}, eta {eta}]".to_string();
        Progress::with_template(weight.max(1), &template, jobs)
    }

    /// The node counter (for `PerftControl::progress`).
    pub(crate) fn nodes(&self) -> &AtomicU64 {
        &self.nodes
    }

    pub(crate) fn add_nodes(&self, n: u64) {
        self.nodes.fetch_add(n, Ordering::Relaxed);
    }

    pub(crate) fn set_nodes(&self, n: u64) {
        self.nodes.store(n, Ordering::Relaxed);
    }

    /// One unit (root move, subtree) done.
    pub(crate) fn inc(&self, n: u64) {
        self.bar.inc(n);
    }

    pub(crate) fn set(&self, pos: u64, len: u64) {
        self.bar.set_length(len.max(1));
        self.bar.set_position(pos);
    }

    /// `n` more units to do (work started over).
    pub(crate) fn grow(&self, n: u64) {
        self.bar.inc_length(n);
    }

    /// A job of `weight` done.
    pub(crate) fn job_done(&self, weight: u64) {
        self.jobs_done.fetch_add(1, Ordering::Relaxed);
        self.bar.inc(weight.max(1));
    }

    /// Runs `f` (which prints) with the bar out of the way.
    pub(crate) fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Removes the bar.
    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_units() {
        assert_eq!(si(999.0), "999");
        assert_eq!(si(12_345.0), "12.3k");
        assert_eq!(si(1_234_567.0), "1.23M");
        assert_eq!(si(3_195_901_860.0), "3.20G");
    }

    #[test]
    fn hidden_without_init() {
        let p = Progress::units(20, "root moves");
        assert!(p.bar.is_hidden());
        p.add_nodes(5);
        p.inc(1);
        assert_eq!(p.nodes().load(Ordering::Relaxed), 5);
        p.finish();
    }
}

//! Commands run on this machine.

use crate::results::{Done, Results};
use crate::ui::{self, Progress};
use crate::{Command, MAX_DEPTH, MAX_HASH_MB, PositionArgs};
use anyhow::{Context, Result, anyhow, bail};
use menagerie_notation::MoveError;
use menagerie_notation::{epd, fen, parse_move, san, uci};
use menagerie_variants::{AnyPosition, Move, PerftControl, PerftTable, VariantId};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

pub(crate) fn variant(name: &str) -> Result<VariantId> {
    VariantId::from_name(name).ok_or_else(|| anyhow!("unknown variant '{name}' (known: {})", VariantId::names()))
}

pub(crate) fn position(a: &PositionArgs) -> Result<AnyPosition> {
    let v = variant(&a.variant)?;
    let mut pos = fen::parse_or_start(v, a.fen.as_deref().unwrap_or("")).context("bad FEN")?;
    for (i, text) in a.moves.iter().flat_map(|m| m.split_whitespace()).enumerate() {
        let m = parse_move(&pos, text).with_context(|| format!("moves[{i}]"))?;
        pos = pos.play_unchecked(m);
    }
    Ok(pos)
}

pub(crate) fn check_depth(depth: u32) -> Result<()> {
    if depth > MAX_DEPTH {
        bail!("depth {depth} is out of range (at most {MAX_DEPTH})");
    }
    Ok(())
}

/// Lines of an EPD run by result. A line passes when at least one of its
/// depths was checked and every checked depth matched; it is skipped when
/// none was checked (every depth above `--max-depth`, or none given), which
/// is never a pass; it fails on any mismatch, a bad FEN or a job error.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EpdTally {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

impl EpdTally {
    /// Prints the summary line (`3 passed, 0 failed, 1 skipped`) and gives
    /// the exit code: 1 if a line failed, or if nothing at all was checked
    /// (said on stderr); 0 otherwise.
    /// With `--json` the summary is `{"type":"epd","passed":..,"failed":..,"skipped":..}`.
    pub(crate) fn finish(self, out: &mut impl Write, max: u32) -> Result<ExitCode> {
        if ui::json() {
            let v = serde_json::json!({
                "type": "epd", "passed": self.passed, "failed": self.failed, "skipped": self.skipped,
            });
            ui::emit(out, &v)?;
        } else {
            writeln!(out, "{} passed, {} failed, {} skipped", self.passed, self.failed, self.skipped)?;
        }
        out.flush()?;
        if self.failed > 0 {
            return Ok(ExitCode::from(1));
        }
        if self.passed == 0 {
            eprintln!(
                "nothing was checked: {} line(s), none with a depth at most {max} (see --max-depth)",
                self.skipped
            );
            return Ok(ExitCode::from(1));
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// Why an EPD line with `depths` had nothing checked at `--max-depth max`.
pub(crate) fn skip_reason(depths: &[(u32, u64)], max: u32) -> String {
    if depths.is_empty() {
        return "no depths given".into();
    }
    let list: Vec<String> = depths.iter().map(|(d, _)| format!("D{d}")).collect();
    format!("every depth is above the maximum {max} ({})", list.join(", "))
}

fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    if threads == 0 || threads > 1024 {
        bail!("--threads must be between 1 and 1024");
    }
    Ok(rayon::ThreadPoolBuilder::new().num_threads(threads).build()?)
}

pub(crate) fn nps(nodes: u64, secs: f64) -> u64 {
    if secs > 0.0 { (nodes as f64 / secs) as u64 } else { 0 }
}

/// Perft of `p` per root move, in generation order: the root moves spread
/// over `pool`, each subtree counted with the table if any. Nodes are added
/// to `progress` as they are counted (per subtree when no bar is drawn),
/// and `root_done` is called as each root move finishes.
pub(crate) fn divide_rows(
    p: &AnyPosition,
    depth: u32,
    table: Option<&PerftTable>,
    pool: &rayon::ThreadPool,
    progress: &Progress,
    root_done: impl Fn() + Sync,
) -> Vec<(Move, u64)> {
    use rayon::prelude::*;
    if depth == 0 {
        return Vec::new();
    }
    let stop = AtomicBool::new(false);
    let moves: Vec<Move> = p.legal_moves().to_vec();
    pool.install(|| {
        moves
            .par_iter()
            .map(|&m| {
                let child = p.play_unchecked(m);
                let n = if table.is_none() && !progress.visible() {
                    let n = child.perft(depth - 1);
                    progress.add_nodes(n);
                    n
                } else {
                    let ctl = PerftControl { stop: &stop, progress: progress.nodes(), table };
                    // Never stopped, so always a count.
                    child.perft_controlled(depth - 1, &ctl).unwrap_or(0)
                };
                root_done();
                (m, n)
            })
            .collect()
    })
}

/// Leaf count at `depth` (root moves in parallel on `pool`).
fn count(p: &AnyPosition, depth: u32, pool: &rayon::ThreadPool, progress: &Progress) -> u64 {
    if depth == 0 {
        progress.add_nodes(1);
        return 1;
    }
    divide_rows(p, depth, None, pool, progress, || {}).iter().map(|r| r.1).sum()
}

/// Runs a command on this machine.
pub fn run(command: Command) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let json = ui::json();
    match command {
        Command::Perft { pos, threads, hash, depth, .. } => {
            check_depth(depth)?;
            if hash > MAX_HASH_MB {
                bail!("--hash must be at most {MAX_HASH_MB} (MB)");
            }
            let p = position(&pos)?;
            let pool = pool(threads)?;
            let table = (hash > 0).then(|| PerftTable::new(hash));
            let t0 = Instant::now();
            let n = if depth == 0 {
                1
            } else {
                let progress = Progress::units(p.count_legal(), "root moves");
                let rows = divide_rows(&p, depth, table.as_ref(), &pool, &progress, || progress.inc(1));
                progress.finish();
                rows.iter().map(|r| r.1).sum()
            };
            let secs = t0.elapsed().as_secs_f64();
            if json {
                ui::emit(&mut out, &perft_json(depth, n, secs, nps(n, secs)))?;
            } else {
                eprintln!("depth {depth} nodes {n} time {:.3}s nps {}", secs, nps(n, secs));
                writeln!(out, "{n}")?;
            }
        }
        Command::Divide { pos, threads, depth } => {
            check_depth(depth)?;
            if depth == 0 {
                bail!("divide needs a depth of at least 1");
            }
            let p = position(&pos)?;
            let v = p.variant();
            let pool = pool(threads)?;
            let progress = Progress::units(p.count_legal(), "root moves");
            let rows = divide_rows(&p, depth, None, &pool, &progress, || progress.inc(1));
            progress.finish();
            let total: u64 = rows.iter().map(|r| r.1).sum();
            if json {
                let legal = p.legal_moves();
                for &(m, n) in &rows {
                    let row = serde_json::json!({
                        "type": "move", "move": uci::format(v, m), "san": san::format_with(&p, m, &legal), "nodes": n,
                    });
                    ui::emit(&mut out, &row)?;
                }
                ui::emit(&mut out, &divide_json(depth, total, rows.len()))?;
            } else {
                for (m, n) in rows {
                    writeln!(out, "{}: {n}", uci::format(v, m))?;
                }
                writeln!(out)?;
                writeln!(out, "{total}")?;
            }
        }
        Command::Moves { pos, san: with_san, fens } => {
            let p = position(&pos)?;
            let v = p.variant();
            let legal = p.legal_moves();
            for &m in legal.iter() {
                if json {
                    let row = serde_json::json!({
                        "type": "move", "uci": uci::format(v, m), "san": san::format_with(&p, m, &legal),
                        "fen": fen::format(&p.play_unchecked(m)),
                    });
                    ui::emit(&mut out, &row)?;
                    continue;
                }
                let mut line = uci::format(v, m);
                if with_san {
                    line.push(' ');
                    line.push_str(&san::format_with(&p, m, &legal));
                }
                if fens {
                    line.push(' ');
                    line.push_str(&fen::format(&p.play_unchecked(m)));
                }
                writeln!(out, "{line}")?;
            }
            if json {
                ui::emit(
                    &mut out,
                    &serde_json::json!({"type": "moves", "fen": fen::format(&p), "count": legal.len()}),
                )?;
            }
        }
        Command::Validate { pos, mv } => {
            let p = position(&pos)?;
            match parse_move(&p, &mv) {
                Ok(m) => {
                    let after = p.play_unchecked(m);
                    let (uci, san, fen) = (uci::format(p.variant(), m), san::format(&p, m), fen::format(&after));
                    let outcome = after.outcome().map(|o| o.describe());
                    write_legal(&mut out, &uci, &san, &fen, outcome.as_deref())?;
                }
                Err(e @ (MoveError::Illegal { .. } | MoveError::Ambiguous(_))) => {
                    write_illegal(&mut out, &mv, &e.to_string())?;
                    return Err(anyhow!(e));
                }
                Err(e) => return Err(anyhow!(e)),
            }
        }
        Command::Analyze { pos, depth, nodes, movetime, multipv, threads } => {
            let p = position(&pos)?;
            analyze(&p, &pos, depth, nodes, movetime, multipv, threads, &mut out)?;
        }
        Command::Epd { file, variant: vname, max_depth, threads, fanout } => {
            return epd(&file, &vname, max_depth, threads, fanout.results.as_deref(), &mut out);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The `--json` line of `perft` (local or remote).
pub(crate) fn perft_json(depth: u32, nodes: u64, seconds: f64, nps: u64) -> serde_json::Value {
    serde_json::json!({"type": "perft", "depth": depth, "nodes": nodes, "seconds": seconds, "nps": nps})
}

/// The closing `--json` line of `divide` (local or remote).
pub(crate) fn divide_json(depth: u32, nodes: u64, moves: usize) -> serde_json::Value {
    serde_json::json!({"type": "divide", "depth": depth, "nodes": nodes, "moves": moves})
}

/// `validate` of a legal move, as text or JSON.
pub(crate) fn write_legal(out: &mut impl Write, uci: &str, san: &str, fen: &str, outcome: Option<&str>) -> Result<()> {
    if ui::json() {
        let v = serde_json::json!({
            "type": "validate", "legal": true, "move": uci, "san": san, "fen": fen, "outcome": outcome,
        });
        return ui::emit(out, &v);
    }
    writeln!(out, "legal")?;
    writeln!(out, "move: {uci}")?;
    writeln!(out, "san: {san}")?;
    writeln!(out, "fen: {fen}")?;
    if let Some(o) = outcome {
        writeln!(out, "outcome: {o}")?;
    }
    Ok(())
}

/// `validate` of an illegal or ambiguous move, as text or JSON (the error
/// itself goes to stderr, exit 1).
pub(crate) fn write_illegal(out: &mut impl Write, text: &str, reason: &str) -> Result<()> {
    if ui::json() {
        let v = serde_json::json!({"type": "validate", "legal": false, "move": text, "reason": reason});
        return ui::emit(out, &v);
    }
    writeln!(out, "illegal")?;
    Ok(())
}

/// How an EPD line came out.
pub(crate) enum LineResult {
    Passed,
    /// The reasons (`depth 2: expected 401, got 400`, `bad FEN: ...`).
    Failed(Vec<String>),
    /// Why nothing was checked.
    Skipped(String),
}

impl LineResult {
    /// The `--json` line of EPD line `line`.
    pub(crate) fn to_json(&self, line: usize, fen: &str) -> serde_json::Value {
        let (result, reasons) = match self {
            LineResult::Passed => ("passed", Vec::new()),
            LineResult::Failed(why) => ("failed", why.clone()),
            LineResult::Skipped(why) => ("skipped", vec![why.clone()]),
        };
        serde_json::json!({"type": "line", "line": line, "fen": fen, "result": result, "reasons": reasons})
    }
}

/// `menagerie epd` on this machine: one job per (line, depth) at most
/// `max_depth`, run in file order; with `results`, each finished job is
/// appended there and jobs already in it are not run again.
fn epd(
    file: &Path,
    vname: &str,
    max_depth: Option<u32>,
    threads: usize,
    results: Option<&Path>,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let default = variant(vname)?;
    if let Some(d) = max_depth {
        check_depth(d)?;
    }
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let lines = epd::parse(&text)?;
    let max = max_depth.unwrap_or(MAX_DEPTH);
    let pool = pool(threads)?;
    let mut results = Results::open(results)?;
    let json = ui::json();
    let positions: Vec<_> = lines.iter().map(|l| fen::parse(l.variant.unwrap_or(default), &l.fen)).collect();
    // The jobs (and their sizes) still to run, for the bar; a line with a
    // bad FEN has none.
    let (mut total, mut todo, mut weight) = (0usize, 0u64, 0u64);
    for (l, _) in lines.iter().zip(&positions).filter(|(_, p)| p.is_ok()) {
        for &(d, want) in l.depths.iter().filter(|(d, _)| *d <= max) {
            total += 1;
            if results.finished(&job_id(l.line, d), d, want).is_none() {
                todo += 1;
                weight += want.max(1);
            }
        }
    }
    if todo < total as u64 {
        eprintln!("resuming: {} of {total} jobs already done", total - todo as usize);
    }
    let progress = Progress::jobs(todo, weight);
    let mut tally = EpdTally::default();
    for (l, parsed) in lines.iter().zip(positions) {
        let mut why = Vec::new();
        let mut checked = 0usize;
        match parsed {
            Err(e) => {
                why.push(format!("bad FEN: {e}"));
                if !json {
                    progress.suspend(|| writeln!(out, "line {}: bad FEN: {e}", l.line))?;
                }
            }
            Ok(p) => {
                for &(d, want) in l.depths.iter().filter(|(d, _)| *d <= max) {
                    let id = job_id(l.line, d);
                    let (done, resumed) = match results.finished(&id, d, want) {
                        Some(done) => (done.clone(), true),
                        None => {
                            let t0 = Instant::now();
                            let got = count(&p, d, &pool, &progress);
                            let done = Done {
                                id,
                                depth: d,
                                expected: want,
                                actual: got,
                                pass: got == want,
                                seconds: t0.elapsed().as_secs_f64(),
                                replica: "local".into(),
                                error: String::new(),
                                skipped: false,
                            };
                            results.record(&done);
                            progress.job_done(want);
                            (done, false)
                        }
                    };
                    checked += 1;
                    if json {
                        progress.suspend(|| ui::emit(out, &done.to_json(resumed)))?;
                    }
                    let got = done.actual;
                    if got != want || !done.pass {
                        why.push(format!("depth {d}: expected {want}, got {got}"));
                        if !json {
                            progress.suspend(|| {
                                writeln!(out, "line {}: depth {d}: expected {want}, got {got}  ({})", l.line, l.fen)
                            })?;
                        }
                    }
                }
            }
        }
        let verdict = if !why.is_empty() {
            tally.failed += 1;
            LineResult::Failed(why)
        } else if checked == 0 {
            tally.skipped += 1;
            let reason = skip_reason(&l.depths, max);
            if !json {
                progress.suspend(|| writeln!(out, "line {}: skipped: {reason}  ({})", l.line, l.fen))?;
            }
            LineResult::Skipped(reason)
        } else {
            tally.passed += 1;
            LineResult::Passed
        };
        if json {
            progress.suspend(|| ui::emit(out, &verdict.to_json(l.line, &l.fen)))?;
        }
    }
    progress.finish();
    tally.finish(out, max)
}

/// The id of the job of EPD line `line` at `depth` (the same locally, remotely
/// and on every run, for resuming).
pub(crate) fn job_id(line: usize, depth: u32) -> String {
    format!("line{line}-d{depth}")
}

/// Local analysis with the search engine; prints UCI-style info lines with
/// SAN, then `bestmove`.
#[allow(clippy::too_many_arguments)]
fn analyze(
    p: &AnyPosition,
    args: &PositionArgs,
    depth: Option<u32>,
    nodes: Option<u64>,
    movetime: Option<u64>,
    multipv: u32,
    threads: u32,
    out: &mut impl Write,
) -> Result<()> {
    use menagerie_search::{Engine, EngineOptions, Limits, Score};
    if p.count_legal() == 0 {
        bail!("the game is over: {}", p.outcome().map_or("no legal moves".into(), |o| o.describe()));
    }
    if let Some(d) = depth
        && !(1..=100).contains(&d)
    {
        bail!("--depth must be 1..100");
    }
    if !(1..=256).contains(&multipv) || !(1..=512).contains(&threads) {
        bail!("--multipv must be 1..256 and --threads 1..512");
    }
    let start = fen::parse_or_start(p.variant(), args.fen.as_deref().unwrap_or("")).context("bad FEN")?;
    let mut history = Vec::new();
    let mut q = start;
    for text in args.move_list() {
        let m = parse_move(&q, &text)?;
        q = q.play_unchecked(m);
        history.push(m);
    }
    let mut engine = Engine::new(EngineOptions { hash_mb: 64, threads: threads as usize, multipv: multipv as usize });
    engine.set_position(start, &history).map_err(|(i, e)| anyhow!("moves[{i}]: {e}"))?;
    let limits = Limits {
        depth,
        nodes,
        movetime: movetime
            .or((depth.is_none() && nodes.is_none()).then_some(1000))
            .map(std::time::Duration::from_millis),
        ..Limits::default()
    };
    let v = p.variant();
    let pos = *p;
    let (tx, rx) = std::sync::mpsc::channel();
    let handle = engine.go(limits, move |i| {
        let _ = tx.send(i);
    });
    for i in rx {
        let mut q = pos;
        let mut sans = Vec::new();
        let mut ucis = Vec::new();
        for &m in &i.pv {
            sans.push(san::format(&q, m));
            ucis.push(uci::format(v, m));
            q = q.play_unchecked(m);
        }
        let score = match i.score {
            Score::Cp(c) => AnalysisScore::Cp(c),
            Score::Mate(m) => AnalysisScore::Mate(m),
        };
        let info = InfoLine {
            depth: i.depth,
            seldepth: i.seldepth,
            multipv: i.multipv,
            score,
            nodes: i.nodes,
            nps: i.nps,
            time_ms: i.time_ms,
            pv: ucis,
            pv_san: sans,
        };
        info.write(out)?;
    }
    let r = handle.wait();
    let best = r.best.map(|m| (uci::format(v, m), san::format(&pos, m)));
    write_bestmove(out, best.as_ref().map(|(u, s)| (u.as_str(), s.as_str())))
}

/// A score of an analysis line.
#[derive(Clone, Copy, Debug)]
pub(crate) enum AnalysisScore {
    Cp(i32),
    Mate(i32),
}

/// One `info` line of an analysis (local or remote).
pub(crate) struct InfoLine {
    pub depth: u32,
    pub seldepth: u32,
    pub multipv: u32,
    pub score: AnalysisScore,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    pub pv: Vec<String>,
    pub pv_san: Vec<String>,
}

impl InfoLine {
    /// As a UCI-style text line with the PV in SAN, or with `--json` as
    /// `{"type":"info",...,"score":{"cp":N}|{"mate":N},"pv":[UCI],"pv_san":[SAN]}`.
    pub(crate) fn write(&self, out: &mut impl Write) -> Result<()> {
        if ui::json() {
            let score = match self.score {
                AnalysisScore::Cp(c) => serde_json::json!({"cp": c}),
                AnalysisScore::Mate(m) => serde_json::json!({"mate": m}),
            };
            let v = serde_json::json!({
                "type": "info", "depth": self.depth, "seldepth": self.seldepth, "multipv": self.multipv,
                "score": score, "nodes": self.nodes, "nps": self.nps, "time_ms": self.time_ms,
                "pv": self.pv, "pv_san": self.pv_san,
            });
            return ui::emit(out, &v);
        }
        let score = match self.score {
            AnalysisScore::Cp(c) => format!("cp {c}"),
            AnalysisScore::Mate(m) => format!("mate {m}"),
        };
        writeln!(
            out,
            "info depth {} seldepth {} multipv {} score {score} nodes {} nps {} time {} pv {}",
            self.depth,
            self.seldepth,
            self.multipv,
            self.nodes,
            self.nps,
            self.time_ms,
            self.pv_san.join(" ")
        )?;
        Ok(())
    }
}

/// The closing line of an analysis: the best move (UCI, SAN), if any.
pub(crate) fn write_bestmove(out: &mut impl Write, best: Option<(&str, &str)>) -> Result<()> {
    if ui::json() {
        let v = serde_json::json!({
            "type": "analyze", "bestmove": best.map(|b| b.0), "bestmove_san": best.map(|b| b.1),
        });
        return ui::emit(out, &v);
    }
    match best {
        Some((u, s)) => writeln!(out, "bestmove {u} ({s})")?,
        None => writeln!(out, "bestmove (none)")?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-root-move driver counts as the library's perft does, with or
    /// without a table (the controlled path, used when a bar is drawn), and
    /// its node counter ends at the total.
    #[test]
    fn divide_rows_agree_with_perft() {
        let p = fen::parse_or_start(VariantId::Chess, "").expect("the start position");
        let pool = pool(2).expect("a pool");
        for table in [None, Some(PerftTable::new(1))] {
            let progress = Progress::units(20, "root moves");
            let done = std::sync::atomic::AtomicUsize::new(0);
            let rows = divide_rows(&p, 4, table.as_ref(), &pool, &progress, || {
                done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            });
            assert_eq!(rows.len(), 20);
            assert_eq!(done.into_inner(), 20);
            assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), p.perft(4));
            assert_eq!(progress.nodes().load(std::sync::atomic::Ordering::Relaxed), 197_281);
        }
        assert_eq!(count(&p, 0, &pool, &Progress::units(0, "")), 1);
        assert_eq!(count(&p, 3, &pool, &Progress::units(0, "")), 8902);
    }
}

//! Commands run on this machine.

use crate::{Command, MAX_DEPTH, MAX_HASH_MB, PositionArgs};
use anyhow::{Context, Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressStyle};
use menagerie_notation::MoveError;
use menagerie_notation::{epd, fen, parse_move, san, uci};
use menagerie_variants::{AnyPosition, VariantId};
use std::io::Write;
use std::process::ExitCode;
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
    pub(crate) fn finish(self, out: &mut impl Write, max: u32) -> Result<ExitCode> {
        writeln!(out, "{} passed, {} failed, {} skipped", self.passed, self.failed, self.skipped)?;
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

/// Runs a command on this machine.
pub fn run(command: Command) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match command {
        Command::Perft { pos, threads, hash, depth, split_depth, .. } => {
            if split_depth.is_some() {
                bail!("--split-depth needs --remote");
            }
            check_depth(depth)?;
            if hash > MAX_HASH_MB {
                bail!("--hash must be at most {MAX_HASH_MB} (MB)");
            }
            let p = position(&pos)?;
            let t0 = Instant::now();
            let n = pool(threads)?.install(|| match (hash, threads) {
                (0, 1) => p.perft(depth),
                (0, _) => p.perft_parallel(depth),
                (mb, t) => p.perft_hashed(depth, mb, t),
            });
            let secs = t0.elapsed().as_secs_f64();
            eprintln!("depth {depth} nodes {n} time {:.3}s nps {}", secs, nps(n, secs));
            writeln!(out, "{n}")?;
        }
        Command::Divide { pos, threads, depth } => {
            check_depth(depth)?;
            if depth == 0 {
                bail!("divide needs a depth of at least 1");
            }
            let p = position(&pos)?;
            let v = p.variant();
            let rows = pool(threads)?.install(|| {
                use rayon::prelude::*;
                let moves: Vec<_> = p.legal_moves().to_vec();
                moves.par_iter().map(|&m| (m, p.play_unchecked(m).perft(depth - 1))).collect::<Vec<_>>()
            });
            let mut total = 0;
            for (m, n) in rows {
                writeln!(out, "{}: {n}", uci::format(v, m))?;
                total += n;
            }
            writeln!(out)?;
            writeln!(out, "{total}")?;
        }
        Command::Moves { pos, san: with_san, fens } => {
            let p = position(&pos)?;
            let v = p.variant();
            let legal = p.legal_moves();
            for &m in legal.iter() {
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
        }
        Command::Validate { pos, mv } => {
            let p = position(&pos)?;
            match parse_move(&p, &mv) {
                Ok(m) => {
                    let after = p.play_unchecked(m);
                    writeln!(out, "legal")?;
                    writeln!(out, "move: {}", uci::format(p.variant(), m))?;
                    writeln!(out, "san: {}", san::format(&p, m))?;
                    writeln!(out, "fen: {}", fen::format(&after))?;
                    if let Some(o) = after.outcome() {
                        writeln!(out, "outcome: {}", o.describe())?;
                    }
                }
                Err(e @ (MoveError::Illegal { .. } | MoveError::Ambiguous(_))) => {
                    writeln!(out, "illegal")?;
                    return Err(anyhow!(e));
                }
                Err(e) => return Err(anyhow!(e)),
            }
        }
        Command::Analyze { pos, depth, nodes, movetime, multipv, threads } => {
            let p = position(&pos)?;
            analyze(&p, &pos, depth, nodes, movetime, multipv, threads, &mut out)?;
        }
        Command::Epd { file, variant: vname, max_depth, threads, .. } => {
            let default = variant(&vname)?;
            if let Some(d) = max_depth {
                check_depth(d)?;
            }
            let text = std::fs::read_to_string(&file).with_context(|| format!("cannot read {}", file.display()))?;
            let lines = epd::parse(&text)?;
            let max = max_depth.unwrap_or(MAX_DEPTH);
            let pool = pool(threads)?;
            let bar = ProgressBar::new(lines.len() as u64);
            bar.set_style(
                ProgressStyle::with_template("{bar:40} {pos}/{len} lines {msg} [{elapsed_precise}, eta {eta}]")
                    .map_err(|e| anyhow!(e))?,
            );
            let mut tally = EpdTally::default();
            let mut nodes = 0u64;
            let t0 = Instant::now();
            for l in &lines {
                let v = l.variant.unwrap_or(default);
                let mut ok = true;
                let mut checked = 0usize;
                match fen::parse(v, &l.fen) {
                    Err(e) => {
                        ok = false;
                        bar.suspend(|| println!("line {}: bad FEN: {e}", l.line));
                    }
                    Ok(p) => {
                        for &(d, want) in l.depths.iter().filter(|(d, _)| *d <= max) {
                            let got = pool.install(|| p.perft_parallel(d));
                            nodes += got;
                            checked += 1;
                            if got != want {
                                ok = false;
                                bar.suspend(|| {
                                    println!("line {}: depth {d}: expected {want}, got {got}  ({})", l.line, l.fen)
                                });
                            }
                        }
                    }
                }
                if !ok {
                    tally.failed += 1;
                } else if checked == 0 {
                    tally.skipped += 1;
                    bar.suspend(|| println!("line {}: skipped: {}  ({})", l.line, skip_reason(&l.depths, max), l.fen));
                } else {
                    tally.passed += 1;
                }
                bar.set_message(format!("{:.1} Mnps", nps(nodes, t0.elapsed().as_secs_f64()) as f64 / 1e6));
                bar.inc(1);
            }
            bar.finish_and_clear();
            return tally.finish(&mut out, max);
        }
    }
    Ok(ExitCode::SUCCESS)
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
    let score = |s: Score| match s {
        Score::Cp(c) => format!("cp {c}"),
        Score::Mate(m) => format!("mate {m}"),
    };
    for i in rx {
        let mut q = pos;
        let mut sans = Vec::new();
        for &m in &i.pv {
            sans.push(san::format(&q, m));
            q = q.play_unchecked(m);
        }
        writeln!(
            out,
            "info depth {} seldepth {} multipv {} score {} nodes {} nps {} time {} pv {}",
            i.depth,
            i.seldepth,
            i.multipv,
            score(i.score),
            i.nodes,
            i.nps,
            i.time_ms,
            sans.join(" ")
        )?;
    }
    let r = handle.wait();
    match r.best {
        Some(m) => writeln!(out, "bestmove {} ({})", uci::format(v, m), san::format(&pos, m))?,
        None => writeln!(out, "bestmove (none)")?,
    }
    Ok(())
}

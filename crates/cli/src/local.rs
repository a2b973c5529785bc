//! Commands run on this machine.

use crate::report::{self, AnalysisScore, InfoLine};
use crate::results::{Done, Results};
use crate::ui::{self, Progress};
use crate::{Command, MAX_DEPTH, MAX_HASH_MB, PositionArgs, SearchArgs};
use anyhow::{Context, Result, anyhow, bail};
use menagerie_app::epd::{self, DepthOutcome, LineCheck, LineResult, SuiteLine, Tally};
use menagerie_app::perft::Perft;
use menagerie_app::play::Validation;
use menagerie_app::{GamePosition, ParsedPosition, PositionRequest, VariantRef, Variants, nps};
use menagerie_variants::{AnyPosition, PerftControl, PerftTable};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

static CATALOGUE: OnceLock<Variants> = OnceLock::new();

/// Adds the variants of `files` (`--variants`) to the built-in ones; call
/// once, before any command runs. Not `strict`, each section that cannot
/// be played is a warning on stderr, then a count per file.
pub(crate) fn load_variants(files: &[PathBuf], strict: bool) -> Result<()> {
    let mut variants = Variants::builtin();
    for file in files {
        let loaded = variants.load_file(file, strict)?;
        for skipped in &loaded.skipped {
            eprintln!("warning: {skipped}");
        }
        if !loaded.skipped.is_empty() {
            eprintln!(
                "warning: {}: {} variant(s) loaded, {} skipped (--strict makes a skipped section an error)",
                file.display(),
                loaded.added.len(),
                loaded.skipped.len()
            );
        }
    }
    CATALOGUE.set(variants).map_err(|_| anyhow!("variants loaded twice"))
}

/// The variants the command line may name: built in, and loaded with `--variants`.
pub(crate) fn catalogue() -> &'static Variants {
    CATALOGUE.get_or_init(Variants::builtin)
}

/// True if `name` is a variant defined as data (not a compiled one).
pub(crate) fn is_data(name: &str) -> bool {
    matches!(catalogue().find(name), Ok(VariantRef::Data(_)))
}

/// The position of the command line: its start and moves, and where they lead.
pub(crate) fn parsed_position(a: &PositionArgs) -> Result<ParsedPosition> {
    let moves = a.move_list();
    let request = PositionRequest::new(&a.variant, a.fen.as_deref().unwrap_or(""), &moves);
    Ok(catalogue().position(&request)?)
}

/// The game of the command line (start and moves), of any variant.
pub(crate) fn game(a: &PositionArgs) -> Result<menagerie_game::Game> {
    let moves = a.move_list();
    let request = PositionRequest::new(&a.variant, a.fen.as_deref().unwrap_or(""), &moves);
    Ok(catalogue().game(&request)?)
}

/// The position of the command line, after its moves.
pub(crate) fn position(a: &PositionArgs) -> Result<AnyPosition> {
    Ok(parsed_position(a)?.current)
}

/// The EPD suite in `file`, its lines without a `;variant` opcode in `default`.
pub(crate) fn read_suite(file: &Path, default: &VariantRef) -> Result<Vec<SuiteLine>> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    Ok(epd::read(catalogue(), &text, default)?)
}

pub(crate) fn check_depth(depth: u32) -> Result<()> {
    if depth > MAX_DEPTH {
        bail!("depth {depth} is out of range (at most {MAX_DEPTH})");
    }
    Ok(())
}

pub(crate) fn check_threads(threads: usize) -> Result<()> {
    if threads == 0 || threads > 1024 {
        bail!("--threads must be between 1 and 1024");
    }
    Ok(())
}

/// The position of the command line, compiled or defined as data.
fn game_position(a: &PositionArgs) -> Result<GamePosition> {
    let moves = a.move_list();
    let request = PositionRequest::new(&a.variant, a.fen.as_deref().unwrap_or(""), &moves);
    Ok(catalogue().game_position(&request)?)
}

/// Perft `depth` (at least 1) per root move, in generation order, over
/// `threads` threads ([`Perft::divide`]), with the table if any: nodes are
/// counted in `progress` and each finished root move ticks its bar.
pub(crate) fn divide(
    perft: &Perft,
    depth: u32,
    threads: usize,
    table: Option<&PerftTable>,
    progress: &Progress,
) -> Result<Vec<u64>> {
    let stop = AtomicBool::new(false);
    let ctl = PerftControl { stop: &stop, progress: progress.nodes(), table };
    let tick = |_, _| -> Result<(), std::convert::Infallible> {
        progress.inc(1);
        Ok(())
    };
    perft.divide(depth, threads, &ctl, tick, || None).map_err(|e| anyhow!("{e}"))
}

/// `menagerie moves` on this machine, in a compiled game or one defined as
/// data: a row per legal move (with its SAN and the FEN it leads to when
/// asked), then the position and the count.
fn moves(pos: &PositionArgs, with_san: bool, fens: bool, out: &mut impl Write) -> Result<ExitCode> {
    let list = pos.move_list();
    let request = PositionRequest::new(&pos.variant, pos.fen.as_deref().unwrap_or(""), &list);
    let legal = catalogue().legal_moves(&request)?;
    for m in &legal.moves {
        report::write_move_row(out, &m.uci, &m.san, &m.fen, with_san, fens)?;
    }
    report::write_moves_total(out, &legal.fen, legal.moves.len())?;
    Ok(ExitCode::SUCCESS)
}

/// `menagerie validate` on this machine, in a compiled game or one defined
/// as data: exit 1 (with the reason) for an illegal or ambiguous move or a
/// finished game.
fn validate(pos: &PositionArgs, mv: &str, out: &mut impl Write) -> Result<ExitCode> {
    let moves = pos.move_list();
    let request = PositionRequest::new(&pos.variant, pos.fen.as_deref().unwrap_or(""), &moves);
    match catalogue().validate(&request, mv)? {
        Validation::Legal(v) => {
            let outcome = v.status.ended.as_ref().map(|e| e.description.as_str());
            report::write_legal(out, &v.uci, &v.san, &v.fen, outcome, v.status.claimable_draw)?;
            Ok(ExitCode::SUCCESS)
        }
        Validation::Illegal(why) => {
            report::write_illegal(out, mv, &why)?;
            Err(crate::IllegalMove(why).into())
        }
    }
}

/// Runs a command on this machine, in a compiled game or one defined as data.
pub fn run(command: Command) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match command {
        Command::Validate { pos, mv } => validate(&pos, &mv, &mut out),
        Command::Moves { pos, san, fens } => moves(&pos, san, fens, &mut out),
        Command::Perft { pos, threads, hash, depth, .. } => perft(&pos, threads, hash, depth, &mut out),
        Command::Divide { pos, threads, depth } => divide_command(&pos, threads, depth, &mut out),
        Command::Analyze { pos, search } => {
            let game = game(&pos)?;
            if let Some(o) = game.current().outcome() {
                bail!("the game is over: {}", o.reason);
            }
            analyze_game(&game, &search, &mut out)?;
            Ok(ExitCode::SUCCESS)
        }
        // A suite may mix compiled and data variants: `epd` handles both.
        Command::Epd { file, variant, max_depth, threads, fanout } => {
            epd(&file, &variant, max_depth, threads, fanout.results.as_deref(), &mut out)
        }
    }
}

/// `menagerie perft` on this machine, in a compiled game or one defined as
/// data (a table only for compiled games).
fn perft(pos: &PositionArgs, threads: usize, hash: usize, depth: u32, out: &mut impl Write) -> Result<ExitCode> {
    check_depth(depth)?;
    if hash > MAX_HASH_MB {
        bail!("--hash must be at most {MAX_HASH_MB} (MB)");
    }
    check_threads(threads)?;
    let p = game_position(pos)?;
    if hash > 0 && matches!(p, GamePosition::Data(_)) {
        bail!("--hash is not available for variants defined as data ('{}')", pos.variant);
    }
    let table = (hash > 0).then(|| PerftTable::new(hash));
    let t0 = Instant::now();
    let n = if depth == 0 {
        1
    } else {
        let perft = Perft::new(p);
        let progress = Progress::units(perft.root_moves() as u64, "root moves");
        let counts = divide(&perft, depth, threads, table.as_ref(), &progress)?;
        progress.finish();
        counts.iter().sum()
    };
    let secs = t0.elapsed().as_secs_f64();
    report::write_perft(out, depth, n, secs, nps(n, secs))?;
    Ok(ExitCode::SUCCESS)
}

/// `menagerie divide` on this machine, in a compiled game or one defined
/// as data: a row per root move (coordinate form, SAN, count), then the total.
fn divide_command(pos: &PositionArgs, threads: usize, depth: u32, out: &mut impl Write) -> Result<ExitCode> {
    check_depth(depth)?;
    if depth == 0 {
        bail!("divide needs a depth of at least 1");
    }
    check_threads(threads)?;
    let perft = Perft::new(game_position(pos)?);
    let progress = Progress::units(perft.root_moves() as u64, "root moves");
    let counts = divide(&perft, depth, threads, None, &progress)?;
    progress.finish();
    for (i, &n) in counts.iter().enumerate() {
        let (coordinate, san) = perft.move_texts(i);
        report::write_divide_row(out, &coordinate, &san, n)?;
    }
    report::write_divide_total(out, depth, counts.iter().sum(), counts.len())?;
    Ok(ExitCode::SUCCESS)
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
    let default = catalogue().find(vname)?;
    if let Some(d) = max_depth {
        check_depth(d)?;
    }
    let suite = read_suite(file, &default)?;
    let max = max_depth.unwrap_or(MAX_DEPTH);
    check_threads(threads)?;
    let mut results = Results::open(results)?;
    let json = ui::json();
    // The jobs (and their sizes) still to run, for the bar; a line with a
    // bad FEN has none.
    let (mut total, mut todo, mut weight) = (0usize, 0u64, 0u64);
    for l in suite.iter().filter(|l| l.position.is_ok()) {
        for (d, want) in l.depths(max) {
            total += 1;
            if results.finished(&epd::job_id(l.epd.line, d), d, want).is_none() {
                todo += 1;
                weight += want.max(1);
            }
        }
    }
    if todo < total as u64 {
        eprintln!("resuming: {} of {total} jobs already done", total - todo as usize);
    }
    let progress = Progress::jobs(todo, weight);
    let mut tally = Tally::default();
    for l in &suite {
        let (line, fen) = (l.epd.line, &l.epd.fen);
        let mut check = LineCheck::default();
        match &l.position {
            Err(e) => {
                let why = check.bad_fen(e);
                if !json {
                    progress.suspend(|| writeln!(out, "line {line}: {why}"))?;
                }
            }
            Ok(p) => {
                for (d, want) in l.depths(max) {
                    let id = epd::job_id(line, d);
                    let (done, resumed) = match results.finished(&id, d, want) {
                        Some(done) => (done.clone(), true),
                        None => {
                            let t0 = Instant::now();
                            let got = Perft::new(p.clone()).count(d, threads, progress.nodes());
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
                    if json {
                        progress.suspend(|| ui::emit(out, &done.to_json(resumed)))?;
                    }
                    let outcome = DepthOutcome::Counted { actual: done.actual, pass: done.pass };
                    if let Some(why) = check.depth(d, want, outcome)
                        && !json
                    {
                        progress.suspend(|| writeln!(out, "line {line}: {why}  ({fen})"))?;
                    }
                }
            }
        }
        let verdict = check.verdict(&l.epd.depths, max);
        if let LineResult::Skipped(reason) = &verdict
            && !json
        {
            progress.suspend(|| writeln!(out, "line {line}: skipped: {reason}  ({fen})"))?;
        }
        tally.add(&verdict);
        if json {
            progress.suspend(|| ui::emit(out, &report::line_json(&verdict, line, fen)))?;
        }
    }
    progress.finish();
    report::epd_summary(out, tally, max)
}

/// Analyses the current position of `game` (of any variant), printing
/// UCI-style info lines with SAN, then `bestmove`.
pub(crate) fn analyze_game(game: &menagerie_game::Game, search: &SearchArgs, out: &mut impl Write) -> Result<()> {
    let (options, limits) = analysis_setup(search)?;
    let mut engine = menagerie_search::Engine::new(options);
    engine.set_game(game);
    let pos = game.current().clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let handle = engine.go(limits, move |i| {
        let _ = tx.send(i);
    });
    let line = |pv: &[menagerie_game::Move]| {
        let mut q = pos.clone();
        let mut texts = (Vec::new(), Vec::new());
        for &m in pv {
            texts.0.push(q.move_text(m));
            texts.1.push(q.san(m));
            match q.play(m) {
                Ok(next) => q = next,
                Err(_) => break,
            }
        }
        texts
    };
    write_analysis(rx, handle, line, out)
}

/// The engine settings and search limits of `analyze`'s options (one
/// second when no limit is given), checked.
pub(crate) fn analysis_setup(
    search: &SearchArgs,
) -> Result<(menagerie_search::EngineOptions, menagerie_search::Limits)> {
    let SearchArgs { depth, nodes, movetime, multipv, threads } = *search;
    if let Some(d) = depth
        && !(1..=100).contains(&d)
    {
        bail!("--depth must be 1..100");
    }
    if !(1..=256).contains(&multipv) || !(1..=512).contains(&threads) {
        bail!("--multipv must be 1..256 and --threads 1..512");
    }
    let options = menagerie_search::EngineOptions { hash_mb: 64, threads: threads as usize, multipv: multipv as usize };
    let limits = menagerie_search::Limits {
        depth,
        nodes,
        movetime: movetime
            .or((depth.is_none() && nodes.is_none()).then_some(1000))
            .map(std::time::Duration::from_millis),
        ..menagerie_search::Limits::default()
    };
    Ok((options, limits))
}

/// Writes each info line of a running search as it comes (`line` gives a
/// variation's coordinate and SAN forms), then its best move.
fn write_analysis(
    rx: std::sync::mpsc::Receiver<menagerie_search::Info>,
    handle: menagerie_search::SearchHandle,
    line: impl Fn(&[menagerie_game::Move]) -> (Vec<String>, Vec<String>),
    out: &mut impl Write,
) -> Result<()> {
    use menagerie_search::Score;
    for i in rx {
        let (pv, pv_san) = line(&i.pv);
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
            pv,
            pv_san,
        };
        info.write(out)?;
    }
    let r = handle.wait();
    let best = r.best.map(|m| line(&[m])).and_then(|(u, s)| Some((u.into_iter().next()?, s.into_iter().next()?)));
    report::write_bestmove(out, best.as_ref().map(|(u, s)| (u.as_str(), s.as_str())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-root-move driver counts as the library's perft does, with or
    /// without a table, ticks once per root move, and its node counter ends
    /// at the total.
    #[test]
    fn divide_agrees_with_perft() {
        let p = menagerie_notation::fen::parse_or_start(menagerie_variants::VariantId::Chess, "")
            .expect("the start position");
        let perft = Perft::new(GamePosition::Compiled(p));
        for table in [None, Some(PerftTable::new(1))] {
            let progress = Progress::units(20, "root moves");
            let counts = divide(&perft, 4, 2, table.as_ref(), &progress).expect("never stopped");
            assert_eq!(counts.len(), 20);
            assert_eq!(counts.iter().sum::<u64>(), p.perft(4));
            assert_eq!(progress.nodes().load(std::sync::atomic::Ordering::Relaxed), 197_281);
        }
        let nodes = std::sync::atomic::AtomicU64::new(0);
        assert_eq!(perft.count(0, 2, &nodes), 1);
        assert_eq!(perft.count(3, 2, &nodes), 8902);
    }
}

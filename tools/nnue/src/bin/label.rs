//! `menagerie-label`: re-scores training positions with a UCI engine (a
//! deeper search of Menagerie's own engine, or another engine such as
//! Stockfish or Fairy-Stockfish), keeping the game results.

use anyhow::{Context, Result, bail};
use clap::Parser;
use menagerie_nnue_tools::data::{DataJob, Record, append_to};
use menagerie_pieces::Color;
use menagerie_tournament::engine::{Engine, EngineConfig, GoLimits, MATE};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Re-scores `<FEN> | <score> | <result>` lines with a UCI engine at fixed
/// nodes, appending the re-scored lines to `--out`.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Label {
    #[command(flatten)]
    job: DataJob,
    /// The labelling engine's program (UCI).
    #[arg(long)]
    engine: PathBuf,
    /// A UCI option for it, `NAME=VALUE` (repeatable), e.g. `Hash=16`.
    #[arg(long = "option")]
    options: Vec<String>,
    /// The engine's name for the variant, where it differs from ours
    /// (e.g. Fairy-Stockfish's `camelrhinoplain`).
    #[arg(long)]
    engine_variant: Option<String>,
    /// Nodes per position.
    #[arg(long, default_value_t = 5000)]
    nodes: u64,
    /// Skip this many input lines first (to continue or to split the work).
    #[arg(long, default_value_t = 0)]
    skip: usize,
    /// Label at most this many positions.
    #[arg(long)]
    count: Option<usize>,
}

fn main() -> Result<()> {
    let args = Label::parse();
    let job = &args.job;
    let variant = job.input.variant;
    let mut config = EngineConfig::uci(&args.engine);
    for o in &args.options {
        let Some((k, v)) = o.split_once('=') else { bail!("--option `{o}`: expected NAME=VALUE") };
        config.options.push((k.to_string(), v.to_string()));
    }
    if let Some(name) = &args.engine_variant {
        config.variant_names.push((variant.name().to_string(), name.clone()));
    }
    let mut engine = Engine::start(&config).with_context(|| format!("starting {}", args.engine.display()))?;
    let limits = GoLimits { nodes: Some(args.nodes), ..GoLimits::default() };
    let timeout = Duration::from_secs(60);
    let mut out = append_to(&job.out).with_context(|| format!("opening {}", job.out.display()))?;
    let start = Instant::now();
    let (mut seen, mut written, mut skipped) = (0usize, 0usize, 0usize);
    'files: for path in &job.input.data {
        let reader = BufReader::new(File::open(path).with_context(|| format!("opening {}", path.display()))?);
        for (i, line) in reader.lines().enumerate() {
            let line = line.with_context(|| format!("reading {}", path.display()))?;
            if line.trim().is_empty() {
                continue;
            }
            seen += 1;
            if seen <= args.skip {
                continue;
            }
            if args.count.is_some_and(|c| seen - args.skip > c) {
                break 'files;
            }
            let Ok(mut record) = Record::parse(&line, i + 1) else {
                skipped += 1;
                continue;
            };
            let pos = menagerie_notation::fen::parse(variant, &record.fen)
                .with_context(|| format!("{}:{}: not a {} FEN", path.display(), i + 1, variant.name()))?;
            engine.new_game(&pos, &limits).context("new game")?;
            let thought = engine.think(&pos, &[], &limits, timeout).context("thinking")?;
            match thought.score {
                Some(s) if s.abs() < MATE - 1000 => {
                    record.score = if pos.side_to_move() == Color::White { s } else { -s };
                    writeln!(out, "{}", record.to_line())?;
                    written += 1;
                }
                _ => skipped += 1,
            }
            if written > 0 && written % 10_000 == 0 {
                out.flush()?;
                eprintln!("{written} positions, {:.1}/s", written as f64 / start.elapsed().as_secs_f64().max(1e-9));
            }
        }
    }
    out.flush()?;
    engine.quit();
    eprintln!(
        "{written} positions labelled, {skipped} skipped (mate scores, unreadable lines) in {:.0} s",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

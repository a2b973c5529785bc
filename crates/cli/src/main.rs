//! `menagerie`: perft, divide, legal moves, move validation and EPD suite
//! verification for every Menagerie variant.

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use menagerie_notation::{epd, fen, parse_move, san, uci};
use menagerie_variants::{AnyPosition, VariantId};
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

/// Deepest perft the CLI accepts.
const MAX_DEPTH: u32 = 20;

/// Largest perft table the CLI accepts, in MB (larger sizes overflow the
/// table's size computation or cannot be allocated).
const MAX_HASH_MB: usize = 1 << 16;

#[derive(Parser)]
#[command(name = "menagerie", version, about = "Menagerie: chess and fairy variants — perft, moves, validation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Args, Clone)]
struct PositionArgs {
    /// Variant name (chess, alpaca, alpaca2, alpaca-samefile, alseid, alseid-weak, camel-rhino).
    #[arg(long, short, default_value = "chess")]
    variant: String,
    /// Position in FEN; the variant's start position if omitted.
    #[arg(long, short)]
    fen: Option<String>,
    /// Moves (coordinate or SAN) played from the position first; space or
    /// comma separated, the option may be repeated (`--moves "e2e4 e7e5"`).
    #[arg(long, short, value_delimiter = ',')]
    moves: Vec<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Count leaf nodes at DEPTH; the count alone is the last line of stdout.
    Perft {
        #[command(flatten)]
        pos: PositionArgs,
        /// Worker threads (root moves in parallel).
        #[arg(long, short, default_value_t = 1)]
        threads: usize,
        /// Transposition table size in MB (0 = no table).
        #[arg(long, default_value_t = 0)]
        hash: usize,
        /// Depth in plies.
        depth: u32,
    },
    /// Perft per root move: `MOVE: COUNT` lines, then the total alone.
    Divide {
        #[command(flatten)]
        pos: PositionArgs,
        /// Worker threads.
        #[arg(long, short, default_value_t = 1)]
        threads: usize,
        /// Depth in plies.
        depth: u32,
    },
    /// Every legal move in coordinate form, one per line.
    Moves {
        #[command(flatten)]
        pos: PositionArgs,
        /// Also print each move's SAN.
        #[arg(long)]
        san: bool,
        /// Also print the FEN after each move.
        #[arg(long)]
        fens: bool,
    },
    /// Whether MOVE (coordinate or SAN) is legal; prints the resulting FEN and SAN.
    Validate {
        #[command(flatten)]
        pos: PositionArgs,
        /// The move to check.
        #[arg(name = "MOVE")]
        mv: String,
    },
    /// Verify every line of an EPD perft suite (`<fen> ;D1 n ;D2 m ...`).
    Epd {
        /// The suite file.
        file: std::path::PathBuf,
        /// Variant for lines without a `;variant` opcode.
        #[arg(long, short, default_value = "chess")]
        variant: String,
        /// Skip depths above this.
        #[arg(long)]
        max_depth: Option<u32>,
        /// Worker threads.
        #[arg(long, short, default_value_t = 1)]
        threads: usize,
    },
}

fn variant(name: &str) -> Result<VariantId> {
    VariantId::from_name(name).ok_or_else(|| anyhow!("unknown variant '{name}' (known: {})", VariantId::names()))
}

fn position(a: &PositionArgs) -> Result<AnyPosition> {
    let v = variant(&a.variant)?;
    let mut pos = fen::parse_or_start(v, a.fen.as_deref().unwrap_or("")).context("bad FEN")?;
    for (i, text) in a.moves.iter().flat_map(|m| m.split_whitespace()).enumerate() {
        let m = parse_move(&pos, text).with_context(|| format!("moves[{i}]"))?;
        pos = pos.play_unchecked(m);
    }
    Ok(pos)
}

fn check_depth(depth: u32) -> Result<()> {
    if depth > MAX_DEPTH {
        bail!("depth {depth} is out of range (at most {MAX_DEPTH})");
    }
    Ok(())
}

fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    if threads == 0 || threads > 1024 {
        bail!("--threads must be between 1 and 1024");
    }
    Ok(rayon::ThreadPoolBuilder::new().num_threads(threads).build()?)
}

fn nps(nodes: u64, secs: f64) -> u64 {
    if secs > 0.0 { (nodes as f64 / secs) as u64 } else { 0 }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match cli.command {
        Command::Perft { pos, threads, hash, depth } => {
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
                Err(e) => {
                    writeln!(out, "illegal")?;
                    return Err(anyhow!(e));
                }
            }
        }
        Command::Epd { file, variant: vname, max_depth, threads } => {
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
            let (mut passed, mut failed, mut nodes) = (0u64, 0u64, 0u64);
            let t0 = Instant::now();
            for l in &lines {
                let v = l.variant.unwrap_or(default);
                let mut ok = true;
                match fen::parse(v, &l.fen) {
                    Err(e) => {
                        ok = false;
                        bar.suspend(|| println!("line {}: bad FEN: {e}", l.line));
                    }
                    Ok(p) => {
                        for &(d, want) in l.depths.iter().filter(|(d, _)| *d <= max) {
                            let got = pool.install(|| p.perft_parallel(d));
                            nodes += got;
                            if got != want {
                                ok = false;
                                bar.suspend(|| {
                                    println!("line {}: depth {d}: expected {want}, got {got}  ({})", l.line, l.fen)
                                });
                            }
                        }
                    }
                }
                if ok {
                    passed += 1
                } else {
                    failed += 1
                }
                bar.set_message(format!("{:.1} Mnps", nps(nodes, t0.elapsed().as_secs_f64()) as f64 / 1e6));
                bar.inc(1);
            }
            bar.finish_and_clear();
            writeln!(out, "{passed} passed, {failed} failed")?;
            if failed > 0 {
                return Ok(ExitCode::from(1));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            // Each cause's text is often already part of its parent's.
            let mut msg = String::new();
            for cause in e.chain().map(|c| c.to_string()) {
                if !msg.contains(&cause) {
                    if !msg.is_empty() {
                        msg.push_str(": ");
                    }
                    msg.push_str(&cause);
                }
            }
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

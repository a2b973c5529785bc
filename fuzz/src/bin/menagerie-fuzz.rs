//! `menagerie-fuzz`: runs Menagerie's fuzz targets on stable Rust.
//!
//! ```text
//! menagerie-fuzz fen --seconds 60            # replay fuzz/corpus/fen, then mutate for 60 s
//! menagerie-fuzz all --runs 100000 --seed 7  # every target in turn
//! menagerie-fuzz moves fuzz/artifacts/moves/crash-0123abcd   # replay files only
//! menagerie-fuzz all --write-seeds           # (re)write the built-in seeds into fuzz/corpus
//! ```
//!
//! Exit status: 0 no failure, 1 a failing input (saved under the artifacts
//! directory), 2 bad usage, 70 an input that hung past `--timeout`.

use clap::Parser;
use menagerie_fuzz::driver::{self, Options, Summary};
use menagerie_fuzz::{TARGETS, Target, target};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Fuzz Menagerie's notation, rules and gRPC service on stable Rust.
#[derive(Parser, Debug)]
#[command(name = "menagerie-fuzz")]
struct Cli {
    /// Target: fen, moves, epd, grpc, or all.
    target: String,
    /// Replay only these input files (no mutation).
    files: Vec<PathBuf>,
    /// Stop each target after this many seconds.
    #[arg(long)]
    seconds: Option<f64>,
    /// Stop each target after this many inputs (seeds included).
    #[arg(long)]
    runs: Option<u64>,
    /// PRNG seed (default: from the clock; printed).
    #[arg(long)]
    seed: Option<u64>,
    /// Seed corpus directory (default: fuzz/corpus/<target>).
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Where failing inputs go (default: fuzz/artifacts/<target>).
    #[arg(long)]
    artifacts: Option<PathBuf>,
    /// Largest generated input, in bytes.
    #[arg(long, default_value_t = 4096)]
    max_len: usize,
    /// One input running longer than this many seconds is a hang.
    #[arg(long, default_value_t = 20.0)]
    timeout: f64,
    /// Record every distinct panic and go on.
    #[arg(long)]
    keep_going: bool,
    /// Seconds between progress lines on stderr (0: none).
    #[arg(long, default_value_t = 10.0)]
    status: f64,
    /// Write the built-in seeds into the corpus directory and exit.
    #[arg(long)]
    write_seeds: bool,
}

fn home() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn write_seeds(t: &Target, dir: &PathBuf) -> std::io::Result<usize> {
    std::fs::create_dir_all(dir)?;
    let seeds = (t.seeds)();
    for (name, data) in &seeds {
        std::fs::write(dir.join(name), data)?;
    }
    Ok(seeds.len())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let targets: Vec<Target> = if cli.target == "all" {
        TARGETS.to_vec()
    } else {
        match target(&cli.target) {
            Some(t) => vec![t],
            None => {
                let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
                eprintln!("error: unknown target '{}' (known: {}, all)", cli.target, names.join(", "));
                return ExitCode::from(2);
            }
        }
    };
    let seed = cli.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    });
    let mut failed = false;
    let mut total = Summary::default();
    for t in &targets {
        let corpus = cli.corpus.clone().unwrap_or_else(|| home().join("corpus").join(t.name));
        let artifacts = cli.artifacts.clone().unwrap_or_else(|| home().join("artifacts").join(t.name));
        if cli.write_seeds {
            match write_seeds(t, &corpus) {
                Ok(n) => println!("{}: wrote {n} seeds to {}", t.name, corpus.display()),
                Err(e) => {
                    eprintln!("error: writing seeds to {}: {e}", corpus.display());
                    return ExitCode::from(2);
                }
            }
            continue;
        }
        let replay_only = !cli.files.is_empty();
        let opts = Options {
            seconds: if replay_only { None } else { cli.seconds },
            runs: if replay_only { Some(driver::load_corpus(&cli.files).len() as u64) } else { cli.runs },
            seed,
            corpus: if replay_only { cli.files.clone() } else { vec![corpus] },
            artifacts,
            max_len: cli.max_len,
            timeout: Duration::from_secs_f64(cli.timeout.max(0.1)),
            keep_going: cli.keep_going,
            status_every: (cli.status > 0.0).then(|| Duration::from_secs_f64(cli.status)),
        };
        if opts.seconds.is_none() && opts.runs.is_none() {
            eprintln!("note: no --seconds or --runs: {} runs until interrupted", t.name);
        }
        let s = driver::fuzz(t, &opts);
        println!(
            "{}: {} inputs ({} seeds), {:.1}% accepted, {:.1} s, {:.0} inputs/s, {} failing inputs, {} distinct (seed {seed})",
            t.name,
            s.runs,
            s.seeds,
            100.0 * s.accepted as f64 / s.runs.max(1) as f64,
            s.elapsed.as_secs_f64(),
            s.rate(),
            s.failures,
            s.crashes.len()
        );
        for c in &s.crashes {
            println!(
                "  {}\n  saved: {}",
                c.message,
                c.path.as_ref().map_or("(not saved)".into(), |p| p.display().to_string())
            );
        }
        failed |= !s.crashes.is_empty();
        total.runs += s.runs;
        total.elapsed += s.elapsed;
    }
    if targets.len() > 1 && !cli.write_seeds {
        println!("all: {} inputs in {:.1} s", total.runs, total.elapsed.as_secs_f64());
    }
    if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

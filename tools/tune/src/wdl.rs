//! `menagerie-wdl`: fits a game's win/draw/loss model
//! ([`menagerie_search::wdl::WdlModel`]) to the results of self-play
//! games, from positions labelled `FEN | score | result` (the score in
//! centipawns and the game's result, both from White's point of view: the
//! files `menagerie-datagen` writes). Maximum likelihood by Adam over the
//! four constants; prints the model's line for `crates/search/wdl.txt`
//! and a calibration table. See `tools/tune/README.md`.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Parser;
use menagerie_search::wdl::{WdlModel, material_fraction};
use menagerie_variants::VariantId;
use rayon::prelude::*;

/// Command-line options.
#[derive(Parser, Debug)]
#[command(version, about = "Fit a game's win/draw/loss model to self-play results (FEN | score | result lines)")]
struct Args {
    /// Labelled positions (repeatable): `FEN | score | result` lines.
    #[arg(long, required = true)]
    data: Vec<PathBuf>,
    /// The game the positions are from (its start position sets the
    /// material fraction's denominator).
    #[arg(long, short, default_value = "chess")]
    variant: String,
    /// Use at most this many positions (every k-th line when there are more).
    #[arg(long, default_value_t = 2_000_000)]
    max_positions: usize,
    /// Adam steps over the whole data set.
    #[arg(long, default_value_t = 2_000)]
    steps: usize,
    /// Scores beyond this many centipawns are left out (adjudicated games
    /// end there; they say little about the curve's middle).
    #[arg(long, default_value_t = 3_000)]
    max_cp: i32,
}

/// One position: the side to move's score, material fraction and result
/// (0 loss, 1 draw, 2 win).
#[derive(Clone, Copy)]
struct Sample {
    cp: f64,
    m: f64,
    outcome: u8,
}

fn read(args: &Args, start_fen: &str) -> Result<Vec<Sample>> {
    let mut lines = Vec::new();
    for path in &args.data {
        let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
        for (i, line) in BufReader::new(file).lines().enumerate() {
            let line = line.with_context(|| format!("reading {}", path.display()))?;
            if line.trim().is_empty() {
                continue;
            }
            let parts: Vec<&str> = line.split('|').map(str::trim).collect();
            let [fen, score, result] = parts[..] else {
                bail!("{}:{}: expected 'FEN | score | result'", path.display(), i + 1);
            };
            let score: i32 = score.parse().with_context(|| format!("{}:{}: score '{score}'", path.display(), i + 1))?;
            let result: f64 =
                result.parse().with_context(|| format!("{}:{}: result '{result}'", path.display(), i + 1))?;
            let black = fen.split_whitespace().nth(1) == Some("b");
            if score.abs() > args.max_cp {
                continue;
            }
            let (cp, result) = if black { (-score, 1.0 - result) } else { (score, result) };
            let outcome = if result > 0.75 {
                2
            } else if result < 0.25 {
                0
            } else {
                1
            };
            lines.push(Sample { cp: f64::from(cp), m: material_fraction(fen, start_fen), outcome });
        }
    }
    if lines.len() > args.max_positions {
        let step = lines.len().div_ceil(args.max_positions);
        lines = lines.into_iter().step_by(step).collect();
    }
    Ok(lines)
}

/// Mean negative log-likelihood of the samples under `p`, and its gradient.
fn loss(samples: &[Sample], p: &[f64; 4]) -> (f64, [f64; 4]) {
    let (sum, grad) = samples
        .par_iter()
        .fold(
            || (0.0, [0.0; 4]),
            |(mut sum, mut g), s| {
                let a = p[0] + p[1] * s.m;
                let b = (p[2] + p[3] * s.m).max(1.0);
                let zw = (s.cp - a) / b;
                let zl = (-s.cp - a) / b;
                let w = 1.0 / (1.0 + (-zw).exp());
                let l = 1.0 / (1.0 + (-zl).exp());
                // d/da and d/db of w and l.
                let (dw_da, dw_db) = (w * (1.0 - w) * (-1.0 / b), w * (1.0 - w) * (-(s.cp - a) / (b * b)));
                let (dl_da, dl_db) = (l * (1.0 - l) * (-1.0 / b), l * (1.0 - l) * ((s.cp + a) / (b * b)));
                let (prob, dp_da, dp_db) = match s.outcome {
                    2 => (w, dw_da, dw_db),
                    0 => (l, dl_da, dl_db),
                    _ => (1.0 - w - l, -dw_da - dl_da, -dw_db - dl_db),
                };
                let prob = prob.max(1e-9);
                sum -= prob.ln();
                let (da, db) = (-dp_da / prob, -dp_db / prob);
                g[0] += da;
                g[1] += da * s.m;
                g[2] += db;
                g[3] += db * s.m;
                (sum, g)
            },
        )
        .reduce(
            || (0.0, [0.0; 4]),
            |(s1, g1), (s2, g2)| (s1 + s2, [g1[0] + g2[0], g1[1] + g2[1], g1[2] + g2[2], g1[3] + g2[3]]),
        );
    let n = samples.len().max(1) as f64;
    (sum / n, grad.map(|g| g / n))
}

fn main() -> Result<()> {
    let args = Args::parse();
    let Some(variant) = VariantId::from_name_including_tests(&args.variant) else {
        bail!("unknown variant '{}' (a compiled game: its start position is needed)", args.variant);
    };
    let samples = read(&args, variant.start_fen())?;
    if samples.len() < 1000 {
        bail!("{} positions: too few to fit a model (1000 at least)", samples.len());
    }
    let counts = samples.iter().fold([0usize; 3], |mut c, s| {
        c[s.outcome as usize] += 1;
        c
    });
    let n = samples.len() as f64;
    let base: f64 = -counts.iter().map(|&c| c as f64 / n).map(|q| if q > 0.0 { q * q.ln() } else { 0.0 }).sum::<f64>();
    eprintln!(
        "{} positions: {} wins, {} draws, {} losses for the side to move; outcome entropy {base:.4}",
        samples.len(),
        counts[2],
        counts[1],
        counts[0]
    );

    // Adam on (a0, a1, b0, b1), in centipawns.
    let mut p = [100.0, 100.0, 100.0, 50.0];
    let (mut m1, mut m2) = ([0.0; 4], [0.0; 4]);
    let (lr, beta1, beta2) = (2.0, 0.9, 0.999);
    let mut last = f64::INFINITY;
    for step in 1..=args.steps {
        let (nll, g) = loss(&samples, &p);
        for i in 0..4 {
            m1[i] = beta1 * m1[i] + (1.0 - beta1) * g[i];
            m2[i] = beta2 * m2[i] + (1.0 - beta2) * g[i] * g[i];
            let mh = m1[i] / (1.0 - beta1.powi(step as i32));
            let vh = m2[i] / (1.0 - beta2.powi(step as i32));
            p[i] -= lr * mh / (vh.sqrt() + 1e-9);
        }
        // Keep a >= 0 and b > 0 at both ends of the material range.
        p[0] = p[0].max(0.0);
        p[1] = p[1].max(-p[0]);
        p[2] = p[2].max(5.0);
        p[3] = p[3].max(5.0 - p[2]);
        if step % 200 == 0 || step == args.steps {
            eprintln!("step {step}: NLL {nll:.5} a0 {:.1} a1 {:.1} b0 {:.1} b1 {:.1}", p[0], p[1], p[2], p[3]);
            if (last - nll).abs() < 1e-7 {
                break;
            }
            last = nll;
        }
    }
    let (nll, _) = loss(&samples, &p);
    let model = WdlModel { a0: p[0], a1: p[1], b0: p[2], b1: p[3] };

    // Calibration: observed against predicted, by score.
    eprintln!("score bucket      n   observed W/D/L %      predicted W/D/L %");
    for lo in (-1000..1000).step_by(200) {
        let hi = lo + 200;
        let bucket: Vec<&Sample> = samples.iter().filter(|s| s.cp >= f64::from(lo) && s.cp < f64::from(hi)).collect();
        if bucket.is_empty() {
            continue;
        }
        let k = bucket.len() as f64;
        let obs = |o: u8| 100.0 * bucket.iter().filter(|s| s.outcome == o).count() as f64 / k;
        let pred = bucket.iter().fold([0.0; 3], |mut acc, s| {
            let (w, d, l) = model.probabilities(s.cp, s.m);
            acc[0] += w;
            acc[1] += d;
            acc[2] += l;
            acc
        });
        eprintln!(
            "[{lo:>5},{hi:>5}) {:>8}   {:>5.1} {:>5.1} {:>5.1}      {:>5.1} {:>5.1} {:>5.1}",
            bucket.len(),
            obs(2),
            obs(1),
            obs(0),
            100.0 * pred[0] / k,
            100.0 * pred[1] / k,
            100.0 * pred[2] / k
        );
    }
    eprintln!("NLL {nll:.5} (outcome entropy without the score: {base:.4})");
    println!(
        "{} {:.1} {:.1} {:.1} {:.1}  # {} positions, NLL {nll:.4} vs {base:.4}",
        variant.name(),
        p[0],
        p[1],
        p[2],
        p[3],
        samples.len()
    );
    Ok(())
}

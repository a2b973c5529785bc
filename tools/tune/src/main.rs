//! `menagerie-tune`: Texel-style tuning of the evaluation weights.
//!
//! Reads self-play games (PGN) of one variant, or positions labelled with
//! a teacher engine's score (`tools/tune/label.py`), keeps the quiet positions
//! (side to move not in check, no capture or other tactical move winning
//! material by SEE, game not over), records each one's evaluation as a linear
//! function of the weights ([`menagerie_search::Trace`]), fits the logistic
//! scale K of `result ≈ 1 / (1 + 10^(-K·eval/400))`, then minimises the mean
//! squared error over the weights with Adam (full batch) and writes a weights
//! file for `crates/search/weights/<variant>.txt`. See `tools/tune/README.md`.

use std::fs::File;
use std::io::{BufReader, Write as _};
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Parser;
use menagerie_notation::pgn::{GameResult, PgnReader};
use menagerie_search::{EvalTables, Trace, WEIGHT_COUNT, WeightPhase, Weights, see};
use menagerie_variants::{AnyPosition, Position, PositionVisitor, Variant, VariantId};
use rayon::prelude::*;

/// Command-line options.
#[derive(Parser, Debug)]
#[command(version, about = "Texel-style tuning of Menagerie's evaluation weights from PGN games")]
struct Args {
    /// PGN files of games in the variant (repeatable): each position's
    /// target is its game's result.
    #[arg(long)]
    pgn: Vec<PathBuf>,
    /// Labelled positions (repeatable): `FEN;score` lines, the score a
    /// teacher's search gave the position in centipawns from White's point
    /// of view (`tools/tune/label.py`); the target is `1 / (1 + 10^(-score/400))`.
    #[arg(long)]
    labels: Vec<PathBuf>,
    /// Variant of the games.
    #[arg(long, short, default_value = "chess")]
    variant: String,
    /// Plies skipped at the start of every game (opening moves).
    #[arg(long, default_value_t = 8)]
    skip_plies: usize,
    /// Weights file to start from (over the defaults); default: the hand-picked defaults.
    #[arg(long)]
    start: Option<PathBuf>,
    /// Gradient steps (full batch).
    #[arg(long, default_value_t = 2000)]
    epochs: usize,
    /// Adam learning rate, in centipawns per step.
    #[arg(long, default_value_t = 1.0)]
    lr: f64,
    /// Keep the per-square tables fixed (tune only the other weights).
    #[arg(long)]
    no_psq: bool,
    /// L2 penalty pulling the per-square corrections towards 0, per cp² of a weight.
    #[arg(long, default_value_t = 1e-7)]
    l2: f64,
    /// Tune only the weights whose names start with one of these prefixes
    /// (comma-separated, e.g. `material,passed`); default: all.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// L2 penalty pulling every weight towards its starting value, per cp² (0: none).
    #[arg(long, default_value_t = 0.0)]
    l2_start: f64,
    /// Fixed logistic scale K instead of fitting it.
    #[arg(long)]
    k: Option<f64>,
    /// The positions of every N-th game are held out for validation (0: none).
    #[arg(long, default_value_t = 10)]
    holdout_every: usize,
    /// At most this many positions (the first ones read).
    #[arg(long)]
    max_positions: Option<usize>,
    /// Write the tuned weights here (only weights that differ from the defaults).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Instead of tuning, write the FEN of every kept position (one per
    /// line, each once) here: the input of `tools/tune/label.py --fens`.
    #[arg(long)]
    dump_fens: Option<PathBuf>,
}

/// One training position.
struct Sample {
    /// The position.
    pos: AnyPosition,
    /// The target from White's point of view: the game result (1, 0.5 or
    /// 0) or a teacher's score as an expected result.
    result: f64,
    /// The evaluation as a linear function of the weights.
    trace: Trace,
    /// Index of the game it comes from (the hold-out is by game).
    game: usize,
}

/// Whether a position is quiet enough for its static evaluation to stand.
struct Quiet;

impl PositionVisitor for Quiet {
    type Output = bool;
    fn visit<V: Variant>(self, pos: &Position<V>) -> bool {
        if pos.is_check() {
            return false;
        }
        !pos.tactical_moves().as_slice().iter().any(|&m| see(pos, m) > 0)
    }
}

/// The default weights of the variant.
struct Defaults;

impl PositionVisitor for Defaults {
    type Output = Weights;
    fn visit<V: Variant>(self, _pos: &Position<V>) -> Weights {
        Weights::defaults::<V>()
    }
}

/// Evaluation tables of the variant with the given weights.
struct Build(Weights);

impl PositionVisitor for Build {
    type Output = EvalTables;
    fn visit<V: Variant>(self, _pos: &Position<V>) -> EvalTables {
        EvalTables::with_weights::<V>(self.0)
    }
}

/// The trace of a position.
struct TraceOf<'a>(&'a EvalTables);

impl PositionVisitor for TraceOf<'_> {
    type Output = Trace;
    fn visit<V: Variant>(self, pos: &Position<V>) -> Trace {
        self.0.trace(pos)
    }
}

/// The static evaluation from White's point of view.
struct WhiteEval<'a>(&'a EvalTables);

impl PositionVisitor for WhiteEval<'_> {
    type Output = i32;
    fn visit<V: Variant>(self, pos: &Position<V>) -> i32 {
        let e = self.0.evaluate(pos);
        if pos.side_to_move() == menagerie_pieces::Color::White { e } else { -e }
    }
}

fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * eval / 400.0))
}

/// Mean squared error of `evals` (White's view) against the results.
fn mse(k: f64, samples: &[&Sample], evals: &[f64]) -> f64 {
    let sum: f64 = samples.par_iter().zip(evals).map(|(s, &e)| (s.result - sigmoid(k, e)).powi(2)).sum();
    sum / samples.len().max(1) as f64
}

/// The K minimising the error of the given evaluations (golden-section search).
fn fit_k(samples: &[&Sample], evals: &[f64]) -> f64 {
    let (mut a, mut b) = (0.05f64, 5.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if mse(c, samples, evals) < mse(d, samples, evals) {
            b = d;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

/// Linear evaluation of a trace under real-valued weights.
fn linear(theta: &[f64], factors: &[(f64, f64, f64)], t: &Trace) -> f64 {
    let mg = t.mg_fraction;
    let mut s = 0.0;
    for &(i, c) in &t.terms {
        let (fm, fe, ff) = factors[i as usize];
        s += (fm * mg + fe * (1.0 - mg) + ff) * c as f64 * theta[i as usize];
    }
    s
}

/// A game's positions and its result from White's point of view.
type GameRecord = (Vec<AnyPosition>, f64);

fn result_value(r: GameResult) -> Option<f64> {
    match r {
        GameResult::WhiteWins => Some(1.0),
        GameResult::BlackWins => Some(0.0),
        GameResult::Draw => Some(0.5),
        GameResult::Unknown => None,
    }
}

/// Reads the games of a PGN file with the notation crate's reader.
fn read_pgn(text: &str, variant: VariantId, bad: &mut usize) -> Result<Vec<GameRecord>> {
    let mut out = Vec::new();
    for game in PgnReader::new(BufReader::new(text.as_bytes())) {
        let Ok(game) = game else {
            *bad += 1;
            continue;
        };
        if game.variant != variant {
            bail!("a game of {} (expected {})", game.variant.name(), variant.name());
        }
        let Some(result) = result_value(game.result) else { continue };
        let Ok(positions) = game.positions() else {
            *bad += 1;
            continue;
        };
        out.push((positions, result));
    }
    Ok(out)
}

/// A minimal reader for `menagerie match` output whose `Variant` tag the PGN
/// reader does not know: the `FEN` and `Result` tags and SAN main-line moves
/// (comments, move numbers and the result token skipped), in `variant`.
fn read_pgn_plain(text: &str, variant: VariantId, bad: &mut usize) -> Vec<GameRecord> {
    let mut out = Vec::new();
    for chunk in text.split("[Event ").skip(1) {
        let tag = |name: &str| {
            let key = format!("[{name} \"");
            chunk.find(&key).and_then(|i| {
                let rest = &chunk[i + key.len()..];
                rest.find('"').map(|j| rest[..j].to_string())
            })
        };
        let Some(result) = tag("Result").and_then(|r| GameResult::from_token(&r)).and_then(result_value) else {
            continue;
        };
        let start = match tag("FEN") {
            Some(fen) => match menagerie_notation::fen::parse(variant, &fen) {
                Ok(p) => p,
                Err(e) => {
                    if *bad == 0 {
                        eprintln!("first unreadable game: FEN {fen}: {e}");
                    }
                    *bad += 1;
                    continue;
                }
            },
            None => AnyPosition::start(variant),
        };
        // Movetext: the lines after the last tag, without {comments}.
        let body_start = chunk.rfind("\"]").map_or(0, |i| i + 2);
        let mut movetext = String::new();
        let mut depth = 0;
        for ch in chunk[body_start..].chars() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ if depth == 0 => movetext.push(ch),
                _ => {}
            }
        }
        let mut pos = start;
        let mut positions = vec![pos];
        let mut ok = true;
        for tok in movetext.split_whitespace() {
            if GameResult::from_token(tok).is_some() {
                continue;
            }
            let tok = tok.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches('.');
            if tok.is_empty() {
                continue;
            }
            match menagerie_notation::san::parse(&pos, tok) {
                Ok(m) => {
                    pos = pos.play_unchecked(m);
                    positions.push(pos);
                }
                Err(e) => {
                    if *bad == 0 {
                        eprintln!("first unreadable game: move '{tok}': {e}");
                    }
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            out.push((positions, result));
        } else {
            *bad += 1;
        }
    }
    out
}

fn read_samples(args: &Args, variant: VariantId, tables: &EvalTables) -> Result<Vec<Sample>> {
    let mut samples = Vec::new();
    let (mut games, mut bad, mut seen) = (0usize, 0usize, 0usize);
    'files: for path in &args.pgn {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let mut file_bad = 0;
        let mut records = read_pgn(&text, variant, &mut file_bad).with_context(|| format!("{}", path.display()))?;
        if records.is_empty() && file_bad > 0 {
            // E.g. a Variant tag the PGN reader does not know.
            file_bad = 0;
            records = read_pgn_plain(&text, variant, &mut file_bad);
        }
        bad += file_bad;
        for (positions, result) in records {
            games += 1;
            for pos in positions.into_iter().skip(args.skip_plies) {
                seen += 1;
                if pos.outcome().is_some() || !pos.visit(Quiet) {
                    continue;
                }
                samples.push(Sample { pos, result, trace: pos.visit(TraceOf(tables)), game: games });
                if args.max_positions.is_some_and(|m| samples.len() >= m) {
                    break 'files;
                }
            }
        }
    }
    eprintln!("{games} games ({bad} unreadable), {seen} positions after the opening, {} quiet kept", samples.len());
    let (before, mut labelled) = (samples.len(), 0usize);
    'labels: for path in &args.labels {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((fen, score)) = line.rsplit_once(';') else {
                bail!("{}:{}: expected FEN;score", path.display(), n + 1);
            };
            let score: f64 =
                score.trim().parse().with_context(|| format!("{}:{}: score {score:?}", path.display(), n + 1))?;
            let pos = menagerie_notation::fen::parse(variant, fen.trim())
                .with_context(|| format!("{}:{}: FEN {fen:?}", path.display(), n + 1))?;
            labelled += 1;
            if pos.outcome().is_some() || !pos.visit(Quiet) {
                continue;
            }
            // Labelled positions come one by one: each is its own "game"
            // for the hold-out.
            games += 1;
            let result = sigmoid(1.0, score);
            samples.push(Sample { pos, result, trace: pos.visit(TraceOf(tables)), game: games });
            if args.max_positions.is_some_and(|m| samples.len() >= m) {
                break 'labels;
            }
        }
    }
    if !args.labels.is_empty() {
        eprintln!("{labelled} labelled positions, {} quiet kept", samples.len() - before);
    }
    Ok(samples)
}

fn main() -> Result<()> {
    let args = Args::parse();
    if args.pgn.is_empty() && args.labels.is_empty() {
        bail!("give games (--pgn) or labelled positions (--labels)");
    }
    let variant = VariantId::from_name_including_tests(&args.variant)
        .with_context(|| format!("unknown variant {}", args.variant))?;
    let start_pos = AnyPosition::start(variant);
    let defaults = start_pos.visit(Defaults);
    let initial = match &args.start {
        Some(p) => {
            let text = std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            Weights::parse_over(defaults.clone(), &text).with_context(|| format!("parsing {}", p.display()))?
        }
        None => defaults.clone(),
    };
    let tables = start_pos.visit(Build(initial.clone()));
    let samples = read_samples(&args, variant, &tables)?;
    if let Some(path) = &args.dump_fens {
        let mut seen = std::collections::HashSet::new();
        let mut f =
            std::io::BufWriter::new(File::create(path).with_context(|| format!("creating {}", path.display()))?);
        for s in &samples {
            let fen = menagerie_notation::fen::format(&s.pos);
            if seen.insert(fen.clone()) {
                writeln!(f, "{fen}")?;
            }
        }
        f.flush()?;
        eprintln!("wrote {} positions to {}", seen.len(), path.display());
        return Ok(());
    }
    if samples.len() < 100 {
        bail!("only {} positions: not enough to tune", samples.len());
    }
    let (mut train, mut valid): (Vec<&Sample>, Vec<&Sample>) = (Vec::new(), Vec::new());
    for s in &samples {
        if args.holdout_every > 0 && s.game % args.holdout_every == 0 {
            valid.push(s);
        } else {
            train.push(s);
        }
    }
    let real_evals = |t: &EvalTables, set: &[&Sample]| -> Vec<f64> {
        set.par_iter().map(|s| s.pos.visit(WhiteEval(t)) as f64).collect()
    };
    let train_evals0 = real_evals(&tables, &train);
    let valid_evals0 = real_evals(&tables, &valid);
    let k = args.k.unwrap_or_else(|| fit_k(&train, &train_evals0));
    let mse_train0 = mse(k, &train, &train_evals0);
    let mse_valid0 = mse(k, &valid, &valid_evals0);
    eprintln!("K = {k:.4}; start MSE train {mse_train0:.6}, validation {mse_valid0:.6}");

    // Phase factors of each weight: (middlegame, endgame, flat).
    let factors: Vec<(f64, f64, f64)> = (0..WEIGHT_COUNT)
        .map(|i| match Weights::phase_of(i) {
            WeightPhase::Middlegame => (1.0, 0.0, 0.0),
            WeightPhase::Endgame => (0.0, 1.0, 0.0),
            WeightPhase::Flat => (0.0, 0.0, 1.0),
        })
        .collect();
    // Weights that appear in the data and are free to move.
    let mut used = vec![false; WEIGHT_COUNT];
    for s in &train {
        for &(i, _) in &s.trace.terms {
            used[i as usize] = true;
        }
    }
    let is_psq = |i: usize| Weights::name(i).starts_with("psq_");
    // Every `--only` prefix must name some weight (a typo would tune
    // nothing); say what each one frees, since a prefix also takes longer
    // names (`kd_check` is every safe-check weight).
    for p in &args.only {
        let names: Vec<String> = (0..WEIGHT_COUNT).map(Weights::name).filter(|n| n.starts_with(p.as_str())).collect();
        if names.is_empty() {
            bail!("--only {p}: no weight name starts with '{p}'");
        }
        let shown: Vec<&str> = names.iter().take(4).map(String::as_str).collect();
        let more = if names.len() > shown.len() { format!(", … ({} in all)", names.len()) } else { String::new() };
        eprintln!("--only {p}: {}{more}", shown.join(", "));
    }
    let chosen = |i: usize| args.only.is_empty() || args.only.iter().any(|p| Weights::name(i).starts_with(p.as_str()));
    let free: Vec<bool> = (0..WEIGHT_COUNT).map(|i| used[i] && !(args.no_psq && is_psq(i)) && chosen(i)).collect();
    eprintln!("{} weights tuned", free.iter().filter(|f| **f).count());

    let mut theta: Vec<f64> = initial.values().iter().map(|&v| v as f64).collect();
    let start_theta = theta.clone();
    let (mut m, mut v) = (vec![0.0; WEIGHT_COUNT], vec![0.0; WEIGHT_COUNT]);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
    let kk = k * std::f64::consts::LN_10 / 400.0;
    let n = train.len() as f64;
    for epoch in 1..=args.epochs {
        let grad = train
            .par_iter()
            .fold(
                || vec![0.0f64; WEIGHT_COUNT],
                |mut g, s| {
                    let e = linear(&theta, &factors, &s.trace);
                    let p = sigmoid(k, e);
                    let d = 2.0 * (p - s.result) * p * (1.0 - p) * kk / n;
                    let mg = s.trace.mg_fraction;
                    for &(i, c) in &s.trace.terms {
                        let (fm, fe, ff) = factors[i as usize];
                        g[i as usize] += d * c as f64 * (fm * mg + fe * (1.0 - mg) + ff);
                    }
                    g
                },
            )
            .reduce(
                || vec![0.0f64; WEIGHT_COUNT],
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(b) {
                        *x += y;
                    }
                    a
                },
            );
        let t = epoch as i32;
        for i in 0..WEIGHT_COUNT {
            if !free[i] {
                continue;
            }
            let mut g = grad[i];
            if is_psq(i) {
                g += 2.0 * args.l2 * theta[i];
            }
            g += 2.0 * args.l2_start * (theta[i] - start_theta[i]);
            m[i] = b1 * m[i] + (1.0 - b1) * g;
            v[i] = b2 * v[i] + (1.0 - b2) * g * g;
            let mh = m[i] / (1.0 - b1.powi(t));
            let vh = v[i] / (1.0 - b2.powi(t));
            theta[i] -= args.lr * mh / (vh.sqrt() + eps);
        }
        if epoch % 100 == 0 || epoch == args.epochs {
            let te: Vec<f64> = train.par_iter().map(|s| linear(&theta, &factors, &s.trace)).collect();
            let ve: Vec<f64> = valid.par_iter().map(|s| linear(&theta, &factors, &s.trace)).collect();
            eprintln!(
                "epoch {epoch}: linear MSE train {:.6}, validation {:.6}",
                mse(k, &train, &te),
                mse(k, &valid, &ve)
            );
        }
    }

    let mut tuned = initial.clone();
    for (i, &x) in theta.iter().enumerate() {
        tuned.set(i, x.round() as i32);
    }
    let tuned_tables = start_pos.visit(Build(tuned.clone()));
    let mse_train1 = mse(k, &train, &real_evals(&tuned_tables, &train));
    let mse_valid1 = mse(k, &valid, &real_evals(&tuned_tables, &valid));
    eprintln!("tuned (rounded, real evaluation): MSE train {mse_train1:.6}, validation {mse_valid1:.6}");

    if let Some(out) = &args.out {
        let mut f = File::create(out).with_context(|| format!("creating {}", out.display()))?;
        writeln!(f, "# Tuned evaluation weights for {} (menagerie-tune; see tools/tune/README.md).", variant.name())?;
        writeln!(f, "# Weights not listed keep their defaults (Weights::defaults).")?;
        writeln!(
            f,
            "# {} positions ({} held out), K = {k:.4}, MSE train {mse_train0:.6} -> {mse_train1:.6}, validation {mse_valid0:.6} -> {mse_valid1:.6}",
            samples.len(),
            valid.len()
        )?;
        writeln!(
            f,
            "# epochs {}, lr {}, l2 {}, l2-start {}, psq tables {}",
            args.epochs,
            args.lr,
            args.l2,
            args.l2_start,
            if args.no_psq { "fixed" } else { "tuned" }
        )?;
        f.write_all(tuned.to_text(Some(&defaults)).as_bytes())?;
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}

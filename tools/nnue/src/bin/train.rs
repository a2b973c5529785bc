//! `menagerie-train`: trains a game's NNUE from `menagerie-datagen` data and
//! writes the quantised network (`menagerie_nnue::Network::to_bytes`).

use anyhow::{Context, Result, bail};
use clap::Parser;
use menagerie_nnue::{Network, active_features, feature_count};
use menagerie_nnue_tools::data::{DataArgs, DataJob, Record};
use menagerie_nnue_tools::rng::Rng;
use menagerie_nnue_tools::train::{Model, Sample, Settings, Trainer};
use menagerie_pieces::Color;
use menagerie_search::EvalTables;
use menagerie_variants::{Position, PositionVisitor, Variant, VariantId};
use std::path::PathBuf;
use std::time::Instant;

/// Trains an NNUE for one game and writes the quantised network to `--out`.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Train {
    #[command(flatten)]
    job: DataJob,
    /// The float checkpoint to write (default: `<out>.ckpt`).
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// Continue from this float checkpoint.
    #[arg(long)]
    resume: Option<PathBuf>,
    /// Hidden units per perspective (ignored with --resume).
    #[arg(long, default_value_t = 128)]
    hidden: usize,
    /// Passes over the training data.
    #[arg(long, default_value_t = 10)]
    epochs: u32,
    /// Adam's learning rate.
    #[arg(long, default_value_t = 0.001)]
    lr: f32,
    /// Learning rate factor applied after each epoch.
    #[arg(long, default_value_t = 0.85)]
    lr_decay: f32,
    /// Mini-batch size.
    #[arg(long, default_value_t = 256)]
    batch: usize,
    /// Weight of the search score in the target (the rest is the game result).
    #[arg(long, default_value_t = 0.7)]
    lambda: f32,
    /// Fraction of the positions held out for validation.
    #[arg(long, default_value_t = 0.05)]
    valid: f64,
    /// Train a residual network: the engine adds its output to the linear
    /// evaluation, so it learns the search score minus the linear static
    /// score (ignored with --resume: the checkpoint says).
    #[arg(long)]
    residual: bool,
    /// Seed of the initial weights, the split and the shuffles.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The features of both perspectives, side to move first, the side to
/// move, and the linear evaluation's static score (side to move's view).
struct Features;

impl PositionVisitor for Features {
    type Output = (Vec<u32>, Vec<u32>, Color, i32);
    fn visit<V: Variant>(self, pos: &Position<V>) -> Self::Output {
        let stm = pos.side_to_move();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        active_features::<V>(pos, stm, &mut a);
        active_features::<V>(pos, stm.flip(), &mut b);
        (a, b, stm, EvalTables::shared::<V>().evaluate(pos))
    }
}

struct Inputs;

impl PositionVisitor for Inputs {
    type Output = usize;
    fn visit<V: Variant>(self, _pos: &Position<V>) -> usize {
        feature_count::<V>()
    }
}

fn read_samples(input: &DataArgs, variant: VariantId, residual: bool) -> Result<Vec<Sample>> {
    let mut samples = Vec::new();
    let mut bad = 0usize;
    for path in &input.data {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let parsed = Record::parse(line, i + 1).map_err(anyhow::Error::from).and_then(|r| {
                let pos = menagerie_notation::fen::parse(variant, &r.fen)?;
                Ok((r, pos))
            });
            let Ok((record, pos)) = parsed else {
                // A line cut by a running generator, or not this game's.
                bad += 1;
                continue;
            };
            let (stm, nstm, side, linear) = pos.visit(Features);
            let white = side == Color::White;
            let score = record.score as f32 * if white { 1.0 } else { -1.0 };
            let result = if white { record.result } else { 1.0 - record.result };
            let base = if residual { linear as f32 } else { 0.0 };
            samples.push(Sample { stm, nstm, score, result, base });
        }
    }
    if bad > 0 {
        eprintln!("skipped {bad} unreadable lines");
    }
    Ok(samples)
}

fn main() -> Result<()> {
    let args = Train::parse();
    let job = &args.job;
    let variant = job.input.variant;
    let inputs = menagerie_variants::AnyPosition::start(variant).visit(Inputs);
    let mut model = match &args.resume {
        Some(path) => {
            let mut file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
            let model = Model::read(&mut file).with_context(|| format!("reading {}", path.display()))?;
            if model.variant != variant.name() || model.inputs != inputs {
                bail!(
                    "{} is a checkpoint for {} with {} inputs, not {}",
                    path.display(),
                    model.variant,
                    model.inputs,
                    variant.name()
                );
            }
            model
        }
        None => Model::new(variant.name(), inputs, args.hidden.max(1), args.seed, args.residual),
    };
    let t0 = Instant::now();
    let mut samples = read_samples(&job.input, variant, model.residual)?;
    if samples.len() < 2 {
        bail!("too few positions ({})", samples.len());
    }
    Rng::new(args.seed).shuffle(&mut samples);
    let n_valid = ((samples.len() as f64 * args.valid) as usize).clamp(1, samples.len() - 1);
    let valid = samples.split_off(samples.len() - n_valid);
    eprintln!(
        "{} positions ({} train, {} validation) read in {:.1} s",
        samples.len() + valid.len(),
        samples.len(),
        valid.len(),
        t0.elapsed().as_secs_f64()
    );
    let mut settings = Settings { lambda: args.lambda, lr: args.lr, batch: args.batch.max(1), seed: args.seed };
    eprintln!("epoch 0: validation loss {:.6}", model.loss(&valid, args.lambda));
    let mut trainer = Trainer::new(&model, settings.clone());
    for epoch in 1..=args.epochs {
        let t = Instant::now();
        let train_loss = trainer.epoch(&mut model, &mut samples);
        let valid_loss = model.loss(&valid, args.lambda);
        eprintln!(
            "epoch {epoch}: train loss {train_loss:.6}, validation loss {valid_loss:.6}, lr {:.6}, {:.1} s",
            settings.lr,
            t.elapsed().as_secs_f64()
        );
        settings.lr *= args.lr_decay;
        trainer.set_lr(settings.lr);
    }
    let checkpoint = args.checkpoint.clone().unwrap_or_else(|| {
        let mut p = job.out.clone().into_os_string();
        p.push(".ckpt");
        PathBuf::from(p)
    });
    let mut file = std::fs::File::create(&checkpoint).with_context(|| format!("creating {}", checkpoint.display()))?;
    model.write(&mut file).with_context(|| format!("writing {}", checkpoint.display()))?;
    let net = Network::from_float(&model.to_float());
    let bytes = net.to_bytes();
    Network::from_bytes(&bytes).context("the written network does not load")?;
    // The quantised net against the float model, and the float model
    // against the search scores, over the validation positions.
    let (mut diff, mut max_diff, mut sq_err) = (0.0f64, 0.0f64, 0.0f64);
    for s in &valid {
        let float_cp = f64::from(model.forward(&s.stm, &s.nstm)) * 400.0;
        let d = (f64::from(net.evaluate(&s.stm, &s.nstm)) - float_cp).abs();
        diff += d;
        max_diff = max_diff.max(d);
        sq_err += (float_cp + f64::from(s.base) - f64::from(s.score)).powi(2);
    }
    let n = valid.len() as f64;
    eprintln!(
        "validation: quantised - float {:.2} cp mean, {max_diff:.1} cp max; float vs search score {:.0} cp RMS",
        diff / n,
        (sq_err / n).sqrt()
    );
    std::fs::write(&job.out, &bytes).with_context(|| format!("writing {}", job.out.display()))?;
    eprintln!(
        "wrote {} ({} bytes) and {} in {:.0} s total",
        job.out.display(),
        bytes.len(),
        checkpoint.display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

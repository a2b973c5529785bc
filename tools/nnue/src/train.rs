//! The trainer's core: the spec's network (sparse inputs, one hidden layer
//! of clipped-ReLU units per perspective, one output) in `f32`, trained
//! with Adam on mini-batches, the first layer updated sparsely (only the
//! rows of the features a batch uses).
//!
//! Output `out` is in units of 400 cp for the side to move; the loss is the
//! mean of `(sigmoid(out + base / 400) - target)^2` with
//! `target = lambda * sigmoid(score / 400) + (1 - lambda) * result`, where
//! `base` is the linear evaluation's static score for a residual model and
//! 0 for a plain one.

use crate::rng::Rng;
use menagerie_nnue::FloatNetwork;
use std::io::{self, Read, Write};
use std::ops::{Deref, DerefMut};
use thiserror::Error;

/// One training sample, from the side to move's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Active features of the side to move's perspective.
    pub stm: Vec<u32>,
    /// Active features of the other perspective.
    pub nstm: Vec<u32>,
    /// The search's score, centipawns, side to move's view.
    pub score: f32,
    /// The game's result for the side to move (1, ½, 0).
    pub result: f32,
    /// What the network's output is added to, centipawns, side to move's
    /// view: the linear evaluation's static score for a residual model, 0
    /// for a plain one.
    pub base: f32,
}

impl Sample {
    /// The training target for `lambda`.
    pub fn target(&self, lambda: f32) -> f32 {
        lambda * sigmoid(self.score / 400.0) + (1.0 - lambda) * self.result
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The network being trained: the engine crate's float network
/// ([`FloatNetwork`]: `w1` one row of `hidden` weights per input, `w2` the
/// side to move's half first), with the trainer's operations.
#[derive(Clone, Debug, PartialEq)]
pub struct Model(pub FloatNetwork);

impl Deref for Model {
    type Target = FloatNetwork;
    fn deref(&self) -> &FloatNetwork {
        &self.0
    }
}

impl DerefMut for Model {
    fn deref_mut(&mut self) -> &mut FloatNetwork {
        &mut self.0
    }
}

/// A checkpoint that cannot be read.
#[derive(Debug, Error)]
pub enum CheckpointError {
    /// Reading failed.
    #[error("reading the checkpoint: {0}")]
    Io(#[from] io::Error),
    /// Not a checkpoint, or a damaged one.
    #[error("not a trainer checkpoint: {0}")]
    Format(&'static str),
}

/// Checkpoint magic of a plain model (format version 1).
const MAGIC: &[u8; 8] = b"MNNUEF01";
/// Checkpoint magic of a residual model (otherwise as version 1).
const MAGIC_RESIDUAL: &[u8; 8] = b"MNNUER01";

/// Largest output weight magnitude (the quantised `w2` is `i16` times 64).
const W2_CLIP: f32 = 32767.0 / 64.0 - 1.0;
/// Largest first-layer weight magnitude (`i16` times 255).
const W1_CLIP: f32 = 32767.0 / 255.0 - 1.0;

impl Model {
    /// A randomly initialised model; a `residual` one starts with small
    /// output weights, so that it starts close to the linear evaluation.
    pub fn new(variant: &str, inputs: usize, hidden: usize, seed: u64, residual: bool) -> Model {
        let mut rng = Rng::new(seed);
        let mut uniform = |scale: f32| (rng.unit() as f32 * 2.0 - 1.0) * scale;
        let w1 = (0..inputs * hidden).map(|_| uniform(0.1)).collect();
        let b1 = (0..hidden).map(|_| 0.1 + uniform(0.05)).collect();
        let out_scale = if residual { 0.1 } else { 1.0 } / (hidden as f32).sqrt();
        let w2 = (0..2 * hidden).map(|_| uniform(out_scale)).collect();
        Model(FloatNetwork { variant: variant.to_string(), inputs, hidden, w1, b1, w2, b2: 0.0, residual })
    }

    /// The model as the engine crate's float network.
    pub fn to_float(&self) -> FloatNetwork {
        self.0.clone()
    }

    fn accumulate(&self, features: &[u32], acc: &mut [f32]) {
        acc.copy_from_slice(&self.b1);
        for &f in features {
            let row = &self.w1[f as usize * self.hidden..(f as usize + 1) * self.hidden];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += w;
            }
        }
    }

    /// The output in units of 400 centipawns for the side to move.
    pub fn forward(&self, stm: &[u32], nstm: &[u32]) -> f32 {
        let mut a = vec![0.0; self.hidden];
        let mut b = vec![0.0; self.hidden];
        self.accumulate(stm, &mut a);
        self.accumulate(nstm, &mut b);
        let h = self.hidden;
        let mut out = self.b2;
        for i in 0..h {
            out += self.w2[i] * a[i].clamp(0.0, 1.0) + self.w2[h + i] * b[i].clamp(0.0, 1.0);
        }
        out
    }

    /// Mean loss over `samples`.
    pub fn loss(&self, samples: &[Sample], lambda: f32) -> f64 {
        if samples.is_empty() {
            return 0.0;
        }
        let sum: f64 = samples
            .iter()
            .map(|s| {
                let d = sigmoid(self.forward(&s.stm, &s.nstm) + s.base / 400.0) - s.target(lambda);
                f64::from(d * d)
            })
            .sum();
        sum / samples.len() as f64
    }

    /// Writes the checkpoint: magic (`MNNUEF01`, or `MNNUER01` for a
    /// residual model), then little-endian `u32` name length,
    /// the name's bytes, `u32` inputs, `u32` hidden, then the `f32`s of
    /// `w1`, `b1`, `w2` and `b2`.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(if self.residual { MAGIC_RESIDUAL } else { MAGIC })?;
        out.write_all(&(self.variant.len() as u32).to_le_bytes())?;
        out.write_all(self.variant.as_bytes())?;
        out.write_all(&(self.inputs as u32).to_le_bytes())?;
        out.write_all(&(self.hidden as u32).to_le_bytes())?;
        for v in self.w1.iter().chain(&self.b1).chain(&self.w2).chain(std::iter::once(&self.b2)) {
            out.write_all(&v.to_le_bytes())?;
        }
        Ok(())
    }

    /// Reads a checkpoint written by [`Model::write`].
    pub fn read(input: &mut impl Read) -> Result<Model, CheckpointError> {
        let mut bytes = Vec::new();
        input.read_to_end(&mut bytes)?;
        let (mut rest, residual) = match bytes.strip_prefix(MAGIC.as_slice()) {
            Some(rest) => (rest, false),
            None => (bytes.strip_prefix(MAGIC_RESIDUAL.as_slice()).ok_or(CheckpointError::Format("bad magic"))?, true),
        };
        let u32_ = |rest: &mut &[u8]| -> Result<u32, CheckpointError> {
            let (head, tail) = rest.split_at_checked(4).ok_or(CheckpointError::Format("truncated"))?;
            *rest = tail;
            Ok(u32::from_le_bytes([head[0], head[1], head[2], head[3]]))
        };
        let len = u32_(&mut rest)? as usize;
        let (name, tail) = rest.split_at_checked(len).ok_or(CheckpointError::Format("truncated"))?;
        let variant = String::from_utf8(name.to_vec()).map_err(|_| CheckpointError::Format("bad variant name"))?;
        rest = tail;
        let inputs = u32_(&mut rest)? as usize;
        let hidden = u32_(&mut rest)? as usize;
        let count = inputs
            .checked_mul(hidden)
            .and_then(|n| n.checked_add(3 * hidden + 1))
            .ok_or(CheckpointError::Format("sizes overflow"))?;
        if rest.len() != count.checked_mul(4).ok_or(CheckpointError::Format("sizes overflow"))? {
            return Err(CheckpointError::Format("payload size does not match inputs and hidden"));
        }
        let floats: Vec<f32> = rest.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        if floats.iter().any(|v| !v.is_finite()) {
            return Err(CheckpointError::Format("a weight is not finite"));
        }
        let (w1, r) = floats.split_at(inputs * hidden);
        let (b1, r) = r.split_at(hidden);
        let (w2, r) = r.split_at(2 * hidden);
        Ok(Model(FloatNetwork {
            variant,
            inputs,
            hidden,
            w1: w1.to_vec(),
            b1: b1.to_vec(),
            w2: w2.to_vec(),
            b2: r[0],
            residual,
        }))
    }
}

/// Training settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Weight of the score in the target (the rest is the result).
    pub lambda: f32,
    /// Adam's learning rate.
    pub lr: f32,
    /// Samples per mini-batch.
    pub batch: usize,
    /// Seed of the per-epoch shuffles.
    pub seed: u64,
}

/// Adam's state.
pub struct Trainer {
    settings: Settings,
    m: Vec<f32>,
    v: Vec<f32>,
    grad: Vec<f32>,
    /// Per first-layer row: the step it was last updated at (lazy Adam).
    touched: Vec<bool>,
    rows: Vec<u32>,
    step: i32,
    rng: Rng,
}

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPS: f32 = 1e-8;

impl Trainer {
    /// A trainer for `model`.
    pub fn new(model: &Model, settings: Settings) -> Trainer {
        let n = model.w1.len() + model.b1.len() + model.w2.len() + 1;
        let rng = Rng::new(settings.seed);
        Trainer {
            settings,
            m: vec![0.0; n],
            v: vec![0.0; n],
            grad: vec![0.0; n],
            touched: vec![false; model.inputs],
            rows: Vec::new(),
            step: 0,
            rng,
        }
    }

    /// Changes the learning rate (e.g. a per-epoch decay).
    pub fn set_lr(&mut self, lr: f32) {
        self.settings.lr = lr;
    }

    /// One epoch over `samples` (shuffled in place); returns the mean
    /// training loss.
    pub fn epoch(&mut self, model: &mut Model, samples: &mut [Sample]) -> f64 {
        self.rng.shuffle(samples);
        let mut total = 0.0f64;
        for batch in samples.chunks(self.settings.batch.max(1)) {
            total += self.batch(model, batch);
        }
        total / samples.len().max(1) as f64
    }

    fn batch(&mut self, model: &mut Model, batch: &[Sample]) -> f64 {
        let h = model.hidden;
        let (nw1, nb1, nw2) = (model.w1.len(), model.b1.len(), model.w2.len());
        let mut a = vec![0.0f32; h];
        let mut b = vec![0.0f32; h];
        let mut da = vec![0.0f32; h];
        let mut db = vec![0.0f32; h];
        let mut loss = 0.0f64;
        let scale = 1.0 / batch.len() as f32;
        for s in batch {
            model.accumulate(&s.stm, &mut a);
            model.accumulate(&s.nstm, &mut b);
            let mut out = model.b2;
            for i in 0..h {
                out += model.w2[i] * a[i].clamp(0.0, 1.0) + model.w2[h + i] * b[i].clamp(0.0, 1.0);
            }
            let p = sigmoid(out + s.base / 400.0);
            let err = p - s.target(self.settings.lambda);
            loss += f64::from(err * err);
            let d = 2.0 * err * p * (1.0 - p) * scale;
            self.grad[nw1 + nb1 + nw2] += d;
            for i in 0..h {
                self.grad[nw1 + nb1 + i] += d * a[i].clamp(0.0, 1.0);
                self.grad[nw1 + nb1 + h + i] += d * b[i].clamp(0.0, 1.0);
                da[i] = if a[i] > 0.0 && a[i] < 1.0 { d * model.w2[i] } else { 0.0 };
                db[i] = if b[i] > 0.0 && b[i] < 1.0 { d * model.w2[h + i] } else { 0.0 };
                self.grad[nw1 + i] += da[i] + db[i];
            }
            for (features, delta) in [(&s.stm, &da), (&s.nstm, &db)] {
                for &f in features.iter() {
                    let f = f as usize;
                    if !self.touched[f] {
                        self.touched[f] = true;
                        self.rows.push(f as u32);
                    }
                    let g = &mut self.grad[f * h..(f + 1) * h];
                    for (gi, di) in g.iter_mut().zip(delta.iter()) {
                        *gi += di;
                    }
                }
            }
        }
        self.step += 1;
        let lr = self.settings.lr * (1.0 - BETA2.powi(self.step)).sqrt() / (1.0 - BETA1.powi(self.step));
        let rows = std::mem::take(&mut self.rows);
        for &r in &rows {
            let r = r as usize;
            self.touched[r] = false;
            for k in r * h..(r + 1) * h {
                model.w1[k] = (model.w1[k] - self.adam(k, lr)).clamp(-W1_CLIP, W1_CLIP);
            }
        }
        self.rows = rows;
        self.rows.clear();
        for i in 0..nb1 {
            model.b1[i] = (model.b1[i] - self.adam(nw1 + i, lr)).clamp(-W1_CLIP, W1_CLIP);
        }
        for i in 0..nw2 {
            model.w2[i] = (model.w2[i] - self.adam(nw1 + nb1 + i, lr)).clamp(-W2_CLIP, W2_CLIP);
        }
        model.b2 -= self.adam(nw1 + nb1 + nw2, lr);
        loss
    }

    /// Adam's step for parameter `k` (its gradient is reset).
    fn adam(&mut self, k: usize, lr: f32) -> f32 {
        let g = self.grad[k];
        self.grad[k] = 0.0;
        self.m[k] = BETA1 * self.m[k] + (1.0 - BETA1) * g;
        self.v[k] = BETA2 * self.v[k] + (1.0 - BETA2) * g * g;
        lr * self.m[k] / (self.v[k].sqrt() + EPS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Synthetic data: the score is a sum of per-feature values.
    fn samples(n: usize, seed: u64) -> Vec<Sample> {
        let mut rng = Rng::new(seed);
        let value = |f: u32| (f as f32 % 7.0 - 3.0) * 60.0;
        (0..n)
            .map(|_| {
                let stm: Vec<u32> = (0..6).map(|_| rng.below(32) as u32).collect();
                let nstm: Vec<u32> = (0..6).map(|_| 32 + rng.below(32) as u32).collect();
                let score =
                    stm.iter().map(|&f| value(f)).sum::<f32>() - nstm.iter().map(|&f| value(f - 32)).sum::<f32>();
                Sample { stm, nstm, score, result: if score > 0.0 { 1.0 } else { 0.0 }, base: 0.0 }
            })
            .collect()
    }

    #[test]
    fn training_lowers_the_validation_loss() {
        let mut model = Model::new("test", 64, 8, 1, false);
        let mut train = samples(2000, 2);
        let valid = samples(300, 3);
        let before = model.loss(&valid, 0.7);
        let mut trainer = Trainer::new(&model, Settings { lambda: 0.7, lr: 0.01, batch: 64, seed: 4 });
        for _ in 0..5 {
            trainer.epoch(&mut model, &mut train);
        }
        let after = model.loss(&valid, 0.7);
        assert!(after < before * 0.5, "validation loss {before} -> {after}");
    }

    #[test]
    fn checkpoint_round_trip_and_corruption() {
        for residual in [false, true] {
            let model = Model::new("chess", 10, 4, 7, residual);
            let mut bytes = Vec::new();
            model.write(&mut bytes).expect("write to a Vec");
            assert_eq!(Model::read(&mut bytes.as_slice()).expect("read back"), model);
        }
        let model = Model::new("chess", 10, 4, 7, false);
        let mut bytes = Vec::new();
        model.write(&mut bytes).expect("write to a Vec");
        assert!(Model::read(&mut &bytes[..bytes.len() - 1]).is_err());
        assert!(Model::read(&mut &b"MNNUEF01\xff\xff\xff\xff"[..]).is_err());
        assert!(Model::read(&mut &b"garbage"[..]).is_err());
    }
}

//! An efficiently updatable neural evaluation (NNUE) for Menagerie's
//! compiled games: one network per game (docs/nnue.md).
//!
//! - [`features`]: the sparse inputs (piece × square per perspective, plus
//!   reserve and gate inputs in gating games), [`feature_count`] and
//!   [`active_features`].
//! - [`FloatNetwork`]: the float reference (`inputs → hidden` per
//!   perspective, clipped ReLU, `2 * hidden → 1`), [`Network`]: its integer
//!   quantisation, with the file format ([`Network::to_bytes`],
//!   [`Network::from_bytes`]).
//! - [`simd`]: the accumulator kernels, AVX2 chosen at run time.
//!
//! ```
//! use menagerie_nnue::{FloatNetwork, Network, active_features, feature_count};
//! use menagerie_pieces::Color;
//! use menagerie_variants::{Chess, Position};
//! let float = FloatNetwork::random("chess", feature_count::<Chess>(), 32, 1);
//! let bytes = Network::from_float(&float).to_bytes();
//! let net = Network::from_bytes(&bytes).unwrap();
//! let pos = Position::<Chess>::start();
//! let (mut w, mut b) = (Vec::new(), Vec::new());
//! active_features(&pos, Color::White, &mut w);
//! active_features(&pos, Color::Black, &mut b);
//! assert_eq!(w.len(), 32);
//! let (q, f) = (net.evaluate(&w, &b), float.forward(&w, &b));
//! assert!((q as f32 - f).abs() < 20.0);
//! ```

pub mod accumulator;
pub mod features;
mod network;
pub mod registry;
pub mod simd;

pub use accumulator::AccumulatorStack;
pub use features::{active_features, feature_count, feature_count_of};
pub use network::{
    FLAG_RESIDUAL, FloatNetwork, MAGIC, MAX_HIDDEN, MAX_INPUTS, Network, NetworkError, SplitMix, VERSION, crelu,
    fnv1a64,
};

/// Quantisation of the input weights and accumulator biases (and the
/// activation's ceiling).
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 64;
/// Output scale: the network's output times `SCALE` is centipawns.
pub const SCALE: i32 = 400;

#[cfg(test)]
mod tests;

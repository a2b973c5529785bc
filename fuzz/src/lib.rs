//! Menagerie's fuzz harness, on stable Rust.
//!
//! Each target is a plain `fn(&[u8])` ([`fen`], [`moves`], [`epd`],
//! [`grpc`]) that checks its invariants by panicking, so it can be driven
//! by the `menagerie-fuzz` binary (corpus replay, then structure-aware
//! mutation, panics caught and saved) or wrapped in any other fuzzer
//! (`libfuzzer_sys::fuzz_target!(|d: &[u8]| menagerie_fuzz::fen(d));`).
//!
//! ```
//! menagerie_fuzz::fen(b"chess\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
//! menagerie_fuzz::moves(b"alpaca\n\naccept\nA@g\nA@b\nNf3");
//! menagerie_fuzz::epd(b"8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3");
//! ```

pub mod driver;
pub mod mutate;
pub mod rng;
pub mod targets;

pub use targets::{TARGETS, Target, target};

/// The `fen` target: FEN text for every variant (see [`targets::fen`]).
pub fn fen(data: &[u8]) {
    targets::fen::run(data);
}

/// The `moves` target: coordinate and SAN moves (see [`targets::moves`]).
pub fn moves(data: &[u8]) {
    targets::moves::run(data);
}

/// The `epd` target: EPD suite lines (see [`targets::epd`]).
pub fn epd(data: &[u8]) {
    targets::epd::run(data);
}

/// The `grpc` target: whole requests served in-process (see [`targets::grpc`]).
pub fn grpc(data: &[u8]) {
    targets::grpc::run(data);
}

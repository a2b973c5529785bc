//! Opening books: positions from EPD files or games from PGN files.

use crate::MatchVariant;
use menagerie_notation::fen;
use menagerie_notation::pgn::{AnyPgnGame, PgnErrorKind, PgnReader, ReadOptions};
use menagerie_variants::{AnyPosition, Move, VariantId};
use std::io::BufReader;
use std::path::Path;
use std::sync::Arc;
use thiserror::Error;

/// One opening: a start position and moves played from it.
#[derive(Clone, PartialEq, Debug)]
#[allow(clippy::large_enum_variant, reason = "a few openings per match, read once")]
pub enum Opening {
    /// In a compiled variant.
    Compiled {
        /// Where the game starts.
        start: AnyPosition,
        /// Book moves played before the engines take over.
        moves: Vec<Move>,
    },
    /// In a variant defined as data.
    Data {
        /// Where the game starts.
        start: menagerie_rules::Position,
        /// Book moves played before the engines take over.
        moves: Vec<menagerie_rules::Move>,
    },
}

impl Opening {
    /// The variant's start position, no moves.
    pub fn start_of(variant: &MatchVariant) -> Opening {
        match variant {
            MatchVariant::Compiled(v) => Opening::Compiled { start: AnyPosition::start(*v), moves: Vec::new() },
            MatchVariant::Data(def) => {
                Opening::Data { start: menagerie_rules::Position::start(def), moves: Vec::new() }
            }
        }
    }
}

/// Puts `openings` in a random order drawn from `seed` (the same seed,
/// the same order): cutechess's `order=random`, repeatable.
pub fn shuffle<T>(openings: &mut [T], seed: u64) {
    // SplitMix64 and a Fisher-Yates shuffle.
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..openings.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        openings.swap(i, j);
    }
}

/// An opening file that could not be used.
#[derive(Debug, Error)]
pub enum OpeningError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line or game is malformed or not of the match's variant.
    #[error("{path}: {reason}")]
    Bad {
        /// The file.
        path: String,
        /// What is wrong, naming the line or game.
        reason: String,
    },
    /// The file holds no opening.
    #[error("{0}: no openings")]
    Empty(String),
}

/// Reads openings for `variant`: PGN (`.pgn`: each game's start and at
/// most `plies` moves of its main line, in SAN or coordinates; the games
/// must be of the match's variant, and in a variant defined as data a game
/// without a `Variant` tag is taken to be) or EPD
/// (anything else: one position per line, four or six FEN fields,
/// `;`-separated opcodes of which only `variant` is read: lines of other
/// variants are skipped).
pub fn read(path: &Path, variant: &MatchVariant, plies: Option<usize>) -> Result<Vec<Opening>, OpeningError> {
    let name = path.display().to_string();
    let bad = |reason: String| OpeningError::Bad { path: name.clone(), reason };
    let file = std::fs::File::open(path).map_err(|source| OpeningError::Io { path: name.clone(), source })?;
    let pgn = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
    let mut out = Vec::new();
    if let (true, MatchVariant::Data(def)) = (pgn, variant) {
        let options = ReadOptions { coordinates: true };
        // A game without a `Variant` tag is of the match's variant.
        let lookup_def = Arc::clone(def);
        let lookup = move |tag: Option<&str>| match tag {
            Some(n) if !n.trim().eq_ignore_ascii_case(&lookup_def.name) => None,
            _ => Some(Arc::clone(&lookup_def)),
        };
        let mut reader = PgnReader::with_data(BufReader::new(file), options, lookup);
        while let Some(game) = reader.read_any_game() {
            let other = |number: usize, other: &str| format!("game {number} is {other}, the match plays {}", def.name);
            let game = match game {
                Ok(AnyPgnGame::Data(g)) => g,
                Ok(AnyPgnGame::Compiled(g)) => return Err(bad(other(out.len() + 1, g.variant.name()))),
                Err(e) => match &*e.kind {
                    PgnErrorKind::UnknownVariant { name, .. } => return Err(bad(other(e.game, name))),
                    _ => return Err(bad(e.to_string())),
                },
            };
            let take = plies.unwrap_or(usize::MAX).min(game.moves.len());
            out.push(Opening::Data { start: game.start, moves: game.moves[..take].iter().map(|m| m.mv).collect() });
        }
    } else if let (true, &MatchVariant::Compiled(variant)) = (pgn, variant) {
        let options = ReadOptions { coordinates: true };
        let mut reader = PgnReader::with_options(BufReader::new(file), options);
        while let Some(game) = reader.read_game() {
            let game = game.map_err(|e| bad(e.to_string()))?;
            if game.variant != variant {
                return Err(bad(format!(
                    "game {} is {}, the match plays {}",
                    out.len() + 1,
                    game.variant.name(),
                    variant.name()
                )));
            }
            let take = plies.unwrap_or(usize::MAX).min(game.moves.len());
            out.push(Opening::Compiled { start: game.start, moves: game.moves[..take].iter().map(|m| m.mv).collect() });
        }
    } else {
        let text = std::fs::read_to_string(path).map_err(|source| OpeningError::Io { path: name.clone(), source })?;
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let mut parts = t.split(';');
            let board = parts.next().unwrap_or("").trim();
            let mut other_variant = false;
            for op in parts {
                let op = op.trim();
                if let Some(v) = op.strip_prefix("variant ") {
                    let v = v.trim().trim_matches('"');
                    other_variant = match variant {
                        MatchVariant::Compiled(id) => VariantId::from_name(v) != Some(*id),
                        MatchVariant::Data(def) => !def.name.eq_ignore_ascii_case(v),
                    };
                }
            }
            if other_variant {
                continue;
            }
            // EPD has four FEN fields; opening files often carry opcodes
            // after them on the same field list (`... - hmvc 0; fmvn 1`).
            let fields: Vec<&str> = board.split_whitespace().collect();
            let fen_text = match fields.len() {
                4 => format!("{board} 0 1"),
                6 => board.to_string(),
                n if n > 4 => fields[..4].join(" ") + " 0 1",
                _ => return Err(bad(format!("line {}: not a FEN/EPD position", i + 1))),
            };
            let line_error = |e: &dyn std::fmt::Display| bad(format!("line {}: {e}", i + 1));
            out.push(match variant {
                MatchVariant::Compiled(id) => Opening::Compiled {
                    start: fen::parse(*id, &fen_text).map_err(|e| line_error(&e))?,
                    moves: Vec::new(),
                },
                MatchVariant::Data(def) => Opening::Data {
                    start: menagerie_rules::Position::from_fen(def, &fen_text).map_err(|e| line_error(&e))?,
                    moves: Vec::new(),
                },
            });
        }
    }
    if out.is_empty() {
        return Err(OpeningError::Empty(name));
    }
    Ok(out)
}

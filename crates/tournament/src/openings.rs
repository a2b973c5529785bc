//! Opening books: positions from EPD files or games from PGN files.

use crate::MatchVariant;
use menagerie_notation::fen;
use menagerie_notation::pgn::{PgnReader, ReadOptions};
use menagerie_variants::{AnyPosition, Move, VariantId};
use std::io::BufReader;
use std::path::Path;
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
/// most `plies` moves of its main line, in SAN or coordinates) or EPD
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
        let text = std::fs::read_to_string(path).map_err(|source| OpeningError::Io { path: name.clone(), source })?;
        let out = read_data_pgn(&text, def, plies).map_err(bad)?;
        if out.is_empty() {
            return Err(OpeningError::Empty(name));
        }
        return Ok(out);
    }
    if let (true, &MatchVariant::Compiled(variant)) = (pgn, variant) {
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

/// The openings of a PGN file in a variant defined as data: each game's
/// start (its `FEN` tag, or the variant's start) and at most `plies` moves
/// of its main line, in SAN or coordinates ([`menagerie_rules::Position::parse_any`]).
/// Comments, variations, NAGs and move numbers are skipped; a `Variant`
/// tag must name the match's variant.
fn read_data_pgn(
    text: &str,
    def: &std::sync::Arc<menagerie_rules::VariantDef>,
    plies: Option<usize>,
) -> Result<Vec<Opening>, String> {
    let mut out = Vec::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut movetext = String::new();
    let mut in_movetext = false;
    let mut finish = |tags: &mut Vec<(String, String)>, movetext: &mut String| -> Result<(), String> {
        if tags.is_empty() && movetext.trim().is_empty() {
            return Ok(());
        }
        let number = out.len() + 1;
        let tag = |n: &str| tags.iter().find(|(k, _)| k.eq_ignore_ascii_case(n)).map(|(_, v)| v.as_str());
        if let Some(v) = tag("Variant").filter(|v| !v.eq_ignore_ascii_case(&def.name)) {
            return Err(format!("game {number} is {v}, the match plays {}", def.name));
        }
        let start = match tag("FEN") {
            Some(fen) => menagerie_rules::Position::from_fen(def, fen).map_err(|e| format!("game {number}: {e}"))?,
            None => menagerie_rules::Position::start(def),
        };
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for token in movetext_tokens(movetext) {
            if moves.len() >= plies.unwrap_or(usize::MAX) {
                break;
            }
            let m = pos.parse_any(&token).map_err(|e| format!("game {number}: {e} (in {})", pos.fen()))?;
            pos = pos.play(m);
            moves.push(m);
        }
        out.push(Opening::Data { start, moves });
        tags.clear();
        movetext.clear();
        Ok(())
    };
    for line in text.lines() {
        let t = line.trim();
        if let Some(inner) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            if in_movetext {
                finish(&mut tags, &mut movetext)?;
                in_movetext = false;
            }
            if let Some((k, v)) = inner.split_once(char::is_whitespace) {
                tags.push((k.to_string(), v.trim().trim_matches('"').to_string()));
            }
        } else if !t.is_empty() {
            in_movetext = true;
            movetext.push_str(t);
            movetext.push('\n');
        }
    }
    finish(&mut tags, &mut movetext)?;
    Ok(out)
}

/// The moves of PGN movetext: without comments (`{...}`, `;` to the end of
/// the line), variations, NAGs, move numbers and the result.
fn movetext_tokens(text: &str) -> Vec<String> {
    let mut plain = String::new();
    let (mut brace, mut paren, mut line_comment) = (false, 0usize, false);
    for c in text.chars() {
        match c {
            '\n' if line_comment => line_comment = false,
            _ if line_comment => {}
            '}' if brace => brace = false,
            _ if brace => {}
            '{' => brace = true,
            ';' => line_comment = true,
            '(' => paren += 1,
            ')' => paren = paren.saturating_sub(1),
            _ if paren > 0 => {}
            c => plain.push(c),
        }
        if matches!(c, '{' | '}' | '(' | ')') {
            plain.push(' ');
        }
    }
    plain
        .split_whitespace()
        .filter(|w| !["1-0", "0-1", "1/2-1/2", "*"].contains(w) && !w.starts_with('$'))
        // `12.`, `12...` and `12.e4`: the number goes.
        .map(|w| w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

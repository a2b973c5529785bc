//! EPD perft suites: one position per line with expected node counts,
//! `<fen> ;D1 20 ;D2 400 ...`.
//!
//! Blank lines and lines starting with `#` are skipped. A line may name its
//! variant with an opcode, `;variant camel-rhino`; otherwise the suite's
//! default variant applies.
//!
//! ```
//! use menagerie_notation::epd;
//! let suite = epd::parse("# start\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400\n")?;
//! assert_eq!(suite[0].depths, vec![(1, 20), (2, 400)]);
//! # Ok::<(), menagerie_notation::epd::EpdError>(())
//! ```

use core::fmt;
use menagerie_variants::VariantId;
use thiserror::Error;

/// One line of a suite, its variant named by a `V` (a compiled
/// [`VariantId`] unless the reader's lookup gives another handle).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct EpdLine<V = VariantId> {
    /// 1-based line number in the file.
    pub line: usize,
    /// The variant named on the line, if any.
    pub variant: Option<V>,
    /// The position.
    pub fen: String,
    /// (depth, expected leaf count), in the order given.
    pub depths: Vec<(u32, u64)>,
}

/// A malformed suite line.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
#[error("line {line}: {reason}")]
pub struct EpdError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

/// Parses one line (`None` for blank and comment lines).
pub fn parse_line(text: &str, line: usize) -> Result<Option<EpdLine>, EpdError> {
    parse_line_with(text, line, builtin_variant)
}

/// Parses one line as [`parse_line`] does, finding the variant of a
/// `;variant` opcode with `lookup` (its error is the line's reason).
pub fn parse_line_with<V, E: fmt::Display>(
    text: &str,
    line: usize,
    lookup: impl Fn(&str) -> Result<V, E>,
) -> Result<Option<EpdLine<V>>, EpdError> {
    let t = text.trim();
    if t.is_empty() || t.starts_with('#') {
        return Ok(None);
    }
    let err = |reason: String| EpdError { line, reason };
    let mut parts = t.split(';');
    let fen = parts.next().unwrap_or("").trim().to_string();
    if fen.is_empty() {
        return Err(err("no FEN before the first ';'".into()));
    }
    let mut depths = Vec::new();
    let mut variant = None;
    for op in parts {
        let op = op.trim();
        if op.is_empty() {
            continue;
        }
        let (name, value) =
            op.split_once(char::is_whitespace).ok_or_else(|| err(format!("opcode '{op}' has no value")))?;
        let value = value.trim();
        if let Some(d) = name.strip_prefix('D').or_else(|| name.strip_prefix('d')) {
            let depth: u32 = d.parse().map_err(|_| err(format!("'{name}' is not a depth opcode like D3")))?;
            let count: u64 = value.parse().map_err(|_| err(format!("'{value}' is not a node count")))?;
            depths.push((depth, count));
        } else if name.eq_ignore_ascii_case("variant") {
            variant = Some(lookup(value).map_err(|e| err(e.to_string()))?);
        } else {
            return Err(err(format!("unknown opcode '{name}' (expected D<depth> or variant)")));
        }
    }
    Ok(Some(EpdLine { line, variant, fen, depths }))
}

/// Parses a whole suite.
pub fn parse(text: &str) -> Result<Vec<EpdLine>, EpdError> {
    parse_with(text, builtin_variant)
}

/// Parses a whole suite as [`parse`] does, finding variants with `lookup`
/// (see [`parse_line_with`]).
pub fn parse_with<V, E: fmt::Display>(
    text: &str,
    lookup: impl Fn(&str) -> Result<V, E>,
) -> Result<Vec<EpdLine<V>>, EpdError> {
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        if let Some(e) = parse_line_with(l, i + 1, &lookup)? {
            out.push(e);
        }
    }
    Ok(out)
}

/// A built-in variant by name.
fn builtin_variant(name: &str) -> Result<VariantId, String> {
    VariantId::from_name(name).ok_or_else(|| format!("unknown variant '{name}' (known: {})", VariantId::names()))
}

/// Formats a line back (`fen ;D1 n ;D2 m`).
pub fn format_line(e: &EpdLine) -> String {
    let mut s = e.fen.clone();
    if let Some(v) = e.variant {
        s.push_str(&format!(" ;variant {v}"));
    }
    for (d, n) in &e.depths {
        s.push_str(&format!(" ;D{d} {n}"));
    }
    s
}

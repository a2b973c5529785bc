//! What the rules test files share: built-in positions, outcomes and the
//! perft suites' EPD lines.

#![allow(dead_code)]

use menagerie_rules::{Definitions, EndReason, GameResult, Outcome, Position};

/// The position `fen` of the built-in variant `variant`.
pub fn pos(variant: &str, fen: &str) -> Position {
    let defs = Definitions::builtin();
    let def = defs.get(variant).unwrap_or_else(|| panic!("built-in {variant}"));
    Position::from_fen(def, fen).unwrap_or_else(|e| panic!("{variant} {fen}: {e}"))
}

/// The outcome of a finished game, as [`Position::outcome`] gives it:
/// `white_ended` when White's move (or White's being to move) ended it.
pub fn ended(reason: EndReason, result: GameResult, white_ended: bool) -> Option<Outcome> {
    Some(Outcome { reason, result, white_ended })
}

/// One line of a perft suite: `<fen> ;variant NAME ;D1 20 ;D2 400 ...`.
pub struct EpdLine<'a> {
    /// The line's number in its file (from 1).
    pub number: usize,
    pub fen: &'a str,
    /// The `variant` operation's value (empty when there is none).
    pub variant: &'a str,
    /// The expected counts, by depth.
    pub depths: Vec<(u32, u64)>,
}

/// The lines of a perft suite, blank lines and `#` comments skipped.
pub fn epd_lines(epd: &str) -> Vec<EpdLine<'_>> {
    let mut out = Vec::new();
    for (i, line) in epd.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(';').map(str::trim);
        let fen = parts.next().expect("a FEN");
        let mut variant = "";
        let mut depths = Vec::new();
        for op in parts {
            let (name, value) = op.split_once(' ').expect("opcode and value");
            if name == "variant" {
                variant = value.trim();
            } else {
                let depth = name.strip_prefix('D').and_then(|d| d.parse().ok());
                let depth = depth.unwrap_or_else(|| panic!("line {}: unknown operation {name}", i + 1));
                depths.push((depth, value.trim().parse().expect("count")));
            }
        }
        out.push(EpdLine { number: i + 1, fen, variant, depths });
    }
    out
}

/// The text of the file the environment variable `var` names, or `None`
/// (saying so on stderr) when it is unset: for the tests that check
/// larger local files when given them.
pub fn file_named_by(var: &str) -> Option<String> {
    let Some(path) = std::env::var_os(var) else {
        eprintln!("{var} not set: skipped");
        return None;
    };
    Some(std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{var} names {path:?}, unreadable: {e}")))
}

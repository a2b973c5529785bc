//! Helpers shared by the rules tests: positions from FEN text, legal moves
//! and results as coordinate strings and SAN.
#![allow(dead_code)]

use menagerie_notation::pgn::{PgnMove, Variation};
use menagerie_notation::{fen, san, uci};
use menagerie_testkit::Rng;
use menagerie_variants::{AnyPosition, VariantId};
use std::collections::BTreeSet;

/// The position `text` of `v`; panics with the FEN error if it does not parse.
#[track_caller]
pub fn pos(v: VariantId, text: &str) -> AnyPosition {
    fen::parse(v, text).unwrap_or_else(|e| panic!("'{text}' does not parse: {e}"))
}

/// The legal moves of `text` as coordinate strings; also checks that no two
/// legal moves share a coordinate string (so there is never a kidnapping and
/// a non-kidnapping version of one move, nor two gating choices alike).
#[track_caller]
pub fn moves(v: VariantId, text: &str) -> BTreeSet<String> {
    let p = pos(v, text);
    let list: Vec<String> = p.legal_moves().iter().map(|&m| uci::format(v, m)).collect();
    let set: BTreeSet<String> = list.iter().cloned().collect();
    assert_eq!(set.len(), list.len(), "duplicate coordinate moves in {text}: {list:?}");
    set
}

/// The strings of `list` as a set.
pub fn set(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// `base` plus `extra` minus `remove` (each of which must be in `base`).
#[track_caller]
pub fn edit(base: &BTreeSet<String>, extra: &[&str], remove: &[&str]) -> BTreeSet<String> {
    let mut s = base.clone();
    s.extend(extra.iter().map(|m| m.to_string()));
    for m in remove {
        assert!(s.remove(*m), "{m} not in the base set");
    }
    s
}

/// FEN after playing the coordinate move `mv` (which must be legal) in `text`.
#[track_caller]
pub fn after(v: VariantId, text: &str, mv: &str) -> String {
    let p = pos(v, text);
    let m = uci::parse(&p, mv).unwrap_or_else(|e| panic!("{mv} in {text}: {e}"));
    fen::format(&p.play(m).unwrap_or_else(|e| panic!("{mv} in {text}: {e:?}")))
}

/// Checks each `(text, mv, fen)` of `cases`: playing the coordinate move
/// `mv` (which must be legal) in `text` gives the FEN `fen`.
#[track_caller]
pub fn assert_afters(v: VariantId, cases: &[(&str, &str, &str)]) {
    for &(text, mv, fen) in cases {
        assert_eq!(after(v, text, mv), fen, "{mv} in {text}");
    }
}

/// SAN of the coordinate move `mv` in `text`.
#[track_caller]
pub fn san_of(v: VariantId, text: &str, mv: &str) -> String {
    let p = pos(v, text);
    let m = uci::parse(&p, mv).unwrap_or_else(|e| panic!("{mv} in {text}: {e}"));
    san::format(&p, m)
}

/// A line of up to `plies` moves from `p`, each chosen by `pick` (`None`
/// ends the line) and played by `play`, with random NAGs, comments and,
/// while `depth` allows, nested variations.
pub fn random_line<P: Clone, M: Copy>(
    mut p: P,
    plies: usize,
    depth: u32,
    rng: &mut Rng,
    pick: &impl Fn(&P, &mut Rng) -> Option<M>,
    play: &impl Fn(&P, M) -> P,
) -> Vec<PgnMove<M>> {
    let mut out = Vec::new();
    for i in 0..plies {
        let Some(m) = pick(&p, rng) else { break };
        let mut pm = PgnMove::new(m);
        if rng.below(8) == 0 {
            pm.nags.push(rng.below(20) as u8);
        }
        if rng.below(10) == 0 {
            pm.comments.push(format!("comment {i}: a(b) and ; semicolon"));
        }
        if depth > 0 && rng.below(6) == 0 {
            let alt = random_line(p.clone(), 1 + rng.below(5), depth - 1, rng, pick, play);
            if !alt.is_empty() {
                let comments = if rng.below(3) == 0 { vec!["alternative".to_string()] } else { Vec::new() };
                pm.variations.push(Variation { comments, moves: alt });
            }
        }
        p = play(&p, m);
        out.push(pm);
    }
    out
}

//! Helpers shared by the rules tests: positions from FEN text, legal moves
//! and results as coordinate strings and SAN.
#![allow(dead_code)]

use menagerie_notation::{fen, san, uci};
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

/// SAN of the coordinate move `mv` in `text`.
#[track_caller]
pub fn san_of(v: VariantId, text: &str, mv: &str) -> String {
    let p = pos(v, text);
    let m = uci::parse(&p, mv).unwrap_or_else(|e| panic!("{mv} in {text}: {e}"));
    san::format(&p, m)
}

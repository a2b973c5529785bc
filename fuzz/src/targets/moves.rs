//! `moves`: coordinate and SAN move text in a position.
//!
//! Input: `variant\nFEN\nmove\nmove...` (an empty or unreadable FEN means
//! the variant's start). Each move line goes through
//! [`parse_move`](menagerie_notation::parse_move), `uci::parse` and
//! `san::parse`; the first accepted reading is played and the next line is
//! read in the new position. Invariants: no panic; every accepted move is
//! in `legal_moves`; its SAN and coordinate forms parse back to the same
//! move; a coordinate reading and `parse_move` agree; playing it keeps the
//! hash equal to the from-scratch hash and the FEN round-tripping. At the
//! end two legal moves of the final position (all of them for one input in
//! 16) are round-tripped the same way.

use super::{check_position, variant_of};
use crate::rng::fnv1a;
use menagerie_notation::{MoveError, fen, parse_move, san, uci};
use menagerie_variants::{AnyPosition, Move};

/// Most move lines read from one input.
const MAX_MOVES: usize = 64;

/// One input in this many round-trips every legal move of its final position.
const SWEEP: u64 = 16;

/// Runs one input; `true` if some move was accepted.
pub fn run(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let variant = variant_of(lines.next().unwrap_or(""));
    let mut pos = match fen::parse_or_start(variant, lines.next().unwrap_or("")) {
        Ok(p) => p,
        Err(_) => AnyPosition::start(variant),
    };
    let mut accepted = false;
    for line in lines.take(MAX_MOVES) {
        if let Some(m) = check_text(&pos, line) {
            accepted = true;
            pos = pos.play_unchecked(m);
        }
    }
    // Round-tripping every legal move costs O(moves^2) move generations
    // (SAN parsing formats the candidates), so one input in SWEEP does all
    // of them and the others two chosen by the input's hash.
    let h = fnv1a(data);
    if h % SWEEP == 0 {
        check_all_moves(&pos);
    } else {
        check_position(&pos);
        let legal = pos.legal_moves();
        for k in [h >> 8, h >> 40] {
            if let Some(&m) = legal.get((k % 1021) as usize % legal.len().max(1)) {
                check_move(&pos, m, &legal);
            }
        }
    }
    accepted
}

/// Reads `text` every way; returns the move `parse_move` accepted, if any.
pub fn check_text(pos: &AnyPosition, text: &str) -> Option<Move> {
    let legal = pos.legal_moves();
    let any = parse_move(pos, text);
    let coord = uci::parse(pos, text);
    let by_san = san::parse(pos, text);
    let _ = uci::looks_like_coordinate(text);
    let mut checked: Vec<Move> = Vec::with_capacity(3);
    for (how, r) in [("parse_move", &any), ("uci::parse", &coord), ("san::parse", &by_san)] {
        match r {
            Ok(m) => {
                assert!(legal.contains(m), "{how}({text:?}) accepted {m:?}, not a legal move in {}", fen::format(pos));
                // The readings usually agree; round-trip each distinct move once.
                if !checked.contains(m) {
                    checked.push(*m);
                    check_move(pos, *m, &legal);
                }
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
    if let Ok(m) = coord {
        assert!(
            any == Ok(m) || matches!(any, Err(MoveError::OffBoard { .. })),
            "uci::parse({text:?}) = {m:?} but parse_move gives {any:?} in {}",
            fen::format(pos)
        );
    }
    any.ok()
}

/// Round-trips one legal move through SAN and coordinates and plays it.
pub fn check_move(pos: &AnyPosition, m: Move, legal: &[Move]) {
    let v = pos.variant();
    let at = || fen::format(pos);
    let s = san::format_with(pos, m, legal);
    assert_eq!(san::format(pos, m), s, "{v}: san::format and format_with differ in {}", at());
    assert_eq!(san::parse(pos, &s), Ok(m), "{v}: SAN {s:?} does not parse back to {m:?} in {}", at());
    assert_eq!(parse_move(pos, &s), Ok(m), "{v}: parse_move(SAN {s:?}) is not {m:?} in {}", at());
    let u = uci::format(v, m);
    assert_eq!(uci::parse(pos, &u), Ok(m), "{v}: coordinate {u:?} does not parse back to {m:?} in {}", at());
    assert_eq!(parse_move(pos, &u), Ok(m), "{v}: parse_move({u:?}) is not {m:?} in {}", at());
    let after = match pos.play(m) {
        Ok(a) => a,
        Err(e) => panic!("{v}: play({u:?}) refuses a legal move ({e:?}) in {}", at()),
    };
    assert!(after == pos.play_unchecked(m), "{v}: play and play_unchecked differ for {u:?} in {}", at());
    assert_eq!(after.hash(), after.compute_hash(), "{v}: incremental hash wrong after {u:?} from {}", at());
}

/// Every legal move of `pos` round-trips; the position itself round-trips.
pub fn check_all_moves(pos: &AnyPosition) {
    check_position(pos);
    let legal = pos.legal_moves();
    for &m in legal.iter() {
        check_move(pos, m, &legal);
    }
}

/// Seeds: each variant's start with typical and tricky moves, and the suite positions.
pub fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let games: &[(&str, &str, &str)] = &[
        ("chess-open", "chess", "e4\ne5\nNf3\nNc6\nBb5\na6\nBxc6\ndxc6\nO-O"),
        ("chess-coord", "chess", "e2e4\ne7e5\ng1f3\nb8c6\nf1c4\ng8f6\ne1g1"),
        ("chess-ep-promo", "chess", "e4\nd5\ne5\nf5\nexf6\ng6\nf7+\nKd7\nfxg8=Q\nQe8\ng8h8"),
        ("chess-annotations", "chess", "e4!\ne5?\nNf3!!\n0-0\nNc6+\nBb5#\nRaxd1"),
        ("alpaca-accept", "alpaca", "accept\nA@g\nA@b\nNf3\nNc6\ng2g3\nNf6\nBg2\ne6\nO-O"),
        ("alpaca-decline", "alpaca", "decline\naccept\nA@g\nA@g\ne4"),
        ("alpaca-decline2", "alpaca", "decline\ndecline\ne4\ne5"),
        ("alpaca2", "alpaca2", "accept\nA@bg\nA@cf\nNf3\nNc6\nNc3\nNf6"),
        ("alpaca-samefile", "alpaca-samefile", "accept\nA@c\nA@c\nd4\nd5\nBf4"),
        ("alseid", "alseid", "accept\nS@d\nS@d\ne4\ne5\nQh5\nSd6"),
        ("alseid-weak", "alseid-weak", "accept\nS@f\nS@f\nd4"),
        ("camel-rhino", "camel-rhino", "e3e4\ne8e7\nh2g4t\nh2g4\ne2f2\nQe2<>Kf2\nNxg4(=h3)"),
        ("camel-rhino-plain", "camel-rhino-plain", "b2c4\nb9c7\nj2i5"),
    ];
    for (name, v, moves) in games {
        out.push((name.to_string(), format!("{v}\n\n{moves}").into_bytes()));
    }
    let extra = [
        ("kidnap", "alseid", "4k3/8/8/3n4/8/3S4/8/4K3 w - - 0 1", "d3d4\nSd3-d4(Nd5-d3)\nd3d6"),
        ("promo-s", "alseid", "4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8s\na8=S\na7a8q"),
        ("wazir-promo", "camel-rhino", "4k5/4W5/10/10/10/10/10/10/10/4K5 w - - 0 1", "e9e10w\ne9e10q\ne9e10"),
        ("off-board", "chess", "", "e2e9\nzz9\na0a1\ni1i2\ne2e4e6\nA@z\n@\n"),
    ];
    for (name, v, fen, moves) in extra {
        out.push((name.to_string(), format!("{v}\n{fen}\n{moves}").into_bytes()));
    }
    for (i, (v, fen)) in super::epd::suite_positions().into_iter().enumerate() {
        let pos = match fen::parse_or_start(v, &fen) {
            Ok(p) => p,
            Err(_) => continue,
        };
        let legal = pos.legal_moves();
        let moves: Vec<String> = legal
            .iter()
            .take(3)
            .map(|&m| san::format_with(&pos, m, &legal))
            .chain(legal.iter().skip(3).take(2).map(|&m| uci::format(v, m)))
            .collect();
        out.push((format!("suite-{i:02}-{v}"), format!("{v}\n{fen}\n{}", moves.join("\n")).into_bytes()));
    }
    out.retain(|(_, d)| !d.is_empty());
    out
}

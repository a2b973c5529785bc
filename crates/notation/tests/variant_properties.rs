//! Property tests over random playouts in every variant: playing a move
//! leaves the old position untouched (copy-make is our make/unmake), the
//! incremental Zobrist key equals the key computed from scratch, a move's
//! check is told right without playing it ([`AnyPosition::gives_check`]),
//! FEN, SAN and coordinate notation round-trip, and in Alseid Chess no pawn
//! is ever kidnapped onto its first or last rank.
#![allow(clippy::unwrap_used)]

use menagerie_geometry::Square;
use menagerie_notation::{fen, san, uci};
use menagerie_pieces::PieceKind;
use menagerie_testkit::Rng;
use menagerie_variants::{AnyPosition, MoveKind, VariantId};
use proptest::prelude::*;

fn check_position(p: &AnyPosition) {
    let v = p.variant();
    assert_eq!(p.hash(), p.compute_hash(), "incremental hash: {}", fen::format(p));
    let text = fen::format(p);
    let back = fen::parse(v, &text).unwrap_or_else(|e| panic!("{v} {text}: {e}"));
    assert_eq!(fen::format(&back), text);
    assert_eq!(back.hash(), p.hash(), "hash after FEN round trip: {text}");
    let legal = p.legal_moves();
    assert_eq!(p.count_legal(), legal.len() as u64);
    let before = *p;
    for &m in legal.iter() {
        let child = p.play_unchecked(m);
        assert_eq!(*p, before, "play must not change the position");
        assert_eq!(child.hash(), child.compute_hash(), "{v} {text} after {}", uci::format(v, m));
        assert_eq!(p.gives_check(m), child.is_check(), "{v} {text}: does {} give check?", uci::format(v, m));
        assert_eq!(uci::parse(p, &uci::format(v, m)).unwrap(), m);
        let s = san::format_with(p, m, &legal);
        assert_eq!(san::parse(p, &s).unwrap_or_else(|e| panic!("{v} {text}: SAN {s}: {e}")), m);
    }
}

/// RULES.md §3.2: a kidnapped pawn never lands on its first or last rank.
fn check_no_pawn_on_back_ranks(p: &AnyPosition) {
    let (files, ranks) = p.variant().size();
    for f in 0..files {
        for r in [0, ranks - 1] {
            let sq = Square(r * files + f);
            assert!(p.piece_at(sq).is_none_or(|pc| pc.kind != PieceKind::Pawn), "pawn on {sq:?} in {}", fen::format(p));
        }
    }
}

fn playout(v: VariantId, choices: &[usize], kidnap_bias: bool) {
    let mut p = AnyPosition::start(v);
    for &c in choices {
        check_position(&p);
        if matches!(v, VariantId::Alseid | VariantId::AlseidWeak) {
            check_no_pawn_on_back_ranks(&p);
        }
        let legal = p.legal_moves();
        if legal.is_empty() {
            break;
        }
        // Prefer the special powers so conversions, kidnaps and swaps are common.
        let special: Vec<_> = legal
            .iter()
            .copied()
            .filter(|m| matches!(m.kind, MoveKind::Kidnap | MoveKind::Takeover | MoveKind::Jump | MoveKind::Swap))
            .collect();
        let m = if kidnap_bias && !special.is_empty() && c % 3 == 0 {
            special[c % special.len()]
        } else {
            legal[c % legal.len()]
        };
        p = p.play_unchecked(m);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn alpaca_playouts(choices in prop::collection::vec(0usize..1000, 70), v in 0usize..3) {
        let v = [VariantId::Alpaca, VariantId::Alpaca2, VariantId::AlpacaSameFile][v];
        playout(v, &choices, false);
    }

    #[test]
    fn alseid_playouts(choices in prop::collection::vec(0usize..1000, 70), weak: bool) {
        let v = if weak { VariantId::AlseidWeak } else { VariantId::Alseid };
        playout(v, &choices, true);
    }

    #[test]
    fn camel_rhino_playouts(choices in prop::collection::vec(0usize..1000, 50)) {
        playout(VariantId::CamelRhino, &choices, true);
    }
}

/// Many Alseid playouts that kidnap whenever they can: no pawn ever reaches
/// its first or last rank by being kidnapped.
#[test]
fn kidnapped_pawns_never_reach_their_back_ranks() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for v in [VariantId::Alseid, VariantId::AlseidWeak] {
        for _ in 0..60 {
            let mut p = AnyPosition::start(v);
            for _ in 0..120 {
                let legal = p.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let kidnaps: Vec<_> = legal.iter().copied().filter(|m| m.kind == MoveKind::Kidnap).collect();
                let pool = if kidnaps.is_empty() { legal.to_vec() } else { kidnaps };
                let m = pool[rng.below(pool.len())];
                // A promotion moves the pawn by its own move; only kidnaps matter here.
                p = p.play_unchecked(m);
                if m.kind == MoveKind::Kidnap {
                    check_no_pawn_on_back_ranks(&p);
                }
            }
        }
    }
}

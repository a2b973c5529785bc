//! RULES.md §2 (Pioneer gating and Alpaca Chess), one named test per rule.
//!
//! Every expectation below was derived by hand from RULES.md (the move lists
//! are exact sets of coordinate moves; FENs are exact strings), not read off
//! the engine.

use menagerie_notation::fen::{self, FenError, FenField};
use menagerie_notation::{MoveError, san, uci};
use menagerie_pieces::Color;
use menagerie_variants::{AnyPosition, IllegalMove, Move, Outcome, PositionError, ReserveEntry, VariantId, WinReason};
use std::collections::BTreeSet;

mod common;
use common::{after, assert_afters, moves, pos, san_of, set};

const ALPACA: VariantId = VariantId::Alpaca;
const ALPACA2: VariantId = VariantId::Alpaca2;
const SAMEFILE: VariantId = VariantId::AlpacaSameFile;

const BOARD: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

fn start_fen(bracket: &str, side: &str) -> String {
    format!("{BOARD}[{bracket}] {side} KQkq - 0 1")
}

fn orthodox_first_moves() -> BTreeSet<String> {
    let mut s = BTreeSet::new();
    for f in ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] {
        s.insert(format!("{f}2{f}3"));
        s.insert(format!("{f}2{f}4"));
    }
    for m in ["b1a3", "b1c3", "g1f3", "g1h3"] {
        s.insert(m.to_string());
    }
    s
}

fn one_file_placements() -> BTreeSet<String> {
    ('a'..='h').map(|f| format!("A@{f}")).collect()
}

/// Two distinct files in alphabetical order, without {a,e} and {e,h}.
fn two_file_placements() -> BTreeSet<String> {
    let mut s = BTreeSet::new();
    for a in 'a'..='h' {
        for b in 'a'..='h' {
            if a < b && !(a == 'a' && b == 'e') && !(a == 'e' && b == 'h') {
                s.insert(format!("A@{a}{b}"));
            }
        }
    }
    s
}

// ---------------------------------------------------------------- §2.1 the Alpaca

/// §2.1: steps one square and leaps two squares orthogonally; off-board
/// targets do not exist.
#[test]
fn alpaca_steps_and_leaps_orthogonally() {
    // Alpaca b2: steps b3 b1 a2 c2, leaps b4 d2 (b0 and "z2" are off the board).
    let text = "7k/8/8/8/8/8/1A6/7K[] w - - 0 1";
    let expected = set(&["b2b3", "b2b1", "b2a2", "b2c2", "b2b4", "b2d2", "h1g1", "h1g2", "h1h2"]);
    assert_eq!(moves(ALPACA, text), expected);
    // Same piece in every Alpaca variant.
    assert_eq!(moves(ALPACA2, text), expected);
    assert_eq!(moves(SAMEFILE, text), expected);
}

/// §2.1: the leap jumps over anything (own or enemy) to an EMPTY square only;
/// captures happen only on the first square.
#[test]
fn alpaca_leap_jumps_anything_and_never_captures_on_second_square() {
    // Alpaca d4. North: d5 black knight (step captures), d6 black pawn (no leap).
    // South: d3 own pawn (no step), d2 empty (leap over own pawn).
    // West: c4 black pawn (step captures), b4 empty (leap over enemy).
    // East: e4 empty (step), f4 black rook (no leap capture).
    let text = "7k/8/3p4/3n4/2pA1r2/3P4/8/K7[] w - - 0 1";
    let expected = set(&[
        "a1a2", "a1b1", "a1b2", // king
        "d4d5", "d4c4", "d4e4", "d4b4", "d4d2", // alpaca
        "d3c4", // pawn takes c4
    ]);
    assert_eq!(moves(ALPACA, text), expected);
    // The capture on the first square really removes the knight.
    assert_eq!(after(ALPACA, text, "d4d5"), "7k/8/3p4/3A4/2p2r2/3P4/8/K7[] b - - 0 1");
    // The leap over the own pawn is a quiet move.
    assert_eq!(after(ALPACA, text, "d4d2"), "7k/8/3p4/3n4/2p2r2/3P4/3A4/K7[] b - - 1 1");
}

/// §2.1 / §0: the Alpaca attacks only its four orthogonal neighbours; a king
/// may stand two squares away (its leap target) or diagonally next to it.
#[test]
fn alpaca_attacks_only_orthogonal_neighbours() {
    // Black Alpaca d5, White king d3 (two squares away, not in check).
    let text = "7k/8/8/3a4/8/3K4/8/8[] w - - 0 1";
    assert!(!pos(ALPACA, text).is_check());
    // d4 is the only attacked neighbour; c4 and e4 are diagonal to d5.
    assert_eq!(moves(ALPACA, text), set(&["d3c2", "d3d2", "d3e2", "d3c3", "d3e3", "d3c4", "d3e4"]));
    // An orthogonally adjacent Alpaca does give check.
    assert!(pos(ALPACA, "7k/8/8/8/3a4/3K4/8/8[] w - - 0 1").is_check());
    // A diagonally adjacent one does not.
    assert!(!pos(ALPACA, "7k/8/8/8/4a3/3K4/8/8[] w - - 0 1").is_check());
}

/// §2.1 / §0: the Alpaca's leap square is not attacked, so it does not stop
/// castling across it; its step squares are.
#[test]
fn alpaca_leap_square_does_not_stop_castling() {
    // Black Alpaca f3: attacks f2, f4, e3, g3; leaps to f1 but does not attack it.
    let text = "4k3/8/8/8/8/5a2/8/4K2R[] w K - 0 1";
    let expected = set(&[
        "e1d1", "e1d2", "e1e2", "e1f1", "e1g1", // king, castling included; not f2
        "h1h2", "h1h3", "h1h4", "h1h5", "h1h6", "h1h7", "h1h8", "h1g1", "h1f1", // rook
    ]);
    assert_eq!(moves(ALPACA, text), expected);
}

/// §2.1: pawns promote to Q, R, B or N only, never to an Alpaca.
#[test]
fn alpaca_promotion_excludes_alpaca() {
    let text = "k7/4P3/8/8/8/8/8/7K[] w - - 0 1";
    let expected = set(&["e7e8q", "e7e8r", "e7e8b", "e7e8n", "h1g1", "h1g2", "h1h2"]);
    for v in [ALPACA, ALPACA2, SAMEFILE] {
        assert_eq!(moves(v, text), expected, "{v:?}");
    }
}

// ---------------------------------------------------------------- §2.2 the prelude

/// §2.2.1: White decides first: only `accept` and `decline`.
#[test]
fn prelude_white_decides_first() {
    for (v, bracket) in [(ALPACA, "Aa?"), (ALPACA2, "AAaa?"), (SAMEFILE, "Aa?")] {
        let text = start_fen(bracket, "w");
        assert_eq!(fen::format(&AnyPosition::start(v)), text, "{v:?} start position");
        assert_eq!(moves(v, &text), set(&["accept", "decline"]), "{v:?}");
        assert_eq!(pos(v, &text).outcome(), None);
    }
}

/// §2.2.3: after White accepts, White places (any file a–h), then Black
/// places, then White makes the first move.
#[test]
fn prelude_white_accepts_then_white_places_then_black_places() {
    let s0 = start_fen("Aa?", "w");
    let s1 = after(ALPACA, &s0, "accept");
    assert_eq!(s1, start_fen("Aa", "w"));
    assert_eq!(moves(ALPACA, &s1), one_file_placements());
    let s2 = after(ALPACA, &s1, "A@g");
    assert_eq!(s2, start_fen("A@ga", "b"));
    assert_eq!(moves(ALPACA, &s2), one_file_placements());
    let s3 = after(ALPACA, &s2, "A@f");
    assert_eq!(s3, start_fen("A@ga@f", "w"));
    assert_eq!(moves(ALPACA, &s3), orthodox_first_moves());
}

/// §2.2.2: after White declines, Black decides.
#[test]
fn prelude_black_decides_after_white_declines() {
    let s1 = after(ALPACA, &start_fen("Aa?", "w"), "decline");
    assert_eq!(s1, start_fen("Aa?", "b"));
    assert_eq!(moves(ALPACA, &s1), set(&["accept", "decline"]));
}

/// §2.2.2: Black's accept overrules White's decline; then White places first.
#[test]
fn prelude_black_accept_overrules_white_decline() {
    let s2 = after(ALPACA, &start_fen("Aa?", "b"), "accept");
    assert_eq!(s2, start_fen("Aa", "w"));
    assert_eq!(moves(ALPACA, &s2), one_file_placements());
    let s3 = after(ALPACA, &s2, "A@b");
    assert_eq!(s3, start_fen("A@ba", "b"));
    assert_eq!(after(ALPACA, &s3, "A@h"), start_fen("A@ba@h", "w"));
}

/// §2.2.2: both decline: the reserve is removed (`[]`), orthodox chess,
/// White to move with the 20 orthodox moves.
#[test]
fn prelude_both_decline_gives_orthodox_chess() {
    for (v, bracket) in [(ALPACA, "Aa?"), (ALPACA2, "AAaa?"), (SAMEFILE, "Aa?")] {
        let s1 = after(v, &start_fen(bracket, "w"), "decline");
        let s2 = after(v, &s1, "decline");
        assert_eq!(s2, start_fen("", "w"), "{v:?}");
        assert_eq!(moves(v, &s2), orthodox_first_moves(), "{v:?}");
        // No gate fires any more.
        assert_eq!(after(v, &s2, "g1f3"), "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R[] b KQkq - 1 1");
    }
}

/// §2.2: `alpaca2` placements: two distinct files, {a,e} and {e,h}
/// forbidden: exactly 26 for each side.
#[test]
fn prelude_alpaca2_placement_restrictions() {
    let placements = two_file_placements();
    assert_eq!(placements.len(), 26);
    let s1 = after(ALPACA2, &start_fen("AAaa?", "w"), "accept");
    assert_eq!(s1, start_fen("AAaa", "w"));
    assert_eq!(moves(ALPACA2, &s1), placements);
    let s2 = after(ALPACA2, &s1, "A@bg");
    assert_eq!(s2, start_fen("A@bA@gaa", "b"));
    assert_eq!(moves(ALPACA2, &s2), placements);
    assert_eq!(after(ALPACA2, &s2, "A@cf"), start_fen("A@bA@ga@ca@f", "w"));
    // Forbidden combinations are not legal moves.
    for bad in ["A@ae", "A@eh", "A@ee", "A@ea", "A@g"] {
        assert!(uci::parse(&pos(ALPACA2, &s1), bad).is_err(), "{bad} accepted");
    }
}

/// §2.2: in `alpaca-samefile` Black's file must equal White's.
#[test]
fn prelude_samefile_black_must_follow_white() {
    let s1 = after(SAMEFILE, &start_fen("Aa?", "w"), "accept");
    assert_eq!(moves(SAMEFILE, &s1), one_file_placements());
    for f in 'a'..='h' {
        let s2 = after(SAMEFILE, &s1, &format!("A@{f}"));
        assert_eq!(s2, start_fen(&format!("A@{f}a"), "b"));
        assert_eq!(moves(SAMEFILE, &s2), set(&[&format!("A@{f}")]));
        assert_eq!(after(SAMEFILE, &s2, &format!("A@{f}")), start_fen(&format!("A@{f}a@{f}"), "w"));
    }
    // Also after White declined and Black overruled.
    let d = after(SAMEFILE, &start_fen("Aa?", "b"), "accept");
    let d2 = after(SAMEFILE, &d, "A@c");
    assert_eq!(moves(SAMEFILE, &d2), set(&["A@c"]));
}

/// §2.2: prelude actions do not advance the fullmove number or the halfmove
/// clock; the first real moves then count as usual.
#[test]
fn prelude_does_not_advance_counters() {
    let mut text = start_fen("Aa?", "w");
    for mv in ["decline", "accept", "A@g", "A@f"] {
        text = after(ALPACA, &text, mv);
        assert!(text.ends_with(" KQkq - 0 1"), "{mv}: {text}");
    }
    let t1 = after(ALPACA, &text, "g1f3");
    assert_eq!(t1, "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKBAR[a@f] b KQkq - 1 1");
    let t2 = after(ALPACA, &t1, "b8c6");
    assert_eq!(t2, "r1bqkbnr/pppppppp/2n5/8/8/5N2/PPPPPPPP/RNBQKBAR[a@f] w KQkq - 2 2");
}

/// §2.4: the exact FEN after each prelude step.
#[test]
fn prelude_fen_after_each_step() {
    let start = start_fen("Aa?", "w");
    let wd = after(ALPACA, &start, "decline");
    assert_eq!(wd, start_fen("Aa?", "b"));
    assert_eq!(after(ALPACA, &wd, "accept"), start_fen("Aa", "w"));
    assert_eq!(after(ALPACA, &wd, "decline"), start_fen("", "w"));
    let wa = after(ALPACA, &start, "accept");
    assert_eq!(wa, start_fen("Aa", "w"));
    let wp = after(ALPACA, &wa, "A@g");
    assert_eq!(wp, start_fen("A@ga", "b"));
    assert_eq!(after(ALPACA, &wp, "A@f"), start_fen("A@ga@f", "w"));
}

/// §0 perft counts prelude actions. alpaca: 2, 2+8=10, 8*8+8+20=92,
/// 64*20+8*8+20*20=1744.
#[test]
fn perft_alpaca_start() {
    let p = AnyPosition::start(ALPACA);
    let got: Vec<u64> = (1..=4).map(|d| p.perft(d)).collect();
    assert_eq!(got, [2, 10, 92, 1744]);
}

/// alpaca2: 2, 26+2=28, 26*26+26+20=722, 676*20+26*26+20*20=14596.
#[test]
fn perft_alpaca2_start() {
    let p = AnyPosition::start(ALPACA2);
    let got: Vec<u64> = (1..=4).map(|d| p.perft(d)).collect();
    assert_eq!(got, [2, 28, 722, 14596]);
}

/// alpaca-samefile: 2, 8+2=10, 8*1+8+20=36, 8*20+8*1+20*20=568.
#[test]
fn perft_samefile_start() {
    let p = AnyPosition::start(SAMEFILE);
    let got: Vec<u64> = (1..=4).map(|d| p.perft(d)).collect();
    assert_eq!(got, [2, 10, 36, 568]);
}

/// §2.2: a side in check during the prelude (reachable only from a FEN) has
/// no legal move, since prelude actions move nothing and a move is legal
/// only if the mover's king is not attacked afterwards: it is checkmated.
/// Checks generation, the outcome, perft, coordinate/SAN parsing and
/// playing the action directly; `control` is the same prelude state out of
/// check, with its exact legal actions `control_moves`.
#[track_caller]
fn assert_prelude_in_check_checkmated(
    v: VariantId,
    text: &str,
    actions: &[(&str, Move)],
    control: &str,
    control_moves: &[&str],
) {
    let p = pos(v, text);
    assert!(p.is_check(), "{text}: not in check");
    assert_eq!(moves(v, text), BTreeSet::new(), "{text}");
    assert_eq!(p.count_legal(), 0, "{text}");
    let winner = p.side_to_move().flip();
    assert_eq!(p.outcome(), Some(Outcome::Win { winner, reason: WinReason::Checkmate }), "{text}");
    for d in 1..=3 {
        assert_eq!(p.perft(d), 0, "{text} perft {d}");
        assert_eq!(p.perft_parallel(d), 0, "{text} perft {d}");
    }
    assert!(p.divide(2).is_empty(), "{text}");
    for &(name, m) in actions {
        match menagerie_notation::parse_move(&p, name) {
            Err(MoveError::Illegal { reason, .. }) => assert!(reason.contains("checkmate"), "{name}: {reason}"),
            other => panic!("{text}: {name} gave {other:?}"),
        }
        assert!(uci::parse(&p, name).is_err(), "{text}: {name} parsed");
        assert!(san::parse(&p, name).is_err(), "{text}: {name} parsed as SAN");
        assert_eq!(p.play(m), Err(IllegalMove), "{text}: {name} played");
    }
    // Out of check, the same prelude state has its actions.
    let c = pos(v, control);
    assert!(!c.is_check(), "{control}: in check");
    assert_eq!(moves(v, control), set(control_moves), "{control}");
    assert_eq!(c.outcome(), None, "{control}");
}

/// The bit mask of gate files named by `files` (`"de"` → d and e).
fn files_mask(files: &str) -> u8 {
    files.bytes().fold(0, |m, f| m | 1 << (f - b'a'))
}

/// §2.2: Black to place its Alpaca while in check (the rook on e1): no
/// placement is legal (formerly `A@e`, after which `e1e8` took the king).
#[test]
fn prelude_black_placement_in_check_is_checkmate() {
    assert_prelude_in_check_checkmated(
        ALPACA,
        "4k3/8/8/8/8/8/8/4R1K1[a] b - - 0 1",
        &[("A@e", Move::place(files_mask("e")))],
        "4k3/8/8/8/8/8/8/3R2K1[a] b - - 0 1",
        &["A@e"],
    );
}

/// §2.2: White to place while in check: no placement is legal.
#[test]
fn prelude_white_placement_in_check_is_checkmate() {
    assert_prelude_in_check_checkmated(
        ALPACA,
        "4r1k1/8/8/8/8/8/8/4K3[Aa] w - - 0 1",
        &[("A@e", Move::place(files_mask("e")))],
        "3r2k1/8/8/8/8/8/8/4K3[Aa] w - - 0 1",
        &["A@e"],
    );
}

/// §2.2: two Alpacas to place (`alpaca2`) while in check: none is legal.
#[test]
fn prelude_alpaca2_placement_in_check_is_checkmate() {
    assert_prelude_in_check_checkmated(
        ALPACA2,
        "3rk3/8/8/8/8/8/8/4R1K1[aa] b - - 0 1",
        &[("A@de", Move::place(files_mask("de")))],
        "3rk3/8/8/8/8/8/8/2R3K1[aa] b - - 0 1",
        &["A@de"],
    );
}

/// §2.2: in `alpaca-samefile`, Black following White's file while in check
/// (the queen on a4): not legal either.
#[test]
fn prelude_samefile_placement_in_check_is_checkmate() {
    assert_prelude_in_check_checkmated(
        SAMEFILE,
        "4k3/8/8/8/Q7/8/8/4K3[A@ea] b - - 0 1",
        &[("A@e", Move::place(files_mask("e")))],
        "4k3/8/8/8/8/Q7/8/4K3[A@ea] b - - 0 1",
        &["A@e"],
    );
}

/// §2.2: the decision (`accept`/`decline`) while in check, by White first
/// and by Black after White declined: neither action is legal.
#[test]
fn prelude_decision_in_check_is_checkmate() {
    let actions = [("accept", Move::ACCEPT), ("decline", Move::DECLINE)];
    for v in [ALPACA, ALPACA2, SAMEFILE] {
        let (w, b) = if v == ALPACA2 { ("AAaa?", "AAaa?") } else { ("Aa?", "Aa?") };
        assert_prelude_in_check_checkmated(
            v,
            &format!("4r1k1/8/8/8/8/8/8/4K3[{w}] w - - 0 1"),
            &actions,
            &format!("3r2k1/8/8/8/8/8/8/4K3[{w}] w - - 0 1"),
            &["accept", "decline"],
        );
        assert_prelude_in_check_checkmated(
            v,
            &format!("4k3/8/8/8/8/8/8/4R1K1[{b}] b - - 0 1"),
            &actions,
            &format!("4k3/8/8/8/8/8/8/3R2K1[{b}] b - - 0 1"),
            &["accept", "decline"],
        );
    }
}

/// §2.2: a prelude action never leaves the other side in check, so a side
/// can be in check during the prelude only when a FEN says so: from the
/// control positions above, each action keeps the board as it was.
#[test]
fn prelude_actions_never_give_check() {
    for (v, text, mv) in [
        (ALPACA, "4k3/8/8/8/8/8/8/3R2K1[a] b - - 0 1", "A@e"),
        (ALPACA, "3r2k1/8/8/8/8/8/8/4K3[Aa] w - - 0 1", "A@e"),
        (ALPACA, "3r2k1/8/8/8/8/8/8/4K3[Aa?] w - - 0 1", "accept"),
        (ALPACA, "3r2k1/8/8/8/8/8/8/4K3[Aa?] w - - 0 1", "decline"),
    ] {
        let p = pos(v, &after(v, text, mv));
        assert!(!p.is_check(), "{text} {mv}");
        assert!(p.count_legal() > 0, "{text} {mv}");
    }
}

// ---------------------------------------------------------------- §2.3 gating

/// §2.3: the home piece's ordinary move makes the reserve piece enter on the
/// home square in the same move; SAN shows the entry.
#[test]
fn gate_fires_on_ordinary_move() {
    let text = "4k3/8/8/8/8/8/8/4K1N1[A@g] w - - 0 1";
    assert_eq!(moves(ALPACA, text), set(&["e1d1", "e1d2", "e1e2", "e1f1", "e1f2", "g1e2", "g1f3", "g1h3"]));
    assert_eq!(after(ALPACA, text, "g1f3"), "4k3/8/8/8/8/5N2/8/4K1A1[] b - - 1 1");
    assert_eq!(san_of(ALPACA, text, "g1f3"), "Nf3(A@g1)");
    let p = pos(ALPACA, text);
    assert_eq!(san::parse(&p, "Nf3(A@g1)").ok(), uci::parse(&p, "g1f3").ok());
    assert_eq!(san::parse(&p, "Nf3").ok(), uci::parse(&p, "g1f3").ok());
    // A move of another piece does not fire the gate.
    assert_eq!(after(ALPACA, text, "e1d1"), "4k3/8/8/8/8/8/8/3K2N1[A@g] b - - 1 1");
}

/// §2.3: a capture made by the home piece fires its gate.
#[test]
fn gate_fires_on_capture_by_home_piece() {
    let text = "7k/8/8/1n6/8/8/8/4KB2[A@f] w - - 3 10";
    assert_eq!(after(ALPACA, text, "f1b5"), "7k/8/8/1B6/8/8/8/4KA2[] b - - 0 10");
    assert_eq!(san_of(ALPACA, text, "f1b5"), "Bxb5(A@f1)");
}

/// §2.3: castling fires a gate on the king's file (both castlings).
#[test]
fn gate_fires_on_castling_king_file() {
    let text = "4k3/8/8/8/8/8/8/R3K2R[A@e] w KQ - 0 1";
    let expected = set(&[
        "e1d1", "e1d2", "e1e2", "e1f1", "e1f2", "e1g1", "e1c1", // king
        "a1a2", "a1a3", "a1a4", "a1a5", "a1a6", "a1a7", "a1a8", "a1b1", "a1c1", "a1d1", // rook a1
        "h1h2", "h1h3", "h1h4", "h1h5", "h1h6", "h1h7", "h1h8", "h1g1", "h1f1", // rook h1
    ]);
    assert_eq!(moves(ALPACA, text), expected);
    assert_eq!(after(ALPACA, text, "e1g1"), "4k3/8/8/8/8/8/8/R3ARK1[] b - - 1 1");
    assert_eq!(after(ALPACA, text, "e1c1"), "4k3/8/8/8/8/8/8/2KRA2R[] b - - 1 1");
    assert_eq!(san_of(ALPACA, text, "e1g1"), "O-O(A@e1)");
    // A king move that is not castling fires it too.
    assert_eq!(after(ALPACA, text, "e1e2"), "4k3/8/8/8/8/8/4K3/R3A2R[] b - - 1 1");
}

/// §2.3: castling fires a gate on the castling rook's file (h side and a
/// side), and only that rook's.
#[test]
fn gate_fires_on_castling_rook_files() {
    let h = "4k3/8/8/8/8/8/8/R3K2R[A@h] w KQ - 0 1";
    assert_eq!(after(ALPACA, h, "e1g1"), "4k3/8/8/8/8/8/8/R4RKA[] b - - 1 1");
    assert_eq!(after(ALPACA, h, "e1c1"), "4k3/8/8/8/8/8/8/2KR3R[A@h] b - - 1 1");
    let a = "4k3/8/8/8/8/8/8/R3K2R[A@a] w KQ - 0 1";
    assert_eq!(after(ALPACA, a, "e1c1"), "4k3/8/8/8/8/8/8/A1KR3R[] b - - 1 1");
    assert_eq!(after(ALPACA, a, "e1g1"), "4k3/8/8/8/8/8/8/R4RK1[A@a] b - - 1 1");
    // Black, king side, rook file h.
    let b = "r3k2r/8/8/8/8/8/8/4K3[a@h] b kq - 0 1";
    assert_eq!(after(ALPACA, b, "e8g8"), "r4rka/8/8/8/8/8/8/4K3[] w - - 1 2");
    // alpaca2 with gates on both rook files ({a,h} is allowed): each castling
    // fires only its own rook's gate.
    let ah = "4k3/8/8/8/8/8/8/R3K2R[A@aA@h] w KQ - 0 1";
    assert_eq!(after(ALPACA2, ah, "e1g1"), "4k3/8/8/8/8/8/8/R4RKA[A@a] b - - 1 1");
    assert_eq!(after(ALPACA2, ah, "e1c1"), "4k3/8/8/8/8/8/8/A1KR3R[A@h] b - - 1 1");
}

/// §2.3: if the home piece is captured on its home square, the reserve piece
/// of that file is forfeited.
#[test]
fn gate_forfeited_when_home_piece_captured_on_home_square() {
    assert_afters(
        ALPACA,
        &[
            ("4k1r1/8/8/8/8/8/8/4K1N1[A@g] b - - 0 1", "g8g1", "4k3/8/8/8/8/8/8/4K1r1[] w - - 0 2"),
            // Black's entry forfeited by a White capture; White's entry stays.
            ("1n2k3/8/8/8/8/8/8/1R2K1N1[A@ga@b] w - - 0 1", "b1b8", "1R2k3/8/8/8/8/8/8/4K1N1[A@g] b - - 0 1"),
            // A rook captured on its home square: forfeit, and its castling right goes.
            ("4k3/8/8/8/8/8/6b1/R3K2R[A@h] b KQ - 0 1", "g2h1", "4k3/8/8/8/8/8/8/R3K2b[] w Q - 0 2"),
            // A capture-promotion on the home square forfeits too.
            ("4k2r/6P1/8/8/8/8/8/4K3[a@h] w k - 0 1", "g7h8q", "4k2Q/8/8/8/8/8/8/4K3[] b - - 0 1"),
        ],
    );
}

/// §2.3 / §2.4: a fired entry disappears from the bracket, the others stay in
/// canonical order.
#[test]
fn gate_fired_entry_leaves_the_bracket() {
    let text = "4kb2/8/8/8/8/8/8/4K1N1[A@ga@f] w - - 0 1";
    let t1 = after(ALPACA, text, "g1f3");
    assert_eq!(t1, "4kb2/8/8/8/8/5N2/8/4K1A1[a@f] b - - 1 1");
    let t2 = after(ALPACA, &t1, "f8c5");
    assert_eq!(t2, "4ka2/8/8/2b5/8/5N2/8/4K1A1[] w - - 2 2");
    // alpaca2: two White entries, one fires.
    let text3 = "4k3/8/8/8/8/8/8/1N2K1N1[A@bA@g] w - - 0 1";
    assert_eq!(after(ALPACA2, text3, "b1c3"), "4k3/8/8/8/8/2N5/8/1A2K1N1[A@g] b - - 1 1");
}

/// §2.3: legality is judged after the entry: a home piece pinned along the
/// first rank may leave, because the entering piece keeps blocking.
#[test]
fn gate_entry_keeps_blocking_a_pin() {
    let text = "7k/8/8/8/8/8/8/r2NK3[A@d] w - - 0 1";
    assert_eq!(moves(ALPACA, text), set(&["d1b2", "d1c3", "d1e3", "d1f2", "e1d2", "e1e2", "e1f1", "e1f2"]));
    // Without the gate the knight is pinned.
    assert_eq!(moves(ALPACA, "7k/8/8/8/8/8/8/r2NK3[] w - - 0 1"), set(&["e1d2", "e1e2", "e1f1", "e1f2"]));
}

/// §2.3: a king on its gate square may step to a square that was attacked
/// only through its own square: the entering piece blocks the line.
#[test]
fn gate_entry_lets_king_step_along_checking_line() {
    let text = "7k/8/8/8/8/8/8/r3K3[A@e] w - - 0 1";
    assert!(pos(ALPACA, text).is_check());
    assert_eq!(moves(ALPACA, text), set(&["e1d2", "e1e2", "e1f2", "e1f1"]));
    assert_eq!(after(ALPACA, text, "e1f1"), "7k/8/8/8/8/8/8/r3AK2[] b - - 1 1");
    // Without the gate f1 is attacked through e1.
    assert_eq!(moves(ALPACA, "7k/8/8/8/8/8/8/r3K3[] w - - 0 1"), set(&["e1d2", "e1e2", "e1f2"]));
}

/// §2.3: the entered piece can give check; SAN shows `+`.
#[test]
fn gate_entered_piece_gives_check() {
    let text = "8/8/8/8/8/8/3k4/3N3K[A@d] w - - 0 1";
    assert!(!pos(ALPACA, text).is_check());
    let t = after(ALPACA, text, "d1b2");
    assert_eq!(t, "8/8/8/8/8/8/1N1k4/3A3K[] b - - 1 1");
    assert!(pos(ALPACA, &t).is_check());
    assert_eq!(san_of(ALPACA, text, "d1b2"), "Nb2(A@d1)+");
    for (mv, sq) in [("d1c3", "c3"), ("d1e3", "e3"), ("d1f2", "f2")] {
        assert_eq!(san_of(ALPACA, text, mv), format!("N{sq}(A@d1)+"));
    }
    // Told without playing the move too (the search asks before it plays).
    let p = pos(ALPACA, text);
    for (mv, check) in [("d1b2", true), ("d1c3", true), ("d1f2", true), ("h1g1", false), ("h1h2", false)] {
        let m = uci::parse(&p, mv).unwrap();
        assert_eq!(p.gives_check(m), check, "{mv}");
    }
}

/// §2.3: a piece that entered on g1 or b1 blocks castling across that square.
#[test]
fn gate_entered_piece_blocks_castling() {
    let text = "4k3/8/8/8/8/8/8/4K1NR[A@g] w K - 0 1";
    let t1 = after(ALPACA, text, "g1f3");
    // Neither king nor rook moved: the right stays.
    assert_eq!(t1, "4k3/8/8/8/8/5N2/8/4K1AR[] b K - 1 1");
    let t2 = after(ALPACA, &t1, "e8d8");
    assert_eq!(t2, "3k4/8/8/8/8/5N2/8/4K1AR[] w K - 2 2");
    let expected = set(&[
        "e1d1", "e1d2", "e1e2", "e1f1", "e1f2", // king, no castling
        "g1g2", "g1f1", "g1g3", // alpaca
        "h1h2", "h1h3", "h1h4", "h1h5", "h1h6", "h1h7", "h1h8", // rook
        "f3d2", "f3d4", "f3e5", "f3g5", "f3h4", "f3h2", // knight
    ]);
    assert_eq!(moves(ALPACA, &t2), expected);
    // alpaca2, Alpacas entered on b1 and g1: no castling on either side.
    let both = "4k3/8/8/8/8/8/8/RA2K1AR[] w KQ - 0 1";
    let expected2 = set(&[
        "e1d1", "e1d2", "e1e2", "e1f1", "e1f2", // king
        "b1b2", "b1c1", "b1b3", "b1d1", // alpaca b1
        "g1g2", "g1f1", "g1g3", // alpaca g1
        "a1a2", "a1a3", "a1a4", "a1a5", "a1a6", "a1a7", "a1a8", // rook a1
        "h1h2", "h1h3", "h1h4", "h1h5", "h1h6", "h1h7", "h1h8", // rook h1
    ]);
    assert_eq!(moves(ALPACA2, both), expected2);
}

/// §2.3: castling conditions are judged on the position before the move:
/// a king in check cannot castle even though, after castling, the entering
/// Alpaca on e1 (and the rook on f1) would shield the king.
#[test]
fn gate_castling_conditions_judged_before_move() {
    let text = "4k3/8/8/8/8/8/8/r3K2R[A@e] w K - 0 1";
    assert!(pos(ALPACA, text).is_check());
    assert_eq!(moves(ALPACA, text), set(&["e1d2", "e1e2", "e1f2", "e1f1"]));
}

// ---------------------------------------------------------------- §2.4 FEN

/// §2.4 / §0: the bracket examples format back to the same string.
#[test]
fn fen_round_trips() {
    let cases = [
        (ALPACA, start_fen("Aa?", "w")),
        (ALPACA, start_fen("Aa?", "b")),
        (ALPACA, start_fen("Aa", "w")),
        (ALPACA, start_fen("", "w")),
        (ALPACA, start_fen("A@ga", "b")),
        (ALPACA, start_fen("A@ga@f", "w")),
        (ALPACA2, start_fen("AAaa?", "w")),
        (ALPACA2, start_fen("A@bA@gaa", "b")),
        (ALPACA2, start_fen("A@bA@ga@ca@f", "w")),
        (SAMEFILE, start_fen("A@ga@g", "w")),
        (ALPACA, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBAR[a@f] b KQkq e3 0 1".to_string()),
        (ALPACA, "4k3/8/8/8/8/5N2/8/4K1A1[] b - - 1 1".to_string()),
    ];
    for (v, text) in cases {
        assert_eq!(fen::format(&pos(v, &text)), text, "{v:?}");
    }
}

/// §2.4: orthodox FEN without a bracket is accepted once the reserves are
/// gone, and no gate fires afterwards. (Whether it formats back with or
/// without `[]` is checked separately in `fen_without_bracket_round_trips`.)
#[test]
fn fen_without_bracket_accepted() {
    let text = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    let p = pos(ALPACA, text);
    assert_eq!(fen::format(&p).replace("[]", ""), text);
    let t = after(ALPACA, text, "g8f6");
    assert_eq!(t.replace("[]", ""), "rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2");
    let t2 = after(ALPACA, &t, "g1f3");
    assert_eq!(t2.replace("[]", ""), "rnbqkb1r/pppppppp/5n2/8/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 2");
}

/// §0: "Formatting a parsed FEN gives back the same string" -- also for the
/// bracket-less orthodox FEN that §2.4 accepts as input.
#[test]
fn fen_without_bracket_round_trips() {
    let text = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    assert_eq!(fen::format(&pos(ALPACA, text)), text);
}

#[track_caller]
fn position_error(v: VariantId, text: &str) -> PositionError {
    match fen::parse(v, text) {
        Ok(p) => panic!("'{text}' parsed as {}", fen::format(&p)),
        Err(FenError::Position(e)) => e,
        Err(e) => panic!("'{text}': expected a position error, got {e:?}"),
    }
}

/// §2.4: a live entry needs a piece of its owner's colour on its home square.
#[test]
fn fen_error_gate_home_square_without_own_piece() {
    // Empty home square.
    let e = position_error(ALPACA, "4k3/8/8/8/8/8/8/4K3[A@g] w - - 0 1");
    assert!(
        matches!(e, PositionError::GateHome { color: Color::White, file: 'g', ref square } if square == "g1"),
        "{e:?}"
    );
    // Enemy piece on the home square.
    let e = position_error(ALPACA, "4k3/8/8/8/8/8/8/4K1n1[A@g] w - - 0 1");
    assert!(matches!(e, PositionError::GateHome { color: Color::White, file: 'g', .. }), "{e:?}");
    // Black entry with nothing on b8.
    let e = position_error(ALPACA, "4k3/8/8/8/8/8/8/4K3[a@b] w - - 0 1");
    assert!(
        matches!(e, PositionError::GateHome { color: Color::Black, file: 'b', ref square } if square == "b8"),
        "{e:?}"
    );
    // The same with a piece there is fine.
    pos(ALPACA, "1n2k3/8/8/8/8/8/8/4K3[a@b] w - - 0 1");
}

/// §2.4: the decision marker `?` cannot go with placed pieces.
#[test]
fn fen_error_decision_marker_with_placed_pieces() {
    for bracket in ["A@ga?", "A@ga@f?"] {
        let e = position_error(ALPACA, &start_fen(bracket, "w"));
        assert_eq!(e, PositionError::PendingState, "{bracket}");
    }
}

/// §2.4: more reserve pieces than the variant allows: an error in the
/// reserve field of the FEN, naming the side and the numbers.
#[test]
fn fen_error_too_many_reserve_pieces() {
    for (v, bracket, says) in [
        (ALPACA, "A@bA@gaa", "White has 2 reserve pieces; alpaca allows 1"),
        (SAMEFILE, "A@ga@ga@b", "Black has 2 reserve pieces; alpaca-samefile allows 1"),
        (ALPACA2, "A@bA@cA@ga", "White has 3 reserve pieces; alpaca2 allows 2"),
    ] {
        let e = fen::parse(v, &start_fen(bracket, "b")).expect_err(bracket);
        assert!(matches!(&e, FenError::Field { field: FenField::Reserve, value, .. } if value == bracket), "{e:?}");
        assert!(e.to_string().contains(says), "{e}");
    }
    // Built from setup data directly, the position check says the same.
    let mut setup = fen::parse_setup(ALPACA2, &start_fen("A@ba", "b")).unwrap();
    let extra = ReserveEntry { file: None, ..setup.reserve.as_ref().unwrap().entries[0] };
    setup.reserve.as_mut().unwrap().entries.splice(0..0, [extra, extra]);
    let e = AnyPosition::from_setup(ALPACA2, &setup).expect_err("three white entries");
    assert!(matches!(e, PositionError::ReserveCount { color: Color::White, count: 3, max: 2, .. }), "{e:?}");
}

/// §2.4: White's entries come before Black's.
#[test]
fn fen_error_black_entries_before_white() {
    let e = fen::parse(ALPACA, &start_fen("a@fA@g", "w")).expect_err("black entry first accepted");
    assert!(matches!(e, FenError::Field { field: FenField::Reserve, .. }), "{e:?}");
    assert_eq!(e.field(), Some(FenField::Reserve));
}

/// §2.4: an Alseid standing on a live home square is rejected (its victim and
/// the reserve piece would both land there).
#[test]
fn fen_error_alseid_on_live_gate_square() {
    let e = position_error(VariantId::Alseid, "4k3/8/8/8/8/8/8/4K1S1[S@g] w - - 0 1");
    assert_eq!(e, PositionError::AlseidOnGate("g1".to_string()));
    let e = position_error(VariantId::Alseid, "4k1s1/8/8/8/8/8/8/4K3[s@g] w - - 0 1");
    assert_eq!(e, PositionError::AlseidOnGate("g8".to_string()));
    // On a square without a live gate it is fine.
    pos(VariantId::Alseid, "4k3/8/8/8/8/8/8/4K1S1[] w - - 0 1");
}

/// §2.2: gate files the rules forbid are rejected in a FEN too: {e,a} or
/// {e,h} or one file twice for one side in `alpaca2`, different files in
/// `alpaca-samefile`; {a,h} is fine.
#[test]
fn fen_error_forbidden_gate_files() {
    for bracket in ["A@aA@eaa", "A@eA@haa", "A@gA@gaa"] {
        let e = position_error(ALPACA2, &start_fen(bracket, "b"));
        assert!(matches!(e, PositionError::GateFiles(_)), "{bracket}: {e:?}");
    }
    pos(ALPACA2, &start_fen("A@aA@haa", "b"));
    let e = position_error(SAMEFILE, &start_fen("A@ga@f", "w"));
    assert!(matches!(e, PositionError::GateFiles(_)), "{e:?}");
    pos(SAMEFILE, &start_fen("A@ga@g", "w"));
}

/// §2.2.3 / §2.4: White places first, so `[Aa]` with Black to move (Black
/// placing while White's piece is still in hand) is not a prelude state.
#[test]
fn fen_error_black_places_before_white() {
    let e = position_error(ALPACA, &start_fen("Aa", "b"));
    assert!(matches!(e, PositionError::PreludeOrder(_)), "{e:?}");
}

/// §0 legality: a pinned Alpaca may move along the pin line, but its
/// two-square jump never takes it over its own king or over the pinner.
#[test]
fn pinned_alpaca_stays_between_king_and_pinner() {
    // Pinned on the first rank by the rook on a1: e1 and d1 only (not h1, over the king).
    assert_eq!(
        moves(ALPACA, "4k3/8/8/8/8/8/8/r4AK1 w - - 0 1"),
        set(&["f1e1", "f1d1", "g1h1", "g1f2", "g1g2", "g1h2"])
    );
    // Pinned on the e-file next to the pinner: the capture, not the jump over it.
    let alpaca_moves: Vec<String> =
        moves(ALPACA, "4k3/8/8/8/4r3/4A3/8/4K3 w - - 0 1").into_iter().filter(|m| m.starts_with("e3")).collect();
    assert_eq!(alpaca_moves, vec!["e3e2".to_string(), "e3e4".to_string()]);
}

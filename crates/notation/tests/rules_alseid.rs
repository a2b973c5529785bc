//! RULES.md §3 (Alseid Chess, `alseid` and `alseid-weak`), one named test per
//! rule.
//!
//! Every expectation below was derived by hand from RULES.md (the move lists
//! are exact sets of coordinate moves; FENs are exact strings), not read off
//! the engine. Kidnapping (§3.1): an Alseid moving from O in direction d
//! looks from O in direction -d; the first piece met is the screen, the next
//! one beyond it (empty squares may lie between) is the victim, which is
//! moved to O.

use menagerie_notation::{fen, san, uci};
use menagerie_variants::{AnyPosition, Outcome, VariantId, WinReason};
use std::collections::BTreeSet;

mod common;
use common::{after, assert_afters, edit, moves, pos, san_of, set};

const ALSEID: VariantId = VariantId::Alseid;
const WEAK: VariantId = VariantId::AlseidWeak;

/// The legal moves of `text` are `expected` in both Alseid variants.
#[track_caller]
fn assert_moves_in_both(text: &str, expected: &BTreeSet<String>) {
    for v in [ALSEID, WEAK] {
        assert_eq!(moves(v, text), *expected, "{v:?}");
    }
}

// ---------------------------------------------------------------- §3.1 movement

/// §3.1: moves like a queen over empty squares to empty squares; never
/// captures (not the knight on d6, not the king on h8). No piece here has a
/// victim behind it, so no move kidnaps.
#[test]
fn alseid_moves_like_queen_to_empty_squares_only() {
    let text = "7k/8/3n4/8/3S4/8/8/K7[] w - - 0 1";
    let expected = set(&[
        "d4d5", // north: d6 knight not capturable
        "d4d3", "d4d2", "d4d1", // south
        "d4e4", "d4f4", "d4g4", "d4h4", // east
        "d4c4", "d4b4", "d4a4", // west
        "d4e5", "d4f6", "d4g7", // north-east: h8 king not capturable
        "d4c5", "d4b6", "d4a7", // north-west
        "d4e3", "d4f2", "d4g1", // south-east
        "d4c3", "d4b2", // south-west: a1 own king
        "a1a2", "a1b1", "a1b2", // king
    ]);
    assert_moves_in_both(text, &expected);
    // Nothing was kidnapped or captured by, e.g., the long diagonal move.
    assert_eq!(after(ALSEID, text, "d4g7"), "7k/6S1/3n4/8/8/8/8/K7[] b - - 1 1");
}

/// §3.1 / §0: the Alseid never attacks and never gives check: a king may
/// stand next to it and is not in check on its open lines. (The FEN with the
/// Alseid on the open diagonal to the enemy king parses: no opposite check.)
#[test]
fn alseid_never_attacks_or_gives_check() {
    // Black Alseid on e3, on the open e-file two squares from the king.
    let text = "4k3/8/8/8/8/4s3/8/4K3[] w - - 0 1";
    assert!(!pos(ALSEID, text).is_check());
    assert_eq!(moves(ALSEID, text), set(&["e1d1", "e1d2", "e1e2", "e1f1", "e1f2"]));
    // Black Alseid right next to the king: not check; the king may take it.
    let text2 = "4k3/8/8/8/8/8/4s3/4K3[] w - - 0 1";
    assert!(!pos(ALSEID, text2).is_check());
    assert_eq!(moves(ALSEID, text2), set(&["e1d1", "e1d2", "e1e2", "e1f1", "e1f2"]));
    // White to move, White Alseid on the open diagonal to the black king.
    let text3 = "7k/8/8/8/3S4/8/8/K7[] b - - 0 1";
    assert!(!pos(ALSEID, text3).is_check());
    // An Alseid move onto a square next to the enemy king is no check.
    assert!(!pos(ALSEID, &after(ALSEID, "7k/8/8/8/3S4/8/8/K7[] w - - 0 1", "d4g7")).is_check());
}

/// §0 / §3.1: squares an Alseid could move to are not attacked: castling
/// across them is allowed.
#[test]
fn alseid_does_not_stop_castling() {
    let text = "4k3/8/8/8/8/5s2/8/4K2R[] w K - 0 1";
    let expected = set(&[
        "e1d1", "e1d2", "e1e2", "e1f1", "e1f2", "e1g1", // king, castling included
        "h1h2", "h1h3", "h1h4", "h1h5", "h1h6", "h1h7", "h1h8", "h1g1", "h1f1", // rook
    ]);
    assert_eq!(moves(ALSEID, text), expected);
    assert_eq!(after(ALSEID, text, "e1g1"), "4k3/8/8/8/8/5s2/8/5RK1[] b - - 1 1");
}

/// §3.1: screen and victim, with empty squares between O and the screen and
/// between the screen and the victim; the victim (an enemy knight) lands on
/// the Alseid's origin.
#[test]
fn kidnap_screen_and_victim_with_gaps() {
    // Alseid d5; south of it: d4 empty, d3 black pawn (screen), d2 empty,
    // d1 black knight (victim). Every move north kidnaps the knight.
    let text = "7k/8/8/3S4/8/3p4/8/3n3K[] w - - 0 1";
    let expected = set(&[
        "d5d6", "d5d7", "d5d8", // north, kidnapping Nd1
        "d5d4", // south
        "d5e5", "d5f5", "d5g5", "d5h5", "d5c5", "d5b5", "d5a5", // east, west
        "d5e6", "d5f7", "d5g8", "d5c6", "d5b7", "d5a8", // NE, NW
        "d5e4", "d5f3", "d5g2", "d5c4", "d5b3", "d5a2", // SE, SW
        "h1g1", "h1g2", "h1h2",
    ]);
    assert_eq!(moves(ALSEID, text), expected);
    assert_eq!(after(ALSEID, text, "d5d7"), "7k/3S4/8/3n4/8/3p4/8/7K[] b - - 1 1");
    assert_eq!(after(ALSEID, text, "d5d8"), "3S3k/8/8/3n4/8/3p4/8/7K[] b - - 1 1");
    assert_eq!(after(ALSEID, text, "d5d6"), "7k/8/3S4/3n4/8/3p4/8/7K[] b - - 1 1");
    // Moves with only a screen behind (or nothing) kidnap nothing.
    assert_eq!(after(ALSEID, text, "d5d4"), "7k/8/8/8/3S4/3p4/8/3n3K[] b - - 1 1");
    assert_eq!(after(ALSEID, text, "d5a8"), "S6k/8/8/8/8/3p4/8/3n3K[] b - - 1 1");
    // Diagonal: Alseid d2 moving to e1 looks north-west: c3 screen, b4 victim.
    let diag = "7k/8/8/8/1P2p3/2p5/3s4/7K[] b - - 5 1";
    assert_eq!(after(ALSEID, diag, "d2e1"), "7k/8/8/8/4p3/2p5/3P4/4s2K[] w - - 0 2");
}

/// §3.1: the victim may be of either colour, kings included.
#[test]
fn kidnap_victim_of_either_colour_kings_included() {
    // Own rook.
    assert_eq!(after(ALSEID, "7k/8/8/8/3S4/3P4/8/3R3K[] w - - 0 1", "d4d6"), "7k/8/3S4/8/3R4/3P4/8/7K[] b - - 1 1");
    // Own king.
    assert_eq!(after(ALSEID, "7k/8/8/8/3S4/3P4/8/3K4[] w - - 0 1", "d4d6"), "7k/8/3S4/8/3K4/3P4/8/8[] b - - 1 1");
    // Enemy king (screen: a white pawn).
    assert_eq!(after(ALSEID, "4k3/8/4P3/4S3/8/8/8/7K[] w - - 0 1", "e5e3"), "8/8/4P3/4k3/8/4S3/8/7K[] b - - 1 1");
    // Black moving: its own rook, behind its own pawn as screen.
    assert_eq!(after(ALSEID, "r3k3/p7/s7/8/8/8/8/4K3[] b q - 0 1", "a6a4"), "4k3/p7/r7/8/s7/8/8/4K3[] w - - 1 2");
}

/// §3.1 [choice]: in `alseid` kidnapping is compulsory: a move with a victim
/// has no non-kidnapping version, so when the kidnap would be illegal the
/// move does not exist at all. In `alseid-weak` the longer moves exist
/// because they never kidnap.
#[test]
fn kidnap_is_compulsory_in_alseid() {
    // Alseid d4, screen Pd3, victim own Kd1; d4 would be attacked by Rh4.
    let text = "7k/8/8/8/3S3r/3P4/8/3K4[] w - - 0 1";
    let expected = set(&[
        "d1c1", "d1c2", "d1d2", "d1e1", "d1e2", // king
        "d4e4", "d4f4", "d4g4", "d4c4", "d4b4", "d4a4", // east, west
        "d4e5", "d4f6", "d4g7", "d4c5", "d4b6", "d4a7", // NE, NW
        "d4e3", "d4f2", "d4g1", "d4c3", "d4b2", "d4a1", // SE, SW
    ]);
    assert_eq!(moves(ALSEID, text), expected);
    // Weak: only d4d5 kidnaps (and is illegal); d4d6..d4d8 are plain moves.
    assert_eq!(moves(WEAK, text), edit(&expected, &["d4d6", "d4d7", "d4d8"], &[]));
    assert_eq!(after(WEAK, text, "d4d7"), "7k/3S4/8/8/7r/3P4/8/3K4[] b - - 1 1");
}

/// §3.1: `alseid-weak`: only one-square moves kidnap (compulsorily); longer
/// moves never do.
#[test]
fn weak_alseid_kidnaps_only_on_one_square_moves() {
    let text = "7k/8/8/3S4/8/3p4/8/3n3K[] w - - 0 1";
    // Every move is legal either way: same move set as in `alseid`.
    assert_eq!(moves(WEAK, text), moves(ALSEID, text));
    assert_eq!(after(WEAK, text, "d5d6"), "7k/8/3S4/3n4/8/3p4/8/7K[] b - - 1 1");
    assert_eq!(after(WEAK, text, "d5d7"), "7k/3S4/8/8/8/3p4/8/3n3K[] b - - 1 1");
    assert_eq!(after(WEAK, text, "d5d8"), "3S3k/8/8/8/8/3p4/8/3n3K[] b - - 1 1");
    // Diagonal one-step kidnap.
    let diag = "7k/8/8/8/1P2p3/2p5/3s4/7K[] b - - 5 1";
    assert_eq!(after(WEAK, diag, "d2e1"), "7k/8/8/8/4p3/2p5/3P4/4s2K[] w - - 0 2");
    // SAN of a plain long move in `alseid-weak` has no victim.
    assert_eq!(san_of(WEAK, text, "d5d7"), "Sd7");
    assert_eq!(san_of(WEAK, text, "d5d6"), "Sd5-d6(Nd1-d5)");
}

// ---------------------------------------------------------------- §3.2 consequences

/// §3.2: kidnapping the enemy king onto an attacked square is legal and
/// gives check.
#[test]
fn kidnap_enemy_king_onto_attacked_square_gives_check() {
    // Alseid e5, screen Pe6, victim Ke8; Ra5 attacks e5 once the Alseid left.
    let text = "4k3/8/4P3/R3S3/8/8/8/7K[] w - - 0 1";
    let t = after(ALSEID, text, "e5e4");
    assert_eq!(t, "8/8/4P3/R3k3/4S3/8/8/7K[] b - - 1 1");
    assert!(pos(ALSEID, &t).is_check());
    assert_eq!(san_of(ALSEID, text, "e5e4"), "Se5-e4(Ke8-e5)+");
}

/// §3.2: putting the enemy king next to the mover's king is illegal.
#[test]
fn kidnap_enemy_king_next_to_own_king_is_illegal() {
    let text = "4k3/8/4P3/4S3/3K4/8/8/8[] w - - 0 1";
    let expected = set(&[
        "e6e7", // pawn
        "d4c3", "d4c4", "d4c5", "d4d3", "d4d5", "d4e3", "d4e4", // king
        "e5f5", "e5g5", "e5h5", "e5d5", "e5c5", "e5b5", "e5a5", // east, west
        "e5f6", "e5g7", "e5h8", "e5d6", "e5c7", "e5b8", // NE, NW
        "e5f4", "e5g3", "e5h2", // SE
    ]);
    // e5e4..e5e1 would all bring Ke8 to e5, next to Kd4.
    assert_eq!(moves(ALSEID, text), expected);
    // Weak: only e5e4 kidnaps; e5e3, e5e2, e5e1 are plain moves.
    assert_eq!(moves(WEAK, text), edit(&expected, &["e5e3", "e5e2", "e5e1"], &[]));
}

/// §3.2: kidnapping one's own king into check is illegal (see also
/// `kidnap_is_compulsory_in_alseid`), and so is a kidnap that takes away a
/// piece shielding one's own king.
#[test]
fn kidnap_leaving_own_king_attacked_is_illegal() {
    let text = "7k/8/8/8/3S3r/3P4/8/3K4[] w - - 0 1";
    for m in ["d4d5", "d4d6", "d4d7", "d4d8"] {
        assert!(uci::parse(&pos(ALSEID, text), m).is_err(), "{m} kidnaps Kd1 onto d4, attacked by Rh4");
    }
    // Alseid c4, screen Pd3, victim Ne2 which shields Ke1 from Re8.
    let text2 = "4r2k/8/8/8/2S5/3P4/4N3/4K3[] w - - 0 1";
    let expected = set(&[
        "e1d1", "e1d2", "e1f1", "e1f2", // king; the knight is pinned
        "d3d4", // pawn
        "c4c5", "c4c6", "c4c7", "c4c8", "c4c3", "c4c2", "c4c1", // N, S
        "c4d4", "c4e4", "c4f4", "c4g4", "c4h4", "c4b4", "c4a4", // E, W
        "c4d5", "c4e6", "c4f7", "c4g8", // NE
        "c4b3", "c4a2", // SW; NW (b5, a6) would kidnap Ne2 off the e-file
    ]);
    assert_eq!(moves(ALSEID, text2), expected);
    assert_eq!(moves(WEAK, text2), edit(&expected, &["c4a6"], &[]));
}

/// §3.2 / §0: legality is judged after the whole move, so a kidnap can answer
/// a check: by kidnapping one's own king out of it, or by kidnapping the
/// checking piece off its line.
#[test]
fn kidnap_can_answer_a_check() {
    // Ke1 in check from Re8. Alseid c3 blocks on e3 or e5, or moves
    // north-west kidnapping Ke1 (behind screen Pd2) onto c3.
    let text = "4r2k/8/8/8/8/2S5/3P4/4K3[] w - - 0 1";
    assert!(pos(ALSEID, text).is_check());
    assert_eq!(moves(ALSEID, text), set(&["e1d1", "e1f1", "e1f2", "c3e5", "c3e3", "c3b4", "c3a5"]));
    assert_eq!(after(ALSEID, text, "c3a5"), "4r2k/8/8/S7/8/2K5/3P4/8[] b - - 1 1");
    // Weak: c3a5 no longer kidnaps, so it leaves the king in check.
    assert_eq!(moves(WEAK, text), set(&["e1d1", "e1f1", "e1f2", "c3e5", "c3e3", "c3b4"]));
    // Ke1 in check from Ba5. Alseid c7 to d8 kidnaps the bishop (behind
    // screen Pb6) onto c7; c7c3 blocks.
    let text2 = "7k/2S5/1P6/b7/8/8/8/4K3[] w - - 0 1";
    assert!(pos(ALSEID, text2).is_check());
    let expected = set(&["e1d1", "e1e2", "e1f1", "e1f2", "c7c3", "c7d8"]);
    assert_moves_in_both(text2, &expected);
    assert_eq!(after(ALSEID, text2, "c7d8"), "3S3k/2b5/1P6/8/8/8/8/4K3[] b - - 1 1");
}

/// §3.2: legality after the whole move: an Alseid pinned to its king may
/// leave the pin line when its victim lands on the origin and keeps blocking.
#[test]
fn pinned_alseid_may_leave_line_when_victim_blocks() {
    // Ke1, Alseid e3 pinned by Re8. Moving west it kidnaps Nh3 (behind
    // screen Pf3) onto e3, which keeps the e-file closed.
    let text = "4r2k/8/8/8/8/4SP1n/8/4K3[] w - - 0 1";
    let expected = set(&[
        "e1d1", "e1d2", "e1e2", "e1f1", // king; f2 is attacked by the knight
        "f3f4", // pawn
        "e3e4", "e3e5", "e3e6", "e3e7", "e3e2", // along the pin line
        "e3d3", "e3c3", "e3b3", "e3a3", // west, kidnapping the knight onto e3
    ]);
    assert_eq!(moves(ALSEID, text), expected);
    assert_eq!(after(ALSEID, text, "e3a3"), "4r2k/8/8/8/8/S3nP2/8/4K3[] b - - 1 1");
    // Weak: only e3d3 kidnaps; the longer westward moves expose the king.
    assert_eq!(moves(WEAK, text), edit(&expected, &[], &["e3c3", "e3b3", "e3a3"]));
}

/// §3.2: a kidnapped king or rook loses its castling rights.
#[test]
fn kidnapped_king_or_rook_loses_castling_rights() {
    // Rook h8 kidnapped to h6: `k` goes.
    assert_eq!(after(ALSEID, "r3k2r/7p/7S/8/8/8/8/4K3[] w kq - 0 1", "h6h5"), "r3k3/7p/7r/7S/8/8/8/4K3[] b q - 1 1");
    // King e8 kidnapped to e6: both rights go.
    assert_eq!(
        after(ALSEID, "r3k2r/4p3/4S3/8/8/8/8/4K3[] w kq - 0 1", "e6e5"),
        "r6r/4p3/4k3/4S3/8/8/8/4K3[] b - - 1 1"
    );
    // White rook a1 kidnapped by a black Alseid: `Q` goes, `K` stays.
    assert_eq!(after(ALSEID, "4k3/8/8/8/8/s7/P7/R3K2R[] b KQ - 0 1", "a3a4"), "4k3/8/8/8/s7/R7/P7/4K2R[] w K - 1 2");
}

/// §3.2: a pawn kidnapped onto its own second rank may double-step from there.
#[test]
fn kidnapped_pawn_on_second_rank_may_double_step() {
    // Black Alseid d2 to e1 kidnaps Pb4 (behind screen c3) onto d2.
    let t = after(ALSEID, "7k/8/8/8/1P2p3/2p5/3s4/7K[] b - - 5 1", "d2e1");
    assert_eq!(t, "7k/8/8/8/4p3/2p5/3P4/4s2K[] w - - 0 2");
    assert_eq!(moves(ALSEID, &t), set(&["h1g1", "h1g2", "h1h2", "d2d3", "d2d4", "d2c3"]));
    let t2 = after(ALSEID, &t, "d2d4");
    assert_eq!(t2, "7k/8/8/8/3Pp3/2p5/8/4s2K[] b - d3 0 2");
    // And the double step can be taken en passant.
    let expected = set(&[
        "h8g8", "h8g7", "h8h7", // king
        "e4e3", "e4d3", // pawn e4, including en passant
        "c3c2", // pawn c3
        "e1e2", "e1e3", "e1d1", "e1c1", "e1b1", "e1a1", "e1f1", "e1g1", "e1d2", "e1f2", "e1g3", "e1h4", // Alseid
    ]);
    assert_eq!(moves(ALSEID, &t2), expected);
    assert_eq!(after(ALSEID, &t2, "e4d3"), "7k/8/8/8/8/2pp4/8/4s2K[] w - - 0 3");
}

/// §3.2: en passant only against a pawn that double-stepped on the previous
/// move: a pawn kidnapped two ranks forward cannot be taken en passant.
#[test]
fn en_passant_only_after_a_double_step() {
    // White Alseid d4 to e5 kidnaps Pb2 (behind screen Nc3) onto d4.
    let text = "7k/8/8/8/3Sp3/2N5/1P6/7K[] w - - 0 1";
    let t = after(ALSEID, text, "d4e5");
    assert_eq!(t, "7k/8/8/4S3/3Pp3/2N5/8/7K[] b - - 0 1");
    assert_eq!(moves(ALSEID, &t), set(&["h8g8", "h8g7", "h8h7", "e4e3"]));
    // The same pawn arriving by a double step can be taken.
    let t2 = after(ALSEID, "7k/8/8/8/4p3/2N5/3P4/7K[] w - - 0 1", "d2d4");
    assert_eq!(t2, "7k/8/8/8/3Pp3/2N5/8/7K[] b - d3 0 1");
    assert_eq!(moves(ALSEID, &t2), set(&["h8g8", "h8g7", "h8h7", "e4e3", "e4d3"]));
    // An en passant square without the pawn that made it: either rejected
    // or no en passant capture.
    if let Ok(p) = fen::parse(ALSEID, "7k/8/8/8/4p3/8/8/7K[] b - d3 0 1") {
        let list: Vec<String> = p.legal_moves().iter().map(|&m| uci::format(ALSEID, m)).collect();
        assert!(!list.iter().any(|m| m == "e4d3"), "{list:?}");
    }
}

/// §3.2: the fifty-move clock resets when a pawn is kidnapped, and only then
/// (a kidnapped piece or a pawn serving as screen do not reset it).
#[test]
fn fifty_move_clock_resets_only_when_a_pawn_is_kidnapped() {
    // Knight kidnapped, pawn d3 only the screen: clock runs on.
    assert_eq!(after(ALSEID, "7k/8/8/3S4/8/3p4/8/3n3K[] w - - 7 30", "d5d7"), "7k/3S4/8/3n4/8/3p4/8/7K[] b - - 8 30");
    // Plain Alseid move.
    assert_eq!(after(ALSEID, "7k/8/8/3S4/8/3p4/8/3n3K[] w - - 7 30", "d5h5"), "7k/8/8/7S/8/3p4/8/3n3K[] b - - 8 30");
    // Pawn kidnapped: reset.
    assert_eq!(after(ALSEID, "7k/8/8/8/3Sp3/2N5/1P6/7K[] w - - 7 30", "d4e5"), "7k/8/8/4S3/3Pp3/2N5/8/7K[] b - - 0 30");
    assert_eq!(
        after(ALSEID, "7k/8/8/8/1P2p3/2p5/3s4/7K[] b - - 7 30", "d2e1"),
        "7k/8/8/8/4p3/2p5/3P4/4s2K[] w - - 0 31"
    );
}

/// §3.2 / §2.3: a kidnapped gate home piece fires its gate: the reserve
/// Alseid enters its home square.
#[test]
fn kidnapped_home_piece_fires_gate() {
    // Black kidnaps White's Ng1: White's reserve Alseid enters g1.
    let text = "4k3/8/8/8/8/6s1/6P1/4K1N1[S@g] b - - 0 1";
    assert_afters(
        ALSEID,
        &[
            (text, "g3g4", "4k3/8/8/8/6s1/6N1/6P1/4K1S1[] w - - 1 2"),
            // Black kidnaps its own Ng8: Black's reserve Alseid enters g8.
            ("4k1n1/6p1/6s1/8/8/8/8/4K3[s@g] b - - 0 1", "g6g5", "4k1s1/6p1/6n1/6s1/8/8/8/4K3[] w - - 1 2"),
            // Black kidnaps White's king off its gate square: the Alseid
            // enters e1, and White's castling rights go with the king.
            ("4k3/8/8/8/8/4s3/4P3/R3K2R[S@e] b KQ - 0 1", "e3e4", "4k3/8/8/8/4s3/4K3/4P3/R3S2R[] w - - 1 2"),
        ],
    );
    // Same in the weak variant (one-step moves kidnap).
    assert_eq!(after(WEAK, text, "g3g4"), "4k3/8/8/8/6s1/6N1/6P1/4K1S1[] w - - 1 2");
    // Round trip of SAN for the gate-firing kidnap.
    let p = pos(ALSEID, text);
    let m = uci::parse(&p, "g3g4").expect("legal");
    assert_eq!(san::parse(&p, &san::format(&p, m)), Ok(m));
}

/// §3.1: pawns promote to Q, R, B, N or S.
#[test]
fn promotion_includes_alseid() {
    let text = "k7/4P3/8/8/8/8/8/7K[] w - - 0 1";
    let expected = set(&["e7e8q", "e7e8r", "e7e8b", "e7e8n", "e7e8s", "h1g1", "h1g2", "h1h2"]);
    assert_moves_in_both(text, &expected);
    for v in [ALSEID, WEAK] {
        assert_eq!(after(v, text, "e7e8s"), "k3S3/8/8/8/8/8/8/7K[] b - - 0 1", "{v:?}");
    }
}

// ---------------------------------------------------------------- §3.3 start

/// §3.3: the start position is Pioneer gating with one Alseid per side: the
/// same prelude as `alpaca`, perft 2, 10, 92, 1744.
#[test]
fn start_position_is_pioneer_gating() {
    let board = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    let f = |bracket: &str, side: &str| format!("{board}[{bracket}] {side} KQkq - 0 1");
    for v in [ALSEID, WEAK] {
        let start = AnyPosition::start(v);
        assert_eq!(fen::format(&start), f("Ss?", "w"), "{v:?}");
        let got: Vec<u64> = (1..=4).map(|d| start.perft(d)).collect();
        assert_eq!(got, [2, 10, 92, 1744], "{v:?}");
        let s0 = f("Ss?", "w");
        assert_eq!(moves(v, &s0), set(&["accept", "decline"]));
        let s1 = after(v, &s0, "accept");
        assert_eq!(s1, f("Ss", "w"));
        let places: BTreeSet<String> = ('a'..='h').map(|c| format!("S@{c}")).collect();
        assert_eq!(moves(v, &s1), places);
        let s2 = after(v, &s1, "S@g");
        assert_eq!(s2, f("S@gs", "b"));
        assert_eq!(moves(v, &s2), places);
        let s3 = after(v, &s2, "S@f");
        assert_eq!(s3, f("S@gs@f", "w"));
        assert_eq!(after(v, &s3, "g1f3"), "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKBSR[s@f] b KQkq - 1 1");
        let d1 = after(v, &s0, "decline");
        assert_eq!(d1, f("Ss?", "b"));
        assert_eq!(after(v, &d1, "decline"), f("", "w"));
        assert_eq!(after(v, &d1, "accept"), f("Ss", "w"));
    }
}

/// §2.2 (the prelude, shared with Alpaca Chess): a side in check during the
/// prelude has no legal move (prelude actions move nothing, and the mover's
/// king must not be attacked afterwards), so it is checkmated. Formerly
/// Black's `S@e` was generated here and `e1e8` then took the king.
#[test]
fn prelude_in_check_has_no_legal_move() {
    for v in [ALSEID, WEAK] {
        for (text, control, actions) in [
            // Black to place, checked by the rook on e1.
            ("4k3/8/8/8/8/8/8/4R1K1[s] b - - 0 1", "4k3/8/8/8/8/8/8/3R2K1[s] b - - 0 1", &["S@e"][..]),
            // White to place, checked by the rook on e8.
            ("4r1k1/8/8/8/8/8/8/4K3[Ss] w - - 0 1", "3r2k1/8/8/8/8/8/8/4K3[Ss] w - - 0 1", &["S@e"][..]),
            // The decision, by White and (after White declined) by Black.
            (
                "4r1k1/8/8/8/8/8/8/4K3[Ss?] w - - 0 1",
                "3r2k1/8/8/8/8/8/8/4K3[Ss?] w - - 0 1",
                &["accept", "decline"][..],
            ),
            (
                "4k3/8/8/8/8/8/8/4R1K1[Ss?] b - - 0 1",
                "4k3/8/8/8/8/8/8/3R2K1[Ss?] b - - 0 1",
                &["accept", "decline"][..],
            ),
        ] {
            let p = pos(v, text);
            assert!(p.is_check(), "{text}");
            assert_eq!(moves(v, text), BTreeSet::new(), "{v:?} {text}");
            let winner = p.side_to_move().flip();
            assert_eq!(p.outcome(), Some(Outcome::Win { winner, reason: WinReason::Checkmate }), "{text}");
            assert_eq!((1..=3).map(|d| p.perft(d)).collect::<Vec<_>>(), [0, 0, 0], "{v:?} {text}");
            for a in actions {
                let e = menagerie_notation::parse_move(&p, a).expect_err(a);
                assert!(e.to_string().contains("checkmate"), "{text} {a}: {e}");
            }
            // Out of check, the same state has exactly those actions.
            assert_eq!(moves(v, control), set(actions), "{v:?} {control}");
        }
    }
}

// ---------------------------------------------------------------- SAN

/// SAN of kidnapping moves: the exact form `Sd5-d7(Nd1-d5)`, a victimless
/// move written `Sd4`, and `parse(format(m)) == m` for every legal move of
/// several kidnap-rich positions.
#[test]
fn san_round_trip_of_kidnapping_moves() {
    let text = "7k/8/8/3S4/8/3p4/8/3n3K[] w - - 0 1";
    assert_eq!(san_of(ALSEID, text, "d5d7"), "Sd5-d7(Nd1-d5)");
    assert_eq!(san_of(ALSEID, text, "d5d4"), "Sd4");
    let p = pos(ALSEID, text);
    assert_eq!(san::parse(&p, "Sd5-d7(Nd1-d5)").ok(), uci::parse(&p, "d5d7").ok());
    for (v, text) in [
        (ALSEID, text),
        (WEAK, text),
        (ALSEID, "4k3/8/4P3/R3S3/8/8/8/7K[] w - - 0 1"),
        (ALSEID, "4r2k/8/8/8/2S5/3P4/4N3/4K3[] w - - 0 1"),
        (WEAK, "4r2k/8/8/8/2S5/3P4/4N3/4K3[] w - - 0 1"),
        (ALSEID, "7k/8/8/8/1P2p3/2p5/3s4/7K[] b - - 5 1"),
        (ALSEID, "r3k2r/4p3/4S3/8/8/8/8/4K3[] w kq - 0 1"),
        (ALSEID, "4k1n1/6p1/6s1/8/8/8/8/4K3[s@g] b - - 0 1"),
    ] {
        let p = pos(v, text);
        for &m in p.legal_moves().iter() {
            let s = san::format(&p, m);
            assert_eq!(san::parse(&p, &s), Ok(m), "{v:?} {text}: {s}");
        }
    }
}

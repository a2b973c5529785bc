#![allow(clippy::unwrap_used)]
//! RULES.md §2.2: a side in check during the prelude of a gating variant
//! (reachable only from a FEN) has no legal move, so it is checkmated. The
//! engine used to generate a placement there, search the king capture after
//! it and die on a table index out of bounds; now it answers `bestmove
//! (none)` (UCI) or the result (XBoard) and goes on.

mod common;

use common::{Engine, QUICK, legal_wire, position_after};
use menagerie_variants::VariantId;

/// The prelude positions in check, per variant, with the side to move mated.
const IN_CHECK: &[(&str, &str)] = &[
    // Black to place its Alpaca, checked by the rook on e1.
    ("alpaca", "4k3/8/8/8/8/8/8/4R1K1[a] b - - 0 1"),
    // Two Alpacas to place.
    ("alpaca2", "3rk3/8/8/8/8/8/8/4R1K1[aa] b - - 0 1"),
    // The decision (accept/decline), White in check.
    ("alpaca", "4r1k1/8/8/8/8/8/8/4K3[Aa?] w - - 0 1"),
    // Black to place its Alseid.
    ("alseid", "4k3/8/8/8/8/8/8/4R1K1[s] b - - 0 1"),
    ("alseid-weak", "4k3/8/8/8/8/8/8/4R1K1[s] b - - 0 1"),
];

fn uci_engine() -> Engine {
    let mut e = Engine::start();
    e.send("uci");
    e.read_until(QUICK, |l| l == "uciok");
    e
}

#[test]
fn uci_go_in_a_prelude_in_check_answers_bestmove_none_and_stays_alive() {
    let mut e = uci_engine();
    for &(variant, fen) in IN_CHECK {
        e.send(&format!("setoption name UCI_Variant value {variant}"));
        e.send(&format!("position fen {fen}"));
        for go in ["go depth 3", "go depth 1", "go movetime 100", "go nodes 1000"] {
            e.send(go);
            let (_, best) = e.bestmove(QUICK);
            assert_eq!(best, "(none)", "{variant} {fen}: {go}");
            assert!(e.alive(), "{variant} {fen}: {go}: the engine died");
        }
        // No legal move: perft is 0 at every depth.
        e.send("go perft 3");
        assert_eq!(e.read_until_prefix("Nodes searched", QUICK).last().unwrap(), "Nodes searched: 0", "{fen}");
        // A prelude action given anyway is refused, and the engine goes on.
        let action = if fen.contains('?') {
            "accept"
        } else if variant == "alpaca2" {
            "A@de"
        } else {
            "A@e"
        };
        let action = if variant.starts_with("alseid") { "S@e" } else { action };
        e.send(&format!("position fen {fen} moves {action}"));
        e.sync();
        assert!(e.alive(), "{fen} moves {action}: the engine died");
    }
    // Still searching normally afterwards: the same state out of check.
    e.send("setoption name UCI_Variant value alpaca");
    let control = "4k3/8/8/8/8/8/8/3R2K1[a] b - - 0 1";
    e.send(&format!("position fen {control}"));
    e.send("go depth 3");
    let (_, best) = e.bestmove(QUICK);
    assert_eq!(best, "A@e8");
    legal_wire(&position_after(VariantId::Alpaca, Some(control), &[]), &best).unwrap();
    e.quit(Some("quit"));
}

#[test]
fn xboard_go_in_a_prelude_in_check_gives_the_result() {
    let mut e = Engine::start();
    e.send_all(&["xboard", "protover 2"]);
    e.read_until(QUICK, |l| l.contains("done=1"));
    e.send_all(&["new", "variant alpaca", "force", "setboard 4k3/8/8/8/8/8/8/4R1K1[a] b - - 0 1", "go"]);
    let lines = e.read_until(QUICK, |l| l.starts_with("1-0"));
    assert!(!lines.iter().any(|l| l.starts_with("move")), "{lines:?}");
    assert_eq!(lines.last().unwrap(), "1-0 {White mates}");
    assert!(e.alive());
    e.quit(Some("quit"));
}

/// Issue 45 item 3: from the start of every gating game the engine accepts
/// the reserve pieces (it used to answer `bestmove 0000` and play orthodox
/// chess), at node and depth limits, and places them next.
#[test]
fn uci_go_from_a_gating_start_accepts_and_places() {
    let mut e = uci_engine();
    for variant in ["alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak"] {
        e.send(&format!("setoption name UCI_Variant value {variant}"));
        for go in ["go nodes 5000", "go depth 3"] {
            e.send("position startpos");
            e.send(go);
            let (_, best) = e.bestmove(QUICK);
            assert_eq!(best, "K@e1", "{variant}: {go}");
            // After the accept, White places a reserve piece.
            e.send("position startpos moves K@e1");
            e.send(go);
            let (_, place) = e.bestmove(QUICK);
            let id = VariantId::from_name(variant).unwrap();
            let after = position_after(id, None, &["accept"]);
            let m = legal_wire(&after, &place).unwrap();
            assert_eq!(m.kind, menagerie_variants::MoveKind::Place, "{variant}: {go}: {place}");
        }
    }
    e.quit(Some("quit"));
}

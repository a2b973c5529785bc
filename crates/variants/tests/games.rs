//! The compiled games through the crate's own API only (no FEN, no
//! notation): start-position perft against published or oracle-checked
//! counts, copy-make leaving the parent untouched, the incremental hash
//! equal to one computed from scratch, and positions surviving a round trip
//! through `Setup`. Notation-level properties (FEN, SAN, random playouts
//! with text) are in `crates/notation/tests`.

use menagerie_geometry::{Board8x8, Shape};
use menagerie_variants::{AnyPosition, Game, Move, Outcome, VariantId};

/// Start-position perft counts. Chess: the published counts; the others:
/// `tests/perft/*.epd` (checked against Fairy-Stockfish and an independent
/// implementation, see those files).
const START_PERFT: &[(&str, &[u64])] = &[
    ("chess", &[20, 400, 8_902, 197_281]),
    ("alpaca", &[2, 10, 92, 1_744, 35_782]),
    ("alpaca2", &[2, 28, 722, 14_596]),
    ("alpaca-samefile", &[2, 10, 36, 568, 12_262]),
    ("alseid", &[2, 10, 92, 1_744, 35_782]),
    ("alseid-weak", &[2, 10, 92, 1_744, 35_782]),
    ("camel-rhino", &[105, 11_016]),
];

fn start(name: &str) -> AnyPosition {
    let v = VariantId::from_name(name).unwrap_or_else(|| panic!("no compiled game {name}"));
    AnyPosition::start(v)
}

/// Whether the build compiled the served game `name` (an edited
/// `menagerie.ini` may leave one to the data engine: its counts here are
/// then not the compiled core's to check).
fn compiled(name: &str) -> bool {
    let declared = VariantId::DECLARED.iter().find(|v| v.name() == name);
    declared.unwrap_or_else(|| panic!("{name} is not a served game")).not_compiled().is_none()
}

#[test]
fn start_positions_have_the_oracles_perft_counts() {
    for &(name, counts) in START_PERFT.iter().filter(|(name, _)| compiled(name)) {
        let pos = start(name);
        for (depth, &want) in (1..).zip(counts) {
            assert_eq!(pos.perft(depth), want, "{name} perft {depth}");
        }
        // divide sums to perft, and names each legal move once.
        let divide = pos.divide(2);
        assert_eq!(divide.len() as u64, counts[0], "{name}");
        assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), counts[1], "{name}");
    }
}

#[test]
fn every_served_game_has_a_start_perft_here() {
    for &v in VariantId::ALL {
        let listed = START_PERFT.iter().any(|(name, _)| *name == v.name());
        assert!(listed || v.name() == "chess960", "{}: add its start perft to START_PERFT", v.name());
    }
}

/// Walks `plies` moves from `pos`, taking the `pick`-th legal move at each
/// step, checking copy-make and hashing at every node.
fn walk(mut pos: AnyPosition, plies: usize, mut pick: u64) {
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            assert!(pos.outcome().is_some(), "no legal moves but no outcome: {:?}", pos.to_setup());
            return;
        }
        assert_eq!(pos.hash(), pos.compute_hash(), "incremental hash drifted");
        let before = pos.to_setup();
        let before_hash = pos.hash();
        for &m in moves.iter() {
            let child = pos.play(m).expect("a legal move plays");
            assert_eq!(child.hash(), child.compute_hash(), "hash after {m:?}");
            // A move passes the turn (a prelude action may not: the
            // acceptor of the reserve pieces places them next).
            if !m.is_prelude() {
                assert_ne!(child.side_to_move(), pos.side_to_move(), "{m:?} passes the turn");
            }
        }
        // Copy-make: the parent is untouched by playing its children.
        assert_eq!(pos.to_setup(), before);
        assert_eq!(pos.hash(), before_hash);
        // A round trip through Setup gives the same position.
        let again = AnyPosition::from_setup(pos.variant(), &before).expect("its own setup is valid");
        assert_eq!(again.hash(), pos.hash());
        assert_eq!(again.count_legal(), moves.len() as u64);
        // A simple deterministic generator: the walk is the same every run.
        pick = pick.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let m = moves[(pick >> 33) as usize % moves.len()];
        pos = pos.play(m).expect("a legal move plays");
    }
}

#[test]
fn copy_make_keeps_parents_and_hashes_exact_in_every_game() {
    for &v in VariantId::ALL {
        for seed in 0..4 {
            walk(AnyPosition::start(v), 60, seed);
        }
    }
}

#[test]
fn a_game_records_moves_and_counts_repetitions() {
    let mut game = Game::new(start("chess"));
    // Knights out and back twice: the start position occurs three times.
    let names = [("g1", "f3"), ("g8", "f6"), ("f3", "g1"), ("f6", "g8")];
    let square = |s: &str| Board8x8::parse_square(s).unwrap_or_else(|| panic!("square {s}"));
    for _ in 0..2 {
        for (from, to) in names {
            game.play(Move::normal(square(from), square(to))).expect("legal");
        }
    }
    assert_eq!(game.moves().len(), 8);
    assert_eq!(game.repetitions(), 3);
    assert_eq!(game.position().hash(), game.start().hash());
    assert!(!matches!(game.outcome(), Some(Outcome::Win { .. })));
}

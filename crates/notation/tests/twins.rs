//! The twin of a position defined as data on the compiled core: along
//! seeded random games of every compiled game's definition, each position
//! has a twin with corresponding legal moves, and moves map both ways to
//! twin positions.

#![allow(clippy::unwrap_used)]

use menagerie_notation::twin;
use menagerie_rules::{Definitions, MENAGERIE_INI, Position};
use menagerie_testkit::Rng;
use menagerie_variants::VariantId;

#[test]
fn random_games_keep_their_twins_move_for_move() {
    let mut defs = Definitions::builtin();
    defs.load(MENAGERIE_INI, "menagerie.ini").unwrap();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut checked = 0;
    for &id in VariantId::EVERY {
        let def = defs.get(id.name()).unwrap().clone();
        for game in 0..3 {
            let mut p = Position::start(&def);
            for ply in 0..80 {
                let c =
                    twin::compiled(&p).unwrap_or_else(|| panic!("{id} game {game} ply {ply}: no twin of {}", p.fen()));
                assert_eq!(c.variant(), id);
                assert!(twin::moves_correspond(&p, &c), "{id}: moves differ in {}", p.fen());
                let legal = p.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let dm = legal[rng.below(legal.len())];
                let m =
                    twin::to_compiled(&p, &c, dm).unwrap_or_else(|| panic!("{id}: {} in {}", p.move_text(dm), p.fen()));
                assert_eq!(twin::to_data(&p, &c, m), Some(dm), "{id}: {} in {}", p.move_text(dm), p.fen());
                let line = twin::line_to_data(&p, &c, &[m]);
                assert_eq!(line, [dm]);
                p = p.play(dm);
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked} moves");
}

//! The served games and the compiled core: every game `build.rs` compiled
//! plays its definition exactly and answers to its name; a game it could
//! not compile (an edited `menagerie.ini`) is in no list, answers to no
//! name and gives its reason, so that the data engine serves it.

use menagerie_rules::{Definitions, MENAGERIE_INI, VariantDef};
use menagerie_variants::VariantId;
use std::sync::Arc;

fn definitions() -> Definitions {
    let mut defs = Definitions::builtin();
    defs.load(MENAGERIE_INI, "menagerie.ini").expect("menagerie.ini loads");
    defs
}

fn def(defs: &Definitions, name: &str) -> Arc<VariantDef> {
    defs.get(name).cloned().unwrap_or_else(|| panic!("no section [{name}]"))
}

#[test]
fn compiled_games_play_their_sections_and_the_others_say_why() {
    let defs = definitions();
    for &id in VariantId::DECLARED {
        let d = def(&defs, id.name());
        match id.not_compiled() {
            None => {
                assert_eq!(id.plays(&d), Ok(()), "{id}");
                assert_eq!(VariantId::from_name_including_tests(id.name()), Some(id));
                assert!(VariantId::EVERY.contains(&id));
                assert_eq!(VariantId::ALL.contains(&id), !id.is_test_only(), "{id}");
                assert_eq!(id.start_fen(), d.start_fen, "{id}");
            }
            Some(why) => {
                assert!(!why.is_empty());
                assert_eq!(id.plays(&d), Err(why.to_string()), "{id}");
                assert_eq!(VariantId::from_name_including_tests(id.name()), None, "{id}");
                assert!(!VariantId::EVERY.contains(&id) && !VariantId::ALL.contains(&id), "{id}");
                assert_eq!(VariantId::playing(&d), None, "{id}");
            }
        }
    }
    // Every compiled game is a declared one, in the same order.
    let declared: Vec<VariantId> = VariantId::DECLARED.iter().copied().filter(|v| v.not_compiled().is_none()).collect();
    assert_eq!(VariantId::EVERY, declared.as_slice());
}

#[test]
fn a_section_with_a_piece_no_compiled_kind_has_is_not_played_by_a_compiled_game() {
    let mut defs = definitions();
    let ini = "[chess-nightrider:chess]\ncustomPiece1 = x:NN\n\
               startFen = rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w Qkq - 0 1\n\
               [alpaca-again:alpaca]\n\
               [alpaca-nightrider:alpaca]\ncustomPiece2 = x:NN\n";
    defs.load(ini, "test.ini").expect("loads");
    for name in ["chess-nightrider", "alpaca-nightrider"] {
        assert_eq!(VariantId::playing(&def(&defs, name)), None, "{name}");
        for &id in VariantId::EVERY {
            let why = id.plays(&def(&defs, name)).expect_err(name);
            assert_eq!(why, "no compiled piece is 'X' moving as NN", "{id} {name}");
        }
    }
    // The same rules under another name are played by the compiled game
    // (when the build compiled it), but it is not that game's own section.
    if let Some(alpaca) = VariantId::from_name("alpaca") {
        let again = def(&defs, "alpaca-again");
        assert_eq!(VariantId::playing(&again), Some(alpaca));
        assert_eq!(alpaca.plays(&again), Ok(()));
        let chess = VariantId::from_name("chess").expect("chess compiles");
        assert!(chess.plays(&again).is_err());
    }
}

//! A served game whose section gains a piece no compiled kind moves as is
//! served on the data engine under its own name (issue 47, item 5): the
//! catalogue resolves it to its definition, lists it as data with the
//! reason, and its legal moves include the new piece's. The shipped
//! `menagerie.ini` is not edited: the test loads an edited copy of the
//! embedded text.

use menagerie_app::perft::Perft;
use menagerie_app::{GamePosition, PositionRequest, VariantRef, Variants, compiled_twin};
use menagerie_rules::{Definitions, MENAGERIE_INI};
use menagerie_variants::VariantId;
use std::collections::BTreeSet;

/// Camel and Rhino Chess with a nightrider (`X`, Betza `NN`) on a6.
const NIGHTRIDER: &str = "[camel-rhino:camel-rhino-plain]\ncustomPiece5 = x:NN\n\
    startFen = r8r/1hzbqkbnc1/pppp2pppp/4ww4/X9/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1\n";

/// The served games with `[camel-rhino]` as [`NIGHTRIDER`] has it.
fn with_nightrider() -> Variants {
    let ini = MENAGERIE_INI.replacen("[camel-rhino:camel-rhino-plain]\n", NIGHTRIDER, 1);
    assert_ne!(ini, MENAGERIE_INI, "menagerie.ini has a [camel-rhino] section");
    let mut definitions = Definitions::builtin();
    definitions.load(&ini, "menagerie.ini").expect("the edited menagerie.ini loads");
    Variants::from_definitions(definitions)
}

fn legal(variants: &Variants, name: &str) -> BTreeSet<String> {
    let none: &[&str] = &[];
    let list = variants.legal_moves(&PositionRequest::new(name, "", none)).expect("the start position");
    list.moves.into_iter().map(|m| m.uci).collect()
}

#[test]
fn the_shipped_games_are_served_compiled() {
    let v = Variants::builtin();
    for &id in VariantId::ALL {
        assert!(matches!(v.find(id.name()), Ok(VariantRef::Compiled(c)) if c == id), "{id}");
        assert_eq!(v.not_compiled(id.name()), None, "{id}");
    }
    // A game the build could not compile (an edited menagerie.ini) is on the
    // data engine, under its name.
    for &id in VariantId::DECLARED.iter().filter(|id| id.not_compiled().is_some() && !id.is_test_only()) {
        assert!(matches!(v.find(id.name()), Ok(VariantRef::Data(d)) if d.name == id.name()), "{id}");
        assert!(v.not_compiled(id.name()).is_some(), "{id}");
    }
}

#[test]
fn a_served_game_with_a_new_piece_runs_on_the_data_engine_under_its_name() {
    let v = with_nightrider();
    let why = "no compiled piece is 'X' moving as NN";
    assert_eq!(v.not_compiled("camel-rhino"), Some(why));
    match v.find("Camel-Rhino").expect("served") {
        VariantRef::Data(def) => assert_eq!(def.name, "camel-rhino"),
        VariantRef::Compiled(id) => panic!("served compiled as {id}"),
    }
    assert!(v.iter().all(|id| id.name() != "camel-rhino"));
    let on_data = |name: &str| v.catalogue().iter().any(|i| i.name == name && i.defined_as_data);
    assert!(on_data("camel-rhino"));
    assert!(v.lookup("camel-rhino").is_err(), "no compiled game answers to the name");
    // The other served games stay compiled, the test-only rule set hidden.
    for name in ["chess", "alpaca", "alseid", "chess960"].into_iter().filter(|n| VariantId::from_name(n).is_some()) {
        assert!(matches!(v.find(name), Ok(VariantRef::Compiled(_))), "{name}");
    }
    assert!(v.all_names().iter().all(|n| n != "camel-rhino-plain"));
    // The catalogue says so.
    let info = v.catalogue().into_iter().find(|i| i.name == "camel-rhino").expect("listed");
    assert!(info.defined_as_data);
    assert!(info.summary.contains(&format!("not compiled: {why}")), "{}", info.summary);
    assert!(info.pieces.iter().any(|p| p.letter == 'X' && p.betza == "NN"));
}

#[test]
fn the_new_piece_has_its_moves() {
    let shipped = legal(&Variants::builtin(), "camel-rhino");
    let edited = legal(&with_nightrider(), "camel-rhino");
    // The nightrider on a6: b8 and g9 captured, c7, e8, c5, b4 (e4 and c2
    // hold friends). Nothing else changes.
    let nightrider: BTreeSet<String> =
        ["a6b8", "a6c7", "a6e8", "a6g9", "a6c5", "a6b4"].into_iter().map(String::from).collect();
    assert_eq!(shipped.len(), 105);
    assert_eq!(edited.difference(&shipped).cloned().collect::<BTreeSet<_>>(), nightrider);
    assert!(shipped.is_subset(&edited));
    assert_eq!(edited.len(), 111);
    // Perft through the catalogue counts on the data engine, with no
    // compiled twin to hand the count to.
    let v = with_nightrider();
    let none: &[&str] = &[];
    let start = v.game_position(&PositionRequest::new("camel-rhino", "", none)).expect("start");
    match &start {
        GamePosition::Data(p) => assert!(compiled_twin(p).is_none(), "a compiled game plays the nightrider"),
        GamePosition::Compiled(_) => panic!("compiled"),
    }
    assert_eq!(start.perft(1), 111);
    assert_eq!(Perft::new(start).root_moves(), 111);
}

//! The committed seed corpus passes every target (a regression suite for
//! crashes once found: their inputs go into the corpus after the fix).

use menagerie_fuzz::driver::{load_corpus, run_one};
use menagerie_fuzz::{TARGETS, target};
use std::path::PathBuf;

fn corpus(name: &str) -> Vec<Vec<u8>> {
    load_corpus(&[PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus").join(name)])
}

#[test]
fn every_target_has_a_corpus_and_builtin_seeds() {
    for t in TARGETS {
        assert!(!corpus(t.name).is_empty(), "{}: empty corpus", t.name);
        assert!(!(t.seeds)().is_empty(), "{}: no built-in seeds", t.name);
    }
}

#[test]
fn the_corpus_passes_the_text_targets() {
    for name in ["fen", "moves", "epd"] {
        let Some(t) = target(name) else { panic!("no target {name}") };
        for input in corpus(name) {
            if let Err((msg, bt)) = run_one(&t, &input) {
                panic!("{name}: {msg}\ninput {:?}\n{bt}", String::from_utf8_lossy(&input));
            }
        }
    }
}

#[test]
fn text_inputs_that_are_not_positions_are_harmless() {
    for input in [&b""[..], b"\n", b"\n\n\n", b"\xff\xfe", b"chess\n\n\xff", b"camel-rhino\n10/10\n\n;D1 2"] {
        menagerie_fuzz::fen(input);
        menagerie_fuzz::moves(input);
        menagerie_fuzz::epd(input);
    }
}

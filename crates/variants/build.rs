//! Compiles Menagerie's games from their definitions.
//!
//! Every game the compiled core plays is a section of a `variants.ini`
//! file: `chess` and `chess960` of the built-in file
//! (`crates/rules/variants.ini`), the others of `crates/rules/menagerie.ini`.
//! This script reads them through `menagerie-rules` and writes each one's
//! name, board, start position and rule constants to `games.rs`, which
//! `src/variant.rs` turns into the `Variant` types that the generator is
//! monomorphised over (`compile::games_rs`). A definition that the compiled
//! mechanisms cannot play exactly (a piece whose movement no compiled kind
//! has, a rule outside the compiled options) does not stop the build: the
//! game gets a stand-in and the reason, is left out of the compiled games,
//! and runs on the data engine; the build says so with one warning per
//! game. Only files that do not load at all (a malformed line, an
//! unparsable Betza string) stop it, with the loader's message.

use menagerie_rules::{Definitions, MENAGERIE_INI};

#[path = "src/compile.rs"]
mod compile;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/compile.rs");
    println!("cargo::rerun-if-changed=../rules/menagerie.ini");
    println!("cargo::rerun-if-changed=../rules/variants.ini");
    let mut defs = Definitions::builtin();
    if let Err(e) = defs.load(MENAGERIE_INI, "crates/rules/menagerie.ini") {
        // Neither engine could serve these games: say why, without a panic.
        eprintln!("error: {e}");
        std::process::exit(1);
    }
    let (out, fallen) = compile::games_rs(&defs);
    for f in &fallen {
        println!("cargo::warning=[{}] runs on the data engine, not compiled: {}", f.section, f.why);
    }
    let dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(std::path::Path::new(&dir).join("games.rs"), out).expect("OUT_DIR is writable");
}

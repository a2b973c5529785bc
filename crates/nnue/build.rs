//! Embeds every network file `nets/<variant>.nnue` that exists into the
//! crate (`menagerie_nnue::embedded`).

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("nets");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut nets: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "nnue"))
        .filter_map(|p| Some((p.file_stem()?.to_str()?.to_string(), p.clone())))
        .collect();
    nets.sort();
    let mut out = String::from(
        "/// The embedded networks: (variant name, file bytes).\npub static EMBEDDED: &[(&str, &[u8])] = &[\n",
    );
    for (name, path) in &nets {
        println!("cargo:rerun-if-changed={}", path.display());
        let _ = writeln!(out, "    ({name:?}, include_bytes!({:?})),", path.display().to_string());
    }
    out.push_str("];\n");
    let file = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default()).join("embedded.rs");
    if let Err(e) = std::fs::write(&file, out) {
        panic!("cannot write {}: {e}", file.display());
    }
}

//! `menagerie match` in variants defined as data: the command line accepts
//! them (built in and from `--variants`), refuses what cannot play them
//! (XBoard engines, openings of another variant) with a clear error, and — with
//! Fairy-Stockfish (`MENAGERIE_FAIRY_STOCKFISH` or `fairy-stockfish` on the
//! PATH; otherwise that test prints why and passes) — plays a variant of a
//! user's file.

mod common;

use common::{lost_match, root, run, stderr, stdout};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fairy_stockfish() -> Option<PathBuf> {
    match std::env::var_os("MENAGERIE_FAIRY_STOCKFISH") {
        Some(p) if Path::new(&p).is_file() => Some(PathBuf::from(p)),
        _ => {
            let path = std::env::var_os("PATH")?;
            std::env::split_paths(&path).map(|d| d.join("fairy-stockfish")).find(|p| p.is_file())
        }
    }
}

fn temp(name: &str, text: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("match-data-{}-{name}", std::process::id()));
    std::fs::write(&path, text).expect("write the temporary file");
    path
}

fn last_json(out: &str) -> Value {
    serde_json::from_str(out.lines().last().unwrap_or("")).expect("the standings as JSON")
}

/// Engines that cannot start lose at once: enough to see a data variant accepted.
#[test]
fn data_variants_are_accepted() {
    for variant in ["capablanca", "Makruk", "seirawan"] {
        let o = run(&[
            "--json",
            "match",
            "--quiet",
            "--variant",
            variant,
            "--engine",
            "cmd=/nonexistent/a name=A",
            "--engine",
            "cmd=/nonexistent/b name=B variant.makruk=thai",
            "--depth",
            "1",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v = last_json(&stdout(&o));
        assert_eq!(v["variant"].as_str(), Some(variant.to_ascii_lowercase().as_str()), "{v}");
        assert_eq!(v["finished"].as_u64(), Some(2));
    }
    let o = run(&["match", "--help"]);
    assert!(stdout(&o).contains("capablanca") && stdout(&o).contains("--variants FILE"), "{}", stdout(&o));
}

#[test]
fn what_cannot_play_data_variants_is_a_clear_error() {
    let o = run(&[
        "match",
        "--variant",
        "makruk",
        "--engine",
        "cmd=/nonexistent/a proto=xboard name=XB",
        "--engine",
        "cmd=/nonexistent/b",
        "--depth",
        "1",
    ]);
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("'XB' speaks XBoard") && stderr(&o).contains("UCI engines only"), "{}", stderr(&o));
    let book = temp("book.pgn", "[Variant \"makruk\"]\n\n1. e5 *\n");
    let o = match_openings("makruk", &book);
    let _ = std::fs::remove_file(&book);
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("game 1, line 3: move 1. (White): 'e5' is illegal"), "{}", stderr(&o));
    // A FEN of another variant in an EPD file is refused, naming the line.
    let epd = temp("bad.epd", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n");
    let o = match_openings("capablanca", &epd);
    let _ = std::fs::remove_file(&epd);
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("line 1"), "{}", stderr(&o));
}

#[test]
fn fairy_stockfish_plays_a_variant_of_a_users_file() {
    let Some(fsf) = fairy_stockfish() else {
        println!("skipped: no Fairy-Stockfish (set MENAGERIE_FAIRY_STOCKFISH or put fairy-stockfish on the PATH)");
        return;
    };
    let ini = root().join("tests/variants/example.ini");
    let ini = ini.canonicalize().expect("the example variants file");
    let ini = ini.to_str().expect("UTF-8 path");
    let fsf = fsf.to_str().expect("UTF-8 path");
    if !loads_custom_pieces(fsf, ini) {
        println!("skipped: this Fairy-Stockfish cannot load custom pieces (Debian's 11.1); build it from source");
        return;
    }
    let pgn = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("match-data-cannons-{}.pgn", std::process::id()));
    let a = format!("cmd={fsf} name=A option.VariantPath={ini}");
    let b = format!("cmd={fsf} name=B option.VariantPath={ini}");
    let o = run(&[
        "--variants",
        ini,
        "--json",
        "match",
        "--quiet",
        "--variant",
        "cannons",
        "--engine",
        &a,
        "--engine",
        &b,
        "--nodes",
        "2000",
        "--max-moves",
        "150",
        "--pgn-out",
        pgn.to_str().expect("UTF-8 path"),
    ]);
    let text = std::fs::read_to_string(&pgn).unwrap_or_default();
    let _ = std::fs::remove_file(&pgn);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = last_json(&stdout(&o));
    assert_eq!(v["finished"].as_u64(), Some(2), "{v}");
    let ends = v["terminations"].as_object().expect("terminations");
    assert!(ends.keys().all(|k| k == "normal" || k == "adjudication"), "{v}\n{text}");
    assert_eq!(text.matches("[Variant \"cannons\"]").count(), 2, "{text}");
    assert!(!text.contains("[FEN"), "{text}");
}

/// Whether the engine at `fsf` plays the `cannons` variant of `ini` as
/// defined: its perft 3 must be the count pyffish gives (Debian's
/// Fairy-Stockfish 11.1 loads the file but not its custom pieces).
fn loads_custom_pieces(fsf: &str, ini: &str) -> bool {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let Ok(mut child) = Command::new(fsf).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn()
    else {
        return false;
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = writeln!(
            stdin,
            "setoption name VariantPath value {ini}\nsetoption name UCI_Variant value cannons\nposition startpos\ngo perft 3\nquit"
        );
    }
    let out = child.wait_with_output().map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    out.lines().any(|l| l.trim() == "Nodes searched: 19396")
}

/// A match of `variant` from the openings file `book` between two engines
/// that do not exist (the openings are read, and refused, first).
fn match_openings(variant: &str, book: &Path) -> std::process::Output {
    run(&lost_match(&["--variant", variant, "--openings", book.to_str().expect("UTF-8")]))
}

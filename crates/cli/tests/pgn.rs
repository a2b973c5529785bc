//! Drives `menagerie pgn` on the files in `tests/pgn/`: re-export (stable on
//! a second pass), `--check` (exit 1 naming each bad game), `--fen`,
//! `--uci` and `--coordinates` (the UCI moves read back to the same final
//! positions), standard input, and the exit codes.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `menagerie ARGS` from the repository root with `stdin` as input.
fn run_with(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the menagerie binary runs");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).expect("stdin written");
    drop(input);
    let out = child.wait_with_output().expect("finishes");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "menagerie {args:?} panicked:\n{stderr}");
    out
}

fn run(args: &[&str]) -> Output {
    run_with(args, "")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

/// Runs and expects exit 0; returns stdout.
#[track_caller]
fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert_eq!(o.status.code(), Some(0), "menagerie {args:?}: {}", text(&o.stderr));
    text(&o.stdout)
}

#[test]
fn export_is_normalised_and_stable() {
    // selfplay.pgn: real engine games (`menagerie match`), one per variant.
    for file in ["tests/pgn/orthodox.pgn", "tests/pgn/variants.pgn", "tests/pgn/selfplay.pgn"] {
        let once = ok(&["pgn", file]);
        assert!(once.starts_with("[Event "), "{once}");
        let o = run_with(&["pgn", "-"], &once);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert_eq!(text(&o.stdout), once, "re-exporting {file} changes it");
    }
    // The variants fixture is already in export form.
    let fixture = std::fs::read_to_string(root().join("tests/pgn/variants.pgn")).expect("test data");
    assert_eq!(ok(&["pgn", "tests/pgn/variants.pgn"]), fixture);
}

#[test]
fn check_counts_games_and_names_bad_ones() {
    assert_eq!(ok(&["pgn", "--check", "tests/pgn/variants.pgn"]), "8 games, 0 bad\n");
    assert_eq!(ok(&["pgn", "--check", "tests/pgn/orthodox.pgn"]), "2 games, 0 bad\n");
    let o = run(&["pgn", "--check", "tests/pgn/bad.pgn"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), "4 games, 2 bad\n");
    let err = text(&o.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert_eq!(
        lines[0],
        "tests/pgn/bad.pgn: game 2 (Carol - Dave), line 13: move 3. (White): 'Ke3' is illegal here: \
         a king on e1 cannot move to e3"
    );
    assert!(lines[1].starts_with("tests/pgn/bad.pgn: game 3, line 16: unknown variant 'Tamerlane'"), "{err}");
}

#[test]
fn bad_games_are_skipped_by_every_mode() {
    let o = run(&["pgn", "tests/pgn/bad.pgn"]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(out.contains("[Event \"good one\"]") && out.contains("[Event \"fine alpaca\"]"), "{out}");
    assert!(!out.contains("Carol"), "{out}");
    assert_eq!(text(&o.stderr).lines().count(), 2);
    let o = run(&["pgn", "--fen", "tests/pgn/bad.pgn"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout).lines().count(), 2);
}

#[test]
fn fen_prints_each_final_position() {
    let out = ok(&["pgn", "--fen", "tests/pgn/orthodox.pgn"]);
    assert_eq!(
        out,
        "1n1Rkb1r/p4ppp/4q3/4p1B1/4P3/8/PPP2PPP/2K5 b k - 1 17\n\
         rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\n"
    );
    let fens = ok(&["pgn", "--fen", "tests/pgn/variants.pgn"]);
    assert_eq!(fens.lines().count(), 8);
    assert!(fens.lines().nth(6).is_some_and(|l| l.split(' ').next().is_some_and(|b| b.split('/').count() == 10)));
}

/// `--uci` moves, written as a PGN of coordinate moves with the same tags,
/// read with `--coordinates` to the same final positions.
#[test]
fn uci_moves_read_back_with_coordinates() {
    let exported = ok(&["pgn", "tests/pgn/variants.pgn"]);
    let uci = ok(&["pgn", "--uci", "tests/pgn/variants.pgn"]);
    let fens = ok(&["pgn", "--fen", "tests/pgn/variants.pgn"]);
    let mut rebuilt = String::new();
    // Export form: tags, a blank line, movetext, a blank line.
    let parts: Vec<&str> = exported.split("\n\n").filter(|p| !p.is_empty()).collect();
    assert_eq!(parts.len(), 16);
    for (pair, moves) in parts.chunks(2).zip(uci.lines()) {
        let result = pair[1].split_whitespace().last().expect("a result");
        rebuilt.push_str(&format!("{}\n\n{moves} {result}\n\n", pair[0]));
    }
    let o = run_with(&["pgn", "--fen", "-"], &rebuilt);
    assert_eq!(o.status.code(), Some(1), "SAN only by default");
    let o = run_with(&["pgn", "--fen", "--coordinates", "-"], &rebuilt);
    assert_eq!(o.status.code(), Some(0), "{}\n{rebuilt}", text(&o.stderr));
    assert_eq!(text(&o.stdout), fens);
}

#[test]
fn unreadable_files_and_empty_input() {
    let o = run(&["pgn", "tests/pgn/no-such-file.pgn"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.starts_with("error: cannot open tests/pgn/no-such-file.pgn"), "{err}");
    assert_eq!(err.lines().count(), 1);
    let o = run_with(&["pgn", "--check", "-"], "\n\n");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), "0 games, 0 bad\n");
    assert_eq!(text(&o.stderr), "-: no games found\n");
    // The modes exclude each other.
    let o = run(&["pgn", "--fen", "--uci", "tests/pgn/orthodox.pgn"]);
    assert_eq!(o.status.code(), Some(2));
}

/// Games of variants defined as data read as the server's ReadPgn reads
/// them (one reader): the built-in ones, and a user's with `--variants`.
#[test]
fn data_variant_games_read_as_the_server_reads_them() {
    let makruk = "[Variant \"makruk\"]\n\n1. e4 d5 *\n";
    let o = run_with(&["pgn", "--check", "-"], makruk);
    assert_eq!((o.status.code(), text(&o.stdout)), (Some(0), "1 games, 0 bad\n".to_string()), "{}", text(&o.stderr));
    let o = run_with(&["pgn", "--fen", "-"], makruk);
    assert_eq!(text(&o.stdout), "rnsmksnr/8/ppp1pppp/3p4/4P3/PPPP1PPP/8/RNSKMSNR w - - 0 2\n");
    let o = run_with(&["pgn", "--uci", "-"], makruk);
    assert_eq!(text(&o.stdout), "e3e4 d6d5\n");
    let o = run_with(&["pgn", "-"], makruk);
    assert!(text(&o.stdout).contains("[Variant \"makruk\"]\n\n1. e4 d5 *\n"), "{}", text(&o.stdout));
    // A user's variant: unknown without its file, read with it.
    let cannons = "[Variant \"cannons\"]\n\n1. e4 *\n";
    let o = run_with(&["pgn", "--check", "-"], cannons);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("unknown variant 'cannons' (known: chess, "), "{}", text(&o.stderr));
    let o = run_with(&["--variants", "tests/variants/example.ini", "pgn", "--check", "-"], cannons);
    assert_eq!((o.status.code(), text(&o.stdout)), (Some(0), "1 games, 0 bad\n".to_string()), "{}", text(&o.stderr));
    // A misspelt tag: the closest name is suggested.
    let o = run_with(&["pgn", "--check", "-"], "[Variant \"makruck\"]\n\n1. e4 *\n");
    assert!(
        text(&o.stderr).contains("unknown variant 'makruck': did you mean 'makruk'? (known: "),
        "{}",
        text(&o.stderr)
    );
    // Annotated, in the built-in and the user's variant.
    for (args, game) in [(&[][..], makruk), (&["--variants", "tests/variants/example.ini"][..], cannons)] {
        let args: Vec<&str> = args.iter().copied().chain(["annotate", "--depth", "1", "-"]).collect();
        let o = run_with(&args, game);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
        let out = text(&o.stdout);
        assert!(out.contains("[Annotator \"Menagerie") && out.contains("[%eval"), "{out}");
    }
}

/// What `menagerie match` writes in a variant defined as data reads back
/// in `pgn` and `annotate` (engines that cannot start: the book moves are
/// played, then the game is scored).
#[test]
fn a_match_pgn_of_a_data_variant_reads_back() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let book = dir.join(format!("pgn-match-book-{}.pgn", std::process::id()));
    let out = dir.join(format!("pgn-match-out-{}.pgn", std::process::id()));
    std::fs::write(&book, "[Variant \"makruk\"]\n\n1. e4 d5 2. Nd2 *\n").expect("write the book");
    let o = run(&common::lost_match(&[
        "--quiet",
        "--variant",
        "makruk",
        "--openings",
        book.to_str().expect("UTF-8"),
        "--pgn-out",
        out.to_str().expect("UTF-8"),
    ]));
    let written = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&book);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(written.matches("[Variant \"makruk\"]").count(), 2, "{written}");
    let path = out.to_str().expect("UTF-8");
    let o = run(&["pgn", "--check", path]);
    let uci = run(&["pgn", "--uci", path]);
    let annotated = run(&["annotate", "--depth", "1", path]);
    let _ = std::fs::remove_file(&out);
    assert_eq!((o.status.code(), text(&o.stdout)), (Some(0), "2 games, 0 bad\n".to_string()), "{}", text(&o.stderr));
    assert_eq!(text(&uci.stdout), "e3e4 d6d5 b1d2\ne3e4 d6d5 b1d2\n");
    assert_eq!(annotated.status.code(), Some(0), "{}", text(&annotated.stderr));
    assert_eq!(text(&annotated.stdout).matches("[Annotator \"Menagerie").count(), 2);
}

//! What the CLI test files share: running the built `menagerie` binary from
//! the repository root and reading what it printed.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The orthodox start position.
pub const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The repository root (suites and files are given relative to it, as in the README).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `menagerie ARGS` from the repository root, stdout and stderr piped,
/// with no remote or variants file from the environment; never a panic.
pub fn run(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_menagerie"))
        .args(args)
        .current_dir(root())
        .env_remove("MENAGERIE_REMOTE")
        .env_remove("MENAGERIE_VARIANTS")
        .output()
        .expect("the menagerie binary runs");
    assert!(!stderr(&out).contains("panicked"), "menagerie {args:?} panicked:\n{}", stderr(&out));
    out
}

/// What the command printed on stdout.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

/// What the command printed on stderr.
pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

/// Runs and expects success; returns stdout.
#[track_caller]
pub fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert_eq!(o.status.code(), Some(0), "menagerie {args:?} failed:\n{}", stderr(&o));
    stdout(&o)
}

/// The last line of `s` (perft prints its count alone there).
pub fn last_line(s: &str) -> &str {
    s.lines().last().unwrap_or("")
}

/// The arguments of a depth-1 `match` between engines A and B that do not
/// exist, then `more`: every game is lost at once, which is enough to see
/// what a match reads and writes.
pub fn lost_match<'a>(more: &[&'a str]) -> Vec<&'a str> {
    let mut args =
        vec!["match", "--engine", "cmd=/nonexistent/a name=A", "--engine", "cmd=/nonexistent/b name=B", "--depth", "1"];
    args.extend_from_slice(more);
    args
}
